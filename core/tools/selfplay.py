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

Every game is played on a live position (:func:`movecore.position`): the scenario is
read once per process, each game plays on a ``copy()`` of it, and a move is
``legal_moves`` then ``apply_move`` — no scenario is rebuilt, nothing is deep-copied
per move. Figures of a side move one after another, each asking in the position its
allies' moves left (an ally's move may free the cell it stood on), so each figure's
query runs on its own; ``legal_moves_side`` (one batch per side) answers a side as if
each figure moved first, which is what an AI ranking a side's options asks.

Every game is seeded by ``(seed, game index)``, so results depend on neither the worker
count nor the order the workers finish in.
"""
from __future__ import annotations

import copy
import json
import multiprocessing
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

from ..errors import MovecoreError, QueryError, ScenarioError, describe, seed_value
from ..position import grid_distance as _distance  # noqa: F401
from ..rl.turns import (DEFAULT_TURNS, GAME_CLASSES, GAMES, MAX_TURNS,  # noqa: F401
                        REMOVE_CHANCE, Game, Match, _cells, turn_sides, turns_value)

POLICIES = ("random", "greedy")


# ------------------------------------------------------------------------ games
def _at(where):
    """A position's ``where`` as JSON-like lists: [x, y] or [[x, y], ...] (or a word such
    as Descent's ``"town"``)."""
    if isinstance(where, tuple):
        return list(where)
    if isinstance(where, str):
        return where
    return [list(c) for c in where]


@dataclass
class Move:
    """One move taken: the figure, where it went, and the positions before the move."""

    figure: Any
    at: Any
    before: list  # [(id, at)] of every figure in play, before the move
    query: dict   # the scenario query whose answer the move was chosen from
    scenario: dict | None = None  # the position before the move, as a scenario (query in)
    batch: bool = False


# The movement-only game (turn order, queries, usable ends, end of game) lives in
# movecore.rl.turns, shared with the RL environments.


# ------------------------------------------------------------------------ scenarios
_EXAMPLES: dict = {}


def example_scenarios(game: str) -> list[tuple[str, dict]]:
    """The bundled example scenarios of ``game`` with two sides or more, as (file name,
    scenario), by name. Read once per process: the same scenario objects every call, so
    their positions (:func:`root_position`) are built once too (do not change them)."""
    if game not in GAMES:
        raise ScenarioError(f"selfplay --game {game!r}: expected one of {list(GAMES)}")
    out = _EXAMPLES.get(game)
    if out is None:
        from .cli import example_paths
        out = []
        for p in example_paths():
            if p.name.startswith(game + "_"):
                s = json.loads(p.read_text(encoding="utf-8"))
                if s.get("game") == game and _playable(s):
                    out.append((p.name, s))
        if not out:
            raise ScenarioError(f"no bundled example scenario for game {game!r}")
        _EXAMPLES[game] = out
    return list(out)


def _playable(scenario: dict) -> bool:
    """At least two sides (a one-team example is skipped)."""
    from ..position import position
    try:
        return len(position(scenario).sides) >= 2
    except MovecoreError:
        return False


def game_seed(seed: int, index: int) -> np.random.SeedSequence:
    return np.random.SeedSequence([int(seed), int(index)])


from ._roots import _root, root_position  # noqa: E402,F401 (self-play's API)


# ------------------------------------------------------------------------ one game


def play(game: str, scenario: dict, seed, *, policy: str = "random",
         max_turns: int = DEFAULT_TURNS, trace: "list | bool | None" = None) -> dict:
    """Play one game on a copy of the scenario's live position; returns its counters and
    the final positions.

    ``seed`` is an int or a ``SeedSequence``. With ``trace`` (a list), every move is
    appended to it as a :class:`Move` (positions before it, figure, chosen ``at``,
    query); ``trace=True`` returns them as the result's ``"trace"``.

    The turn order and the end of the game are :class:`movecore.rl.turns.Match`'s (the
    RL environments play the same game). A move is ``legal_moves`` then ``apply_row`` of
    the row picked (the position takes an end of its current answer without searching
    again)."""
    if policy not in POLICIES:
        raise QueryError(f"policy must be one of {list(POLICIES)}; got {describe(policy)}")
    keep_trace = trace is True
    if keep_trace:
        trace = []
    elif trace is False:
        trace = None
    elif trace is not None and not isinstance(trace, list):
        raise QueryError(f"trace must be a list, True or None; got {describe(trace)}")
    rng = np.random.default_rng(seed)
    root, sides = _root(game, scenario)
    pos = root.copy()
    match = Match(game, pos, rng, max_turns=max_turns, sides=sides)
    pick = match.greedy_row if policy == "greedy" else match.random_row
    play_row = match.play
    while not match.over:
        row = pick()
        if trace is not None:
            fid = match.figure
            before = [(f, _at(pos.where(f))) for f in pos.figures]
            sq = match.rules.scenario_query(fid, match.query)
            state = pos.to_scenario(sq)
            play_row(row)
            trace.append(Move(fid, _at(pos.where(fid)), before, sq, state,
                              match.rules.batch))
        else:
            play_row(row)
    out = {"turns": match.turn, "moves": match.moves_played,
           "generations": match.generations,
           "sides_left": sorted({str(pos.side_of(f)) for f in pos.figures}),
           "positions": {str(f): _at(pos.where(f)) for f in pos.figures}}
    if keep_trace:
        out["trace"] = trace
    return out


