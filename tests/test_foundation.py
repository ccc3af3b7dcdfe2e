"""Hand-made cases for the kernel contract's traps, the Board/Mover/reach API, and the
grid scenario vocabulary (including every malformed input)."""
from __future__ import annotations

import importlib
import json
import random
import subprocess
import sys
import threading

import numpy as np
import pytest

import movecore as mc
from movecore.kernels import _types as T
from oracle import oracle_reach


def ends_of(board, r):
    return {board.coord(int(c)): (int(k), bool(s)) for c, k, s in
            zip(r.cells, r.costs, r.stopped)}


# ------------------------------------------------------------------ the traps
def _diamond():
    """(0,0) start; two routes of cost 2 to X=(1,1): via (1,0) [the step into X stops]
    and via (0,1) [free]; Y=(2,1) lies beyond X."""
    b = mc.Board.square_cells([(0, 0), (1, 0), (0, 1), (1, 1), (2, 1)], neighbours=4)
    return b, b.with_edges([{"between": (b.index((1, 0)), b.index((1, 1))), "stop": True}])


def test_stopped_arrival_tying_with_free_arrival_does_not_hide_it():
    _, b = _diamond()
    r = mc.reach(b, mc.Mover(), (0, 0), 3)
    e = ends_of(b, r)
    assert e[(1, 1)] == (2, False)  # the free arrival wins the tie
    assert e[(2, 1)] == (3, False)  # ... and goes on
    assert r.path_coords((2, 1)) == [(0, 0), (0, 1), (1, 1), (2, 1)]


def test_stopped_arrival_tying_via_provoke_token():
    # hex: token T=(2,-1) is adjacent to (1,0) and (2,0), so the step (1,0)->(2,0) stops.
    # Route 1 (provoking): (0,0)->(1,0) [cost 2]->(2,0) = 3.
    # Route 2 (free):      (0,0)->(0,1)->(1,1)->(2,0)   = 3.
    b = mc.Board.hex([(0, 0), (1, 0), (2, 0), (0, 1), (1, 1), (3, 0), (2, -1)],
                     terrain=[0, 1, 0, 0, 0, 0, 0])
    zoc = np.zeros(b.n_cells, np.uint64)
    tok = b.index((2, -1))
    zoc[b.nbr[tok][b.nbr[tok] >= 0]] = 1
    flags = np.zeros(b.n_cells, np.uint8)
    flags[tok] = mc.CELL_BLOCKED
    m = mc.Mover(terrain_cost=[1, 2])
    r = mc.reach(b, m, (0, 0), 4, zoc=zoc, cell_flags=flags)
    e = ends_of(b, r)
    assert e[(2, 0)] == (3, False)  # the free arrival wins the tie ...
    assert e[(3, 0)] == (4, False)  # ... and goes on
    assert (2, -1) not in e
    # without the free route the arrival stops and (3,0) is out of reach
    r = mc.reach(b, m, (0, 0), 4, zoc=zoc,
                 cell_flags=flags | (np.arange(b.n_cells) == b.index((1, 1))).astype(np.uint8))
    e = ends_of(b, r)
    assert e[(2, 0)] == (3, True) and (3, 0) not in e


def test_cheaper_stopped_arrival_with_dearer_free_one_behind_it():
    # X=(1,0): direct step stops (cost 1); the detour (0,1)->(1,1)->(1,0) is free, cost 3.
    b = mc.Board.square_cells([(0, 0), (1, 0), (2, 0), (0, 1), (1, 1)], neighbours=4)
    b = b.with_edges([{"between": (b.index((0, 0)), b.index((1, 0))), "stop": True}])
    r = mc.reach(b, mc.Mover(), (0, 0), 4)
    i = r.end_index((1, 0))
    assert (r.costs[i], bool(r.stopped[i]), r.free_costs[i]) == (1, True, 3)
    assert ends_of(b, r)[(2, 0)] == (4, False)  # reached through the dearer free arrival
    assert r.path_coords((2, 0)) == [(0, 0), (0, 1), (1, 1), (1, 0), (2, 0)]
    assert r.path_coords((1, 0)) == [(0, 0), (1, 0)]
    # with budget 3 the free arrival exists but cannot go on
    assert (2, 0) not in ends_of(b, mc.reach(b, mc.Mover(), (0, 0), 3))


def test_stop_cell_occupied_by_an_ally_is_no_end_at_all():
    b = mc.Board.square(3, 1, flags=[0, mc.CELL_STOP, 0])
    occ = b.occupancy({1: 0})
    r = mc.reach(b, mc.Mover(team=0), (0, 0), 5, occupant=occ)
    assert ends_of(b, r) == {(0, 0): (0, False)}
    # not a stop cell: the ally is passed, (2,0) is an end, (1,0) is not
    r = mc.reach(b.with_layers(flags=[0, 0, 0]), mc.Mover(team=0), (0, 0), 5, occupant=occ)
    assert ends_of(b, r) == {(0, 0): (0, False), (2, 0): (2, False)}


def test_zero_cost_terrain():
    b = mc.Board.square(5, 1, terrain=[0, 1, 1, 0, 1])
    r = mc.reach(b, mc.Mover(terrain_cost=[1, 0]), (0, 0), 1)
    assert ends_of(b, r) == {(0, 0): (0, False), (1, 0): (0, False), (2, 0): (0, False),
                             (3, 0): (1, False), (4, 0): (1, False)}
    # zero-cost cell that stops: it ends the move even though it was free
    r = mc.reach(b, mc.Mover(terrain_cost=[1, 0], stop_terrain=[1]), (0, 0), 5)
    assert ends_of(b, r) == {(0, 0): (0, False), (1, 0): (0, True)}


