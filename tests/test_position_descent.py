"""Descent live positions: after every step of seeded random sequences (moves, some
through closed doors, doors opened and closed, rune keys, revealed areas, figures removed
and added back), the incrementally updated position answers exactly as a position
rebuilt from scratch (``solve()`` of ``to_scenario()``): ends, costs, MP left, wounds,
stops, doors opened, pits, paths. Plus copies, typed errors, batches and the arrays."""
from __future__ import annotations

import json
import pathlib
import random

import numpy as np
import pytest

import movecore as mc
from movecore.games import descent
from movecore.games.descent import position as descent_position

EXAMPLES = sorted((pathlib.Path(mc.__file__).parent / "examples").glob("descent_*.json"))
HERO_RUN = next(p for p in EXAMPLES if p.name == "descent_hero_run.json")
OGRE = next(p for p in EXAMPLES if p.name == "descent_ogre.json")

# A dungeon with what the examples lack: heroes with aura and grapple, ice that stops,
# a door that leads to an unrevealed area, a 2x1 and a 2x3 monster, a flying hero, a
# pit row to jump, trees and stairs, and no glyphs (no town).
ARENA = {
    "game": "descent",
    "board": {
        "rows": ["....#.....",
                 ".ii.#..t..",
                 ".pp.......",
                 "....#..p..",
                 "..t.#.....",
                 "....#..w.."],
        "walls": [[[5, 1], [6, 1]], [[2, 3], [2, 4]]],
        "doors": [{"id": "gate", "sides": [[[3, 2], [4, 2]]],
                   "leads_to_unrevealed": True},
                  {"id": "rune", "sides": [[[5, 3], [5, 4]], [[6, 3], [6, 4]]],
                   "rune": "blue"}],
        "stairs": [[[0, 0], [9, 5]]]},
    "options": {"corner_cutting": True, "ice": "stop"},
    "party": {"rune_keys": []},
    "figures": [
        {"id": "Jain", "side": "hero", "at": [0, 3], "speed": 4,
         "abilities": [{"aura": 2}]},
        {"id": "Tomble", "side": "hero", "at": [3, 0], "speed": 3,
         "abilities": ["grapple", "fly"]},
        {"id": "beast", "side": "monster", "at": [6, 0], "speed": 4, "footprint": "2x1"},
        {"id": "giant", "side": "monster", "at": [8, 0], "speed": 3, "footprint": "2x3",
         "abilities": ["grapple"]},
        {"id": "imp", "side": "monster", "at": [5, 2], "speed": 5},
        {"id": "bat", "side": "monster", "at": [8, 5], "speed": 5,
         "abilities": ["fly", {"aura": 1}]}],
}

# Pit bands that large bases jump (option large_jumps), a dragon and a hound that turn.
PITS = {
    "game": "descent",
    "board": {
        "rows": ["..........",
                 "..........",
                 "pppp..pppp",
                 "pppp..ppii",
                 "..........",
                 "..t.......",
                 ".........."],
        "walls": [[[4, 5], [5, 5]]]},
    "options": {"large_jumps": True},
    "figures": [
        {"id": "ogre", "side": "monster", "at": [0, 0], "speed": 4, "footprint": "2x2"},
        {"id": "hound", "side": "monster", "at": [6, 0], "speed": 5, "footprint": "1x2"},
        {"id": "dragon", "side": "monster", "at": [7, 4], "speed": 4, "footprint": "2x3"},
        {"id": "Jain", "side": "hero", "at": [5, 5], "speed": 4, "abilities": [{"aura": 1}]},
        {"id": "Tomble", "side": "hero", "at": [4, 0], "speed": 4,
         "abilities": ["grapple"]}],
}

RUNES = ("red", "blue", "green")


def _scenarios():
    out = [(p.name, json.loads(p.read_text())) for p in EXAMPLES]
    return out + [("arena", ARENA), ("pits", PITS)]


