"""Dark Realms adapter: the worked examples of RULES.md §4.4, the enemy AI against a
brute-force reference that applies the documented rules literally, hero moves against the
foundation's oracle on random boards, bad input, and the bundled examples."""
from __future__ import annotations

import heapq
import json
import random
from pathlib import Path

import pytest

import movecore as mc
from oracle import DIRS, oracle_reach

EXAMPLES = sorted((Path(mc.__file__).parent / "examples").glob("dark_realms_*.json"))


# ----------------------------------------------------------------------------- helpers
def corridor(n=11, **marks):
    """RULES.md's corridor c0 - c1 - ... as a 1-wide square4 strip: c_i = (i, 0)."""
    cells = []
    for i in range(n):
        c = {"at": [i, 0]}
        for k, where in marks.items():
            if i in where:
                c[k] = True
        cells.append(c)
    return {"grid": "square4", "cells": cells}


def c(i):
    return [i, 0]


def scenario(board, figures, query, **options):
    s = {"game": "dark_realms", "board": board, "figures": figures, "query": query}
    if options:
        s["options"] = options
    return s


def hero(fid="h", at=0, **kw):
    return {"id": fid, "side": "hero", "at": c(at) if isinstance(at, int) else at, **kw}


def ends_of(result):
    return {tuple(e["at"]): e for e in result["ends"]}


def corridor_ends(result):
    return sorted(e["at"][0] for e in result["ends"])


# ----------------------------------------------------------------------------- RULES §4.4
def test_dr1_die_move_plus_stamina():
    r = mc.solve(scenario(corridor(), [hero()], {"figure": "h", "roll": 3, "stamina": 4}))
    assert corridor_ends(r) == list(range(0, 8))          # c1..c7 (and the start)
    e = {x["at"][0]: x for x in r["ends"]}
    assert e[5]["stamina"] == 2 and e[3]["stamina"] == 0 and 8 not in e
    assert all(x["stamina"] == max(0, x["cost"] - 3) for x in r["ends"])


def test_dr2_move_plus_two():
    r = mc.solve(scenario(corridor(), [hero()],
                          {"figure": "h", "roll": 1, "bonus": 2, "stamina": 3}))
    e = {x["at"][0]: x["stamina"] for x in r["ends"]}
    assert e == {0: 0, 1: 0, 2: 0, 3: 0, 4: 1, 5: 2, 6: 3}
    assert r["card_move"] == 3


def test_dr3_unused_move_is_forfeited():
    a = mc.solve(scenario(corridor(), [hero()], {"figure": "h", "move": 3}))
    assert [2, 0] in [x["at"] for x in a["ends"]]
    # the hero stopped at c2; card B ("Move 2") starts there with its own value only
    b = mc.solve(scenario(corridor(), [hero(at=2)], {"figure": "h", "move": 2}))
    assert corridor_ends(b) == [0, 1, 2, 3, 4]


def test_dr4_stamina_only_move_once_per_round():
    r = mc.solve(scenario(corridor(), [hero()],
                          {"figure": "h", "stamina_only": True, "stamina": 2}))
    assert corridor_ends(r) == [0, 1, 2]
    assert ends_of(r)[(2, 0)]["stamina"] == 2
    with pytest.raises(mc.QueryError, match="already made its Stamina-only move"):
        mc.solve(scenario(corridor(), [hero(at=2, stamina_moved=True)],
                          {"figure": "h", "stamina_only": True, "stamina": 2}))
    # extending a card's move with Stamina is still allowed after it
    r = mc.solve(scenario(corridor(), [hero(at=2, stamina_moved=True)],
                          {"figure": "h", "move": 1, "stamina": 2}))
    assert corridor_ends(r) == [0, 1, 2, 3, 4, 5]


def test_dr5_summon_moves_without_stamina():
    figs = [{"id": "wolf", "side": "summon", "at": c(0)}, hero(at=10)]
    r = mc.solve(scenario(corridor(), figs, {"figure": "wolf", "move": 3}))
    assert corridor_ends(r) == [0, 1, 2, 3]
    with pytest.raises(mc.QueryError, match="only heroes can spend Stamina"):
        mc.solve(scenario(corridor(), figs, {"figure": "wolf", "move": 3, "stamina": 1}))
    with pytest.raises(mc.QueryError, match="only heroes"):
        mc.solve(scenario(corridor(), figs,
                          {"figure": "wolf", "stamina_only": True, "stamina": 1}))


def _two_routes(trap_cells):
    """5x3 square4 board, middle row (1..3, 1) obstacles: two 5-step routes from the enemy
    at (0, 1) to the spaces next to the hero at (4, 1): over the top and along the bottom."""
    cells = []
    for y in range(3):
        for x in range(5):
            cell = {"at": [x, y]}
            if y == 1 and 1 <= x <= 3:
                cell["obstacle"] = True
            if (x, y) in trap_cells:
                cell["trap"] = True
            cells.append(cell)
    figs = [{"id": "orc", "side": "enemy", "at": [0, 1]}, hero(at=[4, 1])]
    return scenario({"grid": "square4", "cells": cells}, figs,
                    {"enemy": "orc", "move": 5, "attack_range": 1})


@pytest.mark.parametrize("avoid", ["detour", "shortest"])
def test_dr8_enemy_walks_around_a_trap(avoid):
    s = _two_routes({(2, 0)})
    s["options"] = {"trap_avoidance": avoid}
    r = mc.solve(s)
    assert r["at"] == [4, 2] and r["steps"] == 5 and r["traps"] == 0
    assert [2, 0] not in r["path"]
    s = _two_routes({(2, 2)})                      # the other route has the trap now
    s["options"] = {"trap_avoidance": avoid}
    assert mc.solve(s)["at"] == [4, 0]
    # every route has a trap: it walks through one, and the trap resolves
    s = _two_routes({(2, 0), (2, 2)})
    s["options"] = {"trap_avoidance": avoid}
    r = mc.solve(s)
    assert r["in_range"] and r["steps"] == 5 and r["traps"] == 1


