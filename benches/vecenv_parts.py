"""Where a vector env move goes (grid, Tiny Epic Tactics, Mage Knight; B = 1,024, one
thread), in one process: copies of ``core/rl/_vecgame.py`` with one part of the step
taken out, loaded beside the installed module, and the installed step, stepped in
shuffled rounds on the same seeds (the games asserted equal: no part taken out changes
a game), CPU per figure move; and the Python around the compiled call (``step()``'s
CPU less its compiled call's), ``copy=False`` beside ``copy=True``, page faults per step.

    python benches/vecenv_parts.py [--games grid,mage_knight] [--rounds 30] [--steps 2]

The parts taken out: ``noobs`` every observation write (the mask and its copy kept),
``nostatic`` the static planes' copy of ``copy=True``'s draw, ``nomaskcopy`` the masks'
copy into ``info``. ``same`` is an unmodified copy loaded the same way: read the parts
against it (a module loaded beside the installed one runs a few % off it: its code is
placed elsewhere). The kernel's share is not a part to take out (the games would
change); ``perf record`` gives it (docs/performance_log.md, "The vector env's move by part").
"""
from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
import types

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vecenv_ab import _load, _on_base, reference_cpu  # noqa: E402  (shared)


def _sub(s, old, new):
    assert s.count(old) == 1, old
    return s.replace(old, new)


STATIC = "        for j in range(C * HW):\n            o[j] = base[j]\n"
PARTS = {
    "same": lambda s: s,
    "noobs": lambda s: _sub(_sub(_sub(
        s, STATIC, "        pass\n"),
        "    k = c * HW + h\n    o[k] = v\n", "    k = c * HW + h\n"),
        "    for j in range(HW):\n        tp[j] = valid[j] * tf\n", "    pass\n"),
    "nostatic": lambda s: _sub(s, STATIC, "        pass\n"),
    "nomaskcopy": lambda s: _sub(
        s, "            for j in range(mk.shape[0]):\n                mo[j] = mk[j]\n",
        "            pass\n"),
}


def _copy(name, src, folder):
    """``src`` loaded as the module ``movecore.rl._vecgame_<name>`` (its file in
    ``folder``)."""
    path = os.path.join(folder, f"_vecgame_{name}.py")
    with open(path, "w") as fh:
        fh.write(src)
    return _load(path, f"_vecgame_{name}", "movecore.rl")


def _time_call(env):
    """The CPU of ``env``'s compiled calls, accumulated in the list returned."""
    acc = [0.0]
    real = env._run.__func__

    def run(self, *args, **kw):
        c0 = time.process_time()
        real(self, *args, **kw)
        acc[0] += time.process_time() - c0
    env._run = types.MethodType(run, env)
    return acc


def run(game, mods, rounds, steps, B=1024, log=print):
    import movecore.rl as rl
    scen, query_cpu = reference_cpu(game)
    k0 = query_cpu()
    cases = {}
    for label, copy, mod in [("installed", True, None), ("kept", False, None),
                             *[(k, True, m) for k, m in mods.items()],
                             ("timed", True, None)]:
        e = rl.vector_env(scen, num_envs=B, copy=copy)
        if mod is not None:
            _on_base(e, mod)
        acc = _time_call(e) if label == "timed" else None
        e.reset(seed=1)
        cases[label] = (e, np.random.default_rng(1), acc)

    def stepper(label):
        e, rng, acc = cases[label]
        moves, cpu, faults = 0, 0.0, 0
        if acc is not None:
            acc[0] = 0.0
        for _ in range(steps):
            m = e._mask
            a = (rng.random(m.shape, np.float32) * m).argmax(1)
            m0 = e.counts["moves"]
            f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
            c0 = time.process_time()
            e.step(a)
            cpu += time.process_time() - c0
            faults += resource.getrusage(resource.RUSAGE_SELF).ru_minflt - f0
            moves += e.counts["moves"] - m0
        return cpu / moves, faults / steps, (acc[0] / moves if acc else 0.0)

    for label in cases:
        stepper(label)
    res = {label: [] for label in cases}
    labels = list(cases)
    order = np.random.default_rng(0)
    for _ in range(rounds):
        for i in order.permutation(len(labels)).tolist():
            res[labels[i]].append(stepper(labels[i]))
        masks = [cases[label][0]._mask for label in labels]
        assert all(np.array_equal(masks[0], m) for m in masks), "the cases diverged"
    kq = (k0 + query_cpu()) / 2
    e = cases["installed"][0]
    gens = e.counts["generations"] / e.counts["moves"]
    per_step = e.counts["moves"] / ((rounds + 1) * steps + 1) / B
    base = np.array([r[0] for r in res["same" if "same" in res else "installed"]])
    log(f"{game}: the reference query {kq * 1e6:.3f} us CPU; {gens:.3f} move generations "
        f"a move, {per_step:.2f} moves a game an env step")
    for label in labels:
        x = np.array([r[0] for r in res[label]])
        log(f"  {label:11s} {np.median(x) * 1e6:.3f} us a move = {np.median(x) / kq:.2f} "
            f"queries; / same {np.median(x / base):.3f}; page faults a step "
            f"{np.median([r[1] for r in res[label]]):.0f}")
    call = np.array([r[2] for r in res["timed"]])
    whole = np.array([r[0] for r in res["timed"]])
    wrap = np.median(whole - call)
    log(f"  the Python around the compiled call: {wrap * 1e6:.4f} us a move = "
        f"{wrap / kq:.3f} queries = {wrap * per_step * B * 1e6:.1f} us a step() call",
        flush=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", default="grid,tiny_epic_tactics,mage_knight")
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--steps", type=int, default=2)
    a = ap.parse_args(argv)
    import movecore.rl._vecgame as vg
    with open(vg.__file__) as fh:
        src = fh.read()
    # (a fixed folder: Numba's cache keys the copies by their path, so a second run
    # loads them compiled)
    folder = os.path.join(tempfile.gettempdir(), "movecore_vecenv_parts")
    os.makedirs(folder, exist_ok=True)
    mods = {k: _copy(k, f(src), folder) for k, f in PARTS.items()}
    print(f"load average {'/'.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    for game in a.games.split(","):
        run(game, mods, a.rounds, a.steps)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
