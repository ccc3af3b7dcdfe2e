"""The benchmarks' timer and memory reading (shared by :mod:`.bench`, :mod:`.bench_games`
and :mod:`.bench_batch`)."""
from __future__ import annotations

import os
import time


def best_time(fn, arg, rounds=3, min_time=0.05) -> float:
    """Seconds of the best round (each round repeats ``fn(arg)`` to at least min_time)."""
    fn(arg)
    best = float("inf")
    for _ in range(rounds):
        reps, t0 = 0, time.perf_counter()
        while True:
            fn(arg)
            reps += 1
            t = time.perf_counter() - t0
            if t >= min_time:
                break
        best = min(best, t / reps)
    return best


def rss_bytes() -> int:
    """Current resident set size (Linux /proc; elsewhere the peak from getrusage)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        import resource
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
