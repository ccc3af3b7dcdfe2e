"""The compiled self-play step of Heroscape's batched arrays backend.

:class:`movecore.tools.selfplay_batch.BatchedPlay` runs this step on Heroscape's arrays
(:mod:`movecore.games.heroscape._batch`): per game, in one compiled call per thread
(:func:`step_kernel`, compiled without reference counts; the games' moves in
:func:`_games`, inlined into it), the acting figure's legal ends -- a one-space figure's from its kind's packed
query on the game's occupant row (as bit sets over the padded grid where the query
allows: :func:`movecore.games.heroscape._bits.one_bits`, the kernel's answer; else
the kernel), with its kind's stop codes (or, where no figure but friends it passes stands within its reach -- a figure
reached only at the budget counts as out of it -- from its kind's kept ends on the
empty battlefield less the figures' spaces: :func:`movecore.games.heroscape._kept.kept_tables`); a two-space
figure's from the layout's compiled call (a walker with no one but friends in reach:
its kind's kept ends too, ``_batch_doubles.walker_near``, also with an enemy in reach
where no space next to one is, and with figures at the budget: ``walker_far``)
(:func:`movecore.games.heroscape._batch_doubles.doubles_kernel`, linked in, with
scratch of its own per thread; one call for all the chunk's two-space games, before
their moves: ``DOUBLES_AT_ONCE``) -- written into the game's row of the step's dense
answer (``BatchedPlay._out``: what ``BatchedGames.legal_moves`` answers), the policy's
choice (:func:`movecore.rl._vecgame._policy_pick`'s: the k-th legal end in place order,
found by blocks of places, :func:`_kth_set`;
greedy: the k-th of those nearest to an enemy, over both spaces of a two-space figure
and of the enemies), the move with its engagement codes (the codes of the figures next
to the old and the new spaces written again: ``_batch._move_one``), the removal coin
(one enemy touching either space of the mover, the k-th in slot order, taken off with
the same rewrite), the next actor, and the restart of finished games from the root.
Its random numbers are the counter-based stream's
(:func:`movecore.rl._vecgame.selfplay_uniforms`), drawn inside each thread's chunk, so 1
and 2 threads play the same games, and it makes exactly the choices of
``BatchedPlay.step``'s array path (``fused=False``) for the same numbers
(``tests/test_batch_heroscape.py``).

Self-play asks no leaving attacks (``legal_moves(penalty=)``): a flyer's take-off, the
one query the array backend answers on a live position, never runs here.
"""
from __future__ import annotations


import numpy as np
from numba import njit

from ..batch import per_thread, summed
from ..games.heroscape._batch import _move_one, _near, _spaces
from ..games.heroscape._bits import bit_tables, query_ends, scratch_words
from ..games.heroscape._batch_doubles import (BREAK_KEPT_WALKERS, BREAK_LEAVE_FAR,
                                              NO_FIGURES_FAR, NO_KEPT_WALKERS,
                                              NO_LEAVE_FAR, NO_PACKED_KEPT, NO_PAIR_BITS,
                                              NO_PLAIN_UNASKED)
from ..games.heroscape._kept import kept_clear, kept_tables
from ..kernels import _types as T
from ..kernels._jit import NO_NRT, once
from ..kernels._types import CACHE
from ..kernels.batch import _clear_row
from ._chunks import run_chunks
from ..rl._vecgame import (_grid_distance, _n_sides, _policy_pick,
                           _selfplay_next_actor, _selfplay_restart, _uniform)

