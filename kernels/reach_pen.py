"""The packed fast kernel for queries WITH penalties (``params[P_N_PEN] > 1``).

``reach_pen`` is ``reach1`` (see ``kernels/reach.py``: same ``blob``, same ends and tree
modes, same outputs; plus a rows mode: the ends' eight fields without a tree) with the
penalty dimension of the general kernel ``_search``: state
(cell, penalty, stopped), ``leave`` masks (penalty += popcount(leave[u] & ~leave[v]) *
leave_weight) and ``enter_pen`` per cell, penalties capped at ``n_pen - 1``. It settles
the states in exactly ``_search``'s order (bucket queue, LIFO within a bucket, free
arrivals before stopped ones of the same cost), so in tree mode its search tree, its ends
and their order are those of ``reach_query`` row for row; only the layout differs (one
int32 buffer, flat offsets, bucket stacks instead of a linked list, 12 arguments instead
of 21). Without a tree (ends and rows modes) it also drops the arrivals a strictly
cheaper, at most as penalised one at the same cell beats: the same ends, fields and
order, from far fewer labels.

It lives in its own module and is compiled (or loaded from Numba's cache) on the first
penalty query (``kernel()``): a program that never asks one does not pay for it, and a
penalty-free query never runs it (``reach1`` has no penalty dimension at all).

``buf`` int32: one thread's workspace (see ``pen_layout_size``), for N cells, ``Pa``
penalty levels allocated (>= the query's ``n_pen``) and ``nbA`` buckets:
    [0] generation  [1] tree rows k of the last query  [2] nbA  [3] Pa  [4] the next
    cost base of ``reach_pen_steps`` (below); then
    state[2S, 2] (stamp, cost) of state s (S = N * Pa free states s = p * N + v, then
    S stopped ones S + p * N + v: each penalty level a layer of N, the low levels -- the
    ones a move mostly uses -- side by side), parent[2S], cell[N, 2] (stamp, end index),
    stack[nbA * 2, S] (entries penalty << 24 | cell), count[nbA * 2], rows[N, 8] (the
    ends row-major: tree mode's before they are transposed, rows mode's answer), out[8S +
    8N]: the query's tree[k, 4] (cell, cost, penalty * 2 + stopped, parent row), then its
    ends[8, n] column-major, exactly as ``reach1``'s tree mode (``Reach._packed`` reads
    both).

``reach_pen_steps`` (the rows mode over a table of steps, below) keeps a state in its
second word alone: ``base + cost``, ``base`` a number above ``MAX_BUDGET`` that each of
its queries takes past the last one's ``base + budget`` (``buf[4]``): a word below the
query's base is a state it has not reached (one of an earlier query's, or ``reach_pen``'s
cost, which is at most ``MAX_BUDGET``), so one load and one unsigned compare test a state.
It never writes the first word, the stamp ``reach_pen`` tests first, so the two kernels
may share a workspace.
"""
from __future__ import annotations

import numpy as np
from numba import njit, types

from ._jit import once
from ._types import (
    CACHE, CELL_BLOCKED, CELL_NO_END, CELL_STOP, EDGE_BLOCKED, EDGE_STOP, MAX_BUDGET,
    P_ALLY, P_CLIMB_FLAT, P_CLIMB_PER_LEVEL, P_CORNER_CUT,
    P_DESCEND_PER_LEVEL, P_ENEMY, P_HAS_OCC, P_LEAVE_WEIGHT, P_LINK_MASK, P_MAX_CLIMB,
    P_N_BUCKETS, P_N_PEN, P_TEAM, STATUS_ARENA_FULL, STATUS_QUEUE_FULL,
)
from .reach import (
    CTRL, H_HILLY, U, _climb, _occupant_rule, i32_1, i32_2, i64_1, i64_2, u8_1, u64_1,
)

_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)
_PEN_SHIFT = 24           # cells < 2**24 (MAX_CELLS), penalties < 64 (MAX_PENALTY_LEVELS)
_CELL_MASK = (1 << _PEN_SHIFT) - 1
_BASE_LO = MAX_BUDGET + 1   # reach_pen_steps' cost bases: above every cost reach_pen keeps
_INT32_MAX = 2147483647


def pen_layout_size(n: int, n_pen: int, nb_alloc: int) -> int:
    """int32 words of a ``reach_pen`` workspace: N cells, n_pen levels, nb_alloc buckets."""
    S = n * n_pen
    return CTRL + 4 * S + 2 * S + 2 * n + nb_alloc * 2 * S + nb_alloc * 2 + 8 * n + \
        8 * S + 8 * n


