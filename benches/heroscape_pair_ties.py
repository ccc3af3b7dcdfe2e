"""How the two-space walkers' penalty search decides which placement of a pair its answer
lists (the first settled), counted on the searches of 40 self-play steps (the games
``heroscape_doubles_ab.py`` captures, recorded as ``heroscape_pen_search_ab.py`` records
them, then each run again on the installed search and its rows read):

    python benches/heroscape_pair_ties.py [--scenarios a.json,b.json] [--B 1024]

Per search: its rows (ends) and whether any is attacked (leaving attacks > 0), the pairs with both placements among them, and of those the
*ties*: both settled first at the same cost and both free or both stopped, so that only
the bucket queue's order (LIFO within a cost, pushes in the order of the states that
pushed them) says which comes first; of the ties, those settled one right after the
other (the second pushed by the first's flip, or on top of it), and the rest, whose
order goes back to when each was pushed. A search that keeps the answer's orientations
without the queue would have to work those out. Runs without Numba's cache, as the
recorder does (1-2 min of compiling).
"""
from __future__ import annotations

import os
import sys

os.environ["MOVECORE_NO_CACHE"] = "1"

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from heroscape_doubles_ab import _each_scenario, _parser  # noqa: E402
from heroscape_pen_search_ab import _recorder, _searches  # noqa: E402

from movecore.kernels._types import N_PARAMS as NP  # noqa: E402
from movecore.kernels.reach import CTRL  # noqa: E402
from movecore.reach import compiled  # noqa: E402


def _rows_at(buf, n):
    """Where ``reach_pen_steps``' rows begin in workspace ``buf`` over ``n`` cells (its
    layout: states, parents, cell stamps, stacks, counts, rows)."""
    nb, pa = int(buf[2]), int(buf[3])
    sf = n * pa
    return CTRL + 6 * sf + 2 * n + nb * 2 * sf + nb * 2


def main(argv=None) -> int:
    a = _parser(__doc__, 0).parse_args(argv)
    new = compiled.penalty_steps_kernel()
    keep = compiled.penalty_steps_kernel
    compiled.penalty_steps_kernel = lambda: (new[0], _recorder(new[1]))
    try:
        for name, sc, G, D, calls in _each_scenario(a):
            (occ, qf, lv, st, pblobs, pblob_at, pparams), ws = _searches(G, D, calls)
            flip = np.asarray(D[7])
            n_s = len(st)
            tot = dict.fromkeys(("rows", "pairs", "ties", "next", "pen", "calm"), 0)
            for j in range(n_s):
                ps = int(st[j, 2])
                n = new[1](pblobs[pblob_at[ps]:pblob_at[ps + 1]],
                           pblobs[pparams[ps, NP]:pparams[ps, NP + 1]], occ[j], qf[j],
                           np.empty(0, np.uint64), lv[j], np.empty(0, np.int32),
                           pparams[ps], ws, st[j, 0], st[j, 1])
                N = int(pblobs[pblob_at[ps]])
                rows = ws[_rows_at(ws, N):_rows_at(ws, N) + 8 * n].reshape(n, 8)
                o_wc = CTRL + 6 * N * int(ws[3])
                stamp = ws[o_wc:o_wc + 2 * N].reshape(N, 2)
                tot["rows"] += n
                tot["pen"] += int((rows[:, 4] > 0).sum())
                tot["calm"] += not (rows[:, 4] > 0).any()
                for r in range(n):
                    v = int(flip[rows[r, 0]])
                    q = int(stamp[v, 1]) if stamp[v, 0] == ws[0] else -1
                    if q <= r:
                        continue           # (each pair once, from its first)
                    tot["pairs"] += 1
                    if rows[r, 1] == rows[q, 1] and rows[r, 2] == rows[q, 2]:
                        tot["ties"] += 1
                        tot["next"] += q == r + 1
            print(f"{name}: {n_s} searches, {tot['calm']} with no end attacked; a search: {tot['rows'] / n_s:.1f} rows "
                  f"({tot['pen'] / n_s:.1f} with leaving attacks), {tot['pairs'] / n_s:.1f} "
                  f"pairs with both placements ends, {tot['ties'] / n_s:.1f} of them ties "
                  f"({100 * tot['ties'] / max(1, tot['pairs']):.1f}%): "
                  f"{tot['next'] / n_s:.1f} settled one right after the other, "
                  f"{(tot['ties'] - tot['next']) / n_s:.1f} apart", flush=True)
    finally:
        compiled.penalty_steps_kernel = keep
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
