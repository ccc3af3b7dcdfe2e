"""Mage Knight adapter: RULES.md §1.3 worked examples, the provoking edge rule and its
ties, cost-reduction order against brute force, reveal-then-continue, the tile catalogue,
random maps against the foundation oracle and an exhaustive path enumerator, bad input."""
from __future__ import annotations

import itertools
import json
import random
from pathlib import Path

import numpy as np
import pytest

import movecore as mc
from movecore.games import mage_knight as mk
from oracle import oracle_reach

EXAMPLES = Path(mk.__file__).resolve().parents[2] / "examples"


def scenario(cells, budget, *, time="day", figures=None, hero="h", open=(), next_tile=None,
             tiles=(), updates=(), **query):
    board = {"cells": cells}
    if tiles:
        board["tiles"] = list(tiles)
    if open:
        board["open"] = [list(p) for p in open]
    if next_tile:
        board["next_tile"] = next_tile
    if updates:
        board["updates"] = list(updates)
    opts = {"time": time}
    for k in ("pvp", "reductions", "enter", "forbid", "provoke", "bend", "explore", "cities"):
        if k in query:
            opts[k] = query.pop(k)
    return {"game": "mage_knight", "board": board, "options": opts,
            "figures": figures or [{"id": hero, "at": [0, 0]}],
            "query": {"figure": hero, "budget": budget, **query}}


def ends(result):
    return {tuple(e["at"]): e["cost"] for e in result["ends"]}


def end(result, at):
    return next(e for e in result["ends"] if tuple(e["at"]) == tuple(at))


def cell(at, terrain="plains", **kw):
    return {"at": list(at), "terrain": terrain, **kw}


# --------------------------------------------------------------------- RULES.md §1.3
MK1 = [cell((0, 0)), cell((1, 0), "forest"), cell((0, 1), "wasteland"), cell((1, 1))]


def test_mk1_day_and_night_route_choice():
    day = mc.solve(scenario(MK1, 20, paths=True))
    assert ends(day) == {(0, 0): 0, (1, 0): 3, (0, 1): 4, (1, 1): 5}
    assert end(day, (1, 1))["path"] == [[0, 0], [1, 0], [1, 1]]
    night = mc.solve(scenario(MK1, 20, time="night", paths=True))
    assert ends(night) == {(0, 0): 0, (1, 0): 5, (0, 1): 4, (1, 1): 6}
    assert end(night, (1, 1))["path"] == [[0, 0], [0, 1], [1, 1]]
    assert (1, 1) in ends(mc.solve(scenario(MK1, 5)))
    assert (1, 1) not in ends(mc.solve(scenario(MK1, 5, time="night")))


def _lakes_around(cells, radius=3):
    have = {tuple(c["at"]) for c in cells}
    out = list(cells)
    for q in range(-radius, radius + 1):
        for r in range(-radius, radius + 1):
            if abs(q + r) <= radius and (q, r) not in have:
                out.append(cell((q, r), "lake"))
    return out


def test_mk2_city_costs_two_and_unconquered_city_ends_move():
    base = [cell((0, 0)), cell((1, 0), "swamp", site="city"), cell((2, 0))]
    res = mc.solve(scenario(_lakes_around(base), 6))
    assert ends(res) == {(0, 0): 0, (1, 0): 2}
    assert end(res, (1, 0))["flags"] == ["assault"] and not end(res, (1, 0))["safe"]
    base[1]["conquered"] = True
    res = mc.solve(scenario(_lakes_around(base), 6))
    assert ends(res) == {(0, 0): 0, (1, 0): 2, (2, 0): 4}
    assert end(res, (1, 0))["flags"] == [] and end(res, (1, 0))["safe"]


MK3 = [cell((0, 0)), cell((1, 0), "lake"), cell((1, -1), "mountain"), cell((0, 1), "hills"),
       cell((1, 1), "forest"), cell((2, 0))]


def test_mk3_lakes_and_mountains_are_never_entered():
    assert ends(mc.solve(scenario(MK3, 12))) == {(0, 0): 0, (0, 1): 3, (1, 1): 6, (2, 0): 8}
    assert ends(mc.solve(scenario(MK3, 12, time="night"))) == \
        {(0, 0): 0, (0, 1): 3, (1, 1): 8, (2, 0): 10}


def test_mk4_unconquered_keep_stops_and_own_keep_does_not():
    keep = cell((1, 0), "hills", site="keep")
    base = [cell((0, 0)), keep, cell((2, 0)), cell((0, 1), "lake"), cell((1, 1), "lake"),
            cell((1, -1), "mountain"), cell((2, -1), "mountain")]
    res = mc.solve(scenario(base, 7))
    assert ends(res) == {(0, 0): 0, (1, 0): 3}
    assert end(res, (1, 0))["flags"] == ["assault"]
    keep["owner"] = "h"
    res = mc.solve(scenario(base, 7))
    assert ends(res) == {(0, 0): 0, (1, 0): 3, (2, 0): 5}
    assert end(res, (1, 0))["safe"] and end(res, (1, 0))["flags"] == []
    keep["owner"] = "rival"   # another player's keep: assault again
    res = mc.solve(scenario(base, 7))
    assert ends(res) == {(0, 0): 0, (1, 0): 3}
    assert end(res, (1, 0))["flags"] == ["assault"] and not end(res, (1, 0))["safe"]


def test_mk4b_unconquered_mage_tower_stops_conquered_does_not():
    base = [cell((0, 0)), cell((1, 0), "hills", site="mage_tower"), cell((2, 0))]
    assert ends(mc.solve(scenario(base, 7))) == {(0, 0): 0, (1, 0): 3}
    base[1]["conquered"] = True
    assert ends(mc.solve(scenario(base, 7))) == {(0, 0): 0, (1, 0): 3, (2, 0): 5}


@pytest.mark.parametrize("site", ["dungeon", "tomb", "ruins", "monster_den",
                                  "spawning_grounds", "village", "glade"])
def test_mk6_adventure_sites_do_not_stop(site):
    line = [cell((0, 0)), cell((1, 0), "wasteland", site=site), cell((2, 0))]
    res = mc.solve(scenario(line, 6))
    assert ends(res) == {(0, 0): 0, (1, 0): 4, (2, 0): 6}
    assert all(e["flags"] == [] and e["safe"] for e in res["ends"])


def test_mk7_other_heroes():
    line = [cell((0, 0)), cell((1, 0)), cell((2, 0))]
    figs = [{"id": "A", "at": [0, 0]}, {"id": "B", "at": [1, 0]}]
    res = mc.solve(scenario(line, 4, figures=figs, hero="A"))
    assert ends(res) == {(0, 0): 0, (1, 0): 2, (2, 0): 4}
    assert end(res, (1, 0))["flags"] == ["pvp"] and not end(res, (1, 0))["safe"]
    assert end(res, (2, 0))["safe"]
    coop = mc.solve(scenario(line, 4, figures=figs, hero="A", pvp=False))
    assert ends(coop) == ends(res)
    assert end(coop, (1, 0))["flags"] == [] and not end(coop, (1, 0))["safe"]
    # teammates never fight
    team = [{"id": "A", "at": [0, 0], "team": "t"}, {"id": "B", "at": [1, 0], "team": "t"}]
    res = mc.solve(scenario(line, 4, figures=team, hero="A"))
    assert end(res, (1, 0))["flags"] == [] and not end(res, (1, 0))["safe"]
    # B's keep: entering it ends A's move (assault, and an attack on B who is there)
    line[1].update(terrain="plains", site="keep", owner="B")
    res = mc.solve(scenario(line, 4, figures=figs, hero="A"))
    assert ends(res) == {(0, 0): 0, (1, 0): 2}
    assert end(res, (1, 0))["flags"] == ["assault", "pvp"]


def test_portal_and_conquered_city_hold_several_heroes():
    line = [cell((0, 0)), cell((1, 0), site="portal"), cell((2, 0), site="city",
                                                             conquered=True)]
    figs = [{"id": "A", "at": [0, 0]}, {"id": "B", "at": [1, 0]}, {"id": "C", "at": [2, 0]},
            {"id": "D", "at": [2, 0]}]
    res = mc.solve(scenario(line, 9, figures=figs, hero="A"))
    for at in ((1, 0), (2, 0)):
        assert end(res, at)["flags"] == [] and end(res, at)["safe"]
    with pytest.raises(mc.PlacementError):
        mc.solve(scenario([cell((0, 0)), cell((1, 0))], 2, hero="A",
                          figures=[{"id": "A", "at": [0, 0]}, {"id": "B", "at": [0, 0]}]))


