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
    ws_heap    int32[H, 2]     Dial: bucket entries (state, next), a free list threads the
                               unused ones; BFS: column 0 is the FIFO of states
    ws_bucket  int32[B, 2]     ring of buckets: (head of free arrivals, head of stopped)
    ws_cell    int32[N, 2]     (stamp, end index) used while listing ends
    ws_ctrl    int64[8]        [0] generation, [1] free-list head, [4] tree rows of the
                               last query

Outputs
    tree       int32[S, 4]     settled states in cost order: (cell, cost, pen*2+stopped,
                               parent tree index or -1); the search tree for paths
    ends       int32[N, 8]     one row per legal end, in cost order: (cell, cost, stopped,
                               tree index, least penalty, its cost, its tree index,
                               cost of the cheapest free arrival or -1)
"""
from __future__ import annotations

import functools
import types as pytypes

import numpy as np
from numba import njit, prange, types

from ._jit import NO_NRT, once
from ._types import (
    BLOCK, CACHE, CELL_BLOCKED, CELL_NO_END, CELL_STOP, EDGE_BLOCKED, EDGE_STOP, MAX_BUDGET,
    OCC_EMPTY, OCC_WALL, P_ALLY, P_BUDGET, P_CLIMB_FLAT, P_CLIMB_PER_LEVEL, P_CORNER_CUT,
    P_DESCEND_PER_LEVEL, P_ENEMY, P_HAS_OCC, P_LEAVE_WEIGHT, P_LINK_MASK, P_MAX_CLIMB,
    P_N_BUCKETS, P_N_PEN, P_TEAM, P_UNIT, PASS_END, STATUS_ARENA_FULL, STATUS_QUEUE_FULL,
    TERRAIN_STOP,
)

# Indices in the fast kernel's loop are cast to unsigned (``U``): Numba then skips the
# negative-index wrap-around test it emits on every signed index (~10% of the loop).
U = np.uint64
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


def _at_first_use(sig, **kw):
    """``njit(sig, **kw)``, compiled (or loaded from the cache) at the kernel's first call
    instead of at import: for the kernels only some programs call (batches, distance
    fields), so that the others (a solve, the demo) do not compile them on a cold cache.
    The same one signature and cache entry as an eager ``njit(sig)``; a call costs one
    Python call more (these kernels run once per batch or field). Two threads' first
    calls at once make one dispatcher (:func:`._jit.once`, whose lock a forked child
    gets afresh)."""
    def deco(fn):
        made = []
        build = once(lambda: njit(sig, **kw)(fn))

        @functools.wraps(fn)
        def kernel(*args):
            if not made:
                made[:] = [build()]     # (the same dispatcher whichever thread sets it)
            return made[0](*args)
        kernel.compiled = made      # ([the dispatcher] once compiled: tests, jit_audit)
        return kernel
    return deco


@njit(cache=CACHE, nogil=True)
def _popcount(x):
    n = 0
    while x:
        x &= x - np.uint64(1)
        n += 1
    return n


@njit(cache=CACHE, nogil=True)
def _next_generation(ws_state, ws_cell, ws_ctrl):
    gen = ws_ctrl[0] + 1
    if gen >= 2147483647:  # stamps would wrap: one O(N) reset every 2**31 queries
        ws_state[:, 0] = 0
        ws_cell[:, 0] = 0
        gen = 1
    ws_ctrl[0] = gen
    return np.int32(gen)


# The search is one function body on purpose: Numba refcounts every array passed to a
# helper on every call, which cost ~50x in the relaxation loop. Only scalar helpers here.
@njit(cache=CACHE, nogil=True)
def _search(nbr, link_ptr, link_data, cell_data, edges, diag_sides, terrain_rule, occupant,
            qflags, zoc, leave, enter_pen, params, sources, ws_state, ws_heap, ws_bucket,
            ws_cell, ws_ctrl, tree):
    """Budget-bounded search. Returns the number of tree rows, or a status < 0.

    ``params[P_UNIT] == 0``: bucket-queue (Dial) Dijkstra over a ring of
    ``params[P_N_BUCKETS]`` buckets, each with a list of free and of stopped arrivals.
    ``params[P_UNIT] == 1``: level-synchronous BFS (every step costs 1), the queue a FIFO
    in ``ws_heap[:, 0]``. Either way, states settle in cost order, free arrivals before
    stopped ones of the same cost; a stopped arrival is never expanded and is dropped
    when a free arrival at most as dear exists for the same (cell, penalty).
    """
    gen = _next_generation(ws_state, ws_cell, ws_ctrl)
    unit = params[P_UNIT] == 1
    n_pen = params[P_N_PEN]
    nb = params[P_N_BUCKETS]
    budget = params[P_BUDGET]
    team = params[P_TEAM]
    ally_mode = params[P_ALLY]
    enemy_mode = params[P_ENEMY]
    max_climb = params[P_MAX_CLIMB]
    cpl = params[P_CLIMB_PER_LEVEL]
    flat = params[P_CLIMB_FLAT]
    dpl = params[P_DESCEND_PER_LEVEL]
    link_mask = params[P_LINK_MASK]
    leave_w = params[P_LEAVE_WEIGHT]
    no_corner_cut = params[P_CORNER_CUT] == 0
    K = nbr.shape[1]
    has_edges = edges.shape[0] > 0
    has_q = qflags.shape[0] > 0
    has_zoc = zoc.shape[0] > 0
    has_leave = leave.shape[0] > 0
    has_pen = enter_pen.shape[0] > 0
    cap = ws_heap.shape[0]

    # queue state: Dial uses (cur, phase, pending, free-list in ws_ctrl[1]);
    # BFS uses (head, level_end, tail, phase, i).
    tail = 0
    pending = 0
    for i in range(sources.shape[0]):
        s0 = sources[i] * n_pen * 2
        if ws_state[s0, 0] == gen:
            continue
        ws_state[s0, 0] = gen
        ws_state[s0, 1] = 0
        ws_state[s0, 2] = -1
        ws_state[s0, 3] = -1
        if unit:
            ws_heap[tail, 0] = s0
            tail += 1
        else:
            slot = ws_ctrl[1]
            if slot < 0:
                return STATUS_QUEUE_FULL
            ws_ctrl[1] = ws_heap[slot, 1]
            ws_heap[slot, 0] = s0
            ws_heap[slot, 1] = ws_bucket[0, 0]
            ws_bucket[0, 0] = slot
            pending += 1
    cur = 0
    phase = 0
    head = 0
    level_end = tail
    scan = 0
    k = 0
    while True:
        # ---------------------------------------------- pick the next state to settle
        s = -1
        if unit:
            while True:
                if scan < level_end:
                    cand = ws_heap[scan, 0]
                    scan += 1
                    if (cand & 1) == phase:
                        s = cand
                        break
                    continue
                if phase == 0:
                    phase = 1
                    scan = head
                    continue
                if level_end == tail:
                    break
                head = level_end
                level_end = tail
                scan = head
                phase = 0
                cur += 1
            if s < 0:
                break
        else:
            while pending > 0:
                b = cur % nb
                slot = ws_bucket[b, phase]
                if slot < 0:
                    if phase == 0:
                        phase = 1
                    else:
                        phase = 0
                        cur += 1
                    continue
                cand = ws_heap[slot, 0]
                ws_bucket[b, phase] = ws_heap[slot, 1]
                ws_heap[slot, 1] = ws_ctrl[1]
                ws_ctrl[1] = slot
                pending -= 1
                if ws_state[cand, 1] != cur or ws_state[cand, 2] >= 0:
                    continue  # stale entry
                s = cand
                break
            if s < 0:
                break
        stopped_s = s & 1
        if stopped_s and ws_state[s - 1, 0] == gen and ws_state[s - 1, 1] <= cur:
            continue  # a free arrival at most as dear settled: it wins
        # ---------------------------------------------- settle
        u = s // (2 * n_pen)
        pen = (s // 2) % n_pen
        tree[k, 0] = u
        tree[k, 1] = cur
        tree[k, 2] = s % (2 * n_pen)
        tree[k, 3] = ws_state[s, 3]
        ws_state[s, 2] = k
        parent_row = k
        k += 1
        if stopped_s:
            continue
        # ---------------------------------------------- expand: K steps, then links
        hu = cell_data[u, 1]
        lp = link_ptr[u]
        n_moves = K + link_ptr[u + 1] - lp
        for j in range(n_moves):
            if j < K:
                v = nbr[u, j]
                if v < 0:
                    continue
                tc = terrain_rule[cell_data[v, 0], 0]
                if tc < 0:
                    continue
                fl = cell_data[v, 2]
                if has_q:
                    fl |= qflags[v]
                if fl & CELL_BLOCKED:
                    continue
                edge_stop = False
                step = np.int64(tc)
                if has_edges:
                    ef = edges[u, j, 1]
                    if ef & EDGE_BLOCKED:
                        continue
                    edge_stop = (ef & EDGE_STOP) != 0
                    step += edges[u, j, 0]
                if no_corner_cut and diag_sides[j, 0] >= 0:
                    ok = True
                    for side in range(2):
                        w = nbr[u, diag_sides[j, side]]
                        if w < 0 or terrain_rule[cell_data[w, 0], 0] < 0:
                            ok = False
                        else:
                            wf = cell_data[w, 2]
                            if has_q:
                                wf |= qflags[w]
                            if wf & CELL_BLOCKED:
                                ok = False
                    if not ok:
                        continue
                rise = np.int64(cell_data[v, 1] - hu)
                if rise > 0:
                    if max_climb >= 0 and rise > max_climb:
                        continue
                    step += cpl * rise + flat
                elif rise < 0:
                    step += dpl * (-rise)
            else:
                li = lp + j - K
                if not (link_mask >> link_data[li, 2]) & 1:
                    continue
                v = link_data[li, 0]
                if terrain_rule[cell_data[v, 0], 0] < 0:
                    continue
                fl = cell_data[v, 2]
                if has_q:
                    fl |= qflags[v]
                if fl & CELL_BLOCKED:
                    continue
                edge_stop = False
                step = np.int64(link_data[li, 1])
            # -------------------------------------------- relax the arrival at v
            c = cur + step
            if c > budget:
                continue
            occ = occupant[v]
            may_end = True
            if occ >= 0:
                mode = ally_mode if occ == team else enemy_mode
                if mode == BLOCK:
                    continue
                may_end = mode == PASS_END
            elif occ == OCC_WALL:
                continue
            stopped = edge_stop or (fl & CELL_STOP) != 0 or \
                (terrain_rule[cell_data[v, 0], 1] & TERRAIN_STOP) != 0
            if not stopped and has_zoc and (zoc[u] & zoc[v]) != 0:
                stopped = True
            if stopped and (not may_end or (fl & CELL_NO_END)):
                continue  # must end where it may not end: no move at all
            p = pen
            if n_pen > 1:
                if has_leave:
                    p += _popcount(leave[u] & ~leave[v]) * leave_w
                if has_pen:
                    p += enter_pen[v]
                if p > n_pen - 1:
                    p = n_pen - 1
            t = (v * n_pen + p) * 2
            if stopped:
                if ws_state[t, 0] == gen and ws_state[t, 1] <= c:
                    continue  # a free arrival at most as dear exists: it wins
                t += 1
            if ws_state[t, 0] == gen and ws_state[t, 1] <= c:
                continue
            ws_state[t, 0] = gen
            ws_state[t, 1] = c
            ws_state[t, 2] = -1
            ws_state[t, 3] = parent_row
            if unit:
                if tail >= cap:
                    return STATUS_QUEUE_FULL
                ws_heap[tail, 0] = t
                tail += 1
            else:
                slot = ws_ctrl[1]
                if slot < 0:
                    return STATUS_QUEUE_FULL
                ws_ctrl[1] = ws_heap[slot, 1]
                ws_heap[slot, 0] = t
                st = 1 if stopped else 0
                b2 = c % nb
                ws_heap[slot, 1] = ws_bucket[b2, st]
                ws_bucket[b2, st] = slot
                pending += 1
    return k


@njit(cache=CACHE, nogil=True)
def _emit_ends(tree, n_tree, cell_data, occupant, qflags, params, sources, ws_cell, gen,
               ends):
    """One row per cell where the figure may end, in cost order (see module doc)."""
    team = params[P_TEAM]
    ally_mode = params[P_ALLY]
    enemy_mode = params[P_ENEMY]
    has_q = qflags.shape[0] > 0
    n = 0
    for i in range(sources.shape[0]):
        ws_cell[sources[i], 0] = -gen  # a start is always an end, whoever stands there
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
        if mark != -gen:
            fl = cell_data[v, 2]
            if has_q:
                fl |= qflags[v]
            if fl & CELL_NO_END:
                continue
            occ = occupant[v]
            if occ == OCC_WALL:
                continue
            if occ >= 0:
                mode = ally_mode if occ == team else enemy_mode
                if mode != PASS_END:
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
    n_tree = _search(nbr, link_ptr, link_data, cell_data, edges, diag_sides, terrain_rule,
                     occupant, qflags, zoc, leave, enter_pen, params, sources, ws_state,
                     ws_heap, ws_bucket, ws_cell, ws_ctrl, tree)
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


@_at_first_use(types.int64(*_LAYERS, i32_1, types.int64[::1], i32_3, i32_3, i32_3, i32_3,
                           i64_2, i32_3, i32_3, i32_3, types.int64[::1], types.int64[::1]),
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


@_at_first_use(types.void(types.int64[::1], i32_3, types.int64, i32_1, i32_1,
                          types.uint8[::1]), cache=CACHE, nogil=True)
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


@_at_first_use(types.int64(*_LAYERS, i32_1, i32_2, i32_2, i32_2, i32_2, i64_1, i32_2,
                           i32_1), cache=CACHE, nogil=True)
def field_query(nbr, link_ptr, link_data, cell_data, edges, diag_sides, terrain_rule,
                occupant, qflags, zoc, leave, enter_pen, params, sources, ws_state, ws_heap,
                ws_bucket, ws_cell, ws_ctrl, tree, dist):
    """Multi-source distance field: ``dist[v]`` = least cost of any arrival at v from the
    nearest source (-1 = not reached within the budget). Stopped arrivals count but are
    not expanded. ``dist`` must arrive filled with -1. Returns cells reached or a status.
    """
    n_tree = _search(nbr, link_ptr, link_data, cell_data, edges, diag_sides, terrain_rule,
                     occupant, qflags, zoc, leave, enter_pen, params, sources, ws_state,
                     ws_heap, ws_bucket, ws_cell, ws_ctrl, tree)
    if n_tree < 0:
        return n_tree
    n = 0
    for t in range(n_tree):
        v = tree[t, 0]
        if dist[v] < 0:
            dist[v] = tree[t, 1]
            n += 1
    return n


# ============================================================================ fast path
# (Queries with penalties run ``reach_pen`` in ``reach_pen.py``: this design plus the
# penalty dimension, compiled on the first penalty query.)
# Queries without penalties (n_pen == 1: the common case) run ``reach1``: one function
# body, few arguments (dispatch costs ~0.05 us per array argument), bucket stacks instead
# of a linked list. Same labels, same settle order (LIFO within a bucket for Dial, FIFO
# for unit costs) and same outputs as ``_run``.
#
# It is compiled twice from one source (``_make_reach1``): ``reach1_general`` for every
# query, and ``reach1_plain`` where the query cannot stop anywhere and has no per-query
# cell flags, zones of control, side edges, corner rule or links (``is_plain``). In the
# plain build those features are the constant False, so LLVM drops their tests from the
# inner loop, and with them the second (stopped) stack of every bucket and the link loop
# (which, merely present, cost 7-25% of a query: docs/performance_log.md).
#
# Two ways to report, one search:
#   ends mode  the ends (cell, cost, stopped) are written to ``ends[:, pos..]`` as they
#              settle (the first settled arrival at a cell is its end: cost order, free
#              first on ties); no search tree. One query, or many in a row (a batch).
#   tree mode  one query; its search tree and its ends (with the least free cost of each)
#              go to ``buf``'s out block, for paths and for the stopped/free detail.
# Both list the same ends in the same order.
#
# ``blob`` int32: the board and mover, packed once (see ``core/reach.py: _pack``):
#     [0] N  [1] K  [2] L links  [3] T terrains  [4] edge rows (0 or N)
#     [5..12] offsets of nbr[N,K], link_ptr[N+1], link_data[L,3], cell_data[N,3],
#             edges[E,K,2], diag_sides[K,2], terrain_rule[T,2], cinfo[N,4]
#     [13] 1 if some cell stops a move (terrain or board flag), else 0
#     [14] 1 if the cells are not all of one height, else 0
#     cinfo: per cell, for this mover (one load instead of four dependent ones): entry
#     cost (-1: impassable terrain or CELL_BLOCKED), board flags | CELL_STOP when the
#     terrain stops, height, terrain id
# ``buf`` int32: the workspace of one thread (see ``fast_layout_size``):
#     [0] generation  [1] tree rows k of the last query  [2] bucket stride (buckets
#     allocated, >= params[P_N_BUCKETS]); then state[2N,2] (stamp, cost) of state
#     s = v for a free arrival at cell v and N + v for a stopped one (the free ones
#     side by side: a plain query never stops, and touches half the lines), parent[2N]
#     (+2N spare), cell[N,2], stack[nbA*2, N], count[nbA*2], out[2N*4 + 8N]: the
#     query's tree[k, 4], then its ends[8, n] column-major (one contiguous row per
#     field), so that one copy of out[:4k + 8n] returns both.
# ``params`` int64[N_PARAMS]: as for ``_search`` (read only: shared by threads);
#     ``P_BUDGET`` is not read: each query brings its own budget.
HDR = 16
H_ANY_STOP = 13
H_HILLY = 14
H_PLAIN = 15   # offset of the plain section (``reach_plain_k``), 0 = none
CTRL = 8

# The plain section of ``blob`` (appended by ``_pack``): [0] PL_* bits, then one word per
# cell with a pad word in front (cell -1, "no neighbour", reads the pad): entry cost in
# the low 16 bits (0xFFFF = cannot enter), height above the board's lowest in the high 16.
PL_OK = 1      # every entry cost < 0xFFFF and every height span < 2**15
PL_NO_END = 2  # some enterable cell may not be ended on
PL_BLOCKED = 0xFFFF


def _reach1_size(n, nb_alloc):
    return CTRL + 2 * n * 4 + n * 2 + nb_alloc * 2 * n + nb_alloc * 2 + 2 * n * 4 + 8 * n


def reach1_out_block(n: int, nb_alloc: int) -> int:
    """Where ``reach1``'s out block starts in its ``buf`` (``buf[2]`` = ``nb_alloc``):
    in tree mode (ends of no columns) the settled states' tree rows, ``(cell, cost,
    stopped, parent row)`` each, ``buf[1]`` of them; ``reach1_one``'s ends. (The compiled
    code works the same offset out in place: ``o_out``.)"""
    return CTRL + 2 * n * 4 + n * 2 + nb_alloc * 2 * n + nb_alloc * 2


def fast_layout_size(n, nb_alloc):
    """int32 words of a ``reach1`` workspace for N cells and nb_alloc buckets (then the
    region of ``reach_plain_k``: base, dist[N], heads[nb_alloc], pool[2 * (8N + 1)])."""
    return _reach1_size(n, nb_alloc) + CTRL + n + nb_alloc + 2 * (8 * n + 1)


# No reference counting (``NO_NRT``: Numba's private ``_nrt=False`` where this Numba
# takes it, ``kernels/_jit.py``) here and on ``reach1``: compiled with reference counting,
# a function increments the reference count of every array argument on entry
# and decrements it on return (a call and an atomic instruction each, which Numba's
# pruning leaves in place), and the compiled steps call these once per query: 8 pairs
# per ``reach1`` call, 4 per ``is_plain``. They allocate nothing and keep no array, so
# they need none (docs/performance_log.md, "The vector env's step ... reference counts").
@njit(types.boolean(i32_1, u8_1, u64_1, i64_1), cache=CACHE, nogil=True, **NO_NRT)
def is_plain(blob, qflags, zoc, params):
    """True when ``reach1_plain`` gives the same answer as ``reach1_general``."""
    K = np.int64(blob[1])
    last_diag = blob[blob[10] + 2 * (K - 1)] if K > 0 else -1
    corner = params[P_CORNER_CUT] == 0 and last_diag >= 0
    return not (qflags.shape[0] > 0 or zoc.shape[0] > 0 or blob[4] > 0 or blob[H_ANY_STOP] != 0
                or corner or blob[2] > 0)


# ------------------------------------------------ parts of the step rule, written once
# ``reach1`` (both builds) and ``reach_pen`` share these. Scalars only, on purpose: an
# ``inline="always"`` helper handed an array makes Numba reference-count that array at
# every call, in the inner loop (atomic: measured 2-8x slower queries when the whole step,
# reading ``blob``, was one such helper); with scalars the inlined code is the same.
@njit(inline="always")
def _climb(step, rise, per_level_only, cpl, flat, dpl, max_up):
    """(allowed, step cost) of a step of cost ``step`` that rises ``rise`` levels
    (negative: drops): ``cpl`` per level up, ``flat`` once for any climb, ``dpl`` per
    level down, at most ``max_up`` levels up. Without branches on the sign of the rise
    (it is data: an unpredictable branch cost more than the arithmetic)."""
    up = max(rise, 0)
    if per_level_only:
        return True, step + cpl * up
    if up > max_up:
        return False, step
    return True, step + cpl * up + (flat if up > 0 else 0) + dpl * max(-rise, 0)


@njit(inline="always")
def _occupant_rule(occ, team, ally_mode, enemy_mode):
    """(may pass, may end) at a cell whose occupant code is ``occ``: an empty cell both,
    a wall neither, an ally or an enemy by the mover's mode for them."""
    if occ == OCC_EMPTY:
        return True, True
    if occ == OCC_WALL:
        return False, False
    mode = ally_mode if occ == team else enemy_mode
    return mode != BLOCK, mode == PASS_END


