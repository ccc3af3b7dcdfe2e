"""Batched kernels: one query in each of B independent games, in one call (Numba).

The games share one board and one packed query shape (``blob``, ``qflags``, ``zoc``,
``params``: see :mod:`movecore.kernels.reach`); each game has its own occupant row. This
is what batched self-play and the vector environments run: the acting figure's legal
ends in every game at once; :func:`reach_games_pen` (compiled on first use) does the same
for query shapes with penalties, with each end's least penalty. Game rules never appear
here.

Arrays (``B`` games, ``N`` cells, ``A >= N`` columns of a game's dense answer)
    occ        int32[B, N]     each game's occupant layer (team id, OCC_EMPTY, OCC_WALL)
    shape      int64[B]        the query shape each game asks (-1 = none)
    queries    int64[B, 3]     (start cell or -1 = no query, budget, ends out) per game
    mask       uint8[B, A]     out: 1 on each legal end cell (columns >= N stay 0)
    cost       int32[B, A]     out: its least cost, -1 elsewhere
    stop       int8[B, A]      out: 1 where the move had to end there, else 0
    buf        int32[W]        one ``reach1`` workspace (``fast_layout_size``) per thread
    ends       int32[3, N]     one end block per thread
"""
from __future__ import annotations


import numpy as np
from numba import njit, types

from ._jit import once
from ._types import CACHE
from .reach import is_plain, reach1_general, reach1_plain

i32_1 = types.int32[::1]
i32_2 = types.int32[:, ::1]
i64_2 = types.int64[:, ::1]
u8_1 = types.uint8[::1]
u64_1 = types.uint64[::1]
i64_1 = types.int64[::1]
# the dense outputs may be a column block of a wider array (a figure's slot of a side's
# action space): any layout
u8_2a = types.uint8[:, :]
i32_2a = types.int32[:, :]
i8_2a = types.int8[:, :]


@njit(inline="always")
def _clear_row(mask, cost, stop, b):
    """Row ``b`` of the dense outs cleared (mask 0, cost -1, stop 0): one loop per
    array (a contiguous row's then run as wide stores: LLVM versions the loops on a
    unit stride)."""
    A = mask.shape[1]
    for a in range(A):
        mask[b, a] = 0
    for a in range(A):
        cost[b, a] = -1
    for a in range(A):
        stop[b, a] = 0


@njit(types.int64(i32_1, i64_1, u8_1, i64_1, u64_1, i64_1, i64_2, i64_1, i32_2, i32_1,
                  i32_2, i64_2, types.int64, types.int64, u8_2a, i32_2a, i8_2a),
      cache=CACHE, nogil=True)
def reach_games(blobs, blob_at, qflags, qflags_at, zoc, zoc_at, params, shape, occ, buf,
                ends, queries, lo, hi, mask, cost, stop):
    """Games ``lo <= b < hi``: the ends of query ``queries[b]`` (start, budget) of query
    shape ``shape[b]`` on the board with occupant ``occ[b]``, written densely into row
    ``b`` of ``mask``/``cost``/``stop`` (every column of the row is written: cleared,
    then one entry per end); ``queries[b, 2]`` receives the number of ends (0 for a game
    whose start or shape is -1).

    Query shapes ``k`` (a figure kind, a team...) are packed one after another: its
    ``reach1`` blob is ``blobs[blob_at[k]:blob_at[k + 1]]``, its cell flags
    ``qflags[qflags_at[k]:qflags_at[k + 1]]`` and zones ``zoc[zoc_at[k]:zoc_at[k + 1]]``
    (empty = none), its parameters ``params[k]``. ``buf`` is sized for the largest
    bucket ring of the shapes. Returns 0, or a STATUS_* < 0 of ``reach1`` (cannot happen
    with ``ends`` of N columns: one end per cell)."""
    for b in range(lo, hi):
        _clear_row(mask, cost, stop, b)
        k = shape[b]
        if queries[b, 0] < 0 or k < 0:
            queries[b, 2] = 0
            continue
        blob = blobs[blob_at[k]:blob_at[k + 1]]
        qf = qflags[qflags_at[k]:qflags_at[k + 1]]
        zc = zoc[zoc_at[k]:zoc_at[k + 1]]
        pk = params[k]
        plain = is_plain(blob, qf, zc, pk)
        if plain:
            n = reach1_plain(blob, occ[b], qf, zc, pk, buf, ends, queries[b:b + 1], 0, 0)
        else:
            n = reach1_general(blob, occ[b], qf, zc, pk, buf, ends, queries[b:b + 1], 0, 0)
        if n < 0:
            return n
        for i in range(n):
            c = ends[0, i]
            mask[b, c] = 1
            cost[b, c] = ends[1, i]
            if not plain:
                stop[b, c] = ends[2, i]
    return 0