def pen_out_offset(n: int, n_pen: int, nb_alloc: int) -> int:
    """Where the out block (tree, then ends) of a ``reach_pen`` workspace starts."""
    S = n * n_pen
    return CTRL + 4 * S + 2 * S + 2 * n + nb_alloc * 2 * S + nb_alloc * 2 + 8 * n


@njit(inline="always")
def _popcount(x):
    """The bits set in ``x`` (uint64), as int64: branch-free (SWAR), as ``reach_pen``
    counts a step's leaving attacks."""
    x = x - ((x >> np.uint64(1)) & _M1)
    x = (x & _M2) + ((x >> np.uint64(2)) & _M2)
    x = (x + (x >> np.uint64(4))) & _M4
    return np.int64((x * _H01) >> np.uint64(56))


@njit(inline="always")
def _at_most(word, base, c):
    """State word ``word`` (``reach_pen_steps``: ``base + cost`` where this query reached
    the state, below ``base`` where it did not) holds a cost at most ``c`` (>= 0): one
    unsigned compare (a word below ``base`` wraps to a huge number)."""
    return np.uint64(np.int64(word) - base) <= np.uint64(c)


@njit(inline="always")
def _below(word, base, c):
    """As :func:`_at_most`, a cost strictly below ``c`` (>= 0; none below 0)."""
    return np.uint64(np.int64(word) - base) < np.uint64(c)


@njit(inline="always")
def pen_row_of(buf, n, v):
    """The row of cell ``v`` among the ends of the last rows-mode query (``reach_pen`` or
    ``reach_pen_steps``) in workspace ``buf`` over ``n`` cells: its index in the rows
    block, -1 where it is not an end (never settled, or may not end there). Read from
    the search's own cell stamps (``cell[N, 2]``: stamp, end index), so a caller that
    pairs ends needs no table of its own to build and clear."""
    o_wcell = CTRL + 6 * np.int64(n) * np.int64(buf[3])     # (after state and parent)
    if buf[o_wcell + 2 * v] != buf[0]:
        return np.int64(-1)
    return np.int64(buf[o_wcell + 2 * v + 1])


