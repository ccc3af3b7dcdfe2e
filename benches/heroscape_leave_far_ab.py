"""Before/after speed of the two-space walkers' kept ends with an enemy in reach but no
space next to an enemy in their reach, and with figures at the budget's least cost
(``_batch_doubles.walker_far``; the step's ``WALKER_FAR`` rule, the call's
``NO_LEAVE_FAR | NO_FIGURES_FAR`` bits), in one process: the same tree with the rule on
and off (off: the penalty search or plain query, the code before it), on the same seeded
games, rounds alternated in a shuffled order, so that a slow spell of a shared machine
hits both alike.

    python benches/heroscape_leave_far_ab.py [--scenarios a.json,b.json] [--rounds 9]
                                             [--B 1024]

Per bundled scenario (default: the dragon's and the three published battlefields):
(1) the two-space call on every two-space walker's game of 40 self-play steps (one call
per captured state, as the step calls it), the outs checked equal, CPU time a walker
game; (2) a ``BatchedPlay`` move (the compiled step, one thread), the two plays checked
to stay equal, by CPU (``thread_time``) and wall time, and in kernel queries (the bench's
``reach_many`` query, timed in the same process); and how many walker games the rule
answers from the kept ends.
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from heroscape_doubles_ab import _walker_calls  # noqa: E402

from movecore.games.heroscape._batch_doubles import NO_FIGURES_FAR, NO_LEAVE_FAR  # noqa: E402

OFF = NO_LEAVE_FAR | NO_FIGURES_FAR     # (the call before walker_far)


def _doubles(G, D, calls, rounds):
    """Medians of CPU time a walker game, (rule on, rule off), and the games the rule
    takes (those whose answer the kept ends give where the rule is on)."""
    from movecore.games.heroscape._batch_doubles import doubles_kernel
    dk = doubles_kernel()
    B, P = G.B, G.n_places
    bits = (0, OFF)
    outs = [(np.zeros((B, P), np.uint8), np.full((B, P), -1, np.int32),
             np.zeros((B, P), np.int8)) for _ in bits]
    no_pen = np.zeros((0, 0), np.int32)

    def one(i, c):
        m, co, s = outs[i]
        m[:] = 0
        co[:] = -1
        s[:] = 0
        t0 = time.thread_time()
        dk(*c[:6], *D, m, co, s, no_pen, bits[i])
        return time.thread_time() - t0

    for c in calls:
        for i in (0, 1):
            one(i, c)
        assert all(np.array_equal(x, y) for x, y in zip(*outs)), "the outs differ"
    n = sum(len(c[3]) for c in calls)
    per = [[], []]
    rng = random.Random(1)
    for _ in range(rounds):
        order = [0, 1]
        rng.shuffle(order)
        for i in order:
            per[i].append(sum(one(i, c) for c in calls) / n)
    return n, per


def _taken(G, D, calls):
    """Walker games searched before (the penalty search or the plain query) that the
    rule answers from the kept ends: counted by the searches' workspaces, which a kept
    answer leaves untouched (their generation stamps do not move)."""
    from movecore.games.heroscape._batch_doubles import doubles_kernel
    dk = doubles_kernel()
    B, P = G.B, G.n_places
    fbuf, pbuf = D[27], D[30]
    out = (np.zeros((B, P), np.uint8), np.full((B, P), -1, np.int32),
           np.zeros((B, P), np.int8))
    no_pen = np.zeros((0, 0), np.int32)
    searched = taken = 0
    for occ, cell, alive, rows, figs, buds in calls:
        for i in range(len(rows)):
            one = (occ, cell, alive, rows[i:i + 1], figs[i:i + 1], buds[i:i + 1])
            g0 = int(pbuf[0]) + int(fbuf[0])
            dk(*one, *D, *out, no_pen, OFF)
            if int(pbuf[0]) + int(fbuf[0]) == g0:
                continue                    # (kept ends before too)
            searched += 1
            g0 = int(pbuf[0]) + int(fbuf[0])
            dk(*one, *D, *out, no_pen, 0)
            taken += int(pbuf[0]) + int(fbuf[0]) == g0
    return searched, taken


def _plays(scenario, B, rounds):
    """Medians of (CPU, wall) per move of the compiled step, rule on and off."""
    from movecore.tools import _selfplay_heroscape as H
    from movecore.tools.selfplay_batch import BatchedPlay
    rules = (H.RULES, H.RULES & ~H.WALKER_FAR)
    plays = []
    keep = H.RULES
    try:
        for r in rules:
            H.RULES = r     # (read when a play builds its step's arguments: its first step)
            p = BatchedPlay("heroscape", scenario, B, seed=1, threads=1)
            for _ in range(2):
                H.step(p, 0)
            plays.append(p)
    finally:
        H.RULES = keep
    cpu, wall = [[], []], [[], []]
    rng = random.Random(2)
    for _ in range(rounds):
        order = [0, 1]
        rng.shuffle(order)
        for i in order:
            t0, w0, n = time.thread_time(), time.perf_counter(), 0
            for _ in range(10):
                n += H.step(plays[i], 0)
            cpu[i].append((time.thread_time() - t0) / n)
            wall[i].append((time.perf_counter() - w0) / n)
    assert np.array_equal(plays[0].games.cell, plays[1].games.cell) and all(
        np.array_equal(x, y) for x, y in zip(plays[0]._out, plays[1]._out)), "plays differ"
    return plays[0], cpu, wall


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scenarios", default="heroscape_engaged_knight.json,"
                    "heroscape_map_aoa_heshva_basin.json,heroscape_map_aoa_howling_pass.json,"
                    "heroscape_map_aoa_shattered_table.json")
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--B", type=int, default=1024)
    a = ap.parse_args(argv)
    from movecore.tools.bench_batch import _query_round, _reference
    from movecore.tools.selfplay import example_scenarios
    ex = dict(example_scenarios("heroscape"))
    print(f"load {'/'.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    med = np.median
    for name in a.scenarios.split(","):
        sc = ex[name]
        G, D, calls = _walker_calls(sc, a.B)
        searched, taken = _taken(G, D, calls)
        n, per = _doubles(G, D, calls, a.rounds)
        print(f"{name}: {n} walker games, {searched} searched before, "
              f"{taken} of them ({100 * taken / max(searched, 1):.1f}%) now kept ends; "
              f"two-space call: off {med(per[1]) * 1e6:.2f} us a game, on "
              f"{med(per[0]) * 1e6:.2f}: {med(per[1]) / med(per[0]):.3f}x", flush=True)
        play, cpu, wall = _plays(sc, a.B, a.rounds)
        one = _query_round(_reference("heroscape", sc, play))
        q = med([(lambda r: r[3] / r[0])(one(0.05)) for _ in range(7)])  # CPU s a query
        o, w = med(cpu[1]), med(cpu[0])
        ow, ww = med(wall[1]), med(wall[0])
        print(f"  BatchedPlay move, B={a.B}, 1 thread, CPU: off {o * 1e6:.2f} us "
              f"({o / q:.2f} queries), on {w * 1e6:.2f} us ({w / q:.2f}): {o / w:.3f}x; "
              f"wall: off {ow * 1e6:.2f}, on {ww * 1e6:.2f}: {ow / ww:.3f}x "
              f"(query {q * 1e6:.3f} us CPU)", flush=True)
    print(f"load {'/'.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