def test_mk8_exploring_costs_two_and_reveal_then_continue():
    # a plains space on the border of the tile at [0, 0], next to the open position [3, -2]
    tile0 = {"position": [0, 0], "kind": "countryside",
             "cells": [{"hex": h, "terrain": "plains"} for h in mk.TILE_HEXES]}
    sc = scenario([], 5, tiles=[tile0], open=[(3, -2)], figures=[{"id": "h", "at": [1, 0]}],
                  paths=True)
    res = mc.solve(sc)
    assert res["explore"] == [{"position": [3, -2], "from": [1, 0], "cost": 2,
                               "placeable": False, "path": [[1, 0]]}]
    # reveal from here, 3 points left: hills and day forest yes, wasteland and swamp no.
    # (2, -1), the SW hex of the new tile, is the only new space next to the hero.
    def new_tile(sw):
        return {"position": [3, -2], "kind": "countryside", "cells": [
            {"hex": h, "terrain": sw if h == "SW" else "plains"} for h in mk.TILE_HEXES]}
    with pytest.raises(mc.PlacementError):   # one neighbour that touches one: illegal
        mc.solve(dict(sc, query=dict(sc["query"], budget=3, reveal=[new_tile("hills")])))
    # with a second placed tile at [2, 1] the position touches two tiles: legal
    tile1 = {"position": [2, 1], "kind": "countryside",
             "cells": [{"hex": h, "terrain": "lake"} for h in mk.TILE_HEXES]}
    sc["board"]["tiles"].append(tile1)
    res = mc.solve(sc)
    assert res["explore"][0]["placeable"] is True
    for sw, reached in (("hills", True), ("forest", True), ("wasteland", False),
                        ("swamp", False)):
        after = mc.solve(dict(sc, query=dict(sc["query"], budget=3,
                                             reveal=[new_tile(sw)])))
        assert after["revealed"] == [[3, -2]] and after["explore"] == []
        got = ends(after)
        assert ((2, -1) in got) == reached, sw
        if reached:
            assert got[(2, -1)] == 3
        # the same answer as a map that had the tile from the start
        sc2 = json.loads(json.dumps(sc))
        sc2["board"]["tiles"].append(new_tile(sw))
        sc2["board"]["open"] = []
        sc2["query"]["budget"] = 3
        assert ends(mc.solve(sc2)) == got
    night = mc.solve(dict(sc, options={"time": "night"},
                          query=dict(sc["query"], budget=3, reveal=[new_tile("forest")])))
    assert (2, -1) not in ends(night)


def test_reveal_keeps_cell_indices():
    m = mk.read_map({"tiles": [{"position": [0, 0], "tile": "A"}],
                     "open": [[1, -3], [3, -2]], "next_tile": "countryside"})
    before = {m.board.coord(i): i for i in range(m.board.n_cells)}
    m2 = m.reveal((1, -3), "countryside_1", kind="countryside") if \
        m.placeable((1, -3)) else None
    assert m2 is None   # a countryside tile needs two neighbours (or a neighbour with two)
    m = mk.MageKnightMap(m.board, m.spaces, m.open, "countryside")
    m3 = mk.read_map({"tiles": [{"position": [0, 0], "tile": "A"},
                                {"position": [3, -2], "tile": "countryside_2"}],
                      "open": [[1, -3]]})
    assert m3.placeable((1, -3))
    m4 = m3.reveal((1, -3), "countryside_1")
    assert m4.board.n_cells == m3.board.n_cells + 7
    for c in range(m3.board.n_cells):
        assert m4.board.coord(c) == m3.board.coord(c)
    assert m4.open == ()
    assert all(m.board.index(c) == i for c, i in before.items())


def test_mk10_sideways_cards_move_three():
    line = [cell((0, 0)), cell((1, 0), "hills"), cell((-1, 0), "forest"),
            cell((0, 1), "desert"), cell((0, -1), "wasteland")]
    assert ends(mc.solve(scenario(line, 3))) == {(0, 0): 0, (1, 0): 3, (-1, 0): 3}
    assert ends(mc.solve(scenario(line, 3, time="night"))) == {(0, 0): 0, (1, 0): 3,
                                                               (0, 1): 3}


def test_mk11_direct_move_crosses_inaccessible_spaces_and_ends_safe():
    line = [cell((0, 0)), cell((1, 0), "lake"), cell((2, 0)), cell((0, 1), "hills",
                                                                    rampaging="draconum"),
            cell((1, 1), "hills", site="keep"), cell((-1, 0), "mountain"), cell((-2, 0))]
    res = mc.solve(scenario(line, 2, mode="direct", paths=True))
    assert ends(res) == {(0, 0): 0, (2, 0): 2, (-2, 0): 2}
    assert end(res, (2, 0))["path"] == [[0, 0], [1, 0], [2, 0]]
    assert all(e["safe"] for e in res["ends"])
    # normal move: none of that is reachable
    assert ends(mc.solve(scenario(line, 9))) == {(0, 0): 0}
    # without the safe-end requirement the unsafe spaces are ends too (never the enemy)
    res = mc.solve(scenario(line, 2, mode="direct", end_safe=False))
    assert set(ends(res)) == {(0, 0), (1, 0), (2, 0), (1, 1), (-1, 0), (-2, 0)}
    assert end(res, (1, 1))["flags"] == ["assault"] and not end(res, (1, 0))["safe"]


# --------------------------------------------------------------------- provoking
def _field(radius=3, terrain="plains"):
    return [cell((q, r), terrain) for q in range(-radius, radius + 1)
            for r in range(-radius, radius + 1) if abs(q + r) <= radius]


def _set(cells, at, **kw):
    for c in cells:
        if tuple(c["at"]) == tuple(at):
            c.update(kw)
    return cells


def test_provoking_is_an_edge_rule():
    # token at (1, 0); (0, 0) and (1, -1) are both next to it: stepping between them
    # provokes; stepping (0, 0) -> (-1, 0) (not next to it) does not.
    cells = _set(_field(), (1, 0), rampaging="orc_marauders")
    res = mc.solve(scenario(cells, 2, paths=True))
    e = end(res, (1, -1))
    assert e["flags"] == ["provoked"] and e["provoked"] == [[1, 0]] and e["cost"] == 2
    assert "free_cost" not in e          # 2 points: no way round
    assert end(res, (-1, 0))["flags"] == []
    assert (1, 0) not in ends(res)       # the token's space is never entered
    # entering the token's neighbourhood from outside does not provoke
    res = mc.solve(scenario(cells, 4, figures=[{"id": "h", "at": [-1, 0]}]))
    assert end(res, (0, 0))["flags"] == []
    # a provoked arrival is not expanded: (1,-1) is reached at 2 (provoking) or 4 (quiet,
    # via (0,-1)); (2,-1) then costs 6 from the quiet (1,-1) but that step provokes again;
    # the quiet way to (2,-1) goes round: (0,-1) (1,-2) (2,-2) (2,-1) = 8.
    res = mc.solve(scenario(cells, 20))
    e = end(res, (2, -1))
    assert (e["cost"], e["flags"], e["free_cost"]) == (6, ["provoked"], 8)
    assert end(res, (2, -2))["cost"] == 6 and end(res, (2, -2))["flags"] == []


def _quiet(path, token):
    """No step of the path goes between two spaces next to the token."""
    near = {(token[0] + dq, token[1] + dr) for dq, dr in mc.DIRECTIONS["hex"]}
    return not any(tuple(a) in near and tuple(b) in near for a, b in zip(path, path[1:]))


def test_provoking_never_hides_an_equal_cost_quiet_path():
    # From (0,0) to (1,-1): direct step provokes the orc at (1,0). A detour via (0,-1)
    # costs 4 and does not provoke (0,-1 is not next to (1,0)? it is not).
    cells = _set(_field(), (1, 0), rampaging="orc_marauders")
    res = mc.solve(scenario(cells, 4, paths=True))
    e = end(res, (1, -1))
    assert e["cost"] == 2 and e["flags"] == ["provoked"]
    assert e["free_cost"] == 4 and e["free_path"] == [[0, 0], [0, -1], [1, -1]]
    # make the detour as cheap as the provoking step (cost-0 plains): the quiet path wins
    res = mc.solve(scenario(cells, 4, paths=True,
                            reductions=[{"terrains": ["plains"], "by": 2}]))
    e = end(res, (1, -1))
    assert e["cost"] == 0 and e["flags"] == [] and "free_cost" not in e
    assert _quiet(e["path"], (1, 0))


