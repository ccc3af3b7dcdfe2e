"""Bulk self-play: many seeded movement-only games on the bundled example scenarios.

    movecore selfplay --game G --games N --seed S [--policy random|greedy]
                      [--workers W] [--turns T] [--ray [ADDRESS]] [--json]

A game starts from one of the game's bundled scenarios (``examples/<game>_*.json``, game
``i`` on scenario ``i mod k``); only the board, options and figures are used. The sides
(the figures' team or side) take turns. On its turn every figure of the side to move asks
the engine for its legal ends, picks one (``random``: uniformly; ``greedy``: an end
nearest to an enemy figure, ties broken at random) and moves there. A figure that ends
next to an enemy removes one adjacent enemy with probability 1/2 (a seeded coin), so
games end: a game is over when at most one side has figures left, or after ``--turns``
turns (one side's turn is one turn).

Two ways to ask for the legal ends:

* **batch** (``grid``, ``tiny_epic_tactics``): the engine objects (``Board``, ``Mover``,
  occupancy) are derived once per game from the scenario through the game's Python API,
  and a side's figures are answered by **one** :func:`movecore.reach_many` call per turn.
  Figures that move earlier in the turn can only take cells away (allies pass, enemies do
  not move), so an end of the batch answer is still legal unless an ally now stands on
  it; those ends are dropped. (A Tiny Epic Tactics unit starting on the ballista uses the
  adapter: its start space is blocked for it alone.)
* **adapter** (``heroscape``, ``mage_knight``, ``descent``, ``dark_realms``): the game's
  rules need its adapter (engagement and double-space figures, safe spaces and the map,
  doors/large monsters/grapple, the enemy AI and die rolls), so each figure's move is one
  :func:`movecore.solve` of the scenario rebuilt from the current positions.

Every game is seeded by ``(seed, game index)``, so results depend on neither the worker
count nor the order the workers finish in.
"""
from __future__ import annotations

import argparse
import copy
import json
import multiprocessing
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from .errors import QueryError, ScenarioError, describe
from .kernels import _types as T

GAMES = ("grid", "heroscape", "mage_knight", "descent", "tiny_epic_tactics", "dark_realms")
POLICIES = ("random", "greedy")
REMOVE_CHANCE = 0.5
DEFAULT_TURNS = 40


# ------------------------------------------------------------------------ geometry
def _distance(kind: str, a, b) -> int:
    dq, dr = a[0] - b[0], a[1] - b[1]
    if kind == "hex":
        return (abs(dq) + abs(dr) + abs(dq + dr)) // 2
    if kind == "square4":
        return abs(dq) + abs(dr)
    return max(abs(dq), abs(dr))


def _cells_of(at) -> list[tuple[int, int]]:
    """Cells named by an ``at`` value: one coordinate pair or a list of them."""
    if isinstance(at[0], (list, tuple)):
        return [tuple(c) for c in at]
    return [tuple(at)]


# ------------------------------------------------------------------------ state
@dataclass
class Piece:
    """A figure in play: its scenario entry (``raw``, whose ``at`` follows the figure),
    its side, and the cells it covers."""

    id: Any
    side: Any
    raw: dict
    cells: list = field(default_factory=list)

    @property
    def at(self):
        return self.raw["at"]


@dataclass
class Move:
    """One move taken: the figure, where it went, and the positions before the move."""

    figure: Any
    at: Any
    before: list  # [(id, at)] of every figure in play, before the move
    query: dict   # the movement query whose answer the move was chosen from
    batch: bool   # answered by the batch path (reach_many) rather than the adapter


class Game:
    """One game's vocabulary for self-play: sides, queries and (optionally) batch ends."""

    name = ""
    kind = "hex"          # geometry of removal adjacency and greedy distance
    side_key = "team"

    def __init__(self, scenario: dict):
        self.scenario = scenario
        q = scenario.get("query") if isinstance(scenario.get("query"), dict) else {}
        self.budget = q.get("budget") if isinstance(q.get("budget"), int) else 4

    def side_of(self, raw: dict):
        return raw.get(self.side_key, raw["id"])

    def moves(self, piece: Piece) -> bool:
        return True

    def query(self, piece: Piece, rng) -> dict:
        return {"figure": piece.id, "budget": self.budget}

    def cells_of_end(self, end: dict) -> list:
        return _cells_of(end["cells"] if "cells" in end else end["at"])

    def legal_ends(self, result: dict) -> list[dict]:
        return list(result.get("ends", []))

    def rebuild(self, pieces: list[Piece], query: dict) -> dict:
        s = {k: v for k, v in self.scenario.items() if k not in ("figures", "query")}
        s["figures"] = [copy.deepcopy(p.raw) for p in pieces]
        s["query"] = query
        return s

    # batch path: None means "use the adapter per figure"
    def batch(self, pieces: list[Piece], movers: list[Piece]) -> dict | None:
        return None


