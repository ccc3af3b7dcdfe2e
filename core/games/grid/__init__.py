"""The generic game ``"grid"`` (``movecore.games.grid``): costs, heights, stop cells, links
and provoke tokens given directly as numbers (docs/grid.md).

* :mod:`.rules` — the vocabulary, its options, the live :class:`Position` and ``solve()``.

Importing the package registers the game; its public names are re-exported here.
"""
from .rules import *  # noqa: F401,F403  (the public names: ``grid.Position``, ...)
from .rules import Position, solve_grid  # noqa: F401
