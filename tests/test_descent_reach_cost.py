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


# ------------------------------------------------------------------ the move's box
def _big_room(rng):
    """A random dungeon (pits, trees, water, rubble, ice, walls, doors, sometimes a
    glyph or stairs) of 10-24 x 10-24 squares, a mover (one-square, 2x1, 2x2 or 2x3, a
    flyer now and then) and up to eight other figures (grapple, aura, large): a
    scenario whose query asks for paths."""
    w, h = rng.randint(10, 24), rng.randint(10, 24)
    chars = "..........ppt#wri"
    rows = [[rng.choice(chars) for _ in range(w)] for _ in range(h)]
    fp = rng.choice(["1x1", "1x1", "2x1", "1x2", "2x2", "2x3"])
    fw, fh = map(int, fp.split("x"))
    ax, ay = rng.randint(0, w - fw), rng.randint(0, h - fh)
    for j in range(fh):
        for i in range(fw):
            rows[ay + j][ax + i] = "."
    rows = ["".join(r) for r in rows]
    on = [(x, y) for y in range(h) for x in range(w) if rows[y][x] in ".tpi"]
    walls, doors, used = [], [], set()
    for _ in range(rng.randint(0, 12)):
        x, y = rng.randrange(w - 1), rng.randrange(h - 1)
        wl = [[x, y], [x + 1, y]] if rng.random() < 0.5 else [[x, y], [x, y + 1]]
        used.add(frozenset(map(tuple, wl)))
        walls.append(wl)
    for k in range(rng.randint(0, 20)):
        x, y = rng.randrange(w - 1), rng.randrange(h - 1)
        side = [[x, y], [x + 1, y]] if rng.random() < 0.5 else [[x, y], [x, y + 1]]
        if frozenset(map(tuple, side)) in used or any(rows[c[1]][c[0]] == "#"
                                                      for c in side):
            continue
        used.add(frozenset(map(tuple, side)))
        doors.append({"id": f"d{k}", "between": side, "open": rng.random() < 0.2,
                      "rune": rng.choice([None, None, "red"]),
                      "leads_to_unrevealed": rng.random() < 0.2})
    board = {"rows": rows, "walls": walls, "doors": doors}
    if rng.random() < 0.15:
        board["glyphs"] = [list(rng.choice(on))]
    if rng.random() < 0.1:
        board["stairs"] = [[list(c) for c in rng.sample(on, 2)]]
    me = {"id": "me", "side": "monster" if fp != "1x1" or rng.random() < 0.5 else "hero",
          "at": [ax, ay], "speed": rng.randint(1, 6), "footprint": fp,
          "abilities": ["fly"] if rng.random() < 0.15 else []}
    figs = [me]
    taken = {(ax + i, ay + j) for i in range(fw) for j in range(fh)}
    for k in range(rng.randint(0, 8)):
        ab = (["grapple"] if rng.random() < 0.3 else []) + \
            ([{"aura": rng.randint(1, 2)}] if rng.random() < 0.3 else [])
        side = rng.choice(["hero", "monster"])
        ffp = rng.choice(["1x1", "1x1", "1x1", "2x1", "2x2"]) if side == "monster" else "1x1"
        x, y = rng.choice(on)
        cells = {(x + i, y + j) for i in range(int(ffp[0])) for j in range(int(ffp[2]))}
        if cells & taken or not cells <= set(on):
            continue
        taken |= cells
        figs.append({"id": f"f{k}", "side": side, "at": [x, y], "speed": 3,
                     "abilities": ab, "footprint": ffp})
    q = {"figure": "me", "mp": rng.randint(1, 7), "paths": True}
    if me["side"] == "hero" and rng.random() < 0.5:
        q = {"figure": "me", "action": rng.choice(["run", "advance", "battle"]),
             "paths": True}
    return {"game": "descent", "board": board, "figures": figs, "query": q,
            "party": {"rune_keys": ["red"] if rng.random() < 0.5 else []},
            "options": {"corner_cutting": rng.random() < 0.8,
                        "ice": rng.choice(["normal", "stop"]),
                        "large_turns": rng.choice(["all", "all", "two_square", "none"]),
                        "large_jumps": rng.random() < 0.5,
                        "hound_slides": rng.random() < 0.3}}


