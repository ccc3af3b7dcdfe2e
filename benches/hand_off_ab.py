"""The batched steps' hand-off to the pool thread, old against new, in one process
(docs/performance_log.md, "A hand-off that does not sleep between steps"): ``BatchedPlay``
at B = 4,096 and the vector env at B = 1,024, on 1 thread and on 2 threads with each
hand-off (``movecore.reach.HAND_OFF``: "executor", the ``ThreadPoolExecutor`` whose
thread sleeps between steps; "spin", the workers that spin for the next chunk), their
rounds taken in a shuffled order, the same seeded games on every side (each side
steps its own copy the same number of steps). Prints per game and path the median over
the rounds of the wall and the process CPU per move (env: per game step) and the
2-thread sides' ratio to the 1-thread side's (wall: speed-up; CPU: what two threads
cost in CPU), and the load average before and after. Rounds in which a side's threads
waited for a core (run-queue waits and steal: ``bench_batch._waited``) over
``bench_batch.SPELL`` of their time are left out where at least 5 remain.

    python benches/hand_off_ab.py [--games mage_knight,grid] [--rounds 40] [--steps 8]
"""
from __future__ import annotations

import argparse
import os
import random
import time

import numpy as np


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", default="mage_knight,grid")
    ap.add_argument("--rounds", type=int, default=40)
    ap.add_argument("--steps", type=int, default=8)
    ap.add_argument("--play-B", type=int, default=4096)
    ap.add_argument("--env-B", type=int, default=1024)
    ap.add_argument("--spin-s", type=float, default=None)
    a = ap.parse_args()
    import importlib
    R = importlib.import_module("movecore.reach")
    import movecore.rl as rl
    from movecore.tools.selfplay_batch import BatchedPlay
    from movecore.tools.bench_batch import SPELL, _waited
    from movecore.tools.selfplay import example_scenarios
    if a.spin_s is not None:
        R.SPIN_S = a.spin_s
    print(f"load average before: {os.getloadavg()}", flush=True)
    sides = [("1T", 1, "executor"), ("2T executor", 2, "executor"), ("2T spin", 2, "spin")]
    for game in a.games.split(","):
        scenario = example_scenarios(game)[0][1]
        for kind in ("play", "env"):
            objs, rngs = {}, {}
            for name, t, mode in sides:
                R.HAND_OFF = mode
                if kind == "play":
                    objs[name] = BatchedPlay(game, scenario, a.play_B, seed=1, threads=t)
                else:
                    e = objs[name] = rl.vector_env(scenario, num_envs=a.env_B, threads=t)
                    e.reset(seed=1)
                    rngs[name] = np.random.default_rng(1)

            def run(name, steps):
                o = objs[name]
                if kind == "play":
                    moves = 0
                    c0, t0 = time.process_time(), time.perf_counter()
                    for _ in range(steps):
                        moves += o.step()
                    return time.perf_counter() - t0, time.process_time() - c0, moves
                wall = cpu = 0.0
                for _ in range(steps):
                    m = o._mask
                    act = (rngs[name].random(m.shape, np.float32) * m).argmax(1)
                    c0, t0 = time.process_time(), time.perf_counter()
                    o.step(act)
                    wall += time.perf_counter() - t0
                    cpu += time.process_time() - c0
                return wall, cpu, steps * o.num_envs

            for name, t, mode in sides:          # warm-up (compiles, the cut settles)
                R.HAND_OFF = mode
                run(name, 3)
            got = {name: [] for name, _, _ in sides}
            for _ in range(a.rounds):
                order = list(sides)
                random.shuffle(order)
                for name, t, mode in order:
                    R.HAND_OFF = mode
                    # (a spinning worker's last spin ends before the next side's clock)
                    time.sleep(2 * R.SPIN_S)
                    w0 = _waited()
                    wall, cpu, n = run(name, a.steps)
                    got[name].append((wall / n * 1e6, cpu / n * 1e6,
                                      (_waited() - w0) / (t * wall)))
            every = {k: np.array(v) for k, v in got.items()}
            # rounds whose threads waited for a core (another process on it) measured
            # the machine: the calm rounds are those where no side's threads waited
            # over SPELL of their time; both sets are printed
            calm = np.all([every[k][:, 2] <= SPELL for k in every], axis=0)
            unit = "move" if kind == "play" else "game step"
            B = a.play_B if kind == "play" else a.env_B
            print(f"{game} {kind} B={B:,}, {a.rounds} rounds of {a.steps} steps, median "
                  f"us a {unit} (wall, CPU), 2T/1T paired by round:", flush=True)
            for label, keep in (("calm", calm), ("all", np.ones_like(calm))):
                if keep.sum() < 3:
                    print(f"  {label} rounds: {int(keep.sum())}, too few", flush=True)
                    continue
                x = {k: v[keep] for k, v in every.items()}
                print(f"  {label} rounds ({int(keep.sum())}):", flush=True)
                for name, _, _ in sides:
                    w, c, _ = np.median(x[name], axis=0)
                    line = f"    {name:12s} wall {w:.4f}  CPU {c:.4f}"
                    if name != "1T":
                        sp = np.median(x["1T"][:, 0] / x[name][:, 0])
                        cr = np.median(x[name][:, 1] / x["1T"][:, 1])
                        line += f"   2T/1T speed-up {sp:.3f}  CPU 2T/1T {cr:.3f}"
                    print(line, flush=True)
                sp = np.median(x["2T executor"][:, 0] / x["2T spin"][:, 0])
                cr = np.median(x["2T spin"][:, 1] / x["2T executor"][:, 1])
                print(f"    spin / executor, paired: {sp:.3f}x the speed, {cr:.3f}x the "
                      f"CPU a {unit}", flush=True)
    print(f"load average after: {os.getloadavg()}", flush=True)


if __name__ == "__main__":
    main()
