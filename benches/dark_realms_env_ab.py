"""Dark Realms' vector env at B = 1,024: the whole step per thread chunk (new,
``movecore.rl._vecdr_env``) against the sub-step path it replaces (old, ``dr.whole =
False``), in one process, steps of the same seeded games in turn; CPU time per figure
move (the process's and the calling thread's), wall moves/s, 1 and 2 threads,
``copy=True`` and ``copy=False`` (docs/performance_log.md).

    python benches/dark_realms_env_ab.py [scenario] [rounds]
"""
import sys
import time

import numpy as np

import movecore.rl as rl
name = sys.argv[1] if len(sys.argv) > 1 else "dark_realms_die_planning"
B, STEPS, ROUNDS = 1024, 30, int(sys.argv[2]) if len(sys.argv) > 2 else 7
envs = {}
for copy in (True, False):
    for th in (1, 2):
        for mode in ("old", "new"):
            e = rl.vector_env(name, num_envs=B, threads=th, copy=copy)
            e._np._dr.whole = mode == "new"
            envs[copy, th, mode] = e
U = np.random.default_rng(0).random((STEPS, B, envs[True, 1, "old"]._mask.shape[1]), np.float32)

def run(e):
    e.reset(seed=7)
    m0 = e.counts["moves"]
    wall = main = tot = 0.0
    for s in range(STEPS):
        a = (U[s] * e._mask).argmax(1)
        t0, c0, p0 = time.perf_counter(), time.thread_time(), time.process_time()
        e.step(a)
        wall += time.perf_counter() - t0
        main += time.thread_time() - c0
        tot += time.process_time() - p0
    mv = e.counts["moves"] - m0
    return mv, mv / wall, main / mv * 1e6, tot / mv * 1e6

for e in envs.values():
    run(e)
res = {k: [] for k in envs}
for r in range(ROUNDS):
    for k, e in envs.items():
        res[k].append(run(e))
med = {k: np.median(np.array(v)[:, 1:], 0) for k, v in res.items()}
for k, v in res.items():
    assert len({x[0] for x in v}) == 1
print(f"{name}, B = {B}, {STEPS} steps x {ROUNDS} rounds (medians); load {open('/proc/loadavg').read().split()[:3]}")
print("| copy | threads | path | moves/s (wall) | CPU µs/move, all threads | calling thread | busiest thread |")
print("|---|---:|---|---:|---:|---:|---:|")
for (copy, th, mode), (mps, main, tot) in med.items():
    busy = max(main, tot - main) if th == 2 else tot
    print(f"| {copy} | {th} | {mode} | {mps:,.0f} | {tot:.3f} | {main:.3f} ({main / tot:.0%}) | {busy:.3f} |")
for copy in (True, False):
    for mode in ("old", "new"):
        one, two = med[copy, 1, mode], med[copy, 2, mode]
        busy2 = max(two[1], two[2] - two[1])
        print(f"copy={copy} {mode}: 2 threads / 1, wall {two[0] / one[0]:.2f}x, by CPU (one thread's over the busiest of two) {one[2] / busy2:.2f}x, CPU of 2 over 1 {two[2] / one[2]:.2f}x")
    for th in (1, 2):
        print(f"copy={copy} threads={th}: new / old: wall {med[copy, th, 'new'][0] / med[copy, th, 'old'][0]:.2f}x, CPU per move old/new {med[copy, th, 'old'][2] / med[copy, th, 'new'][2]:.2f}x")
