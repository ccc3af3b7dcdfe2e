"""Tiny Epic Tactics live positions: seeded random play from every bundled example (moves,
via moves, several Move actions, knock backs, solo moves, removals, additions, new turns)
checked after every step against ``solve()`` of the scenario rebuilt from scratch and
against the module's reference implementation; batches, copies and typed errors."""
from __future__ import annotations

import json
import random
from importlib import resources

import numpy as np
import pytest

import movecore as mc
from movecore.games import tiny_epic_tactics as tet

GAME = "tiny_epic_tactics"


def examples():
    root = resources.files("movecore") / "examples"
    return sorted((p.name, json.loads(p.read_text(encoding="utf-8")))
                  for p in root.iterdir() if p.name.startswith(GAME + "_"))


EXAMPLES = examples()


def outcome(fn):
    """The answer of ``fn()``, or the type of the error it raised."""
    try:
        return fn()
    except mc.MovecoreError as exc:
        return type(exc)


def check(pos, fid, q, reference=True):
    """legal_moves / pos.solve of ``fid`` equal solve() (and the reference) of the
    scenario rebuilt from the position."""
    key = "target" if q.get("type") == "knock_back" else "figure"
    full = {key: fid, **q}
    scen = pos.to_scenario(full)
    want = outcome(lambda: mc.solve(scen))
    got = outcome(lambda: pos.solve(full))
    assert got == want, (fid, q)
    m = outcome(lambda: pos.legal_moves(fid, **q))
    if isinstance(want, dict):
        dicts = m.to_dicts()
        if "ends" in want:
            assert dicts == want["ends"], (fid, q)
            assert m.actions.tolist() == [pos.board.find(tuple(e["at"]))
                                          for e in want["ends"]]
            assert m.costs.tolist() == [e["cost"] for e in want["ends"]]
            assert m.columns["ballista"].tolist() == [int(e["ballista"])
                                                       for e in want["ends"]]
            assert not m.stop.any() and not m.penalty.any()
        else:
            assert dicts == [next(iter(want.values()))]
        if reference:
            assert tet.reference_solve(scen) == want, (fid, q)
    else:
        assert m is want, (fid, q)
    return m


def random_query(rng, pos, fid):
    """A move query for ``fid``: plain most of the time, else paths / via / actions."""
    q = {"budget": rng.randint(0, 7)}
    r = rng.random()
    if len(pos.team_figures(pos.side_of(fid))) == 1 and r < 0.5:
        q["actions"] = rng.randint(1, 3)
    elif r < 0.15:
        q["paths"] = True
    elif r < 0.3:
        villages = [c for c in range(pos.board.n_cells) if pos.realm.is_village(c)]
        if villages:
            q["via"] = list(pos.board.coord(rng.choice(villages)))
            q["budget"] = rng.randint(3, 10)
    return q


def play(name, scen, seed, steps):
    rng = random.Random(seed)
    pos = mc.position(scen)
    added = 0
    for step in range(steps):
        figs = pos.figures
        if len(figs) < 2:
            pos.add_figure(f"new{added}", rng.choice(["red", "blue"]),
                           rng.choice(np.flatnonzero(pos.occ == -1).tolist()))
            added += 1
            continue
        r = rng.random()
        fid = rng.choice(figs)
        if r < 0.04:
            pos.remove_figure(fid)
            moved = rng.choice(pos.figures)
        elif r < 0.08:
            free = np.flatnonzero(pos.occ == -1).tolist()
            pos.add_figure(f"new{added}", rng.choice(["red", "blue", "green"]),
                           rng.choice(free))
            moved = f"new{added}"
            added += 1
        elif r < 0.2:
            pos.new_turn()
            moved = fid
        elif r < 0.26:
            q = {"type": "knock_back", "distance": rng.randint(0, 4),
                 "direction": rng.choice("NESW")}
            m = check(pos, fid, q, reference=False)
            pos.apply_move(fid, int(m.actions[0]), **q)
            moved = fid
        elif r < 0.31:
            q = {"type": "solo", "budget": rng.randint(0, 6), "compass": rng.choice("NESW")}
            if rng.random() < 0.3:
                q["range"] = rng.randint(1, 3)
            if rng.random() < 0.3:
                q["climb"] = True
            m = check(pos, fid, q, reference=step % 2 == 0)
            if isinstance(m, mc.Moves):
                pos.apply_move(fid, int(m.actions[0]), **q)
            moved = fid
        else:
            q = random_query(rng, pos, fid)
            m = check(pos, fid, q)
            if isinstance(m, mc.Moves) and len(m):
                pos.apply_move(fid, int(m.actions[rng.randrange(len(m))]), **q)
            moved = fid
        if moved in pos.figures:
            check(pos, moved, random_query(rng, pos, moved), reference=step % 3 == 0)
        others = pos.figures
        check(pos, rng.choice(others), {"budget": rng.randint(0, 6)}, reference=False)
    return pos