def test_assault_tie_prefers_the_arrival_that_does_not_provoke():
    # keep at (1,-1), orc at (1,0). Entering the keep from (0,0) provokes (both next to
    # the orc); from (0,-1) it does not. Make both arrivals cost the same.
    cells = _set(_field(), (1, 0), rampaging="orc_marauders")
    _set(cells, (1, -1), site="keep")
    for zero in (True, False):
        red = [{"terrains": ["plains"], "by": 2}] if zero else []
        res = mc.solve(scenario(cells, 6, paths=True, reductions=red))
        e = end(res, (1, -1))
        if zero:   # 0 via (0,0) provoking, 0 via (0,-1) quiet: quiet wins the tie
            assert e["cost"] == 0 and e["flags"] == ["assault"]
            assert _quiet(e["path"], (1, 0)) and e["path"][-1] == [1, -1]
        else:      # 2 provoking, 4 quiet: both reported
            assert e["cost"] == 2 and e["flags"] == ["assault", "provoked"]
            assert e["free_cost"] == 4 and e["free_path"][-2:] == [[0, -1], [1, -1]]


def test_two_tokens_and_a_step_between_them():
    cells = _set(_field(), (1, 0), rampaging="orc_marauders")
    _set(cells, (-1, 1), rampaging="draconum")
    res = mc.solve(scenario(cells, 2))
    assert end(res, (0, 1))["provoked"] == [[-1, 1], [1, 0]]


# --------------------------------------------------------------------- reductions
def _apply(cost, order):
    for by, floor in order:
        cost = min(cost, max(floor, cost - by))
    return max(cost, 0)


def test_reduction_order_is_the_best_of_all_orders():
    rng = random.Random(4)
    for _ in range(3000):
        reds = [(rng.randint(0, 4), rng.randint(0, 4)) for _ in range(rng.randint(1, 4))]
        base = rng.randint(0, 7)
        best = min(_apply(base, p) for p in itertools.permutations(reds))
        assert mk.reduce_cost(base, reds) == best, (base, reds)


def test_reductions_through_solve():
    # Path Finding (all -1, min 2) and Song of Wind (plains, desert, wasteland -1, min 0)
    line = [cell((0, 0)), cell((1, 0), "desert"), cell((2, 0), "wasteland"),
            cell((0, 1), "swamp"), cell((0, -1), "plains")]
    red = [{"terrains": ["plains", "desert", "wasteland"], "by": 1, "min": 0},
           {"terrains": "all", "by": 1, "min": 2}]
    got = ends(mc.solve(scenario(line, 20, reductions=red)))
    assert got == {(0, 0): 0, (1, 0): 3, (2, 0): 5, (0, 1): 4, (0, -1): 1}
    costs = mk.terrain_costs("day", red)
    assert costs["desert"] == 3 and costs["plains"] == 1 and costs["city"] == 2
    assert costs["lake"] is None


def test_enter_inaccessible_terrain_at_a_cost_is_unsafe():
    line = [cell((0, 0)), cell((1, 0), "lake"), cell((2, 0)), cell((0, 1), "mountain")]
    res = mc.solve(scenario(line, 6, enter=[{"terrains": ["lake"], "cost": 2}]))
    assert ends(res) == {(0, 0): 0, (1, 0): 2, (2, 0): 4}
    assert not end(res, (1, 0))["safe"] and end(res, (2, 0))["safe"]
    # reductions apply to it too
    res = mc.solve(scenario(line, 6, enter=[{"terrains": ["lake", "mountain"], "cost": 3}],
                            reductions=[{"terrains": ["lake"], "by": 2}]))
    assert ends(res) == {(0, 0): 0, (1, 0): 1, (2, 0): 3, (0, 1): 3}


def solved(sc):
    """solve() of ``sc``, held equal to the longhand reference and to the live position's
    moves (the three paths agree)."""
    got = mc.solve(sc)
    assert mk.solve_reference(sc) == got
    q = {k: v for k, v in sc["query"].items() if k != "figure"}
    assert mc.position(sc).legal_moves(sc["query"]["figure"], **q).to_dicts() == got["ends"]
    return got


def test_first_reconnaissance_cities_cannot_be_entered():
    # Scenario Book, First Reconnaissance: "Cities cannot be conquered nor entered in this
    # scenario." A closed city is never an end, not even of a direct move, and a normal
    # move cannot pass through it; a direct move still passes over it.
    base = [cell((0, 0)), cell((1, 0), "swamp", site="city"), cell((2, 0))]
    board = _lakes_around(base)
    assert ends(solved(scenario(board, 6))) == {(0, 0): 0, (1, 0): 2}
    assert ends(solved(scenario(board, 6, cities="closed"))) == {(0, 0): 0}
    base[1]["conquered"] = True
    board = _lakes_around(base)
    assert ends(solved(scenario(board, 6))) == {(0, 0): 0, (1, 0): 2, (2, 0): 4}
    assert ends(solved(scenario(board, 6, cities="closed"))) == {(0, 0): 0}
    for safe in (True, False):
        res = ends(solved(scenario(board, 2, cities="closed", mode="direct", end_safe=safe)))
        assert (1, 0) not in res and res[(2, 0)] == 2
        res = ends(solved(scenario(board, 2, cities="open", mode="direct", end_safe=safe)))
        assert res[(1, 0)] == 1 and res[(2, 0)] == 2


# --------------------------------------------------------------------- movement effects
def test_mist_form_all_terrains_cost_two_and_hills_and_mountains_are_forbidden():
    # Mist Form (spell): "Move 4. The Move cost of all terrains, including lakes, is 2.
    # You cannot enter hills and mountains for the rest of this turn."
    mist = dict(reductions=[{"terrains": "all", "by": 3, "min": 2}],
                enter=[{"terrains": ["lake"], "cost": 2}], forbid=["hills", "mountain"])
    board = _lakes_around([cell((0, 0)), cell((1, 0), "swamp"), cell((2, 0), "hills"),
                           cell((0, 1), "forest"), cell((1, 1), "mountain"),
                           cell((-1, 0), "hills")])
    res = solved(scenario(board, 4, time="night", **mist))
    got = ends(res)
    assert got[(1, 0)] == 2 and got[(0, 1)] == 2 and got[(0, -1)] == 2   # swamp, forest, lake
    assert not {(2, 0), (1, 1), (-1, 0)} & set(got)
    assert not end(res, (0, -1))["safe"]
    # without the forbidding the hills cost 2 as well
    mist.pop("forbid")
    got = ends(solved(scenario(board, 4, time="night", **mist)))
    assert got[(-1, 0)] == 2 and got[(2, 0)] == 4
    # forbidding beats an "enter" effect, and binds a direct move's ends too
    res = solved(scenario(board, 2, forbid=["mountain"], mode="direct", end_safe=False,
                          enter=[{"terrains": ["mountain"], "cost": 1}]))
    assert (1, 1) not in ends(res) and (2, 0) in ends(res)
    assert mk.terrain_costs("day", (), [{"terrains": ["mountain"], "cost": 1}],
                            ["mountain", "city"]) == {**mk.MOVE_COST["day"], "city": None}


ORCS = [cell((0, 0)), cell((1, 0)), cell((2, 0)), cell((1, -1), rampaging="orc_marauders")]


def test_moves_that_do_not_provoke():
    # Space Bending: "Your movement does not provoke rampaging enemies this turn."
    board = _lakes_around(ORCS)
    res = solved(scenario(board, 4))
    assert ends(res) == {(0, 0): 0, (1, 0): 2} and end(res, (1, 0))["flags"] == ["provoked"]
    res = solved(scenario(board, 4, provoke=False, paths=True))
    assert ends(res) == {(0, 0): 0, (1, 0): 2, (2, 0): 4}
    assert all(not e["flags"] for e in res["ends"])
    assert end(res, (2, 0))["path"] == [[0, 0], [1, 0], [2, 0]]


