"""Dark Realms' answers in the numpy-driven vector env (:mod:`movecore.rl._vecnp`):
the acting figures' rolled queries without the general batched ``legal_moves``.

Each time a figure's turn comes the env rolls its d6 (one draw of the game's stream)
and asks its legal ends: a hero's card move of that roll (``{"roll": r}``), an enemy's
AI move with Move r (``{"enemy": True, "move": r, "attack_range": 1}``). The general
path builds the queries' columns (``QueryColumns``), checks them, and answers the heroes
in the batched reach kernel over every game's occupant row and the enemies in the
compiled enemy AI: at B = 1,024 a third of the env's step was that query plumbing and
the kernel. Where every moving figure's query stays in the compiled scope (the
conditions of the self-play chunked step, :func:`movecore.tools._selfplay_dark_realms.
chunked_plan`: each moving enemy the compiled enemy AI's, a roll of 1-6 within its Move
and the die, allies not passed), :func:`dr_queries` instead draws the rolls and answers
the heroes itself, and the enemies go straight to the compiled enemy AI (its kernel, on
the thread's scratch), then the kept answer (``_vecnp.keep_answer``): with ``threads=T``
each of T threads does all of it on its own chunk of the sub-step's games. The move and
the removal are one compiled call too (:func:`dr_play`), and the kept observation is
drawn (and with ``copy=True`` copied) per thread chunk of games
(``BatchedSteps.observe``). The env step itself, where :attr:`DarkRealmsAnswers.whole`
(the default), is :mod:`._vecdr_env`'s: each thread's chunk of games played whole in
compiled calls (these functions on one game at a time), the sub-step path above left
for the resets and an enemy AI's ties.

A hero's card move (every step costs 1; every figure blocks; a walker never enters an
obstacle, a flyer flies over one but never ends on it; no space stops a move; traps
cost nothing and never stop: the plain query's ends) is the self-play step's bit set
grown a layer per step over the board's padded grid (:func:`movecore.tools.
_selfplay_dark_realms.grid_bits`), here with each end's cost: the layer that first
reached it (breadth-first, unit costs: its least cost); without such a grid, a
breadth-first search over the neighbour table. In the whole step, where the grid's bits
run in the places' order, it goes straight into the kept answer (:func:`hero_kept`: the
list of usable ends read off the bits, no mask row cleared, written and scanned over
every place). ``tests/test_rl_vector.py`` checks the
answers against the general path's (mask, cost, stop) at every query of seeded runs,
and that the check fails on a wrong answer.
"""
from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros   # (LLVM's cttz: one instruction)

from ..batch import on_chunks
from ..games.dark_realms._batch_enemy import _NO_PEN, NO_LIST, bits_of, grid_bits
from ..games.dark_realms._hero_bits import hero_bfs, hero_layer, hero_start, word_steps
from ..kernels import _types as T
from ..kernels._jit import NO_NRT
from ._kept_answer import keep_answer
from ._vecgame import _draw, _n_sides


@njit(nogil=True, inline="always")
def _hero_ends(b, f, start, fly, roll, cell, alive, bpos, at, shifts, pass_bits, end_bits,
               work, cost, stop):
    """Game ``b``'s hero ``f`` (from ``start``) card move of ``roll`` steps on the bit
    sets (see :func:`dr_queries`): the reach grown a step at a time
    (``_hero_bits.hero_layer``), each end's cost (the step that first reached it) and
    stop (0) into ``cost``/``stop`` row ``b`` ([B, >= N]), the ends (its own space
    among them) as bits in ``work[2]``. Each new end's space from its bit by
    ``trailing_zeros`` (one instruction: a de Bruijn table lookup made each end a chain
    of dependent loads, ~a third of the search's time)."""
    r = work[0]
    free = work[1]
    ends = work[2]
    new = work[3]
    hero_start(b, f, start, fly, cell, alive, bpos, pass_bits, r, free)
    small, sp, sn = word_steps(shifts)
    for w in range(r.shape[0]):
        ends[w] = r[w]
    cost[b, start] = 0
    stop[b, start] = 0
    one = np.uint64(1)
    for k in range(1, roll + 1):
        if not hero_layer(r, free, new, small, sp, sn, shifts):
            break
        for w in range(r.shape[0]):
            x = new[w] & end_bits[fly, w]
            ends[w] |= x
            while x:
                c = at[(w << 6) + trailing_zeros(x)]
                cost[b, c] = k
                stop[b, c] = 0
                x &= x - one


