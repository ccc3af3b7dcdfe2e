"""Tiny Epic Tactics adapter: RULES.md 5.3 worked examples, portals, villages (``via``
against brute force over every walk), ballista, knock back, solo compass movement,
random-board differential tests against tests/oracle.py, and typed errors."""
from __future__ import annotations

import copy
import json
import random
from importlib import resources

import pytest

import movecore as mc
from movecore.games import tiny_epic_tactics as tet
from oracle import oracle_reach, path_is_valid

GAME = "tiny_epic_tactics"


def scenario(width, height, figures, query, *, terrain=None, elevation=None, cells=None,
             options=None):
    board = {"width": width, "height": height}
    if terrain is not None:
        board["terrain"] = terrain
    if elevation is not None:
        board["elevation"] = elevation
    if cells is not None:
        board["cells"] = cells
    s = {"game": GAME, "board": board, "figures": figures, "query": query}
    if options is not None:
        s["options"] = options
    return s


def unit(fid, team, at):
    return {"id": fid, "team": team, "at": list(at)}


def ends_of(result):
    return {tuple(e["at"]): e["cost"] for e in result["ends"]}


def move(width, height, at, budget, *, others=(), **kw):
    figs = [unit("me", "red", at)] + [unit(f"o{i}", team, xy)
                                      for i, (team, xy) in enumerate(others)]
    q = {"figure": "me", "budget": budget, "paths": True}
    q.update(kw.pop("query", {}))
    return mc.solve(scenario(width, height, figs, q, **kw))


# ------------------------------------------------------------------ RULES.md 5.3 examples
def test_tet1_no_diagonals():
    r = move(5, 5, (2, 2), 2)
    assert set(ends_of(r)) == {(x, y) for x in range(5) for y in range(5)
                               if abs(x - 2) + abs(y - 2) <= 2}
    assert len(r["ends"]) == 13
    # the flag kept for testing: with diagonals every square of the 5x5 is in reach
    assert len(move(5, 5, (2, 2), 2, options={"diagonals": True})["ends"]) == 25


def test_tet3_stacked_boxes_cost_one_extra():
    up = move(2, 1, (0, 0), 5, elevation=["02"])
    assert ends_of(up)[(1, 0)] == 2
    down = move(2, 1, (1, 0), 5, elevation=["02"])
    assert ends_of(down)[(0, 0)] == 1
    # a single level costs the same +1
    assert ends_of(move(2, 1, (0, 0), 5, elevation=["01"]))[(1, 0)] == 2


def test_tet4_water():
    r = move(3, 1, (0, 0), 5, terrain=[".~."])
    assert ends_of(r)[(1, 0)] == 2 and ends_of(r)[(2, 0)] == 3  # leaving water is free
    box = move(2, 1, (0, 0), 5, terrain=[".~"], elevation=["01"])
    assert ends_of(box)[(1, 0)] == 3   # 1 + water + climb: the surcharges stack


def test_tet5_peak_on_a_box():
    r = move(2, 1, (0, 0), 5, terrain=[".^"], elevation=["12"])
    assert ends_of(r)[(1, 0)] == 3
    down = move(2, 1, (0, 0), 5, terrain=["^."], elevation=["10"])
    assert ends_of(down)[(1, 0)] == 1


def test_tet7_ballista_entry_and_no_reentry():
    r = move(2, 1, (0, 0), 5, terrain=[".b"])
    assert ends_of(r)[(1, 0)] == 2
    assert [e["ballista"] for e in r["ends"]] == [False, True]
    # started on the ballista: may move off, may stay, may not come back this turn
    start_on = move(4, 1, (1, 0), 6, terrain=["vb.."])
    assert ends_of(start_on) == {(1, 0): 0, (0, 0): 1, (2, 0): 1, (3, 0): 2}
    via = move(4, 1, (1, 0), 9, terrain=["vb.."], query={"via": [0, 0]})
    assert ends_of(via) == {(0, 0): 1}   # coming back east would re-enter the ballista
    # a unit that did not start there may cross it as often as it likes
    passing = move(4, 1, (2, 0), 9, terrain=["vb.."], query={"via": [0, 0]})
    assert ends_of(passing) == {(0, 0): 3, (1, 0): 5, (2, 0): 6, (3, 0): 7}


def test_tet8_knock_back_falls_and_stops_at_a_cliff():
    base = dict(elevation=["1102"])
    figs = [unit("att", "red", (0, 0)), unit("tgt", "blue", (1, 0))]
    q = {"type": "knock_back", "target": "tgt", "attacker": "att", "distance": 2}
    kb = mc.solve(scenario(4, 1, figs, q, **base))["knock_back"]
    assert kb["at"] == [2, 0] and kb["fell"] and kb["health_lost"] == 1
    assert kb["stopped_by"] == "cliff" and kb["moved"] == 1 and kb["direction"] == "E"
    kb = mc.solve(scenario(4, 1, figs, q, elevation=["1100"]))["knock_back"]
    assert kb["at"] == [3, 0] and kb["fell"] and kb["health_lost"] == 0
    assert kb["stopped_by"] is None and kb["path"] == [[1, 0], [2, 0], [3, 0]]


def test_tet9_solo_enemy_stops_next_to_your_unit():
    figs = [unit("ogre", "solo", (0, 0)), unit("hero", "me", (4, 0)),
            unit("archer", "me", (2, 1))]
    q = {"type": "solo", "figure": "ogre", "budget": 4, "compass": "E", "target": "hero"}
    s = mc.solve(scenario(5, 2, figs, q))["solo"]
    assert s["at"] == [2, 0] and s["cost"] == 2 and s["stopped_by"] == "adjacent"
    assert s["path"] == [[0, 0], [1, 0], [2, 0]] and s["target"] == "hero"