def test_space_bending_leaps_to_spaces_two_away():
    # Space Bending: "This turn, you may move to spaces and explore new tiles that are 2
    # spaces away from you as if they were adjacent. Ignore any spaces you leap over this
    # way. Your movement does not provoke rampaging enemies this turn."
    board = _lakes_around([cell((0, 0)), cell((1, 0), "lake"), cell((2, 0)), cell((3, 0)),
                           cell((4, 0), "forest"), cell((3, -1), rampaging="draconum"),
                           cell((1, 1), "hills", site="keep")], radius=5)
    assert ends(solved(scenario(board, 9))) == {(0, 0): 0}
    res = solved(scenario(board, 9, bend=True, paths=True))
    got = ends(res)
    assert got[(2, 0)] == 2 and got[(3, 0)] == 4 and got[(4, 0)] == 5   # lake leapt
    assert (3, -1) not in got                                           # no entering it
    assert end(res, (4, 0))["path"] == [[0, 0], [2, 0], [4, 0]]
    assert end(res, (1, 1))["flags"] == ["assault"] and got[(1, 1)] == 3
    assert all(f != "provoked" for e in res["ends"] for f in e["flags"])
    # the leap is for normal moves only; a direct move still goes space by space
    res = solved(scenario(board, 2, bend=True, mode="direct", end_safe=False))
    assert ends(res)[(2, 0)] == 2


def _first_turns():
    return json.loads((EXAMPLES / "mage_knight_first_turns.json").read_text())


def test_explore_cost_and_distance():
    sc = _first_turns()
    base = {tuple(e["position"]): (e["cost"], e["from"]) for e in solved(sc)["explore"]}
    assert base == {(-2, -1): (3, [0, -1]), (6, -4): (8, [4, -2]), (4, -5): (9, [2, -3])}
    # Feral Allies (Braevalar) "Exploring costs -1 Move"; Hawk Eyes (Wolfhawk) at night
    sc["options"]["explore"] = {"cost": 1}
    got = {tuple(e["position"]): e["cost"] for e in solved(sc)["explore"]}
    assert got == {p: c - 1 for p, (c, _) in base.items()}
    # no exploring this turn
    sc["options"]["explore"] = {"cost": None}
    assert solved(sc)["explore"] == []
    # from 2 spaces away (Space Bending: "explore new tiles that are 2 spaces away")
    sc["options"]["explore"] = {"distance": 2}
    got = {tuple(e["position"]): (e["cost"], e["from"]) for e in solved(sc)["explore"]}
    assert got[(-2, -1)] == (2, [0, 0])
    assert all(got[p][0] <= base[p][0] for p in base)
    sc["query"]["reveal"] = [{"position": [-2, -1], "tile": "countryside_1"}]
    assert solved(sc)["revealed"] == [[-2, -1]]       # revealed from (0, 0), 2 away
    sc["options"].pop("explore")
    with pytest.raises(mc.PlacementError):
        mc.solve(sc)


# --------------------------------------------------------------------- tiles
def test_tile_catalogue_is_consistent():
    cat = mk.tile_catalogue()
    kinds = {}
    for name, t in cat.items():
        kinds.setdefault(t["kind"], []).append(name)
        hexes = [c["hex"] for c in t["cells"]]
        assert len(set(hexes)) == len(hexes) and set(hexes) <= set(mk.TILE_HEXES)
        if t["kind"] != "starting":
            assert len(hexes) == 7
        for c in t["cells"]:
            mk.map._check_space(mk.Space(c["terrain"], c.get("site"), False, None,
                                     c.get("rampaging")), name)
    base = {k: [n for n in v if "expansion" not in cat[n]] for k, v in kinds.items()}
    assert len(base["countryside"]) == 11 and len(base["core"]) == 8
    assert sorted(n for n in cat if cat[n].get("expansion") == "lost_legion") == \
        ["core_9", "countryside_12", "countryside_13", "countryside_14"]
    assert sum(c.get("site") == "city" for n in kinds["core"] for c in cat[n]["cells"]) == 4
    assert [c["site"] for c in cat["A"]["cells"] if c["hex"] == "C"] == ["portal"]


def test_disputed_hexes_follow_the_settled_reading():
    """The hexes where the two first sources disagree hold the reading a third source
    settled (recorded in the JSON file), the two city arts aside (no third reading)."""
    data = json.loads((Path(mk.__file__).with_name("tiles.json")).read_text())
    assert "Stoeoef/mageknight" in data["settled_with"]
    cat = mk.tile_catalogue()
    hexes = {t: {c["hex"]: c for c in cat[t]["cells"]} for t in cat}
    for d in data["disputes"]:
        assert d["third_source"] == "Stoeoef/mageknight" and d["settled"]
    assert not {"W", "SW", "SE"} & set(hexes["A"]) and not {"W", "SW"} & set(hexes["B"])
    assert hexes["countryside_7"]["SE"]["site"] == "dungeon"
    assert hexes["countryside_9"]["NW"]["site"] == "dungeon"
    assert hexes["core_2"]["NE"]["terrain"] == "swamp"
    assert hexes["core_4"]["NW"]["terrain"] == "hills"
    assert hexes["core_4"]["E"]["terrain"] == "wasteland"
    unsettled = [d["tile"] for d in data["disputes"] if d["settled"].startswith("not")]
    assert unsettled == ["core_5", "core_8"]


def test_tiles_lattice_and_neighbours():
    for a, b in itertools.combinations([(0, 0)] + list(mk.TILE_STEPS), 2):
        assert not set(mk.tile_cells(a)) & set(mk.tile_cells(b))
    for s in mk.TILE_STEPS:   # neighbouring tiles share borders: some spaces adjacent
        assert mk.on_tile_lattice(s)
        board = mc.Board.hex(mk.tile_cells((0, 0)) + mk.tile_cells(s))
        assert any(board.adjacent(i, j) for i in range(7) for j in range(7, 14))
    assert not mk.on_tile_lattice((1, 0)) and not mk.on_tile_lattice((3, 0))


def test_placement_rules():
    tiles = [{"position": [0, 0], "tile": "A"}, {"position": [3, -2], "tile": "countryside_1"},
             {"position": [1, -3], "tile": "countryside_2"}]
    m = mk.read_map({"tiles": tiles, "open": [[4, -5], [6, -4], [-2, -1]]})
    # [4,-5] touches [3,-2]... and [1,-3]: two tiles
    assert m.touching_tiles((4, -5)) == 2
    assert m.placeable((4, -5), "countryside") and m.placeable((4, -5), "core")
    assert not m.placeable((4, -5), "fallback")
    # [6,-4] touches only [3,-2], which touches two tiles: countryside yes, core no
    assert m.touching_tiles((6, -4)) == 1
    assert m.placeable((6, -4), "countryside") and not m.placeable((6, -4), "core")
    # [-2,-1] touches only tile A... which touches two: countryside yes
    assert m.placeable((-2, -1), "countryside")
    m1 = mk.read_map({"tiles": tiles[:1], "open": [[3, -2]]})
    assert not m1.placeable((3, -2), "countryside")


def _shaped(shape, tiles, **board):
    return {"game": "mage_knight",
            "board": {"tiles": [{"position": list(p), "tile": t} for p, t in tiles],
                      "shape": shape, **board},
            "figures": [{"id": "h", "at": [0, 0]}], "query": {"figure": "h", "budget": 20}}


WEDGE = [((0, 0), "A"), ((3, -2), "countryside_2"), ((1, -3), "countryside_3")]


def test_wedge_map_positions_and_no_core_tile_on_the_coast():
    # Scenario Book, Map Shape: "Wedge Map. This shape uses starting tile A. ... Core
    # (brown) tiles cannot be added to the coastline. (i.e. to the leftmost and rightmost
    # lane of tiles)."
    m = mk.read_map(_shaped("wedge", WEDGE)["board"])
    assert m.open == ((2, -6), (4, -5), (6, -4))      # [-2, -1] is behind the coast
    assert [mk.on_coast(p, "wedge") for p in m.open] == [True, False, True]
    assert m.placeable((4, -5), "core") and not m.placeable((2, -6), "core")
    assert m.placeable((2, -6), "countryside")
    sc = _shaped("wedge", WEDGE, next_tile="core")
    placeable = {tuple(e["position"]): e["placeable"] for e in solved(sc)["explore"]}
    assert placeable == {(2, -6): False, (4, -5): True, (6, -4): False}
    with pytest.raises(mc.PlacementError):
        m.reveal((6, -4), "core_1")
    m2 = m.reveal((4, -5), "core_1")                  # the map grows: new positions open
    assert m2.open == ((2, -6), (5, -8), (6, -4), (7, -7))
    m3 = m2.reveal((6, -4), "countryside_1")
    assert (9, -6) in m3.open and not m3.placeable((9, -6), "core")


