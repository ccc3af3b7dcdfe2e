"""Dark Realms' enemy AI compiled over the batch (issue 29.6): the enemy move of every
game that asks one, in one compiled call over the batched arrays
(:class:`movecore.batch.BatchedGames`, the layout of :mod:`._batch`).

Per game, exactly what the live position's enemy AI answers (:mod:`._enemy_moves`, the
rules of :func:`.rules.enemy_turn`) for the game's figures:

1. the **target tier**: the marked characters in play, else the summons, else the heroes
   (none: no target, no move);
2. with more than one, the **closest, then fastest**: the enemy's steps to each
   target's space (an unbounded move of the enemy: the distance field; no route: the
   grid distance after every route), then the highest ``speed``; the ties that remain
   are all answered (the game rolls a die between them);
3. per target, the **destination**: the enemy stays when it is next to the target;
   else its **forward search** (the move's ends; a walker on a board with traps: the
   penalty kernel, traps as a second objective: each end's fewest traps and the
   least steps with them), the **reverse search** from the target's space (a walker:
   on the scene's trap-cost board, entering a trap costs ``W + 1``, another space 1,
   ``W = N + 1``: one scalar ``steps + W * traps`` per route, first bounded by a guess
   of the winner's steps left and checked, see :data:`REV_SLACK`; a flyer: from every
   empty space next to the target, the fewest steps), and the **lexicographic pick**
   of :func:`._enemy_pick._enemy_pick` (the same compiled function the position runs;
   the fast searches' :func:`_pick_fast` is the same order at less cost per end);
   the destination's steps and traps are its forward search's (the route the
   position's path follows: the least-penalty one).

By default (``fast``) the searches are breadth-first searches written for these rules
(every step 1, every figure blocking: see "the fast searches" below; as bit sets over
the padded grid where the board's neighbours are its grid's, ``use_bits``: "the bit
sets"), and the pick and
the closest target are first read from tables of the empty board's costs, kept per
layout (:func:`_tables`, boards up to :data:`TABLE_CELLS` spaces), wherever no figure
stands on a least route; before any search, the whole answer is read from one kept per
(kind of enemy, Move, start, target) on the board where only the mover and the target
stand (:meth:`BatchEnemyAI.keep`), wherever a least route there and back is free of
figures (:func:`_kept_answer`); with ``fast`` False the library's kernels (``reach1``, the
packed penalty kernel ``reach_pen``) on query shapes prepared once from the root
position run them, the reference the tests hold the fast path to. Either way each game's
occupant row is read, nothing is allocated per game and no Python object is made per
move.

Compiled scope (else the game's restored live position answers, as before): an
``enemy=True`` query of an enemy with ``move`` N or ``roll`` r [+ ``bonus``] and
``attack_range`` 1 (melee, the default), a move within the forward shape's budget, on a
scenario without ``pass_allies``, whose walkers avoid traps by detour (no
``trap_detour_limit``) or meet none, with at most 63 traps (the penalty levels tracked)
and ``(traps + 1) * (N + 1)`` within the kernels' budget -- the live position's own fast
path (``_EnemyMoves._enemy_turn``); the rest is answered there by the reference rules.
"""
from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.cpython.unsafe.numbers import trailing_zeros   # (LLVM's cttz: one instruction)

from ...kernels import _types as T
from ...kernels._jit import NO_NRT, once
from ...reach.compiled import (fast_layout_size, is_plain, pen_layout_size, pen_out_offset,
                               penalty_kernel, reach1_general, reach1_plain)
# (at module level, not in kernel(): the cache stamp of this module's compiled functions
# follows the modules imported here, and enemy_games links _enemy_pick's compiled pick;
# ``movecore._dependency_files``)
from . import _enemy_pick
from .rules import ENEMIES, MAX_MOVE, MAX_TRAPS_TRACKED, PLAYERS

#: the plain query shapes, packed one after another (an empty one: not needed)
FWD_WALK, FWD_FLY, FIELD_WALK, FIELD_FLY, REV_WALK = range(5)
_KIND = {"hex": 0, "square4": 1, "square8": 2}
#: the walker's reverse search is first bounded (the kernel's budget) by a guess of the
#: winner's steps left: the nearest forward end's grid distance to the target less one,
#: this many more (-1: the whole board at once). Every end left out must lose to the
#: pick on (traps, steps, steps left), else the whole board: exact whatever the guess
#: (only its cost depends on it)
REV_SLACK = 2
#: boards of at most this many spaces keep the enemies' cost tables (int32[N, N] per
#: kind of enemy: 4 MiB each at 1,024 spaces, 32 KiB at the bundled 91): the pick is
#: read from them when no figure stands on a least route to it; larger boards search
TABLE_CELLS = 1024
#: the walker's reverse search as bit sets keeps each step's trap entries of a level in
#: this many rows: up to REV_ROWS - 1 steps a level (a longer one searches the
#: neighbour table instead)
REV_ROWS = 65
#: the kept answers (:meth:`BatchEnemyAI.keep`: int32[2, Moves + 1, N, N]) only within
#: this many bytes (2 MiB at N = 362 and Moves 1-6; 0.45 MiB at the bundled 91)
KEPT_BYTES = 2 << 20


i64, i32, u8, i8, b1 = types.int64, types.int32, types.uint8, types.int8, types.boolean
f8 = types.float64
I64_1, I64_2, I32_1, I32_2 = i64[::1], i64[:, ::1], i32[::1], i32[:, ::1]
U8_1, U64_1, B_1, B_2 = u8[::1], types.uint64[::1], b1[::1], b1[:, ::1]
U8_2, U64_2 = u8[:, ::1], types.uint64[:, ::1]
I32_4 = i32[:, :, :, ::1]
I8_2 = i8[:, ::1]


@njit(i64(I32_1, I64_1, U8_1, I64_1, U64_1, I64_1, I64_2, i64, I32_1, I32_1, I32_2, I64_2,
          i64, i64), cache=T.CACHE, nogil=True)
def _plain_query(blobs, blob_at, qflags, qflags_at, zoc, zoc_at, params, k, occ, buf,
                 ends, no_queries, start, budget):
    """The ends of shape ``k``'s query (start, budget) on occupant row ``occ``, in
    ``ends[:, :n]`` (cell, cost, stopped); returns n (< 0: a kernel status)."""
    blob = blobs[blob_at[k]:blob_at[k + 1]]
    qf = qflags[qflags_at[k]:qflags_at[k + 1]]
    zc = zoc[zoc_at[k]:zoc_at[k + 1]]
    pk = params[k]
    if is_plain(blob, qf, zc, pk):
        return reach1_plain(blob, occ, qf, zc, pk, buf, ends, no_queries, start, budget)
    return reach1_general(blob, occ, qf, zc, pk, buf, ends, no_queries, start, budget)


@njit(i64(I64_2, i64, i64, i64), cache=T.CACHE, nogil=True, **NO_NRT)
def _grid_distance(coords, kind, a, b):
    """Grid distance of cells a and b (hex: axial; square4: orthogonal steps; square8:
    king steps), as :meth:`.rules.Scene.distances_from`."""
    dq = np.int64(coords[a, 0]) - coords[b, 0]
    dr = np.int64(coords[a, 1]) - coords[b, 1]
    if kind == 0:
        return (abs(dq) + abs(dr) + abs(dq + dr)) // 2
    if kind == 1:
        return abs(dq) + abs(dr)
    return max(abs(dq), abs(dr))


@njit(types.void(I64_2, B_1, I32_1, I32_1, i64, I64_1, I64_1), cache=T.CACHE, nogil=True)
def _flyer_rem(nbr, obstacle, occ, occ2, tg, rem, queue):
    """A flyer's steps left (``rem``, arriving filled with -1) from every space to the
    nearest goal: an empty space (``occ``) next to the target's ``tg`` that is no
    obstacle. One breadth-first search from all goals at once over the spaces free in
    ``occ2`` (the mover's own emptied; obstacles flown over): every step costs 1 (a
    flyer's move has no terrain cost), so this is the least over the goals of the
    position's search from each (``_EnemyMoves._enemy_dest``); obstacles, never an end
    of those searches, are -1."""
    EMPTY = np.int32(T.OCC_EMPTY)
    head = 0
    tail = 0
    for d in range(nbr.shape[1]):
        a = nbr[tg, d]
        if a >= 0 and not obstacle[a] and occ[a] == EMPTY and rem[a] < 0:
            rem[a] = 0
            queue[tail] = a
            tail += 1
    while head < tail:
        u = queue[head]
        head += 1
        for d in range(nbr.shape[1]):
            v = nbr[u, d]
            if v >= 0 and rem[v] < 0 and occ2[v] == EMPTY:
                rem[v] = rem[u] + 1
                queue[tail] = v
                tail += 1
    for i in range(tail):
        if obstacle[queue[i]]:
            rem[queue[i]] = -1


@njit(i64(I64_1, I64_2, I64_1, i64), cache=T.CACHE, nogil=True, **NO_NRT)
def _closest_fastest(tier, keys, speed, nt):
    """Keep in ``tier[:m]`` the targets of the least ``keys`` row (no route first, then
    steps), then the fastest of them; returns m."""
    k0 = keys[0, 0]
    k1 = keys[0, 1]
    for t in range(1, nt):
        if keys[t, 0] < k0 or (keys[t, 0] == k0 and keys[t, 1] < k1):
            k0 = keys[t, 0]
            k1 = keys[t, 1]
    fastest = np.int64(-1)
    for t in range(nt):
        if keys[t, 0] == k0 and keys[t, 1] == k1 and speed[tier[t]] > fastest:
            fastest = speed[tier[t]]
    m = 0
    for t in range(nt):
        if keys[t, 0] == k0 and keys[t, 1] == k1 and speed[tier[t]] == fastest:
            tier[m] = tier[t]
            m += 1
    return m


# ------------------------------------------------------------------ the fast searches
# Within the compiled scope every step of a Dark Realms move costs 1, every figure
# blocks (allies are not passed), a walker never enters an obstacle and a flyer flies
# over one: so each search of an enemy move is a breadth-first search over the board's
# neighbour table, written here for exactly those rules instead of the library's
# general kernels (their query set-up, budgets and bucket queue per call). Each reads
# ``free`` (uint8[N]: 1 = a space the mover may enter: no figure on it, and for a
# walker no obstacle), made per move from the game's occupant row, since every figure
# blocks every one of these searches. ``nbr`` is the neighbour table flattened
# (int32[N * K], -1 = none). ``tests/test_batch_dark_realms.py`` checks them against
# the kernels' path (``fast`` False) and the live positions.
_BIG = np.int32(1 << 30)


@njit(i64(I32_1, i64, U8_1, i64, i64, I32_1, I32_1), cache=T.CACHE, nogil=True)
def _bfs(nbr, K, free, start, budget, steps, queue):
    """The fewest steps from ``start`` to every space within ``budget`` steps through
    ``free`` spaces (``steps``, arriving filled with -1, stays -1 where not reached);
    the spaces reached are ``queue[:n]`` in breadth-first order (start first): returns
    n. int32[N] both."""
    steps[start] = 0
    queue[0] = start
    head = 0
    tail = 1
    while head < tail:
        u = queue[head]
        head += 1
        s = steps[u]
        if s >= budget:
            break                  # (breadth-first: every space after it is as far)
        base = u * K
        for d in range(K):
            v = nbr[base + d]
            if v >= 0 and free[v] and steps[v] < 0:
                steps[v] = s + 1
                queue[tail] = v
                tail += 1
    return tail


@njit(i64(I32_1, i64, U8_1, U8_1, i64, i64, I32_1, I32_1, I32_1, I64_1),
      cache=T.CACHE, nogil=True)
