"""Before/after speed of the two-space walkers' kept ends with an enemy in reach but no
space next to an enemy in their reach, and with figures at the budget's least cost
(``_batch_doubles.walker_far``; the step's ``WALKER_FAR`` rule, the call's
``NO_LEAVE_FAR | NO_FIGURES_FAR`` bits), in one process: the same tree with the rule on
and off (off: the penalty search or plain query, the code before it), on the same seeded
games, rounds alternated in a shuffled order, so that a slow spell of a shared machine
hits both alike.

    python benches/heroscape_leave_far_ab.py [--scenarios a.json,b.json] [--rounds 9]
                                             [--B 1024]

Per bundled scenario (default: the dragon's and the three published battlefields):
(1) the two-space call on every two-space walker's game of 40 self-play steps (one call
per captured state, as the step calls it), the outs checked equal, CPU time a walker
game; (2) a ``BatchedPlay`` move (the compiled step, one thread), the two plays checked
to stay equal, by CPU (``thread_time``) and wall time, and in kernel queries (the bench's
``reach_many`` query, timed in the same process); and how many walker games the rule
answers from the kept ends.
"""
from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from heroscape_doubles_ab import (_doubles, _each_scenario, _parser, _plays,  # noqa: E402
                                  _query_cpu)

from movecore.games.heroscape._batch_doubles import NO_FIGURES_FAR, NO_LEAVE_FAR  # noqa: E402

OFF = NO_LEAVE_FAR | NO_FIGURES_FAR     # (the call before walker_far)


def _sides(dk):
    """The call with the rule on and off, as ``heroscape_doubles_ab._doubles`` calls its
    two kernels (its last argument, the bits, replaced)."""
    return [lambda *a: dk(*a[:-1], 0), lambda *a: dk(*a[:-1], OFF)]


def _taken(G, D, calls):
    """Walker games searched before (the penalty search or the plain query) that the
    rule answers from the kept ends: counted by the searches' workspaces, which a kept
    answer leaves untouched (their generation stamps do not move)."""
    from movecore.games.heroscape._batch_doubles import doubles_kernel
    dk = doubles_kernel()
    B, P = G.B, G.n_places
    fbuf, pbuf = D[27], D[30]
    out = (np.zeros((B, P), np.uint8), np.full((B, P), -1, np.int32),
           np.zeros((B, P), np.int8))
    no_pen = np.zeros((0, 0), np.int32)
    searched = taken = 0
    for occ, cell, alive, rows, figs, buds in calls:
        for i in range(len(rows)):
            one = (occ, cell, alive, rows[i:i + 1], figs[i:i + 1], buds[i:i + 1])
            g0 = int(pbuf[0]) + int(fbuf[0])
            dk(*one, *D, *out, no_pen, OFF)
            if int(pbuf[0]) + int(fbuf[0]) == g0:
                continue                    # (kept ends before too)
            searched += 1
            g0 = int(pbuf[0]) + int(fbuf[0])
            dk(*one, *D, *out, no_pen, 0)
            taken += int(pbuf[0]) + int(fbuf[0]) == g0
    return searched, taken


def _with_rules(rules):
    """``_selfplay_heroscape.step`` on a play whose step is built under ``rules`` (read
    when a play builds its step's arguments: its first step)."""
    from movecore.tools import _selfplay_heroscape as H

    def step(play, kind):
        if getattr(play, "_fz", None) is not None:
            return H.step(play, kind)
        keep = H.RULES
        H.RULES = rules
        try:
            return H.step(play, kind)
        finally:
            H.RULES = keep
    return step


def main(argv=None) -> int:
    a = _parser(__doc__, 9).parse_args(argv)
    from movecore.games.heroscape._batch_doubles import doubles_kernel
    from movecore.tools import _selfplay_heroscape as H
    med = np.median
    for name, sc, G, D, calls in _each_scenario(a):
        searched, taken = _taken(G, D, calls)
        n, per = _doubles(_sides(doubles_kernel()), G, D, calls, a.rounds)
        print(f"{name}: {n} walker games, {searched} searched before, "
              f"{taken} of them ({100 * taken / max(searched, 1):.1f}%) now kept ends; "
              f"two-space call: off {med(per[1]) * 1e6:.2f} us a game, on "
              f"{med(per[0]) * 1e6:.2f}: {med(per[1]) / med(per[0]):.3f}x", flush=True)
        wall = [[], []]
        play, cpu = _plays([_with_rules(H.RULES), _with_rules(H.RULES & ~H.WALKER_FAR)],
                           sc, a.B, a.rounds, wall)
        q = _query_cpu(sc, play)
        o, w = med(cpu[1]), med(cpu[0])
        ow, ww = med(wall[1]), med(wall[0])
        print(f"  BatchedPlay move, B={a.B}, 1 thread, CPU: off {o * 1e6:.2f} us "
              f"({o / q:.2f} queries), on {w * 1e6:.2f} us ({w / q:.2f}): {o / w:.3f}x; "
              f"wall: off {ow * 1e6:.2f}, on {ww * 1e6:.2f}: {ow / ww:.3f}x "
              f"(query {q * 1e6:.3f} us CPU)", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
