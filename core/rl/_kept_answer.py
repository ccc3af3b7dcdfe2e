"""The numpy-driven vector env's kept answer: a game's usable ends as a list.

One compiled loop shared by :mod:`._vecnp` (Descent, and every game off the compiled
scopes) and the compiled answers of :mod:`._vecdr` (Dark Realms) and :mod:`._vechs`
(Heroscape), kept in a module of its own so those import it without importing
:mod:`._vecnp` (which imports them).
"""
from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros   # (LLVM's cttz)

from ..kernels._jit import NO_NRT


@njit(cache=True, nogil=True)
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
    many."""
    P = a_list.shape[1]
    k = 0
    for i in range(rows.shape[0]):
        b, gi = rows[i], g[i]
        c = 0
        for p in range(P):          # (no branch: the list's next slot written anyway)
            a_list[b, c] = p
            c += (mask[b, p] & usable[gi, p]) != 0
        for j in range(c):
            p = a_list[b, j]
            a_cost[b, p] = cost[b, p]
            a_stop[b, p] = stop[b, p]
            if has_open:
                a_open[b, p] = opened[b, p]
        a_n[b] = c
        if has_open:
            a_slow[b] = slow[b]
        nxt[b] = gi + 1
        if c:
            actor[b] = gi
        else:
            again[k] = b
            k += 1
    return k


@njit(cache=True, nogil=True, **NO_NRT)
def keep_answer_words(rows, g, words, width, usable, cost, stop, a_cost, a_stop, a_list,
                      a_n, nxt, actor, again):
    """:func:`keep_answer` for games whose answer rows are sparse (Heroscape's
    double-space figures: ~100 usable ends of 746 placements on
    ``heroscape_engaged_knight``) and that read no doors (``has_open`` False): the
    mask read eight places a word. ``words`` uint64[B * width / 8] is the mask
    ``uint8[B, width]`` (C order, little-endian) as words: game ``b``'s row is bytes
    ``b * width ... + width`` (rows need not start on a word: the bytes of a word
    outside the row are skipped), each nonzero byte (0 or 1, as ``legal_moves``' mask
    rows hold) an end, found by ``trailing_zeros`` and cleared whole; ``usable``
    uint8[F, P] then tested at the ends only. The list comes by place id, as
    :func:`keep_answer`'s. Allocates nothing."""
    P = a_list.shape[1]
    k = 0
    for i in range(rows.shape[0]):
        b, gi = rows[i], g[i]
        s0 = b * width
        c = 0
        for w in range(s0 >> 3, (s0 + P + 7) >> 3):
            x = words[w]
            while x != 0:
                t = np.int64(trailing_zeros(x)) >> 3
                x &= ~(np.uint64(0xFF) << np.uint64(t << 3))
                p = (w << 3) + t - s0
                if p >= 0 and p < P and usable[gi, p] != 0:
                    a_list[b, c] = p
                    c += 1
        for j in range(c):
            p = a_list[b, j]
            a_cost[b, p] = cost[b, p]
            a_stop[b, p] = stop[b, p]
        a_n[b] = c
        nxt[b] = gi + 1
        if c:
            actor[b] = gi
        else:
            again[k] = b
            k += 1
    return k