#: the rules of the step, one bit each; all on. The differential test turns each off
#: and sees the step leave the array path (tests/test_batch_heroscape.py).
NEIGHBOUR_CODES = 1     # a move rewrites the codes of the figures next to either place
REMOVAL_SPACES = 2      # the removal coin's victims touch either space of the mover
GREEDY_SPACES = 4       # greedy distances over both spaces (the end's and the enemy's)
#: a fast path, not a rule (off: the same answers, from the kernel): a one-space
#: figure with no figure but passable friends within its reach takes its kind's ends
#: from its start on the empty battlefield, less the figures' spaces (kept_tables)
KEPT_ENDS = 8
#: fast paths too (off: the answers of the step before them, for A/B runs): the kept
#: ends with figures at the budget's least cost (off: beyond the budget only;
#: kept_tables' kept_far), and the two-space walkers' kept ends (off: their plain
#: query; _batch_doubles.walker_near)
KEPT_FAR = 128
KEPT_WALKERS = 256
#: a fast path too (off: one call a game, the step before it, for A/B runs): the
#: two-space figures' ends of all the chunk's games in one call before its moves (a
#: game's ends read its own row alone, which no other game's move writes), not one call
#: a game: a call of the layout's compiled function costs ~2 us of its own (its ~50
#: arguments, its scratch), about what a Raelin answer costs
DOUBLES_AT_ONCE = 512
#: a fast path too (off: the step before it, for A/B runs): a two-space walker takes
#: its kept ends with a figure at the budget's least cost, and with an enemy in reach
#: for leaving attacks where no space next to an enemy is in its reach below the
#: budget (its penalty search is then its plain query); _batch_doubles.walker_far
WALKER_FAR = 1024
#: a fast path too (off: the kernel, for A/B runs and the differential): a one-space
#: figure's query as bit sets over the padded grid where its kind's query allows
#: (:func:`movecore.games.heroscape._bits.one_bits`: the same ends, costs and stops
#: as ``reach1_general``)
ONE_BITS = 2048
#: a fast path too (off: ``_vecgame._policy_pick``'s scan, for A/B runs): the policy's
#: k-th end found by blocks of 64 places counted first (:func:`_kth_set`)
KTH_BLOCKS = 4096
#: a fast path too (off: the two-space call's four rows of kept ends, for A/B runs):
#: the kept ends from their packed row (_batch_doubles.NO_PACKED_KEPT off)
PACKED_KEPT = 8192
#: fast paths too (off: the call's path before each, for A/B runs): a two-space walker
#: with an enemy in reach answered by its plain query (or kept ends), not its penalty
#: search, since self-play asks no leaving attacks (_batch_doubles.NO_PLAIN_UNASKED
#: off: the same ends, costs, stops and listed placements), and that plain query as
#: bit-set layers (_bits2.pair_bits; NO_PAIR_BITS off)
PLAIN_UNASKED = 1 << 16
PAIR_BITS = 1 << 17
RULES = NEIGHBOUR_CODES | REMOVAL_SPACES | GREEDY_SPACES | KEPT_ENDS | KEPT_FAR | \
    KEPT_WALKERS | DOUBLES_AT_ONCE | WALKER_FAR | ONE_BITS | KTH_BLOCKS | PACKED_KEPT | \
    PLAIN_UNASKED | PAIR_BITS
#: the kept ends' rule broken, for the tests that see the differential fail: friends'
#: spaces kept as ends; kept ends taken whoever stands within reach
BREAK_FRIENDS = 16
BREAK_REACH = 32
#: ... and figures one cost nearer than the budget taken for far (kept_far - 1)
BREAK_FAR = 64
#: (timing only: wrong answers) every two-space walker takes its kept ends whoever
#: stands in reach (the call's BREAK_KEPT_WALKERS | BREAK_LEAVE_FAR): what a move
#: would cost if a walker's searched answer cost what its kept ends do
#: (benches/heroscape_search_bound.py)
NO_WALKER_SEARCH = 1 << 15

_DK = None   # the two-space figures' compiled call, linked in by step_kernel()
EMPTY = T.OCC_EMPTY


@njit(nogil=True, **NO_NRT)
def _touching_enemy(adj, cell, alive, side_of, double, lead, trail, b, f, r, both):
    """The removal coin's victim in game ``b``: the k-th figure (slot order) in play,
    not of figure ``f``'s side, with a space next to one of ``f``'s (both spaces of a
    two-space figure: ``both``; else its first; neighbours by the layout's
    ``_batch.adjacency_bits`` ``adj``), for ``r`` uniform in [0, 1); -1: none
    touches it. (:func:`movecore.rl._vecgame._adjacent_enemy` over places of two
    spaces, as ``BatchedPlay._remove_near``.)"""
    a0, a1 = _spaces(cell, double, lead, trail, b, f)
    if not both:
        a1 = -1
    n_near = 0
    want = np.int64(-1)
    for sweep in range(2):
        seen = 0
        for g in range(cell.shape[1]):
            if not alive[b, g] or side_of[g] == side_of[f]:
                continue
            x0, x1 = _spaces(cell, double, lead, trail, b, g)
            hit = False
            for a in range(2):
                c = a0 if a == 0 else a1
                if c >= 0 and (_near(adj, c, x0) or (x1 >= 0 and _near(adj, c, x1))):
                    hit = True
            if not hit:
                continue
            if sweep == 0:
                n_near += 1
            else:
                if seen == want:
                    return g
                seen += 1
        if sweep == 0:
            if n_near == 0:
                return -1
            want = np.int64(r * n_near)
    return -1


