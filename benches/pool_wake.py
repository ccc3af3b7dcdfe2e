"""How soon the shared pool's worker starts a job after its submit, while the calling
thread runs ~1 ms of GIL-free compiled work (as a batched step's chunk 0 does), per
half second of a run: a spell of slow wakes of an idle core would show as half-seconds
whose median is far above the rest (docs/performance_log.md, "The batch after the fifth
session").

``--step S``: the hand-off of a batched step instead (docs/performance_log.md, "A hand-off
that does not sleep between steps"): the worker's job is as long as the caller's (S
seconds of compiled work each, as in a step of two even chunks), submitted through
``movecore.reach._hand_pool`` with each hand-off in turn ("executor": the
``ThreadPoolExecutor``, whose thread sleeps between jobs; "spin"), rounds of 200 jobs
shuffled; prints per hand-off the median over rounds of the wake (submit to the job's
first line), of the wait in ``result()`` after the caller's own work, and of the step's
wall and process CPU.

    python benches/pool_wake.py [seconds]
    python benches/pool_wake.py --step 150e-6 [seconds]
"""
import importlib
import random
import sys
import time

import numba
import numpy as np

from movecore.reach import _hand_pool, _thread_pool


@numba.njit(nogil=True, cache=False)
def _spin(n):
    a = 0
    for i in range(n):
        a = (a * 1103515245 + i) & 0xFFFFFFFF
    return a


def _started(t0: float) -> float:
    return time.perf_counter() - t0


def _spins(seconds: float) -> int:
    _spin(10)
    t = time.perf_counter()
    _spin(10**6)
    return int(seconds / ((time.perf_counter() - t) / 1e6))


def main(seconds: float = 30.0) -> None:
    n = _spins(0.001)       # ~1 ms of spinning
    pool = _thread_pool(1)
    at, wake = [], []
    t_end = time.perf_counter() + seconds
    while time.perf_counter() < t_end:
        x = time.perf_counter()
        f = pool.submit(_started, time.perf_counter())
        _spin(n)
        at.append(x)
        wake.append(f.result() * 1e6)
    at, wake = np.array(at) - at[0], np.array(wake)
    p50, p90, p99 = np.percentile(wake, [50, 90, 99])
    print(f"{len(wake)} submits: wake median {p50:.0f} us, p90 {p90:.0f}, p99 {p99:.0f}, "
          f"max {wake.max():.0f}")
    half = (at // 0.5).astype(int)
    meds = [float(np.median(wake[half == k])) for k in range(half.max() + 1)]
    print(f"half-seconds with a median wake over 200 us: {sum(m > 200 for m in meds)} "
          f"of {len(meds)}; their medians (us): {' '.join(f'{m:.0f}' for m in meds)}")


def _job(t0: float, n: int) -> float:
    s = time.perf_counter() - t0
    _spin(n)
    return s


def step(chunk: float, seconds: float) -> None:
    R = importlib.import_module("movecore.reach")
    n = _spins(chunk)
    got = {"executor": [], "spin": []}
    t_end = time.perf_counter() + seconds
    while time.perf_counter() < t_end:
        for mode in random.sample(list(got), 2):
            R.HAND_OFF = mode
            time.sleep(2 * R.SPIN_S)    # (the last round's spin ends off the clock)
            pool = _hand_pool(1)
            wake, wait = [], []
            c0, w0 = time.process_time(), time.perf_counter()
            for _ in range(200):
                f = pool.submit(_job, time.perf_counter(), n)
                _spin(n)
                t = time.perf_counter()
                wake.append(f.result())
                wait.append(time.perf_counter() - t)
            got[mode].append((np.median(wake), np.median(wait),
                              (time.perf_counter() - w0) / 200,
                              (time.process_time() - c0) / 200))
    for mode, v in got.items():
        w, r, s, c = np.median(np.array(v), axis=0) * 1e6
        print(f"{mode:8s} ({len(v)} rounds): wake {w:.1f} us, result() wait {r:.1f} us, "
              f"step {s:.1f} us wall, {c:.1f} us CPU")


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["--step"]:
        step(float(args[1]), float(args[2]) if len(args) > 2 else 10.0)
    else:
        main(float(args[0]) if args else 30.0)