def _pathless(result):
    return [{k: v for k, v in e.items() if k not in ("path", "wounds_path", "doors_opened")}
            for e in result["ends"]]


def _box_against_whole(monkeypatch, seed: bytes, n: int) -> tuple:
    """Solve ``n`` random scenarios (:func:`_big_room`) on the whole dungeon and on the
    move's box (no least board size), compare; returns (scenarios checked, answered on a
    box smaller than the dungeon, answers equal paths and all)."""
    from movecore.games.descent import _window
    from movecore.games.descent import position as P
    boxed = []

    def spy(*args):
        box = real(*args)
        boxed.append(box is not None and len(box[0].terrain) < len(args[0].terrain))
        return box
    real = _window._reach_window
    rng = random.Random(zlib.crc32(seed))
    checked = same_paths = 0
    for _ in range(n):
        sc = _big_room(rng)
        monkeypatch.setattr(_window, "WINDOW_MIN_SQUARES", 1 << 30)
        try:
            whole = mc.solve(sc)
        except (mc.PlacementError, mc.BoardError):
            continue         # (a figure on a wall, a door by a missing square)
        monkeypatch.setattr(_window, "WINDOW_MIN_SQUARES", 0)
        monkeypatch.setattr(_window, "WINDOW_RATIO", 0)
        monkeypatch.setattr(P, "_reach_window", spy)
        got = mc.solve(sc)
        monkeypatch.setattr(P, "_reach_window", real)
        monkeypatch.setattr(_window, "WINDOW_RATIO", 4)
        assert _pathless(got) == _pathless(whole), sc
        for e, w in zip(got["ends"], whole["ends"]):
            assert e["path"][0] == w["path"][0] and e["path"][-1] == w["path"][-1]
            assert len(e["path"]) - 1 <= e["cost"]
        same_paths += got == whole
        checked += 1
    return checked, sum(boxed), same_paths


def test_the_moves_box_answers_as_the_whole_dungeon(monkeypatch):
    # solve() on the box round the mover that its move cannot leave answers as on the
    # whole dungeon: the same ends, costs, wounds, stops, and the same paths (the box
    # searches in the whole dungeon's order: a tree or a door outside it decides it)
    # (30 scenarios; the soak tier's variant below: 60 more)
    checked, boxed, same = _box_against_whole(monkeypatch, b"move box", 30)
    assert checked > 20 and boxed > 12 and same == checked, (checked, boxed, same)


@pytest.mark.slow
def test_the_moves_box_answers_as_the_whole_dungeon_many(monkeypatch):
    checked, boxed, same = _box_against_whole(monkeypatch, b"move box many", 60)
    assert checked > 30 and boxed > 15 and same == checked, (checked, boxed, same)


def test_a_big_board_is_answered_on_the_moves_box(monkeypatch):
    # a 1024 x 1024 room (the most squares a board may have): the position is built on
    # the box the move cannot leave, and answers as the room cut to that box around it
    from movecore.games.descent import position as P
    sizes = []
    real = P._reach_window

    def spy(*args):
        box = real(*args)
        sizes.append(len(box[0].terrain))
        return box
    monkeypatch.setattr(P, "_reach_window", spy)
    figs = [monster("m", [512, 512], 4, footprint="2x1"), hero("h", [514, 513]),
            hero("far", [1000, 1000])]
    q = {"figure": "m", "paths": True}
    big = solve({"width": 1024, "height": 1024}, figs, q)
    assert sizes and sizes[0] < 1000
    monkeypatch.setattr(P, "_reach_window", real)
    small = solve({"cells": [{"at": [x, y]} for x in range(490, 535)
                             for y in range(490, 535)]}, figs[:2], q)
    assert big == small and len(big["ends"]) > 40


