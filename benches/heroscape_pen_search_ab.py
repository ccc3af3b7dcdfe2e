"""Before/after speed of a change to the two-space walkers' penalty search alone
(``kernels/reach_pen.py``: ``steps_kernel``'s ``reach_pen_steps``), in one process: every
penalty search the two-space call runs on the walker games of 40 self-play steps (the
games ``heroscape_doubles_ab.py`` captures) is recorded once (its occupants, flags, leave
bits, start, budget and shape), then replayed through a baseline tree's search and the
installed one, rounds alternated in a shuffled order, each search's inputs copied into one
scratch first as the call does.

    git worktree add --detach /tmp/base BASE_COMMIT
    python benches/heroscape_pen_search_ab.py /tmp/base [--scenarios a.json,b.json]
                                              [--rounds 21] [--B 1024]

Checks that both give the same rows, settled states and cell rows (``pen_row_of``) on
the first ``--check`` searches, then prints the CPU medians (us a search), their ratio,
and the copy alone. Runs without Numba's cache (the recording links its own search into
the two-space call, which a cached call would not take): everything compiles, 1-2 min.
"""
from __future__ import annotations

import os
import sys
import time

os.environ["MOVECORE_NO_CACHE"] = "1"

import numpy as np  # noqa: E402
from numba import njit, types  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from heroscape_doubles_ab import _each_scenario, _load, _orders, _parser  # noqa: E402

from movecore.kernels._types import N_PARAMS as NP, P_N_PEN, P_TEAM  # noqa: E402
from movecore.kernels.reach import i32_1, i64_1, u8_1, u64_1  # noqa: E402
from movecore.kernels.reach_pen import pen_out_offset, pen_row_of  # noqa: E402
from movecore.reach import compiled  # noqa: E402


H = 6    # a record's head: start, budget, the shape's blob and table sizes, levels, team


def _recorder(real):
    """A search with ``real``'s arguments that answers by ``real`` and, on a workspace
    with a log (``buf[6]`` > 0: where the log starts, past the workspace, ``buf[7]`` its
    words; control words no search uses), first appends its inputs there: the head ``H``,
    then occupants, flags and the leave bits' two halves. (The self-play steps' own
    workspaces have no log: their searches are not recorded.)"""
    @njit(types.int64(i32_1, i32_1, i32_1, u8_1, u64_1, u64_1, i32_1, i64_1, i32_1,
                      types.int64, types.int64), nogil=True)
    def record(blob, table, occupant, qflags, zoc, leave, enter_pen, params, buf, start,
               budget):
        n = occupant.shape[0]
        at = np.int64(buf[6]) + np.int64(buf[7])
        if buf[6] > 0 and at + H + 4 * n <= buf.shape[0]:
            buf[at], buf[at + 1] = start, budget
            buf[at + 2], buf[at + 3] = blob.shape[0], table.shape[0]
            buf[at + 4], buf[at + 5] = params[P_N_PEN], params[P_TEAM]
            for i in range(n):
                buf[at + H + i] = occupant[i]
                buf[at + H + n + i] = qflags[i]
                buf[at + H + 2 * n + i] = np.int32(np.int64(leave[i] & np.uint64(0xFFFFFFFF)))
                buf[at + H + 3 * n + i] = np.int32(np.int64(leave[i] >> np.uint64(32)))
            buf[7] += H + 4 * n
        return real(blob, table, occupant, qflags, zoc, leave, enter_pen, params, buf, start,
                    budget)
    return record


