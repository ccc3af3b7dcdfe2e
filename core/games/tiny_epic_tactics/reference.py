"""Tiny Epic Tactics: the layered reference searches, the tests' oracle.

:func:`unit_moves` (one Move action, or up to three in a row for a unit left alone: a
fresh prepared query per action, layer by layer), :func:`moves_via` (through a village:
to it, then on from it) and :func:`reference_solve` (``solve()`` the way the game was
answered before live positions: a fresh realm, muster and prepared query per question)
are slow and obviously correct: the tests hold the live :class:`~.position.Position` to
them over seeded random play. No other module of movecore calls them (an import-linter
contract checks it). The rules they apply, and their words, are in :mod:`.rules`.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import QueryError, ScenarioError
from ...kernels import _types as T
from ...reach import Reach, prepare
from ...scenario import as_coord, expect_keys, get_bool, get_int, get_str
from .._common import Figure, end_order, find_figure, read_figures, team_numbers
from .rules import (MAX_ACTIONS, MAX_KNOCK_BACK, SIDES, TURN_KEYS, End, Muster, Realm,
                    _ballista_flags, _coords, _layered_path, build_realm, knock_back,
                    mover_for, side_away_from, solo_entry, solo_extras, solo_turn,
                    villages_on)


def _one_move(realm: Realm, muster: Muster, unit: Figure, start: int, budget: int,
              allies: str = "pass", turn_start: int | None = None) -> Reach:
    """Every end of one Move action of ``unit`` from ``start`` (its turn began on
    ``turn_start``, default ``unit.cell``: the ballista rule looks at that space)."""
    return _mobility(realm, muster, unit, budget, allies, turn_start)(start, budget)


def _mobility(realm: Realm, muster: Muster, unit: Figure, budget: int,
              allies: str = "pass", turn_start: int | None = None):
    """A prepared query (board, the unit's movement numbers, who stands where, the
    ballista rule) answering one Move action from any start: ``fn(start, budget)``."""
    began = unit.cell if turn_start is None else turn_start
    return prepare(realm.board, mover_for(muster.team_of(unit), allies=allies), budget,
                   occupant=muster.occupants(realm, without=unit),
                   cell_flags=_ballista_flags(realm, began)).reach


def unit_moves(realm: Realm, muster: Muster, unit: Figure, budget: int,
               actions: int = 1, turn_start: int | None = None) -> list[End]:
    """Every space where ``unit`` may end its turn's movement: one Move action of
    ``budget`` points, or (only unit left) up to ``actions`` Move actions in a row.

    Each end carries the least number of Move actions it needs and, for that number,
    the least movement spent in total. This is the reference implementation (a fresh
    prepared query per call); :class:`Position` answers the same on live arrays."""
    move_from = _mobility(realm, muster, unit, budget, turn_start=turn_start)
    first = move_from(unit.cell, budget)
    if actions == 1:
        return [End(c, k, first.path(c).tolist(), 0 if c == unit.cell else 1)
                for c, k in zip(first.cells.tolist(), first.costs.tolist())]
    # Layer k: least total cost with at most k actions, and the space the last action
    # started from. "You must fully complete the movement action before starting another
    # one": each action is a whole move from a legal end of the previous one.
    reaches = {unit.cell: first}
    layers = [{unit.cell: (0, None)}]
    best: dict[int, End] = {unit.cell: End(unit.cell, 0, [unit.cell], 0)}
    for k in range(1, actions + 1):
        prev = layers[-1]
        layer = dict(prev)
        for u, (cu, _) in prev.items():
            r = reaches.get(u)
            if r is None:
                r = reaches[u] = move_from(u, budget)
            for c, step in zip(r.cells.tolist(), r.costs.tolist()):
                if cu + step < layer.get(c, (1 << 60, None))[0]:
                    layer[c] = (cu + step, u)
        layers.append(layer)
        for c, (cost, _) in layer.items():
            if c not in best:
                best[c] = End(c, cost, _layered_path(layers, reaches, k, c), k)
    return list(best.values())


def moves_via(realm: Realm, muster: Muster, unit: Figure, budget: int,
              village: int, turn_start: int | None = None) -> list[End]:
    """Every end the unit can reach within ``budget`` while passing ``village``, with the
    least cost of doing so.

    Two phases: the least cost to arrive in the village (passing an ally standing there
    is allowed), then a move from the village with what is left, the village itself being
    an end only if no ally stands in it. Movement has no stop spaces and occupancy does not
    change during a move, so every legal walk through the village splits into a legal walk
    to it and a legal walk from it, and the least cost via the village is the sum of the
    two least costs (tests/test_tiny_epic_tactics.py checks this against brute force)."""
    if village == unit.cell:
        raise QueryError(f"via {list(realm.xy(village))} is the village the unit starts in; "
                         f"a unit does not benefit from starting its turn in a village")
    to_village = _one_move(realm, muster, unit, unit.cell, budget, allies="pass_end",
                           turn_start=turn_start)
    rows = np.flatnonzero(to_village.cells == village)
    if rows.size == 0:
        return []
    spent = int(to_village.costs[rows[0]])
    lead = to_village.path(village).tolist()
    onwards = _one_move(realm, muster, unit, village, budget - spent,
                        turn_start=turn_start)
    ally_in_village = muster.unit_at(village) is not None
    ends = []
    for c, k in zip(onwards.cells.tolist(), onwards.costs.tolist()):
        if c == village and ally_in_village:
            continue  # passed through the ally in the village; cannot end there
        ends.append(End(c, spent + k, lead + onwards.path(c).tolist()[1:]))
    return ends


def _end_entries(realm: Realm, ends: list[End], want_paths: bool,
                 with_actions: bool, exclude=()) -> list[dict]:
    cells = np.array([e.cell for e in ends], dtype=np.int32)
    costs = np.array([e.cost for e in ends], dtype=np.int32)
    out = []
    for row in end_order(realm.board, cells, costs):
        e = ends[int(row)]
        entry = {"at": list(realm.xy(e.cell)), "cost": e.cost,
                 "villages": _coords(realm, villages_on(realm, e.path, exclude)),
                 "ballista": realm.is_ballista(e.cell)}
        if with_actions:
            entry["actions"] = e.actions
        if want_paths:
            entry["path"] = _coords(realm, e.path)
        out.append(entry)
    return out


def _read_unit(muster: Muster, query: dict, key: str) -> Figure:
    if key not in query:
        raise ScenarioError(f"query needs {key!r} (a figure id)")
    return find_figure(muster.figures, query[key], f"query.{key}")


def _solve_move(realm: Realm, muster: Muster, query: dict, turn: dict | None = None
                ) -> dict:
    expect_keys(query, "query", ("type", "figure", "budget", "paths", "via", "actions"),
                required=("figure", "budget"))
    unit = _read_unit(muster, query, "figure")
    budget = get_int(query, "budget", "query", lo=0, hi=T.MAX_BUDGET)
    want_paths = get_bool(query, "paths", "query", False)
    actions = get_int(query, "actions", "query", 1, lo=1, hi=MAX_ACTIONS)
    if actions > 1:
        own = [f for f in muster.figures if muster.team_of(f) == muster.team_of(unit)]
        if len(own) > 1:
            raise QueryError(f"query.actions is {actions}, but unit {unit.id!r} has "
                             f"{len(own) - 1} other unit(s) on its team: a single unit may "
                             f"not take the same action twice in one turn unless it is the "
                             f"only unit left")
    began, used = (turn or {}).get(unit.id, (unit.cell, ()))
    exclude = set(used) | {began}
    result: dict[str, Any] = {"figure": unit.id}
    if "via" in query:
        if actions > 1:
            raise QueryError("query.via works with one Move action; drop query.actions")
        xy = as_coord(query["via"], "query.via")
        village = realm.cell(xy)
        if village < 0:
            raise QueryError(f"query.via {list(xy)} is not on the realm map")
        if not realm.is_village(village):
            raise QueryError(f"query.via {list(xy)} is {realm.terrain[village]}, not a "
                             f"village")
        ends = moves_via(realm, muster, unit, budget, village, began)
        result["via"] = list(xy)
    else:
        ends = unit_moves(realm, muster, unit, budget, actions, began)
    result["ends"] = _end_entries(realm, ends, want_paths, "actions" in query, exclude)
    return result


def _solve_knock_back(realm: Realm, muster: Muster, query: dict) -> dict:
    expect_keys(query, "query", ("type", "target", "attacker", "direction", "distance",
                                 "paths"), required=("target", "distance"))
    get_bool(query, "paths", "query", True)  # the slide's path is always returned
    target = _read_unit(muster, query, "target")
    distance = get_int(query, "distance", "query", lo=0, hi=MAX_KNOCK_BACK)
    if ("attacker" in query) == ("direction" in query):
        raise ScenarioError("a knock_back query needs exactly one of 'attacker' (a figure "
                            "id) and 'direction' (N, E, S or W)")
    if "attacker" in query:
        attacker = _read_unit(muster, query, "attacker")
        if attacker is target:
            raise QueryError(f"unit {target.id!r} cannot knock itself back")
        side = side_away_from(realm, realm.xy(attacker.cell), realm.xy(target.cell))
    else:
        side = get_str(query, "direction", "query", tuple(SIDES))
    kb = knock_back(realm, muster, target, side, distance)
    return {"knock_back": {
        "target": target.id, "direction": side, "from": list(realm.xy(kb.start)),
        "at": list(realm.xy(kb.path[-1])), "moved": kb.moved,
        "health_lost": kb.health_lost, "fell": kb.fell, "stopped_by": kb.stopped_by,
        "path": _coords(realm, kb.path)}}


def _solve_solo(realm: Realm, muster: Muster, query: dict, blocked: str,
                choose: str = "next_closest") -> dict:
    expect_keys(query, "query", ("type", "figure", "budget", "compass", "target", "paths",
                                 "range", "climb"), required=("figure", "budget", "compass"))
    get_bool(query, "paths", "query", True)  # the route is always returned
    enemy = _read_unit(muster, query, "figure")
    budget = get_int(query, "budget", "query", lo=0, hi=T.MAX_BUDGET)
    compass = get_str(query, "compass", "query", tuple(SIDES))
    target = None
    if "target" in query:
        target = _read_unit(muster, query, "target")
        if muster.team_of(target) == muster.team_of(enemy):
            raise QueryError(f"query.target {target.id!r} is on the solo enemy's own team; "
                             f"it moves towards one of your units")
    attack_range, climb = solo_extras(query, target is not None)
    sm = solo_turn(realm, muster, enemy, budget, compass, target, blocked, attack_range,
                   climb, choose)
    return {"solo": solo_entry(realm, enemy.id, enemy.cell, sm, climb)}


def reference_solve(scenario: dict) -> dict:
    """``solve()`` the way this module answered before live positions: a fresh realm,
    muster and prepared query per question. Kept as an independent reference for the
    tests of :class:`Position` (tests/test_position_tiny_epic_tactics.py); it reads the
    turn keys of a figure (``moved``, ``turn_start``, ``villages_used``) without checking
    what a position refuses (a second Move action, a used village as ``via``)."""
    options = scenario.get("options", {})
    blocked = options.get("solo_blocked", "stop")
    choose = options.get("solo_target", "next_closest")
    realm = build_realm(scenario["board"], options)
    figures = read_figures(realm.board, scenario["figures"],
                           allowed_keys=("id", "team", "at") + TURN_KEYS)
    muster = Muster(figures, team_numbers(figures))
    turn = {}
    for f in figures:
        if f.raw.get("moved", 0):
            began = realm.cell(tuple(f.raw.get("turn_start", realm.xy(f.cell))))
            used = [realm.cell(tuple(v)) for v in f.raw.get("villages_used", [])]
            turn[f.id] = (began, used)
    query = scenario["query"]
    kind = query.get("type", "move")
    if kind == "move":
        return _solve_move(realm, muster, query, turn)
    if kind == "knock_back":
        return _solve_knock_back(realm, muster, query)
    return _solve_solo(realm, muster, query, blocked, choose)
