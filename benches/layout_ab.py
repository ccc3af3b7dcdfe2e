"""Before/after speed of a layout change: ``movecore bench --games``'s workloads timed for
two or more installed trees, each in fresh subprocesses, alternating, on one machine.

    python benches/layout_ab.py old=OLD_PYTHON new=NEW_PYTHON [more=PYTHON ...]
                                [--runs 3] [--games a,b] [--full]

Each ``NAME=PYTHON`` is the ``python`` of a virtual environment with a tree installed
(``pip install -e .`` in a worktree of the commit); the first is the baseline. Each run
starts a fresh process per tree (import, kernels from the cache) and times every game's
bundled positions as ``movecore bench --games`` does (``legal_moves`` of each figure that
moves in self-play, the plain prepared query beside it, then self-play moves/s), with
fewer rounds, in CPU time of the process (``time.process_time`` stands in for the
benches' ``perf_counter``: on a shared machine the other work is not counted). The trees'
order rotates from run to run so that a slow spell hits each. Prints, per game, the
geometric mean over its figures of each tree's median time over the baseline's (< 1:
faster) and the self-play moves/s ratio (> 1: faster), then the load average. A warm-up
run of each tree (compiles anything not cached) is not counted.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

WORKER = r"""
import importlib, json, sys, time
time.perf_counter = time.process_time     # CPU time: others' work on the machine not counted
try:
    bg = importlib.import_module("movecore.tools.bench_games")   # the layout of issue 32
except ImportError:
    bg = importlib.import_module("movecore.bench_games")         # the flat layout before
games = [g for g in sys.argv[1].split(",") if g] or None
rep = bg.games_report(games, rounds=2, min_time=0.02, selfplay_games=int(sys.argv[2]),
                      log=lambda *a: None)
out = {}
for game, r in rep.items():
    for row in r["figures"]:
        out[f"{game} {row[0]} {row[1]} legal_moves us"] = row[3]
        out[f"{game} {row[0]} {row[1]} plain query us"] = row[4]
    out[f"{game} self-play moves/s"] = r["selfplay"]["moves_per_s"]
print("RESULT " + json.dumps(out))
"""


def run(python: str, games: str, selfplay: int) -> dict:
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    p = subprocess.run([python, "-c", WORKER, games, str(selfplay)], capture_output=True,
                       text=True, cwd="/tmp", check=True, env=env)
    line = [ln for ln in p.stdout.splitlines() if ln.startswith("RESULT ")][-1]
    return json.loads(line[len("RESULT "):])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("trees", nargs="+", metavar="NAME=PYTHON")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--games", default="")
    ap.add_argument("--selfplay-games", type=int, default=100)
    ap.add_argument("--full", action="store_true", help="also every workload's row")
    a = ap.parse_args(argv)
    trees = dict(t.split("=", 1) for t in a.trees)
    names = list(trees)
    for name in names:  # warm-up: anything not cached compiles here
        run(trees[name], a.games, 5)
    load0 = os.getloadavg()
    got = {name: [] for name in names}
    for i in range(a.runs):
        k = i % len(names)
        for name in names[k:] + names[:k]:
            got[name].append(run(trees[name], a.games, a.selfplay_games))
            print(f"run {i + 1} {name} done", file=sys.stderr, flush=True)
    load1 = os.getloadavg()
    every = [r for rs in got.values() for r in rs]
    keys = [k for k in every[0] if all(k in r for r in every)]
    med = {k: {n: statistics.median(r[k] for r in got[n]) for n in names} for k in keys}
    base, others = names[0], names[1:]
    if a.full:
        print("| workload | " + " | ".join(names) + " |")
        print("|---|" + "---:|" * len(names))
        for k, m in med.items():
            print(f"| {k} | " + " | ".join(f"{m[n]:,.1f}" for n in names) + " |")
        print()
    print("| game | figures | " + " | ".join(
        f"legal_moves {n}/{base} | plain query {n}/{base} | self-play moves/s {n}/{base}"
        for n in others) + " |")
    print("|---|---:|" + "---:|" * (3 * len(others)))
    games = list(dict.fromkeys(k.split()[0] for k in keys))
    overall = {n: [] for n in others}
    for g in games:
        cells = []
        for n in others:
            lm = [m[n] / m[base] for k, m in med.items()
                  if k.startswith(g + " ") and k.endswith("legal_moves us")]
            pq = [m[n] / m[base] for k, m in med.items()
                  if k.startswith(g + " ") and k.endswith("plain query us")]
            sp = med[f"{g} self-play moves/s"]
            overall[n] += lm
            cells += [f"{statistics.geometric_mean(lm):.2f}",
                      f"{statistics.geometric_mean(pq):.2f}", f"{sp[n] / sp[base]:.2f}"]
        print(f"| {g} | {len(lm)} | " + " | ".join(cells) + " |")
    print(f"| all | {len(overall[others[0]])} | " + " | ".join(
        f"{statistics.geometric_mean(overall[n]):.2f} | | " for n in others) + "|")
    print(f"\n{a.runs} runs per tree; load average (1, 5, 15 min) before: "
          f"{load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f}; after: {load1[0]:.2f} "
          f"{load1[1]:.2f} {load1[2]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
