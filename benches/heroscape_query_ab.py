"""Before/after speed of a change to a Heroscape position's query methods, in one
process: the methods of ``_Layers`` and ``_FigureMoves`` (``heroscape/_layers.py``,
``heroscape/_figure_moves.py``) of a baseline tree and of the installed one are swapped
on the ``Position`` class in turn, block by block, so that a slow spell of a shared
machine hits both alike (fresh processes per tree, as ``benches/layout_ab.py`` runs,
differ by 10-20% between runs of the same code there).

    git worktree add --detach /tmp/base BASE_COMMIT
    python benches/heroscape_query_ab.py /tmp/base [--rounds 20] [--calls 200] [--all]

Times ``legal_moves`` of every two-space figure of the bundled Heroscape examples (every
figure with ``--all``), with the default and the self-play query; prints per query the
best of ``rounds`` blocks of ``calls`` calls (CPU time) for each side, the ratio new/old
and their geometric mean. Checks first that both sides answer alike. Only for changes
within those two files (the rest of the package is the installed tree's).
"""
from __future__ import annotations

import argparse
import importlib.util
import math
import os
import time

import numpy as np


def _load(base: str, name: str):
    path = os.path.join(base, "core", "games", "heroscape", name + ".py")
    spec = importlib.util.spec_from_file_location(
        f"movecore.games.heroscape.{name}_base", path)
    m = importlib.util.module_from_spec(spec)
    m.__package__ = "movecore.games.heroscape"
    spec.loader.exec_module(m)
    return m


def _methods(layers, figure_moves) -> dict:
    return {k: v for cls in (layers._Layers, figure_moves._FigureMoves)
            for k, v in vars(cls).items()
            if callable(v) or isinstance(v, (staticmethod, property))}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("base", help="a checkout of the baseline commit")
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--all", action="store_true", help="single-space figures too")
    a = ap.parse_args(argv)
    from movecore import examples
    from movecore.games.heroscape import _figure_moves, _layers
    from movecore.games.heroscape.position import Position
    from movecore.position import position
    from movecore.tools import selfplay as sp
    sides = {"old": _methods(_load(a.base, "_layers"), _load(a.base, "_figure_moves")),
             "new": _methods(_layers, _figure_moves)}

    def use(side):
        for k, f in sides[side].items():
            setattr(Position, k, f)

    cases = []
    for name in examples.names():
        if not name.startswith("heroscape"):
            continue
        pos = position(examples.load(name))
        game = sp.GAME_CLASSES["heroscape"](pos)
        rng = np.random.default_rng(0)
        for f in pos.figures:
            if a.all or pos.double[pos.index[f]]:
                for label, q in (("default", {}), ("self-play", game.query(pos, f, rng))):
                    cases.append((f"{name[len('heroscape_'):]} {f} {label}", pos, f, q))
    answers = {}
    for side in sides:
        use(side)
        for key, pos, f, q in cases:
            answers[side, key] = pos.legal_moves(f, **q).to_dicts()
    for key, *_ in cases:
        assert answers["old", key] == answers["new", key], key
    best = dict.fromkeys([(k, s) for k, *_ in cases for s in sides], math.inf)
    clock = time.process_time
    load0 = os.getloadavg()[0]
    for r in range(a.rounds):
        for key, pos, f, q in cases:
            for side in (("old", "new") if r % 2 == 0 else ("new", "old")):
                use(side)
                ask = pos.legal_moves
                t0 = clock()
                for _ in range(a.calls):
                    ask(f, **q)
                best[key, side] = min(best[key, side], (clock() - t0) / a.calls * 1e6)
    load1 = os.getloadavg()[0]
    ratios = []
    for key, *_ in cases:
        o, n = best[key, "old"], best[key, "new"]
        ratios.append(n / o)
        print(f"{key:46s} old {o:7.2f} us  new {n:7.2f} us  {n / o:.3f} ({n - o:+.2f} us)")
    print(f"geometric mean new/old {math.exp(sum(map(math.log, ratios)) / len(ratios)):.3f}"
          f" (min {min(ratios):.3f}, max {max(ratios):.3f}), load {load0:.1f} -> {load1:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