def scenario_at(scenario: dict, positions: list, query: dict) -> dict:
    """The scenario rebuilt from a state: the figures in ``positions`` ([(id, at)], in
    play order) at those places, asked ``query`` (used to re-check a move with solve)."""
    raws = {f["id"]: f for f in scenario["figures"]}
    s = {k: v for k, v in scenario.items() if k not in ("figures", "query")}
    s["figures"] = [dict(copy.deepcopy(raws[fid]), at=copy.deepcopy(at))
                    for fid, at in positions]
    s["query"] = query
    return copy.deepcopy(s)


# ------------------------------------------------------------------------ many games
def _play_chunk(game: str, seed: int, indices: list[int], policy: str,
                max_turns: int, scenarios: list | None = None,
                progress: Callable[[int], None] | None = None,
                partial: list | None = None) -> list[dict]:
    """Play the games ``indices`` (game i on scenario i mod k). Each finished game is
    appended to ``partial`` when given (so an interrupted run keeps what it played)."""
    scen = scenarios if scenarios is not None else example_scenarios(game)
    out = partial if partial is not None else []
    for i in indices:
        name, s = scen[i % len(scen)]
        r = play(game, s, game_seed(seed, i), policy=policy, max_turns=max_turns)
        r["index"], r["scenario"] = i, name
        out.append(r)
        if progress is not None:
            progress(len(out))
    return out


def user_scenario(path: str) -> tuple[str, list]:
    """A user's scenario file for ``--scenario``: (game, [(file name, scenario)]);
    ScenarioError if it cannot be read or has fewer than two sides."""
    from ..scenario import read_scenario as _read
    s = _read(path)
    game = s.get("game") if isinstance(s, dict) else None
    if game not in GAMES:
        raise ScenarioError(f"{path}: 'game' must be one of {list(GAMES)}; got "
                            f"{describe(game)}")
    from ..position import position
    pos = position(s)   # typed errors for a malformed scenario
    if len(pos.sides) < 2:
        raise ScenarioError(f"{path}: self-play needs figures of two sides or more; got "
                            f"sides {pos.sides}")
    return game, [(Path(path).name, s)]


def _chunks(n: int, k: int) -> list[list[int]]:
    k = max(1, min(k, n))
    return [list(range(n))[j::k] for j in range(k)]


