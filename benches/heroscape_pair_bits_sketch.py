"""A sketch, not the engine's path (that is ``games.heroscape._bits2`` now, made from
it: ``benches/heroscape_pair_bits_ab.py``): a two-space walker's plain query (no
leaving attacks: the basic game) as bit-set layers, one plane per direction of the trail, each pair of
spaces listed by ``rules.placement_key``; checked against the batch's two-space call and
timed beside it, in one process.

    python benches/heroscape_pair_bits_sketch.py [--scenarios a.json,b.json]
                                                [--rounds 11] [--B 1024]

Per bundled scenario made a basic game (no leaving attacks: every walker runs the plain
query; the kept ends turned off, ``NO_KEPT_WALKERS``), the two-space walkers' games of 40
self-play steps: the call's answers (mask, cost, stopped) and the sketch's checked equal,
then CPU time of this thread per game, medians of rounds in a shuffled order: the call
(set-up, the packed kernel's plain query, the pairs' pass) against the sketch (its
per-game planes, the layers, the dense rows and the pairs' listing). What it leaves out
(see ``docs/performance_log.md``, the ``hscanon`` section): penalty levels, falls, flyers.
"""
from __future__ import annotations

import os
import sys

import numpy as np
from numba import njit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import heroscape_doubles_ab as H  # noqa: E402
from movecore.games.heroscape._bits import _DEBRUIJN, _LOW  # noqa: E402

EMPTY, WALL = -1, -2