def _variant_jit(tag, *args, **kw):
    """``njit(*args, **kw)`` for one variant that a factory builds, under a qualname of
    its own (``<qualname>_<tag>``). Numba keeps the cached builds of one qualname in one
    index file, and variants sharing it race when processes compile different ones at
    once (self-play workers, a test's subprocess on a cold cache): each takes the next
    free data file, one overwrites the other's, and the index then maps a variant to
    another's code: a silently wrong answer, found in this project. One index file per
    variant keeps them apart (processes compiling the same variant write the same file)."""
    def jit(fn):
        fn.__qualname__ = f"{fn.__qualname__}_{tag}"
        return njit(*args, **kw)(fn)
    return jit


def _make_reach1(GENERAL):
    """Build ``reach1`` for every query (GENERAL) or for plain ones (see ``is_plain``)."""

    @_variant_jit("general" if GENERAL else "plain", types.int64(
        i32_1, i32_1, u8_1, u64_1, i64_1, i32_1, i32_2, i64_2, types.int64, types.int64),
        cache=CACHE, nogil=True, **NO_NRT)
    def reach1(blob, occupant, qflags, zoc, params, buf, ends, queries, start, budget):
        """Single-start queries without penalties.

        ``queries`` int64[Q, 3]: rows (start, budget, ends out); with no rows, the one
        query (``start``, ``budget``). Ends mode (``ends`` int32[3, R], R > 0): the ends
        of query after query at columns 0.. of ``ends`` (cell, cost, stopped rows);
        returns the number of columns written. Tree mode (R == 0, one query): returns
        ``n | (k << 32)`` for n ends and k tree rows (also ``buf[1]``), both in ``buf``'s
        out block. Negative: a STATUS_* (STATUS_ARENA_FULL: ``ends`` is too small; the
        overflowing query's count is set to R, so that a retry at least doubles).
        """
        N = np.int64(blob[0])
        K = np.int64(blob[1])
        L = np.int64(blob[2])
        E = np.int64(blob[4])
        # Flat offsets, not array views: each view costs Numba ~20 ns to make (a
        # reference count and a shape), which is felt on a query of a few microseconds.
        o_nbr = np.int64(blob[5])     # nbr[v, j]            blob[o_nbr + K * v + j]
        o_lptr = np.int64(blob[6])    # link_ptr[v]          blob[o_lptr + v]
        o_link = np.int64(blob[7])    # link_data[l, f]      blob[o_link + 3 * l + f]
        o_edge = np.int64(blob[9])    # edges[v, j, f]       blob[o_edge + 2*(K*v + j) + f]
        o_diag = np.int64(blob[10])   # diag_sides[j, f]     blob[o_diag + 2 * j + f]
        o_cell = np.int64(blob[12])   # cinfo[v, f]          blob[o_cell + 4 * v + f]
        S = 2 * N
        nbA = np.int64(buf[2])
        o_state = np.int64(CTRL)      # (stamp, cost) of s   buf[o_state + 2 * s + f]
        o_par = o_state + S * 2       # parent tree row      buf[o_par + s]
        o_wcell = o_state + S * 4     # (stamp, end) of v    buf[o_wcell + 2 * v + f]
        o_stack = o_wcell + N * 2     # stack of bucket-phase bp: buf[o_stack + N * bp + i]
        o_count = o_stack + nbA * 2 * N  # its size        buf[o_count + bp]
        o_out = o_count + nbA * 2     # tree[k, f]           buf[o_out + 4 * k + f]
        cap = ends.shape[1]
        tree_mode = cap == 0

        fifo = params[P_UNIT] == 1
        nb_top = params[P_N_BUCKETS]
        team = params[P_TEAM]
        ally_mode = params[P_ALLY]
        enemy_mode = params[P_ENEMY]
        has_occ = params[P_HAS_OCC] != 0
        max_climb = params[P_MAX_CLIMB]
        max_up = max_climb if max_climb >= 0 else MAX_BUDGET
        cpl = params[P_CLIMB_PER_LEVEL]
        flat = params[P_CLIMB_FLAT]
        dpl = params[P_DESCEND_PER_LEVEL]
        link_mask = params[P_LINK_MASK]
        climbs = blob[H_HILLY] != 0 and (cpl != 0 or flat != 0 or dpl != 0 or max_climb >= 0)
        # the common rule "pay per level climbed" alone (no flat charge, descent or limit)
        per_level_only = flat == 0 and dpl == 0 and max_climb < 0
        # In the plain build these are the constant False and their tests vanish.
        check_corner = GENERAL and params[P_CORNER_CUT] == 0 and K > 0 and \
            blob[o_diag + 2 * (K - 1)] >= 0
        has_edges = GENERAL and E > 0
        has_q = GENERAL and qflags.shape[0] > 0
        has_zoc = GENERAL and zoc.shape[0] > 0
        has_links = GENERAL and L > 0

        n_q = queries.shape[0]
        pos = np.int64(0)
        k = 0
        src = start
        for qi in range(max(n_q, 1)):
            src, bud = (queries[qi, 0], queries[qi, 1]) if n_q > 0 else (start, budget)
            nb = min(nb_top - 1, bud) + 1  # steps dearer than the budget never queue
            pos0 = pos
            gen = buf[0] + 1
            if gen >= 2147483647:  # stamps would wrap: one O(N) reset every 2**31 queries
                for i in range(S):
                    buf[o_state + 2 * i] = 0
                for i in range(N):
                    buf[o_wcell + 2 * i] = 0
                gen = 1
            buf[0] = gen

            for i in range(2 * nb):  # here, not at the end: a query may stop early
                buf[o_count + i] = 0
            s0 = src
            buf[o_state + 2 * s0] = gen
            buf[o_state + 2 * s0 + 1] = 0
            buf[o_par + s0] = -1
            buf[o_stack] = s0
            buf[o_count] = 1
            pending = 1
            cur = 0
            b = 0
            phase = 0
            rd = 0  # FIFO read position in the current (bucket, phase)
            k = 0
            while pending > 0:
                # ---------------------------------------- pick the next state to settle
                bp = 2 * b + phase
                n_in = buf[U(o_count + bp)]
                if fifo:
                    if rd >= n_in:
                        buf[U(o_count + bp)] = 0
                        rd = 0
                        if GENERAL and phase == 0:
                            phase = 1
                        else:
                            phase = 0
                            cur += 1
                            b += 1
                            if b == nb:
                                b = 0
                        continue
                    s = buf[U(o_stack + N * bp + rd)]
                    rd += 1
                else:
                    if n_in == 0:
                        if GENERAL and phase == 0:
                            phase = 1
                        else:
                            phase = 0
                            cur += 1
                            b += 1
                            if b == nb:
                                b = 0
                        continue
                    n_in -= 1
                    buf[U(o_count + bp)] = n_in
                    s = buf[U(o_stack + N * bp + n_in)]
                pending -= 1
                if buf[U(o_state + 2 * s + 1)] != cur:
                    continue  # stale entry (a state is pushed at most once per cost:
                    # pushes strictly improve it, so no settled marker is needed)
                stopped_s = (1 if s >= N else 0) if GENERAL else 0
                if GENERAL and stopped_s and buf[U(o_state + 2 * (s - N))] == gen and \
                        buf[U(o_state + 2 * (s - N) + 1)] <= cur:
                    continue  # a free arrival at most as dear settled: it wins
                # ---------------------------------------- settle
                u = s - N if GENERAL and stopped_s else s
                if tree_mode:
                    buf[U(o_out + 4 * k)] = u
                    buf[U(o_out + 4 * k + 1)] = cur
                    buf[U(o_out + 4 * k + 2)] = stopped_s
                    buf[U(o_out + 4 * k + 3)] = buf[U(o_par + s)]
                # Ends mode: the first settled arrival at a cell is its end; whether a
                # cell may be an end does not change within a query. Without stopped
                # states (plain build) every settle is a cell's first.
                elif not GENERAL or buf[U(o_wcell + 2 * u)] != gen:
                    if GENERAL:
                        buf[U(o_wcell + 2 * u)] = gen
                    endable = True
                    if u != src:  # a start is always an end, whoever stands there
                        fl = blob[U(o_cell + 4 * u + 1)]
                        if has_q:
                            fl |= qflags[U(u)]
                        if fl & CELL_NO_END:
                            endable = False
                        elif has_occ:
                            endable = _occupant_rule(occupant[U(u)], team, ally_mode,
                                                     enemy_mode)[1]
                    if endable:
                        if pos >= cap:
                            queries[qi, 2] = cap
                            return STATUS_ARENA_FULL
                        ends[0, U(pos)] = u
                        ends[1, U(pos)] = cur
                        if GENERAL:  # (a plain query never stops: its stopped
                            ends[2, U(pos)] = stopped_s  # row is not written)
                        pos += 1
                parent_row = k
                k += 1
                if GENERAL and stopped_s:
                    continue
                # ---------------------------------------- expand: K steps, then links
                hu = blob[U(o_cell + 4 * u + 2)]
                lp = blob[U(o_lptr + u)]
                n_moves = K + blob[U(o_lptr + u + 1)] - lp if has_links else K
                for j in range(n_moves):
                    if not has_links or j < K:  # (spelled out: LLVM does not prove it)
                        v = blob[U(o_nbr + K * u + j)]
                        if v < 0:
                            continue
                        tc = blob[U(o_cell + 4 * v)]
                        if tc < 0:
                            continue
                        fl = blob[U(o_cell + 4 * v + 1)]
                        if has_q:
                            fl |= qflags[U(v)]
                            if fl & CELL_BLOCKED:
                                continue
                        edge_stop = False
                        step = np.int64(tc)
                        if has_edges:
                            ef = blob[U(o_edge + 2 * (K * u + j) + 1)]
                            if ef & EDGE_BLOCKED:
                                continue
                            edge_stop = (ef & EDGE_STOP) != 0
                            step += blob[U(o_edge + 2 * (K * u + j))]
                        if check_corner and blob[U(o_diag + 2 * j)] >= 0:
                            ok = True
                            for side in range(2):
                                w = blob[U(o_nbr + K * u + blob[U(o_diag + 2 * j + side)])]
                                if w < 0 or blob[U(o_cell + 4 * w)] < 0:
                                    ok = False
                                elif has_q and (qflags[U(w)] & CELL_BLOCKED):
                                    ok = False
                            if not ok:
                                continue
                        # climbing (on a flat board, or for a mover heights do not
                        # affect, none)
                        if climbs:
                            ok, step = _climb(step, np.int64(blob[U(o_cell + 4 * v + 2)] - hu),
                                              per_level_only, cpl, flat, dpl, max_up)
                            if not ok:
                                continue
                    else:
                        li = lp + j - K
                        if not (link_mask >> blob[U(o_link + 3 * li + 2)]) & 1:
                            continue
                        v = blob[U(o_link + 3 * li)]
                        if blob[U(o_cell + 4 * v)] < 0:
                            continue
                        fl = blob[U(o_cell + 4 * v + 1)]
                        if has_q:
                            fl |= qflags[U(v)]
                            if fl & CELL_BLOCKED:
                                continue
                        edge_stop = False
                        step = np.int64(blob[U(o_link + 3 * li + 1)])
                    # ------------------------------------ relax the arrival at v
                    c = cur + step
                    if c > bud:
                        continue
                    may_end = True
                    if has_occ:
                        may_pass, may_end = _occupant_rule(occupant[U(v)], team, ally_mode,
                                                           enemy_mode)
                        if not may_pass:
                            continue
                    t = v
                    stopped = False
                    if GENERAL:
                        stopped = edge_stop or (fl & CELL_STOP) != 0
                        if not stopped and has_zoc and (zoc[U(u)] & zoc[U(v)]) != 0:
                            stopped = True
                        if stopped:
                            if not may_end or (fl & CELL_NO_END):
                                continue  # must end where it may not end: no move at all
                            if buf[U(o_state + 2 * t)] == gen and \
                                    buf[U(o_state + 2 * t + 1)] <= c:
                                continue  # a free arrival at most as dear exists: it wins
                            t += N
                    if buf[U(o_state + 2 * t)] == gen and \
                            buf[U(o_state + 2 * t + 1)] <= c:
                        continue
                    buf[U(o_state + 2 * t)] = gen
                    buf[U(o_state + 2 * t + 1)] = c
                    if tree_mode:
                        buf[U(o_par + t)] = parent_row
                    b2 = b + step
                    if b2 >= nb:
                        b2 -= nb
                    bp2 = 2 * b2 + (1 if stopped else 0)
                    n2 = buf[U(o_count + bp2)]
                    if n2 >= N:
                        buf[1] = k
                        return STATUS_QUEUE_FULL  # cannot happen (one entry per state
                        # and bucket)
                    buf[U(o_stack + N * bp2 + n2)] = t
                    buf[U(o_count + bp2)] = n2 + 1
                    pending += 1
            if n_q > 0:
                queries[qi, 2] = pos - pos0
        buf[1] = k
        if not tree_mode:
            return pos
        # ------------------------------------------------ tree mode: the ends
        cinfo = blob[o_cell:o_cell + N * 4].reshape((N, 4))
        ws_cell = buf[o_wcell:o_wcell + N * 2].reshape((N, 2))
        tree = buf[o_out:o_out + S * 4].reshape((S, 4))
        rows = buf[o_stack:o_stack + 8 * N].reshape((N, 8))  # ends, row-major (stacks
        # are free now)
        gen = buf[0]
        n = 0
        ws_cell[src, 0] = -gen  # a start is always an end, whoever stands there
        for r in range(k):
            v = tree[r, 0]
            mark = ws_cell[v, 0]
            stopped_r = tree[r, 2]
            if mark == gen:
                e = ws_cell[v, 1]
                if stopped_r == 0 and rows[e, 7] < 0:
                    rows[e, 7] = tree[r, 1]
                continue
            if mark != -gen:
                fl = cinfo[v, 1]
                if has_q:
                    fl |= qflags[v]
                if fl & CELL_NO_END:
                    continue
                occ = occupant[v]
                if occ == OCC_WALL:
                    continue
                if occ >= 0:
                    mode = ally_mode if occ == team else enemy_mode
                    if mode != PASS_END:
                        continue
            ws_cell[v, 0] = gen
            ws_cell[v, 1] = n
            rows[n, 0] = v
            rows[n, 1] = tree[r, 1]
            rows[n, 2] = stopped_r
            rows[n, 3] = r
            rows[n, 4] = 0
            rows[n, 5] = tree[r, 1]
            rows[n, 6] = r
            rows[n, 7] = -1 if stopped_r else tree[r, 1]
            n += 1
        base = o_out + 4 * k
        for f in range(8):
            for i in range(n):
                buf[base + f * n + i] = rows[i, f]
        return n | (k << 32)

    return reach1