class GridGame(Game):
    name = "grid"

    def __init__(self, scenario):
        super().__init__(scenario)
        from .games.grid import build_board
        from .mover import Mover
        self.kind = scenario["board"].get("grid", "hex")
        self.board, table = build_board(scenario["board"])
        opts = scenario.get("options", {})
        self._mover = lambda team: Mover(
            terrain_cost=table, team=team, climb_per_level=opts.get("climb_per_level", 1),
            climb_flat=opts.get("climb_flat", 0), max_climb=opts.get("max_climb"))

    def batch(self, pieces, movers):
        teams = _team_ids(pieces)
        occ = np.full(self.board.n_cells, T.OCC_EMPTY, T.INDEX)
        for p in pieces:
            occ[self.board.find(p.cells[0])] = teams[p.side]
        return _batch_ends(self.board, self._mover(teams[movers[0].side]), movers,
                           self.budget, occ)


class TinyEpicTacticsGame(Game):
    name = "tiny_epic_tactics"
    kind = "square4"

    def __init__(self, scenario):
        super().__init__(scenario)
        from .games.tiny_epic_tactics import build_realm
        self.realm = build_realm(scenario["board"], scenario.get("options", {}))

    def batch(self, pieces, movers):
        from .games.tiny_epic_tactics import mover_for
        realm, board = self.realm, self.realm.board
        teams = _team_ids(pieces)
        occ = np.full(board.n_cells, T.OCC_EMPTY, T.INDEX)
        for p in pieces:
            occ[board.find(p.cells[0])] = teams[p.side]
        # a unit starting on the ballista may not re-enter it: its own query (adapter)
        plain = [m for m in movers if not realm.is_ballista(board.find(m.cells[0]))]
        if not plain:
            return {}
        return _batch_ends(board, mover_for(teams[movers[0].side]), plain, self.budget, occ)


class HeroscapeGame(Game):
    name = "heroscape"

    def query(self, piece, rng):
        return {"figure": piece.id}


class MageKnightGame(Game):
    name = "mage_knight"
    side_key = "id"       # every hero plays for itself

    def query(self, piece, rng):
        return {"figure": piece.id, "budget": self.budget}


class DescentGame(Game):
    name = "descent"
    kind = "square8"
    side_key = "side"

    def query(self, piece, rng):
        if piece.side == "hero":
            return {"figure": piece.id, "action": "advance"}
        return {"figure": piece.id}

    def legal_ends(self, result):
        # movement only: the door state is not tracked, so no move opens a door
        return [e for e in result.get("ends", []) if not e.get("doors_opened")]


class DarkRealmsGame(Game):
    name = "dark_realms"
    side_key = "side"

    def __init__(self, scenario):
        super().__init__(scenario)
        self.kind = scenario["board"].get("grid") or scenario.get("options", {}).get(
            "grid", "hex")

    def moves(self, piece):
        return piece.side in ("hero", "enemy")   # summons stay where they are

    def query(self, piece, rng):
        if piece.side == "hero":
            return {"figure": piece.id, "roll": int(rng.integers(1, 7))}
        return {"enemy": piece.id, "move": int(rng.integers(1, 7)), "attack_range": 1}

    def legal_ends(self, result):
        if "enemy" in result:   # the enemy AI's choices (ties between targets/routes)
            return [{"at": m["at"]} for m in result.get("moves", []) if m.get("at")]
        return list(result.get("ends", []))


GAME_CLASSES: dict[str, type[Game]] = {c.name: c for c in (
    GridGame, HeroscapeGame, MageKnightGame, DescentGame, TinyEpicTacticsGame,
    DarkRealmsGame)}