def test_dr9_rifts_do_not_block():
    r = mc.solve(scenario(corridor(rift=[2]), [hero()], {"figure": "h", "move": 3}))
    assert corridor_ends(r) == [0, 1, 2, 3]


def test_dr10_flying():
    board = corridor(obstacle=[2], trap=[3])
    fly = {"id": "bat", "side": "enemy", "at": c(0), "flying": True}
    r = mc.solve(scenario(board, [fly, hero(at=10)], {"figure": "bat", "move": 4}))
    assert corridor_ends(r) == [0, 1, 3, 4]      # over c2, never ending on the obstacle
    assert all(e["traps"] == 0 for e in r["ends"])  # the trap on c3 does not affect it
    walk = dict(fly, flying=False)
    r = mc.solve(scenario(board, [walk, hero(at=10)], {"figure": "bat", "move": 4}))
    assert corridor_ends(r) == [0, 1]
    # as an enemy AI move towards a hero at c8: the flyer reaches c4, the walker is stuck
    q = {"enemy": "bat", "move": 4}
    assert mc.solve(scenario(board, [fly, hero(at=8)], q))["at"] == c(4)
    stuck = mc.solve(scenario(board, [walk, hero(at=8)], q))
    assert stuck["at"] == c(1) and stuck["reason"] == "no_route"


def test_dr11_teleport():
    figs = [hero(), {"id": "g1", "side": "enemy", "at": c(1)},
            {"id": "g2", "side": "enemy", "at": c(2)}]
    r = mc.solve(scenario(corridor(obstacle=[4]), figs, {"figure": "h", "teleport": 3}))
    assert corridor_ends(r) == [0, 3]            # c1, c2 taken; c4 beyond 3; obstacle
    r = mc.solve(scenario(corridor(), figs, {"figure": "h", "teleport": 4}))
    assert corridor_ends(r) == [0, 3, 4]
    # a walk could not get there at all
    assert corridor_ends(mc.solve(scenario(corridor(), figs,
                                           {"figure": "h", "move": 4}))) == [0]


# ----------------------------------------------------------------------------- enemy rules
def test_enemy_stops_at_attack_distance():
    """Enemy_Actions: Move 4 then Attack Distance 3 -> it stays 3 spaces away."""
    figs = [{"id": "archer", "side": "enemy", "at": c(0)}, hero(at=7)]
    r = mc.solve(scenario(corridor(), figs, {"enemy": "archer", "move": 4,
                                             "attack_range": 3}))
    assert r["at"] == c(4) and r["steps"] == 4 and r["in_range"]
    figs[1]["at"] = c(6)
    r = mc.solve(scenario(corridor(), figs, {"enemy": "archer", "move": 4,
                                             "attack_range": 3}))
    assert r["at"] == c(3) and r["steps"] == 3          # not one space closer
    figs[1]["at"] = c(3)
    r = mc.solve(scenario(corridor(), figs, {"enemy": "archer", "move": 4,
                                             "attack_range": 3}))
    assert r["at"] == c(0) and r["steps"] == 0 and r["path"] == [c(0)]  # already in range
    figs[1]["at"] = c(10)
    r = mc.solve(scenario(corridor(), figs, {"enemy": "archer", "move": 4,
                                             "attack_range": 3}))
    assert r["at"] == c(4) and not r["in_range"]       # as close as possible


def _open_board():
    return {"grid": "square4", "cells": [{"at": [x, y]} for x in range(9) for y in range(5)]}


def test_enemy_target_priority():
    board = _open_board()
    e = {"id": "e", "side": "enemy", "at": [4, 2]}
    near = {"id": "near", "side": "hero", "at": [5, 2], "speed": 1}
    far = {"id": "far", "side": "hero", "at": [8, 2], "speed": 9}
    q = {"enemy": "e", "move": 3}
    assert mc.solve(scenario(board, [e, near, far], q))["target"] == "near"   # closest
    marked = dict(far, marked=True)
    assert mc.solve(scenario(board, [e, near, marked], q))["target"] == "far"  # mark first
    summon = {"id": "imp", "side": "summon", "at": [0, 0]}
    assert mc.solve(scenario(board, [e, near, far, summon], q))["target"] == "imp"
    assert mc.solve(scenario(board, [e, near, marked, summon], q))["target"] == "far"
    # equally close: the fastest; equally fast too: a tie the die breaks
    twin = {"id": "twin", "side": "hero", "at": [3, 2], "speed": 5}
    assert mc.solve(scenario(board, [e, near, twin], q))["target"] == "twin"
    r = mc.solve(scenario(board, [e, near, dict(twin, speed=1)], q))
    assert r["target"] is None and sorted(r["targets"]) == ["near", "twin"]
    assert [m["target"] for m in r["moves"]] == r["targets"]
    assert "at" not in r


def test_enemy_closest_counts_steps_not_grid_distance():
    # a wall between the enemy and hero a (grid distance 2) makes hero b (distance 3) closer
    cells = [{"at": [x, y], "obstacle": x == 1 and y < 3} for x in range(5) for y in range(4)]
    figs = [{"id": "e", "side": "enemy", "at": [0, 0]}, hero("a", [2, 0]),
            hero("b", [0, 3])]
    r = mc.solve(scenario({"grid": "square4", "cells": cells}, figs,
                          {"enemy": "e", "move": 1}))
    assert r["target"] == "b"


