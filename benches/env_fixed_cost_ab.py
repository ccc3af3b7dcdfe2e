"""Before/after speed of the vector env step's Python (``MovecoreVectorEnv``'s step and
its compiled calls' hand-off; the whole steps' ``_vecnp.WholeStep._run``,
``_vechsenv.HeroscapeEnvStep.step``, ``_vecdescent_env.DescentEnvStep.step``,
``_vecdr_env.WholeSteps.step``), in one process: OLD's methods (``OLD``: the folder of a
tree's ``core/rl``, e.g. main's unpacked with ``git archive``) whose source differs from
this tree's are read from its sources, run in this tree's modules (with OLD's own
module-level plain functions and settings: its ``entry_call``, ``_ENTRY``, ...) and
bound to envs of this tree, so both sides call the same compiled kernels on the same
games. Each round every (game, B, threads, side) env is reset with the round's seed and
stepped with the same seeded random legal actions, in a shuffled order; per env step
the process's CPU time and the wall time, medians of the rounds, new/old paired within
each round (< 1: faster); with ``--threads 1,2``, each side's 2-thread speed over its
1-thread (wall), paired by round. Asserts both sides played the same games (moves,
observations, masks). ``copy=True``.

    git -C /work/main archive main core/rl | tar -x -C /tmp/base
    python benches/env_fixed_cost_ab.py /tmp/base/core/rl --B 1 --rounds 21
    python benches/env_fixed_cost_ab.py /tmp/base/core/rl --games mage_knight_first_turns \\
        --B 1024 --threads 1,2 --rounds 21 [--noop]

``--noop`` (grid, Tiny Epic Tactics, Mage Knight): the step's compiled chunk a no-op
with the same arguments (both sides), so what is timed is the step's Python, the
hand-off and the unboxing of the chunks' arguments (the games do not change: what the
sides play is not compared). With ``--threads 1,2`` the wall ratio is the whole step's
(a shared machine's wall figures are its load's); ``best`` is the ratio of each side's
fastest round at 1 and 2 threads.
"""
import argparse
import ast
import random
import textwrap
import time
import types
from pathlib import Path

import numpy as np
from numba import njit

import movecore.rl as rl
from movecore.rl import _vecdescent_env, _vecdr_env, _vecgame, _vechsenv, _vecnp, vector

GAMES = ("grid_hex_skirmish", "mage_knight_first_turns", "heroscape_engaged_knight",
         "dark_realms_die_planning")
#: (module, class): the classes whose changed methods the old side takes
CLASSES = ((vector, "MovecoreVectorEnv"), (_vecnp, "WholeStep"),
           (_vechsenv, "HeroscapeEnvStep"), (_vecdescent_env, "DescentEnvStep"),
           (_vecdr_env, "WholeSteps"))
#: never taken (they build the objects both sides share, or call super())
KEEP = {"__init__", "_init_arrays", "reset"}


def _plain(node) -> bool:
    """A module-level statement the old side's namespace takes: an undecorated function,
    a setting, an import."""
    if isinstance(node, ast.FunctionDef):
        return not node.decorator_list
    return isinstance(node, (ast.Assign, ast.AnnAssign, ast.ImportFrom, ast.Import))


def old_methods(old: Path) -> dict:
    """{(module, class): {name: function}}: OLD's methods whose source differs from
    this tree's, each run in a namespace of this tree's module with OLD's plain
    module-level functions and settings over it."""
    out, spaces = {}, {}
    for module, cls in CLASSES:
        name = module.__name__.rsplit(".", 1)[1]
        src = (old / (name + ".py")).read_text()
        new_src = Path(module.__file__).read_text()
        space = spaces.get(name)
        if space is None:
            space = spaces[name] = dict(vars(module))
            for node in ast.parse(src).body:
                if _plain(node):
                    exec(compile(ast.Module([node], []), f"<old {name}>", "exec"), space)
            if name == "_vecdr_env":    # (its entry_call: OLD's, from OLD's _vecnp)
                space["entry_call"] = spaces["_vecnp"]["entry_call"]
        new_defs = {n.name: ast.get_source_segment(new_src, n)
                    for c in ast.walk(ast.parse(new_src)) if isinstance(c, ast.ClassDef)
                    and c.name == cls for n in c.body if isinstance(n, ast.FunctionDef)}
        got = {}
        for c in ast.walk(ast.parse(src)):
            if isinstance(c, ast.ClassDef) and c.name == cls:
                for n in c.body:
                    if not isinstance(n, ast.FunctionDef) or n.name in KEEP or \
                            n.decorator_list:
                        continue
                    text = ast.get_source_segment(src, n)
                    if new_defs.get(n.name) != text:
                        exec(textwrap.dedent(text), space)
                        got[n.name] = space[n.name]
        out[module, cls] = got
    return out


def _bind(obj, fns: dict) -> None:
    for name, fn in fns.items():
        setattr(obj, name, types.MethodType(fn, obj))


def _noop_of(kernel):
    """A compiled no-op with ``kernel``'s parameters (its own overloads, entry points)."""
    import inspect
    names = list(inspect.signature(kernel.py_func).parameters)
    space = {}
    exec(f"def noop({', '.join(names)}):\n    return 0", space)
    return njit(nogil=True)(space["noop"])


_NOOP = []


