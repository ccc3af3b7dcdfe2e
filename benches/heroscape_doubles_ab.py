"""Before/after speed of a change to Heroscape's two-space moves on the batched arrays, in
one process: a baseline tree's penalty search over a table of steps
(``kernels/reach_pen.py``), two-space call (``heroscape/_batch_doubles.py``) and compiled
self-play step (``tools/_selfplay_heroscape.py``) are loaded beside the installed tree's
(as ``*_base`` modules, linked to each other), and each is timed against its new
counterpart on the same seeded games, rounds alternated, so that a slow spell of a shared
machine hits both alike.

    git worktree add --detach /tmp/base BASE_COMMIT
    python benches/heroscape_doubles_ab.py /tmp/base [--scenarios a.json,b.json]
                                           [--rounds 7] [--B 1024]

Per bundled scenario (default: the dragon's and the three published battlefields), CPU
time of this thread: (1) the two-space call on every two-space walker's game of 40
self-play steps (one call per captured state, as the vector env calls it), checked to
give the same outs; (2) a ``BatchedPlay`` move (the compiled step, one thread), the two
plays checked to stay equal; (3) a vector env move with its observation (``copy=True``,
one thread; the baseline's two-space call swapped into one of two envs of the same
seed), the masks checked equal -- since the env's step became one compiled call per
chunk (``_vechsenv``, the installed tree's call linked in), the swapped kernel answers
only at reset, so (3) compares the same code on both sides. Prints the medians, their
ratio, and (2), (3) in kernel queries (the bench's ``reach_many`` query, timed in the
same process). Only for changes
within those three files (the rest of the package is the installed tree's; a baseline's
tables of steps must read the installed tree's, as they did on 2026-11-27; and its
two-space call must take the installed tree's arguments: a baseline before the call took
``near_far``, 2026-11-27 afternoon, does not -- ``heroscape_leave_far_ab.py`` measures
that change with its own switch instead).
"""
from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import sys
import time

import numpy as np


def _load(name: str, path: str):
    spec = importlib.util.spec_from_file_location(name, path)
    m = importlib.util.module_from_spec(spec)
    sys.modules[name] = m
    spec.loader.exec_module(m)
    return m


def _baseline(base: str):
    """The baseline's two-space call and step kernel's ``step``, linked to its search."""
    import movecore.games.heroscape as hs
    from movecore.games.heroscape import _batch_doubles
    compiled = importlib.import_module("movecore.reach.compiled")
    rp = _load("movecore.kernels._reach_pen_base", os.path.join(base, "kernels", "reach_pen.py"))
    bd = _load("movecore.games.heroscape._batch_doubles_base",
               os.path.join(base, "core", "games", "heroscape", "_batch_doubles.py"))
    sh = _load("movecore.tools._selfplay_heroscape_base",
               os.path.join(base, "core", "tools", "_selfplay_heroscape.py"))
    keep = compiled.penalty_steps_kernel
    compiled.penalty_steps_kernel = rp.steps_kernel      # (doubles_kernel links it in)
    try:
        dk = bd.doubles_kernel()
    finally:
        compiled.penalty_steps_kernel = keep
    hs._batch_doubles = bd                               # (step_kernel links that in)
    try:
        sh.step_kernel()
    finally:
        hs._batch_doubles = _batch_doubles
    return dk, sh.step


def _walker_calls(scenario, B, steps=40):
    """The states of ``steps`` self-play steps: per step, the games whose actor is a
    two-space walker (rows, figures, budgets) and their arrays."""
    from movecore.tools.selfplay_batch import BatchedPlay
    play = BatchedPlay("heroscape", scenario, B, seed=1, threads=1)
    G = play.games
    D = G._selfplay["doubles"](True)
    kind, passes = D[2], D[3]
    calls = []
    for _ in range(steps):
        a = play.actor
        rows = np.array([b for b in range(B) if not play.done[b] and kind[a[b]] >= 0 and
                         not passes[a[b]]], np.int64)
        figs = a[rows].astype(np.int64)
        calls.append((G.occ.copy(), G.cell.copy(), G.alive.copy(), rows, figs,
                      np.asarray(G._budget)[figs].astype(np.int64)))
        play.step()
    return G, D, calls


def _doubles(kernels, G, D, calls, rounds, check=None):
    """CPU seconds per game of the two calls ``kernels`` on ``calls``, per round; their
    outs checked equal on every call first (or by ``check(outs, call)``)."""
    B, P = G.B, G.n_places
    outs = [(np.zeros((B, P), np.uint8), np.full((B, P), -1, np.int32),
             np.zeros((B, P), np.int8)) for _ in kernels]
    no_pen = np.zeros((0, 0), np.int32)

    def one(i, c):
        m, co, s = outs[i]
        m[:] = 0
        co[:] = -1
        s[:] = 0
        t0 = time.thread_time()
        kernels[i](*c[:6], *D, m, co, s, no_pen, 0)
        return time.thread_time() - t0

    for c in calls:
        for i in (0, 1):
            one(i, c)
        if check is not None:
            check(outs, c)
            continue
        assert all(np.array_equal(x, y) for x, y in zip(*outs)), "the outs differ"
    n = sum(len(c[3]) for c in calls)
    per = [[], []]
    for order in _orders(rounds):
        for i in order:
            per[i].append(sum(one(i, c) for c in calls) / n)
    return n, per


