"""Descent's door memory costs what the figure can reach (issue 33.7).

A dungeon with more than ``ALL_DOORS_MAX`` doors keeps, per query, the memory of only the
doors a move of its MP can reach from where the figure stands (door-scoped graphs,
``movecore.games.descent._static``). These tests check that the scoped graphs answer
exactly as the graphs that remember every door (ends, costs, wounds, paths and doors
opened, the same tie-breaks), against the brute force of tests/test_descent.py too, and
that doors far from the figure no longer cost anything.
"""
from __future__ import annotations

import random
import zlib

import pytest

import movecore as mc
from test_descent import (_brute_force, _door_line_room, _door_pit_room, _door_room,
                          _rooms_match_brute_force, hero, monster, placements, solve)


@pytest.fixture
def scoped(monkeypatch):
    """Every dungeon door-scoped (even with one door), on static data of its own."""
    from movecore.games.descent import _static
    monkeypatch.setattr(_static, "ALL_DOORS_MAX", 0)
    monkeypatch.setattr(_static, "_STATICS", {})


_EVERY_DOOR_STATICS: dict = {}


def _every_door(scenario: dict) -> dict:
    """``mc.solve(scenario)`` with graphs that remember every door (no door scope),
    on static data of their own."""
    from movecore.games.descent import _static
    saved = _static.ALL_DOORS_MAX, _static._STATICS
    _static.ALL_DOORS_MAX, _static._STATICS = 1 << 30, _EVERY_DOOR_STATICS
    try:
        return mc.solve(scenario)
    finally:
        _static.ALL_DOORS_MAX, _static._STATICS = saved


@pytest.mark.parametrize("fp", ["1x1", "1x2", "2x2", "2x3"])
def test_scoped_rooms_with_doors_match_brute_force(scoped, fp):
    rng = random.Random(zlib.crc32(b"scoped doors " + fp.encode()))
    assert _rooms_match_brute_force(_door_room, rng, fp, 60) > 15


@pytest.mark.parametrize("fp", ["1x1", "2x1"])
def test_scoped_door_line_rooms_match_brute_force(scoped, fp):
    rng = random.Random(zlib.crc32(b"scoped door line " + fp.encode()))
    assert _rooms_match_brute_force(_door_line_room, rng, fp, 80) > 25


@pytest.mark.parametrize("fp", ["1x1", "2x1"])
def test_scoped_door_pit_rooms_match_brute_force(scoped, fp):
    # jumps through doors opened earlier in the move, doors opened in place
    rng = random.Random(zlib.crc32(b"scoped door pits " + fp.encode()))
    checked = 0
    for _ in range(60):
        room = _door_pit_room(rng, fp)
        if room is None:
            continue
        rows, walls, doors, figs = room
        mp = figs[0]["speed"]
        try:
            r = solve({"rows": rows, "walls": walls, "doors": doors}, figs,
                      {"figure": "me", "mp": mp}, options={"large_jumps": True})
        except mc.PlacementError:
            continue
        want = _brute_force(rows, walls, doors, figs, "me", mp, jumps=True, wounds=True)
        assert placements(r, wounds=True) == want, (rows, walls, doors, figs)
        checked += 1
    assert checked > 12


@pytest.mark.parametrize("make", [_door_room, _door_pit_room, _door_line_room])
def test_scoped_answers_equal_every_door_answers(scoped, make):
    # the whole answer, paths and doors opened included: the scoped graph is the
    # every-door graph wherever the move can go, links in the same order
    rng = random.Random(zlib.crc32(b"scoped same " + make.__name__.encode()))
    checked = 0
    for _ in range(40):
        room = make(rng, "1x1" if rng.random() < 0.6 else "2x1")
        if room is None:
            continue
        rows, walls, doors, figs = room
        sc = {"game": "descent", "board": {"rows": rows, "walls": walls, "doors": doors},
              "figures": figs, "options": {"large_jumps": True},
              "query": {"figure": "me", "mp": figs[0]["speed"], "paths": True}}
        try:
            got = mc.solve(sc)
        except mc.PlacementError:
            continue
        assert got == _every_door(sc), sc
        checked += 1
    assert checked > 15


