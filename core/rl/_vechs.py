"""Heroscape's answers in the numpy-driven vector env (:mod:`movecore.rl._vecnp`): the
acting figures' queries without the general batched ``legal_moves``, and the move with
its removal in one compiled call.

The general path answers a sub-step's games by ``BatchedGames.legal_moves``: the
queries' columns built, the batched kernel over every game's row (``reach_games``),
the end rules as numpy passes over the batch, the double-space figures by the layout's
compiled call, then the kept answer (``_kept_answer.keep_answer``, a pass over every place of
every game). Where every moving figure's query stays in the compiled scope of the
self-play step (:mod:`movecore.tools._selfplay_heroscape`: each mover's budget its
Move, the layout's stop codes, no one-figure or no-end spaces), :func:`hs_queries`
instead answers each one-space figure as that step does -- its kind's kept ends on the
empty battlefield less the figures' spaces where no figure but friends it passes stands
nearer than its budget (``games.heroscape._kept.kept_tables``), else its kind's packed query on the game's
row (``games.heroscape._bits.query_ends``: as bit sets over the padded grid where the
query allows, else ``reach1_general``), each end's stop its kind's stop code -- writing the usable
ends straight into the kept answer (listed by place id through a bit set over the
cells: no pass over every place), and lists the double-space figures' games for the
layout's compiled call (``_batch_doubles.doubles_kernel``, on the thread's scratch),
whose rows then go through ``keep_answer``. With ``threads=T`` each of T threads does
all of it on its own chunk of the sub-step's games, and draws (and with ``copy=True``
copies) its chunk of the kept observation (``BatchedSteps.observe``). The move, the removal coin, the
victim and its removal (:func:`hs_play`, the codes of the figures next to either place
written again: ``_batch._move_one``) are one compiled call (per thread chunk).

The vector env runs these sub-steps from Python only where :mod:`._vechsenv` is off (its
tests): its step plays them for a chunk of games in one compiled call per thread. The
compiled pieces here are compiled without Numba's reference counts (they allocate
nothing; the caller keeps the arrays alive).

``tests/test_rl_vector.py`` checks the kept answers (list, costs, stops, the acting
figure, the games with no usable end) against the general path's at every query of
seeded runs of the bundled scenarios (1 and 2 threads), whole env steps against the
general path's, and that each check fails on a wrong answer.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..batch import on_chunks
from ..games.heroscape._batch import _move_one, _spaces
from ..games.heroscape._batch_doubles import NO_PAIR_BITS, NO_PLAIN_UNASKED
from ..games.heroscape._bits import query_ends
from ..games.heroscape._kept import kept_clear
from ..kernels import _types as T
from ..kernels._bytes import SET_BITS, popcount, put8
from ..kernels._jit import NO_NRT
from ..kernels.batch import _clear_row
from ._kept_answer import keep_answer
from ._vecgame import TERMINATED, _draw, _n_sides

EMPTY = T.OCC_EMPTY
BYTE = np.uint64(0xFF)
#: a broken rule for the tests' mutation check: a kept end's stop code dropped
BREAK_STOP = 1
#: the one-space queries by the kernel, not as bit sets (``_bits.one_bits``), for A/B
#: runs and the tests' differential
NO_BITS = 2
#: ... and the two-space walkers' answer as the call gave it before the plain answer
#: where no leaving attacks are asked and its bit sets (the call's ``NO_PLAIN_UNASKED |
#: NO_PAIR_BITS``: the same answers, for A/B runs)
NO_PAIRS = 4


@njit(inline="always")
def pair_call_bits(rules):
    """The two-space call's bits for the env's ``rules`` (``NO_PAIRS``)."""
    return (NO_PLAIN_UNASKED | NO_PAIR_BITS) if (rules & NO_PAIRS) != 0 else 0


@njit(cache=True, nogil=True, **NO_NRT)
def hs_queries(rows, g, S, K, double, lead, trail, occ, cell, alive, buf, ends, query,
               bits, usable, a_cost, a_stop, a_list, a_n, nxt, actor, again, dl,
               mask, cost, stop, out, rules):
    """The queries of figure slots ``g[i]`` (int64) in games ``rows[i]`` (int64).

    A one-space figure's usable ends (``usable`` uint8[F, P]) go straight into the kept
    answer: ``a_list`` int32[B, P] by place id, ``a_n`` int64[B] how many,
    ``a_cost``/``a_stop`` (int32/int8[B, P]) at the listed places; then
    ``keep_answer``'s step (``nxt`` the slot after, ``actor`` the figure where it has
    a usable end, else the game into ``again`` int64[>= R]). Its ends: with ``K``
    (``kept_tables``: ``kept_at, kept_code, kept_ptr, kept, near, kept_far``) its kind's kept
    ends from its start, less the spaces of others, where its start holds its own code
    (not engaged) and every other figure nearer than ``kept_far`` (``near``; one at the
    budget only takes its cell from the ends) is a friend with that code; else its kind's packed query (``S``: ``blobs, blob_at,
    qflags, qflags_at, zoc, zoc_at, params, shape_of, shape_cell, budget,
    stop_code``, then ``Z``: their bit tables, ``_bits.bit_tables``) on the game's row
    ``occ[b]``: as bit sets (``_bits.one_bits``) where ``Z`` allows, else by the
    kernel (``buf``/``ends``/``query``: its workspace). A stopped end's stop is
    ``stop_code[shape, cell]``, else 0 (the general path's end rule). ``bits``
    uint64[>= ceil(N / 64) + _bits.scratch_words]: its first ceil(N / 64) words zero
    between calls, the rest ``one_bits``' scratch.

    A double-space figure's game: its rows of ``mask``/``cost``/``stop`` (uint8 /
    int32 / int8[B, P]) cleared (0, -1, 0) and the game, slot and budget listed in
    ``dl`` (int64[3, >= R]) for the layout's compiled call. ``out`` int64[2]: how many
    games went to ``again``, how many to ``dl``; returns how many one-space answers
    were the kept ends. ``rules``: 0, or bits: ``BREAK_STOP`` (the tests' broken rule),
    ``NO_BITS`` (every query by the kernel)."""
    (blobs, blob_at, qflags, qflags_at, zoc, zoc_at, params, shape_of, shape_cell,
     budget, stop_code, Z) = S
    kept_at, kept_code, kept_ptr, kept, near_k, kept_far = K
    N = occ.shape[1]
    P = a_list.shape[1]
    nw = (N + 63) >> 6
    lay = bits[nw:]     # (one_bits' scratch)
    use_bits = (rules & NO_BITS) == 0
    one = np.uint64(1)
    k = 0
    nd = 0
    n_kept = 0
    for i in range(rows.shape[0]):
        b = rows[i]
        f = g[i]
        nxt[b] = f + 1
        if double[f]:
            _clear_row(mask, cost, stop, b)
            dl[0, nd] = b
            dl[1, nd] = f
            dl[2, nd] = budget[f]
            nd += 1
            continue
        start = np.int64(cell[b, f])
        bud = budget[f]
        ka = kept_at[f]
        if ka >= 0 and occ[b, start] != kept_code[ka]:
            ka = -1                     # (engaged: a wall to its friends)
        if ka >= 0:
            if not kept_clear(near_k, ka * N + start, kept_far[ka], kept_code[ka], occ,
                              cell, double, lead, trail, alive, b, f):
                ka = -1
        if ka >= 0:
            n_kept += 1
            sh = shape_of[f]
            at = ka * N + start
            for e in range(kept_ptr[at], kept_ptr[at + 1]):
                c = kept[0, e]
                if c != start and occ[b, c] != EMPTY:
                    continue            # (a figure's space: never an end)
                if usable[f, c]:
                    bits[c >> 6] |= one << np.uint64(c & 63)
                    a_cost[b, c] = kept[1, e]
                    a_stop[b, c] = stop_code[sh, c] \
                        if kept[2, e] != 0 and (rules & BREAK_STOP) == 0 else 0
        else:
            sh = shape_of[f] + shape_cell[start]
            query[0, 0] = start
            query[0, 1] = bud
            m = query_ends(S, sh, occ[b], start, bud, buf, ends, query, lay, use_bits)
            if m < 0:
                return m
            for e in range(m):
                c = ends[0, e]
                if usable[f, c]:
                    bits[c >> 6] |= one << np.uint64(c & 63)
                    a_cost[b, c] = ends[1, e]
                    a_stop[b, c] = stop_code[sh, c] if ends[2, e] != 0 else 0
        n = 0
        for w in range(nw):     # the listed ends by place id; the bits cleared
            x = bits[w]
            if not x:
                continue
            bits[w] = 0
            # (no branch on a bit: a branch a bit mispredicted on the ends' irregular
            # bits, ~20% of this function's samples. A slot past the count is stale,
            # never read)
            base = w << 6
            if base + 64 <= P:
                # a byte of cells a step: its cells' next eight slots in one store
                # (kernels._bytes.put8; slots n ... n + 7, n the count of the cells
                # before them, below base + 64 <= P), the count moved on by its bits
                for j in range(8):
                    y = (x >> np.uint64(8 * j)) & BYTE
                    put8(a_list, b, n, SET_BITS, y, base + 8 * j)
                    n += popcount(y)
            else:
                # (a cell a step: the list's next slot written at every cell, the
                # count moved on by its bit; the slot, the count of the cells before
                # it, is below N <= P)
                for h in range(min(64, N - base)):
                    a_list[b, n] = base + h
                    n += np.int64((x >> np.uint64(h)) & one)
        a_n[b] = n
        if n:
            actor[b] = f
        else:
            again[k] = b
            k += 1
    out[0] = k
    out[1] = nd
    return n_kept


@njit(cache=True, nogil=True, **NO_NRT)
def hs_play(rows, to, actor, occ, cell, alive, moved, removed, rng, adj, side_of, n_all,
            learner, pending, over, ended, left, near, double, lead, trail, team, height,
            level, adj_bits, n_teams, master):
    """``BatchedSteps._play``'s move and removal in Heroscape games ``rows``
    (int64[R]): the acting figure ``actor[b]`` moves to place ``to[i]`` with its
    engagement codes (``_batch._move_one``: the layout's ``double ... master``, its
    neighbours by ``adj_bits``, ``_batch.adjacency_bits``; ``near``
    bool[F] scratch), is marked ``moved``; then the removal coin (one draw of the
    game's stream ``rng``): under 0.5, the enemies in play with a space next to a
    space of the mover (``adj`` bool[N + 1, N + 1]), in slot order, and where there
    are n of them a second draw takes the ``int(u * n)``-th out of play (its
    neighbours' codes written again; ``removed[b]``; the learner's reward of it added
    to ``pending[b]``), the game over (``over[b]`` = ``ended``, ``actor[b]`` -1) where
    fewer than two of the ``n_all`` sides are left in play. The games not over go to
    ``left`` (int64[>= R]); returns how many. The draws are ``_vecnp.victims`` '."""
    F = cell.shape[1]
    rewrite = rows.shape[0] >= 0    # (True, typed as a bool: _move_one's one copy)
    gone = np.int64(-1)
    k = 0
    for i in range(rows.shape[0]):
        b = rows[i]
        f = actor[b]
        _move_one(occ, cell, alive, b, f, to[i], near, rewrite, double, lead, trail, team,
                  height, level, adj_bits, n_teams, master)
        moved[b, f] = True
        removed[b] = False
        if _draw(rng, b) < 0.5:
            a0, a1 = _spaces(cell, double, lead, trail, b, f)
            n = 0
            for sweep in range(2):     # (counted, then the x-th found)
                x = np.int64(-1)
                if sweep == 1:
                    if n == 0:
                        break
                    x = np.int64(_draw(rng, b) * n)
                for j in range(F):
                    if not alive[b, j] or side_of[j] == side_of[f]:
                        continue
                    x0, x1 = _spaces(cell, double, lead, trail, b, j)
                    hit = adj[a0, x0] or (x1 >= 0 and adj[a0, x1]) or \
                        (a1 >= 0 and (adj[a1, x0] or (x1 >= 0 and adj[a1, x1])))
                    if not hit:
                        continue
                    if sweep == 0:
                        n += 1
                    elif x == 0:
                        _move_one(occ, cell, alive, b, j, gone, near, rewrite,
                                  double, lead, trail, team, height, level,
                                  adj_bits, n_teams, master)
                        removed[b] = True
                        pending[b] += np.float64(side_of[f] == learner) - \
                            np.float64(side_of[j] == learner)
                        if _n_sides(alive, side_of, n_all, b) < 2:
                            over[b] = ended
                            actor[b] = -1
                        break
                    else:
                        x -= 1
        if over[b] == 0:
            left[k] = b
            k += 1
    return k


class HeroscapeAnswers:
    """The plan of :func:`hs_queries` / :func:`hs_play` for a
    :class:`movecore.rl._vecnp.BatchedSteps` of Heroscape (see the module docstring);
    :meth:`make` gives None where a moving figure's query leaves the compiled scope
    (the general path answers). With ``threads=T`` the games of a sub-step are split
    in T chunks, each answered whole on its own thread with scratch of its own."""

    #: the tests' broken rule (0: none)
    rules = 0

    @classmethod
    def make(cls, steps):
        G = steps.G
        if G.backend != "arrays" or G._selfplay is None or G._game is not None or \
                G._stop_code is None or G._any_one_figure or len(G._no_end) or \
                G._own is None:
            return None
        movers = steps.movers
        if (np.asarray(G._budget)[movers] < 0).any():
            return None     # (a query the layout answers on a position)
        return cls(steps)

    def __init__(self, steps):
        from ..batch import per_thread
        from ..games.heroscape._batch_doubles import doubles_kernel
        from ..games.heroscape._bits import bit_tables, scratch_words
        from ..games.heroscape._kept import kept_tables
        G = steps.G
        self.steps = steps
        self.kernel = doubles_kernel()
        C = self.n_chunks = len(G._bufs)
        B, F = steps.B, steps.F
        N = G.occ.shape[1]
        Z = bit_tables(G, steps.coords)
        self.S = (G._blobs, G._blob_at, G._qflags, G._qflags_at, G._zoc, G._zoc_at,
                  G._params, G._shape_of, G._shape_cell, G._budget, G._stop_code, Z)
        self.K = kept_tables(G)
        self.consts = tuple(G._selfplay["consts"])
        self.double = np.ascontiguousarray(self.consts[0], np.bool_)
        self.lead, self.trail = self.consts[1], self.consts[2]
        # each thread's scratch: the first thread's kernel workspace and the doubles'
        # are the general path's (never called during these calls)
        self.D = [G._selfplay["doubles"](c > 0) for c in range(C)]
        self.query = per_thread(C, (1, 3), np.int64)
        self.bits = per_thread(C, ((N + 63) // 64 + scratch_words(
            Z, int(np.max(G._budget, initial=0))),), np.uint64)
        self.dl = [per_thread(1, (3, B), np.int64)[0] for _ in range(C)]
        self.outs = per_thread(C, (2,), np.int64)
        self.near = per_thread(C, (F,), np.bool_)
        self.again = np.zeros(B, np.int64)
        self.again2 = np.zeros(B, np.int64)
        self.no_pen = np.zeros((0, 0), np.int32)
        self.kept_used = 0
        self._loaded = self._played = C == 1

    def _chunk(self, c, rows, g, mask, cost, stop, again, again2) -> tuple:
        """Games ``rows`` (int64[R]) on thread ``c``'s scratch: the one-space figures
        answered by :func:`hs_queries` into the kept answer, the double-space ones by
        the layout's compiled call into ``mask``/``cost``/``stop``, then their kept
        answer (``keep_answer``). Returns (how many games went to ``again``, how many to
        ``again2``, how many kept-end answers)."""
        s = self.steps
        G = s.G
        out = self.outs[c]
        dl = self.dl[c]
        kept = hs_queries(rows, g, self.S, self.K, self.double, self.lead, self.trail,
                          G.occ, G.cell, G.alive, G._bufs[c], G._ends[c], self.query[c],
                          self.bits[c], s._usable8, s.a_cost, s.a_stop,
                          s.a_list, s.a_n, s.nxt, s.actor, again, dl, mask, cost, stop,
                          out, self.rules)
        if kept < 0:  # pragma: no cover (ends hold one column per cell)
            raise RuntimeError(f"movecore: kernel status {kept}")
        k, nd = int(out[0]), int(out[1])
        k2 = 0
        if nd:
            dr, df = dl[0, :nd], dl[1, :nd]
            st = self.kernel(G.occ, G.cell, G.alive, dr, df, dl[2, :nd], *self.D[c], mask,
                             cost, stop, self.no_pen,
                             pair_call_bits.py_func(self.rules))
            if st < 0:  # pragma: no cover (ends hold one column per placement)
                raise RuntimeError(f"movecore: batched double-space kernel status {st}")
            k2 = keep_answer(dr, df, mask, cost, stop, s._usable8, s.a_cost, s.a_stop,
                             s.a_list, s.a_n, *s._open, s.a_slow, s.nxt, s.actor, again2)
        return k, k2, kept

    def answer(self, rows, g, mask, cost, stop) -> np.ndarray:
        """Figure slots ``g`` (int64[R]) of games ``rows`` (int64[R]): their usable ends
        into the kept answer (:meth:`_chunk`), in ``n_chunks`` chunks of games on a pool
        of threads; returns the games whose figure has no usable end (in row order)."""
        R = len(rows)
        C = self.n_chunks if R >= 2 * self.n_chunks else 1
        again, again2 = self.again, self.again2
        if C == 1:
            k, k2, kept = self._chunk(0, rows, g, mask, cost, stop, again, again2)
            self.kept_used += kept
            if not k2:
                return again[:k].copy()
            return np.sort(np.concatenate([again[:k], again2[:k2]]))
        if not self._loaded:
            # the compiled calls made (or loaded from the cache) once on this thread,
            # on no game, before the threads call them at once
            none = np.zeros(0, np.int64)
            self._chunk(0, none, none, mask, cost, stop, again, again2)
            self._loaded = True
        cut, got = on_chunks(R, C, lambda c, lo, hi: self._chunk(
            c, rows[lo:hi], g[lo:hi], mask, cost, stop, again[lo:hi], again2[lo:hi]))
        self.kept_used += sum(x[2] for x in got)
        return np.sort(np.concatenate(
            [again[cut[c]:cut[c] + got[c][0]] for c in range(C)] +
            [again2[cut[c]:cut[c] + got[c][1]] for c in range(C)]))

    def on_threads(self, n: int, run) -> None:
        """``run(lo, hi)`` over ``n`` items in ``n_chunks`` contiguous chunks, one per
        thread (the calling thread takes the first), waiting for all (the kept
        observation's draw and copy, ``BatchedSteps.observe``)."""
        on_chunks(n, self.n_chunks, lambda c, lo, hi: run(lo, hi))

    def play(self, rows, to) -> np.ndarray:
        """The acting figures of games ``rows`` move to places ``to``, then the removal
        (:func:`hs_play`), in ``n_chunks`` chunks of games on a pool of threads (each
        game's draws are its own stream's); returns the games not over (in row
        order)."""
        s = self.steps
        G = s.G
        to = np.ascontiguousarray(to, np.int64)
        left = np.empty(len(rows), np.int64)
        R = len(rows)
        C = self.n_chunks if R >= 2 * self.n_chunks else 1

        def run(c, lo, hi):
            return hs_play(rows[lo:hi], to[lo:hi], s.actor, G.occ, G.cell, G.alive,
                           s.moved, s.removed, s.rng, s.adj, s.side_of, s.n_all,
                           s.learner, s.pending, s.over, TERMINATED, left[lo:hi],
                           self.near[c],
                           *self.consts)
        if C == 1:
            return left[:run(0, 0, R)]
        if not self._played:
            run(0, 0, 0)            # (compiled or loaded once, on this thread)
            self._played = True
        cut, got = on_chunks(R, C, run)
        return np.concatenate([left[cut[c]:cut[c] + got[c]] for c in range(C)])
