"""The vector environment's arrays backend driven from numpy (Descent, large monsters
and bases that turn included; Dark Realms; Heroscape): :class:`BatchedSteps`.

The games live in a :class:`movecore.batch.BatchedGames` (Descent: its ``_DescentBatch``
doors, squares and each base's orientation; Heroscape: two-space places, engagement in
the occupancy codes; Dark Realms: each move's rolled query as ``QueryColumns``); the turn
rule of :class:`movecore.rl.turns.Match` and the built-in opponent of
:class:`movecore.rl.envs.MovecoreGym` are played here with array operations over the
games that take part in each sub-step (the learner's move, the removal coin, the search
for the next figure that has a move, an opponent's pick), one batched ``legal_moves``
per sub-step (Dark Realms in the compiled scope: the rolls and the heroes' card moves in
one compiled call, the enemies on the compiled enemy AI, the move and removal in one:
:mod:`._vecdr`; Heroscape in the self-play step's compiled scope: the queries, and the
move and removal, each one compiled call: :mod:`._vechs`), no Python per game. Each game's random numbers are its ``np_random``
stream (numpy's PCG64, stepped by :func:`movecore.rl._vecgame._draw`), drawn in the
single env's order: Dark Realms' d6 of each figure as its turn comes, the opponent's
pick, the removal coin, the victim.

What makes it the single env, game by game:

* rows of an answer are ordered as the position's ``Moves`` (cost, then the end's x,
  then y; a Descent large monster's: its anchor's, then its own orientation before the
  turned one; a Heroscape double-space figure's by cost, then by the pair of spaces of
  the placement its search listed, which the batched answer keeps: :func:`row_rank`):
  a random pick is the ``int(u * n)``-th usable row in that order, a greedy one the
  ``int(u * n)``-th of the usable rows at the least grid distance to an enemy (from
  any space of the end's place to any space of an enemy's place: both spaces of a
  two-space place, every square of a large base); where the batched answer does not
  keep the position's order (a Dark Realms enemy AI's tie between targets, in target
  order, one end possibly twice) the rows are asked of a live position made from the
  game's arrays (``BatchedGames._live``, ``restore``);
* the removal's victim is the ``int(u * n)``-th enemy in play next to a space of the
  mover (any level; a large base: any of its squares), in play (slot) order, as
  ``Position.touching`` lists them;
* a Descent base that turns numbers its places in its kind of now (``NS + 1 + s``: the
  base turned from how it stands); the env numbers them in the root's orientation
  (``_Setup.swap``): the mask, the action taken and the ends' planes map between the
  two where the base stands turned (``_DescentBatch.orient``);
* the observation is ``encode_common``'s (static planes, sides relative to the learner,
  acting figure, moved figures, every square of a base, the acting figure's ends at
  their lead cells, costs scaled by the largest, stops, the turn; where two places
  share a lead cell, a double's placements or a Descent turning base's two
  orientations at one anchor, the cost drawn is the last row's there, the larger: its
  rows come in cost order) plus the game's planes (Descent: the squares by closed and
  open doors; Heroscape: the engaged figures, heights considered; Dark Realms: the
  acting figure's roll / 12), drawn by one compiled loop over the games
  (:func:`draw_obs`): from scratch (``observe()``), or in the env's kept buffer where
  only what changed is written (the places drawn last time cleared, the new ones
  written and listed; the turn plane and the dense game planes rewritten where what
  they show changed), as the compiled backend's ``_vecgame.observe``.

Where the time goes: the Python of a sub-step is a few calls over its games (the search
for the next figure, the kept answer and its list of usable ends, the opponent's k-th
row, the removal's victim, the mask and the observation are compiled loops: no numpy
pass per condition, no sort over every place); the batched ``legal_moves`` and the
game's move are the game's own (Dark Realms: :mod:`._vecdr`'s, Heroscape:
:mod:`._vechs`'s where they apply; Descent's move and removal one compiled call per
sub-step, :mod:`._vecdescent`, where no live position answered). Where a game's
answers stay compiled, the whole step is one compiled call per thread chunk instead,
this module's sub-steps and helpers called from it (Heroscape: :mod:`._vechsenv`;
Descent: :mod:`._vecdescent_env`; Dark Realms: :mod:`._vecdr_env`).

``tests/test_rl_vector.py`` checks every game's observation, mask, reward and ends
against single envs after every step (autoresets and illegal actions included), Descent's
large monsters and turning bases included; the kept observations against a draw from
scratch after every step (and that the check fails on a wrong update); the pick
against a stable sort of the rows.
"""
from __future__ import annotations

from time import perf_counter

import numpy as np
from numba import njit

from ..batch import ThreadChoice, entry_call, on_chunks, summed
from ..errors import QueryError
from ..position import grid_distance
from ..kernels._jit import NO_NRT
from ..kernels._stream import scratch_row, store_fence, stream_copy
from ._kept_answer import keep_answer
from ._vecgame import (LEFT, _draw, _kth, _kth_small, _n_sides, _root, _side_in_play,
                       victim_of)

TERMINATED, TRUNCATED, ILLEGAL = 1, 2, 3


@njit("int64(uint64[:, ::1], int64[::1], float64[::1])", cache=True, nogil=True)
def draw_rows(rng, rows, out):
    """``out[i]`` = game ``rows[i]``'s next ``np_random.random()`` (one draw each)."""
    for i in range(rows.shape[0]):
        out[i] = _draw(rng, rows[i])
    return 0


@njit(cache=True, nogil=True)
def advance_select(rows, alive, side_of, movers, turn_sides, n_all, max_turns, turn, side,
                   nxt, actor, over, moved, ask, g_out):
    """``Match._advance``'s search in games ``rows`` (int64[R]), with no answer asked:
    the next figure slot of the side to move, at or after ``nxt[b]``, in play and one
    that moves, starting turns where none is left (the side, the turn, ``nxt`` = 0, no
    figure moved) or ending the game (fewer than two sides in play: TERMINATED; the turn
    limit: TRUNCATED; ``actor`` = -1). The games that found one and its slot go to
    ``ask``/``g_out`` (int64[>= R]); returns how many. Allocates nothing."""
    F = alive.shape[1]
    na = 0
    for i in range(rows.shape[0]):
        b = rows[i]
        while True:
            g = -1
            for j in range(nxt[b], F):
                if alive[b, j] and side_of[j] == side[b] and movers[j]:
                    g = j
                    break
            if g >= 0:
                ask[na] = b
                g_out[na] = g
                na += 1
                break
            actor[b] = -1                 # the queue is empty: the next turn
            if _n_sides(alive, side_of, n_all, b) < 2:
                over[b] = TERMINATED
                break
            if turn[b] >= max_turns:
                over[b] = TRUNCATED
                break
            side[b] = turn_sides[turn[b] % turn_sides.shape[0]]
            turn[b] += 1
            nxt[b] = 0
            for j in range(F):
                moved[b, j] = False
    return na


@njit(nogil=True, inline="always")
def restart_one(b, occ, cell, alive, moved, occ0, cell0, turn, side, nxt, actor, over, out,
                removed, pending):
    """Game ``b`` back at the root as :meth:`BatchedSteps.restart` puts it before its
    search (the compiled whole steps, ``_vecdr_env`` and ``_vechsenv``): the occupancy
    and figures (``_vecgame._root``), no side yet and the queue empty (the search
    starts turn 1), nothing pending."""
    _root(b, occ, cell, alive, moved, occ0, cell0)
    turn[b] = 0
    side[b] = -1
    nxt[b] = cell.shape[1]
    actor[b] = -1
    over[b] = 0
    out[b] = False
    removed[b] = False
    pending[b] = 0.0


#: what :func:`step_start` leaves a game to (else the env place of the learner's move):
#: over (an illegal action), back at the root, its side's turn passed
STEP_ENDED, STEP_RESTARTED, STEP_PASSED = -3, -2, -1


@njit(nogil=True, inline="always")
def step_start(b, mode, actions, end_turn, P_env, reward, pending, occ, cell, alive, moved,
               occ0, cell0, turn, side, nxt, actor, over, out, removed):
    """The start of game ``b``'s env step in the compiled whole steps (``_vechsenv``,
    ``_vecdescent_env``; ``BatchedSteps.step``): ``mode[b]`` 0 ends it ILLEGAL
    (STEP_ENDED), 2 restarts it (:func:`restart_one`; STEP_RESTARTED: the game's own
    state is the caller's), 1 plays the learner's action ``actions[b]``, its reward
    first what the opponents scored since it acted (``pending``): its end of the turn
    (STEP_PASSED: the queue emptied) or the env place of its move (``% P_env``),
    returned. ``reward[b]`` is written."""
    reward[b] = 0.0
    m = mode[b]
    if m == 0:
        over[b] = ILLEGAL
        actor[b] = -1
        return STEP_ENDED
    if m == 2:
        restart_one(b, occ, cell, alive, moved, occ0, cell0, turn, side, nxt, actor, over,
                    out, removed, pending)
        return STEP_RESTARTED
    reward[b] = pending[b]
    pending[b] = 0.0
    a = actions[b]
    if a == end_turn:
        nxt[b] = cell.shape[1]          # the side passes: the next turn
        return STEP_PASSED
    return a % P_env