def _query(rng: random.Random, side: str) -> dict:
    q: dict = {}
    if side == "hero":
        if rng.random() < 0.7:
            q["action"] = rng.choice(["run", "advance", "ready", "battle"])
        else:
            q["mp"] = rng.randint(0, 9)
        if rng.random() < 0.3:
            q["fatigue"] = rng.randint(0, 2)
    elif rng.random() < 0.3:
        q["mp"] = rng.randint(0, 8)
    if rng.random() < 0.25:
        q["paths"] = True
    return q


def _check(pos, fid, query: dict, whole: bool = True):
    """The position's answer equals solve() of its rebuilt scenario, exactly."""
    moves = pos.legal_moves(fid, **query)
    fresh = mc.solve(pos.to_scenario({"figure": fid, **query}))
    ends = moves.to_dicts()
    assert ends == fresh["ends"]
    if whole:
        assert pos.solve({"figure": fid, **query}) == fresh
    # the arrays say what the dicts say
    assert moves.costs.tolist() == [e["cost"] for e in ends]
    assert moves.penalty.tolist() == [e["wounds"] for e in ends]
    assert [pos.STOP_REASONS[s] for s in moves.stop.tolist()] == [e["stop"] for e in ends]
    cols = moves.columns
    assert cols["left"].tolist() == [e["left"] for e in ends]
    assert cols["wounds_cost"].tolist() == [e["wounds_cost"] for e in ends]
    assert cols["in_pit"].tolist() == [int(e["in_pit"]) for e in ends]
    assert cols["doors_opened"].tolist() == [len(e["doors_opened"]) for e in ends]
    xy = moves.coords
    for e, c in zip(ends, xy.tolist()):
        if e["at"] == "town":
            continue
        assert (c if xy.ndim == 2 else c[0]) == e["at"]
        if xy.ndim == 3:
            assert c == e["cells"]
    mask = moves.mask
    town = list(moves.non_moves.values())     # the town: its own action, no move
    assert mask.shape == (pos.n_actions(fid),) and mask.sum() == len(moves) - len(town)
    assert not mask[town].any()
    return moves


def _answers(pos) -> dict:
    """Every figure's ends for a few queries (to see that nothing else changed)."""
    out = {}
    for f in pos.figures:
        q = {"action": "run"} if pos.side_of(f) == "hero" else {}
        out[f] = (pos.where(f), pos.legal_moves(f, **q).to_dicts())
    out["doors"] = pos.doors
    return out


def _end_word(e):
    return e.get("cells", e["at"])


_TURNED: dict = {}     # (scenario name, base squares) -> moves that ended turned


def _play(name: str, scenario: dict, seed: int, steps: int) -> int:
    rng = random.Random(seed)
    pos = mc.position(scenario)
    removed: list = []
    doors = [d["id"] for d in scenario["board"].get("doors", [])]
    checked = 0
    for step in range(steps):
        if step % 97 == 0:
            descent_position._STATICS.clear()     # the next rebuild starts from nothing
        figs = pos.figures
        r = rng.random()
        moved = None
        if r < 0.72 and figs:
            fid = rng.choice(figs)
            q = _query(rng, pos.side_of(fid))
            moves = _check(pos, fid, q)
            checked += 1
            e = rng.choice(moves.to_dicts())
            size = pos.size[pos.index[fid]]
            pos.apply_move(fid, _end_word(e), **q)
            if "cells" in e:         # the base as it ends: turned or not
                now = (len({x for x, _ in e["cells"]}), len({y for _, y in e["cells"]}))
                assert pos.size[pos.index[fid]] == now
                if now != size:
                    k = (name, len(e["cells"]))
                    _TURNED[k] = _TURNED.get(k, 0) + 1
            assert pos.where(fid) == (e["at"] if e["at"] == "town" else tuple(e["at"])
                                      if "cells" not in e else
                                      sorted(map(tuple, e["cells"]), key=lambda c: c[::-1]))
            for d in e["doors_opened"]:
                assert pos.door_is_open(d)
            moved = fid
        elif r < 0.82 and doors:
            d = rng.choice(doors)
            if pos.door_is_open(d):
                try:
                    pos.close_door(d)
                except mc.IllegalMoveError:   # a large monster stands across it
                    assert pos.door_is_open(d)
            else:
                pos.open_door(d)
        elif r < 0.87 and len(figs) > 2:
            fid = rng.choice(figs)
            entry = next(f for f in pos.to_scenario()["figures"] if f["id"] == fid)
            pos.remove_figure(fid)
            removed.append(entry)
        elif r < 0.94 and removed:
            entry = dict(removed.pop(rng.randrange(len(removed))))
            if entry["at"] != "town":
                free = [list(c) for c in pos.st.squares]
                entry["at"] = rng.choice(free)
            try:
                pos.add_figure(entry)
                moved = entry["id"]
            except mc.PlacementError:
                removed.append(entry)
        elif r < 0.97:
            try:
                pos.add_rune_key(rng.choice(RUNES))
            except mc.IllegalMoveError:
                pass
        elif doors:
            try:
                pos.reveal(rng.choice(doors))
            except mc.IllegalMoveError:
                pass
        others = [f for f in pos.figures if f != moved]
        for fid in ([moved] if moved in pos.figures else []) + rng.sample(
                others, min(1, len(others))):
            _check(pos, fid, _query(rng, pos.side_of(fid)), whole=step % 5 == 0)
            checked += 1
    return checked


