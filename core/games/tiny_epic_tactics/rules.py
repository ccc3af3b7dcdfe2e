"""Tiny Epic Tactics (Gamelyn Games, 2019): the ``"tiny_epic_tactics"`` scenario vocabulary.

The rules, as this module applies them (RULES.md section 5 and the section 9 decisions):

* **The realm map** is a rectangle of square spaces: the map scroll (elevation 0) and the
  tops of the boxes standing on it (elevation 1, 2, ...). Units move orthogonally only.
* **Terrain** of a space: plains, bridge, water, forest, peak, village or ballista.
  Entering a space costs 1; entering water, a peak or a ballista costs +1; moving up a
  cliff onto a higher elevation costs +1 however many levels it climbs; the two
  surcharges stack; leaving a space and moving down cost nothing extra.
* **Units**: one per space. A unit may pass through its allies (the space still costs)
  but never end its move there; enemy units can be neither passed nor ended on.
* **Portals**: a space marked ``portal`` is the space in front of a portal. All
  unblocked portals are adjacent to one another for movement: from the space in front of
  one, a unit may step to the space in front of any other. The hop is one step paying
  the exit space's terrain surcharge but no climbing surcharge (option
  ``portal_hop_cost``). A portal whose front space holds an enemy is blocked to you: you
  can neither reach it nor come out there. Your allies may still use a portal that your
  unit blocks (they pass through your unit's space).
* **Villages** heal a unit that passes through or ends its move in them, once per
  village per turn and never the village it starts in. Every end lists the villages on
  its path; a ``via`` query lists the ends reachable while passing one village.
* **Ballista**: a unit that starts its turn on a ballista may use it but cannot move out
  and back onto that ballista in the same turn.
* **One Move action per unit per turn** (TET-10); a player with a single unit left may
  take up to three Move actions with it (``actions``), each finished before the next.
* **Knock back** and the **solo enemy's compass movement** are straight-line queries of
  their own (``"type": "knock_back"`` and ``"type": "solo"``).

Scenario::

    {"game": "tiny_epic_tactics",
     "board": {"width": 8, "height": 6,
               "terrain": ["..~~v...", ...],        # optional rows, one char per space
               "elevation": ["00111000", ...],      # optional rows of digits
               "cells": [{"at": [x, y], "terrain": "peak", "elevation": 2,
                          "portal": true | "N" | "E" | "S" | "W"}, ...]},
     "options": {"portal_hop_cost": "step" | 2, "diagonals": false,
                 "solo_blocked": "stop" | "turn",
                 "solo_target": "next_closest" | "closest"},
     "figures": [{"id": "knight", "team": "red", "at": [x, y]}, ...],
     "query": {"type": "move", "figure": "knight", "budget": 4, "paths": false,
               "via": [x, y], "actions": 1}}

Row characters: ``.`` plains, ``=`` bridge, ``~`` water, ``f`` forest, ``^`` peak,
``v`` village, ``b`` ballista. Spaces not described are plains at elevation 0; a
``cells`` entry overrides the rows. ``portal`` is ``true`` or the side of the front space
on which the portal stands (only knock back needs the side).

Results (see docs/tiny_epic_tactics.md for every shape):

* move: ``{"figure": id, "ends": [{"at", "cost", "villages", "ballista", ("actions"),
  ("path")}]}``, ordered by cost then coordinates; with ``via`` the result also names
  ``"via"`` and holds only the ends reachable while passing that village.
* knock_back: ``{"knock_back": {"target", "from", "at", "moved", "health_lost", "fell",
  "stopped_by", "path"}}``.
* solo: ``{"solo": {"figure", "target", "at", "cost", "stopped_by", "path"}}`` (plus
  ``"climb_to"`` for a Climb card query: ``"climb": true``).

The live :class:`Position` (:mod:`.position`) answers every query, ``solve()``'s too;
:mod:`.reference` holds the layered reference searches (``unit_moves``, ``moves_via``,
``reference_solve``) the tests hold it to.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from ...board import Board, Link
from ...errors import (BoardError, LimitError, PlacementError, QueryError, ScenarioError,
                      describe)
from ...kernels import _types as T
from ...mover import Mover
from ...scenario import (as_coord, expect_keys, expect_object, get_bool, get_int, get_list,
                        get_str)
from ...position import figure_key
from .._common import Figure, coord_list, occupancy, read_figures, team_numbers

# ---------------------------------------------------------------------------- the realm
#: Terrain names; the position in this tuple is the terrain id on the packed board.
TERRAINS = ("plains", "bridge", "water", "forest", "peak", "village", "ballista")
#: "Entering each Water space costs +1", "Peaks: Entering costs +1", "Ballista: Entering
#: costs +1". Plains, bridges, forests and villages cost the usual 1.
ENTRY_SURCHARGE = {"water": 1, "peak": 1, "ballista": 1}
#: Characters of the ``terrain`` rows.
LEGEND = {".": "plains", "=": "bridge", "~": "water", "f": "forest", "^": "peak",
          "v": "village", "b": "ballista"}
#: Compass sides, (dx, dy) with y growing downwards (south).
SIDES = {"N": (0, -1), "E": (1, 0), "S": (0, 1), "W": (-1, 0)}
#: "Moving in Elevation up a cliff (onto a higher level) costs +1, regardless of the level".
CLIMB_SURCHARGE = 1
MAX_ELEVATION = 64
MAX_PORTALS = 64
MAX_KNOCK_BACK = 64
MAX_ACTIONS = 3


def entry_cost(terrain: str) -> int:
    """Movement points to enter a space of this terrain on the same level."""
    return 1 + ENTRY_SURCHARGE.get(terrain, 0)


@dataclass(frozen=True)
class Realm:
    """The realm map: the packed board (portal links included) and its game words."""

    board: Board
    width: int
    height: int
    terrain: tuple[str, ...]          # terrain name per space (cell index)
    portals: dict[int, str | None]    # front space -> side of its portal (None: unknown)
    hop_cost: Any = "step"

    def cell(self, xy) -> int:
        return self.board.find(xy)

    def xy(self, cell: int) -> tuple[int, int]:
        return self.board.coord(cell)

    def elevation(self, cell: int) -> int:
        return int(self.board.height[cell])

    def is_village(self, cell: int) -> bool:
        return self.terrain[cell] == "village"

    def is_ballista(self, cell: int) -> bool:
        return self.terrain[cell] == "ballista"

    def step_cost(self, a: int, b: int) -> int:
        """Cost of one orthogonal step a -> b: 1, +1 for water/peak/ballista, +1 to climb."""
        climb = CLIMB_SURCHARGE if self.elevation(b) > self.elevation(a) else 0
        return entry_cost(self.terrain[b]) + climb

    def hop_cost_to(self, exit_space: int) -> int:
        """Cost of a portal hop that comes out in front of the portal at ``exit_space``."""
        if self.hop_cost == "step":
            return entry_cost(self.terrain[exit_space])
        return int(self.hop_cost)

    def neighbour(self, cell: int, side: str) -> int:
        """The space next to ``cell`` on ``side`` (N/E/S/W), or -1 past the map's edge."""
        x, y = self.xy(cell)
        dx, dy = SIDES[side]
        return self.board.find((x + dx, y + dy))


