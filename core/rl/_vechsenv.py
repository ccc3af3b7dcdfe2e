"""Heroscape's vector env step in one compiled call per thread.

The numpy-driven backend (:class:`movecore.rl._vecnp.BatchedSteps`, Heroscape's answers
and move in :mod:`._vechs`) plays a step as a dozen sub-steps over the batch, each a
compiled call from Python: the restarts, the learner's moves, then while any game's
opponent is to move its pick, its move and removal, the search for the next figure and
its answer; then the observation and the mask. With ``threads=T`` each of those calls
was cut in T chunks on the pool (about 11 hand-offs a step), and the opponents' pick,
the search for the next figure, the engaged figures' spaces and the mask stayed on the
calling thread. :func:`env_kernel` is the whole step of a chunk of games in one
compiled call (as ``_vecgame.env_chunk`` is for the grid game, Tiny Epic Tactics and
Mage Knight): the same sub-steps over the chunk's games, calling the same compiled
pieces (``_vecnp.advance_select``, ``_vechs.hs_queries``, the layout's double-space
call, ``_kept_answer.keep_list``, ``_vechs.hs_play``, ``_vecnp.opponents_rows``,
``_vecnp.pick_rows``, ``_vecnp.draw_obs``, ``_vecnp.draw_mask``), the greedy
opponent's nearest ends on arrays (:func:`_nearest_ends`), the step's start
(:func:`_starts`), the rewards, ends and figures' spaces (:func:`_results`: the
per-game loops that call inlined helpers, compiled apart without Numba's reference
counts, which the step itself keeps since the double-space call it links allocates),
each game's draws from its own stream in its
single env's order; nothing of a step is left on the calling thread but ``step_modes``, the
new arrays and one hand-off. With
``copy=True`` each game's observation is drawn whole into the step's new array (one
write of it; the kept buffer's update and numpy's copy read the buffer too, larger
than this host's cache at B = 1,024: ``_vecnp.WholeStep.whole``); with ``copy=False``
the kept buffer is updated where it changed.

Every game is independent of the others (its own arrays, its own stream), so a chunk
playing its games' sub-steps apart from the other chunks' plays the same games as the
sub-step path: ``tests/test_rl_vector.py`` checks this path against the sub-step path
and the general one after every step (observations, masks, rewards, ends, the games'
arrays, the streams, the counts), on 1 and 2 threads, both opponents, ``copy`` True
and False, and against single ``gym_env`` s.
"""
from __future__ import annotations


import numpy as np
from numba import njit

from ..games.heroscape._batch import _spaces
from ..kernels._jit import NO_NRT, once
from ..kernels._types import CACHE
from ._kept_answer import keep_list
from ._vecgame import _grid_distance, run_end
from ._vechs import hs_play, hs_queries, pair_call_bits
from ._vecnp import (TERMINATED, WholeStep, advance_select, draw_obs, mask_rows,
                     obs_row, opponents_draw, pick_rows, sort_starts, step_end)

_DK = None   # the layout's double-space call, linked in by env_kernel()
#: the grid distance codes of ``_vecgame._grid_distance`` (anything else: Chebyshev,
#: as ``position.grid_distance``)
_KIND = {"hex": 0, "square4": 1}