@njit(nogil=True, **NO_NRT)
def _place_distance(coords, kind, cell, alive, side_of, double, lead, trail, b, f, p, both):
    """The least grid distance from place ``p`` of figure slot ``f`` (its spaces) to a
    space of a figure in play not of ``f``'s side (1 << 40: none), as
    ``BatchedPlay._greedy_spaces`` (``both``: over both spaces; else the first)."""
    if double[f]:
        a0, a1 = lead[p], trail[p]
    else:
        a0, a1 = np.int64(p), np.int64(-1)
    if not both:
        a1 = -1
    d = np.int64(1) << 40
    for g in range(cell.shape[1]):
        if not alive[b, g] or side_of[g] == side_of[f]:
            continue
        x0, x1 = _spaces(cell, double, lead, trail, b, g)
        if not both:
            x1 = -1
        for a in range(2):
            c = a0 if a == 0 else a1
            if c < 0:
                continue
            for e in range(2):
                x = x0 if e == 0 else x1
                if x >= 0:
                    d = min(d, _grid_distance(coords, kind, c, x))
    return d


@njit(nogil=True, inline="always")
def _kth_set(row, n, r):
    """``_vecgame._policy_pick``'s random pick (``greedy`` False): of the ``n`` legal
    ends of ``row`` (uint8[P], each 0 or 1), the ``int(r * n)``-th in place order (-1
    where ``n`` is 0). The places are counted by blocks of 64 first (a sum LLVM
    vectorizes), then the block holding it scanned: a two-space figure's row is P =
    746 places on the bench's battlefield, whose ends lie anywhere in it, and the scan
    place by place (a branch at each) was a good part of the step's own code."""
    if n <= 0:
        return np.int64(-1)
    want = np.int64(r * n)
    P = row.shape[0]
    seen = np.int64(0)
    base = 0
    while base + 64 <= P:
        k = np.int64(0)
        for i in range(64):
            k += row[base + i]
        if seen + k > want:
            break
        seen += k
        base += 64
    for c in range(base, P):
        if row[c] != 0:
            if seen == want:
                return np.int64(c)
            seen += 1
    return np.int64(-1)


