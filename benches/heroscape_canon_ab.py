"""Before/after speed of Heroscape's two-space ends listed by ``rules.placement_key`` (each
pair of spaces as its least (cost, stopped, placement), not the first the search settled),
in one process against a baseline tree (``heroscape_doubles_ab._baseline``: its two-space
call, step and penalty search loaded beside this tree's).

    git -C /work/main archive main | tar -x -C /tmp/base      # (or a worktree of it)
    python benches/heroscape_canon_ab.py /tmp/base [--scenarios a.json,b.json]
                                         [--rounds 21] [--B 1024]

Per bundled scenario (default: the dragon's battlefield and the three published ones),
CPU time of this thread, medians of rounds taken in a shuffled order, and the medians
(min-max) of the rounds' ratios:

1. the two-space call (``_batch_doubles.doubles_kernel``) on every two-space walker's
   game of 40 self-play steps (``heroscape_doubles_ab._walker_calls``), the baseline's
   and this tree's on the same states; their answers checked equal pair by pair (each
   pair of spaces listed once by both, at the same cost, stopped alike: the placement
   listed may differ, which is the change). Both read this tree's kept ends (the tables
   are built outside the call, by ``_batch.py``), so the calls differ in the pass over a
   search's rows alone;
2. a ``BatchedPlay`` move (the compiled step, one thread, rounds of 10 steps): the
   baseline's step and this tree's, each on its own play of the same seed. The plays
   drift apart (the listed placement is the action the policy's k-th pick counts), so
   this is timing only, over the games each reaches; in kernel queries too (the bench's
   reference query, timed in the same process).

``--sizes``: instead, what a layered bit-set search of the two-space walkers would hold
(words a plane, the ends and the most leaving attacks of a game: the sketch in
``docs/performance_log.md``).
"""
from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import heroscape_doubles_ab as H  # noqa: E402


def _pairs(out, b, lead, trail) -> list:
    """Game ``b``'s ends as (space, space, cost, stopped), each pair's spaces sorted."""
    m, c, s = out
    return sorted((min(int(lead[p]), int(trail[p])), max(int(lead[p]), int(trail[p])),
                   int(c[b, p]), int(s[b, p] != 0)) for p in np.flatnonzero(m[b]))


def _calls(kernels, G, D, calls, rounds):
    """``heroscape_doubles_ab._doubles`` with the answers checked equal pair by pair;
    also returns the games whose listed placements differ."""
    lead, trail = D[5], D[6]
    moved = [0]

    def check(outs, c):
        for b in c[3].tolist():
            assert _pairs(outs[0], b, lead, trail) == _pairs(outs[1], b, lead, trail), \
                "the answers differ"
            moved[0] += int((outs[0][0][b] != outs[1][0][b]).any())

    n, per = H._doubles(kernels, G, D, calls, rounds, check)
    return n, moved[0], per


def _ratio(per) -> str:
    r = np.array(per[0]) / np.array(per[1])
    return f"{np.median(r):.3f} ({r.min():.3f}-{r.max():.3f})"


def _sizes(name, sc, G, D, calls) -> None:
    """What a layered bit-set search of the two-space walkers would hold (the sketch in
    ``docs/performance_log.md``): the padded grid's words per plane (``_bits``' grid: a row
    a line, a pad column), and over every fourth step's walker games the ends and the
    most leaving attacks among their least."""
    import movecore
    from movecore.games.heroscape._batch_doubles import PENALTY, doubles_kernel
    xy = movecore.position(sc)._st.coords
    span = xy.max(0) - xy.min(0) + 1
    bits = int((span[0] + 1) * span[1])
    B, P = G.B, G.n_places
    top, ends = [], []
    for c in calls[::4]:
        out = (np.zeros((B, P), np.uint8), np.full((B, P), -1, np.int32),
               np.zeros((B, P), np.int8))
        pen = np.zeros((B, P), np.int32)
        doubles_kernel()(*c[:6], *D, *out, pen, PENALTY)
        for b in c[3].tolist():
            e = np.flatnonzero(out[0][b])
            ends.append(len(e))
            top.append(int(pen[b, e].max()) if len(e) else 0)
    top = np.array(top)
    print(f"{name}: {len(xy)} spaces, {P} placements, a grid of {bits} bits: "
          f"{(bits + 63) // 64} words a plane; {len(top)} walker games: {np.mean(ends):.1f} "
          f"ends, the most least attacks over their ends " + ", ".join(
              f"{k}: {np.mean(top == k):.2f}" for k in range(3)) +
          f", more: {np.mean(top > 2):.2f}", flush=True)


def main(argv=None) -> int:
    ap = H._parser(__doc__, 21)
    ap.add_argument("base", help="a checkout of the baseline tree")
    ap.add_argument("--sizes", action="store_true",
                    help="the sizes of a layered bit-set search instead (no timing)")
    a = ap.parse_args(argv)
    from movecore.games.heroscape._batch_doubles import doubles_kernel
    from movecore.tools import _selfplay_heroscape as S
    if a.sizes:
        for x in H._each_scenario(a):
            _sizes(*x)
        return 0
    old_dk, old_step = H._baseline(a.base)
    med = np.median
    for name, sc, G, D, calls in H._each_scenario(a):
        n, moved, per = _calls([old_dk, doubles_kernel()], G, D, calls, a.rounds)
        print(f"{name}: two-space call, {n} walker games ({moved} listed otherwise): "
              f"base {med(per[0]) * 1e6:.3f} us a game, this tree "
              f"{med(per[1]) * 1e6:.3f}: base / this {_ratio(per)}", flush=True)
        play, per = H._plays([old_step, S.step], sc, a.B, a.rounds, same=False)
        q = H._query_cpu(sc, play)
        o, w = med(per[0]), med(per[1])
        print(f"  BatchedPlay move, B={a.B}, 1 thread: base {o * 1e6:.3f} us "
              f"({o / q:.2f} queries), this tree {w * 1e6:.3f} ({w / q:.2f}): base / "
              f"this {_ratio(per)} (query {q * 1e6:.3f} us)", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
