"""Budget-bounded reachability kernels (Numba).

Everything here works on flat, validated, C-contiguous arrays; nothing raises on user
data and nothing allocates inside the query loop. Game rules never appear here: the
Python layer turns them into the numbers below.

Search state
    ``s = ((cell * n_pen) + pen) * 2 + stopped``. ``stopped`` = the arrival had to end
    (stop terrain, stop cell, provoking edge): it may be an end but is never expanded, and
    a free arrival of equal cost at the same (cell, pen) always wins the tie. ``pen`` is a
    secondary objective (leaving-engagement attacks, wounds) capped at ``n_pen - 1``; with
    ``n_pen == 1`` penalties are off.

Arrays (``N`` cells, ``K`` directions, ``S = 2 * N * n_pen`` states)
    nbr        int32[N, K]     neighbour cell per direction, -1 = none
    link_ptr   int32[N + 1]    CSR offsets of the extra links leaving each cell
    link_data  int32[L, 3]     (destination, cost, kind) of each link
    cell_data  int32[N, 3]     (terrain id, height, board flag bits)
    edges      int32[N, K, 2]  (extra cost, edge flag bits) per side; shape (0, K, 2) = none
    diag_sides int32[K, 2]     the two orthogonal directions of a diagonal one, else -1
    terrain_rule int32[T, 2]   (entry cost or -1, terrain flag bits)
    occupant   int32[N]        team id, OCC_EMPTY or OCC_WALL
    qflags     uint8[N] | [0]  per-query cell flag bits, OR-ed with the board's
    zoc        uint64[N] | [0] provoke masks: u -> v stops when zoc[u] & zoc[v] != 0
    leave      uint64[N] | [0] penalty += popcount(leave[u] & ~leave[v]) * leave_weight
    enter_pen  int32[N] | [0]  penalty added on entering a cell
    params     int64[N_PARAMS] see ``_types.P_*``
    sources    int32[M]        start cells (cost 0, free)

Workspace (reused across queries; generation stamps, so no O(N) reset)
    ws_state   int32[S, 4]     (stamp, best cost, tree index, parent tree index)
    ws_heap    int32[H, 2]     bucket-queue entries (state, next); a free list threads them
    ws_bucket  int32[B, 2]     ring of buckets: (head of free arrivals, head of stopped)
    ws_cell    int32[N, 2]     (stamp, end index) used while listing ends
    ws_ctrl    int64[8]        [0] generation, [1] free-list head, [2] FIFO tail,
                               [3] queue mode (0 Dial, 1 BFS FIFO), [4] tree rows

Outputs
    tree       int32[S, 4]     settled states in cost order: (cell, cost, pen*2+stopped,
                               parent tree index or -1); the search tree for paths
    ends       int32[N, 8]     one row per legal end, in cost order: (cell, cost, stopped,
                               tree index, least penalty, its cost, its tree index,
                               cost of the cheapest free arrival or -1)
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange, types

from ._types import (
    BLOCK, CACHE, CELL_BLOCKED, CELL_NO_END, CELL_STOP, EDGE_BLOCKED, EDGE_STOP,
    OCC_WALL, P_ALLY, P_BUDGET, P_CLIMB_FLAT, P_CLIMB_PER_LEVEL, P_CORNER_CUT,
    P_DESCEND_PER_LEVEL, P_ENEMY, P_LEAVE_WEIGHT, P_LINK_MASK, P_MAX_CLIMB, P_N_BUCKETS,
    P_N_PEN, P_TEAM, P_UNIT, PASS_END, STATUS_ARENA_FULL, STATUS_QUEUE_FULL, TERRAIN_STOP,
)

i32_2 = types.int32[:, ::1]
i32_3 = types.int32[:, :, ::1]
i32_1 = types.int32[::1]
u8_1 = types.uint8[::1]
u64_1 = types.uint64[::1]
i64_1 = types.int64[::1]
i64_2 = types.int64[:, ::1]

# The board, mover and per-query layers, in the order every kernel takes them.
_LAYERS = (i32_2, i32_1, i32_2, i32_2, i32_3, i32_2, i32_2, i32_1, u8_1, u64_1, u64_1,
           i32_1, i64_1)


@njit(cache=CACHE, nogil=True)
def _popcount(x):
    n = 0
    while x:
        x &= x - np.uint64(1)
        n += 1
    return n


@njit(cache=CACHE, nogil=True)
def _cell_flags(v, cell_data, qflags):
    f = cell_data[v, 2]
    if qflags.shape[0] > 0:
        f |= qflags[v]
    return f


@njit(cache=CACHE, nogil=True)
def _can_stand(v, cell_data, terrain_rule, qflags):
    """Terrain and flags allow entering v (occupants aside)."""
    if _cell_flags(v, cell_data, qflags) & CELL_BLOCKED:
        return False
    return terrain_rule[cell_data[v, 0], 0] >= 0


@njit(cache=CACHE, nogil=True)
def _occupancy(v, occupant, params):
    """(may enter, may end) as far as the occupant of v is concerned."""
    occ = occupant[v]
    if occ < 0:
        if occ == OCC_WALL:
            return False, False
        return True, True
    mode = params[P_ALLY] if occ == params[P_TEAM] else params[P_ENEMY]
    if mode == BLOCK:
        return False, False
    return True, mode == PASS_END


@njit(cache=CACHE, nogil=True)
def _may_end(v, cell_data, occupant, qflags, params):
    if _cell_flags(v, cell_data, qflags) & CELL_NO_END:
        return False
    return _occupancy(v, occupant, params)[1]


@njit(cache=CACHE, nogil=True)
def _push(s, bucket, stopped, ws_heap, ws_bucket, ws_ctrl):
    """Queue state s. Dial mode: bucket ring + free list; BFS mode: append to a FIFO."""
    if ws_ctrl[3] == 1:
        tail = ws_ctrl[2]
        if tail >= ws_heap.shape[0]:
            return False
        ws_heap[tail, 0] = s
        ws_ctrl[2] = tail + 1
        return True
    slot = ws_ctrl[1]
    if slot < 0:
        return False
    ws_ctrl[1] = ws_heap[slot, 1]
    ws_heap[slot, 0] = s
    ws_heap[slot, 1] = ws_bucket[bucket, stopped]
    ws_bucket[bucket, stopped] = slot
    return True


@njit(cache=CACHE, nogil=True)
def _relax(u, pen, cost, tree_idx, v, step, edge_stop, n_pen, cell_data, terrain_rule,
           occupant, qflags, zoc, leave, enter_pen, params, ws_state, ws_heap, ws_bucket,
           ws_ctrl, gen):
    """Offer the arrival u -> v at ``cost + step``. Returns 1 pushed, 0 not, -1 queue full."""
    c = cost + step
    if c > params[P_BUDGET]:
        return 0
    may_enter, may_end = _occupancy(v, occupant, params)
    if not may_enter:
        return 0
    fl = _cell_flags(v, cell_data, qflags)
    stopped = edge_stop or (fl & CELL_STOP) != 0 or \
        (terrain_rule[cell_data[v, 0], 1] & TERRAIN_STOP) != 0
    if not stopped and zoc.shape[0] > 0 and (zoc[u] & zoc[v]) != 0:
        stopped = True
    if stopped and (not may_end or (fl & CELL_NO_END)):
        return 0  # an arrival that must end where it may not end is no move at all
    p = pen
    if n_pen > 1:
        if leave.shape[0] > 0:
            p += _popcount(leave[u] & ~leave[v]) * params[P_LEAVE_WEIGHT]
        if enter_pen.shape[0] > 0:
            p += enter_pen[v]
        if p > n_pen - 1:
            p = n_pen - 1
    base = (v * n_pen + p) * 2
    if stopped:
        free = base
        if ws_state[free, 0] == gen and ws_state[free, 1] <= c:
            return 0  # a free arrival at least as cheap exists: it wins
        s = base + 1
    else:
        s = base
    if ws_state[s, 0] == gen and ws_state[s, 1] <= c:
        return 0
    ws_state[s, 0] = gen
    ws_state[s, 1] = c
    ws_state[s, 2] = -1
    ws_state[s, 3] = tree_idx
    if not _push(s, c % params[P_N_BUCKETS], 1 if stopped else 0, ws_heap, ws_bucket,
                 ws_ctrl):
        return -1
    return 1


@njit(cache=CACHE, nogil=True)
def _expand(s, cost, tree_idx, nbr, link_ptr, link_data, cell_data, edges, diag_sides,
            terrain_rule, occupant, qflags, zoc, leave, enter_pen, params, ws_state,
            ws_heap, ws_bucket, ws_ctrl, gen):
    """Relax every step out of free state s. Returns pushes made, or -1 (queue full)."""
    n_pen = params[P_N_PEN]
    u = s // (2 * n_pen)
    pen = (s // 2) % n_pen
    K = nbr.shape[1]
    has_edges = edges.shape[0] > 0
    max_climb = params[P_MAX_CLIMB]
    cpl = params[P_CLIMB_PER_LEVEL]
    flat = params[P_CLIMB_FLAT]
    dpl = params[P_DESCEND_PER_LEVEL]
    hu = cell_data[u, 1]
    pushed = 0
    for d in range(K):
        v = nbr[u, d]
        if v < 0:
            continue
        tc = terrain_rule[cell_data[v, 0], 0]
        if tc < 0 or (_cell_flags(v, cell_data, qflags) & CELL_BLOCKED):
            continue
        edge_stop = False
        step = np.int64(tc)
        if has_edges:
            ef = edges[u, d, 1]
            if ef & EDGE_BLOCKED:
                continue
            edge_stop = (ef & EDGE_STOP) != 0
            step += edges[u, d, 0]
        if params[P_CORNER_CUT] == 0 and diag_sides[d, 0] >= 0:
            w1 = nbr[u, diag_sides[d, 0]]
            w2 = nbr[u, diag_sides[d, 1]]
            if w1 < 0 or w2 < 0 or not _can_stand(w1, cell_data, terrain_rule, qflags) \
                    or not _can_stand(w2, cell_data, terrain_rule, qflags):
                continue
        rise = np.int64(cell_data[v, 1] - hu)
        if rise > 0:
            if max_climb >= 0 and rise > max_climb:
                continue
            step += cpl * rise + flat
        elif rise < 0:
            step += dpl * (-rise)
        r = _relax(u, pen, cost, tree_idx, v, step, edge_stop, n_pen, cell_data,
                   terrain_rule, occupant, qflags, zoc, leave, enter_pen, params, ws_state,
                   ws_heap, ws_bucket, ws_ctrl, gen)
        if r < 0:
            return -1
        pushed += r
    mask = params[P_LINK_MASK]
    for li in range(link_ptr[u], link_ptr[u + 1]):
        if not (mask >> link_data[li, 2]) & 1:
            continue
        v = link_data[li, 0]
        if terrain_rule[cell_data[v, 0], 0] < 0 or \
                (_cell_flags(v, cell_data, qflags) & CELL_BLOCKED):
            continue
        r = _relax(u, pen, cost, tree_idx, v, np.int64(link_data[li, 1]), False, n_pen,
                   cell_data, terrain_rule, occupant, qflags, zoc, leave, enter_pen, params,
                   ws_state, ws_heap, ws_bucket, ws_ctrl, gen)
        if r < 0:
            return -1
        pushed += r
    return pushed


@njit(cache=CACHE, nogil=True)
def _settle(s, cost, n_pen, ws_state, tree, k):
    tree[k, 0] = s // (2 * n_pen)
    tree[k, 1] = cost
    tree[k, 2] = s % (2 * n_pen)  # pen * 2 + stopped
    tree[k, 3] = ws_state[s, 3]
    ws_state[s, 2] = k


@njit(cache=CACHE, nogil=True)
def _next_generation(ws_state, ws_cell, ws_ctrl):
    gen = ws_ctrl[0] + 1
    if gen >= 2147483647:  # stamps would wrap: one O(N) reset every 2**31 queries
        ws_state[:, 0] = 0
        ws_cell[:, 0] = 0
        gen = 1
    ws_ctrl[0] = gen
    return np.int32(gen)


@njit(cache=CACHE, nogil=True)
def _search(nbr, link_ptr, link_data, cell_data, edges, diag_sides, terrain_rule, occupant,
            qflags, zoc, leave, enter_pen, params, sources, ws_state, ws_heap, ws_bucket,
            ws_cell, ws_ctrl, tree):
    """Bucket-queue (Dial) Dijkstra. Returns the number of tree rows, or a status < 0."""
    gen = _next_generation(ws_state, ws_cell, ws_ctrl)
    n_pen = params[P_N_PEN]
    nb = params[P_N_BUCKETS]
    pending = 0
    for i in range(sources.shape[0]):
        s = sources[i] * n_pen * 2
        if ws_state[s, 0] == gen:
            continue
        ws_state[s, 0] = gen
        ws_state[s, 1] = 0
        ws_state[s, 2] = -1
        ws_state[s, 3] = -1
        if not _push(s, 0, 0, ws_heap, ws_bucket, ws_ctrl):
            return STATUS_QUEUE_FULL
        pending += 1
    k = 0
    cur = 0
    while pending > 0:
        b = cur % nb
        # Free arrivals first: they expand (zero-cost steps may refill this list) and
        # they win ties against stopped arrivals of the same cost.
        for stopped in range(2):
            while ws_bucket[b, stopped] >= 0:
                slot = ws_bucket[b, stopped]
                s = ws_heap[slot, 0]
                ws_bucket[b, stopped] = ws_heap[slot, 1]
                ws_heap[slot, 1] = ws_ctrl[1]
                ws_ctrl[1] = slot
                pending -= 1
                if ws_state[s, 1] != cur or ws_state[s, 2] >= 0:
                    continue  # stale entry
                if stopped:
                    free = s - 1
                    if ws_state[free, 0] == gen and ws_state[free, 1] <= cur:
                        continue  # a free arrival as cheap settled meanwhile
                    _settle(s, cur, n_pen, ws_state, tree, k)
                    k += 1
                else:
                    _settle(s, cur, n_pen, ws_state, tree, k)
                    k += 1
                    r = _expand(s, cur, k - 1, nbr, link_ptr, link_data, cell_data, edges,
                                diag_sides, terrain_rule, occupant, qflags, zoc, leave,
                                enter_pen, params, ws_state, ws_heap, ws_bucket, ws_ctrl,
                                gen)
                    if r < 0:
                        return STATUS_QUEUE_FULL
                    pending += r
        cur += 1
    return k


@njit(cache=CACHE, nogil=True)
def _search_unit(nbr, link_ptr, link_data, cell_data, edges, diag_sides, terrain_rule,
                 occupant, qflags, zoc, leave, enter_pen, params, sources, ws_state,
                 ws_heap, ws_bucket, ws_cell, ws_ctrl, tree):
    """Level-synchronous BFS for movers whose every step costs exactly 1.

    Same contract and output as ``_search``; the caller guarantees unit costs (terrain
    costs 1 or -1, no climb or edge costs, links of cost 1, penalties off). The same
    ``_expand``/``_relax`` rules apply; only the queue differs: ``ws_heap[:, 0]`` is a
    FIFO holding each level's free and stopped arrivals.
    """
    gen = _next_generation(ws_state, ws_cell, ws_ctrl)
    ws_ctrl[2] = 0
    ws_ctrl[3] = 1
    for i in range(sources.shape[0]):
        s = sources[i] * 2
        if ws_state[s, 0] == gen:
            continue
        ws_state[s, 0] = gen
        ws_state[s, 1] = 0
        ws_state[s, 2] = -1
        ws_state[s, 3] = -1
        _push(s, 0, 0, ws_heap, ws_bucket, ws_ctrl)
    head = 0
    k = 0
    cur = 0
    while head < ws_ctrl[2]:
        level_end = ws_ctrl[2]
        for i in range(head, level_end):  # free arrivals of this level: settle, expand
            s = ws_heap[i, 0]
            if s & 1:
                continue
            _settle(s, cur, 1, ws_state, tree, k)
            k += 1
            if _expand(s, cur, k - 1, nbr, link_ptr, link_data, cell_data, edges,
                       diag_sides, terrain_rule, occupant, qflags, zoc, leave, enter_pen,
                       params, ws_state, ws_heap, ws_bucket, ws_ctrl, gen) < 0:
                ws_ctrl[3] = 0
                return STATUS_QUEUE_FULL
        for i in range(head, level_end):  # then stopped ones no free arrival beat
            s = ws_heap[i, 0]
            if not s & 1:
                continue
            if ws_state[s - 1, 0] == gen and ws_state[s - 1, 1] <= cur:
                continue
            _settle(s, cur, 1, ws_state, tree, k)
            k += 1
        head = level_end
        cur += 1
    ws_ctrl[3] = 0
    return k


@njit(cache=CACHE, nogil=True)
def _emit_ends(tree, n_tree, cell_data, occupant, qflags, params, sources, ws_cell, gen,
               ends):
    """One row per cell where the figure may end, in cost order (see module doc)."""
    n = 0
    for i in range(sources.shape[0]):
        v = sources[i]
        ws_cell[v, 0] = -gen  # mark: a start is always an end, whoever stands there
    for t in range(n_tree):
        v = tree[t, 0]
        mark = ws_cell[v, 0]
        stopped = tree[t, 2] & 1
        pen = tree[t, 2] >> 1
        if mark == gen:
            e = ws_cell[v, 1]
            if pen < ends[e, 4]:
                ends[e, 4] = pen
                ends[e, 5] = tree[t, 1]
                ends[e, 6] = t
            if stopped == 0 and ends[e, 7] < 0:
                ends[e, 7] = tree[t, 1]
            continue
        if mark != -gen and not _may_end(v, cell_data, occupant, qflags, params):
            continue
        ws_cell[v, 0] = gen
        ws_cell[v, 1] = n
        ends[n, 0] = v
        ends[n, 1] = tree[t, 1]
        ends[n, 2] = stopped
        ends[n, 3] = t
        ends[n, 4] = pen
        ends[n, 5] = tree[t, 1]
        ends[n, 6] = t
        ends[n, 7] = -1 if stopped else tree[t, 1]
        n += 1
    return n


@njit(cache=CACHE, nogil=True)
def _run(nbr, link_ptr, link_data, cell_data, edges, diag_sides, terrain_rule, occupant,
         qflags, zoc, leave, enter_pen, params, sources, ws_state, ws_heap, ws_bucket,
         ws_cell, ws_ctrl, tree, ends):
    """Search, then list the ends. Returns the number of ends or a status < 0."""
    if params[P_UNIT] == 1:
        n_tree = _search_unit(nbr, link_ptr, link_data, cell_data, edges, diag_sides,
                              terrain_rule, occupant, qflags, zoc, leave, enter_pen, params,
                              sources, ws_state, ws_heap, ws_bucket, ws_cell, ws_ctrl, tree)
    else:
        n_tree = _search(nbr, link_ptr, link_data, cell_data, edges, diag_sides,
                         terrain_rule, occupant, qflags, zoc, leave, enter_pen, params,
                         sources, ws_state, ws_heap, ws_bucket, ws_cell, ws_ctrl, tree)
    if n_tree < 0:
        return n_tree
    ws_ctrl[4] = n_tree
    return _emit_ends(tree, n_tree, cell_data, occupant, qflags, params, sources, ws_cell,
                      np.int32(ws_ctrl[0]), ends)


@njit(types.int64(*_LAYERS, i32_1, i32_2, i32_2, i32_2, i32_2, i64_1, i32_2, i32_2),
      cache=CACHE, nogil=True)
def reach_query(nbr, link_ptr, link_data, cell_data, edges, diag_sides, terrain_rule,
                occupant, qflags, zoc, leave, enter_pen, params, sources, ws_state, ws_heap,
                ws_bucket, ws_cell, ws_ctrl, tree, ends):
    """One query: fills ``tree`` and ``ends``; returns the number of ends or a status.

    The number of tree rows is left in ``ws_ctrl[4]``.
    """
    return _run(nbr, link_ptr, link_data, cell_data, edges, diag_sides, terrain_rule,
                occupant, qflags, zoc, leave, enter_pen, params, sources, ws_state,
                ws_heap, ws_bucket, ws_cell, ws_ctrl, tree, ends)


@njit(types.int64(*_LAYERS, i32_1, types.int64[::1], i32_3, i32_3, i32_3, i32_3, i64_2,
                  i32_3, i32_3, i32_3, types.int64[::1], types.int64[::1]),
      cache=CACHE, nogil=True, parallel=True)
def reach_batch(nbr, link_ptr, link_data, cell_data, edges, diag_sides, terrain_rule,
                occupant, qflags, zoc, leave, enter_pen, params, starts, budgets, ws_state,
                ws_heap, ws_bucket, ws_cell, ws_ctrl, tree, ends, arena, counts, status):
    """Many single-start queries, ``prange`` over C chunks of consecutive queries.

    Chunk c owns workspace ``ws_*[c]`` and output rows ``arena[c]`` (cell, cost, stopped of
    each end, query after query); ``counts[q]`` receives the number of ends of query q and
    ``status[c]`` the chunk's status (0, or STATUS_ARENA_FULL / STATUS_QUEUE_FULL: grow
    and run again). ``budgets[q]`` replaces ``params[P_BUDGET]`` for query q.
    """
    n_chunks = ws_state.shape[0]
    n_q = starts.shape[0]
    cap = arena.shape[1]
    for c in prange(n_chunks):
        p = params.copy()
        lo = (n_q * c) // n_chunks
        hi = (n_q * (c + 1)) // n_chunks
        pos = 0
        status[c] = 0
        for q in range(lo, hi):
            p[P_BUDGET] = budgets[q]
            n = _run(nbr, link_ptr, link_data, cell_data, edges, diag_sides, terrain_rule,
                     occupant, qflags, zoc, leave, enter_pen, p, starts[q:q + 1],
                     ws_state[c], ws_heap[c], ws_bucket[c], ws_cell[c], ws_ctrl[c],
                     tree[c], ends[c])
            if n < 0:
                status[c] = n
                break
            if pos + n > cap:
                status[c] = STATUS_ARENA_FULL
                counts[q] = n
                break
            e = ends[c]
            a = arena[c]
            for i in range(n):
                a[pos + i, 0] = e[i, 0]
                a[pos + i, 1] = e[i, 1]
                a[pos + i, 2] = e[i, 2]
            pos += n
            counts[q] = n
    worst = 0
    for c in range(n_chunks):
        if status[c] < worst:
            worst = status[c]
    return worst


@njit(types.void(types.int64[::1], i32_3, types.int64, i32_1, i32_1, types.uint8[::1]),
      cache=CACHE, nogil=True)
def gather_batch(counts, arena, n_chunks, out_cells, out_costs, out_stopped):
    """Concatenate the chunk arenas of ``reach_batch`` in query order (CSR values)."""
    n_q = counts.shape[0]
    o = 0
    for c in range(n_chunks):
        lo = (n_q * c) // n_chunks
        hi = (n_q * (c + 1)) // n_chunks
        pos = 0
        for q in range(lo, hi):
            for i in range(counts[q]):
                out_cells[o] = arena[c, pos + i, 0]
                out_costs[o] = arena[c, pos + i, 1]
                out_stopped[o] = arena[c, pos + i, 2]
                o += 1
            pos += counts[q]


@njit(types.int64(*_LAYERS, i32_1, i32_2, i32_2, i32_2, i32_2, i64_1, i32_2, i32_1),
      cache=CACHE, nogil=True)
def field_query(nbr, link_ptr, link_data, cell_data, edges, diag_sides, terrain_rule,
                occupant, qflags, zoc, leave, enter_pen, params, sources, ws_state, ws_heap,
                ws_bucket, ws_cell, ws_ctrl, tree, dist):
    """Multi-source distance field: ``dist[v]`` = least cost of any arrival at v from the
    nearest source (-1 = not reached within the budget). Stopped arrivals count but are
    not expanded. ``dist`` must arrive filled with -1. Returns cells reached or a status.
    """
    if params[P_UNIT] == 1:
        n_tree = _search_unit(nbr, link_ptr, link_data, cell_data, edges, diag_sides,
                              terrain_rule, occupant, qflags, zoc, leave, enter_pen, params,
                              sources, ws_state, ws_heap, ws_bucket, ws_cell, ws_ctrl, tree)
    else:
        n_tree = _search(nbr, link_ptr, link_data, cell_data, edges, diag_sides,
                         terrain_rule, occupant, qflags, zoc, leave, enter_pen, params,
                         sources, ws_state, ws_heap, ws_bucket, ws_cell, ws_ctrl, tree)
    if n_tree < 0:
        return n_tree
    n = 0
    for t in range(n_tree):
        v = tree[t, 0]
        if dist[v] < 0:
            dist[v] = tree[t, 1]
            n += 1
    return n
