"""Prepared queries changed in place (``Prepared.set_layer``) and the live positions' hot
path (``Prepared._run_into``): after any sequence of layer changes they answer exactly as
a query prepared from scratch with the same layers."""
from __future__ import annotations

import numpy as np
import pytest

import movecore as mc
from movecore.kernels import _types as T

from randboards import random_case


def _ends(r):
    return r.cells.tolist(), r.costs.tolist(), np.asarray(r.stopped, bool).tolist()


@pytest.mark.parametrize("seed", range(300))
def test_set_layer_answers_as_a_fresh_prepare(seed):
    spec, board, mover, layers, start, budget, rng = random_case(seed, penalties=False)
    layers = {k: v for k, v in layers.items() if v is not None}
    q = mc.prepare(board, mover, 9, **layers)
    occ = layers["occupant"].copy()
    n = board.n_cells
    for _ in range(6):
        cell = rng.randrange(n)
        value = rng.choice([T.OCC_EMPTY, T.OCC_EMPTY, T.OCC_WALL, 0, 1, 2])
        if rng.random() < 0.5:
            q.set_layer("occupant", cell, value)              # the O(1) path
        else:
            q.set_layer("occupant", [cell], np.array([value]))
        occ[cell] = value
        fresh = mc.prepare(board, mover, 9, **dict(layers, occupant=occ))
        s = rng.randrange(n)
        b = rng.randint(0, 9)
        assert _ends(q.reach(s, b)) == _ends(fresh.reach(s, b))
        if q.fast:
            # the positions' path: ends of several starts, sorted by (cost, order)
            starts = [rng.randrange(n) for _ in range(3)]
            order = np.array(rng.sample(range(n), n), np.int64)
            queries = np.array([[st, b, 0] for st in starts], np.int64)
            out = np.empty((3, 3 * n), np.int32)
            total = q._run_into(queries, out, order)
            lo = 0
            for st, count in zip(starts, queries[:, 2]):
                r = fresh.reach(st, b)
                rows = sorted(zip(r.costs.tolist(), order[r.cells].tolist(),
                                  r.cells.tolist(), np.asarray(r.stopped, int).tolist()))
                got = out[:, lo:lo + count]
                assert got[0].tolist() == [c for _, _, c, _ in rows]
                assert got[1].tolist() == [k for k, _, _, _ in rows]
                assert got[2].tolist() == [s for _, _, _, s in rows]
                lo += count
            assert lo == total


def test_set_layer_refuses_bad_input():
    board = mc.Board.square(3, 1)
    q = mc.prepare(board, mc.Mover(), 2, occupant=[-1, -1, -1])
    with pytest.raises(mc.QueryError, match="unknown layer"):
        q.set_layer("terrain", [0], [1])
    with pytest.raises(mc.QueryError, match="prepared without zoc"):
        q.set_layer("zoc", [0], [1])
    with pytest.raises(mc.QueryError, match="cells must be cell indices"):
        q.set_layer("occupant", [3], [1])
    with pytest.raises(mc.LimitError, match="values must lie"):
        q.set_layer("occupant", [0], [-3])
    with pytest.raises(mc.QueryError, match="must be integers"):
        q.set_layer("occupant", [0], [1.5])
    plain = mc.prepare(board, mc.Mover(), 2)
    with pytest.raises(mc.QueryError, match="prepared without occupant"):
        plain.set_layer("occupant", 0, 1)   # the board's shared empty layer stays empty
    assert plain.reach(0).cells.tolist() == [0, 1, 2]
