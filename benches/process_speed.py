"""Does a process on this machine run at one of two speeds? The same code in many fresh
processes, under conditions taken in turn (so the machine's load falls on all alike):
per process, ``movecore bench --batch``'s own measurement of one game (``BatchedPlay`` at
B games on 1 thread, its rounds in turn with the reference ``reach_many`` query's) by
wall clock and by CPU time, the share of wall time the process ran and waited on a run
queue (``/proc/self/task/TID/schedstat``), and the VM's steal time (``/proc/stat``).

    python benches/process_speed.py [--game tiny_epic_tactics] [--B 1024] [--reps 4]
        [--conditions default,aslr_off,cpu0,cpu1,thp_off] [--min-time 0.3]

Conditions: ``default``; ``aslr_off`` (``setarch -R``: the same addresses in every
process); ``cpu0`` / ``cpu1`` (``taskset -c``: pinned to one core); ``thp_off``
(``NUMPY_MADVISE_HUGEPAGE=0``: numpy's large arrays on 4 KiB pages); ``cold`` (an empty
``MOVECORE_CACHE``: the kernels compiled in the process, not loaded from the cache).

Results and what they showed: docs/performance_log.md, "The bench's two speeds".
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time

PREFIX = {"default": [], "aslr_off": ["setarch", "-R"], "cpu0": ["taskset", "-c", "0"],
          "cpu1": ["taskset", "-c", "1"], "thp_off": [], "cold": []}


def _sched():
    """(seconds this thread ran, seconds it waited on a run queue)."""
    with open(f"/proc/self/task/{threading.get_native_id()}/schedstat") as f:
        run, wait, _ = map(int, f.read().split())
    return run / 1e9, wait / 1e9


def _steal() -> int:
    with open("/proc/stat") as f:
        return int(f.readline().split()[8])


def child(game: str, B: int, min_time: float) -> dict:
    from movecore.tools.bench_batch import (BENCH, _moves_per_s, _paired, _query_round,
                                            _reference)
    from movecore.tools.selfplay import example_scenarios
    from movecore.tools.selfplay_batch import BatchedPlay
    name, scen = example_scenarios(game)[0]
    play = BatchedPlay(game, scen, B, seed=1, threads=1)
    ref = _query_round(_reference(game, scen, play))
    r0, q0, s0, w0 = *_sched(), _steal(), time.perf_counter()
    moves, queries = _moves_per_s([play], min_time, [ref], BENCH._replace(min_rounds=9))
    r1, q1, s1, w1 = *_sched(), _steal(), time.perf_counter()
    wall = w1 - w0
    ratio = _paired(moves, queries)
    return {"moves_wall": moves.median, "moves_cpu": 1 / moves.cpu,
            "queries_wall": queries.median, "queries_cpu": 1 / queries.cpu,
            "ratio_wall": ratio["wall"][0], "ratio_cpu": ratio["cpu"][0],
            "ran": (r1 - r0) / wall, "waited": (q1 - q0) / wall, "steal_ticks": s1 - s0,
            "load": os.getloadavg()[0]}


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--game", default="tiny_epic_tactics")
    p.add_argument("--B", type=int, default=1024)
    p.add_argument("--reps", type=int, default=4)
    p.add_argument("--conditions", default="default,aslr_off,cpu0,cpu1,thp_off")
    p.add_argument("--min-time", type=float, default=0.3)
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.child:
        print(json.dumps(child(a.game, a.B, a.min_time)))
        return
    conds = [c for c in a.conditions.split(",") if c]
    got = {c: [] for c in conds}
    fmt = "{:>9} {:>5} {:>10} {:>10} {:>11} {:>11} {:>6} {:>6} {:>5} {:>6} {:>5}"
    print(fmt.format("condition", "load", "moves wall", "moves CPU", "queries wall",
                     "queries CPU", "m/q wall", "m/q CPU", "ran", "waited", "steal"),
          flush=True)
    for _ in range(a.reps):
        for c in conds:
            env = dict(os.environ)
            if c == "thp_off":
                env["NUMPY_MADVISE_HUGEPAGE"] = "0"
            tmp = tempfile.TemporaryDirectory() if c == "cold" else None
            if tmp is not None:
                env["MOVECORE_CACHE"] = tmp.name
            cmd = PREFIX[c] + [sys.executable, __file__, "--child", "--game", a.game,
                               "--B", str(a.B), "--min-time", str(a.min_time)]
            out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
            if tmp is not None:
                tmp.cleanup()
            d = json.loads(out.stdout.strip().splitlines()[-1])
            got[c].append(d)
            print(fmt.format(c, f"{d['load']:.1f}", f"{d['moves_wall']:,.0f}",
                             f"{d['moves_cpu']:,.0f}", f"{d['queries_wall']:,.0f}",
                             f"{d['queries_cpu']:,.0f}", f"{d['ratio_wall']:.2f}",
                             f"{d['ratio_cpu']:.2f}", f"{d['ran']:.0%}",
                             f"{d['waited']:.0%}", d["steal_ticks"]), flush=True)
    print("per condition, the median process (min-max) by CPU time:")
    for c, ds in got.items():
        def span(k, f="{:,.0f}"):
            xs = [d[k] for d in ds]
            return f"{f.format(statistics.median(xs))} ({f.format(min(xs))}-" \
                   f"{f.format(max(xs))})"
        print(f"  {c:>9}: moves/s {span('moves_cpu')}, queries/s {span('queries_cpu')}, "
              f"move / query {span('ratio_cpu', '{:.2f}')}; by wall "
              f"{span('ratio_wall', '{:.2f}')}, ran {span('ran', '{:.0%}')}")


if __name__ == "__main__":
    main()
