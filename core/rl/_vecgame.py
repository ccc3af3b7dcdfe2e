"""The movement-only game of :class:`movecore.rl.turns.Match`, played by a Gymnasium
environment (:class:`movecore.rl.envs.MovecoreGym`: one learner side against a built-in
opponent), for B games at once on the arrays of a :class:`movecore.batch.BatchedGames`
(array backend: grid, Tiny Epic Tactics, Mage Knight), compiled (Numba).

Every game of the batch is exactly the single environment: the same turn order, the same
ends (an opponent's pick is the k-th in the single env's row order: cost, then the
position's coordinate rank, selected without sorting the answer), the same draws of
its own random stream (``rng``: the state of the game's ``np_random``, numpy's PCG64,
stepped here: one double per ``rng.random()`` the single environment calls, drawn
inside the thread's chunk), the same rewards and ends of the episode.
``tests/test_rl_vector.py`` checks it after every step.

State of game ``b`` (arrays over B; ``F`` figure slots, ``N`` cells):

=============  ================  ==================================================
occ, cell,     int32/bool        the batched position (``BatchedGames``)
alive
turn           int64[B]          ``Match.turn`` (turns started)
side           int64[B]          index into the turn sides of the turn being played
nxt            int64[B]          the next figure slot the turn's queue looks at
actor          int64[B]          the acting figure slot (-1: none)
over           int8[B]           0, TERMINATED, TRUNCATED, ILLEGAL
out            bool[B]           the learner's side lost its last figure
removed        bool[B]           the last move removed a figure (``_Core.removed``)
moved          bool[B, F]        figures of the side to move that moved this turn
ans_*          [B, Fs, N]        answers: cell, cost, stop (kernel order), count ``ans_n``;
                                 ``Fs`` = F when a side is answered at its turn's start
                                 (Tiny Epic Tactics' ``legal_moves_side``), else 1
member         bool[B, F]        a figure answered at its turn's start (batch games)
rows, n_rows   int64[B, N]       the acting figure's usable rows of its answer
taken, n_tk    int32[B, F]       ends allies took this turn (batch games)
mtaken         int8[B, F]        Tiny Epic Tactics' Move actions taken, ``tstart``
tstart         int32[B, F]       where the unit began its turn, ``tteam`` the last
tteam          int64[B]          team that acted (the position's turn bookkeeping)
rng            uint64[B, 4]      each game's PCG64 state (high, low 64 bits) and
                                 increment (high, low): :func:`_draw`
=============  ================  ==================================================
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..batch import entry_call
from ..kernels._jit import NO_NRT
from ..kernels._prefetch import prefetch
from ..kernels._stream import store_fence, stream_copy
from ..kernels._types import OCC_EMPTY, P_ALLY, P_ENEMY, P_TEAM
from ..kernels.reach import (_occupant_rule, is_plain, reach1_general, reach1_out_block,
                             reach1_plain)

TERMINATED = 1
TRUNCATED = 2
ILLEGAL = 3
#: numpy's PCG64 (``np.random.PCG64``, what ``gymnasium.utils.seeding.np_random``
#: gives each env): the 128-bit LCG's multiplier, high and low 64 bits
_PCG_MUL_HI = np.uint64(0x2360ED051FC65DA4)
_PCG_MUL_LO = np.uint64(0x4385DF649FCCF645)
# The steps are compiled without Numba's reference counting (its private ``_nrt``
# option; they allocate nothing, and the arrays come from the caller, which keeps them
# alive for the call). With it, every array a helper takes from the step's tuples
# (``S``, ``G``, ``R``) or is handed costs an atomic increment and a decrement (a
# call each, about 2,000 call sites in the step) that Numba's pruning cannot remove
# inside the loops: a vector env step cost 2.9x (grid) and 1.8x (Tiny Epic Tactics)
# its time without (docs/performance_log.md, "The vector environment's move"). The helpers
# the steps call out of line take it too (a function compiled with it pays an increment
# and a decrement per array argument at every call), as do the kernels they call
# (``reach1``, ``is_plain``). ``NO_NRT`` (``kernels._jit``) asks for it only where this
# Numba takes the option; without it the steps give the same answers, with the counts.


@njit(nogil=True, **NO_NRT)
def _n_sides(alive, side_of, n_all, b):
    n = 0
    for s in range(n_all):
        for g in range(alive.shape[1]):
            if alive[b, g] and side_of[g] == s:
                n += 1
                break
    return n


@njit(nogil=True, inline="always")
def _side_in_play(alive, side_of, b, side):
    """Whether game ``b`` has a figure of ``side`` in play (``alive`` bool[B, F],
    ``side_of`` int[F])."""
    for g in range(alive.shape[1]):
        if alive[b, g] and side_of[g] == side:
            return True
    return False


@njit(nogil=True, inline="always")
def _mulhi(a, b):
    """The high 64 bits of the 128-bit product of uint64 ``a`` and ``b``."""
    m = np.uint64(0xFFFFFFFF)
    h = np.uint64(32)
    a0, a1, b0, b1 = a & m, a >> h, b & m, b >> h
    p01 = a0 * b1
    p10 = a1 * b0
    mid = ((a0 * b0) >> h) + (p01 & m) + (p10 & m)
    return a1 * b1 + (p01 >> h) + (p10 >> h) + (mid >> h)


@njit(nogil=True, inline="always")
def _draw(rng, b):
    """Game ``b``'s next ``np_random.random()``, bit for bit: numpy's PCG64 (XSL-RR
    output of the state after one LCG step, ``state = state * mult + inc`` mod
    2**128) on ``rng[b]`` = (state high, state low, inc high, inc low), and the
    double from its 53 high bits (``tests/test_rl_vector.py`` checks it against numpy)."""
    hi = rng[b, 0]
    lo = rng[b, 1]
    nlo = lo * _PCG_MUL_LO
    nhi = _mulhi(lo, _PCG_MUL_LO) + hi * _PCG_MUL_LO + lo * _PCG_MUL_HI
    lo = nlo + rng[b, 3]
    hi = nhi + rng[b, 2] + (np.uint64(1) if lo < nlo else np.uint64(0))
    rng[b, 0] = hi
    rng[b, 1] = lo
    x = hi ^ lo
    r = hi >> np.uint64(58)
    x = (x >> r) | (x << ((np.uint64(64) - r) & np.uint64(63)))
    return np.float64(x >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True, nogil=True)
def draws(rng, b, out):
    """``out[:]`` = game ``b``'s next draws (:func:`_draw`; for the tests)."""
    for i in range(out.shape[0]):
        out[i] = _draw(rng, b)
    return 0


