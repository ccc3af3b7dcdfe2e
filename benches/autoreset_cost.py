"""What the vector env's same-step autoreset costs beside the next-step one: for each
game's first bundled example, two vector envs (B games, one thread, ``copy=True``, the
random opponent) stepped in turn, rounds of about ``--seconds`` each, on random legal
actions picked before each step's clock starts. Prints per game the env steps/s and the
learner actions played per second of each mode (a next-step env plays no action for
the games it resets on a step), their ratios (medians of the rounds), and the games
that end per step.

    python benches/autoreset_cost.py                     # every game, B = 1,024
    python benches/autoreset_cost.py --games grid,heroscape --num-envs 256

(docs/rl.md, "Autoreset modes and partial resets"; docs/performance_log.md.)
"""
from __future__ import annotations

import argparse
import time

import numpy as np

GAMES = ("grid", "tiny_epic_tactics", "mage_knight", "heroscape", "descent", "dark_realms")


def one_game(game: str, B: int, rounds: int, seconds: float) -> dict:
    import movecore.rl as rl
    from movecore.tools.selfplay import example_scenarios
    _, scenario = example_scenarios(game)[0]
    modes = ("NextStep", "SameStep")
    envs = {m: rl.vector_env(scenario, num_envs=B, autoreset_mode=m) for m in modes}
    rng = np.random.default_rng(0)
    steps = {m: [] for m in modes}
    played = {m: [] for m in modes}
    ended = {m: [0, 0] for m in modes}
    for e in envs.values():
        e.reset(seed=0)
        for _ in range(3):          # (compiled, or loaded from the cache, before timing)
            e.step((rng.random(e._mask.shape) * e._mask).argmax(1))
    for _ in range(rounds):
        for m, e in envs.items():
            n = acted = 0
            dt = 0.0
            while dt < seconds:
                mask = e.action_masks()
                a = (rng.random(mask.shape, np.float32) * mask).argmax(1)
                acted += B - int(e.ended.sum())     # (next-step: those are reset)
                t0 = time.perf_counter()
                _, _, term, trunc, _ = e.step(a)
                dt += time.perf_counter() - t0
                n += 1
                ended[m][0] += int((term | trunc).sum())
                ended[m][1] += 1
            steps[m].append(n * B / dt)
            played[m].append(acted / dt)
    out = {"game": game}
    for m in modes:
        out[m] = (float(np.median(steps[m])), float(np.median(played[m])),
                  ended[m][0] / max(ended[m][1], 1))
    out["steps ratio"] = float(np.median(np.array(steps["NextStep"]) /
                                         np.array(steps["SameStep"])))
    out["action ratio"] = float(np.median(np.array(played["NextStep"]) /
                                          np.array(played["SameStep"])))
    return out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", default=",".join(GAMES))
    ap.add_argument("--num-envs", type=int, default=1024)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--seconds", type=float, default=0.3)
    a = ap.parse_args(argv)
    for game in a.games.split(","):
        r = one_game(game, a.num_envs, a.rounds, a.seconds)
        ns, ss = r["NextStep"], r["SameStep"]
        print(f"{game}: env steps/s next-step {ns[0]:,.0f}, same-step {ss[0]:,.0f} "
              f"(time a step, same / next: {r['steps ratio']:.2f}); learner actions "
              f"played/s {ns[1]:,.0f}, {ss[1]:,.0f} (time an action: "
              f"{r['action ratio']:.2f}); games ended a step {ss[2]:.1f}", flush=True)


if __name__ == "__main__":
    main()