reach1_general = _make_reach1(True)
reach1_plain = _make_reach1(False)


def _make_reach1_one(GENERAL):
    """``reach1_one`` over ``reach1_general`` (GENERAL) or ``reach1_plain``. They are
    named as module globals, not captured: Numba's cache key hashes a closure's values,
    and a captured dispatcher pickles differently in every process (a cache miss and a
    5 s compile at each import)."""

    @_variant_jit("general" if GENERAL else "plain",
                  types.int64(i32_1, i64_1, i32_1, types.int64, types.int64), cache=CACHE,
                  nogil=True)
    def reach1_one(blob, params, buf, start, budget):
        """One query in ends mode, with 5 arguments instead of 10 (each costs the caller
        ~0.05 us): for a query without per-query layers and with nobody on the board
        (``params[P_HAS_OCC] == 0``), whose occupant, cell flags and zones are then never
        read. Its ends go to the start of ``buf``'s out block as cells[n], costs[n],
        stopped[n], one after another (one contiguous copy returns them); returns n."""
        N = np.int64(blob[0])
        o_out = np.int64(CTRL + 2 * N * 4 + N * 2 + buf[2] * 2 * N + buf[2] * 2)
        ends = buf[o_out:o_out + 3 * N].reshape((3, N))
        # (empty layers made here: Numba's global arrays are read-only, another type)
        if GENERAL:
            n = reach1_general(blob, blob[:0], np.empty(0, np.uint8),
                               np.empty(0, np.uint64), params, buf, ends,
                               np.empty((0, 3), np.int64), start, budget)
        else:
            n = reach1_plain(blob, blob[:0], np.empty(0, np.uint8), np.empty(0, np.uint64),
                             params, buf, ends, np.empty((0, 3), np.int64), start, budget)
        # rows of N -> rows of n; moving each value down (n <= N) never overwrites one
        # not yet moved
        for i in range(n):
            buf[o_out + n + i] = buf[o_out + N + i]
        for i in range(n):
            buf[o_out + 2 * n + i] = buf[o_out + 2 * N + i] if GENERAL else 0
        return n

    return reach1_one


