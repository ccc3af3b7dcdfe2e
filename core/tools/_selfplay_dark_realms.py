"""The compiled self-play step of Dark Realms' batched arrays backend (issue 29).

:class:`movecore.tools.selfplay_batch.BatchedPlay` runs this step on Dark Realms' arrays
(every layout of :mod:`movecore.games.dark_realms._batch`): per step, the acting
figures' rolled queries are drawn for every game at once in array form
(``DarkRealmsGame.query_columns``: the same draws as the array path), their legal ends
come from one batched ``legal_moves`` over the arrays (heroes' card moves in the
batched kernel call, enemies' AI moves in the compiled enemy AI over the batch, any
other query on a restored position), and the rest of the step -- the policy's choice,
the move, the removal coin, the next actor and the restart of finished games -- is one
compiled call over the batch (:func:`dark_realms_step`), no longer numpy passes and
Python loops per step. It makes exactly the choices of ``BatchedPlay.step``'s array
path for the same random numbers (the k-th legal end in cell order, the k-th
nearest-to-an-enemy end, the k-th adjacent enemy in slot order;
``tests/test_batch_dark_realms.py``), with the self-play rules of
:func:`movecore.rl._vecgame.selfplay_step`.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..batch import QueryColumns
from ..kernels import _types as T
from ..rl._vecgame import _adjacent_enemy, _n_sides, _policy_pick, _selfplay_next_actor


@njit(cache=True, nogil=True)
def dark_realms_step(mask, occ, occ0, team, cell, alive, side_of, turn_sides, movers, turn,
                     actor, done, nbr, coords, kind, greedy, u, max_turns, cell0, dist,
                     restarted, counts):
    """One move in every unfinished game of the batch from its legal ends ``mask[b]``
    (see the module docstring); ``counts``: move generations, moves, turns begun, games
    finished (added to); ``restarted[b]``: game ``b`` finished and restarted."""
    EMPTY = np.int32(T.OCC_EMPTY)
    N = occ.shape[1]
    F = cell.shape[1]
    B = occ.shape[0]
    n_all_sides = 0
    for f in range(F):
        n_all_sides = max(n_all_sides, side_of[f] + 1)
    for b in range(B):
        if done[b] or actor[b] < 0:
            continue
        f = actor[b]
        counts[0] += 1                      # a move generation
        n = 0
        for c in range(N):
            n += mask[b, c] != 0
        # ---------------------------------------------------------- the policy
        pick = _policy_pick(mask[b], n, greedy, u[b, 0], dist, coords, cell, alive,
                            side_of, kind, b, side_of[f])
        # ---------------------------------------------------------- the move
        if pick >= 0:
            occ[b, cell[b, f]] = EMPTY
            occ[b, pick] = team[f]
            cell[b, f] = pick
            counts[1] += 1
            if u[b, 1] < 0.5:               # remove one adjacent enemy
                g = _adjacent_enemy(nbr, cell, alive, side_of, b, f, pick, u[b, 2])
                if g >= 0:
                    occ[b, cell[b, g]] = EMPTY
                    cell[b, g] = -1
                    alive[b, g] = False
                    if _n_sides(alive, side_of, n_all_sides, b) < 2:
                        done[b] = True
                        continue
        # ---------------------------------------------------------- next actor
        _selfplay_next_actor(cell, alive, side_of, turn_sides, movers, turn, actor, done,
                             max_turns, n_all_sides, b, False, counts)
    # ---------------------------------------------------------- autoreset
    for b in range(B):
        restarted[b] = done[b]
        if not done[b]:
            continue
        counts[3] += 1
        for c in range(N):
            occ[b, c] = occ0[c]
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
    """``BatchedPlay``'s step on Dark Realms' arrays (``play.fused``): the rolled
    queries in array form and one batched ``legal_moves``, then the rest of the step in
    one compiled call. ``kind``: the grid distance code of ``selfplay_step``."""
    G = play.games
    fz = getattr(play, "_fz", None)
    if fz is None:
        u = np.empty((play.B, 3))
        counts = np.zeros(4, np.int64)
        dist = np.zeros(len(play.coords), np.int64)
        restarted = np.zeros(play.B, bool)
        args = (G.occ, G._occ0, np.ascontiguousarray(G.team, T.INDEX), G.cell, G.alive,
                play.side_of, play.turn_sides, play.movers, play.turn, play.actor,
                play.done, play.nbr, play.coords, kind, play.policy == "greedy", u,
                play.max_turns, G._cell0, dist, restarted, counts)
        fz = play._fz = (counts, u, restarted, args)
    counts, u, restarted, args = fz
    act = np.where(play.done, -1, play.actor)
    mask = G.legal_moves(act, queries=play._rolled_queries(act), out=play._out)[0]
    u[:] = play._uniforms()     # the step's numbers, as the array path reads them
    counts[:] = 0
    dark_realms_step(mask, *args)
    if G._live:       # (a restarted game's figures come back: as ``G.reset``)
        for b in np.flatnonzero(restarted).tolist():
            G._live.pop(b, None)
    gens, moves, turns, games = counts.tolist()
    c = play.counts
    c["generations"] += gens
    c["moves"] += moves
    c["turns"] += turns
    c["games"] += games
    return moves