def run_selfplay(game: str, n_games: int, seed: int = 0, *, policy: str = "random",
                 workers: int = 1, max_turns: int = DEFAULT_TURNS,
                 ray_address: str | None = None, use_ray: bool = False,
                 ray_cpus: int | None = None, scenarios: list | None = None,
                 progress: Callable[[int], None] | None = None) -> dict:
    """Play ``n_games`` games; returns totals, rates and the per-game results (sorted by
    game index). ``workers`` > 1 uses local processes; ``use_ray`` spreads the games
    over a Ray cluster (``ray_address``, or a local instance with ``ray_cpus`` CPUs).
    ``scenarios``: [(name, scenario)] to play instead of the bundled examples.
    ``progress(games_done)`` is called after each game of an inline run (after each
    small batch with ``workers`` > 1). A run stopped by Ctrl-C (KeyboardInterrupt; inline
    or local processes) returns the games it finished, with ``"interrupted": True``."""
    if scenarios is None:
        example_scenarios(game)  # validates the game name
    if policy not in POLICIES:
        raise QueryError(f"policy must be one of {list(POLICIES)}; got {describe(policy)}")
    for what, v in (("games", n_games), ("workers", workers)):
        if not isinstance(v, int) or isinstance(v, bool) or v < (0 if what == "games" else 1):
            raise QueryError(f"{what} must be a positive integer; got {describe(v)}")
    max_turns = turns_value(max_turns, "turns")
    seed_value(seed, none=False)
    parts = _chunks(n_games, workers) if n_games else []
    interrupted = False
    if not use_ray and (workers == 1 or len(parts) <= 1):
        # read and pack the positions the games start from before the clock starts:
        # once per process (workers each do it in their own, inside the time)
        scen = scenarios if scenarios is not None else example_scenarios(game)
        for _, s in scen[:n_games]:
            _root(game, s)
    t0 = time.perf_counter()
    if use_ray:
        results = _run_ray(game, seed, parts, policy, max_turns, ray_address, ray_cpus,
                           scenarios)
    elif workers == 1 or len(parts) <= 1:
        done: list = []
        try:
            for p in parts:
                _play_chunk(game, seed, p, policy, max_turns, scenarios, progress, done)
        except KeyboardInterrupt:
            interrupted = True
        results = [done]
        n_games = len(done)
    else:
        done, interrupted = _run_processes(game, seed, n_games, len(parts), policy,
                                           max_turns, scenarios, progress)
        results = [done]
        n_games = len(done)
    elapsed = time.perf_counter() - t0
    per_game = sorted((r for part in results for r in part), key=lambda r: r["index"])
    tot = {k: sum(r[k] for r in per_game) for k in ("turns", "moves", "generations")}
    rate = lambda x: x / elapsed if elapsed > 0 else 0.0  # noqa: E731
    return {"game": game, "games": n_games, "seed": seed, "policy": policy,
            "workers": workers, "engine": "ray" if use_ray else (
                "processes" if workers > 1 else "inline"),
            "path": "position",
            **tot, "seconds": elapsed,
            "games_per_s": rate(n_games), "turns_per_s": rate(tot["turns"]),
            "moves_per_s": rate(tot["moves"]),
            "generations_per_s": rate(tot["generations"]),
            "interrupted": interrupted, "results": per_game}


