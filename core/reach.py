"""The public query API: :func:`reach`, :func:`reach_many`, :func:`distance_field`.

Validation happens here, once; the kernels then run on clean arrays. Workspaces are
cached per board and per thread, so repeated queries allocate nothing proportional to
the board.

Example::

    >>> import movecore as mc
    >>> board = mc.Board.square(5, 1, terrain=[0, 0, 1, 0, 0])
    >>> mover = mc.Mover(terrain_cost=[1, 3])
    >>> r = mc.reach(board, mover, (0, 0), budget=4)
    >>> [board.coord(c) for c in r.cells], r.costs.tolist()
    ([(0, 0), (1, 0), (2, 0)], [0, 1, 4])
    >>> [board.coord(c) for c in r.path((2, 0))]
    [(0, 0), (1, 0), (2, 0)]
"""
from __future__ import annotations

import functools
import os
import sys
import threading
from dataclasses import dataclass, replace
from typing import Sequence, TypeAlias

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .board import Board, Layer
from .errors import BoardError, LimitError, QueryError, describe, is_sequence
from .kernels import _types as T
from .kernels.reach import (H_ANY_STOP, H_HILLY, H_PLAIN, HDR, PL_BLOCKED, PL_NO_END,
                            PL_OK, fast_layout_size, reach_plain_k, field_query,
                            gather_batch, is_plain, prange_batch, reach1_general,
                            reach1_ordered,
                            reach1_one_general, reach1_one_plain, reach1_plain, reach_batch,
                            reach_query)
from .kernels.reach_pen import kernel as reach_pen_kernel
from .kernels.reach_pen import pen_layout_size, pen_out_offset, sorted_pen_ends
from .mover import OCCUPANCY_MODES, Mover

#: A cell: its index, or its coordinate pair.
Cell: TypeAlias = int | np.integer | Sequence[int]
#: Many cells: a sequence of :data:`Cell`, or an integer array of cell indices.
Cells: TypeAlias = Sequence[Cell] | NDArray[np.integer]
#: One budget for every query, or one per query.
Budgets: TypeAlias = int | np.integer | Sequence[int] | NDArray[np.integer]

_new = object.__new__
_EMPTY_U8 = np.zeros(0, np.uint8)
_EMPTY_U64 = np.zeros(0, np.uint64)
_EMPTY_I32 = np.zeros(0, T.INDEX)
_TREE_MODE = np.zeros((3, 0), T.INDEX)    # reach1: no end columns = tree mode
_ROWS_MODE = np.zeros((8, 0), T.INDEX)    # reach_pen: the ends' 8 fields, no tree
_NO_QUERIES = np.zeros((0, 3), np.int64)  # reach1: the one query in its scalar arguments


def _entry_point(kernel):
    """The compiled function behind a one-signature kernel, called without Numba's
    dispatcher (which re-types every argument: ~0.05 us each, half of a small query's
    overhead). Only for arguments already of the declared types, as here."""
    try:
        return kernel.overloads[kernel.signatures[0]].entry_point
    except (AttributeError, IndexError, KeyError):  # another Numba: the dispatcher
        return kernel


#: :func:`_entry_point` for the game modules' own compiled helpers (``@njit`` with one
#: explicit signature; called only with arguments of exactly its types).
entry_point = _entry_point

_REACH1 = {True: _entry_point(reach1_plain), False: _entry_point(reach1_general)}
_PLAIN = _REACH1[True]
_ORDERED = _entry_point(reach1_ordered)
_REACH_QUERY = _entry_point(reach_query)
_NO_ORDER = np.zeros(0, np.int64)
_REACH1_ONE = {True: _entry_point(reach1_one_plain), False: _entry_point(reach1_one_general)}
#: id(compiled entry point) -> (its name, itself): a pickled query names its kernels
#: (a compiled closure does not pickle) and :func:`_kernel_named` finds them again.
_KERNELS: dict = {}


def _name_kernel(name: tuple, f):
    _KERNELS[id(f)] = (name, f)
    return f


def _kernel_named(name: tuple):
    if name[0] == "plain_k":
        return _plain_entries(*name[1:-1])[name[-1]]
    return {"reach1": _REACH1, "one": _REACH1_ONE}[name[0]][name[1]]


for _plain_flag in (True, False):
    _name_kernel(("reach1", _plain_flag), _REACH1[_plain_flag])
    _name_kernel(("one", _plain_flag), _REACH1_ONE[_plain_flag])
DEFAULT_MAX_PENALTY = 15


# ---------------------------------------------------------------------- workspaces
class _Workspace:
    """Kernel scratch for one thread and one state count; reused across queries."""

    __slots__ = ("state", "heap", "bucket", "cell", "ctrl", "tree", "ends", "n_pen", "src")

    def __init__(self, n_cells: int, n_pen: int, heap_cap: int, n_buckets: int):
        S = 2 * n_cells * n_pen
        self.n_pen = n_pen
        self.state = np.zeros((S, 4), T.INDEX)
        self.heap = np.empty((heap_cap, 2), T.INDEX)
        self.heap[:, 1] = np.arange(1, heap_cap + 1, dtype=T.INDEX)
        self.heap[-1, 1] = -1
        self.bucket = np.full((n_buckets, 2), -1, T.INDEX)
        self.cell = np.zeros((n_cells, 2), T.INDEX)
        self.ctrl = np.zeros(8, np.int64)
        self.tree = np.empty((S, 4), T.INDEX)
        self.ends = np.empty((n_cells, 8), T.INDEX)
        self.src = np.zeros(1, T.INDEX)   # the one source of a single query


_local = threading.local()
_parallel_lock = threading.Lock()


def _thread_cache(name: str) -> dict:
    """This thread's scratch cache ``name`` (workspaces are never shared by threads)."""
    cache = getattr(_local, name, None)
    if cache is None:
        cache = {}
        setattr(_local, name, cache)
    return cache


