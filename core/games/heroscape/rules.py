"""Heroscape (Age of Annihilation, basic and master game): the ``"heroscape"`` vocabulary.

The rulebook page, as the engine applies it (sources in ``docs/heroscape.md`` and
RULES.md section 2):

* **Spaces and levels.** The battlefield is hex spaces; a space's ``level`` is the number
  of stacked land tiles (water tiles and glyphs add no height).
* **Counting spaces.** Every space entered counts 1; moving up counts 1 more per level
  climbed; moving down counts only the space. A single step may climb fewer levels than
  the figure's Height (``climb_limit: "below_height"``, the default) or up to its Height
  (``"up_to_height"``).
* **Water and molten lava.** Moving onto water (or molten lava, "treat it like water")
  ends the move, even from another water space; starting in water does not.
* **Obstacles** (trees, walls, ruins, ...) are never entered nor passed.
* **Glyphs.** A figure that moves onto a glyph must stop there ("When your figure lands
  on a ... Glyph, it must stop"; "A double-space figure must stop when its leading side
  moves onto a Glyph": AoA rules, Glyphs page).
* **Figures.** Pass through friendly figures, never through enemies, never end on any
  figure. Master game: not through an *engaged* friend either.
* **Engagement (master).** Two figures in neighbouring spaces are adjacent unless one's
  base is on a level equal to or higher than the other's Height above it. Leaving a space
  adjacent to an enemy for one that is not adjacent to it draws one leaving-engagement
  attack from that enemy. Every end reports the least number of such attacks over all
  paths within the move, and the cost of that path, beside the least cost.
* **Falls (master).** A drop of at least the figure's Height is a ``minor`` fall (one
  die), Height + 10 a ``major`` one (two dice); none into water, none for flyers. A
  path's fall is its worst step (the leading end's drops for a double-space figure).
  Every end reports the fall of its least-cost path (``fall``) and the least fall over
  all paths within the move with that path's cost (``least_fall``,
  ``least_fall_cost``: searches on the board without the steps of a fall, then without
  those of a major one); never used to forbid a move.
* **Double-space figures** move as a snake: the leading end steps, the other end enters
  the space the leading end just left; which end leads may be flipped at any time for
  free; the cost is the leading end's (space + climb). Both spaces must be usable after
  every step; the move must end on two spaces of the same level; one water space between
  land does not stop it, both spaces in water do. Searched over placements (lead, trail)
  with :meth:`Board.graph` and the generic kernel. An answer lists each pair of spaces
  once, as the placement with the least :func:`placement_key` (decision: the figure has
  no facing, so which end leads at rest changes no rule; the key makes the orientation,
  hence the action id, independent of the search's order).
* **Flying** is a choice: "Figures with the Flying ability may choose, before moving, to
  start flying". A flight ignores elevation, obstacles and figures (1 per space) but may
  not end on a figure or an obstacle; water, lava and glyphs passed over do not stop it
  unless ``flyers_stop_in_water`` / ``flyers_stop_on_glyphs``. "If a figure begins
  flying while engaged, they automatically take all leaving engagement attacks" (unless
  it has Stealth Flying). A flyer that walks follows the walking rules. Each end reports
  the least over flying and walking per objective, and which: the least cost (a
  flight's: never dearer, never stopped sooner, never falls; ``flies``) and the least
  leaving attacks (``leaving_attacks_flies`` false where a walk draws fewer, or as many
  for less).
* **Ghost Walk** passes through any figure (it still never ends on one); **Disengage**
  is never attacked when leaving an engagement (nor at a flyer's take-off); **Phantom
  Walk** is both. The query option ``never_attacked_leaving`` gives one move the effect
  of Disengage (a glyph, another figure's power).

Scenario::

    {"game": "heroscape",
     "board": {"cells": [{"at": [q, r], "level": 1, "terrain": "grass",
                          "obstacle": "tree", "glyph": "astrid"}, ...]},
     "options": {"mode": "master" | "basic", "climb_limit": "below_height" | "up_to_height",
                 "flyers_stop_in_water": false, "flyers_stop_on_glyphs": false},
     "figures": [{"id": "raelin", "team": "red", "at": [[q, r], [q, r]], "move": 7,
                  "height": 6, "flying": true, "stealth_flying": false,
                  "phantom_walk": false, "ghost_walk": false, "disengage": false,
                  "abilities": ["ghost_walk", ...]}, ...],
     "query": {"figure": "raelin", "move": 7, "paths": false,
               "never_attacked_leaving": false}}

Result: ``{"figure", "double_space", "mode", "move", "ends": [{"at", "cost", "stop",
"leaving_attacks", "leaving_attacks_cost", "leaving_attackers", "engaged_with", "flies",
"leaving_attacks_flies", "fall", "least_fall", "least_fall_cost", "path"?,
"leaving_attacks_path"?, "least_fall_path"?}]}`` (``leaving_attackers``,
``engaged_with``: enemy ids; ``flies``, ``leaving_attacks_flies``: whether the least-cost
and the least-attack path fly);
``at`` is one cell, or two cells (leading end first) for a double-space figure.

The live :class:`Position` (:mod:`.position`) answers every query, ``solve()``'s too;
:mod:`.reference` holds the slow longhand ``moves()`` the tests hold it to.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ...board import Board, Link
from ...errors import BoardError, LimitError, PlacementError, QueryError, ScenarioError
from ...errors import describe
from ...kernels import _types as T
from ...scenario import (expect_keys, expect_object, get_bool, get_coord, get_id, get_int,
                        get_list, get_str)
from ...position import figure_key
from .._common import read_figures

#: Land terrains: each space costs 1 to enter, whatever it is made of.
LAND = ("grass", "rock", "sand", "road", "snow", "ice", "swamp", "dungeon", "concrete",
        "asphalt")
#: Terrains that end a walking figure's move on entry ("treat molten lava like water").
STOPPING = ("water", "lava")
TERRAINS = LAND + STOPPING
MODES = ("master", "basic")
CLIMB_LIMITS = ("below_height", "up_to_height")
FALLS = ("none", "minor", "major")
MAX_FIGURE_HEIGHT = 1 << 10
HEX = 6  # directions; opposite of d is (d + 3) % 6


# ------------------------------------------------------------------------------ the map
@dataclass(eq=False)
class Battlefield:
    """A Heroscape battlefield: a hex :class:`Board` plus the per-space facts in game words.

    ``board.height`` is the level, ``board.terrain`` the index in :data:`TERRAINS`.
    """

    board: Board
    level: np.ndarray      # int32[N]
    terrain: list[str]     # name per space
    wet: np.ndarray        # bool[N] water or molten lava
    obstacle: list         # obstacle name or None per space
    glyph: list            # glyph name or None per space
    _placements: Any = field(default=None, repr=False)
    _deepest: Any = field(default=None, repr=False)

    @property
    def blocked(self) -> np.ndarray:
        return np.array([o is not None for o in self.obstacle], dtype=bool)

    @property
    def glyphs(self) -> np.ndarray:
        return np.array([g is not None for g in self.glyph], dtype=bool)

    @property
    def deepest_drop(self) -> int:
        """The largest drop of one step onto dry land anywhere on the battlefield (no
        figure can fall further; lets a query skip looking for falls)."""
        if self._deepest is None:
            nbr = self.board.nbr
            lv = self.level
            src = np.repeat(np.arange(len(lv)), nbr.shape[1])
            dst = nbr.ravel()
            ok = dst >= 0
            ok[ok] &= ~self.wet[dst[ok]]
            drops = lv[src[ok]] - lv[dst[ok]]
            self._deepest = int(drops.max()) if drops.size else 0
        return self._deepest


def build_battlefield(spec) -> Battlefield:
    """Read ``board`` of a scenario: ``{"cells": [{"at", "level", "terrain", "obstacle",
    "glyph"}, ...]}``. ``level`` defaults to 1, ``terrain`` to ``"grass"``."""
    spec = expect_object(spec, "board")
    expect_keys(spec, "board", ("cells",), required=("cells",))
    cells = get_list(spec, "cells", "board")
    if not cells:
        raise BoardError("board.cells is empty; a battlefield needs at least one space")
    coords, levels, terrain, obstacle, glyph = [], [], [], [], []
    for i, c in enumerate(cells):
        w = f"board.cells[{i}]"
        c = expect_object(c, w)
        expect_keys(c, w, ("at", "level", "terrain", "obstacle", "glyph"), required=("at",))
        coords.append(get_coord(c, "at", w))
        levels.append(get_int(c, "level", w, 1, lo=0, hi=T.MAX_HEIGHT))
        t = c.get("terrain", "grass")
        if t not in TERRAINS:
            raise BoardError(f"{w}.terrain is {describe(t)}; expected one of "
                             f"{list(TERRAINS)}")
        terrain.append(t)
        for key, out in (("obstacle", obstacle), ("glyph", glyph)):
            v = c.get(key)
            if v is not None and (not isinstance(v, str) or not v):
                raise BoardError(f"{w}.{key} must be a name (a non-empty string) or null; "
                                 f"got {describe(v)}")
            out.append(v)
    board = Board.hex(coords, terrain=[TERRAINS.index(t) for t in terrain], height=levels)
    wet = np.array([t in STOPPING for t in terrain], dtype=bool)
    return Battlefield(board, board.height, terrain, wet, obstacle, glyph)


# ------------------------------------------------------------------------------ figures
@dataclass(eq=False)
class HSFigure:
    id: Any
    team: Any
    cells: list[int]        # one space, or two (leading end first)
    move: int
    height: int
    flying: bool
    stealth_flying: bool
    phantom_walk: bool
    ghost_walk: bool = False
    disengage: bool = False

    @property
    def double(self) -> bool:
        return len(self.cells) == 2

    @property
    def passes_figures(self) -> bool:
        """Ghost Walk (or Phantom Walk): moves through all figures."""
        return self.ghost_walk or self.phantom_walk

    @property
    def never_attacked_leaving(self) -> bool:
        """Disengage (or Phantom Walk): never attacked when leaving an engagement."""
        return self.disengage or self.phantom_walk


_FIGURE_KEYS = ("id", "team", "at", "move", "height", "flying", "stealth_flying",
                "phantom_walk", "ghost_walk", "disengage", "abilities")
#: Movement abilities a figure may list in ``abilities`` (each also a boolean key):
#: Ghost Walk passes through all figures, Disengage is never attacked when leaving an
#: engagement, Phantom Walk is both.
ABILITIES = ("flying", "stealth_flying", "phantom_walk", "ghost_walk", "disengage")


def read_abilities(raw, where: str) -> dict:
    """``{ability: bool}`` of a figure's boolean keys and its ``abilities`` list (names
    from :data:`ABILITIES`; a name both listed and set false is a contradiction)."""
    out = {k: get_bool(raw, k, where, False) for k in ABILITIES}
    names = raw.get("abilities", [])
    if not isinstance(names, list):
        raise ScenarioError(f"{where}.abilities must be a list of ability names; got "
                            f"{describe(names)}")
    for k, name in enumerate(names):
        if name not in ABILITIES:
            raise ScenarioError(f"{where}.abilities[{k}] is {describe(name)}; expected one "
                                f"of {list(ABILITIES)}")
        if raw.get(name) is False:
            raise ScenarioError(f"{where}.abilities lists {name!r} but {where}.{name} is "
                                f"false")
        out[name] = True
    return out


def read_army(field_: Battlefield, items) -> list[HSFigure]:
    """Read ``figures``: ids unique, every space on the battlefield and free of obstacles,
    one figure per space, a double-space figure on two neighbouring spaces."""
    board = field_.board
    out: list[HSFigure] = []
    for i, f in enumerate(read_figures(board, items, allowed_keys=_FIGURE_KEYS, max_cells=2,
                                       board_word="battlefield", cell_word="space")):
        w = f"figures[{i}]"
        for idx in f.cells:
            if field_.obstacle[idx] is not None:
                raise PlacementError(f"figure {f.id!r} stands on {list(board.coord(idx))}, "
                                     f"inside the obstacle {field_.obstacle[idx]!r}")
        if len(f.cells) == 2 and not board.adjacent(f.cells[0], f.cells[1]):
            raise PlacementError(f"double-space figure {f.id!r} stands on "
                                 f"{list(board.coord(f.cells[0]))} and "
                                 f"{list(board.coord(f.cells[1]))}, which are not "
                                 f"neighbouring spaces")
        raw = f.raw
        ab = read_abilities(raw, w)
        stealth = ab["stealth_flying"]
        out.append(HSFigure(
            f.id, f.team, f.cells,
            move=get_int(raw, "move", w, 5, lo=0, hi=T.MAX_BUDGET),
            height=get_int(raw, "height", w, 5, lo=1, hi=MAX_FIGURE_HEIGHT),
            flying=ab["flying"] or stealth,
            stealth_flying=stealth,
            phantom_walk=ab["phantom_walk"], ghost_walk=ab["ghost_walk"],
            disengage=ab["disengage"]))
    return out


def levels_allow_adjacency(level_a: int, height_a: int, level_b: int,
                           height_b: int) -> bool:
    """Figures on neighbouring spaces are adjacent unless one's base is on a level equal to
    or higher than the other's Height above it."""
    return level_a - level_b < height_b and level_b - level_a < height_a


