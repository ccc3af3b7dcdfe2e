"""Mage Knight Board Game: the movement phase of a hero's turn (vocabulary ``"mage_knight"``).

Rules (rulebook "Movement" chapter, RULES.md §1):

* The map is made of hex spaces (axial ``(q, r)``, r growing to the south). Entering a
  space costs the Move points of its terrain on the Day/Night board: plains 2, hills 3,
  forest 3 by day / 5 at night, wasteland 4, desert 5 by day / 3 at night, swamp 5; lakes
  and mountains cannot be entered; a city space always costs 2, whatever its art.
* Entering an unconquered fortified site (keep, mage tower, city) or a keep owned by another
  player ends the move at once: an *assault*.
* A space with a rampaging enemy (orc marauders, draconum) cannot be entered. Moving from a
  space adjacent to a rampaging token to another space adjacent to the same token
  *provokes* it: the move ends there. This is a rule of the step (an edge), not of a space.
* Adventure sites (ruins, dungeon, tomb, monster den, spawning grounds) do not stop you.
* Walls (Lost Legion) between two spaces: crossing one costs 1 Move point more, which
  terrain reductions never take away; a step does not provoke an enemy if a wall
  separates its target space from it; direct moves ignore walls.
* Other heroes are passed freely. Ending on one is an attack (*pvp*) where player combat is
  allowed; otherwise the hero may end there but it is not a safe space. Portals and
  conquered cities hold any number of heroes.
* A space is *safe* if it is accessible under normal conditions (not a lake or mountain,
  no rampaging enemy), is not an unconquered fortified site nor another player's keep, and
  holds no other hero (except a portal or a conquered city).
* Effects played this turn: cost reductions ``{"terrains": [...] | "all", "by": n, "min":
  m}`` (applied in the order that gives the least cost, never below 0); effects letting the
  hero enter lakes or mountains at a given cost (ends there are unsafe); and direct moves
  ("move N spaces": 1 per space, over anything, ending on a safe space) as their own mode.
* Exploring: from a space adjacent to an open tile position, spend 2 Move points to reveal
  the next tile; a countryside tile must touch two placed tiles or a tile that touches
  two, a core tile two, a fallback tile three. Movement may go on afterwards.

The map (:class:`MageKnightMap`, a packed :class:`~movecore.Board` plus what stands on each
space, the tiles, walls and the published tile catalogue) is read by :mod:`.map`;
:meth:`MageKnightMap.reveal` adds a tile with :meth:`Board.extend`, keeping every cell
index, so "reveal, then continue" needs no rebuild. This module holds the game's words
(the Day/Night board, the options), the cost and provoking rules, the effects of the turn,
the heroes and safe spaces. See docs/mage_knight.md for the scenario vocabulary.

``solve()`` runs through the live :class:`Position` (module :mod:`.position`:
legal moves array-first, moves applied, day/night, effects, conquests, defeated enemies and
revealed tiles changed in place, cheap copies). :mod:`.reference` holds the longhand
reference searches (``move``, ``direct_move``, ``solve_reference``) the tests hold it to.
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from ...board import Board
from ...errors import LimitError, PlacementError, QueryError, ScenarioError, describe
from ...kernels import _types as T
from ...position import figure_key
from ...scenario import (expect_keys, expect_object, get_bool, get_coord, get_id, get_int,
                        get_list, get_str)
from .map import COST_CLASSES, INACCESSIBLE, WITHIN_TWO, MageKnightMap, _read_tile, read_map

# ---------------------------------------------------------------------------- words

#: The Day/Night board: Move cost of entering each terrain (None = cannot be entered).
MOVE_COST = {
    "day": {"plains": 2, "hills": 3, "forest": 3, "wasteland": 4, "desert": 5, "swamp": 5,
            "lake": None, "mountain": None, "city": 2},
    "night": {"plains": 2, "hills": 3, "forest": 5, "wasteland": 4, "desert": 3, "swamp": 5,
              "lake": None, "mountain": None, "city": 2},
}
TIMES = tuple(MOVE_COST)


#: Cost of revealing a tile.
EXPLORE_COST = 2
#: Scenario rule for cities: ``open`` (the rulebook's), ``closed`` ("Cities cannot be
#: conquered nor entered in this scenario": First Reconnaissance, Scenario Book).
CITY_RULES = ("open", "closed")
#: How far from an open tile position a hero may explore it (2: Space Bending, Scouts).
EXPLORE_DISTANCES = (1, 2)
#: Keys of the scenario ``options``.
OPTION_KEYS = ("time", "pvp", "reductions", "enter", "forbid", "provoke", "bend", "explore",
               "cities")

_BENT: "weakref.WeakKeyDictionary[Board, Board]" = weakref.WeakKeyDictionary()


def bent_board(board: Board) -> Board:
    """The map as Space Bending sees it: every space within 2 steps is adjacent ("you may
    move to spaces ... that are 2 spaces away from you as if they were adjacent. Ignore
    any spaces you leap over this way"). A graph board over the same cells (indices,
    coordinates and terrain ids kept); made once per board."""
    got = _BENT.get(board)
    if got is None:
        xy = board.coords.astype(np.int64)
        nbr = np.stack([board.indices(xy + np.array(d)) for d in WITHIN_TWO], axis=1)
        got = _BENT[board] = Board.graph(nbr, coords=board.coords, terrain=board.terrain,
                                         edges=_side_costs(board))
    return got


_WALL_FREE: "weakref.WeakKeyDictionary[Board, Board]" = weakref.WeakKeyDictionary()


def wall_free(board: Board) -> Board:
    """The map without its walls, for a direct move ("Walls have no effect on movement
    invoked directly by an effect"): the board itself when it has none; made once."""
    if not board.edges.shape[0]:
        return board
    got = _WALL_FREE.get(board)
    if got is None:
        got = _WALL_FREE[board] = board.with_edges([], replace=True)
    return got


def _side_costs(board: Board) -> list[dict]:
    """The walls of a board as ``with_edges`` items (cell indices, each side once)."""
    if not board.edges.shape[0]:
        return []
    return [{"between": (int(u), int(board.nbr[u, d])), "cost": int(board.edges[u, d, 0])}
            for u, d in zip(*np.nonzero(board.edges[:, :, 0]))
            if u < board.nbr[u, d]]


def open_neighbours(board: Board, cell: int) -> np.ndarray:
    """The spaces next to ``cell`` that no wall separates from it."""
    nb = board.nbr[cell]
    keep = nb >= 0
    if board.edges.shape[0]:
        keep &= board.edges[cell, :, 0] == 0
    return nb[keep]


def provoke_layers(board: Board, tokens: Sequence[int]
                   ) -> tuple[np.ndarray, np.ndarray, list[tuple[int, int]]]:
    """``(zoc, zoc_from, stop_sides)`` of the rampaging enemies ``tokens`` (bit i: enemy
    ``tokens[i]``). A step ``u -> v`` provokes the enemies of ``zoc_from[u] & zoc[v]``:
    it leaves a space next to the enemy (``zoc_from``: geometric neighbours) for one
    next to it that no wall separates from it (``zoc``): "Your move does not provoke
    rampaging enemies if the target space of that move is separated from the enemy by a
    wall". Without walls the two are one array. The kernel stops a step where ``zoc[u] &
    zoc[v]``; ``stop_sides`` are the other provoking steps ``(u, v)`` (from a space
    walled off from the enemy to an open one), one-way stop sides of the board
    (:func:`provoke_board`). A token ``-1`` is a free bit."""
    if len(tokens) > 64:
        raise LimitError(f"{len(tokens)} rampaging enemies; at most 64 are supported per "
                         f"query")
    zoc_from = np.zeros(board.n_cells, np.uint64)
    walls = board.edges.shape[0] > 0
    zoc = np.zeros(board.n_cells, np.uint64) if walls else zoc_from
    for bit, t in enumerate(tokens):
        if t >= 0:
            b = np.uint64(1) << np.uint64(bit)
            nb = board.nbr[t]
            zoc_from[nb[nb >= 0]] |= b
            if walls:
                zoc[open_neighbours(board, t)] |= b
    return zoc, zoc_from, stop_sides(board, zoc, zoc_from)


def stop_sides(board: Board, zoc: np.ndarray, zoc_from: np.ndarray
               ) -> list[tuple[int, int]]:
    """The provoking steps ``(u, v)`` the kernel's ``zoc[u] & zoc[v]`` misses: from a
    space walled off from an enemy to a space next to it with no wall between."""
    if zoc is zoc_from:
        return []
    walled = zoc_from & ~zoc
    out = []
    for u in np.flatnonzero(walled).tolist():
        for v in board.nbr[u].tolist():
            if v >= 0 and walled[u] & zoc[v]:
                out.append((u, v))
    return out


def provoke_board(board: Board, stop_sides: Sequence[tuple[int, int]]) -> Board:
    """The board with the one-way stop sides of :func:`provoke_layers` (itself if none)."""
    if not stop_sides:
        return board
    return board.with_edges([{"between": s, "stop": True, "one_way": True}
                             for s in stop_sides])



# ---------------------------------------------------------------------------- costs
def reduce_cost(cost: int, reductions: Iterable[tuple[int, int]]) -> int:
    """Least cost after the reductions ``(by, min)``, in the best order.

    Each reduction takes the cost ``c`` to ``min(c, max(min, c - by))`` (it never raises a
    cost); the result never goes below 0. Applying the reductions with higher floors first
    is optimal (checked against every order in the tests).
    """
    for by, floor in sorted(reductions, key=lambda r: -r[1]):
        cost = min(cost, max(floor, cost - by))
    return max(cost, 0)


def terrain_costs(time: str = "day", reductions: Iterable[Mapping] = (),
                  enter: Iterable[Mapping] = (), forbid: Iterable[str] = ()
                  ) -> dict[str, int | None]:
    """Move cost of each terrain (and ``"city"``) this turn; ``None`` = cannot enter.

    ``reductions``: ``{"terrains": [...] | "all", "by": n, "min": m}``; ``enter``:
    ``{"terrains": ["lake" | "mountain", ...], "cost": n}`` (an effect that lets the hero
    enter an inaccessible terrain at that cost; reductions then apply to it as well);
    ``forbid``: cost classes that cannot be entered this turn (Mist Form's "You cannot
    enter hills and mountains"; ``"city"`` when cities are closed); it beats ``enter``.
    """
    if time not in MOVE_COST:
        raise QueryError(f"time is {time!r}; expected one of {list(TIMES)}")
    base = dict(MOVE_COST[time])
    for e in enter:
        for t in e["terrains"]:
            if base[t] is None or e["cost"] < base[t]:
                base[t] = e["cost"]
    out = {}
    for t, c in base.items():
        if c is None:
            out[t] = None
            continue
        mine = [(r["by"], r["min"]) for r in reductions
                if r["terrains"] == "all" or t in r["terrains"]]
        out[t] = reduce_cost(c, mine)
    for t in forbid:
        out[t] = None
    return out




def read_effects(opts: Mapping) -> tuple[list[dict], list[dict]]:
    """(reductions, enter effects) of the scenario options, validated."""
    reductions = []
    for i, r in enumerate(get_list(opts, "reductions", "options", [])):
        w = f"options.reductions[{i}]"
        r = expect_object(r, w)
        expect_keys(r, w, ("terrains", "by", "min"), required=("terrains", "by"))
        terrains = r["terrains"]
        if terrains != "all":
            if not isinstance(terrains, list) or not terrains:
                raise ScenarioError(f"{w}.terrains must be \"all\" or a non-empty list of "
                                    f"terrains; got {describe(terrains)}")
            for t in terrains:
                if t not in COST_CLASSES:
                    raise ScenarioError(f"{w}.terrains: unknown terrain {describe(t)}; "
                                        f"expected one of {list(COST_CLASSES)}")
        reductions.append({"terrains": terrains,
                           "by": get_int(r, "by", w, lo=0, hi=T.MAX_COST),
                           "min": get_int(r, "min", w, 0, lo=0, hi=T.MAX_COST)})
    enter = []
    for i, e in enumerate(get_list(opts, "enter", "options", [])):
        w = f"options.enter[{i}]"
        e = expect_object(e, w)
        expect_keys(e, w, ("terrains", "cost"), required=("terrains", "cost"))
        terrains = get_list(e, "terrains", w)
        for t in terrains:
            if t not in INACCESSIBLE:
                raise ScenarioError(f"{w}.terrains: {describe(t)} is not an inaccessible "
                                    f"terrain; expected some of {list(INACCESSIBLE)}")
        enter.append({"terrains": terrains, "cost": get_int(e, "cost", w, lo=0,
                                                            hi=T.MAX_COST)})
    return reductions, enter


#: The turn effects of a scenario without any (see :func:`read_turn`).
NO_TURN_EFFECTS = {"forbid": [], "provoke": True, "bend": False,
                   "explore": {"cost": EXPLORE_COST, "distance": 1}}


def read_turn(opts: Mapping) -> dict:
    """The effects of the scenario options that change the rules of movement, validated:
    ``forbid`` (cost classes that cannot be entered this turn), ``provoke`` (false: moves
    provoke no rampaging enemy), ``bend`` (Space Bending), ``explore`` (``{"cost": n or
    null (no exploring), "distance": 1 or 2}``). See docs/mage_knight.md."""
    forbid = []
    for i, t in enumerate(get_list(opts, "forbid", "options", [])):
        if not isinstance(t, str) or t not in COST_CLASSES:
            raise ScenarioError(f"options.forbid[{i}]: unknown terrain {describe(t)}; "
                                f"expected some of {list(COST_CLASSES)}")
        if t not in forbid:
            forbid.append(t)
    ex = expect_object(opts.get("explore", {}), "options.explore")
    expect_keys(ex, "options.explore", ("cost", "distance"))
    cost = ex.get("cost", EXPLORE_COST)
    if cost is not None:
        cost = get_int(ex, "cost", "options.explore", EXPLORE_COST, lo=0, hi=T.MAX_COST)
    distance = get_int(ex, "distance", "options.explore", 1)
    if distance not in EXPLORE_DISTANCES:
        raise ScenarioError(f"options.explore.distance is {distance}; expected one of "
                            f"{list(EXPLORE_DISTANCES)}")
    return {"forbid": forbid, "provoke": get_bool(opts, "provoke", "options", True),
            "bend": get_bool(opts, "bend", "options", False),
            "explore": {"cost": cost, "distance": distance}}


def turn_rules(turn: Mapping, cities: str = "open") -> tuple[list[str], bool, bool,
                                                             int | None, int]:
    """(forbidden cost classes, quiet, bend, explore cost or None, explore distance) of
    the turn effects ``turn`` (:func:`read_turn`) under the city rule ``cities``: closed
    cities are forbidden; Space Bending never provokes and explores from 2 away."""
    forbid = list(turn["forbid"])
    if cities == "closed" and "city" not in forbid:
        forbid.append("city")
    bend = bool(turn["bend"])
    ex = turn["explore"]
    return (forbid, bend or not turn["provoke"], bend, ex["cost"],
            2 if bend else ex["distance"])


@dataclass(frozen=True)
class Hero:
    id: Any
    player: Any     # who owns keeps: the hero's id
    team: Any       # heroes of one team never fight each other
    cell: int


def read_heroes(m: MageKnightMap, items) -> list[Hero]:
    if not isinstance(items, list):
        raise ScenarioError(f"figures must be a list of heroes; got {describe(items)}")
    heroes: list[Hero] = []
    for i, raw in enumerate(items):
        w = f"figures[{i}]"
        raw = expect_object(raw, w)
        expect_keys(raw, w, ("id", "at", "team"), required=("id", "at"))
        hid = get_id(raw, "id", w)
        if any(h.id == hid for h in heroes):
            raise ScenarioError(f"duplicate hero id {hid!r} in figures")
        at = get_coord(raw, "at", w)
        cell = m.board.find(at)
        if cell < 0:
            raise PlacementError(f"hero {hid!r} stands on {list(at)}, which is not a space "
                                 f"of the map")
        s = m.spaces[cell]
        if s.rampaging is not None:
            raise PlacementError(f"hero {hid!r} stands on {list(at)}, a space held by "
                                 f"rampaging {s.rampaging}")
        if not s.accessible():
            raise PlacementError(f"hero {hid!r} stands on {list(at)}, a {s.terrain} space, "
                                 f"which heroes cannot enter")
        other = [h for h in heroes if h.cell == cell]
        if other and not s.holds_many():
            raise PlacementError(f"heroes {other[0].id!r} and {hid!r} both stand on "
                                 f"{list(at)}; only a portal or a conquered city holds "
                                 f"several heroes")
        team = raw.get("team", hid)
        if isinstance(team, bool) or not isinstance(team, (str, int)):
            raise ScenarioError(f"{w}.team must be a string or integer; got "
                                f"{describe(team)}")
        heroes.append(Hero(hid, hid, team, cell))
    return heroes


# ---------------------------------------------------------------------------- scenario
#: The keys of a ``solve()`` query besides ``figure`` (those ``legal_moves`` takes).
QUERY_KEYS = ("budget", "paths", "mode", "end_safe", "reveal")
MODES = ("move", "direct")


def end_safe_of(query: Mapping, mode: str) -> bool:
    """``query.end_safe`` (default true): whether a direct move must end on a safe space;
    a key of mode ``"direct"`` only."""
    if "end_safe" not in query:
        return True
    if mode != "direct":
        raise ScenarioError("query.end_safe applies to mode \"direct\" only")
    return get_bool(query, "end_safe", "query", True)


def read_query(query, heroes: list):
    """The hero a scenario's ``query`` moves (one of ``heroes``, the ids in play), its
    keys and values checked: ``budget``, ``mode``, ``paths``, ``end_safe`` and the tiles
    of ``reveal`` (whether the hero stands next to them is the position's to say)."""
    query = expect_object(query, "query")
    expect_keys(query, "query", ("figure",) + QUERY_KEYS, required=("figure", "budget"))
    mode = get_str(query, "mode", "query", MODES, "move")
    get_int(query, "budget", "query", lo=0, hi=T.MAX_BUDGET)
    get_bool(query, "paths", "query", False)
    fid = query["figure"]
    if figure_key(fid) not in heroes:
        raise QueryError(f"query.figure names hero {fid!r}, which is not in the "
                         f"scenario; known heroes: {heroes}")
    end_safe_of(query, mode)
    if query.get("reveal") is not None:
        for k, item in enumerate(get_list(query, "reveal", "query", [])):
            _read_tile(item, f"query.reveal[{k}]")
    return fid


@dataclass(frozen=True)
class Setup:
    """A Mage Knight scenario read (:func:`read_scenario`): what a position is built of."""
    map: MageKnightMap
    heroes: list
    time: str
    pvp: bool
    reductions: list
    enter: list
    turn: dict
    cities: str
    default_query: dict


def read_scenario(scenario, query: bool = True) -> Setup:
    """Read and validate a Mage Knight scenario: ``board`` (:func:`read_map`),
    ``options`` (time of day, effects of the turn, cities), ``figures``
    (:func:`read_heroes`) and, when given, ``query`` (:func:`read_query`; its
    ``budget`` is the position's default), raising the typed errors
    :func:`movecore.solve` raises (``query=False``: the query is not read, as
    ``Position.from_scenario`` does). Pure reading: it loads no kernel."""
    scenario = expect_object(scenario, "scenario")
    expect_keys(scenario, "scenario", ("game", "board", "options", "figures", "query"),
                required=("board", "figures"))
    m = read_map(scenario["board"])
    opts = expect_object(scenario.get("options", {}), "options")
    expect_keys(opts, "options", OPTION_KEYS)
    time = get_str(opts, "time", "options", TIMES, "day")
    pvp = get_bool(opts, "pvp", "options", True)
    reductions, enter = read_effects(opts)
    turn = read_turn(opts)
    cities = get_str(opts, "cities", "options", CITY_RULES, "open")
    heroes = read_heroes(m, scenario["figures"])
    q = scenario.get("query")
    default = {}
    if isinstance(q, Mapping) and "budget" in q:
        default["budget"] = q["budget"]
    if query and "query" in scenario:
        read_query(q, [h.id for h in heroes])
    return Setup(m, heroes, time, pvp, reductions, enter, turn, cities, default)


# ---------------------------------------------------------------------------- safe spaces
def is_safe(m: MageKnightMap, cell: int, hero: Hero, heroes: Sequence[Hero]) -> bool:
    """The rulebook's safe space, for ``hero`` ending there."""
    s = m.spaces[cell]
    if not s.accessible() or s.stops(hero.player):
        return False
    if s.holds_many():
        return True
    return not any(h.cell == cell and h.id != hero.id for h in heroes)
