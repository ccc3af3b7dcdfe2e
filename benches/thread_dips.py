"""Do the 2-thread dips of `bench --batch` belong to movecore or to the machine? Rounds
of grid's BatchedPlay at B = 4,096 on 1 and 2 threads, each beside a compiled arithmetic
loop (numba ``prange``, no memory traffic, no Python between its threads) on 1 and 2
threads, for 90 s; prints each 10 rounds' medians of the play's 2T/1T and the loop's
(the loop's figure is its own 2-thread rate over its 1-thread one, times 2; compare it
with itself across windows, not with 2). docs/performance_log.md, "The batch after the fifth
session".

    python benches/thread_dips.py
"""
import time, numpy as np, numba
from numba import prange
from movecore.tools.selfplay_batch import BatchedPlay
from movecore.tools.selfplay import example_scenarios
numba.set_num_threads(2)
@numba.njit(parallel=True, nogil=True)
def burn(n):
    out = np.zeros(2)
    for t in prange(2):
        a = 0
        for i in range(n):
            a = (a * 1103515245 + i) & 0xffffffff
        out[t] = a
    return out
@numba.njit(nogil=True)
def burn1(n):
    a = 0
    for i in range(n):
        a = (a * 1103515245 + i) & 0xffffffff
    return a
burn(10); burn1(10)
name, scen = example_scenarios("grid")[0]
p1 = BatchedPlay("grid", scen, 4096, seed=1, threads=1); p2 = BatchedPlay("grid", scen, 4096, seed=1, threads=2)
for p in (p1, p2): p.step(); p.step()
N = 3_000_000
def timed(f):
    t = time.perf_counter(); f(); return time.perf_counter() - t
rows = []
t_end = time.perf_counter() + 90   # seconds
while time.perf_counter() < t_end:
    a = timed(lambda: [p1.step() for _ in range(3)])
    b = timed(lambda: [p2.step() for _ in range(3)])
    c = timed(lambda: burn1(N))
    d = timed(lambda: burn(N))
    rows.append((a / b, 2 * c / d))
r = np.array(rows)
print("rounds", len(r))
play_dip = r[:, 0] < 1.5; burn_dip = r[:, 1] < 1.5
print("play dips", play_dip.sum(), "burn dips", burn_dip.sum(), "both", (play_dip & burn_dip).sum())
print("play ratio median %.2f, burn ratio median %.2f" % (np.median(r[:, 0]), np.median(r[:, 1])))
print("corr", np.corrcoef(r[:, 0], r[:, 1])[0, 1])
# windows of 10 rounds
for k in range(0, len(r), 10):
    w = r[k:k+10]
    print("%.2f %.2f" % (np.median(w[:, 0]), np.median(w[:, 1])), end=" | ")
print()
