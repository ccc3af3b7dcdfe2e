"""The live position's compiled helpers (:mod:`._jit`) as entry points, shared by
:mod:`.position` and :mod:`._falls`, and the empty arrays they take for "none".

:mod:`._jit` is imported on the first query (loaded from Numba's cache, or compiled once),
not when the game is loaded.
"""
from __future__ import annotations

import functools

import numpy as np

from ...reach import entry_point as _entry_point

_NO_NODES2 = np.zeros((1, 0), np.uint64)
_NO_TOUCH = np.zeros((0, 12), np.int64)


@functools.lru_cache(maxsize=None)
def _jit() -> "_Helpers":
    """The position's compiled helpers (:mod:`._jit`), imported on the first
    query (loaded from Numba's cache, or compiled once), as entry points: called without
    the dispatcher, every argument being of the declared type."""
    from . import _jit as J
    return _Helpers({name: _entry_point(getattr(J, name)) for name in (
        "relocate", "relevant", "adjacent", "touching", "refresh_nodes", "free_nodes",
        "restore", "sync_cells", "leave_bits", "node_leave", "finish_pen", "finish_fast",
        "finish_double", "who_bits", "finish_pen_who", "finish_fast_who",
        "finish_double_who")})


class _Helpers:
    def __init__(self, fns: dict):
        self.__dict__.update(fns)