def test_solve_on_the_box_reports_the_live_positions_paths():
    # regression: solve() of a board of 16,384 squares or more runs on the move's box; a
    # live position holds the whole dungeon. The ends, costs, wounds and stops agreed but
    # 52 of this flyer's 77 ends reported another path of the same cost: every step in
    # the box costs 1 MP (the kernel ran breadth-first there), the door far outside it
    # gives the whole dungeon a dearer one (cost buckets, which settle ties otherwise).
    board = {"width": 130, "height": 130,
             "doors": [{"id": "far", "between": [[120, 100], [121, 100]]}]}
    figs = [monster("me", [6, 1], 2, abilities=["fly"]), hero("h", [6, 11])]
    q = {"figure": "me", "mp": 5, "paths": True}
    got = solve(board, figs, q)
    live = mc.position({"game": "descent", "board": board, "figures": figs})
    want = live.legal_moves("me", mp=5, paths=True).to_dicts()
    assert len(want) == 77
    assert got["ends"] == want


def test_solve_on_the_box_counts_wounds_as_the_whole_dungeon():
    # regression: an enemy with an aura far outside the box makes the whole position
    # count wounds (its penalty kernel, on cost buckets); the box, without that figure,
    # ran breadth-first: 52 of 77 ends reported another path. The box now keeps the
    # squares round such a figure (out of the move's reach).
    board = {"width": 130, "height": 130}
    for abilities in (["fly"], []):
        figs = [monster("me", [6, 1], 2, abilities=abilities), hero("h", [6, 11]),
                hero("far", [110, 110], abilities=[{"aura": 2}])]
        got = solve(board, figs, {"figure": "me", "mp": 5, "paths": True})
        live = mc.position({"game": "descent", "board": board, "figures": figs})
        want = live.legal_moves("me", mp=5, paths=True).to_dicts()
        assert len(want) == 77 and got["ends"] == want


#: Features placed far outside the move's box (x, y >= 100 on a 130 x 130 board), each
#: of which may make a step of some kind dearer than 1 MP, or not (an open door, a rune
#: door a monster cannot open, water), or make the whole position count wounds.
_FAR = {
    "none": {},
    "door": {"doors": [{"id": "far", "between": [[120, 100], [121, 100]]}]},
    "open door": {"doors": [{"id": "far", "between": [[120, 100], [121, 100]],
                             "open": True}]},
    "rune door": {"doors": [{"id": "far", "between": [[120, 100], [120, 101]],
                             "rune": "red"}]},
    "unrevealed door": {"doors": [{"id": "far", "between": [[110, 120], [111, 120]],
                                   "leads_to_unrevealed": True}]},
    "tree": {"terrain": {"tree": [[115, 115]]}},
    "pit": {"terrain": {"pit": [[101, 125], [102, 125]]}},
    "ice": {"terrain": {"ice": [[125, 101]]}},
    "water": {"terrain": {"water": [[105, 105]]}},
    # enemies with an aura far away: the whole dungeon counts wounds (its penalty kernel)
    "aura": {"figures": [hero("far h", [110, 110], abilities=[{"aura": 2}]),
                         monster("far m", [100, 122], abilities=[{"aura": 1}])]},
}


def _big_board_scenario(rng, far: str) -> dict:
    """A 130 x 130 board (big enough that solve() answers on the move's box) whose
    squares within 24 of the corner are a :func:`_big_room` (a third of the time one
    where every step costs 1 MP: floor, open doors, no aura), with the feature
    ``_FAR[far]`` far from the mover."""
    sc = _big_room(rng)
    if rng.random() < 0.35:      # a plain room near the mover: the box steps all cost 1
        sc["board"]["rows"] = ["".join("." if ch in "ptwri" else ch for ch in row)
                               for row in sc["board"]["rows"]]
        for f in sc["figures"][1:]:      # and no aura near it
            f["abilities"] = [a for a in f["abilities"] if a == "grapple"]
        for d in sc["board"]["doors"]:   # nor a door to open
            d["open"] = True
    rows = sc["board"].pop("rows")
    sc["board"].pop("stairs", None)     # (stairs: answered whole, not on the box)
    board = sc["board"]
    board.update(width=130, height=130, terrain={})
    for y, row in enumerate(rows):
        for x, ch in enumerate(row):
            name = "wall" if ch == "#" else D_CHARS[ch]
            if name != "floor":
                board["terrain"].setdefault("rubble" if name == "wall" else name,
                                            []).append([x, y])
    extra = _FAR[far]
    board["doors"] = board.get("doors", []) + [dict(d) for d in extra.get("doors", [])]
    for name, cells in extra.get("terrain", {}).items():
        board["terrain"].setdefault(name, []).extend(cells)
    sc["figures"] = sc["figures"] + [dict(f) for f in extra.get("figures", [])]
    return sc


