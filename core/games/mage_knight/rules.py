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

The map is a :class:`MageKnightMap` (a packed :class:`~movecore.Board` plus what stands on
each space); :meth:`MageKnightMap.reveal` adds a tile with :meth:`Board.extend`, keeping
every cell index, so "reveal, then continue" needs no rebuild. See docs/mage_knight.md for
the scenario vocabulary.

``solve()`` runs through the live :class:`Position` (module :mod:`.position`:
legal moves array-first, moves applied, day/night, effects, conquests, defeated enemies and
revealed tiles changed in place, cheap copies). :func:`move` and :func:`direct_move` are the
longhand reference it is tested against (:func:`solve_reference`).
"""
from __future__ import annotations

import json
import weakref
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from ...board import DIRECTIONS, Board
from ...errors import (BoardError, LimitError, PlacementError, QueryError, ScenarioError,
                      describe)
from ...kernels import _types as T
from ...mover import Mover
from ...reach import Reach, reach
from ...scenario import (as_coord, expect_keys, expect_object, get_bool, get_coord, get_id,
                        get_int, get_list, get_str)
from .._common import coord_list, end_order

# ---------------------------------------------------------------------------- words
TERRAINS = ("plains", "hills", "forest", "wasteland", "desert", "swamp", "lake", "mountain")
INACCESSIBLE = ("lake", "mountain")
#: Kernel terrain id of a city space (it costs 2 whatever terrain is printed under it).
CITY_SPACE = len(TERRAINS)
COST_CLASSES = TERRAINS + ("city",)

#: The Day/Night board: Move cost of entering each terrain (None = cannot be entered).
MOVE_COST = {
    "day": {"plains": 2, "hills": 3, "forest": 3, "wasteland": 4, "desert": 5, "swamp": 5,
            "lake": None, "mountain": None, "city": 2},
    "night": {"plains": 2, "hills": 3, "forest": 5, "wasteland": 4, "desert": 3, "swamp": 5,
              "lake": None, "mountain": None, "city": 2},
}
TIMES = tuple(MOVE_COST)

FORTIFIED = ("keep", "mage_tower", "city")
ADVENTURE = ("dungeon", "tomb", "ruins", "monster_den", "spawning_grounds", "maze",
             "labyrinth")
SITES = FORTIFIED + ("monastery", "village", "portal", "glade", "mine", "deep_mine",
                     "refugee_camp") + ADVENTURE
RAMPAGING = ("orc_marauders", "draconum")

#: Cost of revealing a tile.
EXPLORE_COST = 2
#: Extra Move points of crossing a wall (Lost Legion, site card *Walls*: "To cross a wall
#: on the map, you have to pay 1 extra Move point. Terrain discounts cannot negate this
#: extra cost"): a side cost of the board, never touched by the terrain reductions.
WALL_COST = 1
#: Hexes of a tile: offsets of its 7 spaces from the centre.
TILE_HEXES = {"C": (0, 0), "E": (1, 0), "NE": (1, -1), "NW": (0, -1), "W": (-1, 0),
              "SW": (-1, 1), "SE": (0, 1)}
#: Steps between neighbouring tile positions (centre to centre). The lattice is generated
#: by (3, -2) (east) and (2, 1) (south-east): centres with (q - 2r) % 7 == 0.
TILE_STEPS = ((3, -2), (2, 1), (-1, 3), (-3, 2), (-2, -1), (1, -3))
#: Sides of a hex (a wall of a tile is ``{"hex": ..., "side": ...}``): the step to the
#: neighbour across that side, the same offsets as the outer hexes of a tile.
SIDES = {k: v for k, v in TILE_HEXES.items() if k != "C"}
TILE_KINDS = ("countryside", "core")
NEXT_TILE = ("countryside", "core", "fallback", "none")
#: Scenario rule for cities: ``open`` (the rulebook's), ``closed`` ("Cities cannot be
#: conquered nor entered in this scenario": First Reconnaissance, Scenario Book).
CITY_RULES = ("open", "closed")
#: How far from an open tile position a hero may explore it (2: Space Bending, Scouts).
EXPLORE_DISTANCES = (1, 2)
#: Keys of the scenario ``options``.
OPTION_KEYS = ("time", "pvp", "reductions", "enter", "forbid", "provoke", "bend", "explore",
               "cities")
#: Placed tiles a new tile must touch, by the kind of the next tile.
TILES_TO_TOUCH = {"countryside": 2, "core": 2, "fallback": 3}
#: Map shapes of the Scenario Book (General Principles, "Map Shape"), the starting tile at
#: [0, 0]. A tile position is ``a * (1, -3) + b * (3, -2)``: ``a`` steps "up" (the
#: starting tile's north-east neighbour) and ``b`` columns to the right. A wedge (tile A)
#: spreads between the column of the starting tile and the diagonal to its east
#: (a >= 0, b >= 0; its coastline, the leftmost and rightmost lanes, holds no core tile);
#: an open map (tile B and three tiles above it) spreads between the diagonals (a >= 0,
#: a + b >= 0) over at most 5, 4 or 3 columns (``open_4`` leans right): value = the
#: columns ``b`` allowed (None: no limit).
MAP_SHAPES = {"wedge": None, "open_5": (-2, 2), "open_4": (-1, 2), "open_3": (-1, 1)}

_CATALOGUE_FILE = Path(__file__).with_name("tiles.json")
_catalogue_cache: dict = {}


def tile_catalogue() -> dict:
    """The published tiles shipped with movecore: ``{name: {"kind", "cells": [{"hex",
    "terrain", "site"?, "rampaging"?}], "walls"?: [{"hex", "side"}], "expansion"?,
    "source"?}}`` (names ``A``, ``B``, ``countryside_1..14``, ``core_1..9``; the Lost
    Legion tiles carry ``"expansion": "lost_legion"``, their walls and their own source;
    sources and disputes in the JSON file)."""
    if not _catalogue_cache:
        try:
            data = json.loads(_CATALOGUE_FILE.read_text())
        except OSError as exc:  # pragma: no cover - packaging problem
            raise BoardError(f"the tile catalogue {_CATALOGUE_FILE.name} is missing: "
                             f"{exc}") from exc
        _catalogue_cache.update(data["tiles"])
    return _catalogue_cache


def on_tile_lattice(position: Sequence[int]) -> bool:
    """Is ``position`` (a tile centre) a tile position of the lattice?"""
    q, r = position
    return (q - 2 * r) % 7 == 0


def shape_coordinates(position: Sequence[int]) -> tuple[int, int]:
    """``(a, b)`` of a tile position: ``a`` steps up (1, -3), ``b`` columns right
    (3, -2) from [0, 0] (see :data:`MAP_SHAPES`)."""
    q, r = position
    b = (r + 3 * q) // 7
    return q - 3 * b, b


def in_shape(position: Sequence[int], shape: str) -> bool:
    """Is the tile position inside the map shape (``wedge``, ``open_5/4/3``)?"""
    a, b = shape_coordinates(position)
    if shape == "wedge":
        return a >= 0 and b >= 0
    lo, hi = MAP_SHAPES[shape]
    return a >= 0 and a + b >= 0 and lo <= b <= hi


def on_coast(position: Sequence[int], shape: str | None) -> bool:
    """Is the tile position on the coastline where core tiles may not go (a wedge's
    leftmost or rightmost lane, the starting tile aside)?"""
    if shape != "wedge" or not in_shape(position, shape):
        return False
    a, b = shape_coordinates(position)
    return (a == 0) != (b == 0)


def tile_of(coord: Sequence[int]) -> tuple[int, int]:
    """The tile position whose 7 hexes hold the space ``coord``."""
    q, r = coord
    for dq, dr in TILE_HEXES.values():
        if on_tile_lattice((q - dq, r - dr)):
            return q - dq, r - dr
    raise AssertionError("the tile lattice covers the plane")  # pragma: no cover


def tile_cells(position: Sequence[int]) -> list[tuple[int, int]]:
    """The 7 spaces of the tile at ``position`` (centre first, then E, NE, NW, W, SW, SE)."""
    q, r = position
    return [(q + dq, r + dr) for dq, dr in TILE_HEXES.values()]


#: Offsets of the hexes within 2 steps (the 6 neighbours first, then the ring at 2).
WITHIN_TWO = tuple(DIRECTIONS["hex"]) + tuple(
    (dq, dr) for dq in range(-2, 3) for dr in range(-2, 3)
    if max(abs(dq), abs(dr), abs(dq + dr)) == 2)
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


def wall_key(a: Sequence[int], b: Sequence[int]) -> tuple:
    """A wall between spaces ``a`` and ``b`` (coordinates), the same either way round."""
    a, b = tuple(int(x) for x in a), tuple(int(x) for x in b)
    return (a, b) if a <= b else (b, a)


def _wall_sides(board: Board, walls: Iterable[tuple], new_from: int = 0) -> list[dict]:
    """``with_edges`` items of the walls whose two spaces are on ``board``, one of them of
    index ``new_from`` or more (the walls a reveal completes)."""
    out = []
    for a, b in sorted(walls):
        i, j = board.find(a), board.find(b)
        if i >= 0 and j >= 0 and max(i, j) >= new_from:
            out.append({"between": (i, j), "cost": WALL_COST})
    return out


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


# ---------------------------------------------------------------------------- the map
@dataclass(frozen=True)
class Space:
    """What is printed on and stands on one hex space."""

    terrain: str | None            # one of TERRAINS; None only under a city
    site: str | None = None
    conquered: bool = False
    owner: Any = None              # the player owning a keep (conquered)
    rampaging: str | None = None   # "orc_marauders" | "draconum" | None

    @property
    def cost_class(self) -> str:
        return "city" if self.site == "city" else self.terrain

    def stops(self, player) -> bool:
        """Entering ends the move (an assault): an unconquered fortified site, or a keep
        owned by another player."""
        if self.site in FORTIFIED and not self.conquered and self.owner is None:
            return True
        return self.site == "keep" and self.owner is not None and self.owner != player

    def holds_many(self) -> bool:
        """Several heroes may stand here (and never fight): a portal, a conquered city."""
        return self.site == "portal" or (self.site == "city" and self.conquered)

    def accessible(self) -> bool:
        """Accessible under normal conditions."""
        return self.rampaging is None and (self.site == "city" or
                                           self.terrain not in INACCESSIBLE)


@dataclass(frozen=True, eq=False)
class MageKnightMap:
    """A packed board (kernel terrain id = cost class: TERRAINS index, or CITY_SPACE) plus
    the spaces, the open tile positions of the scenario and the kind of the next tile."""

    board: Board
    spaces: tuple[Space, ...]
    open: tuple[tuple[int, int], ...] = ()
    next_tile: str = "countryside"
    shape: str | None = None     # a map shape (MAP_SHAPES): the open positions follow it
    #: walls (:func:`wall_key` pairs of adjacent coordinates); those with both spaces on
    #: the map are sides of ``board`` costing WALL_COST, the others wait for a reveal
    walls: frozenset = frozenset()

    # ------------------------------------------------------------------ building
    @classmethod
    def build(cls, cells: Sequence[tuple[tuple[int, int], Space]],
              open_positions: Iterable[Sequence[int]] = (),
              next_tile: str = "countryside", shape: str | None = None,
              walls: Iterable[tuple] = ()) -> "MageKnightMap":
        """``walls``: :func:`wall_key` pairs of adjacent spaces (at least one on the
        map; a wall whose other space is not yet on the map waits for a reveal)."""
        if not cells:
            raise BoardError("a Mage Knight map needs at least one space")
        coords = [c for c, _ in cells]
        spaces = tuple(s for _, s in cells)
        board = Board.hex(coords, terrain=[_terrain_id(s) for s in spaces])
        walls = frozenset(walls)
        if walls:
            for a, b in sorted(walls):
                if board.find(a) < 0 and board.find(b) < 0:
                    raise BoardError(f"the wall between {list(a)} and {list(b)} touches no "
                                     f"space of the map")
            board = board.with_edges(_wall_sides(board, walls))
        m = cls(board, spaces, (), next_tile, shape, walls)
        if shape is not None:
            return m._shape_open()
        return m._with_open(open_positions)

    def _shape_open(self) -> "MageKnightMap":
        """The map with its open positions those of its shape: every tile position of
        the shape next to a placed tile and holding no space, in (q, r) order."""
        placed = {tile_of(c) for c in self.board.coords.tolist()}
        out = set()
        for q, r in placed:
            for dq, dr in TILE_STEPS:
                p = (q + dq, r + dr)
                if p not in placed and in_shape(p, self.shape):
                    out.add(p)
        return replace(self, open=tuple(sorted(out)))

    def _with_open(self, positions) -> "MageKnightMap":
        out = []
        for i, p in enumerate(positions):
            p = tuple(int(x) for x in p)
            if not on_tile_lattice(p):
                raise BoardError(f"open tile position {list(p)} is not a tile position of "
                                 f"the lattice (tile centres have (q - 2r) % 7 == 0)")
            if self.explored(p):
                raise BoardError(f"open tile position {list(p)} already holds spaces of "
                                 f"the map")
            if p in out:
                raise BoardError(f"open tile position {list(p)} is listed twice")
            out.append(p)
        return replace(self, open=tuple(out))

    def explored(self, position: Sequence[int]) -> bool:
        """Does the tile position hold a placed tile (any of its spaces on the map)?"""
        return any(self.board.find(c) >= 0 for c in tile_cells(position))

    def touching_tiles(self, position: Sequence[int]) -> int:
        q, r = position
        return sum(self.explored((q + dq, r + dr)) for dq, dr in TILE_STEPS)

    def placeable(self, position: Sequence[int], kind: str | None = None) -> bool:
        """May a tile of ``kind`` (default: the next tile) be placed at ``position``?

        countryside: touches two placed tiles, or a placed tile that touches two; core:
        touches two, and not on a wedge map's coastline; fallback: touches three; none:
        never."""
        kind = self.next_tile if kind is None else kind
        if kind == "none" or (kind == "core" and on_coast(position, self.shape)):
            return False
        n = self.touching_tiles(position)
        if n >= TILES_TO_TOUCH[kind]:
            return True
        if kind != "countryside":
            return False
        q, r = position
        return any(self.explored((q + dq, r + dr)) and
                   self.touching_tiles((q + dq, r + dr)) >= 2 for dq, dr in TILE_STEPS)

    def cells_next_to(self, position: Sequence[int], distance: int = 1) -> list[int]:
        """Map spaces adjacent to the (unexplored) tile position, from which it may be
        revealed (``distance`` 2: within two steps of it, as Space Bending and Scouts
        allow)."""
        tile = set(tile_cells(position))
        out = set()
        for q, r in tile:
            for dq, dr in (WITHIN_TWO if distance == 2 else DIRECTIONS["hex"]):
                c = (q + dq, r + dr)
                if c not in tile:
                    i = self.board.find(c)
                    if i >= 0:
                        out.add(i)
        return sorted(out)

    def reveal(self, position: Sequence[int], tile, *, kind: str | None = None,
               walls: Iterable[tuple] = ()) -> "MageKnightMap":
        """The map with a tile revealed at an open ``position``.

        ``tile`` is a catalogue name (``"countryside_3"``) or a list of ``(coord, Space)``
        for the tile's spaces. The new spaces are appended with :meth:`Board.extend`: every
        existing cell index stays valid. ``kind`` (countryside / core) is checked against
        the placement rule; a catalogue tile knows its own kind (and its walls).
        ``walls``: more walls (:func:`wall_key` pairs) the tile brings.
        """
        position = tuple(int(x) for x in position)
        if position not in self.open:
            raise PlacementError(f"tile position {list(position)} is not an open position "
                                 f"of this map; open: {[list(p) for p in self.open]}")
        walls = list(walls)
        if isinstance(tile, str):
            kind_of, cells = catalogue_tile(tile, position)
            kind = kind or kind_of
            walls += catalogue_walls(tile, position)
        else:
            cells = list(tile)
        if kind == "core" and on_coast(position, self.shape):
            raise PlacementError(f"a core tile may not be placed at {list(position)}: it "
                                 f"is on the coastline of the wedge map")
        if kind is not None:
            rule = "fallback" if self.next_tile == "fallback" else kind
            if not self.placeable(position, rule):
                raise PlacementError(f"a {rule} tile may not be placed at {list(position)}: "
                                     f"it touches {self.touching_tiles(position)} placed "
                                     f"tile(s)")
        if not cells:
            raise BoardError(f"the tile revealed at {list(position)} has no spaces")
        board = self.board.extend([c for c, _ in cells],
                                  terrain=[_terrain_id(s) for _, s in cells])
        all_walls = self.walls
        for a, b in walls:
            key = wall_key(a, b)
            if key in all_walls:
                raise BoardError(f"the wall between {list(key[0])} and {list(key[1])} is "
                                 f"given twice")
            all_walls = all_walls | {key}
        if all_walls:   # the tile's walls, and walls waiting for its spaces
            sides = _wall_sides(board, all_walls, self.board.n_cells)
            if sides:
                board = board.with_edges(sides)
        spaces = self.spaces + tuple(s for _, s in cells)
        out = replace(self, board=board, spaces=spaces, walls=all_walls,
                      open=tuple(p for p in self.open if p != position))
        return out._shape_open() if self.shape is not None else out

    def with_updates(self, updates: Mapping[int, Mapping]) -> "MageKnightMap":
        """The map with some spaces changed (``{cell: {"conquered": .., ...}}``)."""
        spaces = list(self.spaces)
        for cell, changes in updates.items():
            spaces[cell] = replace(spaces[cell], **changes)
            _check_space(spaces[cell], f"space {list(self.board.coord(cell))}")
        return replace(self, spaces=tuple(spaces))


def _terrain_id(space: Space) -> int:
    return CITY_SPACE if space.site == "city" else TERRAINS.index(space.terrain)


def catalogue_tile(name: str, position: Sequence[int]
                   ) -> tuple[str, list[tuple[tuple[int, int], Space]]]:
    """(kind, spaces) of a catalogue tile placed with its centre at ``position``."""
    cat = tile_catalogue()
    if name not in cat:
        raise BoardError(f"unknown tile {name!r}; the catalogue has {sorted(cat)}")
    q, r = position
    out = []
    for c in cat[name]["cells"]:
        dq, dr = TILE_HEXES[c["hex"]]
        out.append(((q + dq, r + dr), Space(c["terrain"], c.get("site"), False, None,
                                            c.get("rampaging"))))
    return cat[name]["kind"], out


def catalogue_walls(name: str, position: Sequence[int]) -> list[tuple]:
    """The walls (:func:`wall_key` pairs) of a catalogue tile placed at ``position``."""
    cat = tile_catalogue()
    if name not in cat:
        raise BoardError(f"unknown tile {name!r}; the catalogue has {sorted(cat)}")
    return [_tile_wall(position, w["hex"], w["side"]) for w in cat[name].get("walls", ())]


def _tile_wall(position: Sequence[int], hex_name: str, side: str) -> tuple:
    q, r = position
    dq, dr = TILE_HEXES[hex_name]
    sq, sr = SIDES[side]
    return wall_key((q + dq, r + dr), (q + dq + sq, r + dr + sr))


def _read_wall(raw, where: str) -> tuple:
    """A ``board.walls`` item: ``[[q1, r1], [q2, r2]]``, two adjacent spaces."""
    if not isinstance(raw, (list, tuple)) or len(raw) != 2:
        raise BoardError(f"{where} must be [[q1, r1], [q2, r2]] (two adjacent spaces); got "
                         f"{describe(raw)}")
    a, b = as_coord(raw[0], f"{where}[0]"), as_coord(raw[1], f"{where}[1]")
    if (b[0] - a[0], b[1] - a[1]) not in SIDES.values():
        raise BoardError(f"{where}: {list(a)} and {list(b)} are not adjacent spaces, so no "
                         f"wall stands between them")
    return wall_key(a, b)


def _read_tile_walls(raw: Mapping, where: str, pos: tuple) -> list[tuple]:
    """A tile entry's ``walls``: ``[{"hex": "C", "side": "E"}, ...]``."""
    out = []
    for j, w in enumerate(get_list(raw, "walls", where, [])):
        ww = f"{where}.walls[{j}]"
        w = expect_object(w, ww)
        expect_keys(w, ww, ("hex", "side"), required=("hex", "side"))
        out.append(_tile_wall(pos, get_str(w, "hex", ww, TILE_HEXES),
                              get_str(w, "side", ww, SIDES)))
    return out


