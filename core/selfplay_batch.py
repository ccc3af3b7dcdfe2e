"""Batched self-play: the movement-only game of :mod:`movecore.selfplay`, B games at once.

    movecore selfplay --game G --batch B --games N [--policy random|greedy] [--threads T]

The rules are those of :func:`movecore.selfplay.play` (sides take turns; each figure of
the side to move moves once, to a legal end chosen by the policy; a figure that ends next
to an enemy removes one adjacent enemy with probability 1/2; a game is over when at most
one side has figures left at the start of a turn, or after ``turns`` turns), played on a
:class:`movecore.batch.BatchedGames`: every step moves the acting figure of every
unfinished game, the legal ends of all of them from one batched call, the policy chosen
with array operations over the batch (not per game in Python), finished games reset from
the root (next-step autoreset) until ``games`` games have finished.

Games are seeded by one generator per run (``seed``): a run is reproducible, but its
games are not those of the one-game-at-a-time self-play with the same seed.
"""
from __future__ import annotations

import time

import numpy as np

from .batch import BatchedGames
from .errors import QueryError, describe
from .kernels import _types as T
from .position import grid_distance

_BIG = np.int64(1) << 40


class BatchedPlay:
    """B concurrent movement-only games of one scenario (see the module docstring).

    ``step()`` moves one figure in every unfinished game; ``run(n_games)`` steps until
    ``n_games`` games have finished and returns the counters."""

    def __init__(self, game: str, scenario: dict, num_games: int, *, seed=0,
                 policy: str = "random", max_turns: int = 40, threads: int = 1,
                 backend: str = "auto", record: bool = False):
        from .selfplay import GAME_CLASSES, POLICIES, Game, _root
        if policy not in POLICIES:
            raise QueryError(f"policy must be one of {list(POLICIES)}; got "
                             f"{describe(policy)}")
        if type(max_turns) is not int or max_turns < 1:
            raise QueryError(f"turns must be a positive integer; got {describe(max_turns)}")
        root, sides = _root(game, scenario)
        self.g = g = GAME_CLASSES[game](root)
        self.rng = np.random.default_rng(seed)
        # a game whose figures ask one fixed query (grid, Tiny Epic Tactics, Mage Knight,
        # Heroscape, Descent) is asked it for every figure; Dark Realms' queries are rolled
        rolled = type(g).query is GAME_CLASSES["dark_realms"].query
        #: the query each figure slot asks (None: rolled per move, Dark Realms)
        self.queries = None if rolled else \
            [dict(g.query(root, f, np.random.default_rng(0))) for f in root.figures]
        self.games = BatchedGames(root, num_games, query=self.queries, threads=threads,
                                  backend=backend if not rolled else "positions")
        G = self.games
        self.B, self.F = G.B, G.F
        self.policy = policy
        self.max_turns = max_turns
        self.usable = None if type(g).usable is Game.usable else g.usable
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
        P = G.n_places
        self._out = (np.zeros((B, P), np.uint8), np.full((B, P), -1, np.int32),
                     np.zeros((B, P), np.int8))
        # throughput counters: turns begun, moves made and move generations asked in
        # every game (finished or not), games finished
        self.counts = {"turns": 0, "moves": 0, "generations": 0, "games": 0}
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
        G = self.games
        act = np.where(self.done, -1, self.actor)
        qs = None
        if self.queries is None:   # rolled per move (Dark Realms' die): each game's own
            qs = [None if a < 0 else self.g.query(G.positions[b], G.ids[a], self.rng)
                  for b, a in enumerate(act.tolist())]
        #: the query each game asked in the last step (None: the figure slot's own)
        self.last_queries = qs
        mask, cost, stop = G.legal_moves(act, queries=qs, out=self._out)
        if self.record:
            #: the last step's acting slots and batched answer (copies; ``record``)
            self.last_actor = act
            self.last_answer = (mask.copy(), cost.copy(), stop.copy())
        live = np.flatnonzero(act >= 0)
        self.counts["generations"] += len(live)
        legal = mask[live].astype(bool)
        if self.usable is not None:
            legal &= self._usable(live, act)
        u = self.rng.random((self.B, 3))
        n = legal.sum(1)
        moving = n > 0
        rows = live[moving]
        legal = legal[moving]
        if self.policy == "greedy":
            pick = self._greedy(rows, act[rows], legal, u[rows, 0])
        else:
            k = (u[rows, 0] * n[moving]).astype(np.int64)
            pick = (np.cumsum(legal, 1) > k[:, None]).argmax(1)
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
        self._next_actor(live, new_turn=False)
        ended = np.flatnonzero(self.done)
        if len(ended):
            self.counts["games"] += len(ended)
            G.reset(ended)
            self.last[4].extend(ended.tolist())
            self.done[ended] = False
            self._start(ended)
        return len(rows)

    def _usable(self, live, act) -> np.ndarray:
        """bool[len(live), P]: ends a movement-only game may take (the game's filter)."""
        G = self.games
        out = np.zeros((len(live), G.n_places), bool)
        for i, b in enumerate(live.tolist()):
            m = G._moves[b]
            rows = self.usable(G.positions[b], G.ids[int(act[b])], m)
            out[i, m.actions if rows is None else m.actions[rows]] = True
        return out

    def _greedy(self, rows, figs, legal, u) -> np.ndarray:
        """Per game of ``rows``: an end nearest to an enemy figure, ties at random."""
        G = self.games
        if G.backend != "arrays":
            return self._greedy_positions(rows, figs, legal, u)
        enemy = G.alive[rows] & (self.side_of[None] != self.side_of[figs][:, None])
        cells = np.where(enemy, G.cell[rows], 0)
        ec = self.coords[cells]                                   # [R, F, 2]
        d = grid_distance(self.kind, self.coords[None, :, None, :],
                          ec[:, None, :, :])                      # [R, N, F]
        d = np.where(enemy[:, None, :], d, _BIG).min(2)
        d = np.where(legal, d, _BIG + 1)
        best = d == d.min(1)[:, None]
        k = (u * best.sum(1)).astype(np.int64)
        return (np.cumsum(best, 1) > k[:, None]).argmax(1)

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
        nb = self.nbr[G.cell[rows, figs]]                         # [R, K]
        cells = G.cell[rows]                                      # [R, F]
        adj = ((cells[:, :, None] == nb[:, None, :]) & (nb[:, None, :] >= 0)).any(2)
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
    def run(self, n_games: int) -> dict:
        """Step until ``n_games`` games have finished; returns counters and rates."""
        t0 = time.perf_counter()
        while self.counts["games"] < n_games:
            self.step()
        dt = time.perf_counter() - t0
        c = dict(self.counts)
        return {**c, "seconds": dt, "moves_per_s": c["moves"] / dt if dt else 0.0,
                "games_per_s": c["games"] / dt if dt else 0.0,
                "batch": self.B, "threads": self.games.threads,
                "backend": self.games.backend}


def _cells(where) -> list:
    return [where] if isinstance(where, tuple) else list(where)
