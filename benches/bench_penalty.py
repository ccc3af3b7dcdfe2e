"""pytest-benchmark timings of penalty queries, one per registered implementation
(``movecore.reach.IMPLEMENTATIONS``: the general kernel and the packed penalty kernel),
on the workloads with a leaving-engagement layer (enemies scattered on the board, each
one bit on the cells around it) and an enter penalty on a few cells.

The normal test run disables benchmarking: each runs once as a smoke test and checks
that the implementation answers as the general kernel. Time them with
``pytest benches/bench_penalty.py --benchmark-enable``.
"""
from __future__ import annotations

import importlib

import numpy as np
import pytest

from workloads import make

R = importlib.import_module("movecore.reach")
NAMES = ("skirmish-hex", "dungeon-square8", "heights-hex", "double-space")
_cache = {}


def penalty_query(name):
    """(prepared ``_Query`` with penalties, starts) of workload ``name`` (seeded)."""
    if name not in _cache:
        w = make(name)
        rng = np.random.default_rng(7)
        n = w.board.n_cells
        leave = np.zeros(n, np.uint64)
        for bit, e in enumerate(rng.choice(n, size=min(n, 12), replace=False)):
            for v in w.board.nbr[e]:
                if v >= 0:
                    leave[v] |= np.uint64(1) << np.uint64(bit)
        pen = (rng.random(n) < 0.05).astype(np.int32)
        kw = w.query_kwargs()
        q = R._prepare(w.board, w.mover, w.budget, None, kw.get("cell_flags"), None, leave,
                       pen, 1, None)
        _cache[name] = (q, [int(s) for s in w.starts[:50]], w.budget)
    return _cache[name]


@pytest.mark.parametrize("impl", sorted(R.IMPLEMENTATIONS))
@pytest.mark.parametrize("name", NAMES)
def test_penalty_query(benchmark, name, impl):
    q, starts, budget = penalty_query(name)
    applies, run = R.IMPLEMENTATIONS[impl]
    if not applies(q):
        pytest.skip(f"{impl} does not answer penalty queries")

    def go():
        return [run(q, s, budget) for s in starts]

    got = benchmark(go)
    for r, s in zip(got[:5], starts):
        want = R._run_general(q, s, budget)
        assert r.cells.tolist() == want.cells.tolist()
        assert r.penalties.tolist() == want.penalties.tolist()
