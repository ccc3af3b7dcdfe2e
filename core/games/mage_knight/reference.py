"""Mage Knight: the longhand reference searches, the tests' oracle.

:func:`move` (a normal move: terrain costs, assaults, provoking, walls, exploring) and
:func:`direct_move` ("move N spaces") answer one query each with :func:`movecore.reach`
over a map read from scratch; :func:`solve_reference` is ``solve()`` done that way. They
are slow and obviously correct: the tests hold the live :class:`~.position.Position` (what
``solve()`` asks) to them over seeded random maps. No other module of movecore calls them
(an import-linter contract checks it); the package re-exports them for the documented
``mage_knight.move`` / ``direct_move`` / ``solve_reference``.
"""
from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

from ...errors import PlacementError, QueryError, ScenarioError
from ...kernels import _types as T
from ...mover import Mover
from ...reach import Reach, reach
from ...scenario import expect_keys, expect_object, get_bool, get_int, get_list, get_str
from .._common import coord_list, end_order
from .map import COST_CLASSES, MageKnightMap, _read_tile, read_map
from .rules import (CITY_RULES, EXPLORE_COST, OPTION_KEYS, TIMES, Hero, bent_board, is_safe,
                    provoke_board, provoke_layers, read_effects, read_heroes, read_turn,
                    terrain_costs, turn_rules, wall_free)


def move(m: MageKnightMap, heroes: Sequence[Hero], hero: Hero, budget: int, *,
         time: str = "day", reductions: Sequence[Mapping] = (),
         enter: Sequence[Mapping] = (), pvp: bool = True, paths: bool = False,
         explore: bool = True, forbid: Sequence[str] = (), quiet: bool = False,
         bend: bool = False, explore_cost: int | None = EXPLORE_COST,
         explore_distance: int = 1) -> dict:
    """Every end of a normal move of ``hero`` with ``budget`` Move points, and every tile
    position it could reveal. Returns ``{"ends": [...], "explore": [...]}`` in game words
    (see docs/mage_knight.md). ``forbid``: cost classes that cannot be entered; ``quiet``:
    no step provokes; ``bend``: Space Bending (spaces 2 away are adjacent; give ``quiet``
    and ``explore_distance`` 2 with it, as :func:`turn_rules` does); ``explore_cost``:
    Move points of a reveal (None: no exploring); ``explore_distance``: 1 or 2."""
    board = bent_board(m.board) if bend else m.board
    costs = terrain_costs(time, reductions, enter, forbid)
    table = [-1 if costs[t] is None else costs[t] for t in COST_CLASSES]
    n = board.n_cells
    flags = np.zeros(n, np.uint8)
    tokens = []
    for i, s in enumerate(m.spaces):
        if s.rampaging is not None:
            flags[i] |= T.CELL_BLOCKED
            tokens.append(i)
        elif s.stops(hero.player):
            flags[i] |= T.CELL_STOP
    zoc = zoc_from = np.zeros(n, np.uint64)
    if tokens and not quiet:
        zoc, zoc_from, stop_sides = provoke_layers(board, tokens)
        board = provoke_board(board, stop_sides)
    r = reach(board, Mover(terrain_cost=table), hero.cell, budget, cell_flags=flags,
              zoc=zoc)
    row_of = {int(c): i for i, c in enumerate(r.cells)}
    free = {c: int(r.free_costs[i]) for c, i in row_of.items() if r.free_costs[i] >= 0}
    free[hero.cell] = 0
    heroes_at: dict[int, list[Hero]] = {}
    for h in heroes:
        if h.id != hero.id:
            heroes_at.setdefault(h.cell, []).append(h)

    def provoked_by(u: int, v: int) -> list[int]:
        both = int(zoc_from[u] & zoc[v])
        return [tokens[b] for b in range(len(tokens)) if (both >> b) & 1]

    ends = []
    for row in end_order(board, r.cells, r.costs):
        v = int(r.cells[row])
        cost = int(r.costs[row])
        s = m.spaces[v]
        path = None
        tokens_hit: list[int] = []
        free_cost = None
        free_path = None
        if v != hero.cell and s.stops(hero.player):
            # An assault space: every arrival stops. Among the cheapest arrivals prefer one
            # that does not provoke (the kernel's labels cannot tell two stopped arrivals
            # apart), and report the cheapest non-provoking one when it costs more.
            best_quiet, quiet_from = None, None
            for d, u in enumerate(board.nbr[v].tolist()):
                # the step u -> v: the terrain of v, and a wall between them (walls
                # cost the same both ways)
                step = table[board.terrain[v]] + (int(board.edges[v, d, 0])
                                                  if board.edges.shape[0] else 0)
                if u < 0 or u not in free or free[u] + step > budget:
                    continue
                if zoc_from[u] & zoc[v]:
                    continue
                c = free[u] + step
                if best_quiet is None or c < best_quiet:
                    best_quiet, quiet_from = c, u
            if best_quiet == cost:
                path = r.path(quiet_from, free=True).tolist() + [v] if paths else None
            else:
                p = r.path(v).tolist()
                tokens_hit = provoked_by(p[-2], v)
                path = p if paths else None
                if best_quiet is not None:
                    free_cost = best_quiet
                    if paths:
                        free_path = r.path(quiet_from, free=True).tolist() + [v]
        elif r.stopped[row]:
            p = r.path(v).tolist()
            tokens_hit = provoked_by(p[-2], v)
            path = p if paths else None
            if r.free_costs[row] >= 0:
                free_cost = int(r.free_costs[row])
                if paths:
                    free_path = r.path(v, free=True).tolist()
        elif paths:
            path = r.path(v).tolist()
        end_flags = []
        if v != hero.cell and s.stops(hero.player):
            end_flags.append("assault")
        if tokens_hit:
            end_flags.append("provoked")
        others = heroes_at.get(v, [])
        if pvp and v != hero.cell and not s.holds_many() and \
                any(h.team != hero.team for h in others):
            end_flags.append("pvp")
        e = {"at": list(board.coord(v)), "cost": cost, "flags": end_flags,
             "safe": v == hero.cell or is_safe(m, v, hero, heroes)}
        if tokens_hit:
            e["provoked"] = sorted(coord_list(board, tokens_hit))
        if free_cost is not None:
            e["free_cost"] = free_cost
        if paths:
            e["path"] = coord_list(board, path)
            if free_path is not None:
                e["free_path"] = coord_list(board, free_path)
        ends.append(e)
    out = _explore(m, r, free, budget, paths, explore_cost, explore_distance) \
        if explore and explore_cost is not None else []
    return {"ends": ends, "explore": out}


