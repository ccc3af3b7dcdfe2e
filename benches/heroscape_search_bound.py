"""What a ``BatchedPlay`` move on Heroscape would cost if a two-space walker's searched
answer cost what its kept ends cost: the step with every walker taking its kind's kept
ends whoever stands in reach (``_selfplay_heroscape.NO_WALKER_SEARCH``: no set-up, no
penalty search, no pairs' pass -- *wrong answers*, so the two plays drift apart and
this is timing only) against the step as it is, in one process:

    python benches/heroscape_search_bound.py [--scenarios a.json,b.json] [--rounds 15]
                                             [--B 1024]

Per bundled scenario (default: the dragon's and the three published battlefields): two
plays of the same seed, rounds of 10 steps alternated in a shuffled order, CPU time of
this thread per move, the medians in kernel queries (the bench's ``reach_many`` query
timed in the same process) and their ratio.
"""
from __future__ import annotations

import os
import random
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from heroscape_doubles_ab import _load_avg, _parser, _query_cpu  # noqa: E402


def main(argv=None) -> int:
    a = _parser(__doc__, 15).parse_args(argv)
    from movecore.tools import _selfplay_heroscape as S
    from movecore.tools.selfplay import example_scenarios
    from movecore.tools.selfplay_batch import BatchedPlay
    ex = dict(example_scenarios("heroscape"))
    print(_load_avg(), flush=True)
    for name in a.scenarios.split(","):
        plays = [BatchedPlay("heroscape", ex[name], a.B, seed=1, threads=1)
                 for _ in range(2)]
        keep = S.RULES
        for p, r in zip(plays, (keep, keep | S.NO_WALKER_SEARCH)):
            S.RULES = r         # (the step's rules are read at a play's first step)
            try:
                for _ in range(2):
                    S.step(p, 0)
            finally:
                S.RULES = keep
        per = [[], []]
        rnd, order = random.Random(2), [0, 1]
        for _ in range(a.rounds):
            rnd.shuffle(order)
            for i in order:
                t0, n = time.thread_time(), 0
                for _ in range(10):
                    n += S.step(plays[i], 0)
                per[i].append((time.thread_time() - t0) / n)
        q = _query_cpu(ex[name], plays[0])
        m = [float(np.median(x)) for x in per]
        print(f"{name}: BatchedPlay move, B={a.B}, 1 thread, CPU: as it is {m[0] * 1e6:.3f} "
              f"us ({m[0] / q:.2f} queries); walkers on their kept ends (wrong answers) "
              f"{m[1] * 1e6:.3f} us ({m[1] / q:.2f}): {m[0] / m[1]:.3f}x", flush=True)
    print(_load_avg())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
