"""Compiled bookkeeping of the Heroscape live position (:mod:`.position`): who is
within reach, engagement after a move, placements without the mover, the ends in
``solve()``'s order. Module-level functions with explicit signatures, cached by Numba;
imported on a position's first query (not when the game is loaded)."""
from __future__ import annotations

import numpy as np
from numba import njit, types

from ...kernels import _types as T
from ...kernels._types import CACHE
from . import rules as _rules

i64, i32, u64 = types.int64, types.int32, types.uint64
I64_1, I64_2 = types.int64[::1], types.int64[:, ::1]
I32_1, I32_2 = types.int32[::1], types.int32[:, ::1]
I32_2A = types.int32[:, :]    # kernel end rows: a view of its workspace, any layout
U64_1, B_1, I8_1 = types.uint64[::1], types.boolean[::1], types.int8[::1]
U8_1 = types.uint8[::1]
EMPTY, WALL = T.OCC_EMPTY, T.OCC_WALL
CELL_STOP = np.uint8(T.CELL_STOP)
#: which placement of a pair of spaces an answer lists (the least key), compiled: the
#: one rule of :func:`.rules.placement_key`, for the position's and the batch's calls
placement_key = njit(inline="always")(_rules.placement_key)


@njit(i64(I64_2, I64_2, I64_1, B_1, i64, i64), cache=CACHE, nogil=True)
def relevant(cells, coords, team, alive, i, reach_):
    """Enemies of figure i with a space within ``reach_`` of one of its spaces."""
    n = 0
    for j in range(cells.shape[0]):
        if not alive[j] or team[j] == team[i]:
            continue
        hit = False
        for a in range(2):
            ca = cells[i, a]
            if ca < 0:
                continue
            for b in range(2):
                cb = cells[j, b]
                if cb < 0:
                    continue
                dq = coords[cb, 0] - coords[ca, 0]
                dr = coords[cb, 1] - coords[ca, 1]
                if (abs(dq) + abs(dr) + abs(dq + dr)) // 2 <= reach_:
                    hit = True
        if hit:
            n += 1
    return n


@njit(i64(I64_2, I64_2, I64_1, I64_1, I64_1, I64_1, i64, i64), cache=CACHE, nogil=True)
def adjacent(cells, nbr, at_fig, team, height, level, i, count):
    """Distinct enemies adjacent to figure i (the height exception applied); with
    ``count`` 0, 1 as soon as one is found."""
    n = 0
    seen = np.empty(12, np.int64)
    for a in range(2):
        c = cells[i, a]
        if c < 0:
            continue
        for d in range(nbr.shape[1]):
            x = nbr[c, d]
            if x < 0:
                continue
            j = at_fig[x]
            if j < 0 or j == i or team[j] == team[i]:
                continue
            if not (level[c] - level[x] < height[j] and level[x] - level[c] < height[i]):
                continue
            if count == 0:
                return 1
            new = True
            for k in range(n):
                if seen[k] == j:
                    new = False
            if new:
                seen[n] = j
                n += 1
    return n


@njit(i32(i32, i32, i64, i64), cache=CACHE, nogil=True)
def node_value(a, b, t, any_mode):
    if any_mode:
        return 0 if (a >= 0 or b >= 0) else EMPTY
    if a == WALL or b == WALL:
        return WALL
    if a >= 0 and a != t:
        return a
    if b >= 0 and b != t:
        return b
    if a == t or b == t:
        return t
    return EMPTY


@njit(types.void(I32_1, I32_1, I64_1, I64_1, I64_2, I64_1, i64, i64), cache=CACHE,
      nogil=True)
def refresh_nodes(layer, occ, lead, trail, touch, cells, t, any_mode):
    """Placements touching ``cells`` from the occupancy of their two spaces."""
    for c in cells:
        for m in range(touch.shape[1]):
            p = touch[c, m]
            if p >= 0:
                layer[p] = node_value(occ[lead[p]], occ[trail[p]], t, any_mode)


@njit(i64(I32_1, I32_1, I64_1, I64_1, I64_2, I64_1, U8_1, i64, i64, i64, i64, I32_1,
          I64_1), cache=CACHE, nogil=True)