def figures_adjacent(field_: Battlefield, a: HSFigure, b: HSFigure) -> bool:
    """Adjacency of two placed figures (double-space figures count from both spaces)."""
    board, lv = field_.board, field_.level
    return any(board.adjacent(ca, cb) and
               levels_allow_adjacency(int(lv[ca]), a.height, int(lv[cb]), b.height)
               for ca in a.cells for cb in b.cells)


def engaged_with(field_: Battlefield, figure: HSFigure, army: list[HSFigure]) -> list:
    """The enemies a figure is engaged with where it stands."""
    return [e for e in army if e is not figure and e.team != figure.team
            and figures_adjacent(field_, figure, e)]


def adjacency_layer(field_: Battlefield, mover_height: int,
                    enemies: list[HSFigure]) -> np.ndarray:
    """uint64[N]: bit i set on a space where the mover, standing there, would be adjacent
    to ``enemies[i]`` (the height exception uses the mover's level on that space)."""
    if len(enemies) > 64:
        raise LimitError(f"{len(enemies)} enemies within reach of the moving figure; at "
                         f"most 64 are supported per query")
    board, lv = field_.board, field_.level
    masks = np.zeros(board.n_cells, dtype=np.uint64)
    for bit, e in enumerate(enemies):
        for ce in e.cells:
            for c in board.nbr[ce]:
                if c >= 0 and levels_allow_adjacency(int(lv[c]), mover_height,
                                                     int(lv[ce]), e.height):
                    masks[c] |= np.uint64(1) << np.uint64(bit)
    return masks