def _orders(rounds, seed=1):
    """The two sides' order in each round: shuffled (seeded), so that neither always
    runs first."""
    rng = np.random.default_rng(seed)
    return [rng.permutation(2).tolist() for _ in range(rounds)]


def _plays(steps, scenario, B, rounds, wall=None, same=True):
    """CPU time per move of ``steps[i]`` (a ``_selfplay_heroscape.step``) on its own
    ``BatchedPlay`` of the same seed, rounds of 10 steps; with ``wall`` (two lists),
    the wall time per move there too. The plays checked equal at the end (not with
    ``same`` False: steps that answer otherwise)."""
    from movecore.tools.selfplay_batch import BatchedPlay
    plays = [BatchedPlay("heroscape", scenario, B, seed=1, threads=1) for _ in steps]
    for p, s in zip(plays, steps):
        for _ in range(2):
            s(p, 0)
    per = [[], []]
    for order in _orders(rounds, 2):
        for i in order:
            t0, w0, n = time.thread_time(), time.perf_counter(), 0
            for _ in range(10):
                n += steps[i](plays[i], 0)
            per[i].append((time.thread_time() - t0) / n)
            if wall is not None:
                wall[i].append((time.perf_counter() - w0) / n)
    assert not same or np.array_equal(plays[0].games.cell, plays[1].games.cell) and all(
        np.array_equal(x, y) for x, y in zip(plays[0]._out, plays[1]._out)), "plays differ"
    return plays[1], per


def _envs(old_kernel, scenario, B, rounds):
    import movecore.rl as rl
    from movecore.tools.bench_batch import _random_actions
    envs = [rl.vector_env(scenario, num_envs=B, threads=1, copy=True) for _ in range(2)]
    envs[0]._np._hs.kernel = old_kernel
    rngs = [np.random.default_rng(1) for _ in envs]
    for e in envs:
        e.reset(seed=1)
    per = [[], []]
    for r in range(rounds + 2):
        for i in (0, 1):
            e, m0, dt = envs[i], envs[i].counts["moves"], 0.0
            for _ in range(4):
                a = _random_actions(e, rngs[i])
                t0 = time.thread_time()
                e.step(a)
                dt += time.thread_time() - t0
            if r >= 2:      # (two rounds of warm-up)
                per[i].append(dt / (e.counts["moves"] - m0))
    assert all(np.array_equal(x, y) for x, y in zip(envs[0]._mask, envs[1]._mask))
    return per


def _query_cpu(scenario, play) -> float:
    """CPU seconds of the bench's reference query (``reach_many`` on the same board),
    the median of 7 short rounds in this process."""
    from movecore.tools.bench_batch import _query_round, _reference
    one = _query_round(_reference("heroscape", scenario, play))
    return float(np.median([(lambda r: r[3] / r[0])(one(0.05)) for _ in range(7)]))


def _load_avg() -> str:
    return f"load {'/'.join(f'{x:.2f}' for x in os.getloadavg())}"


def _parser(doc: str, rounds: int) -> argparse.ArgumentParser:
    """The options these A/B scripts share: ``--scenarios``, ``--rounds``, ``--B``."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--scenarios", default="heroscape_engaged_knight.json,"
                    "heroscape_map_aoa_heshva_basin.json,heroscape_map_aoa_howling_pass.json,"
                    "heroscape_map_aoa_shattered_table.json")
    ap.add_argument("--rounds", type=int, default=rounds)
    ap.add_argument("--B", type=int, default=1024)
    return ap


def _each_scenario(a):
    """``(name, scenario, G, D, calls)`` of each of ``a.scenarios`` (``_walker_calls``),
    the load average printed before the first and after the last."""
    from movecore.tools.selfplay import example_scenarios
    ex = dict(example_scenarios("heroscape"))
    print(_load_avg(), flush=True)
    for name in a.scenarios.split(","):
        yield (name, ex[name]) + _walker_calls(ex[name], a.B)
    print(_load_avg())


def main(argv=None) -> int:
    ap = _parser(__doc__, 7)
    ap.add_argument("base", help="a checkout of the baseline commit")
    a = ap.parse_args(argv)
    from movecore.games.heroscape._batch_doubles import doubles_kernel
    from movecore.tools import _selfplay_heroscape
    old_dk, old_step = _baseline(a.base)
    med = np.median
    for name, sc, G, D, calls in _each_scenario(a):
        n, per = _doubles([old_dk, doubles_kernel()], G, D, calls, a.rounds)
        print(f"{name}: two-space call, {n} walker games: old {med(per[0]) * 1e6:.2f} us a "
              f"game, new {med(per[1]) * 1e6:.2f}: {med(per[0]) / med(per[1]):.3f}x",
              flush=True)
        play, per = _plays([old_step, _selfplay_heroscape.step], sc, a.B, a.rounds)
        q = _query_cpu(sc, play)
        o, w = med(per[0]), med(per[1])
        print(f"  BatchedPlay move, B={a.B}, 1 thread: old {o * 1e6:.2f} us ({o / q:.2f} "
              f"queries), new {w * 1e6:.2f} us ({w / q:.2f}): {o / w:.3f}x "
              f"(query {q * 1e6:.3f} us)", flush=True)
        per = _envs(old_dk, sc, a.B, a.rounds)
        o, w = med(per[0]), med(per[1])
        print(f"  vector env move, B={a.B}, 1 thread, copy=True: old {o * 1e6:.2f} us "
              f"({o / q:.2f} queries), new {w * 1e6:.2f} us ({w / q:.2f}): {o / w:.3f}x",
              flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
