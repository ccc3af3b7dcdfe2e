"""Mage Knight: the map (the tiles, their spaces and walls, the published tile catalogue).

The map is a :class:`MageKnightMap`: a packed :class:`~movecore.Board` (axial hex
coordinates) plus the :class:`Space` printed on and standing on each cell (terrain, site,
conquest, owner, rampaging enemy), the tile positions still open and the walls (Lost
Legion). :func:`read_map` reads the scenario's ``board`` (loose ``cells``, ``tiles`` placed
by catalogue name or spelled out, ``open`` positions, ``next_tile``, ``shape``, ``walls``,
``updates``); :meth:`MageKnightMap.reveal` adds a tile with :meth:`Board.extend`, keeping
every cell index, so "reveal, then continue" needs no rebuild. The tile lattice, the map
shapes of the Scenario Book and the tile catalogue (``tiles.json``) are here too.

The movement rules over this map (costs, provoking, effects, safe spaces) are in
:mod:`.rules`; see docs/mage_knight.md for the scenario vocabulary.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from ...board import DIRECTIONS, Board
from ...errors import BoardError, PlacementError, ScenarioError, describe
from ...scenario import (as_coord, expect_keys, expect_object, get_bool, get_coord, get_list,
                        get_str)

# ---------------------------------------------------------------------------- words of the map
TERRAINS = ("plains", "hills", "forest", "wasteland", "desert", "swamp", "lake", "mountain")
INACCESSIBLE = ("lake", "mountain")
#: Kernel terrain id of a city space (it costs 2 whatever terrain is printed under it).
CITY_SPACE = len(TERRAINS)
COST_CLASSES = TERRAINS + ("city",)

FORTIFIED = ("keep", "mage_tower", "city")
ADVENTURE = ("dungeon", "tomb", "ruins", "monster_den", "spawning_grounds", "maze",
             "labyrinth")
SITES = FORTIFIED + ("monastery", "village", "portal", "glade", "mine", "deep_mine",
                     "refugee_camp") + ADVENTURE
RAMPAGING = ("orc_marauders", "draconum")
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
