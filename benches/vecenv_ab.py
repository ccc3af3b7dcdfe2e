"""Before/after speed of a change to the compiled steps of the grid game, Tiny Epic Tactics
and Mage Knight (``core/rl/_vecgame.py``: the vector env's ``env_chunk``, self-play's
``selfplay_step``; and the kernels they call, ``kernels/reach.py``), in one process: a
baseline tree's two modules are loaded beside the installed ones, and the vector env and
``BatchedPlay`` are stepped on each in turn, round by round, on the same seeds, so that
a slow spell of a shared machine hits both alike (fresh processes run the same code at
different speeds there).

    git worktree add --detach /tmp/base BASE_COMMIT
    python benches/vecenv_ab.py /tmp/base [--games grid,mage_knight] [--B 1024]
                                          [--threads 1] [--rounds 12] [--steps 2]
    python benches/vecenv_ab.py --entry [--B 64,1024] [--threads 1,2]  (no base: the
        step's compiled chunk at its entry point against the dispatcher, :func:`run_entry`)
    python benches/vecenv_ab.py /tmp/base --vector ...   (the baseline's ``vector.py``
        too: its env class drives its side, for changes to the env's Python or arrays)

Prints per game and path (vector env ``copy=True``, kept observations ``copy=False``,
``BatchedPlay``) the CPU per move of each side (``time.process_time``: the other work of
the machine not counted; the env's step alone, its random actions drawn outside the
clock, as ``bench --batch`` times it), the median over the rounds of new/old (< 1: faster), and the
move over one kernel query (the reference query of ``movecore bench --batch``, its CPU
per query measured in the same process before and after the rounds).
Asserts after every round that both sides played the same games. Only for changes
inside those two files whose calls keep their arguments (the rest is the installed
tree's: its ``vector.py`` and ``selfplay_batch.py`` drive both sides); with ``--vector``
the baseline's ``core/rl/vector.py`` is loaded too and its env class builds and steps
the baseline's envs (its step, arrays and Python wrapper; ``BatchedPlay`` as before):
needed wherever the two trees' steps take other arguments (a baseline before the step's
``S[27]``, ``vector._FETCH_GAME``, fails to compile without it).
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time
import types

import numpy as np


def _load(path: str, name: str, package: str):
    spec = importlib.util.spec_from_file_location(f"{package}.{name}", path)
    m = importlib.util.module_from_spec(spec)
    m.__package__ = package
    sys.modules[spec.name] = m          # (Numba's cache finds a module by its name)
    spec.loader.exec_module(m)
    return m


def load_base(base: str):
    """The baseline's ``_vecgame``, on the baseline's ``kernels/reach.py``."""
    importlib.import_module("movecore.kernels.reach")   # the installed one, put back below
    reach = _load(os.path.join(base, "kernels", "reach.py"), "reach_base", "movecore.kernels")
    key = "movecore.kernels.reach"
    new = sys.modules[key]
    sys.modules[key] = reach            # (its ``from ..kernels.reach import`` reads this)
    try:
        return _load(os.path.join(base, "core", "rl", "_vecgame.py"), "_vecgame_base",
                     "movecore.rl")
    finally:
        sys.modules[key] = new


def load_base_vector(base: str):
    """The baseline's ``core/rl/vector.py`` (its relative imports: the installed
    package's modules; its ``_vecgame`` calls swapped to the baseline's by
    :func:`_on_base_whole`)."""
    return _load(os.path.join(base, "core", "rl", "vector.py"), "vector_base", "movecore.rl")


def _on_base_whole(env, vg) -> None:
    """``env`` (the baseline's env class) reset and stepped with the baseline's compiled
    functions: ``_vecgame``'s ``env_chunk``, ``observe`` and ``step_modes`` swapped to
    ``vg``'s for the duration of each call (its methods import them at call time)."""
    import movecore.rl._vecgame as mod
    names = ("env_chunk", "observe", "step_modes")

    def swapped(fn):
        def call(*args, **kwargs):
            keep = [getattr(mod, n) for n in names]
            for n in names:
                setattr(mod, n, getattr(vg, n))
            try:
                return fn(*args, **kwargs)
            finally:
                for n, f in zip(names, keep):
                    setattr(mod, n, f)
        return call
    env.step = swapped(env.step)
    env.reset = swapped(env.reset)


def _on_base(env, vg) -> None:
    """``env``'s step on the baseline's ``env_chunk`` (the installed ``_step_arrays``, with
    the baseline's compiled call)."""
    real = env._step_arrays.__func__

    def step_arrays(self, *args):
        import movecore.rl._vecgame as mod
        keep = mod.env_chunk
        mod.env_chunk = vg.env_chunk
        try:
            return real(self, *args)
        finally:
            mod.env_chunk = keep
    env._step_arrays = types.MethodType(step_arrays, env)


def _play_on(play, vg):
    """One ``BatchedPlay`` step on ``vg.selfplay_step`` (its calls as the installed tree
    builds them; a baseline's step from before the kept ends, whose signature ends at
    ``counts``, is called without the three kept arrays, which it does not read)."""
    import inspect

    import movecore.tools.selfplay_batch as spb
    keep = spb._fused_kernel
    step = vg.selfplay_step
    if "kept_in" not in inspect.signature(step.py_func).parameters:
        spb._fused_kernel = lambda: lambda *a: step(*a[:-3])
    else:
        spb._fused_kernel = lambda: step
    try:
        return play.step()
    finally:
        spb._fused_kernel = keep


def _measure(fn, n):
    """CPU seconds per unit of ``n`` calls of ``fn``: each returns its units, or (units,
    CPU seconds) where it times itself (the env's step alone, its actions drawn outside)."""
    c0, u, spent = time.process_time(), 0, 0.0
    for _ in range(n):
        r = fn()
        if isinstance(r, tuple):
            u += r[0]
            spent += r[1]
        else:
            u += r
    return ((time.process_time() - c0) if not spent else spent) / u


def reference_cpu(game):
    """``game``'s first bundled scenario, and a function timing ``bench --batch``'s
    reference query on it: CPU seconds a query over 0.3 s of its rounds."""
    from movecore.tools.bench_batch import _query_round, _reference
    from movecore.tools.selfplay import example_scenarios
    from movecore.tools.selfplay_batch import BatchedPlay
    scen = example_scenarios(game)[0][1]
    ref = _query_round(_reference(game, scen, BatchedPlay(game, scen, 1, seed=1)))

    def query_cpu():
        n, _, cpu = ref(0.3)[:3]        # (units, wall, process CPU, ...)
        return cpu / n
    return scen, query_cpu


def run(game, base_vg, B, threads, rounds, log=print, steps=None, base_vector=None) -> None:
    import movecore.rl as rl
    import movecore.rl._vecgame as new_vg
    from movecore.tools.selfplay_batch import BatchedPlay
    scen, query_cpu = reference_cpu(game)
    k0 = query_cpu()
    rows = []
    for path in ("env copy=True", "env copy=False", "BatchedPlay"):
        if path.startswith("env"):
            envs = [rl.vector_env(scen, num_envs=B, threads=threads,
                                  copy=path.endswith("True")) for _ in range(2)]
            if base_vector is None:
                _on_base(envs[0], base_vg)
            else:
                envs[0] = base_vector.MovecoreVectorEnv(scen, B, threads=threads,
                                                        copy=path.endswith("True"))
                _on_base_whole(envs[0], base_vg)
            rngs = [np.random.default_rng(1) for _ in envs]
            for e in envs:
                e.reset(seed=1)

            def stepper(i, envs=envs, rngs=rngs):
                def f():
                    e, m = envs[i], envs[i]._mask
                    a = (rngs[i].random(m.shape, np.float32) * m).argmax(1)
                    m0 = e.counts["moves"]
                    c0 = time.process_time()         # (the step alone, as bench --batch)
                    e.step(a)
                    return e.counts["moves"] - m0, time.process_time() - c0
                return f
            fns = [stepper(0), stepper(1)]
            same = lambda envs=envs: np.array_equal(envs[0]._mask, envs[1]._mask)  # noqa
        else:
            plays = [BatchedPlay(game, scen, B, seed=1, threads=threads) for _ in range(2)]
            fns = [lambda p=plays[0]: _play_on(p, base_vg),
                   lambda p=plays[1]: _play_on(p, new_vg)]
            same = lambda plays=plays: np.array_equal(plays[0].games.occ,  # noqa
                                                      plays[1].games.occ)
        for f in fns:
            f()
        per = [[], []]
        order = np.random.default_rng(0)     # (a new order each round: on a loaded
        for _ in range(rounds):                 # machine the second of a fixed pair is
            for i in order.permutation(2).tolist():     # slowed more often)
                per[i].append(_measure(fns[i], steps or max(2, 8192 // B)))
            assert same(), f"{game} {path}: the two sides played different games"
        rows.append((path, np.array(per[0]), np.array(per[1])))
    kq = (k0 + query_cpu()) / 2
    for path, old, new in rows:
        log(f"  {game:18s} {path:15s} CPU per move old {np.median(old) * 1e6:.3f} us, new "
            f"{np.median(new) * 1e6:.3f} us: new/old {np.median(new / old):.3f} (median "
            f"of {rounds} rounds); a move = {np.median(old) / kq:.2f} -> "
            f"{np.median(new) / kq:.2f} kernel queries", flush=True)


def run_entry(game, B, threads, rounds, log=print):
    """``--entry``: the vector env's step with its compiled chunk called at the overload's
    entry point (``movecore.batch.ENTRY``, the default) against the dispatcher's
    call at every step: two envs of the same scenario and seeds stepped in turn (a
    shuffled order each round), asserted to play the same games; entry/dispatcher by
    process CPU and by wall clock (< 1: the entry point is faster)."""
    import movecore.rl as rl
    import movecore.batch as batch
    from movecore.tools.selfplay import example_scenarios
    name, scen = example_scenarios(game)[0]
    envs, rngs = [], []
    for entry in (True, False):
        batch.ENTRY = entry
        e = rl.vector_env(scen, num_envs=B, threads=threads)
        e.reset(seed=1)
        envs.append(e)
        rngs.append(np.random.default_rng(1))
    batch.ENTRY = True
    acts = [None, None]

    def steps(i, n):
        e, rng = envs[i], rngs[i]
        c0, t0 = time.process_time(), time.perf_counter()
        for _ in range(n):
            m = e._mask
            a = (rng.random(m.shape, np.float32) * m).argmax(1)
            batch.ENTRY = i == 0      # (read only when an env's key is not cached)
            e.step(a)
        acts[i] = e._mask.copy()
        return time.process_time() - c0, time.perf_counter() - t0

    n = max(4, 16384 // B)
    for i in (0, 1):
        steps(i, 2)
    cpu, wall = [[], []], [[], []]
    order = np.random.default_rng(0)
    for _ in range(rounds):
        for i in order.permutation(2).tolist():
            c, w = steps(i, n)
            cpu[i].append(c / n)
            wall[i].append(w / n)
        assert np.array_equal(acts[0], acts[1]), "the two envs played different games"
    assert envs[0]._entries and not envs[1]._entries       # the entry point was used
    c, w = np.array(cpu), np.array(wall)
    log(f"  {game:18s} B={B:5d} threads={threads}: entry/dispatcher CPU "
        f"{np.median(c[0] / c[1]):.3f}, wall {np.median(w[0] / w[1]):.3f}; CPU per step "
        f"{np.median(c[0]) * 1e6:.1f} vs {np.median(c[1]) * 1e6:.1f} us", flush=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("base", nargs="?", help="a checkout of the baseline commit")
    ap.add_argument("--entry", action="store_true", help="the entry point against the "
                    "dispatcher (run_entry) instead of a base tree")
    ap.add_argument("--games", default="grid,tiny_epic_tactics,mage_knight")
    ap.add_argument("--B", default="1024", help="comma list (--entry) or one B")
    ap.add_argument("--threads", default="1", help="comma list (--entry) or one count")
    ap.add_argument("--vector", action="store_true", help="the baseline's vector.py "
                    "drives its envs too (load_base_vector)")
    ap.add_argument("--rounds", type=int, default=12)
    ap.add_argument("--steps", type=int, default=None,
                    help="steps per round (default 8,192 / B); on a loaded machine many "
                    "short rounds (--steps 2 --rounds 150) pair the sides more closely")
    a = ap.parse_args(argv)
    if not a.entry and not a.base:
        ap.error("a base tree, or --entry")
    base_vg = None if a.entry else load_base(a.base)
    base_vector = load_base_vector(a.base) if a.vector and not a.entry else None
    print(f"B={a.B}, {a.threads} thread(s); load average "
          f"{'/'.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    for game in a.games.split(","):
        for B in map(int, a.B.split(",")):
            for t in map(int, a.threads.split(",")):
                if a.entry:
                    run_entry(game, B, t, a.rounds)
                else:
                    run(game, base_vg, B, t, a.rounds, steps=a.steps,
                        base_vector=base_vector)
    print(f"load average at the end {'/'.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
