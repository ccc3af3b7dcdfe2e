"""The numpy-driven vector env's kept answer: a game's usable ends as a list.

One compiled loop shared by :mod:`._vecnp` (Descent, and every game off the compiled
scopes) and the compiled answers of :mod:`._vecdr` (Dark Realms) and :mod:`._vechs`
(Heroscape), kept in a module of its own so those import it without importing
:mod:`._vecnp` (which imports them).
"""
from __future__ import annotations

from numba import njit

from ..kernels._bytes import list_and
from ..kernels._jit import NO_NRT


@njit(cache=True, nogil=True, **NO_NRT)
def keep_list(rows, g, mask, usable, a_list, a_n, nxt, actor, again):
    """:func:`keep_answer` without its costs and stops: where the answer's call wrote
    them into the kept answer's own rows (``_vechsenv``: the double-space call writes
    its costs and stops into ``a_cost``/``a_stop``), only the list of the usable ends
    of games ``rows``' answers (``mask`` [B, >= P], ``usable`` uint8[F, P], figure
    slots ``g``) into ``a_list``/``a_n``, and ``Match._advance``'s step (see
    :func:`keep_answer`); returns how many games went to ``again``. (The list by
    ``kernels._bytes.list_and``: 32 places a step where the rows are C-contiguous
    one-byte rows and ``a_list`` int32, else a branch-free scan of the P places; slots
    past ``a_n`` stale.)"""
    P = a_list.shape[1]
    k = 0
    for i in range(rows.shape[0]):
        b, gi = rows[i], g[i]
        c = list_and(mask, b, usable, gi, a_list, b, P)
        a_n[b] = c
        nxt[b] = gi + 1
        if c:
            actor[b] = gi
        else:
            again[k] = b
            k += 1
    return k


@njit(cache=True, nogil=True, **NO_NRT)
def keep_answer(rows, g, mask, cost, stop, usable, a_cost, a_stop, a_list, a_n, has_open,
                opened, a_open, slow, a_slow, nxt, actor, again):
    """Games ``rows``' answers (``mask``/``cost``/``stop``: ``legal_moves``' rows, [B,
    >= P]) for figure slots ``g`` into the kept answer: the list of the usable ends
    (``usable`` uint8[F, P]), by place id, in ``a_list`` int32[B, P] (``a_n`` int64[B]
    how many: what the pick, the mask and the observation loop over, not the P
    places), and their costs and stops in ``a_cost``/``a_stop`` [B, P] (what is off
    the list is stale: never read); Descent (``has_open``): the doors each end's path
    opens (``opened`` int64[B, P]) and whether a position answered (``slow`` bool[B]),
    what its move reads, into ``a_open``/``a_slow``. Then ``Match._advance``'s step:
    ``nxt`` = the slot after ``g``, and the figure acts (``actor``) where it has a
    usable end; the games where it has none go to ``again`` (int64[>= R]); returns how
    many. (The list: :func:`keep_list`. Allocates nothing: no reference counts.)"""
    k = keep_list(rows, g, mask, usable, a_list, a_n, nxt, actor, again)
    for i in range(rows.shape[0]):
        b = rows[i]
        for j in range(a_n[b]):
            p = a_list[b, j]
            a_cost[b, p] = cost[b, p]
            a_stop[b, p] = stop[b, p]
            if has_open:
                a_open[b, p] = opened[b, p]
        if has_open:
            a_slow[b] = slow[b]
    return k