def test_tet10_one_move_action_per_unit_per_turn():
    figs3 = [unit("me", "red", (4, 4)), unit("b", "red", (0, 0)), unit("c", "red", (8, 8))]
    one = mc.solve(scenario(9, 9, figs3, {"figure": "me", "budget": 4}))
    assert max(e["cost"] for e in one["ends"]) == 4
    with pytest.raises(mc.QueryError, match="same action twice"):
        mc.solve(scenario(9, 9, figs3, {"figure": "me", "budget": 4, "actions": 2}))
    # only one unit left: up to three Move actions, each a whole move
    alone = [unit("me", "red", (4, 4)), unit("foe", "blue", (0, 0))]
    r = mc.solve(scenario(9, 9, alone, {"figure": "me", "budget": 4, "actions": 3}))
    got = {tuple(e["at"]): (e["actions"], e["cost"]) for e in r["ends"]}
    want = {}
    for x in range(9):
        for y in range(9):
            d = abs(x - 4) + abs(y - 4)
            if (x, y) != (0, 0) and d <= 12:
                want[(x, y)] = (-(-d // 4), d)
    assert got == want


# ------------------------------------------------------------------ portals
PORTAL_MAP = dict(terrain=["..~..", ".....", "....."], elevation=["00003", "00000", "00000"],
                  cells=[{"at": [0, 0], "portal": "W"}, {"at": [4, 2], "portal": "E"},
                         {"at": [4, 0], "portal": "N"}])


def test_portal_hop_is_one_step_paying_exit_surcharge_but_no_climb():
    r = move(5, 3, (0, 0), 1, **PORTAL_MAP)
    assert ends_of(r)[(4, 2)] == 1
    assert ends_of(r)[(4, 0)] == 1   # elevation 3 reached by hop: no climb surcharge
    paths = {tuple(e["at"]): e["path"] for e in r["ends"]}
    assert paths[(4, 2)] == [[0, 0], [4, 2]] and paths[(4, 0)] == [[0, 0], [4, 0]]
    cells = [dict(c) for c in PORTAL_MAP["cells"]]
    water = dict(PORTAL_MAP, terrain=["..~.~", ".....", "....."], cells=cells)
    assert ends_of(move(5, 3, (0, 0), 3, **water))[(4, 0)] == 2   # exit in water: +1
    flat2 = move(5, 3, (0, 0), 3, options={"portal_hop_cost": 2}, **PORTAL_MAP)
    assert ends_of(flat2)[(4, 2)] == 2 and ends_of(flat2)[(4, 0)] == 2


def test_enemy_in_front_of_a_portal_blocks_it_allies_pass():
    # an enemy on (4, 2) blocks that portal for me: no exit there, no hop onward from it
    r = move(5, 3, (0, 0), 2, others=[("blue", (4, 2))], **PORTAL_MAP)
    e = ends_of(r)
    assert (4, 2) not in e and (3, 2) not in e and e[(4, 0)] == 1
    # an ally there: I hop through my ally's space (it costs) but cannot end on it
    r = move(5, 3, (0, 0), 2, others=[("red", (4, 2))], **PORTAL_MAP)
    e = ends_of(r)
    assert (4, 2) not in e and e[(3, 2)] == 2 and e[(4, 1)] == 2
    # my unit standing in front of a portal blocks it to the enemy, not to my allies
    figs = [unit("blocker", "red", (0, 0)), unit("friend", "red", (1, 0)),
            unit("foe", "blue", (1, 1))]
    mine = mc.solve(scenario(5, 3, figs, {"figure": "friend", "budget": 2}, **PORTAL_MAP))
    assert ends_of(mine)[(4, 2)] == 2       # through (0, 0), then the hop
    theirs = mc.solve(scenario(5, 3, figs, {"figure": "foe", "budget": 3}, **PORTAL_MAP))
    assert (4, 2) not in ends_of(theirs)    # (0, 0) is blocked to the enemy team
    assert ends_of(theirs)[(0, 1)] == 1


# ------------------------------------------------------------------ villages
def test_villages_reported_once_and_never_the_start_village():
    r = move(5, 1, (0, 0), 6, terrain=["vv.v."])
    by_end = {tuple(e["at"]): e["villages"] for e in r["ends"]}
    assert by_end[(0, 0)] == []                     # starting in a village does not count
    assert by_end[(1, 0)] == [[1, 0]]
    assert by_end[(4, 0)] == [[1, 0], [3, 0]]       # passed and ended: listed each once


def test_via_dead_end_village_and_allies_in_it():
    # a village in a dead end: ends reachable while passing it need the walk back out
    terrain = ["..v", "...", "..."]
    elevation = ["009", "000", "000"]   # (2,0) cut off from (2,1)? no: only a cliff
    r = move(3, 3, (0, 0), 4, terrain=terrain, query={"via": [2, 0]})
    e = ends_of(r)
    assert e == {(2, 0): 2, (1, 0): 3, (0, 0): 4, (2, 1): 3, (1, 1): 4, (2, 2): 4}
    assert all([2, 0] in x["villages"] for x in r["ends"])
    assert r["via"] == [2, 0]
    # a cliff makes the village a one-way street: leaving down is free, going up is not
    r = move(3, 3, (0, 0), 4, terrain=terrain, elevation=elevation, query={"via": [2, 0]})
    assert ends_of(r) == {(2, 0): 3, (1, 0): 4, (2, 1): 4}
    # an ally in the village: pass through it (it heals), never end there
    r = move(3, 1, (0, 0), 4, terrain=["..v"], others=[("red", (2, 0))],
             query={"via": [2, 0]})
    assert ends_of(r) == {(1, 0): 3, (0, 0): 4}
    # an enemy in the village: it cannot be passed
    r = move(3, 1, (0, 0), 4, terrain=["..v"], others=[("blue", (2, 0))],
             query={"via": [2, 0]})
    assert r["ends"] == []


def test_via_rejects_start_village_and_non_villages():
    with pytest.raises(mc.QueryError, match="starts in"):
        move(3, 1, (0, 0), 4, terrain=["v.v"], query={"via": [0, 0]})
    with pytest.raises(mc.QueryError, match="not a village"):
        move(3, 1, (0, 0), 4, terrain=["v.v"], query={"via": [1, 0]})
    with pytest.raises(mc.QueryError, match="not on the realm"):
        move(3, 1, (0, 0), 4, terrain=["v.v"], query={"via": [7, 0]})


# ------------------------------------------------------------------ knock back
def kb(width, height, figs, query, **kw):
    q = {"type": "knock_back"}
    q.update(query)
    return mc.solve(scenario(width, height, figs, q, **kw))["knock_back"]


def test_knock_back_edges_units_portals_and_terrain():
    t = [unit("tgt", "blue", (2, 0))]
    edge = kb(4, 1, t, {"target": "tgt", "direction": "E", "distance": 3})
    assert (edge["at"], edge["moved"], edge["health_lost"], edge["stopped_by"]) == \
        ([3, 0], 1, 1, "edge")
    at_edge = kb(4, 1, [unit("tgt", "blue", (3, 0))],
                 {"target": "tgt", "direction": "E", "distance": 1})
    assert (at_edge["at"], at_edge["health_lost"], at_edge["stopped_by"]) == \
        ([3, 0], 1, "edge")
    for team in ("blue", "red"):   # any unit stops it, friend or foe
        u = kb(6, 1, [unit("tgt", "blue", (0, 0)), unit("x", team, (3, 0))],
               {"target": "tgt", "direction": "E", "distance": 4})
        assert (u["at"], u["health_lost"], u["stopped_by"]) == ([2, 0], 1, "unit")
    # a portal: never entered, the unit loses 1 as at a cliff wall
    p = kb(5, 1, [unit("tgt", "blue", (2, 0))],
           {"target": "tgt", "direction": "E", "distance": 2},
           cells=[{"at": [3, 0], "portal": "E"}])
    assert (p["at"], p["moved"], p["health_lost"], p["stopped_by"]) == \
        ([3, 0], 1, 1, "portal")
    # sliding across a portal's front space (portal on another side) is not entering it
    p = kb(5, 1, [unit("tgt", "blue", (2, 0))],
           {"target": "tgt", "direction": "E", "distance": 2},
           cells=[{"at": [3, 0], "portal": "N"}])
    assert (p["at"], p["health_lost"], p["stopped_by"]) == ([4, 0], 0, None)
    # no terrain effects on the way: water, peak, village, ballista cost nothing
    w = kb(6, 1, [unit("tgt", "blue", (0, 0))],
           {"target": "tgt", "direction": "E", "distance": 5}, terrain=[".~^vb."])
    assert (w["at"], w["health_lost"], w["fell"]) == ([5, 0], 0, False)
    # never pushed up; falls go down any number of levels; the fall alone does no harm
    up = kb(3, 1, [unit("tgt", "blue", (0, 0))],
            {"target": "tgt", "direction": "E", "distance": 2}, elevation=["010"])
    assert (up["at"], up["health_lost"], up["stopped_by"]) == ([0, 0], 1, "cliff")
    fall = kb(3, 1, [unit("tgt", "blue", (0, 0))],
              {"target": "tgt", "direction": "E", "distance": 2}, elevation=["520"])
    assert (fall["at"], fall["fell"], fall["health_lost"]) == ([2, 0], True, 0)
    none = kb(3, 1, [unit("tgt", "blue", (0, 0))],
              {"target": "tgt", "direction": "E", "distance": 0})
    assert (none["at"], none["health_lost"], none["fell"]) == ([0, 0], 0, False)


def test_knock_back_direction_from_attacker():
    figs = [unit("tgt", "blue", (2, 2)), unit("w", "red", (1, 2)), unit("far", "red", (2, 4)),
            unit("diag", "red", (3, 3))]
    east = kb(5, 5, figs, {"target": "tgt", "attacker": "w", "distance": 1})
    assert east["direction"] == "E" and east["at"] == [3, 2] and east["health_lost"] == 0
    north = kb(5, 5, figs, {"target": "tgt", "attacker": "far", "distance": 9})
    assert north["direction"] == "N" and north["at"] == [2, 0] and \
        north["stopped_by"] == "edge"
    with pytest.raises(mc.QueryError, match="not in one row or column"):
        kb(5, 5, figs, {"target": "tgt", "attacker": "diag", "distance": 1})
    with pytest.raises(mc.ScenarioError, match="exactly one"):
        kb(5, 5, figs, {"target": "tgt", "attacker": "w", "direction": "E", "distance": 1})


# ------------------------------------------------------------------ solo enemy
def solo(width, height, figs, query, **kw):
    q = {"type": "solo"}
    q.update(query)
    return mc.solve(scenario(width, height, figs, q, **kw))["solo"]


def test_solo_moves_along_compass_axis_first():
    figs = [unit("ogre", "solo", (0, 0)), unit("hero", "me", (3, 3))]
    east = solo(5, 5, figs, {"figure": "ogre", "budget": 3, "compass": "E"})
    assert east["path"] == [[0, 0], [1, 0], [2, 0], [3, 0]]
    assert east["stopped_by"] == "out_of_movement"
    south = solo(5, 5, figs, {"figure": "ogre", "budget": 3, "compass": "S"})
    assert south["path"] == [[0, 0], [0, 1], [0, 2], [0, 3]]
    turn = solo(5, 5, figs, {"figure": "ogre", "budget": 9, "compass": "W"})
    assert turn["path"] == [[0, 0], [1, 0], [2, 0], [3, 0], [3, 1], [3, 2]]
    assert turn["stopped_by"] == "adjacent" and turn["cost"] == 5


def test_solo_pays_terrain_and_targets_closest_ignoring_terrain():
    figs = [unit("ogre", "solo", (0, 0)), unit("near", "me", (3, 0)),
            unit("far", "me", (0, 4))]
    # "near" sits behind water and a cliff but is still the closest in spaces
    board = dict(terrain=[".~...", ".....", ".....", ".....", "....."],
                 elevation=["00100", "00000", "00000", "00000", "00000"])
    q = {"figure": "ogre", "budget": 3, "compass": "N"}
    s = solo(5, 5, figs, q, options={"solo_target": "closest"}, **board)
    assert s["target"] == "near"
    assert s["path"] == [[0, 0], [1, 0]] and s["cost"] == 2   # (2,0) would cost 2 more
    assert s["stopped_by"] == "out_of_movement"
    # by the rules it cannot attack "near" after that move, so it looks at the next
    # closest unit: three steps north end next to "far", at its Elevation
    s = solo(5, 5, figs, q, **board)
    assert s["target"] == "far" and s["path"] == [[0, 0], [0, 1], [0, 2], [0, 3]]
    assert s["stopped_by"] == "adjacent"


def test_solo_ties_broken_by_compass():
    figs = [unit("ogre", "solo", (2, 2)), unit("a", "me", (2, 0)), unit("b", "me", (4, 2)),
            unit("c", "me", (2, 4)), unit("d", "me", (0, 2))]
    picks = {c: solo(5, 5, figs, {"figure": "ogre", "budget": 0, "compass": c})["target"]
             for c in "NESW"}
    assert picks == {"N": "a", "E": "b", "S": "c", "W": "d"}


def test_solo_blocked_next_space_stop_or_turn():
    # it starts next to your unit "wall", which stands on its route to "hero"
    figs = [unit("ogre", "solo", (0, 0)), unit("wall", "me", (1, 0)),
            unit("hero", "me", (4, 2))]
    q = {"figure": "ogre", "budget": 5, "compass": "E", "target": "hero"}
    stop = solo(5, 3, figs, q)
    assert stop["path"] == [[0, 0]] and stop["stopped_by"] == "blocked"
    turn = solo(5, 3, figs, q, options={"solo_blocked": "turn"})
    assert turn["path"] == [[0, 0], [0, 1], [1, 1]] and turn["stopped_by"] == "adjacent"


def test_solo_passes_its_allies_but_never_ends_on_one():
    figs = [unit("ogre", "solo", (0, 0)), unit("imp", "solo", (2, 0)),
            unit("hero", "me", (4, 4))]
    s = solo(5, 5, figs, {"figure": "ogre", "budget": 2, "compass": "E"})
    assert s["path"] == [[0, 0], [1, 0]] and s["cost"] == 1
    s = solo(5, 5, figs, {"figure": "ogre", "budget": 3, "compass": "E"})
    assert s["path"] == [[0, 0], [1, 0], [2, 0], [3, 0]]


# ------------------------------------------------------------------ random boards
SURCHARGED = {"water", "peak", "ballista"}


def random_tet(rng: random.Random, *, w=None, h=None):
    w = w or rng.randint(2, 6)
    h = h or rng.randint(1, 5)
    chars = "....==~~ff^vvb"
    terrain = ["".join(rng.choice(chars) for _ in range(w)) for _ in range(h)]
    flat = rng.random() < 0.3
    elevation = ["".join(str(0 if flat else rng.choice("000112")) for _ in range(w))
                 for _ in range(h)]
    spaces = [(x, y) for y in range(h) for x in range(w)]
    portals = rng.sample(spaces, min(len(spaces), rng.choice([0, 0, 2, 3, 4])))
    cells = [{"at": list(p), "portal": rng.choice([True, "N", "E", "S", "W"])}
             for p in portals]
    placed = rng.sample(spaces, min(len(spaces), rng.randint(1, 6)))
    figs = [unit("me", "red", placed[0])]
    for i, xy in enumerate(placed[1:]):
        figs.append(unit(f"u{i}", rng.choice(["red", "blue", "green"]), xy))
    options = {}
    if rng.random() < 0.25:
        options["portal_hop_cost"] = rng.choice([1, 2, 3])
    return dict(w=w, h=h, terrain=terrain, elevation=elevation, cells=cells, figs=figs,
                portals=portals, options=options)


def rules_longhand(case):
    """The oracle spec of a random realm, from the rule text: enter 1, +1 water/peak/
    ballista, +1 any climb; portal hops between front spaces; allies pass, enemies block;
    a unit starting on a ballista may not re-enter it."""
    w, h = case["w"], case["h"]
    coords = [(x, y) for y in range(h) for x in range(w)]
    names = [tet.LEGEND[case["terrain"][y][x]] for x, y in coords]
    cost = [1 + (t in SURCHARGED) for t in names]
    idx = {c: i for i, c in enumerate(coords)}
    teams = {}
    occupant = [None] * len(coords)
    me = case["figs"][0]
    for f in case["figs"]:
        teams.setdefault(f["team"], len(teams))
        if f is not me:
            occupant[idx[tuple(f["at"])]] = teams[f["team"]]
    hop = case["options"].get("portal_hop_cost", "step")
    fronts = [idx[p] for p in case["portals"]]
    links = [(a, b, cost[b] if hop == "step" else hop, 0, False)
             for a in fronts for b in fronts if a != b]
    start = idx[tuple(me["at"])]
    blocked = [False] * len(coords)
    if names[start] == "ballista":
        blocked[start] = True
    n = len(coords)
    spec = dict(kind="square4", coords=coords, cost=cost,
                height=[int(case["elevation"][y][x]) for x, y in coords],
                stop=[False] * n, blocked=blocked, no_end=[False] * n, occupant=occupant,
                links=links, edges={}, team=teams["red"], allies="pass", enemies="block",
                climb_per_level=0, climb_flat=1, max_climb=None, descend_per_level=0,
                link_kinds=None, corner_cutting=True, zoc=None, leave=None, enter_pen=None,
                leave_weight=1, max_penalty=0)
    return spec, start, idx, names


def case_scenario(case, query):
    return scenario(case["w"], case["h"], case["figs"], query, terrain=case["terrain"],
                    elevation=case["elevation"], cells=case["cells"],
                    options=case["options"] or None)


def test_random_realms_match_the_oracle():
    rng = random.Random(2024)
    for _ in range(400):
        case = random_tet(rng)
        budget = rng.randint(0, 7)
        spec, start, idx, names = rules_longhand(case)
        r = mc.solve(case_scenario(case, {"figure": "me", "budget": budget, "paths": True}))
        want = oracle_reach(spec, [start], budget)
        got = {idx[tuple(e["at"])]: e for e in r["ends"]}
        assert {c: e["cost"] for c, e in got.items()} == \
            {c: w["cost"] for c, w in want.items()}, case
        for c, e in got.items():
            path = [idx[tuple(p)] for p in e["path"]]
            assert path[0] == start and path[-1] == c
            assert path_is_valid(spec, path, e["cost"], budget), (case, e)
            want_v = []
            for p in path[1:]:
                if names[p] == "village" and p != start and p not in want_v:
                    want_v.append(p)
            assert [idx[tuple(v)] for v in e["villages"]] == want_v
            assert e["ballista"] == (names[c] == "ballista")
        costs = [e["cost"] for e in r["ends"]]
        assert costs == sorted(costs)


def _walk_steps(spec, idx, u):
    """Every legal single step out of u, written out longhand (4 sides + portal hops)."""
    x, y = spec["coords"][u]
    out = []
    for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        v = idx.get((x + dx, y + dy))
        if v is None:
            continue
        climb = 1 if spec["height"][v] > spec["height"][u] else 0
        out.append((v, spec["cost"][v] + climb))
    for a, b, c, _, _ in spec["links"]:
        if a == u:
            out.append((b, c))
    me = spec["team"]
    return [(v, c) for v, c in out if not spec["blocked"][v]
            and (spec["occupant"][v] is None or spec["occupant"][v] == me)]


def brute_force_via(spec, idx, start, budget, village):
    """Least cost per end over EVERY walk (spaces may be revisited) of at most ``budget``
    that passes ``village`` after the start."""
    best = {}

    def walk(u, spent, passed):
        if passed and (u == start or spec["occupant"][u] is None):
            best[u] = min(best.get(u, 1 << 30), spent)
        for v, c in _walk_steps(spec, idx, u):
            if spent + c <= budget:
                walk(v, spent + c, passed or v == village)

    walk(start, 0, False)
    return best


def test_via_matches_brute_force_over_walks():
    rng = random.Random(7)
    checked = 0
    for _ in range(300):
        case = random_tet(rng, w=rng.randint(2, 4), h=rng.randint(1, 4))
        spec, start, idx, names = rules_longhand(case)
        villages = [i for i, t in enumerate(names) if t == "village" and i != start]
        if not villages:
            continue
        v = rng.choice(villages)
        budget = rng.randint(1, 5)
        r = mc.solve(case_scenario(case, {"figure": "me", "budget": budget, "paths": True,
                                          "via": list(spec["coords"][v])}))
        want = brute_force_via(spec, idx, start, budget, v)
        got = {idx[tuple(e["at"])]: e["cost"] for e in r["ends"]}
        assert got == want, (case, spec["coords"][v], budget)
        for e in r["ends"]:
            path = [idx[tuple(p)] for p in e["path"]]
            assert v in path[1:] and list(spec["coords"][v]) in e["villages"]
            total = 0
            for a, b in zip(path, path[1:]):
                total += min(c for w, c in _walk_steps(spec, idx, a) if w == b)
            assert total == e["cost"] <= budget
        checked += 1
    assert checked > 150


def test_multiple_actions_match_repeated_oracle_moves():
    rng = random.Random(11)
    for _ in range(60):
        case = random_tet(rng)
        case["figs"] = [case["figs"][0]] + [dict(f, team="blue") for f in case["figs"][1:]]
        spec, start, idx, names = rules_longhand(case)
        budget, actions = rng.randint(0, 3), rng.randint(1, 3)
        r = mc.solve(case_scenario(case, {"figure": "me", "budget": budget,
                                          "actions": actions, "paths": True}))
        layer = {start: 0}
        want = {start: (0, 0)}
        for k in range(1, actions + 1):
            nxt = dict(layer)
            for u, cu in layer.items():
                for c, w in oracle_reach(spec, [u], budget).items():
                    nxt[c] = min(nxt.get(c, 1 << 30), cu + w["cost"])
            for c, cost in nxt.items():
                want.setdefault(c, (k, cost))
            layer = nxt
        got = {idx[tuple(e["at"])]: (e["actions"], e["cost"]) for e in r["ends"]}
        assert got == want, case
        for e in r["ends"]:
            path = [idx[tuple(p)] for p in e["path"]]
            assert path[-1] == idx[tuple(e["at"])]
            total = sum(min(c for w, c in _walk_steps(spec, idx, a) if w == b)
                        for a, b in zip(path, path[1:]))
            assert total == e["cost"]


# ------------------------------------------------------------------ bad input
GOOD = scenario(4, 3, [unit("me", "red", (0, 0)), unit("foe", "blue", (3, 2))],
                {"figure": "me", "budget": 3}, terrain=["..v.", ".~..", "..b."],
                elevation=["0011", "0000", "0000"], cells=[{"at": [0, 0], "portal": "W"}])


def _bad(path, value):
    s = copy.deepcopy(GOOD)
    obj = s
    for key in path[:-1]:
        obj = obj[key]
    if value is KeyError:
        del obj[path[-1]]
    else:
        obj[path[-1]] = value
    return s


BAD = [
    (("board",), [], mc.ScenarioError),
    (("board", "width"), 0, mc.ScenarioError),
    (("board", "width"), "4", mc.ScenarioError),
    (("board", "terrain"), ["..v.", ".~..", "..X."], mc.BoardError),
    (("board", "terrain"), ["..v.", ".~.."], mc.BoardError),
    (("board", "terrain"), ["..v.", ".~...", "..b."], mc.BoardError),
    (("board", "elevation"), ["0011", "00-0", "0000"], mc.BoardError),
    (("board", "elevation"), ["0011", [0, 0, 0, 99], "0000"], mc.LimitError),
    (("board", "cells"), [{"at": [9, 9], "terrain": "water"}], mc.BoardError),
    (("board", "cells"), [{"at": [1, 1], "terrain": "lava"}], mc.ScenarioError),
    (("board", "cells"), [{"at": [1, 1], "portal": "up"}], mc.BoardError),
    (("board", "cells"), [{"at": [1, 1]}, {"at": [1, 1]}], mc.BoardError),
    (("board", "cells"), [{"at": [1, 1], "height": 2}], mc.ScenarioError),
    (("board", "cells"), [{"at": [1, 1], "elevation": -1}], mc.ScenarioError),
    (("options",), {"portal_hop_cost": "far"}, mc.ScenarioError),
    (("options",), {"portal_hop": 2}, mc.ScenarioError),
    (("options",), {"portal_hop_cost": 0}, mc.ScenarioError),
    (("options",), {"solo_blocked": "jump"}, mc.ScenarioError),
    (("figures",), [{"id": "me", "team": "red", "at": [5, 0]}], mc.PlacementError),
    (("figures",), [unit("me", "red", (0, 0)), unit("x", "b", (0, 0))],
     mc.PlacementError),
    (("figures",), {"me": [0, 0]}, mc.ScenarioError),
    (("query", "figure"), "ghost", mc.QueryError),
    (("query", "budget"), -1, mc.ScenarioError),
    (("query", "budget"), KeyError, mc.ScenarioError),
    (("query", "actions"), 4, mc.LimitError),
    (("query", "via"), [2, 0, 1], mc.ScenarioError),
    (("query", "via"), [1, 1], mc.QueryError),
    (("query", "type"), "fly", mc.ScenarioError),
    (("query", "typo"), 1, mc.ScenarioError),
    (("query",), {"type": "knock_back", "target": "foe", "distance": 1}, mc.ScenarioError),
    (("query",), {"type": "knock_back", "target": "foe", "direction": "NE", "distance": 1},
     mc.ScenarioError),
    (("query",), {"type": "knock_back", "target": "foe", "direction": "N", "distance": -2},
     mc.ScenarioError),
    (("query",), {"type": "knock_back", "target": "foe", "attacker": "foe",
                  "distance": 1}, mc.QueryError),
    (("query",), {"type": "solo", "figure": "foe", "budget": 3, "compass": "up"},
     mc.ScenarioError),
    (("query",), {"type": "solo", "figure": "foe", "budget": 3, "compass": "N",
                  "target": "foe"}, mc.QueryError),
]


@pytest.mark.parametrize("path,value,error", BAD)
def test_bad_input_gets_a_typed_error(path, value, error):
    mc.solve(GOOD)   # the unmutated scenario is fine
    with pytest.raises(error):
        mc.solve(_bad(path, value))


def test_solo_without_targets_is_a_query_error():
    s = scenario(3, 1, [unit("ogre", "solo", (0, 0)), unit("imp", "solo", (2, 0))],
                 {"type": "solo", "figure": "ogre", "budget": 2, "compass": "E"})
    with pytest.raises(mc.QueryError, match="no target"):
        mc.solve(s)


JUNK = [None, True, -1, 1.5, "x", [], {}, [1], [0, 0], {"at": [0, 0]}, 10 ** 12]


def test_junk_anywhere_raises_only_movecore_errors():
    """Replace each value of every bundled example (and GOOD) by junk: solve() either
    answers or raises a MovecoreError, never a KeyError/TypeError/IndexError."""
    rng = random.Random(3)
    bases = [GOOD] + [json.loads(p.read_text()) for p in _examples()]

    def slots(obj, path=()):
        if isinstance(obj, dict):
            for k, v in obj.items():
                yield path + (k,)
                yield from slots(v, path + (k,))
        elif isinstance(obj, list):
            for i, v in enumerate(obj[:6]):
                yield path + (i,)
                yield from slots(v, path + (i,))

    for base in bases:
        for path in slots(base):
            for value in rng.sample(JUNK, 3):
                s = copy.deepcopy(base)
                obj = s
                for key in path[:-1]:
                    obj = obj[key]
                obj[path[-1]] = value
                try:
                    mc.solve(s)
                except mc.MovecoreError:
                    pass


# ------------------------------------------------------------------ bundled examples
def _examples():
    from pathlib import Path
    root = resources.files("movecore") / "examples"
    return sorted(Path(str(p)) for p in root.iterdir()
                  if p.name.startswith("tiny_epic_tactics_") and p.name.endswith(".json"))


def test_every_bundled_example_solves():
    paths = _examples()
    assert len(paths) >= 3
    kinds = set()
    for p in paths:
        s = json.loads(p.read_text())
        assert s["game"] == GAME
        r = mc.solve(s)
        kinds.add(s["query"].get("type", "move"))
        if "ends" in r:
            assert r["ends"] and r["ends"][0]["cost"] == 0 or "via" in s["query"]
    assert kinds == {"move", "knock_back", "solo"}


def test_documented_worked_example_is_the_real_output():
    """docs/tiny_epic_tactics.md: the worked example's scenario and output blocks agree
    with solve(), and so does the via variant."""
    import re
    from pathlib import Path
    doc = Path(__file__).resolve().parents[1] / "docs" / "tiny_epic_tactics.md"
    text = doc.read_text().split("## Worked example", 1)[1]
    blocks = [json.loads(b) for b in re.findall(r"```json\n(.*?)```", text, re.S)]
    s, out, via_out = blocks[0], blocks[1], blocks[2]
    assert mc.solve(s) == out
    s["query"] = {"figure": "knight", "budget": 6, "via": [3, 0]}
    assert mc.solve(s) == via_out
    for name, want in (("knock_back", blocks[3]), ("solo_compass", blocks[4])):
        path = next(p for p in _examples() if p.name == f"tiny_epic_tactics_{name}.json")
        assert mc.solve(json.loads(path.read_text())) == want


# ------------------------------------------------------------------ solo: next closest, Climb
def _lean_key(start, compass):
    """Closest to ``start`` in orthogonal spaces, ties by the compass (farthest towards
    its side, then the next sides clockwise)."""
    order = "NESW"[("NESW".index(compass)):] + "NESW"[:"NESW".index(compass)]
    step = {"N": (0, -1), "E": (1, 0), "S": (0, 1), "W": (-1, 0)}

    def key(xy):
        return (abs(xy[0] - start[0]) + abs(xy[1] - start[1]),
                *(-(xy[0] * step[s][0] + xy[1] * step[s][1]) for s in order))
    return key


def _attacks_from(at, yours, elev, terr, rng_):
    """The solo enemy on ``at`` can attack one of ``yours`` (test-side, from the rules:
    melee = orthogonally adjacent at the same Elevation; missile range +1 higher, -1
    lower, unlimited from a Peak)."""
    for u in yours:
        d = abs(at[0] - u[0]) + abs(at[1] - u[1])
        a, b = elev[at[1]][at[0]], elev[u[1]][u[0]]
        if d == 1 and a == b:
            return True
        if rng_ and (terr[at[1]][at[0]] == "^" or d <= rng_ + (a > b) - (a < b)):
            return True
    return False


def _random_solo_case(rng):
    w, h = rng.randint(3, 7), rng.randint(3, 6)
    terr = ["".join(rng.choice("....~^f") for _ in range(w)) for _ in range(h)]
    elev = ["".join(rng.choice("0001122") for _ in range(w)) for _ in range(h)]
    spaces = [(x, y) for x in range(w) for y in range(h)]
    rng.shuffle(spaces)
    n = min(len(spaces), rng.randint(3, 6))
    figs = [unit("ogre", "solo", spaces[0])]
    figs += [unit(f"u{i}", "me", spaces[i]) for i in range(1, n - 1)]
    figs += [unit("imp", "solo", spaces[n - 1])]
    return w, h, terr, elev, figs


def test_solo_next_closest_unit_matches_the_rules():
    """Over random realms: the default target is the first of your units, closest first
    (ties by the compass), whose compass move ends where the enemy can attack one of
    your units; if none, the closest. Each candidate's move is the query with that
    ``target``; ``solo_target: "closest"`` always takes the closest."""
    rng = random.Random(20)
    fallbacks = 0
    for case in range(300):
        w, h, terr, elev, figs = _random_solo_case(rng)
        compass = rng.choice("NESW")
        q = {"figure": "ogre", "budget": rng.randint(0, 6), "compass": compass}
        if rng.random() < 0.5:
            q["range"] = rng.randint(1, 3)
        opts = {"solo_blocked": rng.choice(["stop", "turn"])}
        kw = dict(terrain=terr, elevation=elev)
        yours = sorted((f for f in figs if f["team"] == "me"),
                       key=lambda f: _lean_key(figs[0]["at"], compass)(f["at"]))
        cells = [tuple(f["at"]) for f in yours]
        want = None
        forced = {}
        for f in yours:
            fq = {k: v for k, v in q.items() if k != "range"}
            forced[f["id"]] = solo(w, h, figs, {**fq, "target": f["id"]}, options=opts,
                                   **kw)
            if want is None and _attacks_from(tuple(forced[f["id"]]["at"]), cells,
                                               [[int(c) for c in r] for r in elev], terr,
                                               q.get("range", 0)):
                want = forced[f["id"]]
        closest = forced[yours[0]["id"]]
        got = solo(w, h, figs, q, options=opts, **kw)
        assert got == (want or closest), (case, q)
        old = solo(w, h, figs, q, options={**opts, "solo_target": "closest"}, **kw)
        assert old == closest
        fallbacks += want is not None and want is not closest
    assert fallbacks > 10


def test_solo_attack_reach_melee_needs_same_elevation_missile_adjusts():
    # towards "high" (closest) it stops on (1, 0), below high's box: no Melee across the
    # cliff, so it looks at "low" and stops on (0, 2), next to it at its Elevation
    figs = [unit("ogre", "solo", (0, 0)), unit("high", "me", (2, 0)),
            unit("low", "me", (0, 3))]
    q = {"figure": "ogre", "budget": 2, "compass": "E"}
    s = solo(3, 4, figs, q, elevation=["001", "000", "000", "000"])
    assert s["target"] == "low" and s["at"] == [0, 2]
    # on flat ground it can Melee "high" from (1, 0)
    s = solo(3, 4, figs, q, elevation=["000", "000", "000", "000"])
    assert s["target"] == "high" and s["at"] == [1, 0]
    # Missile 1 from below is range 0; Missile 2 from below reaches 1 space
    s = solo(3, 4, figs, {**q, "range": 1}, elevation=["001", "000", "000", "000"])
    assert s["target"] == "low"
    s = solo(3, 4, figs, {**q, "range": 2}, elevation=["001", "000", "000", "000"])
    assert s["target"] == "high" and s["at"] == [1, 0]
    # from a Peak any unit is in Missile range
    s = solo(3, 4, figs, {**q, "range": 1}, terrain=[".^.", "...", "...", "..."],
             elevation=["001", "000", "000", "000"])
    assert s["target"] == "high" and s["at"] == [1, 0]


def test_solo_climb_card():
    # boxes: (4, 0) elevation 1 and (0, 4) elevation 2; the ogre on (2, 2) at 0
    figs = [unit("ogre", "solo", (2, 2)), unit("hero", "me", (4, 4))]
    elev = ["00001", "00000", "00000", "00000", "20000"]
    q = {"figure": "ogre", "budget": 9, "compass": "N", "climb": True}
    s = solo(5, 5, figs, q, elevation=elev)
    # both boxes are 4 spaces away: the compass (N) breaks the tie towards (4, 0)
    assert s["climb_to"] == [4, 0] and s["target"] is None
    assert s["path"] == [[2, 2], [2, 1], [2, 0], [3, 0], [4, 0]]
    assert s["stopped_by"] == "arrived" and s["cost"] == 5       # +1 to climb
    assert solo(5, 5, figs, {**q, "compass": "S"}, elevation=elev)["climb_to"] == [0, 4]
    # it may descend to reach a higher point: from a box at 1 to the box at 2
    figs2 = [unit("ogre", "solo", (4, 0)), unit("hero", "me", (4, 4))]
    elev2 = ["00001", "00000", "00000", "00000", "20000"]
    s = solo(5, 5, figs2, {**q, "compass": "W"}, elevation=elev2)
    assert s["climb_to"] == [0, 4] and s["path"][1] == [3, 0]
    # a unit on the only higher space: no goal, it moves towards your closest unit
    figs3 = [unit("ogre", "solo", (0, 0)), unit("hero", "me", (2, 0))]
    s = solo(3, 1, figs3, {"figure": "ogre", "budget": 3, "compass": "E", "climb": True},
             elevation=["001"])
    assert s["climb_to"] is None and s["target"] == "hero" and s["at"] == [1, 0]
    # on the way it still stops on entering a space next to one of your units
    figs4 = [unit("ogre", "solo", (0, 0)), unit("hero", "me", (2, 1))]
    s = solo(4, 2, figs4, {"figure": "ogre", "budget": 9, "compass": "E", "climb": True},
             elevation=["0001", "0000"])
    assert s["climb_to"] == [3, 0] and s["at"] == [2, 0] and s["stopped_by"] == "adjacent"


@pytest.mark.parametrize("query, options, match", [
    ({"range": -1}, None, "range"),
    ({"climb": "yes"}, None, "climb"),
    ({"climb": True, "target": "hero"}, None, "climb"),
    ({}, {"solo_target": "nearest"}, "nearest"),
])
def test_solo_bad_values(query, options, match):
    figs = [unit("ogre", "solo", (0, 0)), unit("hero", "me", (2, 0))]
    q = {"type": "solo", "figure": "ogre", "budget": 2, "compass": "E", **query}
    with pytest.raises(mc.ScenarioError, match=match):
        mc.solve(scenario(3, 1, figs, q, options=options))
