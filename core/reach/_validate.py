"""Validation at the boundary: cells, budgets and per-query layers, checked once.

Every function here turns a user's value into what the kernels take (an int, a
contiguous writable array of the kernel's dtype) or raises a typed error of
:mod:`movecore.errors` naming the bad value; nothing after it checks again.
"""
from __future__ import annotations

from typing import Sequence, TypeAlias

import numpy as np
from numpy.typing import NDArray

from ..board import Board
from ..errors import BoardError, LimitError, QueryError, describe, is_sequence
from ..kernels import _types as T


#: The layer of a query that gives none (every kernel takes an empty array for it).
_EMPTY_U8 = np.zeros(0, np.uint8)
_EMPTY_U64 = np.zeros(0, np.uint64)
_EMPTY_I32 = np.zeros(0, T.INDEX)

#: A cell: its index, or its coordinate pair.
Cell: TypeAlias = int | np.integer | Sequence[int]
#: Many cells: a sequence of :data:`Cell`, or an integer array of cell indices.
Cells: TypeAlias = Sequence[Cell] | NDArray[np.integer]
#: One budget for every query, or one per query.
Budgets: TypeAlias = int | np.integer | Sequence[int] | NDArray[np.integer]


# ---------------------------------------------------------------------- validation
def _cell(board: Board, where, what: str) -> int:
    """A cell index from an index or a coordinate pair, validated."""
    if isinstance(where, (int, np.integer)) and not isinstance(where, bool):
        if not 0 <= where < board.n_cells:
            raise QueryError(f"{what} index {where} is not a cell of the board "
                             f"(0..{board.n_cells - 1})")
        return int(where)
    try:
        i = board.find(where)
    except BoardError:  # not a pair of integers (booleans included): name the argument
        if isinstance(where, (bool, np.bool_)):  # (True would read as cell 1)
            raise QueryError(f"{what} must be a cell index or a coordinate pair, not a "
                             f"boolean; got {describe(where)}") from None
        raise QueryError(f"{what} must be a cell index or a pair of integer coordinates; "
                         f"got {describe(where)}") from None
    if i < 0:
        raise QueryError(f"{what} {describe(where)} is not on the board")
    return i


def _budget(budget, what="budget") -> int:
    if not isinstance(budget, (int, np.integer)) or isinstance(budget, bool):
        raise QueryError(f"{what} must be a non-negative integer; got {describe(budget)}")
    if budget < 0:
        raise QueryError(f"{what} must be a non-negative integer; got {budget}")
    if budget > T.MAX_BUDGET:
        raise LimitError(f"{what} {budget} exceeds the supported maximum {T.MAX_BUDGET}")
    return int(budget)


def _layer(arr, n, dtype, name):
    if arr is None:
        return {np.uint8: _EMPTY_U8, np.uint64: _EMPTY_U64}.get(dtype, _EMPTY_I32)
    a = np.asarray(arr)
    if a.shape != (n,):
        raise QueryError(f"{name} must have shape ({n},), one value per cell; got {a.shape}")
    if a.dtype != dtype:
        if a.size and not (np.issubdtype(a.dtype, np.integer) or a.dtype == np.bool_):
            raise QueryError(f"{name} must hold integers; got dtype {a.dtype}")
        # (as Python ints: NumPy cannot compare a bool or int64 with 2**64 - 1)
        if a.size and (int(a.min()) < 0 or int(a.max()) > np.iinfo(dtype).max):
            raise LimitError(f"{name} values must lie in [0, {np.iinfo(dtype).max}]")
        a = a.astype(dtype)
    return _kernel_ready(a)


def _kernel_ready(a: np.ndarray) -> np.ndarray:
    """``a`` contiguous and writable, copied only where it is not: the kernels only read
    a layer, but Numba types a read-only array as another type (no kernel signature
    would match it)."""
    a = np.ascontiguousarray(a)
    return a if a.flags.writeable else a.copy()


def _occupant(board, occupant):
    if occupant is None:
        return board._cache.setdefault("empty_occ", board.occupancy())
    a = np.asarray(occupant)
    if a.shape != (board.n_cells,) or not np.issubdtype(a.dtype, np.integer):
        raise QueryError(f"occupant must be an integer array of shape ({board.n_cells},); "
                         f"got {a.dtype} {a.shape}")
    # (below OCC_WALL would read as an empty cell: refused, not guessed)
    lo, hi = (int(a.min()), int(a.max())) if a.size else (0, 0)
    if lo < T.OCC_WALL or hi > np.iinfo(T.INDEX).max:
        raise LimitError(f"occupant values must be team ids >= 0, OCC_EMPTY ({T.OCC_EMPTY}) "
                         f"or OCC_WALL ({T.OCC_WALL}); got {lo if lo < T.OCC_WALL else hi}")
    if a.dtype != T.INDEX:
        a = a.astype(T.INDEX)
    return _kernel_ready(a)


def _starts_array(board, starts) -> np.ndarray:
    """int32[Q] validated start cells from indices or coordinates."""
    if isinstance(starts, np.ndarray) and starts.ndim == 1 and \
            np.issubdtype(starts.dtype, np.integer) and isinstance(board, Board):
        # cell indices as an integer array: validated at once
        if starts.size and (starts.min() < 0 or starts.max() >= board.n_cells):
            bad = starts[(starts < 0) | (starts >= board.n_cells)][0]
            _cell(board, int(bad), "start")  # raises, naming the bad value
        return np.ascontiguousarray(starts, dtype=T.INDEX)
    if not isinstance(board, Board):
        raise QueryError(f"board must be a movecore.Board; got {describe(board)}")
    if not is_sequence(starts):
        raise QueryError(f"starts must be a sequence of cell indices or coordinates; got "
                         f"{describe(starts)}")
    return np.array([_cell(board, x, "start") for x in list(starts)], dtype=T.INDEX)


def _budgets_array(budgets, n: int) -> np.ndarray:
    """int64[n] validated budgets from one integer or one per start."""
    if isinstance(budgets, (int, np.integer)) and not isinstance(budgets, bool):
        return np.full(n, _budget(budgets, "budget"), dtype=np.int64)
    if isinstance(budgets, np.ndarray) and budgets.ndim == 1 and len(budgets) == n and \
            np.issubdtype(budgets.dtype, np.integer):  # checked at once, not one by one
        b = budgets.astype(np.int64)
        if n and (int(budgets.min()) < 0 or int(budgets.max()) > T.MAX_BUDGET):
            bad = budgets[(budgets < 0) | (budgets > T.MAX_BUDGET)][0]
            _budget(int(bad), "budget")  # raises the error of that value
        return b
    if not is_sequence(budgets):
        raise QueryError(f"budgets must be one integer or a sequence of one per start "
                         f"({n}); got {describe(budgets)}")
    budget_list = list(budgets)
    if len(budget_list) != n:
        raise QueryError(f"budgets must be one integer or one per start ({n}); "
                         f"got {len(budget_list)}")
    return np.array([_budget(x, "budget") for x in budget_list], dtype=np.int64)


def _n_chunks(threads, n: int) -> int:
    import numba

    n_threads = numba.get_num_threads() if threads is None else threads
    if type(n_threads) is not int or n_threads < 1:
        raise QueryError(f"threads must be a positive integer; got {describe(threads)}")
    return max(1, min(n_threads, n))