def _doors_board(w, h, rng, n_far, near=(), x_far=40):
    """A w x h room with ``n_far`` one-edge doors at x >= x_far (seeded) and the doors
    ``near`` (one-edge, given by their left square)."""
    spots = rng.sample([(x, y) for x in range(x_far, w - 1) for y in range(h)], n_far)
    doors = [{"id": f"n{k}", "between": [list(c), [c[0] + 1, c[1]]]}
             for k, c in enumerate(near)]
    doors += [{"id": f"f{k}", "between": [[x, y], [x + 1, y]]}
              for k, (x, y) in enumerate(spots)]
    return {"width": w, "height": h, "doors": doors}


def test_many_doors_far_from_the_figure_cost_nothing():
    # regression (issue 33.7): the memory of 700 doors out of the hero's reach was built
    # for every door, whatever the move could reach: LimitError (more than 250,000
    # memory nodes) for a 10 MP move. Now the move sees none of them, and answers as on
    # the board without them (paths apart: a board whose steps all cost 1 MP runs the
    # kernel's breadth-first mode, whose ties between equal paths differ)
    board = _doors_board(120, 60, random.Random(7), 700)
    figs = [hero("h", [5, 30]), monster("m", [9, 33])]
    q = {"figure": "h", "mp": 10, "paths": True}
    got = solve(board, figs, q)
    plain = solve({"width": 120, "height": 60}, figs, q)

    def pathless(r):
        return [{k: v for k, v in e.items() if "path" not in k} for e in r["ends"]]
    assert pathless(got) == pathless(plain) and len(got["ends"]) > 300
    assert [len(e["path"]) for e in got["ends"]] == [len(e["path"]) for e in plain["ends"]]


def test_a_move_through_doors_among_many_is_exact():
    # regression (issue 33.7): the same board with four closed doors within the hero's
    # reach (it opens them, passes them again, and walks beyond) answers exactly as the
    # board with those four doors alone (every door remembered), paths and doors opened
    # included
    near = [(8, 28), (8, 29), (10, 30), (3, 31)]
    board = _doors_board(120, 60, random.Random(7), 700, near=near)
    # wall lines x = 8 | 9 and x = 10 | 11 from top to bottom, doors n0, n1 and n2 in them
    board["walls"] = [[[x, y], [x + 1, y]] for x in (8, 10) for y in range(60)
                      if (x, y) not in near]
    figs = [hero("h", [5, 30]), monster("m", [10, 33])]
    q = {"figure": "h", "mp": 10, "paths": True}
    got = solve(board, figs, q)
    alone = dict(board, doors=board["doors"][:len(near)])
    want = solve(alone, figs, q)
    assert got == want
    opened = {tuple(e["doors_opened"]) for e in got["ends"]}
    assert {("n0",), ("n1",), ("n1", "n2")} <= opened, opened


def test_a_live_position_among_many_doors_stays_exact():
    # a position on a door-scoped dungeon moves, opens doors (apply_move) and closes
    # them; every answer equals the every-door graphs' answer of its scenario
    rng = random.Random(11)
    near = [(x, y) for x in range(2, 22, 5) for y in range(1, 20, 6)]
    board = _doors_board(60, 24, rng, 30, near=near, x_far=30)
    board["walls"] = [[[x, 12], [x, 13]] for x in range(0, 25) if x % 6]
    figs = [hero("h", [1, 2], 3), monster("m", [12, 14], 5), hero("g", [20, 20], 4),
            monster("ogre", [6, 6], 4, footprint="2x2")]
    pos = mc.position({"game": "descent", "board": board, "figures": figs})
    assert pos.st.scoped
    checked = 0
    for step in range(16):
        fid = rng.choice(pos.figures)
        q = {"mp": rng.randint(2, 9), "paths": True}
        moves = pos.legal_moves(fid, **q)
        sc = pos.to_scenario({"figure": fid, **q})
        assert moves.to_dicts() == _every_door(sc)["ends"], (step, fid, q)
        checked += 1
        e = rng.choice(moves.to_dicts())
        pos.apply_move(fid, e.get("cells", e["at"]), **q)
        if step % 7 == 6:
            shut = [d for d, s in pos.doors.items() if s == "open"]
            if shut:
                try:
                    pos.close_door(rng.choice(shut))
                except mc.IllegalMoveError:
                    pass
    assert checked == 16
