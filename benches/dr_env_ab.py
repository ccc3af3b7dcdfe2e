"""Before/after speed of a change to Dark Realms' vector env step
(``movecore.rl._vecdr_env`` with the observation ``_vecnp.draw_obs``, the heroes'
answers ``_vecdr`` and their bit sets ``_hero_bits``, the enemy AI ``_batch_enemy``), in one process: a baseline
tree's four modules are loaded beside the installed ones (under names of their own, so
Numba compiles them apart), and

* the vector env (B games, one thread, ``copy=True``: every game's observation drawn
  whole each step) steps on each side's whole step in turn, round by round, on the
  same seeded games and actions (asserting once both played the same observations,
  rewards and ends), two envs each holding both sides' steps, the sides swapping envs
  every round (an env's own speed, its arrays' places in memory, leans on neither);
* ``BatchedPlay`` (the chunked self-play step, one thread) steps on the baseline's
  enemy AI kernel and on the installed one, on two plays of the same seeds, each side
  on each play in turn (asserting both played the same games).

    git -C /work/main archive BASE_COMMIT | tar -x -C /tmp/base
    python benches/dr_env_ab.py /tmp/base [--B 1024] [--rounds 15] [--steps 20]

Prints the CPU per figure move of each side (``time.process_time``: the other work of
the machine not counted; wall beside it) and the median over the rounds of old/new
(> 1: faster). The baseline's enemy AI kernel is called with the installed layout's
inputs less any it does not take (by name).
"""
from __future__ import annotations

import argparse
import importlib.util
import inspect
import os
import sys
import time

import numpy as np

#: the baseline's modules, loaded as ``<name>_ab``, and the imports rewritten to them
_MODS = (("games.dark_realms", "_batch_enemy"), ("games.dark_realms", "_hero_bits"),
         ("rl", "_vecnp"), ("rl", "_vecdr"), ("rl", "_vecdr_env"))


def load_base(base: str) -> dict:
    """The baseline's modules (see :data:`_MODS`), each importing the others' baseline
    copies (``._vecnp`` -> ``._vecnp_ab``, ...), the rest the installed package's."""
    out = {}
    for pkg, mod in _MODS:
        path = os.path.join(base, "core", *pkg.split("."), mod + ".py")
        src = open(path).read()
        for _, m in _MODS:
            src = src.replace(f".{m} import", f".{m}_ab import")
        name = f"movecore.{pkg}.{mod}_ab"
        spec = importlib.util.spec_from_loader(name, loader=None, origin=path)
        m = importlib.util.module_from_spec(spec)
        m.__file__ = path
        m.__package__ = f"movecore.{pkg}"
        sys.modules[name] = m
        exec(compile(src, path, "exec"), m.__dict__)
        out[mod] = m
    return out


class _BaseAI:
    """The baseline's enemy AI kernel called with the installed layout's inputs less
    the ones it does not take (the installed ``WholeSteps`` passes them all), and less
    any trailing ones past its own (the installed kernel's ``lists``)."""

    #: (``movecore.batch.entry_for`` finds no overload of it: it is called itself, and
    #: calls its kernel at that kernel's entry point after the first call, as the
    #: installed side's calls are)
    overloads: dict = {}

    def __init__(self, kern, names):
        params = list(inspect.signature(kern.py_func).parameters)
        self.k = kern
        self.n = len(params)
        self.drop = [6 + i for i, n in enumerate(names) if n not in params]
        self.e = None

    def typeof_pyval(self, a):
        return None

    def __call__(self, *a):
        for i in reversed(self.drop):
            a = a[:i] + a[i + 1:]
        a = a[:self.n]
        if self.e is None:
            from movecore.batch import entry_for
            st = self.k(*a)
            self.e = entry_for(self.k, a)
            return st
        return self.e(*a)


