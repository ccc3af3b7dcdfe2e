"""Before/after speed of the two-space walkers' plain answer where no leaving attacks are
asked (``_batch_doubles.NO_PLAIN_UNASKED``) and of that plain query as bit sets
(``games.heroscape._bits2``, ``NO_PAIR_BITS``), in one process.

    git -C /work/main archive main | tar -x -C /tmp/base     # (the baseline's tree)
    python benches/heroscape_pair_bits_ab.py /tmp/base [--scenarios a.json,b.json]
                                            [--rounds 11] [--B 1024] [--no-env]

Per bundled scenario (default: the bench's battlefield and the three published ones),
CPU time of this thread, medians of rounds in a shuffled order:

1. the two-space call on the two-space walkers' games of 40 self-play steps, per game,
   each against this tree's (in rounds of the two, ``heroscape_doubles_ab._doubles``):
   the baseline's call (its ``_batch_doubles`` and penalty search loaded beside this
   tree's; this tree's arguments less the bit tables), this tree's with
   ``NO_PLAIN_UNASKED | NO_PAIR_BITS`` (the path before both), with ``NO_PAIR_BITS``
   (the plain query by the kernel); the answers checked equal;
2. a ``BatchedPlay`` move (``heroscape_one_bits_ab``'s: the baseline's step, this
   tree's with ``PLAIN_UNASKED`` off, with ``PAIR_BITS`` off, and with all on; the
   plays checked equal), and without ``--no-env`` the vector env's move with its
   observation (``copy=True``, one thread, ``heroscape_one_bits_ab._envs``: this tree's
   env with ``_vechs.NO_PAIRS``, the call's two bits set, and without; the envs
   checked equal).
"""
from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import heroscape_doubles_ab as H  # noqa: E402
import heroscape_one_bits_ab as O  # noqa: E402

#: where this tree's call has arguments the baseline's has not: the scratch ``blay``
#: (after ``pbuf``) and the tables ``bat``, ``btab`` (``_batch._answer``)
_NEW = slice(31, 34)


def _strip(D):
    """This tree's arguments of the call between ``budgets`` and ``mask`` as the
    baseline's call takes them (the bit tables and their scratch left out)."""
    return D[:_NEW.start] + D[_NEW.stop:]


def _args(argv):
    ap = H._parser(__doc__, 11)
    ap.add_argument("base", help="a tree of the baseline commit")
    ap.add_argument("--no-env", action="store_true", help="no vector env")
    return ap.parse_args(argv)


def main(argv=None) -> int:
    from movecore.games.heroscape import _batch_doubles as BD
    from movecore.tools.selfplay import example_scenarios
    a = _args(argv)
    ex = dict(example_scenarios("heroscape"))
    old_dk, old_step = H._baseline(a.base)
    dk = BD.doubles_kernel()
    med = np.median
    print(H._load_avg(), flush=True)

    def base_step(p, kind):
        G = p.games
        if not getattr(G, "_ab_stripped", False):
            sp = dict(G._selfplay)
            orig = sp["doubles"]
            sp["doubles"] = lambda own=True: _strip(orig(own))
            G._selfplay = sp
            G._ab_stripped = True
        return old_step(p, kind)

    for name in a.scenarios.split(","):
        G, D, calls = H._walker_calls(ex[name], a.B)
        Db = _strip(D)
        assert D[_NEW.start + 1].dtype == np.int64 and D[_NEW.stop - 1].dtype == np.uint64

        def mine(bits):
            return lambda *args: dk(*args[:6], *D, *args[6 + len(D):-1], bits)

        kernels = [lambda *args: old_dk(*args[:6], *Db, *args[6 + len(D):]),
                   mine(BD.NO_PLAIN_UNASKED | BD.NO_PAIR_BITS), mine(BD.NO_PAIR_BITS),
                   mine(0)]
        labels = ["base", "both off", "NO_PAIR_BITS"]
        print(f"{name}: the two-space call on the walker games, CPU us a game, each "
              f"against this tree's in rounds of its own:", flush=True)
        for i, lab in enumerate(labels):
            n, per = H._doubles([kernels[i], kernels[-1]], G, D, calls, a.rounds)
            r = np.array(per[0]) / np.array(per[1])
            print(f"  {lab} {med(per[0]) * 1e6:.3f} -> this tree {med(per[1]) * 1e6:.3f}"
                  f" ({n} games): {med(r):.3f} ({r.min():.3f}-{r.max():.3f})", flush=True)
        print("  ", end="")
        q = O._moves(base_step, ["PLAIN_UNASKED", "PAIR_BITS"], ex[name], a.B, a.rounds,
                     "    ")
        if a.no_env:
            continue
        import movecore.rl as rl
        from movecore.rl._vechs import NO_PAIRS
        envs = [rl.vector_env(name[:-5], num_envs=a.B, threads=1, copy=True)
                for _ in range(2)]
        envs[0]._np._hs.rules |= NO_PAIRS
        print(O._env_line(O._envs(name[:-5], a.B, a.rounds, envs=envs), q,
                          ("NO_PAIRS", "this tree")), flush=True)
    print(H._load_avg())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
