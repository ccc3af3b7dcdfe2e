"""CPU time per unit of work on 1 and 2 threads: where do two threads of a batched call
spend the CPU that one thread does not? (issue 29: 2 threads at least 1.7x 1 thread)

    python benches/thread_scaling.py [--games grid,tiny_epic_tactics,mage_knight]
                                     [--B 4096] [--steps 30] [--synthetic-only]
    python benches/thread_scaling.py --repeat 5 [--min-time 0.1]   # bench --batch's figures
    python benches/thread_scaling.py --handoff [--swap]            # a 2-thread step's wall

Results and what they showed: docs/performance_log.md, "Two threads on a quiet machine".

Every figure is ``CPU(2 threads, both workers summed) / CPU(1 thread)`` for the same work
(1.00 = no contention; ``time.thread_time`` inside each worker, the kernel call alone),
interleaved 1-thread and 2-thread rounds so a loaded machine hits both alike.

* synthetic controls, 2 workers on halves of one range:
    - ``alu``: scalar arithmetic, nothing shared (the machine's own 2-core overhead:
      SMT siblings, clock, neighbours);
    - ``views``: per item, 3 slices of shared arrays and a row view passed to a non-inlined
      jitted function (what ``reach_games``/``selfplay_step`` do per game), arrays passed
      from Python: each call unboxes its own NRT meminfo for every array argument, so the
      two threads' reference counts live on different cache lines;
    - ``views_shared``: the same, the arrays read from one jitclass instance: its arrays'
      meminfos are shared by the two threads, every view's incref/decref is an atomic on
      one cache line both cores write (what NRT contention would cost);
    - ``false_sharing``: ``views`` with the two threads' scratch rows 24 bytes apart (what
      :func:`movecore.batch.per_thread` prevents).
* the real fused self-play step (``BatchedPlay`` array backend, ``selfplay_step``) of each
  game at B games: threads=1 vs threads=2 on the same seed (identical games).
"""
from __future__ import annotations

import argparse
import os
import threading
import time

import numpy as np
from numba import njit, types
from numba.experimental import jitclass


@njit(nogil=True)
def _alu(lo, hi, reps):
    s = 0
    for b in range(lo, hi):
        for r in range(reps):
            s = (s * 6364136223846793005 + b + r) & 0xFFFFFFFF
    return s


@njit(nogil=True)
def _stream(occ, lo, hi, reps):
    for r in range(reps):
        for b in range(lo, hi):
            for c in range(occ.shape[1]):
                occ[b, c] += 1
    return 0


@njit(nogil=True)
def _inner(v, row, q):
    s = 0
    for i in range(min(v.shape[0], 4)):
        s += v[i] + row[i]
    q[0, 0] = s
    return s


@njit(nogil=True)
def _views(blobs, at, occ, q, lo, hi, reps):
    s = 0
    for b in range(lo, hi):
        for r in range(reps):
            k = (b + r) % (at.shape[0] - 1)
            blob = blobs[at[k]:at[k + 1]]
            row = occ[b]
            s += _inner(blob, row, q[0:1])
    return s


@jitclass([("blobs", types.int32[::1]), ("at", types.int64[::1]),
           ("occ", types.int32[:, ::1])])
class _Holder:
    def __init__(self, blobs, at, occ):
        self.blobs = blobs
        self.at = at
        self.occ = occ


@njit(nogil=True)
def _views_shared(h, q, lo, hi, reps):
    s = 0
    for b in range(lo, hi):
        for r in range(reps):
            at = h.at
            k = (b + r) % (at.shape[0] - 1)
            blob = h.blobs[at[k]:at[k + 1]]
            row = h.occ[b]
            s += _inner(blob, row, q[0:1])
    return s


def _timed(fn, args, cpu, slot):
    t0 = time.thread_time()
    fn(*args)
    cpu[slot] += time.thread_time() - t0