def _explore(m: MageKnightMap, r: Reach, free: Mapping[int, int], budget: int,
             paths: bool, cost: int = EXPLORE_COST, distance: int = 1) -> list[dict]:
    if m.next_tile == "none":
        return []
    board = m.board
    out = []
    for pos in m.open:
        best = None
        for c in m.cells_next_to(pos, distance):
            if c in free and free[c] + cost <= budget:
                key = (free[c], board.coord(c))
                if best is None or key < best[0]:
                    best = (key, c)
        if best is None:
            continue
        c = best[1]
        e = {"position": list(pos), "from": list(board.coord(c)),
             "cost": free[c] + cost, "placeable": m.placeable(pos)}
        if paths:
            e["path"] = coord_list(board, r.path(c, free=True).tolist())
        out.append(e)
    out.sort(key=lambda e: (e["cost"], e["position"]))
    return out


def direct_move(m: MageKnightMap, heroes: Sequence[Hero], hero: Hero, spaces: int, *,
                end_safe: bool = True, pvp: bool = True, paths: bool = False,
                forbid: Sequence[str] = ()) -> dict:
    """A "move N spaces" effect: 1 per space, over lakes, mountains, rampaging enemies,
    fortified sites and heroes, without provoking; with ``end_safe`` only safe spaces are
    ends (never a rampaging enemy's space, nor a space of a ``forbid`` cost class)."""
    board = wall_free(m.board)    # walls do not change a direct move
    flags = np.zeros(board.n_cells, np.uint8)
    for i, s in enumerate(m.spaces):
        if s.rampaging is not None or s.cost_class in forbid or \
                (end_safe and not is_safe(m, i, hero, heroes)):
            flags[i] |= T.CELL_NO_END
    r = reach(board, Mover(terrain_cost=[1] * len(COST_CLASSES)), hero.cell, spaces,
              cell_flags=flags)
    ends = []
    for row in end_order(board, r.cells, r.costs):
        v = int(r.cells[row])
        s = m.spaces[v]
        end_flags = []
        if v != hero.cell and s.stops(hero.player):
            end_flags.append("assault")
        if pvp and v != hero.cell and not s.holds_many() and any(
                h.cell == v and h.id != hero.id and h.team != hero.team for h in heroes):
            end_flags.append("pvp")
        e = {"at": list(board.coord(v)), "cost": int(r.costs[row]), "flags": end_flags,
             "safe": v == hero.cell or is_safe(m, v, hero, heroes)}
        if paths:
            e["path"] = coord_list(board, r.path(v))
        ends.append(e)
    return {"ends": ends, "explore": []}