@njit(nogil=True, inline="always")
def step_end(lo, hi, mode, illegal_reward, reward, term, trunc, done, pending, over, out,
             side, learner, acting):
    """The end of the env step of games ``lo <= b < hi`` (``BatchedSteps.step``): the
    rewards (a played game's: what the opponents scored since, added; an illegal
    action's: ``illegal_reward``; a restart's: 0) and ends (``term``/``trunc``/``done``
    bool[B]; a restart's none), and ``acting`` (bool[B]: the learner is to act, what
    the observation and the mask read)."""
    for b in range(lo, hi):
        m = mode[b]
        if m == 1:
            reward[b] += pending[b]
            pending[b] = 0.0
        elif m == 0:
            reward[b] = illegal_reward
        t = over[b] == TERMINATED or out[b] or over[b] == ILLEGAL
        tr = over[b] == TRUNCATED and not t
        if m == 2:
            t = tr = False
            reward[b] = 0.0
        term[b] = t
        trunc[b] = tr
        done[b] = t or tr
        acting[b] = over[b] == 0 and not out[b] and side[b] == learner


@njit(nogil=True, inline="always")
def mask_rows(lo, hi, mask, mask_out, acting, actor, a_list, a_n, env_base, end_turn,
              large, orient, swap):
    """Games ``lo <= b < hi``' masks (:func:`draw_mask`, ``orient``: the chunk's rows
    where ``large``) and their copy ``mask_out`` (int8[B, A])."""
    draw_mask(mask[lo:hi], acting[lo:hi], actor[lo:hi], a_list[lo:hi], a_n[lo:hi],
              env_base, end_turn, large, orient, swap)
    for b in range(lo, hi):
        for a in range(mask.shape[1]):
            mask_out[b, a] = mask[b, a]


#: :func:`pick_rows` counts a move's rows by cost in this many buckets: one below 0,
#: one per cost 0 ... _COSTS - 3, one for the costs above (the two outer ones mixed:
#: their rows compared by whole keys)
_COSTS = 64
#: :func:`pick_rows`' bit sets: one per cost 0 ... _BIT_COSTS - 1 (a pick whose rows
#: hold another cost is counted as before)
_BIT_COSTS = 16


@njit(nogil=True, inline="always")
def _popcount(x):
    """The set bits of uint64 ``x`` (SWAR: no branch)."""
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + \
        ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(cache=True, nogil=True)
def pick_rows(rows, crow, cand, ncand, f, u, cost, rank, double, to):
    """``Match.random_row`` over the ends ``cand[crow[i], :ncand[crow[i]]]`` (int32,
    by place id) of figure slot ``f[i]`` in game ``rows[i]``: the ``int(u[i] * n)``-th
    of its n ends in the ``Moves`` row order (cost, then ``rank[f]``; ties, none
    expected, by place) into ``to[i]``. Returns how many picks were among a
    double-space figure's (``double``) rows, two of them of one cost (the tests'
    count).

    By bit sets, not by sorting the n rows: a move's costs are a few small integers and
    a figure's places have distinct ranks (< P; a Heroscape double's two orientations
    of a pair share one, and its answer lists one of them), so one pass over the rows
    sets each row's rank's bit in its cost's bit set (``_BIT_COSTS`` of ``ceil(P /
    64)`` words) and counts the costs; the counts name the cost that holds the wanted
    row, and the popcounts of that cost's words the rank, whose place the pass noted.
    Where a row's cost is outside the bit sets or two rows share a rank (ties: the
    place decides), the pick is counted as before: the rows by cost (``_COSTS``
    buckets), then that bucket's rows ranked by (cost, rank, place). The bit sets
    take one pass and no data-dependent branch; the counting took two passes, the
    second with a branch on the bucket at every row, and a count of each of the
    bucket's keys' rank among the others (docs/performance_log.md, ``hsfloor``)."""
    P = cost.shape[1]
    keys = np.empty(max(cand.shape[1], 1), np.int64)
    cs = np.empty(max(cand.shape[1], 1), np.int64)
    hist = np.zeros(_COSTS, np.int64)
    last = _COSTS - 1
    W = (P + 63) >> 6
    bits = np.zeros(_BIT_COSTS * W, np.uint64)
    seen = np.zeros(W, np.uint64)
    who = np.empty(max(P, 1), np.int64)
    cnt = np.zeros(_BIT_COSTS, np.int64)
    one = np.uint64(1)
    picks = 0
    for i in range(rows.shape[0]):
        b, r, g = rows[i], crow[i], f[i]
        n = ncand[r]
        if n == 0:
            to[i] = 0
            continue
        want = int(u[i] * n)
        # the bit sets: each row's rank under its cost (a tie or a cost outside: off)
        ok = True
        top = np.int64(-1)
        for j in range(n):
            p = cand[r, j]
            c = np.int64(cost[b, p])
            rk = rank[g, p]
            if c < 0 or c >= _BIT_COSTS or rk < 0 or rk >= P:
                ok = False
                break
            w = rk >> 6
            bit = one << np.uint64(rk & 63)
            if seen[w] & bit:
                ok = False
                break
            seen[w] |= bit
            bits[c * W + w] |= bit
            who[rk] = p
            cnt[c] += 1
            top = max(top, c)
        if ok:
            below = 0
            c = 0
            while below + cnt[c] <= want:
                below += cnt[c]
                c += 1
            x = want - below
            rk = 0
            for w in range(W):      # the x-th set bit of cost c's set: the rank
                y = bits[c * W + w]
                k = _popcount(y)
                if x < k:
                    for _ in range(x):
                        y &= y - one
                    rk = (w << 6) + _popcount((y & (~y + one)) - one)
                    break
                x -= k
            to[i] = who[rk]
        # (the sets cleared for the next pick; two rows of one cost?)
        dup = False
        for c in range(top + 1):
            if cnt[c]:
                dup |= cnt[c] > 1
                for w in range(c * W, (c + 1) * W):
                    bits[w] = 0
                cnt[c] = 0
        for w in range(W):
            seen[w] = 0
        if ok:
            picks += dup and double[g]
            continue
        top = 0
        for j in range(n):
            c = np.int64(cost[b, cand[r, j]])
            cs[j] = c
            k = min(max(c + 1, 0), last)
            hist[k] += 1
            top = max(top, k)
        below = 0
        kk = 0
        while kk < last and below + hist[kk] <= want:
            below += hist[kk]
            kk += 1
        dup = False
        for k in range(top + 1):
            if hist[k] > 1 and double[g]:
                # (the outer buckets mix costs: their rows compared, seldom needed)
                dup |= k != 0 and k != last or _same_cost(cost, cand, b, r, n, k, last)
            hist[k] = 0
        # the bucket's rows by (cost, rank, place), in one key: the (want - below)-th
        # (m an int64 from the start: a literal 0 compiles the calls below twice)
        m = np.int64(0)
        for j in range(n):
            p = cand[r, j]
            c = cs[j]
            if min(max(c + 1, 0), last) == kk:
                keys[m] = (c * (P + 1) + rank[g, p]) * P + p
                m += 1
        x = want - below
        # (a few rows, as a bucket's usually are: counting, with no mispredicted branch)
        to[i] = (keys[_kth_small(keys, m, x)] if m <= 48 else _kth(keys, m, x)) % P
        picks += dup
    return picks


@njit(nogil=True, inline="always")
def _same_cost(cost, cand, b, r, n, k, last):
    """Two of the rows ``cand[r, :n]`` of game ``b`` in :func:`pick_rows`' outer bucket
    ``k`` (``last``: the costs above its own buckets; 0: those below 0) share a cost."""
    for j in range(n):
        c = np.int64(cost[b, cand[r, j]])
        if min(max(c + 1, 0), last) != k:
            continue
        for x in range(j + 1, n):
            if np.int64(cost[b, cand[r, x]]) == c:
                return True
    return False


@njit(cache=True, nogil=True)
def victims(rows, f, sp, adj, alive, side_of, n_all, rng, out):
    """The removal's victims in games ``rows`` (int64[R]; their coin came up) whose
    figure ``f[i]`` just moved: the enemies in play next to a space of the mover
    (``sp`` int64[R, F, S] every figure's spaces, -1 none; ``adj`` bool[N + 1, N + 1]),
    in slot order; where there are n of them, one draw of the game's stream picks the
    ``int(u * n)``-th (:func:`._vecgame.victim_of`). ``out`` int64[4, >= R]: the games with a
    victim, their movers, their victims, and 1 where fewer than two sides (of
    ``n_all``) are left in play without the victim (the game is over); returns how
    many."""
    near = np.empty(alive.shape[1], np.int64)
    m = 0
    for i in range(rows.shape[0]):
        b, g = rows[i], f[i]
        gone, end = victim_of(b, g, sp[i], adj, alive, side_of, n_all, rng, near)
        if gone >= 0:
            out[0, m] = b
            out[1, m] = g
            out[2, m] = gone
            out[3, m] = end
            m += 1
    return m