def _elevation_rows(rows, width, height) -> list[list[int]]:
    if len(rows) != height:
        raise BoardError(f"board.elevation must have {height} rows (board height); got "
                         f"{len(rows)}")
    out = []
    for y, row in enumerate(rows):
        where = f"board.elevation[{y}]"
        if isinstance(row, str):
            if not row.isdigit() or not row.isascii():
                raise BoardError(f"{where} must be a string of digits 0-9; got "
                                 f"{describe(row)}")
            values = [int(ch) for ch in row]
        elif isinstance(row, list):
            values = []
            for v in row:
                if isinstance(v, bool) or not isinstance(v, int):
                    raise BoardError(f"{where} must hold integers; got {describe(v)}")
                values.append(v)
        else:
            raise BoardError(f"{where} must be a string of digits or a list of integers; "
                             f"got {describe(row)}")
        if len(values) != width:
            raise BoardError(f"{where} must describe {width} spaces (board width); got "
                             f"{len(values)}")
        for v in values:
            if not 0 <= v <= MAX_ELEVATION:
                raise LimitError(f"{where}: elevation {v} is outside [0, {MAX_ELEVATION}]")
        out.append(values)
    return out


def _terrain_rows(rows, width, height) -> list[list[str]]:
    if len(rows) != height:
        raise BoardError(f"board.terrain must have {height} rows (board height); got "
                         f"{len(rows)}")
    out = []
    for y, row in enumerate(rows):
        where = f"board.terrain[{y}]"
        if not isinstance(row, str):
            raise BoardError(f"{where} must be a string of terrain characters; got "
                             f"{describe(row)}")
        if len(row) != width:
            raise BoardError(f"{where} must describe {width} spaces (board width); got "
                             f"{len(row)}")
        names = []
        for ch in row:
            if ch not in LEGEND:
                raise BoardError(f"{where}: unknown terrain character {ch!r}; expected one "
                                 f"of {''.join(LEGEND)} ({', '.join(LEGEND.values())})")
            names.append(LEGEND[ch])
        out.append(names)
    return out