def _ratio(res) -> str:
    o, n = np.median(res["old"], 0), np.median(res["new"], 0)
    r = np.median([a[0] / b[0] for a, b in zip(res["old"], res["new"])])
    rw = np.median([a[1] / b[1] for a, b in zip(res["old"], res["new"])])
    return (f"CPU old {o[0] * 1e6:.3f} new {n[0] * 1e6:.3f} us, old/new {r:.3f}; wall old "
            f"{o[1] * 1e6:.3f} new {n[1] * 1e6:.3f} us, old/new {rw:.3f} (medians of rounds)")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("base")
    ap.add_argument("--scenario", default="dark_realms_die_planning")
    ap.add_argument("--B", type=int, default=1024)
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--steps", type=int, default=20, help="env steps per round")
    a = ap.parse_args(argv)
    import movecore.rl as rl
    from movecore.tools.selfplay import example_scenarios
    from movecore.tools.selfplay_batch import BatchedPlay
    base = load_base(a.base)
    from movecore.rl._vecdr_env import WholeSteps
    # two envs, each with both sides' steps (the games' state is the env's, and both
    # play it alike): the sides swap envs every round, so neither env's own speed (its
    # arrays' places in memory) leans on one side
    envs = [rl.vector_env(a.scenario, num_envs=a.B, threads=1, copy=True)
            for _ in range(2)]
    steps = []
    for e in envs:
        n = e._np
        ws = base["_vecdr_env"].WholeSteps(n)
        # (the baseline's step on the baseline's enemy AI kernel)
        ai = _BaseAI(base["_batch_enemy"].kernel(), list(n._dr.ai.args))
        ws._ai = ai
        # (each thread's inputs: occ, cell, alive, then the layout's, ...)
        ws._ai_args = [tuple(x for i, x in enumerate(args) if i + 3 not in ai.drop)
                       for args in ws._ai_args]
        ai.drop = []                # (dropped from the arguments once, above)
        steps.append({"old": ws, "new": WholeSteps(n)})
    # the baseline's draw_obs compiled on its own first (its slice assignment may
    # copy its source, an allocation the whole step's compile, without reference
    # counts, cannot make), with the installed one's types
    from movecore.rl import _vecnp
    envs[0]._np._dr.whole_steps = steps[0]["new"]
    envs[0].reset(seed=7)
    envs[0].step(envs[0]._mask.argmax(1))
    n_base = base["_vecnp"].draw_obs.py_func.__code__.co_argcount
    for sig in _vecnp.draw_obs.signatures:
        # (a baseline's draw_obs before its scratch ``row``: one type fewer)
        base["_vecnp"].draw_obs.compile(sig[:n_base])
    A = envs[0]._mask.shape[1]
    U = np.random.default_rng(0).random((a.steps, a.B, A), np.float32)

    def env_round(k, side, check):
        e = envs[k]
        e._np._dr.whole_steps = steps[k][side]
        e.reset(seed=7)
        m0 = e.counts["moves"]
        cpu = wall = 0.0
        out = []
        for s in range(a.steps):
            act = (U[s] * e._mask).argmax(1)
            t0, c0 = time.perf_counter(), time.process_time()
            obs, r, term, trunc, info = e.step(act)
            cpu += time.process_time() - c0
            wall += time.perf_counter() - t0
            if check:
                out.append((obs.copy(), r.copy(), term.copy(), trunc.copy()))
        mv = e.counts["moves"] - m0
        return (cpu / mv, wall / mv), out

    # the same games on both sides, checked once
    _, want = env_round(0, "old", True)
    _, got = env_round(1, "new", True)
    assert all(all(np.array_equal(x, y) for x, y in zip(w, g)) for w, g in zip(want, got))
    scen = next(s for n, s in example_scenarios("dark_realms")
                if n.removesuffix(".json") == a.scenario)
    from movecore.games.dark_realms import _batch_enemy as be
    real = be.kernel
    names = list(envs[0]._np._dr.ai.args)
    # (each side's kernel behind the same wrapper: the same calls on both)
    kern = {"old": _BaseAI(base["_batch_enemy"].kernel(), names),
            "new": _BaseAI(real(), names)}
    plays = [BatchedPlay("dark_realms", scen, a.B, seed=1, threads=1) for _ in kern]
    env = {"old": [], "new": []}
    play = {v: [] for v in kern}
    try:
        for i in range(a.rounds):
            for j, v in enumerate(("old", "new") if i % 2 else ("new", "old")):
                env[v].append(env_round((i // 2 + j) % 2, v, False)[0])
            # (each side on each play in turn, first in turn)
            for j, v in enumerate(("old", "new") if i % 2 else ("new", "old")):
                p = plays[(i // 2 + j) % 2]
                be.kernel = lambda k=kern[v]: k      # (what the chunked step calls)
                if getattr(p, "_drplan", None):    # (its entry points: this side's)
                    p._drplan.pop("entries", None)
                c0, t0, n = time.process_time(), time.perf_counter(), 0
                for _ in range(8):
                    n += p.step()
                play[v].append(((time.process_time() - c0) / n,
                                (time.perf_counter() - t0) / n))
            assert all(np.array_equal(plays[0].games.cell, q.games.cell) for q in plays)
    finally:
        be.kernel = real
    load = open("/proc/loadavg").read().split()[:3]
    print(f"{a.scenario}, B = {a.B}, 1 thread, {a.rounds} rounds; load {load}")
    print(f"vector env move with its observation (copy=True), base -> this tree: "
          f"{_ratio(env)}")
    print(f"BatchedPlay move, base -> this tree: {_ratio(play)}")


if __name__ == "__main__":
    main()
