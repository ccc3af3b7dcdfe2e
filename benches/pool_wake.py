"""How soon the shared pool's worker starts a job after its submit, while the calling
thread runs ~1 ms of GIL-free compiled work (as a batched step's chunk 0 does), per
half second of a run: a spell of slow wakes of an idle core would show as half-seconds
whose median is far above the rest (docs/performance.md, "The batch after the fifth
session").

    python benches/pool_wake.py [seconds]
"""
import sys
import time

import numba
import numpy as np

from movecore.reach import _thread_pool


@numba.njit(nogil=True, cache=False)
def _spin(n):
    a = 0
    for i in range(n):
        a = (a * 1103515245 + i) & 0xFFFFFFFF
    return a


def _started(t0: float) -> float:
    return time.perf_counter() - t0


def main(seconds: float = 30.0) -> None:
    _spin(10)
    t = time.perf_counter()
    _spin(10**6)
    n = int(0.001 / ((time.perf_counter() - t) / 1e6))   # ~1 ms of spinning
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


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 30.0)