@njit(nogil=True)
def _hero_bits(b, f, start, fly, roll, cell, alive, bpos, at, shifts, pass_bits,
               end_bits, work, mask, cost, stop):
    """:func:`_hero_ends` into ``mask``/``cost``/``stop`` row ``b`` (cleared)."""
    _hero_ends(b, f, start, fly, roll, cell, alive, bpos, at, shifts, pass_bits, end_bits,
               work, cost, stop)
    ends = work[2]
    one = np.uint64(1)
    for w in range(ends.shape[0]):
        x = ends[w]
        while x:
            mask[b, at[(w << 6) + trailing_zeros(x)]] = 1
            x &= x - one


@njit(cache=True, nogil=True, **NO_NRT)
def hero_kept(b, f, start, fly, roll, cell, alive, bpos, at, shifts, pass_bits, end_bits,
              work, usable_bits, a_cost, a_stop, a_list):
    """:func:`_hero_ends` straight into the kept answer, what :func:`_hero_bits` and then
    ``keep_answer`` make of it without the mask row and its scan over every place: each
    end's cost and stop into ``a_cost``/``a_stop`` row ``b``, the ends the figure may
    use (``usable_bits`` uint64[F, W]: ``keep_answer``'s ``usable`` as bits) in place
    order into ``a_list`` row ``b``; returns how many. Only where the bits' order is the
    places' (``bpos`` increasing: :attr:`DarkRealmsAnswers.bits_in_order`). A call of
    its own from the whole step, compiled and cached apart (inlined there, it cost the
    step's compile ~4.5 CPU s more; docs/performance_log.md)."""
    _hero_ends(b, f, start, fly, roll, cell, alive, bpos, at, shifts, pass_bits, end_bits,
               work, a_cost, a_stop)
    ends = work[2]
    one = np.uint64(1)
    n = 0
    for w in range(ends.shape[0]):
        x = ends[w] & usable_bits[f, w]
        while x:
            a_list[b, n] = at[(w << 6) + trailing_zeros(x)]
            n += 1
            x &= x - one
    return n


@njit(nogil=True, inline="always")
def roll_d6(rng, b):
    """Game ``b``'s d6: ``int(u * 6) + 1`` of one draw of its stream."""
    return np.int64(_draw(rng, b) * 6.0) + 1


@njit(nogil=True)
def _hero_bfs(b, start, fly, roll, occ, nbr, passable, may_end, seen, queue, mask, cost,
              stop):
    """As :func:`_hero_bits`, by a breadth-first search over ``nbr`` (int32[N, K], -1
    none) through spaces with no figure that ``passable[fly]``; ``seen`` int32[N] is -1
    between calls."""
    tail = hero_bfs(b, start, fly, roll, occ, nbr, passable, seen, queue)
    for i in range(tail):
        c = queue[i]
        if may_end[fly, c] or c == start:
            mask[b, c] = 1
            cost[b, c] = seen[c]
            stop[b, c] = 0
        seen[c] = -1