reach1_one_general = _make_reach1_one(True)
reach1_one_plain = _make_reach1_one(False)


@njit(types.int64(i32_1, i32_1, u8_1, u64_1, i64_1, i32_1, i32_2, i64_2, i64_1), cache=CACHE,
      nogil=True)
def reach1_ordered(blob, occupant, qflags, zoc, params, buf, ends, queries, order):
    """``reach1`` in ends mode for the queries ``queries`` (rows start, budget, count out),
    choosing the plain or general body itself, then each query's ends sorted by (cost,
    ``order[cell]``) when ``order`` (int64[N]) is given: the order a game lists its ends
    in, without a sort in Python. The stopped row is always written (0 for a plain query).
    Returns the end columns written, or a STATUS_* < 0 (as ``reach1``)."""
    plain = is_plain(blob, qflags, zoc, params)
    if plain:
        total = reach1_plain(blob, occupant, qflags, zoc, params, buf, ends, queries, 0, 0)
    else:
        total = reach1_general(blob, occupant, qflags, zoc, params, buf, ends, queries, 0,
                               0)
    if total < 0:
        return total
    if plain:
        for i in range(total):
            ends[2, i] = 0
    if order.shape[0] == 0:
        return total
    lo = 0
    for q in range(queries.shape[0]):
        hi = lo + queries[q, 2]
        # the kernel lists ends in cost order: an insertion sort only moves ties
        for i in range(lo + 1, hi):
            c = ends[0, i]
            k = ends[1, i]
            st = ends[2, i]
            rank = order[c]
            j = i - 1
            while j >= lo and (ends[1, j] > k or (ends[1, j] == k and order[ends[0, j]] > rank)):
                ends[0, j + 1] = ends[0, j]
                ends[1, j + 1] = ends[1, j]
                ends[2, j + 1] = ends[2, j]
                j -= 1
            ends[0, j + 1] = c
            ends[1, j + 1] = k
            ends[2, j + 1] = st
        lo = hi
    return total


