"""Before/after speed of Heroscape's one-space queries as bit sets (``games.heroscape._bits``)
and of the self-play step's games compiled without reference counts, in one process.

    git worktree add --detach /tmp/base BASE_COMMIT      # (or a copy of its tree)
    python benches/heroscape_one_bits_ab.py /tmp/base [--scenarios a.json,b.json]
                                            [--rounds 15] [--B 1024] [--no-env]
                                            [--off ONE_BITS,KTH_BLOCKS]

Per bundled scenario (default: the bench's battlefield and the three published ones),
CPU time of this thread per move, medians of rounds taken in a shuffled order (a slow
spell of a shared machine hits every contestant alike), the games checked equal:

1. a ``BatchedPlay`` move (the compiled step, one thread, rounds of 10 steps): the
   baseline tree's step (``heroscape_doubles_ab._baseline``: its
   ``_selfplay_heroscape``, ``_batch_doubles`` and penalty search loaded beside this
   tree's), this tree's with each of ``--off`` turned off (``ONE_BITS``: the
   one-space queries by the kernel; ``KTH_BLOCKS``: the policy's scan place by
   place), and this tree's;
2. a vector env move with its observation (``copy=True``, one thread, rounds of 8
   steps of the same actions from seed 7): this tree's env with ``_vechs.NO_BITS``
   (the kernel) and without (the bit sets); the observations, rewards, ends and masks
   checked equal after every round.

Prints the medians, in kernel queries too (the bench's reference query, timed in the
same process), and the ratios of the rounds.
"""
from __future__ import annotations

import os
import random
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import heroscape_doubles_ab as H  # noqa: E402


def _plays(steps, scenario, B, rounds, rules):
    """CPU seconds per move of each ``steps[i]`` on its own ``BatchedPlay`` (same
    seed; ``rules[i]``: the step's rules while its play is first stepped, None: as
    they are), rounds of 10 steps in a shuffled order; the plays checked equal."""
    from movecore.tools import _selfplay_heroscape as S
    from movecore.tools.selfplay_batch import BatchedPlay
    plays = [BatchedPlay("heroscape", scenario, B, seed=1, threads=1) for _ in steps]
    keep = S.RULES
    for p, s, r in zip(plays, steps, rules):
        S.RULES = keep if r is None else r
        try:
            for _ in range(2):
                s(p, 0)
        finally:
            S.RULES = keep
    per = [[] for _ in steps]
    rnd = random.Random(2)
    order = list(range(len(steps)))
    for _ in range(rounds):
        rnd.shuffle(order)
        for i in order:
            t0, n = time.thread_time(), 0
            for _ in range(10):
                n += steps[i](plays[i], 0)
            per[i].append((time.thread_time() - t0) / n)
        for p in plays[1:]:
            assert np.array_equal(p.games.cell, plays[0].games.cell) and all(
                np.array_equal(x, y) for x, y in zip(p._out, plays[0]._out)), "differ"
    return plays[-1], per


def _envs(name, B, rounds, steps=8, envs=None):
    """CPU seconds per move of the vector env with the one-space queries by the kernel
    (``_vechs.NO_BITS``) and as bit sets (or of the two ``envs`` given), rounds from
    seed 7 in a shuffled order, the envs checked equal."""
    if envs is None:
        import movecore.rl as rl
        from movecore.rl._vechs import NO_BITS
        envs = [rl.vector_env(name, num_envs=B, threads=1, copy=True) for _ in range(2)]
        envs[0]._np._hs.rules |= NO_BITS
    A = envs[0]._mask.shape[1]
    U = np.random.default_rng(0).random((steps, B, A), np.float32)
    last = [None, None]

    def run(i):
        e = envs[i]
        e.reset(seed=7)
        m0, dt, seen = e.counts["moves"], 0.0, []
        for s in range(steps):
            a = (U[s] * e._mask).argmax(1)
            t0 = time.thread_time()
            o, r, te, tr, info = e.step(a)
            dt += time.thread_time() - t0
            seen.append(hash((o.tobytes(), r.tobytes(), te.tobytes(), tr.tobytes(),
                              info["action_mask"].tobytes())))
        last[i] = tuple(seen)
        return dt / (e.counts["moves"] - m0)

    for i in (0, 1):
        run(i)
    per = [[], []]
    rnd = random.Random(3)
    for _ in range(rounds):
        order = [0, 1]
        rnd.shuffle(order)
        for i in order:
            per[i].append(run(i))
        assert last[0] == last[1], "the envs differ"
    return per


def _moves(old_step, offs, scenario, B, rounds, indent="  ") -> float:
    """Prints :func:`_plays`' medians of the baseline's step ``old_step``, this tree's
    with each of the step's rules ``offs`` off, and this tree's (CPU us a move, kernel
    queries, the rounds' ratios); returns the reference query's CPU seconds."""
    from movecore.tools import _selfplay_heroscape as S
    med = np.median
    play, per = _plays([old_step] + [S.step] * (len(offs) + 1), scenario, B, rounds,
                       [None] + [S.RULES & ~getattr(S, x) for x in offs] + [None])
    q = H._query_cpu(scenario, play)
    m = [med(p) for p in per]
    print(f"BatchedPlay move, B={B}, 1 thread, CPU us (queries), and each over this "
          f"tree's:", flush=True)
    for label, i in [("base", 0)] + [(f"{x} off", k + 1) for k, x in enumerate(offs)]:
        r = np.array(per[i]) / np.array(per[-1])
        print(f"{indent}{label}: {m[i] * 1e6:.3f} ({m[i] / q:.2f}): {med(r):.3f} "
              f"({r.min():.3f}-{r.max():.3f})")
    print(f"{indent}this tree: {m[-1] * 1e6:.3f} ({m[-1] / q:.2f})", flush=True)
    return q


def _env_line(per, q, labels=("kernel", "bit sets")) -> str:
    """The vector env's two medians (us, kernel queries ``q``) and their rounds' ratio."""
    med = np.median
    r = np.array(per[0]) / np.array(per[1])
    return (f"  vector env move, copy=True, 1 thread: {labels[0]} "
            f"{med(per[0]) * 1e6:.3f} us ({med(per[0]) / q:.2f} queries), {labels[1]} "
            f"{med(per[1]) * 1e6:.3f} ({med(per[1]) / q:.2f}): {med(r):.3f} "
            f"({r.min():.3f}-{r.max():.3f})")


def main(argv=None) -> int:
    ap = H._parser(__doc__, 15)
    ap.add_argument("base", help="a checkout of the baseline commit")
    ap.add_argument("--off", default="ONE_BITS,KTH_BLOCKS",
                    help="the step's fast paths to time turned off, one at a time")
    ap.add_argument("--no-env", action="store_true", help="the BatchedPlay move only")
    a = ap.parse_args(argv)
    from movecore.tools.selfplay import example_scenarios
    ex = dict(example_scenarios("heroscape"))
    _, old_step = H._baseline(a.base)
    print(H._load_avg(), flush=True)
    for name in a.scenarios.split(","):
        offs = [x for x in a.off.split(",") if x]
        print(f"{name}: ", end="")
        q = _moves(old_step, offs, ex[name], a.B, a.rounds)
        if a.no_env:
            continue
        print(_env_line(_envs(name[:-5], a.B, a.rounds), q), flush=True)
    print(H._load_avg())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
