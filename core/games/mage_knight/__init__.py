"""Mage Knight Board Game (``movecore.games.mage_knight``, docs/mage_knight.md).

* :mod:`.rules` — the movement chapter: the game's words, options and rule decisions, the
  map and tile readers, and the longhand reference ``move()`` / ``direct_move()`` /
  ``solve_reference()`` the tests hold the position to.
* :mod:`.position` — the live :class:`Position` (what ``solve()`` asks).
* ``tiles.json`` — the base-game tile catalogue.

Importing the package registers the game; its public names are re-exported here.
"""
from ...scenario import expect_keys, register_game
from .rules import *  # noqa: F401,F403  (the public names: ``mage_knight.read_map``, ...)
from .position import Position  # noqa: F401


@register_game("mage_knight")
def solve_mage_knight(scenario: dict) -> dict:
    """``solve()`` of a Mage Knight scenario: its live :class:`Position`, asked the
    scenario's query (``move`` / ``direct_move`` in :mod:`.rules` are the longhand
    reference the position is tested against)."""
    expect_keys(scenario, "scenario", ("game", "board", "options", "figures", "query"),
                required=("board", "figures", "query"))
    return Position.from_scenario(scenario).solve(scenario["query"])