@njit(cache=True, nogil=True, **NO_NRT)
def _answer(S, b, f, k, start_cell, began, cell, alive):
    """(A call of its own, not inlined: :func:`env_chunk`'s compile time. Its integer
    arguments are int64 but ``start_cell``, ``began``: int32, one signature.)

    Figure ``f``'s ends in game ``b`` into answer slot ``k``, in the kernel's order
    (the single env's row order, by cost then the position's coordinate rank, matters
    only where a row is picked by its place in it: :func:`_kth`), less the layout's end
    rules (``BatchLayout``: one-figure spaces another figure holds, no-end spaces; stop
    codes per shape), as ``BatchedGames`` answers.

    The ends are the kernel's, or where the env keeps them (``kept_n`` non-empty:
    :func:`kept_ends`) the kept ends of ``(f, shape, start_cell)``, asked
    once on the board with no figure on it, wherever each other figure in play stands
    off the cells that search settled (``kept_in[.., 0]``'s bits; none to test where no
    figure ever blocks: Mage Knight), or where the query may pass, or on a leaf of the
    search (:func:`_held`): the kernel's search is the kept one, less the ends on the
    cells of those it may not end on (counted into ``no_end`` for the ends' loop), and
    it is not asked (``counts[2]`` counts these answers, ``counts[3]`` those of them
    with cells dropped). ``no_end`` (int32[N], the thread's own) holds 1 on the
    layout's no-end spaces; the other figures in play on one-figure spaces are counted
    into it for the ends' loop and taken out after it, so an end is tested by one load
    instead of a scan of the figures (the single env's holder test: equal)."""
    (blobs, blob_at, qflags, qflags_at, zoc, zoc_at, params, shape_of, shape_cell, budget,
     rank, occ, buf, ends, query, ans_cell, ans_cost, ans_stop, ans_n, keys, unrank,
     near, end_rules, one_figure, no_end, stop_code, counts, fetch_occ, kept,
     kept_n, kept_in) = S
    sh = shape_of[f] + shape_cell[began]
    # the kept search's row, whether it stands for the kernel's, whether some of its
    # ends are held (another figure stands on a cell the kept search settled)
    row, use_kept, held = _kept_use(kept_n, kept_in, f, shape_cell[began], start_cell,
                                    occ, params[sh], cell, alive, b)
    if held:            # their cells are no ends: counted into ``no_end`` (as below)
        _count_held(kept_in, row, start_cell, occ, params[sh], cell, alive, no_end, b, f, 1)
        counts[3] += 1
    if use_kept:        # the kernel's ends, asked once per env
        src = kept[row, start_cell]
        n = kept_n[row, start_cell]
        plain = False           # (a plain shape's kept stopped row is 0)
        counts[2] += 1
    else:
        query[0, 0] = start_cell
        query[0, 1] = budget[f]
        blob = blobs[blob_at[sh]:blob_at[sh + 1]]
        qf = qflags[qflags_at[sh]:qflags_at[sh + 1]]
        zc = zoc[zoc_at[sh]:zoc_at[sh + 1]]
        pk = params[sh]
        plain = is_plain(blob, qf, zc, pk)
        if plain:
            n = reach1_plain(blob, occ[b], qf, zc, pk, buf, ends, query, 0, 0)
        else:
            n = reach1_general(blob, occ[b], qf, zc, pk, buf, ends, query, 0, 0)
        if n < 0:
            n = 0
        src = ends
    if end_rules:       # the other figures' one-figure spaces counted into ``no_end``
        for g in range(cell.shape[1]):
            if g != f and alive[b, g] and one_figure[cell[b, g]]:
                no_end[cell[b, g]] += 1
    filt = end_rules or held
    m = 0
    for i in range(n):
        c = src[0, i]
        if filt and c != start_cell and no_end[c] != 0:
            continue
        ans_cell[b, k, m] = c
        ans_cost[b, k, m] = src[1, i]
        code = 0 if plain else src[2, i]
        if code != 0 and stop_code.shape[0] > 0:
            code = stop_code[sh, c]
        ans_stop[b, k, m] = code
        m += 1
    ans_n[b, k] = m
    if end_rules:       # (back to the layout's own no-end spaces)
        for g in range(cell.shape[1]):
            if g != f and alive[b, g] and one_figure[cell[b, g]]:
                no_end[cell[b, g]] -= 1
    if held:
        _count_held(kept_in, row, start_cell, occ, params[sh], cell, alive, no_end, b, f, -1)
    counts[1] += 1                          # a move generation


def kept_ends(G, N: int, F: int, max_bytes: int) -> tuple:
    """(``kept`` int32[F * M, N, 3, N], ``kept_n`` int64[F * M, N], ``kept_in``
    uint64[F * M, N, 2, W]): the kernel's ends of figure ``f``'s query from cell
    ``c`` on shape ``shape_of[f] + m`` (``m`` = ``shape_cell[began]``, ``M`` its
    values; 1 but in Tiny Epic Tactics, whose ``batch`` answers pick a shape by where
    a unit began its turn) at row ``f * M + m`` (cell, cost, stopped rows, kernel
    order: what ``_vecgame._answer`` reads from the kernel's ``ends``; a plain
    shape's stopped row 0), ``kept_n`` of them, asked once here on the board with no
    figure on it (``occ0`` less the figures' root cells); and ``kept_in``, two bit
    sets (``W`` = ceil(N / 64) words, bit ``v % 64`` of word ``v // 64``), the start
    left out of both: ``[.., 0]`` the cells that search settled (its tree rows, the
    kernel's tree mode), ``[.., 1]`` those some settled state came through (a tree
    row's parent; the others are the search's leaves).

    A query's answer on a game's occupancy row is the kept one, less the cells of
    the holders named below, wherever each other figure in play stands off the
    settled cells, or where the query's occupant rule lets it pass, or on a leaf
    (``_vecgame._held``). A passable holder the query may not end on: a free
    arrival passes it as an empty cell, and a stopped arrival there, which the
    kernel then drops, ends nowhere else; its end goes. A holder it may not pass on
    a leaf: the leaf's pushes were all superseded by cheaper ones or skipped (a
    stopped state beaten by a free one), so without them the other states, their
    pushes and the order they settle in (the kernel's bucket stacks keep the
    others' relative order) are the same; its end goes. The kernel (``reach1``,
    both builds) reads the occupant of a cell ``v`` only (a) when it relaxes an
    arrival at ``v`` (within the budget, past the terrain) and (b) when it
    settles ``v`` (may it end there); the start's occupant is never read to any
    effect (a start is always an end, and an arrival back at it never beats its
    cost 0). Every (b) is a settled cell. An arrival of (a) at a cell that the
    empty search never settles was dropped there after the occupant read, and
    only because it is stopped on a no-end cell (a free arrival, or a stopped one
    on an endable cell, is queued and settles ``v``); with any occupant it is
    dropped as well (not passable, or stopped where it may not end). So while
    every read returns what the empty search read the searches run alike, and a
    game's row differs from the empty one only at its figures' cells: the root's
    occupancy holds nothing but the figures (else nothing is kept), a move writes
    the team where a figure went and ``OCC_EMPTY`` where it was, a removal
    ``OCC_EMPTY``. Shapes, zones and cell flags are the shape's own (no occupancy
    in them). Where no figure ever writes the occupancy (every team
    ``OCC_EMPTY``: Mage Knight's heroes pass each other freely) ``W`` is 0 and
    the kept ends always apply (docs/performance_log.md, "Mage Knight's env move",
    "The grid game's and Tiny Epic Tactics' env move: kept ends ...").
    Shapes ``(0, 0, 3, 0)``, ``(0, 0)``, ``(0, 0, 2, 0)``: not kept (the root holds
    more than figures, or a table over ``max_bytes`` (the vector env's ``vector._KEPT_BYTES``))."""
    M = int(G._shape_cell.max()) + 1 if N else 1
    W = (N + 63) // 64 if (G.team != OCC_EMPTY).any() else 0
    empty = G._occ0.copy()
    at = G._cell0[G._cell0 >= 0]
    empty[at] = OCC_EMPTY
    if not max_bytes or F * M * N * (N * 12 + W * 16) > max_bytes or \
            (empty != OCC_EMPTY).any():
        return (np.zeros((0, 0, 3, 0), np.int32), np.zeros((0, 0), np.int64),
                np.zeros((0, 0, 2, 0), np.uint64))
    kept = np.zeros((F * M, N, 3, N), np.int32)
    kept_n = np.zeros((F * M, N), np.int64)
    kept_in = np.zeros((F * M, N, 2, W), np.uint64)
    buf, ends = G._bufs[0], G._ends[0]
    query = np.zeros((1, 3), np.int64)
    no_query = query[:0]
    none = np.zeros((3, 0), np.int32)       # (no ends' room: the kernel's tree mode)
    # the tree rows' place in ``buf``: (cell, cost, stopped, parent) from there
    # (``reach1``'s out block)
    o_out = reach1_out_block(N, int(buf[2]))
    entries = {}    # (a kernel's entry point, by kernel: F * M * N calls of one type)
    for f in range(F):
        budget = int(G._budget[f])
        for m in range(M):
            sh = int(G._shape_of[f]) + m
            if sh >= G._params.shape[0]:
                continue
            args = (G._blobs[G._blob_at[sh]:G._blob_at[sh + 1]],
                    G._qflags[G._qflags_at[sh]:G._qflags_at[sh + 1]],
                    G._zoc[G._zoc_at[sh]:G._zoc_at[sh + 1]], G._params[sh])
            blob, qf, zc, pk = args
            plain = is_plain(*args)
            kernel = reach1_plain if plain else reach1_general
            rows, r = (2 if plain else 3), f * M + m
            for c in range(N):
                query[0, 0], query[0, 1] = c, budget
                n = max(int(entry_call(entries, kernel, kernel, (
                    blob, empty, qf, zc, pk, buf, ends, query, 0, 0))), 0)
                kept[r, c, :rows, :n] = ends[:rows, :n]
                kept_n[r, c] = n
                if W:   # the settled cells: the tree rows of the same search
                    k = int(entry_call(entries, kernel, kernel, (
                        blob, empty, qf, zc, pk, buf, none, no_query, c, budget))) >> 32
                    _tree_bits(buf, o_out, k, c, kept_in[r, c])
    return kept, kept_n, kept_in