D_CHARS = {".": "floor", "w": "water", "r": "rubble", "b": "boulder", "p": "pit",
           "i": "ice", "t": "tree"}


def _solve_against_live(seed: bytes, n: int) -> tuple:
    """``n`` random big-board scenarios (:func:`_big_board_scenario`, each far feature
    in turn): every end of ``solve()`` (on the move's box) equal, path and all, to the
    live position's ``to_dicts()`` (the whole dungeon). Returns (checked, boxed)."""
    from movecore.games.descent import position as P
    real = P._reach_window
    boxed = []

    def spy(*args):
        box = real(*args)
        boxed.append(box is not None)
        return box
    rng = random.Random(zlib.crc32(seed))
    fars = list(_FAR)
    checked = 0
    P._reach_window = spy
    try:
        for i in range(n):
            far = fars[i % len(fars)]
            sc = _big_board_scenario(rng, far)
            try:
                got = mc.solve(sc)
            except (mc.PlacementError, mc.BoardError):
                continue         # (a figure on rubble, a door by a missing square)
            except mc.LimitError:
                got = None       # (the memory of too many doors: so on the whole dungeon)
            live = mc.position({k: v for k, v in sc.items() if k != "query"})
            q = {k: v for k, v in sc["query"].items() if k != "figure"}
            if got is None:
                with pytest.raises(mc.LimitError):
                    live.legal_moves("me", **q)
                continue
            want = live.legal_moves("me", **q).to_dicts()
            assert _pathless(got) == [{k: v for k, v in e.items() if k not in (
                "path", "wounds_path", "doors_opened")} for e in want], (i, far, sc)
            for e, w in zip(got["ends"], want):
                assert e == w, (i, far, e, w)
            checked += 1
    finally:
        P._reach_window = real
    return checked, sum(boxed)


def test_solve_on_a_big_board_lists_the_live_positions_paths():
    # README: a live position's legal_moves(...).to_dicts() is exactly what solve()
    # lists. On a big board solve() answers on the move's box: the paths too must be the
    # whole dungeon's, with and without doors and terrain outside the box.
    # (20 scenarios; the soak tier's variant below: 30 more)
    checked, boxed = _solve_against_live(b"box paths", 20)
    assert checked > 14 and boxed >= checked - 4, (checked, boxed)


@pytest.mark.slow
def test_solve_on_a_big_board_lists_the_live_positions_paths_many():
    checked, boxed = _solve_against_live(b"box paths many", 30)
    assert checked > 17 and boxed >= 0.8 * checked, (checked, boxed)


@pytest.mark.slow
def test_the_largest_board_costs_what_the_move_reaches():
    # regression (issue 33.7): a 1024 x 1024 room (the most squares a board may have)
    # built every kind graph over the whole board: 16 s and 1.5 GiB for a move of 4 MP
    # (traced peak over 1 GiB). On the move's box: the board's squares as read, and
    # little more.
    import tracemalloc
    figs = [monster("m", [512, 512], 4, footprint="2x1"), hero("h", [514, 513]),
            hero("far", [1000, 1000])]
    tracemalloc.start()
    try:
        big = solve({"width": 1024, "height": 1024}, figs, {"figure": "m", "paths": True})
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 300 * 2 ** 20, peak / 2 ** 20
    assert len(big["ends"]) > 100
