"""Double-space figures' moves over a batch of Heroscape games, in one compiled call
(:func:`doubles_kernel`): per game the query :meth:`Position._double` runs, made from the
game's occupant row (see :mod:`._batch`) instead of the position's kept layers.

Per game ``b`` whose acting figure stands on placement ``s`` (spaces ``c0``, ``c1``):

1. the occupancy of every placement for the mover (``node_value`` of its two spaces: a
   walker of team ``t`` reads engaged figures as walls, a flyer or phantom walker passes
   every figure), with ``c0`` and ``c1`` free (the figure leaves them), and the kind's
   placement flags with the stops of its start and of its flip cleared (``free_nodes``);
2. a walker with leaving attacks (master game, no Disengage or Phantom Walk) and an enemy
   within its reach (``relevant``): the leave bits of the spaces (bit j on the spaces
   where the mover is next to enemy j, heights considered), of each
   placement the bits of its two spaces, and the packed penalty kernel of the kind
   (``max_penalty`` 15, or 63 when enemies x budget exceed 15: ``_max_penalty``), rows
   mode; otherwise the kind's plain query (``reach1_ordered``, kernel order);
3. each pair of spaces once: the first of its two placements in the kernel's order
   (``finish_double``), written densely into the game's row of mask, cost and stop
   (stop codes of placements: water, lava, glyph).

The same searches as the position's, on the same layers: the same ends, costs, stops
and orientations (``tests/test_batch_heroscape.py``).
"""
from __future__ import annotations

import functools

import numpy as np
from numba import njit, types

from ...kernels import _types as T
from ...kernels._types import CACHE
from ...kernels.reach import reach1_ordered

EMPTY, WALL = T.OCC_EMPTY, T.OCC_WALL
NOT_STOP = np.uint8(0xFF ^ int(T.CELL_STOP))
PEN_TOP = T.MAX_PENALTY_LEVELS - 1

i64, i32 = types.int64, types.int32
I64_1, I64_2 = types.int64[::1], types.int64[:, ::1]
I32_1, I32_2 = types.int32[::1], types.int32[:, ::1]
B_1, B_2 = types.boolean[::1], types.boolean[:, ::1]
U8_1, U64_1, I8_2 = types.uint8[::1], types.uint64[::1], types.int8[:, ::1]
U8_2A, I32_2A, I8_2A = types.uint8[:, :], types.int32[:, :], types.int8[:, :]

_RP = None   # the penalty kernel, linked in by doubles_kernel()


