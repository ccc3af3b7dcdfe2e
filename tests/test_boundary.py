"""Silent defaults at the public boundary: a value that would read as something else (a
boolean as a cell index, a truthy string as a flag, a misspelt key) is a typed error
naming it, never a different answer."""
from __future__ import annotations

import numpy as np
import pytest

import movecore as mc

B = mc.Board.hex([(0, 0), (1, 0), (2, 0)])


@pytest.mark.parametrize("build", [
    lambda: mc.Board.hex([(0, 0), (True, 0)]),
    lambda: mc.Board.square_cells([(0, 0), (0, True)]),
    lambda: B.extend([(True, 1)]),
])
def test_boolean_coordinates_are_refused(build):
    with pytest.raises(mc.BoardError, match="not booleans"):
        build()


def test_integer_coordinates_still_build():
    assert mc.Board.hex([(0, 0), (1, 0)]).n_cells == 2
    import numpy as np
    assert mc.Board.hex(np.array([[0, 0], [1, 0]])).n_cells == 2


@pytest.mark.parametrize("edge,word", [
    ({"between": [0, 1], "cots": 2}, "cots"),          # a typo left the side as it was
    ({"between": [0, 1], "blocked": "no"}, "blocked"),  # "no" read as blocked
    ({"between": [0, 1], "stop": 1}, "stop"),
    ({"between": [0, 1], "one_way": "yes"}, "one_way"),
])
def test_edge_keys_and_flags_are_checked(edge, word):
    with pytest.raises(mc.BoardError, match=word):
        B.with_edges([edge])


def test_a_blocked_edge_still_blocks():
    walled = B.with_edges([{"between": [0, 1], "blocked": True}])
    assert mc.reach(walled, mc.Mover(), (0, 0), 3).cells.tolist() == [0]


def test_a_one_way_edge_applies_to_its_own_direction_only():
    def costs(board, start):
        r = mc.reach(board, mc.Mover(), start, 9)
        return dict(zip(r.cells.tolist(), r.costs.tolist()))
    one = B.with_edges([{"between": [0, 1], "cost": 2, "one_way": True}])
    assert costs(one, 0) == {0: 0, 1: 3, 2: 4} and costs(one, 1) == {1: 0, 0: 1, 2: 1}
    both = B.with_edges([{"between": [0, 1], "cost": 2}])
    assert costs(both, 1) == {1: 0, 0: 3, 2: 1}


@pytest.mark.parametrize("link,err", [
    (mc.Link(0, 2, True), mc.LimitError),        # cost True read as 1
    (mc.Link(True, 2, 1), mc.BoardError),        # cell True read as cell 1
    (mc.Link(0, 2, 1, two_way="no"), mc.BoardError),   # "no" read as two-way
])
def test_link_fields_are_checked(link, err):
    with pytest.raises(err):
        B.with_links([link])


def test_one_way_link_stays_one_way():
    b = mc.Board.hex([(0, 0), (5, 0)]).with_links([mc.Link(0, 1, 1, two_way=False)])
    assert mc.reach(b, mc.Mover(), 0, 2).cells.tolist() == [0, 1]
    assert mc.reach(b, mc.Mover(), 1, 2).cells.tolist() == [1]


# ---------------------------------------------------------------- the query functions
Z = np.zeros(3, np.uint64)
M = mc.Mover()


def _prep(**kw):
    return mc.prepare(B, M, 2, **kw)