def _ignore_sigint() -> None:
    """A worker process's initializer: Ctrl-C is the parent's to handle (it stops handing
    out games and keeps the ones finished), not a crash of every worker."""
    import signal
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _run_processes(game, seed, n_games, workers, policy, max_turns, scenarios,
                   progress) -> tuple[list, bool]:
    """Play the games on ``workers`` local processes, handed out in small batches so that
    ``progress(games_done)`` moves as they finish and Ctrl-C (KeyboardInterrupt in this
    process) keeps every game finished: the batches not started are cancelled, the ones
    running finish. Returns (per-game results, interrupted). A game's result depends only
    on its index and the seed, never on the batches."""
    from concurrent.futures import as_completed
    # spawn, not fork: Numba's parallel kernels run on OpenMP, which forbids fork()
    # after it has started its threads
    ctx = multiprocessing.get_context("spawn")
    size = max(1, min(50, n_games // (workers * 8)))
    batches = [list(range(i, min(i + size, n_games))) for i in range(0, n_games, size)]
    done: list = []
    taken: set = set()
    interrupted = False
    ex = ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_ignore_sigint)
    try:
        futs = [ex.submit(_play_chunk, game, seed, b, policy, max_turns, scenarios)
                for b in batches]
        try:
            for f in as_completed(futs):
                taken.add(f)
                done.extend(f.result())
                if progress is not None:
                    progress(len(done))
        except KeyboardInterrupt:
            interrupted = True
            for f in futs:
                f.cancel()
            for f in futs:      # the batches already running finish: keep them
                if f in taken or f.cancelled():
                    continue
                try:
                    done.extend(f.result())
                except Exception:  # noqa: BLE001 (a worker lost: its games are not kept)
                    continue
    finally:
        ex.shutdown(wait=True, cancel_futures=True)
    return done, interrupted


def _run_ray(game, seed, parts, policy, max_turns, address, cpus, scenarios=None):
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
        return ray.get([remote.remote(game, seed, p, policy, max_turns, scenarios)
                        for p in parts])
    finally:
        if started:
            ray.shutdown()


# ------------------------------------------------------------------------ CLI
def format_report(rep: dict) -> str:
    head = "interrupted after " if rep.get("interrupted") else ""
    return (f"{rep['game']}: {head}{rep['games']} games ({rep['policy']}, seed "
            f"{rep['seed']}, {rep['engine']} x{rep['workers']}, {rep['path']} path) in "
            f"{rep['seconds']:.2f} s\n"
            f"  turns {rep['turns']}  moves {rep['moves']}  move generations "
            f"{rep['generations']}\n"
            f"  {rep['games_per_s']:.1f} games/s  {rep['turns_per_s']:.1f} turns/s  "
            f"{rep['moves_per_s']:.1f} moves/s  {rep['generations_per_s']:.1f} "
            f"move generations/s")


class _Progress:
    """``games i/N`` on stderr, redrawn at most 5 times a second (only on a terminal)."""

    def __init__(self, total: int, stream=None):
        self.total, self.stream = total, stream or sys.stderr
        self.last = 0.0

    def __call__(self, done: int) -> None:
        now = time.perf_counter()
        if now - self.last >= 0.2 or done == self.total:
            self.last = now
            self.stream.write(f"\rselfplay: {done}/{self.total} games")
            if done == self.total:
                self.stream.write("\n")
            self.stream.flush()


def cmd_selfplay(args) -> int:
    from ..reach import warmup
    if args.game is None and args.scenario is None:
        raise QueryError("selfplay needs --game G or --scenario FILE")
    scenarios = None
    game = args.game
    if args.scenario is not None:
        game, scenarios = user_scenario(args.scenario)
        if args.game is not None and args.game != game:
            raise ScenarioError(f"--game {args.game} but {args.scenario} is a {game} "
                                f"scenario")
    warmup()  # keep numba loading out of the timing
    if args.batch is not None:
        if args.workers != 1 or args.ray is not None:
            raise QueryError("--batch runs in this process: it takes --threads, not "
                             "--workers or --ray")
        from .selfplay_batch import format_batched, run_batched
        rep = run_batched(game, args.games, scenarios or example_scenarios(game),
                          args.seed, batch=args.batch, policy=args.policy,
                          max_turns=args.turns, threads=args.threads)
        print(json.dumps(rep) if args.json else format_batched(rep))
        return 0
    show = sys.stderr.isatty() and args.ray is None and not args.no_progress
    try:
        rep = run_selfplay(game, args.games, args.seed, policy=args.policy,
                           workers=args.workers, max_turns=args.turns,
                           ray_address=args.ray or None, use_ray=args.ray is not None,
                           scenarios=scenarios,
                           progress=_Progress(args.games) if show else None)
    except KeyboardInterrupt:   # Ray: nothing partial to report
        print("movecore: selfplay interrupted", file=sys.stderr)
        return 130
    if show and rep["interrupted"]:
        sys.stderr.write("\n")
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
    return 130 if rep["interrupted"] else 0


def register(subparsers) -> None:
    p = subparsers.add_parser("selfplay", help="bulk seeded movement-only self-play",
                              description=__doc__.split("\n\n")[0])
    p.add_argument("--game", choices=GAMES, help="play the game's bundled examples")
    p.add_argument("--scenario", metavar="FILE",
                   help="play this scenario file instead (its board, options, figures)")
    p.add_argument("--games", type=int, default=100, help="number of games (default 100)")
    p.add_argument("--seed", type=int, default=0, help="base seed (default 0)")
    p.add_argument("--policy", choices=POLICIES, default="random",
                   help="random: any legal end; greedy: nearest an enemy (default random)")
    p.add_argument("--workers", type=int, default=1,
                   help="local processes, or Ray tasks with --ray (default 1)")
    p.add_argument("--turns", type=int, default=DEFAULT_TURNS,
                   help=f"turn limit per game (default {DEFAULT_TURNS})")
    p.add_argument("--batch", type=int, default=None, metavar="B",
                   help="play B games at a time in one batched call per move "
                        "(movecore.batch; docs/selfplay.md)")
    p.add_argument("--threads", type=int, default=1,
                   help="threads of a --batch call (default 1)")
    p.add_argument("--ray", nargs="?", const="", default=None, metavar="ADDRESS",
                   help="spread the games over a Ray cluster (local when no address)")
    p.add_argument("--json", action="store_true", help="one JSON report")
    p.add_argument("--positions", action="store_true",
                   help="also print every game's final positions")
    p.add_argument("--no-progress", action="store_true",
                   help="no progress line on stderr (it is shown only on a terminal)")
    p.set_defaults(fn=cmd_selfplay)