def _bfs_traps(nbr, K, free, trap, start, budget, least, steps, cells, states):
    """A walker's move with traps as a second objective, as the penalty kernel answers
    it: for every space reached within ``budget`` steps through ``free`` spaces, the
    fewest traps entered on a route within the budget (``least``, arriving filled with
    ``_BIG``) and the fewest steps of a route with that few (``steps``). The spaces
    reached are ``cells[:n]`` (start first): returns n.

    One breadth-first search over (space, traps so far): a state is pushed only with
    fewer traps than every state of its space found before (those have no more steps:
    breadth-first), which it therefore does not dominate away; so a space is pushed at
    most once per trap count it improves to, ``states`` (int64[S], S >= N * (the most
    traps a route within the budget crosses + 1) + 1; traps << 32 | steps << 16 |
    space... packed as (traps * 2**20 + steps) * 2**24 + space) is the queue."""
    least[start] = 0
    steps[start] = 0
    cells[0] = start
    n = 1
    states[0] = start
    head = 0
    tail = 1
    while head < tail:
        x = states[head]
        head += 1
        u = x & 0xFFFFFF
        s = (x >> 24) & 0xFFFFF
        p = x >> 44
        if s >= budget:
            break
        base = u * K
        for d in range(K):
            v = nbr[base + d]
            if v < 0 or not free[v]:
                continue
            p2 = p + trap[v]
            if p2 < least[v]:
                if least[v] == _BIG:
                    cells[n] = v
                    n += 1
                least[v] = p2
                steps[v] = s + 1
                states[tail] = (p2 << 44) | ((s + 1) << 24) | v
                tail += 1
    return n


@njit(i64(I32_1, i64, U8_1, U8_1, i64, i64, U8_1, i64, I64_1, I32_1, I32_1),
      cache=T.CACHE, nogil=True)
def _rev_walk(nbr, K, free, trap, tg, W, want, n_want, rem, fifo, tq):
    """The walker's reverse search from the target's space ``tg``: ``rem[c]`` = steps +
    ``W`` * traps of the route from ``tg`` to c with the fewest traps, then the fewest
    steps (entering a trap costs W + 1, another space 1: the scalar of the kernel's
    trap-cost board), through ``free`` spaces (the mover's own counted free); ``rem``
    arrives filled with -1. It stops once the ``n_want`` spaces marked in ``want`` are
    all settled (the pick reads no other; a space is settled when found, below).

    Layer by layer (traps so far): within a layer, the spaces it reached by a step
    (``fifo``, first in first out) and the traps entered from the layer before (``tq``,
    found in order of steps) are taken in order of steps, so every space is found first
    at its least (traps, steps). Returns ``a + (b << 32)``: the spaces settled are
    ``fifo[:a]`` and ``tq[:b]`` (the caller clears ``rem`` by them)."""
    rem[tg] = 0
    fifo[0] = tg
    tail = 1
    head = 0
    si = 0              # this layer's trap spaces are tq[si:se], in order of steps
    se = 0
    tt = 0              # tq[se:tt]: the next layer's, found so far
    left = n_want
    while left > 0:
        if head < tail or si < se:
            if si < se and (head >= tail or rem[tq[si]] <= rem[fifo[head]]):
                u = tq[si]
                si += 1
            else:
                u = fifo[head]
                head += 1
            k = rem[u]
            base = u * K
            for d in range(K):
                v = nbr[base + d]
                if v < 0 or not free[v] or rem[v] >= 0:
                    continue
                if trap[v]:
                    rem[v] = k + W + 1
                    tq[tt] = v
                    tt += 1
                else:
                    rem[v] = k + 1
                    fifo[tail] = v
                    tail += 1
                left -= want[v]
        elif tt > se:
            se = tt         # the next layer
        else:
            break
    return tail + (tt << 32)


@njit(i64(I32_1, i64, U8_1, U8_1, i64, U8_1, i64, I64_1, I32_1), cache=T.CACHE,
      nogil=True)
def _rev_fly(nbr, K, goal_ok, free, tg, want, n_want, rem, queue):
    """A flyer's steps left (``rem``, arriving filled with -1) from every space to the
    nearest goal: a space next to the target's ``tg`` that ``goal_ok`` (no figure, no
    obstacle); one breadth-first search from all goals at once through ``free`` spaces
    (obstacles flown over), every step 1: the least over the goals of the position's
    search from each (``_EnemyMoves._enemy_dest``). It stops once the ``n_want`` spaces
    marked in ``want`` are settled (the pick reads no other, none an obstacle); the
    spaces settled are ``queue[:n]``: returns n."""
    tail = 0
    left = n_want
    base = tg * K
    for d in range(K):
        a = nbr[base + d]
        if a >= 0 and goal_ok[a] and rem[a] < 0:
            rem[a] = 0
            queue[tail] = a
            tail += 1
            left -= want[a]
    head = 0
    while head < tail and left > 0:
        u = queue[head]
        head += 1
        k = rem[u] + 1
        base = u * K
        for d in range(K):
            v = nbr[base + d]
            if v >= 0 and free[v] and rem[v] < 0:
                rem[v] = k
                queue[tail] = v
                tail += 1
                left -= want[v]
    return tail


@njit(nogil=True, inline="always")
def _nearest_without_route(cells, t_now, s_now, nf, coords, kind, tg, rank):
    """Where no end of ``cells[:nf]`` has a route on to the target: the end nearest the
    target's ``tg`` by grid distance, ties by traps and steps so far and the space's
    ``rank`` (the position's pick's last rule); shared by :func:`_pick_body` and
    :func:`_pick_pk`."""
    best = -1
    k0 = k1 = k2 = k3 = np.int64(0)
    for j in range(nf):
        c = np.int64(cells[j])
        a0 = _grid_distance(coords, kind, c, tg)
        a1 = np.int64(t_now[j])
        a2 = np.int64(s_now[j])
        a3 = rank[c]
        if best < 0 or (a0, a1, a2, a3) < (k0, k1, k2, k3):
            best = j
            k0, k1, k2, k3 = a0, a1, a2, a3
    return best


@njit(nogil=True, inline="always")
def _pick_body(cells, t_now, s_now, nf, rem, flying, w, inv_w, trap, coords, kind, tg,
               rank):
    """The position's pick (:func:`._enemy_pick._enemy_pick`) of the ends ``cells[:nf]``
    for the fast searches: the same order of the same keys, the same answer, at less
    cost per end: a walker's ``rem // w`` and ``rem % w`` from a multiplication by
    ``inv_w`` (= 1 / w: no integer division per end); an end whose (traps in all,
    steps in all) already loses is passed over before its other keys; the grid distance
    to the target's ``tg`` is worked out only where a key reads it (next to the target,
    and the ends without a route on), not for every end before the pick."""
    best = -1
    k0 = k1 = k2 = k3 = k4 = k5 = np.int64(0)
    for j in range(nf):
        c = np.int64(cells[j])
        k = np.int64(rem[c])
        if k < 0:
            continue
        if flying:
            tr = np.int64(0)
            sr = k
        else:
            # (k + 0.5) / w lies at least 0.5 / w from an integer, and the product's
            # relative error is below 2**-52: exact while k < 2**50 (here k < 2**31)
            q = np.int64((k + 0.5) * inv_w)
            r = k - q * w
            tr = q - trap[c]
            sr = r - 1
            if sr < 0:
                continue
        tn = np.int64(t_now[j])
        a0 = tn + tr
        a1 = np.int64(s_now[j]) + sr
        if best >= 0 and (a0 > k0 or (a0 == k0 and a1 > k1)):
            continue
        a3 = -_grid_distance(coords, kind, c, tg) if sr == 0 else np.int64(0)
        a5 = rank[c]
        if best < 0 or (a0, a1, sr, a3, tn, a5) < (k0, k1, k2, k3, k4, k5):
            best = j
            k0, k1, k2, k3, k4, k5 = a0, a1, sr, a3, tn, a5
    if best >= 0:
        return best, 1
    return _nearest_without_route(cells, t_now, s_now, nf, coords, kind, tg, rank), 0


_PICK_SIG = (I32_1, I32_1, I32_1, i64, I64_1, b1, i64, f8, B_1, I64_2, i64, i64, I64_1)


@njit(types.UniTuple(i64, 2)(*_PICK_SIG), cache=T.CACHE, nogil=True, **NO_NRT)
def _pick_fast(cells, t_now, s_now, nf, rem, flying, w, inv_w, trap, coords, kind, tg,
               rank):
    """:func:`_pick_body` over the costs ``rem`` (int64[N])."""
    return _pick_body(cells, t_now, s_now, nf, rem, flying, w, inv_w, trap, coords, kind,
                      tg, rank)


@njit(types.UniTuple(i64, 2)(I32_1, I32_1, I32_1, i64, I32_1, i64, I64_2, i64, i64,
                             I64_1), cache=T.CACHE, nogil=True, **NO_NRT)
def _pick_pk(cells, t_now, s_now, nf, row, bias, coords, kind, tg, rank):
    """:func:`_pick_body`'s answer where each end's traps and steps left are read
    packed from a table's row (int32[N], no copy of it): ``row[c] - bias`` is
    ``traps << 16 | steps`` (less than 0: no route on), so an end's traps and steps
    in all are one sum, ``(t_now << 16) + s_now`` plus it (steps below 2**16), and an
    end that loses on it is passed over after one comparison (the walker's packed
    table, :func:`_tables`; the flyer's steps from the target's space less one,
    ``bias`` 1, where every space next to the target is a goal)."""
    best = -1
    bA = k2 = k3 = k4 = k5 = np.int64(0)
    for j in range(nf - 1, -1, -1):    # (the ends most steps away first: the winner
        c = np.int64(cells[j])         # is most often one of them)
        v = np.int64(row[c]) - bias
        if v < 0:
            continue
        tn = np.int64(t_now[j])
        A = (tn << 16) + np.int64(s_now[j]) + v
        if best >= 0 and A > bA:
            continue
        sr = v & 0xFFFF
        a3 = -_grid_distance(coords, kind, c, tg) if sr == 0 else np.int64(0)
        a5 = rank[c]
        if best < 0 or A < bA or (sr, a3, tn, a5) < (k2, k3, k4, k5):
            best = j
            bA, k2, k3, k4, k5 = A, sr, a3, tn, a5
    if best >= 0:
        return best, 1
    return _nearest_without_route(cells, t_now, s_now, nf, coords, kind, tg, rank), 0


#: :func:`_pick_pk` inlined where ``enemy_games`` calls it (with :func:`_fwd_bits`, its
#: most frequent call: as a call it passed its arrays field by field, each a struct of
#: seven words, which cost more than many a pick; docs/performance_log.md)
_pick_pk_in = njit(nogil=True, inline="always")(_pick_pk.py_func)


@njit(types.void(I32_1, i64, U8_1, U8_1, i64, I32_2, I64_1, I32_1, I32_1, U8_1),
      cache=T.CACHE, nogil=True)
def _tables(nbr, K, free, trap, W, out, rem, fifo, tq, want):
    """``out[x, y]``: the least cost from space x to space y on the board with no
    figure on it, through ``free`` spaces (x itself whatever it is; -1: no route, or x
    not free): with ``W`` > 0 the walker's reverse cost of :func:`_rev_walk` (steps +
    W * traps), with ``W`` = 0 the fewest steps. ``rem`` (int64[N], -1), ``fifo``,
    ``tq`` (int32[N]) and ``want`` (uint8[N], 0) are workspace."""
    N = out.shape[0]
    for x in range(N):
        for y in range(N):
            out[x, y] = -1
        if not free[x]:
            continue
        if W > 0:
            # (want holds no space: the whole board)
            got = _rev_walk(nbr, K, free, trap, x, W, want, N + 1, rem, fifo, tq)
            for j in range(got & 0xFFFFFFFF):
                out[x, fifo[j]] = rem[fifo[j]]
                rem[fifo[j]] = -1
            for j in range(got >> 32):
                out[x, tq[j]] = rem[tq[j]]
                rem[tq[j]] = -1
        else:
            for y in range(N):
                fifo[y] = -1             # (the steps)
            for j in range(_bfs(nbr, K, free, x, N, fifo, tq)):
                out[x, tq[j]] = fifo[tq[j]]