@once
def kernel():
    """``reach_pen``, compiled (or loaded from the cache) on the first penalty query."""
    # (``reach_pen`` inlines parts of the step rule from ``reach.py``, ``_climb`` and
    # ``_occupant_rule``: movecore's cache stamp of every entry holds a digest of every
    # kernel file, so an edit there recompiles this kernel; ``movecore._dependency_files``)
    @njit(types.int64(i32_1, i32_1, u8_1, u64_1, u64_1, i32_1, i64_1, i32_1, i32_2, i64_2,
                      types.int64, types.int64), cache=CACHE, nogil=True)
    def reach_pen(blob, occupant, qflags, zoc, leave, enter_pen, params, buf, ends, queries,
                  start, budget):
        """Single-start queries with penalties; arguments and return value as ``reach1``
        (see there) plus the penalty layers ``leave`` (uint64[N] or empty) and
        ``enter_pen`` (int32[N] or empty). Ends mode (``ends`` int32[3, R], R > 0): the
        ends (cell, cost, stopped) of query after query. Tree mode (``ends`` int32[3, 0],
        one query): the tree and the eight end fields of ``reach_query`` in ``buf``'s out
        block; returns ``n | (k << 32)``. Rows mode (``ends`` int32[8, 0], one query): no
        tree; the n ends' eight fields in ``buf``'s rows block, row-major, and at the start
        of its out block, column-major, the tree rows (fields 3 and 6) -1; returns n."""
        N = np.int64(blob[0])
        K = np.int64(blob[1])
        L = np.int64(blob[2])
        E = np.int64(blob[4])
        o_nbr = np.int64(blob[5])
        o_lptr = np.int64(blob[6])
        o_link = np.int64(blob[7])
        o_edge = np.int64(blob[9])
        o_diag = np.int64(blob[10])
        o_cell = np.int64(blob[12])
        nbA = np.int64(buf[2])
        Pa = np.int64(buf[3])
        SF = N * Pa                   # free states; stopped ones follow
        S = 2 * SF
        o_state = np.int64(CTRL)      # (stamp, cost) of s   buf[o_state + 2 * s + f]
        o_par = o_state + S * 2       # parent tree row      buf[o_par + s]
        o_wcell = o_par + S           # (stamp, end) of v    buf[o_wcell + 2 * v + f]
        o_stack = o_wcell + N * 2     # stack of bucket-phase bp: buf[o_stack + SF * bp + i]
        o_count = o_stack + nbA * 2 * SF
        o_rows = o_count + nbA * 2    # the ends' eight fields, row-major
        o_out = o_rows + 8 * N
        cap = ends.shape[1]
        listing = cap == 0            # tree or rows mode: the ends' eight fields listed
        tree_mode = listing and ends.shape[0] != 8

        n_pen = params[P_N_PEN]
        p_top = n_pen - 1
        leave_w = params[P_LEAVE_WEIGHT]
        has_leave = leave.shape[0] > 0 and leave_w != 0
        has_enter = enter_pen.shape[0] > 0
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
        per_level_only = flat == 0 and dpl == 0 and max_climb < 0
        check_corner = params[P_CORNER_CUT] == 0 and K > 0 and \
            blob[o_diag + 2 * (K - 1)] >= 0
        has_edges = E > 0
        has_q = qflags.shape[0] > 0
        has_zoc = zoc.shape[0] > 0
        has_links = L > 0

        n_q = queries.shape[0]
        pos = np.int64(0)
        k = 0
        src = start
        for qi in range(max(n_q, 1)):
            src, bud = (queries[qi, 0], queries[qi, 1]) if n_q > 0 else (start, budget)
            nb = min(nb_top - 1, bud) + 1
            pos0 = pos
            gen = buf[0] + 1
            if gen >= 2147483647:  # stamps would wrap: one O(S) reset every 2**31 queries
                for i in range(S):
                    buf[o_state + 2 * i] = 0
                for i in range(N):
                    buf[o_wcell + 2 * i] = 0
                gen = 1
            buf[0] = gen
            for i in range(2 * nb):
                buf[o_count + i] = 0
            s0 = src  # (cell src, penalty 0, free): state src, stack entry src
            buf[o_state + 2 * s0] = gen
            buf[o_state + 2 * s0 + 1] = 0
            buf[o_par + s0] = -1
            buf[o_stack] = s0
            buf[o_count] = 1
            pending = 1
            cur = 0
            b = 0
            phase = 0
            k = 0
            while pending > 0:
                # ---------------------------------------- pick the next state to settle
                bp = 2 * b + phase
                n_in = buf[U(o_count + bp)]
                if n_in == 0:
                    if phase == 0:
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
                entry = np.int64(buf[U(o_stack + SF * bp + n_in)])
                pending -= 1
                # (a stack entry is penalty << 24 | cell: no division to split a state)
                u = entry & _CELL_MASK
                pen = entry >> _PEN_SHIFT
                sf = pen * N + u
                stopped_s = phase
                s = sf + SF if stopped_s else sf
                if buf[U(o_state + 2 * s + 1)] != cur:
                    continue  # stale entry (pushes strictly improve a state)
                if stopped_s and buf[U(o_state + 2 * sf)] == gen and \
                        buf[U(o_state + 2 * sf + 1)] <= cur:
                    continue  # a free arrival at most as dear settled: it wins
                if not tree_mode:
                    # Without a tree, an arrival is dropped when one strictly cheaper, at
                    # most as penalised (and free, if this one is) settled at this cell:
                    # it is not this cell's end (settled later), improves none of its
                    # fields, and every arrival it would lead to is in turn beaten so by
                    # one the cheaper leads to. The ends, their fields and their order
                    # stay those of the full search; only labels nobody sees are skipped.
                    # (Tree mode keeps them: its tree is the general kernel's, row for row.)
                    dominated = False
                    for p2 in range(pen + 1):
                        t2 = p2 * N + u
                        if buf[U(o_state + 2 * t2)] == gen and \
                                buf[U(o_state + 2 * t2 + 1)] < cur:
                            dominated = True
                            break
                        if stopped_s and buf[U(o_state + 2 * (t2 + SF))] == gen and \
                                buf[U(o_state + 2 * (t2 + SF) + 1)] < cur:
                            dominated = True
                            break
                    if dominated:
                        continue
                # ---------------------------------------- settle
                if tree_mode:
                    buf[U(o_out + 4 * k)] = u
                    buf[U(o_out + 4 * k + 1)] = cur
                    buf[U(o_out + 4 * k + 2)] = pen * 2 + stopped_s
                    buf[U(o_out + 4 * k + 3)] = buf[U(o_par + s)]
                if buf[U(o_wcell + 2 * u)] != gen:
                    # the first settled arrival at a cell is its end (if it may end there)
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
                    if endable and listing:  # (tree and rows modes: one query)
                        e = o_rows + 8 * pos
                        buf[U(o_wcell + 2 * u + 1)] = pos
                        buf[U(e)] = u
                        buf[U(e + 1)] = cur
                        buf[U(e + 2)] = stopped_s
                        buf[U(e + 3)] = k if tree_mode else -1
                        buf[U(e + 4)] = pen
                        buf[U(e + 5)] = cur
                        buf[U(e + 6)] = k if tree_mode else -1
                        buf[U(e + 7)] = -1 if stopped_s else cur
                        pos += 1
                    elif endable:
                        if pos >= cap:
                            queries[qi, 2] = cap
                            return STATUS_ARENA_FULL
                        ends[0, U(pos)] = u
                        ends[1, U(pos)] = cur
                        ends[2, U(pos)] = stopped_s
                        pos += 1
                    elif listing:
                        buf[U(o_wcell + 2 * u + 1)] = -1
                elif listing and buf[U(o_wcell + 2 * u + 1)] >= 0:
                    # a later arrival at a listed end: the first of its least penalty (in
                    # cost order), the first that did not stop
                    e = o_rows + 8 * buf[U(o_wcell + 2 * u + 1)]
                    if pen < buf[U(e + 4)]:
                        buf[U(e + 4)] = pen
                        buf[U(e + 5)] = cur
                        buf[U(e + 6)] = k if tree_mode else -1
                    if stopped_s == 0 and buf[U(e + 7)] < 0:
                        buf[U(e + 7)] = cur
                parent_row = k
                k += 1
                if stopped_s:
                    continue
                # ---------------------------------------- expand: K steps, then links
                hu = blob[U(o_cell + 4 * u + 2)]
                lv_u = leave[U(u)] if has_leave else np.uint64(0)
                lp = blob[U(o_lptr + u)]
                n_moves = K + blob[U(o_lptr + u + 1)] - lp if has_links else K
                for j in range(n_moves):
                    if not has_links or j < K:
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
                    stopped = edge_stop or (fl & CELL_STOP) != 0
                    if not stopped and has_zoc and (zoc[U(u)] & zoc[U(v)]) != 0:
                        stopped = True
                    if stopped and (not may_end or (fl & CELL_NO_END)):
                        continue  # must end where it may not end: no move at all
                    p = pen
                    if has_leave and lv_u != 0:  # (nothing to leave: no load)
                        x = lv_u & ~leave[U(v)]
                        if x:
                            # popcount, branch-free (SWAR)
                            x = x - ((x >> np.uint64(1)) & _M1)
                            x = (x & _M2) + ((x >> np.uint64(2)) & _M2)
                            x = (x + (x >> np.uint64(4))) & _M4
                            p += np.int64((x * _H01) >> np.uint64(56)) * leave_w
                    if has_enter:
                        p += enter_pen[U(v)]
                    if p > p_top:
                        p = p_top
                    t = p * N + v
                    if stopped:
                        if buf[U(o_state + 2 * t)] == gen and \
                                buf[U(o_state + 2 * t + 1)] <= c:
                            continue  # a free arrival at most as dear exists: it wins
                        t += SF
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
                    if n2 >= SF:
                        buf[1] = k
                        return STATUS_QUEUE_FULL  # cannot happen (one entry per state
                        # and bucket)
                    buf[U(o_stack + SF * bp2 + n2)] = (p << _PEN_SHIFT) | v
                    buf[U(o_count + bp2)] = n2 + 1
                    pending += 1
            if n_q > 0:
                queries[qi, 2] = pos - pos0
        buf[1] = k
        if not listing:
            return pos  # ends mode: the end columns written
        # ------------------------------------------------ the ends column-major, after
        # the tree (tree mode) or at the start of the out block (rows mode)
        n = pos
        base = o_out + 4 * k if tree_mode else o_out
        for f in range(8):
            for i in range(n):
                buf[base + f * n + i] = buf[o_rows + 8 * i + f]
        return n | (k << 32) if tree_mode else n

    return reach_pen


