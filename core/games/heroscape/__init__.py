"""Heroscape (``movecore.games.heroscape``, docs/heroscape.md).

* :mod:`.rules` — the rulebook page: the game's words, options and rule decisions, the
  battlefield and army readers.
* :mod:`.position` — the live :class:`Position` (what ``solve()`` asks).
* :mod:`.reference` — the slow, longhand ``moves()`` the tests hold the position to (no
  other module uses it).
* private helpers: :mod:`._falls` (falls and paths at kernel speed), :mod:`._jit` (the
  position's compiled helpers), :mod:`._entry` (those helpers as entry points).

Importing the package registers the game; its public names are re-exported here. It
loads only the rules (reading a scenario, :func:`read_scenario`, needs no kernel):
:class:`Position` and the reference ``moves`` load on first use.
"""
from ...position import lazy_position
from ...scenario import expect_keys, register_game
from .._common import lazy_exports
from .rules import *  # noqa: F401,F403  (the public names: ``heroscape.read_army``, ...)
from .rules import read_scenario

# The documented reference ``heroscape.moves`` (docs/heroscape.md): slow, the tests' oracle.
__getattr__, __dir__ = lazy_exports(__name__, {"Position": "position", "moves": "reference"})
lazy_position("heroscape", __name__ + ".position")


@register_game("heroscape", read=read_scenario)
def solve_heroscape(scenario: dict) -> dict:
    """``solve()`` of a Heroscape scenario: its live :class:`Position`, asked the query."""
    expect_keys(scenario, "scenario", ("game", "board", "options", "figures", "query"),
                required=("board", "figures", "query"))
    from .position import Position
    return Position.from_scenario(scenario).solve(scenario["query"])
