"""Before/after speed of a change to Heroscape's vector env step (what it adds to the
moves: the opponents' pick, the observation, the mask), in one process: a baseline
tree's ``rl/_kept_answer.py``, ``rl/_vecnp.py``, ``rl/_vechs.py`` and ``rl/_vechsenv.py``
are loaded beside the installed tree's (as ``movecore.rl._base*`` modules, linked to
each other), the baseline's one-call step (``HeroscapeEnvStep``) is put into one of two
vector envs of the same seed, and the two envs step in turn, rounds shuffled, so that a
slow spell of a shared machine hits both alike. A Descent scenario (``--scenario
descent_door_round``: a name starting ``descent``) does the same for Descent's one-call
step (``_vecdescent_env.DescentEnvStep``, the env's ``_dsf``), the baseline's
``_kept_answer``, ``_vecnp``, ``_vecdescent`` and ``_vecdescent_env`` loaded.

    git worktree add --detach /tmp/base BASE_COMMIT
    python benches/heroscape_env_ab.py /tmp/base [--scenario NAME] [--rounds 14]
                                       [--B 1024] [--threads 1,2] [--copy 1]
                                       [--opponent random]

Each round resets both envs to seed 7 and plays 8 steps of the same actions (a random
legal action per game, drawn before the clock); after every round the two envs'
observations, rewards, ends and masks of every step, their figure moves and their
games' random streams are checked equal. Prints per env the medians of CPU µs per
figure move (the process's, and the calling thread's), wall µs per move, and per
thread count the median and range of the rounds' old / new ratios; with 1 and 2
threads, 2 threads over 1 (wall, and one thread's CPU over the busiest thread's of
two). The env's reset draws its observation through the installed tree's
``BatchedSteps.observe``: for the baseline's env the baseline's ``draw_obs`` is swapped
in during its resets (its step reads the kept record that draw wrote). Only for changes
within those four files and what they call; with ``--game-mods`` the baseline's
``games/heroscape/_bits.py``, ``_bits2.py`` and ``_batch_doubles.py`` are loaded and
linked into its step too (a change to the moves' own queries).

With ``--batch`` the baseline's ``games/heroscape/_batch.py`` is loaded too (as
``movecore.games.heroscape._base_batch``; the four files import its ``_move_one``), and
the baseline's envs are built on its layout (its ``batch_layout`` swapped in while they
are made: the move's constants, ``move`` and codes): a change to the batched move or to
the layout's constants the step reads.

``--no-check``: the paths are not checked equal, for a part's share of the step: the
baseline is a copy of this tree's four files with that part taken out (the observation's
parts: its observations then differ, its games do not; docs/performance_log.md,
``hsenv4``).
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import random
import sys
import time

import numpy as np

MODS = ["_kept_answer", "_vecnp", "_vechs", "_vechsenv"]
#: a Descent scenario's (its one-call step: ``_vecdescent_env``)
DESCENT_MODS = ["_kept_answer", "_vecnp", "_vecdescent", "_vecdescent_env"]
#: with ``--game-mods``: the game's modules the env step links in, loaded from the
#: baseline too (as ``movecore.games.heroscape._base<name>``), in this order
GAME_MODS = ["_bits", "_bits2", "_batch_doubles"]


def _game_imports(src: str, mods=GAME_MODS) -> str:
    """``src`` importing the baseline copies of ``mods``."""
    for o in mods:
        for a, b in ((f"from ..games.heroscape.{o} import",
                      f"from ..games.heroscape._base{o} import"),
                     (f"from ..games.heroscape import {o}\n",
                      f"from ..games.heroscape import _base{o} as {o}\n"),
                     (f"from .{o} import", f"from ._base{o} import"),
                     (f"from . import {o}\n", f"from . import _base{o} as {o}\n")):
            src = src.replace(a, b)
    return src


def load_base(tree: str, game_mods: bool = False, batch: bool = False,
              rl_mods=MODS) -> dict:
    """The baseline's modules of ``rl_mods`` from ``tree`` (a checkout), as
    ``movecore.rl._base<name>``, each importing the others' baseline copies (and with
    ``game_mods`` the baseline's ``GAME_MODS``, with ``batch`` its ``_batch``, loaded
    first)."""
    import tempfile
    out = {}
    folder = tempfile.mkdtemp(prefix="movecore-env-ab-")
    gmods = (GAME_MODS if game_mods else []) + (["_batch"] if batch else [])
    for m in gmods:
        src = _game_imports(open(os.path.join(tree, "core", "games", "heroscape",
                                              m + ".py")).read(), gmods)
        path = os.path.join(folder, f"_base{m}.py")
        with open(path, "w") as fh:
            fh.write(src)
        spec = importlib.util.spec_from_file_location(
            f"movecore.games.heroscape._base{m}", path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = mod
        spec.loader.exec_module(mod)
        out[m] = mod
    for m in rl_mods:
        src = open(os.path.join(tree, "core", "rl", m + ".py")).read()
        src = _game_imports(src, gmods)
        for o in rl_mods:
            src = src.replace(f"from .{o} import", f"from ._base{o} import")
        path = os.path.join(folder, f"_base{m}.py")
        with open(path, "w") as fh:
            fh.write(src)
        spec = importlib.util.spec_from_file_location(f"movecore.rl._base{m}", path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = mod
        spec.loader.exec_module(mod)
        out[m] = mod
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("base", help="a checkout of the baseline tree")
    ap.add_argument("--scenario", default="heroscape_engaged_knight")
    ap.add_argument("--rounds", type=int, default=14)
    ap.add_argument("--B", type=int, default=1024)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--copy", type=int, default=1)
    ap.add_argument("--steps", type=int, default=8)
    ap.add_argument("--opponent", default="random")
    ap.add_argument("--game-mods", action="store_true",
                    help="the baseline's _bits, _bits2 and _batch_doubles too")
    ap.add_argument("--batch", action="store_true",
                    help="the baseline's _batch too, its envs on its layout")
    ap.add_argument("--no-check", action="store_true",
                    help="do not assert the paths equal (a baseline with a part taken out)")
    args = ap.parse_args()
    import movecore.rl as rl
    from movecore.rl import _vecnp
    descent = args.scenario.startswith("descent")
    assert not (descent and (args.game_mods or args.batch)), "--game-mods, --batch: Heroscape's"
    base = load_base(args.base, args.game_mods, args.batch,
                     DESCENT_MODS if descent else MODS)
    layout = importlib.import_module("movecore.games.heroscape._batch")
    new_layout = layout.batch_layout
    threads = [int(x) for x in args.threads.split(",")]
    copy = bool(args.copy)
    B, STEPS = args.B, args.steps
    envs = {}
    for th in threads:
        for path in ("old", "new"):
            if path == "old" and args.batch:
                layout.batch_layout = base["_batch"].batch_layout
            try:
                e = rl.vector_env(args.scenario, num_envs=B, threads=th, copy=copy,
                                  opponent=args.opponent)
            finally:
                layout.batch_layout = new_layout
            if path == "old" and descent:
                assert e._dsf is not None, "not on Descent's one-call step"
                e._dsf = base["_vecdescent_env"].DescentEnvStep(e._np, copy)
            elif path == "old":
                e._hsf = base["_vechsenv"].HeroscapeEnvStep(e._np, copy)
            envs[th, path] = e
    if args.batch:
        M = [envs[threads[0], p]._np._hs.consts for p in ("old", "new")]
        print("the layouts' move constants "
              + ("the same" if len(M[0]) == len(M[1]) and all(
                  np.asarray(x).dtype == np.asarray(y).dtype and
                  np.array_equal(x, y) for x, y in zip(*M)) else "differ"))
    A = envs[threads[0], "old"]._mask.shape[1]
    U = np.random.default_rng(0).random((STEPS, B, A), np.float32)
    draw_new = _vecnp.draw_obs
    draw_base = base["_vecnp"].draw_obs
    # (a baseline's draw_obs before its scratch ``row``: called without it)
    n_base = draw_base.py_func.__code__.co_argcount
    if n_base < draw_new.py_func.__code__.co_argcount:
        def draw_old(*a, _d=draw_base, _n=n_base):
            return _d(*a[:_n])
    else:
        draw_old = draw_base
    last = {}

    def run(key):
        e = envs[key]
        _vecnp.draw_obs = draw_old if key[1] == "old" else draw_new
        try:
            e.reset(seed=7)
        finally:
            _vecnp.draw_obs = draw_new
        m0 = e.counts["moves"]
        wall = main = tot = 0.0
        seen = []
        for s in range(STEPS):
            a = (U[s] * e._mask).argmax(1)
            t0, c0, p0 = time.perf_counter(), time.thread_time(), time.process_time()
            o, r, te, tr, info = e.step(a)
            wall += time.perf_counter() - t0
            main += time.thread_time() - c0
            tot += time.process_time() - p0
            seen.append(hash((o.tobytes(), r.tobytes(), te.tobytes(), tr.tobytes(),
                              info["action_mask"].tobytes())))
        mv = e.counts["moves"] - m0
        last[key] = (tuple(seen), mv, e._np.rng.tobytes())
        return mv, wall / mv * 1e6, main / mv * 1e6, tot / mv * 1e6

    for k in envs:
        run(k)
    res = {k: [] for k in envs}
    order = list(envs)
    rnd = random.Random(1)
    games_differ = False
    for _ in range(args.rounds):
        rnd.shuffle(order)
        for k in order:
            res[k].append(run(k))
        for th in threads:
            if args.no_check:   # (the games, at least: the moves and the streams)
                games_differ |= last[th, "old"][1:] != last[th, "new"][1:]
            else:
                assert last[th, "old"] == last[th, "new"], f"the paths differ ({th} threads)"
    load = open("/proc/loadavg").read().split()[:3]
    checked = ("observations not checked; the games' moves and streams "
               + ("DIFFER" if games_differ else "equal")) if args.no_check else \
        "both paths equal after every step"
    print(f"{args.scenario}, {args.opponent} opponent, B = {B}, copy={copy}, "
          f"{STEPS} steps x {args.rounds} rounds "
          f"(medians; {checked}); load {load}")
    print("| threads | path | moves a round | wall µs / move | CPU µs / move (all threads) "
          "| calling thread |")
    print("|---:|---|---:|---:|---:|---:|")
    for (th, path), v in res.items():
        med = np.median(np.array(v), 0)
        print(f"| {th} | {path} | {med[0]:.0f} | {med[1]:.3f} | {med[3]:.3f} | {med[2]:.3f} |")
    for th in threads:
        o, n = np.array(res[th, "old"]), np.array(res[th, "new"])
        rc, rw = o[:, 3] / n[:, 3], o[:, 1] / n[:, 1]
        print(f"{th} thread(s): old / new CPU a move {np.median(rc):.3f} "
              f"({rc.min():.3f}-{rc.max():.3f}), wall {np.median(rw):.3f} "
              f"({rw.min():.3f}-{rw.max():.3f})")
    if 1 in threads and 2 in threads:
        for path in ("old", "new"):
            one = np.median(np.array(res[1, path]), 0)
            two = np.median(np.array(res[2, path]), 0)
            busy = max(two[2], two[3] - two[2])
            print(f"{path}: 2 threads / 1, wall {one[1] / two[1]:.2f}x, by CPU (one "
                  f"thread's over the busiest of two) {one[3] / busy:.2f}x")


if __name__ == "__main__":
    main()