@pytest.mark.parametrize("name,scenario", _scenarios(), ids=[n for n, _ in _scenarios()])
def test_random_sequences_match_a_rebuilt_position(name, scenario):
    assert _play(name, scenario, seed=7, steps=340) > 450
    if any(f.get("footprint") in ("1x2", "2x1") for f in scenario["figures"]):
        assert _TURNED.get((name, 2), 0) > 3     # turned hell hounds were played
    if any(f.get("footprint") in ("2x3", "3x2") for f in scenario["figures"]):
        assert _TURNED.get((name, 6), 0) > 3     # and turned dragons


def _doorless_arena() -> dict:
    s = json.loads(json.dumps(ARENA))
    s["board"].pop("doors")
    return s


def test_wound_queries_without_paths_or_doors_run_without_a_tree():
    """A penalty query (aura wounds) that asks no path on a graph with no door to open
    runs the lean kernel mode (no search tree); it answers as solve() in random play.
    Paths asked, or a door on the graph, keep the tree."""
    s = _doorless_arena()
    assert _play("doorless", s, seed=3, steps=200) > 250
    pos = mc.position(s)
    m = _check(pos, "imp", {"mp": 8})
    assert m.penalty.max() >= 2 and m._extra.reach._no_tree
    assert not pos.legal_moves("imp", mp=8, paths=True)._extra.reach._no_tree
    pos.apply_move("imp", m.to_dicts()[-1]["at"], mp=8)
    pos = mc.position(ARENA)
    m = pos.legal_moves("Jain", mp=8)
    assert m.penalty.max() >= 2 and not m._extra.reach._no_tree   # the gate is openable
    assert pos.legal_moves("imp", mp=8)._extra.reach._no_tree      # (not by monsters)
    assert pos.legal_moves("giant", mp=3)._extra.reach._no_tree    # a large one too


@pytest.mark.slow
@pytest.mark.parametrize("seed", [11])
def test_more_random_sequences(seed):
    for name, scenario in _scenarios():
        assert _play(name, scenario, seed=seed, steps=120) > 150


def test_bundled_examples_solve_through_the_position():
    for p in EXAMPLES:
        sc = json.loads(p.read_text())
        pos = mc.position(sc)
        assert isinstance(pos, descent.Position)
        assert pos.solve(sc["query"]) == mc.solve(sc)


def test_copies_are_independent():
    pos = mc.position(json.loads(HERO_RUN.read_text()))
    before = _answers(pos)
    cp = pos.copy()
    cp.apply_move("Grisban", (6, 4), action="run")     # through no door
    cp.remove_figure("ogre")
    cp.open_door("oak door")
    assert _answers(pos) == before
    after = _answers(cp)
    pos.remove_figure("skeleton")
    pos.apply_move("Jain", (3, 5), action="advance")
    assert _answers(cp) == after
    assert cp.where("Grisban") == (6, 4) and pos.where("Grisban") == (5, 3)
    assert "ogre" in pos.figures and "ogre" not in cp.figures