@njit(b1(I32_2, I32_2, B_2, i64, i64, i64, i64, i64), cache=T.CACHE, nogil=True, **NO_NRT)
def _no_figure_on_a_route(table, cell, alive, b, skip1, skip2, x, y):
    """True when no figure of game ``b`` (its spaces ``cell[b]``, in play ``alive[b]``)
    but those on ``skip1`` and ``skip2`` stands on any least route of ``table`` (the
    board with no figure on it) from x to y: then such a route is free in the game as
    well, and the game's least cost from x to y is ``table[x, y]`` (it is never less:
    figures only block). A figure's space f is on one iff table[x, f] + table[f, y]
    equals table[x, y]."""
    k = table[x, y]
    for s in range(cell.shape[1]):
        if not alive[b, s]:
            continue
        f = np.int64(cell[b, s])
        if f == skip1 or f == skip2:
            continue
        a = table[x, f]
        if a >= 0:
            c = table[f, y]
            if c >= 0 and a + c == k:
                return False
    return True


@njit(nogil=True, inline="always")
def _route_free(tab, cell, alive, b, ecell, skip2, x, y, nbr):
    """True where game ``b`` has a least route of ``tab`` (the board with no figure on
    it; -1: no route) from x to y that no figure holds (but the mover's space
    ``ecell``, free, and ``skip2``): no figure on any (:func:`_no_figure_on_a_route`),
    or a space next to x or to y on a least route with no figure on any from x to it
    nor from it to y. Either is such a route: its cost in the game is the table's
    (figures only block, so never less)."""
    if _no_figure_on_a_route(tab, cell, alive, b, ecell, skip2, x, y):
        return True
    k = tab[x, y]
    for end in range(2):
        z = x if end == 0 else y
        for d in range(nbr.shape[1]):
            a = nbr[z, d]
            if a < 0:
                continue
            u = tab[x, a]
            v = tab[a, y]
            if u >= 0 and v >= 0 and u + v == k and \
                    _no_figure_on_a_route(tab, cell, alive, b, ecell, skip2, x, a) and \
                    _no_figure_on_a_route(tab, cell, alive, b, ecell, skip2, a, y):
                return True
    return False


@njit(nogil=True, inline="always")
def _kept_answer(kept, fly, move, ecell, tg, cell, alive, b, tab_walk, tab_fly, nbr,
                 obstacle, use_bits, wfb, wfree, bpos):
    """The enemy's answer kept for (its kind ``fly``, ``move``, its space ``ecell``, the
    target's ``tg``) where game ``b``'s figures leave it as it is, else -1.

    ``kept[fly, move, ecell, tg]`` (int32, -1: none; see :meth:`BatchEnemyAI.keep`)
    packs ``dest | steps << 16 | traps << 24``: the pick on the board where only the
    target stands (the mover's own space free), kept where the destination has a
    route on to the target and its forward steps and traps are the least from
    ``ecell`` on the board with no figure on it (``tab_walk`` for a walker, the scalar
    ``steps + W * traps``; ``tab_fly`` for a flyer: steps). Every figure only blocks,
    so in a game every forward end's and every reverse cost's keys of the pick are at
    least that board's (no fewer traps; as few and no fewer steps), and an end of
    equal (traps, steps) in all has the same keys: where the destination keeps its
    keys, it still wins. It keeps them where a least route (on the board with no
    figure) from ``ecell`` to it is free this move (:func:`_route_free`: its forward
    steps and traps, within the move as kept), and one from the target's space to it
    (a walker's reverse cost; a flyer's: from a goal of the game, a space next to the
    target that no figure holds and no obstacle (``use_bits``: ``wfb``'s bit, else
    ``wfree``: the mover's space free), whose steps there are the least of every space
    next to the target with no obstacle on the board with no figure).

    -2 where a walker's forward route is free and its route back is not: then the
    tables' pick over the game's forward ends (the reverse costs of the board with no
    figure, which are this board's) is this destination again (its keys the same, every
    other end's no less), and the tables' check of it (no figure on a least route
    back) fails: the caller goes straight to the reverse search."""
    v = np.int64(kept[np.int64(fly), move, ecell, tg])
    c = v & 0xFFFF
    # (one call site per route: each is inlined, and every copy adds to the compile)
    tab = tab_fly if fly else tab_walk
    if not _route_free(tab, cell, alive, b, ecell, -1, ecell, c, nbr):
        return np.int64(-1)
    kb = np.int64(-1)
    if fly:
        for d in range(nbr.shape[1]):
            a = nbr[tg, d]
            if a >= 0 and not obstacle[a]:
                x = np.int64(tab_fly[a, c])
                if x >= 0 and (kb < 0 or x < kb):
                    kb = x
    # the route back: the walker's from the target's space, the flyer's from a goal
    for d in range(nbr.shape[1] if fly else 1):
        x = tg
        skip = tg
        if fly:
            x = nbr[tg, d]
            skip = -1
            if x < 0 or tab_fly[x, c] != kb or not (_has(wfb, bpos[x]) if use_bits else
                                                    wfree[x] != 0):
                continue
        if _route_free(tab, cell, alive, b, ecell, skip, x, c, nbr):
            return v
    return np.int64(-1) if fly else np.int64(-2)


@njit(nogil=True, inline="always")
def _put_end(b, e, dest, steps, a_list, a_cost, a_stop, a_n, usable):
    """Game ``b``'s enemy ``e``'s end ``dest`` (``steps``; stop 0) into the kept answer
    (``keep_answer``'s form: ``a_list`` int32[B, P] the usable ends of the row, by
    place, ``a_n`` int64[B] how many, ``a_cost``/``a_stop`` [B, P] at those places),
    where the figure may use it (``usable`` uint8[F, P]): what the mask row's entry
    and the step's scan of it made, without the row (a tie's later target's entry over
    an earlier one's on the same space, as the rows are written)."""
    if usable[e, dest] == 0:
        return
    n = a_n[b]
    j = 0
    while j < n and a_list[b, j] < dest:
        j += 1
    if j == n or a_list[b, j] != dest:
        for k in range(n, j, -1):
            a_list[b, k] = a_list[b, k - 1]
        a_list[b, j] = dest
        a_n[b] = n + 1
    a_cost[b, dest] = steps
    a_stop[b, dest] = 0


@njit(nogil=True, inline="always")
def _write_end(b, e, dest, steps, traps, lists, costs, want_pen, mask, cost, stop, pen,
               a_list, a_cost, a_stop, a_n, usable):
    """Game ``b``'s enemy ``e``'s answer ``dest`` (``steps``, ``traps``) written where
    the kernel's call wants it (see :func:`kernel`): the kept answer
    (:func:`_put_end`) or the rows (``mask``, and ``cost``/``stop`` where ``costs``),
    and the traps (``pen``) where ``want_pen``."""
    if lists:
        _put_end(b, e, dest, steps, a_list, a_cost, a_stop, a_n, usable)
    else:
        mask[b, dest] = 1
        if costs:
            cost[b, dest] = steps
            stop[b, dest] = 0
    if want_pen:
        pen[b, dest] = traps


# ------------------------------------------------------------------ the bit sets
# Where the board's neighbours are exactly its grid's (:func:`grid_layout`), a space is
# one bit of the padded grid (each column one bit longer than the board, so a step off
# the board never wraps onto a space) and a step in a direction is a shift by a fixed
# number of bits: a breadth-first layer is the last one shifted every way, within the
# spaces free this move, a few word operations with no branch per space. The fast
# searches of the forward move (:func:`_fwd_bits`) and the closest target
# (:func:`_field_bits`) run so, with each space's steps read from the layer that first
# holds it; the neighbour-table searches above stay for other boards and for the
# reverse searches (a figure on a least route). ``tests/test_batch_dark_realms.py``
# holds them to the neighbour-table searches and the kernels' path.
_U1 = np.uint64(1)


@njit(nogil=True, inline="always")
def _step_word(src, w, sp, sn):
    """Word ``w`` of the bits one step from ``src`` (uint64[W]) in any direction: the
    directions' bit offsets, 1-63 each, split into the positive ones ``sp`` and the
    magnitudes of the negative ones ``sn`` (uint64[4] each: a board's at most four of
    each, repeated to four, so the loops have a fixed length and are unrolled);
    ``src`` itself not included, bits shifted past either end dropped. One pass over
    the word and its two neighbours."""
    W = src.shape[0]
    x = src[w]
    lo = src[w - 1] if w > 0 else np.uint64(0)
    hi = src[w + 1] if w + 1 < W else np.uint64(0)
    out = np.uint64(0)
    for d in range(4):
        k = sp[d]
        out |= (x << k) | (lo >> (np.uint64(64) - k))
    for d in range(4):
        k = sn[d]
        out |= (x >> k) | (hi << (np.uint64(64) - k))
    return out


@njit(nogil=True, inline="always")
def _new_step(cur, sp, sn, free, out):
    """``out`` (uint64[W]) = the ``free`` spaces one step from ``cur`` that ``cur``
    does not hold yet (a breadth-first search's next layer); True where there is one."""
    grew = False
    for w in range(cur.shape[0]):
        x = _step_word(cur, w, sp, sn) & free[w] & ~cur[w]
        out[w] = x
        if x:
            grew = True
    return grew


@njit(nogil=True, inline="always")
def _has(bits, p):
    """Bit ``p`` of the uint64 words ``bits``."""
    return (bits[p >> 6] >> np.uint64(p & 63)) & _U1 != 0


@njit(i64(i64, i64, U64_1, U64_1, i64, U64_1, U64_1, I64_1, I64_1, B_1, b1, U64_2, U64_2,
          U64_1, I32_1, I32_1, I32_1), cache=T.CACHE, nogil=True, **NO_NRT)
