"""Dark Realms' whole vector-env step in one compiled call per thread chunk of games.

The numpy-driven backend (:mod:`._vecnp`) steps Dark Realms sub-step by sub-step: the
learner's move over every game that plays, then one compiled answer (:mod:`._vecdr`)
per search for the next figure, one pick and one move per opponent's turn, each a
Python call over the games still in it (8-11 kernel queries' time per figure move at
B = 1,024, ~10% of it the calling thread's Python, a serial part the threads wait
on). :class:`WholeSteps` steps it as the compiled backend does (``_vecgame.
env_chunk``): each thread takes a contiguous chunk of games and plays each game's
whole step there, in compiled code: the autoreset, the learner's move (or its end of
the turn, or its illegal action), ``Match._advance`` (the rolls and the heroes' card
moves, :func:`._vecdr.dr_queries`; the kept answer; a hero's card move straight into
the kept answer, :func:`._vecdr.hero_kept`, where the padded grid's bits run in the
places' order), the opponents' picks (random,
greedy) and moves with the removal coin (:func:`._vecdr.dr_play`), the reward and
ends, then the observation and mask (:func:`._vecnp.draw_obs`, :func:`._vecnp.
draw_mask`): in the kept buffer where it changed (``copy=False``), or drawn whole
straight into the new array (``copy=True``: no kept buffer brought up to date, then
copied). Each game's random numbers are its own stream's, in its single env's order,
so the games may be played in any order and any chunking: 1 and T threads play the
same.

The enemy AI (``_batch_enemy.kernel()``) is not called from that code: linked into
it, its ~20 s of compile time would be optimized again with it. A game whose next
figure is an enemy is listed and left there; the thread then answers its chunk's
list in one call of the enemy AI on its own scratch, as the sub-step path does (but
its answers written straight into the kept answer: no mask row written and then
scanned over every place, ``_batch_enemy._put_end``), and goes on with those games
from their answers (:func:`_env_chunk`'s phases): a few rounds a step (about the
enemies that move in it), each a pair of calls per thread.

One case leaves the compiled scope: an enemy AI answer with a choice (two targets tied,
their ends differ; rare), whose rows the batched answer does not keep in the
position's order. That game stops just before the opponent's pick, and the calling
thread goes on with it on the sub-step path (``BatchedSteps._opponents``: the
position's rows), then draws its result.

``tests/test_rl_vector.py`` holds this step to the sub-step path and to the general
one (observations, masks, rewards, ends, the games' arrays, the streams, the counts)
on 1 and 2 threads, every opponent, illegal actions and autoresets.
"""
from __future__ import annotations

from time import perf_counter

import numpy as np
from numba import njit

from ..batch import ThreadChoice, on_chunks
from ..games.dark_realms._batch_enemy import _grid_distance
from ..kernels._jit import NO_NRT, once
from ._kept_answer import keep_answer
from ._vecdr import dr_play, dr_queries, hero_kept, roll_d6
from ._vecgame import LEFT, _draw, _kth, _side_in_play, run_end
from ._vecnp import (ILLEGAL, TERMINATED, TRUNCATED, advance_select, draw_mask, draw_obs,
                     entry_call, obs_row, restart_one)

#: a distance no end reaches (the greedy pick where no enemy is in play)
_FAR = np.int64(1) << np.int64(40)

# The sub-steps' compiled loops over games, here called on one game at a time, are
# inlined into the step (the same source, compiled inline): as calls they passed
# their 15-28 arguments, arrays field by field, for a game's worth of work each,
# ~8% of a move (docs/performance_log.md)
_advance = njit(nogil=True, inline="always")(advance_select.py_func)
_keep = njit(nogil=True, inline="always")(keep_answer.py_func)
_play = njit(nogil=True, inline="always")(dr_play.py_func)
_queries = njit(nogil=True, inline="always")(dr_queries.py_func)
#: how a game's step stands after a compiled part of it: played through, waiting for
#: its enemy AI answer (listed for the thread's next enemy AI call), or stopped before
#: an enemy AI's pick with a choice (the calling thread goes on with it)
DONE, WAIT, TIE = 0, 1, 2


