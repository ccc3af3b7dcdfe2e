"""Before/after speed of the Python side of the vector env's whole steps in compiled calls
per thread chunk (``_vecnp.WholeStep._run``: Heroscape's and Descent's;
``_vecdr_env.WholeSteps.step``: Dark Realms'), in one process: OLD's methods (``OLD``:
the folder of a tree's ``core/rl``, e.g. main's unpacked with ``git archive``) are read
from its sources, run in this tree's modules and bound to envs of this tree, so both
sides call the same compiled kernels on the same games. Each round, every (game, B,
side) env is reset with the round's seed and stepped ``steps`` times with the same
seeded random legal actions, in a shuffled order; per env step the process's CPU time
and the wall time, medians of the rounds, and new/old paired within each round (< 1:
faster). Asserts both sides played the same moves. One thread, ``copy=True``.

    git -C /work/main archive main core/rl | tar -x -C /tmp/base
    python benches/whole_step_entry_ab.py /tmp/base/core/rl [--B 1,64,1024] [--rounds 15]
"""
import argparse
import ast
import random
import textwrap
import time
import types
from pathlib import Path

import numpy as np

import movecore.rl as rl
from movecore.rl import _vecdr_env, _vecnp

GAMES = ("heroscape_engaged_knight", "dark_realms_die_planning", "descent_door_round")


def old_method(old: Path, module, cls: str, name: str):
    """``cls.name`` as OLD's source of ``module`` writes it, run in this tree's module."""
    src = (old / (module.__name__.rsplit(".", 1)[1] + ".py")).read_text()
    for node in ast.walk(ast.parse(src)):
        if isinstance(node, ast.ClassDef) and node.name == cls:
            fn = next(n for n in node.body if getattr(n, "name", "") == name)
            space = dict(vars(module))
            exec(textwrap.dedent(ast.get_source_segment(src, fn)), space)
            return space[name]
    raise SystemExit(f"no {cls}.{name} in {old}")


def make(game, B, old, olds):
    e = rl.vector_env(game, num_envs=B, threads=1, copy=True)
    e.reset(seed=0)
    e.step(np.zeros(B, np.int64))       # (compiled or loaded; Dark Realms' whole step)
    if old:
        if e._np._dr is not None:
            w = e._np._dr.whole_steps
            w.step = types.MethodType(olds["dr"], w)
        else:
            one = e._hsf if e._hsf is not None and e._np._hs is not None else e._dsf
            one._run = types.MethodType(olds["run"], one)
    return e


def one_round(e, seed, steps):
    """``steps`` env steps of ``e`` from a reset with ``seed`` (seeded random legal
    actions): the CPU and wall seconds per step, and the env's moves so far."""
    e.reset(seed=seed)
    pick = np.random.default_rng(seed)
    c = w = 0.0
    for _ in range(steps):
        a = (pick.random(e._mask.shape, np.float32) * e._mask).argmax(1)
        c0, w0 = time.process_time(), time.perf_counter()
        e.step(a)
        c += time.process_time() - c0
        w += time.perf_counter() - w0
    return c / steps, w / steps, e.counts["moves"]


def paired(label, cpu_o, wall_o, cpu_n, wall_n, new_over_old=True) -> str:
    """A result line: old's and new's median CPU / wall seconds a step (in us) and
    their ratio paired by round (new/old, or old/new), median (quartiles)."""
    num, den = (1, 0) if new_over_old else (0, 1)
    sides = ((cpu_o, cpu_n), (wall_o, wall_n))
    qc, qw = (np.array(x[num]) / np.array(x[den]) for x in sides)
    what = "new/old" if new_over_old else "old/new"
    return (f"  {label}: old {np.median(cpu_o) * 1e6:.1f} / "
            f"{np.median(wall_o) * 1e6:.1f}, new {np.median(cpu_n) * 1e6:.1f} / "
            f"{np.median(wall_n) * 1e6:.1f}; {what} CPU {np.median(qc):.3f} "
            f"({np.percentile(qc, 25):.3f}-{np.percentile(qc, 75):.3f}), wall "
            f"{np.median(qw):.3f} ({np.percentile(qw, 25):.3f}-"
            f"{np.percentile(qw, 75):.3f})")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("old", type=Path)
    ap.add_argument("--B", default="1,64,1024")
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--games", default=",".join(GAMES))
    a = ap.parse_args()
    olds = {"run": old_method(a.old, _vecnp, "WholeStep", "_run"),
            "dr": old_method(a.old, _vecdr_env, "WholeSteps", "step")}
    Bs = [int(x) for x in a.B.split(",")]
    labs = [(g, B, p) for g in a.games.split(",") for B in Bs for p in ("old", "new")]
    envs = {k: make(k[0], k[1], k[2] == "old", olds) for k in labs}
    steps = {B: max(16, 3000 // (B + 10)) for B in Bs}
    cpu = {k: [] for k in labs}
    wall = {k: [] for k in labs}
    moves = {}
    order = random.Random(1)
    for rnd in range(a.rounds):
        for k in order.sample(labs, len(labs)):
            c, w, moves[k] = one_round(envs[k], rnd, steps[k[1]])
            cpu[k].append(c)
            wall[k].append(w)
        for g, B, _ in labs:
            assert moves[g, B, "old"] == moves[g, B, "new"], (g, B, rnd)
    print(f"{a.rounds} rounds, 1 thread, copy=True; us per env step, median: CPU / wall;"
          " new/old paired by round, median (quartiles)")
    for g, B, p in labs:
        if p == "old":
            continue
        o, n = (g, B, "old"), (g, B, "new")
        print(paired(f"{g} B={B}", cpu[o], wall[o], cpu[n], wall[n]))


if __name__ == "__main__":
    main()