@once
def env_kernel():
    """The compiled step of a chunk of games (compiled, or loaded from Numba's cache, on
    first use; the layout's double-space call linked in as a global, as
    ``tools._selfplay_heroscape.step_kernel`` links it).

    ``hs_env_chunk(S, K, M, D, Q, T, A, W, O, mode, actions, results, obs, mask,
    mask_out, lo, hi)``: games ``lo <= b < hi``. ``S``, ``K``: :func:`._vechs.hs_queries`'
    packed queries and kept tables; ``M``: the layout's move constants (``double, lead,
    trail, team, height, level, adj_bits, n_teams, master``: ``adj_bits`` the
    neighbours as bit sets, ``_batch.adjacency_bits``); ``D``: this thread's
    arguments of the double-space call; ``Q``: the env's constants (see
    :meth:`HeroscapeEnvStep._tuples`); ``T``: the games (``occ, cell, alive``) and their
    turn state (``BatchedSteps``' ``turn ... rng``); ``A``: the kept answer and the
    dense answer rows; ``W``: this thread's scratch and counters (int64[4]: moves,
    move generations, kept-end answers, opponents' picks among a double-space figure's
    rows of one cost, added to), last its observation row (``draw_obs``' ``row``);
    ``O``: ``_vecnp.draw_obs``' arguments (``fresh``: the first kept draw; ``record``:
    True); ``mode`` int64[B] (``_vecgame.step_modes``: 0 illegal, 1 played, 2
    restarted), ``actions`` int64[B]; ``results`` = ``(illegal_reward, reward, term,
    trunc, done)``; ``obs`` float32[B, C * HW] (the kept buffer, updated where it
    changed, or drawn whole on ``O``'s ``fresh``); ``mask``/``mask_out`` int8[B, A]
    (the env's, and its copy).
    Returns 0 or a kernel status < 0."""
    from ..games.heroscape import _batch_doubles
    global _DK
    _DK = _batch_doubles.doubles_kernel()
    # (an edit of what is linked or inlined here recompiles this one: movecore's cache
    # stamp follows the modules this one imports at its level, and their imports, and
    # every kernel file; ``movecore._dependency_files``)

    @njit(cache=CACHE, nogil=True)
    def hs_env_chunk(S, K, M, D, Q, T, A, W, O, mode, actions, results, obs, mask,
                     mask_out, lo, hi):
        occ, cell, alive, turn, side, nxt, actor, over, out, removed, moved, pending, \
            rng = T
        (side_of, turn_sides, movers, n_all, max_turns, learner, usable, adj, rank, dbl,
         greedy, kind, coords, pspace, occ0, cell0, P_env, end_turn, rules, ended,
         has_open, opened, a_open, slow) = Q
        a_cost, a_stop, a_list, a_n, a_slow, amask, acost, astop = A
        (buf, ends, query, bits, dl, hout, near, rA, rB, adv, opp, mv, ask, gq, left,
         to, u, fs, dist, cl, cn, counts, no_pen, sp, acting, row) = W
        (fresh, record, drawn, n_drawn, orec, static, n_static, HW, d, k_game, large,
         orient, swap, hw, rel, olead, valid, gmode, sadj, level, height, a_roll, doors,
         door_cells, env_base) = O
        illegal_reward, reward, term, trunc, done = results
        double, lead, trail = M[0], M[1], M[2]
        # Each game's step is: the restart (back at the root) or the learner's move or
        # end of turn; Match._advance; then while an opponent is to move, its pick,
        # move and removal, and Match._advance again (MovecoreGym.step / reset). Games
        # are independent, so the chunk's games go through it together: ``adv`` the
        # games to advance, ``mv`` those to move (to ``to``), ``opp`` those whose
        # opponents may play. (One copy of each call: the compile time.)
        n_adv, n_mv, n_opp = _starts(lo, hi, mode, actions, end_turn, P_env, reward,
                                     pending, occ, cell, alive, moved, occ0, cell0, turn,
                                     side, nxt, actor, over, out, removed, opp, adv, mv,
                                     to, left)
        while True:
            if n_mv:                # the moves and removals; the games going on advance
                k = hs_play(mv[:n_mv], to[:n_mv], actor, occ, cell, alive, moved,
                            removed, rng, adj, side_of, n_all, learner, pending, over,
                            ended, left, near, *M)
                counts[0] += n_mv
                for i in range(k):
                    adv[n_adv + i] = left[i]
                n_adv += k
            # Match._advance: the next figure with a usable end, its answer kept (one-
            # space figures: hs_queries; double-space: the layout's call, keep_list)
            cur = rA
            alt = rB
            for i in range(n_adv):
                cur[i] = adv[i]
            n = n_adv
            while n:
                na = advance_select(cur[:n], alive, side_of, movers, turn_sides, n_all,
                                    max_turns, turn, side, nxt, actor, over, moved, ask,
                                    gq)
                if na == 0:
                    break
                counts[1] += na
                # (a double-space figure's rows: the dense mask, and the kept answer's
                # own costs and stops, which its call writes: keep_list lists them)
                kept = hs_queries(ask[:na], gq[:na], S, K, double, lead, trail, occ, cell,
                                  alive, buf, ends, query, bits, usable, a_cost, a_stop,
                                  a_list, a_n, nxt, actor, alt, dl, amask, a_cost, a_stop,
                                  hout, rules)
                if kept < 0:
                    return kept
                counts[2] += kept
                n = hout[0]
                nd = hout[1]
                if nd:
                    st = _DK(occ, cell, alive, dl[0, :nd], dl[1, :nd], dl[2, :nd], *D,
                             amask, a_cost, a_stop, no_pen, pair_call_bits(rules))
                    if st < 0:
                        return st
                    n += keep_list(dl[0, :nd], dl[1, :nd], amask, usable, a_list, a_n,
                                   nxt, actor, alt[n:])
                cur, alt = alt, cur
            n_adv = 0
            # the opponents to move (MovecoreGym._opponents): one draw for the pick
            n_opp = opponents_draw(opp[:n_opp], over, side, learner, removed, alive,
                                   side_of, out, rng, actor, u, fs, mv)
            if n_opp == 0:
                break
            n_mv = n_opp
            if greedy:
                # Match.greedy_row: of the usable ends, those at the least grid
                # distance from a space of the end's place to a space of an enemy in
                # play; every usable end where no enemy is in play
                _nearest_ends(opp[:n_opp], actor, side, alive, side_of, a_list, a_n, pspace,
                              cell, double, lead, trail, coords, kind, dist, cl, cn)
                counts[3] += pick_rows(opp[:n_opp], opp[:n_opp], cl, cn, fs[:n_opp],
                                       u[:n_opp], a_cost, rank, dbl, to)
            else:
                counts[3] += pick_rows(opp[:n_opp], opp[:n_opp], a_list, a_n,
                                       fs[:n_opp], u[:n_opp], a_cost, rank, dbl, to)
        # the rewards and ends; what the observation reads: who acts, every figure's
        # spaces
        _results(lo, hi, mode, illegal_reward, reward, term, trunc, done, pending, over,
                 out, side, learner, acting, cell, double, lead, trail, sp)
        i = lo      # (each run of games not left as they are: all of them in a step)
        while i < hi:
            j = run_end(mode, i, hi)
            if j > i:
                draw_obs(obs[i:j], fresh, record, drawn[i:j], n_drawn[i:j], orec[i:j],
                         static, n_static, HW, d, k_game, alive[i:j], cell[i:j], large,
                         orient, swap, hw, rel, acting[i:j], actor[i:j], moved[i:j],
                         a_list[i:j], a_n[i:j], a_cost[i:j], a_stop[i:j], olead, dbl,
                         turn[i:j], max_turns, valid, gmode, sp[i:j], sadj, level, height,
                         side_of, a_roll[i:j], over[i:j], doors, door_cells, row)
                mask_rows(i, j, mask, mask_out, acting, actor, a_list, a_n, env_base,
                          end_turn, large, orient, swap)
            i = j + 1
        return 0

    return hs_env_chunk