def free_nodes(layer, occ, lead, trail, touch, flip, flags, c0, c1, t, any_mode, saved,
               saved_at):
    """Placements touching the mover's spaces c0, c1 made without the mover, and its
    start placement (lead c0, trail c1) and its flip made never to stop (``flags``);
    the values saved first (``saved``, ``saved_at``: 2 + 2 * touch.shape[1] long),
    put back by :func:`restore`. Returns k | start << 5 | flip[start] << 34 (k: the
    placements saved)."""
    start = -1
    for m in range(6):
        p = touch[c0, m]
        if p >= 0 and trail[p] == c1:
            start = p
            break
    fstart = flip[start]
    k = 0
    for c in (c0, c1):
        for m in range(touch.shape[1]):
            p = touch[c, m]
            if p < 0:
                continue
            saved_at[k] = p
            saved[k] = layer[p]
            k += 1
            lp, tp = lead[p], trail[p]
            a = EMPTY if (lp == c0 or lp == c1) else occ[lp]
            b = EMPTY if (tp == c0 or tp == c1) else occ[tp]
            layer[p] = node_value(a, b, t, any_mode)
    saved_at[k], saved[k] = start, flags[start]
    saved_at[k + 1], saved[k + 1] = fstart, flags[fstart]
    flags[start] &= ~CELL_STOP
    flags[fstart] &= ~CELL_STOP
    return k | start << 5 | fstart << 34


@njit(types.void(I32_1, U8_1, I64_1, I32_1, i64), cache=CACHE, nogil=True)
def restore(layer, flags, saved_at, saved, k):
    """What :func:`free_nodes` changed (its ``k``) put back."""
    flags[saved_at[k]] = saved[k]
    flags[saved_at[k + 1]] = saved[k + 1]
    for m in range(k - 1, -1, -1):
        layer[saved_at[m]] = saved[m]


@njit(types.void(I64_1, I64_1, I64_1, B_1, i64, I32_1, I32_1), cache=CACHE, nogil=True)
def sync_cells(cells, at_fig, team, engaged, master, occ_any, occ_walk):
    """Occupancy of ``cells`` from the figures on them (engaged ones walls, master)."""
    for c in cells:
        j = at_fig[c]
        if j < 0:
            occ_any[c] = EMPTY
            occ_walk[c] = EMPTY
        else:
            occ_any[c] = team[j]
            occ_walk[c] = WALL if (master and engaged[j]) else team[j]


U64_2 = types.uint64[:, ::1]


@njit(types.void(U64_2, U64_2, I64_1, I64_1, I64_1, I64_1, I64_2, I64_2, I64_1, I64_2,
                 I64_1, I64_1, i64, u64, i64), cache=CACHE, nogil=True)
def leave_bits(layers, node_layers, row_team, row_h, lead, trail, touch, nbr, level,
               cells, team, height, j, bit, on):
    """Enemy j's bit (``bit``) set or cleared in every leave layer of another team
    (row r: team ``row_team[r]``, mover height class ``row_h[r]``), on the spaces
    where such a mover is adjacent to j, and on the placements touching them
    (``node_layers``, when it has columns)."""
    for r in range(layers.shape[0]):
        if row_team[r] == team[j]:
            continue
        h = row_h[r]
        layer = layers[r]
        for a in range(2):
            ce = cells[j, a]
            if ce < 0:
                continue
            le = level[ce]
            for d in range(nbr.shape[1]):
                c = nbr[ce, d]
                if c < 0 or not (level[c] - le < height[j] and le - level[c] < h):
                    continue
                if on:
                    layer[c] |= bit
                else:
                    layer[c] &= ~bit
                if node_layers.shape[1] > 0:
                    for m in range(touch.shape[1]):
                        p = touch[c, m]
                        if p >= 0:
                            node_layers[r, p] = layer[lead[p]] | layer[trail[p]]