@once
def prange_batch():
    """``reach1_batch``, compiled (or loaded from the cache) on first use: only a batch
    run with ``BATCH_THREADS = "prange"`` calls it, so an import does not load it."""

    @njit(types.int64(i32_1, i32_1, u8_1, u64_1, i64_1, i64_2, i32_2, i32_3, types.int64[::1]),
          cache=CACHE, nogil=True, parallel=True)
    def reach1_batch(blob, occupant, qflags, zoc, params, queries, bufs, ends, status):
        """``reach1`` in ends mode over C chunks of consecutive queries, ``prange`` over the
        chunks: chunk c owns ``bufs[c]`` and ``ends[c]`` (int32[C, 3, R]) and writes
        ``queries[lo:hi, 2]`` and ``status[c]`` (its end columns, or a STATUS_* < 0).
        Returns the worst status (0 if none)."""
        n_chunks = bufs.shape[0]
        n_q = queries.shape[0]
        plain = is_plain(blob, qflags, zoc, params)
        for c in prange(n_chunks):
            lo = (n_q * c) // n_chunks
            hi = (n_q * (c + 1)) // n_chunks
            if plain:
                r = reach1_plain(blob, occupant, qflags, zoc, params, bufs[c], ends[c],
                                 queries[lo:hi], 0, 0)
            else:
                r = reach1_general(blob, occupant, qflags, zoc, params, bufs[c], ends[c],
                                   queries[lo:hi], 0, 0)
            status[c] = r
        worst = 0
        for c in range(n_chunks):
            if status[c] < worst:
                worst = status[c]
        return worst

    return reach1_batch


