"""2 threads over 1 of the vector env step (grid, Mage Knight, Tiny Epic Tactics) with
the calling thread's chunk at each share of the games given (``vector._env_chunks``;
0.5: even chunks), envs side by side in one process, shuffled rounds, the steps' wall
time only (the actions are drawn outside it).

    python benches/env_split_ab.py grid_hex_skirmish 0.5,0.52,0.54
"""
from __future__ import annotations

import random
import sys
import time

import numpy as np

from movecore import rl

B = 1024
ROUNDS = 15
STEPS = 40


def make(name: str, threads: int, share: float | None = None):
    env = rl.vector_env(name, num_envs=B, threads=threads)
    env.reset(seed=1)
    if share is not None:       # two chunks: the calling thread's first
        cut = int(B * share)
        env._set_chunks([(0, cut), (cut, B)])
    return env


def steps_per_s(env, n: int = STEPS) -> float:
    rng = np.random.default_rng(0)
    spent = 0.0
    for _ in range(n):
        mask = env.action_masks()
        actions = (rng.random(mask.shape) * mask).argmax(1)
        t0 = time.perf_counter()
        env.step(actions)
        spent += time.perf_counter() - t0
    return n / spent


def main(name: str, shares: list[float]) -> None:
    envs = {"1T": make(name, 1)}
    envs.update({s: make(name, 2, s) for s in shares})
    for env in envs.values():
        steps_per_s(env, 5)                     # (compiled, warm)
    got = {k: [] for k in envs}
    keys = list(envs)
    for _ in range(ROUNDS):
        random.shuffle(keys)
        for k in keys:
            got[k].append(steps_per_s(envs[k]))
    one = np.median(got["1T"])
    for k, v in got.items():
        q1, q3 = np.percentile(v, [25, 75]) / one
        print(f"{name} {k}: {np.median(v):,.0f} steps/s, over 1 thread "
              f"{np.median(v) / one:.3f} ({q1:.3f}-{q3:.3f})")


if __name__ == "__main__":
    main(sys.argv[1], [float(x) for x in sys.argv[2].split(",")])