@njit(types.void(U64_1, I64_1, I64_1, U64_1), cache=CACHE, nogil=True)
def node_leave(layer, lead, trail, out):
    """``out[p] = layer[lead[p]] | layer[trail[p]]``: a leave layer of spaces as the
    leave layer of placements (bits of enemies next to either space)."""
    for p in range(out.shape[0]):
        out[p] = layer[lead[p]] | layer[trail[p]]


@njit(i64(I64_2, I64_2, I64_1, i64, I64_1), cache=CACHE, nogil=True)
def touching(cells, nbr, at_fig, i, out):
    """Figures on a space next to figure i's (distinct, ascending); their count."""
    k = 0
    for a in range(2):
        c = cells[i, a]
        if c < 0:
            continue
        for d in range(nbr.shape[1]):
            x = nbr[c, d]
            if x < 0:
                continue
            j = at_fig[x]
            if j < 0 or j == i:
                continue
            new = True
            for m in range(k):
                if out[m] == j:
                    new = False
            if new:
                m = k
                while m > 0 and out[m - 1] > j:
                    out[m] = out[m - 1]
                    m -= 1
                out[m] = j
                k += 1
    return k


@njit(types.void(I32_2A, I64_1, I8_1, I32_2), cache=CACHE, nogil=True)
def finish_pen(rows, rank, code, out):
    """Ends of a penalty query (kernel rows: cell, cost, stopped, _, attacks, their
    cost) into ``out`` rows (cell, cost, stop code, attacks, their cost, fall 0),
    sorted by (cost, ``rank``)."""
    for r in range(rows.shape[0]):
        c, k = rows[r, 0], rows[r, 1]
        j = r
        while j > 0 and (out[1, j - 1] > k or (out[1, j - 1] == k and
                                                rank[out[0, j - 1]] > rank[c])):
            for f in range(6):
                out[f, j] = out[f, j - 1]
            j -= 1
        out[0, j] = c
        out[1, j] = k
        out[2, j] = code[c] if rows[r, 2] != 0 else 0
        out[3, j] = rows[r, 4]
        out[4, j] = rows[r, 5]
        out[5, j] = 0


@njit(types.void(I32_2, i64, i64, I8_1, i64, i64, I32_2), cache=CACHE, nogil=True)
def finish_fast(ends, lo, hi, code, start, takeoff, out):
    """Ends ``lo:hi`` of a query without penalties (already in order) into ``out``
    rows; a flyer's take-off attacks on every end but its start."""
    for r in range(lo, hi):
        o = r - lo
        c = ends[0, r]
        out[0, o] = c
        out[1, o] = ends[1, r]
        out[2, o] = code[c] if ends[2, r] != 0 else 0
        out[3, o] = takeoff if c != start else 0
        out[4, o] = ends[1, r]
        out[5, o] = 0


@njit(i64(I32_2A, i64, i64, I64_1, I64_1, I8_1, I64_1, i64, i64, i64, I32_2),
      cache=CACHE, nogil=True)
def finish_double(rows, n, pen_rows, flip, pair_rank, code, rowpos, start, fstart,
                  takeoff, out):
    """Each pair of spaces once: the placement with the least :func:`placement_key`
    (the least cost, a free arrival before a stopped one, then the lower node: not the
    kernel's order), with the least (attacks, cost) of both; sorted by (cost, pair).
    ``rows``: the kernel's end rows (``pen_rows``) or its (cell, cost, stopped)
    columns. Returns the ends written to ``out``."""
    for r in range(n):
        rowpos[rows[r, 0] if pen_rows else rows[0, r]] = r
    k = 0
    for r in range(n):
        if pen_rows:
            node, cost, st = rows[r, 0], rows[r, 1], rows[r, 2]
        else:
            node, cost, st = rows[0, r], rows[1, r], rows[2, r]
        f = flip[node]
        partner = rowpos[f]
        if partner >= 0:
            if pen_rows:
                fc, fst = rows[partner, 1], rows[partner, 2]
            else:
                fc, fst = rows[1, partner], rows[2, partner]
            if placement_key(fc, fst, f) < placement_key(cost, st, node):
                continue
        if pen_rows:
            p, pc = rows[r, 4], rows[r, 5]
            if partner >= 0:
                p2, pc2 = rows[partner, 4], rows[partner, 5]
                if p2 < p or (p2 == p and pc2 < pc):
                    p, pc = p2, pc2
        else:
            p = takeoff if (node != start and node != fstart) else 0
            pc = cost
        rk = pair_rank[node]
        j = k
        while j > 0 and (out[1, j - 1] > cost or (out[1, j - 1] == cost and
                                                   pair_rank[out[0, j - 1]] > rk)):
            for f in range(6):
                out[f, j] = out[f, j - 1]
            j -= 1
        out[0, j] = node
        out[1, j] = cost
        out[2, j] = code[node] if st != 0 else 0
        out[3, j] = p
        out[4, j] = pc
        out[5, j] = 0
        k += 1
    for r in range(n):
        rowpos[rows[r, 0] if pen_rows else rows[0, r]] = -1
    return k