@njit(nogil=True)
def _draw_rows(x, y, acting, G, T, R, Q, V, obs, fresh, record, rec, mask, mask_out,
               row):
    """Games ``x <= b < y``: their observations (:func:`draw_obs`, kept where
    ``record``, else whole: ``fresh``, composed in the thread's ``row`` and streamed
    out) and masks (:func:`draw_mask`), the learner's, and the masks' copy
    (``mask_out``); ``acting`` (bool[B]) written."""
    cell, alive = G[1], G[2]
    turn, side, actor, over, out, moved, a_roll = T[0], T[1], T[3], T[4], T[5], T[7], T[10]
    side_of, max_turns, learner, end_turn = R[0], R[4], R[5], R[12]
    a_cost, a_stop, a_list, a_n = Q[16], Q[17], Q[18], Q[19]
    (static, S, HW, d, k, large, orient, swap, hw, rel, lead, double, valid, gmode, sp,
     sadj, level, height, doors, door_cells, env_base) = V
    drawn, n_drawn, orec = rec
    for b in range(x, y):
        acting[b] = over[b] == 0 and not out[b] and side[b] == learner
    if record:
        r0, r1, r2 = drawn[x:y], n_drawn[x:y], orec[x:y]
    else:                       # (a whole draw reads and writes no record)
        r0, r1, r2 = drawn, n_drawn, orec
    draw_obs(obs[x:y], fresh, record, r0, r1, r2, static, S, HW, d, k, alive[x:y],
             cell[x:y], large, orient, swap, hw, rel, acting[x:y], actor[x:y],
             moved[x:y], a_list[x:y], a_n[x:y], a_cost[x:y], a_stop[x:y], lead, double,
             turn[x:y], max_turns, valid, gmode, sp, sadj, level, height, side_of,
             a_roll[x:y], over[x:y], doors, door_cells, row)
    draw_mask(mask[x:y], acting[x:y], actor[x:y], a_list[x:y], a_n[x:y], env_base,
              end_turn, large, orient, swap)
    for b in range(x, y):
        for j in range(mask.shape[1]):
            mask_out[b, j] = mask[b, j]