def test_enemy_trap_detour_versus_shortest():
    """A trap-free route longer than the move: 'detour' still walks around (RULES §4.5
    item 6), 'shortest' takes the shortest route and crosses the trap."""
    # top route (0,1) (0,0) .. (6,0): 7 steps, a trap on (3,0); the bottom route through
    # (0,2), row 3 and (6,2) is trap-free but 9 steps long; row 1 is a wall of obstacles
    cells = [{"at": [x, 0], "trap": x == 3} for x in range(7)]
    cells += [{"at": [x, 1], "obstacle": 1 <= x <= 5} for x in range(7)]
    cells += [{"at": [0, 2]}, {"at": [6, 2]}] + [{"at": [x, 3]} for x in range(7)]
    figs = [{"id": "e", "side": "enemy", "at": [0, 1]}, hero(at=[6, 1])]
    board = {"grid": "square4", "cells": cells}
    q = {"enemy": "e", "move": 3}
    short = mc.solve(scenario(board, figs, q, trap_avoidance="shortest"))
    detour = mc.solve(scenario(board, figs, q, trap_avoidance="detour"))
    assert short["path"] == [[0, 1], [0, 0], [1, 0], [2, 0]]
    assert detour["path"] == [[0, 1], [0, 2], [0, 3], [1, 3]]
    # with Move 9 the detour reaches the hero trap-free, the shortest route crosses it
    q["move"] = 9
    assert mc.solve(scenario(board, figs, q, trap_avoidance="detour"))["traps"] == 0
    r = mc.solve(scenario(board, figs, q, trap_avoidance="shortest"))
    assert r["traps"] == 1 and r["steps"] == 7


def test_enemy_never_closer_than_needed_on_equal_routes():
    """Two 3-step ends in range 2 of the hero: (1, 0) at distance 1 (just past the
    obstacle the flyer crosses) and (1, 1) at distance 2. It keeps its distance."""
    cells = [{"at": list(p)} for p in [(0, 0), (1, 0), (0, 1), (4, 1), (1, 1), (3, 0)]]
    cells += [{"at": [4, 0], "trap": True}, {"at": [2, 0], "obstacle": True},
              {"at": [3, 1], "obstacle": True}]
    figs = [{"id": "bat", "side": "enemy", "at": [4, 0], "flying": True}, hero(at=[0, 0])]
    r = mc.solve(scenario({"grid": "hex", "cells": cells}, figs,
                          {"enemy": "bat", "move": 3, "attack_range": 2}))
    assert r["at"] == [1, 1] and r["steps"] == 3 and r["path"][2] == [2, 0]


def test_enemy_delays_unavoidable_traps():
    """Every best route crosses one trap: (2,0) now or (3,1) next turn. Move 2 stops at
    (2,1), the trap not yet crossed, rather than at (3,0) after it."""
    cells = []
    for (x, y) in [(0, 0), (1, 0), (2, 0), (3, 0), (4, 0), (5, 0), (0, 1), (1, 1), (2, 1),
                   (3, 1), (0, 2), (1, 2), (4, 2), (3, 2), (5, 2)]:
        cells.append({"at": [x, y], "trap": (x, y) in {(2, 0), (3, 1), (5, 0), (1, 2),
                                                       (4, 2), (1, 0)},
                      "obstacle": (x, y) in {(3, 2), (5, 2)}})
    figs = [{"id": "e0", "side": "enemy", "at": [1, 0]},
            {"id": "e1", "side": "enemy", "at": [1, 2]}, hero(at=[4, 2])]
    for avoid in ("shortest", "detour"):
        r = mc.solve(scenario({"grid": "square4", "cells": cells}, figs,
                              {"enemy": "e0", "move": 2, "attack_range": 2},
                              pass_allies=True, trap_avoidance=avoid))
        assert r["path"] == [[1, 0], [1, 1], [2, 1]] and r["traps"] == 0, avoid


def test_enemy_without_targets_stays():
    r = mc.solve(scenario(corridor(), [{"id": "e", "side": "enemy", "at": c(3)}],
                          {"enemy": "e", "move": 3}))
    assert r["target"] is None and r["targets"] == [] and r["at"] == c(3)


def test_pass_allies_option():
    figs = [hero(), hero("friend", 1), {"id": "e", "side": "enemy", "at": c(4)}]
    assert corridor_ends(mc.solve(scenario(corridor(), figs,
                                           {"figure": "h", "move": 5}))) == [0]
    r = mc.solve(scenario(corridor(), figs, {"figure": "h", "move": 5}, pass_allies=True))
    assert corridor_ends(r) == [0, 2, 3]        # passes the friend, never the enemy


def test_die_planning_probabilities():
    r = mc.solve(scenario(corridor(), [hero()],
                          {"figure": "h", "die": "d6", "bonus": 1, "stamina": 2}))
    e = {x["at"][0]: x for x in r["ends"]}
    assert sorted(e) == list(range(10))          # 6 + 1 + 2 spaces at best
    assert e[4]["probability"] == 1.0 and e[4]["min_roll"] == 1
    assert e[5]["min_roll"] == 2 and e[5]["probability"] == pytest.approx(5 / 6)
    assert e[9]["min_roll"] == 6 and e[9]["probability"] == pytest.approx(1 / 6)