def make(game, B, threads, old, olds, noop=False):
    e = rl.vector_env(game, num_envs=B, threads=threads, copy=True)
    if noop:
        assert e._np is None, "--noop: the grid's, Tiny Epic Tactics' or Mage Knight's env"
        e._env_chunk = _vecgame.env_chunk = _NOOP[0]    # (OLD's step imports it each step)
    if old:
        _bind(e, olds[vector, "MovecoreVectorEnv"])
        if e._np is not None and e._np._dr is not None:
            w = e._np._dr.whole_steps = _vecdr_env.WholeSteps(e._np)
            _bind(w, olds[_vecdr_env, "WholeSteps"])
        for one, mod, cls in ((e._hsf, _vechsenv, "HeroscapeEnvStep"),
                              (e._dsf, _vecdescent_env, "DescentEnvStep")):
            if one is not None:
                _bind(one, olds[_vecnp, "WholeStep"])
                _bind(one, olds[mod, cls])
    e.reset(seed=0)
    for _ in range(3):     # (compiled or loaded; the entry points found)
        e.step((np.random.default_rng(0).random(e._mask.shape) * e._mask).argmax(1))
    return e


def one_round(e, seed, steps):
    """``steps`` env steps of ``e`` from a reset with ``seed`` (seeded random legal
    actions): the CPU and wall seconds per step, and what it played (its moves, a
    digest of the observations and masks)."""
    e.reset(seed=seed)
    pick = np.random.default_rng(seed)
    c = w = 0.0
    dig = 0
    for _ in range(steps):
        a = (pick.random(e._mask.shape, np.float32) * e._mask).argmax(1)
        c0, w0 = time.process_time(), time.perf_counter()
        obs, r, term, trunc, info = e.step(a)
        c += time.process_time() - c0
        w += time.perf_counter() - w0
        dig = hash((dig, obs.tobytes(), r.tobytes(), term.tobytes(), trunc.tobytes(),
                    info["action_mask"].tobytes()))
    return c / steps, w / steps, (e.counts["moves"], dig)


def _q(x) -> str:
    x = np.asarray(x)
    return (f"{np.median(x):.3f} ({np.percentile(x, 25):.3f}-{np.percentile(x, 75):.3f}, "
            f"range {x.min():.3f}-{x.max():.3f})")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("old", type=Path)
    ap.add_argument("--B", default="1")
    ap.add_argument("--threads", default="1")
    ap.add_argument("--rounds", type=int, default=21)
    ap.add_argument("--steps", type=int, default=0, help="env steps a round (0: by B)")
    ap.add_argument("--games", default=",".join(GAMES))
    ap.add_argument("--noop", action="store_true")
    a = ap.parse_args()
    olds = old_methods(a.old)
    if a.noop:
        _NOOP.append(_noop_of(_vecgame.env_chunk))
    print("old methods taken:", {f"{m.__name__.rsplit('.', 1)[1]}.{c}": sorted(f)
                                 for (m, c), f in olds.items() if f})
    Bs = [int(x) for x in a.B.split(",")]
    Ts = [int(x) for x in a.threads.split(",")]
    labs = [(g, B, t, p) for g in a.games.split(",") for B in Bs for t in Ts
            for p in ("old", "new")]
    envs = {k: make(k[0], k[1], k[2], k[3] == "old", olds, a.noop) for k in labs}
    steps = {B: a.steps or max(16, 3000 // (B + 10)) for B in Bs}
    cpu = {k: [] for k in labs}
    wall = {k: [] for k in labs}
    played = {}
    order = random.Random(1)
    for rnd in range(a.rounds):
        for k in order.sample(labs, len(labs)):
            c, w, played[k] = one_round(envs[k], rnd, steps[k[1]])
            cpu[k].append(c)
            wall[k].append(w)
        for g, B, t, _ in labs * (not a.noop):
            assert played[g, B, t, "old"] == played[g, B, t, "new"], (g, B, t, rnd)
        for g, B, t, p in labs * (not a.noop):     # (1 and 2 threads: the same games)
            assert played[g, B, t, p] == played[g, B, Ts[0], p], (g, B, t, rnd)
    print(f"{a.rounds} rounds, copy=True; us per env step, median: CPU / wall; new/old "
          "paired by round: median (quartiles, range)")
    for g, B, t, p in labs:
        if p == "new":
            o, n = (g, B, t, "old"), (g, B, t, "new")
            print(f"  {g} B={B} threads={t}: old {np.median(cpu[o]) * 1e6:.1f} / "
                  f"{np.median(wall[o]) * 1e6:.1f}, new {np.median(cpu[n]) * 1e6:.1f} / "
                  f"{np.median(wall[n]) * 1e6:.1f}; CPU "
                  f"{_q(np.array(cpu[n]) / np.array(cpu[o]))}, wall "
                  f"{_q(np.array(wall[n]) / np.array(wall[o]))}")
    if len(Ts) > 1:
        print(f"speed {Ts[-1]}/{Ts[0]} threads (wall per step, paired by round): median "
              "(quartiles, range)")
        for g in a.games.split(","):
            for B in Bs:
                for p in ("old", "new"):
                    w1, w2 = np.array(wall[g, B, Ts[0], p]), np.array(wall[g, B, Ts[-1], p])
                    print(f"  {g} B={B} {p}: {_q(w1 / w2)}; best {w1.min() / w2.min():.3f}")


if __name__ == "__main__":
    main()