def _arena_needed(counts: np.ndarray, n_chunks: int, current: int, n_cells: int) -> int:
    """Arena rows per chunk after a batch overflowed: double, or the largest chunk's ends
    plus one query's worth, whichever is more."""
    n_q = len(counts)
    per_chunk = [counts[(n_q * c) // n_chunks:(n_q * (c + 1)) // n_chunks].sum()
                 for c in range(n_chunks)]
    return max(2 * current, int(max(per_chunk)) + n_cells)


def _gather(counts: np.ndarray, arena: np.ndarray, n_chunks: int) -> "ReachBatch":
    """The CSR result of a batch from its per-chunk arenas."""
    offsets = np.zeros(len(counts) + 1, np.int64)
    np.cumsum(counts, out=offsets[1:])
    total = int(offsets[-1])
    cells = np.empty(total, T.INDEX)
    costs = np.empty(total, T.INDEX)
    stopped = np.empty(total, np.uint8)
    gather_batch(counts, arena, n_chunks, cells, costs, stopped)
    return ReachBatch(offsets, cells, costs, stopped.view(bool))


def _workspace(board: Board, n_pen: int, n_buckets: int, grow: bool = False) -> _Workspace:
    cache = _thread_cache("ws")
    key = (board.n_cells, n_pen)  # scratch is generation-stamped: any board of this size
    ws = cache.get(key)
    if ws is None or grow or ws.bucket.shape[0] < n_buckets:
        heap = 2 * board.n_cells * n_pen + 64
        if ws is not None:
            heap = ws.heap.shape[0] * (2 if grow else 1)
            n_buckets = max(n_buckets, ws.bucket.shape[0])
        ws = _Workspace(board.n_cells, n_pen, heap, max(n_buckets, 1))
        if len(cache) > 16:
            cache.clear()
        cache[key] = ws
    return ws


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


@dataclass(frozen=True)
class _Query:
    """Validated, packed arrays of one query shape (everything but start and budget)."""

    board: Board
    rule: np.ndarray
    occupant: np.ndarray
    qflags: np.ndarray
    zoc: np.ndarray
    leave: np.ndarray
    enter_pen: np.ndarray
    params: np.ndarray
    blob: np.ndarray | None = None   # fast path: board + mover packed (n_pen == 1)
    top: int = -1                    # params[P_BUDGET] and params[P_N_BUCKETS] as ints
    nb: int = 1
    kernel: object = None            # fast path: reach1_plain or reach1_general (entry)
    one: object = None               # its 5-argument single query (reach1_one_*), when
    #                                  no layer is given and nobody stands on the board
    n: int = 0                       # cells of the board
    own_occupant: bool = False       # occupant is this query's own copy (set_layer)
    pblob: np.ndarray | None = None  # penalty fast path: the same packing, for reach_pen
    fast: object = None              # batches: reach_plain_k's (same signature as
    #                                  kernel, ends mode; hands anything else to reach1)

    def __getstate__(self) -> dict:
        """Pickled with its compiled entry points named, not pickled (see _KERNELS)."""
        state = dict(self.__dict__)
        for k in ("kernel", "one", "fast"):
            f = state[k]
            if f is not None:
                state[k] = _KERNELS[id(f)][0]
        return state

    def __setstate__(self, state: dict) -> None:
        for k in ("kernel", "one", "fast"):
            if state[k] is not None:
                state[k] = _kernel_named(state[k])
        self.__dict__.update(state)

    def layers(self):
        b = self.board
        return (b.nbr, b.link_ptr, b.link_data, b.cell_data, b.edges, b.diag_sides,
                self.rule, self.occupant, self.qflags, self.zoc, self.leave, self.enter_pen,
                self.params)


def _prepare(board, mover, budget, occupant, cell_flags, zoc, leave, enter_penalty,
             leave_weight, max_penalty) -> _Query:
    if not isinstance(board, Board):
        raise QueryError(f"board must be a movecore.Board; got {describe(board)}")
    if not isinstance(mover, Mover):
        raise QueryError(f"mover must be a movecore.Mover; got {describe(mover)}")
    n = board.n_cells
    top_terrain = board._fact("max_terrain")
    if mover.terrain_cost is not None and top_terrain >= len(mover.terrain_cost):
        # (an id past the table would read as "cannot enter": a silent wrong answer)
        cell = int(np.flatnonzero(board.cell_data[:, 0] >= len(mover.terrain_cost))[0])
        raise QueryError(f"the board has terrain id {int(board.cell_data[cell, 0])} (at "
                         f"{list(board.coord(cell))}) but the mover's terrain_cost has "
                         f"{len(mover.terrain_cost)} entries (ids 0.."
                         f"{len(mover.terrain_cost) - 1}); give every id a cost (-1 = "
                         f"cannot enter)")
    rule = mover.terrain_rule(top_terrain + 1)
    occ = _occupant(board, occupant)
    qflags = _layer(cell_flags, n, np.uint8, "cell_flags")
    zoc_a = _layer(zoc, n, np.uint64, "zoc")
    leave_a = _layer(leave, n, np.uint64, "leave")
    pen_a = _layer(enter_penalty, n, T.INDEX, "enter_penalty")
    penalties = leave is not None or enter_penalty is not None
    if max_penalty is None:
        max_penalty = DEFAULT_MAX_PENALTY if penalties else 0
    if not isinstance(max_penalty, (int, np.integer)) or isinstance(max_penalty, bool) \
            or not 0 <= max_penalty < T.MAX_PENALTY_LEVELS:
        raise LimitError(f"max_penalty must be an integer in [0, "
                         f"{T.MAX_PENALTY_LEVELS - 1}]; got {describe(max_penalty)}")
    if not isinstance(leave_weight, (int, np.integer)) or isinstance(leave_weight, bool) \
            or not 0 <= leave_weight <= 1 << 16:
        raise LimitError(f"leave_weight must be an integer in [0, 65536]; got "
                         f"{describe(leave_weight)}")
    n_pen = int(max_penalty) + 1 if penalties else 1
    # Largest single step: bounds the ring of buckets (costs inside it are distinct mod B).
    span = board._fact("height_span")
    if mover.max_climb is not None:
        span_up = min(span, mover.max_climb)
    else:
        span_up = span
    rise_cost = mover.climb_per_level * span_up + (mover.climb_flat if span_up else 0)
    step = max(int(rule[:, 0].max()) + board._fact("max_edge_cost") + max(
        rise_cost, mover.descend_per_level * span), board._fact("max_link_cost"))
    link_mask = mover.link_mask
    unit = (n_pen == 1 and set(rule[:, 0].tolist()) <= {-1, 1}
            and (span == 0 or (mover.climb_per_level == 0 and mover.climb_flat == 0
                               and mover.descend_per_level == 0))
            and board._fact("max_edge_cost") == 0
            and all(c == 1 for k, c in board._fact("link_costs") if (link_mask >> k) & 1))
    params = np.zeros(T.N_PARAMS, np.int64)
    params[T.P_BUDGET] = budget
    params[T.P_TEAM] = mover.team
    params[T.P_ALLY] = OCCUPANCY_MODES[mover.allies]
    params[T.P_ENEMY] = OCCUPANCY_MODES[mover.enemies]
    params[T.P_CLIMB_PER_LEVEL] = mover.climb_per_level
    params[T.P_CLIMB_FLAT] = mover.climb_flat
    params[T.P_MAX_CLIMB] = -1 if mover.max_climb is None else mover.max_climb
    params[T.P_LINK_MASK] = link_mask
    params[T.P_N_PEN] = n_pen
    params[T.P_LEAVE_WEIGHT] = leave_weight
    params[T.P_CORNER_CUT] = 1 if mover.corner_cutting else 0
    params[T.P_N_BUCKETS] = min(step, budget) + 1
    params[T.P_DESCEND_PER_LEVEL] = mover.descend_per_level
    params[T.P_UNIT] = 1 if unit else 0
    params[T.P_HAS_OCC] = occupant is not None and bool((occ != T.OCC_EMPTY).any())
    blob = kernel = one = fast = None
    if n_pen == 1 and int(params[T.P_N_BUCKETS]) * n <= _FAST_MAX_STACK:
        blob = _pack(board, rule)
        plain = bool(is_plain(blob, qflags, zoc_a, params))
        kernel = _REACH1[plain]
        if qflags.size == 0 and zoc_a.size == 0 and not params[T.P_HAS_OCC]:
            one = _REACH1_ONE[plain]
        if plain:
            fast = _plain_kernels(board, blob, params)
            if fast is not None and one is not None:
                one = fast[1]
    pblob = None
    if n_pen > 1 and int(params[T.P_N_BUCKETS]) * n * n_pen <= _FAST_MAX_STACK:
        pblob = _pack(board, rule)  # penalties: reach_pen over the same packing
    return _Query(board, rule, occ, qflags, zoc_a, leave_a, pen_a, params, blob,
                  int(budget), int(params[T.P_N_BUCKETS]), kernel, one, n,
                  occupant is not None, pblob=pblob, fast=fast and fast[0])


def _plain_kernels(board, blob, params):
    """(batch, one) of ``reach_plain_k`` for a plain query when its board and mover fit
    it (K of 4, 6 or 8, the plain section usable, no cell that may not be ended on,
    budget below the blocked cost, climbing paid per level only), else None."""
    K = board.nbr.shape[1]
    sec = int(blob[blob[H_PLAIN]])
    if K not in (4, 6, 8) or not sec & PL_OK or sec & PL_NO_END or \
            int(params[T.P_BUDGET]) >= PL_BLOCKED:
        return None
    climbs = bool(blob[H_HILLY]) and bool(params[T.P_CLIMB_PER_LEVEL] or
                                          params[T.P_CLIMB_FLAT] or
                                          params[T.P_DESCEND_PER_LEVEL] or
                                          params[T.P_MAX_CLIMB] >= 0)
    if climbs and (params[T.P_CLIMB_FLAT] or params[T.P_DESCEND_PER_LEVEL] or
                   params[T.P_MAX_CLIMB] >= 0):
        return None
    return _plain_entries(K, climbs, bool(params[T.P_UNIT]))


@functools.lru_cache(maxsize=None)
def _plain_entries(K, climbs, fifo):
    batch, one = reach_plain_k(K, climbs, fifo)
    return (_name_kernel(("plain_k", K, climbs, fifo, 0), _entry_point(batch)),
            _name_kernel(("plain_k", K, climbs, fifo, 1), _entry_point(one)))


#: The fast kernel keeps one stack of at most N entries per bucket: used while
#: buckets * cells stays below this (else the linked-list kernel runs); the penalty
#: kernel one of N * n_pen, while buckets * cells * n_pen does.
_FAST_MAX_STACK = 1 << 23


def _pack(board: Board, rule: np.ndarray) -> np.ndarray:
    """The board and a mover's terrain rule in one int32 array (``reach1``'s ``blob``),
    cached on the board per rule."""
    key = ("fast_blob", rule.tobytes())
    blob = board._cache.get(key)
    if blob is not None:
        return blob
    cd = board.cell_data
    entry = rule[cd[:, 0], 0].astype(T.INDEX)
    entry[(cd[:, 2] & T.CELL_BLOCKED) != 0] = -1
    flags = cd[:, 2] | np.where(rule[cd[:, 0], 1] & T.TERRAIN_STOP, T.CELL_STOP, 0)
    cinfo = np.stack([entry, flags.astype(T.INDEX), cd[:, 1], cd[:, 0]], axis=1)
    parts = [board.nbr, board.link_ptr, board.link_data, board.cell_data, board.edges,
             board.diag_sides, rule, cinfo]
    head = np.zeros(HDR, T.INDEX)
    head[:5] = (board.n_cells, board.nbr.shape[1], board.link_data.shape[0],
                rule.shape[0], board.edges.shape[0])
    head[H_ANY_STOP] = bool((flags & T.CELL_STOP).any())
    head[H_HILLY] = board.n_cells > 0 and bool((cd[:, 1] != cd[0, 1]).any())
    # the plain section (``reach_plain_k``): PL_* bits, a pad word (cell -1), then
    # entry cost (PL_BLOCKED: cannot enter) | height above the lowest << 16 per cell
    low = int(cd[:, 1].min()) if board.n_cells else 0
    rel = cd[:, 1].astype(np.int64) - low
    words = np.where(entry < 0, PL_BLOCKED, entry).astype(np.int64) | (rel << 16)
    ok = board.n_cells == 0 or (int(entry.max()) < PL_BLOCKED and int(rel.max()) < 1 << 15)
    no_end = bool(((cd[:, 2] & T.CELL_NO_END) != 0)[entry >= 0].any())
    plain = np.zeros(board.n_cells + 2, T.INDEX)
    plain[0] = (PL_OK if ok else 0) | (PL_NO_END if no_end else 0)
    plain[1] = PL_BLOCKED
    if ok:
        plain[2:] = words.astype(np.uint32).view(T.INDEX)
    parts.append(plain)
    off = HDR
    for i, a in enumerate(parts):
        if i == 8:
            head[H_PLAIN] = off
        else:
            head[5 + i] = off
        off += a.size
    blob = np.concatenate([head] + [np.ascontiguousarray(a, T.INDEX).ravel() for a in parts])
    if len(board._cache) > 64:
        for k in [k for k in list(board._cache)   # (a snapshot: threads share boards)
                  if isinstance(k, tuple) and k[0] == "fast_blob"]:
            board._cache.pop(k, None)
    board._cache[key] = blob
    return blob


class _FastWorkspace:
    """``reach1`` scratch for one thread: one int32 buffer and a view of its out block
    (a tree-mode query's tree and ends, or ``reach1_one``'s ends)."""

    __slots__ = ("buf", "out", "nb")

    def __init__(self, n: int, nb: int):
        self.nb = nb
        self.buf = _fast_buffer(n, nb)
        o_out = 8 + 2 * n * 4 + n * 2 + nb * 2 * n + nb * 2
        self.out = self.buf[o_out:]


def _fast_buffer(n: int, nb: int) -> np.ndarray:
    buf = np.zeros(fast_layout_size(n, nb), T.INDEX)
    buf[2] = nb
    return buf


def _fast_workspace(n: int, nb: int) -> _FastWorkspace:
    try:
        ws = _local.fast[n]
        if ws.nb >= nb:
            return ws
    except (AttributeError, KeyError):  # first query of this thread or of this size
        pass
    cache = _thread_cache("fast")
    if len(cache) > 16:
        cache.clear()
    ws = cache[n] = _FastWorkspace(n, max(nb, 8))
    return ws


class _PenWorkspace:
    """``reach_pen`` scratch for one thread: one int32 buffer for N cells, ``n_pen``
    penalty levels and ``nb`` buckets, and views of its out block (tree, then ends
    column-major) and of the ends row-major before it (``rows``)."""

    __slots__ = ("buf", "out", "rows", "nb", "n_pen")

    def __init__(self, n: int, n_pen: int, nb: int):
        self.nb, self.n_pen = nb, n_pen
        self.buf = _pen_buffer(n, n_pen, nb)
        o_out = pen_out_offset(n, n_pen, nb)
        self.out = self.buf[o_out:]
        self.rows = self.buf[o_out - 8 * n:o_out]


def _pen_buffer(n: int, n_pen: int, nb: int) -> np.ndarray:
    buf = np.zeros(pen_layout_size(n, n_pen, nb), T.INDEX)
    buf[2] = nb
    buf[3] = n_pen
    return buf


def _pen_workspace(n: int, n_pen: int, nb: int) -> _PenWorkspace:
    cache = _thread_cache("pen")
    ws = cache.get(n)
    if ws is None or ws.nb < nb or ws.n_pen < n_pen:
        if len(cache) > 16:
            cache.clear()
        if ws is not None:  # grow to both needs: no flip-flop between two queries
            nb, n_pen = max(nb, ws.nb), max(n_pen, ws.n_pen)
        ws = cache[n] = _PenWorkspace(n, n_pen, max(nb, 8))
    return ws


def _pen_tree(q: "_Query", occupant, qflags, leave, enter_pen, start: int,
              budget: int):
    """Run ``reach_pen`` in tree mode on ``q``'s packing and these layers: (workspace,
    ends n, tree rows k); the tree and ends lie in ``ws.out`` (see ``reach_pen``).
    None where the kernel cannot answer (it cannot happen: see ``reach1``)."""
    ws = _pen_workspace(q.n, int(q.params[T.P_N_PEN]), q.nb)
    nk = _pen_kernel()(q.pblob, occupant, qflags, q.zoc, leave, enter_pen, q.params,
                       ws.buf, _TREE_MODE, _NO_QUERIES, start, budget)
    if nk < 0:  # pragma: no cover
        return None
    return ws, nk & 0xFFFFFFFF, nk >> 32


def _pen_kernel():
    """The compiled penalty kernel (loaded on the first penalty query)."""
    global _PEN
    if _PEN is None:
        _PEN = _entry_point(reach_pen_kernel())
    return _PEN


_PEN = None


def _pen_ends(q: "_Query", start: int, budget: int) -> "Reach":
    """A penalty query's :class:`Reach` without a search tree (``paths=False``): the
    kernel's rows mode, its columns as a packed result with an empty tree."""
    ws = _pen_workspace(q.n, int(q.params[T.P_N_PEN]), q.nb)
    n = _pen_kernel()(q.pblob, q.occupant, q.qflags, q.zoc, q.leave, q.enter_pen, q.params,
                      ws.buf, _ROWS_MODE, _NO_QUERIES, start, budget)
    if n < 0:  # pragma: no cover (cannot happen): the tree-mode answer
        return _reach_prepared(q, start, budget)
    r = Reach._packed(q.board, start, budget, ws.out[:8 * n].copy(), n)
    r._no_tree = True
    return r


def _pen_rows(q: "_Query", occupant, qflags, leave, enter_pen, start: int,
              budget: int) -> np.ndarray | None:
    """The end rows of a penalty query on ``q``'s packing and these layers (trusted
    arrays of the kernel types): int32[E, 8] (cell, cost, stopped, -1, least penalty,
    its cost, -1, cheapest free cost or -1): ``reach_query``'s rows without the tree
    rows (no tree is kept), a view of the thread's workspace (valid until its next
    query); None when ``q`` has no packed penalty kernel (run the general one)."""
    if q.pblob is None:
        return None
    ws = _pen_workspace(q.n, int(q.params[T.P_N_PEN]), q.nb)
    n = _pen_kernel()(q.pblob, occupant, qflags, q.zoc, leave, enter_pen, q.params, ws.buf,
                      _ROWS_MODE, _NO_QUERIES, start, budget)
    if n < 0:  # pragma: no cover (cannot happen)
        return None
    return ws.rows[:8 * n].reshape(n, 8)


# ---------------------------------------------------------------------- results
class Reach:
    """The legal ends of one query, cheapest first.

    Attributes (arrays of one row per end, the start included at cost 0):
        cells:    int32[E] cell indices.
        costs:    int32[E] least cost to end there.
        stopped:  bool[E] the least-cost arrival had to stop there (water, provoking...);
                  a free arrival of equal cost always wins the tie.
        free_costs: int32[E] least cost of an arrival that did not have to stop (-1 if
                  every arrival within the budget stops).
        penalties: int32[E] least penalty (leaving attacks, wounds) of any arrival within
                  the budget (0 when penalties are off; capped at ``max_penalty``).
        penalty_costs: int32[E] least cost among the arrivals with that least penalty.

    A result is read-only by convention (its arrays belong to it). The arrays of a
    fast-path result are views of one block copied out of the kernel's workspace;
    ``cells`` and ``costs`` are made at once, the others on first access (each NumPy
    view costs about as much as the search of a small move on this project's machine).
    A plain :func:`reach` (no per-query layers) keeps no search tree: the first call of
    :meth:`path` (or a read of ``free_costs`` where some end had to stop) runs the same
    query again, keeping its tree; the answer is the same either way.

    The search tree itself: :attr:`tree` (int32[K, 4]), :attr:`tree_rows` (int32[E, 2])
    and :meth:`path_nodes` (one end's path as a list, walked without building arrays).
    """

    board: Board
    start: int
    budget: int
    cells: NDArray[np.int32]
    costs: NDArray[np.int32]
    stopped: NDArray[np.bool_]
    free_costs: NDArray[np.int32]
    penalties: NDArray[np.int32]
    penalty_costs: NDArray[np.int32]

    __slots__ = ("board", "start", "budget", "cells", "costs", "_out", "_n", "_q", "_blk",
                 "__dict__")
    _LAZY = ("stopped", "free_costs", "penalties", "penalty_costs", "_tree", "_tree_of")

    def __init__(self, board, start, budget, cells, costs, stopped, free_costs, penalties,
                 penalty_costs, _tree, _tree_of):
        self.board, self.start, self.budget = board, start, budget
        self.cells, self.costs = cells, costs
        self._out, self._n, self._q, self._blk = None, 0, None, None
        self.__dict__.update(stopped=stopped, free_costs=free_costs, penalties=penalties,
                             penalty_costs=penalty_costs, _tree=_tree, _tree_of=_tree_of)

    @classmethod
    def _packed(cls, board, start, budget, out, n):
        """A result over ``out`` = tree[k, 4] then ends[8, n] (``reach1``'s tree mode)."""
        r = object.__new__(cls)
        e = out.shape[0] - 8 * n
        r.board, r.start, r.budget, r._out, r._n = board, start, budget, out, n
        r._q = r._blk = None
        r.cells, r.costs = out[e:e + n], out[e + n:e + 2 * n]
        return r

    def __getattr__(self, name):
        # Only reached for an attribute not yet made: the arrays of a packed result.
        if name not in Reach._LAZY or (self._out is None and self._blk is None):
            raise AttributeError(f"'Reach' object has no attribute {name!r}")
        if self._out is None:  # ends only: the rest is known, or needs the tree
            n = self._n
            stopped = self._blk[2 * n:]
            v = None
            if name == "stopped":
                v = stopped.astype(bool)
            elif name == "penalties":
                v = np.zeros(n, T.INDEX)
            elif name == "penalty_costs" or (name == "free_costs" and not stopped.any()):
                v = self.costs  # no penalties; no end had to stop: every cost is free
            if v is not None:
                self.__dict__[name] = v
                return v
            full = _reach_prepared(self._q, self.start, self.budget)
            if not np.array_equal(full.cells, self.cells):  # pragma: no cover
                raise RuntimeError("movecore: a query run again gave other ends")
            self._out, self._n = full._out, full._n
        n, out = self._n, self._out
        e = out.shape[0] - 8 * n  # the ends' fields follow the tree, n values each
        if name == "stopped":
            v = out[e + 2 * n:e + 3 * n].astype(bool)
        elif name == "free_costs":
            v = out[e + 7 * n:]
        elif name == "penalties":
            v = out[e + 4 * n:e + 5 * n]
        elif name == "penalty_costs":
            v = out[e + 5 * n:e + 6 * n]
        elif name == "_tree":
            v = out[:e].reshape(-1, 4)
        else:
            v = out[e:].reshape(8, n)[3::3].T
        self.__dict__[name] = v
        return v

    def __repr__(self) -> str:
        return (f"Reach(start={self.start}, budget={self.budget}, {len(self)} ends: "
                f"cells={self.cells!r}, costs={self.costs!r})")

    def __len__(self) -> int:
        return int(self.cells.shape[0])

    @property
    def coords(self) -> NDArray[np.int32]:
        """int32[E, 2] coordinates of the ends."""
        return self.board.coords[self.cells]

    @property
    def mask(self) -> NDArray[np.bool_]:
        """bool[N]: True on every cell where the figure may end (an RL action mask)."""
        m = np.zeros(self.board.n_cells, dtype=bool)
        m[self.cells] = True
        return m

    def end_index(self, end: Cell) -> int:
        """Row of an end given as a cell index or coordinate; :class:`QueryError` if the
        figure cannot end there."""
        cell = _cell(self.board, end, "end")
        rows = np.flatnonzero(self.cells == cell)
        if rows.size == 0:
            raise QueryError(f"{describe(self.board.coord(cell))} is not a legal end of this "
                             f"move (budget {self.budget})")
        return int(rows[0])

    def cost(self, end: Cell) -> int:
        return int(self.costs[self.end_index(end)])

    @property
    def parents(self) -> NDArray[np.int32]:
        """int32[E]: per end, the cell before it on :meth:`path` (-1 for the start): the
        whole least-cost path tree in one array (walk it back to the start)."""
        self._check_paths()
        rows = self._tree_of[:, 0]
        prow = np.where(rows >= 0, self._tree[np.maximum(rows, 0), 3], -1)
        return np.where(prow >= 0, self._tree[np.maximum(prow, 0), 0], -1).astype(T.INDEX)

    @property
    def tree(self) -> NDArray[np.int32]:
        """int32[K, 4]: the search tree, one row per arrival the search kept: ``(node,
        cost, penalty * 2 + stopped, parent row)``, the parent row -1 at the start
        (``node`` is a cell, or a placement on a ``Board.graph``). Walk the parent rows
        from a row of :attr:`tree_rows` back to the start for a path (what :meth:`path`
        does). A view of the result's block (read-only by convention; K >= len(self));
        :class:`QueryError` for a result asked with ``paths=False``.

        >>> import movecore as mc
        >>> r = mc.reach(mc.Board.square(3, 1), mc.Mover(), (0, 0), 2)
        >>> r.tree.tolist()
        [[0, 0, 0, -1], [1, 1, 0, 0], [2, 2, 0, 1]]
        """
        if self._no_tree:
            self._check_paths()
        return self._tree

    @property
    def tree_rows(self) -> NDArray[np.int32]:
        """int32[E, 2]: per end (row of ``cells``), the :attr:`tree` row of its least-cost
        arrival (column 0) and of its least-penalty arrival (column 1, the same row when
        penalties are off): the rows :meth:`path` starts from. A view (not necessarily
        contiguous); :class:`QueryError` for a result asked with ``paths=False``.

        >>> import movecore as mc
        >>> r = mc.reach(mc.Board.square(3, 1), mc.Mover(), (0, 0), 2)
        >>> r.tree_rows.tolist()
        [[0, 0], [1, 1], [2, 2]]
        """
        if self._no_tree:
            self._check_paths()
        return self._tree_of

    def path_nodes(self, i: int, least_penalty: bool = False) -> list[int]:
        """``path(cells[i], least_penalty=least_penalty).tolist()`` for the end in row
        ``i`` (``0 <= i < len(self)``, not checked: a live position's hot path), walked
        from :attr:`tree_rows` without looking the end up or making an array.

        >>> import movecore as mc
        >>> r = mc.reach(mc.Board.square(3, 1), mc.Mover(), (0, 0), 2)
        >>> r.path_nodes(2)
        [0, 1, 2]
        """
        if self._no_tree:
            self._check_paths()
        tree = self._tree
        row = int(self._tree_of[i, 1 if least_penalty else 0])
        out = []
        while row >= 0:
            out.append(int(tree[row, 0]))
            row = int(tree[row, 3])
        out.reverse()
        return out

    def path(self, end: Cell, *, least_penalty: bool = False,
             free: bool = False) -> NDArray[np.int32]:
        """int32[L] cell indices from the start to ``end`` inclusive, along a least-cost
        arrival; with ``least_penalty``, along a least-penalty one; with ``free``, along
        the cheapest arrival that did not have to stop there (:class:`QueryError` when
        every arrival there stops: ``free_costs`` is -1)."""
        i = self.end_index(end)
        self._check_paths()
        tree = self._tree
        if free:
            cell = int(self.cells[i])
            rows = np.flatnonzero((tree[:, 0] == cell) & ((tree[:, 2] & 1) == 0))
            if rows.size == 0:
                raise QueryError(f"every arrival at {describe(self.board.coord(cell))} "
                                 f"within budget {self.budget} has to stop there")
            row = int(rows[np.argmin(tree[rows, 1])])
        else:
            row = self._tree_of[i, 1 if least_penalty else 0]
        out = []
        while row >= 0:
            out.append(int(tree[row, 0]))
            row = int(tree[row, 3])
        return np.array(out[::-1], dtype=T.INDEX)

    _no_tree = False  # a result asked with paths=False (set on the instance)

    def _check_paths(self):
        if self._no_tree:
            raise QueryError("this result was asked with paths=False: it has no paths; "
                             "ask the query again with paths=True")

    def path_coords(self, end: Cell, **kw: bool) -> list[tuple[int, int]]:
        return [self.board.coord(c) for c in self.path(end, **kw)]


def reach(board: Board, mover: Mover, start: Cell, budget: int, *, occupant: Layer = None,
          cell_flags: Layer = None, zoc: Layer = None, leave: Layer = None,
          enter_penalty: Layer = None, leave_weight: int = 1,
          max_penalty: int | None = None) -> Reach:
    """Every cell where a figure at ``start`` may end a move of at most ``budget``.

    Args:
        board: the packed :class:`Board`.
        mover: the figure's :class:`Mover` (costs, climbing, occupancy semantics).
        start: cell index or coordinate pair. The start is always an end at cost 0,
            whatever stands there (it is the figure itself).
        budget: movement points, an integer >= 0.
        occupant: int32[N] team id per cell (``OCC_EMPTY`` -1, ``OCC_WALL`` -2).
        cell_flags: uint8[N] extra ``CELL_*`` bits for this query (OR-ed with the board's).
        zoc: uint64[N] provoke masks: the step u -> v must stop when ``zoc[u] & zoc[v]``.
        leave: uint64[N] penalty masks: the step u -> v adds
            ``popcount(leave[u] & ~leave[v]) * leave_weight`` to the penalty.
        enter_penalty: int32[N] penalty added on entering each cell.
        max_penalty: penalties are tracked up to this value (default 15 when any penalty
            layer is given); larger ones count as ``max_penalty``.

    Returns:
        A :class:`Reach` with the ends in order of cost.

    Raises:
        QueryError, LimitError: on bad input, naming the bad value.
    """
    if occupant is None and cell_flags is None and zoc is None and leave is None and \
            enter_penalty is None and max_penalty is None and type(leave_weight) is int \
            and leave_weight == 1:
        # The hot path of move generation: this board and mover asked before. Their
        # cached prepared query runs it; any miss or doubt takes the checked path.
        try:
            p = board._cache[("plain_query", id(mover))]
        except (AttributeError, KeyError, TypeError):
            p = None
        if p is not None and p.mover is mover and type(budget) is int and \
                0 <= budget <= p._q.top:
            return p.reach(start, budget)
        budget = _budget(budget)
        if isinstance(board, Board):
            # Boards and movers are immutable, so identity is enough; the entry keeps
            # the mover alive, so its id cannot be recycled while cached.
            if p is None or p.mover is not mover or p._q.top < budget:
                p = prepare(board, mover, budget)
                board._cache[("plain_query", id(mover))] = p
            return p.reach(start, budget)
    # Layers given: the answer is computed in full at once (tree mode), so the caller's
    # arrays need no copy (a Prepared copies them, since its results may run again).
    budget = _budget(budget)
    q = _prepare(board, mover, budget, occupant, cell_flags, zoc, leave, enter_penalty,
                 leave_weight, max_penalty)
    if type(start) is not int or not 0 <= start < q.n:
        start = _cell(board, start, "start")
    return _reach_prepared(q, start, budget)


def prepare(board: Board, mover: Mover, budget: int, *, occupant: Layer = None,
            cell_flags: Layer = None, zoc: Layer = None, leave: Layer = None,
            enter_penalty: Layer = None, leave_weight: int = 1,
            max_penalty: int | None = None) -> "Prepared":
    """Validate and pack a query once, to run it from many starts: the arguments are
    those of :func:`reach` but the start, and ``budget`` is the largest budget it will
    be asked for. The layers are copied: changing your arrays later does not change it.

    >>> import movecore as mc
    >>> b = mc.Board.square(4, 1)
    >>> q = mc.prepare(b, mc.Mover(), 2)
    >>> q.reach((0, 0)).costs.tolist(), q.reach(3, 1).cells.tolist()
    ([0, 1, 2], [3, 2])
    >>> q.reach_many([0, 3]).offsets.tolist()
    [0, 3, 6]
    """
    budget = _budget(budget)
    layers = dict(occupant=occupant, cell_flags=cell_flags, zoc=zoc, leave=leave,
                  enter_penalty=enter_penalty)
    for name, a in layers.items():  # own copies (results may run the query again)
        if a is not None:
            layers[name] = np.array(a, copy=True)
    q = _prepare(board, mover, budget, layers["occupant"], layers["cell_flags"],
                 layers["zoc"], layers["leave"], layers["enter_penalty"], leave_weight,
                 max_penalty)
    return Prepared(q, mover)


class Prepared:
    """A validated, packed query (board, mover, layers) to run from many starts; made
    by :func:`prepare`. ``reach(start, budget=None)`` and ``reach_many(starts,
    budgets=None, threads=None)`` answer exactly as :func:`reach` and
    :func:`reach_many` with the same arguments, without validating and packing the board,
    mover and layers again (the cheapest way to ask many single queries).

    Attributes: ``board``, ``mover``, ``max_budget`` (the largest budget it answers).
    """

    mover: Mover

    __slots__ = ("_q", "mover")

    def __init__(self, q: _Query, mover: Mover):
        self._q, self.mover = q, mover

    @property
    def board(self) -> Board:
        return self._q.board

    @property
    def max_budget(self) -> int:
        return self._q.top

    @property
    def fast(self) -> bool:
        """True when the packed one-thread kernel answers this query (no penalties, and
        a board that fits its buckets): what :meth:`_run_into` needs."""
        return self._q.blob is not None

    def __repr__(self) -> str:
        return f"Prepared({self._q.n} cells, max_budget={self._q.top})"

    def reach(self, start: Cell, budget: int | None = None, *, paths: bool = True) -> Reach:
        """Every end of a move from ``start`` (cell index or coordinate) with ``budget``
        (default: ``max_budget``); :class:`LimitError` if it exceeds ``max_budget``.
        ``paths=False`` promises that no path will be asked: a penalty query then runs
        without a search tree, from far fewer labels (see ``kernels/reach_pen.py``), with
        the same columns, and its ``path`` / ``parents`` raise :class:`QueryError`; other
        queries are answered as with ``paths=True``."""
        q = self._q
        if budget is None:
            budget = q.top
        elif type(budget) is not int or not 0 <= budget <= q.top:
            budget = _budget(budget)
            if budget > q.top:
                raise LimitError(f"budget {budget} exceeds this prepared query's "
                                 f"max_budget {q.top}: prepare it with a larger one")
        if type(start) is not int or not 0 <= start < q.n:
            start = _cell(q.board, start, "start")
        if not paths and q.pblob is not None:
            return _pen_ends(q, start, budget)
        if q.one is None:
            return _reach_prepared(q, start, budget)
        # No per-query layer: every array is the library's own, so the ends alone now,
        # the search tree only if a path is asked for (see Reach).
        try:
            ws = _local.fast[q.n]
            if ws.nb < q.nb:
                ws = _fast_workspace(q.n, q.nb)
        except (AttributeError, KeyError):
            ws = _fast_workspace(q.n, q.nb)
        n = q.one(q.blob, q.params, ws.buf, start, budget)
        if n < 0:  # pragma: no cover (cannot happen, see reach1): the tree-mode run
            return _reach_prepared(q, start, budget)
        # A result over blk = int32[3 * n] (cells, costs, stopped of the n ends), made
        # here and not in a classmethod (a call is ~0.2 us of a ~5 us query)
        blk = ws.out[:3 * n].copy()
        r = _new(Reach)
        r.board = q.board
        r.start = start
        r.budget = budget
        r._out = None
        r._n = n
        r._q = q
        r._blk = blk
        r.cells = blk[:n]
        r.costs = blk[n:2 * n]
        return r

    def copy(self) -> "Prepared":
        """The same prepared query with its own copies of the per-query layers (the board
        and mover packing shared): :meth:`set_layer` on one never shows in the other. A
        live position's ``copy()`` uses it (no repacking)."""
        q = self._q
        new = object.__new__(Prepared)
        new.mover = self.mover
        new._q = replace(q, occupant=q.occupant.copy() if q.own_occupant else q.occupant,
                         qflags=q.qflags.copy(), zoc=q.zoc.copy(), leave=q.leave.copy(),
                         enter_pen=q.enter_pen.copy(), params=q.params.copy())
        return new

    def set_layer(self, name: str, cells: int | ArrayLike, values: int | ArrayLike) -> None:
        """Change a per-query layer in place: ``layer[cells] = values`` for ``name`` in
        ``occupant``, ``cell_flags``, ``zoc``, ``leave``, ``enter_penalty``. The next query
        sees the change; nothing else is repacked (O(len(cells))), so a live game position
        keeps one prepared query per mover and moves its figures in it.

        The layer must have been given to :func:`prepare` (the query owns a copy of it);
        values are checked like :func:`prepare` checks them.

        >>> import movecore as mc
        >>> q = mc.prepare(mc.Board.square(4, 1), mc.Mover(team=0), 3,
        ...                occupant=[-1, -1, -1, -1])
        >>> q.set_layer("occupant", [2], [1])     # an enemy steps onto (2, 0)
        >>> q.reach(0).cells.tolist()
        [0, 1]
        """
        q = self._q
        if name == "occupant" and type(cells) is int and type(values) is int and \
                q.own_occupant and 0 <= cells < q.n and T.OCC_WALL <= values < 1 << 31:
            # one figure stepping (the live positions' case): checked in O(1)
            q.occupant[cells] = values
            if values != T.OCC_EMPTY and not q.params[T.P_HAS_OCC]:
                params = q.params.copy()
                params[T.P_HAS_OCC] = 1
                self._q = replace(q, params=params, one=None)
            return
        arrays = {"occupant": q.occupant, "cell_flags": q.qflags, "zoc": q.zoc,
                  "leave": q.leave, "enter_penalty": q.enter_pen}
        if name not in arrays:
            raise QueryError(f"set_layer: unknown layer {describe(name)}; expected one of "
                             f"{sorted(arrays)}")
        layer = arrays[name]
        if layer.shape[0] != q.n or (name == "occupant" and not q.own_occupant):
            raise QueryError(f"set_layer: this query was prepared without {name}=; give it "
                             f"to prepare() to change it later")
        idx = np.asarray(cells)
        if idx.dtype.kind not in "iu" or (idx.size and (int(idx.min()) < 0
                                                        or int(idx.max()) >= q.n)):
            raise QueryError(f"set_layer: cells must be cell indices in [0, {q.n}); got "
                             f"{describe(cells)}")
        vals = np.asarray(values)
        if vals.size and vals.dtype.kind not in "iub":
            raise QueryError(f"set_layer: {name} values must be integers; got dtype "
                             f"{vals.dtype}")
        if name == "occupant":
            lo, hi = T.OCC_WALL, np.iinfo(T.INDEX).max
        else:
            lo, hi = 0, np.iinfo(layer.dtype).max
        if vals.size and (int(vals.min()) < lo or int(vals.max()) > hi):
            raise LimitError(f"set_layer: {name} values must lie in [{lo}, {hi}]; got "
                             f"{describe(values)}")
        layer[idx] = vals
        if name == "occupant" and not q.params[T.P_HAS_OCC] and \
                bool((layer[idx] != T.OCC_EMPTY).any()):
            # someone now stands on the board: the kernels must read the occupant layer
            # (the flag is never cleared again: reading an empty layer is only slower)
            params = q.params.copy()
            params[T.P_HAS_OCC] = 1
            self._q = replace(q, params=params, one=None)

    def with_layers(self, *, occupant: NDArray[np.int32] | None = None,
                    cell_flags: NDArray[np.uint8] | None = None,
                    zoc: NDArray[np.uint64] | None = None,
                    leave: NDArray[np.uint64] | None = None,
                    enter_penalty: NDArray[np.int32] | None = None) -> "Prepared":
        """The same prepared query reading the caller's own layer arrays, without a copy:
        a write to them is what the next query sees (a live position keeps its layers
        and binds them once). Board, mover, parameters and packing are shared. Each layer
        given must have been given to :func:`prepare` and be a writable, C-contiguous
        array of its kernel type (int32 ``occupant`` and ``enter_penalty``, uint8
        ``cell_flags``, uint64 ``zoc`` and ``leave``) with one value per cell; values
        are the caller's to keep in range (see :func:`reach`). Penalty queries run the
        packed penalty kernel, as :meth:`reach` does.

        >>> import numpy as np, movecore as mc
        >>> b = mc.Board.square(4, 1)
        >>> traps = np.zeros(4, np.int32)
        >>> q = mc.prepare(b, mc.Mover(), 3, enter_penalty=traps).with_layers(
        ...     enter_penalty=traps)
        >>> traps[1] = 1                        # a trap appears on (1, 0)
        >>> q.reach(0).penalties.tolist()
        [0, 1, 1, 1]
        """
        q = self._q
        given = dict(occupant=(occupant, "occupant", np.int32),
                     cell_flags=(cell_flags, "qflags", np.uint8),
                     zoc=(zoc, "zoc", np.uint64), leave=(leave, "leave", np.uint64),
                     enter_penalty=(enter_penalty, "enter_pen", np.int32))
        changes = {}
        for name, (a, field, dtype) in given.items():
            if a is None:
                continue
            if getattr(q, field).shape[0] != q.n or (name == "occupant" and
                                                     not q.own_occupant):
                raise QueryError(f"with_layers: this query was prepared without {name}=; "
                                 f"give it to prepare() to bind it later")
            if not (isinstance(a, np.ndarray) and a.dtype == dtype and a.shape == (q.n,)
                    and a.flags.c_contiguous and a.flags.writeable):
                raise QueryError(f"with_layers: {name} must be a writable contiguous "
                                 f"{np.dtype(dtype).name} array of shape ({q.n},); got "
                                 f"{describe(a)}")
            changes[field] = a
        if "occupant" in changes:  # whoever the caller puts there later is seen
            params = q.params.copy()
            params[T.P_HAS_OCC] = 1
            changes.update(params=params, one=None)
        new = object.__new__(Prepared)
        new.mover = self.mover
        new._q = replace(q, **changes)
        return new

    def _run_into(self, queries: np.ndarray, ends: np.ndarray,
                  order: np.ndarray | None = None) -> int:
        """The live positions' hot path (trusted arguments, no validation, one thread,
        nothing allocated): the ends of ``queries`` (int64[Q, 3], C order: start cell,
        budget <= ``max_budget``, and column 2 receives each query's end count) written
        one query after another into ``ends`` (int32[3, R], R >= Q * N: cell, cost,
        stopped rows), each query's ends sorted by (cost, ``order[cell]``) where
        ``order`` (int64[N]) is given, else in cost order. Returns the columns written.
        Only for a query without penalties (``max_penalty`` 0); a position validates
        its figures and budgets once, at its own boundary."""
        q = self._q
        try:
            ws = _local.fast[q.n]
            if ws.nb < q.nb:
                ws = _fast_workspace(q.n, q.nb)
        except (AttributeError, KeyError):
            ws = _fast_workspace(q.n, q.nb)
        total = _ORDERED(q.blob, q.occupant, q.qflags, q.zoc, q.params, ws.buf, ends,
                         queries, _NO_ORDER if order is None else order)
        if total < 0:  # pragma: no cover (R >= Q * N: an end is listed once per cell)
            raise LimitError(f"movecore: ends buffer too small ({ends.shape[1]} columns)")
        return total

    def _pen_sorted(self, start: int, budget: int, order: np.ndarray):
        """The live positions' hot path of a penalty query (trusted arguments, one
        thread, no tree): new int32[E] arrays (cells, costs, penalties, penalty_costs)
        sorted by (cost, ``order[cell]``) (``order``: int64[N], distinct values); None
        where this query has no packed penalty kernel (ask :meth:`reach`)."""
        q = self._q
        if q.pblob is None:
            return None
        ws = _pen_workspace(q.n, int(q.params[T.P_N_PEN]), q.nb)
        n = _pen_kernel()(q.pblob, q.occupant, q.qflags, q.zoc, q.leave, q.enter_pen,
                          q.params, ws.buf, _ROWS_MODE, _NO_QUERIES, start, budget)
        if n < 0:  # pragma: no cover (cannot happen: see _pen_ends)
            return None
        return sorted_pen_ends(ws.out, n, order)

    # The live positions' section: trusted arguments (layers of the kernel types, one
    # value per cell, values in range; budgets <= max_budget), no validation, one
    # thread; a position validates its figures once, at its own boundary. The layers
    # given replace the query's own for this one call, so one prepared query serves
    # every position (it must have been prepared with that layer: ``occupant`` with
    # someone standing, ``leave`` for penalties).

    def _run_layers_into(self, occupant: np.ndarray, cell_flags: np.ndarray,
                         queries: np.ndarray, ends: np.ndarray,
                         order: np.ndarray) -> int | None:
        """:meth:`_run_into` on the caller's ``occupant`` (int32[N]) and ``cell_flags``
        (uint8[N]); ``order`` int64[N], or empty for cost order. None where the query
        has no packed kernel (:attr:`fast` is False: ask :meth:`_rows_into`)."""
        q = self._q
        if q.blob is None:
            return None
        try:
            ws = _local.fast[q.n]
            if ws.nb < q.nb:
                ws = _fast_workspace(q.n, q.nb)
        except (AttributeError, KeyError):
            ws = _fast_workspace(q.n, q.nb)
        total = _ORDERED(q.blob, occupant, cell_flags, q.zoc, q.params, ws.buf, ends,
                         queries, order)
        if total < 0:  # pragma: no cover (R >= Q * N)
            raise LimitError(f"movecore: ends buffer too small ({ends.shape[1]} columns)")
        return total

    def _tree_into(self, occupant: np.ndarray, cell_flags: np.ndarray, start: int,
                   budget: int) -> tuple[np.ndarray, np.ndarray]:
        """(tree int32[K, 4], ends int32[8, E]) of one query without penalties on the
        caller's layers, search tree kept: :attr:`Reach.tree` and the end fields (cell,
        cost, stopped, least-cost row, penalty, penalty cost, least-penalty row, free
        cost) as rows, in the kernel's order (cost order); views of the thread's
        workspace, valid until its next query. Only where :attr:`fast` is True."""
        q = self._q
        ws = _fast_workspace(q.n, q.nb)
        nk = q.kernel(q.blob, occupant, cell_flags, q.zoc, q.params, ws.buf, _TREE_MODE,
                      _NO_QUERIES, start, budget)
        if nk < 0:  # pragma: no cover (cannot happen, see reach1)
            raise LimitError("movecore: the packed kernel could not answer")
        n, k = nk & 0xFFFFFFFF, nk >> 32
        out = ws.out
        return out[:4 * k].reshape(k, 4), out[4 * k:4 * k + 8 * n].reshape(8, n)

    def _rows_into(self, occupant: np.ndarray, cell_flags: np.ndarray, leave: np.ndarray,
                   start: int, budget: int, sources: np.ndarray):
        """The end rows of one query (penalties or not) on the caller's layers, search tree
        kept: ``(rows, tree, k)``, rows int32[E, 8] (cell, cost, stopped, least-cost row,
        penalty, penalty cost, least-penalty row, free cost; a view of any layout), in
        the kernel's order, and the :attr:`Reach.tree` as ``tree[:4 * k].reshape(k, 4)``
        when ``k >= 0`` (left to the caller: most calls never read it), else ``tree``
        itself (int32[K', 4], its first rows the tree). ``sources``: int32[1] scratch. Views of the thread's workspace, valid
        until its next query. ``leave`` (uint64[N]) is ignored without penalties."""
        q = self._q
        if q.pblob is not None:  # the packed penalty kernel: the same rows and tree
            # (_pen_tree's call, inline: the hot path of a position's penalty query)
            ws = _pen_workspace(q.n, int(q.params[T.P_N_PEN]), q.nb)
            nk = _pen_kernel()(q.pblob, occupant, cell_flags, q.zoc, leave, q.enter_pen,
                               q.params, ws.buf, _TREE_MODE, _NO_QUERIES, start, budget)
            if nk >= 0:  # (always: see reach1)
                n, k = nk & 0xFFFFFFFF, nk >> 32
                return ws.out[4 * k:4 * k + 8 * n].reshape(8, n).T, ws.out, k
        params = _budget_params(q, budget)
        b = q.board
        n_pen = int(params[T.P_N_PEN])
        nb = int(params[T.P_N_BUCKETS])
        sources[0] = start
        grow = False
        while True:
            ws = _workspace(b, n_pen, nb, grow)
            n = _REACH_QUERY(b.nbr, b.link_ptr, b.link_data, b.cell_data, b.edges,
                             b.diag_sides, q.rule, occupant, cell_flags, q.zoc, leave,
                             q.enter_pen, params, sources, ws.state, ws.heap, ws.bucket,
                             ws.cell, ws.ctrl, ws.tree, ws.ends)
            if n != T.STATUS_QUEUE_FULL:
                return ws.ends[:n], ws.tree, -1
            grow = True

    def reach_many(self, starts: Cells, budgets: Budgets | None = None, *,
                   threads: int | None = None) -> "ReachBatch":
        """:meth:`reach` for many starts (see :func:`reach_many`); ``budgets`` is one
        integer or one per start (default: ``max_budget``)."""
        q = self._q
        s = _starts_array(q.board, starts)
        b = _budgets_array(q.top if budgets is None else budgets, len(s))
        if len(b) and int(b.max()) > q.top:
            raise LimitError(f"budget {int(b.max())} exceeds this prepared query's "
                             f"max_budget {q.top}: prepare it with a larger one")
        return _batch_prepared(q, s, b, _n_chunks(threads, len(s)))


def _reach_prepared(q: _Query, start: int, budget: int) -> Reach:
    """Run a validated query (adapters call this to reuse one _Query for many starts;
    ``budget`` at most the one it was prepared for)."""
    if budget > q.top:
        raise LimitError(f"budget {budget} exceeds the prepared query's {q.top}")
    if q.pblob is not None:  # penalties: the packed penalty kernel, tree mode
        got = _pen_tree(q, q.occupant, q.qflags, q.leave, q.enter_pen, start, budget)
        if got is None:  # pragma: no cover (cannot happen): the general kernel
            return _reach_prepared(replace(q, pblob=None), start, budget)
        ws, n, k = got
        return Reach._packed(q.board, start, budget, ws.out[:4 * k + 8 * n].copy(), n)
    if q.blob is not None:
        board = q.board
        ws = _fast_workspace(board.n_cells, q.nb)
        nk = q.kernel(q.blob, q.occupant, q.qflags, q.zoc, q.params, ws.buf, _TREE_MODE,
                      _NO_QUERIES, start, budget)
        if nk < 0:  # cannot happen (see reach1): use the other kernel
            return _reach_prepared(replace(q, blob=None), start, budget)
        n = nk & 0xFFFFFFFF
        return Reach._packed(board, start, budget, ws.out[:4 * (nk >> 32) + 8 * n].copy(), n)
    params = q.params if q.top == budget else _budget_params(q, budget)
    n_pen = int(params[T.P_N_PEN])
    b = q.board
    layers = (b.nbr, b.link_ptr, b.link_data, b.cell_data, b.edges, b.diag_sides, q.rule,
              q.occupant, q.qflags, q.zoc, q.leave, q.enter_pen, params)
    grow = False
    while True:
        ws = _workspace(b, n_pen, int(params[T.P_N_BUCKETS]), grow)
        ws.src[0] = start
        # (the compiled entry point: every argument is already of the declared type)
        n = _REACH_QUERY(*layers, ws.src, ws.state, ws.heap, ws.bucket, ws.cell, ws.ctrl,
                         ws.tree, ws.ends)
        if n != T.STATUS_QUEUE_FULL:
            break
        grow = True
    n_tree = int(ws.ctrl[4])
    # one copy of the ends' eight fields (as rows: each field contiguous), one of the tree
    e = ws.ends[:n].T.copy()
    return Reach(b, start, budget, e[0], e[1], e[2].astype(bool), e[7], e[4], e[5],
                 ws.tree[:n_tree].copy(), e[3::3].T)


def _budget_params(q: _Query, budget: int) -> np.ndarray:
    """A copy of ``q``'s int64 parameters for a smaller ``budget`` (the general kernel
    reads the budget and its ring of buckets from them)."""
    params = q.params.copy()
    params[T.P_BUDGET] = budget
    params[T.P_N_BUCKETS] = min(int(q.params[T.P_N_BUCKETS]) - 1, budget) + 1
    return params


def _run_general(q: _Query, start: int, budget: int) -> Reach:
    """``q`` on the general kernel (``reach_query``), whatever packed kernel it has."""
    return _reach_prepared(replace(q, blob=None, pblob=None), start, budget)


#: Every implementation of one query, by name (numbagg style): the differential tests
#: run each one that applies against the oracle and against ``"general"``, the
#: benchmarks time them side by side. Each is ``(applies(q), run(q, start, budget))``
#: on a validated ``_Query`` (see ``_prepare``); ``run`` returns a :class:`Reach`.
IMPLEMENTATIONS = {
    # the reference: every query (the linked-list bucket queue over the board arrays)
    "general": (lambda q: True, _run_general),
    # queries without penalties on a board whose buckets fit (reach1, tree mode)
    "reach1": (lambda q: q.blob is not None, _reach_prepared),
    # queries with penalties on a board whose buckets fit (reach_pen, tree mode)
    "reach_pen": (lambda q: q.pblob is not None, _reach_prepared),
}


@dataclass(frozen=True)
class ReachBatch:
    """Ends of many queries in CSR form: query i owns rows ``offsets[i]:offsets[i+1]``.

    Within a query the rows are in cost order, exactly as :func:`reach` lists them.
    The arrays belong to the result (``cells`` and ``costs`` may be rows of one block
    the kernel wrote: no copy is made where the block is mostly this result).
    """

    offsets: NDArray[np.int64]   # int64[Q + 1]
    cells: NDArray[np.int32]     # int32[total]
    costs: NDArray[np.int32]     # int32[total]
    stopped: NDArray[np.bool_]   # bool[total]

    def __len__(self) -> int:
        return int(self.offsets.shape[0] - 1)

    def __getitem__(self, i: int) -> tuple[NDArray[np.int32], NDArray[np.int32],
                                           NDArray[np.bool_]]:
        """(cells, costs, stopped) of query i."""
        lo, hi = self.offsets[i], self.offsets[i + 1]
        return self.cells[lo:hi], self.costs[lo:hi], self.stopped[lo:hi]


def reach_many(board: Board, mover: Mover, starts: Cells, budgets: Budgets, *,
               occupant: Layer = None, cell_flags: Layer = None, zoc: Layer = None,
               leave: Layer = None, enter_penalty: Layer = None, leave_weight: int = 1,
               max_penalty: int | None = None, threads: int | None = None) -> ReachBatch:
    """:func:`reach` for many starts at once, in parallel over ``threads`` (default: all
    Numba threads). ``budgets`` is one integer or one per start. Every query shares the
    board, mover and layers; results are identical to one :func:`reach` per start.

    >>> import movecore as mc
    >>> b = mc.Board.square(4, 1)
    >>> r = mc.reach_many(b, mc.Mover(), [(0, 0), (3, 0)], 1)
    >>> r[1][0].tolist(), r[1][1].tolist()
    ([3, 2], [0, 1])
    """
    s = _starts_array(board, starts)
    b = _budgets_array(budgets, len(s))
    top = int(b.max()) if len(b) else 0
    q = _prepare(board, mover, top, occupant, cell_flags, zoc, leave, enter_penalty,
                 leave_weight, max_penalty)
    return _batch_prepared(q, s, b, _n_chunks(threads, len(s)))


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


def _batch_prepared(q: _Query, starts: np.ndarray, budgets: np.ndarray,
                    n_chunks: int) -> ReachBatch:
    if q.blob is not None or q.pblob is not None:
        return _batch_fast(q, starts, budgets, n_chunks)
    board = q.board
    n_pen = int(q.params[T.P_N_PEN])
    nb = int(q.params[T.P_N_BUCKETS])
    # Scratch is per Python thread (the kernel runs without the GIL), and parallel
    # regions are entered one at a time: Numba's default thread pool must not be entered
    # by two host threads at once.
    cache = _thread_cache("batch")
    key = (board.n_cells, n_chunks, n_pen)
    bw = cache.get(key)
    if bw is None or bw["bucket"].shape[1] < nb:
        bw = _batch_workspace(board.n_cells, n_pen, n_chunks, nb,
                              2 * board.n_cells * n_pen + 64, 64 * len(starts) + 1024)
        if len(cache) > 8:
            cache.clear()
        cache[key] = bw
    counts = np.zeros(len(starts), np.int64)
    status = np.zeros(n_chunks, np.int64)
    while True:
        with _parallel_lock:
            st = reach_batch(*q.layers(), starts, budgets, bw["state"], bw["heap"],
                             bw["bucket"], bw["cell"], bw["ctrl"], bw["tree"], bw["ends"],
                             bw["arena"], counts, status)
        if st == 0:
            break
        arena = bw["arena"].shape[1]
        heap = bw["heap"].shape[1]
        if st == T.STATUS_ARENA_FULL:
            arena = _arena_needed(counts, n_chunks, arena, board.n_cells)
        else:
            heap *= 2
        bw = _batch_workspace(board.n_cells, n_pen, n_chunks, nb, heap, arena)
        cache[key] = bw
    return _gather(counts, bw["arena"], n_chunks)


def _batch_fast(q: _Query, starts: np.ndarray, budgets: np.ndarray,
                n_chunks: int) -> ReachBatch:
    n = q.board.n_cells
    nb = int(q.params[T.P_N_BUCKETS])
    cache = _thread_cache("batch_fast")
    n_pen = 0 if q.pblob is None else int(q.params[T.P_N_PEN])  # 0: reach1's buffers
    key = (n, n_chunks, n_pen)
    bw = cache.get(key)
    if bw is None or bw[0][0, 2] < nb:
        bufs = np.zeros((n_chunks, pen_layout_size(n, n_pen, max(nb, 8)) if n_pen else
                         fast_layout_size(n, max(nb, 8))), T.INDEX)
        bufs[:, 2] = max(nb, 8)
        bufs[:, 3] = n_pen
        bw = [bufs, np.empty((n_chunks, 3, 64 * len(starts) // n_chunks + n), T.INDEX)]
        if len(cache) > 8:
            cache.clear()
        cache[key] = bw
    elif sys.getrefcount(bw[1]) > 2:  # (the list's reference and the argument's)
        # a result still holds rows of the last output block: this batch gets a new one
        # (when the results are dropped between batches, one block serves them all: no
        # allocation, no fresh pages to fault in)
        bw[1] = np.empty_like(bw[1])
    queries = np.empty((len(starts), 3), np.int64)
    queries[:, 0] = starts
    queries[:, 1] = budgets
    status = np.zeros(n_chunks, np.int64)
    while True:
        queries[:, 2] = 0
        if n_chunks > 1 and BATCH_THREADS == "prange" and not n_pen:
            with _parallel_lock:
                st = prange_batch()(q.blob, q.occupant, q.qflags, q.zoc, q.params,
                                    queries, bw[0], bw[1], status)
        else:
            st = _chunks_pooled(q, queries, bw[0], bw[1], status)
        if st >= 0:
            break
        if st == T.STATUS_QUEUE_FULL:  # cannot happen (see reach1): use the other kernel
            return _batch_prepared(replace(q, blob=None, pblob=None), starts, budgets,
                                   n_chunks)
        arena = _arena_needed(queries[:, 2], n_chunks, bw[1].shape[2], n)
        bw[1] = np.empty((n_chunks, 3, arena), T.INDEX)
    counts = queries[:, 2]
    offsets = np.zeros(len(counts) + 1, np.int64)
    np.cumsum(counts, out=offsets[1:])
    # chunk c wrote status[c] end columns (cell, cost, stopped rows), its queries' ends
    # one after another; a plain query never stops (see is_plain): its stopped row is
    # all zeros, not read
    plain = q.kernel is _PLAIN
    if n_chunks == 1:
        total = int(status[0])
        block = bw[1][0, :, :total]
        if 2 * total >= bw[1].shape[2]:
            # mostly this batch's: its rows are the answer, no copy (the next batch
            # writes elsewhere while this result lives, see above)
            cells, costs = block[0], block[1]
        else:  # a small part of a large block: copied, the block stays free
            cells, costs = block[0].copy(), block[1].copy()
    else:
        rows = 2 if plain else 3
        block = np.concatenate([bw[1][c, :rows, :status[c]] for c in range(n_chunks)],
                               axis=1)
        total = block.shape[1]
        cells, costs = block[0], block[1]
    stopped = np.zeros(total, bool) if plain else block[2].astype(bool)
    return ReachBatch(offsets, cells, costs, stopped)


#: How a fast batch uses several threads: "pool" (default), chunks run by the ``nogil``
#: kernel on a pool of Python threads and the calling one, or "prange", one Numba
#: parallel region over the chunks (``reach1_batch``). Both give identical results;
#: ``movecore bench`` measures both (docs/performance.md). Environment:
#: ``MOVECORE_BATCH_THREADS``.
BATCH_THREADS = os.environ.get("MOVECORE_BATCH_THREADS", "pool")
_pool = (None, 0)  # (ThreadPoolExecutor, its workers), made on first need
_pool_lock = threading.Lock()


def _thread_pool(workers: int):
    global _pool
    with _pool_lock:
        pool, size = _pool
        if size < workers:
            from concurrent.futures import ThreadPoolExecutor
            _pool = (ThreadPoolExecutor(workers, thread_name_prefix="movecore"), workers)
            if pool is not None:
                pool.shutdown(wait=False)  # its queued work still runs
        return _pool[0]


def _forget_pool():  # a forked child has the pool object but not its threads
    global _pool, _pool_lock
    _pool, _pool_lock = (None, 0), threading.Lock()


os.register_at_fork(after_in_child=_forget_pool)


def _chunks_pooled(q: _Query, queries, bufs, ends, status) -> int:
    """``reach1_batch`` without a parallel region: chunk 0 on this thread, the others
    on pool threads (the kernel releases the GIL). Same outputs and return value."""
    n_chunks, n_q, kernel = bufs.shape[0], queries.shape[0], q.fast or q.kernel

    def run(c):
        lo, hi = (n_q * c) // n_chunks, (n_q * (c + 1)) // n_chunks
        if q.pblob is not None:  # penalties: reach_pen, the same conventions
            status[c] = _pen_kernel()(q.pblob, q.occupant, q.qflags, q.zoc, q.leave,
                                      q.enter_pen, q.params, bufs[c], ends[c],
                                      queries[lo:hi], 0, 0)
            return
        status[c] = kernel(q.blob, q.occupant, q.qflags, q.zoc, q.params, bufs[c], ends[c],
                           queries[lo:hi], 0, 0)

    futures = []
    if n_chunks > 1:
        pool = _thread_pool(n_chunks - 1)
        futures = [pool.submit(run, c) for c in range(1, n_chunks)]
    run(0)
    for f in futures:
        f.result()
    return min(0, int(status.min()))


def _batch_workspace(n, n_pen, n_chunks, nb, heap_cap, arena_cap):
    S = 2 * n * n_pen
    heap = np.empty((n_chunks, heap_cap, 2), T.INDEX)
    heap[:, :, 1] = np.arange(1, heap_cap + 1, dtype=T.INDEX)
    heap[:, -1, 1] = -1
    return dict(state=np.zeros((n_chunks, S, 4), T.INDEX), heap=heap,
                bucket=np.full((n_chunks, max(nb, 1), 2), -1, T.INDEX),
                cell=np.zeros((n_chunks, n, 2), T.INDEX),
                ctrl=np.zeros((n_chunks, 8), np.int64),
                tree=np.empty((n_chunks, S, 4), T.INDEX),
                ends=np.empty((n_chunks, n, 8), T.INDEX),
                arena=np.empty((n_chunks, arena_cap, 3), T.INDEX))


def distance_field(board: Board, mover: Mover, sources: Cells, budget: int | None = None,
                   *, occupant: Layer = None, cell_flags: Layer = None, zoc: Layer = None,
                   out: NDArray[np.int32] | None = None) -> NDArray[np.int32]:
    """Least movement cost from the nearest of ``sources`` to every cell (threat maps,
    "distance to the nearest hero"). int32[N], -1 where nothing arrives within
    ``budget`` (default: unbounded). Arrivals that must stop count but go no further;
    occupants are passed or blocked as for :func:`reach`. Writes into ``out`` if given.

    >>> import movecore as mc
    >>> mc.distance_field(mc.Board.square(5, 1), mc.Mover(), [(0, 0), (4, 0)]).tolist()
    [0, 1, 2, 1, 0]
    """
    budget = T.MAX_BUDGET if budget is None else _budget(budget)
    q = _prepare(board, mover, budget, occupant, cell_flags, zoc, None, None, 1, None)
    if not is_sequence(sources):
        raise QueryError(f"sources must be a sequence of cell indices or coordinates; got "
                         f"{describe(sources)}")
    src = np.array(sorted({_cell(board, x, "source") for x in sources}), dtype=T.INDEX)
    if out is None:
        out = np.empty(board.n_cells, T.INDEX)
    elif not (isinstance(out, np.ndarray) and out.dtype == T.INDEX
              and out.shape == (board.n_cells,) and out.flags.c_contiguous
              and out.flags.writeable):
        raise QueryError(f"out must be a writable contiguous int32 array of shape "
                         f"({board.n_cells},); got {describe(out)}")
    grow = False
    while True:
        out.fill(-1)
        ws = _workspace(board, 1, int(q.params[T.P_N_BUCKETS]), grow)
        n = field_query(*q.layers(), src, ws.state, ws.heap, ws.bucket, ws.cell, ws.ctrl,
                        ws.tree, out)
        if n != T.STATUS_QUEUE_FULL:
            return out
        grow = True


def warmup() -> None:
    """Load (or compile) the kernels now rather than on the first query. The plain
    kernels specialised per board kind (``reach_plain_k``: 4, 6 or 8 neighbours, with or
    without climbing) load on the first query of their kind (~20-50 ms from the cache),
    the ``prange`` batch on its first use."""
    b = Board.hex([(0, 0), (1, 0), (0, 1)])
    m = Mover()
    reach(b, m, 0, 2)
    reach(b, Mover(terrain_cost=[2]), 0, 2, leave=np.zeros(3, np.uint64))
    reach_many(b, m, [0, 1], 2)
    distance_field(b, m, [0])
