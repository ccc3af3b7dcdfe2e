"""A two-space walker's plain query as bit sets over the battlefield's padded grid.

:func:`._batch_doubles.doubles_kernel` answers a two-space walker that its kept ends do
not answer with its kind's packed query on the placement graph (``reach1_ordered``:
~650-1,060 placements a search, settled one at a time). Since each pair of spaces is
listed by ``rules.placement_key`` (least cost, a free arrival before a stopped one, the
lower placement node: ``hscanon``), the answer no longer depends on the order a search
settles placements in, so it may come from layers: the placements first reached at cost
``c`` are the arrivals at ``c`` less those settled, each arrival a shift of a layer by a
direction's bit offset.

A placement (lead ``u``, trail ``u``'s neighbour in direction ``d``) is bit ``pidx[u]``
of plane ``d`` (six planes of W words: :func:`._bits.padded_grid` of the spaces). A step
of the lead in direction ``j != d`` (never onto its trail) enters placement (``u +
off[j]``, direction ``opp(j)``): plane ``d`` shifted by ``off[j]`` into plane
``opp(j)``, so the six planes' union is shifted once per ``j`` (plane ``j`` in it too:
a step onto the trail enters the placement's flip, which its flip link reached at cost
0, so that arrival is dropped as settled, or by the flip's entry plane); its cost is
fixed by the placement it enters (the lead's climb from the trail's level:
``dst``, per direction and cost). A flip (the placement graph's link, cost 0) is plane
``d`` shifted by ``off[d]`` into plane ``opp(d)``. Whether an arrival stops, may end
there or may be entered at all is fixed by the placement (its flags) and the figures on
its two spaces (a walker passes friends, may not end on them, and is blocked by every
other figure: ``_jit.node_value``).

Same ends, costs and stops as the plain query (``tests/test_batch_heroscape.py``); its
leaving attacks are not made here (``doubles`` runs its penalty search where they are
asked)."""
from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros   # (LLVM's cttz)

from ...kernels import _types as T
from ._bits import _shift_or, padded_grid, step_costs
from ._jit import placement_key

EMPTY = T.OCC_EMPTY
HEX = 6
#: ``bat``'s header: W, smax, kinds, N (spaces), P (placements), off[6], then ok[kinds]
_HEAD = 11


