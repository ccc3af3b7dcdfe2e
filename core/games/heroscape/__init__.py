"""Heroscape (``movecore.games.heroscape``, docs/heroscape.md).

* :mod:`.rules` — the rulebook page: the game's words, options and rule decisions, the
  battlefield and army readers.
* :mod:`.position` — the live :class:`Position` (what ``solve()`` asks).
* :mod:`.reference` — the slow, longhand ``moves()`` the tests hold the position to (no
  other module uses it).
* private helpers: :mod:`._falls` (falls and paths at kernel speed), :mod:`._jit` (the
  position's compiled helpers), :mod:`._entry` (those helpers as entry points).

Importing the package registers the game; its public names are re-exported here.
"""
from ...scenario import expect_keys, register_game
from .rules import *  # noqa: F401,F403  (the public names: ``heroscape.read_army``, ...)
from .position import Position, read_rules  # noqa: F401
# The documented reference ``heroscape.moves`` (docs/heroscape.md): slow, the tests' oracle.
from .reference import moves  # noqa: F401


@register_game("heroscape")
def solve_heroscape(scenario: dict) -> dict:
    """``solve()`` of a Heroscape scenario: its live :class:`Position`, asked the query."""
    expect_keys(scenario, "scenario", ("game", "board", "options", "figures", "query"),
                required=("board", "figures", "query"))
    return Position.from_scenario(scenario).solve(scenario["query"])