@njit(cache=True, nogil=True, **NO_NRT)
def dr_queries(rows, g, rng, a_roll, hero, flying, cell, alive, occ, use_bits, bpos, at,
               shifts, pass_bits, end_bits, work, nbr, passable, may_end, seen, queue,
               mask, cost, stop, eg, es, em):
    """The rolled queries of figure slots ``g[i]`` (int64) in games ``rows[i]`` (int64):
    each game's d6, ``int(u * 6) + 1`` of one draw of its stream (``rng`` uint64[B, 4],
    numpy's PCG64 states: ``_vecgame._draw``), into ``a_roll[b]``; row ``b`` of ``mask``
    (uint8[B, P]) cleared; a hero's (``hero[f]``) card move of that many steps answered
    here into ``mask``/``cost`` (int32, steps)/``stop`` (int8, 0) row ``b``; every other
    figure's game listed for the enemy AI: ``eg[:n]`` games, ``es[:n]`` slots, ``em[:n]``
    Moves. Returns n.

    A hero's move: the spaces within the roll of its space through spaces with no
    figure (``alive``/``cell`` int32[B, F]; ``occ`` int32[B, N] for the search over the
    neighbour table) that it may pass (``passable[fly]`` uint8[2, N]: a walker no
    obstacle, ``fly`` = ``flying[f]``), each at its least number of steps; the ends are
    those it may end on (``may_end[fly]``: no obstacle) and its own space (cost 0).
    With ``use_bits`` the search is a bit set over the padded grid grown a layer per
    step: ``bpos`` int64[N] each space's bit, ``at`` int64[64 W] each bit's space (-1:
    padding), ``shifts`` int64[D] each direction's bit offset, ``pass_bits`` /
    ``end_bits`` uint64[2, W] ``passable`` / ``may_end`` as bits, ``work`` uint64[4, W]
    workspace; else a breadth-first search over ``nbr``
    (``seen`` int32[N], -1 between calls; ``queue`` int32[N]). Allocates nothing."""
    P = mask.shape[1]
    n_e = 0
    for i in range(rows.shape[0]):
        b = rows[i]
        f = g[i]
        roll = roll_d6(rng, b)
        a_roll[b] = roll
        for c in range(P):
            mask[b, c] = 0
        if not hero[f]:
            eg[n_e] = b
            es[n_e] = f
            em[n_e] = roll
            n_e += 1
            continue
        fly = np.int64(flying[f])
        start = cell[b, f]
        if use_bits:
            _hero_bits(b, f, start, fly, roll, cell, alive, bpos, at, shifts, pass_bits,
                       end_bits, work, mask, cost, stop)
        else:
            _hero_bfs(b, start, fly, roll, occ, nbr, passable, may_end, seen, queue, mask,
                      cost, stop)
    return n_e


@njit(cache=True, nogil=True, **NO_NRT)
def dr_play(rows, to, actor, occ, cell, alive, team, moved, removed, rng, adj, side_of,
            n_all, learner, pending, over, left):
    """``BatchedSteps._play``'s move and removal in games ``rows`` (int64[R]) where
    every figure holds one space (Dark Realms): the acting figure ``actor[b]`` moves to
    ``to[i]`` (``occ`` int32[B, N], ``cell`` int32[B, F], ``team`` int32[F]), is marked
    ``moved``; then the removal coin (one draw of the game's stream ``rng``): under 0.5,
    the enemies in play next to the mover's space (``adj`` bool[N + 1, N + 1]), in slot
    order, and where there are n of them a second draw removes the ``int(u * n)``-th
    (``removed[b]``; the learner's reward of it added to ``pending[b]``: +1 its side's
    removal, -1 its own), the game over (``over[b]`` = 1, ``actor[b]`` = -1) where
    fewer than two of the ``n_all`` sides are left in play. The games not over go to
    ``left`` (int64[>= R]); returns how many. The draws are :func:`_vecnp.victims`'
    (same order per game). Allocates nothing."""
    EMPTY = np.int32(T.OCC_EMPTY)
    F = cell.shape[1]
    k = 0
    for i in range(rows.shape[0]):
        b = rows[i]
        f = actor[b]
        p = to[i]
        occ[b, cell[b, f]] = EMPTY
        occ[b, p] = team[f]
        cell[b, f] = p
        moved[b, f] = True
        removed[b] = False
        if _draw(rng, b) < 0.5:
            n = 0
            for j in range(F):      # (the n-th enemy next to it, counted, then found)
                if alive[b, j] and side_of[j] != side_of[f] and adj[p, cell[b, j]]:
                    n += 1
            if n:
                x = np.int64(_draw(rng, b) * n)
                gone = -1
                for j in range(F):
                    if alive[b, j] and side_of[j] != side_of[f] and adj[p, cell[b, j]]:
                        if x == 0:
                            gone = j
                            break
                        x -= 1
                occ[b, cell[b, gone]] = EMPTY
                cell[b, gone] = -1
                alive[b, gone] = False
                removed[b] = True
                pending[b] += np.float64(side_of[f] == learner) - \
                    np.float64(side_of[gone] == learner)
                if _n_sides(alive, side_of, n_all, b) < 2:
                    over[b] = 1             # (TERMINATED)
                    actor[b] = -1
        if over[b] == 0:
            left[k] = b
            k += 1
    return k


