"""The compiled self-play step of Descent's batched arrays backend (issue 29).

:class:`movecore.tools.selfplay_batch.BatchedPlay` runs this step where every move of
the batch is answered on arrays (``_DescentBatch.all_arrays``: every query shape packed,
pits, auras and grapplers included): per game, in one compiled call per thread, the
acting figure's legal ends (``legal_games``,
:func:`movecore.games.descent._batch.legal_kernel`: the game's door state, its grip
and aura layers, the doors each end's reported path opens), the policy's choice, the
move (its squares, the doors its path opens), the removal coin, the next actor, and
the restart of finished games. It makes exactly the choices of ``BatchedPlay.step``'s
array path for the same random numbers (the k-th legal end in place order, the k-th
nearest-to-an-enemy end, the k-th adjacent enemy in slot order;
``tests/test_batch_descent.py``), with the self-play rules of
:func:`movecore.rl._vecgame.selfplay_step`.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..batch import ThreadChoice, per_thread, summed
from ..games.descent._batch import _move_one, _remove_one, legal_kernel
from ..kernels._jit import once
from ..rl._vecdescent import _base_distance
from ._chunks import run_chosen
from ..rl._vecgame import (_adjacent_enemy, _kth_end, _n_sides, _policy_pick,
                          _selfplay_next_actor, _selfplay_restart, _uniform)


@njit(inline="always")
def _large_pick(row, n, greedy, r, dist, coords, kind, space, space_at, slot_kind, orient,
                cell, alive, side_of, b, f):
    """:func:`movecore.rl._vecgame._policy_pick` where places are bases of many squares
    (a large monster's, in its orientation): greedy reads every square of an end's
    base and of the enemies' bases. ``dist``: int64[P] scratch."""
    if n <= 0:
        return -1
    if not greedy:
        return _kth_end(row, np.int64(r * n), dist, -1)
    kk = slot_kind[f, orient[b, f]]
    best = np.int64(1) << 40
    n_best = 0
    for c in range(row.shape[0]):
        if row[c] == 0:
            continue
        d = _base_distance(coords, kind, space, space_at, slot_kind, orient, cell,
                           alive, side_of, b, side_of[f], kk, c)
        dist[c] = d
        if d < best:
            best = d
            n_best = 0
        if d == best:
            n_best += 1
    return _kth_end(row, np.int64(r * n_best), dist, best)


@njit(inline="always")
def _touches(nbr, space, space_at, slot_kind, orient, cell, b, f, g):
    """Whether a square of figure ``f``'s base is next to (``nbr``) one of ``g``'s."""
    K = space.shape[1]
    kf = slot_kind[f, orient[b, f]]
    kg = slot_kind[g, orient[b, g]]
    for i in range(K):
        x = space[space_at[kf] + cell[b, f], i]
        if x < 0:
            continue
        for k in range(nbr.shape[1]):
            y = nbr[x, k]
            if y < 0:
                continue
            for j in range(K):
                if space[space_at[kg] + cell[b, g], j] == y:
                    return True
    return False


@njit(inline="always")
def _large_adjacent_enemy(nbr, space, space_at, slot_kind, orient, cell, alive, side_of,
                          b, f, r):
    """:func:`movecore.rl._vecgame._adjacent_enemy` over every square of the bases."""
    F = cell.shape[1]
    n_near = 0
    for g in range(F):
        if alive[b, g] and side_of[g] != side_of[f] and \
                _touches(nbr, space, space_at, slot_kind, orient, cell, b, f, g):
            n_near += 1
    if n_near == 0:
        return -1
    want = np.int64(r * n_near)
    seen = 0
    for g in range(F):
        if alive[b, g] and side_of[g] != side_of[f] and \
                _touches(nbr, space, space_at, slot_kind, orient, cell, b, f, g):
            if seen == want:
                return g
            seen += 1
    return -1


_LG = None          # legal_games, bound by step_kernel()


@once
def step_kernel():
    """``descent_step``, compiled (or loaded from Numba's cache) on first use, calling
    :func:`movecore.games.descent._batch.legal_kernel`'s ``legal_games`` (an edit of the
    files it links recompiles this one: movecore's cache stamp follows the modules this
    one imports, ``movecore._dependency_files``)."""
    global _LG
    _LG = legal_kernel()

    @njit(cache=True, nogil=True)
    def descent_step(tables, sq0, doors0, cell, alive, side_of, turn_sides, movers, turn,
                     actor, done, nbr, coords, kind, greedy, key, tick, n_steps, max_turns,
                     cell0, bufs, ends_s, occ, tbits, lay, pscr, no_pen, figs, all_rows, slow,
                     mask, cost, stop, opened, dist, lo, hi, counts, large, space, space_at):
        """``n_steps[0]`` steps (int64[1]) of the games ``lo <= b < hi``, a step one move
        in every unfinished game (see the module docstring); ``counts``: move
        generations, moves, turns begun, games finished (added to). The random numbers
        are drawn here, step ``s`` of the call at step ``tick[0] + s`` of the counter-based
        stream ``key`` (``movecore.rl._vecgame.selfplay_uniforms``: the array path's).
        ``large``: some figure has a base of many squares (its orientation, turned action
        ids, and every square of a base in the policy and the removal: ``space``)."""
        side = tables[21]                   # (the Descent side code: its bit in ``sq``)
        slot_kind = tables[19]
        sq = tables[28]
        doors = tables[29]
        orient = tables[31]
        N = mask.shape[1]                   # (the places: a turned base's too)
        F = cell.shape[1]
        # (an int64 from the start: with the literal 0 Numba compiled the helpers
        # it is passed to a second time, for Literal[int](0))
        n_all_sides = np.int64(0)
        for f in range(F):
            n_all_sides = max(n_all_sides, side_of[f] + 1)
        B = cell.shape[0]
        for s in range(n_steps[0]):
            t = tick[0] + s     # game b's draws: _uniform(key, (t * B + b) * 3 + j)
            # every unfinished game's legal ends first (games are independent)
            for b in range(lo, hi):
                figs[b] = -1 if done[b] else actor[b]
            _LG(tables, cell, alive, figs, all_rows, lo, hi, bufs, ends_s, occ, tbits, lay,
                pscr, mask, cost, stop, no_pen, opened, slow)
            for b in range(lo, hi):
                if done[b]:
                    continue
                f = actor[b]
                at = (t * B + b) * 3                # (the game's draws: at, at + 1, at + 2)
                counts[0] += 1                      # a move generation
                n = 0
                for c in range(N):
                    n += mask[b, c]
                # ---------------------------------------------------------- the policy
                if large:
                    pick = _large_pick(mask[b], n, greedy, _uniform(key, at), dist, coords,
                                       kind, space, space_at, slot_kind, orient, cell, alive,
                                       side_of, b, f)
                else:
                    pick = _policy_pick(mask[b], n, greedy, _uniform(key, at), dist, coords,
                                        cell, alive, side_of, kind, b, side_of[f])
                # ---------------------------------------------------------- the move
                if pick >= 0:
                    if large:
                        _move_one(tables, cell, b, f, pick, opened)
                    else:
                        sq[b, cell[b, f]] = 0
                        sq[b, pick] = 1 << side[f]
                        doors[b] |= opened[b, pick]
                        cell[b, f] = pick
                    counts[1] += 1
                    if _uniform(key, at + 1) < 0.5:     # remove one adjacent enemy
                        if large:
                            g = _large_adjacent_enemy(nbr, space, space_at, slot_kind,
                                                      orient, cell, alive, side_of, b, f,
                                                      _uniform(key, at + 2))
                        else:
                            g = _adjacent_enemy(nbr, cell, alive, side_of, b, f, pick,
                                                _uniform(key, at + 2))
                        if g >= 0:
                            if large:
                                _remove_one(tables, cell, b, g)
                            else:
                                sq[b, cell[b, g]] = 0
                            cell[b, g] = -1
                            alive[b, g] = False
                            if _n_sides(alive, side_of, n_all_sides, b) < 2:
                                done[b] = True
                                continue
                # ---------------------------------------------------------- next actor
                _selfplay_next_actor(cell, alive, side_of, turn_sides, movers, turn, actor,
                                     done, max_turns, n_all_sides, b, False, counts)
            # ---------------------------------------------------------- autoreset
            for b in range(lo, hi):
                if not done[b]:
                    continue
                doors[b] = doors0
                for g in range(F):
                    orient[b, g] = 0
                _selfplay_restart(sq, sq0, cell, cell0, alive, side_of, turn_sides, movers,
                                  turn, actor, done, max_turns, n_all_sides, b, counts)
        return 0



    return descent_step


def step(play, kind: int, k: int = 1) -> int:
    """``BatchedPlay``'s step on Descent's arrays (``play.fused`` and a ``_DescentBatch``
    game): one compiled call per thread, of ``k`` steps (``BatchedPlay.steps``); the
    random numbers drawn in it. ``kind``: the grid distance code of ``selfplay_step``
    (square8: 2)."""
    G = play.games
    g = G._game
    fz = getattr(play, "_fz", None)
    if fz is None:
        n_chunks = len(g.bufs)
        B = play.B
        counts = per_thread(n_chunks, (4,), np.int64)
        dists = per_thread(n_chunks, (G.n_places,), np.int64)
        mask, cost, stop = play._out
        args = (g.tables, g.sq0, np.int64(g.doors0), G.cell, G.alive, play.side_of,
                play.turn_sides, play.movers, play.turn, play.actor, play.done, play.nbr,
                play.coords, kind,
                play.policy == "greedy", play._key, play._tick, play._n_steps,
                play.max_turns, G._cell0)
        figs = np.zeros(B, np.int64)

        def call(c, lo, hi):
            return args + (g.bufs[c], g.ends_s[c], g.occ_s[c], g.tbits[c], g.lay[c],
                           g.pscr[c], g.no_pen, figs, g.all_rows, g.slow, mask, cost, stop,
                           g.opened, dists[c], lo, hi, counts[c], g.large, g.space,
                           g.space_at)
        calls = [call(c, (B * c) // n_chunks, (B * (c + 1)) // n_chunks)
                 for c in range(n_chunks)]
        # (and every game in chunk 0's call, on the calling thread: where the threads
        # measure slower, ``batch.ThreadChoice``)
        # (a choice for one step a call, and one for several: BatchedPlay.steps)
        fz = play._fz = (counts, calls, [call(0, 0, B)], (ThreadChoice(), ThreadChoice()))
    counts, calls, whole, choices = fz
    _, counts, _ = run_chosen(play, step_kernel(), calls, whole, counts, choices, k)
    gens, moves, turns, games = summed(counts)
    return play._tally(gens, moves, turns, games)


step.several_steps = True       # (k steps a call: BatchedPlay.steps)
