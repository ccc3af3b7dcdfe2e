"""Heroscape's ``BatchedPlay`` move by kind of mover, CPU time, in one process.

    python benches/heroscape_move_classes.py [--scenario heroscape_engaged_knight.json]
                                             [--B 1024] [--steps 40] [--rounds 9]

The games' states before each of ``--steps`` self-play steps (B games, one thread)
are captured and sorted by the acting figure's class: its figure, whether it is
engaged (an enemy space next to one of its spaces) and whether the step answered it
from its kept ends. Then, per class, every game of the batch is set to a state of the
class (drawn with replacement) and the step timed (``time.thread_time``) on that batch,
restored before each round: the cost of a move of that class with the step's own work
(its row's clear, the policy, the move, the next actor), medians of ``--rounds``;
then the mix as captured, and each class's share of it (its moves' share times its
cost). Also ``--rules`` variants of the step (the step's own rule bits switched off)
timed the same way on the mix. Queries: the bench's ``reach_many`` query timed here.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from heroscape_doubles_ab import _query_cpu  # noqa: E402

FIELDS = ("occ", "cell", "alive")
PLAY = ("turn", "actor", "done")


def _snap(p):
    G = p.games
    return [getattr(G, k).copy() for k in FIELDS] + [getattr(p, k).copy() for k in PLAY]


def _put(p, st, rows):
    G = p.games
    for k, a in zip(FIELDS, st[:3]):
        getattr(G, k)[:] = a[rows]
    for k, a in zip(PLAY, st[3:]):
        getattr(p, k)[:] = a[rows]


def _spaces(cell, double, lead, trail, f):
    c = int(cell[f])
    if c < 0:
        return ()
    return (int(lead[c]), int(trail[c])) if double[f] else (c,)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scenario", default="heroscape_engaged_knight.json")
    ap.add_argument("--B", type=int, default=1024)
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--rounds", type=int, default=9)
    a = ap.parse_args(argv)
    from movecore.tools import _selfplay_heroscape as S
    from movecore.tools.selfplay import example_scenarios
    from movecore.tools.selfplay_batch import BatchedPlay
    ex = dict(example_scenarios("heroscape"))
    p = BatchedPlay("heroscape", ex[a.scenario], a.B, seed=1, threads=1)
    G = p.games
    double, lead, trail = (np.asarray(x) for x in G._selfplay["consts"][:3])
    nbr = np.asarray(p.nbr)
    for _ in range(3):
        S.step(p, 0)
    # capture: every live game's state, and whether its answer came from kept ends
    # (the step run once on a batch of that one state: the count of kept answers)
    states, labels = [], []
    for _ in range(a.steps):
        st = _snap(p)
        states.append(st)
        S.step(p, 0)
    pool = [np.concatenate([s[i] for s in states]) for i in range(6)]
    live = np.nonzero(~pool[5])[0]
    q = BatchedPlay("heroscape", ex[a.scenario], a.B, seed=1, threads=1)
    for i in live:
        f = int(pool[4][i])
        sp = _spaces(pool[1][i], double, lead, trail, f)
        eng = False
        for g in range(len(double)):
            if g == f or not pool[2][i][g] or p.side_of[g] == p.side_of[f]:
                continue
            gs = set(_spaces(pool[1][i], double, lead, trail, g))
            if any(int(v) in gs for c in sp for v in nbr[c] if v >= 0):
                eng = True
        labels.append((G.ids[f], eng))
    labels = np.array([f"{n}{' engaged' if e else ''}" for n, e in labels])
    rng = np.random.default_rng(3)
    qcpu = _query_cpu(ex[a.scenario], q)

    def timed(rows, rules=None):
        keep = S.RULES
        r = BatchedPlay("heroscape", ex[a.scenario], a.B, seed=1, threads=1)
        if rules is not None:
            S.RULES = rules
        try:
            S.step(r, 0)
        finally:
            S.RULES = keep
        out, kept_n, gens = [], 0, 0
        for _ in range(a.rounds):
            _put(r, pool, rows)
            k0, g0 = getattr(r, "kept_ends_used", 0), r.counts["generations"]
            t0 = time.thread_time()
            S.step(r, 0)
            out.append((time.thread_time() - t0) / a.B)
            kept_n += r.kept_ends_used - k0
            gens += r.counts["generations"] - g0
        return float(np.median(out)), kept_n / max(gens, 1)

    print(f"{a.scenario}, B={a.B}, {len(live)} captured moves over {a.steps} steps; "
          f"query {qcpu * 1e6:.3f} us CPU; load {os.getloadavg()[0]:.2f}")
    mix_rows = rng.choice(live, a.B)
    t_mix, k_mix = timed(mix_rows)
    print(f"the mix: {t_mix * 1e6:.3f} us a move = {t_mix / qcpu:.2f} queries "
          f"(kept one-space answers {k_mix:.1%} of moves)")
    print("| class | share of moves | us a move | queries a move | kept-ends answers | "
          "queries of the mix |")
    print("|---|---:|---:|---:|---:|---:|")
    tot = 0.0
    for lab in sorted(set(labels)):
        idx = live[labels == lab]
        share = len(idx) / len(live)
        t, k = timed(rng.choice(idx, a.B))
        tot += share * t
        print(f"| {lab} | {share:.1%} | {t * 1e6:.3f} | {t / qcpu:.2f} | {k:.0%} | "
              f"{share * t / qcpu:.2f} |", flush=True)
    print(f"sum of the classes' shares: {tot / qcpu:.2f} queries (the mix {t_mix / qcpu:.2f})")
    for name in ("NO_WALKER_SEARCH",):
        t, _ = timed(mix_rows, S.RULES | getattr(S, name))
        print(f"the mix with {name}: {t / qcpu:.2f} queries")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
