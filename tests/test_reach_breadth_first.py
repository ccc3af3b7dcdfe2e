"""``prepare(..., breadth_first=False)``: the search order of a query whose every step
costs 1 (a FIFO queue by default, the cost buckets with False), on seeded random boards.
Both orders give the same ends (listed by cost, but those of one cost in the order they
settle), costs, stops and free costs, and each reports a path of the end's cost; the
option changes nothing else (Descent's ``solve()`` on the move's box uses it to report
the whole dungeon's paths: tests/test_descent_reach_cost.py)."""
from __future__ import annotations

import numpy as np
import pytest
from randboards import random_case, unit_cost_twin

import movecore as mc
from movecore.kernels import _types as T

SEEDS = range(400)


def _params(q):
    return q._q.params


def _check_path(board, r, i):
    """The path of end ``i`` runs from the start to the end by neighbours or links, one
    step per MP (every step of a unit query costs 1)."""
    cell = int(r.cells[i])
    path = r.path(cell).tolist()
    assert path[-1] == cell and len(path) - 1 == int(r.costs[i])
    for u, v in zip(path, path[1:]):
        linked = v in board.nbr[u].tolist() or v in board.link_data[
            board.link_ptr[u]:board.link_ptr[u + 1], 0].tolist()
        assert linked, (u, v)
    return path


def _by_cell(r) -> list:
    return sorted(zip(r.cells.tolist(), r.costs.tolist(), r.stopped.tolist(),
                      r.free_costs.tolist()))


def test_both_orders_give_the_same_ends_and_paths_of_their_cost():
    unit = differ = 0
    for seed in SEEDS:
        _, board, mover, layers, start, budget, _ = random_case(seed, penalties=False)
        if seed % 2:
            mover = unit_cost_twin(mover)     # (steps of 1 on a flat board: unit)
        layers = {k: v for k, v in layers.items()
                  if k in ("occupant", "cell_flags", "zoc")}
        fifo = mc.prepare(board, mover, budget, **layers)
        lifo = mc.prepare(board, mover, budget, **layers, breadth_first=False)
        assert _params(lifo)[T.P_UNIT] == 0
        rest = np.arange(T.N_PARAMS) != T.P_UNIT
        assert (_params(fifo)[rest] == _params(lifo)[rest]).all()
        a, b = fifo.reach(start, paths=True), lifo.reach(start, paths=True)
        assert _by_cell(a) == _by_cell(b), seed
        assert a.costs.tolist() == b.costs.tolist()       # cheapest first, both
        if not _params(fifo)[T.P_UNIT]:
            assert a.cells.tolist() == b.cells.tolist()   # the same query
            continue
        unit += 1
        at = {int(c): i for i, c in enumerate(b.cells)}
        for i in range(len(a)):
            differ += _check_path(board, a, i) != _check_path(board, b, at[int(a.cells[i])])
    assert unit > 60, unit
    assert differ > 0      # the option is not a no-op: ties settle in another order


def test_an_open_room_searched_either_way():
    b = mc.Board.square(5, 5, neighbours=8)
    fifo = mc.prepare(b, mc.Mover(), 4)
    lifo = mc.prepare(b, mc.Mover(), 4, breadth_first=False)
    assert _params(fifo)[T.P_UNIT] == 1 and _params(lifo)[T.P_UNIT] == 0
    a, z = fifo.reach((0, 0)), lifo.reach((0, 0))
    assert _by_cell(a) == _by_cell(z) and len(a) == 25
    assert a.cells.tolist() != z.cells.tolist()   # ends of one cost: in settle order
    many = lifo.reach_many([0, 12, 24])
    for k, s in enumerate([0, 12, 24]):
        one = lifo.reach(s)
        lo, hi = many.offsets[k], many.offsets[k + 1]
        assert sorted(many.cells[lo:hi].tolist()) == sorted(one.cells.tolist())


@pytest.mark.parametrize("bad", [None, 0, 1, "no", np.int64(1)])
def test_breadth_first_must_be_a_bool(bad):
    with pytest.raises(mc.QueryError, match="breadth_first"):
        mc.prepare(mc.Board.square(3, 3), mc.Mover(), 2, breadth_first=bad)