def tables(st, height: int, budget: int = 0):
    """Static planes of a walker kind (climb below its Height) on the battlefield ``st``
    (a position's shared facts): the padded grid (each direction one bit offset, as
    ``_bits``), per trail direction ``d`` the placements that exist (``valid``), stop a
    move (``stopp``), may be ended on by their levels (``endok``), have the lower lead
    cell of their pair (``low``), and per step direction ``j`` and cost ``s`` the lead's
    destinations (``dst``)."""
    xy = np.asarray(st.coords, np.int64)
    N = len(xy)
    lo = xy.min(0)
    width = int(xy[:, 0].max() - lo[0]) + 2
    pidx = (xy[:, 1] - lo[1]) * width + (xy[:, 0] - lo[0])
    W = (int(pidx.max()) + 64) // 64
    cell_of = np.full(64 * W, -1, np.int64)
    cell_of[pidx] = np.arange(N)
    nbr = np.asarray(st.nbr64)
    off = np.zeros(6, np.int64)
    for j in range(6):
        u = np.flatnonzero(nbr[:, j] >= 0)
        off[j] = int(np.unique(pidx[nbr[u, j]] - pidx[u])[0])
    lv = np.asarray(st.level64)
    wet = np.asarray(st.field.wet, bool)
    glyph = np.asarray(st.field.glyphs, bool)
    blocked = np.asarray(st.field.blocked, bool)
    smax = height          # (a step: 1 + a climb below Height)
    planes = np.zeros((4, 6, W), np.uint64)    # valid, stopp, endok, low
    dst = np.zeros((6, smax + 1, W), np.uint64)

    def put(p, x):
        p[x // 64] |= np.uint64(1) << np.uint64(x % 64)

    for x in range(N):
        for d in range(6):
            y = nbr[x, d]
            if y < 0 or blocked[x] or blocked[y]:
                continue
            put(planes[0, d], pidx[x])
            if glyph[x] or (wet[x] and wet[y]):
                put(planes[1, d], pidx[x])
            if lv[x] == lv[y]:
                put(planes[2, d], pidx[x])
            if x < y:
                put(planes[3, d], pidx[x])
            rise = lv[y] - lv[x]
            if rise < height:          # the lead steps x -> y (direction d)
                put(dst[d, 1 + max(rise, 0)], pidx[y])
    node = np.full((N, 6), -1, np.int64)
    no = np.asarray(st.pl.node_of, np.int64)
    node[:] = no
    return dict(W=W, pidx=pidx, cell_of=cell_of, off=off, planes=planes, dst=dst,
                live=(dst != 0).any(-1).astype(np.uint8),
                node=node, smax=smax, opp=np.array([(d + 3) % 6 for d in range(6)],
                                                   np.int64))


@njit(inline="always")
def _shift(src, off, out):
    """``out`` = ``src`` (uint64[W]) shifted by ``off`` bits (towards higher bits)."""
    W = src.shape[0]
    if off >= 0:
        ws, bs = off // 64, off % 64
        for i in range(W):
            a = i - ws
            v = np.uint64(0)
            if a >= 0:
                v = src[a] << np.uint64(bs)
                if bs and a - 1 >= 0:
                    v |= src[a - 1] >> np.uint64(64 - bs)
            out[i] = v
    else:
        o = -off
        ws, bs = o // 64, o % 64
        for i in range(W):
            a = i + ws
            v = np.uint64(0)
            if a < W:
                v = src[a] >> np.uint64(bs)
                if bs and a + 1 < W:
                    v |= src[a + 1] << np.uint64(64 - bs)
            out[i] = v


@njit(cache=False, nogil=True)
def pair_bits_games(occ, cell, rows, figs, buds, team, lead, trail, pidx, cell_of, off,
                    planes, dst, node, flip, opp, smax, live, mask, cost, stop):
    """:func:`pair_bits` for games ``rows`` (their figure slots ``figs``, budgets
    ``buds``) that share the tables, with one set of scratch planes."""
    W = planes.shape[2]
    ring = np.zeros((smax + 1, 6, W), np.uint64)
    sc = np.zeros((10, 6, W), np.uint64)
    ends = np.zeros(flip.shape[0], np.int64)
    for i in range(rows.shape[0]):
        b, f = rows[i], figs[i]
        p0 = cell[b, f]
        pair_bits(occ, b, team[f], lead[p0], trail[p0], buds[i], pidx, cell_of, off,
                  planes, dst, node, flip, opp, smax, live, ring, sc, mask, cost, stop,
                  ends)


@njit(nogil=True)
def pair_bits(occ, b, t, c0, c1, budget, pidx, cell_of, off, planes, dst, node, flip,
              opp, smax, live, ring, sc, mask, cost, stop, ends):
    """Game ``b``'s two-space walker of team ``t`` on ``c0`` (lead), ``c1``: its ends
    (placement ids) written into ``mask``, ``cost``, ``stop`` (1: stopped) by the
    sketch's layers, each pair once by (cost, stopped, lower node). Returns the ends.
    ``ring``, ``sc``: scratch planes."""
    W = planes.shape[2]
    N = pidx.shape[0]
    blk, fr, tmp, tmp2 = sc[0, 0], sc[0, 1], sc[0, 2], sc[0, 3]
    pas, endp, stp, S, new, free = sc[1], sc[2], sc[3], sc[4], sc[5], sc[6]
    for i in range(W):
        blk[i] = 0
        fr[i] = 0
    for c in range(N):
        if c == c0 or c == c1:
            continue
        o = occ[b, c]
        if o == EMPTY:
            continue
        x = pidx[c]
        bit = np.uint64(1) << np.uint64(x % 64)
        if o == t:
            fr[x // 64] |= bit
        else:
            blk[x // 64] |= bit
    for d in range(6):      # pas: not on a blocked space; endp: and may be ended on
        _shift(blk, -off[d], tmp)
        _shift(fr, -off[d], tmp2)
        for i in range(W):
            pas[d, i] = planes[0, d, i] & ~blk[i] & ~tmp[i]
            endp[d, i] = pas[d, i] & planes[2, d, i] & ~fr[i] & ~tmp2[i]
            stp[d, i] = planes[1, d, i]
    d0 = -1
    for d in range(6):
        if node[c0, d] >= 0 and node[c0, d] == node[c0, d] and \
                pidx[c0] + off[d] == pidx[c1]:
            d0 = d
    x0, x1 = pidx[c0], pidx[c1]
    bit0 = np.uint64(1) << np.uint64(x0 % 64)
    bit1 = np.uint64(1) << np.uint64(x1 % 64)
    stp[d0, x0 // 64] &= ~bit0                 # (the start's two never stop)
    stp[opp[d0], x1 // 64] &= ~bit1
    endp[d0, x0 // 64] |= bit0                 # (the start is an end)
    for d in range(6):
        for i in range(W):
            S[d, i] = 0
    R = ring.shape[0]
    for k in range(R):
        for d in range(6):
            for i in range(W):
                ring[k, d, i] = 0
    ring[0, d0, x0 // 64] |= bit0
    n = 0
    for c in range(budget + 1):
        slot = c % R
        for d in range(6):
            for i in range(W):
                new[d, i] = ring[slot, d, i] & ~S[d, i]
                ring[slot, d, i] = 0
                free[d, i] = new[d, i] & ~stp[d, i]
        for d in range(6):                     # the flips, at this cost
            _shift(free[d], off[d], tmp)
            e = opp[d]
            for i in range(W):
                f2 = tmp[i] & pas[e, i] & ~S[e, i] & ~new[e, i]
                new[e, i] |= f2
                free[e, i] |= f2 & ~stp[e, i]
        for d in range(6):
            for i in range(W):
                S[d, i] |= new[d, i]
                w = new[d, i] & endp[d, i]
                while w:
                    low = w & (~w + np.uint64(1))
                    bb = _LOW[(low * _DEBRUIJN) >> np.uint64(58)]
                    w ^= low
                    p = node[cell_of[64 * i + bb], d]
                    mask[b, p] = 1
                    cost[b, p] = c
                    stop[b, p] = 1 if (stp[d, i] & low) else 0
                    ends[n] = p
                    n += 1
        if c == budget:
            break
        for d in range(6):
            any_ = False
            for i in range(W):
                if free[d, i]:
                    any_ = True
            if not any_:
                continue
            for j in range(6):
                if j == d:
                    continue                   # (the lead never steps onto its trail)
                _shift(free[d], off[j], tmp)
                e = opp[j]
                for s in range(1, smax + 1):
                    if c + s > budget:
                        break
                    if not live[j, s]:
                        continue
                    sl = (c + s) % R
                    for i in range(W):
                        ring[sl, e, i] |= tmp[i] & dst[j, s, i] & pas[e, i]
    # each pair once: the lesser (cost, stopped, node)
    for r in range(n):
        p = ends[r]
        f = flip[p]
        if mask[b, f] == 0 or f < p:
            continue
        if cost[b, f] < cost[b, p] or (cost[b, f] == cost[b, p] and stop[b, f] < stop[b, p]):
            mask[b, p], cost[b, p], stop[b, p] = 0, -1, 0
        else:
            mask[b, f], cost[b, f], stop[b, f] = 0, -1, 0
    return n


def main(argv=None) -> int:
    ap = H._parser(__doc__, 11)
    a = ap.parse_args(argv)
    import movecore as mc
    from movecore.games.heroscape._batch_doubles import (NO_KEPT_WALKERS, NO_PAIR_BITS,
                                                         doubles_kernel)
    from movecore.tools.selfplay import example_scenarios
    ex = dict(example_scenarios("heroscape"))
    dk = doubles_kernel()
    med = np.median
    for name in a.scenarios.split(","):
        sc = dict(ex[name], options=dict(ex[name].get("options", {}), mode="basic"))
        G, D, calls = H._walker_calls(sc, a.B)
        team, height = D[0], D[1]
        st = mc.position(sc)._st
        flip = np.asarray(st.flip, np.int64)
        lead, trail = np.asarray(st.lead), np.asarray(st.trail)
        tabs = {}

        def sketch(occ, cell, alive, rows, figs, buds, *rest):
            m, co, s = rest[-5:-2]
            for h in np.unique(height[figs]).tolist():   # (tables per Height)
                sel = height[figs] == h
                T = tabs.get(h)
                if T is None:
                    T = tabs[h] = tables(st, h)
                pair_bits_games(occ, cell, rows[sel], figs[sel], buds[sel], team, lead,
                                trail, T["pidx"], T["cell_of"], T["off"], T["planes"],
                                T["dst"], T["node"], flip, T["opp"], T["smax"], T["live"],
                                m, co, s)

        def call(*args):
            dk(*args[:-1], NO_KEPT_WALKERS | NO_PAIR_BITS)   # (the kernel's plain query)

        def check(outs, c):
            for b in c[3].tolist():
                m0, c0, s0 = (x[b] for x in outs[0])
                m1, c1, s1 = (x[b] for x in outs[1])
                assert np.array_equal(m0, m1) and np.array_equal(c0[m0 == 1], c1[m1 == 1]) \
                    and np.array_equal(s0[m0 == 1] != 0, s1[m1 == 1] != 0), (name, b)

        n, per = H._doubles([call, sketch], G, D, calls, a.rounds, check)
        r = np.array(per[0]) / np.array(per[1])
        print(f"{name} (basic game): {n} walker games checked equal; the call "
              f"{med(per[0]) * 1e6:.3f} us a game, the sketch {med(per[1]) * 1e6:.3f}: "
              f"call / sketch {med(r):.3f} ({r.min():.3f}-{r.max():.3f})", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
