"""Before/after speed of a layout change: ``movecore bench --games``'s workloads timed for
two installed trees, each in its own subprocesses, alternating, on the same machine.

    python benches/layout_ab.py OLD_PYTHON NEW_PYTHON [--runs 3] [--games a,b]

``OLD_PYTHON`` / ``NEW_PYTHON``: the ``python`` of a virtual environment with the tree
installed (``pip install -e .`` in a worktree of the commit). Each run starts a fresh
process per tree (import, kernels from the cache) and times every game's bundled
positions as ``movecore bench --games`` does (``legal_moves`` of each figure that moves
in self-play, the plain prepared query beside it, then self-play moves/s), with fewer
rounds; runs alternate old, new, new, old, ... so that a slow spell of the shared
machine hits both. Prints each workload's median over the runs and the new/old ratio
(< 1: the new tree is faster), then the load average. A warm-up run of each tree first
(compiles anything not cached) is not counted.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

WORKER = r"""
import importlib, json, sys
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
        example, fig, kind, us = row[0], row[1], row[2], row[3]
        out[f"{game} {example} {fig} legal_moves us"] = us
        out[f"{game} {example} {fig} plain query us"] = row[4]
    out[f"{game} self-play moves/s"] = r["selfplay"]["moves_per_s"]
print("RESULT " + json.dumps(out))
"""


def run(python: str, games: str, selfplay: int) -> dict:
    p = subprocess.run([python, "-c", WORKER, games, str(selfplay)], capture_output=True,
                       text=True, cwd="/tmp", check=True)
    line = [ln for ln in p.stdout.splitlines() if ln.startswith("RESULT ")][-1]
    return json.loads(line[len("RESULT "):])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--games", default="")
    ap.add_argument("--selfplay-games", type=int, default=100)
    ap.add_argument("--full", action="store_true", help="also every workload's row")
    a = ap.parse_args(argv)
    trees = {"old": a.old, "new": a.new}
    for name, py in trees.items():  # warm-up: anything not cached compiles here
        run(py, a.games, 5)
    load0 = os.getloadavg()
    got = {"old": [], "new": []}
    for i in range(a.runs):
        order = ("old", "new") if i % 2 == 0 else ("new", "old")
        for name in order:
            got[name].append(run(trees[name], a.games, a.selfplay_games))
            print(f"run {i + 1} {name} done", file=sys.stderr, flush=True)
    load1 = os.getloadavg()
    keys = [k for k in got["old"][0] if all(k in r for r in got["old"] + got["new"])]
    med = {k: (statistics.median(r[k] for r in got["old"]),
               statistics.median(r[k] for r in got["new"])) for k in keys}
    if a.full:
        print("| workload | old (median) | new (median) | new / old |")
        print("|---|---:|---:|---:|")
        for k, (o, n) in med.items():
            print(f"| {k} | {o:,.1f} | {n:,.1f} | {n / o:.2f} |")
        print()
    # per game: geometric means of the per-figure ratios (time: < 1 is faster) and the
    # self-play moves/s ratio (> 1 is faster)
    print("| game | figures | legal_moves time new/old | plain query time new/old | "
          "self-play moves/s new/old |")
    print("|---|---:|---:|---:|---:|")
    games = sorted({k.split()[0] for k in keys}, key=[k.split()[0] for k in keys].index)
    every = []
    for g in games:
        lm = [n / o for k, (o, n) in med.items() if k.startswith(g + " ") and
              k.endswith("legal_moves us")]
        pq = [n / o for k, (o, n) in med.items() if k.startswith(g + " ") and
              k.endswith("plain query us")]
        o, n = med[f"{g} self-play moves/s"]
        every += lm
        print(f"| {g} | {len(lm)} | {statistics.geometric_mean(lm):.2f} | "
              f"{statistics.geometric_mean(pq):.2f} | {n / o:.2f} |")
    print(f"| all | {len(every)} | {statistics.geometric_mean(every):.2f} | | |")
    print(f"load average (1, 5, 15 min) before: {load0[0]:.2f} {load0[1]:.2f} "
          f"{load0[2]:.2f}; after: {load1[0]:.2f} {load1[1]:.2f} {load1[2]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