def build_realm(spec, options: dict | None = None) -> Realm:
    """The realm map of a scenario's ``board`` part (validated)."""
    options = options or {}
    spec = expect_object(spec, "board")
    expect_keys(spec, "board", ("width", "height", "terrain", "elevation", "cells"),
                required=("width", "height"))
    width = get_int(spec, "width", "board", lo=1, hi=4096)
    height = get_int(spec, "height", "board", lo=1, hi=4096)
    if width * height > 1 << 20:
        raise LimitError(f"a {width}x{height} realm has {width * height} spaces; at most "
                         f"{1 << 20} are supported")
    terrain = [["plains"] * width for _ in range(height)]
    elevation = [[0] * width for _ in range(height)]
    if "terrain" in spec:
        terrain = _terrain_rows(get_list(spec, "terrain", "board"), width, height)
    if "elevation" in spec:
        elevation = _elevation_rows(get_list(spec, "elevation", "board"), width, height)
    portals_xy: dict[tuple[int, int], str | None] = {}
    seen: set[tuple[int, int]] = set()
    for i, raw in enumerate(get_list(spec, "cells", "board", [])):
        where = f"board.cells[{i}]"
        raw = expect_object(raw, where)
        expect_keys(raw, where, ("at", "terrain", "elevation", "portal"), required=("at",))
        x, y = as_coord(raw["at"], f"{where}.at")
        if not (0 <= x < width and 0 <= y < height):
            raise BoardError(f"{where}.at {[x, y]} is not on the {width}x{height} realm map")
        if (x, y) in seen:
            raise BoardError(f"{where}.at {[x, y]} is described twice in board.cells")
        seen.add((x, y))
        if "terrain" in raw:
            terrain[y][x] = get_str(raw, "terrain", where, TERRAINS)
        if "elevation" in raw:
            elevation[y][x] = get_int(raw, "elevation", where, lo=0, hi=MAX_ELEVATION)
        if "portal" in raw:
            p = raw["portal"]
            if p is True:
                portals_xy[(x, y)] = None
            elif p is False:
                pass
            elif isinstance(p, str) and p in SIDES:
                portals_xy[(x, y)] = p
            else:
                raise BoardError(f"{where}.portal must be true, false or the portal's side "
                                 f"of this space, one of {list(SIDES)}; got {describe(p)}")
    if len(portals_xy) > MAX_PORTALS:
        raise LimitError(f"{len(portals_xy)} portals; at most {MAX_PORTALS} are supported")
    hop = options.get("portal_hop_cost", "step")
    if not (hop == "step" and isinstance(hop, str)) and (
            isinstance(hop, bool) or not isinstance(hop, int) or not 1 <= hop <= 64):
        raise ScenarioError(f"options.portal_hop_cost must be \"step\" (one step paying the "
                            f"exit space's terrain surcharge) or an integer in [1, 64]; got "
                            f"{describe(hop)}")
    diagonals = get_bool(options, "diagonals", "options", False)
    flat_names = [terrain[y][x] for y in range(height) for x in range(width)]
    board = Board.square(width, height, neighbours=8 if diagonals else 4,
                         terrain=[TERRAINS.index(t) for t in flat_names],
                         elevation=[elevation[y][x] for y in range(height)
                                    for x in range(width)])
    portals = {board.index(xy): side for xy, side in portals_xy.items()}
    realm = Realm(board, width, height, tuple(flat_names), portals, hop)
    # "All Portals are considered adjacent to one another for the sake of movement only."
    links = [Link(a, b, realm.hop_cost_to(b), kind=0, two_way=False)
             for a in portals for b in portals if a != b]
    if links:
        realm = Realm(board.with_links(links), width, height, tuple(flat_names), portals,
                      hop)
    return realm


def mover_for(team: int, *, allies: str = "pass") -> Mover:
    """A unit's movement numbers: 1 per space, +1 water/peak/ballista, +1 for any climb."""
    return Mover(terrain_cost=[entry_cost(t) for t in TERRAINS], climb_flat=CLIMB_SURCHARGE,
                 team=team, allies=allies, enemies="block")


