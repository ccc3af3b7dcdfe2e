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

Prints per game and path (vector env ``copy=True``, kept observations ``copy=False``,
``BatchedPlay``) the CPU per move of each side (``time.process_time``: the other work of
the machine not counted), the median over the rounds of new/old (< 1: faster), and the
move over one kernel query (the reference query of ``movecore bench --batch``, its CPU
per query measured in the same process before and after the rounds).
Asserts after every round that both sides played the same games. Only for changes
inside those two files whose calls keep their arguments (the rest is the installed
tree's: its ``vector.py`` and ``selfplay_batch.py`` drive both sides).
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
    builds them)."""
    import movecore.tools.selfplay_batch as spb
    keep = spb._fused_kernel
    spb._fused_kernel = lambda: vg.selfplay_step
    try:
        return play.step()
    finally:
        spb._fused_kernel = keep


def _measure(fn, n):
    c0, u = time.process_time(), 0
    for _ in range(n):
        u += fn()
    return (time.process_time() - c0) / u


def run(game, base_vg, B, threads, rounds, log=print, steps=None) -> None:
    import movecore.rl as rl
    import movecore.rl._vecgame as new_vg
    from movecore.tools.bench_batch import _query_round, _reference
    from movecore.tools.selfplay import example_scenarios
    from movecore.tools.selfplay_batch import BatchedPlay
    name, scen = example_scenarios(game)[0]
    ref = _query_round(_reference(game, scen, BatchedPlay(game, scen, 1, seed=1)))

    def query_cpu():
        n, _, cpu, _ = ref(0.3)
        return cpu / n

    k0 = query_cpu()
    rows = []
    for path in ("env copy=True", "env copy=False", "BatchedPlay"):
        if path.startswith("env"):
            envs = [rl.vector_env(scen, num_envs=B, threads=threads,
                                  copy=path.endswith("True")) for _ in range(2)]
            _on_base(envs[0], base_vg)
            rngs = [np.random.default_rng(1) for _ in envs]
            for e in envs:
                e.reset(seed=1)

            def stepper(i, envs=envs, rngs=rngs):
                def f():
                    e, m = envs[i], envs[i]._mask
                    a = (rngs[i].random(m.shape, np.float32) * m).argmax(1)
                    m0 = e.counts["moves"]
                    e.step(a)
                    return e.counts["moves"] - m0
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
    entry point (``movecore.rl.vector._ENTRY``, the default) against the dispatcher's
    call at every step: two envs of the same scenario and seeds stepped in turn (a
    shuffled order each round), asserted to play the same games; entry/dispatcher by
    process CPU and by wall clock (< 1: the entry point is faster)."""
    import movecore.rl as rl
    import movecore.rl.vector as vector
    from movecore.tools.selfplay import example_scenarios
    name, scen = example_scenarios(game)[0]
    envs, rngs = [], []
    for entry in (True, False):
        vector._ENTRY = entry
        e = rl.vector_env(scen, num_envs=B, threads=threads)
        e.reset(seed=1)
        envs.append(e)
        rngs.append(np.random.default_rng(1))
    vector._ENTRY = True
    acts = [None, None]

    def steps(i, n):
        e, rng = envs[i], rngs[i]
        c0, t0 = time.process_time(), time.perf_counter()
        for _ in range(n):
            m = e._mask
            a = (rng.random(m.shape, np.float32) * m).argmax(1)
            vector._ENTRY = i == 0      # (read only when an env's key is not cached)
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
    ap.add_argument("--rounds", type=int, default=12)
    ap.add_argument("--steps", type=int, default=None,
                    help="steps per round (default 8,192 / B); on a loaded machine many "
                    "short rounds (--steps 2 --rounds 150) pair the sides more closely")
    a = ap.parse_args(argv)
    if not a.entry and not a.base:
        ap.error("a base tree, or --entry")
    base_vg = None if a.entry else load_base(a.base)
    print(f"B={a.B}, {a.threads} thread(s); load average "
          f"{'/'.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    for game in a.games.split(","):
        for B in map(int, a.B.split(",")):
            for t in map(int, a.threads.split(",")):
                if a.entry:
                    run_entry(game, B, t, a.rounds)
                else:
                    run(game, base_vg, B, t, a.rounds, steps=a.steps)
    print(f"load average at the end {'/'.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