def test_paths_and_trap_counts_for_heroes():
    # two routes to (2, 0): straight through a trap (2 steps) or around it (4 steps)
    cells = [{"at": [x, y], "trap": (x, y) == (1, 0)} for x in range(3) for y in range(2)]
    r = mc.solve(scenario({"grid": "square4", "cells": cells}, [hero(at=[0, 0])],
                          {"figure": "h", "move": 4, "paths": True}))
    e = ends_of(r)[(2, 0)]
    assert e["cost"] == 2 and e["traps"] == 0 and e["traps_cost"] == 4
    assert e["path"] == [[0, 0], [1, 0], [2, 0]]
    assert [1, 0] not in e["traps_path"] and len(e["traps_path"]) == 5
    assert ends_of(r)[(1, 0)]["traps"] == 1


# ----------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("query,error,match", [
    ({"figure": "h", "roll": 7}, mc.QueryError, "cannot show"),
    ({"figure": "h", "roll": 0}, mc.QueryError, "cannot show"),
    ({"figure": "imp", "move": 2, "stamina": 1}, mc.QueryError, "only heroes"),
    ({"figure": "e", "move": 2, "stamina": 1}, mc.QueryError, "only heroes"),
    ({"figure": "nobody", "move": 2}, mc.QueryError, "nobody"),
    ({"enemy": "ghost", "move": 2}, mc.QueryError, "ghost"),
    ({"enemy": "h", "move": 2}, mc.QueryError, "moves enemies only"),
    ({"figure": "h", "move": -1}, mc.ScenarioError, "move"),
    ({"figure": "h", "move": 2, "roll": 3}, mc.ScenarioError, "both"),
    ({"figure": "h"}, mc.ScenarioError, "needs one of"),
    ({"figure": "h", "die": "d7"}, mc.ScenarioError, "d7"),
    ({"figure": "h", "teleport": 2, "stamina": 1}, mc.ScenarioError, "teleport"),
    ({"figure": "h", "move": 2, "attack_range": 1}, mc.ScenarioError, "attack_range"),
    ({"enemy": "e", "move": 2, "attack_range": 0}, mc.ScenarioError, "attack_range"),
    ({"enemy": "e"}, mc.ScenarioError, "move"),
    ({"figure": "h", "move": 2, "speed": 1}, mc.ScenarioError, "speed"),
])
def test_bad_queries(query, error, match):
    figs = [hero(), {"id": "imp", "side": "summon", "at": c(1)},
            {"id": "e", "side": "enemy", "at": c(5)}]
    with pytest.raises(error, match=match):
        mc.solve(scenario(corridor(), figs, query))


def test_bad_scenarios():
    q = {"figure": "h", "move": 1}
    with pytest.raises(mc.ScenarioError, match="side"):
        mc.solve(scenario(corridor(), [{"id": "h", "side": "villain", "at": c(0)}], q))
    with pytest.raises(mc.PlacementError, match="obstacle"):
        mc.solve(scenario(corridor(obstacle=[0]), [hero()], q))
    with pytest.raises(mc.PlacementError):
        mc.solve(scenario(corridor(), [hero(at=20)], q))
    with pytest.raises(mc.BoardError, match="obstacle"):
        mc.solve(scenario(corridor(obstacle=[3], trap=[3]), [hero()], q))
    with pytest.raises(mc.ScenarioError, match="grid"):
        mc.solve(scenario(dict(corridor(), grid="tri"), [hero()], q))
    with pytest.raises(mc.ScenarioError, match="options.grid"):
        mc.solve(scenario(corridor(), [hero()], q, grid="hex"))
    with pytest.raises(mc.ScenarioError, match="pass_allies"):
        mc.solve(scenario(corridor(), [hero()], q, pass_allies="yes"))
    with pytest.raises(mc.ScenarioError, match="Mark"):
        mc.solve(scenario(corridor(), [hero(), {"id": "e", "side": "enemy", "at": c(2),
                                                "marked": True}], q))
    with pytest.raises(mc.ScenarioError, match="obstical"):
        mc.solve(scenario({"cells": [{"at": [0, 0], "obstical": True}]}, [hero(at=[0, 0])],
                          q))
    with pytest.raises(mc.ScenarioError):
        mc.solve('{"game": "dark_realms", "board": ')
    # the grid may be given as an option instead of on the board (hex by default)
    r = mc.solve(scenario({"cells": corridor()["cells"]}, [hero()], q, grid="square4"))
    assert corridor_ends(r) == [0, 1]
    r = mc.solve(scenario({"cells": corridor()["cells"]}, [hero()], q))
    assert corridor_ends(r) == [0, 1]          # hex: (1, 0) is a neighbour too


# ----------------------------------------------------------------------------- random boards
def random_board(rng, kind=None, size=None):
    kind = kind or rng.choice(["hex", "square4", "square8"])
    w = size or rng.randint(2, 6)
    h = rng.randint(1, 5)
    all_cells = [(x, y) for x in range(w) for y in range(h)]
    keep = [p for p in all_cells if rng.random() < 0.85] or all_cells[:1]
    rng.shuffle(keep)
    cells = []
    for p in keep:
        cell = {"at": list(p)}
        r = rng.random()
        if r < 0.15:
            cell["obstacle"] = True
        elif r < 0.35:
            cell["trap"] = True
        elif r < 0.42:
            cell["rift"] = True
        cells.append(cell)
    return {"grid": kind, "cells": cells}


def random_figures(rng, board, n_enemies=(1, 3), n_players=(0, 3)):
    free = [tuple(cl["at"]) for cl in board["cells"] if not cl.get("obstacle")]
    rng.shuffle(free)
    figs = []
    for i in range(rng.randint(*n_enemies)):
        if free:
            figs.append({"id": f"e{i}", "side": "enemy", "at": list(free.pop()),
                         "flying": rng.random() < 0.25})
    for i in range(rng.randint(*n_players)):
        if free:
            side = "summon" if rng.random() < 0.2 else "hero"
            figs.append({"id": f"p{i}", "side": side, "at": list(free.pop()),
                         "speed": rng.randint(0, 3), "marked": rng.random() < 0.1,
                         "flying": rng.random() < 0.2})
    return figs