# ---------------------------------------------------------------------------- solve()
def solve_reference(scenario: dict) -> dict:
    """``solve()`` the longhand way (:func:`move` / :func:`direct_move` on a map read
    from the scenario, no live position): the reference the tests hold the position to."""
    expect_keys(scenario, "scenario", ("game", "board", "options", "figures", "query"),
                required=("board", "figures", "query"))
    m = read_map(scenario["board"])
    opts = expect_object(scenario.get("options", {}), "options")
    expect_keys(opts, "options", OPTION_KEYS)
    time = get_str(opts, "time", "options", TIMES, "day")
    pvp = get_bool(opts, "pvp", "options", True)
    reductions, enter = read_effects(opts)
    forbid, quiet, bend, explore_cost, explore_distance = turn_rules(
        read_turn(opts), get_str(opts, "cities", "options", CITY_RULES, "open"))
    query = expect_object(scenario["query"], "query")
    expect_keys(query, "query", ("figure", "budget", "paths", "mode", "end_safe", "reveal"),
                required=("figure", "budget"))
    mode = get_str(query, "mode", "query", ("move", "direct"), "move")
    budget = get_int(query, "budget", "query", lo=0, hi=T.MAX_BUDGET)
    paths = get_bool(query, "paths", "query", False)
    heroes = read_heroes(m, scenario["figures"])
    fid = query["figure"]
    hero = next((h for h in heroes if h.id == fid), None)
    if hero is None:
        raise QueryError(f"query.figure names hero {fid!r}, which is not in the scenario; "
                         f"known heroes: {[h.id for h in heroes]}")
    revealed = []
    for i, item in enumerate(get_list(query, "reveal", "query", [])):
        w = f"query.reveal[{i}]"
        pos, kind, cells, walls = _read_tile(item, w)
        if tuple(pos) in m.open and hero.cell not in m.cells_next_to(pos,
                                                                       explore_distance):
            raise PlacementError(f"{w}: hero {hero.id!r} at "
                                 f"{list(m.board.coord(hero.cell))} is not next to tile "
                                 f"position {list(pos)}, so it cannot reveal it")
        m = m.reveal(pos, cells, kind=kind, walls=walls)
        revealed.append(list(pos))
    if "end_safe" in query and mode != "direct":
        raise ScenarioError("query.end_safe applies to mode \"direct\" only")
    if mode == "direct":
        out = direct_move(m, heroes, hero, budget, pvp=pvp, paths=paths, forbid=forbid,
                          end_safe=get_bool(query, "end_safe", "query", True))
    else:
        out = move(m, heroes, hero, budget, time=time, reductions=reductions, enter=enter,
                   pvp=pvp, paths=paths, forbid=forbid, quiet=quiet, bend=bend,
                   explore_cost=explore_cost, explore_distance=explore_distance)
    result = {"figure": hero.id, "mode": mode, "time": time, "ends": out["ends"],
              "explore": out["explore"]}
    if revealed:
        result["revealed"] = revealed
    return result
