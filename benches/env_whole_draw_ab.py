"""``copy=True``'s observation drawn whole into the step's new array
(``_vecnp.WholeStep.whole``, the default) against the kept buffer updated and copied
there, for Heroscape's and Descent's one-call env steps: two vector envs side by side
in one process (one thread, ``copy=True``, random opponent), rounds in a shuffled
order, each round's process CPU per figure move over the step calls alone (the actions
are drawn outside them). Prints each way's median and quartiles and kept/whole.

    python benches/env_whole_draw_ab.py heroscape_engaged_knight --B 1024 --rounds 11

(docs/performance_log.md, ``hswhole``.)
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from movecore import rl


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("scenario", nargs="?", default="heroscape_engaged_knight")
    ap.add_argument("--B", type=int, default=1024)
    ap.add_argument("--rounds", type=int, default=11)
    ap.add_argument("--moves", type=int, default=32768,
                    help="game steps (B per env step) in a round, at least")
    args = ap.parse_args()
    B = args.B
    envs = {}
    for whole in (True, False):
        e = rl.vector_env(args.scenario, num_envs=B, threads=1, copy=True)
        one = e._one_call()
        if one is None:
            raise SystemExit(f"{args.scenario}: not on a one-call env step")
        one.whole = whole
        envs[whole] = e
    rngs = {k: np.random.default_rng(1) for k in envs}

    def actions(e, rng):
        m = e._mask
        return (rng.random(m.shape, np.float32) * m).argmax(1)

    for k, e in envs.items():
        e.reset(seed=1)
        for _ in range(3):
            e.step(actions(e, rngs[k]))
    per_move = {k: [] for k in envs}
    order = list(envs)
    shuffle = np.random.default_rng(0)
    for _ in range(args.rounds):
        shuffle.shuffle(order)
        for k in order:
            e = envs[k]
            cpu, steps, m0 = 0.0, 0, e.counts["moves"]
            while steps * B < args.moves:
                a = actions(e, rngs[k])
                c0 = time.process_time()
                e.step(a)
                cpu += time.process_time() - c0
                steps += 1
            per_move[k].append(cpu / (e.counts["moves"] - m0) * 1e6)
    for k, v in per_move.items():
        q1, med, q3 = np.percentile(v, [25, 50, 75])
        print(f"{args.scenario} B={B} {'whole' if k else 'kept + copy'}: {med:.3f} µs "
              f"a move ({q1:.3f}-{q3:.3f})")
    print(f"kept + copy / whole: {np.median(per_move[False]) / np.median(per_move[True]):.3f}")


if __name__ == "__main__":
    main()
