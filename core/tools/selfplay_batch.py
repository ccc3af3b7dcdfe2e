"""Batched self-play: the movement-only game of :mod:`movecore.tools.selfplay`, B games at once.

    movecore selfplay --game G --batch B --games N [--policy random|greedy] [--threads T]

The rules are those of :func:`movecore.tools.selfplay.play` (sides take turns; each figure of
the side to move moves once, to a legal end chosen by the policy; a figure that ends next
to an enemy removes one adjacent enemy with probability 1/2; a game is over when at most
one side has figures left at the start of a turn, or after ``turns`` turns), played on a
:class:`movecore.batch.BatchedGames`: every step moves the acting figure of every
unfinished game, the legal ends of all of them from one batched call, the policy chosen
with array operations over the batch (not per game in Python), finished games reset from
the root (next-step autoreset) until ``games`` games have finished.

Games are seeded by one generator per run (``seed``): a run is reproducible, on any
number of threads, but its games are not those of the one-game-at-a-time self-play with
the same seed. A step's random numbers come from a counter-based stream keyed by it
(:func:`movecore.rl._vecgame.selfplay_uniforms`), drawn per game inside the compiled
step's chunks.
"""
from __future__ import annotations

import time

import numpy as np
from numba import njit

from ..batch import (BatchedGames, QueryColumns, ThreadChoice, _cut_chunks, _moved_head,
                     per_thread, summed)
from ..errors import QueryError, describe, is_sequence, seed_value
from ..rl._vecgame import _grid_distance
from ..rl.turns import DEFAULT_TURNS, GAME_CLASSES, Game, turns_value
from ._chunks import run_chosen
from ._roots import _root
from ..position import grid_distance

_BIG = np.int64(1) << 40
POLICIES = ("random", "greedy")
#: the largest table of kept kernel ends (bytes) the compiled step of the grid game,
#: Tiny Epic Tactics and Mage Knight reads instead of asking the kernel where no other
#: figure can change its search (``movecore.rl._vecgame.kept_ends``, as the vector
#: env's ``_KEPT_BYTES``); 0: never (the tests compare the two)
_KEPT_BYTES = 16 << 20
#: grid distance kinds of the fused step (as :func:`movecore.position.grid_distance`)
_KIND = {"hex": 0, "square4": 1, "square8": 2}


def _fused_kernel():
    """The whole step of the array backend (legal ends, policy, apply, removal, next
    actor, the restart of finished games) for games ``lo <= b < hi``:
    :func:`movecore.rl._vecgame.selfplay_step`, compiled on first use. It makes exactly
    the choices of :meth:`BatchedPlay.step`'s array path for the same random numbers:
    the k-th legal end in cell order, the k-th nearest-to-an-enemy end, the k-th
    adjacent enemy in slot order (see ``tests/test_batch.py``)."""
    global _FUSED
    if _FUSED is None:      # (imported once: an import a step costs ~0.5 us)
        from ..rl._vecgame import selfplay_step
        _FUSED = selfplay_step
    return _FUSED


_FUSED = None

#: the most steps :meth:`BatchedPlay.steps` gives one compiled call: between calls the
#: threads' chunks are recut by the calling thread's timing, which keeps them even
STEPS_PER_CALL = 8


def _count(value, what: str) -> int:
    """A count read at the boundary: a non-negative integer (Python's or NumPy's; not a
    bool) as a Python ``int``; :class:`QueryError` naming ``what`` and the value
    otherwise."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) \
            or value < 0:
        raise QueryError(f"{what} must be a non-negative integer; got {describe(value)}")
    return int(value)


def _seed(seed):
    """A run's seed: None, a non-negative integer, or a non-empty sequence of them (as
    :func:`numpy.random.default_rng` takes); QueryError naming it otherwise."""
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if not is_sequence(seed):
        return seed_value(seed)
    seeds = list(seed)
    if not seeds:
        raise QueryError(f"seed: a non-negative integer or a sequence of them; got "
                         f"{describe(seed)}")
    return [seed_value(s, f"seed[{k}]", none=False) for k, s in enumerate(seeds)]


def _calls(parts, B: int, first: int) -> list:
    """Each thread's arguments of the compiled step (``parts[c]``: its arguments before
    and after the chunk's ``lo, hi``): the calling thread's chunk ``[0, first)``, the
    pool threads' the rest in even contiguous chunks."""
    return [head + lo_hi + tail
            for (head, tail), lo_hi in zip(parts, _cut_chunks(B, len(parts), first))]