BATCH_GAMES = ("grid", "tiny_epic_tactics")


def _team_ids(pieces):
    out: dict = {}
    for p in pieces:
        out.setdefault(p.side, len(out))
    return out


def _batch_ends(board, mover, movers, budget, occ) -> dict:
    """One reach_many for the side's figures: {figure id: [end dicts]}."""
    from .reach import reach_many
    starts = [board.find(m.cells[0]) for m in movers]
    r = reach_many(board, mover, starts, budget, occupant=occ, threads=1)
    out = {}
    for i, m in enumerate(movers):
        cells, costs, _ = r[i]
        out[m.id] = [{"at": list(board.coord(int(c))), "cost": int(k)}
                     for c, k in zip(cells.tolist(), costs.tolist())]
    return out


# ------------------------------------------------------------------------ scenarios
def example_scenarios(game: str) -> list[tuple[str, dict]]:
    """The bundled example scenarios of ``game`` with two sides or more, as (file name,
    scenario), by name."""
    if game not in GAMES:
        raise ScenarioError(f"selfplay --game {game!r}: expected one of {list(GAMES)}")
    from .cli import example_paths
    out = []
    for p in example_paths():
        if p.name.startswith(game + "_"):
            s = json.loads(p.read_text(encoding="utf-8"))
            if s.get("game") == game and _playable(game, s):
                out.append((p.name, s))
    if not out:
        raise ScenarioError(f"no bundled example scenario for game {game!r}")
    return out


def _playable(game: str, scenario: dict) -> bool:
    """At least two sides, one of which can move (a one-team example is skipped)."""
    figs = scenario.get("figures")
    if not isinstance(figs, list) or not all(isinstance(f, dict) and "id" in f
                                             and "at" in f for f in figs):
        return False
    g = GAME_CLASSES[game].__new__(GAME_CLASSES[game])
    sides = {g.side_of(f) for f in figs}
    return len(sides) >= 2


def game_seed(seed: int, index: int) -> np.random.SeedSequence:
    return np.random.SeedSequence([int(seed), int(index)])


# ------------------------------------------------------------------------ one game
def play(game: str, scenario: dict, seed, *, policy: str = "random",
         max_turns: int = DEFAULT_TURNS, trace: list | None = None) -> dict:
    """Play one game; returns its counters and the final positions.

    ``seed`` is an int or a ``SeedSequence``. With ``trace`` (a list), every move is
    appended as a :class:`Move` (positions before it, figure, chosen ``at``)."""
    from .scenario import solve
    if policy not in POLICIES:
        raise QueryError(f"policy must be one of {list(POLICIES)}; got {describe(policy)}")
    rng = np.random.default_rng(seed)
    g = GAME_CLASSES[game](scenario)
    pieces = []
    for raw in scenario["figures"]:
        raw = copy.deepcopy(raw)
        pieces.append(Piece(raw["id"], g.side_of(raw), raw, _cells_of(raw["at"])))
    sides = list(dict.fromkeys(p.side for p in pieces if g.moves(p)))
    turns = moves = gens = batch_calls = 0
    for turn in range(max_turns):
        alive_sides = {p.side for p in pieces if g.moves(p)}
        if len({p.side for p in pieces}) < 2 or not alive_sides:
            break
        side = sides[turn % len(sides)]
        movers = [p for p in pieces if p.side == side and g.moves(p)]
        turns += 1
        if not movers:
            continue
        batch = g.batch(pieces, movers)
        if batch:
            batch_calls += 1
            gens += len(batch)
        for m in movers:
            taken = {c for p in pieces if p is not m for c in p.cells}
            q = None
            if batch is not None and m.id in batch:
                # one-cell figures on the board: drop ends an ally took earlier this turn
                ends = [e for e in batch[m.id] if tuple(e["at"]) not in taken]
            else:
                q = g.query(m, rng)
                ends = g.legal_ends(solve(g.rebuild(pieces, q)))
                gens += 1
                # movement only: stay on the board, never onto another figure (Mage
                # Knight PvP attacks, Descent's glyph to town)
                ends = [e for e in ends if _on_board(e["at"])
                        and not set(g.cells_of_end(e)) & taken]
            if not ends:
                continue
            enemies = [p for p in pieces if p.side != m.side]
            end = _choose(g, ends, enemies, policy, rng)
            if trace is not None:
                trace.append(Move(m.id, copy.deepcopy(end["at"]),
                                  [(p.id, copy.deepcopy(p.at)) for p in pieces],
                                  q if q is not None else g.query(m, None), q is None))
            m.raw["at"] = copy.deepcopy(end["at"])
            m.cells = g.cells_of_end(end)
            moves += 1
            near = [p for p in enemies if _touching(g.kind, m.cells, p.cells)]
            if near and rng.random() < REMOVE_CHANCE:
                victim = near[int(rng.integers(len(near)))]
                pieces.remove(victim)
    return {"turns": turns, "moves": moves, "generations": gens,
            "batch_calls": batch_calls,
            "sides_left": sorted({str(p.side) for p in pieces}),
            "positions": {str(p.id): p.at for p in pieces}}