def _check_space(s: Space, where: str) -> None:
    if s.terrain is None and s.site != "city":
        raise BoardError(f"{where} needs a terrain, one of {list(TERRAINS)}")
    if s.terrain is not None and s.terrain not in TERRAINS:
        raise BoardError(f"{where}: unknown terrain {s.terrain!r}; expected one of "
                         f"{list(TERRAINS)}")
    if s.site is not None and s.site not in SITES:
        raise BoardError(f"{where}: unknown site {s.site!r}; expected one of {list(SITES)}")
    if s.rampaging is not None and s.rampaging not in RAMPAGING:
        raise BoardError(f"{where}: unknown rampaging enemy {s.rampaging!r}; expected one "
                         f"of {list(RAMPAGING)}")
    if (s.conquered or s.owner is not None) and s.site not in FORTIFIED:
        raise BoardError(f"{where}: only fortified sites {list(FORTIFIED)} are conquered "
                         f"or owned; this space has site {s.site!r}")
    if s.owner is not None and s.site != "keep":
        raise BoardError(f"{where}: only keeps have an owner; this space is a {s.site}")


# ---------------------------------------------------------------------------- reading
_SPACE_KEYS = ("terrain", "site", "conquered", "owner", "rampaging")


def _read_space(raw: Mapping, where: str, base: Space | None = None) -> Space:
    terrain = raw.get("terrain", base.terrain if base else None)
    site = raw.get("site", base.site if base else None)
    for key, value in (("terrain", terrain), ("site", site),
                       ("rampaging", raw.get("rampaging"))):
        if value is not None and not isinstance(value, str):
            raise ScenarioError(f"{where}.{key} must be a string or null; got "
                                f"{describe(value)}")
    owner = raw.get("owner", base.owner if base else None)
    if owner is not None and (isinstance(owner, bool) or not isinstance(owner, (str, int))):
        raise ScenarioError(f"{where}.owner must be a player id (string or integer); got "
                            f"{describe(owner)}")
    s = Space(terrain, site,
              get_bool(raw, "conquered", where, base.conquered if base else False),
              owner, raw.get("rampaging", base.rampaging if base else None))
    _check_space(s, where)
    return s


