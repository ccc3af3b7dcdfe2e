"""Descent's vector env step in one compiled call per thread chunk
(``movecore.rl._vecdescent_env``) against the sub-steps from Python it replaces
(``envs._dsf = None``), in one process: B = 1,024 games of the same seeds, 1 and 2
threads, the four envs stepped in a shuffled order each round (rounds of ``steps`` env
steps, the same actions for old and new); per figure move the CPU time of the process
(all its threads) and the wall time, medians of the rounds; 2 threads over 1 by wall,
paired within each round (docs/performance_log.md).

    python benches/descent_env_whole_ab.py [scenario] [rounds] [steps] [copy]
"""
import random
import sys
import time

import numpy as np

import movecore.rl as rl

name = sys.argv[1] if len(sys.argv) > 1 else "descent_door_round"
R = int(sys.argv[2]) if len(sys.argv) > 2 else 15
S = int(sys.argv[3]) if len(sys.argv) > 3 else 20
copy = (sys.argv[4] if len(sys.argv) > 4 else "True") == "True"
B = 1024
labs = [(p, t) for p in ("old", "new") for t in (1, 2)]
envs = {}
for p, t in labs:
    e = rl.vector_env(name, num_envs=B, threads=t, copy=copy)
    assert e._dsf is not None
    if p == "old":
        e._dsf = None
    envs[p, t] = e
    e.reset(seed=0)                     # (compiled or loaded before the rounds)
    e.step(np.zeros(B, np.int64))
cpu = {k: [] for k in labs}
wall = {k: [] for k in labs}
busy = {k: [] for k in labs}    # the busiest thread's CPU (the calling one, the rest)
moves_end = {}
order = random.Random(1)
for rnd in range(R):
    ks = labs[:]
    order.shuffle(ks)
    for k in ks:
        e = envs[k]
        e.reset(seed=rnd)
        rng = np.random.default_rng(rnd)
        m0, c, w, own = e.counts["moves"], 0.0, 0.0, 0.0
        for _ in range(S):
            m = e._mask
            a = (rng.random(m.shape, np.float32) * m).argmax(1)
            c0, w0, t0 = time.process_time(), time.perf_counter(), time.thread_time()
            e.step(a)
            own += time.thread_time() - t0
            c += time.process_time() - c0
            w += time.perf_counter() - w0
        n = e.counts["moves"] - m0
        moves_end[k] = e.counts["moves"]
        cpu[k].append(c / n)
        wall[k].append(w / n)
        busy[k].append(max(own, c - own) / n)
# (the same games: old and new played the same moves)
assert moves_end["old", 1] == moves_end["new", 1] == moves_end["old", 2] == \
    moves_end["new", 2], moves_end
med = {k: (np.median(cpu[k]) * 1e6, np.median(wall[k]) * 1e6) for k in labs}
print(f"{name} B={B} copy={copy}, {R} rounds x {S} steps, µs per figure move "
      f"(median): CPU / wall")
for k in labs:
    print(f"  {k[0]} {k[1]}T: {med[k][0]:.3f} / {med[k][1]:.3f}")
q = np.array(cpu["old", 1]) / np.array(cpu["new", 1])
print(f"1T CPU old/new: {np.median(q):.3f} (quartiles {np.percentile(q, 25):.3f}-"
      f"{np.percentile(q, 75):.3f})")
for p in ("old", "new"):
    r = np.array(wall[p, 1]) / np.array(wall[p, 2])
    rc = np.array(cpu[p, 2]) / np.array(cpu[p, 1])
    rb = np.array(cpu[p, 1]) / np.array(busy[p, 2])
    print(f"{p}: 2T/1T by wall {np.median(r):.3f} (quartiles {np.percentile(r, 25):.3f}-"
          f"{np.percentile(r, 75):.3f}); CPU of 2T over 1T {np.median(rc):.3f}; 1T CPU "
          f"over the busiest thread's of 2T {np.median(rb):.3f}; calling thread's share "
          f"at 2T {np.median(np.array(busy[p, 2]) / np.array(cpu[p, 2])):.2f}")
