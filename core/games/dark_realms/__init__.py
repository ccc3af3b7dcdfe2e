"""Dark Realms (``movecore.games.dark_realms``, docs/dark_realms.md).

* :mod:`.rules` — the game's words, options and rule decisions: the scene reader, hero
  moves (card, Stamina, die odds, teleport), the enemy AI's target and destination, and
  ``solve()``'s queries.
* :mod:`.position` — the live :class:`Position` (what ``solve()`` asks).
* private helpers: :mod:`._enemy_moves` (the enemy AI on the position's prepared queries)
  and :mod:`._enemy_pick` (its compiled choice of destination).

Importing the package registers the game; its public names are re-exported here.
"""
from ...scenario import register_game
from .rules import *  # noqa: F401,F403  (the public names: ``dark_realms.read_scene``, ...)
from .position import ENEMY_REASONS, Position  # noqa: F401
from .rules import read_scene


@register_game("dark_realms")
def solve_dark_realms(scenario: dict) -> dict:
    """``solve()`` of a Dark Realms scenario: its live :class:`Position`, asked the
    scenario's query."""
    scene = read_scene(scenario)
    return Position(scene, scenario).solve(scenario["query"])