def test_errors_are_typed_and_leave_the_position_unchanged():
    pos = mc.position(ARENA)
    before = _answers(pos)
    version = pos.version
    with pytest.raises(mc.IllegalMoveError):
        pos.apply_move("imp", (0, 5))                  # too far
    with pytest.raises(mc.IllegalMoveError):
        pos.apply_move("imp", (4, 0))                  # off the board (a wall square)
    with pytest.raises(mc.IllegalMoveError):
        pos.apply_move("beast", [[6, 0], [7, 1]])      # not its base, nor turned
    with pytest.raises(mc.QueryError):
        pos.legal_moves("nobody")
    with pytest.raises(mc.QueryError):
        pos.apply_move("nobody", (0, 0))
    with pytest.raises(mc.QueryError):
        pos.remove_figure("nobody")
    with pytest.raises(mc.QueryError):
        pos.legal_moves("Jain")                        # a hero needs action or mp
    with pytest.raises(mc.QueryError):
        pos.legal_moves("imp", action="run")           # monsters take no action
    with pytest.raises(mc.QueryError):
        pos.legal_moves("imp", budget=3)               # not a Descent query key
    with pytest.raises(mc.QueryError):
        pos.open_door("no such door")
    with pytest.raises(mc.IllegalMoveError):
        pos.close_door("gate")                         # it is closed
    with pytest.raises(mc.IllegalMoveError):
        pos.reveal("rune")                             # it leads nowhere unrevealed
    with pytest.raises(mc.PlacementError):
        pos.add_figure("x", "monster", [5, 2])         # the imp stands there
    with pytest.raises(mc.PlacementError):
        pos.add_figure("x", "monster", [0, 5], footprint="2x2")  # over the wall line
    with pytest.raises(mc.PlacementError):
        pos.add_figure({"id": "imp", "side": "monster", "at": [0, 5]})  # in play
    with pytest.raises(mc.ScenarioError):
        pos.add_figure("x", "monster", [0, 5], abilities=["teleport"])
    assert pos.version == version and _answers(pos) == before
    # a large monster across an open door: that door cannot close
    pos.open_door("rune")
    pos.add_figure("ogre", "monster", [5, 3], footprint="2x2", speed=3)
    with pytest.raises(mc.IllegalMoveError):
        pos.close_door("rune")
    assert pos.door_is_open("rune")
    pos.remove_figure("ogre")
    pos.close_door("rune")
    assert not pos.door_is_open("rune")


def test_moving_through_a_door_opens_it_and_costs_nothing_afterwards():
    pos = mc.position(json.loads(OGRE.read_text()))     # the ogre example
    ends = {tuple(e["at"]): e for e in pos.legal_moves("ogre").to_dicts()}
    through = next(k for k, e in ends.items() if e["doors_opened"] == ["oak door"])
    assert not pos.door_is_open("oak door")
    pos.apply_move("ogre", through)
    assert pos.door_is_open("oak door") and pos.where("ogre")[0] == through
    assert all(e["doors_opened"] == [] for e in pos.legal_moves("ogre").to_dicts())
    # monsters never open a door to an unrevealed area, nor a rune door
    arena = mc.position(ARENA)
    assert (3, 2) not in [tuple(e["at"]) for e in arena.legal_moves("imp", mp=3).to_dicts()]
    arena.reveal("gate")
    assert any(e["doors_opened"] == ["gate"] for e in arena.legal_moves("imp").to_dicts())
    arena.add_figure("Red", "hero", [5, 3], speed=3)
    assert (5, 4) not in [tuple(e["at"]) for e in arena.legal_moves("Red", mp=3).to_dicts()]
    arena.add_rune_key("blue")        # the party finds the blue key: the rune door opens
    e = next(e for e in arena.legal_moves("Red", mp=3).to_dicts() if e["at"] == [5, 4])
    assert (e["cost"], e["doors_opened"]) == (3, ["rune"])