@once
def reach_games_pen():
    """The batched penalty kernel (compiled, or loaded from Numba's cache, on first use,
    as :func:`movecore.kernels.reach_pen.kernel`): ``reach_games`` with a penalty
    dimension, built on the packed penalty kernel's rows mode.

    ``reach_games_pen(pblobs, pblob_at, qflags, qflags_at, zoc, zoc_at, leave, enter_pen,
    layer, params, shape, occ, buf, out_at, queries, lo, hi, mask, cost, stop, pen)``:
    as :func:`reach_games` (``pblobs``: the shapes' penalty packings, ``params[k,
    P_N_PEN]`` their penalty levels), plus per game ``b`` the penalty layers of row
    ``layer[b]`` of ``leave`` (uint64[L, N] or [L, 0]: none) and ``enter_pen``
    (int32[L, N] or [L, 0]) -- one row shared by every game, or one per game --, and the
    out ``pen`` int32[B, A]: each end's least penalty (0 elsewhere). Unlike
    ``reach_games``, the rows of a game that asks nothing (start or shape -1) are left
    as they are (the caller runs it on some games of a batch). ``buf``: one
    ``reach_pen`` workspace (``pen_layout_size`` for the largest ``n_pen`` and bucket
    count of the shapes; ``buf[2]``, ``buf[3]`` set), ``out_at`` its out block's offset
    (``pen_out_offset``). Returns 0 or a STATUS_* < 0 of ``reach_pen``."""
    from . import reach_pen as _reach_pen
    global _RP
    _RP = _reach_pen.kernel()
    # the penalty kernel is linked into this one: a global (a dispatcher in a closure
    # would change Numba's cache key every process); an edit of its files recompiles
    # this one too (every kernel file is in the cache stamp of every movecore entry:
    # ``movecore._dependency_files``)
    u64_2 = types.uint64[:, ::1]

    @njit(types.int64(i32_1, i64_1, u8_1, i64_1, u64_1, i64_1, u64_2, i32_2, i64_1, i64_2,
                      i64_1, i32_2, i32_1, types.int64, i64_2, types.int64, types.int64,
                      u8_2a, i32_2a, i8_2a, i32_2a), cache=CACHE, nogil=True)
    def reach_games_pen(pblobs, pblob_at, qflags, qflags_at, zoc, zoc_at, leave,
                        enter_pen, layer, params, shape, occ, buf, out_at, queries, lo, hi,
                        mask, cost, stop, pen):
        rows_mode = np.empty((8, 0), np.int32)    # reach_pen: the ends' fields, no tree
        no_queries = np.empty((0, 3), np.int64)
        for b in range(lo, hi):
            k = shape[b]
            if queries[b, 0] < 0 or k < 0:
                continue              # (a game that asks nothing: its rows untouched)
            _clear_row(mask, cost, stop, b)
            for a in range(mask.shape[1]):
                pen[b, a] = 0
            blob = pblobs[pblob_at[k]:pblob_at[k + 1]]
            qf = qflags[qflags_at[k]:qflags_at[k + 1]]
            zc = zoc[zoc_at[k]:zoc_at[k + 1]]
            r = layer[b]
            n = _RP(blob, occ[b], qf, zc, leave[r], enter_pen[r], params[k], buf, rows_mode,
                   no_queries, queries[b, 0], queries[b, 1])
            if n < 0:
                return n
            queries[b, 2] = n
            for i in range(n):
                c = buf[out_at + i]
                mask[b, c] = 1
                cost[b, c] = buf[out_at + n + i]
                stop[b, c] = buf[out_at + 2 * n + i]
                pen[b, c] = buf[out_at + 4 * n + i]
        return 0

    return reach_games_pen


_RP = None   # the penalty kernel, once reach_games_pen() has been asked for