@njit(types.UniTuple(i32_1, 4)(i32_1, types.int64, i64_1), cache=CACHE, nogil=True)
def sorted_pen_ends(cols, n, order):
    """The ends of a rows-mode answer (``cols``: its out block, the eight end fields
    column-major, n values each) as new int32[n] arrays (cell, cost, least penalty, its
    cost), sorted by (cost, ``order[cell]``) (``order``: int64[N], distinct values)."""
    width = np.int64(order.shape[0])
    key = np.empty(n, np.int64)
    for i in range(n):
        key[i] = np.int64(cols[n + i]) * width + order[cols[i]]
    idx = np.argsort(key)
    cells = np.empty(n, np.int32)
    costs = np.empty(n, np.int32)
    pens = np.empty(n, np.int32)
    pen_costs = np.empty(n, np.int32)
    for j in range(n):
        i = idx[j]
        cells[j] = cols[i]
        costs[j] = cols[n + i]
        pens[j] = cols[4 * n + i]
        pen_costs[j] = cols[5 * n + i]
    return cells, costs, pens, pen_costs


# ====================================================== rows mode over a table of steps
# ``pen_steps`` / ``reach_pen_steps``: the rows mode of ``reach_pen`` for a caller that asks
# the same board and mover many times with per-query occupants, stop and no-end flags and
# leave masks (a batch of games on one battlefield). Everything about a step u -> v that
# does not depend on those -- the neighbour, impassable terrain, blocked cells, side
# edges, corners, the climb rule and its price, links and their mask -- is worked out
# once into a table (``pen_steps``); the search reads one entry per step instead of
# five to eight dependent loads and branches. The table lists each cell's steps in the
# order ``reach_pen`` tries them (its K directions, then its links), and the kernel makes
# exactly ``reach_pen``'s decisions on them, so it pushes and settles the same states in
# the same order: the same rows, in the same order (``tests/test_reach_pen.py``).
#
# A table entry is two int32 words: v | v's board flags << 24 (cells < 2**24), then
# step * 2 + 1 if the side crossed stops the move (the step capped at 2 * MAX_BUDGET: still
# over any budget it was over; a step over the budget never pushes). After the entries,
# the same table of the steps that cost 0 alone (each cell's in the same order): a state
# settled at the budget tries those only, since every other step from it goes over and
# is skipped unread (a fifth of the tried steps of Heroscape's two-space walkers).
_STEP_CAP = 2 * MAX_BUDGET


