"""Differential tests: the kernels, reach, reach_many and distance_field against the
pure-Python oracle over thousands of seeded random boards."""
from __future__ import annotations

import numpy as np
import pytest

import movecore as mc
from oracle import oracle_field, oracle_reach, path_is_valid
from randboards import random_case, unit_cost_twin

N_BOARDS = 3000


def _check_reach(spec, r, start, budget):
    want = oracle_reach(spec, [start], budget)
    got = {int(c): i for i, c in enumerate(r.cells)}
    assert set(got) == set(want), (sorted(got), sorted(want))
    for cell, i in got.items():
        w = want[cell]
        assert r.costs[i] == w["cost"], (cell, "cost")
        assert bool(r.stopped[i]) == w["stopped"], (cell, "stopped")
        assert r.free_costs[i] == w["free_cost"], (cell, "free_cost")
        assert r.penalties[i] == w["penalty"], (cell, "penalty")
        assert r.penalty_costs[i] == w["penalty_cost"], (cell, "penalty_cost")
    # ends are listed in cost order
    assert (np.diff(r.costs) >= 0).all()
    return want


@pytest.mark.parametrize("block", range(10))
def test_reach_matches_oracle(block):
    for seed in range(block * N_BOARDS // 10, (block + 1) * N_BOARDS // 10):
        spec, board, mover, layers, start, budget, rng = random_case(seed)
        r = mc.reach(board, mover, start, budget, **layers)
        _check_reach(spec, r, start, budget)
        # every reported path is legal and costs what is reported
        for i, cell in enumerate(r.cells[:8]):
            p = r.path(int(cell)).tolist()
            assert p[0] == start and p[-1] == cell
            if spec["leave"] is None and spec["enter_pen"] is None:
                assert path_is_valid(spec, p, int(r.costs[i]), budget), (seed, p)


def test_plain_queries_match_oracle():
    """Queries without stops, cell flags, zones of control, edges or corner rule run the
    plain build of the fast kernel (its stop and flag tests compiled out)."""
    from movecore.kernels.reach import is_plain
    from movecore.reach import _prepare
    plain = 0
    for seed in range(N_BOARDS // 2):
        spec, board, mover, layers, start, budget, rng = random_case(seed, plain=True)
        q = _prepare(board, mover, budget, layers["occupant"], None, None, None, None, 1,
                     None)
        plain += bool(q.blob is not None and is_plain(q.blob, q.qflags, q.zoc, q.params))
        r = mc.reach(board, mover, start, budget, **layers)
        _check_reach(spec, r, start, budget)
        for i, cell in enumerate(r.cells[:8]):
            assert path_is_valid(spec, r.path(int(cell)).tolist(), int(r.costs[i]), budget)
        batch = mc.reach_many(board, mover, [start, rng.randrange(board.n_cells)],
                              budget, **layers)
        assert batch[0][0].tolist() == r.cells.tolist()
        assert batch[0][1].tolist() == r.costs.tolist()
    assert plain > N_BOARDS // 4  # the plain build really ran


@pytest.mark.parametrize("kind", ["hex", "square4", "square8"])
def test_reach_many_matches_reach(kind):
    for seed in range(300):
        spec, board, mover, layers, start, budget, rng = random_case(seed, kind=kind)
        starts = [rng.randrange(board.n_cells) for _ in range(rng.randint(1, 6))]
        budgets = [rng.randint(0, 9) for _ in starts]
        for threads in (1, 2):
            batch = mc.reach_many(board, mover, starts, budgets, threads=threads, **layers)
            assert len(batch) == len(starts)
            for i, (s, b) in enumerate(zip(starts, budgets)):
                cells, costs, stopped = batch[i]
                want = oracle_reach(spec, [s], b)
                assert dict(zip(cells.tolist(), costs.tolist())) == \
                    {c: w["cost"] for c, w in want.items()}
                assert dict(zip(cells.tolist(), stopped.tolist())) == \
                    {c: w["stopped"] for c, w in want.items()}


def test_distance_field_matches_oracle():
    for seed in range(600):
        spec, board, mover, layers, start, budget, rng = random_case(seed, penalties=False)
        sources = rng.sample(range(board.n_cells), min(board.n_cells, rng.randint(1, 3)))
        lim = rng.choice([None, budget])
        got = mc.distance_field(board, mover, sources, lim, occupant=layers["occupant"],
                                cell_flags=layers["cell_flags"], zoc=layers["zoc"])
        want = oracle_field(spec, sources, 1 << 28 if lim is None else lim)
        assert {i: int(d) for i, d in enumerate(got) if d >= 0} == want


def test_unit_cost_bfs_path_is_taken_and_agrees():
    """Unit-cost movers run the BFS kernel; the Dial kernel must give the same answer."""
    from movecore.reach import _prepare
    from movecore.kernels import _types as T
    checked = 0
    for seed in range(2000):
        spec, board, mover, layers, start, budget, rng = random_case(seed, penalties=False)
        unit = unit_cost_twin(mover)
        q = _prepare(board, unit, budget, layers["occupant"], layers["cell_flags"],
                     layers["zoc"], None, None, 1, None)
        if q.params[T.P_UNIT] != 1:
            continue
        checked += 1
        spec = dict(spec, cost=[1 if unit.terrain_rule(1)[board.terrain[i], 0] >= 0 else -1
                                for i in range(board.n_cells)],
                    climb_per_level=0, climb_flat=0, descend_per_level=0, link_kinds={1},
                    edges={k: (0, b, s) for k, (c, b, s) in spec["edges"].items()})
        if board._fact("max_edge_cost"):
            continue
        r = mc.reach(board, unit, start, budget, occupant=layers["occupant"],
                     cell_flags=layers["cell_flags"], zoc=layers["zoc"])
        _check_reach(spec, r, start, budget)
    assert checked > 200


@pytest.mark.parametrize("name", ["general", "reach1", "reach_pen"])
def test_every_implementation_matches_oracle(name):
    """Each registered implementation (``movecore.reach.IMPLEMENTATIONS``), on the random
    queries it applies to (with and without penalties), against the oracle."""
    import importlib
    R = importlib.import_module("movecore.reach")
    applies, run = R.IMPLEMENTATIONS[name]
    ran = 0
    for seed in range(800):
        spec, board, mover, layers, start, budget, rng = random_case(seed + 20000)
        q = R._prepare(board, mover, budget, layers["occupant"], layers["cell_flags"],
                       layers["zoc"], layers["leave"], layers["enter_penalty"],
                       layers["leave_weight"], layers["max_penalty"])
        if not applies(q):
            continue
        ran += 1
        _check_reach(spec, run(q, start, budget), start, budget)
    assert ran > 200