class DarkRealmsAnswers:
    """The plan of :func:`dr_queries` for a :class:`movecore.rl._vecnp.BatchedSteps` of
    Dark Realms (see the module docstring); :meth:`make` gives None where a moving
    figure's rolled query leaves the compiled scope (the general path answers). With
    ``threads=T`` the games of a sub-step are split in T chunks, each answered whole on
    its own thread (the rolls, the heroes, the enemies on that thread's enemy AI
    scratch, the kept answer), each with scratch of its own."""

    @classmethod
    def make(cls, steps):
        G = steps.G
        ai = G._compiled
        root = G.root
        if ai is None or G._game is not None:
            return None
        scene = root.scene
        moving_enemy = steps.movers & ~steps.hero
        if (moving_enemy & ~ai.slot_ok).any() or ai.top < 6 or root._faces < 6 or \
                scene.pass_allies:
            return None
        return cls(steps)

    def __init__(self, steps):
        G = steps.G
        root = G.root
        self.steps = steps
        self.ai = G._compiled
        n = G.occ.shape[1]
        B = steps.B
        C = self.n_chunks = len(G._bufs)
        obstacle = np.asarray(root.scene.obstacle, bool)
        self.passable = np.stack([~obstacle, np.ones(n, bool)]).astype(np.uint8)
        self.may_end = self.passable[[0, 0]].copy()      # neither ends on an obstacle
        self.flying = np.array([bool(root._fig(f).flying) for f in G.ids], bool)
        self.hero = np.ascontiguousarray(steps.hero)
        self.nbr = np.ascontiguousarray(root.board.nbr, np.int32)
        # each thread's scratch (its own cache lines: per_thread)
        from ..batch import per_thread
        self.seen = per_thread(C, (n,), np.int32)
        for a in self.seen:
            a[:] = -1
        self.queue = per_thread(C, (n,), np.int32)
        self.lists = [per_thread(1, (3, B), np.int64)[0] for _ in range(C)]
        self.again = np.zeros(B, np.int64)
        grid = grid_bits(root.board, G._occ0, G._cell0)
        self.use_bits = grid is not None
        if grid is None:
            self.bpos = np.zeros(1, np.int64)
            self.at = np.zeros(64, np.int64)
            self.shifts = np.zeros(0, np.int64)
            self.pass_bits = self.end_bits = np.zeros((2, 1), np.uint64)
            self.work = per_thread(C, (4, 1), np.uint64)
            self.usable_bits = np.zeros((len(G.ids), 1), np.uint64)
            self.bits_in_order = False
        else:
            bpos, shifts, W = grid
            self.bpos, self.shifts = bpos, shifts
            self.at = np.full(64 * W, -1, np.int64)
            self.at[bpos] = np.arange(n)
            self.pass_bits = bits_of(self.passable, bpos, W)
            self.end_bits = bits_of(self.may_end, bpos, W)
            self.work = per_thread(C, (4, W), np.uint64)
            # the places a figure may use as bits (keep_answer's ``usable``), where a
            # place is a space; the bits' order is the places' where ``bpos`` grows
            P = steps._usable8.shape[1]
            self.usable_bits = bits_of(steps._usable8[:, :n], bpos, W)
            self.bits_in_order = P == n and bool((np.diff(bpos) > 0).all())
        #: in the whole step, a hero's card move straight into the kept answer
        #: (:func:`hero_kept`) where :attr:`bits_in_order`; False: :func:`dr_queries`
        #: then ``keep_answer``, as the sub-step path (the tests compare the two)
        self.hero_kept = True
        self._loaded = C == 1
        #: the env step as one compiled call per thread chunk (:mod:`._vecdr_env`);
        #: False: sub-step by sub-step (the tests compare the two)
        self.whole = True
        self.whole_steps = None

    def _chunk(self, c, rows, g, mask, cost, stop, again) -> tuple:
        """Games ``rows`` (int64[R]) on thread ``c``'s scratch: their rolls drawn into
        ``steps.a_roll``, the heroes answered by :func:`dr_queries`, the enemies by the
        compiled enemy AI, into ``mask``/``cost``/``stop`` ([B, P]); then the kept
        answer (``_vecnp.keep_answer``): the games whose figure has no usable end into
        ``again``. Returns (how many of those, the enemy moves answered)."""
        s = self.steps
        G = s.G
        eg, es, em = self.lists[c]
        n_e = dr_queries(rows, g, s.rng, s.a_roll, self.hero, self.flying, G.cell, G.alive,
                         G.occ, self.use_bits, self.bpos, self.at, self.shifts,
                         self.pass_bits, self.end_bits, self.work[c], self.nbr,
                         self.passable, self.may_end, self.seen[c], self.queue[c], mask,
                         cost, stop, eg, es, em)
        if n_e or not len(rows):
            # (the enemy AI's games, on this thread's scratch: as the self-play chunked
            # step calls it; every Move 1-6 is in its scope: make)
            st = self.ai.ready()(eg[:n_e], es[:n_e], em[:n_e], G.occ, G.cell, G.alive,
                          *self.ai._thread_args(c).values(), mask, cost, stop, _NO_PEN,
                          False, *NO_LIST)
            if st < 0:  # pragma: no cover (ends hold one column per cell)
                raise RuntimeError(f"movecore: batched enemy AI kernel status {st}")
        k = keep_answer(rows, g, mask, cost, stop, s._usable8, s.a_cost, s.a_stop,
                        s.a_list, s.a_n, *s._open, s.a_slow, s.nxt, s.actor, again)
        return k, n_e

    def on_threads(self, n: int, run) -> None:
        """``run(lo, hi)`` over ``n`` items in ``n_chunks`` contiguous chunks, one per
        thread (the calling thread takes the first), waiting for all."""
        on_chunks(n, self.n_chunks, lambda c, lo, hi: run(lo, hi))

    def answer(self, rows, g, mask, cost, stop) -> np.ndarray:
        """Figure slots ``g`` (int64[R]) of games ``rows`` (int64[R]): their rolled
        queries answered into ``mask``/``cost``/``stop`` and the kept answer
        (:meth:`_chunk`), in ``n_chunks`` chunks of games on a pool of threads;
        returns the games whose figure has no usable end."""
        R = len(rows)
        C = self.n_chunks if R >= 2 * self.n_chunks else 1
        again = self.again
        if C == 1:
            k, n_e = self._chunk(0, rows, g, mask, cost, stop, again)
            self.ai.answered += n_e
            return again[:k].copy()
        if not self._loaded:
            # the compiled calls made (or loaded from the cache) once on this thread,
            # on no game, before the threads call them at once
            none = np.zeros(0, np.int64)
            self._chunk(0, none, none, mask, cost, stop, again)
            self._loaded = True
        cut, got = on_chunks(R, C, lambda c, lo, hi: self._chunk(
            c, rows[lo:hi], g[lo:hi], mask, cost, stop, again[lo:hi]))
        self.ai.answered += sum(n for _, n in got)
        return np.concatenate([again[cut[c]:cut[c] + got[c][0]] for c in range(C)])