def pair_bit_tables(blobs, blob_at, qflags, qflags_at, params, lead, trail, flip, node_of,
                    coords, nbr) -> tuple:
    """``(bat int64[...], btab uint64[...])``: the tables of :func:`pair_bits` for the
    layout's double-space kinds (their plain packed queries on the placement graph:
    ``blobs[blob_at[k]:blob_at[k + 1]]``, ``qflags``, ``params[k]``) on the battlefield
    of spaces ``coords`` int[N, 2], ``nbr`` int64[N, 6], placements ``lead``, ``trail``,
    ``flip`` int64[P], ``node_of`` int[N, 6] (the placement with lead ``u`` and trail in
    direction ``d``, -1).

    ``bat``: W, smax (the dearest step), the kinds' count, N, P, ``off[6]`` (the
    directions' bit offsets), ``ok[kind]`` (1: :func:`pair_bits` answers the kind as its
    plain query: a walker -- passes friends without ending on them, blocked by every
    other figure -- whose placement graph is the grid's: K = 6 steps of the lead, never
    onto its trail, each costing at least 1 and fixed by the placement it enters; one
    link a placement, to its flip, at cost 0; no side edges, zone of control or corner
    rule), ``pidx[N]``, ``cell_of[64 W]``, ``node_of[N * 6]``, ``pof[6 * 64 W]`` (bit
    ``x`` of plane ``d``'s placement, -1). ``btab``: per kind
    ``(5 + smax) * 6`` planes of W words, plane ``a * 6 + d``: ``a`` 0 the placements
    of direction ``d`` that may be entered (not impassable, not blocked), 1 whose
    arrivals stop (``CELL_STOP``), 2 that may be ended on (no ``CELL_NO_END``), ``2 +
    s`` the placements a step of the lead in direction ``d`` enters at cost ``s``
    (their direction ``opp(d)``), ``3 + smax`` the pairs' placements that a tie gives
    to their flip (neither of the two stops, both may be entered and ended on, the
    flip's node the lower: :func:`pair_bits` never lists them), ``4 + smax`` the
    placements of pairs where either stops (the pairs' pass orders them). ``bat[0]`` 0
    (no kind answered): no grid."""
    nbr = np.asarray(nbr, np.int64)
    N = nbr.shape[0]
    P = len(lead)
    nk = len(blob_at) - 1
    grid = padded_grid(coords, nbr) if nbr.shape[1] == HEX and P > 0 else None
    if grid is None:
        return np.zeros(_HEAD + max(nk, 1), np.int64), np.zeros(1, np.uint64)
    W, pidx, cell_of, off = grid
    lead, trail, flip = (np.asarray(x, np.int64) for x in (lead, trail, flip))
    node_of = np.asarray(node_of, np.int64)
    opp = (np.arange(HEX) + HEX // 2) % HEX
    ddir = np.full(P, -1, np.int64)          # each placement's trail direction
    for d in range(HEX):
        has = node_of[:, d] >= 0
        ddir[node_of[has, d]] = d
    geo = (ddir >= 0).all() and np.array_equal(off[opp], -off) and \
        np.array_equal(node_of[lead, ddir], np.arange(P)) and \
        np.array_equal(nbr[lead, ddir], trail)
    # each placement's K steps as the grid makes them: lead u -> nbr[u, j] (j not its
    # trail's direction), the new trail u
    want = np.full((P, HEX), -1, np.int64)
    for j in range(HEX):
        v = nbr[lead, j]
        okj = (v >= 0) & (j != ddir)
        want[okj, j] = node_of[v[okj], opp[j]]
    ok = np.zeros(nk, np.int64)
    got = {}
    smax = 1
    for k in range(nk if geo else 0):
        blob = np.asarray(blobs[blob_at[k]:blob_at[k + 1]], np.int64)
        pk = np.asarray(params[k], np.int64)
        qf = np.asarray(qflags[qflags_at[k]:qflags_at[k + 1]], np.int64)
        if blob[0] != P or blob[1] != HEX or blob[2] != P or blob[4] != 0 or \
                pk[T.P_ALLY] != T.PASS_NO_END or pk[T.P_ENEMY] != T.BLOCK:
            continue
        bn = blob[blob[5]:blob[5] + P * HEX].reshape(P, HEX)
        diag = blob[blob[10]:blob[10] + 2 * HEX].reshape(HEX, 2)
        lptr = blob[blob[6]:blob[6] + P + 1]
        link = blob[blob[7]:blob[7] + 3 * P].reshape(P, 3)
        if not np.array_equal(bn, want) or \
                (pk[T.P_CORNER_CUT] == 0 and diag[HEX - 1, 0] >= 0) or \
                not np.array_equal(lptr, np.arange(P + 1)) or \
                not np.array_equal(link[:, 0], flip) or (link[:, 1] != 0).any() or \
                not ((pk[T.P_LINK_MASK] >> link[:, 2]) & 1).all():
            continue
        cost, fl = step_costs(blob, pk, qf, bn)
        # a step's cost fixed by the placement it enters (or none taken into it)
        cin = np.full(P, -1, np.int64)
        for j in range(HEX):
            src = np.flatnonzero(bn[:, j] >= 0)
            np.maximum.at(cin, bn[src, j], cost[src, j])
        fixed = all((cost[bn[:, j] >= 0, j] == cin[bn[bn[:, j] >= 0, j]]).all()
                    for j in range(HEX))
        cinfo = blob[blob[12]:blob[12] + 4 * P].reshape(P, 4)
        enter = (cinfo[:, 0] >= 0) & ((fl & T.CELL_BLOCKED) == 0)
        if not fixed or (cost == 0).any() or (cin > 64).any() or \
                (enter[cin >= 0] == 0).any():
            continue
        ok[k] = 1
        got[k] = (cin, fl, enter)
        smax = max(smax, int(cin.max()))
    A = 5 + smax
    btab = np.zeros((max(nk, 1), A, HEX, W), np.uint64)
    bit = np.uint64(1) << (pidx[lead] & 63).astype(np.uint64)
    word = pidx[lead] >> 6

    def put(k, a, sel):
        for p in np.flatnonzero(sel).tolist():
            btab[k, a, ddir[p], word[p]] |= bit[p]

    for k, (cin, fl, enter) in got.items():
        put(k, 0, enter)
        stp = (fl & T.CELL_STOP) != 0
        endok = enter & ((fl & T.CELL_NO_END) == 0)
        put(k, 1, stp)
        put(k, 2, (fl & T.CELL_NO_END) == 0)
        for s in range(1, smax + 1):     # (entered by the lead's direction opp(ddir))
            for p in np.flatnonzero(cin == s).tolist():
                btab[k, 2 + s, opp[ddir[p]], word[p]] |= bit[p]
        # the pairs a layer settles as ties (see pair_bits): neither stops, both may be
        # ended on; the one of higher node loses (placement_key: the lower node first)
        free = endok & ~stp
        put(k, 3 + smax, free & free[flip] & (flip < np.arange(P)))
        # the pairs whose order the pairs' pass decides: either stops
        put(k, 4 + smax, stp | stp[flip])
    # each plane's bit's placement (-1: none): the ends' read-out, one load an end
    pof = np.full((HEX, 64 * W), -1, np.int64)
    has = cell_of >= 0
    for d in range(HEX):
        pof[d, has] = node_of[cell_of[has], d]
    bat = np.concatenate([[W if ok.any() else 0, smax, nk, N, P], off, ok, pidx, cell_of,
                          node_of.reshape(-1), pof.reshape(-1)]).astype(np.int64)
    return bat, np.ascontiguousarray(btab.reshape(-1))


def scratch_words(bat) -> int:
    """uint64 words of :func:`pair_bits`' ``lay`` for the tables ``bat``."""
    W, smax = int(bat[0]), int(bat[1])
    return max(1, (smax + 1 + 7) * HEX * W + 4 * W)


@njit(nogil=True)
def pair_bits(bat, btab, lay, k, occ, b, c0, c1, t, start, bud, flip, codes_k, mask,
              cost, stop, plist):
    """Game ``b``'s two-space walker of kind ``k`` (``bat``'s ``ok[k]``: the tables of
    :func:`pair_bit_tables`) and team ``t`` on placement ``start`` (lead ``c0``, trail
    ``c1``) within budget ``bud``, on the occupant row ``occ[b]`` (int32[B, N]): its
    plain query's ends, each pair of spaces once as its placement with the least
    ``placement_key``, written into the game's rows of ``mask``, ``cost``, ``stop``
    (uint8/int32/int8[B, P], arriving cleared: mask 0, cost -1, stop 0; a stopped end's
    code from ``codes_k`` int8[P]), as the plain query and ``doubles``' pairs' pass
    write them; ``plist`` int32[>= P] (scratch: the ends whose pair the pass orders),
    ``lay`` uint64 (:func:`scratch_words`). Returns the ends written.

    Each pair once without a pass for most pairs: where neither of a pair's placements
    stops and both may be ended on (``btab``'s plane ``3 + smax`` marks the one of
    higher node), one is settled free at cost ``c`` only where the other is too, at
    ``c`` (their flip link costs 0; the same figures stand on both), so their keys tie
    in (cost, stopped) and the lower node is listed: the other is never written. The
    pairs where either stops (plane ``4 + smax``; their costs may differ) and the
    start's (its stops cleared, an end whoever stands there) go through the pass."""
    W = bat[0]
    smax = bat[1]
    nk = bat[2]
    N = bat[3]
    o_pidx = _HEAD + nk
    o_cell = o_pidx + N
    o_node = o_cell + 64 * W
    o_pof = o_node + HEX * N
    A = 5 + smax
    base = k * A * HEX * W
    R = smax + 1
    HW = HEX * W
    RING, SET, PAS, ENDP, STP, NEW, FREE, NPL = 0, R * HW, (R + 1) * HW, \
        (R + 2) * HW, (R + 3) * HW, (R + 4) * HW, (R + 5) * HW, (R + 6) * HW
    BLK = (R + 7) * HW
    TIE, NPS = base + (3 + smax) * HW, base + (4 + smax) * HW
    FR, TMP, TMP2 = BLK + W, BLK + 2 * W, BLK + 3 * W
    one = np.uint64(1)
    zero = np.uint64(0)
    U = np.uint64  # (the layers' indices as unsigned: no wraparound test at each)
    # (cleared: the ring and the settled, the figures' planes; every other plane is
    # written whole before it is read)
    for i in range((R + 1) * HW):
        lay[U(i)] = 0
    for i in range(2 * W):
        lay[U(BLK + i)] = 0
    # the figures' spaces but the mover's: friends (passed, never ended on), the rest
    # (blocking: enemies, engaged friends)
    for c in range(N):
        o = occ[b, U(c)]
        if o == EMPTY or c == c0 or c == c1:
            continue
        x = bat[U(o_pidx + c)]
        if o == t:
            lay[U(FR + (x >> 6))] |= one << np.uint64(x & 63)
        else:
            lay[U(BLK + (x >> 6))] |= one << np.uint64(x & 63)
    d0 = 0
    for d in range(HEX):
        if bat[o_node + HEX * c0 + d] == start:
            d0 = d
    x0 = bat[o_pidx + c0]
    x1 = bat[o_pidx + c1]
    e0 = (d0 + HEX // 2) % HEX
    # per direction d: a placement is blocked where either space is (its trail's bit
    # is its lead's plus off[d]), not an end where either holds a friend; of a pair
    # that a layer settles as a tie (TIE: neither stops, both may be ended on -- and
    # one is settled free at c only where its flip is too, at c: cost 0 -- the same
    # figures on both), the placement of higher node is no end (placement_key); the
    # pairs where either stops (NPS), and the start's (its stops cleared, an end
    # whoever stands there), to the pairs' pass
    for d in range(HEX):
        for i in range(2 * W):
            lay[U(TMP + i)] = 0
        _shift_or(BLK, -bat[U(5 + d)], lay, TMP, W)
        _shift_or(FR, -bat[U(5 + d)], lay, TMP2, W)
        for i in range(W):
            pas = btab[U(base + d * W + i)] & ~lay[U(BLK + i)] & ~lay[U(TMP + i)]
            lay[U(PAS + d * W + i)] = pas
            tie = btab[U(TIE + d * W + i)]
            nps = btab[U(NPS + d * W + i)]
            if d == d0 and i == x0 >> 6:     # (the start: an end, set below)
                nps |= one << np.uint64(x0 & 63)
            if d == e0 and i == x1 >> 6:
                tie &= ~(one << np.uint64(x1 & 63))
                nps |= one << np.uint64(x1 & 63)
            lay[U(ENDP + d * W + i)] = pas & btab[U(base + (2 * HEX + d) * W + i)] & \
                ~lay[U(FR + i)] & ~lay[U(TMP2 + i)] & ~tie
            lay[U(NPL + d * W + i)] = nps
            lay[U(STP + d * W + i)] = btab[U(base + (HEX + d) * W + i)]
    # the start and its flip never stop; the start is an end whoever stands there
    lay[STP + d0 * W + (x0 >> 6)] &= ~(one << np.uint64(x0 & 63))
    lay[STP + e0 * W + (x1 >> 6)] &= ~(one << np.uint64(x1 & 63))
    lay[ENDP + d0 * W + (x0 >> 6)] |= one << np.uint64(x0 & 63)
    lay[RING + d0 * W + (x0 >> 6)] = one << np.uint64(x0 & 63)
    n = 0
    m = 0
    cr = 0      # c % R, kept as the layers go (a division each was ~3% of the query)
    for c in range(bud + 1):
        at = RING + cr * HW
        for i in range(HW):
            nw = lay[U(at + i)] & ~lay[U(SET + i)]
            lay[U(at + i)] = 0
            lay[U(NEW + i)] = nw
            lay[U(FREE + i)] = nw & ~lay[U(STP + i)]
        for d in range(HEX):        # the flips (cost 0) of this layer's free arrivals
            e = (d + HEX // 2) % HEX
            for i in range(W):
                lay[U(TMP + i)] = 0
            _shift_or(FREE + d * W, bat[5 + d], lay, TMP, W)
            for i in range(W):
                f2 = lay[U(TMP + i)] & lay[U(PAS + e * W + i)] & \
                    ~lay[U(SET + e * W + i)] & ~lay[U(NEW + e * W + i)]
                lay[U(NEW + e * W + i)] |= f2
                lay[U(FREE + e * W + i)] |= f2 & ~lay[U(STP + e * W + i)]
        for d in range(HEX):        # settled; the ends among them
            for i in range(W):
                nw = lay[U(NEW + d * W + i)]
                lay[U(SET + d * W + i)] |= nw
                w = nw & lay[U(ENDP + d * W + i)]
                if w == 0:
                    continue
                stw = lay[U(STP + d * W + i)]
                npw = lay[U(NPL + d * W + i)]
                pat = o_pof + (d * W + i) * 64
                while w:
                    low = w & (~w + one)
                    p = bat[U(pat + trailing_zeros(w))]
                    up = U(p)
                    mask[b, up] = 1
                    cost[b, up] = c
                    stop[b, up] = codes_k[up] if (stw & low) else 0
                    if npw & low:
                        plist[n] = p
                        n += 1
                    m += 1
                    w ^= low
        if c == bud:
            break
        top = min(smax, bud - c)
        # the free arrivals of every direction, ORed once (a step of the lead onto its
        # trail, in the placement's own direction, enters its flip: settled in this
        # layer already where it may be entered, at cost 0, so that arrival is dropped
        # as settled; else the entry planes drop it), shifted once per direction j
        any_ = zero
        for i in range(W):
            u = zero
            for d in range(HEX):
                u |= lay[U(FREE + d * W + i)]
            lay[U(TMP2 + i)] = u
            any_ |= u
        if any_ != 0:
            to1 = cr + 1    # (the ring's slot of cost c + 1: (c + s) % R, s <= smax < R)
            if to1 >= R:
                to1 -= R
            for j in range(HEX):
                for i in range(W):
                    lay[U(TMP + i)] = 0
                _shift_or(TMP2, bat[5 + j], lay, TMP, W)
                e = (j + HEX // 2) % HEX
                for i in range(W):
                    a = lay[U(TMP + i)] & lay[U(PAS + e * W + i)]
                    if a == 0:
                        continue
                    to = to1
                    for s in range(1, top + 1):
                        lay[U(RING + to * HW + e * W + i)] |= a & btab[U(
                            base + ((2 + s) * HEX + j) * W + i)]
                        to += 1
                        if to == R:
                            to = 0
        cr += 1
        if cr == R:
            cr = 0
    # each pair of spaces once: the least placement_key of the two
    for r in range(n):
        p = np.int64(plist[r])
        up = U(p)
        f = flip[up]
        uf = U(f)
        if f < p or mask[b, uf] == 0:
            continue
        if placement_key(cost[b, uf], stop[b, uf], f) < placement_key(cost[b, up],
                                                                        stop[b, up], p):
            mask[b, up], cost[b, up], stop[b, up] = 0, -1, 0
        else:
            mask[b, uf], cost[b, uf], stop[b, uf] = 0, -1, 0
        m -= 1
    return m
