"""Dark Realms (``movecore.games.dark_realms``, docs/dark_realms.md).

* :mod:`.rules` — the game's words, options and rule decisions, the enemy AI, the live
  :class:`Position` and ``solve()``.

Importing the package registers the game; its public names are re-exported here.
"""
from .rules import *  # noqa: F401,F403  (the public names: ``dark_realms.Position``, ...)
from .rules import Position, solve_dark_realms  # noqa: F401