@njit(cache=True, nogil=True, **NO_NRT)
def _nearest_ends(rows, actor, side, alive, side_of, a_list, a_n, pspace, cell, double,
                  lead, trail, coords, kind, dist, cl, cn):
    """``Match.greedy_row``'s candidates in games ``rows`` (int64[R]): of the acting
    figure's usable ends (``a_list``/``a_n``), those at the least grid distance
    (``_vecgame._grid_distance``, ``kind``) from a space of the end's place
    (``pspace`` int64[F, P, 2]) to a space of an enemy in play; every usable end where
    no enemy is in play. Into ``cl[b, :cn[b]]`` (by place id); ``dist`` int64[>= P]
    scratch. (Out of :func:`env_kernel`'s step, without reference counts,
    ``NO_NRT``: inlined in it, ``_spaces`` and ``_grid_distance`` counted their arrays
    at every end.)"""
    F = cell.shape[1]
    big = np.int64(1) << 40
    for i in range(rows.shape[0]):
        b = rows[i]
        f = actor[b]
        s = side[b]
        enemy = False
        for g in range(F):
            enemy |= alive[b, g] and side_of[g] != s
        low = big
        for j in range(a_n[b]):
            p = a_list[b, j]
            e = big
            for x in range(2):
                c = pspace[f, p, x]
                if c < 0:
                    continue
                for g in range(F):
                    if not alive[b, g] or side_of[g] == s:
                        continue
                    e0, e1 = _spaces(cell, double, lead, trail, b, g)
                    if e0 >= 0:
                        e = min(e, _grid_distance(coords, kind, c, e0))
                    if e1 >= 0:
                        e = min(e, _grid_distance(coords, kind, c, e1))
            dist[j] = e
            low = min(low, e)
        m = 0
        for j in range(a_n[b]):
            if not enemy or dist[j] == low:
                cl[b, m] = a_list[b, j]
                m += 1
        cn[b] = m
    return 0


