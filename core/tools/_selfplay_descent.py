"""The compiled self-play step of Descent's batched arrays backend (issue 29).

:class:`movecore.tools.selfplay_batch.BatchedPlay` runs this step where every move of
the batch is answered on arrays (``_DescentBatch.all_arrays``: no enemy grappler or
aura, no kind that counts wounds): per game, in one compiled call per thread, the acting
figure's legal ends (:func:`movecore.games.descent._batch.legal_games`: the game's door
state, the doors each end's path opens), the policy's choice, the move (its squares, the
doors its path opens), the removal coin, the next actor, and the restart of finished
games. It makes exactly the choices of ``BatchedPlay.step``'s array path for the same
random numbers (the k-th legal end in place order, the k-th nearest-to-an-enemy end, the
k-th adjacent enemy in slot order; ``tests/test_batch_descent.py``), with the
self-play rules of :func:`movecore.rl._vecgame.selfplay_step`.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..games.descent._batch import legal_games
from ..rl._vecgame import _adjacent_enemy, _n_sides, _policy_pick, _selfplay_next_actor


@njit(cache=True, nogil=True)
def descent_step(tables, sq0, doors0, cell, alive, side_of, turn_sides, movers, turn,
                 actor, done, nbr, coords, kind, greedy, u, max_turns, cell0, bufs, ends_s,
                 occ, tbits, figs, slow, mask, cost, stop, opened, dist, lo, hi, counts):
    """One move in every unfinished game ``lo <= b < hi`` (see the module docstring);
    ``counts``: move generations, moves, turns begun, games finished (added to)."""
    side = tables[21]                   # (the Descent side code: its bit in ``sq``)
    sq = tables[28]
    doors = tables[29]
    N = coords.shape[0]
    F = cell.shape[1]
    n_all_sides = 0
    for f in range(F):
        n_all_sides = max(n_all_sides, side_of[f] + 1)
    # every unfinished game's legal ends first (games are independent)
    for b in range(lo, hi):
        figs[b] = -1 if done[b] else actor[b]
    legal_games(tables, cell, alive, figs, lo, hi, bufs, ends_s, occ, tbits, mask, cost,
                stop, opened, slow)
    for b in range(lo, hi):
        if done[b]:
            continue
        f = actor[b]
        counts[0] += 1                      # a move generation
        n = 0
        for c in range(N):
            n += mask[b, c]
        # ---------------------------------------------------------- the policy
        pick = _policy_pick(mask[b], n, greedy, u[b, 0], dist, coords, cell, alive,
                            side_of, kind, b, side_of[f])
        # ---------------------------------------------------------- the move
        if pick >= 0:
            sq[b, cell[b, f]] = 0
            sq[b, pick] = 1 << side[f]
            doors[b] |= opened[b, pick]
            cell[b, f] = pick
            counts[1] += 1
            if u[b, 1] < 0.5:               # remove one adjacent enemy
                g = _adjacent_enemy(nbr, cell, alive, side_of, b, f, pick, u[b, 2])
                if g >= 0:
                    sq[b, cell[b, g]] = 0
                    cell[b, g] = -1
                    alive[b, g] = False
                    if _n_sides(alive, side_of, n_all_sides, b) < 2:
                        done[b] = True
                        continue
        # ---------------------------------------------------------- next actor
        _selfplay_next_actor(cell, alive, side_of, turn_sides, movers, turn, actor, done,
                             max_turns, n_all_sides, b, False, counts)
    # ---------------------------------------------------------- autoreset
    for b in range(lo, hi):
        if not done[b]:
            continue
        counts[3] += 1
        for c in range(sq.shape[1]):
            sq[b, c] = sq0[c]
        doors[b] = doors0
        for g in range(F):
            cell[b, g] = cell0[g]
            alive[b, g] = cell0[g] >= 0
        done[b] = False
        turn[b] = 0
        actor[b] = -1
        counts[2] += 1
        _selfplay_next_actor(cell, alive, side_of, turn_sides, movers, turn, actor, done,
                             max_turns, n_all_sides, b, False, counts)
    return 0


def step(play, kind: int) -> int:
    """``BatchedPlay``'s step on Descent's arrays (``play.fused`` and a ``_DescentBatch``
    game): one compiled call per thread; the random numbers drawn here. ``kind``: the
    grid distance code of ``selfplay_step`` (square8: 2)."""
    G = play.games
    g = G._game
    fz = getattr(play, "_fz", None)
    if fz is None:
        from ..batch import per_thread
        n_chunks = len(g.bufs)
        B = play.B
        counts = per_thread(n_chunks, (4,), np.int64)
        dists = per_thread(n_chunks, (len(play.coords),), np.int64)
        u = np.empty((B, 3))
        mask, cost, stop = play._out
        args = (g.tables, g.sq0, np.int64(g.doors0), G.cell, G.alive, play.side_of,
                play.turn_sides, play.movers, play.turn, play.actor, play.done, play.nbr,
                play.coords, kind,
                play.policy == "greedy", u, play.max_turns, G._cell0)
        figs = np.zeros(B, np.int64)
        calls = [args + (g.bufs[c], g.ends_s[c], g.occ_s[c], g.tbits[c], figs, g.slow,
                         mask, cost, stop, g.opened,
                         dists[c], (B * c) // n_chunks, (B * (c + 1)) // n_chunks,
                         counts[c]) for c in range(n_chunks)]
        fz = play._fz = (counts, u, calls)
    counts, u, calls = fz
    for c in counts:
        c[:] = 0
    u[:] = play._uniforms()     # the step's numbers, as the array path reads them
    if len(calls) == 1:
        descent_step(*calls[0])
    else:
        from ..reach import _thread_pool
        pool = _thread_pool(len(calls) - 1)
        futures = [pool.submit(descent_step, *a) for a in calls[1:]]
        descent_step(*calls[0])
        for fu in futures:
            fu.result()
    gens, moves, turns, games = np.sum(counts, axis=0).tolist()
    c = play.counts
    c["generations"] += gens
    c["moves"] += moves
    c["turns"] += turns
    c["games"] += games
    return moves