@pytest.mark.parametrize("name,scen", EXAMPLES, ids=[n for n, _ in EXAMPLES])
def test_random_play_matches_solve(name, scen):
    for seed in range(2):
        play(name, scen, seed, 110)


def test_side_batch_equals_one_by_one():
    rng = random.Random(5)
    for name, scen in EXAMPLES:
        pos = mc.position(scen)
        for step in range(40):
            side = rng.choice(pos.sides)
            budget = rng.randint(0, 7)
            batch = pos.legal_moves_side(side, budget=budget)
            for fid, m in batch.items():
                one = pos.legal_moves(fid, budget=budget)
                assert m.actions.tolist() == one.actions.tolist()
                assert m.costs.tolist() == one.costs.tolist()
                assert m.columns["ballista"].tolist() == one.columns["ballista"].tolist()
                assert m.to_dicts() == one.to_dicts()
            assert set(batch) <= set(pos.team_figures(side))
            free = [f for f in pos.figures if pos.moved(f) == 0]
            if not free or rng.random() < 0.2:
                pos.new_turn()
                continue
            fid = rng.choice(free)
            m = pos.legal_moves(fid, budget=budget)
            pos.apply_move(fid, int(m.actions[rng.randrange(len(m))]), budget=budget)


def test_ballista_starter_in_a_batch():
    s = {"game": GAME, "board": {"width": 4, "height": 1, "terrain": ["b..."]},
         "figures": [{"id": "a", "team": 1, "at": [0, 0]},
                     {"id": "b", "team": 1, "at": [3, 0]}]}
    pos = mc.position(s)
    side = pos.legal_moves_side(1, budget=3)
    assert side["a"].coords.tolist() == [[0, 0], [1, 0], [2, 0]]
    assert side["b"].coords.tolist() == [[3, 0], [2, 0], [1, 0]]   # an ally on (0, 0)
    assert side["a"].columns["ballista"].tolist() == [1, 0, 0]
    pos.apply_move("a", (1, 0), budget=3)
    # "a" began its turn on the ballista: it may not come back this turn
    pos.remove_figure("b")   # now the only unit: two more Move actions
    assert pos.legal_moves("a", budget=3).coords.tolist() == [[1, 0], [2, 0], [3, 0]]
    assert pos.to_scenario()["figures"][0]["turn_start"] == [0, 0]
    pos.new_turn()
    assert [0, 0] in pos.legal_moves("a", budget=3).coords.tolist()