# ---------------------------------------------------------------------------- units
@dataclass
class Muster:
    """The units on the map: figures, team numbers and the occupancy layers."""

    figures: list[Figure]
    teams: dict[Any, int]

    def team_of(self, fig: Figure) -> int:
        return self.teams[fig.team]

    def occupants(self, realm: Realm, without: Figure | None = None) -> np.ndarray:
        return occupancy(realm.board, self.figures, self.teams, exclude=without)

    def unit_at(self, cell: int) -> Figure | None:
        for f in self.figures:
            if f.cell == cell:
                return f
        return None


def read_units(realm: Realm, items) -> Muster:
    figures = read_figures(realm.board, items)
    return Muster(figures, team_numbers(figures))


# ---------------------------------------------------------------------------- moving
@dataclass
class End:
    """One legal end of a move, in game words."""

    cell: int
    cost: int
    path: list[int]
    actions: int = 1


def _ballista_flags(realm: Realm, start: int) -> np.ndarray | None:
    """"If a unit starts its turn on the Ballista space, it ... cannot move out and back
    into the Ballista space on the same turn": that space cannot be entered again."""
    if not realm.is_ballista(start):
        return None
    flags = np.zeros(realm.board.n_cells, np.uint8)
    flags[start] = T.CELL_BLOCKED
    return flags


def villages_on(realm: Realm, path: list[int], exclude=()) -> list[int]:
    """Villages a unit benefits from along ``path``: each once, not the one it starts in,
    none of ``exclude`` (the village its turn began in, villages it used this turn)."""
    out: list[int] = []
    for cell in path[1:]:
        if realm.is_village(cell) and cell != path[0] and cell not in out and \
                cell not in exclude:
            out.append(cell)
    return out


def _layered_path(layers, reaches, k: int, cell: int) -> list[int]:
    """Path of the least-cost way to end on ``cell`` with at most ``k`` actions."""
    if k == 0:
        return [cell]
    cost, came_from = layers[k][cell]
    if came_from is None or layers[k - 1].get(cell, (None,))[0] == cost:
        return _layered_path(layers, reaches, k - 1, cell)
    head = _layered_path(layers, reaches, k - 1, came_from)
    return head + reaches[came_from].path(cell).tolist()[1:]


# ---------------------------------------------------------------------------- knock back
@dataclass
class KnockBack:
    start: int
    path: list[int]
    moved: int
    health_lost: int
    fell: bool
    stopped_by: str | None


def knock_back(realm: Realm, muster: Muster, target: Figure, side: str,
               distance: int) -> KnockBack:
    """Slide ``target`` up to ``distance`` spaces towards ``side`` (away from the attacker).

    "They cannot be Knocked Back up to a higher level, but they will fall down"; the slide
    stops at a cliff wall, the edge of the map or another unit, and a unit stopped short
    loses 1 health. "If they are Knocked Back into a Portal, they do not enter it and
    instead lose 1 as if hitting a cliff wall." No terrain effects apply on the way (no
    costs, no village healing), and falling by itself does no damage (FAQ)."""
    cell = target.cell
    path = [cell]
    fell = False
    stopped_by = None
    for _ in range(distance):
        if realm.portals.get(cell, "") == side:
            stopped_by = "portal"
            break
        nxt = realm.neighbour(cell, side)
        if nxt < 0:
            stopped_by = "edge"
            break
        if realm.elevation(nxt) > realm.elevation(cell):
            stopped_by = "cliff"
            break
        other = muster.unit_at(nxt)
        if other is not None and other is not target:
            stopped_by = "unit"
            break
        fell = fell or realm.elevation(nxt) < realm.elevation(cell)
        cell = nxt
        path.append(cell)
    moved = len(path) - 1
    return KnockBack(target.cell, path, moved, 1 if moved < distance else 0, fell,
                     stopped_by)


def side_away_from(realm: Realm, attacker_xy, target_xy) -> str:
    """The side a target is knocked towards: straight away from the attacker."""
    dx = target_xy[0] - attacker_xy[0]
    dy = target_xy[1] - attacker_xy[1]
    if (dx == 0) == (dy == 0):
        raise QueryError(f"attacker at {list(attacker_xy)} and target at {list(target_xy)} "
                         f"are not in one row or column; knock back goes straight away from "
                         f"the attacker, so give 'direction' instead")
    step = (int(np.sign(dx)), int(np.sign(dy)))
    return next(s for s, d in SIDES.items() if d == step)


