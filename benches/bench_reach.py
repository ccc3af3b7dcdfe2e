"""pytest-benchmark timings of single queries and batches on the workloads.

The normal test run disables benchmarking (``--benchmark-disable``): each runs once as a
smoke test. Time them with ``pytest benches --benchmark-enable``; the full comparison with
the peers is ``movecore bench``.
"""
from __future__ import annotations

import pytest

import movecore as mc
from workloads import NAMES, make

_cache = {}


def workload(name):
    if name not in _cache:
        _cache[name] = make(name)
    return _cache[name]


@pytest.mark.parametrize("name", NAMES)
def test_single_query(benchmark, name):
    w = workload(name)
    starts = w.starts[:100].tolist()
    kw = w.query_kwargs()

    def run():
        n = 0
        for s in starts:
            n += len(mc.reach(w.board, w.mover, s, w.budget, **kw))
        return n

    assert benchmark(run) > len(starts)


@pytest.mark.parametrize("threads", [1, None])
@pytest.mark.parametrize("name", NAMES)
def test_batch(benchmark, name, threads):
    w = workload(name)
    kw = w.query_kwargs()
    batch = benchmark(mc.reach_many, w.board, w.mover, w.starts, w.budget, threads=threads,
                      **kw)
    assert len(batch) == len(w.starts)
    r = mc.reach(w.board, w.mover, int(w.starts[7]), w.budget, **kw)
    assert batch[7][0].tolist() == r.cells.tolist()