@njit(cache=True, nogil=True)
def opponents_rows(rows, over, side, learner, removed, alive, side_of, out):
    """``BatchedSteps._opponents``' games to play next, in place: of games ``rows``
    (int64[R], rewritten), those not over whose side to move is not the ``learner``'s,
    less those where the last move removed the learner's last figure (``out[b]`` set
    True); returns how many (kept at the front of ``rows``, in order)."""
    k = 0
    for i in range(rows.shape[0]):
        b = rows[i]
        if over[b] != 0 or side[b] == learner:
            continue
        if removed[b] and not _side_in_play(alive, side_of, b, learner):
            out[b] = True
            continue
        rows[k] = b
        k += 1
    return k


@njit(nogil=True, inline="always")
def sort_starts(lo, hi, mode, actions, end_turn, P_env, reward, pending, occ, cell, alive,
                moved, occ0, cell0, turn, side, nxt, actor, over, out, removed, opp, adv,
                mv, to, restarted):
    """:func:`step_start` for games ``lo <= b < hi`` of the compiled whole steps
    (``_vechsenv``, ``_vecdescent_env``), its games sorted: those going on into ``opp``,
    those to advance (back at the root, or their side's turn passed) into ``adv``, those
    where the learner moves into ``mv`` (to the env place ``to``), and those back at the
    root also into ``restarted`` (the game's own state is the caller's); returns how many
    of each (``adv``, ``mv``, ``opp``, ``restarted``). All int64[>= hi - lo]. Inlined
    in each game's ``_starts``, compiled apart without reference counts (its arrays'
    dtypes are the game's: one cached signature each): inlined in a step, ``step_start``
    (and ``restart_one`` in it) counted its ~14 arrays at every game, ~1% of the
    Heroscape env move's samples (docs/performance_log.md, ``hsfloor``)."""
    n_adv = n_mv = n_opp = n_rs = 0
    for b in range(lo, hi):
        if mode[b] == LEFT:     # (left as it is: a same-step autoreset's other games)
            continue
        p = step_start(b, mode, actions, end_turn, P_env, reward, pending, occ, cell,
                       alive, moved, occ0, cell0, turn, side, nxt, actor, over, out,
                       removed)
        if p == STEP_ENDED:
            continue
        opp[n_opp] = b
        n_opp += 1
        if p < 0:               # restarted, or the turn passed: on to _advance
            if p == STEP_RESTARTED:
                restarted[n_rs] = b
                n_rs += 1
            adv[n_adv] = b
            n_adv += 1
        else:                   # the learner's move
            mv[n_mv] = b
            to[n_mv] = p
            n_mv += 1
    return n_adv, n_mv, n_opp, n_rs


@njit(cache=True, nogil=True, **NO_NRT)
def opponents_draw(rows, over, side, learner, removed, alive, side_of, out, rng, actor, u,
                   f, mv):
    """:func:`opponents_rows` in the compiled whole steps (``_vechsenv``,
    ``_vecdescent_env``), then each game's draw for its opponent's pick (``u[i]``,
    ``MovecoreGym._opponents``), its acting figure (``f[i]``) and the games to move
    (``mv``); returns how many. A function of its own, without reference counts, as
    the steps' other loops over their games (inlined, a loop's arrays may be counted at
    every game)."""
    k = opponents_rows(rows, over, side, learner, removed, alive, side_of, out)
    for i in range(k):
        b = rows[i]
        u[i] = _draw(rng, b)
        f[i] = actor[b]
        mv[i] = b
    return k


#: the game's own planes of the observation (``draw_obs``'s ``gmode``)
PLANES_NONE, PLANES_ENGAGED, PLANES_ROLL, PLANES_DOORS = 0, 1, 2, 3


@njit(cache=True, nogil=True, **NO_NRT)
def draw_obs(o, fresh, record, drawn, n_drawn, orec, static, S, HW, d, k, alive, cell,
             large, orient, swap, hw, rel, acting, actor, moved, a_list, a_n, a_cost,
             a_stop, lead, double, turn, max_turns, valid, gmode, sp, sadj, level, height, side_of,
             a_roll, over, doors, door_cells, row):
    """Every game's observation into ``o`` (float32[B, C * HW]; see the module
    docstring for the planes), from scratch (``fresh``: the static planes written, the
    rest zeroed) or **kept** (``record``, not ``fresh``: ``o`` holds what this call
    drew last time; the places it listed then are cleared, the ends' three planes
    zeroed whole and the new ones written, the turn plane and the game's dense planes
    rewritten where what they show changed).

    Kept bookkeeping (written where ``record``): ``drawn`` int32[B, >= 3 F K + K],
    the offsets of ``o[b]`` written off zero in the sparse planes (figures, acting,
    moved, engaged; not the ends' planes ``d + 2 ... d + 4``, which hold the ends
    alone: 3 HW floats, zeroed whole in a kept draw, cheaper than a listed clear of
    their ~100 ends), ``n_drawn`` int64[B] how many; ``orec`` int64[B, 2]: the turn
    the turn plane shows and the state the game's dense planes show (Dark Realms: the roll, -1 once over;
    Descent: the doors' bits). A fresh draw lists every place it writes, so a kept
    draw can follow it.

    ``cell`` int32[B, F] (``alive`` bool[B, F]); ``orient``/``swap``: a Descent
    turned base's place ids (``large``); ``hw`` int64[F, P, K] each place's cells;
    ``rel`` int64[F] the side plane; ``acting`` bool[B] (the learner acts, ``actor``
    int64[B] its figure); ``a_list``/``a_n``/``a_cost``/``a_stop`` the kept answer;
    ``lead`` int64[F, P]; ``double`` bool[F] (places share lead cells: the larger cost
    drawn); ``valid`` float32[HW]; ``gmode`` the game's planes from plane ``k``
    (``PLANES_*``): engaged (``sp`` int64[B, F, 2] spaces, ``sadj``, ``level``,
    ``height``), the roll (``a_roll``, ``over``) or the doors (``doors`` int64[B]
    bits, ``door_cells`` int64[n_doors, m], -1 padded). ``row`` float32[C * HW]: a
    scratch row (this thread's); in a whole draw (``fresh``, not ``record``) into a new
    array each game's row is composed there and streamed out
    (``kernels._stream.stream_copy``: its stores neither read the new array's lines
    first nor evict the step's state from the cache; docs/performance_log.md,
    "streamed observations"); empty: drawn in place. Allocates nothing, and is
    compiled without reference counts: with them, its views of a game's row (the static
    planes, the ends' planes, the turn plane) were counted at every game, ~4% of
    Heroscape's env move's samples (docs/performance_log.md, ``hsfloor``)."""
    B = o.shape[0]
    F = alive.shape[1]
    K = hw.shape[2]
    SHW = S * HW
    # a whole draw with a scratch row: each game's row composed there (in the cache),
    # then streamed out whole (``kernels._stream``): the static planes copied into it
    # once a call
    stream = fresh and not record and row.shape[0] > 0
    if stream:
        for i in range(SHW):
            row[i] = static[i]
    for b in range(B):
        nd = 0
        ob = row if stream else o[b]
        if fresh:
            # the static planes by a loop over the row's own 1-D view: LLVM makes it
            # a vector copy (the slice assignment ``o[b, :SHW] = static`` compiled
            # to a scalar loop that clamps every index for broadcasting: half the
            # speed, ~6% of Dark Realms' env move; docs/performance_log.md); the rest by
            # a slice fill (a memset). Dark Realms: not its last two planes, the
            # turn and the roll, drawn whole below (2 of its 10 dynamic planes were
            # zeroed to be overwritten: the draw alone 1.07x; docs/performance_log.md)
            if not stream:
                for i in range(SHW):
                    ob[i] = static[i]
            if gmode == 2:
                ob[SHW:(d + 5) * HW] = 0.0
            else:
                ob[SHW:] = 0.0
        else:
            for j in range(n_drawn[b]):
                ob[drawn[b, j]] = 0.0
            # the ends' three planes (they hold the ends alone) zeroed whole, on their
            # own view (a vector fill): cheaper than listing and clearing each end
            ends = ob[(d + 2) * HW:(d + 5) * HW]
            for i in range(3 * HW):
                ends[i] = 0.0
        # the figures (every cell of each one's place), by side
        for f in range(F):
            if not alive[b, f]:
                continue
            c = max(cell[b, f], 0)
            if large and orient[b, f] != 0:
                c = swap[f, c]
            for kk in range(K):
                h = hw[f, c, kk]
                if h < 0:
                    continue
                off = (S + rel[f]) * HW + h
                ob[off] = 1.0
                if record:
                    drawn[b, nd] = off
                    nd += 1
                if acting[b] and f == actor[b]:
                    off = d * HW + h
                    ob[off] = 1.0
                    if record:
                        drawn[b, nd] = off
                        nd += 1
                if acting[b] and moved[b, f]:
                    off = (d + 1) * HW + h
                    ob[off] = 1.0
                    if record:
                        drawn[b, nd] = off
                        nd += 1
        if acting[b]:
            # the acting figure's ends at their lead cells: costs scaled by the largest
            f = actor[b]
            top = 0
            for j in range(a_n[b]):
                top = max(top, a_cost[b, a_list[b, j]])
            scale = 1.0 / top if top > 0 else 1.0
            turned = large and orient[b, f] != 0
            two = double[f] or large
            for j in range(a_n[b]):
                p = a_list[b, j]
                lh = lead[f, swap[f, p] if turned else p]
                if lh < 0:
                    continue
                o2 = (d + 2) * HW + lh
                cs = np.float32(a_cost[b, p] * scale)
                st = np.float32(1.0) if a_stop[b, p] != 0 else np.float32(0.0)
                if two:
                    # (places sharing a lead cell come by cost: the last row's, the
                    # largest; a stop of any of them)
                    cs = max(cs, ob[o2 + HW])
                    st = max(st, ob[o2 + 2 * HW])
                ob[o2] = 1.0
                ob[o2 + HW] = cs
                ob[o2 + 2 * HW] = st
        if fresh or orec[b, 0] != turn[b]:
            v = np.float32(turn[b] / max_turns)
            # (on the plane's own view: the loop vectorizes, ~8x the speed)
            plane = ob[(d + 5) * HW:(d + 6) * HW]
            for i in range(HW):
                plane[i] = valid[i] * v
        if record:
            orec[b, 0] = turn[b]
        if gmode == 1:      # Heroscape: the engaged figures (heights considered)
            for f in range(F):
                if not alive[b, f]:
                    continue
                eng = False
                for g in range(F):
                    if eng:
                        break
                    if not alive[b, g] or side_of[g] == side_of[f]:
                        continue
                    for x in range(sp.shape[2]):
                        cf = sp[b, f, x]
                        if cf < 0:
                            continue
                        for y in range(sp.shape[2]):
                            cg = sp[b, g, y]
                            if cg >= 0 and sadj[cf, cg] and \
                                    level[cf] - level[cg] < height[g] and \
                                    level[cg] - level[cf] < height[f]:
                                eng = True
                if not eng:
                    continue
                c = max(cell[b, f], 0)
                for kk in range(K):
                    h = hw[f, c, kk]
                    if h >= 0:
                        off = k * HW + h
                        ob[off] = 1.0
                        if record:
                            drawn[b, nd] = off
                            nd += 1
        elif gmode == 2:    # Dark Realms: the acting figure's roll / 12 (0 once over)
            state = a_roll[b] if over[b] == 0 else -1
            if fresh or orec[b, 1] != state:
                v = np.float32(a_roll[b] / 12) if state >= 0 else np.float32(0.0)
                plane = ob[k * HW:(k + 1) * HW]
                for i in range(HW):
                    plane[i] = valid[i] * v
            if record:
                orec[b, 1] = state
        elif gmode == 3:    # Descent: the doors' squares, closed and open
            if fresh or orec[b, 1] != doors[b]:
                for i in range(2 * HW):
                    ob[k * HW + i] = 0.0
                for j in range(door_cells.shape[0]):
                    plane = k + 1 if (doors[b] >> j) & 1 == 1 else k
                    for c in door_cells[j]:
                        if c >= 0:
                            ob[plane * HW + c] = 1.0
            if record:
                orec[b, 1] = doors[b]
        if record:
            n_drawn[b] = nd
        if stream:
            stream_copy(o[b], row)
    if stream:
        store_fence()
    return 0