# ---------------------------------------------------------------------------- solo enemy
@dataclass
class SoloMove:
    target: Figure | None
    path: list[int]
    cost: int
    stopped_by: str
    #: the Climb card's goal space (-1: not a Climb move, or no higher space)
    climb_to: int = -1


#: options.solo_target: "next_closest" = the rules' fallback ("If no such space exists
#: ... it will look at the next closest unit"); "closest" = always the closest unit.
SOLO_TARGETS = ("next_closest", "closest")


#: Clockwise order of the compass, for tie-breaks.
CLOCKWISE = ("N", "E", "S", "W")


def _orthogonal_distance(a, b) -> int:
    return abs(a[0] - b[0]) + abs(a[1] - b[1])


def _closeness(realm: Realm, start: int, compass: str):
    """Key of a space for "closest to ``start``": orthogonal spaces ignoring terrain,
    then "ties ... broken using the compass": farthest towards the compass side, then
    towards the next sides clockwise (movecore's reading; see docs)."""
    ex = realm.xy(start)
    i = CLOCKWISE.index(compass)
    sides = [SIDES[side] for side in CLOCKWISE[i:] + CLOCKWISE[:i]]

    def key(cell: int):
        xy = realm.xy(cell)
        return (_orthogonal_distance(ex, xy), *(-(xy[0] * dx + xy[1] * dy)
                                                 for dx, dy in sides))
    return key


def closest_unit(realm: Realm, enemy: Figure, yours: list[Figure], compass: str) -> Figure:
    """The solo enemy's target: your closest unit counting orthogonal spaces and ignoring
    terrain, ties broken by the compass (:func:`_closeness`)."""
    key = _closeness(realm, enemy.cell, compass)
    return min(yours, key=lambda f: key(f.cell))


def can_attack(realm: Realm, cell: int, yours: list[Figure], attack_range: int = 0) -> bool:
    """Whether a solo enemy on ``cell`` can attack one of ``yours``: a Melee Attack on an
    orthogonally adjacent unit at the same Elevation, or with a Missile / Spell range
    ``attack_range`` > 0 a unit within that many orthogonal spaces, +1 from higher and -1
    from lower Elevation, any distance from a Peak."""
    xy, el = realm.xy(cell), realm.elevation(cell)
    for f in yours:
        d = _orthogonal_distance(xy, realm.xy(f.cell))
        fel = realm.elevation(f.cell)
        if d == 1 and el == fel:
            return True
        if attack_range > 0:
            if realm.terrain[cell] == "peak":
                return True
            if d <= attack_range + (el > fel) - (el < fel):
                return True
    return False


def climb_goal(realm: Realm, muster: Muster, enemy: Figure, compass: str) -> int:
    """The Climb card: "the closest space that is higher than the space it starts from,
    with ties broken as usual by the compass", among spaces no unit stands on; -1 if
    there is none."""
    el = realm.elevation(enemy.cell)
    taken = {f.cell for f in muster.figures}
    higher = [c for c in range(realm.board.n_cells)
              if realm.elevation(c) > el and c not in taken]
    return min(higher, key=_closeness(realm, enemy.cell, compass)) if higher else -1


def solo_turn(realm: Realm, muster: Muster, enemy: Figure, budget: int, compass: str,
              target: Figure | None = None, blocked: str = "stop", attack_range: int = 0,
              climb: bool = False, choose: str = "next_closest") -> SoloMove:
    """Step 3 of a solo enemy's activation: its compass move (:func:`solo_move`).

    With ``target`` it moves towards that unit. With ``climb`` (the Climb card) it moves
    towards :func:`climb_goal`, or towards your closest unit if no space is higher.
    Otherwise (``choose="next_closest"``) it takes your units closest first and moves
    towards the first one whose move ends where it :func:`can_attack` one of your units
    ("If no such space exists ... it will look at the next closest unit"); if none does,
    towards the closest ("If no attack is possible on any unit, it will move towards the
    closest unit"). ``choose="closest"``: always the closest."""
    if target is not None:
        return solo_move(realm, muster, enemy, budget, compass, target, blocked)
    team = muster.team_of(enemy)
    yours = [f for f in muster.figures if muster.team_of(f) != team]
    if climb:
        goal = climb_goal(realm, muster, enemy, compass)
        if goal >= 0:
            return solo_move(realm, muster, enemy, budget, compass, None, blocked, goal)
    if choose == "next_closest" and yours and not climb:
        key = _closeness(realm, enemy.cell, compass)
        for f in sorted(yours, key=lambda f: key(f.cell)):
            sm = solo_move(realm, muster, enemy, budget, compass, f, blocked)
            if can_attack(realm, sm.path[-1], yours, attack_range):
                return sm
    return solo_move(realm, muster, enemy, budget, compass, None, blocked)