def _fwd_bits(start, budget, free, trapb, max_level, sp, sn, bpos, bat, obstacle, fly, L,
              E, prev, fc, ft, fs):
    """The forward search of :func:`_bfs_traps` (traps ``trapb`` as a second objective;
    with no trap bits, :func:`_bfs`'s steps) as bit sets: every space reached within
    ``budget`` steps from ``start`` through ``free`` spaces (uint64[W], the start's
    among them), with the fewest traps entered on a route within the budget and the
    fewest steps of a route with that few, written as ends ``fc``, ``ft``, ``fs``
    (cell, traps, steps; int32[N]) -- a flyer's (``fly``) leaving out ``obstacle``
    spaces; returns their number. Their order is by traps, then steps, then bit (the
    pick's order does not depend on it: its last key, the rank, is one per space).

    Level p of traps: ``L[s]`` (uint64[budget + 1, W]) is every space reached within s
    steps entering at most p traps; ``L[s] = L[s-1] | (step(L[s-1]) & free & ~trap) |
    E[s]``, ``E[s]`` the traps one step from level p - 1's ``L[s-1]`` (kept from that
    level's pass). A space's traps are the first level holding it within the budget,
    its steps the first layer of that level holding it. The next level is made only
    while a trap one step from this level's layer lies outside it (else it equals
    this one), at most ``max_level`` (a route entering a trap twice has a shortcut
    with fewer of both), and it computes only its layers from the first step whose trap
    entries lie outside the level before (the layers before are that level's). ``E``
    and ``prev`` (uint64[W]): workspace; ``sp``, ``sn``:
    the directions' bit offsets (:func:`_step_word`); ``bpos``: each space's bit,
    ``bat``: each bit's space (-1 none)."""
    W = free.shape[0]
    p0 = bpos[start]
    for s in range(budget + 1):
        for w in range(W):
            E[s, w] = 0
    for w in range(W):
        prev[w] = 0
    nf = 0
    level = 0
    for w in range(W):
        L[0, w] = 0
    L[0, p0 >> 6] = _U1 << np.uint64(p0 & 63)
    s0 = 1              # the first layer this level changes (see below)
    while True:
        s1 = budget + 1     # the first layer the next level changes
        for s in range(s0, budget + 1):
            src = L[s - 1]
            for w in range(W):
                x = _step_word(src, w, sp, sn) & free[w]
                t = x & trapb[w]
                v = L[s - 1, w] | (x & ~trapb[w]) | E[s, w]
                L[s, w] = v
                E[s, w] = t
                if t & ~v and s1 > budget:
                    s1 = s
        for s in range(s0 - 1, budget + 1):
            for w in range(W):
                x = L[s, w] & ~prev[w]
                if s > 0:
                    x &= ~L[s - 1, w]
                while x:
                    c = bat[(w << 6) + trailing_zeros(x)]
                    x &= x - _U1
                    if fly and obstacle[c]:
                        continue
                    fc[nf] = c
                    ft[nf] = level
                    fs[nf] = s
                    nf += 1
        for w in range(W):
            prev[w] = L[budget, w]
        level += 1
        if s1 > budget or level > max_level:
            break
        # the next level's layers before s1 are this one's, and so are its trap
        # entries there (E, kept): level p + 1's L[s] is level p's with E[s] added
        # (E only grows from level to level: L does), and below s1 every E[s] lies
        # within level p's L[s] already; so it is computed from s1 on, and only its
        # layers from s1 - 1 on can hold a space new to it
        s0 = s1
    return nf


#: :func:`_fwd_bits` inlined where ``enemy_games`` calls it (see :data:`_pick_pk_in`)
_fwd_bits_in = njit(nogil=True, inline="always")(_fwd_bits.py_func)


@njit(types.void(i64, U64_1, U64_2, I32_2, i64, I64_1, i64, I64_2, I64_2, i64, U64_1,
                 U64_1, I64_1, U64_1, U64_1), cache=T.CACHE, nogil=True, **NO_NRT)
def _field_bits(start, free, nbb, cell, b, tier, nt, keys, coords, kind, sp, sn, bpos,
                cur, g):
    """The closest-target keys of :func:`_closest_fastest` for the targets
    ``tier[:nt]`` of game ``b`` from a breadth-first search from ``start`` through
    ``free`` spaces (uint64[W]) as bit sets: a target's steps are one more than the
    first layer holding a space next to it (``nbb``: uint64[N, W], each space's
    neighbours), ``keys[t] = (0, steps)``; none once the layers stop growing:
    ``(1, grid distance)``. It stops once every target is answered. ``cur``, ``g``:
    uint64[W] workspace."""
    W = free.shape[0]
    for w in range(W):
        cur[w] = 0
    p0 = bpos[start]
    cur[p0 >> 6] = _U1 << np.uint64(p0 & 63)
    for t in range(nt):
        keys[t, 0] = -1
    left = nt
    s = 0
    while True:
        for t in range(nt):
            if keys[t, 0] < 0:
                tc = cell[b, tier[t]]
                for w in range(W):
                    if cur[w] & nbb[tc, w]:
                        keys[t, 0] = 0
                        keys[t, 1] = s + 1
                        left -= 1
                        break
        if left == 0:
            break
        grew = _new_step(cur, sp, sn, free, g)
        for w in range(W):
            cur[w] |= g[w]
        if not grew:
            break
        s += 1
    for t in range(nt):
        if keys[t, 0] < 0:
            keys[t, 0] = 1
            keys[t, 1] = _grid_distance(coords, kind, start, np.int64(cell[b, tier[t]]))


@njit(nogil=True, inline="always")
def _settle(x, w, bat, rem, value):
    """``rem[c] = value`` for the space ``c`` of every bit of ``x`` (word ``w``);
    returns how many."""
    n = 0
    while x:
        rem[bat[(w << 6) + trailing_zeros(x)]] = value
        x &= x - _U1
        n += 1
    return n


@njit(nogil=True, inline="always")
def _count(bits):
    """The bits set in ``bits`` (uint64[W])."""
    n = 0
    for w in range(bits.shape[0]):
        x = bits[w]
        while x:
            x &= x - _U1
            n += 1
    return n


@njit(i64(i64, U64_1, U64_1, U64_1, i64, i64, U64_1, U64_1, I64_1, I64_1, U64_2, U64_1,
          U64_1, U64_1, U64_1, I64_1), cache=T.CACHE, nogil=True, **NO_NRT)
def _rev_walk_bits(tg, free, trapb, want, Wt, max_level, sp, sn, bpos, bat, E, cur, nxt,
                   fprev, elast, rem):
    """:func:`_rev_walk` as bit sets, for the spaces of ``want`` (uint64[W]) alone:
    ``rem[c]`` = steps + ``Wt`` * traps of the route from ``tg`` to c with the fewest
    traps, then the fewest steps, through ``free`` spaces (``rem`` arriving -1 there;
    left -1 where there is none). The levels of :func:`_fwd_bits` from ``tg``, each
    run until it stops growing (its trap entries ``E[s]`` from the level before, the
    last repeated once that level stopped), and it stops once every space of
    ``want`` is settled (a space of level p first held at step s: ``s + Wt * p``,
    exact once level p - 1 is complete). Returns 0, or -1 when a level needs more
    steps than ``E`` has rows (the caller then searches the neighbour table).
    ``cur``, ``nxt``, ``fprev``, ``elast``: uint64[W] workspace."""
    W = free.shape[0]
    R = E.shape[0]
    left = _count(want)
    for w in range(W):
        fprev[w] = 0
        elast[w] = 0
    e_len = 0
    p0 = bpos[tg]
    level = 0
    while True:
        for w in range(W):
            cur[w] = 0
        cur[p0 >> 6] = _U1 << np.uint64(p0 & 63)
        for w in range(W):
            left -= _settle(cur[w] & want[w] & ~fprev[w], w, bat, rem, Wt * level)
        if left <= 0:
            return 0
        more = False
        s = 0
        while True:
            s += 1
            if s >= R:
                return -1
            grew = False
            for w in range(W):
                x = _step_word(cur, w, sp, sn) & free[w]
                t = x & trapb[w]
                v = cur[w] | (x & ~trapb[w]) | (E[s, w] if s < e_len else elast[w])
                nxt[w] = v
                E[s, w] = t
                if t & ~v:
                    more = True
                if v != cur[w]:
                    grew = True
            value = s + Wt * level
            for w in range(W):
                left -= _settle(nxt[w] & ~cur[w] & want[w] & ~fprev[w], w, bat, rem,
                                value)
                cur[w] = nxt[w]
            if left <= 0:
                return 0
            if not grew and s >= e_len:
                break       # (this level holds no more: every later step the same)
        for w in range(W):
            fprev[w] = cur[w]
            elast[w] = E[s, w]
        e_len = s + 1
        level += 1
        if not more or level > max_level:
            return 0


@njit(types.void(i64, U64_1, U64_1, U64_1, U64_1, U64_1, U64_2, I64_1, U64_1, U64_1,
                 I64_1), cache=T.CACHE, nogil=True, **NO_NRT)
def _rev_fly_bits(tg, goal_ok, free, want, sp, sn, nbb, bat, cur, nxt, rem):
    """:func:`_rev_fly` as bit sets, for the spaces of ``want`` alone: ``rem[c]``, the
    fewest steps from a goal (a space next to ``tg`` that ``goal_ok``) to c through
    ``free`` spaces; a breadth-first search from all goals at once, stopped once every
    space of ``want`` is settled. ``cur``, ``nxt``: uint64[W] workspace."""
    W = free.shape[0]
    left = _count(want)
    for w in range(W):
        cur[w] = nbb[tg, w] & goal_ok[w]
        left -= _settle(cur[w] & want[w], w, bat, rem, 0)
    s = 0
    while left > 0:
        s += 1
        grew = _new_step(cur, sp, sn, free, nxt)
        if not grew:
            break
        for w in range(W):
            left -= _settle(nxt[w] & want[w], w, bat, rem, s)
            cur[w] |= nxt[w]