def oracle_spec(s, mover_id):
    """The foundation oracle's spec for one figure's move in a Dark Realms scenario."""
    cells = s["board"]["cells"]
    coords = [tuple(cl["at"]) for cl in cells]
    me = next(f for f in s["figures"] if f["id"] == mover_id)
    fly = me.get("flying", False)
    side = {f["id"]: (1 if f["side"] == "enemy" else 0) for f in s["figures"]}
    occupant = [None] * len(cells)
    for f in s["figures"]:
        if f is not me:
            occupant[coords.index(tuple(f["at"]))] = side[f["id"]]
    obstacle = [bool(cl.get("obstacle")) for cl in cells]
    traps = [0 if fly else int(bool(cl.get("trap"))) for cl in cells]
    n_traps = sum(traps)
    allies = "pass" if s.get("options", {}).get("pass_allies") else "block"
    spec = dict(kind=s["board"].get("grid", "hex"), coords=coords, cost=[1] * len(cells),
                height=[0] * len(cells), stop=[False] * len(cells),
                blocked=[o and not fly for o in obstacle],
                no_end=[o and fly for o in obstacle], occupant=occupant, links=[],
                edges={}, team=side[mover_id], allies=allies, enemies="block",
                climb_per_level=0, climb_flat=0, max_climb=None, descend_per_level=0,
                link_kinds=None, corner_cutting=True, zoc=None, leave=None,
                enter_pen=traps if n_traps else None, leave_weight=1,
                max_penalty=n_traps)
    return spec, coords.index(tuple(me["at"]))


def test_hero_moves_match_oracle():
    rng = random.Random(7)
    for case in range(400):
        board = random_board(rng)
        figs = random_figures(rng, board, n_enemies=(0, 3), n_players=(1, 3))
        heroes = [f for f in figs if f["side"] == "hero"] or [None]
        if heroes[0] is None:
            continue
        me = rng.choice(heroes)
        opts = {"pass_allies": rng.random() < 0.4}
        card = rng.randint(0, 5)
        stamina = rng.randint(0, 3)
        q = {"figure": me["id"], "move": card, "stamina": stamina, "paths": True}
        if rng.random() < 0.4:
            q = {"figure": me["id"], "roll": rng.randint(1, 6), "stamina": stamina,
                 "bonus": rng.randint(0, 2), "paths": True}
            card = q["roll"] + q["bonus"]
        s = scenario(board, figs, q, **opts)
        got = ends_of(mc.solve(s))
        spec, start = oracle_spec(s, me["id"])
        want = oracle_reach(spec, [start], card + stamina)
        assert set(got) == {spec["coords"][v] for v in want}, case
        for v, w in want.items():
            e = got[spec["coords"][v]]
            assert e["cost"] == w["cost"], case
            assert e["stamina"] == max(0, w["cost"] - card), case
            assert (e["traps"], e["traps_cost"]) == (w["penalty"], w["penalty_cost"]), case
            assert _route_ok(s, me["id"], e["path"], e["cost"])
            assert _route_traps(s, me, e.get("traps_path", e["path"])) == e["traps"]


def test_die_planning_matches_oracle():
    rng = random.Random(11)
    for case in range(150):
        board = random_board(rng)
        figs = random_figures(rng, board, n_enemies=(0, 2), n_players=(1, 2))
        me = next((f for f in figs if f["side"] != "enemy"), None)
        if me is None:
            continue
        die = rng.choice(["d4", "d6", "d8"])
        bonus = rng.randint(0, 2)
        stamina = 0 if me["side"] == "summon" else rng.randint(0, 2)
        s = scenario(board, figs, {"figure": me["id"], "die": die, "bonus": bonus,
                                   "stamina": stamina})
        got = ends_of(mc.solve(s))
        spec, start = oracle_spec(s, me["id"])
        faces = int(die[1:])
        want = oracle_reach(spec, [start], faces + bonus + stamina)
        assert set(got) == {spec["coords"][v] for v in want}
        for v, w in want.items():
            e = got[spec["coords"][v]]
            ok = sum(1 for roll in range(1, faces + 1)
                     if w["cost"] <= roll + bonus + stamina)
            assert e["probability"] == pytest.approx(ok / faces), case


def test_teleport_matches_brute_force():
    rng = random.Random(5)
    for case in range(150):
        board = random_board(rng)
        figs = random_figures(rng, board, n_enemies=(0, 2), n_players=(1, 3))
        me = next((f for f in figs if f["side"] != "enemy"), None)
        if me is None:
            continue
        n = rng.randint(0, 4)
        s = scenario(board, figs, {"figure": me["id"], "teleport": n})
        got = {tuple(e["at"]): e["cost"] for e in mc.solve(s)["ends"]}
        kind = board["grid"]
        taken = {tuple(f["at"]) for f in figs if f is not me}
        want = {}
        for cl in board["cells"]:
            p = tuple(cl["at"])
            d = _grid_distance(kind, tuple(me["at"]), p)
            if d <= n and not cl.get("obstacle") and p not in taken:
                want[p] = d
        assert got == want, case


# ----------------------------------------------------------------------------- brute force
def _grid_distance(kind, a, b):
    dx, dy = b[0] - a[0], b[1] - a[1]
    if kind == "hex":
        return (abs(dx) + abs(dy) + abs(dx + dy)) // 2
    if kind == "square4":
        return abs(dx) + abs(dy)
    return max(abs(dx), abs(dy))


