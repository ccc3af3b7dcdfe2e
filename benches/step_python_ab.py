"""Before/after speed of a change to the plain Python functions a batched step calls
(``movecore.batch``'s ``summed``, ``on_cut``, ``_wake``, ...), in one process: each named
function of the baseline tree's module is compiled from its source into the installed
module's globals (the same kernels, pool and settings), and on each side every module
that imported the function by name is pointed at that side's version. A ``BatchedPlay``
(B = 4,096, ``--play-B``) and a vector env (B = 1,024, ``--env-B``) of each side, on 1
and 2 threads, are stepped
in turn, round by round in a shuffled order, on the same seed. Prints per game the
median and mean wall per step of each side and each side's 2-thread speed-up (1-thread
steps over 2-thread steps, the 1-thread sides' wall pooled), and asserts that both
sides played the same games.

    git archive BASE_COMMIT | tar -x -C /tmp/base
    python benches/step_python_ab.py /tmp/base [--module batch] [--functions summed,on_cut,_wake]
                                     [--games mage_knight,grid] [--rounds 30] [--steps 20]
                                     [--play-B 4096] [--env-B 1024]
"""
from __future__ import annotations

import argparse
import ast
import importlib
import random
import sys
from time import perf_counter

import numpy as np


def baseline_functions(base: str, module: str, names: list) -> dict:
    """``names`` compiled from ``base``'s ``core/<module>.py`` into the installed module's
    globals: {name: function}."""
    installed = importlib.import_module(f"movecore.{module}")
    tree = ast.parse(open(f"{base}/core/{module.replace('.', '/')}.py").read())
    found = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in names}
    missing = set(names) - set(found)
    if missing:
        raise SystemExit(f"not in the baseline's {module}: {sorted(missing)}")
    space = dict(installed.__dict__)
    code = compile(ast.Module(body=list(found.values()), type_ignores=[]),
                   f"<baseline {module}>", "exec")
    exec(code, space)
    return {n: space[n] for n in names}


def importers(module: str, names: list) -> list:
    """(module, name) of every loaded movecore module bound to the installed function."""
    installed = importlib.import_module(f"movecore.{module}")
    out = []
    for m in list(sys.modules.values()):
        if getattr(m, "__name__", "").startswith("movecore"):
            for n in names:
                if getattr(m, n, None) is getattr(installed, n):
                    out.append((m, n))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("base")
    ap.add_argument("--module", default="batch")
    ap.add_argument("--functions", default="summed,on_cut,_wake")
    ap.add_argument("--games", default="mage_knight,grid")
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--play-B", type=int, default=4096)
    ap.add_argument("--env-B", type=int, default=1024)
    a = ap.parse_args()
    import movecore.rl as rl
    from movecore.tools.bench_batch import _random_actions
    from movecore.tools.selfplay import example_scenarios
    from movecore.tools.selfplay_batch import BatchedPlay
    names = a.functions.split(",")
    installed = importlib.import_module(f"movecore.{a.module}")
    new = {n: getattr(installed, n) for n in names}
    old = baseline_functions(a.base, a.module, names)
    bound = importers(a.module, names)

    def use(side):
        fns = new if side == "new" else old
        for m, n in bound:
            setattr(m, n, fns[n])

    for game in a.games.split(","):
        _, scen = example_scenarios(game)[0]
        sides = {}
        for side in ("old", "new"):
            use(side)
            for t in (1, 2):
                p = BatchedPlay(game, scen, a.play_B, seed=1, threads=t)
                e = rl.vector_env(scen, num_envs=a.env_B, threads=t)
                e.reset(seed=1)
                sides[("play", side, t)] = (p, p.step)
                rng = np.random.default_rng(1)
                acts = [_random_actions(e, rng)]
                sides[("env", side, t)] = (e, (lambda e=e, acts=acts, rng=rng:
                                              (e.step(acts[0]), acts.__setitem__(
                                                  0, _random_actions(e, rng)))))
        walls = {k: [] for k in sides}
        order = list(sides)
        for k in order:          # warm-up: both sides' compiled calls and pools
            use(k[1])
            for _ in range(3):
                sides[k][1]()
        for _ in range(a.rounds):
            random.shuffle(order)
            for k in order:
                use(k[1])
                step = sides[k][1]
                t0 = perf_counter()
                for _ in range(a.steps):
                    step()
                walls[k].append((perf_counter() - t0) / a.steps)
        use("new")
        for what in ("play", "env"):
            one = np.concatenate([walls[(what, s, 1)] for s in ("old", "new")])
            row = []
            for side in ("old", "new"):
                w2 = np.array(walls[(what, side, 2)])
                w1 = np.array(walls[(what, side, 1)])
                row.append(f"{side} 1T {np.median(w1) * 1e6:.0f} us, 2T {np.median(w2) * 1e6:.0f} "
                           f"us (speed-up {np.median(one) / np.median(w2):.3f} by medians, "
                           f"{one.mean() / w2.mean():.3f} by means)")
            print(f"{game} {what}: " + "; ".join(row), flush=True)
        p_old, p_new = sides[("play", "old", 2)][0], sides[("play", "new", 2)][0]
        assert p_old.counts == p_new.counts, (p_old.counts, p_new.counts)


if __name__ == "__main__":
    main()
