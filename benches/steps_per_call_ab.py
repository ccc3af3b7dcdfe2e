"""Several steps a call (``BatchedPlay.steps``) against a step a call, in one process:
the same games on 1 and 2 threads, stepped by loops of ``step()`` and by ``steps(k)``
(up to ``STEPS_PER_CALL`` steps in one compiled call: one hand-off to the threads for
them all), every side's rounds taken in turn, after a warm-up past the thread choice's
first try. Prints per game, B and k each side's median moves/s, and 2 threads over 1
(the median of the rounds' ratios, and every round's).

    python benches/steps_per_call_ab.py [--games mage_knight,grid] [--B 64,1024,4096]
                                        [--k 1,8] [--rounds 9]
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from movecore.batch import ThreadChoice
from movecore.tools.selfplay import example_scenarios
from movecore.tools.selfplay_batch import BatchedPlay


def _play(p, k: int, steps: int) -> int:
    """``steps`` steps of ``p``, ``k`` a call (k = 1: loops of ``step()``); the moves."""
    if k == 1:
        return sum(p.step() for _ in range(steps))
    return p.steps(steps)


def ab(game: str, B: int, ks, rounds: int) -> None:
    _, scenario = example_scenarios(game)[0]
    plays = {(t, k): BatchedPlay(game, scenario, B, seed=1, threads=t)
             for t in (1, 2) for k in ks}
    steps = max(16, 4096 * 16 // B)            # ~64k moves a round
    for (t, k), p in plays.items():            # (past the choice's first try)
        _play(p, k, k * (ThreadChoice.WARM + ThreadChoice.PROBE + 1))
    rates = {key: [] for key in plays}
    for _ in range(rounds):
        for (t, k), p in plays.items():
            t0 = time.perf_counter()
            n = _play(p, k, steps)
            rates[(t, k)].append(n / (time.perf_counter() - t0))
    for k in ks:
        one, two = np.array(rates[(1, k)]), np.array(rates[(2, k)])
        r = two / one
        print(f"{game} B={B} {k} step(s) a call: 1 thread {np.median(one):,.0f}, "
              f"2 threads {np.median(two):,.0f} moves/s; 2 threads / 1 {np.median(r):.2f} "
              f"(rounds {' '.join(f'{x:.2f}' for x in r)})", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", default="mage_knight,grid")
    ap.add_argument("--B", default="64,1024,4096")
    ap.add_argument("--k", default="1,8")
    ap.add_argument("--rounds", type=int, default=9)
    a = ap.parse_args()
    for game in a.games.split(","):
        for B in (int(x) for x in a.B.split(",")):
            ab(game, B, [int(x) for x in a.k.split(",")], a.rounds)


if __name__ == "__main__":
    main()