@njit(cache=True, nogil=True)
def draw_mask(out, acting, actor, a_list, a_n, env_base, end_turn, large, orient, swap):
    """int8[B, A] ``out``: the learner's mask where it acts (``acting`` bool[B], its
    figure ``actor``), zeros elsewhere: the end of the turn and each usable end of the
    kept answer (``a_list``/``a_n``) at ``env_base[f]`` + its env place id."""
    for b in range(out.shape[0]):
        for a in range(out.shape[1]):
            out[b, a] = 0
        if not acting[b]:
            continue
        out[b, end_turn] = 1
        f = actor[b]
        turned = large and orient[b, f] != 0
        for j in range(a_n[b]):
            p = a_list[b, j]
            out[b, env_base[f] + (swap[f, p] if turned else p)] = 1
    return 0


def obs_row(steps) -> np.ndarray:
    """A thread's scratch row for ``draw_obs`` (float32[C * HW]) where the env's
    observation array is worth streaming (``kernels._stream.scratch_row``), else an
    empty one (the whole draw then writes in place)."""
    return scratch_row(steps.B, steps.C * steps.HW)


class WholeStep:
    """The Python side of a game's vector env step in one compiled call per thread chunk
    (:class:`._vechsenv.HeroscapeEnvStep`, :class:`._vecdescent_env.DescentEnvStep`):
    the new arrays, the chunks on the engine's pool, the observations (``copy=True``:
    drawn whole into the step's new array, :attr:`whole`) and the kernel's counters. A
    subclass sets ``steps`` (the :class:`BatchedSteps`), ``copy``, ``n_chunks``,
    ``counts`` (one int64[K] a thread, K >= 2: moves, move generations, then the game's
    own, added to by the kernel) and ``_loaded`` (``n_chunks == 1``), ``_entries`` =
    {}, ``_heads`` = {}; and defines ``_kernel()`` (the compiled step) and
    ``_heads_for(draw)`` (each chunk's leading arguments, for :meth:`_call`)."""

    #: the compiled chunk's entry points, by (kernel, chunk) (:func:`entry_call`)
    _entries: dict
    #: whether a step's chunks run on the threads or whole on the calling thread (made
    #: at the first step on more than one thread: ``batch.ThreadChoice``)
    _choice = None
    #: ``copy=True``: each step draws every game's observation whole into its new array
    #: (True), as Dark Realms' step does, or updates the kept buffer where it changed
    #: and copies it there (False). The whole draw writes the new array once; the copy
    #: reads the kept buffer, larger than this host's 8 MiB cache at B = 1,024, and
    #: writes the new array: Heroscape's env move 1.04-1.25x with the whole draw
    #: (docs/performance_log.md, ``hswhole``). The kept buffer, left as the last kept
    #: draw (a reset's or a restart's) wrote it, still matches its record.
    whole = True

    @property
    def _draws_whole(self) -> bool:
        """Whether a step's call draws the observations whole into its new array
        (``copy`` and :attr:`whole`)."""
        return self.copy and self.whole

    def _call(self, kept: bool):
        """The compiled step and each chunk's leading arguments, their observation draw
        as :meth:`_draw` says (``kept``: the kept buffer's draw, as a restart's). The
        heads are made at each draw's first step (:meth:`_heads_for`, kept in
        ``self._heads`` by draw: after the tests' swaps; their arrays are never
        replaced); the step is :meth:`_kernel`'s."""
        key, *draw = self._draw(kept)
        heads = self._heads.get(key)
        if heads is None:
            heads = self._heads[key] = self._heads_for(draw)
        return self._kernel(), heads

    def _fresh(self) -> bool:
        """Whether the kept observations are drawn whole this step (the first one)."""
        s = self.steps
        fresh = not s._kept_ready
        s._kept_ready = True
        return fresh

    def _draw(self, kept: bool) -> tuple:
        """The observation draw of a call: the key of its chunks' leading arguments
        (``"whole"``: drawn whole into the step's new array, ``kept`` False with
        ``copy`` and :attr:`whole`; else the kept draw, fresh or not: ``_fresh``) and
        ``draw_obs``' ``fresh``, ``record`` and record arrays."""
        s = self.steps
        if not kept and self._draws_whole:
            return ("whole", True, False, *s._rec_scratch)
        fresh = self._fresh()
        return (fresh, fresh, True, *s._rec)

    def _run(self, kernel, heads, mode, actions, illegal_reward, obs_kept, mask, what):
        """Calls ``kernel(*heads[c], mode, actions, results, obs, mask, mask_out, lo,
        hi)`` on each chunk ``c`` (its games ``lo <= b < hi``; ``mode`` and ``actions``
        int64[B], C order, aligned, writeable: the env's ``mode`` and ``step``'s copy of
        the actions, the types the entry points were found for); ``heads`` from
        ``_call(False)``; ``obs`` the new array (``copy``: drawn whole there, or the
        kept buffer ``obs_kept`` updated and copied there: :attr:`whole`) or
        ``obs_kept``; ``what`` names the step in the error raised on a status < 0.
        Returns ((reward, terminated, truncated, done, the observations: a new array
        with ``copy``, else ``obs_kept``, the mask's copy), the counters summed over the
        threads, K ints); ``steps.counts[:2]`` added to, the threads' counters cleared.
        Each chunk's call at its entry point after its first (:func:`entry_call`,
        ``self._entries``)."""
        B = self.steps.B
        new = np.empty_like(obs_kept) if self.copy else None
        results = (float(illegal_reward), np.empty(B), np.empty(B, bool),
                   np.empty(B, bool), np.empty(B, bool))
        mask_out = np.empty_like(mask)
        whole = self._draws_whole
        drawn = new if whole else obs_kept
        got = self._chunks(kernel, heads, (mode, actions, results, drawn.reshape(B, -1),
                                           mask, mask_out),
                           None if new is None or whole else new.reshape(B, -1), what,
                           timed=True)
        return (*results[1:], new if self.copy else obs_kept, mask_out), got

    def restart_rows(self, rows, mode, obs_kept, mask, mask_out, dst=None):
        """Games ``rows`` (int64[K]) back at the root in one call of the step's kernel
        per chunk (``mode``: 2 there, ``LEFT`` elsewhere: the other games, their
        observations and masks left as they are; the vector env's same-step autoreset
        and partial reset): their kept observations (``obs_kept``) and masks (``mask``
        and ``mask_out``) rewritten, and copied into ``dst`` too (where not None).
        Returns the counters summed (K ints), ``steps.counts[:2]`` added to."""
        B = self.steps.B
        mode.fill(LEFT)
        mode[rows] = 2
        results = (0.0, np.empty(B), np.empty(B, bool), np.empty(B, bool),
                   np.empty(B, bool))
        got = self._chunks(*self._call(True), (mode, np.zeros(B, np.int64), results,
                                           obs_kept.reshape(B, -1), mask, mask_out),
                           None, "restart")
        if dst is not None:
            dst[rows] = obs_kept[rows]
        return got

    def _chunks(self, kernel, heads, args, dst, what, timed: bool = False):
        """``kernel(*heads[c], *args, lo, hi)`` on each chunk ``c`` (its entry point
        after its first call; ``args[3]`` the kept observations, whose chunk rows are
        copied into ``dst`` where not None), or on every game in chunk 0's call where
        the threads measured slower (``batch.ThreadChoice``: a whole step's call,
        ``timed``, is timed; a restart's follows it); a status < 0 raises naming
        ``what``. Returns the threads' counters summed (``steps.counts[:2]`` added to,
        the threads' cleared)."""
        s = self.steps
        B = s.B
        o = args[3]
        entries = self._entries

        def run(c, lo, hi):
            st = entry_call(entries, (kernel, c), kernel, (*heads[c], *args, lo, hi))
            if dst is not None:
                dst[lo:hi] = o[lo:hi]
            return st

        if self.n_chunks == 1:      # (on_chunks' own path, without its cut: 1 us)
            status = [run(0, 0, B)]
        else:
            if not self._loaded:
                run(0, 0, 0)        # (compiled or loaded once, on this thread)
                self._loaded = True
            choice = self._choice
            if choice is None:
                choice = self._choice = ThreadChoice()
            split = choice.use_split() if timed else choice.split
            t0 = perf_counter()
            status = on_chunks(B, self.n_chunks, run)[1] if split else [run(0, 0, B)]
            if timed:
                choice.took(split, perf_counter() - t0)
        if min(status) < 0:  # pragma: no cover (each step says why it cannot be)
            raise RuntimeError(f"movecore: {what} env step status {min(status)}")
        got = summed(self.counts)
        for c in self.counts:
            c.fill(0)
        s.counts[0] += got[0]
        s.counts[1] += got[1]
        return got