class BatchedPlay:
    """B concurrent movement-only games of one scenario (see the module docstring).

    ``step()`` moves one figure in every unfinished game; ``run(n_games)`` steps until
    ``n_games`` games have finished and returns the counters."""

    def __init__(self, game: str, scenario: dict, num_games: int, *, seed=0,
                 policy: str = "random", max_turns: int = DEFAULT_TURNS, threads: int = 1,
                 backend: str = "auto", record: bool = False, fused: bool = True):
        if policy not in POLICIES:
            raise QueryError(f"policy must be one of {list(POLICIES)}; got "
                             f"{describe(policy)}")
        max_turns = turns_value(max_turns, "turns")
        seed = _seed(seed)
        root, sides = _root(game, scenario)
        self.g = g = GAME_CLASSES[game](root)
        self.game = game
        self.rng = np.random.default_rng(seed)
        # a step's random numbers (the choice, the removal coin, which neighbour) come
        # from a counter-based stream (movecore.rl._vecgame.selfplay_uniforms): each
        # thread of the compiled step draws its own games' inside its chunk
        self._key = int(self.rng.integers(0, 2**62))
        self._tick = np.zeros(1, np.int64)          # steps taken
        # the steps a call of the compiled step takes (set at each: steps(), several)
        self._n_steps = np.ones(1, np.int64)
        # a game whose figures ask one fixed query (grid, Tiny Epic Tactics, Mage Knight,
        # Heroscape, Descent) is asked it for every figure; Dark Realms' queries are rolled
        rolled = type(g).query is GAME_CLASSES["dark_realms"].query
        #: the query each figure slot asks (None: rolled per move, Dark Realms)
        self.queries = None if rolled else \
            [dict(g.query(root, f, np.random.default_rng(0))) for f in root.figures]
        self.games = BatchedGames(root, num_games, query=self.queries, threads=threads,
                                  backend=backend)
        G = self.games
        if rolled and G.backend == "arrays" and G._query_budget is None:
            self.games = G = BatchedGames(root, num_games, threads=threads,
                                          backend="positions")
            G.why = "each move's query is rolled (Dark Realms' die)"
        self.B, self.F = G.B, G.F
        self.policy = policy
        self.max_turns = max_turns
        # (the array backend's mask holds the moves alone, Moves.mask, which is what a
        # game's usable() picks: Mage Knight's can_stay, applied by the layout's rules)
        self.usable = None if type(g).usable is Game.usable or G.backend == "arrays" \
            else g.usable
        self.may_move = None if type(g).moves is Game.moves else g.moves
        ids = G.ids
        all_sides = list(dict.fromkeys(root.side_of(f) for f in ids))
        self.side_of = np.array([all_sides.index(root.side_of(f)) for f in self.games.ids],
                                np.int64)
        self.turn_sides = np.array([all_sides.index(s) for s in sides], np.int64)
        self.movers = np.array([self.may_move is None or self.may_move(root, f)
                                for f in self.games.ids], bool)
        self.kind = g.kind
        if self.games.backend == "arrays":   # greedy distances, adjacency: array forms
            self.coords = np.asarray(root.board.coords, np.int64)
            self.nbr = np.asarray(root.board.nbr, np.int64)
        B = self.B
        self.turn = np.zeros(B, np.int64)
        self.actor = np.full(B, -1, np.int64)
        self.done = np.zeros(B, bool)
        self.record = record
        # the array backend runs the whole step compiled (same choices as the array
        # path below for the same random numbers), unless asked to record answers
        # (Dark Realms: the rolled queries' legal ends from one batched legal_moves,
        # the rest of the step compiled: movecore.tools._selfplay_dark_realms;
        # Heroscape, whose moves rewrite engagement codes: the layout's own step,
        # movecore.tools._selfplay_heroscape)
        self.rolled = rolled
        #: Dark Realms: the fused step in chunks of games per thread where every moving
        #: figure's query stays compiled (movecore.tools._selfplay_dark_realms; False
        #: before the first step: one batched legal_moves, then the compiled step)
        self.chunked = True
        self.fused = fused and not record and G.backend == "arrays" and \
            self.usable is None and (G._move is None or G._selfplay is not None) and \
            (not rolled or G._query_columns is not None) and \
            (getattr(G, "_game", None) is None or G._game.all_arrays)
        P = G.n_places
        self._out = (np.zeros((B, P), np.uint8), np.full((B, P), -1, np.int32),
                     np.zeros((B, P), np.int8))
        # throughput counters: turns begun, moves made and move generations asked in
        # every game (finished or not), games finished
        self.counts = {"turns": 0, "moves": 0, "generations": 0, "games": 0}
        self._hero = None        # Dark Realms: bool[F], the figure slot is a hero's
        #: (the compiled step, its entry point per chunk: :func:`run_chunks`)
        self._entries = None
        self._own_step = None    # (a game's own compiled step, False: none; found once)
        self._start(np.arange(B))

    # ------------------------------------------------------------------ turn order
    def _n_sides(self, rows) -> np.ndarray:
        """Sides with a figure in play, per game of ``rows``."""
        alive = self.games.alive[rows]
        n = np.zeros(len(rows), np.int64)
        for s in range(int(self.side_of.max()) + 1):
            n += (alive & (self.side_of == s)[None]).any(1)
        return n

    def _start(self, rows) -> None:
        """Games ``rows`` start at turn 0: find their first actor."""
        self.turn[rows] = 0
        self.actor[rows] = -1
        self.counts["turns"] += len(rows)
        self._next_actor(rows, new_turn=False)

    def _next_actor(self, rows, new_turn: bool) -> None:
        """The next figure to move in games ``rows`` (after ``actor`` in the side whose
        turn it is; else the next turns' sides). Games that end are marked ``done``."""
        slots = np.arange(self.F)
        n_turn = len(self.turn_sides)
        rows = np.asarray(rows, np.int64)
        for _ in range(n_turn + 1):
            if not len(rows):
                return
            # a turn starts: the game is over when fewer than two sides are left
            if new_turn:
                over = (self.turn[rows] >= self.max_turns) | (self._n_sides(rows) < 2)
                if over.any():
                    self.done[rows[over]] = True
                    rows = rows[~over]
                    if not len(rows):
                        return
                self.counts["turns"] += len(rows)
            side = self.turn_sides[self.turn[rows] % n_turn]
            cand = self.games.alive[rows] & self.movers[None] & \
                (self.side_of[None] == side[:, None]) & \
                (slots[None] > self.actor[rows][:, None])
            has = cand.any(1)
            self.actor[rows[has]] = cand[has].argmax(1)
            rows = rows[~has]
            # no figure left to move this turn: the next side's turn
            self.turn[rows] += 1
            self.actor[rows] = -1
            new_turn = True
        if len(rows):  # pragma: no cover (a side always has a turn within n turns)
            self.done[rows] = True

    # ------------------------------------------------------------------ one step
    def step(self) -> int:
        """Move the acting figure of every unfinished game; finished games are counted
        and reset. Returns the number of moves made."""
        if self.fused:
            return self._step_fused()
        G = self.games
        act = np.where(self.done, -1, self.actor)
        qs = None
        if self.queries is None:   # rolled per move (Dark Realms' die): each game's own
            # (a figure's side, all the query reads, never changes: the root's), drawn
            # for every game at once (the same draws as one query() per game in turn),
            # in array form (one array per keyword: no dict per game)
            qs = self._rolled_queries(act)
        #: the query each game asked in the last step (None: the figure slot's own)
        self.last_queries = qs
        mask, cost, stop = G.legal_moves(act, queries=qs, out=self._out)
        if self.record:
            #: the last step's acting slots and batched answer (copies; ``record``)
            self.last_actor = act
            self.last_answer = (mask.copy(), cost.copy(), stop.copy())
        live = np.flatnonzero(act >= 0)
        self.counts["generations"] += len(live)
        legal = mask[live].view(np.bool_)       # (a copy: fancy index; 0/1 bytes)
        if self.usable is not None:
            legal &= self._usable(live, act)
        u = self._uniforms()
        n = legal.sum(1)
        moving = n > 0
        rows = live[moving]
        if not moving.all():
            legal = legal[moving]
        if self.policy == "greedy":
            pick = self._greedy(rows, act[rows], legal, u[rows, 0])
        else:
            k = (u[rows, 0] * n[moving]).astype(np.int64)
            pick = _kth_true(legal, n[moving], k)
        figs = np.full(self.B, -1, np.int64)
        to = np.full(self.B, -1, np.int64)
        figs[rows] = act[rows]
        to[rows] = pick
        if G.backend == "arrays":
            G._move_trusted(rows, act[rows], pick)
        else:
            G.apply(figs, to)
        self.counts["moves"] += len(rows)
        #: the last step: figure slot and place moved per game (-1: none), the games
        #: and figure slots removed, the games that finished and were reset
        self.last = (figs, to, [], [], [])
        self._remove_near(rows, act[rows], u[rows, 1], u[rows, 2])
        # a removal that leaves fewer than two sides ends the game at once (Match)
        if self.last[2]:
            hit = np.unique(np.array(self.last[2], np.int64))
            over = hit[self._n_sides(hit) < 2]
            self.done[over] = True
        self._next_actor(live[~self.done[live]], new_turn=False)
        ended = np.flatnonzero(self.done)
        if len(ended):
            self.counts["games"] += len(ended)
            G.reset(ended)
            self.last[4].extend(ended.tolist())
            self.done[ended] = False
            self._start(ended)
        return len(rows)

    def _rolled_queries(self, act) -> QueryColumns:
        """Dark Realms: every acting figure's rolled query (``act``: its slot per game,
        -1 none), in array form, drawn at once (the same draws as one ``query()`` per
        game in turn)."""
        if self._hero is None:
            G = self.games
            self._hero = np.array([G.root.side_of(f) == "hero" for f in G.ids], bool)
        return QueryColumns(self.g.query_columns(self._hero[np.maximum(act, 0)],
                                                 self.rng, act >= 0), self.B)

    def _uniforms(self) -> np.ndarray:
        """float64[B, 3]: this step's random numbers of every game (the choice, the
        removal coin, which neighbour), those the compiled step draws; the step
        counter moves on."""
        from ..rl._vecgame import selfplay_uniforms
        u = np.empty((self.B, 3))
        selfplay_uniforms(self._key, int(self._tick[0]), u)
        self._tick[0] += 1
        return u

    @property
    def steps_per_call(self) -> int:
        """The most steps :meth:`steps` gives one compiled call: :data:`STEPS_PER_CALL`
        where the whole step is one call of several steps (the array backend of every
        game but Dark Realms, whose rolls are drawn in NumPy at each step), else 1 (a
        step at a time)."""
        own = self._own_step if self._own_step is not None else self._find_own_step()
        several = own is False or getattr(own, "several_steps", False)
        return STEPS_PER_CALL if self.fused and several else 1

    def steps(self, n: int) -> int:
        """``n`` steps: the games ``n`` calls of :meth:`step` play, with the same
        counters; returns the moves made. Where the whole step is one compiled call (the
        array backend of every game but Dark Realms; :attr:`steps_per_call`), each thread
        plays its games' steps, up to :data:`STEPS_PER_CALL` of them, in one call: one
        hand-off to the pool's threads for them all, not one a step (what the hand-off
        costs, tens of microseconds, is ~10% of Mage Knight's 2-thread step at
        B = 4,096: docs/selfplay.md, "Several steps a call").

        >>> from movecore.tools.selfplay import example_scenarios
        >>> _, scenario = example_scenarios("mage_knight")[0]
        >>> a = BatchedPlay("mage_knight", scenario, 64, seed=3, threads=2)
        >>> b = BatchedPlay("mage_knight", scenario, 64, seed=3)
        >>> a.steps(20) == sum(b.step() for _ in range(20)), a.counts == b.counts
        (True, True)
        """
        n = _count(n, "n")
        if self.steps_per_call == 1:
            return sum(self.step() for _ in range(n))
        moves = 0
        while n > 0:
            k = min(n, STEPS_PER_CALL)
            moves += self._step_fused(k)
            n -= k
        return moves

    def _find_own_step(self):
        """The game's own compiled step (``step(play, kind)``), False where the step is
        :func:`_fused_kernel`'s; kept in ``_own_step``."""
        G = self.games
        if G._selfplay is not None:   # (the layout's own step: Heroscape)
            from ._selfplay_heroscape import step
        elif G._game is not None:   # (a game's own batch engine: Descent)
            from ._selfplay_descent import step
        elif self.rolled:           # (rolled queries: Dark Realms)
            from ._selfplay_dark_realms import step
        else:
            step = False
        self._own_step = step
        return step

    def _step_fused(self, k: int = 1) -> int:
        """The array backend's step: one compiled call per thread over its games (legal
        ends, policy, move and its random numbers, removal, next actor, and the restart
        of finished games); what is left here is the hand-off. ``k``: that many steps in
        the call (:meth:`steps`, where :attr:`steps_per_call` allows)."""
        own = self._own_step
        if own is None:     # (found once: an import a step costs ~1 us)
            own = self._find_own_step()
        if own is not False:
            kind = _KIND.get(self.kind, 0)
            return own(self, kind) if k == 1 else own(self, kind, k)
        G = self.games
        fz = getattr(self, "_fz", None)
        if fz is None:
            n_chunks = len(G._bufs)
            n = G.occ.shape[1]
            B = self.B
            # per thread: its counters and query row on cache lines of their own
            counts = per_thread(n_chunks, (4,), np.int64)
            queries = per_thread(n_chunks, (1, 3), np.int64)
            rows = per_thread(n_chunks, (n,), np.uint8)
            dists = per_thread(n_chunks, (n,), np.int64)
            args = (G._blobs, G._blob_at, G._qflags, G._qflags_at, G._zoc, G._zoc_at,
                    G._params, G._shape_of, G._shape_cell, G._budget, G.occ, G.cell,
                    G.alive, G.team, self.side_of, self.turn_sides, self.movers, self.turn,
                    self.actor, self.done, self.nbr, self.coords, _KIND.get(self.kind, 0),
                    self.policy == "greedy", self._key, self._tick, self._n_steps,
                    self.max_turns,
                    G._end_rules,
                    G._one_figure, G._no_end, G._occ0, G._cell0)
            # the kernel's ends kept per (figure, shape, start), as the vector env's
            # step reads them (movecore.rl._vecgame.kept_ends; _KEPT_BYTES 0: none)
            from ..rl._vecgame import kept_ends
            kept = kept_ends(G, n, G.cell.shape[1], _KEPT_BYTES)
            parts = [(args + (G._bufs[c], G._ends[c], rows[c], dists[c], queries[c]),
                      (counts[c], *kept)) for c in range(n_chunks)]
            # (and every game in one call on the calling thread, chunk 0's scratch:
            # where the threads measure slower, ``ThreadChoice``)
            # (a choice for one step a call, and one for several: steps())
            fz = self._fz = [counts, parts, _calls(parts, B, B // n_chunks),
                             _calls(parts[:1], B, B), (ThreadChoice(), ThreadChoice())]
        counts, parts, calls, whole, choices = fz
        split, counts, took = run_chosen(self, _fused_kernel(), calls, whole, counts,
                                         choices, k)
        if split and len(calls) > 1:
            # (the calling thread's chunk ends at calls[0][-5]: its hi, then the tail)
            first = _moved_head(self.B, len(calls), calls[0][-5], took)
            if first is not None:
                fz[2] = _calls(parts, self.B, first)
        gens, moves, turns, games = summed(counts)
        return self._tally(gens, moves, turns, games)

    def _tally(self, gens: int, moves: int, turns: int, games: int) -> int:
        """Add a step's move generations, moves, turns begun and games finished to
        :attr:`counts` (every compiled step reports these four); returns ``moves``."""
        c = self.counts
        c["generations"] += gens
        c["moves"] += moves
        c["turns"] += turns
        c["games"] += games
        return moves

    def _usable(self, live, act) -> np.ndarray:
        """bool[len(live), P]: ends a movement-only game may take (the game's filter)."""
        G = self.games
        out = np.zeros((len(live), G.n_places), bool)
        for i, b in enumerate(live.tolist()):
            m = G._moves[b]
            rows = self.usable(G.positions[b], G.ids[int(act[b])], m)
            out[i, m.actions if rows is None else m.actions[rows]] = True
        return out   # (and-ed with the mask: moves only)

    def _greedy(self, rows, figs, legal, u) -> np.ndarray:
        """Per game of ``rows``: an end nearest to an enemy figure, ties at random."""
        G = self.games
        if G.backend != "arrays":
            return self._greedy_positions(rows, figs, legal, u)
        enemy = G.alive[rows] & (self.side_of[None] != self.side_of[figs][:, None])
        if G.multi_space:   # places of many spaces (Heroscape, Descent's large bases)
            return self._greedy_spaces(rows, figs, legal, u, enemy)
        cells = np.where(enemy, G.cell[rows], 0)
        ec = self.coords[cells]                                   # [R, F, 2]
        d = grid_distance(self.kind, self.coords[None, :, None, :],
                          ec[:, None, :, :])                      # [R, N, F]
        d = np.where(enemy[:, None, :], d, _BIG).min(2)
        if d.shape[1] < legal.shape[1]:   # (places past the board: Descent's town)
            d = np.pad(d, ((0, 0), (0, legal.shape[1] - d.shape[1])),
                       constant_values=_BIG + 1)
        d = np.where(legal, d, _BIG + 1)
        best = d == d.min(1)[:, None]
        k = (u * best.sum(1)).astype(np.int64)
        return (np.cumsum(best, 1) > k[:, None]).argmax(1)

    def _greedy_spaces(self, rows, figs, legal, u, enemy) -> np.ndarray:
        """:meth:`_greedy` where a place may be many spaces (S: two in Heroscape, a
        large base's squares in Descent): an end's distance is the least over its
        spaces and the enemies' spaces (the legal ends alone)."""
        G = self.games
        R, P = legal.shape
        r, col = np.nonzero(legal)                                # row-major
        es = G.spaces(rows)                                       # [R, F, S]
        ps = G.spaces(rows[r], figs[r], col[:, None])[:, 0]       # [E, S]
        d = _space_distances(_KIND.get(self.kind, 0), self.coords, np.ascontiguousarray(ps),
                             r, np.ascontiguousarray(es), np.ascontiguousarray(enemy))
        low = np.full(R, _BIG + 1, np.int64)
        np.minimum.at(low, r, d)
        best = d == low[r]
        nb = np.bincount(r[best], minlength=R)
        k = (u * nb).astype(np.int64)
        bcol = col[best]
        off = np.cumsum(nb) - nb
        return bcol[off + k]

    def _greedy_positions(self, rows, figs, legal, u) -> np.ndarray:
        G = self.games
        out = np.zeros(len(rows), np.int64)
        for i, b in enumerate(rows.tolist()):
            pos = G.positions[b]
            side = pos.side_of(G.ids[int(figs[i])])
            acts = np.flatnonzero(legal[i])
            targets = [w for f in pos.figures if pos.side_of(f) != side
                       for w in _cells(pos.where(f))]
            if not targets:
                out[i] = acts[int(u[i] * len(acts))]
                continue
            ends = pos.action_coords(G.ids[int(figs[i])], acts).reshape(len(acts), -1, 1, 2)
            d = grid_distance(self.kind, ends, np.array(targets)[None, None]).min(axis=(1, 2))
            best = acts[d == d.min()]
            out[i] = best[int(u[i] * len(best))]
        return out

    def _remove_near(self, rows, figs, coin, u) -> None:
        """With probability 1/2, a figure that moved removes one adjacent enemy."""
        G = self.games
        hit = coin < 0.5
        rows, figs, u = rows[hit], figs[hit], u[hit]
        if not len(rows):
            return
        if G.backend == "positions":
            for b, f, x in zip(rows.tolist(), figs.tolist(), u.tolist()):
                pos = G.positions[b]
                side = pos.side_of(G.ids[f])
                near = [h for h in pos.touching(G.ids[f]) if pos.side_of(h) != side]
                if near:
                    g = G.ids.index(near[int(x * len(near))])
                    G.remove([b], [g])
                    self.last[2].append(b)
                    self.last[3].append(g)
            return
        if not G.multi_space:
            nb = self.nbr[G.cell[rows, figs]]                     # [R, K]
            cells = G.cell[rows]                                  # [R, F]
            adj = ((cells[:, :, None] == nb[:, None, :]) & (nb[:, None, :] >= 0)).any(2)
        else:       # places of many spaces (Heroscape, Descent): any space touches
            sp = G.spaces(rows)                                   # [R, F, S]
            mine = sp[np.arange(len(rows)), figs]                 # [R, S]
            nb = np.where((mine >= 0)[:, :, None], self.nbr[np.maximum(mine, 0)], -1)
            nb = nb.reshape(len(rows), -1)                        # [R, S K]
            adj = ((sp[:, :, :, None] == nb[:, None, None, :]) &
                   (nb[:, None, None, :] >= 0)).any((2, 3))
        near = adj & G.alive[rows] & (self.side_of[None] != self.side_of[figs][:, None])
        n = near.sum(1)
        some = n > 0
        if not some.any():
            return
        k = (u[some] * n[some]).astype(np.int64)
        g = (np.cumsum(near[some], 1) > k[:, None]).argmax(1)
        G.remove(rows[some], g)
        self.last[2].extend(rows[some].tolist())
        self.last[3].extend(g.tolist())

    # ------------------------------------------------------------------ a run
    def play_until(self, n_games: int) -> None:
        """Step until ``n_games`` games have finished (:attr:`counts`), in exactly the
        steps :meth:`step` would take: several a call (:meth:`steps`) only while more
        than that many steps' worth of games are still to finish (a step finishes at
        most one game per game of the batch)."""
        n_games = _count(n_games, "n_games")
        c, B = self.counts, self.B
        while c["games"] < n_games:
            self.steps(min(max((n_games - c["games"]) // B, 1), STEPS_PER_CALL))

    def run(self, n_games: int) -> dict:
        """Step until ``n_games`` games have finished (:meth:`play_until`); returns
        counters and rates."""
        t0 = time.perf_counter()
        self.play_until(n_games)
        dt = time.perf_counter() - t0
        c = dict(self.counts)
        return {**c, "seconds": dt, "moves_per_s": c["moves"] / dt if dt else 0.0,
                "games_per_s": c["games"] / dt if dt else 0.0,
                "batch": self.B, "threads": self.games.threads,
                "backend": self.games.backend}


@njit(cache=True, nogil=True)
def _space_distances(kind, coords, ps, r, es, enemy):
    """int64[E]: per end ``e`` (its spaces ``ps[e]``, -1 none; its game's row
    ``r[e]``), the least grid distance (``kind``: 0 hex, 1 square4, 2 square8, as
    :func:`movecore.position.grid_distance`) from one of its spaces to a space of a
    figure ``g`` with ``enemy[r[e], g]`` (``es[r[e], g]``: its spaces, -1 none); 2**40
    where there is none. Compiled: an end of S spaces against F figures of S spaces
    each would be an [E, S, S F] temporary in NumPy."""
    E, S = ps.shape
    F, S2 = es.shape[1], es.shape[2]
    out = np.empty(E, np.int64)
    for e in range(E):
        rr = r[e]
        best = np.int64(1) << 40
        for i in range(S):
            c = ps[e, i]
            if c < 0:
                continue
            for g in range(F):
                if not enemy[rr, g]:
                    continue
                for j in range(S2):
                    t = es[rr, g, j]
                    if t >= 0:
                        best = min(best, _grid_distance(coords, kind, c, t))
        out[e] = best
    return out


def _kth_true(legal, n, k) -> np.ndarray:
    """Per row of ``legal`` (bool[R, P], ``n[r]`` True entries): the column of its
    ``k[r]``-th True (from 0), as ``(np.cumsum(legal, 1) > k[:, None]).argmax(1)``
    without a cumulative sum over every column (one pass over the bytes)."""
    if not len(n):
        return np.zeros(0, np.int64)
    at = np.flatnonzero(legal)                     # row-major: row r's from off[r]
    off = np.cumsum(n) - n
    return at[off + k] - np.arange(len(n)) * legal.shape[1]


def _cells(where) -> list:
    return [where] if isinstance(where, tuple) else list(where)


def run_batched(game: str, n_games: int, scenarios: list, seed: int = 0, *,
                batch: int = 1024, policy: str = "random", max_turns: int = DEFAULT_TURNS,
                threads: int = 1, backend: str = "auto") -> dict:
    """``movecore selfplay --batch``: ``n_games`` games of ``scenarios`` ([(name,
    scenario)]; game i on scenario i mod k, as :func:`movecore.tools.selfplay.run_selfplay`),
    each scenario's share played ``batch`` games at a time on a :class:`BatchedPlay`.
    Returns totals and rates."""
    for what, v in (("games", n_games), ("batch", batch), ("threads", threads)):
        if type(v) is not int or v < (0 if what == "games" else 1):
            raise QueryError(f"{what} must be a positive integer; got {describe(v)}")
    seed_value(seed, none=False)      # (each scenario's share is seeded [seed, j])
    scen = scenarios
    shares = [len(range(j, n_games, len(scen))) for j in range(len(scen))]
    plays = [(BatchedPlay(game, s, min(batch, n), seed=[seed, j], policy=policy,
                          max_turns=max_turns, threads=threads, backend=backend), n)
             for j, ((_, s), n) in enumerate(zip(scen, shares)) if n > 0]
    for p, _ in plays:          # compile and warm up outside the clock
        p.step()
        p.games.reset()
        p.counts = dict.fromkeys(p.counts, 0)
        p._start(np.arange(p.B))
    t0 = time.perf_counter()
    for p, n in plays:
        p.play_until(n)
    dt = time.perf_counter() - t0
    tot = {k: sum(p.counts[k] for p, _ in plays) for k in
           ("games", "turns", "moves", "generations")}
    rate = (lambda x: x / dt) if dt > 0 else (lambda x: 0.0)
    return {"game": game, "seed": seed, "policy": policy, "batch": batch,
            "threads": threads, "backends": sorted({p.games.backend for p, _ in plays}),
            **tot, "seconds": dt, "games_per_s": rate(tot["games"]),
            "turns_per_s": rate(tot["turns"]), "moves_per_s": rate(tot["moves"]),
            "generations_per_s": rate(tot["generations"])}


def format_batched(rep: dict) -> str:
    return (f"{rep['game']}: {rep['games']} games ({rep['policy']}, seed {rep['seed']}, "
            f"batch {rep['batch']} x {rep['threads']} thread(s), "
            f"{'/'.join(rep['backends'])} backend) in {rep['seconds']:.2f} s\n"
            f"  turns {rep['turns']}  moves {rep['moves']}  move generations "
            f"{rep['generations']}\n"
            f"  {rep['games_per_s']:.1f} games/s  {rep['turns_per_s']:.1f} turns/s  "
            f"{rep['moves_per_s']:.1f} moves/s  {rep['generations_per_s']:.1f} "
            f"move generations/s")
