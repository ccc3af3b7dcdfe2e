"""Before/after speed of the two-space walkers' bit-set layers (``_bits2.pair_bits``)
against a baseline tree's, in one process: the baseline's ``_bits2``, two-space call
and self-play step loaded beside this tree's (``heroscape_doubles_ab._baseline``, with
the baseline's ``_bits2`` in place while its call is loaded).

    git -C /work/main archive main | tar -x -C /tmp/base     # (the baseline's tree)
    python benches/heroscape_pair_ring_ab.py /tmp/base [--rounds 11] [--Bs 64,1024,4096]
                                            [--scenarios a.json,...] [--no-env]

Per scenario, CPU time of this thread, medians of rounds in a shuffled order: the
two-space call on the walkers' games of 40 self-play steps (B = 1,024; answers checked
equal); a ``BatchedPlay`` move at each B (plays checked equal; wall too); the vector
env's move with its observation (B = 1,024, ``copy=True``: this tree's env with the
baseline's two-space call in it, ``heroscape_doubles_ab._envs``).
"""
from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import heroscape_doubles_ab as H  # noqa: E402


def _baseline(base: str):
    """The baseline's call and step, its ``_bits2`` linked into both."""
    name = "movecore.games.heroscape._bits2"
    import movecore.games.heroscape as hs
    mine = sys.modules[name]
    theirs = H._load(name + "_base", os.path.join(base, "core", "games", "heroscape",
                                                  "_bits2.py"))
    sys.modules[name] = theirs
    keep = getattr(hs, "_bits2", None)
    hs._bits2 = theirs
    try:
        return H._baseline(base)
    finally:
        sys.modules[name] = mine
        hs._bits2 = keep


def main(argv=None) -> int:
    ap = H._parser(__doc__, 11)
    ap.add_argument("base")
    ap.add_argument("--Bs", default="64,1024,4096")
    ap.add_argument("--no-env", action="store_true")
    a = ap.parse_args(argv)
    from movecore.games.heroscape._batch_doubles import doubles_kernel
    from movecore.tools import _selfplay_heroscape as S
    old_dk, old_step = _baseline(a.base)
    med = np.median
    for name, sc, G, D, calls in H._each_scenario(a):
        n, per = H._doubles([old_dk, doubles_kernel()], G, D, calls, a.rounds)
        print(f"{name}: two-space call, {n} walker games: old {med(per[0]) * 1e6:.3f} us "
              f"a game, new {med(per[1]) * 1e6:.3f}: {med(per[0]) / med(per[1]):.3f}x "
              f"({min(o / w for o, w in zip(*per)):.3f}-"
              f"{max(o / w for o, w in zip(*per)):.3f})", flush=True)
        for B in (int(x) for x in a.Bs.split(",")):
            wall = [[], []]
            play, per = H._plays([old_step, S.step], sc, B, a.rounds, wall=wall)
            q = H._query_cpu(sc, play)
            o, w = med(per[0]), med(per[1])
            r = [x / y for x, y in zip(*per)]
            print(f"  BatchedPlay move, B={B}, 1 thread: old {o * 1e6:.3f} us "
                  f"({o / q:.2f} queries), new {w * 1e6:.3f} us ({w / q:.2f}): CPU "
                  f"{o / w:.3f}x ({min(r):.3f}-{max(r):.3f}), wall "
                  f"{med(wall[0]) / med(wall[1]):.3f}x", flush=True)
        if not a.no_env:
            per = H._envs(old_dk, sc, 1024, a.rounds)
            o, w = med(per[0]), med(per[1])
            r = [x / y for x, y in zip(*per)]
            print(f"  vector env move, B=1024, 1 thread, copy=True: old {o * 1e6:.3f} us "
                  f"({o / q:.2f} queries), new {w * 1e6:.3f} us ({w / q:.2f}): "
                  f"{o / w:.3f}x ({min(r):.3f}-{max(r):.3f})", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