def solo_move(realm: Realm, muster: Muster, enemy: Figure, budget: int, compass: str,
              target: Figure | None = None, blocked: str = "stop", goal: int = -1
              ) -> SoloMove:
    """Move a solo enemy unit with the compass.

    "The compass direction determines whether it moves first along its Column (North or
    South) or its Row (East or West)"; read as RULES.md 5.4 item 5 recommends: move along
    the compass axis until aligned with the target, then along the other axis. It pays
    normal movement costs ("as far as its movement points and the rules below allow"),
    passes its allies but never ends on one, cannot enter your units' spaces, and "stops
    its movement if it enters a space adjacent to one of your units".

    When the next space is blocked (off the map, one of your units, or more movement than
    it has left), ``blocked="stop"`` (default) ends the move there, the literal reading of
    "as far as its movement points and the rules below allow"; ``blocked="turn"`` tries
    the other axis first, if it is not aligned on it yet.

    ``goal`` (a space, the Climb card's) replaces the target unit: the enemy walks the
    same compass route to it and stops there (``"arrived"``)."""
    team = muster.team_of(enemy)
    yours = [f for f in muster.figures if muster.team_of(f) != team]
    if not yours and goal < 0:
        raise QueryError(f"solo enemy {enemy.id!r} has no target: no unit of another team "
                         f"is on the map")
    if target is None and goal < 0:
        target = closest_unit(realm, enemy, yours, compass)
    your_cells = {f.cell for f in yours}
    adjacent_to_yours = set()
    for c in your_cells:
        for side in SIDES:
            n = realm.neighbour(c, side)
            if n >= 0:
                adjacent_to_yours.add(n)
    own_team = {f.cell for f in muster.figures if f is not enemy and
                muster.team_of(f) == team}
    tx, ty = realm.xy(target.cell if goal < 0 else goal)
    first_axis = 1 if compass in ("N", "S") else 0   # N/S: along the column first
    cell, left, path, costs = enemy.cell, budget, [enemy.cell], [0]
    stopped_by = "out_of_movement"
    while True:
        xy = realm.xy(cell)
        gap = (tx - xy[0], ty - xy[1])
        axes = [a for a in (first_axis, 1 - first_axis) if gap[a] != 0]
        if not axes:
            stopped_by = "arrived"  # the Climb goal (a target unit's space is never entered)
            break
        tries = axes if blocked == "turn" else axes[:1]
        moved = False
        for axis in tries:
            step = [0, 0]
            step[axis] = 1 if gap[axis] > 0 else -1
            nxt = realm.board.find((xy[0] + step[0], xy[1] + step[1]))
            if nxt < 0 or nxt in your_cells:
                continue
            price = realm.step_cost(cell, nxt)
            if price > left:
                continue
            cell, left = nxt, left - price
            path.append(cell)
            costs.append(budget - left)
            moved = True
            break
        if not moved:
            stopped_by = "blocked" if any(
                _solo_blocked_space(realm, cell, a, gap, your_cells) for a in tries) \
                else "out_of_movement"
            break
        if cell in adjacent_to_yours:
            stopped_by = "adjacent"
            break
    # It may pass its allies but not end on one: back up to the last free space.
    while path[-1] in own_team:
        path.pop()
        costs.pop()
    return SoloMove(target, path, costs[-1], stopped_by, goal)


def _solo_blocked_space(realm: Realm, cell: int, axis: int, gap, your_cells) -> bool:
    xy = realm.xy(cell)
    step = [0, 0]
    step[axis] = 1 if gap[axis] > 0 else -1
    nxt = realm.board.find((xy[0] + step[0], xy[1] + step[1]))
    return nxt < 0 or nxt in your_cells


# ---------------------------------------------------------------------------- scenario
def _coords(realm: Realm, cells) -> list[list[int]]:
    return coord_list(realm.board, cells)


def solo_extras(query, targeted: bool) -> tuple[int, bool]:
    """(range, climb) of a solo query: the Missile / Spell range that decides "from which
    it can attack" (0 = Melee only) and whether the Climb card was drawn."""
    attack_range = get_int(query, "range", "query", 0, lo=0, hi=T.MAX_BUDGET)
    climb = get_bool(query, "climb", "query", False)
    if climb and targeted:
        raise ScenarioError("query gives both 'target' and 'climb'; the Climb card picks "
                            "its own goal space")
    return attack_range, climb