def why_not(one, kwargs, num_envs: int = 1, threads: int = 1) -> tuple:
    """``(why, games)``: why this backend does not take the environment (None: it
    does), and the :class:`BatchedGames` of ``num_envs`` games on ``threads`` threads
    built to tell (None where none was built), for :class:`BatchedSteps` to play on:
    the game's batched layout (a Heroscape board's static ends, ~0.2 s) is built once
    per env, not once to tell and once to play."""
    s = one._s
    if s.game not in ("descent", "dark_realms", "heroscape"):
        return f"the {s.game} game's vector env is not on arrays yet", None
    if kwargs.get("town"):
        return "town=True: the glyph to town is played on positions", None
    from ..batch import BatchedGames
    q = _queries(s)
    try:
        G = BatchedGames(s.root, num_envs, query=q, threads=threads, backend="arrays")
    except QueryError as refused:
        # (told by one game, as the positions backend would hold it: not B copies of
        # the root for an env that plays none of them; what is not about the layout
        # raises there again)
        G = BatchedGames(s.root, 1, query=q)
        if G.backend == "arrays":  # pragma: no cover (the same root and query)
            raise refused
        return f"the {s.game} game's batched arrays do not take it: {G.why}", None
    if s.game == "dark_realms" and G._query_columns is None:  # pragma: no cover
        return "each move's query is rolled (Dark Realms' die) and the layout has " \
            "none", None
    return None, G


def slower(one) -> str | None:
    """Why ``backend="auto"`` keeps an environment this backend takes on positions (it
    would be no faster; ``backend="arrays"`` still plays it here), or None: none now
    (Heroscape's double-space figures, whose rows were once asked of a live position,
    take their order from the batched answer: ``row_rank``; 2.6-3.5x the positions
    backend's env steps/s on ``heroscape_engaged_knight`` at B = 1,024)."""
    return None


def row_rank(root, figs, cell_rank) -> np.ndarray:
    """int64[F, P]: each figure slot's places ranked as its ``Moves`` rows of equal
    cost come (P: not a place of it), from ``cell_rank`` (int64[F, P] or broadcast: a
    one-space place's, x then y). A Heroscape double-space figure's rows come by cost,
    then by the pair of spaces its placement covers (the position's ``pair_rank``:
    ``_figure_moves.finish_double``), so its order is the batched answer's mask and costs
    alone: which orientation of a pair is listed, ``rules.placement_key`` decides,
    and the batched call lists the same (``tests/test_batch_heroscape.py``)."""
    rank = np.array(cell_rank, np.int64)
    if root.game != "heroscape":
        return rank
    double = root.double
    pair = np.asarray(root._st.pair_rank, np.int64)
    for i, f in enumerate(figs):
        if double[root.index[f]]:
            rank[i] = rank.shape[1]
            rank[i, :len(pair)] = pair
    return rank


def _compact(R, r, p):
    """(rows, lists, counts) for :func:`pick_rows` from the ends ``(r, p)`` of R rows
    (``np.nonzero`` order: by row, then place): ``lists`` int32[R, L] each row's
    places in that order."""
    n = np.bincount(r, minlength=R).astype(np.int64)
    lists = np.zeros((R, max(int(n.max(initial=0)), 1)), np.int32)
    start = np.cumsum(n) - n
    lists[r, np.arange(len(r)) - start[r]] = p
    return np.arange(R), lists, n


def _queries(s):
    """The query of each figure slot (None: rolled per move, Dark Realms' die)."""
    if s.game == "dark_realms":
        return None
    return [dict(s.rules.query(s.root, f, np.random.default_rng(0))) for f in s.figs]


