"""Before/after speed of a change to how ``BatchedPlay``'s compiled step is driven (the
Python of ``core/tools/selfplay_batch.py`` and of the games' steps,
``_selfplay_heroscape.py``, ``_selfplay_dark_realms.py``, ``_selfplay_descent.py``), in
one process: the baseline tree's four modules are loaded beside the installed ones (as
``*_base`` modules, each importing the baseline's siblings), their compiled functions
swapped for the installed tree's (the change keeps them: one compile, the same machine
code on both sides), and a ``BatchedPlay`` of each tree is stepped in turn, round by
round in a shuffled order, on the same seed, so that a slow spell of a shared machine
hits both alike.

    git archive BASE_COMMIT | tar -x -C /tmp/base
    python benches/step_cost_ab.py /tmp/base [--games heroscape,dark_realms,grid]
                                   [--B 1,64,1024] [--rounds 15] [--round-s 0.02]

Prints per game and B the median CPU (``time.process_time``) and wall per move of each
side and the median over the rounds of new/old (< 1: faster), by CPU and by wall.
Asserts after every round that both sides played the same games (their counters and
occupancy). One thread.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import random
import sys
import time

import numpy as np

_MODULES = ("_selfplay_heroscape", "_selfplay_dark_realms", "_selfplay_descent",
            "selfplay_batch")
_COMPILED = {"_selfplay_heroscape": ("step_kernel",),
             "_selfplay_descent": ("step_kernel",),
             "_selfplay_dark_realms": ("dark_realms_queries", "dark_realms_chunk")}


def load_base(base: str):
    """The baseline's ``selfplay_batch`` (its games' steps the baseline's too, their
    compiled functions the installed tree's)."""
    out = {}
    for name in _MODULES:
        path = os.path.join(base, "core", "tools", name + ".py")
        src = open(path).read()
        for other in _MODULES:      # (the baseline's siblings, not the installed ones)
            src = src.replace(f"from .{other} import", f"from .{other}_base import")
        full = f"movecore.tools.{name}_base"
        spec = importlib.util.spec_from_loader(full, loader=None, origin=path)
        m = importlib.util.module_from_spec(spec)
        m.__package__ = "movecore.tools"
        m.__file__ = path
        sys.modules[full] = m
        exec(compile(src, path, "exec"), m.__dict__)
        new = importlib.import_module(f"movecore.tools.{name}")
        for fn in _COMPILED.get(name, ()):
            setattr(m, fn, getattr(new, fn))
        out[name] = m
    return out["selfplay_batch"]


def _round(play, n: int) -> tuple:
    c0, w0 = time.process_time(), time.perf_counter()
    m0 = play.counts["moves"]
    for _ in range(n):
        play.step()
    c1, w1 = time.process_time(), time.perf_counter()
    moves = max(1, play.counts["moves"] - m0)
    return (c1 - c0) / moves, (w1 - w0) / moves


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("base")
    ap.add_argument("--games", default="heroscape,dark_realms,grid")
    ap.add_argument("--B", default="1,64,1024")
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--round-s", type=float, default=0.02)
    a = ap.parse_args(argv)
    from movecore.tools.selfplay import example_scenarios
    from movecore.tools.selfplay_batch import BatchedPlay
    old_mod = load_base(a.base)
    rnd = random.Random(7)
    for game in a.games.split(","):
        _, scen = example_scenarios(game)[0]
        for B in map(int, a.B.split(",")):
            sides = {"old": old_mod.BatchedPlay(game, scen, B, seed=1, threads=1),
                     "new": BatchedPlay(game, scen, B, seed=1, threads=1)}
            for p in sides.values():    # compile, load, warm up
                for _ in range(20):
                    p.step()
            t0 = time.perf_counter()
            k = 0
            while time.perf_counter() - t0 < a.round_s:
                sides["new"].step()
                sides["old"].step()
                k += 1
            n = max(1, k)
            res = {s: [] for s in sides}
            for _ in range(a.rounds):
                order = list(sides)
                rnd.shuffle(order)
                for s in order:
                    res[s].append(_round(sides[s], n))
                o, w = sides["old"], sides["new"]
                assert o.counts == w.counts, (game, B, o.counts, w.counts)
                assert np.array_equal(o.games.occ, w.games.occ), (game, B)
            line = [f"{game:18s} B={B:5d} ({n} steps a round)"]
            for i, what in ((0, "CPU"), (1, "wall")):
                old = np.array([r[i] for r in res["old"]])
                new = np.array([r[i] for r in res["new"]])
                line.append(f"{what} old {np.median(old) * 1e6:.3f} new "
                            f"{np.median(new) * 1e6:.3f} us/move, new/old "
                            f"{np.median(new / old):.3f}")
            print("  ".join(line), flush=True)


if __name__ == "__main__":
    main()