def test_open_maps_limit_the_columns():
    # Scenario Book, Map Shape: "A fully open map uses starting tile B, and you deal three
    # tiles adjacent to it at the start. ... the map can have a maximum of 5 parallel
    # columns of tiles. Imagine the coastline in each direction breaks after you add two
    # tiles to the starting tile." Open maps limited to 4 (leaning right) or 3 columns.
    tiles = [((0, 0), "B"), ((-2, -1), "countryside_1"), ((1, -3), "countryside_2"),
             ((3, -2), "countryside_3")]
    got = {s: set(mk.read_map(_shaped(s, tiles)["board"]).open)
           for s in ("open_5", "open_4", "open_3")}
    assert got["open_5"] == {(-4, -2), (-1, -4), (2, -6), (4, -5), (6, -4)}
    assert got["open_4"] == got["open_5"] - {(-4, -2)}
    assert got["open_3"] == got["open_4"] - {(6, -4)}
    assert not any(mk.on_coast(p, "open_5") for p in got["open_5"])
    m = mk.read_map(_shaped("open_5", tiles)["board"]).reveal((-4, -2), "countryside_4")
    assert (-3, -5) in m.open and (-6, -3) not in m.open   # the coast turns upward
    sc = _shaped("open_3", tiles)
    assert {tuple(e["position"]) for e in solved(sc)["explore"]} <= got["open_3"]
    sc["query"]["reveal"] = [{"position": [2, -6], "tile": "countryside_5"}]
    sc["figures"][0]["at"] = [2, -4]
    assert solved(sc)["revealed"] == [[2, -6]]


def test_full_catalogue_map_solves():
    names = ["A"] + [f"countryside_{i}" for i in range(1, 12)] + [f"core_{i}" for i in
                                                                    range(1, 9)]
    rng = random.Random(2)
    positions = [(0, 0)]
    while len(positions) < len(names):
        p = rng.choice(positions)
        s = rng.choice(mk.TILE_STEPS)
        q = (p[0] + s[0], p[1] + s[1])
        if q not in positions:
            positions.append(q)
    tiles = [{"position": list(p), "tile": n} for p, n in zip(positions, names)]
    res = mc.solve({"game": "mage_knight", "board": {"tiles": tiles},
                    "figures": [{"id": "h", "at": [0, 0]}],
                    "query": {"figure": "h", "budget": 30}})
    assert len(res["ends"]) > 10


# --------------------------------------------------------------------- walls
def _walled(cells, walls, budget, **kw):
    sc = scenario(cells, budget, **kw)
    sc["board"]["walls"] = [[list(a), list(b)] for a, b in walls]
    return sc


LINE = [cell((0, 0)), cell((1, 0)), cell((2, 0), "hills")]


def test_a_wall_costs_one_more_both_ways_and_reductions_never_take_it():
    """Lost Legion, Walls: "To cross a wall on the map, you have to pay 1 extra Move
    point. Terrain discounts cannot negate this extra cost"."""
    wall = [((0, 0), (1, 0))]
    assert ends(mc.solve(scenario(LINE, 9))) == {(0, 0): 0, (1, 0): 2, (2, 0): 5}
    assert ends(mc.solve(_walled(LINE, wall, 9))) == {(0, 0): 0, (1, 0): 3, (2, 0): 6}
    free = [{"terrains": "all", "by": 9, "min": 0}]    # every terrain costs 0
    assert ends(mc.solve(scenario(LINE, 0, reductions=free))) == \
        {(0, 0): 0, (1, 0): 0, (2, 0): 0}
    assert ends(mc.solve(_walled(LINE, wall, 1, reductions=free))) == \
        {(0, 0): 0, (1, 0): 1, (2, 0): 1}
    assert ends(mc.solve(_walled(LINE, wall, 0, reductions=free))) == {(0, 0): 0}
    back = _walled(LINE, wall, 9, figures=[{"id": "h", "at": [2, 0]}], paths=True)
    assert ends(mc.solve(back)) == {(2, 0): 0, (1, 0): 2, (0, 0): 5}   # 2 + 2 + 1
    # a way round the wall is taken when it is cheaper
    ring = LINE + [cell((0, 1)), cell((1, -1), "swamp")]
    got = mc.solve(_walled(ring, wall, 9, paths=True))
    assert end(got, (1, 0))["cost"] == 3 and end(got, (1, 0))["path"] == [[0, 0], [1, 0]]
    cheap = [{"terrains": ["plains"], "by": 2, "min": 0}]
    got = mc.solve(_walled(ring, wall, 9, paths=True, reductions=cheap))
    assert end(got, (1, 0))["cost"] == 0   # round by (0,1): two free plains steps
    assert end(got, (1, 0))["path"] == [[0, 0], [0, 1], [1, 0]]
    for sc in (back, _walled(ring, wall, 9, paths=True, reductions=cheap)):
        assert mk.solve_reference(sc) == mc.solve(sc)


def test_direct_moves_ignore_walls():
    """"Walls have no effect on movement invoked directly by an effect"."""
    sc = _walled(LINE, [((0, 0), (1, 0)), ((1, 0), (2, 0))], 2, mode="direct")
    assert ends(mc.solve(sc)) == {(0, 0): 0, (1, 0): 1, (2, 0): 2}
    assert mk.solve_reference(sc) == mc.solve(sc)


def test_no_provoking_into_a_space_walled_off_from_the_enemy():
    """"Your move does not provoke rampaging enemies if the target space of that move is
    separated from the enemy by a wall": orcs at (1,-1); (0,0), (1,0) and (2,-1) are
    next to them; a wall stands between the orcs and (1,0)."""
    cells = [cell((0, 0)), cell((1, 0)), cell((1, -1), rampaging="orc_marauders"),
             cell((2, -1)), cell((2, 0), "hills")]
    open_ = mc.solve(scenario(cells, 9))
    assert end(open_, (1, 0))["flags"] == ["provoked"] and (2, -1) not in ends(open_)
    wall = [((1, -1), (1, 0))]
    got = mc.solve(_walled(cells, wall, 9, paths=True))
    # (0,0) -> (1,0): into the walled-off space: no provoking, the move goes on
    assert end(got, (1, 0)) == {"at": [1, 0], "cost": 2, "flags": [], "safe": True,
                                "path": [[0, 0], [1, 0]]}
    # (1,0) -> (2,-1): into a space open to the orcs, from one next to them: provoked
    assert end(got, (2, -1))["flags"] == ["provoked"]
    assert end(got, (2, -1))["provoked"] == [[1, -1]] and end(got, (2, -1))["cost"] == 4
    assert end(got, (2, -1))["path"] == [[0, 0], [1, 0], [2, -1]]
    # the other way round: from (2,-1) into (1,0) (walled off) does not provoke
    back = _walled(cells, wall, 9, figures=[{"id": "h", "at": [2, -1]}])
    assert end(mc.solve(back), (1, 0))["flags"] == []
    assert end(mc.solve(back), (0, 0))["flags"] == ["provoked"]   # (1,0) -> (0,0)
    # and the wall's cost: (1,-1) is the orcs' space, never entered: no change there
    for sc in (_walled(cells, wall, 9, paths=True), back):
        assert mk.solve_reference(sc) == mc.solve(sc)
        assert mc.position(sc).solve(sc["query"]) == mc.solve(sc)


def test_an_assault_across_a_wall_pays_the_wall():
    """An assault space's quiet arrival (worked out beside the kernel) pays the wall."""
    cells = [cell((0, 0)), cell((1, 0), site="keep"), cell((0, 1)),
             cell((1, -1), rampaging="orc_marauders")]
    sc = _walled(cells, [((0, 0), (1, 0))], 9, paths=True)
    got = mc.solve(sc)
    # (0,0) -> (1,0) provokes the orcs at cost 3 (2 + the wall); (0,1) -> (1,0) is quiet
    assert end(got, (1, 0))["cost"] == 3 and end(got, (1, 0))["flags"] == \
        ["assault", "provoked"]
    assert end(got, (1, 0))["free_cost"] == 4
    assert end(got, (1, 0))["free_path"] == [[0, 0], [0, 1], [1, 0]]
    assert mk.solve_reference(sc) == got
    assert mc.position(sc).solve(sc["query"]) == got


def test_space_bending_pays_walls_on_steps_not_on_leaps():
    """Space Bending: a step to a neighbour across a wall pays it; a leap to a space 2
    away crosses no side of its own (the spaces leapt over are ignored)."""
    sc = _walled(LINE, [((0, 0), (1, 0)), ((1, 0), (2, 0))], 9, bend=True)
    assert ends(mc.solve(sc)) == {(0, 0): 0, (1, 0): 3, (2, 0): 3}
    assert mk.solve_reference(sc) == mc.solve(sc)