class BatchedSteps:
    """The games, their turn state and random streams, and the vector env's step over
    them (see the module docstring). ``env``: the :class:`MovecoreVectorEnv`."""

    def __init__(self, env, one, games=None):
        from ..batch import BatchedGames
        s = one._s
        self.s = s
        root = s.root
        B = self.B = env.num_envs
        F = self.F = len(s.figs)
        # (``games``: the ones :func:`why_not` built for this env, B games on its threads)
        self.G = G = games if games is not None else BatchedGames(
            root, B, query=_queries(s), threads=env.threads, backend="arrays")
        # the figures that move (Dark Realms: not the summons)
        self.movers = np.array([s.rules.moves(root, f) for f in s.figs], bool)
        #: Dark Realms: each move's query is rolled (the figure's d6) when its turn
        #: comes, from the game's stream; ``a_roll``: the acting figure's roll
        self.rolled = s.game == "dark_realms"
        self.hero = np.array([root.side_of(f) == "hero" for f in s.figs], bool)
        self.a_roll = np.zeros(B, np.int64)
        self.game = G._game
        P = self.P = G.n_places
        al = s.actions[one.agent]
        self.A, self.P_env, self.end_turn = al.n, al.P, al.end_turn
        self.learner = s.side_index[al.side]
        self.env_base = np.full(F, -1, np.int64)     # each slot's first action id
        for k, f in enumerate(al.slots):
            self.env_base[s.row[f]] = k * al.P
        self.side_of = np.asarray(s.fig_side, np.int64)
        self.turn_sides = np.array([s.side_index[t] for t in s.turn_sides], np.int64)
        self.n_all = len(s.sides)
        self.max_turns = one._core.max_turns
        self.greedy = one.opponent == "greedy"
        # the places a movement-only game may take (Descent: not the town, NS)
        ok = np.zeros((F, P), bool)
        for i, f in enumerate(s.figs):
            ok[i, :root.n_actions(f)] = True
        if s.game == "descent":
            ok[:, root.st.ns] = False        # (the town; NS + 1 + s: a turned base)
        self.usable = ok
        self._usable8 = ok.astype(np.uint8)
        # each slot's place -> observation cell (flat H*W; -1 none)
        lead = np.full((F, P), -1, np.int64)
        for i in range(F):
            lead[i, :len(s.lead[i])] = s.lead[i]
        self.lead = lead
        N = np.asarray(root.board.coords).shape[0]
        self.N = N
        xy = np.asarray(root.board.coords, np.int64)
        self.coords = np.zeros((P, 2), np.int64)
        self.coords[:N] = xy
        rank = np.full(P, P, np.int64)      # the Moves row order of equal costs: x, y
        rank[np.lexsort((xy[:, 1], xy[:, 0]))] = np.arange(N)
        #: Descent's large monsters (``_DescentBatch.large``): a place is a base of
        #: many squares (``G.spaces``) in the figure's orientation in its game
        #: (``orient``), and a base that turns numbers its places in its kind of now:
        #: ``swap[f]`` maps them to the env's ids (the root's orientation,
        #: ``_Setup.swap``) and back (an involution; identity for the others)
        self.large = bool(getattr(G._game, "large", False))
        self.swap = np.tile(np.arange(P, dtype=np.int64), (F, 1))
        if self.large:
            ns = root.st.ns
            for i, sw in enumerate(s.swap):
                if sw is not None:
                    self.swap[i, :len(sw)] = sw
            # ends sort by cost, then the anchor's x, then y, then the orientation (the
            # kind's own first: ``_KindGraph.rank``), the same in both kinds
            n_turn = P - ns - 1             # (NS where a base turns, else 0)
            if n_turn > 0:
                ax = np.concatenate([xy, xy[:1], xy[:n_turn]])       # (ns: the town)
                turned = np.r_[np.zeros(ns + 1, np.int64), np.ones(n_turn, np.int64)]
                rank = np.empty(P, np.int64)
                rank[np.lexsort((turned, ax[:, 1], ax[:, 0]))] = np.arange(P)
                rank[ns] = P
        #: int64[F, P]: each slot's places' order among rows of equal cost (P: not a
        #: place of it); a Heroscape double-space figure's: its pair's (row_rank)
        self.rank = np.ascontiguousarray(row_rank(root, s.figs,
                                                  np.broadcast_to(rank, (F, P))))
        self.kind = s.rules.kind
        nbr = np.asarray(root.board.nbr, np.int64)
        adj = np.zeros((N + 1, N + 1), bool)          # (row / column N: out of play)
        for c in range(N):
            for d in nbr[c]:
                if d >= 0:
                    adj[c, d] = True
        self.adj = adj
        # each slot's place -> every observation cell it covers (a Heroscape
        # double-space figure: two)
        K = s.K
        self.hw = np.full((F, P, K), -1, np.int64)
        for i in range(F):
            self.hw[i, :len(s.places[i])] = s.places[i]
        #: Heroscape: double-space figures (a place is two spaces) and what engagement
        #: reads
        self.double = np.zeros(F, bool)
        self.engage = None
        if s.game == "heroscape":
            st = root._st
            idx = [root.index[f] for f in s.figs]
            self.double = np.array([len(s.places[i][0][s.places[i][0] >= 0]) > 1
                                    for i in range(F)], bool)
            Ns = st.nbr64.shape[0]
            sadj = np.zeros((Ns + 1, Ns + 1), bool)       # (row / column Ns: none)
            for c in range(Ns):
                for x in st.nbr64[c]:
                    if x >= 0:
                        sadj[c, x] = True
            level = np.append(np.asarray(st.level64, np.int64), 0)
            self.engage = (sadj, level, np.asarray(root.height, np.int64)[idx], Ns)
            self.adj = sadj
            self.N = Ns
        #: int64[F, P, 2]: the spaces of each slot's places (-1: none; a double-space
        #: figure's two), what the greedy distances read
        self.pspace = G.spaces(np.zeros(F, np.int64), np.arange(F),
                               np.where(ok, np.arange(P)[None], -1))
        lay = s.layout
        self.S = lay.static.shape[0]
        self.C, self.HW = lay.shape[0], lay.H * lay.W
        self.static = np.ascontiguousarray(lay.static, np.float32)
        self.valid = s.valid
        self.d = self.S + s.n_sides
        self.observer = s.observer[one.agent]
        self.rel = (self.side_of - self.observer) % s.n_sides
        self.doors = None
        if s.game == "descent":
            self.doors = [np.asarray(c, np.int64) for c in lay.extra["doors"]]
        # the observation kernel's views (draw_obs) and the kept draw's bookkeeping
        self._no_orient = np.zeros((1, 1), np.uint8)      # (as _DescentBatch.orient)
        self._no_sp = np.zeros((1, 1, 2), np.int64)
        self._no_doors = np.zeros(1, np.int64)
        self._no_row = np.zeros(0, np.float32)      # (draw_obs draws in place)
        K = self.hw.shape[2]
        self._gmode = PLANES_ENGAGED if self.engage is not None else \
            PLANES_ROLL if self.rolled else PLANES_DOORS if self.doors is not None else \
            PLANES_NONE
        if self.engage is not None:
            sadj, level, height, _ = self.engage
            self._eng_tables = (np.ascontiguousarray(sadj), level, height)
        else:
            self._eng_tables = (np.zeros((1, 1), bool), np.zeros(1, np.int64),
                                np.zeros(F, np.int64))
        dc = self.doors or []
        self._door_cells = np.full((len(dc), max([len(c) for c in dc], default=0)), -1,
                                   np.int64)
        for j, c in enumerate(dc):
            self._door_cells[j, :len(c)] = c
        # (sides, moved, engaged: F K each; acting: K. The 3 HW more that the ends
        # took before they were zeroed by plane stay: an older draw_obs, loaded beside
        # this one by the A/B benches, still lists its ends here)
        room = 3 * F * K + K + 3 * self.HW

        def rec():      # offsets written off zero, how many, (turn, game planes) shown
            return (np.zeros((B, room), np.int32), np.zeros(B, np.int64),
                    np.full((B, 2), -2, np.int64))

        self._rec = rec()
        self._rec_scratch = (np.zeros((1, 1), np.int32), np.zeros(1, np.int64),
                             np.zeros((1, 2), np.int64))     # (a fresh draw reads none)
        self._kept_ready = False
        i64 = np.int64
        self.turn = np.zeros(B, i64)
        self.side = np.full(B, -1, i64)
        self.nxt = np.zeros(B, i64)
        self.actor = np.full(B, -1, i64)
        self.over = np.zeros(B, i64)
        self.out = np.zeros(B, bool)
        self.removed = np.zeros(B, bool)
        self.moved = np.zeros((B, F), bool)
        self.pending = np.zeros(B)
        self.rng = np.zeros((B, 4), np.uint64)
        # the acting figure's answer (usable places only) and what its move reads
        self.a_cost = np.zeros((B, P), np.int32)
        self.a_stop = np.zeros((B, P), np.int8)
        self.a_list = np.zeros((B, P), np.int32)     # the usable ends, by place id
        self.a_n = np.zeros(B, np.int64)
        self.a_open = np.zeros((B, P), np.int64)
        self.a_slow = np.zeros(B, bool)
        # (keep_answer: what the Descent move reads of each answer; none elsewhere)
        self._open = (True, self.game.opened, self.a_open, self.game.slow) \
            if s.game == "descent" else (False, np.zeros((1, 1), np.int64),
                                         np.zeros((1, 1), np.int64), np.zeros(1, bool))
        self._out = (np.zeros((B, P), np.uint8), np.zeros((B, P), np.int32),
                     np.zeros((B, P), np.int8))
        #: Dark Realms' rolled queries answered without the general batched
        #: ``legal_moves`` where they stay in the compiled scope (:mod:`._vecdr`)
        self._dr = None
        if self.rolled:
            from ._vecdr import DarkRealmsAnswers
            self._dr = DarkRealmsAnswers.make(self)
        #: Heroscape's queries, move and removal without the general path where they
        #: stay in the self-play step's compiled scope (:mod:`._vechs`)
        self._hs = None
        if s.game == "heroscape":
            from ._vechs import HeroscapeAnswers
            self._hs = HeroscapeAnswers.make(self)
        #: Descent's move and removal in one compiled call (``_vecdescent``; None: the
        #: general path, numpy over the batch's ``move``/``remove``)
        self._dp = None
        if s.game == "descent":
            from ._vecdescent import descent_play
            self._dp = descent_play
        self.counts = [0, 0]             # moves, move generations
        #: enemy AI moves with a choice, picked on the position's rows (the tests)
        self.ai_choices = 0
        #: opponent picks among rows of a double-space figure, two of them of one cost
        #: (their order is the pairs': the tests)
        self.double_picks = 0

    # ------------------------------------------------------------------ draws
    def _draws(self, rows) -> np.ndarray:
        out = np.empty(len(rows))
        if len(rows):
            draw_rows(self.rng, np.ascontiguousarray(rows, np.int64), out)
        return out

    # ------------------------------------------------------------------ turn flow
    def restart(self, rows) -> None:
        """Games ``rows`` back at the root, their first figure found and the opponents
        played (``MovecoreGym.reset``; the streams are seeded by the caller)."""
        if not len(rows):
            return
        self.G.reset(rows)
        self.turn[rows] = 0
        self.side[rows] = -1
        self.nxt[rows] = self.F
        self.actor[rows] = -1
        self.over[rows] = 0
        self.out[rows] = False
        self.removed[rows] = False
        self.moved[rows] = False
        self.pending[rows] = 0.0
        self._advance(rows)
        self._opponents(rows)

    def _advance(self, rows) -> None:
        """``Match._advance`` in games ``rows``: on to the next figure of the side to
        move that has a usable end (starting turns as needed: :func:`advance_select`),
        its answer kept; or the game is over."""
        rows = np.asarray(rows, np.int64)
        while len(rows):
            ask = np.empty(len(rows), np.int64)
            g = np.empty(len(rows), np.int64)
            na = advance_select(rows, self.G.alive, self.side_of, self.movers,
                                self.turn_sides, self.n_all, self.max_turns, self.turn,
                                self.side, self.nxt, self.actor, self.over, self.moved,
                                ask, g)
            if not na:
                return
            rows = self._answer(ask[:na], g[:na])

    def _answer(self, rows, g) -> np.ndarray:
        """Figure slots ``g`` of games ``rows``: their usable ends into the kept answer
        (one batched ``legal_moves``), the figure acting where it has one
        (:func:`keep_answer`); returns the games where it has none."""
        if self._dr is not None:    # (Dark Realms in the compiled scope: _vecdr)
            self.counts[1] += len(rows)
            return self._dr.answer(rows, g, *self._out)
        if self._hs is not None:    # (Heroscape in the compiled scope: _vechs)
            self.counts[1] += len(rows)
            return self._hs.answer(rows, g, *self._out)
        self._legal(rows, g)
        mask, cost, stop = self._out
        self.counts[1] += len(rows)
        again = np.empty(len(rows), np.int64)
        k = keep_answer(rows, g, mask, cost, stop, self._usable8, self.a_cost, self.a_stop,
                        self.a_list, self.a_n, *self._open, self.a_slow, self.nxt,
                        self.actor, again)
        return again[:k]

    def _legal(self, rows, g) -> None:
        """Figure slots ``g`` of games ``rows``: their answers into ``self._out`` by one
        batched ``legal_moves`` (Dark Realms: each figure's d6 drawn first)."""
        G = self.G
        figs = np.full(self.B, -1, np.int64)
        figs[rows] = g
        qs = None
        if self.rolled:       # DarkRealmsGame.query: the d6, one draw of the stream
            from ..batch import QueryColumns
            r = (self._draws(rows) * 6).astype(np.int64) + 1
            self.a_roll[rows] = r
            B = self.B
            hero = np.zeros(B, bool)
            hero[rows] = self.hero[g]
            enemy = np.zeros(B, bool)
            enemy[rows] = ~self.hero[g]
            roll = np.full(B, -1, np.int64)
            roll[rows] = r
            qs = QueryColumns({"roll": np.where(hero, roll, -1), "enemy": enemy,
                               "move": np.where(enemy, roll, -1),
                               "attack_range": np.where(enemy, 1, -1)}, B)
        # (BatchedGames.legal_moves less its checks of the caller's input: the figures
        # asked are in play, the out arrays are this backend's own)
        G._legal_arrays(figs, *self._out, qs)

    def _env_places(self, rows, f, p) -> np.ndarray:
        """The env's place ids of places ``p`` of figure slots ``f`` in games ``rows``
        (int arrays that broadcast): the batch numbers a turned base's places in its
        kind of now, the env in the root's (``swap``); and back (the same map)."""
        if not self.large:
            return p
        return np.where(self.game.orient[rows, f] != 0, self.swap[f, p], p)

    def _spaces(self, rows) -> np.ndarray:
        """int64[R, F, S]: every figure's spaces in games ``rows`` (-1: none; S = 2, or
        the widest base's squares with Descent's large monsters)."""
        if self.large:
            return self.G.spaces(rows)
        if self.engage is None:
            sp = np.full((len(rows), self.F, 2), -1, np.int64)
            sp[..., 0] = np.where(self.G.alive[rows], self.G.cell[rows], -1)
            return sp
        return self.G.spaces(rows)

    def _play(self, rows, to) -> None:
        """The acting figures of games ``rows`` move to places ``to`` (usable ends of
        their kept answer), then the removal coin (``Match.play``); the learner's reward
        of it adds to ``pending``; then on to the next figure."""
        if not len(rows):
            return
        G = self.G
        if self._dr is not None:        # (Dark Realms: one space a figure, compiled)
            from ._vecdr import dr_play
            left = np.empty(len(rows), np.int64)
            k = dr_play(rows, np.ascontiguousarray(to, np.int64), self.actor, G.occ,
                        G.cell, G.alive, G.team, self.moved, self.removed, self.rng,
                        self.adj, self.side_of, self.n_all, self.learner, self.pending,
                        self.over, left)
            self.counts[0] += len(rows)
            self._advance(left[:k])
            return
        if self._hs is not None:        # (Heroscape: compiled, _vechs)
            left = self._hs.play(rows, to)
            self.counts[0] += len(rows)
            self._advance(left)
            return
        if self._dp is not None and not self.a_slow[rows].any():
            # (Descent, every answer on arrays: move and removal compiled, _vecdescent)
            g = self.game
            left = np.empty(len(rows), np.int64)
            k = self._dp(rows, np.ascontiguousarray(to, np.int64), self.actor, g.tables,
                         G.cell, G.alive, g.opened, self.a_open, g.slow, self.a_slow,
                         g.last_fig, g.space, g.space_at, self.moved, self.removed,
                         self.rng, self.adj, self.side_of, self.n_all, self.learner,
                         self.pending, self.over, left)
            self.counts[0] += len(rows)
            self._advance(left[:k])
            return
        f = self.actor[rows]
        if self.game is not None:        # the Descent move reads its answer's doors
            self.game.last_fig[rows] = f
            self.game.opened[rows, to] = self.a_open[rows, to]   # (what the move reads)
            self.game.slow[rows] = self.a_slow[rows]
        G._move_trusted(rows, f, to)
        self.counts[0] += len(rows)
        self.moved[rows, f] = True
        self.removed[rows] = False
        coin = self._draws(rows)
        hit = coin < 0.5
        r, fh = rows[hit], f[hit]
        if len(r):
            out = np.empty((4, len(r)), np.int64)
            k = victims(r, fh, self._spaces(r), self.adj, G.alive, self.side_of, self.n_all,
                        self.rng, out)
            r, fh, gone, end = out[:, :k]
            if len(r):
                G.remove(r, gone)
                self.removed[r] = True
                self.pending[r] += (self.side_of[fh] == self.learner).astype(float) - \
                    (self.side_of[gone] == self.learner).astype(float)
                end = end != 0
                self.over[r[end]] = TERMINATED
                self.actor[r[end]] = -1
        self._advance(rows[self.over[rows] == 0])

    def _opponents(self, rows) -> None:
        """``MovecoreGym._opponents``: the other sides play until the learner is to act
        or the game is over (or every learner's figure is gone: ``out``)."""
        rows = np.array(rows, np.int64)
        while True:
            k = opponents_rows(rows, self.over, self.side, self.learner, self.removed,
                               self.G.alive, self.side_of, self.out)
            if not k:
                return
            rows = rows[:k]
            self._play(rows, self._pick(rows))

    def _pick(self, rows) -> np.ndarray:
        """The opponent's place in games ``rows`` (``Match.random_row`` /
        ``greedy_row``: one draw each), in the ``Moves`` row order: by cost, then the
        place's rank (``self.rank``)."""
        u = self._draws(rows)
        f = self.actor[rows]
        R = len(rows)
        cand = (rows, self.a_list, self.a_n)          # (random: every usable end)
        if self.greedy and self.large:
            m = np.zeros((R, self.P), bool)
            m[self._usable_ends(rows)] = True
            r, p = np.nonzero(self._nearest(rows, m))
            cand = _compact(R, r, p)
        elif self.greedy:
            # (over the usable ends only: a double-space figure's places are many)
            sp = self._spaces(rows)                                  # [R, F, 2]
            enemy = ((self.G.alive[rows] & (self.side_of[None] != self.side[rows][:, None]))
                     [:, :, None] & (sp >= 0)).reshape(R, -1)        # [R, 2F]
            ec = self.coords[np.maximum(sp, 0)].reshape(R, -1, 2)    # [R, 2F, 2]
            r, p = self._usable_ends(rows)
            ps = self.pspace[f[r], p]                                # [E, 2]
            pc = self.coords[np.maximum(ps, 0)]                      # [E, 2, 2]
            d = grid_distance(self.kind, pc[:, :, None], ec[r][:, None])  # [E, 2, 2F]
            big = np.int64(1) << 40
            d = np.where((ps >= 0)[:, :, None] & enemy[r][:, None, :], d, big).min((1, 2))
            low = np.full(R, big, np.int64)
            np.minimum.at(low, r, d)
            keep = (d == low[r]) | ~enemy.any(1)[r]     # (no enemy: every end, random)
            cand = _compact(R, r[keep], p[keep])
        to = np.empty(R, np.int64)
        self.double_picks += pick_rows(rows, *cand, f, u, self.a_cost, self.rank,
                                       self.double, to)
        if self.rolled:
            # the enemy AI's rows are its targets' moves in target order (two targets
            # may give one end): where it has a choice, its rows as the position lists
            # them (rare: a tie between targets)
            ai = np.flatnonzero(~self.hero[self.actor[rows]] & (self.a_n[rows] > 1))
            for j in ai.tolist():
                to[j] = self._enemy_pick(int(rows[j]), float(u[j]))
        return to

    def _usable_ends(self, rows):
        """(r, p): the usable ends of the kept answers of games ``rows`` (row ``r`` of
        ``rows``, place ``p``), by row, then place (``np.nonzero`` order)."""
        n = self.a_n[rows]
        r = np.repeat(np.arange(len(rows)), n)
        j = np.arange(len(r)) - np.repeat(np.cumsum(n) - n, n)
        return r, self.a_list[rows[r], j].astype(np.int64)

    def _nearest(self, rows, m) -> np.ndarray:
        """``Match.greedy_row``'s choice where places are bases of many squares
        (Descent's large monsters): of the usable places ``m`` (bool[R, P]) of the
        acting figures of games ``rows``, those at the least grid distance from a
        square of their base to a square of an enemy's (every usable place where no
        enemy is in play)."""
        G = self.G
        R = len(rows)
        enemy = G.alive[rows] & (self.side_of[None] != self.side[rows][:, None])
        es = np.where(enemy[:, :, None], G.spaces(rows), -1).reshape(R, -1)   # [R, F*S]
        big = np.int64(1) << 40
        # each square's least distance to an enemy's square (Chebyshev: square8)
        xy = self.coords[:self.N]                                    # [N, 2]
        dsq = np.full((R, self.N + 1), big, np.int64)                # (N: no square)
        for j in range(es.shape[1]):
            c = es[:, j]
            has = c >= 0
            if not has.any():
                continue
            e = self.coords[np.maximum(c, 0)]                        # [R, 2]
            d = np.maximum(np.abs(xy[None, :, 0] - e[:, None, 0]),
                           np.abs(xy[None, :, 1] - e[:, None, 1]))
            dsq[:, :self.N] = np.where(has[:, None], np.minimum(dsq[:, :self.N], d),
                                       dsq[:, :self.N])
        f = self.actor[rows]
        P = self.P
        sp = G.spaces(rows, f, np.broadcast_to(np.arange(P), (R, P)))   # [R, P, S]
        sp = np.where(sp >= 0, sp, self.N)
        d = dsq[np.arange(R)[:, None, None], sp].min(2)                 # [R, P]
        d = np.where(m, d, big + 1)
        best = d == d.min(1)[:, None]
        return np.where(enemy.any(1)[:, None], m & best, m)

    def _enemy_pick(self, b: int, u: float) -> int:
        """Game ``b``'s enemy AI move with a choice: ``Match.random_row`` /
        ``greedy_row`` over the rows of the position's own answer (made from the game's
        arrays, as ``BatchedGames`` answers a query it does not batch)."""
        G = self.G
        self.ai_choices += 1
        pos = G._live.get(b)
        if pos is None:
            pos = G._live[b] = G.root.copy()
        G._restore(pos, G.occ[b], G.cell[b], G.alive[b])
        f = int(self.actor[b])
        m = pos.legal_moves(G.ids[f], enemy=True, move=int(self.a_roll[b]), attack_range=1)
        return self._row_pick(b, np.asarray(m.actions, np.int64), u)

    def _row_pick(self, b: int, places, u: float) -> int:
        """``Match.random_row`` / ``greedy_row`` in game ``b`` over the rows ``places``
        (the position's own order; a place may be two spaces)."""
        G = self.G
        n = len(places)
        sp = self._spaces(np.array([b]))[0]                          # [F, 2]
        enemy = (G.alive[b] & (self.side_of != self.side[b]))[:, None] & (sp >= 0)
        if self.greedy and enemy.any():
            ec = self.coords[sp[enemy]]                              # [E, 2]
            f = int(self.actor[b])
            ps = self.pspace[f, places]                               # [n, 2]
            pc = self.coords[np.maximum(ps, 0)]                       # [n, 2, 2]
            d = grid_distance(self.kind, pc[:, :, None], ec[None, None])  # [n, 2, E]
            d = np.where((ps >= 0)[:, :, None], d, np.int64(1) << 40).min((1, 2))
            best = np.flatnonzero(d == d.min())
            return int(places[best[int(u * len(best))]])
        return int(places[int(u * n)])

    # ------------------------------------------------------------------ env API
    def reset(self) -> None:
        self.restart(np.arange(self.B))

    def step(self, mode, actions, illegal_reward):
        """One env step (``mode`` as ``_vecgame.step_modes``); returns reward,
        terminated, truncated, done."""
        B = self.B
        reward = np.zeros(B)
        auto = np.flatnonzero(mode == 2)
        self.restart(auto)
        bad = np.flatnonzero(mode == 0)
        self.over[bad] = ILLEGAL
        self.actor[bad] = -1
        play = np.flatnonzero(mode == 1)
        a = actions[play]
        # (pending: what the opponents scored since the learner last acted)
        reward[play] = self.pending[play]
        self.pending[play] = 0.0
        ends = a == self.end_turn
        et = play[ends]
        self.nxt[et] = self.F                      # the side passes: the next turn
        self._advance(et)
        mv = play[~ends]
        self._play(mv, self._env_places(mv, self.actor[mv], a[~ends] % self.P_env))
        self._opponents(play)
        reward[play] += self.pending[play]
        self.pending[play] = 0.0
        reward[bad] = illegal_reward
        term = (self.over == TERMINATED) | self.out | (self.over == ILLEGAL)
        trunc = (self.over == TRUNCATED) & ~term
        term[auto] = False
        trunc[auto] = False
        reward[auto] = 0.0
        done = term | trunc
        return reward, term, trunc, done

    def learner_acting(self) -> np.ndarray:
        return (self.over == 0) & ~self.out & (self.side == self.learner)

    def mask(self, out) -> None:
        """int8[B, A]: the learner's mask where it acts, zeros elsewhere."""
        draw_mask(out, self.learner_acting(), self.actor, self.a_list, self.a_n,
                  self.env_base, self.end_turn, self.large, self._orient(), self.swap)

    def _orient(self) -> np.ndarray:
        return self.game.orient if self.large else self._no_orient

    def observe(self, out, kept: bool = False, dst=None) -> None:
        """float32[B, C, H*W] (``out``): every game's observation (the learner's),
        drawn from scratch; ``kept``: ``out`` is the kept buffer, which holds what the
        last kept draw wrote, updated only where it changes (:func:`draw_obs`; the
        first kept draw is a fresh one); ``dst`` (of ``out``'s shape): a copy of it
        written there too. Dark Realms' and Heroscape's kept draw on T threads
        (``_vecdr``, ``_vechs``): each thread draws and copies its own chunk of games."""
        B, G = self.B, self.G
        o = out.reshape(B, self.C * self.HW)
        sp = G.spaces(np.arange(B)) if self.engage is not None else self._no_sp
        if kept:
            fresh, rec = not self._kept_ready, self._rec
            self._kept_ready = True
        else:
            fresh, rec = True, self._rec_scratch
        acting = self.learner_acting()
        plan = self._dr if self._dr is not None else self._hs
        if kept and plan is not None and plan.n_chunks > 1:
            # (every per-game input sliced to the thread's games; Dark Realms and
            # Heroscape read no orientation or doors: those stay the shared
            # placeholders; Heroscape's spaces are per game)
            d2 = None if dst is None else dst.reshape(B, -1)

            def chunk(lo, hi):
                draw_obs(o[lo:hi], fresh, kept, *(a[lo:hi] for a in rec),
                         self.static.reshape(-1), self.S, self.HW, self.d, self.d + 6,
                         G.alive[lo:hi], G.cell[lo:hi], self.large, self._orient(),
                         self.swap, self.hw, self.rel, acting[lo:hi], self.actor[lo:hi],
                         self.moved[lo:hi], self.a_list[lo:hi], self.a_n[lo:hi],
                         self.a_cost[lo:hi], self.a_stop[lo:hi], self.lead, self.double,
                         self.turn[lo:hi], self.max_turns, self.valid, self._gmode,
                         sp[lo:hi] if sp.shape[0] == B else sp, *self._eng_tables, self.side_of, self.a_roll[lo:hi],
                         self.over[lo:hi], self._doors_bits(), self._door_cells,
                         self._no_row)
                if d2 is not None:
                    d2[lo:hi] = o[lo:hi]
            plan.on_threads(B, chunk)
            return
        draw_obs(o, fresh, kept, *rec, self.static.reshape(-1), self.S, self.HW, self.d,
                 self.d + 6, G.alive, G.cell, self.large, self._orient(), self.swap,
                 self.hw, self.rel, acting, self.actor, self.moved,
                 self.a_list, self.a_n, self.a_cost, self.a_stop, self.lead, self.double, self.turn,
                 self.max_turns, self.valid, self._gmode, sp, *self._eng_tables,
                 self.side_of, self.a_roll, self.over, self._doors_bits(),
                 self._door_cells, self._no_row)
        if dst is not None:
            dst[...] = out

    def _doors_bits(self) -> np.ndarray:
        return self.game.doors if self.doors is not None else self._no_doors
