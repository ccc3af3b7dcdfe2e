"""``movecore bench --batch``: batched self-play against the kernel, per game.

For each game's first bundled scenario with two sides: batched random self-play
(:class:`movecore.tools.selfplay_batch.BatchedPlay`) moves/s for B = 1, 64, 1,024 and 4,096 on
1 and 2 threads, beside ``reach_many`` (1 thread) queries/s on the same board from the
moving figures' cells (the kernel alone: a plain prepared query whose budget is the
figure's), and the per-position self-play loop (:func:`movecore.tools.selfplay.run_selfplay`,
one core). A batched move is one acting figure's legal ends, the policy's choice, the move
and its consequences; ``move / query`` is what it costs over one kernel query. Beside
them, the Gymnasium vector environment (:func:`movecore.rl.vector_env`, with the ``rl``
extra) on the same scenario: env steps/s (one learner move, its consequences, the
opponents' moves until the learner acts again, the observations and masks of every game)
for B = 64 and 1,024 on 1 and 2 threads, the step call alone (the actions are picked
outside the clock); and the target's move, "mask, choice, apply, observation": the figure
moves the vector env plays per second at B = 1,024 on 1 thread (the learners' and the
opponents'; every game's observation and mask drawn at every env step, ``copy=True``,
and again with the kept observations, ``copy=False``), over one kernel query. Then the
resident memory of B = 4,096 games of the game's largest
bundled scenario. The load average is printed with the table: the 2-thread figures mean
little on a loaded machine.

All numbers of one game come from one run; the 1- and 2-thread figures of one B from
rounds taken in turn (a burst of load falls on both alike: measured one after the other,
a single 0.1 s burst on a sandboxed machine moved the 2-thread/1-thread ratio from 1.9x to
1.2-1.3x). The machine is shared and noisy.
"""
from __future__ import annotations

import time

import numpy as np


BATCHES = (1, 64, 1024, 4096)
ENV_BATCHES = (64, 1024)


