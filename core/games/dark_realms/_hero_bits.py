"""A hero's card move as a bit set over the padded grid, grown one step at a time.

Shared by the compiled self-play step (:mod:`movecore.tools._selfplay_dark_realms`,
which needs the ends) and the vector env's answers (:mod:`movecore.rl._vecdr`, which
needs each end's cost too: the step that first reached it). A card move (allies not
passed: every figure blocks; every step costs 1) reaches the spaces within ``roll``
steps through spaces free this move; on a board whose neighbours are exactly its grid's
(:func:`movecore.games.dark_realms._batch_enemy.grid_bits`), one step of the reach is
the reach shifted by every direction's bit offset, within the free spaces.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ...kernels import _types as T
from ._batch_enemy import _step_word


@njit(nogil=True, inline="always")
def _shift_or(src, out, k):
    """``out |= src`` shifted by ``k`` bits (left for k > 0: towards higher bits), over
    uint64 words, bits shifted past either end dropped."""
    W = src.shape[0]
    if k >= 0:
        ws = k >> 6
        bs = np.uint64(k & 63)
        for w in range(W - 1, ws - 1, -1):
            v = src[w - ws] << bs
            if bs and w - ws - 1 >= 0:
                v |= src[w - ws - 1] >> (np.uint64(64) - bs)
            out[w] |= v
    else:
        k = -k
        ws = k >> 6
        bs = np.uint64(k & 63)
        for w in range(0, W - ws):
            v = src[w + ws] >> bs
            if bs and w + ws + 1 < W:
                v |= src[w + ws + 1] << (np.uint64(64) - bs)
            out[w] |= v


@njit(nogil=True, inline="always")
def _nth(shifts, sign, i):
    """The magnitude of the ``i``-th offset of ``shifts`` of sign ``sign`` (1, -1), as
    uint64; the last such one past them (an offset twice ORs the same bits)."""
    last = np.int64(0)
    n = 0
    for d in range(shifts.shape[0]):
        k = shifts[d] * sign
        if k > 0:
            last = k
            if n == i:
                break
            n += 1
    return np.uint64(last)


@njit(nogil=True, inline="always")
def word_steps(shifts):
    """``(small, sp, sn)``: whether every offset of ``shifts`` (int64[D]) is below a
    word with one to four of each sign, so a step is one pass over the words
    (:func:`movecore.games.dark_realms._batch_enemy._step_word`); ``sp``/``sn``: the
    positive offsets and the negative ones' magnitudes, repeated to four."""
    npos = nneg = 0
    small = True
    for d in range(shifts.shape[0]):
        k = shifts[d]
        npos += k > 0
        nneg += k < 0
        small = small and k != 0 and -64 < k < 64
    small = small and 1 <= npos <= 4 and 1 <= nneg <= 4
    sp = (_nth(shifts, 1, 0), _nth(shifts, 1, 1), _nth(shifts, 1, 2), _nth(shifts, 1, 3))
    sn = (_nth(shifts, -1, 0), _nth(shifts, -1, 1), _nth(shifts, -1, 2),
          _nth(shifts, -1, 3))
    return small, sp, sn


@njit(nogil=True)
def hero_start(b, f, start, fly, cell, alive, bpos, pass_bits, reach, free):
    """Set ``reach`` (uint64[W]) to the start's bit and ``free`` to the spaces game
    ``b``'s figure ``f`` may enter this move: ``pass_bits[fly]`` (uint64[2, W]: a walker
    never enters an obstacle, a flyer flies over one) less every other figure's space
    (``cell`` int32[B, F], ``alive`` bool[B, F]; ``bpos`` int64[N]: each space's bit)."""
    W = reach.shape[0]
    for w in range(W):
        free[w] = pass_bits[fly, w]
        reach[w] = 0
    for g in range(cell.shape[1]):
        if alive[b, g] and g != f:
            p = bpos[cell[b, g]]
            free[p >> 6] &= ~(np.uint64(1) << np.uint64(p & 63))
    p = bpos[start]
    reach[p >> 6] = np.uint64(1) << np.uint64(p & 63)


@njit(nogil=True, inline="always")
def hero_layer(reach, free, new, small, sp, sn, shifts):
    """One step of the reach: ``new`` (uint64[W]) = the free spaces one step from
    ``reach`` not in it, added to ``reach``; returns whether there are any (no growth:
    the reach is complete). ``small``/``sp``/``sn``: :func:`word_steps` of ``shifts``."""
    W = reach.shape[0]
    if small:
        for w in range(W):
            new[w] = _step_word(reach, w, sp, sn)
    else:
        for w in range(W):
            new[w] = 0
        for d in range(shifts.shape[0]):
            _shift_or(reach, new, shifts[d])
    more = False
    for w in range(W):
        x = new[w] & free[w] & ~reach[w]
        new[w] = x
        if x:
            more = True
    for w in range(W):
        reach[w] |= new[w]
    return more


@njit(nogil=True)
def hero_bfs(b, start, fly, roll, occ, nbr, passable, seen, queue):
    """The card move by a breadth-first search over ``nbr`` (int32[N, K], -1 none) on
    a board with no grid: the spaces within ``roll`` steps of ``start`` through spaces
    with no figure (game ``b``'s ``occ`` row, int32[B, N]) that ``passable[fly]``
    (uint8[2, N]), start first, in ``queue[:n]`` (int32[N]); returns n. ``seen``
    (int32[N], -1 between calls) holds each one's steps: the caller reads them, then
    sets them back to -1."""
    EMPTY = np.int32(T.OCC_EMPTY)
    K = nbr.shape[1]
    seen[start] = 0
    queue[0] = start
    head = 0
    tail = 1
    while head < tail:
        u = queue[head]
        head += 1
        s = seen[u]
        if s >= roll:
            break              # (breadth-first: every space after it is as far)
        for d in range(K):
            v = nbr[u, d]
            if v >= 0 and seen[v] < 0 and occ[b, v] == EMPTY and passable[fly, v]:
                seen[v] = s + 1
                queue[tail] = v
                tail += 1
    return tail