@njit(i64(I64_2, I64_2, I64_1, I64_1, I64_1, I64_1, B_1, i64, i64, i64, I64_1, i64,
          I32_1, I32_1, I32_2, I64_1, I64_1, I64_1, I64_1, I64_2, U64_2, U64_2, I64_1,
          I64_1, i64), cache=CACHE, nogil=True)
def relocate(cells, nbr, at_fig, team, height, level, engaged, i, new0, new1,
             changed, master, occ_any, occ_walk, node_rows, node_team, node_mode, lead,
             trail, touch, lv, lvn, lv_team, lv_h, bits):
    """Figure i off its spaces (if on any) and onto ``new0`` (and ``new1``; -1: none,
    a removal), with everything that follows: engagement of it and of the enemies
    next to either place, the occupancy (``occ_any``, ``occ_walk``) of the spaces
    that may change (written to ``changed``, int64[64]; their number is returned),
    the placement layers (``node_rows``: row r for team ``node_team[r]``, mode
    ``node_mode[r]``) touching them, and, with ``bits``, figure i's bit in the leave
    layers ``lv`` (and ``lvn``)."""
    bit = np.uint64(1) << np.uint64(i)
    if bits and cells[i, 0] >= 0:
        leave_bits(lv, lvn, lv_team, lv_h, lead, trail, touch, nbr, level, cells, team,
                   height, i, bit, 0)
    near = np.empty(24, np.int64)
    nn = 0
    nc = 0
    for phase in range(2):
        if phase == 1:
            for a in range(2):
                if cells[i, a] >= 0:
                    at_fig[cells[i, a]] = -1
            cells[i, 0] = new0
            cells[i, 1] = new1
            for a in range(2):
                if cells[i, a] >= 0:
                    at_fig[cells[i, a]] = i
        for a in range(2):
            c = cells[i, a]
            if c < 0:
                continue
            changed[nc] = c
            nc += 1
            for d in range(nbr.shape[1]):
                x = nbr[c, d]
                if x < 0:
                    continue
                j = at_fig[x]
                if j < 0 or j == i or team[j] == team[i]:
                    continue
                new = True
                for k in range(nn):
                    if near[k] == j:
                        new = False
                if new:
                    near[nn] = j
                    nn += 1
    engaged[i] = new0 >= 0 and adjacent(cells, nbr, at_fig, team, height, level, i,
                                         0) > 0
    for k in range(nn):
        j = near[k]
        e = adjacent(cells, nbr, at_fig, team, height, level, j, 0) > 0
        if e != engaged[j]:
            engaged[j] = e
            for a in range(2):
                if cells[j, a] >= 0:
                    changed[nc] = cells[j, a]
                    nc += 1
    if bits and new0 >= 0:
        leave_bits(lv, lvn, lv_team, lv_h, lead, trail, touch, nbr, level, cells, team,
                   height, i, bit, 1)
    done = changed[:nc]
    sync_cells(done, at_fig, team, engaged, master, occ_any, occ_walk)
    for r in range(node_rows.shape[0]):
        refresh_nodes(node_rows[r], occ_any if node_mode[r] else occ_walk, lead, trail,
                      touch, done, node_team[r], node_mode[r])
    return nc