def test_walls_on_random_maps_do_not_change_direct_moves():
    for seed in range(40):
        sc, rng = _random_map(seed)
        sc["query"] = {"figure": "h", "budget": rng.randint(0, 4), "mode": "direct"}
        plain = mc.solve(sc)
        assert mc.solve(_random_walls(sc, seed, 0.5)) == plain, seed


# --------------------------------------------------------------------- Lost Legion
LOST_LEGION = {   # terrains (C, E, NE, NW, W, SW, SE) and walls of each tile
    "countryside_12": ("plains hills wasteland mountain hills plains mountain",
                       [("C", "E"), ("C", "SW"), ("C", "W")]),
    "countryside_13": ("forest lake hills forest wasteland plains forest",
                       [("C", "NE"), ("NE", (2, -1)), ("NE", "E"), ("NW", "NE")]),
    "countryside_14": ("plains wasteland plains desert desert plains hills",
                       [("NE", "C")]),
    "core_9": ("plains mountain hills hills wasteland desert desert",
               [("C", "W"), ("C", "SW"), ("C", "SE"), ("SE", "E"), ("W", "NW")]),
}


def test_lost_legion_tiles_load_with_their_walls():
    cat = mk.tile_catalogue()
    for name, (terrains, walls) in LOST_LEGION.items():
        t = cat[name]
        assert t["expansion"] == "lost_legion" and "mage-knight-digital" in t["source"]
        kind, cells = mk.catalogue_tile(name, (3, -2))
        assert kind == ("core" if name.startswith("core") else "countryside")
        by_hex = {c["hex"]: c["terrain"] for c in t["cells"]}
        assert [by_hex[h] for h in mk.TILE_HEXES] == terrains.split(), name
        assert len(cells) == 7 and len({c for c, _ in cells}) == 7
        q0, r0 = 3, -2

        def at(h):
            d = mk.TILE_HEXES[h] if isinstance(h, str) else h
            return (q0 + d[0], r0 + d[1])
        want = {mk.wall_key(at(a), at(b)) for a, b in walls}
        assert set(mk.catalogue_walls(name, (q0, r0))) == want, name
        for a, b in want:
            assert mk.map._read_wall([a, b], "w") == (a, b)   # every wall between neighbours
    hexes = {n: {c["hex"]: c for c in cat[n]["cells"]} for n in LOST_LEGION}
    assert hexes["countryside_12"]["C"]["rampaging"] == "orc_marauders"
    assert hexes["countryside_13"]["NE"]["rampaging"] == "orc_marauders"
    assert hexes["core_9"]["C"]["rampaging"] == "draconum"
    assert hexes["countryside_14"]["NE"]["site"] == "keep"
    assert hexes["core_9"]["NE"]["site"] == "mage_tower"
    assert "core_10" not in cat


def test_lost_legion_tile_in_a_scenario_and_revealed():
    """countryside_12 east of tile A: the orcs in its centre are walled off from E, SW
    and W; countryside_13 revealed north-east brings its walls, one of them on its edge
    towards a tile not yet placed (it waits for that tile)."""
    tiles = [{"position": [0, 0], "tile": "A"}, {"position": [3, -2], "tile": "countryside_12"}]
    sc = {"game": "mage_knight", "board": {"tiles": tiles, "open": [[1, -3], [4, -5]]},
          "figures": [{"id": "h", "at": [2, -1]}], "query": {"figure": "h", "budget": 6}}
    m = mk.read_map(sc["board"])
    assert m.board.edges.shape[0] and len(m.walls) == 3
    got = mc.solve(sc)
    # the hero on c12's SW maze (2,-1); its W refugee camp (hills, 3) (2,-2): both are
    # next to the orcs at (3,-2) and both walled off from them: the step does not
    # provoke (it would without the walls)
    assert end(got, (2, -2))["flags"] == [] and end(got, (2, -2))["cost"] == 3
    sc2 = json.loads(json.dumps(sc))
    sc2["board"]["tiles"][1] = {"position": [3, -2], "kind": "countryside", "cells": [
        {"hex": c["hex"], **{k: v for k, v in c.items() if k != "hex"}}
        for c in mk.tile_catalogue()["countryside_12"]["cells"]]}
    assert end(mc.solve(sc2), (2, -2))["flags"] == ["provoked"]     # the same, no walls
    # the same walls given as tile walls of a tile in scenario words
    sc2["board"]["tiles"][1]["walls"] = [{"hex": "C", "side": s} for s in ("E", "SW", "W")]
    assert mc.solve(sc2) == got
    # reveal countryside_13 at (1,-3): its NE hex (2,-4) is walled on its E side towards
    # (3,-4), a space of the tile at (4,-5), not yet placed
    r = mk.read_map(sc["board"]).reveal((1, -3), "countryside_13")
    assert mk.wall_key((2, -4), (3, -4)) in r.walls and r.board.find((3, -4)) < 0
    assert len(r.walls) == 7
    r2 = r.reveal((4, -5), [(c, mk.Space("plains")) for c in mk.tile_cells((4, -5))],
                  kind="countryside")
    a, b = r2.board.find((2, -4)), r2.board.find((3, -4))
    d = int(np.flatnonzero(r2.board.nbr[a] == b)[0])
    assert r2.board.edges[a, d, 0] == mk.WALL_COST == r2.board.edges.sum() // 14
    sc3 = json.loads(json.dumps(sc))
    sc3["figures"][0]["at"] = [1, -1]
    sc3["query"] = {"figure": "h", "budget": 9, "paths": True,
                    "reveal": [{"position": [1, -3], "tile": "countryside_13"}]}
    got = mc.solve(sc3)
    assert got == mk.solve_reference(sc3) and got["revealed"] == [[1, -3]]
    # c13's C (1,-3) mage tower is walled off from its NE (2,-4) orcs: entering it
    # from (1,-2) (next to the orcs too) is an assault that provokes nothing
    assert end(got, (1, -3))["flags"] == ["assault"]


# --------------------------------------------------------------------- differential
def _random_map(seed):
    rng = random.Random(seed)
    radius = rng.randint(2, 3)
    coords = [(q, r) for q in range(-radius, radius + 1) for r in range(-radius, radius + 1)
              if abs(q + r) <= radius and rng.random() < 0.9]
    if (0, 0) not in coords:
        coords.append((0, 0))
    rng.shuffle(coords)
    cells = []
    for at in coords:
        c = cell(at, rng.choice(mk.TERRAINS[:6] * 3 + mk.TERRAINS[6:]))
        x = rng.random()
        if x < 0.06:
            c["site"] = "city"
            c["conquered"] = rng.random() < 0.4
        elif x < 0.14:
            c["site"] = "keep"
            c["owner"] = rng.choice([None, "h", "g"])
        elif x < 0.18:
            c["site"] = "mage_tower"
            c["conquered"] = rng.random() < 0.4
        elif x < 0.24:
            c["site"] = rng.choice(["dungeon", "village", "portal", "ruins"])
        if c.get("owner") is None:
            c.pop("owner", None)
        cells.append(c)
    for c in rng.sample(cells, rng.randint(0, 3)):
        if tuple(c["at"]) != (0, 0):
            c["rampaging"] = rng.choice(mk.RAMPAGING)
    start = next(c for c in cells if tuple(c["at"]) == (0, 0))
    start.update(terrain="plains")
    for k in ("site", "conquered", "owner", "rampaging"):
        start.pop(k, None)
    figs = [{"id": "h", "at": [0, 0]}]
    for c in rng.sample(cells, 2):
        if tuple(c["at"]) != (0, 0) and "rampaging" not in c and \
                c["terrain"] not in mk.INACCESSIBLE:
            figs.append({"id": f"o{len(figs)}", "at": c["at"]})
    reductions = [{"terrains": rng.choice(["all", ["plains"], ["forest", "hills", "city"],
                                           ["swamp", "desert"]]),
                   "by": rng.randint(0, 3), "min": rng.randint(0, 3)}
                  for _ in range(rng.choice([0, 0, 1, 2]))]
    enter = [{"terrains": ["lake"], "cost": rng.randint(1, 4)}] if rng.random() < 0.2 else []
    return scenario(cells, rng.randint(0, 10), time=rng.choice(mk.TIMES), figures=figs,
                    reductions=reductions, enter=enter, paths=True,
                    pvp=rng.random() < 0.7), rng


def _walls_of(sc):
    """The walls of a scenario's board as a set of frozensets of two coordinates."""
    return {frozenset(map(tuple, w)) for w in sc["board"].get("walls", [])}