def scenario_at(scenario: dict, positions: list, query: dict) -> dict:
    """The scenario rebuilt from a state: the figures in ``positions`` ([(id, at)], in
    play order) at those places, asked ``query`` (used to re-check a move with solve)."""
    raws = {f["id"]: f for f in scenario["figures"]}
    s = {k: v for k, v in scenario.items() if k not in ("figures", "query")}
    s["figures"] = [dict(copy.deepcopy(raws[fid]), at=copy.deepcopy(at))
                    for fid, at in positions]
    s["query"] = query
    return copy.deepcopy(s)


def _on_board(at) -> bool:
    """True for a coordinate pair or a list of them (not e.g. Descent's "town")."""
    if not isinstance(at, list) or not at:
        return False
    items = at if isinstance(at[0], list) else [at]
    return all(isinstance(c, list) and len(c) == 2 and all(
        isinstance(x, int) and not isinstance(x, bool) for x in c) for c in items)


def _touching(kind, a, b) -> bool:
    return any(_distance(kind, x, y) == 1 for x in a for y in b)


def _choose(g: Game, ends, enemies, policy, rng) -> dict:
    if policy == "greedy" and enemies:
        targets = [c for p in enemies for c in p.cells]
        d = [min(_distance(g.kind, c, t) for c in _cells_of(e["at"]) for t in targets)
             for e in ends]
        best = min(d)
        ends = [e for e, x in zip(ends, d) if x == best]
    return ends[int(rng.integers(len(ends)))]


# ------------------------------------------------------------------------ many games
def _play_chunk(game: str, seed: int, indices: list[int], policy: str,
                max_turns: int) -> list[dict]:
    scen = example_scenarios(game)
    out = []
    for i in indices:
        name, s = scen[i % len(scen)]
        r = play(game, s, game_seed(seed, i), policy=policy, max_turns=max_turns)
        r["index"], r["scenario"] = i, name
        out.append(r)
    return out


def _chunks(n: int, k: int) -> list[list[int]]:
    k = max(1, min(k, n))
    return [list(range(n))[j::k] for j in range(k)]


def run_selfplay(game: str, n_games: int, seed: int = 0, *, policy: str = "random",
                 workers: int = 1, max_turns: int = DEFAULT_TURNS,
                 ray_address: str | None = None, use_ray: bool = False,
                 ray_cpus: int | None = None) -> dict:
    """Play ``n_games`` games; returns totals, rates and the per-game results (sorted by
    game index). ``workers`` > 1 uses local processes; ``use_ray`` spreads the games
    over a Ray cluster (``ray_address``, or a local instance with ``ray_cpus`` CPUs)."""
    example_scenarios(game)  # validates the game name
    if policy not in POLICIES:
        raise QueryError(f"policy must be one of {list(POLICIES)}; got {describe(policy)}")
    for what, v in (("games", n_games), ("workers", workers), ("turns", max_turns)):
        if not isinstance(v, int) or isinstance(v, bool) or v < (0 if what == "games" else 1):
            raise QueryError(f"{what} must be a positive integer; got {describe(v)}")
    t0 = time.perf_counter()
    parts = _chunks(n_games, workers) if n_games else []
    if use_ray:
        results = _run_ray(game, seed, parts, policy, max_turns, ray_address, ray_cpus)
    elif workers == 1 or len(parts) <= 1:
        results = [_play_chunk(game, seed, p, policy, max_turns) for p in parts]
    else:
        # spawn, not fork: Numba's parallel kernels run on OpenMP, which forbids fork()
        # after it has started its threads
        ctx = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=len(parts), mp_context=ctx) as ex:
            futs = [ex.submit(_play_chunk, game, seed, p, policy, max_turns) for p in parts]
            results = [f.result() for f in futs]
    elapsed = time.perf_counter() - t0
    per_game = sorted((r for part in results for r in part), key=lambda r: r["index"])
    tot = {k: sum(r[k] for r in per_game) for k in ("turns", "moves", "generations",
                                                     "batch_calls")}
    rate = lambda x: x / elapsed if elapsed > 0 else 0.0  # noqa: E731
    return {"game": game, "games": n_games, "seed": seed, "policy": policy,
            "workers": workers, "engine": "ray" if use_ray else (
                "processes" if workers > 1 else "inline"),
            "path": "batch" if game in BATCH_GAMES else "adapter",
            **tot, "seconds": elapsed,
            "games_per_s": rate(n_games), "turns_per_s": rate(tot["turns"]),
            "moves_per_s": rate(tot["moves"]),
            "generations_per_s": rate(tot["generations"]),
            "results": per_game}