@njit(nogil=True)
def _env_chunk(phase, lo, hi, back, mode, actions, results, paused, acting, G, T, R, Q,
               W, L, V, obs, fresh, record, rec, mask, mask_out):
    """A part of the env step of games ``lo <= b < hi`` (see the module docstring).

    ``phase`` 0: each game's step from its start: ``mode[b]`` 2 restarted
    (``BatchedSteps.restart``: back at the root), 0 its action illegal (the game ends
    ILLEGAL), 1 the learner's action ``actions[b]`` (its end of the turn, or a move:
    :func:`dr_play`, the removal coin); then ``Match._advance`` (:func:`advance_select`,
    the d6 and the heroes' answers, :func:`dr_queries`, the kept answer,
    :func:`keep_answer`) and the opponents (``MovecoreGym._opponents``: random or
    greedy picks in the ``Moves`` row order, their moves) until the learner is to act
    or the game is over, and its reward and ends (``results`` = ``(illegal_reward,
    reward, term, trunc, done)``). A game whose next figure is an enemy is listed in
    ``L`` (games, slots, Moves, ``L[3][0]`` how many) for the thread's enemy AI call
    and left there; one stopped before an enemy AI's pick with a choice is marked in
    ``paused`` (bool[B]). 1: the games listed in ``back`` (the last call's ``L``, their
    answers written since by the enemy AI straight into the kept answer: ``a_list``,
    ``a_n``, ``a_cost``, ``a_stop``), each on from its answer.
    2: the games marked in ``paused`` (played on by the caller since): their results,
    observations and masks. 3: the observations and masks of the chunk
    (:func:`_draw_rows`: ``obs`` float32[B, C * HW], kept or drawn whole; ``mask``
    int8[B, A] and its copy ``mask_out``).

    Written as one loop (``Match._advance`` and the opponent's turn once each, as
    ``_vecgame.env_chunk``): a helper per part took the whole state in its arguments
    at every call, which cost more than the game. ``W``: the thread's scratch; its
    counters ``W[8]`` add the figure moves, the move generations and the games marked;
    ``W[9]`` is its observation row (:func:`draw_obs`' ``row``).
    Returns how many games ``L`` lists. Allocates nothing."""
    if phase == 3:
        i = lo      # (each run of games not left as they are: all of them in a step)
        while i < hi:
            j = run_end(mode, i, hi)
            if j > i:
                _draw_rows(i, j, acting, G, T, R, Q, V, obs, fresh, record, rec, mask,
                           mask_out, W[9])
            i = j + 1
        return 0
    occ, cell, alive, team, occ0, cell0 = G
    turn, side, nxt, actor, over, out, removed, moved, pending, rng, a_roll = T
    (side_of, movers, turn_sides, n_all, max_turns, learner, adj, greedy, coords, kind,
     rank, P_env, end_turn, usable8, hero) = R
    (flying, use_bits, bpos, at, shifts, pass_bits, end_bits, work, nbr, passable,
     may_end, seen, queue, qmask, qcost, qstop, a_cost, a_stop, a_list, a_n, has_open,
     opened, a_open, slow, a_slow, kept_bits, usable_bits) = Q
    one, g1, ask, again, left, to1, keys, dist, cnt, _ = W
    eg, es, em, nl = L
    illegal_reward, reward, term, trunc, done = results
    F = cell.shape[1]
    P = a_cost.shape[1]
    nw = 0
    n = back[3][0] if phase == 1 else hi - lo
    for i in range(n):
        b = back[0][i] if phase == 1 else lo + i
        m = mode[b]
        st = -1             # (playing on)
        adv = False         # (Match._advance next)
        one[0] = b
        if phase == 2:
            if not paused[b]:
                continue
            st = DONE
        elif phase == 1:
            # (the enemy AI wrote its answer into the kept answer: _keep's step alone)
            fe = back[1][i]
            nxt[b] = fe + 1
            if a_n[b]:
                actor[b] = fe
            else:
                adv = True
        else:
            paused[b] = False
            if m == LEFT:   # (left as it is: a same-step autoreset's other games)
                continue
            if m == 0:
                over[b] = ILLEGAL
                actor[b] = -1
                st = DONE
            elif m == 2:
                restart_one(b, occ, cell, alive, moved, occ0, cell0, turn, side, nxt,
                            actor, over, out, removed, pending)
                adv = True
            else:
                # (pending: what the opponents scored since the learner last acted)
                reward[b] = pending[b]
                pending[b] = 0.0
                a = actions[b]
                if a == end_turn:
                    nxt[b] = F              # the side passes: the next turn
                    adv = True
                else:
                    to1[0] = a % P_env
                    cnt[0] += 1             # a figure move
                    adv = _play(one, to1, actor, occ, cell, alive, team, moved,
                                  removed, rng, adj, side_of, n_all, learner, pending,
                                  over, left) != 0
        while st < 0:
            if adv:     # Match._advance: the next figure with a usable end
                while True:
                    if _advance(one, alive, side_of, movers, turn_sides, n_all,
                                      max_turns, turn, side, nxt, actor, over, moved, ask,
                                      g1) == 0:
                        break
                    cnt[1] += 1             # a move generation
                    f = g1[0]
                    if kept_bits and hero[f]:
                        # a hero's card move straight into the kept answer (no mask
                        # row, no scan of every place): what _queries and _keep give
                        roll = roll_d6(rng, b)
                        a_roll[b] = roll
                        k = hero_kept(b, f, cell[b, f], np.int64(flying[f]), roll, cell,
                                      alive, bpos, at, shifts, pass_bits, end_bits, work,
                                      usable_bits, a_cost, a_stop, a_list)
                        a_n[b] = k
                        nxt[b] = f + 1
                        if k:
                            actor[b] = f
                            break
                        continue
                    if _queries(one, g1, rng, a_roll, hero, flying, cell, alive, occ,
                                  use_bits, bpos, at, shifts, pass_bits, end_bits, work,
                                  nbr, passable, may_end, seen, queue, qmask, qcost,
                                  qstop, eg[nw:], es[nw:], em[nw:]):
                        nw += 1             # (an enemy: its answer is the enemy AI's)
                        st = WAIT
                        break
                    if _keep(one, g1, qmask, qcost, qstop, usable8, a_cost, a_stop,
                                   a_list, a_n, has_open, opened, a_open, slow, a_slow,
                                   nxt, actor, again) == 0:
                        break
                if st >= 0:
                    break
            # the opponents' turn, or the learner's
            if over[b] != 0 or side[b] == learner:
                st = DONE
                break
            if removed[b] and not _side_in_play(alive, side_of, b, learner):
                out[b] = True
                st = DONE
                break
            f = actor[b]
            if not hero[f] and a_n[b] > 1:
                st = TIE
                break
            # the pick (BatchedSteps._pick): of the usable ends (greedy: those at the
            # least grid distance to an enemy in play; all where none is), the
            # int(u * n)-th in the Moves row order (cost, then rank: pick_rows' keys)
            u = _draw(rng, b)
            low = _FAR
            if greedy:
                for j in range(a_n[b]):
                    p = a_list[b, j]
                    dd = _FAR
                    for e in range(F):
                        if alive[b, e] and side_of[e] != side[b]:
                            x = _grid_distance(coords, kind, p, cell[b, e])
                            if x < dd:
                                dd = x
                    dist[j] = dd
                    if dd < low:
                        low = dd
            nk = np.int64(0)        # (not a literal 0: _kth compiled once)
            for j in range(a_n[b]):
                if not greedy or dist[j] == low:
                    p = a_list[b, j]
                    keys[nk] = (np.int64(a_cost[b, p]) * (P + 1) + rank[f, p]) * P + p
                    nk += 1
            to1[0] = _kth(keys, nk, np.int64(u * nk)) % P
            cnt[0] += 1                     # a figure move
            adv = _play(one, to1, actor, occ, cell, alive, team, moved, removed, rng,
                          adj, side_of, n_all, learner, pending, over, left) != 0
        if st == TIE:
            paused[b] = True
            cnt[2] += 1
        elif st == DONE:
            # the reward and ends (BatchedSteps.step)
            if m == 1:
                reward[b] += pending[b]
                pending[b] = 0.0
            elif m == 0:
                reward[b] = illegal_reward
            else:
                reward[b] = 0.0
            t = over[b] == TERMINATED or out[b] or over[b] == ILLEGAL
            tr = over[b] == TRUNCATED and not t
            if m == 2:
                t = tr = False
            term[b] = t
            trunc[b] = tr
            done[b] = t or tr
            if phase == 2:
                _draw_rows(b, b + 1, acting, G, T, R, Q, V, obs, fresh, record, rec,
                           mask, mask_out, W[9])
    nl[0] = nw
    return nw