@once
def steps_kernel():
    """``(pen_steps, reach_pen_steps)``, compiled (or loaded from the cache) on first use.

    ``pen_steps(blob, qflags, params) -> table``: int32[2 (N + 1) + 2 (M + Z)], the M
    steps of the mover of ``params`` on ``blob``: ``table[:N + 1]`` = ptr, cell u's steps
    the entries ptr[u] <= e < ptr[u + 1] at ``table[N + 1 + 2 e]``, ``+ 1``; then, from
    ``z = N + 1 + 2 M`` (``M = table[N]``), the Z of them that cost 0 in the same form
    (``table[z:z + N + 1]`` their ptr, entry e at ``table[z + N + 1 + 2 e]``); ``qflags``
    (uint8[N] or empty): the cell flags whose ``CELL_BLOCKED`` bits every later query
    shares (its other bits are read per query).

    ``reach_pen_steps(blob, table, occupant, qflags, zoc, leave, enter_pen, params, buf,
    start, budget) -> n``: ``reach_pen``'s rows mode (``ends`` int32[8, 0]) for one
    query, on the table of ``blob``, ``params`` (``P_MAX_CLIMB``, ``P_CLIMB_*``,
    ``P_LINK_MASK``, ``P_CORNER_CUT`` as when it was built) and flags ``qflags`` whose
    ``CELL_BLOCKED`` bits are the table's (empty if and only if the table's were): the
    same n rows in the same order, ``buf[1]`` the states settled; the rows are left in
    ``buf``'s rows block only (row-major, eight fields a row, at ``pen_out_offset - 8 *
    N``), not copied column-major to the out block as ``reach_pen`` does. Its states are
    one word each (``base + cost``: the module's docstring), and it pushes no arrival that
    a strictly cheaper free one at a lower penalty dominates (``reach_pen`` pushes it and
    drops it where it is taken): fewer pushes, the same states settled, in the same order
    (``tests/test_reach_pen.py``)."""

    @njit(i32_1(i32_1, u8_1, i64_1), cache=CACHE, nogil=True)
    def pen_steps(blob, qflags, params):
        N = np.int64(blob[0])
        K = np.int64(blob[1])
        L = np.int64(blob[2])
        E = np.int64(blob[4])
        o_nbr = np.int64(blob[5])
        o_lptr = np.int64(blob[6])
        o_link = np.int64(blob[7])
        o_edge = np.int64(blob[9])
        o_diag = np.int64(blob[10])
        o_cell = np.int64(blob[12])
        max_climb = params[P_MAX_CLIMB]
        max_up = max_climb if max_climb >= 0 else MAX_BUDGET
        cpl = params[P_CLIMB_PER_LEVEL]
        flat = params[P_CLIMB_FLAT]
        dpl = params[P_DESCEND_PER_LEVEL]
        link_mask = params[P_LINK_MASK]
        climbs = blob[H_HILLY] != 0 and (cpl != 0 or flat != 0 or dpl != 0 or max_climb >= 0)
        per_level_only = flat == 0 and dpl == 0 and max_climb < 0
        check_corner = params[P_CORNER_CUT] == 0 and K > 0 and \
            blob[o_diag + 2 * (K - 1)] >= 0
        has_edges = E > 0
        has_q = qflags.shape[0] > 0
        has_links = L > 0
        table = np.empty(N + 1 + 2 * (N * K + L), np.int32)
        o = N + 1
        e = 0
        for u in range(N):
            table[u] = e
            hu = blob[o_cell + 4 * u + 2]
            lp = blob[o_lptr + u]
            n_moves = K + blob[o_lptr + u + 1] - lp if has_links else K
            for j in range(n_moves):
                edge_stop = False
                if not has_links or j < K:
                    v = blob[o_nbr + K * u + j]
                    if v < 0:
                        continue
                    tc = blob[o_cell + 4 * v]
                    if tc < 0:
                        continue
                    fl = blob[o_cell + 4 * v + 1]
                    if has_q:
                        fl |= qflags[v]
                        if fl & CELL_BLOCKED:
                            continue
                    step = np.int64(tc)
                    if has_edges:
                        ef = blob[o_edge + 2 * (K * u + j) + 1]
                        if ef & EDGE_BLOCKED:
                            continue
                        edge_stop = (ef & EDGE_STOP) != 0
                        step += blob[o_edge + 2 * (K * u + j)]
                    if check_corner and blob[o_diag + 2 * j] >= 0:
                        ok = True
                        for side in range(2):
                            w = blob[o_nbr + K * u + blob[o_diag + 2 * j + side]]
                            if w < 0 or blob[o_cell + 4 * w] < 0:
                                ok = False
                            elif has_q and (qflags[w] & CELL_BLOCKED):
                                ok = False
                        if not ok:
                            continue
                    if climbs:
                        ok, step = _climb(step, np.int64(blob[o_cell + 4 * v + 2] - hu),
                                          per_level_only, cpl, flat, dpl, max_up)
                        if not ok:
                            continue
                else:
                    li = lp + j - K
                    if not (link_mask >> blob[o_link + 3 * li + 2]) & 1:
                        continue
                    v = blob[o_link + 3 * li]
                    if blob[o_cell + 4 * v] < 0:
                        continue
                    fl = blob[o_cell + 4 * v + 1]
                    if has_q:
                        fl |= qflags[v]
                        if fl & CELL_BLOCKED:
                            continue
                    step = np.int64(blob[o_link + 3 * li + 1])
                table[o + 2 * e] = v | ((np.int64(blob[o_cell + 4 * v + 1]) & 0xFF) << 24)
                table[o + 2 * e + 1] = 2 * min(step, _STEP_CAP) + (1 if edge_stop else 0)
                e += 1
        table[N] = e
        # the steps that cost 0, each cell's in the same order (what a state settled at
        # the budget tries): ptr, then the entries
        z = 0
        for x in range(e):
            if (table[o + 2 * x + 1] >> 1) == 0:
                z += 1
        out = np.empty(o + 2 * e + N + 1 + 2 * z, np.int32)
        out[:o + 2 * e] = table[:o + 2 * e]
        oz = o + 2 * e + N + 1
        z = 0
        for u in range(N):
            out[o + 2 * e + u] = z
            for x in range(table[u], table[u + 1]):
                if (table[o + 2 * x + 1] >> 1) == 0:
                    out[oz + 2 * z] = table[o + 2 * x]
                    out[oz + 2 * z + 1] = table[o + 2 * x + 1]
                    z += 1
        out[o + 2 * e + N] = z
        return out

    @njit(types.int64(i32_1, i32_1, i32_1, u8_1, u64_1, u64_1, i32_1, i64_1, i32_1,
                      types.int64, types.int64), cache=CACHE, nogil=True)
    def reach_pen_steps(blob, table, occupant, qflags, zoc, leave, enter_pen, params, buf,
                        start, budget):
        N = np.int64(blob[0])
        o_cell = np.int64(blob[12])
        o_tab = N + 1
        o_zero = o_tab + 2 * np.int64(table[N])   # (the steps that cost 0: see above)
        nbA = np.int64(buf[2])
        Pa = np.int64(buf[3])
        SF = N * Pa
        S = 2 * SF
        o_state = np.int64(CTRL)
        o_par = o_state + S * 2
        o_wcell = o_par + S
        o_stack = o_wcell + N * 2
        o_count = o_stack + nbA * 2 * SF
        o_rows = o_count + nbA * 2

        n_pen = params[P_N_PEN]
        p_top = n_pen - 1
        leave_w = params[P_LEAVE_WEIGHT]
        has_leave = leave.shape[0] > 0 and leave_w != 0
        has_enter = enter_pen.shape[0] > 0
        nb_top = params[P_N_BUCKETS]
        team = params[P_TEAM]
        ally_mode = params[P_ALLY]
        enemy_mode = params[P_ENEMY]
        has_occ = params[P_HAS_OCC] != 0
        has_q = qflags.shape[0] > 0
        has_zoc = zoc.shape[0] > 0

        src = start
        bud = budget
        nb = min(nb_top - 1, bud) + 1
        pos = np.int64(0)
        gen = buf[0] + 1
        if gen >= 2147483647:  # stamps would wrap: one O(S) reset every 2**31 queries
            for i in range(S):
                buf[o_state + 2 * i] = 0
            for i in range(N):
                buf[o_wcell + 2 * i] = 0
            gen = 1
        buf[0] = gen
        # the states' cost base (see the module's docstring): past every word an earlier
        # query wrote; one O(S) reset where base + budget would not fit an int32
        base = max(np.int64(buf[4]), _BASE_LO)
        if base + bud >= _INT32_MAX:
            for i in range(S):
                buf[o_state + 2 * i + 1] = 0
            base = _BASE_LO
        buf[4] = base + bud + 1
        for i in range(2 * nb):
            buf[o_count + i] = 0
        s0 = src
        buf[o_state + 2 * s0 + 1] = base
        buf[o_stack] = s0
        buf[o_count] = 1
        pending = 1
        cur = 0
        b = 0
        phase = 0
        k = 0
        while pending > 0:
            bp = 2 * b + phase
            n_in = buf[U(o_count + bp)]
            if n_in == 0:
                if phase == 0:
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
            entry = np.int64(buf[U(o_stack + SF * bp + n_in)])
            pending -= 1
            u = entry & _CELL_MASK
            pen = entry >> _PEN_SHIFT
            at_pen = pen * N      # (the level's first state: at_pen + v is v's)
            sf = at_pen + u
            stopped_s = phase
            s = sf + SF if stopped_s else sf
            if buf[U(o_state + 2 * s + 1)] != base + cur:
                continue  # stale entry
            if stopped_s and _at_most(buf[U(o_state + 2 * sf + 1)], base, cur):
                continue  # a free arrival at most as dear settled: it wins
            dominated = False   # (as reach_pen's ends and rows modes; its own level
            # never dominates: the tests above took that state's words)
            for p2 in range(pen):
                t2 = p2 * N + u
                if _below(buf[U(o_state + 2 * t2 + 1)], base, cur):
                    dominated = True
                    break
                if stopped_s and _below(buf[U(o_state + 2 * (t2 + SF) + 1)], base, cur):
                    dominated = True
                    break
            if dominated:
                continue
            if buf[U(o_wcell + 2 * u)] != gen:
                buf[U(o_wcell + 2 * u)] = gen
                endable = True
                if u != src:
                    fl = blob[U(o_cell + 4 * u + 1)]
                    if has_q:
                        fl |= qflags[U(u)]
                    if fl & CELL_NO_END:
                        endable = False
                    elif has_occ:
                        endable = _occupant_rule(occupant[U(u)], team, ally_mode,
                                                 enemy_mode)[1]
                if endable:
                    e = o_rows + 8 * pos
                    buf[U(o_wcell + 2 * u + 1)] = pos
                    buf[U(e)] = u
                    buf[U(e + 1)] = cur
                    buf[U(e + 2)] = stopped_s
                    buf[U(e + 3)] = -1
                    buf[U(e + 4)] = pen
                    buf[U(e + 5)] = cur
                    buf[U(e + 6)] = -1
                    buf[U(e + 7)] = -1 if stopped_s else cur
                    pos += 1
                else:
                    buf[U(o_wcell + 2 * u + 1)] = -1
            elif buf[U(o_wcell + 2 * u + 1)] >= 0:
                e = o_rows + 8 * buf[U(o_wcell + 2 * u + 1)]
                if pen < buf[U(e + 4)]:
                    buf[U(e + 4)] = pen
                    buf[U(e + 5)] = cur
                if stopped_s == 0 and buf[U(e + 7)] < 0:
                    buf[U(e + 7)] = cur
            k += 1
            if stopped_s:
                continue
            lv_u = leave[U(u)] if has_leave else np.uint64(0)
            # (at the budget only the steps that cost 0 can push: their own table)
            o_t = o_tab if cur < bud else o_zero + N + 1
            o_p = 0 if cur < bud else o_zero
            for x_e in range(table[U(o_p + u)], table[U(o_p + u + 1)]):
                vw = np.int64(table[U(o_t + 2 * x_e)]) & 0xFFFFFFFF
                w = np.int64(table[U(o_t + 2 * x_e + 1)])
                v = vw & _CELL_MASK
                step = w >> 1
                c = cur + step
                if c > bud:
                    continue
                p = pen
                t = at_pen + v
                if has_leave and lv_u != 0:
                    x = lv_u & ~leave[U(v)]
                    if x:
                        p += _popcount(x) * leave_w
                if has_enter:
                    p += enter_pen[U(v)]
                if p != pen:    # (most steps stay at their level: no product)
                    if p > p_top:
                        p = p_top
                    t = p * N + v
                # a free arrival as cheap at this penalty bars this one, free or stopped:
                # tested first, as most tried steps end here (pure tests: their order
                # changes no push)
                if _at_most(buf[U(o_state + 2 * t + 1)], base, c):
                    continue
                may_end = True
                if has_occ:
                    may_pass, may_end = _occupant_rule(occupant[U(v)], team, ally_mode,
                                                       enemy_mode)
                    if not may_pass:
                        continue
                fl = vw >> _PEN_SHIFT
                if has_q:
                    fl |= qflags[U(v)]
                stopped = (w & 1) != 0 or (fl & CELL_STOP) != 0
                if not stopped and has_zoc and (zoc[U(u)] & zoc[U(v)]) != 0:
                    stopped = True
                if stopped and (not may_end or (fl & CELL_NO_END)):
                    continue
                if stopped:
                    t += SF
                    if _at_most(buf[U(o_state + 2 * t + 1)], base, c):
                        continue
                if p > 0:
                    # a free arrival strictly cheaper at a lower penalty: the arrival
                    # would be dropped where it is taken (it is dominated: the lower
                    # state's cost only falls, and it settles first), so it is not
                    # pushed -- nor its state written, whose later tests the lower state
                    # answers alike (every arrival there as dear is dominated too)
                    dominated = False
                    for p2 in range(p):
                        if _below(buf[U(o_state + 2 * (p2 * N + v) + 1)], base, c):
                            dominated = True
                            break
                    if dominated:
                        continue
                buf[U(o_state + 2 * t + 1)] = base + c
                b2 = b + step
                if b2 >= nb:
                    b2 -= nb
                bp2 = 2 * b2 + (1 if stopped else 0)
                n2 = buf[U(o_count + bp2)]
                if n2 >= SF:
                    buf[1] = k
                    return STATUS_QUEUE_FULL
                buf[U(o_stack + SF * bp2 + n2)] = (p << _PEN_SHIFT) | v
                buf[U(o_count + bp2)] = n2 + 1
                pending += 1
        buf[1] = k
        # (the rows stay row-major in the rows block: no copy to the out block, which
        # cost ~8 % of a two-space walker's query; the caller reads them there)
        return pos

    return pen_steps, reach_pen_steps