def test_start_in_stop_terrain_does_not_stop():
    b = mc.Board.square(3, 1, terrain=[1, 0, 0])
    r = mc.reach(b, mc.Mover(stop_terrain=[1]), (0, 0), 2)
    assert ends_of(b, r) == {(0, 0): (0, False), (1, 0): (1, False), (2, 0): (2, False)}


def test_climb_rules():
    b = mc.Board.hex([(0, 0), (1, 0), (2, 0), (0, 1)], height=[0, 3, 0, 1])
    e = ends_of(b, mc.reach(b, mc.Mover(climb_per_level=1), (0, 0), 10))
    assert e[(1, 0)] == (4, False) and e[(2, 0)] == (5, False) and e[(0, 1)] == (2, False)
    e = ends_of(b, mc.reach(b, mc.Mover(climb_flat=2), (0, 0), 10))
    assert e[(1, 0)] == (3, False) and e[(0, 1)] == (3, False)
    e = ends_of(b, mc.reach(b, mc.Mover(climb_per_level=1, max_climb=2), (0, 0), 10))
    assert e[(1, 0)] == (5, False)  # via (0,1): two climbs of 1 and 2


def test_links_kinds_and_occupancy_modes():
    b = mc.Board.square(5, 1, links=[mc.Link(0, 4, cost=1, kind=3)])
    assert ends_of(b, mc.reach(b, mc.Mover(), 0, 1))[(4, 0)] == (1, False)
    assert (4, 0) not in ends_of(b, mc.reach(b, mc.Mover(links=[0]), 0, 1))
    occ = b.occupancy({1: 1})
    assert ends_of(b, mc.reach(b, mc.Mover(team=0), 0, 2, occupant=occ)).keys() == \
        {(0, 0), (4, 0), (3, 0)}
    e = ends_of(b, mc.reach(b, mc.Mover(team=0, enemies="pass_end", links=[]), 0, 2,
                            occupant=occ))
    assert e.keys() == {(0, 0), (1, 0), (2, 0)}
    wall = b.occupancy({1: mc.OCC_WALL})
    assert ends_of(b, mc.reach(b, mc.Mover(team=0, enemies="pass", allies="pass_end",
                                           links=[]), 0, 3, occupant=wall)).keys() == {(0, 0)}


def test_corner_cutting():
    b = mc.Board.square(2, 2, neighbours=8, terrain=[0, 1, 0, 0])
    cut = ends_of(b, mc.reach(b, mc.Mover(terrain_cost=[1, -1]), (0, 0), 1))
    nocut = ends_of(b, mc.reach(b, mc.Mover(terrain_cost=[1, -1], corner_cutting=False),
                                (0, 0), 1))
    assert (1, 1) in cut and (1, 1) not in nocut


def test_penalty_objective_reports_both_fronts():
    # Leaving the neighbourhood of token T costs 1 penalty; circling around it is free.
    b = mc.Board.hex([(q, r) for q in range(-2, 3) for r in range(-2, 3)
                      if abs(q + r) <= 2])
    t = b.index((1, 0))
    leave = np.zeros(b.n_cells, np.uint64)
    leave[b.nbr[t][b.nbr[t] >= 0]] = 1
    occ = b.occupancy({t: 1})
    r = mc.reach(b, mc.Mover(team=0), (0, 0), 4, occupant=occ, leave=leave)
    got = {b.coord(int(c)): (int(p), int(pc)) for c, p, pc in
           zip(r.cells, r.penalties, r.penalty_costs)}
    assert got[(2, 0)] == (0, 3)  # around the token, staying adjacent
    assert got[(-1, 0)] == (1, 1)  # leaving it
    assert r.path_coords((2, 0), least_penalty=True)[-1] == (2, 0)


def test_distance_field_and_out():
    b = mc.Board.square(4, 4, neighbours=8)
    out = np.empty(16, np.int32)
    d = mc.distance_field(b, mc.Mover(), [(0, 0)], out=out)
    assert d is out and d.reshape(4, 4).tolist()[3] == [3, 3, 3, 3]
    assert (mc.distance_field(b, mc.Mover(), [(0, 0)], 1) >= 0).sum() == 4


def test_mask_is_an_action_mask():
    b = mc.Board.square(3, 3)
    r = mc.reach(b, mc.Mover(), (1, 1), 1)
    assert r.mask.reshape(3, 3).astype(int).tolist() == [[0, 1, 0], [1, 1, 1], [0, 1, 0]]


def test_reach_many_threads_agree():
    b = mc.Board.square(20, 20, neighbours=8, terrain=np.arange(400) % 3)
    m = mc.Mover(terrain_cost=[1, 2, -1])
    starts = [i for i in range(400) if i % 3 != 2]
    one = mc.reach_many(b, m, starts, 5, threads=1)
    two = mc.reach_many(b, m, starts, 5, threads=2)
    assert (one.offsets == two.offsets).all() and (one.cells == two.cells).all()
    for i in (0, 50, len(starts) - 1):
        r = mc.reach(b, m, starts[i], 5)
        assert one[i][0].tolist() == r.cells.tolist()