@once
def env_kernel():
    """:func:`_env_chunk` compiled (or loaded from Numba's cache) on first use,
    without Numba's reference counting (it allocates nothing; as ``_vecgame``'s
    steps). An edit of the files its callees are written in recompiles it: Numba's own
    stamp reads this file alone, movecore's adds the modules this one imports, their
    imports and the kernels (``movecore._dependency_files``)."""
    def env_chunk(phase, lo, hi, back, mode, actions, results, paused, acting, G, T, R,
                  Q, W, L, V, obs, fresh, record, rec, mask, mask_out):
        return _env_chunk(phase, lo, hi, back, mode, actions, results, paused, acting, G,
                          T, R, Q, W, L, V, obs, fresh, record, rec, mask, mask_out)

    env_chunk.__doc__ = _env_chunk.__doc__
    return njit(cache=True, nogil=True, **NO_NRT)(env_chunk)


class WholeSteps:
    """:func:`env_kernel`'s calls for one Dark Realms :class:`._vecnp.BatchedSteps`
    (``n``) in the compiled scope of :mod:`._vecdr` (``n._dr``): the games' arrays,
    the turn state, the rules, each thread's scratch (its search workspace, its enemy
    AI scratch and lists, its counters) and the observation's constants."""

    def __init__(self, n):
        from ..batch import per_thread
        from ..games.dark_realms._batch_enemy import _KIND, _NO_PEN
        dr = n._dr
        G = n.G
        self.n = n
        B, P = n.B, n.P
        C = self.n_chunks = dr.n_chunks
        i64 = np.int64
        self.G = (G.occ, G.cell, G.alive, G.team, G._occ0, G._cell0)
        self.T = (n.turn, n.side, n.nxt, n.actor, n.over, n.out, n.removed, n.moved,
                  n.pending, n.rng, n.a_roll)
        self.R = (n.side_of, n.movers, n.turn_sides, n.n_all, n.max_turns, n.learner,
                  n.adj, n.greedy, n.coords, _KIND.get(n.kind, 2), n.rank, n.P_env, n.end_turn,
                  n._usable8, dr.hero)
        mask, cost, stop = n._out
        self.Q = [(dr.flying, dr.use_bits, dr.bpos, dr.at, dr.shifts, dr.pass_bits,
                   dr.end_bits, dr.work[c], dr.nbr, dr.passable, dr.may_end,
                   dr.seen[c], dr.queue[c], mask, cost, stop, n.a_cost, n.a_stop,
                   n.a_list, n.a_n, *n._open, n.a_slow,
                   dr.hero_kept and dr.bits_in_order, dr.usable_bits) for c in range(C)]
        # each thread's one-game lists, pick keys, counters (cache lines of its own)
        # and observation row (draw_obs' scratch)
        self.W = [(*(per_thread(1, (1,), i64)[0] for _ in range(6)),
                   *per_thread(2, (P,), i64), per_thread(1, (3,), i64)[0],
                   obs_row(n))
                  for _ in range(C)]

        def lists():        # the games waiting for their enemy AI answers
            return (*np.zeros((3, B), i64), per_thread(1, (1,), i64)[0])

        self.L = [(lists(), lists()) for _ in range(C)]
        # each thread's enemy AI call on its own scratch (as _vecdr's chunks)
        self._ai = dr.ai.ready()
        # (its answers straight into the kept answer: the step's phase 1 reads no rows)
        self._ai_args = [(G.occ, G.cell, G.alive, *dr.ai._thread_args(c).values(), mask,
                          cost, stop, _NO_PEN, False, n.a_list, n.a_cost, n.a_stop, n.a_n,
                          n._usable8) for c in range(C)]
        self.V = (n.static.reshape(-1), n.S, n.HW, n.d, n.d + 6, n.large, n._no_orient,
                  n.swap, n.hw, n.rel, n.lead, n.double, n.valid, n._gmode, n._no_sp,
                  *n._eng_tables, n._no_doors, n._door_cells, n.env_base)
        self.paused = np.zeros(B, bool)
        self.acting = np.zeros(B, bool)
        self.answered = [0] * C         # the enemy AI answers of each thread's last step
        self._loaded = C == 1
        #: whether a step's chunks run on the threads or whole on the calling thread
        self._choice = ThreadChoice()
        #: the compiled step's entry points, by (kernel, chunk, kept draw), and the enemy
        #: AI's, by (kernel, chunk)
        self._entries = {}

    def step(self, mode, actions, illegal_reward, obs, kept, mask, mask_out,
             timed: bool = True):
        """One env step of every game (``mode`` as ``_vecgame.step_modes``), each
        thread's chunk of games played in compiled calls (see the module docstring);
        the observations drawn whole into ``obs`` (float32[B, ...], ``copy=True``'s
        new array) or, where ``obs`` is None, kept in the env's buffer ``kept``
        (:func:`draw_obs`' kept draw); the masks into ``mask`` and their copy into
        ``mask_out``. The threads' chunks run whole on the calling thread where they
        measured slower (``batch.ThreadChoice``; ``timed``: a whole step, timed; a
        restart follows it). Returns reward, terminated, truncated, done."""
        n = self.n
        B = n.B
        reward = np.empty(B)
        term, trunc, done = np.empty(B, bool), np.empty(B, bool), np.empty(B, bool)
        results = (float(illegal_reward), reward, term, trunc, done)
        if obs is None:
            o, fresh, record, rec = kept, not n._kept_ready, True, n._rec
            n._kept_ready = True
        else:
            # (drawn whole in the new array; the kept buffer still holds what the last
            # kept draw, a reset's, wrote there, as its record says: no kept draw is
            # owed)
            o, fresh, record, rec = obs, True, False, n._rec_scratch
        o = o.reshape(B, -1)
        if n.G._live:
            # (the positions the enemy AI's ties were asked of: a restarted game's
            # figures come back, and a position restored from the arrays brings back
            # none: as BatchedGames.reset, copies of the root again)
            for b in np.flatnonzero(mode == 2).tolist():
                n.G._live.pop(b, None)
        run = env_kernel()
        C = self.n_chunks if B >= 2 * self.n_chunks else 1
        # (C order, aligned, writeable, the types the entry point was found for: the
        # env step's copy of the actions)
        acts = actions
        entries = self._entries
        kept_draw = obs is None

        def call(c, phase, lo, hi, back, out):
            # (at its entry point after the first call: batch.entry_call)
            return entry_call(entries, (run, c, kept_draw), run, (
                phase, lo, hi, back, mode, acts, results, self.paused, self.acting, self.G,
                self.T, self.R, self.Q[c], self.W[c], out, self.V, o, fresh, record, rec,
                mask, mask_out))

        def chunk(c, lo, hi):
            out, back = self.L[c]
            k = call(c, 0, lo, hi, back, out)
            answered = 0
            while k:
                # the listed enemies' answers, in one call of the enemy AI
                st = entry_call(entries, (self._ai, c), self._ai, (
                    out[0][:k], out[1][:k], out[2][:k], *self._ai_args[c]))
                if st < 0:  # pragma: no cover (ends hold one column per cell)
                    raise RuntimeError(f"movecore: batched enemy AI kernel status {st}")
                answered += k
                out, back = back, out
                k = call(c, 1, lo, hi, back, out)
            call(c, 3, lo, hi, back, out)       # the observations and masks
            return answered

        if not self._loaded:
            # (compiled or loaded once on this thread, on no game, before the threads
            # call it at once)
            call(0, 0, 0, 0, *self.L[0])
            self._loaded = True
        if C > 1:
            split = self._choice.use_split() if timed else self._choice.split
            t0 = perf_counter()
            _, got = on_chunks(B, C if split else 1, chunk)
            if timed:
                self._choice.took(split, perf_counter() - t0)
        else:
            _, got = on_chunks(B, C, chunk)
        n._dr.ai.answered += sum(got)
        paused = 0
        for W in self.W[:C]:
            cnt = W[8]
            n.counts[0] += int(cnt[0])
            n.counts[1] += int(cnt[1])
            paused += int(cnt[2])
            cnt[:] = 0
        if paused:
            # the enemy AI picks with a choice: on the sub-step path (the position's
            # rows), then their results, observations and masks
            n._opponents(np.flatnonzero(self.paused))
            call(0, 2, 0, B, *self.L[0])
        return reward, term, trunc, done