def fall_of(drop: int, height: int) -> str:
    """Falling damage class of one drop (master game)."""
    if drop >= height + 10:
        return "major"
    if drop >= height:
        return "minor"
    return "none"


# ------------------------------------------------------------------------------ placements
@dataclass(eq=False)
class Placements:
    """The placement graph of double-space figures on a battlefield.

    One node per ordered pair of neighbouring spaces (lead, trail). Column d of the
    neighbour table: the leading end steps in direction d (not onto its trail), the trail
    enters the space the lead left: node (nbr[lead, d], lead). The free flip is a link of
    cost 0 to (trail, lead). Node height = the lead's level, so the kernel's climb rule is
    the lead's; node terrain 1 = one of the spaces holds an obstacle; node flag NO_END =
    the two spaces are on different levels.
    """

    board: Board
    lead: np.ndarray
    trail: np.ndarray
    node_of: np.ndarray    # int32[N, 6]: node of (lead, nbr[lead, d]), -1 if none
    flip: np.ndarray       # int32[P]

    def node(self, lead: int, trail: int) -> int:
        d = np.flatnonzero(self.node_of[lead] >= 0)
        for dd in d:
            if self.trail[self.node_of[lead, dd]] == trail:
                return int(self.node_of[lead, dd])
        raise PlacementError("the two spaces of a double-space figure must be neighbours")