# (call, error, the argument the message names): a boolean where a count, a budget or a
# cell is expected reads as 0 or 1 in NumPy and in Python arithmetic; every entry point
# refuses it, naming it
BOOLEAN_SLIPS = [
    (lambda: mc.reach(B, M, 0, 2, leave=Z, max_penalty=True), mc.LimitError, "max_penalty"),
    (lambda: mc.reach(B, M, 0, 2, max_penalty=True), mc.LimitError, "max_penalty"),
    (lambda: mc.reach(B, M, 0, 2, leave=Z, leave_weight=True), mc.LimitError,
     "leave_weight"),
    (lambda: mc.reach(B, M, 0, 2, leave_weight=True), mc.LimitError, "leave_weight"),
    (lambda: mc.reach(B, M, 0, 2, leave_weight=np.True_), mc.LimitError, "leave_weight"),
    (lambda: mc.reach(B, M, 0, True), mc.QueryError, "budget"),
    (lambda: mc.reach(B, M, True, 2), mc.QueryError, "start"),
    (lambda: mc.reach(B, M, True, 2, leave=Z), mc.QueryError, "start"),
    (lambda: mc.reach(B, M, np.True_, 2), mc.QueryError, "start"),
    (lambda: mc.reach(B, M, (True, 0), 2), mc.QueryError, "start"),
    (lambda: mc.reach(B, M, (np.True_, np.False_), 2), mc.QueryError, "start"),
    (lambda: mc.prepare(B, M, 2, leave=Z, max_penalty=True), mc.LimitError, "max_penalty"),
    (lambda: mc.prepare(B, M, 2, enter_penalty=[0, 0, 0], max_penalty=True),
     mc.LimitError, "max_penalty"),
    (lambda: mc.prepare(B, M, 2, leave_weight=True), mc.LimitError, "leave_weight"),
    (lambda: mc.prepare(B, M, True), mc.QueryError, "budget"),
    (lambda: _prep().reach(True), mc.QueryError, "start"),
    (lambda: _prep().reach((np.True_, 0)), mc.QueryError, "start"),
    (lambda: _prep().reach(0, True), mc.QueryError, "budget"),
    (lambda: _prep().reach_many([True]), mc.QueryError, "start"),
    (lambda: _prep().reach_many([0], [True]), mc.QueryError, "budget"),
    (lambda: _prep().reach_many([0], threads=True), mc.QueryError, "threads"),
    (lambda: mc.reach_many(B, M, [0], 2, leave=Z, max_penalty=True), mc.LimitError,
     "max_penalty"),
    (lambda: mc.reach_many(B, M, [0], 2, leave_weight=True), mc.LimitError, "leave_weight"),
    (lambda: mc.reach_many(B, M, [0], 2, threads=True), mc.QueryError, "threads"),
    (lambda: mc.reach_many(B, M, [True], 2), mc.QueryError, "start"),
    (lambda: mc.reach_many(B, M, np.array([True, False]), 2), mc.QueryError, "start"),
    (lambda: mc.reach_many(B, M, [(np.True_, 0)], 2), mc.QueryError, "start"),
    (lambda: mc.reach_many(B, M, [0], True), mc.QueryError, "budgets"),
    (lambda: mc.reach_many(B, M, [0], [True]), mc.QueryError, "budget"),
    (lambda: mc.reach_many(B, M, [0], np.array([True])), mc.QueryError, "budget"),
    (lambda: mc.distance_field(B, M, [0], True), mc.QueryError, "budget"),
    (lambda: mc.distance_field(B, M, [True]), mc.QueryError, "source"),
    (lambda: mc.distance_field(B, M, np.array([True, False, False])), mc.QueryError,
     "source"),
    (lambda: mc.distance_field(B, M, [(np.True_, 0)]), mc.QueryError, "source"),
    (lambda: mc.distance_field(B, M, 1), mc.QueryError, "sources"),
    (lambda: mc.reach(B, M, 0, 2).cost(True), mc.QueryError, "end"),
    (lambda: mc.reach(B, M, 0, 2).path((np.True_, 0)), mc.QueryError, "end"),
    (lambda: mc.Mover(terrain_cost=[True, 2]), mc.QueryError, "terrain_cost"),
    (lambda: mc.Mover(terrain_cost=(1, np.False_)), mc.QueryError, "terrain_cost"),
]


@pytest.mark.parametrize("call,err,name", BOOLEAN_SLIPS)
def test_booleans_are_not_counts_or_cells(call, err, name):
    with pytest.raises(err, match=rf"^{name}\b"):
        call()


def test_the_integers_beside_them_still_answer():
    one = mc.reach(B, M, 0, 2, leave=Z, max_penalty=1, leave_weight=np.int64(1))
    assert one.cells.tolist() == [0, 1, 2]
    assert mc.reach(B, M, np.int64(0), np.int64(1)).cells.tolist() == [0, 1]
    assert sorted(mc.reach(B, M, (np.int64(1), np.int64(0)), 1).cells.tolist()) == [0, 1, 2]
    assert mc.reach(B, M, 0, 1, leave_weight=np.int64(1)).cells.tolist() == [0, 1]
    assert mc.reach_many(B, M, np.array([0, 2]), 1, threads=1).offsets.tolist() == [0, 2, 4]
    assert mc.distance_field(B, M, [(np.int64(0), 0)], np.int64(1)).tolist() == [0, 1, -1]
    assert mc.Mover(terrain_cost=[1, 2]).terrain_cost == [1, 2]
    assert mc.Mover(terrain_cost=np.array([1, 2])).terrain_cost.tolist() == [1, 2]


def test_solve_takes_a_path_object_and_says_when_a_string_is_a_path(tmp_path,
                                                                   monkeypatch):
    """A pathlib.Path is read from its file; a string is JSON text, and one that looks
    like a file name gets a message saying so (not "Expecting value: line 1 column 1")."""
    import json
    from pathlib import Path

    import movecore as mc
    from movecore import examples
    scenario = examples.load("grid_issue_example")
    f = tmp_path / "s.json"
    f.write_text(json.dumps(scenario))
    assert mc.solve(f) == mc.solve(scenario) == mc.solve(json.dumps(scenario))
    assert mc.position(f).figures == ["a", "b"]
    monkeypatch.chdir(tmp_path)
    for given in ("s.json", "missing.json", str(f)):
        with pytest.raises(mc.ScenarioError, match=r"looks like a file path: pass "
                           r"pathlib\.Path\("):
            mc.solve(given)
    with pytest.raises(mc.ScenarioError, match="looks like a file path"):
        mc.position("s.json")
    with pytest.raises(mc.ScenarioError, match="cannot read scenario file 'nope.json'"):
        mc.solve(Path("nope.json"))
    with pytest.raises(mc.ScenarioError, match="not valid JSON"):
        mc.solve("{not json")
