"""Before/after speed of ``_vecnp.pick_rows`` (the random opponent's pick) on the
answers of a real vector env, in one process: a baseline tree's ``rl`` modules loaded
beside the installed ones (``heroscape_env_ab.load_base``), the env (B = 1,024, one
thread, random opponent, seed 7) stepped 8 times, each step's kept answers captured
(``a_list``, ``a_n``, ``a_cost``, every game with an answer, its acting figure), then
both picks run over the eight captures in turn, rounds alternating; the picks and the
count they return checked equal. Prints the median ns a pick of each and the median
and range of the rounds' old / new ratios.

    git -C /work/main archive main | tar -x -C /tmp/base
    python benches/pick_rows_ab.py /tmp/base [--scenario NAME] [--rounds 15]
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("base")
    ap.add_argument("--scenario", default="heroscape_engaged_knight")
    ap.add_argument("--rounds", type=int, default=15)
    args = ap.parse_args()
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from heroscape_env_ab import load_base
    import movecore.rl as rl
    from movecore.rl import _vecnp as new
    old = load_base(args.base)["_vecnp"]
    B = 1024
    e = rl.vector_env(args.scenario, num_envs=B, threads=1, copy=True, opponent="random")
    e.reset(seed=7)
    U = np.random.default_rng(0).random((8, B, e._mask.shape[1]), np.float32)
    s = e._np
    caps = []
    for t in range(8):
        e.step((U[t] * e._mask).argmax(1))
        rows = np.nonzero(s.a_n > 0)[0].astype(np.int64)
        caps.append((rows, s.a_list.copy(), s.a_n.copy(),
                     s.actor[rows].astype(np.int64), s.a_cost.copy()))
    u = np.random.default_rng(1).random(B)

    def run(fn):
        t0, tot, out = time.process_time(), 0, []
        for rows, al, an, f, ac in caps:
            to = np.empty(len(rows), np.int64)
            k = fn(rows, rows, al, an, f, u[:len(rows)], ac, s.rank, s.double, to)
            tot += len(rows)
            out.append((to, k))
        return (time.process_time() - t0) / tot * 1e9, out

    a, b = run(old.pick_rows)[1], run(new.pick_rows)[1]
    assert all(np.array_equal(x[0], y[0]) and x[1] == y[1] for x, y in zip(a, b))
    times = {0: [], 1: []}
    for r in range(args.rounds):
        for i in ((0, 1) if r % 2 == 0 else (1, 0)):
            times[i].append(run((old.pick_rows, new.pick_rows)[i])[0])
    rat = np.array(times[0]) / np.array(times[1])
    print(f"{args.scenario}: mean rows a pick {np.mean([c[2][c[0]].mean() for c in caps]):.1f}; "
          f"ns a pick old {np.median(times[0]):.1f}, new {np.median(times[1]):.1f}; "
          f"old / new {np.median(rat):.3f} ({rat.min():.3f}-{rat.max():.3f}), "
          f"{args.rounds} rounds")


if __name__ == "__main__":
    main()