class _World:
    """The scenario as plain Python: what the mover may enter, end on, and trigger."""

    def __init__(self, s, mover_id):
        self.kind = s["board"].get("grid", "hex")
        self.cells = {tuple(cl["at"]): cl for cl in s["board"]["cells"]}
        self.me = next(f for f in s["figures"] if f["id"] == mover_id)
        self.start = tuple(self.me["at"])
        self.fly = self.me.get("flying", False)
        self.others = {tuple(f["at"]): f for f in s["figures"] if f is not self.me}
        self.pass_allies = s.get("options", {}).get("pass_allies", False)
        self.mode = s.get("options", {}).get("trap_avoidance", "detour")

    def side(self, f):
        return "enemies" if f["side"] == "enemy" else "players"

    def nbrs(self, p):
        for dx, dy in DIRS[self.kind]:
            q = (p[0] + dx, p[1] + dy)
            if q in self.cells:
                yield q

    def can_enter(self, p):
        if self.cells[p].get("obstacle") and not self.fly:
            return False
        o = self.others.get(p)
        return o is None or (self.pass_allies and self.side(o) == self.side(self.me))

    def can_end(self, p):
        return p == self.start or (not self.cells[p].get("obstacle") and
                                   p not in self.others)

    def trap(self, p):
        return int(bool(self.cells[p].get("trap")) and not self.fly)

    def dist(self, a, b):
        return _grid_distance(self.kind, a, b)

    def order(self, traps, steps):
        return (traps, steps) if self.mode == "detour" else (steps, traps)


def _route_ok(s, mover_id, path, cost):
    w = _World(s, mover_id)
    path = [tuple(p) for p in path]
    return (path[0] == w.start and len(path) - 1 == cost and w.can_end(path[-1]) and
            all(b in set(w.nbrs(a)) and w.can_enter(b) for a, b in zip(path, path[1:])))


def _route_traps(s, me, path):
    w = _World(s, me["id"])
    return sum(w.trap(tuple(p)) for p in path[1:])


def bf_targets(s, w):
    players = [f for f in s["figures"] if f["side"] != "enemy"]
    if not players:
        return []
    marked = [f for f in players if f.get("marked")]
    summons = [f for f in players if f["side"] == "summon"]
    tier = marked or summons or players
    # steps: breadth-first from the enemy; the last step enters the target's space
    seen = {w.start: 0}
    todo = [w.start]
    for p in todo:
        for q in w.nbrs(p):
            if q not in seen and w.can_enter(q):
                seen[q] = seen[p] + 1
                todo.append(q)

    def closeness(f):
        t = tuple(f["at"])
        steps = [seen[q] + 1 for q in w.nbrs(t) if q in seen]
        return (0, min(steps)) if steps else (1, w.dist(w.start, t))
    best = min(closeness(f) for f in tier)
    tier = [f for f in tier if closeness(f) == best]
    fastest = max(f.get("speed", 0) for f in tier)
    return [f for f in tier if f.get("speed", 0) == fastest]


def bf_destination(w, target, move, rng_):
    t = tuple(target["at"])
    if w.dist(w.start, t) <= rng_:
        return w.start, (0, 0)
    # every simple route of at most `move` steps: the best (ordered) one per end
    fwd = {}

    def walk(p, visited, traps):
        steps = len(visited) - 1
        if w.can_end(p):
            k = (traps, steps)
            if p not in fwd or w.order(*k) < w.order(*fwd[p]):
                fwd[p] = k
        if steps == move:
            return
        for q in w.nbrs(p):
            if q not in visited and w.can_enter(q):
                visited.add(q)
                walk(q, visited, traps + w.trap(q))
                visited.discard(q)
    walk(w.start, {w.start}, 0)
    goal = {p for p in w.cells if w.dist(p, t) <= rng_ and w.can_end(p)}

    def rest(e):
        """Best (traps, steps) from e into the goal, by an ordered Dijkstra."""
        heap = [(w.order(0, 0), 0, 0, e)]
        done = set()
        while heap:
            _, traps, steps, p = heapq.heappop(heap)
            if p in done:
                continue
            done.add(p)
            if p in goal:
                return traps, steps
            for q in w.nbrs(p):
                if q not in done and (w.can_enter(q) or q == w.start):
                    nt, ns = traps + w.trap(q), steps + 1
                    heapq.heappush(heap, (w.order(nt, ns), nt, ns, q))
        return None
    rem = {e: rest(e) for e in fwd}
    planned = [e for e in fwd if rem[e] is not None]
    if planned:
        def key(e):
            (t1, s1), (t2, s2) = fwd[e], rem[e]
            far = -w.dist(e, t) if s2 == 0 else 0
            return (w.order(t1 + t2, s1 + s2), s2, far, t1, e)
        best = min(planned, key=key)
    else:
        best = min(fwd, key=lambda e: (w.dist(e, t), w.order(*fwd[e]), e))
    return best, fwd[best]