def test_turns_villages_and_actions():
    s = {"game": GAME, "board": {"width": 6, "height": 1, "terrain": [".v..v."]},
         "figures": [{"id": "a", "team": 1, "at": [0, 0]},
                     {"id": "b", "team": 1, "at": [5, 0]},
                     {"id": "x", "team": 2, "at": [3, 0]}],
         "query": {"figure": "a", "budget": 2}}
    pos = mc.position(s)
    pos.apply_move("a", (2, 0))                       # default budget 2, heals at (1, 0)
    assert pos.moved("a") == 1 and pos.villages_used("a") == [(1, 0)]
    with pytest.raises(mc.QueryError, match="took its Move action"):
        pos.legal_moves("a")
    with pytest.raises(mc.QueryError):
        pos.apply_move("a", (1, 0))
    pos.remove_figure("b")                            # the last unit: 2 actions left
    assert pos.legal_moves("a", budget=1).coords.tolist() == [[2, 0], [1, 0]]
    with pytest.raises(mc.QueryError, match="at most 2 more"):
        pos.legal_moves("a", budget=1, actions=3)
    with pytest.raises(mc.QueryError, match="already used"):
        pos.legal_moves("a", budget=4, via=[1, 0])
    m = pos.legal_moves("a", budget=1, actions=2)
    assert m.columns["actions"].tolist() == [0, 1, 2]
    assert m.to_dicts()[1] == {"at": [1, 0], "cost": 1, "villages": [], "ballista": False,
                               "actions": 1}
    scen = pos.to_scenario({"figure": "a", "budget": 1, "actions": 2})
    assert scen["figures"][0] == {"id": "a", "team": 1, "at": [2, 0], "moved": 1,
                                  "turn_start": [0, 0], "villages_used": [[1, 0]]}
    assert mc.solve(scen)["ends"] == m.to_dicts()
    pos.apply_move("a", (0, 0), budget=1, actions=2)
    assert pos.moved("a") == 3 and pos.villages_used("a") == [(1, 0)]
    with pytest.raises(mc.QueryError):
        pos.legal_moves("a", budget=1)
    # a Move of the other team starts a new turn
    pos.apply_move("x", (4, 0), budget=1)
    assert pos.moved("a") == 0 and pos.villages_used("a") == []
    assert pos.moved("x") == 1 and pos.villages_used("x") == [(4, 0)]
    assert pos.legal_moves("a", budget=1, actions=3).to_dicts()[1]["villages"] == [[1, 0]]


def test_copy_is_independent():
    name, scen = EXAMPLES[2]
    pos = mc.position(scen)
    before = {f: pos.legal_moves(f, budget=4).to_dicts() for f in pos.figures}
    twin = pos.copy()
    fid = twin.figures[0]
    m = twin.legal_moves(fid, budget=4)
    twin.apply_move(fid, int(m.actions[-1]), budget=4)
    twin.remove_figure(twin.figures[-1])
    twin.add_figure("spare", "blue", (0, 0))
    assert {f: pos.legal_moves(f, budget=4).to_dicts() for f in pos.figures} == before
    assert pos.moved(fid) == 0 and "spare" not in pos.figures
    after = {f: twin.legal_moves(f, budget=4).to_dicts() for f in twin.figures
             if twin.moved(f) == 0}
    other = pos.figures[1]
    m = pos.legal_moves(other, budget=4)
    pos.apply_move(other, int(m.actions[-1]), budget=4)
    assert {f: twin.legal_moves(f, budget=4).to_dicts() for f in twin.figures
            if twin.moved(f) == 0} == after


