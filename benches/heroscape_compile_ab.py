"""Run-time A/B of Heroscape's step and vector env against a baseline tree, for a change
of how they are compiled (``hscompile``: the step without reference counts with its
games inlined, ``_bits.query_ends`` inlined into its callers), in one process.

    git -C /work/main archive main | tar -x -C /tmp/base      # (the baseline's tree)
    python benches/heroscape_compile_ab.py /tmp/base [--scenarios a.json,b.json]
                                           [--rounds 15] [--B 1024] [--no-env]

Per bundled scenario, CPU time of this thread per move, medians of rounds in a shuffled
order, the games checked equal after every round:

1. a ``BatchedPlay`` move (one thread, rounds of 10 steps): the baseline's
   ``_selfplay_heroscape`` (with the baseline's ``_bits``, ``_batch_doubles`` and
   penalty search) against this tree's (``heroscape_one_bits_ab._plays``);
2. a vector env move with its observation (``copy=True``, one thread, rounds of 8
   steps of the same actions): an env built with the baseline's ``rl._vechs``,
   ``rl._vechsenv`` and ``_bits`` in place of this tree's, against this tree's
   (``heroscape_one_bits_ab._envs``).

Prints the medians and each ratio baseline / this tree (median of the rounds' ratios,
their range).
"""
from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import heroscape_doubles_ab as H  # noqa: E402
import heroscape_one_bits_ab as O  # noqa: E402

_SWAP = ("movecore.games.heroscape._bits", "movecore.rl._vechs", "movecore.rl._vechsenv")


def _base_modules(base: str) -> dict:
    """The baseline's ``_bits``, ``_vechs`` and ``_vechsenv``, loaded beside this tree's
    (each imports the ones before it under this tree's names: swapped in while it loads)."""
    import importlib
    for n in _SWAP:     # (this tree's first: each swap puts them back)
        importlib.import_module(n)
    paths = (("core", "games", "heroscape", "_bits.py"), ("core", "rl", "_vechs.py"),
             ("core", "rl", "_vechsenv.py"))
    out = {}
    for n, p in zip(_SWAP, paths):
        out[n] = _swapped(dict(out), lambda: H._load(n + "_base", os.path.join(base, *p)))
    return out


def _swapped(mods, make):
    """``make()`` with ``mods`` (name -> module) in place of this tree's, in
    ``sys.modules`` and as their packages' attributes: the baseline's step then names
    the baseline's ``_bits`` in its closure of its dependencies' stamps too, so that its
    cache entry is not the one ``heroscape_one_bits_ab`` writes (the baseline's step
    with this tree's ``_bits``)."""
    keep = {n: sys.modules[n] for n in mods}

    def put(ms):
        for n, m in ms.items():
            sys.modules[n] = m
            pkg, _, attr = n.rpartition(".")
            setattr(sys.modules[pkg], attr, m)
    put(mods)
    try:
        return make()
    finally:
        put(keep)


def main(argv=None) -> int:
    ap = H._parser(__doc__, 15)
    ap.add_argument("base", help="a checkout of the baseline commit")
    ap.add_argument("--no-env", action="store_true", help="the BatchedPlay move only")
    a = ap.parse_args(argv)
    import movecore.rl as rl
    from movecore.tools import _selfplay_heroscape as S
    from movecore.tools.selfplay import example_scenarios
    ex = dict(example_scenarios("heroscape"))
    mods = _base_modules(a.base)
    # the baseline's step imports _bits by this tree's name: its own while it loads
    _, old_step = _swapped({_SWAP[0]: mods[_SWAP[0]]}, lambda: H._baseline(a.base))
    med = np.median
    print(H._load_avg(), flush=True)
    for name in a.scenarios.split(","):
        play, per = O._plays([old_step, S.step], ex[name], a.B, a.rounds, [None, None])
        r = np.array(per[0]) / np.array(per[1])
        print(f"{name}: BatchedPlay move, B={a.B}, 1 thread, CPU us: base "
              f"{med(per[0]) * 1e6:.3f}, this tree {med(per[1]) * 1e6:.3f}; base / this "
              f"tree {med(r):.3f} ({r.min():.3f}-{r.max():.3f})", flush=True)
        if a.no_env:
            continue
        envs = [_swapped(mods, lambda: rl.vector_env(name[:-5], num_envs=a.B, threads=1,
                                                     copy=True)),
                rl.vector_env(name[:-5], num_envs=a.B, threads=1, copy=True)]
        assert type(envs[0]._np._hs).__module__.endswith("_base")
        pe = O._envs(name[:-5], a.B, a.rounds, envs=envs)
        r = np.array(pe[0]) / np.array(pe[1])
        print(f"  vector env move, copy=True, 1 thread, CPU us: base {med(pe[0]) * 1e6:.3f}, "
              f"this tree {med(pe[1]) * 1e6:.3f}; base / this tree {med(r):.3f} "
              f"({r.min():.3f}-{r.max():.3f})", flush=True)
    print(H._load_avg())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