def solo_entry(realm: Realm, fid, start: int, sm: SoloMove, climb: bool) -> dict:
    """The ``solo`` object of a result."""
    out = {"figure": fid, "target": None if sm.target is None else sm.target.id,
           "from": list(realm.xy(start)), "at": list(realm.xy(sm.path[-1])),
           "cost": sm.cost, "stopped_by": sm.stopped_by, "path": _coords(realm, sm.path)}
    if climb:
        out["climb_to"] = list(realm.xy(sm.climb_to)) if sm.climb_to >= 0 else None
    return out


#: A figure's keys for the turn in progress (see docs/tiny_epic_tactics.md, "Live
#: position"): Move actions it took, the space its turn began on, villages it used.
TURN_KEYS = ("moved", "turn_start", "villages_used")


def read_turn(realm: Realm, figures: list[Figure]) -> dict:
    """The turn keys of the figures: ``{id: (moved, turn_start cell, village cells)}``
    for the units that took Move actions this turn (all of one team)."""
    turn = {}
    teams = set()
    for k, f in enumerate(figures):
        w = f"figures[{k}]"
        raw = f.raw
        moved = get_int(raw, "moved", w, 0, lo=0, hi=MAX_ACTIONS)
        if not moved:
            for key in ("turn_start", "villages_used"):
                if key in raw:
                    raise ScenarioError(f"{w}.{key} is given but the unit took no Move "
                                        f"action this turn ({w}.moved is 0)")
            continue
        began = f.cell
        if "turn_start" in raw:
            xy = as_coord(raw["turn_start"], f"{w}.turn_start")
            began = realm.cell(xy)
            if began < 0:
                raise PlacementError(f"{w}.turn_start {list(xy)} is not on the realm map")
        used = []
        for j, v in enumerate(get_list(raw, "villages_used", w, [])):
            xy = as_coord(v, f"{w}.villages_used[{j}]")
            c = realm.cell(xy)
            if c < 0 or not realm.is_village(c):
                raise ScenarioError(f"{w}.villages_used[{j}] {list(xy)} is not a village "
                                    f"of the realm map")
            used.append(c)
        teams.add(f.team)
        turn[f.id] = (moved, began, used)
    if len(teams) > 1:
        raise ScenarioError(f"units of teams {sorted(map(str, teams))} have taken Move "
                            f"actions this turn; a turn belongs to one team")
    return turn


# ---------------------------------------------------------------------------- scenario
#: Query keys per query type (those of the scenario ``query`` but the moving unit).
MOVE_KEYS = ("type", "budget", "paths", "via", "actions")
KNOCK_KEYS = ("type", "attacker", "direction", "distance", "paths")
SOLO_KEYS = ("type", "budget", "compass", "target", "paths", "range", "climb")
KINDS = ("move", "knock_back", "solo")
OPTION_KEYS = ("portal_hop_cost", "diagonals", "solo_blocked", "solo_target")


def read_query(query, figures: list) -> tuple:
    """``(kind, key, unit id)`` of a scenario's ``query``: its ``type`` (``kind``), the
    keys that type takes, and the unit it names under ``key`` (``"figure"``, or
    ``"target"`` for a knock back: one of ``figures``, the ids in play). The values of
    the other keys are read when the position answers."""
    query = expect_object(query, "query")
    kind = get_str(query, "type", "query", KINDS, "move")
    key = "target" if kind == "knock_back" else "figure"
    if kind == "move":
        expect_keys(query, "query", ("figure",) + MOVE_KEYS, required=("figure", "budget"))
    elif kind == "knock_back":
        expect_keys(query, "query", ("target",) + KNOCK_KEYS,
                    required=("target", "distance"))
    else:
        expect_keys(query, "query", ("figure",) + SOLO_KEYS,
                    required=("figure", "budget", "compass"))
    if key not in query:
        raise ScenarioError(f"query needs {key!r} (a figure id)")
    fid = query[key]
    if figure_key(fid) not in figures:
        raise QueryError(f"query.{key} names figure {fid!r}, which is not in the scenario; "
                         f"known figures: {figures}")
    return kind, key, fid