@njit(nogil=True, inline="always")
def _games(S, M, Q, K, occ, cell, alive, mask, cost, stop, buf, ends, query, dist, best,
           near, lay, lo, hi, counts, n_all_sides, t):
    """The step's games ``lo <= b < hi`` (``heroscape_step``'s arguments; ``t`` the
    step, whose random numbers game ``b`` draws; returns 0 or a kernel status < 0) but
    their restarts, their two-space figures' ends already in
    their rows (the caller runs the layout's call). Inlined (Numba IR) into the step,
    which is compiled without Numba's reference counts (it allocates nothing; the
    caller keeps every array alive): with them, each game's views (the kernel's five
    arguments, the policy's row) and each inlined helper handed an array (the row
    clear, the kept ends' test, the policy, the draws) counted their arrays at every
    game, ~10% of a ``BatchedPlay`` move's samples. Inlined, not a compiled function of
    its own: Numba optimizes a callee's module and makes its machine code on its own,
    then again inside its caller's, ~0.6 s of a cold compile (docs/performance_log.md)."""
    (blobs, blob_at, qflags, qflags_at, zoc, zoc_at, params, shape_of, shape_cell,
     budget, stop_code, Z) = S
    double, lead, trail, team, height, level, adj, n_teams, master = M
    (side_of, turn_sides, movers, turn, actor, done, nbr, coords, kind, greedy, key,
     tick, n_steps, max_turns, occ0, cell0, rules) = Q
    kept_at, kept_code, kept_ptr, kept, near_k, kept_far = K
    use_kept = (rules & KEPT_ENDS) != 0
    keep_friends = (rules & BREAK_FRIENDS) != 0
    any_figure = (rules & BREAK_REACH) != 0
    edge_near = (rules & BREAK_FAR) != 0
    at_far = (rules & KEPT_FAR) != 0
    bits = (rules & ONE_BITS) != 0
    rewrite = (rules & NEIGHBOUR_CODES) != 0
    both_r = (rules & REMOVAL_SPACES) != 0
    both_g = (rules & GREEDY_SPACES) != 0
    N = occ.shape[1]
    B = occ.shape[0]
    P = mask.shape[1]
    # (step t: game b's draws are _uniform(key, (t * B + b) * 3 + j))
    gone = np.int64(-1)     # (a removal's place; not a literal: one compile)
    for b in range(lo, hi):
        # ------------------------------------------------------ the legal ends
        if done[b] or not double[actor[b]]:   # (a two-space figure's: the caller's)
            _clear_row(mask, cost, stop, b)   # (as BatchedGames answers)
        if done[b]:
            continue
        f = actor[b]
        start = np.int64(cell[b, f])
        counts[0] += 1                      # a move generation
        n = 0
        ka = np.int64(-1)
        if double[f]:           # the layout's compiled call answered it (the caller)
            for a in range(P):
                n += mask[b, a]
        elif use_kept:
            ka = kept_at[f]
            if ka >= 0 and occ[b, start] != kept_code[ka]:
                ka = -1                     # (engaged: a wall to its friends)
            if ka >= 0:
                # no figure nearer than the budget but friends it passes (their
                # code, the mover's own: not engaged)? the search reads no cell
                # farther, and one at the budget ends it (kept_tables), so it is
                # the empty battlefield's but for the figures' spaces, which it
                # passes (friends) or which end it there (the rest) and may not
                # end on
                far = (kept_far[ka] if at_far else budget[f] + 1) - \
                    (1 if edge_near else 0)
                if not any_figure and not kept_clear(
                        near_k, ka * N + start, far, kept_code[ka], occ, cell,
                        double, lead, trail, alive, b, f):
                    ka = -1
        if not double[f] and ka >= 0:   # the kept ends, less the friends' spaces
            counts[4] += 1
            sh = shape_of[f]
            at = ka * N + start
            for e in range(kept_ptr[at], kept_ptr[at + 1]):
                c = kept[0, e]
                if c != start and occ[b, c] != EMPTY and not keep_friends:
                    continue
                n += 1
                mask[b, c] = 1
                cost[b, c] = kept[1, e]
                if kept[2, e] != 0:
                    stop[b, c] = stop_code[sh, c]
        elif not double[f]:     # its kind's packed query on the game's row
            sh = shape_of[f] + shape_cell[start]
            m = query_ends(S, sh, occ[b], start, budget[f], buf, ends, query, lay, bits)
            if m < 0:
                return m
            for i in range(m):
                c = ends[0, i]
                if mask[b, c] == 0:
                    n += 1
                mask[b, c] = 1
                cost[b, c] = ends[1, i]
                if ends[2, i] != 0:
                    stop[b, c] = stop_code[sh, c]
        # ------------------------------------------------------ the policy
        s = side_of[f]
        row = mask[b]
        if greedy and n > 0:    # the nearest ends, then one of them as random picks
            low = np.int64(1) << 40
            n_low = 0
            for a in range(P):
                if mask[b, a] == 0:
                    continue
                d = _place_distance(coords, kind, cell, alive, side_of, double, lead,
                                    trail, b, f, a, both_g)
                dist[a] = d
                if d < low:
                    low = d
                    n_low = 0
                if d == low:
                    n_low += 1
            for a in range(P):
                best[a] = 1 if mask[b, a] != 0 and dist[a] == low else 0
            row = best
            n = n_low
        r = _uniform(key, (t * B + b) * 3)
        if (rules & KTH_BLOCKS) != 0:
            pick = _kth_set(row, n, r)
        else:
            pick = _policy_pick(row, n, False, r, dist, coords, cell, alive, side_of,
                                kind, b, s)
        # ------------------------------------------------------ the move
        if pick >= 0:
            _move_one(occ, cell, alive, b, f, pick, near, rewrite, double, lead,
                      trail, team, height, level, adj, n_teams, master)
            counts[1] += 1
            if _uniform(key, (t * B + b) * 3 + 1) < 0.5:   # remove a touching enemy
                g = _touching_enemy(adj, cell, alive, side_of, double, lead, trail,
                                    b, f, _uniform(key, (t * B + b) * 3 + 2), both_r)
                if g >= 0:
                    _move_one(occ, cell, alive, b, g, gone, near, rewrite, double,
                              lead, trail, team, height, level, adj, n_teams,
                              master)
                    # fewer than two sides left: the game is over at once
                    if _n_sides(alive, side_of, n_all_sides, b) < 2:
                        done[b] = True
                        continue
        # ------------------------------------------------------ next actor
        _selfplay_next_actor(cell, alive, side_of, turn_sides, movers, turn, actor,
                             done, max_turns, n_all_sides, b, False, counts)
    return 0