def _env_steps_per_s(envs, min_time: float) -> list:
    """Env steps/s of ``envs.step`` (B per call) for each vector env of ``envs`` (the same
    scenario on 1 and 2 threads, or kept observations), the step alone: each step's
    actions (a random legal action per game) are picked before its clock starts; the
    best of rounds of about 4,096 env steps, the envs' rounds taken in turn over at least
    ``min_time`` seconds each; the figure moves played per second in that round (the
    learners' and the opponents': ``envs.counts["moves"]``; None on the positions
    backend); and the CPU seconds per env step of the process and of its busiest thread
    (as :func:`_moves_per_s`). One ``(steps/s, cpu, busiest, moves/s)`` per env."""
    rngs = [np.random.default_rng(1) for _ in envs]
    for e, rng in zip(envs, rngs):
        e.reset(seed=1)
        for _ in range(2):
            e.step(_random_actions(e, rng))
    per_step = [[0, 0] for _ in envs]           # env steps, moves (all rounds)

    def one_round(i):
        e = envs[i]
        dt = cpu = main = 0.0
        steps = max(1, 4096 // e.num_envs)
        m0 = e.counts["moves"]
        for _ in range(steps):
            a = _random_actions(e, rngs[i])
            c0, t1 = time.process_time(), time.thread_time()
            t0 = time.perf_counter()
            e.step(a)
            dt += time.perf_counter() - t0
            cpu += time.process_time() - c0
            main += time.thread_time() - t1
        if m0 is not None:
            per_step[i][0] += steps * e.num_envs
            per_step[i][1] += e.counts["moves"] - m0
        return steps * e.num_envs, dt, cpu, main

    got = _interleaved(len(envs), one_round, min_time)
    return [(sps, cpu, busiest, sps * mv / st if st else None)
            for (sps, cpu, busiest), (st, mv) in zip(got, per_step)]


def _random_actions(envs, rng):
    m = envs._mask
    return (rng.random(m.shape, np.float32) * m).argmax(1)


def _interleaved(n: int, one_round, min_time: float) -> list:
    """Rounds of ``n`` contestants taken in turn (``one_round(i)`` -> units, wall
    seconds, process CPU seconds, this thread's CPU seconds) until ``n * min_time``
    seconds have passed: a burst of load on a shared machine then falls on every
    contestant alike, and the ratio of their figures holds far better than that of
    figures measured one after the other. Per contestant: (the best round's units/s,
    CPU seconds per unit of the process, of its busiest thread: this one, or the
    others together)."""
    best, units = [0.0] * n, [0] * n
    cpu, main = [0.0] * n, [0.0] * n
    t_end = time.perf_counter() + n * min_time
    while True:
        for i in range(n):
            u, dt, c, m = one_round(i)
            units[i] += u
            cpu[i] += c
            main[i] += m
            if u:
                best[i] = max(best[i], u / dt)
        if time.perf_counter() >= t_end and min(best) > 0:
            return [(best[i], cpu[i] / units[i], max(main[i], cpu[i] - main[i]) / units[i])
                    for i in range(n)]


def _vector_env(scenario, B: int, threads: int, copy: bool = True):
    try:
        import movecore.rl as rl
        return rl.vector_env(scenario, num_envs=B, threads=threads, copy=copy)
    except ImportError:       # no rl extra: no vector environment column
        return None


def _moves_per_s(plays, min_time: float) -> list:
    """Moves/s of ``play.step()`` for each of ``plays`` (the same games on 1 and 2
    threads): the best of rounds of about 4,096 moves each (as ``reach_many``'s best
    round beside it), the plays' rounds taken in turn (:func:`_interleaved`) over at
    least ``min_time`` seconds each, after a warm-up; and the CPU seconds per move of the
    whole process and of its busiest thread over all rounds (the calling thread, or the
    others together: with 2 threads, the pool's one), which a loaded machine inflates
    far less than wall time. One ``(moves/s, cpu, busiest)`` per play."""
    for play in plays:
        for _ in range(2):
            play.step()

    def one_round(i):
        play = plays[i]
        n = 0
        c0, m0 = time.process_time(), time.thread_time()
        t0 = time.perf_counter()
        for _ in range(max(1, 4096 // play.B)):
            n += play.step()
        dt = time.perf_counter() - t0
        return n, dt, time.process_time() - c0, time.thread_time() - m0

    return _interleaved(len(plays), one_round, min_time)


def _kernel_queries_per_s(play, min_time: float, cpu: list | None = None) -> float:
    """``reach_many`` (1 thread) queries/s from the figures' start cells, on the board
    and with the budget the batch asks (the array backend's own prepared query; else a
    plain prepared query on the position's board): the best round's. ``cpu``: a list
    that gets the CPU seconds per query over all rounds (``time.process_time``)."""
    from . import selfplay as sp
    G = play.games
    # (Dark Realms: rolled; Heroscape: places of two spaces: below)
    if G.backend == "arrays" and G._budget[0] >= 0 and not G.multi_space:
        prep = G._layout.shapes[0]
        budget = int(G._budget[0])
        starts = G.cell[0][G.alive[0]]
    else:
        from .bench_games import _plain_board
        from ..mover import Mover
        from ..reach import prepare
        pos = G.root
        f = G.ids[int(np.flatnonzero(play.movers)[0])]
        q = play.queries[G.ids.index(f)] if play.queries is not None else \
            play.g.query(pos, f, np.random.default_rng(0))
        m = pos.legal_moves(f, **q)
        board = _plain_board(pos, f, play.kind)
        budget = max(int(m.costs.max()), 1)
        prep = prepare(board, Mover(), budget)
        cells = [board.find(tuple(sp._cells(pos.where(g))[0].tolist()))
                 for g in pos.figures if not isinstance(pos.where(g), str)]
        starts = np.array([c for c in cells if c >= 0], np.int64)
    starts = np.resize(starts, 4096)
    prep.reach_many(starts, budget, threads=1)
    best = float("inf")
    t_end = time.perf_counter() + min_time
    c0, n = time.process_time(), 0
    while True:
        t0 = time.perf_counter()
        prep.reach_many(starts, budget, threads=1)
        best = min(best, time.perf_counter() - t0)
        n += len(starts)
        if time.perf_counter() >= t_end:
            if cpu is not None:
                cpu.append((time.process_time() - c0) / n)
            return len(starts) / best


def batch_report(games=None, min_time: float = 0.3, selfplay_games: int = 200,
                 batches=BATCHES, log=print) -> dict:
    """Print and return the batched self-play table (see the module docstring)."""
    from .selfplay import GAMES, example_scenarios, run_selfplay
    from .selfplay_batch import BatchedPlay
    out = {}
    import os
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    log(f"[batch] load average {'/'.join(f'{x:.2f}' for x in load) if load else '?'} "
        f"({os.cpu_count()} cores)", flush=True)
    out["load"] = load
    for game in games or GAMES:
        scen = example_scenarios(game)
        name, scenario = scen[0]
        log(f"[batch] {game} ({name}) ...", flush=True)
        row = {"scenario": name}
        for B in batches:       # 1 and 2 threads, their rounds in turn
            plays = [BatchedPlay(game, scenario, B, seed=1, threads=t) for t in (1, 2)]
            for threads, (mps, cpu, busiest) in zip((1, 2), _moves_per_s(plays, min_time)):
                row[(B, threads)] = mps
                row[("cpu", B, threads)] = (cpu, busiest)
            play = plays[-1]
        row["backend"] = play.games.backend
        row["why"] = play.games.why
        kcpu = []
        row["kernel"] = _kernel_queries_per_s(play, min_time, kcpu)
        row[("cpu", "kernel")] = kcpu[0]
        for B in ENV_BATCHES:
            # 1 and 2 threads; at the largest B also the kept observations (copy=False)
            envs = [_vector_env(scenario, B, t) for t in (1, 2)]
            if B == ENV_BATCHES[-1]:
                envs.append(_vector_env(scenario, B, 1, copy=False))
            missing = any(e is None for e in envs)     # (no rl extra)
            got = [(None, None, None, None)] * len(envs) if missing else \
                _env_steps_per_s(envs, min_time)
            for key, g in zip((1, 2, "kept"), got):
                row[("env", B, key)] = g[0]
                row[("cpu", "env", B, key)] = g[1:3]
                row[("env moves", B, key)] = g[3]
                # CPU seconds per move played (its share of the env step's CPU)
                row[("cpu", "env move", B, key)] = None if g[3] is None else \
                    g[1] * g[0] / g[3]
            row["env_backend"] = None if missing else envs[0].backend
        rep = run_selfplay(game, selfplay_games, 1, scenarios=[(name, scenario)])
        row["position"] = rep["moves_per_s"]
        out[game] = row
        _print_row(game, row, batches, log)
    log("[batch] memory: 4,096 games of each game's largest bundled scenario ...",
        flush=True)
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    log(f"[batch] load average at the end "
        f"{'/'.join(f'{x:.2f}' for x in load) if load else '?'}", flush=True)
    for game in games or GAMES:
        out[game]["memory_mib"] = memory_4096(game)
        log(f"  {game}: {out[game]['memory_mib']:.1f} MiB")
    return out


def _print_row(game, row, batches, log) -> None:
    k = row["kernel"]
    cells = "  ".join(f"B={B}: {row[(B, 1)]:,.0f} / {row[(B, 2)]:,.0f}" for B in batches)
    best = max(row[(B, 1)] for B in batches)
    log(f"  {game} [{row['backend']} backend"
        f"{'' if row['why'] is None else ': ' + row['why']}]\n"
        f"    moves/s (1 / 2 threads): {cells}\n"
        f"    reach_many 1 thread: {k:,.0f} queries/s; per-position self-play "
        f"{row['position']:,.0f} moves/s; best batched move = "
        f"{k / best:.2f} kernel queries; 2 threads / 1 at B=4096: "
        f"{row[(batches[-1], 2)] / row[(batches[-1], 1)]:.2f}x (CPU time: "
        f"{_cpu_ratio(row, batches[-1]):.2f}x, one thread's CPU per move over the "
        f"busiest thread's with two; 2 threads use {_cpu_total(row, batches[-1]):.2f}x "
        f"the CPU of 1)")
    if row.get(("env", ENV_BATCHES[0], 1)) is not None:
        env = "  ".join(f"B={B}: {row[('env', B, 1)]:,.0f} / {row[('env', B, 2)]:,.0f}"
                        for B in ENV_BATCHES)
        B = ENV_BATCHES[-1]
        cpu1, cpu2 = row[("cpu", "env", B, 1)], row[("cpu", "env", B, 2)]
        log(f"    vector env [{row['env_backend']}] env steps/s (1 / 2 threads): {env}; "
            f"2 threads / 1 at B={B}: {row[('env', B, 2)] / row[('env', B, 1)]:.2f}x "
            f"(CPU time: {cpu1[0] / cpu2[1]:.2f}x)")
        mv, kept = row[("env moves", B, 1)], row[("env moves", B, "kept")]
        if mv:
            log(f"    vector env move with its observation, B={B}, 1 thread: "
                f"{mv:,.0f} moves/s ({mv / row[('env', B, 1)]:.2f} moves per env step) "
                f"= {k / mv:.2f} kernel queries; kept observations (copy=False): "
                f"{kept:,.0f} moves/s = {k / kept:.2f} kernel queries")
            kc = row[("cpu", "kernel")]
            bp = row.get(("cpu", B, 1), (float("nan"),))[0]
            log(f"      by CPU time (what load inflates least): a move with its "
                f"observation = {row[('cpu', 'env move', B, 1)] / kc:.2f} kernel queries, "
                f"kept {row[('cpu', 'env move', B, 'kept')] / kc:.2f}; a BatchedPlay "
                f"move (B={B}, 1 thread) = {bp / kc:.2f}")


def _cpu_ratio(row, B) -> float:
    """What two threads would give over one on two free cores, from CPU time alone."""
    return row[("cpu", B, 1)][0] / row[("cpu", B, 2)][1]


def _cpu_total(row, B) -> float:
    return row[("cpu", B, 2)][0] / row[("cpu", B, 1)][0]


def memory_4096(game: str) -> float:
    """MiB that B = 4,096 games of ``game``'s largest bundled scenario (most places) hold
    after one step: the bytes allocated and still held, as ``tracemalloc`` counts them
    (numpy's arrays included). The resident set size would read 0 here: the allocator
    reuses the pages that the earlier runs of this process freed."""
    import gc
    import tracemalloc

    from ..position import position
    from .selfplay import example_scenarios
    from .selfplay_batch import BatchedPlay
    scen = example_scenarios(game)
    size = lambda s: max(position(s).n_actions(f) for f in position(s).figures)  # noqa
    name, scenario = max(scen, key=lambda ns: size(ns[1]))
    gc.collect()
    tracemalloc.start()
    try:
        play = BatchedPlay(game, scenario, 4096, seed=0)
        play.step()
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    del play
    gc.collect()
    return held / 2**20
