"""A batch's observation rows written in place against composed in a scratch row and
streamed out (``kernels._stream.stream_copy``), alone: B rows of C x HW float32 each
(by default Heroscape's 16 x 180, 11.25 KiB), each the static planes' copy, the rest
zeroed and ``--sparse`` scattered ones, into a new array each round (as ``copy=True``'s
step does), in one process, the two ways in turn. Prints each way's median ms a batch
and their ratio; the rows are checked equal first.

    python benches/stream_rows_ab.py [--B 1024] [--C 16] [--HW 180] [--static 7]
                                     [--rounds 60]

(docs/performance_log.md, "streamed observations": on the 8 MiB-cache host, 11.25 KiB
rows, B = 1,024: 2.5 ms in place, 1.95 ms streamed.)
"""
from __future__ import annotations

import argparse
import time

import numpy as np
from numba import njit

from movecore.kernels._stream import store_fence, stream_copy


@njit(nogil=True)
def in_place(o, static, pos):
    S = static.shape[0]
    for b in range(o.shape[0]):
        ob = o[b]
        for i in range(S):
            ob[i] = static[i]
        ob[S:] = 0.0
        for j in range(pos.shape[1]):
            ob[pos[b, j]] = 1.0
    return 0


@njit(nogil=True)
def streamed(o, static, pos, row):
    S = static.shape[0]
    for i in range(S):
        row[i] = static[i]
    for b in range(o.shape[0]):
        row[S:] = 0.0
        for j in range(pos.shape[1]):
            row[pos[b, j]] = 1.0
        stream_copy(o[b], row)
    store_fence()
    return 0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--B", type=int, default=1024)
    ap.add_argument("--C", type=int, default=16)
    ap.add_argument("--HW", type=int, default=180)
    ap.add_argument("--static", type=int, default=7, help="static planes")
    ap.add_argument("--sparse", type=int, default=300, help="ones written a row")
    ap.add_argument("--rounds", type=int, default=60)
    a = ap.parse_args()
    N, S = a.C * a.HW, a.static * a.HW
    rng = np.random.default_rng(0)
    static = rng.random(S).astype(np.float32)
    pos = rng.integers(S, N, (a.B, a.sparse))
    row = np.empty(N, np.float32)
    one, two = np.empty((a.B, N), np.float32), np.empty((a.B, N), np.float32)
    in_place(one, static, pos)
    streamed(two, static, pos, row)
    assert np.array_equal(one, two)
    ways = {"in place": lambda o: in_place(o, static, pos),
            "streamed": lambda o: streamed(o, static, pos, row)}
    took = {k: [] for k in ways}
    for _ in range(a.rounds):
        for k, f in ways.items():
            o = np.empty((a.B, N), np.float32)      # (a new array, as each step's)
            t0 = time.perf_counter()
            f(o)
            took[k].append(time.perf_counter() - t0)
    med = {k: float(np.median(v)) for k, v in took.items()}
    print(f"B = {a.B}, rows of {N * 4 / 1024:.2f} KiB ({a.B * N * 4 / 2**20:.1f} MiB a "
          f"batch): " + ", ".join(f"{k} {v * 1e3:.3f} ms" for k, v in med.items())
          + f"; in place / streamed {med['in place'] / med['streamed']:.3f}")


if __name__ == "__main__":
    main()
