"""The Python side of Heroscape's and Descent's vector env steps in one compiled call
per thread chunk (``HeroscapeEnvStep.step``, ``DescentEnvStep.step``): this tree's
against another tree's (``OLD``: the folder of its ``core/rl``, e.g. main's unpacked
with ``git archive``), in one process. The old ``step`` methods are read from OLD's
sources and bound to envs of this tree, so both call the same compiled kernel on the
same games; the envs are stepped in a shuffled order each round (rounds of ``steps``
env steps, the same actions for old and new). Per env step: the process's CPU time
and the wall time, medians of the rounds, and old/new paired within each round. Then
the Python side alone: both ``step`` methods with the kernel a no-op (1 thread),
alternating, the median of rounds of 200 calls.

    python benches/env_step_python_ab.py OLD [rounds] [steps] [B]
"""
import ast
import random
import sys
import textwrap
import time
import types
from pathlib import Path

import numpy as np

import movecore.rl as rl
from movecore.rl import _vecdescent_env, _vechsenv
from whole_step_entry_ab import one_round, paired   # (shared with that A/B)

OLD = Path(sys.argv[1])
R = int(sys.argv[2]) if len(sys.argv) > 2 else 30
S = int(sys.argv[3]) if len(sys.argv) > 3 else 20
B = int(sys.argv[4]) if len(sys.argv) > 4 else 64


def old_step(module, cls, kernel=None):
    """``cls.step`` as OLD's ``module`` source writes it, run in this tree's module
    (``kernel``: what its ``env_kernel()`` returns instead)."""
    src = (OLD / (module.__name__.rsplit(".", 1)[1] + ".py")).read_text()
    for node in ast.walk(ast.parse(src)):
        if isinstance(node, ast.ClassDef) and node.name == cls:
            fn = next(n for n in node.body if getattr(n, "name", "") == "step")
            space = dict(vars(module))
            if kernel is not None:
                space["env_kernel"] = lambda: kernel
            exec(textwrap.dedent(ast.get_source_segment(src, fn)), space)
            return space["step"]
    raise SystemExit(f"no {cls}.step in {OLD}")


games = {"heroscape_engaged_knight": ("_hsf", old_step(_vechsenv, "HeroscapeEnvStep")),
         "descent_door_round": ("_dsf", old_step(_vecdescent_env, "DescentEnvStep"))}
labs = [(g, p, t) for g in games for p in ("old", "new") for t in (1, 2)]
envs = {}
for g, p, t in labs:
    attr, old = games[g]
    e = rl.vector_env(g, num_envs=B, threads=t, copy=True)
    one = getattr(e, attr)
    assert one is not None
    if p == "old":
        one.step = types.MethodType(old, one)
    envs[g, p, t] = e
    e.reset(seed=0)                     # (compiled or loaded before the rounds)
    e.step(np.zeros(B, np.int64))


cpu = {k: [] for k in labs}
wall = {k: [] for k in labs}
moves_end = {}
shuffled = random.Random(1)
for rnd in range(R):
    for k in shuffled.sample(labs, len(labs)):
        c, w, moves_end[k] = one_round(envs[k], rnd, S)
        cpu[k].append(c)
        wall[k].append(w)
print(f"B={B} copy=True, {R} rounds x {S} steps, µs per env step (median): CPU / wall;"
      " old/new paired by round (quartiles)")
for g in games:
    for t in (1, 2):
        # (the same games: old and new played the same moves)
        assert moves_end[g, "old", t] == moves_end[g, "new", t], moves_end
        o, n = (g, "old", t), (g, "new", t)
        print(paired(f"{g} {t}T", cpu[o], wall[o], cpu[n], wall[n], new_over_old=False))


def no_op(*args):
    return 0


print("the Python side alone (the kernel a no-op, 1 thread), µs per step (median):")
for g, (attr, _) in games.items():
    e = envs[g, "new", 1]
    one = getattr(e, attr)
    module = _vechsenv if attr == "_hsf" else _vecdescent_env
    cls = type(one).__name__
    old = types.MethodType(old_step(module, cls, no_op), one)
    kernel, module.env_kernel = module.env_kernel, lambda: no_op
    args = (np.ones(B, np.int64), np.zeros(B, np.int64), 0.0,
            np.zeros((B, 8), np.float32), np.zeros((B, 4), np.int8))
    took = {"old": [], "new": []}
    for r in range(200):
        for p, f in (("old", old), ("new", one.step))[::1 if r % 2 else -1]:
            t0 = time.perf_counter()
            for _ in range(200):
                f(*args)
            took[p].append((time.perf_counter() - t0) / 200 * 1e6)
    module.env_kernel = kernel
    print(f"  {g}: old {np.median(took['old']):.2f}, new {np.median(took['new']):.2f}")