def test_python_threads_share_a_board():
    b = mc.Board.square(30, 30, terrain=np.arange(900) % 4)
    m = mc.Mover(terrain_cost=[1, 2, 3, -1])
    starts = [i for i in range(900) if i % 4 != 3][:300]
    want = [mc.reach(b, m, s, 6).costs.tolist() for s in starts]
    got = {}

    def work(k):
        got[k] = [mc.reach(b, m, s, 6).costs.tolist() for s in starts]
    ths = [threading.Thread(target=work, args=(k,)) for k in range(2)]
    for t in ths:
        t.start()
    for t in ths:
        t.join()
    assert got[0] == want and got[1] == want


def test_extend_keeps_indices():
    b = mc.Board.hex([(0, 0), (1, 0)], terrain=[0, 1])
    b2 = b.extend([(2, 0), (0, 1)], terrain=[2, 0])
    assert b2.index((1, 0)) == 1 and b2.index((2, 0)) == 2 and b2.terrain.tolist() == \
        [0, 1, 2, 0]
    assert b2.adjacent(1, 2) and not b.find((2, 0)) >= 0


def test_graph_board():
    g = mc.Board.graph([[1, -1], [2, 0], [-1, 1]])
    assert mc.reach(g, mc.Mover(), 0, 1).cells.tolist() == [0, 1]


def test_large_board_budget_bound_and_queue_growth():
    b = mc.Board.square(256, 256, terrain=np.random.default_rng(0).integers(0, 4, 65536))
    m = mc.Mover(terrain_cost=[1, 2, 3, 4])
    r = mc.reach(b, m, (128, 128), 40)
    assert r.costs.max() <= 40 and len(r) > 500
    # a budget far beyond any cost still terminates and reaches everything
    assert len(mc.reach(b, m, (0, 0), 10**7)) == 65536


# ------------------------------------------------------------------ API errors
@pytest.mark.parametrize("call, err", [
    (lambda: mc.Board.hex([(0, 0), (0, 0)]), mc.BoardError),
    (lambda: mc.Board.hex([]), mc.BoardError),
    (lambda: mc.Board.hex([(0, 0, 1)]), mc.BoardError),
    (lambda: mc.Board.hex([(0.5, 0)]), mc.BoardError),
    (lambda: mc.Board.square(0, 3), mc.BoardError),
    (lambda: mc.Board.square(5000, 5000), mc.LimitError),
    (lambda: mc.Board.square_cells([(0, 0)], neighbours=6), mc.BoardError),
    (lambda: mc.Board.hex([(0, 0)], height=[1 << 20]), mc.LimitError),
    (lambda: mc.Board.hex([(0, 0)], terrain=[0, 1]), mc.BoardError),
    (lambda: mc.Board.hex([(0, 0), (5, 5)]).with_edges([{"between": (0, 1)}]),
     mc.BoardError),
    (lambda: mc.Board.hex([(0, 0), (1, 0)]).with_edges([{"between": (0, 1),
                                                          "cost": -1}]), mc.LimitError),
    (lambda: mc.Board.hex([(0, 0)]).with_links([mc.Link(0, 3)]), mc.BoardError),
    (lambda: mc.Mover(terrain_cost=[1, -2]), mc.LimitError),
    (lambda: mc.Mover(terrain_cost=[1 << 30]), mc.LimitError),
    (lambda: mc.Mover(allies="ignore"), mc.QueryError),
    (lambda: mc.Mover(max_climb=-1), mc.LimitError),
    (lambda: mc.reach(mc.Board.hex([(0, 0)]), mc.Mover(), (3, 3), 1), mc.QueryError),
    (lambda: mc.reach(mc.Board.hex([(0, 0)]), mc.Mover(), 0, -1), mc.QueryError),
    (lambda: mc.reach(mc.Board.hex([(0, 0)]), mc.Mover(), 0, 1.5), mc.QueryError),
    (lambda: mc.reach(mc.Board.hex([(0, 0)]), mc.Mover(), 0, 1 << 40), mc.LimitError),
    (lambda: mc.reach(mc.Board.hex([(0, 0)]), mc.Mover(), 0, 1, occupant=[0, 1]),
     mc.QueryError),
    (lambda: mc.reach(mc.Board.hex([(0, 0)]), mc.Mover(), 0, 1, max_penalty=99),
     mc.LimitError),
    (lambda: mc.reach("board", mc.Mover(), 0, 1), mc.QueryError),
    (lambda: mc.reach(mc.Board.hex([(0, 0), (9, 9)]), mc.Mover(), 0, 1).path((9, 9)),
     mc.QueryError),
    (lambda: mc.reach_many(mc.Board.hex([(0, 0)]), mc.Mover(), [0, 0], [1]), mc.QueryError),
    (lambda: mc.prepare(mc.Board.hex([(0, 0)]), mc.Mover(), 2).reach(0, 3), mc.LimitError),
    (lambda: mc.prepare(mc.Board.hex([(0, 0)]), mc.Mover(), 2).reach((4, 4)), mc.QueryError),
    (lambda: mc.prepare(mc.Board.hex([(0, 0)]), mc.Mover(), 2).reach(0, -1), mc.QueryError),
    (lambda: mc.prepare(mc.Board.hex([(0, 0)]), mc.Mover(), 2).reach_many([0], [5]),
     mc.LimitError),
    (lambda: mc.prepare(mc.Board.hex([(0, 0)]), mc.Mover(), 2).reach_many([0], threads=0),
     mc.QueryError),
    (lambda: mc.prepare(mc.Board.hex([(0, 0)]), mc.Mover(), True), mc.QueryError),
    (lambda: mc.prepare(mc.Board.hex([(0, 0)]), "mover", 1), mc.QueryError),
    (lambda: mc.reach(mc.Board.hex([(0, 0), (1, 0)], terrain=[0, 1]),
                      mc.Mover(terrain_cost=[1, 1], stop_terrain=[1]), 0, 1).path(1, free=True),
     mc.QueryError),
])
def test_api_errors_are_typed(call, err):
    with pytest.raises(err):
        call()