def test_grapple_aura_and_ice_stops_follow_the_figures():
    pos = mc.position(ARENA)
    # Tomble (grapple) flies through the gate next to the imp: the imp cannot spend MP
    pos.apply_move("Tomble", (4, 2), mp=5)
    assert pos.door_is_open("gate")
    m = pos.legal_moves("imp")
    assert len(m) == 1 and m.stop.tolist() == [descent_position.STOP_GRAPPLED]
    assert m.to_dicts()[0]["stop"] == "grappled"
    pos.apply_move("Tomble", (3, 0), mp=5)
    assert len(pos.legal_moves("imp")) > 1
    # ice stops the move on entry (option ice: "stop")
    e = next(e for e in pos.legal_moves("Tomble", mp=3).to_dicts() if e["at"] == [2, 1])
    assert e["stop"] is None      # fliers ignore ice
    pos.add_figure("walker", "hero", [3, 1], speed=3)
    e = next(e for e in pos.legal_moves("walker", mp=3).to_dicts() if e["at"] == [2, 1])
    assert e["stop"] == "ice"
    # Jain's aura 2 wounds monsters stepping next to her; removing her heals the layer
    moves = pos.legal_moves("imp", mp=8)
    assert moves.penalty.max() >= 2
    pos.remove_figure("Jain")
    assert pos.legal_moves("imp", mp=8).penalty.max() <= 1     # a pit fall at most


def test_side_batches_equal_single_queries():
    pos = mc.position(ARENA)
    pos.remove_figure("bat")                        # no aura on the heroes' side layer
    pos.add_figure("bat2", "hero", [0, 5], speed=4, abilities=["fly"])
    for side, q in (("hero", {"action": "advance"}), ("monster", {}),
                    ("monster", {"mp": 2})):
        batch = pos.legal_moves_side(side, **q)
        assert list(batch) == [f for f in pos.figures if pos.side_of(f) == side]
        for fid, m in batch.items():
            one = pos.legal_moves(fid, **q)
            assert m.actions.tolist() == one.actions.tolist()
            assert m.costs.tolist() == one.costs.tolist()
            assert m.stop.tolist() == one.stop.tolist()
            assert m.to_dicts() == one.to_dicts()
    with pytest.raises(mc.QueryError):
        pos.legal_moves_side("dragons")


def test_actions_town_and_coordinates():
    pos = mc.position(json.loads(HERO_RUN.read_text()))
    n = pos.n_actions("Grisban")
    assert n == len(pos.st.squares) + 1 == pos.n_actions("ogre")
    m = pos.legal_moves("Grisban", action="run", fatigue=1)
    town = pos.action_of("Grisban", "town")
    assert town == n - 1 and not m.mask[town] and m.non_moves == {"town": town}
    assert pos.non_move_actions("Grisban") == {"town": town}
    assert pos.non_move_actions("ogre") == {}
    pos.apply_move("Grisban", "town", action="run", fatigue=1)
    assert pos.where("Grisban") == "town"
    assert pos.to_scenario()["figures"][0]["at"] == "town"
    back = pos.legal_moves("Grisban", mp=1).to_dicts()
    assert [e["at"] for e in back] == ["town", [1, 1], [16, 9]]
    ogre = pos.legal_moves("ogre")
    assert ogre.coords.shape[1:] == (4, 2)
    row = ogre.row([[11, 1], [12, 1], [11, 2], [12, 2]])
    assert ogre.actions[row] == pos.action_of("ogre", (11, 1))


def test_docstring_examples():
    import doctest
    failed, tried = doctest.testmod(descent_position, optionflags=doctest.ELLIPSIS)
    assert failed == 0 and tried > 0


def test_touching_uses_whole_bases_and_not_the_town():
    pos = mc.position(json.loads(HERO_RUN.read_text()))
    assert pos.touching("ogre") == []
    pos.add_figure("Landrec", "hero", [10, 3], speed=4)   # next to (11, 2) of the ogre
    assert pos.touching("ogre") == ["Landrec"] and pos.touching("Landrec") == ["ogre"]
    pos.apply_move("Grisban", "town", action="run", fatigue=1)
    assert pos.touching("Grisban") == []