def _run_ray(game, seed, parts, policy, max_turns, address, cpus):
    try:
        import ray
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ScenarioError("--ray needs Ray: pip install 'movecore[scale]' (or ray)") from exc
    started = False
    if not ray.is_initialized():
        kw = {"address": address} if address else {"num_cpus": cpus or len(parts) or 1}
        ray.init(include_dashboard=False, log_to_driver=False, **kw)
        started = True
    try:
        remote = ray.remote(_play_chunk)
        return ray.get([remote.remote(game, seed, p, policy, max_turns) for p in parts])
    finally:
        if started:
            ray.shutdown()


# ------------------------------------------------------------------------ CLI
def format_report(rep: dict) -> str:
    return (f"{rep['game']}: {rep['games']} games ({rep['policy']}, seed {rep['seed']}, "
            f"{rep['engine']} x{rep['workers']}, {rep['path']} path) in "
            f"{rep['seconds']:.2f} s\n"
            f"  turns {rep['turns']}  moves {rep['moves']}  move generations "
            f"{rep['generations']}  (batch calls {rep['batch_calls']})\n"
            f"  {rep['games_per_s']:.1f} games/s  {rep['turns_per_s']:.1f} turns/s  "
            f"{rep['moves_per_s']:.1f} moves/s  {rep['generations_per_s']:.1f} "
            f"move generations/s")


def cmd_selfplay(args) -> int:
    from .reach import warmup
    warmup()  # keep numba loading out of the timing
    rep = run_selfplay(args.game, args.games, args.seed, policy=args.policy,
                       workers=args.workers, max_turns=args.turns,
                       ray_address=args.ray or None, use_ray=args.ray is not None)
    if args.json:
        if not args.positions:
            rep = {k: v for k, v in rep.items() if k != "results"}
        print(json.dumps(rep))
    else:
        print(format_report(rep))
        if args.positions:
            for r in rep["results"]:
                print(json.dumps({k: r[k] for k in ("index", "scenario", "turns",
                                                    "sides_left", "positions")}))
    return 0


def register(subparsers) -> None:
    p = subparsers.add_parser("selfplay", help="bulk seeded movement-only self-play",
                              description=__doc__.split("\n\n")[0])
    p.add_argument("--game", required=True, choices=GAMES)
    p.add_argument("--games", type=int, default=100, help="number of games (default 100)")
    p.add_argument("--seed", type=int, default=0, help="base seed (default 0)")
    p.add_argument("--policy", choices=POLICIES, default="random")
    p.add_argument("--workers", type=int, default=1,
                   help="local processes, or Ray tasks with --ray (default 1)")
    p.add_argument("--turns", type=int, default=DEFAULT_TURNS,
                   help=f"turn limit per game (default {DEFAULT_TURNS})")
    p.add_argument("--ray", nargs="?", const="", default=None, metavar="ADDRESS",
                   help="spread the games over a Ray cluster (local when no address)")
    p.add_argument("--json", action="store_true", help="one JSON report")
    p.add_argument("--positions", action="store_true",
                   help="also print every game's final positions")
    p.set_defaults(fn=cmd_selfplay)
