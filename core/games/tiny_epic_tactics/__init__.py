"""Tiny Epic Tactics (``movecore.games.tiny_epic_tactics``, docs/tiny_epic_tactics.md).

* :mod:`.rules` — the rulebook page: the game's words, options and rule decisions, the
  realm and muster readers, knock back and the solo enemy's move.
* :mod:`.position` — the live :class:`Position` (what ``solve()`` asks).
* :mod:`.reference` — the layered reference searches (``unit_moves``, ``moves_via``,
  ``reference_solve``) the tests hold the position to (no other module uses them).

Importing the package registers the game; its public names are re-exported here.
"""
from ...scenario import expect_keys, register_game
from .rules import *  # noqa: F401,F403  (the public names: ``tiny_epic_tactics.build_realm``, ...)
from .position import Position  # noqa: F401
# The layered reference searches (docs/tiny_epic_tactics.md), slow: the tests' oracle.
from .reference import moves_via, reference_solve, unit_moves  # noqa: F401


@register_game("tiny_epic_tactics")
def solve_tiny_epic_tactics(scenario: dict) -> dict:
    """Build the live position of the scenario, then ask it the scenario's query."""
    expect_keys(scenario, "scenario", ("game", "board", "options", "figures", "query"),
                required=("board", "figures", "query"))
    return Position.from_scenario(scenario).solve(scenario["query"])
