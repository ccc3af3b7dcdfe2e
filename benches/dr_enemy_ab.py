"""Before/after speed of a change to Dark Realms' compiled enemy AI
(``core/games/dark_realms/_batch_enemy.py``: ``kernel()``'s ``enemy_games`` and the
searches it calls), in one process: a baseline tree's module is loaded beside the
installed one (compiled without Numba's cache), and

* ``BatchedPlay`` (the chunked self-play step, one thread) is stepped on each kernel in
  turn, round by round, on the same seeds (asserting both played the same games);
* the enemy queries of the first steps of those games (recorded once) are answered by
  each kernel in turn, on the same inputs (asserting the same moves).

    git worktree add --detach /tmp/base BASE_COMMIT
    python benches/dr_enemy_ab.py /tmp/base [--B 1024] [--rounds 21] [--record 40]

Prints the CPU per move of each side (``time.process_time``: the other work of the
machine not counted) and the median over the rounds of old/new (> 1: faster). Only for
changes that keep the kernel's arguments (the installed ``BatchEnemyAI`` makes them).
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time

import numpy as np


def load_base(base: str):
    """The baseline's ``_batch_enemy``'s compiled ``enemy_games`` (no Numba cache: the
    installed module's cache entries have the same names)."""
    from movecore.kernels import _types as T
    path = os.path.join(base, "core", "games", "dark_realms", "_batch_enemy.py")
    name = "movecore.games.dark_realms._batch_enemy_base"
    spec = importlib.util.spec_from_file_location(name, path)
    m = importlib.util.module_from_spec(spec)
    m.__package__ = "movecore.games.dark_realms"
    sys.modules[name] = m
    cache, T.CACHE = T.CACHE, False
    try:
        spec.loader.exec_module(m)
        return m.kernel()
    finally:
        T.CACHE = cache


def _ratio(res) -> str:
    o, n = np.median(res["old"]), np.median(res["new"])
    r = np.median([a / b for a, b in zip(res["old"], res["new"])])
    return f"old {o * 1e6:.3f} new {n * 1e6:.3f} us CPU; old/new {r:.3f} (median of rounds)"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("base")
    ap.add_argument("--B", type=int, default=1024)
    ap.add_argument("--rounds", type=int, default=21)
    ap.add_argument("--record", type=int, default=40, help="steps whose enemy queries "
                    "the kernel-alone rounds answer")
    a = ap.parse_args(argv)
    import movecore.games.dark_realms._batch_enemy as be
    from movecore.tools.selfplay import example_scenarios
    from movecore.tools.selfplay_batch import BatchedPlay
    kern = {"new": be.kernel(), "old": load_base(a.base)}
    _, scen = example_scenarios("dark_realms")[0]
    real = be.kernel
    # the enemy queries of the first ``record`` steps (the inputs of each call)
    rec = []
    rp = BatchedPlay("dark_realms", scen, a.B, seed=1, threads=1)

    def recording():
        def call(eg, es, em, occ, cell, alive, *rest):
            rec.append(tuple(x.copy() for x in (eg, es, em, occ, cell, alive)))
            return kern["new"](eg, es, em, occ, cell, alive, *rest)
        return call
    be.kernel = recording
    try:
        for _ in range(a.record):
            rp.step()
    finally:
        be.kernel = real
    args = rp.games._compiled.args
    plays = {v: BatchedPlay("dark_realms", scen, a.B, seed=1, threads=1) for v in kern}
    step = {v: [] for v in kern}
    alone = {v: [] for v in kern}
    ne = sum(len(r[0]) for r in rec)
    masks = [np.zeros(r[3].shape, np.uint8) for r in rec]
    try:
        for i in range(a.rounds):
            for v in (("old", "new") if i % 2 else ("new", "old")):
                k = kern[v]
                be.kernel = lambda k=k: k        # (what the chunked step calls)
                c0, n = time.process_time(), 0
                for _ in range(8):
                    n += plays[v].step()
                step[v].append((time.process_time() - c0) / n)
                for m in masks:
                    m[:] = 0
                c0 = time.process_time()
                for r, m in zip(rec, masks):
                    k(*r, *args.values(), m, be.NO_COST, be.NO_STOP, be._NO_PEN, False)
                alone[v].append((time.process_time() - c0) / ne)
                if v == "old":
                    want = [m.copy() for m in masks]
                else:
                    got = [m.copy() for m in masks]
            assert all(np.array_equal(x, y) for x, y in zip(want, got))
            assert np.array_equal(plays["old"].games.cell, plays["new"].games.cell)
    finally:
        be.kernel = real
    print(f"BatchedPlay move, B = {a.B}, 1 thread: {_ratio(step)}")
    print(f"enemy AI alone, {ne} enemy moves of {a.record} steps: {_ratio(alone)}")


if __name__ == "__main__":
    main()