def test_a_two_square_monster_turns_in_play():
    sc = json.loads(next(p for p in EXAMPLES
                         if p.name == "descent_hell_hound.json").read_text())
    pos = mc.position(sc)
    ns = len(pos.st.squares)
    assert pos.n_actions("hell hound") == 2 * ns + 1
    assert pos.n_actions("Tomble") == ns + 1
    m = pos.legal_moves("hell hound")
    turned = pos.action_of("hell hound", [[3, 0], [3, 1]])
    assert turned == ns + 1 + pos.st.index[(3, 0)] and turned in m.actions.tolist()
    cp = pos.copy()
    cp.apply_move("hell hound", [[3, 0], [3, 1]])              # ends upright
    assert cp.to_scenario()["figures"][0]["footprint"] == "1x2"
    assert pos.to_scenario()["figures"][0]["footprint"] == "2x1"   # the copy only
    back = cp.legal_moves("hell hound")
    assert back.to_dicts() == mc.solve(cp.to_scenario({"figure": "hell hound"}))["ends"]
    # from upright, action NS + 1 + s is the base across (2x1) at square s
    a = cp.action_of("hell hound", [[3, 0], [4, 0]])
    assert a == ns + 1 + pos.st.index[(3, 0)]
    cp.apply_move("hell hound", a)
    assert cp.to_scenario()["figures"][0]["footprint"] == "2x1"
    with pytest.raises(mc.IllegalMoveError):
        cp.action_of("hell hound", 2 * ns + 1)


def test_a_dragon_turns_in_play():
    sc = {"game": "descent",
          "board": {"rows": ["..#####", "..#####", "..#####", ".......", "......."]},
          "figures": [{"id": "dragon", "side": "monster", "at": [0, 0], "speed": 4,
                       "footprint": "2x3"},
                      {"id": "Tomble", "side": "hero", "at": [6, 4], "speed": 4}]}
    pos = mc.position(sc)
    ns = len(pos.st.squares)
    assert pos.n_actions("dragon") == 2 * ns + 1 and pos.n_actions("Tomble") == ns + 1
    m = pos.legal_moves("dragon")
    turned = pos.action_of("dragon", [[0, 3], [1, 3], [2, 3], [0, 4], [1, 4], [2, 4]])
    assert turned == ns + 1 + pos.st.index[(0, 3)] and turned in m.actions.tolist()
    assert m.coords[m.actions.tolist().index(turned)].tolist() == [
        [0, 3], [1, 3], [2, 3], [0, 4], [1, 4], [2, 4]]
    assert m.to_dicts() == mc.solve(dict(sc, query={"figure": "dragon"}))["ends"]
    cp = pos.copy()
    cp.apply_move("dragon", turned)                       # ends turned: 3x2
    assert cp.to_scenario()["figures"][0]["footprint"] == "3x2"
    assert pos.to_scenario()["figures"][0]["footprint"] == "2x3"   # the copy only
    assert cp.where("dragon") == [(0, 3), (1, 3), (2, 3), (0, 4), (1, 4), (2, 4)]
    assert cp.touching("dragon") == []
    back = cp.legal_moves("dragon")
    assert back.to_dicts() == mc.solve(cp.to_scenario({"figure": "dragon"}))["ends"]
    # from 3x2, action NS + 1 + s is the 2x3 base at square s; a list of squares too
    a = cp.action_of("dragon", [[0, 1], [1, 1], [0, 2], [1, 2], [0, 3], [1, 3]])
    assert a == ns + 1 + pos.st.index[(0, 1)]
    cp.apply_move("dragon", [[0, 1], [1, 1], [0, 2], [1, 2], [0, 3], [1, 3]])
    assert cp.to_scenario()["figures"][0]["footprint"] == "2x3"
    with pytest.raises(mc.IllegalMoveError):      # not a base of the dragon
        cp.action_of("dragon", [[0, 0], [1, 0], [2, 0]])
    # never turning: no turned actions, and a turned base is not its base
    none = mc.position(dict(sc, options={"large_turns": "none"}))
    assert none.n_actions("dragon") == ns + 1
    with pytest.raises(mc.IllegalMoveError):
        none.apply_move("dragon", [[0, 3], [1, 3], [2, 3], [0, 4], [1, 4], [2, 4]])
    assert none.to_scenario()["options"]["large_turns"] == "none"