#: placement_key's weight of (cost, stopped): above every placement node index
_NODE_SPAN = 1 << 32


def placement_key(cost, stopped, node):
    """The key that picks which of a pair of spaces' two placements an answer lists: the
    one with the least key -- the least cost, a free arrival before a stopped one, then
    the lower placement node (the lead on the lower-indexed space: nodes are numbered
    by their lead). A rule decision (``docs/heroscape.md``, "Which orientation is
    listed"): both placements lie on the same spaces and Heroscape has no facing, so
    the choice is free; this one makes an end's action id the same in every state and
    the answer independent of the order a search settles the two in (the kernel's
    bucket queue: 95-99.8% of pairs tie in (cost, stopped)).

    ``cost`` and ``node`` integers (or int arrays: one key each, int64), ``stopped``
    anything compared with 0 (bool, the kernel's flag, a stop code; or arrays).
    Compiled callers use the same function (``_jit.placement_key``); the key is
    int64 for costs below 2**30 and nodes below 2**32."""
    return (np.int64(cost) * 2 + (stopped != 0)) * _NODE_SPAN + node


def placement_graph(field_: Battlefield) -> Placements:
    """The (cached) placement graph of ``field_``: built once (under a lock, for copies
    of positions on other threads), published whole."""
    if field_._placements is not None:
        return field_._placements
    with _PLACEMENTS_LOCK:
        if field_._placements is None:
            field_._placements = _build_placements(field_)
    return field_._placements