@njit(cache=True, nogil=True)
def _tree_bits(buf, at, k, start, bits):
    """:func:`kept_ends`' two bit sets of one search (``bits`` uint64[2, W]): ``[0]``
    the cells of its ``k`` tree rows (``buf[at:at + 4 k]``: cell, cost, stopped, parent
    row each; ``reach1``'s tree mode), ``[1]`` the cells of those rows' parents, the
    start ``start`` left out of both."""
    for i in range(k):
        v = buf[at + 4 * i]
        if v != start:
            bits[0, v >> 6] |= np.uint64(1) << np.uint64(v & 63)
        p = buf[at + 4 * i + 3]
        if p >= 0:
            u = buf[at + 4 * p]
            if u != start:
                bits[1, u >> 6] |= np.uint64(1) << np.uint64(u & 63)
    return 0


#: what another figure standing on a cell does to a kept search (:func:`_held`)
_HELD_NONE = 0          # nothing (not a cell it settled, no occupant, or pass and end)
_HELD_NO_END = 1        # the cell is no end; the search is the same
_HELD_SEARCH = 2        # the search may differ: the kernel is asked


@njit(nogil=True, inline="always")
def _held(kept_in, row, start_cell, occ, pk, b, c):
    """What game ``b``'s occupant of cell ``c`` does to the kept search ``(row,
    start_cell)`` (:func:`kept_ends`): :data:`_HELD_NONE` where the
    search did not settle ``c`` (its bit in ``kept_in[row, start_cell, 0]``) or the
    kernel's occupant rule (``kernels.reach._occupant_rule``, for the query's team and
    modes ``pk``) lets it pass and end there; :data:`_HELD_NO_END` where it may pass but
    not end (the search is the same: a free arrival passes as on an empty cell, and a
    stopped arrival there, dropped now, ends nowhere else; only that end goes), or may
    not pass a cell the search went on from to no state it kept (a leaf: no bit in
    ``kept_in[row, start_cell, 1]``; its pushes were all superseded or skipped, so the
    others' states, pushes and order are the same without them; only that end goes);
    :data:`_HELD_SEARCH` where it may not pass a cell some kept state came through."""
    w = c >> 6
    bit = np.uint64(1) << np.uint64(c & 63)
    if not kept_in[row, start_cell, 0, w] & bit:
        return _HELD_NONE
    may_pass, may_end = _occupant_rule(occ[b, c], pk[P_TEAM], pk[P_ALLY], pk[P_ENEMY])
    if may_end:
        return _HELD_NONE
    if may_pass or not kept_in[row, start_cell, 1, w] & bit:
        return _HELD_NO_END
    return _HELD_SEARCH


