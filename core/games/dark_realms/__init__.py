"""Dark Realms (``movecore.games.dark_realms``, docs/dark_realms.md).

* :mod:`.rules` — the game's words, options and rule decisions: the scene reader, hero
  moves (card, Stamina, die odds, teleport), the enemy AI's target and destination, and
  ``solve()``'s queries.
* :mod:`.position` — the live :class:`Position` (what ``solve()`` asks).
* private helpers: :mod:`._enemy_moves` (the enemy AI on the position's prepared queries)
  and :mod:`._enemy_pick` (its compiled choice of destination).

Importing the package registers the game; its public names are re-exported here. It
loads only the rules (reading a scenario, :func:`read_scenario`, needs no kernel):
:class:`Position` loads on first use, the kernels at the first move.
"""
from ...position import lazy_position
from ...scenario import register_game
from .._common import lazy_exports
from .rules import *  # noqa: F401,F403  (the public names: ``dark_realms.read_scene``, ...)
from .rules import read_scenario, read_scene

__getattr__, __dir__ = lazy_exports(__name__, {"Position": "position",
                                               "ENEMY_REASONS": "position"})
lazy_position("dark_realms", __name__ + ".position")


@register_game("dark_realms", read=read_scenario)
def solve_dark_realms(scenario: dict) -> dict:
    """``solve()`` of a Dark Realms scenario: its live :class:`Position`, asked the
    scenario's query."""
    scene = read_scene(scenario)
    from .position import Position
    return Position(scene, scenario).solve(scenario["query"])