@njit(types.void(I32_2A, i64, I32_2, U64_1, I32_1, I64_1, i64, i64, i64, i64, I64_1,
                 U64_2), cache=CACHE, nogil=True)
def who_bits(rows, n, tree, leave, actions, flip, double, mode, start, fstart, rowpos,
             out):
    """Per end ``actions[e]``: ``out[0, e]`` the leave bits there (the enemies the figure
    is engaged with), ``out[1, e]`` those of the enemies that attack it: ``mode`` 0
    none; 1 those left on its least-attack path, walked back through the penalty
    kernel's ``tree`` from the end row's least-penalty arrival (column 6),
    ``leave[u] & ~leave[v]`` per step u -> v (a double-space end uses the row of its
    placement, or of its flip where that has fewer (attacks, cost): the listed
    placement on a tie, as ``_falls.pick_rows`` and the reference); 2 those engaged at
    ``start`` (a flyer's take-off), on every end but the start (or its flip)."""
    E = actions.shape[0]
    for e in range(E):
        out[0, e] = leave[actions[e]]
    if mode == 0:
        for e in range(E):
            out[1, e] = 0
        return
    if mode == 2:
        t = leave[start]
        for e in range(E):
            a = actions[e]
            out[1, e] = 0 if (a == start or a == fstart) else t
        return
    for r in range(n):
        rowpos[rows[r, 0]] = r
    for e in range(E):
        a = actions[e]
        r = rowpos[a]
        if double:
            pr = rowpos[flip[a]]
            if r < 0 or (pr >= 0 and (rows[pr, 4] < rows[r, 4] or (
                    rows[pr, 4] == rows[r, 4] and rows[pr, 5] < rows[r, 5]))):
                r = pr
        bits = np.uint64(0)
        row = rows[r, 6]
        while row >= 0:
            par = tree[row, 3]
            if par < 0:
                break
            bits |= leave[tree[par, 0]] & ~leave[tree[row, 0]]
            row = par
        out[1, e] = bits
    for r in range(n):
        rowpos[rows[r, 0]] = -1



@njit(types.void(I32_2A, I64_1, I8_1, I32_2, I32_2, U64_1, I64_1, U64_2), cache=CACHE,
      nogil=True)
def finish_pen_who(rows, rank, code, out, tree, leave, rowpos, who):
    """:func:`finish_pen` then :func:`who_bits` of a single-space figure's penalty
    query (mode 1) in one call."""
    finish_pen(rows, rank, code, out)
    who_bits(rows, rows.shape[0], tree, leave, out[0], np.empty(0, np.int64), 0, 1, -1,
             -1, rowpos, who)


@njit(types.void(I32_2, i64, i64, I8_1, i64, i64, I32_2, U64_1, i64, I64_1, U64_2),
      cache=CACHE, nogil=True)
def finish_fast_who(ends, lo, hi, code, start, takeoff, out, leave, mode, rowpos, who):
    """:func:`finish_fast` then :func:`who_bits` (mode 0, or 2: a flyer's take-off
    from ``start``) of a single-space figure's query in one call."""
    finish_fast(ends, lo, hi, code, start, takeoff, out)
    who_bits(np.empty((0, 8), np.int32), 0, np.empty((0, 8), np.int32), leave, out[0],
             np.empty(0, np.int64), 0, mode, start, -1, rowpos, who)


@njit(i64(I32_2A, i64, i64, I64_1, I64_1, I8_1, I64_1, i64, i64, i64, I32_2, I32_2, U64_1,
          i64, I64_1, U64_2), cache=CACHE, nogil=True)
def finish_double_who(rows, n, pen_rows, flip, pair_rank, code, rowpos, start, fstart,
                      takeoff, out, tree, leave, mode, wpos, who):
    """:func:`finish_double` then :func:`who_bits` of its ends (``mode`` as there: 1
    with ``pen_rows``) in one call. Returns the ends written."""
    m = finish_double(rows, n, pen_rows, flip, pair_rank, code, rowpos, start, fstart,
                      takeoff, out)
    who_bits(rows, n if pen_rows else 0, tree, leave, out[0, :m], flip, 1, mode, start,
             fstart, wpos, who)
    return m