@pytest.mark.parametrize("kind", ["hex", "square4", "square8"])
def test_enemy_moves_match_brute_force(kind):
    rng = random.Random({"hex": 1, "square4": 2, "square8": 3}[kind])
    checked = 0
    for case in range(250):
        board = random_board(rng, kind=kind, size=rng.randint(3, 6))
        figs = random_figures(rng, board, n_enemies=(1, 3), n_players=(1, 3))
        if not figs or figs[0]["side"] != "enemy":
            continue
        enemy = figs[0]
        opts = {"pass_allies": rng.random() < 0.3,
                "trap_avoidance": rng.choice(["detour", "shortest"])}
        q = {"enemy": enemy["id"], "move": rng.randint(0, 4),
             "attack_range": rng.choice([1, 1, 2, 3])}
        s = scenario(board, figs, q, **opts)
        got = mc.solve(s)
        w = _World(s, enemy["id"])
        targets = bf_targets(s, w)
        assert got["targets"] == [f["id"] for f in targets], case
        assert [m["target"] for m in got["moves"]] == got["targets"]
        for m, target in zip(got["moves"], targets):
            dest, (traps, steps) = bf_destination(w, target, q["move"], q["attack_range"])
            assert tuple(m["at"]) == dest, (case, m, dest)
            assert (m["traps"], m["steps"]) == (traps, steps), case
            assert _route_ok(s, enemy["id"], m["path"], m["steps"]), case
            assert _route_traps(s, enemy, m["path"]) == m["traps"]
            assert m["in_range"] == (w.dist(dest, tuple(target["at"])) <=
                                     q["attack_range"])
            checked += 1
    assert checked > 200


# ----------------------------------------------------------------------------- examples
def test_bundled_examples_solve():
    assert EXAMPLES, "no core/examples/dark_realms_*.json"
    for path in EXAMPLES:
        s = json.loads(path.read_text())
        r = mc.solve(s)
        assert r and ("ends" in r or "targets" in r), path.name
        # the same scenario read as JSON text answers the same
        assert mc.solve(path.read_text()) == r


def test_docs_example_output_is_real():
    """docs/dark_realms.md shows the real output of its example scenario."""
    doc = Path(__file__).resolve().parent.parent / "docs" / "dark_realms.md"
    if not doc.exists():
        pytest.skip("docs not in this checkout")
    text = doc.read_text()
    marker = "<!-- output: dark_realms_doc_example.json -->"
    block = text.split(marker, 1)[1].split("```json", 1)[1].split("```", 1)[0]
    scenario_ = json.loads((Path(mc.__file__).parent / "examples" /
                            "dark_realms_doc_example.json").read_text())
    assert json.loads(block) == mc.solve(scenario_)
    shown = text.split("```json", 2)[2].split("```", 1)[0]   # the scenario as printed
    assert json.loads(shown) == scenario_


# ----------------------------------------------------------------------------- detour limit
def _detour_board():
    """test_enemy_trap_detour_versus_shortest's board: the trapped top route is 7 steps,
    the trap-free bottom route 9 (2 extra steps)."""
    cells = [{"at": [x, 0], "trap": x == 3} for x in range(7)]
    cells += [{"at": [x, 1], "obstacle": 1 <= x <= 5} for x in range(7)]
    cells += [{"at": [0, 2]}, {"at": [6, 2]}] + [{"at": [x, 3]} for x in range(7)]
    figs = [{"id": "e", "side": "enemy", "at": [0, 1]}, hero(at=[6, 1])]
    return {"grid": "square4", "cells": cells}, figs


def test_trap_detour_limit_counts_extra_steps():
    board, figs = _detour_board()
    top = [[0, 1], [0, 0], [1, 0], [2, 0]]
    bottom = [[0, 1], [0, 2], [0, 3], [1, 3]]
    for k, path in [(0, top), (1, top), (2, bottom), (3, bottom), (None, bottom)]:
        r = mc.solve(scenario(board, figs, {"enemy": "e", "move": 3}, trap_detour_limit=k))
        assert r["path"] == path, k
    # Move 9: within the limit the whole detour is walked trap-free
    r = mc.solve(scenario(board, figs, {"enemy": "e", "move": 9}, trap_detour_limit=1))
    assert (r["traps"], r["steps"]) == (1, 7)
    r = mc.solve(scenario(board, figs, {"enemy": "e", "move": 9}, trap_detour_limit=2))
    assert (r["traps"], r["steps"]) == (0, 9) and r["in_range"]


def test_trap_avoidance_modes_are_shorthands_of_the_limit():
    """"shortest" = limit 0 and "detour" = no limit (null) answer alike, and a limit as
    long as any simple route answers as "detour"."""
    rng = random.Random(41)
    for case in range(120):
        board = random_board(rng, size=rng.randint(2, 6))
        figs = random_figures(rng, board, n_enemies=(1, 2), n_players=(1, 3))
        if not figs or figs[0]["side"] != "enemy":
            continue
        q = {"enemy": figs[0]["id"], "move": rng.randint(0, 5),
             "attack_range": rng.choice([1, 2])}
        pa = rng.random() < 0.3
        for mode, k in [("shortest", 0), ("detour", None), ("detour", len(board["cells"]))]:
            want = mc.solve(scenario(board, figs, q, pass_allies=pa, trap_avoidance=mode))
            got = mc.solve(scenario(board, figs, q, pass_allies=pa, trap_detour_limit=k))
            assert got == want, (case, mode, k)
            both = scenario(board, figs, q, pass_allies=pa, trap_avoidance=mode,
                            trap_detour_limit=k if k != len(board["cells"]) else None)
            assert mc.solve(both) == want


