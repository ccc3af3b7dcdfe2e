"""Descent's move and removal in the numpy-driven vector env (:mod:`._vecnp`), in one
compiled call per sub-step.

``BatchedSteps._play`` for Descent was a dozen numpy passes and Python calls over the
games of each sub-step (the doors the move reads, ``_DescentBatch.move``, the coin,
``victims`` on ``G.spaces``, ``BatchedGames.remove``, the rewards and ends), at
B = 1,024 about a tenth of the env step (``docs/performance_log.md``, 2026-11-27).
:func:`descent_play` is the same in one loop over the games: the move is the batch's
own (``_DescentBatch``'s :func:`~movecore.games.descent._batch._move_one`,
``_remove_one``), the victim :func:`._vecgame.victim_of`, the draws in each game's order
(the coin, then the victim). Games a live position answered (``a_slow``: a shape not
packed) keep the general path (their move is the position's). Where every move is
answered on arrays, the whole env step is one compiled call per thread chunk
(:mod:`._vecdescent_env`), which calls :func:`descent_play` on its chunk's games.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..games.descent._batch import _move_one, _remove_one
from ._vecgame import TERMINATED, _draw, _grid_distance, victim_of


@njit(cache=True, nogil=True)
def descent_play(rows, to, actor, tables, cell, alive, opened, a_open, slow, a_slow,
                 last_fig, space, space_at, moved, removed, rng, adj, side_of, n_all,
                 learner, pending, over, left):
    """``BatchedSteps._play``'s move and removal in Descent games ``rows`` (int64[R],
    none answered by a live position): the acting figure ``actor[b]`` moves to
    action ``to[i]`` of its kind (``tables``: ``_DescentBatch.tables``; the doors its
    path opens from the kept answer ``a_open`` into ``opened``, ``slow``/``last_fig``
    written as the batch's ``move`` reads them), is marked ``moved``; then the removal
    coin (one draw of the game's stream ``rng``): under 0.5, the enemies in play next
    to a square of the mover's base (``space``/``space_at``: each kind's places'
    squares, as ``_DescentBatch.spaces``; ``adj`` bool[N + 1, N + 1]), and where there
    are n of them a second draw removes the ``int(u * n)``-th (``removed[b]``; the
    learner's reward of it added to ``pending[b]``), the game over (``over[b]`` =
    TERMINATED, ``actor[b]`` = -1) where fewer than two of the ``n_all`` sides are
    left. The games not over go to ``left`` (int64[>= R]); returns how many."""
    kind_n, slot_kind, orient = tables[12], tables[19], tables[31]
    F = cell.shape[1]
    S = space.shape[1]
    sp = np.empty((F, S), np.int64)
    near = np.empty(F, np.int64)
    k = 0
    for i in range(rows.shape[0]):
        b = rows[i]
        f = actor[b]
        p = to[i]
        last_fig[b] = f
        opened[b, p] = a_open[b, p]
        slow[b] = a_slow[b]
        _move_one(tables, cell, b, f, p, opened)
        moved[b, f] = True
        removed[b] = False
        if _draw(rng, b) < 0.5:
            for j in range(F):          # every figure's squares (-1: none)
                kk = slot_kind[j, orient[b, j]]
                c = cell[b, j]
                ok = alive[b, j] and c >= 0 and c < kind_n[kk]
                for x in range(S):
                    sp[j, x] = space[space_at[kk] + c, x] if ok else -1
            gone, end = victim_of(b, f, sp, adj, alive, side_of, n_all, rng, near)
            if gone >= 0:
                _remove_one(tables, cell, b, gone)
                cell[b, gone] = -1
                alive[b, gone] = False
                removed[b] = True
                pending[b] += np.float64(side_of[f] == learner) - \
                    np.float64(side_of[gone] == learner)
                if end:
                    over[b] = TERMINATED
                    actor[b] = -1
        if over[b] == 0:
            left[k] = b
            k += 1
    return k


@njit(inline="always")
def _base_distance(coords, kind, space, space_at, slot_kind, orient, cell, alive,
                   side_of, b, s, kk, c):
    """The least grid distance from a square of the base at action ``c`` of kind
    ``kk`` to a square of a figure in play not of side ``s`` in game ``b`` (2**40:
    none); ``space``/``space_at``: the layout's node -> squares table. The greedy
    opponent's measure: the vector env's (:mod:`._vecdescent_env`) and the compiled
    self-play step's (``tools._selfplay_descent``)."""
    K = space.shape[1]
    d = np.int64(1) << 40
    for g in range(cell.shape[1]):
        if not alive[b, g] or side_of[g] == s:
            continue
        kg = slot_kind[g, orient[b, g]]
        for j in range(K):
            t = space[space_at[kg] + cell[b, g], j]
            if t < 0:
                continue
            for i in range(K):
                x = space[space_at[kk] + c, i]
                if x >= 0:
                    d = min(d, _grid_distance(coords, kind, x, t))
    return d
