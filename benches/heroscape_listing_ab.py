"""Before/after speed of the kept answer's listing in Heroscape's vector env, alone, on
the env's own positions: a baseline tree's ``rl/_kept_answer.keep_list`` and
``rl/_vechs.hs_queries`` (loaded beside the installed tree's, as
``benches/heroscape_env_ab.py`` loads them) against the installed ones, in one process,
rounds shuffled.

    git -C /work/main archive main | tar -x -C /tmp/base
    python benches/heroscape_listing_ab.py /tmp/base [--rounds 21] [--B 1024]
                                          [--steps 4] [--reps 20]

The env (``heroscape_engaged_knight``, one thread, random opponent) plays ``--steps``
steps; then in every game a one-space figure in play (its first) is asked by
``hs_queries`` (its ends listed from their bit sets), and a double-space one (its
first) by the layout's call (once, its rows cleared and listed by ``hs_queries``), whose
answers ``keep_list`` lists (its scan of the P places). Each is timed
``--reps`` times a round on scratch copies of the kept answer (the env's state is not
touched); the two paths' lists, counts, costs and stops are checked equal. Prints per
part the median ns per answer of each path and the median and range of old / new.
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def main() -> None:
    from heroscape_env_ab import load_base
    ap = argparse.ArgumentParser()
    ap.add_argument("base")
    ap.add_argument("--scenario", default="heroscape_engaged_knight")
    ap.add_argument("--rounds", type=int, default=21)
    ap.add_argument("--B", type=int, default=1024)
    ap.add_argument("--steps", type=int, default=4)
    ap.add_argument("--reps", type=int, default=20)
    args = ap.parse_args()
    import movecore.rl as rl
    from movecore.rl import _kept_answer, _vechs
    base = load_base(args.base)
    B = args.B
    e = rl.vector_env(args.scenario, num_envs=B, threads=1, copy=True, opponent="random")
    e.reset(seed=7)
    U = np.random.default_rng(0).random((args.steps, B, e._mask.shape[1]), np.float32)
    for t in range(args.steps):
        e.step((U[t] * e._mask).argmax(1))
    s = e._np
    hs = s._hs
    G = s.G
    # per game a one-space figure in play (for hs_queries) and a double-space one (for
    # the layout's call and keep_list); the games without one left out
    dbl = np.asarray(hs.double)
    alive = G.alive[:B]
    f1 = np.argmax(alive & ~dbl, 1)
    f2 = np.argmax(alive & dbl, 1)
    rows1 = np.flatnonzero((alive & ~dbl).any(1)).astype(np.int64)
    rows2 = np.flatnonzero((alive & dbl).any(1)).astype(np.int64)
    f1, f2 = f1[rows1].astype(np.int64), f2[rows2].astype(np.int64)
    amask, acost, astop = s._out
    paths = {"old": (base["_vechs"].hs_queries, base["_kept_answer"].keep_list),
             "new": (_vechs.hs_queries, _kept_answer.keep_list)}
    work = {}
    for p in paths:
        work[p] = dict(a_cost=s.a_cost.copy(), a_stop=s.a_stop.copy(),
                       a_list=s.a_list.copy(), a_n=s.a_n.copy(), nxt=s.nxt.copy(),
                       actor=s.actor.copy(), again=np.zeros(B, np.int64),
                       dl=np.zeros((3, B), np.int64), mask=amask.copy(),
                       out=np.zeros(2, np.int64))

    def queries(p, rows, f):
        q, w = paths[p][0], work[p]
        return q(rows, f, hs.S, hs.K, hs.double, hs.lead, hs.trail, G.occ, G.cell,
                 G.alive, G._bufs[0], G._ends[0], hs.query[0], hs.bits[0], s._usable8,
                 w["a_cost"], w["a_stop"], w["a_list"], w["a_n"], w["nxt"], w["actor"],
                 w["again"], w["dl"], w["mask"], w["a_cost"], w["a_stop"], w["out"], 0)

    def doubles(p):
        w = work[p]
        nd = w["out"][1]
        dl = w["dl"]
        st = hs.kernel(G.occ, G.cell, G.alive, dl[0, :nd], dl[1, :nd], dl[2, :nd], *hs.D[0],
                       w["mask"], w["a_cost"], w["a_stop"], hs.no_pen, 0)
        assert st >= 0

    def keep(p):
        k, w = paths[p][1], work[p]
        return k(rows2, f2, w["mask"], s._usable8, w["a_list"], w["a_n"],
                 w["nxt"], w["actor"], w["again"])

    def check():
        a, b = work["old"], work["new"]
        assert (a["a_n"] == b["a_n"]).all() and (a["out"] == b["out"]).all()
        for g in range(B):
            n = a["a_n"][g]
            ls = a["a_list"][g, :n]
            assert (ls == b["a_list"][g, :n]).all()
            assert (a["a_cost"][g, ls] == b["a_cost"][g, ls]).all()
            assert (a["a_stop"][g, ls] == b["a_stop"][g, ls]).all()

    ends = []
    for rows, f in ((rows1, f1), (rows2, f2)):
        for p in paths:
            queries(p, rows, f)
            if len(rows) and rows is rows2:
                doubles(p)
                keep(p)
        check()
        ends.append(np.mean(work["new"]["a_n"][rows]))
    assert work["new"]["out"][1] == len(rows2)
    n1, nd = len(rows1), len(rows2)
    res = {(part, p): [] for part in ("hs_queries", "keep_list") for p in paths}
    order = list(res)
    rnd = random.Random(1)
    for _ in range(args.rounds):
        rnd.shuffle(order)
        for part, p in order:
            t0 = time.thread_time()
            for _ in range(args.reps):
                if part == "hs_queries":
                    queries(p, rows1, f1)
                else:
                    keep(p)
            dt = time.thread_time() - t0
            res[part, p].append(dt / args.reps / (n1 if part == "hs_queries" else nd) * 1e9)
    check()
    load = open("/proc/loadavg").read().split()[:3]
    print(f"{args.scenario}, B = {B}, after {args.steps} steps: {n1} one-space answers, "
          f"{nd} double-space ({ends[0]:.1f} and {ends[1]:.1f} usable ends an answer); "
          f"{args.rounds} rounds x {args.reps}; lists equal; load {load}")
    for part in ("hs_queries", "keep_list"):
        o, n = np.array(res[part, "old"]), np.array(res[part, "new"])
        r = o / n
        print(f"{part}: old {np.median(o):.0f} ns, new {np.median(n):.0f} ns an answer "
              f"; old / new "
              f"{np.median(r):.3f} ({r.min():.3f}-{r.max():.3f})")


if __name__ == "__main__":
    main()