@once
def step_kernel():
    """The compiled step (compiled, or loaded from Numba's cache, on first use; the
    two-space figures' call linked in as a global, as ``doubles_kernel`` links the
    penalty kernel; without Numba's reference counts: the step allocates nothing, the
    two-space call, which allocates, counts its own).

    ``heroscape_step(S, M, Q, K, occ, cell, alive, mask, cost, stop, buf, ends, query,
    D, one, dist, best, near, lay, lo, hi, counts)``: games ``lo <= b < hi``. ``S`` = the
    one-space kinds' packed queries (``blobs, blob_at, qflags, qflags_at, zoc, zoc_at,
    params, shape_of, shape_cell, budget, stop_code``: ``BatchedGames``'; then ``Z``,
    their bit tables: :func:`movecore.games.heroscape._bits.bit_tables`); ``M`` = the
    move's constants (``double, lead, trail, team, height, level, adj, n_teams,
    master``: the layout's; ``adj``: ``_batch.adjacency_bits``); ``Q`` = the play (``side_of, turn_sides, movers, turn,
    actor, done, nbr, coords, kind, greedy, key, tick, n_steps, max_turns, occ0, cell0,
    rules``); ``K`` = the layout's kept ends (:func:`movecore.games.heroscape._kept.kept_tables`);
    ``mask``, ``cost``, ``stop`` (uint8/int32/int8[B, P]): each game's legal
    ends, written; per thread: the kernel's ``buf`` and ``ends``, ``query`` int64[1, 3],
    ``D`` (the two-space call's arguments: ``_batch`` ``doubles()``), ``one`` (three
    int64[hi - lo]: its rows, figures, budgets), scratch ``dist`` int64[P], ``best`` uint8[P],
    ``near`` bool[F], ``lay`` uint64 (``_bits.scratch_words``); ``counts`` int64[5]: move generations, moves, turns begun, games
    finished, generations answered from the kept ends (added to). Returns 0 or a kernel status < 0."""
    from ..games.heroscape import _batch_doubles
    global _DK
    _DK = _batch_doubles.doubles_kernel()
    # (an edit of what is linked or inlined here recompiles this one: movecore's cache
    # stamp follows the modules this one imports at its level, and their imports, and
    # every kernel file; ``movecore._dependency_files``)

    @njit(cache=CACHE, nogil=True, **NO_NRT)
    def heroscape_step(S, M, Q, K, occ, cell, alive, mask, cost, stop, buf, ends, query,
                       D, one, dist, best, near, lay, lo, hi, counts):
        budget = S[9]
        double = M[0]
        (side_of, turn_sides, movers, turn, actor, done, nbr, coords, kind, greedy, key,
         tick, n_steps, max_turns, occ0, cell0, rules) = Q
        rows1, figs1, bud1 = one
        walkers = (0 if (rules & KEPT_WALKERS) != 0 else NO_KEPT_WALKERS) | \
            (0 if (rules & WALKER_FAR) != 0 else NO_LEAVE_FAR | NO_FIGURES_FAR) | \
            (0 if (rules & PACKED_KEPT) != 0 else NO_PACKED_KEPT) | \
            (0 if (rules & PLAIN_UNASKED) != 0 else NO_PLAIN_UNASKED) | \
            (0 if (rules & PAIR_BITS) != 0 else NO_PAIR_BITS) | \
            (BREAK_KEPT_WALKERS | BREAK_LEAVE_FAR if (rules & NO_WALKER_SEARCH) != 0
             else 0)
        F = cell.shape[1]
        no_pen = cost[:0, :0]   # (no penalty rows asked: an empty view, no allocation)
        # (an int64 from the start, not the literal 0: Numba types the call of _games
        # with the literal first and compiled all of it a second time for it)
        n_all_sides = np.int64(0)
        for g in range(F):
            n_all_sides = max(n_all_sides, side_of[g] + 1)
        at_once = (rules & DOUBLES_AT_ONCE) != 0
        for s in range(n_steps[0]):     # (step tick[0] + s: BatchedPlay.steps)
            t = tick[0] + s
            b = lo
            while b < hi:
                # the two-space figures' ends first: the chunk's games in one call
                # (each game's from its own rows, which no other game's move writes),
                # or without at_once (the step before it) one call a game, right
                # before its move; then the games' moves (one call site each: each is
                # linked in whole)
                e = hi if at_once else b + 1
                nd = 0
                for g in range(b, e):
                    if done[g] or not double[actor[g]]:
                        continue
                    _clear_row(mask, cost, stop, g)
                    rows1[nd] = g
                    figs1[nd] = actor[g]
                    bud1[nd] = budget[actor[g]]
                    nd += 1
                if nd > 0:
                    st_ = _DK(occ, cell, alive, rows1[:nd], figs1[:nd], bud1[:nd], *D,
                              mask, cost, stop, no_pen, walkers)
                    if st_ < 0:
                        return st_
                st_ = _games(S, M, Q, K, occ, cell, alive, mask, cost, stop, buf, ends,
                             query, dist, best, near, lay, b, e, counts, n_all_sides, t)
                if st_ < 0:
                    return st_
                b = e
            # ---------------------------------------------------------- autoreset
            for b in range(lo, hi):   # finished games restart from the root at once
                if not done[b]:
                    continue
                _selfplay_restart(occ, occ0, cell, cell0, alive, side_of, turn_sides,
                                  movers, turn, actor, done, max_turns, n_all_sides, b,
                                  counts)
        return 0

    return heroscape_step