def test_prepared_query_answers_as_reach_and_owns_its_layers():
    """prepare() once, then reach()/reach_many() from many starts: the same answers as
    the one-shot functions (plain and with layers), budgets up to max_budget, and the
    layers copied at preparation (changing the caller's array later changes nothing)."""
    from randboards import random_case
    for seed in range(300):
        spec, board, mover, layers, start, budget, rng = random_case(seed, penalties=False)
        kw = {k: layers[k] for k in ("occupant", "cell_flags", "zoc")}
        if seed % 2:
            kw = {}
        p = mc.prepare(board, mover, budget, **kw)
        assert p.board is board and p.mover is mover and p.max_budget == budget
        for b in sorted({0, budget // 2, budget}):
            got, want = p.reach(start, b), mc.reach(board, mover, start, b, **kw)
            assert got.cells.tolist() == want.cells.tolist()
            assert got.costs.tolist() == want.costs.tolist()
            assert got.stopped.tolist() == want.stopped.tolist()
            assert got.free_costs.tolist() == want.free_costs.tolist()
        got = p.reach_many(np.arange(board.n_cells), threads=1)
        want = mc.reach_many(board, mover, np.arange(board.n_cells), budget, threads=1, **kw)
        assert got.offsets.tolist() == want.offsets.tolist()
        assert got.cells.tolist() == want.cells.tolist()
    board = mc.Board.square(4, 1)
    occupant = board.occupancy({2: 1})
    p = mc.prepare(board, mc.Mover(enemies="block"), 3, occupant=occupant)
    assert p.reach(0).cells.tolist() == [0, 1]
    occupant[2] = mc.OCC_EMPTY  # the caller's array, changed after preparation
    assert p.reach((0, 0)).cells.tolist() == [0, 1]
    assert "max_budget=3" in repr(p)


@pytest.mark.parametrize("how", ["pool", "prange"])
def test_read_only_layers_give_the_same_answers(how, monkeypatch):
    """Layers the caller cannot write (a frozen array, np.frombuffer, a memory map) are
    answered exactly like writable ones, by every entry point and both batch threadings
    (Numba types a read-only array as another type: they are copied at the boundary)."""
    import sys

    from randboards import random_case
    monkeypatch.setattr(importlib.import_module("movecore.reach"), "BATCH_THREADS", how)

    def frozen(a):
        if not isinstance(a, np.ndarray):
            return a  # None, leave_weight, max_penalty
        a = a.copy()
        a.setflags(write=False)
        return a

    checked = 0
    for seed in range(120):
        spec, board, mover, layers, start, budget, rng = random_case(seed)
        if not any(isinstance(v, np.ndarray) for v in layers.values()):
            continue
        ro = {k: frozen(v) for k, v in layers.items()}
        starts = sorted({start, rng.randrange(board.n_cells)})
        for kw in (layers, ro):
            got = mc.reach(board, mover, start, budget, **kw)
            batch = mc.reach_many(board, mover, starts, budget, threads=2, **kw)
            prep = mc.prepare(board, mover, budget, **kw).reach(start)
            field_kw = {k: kw[k] for k in ("occupant", "cell_flags", "zoc") if k in kw}
            field = mc.distance_field(board, mover, [start], budget, **field_kw)
            answer = (got.cells.tolist(), got.costs.tolist(), got.penalties.tolist(),
                      batch.offsets.tolist(), batch.cells.tolist(), prep.cells.tolist(),
                      field.tolist())
            if kw is layers:
                want = answer
        assert answer == want
        checked += 1
    assert checked > 50
    out = frozen(np.zeros(3, np.int32))
    with pytest.raises(mc.QueryError, match="writable"):
        mc.distance_field(mc.Board.square(3, 1), mc.Mover(), [0], out=out)


_LAYER_BASES = {"occupant": np.int32, "cell_flags": np.uint8, "zoc": np.uint64,
                "leave": np.uint64, "enter_penalty": np.int32}


@pytest.mark.parametrize("name", sorted(_LAYER_BASES))
def test_a_layer_in_any_array_form_is_answered_or_refused_with_a_typed_error(name):
    """Another byte order, a strided view, a list, another integer dtype or bools give
    the native answer; floats, a wrong shape or an empty array give a MovecoreError;
    nothing else escapes (a bool uint64 layer once raised OverflowError)."""
    board = mc.Board.square(4, 4)
    mover = mc.Mover(terrain_cost=[1], enemies="block")
    a = np.zeros(16, _LAYER_BASES[name])
    a[[2, 9]] = 1 if name != "occupant" else 0
    same = {"bigendian": a.astype(a.dtype.newbyteorder(">")), "strided": np.repeat(a, 2)[::2],
            "list": a.tolist(), "int64": a.astype(np.int64), "bool": a != 0}
    refused = {"float": a.astype(float), "2d": a.reshape(4, 4), "empty": a[:0]}
    calls = {"reach": lambda kw: mc.reach(board, mover, 0, 4, **kw).cells.tolist(),
             "reach_many": lambda kw: mc.reach_many(board, mover, [0, 3], 4, **kw).cells.tolist(),
             "prepare": lambda kw: mc.prepare(board, mover, 4, **kw).reach(0).cells.tolist()}
    if name in ("occupant", "cell_flags", "zoc"):
        calls["distance_field"] = \
            lambda kw: mc.distance_field(board, mover, [0], 4, **kw).tolist()
    for call in calls.values():
        want = call({name: a})
        for form, v in same.items():
            if name == "occupant" and form == "bool":
                continue  # not team ids
            assert call({name: v}) == want, form
        for form, v in refused.items():
            with pytest.raises(mc.MovecoreError):
                call({name: v})


def test_odd_starts_budgets_and_options_get_an_answer_or_a_typed_error():
    """Every start, budget, thread count and option a caller might pass by mistake
    (bools, floats, strings, None, huge ints, 0-d and 2-d arrays, coordinates off the
    board) is answered or refused with a MovecoreError: nothing else escapes (a float
    ``budgets`` once raised TypeError from reach_many)."""
    board, mover = mc.Board.square(4, 4), mc.Mover()
    p = mc.prepare(board, mover, 4)
    leave = np.zeros(16, np.uint64)
    values = [0, 3, -1, 16, 10**20, -10**20, True, 2.0, 2.5, np.int64(2), np.uint64(3),
              np.float32(1), "1", None, (0, 0), (9, 9), [0, 0], np.array(2), np.array([1]),
              (0, 0, 0), float("nan")]
    calls = [lambda v: mc.reach(board, mover, v, 3), lambda v: mc.reach(board, mover, 0, v),
             lambda v: p.reach(v), lambda v: p.reach(0, v), lambda v: mc.prepare(board, mover, v),
             lambda v: mc.reach_many(board, mover, [v], 3),
             lambda v: mc.reach_many(board, mover, [0], v),
             lambda v: mc.reach_many(board, mover, [0], 3, threads=v),
             lambda v: mc.distance_field(board, mover, [v]),
             lambda v: mc.distance_field(board, mover, [0], v),
             lambda v: mc.reach(board, mover, 0, 3).path(v),
             lambda v: mc.reach(board, mover, 0, 3, max_penalty=v, leave=leave),
             lambda v: mc.reach(board, mover, 0, 3, leave_weight=v, leave=leave),
             lambda v: mc.reach_many(board, mover, v, 3), lambda v: p.reach_many(v)]
    values += [[], np.zeros((2, 2), int), np.array([0.5]), "abc", [(0, 0), (1, 1)],
               np.array([3, -1]), np.array([[3]]), np.array([3, 10**9])]
    answered = 0
    for call in calls:
        for v in values:
            try:
                call(v)
                answered += 1
            except mc.MovecoreError:
                pass
    assert answered > 40
    assert mc.reach_many(board, mover, [0, 1], np.array([3, 2], np.uint8)).offsets.tolist() \
        == mc.reach_many(board, mover, [0, 1], [3, 2]).offsets.tolist()


def test_odd_board_and_mover_arguments_get_a_typed_error():
    """Board constructors, Board.occupancy and Mover refuse what is not theirs with a
    MovecoreError (they raised TypeError, AttributeError, ValueError or IndexError on
    some of these, and occupancy({-1: 1}) marked the last cell)."""
    odd = [0, -1, 2.5, True, "x", [1.5], [[1, 2]], np.zeros((2, 2)), np.array([2**40]),
           [-5], float("nan"), (1, 2, 3), {"a": 1}, np.array([True, False])]
    square = mc.Board.square(3, 3)
    calls = [lambda v: mc.Board.square(3, 3, neighbours=v),
             lambda v: mc.Board.hex([(0, 0), (1, 0)], links=v),
             lambda v: mc.Board.hex([(0, 0), (1, 0)], edges=v),
             lambda v: square.occupancy(v), lambda v: square.occupancy({0: v})]
    calls += [lambda v, kw=kw: mc.Mover(**{kw: v})
              for kw in ("stop_terrain", "allies", "enemies", "links", "corner_cutting")]
    valid = {(4, "0"), (5, "(1, 2, 3)"), (8, "(1, 2, 3)"), (9, "True")}  # team 0, ids...
    for i, call in enumerate(calls):
        for v in odd:
            if (i, repr(v)) in valid:
                call(v)
                continue
            with pytest.raises(mc.MovecoreError):
                call(v)
    for cell in (-1, 9, 2.5, True, "x", (0, 0)):
        with pytest.raises(mc.BoardError):
            square.occupancy({cell: 1})
    assert mc.Board.hex([(0, 0), (1, 0)], links=None, edges=None).n_cells == 2
    occ = np.array([-1, -5, -1, -1, -1, -1, -1, -1, -1], np.int32)
    with pytest.raises(mc.LimitError, match="-5"):  # it read as an empty cell
        mc.reach(square, mc.Mover(), 0, 2, occupant=occ)
    # iterables are read once: a generator of stop terrains still stops the move
    stops = mc.Mover(terrain_cost=[1, 1], stop_terrain=(t for t in [1]))
    water = mc.Board.square(3, 1, terrain=[0, 1, 0])
    assert mc.reach(water, stops, 0, 3).cells.tolist() == [0, 1]


def test_parents_and_free_paths():
    """Reach.parents is the cell before each end on its path; path(free=True) follows the
    cheapest arrival that did not have to stop (a ford entered from the bank is dear to
    leave free, cheap to reach stopped)."""
    from randboards import random_case
    for seed in range(200):
        spec, board, mover, layers, start, budget, rng = random_case(seed, penalties=False)
        r = mc.reach(board, mover, start, budget, occupant=layers["occupant"],
                     cell_flags=layers["cell_flags"], zoc=layers["zoc"])
        for i, cell in enumerate(r.cells.tolist()):
            p = r.path(cell).tolist()
            assert r.parents[i] == (p[-2] if len(p) > 1 else -1)
            if r.free_costs[i] >= 0:
                fp = r.path(cell, free=True).tolist()
                assert fp[0] == start and fp[-1] == cell and len(set(fp)) == len(fp)
                if not r.stopped[i]:  # the least-cost arrival is free: the same one
                    assert fp == p
    # X = (1, 1): the step from (1, 0) into X stops (cost 2); the way by (0, 1), rough
    # ground, costs 3 and arrives free
    b = mc.Board.square_cells([(0, 0), (1, 0), (0, 1), (1, 1)], neighbours=4,
                              terrain=[0, 0, 1, 0])
    b = b.with_edges([{"between": (b.index((1, 0)), b.index((1, 1))), "stop": True}])
    r = mc.reach(b, mc.Mover(terrain_cost=[1, 2]), (0, 0), 4)
    x = r.end_index((1, 1))
    assert bool(r.stopped[x]) and r.costs[x] == 2 and r.free_costs[x] == 3
    assert r.path_coords((1, 1)) == [(0, 0), (1, 0), (1, 1)]
    assert r.path_coords((1, 1), free=True) == [(0, 0), (0, 1), (1, 1)]
    # water at (1, 0) stops every arrival: no free path
    b = mc.Board.square_cells([(0, 0), (1, 0), (0, 1), (1, 1), (2, 0)], neighbours=4,
                              terrain=[0, 1, 0, 0, 0])
    r = mc.reach(b, mc.Mover(terrain_cost=[1, 1], stop_terrain=[1]), (0, 0), 4)
    water = r.end_index((1, 0))
    assert bool(r.stopped[water]) and r.costs[water] == 1 and r.free_costs[water] == -1
    assert r.path_coords((1, 0)) == [(0, 0), (1, 0)]
    with pytest.raises(mc.QueryError):
        r.path((1, 0), free=True)


# ------------------------------------------------------------------ scenario
def grid_scenario(**over):
    s = {"game": "grid",
         "board": {"grid": "hex", "cells": [{"at": [0, 0], "cost": 1, "height": 0},
                                            {"at": [1, 0], "cost": 2, "height": 2,
                                             "stop": True},
                                            {"at": [2, 0], "cost": -1}],
                   "links": [{"between": [[0, 0], [2, 0]], "cost": 1}]},
         "options": {"climb_per_level": 1, "climb_flat": 0, "max_climb": None},
         "figures": [{"id": "a", "team": "red", "at": [0, 0]},
                     {"id": "b", "team": "blue", "at": [1, 0]}],
         "query": {"figure": "a", "budget": 6, "paths": False, "provoke": [[3, 0]]}}
    s.update(over)
    return s


def test_issue_example_scenario():
    s = grid_scenario()
    s["board"]["cells"].append({"at": [3, 0]})
    res = mc.solve(s)
    # b (enemy) blocks (1,0); (2,0) cannot be entered even by link; token cell blocked
    assert res == {"figure": "a", "ends": [{"at": [0, 0], "cost": 0, "stopped": False}]}
    s["figures"][1]["team"] = "red"   # now an ally on a stop cell: no end, no passage
    assert [e["at"] for e in mc.solve(s)["ends"]] == [[0, 0]]
    s["figures"].pop()
    res = mc.solve(dict(s, query={"figure": "a", "budget": 6, "paths": True}))
    assert res["ends"][1] == {"at": [1, 0], "cost": 4, "stopped": True,
                              "path": [[0, 0], [1, 0]]}


def test_provoke_token_off_the_board_still_provokes():
    # hex row (0,0)..(2,0); token at (2,-1), off the board, touches (1,0) and (2,0)
    s = {"game": "grid", "board": {"grid": "hex", "cells": [{"at": [i, 0]} for i in range(4)]},
         "figures": [{"id": "a", "team": "red", "at": [0, 0]}],
         "query": {"figure": "a", "budget": 5, "provoke": [[2, -1]]}}
    assert [(e["at"], e["cost"], e["stopped"]) for e in mc.solve(s)["ends"]] == \
        [([0, 0], 0, False), ([1, 0], 1, False), ([2, 0], 2, True)]


def _bad(mutate):
    s = grid_scenario()
    mutate(s)
    return s


@pytest.mark.parametrize("scenario, err", [
    ("{not json", mc.ScenarioError),
    ([1, 2], mc.ScenarioError),
    ({"game": 3}, mc.ScenarioError),
    ({"game": "chess"}, mc.UnknownGameError),
    (_bad(lambda s: s["board"].update(grid="octagon")), mc.ScenarioError),
    (_bad(lambda s: s["board"]["cells"].append({"at": [0, 0]})), mc.BoardError),
    (_bad(lambda s: s["board"].update(cells=[])), mc.BoardError),
    (_bad(lambda s: s["board"]["cells"].append({"at": [5]})), mc.ScenarioError),
    (_bad(lambda s: s["board"]["cells"].append({"at": [5, 5], "cost": "x"})),
     mc.ScenarioError),
    (_bad(lambda s: s["board"]["cells"].append({"at": [5, 5], "cost": -2})),
     mc.ScenarioError),
    (_bad(lambda s: s["board"]["cells"].append({"at": [5, 5], "cost": 1 << 40})),
     mc.LimitError),
    (_bad(lambda s: s["board"]["cells"].append({"at": [5, 5], "height": 10**9})),
     mc.LimitError),
    (_bad(lambda s: s["board"]["cells"].append({"at": [1 << 40, 0]})), mc.LimitError),
    (_bad(lambda s: s["board"]["cells"].append({"at": [5, 5], "colour": "red"})),
     mc.ScenarioError),
    (_bad(lambda s: s["board"]["links"].append({"between": [[0, 0], [9, 9]]})),
     mc.BoardError),
    (_bad(lambda s: s["figures"].append({"id": "c", "team": "x", "at": [9, 9]})),
     mc.PlacementError),
    (_bad(lambda s: s["figures"].append({"id": "c", "team": "x", "at": [2, 0]})),
     mc.PlacementError),
    (_bad(lambda s: s["figures"].append({"id": "c", "team": "x", "at": [0, 0]})),
     mc.PlacementError),
    (_bad(lambda s: s["figures"].append({"id": "a", "team": "x", "at": [2, 0]})),
     mc.ScenarioError),
    (_bad(lambda s: s["query"].update(figure="zz")), mc.QueryError),
    (_bad(lambda s: s["query"].update(budget=-1)), mc.ScenarioError),
    (_bad(lambda s: s["query"].update(budget=2.5)), mc.ScenarioError),
    (_bad(lambda s: s["query"].update(budget="3")), mc.ScenarioError),
    (_bad(lambda s: s["query"].update(budget=True)), mc.ScenarioError),
    (_bad(lambda s: s["query"].update(budget=1 << 40)), mc.LimitError),
    (_bad(lambda s: s["query"].pop("budget")), mc.ScenarioError),
    (_bad(lambda s: s["query"].update(provoke=[[40]])), mc.ScenarioError),
    (_bad(lambda s: s["query"].update(provoke=[[i, 9] for i in range(65)])), mc.LimitError),
    (_bad(lambda s: s["query"].update(provoke=[[0, 0]])), mc.PlacementError),
    (_bad(lambda s: s["options"].update(max_climb=-3)), mc.ScenarioError),
    (_bad(lambda s: s["options"].update(climb_per_level=1 << 30)), mc.LimitError),
    (_bad(lambda s: s.update(figures={"a": 1})), mc.ScenarioError),
    (_bad(lambda s: s.update(extra=1)), mc.ScenarioError),
])
def test_malformed_scenarios_raise_typed_errors(scenario, err):
    with pytest.raises(err):
        mc.solve(scenario)


def random_grid_scenario(seed):
    rng = random.Random(seed)
    grid = rng.choice(["hex", "square4", "square8"])
    cells = [(x, y) for x in range(rng.randint(2, 7)) for y in range(rng.randint(1, 6))
             if rng.random() < 0.85]
    if not cells:
        cells = [(0, 0)]
    rng.shuffle(cells)
    spec_cells = []
    for c in cells:
        d = {"at": list(c)}
        if rng.random() < 0.5:
            d["cost"] = rng.choice([-1, 0, 1, 2, 3])
        if rng.random() < 0.4:
            d["height"] = rng.randint(0, 3)
        if rng.random() < 0.15:
            d["stop"] = True
        spec_cells.append(d)
    links = []
    for _ in range(rng.choice([0, 0, 1, 2])):
        a, b = rng.sample(cells, 2) if len(cells) > 1 else (cells[0], cells[0])
        if a != b:
            links.append({"between": [list(a), list(b)], "cost": rng.randint(0, 3)})
    free = [c for c, d in zip(cells, spec_cells) if d.get("cost", 1) >= 0]
    rng.shuffle(free)
    figures = []
    for i, c in enumerate(free[: rng.randint(1, max(1, min(5, len(free))))]):
        figures.append({"id": f"f{i}", "team": rng.choice(["red", "blue"]), "at": list(c)})
    if not figures:
        return None
    taken = {tuple(f["at"]) for f in figures}
    tokens = [list(c) for c in cells if c not in taken and rng.random() < 0.06]
    opts = {"climb_per_level": rng.choice([0, 1, 2]), "climb_flat": rng.choice([0, 1]),
            "max_climb": rng.choice([None, 1, 2])}
    return {"game": "grid", "board": {"grid": grid, "cells": spec_cells, "links": links},
            "options": opts, "figures": figures,
            "query": {"figure": "f0", "budget": rng.randint(0, 8), "paths": True,
                      "provoke": tokens}}


def scenario_to_spec(s):
    cells = [tuple(c["at"]) for c in s["board"]["cells"]]
    idx = {c: i for i, c in enumerate(cells)}
    n = len(cells)
    mover = s["figures"][0]
    occupant = [None] * n
    for f in s["figures"][1:]:
        occupant[idx[tuple(f["at"])]] = 0 if f["team"] == mover["team"] else 1
    blocked = [False] * n
    zoc = [0] * n
    dirs = {"hex": [(1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)],
            "square4": [(1, 0), (0, 1), (-1, 0), (0, -1)]}
    dirs["square8"] = dirs["square4"] + [(1, 1), (-1, 1), (-1, -1), (1, -1)]
    for bit, t in enumerate(s["query"]["provoke"]):
        blocked[idx[tuple(t)]] = True
        for dx, dy in dirs[s["board"]["grid"]]:
            j = idx.get((t[0] + dx, t[1] + dy))
            if j is not None:
                zoc[j] |= 1 << bit
    o = s["options"]
    spec = dict(kind=s["board"]["grid"], coords=cells,
                cost=[c.get("cost", 1) for c in s["board"]["cells"]],
                height=[c.get("height", 0) for c in s["board"]["cells"]],
                stop=[c.get("stop", False) for c in s["board"]["cells"]],
                blocked=blocked, no_end=[False] * n, occupant=occupant,
                links=[(idx[tuple(ln["between"][0])], idx[tuple(ln["between"][1])],
                        ln["cost"], 0, True) for ln in s["board"]["links"]],
                edges={}, team=0, allies="pass", enemies="block",
                climb_per_level=o["climb_per_level"], climb_flat=o["climb_flat"],
                max_climb=o["max_climb"], descend_per_level=0, link_kinds=None,
                corner_cutting=True, zoc=zoc, leave=None, enter_pen=None, leave_weight=1,
                max_penalty=0)
    return spec, idx[tuple(mover["at"])]


def test_solve_grid_matches_oracle():
    checked = 0
    for seed in range(1500):
        s = random_grid_scenario(seed)
        if s is None:
            continue
        spec, start = scenario_to_spec(s)
        res = mc.solve(json.loads(json.dumps(s)))
        want = oracle_reach(spec, [start], s["query"]["budget"])
        got = {tuple(e["at"]): (e["cost"], e["stopped"]) for e in res["ends"]}
        assert got == {spec["coords"][c]: (w["cost"], w["stopped"])
                       for c, w in want.items()}, seed
        costs = [e["cost"] for e in res["ends"]]
        assert costs == sorted(costs)
        for e in res["ends"]:
            assert e["path"][0] == s["figures"][0]["at"] and e["path"][-1] == e["at"]
        checked += 1
    assert checked > 1000


def test_cli_solve_and_errors(tmp_path):
    s = grid_scenario()
    s["figures"].pop()
    f = tmp_path / "s.json"
    f.write_text(json.dumps(s))
    out = subprocess.run([sys.executable, "-m", "movecore", "solve", str(f), "--paths"],
                         capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == mc.solve(dict(s, query=dict(s["query"], paths=True)))
    bad = subprocess.run([sys.executable, "-m", "movecore", "solve", "-"], input="{",
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "ScenarioError" in bad.stderr
    missing = subprocess.run([sys.executable, "-m", "movecore", "solve",
                              str(tmp_path / "nope.json")], capture_output=True, text=True)
    assert missing.returncode == 2 and "cannot read" in missing.stderr


def test_every_bundled_example_solves():
    from movecore.tools.cli import example_paths
    paths = example_paths()
    assert any(p.name.startswith("grid_") for p in paths)
    for p in paths:
        res = mc.solve(p.read_text())
        assert isinstance(res, dict)


def test_reach_many_from_two_python_threads_on_one_board():
    b = mc.Board.square(24, 24, neighbours=8, terrain=np.arange(576) % 3)
    m = mc.Mover(terrain_cost=[1, 2, -1])
    starts = [i for i in range(576) if i % 3 != 2]
    want = mc.reach_many(b, m, starts, 6)
    got, errors = {}, []

    def work(k):
        try:
            for _ in range(5):
                r = mc.reach_many(b, m, starts, 6)
                assert (r.cells == want.cells).all() and (r.costs == want.costs).all()
            got[k] = True
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)
    ths = [threading.Thread(target=work, args=(k,)) for k in range(2)]
    for t in ths:
        t.start()
    for t in ths:
        t.join()
    assert not errors and got == {0: True, 1: True}


def test_deeply_nested_json_is_a_scenario_error():
    with pytest.raises(mc.ScenarioError):
        mc.solve("[" * 100000 + "]" * 100000)


@pytest.mark.parametrize("penalties", [False, True])
def test_reach_many_grows_its_output_arena(penalties):
    # three queries reaching the whole 60x60 board overflow the initial arena
    # (64 rows per query + slack): the batch must grow it and still agree with reach
    b = mc.Board.square(60, 60)
    extra = {"enter_penalty": np.zeros(3600, np.int32), "max_penalty": 1} if penalties \
        else {}
    starts = [0, 1830, 3599]
    batch = mc.reach_many(b, mc.Mover(), starts, 200, threads=2, **extra)
    for i, s in enumerate(starts):
        assert len(batch[i][0]) == 3600
        assert batch[i][1].tolist() == mc.reach(b, mc.Mover(), s, 200, **extra).costs.tolist()


def test_version_is_the_installed_distributions():
    from importlib.metadata import version

    from movecore.tools.cli import main
    assert mc.__version__ == version("movecore")
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0


def test_terrain_id_past_the_cost_table_is_a_typed_error():
    """A terrain id the mover has no cost for is refused, naming the id and the table
    size (it used to read as 'cannot enter': a silent wrong answer); -1 stays the way to
    say 'cannot enter'."""
    board = mc.Board.hex([(0, 0), (1, 0), (2, 0)], terrain=[0, 1, 0])
    for call in (lambda m: mc.reach(board, m, (0, 0), 3),
                 lambda m: mc.prepare(board, m, 3),
                 lambda m: mc.reach_many(board, m, [0], 3),
                 lambda m: mc.distance_field(board, m, [0])):
        with pytest.raises(mc.QueryError, match=r"terrain id 1 .*1 entries"):
            call(mc.Mover(terrain_cost=[1]))
    assert mc.reach(board, mc.Mover(terrain_cost=[1, -1]), (0, 0), 3).cells.tolist() == [0]