def _read_tile(raw, where: str) -> tuple[tuple[int, int], str | None,
                                         list[tuple[tuple[int, int], Space]], list[tuple]]:
    """(position, kind, spaces, walls) of a scenario tile entry (``board.tiles`` item)."""
    raw = expect_object(raw, where)
    expect_keys(raw, where, ("position", "tile", "kind", "cells", "walls"),
                required=("position",))
    pos = get_coord(raw, "position", where)
    if not on_tile_lattice(pos):
        raise BoardError(f"{where}.position {list(pos)} is not a tile position of the "
                         f"lattice (tile centres have (q - 2r) % 7 == 0, e.g. [0, 0], "
                         f"[3, -2], [2, 1])")
    if "tile" in raw:
        if "cells" in raw:
            raise ScenarioError(f"{where} gives both 'tile' and 'cells'; give one")
        name = get_str(raw, "tile", where)
        kind, cells = catalogue_tile(name, pos)
        if "kind" in raw and get_str(raw, "kind", where) != kind:
            raise ScenarioError(f"{where}: tile {name!r} is a {kind} tile, not "
                                f"{raw['kind']!r}")
        return pos, (kind if kind in TILE_KINDS else None), cells, \
            catalogue_walls(name, pos) + _read_tile_walls(raw, where, pos)
    kind = get_str(raw, "kind", where, TILE_KINDS + ("starting",), "countryside")
    flower = tile_cells(pos)
    cells, seen = [], set()
    for j, c in enumerate(get_list(raw, "cells", where)):
        w = f"{where}.cells[{j}]"
        c = expect_object(c, w)
        expect_keys(c, w, ("hex", "at") + _SPACE_KEYS)
        if ("hex" in c) == ("at" in c):
            raise ScenarioError(f"{w} needs either 'hex' (one of {list(TILE_HEXES)}) or "
                                f"'at' (a space of the tile)")
        if "hex" in c:
            h = get_str(c, "hex", w, TILE_HEXES)
            at = (pos[0] + TILE_HEXES[h][0], pos[1] + TILE_HEXES[h][1])
        else:
            at = get_coord(c, "at", w)
            if at not in flower:
                raise BoardError(f"{w}.at {list(at)} is not a space of the tile at "
                                 f"{list(pos)}; its spaces are {[list(x) for x in flower]}")
        if at in seen:
            raise BoardError(f"{w}: space {list(at)} is given twice")
        seen.add(at)
        cells.append((at, _read_space(c, w)))
    return pos, (kind if kind in TILE_KINDS else None), cells, \
        _read_tile_walls(raw, where, pos)