def _enumerate(m, hero, table, budget, walls=frozenset()):
    """Every simple path from the hero within budget, longhand: {cell: [(cost, quiet,
    provoked tokens, free)]} of every arrival that is an end (quiet: did not provoke;
    free: did not have to stop at all). ``walls`` (frozensets of two coordinates): a
    step across one costs 1 more, and a step provokes an enemy only into a space that
    no wall separates from it."""
    board = m.board
    tokens = [i for i, s in enumerate(m.spaces) if s.rampaging]
    out = {hero: [(0, True, (), True)]}

    def wall(a, b):
        return frozenset((board.coord(a), board.coord(b))) in walls

    def near(c, t):
        return board.adjacent(c, t)

    def go(u, cost, seen):
        for v in board.nbr[u]:
            v = int(v)
            if v < 0 or v in seen:
                continue
            s = m.spaces[v]
            step = table[mk.COST_CLASSES.index(s.cost_class)]
            if s.rampaging or step < 0:
                continue
            step += wall(u, v)
            if cost + step > budget:
                continue
            prov = tuple(m.board.coord(t) for t in tokens
                         if near(u, t) and near(v, t) and not wall(v, t))
            stop = s.stops(m_player) or bool(prov)
            out.setdefault(v, []).append((cost + step, not prov, prov, not stop))
            if not stop:
                go(v, cost + step, seen | {v})

    m_player = "h"
    go(hero, 0, {hero})
    return out


def _random_walls(sc, seed, share=0.25):
    """``sc`` with walls on a random ``share`` of the sides between its spaces (its own
    random stream)."""
    rng = random.Random(seed + 90001)
    at = {tuple(c["at"]) for c in sc["board"]["cells"]}
    sides = sorted({tuple(sorted((a, (a[0] + d[0], a[1] + d[1]))))
                    for a in at for d in mk.SIDES.values()
                    if (a[0] + d[0], a[1] + d[1]) in at})
    sc["board"]["walls"] = [[list(a), list(b)] for a, b in sides if rng.random() < share]
    return sc


def test_random_maps_against_oracle_and_enumeration():
    checked = 0
    for seed in range(250):
        sc, rng = _random_map(seed)
        checked += _check_against_oracle(sc, seed)
    assert checked > 1000


def test_random_walled_maps_against_oracle_and_enumeration():
    """Walls: the oracle's directed sides cost 1 more, and a step from a space walled
    off from an enemy into one open to it stops (a stop side); the enumeration applies
    the rule longhand."""
    checked = walled = 0
    for seed in range(250):
        sc, _ = _random_map(seed)
        _random_walls(sc, seed)
        walled += len(sc["board"]["walls"])
        checked += _check_against_oracle(sc, seed)
    assert checked > 1000 and walled > 2000


def _check_against_oracle(sc, seed):
    """solve() of a random map against the oracle and the enumeration; returns the
    number of ends checked."""
    checked = 0
    res = mc.solve(sc)
    m = mk.read_map(sc["board"])
    heroes = mk.read_heroes(m, sc["figures"])
    hero = heroes[0]
    opts = sc["options"]
    costs = mk.terrain_costs(opts["time"], opts["reductions"], opts["enter"])
    table = [-1 if costs[t] is None else costs[t] for t in mk.COST_CLASSES]
    budget = sc["query"]["budget"]
    board = m.board
    n = board.n_cells
    tokens = [i for i, s in enumerate(m.spaces) if s.rampaging]
    walls = _walls_of(sc)

    def wall(u, v):
        return frozenset((board.coord(u), board.coord(v))) in walls

    zoc = [0] * n          # next to the enemy, no wall between
    zoc_from = [0] * n     # next to it
    for b, t in enumerate(tokens):
        for v in board.nbr[t]:
            if v >= 0:
                zoc_from[v] |= 1 << b
                if not wall(v, t):
                    zoc[v] |= 1 << b
    edges = {}
    for u in range(n):
        for v in board.nbr[u]:
            v = int(v)
            if v >= 0:
                stop = bool(zoc_from[u] & zoc[v] & ~(zoc[u] & zoc[v]))
                if wall(u, v) or stop:
                    edges[(u, v)] = (int(wall(u, v)), False, stop)
    spec = dict(kind="hex", coords=[board.coord(i) for i in range(n)],
                cost=[table[board.terrain[i]] for i in range(n)], height=[0] * n,
                stop=[s.stops("h") for s in m.spaces],
                blocked=[s.rampaging is not None for s in m.spaces],
                no_end=[False] * n, occupant=[None] * n, links=[], edges=edges, team=0,
                allies="pass", enemies="block", climb_per_level=0, climb_flat=0,
                max_climb=None, descend_per_level=0, link_kinds=None,
                corner_cutting=True, zoc=zoc, leave=None, enter_pen=None,
                leave_weight=1, max_penalty=0)
    want = oracle_reach(spec, [hero.cell], budget)
    got = {board.index(e["at"]): e for e in res["ends"]}
    assert set(got) == set(want), seed
    arrivals = _enumerate(m, hero.cell, table, budget, walls)
    assert set(arrivals) == set(got), seed
    for c, e in got.items():
        assert e["cost"] == want[c]["cost"] == min(a[0] for a in arrivals[c]), seed
        quiet = [a[0] for a in arrivals[c] if a[1]]
        provokes = bool(quiet) is False or min(quiet) > e["cost"]
        assert ("provoked" in e["flags"]) == provokes, (seed, e)
        if provokes and quiet:
            assert e["free_cost"] == min(quiet), (seed, e)
        else:
            assert "free_cost" not in e, (seed, e)
        if not m.spaces[c].stops("h"):
            assert ("provoked" in e["flags"]) == want[c]["stopped"], (seed, e)
        if provokes:
            prov = {tuple(p) for p in e["provoked"]}
            assert any(a[0] == e["cost"] and set(a[2]) == prov for a in arrivals[c])
        # the path is legal and costs what is reported
        path = [board.index(p) for p in e["path"]]
        assert path[0] == hero.cell and path[-1] == c
        total = sum(spec["cost"][v] + wall(u, v) for u, v in zip(path[:-1], path[1:]))
        assert total == e["cost"], (seed, e)
        for u, v in zip(path[:-1], path[1:]):
            assert board.adjacent(u, v) and not spec["blocked"][v]
        for u, v in zip(path[:-2], path[1:-1]):   # no stop before the end
            assert not spec["stop"][v] and not (zoc_from[u] & zoc[v])
        assert ("assault" in e["flags"]) == (c != hero.cell and m.spaces[c].stops("h"))
        assert e["safe"] == (c == hero.cell or mk.is_safe(m, c, hero, heroes))
        checked += 1
    return checked


def test_random_direct_moves_against_oracle():
    for seed in range(150):
        sc, rng = _random_map(seed)
        sc["query"] = {"figure": "h", "budget": rng.randint(0, 4), "mode": "direct"}
        res = mc.solve(sc)
        m = mk.read_map(sc["board"])
        heroes = mk.read_heroes(m, sc["figures"])
        board = m.board
        n = board.n_cells
        spec = dict(kind="hex", coords=[board.coord(i) for i in range(n)], cost=[1] * n,
                    height=[0] * n, stop=[False] * n, blocked=[False] * n,
                    no_end=[not mk.is_safe(m, i, heroes[0], heroes) for i in range(n)],
                    occupant=[None] * n, links=[], edges={}, team=0, allies="pass",
                    enemies="block", climb_per_level=0, climb_flat=0, max_climb=None,
                    descend_per_level=0, link_kinds=None, corner_cutting=True, zoc=None,
                    leave=None, enter_pen=None, leave_weight=1, max_penalty=0)
        want = oracle_reach(spec, [heroes[0].cell], sc["query"]["budget"])
        assert {board.index(e["at"]): e["cost"] for e in res["ends"]} == \
            {c: w["cost"] for c, w in want.items()}, seed
        assert all(e["safe"] for e in res["ends"])