def test_errors_leave_the_position_unchanged():
    name, scen = EXAMPLES[2]
    pos = mc.position(scen)

    def answers():
        return ({f: pos.legal_moves(f, budget=5).to_dicts() for f in pos.figures},
                pos.to_scenario())

    before = answers()
    version = pos.version
    with pytest.raises(mc.IllegalMoveError):
        pos.apply_move("knight", (13, 9), budget=4)          # out of reach
    with pytest.raises(mc.IllegalMoveError):
        pos.apply_move("knight", (5, 2), budget=4)           # an ally stands there
    with pytest.raises(mc.QueryError):
        pos.apply_move("dragon", (4, 4), budget=4)           # unknown unit
    with pytest.raises(mc.QueryError):
        pos.legal_moves("dragon", budget=4)
    with pytest.raises(mc.QueryError):
        pos.apply_move("knight", (40, 4), budget=4)          # off the map
    with pytest.raises(mc.QueryError):
        pos.apply_move("knight", (4, 4), budget=4, actions=2)  # not the last unit
    with pytest.raises(mc.PlacementError):
        pos.add_figure("spare", "red", (5, 2))               # the space is taken
    with pytest.raises(mc.PlacementError):
        pos.add_figure("knight", "red", (0, 0))              # already in play
    with pytest.raises(mc.QueryError):
        pos.remove_figure("dragon")
    with pytest.raises(mc.MovecoreError):
        pos.legal_moves("knight", budget=-1)
    with pytest.raises(mc.MovecoreError):
        pos.legal_moves("knight", budget=4, speed=2)
    with pytest.raises(mc.QueryError):
        pos.legal_moves("knight", budget=4, via=[5, 2])      # not a village
    assert pos.version == version
    assert answers() == before
    pos.apply_move("knight", (4, 3), budget=4)
    with pytest.raises(mc.QueryError):                       # a second Move action
        pos.apply_move("knight", (4, 4), budget=4)
    assert pos.where("knight") == (4, 3)


def test_scenario_turn_keys_are_checked():
    name, scen = EXAMPLES[2]
    figs = scen["figures"]
    bad = [dict(figs[0], turn_start=[0, 0])] + figs[1:]          # moved is 0
    with pytest.raises(mc.ScenarioError):
        mc.position(dict(scen, figures=bad))
    bad = [dict(figs[0], moved=1), dict(figs[3], moved=1)] + figs[1:3] + figs[4:]
    with pytest.raises(mc.ScenarioError, match="one team"):
        mc.position(dict(scen, figures=bad))
    bad = [dict(figs[0], moved=1, villages_used=[[0, 0]])] + figs[1:]
    with pytest.raises(mc.ScenarioError, match="not a village"):
        mc.position(dict(scen, figures=bad))
    with pytest.raises(mc.MovecoreError):
        mc.position(dict(scen, figures=[dict(figs[0], moved=4)] + figs[1:]))


def test_moves_arrays_and_mask():
    name, scen = EXAMPLES[2]
    pos = mc.position(scen)
    m = pos.legal_moves("knight")                     # the scenario's budget, 4
    pos = mc.position(dict(EXAMPLES[0][1]))           # the knock back example
    with pytest.raises(mc.ScenarioError, match="budget"):
        pos.legal_moves("knight")                     # its query gives no budget
    m = pos.legal_moves("knight", budget=4)
    assert m.actions.dtype == np.int32 and m.costs.dtype == np.int32
    assert m.mask.shape == (pos.n_actions("knight"),) == (140,)
    assert m.mask.sum() == len(m)
    assert m.coords.tolist() == [e["at"] for e in m.to_dicts()]
    kb = pos.legal_moves("troll", type="knock_back", attacker="knight", distance=3)
    assert pos.STOP_REASONS[int(kb.stop[0])] == kb.to_dicts()[0]["stopped_by"]
    pos.apply_move("troll", int(kb.actions[0]), type="knock_back", attacker="knight",
                   distance=3)
    assert pos.where("troll") == tuple(kb.to_dicts()[0]["at"])
    assert pos.moved("troll") == 0


def test_docstring_examples():
    import doctest
    from movecore.games.tiny_epic_tactics import position as mod
    failed, tried = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
    assert failed == 0 and tried > 0


def test_touching_and_sides_agree_with_the_base_class():
    from movecore.position import Position as Base
    rng = random.Random(3)
    for name, scen in EXAMPLES:
        pos = mc.position(scen)
        for step in range(30):
            for f in pos.figures:
                assert pos.touching(f) == Base.touching(pos, f), (name, f)
            assert pos.sides == Base.sides.fget(pos)
            fid = rng.choice(pos.figures)
            if pos.moved(fid):
                pos.new_turn()
            m = pos.legal_moves(fid, budget=5)
            pos.apply_move(fid, int(m.actions[rng.randrange(len(m))]), budget=5)