def read_map(spec) -> MageKnightMap:
    """Build the map of a scenario's ``board`` (see docs/mage_knight.md)."""
    spec = expect_object(spec, "board")
    expect_keys(spec, "board", ("cells", "tiles", "open", "next_tile", "updates", "shape",
                                "walls"))
    cells: list[tuple[tuple[int, int], Space]] = []
    walls: list[tuple[tuple, str]] = []
    for i, c in enumerate(get_list(spec, "cells", "board", [])):
        w = f"board.cells[{i}]"
        c = expect_object(c, w)
        expect_keys(c, w, ("at",) + _SPACE_KEYS, required=("at",))
        cells.append((get_coord(c, "at", w), _read_space(c, w)))
    for i, t in enumerate(get_list(spec, "tiles", "board", [])):
        _, _, tile_cells_, tile_walls = _read_tile(t, f"board.tiles[{i}]")
        cells.extend(tile_cells_)
        walls.extend((w, f"board.tiles[{i}].walls") for w in tile_walls)
    walls.extend((_read_wall(w, f"board.walls[{i}]"), f"board.walls[{i}]")
                 for i, w in enumerate(get_list(spec, "walls", "board", [])))
    seen_walls: dict = {}
    for key, where in walls:
        if key in seen_walls:
            raise BoardError(f"{where}: the wall between {list(key[0])} and {list(key[1])} "
                             f"is given twice (also in {seen_walls[key]})")
        seen_walls[key] = where
    if not cells:
        raise BoardError("board needs 'cells' or 'tiles': the map has no spaces")
    seen: dict = {}
    for at, _ in cells:
        if at in seen:
            raise BoardError(f"space {list(at)} is given twice (cells or tiles overlap)")
        seen[at] = True
    opened = [as_coord(p, f"board.open[{i}]")
              for i, p in enumerate(get_list(spec, "open", "board", []))]
    nxt = get_str(spec, "next_tile", "board", NEXT_TILE, "countryside")
    shape = None
    if spec.get("shape") is not None:
        shape = get_str(spec, "shape", "board", tuple(MAP_SHAPES))
        if "open" in spec:
            raise ScenarioError("board gives both 'shape' and 'open'; with a map shape the "
                                "open tile positions follow from it")
    m = MageKnightMap.build(cells, opened, nxt, shape, seen_walls)
    updates: dict[int, dict] = {}
    for i, u in enumerate(get_list(spec, "updates", "board", [])):
        w = f"board.updates[{i}]"
        u = expect_object(u, w)
        expect_keys(u, w, ("at", "conquered", "owner", "rampaging"), required=("at",))
        at = get_coord(u, "at", w)
        cell = m.board.find(at)
        if cell < 0:
            raise BoardError(f"{w}.at {list(at)} is not a space of the map")
        if cell in updates:
            raise BoardError(f"{w}: space {list(at)} is updated twice")
        s = _read_space(u, w, m.spaces[cell])
        updates[cell] = dict(conquered=s.conquered, owner=s.owner, rampaging=s.rampaging)
    return m.with_updates(updates) if updates else m


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


# ---------------------------------------------------------------------------- moving
def is_safe(m: MageKnightMap, cell: int, hero: Hero, heroes: Sequence[Hero]) -> bool:
    """The rulebook's safe space, for ``hero`` ending there."""
    s = m.spaces[cell]
    if not s.accessible() or s.stops(hero.player):
        return False
    if s.holds_many():
        return True
    return not any(h.cell == cell and h.id != hero.id for h in heroes)


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