def _searches(G, D, calls):
    """The recorded searches of the two-space call on ``calls``: (occ, flags, leave,
    (start, budget, shape)) arrays, with the call's shapes and an empty workspace."""
    P = G.n_places
    D = list(D)
    pbuf = D[30]
    games = sum(len(c[3]) for c in calls)     # (at most one search a game)
    log = np.zeros(pbuf.shape[0] + (H + 4 * P) * games, np.int32)
    log[:pbuf.shape[0]] = pbuf
    log[6], log[7] = pbuf.shape[0], 0
    D[30] = log
    from movecore.games.heroscape._batch_doubles import doubles_kernel
    dk = doubles_kernel()
    out = (np.zeros((G.B, P), np.uint8), np.full((G.B, P), -1, np.int32),
           np.zeros((G.B, P), np.int8), np.zeros((0, 0), np.int32))
    for c in calls:
        out[0][:] = 0
        out[1][:] = -1
        out[2][:] = 0
        dk(*c[:6], *D, *out, 0)
    pblobs, pblob_at, pparams = D[19], D[20], D[21]
    rec = log[pbuf.shape[0]:pbuf.shape[0] + log[7]].reshape(-1, H + 4 * P)
    lo = rec[:, H + 2 * P:H + 3 * P].astype(np.int64) & 0xFFFFFFFF
    hi = rec[:, H + 3 * P:].astype(np.int64) & 0xFFFFFFFF
    # each record's shape: its sizes, levels and team (shapes alike in those are one)
    shapes = {}
    for s in range(pparams.shape[0]):
        key = (int(pblob_at[s + 1] - pblob_at[s]), int(pparams[s, NP + 1] - pparams[s, NP]),
               int(pparams[s, P_N_PEN]), int(pparams[s, P_TEAM]))
        t = shapes.setdefault(key, s)
        assert np.array_equal(pparams[t], pparams[s]) and np.array_equal(
            pblobs[pblob_at[t]:pblob_at[t + 1]], pblobs[pblob_at[s]:pblob_at[s + 1]])
    st = np.array([(r[0], r[1], shapes[tuple(int(x) for x in r[2:H])]) for r in rec],
                  np.int64)
    ws = np.zeros(pbuf.shape[0], np.int32)
    ws[2], ws[3] = pbuf[2], pbuf[3]
    return (np.ascontiguousarray(rec[:, H:H + P]),
            np.ascontiguousarray(rec[:, H + P:H + 2 * P].astype(np.uint8)),
            (lo | (hi << 32)).astype(np.uint64), st, pblobs, pblob_at, pparams), ws


def _replay(kern, run=True):
    """Each of the searches ``lo:hi`` on ``kern``, its inputs copied into one scratch
    (``run`` False: the copies alone)."""
    @njit(nogil=True)
    def replay(occ, qf, lv, st, pblobs, pblob_at, pparams, buf, lo, hi):
        n = occ.shape[1]
        o1, q1, l1 = np.empty(n, np.int32), np.empty(n, np.uint8), np.empty(n, np.uint64)
        tot = 0
        for j in range(lo, hi):
            ps = st[j, 2]
            o1[:] = occ[j]
            q1[:] = qf[j]
            l1[:] = lv[j]
            if run:
                tot += kern(pblobs[pblob_at[ps]:pblob_at[ps + 1]],
                            pblobs[pparams[ps, NP]:pparams[ps, NP + 1]], o1, q1,
                            np.empty(0, np.uint64), l1, np.empty(0, np.int32), pparams[ps],
                            buf, st[j, 0], st[j, 1])
        return tot
    return replay


def main(argv=None) -> int:
    ap = _parser(__doc__, 21)
    ap.add_argument("base", help="a checkout of the baseline commit")
    ap.add_argument("--check", type=int, default=2000)
    a = ap.parse_args(argv)
    base = _load("movecore.kernels._reach_pen_base",
                 os.path.join(a.base, "kernels", "reach_pen.py")).steps_kernel()[1]
    new = compiled.penalty_steps_kernel()
    keep = compiled.penalty_steps_kernel
    compiled.penalty_steps_kernel = lambda: (new[0], _recorder(base))
    try:
        sc = list(_each_scenario(a))
    finally:
        compiled.penalty_steps_kernel = keep
    med = np.median
    for name, _, G, D, calls in sc:
        args, ws = _searches(G, D, calls)
        n, N = len(args[3]), args[0].shape[1]
        sides = [_replay(base), _replay(new[1])]
        bufs = [ws.copy(), ws.copy()]
        rows_at = pen_out_offset(N, int(ws[3]), int(ws[2])) - 8 * N
        for j in range(min(n, a.check)):
            got = []
            for r, b in zip(sides, bufs):
                m = r(*args, b, j, j + 1)
                got.append((b[rows_at:rows_at + 8 * m].copy(), b[1],
                            [pen_row_of(b, N, v) for v in range(N)]))
            assert np.array_equal(got[0][0], got[1][0]) and got[0][1:] == got[1][1:], j
        per = [[], []]
        for order in _orders(a.rounds):
            for i in order:
                t0 = time.thread_time()
                sides[i](*args, bufs[i], 0, n)
                per[i].append((time.thread_time() - t0) / n)
        copy = _replay(new[1], False)
        copy(*args, ws, 0, n)
        t0 = time.thread_time()
        copy(*args, ws, 0, n)
        c = (time.thread_time() - t0) / n
        o, w = med(per[0]), med(per[1])
        print(f"{name}: {n} penalty searches ({min(n, a.check)} checked equal): old "
              f"{o * 1e6:.2f} us a search, new {w * 1e6:.2f}: {o / w:.3f}x (the copy alone "
              f"{c * 1e6:.2f} us; without it {(o - c) / (w - c):.3f}x)", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