def _one_vs_two(make_args, fn, n, rounds):
    """CPU(1 thread over [0, n)), CPU(2 threads, halves) summed over rounds (interleaved)."""
    cpu1, cpu2 = [0.0], [0.0, 0.0]
    for _ in range(rounds):
        _timed(fn, make_args(0, 0, n), cpu1, 0)
        ths = [threading.Thread(target=_timed, args=(fn, make_args(c, c * n // 2,
                                                                    (c + 1) * n // 2),
                                                     cpu2, c)) for c in (0, 1)]
        for t in ths:
            t.start()
        for t in ths:
            t.join()
    return cpu1[0], sum(cpu2)


def synthetic(n=4096, reps=200, rounds=5, log=print):
    rng = np.random.default_rng(0)
    blobs = rng.integers(0, 100, 4000).astype(np.int32)
    at = np.array([0, 1000, 2000, 3000, 4000], np.int64)
    occ = rng.integers(0, 3, (n, 400)).astype(np.int32)
    from movecore.batch import per_thread
    qs = per_thread(2, (1, 3), np.int64)        # each thread's scratch row: own lines
    adj = np.zeros((2, 3), np.int64)
    qa = [adj[0:1], adj[1:2]]                   # 24 bytes apart: one cache line
    h = _Holder(blobs, at, occ)
    cases = {
        "alu": (_alu, lambda c, lo, hi: (lo, hi, reps * 20)),
        "stream": (_stream, lambda c, lo, hi: (occ, lo, hi, 4)),
        "views": (_views, lambda c, lo, hi: (blobs, at, occ, qs[c], lo, hi, reps)),
        "views_shared": (_views_shared, lambda c, lo, hi: (h, qs[c], lo, hi, reps)),
        "false_sharing": (_views, lambda c, lo, hi: (blobs, at, occ, qa[c], lo, hi, reps)),
    }
    out = {}
    for name, (fn, mk) in cases.items():
        fn(*mk(0, 0, 8))   # compile
        c1, c2 = _one_vs_two(mk, fn, n, rounds)
        out[name] = c2 / c1
        log(f"  {name:13s} CPU 2 threads / 1 thread = {c2 / c1:.2f}x "
            f"(1 thread {c1 * 1e9 / (n * reps * rounds):.1f} ns/item)", flush=True)
    return out


def fused(game, B=4096, steps=30, log=print):
    """CPU per move of the fused self-play step, threads=1 vs threads=2 (same seed)."""
    from movecore.tools.selfplay import example_scenarios
    from movecore.tools.selfplay_batch import BatchedPlay, _fused_kernel
    name, scen = example_scenarios(game)[0]
    plays = [BatchedPlay(game, scen, B, seed=1, threads=t) for t in (1, 2)]
    for p in plays:
        p.step()                       # builds the fused call list
    kernel = _fused_kernel()
    cpu = [[0.0], [0.0, 0.0]]
    moves = [0, 0]
    for _ in range(steps):
        for i, p in enumerate(plays):
            counts, _, calls = p._fz[:3]
            for c in counts:
                c[:] = 0
            p._tick[0] += 1             # the next step's random numbers (in the kernel)
            if len(calls) == 1:
                _timed(kernel, calls[0], cpu[i], 0)
            else:
                th = threading.Thread(target=_timed, args=(kernel, calls[1], cpu[i], 1))
                th.start()
                _timed(kernel, calls[0], cpu[i], 0)
                th.join()
            moves[i] += int(sum(int(c[1]) for c in counts))
    assert moves[0] == moves[1], moves   # the same games on 1 and 2 threads
    r = sum(cpu[1]) / cpu[0][0]
    log(f"  {game:18s} B={B}: {cpu[0][0] * 1e9 / moves[0]:.0f} ns/move on 1 thread; "
        f"CPU 2 threads / 1 thread = {r:.2f}x (workers {cpu[1][0] * 1e9 / moves[0]:.0f} + "
        f"{cpu[1][1] * 1e9 / moves[0]:.0f} ns/move)", flush=True)
    return r


def fused_independent(game, B=4096, steps=30, log=print):
    """Two independent 1-thread batches of B/2 games (nothing shared but the code): CPU
    per move run one after the other vs run at the same time on two threads. Above 1:
    the machine (SMT siblings, clock, cache, the sandbox), not our sharing."""
    from movecore.tools.selfplay import example_scenarios
    from movecore.tools.selfplay_batch import BatchedPlay, _fused_kernel
    name, scen = example_scenarios(game)[0]
    plays = [BatchedPlay(game, scen, B // 2, seed=1 + i, threads=1) for i in (0, 1)]
    for p in plays:
        p.step()
    kernel = _fused_kernel()
    seq, con = [0.0, 0.0], [0.0, 0.0]
    for _ in range(steps):
        for cpu, together in ((seq, False), (con, True)):
            for p in plays:
                p._tick[0] += 1
            if together:
                th = threading.Thread(target=_timed, args=(kernel, plays[1]._fz[2][0], cpu, 1))
                th.start()
                _timed(kernel, plays[0]._fz[2][0], cpu, 0)
                th.join()
            else:
                for i, p in enumerate(plays):
                    _timed(kernel, p._fz[2][0], cpu, i)
    r = sum(con) / sum(seq)
    log(f"  {game:18s} 2 x B={B // 2} independent: CPU together / one after the other = "
        f"{r:.2f}x", flush=True)
    return r


def repeated(game, B=4096, reps=5, min_time=0.1, env_B=1024, log=print):
    """``movecore bench --batch``'s figures (best moves/s, process CPU per move) for
    threads=1 and threads=2, ``reps`` times: measured one after the other (as bench did
    before: each ``min_time`` seconds alone) and with their rounds taken in turn (as it
    does now). Then the vector env's steps/s likewise at ``env_B``."""
    from movecore.tools.bench_batch import _env_steps_per_s, _moves_per_s, _vector_env
    from movecore.tools.selfplay import example_scenarios
    from movecore.tools.selfplay_batch import BatchedPlay
    name, scen = example_scenarios(game)[0]
    plays = [BatchedPlay(game, scen, B, seed=1, threads=t) for t in (1, 2)]
    envs = [_vector_env(scen, env_B, t) for t in (1, 2)]
    def env_fn(envs, min_time):         # (its figures, not the moves per round)
        return [f for f, _ in _env_steps_per_s(envs, min_time)]
    for what, objs, fn in (("BatchedPlay B=%d" % B, plays, _moves_per_s),
                           ("vector env B=%d" % env_B, envs, env_fn)):
        if any(o is None for o in objs):
            continue
        for how in ("one after the other", "rounds in turn"):
            sp, cp = [], []
            for _ in range(reps):
                if how == "rounds in turn":
                    r = fn(objs, min_time)
                else:
                    r = [fn([o], min_time)[0] for o in objs]
                sp.append(r[1][0] / r[0][0])
                cp.append(r[1][1] / r[0][1])
            log(f"  {game:18s} {what}, {how}: speed 2/1 thread "
                + " ".join(f"{x:.2f}" for x in sp) + "; CPU 2/1 "
                + " ".join(f"{x:.2f}" for x in cp), flush=True)


def handoff(game, B=4096, steps=60, log=print, swap=False):
    """Where a 2-thread fused step's wall time goes (the pool of ``BatchedPlay``): the
    worker's start after the submit, the two kernel calls, the wait for the later one;
    medians over ``steps`` steps, beside the 1-thread step and an empty round trip.
    ``swap``: the pool thread runs the first half of the games, this one the second."""
    from movecore.reach import _thread_pool
    from movecore.tools.selfplay import example_scenarios
    from movecore.tools.selfplay_batch import BatchedPlay, _fused_kernel
    name, scen = example_scenarios(game)[0]
    p1, p2 = (BatchedPlay(game, scen, B, seed=1, threads=t) for t in (1, 2))
    p1.step(), p2.step()
    kernel, pool = _fused_kernel(), _thread_pool(1)
    clock = time.perf_counter
    rows = []
    for _ in range(steps):
        t0 = clock()
        p1.step()
        one = clock() - t0
        counts, _, calls = p2._fz[:3]
        p2._tick[0] += 1            # (the step's random numbers: drawn in the kernel)
        w = {}

        def work():
            w["start"] = clock()
            kernel(*calls[0 if swap else 1])
            w["end"] = clock()
        t0 = clock()
        fu = pool.submit(work)
        kernel(*calls[1 if swap else 0])
        t_main = clock()
        fu.result()
        t_done = clock()
        t_rt = clock()
        pool.submit(int).result()
        rt = clock() - t_rt
        rows.append((one, t_done - t0, w["start"] - t0, t_main - t0, w["end"] - w["start"],
                     t_done - max(t_main, w["end"]), rt))
    med = np.median(np.array(rows), axis=0) * 1e6
    how = " (swapped halves)" if swap else ""
    log(f"  {game:18s} B={B}{how} medians (us): 1-thread step {med[0]:.0f}; 2-thread kernel "
        f"region {med[1]:.0f} (speedup {med[0] / med[1]:.2f}x): worker starts after "
        f"{med[2]:.0f}, main's half {med[3]:.0f}, worker's half {med[4]:.0f}, wake-up of "
        f"the main after the later {med[5]:.0f}; empty round trip {med[6]:.0f}", flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", default="grid,tiny_epic_tactics,mage_knight")
    ap.add_argument("--B", type=int, default=4096)
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--synthetic-only", action="store_true")
    ap.add_argument("--repeat", type=int, default=0,
                    help="only bench --batch's figures, this many times per game")
    ap.add_argument("--min-time", type=float, default=0.1)
    ap.add_argument("--handoff", action="store_true", help="only the hand-off timings")
    ap.add_argument("--swap", action="store_true", help="--handoff: the pool thread "
                    "runs the first half")
    a = ap.parse_args(argv)
    print(f"load {os.getloadavg()}, {os.cpu_count()} cpus, affinity "
          f"{sorted(os.sched_getaffinity(0))}", flush=True)
    if a.handoff:
        for g in a.games.split(","):
            handoff(g, a.B, a.steps, swap=a.swap)
        return
    if a.repeat:
        for g in a.games.split(","):
            repeated(g, a.B, a.repeat, a.min_time)
        return
    print("synthetic:", flush=True)
    synthetic()
    if not a.synthetic_only:
        print("fused self-play step:", flush=True)
        for g in a.games.split(","):
            fused(g, a.B, a.steps)
        print("independent batches (nothing shared):", flush=True)
        for g in a.games.split(","):
            fused_independent(g, a.B, a.steps)


if __name__ == "__main__":
    main()
