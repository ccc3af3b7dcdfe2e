"""Mage Knight Board Game (``movecore.games.mage_knight``, docs/mage_knight.md).

* :mod:`.rules` — the movement chapter: the game's words, options and rule decisions
  (costs, provoking, effects of the turn, heroes, safe spaces).
* :mod:`.map` — the map: tiles, spaces, walls, the tile lattice and map shapes, the
  reader of the scenario's ``board`` and the published tile catalogue (``tiles.json``).
* :mod:`.position` — the live :class:`Position` (what ``solve()`` asks).
* :mod:`.reference` — the longhand reference ``move()`` / ``direct_move()`` /
  ``solve_reference()`` the tests hold the position to (slow; no other module uses it).

Importing the package registers the game; its public names are re-exported here. It
loads only the map and the rules (reading a scenario, :func:`read_scenario`, needs no
kernel): :class:`Position` and the reference searches load on first use.
"""
from ...position import lazy_position
from ...scenario import expect_keys, register_game
from .._common import lazy_exports
from .map import *  # noqa: F401,F403  (the public names: ``mage_knight.read_map``, ...)
from .rules import *  # noqa: F401,F403  (``mage_knight.terrain_costs``, ...)
from .rules import read_scenario

# The documented reference searches (docs/mage_knight.md), slow: the tests' oracle.
__getattr__, __dir__ = lazy_exports(__name__, {
    "Position": "position", "direct_move": "reference", "move": "reference",
    "solve_reference": "reference"})
lazy_position("mage_knight", __name__ + ".position")


@register_game("mage_knight", read=read_scenario)
def solve_mage_knight(scenario: dict) -> dict:
    """``solve()`` of a Mage Knight scenario: its live :class:`Position`, asked the
    scenario's query (``move`` / ``direct_move`` in :mod:`.reference` are the longhand
    reference the position is tested against)."""
    expect_keys(scenario, "scenario", ("game", "board", "options", "figures", "query"),
                required=("board", "figures", "query"))
    from .position import Position
    return Position.from_scenario(scenario).solve(scenario["query"])