def test_random_explore_against_enumeration():
    checked = 0
    for seed in range(200):
        rng = random.Random(seed)
        names = ["A"] + [f"countryside_{i}" for i in range(1, 12)]
        rng.shuffle(names)
        names.remove("A")
        positions = [(0, 0)]
        while len(positions) < 5:
            p = rng.choice(positions)
            s = rng.choice(mk.TILE_STEPS)
            q = (p[0] + s[0], p[1] + s[1])
            if q not in positions:
                positions.append(q)
        tiles = [{"position": [0, 0], "tile": "A"}] + [
            {"position": list(p), "tile": n} for p, n in zip(positions[1:], names)]
        around = {(p[0] + s[0], p[1] + s[1]) for p in positions for s in mk.TILE_STEPS}
        open_ = sorted(around - set(positions))
        sc = {"game": "mage_knight",
              "board": {"tiles": tiles, "open": [list(p) for p in open_],
                        "next_tile": rng.choice(["countryside", "core", "fallback"])},
              "options": {"time": rng.choice(mk.TIMES)},
              "figures": [{"id": "h", "at": [0, 0]}],
              "query": {"figure": "h", "budget": rng.randint(2, 12)}}
        res = mc.solve(sc)
        m = mk.read_map(sc["board"])
        costs = mk.terrain_costs(sc["options"]["time"])
        table = [-1 if costs[t] is None else costs[t] for t in mk.COST_CLASSES]
        arrivals = _enumerate(m, m.board.index((0, 0)), table, sc["query"]["budget"])
        quiet = {c: min(a[0] for a in arr if a[3]) for c, arr in arrivals.items()
                 if any(a[3] for a in arr)}
        want = {}
        for pos in open_:
            cands = [quiet[c] + 2 for c in m.cells_next_to(pos) if c in quiet]
            if cands and min(cands) <= sc["query"]["budget"]:
                want[pos] = min(cands)
        got = {tuple(e["position"]): e for e in res["explore"]}
        assert {p: e["cost"] for p, e in got.items()} == want, seed
        for p, e in got.items():
            assert e["placeable"] == m.placeable(p)
            assert quiet[m.board.index(e["from"])] + 2 == e["cost"]
            checked += 1
    assert checked > 100


# --------------------------------------------------------------------- bad input
@pytest.mark.parametrize("mutate, error", [
    (lambda s: s["board"]["cells"][1].update(terrain="ocean"), mc.BoardError),
    (lambda s: s["board"]["cells"][1].update(site="castle"), mc.BoardError),
    (lambda s: s["board"]["cells"][1].update(rampaging="goblins"), mc.BoardError),
    (lambda s: s["board"]["cells"][1].update(site="village", conquered=True), mc.BoardError),
    (lambda s: s["board"]["cells"][1].update(site="mage_tower", owner="h"), mc.BoardError),
    (lambda s: s["board"]["cells"][1].update(terrain=None), mc.BoardError),
    (lambda s: s["board"]["cells"].append({"at": [0, 0], "terrain": "hills"}), mc.BoardError),
    (lambda s: s["board"].update(tiles=[{"position": [1, 0], "tile": "core_1"}]),
     mc.BoardError),
    (lambda s: s["board"].update(tiles=[{"position": [3, -2], "tile": "core_99"}]),
     mc.BoardError),
    (lambda s: s["board"].update(open=[[2, 0]]), mc.BoardError),
    (lambda s: s["board"].update(open=[[0, 0]]), mc.BoardError),
    (lambda s: s["board"].update(next_tile="city"), mc.ScenarioError),
    (lambda s: s["board"].update(shape="hexagon"), mc.ScenarioError),
    (lambda s: s["board"].update(shape="wedge", open=[]), mc.ScenarioError),
    (lambda s: s["board"]["cells"][0].update(terrain="lake"), mc.PlacementError),
    (lambda s: s["board"]["cells"][0].update(rampaging="draconum"), mc.PlacementError),
    (lambda s: s["figures"].append({"id": "h", "at": [1, 0]}), mc.ScenarioError),
    (lambda s: s["figures"].append({"id": "g", "at": [0, 0]}), mc.PlacementError),
    (lambda s: s["figures"][0].update(at=[9, 9]), mc.PlacementError),
    (lambda s: s["query"].update(figure="zz"), mc.QueryError),
    (lambda s: s["query"].update(budget=-1), mc.ScenarioError),
    (lambda s: s["query"].update(mode="fly"), mc.ScenarioError),
    (lambda s: s["query"].update(end_safe=False), mc.ScenarioError),
    (lambda s: s["query"].update(reveal=[{"position": [3, -2], "tile": "core_1"}]),
     mc.PlacementError),
    (lambda s: s["options"].update(time="dusk"), mc.ScenarioError),
    (lambda s: s["options"].update(reductions=[{"terrains": ["lava"], "by": 1}]),
     mc.ScenarioError),
    (lambda s: s["options"].update(reductions=[{"terrains": "all", "by": -1}]),
     mc.ScenarioError),
    (lambda s: s["options"].update(enter=[{"terrains": ["plains"], "cost": 1}]),
     mc.ScenarioError),
    (lambda s: s["options"].update(colour="red"), mc.ScenarioError),
    (lambda s: s["options"].update(cities="sealed"), mc.ScenarioError),
    (lambda s: s["options"].update(cities=False), mc.ScenarioError),
    (lambda s: s["options"].update(forbid=["lava"]), mc.ScenarioError),
    (lambda s: s["options"].update(forbid="hills"), mc.ScenarioError),
    (lambda s: s["options"].update(provoke="no"), mc.ScenarioError),
    (lambda s: s["options"].update(bend=1), mc.ScenarioError),
    (lambda s: s["options"].update(explore={"distance": 3}), mc.ScenarioError),
    (lambda s: s["options"].update(explore={"cost": -1}), mc.ScenarioError),
    (lambda s: s["options"].update(explore={"range": 2}), mc.ScenarioError),
    (lambda s: s["options"].update(explore=2), mc.ScenarioError),
    (lambda s: s["board"]["cells"][1].update(terrain=3), mc.ScenarioError),
    (lambda s: s["board"].update(cells="x"), mc.ScenarioError),
    (lambda s: s["board"].update(walls=[[[0, 0], [2, 0]]]), mc.BoardError),
    (lambda s: s["board"].update(walls=[[[0, 0], [1, 0]], [[1, 0], [0, 0]]]),
     mc.BoardError),
    (lambda s: s["board"].update(walls=[[[5, 5], [6, 5]]]), mc.BoardError),
    (lambda s: s["board"].update(walls=[[0, 0]]), mc.ScenarioError),
    (lambda s: s["board"].update(walls=[[[0, 0]]]), mc.BoardError),
    (lambda s: s["board"].update(walls=[[[0, 0], [1, "x"]]]), mc.ScenarioError),
    (lambda s: s["board"].update(walls={"a": 1}), mc.ScenarioError),
    (lambda s: s["board"].update(tiles=[{"position": [3, -2], "tile": "countryside_12",
                                         "walls": [{"hex": "C", "side": "E"}]}]),
     mc.BoardError),
    (lambda s: s["board"].update(tiles=[{"position": [3, -2], "cells": [
        {"hex": "C", "terrain": "plains"}], "walls": [{"hex": "C", "side": "N"}]}]),
     mc.ScenarioError),
    (lambda s: s["board"].update(tiles=[{"position": [3, -2], "cells": [
        {"hex": "C", "terrain": "plains"}], "walls": [{"hex": "C"}]}]), mc.ScenarioError),
])
def test_bad_input_gets_a_typed_error(mutate, error):
    sc = scenario([cell((0, 0)), cell((1, 0), "hills")], 4)
    mutate(sc)
    with pytest.raises(error):
        mc.solve(sc)


def test_reveal_must_be_next_to_the_hero_and_open():
    tiles = [{"position": [0, 0], "tile": "A"}, {"position": [3, -2], "tile": "countryside_3"}]
    sc = {"game": "mage_knight", "board": {"tiles": tiles, "open": [[1, -3], [-2, -1]]},
          "figures": [{"id": "h", "at": [0, 0]}],
          "query": {"figure": "h", "budget": 4,
                    "reveal": [{"position": [-2, -1], "tile": "countryside_1"}]}}
    with pytest.raises(mc.PlacementError):   # (0,0) is not next to [-2,-1]
        mc.solve(sc)
    sc["query"]["reveal"] = [{"position": [4, -5], "tile": "countryside_1"}]
    with pytest.raises(mc.PlacementError):   # not an open position
        mc.solve(sc)
    sc["figures"][0]["at"] = [0, -1]
    sc["query"]["reveal"] = [{"position": [1, -3], "tile": "countryside_1"}]
    res = mc.solve(sc)
    assert res["revealed"] == [[1, -3]]
    # NW of the new tile at [1,-3] is (1,-4): forest with orcs; its W is forest (0,-3)
    assert (0, -3) not in ends(res) or end(res, (0, -3))["cost"] >= 3


# --------------------------------------------------------------------- examples
def test_bundled_examples_solve():
    files = sorted(EXAMPLES.glob("mage_knight_*.json"))
    assert files
    for f in files:
        sc = json.loads(f.read_text())
        res = mc.solve(sc)
        assert res["ends"] and res["ends"][0]["cost"] == 0