def bf_destination_limited(w, target, move, rng_, limit):
    """The enemy's end with a detour limit, literally: every simple route into range of
    at most L + limit steps (L = the shortest); the best by (traps, steps); walked as far
    as the move allows, ties as documented. No route: the end nearest the target, by the
    best (traps, steps) among walks at most limit steps longer than the shortest to it."""
    t = tuple(target["at"])
    if w.dist(w.start, t) <= rng_:
        return w.start, (0, 0)
    goal = {p for p in w.cells if w.dist(p, t) <= rng_ and w.can_end(p)}
    to_goal = {p: 0 for p in goal}            # steps into the goal, by breadth-first
    todo = list(goal)
    for p in todo:
        for q in w.nbrs(p):
            if q not in to_goal and (w.can_enter(q) or q == w.start):
                to_goal[q] = to_goal[p] + 1
                todo.append(q)
    routes = []
    if w.start in to_goal:
        top = to_goal[w.start] + limit

        def walk(path, traps):
            p = path[-1]
            if p in goal:
                routes.append((traps, len(path) - 1, list(path)))
            for q in w.nbrs(p):
                if (q not in path and w.can_enter(q) and q in to_goal
                        and len(path) + to_goal[q] <= top):
                    path.append(q)
                    walk(path, traps + w.trap(q))
                    path.pop()
        walk([w.start], 0)
        best = min((tr, st) for tr, st, _ in routes)
        cands = []
        for tr, st, path in routes:
            if (tr, st) != best:
                continue
            for i in range(min(move, st) + 1):
                if w.can_end(path[i]):
                    left = st - i
                    far = -w.dist(path[i], t) if left == 0 else 0
                    now = sum(w.trap(p) for p in path[1:i + 1])
                    cands.append(((left, far, now, path[i]), (now, i)))
        key, got = min(cands)
        return key[3], got
    fwd = {}

    def walk2(path, traps):
        p = path[-1]
        if w.can_end(p):
            fwd.setdefault(p, []).append((traps, len(path) - 1))
        if len(path) - 1 == move:
            return
        for q in w.nbrs(p):
            if q not in path and w.can_enter(q):
                path.append(q)
                walk2(path, traps + w.trap(q))
                path.pop()
    walk2([w.start], 0)
    best = {}
    for e, opts in fwd.items():
        d = min(s for _, s in opts)
        best[e] = min((tr, s) for tr, s in opts if s <= d + limit)
    e = min(best, key=lambda e: (w.dist(e, t), best[e], e))
    return e, best[e]


def _far_apart(rng, kind):
    """A board 5-7 wide, a quarter obstacles and a quarter traps inside, the enemy on the
    left edge and a hero on the right: long routes where a detour limit matters."""
    w, h = rng.randint(5, 7), rng.randint(3, 5)
    cells = []
    for x in range(w):
        for y in range(h):
            if rng.random() < 0.1:
                continue
            cell, r = {"at": [x, y]}, rng.random()
            if 0 < x < w - 1 and r < 0.25:
                cell["obstacle"] = True
            elif 0 < x < w - 1 and r < 0.5:
                cell["trap"] = True
            cells.append(cell)
    left = [cl["at"] for cl in cells if cl["at"][0] == 0]
    right = [cl["at"] for cl in cells if cl["at"][0] == w - 1]
    if not left or not right:
        return None, []
    return {"grid": kind, "cells": cells}, [{"id": "e", "side": "enemy",
                                            "at": rng.choice(left)}, hero(at=rng.choice(right))]


@pytest.mark.parametrize("kind", ["hex", "square4", "square8"])
def test_trap_detour_limit_matches_brute_force(kind):
    rng = random.Random({"hex": 11, "square4": 12, "square8": 13}[kind])
    checked = routes = differs = 0
    for case in range(300):
        if case % 2:
            board = random_board(rng, kind=kind, size=rng.randint(3, 5))
            figs = random_figures(rng, board, n_enemies=(1, 3), n_players=(1, 2))
        else:
            board, figs = _far_apart(rng, kind)
        if not figs or figs[0]["side"] != "enemy":
            continue
        enemy = figs[0]
        k = rng.choice([1, 1, 2, 3])
        q = {"enemy": enemy["id"], "move": rng.randint(0, 4 if case % 2 else 8),
             "attack_range": rng.choice([1, 1, 2])}
        pa = rng.random() < 0.3
        s = scenario(board, figs, q, pass_allies=pa, trap_detour_limit=k)
        got = mc.solve(s)
        w = _World(s, enemy["id"])
        for m, target in zip(got["moves"], bf_targets(s, w)):
            dest, (traps, steps) = bf_destination_limited(w, target, q["move"],
                                                          q["attack_range"], k)
            assert tuple(m["at"]) == dest, (case, m, dest)
            assert (m["traps"], m["steps"]) == (traps, steps), (case, m)
            assert _route_ok(s, enemy["id"], m["path"], m["steps"]), case
            assert _route_traps(s, enemy, m["path"]) == m["traps"]
            checked += 1
            routes += m["reason"] == "route"
        differs += all(got != mc.solve(scenario(board, figs, q, pass_allies=pa,
                                                trap_avoidance=mode))
                       for mode in ("shortest", "detour"))
    # the limit decides cases that neither shorthand answers alike
    assert checked > 200 and routes > 100 and differs > 5


@pytest.mark.parametrize("opts, match", [
    ({"trap_detour_limit": -1}, "trap_detour_limit.*-1"),
    ({"trap_detour_limit": "2"}, "trap_detour_limit.*'2'"),
    ({"trap_detour_limit": True}, "trap_detour_limit.*True"),
    ({"trap_detour_limit": 1.5}, "trap_detour_limit.*1.5"),
    ({"trap_avoidance": "around"}, "around"),
    ({"trap_avoidance": "shortest", "trap_detour_limit": 2}, "trap_detour_limit is 2"),
    ({"trap_avoidance": "detour", "trap_detour_limit": 0}, "'detour' means null"),
])
def test_trap_detour_limit_bad_values(opts, match):
    board, figs = _detour_board()
    with pytest.raises(mc.ScenarioError, match=match):
        mc.solve(scenario(board, figs, {"enemy": "e", "move": 3}, **opts))
