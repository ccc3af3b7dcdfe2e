"""A one-space figure's query as bit sets over the battlefield's padded grid.

The compiled self-play step (:mod:`movecore.tools._selfplay_heroscape`) and the vector
env's compiled answers (:mod:`movecore.rl._vechs`) answer a one-space figure that its
kind's kept ends do not answer with its kind's packed query (``reach1_general``), a
bucket-queue search that settles one cell at a time (~1.5 us a query on the bench's
battlefield, ~49 ends). Heroscape's one-space queries need less than that kernel
handles: no zone of control, no side edges, no links, no corner rule, a step's cost
fixed by its two cells (the entry cost and the climb), and whether an arrival stops
fixed by its cell (water, glyphs). So the least costs are layers: the cells first
reached at cost ``c`` are the arrivals at ``c`` (from the layers before it, each
shifted by a direction's bit offset where its step costs the difference) less the
cells settled already, less those the figures bar; a stopped cell is a layer's cell
that is not grown from. Each layer is a few words (the battlefield's cells on a
padded grid where a direction is one bit offset), each step of a layer a shift and an
AND per word, instead of a settle, six tries and their queue pushes per cell.

Same ends, costs and stops as ``reach1_general`` (``tests/test_batch_heroscape.py``
compares them on random figures over every bundled battlefield and kind, and the two
callers' paths with it switched off); the ends come by cost, not in the kernel's
settle order, which neither caller reads (both write dense rows by place).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ...kernels import _types as T
from ...kernels._jit import NO_NRT
from ...kernels._types import CACHE
from ...reach.compiled import H_HILLY, reach1_general

EMPTY = T.OCC_EMPTY
WALL = T.OCC_WALL
#: the largest padded grid the tables take (bits): a layer is at most 16 words
MAX_BITS = 1024
#: the de Bruijn table that names a word's lowest set bit (``x & -x``) by a multiply
_DEBRUIJN = np.uint64(0x03F79D71B4CB0A89)
_LOW = np.zeros(64, np.int64)
for _i in range(64):
    _LOW[(((1 << _i) * 0x03F79D71B4CB0A89) & ((1 << 64) - 1)) >> 58] = _i


def _none(S: int) -> tuple:
    return (np.zeros(S, np.uint8), np.zeros(1, np.int64), np.zeros((S, 1, 1, 1), np.uint64),
            np.zeros((S, 1), np.uint64), np.zeros((S, 1), np.uint64), np.zeros(1, np.int64),
            np.zeros(1, np.int64), np.zeros((S, 1, 1), np.uint8))


def bit_tables(G, coords) -> tuple:
    """The layout's tables for :func:`one_bits`, ``(ok, off, dst, stp, noend, pidx,
    cell_of, live)``, per packed query ``sh`` of ``G`` (``BatchedGames``: its ``_blobs``,
    ``_qflags``, ``_zoc``, ``_params``), over a padded grid of the battlefield's cells
    (``coords`` int[N, 2], two integer coordinates in which each direction of the
    neighbour table is one step: ``pidx`` int64[N] each cell's bit, ``cell_of``
    int64[64 W] each bit's cell or -1):

    * ``ok`` uint8[S]: 1 where the query is one :func:`one_bits` answers as
      ``reach1_general`` does (no zone of control, side edges, links or corner rule;
      every step costs at least 1; a grid on which every direction is one offset);
    * ``off`` int64[K]: direction ``j``'s bit offset (``pidx[nbr[u, j]] - pidx[u]``);
    * ``dst`` uint64[S, K, smax + 1, W]: the cells ``v`` that a step in direction ``j``
      enters (from ``u``, ``pidx[v] - off[j]``'s cell) where it may be taken (``v``
      enterable, the climb allowed) and costs ``s`` (``v``'s entry cost and the climb:
      the kernel's ``_climb``); ``live`` uint8[S, K, smax + 1]: whether that set has a
      cell. (A cell at a direction's offset from ``u`` that is not its neighbour
      there is in no set of that direction: its one cell at minus the offset is
      ``u``.)
    * ``stp``, ``noend`` uint64[S, W]: the cells whose arrivals stop (``CELL_STOP``),
      which may not be ended on (``CELL_NO_END``), of the board and the query's flags.

    Built once per layout, in Python (the tables of a few shapes)."""
    N = G.occ.shape[1]
    S = len(G._params)
    blob0 = np.asarray(G._blobs[G._blob_at[0]:G._blob_at[1]])
    K = int(blob0[1])
    nbr = blob0[blob0[5]:blob0[5] + N * K].reshape(N, K).astype(np.int64)
    grid = padded_grid(coords, nbr)
    if grid is None:
        return _none(S)
    W, pidx, cell_of, off = grid
    ok = np.zeros(S, np.uint8)
    steps = {}
    smax = 1
    for sh in range(S):
        blob = np.asarray(G._blobs[G._blob_at[sh]:G._blob_at[sh + 1]], np.int64)
        pk = np.asarray(G._params[sh], np.int64)
        qf = np.asarray(G._qflags[G._qflags_at[sh]:G._qflags_at[sh + 1]], np.int64)
        nz = G._zoc_at[sh + 1] - G._zoc_at[sh]
        if blob[0] != N or blob[1] != K or blob[2] != 0 or blob[4] != 0 or nz != 0 or \
                not np.array_equal(blob[blob[5]:blob[5] + N * K].reshape(N, K), nbr):
            continue
        diag = blob[blob[10]:blob[10] + 2 * K].reshape(K, 2)
        if pk[T.P_CORNER_CUT] == 0 and K > 0 and diag[K - 1, 0] >= 0:
            continue                            # (the corner rule)
        cost, fl = step_costs(blob, pk, qf, nbr)
        if (cost == 0).any() or (cost > 4 * MAX_BITS).any():
            continue                            # (a free step: not layers)
        ok[sh] = 1
        steps[sh] = (cost, fl)
        smax = max(smax, int(cost.max()))
    dst = np.zeros((S, K, smax + 1, W), np.uint64)
    live = np.zeros((S, K, smax + 1), np.uint8)
    stp = np.zeros((S, W), np.uint64)
    noend = np.zeros((S, W), np.uint64)

    def put(row, cells):
        for c in cells:
            x = int(pidx[c])
            row[x >> 6] |= np.uint64(1) << np.uint64(x & 63)

    for sh, (cost, fl) in steps.items():
        for j in range(K):
            for s in range(1, smax + 1):
                put(dst[sh, j, s], nbr[cost[:, j] == s, j])
                live[sh, j, s] = (cost[:, j] == s).any()
        put(stp[sh], np.nonzero(fl & T.CELL_STOP)[0])
        put(noend[sh], np.nonzero(fl & T.CELL_NO_END)[0])
    return ok, off, dst, stp, noend, pidx, cell_of, live


def padded_grid(coords, nbr):
    """``(W, pidx, cell_of, off)``: the battlefield's N cells (``coords`` int[N, 2], two
    integer coordinates in which each direction of the neighbour table ``nbr``
    int[N, K] is one step) on a padded grid of W uint64 words where a direction is one
    bit offset: ``pidx`` int64[N] each cell's bit, ``cell_of`` int64[64 W] each bit's
    cell or -1, ``off`` int64[K] direction ``j``'s offset (``pidx[nbr[u, j]] -
    pidx[u]``); None where the cells take more than ``MAX_BITS`` or a direction is no
    one offset. (One-space queries here; the two-space walkers' in ``_bits2``.)"""
    N, K = nbr.shape
    xy = np.asarray(coords, np.int64)[:N]
    if N == 0 or xy.shape != (N, 2):
        return None
    lo = xy.min(axis=0)
    span = xy.max(axis=0) - lo + 1
    width = int(span[0]) + 1             # (a pad column: no cell beside a row's end)
    pidx = (xy[:, 1] - lo[1]) * width + (xy[:, 0] - lo[0])
    n_bits = int(pidx.max()) + 1
    if n_bits > MAX_BITS or len(np.unique(pidx)) != N:
        return None
    W = (n_bits + 63) // 64
    cell_of = np.full(64 * W, -1, np.int64)
    cell_of[pidx] = np.arange(N)
    off = np.zeros(K, np.int64)
    for j in range(K):
        u = np.nonzero(nbr[:, j] >= 0)[0]
        d = np.unique(pidx[nbr[u, j]] - pidx[u])
        if len(d) > 1 or (len(d) == 1 and abs(int(d[0])) >= 64 * W):
            return None     # (no grid on which the direction is one offset)
        off[j] = d[0] if len(d) else 0
    return W, pidx, cell_of, off


def step_costs(blob, pk, qf, nbr) -> tuple:
    """``(cost int64[N, K], fl)``: each step's cost of a packed query (``blob``,
    ``params`` ``pk``, query flags ``qf``) over its K directions (``nbr``: the blob's
    neighbour table), -1 where the kernel does not take it (no neighbour, impassable
    or blocked, the climb refused; the kernel's ``_climb``), and its cells' flags
    (the board's and the query's). Its side edges, links, zone of control and corner
    rule are the caller's to rule out."""
    N, K = nbr.shape
    cinfo = blob[blob[12]:blob[12] + 4 * N].reshape(N, 4)
    fl = cinfo[:, 1] | (qf if len(qf) else 0)
    cpl, flat = int(pk[T.P_CLIMB_PER_LEVEL]), int(pk[T.P_CLIMB_FLAT])
    dpl, max_climb = int(pk[T.P_DESCEND_PER_LEVEL]), int(pk[T.P_MAX_CLIMB])
    climbs = blob[H_HILLY] != 0 and (cpl != 0 or flat != 0 or dpl != 0 or
                                      max_climb >= 0)
    per_level_only = flat == 0 and dpl == 0 and max_climb < 0
    max_up = max_climb if max_climb >= 0 else T.MAX_BUDGET
    cost = np.full((N, K), -1, np.int64)    # each step's cost (-1: not taken)
    for u in range(N):
        for j in range(K):
            v = nbr[u, j]
            if v < 0 or cinfo[v, 0] < 0 or fl[v] & T.CELL_BLOCKED:
                continue
            step = int(cinfo[v, 0])
            if climbs:                      # (the kernel's _climb)
                rise = int(cinfo[v, 2] - cinfo[u, 2])
                up = max(rise, 0)
                if per_level_only:
                    step += cpl * up
                elif up > max_up:
                    continue
                else:
                    step += cpl * up + (flat if up > 0 else 0) + dpl * max(-rise, 0)
            cost[u, j] = step
    return cost, fl


def scratch_words(Z, max_budget: int) -> int:
    """uint64 words of :func:`one_bits`' ``lay`` for budgets up to ``max_budget``."""
    return (5 + max(int(max_budget), 0) + Z[2].shape[2]) * Z[3].shape[1]


@njit(nogil=True, inline="always")
def _shift_or(x, k, out, at, W):
    """``out[at:at + W] |= out[x:x + W]`` shifted by ``k`` bits (towards higher bits
    for k > 0), bits shifted past either end dropped (W uint64 words each). (Its
    indices are made unsigned: Numba tests a signed index for a negative one at each
    access, two more instructions in the bit-set queries' innermost loops.)"""
    if k >= 0:
        ws = k >> 6
        bs = np.uint64(k & 63)
        for w in range(W - 1, ws - 1, -1):
            v = out[np.uint64(x + w - ws)] << bs
            if bs and w - ws - 1 >= 0:
                v |= out[np.uint64(x + w - ws - 1)] >> (np.uint64(64) - bs)
            out[np.uint64(at + w)] |= v
    else:
        k = -k
        ws = k >> 6
        bs = np.uint64(k & 63)
        for w in range(0, W - ws):
            v = out[np.uint64(x + w + ws)] >> bs
            if bs and w + ws + 1 < W:
                v |= out[np.uint64(x + w + ws + 1)] << (np.uint64(64) - bs)
            out[np.uint64(at + w)] |= v


@njit(cache=CACHE, nogil=True, **NO_NRT)
def one_bits(Z, sh, occupant, params, start, bud, lay, ends):
    """Query ``sh``'s ends from cell ``start`` within budget ``bud`` on the occupant row
    ``occupant`` (int32[N]), for a query ``bit_tables``' ``ok[sh]`` marks: written to
    ``ends[:, :m]`` (cell, cost, stopped; int32[3, >= N]) by cost; returns ``m``.
    ``params`` int64: the packed query's (its team, its modes for allies and enemies,
    whether figures are read); ``lay`` uint64[>= scratch_words]: scratch (rows of W
    words: the settled cells, the barred ones, the figures' cells, the grown layer, a
    spare, then the arrivals at each cost). Allocates nothing."""
    off, dst, stp, noend, pidx, cell_of, live = Z[1], Z[2], Z[3], Z[4], Z[5], Z[6], Z[7]
    W = stp.shape[1]
    K = off.shape[0]
    smax = dst.shape[2] - 1
    N = occupant.shape[0]
    one = np.uint64(1)
    U = np.uint64  # (the layers' indices as unsigned: no wraparound test at each)
    SET, BAR, FIG, FR, TMP, ARR = 0, W, 2 * W, 3 * W, 4 * W, 5 * W
    for i in range((5 + bud + smax + 1) * W):
        lay[i] = 0
    team = params[T.P_TEAM]
    ally = params[T.P_ALLY]
    enemy = params[T.P_ENEMY]
    if params[T.P_HAS_OCC] != 0:
        # the figures: barred where they may not be passed; never an end where they
        # may not be ended on
        for c in range(N):
            o = occupant[c]
            if o == EMPTY:
                continue
            x = pidx[c]
            bit = one << np.uint64(x & 63)
            mode = T.BLOCK if o == WALL else (ally if o == team else enemy)
            if mode == T.BLOCK:
                lay[BAR + (x >> 6)] |= bit
            if mode != T.PASS_END:
                lay[FIG + (x >> 6)] |= bit
    # (the kernel drops an arrival that must stop where it may not end; here it is
    # settled, neither grown from nor an end: the same)
    x = pidx[start]
    lay[SET + (x >> 6)] = one << np.uint64(x & 63)
    lay[FR + (x >> 6)] = one << np.uint64(x & 63)   # (a start grows, stopping or not)
    ends[0, 0] = start      # (a start is always an end, whoever stands there)
    ends[1, 0] = 0
    ends[2, 0] = 0
    m = 1
    for c in range(bud + 1):
        any_fr = c == 0
        if c > 0:
            at = ARR + c * W
            for w in range(W):
                new = lay[U(at + w)] & ~lay[U(BAR + w)] & ~lay[U(SET + w)]
                lay[U(SET + w)] |= new
                lay[U(FR + w)] = new & ~stp[U(sh), U(w)]
                any_fr = any_fr or lay[U(FR + w)] != 0
                e = new & ~noend[U(sh), U(w)] & ~lay[U(FIG + w)]
                while e:
                    low = e & (~e + one)
                    c_ = cell_of[U((w << 6) + _LOW[(low * _DEBRUIJN) >> np.uint64(58)])]
                    ends[0, m] = c_
                    ends[1, m] = c
                    ends[2, m] = 1 if stp[U(sh), U(w)] & low else 0
                    m += 1
                    e ^= low
        if not any_fr or c == bud:
            continue
        top = min(smax, bud - c)
        for j in range(K):      # the layer shifted a step, then split by its cost
            for w in range(W):
                lay[U(TMP + w)] = 0
            _shift_or(FR, off[j], lay, TMP, W)
            for s in range(1, top + 1):
                if live[sh, j, s]:
                    at = ARR + (c + s) * W
                    for w in range(W):
                        lay[U(at + w)] |= lay[U(TMP + w)] & dst[U(sh), U(j), U(s), U(w)]
    return m


@njit(nogil=True, inline="always")
def query_ends(S, sh, occupant, start, bud, buf, ends, query, lay, bits):
    """A one-space figure's ends from ``start`` within ``bud`` by its packed query
    ``sh`` of ``S`` (``BatchedGames``' ``blobs, blob_at, qflags, qflags_at, zoc,
    zoc_at, params, ...``, then ``Z``: :func:`bit_tables`) on the occupant row
    ``occupant``, into ``ends[:, :m]``; returns ``m`` (or a kernel status < 0): as bit
    sets (:func:`one_bits`, scratch ``lay``) where ``bits`` and ``Z`` allow, else by
    ``reach1_general`` (workspace ``buf``, ``query`` int64[1, 3]; the general kernel
    for a plain query too: the same ends and costs, no stop, and one kernel linked
    into the callers, not two: compile time). The self-play step's and the vector
    env's one call for it, inlined (Numba IR) into both: compiled as a function of its
    own it was optimized and made machine code of once more, ~1 s of a cold compile of
    the step (docs/performance_log.md)."""
    blobs, blob_at, qflags, qflags_at, zoc, zoc_at, params = S[:7]
    Z = S[11]
    if bits and Z[0][sh]:
        return one_bits(Z, sh, occupant, params[sh], start, bud, lay, ends)
    query[0, 0] = start
    query[0, 1] = bud
    return reach1_general(blobs[blob_at[sh]:blob_at[sh + 1]], occupant,
                          qflags[qflags_at[sh]:qflags_at[sh + 1]],
                          zoc[zoc_at[sh]:zoc_at[sh + 1]], params[sh], buf, ends, query,
                          0, 0)
