"""Heroscape (``movecore.games.heroscape``, docs/heroscape.md).

* :mod:`.rules` — the rulebook page: the game's words, options and rule decisions, the
  battlefield and army readers, and the reference ``moves()`` the tests hold the position to.
* :mod:`.position` — the live :class:`Position` (what ``solve()`` asks).
* private helpers: :mod:`._falls` (falls and paths at kernel speed), :mod:`._jit` (the
  position's compiled helpers), :mod:`._entry` (those helpers as entry points).

Importing the package registers the game; its public names are re-exported here.
"""
from ...scenario import expect_keys, register_game
from .rules import *  # noqa: F401,F403  (the public names: ``heroscape.moves``, ...)
from .position import Position, read_rules  # noqa: F401


@register_game("heroscape")
def solve_heroscape(scenario: dict) -> dict:
    """``solve()`` of a Heroscape scenario: its live :class:`Position`, asked the query."""
    expect_keys(scenario, "scenario", ("game", "board", "options", "figures", "query"),
                required=("board", "figures", "query"))
    return Position.from_scenario(scenario).solve(scenario["query"])