def step(play, kind: int, k: int = 1) -> int:
    """``BatchedPlay``'s step on Heroscape's arrays (``play.fused``): one compiled call
    per thread (``--threads`` chunks of the batch on the engine's thread pool), of ``k``
    steps (``BatchedPlay.steps``). ``kind``: the grid distance code (hex: 0)."""
    G = play.games
    fz = getattr(play, "_fz", None)
    if fz is None:
        sp = G._selfplay
        n_chunks = len(G._bufs)
        B, P, F = play.B, G.n_places, G.F
        counts = per_thread(n_chunks, (5,), np.int64)
        N = G.occ.shape[1]
        stop_code = np.zeros((len(G._params), N), np.int8) if G._stop_code is None \
            else G._stop_code
        Z = bit_tables(G, play.coords)
        S = (G._blobs, G._blob_at, G._qflags, G._qflags_at, G._zoc, G._zoc_at,
             G._params, G._shape_of, G._shape_cell, G._budget, stop_code, Z)
        n_lay = scratch_words(Z, int(np.max(G._budget, initial=0)))
        M = tuple(sp["consts"])
        Q = (play.side_of, play.turn_sides, play.movers, play.turn, play.actor, play.done,
             np.ascontiguousarray(play.nbr), np.ascontiguousarray(play.coords), kind,
             play.policy == "greedy", play._key, play._tick, play._n_steps, play.max_turns,
             G._occ0, G._cell0, RULES)
        mask, cost, stop = play._out
        K = kept_tables(G)
        calls = [(S, M, Q, K, G.occ, G.cell, G.alive, mask, cost, stop, G._bufs[c],
                  G._ends[c], np.zeros((1, 3), np.int64), sp["doubles"](c > 0),
                  tuple(np.zeros(max(1, (B * (c + 1)) // n_chunks - (B * c) // n_chunks),
                                 np.int64) for _ in range(3)),
                  np.zeros(P, np.int64), np.zeros(P, np.uint8), np.zeros(F, np.bool_),
                  np.zeros(n_lay, np.uint64), (B * c) // n_chunks, (B * (c + 1)) // n_chunks, counts[c])
                 for c in range(n_chunks)]
        fz = play._fz = (counts, calls)
    counts, calls = fz
    status, _ = run_chunks(play, step_kernel(), calls, counts, k)
    if min(status) < 0:  # pragma: no cover (ends hold one column per place)
        raise RuntimeError(f"movecore: heroscape self-play step status {min(status)}")
    gens, moves, turns, games, kept = summed(counts)
    play.kept_ends_used = getattr(play, "kept_ends_used", 0) + kept
    return play._tally(gens, moves, turns, games)


step.several_steps = True       # (k steps a call: BatchedPlay.steps)
