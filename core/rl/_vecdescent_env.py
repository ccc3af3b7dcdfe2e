"""Descent's vector env step in one compiled call per thread chunk of games.

The numpy-driven backend (:class:`movecore.rl._vecnp.BatchedSteps`) steps Descent as
~5 sub-steps over the batch at B = 1,024, each a Python call: the restarts, the
learner's moves, then while an opponent is to move its pick, its move and removal
(:func:`._vecdescent.descent_play`), the search for the next figure and its answer
(``_DescentBatch.legal``: one batched ``legal_moves`` over every game, its rows of the
games not asked cleared too); then the mask and the kept observation. With
``threads=T`` only the batched answers ran per thread; the rest (the moves, the picks,
the searches, the kept answers, the mask and the observation) on the calling thread,
a serial part the other threads waited on (2 threads 1.18x one by wall,
``docs/performance_log.md``).

:func:`env_kernel` is the whole step of a chunk of games in one compiled call, as
:mod:`._vechsenv` for Heroscape: each thread takes a contiguous chunk of games and
plays their sub-steps together (:func:`_starts`: the restarts, back at the root with
the root's squares, doors and orientations; the learner's move, its end of the turn or
its illegal action; a loop compiled apart without Numba's reference counts, which the
step keeps; ``Match._advance``: :func:`._vecnp.advance_select`, the answers of the
chunk's games that ask by one call of ``legal_games`` on their list
(:func:`movecore.games.descent._batch.legal_kernel`, linked in as the compiled
self-play step links it), :func:`.keep_answer`; the opponents: :func:`._vecnp.
opponents_rows`, one draw for the pick, the greedy opponent's nearest ends over every
square of the bases (:func:`._vecdescent._base_distance`), :func:`._vecnp.pick_rows`,
:func:`._vecdescent.descent_play`), then the rewards and ends, the observation
(:func:`._vecnp.draw_obs`: with ``copy=True`` drawn whole into the step's new array,
``_vecnp.WholeStep.whole``; else the kept buffer updated), the mask
(:func:`._vecnp.draw_mask`) and its copy. Every game is independent (its own arrays,
its own stream, drawn in its single env's order), so 1 and T threads play the same
games as the sub-step path.

Scope: where every move of the batch is answered on arrays (``_DescentBatch.
all_arrays``: every query shape a move may ask packed; the compiled self-play step's
condition). Elsewhere (a shape the packed kernels cannot hold: a live position
answers) the sub-step path plays, as before; the games the arrays do not take at all
(``town=True``, door-scoped dungeons, more than ``DOOR_STATES_MAX`` door states) are
on the positions backend.

``tests/test_rl_vector.py`` holds this step to the sub-step path after every step
(observations, masks, rewards, ends, illegal flags, the games' arrays, Descent's
squares, doors and orientations, the turn state, the streams, the counts) on bundled
scenarios and random dungeons (large monsters, turning bases, doors, pits, auras,
grapplers), 1 and 2 threads, both opponents, ``copy`` True and False, illegal actions
and autoresets.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..kernels._jit import NO_NRT, once
from ._kept_answer import keep_answer
from ._vecdescent import _base_distance, descent_play
from ._vecgame import run_end
from ._vecnp import (WholeStep, advance_select, draw_obs, mask_rows, obs_row,
                     opponents_draw, pick_rows, sort_starts, step_end)

_LG = None   # legal_games (``_batch.legal_kernel()``), linked in by env_kernel()
#: the grid distance codes of ``_vecgame._grid_distance`` (anything else: Chebyshev)
_KIND = {"hex": 0, "square4": 1}


@once
def env_kernel():
    """The compiled step of a chunk of games (compiled, or loaded from Numba's cache,
    on first use; ``legal_games`` linked in as a global, as
    ``tools._selfplay_descent.step_kernel`` links it: a dispatcher held in the closure
    would make Numba's cache key differ in every process).

    ``ds_env_chunk(tables, Q, T, A, W, O, mode, actions, results, obs, mask, mask_out,
    lo, hi)``: games ``lo <= b < hi``. ``tables``: ``_DescentBatch.tables`` (its
    ``sq``, ``doors``, ``orient`` the games' own); ``Q``: the env's constants (see
    :meth:`DescentEnvStep._tuples`); ``T``: the games (``occ``: the squares ``sq``
    uint8[B, NS + 1], ``cell`` int32[B, F], ``alive`` bool[B, F]) and their turn state (``BatchedSteps``' ``turn ... rng``); ``A``: the kept answer, the dense
    answer rows and what ``legal_games`` and the move write (``opened``, ``slow``,
    ``last_fig``, the asked slots ``figs``); ``W``: this thread's scratch
    (``legal_games``' workspace, game lists sized B, counters int64[2]: moves, move
    generations, added to; last its observation row, ``draw_obs``' ``row``); ``O``:
    :func:`draw_obs`' arguments (``fresh``: the first
    kept draw); ``mode`` int64[B] (``_vecgame.step_modes``: 0 illegal, 1 played, 2
    restarted), ``actions`` int64[B]; ``results`` = ``(illegal_reward, reward, term,
    trunc, done)``; ``obs`` float32[B, C * HW] the kept buffer, updated where it
    changed; ``mask``/``mask_out`` int8[B, A] (the env's, and its copy).
    Returns 0, or -1 where a game's answer needs a live position (never where
    ``all_arrays`` holds: the caller raises)."""
    from ..games.descent import _batch
    global _LG
    _LG = _batch.legal_kernel()
    # (an edit of what is linked or inlined here recompiles this one: movecore's cache
    # stamp follows the modules this one imports at its level, and their imports, and
    # every kernel file; ``movecore._dependency_files``)

    @njit(cache=True, nogil=True)
    def ds_env_chunk(tables, Q, T, A, W, O, mode, actions, results, obs, mask, mask_out,
                     lo, hi):
        occ, cell, alive, turn, side, nxt, actor, over, out, removed, moved, pending, \
            rng = T
        (side_of, turn_sides, movers, n_all, max_turns, learner, usable, adj, rank, dbl,
         greedy, kind, coords, occ0, cell0, doors0, P_env, end_turn, large, swap,
         space, space_at, has_open) = Q
        (a_cost, a_stop, a_list, a_n, a_open, a_slow, amask, acost, astop, opened, slow,
         last_fig, figs) = A
        (bufs, ends_s, occ_s, tbits, lay, pscr, no_pen, rA, rB, adv, opp, mv, ask, gq,
         left, to, u, fs, dist, cl, cn, counts, acting, row) = W
        (fresh, record, drawn, n_drawn, orec, static, n_static, HW, d, k_game, hw, rel,
         lead, valid, gmode, no_sp, sadj, level, height, a_roll, door_cells,
         env_base) = O
        illegal_reward, reward, term, trunc, done = results
        slot_kind, doors, orient = tables[19], tables[29], tables[31]
        big = np.int64(1) << 40
        # (no literal arguments to the cached callees: a ``True`` or a ``0`` would
        # compile them a second signature, beside the one the sub-step path calls)
        zero = np.int64(0)
        # Each game's step: the restart (back at the root) or the learner's move or end
        # of turn; Match._advance; then while an opponent is to move, its pick, move and
        # removal, and Match._advance again (MovecoreGym.step / reset). Games are
        # independent, so the chunk's games go through it together: ``adv`` the games
        # to advance, ``mv`` those to move (to ``to``: the batch's place ids), ``opp``
        # those whose opponents may play (:func:`_starts`). (One copy of each call: the
        # compile time.)
        n_adv, n_mv, n_opp = _starts(lo, hi, mode, actions, end_turn, P_env, reward,
                                     pending, occ, cell, alive, moved, occ0, cell0, turn,
                                     side, nxt, actor, over, out, removed, doors, doors0,
                                     orient, large, swap, opp, adv, mv, to, left)
        while True:
            if n_mv:                # the moves and removals; the games going on advance
                k = descent_play(mv[:n_mv], to[:n_mv], actor, tables, cell, alive, opened,
                                 a_open, slow, a_slow, last_fig, space, space_at, moved,
                                 removed, rng, adj, side_of, n_all, learner, pending,
                                 over, left)
                counts[0] += n_mv
                for i in range(k):
                    adv[n_adv + i] = left[i]
                n_adv += k
            # Match._advance: the next figure with a usable end, its answer kept
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
                for i in range(na):
                    figs[ask[i]] = gq[i]
                _LG(tables, cell, alive, figs, ask, zero, na, bufs, ends_s, occ_s, tbits, lay,
                    pscr, amask, acost, astop, no_pen, opened, slow)
                for i in range(na):
                    if slow[ask[i]]:    # pragma: no cover (all_arrays: never)
                        return -1
                n = keep_answer(ask[:na], gq[:na], amask, acost, astop, usable, a_cost,
                                a_stop, a_list, a_n, has_open, opened, a_open, slow, a_slow,
                                nxt, actor, alt)
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
                # distance from a square of the end's base to a square of an enemy's
                # (BatchedSteps._nearest; every usable end where no enemy is in play:
                # all at 2**40)
                for i in range(n_opp):
                    b = opp[i]
                    f = actor[b]
                    kk = slot_kind[f, orient[b, f]]
                    low = big
                    for j in range(a_n[b]):
                        e = _base_distance(coords, kind, space, space_at, slot_kind,
                                           orient, cell, alive, side_of, b, side[b], kk,
                                           a_list[b, j])
                        dist[j] = e
                        low = min(low, e)
                    m = 0
                    for j in range(a_n[b]):
                        if dist[j] == low:
                            cl[b, m] = a_list[b, j]
                            m += 1
                    cn[b] = m
                pick_rows(opp[:n_opp], opp[:n_opp], cl, cn, fs[:n_opp], u[:n_opp],
                          a_cost, rank, dbl, to)
            else:
                pick_rows(opp[:n_opp], opp[:n_opp], a_list, a_n, fs[:n_opp], u[:n_opp],
                          a_cost, rank, dbl, to)
        # the rewards and ends (BatchedSteps.step); who acts (the observation, the mask)
        step_end(lo, hi, mode, illegal_reward, reward, term, trunc, done, pending, over,
                 out, side, learner, acting)
        i = lo      # (each run of games not left as they are: all of them in a step)
        while i < hi:
            j = run_end(mode, i, hi)
            if j > i:
                draw_obs(obs[i:j], fresh, record, drawn[i:j], n_drawn[i:j], orec[i:j],
                         static, n_static, HW, d, k_game, alive[i:j], cell[i:j], large,
                         orient[i:j], swap, hw, rel, acting[i:j], actor[i:j], moved[i:j],
                         a_list[i:j], a_n[i:j], a_cost[i:j], a_stop[i:j], lead, dbl,
                         turn[i:j], max_turns, valid, gmode, no_sp, sadj, level, height,
                         side_of, a_roll[i:j], over[i:j], doors[i:j], door_cells, row)
                mask_rows(i, j, mask, mask_out, acting, actor, a_list, a_n, env_base,
                          end_turn, large, orient[i:j], swap)
            i = j + 1
        return 0

    return ds_env_chunk


@njit(cache=True, nogil=True, **NO_NRT)
def _starts(lo, hi, mode, actions, end_turn, P_env, reward, pending, occ, cell, alive,
            moved, occ0, cell0, turn, side, nxt, actor, over, out, removed, doors, doors0,
            orient, large, swap, opp, adv, mv, to, restarted):
    """The start of :func:`env_kernel`'s step for games ``lo <= b < hi``
    (``_vecnp.sort_starts``: the games going on into ``opp``, those to advance into
    ``adv``, those where the learner moves into ``mv``), then Descent's own: a game back
    at the root gets the root's doors and orientations (``BatchedGames.reset``), and a
    learner's move goes to the batch's place id ``to`` (the env numbers a turned base's
    places in the root's orientation, the batch in its kind of now: ``_env_places``);
    returns how many of each (``adv``, ``mv``, ``opp``). Compiled apart without
    reference counts, ``sort_starts`` inlined in it (docs/performance_log.md,
    ``descobs``)."""
    F = cell.shape[1]
    # (``occ`` is the game's squares, ``sq``: a restart writes the root's)
    n_adv, n_mv, n_opp, n_rs = sort_starts(lo, hi, mode, actions, end_turn, P_env,
                                           reward, pending, occ, cell, alive, moved,
                                           occ0, cell0, turn, side, nxt, actor, over,
                                           out, removed, opp, adv, mv, to, restarted)
    for i in range(n_rs):
        b = restarted[i]
        doors[b] = doors0
        for g in range(F):
            orient[b, g] = 0
    if large:
        for i in range(n_mv):
            b = mv[i]
            f = actor[b]
            if orient[b, f] != 0:
                to[i] = swap[f, to[i]]
    return n_adv, n_mv, n_opp


def takes(steps) -> bool:
    """Whether :class:`DescentEnvStep` plays the Descent games of ``steps`` (a
    :class:`._vecnp.BatchedSteps`): every move answered on arrays."""
    g = steps.game
    return steps.s.game == "descent" and g is not None and g.all_arrays


class DescentEnvStep(WholeStep):
    """The vector env's step of a Descent :class:`movecore.rl._vecnp.BatchedSteps`
    whose moves are all answered on arrays (:func:`takes`), in one compiled call per
    thread chunk (:func:`env_kernel`; see the module docstring). ``copy``: the env's
    (``True``: each observation drawn whole into the step's new array; ``False``: the
    kept buffer updated where it changed and handed out)."""

    def __init__(self, steps, copy: bool):
        from ..batch import per_thread
        s = self.steps = steps
        g = s.game
        self.copy = copy
        C = self.n_chunks = len(g.bufs)
        B, P = s.B, s.P
        i64 = np.int64
        greedy = s.greedy
        # the greedy opponent's candidates, by game (a chunk's rows are its own)
        self.cl = np.zeros((B, P) if greedy else (1, 1), np.int32)
        self.cn = np.zeros(B if greedy else 1, i64)
        self.acting = np.zeros(B, bool)
        #: the figure slot each game asks ``legal_games`` for (its rows: ``ask``)
        self.figs = np.full(B, -1, i64)
        self.counts = per_thread(C, (2,), i64)
        # each thread's scratch (its game lists sized B: a chunk is at most B games)
        self.W = [(g.bufs[c], g.ends_s[c], g.occ_s[c], g.tbits[c], g.lay[c], g.pscr[c],
                   g.no_pen, *(np.zeros(B, i64) for _ in range(9)), np.zeros(B),
                   np.zeros(B, i64), np.zeros(P, i64), self.cl, self.cn, self.counts[c],
                   self.acting, obs_row(s)) for c in range(C)]
        self.kind = _KIND.get(s.kind, 2)
        self._loaded = C == 1
        self._entries = {}
        self._heads = {}    # the chunks' leading arguments, by draw (``_call``)

    def _tuples(self):
        """The kernel's shared arguments, made at the first steps (``step``: the tests
        swap the steps' tables before them)."""
        s = self.steps
        g = s.game
        G = s.G
        Q = (s.side_of, s.turn_sides, s.movers, s.n_all, s.max_turns, s.learner,
             s._usable8, s.adj, s.rank, s.double, s.greedy, self.kind, s.coords,
             g.sq0, G._cell0, np.int64(g.doors0), s.P_env, s.end_turn, s.large,
             s.swap, g.space, g.space_at, s._open[0])
        T = (G.occ, G.cell, G.alive, s.turn, s.side, s.nxt, s.actor, s.over, s.out,
             s.removed, s.moved, s.pending, s.rng)
        A = (s.a_cost, s.a_stop, s.a_list, s.a_n, s.a_open, s.a_slow, *s._out, g.opened,
             g.slow, g.last_fig, self.figs)
        return g.tables, Q, T, A

    def step(self, mode, actions, illegal_reward, obs_kept, mask):
        """One env step of every game (``mode`` as ``_vecgame.step_modes``, ``actions``
        int64[B]); returns reward, terminated, truncated, done, the observations (a new
        array with ``copy=True``, else ``obs_kept`` brought up to date) and the masks'
        copy (``mask`` int8[B, A]: the env's, written)."""
        # (a status < 0, a game's answer needing a live position: never, all_arrays)
        return self._run(*self._call(False), mode, actions, illegal_reward, obs_kept,
                         mask, "descent")[0]

    def _kernel(self):
        return env_kernel()     # (the module's, looked up at each call: benches swap it)

    def _heads_for(self, draw) -> list:
        """Each chunk's leading arguments for ``env_kernel()``'s step, ``draw`` the
        observation draw's (``WholeStep._call``)."""
        s = self.steps
        tables, Q, T, A = self._tuples()
        O = (*draw, s.static.reshape(-1), s.S, s.HW, s.d, s.d + 6,
             s.hw, s.rel, s.lead, s.valid, s._gmode, s._no_sp, *s._eng_tables,
             s.a_roll, s._door_cells, s.env_base)
        return [(tables, Q, T, A, self.W[c], O) for c in range(self.n_chunks)]
