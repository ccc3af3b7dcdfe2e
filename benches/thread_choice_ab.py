"""Two threads where they pay (``movecore.batch.ThreadChoice``), in one process: the
same games on 1 thread, on 2 threads with the choice as shipped (the chunks split over
the threads, or every game on the calling thread, whichever its calls measured
faster), and on 2 threads always split (the choice before 2026-11-30), their rounds
taken in a shuffled order. ``BatchedPlay`` (not Heroscape's: its step always splits)
and the vector env (its random legal actions drawn off the clock, as ``bench --batch``
times it) of each game, at each B. Prints per game, path and B the median wall
per step of each side, each 2-thread side's speed-up over 1 thread (by medians), and
the way the choice settled on (split or whole).

    python benches/thread_choice_ab.py [--games grid,mage_knight] [--B 64,1024,4096]
                                       [--rounds 25] [--steps 20] [--what play,env]
"""
from __future__ import annotations

import argparse
import random
from time import perf_counter

import numpy as np

from movecore import batch

CHOSEN = batch.ThreadChoice.use_split


def _always_split(self) -> bool:
    return True


def _choice(obj, what):
    """The ``ThreadChoice`` of a play's or env's step (None: not made)."""
    if what == "play":
        fz = getattr(obj, "_fz", None)
        plan = getattr(obj, "_drplan", None)
        parts = [y for x in (fz or ()) for y in (x if isinstance(x, tuple) else (x,))]
        return plan["choice"] if plan else next(
            (x for x in parts if isinstance(x, batch.ThreadChoice)), None)
    if getattr(obj, "_np", None) is None:
        return getattr(obj, "_choice", None)
    dr = obj._np._dr
    if dr is not None and getattr(dr, "whole_steps", None) is not None:
        return dr.whole_steps._choice
    one = obj._one_call()
    return getattr(one, "_choice", None)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", default="grid,tiny_epic_tactics,mage_knight,descent,"
                    "dark_realms,heroscape")
    ap.add_argument("--B", default="64,1024,4096")
    ap.add_argument("--rounds", type=int, default=25)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--what", default="play,env")
    a = ap.parse_args()
    import movecore.rl as rl
    from movecore.tools.bench_batch import _random_actions
    from movecore.tools.selfplay import example_scenarios
    from movecore.tools.selfplay_batch import BatchedPlay
    ways = {"1T": CHOSEN, "chosen": CHOSEN, "split": _always_split}
    for game in a.games.split(","):
        _, scen = example_scenarios(game)[0]
        for what in a.what.split(","):
            for B in (int(b) for b in a.B.split(",")):
                sides = {}
                for side in ways:
                    t = 1 if side == "1T" else 2
                    if what == "play" and game == "heroscape":
                        break
                    if what == "play":
                        p = BatchedPlay(game, scen, B, seed=1, threads=t)
                        sides[side] = (p, p.step)
                    else:
                        e = rl.vector_env(scen, num_envs=B, threads=t)
                        e.reset(seed=1)
                        rng = np.random.default_rng(1)
                        acts = [_random_actions(e, rng)]

                        def step(e=e, rng=rng, acts=acts):
                            e.step(acts[0])
                            return lambda: acts.__setitem__(0, _random_actions(e, rng))
                        sides[side] = (e, step)
                if len(sides) < len(ways):
                    continue
                walls = {k: [] for k in sides}
                order = list(sides)
                for _ in range(a.rounds + 1):
                    random.shuffle(order)
                    for k in order:
                        batch.ThreadChoice.use_split = ways[k]
                        step, took = sides[k][1], 0.0
                        for _ in range(a.steps):
                            t0 = perf_counter()
                            after = step()
                            took += perf_counter() - t0
                            if callable(after):
                                after()
                        walls[k].append(took / a.steps)
                batch.ThreadChoice.use_split = CHOSEN
                one = np.median(walls["1T"][1:])      # (the first round: warm-up)
                obj = sides["chosen"][0]
                choice = _choice(obj, what)
                row = [f"1T {one * 1e6:.0f} us"]
                for k in ("chosen", "split"):
                    w = np.median(walls[k][1:])
                    row.append(f"{k} {w * 1e6:.0f} us ({one / w:.2f}x)")
                way = "?" if choice is None else "split" if choice.split else "whole"
                print(f"{game} {what} B={B}: " + "; ".join(row) + f"; chose {way}", flush=True)


if __name__ == "__main__":
    main()
