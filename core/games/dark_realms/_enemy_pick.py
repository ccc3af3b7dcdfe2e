"""The Dark Realms enemy AI's choice of destination among its forward ends, compiled on
the first enemy AI query (:func:`_pick`); used by the live position's enemy moves
(:mod:`._enemy_moves`).
"""
from __future__ import annotations

import numpy as np

from ...kernels import _types as T
from ...kernels._jit import once


def _enemy_pick(cells, t_now, s_now, rem, flying, w, trap, dist, rank):
    """The enemy AI's choice among the forward ends ``cells`` (traps ``t_now`` and steps
    ``s_now`` to get there): (row, 1) of the least (traps in all, steps in all, steps
    left, farthest from the target when adjacent to it, traps now, x, y) among the ends
    with a route on (``rem[cell]``: a walker's reverse cost ``steps + w * traps``, the
    target's space -1; a flyer's steps left; -1 none), else (row, 0) of the least
    (distance to the target, traps, steps, x, y). ``rank`` orders (x, y)."""
    best = -1
    k0 = k1 = k2 = k3 = k4 = k5 = 0
    for j in range(cells.shape[0]):
        c = cells[j]
        k = rem[c]
        if k < 0:
            continue
        if flying:
            tr, sr = 0, k
        else:
            tr, sr = k // w - trap[c], k % w - 1
            if sr < 0:
                continue
        tn = np.int64(t_now[j])
        a0, a1, a2 = tn + tr, np.int64(s_now[j]) + sr, sr
        a3 = -dist[c] if sr == 0 else 0
        a4, a5 = tn, rank[c]
        if best < 0 or (a0, a1, a2, a3, a4, a5) < (k0, k1, k2, k3, k4, k5):
            best = j
            k0, k1, k2, k3, k4, k5 = a0, a1, a2, a3, a4, a5
    if best >= 0:
        return best, 1
    for j in range(cells.shape[0]):
        c = cells[j]
        a0, a1, a2, a3 = dist[c], np.int64(t_now[j]), np.int64(s_now[j]), rank[c]
        if best < 0 or (a0, a1, a2, a3) < (k0, k1, k2, k3):
            best = j
            k0, k1, k2, k3 = a0, a1, a2, a3
    return best, 0


@once
def _pick():
    """:func:`_enemy_pick` compiled (Numba's cache, or once), on the first enemy AI
    query: numba is imported the package's way by then (the kernels ran before)."""
    from ... import _import_numba
    return _import_numba().njit(cache=T.CACHE, nogil=True)(_enemy_pick)
