"""Mage Knight on the batched arrays backend (issue 29.6) against single live positions.

The layout (``movecore.games.mage_knight._batch``) holds a game as its heroes' spaces;
the ends a hero may not stay on (another hero's one-hero space, a lake or mountain
entered by an effect) and the stop codes (assault, provoked) are the layout's end rules,
as data. After every step of seeded random batched self-play on the bundled examples and
on random maps (owned keeps, portals and conquered cities, rampaging enemies, walls,
night, lakes and mountains made enterable, Space Bending, no provoking, forbidden
terrains, teammates), every game's mask, costs and stops equal a single position's and
its heroes stand where the single position's do; the compiled step makes the array
path's choices."""
from __future__ import annotations

import copy

import numpy as np
import pytest

import movecore as mc
from movecore.batch import BatchedGames
from movecore.games import mage_knight as mk
from movecore.tools.selfplay import example_scenarios
from movecore.tools.selfplay_batch import BatchedPlay
from test_batch import _run_differential, _step_alike
from test_position_mage_knight import _random_map_scenario, _with_random_walls

#: per seed, the options a random map is played under (beside its own time and pvp)
_OPTIONS = [
    {"enter": [{"terrains": ["lake", "mountain"], "cost": 3}]},
    {"time": "night", "enter": [{"terrains": ["mountain"], "cost": 2}], "bend": True},
    {"provoke": False, "forbid": ["forest"], "enter": [{"terrains": ["lake"], "cost": 1}]},
    {"reductions": [{"terrains": "all", "by": 2, "min": 1}], "cities": "closed"},
    {"time": "day", "enter": [{"terrains": ["lake", "mountain"], "cost": 0}]},
    {},
]


def _maps(seeds, walls=False):
    out = []
    for seed in seeds:
        sc = copy.deepcopy(_random_map_scenario(seed))
        if walls:
            sc = _with_random_walls(sc, seed)
        sc["options"].update(_OPTIONS[seed % len(_OPTIONS)])
        if len(mc.position(sc).figures) >= 2:
            out.append((f"random_{seed}{'_walls' if walls else ''}", sc))
    return out


def test_bundled_examples_run_on_arrays():
    for name, scenario in example_scenarios("mage_knight"):
        play = BatchedPlay("mage_knight", scenario, 4, seed=0)
        assert play.games.backend == "arrays" and play.games.why is None, name
        assert play.fused, name


def test_random_maps_exercise_every_end_rule():
    """The random maps below hold what the end rules are for: ends a hero may not stay
    on (lakes and mountains entered), one-hero spaces and spaces that hold many, owned
    keeps (a shape of their own) and rampaging enemies (provoked stops)."""
    seen = set()
    for name, sc in _maps(range(12)) + _maps(range(4), walls=True):
        G = BatchedGames(mc.position(sc), 1, query={"budget": 6})
        assert G.backend == "arrays", name
        pos = G.root
        if len(G._no_end):                # lakes or mountains an effect lets a hero enter
            seen.add("no_end")
        if pos._L.holds_many.any():
            seen.add("holds_many")
        if len(G._layout.shapes) > 1:
            seen.add("owned keep")
        if pos._L.rampaging.any():
            seen.add("rampaging")
        if sc["board"].get("walls"):
            seen.add("walls")
    assert seen == {"no_end", "holds_many", "owned keep", "rampaging", "walls"}


@pytest.mark.parametrize("policy", ["random", "greedy"])
def test_random_maps_equal_single_positions(policy):
    scen = _maps(range(12)) + _maps(range(4), walls=True)
    assert _run_differential("mage_knight", steps=40, B=16, seed=9, policy=policy,
                             scenarios=scen) > 3000


def test_no_end_and_one_hero_rules_drop_ends():
    """A hero next to a lake made enterable and to another hero: both spaces are
    kernel ends and neither is a move (mask 0, cost -1), in the batch as in the
    position; a portal holds both heroes."""
    sc = {"game": "mage_knight", "board": {"cells": [
        {"at": [0, 0], "terrain": "plains"}, {"at": [1, 0], "terrain": "lake"},
        {"at": [0, 1], "terrain": "plains"}, {"at": [-1, 1], "terrain": "plains",
                                              "site": "portal"},
        {"at": [-1, 0], "terrain": "plains"}]},
        "options": {"enter": [{"terrains": ["lake"], "cost": 2}]},
        "figures": [{"id": "a", "at": [0, 0]}, {"id": "b", "at": [0, 1]}],
        "query": {"figure": "a", "budget": 4}}
    pos = mc.position(sc)
    G = BatchedGames(pos, 2)
    assert G.backend == "arrays"
    mask, cost, stop = G.legal_moves(np.array([0, 0]))
    m = pos.legal_moves("a")
    lake, other = pos.board.find((1, 0)), pos.board.find((0, 1))
    assert {lake, other} <= set(m.actions.tolist())
    assert not m.mask[lake] and not m.mask[other]
    assert mask[0, lake] == 0 and mask[0, other] == 0 and cost[0, lake] == -1
    portal = pos.board.find((-1, 1))
    G.apply(np.array([1, -1]), np.array([portal, -1]))     # b onto the portal
    mask, _, _ = G.legal_moves(np.array([0, 0]))
    assert mask[0, portal] == 1 and mask[0, other] == 1 and mask[1, other] == 0
    with pytest.raises(mc.IllegalMoveError):
        G.apply(np.array([0, -1]), np.array([lake, -1]))


@pytest.mark.parametrize("policy", ["random", "greedy"])
@pytest.mark.parametrize("threads", [1, 2])
def test_fused_step_equals_array_path(policy, threads):
    """The compiled step (with the end rules) makes the array path's choices."""
    scen = example_scenarios("mage_knight") + _maps(range(6)) + _maps(range(2), walls=True)
    for name, scenario in scen:
        a = BatchedPlay("mage_knight", scenario, 16, seed=7, policy=policy,
                        threads=threads)
        b = BatchedPlay("mage_knight", scenario, 16, seed=7, policy=policy, fused=False)
        assert a.fused and not b.fused and b.games.backend == "arrays"
        _step_alike(a, b, 80, name)


@pytest.mark.slow
def test_random_maps_ten_thousand_moves():
    scen = _maps(range(12)) + _maps(range(4), walls=True)
    assert _run_differential("mage_knight", steps=120, B=48, seed=13,
                             scenarios=scen) >= 10_000


def test_other_queries_stay_on_positions():
    """Only a normal move is a layout; other queries (direct moves, paths, reveals) are
    answered per position, and asking arrays for them is a typed error."""
    name, scenario = example_scenarios("mage_knight")[0]
    pos = mc.position(scenario)
    for q in ({"budget": 3, "mode": "direct"}, {"budget": 5, "paths": True}):
        G = BatchedGames(pos, 2, query=q)
        assert G.backend == "positions" and "normal move" in G.why
        with pytest.raises(mc.QueryError, match="no array backend"):
            BatchedGames(pos, 2, query=q, backend="arrays")
    assert BatchedGames(pos, 2, query={"budget": 5}).backend == "arrays"
