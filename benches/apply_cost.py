"""What applying a move costs, per game, on the bundled examples: ``apply_move(fid, id,
**query)`` against ``apply_row(moves, row)`` (each right after the ``legal_moves`` it
applies), ``undo()`` and ``key()``, in microseconds per call, and the ratio
apply_move / apply_row. One run; quote the ratios (timings are noisy on a shared
machine).

    python benches/apply_cost.py [N]
"""
from __future__ import annotations

import sys
import time

import numpy as np

import movecore as mc
from movecore import selfplay


def _plan(game, scenario, n, seed=0):
    """n (figure, query, action) choices of a seeded walk, replayed identically by each
    variant (every apply is followed by undo, so each starts from the same position)."""
    pos = mc.position(scenario)
    g = selfplay.GAME_CLASSES[game](pos)
    rng = np.random.default_rng(seed)
    movers = [f for f in pos.figures if g.moves(pos, f)]
    plan = []
    for _ in range(n):
        f = movers[int(rng.integers(len(movers)))]
        q = g.query(pos, f, rng)
        try:
            m = pos.legal_moves(f, **q)
        except mc.QueryError:
            continue
        acts = np.flatnonzero(m.mask)
        if len(acts):
            plan.append((f, q, int(acts[int(rng.integers(len(acts)))])))
    return pos, plan


def measure(game, scenario, n=300, repeats=3):
    """us per call of each operation: the least total over ``repeats`` passes of the
    plan (a shared machine's noise only adds), divided by the plan's length."""
    pos, plan = _plan(game, scenario, n)
    lm, ar, am, ud, ky = pos.legal_moves, pos.apply_row, pos.apply_move, pos.undo, pos.key
    clock = time.perf_counter
    ky()                                  # (the board's part of the key: made once)
    best = None
    for _ in range(repeats):
        t = np.zeros(4)
        for f, q, a in plan:
            m = lm(f, **q)
            row = m.row(a)
            t0 = clock()
            ar(m, row)
            t1 = clock()
            ky()
            t2 = clock()
            ud()
            t3 = clock()
            lm(f, **q)
            t4 = clock()
            am(f, a, **q)
            t5 = clock()
            ud()
            t += (t1 - t0, t5 - t4, t3 - t2, t2 - t1)
        best = t if best is None else np.minimum(best, t)
    k = max(len(plan), 1)
    row, move, undo, key = (1e6 * best / k).tolist()
    return {"apply_row": row, "apply_move": move, "undo": undo, "key": key,
            "ratio": move / max(row, 1e-9)}


def main(n: int = 300) -> None:
    print(f"{'game':20s} {'apply_row':>10s} {'apply_move':>11s} {'ratio':>6s} "
          f"{'undo':>7s} {'key':>7s}   (us per call, mean over the examples)")
    for game in selfplay.GAMES:
        rows = [measure(game, s, n) for _, s in selfplay.example_scenarios(game)]
        mean = {k: float(np.mean([r[k] for r in rows])) for k in rows[0]}
        print(f"{game:20s} {mean['apply_row']:10.1f} {mean['apply_move']:11.1f} "
              f"{mean['ratio']:6.2f} {mean['undo']:7.1f} {mean['key']:7.1f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 300)
