"""movecore: exact, fast movement generation for tabletop board games.

Layers (imports point down only): ``movecore.games`` (one adapter per game) ->
``movecore`` (Board, Mover, reach, solve) -> ``movecore.kernels`` (Numba kernels).

>>> import movecore as mc
>>> board = mc.Board.hex([(0, 0), (1, 0), (2, 0)])
>>> mc.reach(board, mc.Mover(), (0, 0), 1).costs.tolist()
[0, 1]
"""
import os as _os
import sys as _sys


def _import_numba():
    """``import numba``, without the ~0.3 s of ``scipy.linalg`` it imports only to learn
    whether BLAS is there (``numba.np.arraymath``, at the first compile or cache load),
    when SciPy is installed and neither is
    imported yet: placeholders answer that probe and are dropped at once, so numba imports
    the real module the first time it compiles linear algebra (``ensure_blas``).
    ``MOVECORE_NUMBA_SCIPY=1`` imports numba as is."""
    if "numba" in _sys.modules or "scipy.linalg" in _sys.modules or \
            _os.environ.get("MOVECORE_NUMBA_SCIPY", "") not in ("", "0"):
        import numba
        return numba
    import types
    names = ("scipy.linalg", "scipy.linalg.cython_blas")
    stubs = {name: types.ModuleType(name) for name in names}
    _sys.modules.update(stubs)
    try:
        import numba
        import numba.np.arraymath  # noqa: F401 (the probe, at its import)
    finally:
        for name, stub in stubs.items():
            if _sys.modules.get(name) is stub:
                del _sys.modules[name]
        scipy = _sys.modules.get("scipy")
        if scipy is not None and scipy.__dict__.get("linalg") is stubs["scipy.linalg"]:
            del scipy.linalg
    return numba


_numba = _import_numba()

# Fork-safe parallel kernels by default: under GNU OpenMP a process forked after a
# parallel region aborts (multiprocessing's default start on Linux). Parallel regions
# are entered one at a time (see reach.reach_many), so workqueue's lack of thread
# safety does not matter. An explicit NUMBA_THREADING_LAYER wins.
if "NUMBA_THREADING_LAYER" not in _os.environ:
    _numba.config.THREADING_LAYER = "forksafe"

from .board import DIRECTIONS, GRID_KINDS, Board, Link  # noqa: E402
from .errors import (BoardError, IllegalMoveError, LimitError, MovecoreError,
                     PlacementError, QueryError, ScenarioError, UnknownGameError)
from .kernels._types import (CELL_BLOCKED, CELL_NO_END, CELL_STOP, EDGE_BLOCKED, EDGE_STOP,
                             OCC_EMPTY, OCC_WALL)
from .mover import Mover
from .reach import (Prepared, Reach, ReachBatch, distance_field, prepare, reach, reach_many,
                    warmup)
from .scenario import available_games, register_game, solve
from .position import Moves, Position, position, position_games  # noqa: E402

def _version() -> str:
    """The installed distribution's version (pyproject.toml is the one place it is set)."""
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("movecore")
    except PackageNotFoundError:  # pragma: no cover (a source tree not installed)
        return "0+unknown"


__version__ = _version()
__all__ = [
    "Board", "Link", "Mover", "Prepared", "Reach", "ReachBatch", "prepare", "reach",
    "reach_many",
    "distance_field", "solve", "position", "position_games", "Position", "Moves",
    "IllegalMoveError", "register_game", "available_games", "warmup",
    "MovecoreError", "ScenarioError", "UnknownGameError", "BoardError", "PlacementError",
    "QueryError", "LimitError", "CELL_BLOCKED", "CELL_STOP", "CELL_NO_END", "EDGE_BLOCKED",
    "EDGE_STOP", "OCC_EMPTY", "OCC_WALL", "DIRECTIONS", "GRID_KINDS",
]
