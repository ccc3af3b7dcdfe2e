"""Heroscape's kept ends: each one-space kind of mover's ends from every start on the
empty battlefield, with their least costs, built once per layout.

The compiled self-play step (:mod:`movecore.tools._selfplay_heroscape`) and the vector
env's compiled answers (:mod:`movecore.rl._vechs`) answer a one-space figure with no
figure but passable friends within its reach from these tables, less the figures'
spaces, instead of a search (:func:`kept_tables` states why that is exact).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ...kernels import _types as T
from ...reach.compiled import reach1_general
from ._batch import _spaces
from ._batch_doubles import _unstopped

EMPTY = T.OCC_EMPTY
#: the largest battlefield that gets the kept ends (their reach table is uint8[N, N]
#: per kind of mover and budget: 4 MiB each at this size)
KEPT_CELLS = 2048


def kept_tables(G) -> tuple:
    """The step's per-layout tables ``(kept_at, kept_code, kept_ptr, kept, near,
    kept_far)``: per one-space slot ``f``, ``kept_at[f]`` (int64[F], -1: none): its set
    ``k`` of kept ends, one per (kind of mover, budget), with from every start ``s``

    * the ends of its query (cell, cost, stopped: int32[3, M]) at ``kept[:,
      kept_ptr[k * N + s]:kept_ptr[k * N + s + 1]]`` on the empty battlefield with its
      own code ``kept_code[k]`` (its team, not engaged) on ``s``;
    * ``near[k * N + s, x]`` (uint8[S * N, N]): the least cost from ``s`` to cell ``x``
      on the empty battlefield with nothing that stops a move (:func:`_unstopped`;
      255: none within the budget);
    * ``kept_far[k]`` (int64[S]): the budget where no step of the kind costs 0 (else
      the budget + 1).

    The step takes them where no figure stands at ``near < kept_far`` but friends with
    that same code (passed, never ended on), dropping the figures' spaces. Exact: the
    query reads the occupant of a cell only when an arrival within the budget reaches
    it, which a path of at least that least cost does; a friend's space only decides
    whether it is an end (a free arrival passes it as an empty space; a stopped one is
    never pushed there, nor expanded anywhere); and a cell no nearer than the budget is
    reached, if at all, at the budget, where a step of at least 1 from it goes over
    the budget: whoever stands there takes that cell from the ends and nothing else.
    Kinds that break that (friends that may be ended on, a zone of control, per-cell
    shapes) get none."""
    N = G.occ.shape[1]
    F = G.F
    kept_at = np.full(F, -1, np.int64)
    none = (kept_at, np.zeros(0, np.int32), np.zeros(1, np.int64),
            np.zeros((3, 0), np.int32), np.zeros((0, 0), np.uint8), np.zeros(0, np.int64))
    if N > KEPT_CELLS or (np.asarray(G._shape_cell) != 0).any():
        return none
    double = np.asarray(G._selfplay["consts"][0], bool)
    budget = np.asarray(G._budget, np.int64)
    buf = G._bufs[0].copy()
    ends = np.zeros((3, N), np.int32)
    query = np.zeros((1, 3), np.int64)
    sets, codes, ptrs, parts, nears, fars, at = {}, [], [0], [], [], [], 0
    for f in range(F):
        sh = int(G._shape_of[f])
        bud = int(budget[f])
        if double[f] or bud < 0:
            continue
        blob = G._blobs[G._blob_at[sh]:G._blob_at[sh + 1]]
        qf = G._qflags[G._qflags_at[sh]:G._qflags_at[sh + 1]]
        zc = G._zoc[G._zoc_at[sh]:G._zoc_at[sh + 1]]
        pk = G._params[sh]
        if len(zc) or pk[T.P_ALLY] != T.PASS_NO_END:
            continue
        if (sh, bud) not in sets:
            code = int(pk[T.P_TEAM])
            ublob, uqf = _unstopped(blob, qf)
            near = np.full((N, N), 255, np.uint8)
            row = np.full(N, EMPTY, np.int32)
            for s in range(N):
                row[s] = code
                query[0, 0], query[0, 1] = s, bud
                m = reach1_general(blob, row, qf, zc, pk, buf, ends, query, 0, 0)
                if m < 0:  # pragma: no cover (ends hold one column per cell)
                    raise RuntimeError(f"movecore: kernel status {m}")
                parts.append(ends[:, :m].copy())
                at += m
                ptrs.append(at)
                m = reach1_general(ublob, row, uqf, zc, pk, buf, ends, query, 0, 0)
                if m < 0:  # pragma: no cover
                    raise RuntimeError(f"movecore: kernel status {m}")
                near[s, ends[0, :m]] = np.minimum(ends[1, :m], 254)
                row[s] = EMPTY
            sets[sh, bud] = len(codes)
            codes.append(code)
            nears.append(near)
            # a step of cost 0 (a cell other than the start at least cost 0) would go
            # on from a cell reached at the budget: then only cells beyond it are far
            zero = near == 0
            np.fill_diagonal(zero, False)
            fars.append(bud + 1 if zero.any() else bud)
        kept_at[f] = sets[sh, bud]
    if not codes:
        return none
    return (kept_at, np.array(codes, np.int32), np.array(ptrs, np.int64),
            np.ascontiguousarray(np.concatenate(parts, axis=1), np.int32),
            np.ascontiguousarray(np.concatenate(nears), np.uint8),
            np.array(fars, np.int64))


@njit(nogil=True, inline="always")
def kept_clear(near_k, at, far, code, occ, cell, double, lead, trail, alive, b, f):
    """Whether game ``b``'s figure ``f`` may take its kept ends: no other figure in play
    stands on a space (either of a two-space figure's) of least cost below ``far`` from
    its start (``near_k[at]``, uint8: the kept tables' ``near`` row of its kind and
    start) unless it is a friend it passes (``occ`` holds the mover's own ``code``
    there: not engaged). See :func:`kept_tables` for why that is exact."""
    for g in range(alive.shape[1]):
        if g == f or not alive[b, g]:
            continue
        x0, x1 = _spaces(cell, double, lead, trail, b, g)
        if (near_k[at, x0] < far and occ[b, x0] != code) or \
                (x1 >= 0 and near_k[at, x1] < far and occ[b, x1] != code):
            return False
    return True

