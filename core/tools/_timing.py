"""The benchmarks' timer (shared by :mod:`.bench` and :mod:`.bench_games`)."""
from __future__ import annotations

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
