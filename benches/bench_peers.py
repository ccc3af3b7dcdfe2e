"""The peers of ``movecore bench`` (scipy, tcod, networkx, heapq, the C yardstick) on the
same starts, checked against movecore. Under ``--benchmark-disable`` (the normal test run)
each runs once on a few starts as a smoke test; ``--benchmark-enable`` times them."""
from __future__ import annotations

import pytest

from movecore.tools import bench
from workloads import NAMES, make

PEER_NAMES = [n for n in NAMES if n != "double-space"]


@pytest.fixture
def n_queries(benchmark):
    return 5 if benchmark.disabled else 200


@pytest.mark.parametrize("name", PEER_NAMES)
def test_peers_agree(benchmark, name, n_queries):
    w = make(name, n_starts=n_queries)
    peers, notes = bench.make_peers(w, bench.PEERS)
    ref = bench.mc_single(w)(w.starts)
    yrun, _, note = bench.yardstick(w)
    if yrun is not None:
        peers["C yardstick"] = yrun
    for pname, fn in peers.items():
        got = fn(w.starts)
        assert all(bench._same(a, b) for a, b in zip(got, ref)), pname
    benchmark(bench.mc_single(w), w.starts)


def test_double_space_query(benchmark, n_queries):
    w = make("double-space", n_starts=n_queries)
    run = bench.mc_single(w)
    assert all(len(cells) > 1 for cells, _ in run(w.starts))
    benchmark(run, w.starts)
