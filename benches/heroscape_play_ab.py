"""Before/after speed of a change to Heroscape's batched move (``games/heroscape/_batch.py``:
the layout's constants, ``_move_one``, the engagement codes) and the compiled self-play
step (``tools/_selfplay_heroscape.py``), in one process: the baseline tree's two files are
loaded beside the installed tree's (as ``movecore.games.heroscape._batch_base`` and
``movecore.tools._selfplay_heroscape_base``, the second importing the first), the
baseline's ``BatchedPlay`` is built on the baseline's layout (its ``batch_layout``
swapped in while the play is made: its constants, ``move`` and codes), and the two plays
step in turn, rounds shuffled, so that a slow spell of a shared machine hits both alike.

    git -C /work/main archive main | tar -x -C /tmp/base     # (the baseline's tree)
    python benches/heroscape_play_ab.py /tmp/base [--scenarios a.json,...] [--rounds 11]
                                        [--Bs 1024,4096]

Per scenario and B: CPU time of this thread (and wall) per ``BatchedPlay`` move (the
compiled step, one thread, rounds of 10 steps, seed 1), the medians of the rounds, the
rounds' old / new ratios (median and range), and the medians in kernel queries (the
bench's reference ``reach_many`` query, timed in the same process). The two plays'
figures' places, masks, costs and stops are checked equal after every round. The rest
of the package (the two-space call, the one-space bit sets, the kept ends) is the
installed tree's on both sides: only for changes within those two files.
"""
from __future__ import annotations

import os
import random
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import heroscape_doubles_ab as H  # noqa: E402

BATCH = "movecore.games.heroscape._batch"
STEP = "movecore.tools._selfplay_heroscape"


def _baseline(base: str):
    """(the baseline's ``batch_layout``, its step's ``step``). The step's source is
    written beside the baseline's (``_selfplay_heroscape_ab.py``, rewritten only when
    it changes: Numba's cache keys on the file) importing the baseline's ``_batch``."""
    bb = H._load(BATCH + "_base", os.path.join(base, "core", "games", "heroscape",
                                               "_batch.py"))
    src = open(os.path.join(base, "core", "tools", "_selfplay_heroscape.py")).read()
    src = src.replace("from ..games.heroscape._batch import",
                      "from ..games.heroscape._batch_base import")
    path = os.path.join(base, "core", "tools", "_selfplay_heroscape_ab.py")
    if not os.path.exists(path) or open(path).read() != src:
        with open(path, "w") as fh:
            fh.write(src)
    sh = H._load(STEP + "_base", path)
    return bb.batch_layout, sh.step


def _play(scenario, B, layout=None):
    """A ``BatchedPlay`` (seed 1, one thread), built on ``layout`` (a ``batch_layout``;
    None: the installed tree's)."""
    from movecore.tools.selfplay_batch import BatchedPlay
    mod = sys.modules[BATCH]
    keep = mod.batch_layout
    if layout is not None:
        mod.batch_layout = layout
    try:
        return BatchedPlay("heroscape", scenario, B, seed=1, threads=1)
    finally:
        mod.batch_layout = keep


def _same(p, q) -> bool:
    return np.array_equal(p.games.cell, q.games.cell) and \
        np.array_equal(p.games.alive, q.games.alive) and \
        np.array_equal(p.games.occ, q.games.occ) and \
        all(np.array_equal(x, y) for x, y in zip(p._out, q._out))


def main(argv=None) -> int:
    ap = H._parser(__doc__, 11)
    ap.add_argument("base", help="a checkout of the baseline tree")
    ap.add_argument("--Bs", default="1024,4096")
    a = ap.parse_args(argv)
    from movecore.tools import _selfplay_heroscape as S
    from movecore.tools.selfplay import example_scenarios
    old_layout, old_step = _baseline(a.base)
    ex = dict(example_scenarios("heroscape"))
    med = np.median
    print(H._load_avg(), flush=True)
    for name in a.scenarios.split(","):
        sc = ex[name]
        for B in (int(x) for x in a.Bs.split(",")):
            plays = [_play(sc, B, old_layout), _play(sc, B)]
            steps = [old_step, S.step]
            for p, s in zip(plays, steps):
                for _ in range(2):
                    s(p, 0)
            assert _same(*plays), "the plays differ"
            cpu, wall = [[], []], [[], []]
            rnd = random.Random(2)
            for _ in range(a.rounds):
                order = [0, 1]
                rnd.shuffle(order)
                for i in order:
                    t0, w0, n = time.thread_time(), time.perf_counter(), 0
                    for _ in range(10):
                        n += steps[i](plays[i], 0)
                    cpu[i].append((time.thread_time() - t0) / n)
                    wall[i].append((time.perf_counter() - w0) / n)
                assert _same(*plays), "the plays differ"
            q = H._query_cpu(sc, plays[1])
            o, w = med(cpu[0]), med(cpu[1])
            r = np.array(cpu[0]) / np.array(cpu[1])
            rw = np.array(wall[0]) / np.array(wall[1])
            print(f"{name}: BatchedPlay move, B={B}, 1 thread, {a.rounds} rounds (plays "
                  f"equal after every round): old {o * 1e6:.3f} us ({o / q:.2f} queries), "
                  f"new {w * 1e6:.3f} us ({w / q:.2f}): CPU {med(r):.3f}x "
                  f"({r.min():.3f}-{r.max():.3f}), wall {med(rw):.3f}x "
                  f"({rw.min():.3f}-{rw.max():.3f})", flush=True)
    print(H._load_avg())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
