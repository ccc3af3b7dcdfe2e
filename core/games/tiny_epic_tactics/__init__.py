"""Tiny Epic Tactics (``movecore.games.tiny_epic_tactics``, docs/tiny_epic_tactics.md).

* :mod:`.rules` — the rulebook page: the game's words, options and rule decisions, the
  realm and muster readers, knock back and the solo enemy's move.
* :mod:`.position` — the live :class:`Position` (what ``solve()`` asks).
* :mod:`.reference` — the layered reference searches (``unit_moves``, ``moves_via``,
  ``reference_solve``) the tests hold the position to (no other module uses them).

Importing the package registers the game; its public names are re-exported here. It
loads only the rules (reading a scenario, :func:`read_scenario`, needs no kernel):
:class:`Position` and the reference searches load on first use.
"""
from ...position import lazy_position
from ...scenario import expect_keys, register_game
from .._common import lazy_exports
from .rules import *  # noqa: F401,F403  (the public names: ``tiny_epic_tactics.build_realm``, ...)
from .rules import read_scenario

# The layered reference searches (docs/tiny_epic_tactics.md), slow: the tests' oracle.
__getattr__, __dir__ = lazy_exports(__name__, {
    "Position": "position", "moves_via": "reference", "reference_solve": "reference",
    "unit_moves": "reference"})
lazy_position("tiny_epic_tactics", __name__ + ".position")


@register_game("tiny_epic_tactics", read=read_scenario)
def solve_tiny_epic_tactics(scenario: dict) -> dict:
    """Build the live position of the scenario, then ask it the scenario's query."""
    expect_keys(scenario, "scenario", ("game", "board", "options", "figures", "query"),
                required=("board", "figures", "query"))
    from .position import Position
    return Position.from_scenario(scenario).solve(scenario["query"])