@njit(nogil=True, inline="always")
def _kept_use(kept_n, kept_in, f, m, start, occ, pk, cell, alive, b):
    """``(row, use, held)``: the row of :func:`kept_ends`' table for figure ``f`` on
    shape value ``m`` (``shape_cell``), whether its search from ``start`` stands for
    the kernel's in game ``b`` (no other figure in play changes it: :func:`_held` is
    never :data:`_HELD_SEARCH`; False where there is no table), and whether some of
    its ends are no ends there (a figure on :data:`_HELD_NO_END`)."""
    if kept_n.shape[0] == 0:
        return 0, False, False
    row = f * (kept_n.shape[0] // cell.shape[1]) + m
    held = False
    if kept_in.shape[3] > 0:
        for g in range(cell.shape[1]):
            if g != f and alive[b, g]:
                rule = _held(kept_in, row, start, occ, pk, b, cell[b, g])
                if rule == _HELD_SEARCH:
                    return row, False, False
                if rule == _HELD_NO_END:
                    held = True
    return row, True, held


@njit(nogil=True, inline="always")
def _count_held(kept_in, row, start_cell, occ, pk, cell, alive, no_end, b, f, step):
    """``no_end[c] += step`` at each cell ``c`` of another figure in play of game ``b``
    that is no end of the kept search (:data:`_HELD_NO_END`)."""
    for g in range(cell.shape[1]):
        if g != f and alive[b, g] and \
                _held(kept_in, row, start_cell, occ, pk, b, cell[b, g]) == _HELD_NO_END:
            no_end[cell[b, g]] += step


@njit(nogil=True, **NO_NRT)
def _kth(keys, n, want):
    """The ``want``-th smallest of the distinct ``keys[:n]`` (reordered; quickselect)."""
    lo = 0
    hi = n - 1
    while lo < hi:
        pivot = keys[(lo + hi) // 2]
        i = lo
        j = hi
        while i <= j:
            while keys[i] < pivot:
                i += 1
            while keys[j] > pivot:
                j -= 1
            if i <= j:
                t = keys[i]
                keys[i] = keys[j]
                keys[j] = t
                i += 1
                j -= 1
        if want <= j:
            hi = j
        elif want >= i:
            lo = i
        else:
            return keys[want]
    return keys[want]


@njit(nogil=True, **NO_NRT)
def _row_at(rank, ans_cell, ans_cost, keys, unrank, rows, b, k, n, want):
    """The row of the ``want``-th of the ``n`` rows ``rows[:n]`` of answer ``k`` in the
    single env's row order (cost, then the cell's coordinate rank). (The arrays it
    reads, not the step's tuple: a call pays a reference count per array passed.)

    The kernel lists its ends in cost order (its search settles them so) and ``rows``
    keeps that order: where the rows' costs do not fall, the ``want``-th row is the
    ``(want - lo)``-th by rank of the run ``[lo, hi)`` of rows of its own cost, and only
    that run (a few rows) is ranked; where they do fall anywhere, every row is keyed
    by (cost, rank) (:func:`_row_by_keys`)."""
    cw = ans_cost[b, k, rows[want]]
    lo = 0
    hi = n
    prev = ans_cost[b, k, rows[0]]
    for i in range(n):
        c = ans_cost[b, k, rows[i]]
        if c < prev:
            return _row_by_keys(rank, ans_cell, ans_cost, keys, unrank, rows, b, k, n,
                                want)
        prev = c
        if c < cw:
            lo = i + 1
        elif c > cw and hi == n:
            hi = i
    m = hi - lo
    for i in range(m):
        keys[i] = rank[ans_cell[b, k, rows[lo + i]]]
    if m <= _SMALL:
        return rows[lo + _kth_small(keys, m, want - lo)]
    c = unrank[_kth(keys, m, want - lo)]
    for i in range(lo, hi):
        if ans_cell[b, k, rows[i]] == c:
            return rows[i]
    return rows[lo]  # pragma: no cover


@njit(nogil=True, **NO_NRT)
def _row_by_keys(rank, ans_cell, ans_cost, keys, unrank, rows, b, k, n, want):
    """:func:`_row_at` for rows in any order: each keyed by cost * N + rank, the
    ``want``-th key selected."""
    N = rank.shape[0]
    for i in range(n):
        r = rows[i]
        keys[i] = ans_cost[b, k, r] * N + rank[ans_cell[b, k, r]]
    if n <= _SMALL:
        return rows[_kth_small(keys, n, want)]
    c = unrank[_kth(keys, n, want) % N]
    for i in range(n):
        if ans_cell[b, k, rows[i]] == c:
            return rows[i]
    return rows[0]  # pragma: no cover


#: :func:`env_chunk` takes its chunk's games in blocks of this many: the moves of a
#: block, then their observations (docs/performance_log.md, "... in blocks")
_BLOCK = 32

#: :func:`_row_at` selects among at most this many rows by counting, above by quickselect
_SMALL = 16


@njit(nogil=True, **NO_NRT)
def _kth_small(keys, n, want):
    """The index ``i`` of the ``want``-th smallest of the distinct ``keys[:n]`` (left in
    place): the one with ``want`` keys below it. Counting, n x n compares without a
    data-dependent branch but the last, costs less than a quickselect's mispredicted
    partition branches for the few rows of a move (``tests/test_rl_vector.py`` checks
    it against a sort)."""
    for i in range(n):
        x = keys[i]
        below = 0
        for j in range(n):
            below += keys[j] < x
        if below == want:
            return i
    return 0  # pragma: no cover (distinct keys: one has ``want`` below it)


@njit(nogil=True, inline="always")
def _advance(S, G, b):
    """``Match._advance``: on to the next figure with a usable move (turns started as
    needed); sets ``actor`` or ``over``."""
    (occ, cell, alive, team, side_of, turn_sides, n_all, max_turns, batch, turn, side,
     nxt, actor, over, moved, member, rows, n_rows, taken, n_tk, mtaken, tstart,
     tteam) = G
    ans_n = S[18]
    F = cell.shape[1]
    n_turn = turn_sides.shape[0]
    while True:
        if nxt[b] >= F:                        # the queue is empty: the next turn
            actor[b] = -1
            if _n_sides(alive, side_of, n_all, b) < 2 or n_turn == 0:
                over[b] = TERMINATED
                return
            if turn[b] >= max_turns:
                over[b] = TRUNCATED
                return
            s = turn_sides[turn[b] % n_turn]
            side[b] = s
            turn[b] += 1
            nxt[b] = 0
            for g in range(F):
                moved[b, g] = False
            if batch:           # Tiny Epic Tactics: the side answered now (as if each
                n_tk[b] = 0     # moved first), by the position's Move-action rule
                n_team = 0
                for g in range(F):
                    if alive[b, g] and side_of[g] == s:
                        n_team += 1
                for g in range(F):
                    member[b, g] = False
                    if not (alive[b, g] and side_of[g] == s):
                        continue
                    left = (3 - mtaken[b, g]) if n_team == 1 else \
                        (0 if mtaken[b, g] else 1)
                    if mtaken[b, g] and left <= 0:
                        continue
                    member[b, g] = True
                    began = tstart[b, g] if mtaken[b, g] else cell[b, g]
                    _answer(S, b, g, g, cell[b, g], began, cell, alive)
            continue
        g = nxt[b]
        nxt[b] = g + 1
        if not (alive[b, g] and side_of[g] == side[b]):
            continue
        k = 0
        if batch:
            if not member[b, g]:
                continue
            k = g
        else:
            _answer(S, b, g, np.int64(0), cell[b, g], cell[b, g], cell, alive)
        n = 0
        for i in range(ans_n[b, k]):
            c = S[15][b, k, i]
            free = True
            for t in range(n_tk[b]):
                if taken[b, t] == c:
                    free = False
                    break
            if free:
                rows[b, n] = i
                n += 1
        n_rows[b] = n
        if n == 0:
            continue
        actor[b] = g
        return


@njit(nogil=True, inline="always")
def _play(S, G, R, b, r):
    """The acting figure takes row ``r`` of its answer, then the removal coin (draws of
    the game's stream); returns the learner's reward of it. ``Match.play`` but its
    ``_advance``: the caller's, where the game is not over (see :func:`env_chunk`)."""
    (occ, cell, alive, team, side_of, turn_sides, n_all, max_turns, batch, turn, side,
     nxt, actor, over, moved, member, rows, n_rows, taken, n_tk, mtaken, tstart,
     tteam) = G
    rng, nbr, learner, removed = R
    ans_cell = S[15]
    F = cell.shape[1]
    f = actor[b]
    k = f if batch else 0
    to = ans_cell[b, k, r]
    start = cell[b, f]
    if batch:
        taken[b, n_tk[b]] = to
        n_tk[b] += 1
        if tteam[b] != team[f]:             # a unit of another team acts: a new turn
            if tteam[b] >= 0:
                for g in range(F):
                    mtaken[b, g] = 0
            tteam[b] = team[f]
        if to != start:
            if not mtaken[b, f]:
                tstart[b, f] = start
            mtaken[b, f] += 1
    occ[b, start] = -1
    occ[b, to] = team[f]
    cell[b, f] = to
    moved[b, f] = True
    removed[b] = False
    S[26][0] += 1                           # a figure move
    reward = 0.0
    u = _draw(rng, b)
    if u < 0.5:
        s = side_of[f]
        n_near = 0
        for g in range(F):
            if alive[b, g] and side_of[g] != s and _adjacent(nbr, to, cell[b, g]):
                n_near += 1
        if n_near > 0:
            want = np.int64(_draw(rng, b) * n_near)
            seen = 0
            for g in range(F):
                if alive[b, g] and side_of[g] != s and _adjacent(nbr, to, cell[b, g]):
                    if seen == want:
                        occ[b, cell[b, g]] = -1
                        cell[b, g] = -1
                        alive[b, g] = False
                        removed[b] = True
                        if s == learner:
                            reward += 1.0
                        if side_of[g] == learner:
                            reward -= 1.0
                        break
                    seen += 1
            if _n_sides(alive, side_of, n_all, b) < 2:
                over[b] = TERMINATED
                actor[b] = -1
                return reward
    return reward


@njit(inline="always")
def _adjacent(nbr, c, d):
    for j in range(nbr.shape[1]):
        if nbr[c, j] >= 0 and nbr[c, j] == d:
            return True
    return False


@njit(nogil=True, inline="always")
def _pick(S, G, R, O, b):
    """The opponent's row (``Match.random_row`` / ``greedy_row``): one draw."""
    (occ, cell, alive, team, side_of, turn_sides, n_all, max_turns, batch, turn, side,
     nxt, actor, over, moved, member, rows, n_rows, taken, n_tk, mtaken, tstart,
     tteam) = G
    greedy, coords, kind = O
    u = _draw(R[0], b)
    n = n_rows[b]
    f = actor[b]
    k = f if batch else 0
    if not greedy:
        return _row_at(S[10], S[15], S[16], S[19], S[20], rows[b], b, k, n,
                       np.int64(u * n))
    ans_cell = S[15]
    s = side[b]
    F = cell.shape[1]
    any_enemy = False
    for g in range(F):
        if alive[b, g] and side_of[g] != s:
            any_enemy = True
            break
    if not any_enemy:
        return _row_at(S[10], S[15], S[16], S[19], S[20], rows[b], b, k, n,
                       np.int64(u * n))
    best = np.int64(1) << 40
    # an int64 from the start: a literal 0 types the call below Literal[int](0) before
    # the loop's type settles, compiling _row_at (and what it calls) twice
    n_best = np.int64(0)
    near = S[21]
    for i in range(n):
        c = ans_cell[b, k, rows[b, i]]
        d = _enemy_distance(coords, cell, alive, side_of, kind, b, s, c)
        if d < best:
            best = d
            n_best = 0
        if d == best:
            near[n_best] = rows[b, i]
            n_best += 1
    return _row_at(S[10], S[15], S[16], S[19], S[20], near, b, k, n_best,
                   np.int64(u * n_best))


@njit(inline="always")
def _grid_distance(coords, kind, c, x):
    """The grid distance of cells ``c`` and ``x`` (``kind``: 0 hex, 1 square4, 2
    square8; as :func:`movecore.position.grid_distance`)."""
    dq = coords[c, 0] - coords[x, 0]
    dr = coords[c, 1] - coords[x, 1]
    if kind == 0:
        return (abs(dq) + abs(dr) + abs(dq + dr)) // 2
    if kind == 1:
        return abs(dq) + abs(dr)
    return max(abs(dq), abs(dr))


@njit(inline="always")
def _enemy_distance(coords, cell, alive, side_of, kind, b, s, c):
    d = np.int64(1) << 40
    for g in range(cell.shape[1]):
        if alive[b, g] and side_of[g] != s:
            d = min(d, _grid_distance(coords, kind, c, cell[b, g]))
    return d


@njit(inline="always")
def _policy_pick(row, n, greedy, r, dist, coords, cell, alive, side_of, kind, b, s):
    """Self-play's policy in game ``b``: of the ``n`` legal ends (``row[c] != 0``, a row
    of N), the k-th in cell order for ``r`` uniform in [0, 1): random: among all of
    them; greedy: among those at the least grid distance to a figure not of side ``s``
    (``dist``: int64[N] scratch). -1 when ``n`` is 0."""
    if n <= 0:
        return -1
    if not greedy:
        return _kth_end(row, np.int64(r * n), dist, -1)
    best = np.int64(1) << 40
    n_best = 0
    for c in range(row.shape[0]):
        if row[c] == 0:
            continue
        d = _enemy_distance(coords, cell, alive, side_of, kind, b, s, c)
        dist[c] = d
        if d < best:
            best = d
            n_best = 0
        if d == best:
            n_best += 1
    return _kth_end(row, np.int64(r * n_best), dist, best)


@njit(inline="always")
def _kth_end(row, want, dist, best):
    """The ``want``-th (from 0) legal end (``row[c] != 0``) in place order, of those with
    ``dist[c] == best`` where ``best >= 0`` (the greedy policy's nearest), of all where
    ``best`` is -1; -1 when there are not that many."""
    seen = 0
    for c in range(row.shape[0]):
        if row[c] != 0 and (best < 0 or dist[c] == best):
            if seen == want:
                return c
            seen += 1
    return -1


@njit(inline="always")
def _adjacent_enemy(nbr, cell, alive, side_of, b, f, at, r):
    """The removal coin's victim in game ``b``: the k-th figure (slot order) in play,
    not of figure ``f``'s side, next to cell ``at``, for ``r`` uniform in [0, 1); -1:
    none is adjacent."""
    F = cell.shape[1]
    n_near = 0
    for g in range(F):
        if alive[b, g] and side_of[g] != side_of[f] and _adjacent(nbr, at, cell[b, g]):
            n_near += 1
    if n_near == 0:
        return -1
    want = np.int64(r * n_near)
    seen = 0
    for g in range(F):
        if alive[b, g] and side_of[g] != side_of[f] and _adjacent(nbr, at, cell[b, g]):
            if seen == want:
                return g
            seen += 1
    return -1


#: ``env_chunk``'s mode of a game it leaves as it is (the step's modes: 0 illegal, 1
#: played, 2 restarted; ``MovecoreVectorEnv._restart_rows``)
LEFT = 3


@njit(nogil=True, inline="always")
def run_end(mode, i, hi):
    """The end ``j`` of the run of games ``i <= b < j <= hi`` that a step does not leave
    as they are (``mode[b] != LEFT``; ``j == i`` where game ``i`` is left): the compiled
    steps draw each run's observations and masks, a same-step autoreset's call only its
    restarted games'."""
    j = i
    while j < hi and mode[j] != LEFT:
        j += 1
    return j


@njit(cache=True, nogil=True, **NO_NRT)
def step_modes(actions, mask, done, mode, illegal):
    """What ``MovecoreVectorEnv.step`` does with each game ``b``: ``mode[b]`` 2 (it
    ended on the last step: next-step autoreset), 1 (``actions[b]`` is in its mask
    ``mask[b]``: played) or 0 (illegal: ``illegal[b]``). Returns the illegal count."""
    B, A = mask.shape
    n_bad = 0
    for b in range(B):
        illegal[b] = False
        if done[b]:
            mode[b] = 2
            continue
        x = actions[b]
        if x >= 0 and x < A and mask[b, x] != 0:
            mode[b] = 1
        else:
            mode[b] = 0
            illegal[b] = True
            n_bad += 1
    return n_bad


@njit(nogil=True, inline="always")
def _root(b, occ, cell, alive, moved, occ0, cell0):
    """Game ``b``'s occupancy and figures back at the root (``occ0`` int32[N],
    ``cell0`` int32[F]: -1 out of play), none moved (also Dark Realms' whole step,
    ``_vecdr_env``)."""
    for c in range(occ.shape[1]):
        occ[b, c] = occ0[c]
    for g in range(cell.shape[1]):
        cell[b, g] = cell0[g]
        alive[b, g] = cell0[g] >= 0
        moved[b, g] = False


@njit(nogil=True, inline="always")
def _restart(G, R, Z, b, out, pending):
    """Game ``b`` back to the root, as ``MovecoreVectorEnv._reset_arrays`` (and
    ``BatchedGames.reset``) put it."""
    (occ, cell, alive, team, side_of, turn_sides, n_all, max_turns, batch, turn, side,
     nxt, actor, over, moved, member, rows, n_rows, taken, n_tk, mtaken, tstart,
     tteam) = G
    occ0, cell0, mtaken0, tstart0, tteam0 = Z
    F = cell.shape[1]
    _root(b, occ, cell, alive, moved, occ0, cell0)
    for g in range(F):
        mtaken[b, g] = mtaken0[g]
        tstart[b, g] = tstart0[g]
    turn[b] = 0
    side[b] = -1
    nxt[b] = F
    actor[b] = -1
    over[b] = 0
    n_tk[b] = 0
    tteam[b] = tteam0
    out[b] = False
    R[3][b] = False                         # removed
    pending[b] = 0.0


@njit(nogil=True, inline="always")
def _result(b, mode, illegal, illegal_reward, pending, over, out, reward, term, trunc,
            done):
    """Game ``b``'s reward (the learner's since its last move, ``pending``, paid and
    cleared; ``illegal_reward`` for an illegal action; 0 for a game restarted),
    ``term``, ``trunc``, and ``done`` (restart it next step)."""
    r = 0.0
    te = False
    tr = False
    if mode[b] == 1:
        r = pending[b]
        pending[b] = 0.0
    if illegal[b]:
        r = illegal_reward
    if mode[b] != 2:
        o = over[b]
        te = o == TERMINATED or o == ILLEGAL or out[b]
        tr = o == TRUNCATED and not te
    reward[b] = r
    term[b] = te
    trunc[b] = tr
    done[b] = te or tr


#: :func:`_fetch_ahead` is issued where a game's answers hold at least this many cells
#: (``ans_cell.shape[1] * shape[2]``: Tiny Epic Tactics 6 x 140, its step 0.93-0.95x
#: with it; the grid game's 35 and Mage Knight's, whose games' arrays stay in the
#: cache from one step to the next, 1.04-1.06x with it: docs/performance_log.md)
_AHEAD_CELLS = 256


@njit(nogil=True, inline="always")
def _fetches_ahead(ans_cell):
    return ans_cell.shape[1] * ans_cell.shape[2] >= _AHEAD_CELLS


@njit(nogil=True, **NO_NRT)
def _fetch_ahead(ans_cell, ans_cost, ans_stop, ans_n, rows, n_rows, actor, batch, b,
                 whole):
    """Hints (:func:`movecore.kernels._prefetch.prefetch`) that game ``b``'s acting
    figure's usable rows (``rows[b, :n_rows[b]]``) and its answer's cells (its first
    ``ans_n[b, k]``; ``ans_n`` None: all N) and, where ``whole``, also its costs and
    stops will be read soon: the first reads of a game's answer in
    a step miss the cache (a step's games, 2-25 KiB each, are a pass over L2 or more
    apart), and the loop over the games issues them for the next game while it works
    on this one. No value changes."""
    f = actor[b]
    if f < 0:
        return
    k = f if batch else 0
    rb = rows[b]
    for i in range(0, n_rows[b], 8):           # (int64: 8 a line)
        prefetch(rb, i)
    ac = ans_cell[b, k]
    n = ac.shape[0] if ans_n is None else ans_n[b, k]
    for i in range(0, n, 16):                  # (int32: 16 a line)
        prefetch(ac, i)
    if whole:
        ak = ans_cost[b, k]
        ast = ans_stop[b, k]
        for i in range(0, n, 16):
            prefetch(ak, i)
        for i in range(0, n, 64):
            prefetch(ast, i)


@njit(nogil=True, **NO_NRT)
def _fetch_game(occ, ans_cell, ans_cost, ans_stop, ans_n, b):
    """Hints (:func:`movecore.kernels._prefetch.prefetch`) that game ``b``'s occupancy
    row ``occ[b]`` (int32[N]) and its answers (every slot's cells, costs and stops up
    to its last count ``ans_n[b, k]``) will be read or written soon: its queries read
    the row a cell at a time and write the answers, its moves and observation read
    them, and where a game's arrays are large they are evicted by the other games'
    between one step and the next (Tiny Epic Tactics: the row's 9 lines, answers of 6 x
    140 cells; :func:`env_chunk` issues it for the next game where ``S[27]``,
    ``vector._FETCH_GAME``). No value changes."""
    o = occ[b]
    for i in range(0, o.shape[0], 64 // o.itemsize):   # (a line each)
        prefetch(o, i)
    for k in range(ans_cell.shape[1]):
        n = ans_n[b, k]
        ac, ak, ast = ans_cell[b, k], ans_cost[b, k], ans_stop[b, k]
        for i in range(0, n, 64 // ac.itemsize):
            prefetch(ac, i)
            prefetch(ak, i)
        for i in range(0, n, 64 // ast.itemsize):
            prefetch(ast, i)


@njit(cache=True, nogil=True, **NO_NRT)
def env_chunk(S, G, R, O, Z, V, K, mode, actions, illegal, out, pending, results, obs, mask,
              mask_out, lo, hi):
    """A whole env step of games ``lo <= b < hi``, in one call per thread: the game's
    move (``mode[b]``: 1 played, 2 restarted, 0 not played, its action illegal:
    ``illegal[b]``, its game ended ``ILLEGAL``; :data:`LEFT`: the game, its results,
    observation and mask left as they are: a same-step autoreset's restarts, the other
    games; its random numbers drawn here from its
    own stream, ``R[0]``), its reward and ends (``results`` =
    ``(illegal_reward, reward, term, trunc, done)``), its observation and mask (``obs``:
    float32[B, C * HW], ``mask``: int8[B, A]; ``V``, ``K``: :func:`observe`'s view and
    kept arguments: ``obs`` is the kept buffer, updated where it changed, or with ``K``
    empty a new array drawn whole, ``copy=True``'s: that costs less than updating the
    kept buffer and copying it) and the mask's copy (``mask_out``: int8[B, A]): nothing
    of a step is left to the calling thread but the hand-off.

    Its compile time: Numba inlines an ``inline="always"`` helper by copying the
    helper's IR block by block, each block with the helper's whole variable scope, so a
    copy costs about blocks x variables, and a helper that holds other inlined helpers
    is copied with all of them. The game's move is therefore written here, not as a
    helper (inlined, its 306 blocks x 3,707 variables were ~40% of a cold compile:
    ~33 CPU s before, ~19 s now, docs/performance_log.md), and ``_advance`` (``Match._advance`` after a restart, an ended
    turn or a move that did not end the game: two kernel calls) is written once, in the
    loop: four copies cost ~60 s. ``_play`` keeps its two calls (the learner's move, each
    opponent's): one call at the top of the loop compiled ~2 s faster but made Mage
    Knight's env step ~1.5% slower. ``_answer`` (a figure's ends, at ``_advance``'s two
    kernel calls) is a call of its own, compiled once: inlined, its two copies cost ~11
    CPU s of a cold compile (45 -> 34 s), and the env step read the same as inlined
    (0.96-1.00x, docs/performance_log.md)."""
    illegal_reward, reward, term, trunc, done = results
    (occ, cell, alive, team, side_of, turn_sides, n_all, max_turns, batch, turn, side,
     nxt, actor, over, moved, member, rows, n_rows, taken, n_tk, mtaken, tstart,
     tteam) = G
    rng, nbr, learner, removed = R
    F = cell.shape[1]
    P, end_turn = V[11], V[12]
    ahead = _fetches_ahead(S[15])
    # The chunk in blocks of _BLOCK games: each block's moves, then its observations
    for b0 in range(lo, hi, _BLOCK):
        b1 = min(b0 + _BLOCK, hi)
        left = False
        for b in range(b0, b1):
            m = mode[b]
            if m == LEFT:
                left = True
                continue
            if ahead and b + 1 < hi and mode[b + 1] == 1:   # (the next learner's row)
                # (np.bool_: a literal False would be a second signature beside the
                # test's and observe's; tests/conftest.py's literal-twin check)
                _fetch_ahead(S[15], S[16], S[17], S[18], rows, n_rows, actor, batch, b + 1,
                             np.bool_(False))
            if S[27] and b + 1 < hi:        # (the next game's board and answers)
                _fetch_game(S[11], S[15], S[16], S[17], S[18], b + 1)
            if illegal[b]:
                over[b] = ILLEGAL
            if m != 0:
                # game b's move: the learner's move ``actions[b]`` (m = 1: legal, the
                # caller checked; its end turn empties the queue) or a new episode
                # (m = 2: the game back to the root, ``Z``), then the opponents play as
                # ``MovecoreGym._opponents`` until the learner is to act or the game is
                # over (``out[b]``: the learner's figures all removed); the learner's
                # reward accumulates in ``pending[b]``.
                if m == 2:
                    _restart(G, R, Z, b, out, pending)
                else:
                    a = actions[b]
                    if a == end_turn:
                        nxt[b] = F                  # the queue emptied: the next turn
                        removed[b] = False
                    else:
                        k = actor[b] if batch else 0
                        place = a % P
                        r = -1
                        for i in range(n_rows[b]):
                            if S[15][b, k, rows[b, i]] == place:
                                r = rows[b, i]
                                break
                        pending[b] += _play(S, G, R, b, r)
                while True:
                    if over[b] == 0:
                        _advance(S, G, b)
                    if not (over[b] == 0 and side[b] != learner):
                        break
                    if removed[b] and not _side_in_play(alive, side_of, b, learner):
                        out[b] = True
                        break
                    r = _pick(S, G, R, O, b)
                    pending[b] += _play(S, G, R, b, r)
            _result(b, mode, illegal, illegal_reward, pending, over, out, reward, term,
                    trunc, done)
        # The block's observations and masks in a second pass: in one loop with the
        # moves, each game's observation writes (2-10 KiB) evicted the board, the
        # kernel's workspace and the answers from the cache between one game's queries
        # and the next's (docs/performance_log.md: 0.84-0.96x the step's CPU); after the
        # whole chunk's moves, the answers and rows the pass reads were evicted by then.
        # A call, not inlined: the step's register allocation then covers the moves
        # alone (fewer spills in the giant loop; docs/performance_log.md, "... the
        # observation pass out of line")
        if not left:
            observe(obs, mask, mask_out, G, V, K, b0, b1)
            continue
        i = b0          # (the runs of games not left as they are)
        while i < b1:
            j = run_end(mode, i, b1)
            if j > i:
                observe(obs, mask, mask_out, G, V, K, i, j)
            i = j + 1
    return 0


@njit(nogil=True, inline="always")
def _put(o, HW, c, h, v, drawn, b, n):
    """``o[c * HW + h] = v``, the place recorded in ``drawn[b, n]`` (when kept)."""
    k = c * HW + h
    o[k] = v
    if drawn.shape[0] > 0:
        drawn[b, n] = k
    return n + 1


@njit(cache=True, nogil=True, **NO_NRT)
def observe(obs, mask, mask_out, G, V, K, lo, hi):
    """The learner's observation ``obs[b]`` (float32[C * HW]: ``spaces.encode``'s planes)
    and action mask ``mask[b]`` (int8[A]) of games ``lo <= b < hi``, and the mask's copy
    ``mask_out[b]`` (int8[B, A]; shape ``(0, A)``: none), from the arrays
    ``G`` and the view ``V`` = ``(base, ans_cell, ans_cost, ans_stop, lead, fig_side,
    n_sides, learner, d, max_turns, valid, P, end_turn, slot_of)``: ``base``
    (float32[C * HW]) holds the static planes and the game's constant planes (the rest
    is written here); ``d`` is the first plane after the side planes (``acting``).
    ``K`` = ``(drawn, n_drawn, oturn, row)``.

    Two ways, the same observation:

    * from scratch (``drawn`` empty, shape ``(0, 0)``): ``obs[b]`` is ``base`` with every
      dynamic entry written; with a scratch ``row`` (float32[C * HW], this thread's;
      empty: none) each game's is composed there (in the cache) and streamed into
      ``obs[b]`` (``kernels._stream.stream_copy``: a new array's lines neither read
      first nor kept in the cache; docs/performance_log.md, "streamed observations");
    * kept (``drawn``: int32[B, 2F + 1 + 3N], ``n_drawn``, ``oturn``: int64[B]):
      ``obs[b]`` is what this call drew last time, which holds ``base`` but at the
      ``n_drawn[b]`` places listed in ``drawn[b]`` (the side, acting, moved and reach
      planes: zero in ``base``) and on the turn plane, last drawn for turn
      ``oturn[b]`` (-1: never). Those places are zeroed, the new ones written and
      listed, the turn plane rewritten only when the turn changed: a step costs the
      places that change, not the ``C * HW`` floats. The caller starts a kept buffer
      as ``base`` with ``n_drawn = 0`` and ``oturn = -1``, and writes nothing else into
      it (``tests/test_rl_vector.py`` checks it against the draw from scratch after
      every step).
    """
    drawn, n_drawn, oturn, row = K
    copy = mask_out.shape[0] > 0
    stream = drawn.shape[0] == 0 and row.shape[0] > 0
    rows, n_rows, actor, batch = G[16], G[17], G[12], G[8]
    ahead = _fetches_ahead(V[1])
    for b in range(lo, hi):
        if ahead and b + 1 < hi:
            _fetch_ahead(V[1], V[2], V[3], None, rows, n_rows, actor, batch, b + 1,
                         np.bool_(True))
        _observe_game(row if stream else obs[b], mask[b], b, G, V, drawn, n_drawn,
                      oturn)
        if stream:
            stream_copy(obs[b], row)
        if copy:
            mk, mo = mask[b], mask_out[b]
            for j in range(mk.shape[0]):
                mo[j] = mk[j]
    if stream:
        store_fence()
    return 0


@njit(nogil=True, inline="always")
def _observe_game(o, mk, b, G, V, drawn, n_drawn, oturn):
    """Game ``b``'s observation ``o`` and mask ``mk`` (:func:`observe`)."""
    (occ, cell, alive, team, side_of, turn_sides, n_all, max_turns_, batch, turn, side,
     nxt, actor, over, moved, member, rows, n_rows, taken, n_tk, mtaken, tstart,
     tteam) = G
    (base, ans_cell, ans_cost, ans_stop, lead, fig_side, n_sides, learner, d, max_turns,
     valid, P, end_turn, slot_of) = V
    HW = valid.shape[0]
    C = base.shape[0] // HW
    F = cell.shape[1]
    S0 = d - n_sides
    kept = drawn.shape[0] > 0
    if kept:
        for i in range(n_drawn[b]):
            o[drawn[b, i]] = 0.0
    else:
        for j in range(C * HW):
            o[j] = base[j]
    n = 0
    for f in range(F):
        if alive[b, f]:
            rel = (fig_side[f] - learner) % n_sides
            h = lead[f, cell[b, f]]
            if h >= 0:
                n = _put(o, HW, S0 + rel, h, 1.0, drawn, b, n)
    for j in range(mk.shape[0]):
        mk[j] = 0
    f = actor[b]
    if over[b] == 0 and f >= 0 and side[b] == learner:
        n = _put(o, HW, d, lead[f, cell[b, f]], 1.0, drawn, b, n)
        for g in range(F):
            if moved[b, g] and alive[b, g]:
                n = _put(o, HW, d + 1, lead[g, cell[b, g]], 1.0, drawn, b, n)
        k = f if batch else 0
        nr = n_rows[b]
        top = 0
        for i in range(nr):
            c = ans_cost[b, k, rows[b, i]]
            if c > top:
                top = c
        scale = 1.0 / top if top > 0 else 1.0
        base_a = slot_of[f] * P
        for i in range(nr):
            r = rows[b, i]
            c = ans_cell[b, k, r]
            h = lead[f, c]
            mk[base_a + c] = 1
            if h >= 0:
                n = _put(o, HW, d + 2, h, 1.0, drawn, b, n)
                n = _put(o, HW, d + 3, h, ans_cost[b, k, r] * scale, drawn, b, n)
                if ans_stop[b, k, r] != 0:
                    n = _put(o, HW, d + 4, h, 1.0, drawn, b, n)
        mk[end_turn] = 1
    if kept:
        n_drawn[b] = n
        if oturn[b] == turn[b]:
            return
        oturn[b] = turn[b]
    tf = np.float32(turn[b] / max_turns)
    # (a slice, not o[t0 + j]: Numba's wraparound of a sum it cannot prove non-negative
    # made this loop a scatter, one lane at a time)
    tp = o[(d + 5) * HW:(d + 6) * HW]
    for j in range(HW):
        tp[j] = valid[j] * tf


# --------------------------------------------------------------------------- self-play
# ``movecore selfplay --batch``'s compiled step (movecore.tools.selfplay_batch.BatchedPlay,
# array backend): every figure side played by the policy, one move per game per call.


_GOLDEN = 0x9E3779B97F4A7C15


@njit(nogil=True, inline="always")
def _uniform(key, i):
    """Double ``i`` in [0, 1) of the counter-based stream ``key``: splitmix64's output
    function of ``key + i * golden`` (the 53 high bits). A step's numbers are functions
    of (key, step, game, draw), so each thread draws its own games' inside its chunk
    and every thread count gives the same games."""
    z = np.uint64(key) + np.uint64(i) * np.uint64(_GOLDEN)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return np.float64(z >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True, nogil=True)
def selfplay_uniforms(key, tick, out):
    """``out[b, j]`` (float64[B, 3]): the numbers :func:`selfplay_step` draws for game
    ``b`` at step ``tick`` (the choice, the removal coin, which neighbour), as the
    array path of ``BatchedPlay.step`` reads them."""
    B = out.shape[0]
    for b in range(B):
        for j in range(3):
            out[b, j] = _uniform(key, (tick * B + b) * 3 + j)
    return 0


@njit(nogil=True, **NO_NRT)
def _selfplay_next_actor(cell, alive, side_of, turn_sides, movers, turn, actor, done,
                         max_turns, n_all_sides, b, new_turn, counts):
    """The next figure to move in game ``b`` (``BatchedPlay._next_actor``)."""
    F = cell.shape[1]
    n_turn = turn_sides.shape[0]
    for _ in range(n_turn + 1):
        if new_turn:
            if turn[b] >= max_turns or _n_sides(alive, side_of, n_all_sides, b) < 2:
                done[b] = True
                return
            counts[2] += 1              # a turn begun
        side = turn_sides[turn[b] % n_turn]
        nxt = -1
        for g in range(actor[b] + 1, F):
            if alive[b, g] and movers[g] and side_of[g] == side:
                nxt = g
                break
        if nxt >= 0:
            actor[b] = nxt
            return
        turn[b] += 1
        actor[b] = -1
        new_turn = True
    done[b] = True  # no side had a figure to move for a whole round


@njit(nogil=True, **NO_NRT)
def _selfplay_restart(occ, occ0, cell, cell0, alive, side_of, turn_sides, movers, turn,
                      actor, done, max_turns, n_all_sides, b, counts):
    """Game ``b``, finished, back at the root: its occupant row ``occ[b]`` = ``occ0``,
    its figures at ``cell0`` (in play where placed), turn 0, and its first actor found
    (:func:`_selfplay_next_actor`); ``counts[3]`` (games finished) and ``counts[2]``
    (turns begun) counted. What a self-play step does to every game that ended."""
    counts[3] += 1
    for c in range(occ.shape[1]):
        occ[b, c] = occ0[c]
    for g in range(cell.shape[1]):
        cell[b, g] = cell0[g]
        alive[b, g] = cell0[g] >= 0
    done[b] = False
    turn[b] = 0
    actor[b] = -1
    counts[2] += 1
    _selfplay_next_actor(cell, alive, side_of, turn_sides, movers, turn, actor, done,
                         max_turns, n_all_sides, b, False, counts)


@njit(inline="always")
def _play_move(occ, cell, alive, team, nbr, side_of, n_all_sides, key, at, b, f, pick,
               counts):
    """Game ``b``'s figure ``f`` moves to cell ``pick`` (its team leaves its cell in
    ``occ`` and takes the new one; ``counts[1]``: a move), and with its coin (draw
    ``at + 1`` of the stream ``key``) under 1/2 removes one adjacent enemy (draw
    ``at + 2``: :func:`_adjacent_enemy`). Returns True where that leaves fewer than two
    sides in play: the game is over at once. The self-play steps' move
    (:func:`selfplay_step`, Dark Realms' ``dark_realms_chunk``)."""
    occ[b, cell[b, f]] = OCC_EMPTY
    occ[b, pick] = team[f]
    cell[b, f] = pick
    counts[1] += 1
    if _uniform(key, at + 1) < 0.5:
        g = _adjacent_enemy(nbr, cell, alive, side_of, b, f, pick, _uniform(key, at + 2))
        if g >= 0:
            occ[b, cell[b, g]] = OCC_EMPTY
            cell[b, g] = -1
            alive[b, g] = False
            return _n_sides(alive, side_of, n_all_sides, b) < 2
    return False


@njit(cache=True, nogil=True, **NO_NRT)
def selfplay_step(blobs, blob_at, qflags, qflags_at, zoc, zoc_at, params, shape_of,
                  shape_cell, budget, occ, cell, alive, team, side_of, turn_sides, movers,
                  turn, actor, done, nbr, coords, kind, greedy, key, tick, n_steps,
                  max_turns, end_rules, one_figure, no_end, occ0, cell0, buf, ends, row,
                  dist, query, lo, hi, counts, kept, kept_n, kept_in):
    """``n_steps[0]`` steps (int64[1]) of the games ``lo <= b < hi`` of batched
    self-play. A step is one move in every unfinished game (legal ends less the
    layout's end rules (``end_rules``: ``one_figure`` cells another figure holds,
    ``no_end`` cells; Mage Knight), the policy's choice, the move, the removal coin, the
    next actor), then every finished game restarts from the root (``occ0``, ``cell0``).
    ``counts``: move generations, moves, turns begun, games finished (added to).
    ``kept``, ``kept_n``, ``kept_in``: :func:`kept_ends`' table (empty: none), read as
    the vector env's step reads it (:func:`_answer`: the kept search's ends wherever no
    other figure in play can change it, the cells of those that only drop an end
    dropped; else the kernel asked). The random numbers are drawn here, per game, from
    the counter-based stream ``key`` (:func:`selfplay_uniforms`), step ``s`` of the call
    at step ``tick[0] + s``: no draw is left to the calling thread, 1 and 2 threads play
    the same games, and one call of several steps plays what as many calls of one
    would (``BatchedPlay.steps``: every game is its own, so a thread's chunk may run
    its steps ahead of the other's, with one hand-off for them all)."""
    N = occ.shape[1]
    F = cell.shape[1]
    B = occ.shape[0]
    # (an int64 from the start: with the literal 0 Numba compiled the helpers
    # it is passed to a second time, for Literal[int](0))
    n_all_sides = np.int64(0)
    for f in range(F):
        n_all_sides = max(n_all_sides, side_of[f] + 1)
    for s in range(n_steps[0]):
        t = tick[0] + s     # the step: game b's draws _uniform(key, (t * B + b) * 3 + j)
        for b in range(lo, hi):
            if done[b]:
                continue
            f = actor[b]
            k = shape_of[f] + shape_cell[cell[b, f]]
            pk = params[k]
            start = cell[b, f]
            # the kept search's ends where no other figure changes it (as _answer)
            kr, use_kept, held = _kept_use(kept_n, kept_in, f, shape_cell[start], start, occ,
                                           pk, cell, alive, b)
            if use_kept:
                src = kept[kr, start]
                n = kept_n[kr, start]
            else:
                blob = blobs[blob_at[k]:blob_at[k + 1]]
                qf = qflags[qflags_at[k]:qflags_at[k + 1]]
                zc = zoc[zoc_at[k]:zoc_at[k + 1]]
                query[0, 0] = start
                query[0, 1] = budget[f]
                if is_plain(blob, qf, zc, pk):
                    n = reach1_plain(blob, occ[b], qf, zc, pk, buf, ends, query, 0, 0)
                else:
                    n = reach1_general(blob, occ[b], qf, zc, pk, buf, ends, query, 0, 0)
                src = ends
            counts[0] += 1                      # a move generation
            if n <= 0:
                n = 0
            # ---------------------------------------------------------- the policy
            for c in range(N):
                row[c] = 0
            for i in range(n):
                row[src[0, i]] = 1
            if held:        # the cells of figures that only drop an end (_held)
                for g in range(F):
                    if g != f and alive[b, g] and row[cell[b, g]] != 0 and _held(
                            kept_in, kr, start, occ, pk, b, cell[b, g]) == _HELD_NO_END:
                        row[cell[b, g]] = 0
                        n -= 1
            if end_rules:   # BatchLayout's one_figure and no_end (as BatchedGames)
                for g in range(F):
                    c = cell[b, g]
                    if g != f and alive[b, g] and c != start and one_figure[c] != 0 \
                            and row[c] != 0:
                        row[c] = 0
                        n -= 1
                for j in range(no_end.shape[0]):
                    c = no_end[j]
                    if c != start and row[c] != 0:
                        row[c] = 0
                        n -= 1
            at = (t * B + b) * 3            # (the game's draws: at, at + 1, at + 2)
            pick = _policy_pick(row, n, greedy, _uniform(key, at), dist, coords, cell,
                                alive, side_of, kind, b, side_of[f])
            # ---------------------------------------------------------- the move
            # (and the removal coin; fewer than two sides left: the game is over at once)
            if pick >= 0 and _play_move(occ, cell, alive, team, nbr, side_of, n_all_sides,
                                        key, at, b, f, pick, counts):
                done[b] = True
                continue
            # ---------------------------------------------------------- next actor
            _selfplay_next_actor(cell, alive, side_of, turn_sides, movers, turn, actor,
                                 done, max_turns, n_all_sides, b, False, counts)
        # ---------------------------------------------------------- autoreset
        for b in range(lo, hi):       # finished games restart from the root at once
            if not done[b]:
                continue
            _selfplay_restart(occ, occ0, cell, cell0, alive, side_of, turn_sides, movers, turn,
                              actor, done, max_turns, n_all_sides, b, counts)
    return 0


@njit(inline="always")
def victim_of(b, g, sp, adj, alive, side_of, n_all, rng, near):
    """Game ``b``'s removal victim of mover ``g`` (its coin came up): of the enemies
    in play next to a space of the mover (``sp`` int64[F, S] the game's figures'
    spaces, -1 none), in slot order, the ``int(u * n)``-th (one draw of the game's
    stream; none drawn where n = 0); ``near`` int64[>= F] scratch. Returns (the
    victim, -1 none; 1 where fewer than two sides are left in play without it). The
    numpy-driven env's (``_vecnp.victims``, ``_vecdescent.descent_play``): a figure
    may hold several spaces."""
    F, S = sp.shape[0], sp.shape[1]
    n = 0
    for j in range(F):
        if not alive[b, j] or side_of[j] == side_of[g]:
            continue
        hit = False
        for x in range(S):
            c = sp[g, x]
            if c < 0:
                continue
            for y in range(S):
                e = sp[j, y]
                if e >= 0 and adj[c, e]:
                    hit = True
        if hit:
            near[n] = j
            n += 1
    if n == 0:
        return -1, 0
    gone = near[int(_draw(rng, b) * n)]
    sides = 0
    for k in range(n_all):
        for j in range(F):
            if alive[b, j] and j != gone and side_of[j] == k:
                sides += 1
                break
    return gone, int(sides < 2)