@njit(cache=True, nogil=True, **NO_NRT)
def _starts(lo, hi, mode, actions, end_turn, P_env, reward, pending, occ, cell, alive,
            moved, occ0, cell0, turn, side, nxt, actor, over, out, removed, opp, adv, mv,
            to, restarted):
    """The start of :func:`env_kernel`'s step for games ``lo <= b < hi``
    (``_vecnp.sort_starts``: the games going on into ``opp``, those to advance into
    ``adv``, those where the learner moves into ``mv``, to env place ``to``); returns
    how many of each (``adv``, ``mv``, ``opp``). Compiled apart, without reference
    counts."""
    n_adv, n_mv, n_opp, _ = sort_starts(lo, hi, mode, actions, end_turn, P_env, reward,
                                        pending, occ, cell, alive, moved, occ0, cell0,
                                        turn, side, nxt, actor, over, out, removed, opp,
                                        adv, mv, to, restarted)
    return n_adv, n_mv, n_opp


@njit(cache=True, nogil=True, **NO_NRT)
def _results(lo, hi, mode, illegal_reward, reward, term, trunc, done, pending, over, out,
             side, learner, acting, cell, double, lead, trail, sp):
    """The end of :func:`env_kernel`'s step for games ``lo <= b < hi``: the rewards
    (the learner's move's, with what the opponents scored since; ``illegal_reward``;
    0 on a restart) and ends (``term``/``trunc``/``done`` bool[B]), as
    ``MovecoreGym.step`` / ``reset``; what the observation reads: whether the learner
    acts (``acting`` bool[B]) and every figure's spaces (``sp`` int64[B, F, 2]). (Out
    of the step, without reference counts: ``_spaces`` inlined in it counted its
    arrays for every figure.)"""
    F = cell.shape[1]
    step_end(lo, hi, mode, illegal_reward, reward, term, trunc, done, pending, over, out,
             side, learner, acting)
    for b in range(lo, hi):
        for j in range(F):
            x0, x1 = _spaces(cell, double, lead, trail, b, j)
            sp[b, j, 0] = x0
            sp[b, j, 1] = x1
    return 0