_PLACEMENTS_LOCK = threading.Lock()


def _build_placements(field_: Battlefield) -> Placements:
    nbr = field_.board.nbr
    n = nbr.shape[0]
    lead, dirs = np.nonzero(nbr >= 0)
    lead = lead.astype(T.INDEX)
    dirs = dirs.astype(T.INDEX)
    P = len(lead)
    if P == 0:
        raise PlacementError("the battlefield has no two neighbouring spaces for a "
                             "double-space figure")
    trail = nbr[lead, dirs]
    node_of = np.full((n, HEX), -1, dtype=T.INDEX)
    node_of[lead, dirs] = np.arange(P, dtype=T.INDEX)
    table = np.full((P, HEX), -1, dtype=T.INDEX)
    for d in range(HEX):
        step = nbr[lead, d]
        ok = (step >= 0) & (step != trail)
        table[ok, d] = node_of[step[ok], (d + HEX // 2) % HEX]
    flip = node_of[trail, (dirs + HEX // 2) % HEX]
    lv = field_.level
    blocked = field_.blocked
    flags = np.where(lv[lead] != lv[trail], T.CELL_NO_END, 0).astype(T.INDEX)
    terrain = (blocked[lead] | blocked[trail]).astype(T.INDEX)
    links = [Link(int(p), int(flip[p]), 0, 0, False) for p in range(P)]
    graph = Board.graph(table, coords=np.stack([lead, dirs], axis=1), terrain=terrain,
                        height=lv[lead], flags=flags, links=links)
    return Placements(graph, lead, trail, node_of, flip)


# ------------------------------------------------------------------------------ queries
@dataclass(frozen=True)
class Rules:
    mode: str = "master"
    climb_limit: str = "below_height"
    flyers_stop_in_water: bool = False
    flyers_stop_on_glyphs: bool = False


def read_rules(opts) -> Rules:
    """``options`` of a Heroscape scenario."""
    opts = expect_object(opts, "options")
    expect_keys(opts, "options", ("mode", "climb_limit", "flyers_stop_in_water",
                                  "flyers_stop_on_glyphs"))
    return Rules(mode=get_str(opts, "mode", "options", MODES, "master"),
                 climb_limit=get_str(opts, "climb_limit", "options", CLIMB_LIMITS,
                                     "below_height"),
                 flyers_stop_in_water=get_bool(opts, "flyers_stop_in_water", "options",
                                               False),
                 flyers_stop_on_glyphs=get_bool(opts, "flyers_stop_on_glyphs",
                                                "options", False))


#: The keys of a ``solve()`` query besides ``figure`` (those ``legal_moves`` takes).
QUERY_KEYS = ("move", "paths", "never_attacked_leaving")


def read_query(query, figures: list) -> tuple:
    """``(figure id, legal_moves keywords)`` of a scenario's ``query``: ``figure`` (one of
    ``figures``, the ids in play), ``move`` (default: the figure's Move), ``paths``,
    ``never_attacked_leaving``."""
    query = expect_object(query, "query")
    expect_keys(query, "query", ("figure",) + QUERY_KEYS, required=("figure",))
    fid = get_id(query, "figure", "query")
    move = get_int(query, "move", "query", None, lo=0, hi=T.MAX_BUDGET, allow_none=True)
    want_paths = get_bool(query, "paths", "query", False)
    calm = get_bool(query, "never_attacked_leaving", "query", False)
    if figure_key(fid) not in figures:
        raise QueryError(f"query.figure names figure {fid!r}, which is not in the "
                         f"scenario; known figures: {figures}")
    kw: dict[str, Any] = {"paths": True} if want_paths else {}
    if calm:
        kw["never_attacked_leaving"] = True
    if move is not None:
        kw["move"] = move
    return fid, kw


@dataclass(frozen=True)
class Setup:
    """A Heroscape scenario read (:func:`read_scenario`): what a position is built of."""
    field: Battlefield
    rules: Rules
    army: list


def read_scenario(scenario, query: bool = True) -> Setup:
    """Read and validate a Heroscape scenario: ``board`` (:func:`build_battlefield`),
    ``options`` (:func:`read_rules`), ``figures`` (:func:`read_army`) and, when given,
    ``query`` (:func:`read_query`), raising the typed errors :func:`movecore.solve`
    raises (``query=False``: the query is not read, as ``Position.from_scenario``
    does). Pure reading: it loads no kernel (``movecore convert`` validates with it).

    >>> s = read_scenario({"board": {"cells": [{"at": [0, 0]}, {"at": [1, 0]}]},
    ...     "figures": [{"id": "a", "team": "red", "at": [0, 0]}]})
    >>> s.rules.mode, [f.id for f in s.army]
    ('master', ['a'])
    """
    scenario = expect_object(scenario, "scenario")
    expect_keys(scenario, "scenario", ("game", "board", "options", "figures", "query"),
                required=("board", "figures"))
    field_ = build_battlefield(scenario["board"])
    rules = read_rules(scenario.get("options", {}))
    army = read_army(field_, scenario["figures"])
    if query and "query" in scenario:
        read_query(scenario["query"], [f.id for f in army])
    return Setup(field_, rules, army)


def _max_penalty(n_enemies: int, budget: int) -> int:
    # The least number of attacks at an end is at most that of a least-cost path, which
    # has at most `budget` steps, each leaving at most n_enemies enemies.
    bound = n_enemies * budget
    return T.MAX_PENALTY_LEVELS - 1 if bound > 15 else 15




def _fall_limited(board: Board, level: np.ndarray, wet: np.ndarray,
                  drop: int) -> Board:
    """``board`` without the steps that drop at least ``drop`` levels onto dry land
    (``level``, ``wet``: of the space a step moves onto, per node; cached on the board).
    Paths on it are exactly the paths of ``board`` whose worst fall is below that."""
    key = ("heroscape.fall_limited", drop)
    b = board._cache.get(key)
    if b is None:
        nbr = board.nbr
        v = np.maximum(nbr, 0)
        cut = (nbr >= 0) & ~wet[v] & (level[:, None] - level[v] >= drop)
        b = replace(board, nbr=np.where(cut, -1, nbr).astype(nbr.dtype), _cache={})
        board._cache[key] = b
    return b