# ====================================================================== plain, at the limit
# ``reach_plain_k(K, CLIMB, FIFO)``: ``reach1_plain`` in ends mode, specialised per board
# kind (K neighbours, a compile-time constant: the neighbour loop is unrolled), per climb
# rule (CLIMB: pay ``params[P_CLIMB_PER_LEVEL]`` per level climbed, nothing else) and for
# unit costs (FIFO: one BFS queue), for the common query: plain, nobody on the board, no
# per-query layer.
# What it does that ``reach1`` does not (the C limit's techniques):
#   * one word per cell (entry cost | height << 16) with a pad word for cell -1, so that
#     "no neighbour", "cannot enter" and "over budget" are one test (cost 0xFFFF);
#   * one stamped word per cell: dist = base + d, base advancing budget + 1 per query, so
#     "not reached this query or dearer" is one unsigned compare, and no reset per query;
#   * LIFO lists per bucket in one pool written in push order (same order as ``reach1``'s
#     stacks: identical answers, ends in the same order).
# Any other call (tree mode, occupants, per-query layers: a caller that swapped them in)
# is handed to ``reach1_plain`` / ``reach1_general``, which answer everything.
# The workspace is ``buf``'s region after ``reach1``'s (see ``fast_layout_size``).
@once
def reach_plain_k(K, CLIMB, FIFO=False):
    """(batch, one) for K neighbours and the climb rule CLIMB (FIFO: every step costs 1,
    the BFS order of ``reach1``'s unit-cost queue), compiled (or loaded from the cache)
    on first use: ``batch`` has ``reach1``'s signature, ``one`` that of ``reach1_one``;
    both write the same ends in the same order as they do."""
    K = int(K)
    CLIMB = bool(CLIMB) and not FIFO
    FIFO = bool(FIFO)

    def core(blob, params, buf, ends, queries, start, budget):
        N = np.int64(blob[0])
        o_nbr = np.int64(blob[5])
        o_pc = np.int64(blob[H_PLAIN]) + 2   # word of cell v: blob[o_pc + v] (v >= -1)
        nbA = np.int64(buf[2])
        o_base = CTRL + 2 * N * 4 + N * 2 + nbA * 2 * N + nbA * 2 + 2 * N * 4 + 8 * N
        o_dist = o_base + CTRL
        o_head = o_dist + N
        o_pool = o_head + nbA
        cap = ends.shape[1]
        cpl = params[P_CLIMB_PER_LEVEL]
        nb_top = params[P_N_BUCKETS]
        n_q = queries.shape[0]
        pos = np.int64(0)
        for qi in range(max(n_q, 1)):
            src, bud = (queries[qi, 0], queries[qi, 1]) if n_q > 0 else (start, budget)
            nb = min(nb_top - 1, bud) + 1
            pos0 = pos
            base = np.int64(buf[o_base])
            if base < 1 or base + 2 * (bud + 1) >= 2147483647:  # first use, or a wrap
                for i in range(N):
                    buf[U(o_dist + i)] = 0
                base = 1
            buf[o_base] = base + bud + 1
            for i in range(nb):
                buf[U(o_head + i)] = -1
            buf[U(o_dist + src)] = base
            if FIFO:  # every step costs 1: a FIFO queue in the pool, in settle order
                buf[U(o_pool)] = src
                qh = np.int64(0)
                qt = np.int64(1)
                while qh < qt:
                    u = np.int64(buf[U(o_pool + qh)])
                    qh += 1
                    cur = np.int64(buf[U(o_dist + u)]) - base
                    if pos >= cap:
                        if n_q > 0:
                            queries[qi, 2] = cap
                        return STATUS_ARENA_FULL
                    ends[0, U(pos)] = u
                    ends[1, U(pos)] = cur
                    pos += 1
                    row = o_nbr + K * u
                    for j in range(K):
                        v = np.int64(blob[U(row + j)])
                        nd = cur + (blob[U(o_pc + v)] & 0xFFFF)
                        if nd > bud:
                            continue  # no neighbour, cannot enter, or over budget
                        if U(buf[U(o_dist + v)] - base) <= U(nd):
                            continue  # queued already (at most as dear: BFS order)
                        buf[U(o_dist + v)] = base + nd
                        buf[U(o_pool + qt)] = v
                        qt += 1
                if n_q > 0:
                    queries[qi, 2] = pos - pos0
                continue
            buf[U(o_pool)] = src
            buf[U(o_pool + 1)] = -1
            buf[U(o_head)] = 0
            ne = np.int64(1)
            hi = np.int64(0)
            cur = np.int64(0)
            b = np.int64(0)
            while cur <= hi:
                e = np.int64(buf[U(o_head + b)])
                if e < 0:
                    cur += 1
                    b += 1
                    if b == nb:
                        b = 0
                    continue
                u = np.int64(buf[U(o_pool + 2 * e)])
                buf[U(o_head + b)] = buf[U(o_pool + 2 * e + 1)]
                if buf[U(o_dist + u)] - base != cur:
                    continue  # stale: improved since it was queued
                if pos >= cap:
                    if n_q > 0:
                        queries[qi, 2] = cap
                    return STATUS_ARENA_FULL
                ends[0, U(pos)] = u
                ends[1, U(pos)] = cur
                pos += 1
                if CLIMB:
                    hu = np.int64(blob[U(o_pc + u)] >> 16)
                row = o_nbr + K * u
                for j in range(K):
                    v = np.int64(blob[U(row + j)])
                    w = np.int64(blob[U(o_pc + v)])
                    nd = cur + (w & 0xFFFF)
                    if CLIMB:
                        nd += cpl * max((w >> 16) - hu, 0)
                    if nd > bud:
                        continue  # no neighbour, cannot enter, or over budget
                    if U(buf[U(o_dist + v)] - base) <= U(nd):
                        continue  # reached this query at most as dear
                    buf[U(o_dist + v)] = base + nd
                    b2 = b + nd - cur
                    if b2 >= nb:
                        b2 -= nb
                    buf[U(o_pool + 2 * ne)] = v
                    buf[U(o_pool + 2 * ne + 1)] = buf[U(o_head + b2)]
                    buf[U(o_head + b2)] = ne
                    ne += 1
                    if nd > hi:
                        hi = nd
            if n_q > 0:
                queries[qi, 2] = pos - pos0
        return pos

    def batch(blob, occupant, qflags, zoc, params, buf, ends, queries, start, budget):
        variant = (K, CLIMB, FIFO)  # noqa: F841 (in the closure: see below)
        if ends.shape[1] == 0 or params[P_HAS_OCC] != 0 or qflags.shape[0] > 0 or \
                zoc.shape[0] > 0:
            if qflags.shape[0] > 0 or zoc.shape[0] > 0:
                return reach1_general(blob, occupant, qflags, zoc, params, buf, ends,
                                      queries, start, budget)
            return reach1_plain(blob, occupant, qflags, zoc, params, buf, ends, queries,
                                start, budget)
        return _plain_core(blob, params, buf, ends, queries, start, budget)

    def one(blob, params, buf, start, budget):
        variant = (K, CLIMB, FIFO)  # noqa: F841 (in the closure: see below)
        N = np.int64(blob[0])
        o_out = np.int64(CTRL + 2 * N * 4 + N * 2 + buf[2] * 2 * N + buf[2] * 2)
        ends = buf[o_out:o_out + 3 * N].reshape((3, N))
        n = _plain_core(blob, params, buf, ends, params[:0].reshape((0, 3)), start,
                        budget)
        # rows of N -> rows of n (cells, costs, stopped = 0), as ``reach1_one``
        for i in range(n):
            buf[o_out + n + i] = buf[o_out + N + i]
        for i in range(n):
            buf[o_out + 2 * n + i] = 0
        return n

    # ``batch`` and ``one`` find ``_plain_core`` among their globals, not in a closure:
    # Numba's cache key pickles a closure's values, and a dispatcher pickles differently
    # in every process (a cache miss and a compile at each import). K, CLIMB and FIFO,
    # plain values, stay in their closures: they tell the variants' cache entries apart (the
    # key is the code and the closure; without them every variant would load the first
    # one cached).
    tag = f"k{K}_climb{int(CLIMB)}_fifo{int(FIFO)}"  # one cache index each: _variant_jit
    core = _variant_jit(tag, cache=CACHE, nogil=True)(core)
    batch = _variant_jit(tag, types.int64(i32_1, i32_1, u8_1, u64_1, i64_1, i32_1, i32_2,
                                          i64_2, types.int64, types.int64),
                         cache=CACHE, nogil=True)(_with_globals(batch, _plain_core=core))
    one = _variant_jit(tag, types.int64(i32_1, i64_1, i32_1, types.int64, types.int64),
                       cache=CACHE, nogil=True)(_with_globals(one, _plain_core=core))
    return batch, one


def _with_globals(fn, **names):
    """``fn`` reading ``names`` as globals (its own copy of its module's globals)."""
    g = dict(fn.__globals__)
    g.update(names)
    f = pytypes.FunctionType(fn.__code__, g, fn.__name__, fn.__defaults__, fn.__closure__)
    f.__qualname__, f.__module__, f.__doc__ = fn.__qualname__, fn.__module__, fn.__doc__
    return f