def test_option_large_turns_is_checked():
    sc = {"game": "descent", "board": {"width": 3, "height": 3}, "figures": []}
    for bad in ("sideways", True, 1):
        with pytest.raises(mc.ScenarioError, match="large_turns") as exc:
            mc.position(dict(sc, options={"large_turns": bad}))
        assert repr(bad) in str(exc.value) or str(bad) in str(exc.value)
    d = descent.read_board({"width": 3, "height": 3})
    with pytest.raises(mc.ScenarioError, match="'sideways'"):
        descent.Position(d, [], large_turns="sideways")
    with pytest.raises(mc.ScenarioError, match="large_jumps"):
        mc.position(dict(sc, options={"large_jumps": "yes"}))
    with pytest.raises(mc.ScenarioError, match="'yes'"):
        descent.Position(d, [], large_jumps="yes")


def test_sort_plain_matches_sort_ends():
    """The lean sort of a query with no stop and no penalty equals the general one
    (stop codes 0, penalties 0, penalty costs the costs) over random ends."""
    rng = np.random.default_rng(5)
    none_b, none_i = np.zeros(0, np.bool_), np.zeros(0, np.int32)
    for _ in range(500):
        n = int(rng.integers(1, 60))
        m = int(rng.integers(1, n + 1))
        cells = rng.permutation(n)[:m].astype(np.int32)
        costs = np.sort(rng.integers(0, 6, m)).astype(np.int32)
        rank = rng.permutation(n).astype(np.int32)   # the graphs' rank dtype (T.INDEX)
        grip = np.zeros(n, np.int32)
        ice = np.zeros(n, np.int8)
        a, c, stop, pen, pcost, order = descent_position._sort_ends(
            cells, costs, rank, n, none_b, grip, ice, none_i, none_i)
        a2, c2, order2 = descent_position._sort_plain(cells, costs, rank, n)
        assert a.tolist() == a2.tolist() and c.tolist() == c2.tolist()
        assert order.tolist() == order2.tolist() and pcost.tolist() == c.tolist()
        assert not stop.any() and not pen.any()


def test_query_cache_tells_types_apart():
    # a good query's cached answer must not answer a bad one that compares equal
    # (True == 1, 0 == False)
    pos = mc.position(json.loads((EXAMPLES[0].parent / "descent_hero_run.json").read_text()))
    pos.legal_moves("Grisban", action="run", fatigue=1, paths=False)
    for bad in ({"fatigue": True}, {"paths": 0}):
        q = {"action": "run", "fatigue": 1, "paths": False, **bad}
        with pytest.raises(mc.MovecoreError):
            pos.legal_moves("Grisban", **q)


def test_memory_radius_graphs_share_the_plain_graph():
    # a kind's graph of each door-memory radius reuses the radius-0 graph's placements,
    # step table and step prices; only the memory nodes are its own
    pos = mc.position(json.loads((EXAMPLES[0].parent / "descent_hero_run.json").read_text()))
    m4 = pos.legal_moves("Jain", action="run")          # 10 MP: radius 4
    g4 = m4._extra.g
    assert g4.mem_radius == 4
    g0 = pos.st.kind(g4.key[:4] + (0,))
    assert g4.base0 is g0 and g4.facts is g0.facts and g4.n_base == g0.n_base
    assert g4.slots[:g4.n_base] == g0.slots[:g0.n_base]
    dv = pos._dv[g4.team]
    assert g4.links(dv).results[:g4.n_base] == g0.links(dv).results[:g0.n_base]
    assert g4.n_mem > g0.n_mem