def grid_layout(board):
    """The padded grid of ``board`` as bits, or None: ``(bpos, shifts, W)``, each
    space's bit (its column times the column's length plus one, plus its row: the
    spare bit per column keeps a step off the board from wrapping onto another space),
    each grid direction's bit offset (int64), the uint64 words. None unless every
    space's neighbours (``board.nbr``) are exactly the spaces one direction's offset
    away (and the grid within 65,536 bits)."""
    dirs = {"hex": ((1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1)),
            "square4": ((1, 0), (-1, 0), (0, 1), (0, -1)),
            "square8": ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1), (1, -1),
                        (-1, 1))}.get(board.kind)
    n = board.n_cells
    if dirs is None or n == 0:
        return None
    xy = np.asarray(board.coords, np.int64)
    lo = xy.min(0)
    span = xy.max(0) - lo + 1
    S = int(span[1]) + 1
    nbits = int(span[0]) * S
    if nbits > 1 << 16:
        return None
    bpos = (xy[:, 0] - lo[0]) * S + (xy[:, 1] - lo[1])
    at = np.full(nbits, -1, np.int64)
    at[bpos] = np.arange(n)
    shifts = np.array([dx * S + dy for dx, dy in dirs], np.int64)
    for c in range(n):
        p = bpos[c] + shifts
        got = {int(at[q]) for q in p[(p >= 0) & (p < nbits)] if at[q] >= 0}
        if got != {int(v) for v in board.nbr[c] if v >= 0}:
            return None
    return bpos, shifts, -(-nbits // 64)


def _four(k) -> np.ndarray:
    """uint64[4]: the offsets ``k`` (1-4 of them, each 1-63), the last repeated (an
    offset twice ORs the same bits twice)."""
    k = [int(v) for v in k]
    return np.array(k + [k[-1]] * (4 - len(k)), np.uint64)


def grid_bits(board, occ0, cell0):
    """The padded grid of ``board`` as bits, or None: ``(bpos, shifts, W)``, each
    space's bit (its column times the column's length plus one, plus its row: the
    spare bit per column keeps a step off the board from wrapping onto another space),
    each grid direction's bit offset, the uint64 words
    (:func:`grid_layout`). None unless every
    space's neighbours (``board.nbr``) are exactly the spaces one direction's offset
    away, and the root's occupied spaces are exactly its figures' (so a game's
    figures' spaces are its occupancy)."""
    grid = grid_layout(board)
    if grid is None:
        return None
    held = np.flatnonzero(np.asarray(occ0) != T.OCC_EMPTY)
    if sorted(held.tolist()) != sorted(int(c) for c in cell0 if c >= 0):
        return None
    return grid


def bits_of(rows, bpos, W) -> np.ndarray:
    """uint64[len(rows), W]: each row's spaces (nonzero entries) as bits."""
    out = np.zeros((len(rows), W), np.uint64)
    for i, row in enumerate(rows):
        for c in np.flatnonzero(row).tolist():
            out[i, bpos[c] >> 6] |= np.uint64(1) << np.uint64(bpos[c] & 63)
    return out


@once
def kernel():
    """``enemy_games``, compiled (or loaded from Numba's cache) on first use: it links
    the packed penalty kernel and the position's compiled pick, both compiled on first
    use themselves (globals, as :func:`movecore.kernels.batch.reach_games_pen`: a
    dispatcher in a closure would change Numba's cache key every process; an edit of
    the files they are written in recompiles this one: ``_enemy_pick`` is imported at
    the module's level, which movecore's cache stamp follows, and every kernel file is
    in it).

    ``enemy_games(games, slots, moves, occ, cell, alive, *BatchEnemyAI.args.values(),
    mask, cost, stop, pen, want_pen, *lists)``: for ``i < len(games)``, the enemy AI's move of
    figure slot ``slots[i]`` with Move ``moves[i]`` (attack range 1) in game ``b =
    games[i]`` (its ``occ[b]``, ``cell[b]``, ``alive[b]``), written into row ``b`` of
    ``mask``, ``cost`` (steps), ``stop`` (0) and, with ``want_pen``, ``pen`` (traps on
    the route): one entry per target of the tie, a later target's over an earlier one's
    on the same space (as a live position's rows are written). The rows must be
    cleared before. ``cost`` and ``stop`` both with no rows (:data:`NO_COST`,
    :data:`NO_STOP`): the mask alone is written (the chunked self-play step reads no
    more; two rows a game fewer to bring into the cache). ``lists`` (``a_list, a_cost,
    a_stop, a_n, usable``; :data:`NO_LIST`: none): each game's answer written straight
    into the vector env's kept answer instead of ``mask``/``cost``/``stop``
    (:func:`_put_end`: ``a_n[b]`` set, 0 where there is no target), what the whole
    step's scan of each answer's mask row made (``keep_answer``); the rows are then
    neither read nor written (nor need clearing). Returns 0, or a kernel STATUS_* < 0.

    Compiled without Numba's reference counting (its private ``_nrt`` option, as
    :mod:`movecore.rl._vecgame`'s steps): it allocates nothing (its empty inputs come
    in ``args``), and every array view it takes (a game's row, the ends ``fc[:nf]``)
    would otherwise cost an atomic increment and decrement."""
    global _RP, _PICK
    _RP = penalty_kernel()
    _PICK = _enemy_pick._pick()

    # the dense outputs may be a column block of a wider array: any layout
    a2 = (types.uint8[:, :], types.int32[:, :], types.int8[:, :], types.int32[:, :])

    @njit(i64(I64_1, I64_1, I64_1, I32_2, I32_2, B_2, I64_1, B_1, B_1, I64_1, B_1, I64_2,
              i64, I64_2, B_1, B_1, I64_1, i64, i64, i64, i64, i64, b1, I32_1, I64_1, U8_1,
              I64_1, U64_1, I64_1, I64_2, I32_1, U8_1, U64_1, U64_1, I32_1, I64_1, I32_1,
              I32_1, i64, I32_2, I64_2, I32_2, I32_1, I64_1, I64_2, b1, I32_1, U8_1,
              U8_1, I32_2, U8_2, I64_1, I64_1, U8_1, b1, b1, I32_2, I32_2, I32_2, I32_2,
              I64_1, I64_1, I32_4, i64, b1, I64_1, I64_1, U64_1, U64_1, U64_1, U64_1,
              U64_1, U64_2,
              U64_2, U64_2, U64_2, U64_2, U64_2, I64_1, I64_2, I32_2, *a2, b1, I32_2,
              I32_2, I8_2, I64_1, U8_2),
          cache=T.CACHE, nogil=True, **NO_NRT)
    def enemy_games(games, slots, moves, occ, cell, alive, team, marked, summon, speed,
                    flying, coords, kind, nbr, obstacle, trap, rank, n_traps, W,
                    rev_budget, field_budget, rev_slack, rev_check, blobs, blob_at, qflags,
                    qflags_at, zoc, zoc_at, params, pblob, pqflags, pzoc, pleave, penter,
                    pparams, buf, pbuf, out_at, ends, scratch, fwd, occ2, tier, keys, fast,
                    nbrf, trap8, walk_ok, fscr, free2, remf, states, want, use_tab,
                    tab_check, tab_walk, tab_wpk, tab_wstep, tab_fly, goals, tab_hits, kept,
                    kept_top, use_bits, bpos, bat, sp, sn, walk_bits, all_bits, trap_bits,
                    nbb, bfree, blay, bent, brev, bw, bit_hits, no_queries, rows_mode, mask,
                    cost, stop, pen, want_pen, a_list, a_cost, a_stop, a_n, usable):
        costs = cost.shape[0] > 0 and stop.shape[0] > 0   # (else only the mask)
        lists = a_n.shape[0] > 0    # (the kept answer instead of the rows: NO_LIST)
        N = occ.shape[1]
        F = cell.shape[1]
        K = nbr.shape[1]
        EMPTY = np.int32(T.OCC_EMPTY)
        field = scratch[0]
        dist = scratch[1]
        rem = scratch[2]
        fc = fwd[0]              # the forward ends: cells, traps now, steps now
        ft = fwd[1]
        fs = fwd[2]
        for i in range(games.shape[0]):
            b = games[i]
            e = slots[i]
            move = moves[i]
            ecell = np.int64(cell[b, e])
            fly = flying[e]
            o = occ[b]
            if lists:
                a_n[b] = 0
            # 1. the tier: marked characters, else summons, else heroes (slot order)
            nt = 0
            for s in range(F):
                if alive[b, s] and team[s] == PLAYERS and marked[s]:
                    tier[nt] = s
                    nt += 1
            if nt == 0:
                for s in range(F):
                    if alive[b, s] and team[s] == PLAYERS and summon[s]:
                        tier[nt] = s
                        nt += 1
            if nt == 0:
                for s in range(F):
                    if alive[b, s] and team[s] == PLAYERS:
                        tier[nt] = s
                        nt += 1
            if nt == 0:
                continue                           # no target: no move
            if fast:
                # the fast searches (this module's breadth-first searches; the same
                # answers as the kernels' path below, which ``fast`` False runs)
                wfree = free2[0]         # a walker's spaces to enter (a flyer's goals)
                free = free2[1] if fly else wfree
                if use_bits:
                    # the spaces free this move as bits (every space a figure holds
                    # is a figure's: see ``grid_layout``); the byte rows only where a
                    # neighbour-table search needs them (``rows`` below)
                    wfb = bfree[0]
                    ffb = bfree[1]
                    for w in range(wfb.shape[0]):
                        wfb[w] = walk_bits[w]
                        ffb[w] = all_bits[w]
                    for s in range(F):
                        if alive[b, s]:
                            p = bpos[cell[b, s]]
                            m = ~(np.uint64(1) << np.uint64(p & 63))
                            wfb[p >> 6] &= m
                            ffb[p >> 6] &= m
                    p = bpos[ecell]          # the mover's own space (see _bfs_traps)
                    wfb[p >> 6] |= np.uint64(1) << np.uint64(p & 63)
                    ffb[p >> 6] |= np.uint64(1) << np.uint64(p & 63)
                    fb = ffb if fly else wfb
                    rows = False
                else:
                    fb = wfb = bfree[0]      # (not read)
                    for c in range(N):
                        wfree[c] = walk_ok[c] & (o[c] == EMPTY)
                    wfree[ecell] = 1     # the mover's own space (see _bfs, _bfs_traps)
                    if fly:
                        for c in range(N):
                            free[c] = o[c] == EMPTY
                        free[ecell] = 1
                    rows = True
                field_f = fscr[0]
                order = fscr[1]
                nq = 0
                field_done = False
                if nt > 1 and use_tab:
                    # 2. the closest in steps, first from the tables: a target's steps
                    # are exact when no figure stands on a least route (no figure on
                    # the board) to the space next to it nearest there
                    stab = tab_fly if fly else tab_wstep
                    field_done = True
                    for t in range(nt):
                        tc = np.int64(cell[b, tier[t]])
                        best = np.int64(-1)
                        bv = np.int64(-1)
                        for d in range(K):
                            v = nbr[tc, d]
                            if v >= 0 and (_has(fb, bpos[v]) if use_bits else free[v] != 0):
                                x = np.int64(stab[ecell, v])
                                if x >= 0 and (best < 0 or x + 1 < best):
                                    best = x + 1
                                    bv = v
                        if best >= 0:
                            if tab_check and not _no_figure_on_a_route(
                                    stab, cell, alive, b, ecell, -1, ecell, bv):
                                field_done = False
                                break
                            keys[t, 0] = 0
                            keys[t, 1] = best
                        else:
                            keys[t, 0] = 1
                            keys[t, 1] = _grid_distance(coords, kind, ecell, tc)
                    tab_hits[2 if field_done else 3] += 1
                    if field_done:
                        nt = _closest_fastest(tier, keys, speed, nt)
                if nt > 1 and not field_done:
                    # 2. the closest in steps: one breadth-first search over the board
                    # from the enemy (its forward ends too, when without traps)
                    if use_bits:
                        _field_bits(ecell, fb, nbb, cell, b, tier, nt, keys, coords, kind,
                                    sp, sn, bpos, bw[0], bw[1])
                        bit_hits[1] += 1
                    else:
                        nq = _bfs(nbrf, K, free, ecell, N, field_f, order)
                        for t in range(nt):
                            tc = np.int64(cell[b, tier[t]])
                            best = np.int64(-1)
                            for d in range(K):
                                v = nbr[tc, d]
                                if v >= 0 and field_f[v] >= 0 and (best < 0 or
                                                                   field_f[v] + 1 < best):
                                    best = np.int64(field_f[v]) + 1
                            if best >= 0:
                                keys[t, 0] = 0
                                keys[t, 1] = best
                            else:
                                keys[t, 0] = 1
                                keys[t, 1] = _grid_distance(coords, kind, ecell, tc)
                    nt = _closest_fastest(tier, keys, speed, nt)
                walker_traps = n_traps > 0 and not fly
                nf = -1
                marked_want = False
                for t in range(nt):
                    tg = np.int64(cell[b, tier[t]])
                    kv = np.int64(-1)
                    near = _grid_distance(coords, kind, ecell, tg) <= 1
                    if near:
                        dest, steps, traps = ecell, 0, 0
                    elif use_tab and tab_check and move <= kept_top and \
                            kept[np.int64(fly), move, ecell, tg] >= 0:
                        # 3. the answer kept for (kind, move, start, target) where no
                        # figure changes it (:func:`_kept_answer`)
                        kv = _kept_answer(kept, fly, move, ecell, tg, cell, alive, b,
                                          tab_walk, tab_fly, nbr, obstacle, use_bits,
                                          wfb, wfree, bpos)
                        tab_hits[4 if kv >= 0 else 5] += 1
                    if kv >= 0:
                        dest = kv & 0xFFFF
                        steps = (kv >> 16) & 0xFF
                        traps = kv >> 24
                    elif not near:
                        if nf < 0:
                            # 3a. the forward search (once per game)
                            if use_bits:
                                nf = _fwd_bits_in(ecell, move, fb,
                                                  trap_bits if walker_traps else bw[6],
                                                  min(n_traps, move) if walker_traps
                                                  else 0, sp, sn, bpos, bat, obstacle,
                                                  fly, blay, bent, bw[0], fc, ft, fs)
                                bit_hits[0] += 1
                            elif walker_traps:
                                least = fscr[2]
                                tsteps = fscr[3]
                                tcells = fscr[4]
                                nf = _bfs_traps(nbrf, K, free, trap8, ecell, move, least,
                                                tsteps, tcells, states)
                                for j in range(nf):
                                    c = tcells[j]
                                    fc[j] = c
                                    ft[j] = least[c]
                                    fs[j] = tsteps[c]
                                    least[c] = _BIG
                            else:
                                if nq == 0:
                                    nq = _bfs(nbrf, K, free, ecell, move, field_f, order)
                                nf = 0
                                for j in range(nq):
                                    c = order[j]
                                    if field_f[c] <= move and not (fly and obstacle[c]):
                                        fc[nf] = c
                                        ft[nf] = 0
                                        fs[nf] = field_f[c]
                                        nf += 1
                        # 3b. first the tables (the board with no figure on it:
                        # :func:`_tables`): the pick on their costs, which are never
                        # more than the game's, is the game's pick when no figure
                        # stands on a least route to its end (every other end's cost
                        # is at least its table cost, which already loses)
                        found = False       # (the pick ``best`` made: one write below)
                        best = np.int64(0)
                        if kv == -2:
                            # (the kept answer's forward route free, its route back
                            # not: the tables' pick is that destination, refused)
                            tab_hits[1] += 1
                        elif use_tab:
                            w = np.int64(1) if fly else np.int64(W)
                            ng = 0
                            nv = 0
                            if fly:
                                for d in range(K):
                                    a = nbr[tg, d]
                                    nv += a >= 0
                                    if a >= 0 and (_has(wfb, bpos[a]) if use_bits else
                                                   wfree[a] != 0):
                                        goals[ng] = a
                                        ng += 1
                            # a flyer's least steps from the goals: from the target's
                            # space less one where every space next to it is a goal
                            # (all passable on the table's board), else their least
                            fmin = fly and ng < nv
                            if fmin:
                                for j in range(nf):
                                    c = fc[j]
                                    k = np.int64(-1)
                                    for g in range(ng):
                                        x = tab_fly[goals[g], c]
                                        if x >= 0 and (k < 0 or x < k):
                                            k = x
                                    remf[c] = k
                                best, routed = _pick_fast(fc, ft, fs, nf, remf, fly, w,
                                                          1.0 / w, trap, coords, kind, tg,
                                                          rank)
                            else:       # (a table's row itself: nothing to copy)
                                best, routed = _pick_pk_in(
                                    fc, ft, fs, nf, tab_fly[tg] if fly else tab_wpk[tg],
                                    np.int64(1) if fly else np.int64(0), coords, kind,
                                    tg, rank)
                            ok = routed == 1 and not tab_check
                            if routed == 1 and tab_check:
                                c = fc[best]
                                if fly:
                                    kb = remf[c] if fmin else np.int64(tab_fly[tg, c]) - 1
                                    for g in range(ng):
                                        if tab_fly[goals[g], c] == kb and \
                                                _no_figure_on_a_route(tab_fly, cell, alive,
                                                                      b, ecell, -1,
                                                                      goals[g], c):
                                            ok = True
                                            break
                                else:
                                    ok = _no_figure_on_a_route(tab_walk, cell, alive, b,
                                                               ecell, tg, tg, c)
                            if fmin:
                                for j in range(nf):
                                    remf[fc[j]] = -1
                            found = ok
                            tab_hits[0 if ok else 1] += 1
                        # 3b. the reverse search, stopped once every forward end is
                        # settled: as bit sets (the ends: the forward search's last
                        # reach, ``bw[0]``, less a flyer's obstacles), else over the
                        # neighbour table (the byte rows and the ends marked first)
                        if use_bits and not found:
                            wb = bw[3]
                            for x in range(wb.shape[0]):
                                wb[x] = bw[0, x] & walk_bits[x]
                            if fly:
                                w = np.int64(1)
                                _rev_fly_bits(tg, wfb, ffb, wb, sp, sn, nbb, bat, bw[1],
                                              bw[2], remf)
                                got = 0
                            else:
                                w = np.int64(W)
                                got = _rev_walk_bits(tg, wfb, trap_bits, wb, w, n_traps, sp,
                                                     sn, bpos, bat, brev, bw[1], bw[2],
                                                     bw[4], bw[5], remf)
                            if got == 0:
                                bit_hits[2] += 1
                                best, routed = _pick_fast(fc, ft, fs, nf, remf, fly, w,
                                                          1.0 / w, trap, coords, kind, tg,
                                                          rank)
                                found = True
                            # (else a level longer than brev: the neighbour table's
                            # search below)
                            for j in range(nf):
                                remf[fc[j]] = -1
                        if not found:
                            if not rows:
                                for c in range(N):
                                    wfree[c] = walk_ok[c] & (o[c] == EMPTY)
                                wfree[ecell] = 1
                                if fly:
                                    for c in range(N):
                                        free[c] = o[c] == EMPTY
                                    free[ecell] = 1
                                rows = True
                            if not marked_want:
                                for j in range(nf):
                                    want[fc[j]] = 1
                                marked_want = True
                            fifo = fscr[5]
                            tq = fscr[6]
                            if fly:
                                w = np.int64(1)
                                na = _rev_fly(nbrf, K, wfree, free, tg, want, nf, remf,
                                              fifo)
                                nb = 0
                            else:
                                w = np.int64(W)
                                got = _rev_walk(nbrf, K, free, trap8, tg, w, want, nf, remf,
                                                fifo, tq)
                                na = got & 0xFFFFFFFF
                                nb = got >> 32
                                remf[tg] = -1
                            # 3c. the lexicographic pick (the position's, at less cost)
                            best, routed = _pick_fast(fc, ft, fs, nf, remf, fly, w, 1.0 / w,
                                                      trap, coords, kind, tg, rank)
                            for j in range(na):
                                remf[fifo[j]] = -1
                            for j in range(nb):
                                remf[tq[j]] = -1
                        dest = fc[best]
                        steps = fs[best]
                        traps = ft[best]
                    _write_end(b, e, dest, steps, traps, lists, costs, want_pen, mask,
                               cost, stop, pen, a_list, a_cost, a_stop, a_n, usable)
                if marked_want:
                    for j in range(nf):
                        want[fc[j]] = 0
                for j in range(nq):
                    field_f[order[j]] = -1
                continue
            # 2. of several, the closest in steps (the distance field), then the fastest
            if nt > 1:
                n = _plain_query(blobs, blob_at, qflags, qflags_at, zoc, zoc_at, params,
                                 FIELD_FLY if fly else FIELD_WALK, o, buf, ends,
                                 no_queries, ecell, field_budget)
                if n < 0:
                    return n
                for c in range(N):
                    field[c] = -1
                for j in range(n):
                    field[ends[0, j]] = ends[1, j]
                for t in range(nt):
                    tc = np.int64(cell[b, tier[t]])
                    best = np.int64(-1)
                    for d in range(K):
                        v = nbr[tc, d]
                        if v >= 0 and field[v] >= 0 and (best < 0 or field[v] + 1 < best):
                            best = field[v] + 1
                    if best >= 0:
                        keys[t, 0] = 0
                        keys[t, 1] = best
                    else:
                        keys[t, 0] = 1
                        keys[t, 1] = _grid_distance(coords, kind, ecell, tc)
                nt = _closest_fastest(tier, keys, speed, nt)
            # the mover's own space empty, for the reverse searches
            for c in range(N):
                occ2[c] = o[c]
            occ2[ecell] = EMPTY
            walker_traps = n_traps > 0 and not fly
            nf = -1                    # the forward search's ends (once per game)
            for t in range(nt):
                tg = np.int64(cell[b, tier[t]])
                if _grid_distance(coords, kind, ecell, tg) <= 1:   # in range: it stays
                    dest, steps, traps = ecell, 0, 0
                else:
                    # 3a. the forward search: the move's ends (traps now, steps now)
                    if nf < 0 and walker_traps:
                        nf = _RP(pblob, o, pqflags, pzoc, pleave, penter, pparams, pbuf,
                                 rows_mode, no_queries, ecell, move)
                        if nf < 0:
                            return nf
                        for j in range(nf):
                            fc[j] = pbuf[out_at + j]
                            ft[j] = pbuf[out_at + 4 * nf + j]
                            fs[j] = pbuf[out_at + 5 * nf + j]
                    elif nf < 0:
                        nf = _plain_query(blobs, blob_at, qflags, qflags_at, zoc, zoc_at,
                                          params, FWD_FLY if fly else FWD_WALK, o, buf,
                                          ends, no_queries, ecell, move)
                        if nf < 0:
                            return nf
                        for j in range(nf):
                            fc[j] = ends[0, j]
                            ft[j] = 0
                            fs[j] = ends[1, j]
                    for j in range(nf):
                        dist[fc[j]] = _grid_distance(coords, kind, fc[j], tg)
                    # 3b. the reverse search from the target's space
                    for c in range(N):
                        rem[c] = -1
                    bud = rev_budget
                    if fly:
                        # from every empty space next to the target at once: the
                        # fewest steps (one per step, obstacles flown over but never a
                        # goal or an end, figures blocking: the position's searches
                        # from each goal, their least)
                        w = np.int64(1)
                        _flyer_rem(nbr, obstacle, o, occ2, tg, rem, field)
                    else:
                        w = np.int64(W)
                        # the pick reads the reverse costs at the forward ends alone:
                        # first only the trap-free routes of at most ``bud`` steps,
                        # ``bud`` a guess of the winner's steps left (the nearest end's
                        # grid distance, ``rev_slack`` more; checked below)
                        if rev_slack >= 0:
                            g = np.int64(W)
                            for j in range(nf):
                                g = min(g, dist[fc[j]] - 1)
                            bud = min(max(g + rev_slack, 1), W - 1, rev_budget)
                        n2 = _plain_query(blobs, blob_at, qflags, qflags_at, zoc, zoc_at,
                                          params, REV_WALK, occ2, buf, ends, no_queries,
                                          tg, bud)
                        if n2 < 0:
                            return n2
                        for j in range(n2):
                            rem[ends[0, j]] = ends[1, j]
                        rem[tg] = -1
                    # 3c. the lexicographic pick (the position's compiled one; it
                    # reads the grid distance to the target at the forward ends alone)
                    best, routed = _PICK(fc[:nf], ft[:nf], fs[:nf], rem, fly, w, trap, dist,
                                         rank)
                    if not fly and bud < rev_budget and rev_check:
                        # exact when every end left out loses to the pick on (traps
                        # in all a0, steps in all a1, steps left). An end j left out,
                        # off a trap, with ft[j] >= a0, does: its route on with no
                        # trap more has sr_j >= bud steps left; if a1_j <= move + bud
                        # - 1, the space m = max(0, a1_j - move) < bud steps before
                        # the goal on that route is a forward end (a1_j - m <= move
                        # steps from the enemy, as few traps) searched here (m < bud),
                        # with at most a1_j steps in all and fewer left: it beats j,
                        # the pick beats it; else a1_j > the pick's a1 (<= move + bud
                        # - 1); a trap more on its route: a0_j > ft[j] >= a0. An end
                        # on a trap (never searched under W) has at least its grid
                        # distance less one left. Else the whole board.
                        ok = routed == 1
                        if ok:
                            c = fc[best]
                            a0 = np.int64(ft[best]) + rem[c] // w - trap[c]
                            a1 = np.int64(fs[best]) + rem[c] % w - 1
                            for j in range(nf):
                                c = fc[j]
                                if rem[c] >= 0 or a0 < ft[j] or (a0 == ft[j] and
                                                                 not trap[c]):
                                    continue
                                lb = np.int64(fs[j]) + dist[c] - 1
                                ok = a0 == ft[j] and (a1 < lb or (a1 == lb and
                                                                  fs[best] > fs[j]))
                                if not ok:
                                    break
                        if not ok:
                            for j in range(n2):
                                rem[ends[0, j]] = -1
                            n2 = _plain_query(blobs, blob_at, qflags, qflags_at, zoc,
                                              zoc_at, params, REV_WALK, occ2, buf, ends,
                                              no_queries, tg, rev_budget)
                            if n2 < 0:
                                return n2
                            for j in range(n2):
                                rem[ends[0, j]] = ends[1, j]
                            rem[tg] = -1
                            best, routed = _PICK(fc[:nf], ft[:nf], fs[:nf], rem, fly, w,
                                                 trap, dist, rank)
                    dest = fc[best]
                    steps = fs[best]
                    traps = ft[best]
                _write_end(b, e, dest, steps, traps, lists, costs, want_pen, mask, cost,
                           stop, pen, a_list, a_cost, a_stop, a_n, usable)
        return 0

    return enemy_games


_RP = None     # the penalty kernel, once kernel() has been asked for
_PICK = None   # the position's compiled pick, likewise


class BatchEnemyAI:
    """The compiled enemy AI of one batch layout (see the module docstring): built once
    from the root position, called by :class:`movecore.batch.BatchedGames` for the
    games whose query the layout sends to a live position (``BatchLayout.compiled``).

    ``move_of(slot, query)``: the Move the compiled path answers ``query`` of figure
    slot ``slot`` with, or -1 (a live position answers it).
    """

    def __init__(self, pos, top: int):
        scene = pos.scene
        board = pos.board
        figs = list(scene.figures)
        n = board.n_cells
        self.n_cells = n
        self._distances_from = scene.distances_from     # (for :meth:`keep`)
        n_traps = pos._n_traps
        W = n + 1
        self.faces = pos._faces
        enemies = [f for f in figs if f.side == "enemy"]
        # the live position's fast path (``_EnemyMoves._enemy_turn``), and what the
        # compiled one needs on top (each traps count exact: every trap a level)
        ok = (not scene.pass_allies and (n_traps + 1) * (n + 1) <= T.MAX_BUDGET and
              n_traps <= MAX_TRAPS_TRACKED)
        walk_ok = ok and (n_traps == 0 or scene.trap_avoidance == "detour")
        fly_ok = ok
        walker = next((f for f in enemies if not f.flying), None)
        flyer = next((f for f in enemies if f.flying), None)
        shapes = [None] * 5
        pq = None
        if walker is not None and walk_ok:
            shapes[FWD_WALK] = pos._query_for((ENEMIES, False), walker, top, False)
            shapes[FIELD_WALK] = _field(pos, walker)
            shapes[REV_WALK] = pos._reverse_query(walker)[0]   # (W = N + 1, as here)
            if n_traps:
                pq = pos._query_for((ENEMIES, "traps"), walker, top, True)
        if flyer is not None and fly_ok:
            shapes[FWD_FLY] = pos._query_for((ENEMIES, True), flyer, top, False)
            shapes[FIELD_FLY] = _field(pos, flyer)
        if not all(p is None or p.fast for p in shapes) or (pq is not None and
                                                             pq._q.pblob is None):
            walk_ok = fly_ok = False      # pragma: no cover (boards too large to pack)
        self.slot_ok = np.array([f.side == "enemy" and (fly_ok if f.flying else walk_ok)
                                 for f in figs], bool)
        #: games answered by the compiled path so far
        self.answered = 0
        self._per_thread: list = []     # the inputs of threads 1.. (scratch their own)
        if not self.slot_ok.any():
            self.top = -1
            return
        tops = [shapes[k].max_budget for k in (FWD_WALK, FWD_FLY) if shapes[k] is not None]
        if pq is not None:
            tops.append(pq.max_budget)
        self.top = min(tops) if tops else -1
        qs = [p._q if p is not None else None for p in shapes]

        def cat(name, dtype):
            arrs = [np.zeros(0, dtype) if q is None else getattr(q, name).astype(dtype)
                    for q in qs]
            return (np.concatenate(arrs).astype(dtype),
                    np.cumsum([0] + [len(a) for a in arrs]).astype(np.int64))
        blobs, blob_at = cat("blob", T.INDEX)
        qflags, qflags_at = cat("qflags", np.uint8)
        zoc, zoc_at = cat("zoc", np.uint64)
        width = next(len(q.params) for q in qs if q is not None)
        params = np.stack([np.zeros(width, np.int64) if q is None else q.params
                           for q in qs]).astype(np.int64)
        params[:, T.P_HAS_OCC] = 1    # every game reads its own occupant row
        nb = max([int(q.params[T.P_N_BUCKETS]) for q in qs if q is not None] +
                 [int(q.nb) for q in qs if q is not None] + [8])
        buf = np.zeros(fast_layout_size(n, nb), T.INDEX)
        buf[2] = nb
        if pq is not None:
            p = pq._q
            n_pen = int(p.params[T.P_N_PEN])
            pnb = max(int(p.nb), int(p.params[T.P_N_BUCKETS]), 8)
            pbuf = np.zeros(pen_layout_size(n, n_pen, pnb), T.INDEX)
            pbuf[2], pbuf[3] = pnb, n_pen
            pparams = p.params.astype(np.int64)
            pparams[T.P_HAS_OCC] = 1
            pen = (p.pblob.astype(T.INDEX), p.qflags.astype(np.uint8),
                   p.zoc.astype(np.uint64), p.leave.astype(np.uint64),
                   p.enter_pen.astype(T.INDEX), pparams, pbuf,
                   pen_out_offset(n, n_pen, pnb))
        else:
            pen = (np.zeros(0, T.INDEX), np.zeros(0, np.uint8), np.zeros(0, np.uint64),
                   np.zeros(0, np.uint64), np.zeros(0, T.INDEX),
                   np.zeros(params.shape[1], np.int64), np.zeros(8, T.INDEX), 0)
        F = len(figs)
        rev_budget = shapes[REV_WALK].max_budget if shapes[REV_WALK] is not None else 0
        #: the kernel's inputs after (games, slots, moves, occ, cell, alive), by name
        #: (the tests turn rules off through them)
        self.args = dict(
            team=np.array([f.team for f in figs], np.int64),
            marked=np.array([f.marked for f in figs], bool),
            summon=np.array([f.side == "summon" for f in figs], bool),
            speed=np.array([f.speed for f in figs], np.int64),
            flying=np.array([f.flying for f in figs], bool),
            coords=np.ascontiguousarray(board.coords, np.int64),
            kind=_KIND.get(board.kind, 2),
            nbr=np.ascontiguousarray(board.nbr, np.int64),
            obstacle=np.ascontiguousarray(scene.obstacle, bool),
            trap=np.ascontiguousarray(scene.trap, bool), rank=pos._rank,
            n_traps=n_traps, W=W, rev_budget=rev_budget, field_budget=n,
            rev_slack=REV_SLACK, rev_check=True,
            blobs=blobs, blob_at=blob_at, qflags=qflags, qflags_at=qflags_at, zoc=zoc,
            zoc_at=zoc_at, params=params, pblob=pen[0], pqflags=pen[1], pzoc=pen[2],
            pleave=pen[3], penter=pen[4], pparams=pen[5], buf=buf, pbuf=pen[6],
            out_at=pen[7], ends=np.zeros((3, n), T.INDEX),
            scratch=np.zeros((3, n), np.int64), fwd=np.zeros((3, n), T.INDEX),
            occ2=np.zeros(n, T.INDEX),
            tier=np.zeros(max(F, 1), np.int64), keys=np.zeros((max(F, 1), 2), np.int64),
            fast=n < (1 << 24), nbrf=np.ascontiguousarray(board.nbr, np.int32).ravel(),
            trap8=scene.trap.astype(np.uint8), walk_ok=(~scene.obstacle).astype(np.uint8),
            fscr=_fast_scratch(n), free2=np.zeros((2, n), np.uint8),
            remf=np.full(n, -1, np.int64),
            states=np.zeros(n * (min(n_traps, max(self.top, 0)) + 1) + 1, np.int64),
            want=np.zeros(n, np.uint8),
            **self._tables(board, scene, walker if walk_ok else None,
                           flyer if fly_ok else None, n_traps),
            **self._bits(pos, max(self.top, 0)),
            # (empty inputs of the kernels' path: the kernel allocates nothing)
            no_queries=np.empty((0, 3), np.int64), rows_mode=np.empty((8, 0), np.int32))
        # the answers kept per (kind, move, start, target): allocated here, made at the
        # first call (:meth:`ready`, :meth:`keep`), for the Moves a die rolls
        self._kept = False
        top = min(self.top, self.faces, 255)
        if self.args["use_tab"] and top > 0 and 2 * (top + 1) * n * n * 4 <= KEPT_BYTES:
            self.args["kept"] = np.full((2, top + 1, n, n), -1, np.int32)
            self.args["kept_top"] = top

    def ready(self):
        """The compiled enemy AI (:func:`kernel`), the kept answers made first
        (:meth:`keep`): what every caller of the kernel with :attr:`args` calls."""
        self.keep()
        return kernel()

    def keep(self) -> None:
        """Make the kept answers (``args["kept"]``, read by :func:`_kept_answer`), once:
        for each kind of enemy (walker, flyer: its first slot the compiled path
        answers), each Move 1..``kept_top``, each start and target's space more than
        one step apart and neither an obstacle, the kernel's own answer (``kept_top``
        0: searched) on a game where only the mover and one hero stand; kept where its
        destination has a route on to the target (the walker's ``tab_wpk``; the
        flyer's least steps from a space next to the target, no obstacle, on
        ``tab_fly``) and its forward steps and traps are the least of the board with no
        figure (``tab_walk``'s scalar, ``tab_fly``'s steps): what
        :func:`_kept_answer` checks a game against. (The second always holds of the
        pick's winner: where the move is too short for an end's least route, it
        reaches the end over more traps, and the last space within the move on that
        route has fewer traps in all; the test stays, as a guard.) On scratch of its
        own: the counters are left as they were. 2 x ``kept_top`` x N**2 answers (~0.1 s at N = 91)."""
        if self._kept:
            return
        self._kept = True
        # (scratch and counters of its own: a thread may call the kernel meanwhile,
        # on a table still being made, whose entries are -1 or made: either is exact)
        a = dict(self.args, kept_top=0, **{k: self.args[k].copy() for k in _SCRATCH})
        top = self.args["kept_top"]
        heroes = np.flatnonzero(a["team"] == PLAYERS)
        if top <= 0 or not len(heroes):
            return
        kept = self.args["kept"]
        n = self.n_cells
        F = len(a["team"])
        W = a["W"]
        obstacle = a["obstacle"]
        nbr = a["nbr"]
        dist = np.stack([self._distances_from(c) for c in range(n)])
        start, goal = np.nonzero((dist > 1) & ~obstacle[:, None] & ~obstacle[None, :])
        k = kernel()
        h = heroes[0]
        for fly in (0, 1):
            slots = np.flatnonzero(self.slot_ok & (a["flying"] == bool(fly)))
            if not len(slots):
                continue
            e = slots[0]
            for lo in range(0, len(start), 4096):
                E, G = start[lo:lo + 4096], goal[lo:lo + 4096]
                R = len(E)
                rows = np.arange(R, dtype=np.int64)
                occ = np.full((R, n), T.OCC_EMPTY, np.int32)
                occ[rows, E] = a["team"][e]
                occ[rows, G] = a["team"][h]
                cell = np.full((R, F), -1, np.int32)
                cell[:, e], cell[:, h] = E, G
                alive = np.zeros((R, F), bool)
                alive[:, [e, h]] = True
                for move in range(1, top + 1):
                    mask = np.zeros((R, n), np.uint8)
                    cost = np.zeros((R, n), np.int32)
                    stop = np.zeros((R, n), np.int8)
                    pen = np.zeros((R, n), np.int32)
                    st = k(rows, np.full(R, e, np.int64), np.full(R, move, np.int64), occ,
                           cell, alive, *a.values(), mask, cost, stop, pen, True, *NO_LIST)
                    if st < 0:  # pragma: no cover (ends hold one column per cell)
                        raise RuntimeError(f"movecore: batched enemy AI kernel status {st}")
                    assert (mask.sum(1) == 1).all()
                    dest = mask.argmax(1)
                    steps, traps = cost[rows, dest], pen[rows, dest]
                    if fly:
                        nb = nbr[G]
                        x = a["tab_fly"][np.maximum(nb, 0), dest[:, None]]
                        x = np.where((nb >= 0) & ~obstacle[np.maximum(nb, 0)] & (x >= 0),
                                     x, n + 1)
                        ok = (x.min(1) <= n) & (traps == 0) & \
                            (steps == a["tab_fly"][E, dest])
                    else:
                        ok = (a["tab_wpk"][G, dest] >= 0) & \
                            (steps + W * traps == a["tab_walk"][E, dest])
                    kept[fly, move, E, G] = np.where(
                        ok, dest | (steps << 16) | (traps << 24), -1)

    def _tables(self, board, scene, walker, flyer, n_traps) -> dict:
        """The kernel's table inputs: per kind of enemy on the board, its least costs
        between every two spaces with no figure on the board (:func:`_tables`: the
        walker's reverse cost ``steps + W * traps`` and its packed form for the pick
        ``tab_wpk``, the walker's steps, the flyer's steps over every space),
        int32[N, N] each, built once per layout; none (an empty table, ``use_tab``
        False) above :data:`TABLE_CELLS` spaces: those boards search."""
        n = board.n_cells
        K = board.nbr.shape[1]
        use = n <= TABLE_CELLS and (walker is not None or flyer is not None)
        none = np.full((1, 1), -1, np.int32)
        out = dict(use_tab=use, tab_check=True, tab_walk=none, tab_wpk=none,
                   tab_wstep=none, tab_fly=none,
                   goals=np.zeros(K, np.int64), tab_hits=np.zeros(6, np.int64),
                   kept=np.full((1, 1, 1, 1), -1, np.int32), kept_top=0)
        if not use:
            return out
        nbr = np.ascontiguousarray(board.nbr, np.int32).ravel()
        rem = np.full(n, -1, np.int64)
        fifo, tq, want = np.zeros(n, np.int32), np.zeros(n, np.int32), np.zeros(n, np.uint8)
        trap8 = scene.trap.astype(np.uint8)
        if walker is not None:
            out["tab_walk"] = np.empty((n, n), np.int32)
            _tables(nbr, K, (~scene.obstacle).astype(np.uint8), trap8, n + 1,
                    out["tab_walk"], rem, fifo, tq, want)
            # the pick's packed form of it (:func:`_pick_pk`): at c, the traps left
            # (less c's own) << 16 | the steps left (less one), -1 where none (no
            # route, or c the target's own space)
            k = out["tab_walk"].astype(np.int64)
            q, r = k // (n + 1), k % (n + 1)
            out["tab_wpk"] = np.where((k >= 0) & (r >= 1),
                                      ((q - trap8[None, :]) << 16) + r - 1,
                                      -1).astype(np.int32)
            out["tab_wstep"] = np.empty((n, n), np.int32)
            _tables(nbr, K, (~scene.obstacle).astype(np.uint8), trap8, 0,
                    out["tab_wstep"], rem, fifo, tq, want)
        if flyer is not None:
            out["tab_fly"] = np.empty((n, n), np.int32)
            _tables(nbr, K, np.ones(n, np.uint8), trap8, 0, out["tab_fly"], rem, fifo,
                    tq, want)
        return out

    def _bits(self, pos, top: int) -> dict:
        """The kernel's bit set inputs (see "the bit sets" above): ``use_bits`` where
        the board's neighbours are its grid's (:func:`grid_layout`, at most four
        directions each way, each offset below 64 bits) and the root's occupied spaces
        are exactly its figures' (then so are every batched game's: the free spaces of
        a move are made from the figures' spaces). Each space's bit ``bpos``, each
        bit's space ``bat`` (-1 none), the directions' offsets ``sp``, ``sn``
        (:func:`_step_word`), the spaces a walker may enter (``walk_bits``: no
        obstacle), every space (``all_bits``), the traps (``trap_bits``), each
        space's neighbours ``nbb`` (uint64[N, W]); workspace: ``bfree`` (a move's free
        spaces, a walker's and a flyer's), ``blay`` and ``bent`` (the forward
        search's layers and trap entries, uint64[top + 1, W]), ``brev`` (the
        walker's reverse search's trap entries per step, uint64[:data:`REV_ROWS`, W]:
        a level of more steps searches the neighbour table), ``bw`` (uint64[7, W],
        the last row kept 0: no traps); the counters ``bit_hits`` (forward,
        closest-target and reverse searches made on bits)."""
        board = pos.board
        n = board.n_cells
        grid = grid_layout(board)
        held = np.flatnonzero(np.asarray(pos.occ) != T.OCC_EMPTY)
        figs = sorted(f.cell for f in pos.scene.figures if f.cell is not None and
                      f.cell >= 0)
        use = grid is not None and sorted(held.tolist()) == figs and \
            bool((np.abs(grid[1]) < 64).all()) and (grid[1] > 0).sum() <= 4 and \
            (grid[1] < 0).sum() <= 4
        if not use:
            z = np.zeros(1, np.uint64)
            z2 = np.zeros((1, 1), np.uint64)
            return dict(use_bits=False, bpos=np.zeros(1, np.int64),
                        bat=np.zeros(1, np.int64), sp=np.ones(4, np.uint64),
                        sn=np.ones(4, np.uint64), walk_bits=z, all_bits=z.copy(),
                        trap_bits=z.copy(), nbb=z2, bfree=np.zeros((2, 1), np.uint64),
                        blay=z2.copy(), bent=z2.copy(), brev=z2.copy(),
                        bw=np.zeros((7, 1), np.uint64), bit_hits=np.zeros(3, np.int64))
        bpos, shifts, W = grid
        bat = np.full(W * 64, -1, np.int64)
        bat[bpos] = np.arange(n)
        obstacle = np.asarray(pos.scene.obstacle, bool)
        rows = bits_of([~obstacle, np.ones(n, bool), pos.scene.trap], bpos, W)
        nbb = np.zeros((n, W), np.uint64)
        for c in range(n):
            for v in board.nbr[c]:
                if v >= 0:
                    nbb[c, bpos[v] >> 6] |= np.uint64(1) << np.uint64(bpos[v] & 63)
        return dict(use_bits=True, bpos=np.ascontiguousarray(bpos, np.int64), bat=bat,
                    sp=_four(shifts[shifts > 0]), sn=_four(-shifts[shifts < 0]),
                    walk_bits=rows[0], all_bits=rows[1], trap_bits=rows[2], nbb=nbb,
                    bfree=np.zeros((2, W), np.uint64),
                    blay=np.zeros((top + 1, W), np.uint64),
                    bent=np.zeros((top + 1, W), np.uint64),
                    brev=np.zeros((REV_ROWS, W), np.uint64),
                    bw=np.zeros((7, W), np.uint64), bit_hits=np.zeros(3, np.int64))

    def move_of(self, slot: int, q) -> int:
        """The Move of an enemy AI query the compiled path answers, else -1."""
        if not self.slot_ok[slot] or q.get("enemy") is not True:
            return -1
        rng = q.get("attack_range", 1)
        if type(rng) is not int or rng != 1:
            return -1
        n = 2 + ("attack_range" in q)
        if "move" in q:
            mv = q["move"]
            if len(q) != n or type(mv) is not int or not 0 <= mv <= MAX_MOVE:
                return -1
        elif "roll" in q:
            r, k = q["roll"], q.get("bonus", 0)
            if len(q) != n + ("bonus" in q) or type(r) is not int or type(k) is not int \
                    or not 1 <= r <= self.faces or not 0 <= k <= MAX_MOVE:
                return -1
            mv = r + k
        else:
            return -1
        return mv if mv <= self.top else -1

    def __call__(self, games, slots, queries, occ, cell, alive, mask, cost, stop,
                 penalty=None, threads: int = 1) -> np.ndarray:
        """Answer the games ``games`` (int64[R]) whose figure slot ``slots[i]`` asks
        ``queries[i]`` on the compiled path where it applies (rows already cleared),
        in ``threads`` chunks of games on a pool of threads (each with its own
        scratch); returns the games left to a live position. ``queries`` may be
        int64[R] instead: each game's Move as :meth:`move_of` gives it (-1: a live
        position answers), from the queries' array form (``_batch.query_columns``)."""
        mv = np.asarray(queries, np.int64) if isinstance(queries, np.ndarray) else \
            np.fromiter((self.move_of(s, q) for s, q in zip(slots.tolist(), queries)),
                        np.int64, len(games))
        ok = mv >= 0
        n = int(ok.sum())
        if n:
            want = penalty is not None
            pen = penalty if want else _NO_PEN
            rows = np.ascontiguousarray(games[ok], np.int64)
            figs = np.ascontiguousarray(slots[ok], np.int64)
            mv = mv[ok]
            k = self.ready()
            chunks = max(1, min(threads, n))
            if chunks == 1:
                st = k(rows, figs, mv, occ, cell, alive, *self.args.values(), mask, cost,
                       stop, pen, want, *NO_LIST)
            else:
                from ...reach.compiled import hand_pool as _hand_pool
                status = np.zeros(chunks, np.int64)
                self._thread_args(chunks - 1)     # (every thread's, made here first)

                def run(c):
                    lo, hi = (n * c) // chunks, (n * (c + 1)) // chunks
                    status[c] = k(rows[lo:hi], figs[lo:hi], mv[lo:hi], occ, cell, alive,
                                  *self._thread_args(c).values(), mask, cost, stop, pen,
                                  want, *NO_LIST)

                pool = _hand_pool(chunks - 1)
                futures = [pool.submit(run, c) for c in range(1, chunks)]
                run(0)
                for fu in futures:
                    fu.result()
                st = int(status.min())
            if st < 0:  # pragma: no cover (ends hold one column per cell)
                raise RuntimeError(f"movecore: batched enemy AI kernel status {st}")
            self.answered += n
        return games[~ok]

    def _thread_args(self, c: int) -> dict:
        """The kernel's inputs for thread ``c`` of a call: :attr:`args` with scratch of
        its own (thread 0: :attr:`args` itself)."""
        if c == 0:
            return self.args
        while len(self._per_thread) < c:
            self._per_thread.append({**self.args, **{k: self.args[k].copy()
                                                     for k in _SCRATCH}})
        return self._per_thread[c - 1]


#: the kernel's inputs each thread writes
_SCRATCH = ("buf", "pbuf", "ends", "scratch", "fwd", "occ2", "tier", "keys", "fscr",
            "free2", "remf", "states", "want", "goals", "tab_hits", "bfree", "blay",
            "bent", "brev", "bw", "bit_hits")
_NO_PEN = np.zeros((1, 1), np.int32)
#: ``cost`` and ``stop`` for a call that wants the mask alone (see :func:`kernel`)
NO_COST = np.zeros((0, 0), np.int32)
NO_STOP = np.zeros((0, 0), np.int8)
#: ``a_list, a_cost, a_stop, a_n, usable`` of a call that writes the rows (every caller
#: but the vector env's whole step, :mod:`movecore.rl._vecdr_env`; see :func:`kernel`)
NO_LIST = (np.zeros((0, 0), np.int32), np.zeros((0, 0), np.int32),
           np.zeros((0, 0), np.int8), np.zeros(0, np.int64), np.zeros((0, 0), np.uint8))


def _fast_scratch(n: int) -> np.ndarray:
    """int32[8, n]: the fast searches' workspace, as they expect it between moves (the
    field -1, the fewest traps ``_BIG``; the rest written before read)."""
    a = np.zeros((8, n), np.int32)
    a[0] = -1
    a[2] = _BIG
    return a


def _field(pos, enemy):
    """The enemy's distance-field query (every arrival of an unbounded move; a flyer's
    may end anywhere, as the position's ``(ENEMIES, "field", flying)`` query)."""
    from ...reach import prepare
    n = pos.board.n_cells
    return prepare(pos.board, pos.scene.mover(enemy), n, occupant=pos.occ,
                   cell_flags=np.zeros(n, np.uint8) if enemy.flying else
                   pos._flags_for(False))