class HeroscapeEnvStep(WholeStep):
    """The vector env's step of a Heroscape :class:`movecore.rl._vecnp.BatchedSteps`
    whose answers are :mod:`._vechs`' (``steps._hs``), in one compiled call per thread
    (:func:`env_kernel`; see the module docstring). ``copy``: the env's (``True``: each
    observation drawn whole into the step's new array; ``False``: the kept buffer
    updated where it changed and handed out)."""

    def __init__(self, steps, copy: bool):
        from ..batch import per_thread
        s = self.steps = steps
        hs = s._hs
        G = s.G
        self.copy = copy
        C = self.n_chunks = hs.n_chunks
        B, F, P = s.B, s.F, s.P
        i64 = np.int64
        # each thread's scratch (its game lists sized B: a chunk is at most B games)
        self.W = []
        counts = per_thread(C, (4,), i64)
        greedy = s.greedy
        # the greedy opponent's candidates, by game (rows of a chunk are its own)
        self.cl = np.zeros((B, P) if greedy else (1, 1), np.int32)
        self.cn = np.zeros(B if greedy else 1, i64)
        self.sp = np.full((B, F, 2), -1, i64)
        self.acting = np.zeros(B, bool)
        for c in range(C):
            self.W.append((G._bufs[c], G._ends[c], hs.query[c], hs.bits[c], hs.dl[c],
                           hs.outs[c], hs.near[c], *(np.zeros(B, i64) for _ in range(9)),
                           np.zeros(B), np.zeros(B, i64), np.zeros(P, i64), self.cl,
                           self.cn, counts[c], hs.no_pen, self.sp, self.acting,
                           obs_row(s)))
        self.counts = counts
        self._loaded = C == 1
        self._entries = {}
        self._heads = {}    # the chunks' leading arguments, by draw (``_call``)
        #: the grid distance code the greedy opponent measures with
        self.kind = _KIND.get(s.kind, 2)

    def _tuples(self):
        """The kernel's shared arguments, made at the first steps (``step``: the tests
        swap the steps' tables before them)."""
        s = self.steps
        hs = s._hs
        G = s.G
        Q = (s.side_of, s.turn_sides, s.movers, s.n_all, s.max_turns, s.learner,
             s._usable8, s.adj, s.rank, s.double, s.greedy, self.kind,
             s.coords, s.pspace, G._occ0, G._cell0, s.P_env, s.end_turn, hs.rules,
             TERMINATED, *s._open)
        T = (G.occ, G.cell, G.alive, s.turn, s.side, s.nxt, s.actor, s.over, s.out,
             s.removed, s.moved, s.pending, s.rng)
        A = (s.a_cost, s.a_stop, s.a_list, s.a_n, s.a_slow, *s._out)
        return hs.S, hs.K, hs.consts, Q, T, A

    def step(self, mode, actions, illegal_reward, obs_kept, mask):
        """One env step of every game (``mode`` as ``_vecgame.step_modes``, ``actions``
        int64[B]); returns reward, terminated, truncated, done, the observations (a new
        array with ``copy=True``, else ``obs_kept`` brought up to date) and the masks'
        copy (``mask`` int8[B, A]: the env's, written)."""
        # (a status < 0: never, the ends hold one column per place)
        out, got = self._run(*self._call(False), mode, actions, illegal_reward, obs_kept,
                             mask, "heroscape")
        self._tally(got)
        return out

    def restart_rows(self, rows, mode, obs_kept, mask, mask_out, dst=None):
        got = super().restart_rows(rows, mode, obs_kept, mask, mask_out, dst)
        self._tally(got)
        return got

    def _tally(self, got) -> None:
        s = self.steps
        s._hs.kept_used += int(got[2])
        s.double_picks += int(got[3])

    def _kernel(self):
        return env_kernel()     # (the module's, looked up at each call: benches swap it)

    def _heads_for(self, draw) -> list:
        """Each chunk's leading arguments for ``env_kernel()``'s step, ``draw`` the
        observation draw's (``WholeStep._call``)."""
        s = self.steps
        S, K, M, Q, T, A = self._tuples()
        O = (*draw, s.static.reshape(-1), s.S, s.HW, s.d,
             s.d + 6, s.large, s._orient(), s.swap, s.hw, s.rel, s.lead, s.valid,
             s._gmode, *s._eng_tables, s.a_roll, s._doors_bits(), s._door_cells,
             s.env_base)
        D = s._hs.D
        return [(S, K, M, D[c], Q, T, A, self.W[c], O) for c in range(self.n_chunks)]