@functools.lru_cache(maxsize=None)
def doubles_kernel():
    """The compiled batch of double-space moves (compiled, or loaded from Numba's cache,
    on first use; the packed penalty kernel linked in as
    :func:`movecore.kernels.batch.reach_games_pen` links it).

    ``doubles(occ, cell, alive, rows, figs, budgets, team, height, kind, passes,
    leaves, lead, trail, flip, coords, level, nbr, n_teams, master, blobs, blob_at,
    qflags, qflags_at, params, codes, pblobs, pblob_at, pparams, node_occ, flags, rowpos,
    lv, nlv, fbuf, ends, query, pbuf, out_at, mask, cost, stop)``: games ``rows[i]``,
    figure slot ``figs[i]`` with budget ``budgets[i]``; per slot its team, height,
    kind of mover (-1: one space; else the index into the packed plain shapes ``blobs``,
    ...,
    ``params`` and stop codes ``codes[k]``; its penalty shapes are ``2k`` (15 levels)
    and ``2k + 1`` (63) of ``pblobs``, ``pparams``), passes every figure, draws leaving
    attacks; then the placement graph, the battlefield, and per-call scratch. Returns 0
    or a kernel status < 0."""
    import os

    from ...kernels import reach as _reach, reach_pen as _reach_pen
    global _RP
    _RP = _reach_pen.kernel()
    deps = tuple((st.st_mtime_ns, st.st_size) for st in
                 (os.stat(_reach_pen.__file__), os.stat(_reach.__file__)))

    @njit(i64(I32_2, I32_2, B_2, I64_1, I64_1, I64_1, I64_1, I64_1, I64_1, B_1,
              B_1, I64_1, I64_1, I64_1, I64_2, I64_1, I64_2, i64, i64, I32_1, I64_1,
              U8_1, I64_1, I64_2, I8_2, I32_1, I64_1, I64_2, I32_1, U8_1, I64_1, U64_1,
              U64_1, I32_1, I32_2, I64_2, I32_1, i64, U8_2A, I32_2A, I8_2A),
          cache=CACHE, nogil=True)
    def doubles(occ, cell, alive, rows, figs, budgets, team, height, kind, passes,
                leaves, lead, trail, flip, coords, level, nbr, n_teams, master, blobs,
                blob_at, qflags, qflags_at, params, codes, pblobs, pblob_at, pparams,
                node_occ, flags, rowpos, lv, nlv, fbuf, ends, query, pbuf, out_at, mask,
                cost, stop):
        dep = deps  # noqa: F841 (in the closure: see doubles_kernel)
        P = lead.shape[0]
        N = level.shape[0]
        F = cell.shape[1]
        rows_mode = np.empty((8, 0), np.int32)
        no_queries = np.empty((0, 3), np.int64)
        no_order = np.empty(0, np.int64)
        no_zoc = np.empty(0, np.uint64)
        no_enter = np.empty(0, np.int32)
        for i in range(rows.shape[0]):
            b = rows[i]
            f = figs[i]
            bud = budgets[i]
            k = kind[f]
            start = np.int64(cell[b, f])
            c0 = lead[start]
            c1 = trail[start]
            fstart = flip[start]
            any_mode = passes[f]
            t = 0 if any_mode else team[f]
            # 1. the placements' occupancy without the mover, the kind's flags
            qa = qflags_at[k]
            for p in range(P):
                lp = lead[p]
                tp = trail[p]
                x = EMPTY if (lp == c0 or lp == c1) else occ[b, lp]
                y = EMPTY if (tp == c0 or tp == c1) else occ[b, tp]
                if any_mode:
                    v = 0 if (x >= 0 or y >= 0) else EMPTY
                else:
                    if master:          # an engaged figure (team + n_teams): a wall
                        if x >= n_teams:
                            x = WALL
                        if y >= n_teams:
                            y = WALL
                    if x == WALL or y == WALL:
                        v = WALL
                    elif x >= 0 and x != t:
                        v = x
                    elif y >= 0 and y != t:
                        v = y
                    elif x == t or y == t:
                        v = t
                    else:
                        v = EMPTY
                node_occ[p] = v
                flags[p] = qflags[qa + p]
            flags[start] &= NOT_STOP
            flags[fstart] &= NOT_STOP
            # 2. leaving attacks: enemies within reach (budget + 3 of either space)
            n_rel = 0
            if leaves[f]:
                reach_ = bud + 3
                for j in range(F):
                    if not alive[b, j] or team[j] == team[f]:
                        continue
                    sj = np.int64(cell[b, j])
                    hit = False
                    for a in range(2):
                        ca = c0 if a == 0 else c1
                        for e in range(2):
                            cb = sj if e == 0 else -1
                            if kind[j] >= 0:
                                cb = lead[sj] if e == 0 else trail[sj]
                            if cb < 0:
                                continue
                            dq = coords[cb, 0] - coords[ca, 0]
                            dr = coords[cb, 1] - coords[ca, 1]
                            if (abs(dq) + abs(dr) + abs(dq + dr)) // 2 <= reach_:
                                hit = True
                    if hit:
                        n_rel += 1
            if n_rel > 0:
                h = height[f]      # (the position's height class: the same bits)
                for c in range(N):
                    lv[c] = 0
                for j in range(F):
                    if not alive[b, j] or team[j] == team[f]:
                        continue
                    bit = np.uint64(1) << np.uint64(j)
                    sj = np.int64(cell[b, j])
                    for e in range(2):
                        ce = sj if e == 0 else -1
                        if kind[j] >= 0:
                            ce = lead[sj] if e == 0 else trail[sj]
                        if ce < 0:
                            continue
                        le = level[ce]
                        for d in range(nbr.shape[1]):
                            c = nbr[ce, d]
                            if c >= 0 and level[c] - le < height[j] and \
                                    le - level[c] < h:
                                lv[c] |= bit
                for p in range(P):
                    nlv[p] = lv[lead[p]] | lv[trail[p]]
                ps = 2 * k + (1 if n_rel * bud > 15 else 0)
                n = _RP(pblobs[pblob_at[ps]:pblob_at[ps + 1]], node_occ, flags, no_zoc,
                        nlv, no_enter, pparams[ps], pbuf, rows_mode, no_queries, start,
                        bud)
                if n < 0:
                    return n
                o_cell, o_cost, o_stop = out_at, out_at + n, out_at + 2 * n
                src = pbuf
            else:
                query[0, 0] = start
                query[0, 1] = bud
                n = reach1_ordered(blobs[blob_at[k]:blob_at[k + 1]], node_occ, flags,
                                   no_zoc, params[k], fbuf, ends, query, no_order)
                if n < 0:
                    return n
                src = ends.reshape(3 * ends.shape[1])
                o_cell, o_cost, o_stop = 0, ends.shape[1], 2 * ends.shape[1]
            # 3. each pair of spaces once, the first placement in kernel order (the
            # game's row arrives cleared: BatchLayout.answer)
            for r in range(n):
                rowpos[src[o_cell + r]] = r
            for r in range(n):
                node = src[o_cell + r]
                partner = rowpos[flip[node]]
                if partner >= 0 and partner < r:
                    continue
                mask[b, node] = 1
                cost[b, node] = src[o_cost + r]
                stop[b, node] = codes[k, node] if src[o_stop + r] != 0 else 0
            for r in range(n):
                rowpos[src[o_cell + r]] = -1
        return 0

    return doubles