def parse_query(query: Mapping, realm: Realm, named,
                default_query: Mapping | None = None) -> tuple:
    """A query dict (scenario words, without the unit) as a tuple:
    ("move", budget, paths, via cell or -1, actions, actions given) /
    ("knock_back", side, distance, attacker index or -1) /
    ("solo", budget, compass, target index or -1, range, climb). ``named(id, where)``
    is the index of the unit in play with that id (a :class:`QueryError` naming
    ``where`` otherwise); ``default_query``: the scenario query's ``budget``."""
    kind = get_str(query, "type", "query", KINDS, "move")
    if kind in ("move", "solo") and "budget" not in query and default_query and \
            "budget" in default_query:
        query = {**query, "budget": default_query["budget"]}
    if kind == "move":
        expect_keys(query, "query", MOVE_KEYS)
        if "budget" not in query:
            raise ScenarioError("query needs 'budget' (an integer)")
        budget = get_int(query, "budget", "query", lo=0, hi=T.MAX_BUDGET)
        paths = get_bool(query, "paths", "query", False)
        actions = get_int(query, "actions", "query", 1, lo=1, hi=MAX_ACTIONS)
        via = -1
        if "via" in query:
            xy = as_coord(query["via"], "query.via")
            via = realm.cell(xy)
            if via < 0:
                raise QueryError(f"query.via {list(xy)} is not on the realm map")
            if not realm.is_village(via):
                raise QueryError(f"query.via {list(xy)} is "
                                 f"{realm.terrain[via]}, not a village")
        return ("move", budget, paths, via, actions, "actions" in query)
    if kind == "knock_back":
        expect_keys(query, "query", KNOCK_KEYS, required=("distance",))
        get_bool(query, "paths", "query", True)
        distance = get_int(query, "distance", "query", lo=0, hi=MAX_KNOCK_BACK)
        if ("attacker" in query) == ("direction" in query):
            raise ScenarioError("a knock_back query needs exactly one of 'attacker' "
                                "(a figure id) and 'direction' (N, E, S or W)")
        attacker = -1
        if "attacker" in query:
            attacker = named(query["attacker"], "query.attacker")
            side = None
        else:
            side = get_str(query, "direction", "query", tuple(SIDES))
        return ("knock_back", side, distance, attacker)
    expect_keys(query, "query", SOLO_KEYS, required=("budget", "compass"))
    get_bool(query, "paths", "query", True)
    budget = get_int(query, "budget", "query", lo=0, hi=T.MAX_BUDGET)
    compass = get_str(query, "compass", "query", tuple(SIDES))
    target = -1
    if "target" in query:
        target = named(query["target"], "query.target")
    return ("solo", budget, compass, target) + solo_extras(query, target >= 0)


@dataclass(frozen=True)
class Setup:
    """A Tiny Epic Tactics scenario read (:func:`read_scenario`): what a position is
    built of."""
    realm: Realm
    figures: list
    blocked: str
    options: dict
    turn: dict
    default_query: dict


def read_scenario(scenario, query: bool = True) -> Setup:
    """Read and validate a Tiny Epic Tactics scenario: ``options``, ``board``
    (:func:`build_realm`), ``figures`` (units and the turn in progress,
    :func:`read_turn`) and, when given, ``query`` (:func:`read_query`; a move's or solo
    move's ``budget`` is the position's default), raising the typed errors
    :func:`movecore.solve` raises (``query=False``: the query is not read, as
    ``Position.from_scenario`` does). Pure reading: it loads no kernel."""
    scenario = expect_object(scenario, "scenario")
    expect_keys(scenario, "scenario", ("game", "board", "options", "figures", "query"),
                required=("board", "figures"))
    options = expect_object(scenario.get("options", {}), "options")
    expect_keys(options, "options", OPTION_KEYS)
    blocked = get_str(options, "solo_blocked", "options", ("stop", "turn"), "stop")
    get_str(options, "solo_target", "options", SOLO_TARGETS, "next_closest")
    realm = build_realm(scenario["board"], options)
    figures = read_figures(realm.board, scenario["figures"],
                           allowed_keys=("id", "team", "at") + TURN_KEYS)
    turn = read_turn(realm, figures)
    q = scenario.get("query")
    default = {}
    if isinstance(q, Mapping) and q.get("type", "move") in ("move", "solo") and \
            "budget" in q:
        default["budget"] = q["budget"]
    if query and "query" in scenario:
        ids = [f.id for f in figures]
        kind, key, fid = read_query(q, ids)

        def named(fid, where: str) -> int:
            if figure_key(fid) not in ids:
                raise QueryError(f"{where} names figure {fid!r}, which is not in the "
                                 f"scenario; known figures: {ids}")
            return ids.index(figure_key(fid))
        parse_query({k: v for k, v in q.items() if k != key}, realm, named, default)
    return Setup(realm, figures, blocked, options, turn, default)
