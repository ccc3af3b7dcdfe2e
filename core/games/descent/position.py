"""The live position of Descent 1st edition (``movecore.games.descent.Position``).

A :class:`Position` holds one dungeon, the party's rune keys, the door states and the
figures as arrays. Everything that depends only on the dungeon and the *kind* of a
figure (side, footprint, flying) is built once and shared by every copy
(:class:`_KindGraph`): the placement graph (one node per anchor square, the town, and
"air" nodes of pit jumps), its per-node facts, and one packed board and prepared kernel
query per door state. Per position, each kind of mover keeps its layers (occupancy,
stops, aura wounds) as arrays the prepared query reads directly, so moving, adding or
removing a figure writes only the few nodes it touches.

Design notes (the rules are in :mod:`movecore.games.descent`):

* **Nodes.** Node ``s < NS`` is the anchor square ``s`` (the dungeon's squares in map
  order); node ``NS`` is the town; nodes above are, for a kind that turns (hell hound,
  dragon), its turned placements (``NS + 1 + s``: the base of the other orientation at
  square ``s``), then air nodes (below), then door-memory nodes. An anchor where the
  kind's base does not fit has no links. Action ids are these node ids, so every figure
  has ``NS + 1`` actions (a monster that turns ``2 NS + 1``).
* **Door memory.** A door opened during a move stays open for the rest of it: node
  ``mem(u, S)`` is node ``u`` having opened the doors ``S`` on this move (its steps
  price them open). It is never an end; every link into it has a twin of the same
  price into ``u``. A door is remembered as far as a move could still come back to it:
  within ``memory_radius(mp)`` links of the nodes next to it (a path that opens a door
  and comes back to it from r links away spends at least 4 + 2r MP). Each kind has
  one graph per radius (powers of two), built when a query first needs it.
* **Doors.** A step's price depends on the doors it crosses or straddles. Each link slot
  of the graph records the doors it involves; a door change recomputes only those slots
  (the board of a door state is then packed from the slot results and cached per kind,
  for every copy).
* **Pit jumps** run through air nodes: ``air(s, d)`` is "in the air over placement
  ``s`` (a one-square walker's square, or with option ``large_jumps`` a large base wholly
  on jumpable squares), jumping along ``d``". A jump across k of them costs
  1 + 3 (k - 1) + 2 = 3k; air nodes are never ends, and an enemy standing on ``s``
  occupies ``air(s, d)`` and so blocks the jump (the rule "no jumping over an enemy")
  through the occupancy layer.
"""
from __future__ import annotations

import copy as _copy
import itertools
import math
import threading
from dataclasses import replace as _replace
from typing import Mapping

import numpy as np
from numba import njit

from ...board import Board
from ...errors import (IllegalMoveError, LimitError, PlacementError, QueryError,
                      ScenarioError, describe)
from ...kernels import _types as T
from ...mover import Mover
from ...position import Moves, check_actions, figure_key, locked, register_position
from ...position import Position as _Position
from ...reach import Prepared, prepare
from ...scenario import as_coord, expect_keys, expect_object, get_bool, get_list, get_str
from . import rules as D

OPEN, OPENABLE, SHUT = 0, 1, 2
_DOOR_WORDS = ("open", "openable", "shut")
#: Stop reason names by code (``Moves.stop``).
STOP_REASONS = (None, "grapple", "ice", "grappled")
STOP_GRAPPLE, STOP_ICE, STOP_GRAPPLED = 1, 2, 3
SIDE_CODE = {"hero": 0, "monster": 1}
# a jump across k jumpable squares: 1 to take off, 3 per further square, 2 to land = 3k
JUMP_TAKE_OFF, JUMP_OVER, JUMP_LAND = 1, 3, 2
_QUERY_KEYS = ("action", "fatigue", "mp", "paths")
_TOP_BUDGET = T.MAX_BUDGET
_CHAR_OF = {v: k for k, v in D.MAP_CHARS.items() if v is not None}
_NO_BOOL = np.zeros(0, np.bool_)
_NO_INT = np.zeros(0, T.INDEX)


@njit(cache=T.CACHE, nogil=True)
def _end_order(cells, costs, rank, n):
    """int64[E]: the rows of the kernel's ends in ``solve()``'s order (cost, then x, then
    y: ``rank``)."""
    m = cells.shape[0]
    key = np.empty(m, np.int64)
    for j in range(m):
        key[j] = np.int64(costs[j]) * n + rank[cells[j]]
    return np.argsort(key)


@njit(cache=T.CACHE, nogil=True)
def _sort_ends(cells, costs, rank, n, stopped, grip, ice_code, pen, pen_costs):
    """The kernel's ends in ``solve()``'s order (cost, then x, then y: ``rank``) with
    their stop codes, and penalties / penalty costs when given (else all zero / the
    costs). Returns (actions, costs, stop, penalty, penalty_costs, order): int32[E] but
    stop int8[E] and order int64[E] (row of each end in the kernel's answer)."""
    m = cells.shape[0]
    order = _end_order(cells, costs, rank, n)
    out_cells = np.empty(m, np.int32)
    out_costs = np.empty(m, np.int32)
    stop = np.zeros(m, np.int8)
    out_pen = np.zeros(m, np.int32)
    out_pcost = np.empty(m, np.int32)
    has_stop = stopped.shape[0] > 0
    has_pen = pen.shape[0] > 0
    for j in range(m):
        o = order[j]
        a = cells[o]
        out_cells[j] = a
        out_costs[j] = costs[o]
        if has_stop and stopped[o]:
            stop[j] = STOP_GRAPPLE if grip[a] > 0 else ice_code[a]
        if has_pen:
            out_pen[j] = pen[o]
            out_pcost[j] = pen_costs[o]
        else:
            out_pcost[j] = costs[o]
    return out_cells, out_costs, stop, out_pen, out_pcost, order


@njit(cache=T.CACHE, nogil=True)
def _sort_plain(cells, costs, rank, n):
    """:func:`_sort_ends` of a query with no stop and no penalty: (actions, costs,
    order) (the stop codes are all 0, penalties 0, penalty costs the costs)."""
    m = cells.shape[0]
    order = _end_order(cells, costs, rank, n)
    out_cells = np.empty(m, np.int32)
    out_costs = np.empty(m, np.int32)
    for j in range(m):
        o = order[j]
        out_cells[j] = cells[o]
        out_costs[j] = costs[o]
    return out_cells, out_costs, order


# ----------------------------------------------------------------------------- static
class _Static:
    """What every copy of a position shares: the dungeon, options, the square index and
    the kind graphs (each with its boards and prepared queries per door state).

    Positions of the same dungeon and options share one (see :func:`_static_for`): the
    door states and everything else that changes in play live in the position."""

    def __init__(self, dungeon: D.Dungeon, corner_cutting: bool, ice: str,
                 large_turns: str = "all", large_jumps: bool = False,
                 hound_slides: bool = False):
        self.dungeon = dungeon
        self.hound_slides = bool(hound_slides)
        self.corner = bool(corner_cutting)
        self.ice = ice
        self.large_turns = large_turns
        self.large_jumps = bool(large_jumps)
        self.squares = list(dungeon.terrain)            # node s -> (x, y)
        self.index = {c: i for i, c in enumerate(self.squares)}
        self.ns = len(self.squares)
        lo = min(min(c[0] for c in self.squares), min(c[1] for c in self.squares))
        self.lo = lo
        self.town_xy = (lo - 1, lo - 1)                  # the town's coordinate in boards
        self.coords = np.array(self.squares + [self.town_xy], dtype=T.INDEX)
        self.door_index = {door.id: k for k, door in enumerate(dungeon.doors)}
        self.kinds: dict = {}
        self.query_cache: dict = {}
        # a memory radius this large reaches every node of any kind's graph
        self.radius_cap = 1 << (3 * self.ns + 2).bit_length()
        self.footprints: dict = {}     # (size, anchor) -> squares under the base
        self._grid: "_Grid | None" = _Grid(self)     # (LimitError for a sparse board)

    def grid(self) -> "_Grid":
        """The dungeon as flat numpy arrays (built on first use, shared by the kinds)."""
        g = self._grid
        if g is None:
            with _STATIC_LOCK:
                g = self._grid
                if g is None:
                    g = self._grid = _Grid(self)
        return g

    def kind(self, key) -> "_KindGraph":
        """The graph of kind ``key`` = (side, w, h, fly, memory radius); a key without
        the radius means radius 0."""
        if len(key) == 4:
            key = key + (0,)
        g = self.kinds.get(key)
        if g is None:
            with _STATIC_LOCK:
                g = self.kinds.get(key)
                if g is None:
                    g = self.kinds[key] = _KindGraph(self, key)
        return g


#: Recent dungeons' static data, so that ``solve()`` of one dungeon again and again (one
#: scenario per move, as callers without a live position do) builds its graphs once.
_STATICS: dict = {}
_STATICS_MAX = 16
_STATIC_LOCK = threading.RLock()


def _static_key(dungeon: D.Dungeon, corner: bool, ice: str, large_turns: str = "all",
                large_jumps: bool = False, hound_slides: bool = False):
    """Everything of a dungeon the graphs depend on (not whether doors are open or lead
    to unrevealed areas: those are the position's)."""
    return (tuple(dungeon.terrain.items()), frozenset(dungeon.walls),
            tuple((door.id, door.sides, door.rune) for door in dungeon.doors),
            tuple(dungeon.stairs), tuple(dungeon.glyphs), bool(corner), ice, large_turns,
            bool(large_jumps), bool(hound_slides))


def _static_for(dungeon: D.Dungeon, corner: bool, ice: str,
                large_turns: str = "all", large_jumps: bool = False,
                hound_slides: bool = False) -> _Static:
    key = _static_key(dungeon, corner, ice, large_turns, large_jumps, hound_slides)
    with _STATIC_LOCK:
        st = _STATICS.pop(key, None)
        if st is None:
            st = _Static(dungeon, corner, ice, large_turns, large_jumps, hound_slides)
        _STATICS[key] = st                 # most recent last
        while len(_STATICS) > _STATICS_MAX:
            del _STATICS[next(iter(_STATICS))]
    return st


def _sides_examined(c, d):
    """The cell sides a base square ``c`` stepping by ``d`` may cross (both ways round
    the corner for a diagonal)."""
    n = (c[0] + d[0], c[1] + d[1])
    if d[0] == 0 or d[1] == 0:
        return [(c, n)]
    m1, m2 = (n[0], c[1]), (c[0], n[1])
    return [(c, m1), (m1, n), (c, m2), (m2, n)]


def memory_radius(mp: int) -> int:
    """How far (in links) from a door its memory must reach for moves of ``mp`` MP.

    A path that opens door d (its step costs 1 + 2) and passes d again later, from a node
    r links away from every node whose steps involve d, walks at least r links out and
    r + 1 back (each link costs 1 MP or more): 4 + 2r <= mp. Rounded up to a power of
    two, so that a few graphs serve every MP (a larger radius is as exact)."""
    r = (mp - 4) // 2
    return 0 if r <= 0 else 1 << (r - 1).bit_length()


def _memory_reach(n: int, slots: list, involved: list, vec, radius: int,
                  openers: dict | None = None) -> dict:
    """``{node: doors}``: the doors whose memory node ``node`` keeps, those within
    ``radius`` links of a node next to the door (an end of a link that involves it, or
    a placement that may open it without stepping: ``openers``, node -> doors), links
    taken both ways (a lower bound of the distance either way). ``slots`` /
    ``involved``: the game-word links; ``vec``: (u, v) arrays of the others. A
    breadth-first search per door over the links as a CSR table: the cost is that of
    the nodes it reaches, not the board's."""
    seeds: dict = {}
    for u, ds in (openers or {}).items():
        for d in ds:
            seeds.setdefault(d, set()).add(u)
    for (_, u, v, _, _), inv in zip(slots, involved):
        for d in inv:
            seeds.setdefault(d, set()).update((u, v))
    if not seeds:
        return {}
    near: dict = {}
    if radius:
        su = np.array([s[1] for s in slots], np.int64)
        sv = np.array([s[2] for s in slots], np.int64)
        a = np.concatenate([vec[0], vec[1], su, sv])
        b = np.concatenate([vec[1], vec[0], sv, su])
        order = np.argsort(a, kind="stable")
        nbr = b[order]
        ptr = np.concatenate([[0], np.cumsum(np.bincount(a, minlength=n))])
        mark = np.full(n, -1, np.int64)
    for d, nodes in seeds.items():
        seen = np.fromiter(nodes, np.int64, len(nodes))
        if radius:
            mark[seen] = d
            frontier = seen
            parts = [seen]
            for _ in range(radius):
                lo, hi = ptr[frontier], ptr[frontier + 1]
                cnt = hi - lo
                if not cnt.sum():
                    break
                idx = np.repeat(lo - np.concatenate([[0], np.cumsum(cnt)[:-1]]), cnt) + \
                    np.arange(cnt.sum())
                nb = np.unique(nbr[idx])
                nb = nb[mark[nb] != d]
                if not len(nb):
                    break
                mark[nb] = d
                parts.append(nb)
                frontier = nb
            seen = np.concatenate(parts)
        for u in seen.tolist():
            near.setdefault(u, set()).add(d)
    return {u: frozenset(ds) for u, ds in near.items()}


def _subsets(doors: frozenset, most: int = 1 << 30) -> list:
    """The non-empty subsets of ``doors`` of at most ``most`` doors (frozensets,
    smallest first)."""
    ds = sorted(doors)
    return [frozenset(c) for r in range(1, min(len(ds), most) + 1)
            for c in itertools.combinations(ds, r)]


def wound_cap(mp: int, pen_max: int) -> int:
    """The most wounds a query of ``mp`` MP counts: each link costs 1 MP or more and
    wounds at most once by a fall (1) plus the aura on the node it enters (``pen_max``
    or less), so ``mp * (1 + pen_max)`` bounds a move's wounds; rounded up to
    ``2**k - 1`` (a few prepared queries serve every MP) and at most ``MAX_WOUNDS``.
    The penalty kernel's scratch grows with it (one set of states per wound count).

    >>> wound_cap(0, 0), wound_cap(6, 0), wound_cap(8, 2), wound_cap(40, 0)
    (1, 7, 31, 31)
    """
    bound = mp * (1 + pen_max)
    cap = 1
    while cap < bound and cap < D.MAX_WOUNDS:
        cap = 2 * cap + 1
    return min(cap, D.MAX_WOUNDS)


#: Most door-memory nodes one kind's graph may hold (see _KindGraph).
MEMORY_NODES_MAX = 250_000


#: Most squares in the box round a Descent board (its lookup grid; see docs/descent.md).
GRID_MAX = 1 << 22
#: Most nodes of one kind's placement graph (both orientations, pit-jump and
#: door-memory nodes together).
NODES_MAX = 1 << 24
_TERRAIN_CODE = {t: i for i, t in enumerate(D.TERRAINS)}
_OFF = 255                                   # terrain code of an off-board square
_PAD = 4                                     # off-board margin round the grid


def _codes(names) -> np.ndarray:
    """bool[256]: which terrain codes are in ``names``."""
    out = np.zeros(256, np.bool_)
    out[[_TERRAIN_CODE[t] for t in names]] = True
    return out


_IS_OBSTACLE = _codes(D.OBSTACLES)
_IS_JUMPABLE = _codes(D.JUMPABLE)
_IS_TREE = _codes(("tree",))
_IS_PIT = _codes(("pit",))
_IS_ICE = _codes(("ice",))
_WALKABLE = ~(_codes(D.OBSTACLES | {"lava"}))
_WALKABLE[_OFF] = False
_ON_BOARD = np.ones(256, np.bool_)
_ON_BOARD[_OFF] = False


class _Grid:
    """The dungeon as flat arrays over its box with a margin of ``_PAD`` off-board
    squares (position ``p = (y - y0) * W + (x - x0)``): ``node`` int64 (square index or
    -1), ``code`` uint8 terrain code (255 off the board), walls and doors on the side
    right of (``wr``, ``dr``) and below (``wd``, ``dd``) each position (doors: door index
    or -1), and ``pos`` int64[NS] of each square. Built once per dungeon (numpy, no
    Python per square)."""

    def __init__(self, st: "_Static"):
        d = st.dungeon
        xy = st.coords[:st.ns].astype(np.int64)
        lo = xy.min(axis=0) - _PAD
        span = xy.max(axis=0) - lo + 1 + _PAD
        self.W, self.H = int(span[0]), int(span[1])
        if self.W * self.H > GRID_MAX:
            raise LimitError(
                f"the board's squares spread over a {self.W - 2 * _PAD}x"
                f"{self.H - 2 * _PAD} box; a Descent board must fit a box of at most "
                f"{GRID_MAX} squares (its {st.ns} squares closer together)")
        self.x0, self.y0 = int(lo[0]), int(lo[1])
        W = self.W
        self.pos = (xy[:, 1] - self.y0) * W + (xy[:, 0] - self.x0)
        size = self.W * self.H
        self.node = np.full(size, -1, np.int64)
        self.node[self.pos] = np.arange(st.ns)
        self.code = np.full(size, _OFF, np.uint8)
        self.code[self.pos] = np.fromiter((_TERRAIN_CODE[t] for t in d.terrain.values()),
                                          np.uint8, st.ns)
        self.wr = np.zeros(size, np.bool_)
        self.wd = np.zeros(size, np.bool_)
        self.dr = np.full(size, -1, np.int32)
        self.dd = np.full(size, -1, np.int32)
        for (a, b) in d.walls:
            if a in d.terrain and b in d.terrain:      # else the map's edge: a wall
                self._mark(a, b, self.wr, self.wd, True)
        for k, door in enumerate(d.doors):
            for a, b in door.sides:
                self._mark(a, b, self.dr, self.dd, k)

    def _mark(self, a, b, right, down, value):
        p = (a[1] - self.y0) * self.W + (a[0] - self.x0)
        (right if a[1] == b[1] else down)[p] = value

    def at(self, x, y) -> int:
        """Position of square (x, y) (in the box or not)."""
        return (y - self.y0) * self.W + (x - self.x0)


class _Sparse(dict):
    """A dict that answers ``default`` for a missing key (without storing it)."""

    __slots__ = ("default",)

    def __init__(self, default):
        dict.__init__(self)
        self.default = default

    def __missing__(self, key):
        return self.default


class _Facts:
    """The placement facts (:meth:`D.Rules.placement`, every door open) of a kind's
    nodes, made on first read: only the nodes whose links are priced in game words
    (those that involve doors) and the ends a caller lists need them."""

    __slots__ = ("g", "got")

    def __init__(self, g: "_KindGraph"):
        self.g = g
        self.got: dict = {}

    def __getitem__(self, u):
        got = self.got.get(u, False)
        if got is not False:
            return got
        g = self.g
        f = None
        if 0 <= u < len(g.fitp) and g.fitp[u]:
            turned = u > g.st.ns
            size = (g.size[1], g.size[0]) if turned else g.size
            rules = g.rules
            with _STATIC_LOCK:           # (the rules' door states are shared scratch)
                saved = rules.door_state
                rules.door_state = ["open"] * len(g.st.dungeon.doors)
                try:
                    f = rules.placement(g.st.squares[u - g.turn_off if turned else u],
                                        size)
                finally:
                    rules.door_state = saved
        self.got[u] = f
        return f


def _cross(grid: _Grid, c, dx: int, dy: int, walkable, corner: bool):
    """Squares at positions ``c`` (any shape) each moving by (dx, dy): (legal, doors):
    bool arrays of c's shape, legal where no wall is crossed (a diagonal passes through
    a grid corner: legal when one way round it, via either orthogonal square, crosses
    no wall; without corner cutting both ways must be open and both squares passable),
    doors where a door lies on a side examined (its price is then a door state's)."""
    W = grid.W
    wr, wd, dr, dd = grid.wr, grid.wd, grid.dr, grid.dd
    if dy == 0:
        p = c if dx == 1 else c - 1
        return ~wr[p], dr[p] >= 0
    if dx == 0:
        p = c if dy == 1 else c - W
        return ~wd[p], dd[p] >= 0
    m1, m2, n = c + dx, c + dy * W, c + dx + dy * W
    h1 = c if dx == 1 else m1               # side c|m1 (horizontal step)
    v1 = m1 if dy == 1 else n              # side m1|n: below m1, or below n
    v2 = c if dy == 1 else m2               # side c|m2
    h2 = m2 if dx == 1 else n               # side m2|n
    on1 = grid.node[m1] >= 0
    on2 = grid.node[m2] >= 0
    r1 = on1 & ~wr[h1] & ~wd[v1]
    r2 = on2 & ~wd[v2] & ~wr[h2]
    doors = (dr[h1] >= 0) | (dd[v1] >= 0) | (dd[v2] >= 0) | (dr[h2] >= 0)
    if corner:
        return r1 | r2, doors
    code = grid.code
    return r1 & r2 & walkable[code[m1]] & walkable[code[m2]], doors


class _Links:
    """The graph of one kind under one door state: the packed board, the prepared
    queries (unbound: per position they are re-bound to its own layers), the step
    bookkeeping for ``doors_opened``, and whether any pit placement exists."""

    __slots__ = ("board", "steps", "door_steps", "has_leave", "leave", "prepared",
                 "results")

    def __init__(self, board, steps, has_leave, leave, results):
        self.board = board
        self.steps = steps            # (u, v) -> (cost, frozenset of door indices)
        self.door_steps = {k: v[1] for k, v in steps.items() if v[1]}   # doors to open
        self.has_leave = has_leave
        self.leave = leave            # uint64[n] pit-fall bits (None without pits)
        self.prepared = {}            # penalty mode (bool) -> Prepared (template)
        self.results = results        # slot -> (cost, doors) or None


class _KindGraph:
    """The placement graph of one kind of mover: ``key = (side, w, h, fly, memory
    radius)`` (see :func:`memory_radius`).

    Arrays (n = number of nodes = NS + 1 + turned + air + door-memory nodes):
        foot:         int32[n, w*h] squares under each node (``NS`` pads: always empty).
        flags_static: uint8[n] CELL_NO_END / ice CELL_STOP (no grapple: per position).
        ice_code:     int8[n] STOP_ICE where ice stops the move, else 0.
        in_pit:       int32[n] 1 where the whole base is in a pit.
        rank:         int64[n] rank of the node's coordinate in (x, y) order.
    """

    def __init__(self, st: _Static, key):
        side, w, h, fly, radius = key
        self.mem_radius = radius
        self.st = st
        self.key = key
        self.side = side
        self.team = SIDE_CODE[side]
        self.size = (w, h)
        self.fly = fly
        self.large = (w, h) != (1, 1)
        d = st.dungeon
        ns = st.ns
        proto = D.Hero(None, side, None, 0, (w, h), fly=fly)
        rules = D.Rules(d, [], proto, set(), st.corner, st.ice)
        rules.door_state = ["open"] * len(d.doors)
        self.rules = rules
        index = st.index
        g0 = st.kind(key[:4] + (0,)) if radius else None
        self.base0 = g0
        if g0 is not None:
            # all but the door memory is the radius-0 graph's: shared, not built again
            for name in ("turns", "turn_off", "fitp", "p_in_pit", "p_on_ice", "p_may_end",
                         "pfoot", "straddle", "air_off", "air_foot", "n_air", "dirs",
                         "openers", "vec0"):
                setattr(self, name, getattr(g0, name))
            self.facts = g0.facts
            place_nodes, n_turn = g0.place_nodes, g0.n_turn
            slots, involved = g0.slots[:g0.n_base], g0.involved[:g0.n_base]
        else:
            place_nodes, slots, involved, n_turn = self._base(st, rules, key)
            self.vec0 = self.vec
            self.openers = self._openers()
        self.place_nodes, self.n_turn, self.n_base = place_nodes, n_turn, len(slots)
        self.slots = slots
        air_foot, air_off = self.air_foot, self.air_off
        n = self.n = ns + 1 + self.n_air + n_turn
        if n > NODES_MAX:
            raise LimitError(f"a {w}x{h} {side}'s placement graph on this board would have "
                             f"{n} nodes; at most {NODES_MAX} (a smaller board)")
        vu, vv, vc = self.vec0
        # Door memory: a door opened during a move stays open for the rest of it. Node
        # mem(u, S) is "at node u having opened the doors S on this move" (S: doors
        # ``near`` u, see _memory_reach). It is never an end: every link into it has a
        # twin of the same price into the plain node u (directly, or through the twin
        # of an earlier link), so the plain nodes keep the least costs and the memory
        # only makes later steps through S free.
        #
        # Opening a door without stepping ("figures may expend movement points to open
        # or close doors, but only if their figure is located in a space adjacent to a
        # door's closed position", 2 MP): node opn(u, S) is "at u, having just opened a
        # door here, with the doors S opened on this move". Its links are those of
        # mem(u, S); it is never an end and no space is entered on the way in (no aura,
        # no grapple stop). Only a jump gains by it (a step that crosses a closed door
        # opens it for the same 2 MP), so the memory radius stays that of stepping
        # through a door: opening in place (2), r links away and back to the door
        # (2r) and a jump (3 or more) is 5 + 2r MP.
        openers = self.openers
        near = _memory_reach(n, slots, involved, (vu, vv), self.mem_radius, openers)
        if near:
            # the array links out of nodes that keep a memory become slots (their memory
            # twins need one each); their price never changes
            out = np.zeros(n, np.bool_)
            out[np.fromiter(near, np.int64, len(near))] = True
            moved = out[vu]
            for u, v, c in zip(vu[moved].tolist(), vv[moved].tolist(),
                               vc[moved].tolist()):
                slots.append(("fixed", u, v, None, c))
                involved.append(frozenset())
            vu, vv, vc = vu[~moved], vv[~moved], vc[~moved]
        self.vec = (vu, vv, vc)
        # a move of the MP this radius serves (mp <= 2 radius + 5) opens at most
        # radius + 2 doors: each costs 2 MP
        most = self.mem_radius + 2

        def n_subsets(ds, hold=frozenset()):
            """Subsets of ``ds`` of 1..most doors (meeting ``hold`` if given)."""
            k = len(ds)
            total = sum(math.comb(k, r) for r in range(1, min(k, most) + 1))
            if hold:
                j = k - len(ds & hold)
                total -= sum(math.comb(j, r) for r in range(1, min(j, most) + 1))
            return total
        count = sum(n_subsets(ds) for ds in near.values()) + \
            sum(n_subsets(near[u], ds) for u, ds in openers.items())
        if count > MEMORY_NODES_MAX:
            raise LimitError(
                f"a move of this many MP keeps the memory of up to {most} opened doors "
                f"over {count} graph nodes (limit {MEMORY_NODES_MAX}): too many doors "
                f"within {self.mem_radius} steps of each other; ask with fewer MP")
        mem: dict = {}                   # (node, doors) -> memory node
        mem_base: list = []
        sets_of: dict = {}               # node u -> [(memory node of u, its doors)]
        for u in sorted(near):
            for S in _subsets(near[u], most):
                mem[(u, S)] = n + len(mem_base)
                mem_base.append(u)
                sets_of.setdefault(u, []).append((mem[(u, S)], S))
        opn: dict = {}                   # (node, doors) -> opened-here node
        for u in sorted(openers):
            for S in _subsets(near[u], most):
                if S & openers[u]:
                    opn[(u, S)] = n + len(mem_base)
                    mem_base.append(u)
                    sets_of[u].append((opn[(u, S)], S))
        self.n_opn = len(opn)
        self.near = near
        no_doors = frozenset()
        for i in range(len(slots)):
            kind, u, v, dd, sq = slots[i]
            inv = involved[i]
            near_v = near.get(v, no_doors)
            if inv:                      # doors this step opens that v stays near
                for X in _subsets(inv & near_v, most):
                    slots.append(("mem", u, mem[(v, X)], dd, (i, no_doors, X)))
                    involved.append(inv)
            for src, S in sets_of.get(u, ()):
                free = inv - S           # S is open for this move: only these can change
                if inv:                  # twin: the memory of S dropped at v
                    slots.append(("mem", src, v, dd, (i, S, None)))
                    involved.append(free)
                keep = S & near_v
                for X in [no_doors] + _subsets(free & near_v, most - len(keep)):
                    if keep | X:
                        slots.append(("mem", src, mem[(v, keep | X)], dd, (i, S, keep | X)))
                        involved.append(free)
        for u in sorted(openers):        # open a door here: 2 MP (the door must be closed)
            for d_ in sorted(openers[u]):
                one = frozenset((d_,))
                for src, S in [(u, no_doors)] + sets_of[u]:
                    if d_ not in S and len(S) < most:
                        slots.append(("open", src, opn[(u, S | one)], None, d_))
                        involved.append(one)
        self.n_mem = len(mem_base)
        n = self.n = n + self.n_mem
        self.mem_of: dict = {}           # node -> its memory nodes
        for (u, _), m in mem.items():
            self.mem_of.setdefault(u, []).append(m)
        self.involved = involved
        self.dynamic = [i for i, s in enumerate(involved) if s]
        # per-node arrays (numpy over the placements)
        k = w * h
        npl = ns + 1 + n_turn
        mem_base = np.array(mem_base, np.int64)
        src = np.concatenate([np.arange(npl), self.air_foot, mem_base])  # node -> facts of
        foot = np.full((n, k), ns, dtype=np.int64)
        foot[:npl] = self.pfoot
        foot[npl:] = foot[src[npl:]]
        fitp = np.concatenate([self.fitp, np.zeros(n - npl, np.bool_)])
        flags = np.zeros(n, np.uint8)
        ice_code = np.zeros(n, np.int8)
        in_pit = np.zeros(n, T.INDEX)
        leave = np.ones(n, np.uint64)
        ends = np.zeros(npl, np.uint8)
        ends[self.fitp & ~self.p_may_end] = T.CELL_NO_END
        if rules.ice_stops:
            ends[self.p_on_ice] |= T.CELL_STOP
            ice_code[:npl][self.p_on_ice] = STOP_ICE
        flags[:npl] = ends
        in_pit[:npl] = self.p_in_pit
        leave[:npl][self.p_in_pit] = 0
        mem0 = n - self.n_mem
        flags[air_off:mem0] = T.CELL_NO_END
        if self.n_mem:
            ice_code[mem0:] = ice_code[mem_base]
            in_pit[mem0:] = in_pit[mem_base]
            leave[mem0:] = leave[mem_base]
            flags[mem0:] = flags[mem_base] | T.CELL_NO_END
        opn0 = n - self.n_opn            # opened-here nodes: no space entered, no stop
        flags[opn0:] = T.CELL_NO_END
        ice_code[opn0:] = 0
        # node -> the square its path and end read as (the anchor; the town; -1: air
        # and opened-here nodes, where the figure stands still)
        anchor_of = np.arange(n)
        anchor_of[ns + 1:air_off] -= self.turn_off
        anchor_of[air_off:mem0] = -1
        anchor_of[mem0:] = anchor_of[mem_base]
        anchor_of[opn0:] = -1
        self.anchor_of = anchor_of
        self.n_actions = self.turn_off + ns if self.turns else ns + 1
        self.foot = foot
        self.foot0 = np.ascontiguousarray(foot[:, 0])
        self.k = k
        # occupant value by the bits of the sides under a node (1 hero, 2 monster)
        lut = np.full(4, T.OCC_EMPTY, T.INDEX)
        lut[1 << self.team] = self.team
        lut[1 << (1 - self.team)] = lut[3] = 1 - self.team
        self.occ_lut = lut
        self.flags_static = flags
        self.ice_code = ice_code
        self.in_pit = in_pit
        self.leave = leave
        self.pit_nodes = np.flatnonzero(self.p_in_pit)
        self.fits = fitp
        # which nodes cover each square (occupancy updates): CSR by square
        uu, cc = np.nonzero(foot < ns)
        sq = foot[uu, cc]
        order = np.argsort(sq, kind="stable")
        self.cover_idx = uu[order]
        self.cover_ptr = np.concatenate([[0], np.cumsum(np.bincount(sq, minlength=ns))])
        # coordinates: squares, town, then the other nodes in rows below the map
        e = np.arange(n - ns - 1, dtype=np.int64)
        wide = max(st.grid().W, 8)
        lo_y = min(st.lo, int(st.coords[:ns, 1].min()))
        extra = np.stack([int(st.coords[:ns, 0].min()) + e % wide, lo_y - 2 - e // wide],
                         axis=1).astype(T.INDEX)
        self.coords = np.concatenate([st.coords, extra])
        # ends sort by cost, then x, then y of the anchor, then orientation (own first)
        rxy = self.coords.astype(np.int64)
        turned = np.zeros(n, np.int64)
        if n_turn:
            rxy[ns + 1:ns + 1 + n_turn] = st.coords[:ns]
            turned[ns + 1:ns + 1 + n_turn] = 1
        rank = np.empty(n, np.int64)
        rank[np.lexsort((turned, rxy[:, 1], rxy[:, 0]))] = np.arange(n)
        rank = rank.astype(T.INDEX)
        self.rank = rank
        self.base = Board.graph(np.full((n, 1), -1, dtype=np.int32), coords=self.coords)
        self.mover = Mover(team=self.team, allies="pass",
                           enemies="pass" if fly else "block")
        self.links_cache: dict = {}     # door vector -> _Links
        self._last_links: _Links | None = None
        self._last_dv = None
        self._adjacent: dict = {}       # (size, anchor square) -> int64 nodes
        self._own: dict = {}            # anchor square -> nodes overlapping the base
        self._offsets: dict = {}        # (other size, base size) -> adjacent offsets

    def covering(self, squares) -> np.ndarray:
        """int64: the nodes whose base covers any of ``squares`` (square indices)."""
        p, idx = self.cover_ptr, self.cover_idx
        if len(squares) == 1:
            s = squares[0]
            return idx[p[s]:p[s + 1]]
        return np.concatenate([idx[p[s]:p[s + 1]] for s in squares])

    def _openers(self) -> dict:
        """``{node: doors}``: the doors each placement may open without stepping:
        those next to a square of its base ("located in a space adjacent to a door's
        closed position (including diagonals)", doors.php): within one square of both
        squares of one of the door's cell edges."""
        st = self.st
        index = st.index
        w, h = self.size
        openers: dict = {}
        for k, door in enumerate(st.dungeon.doors):
            near_door = {(x, y) for a, b in door.sides
                         for x in range(max(a[0], b[0]) - 1, min(a[0], b[0]) + 2)
                         for y in range(max(a[1], b[1]) - 1, min(a[1], b[1]) + 2)}
            for base, (bw, bh) in ((0, (w, h)), (self.turn_off, (h, w)))[:1 + self.turns]:
                for cx, cy in near_door:
                    for i in range(bw):
                        for j in range(bh):
                            a = index.get((cx - i, cy - j))
                            if a is not None and self.fitp[base + a]:
                                openers.setdefault(base + a, set()).add(k)
        return {u: frozenset(ds) for u, ds in openers.items()}

    def _base(self, st: _Static, rules, key):
        """Build the graph but its door memory, with numpy over the whole dungeon: the
        placements (``fitp``, per-node facts as arrays, ``straddle``), the links that
        involve no door as arrays ``vec = (u, v, cost)`` (their price never changes),
        and the links priced in game words as the step table ``slots`` with the doors
        each involves (those next to doors, stairs, glyphs). Returns (placements,
        slots, involved, turned count). Every memory radius of a kind shares it."""
        side, w, h, fly = key[:4]
        d = st.dungeon
        ns = st.ns
        grid = st.grid()
        W = grid.W
        walker = not fly
        walkable = _ON_BOARD if fly else _WALKABLE
        self.turns = D.turns_allowed((w, h), st.large_turns)
        self.turn_off = ns + 1
        n_turn = ns if self.turns else 0
        npl = ns + 1 + n_turn                      # squares, town, turned placements
        sizes = [(w, h), (h, w)][:1 + self.turns]
        self.dirs = {s: D.step_directions(s, st.hound_slides) for s in {(w, h), (h, w)}}
        fitp = np.zeros(npl, np.bool_)
        in_pit = np.zeros(npl, np.bool_)
        on_ice = np.zeros(npl, np.bool_)
        may_end = np.zeros(npl, np.bool_)
        jump = np.zeros(npl, np.bool_)
        has_door = np.zeros(npl, np.bool_)
        k = w * h
        pfoot = np.full((npl, k), ns, np.int64)
        cellpos: list = []                         # per orientation: int64[NS, k]
        trees: list = []                           # per orientation: bool[NS, k]
        straddle = _Sparse(frozenset())
        P0 = grid.pos
        for o, (bw, bh) in enumerate(sizes):
            base = o * self.turn_off
            offs = np.array([j * W + i for j in range(bh) for i in range(bw)], np.int64)
            cp = P0[:, None] + offs[None, :]
            code = grid.code[cp]
            fit = walkable[code].all(axis=1)
            inside = [P0 + j * W + i for j in range(bh) for i in range(bw - 1)]
            inside_d = [P0 + j * W + i for j in range(bh - 1) for i in range(bw)]
            for p in inside:
                fit &= ~grid.wr[p]
            for p in inside_d:
                fit &= ~grid.wd[p]
            doors = [grid.dr[p] for p in inside] + [grid.dd[p] for p in inside_d]
            if doors:
                dk = np.stack(doors, axis=1)
                hd = fit & (dk >= 0).any(axis=1)
                has_door[base:base + ns] = hd
                for s in np.flatnonzero(hd).tolist():
                    straddle[base + s] = frozenset(x for x in dk[s].tolist() if x >= 0)
            sl = slice(base, base + ns)
            fitp[sl] = fit
            pfoot[sl] = np.where(fit[:, None], grid.node[cp], ns)
            in_pit[sl] = walker & _IS_PIT[code].all(axis=1) & fit
            on_ice[sl] = walker & _IS_ICE[code].all(axis=1) & fit
            may_end[sl] = ~_IS_OBSTACLE[code].any(axis=1) & fit
            jump[sl] = _IS_JUMPABLE[code].all(axis=1) & fit
            cellpos.append(cp)
            trees.append(_IS_TREE[code] & walker)
        self.fitp, self.p_in_pit, self.p_on_ice, self.p_may_end = fitp, in_pit, on_ice, \
            may_end
        self.pfoot = pfoot
        self.facts = _Facts(self)
        self.straddle = straddle
        slots: list = []
        involved: list = []
        vec: list = []                             # (u, v, cost) arrays

        def emit(kind, u, v, dd, sq, inv, legal, cost):
            """Links u -> v: those that involve a door as slots, the rest as arrays."""
            for j in np.flatnonzero(inv).tolist():
                slots.append((kind, int(u[j]), int(v[j]), dd,
                              sq if not isinstance(sq, np.ndarray) else int(sq[j])))
                involved.append(None)              # filled below
            ok = ~inv & legal
            vec.append((u[ok], v[ok], np.broadcast_to(cost, u.shape)[ok]))

        def price(u, v, new_tree):
            """Steps and turns (D.Rules._price with no door): 1, a new tree square 2,
            climbing out of a pit 2 (3 into a tree)."""
            climb = in_pit[u] & ~in_pit[v]
            return np.where(climb, D.CLIMB_OUT_COST + new_tree, 1 + new_tree)

        nodes = np.arange(ns, dtype=np.int64)
        for o, (bw, bh) in enumerate(sizes):
            base = o * self.turn_off
            fit = fitp[base:base + ns]
            cp = cellpos[o]
            tr = trees[o]
            for dd in self.dirs[(bw, bh)]:
                dx, dy = dd
                vs = grid.node[P0 + dy * W + dx]
                u = nodes[fit & (vs >= 0)]
                v = vs[u]
                keep = fit[v]
                u, v = u[keep], v[keep]
                legal, doors = _cross(grid, cp[u], dx, dy, walkable, st.corner)
                new = np.array([not (0 <= i + dx < bw and 0 <= j + dy < bh)
                                for j in range(bh) for i in range(bw)])
                cost = price(base + u, base + v, tr[v][:, new].any(axis=1))
                inv = doors.any(axis=1) | has_door[base + u] | has_door[base + v]
                emit("step", base + u, base + v, dd, None, inv, legal.all(axis=1), cost)
        if self.turns:
            # a quarter turn into a turned placement within one square of the base that
            # overlaps it (D.turn_offsets; D.Rules.turn prices it)
            for o, (bw, bh) in enumerate(sizes):
                base, other = o * self.turn_off, (1 - o) * self.turn_off
                fit = fitp[base:base + ns]
                ofit = fitp[other:other + ns]
                for ox, oy in D.turn_offsets((bw, bh)):
                    old = D.footprint_cells((0, 0), (bw, bh))
                    newc = D.footprint_cells((ox, oy), (bh, bw))
                    vs = grid.node[P0 + oy * W + ox]
                    u = nodes[fit & (vs >= 0)]
                    v = vs[u]
                    keep = ofit[v]
                    u, v = u[keep], v[keep]
                    fresh = np.array([c not in old for c in newc])
                    cost = price(base + u, other + v, trees[1 - o][v][:, fresh].any(axis=1))
                    inv = has_door[base + u] | has_door[other + v]
                    if D.swept_sides(old, newc):    # (never: see D.swept_sides)
                        inv = np.ones_like(inv)
                    emit("turn", base + u, other + v, None, "turn", inv,
                         np.ones(len(u), np.bool_), cost)
        # jumps across pits (and ice): air(p, d) over each placement p wholly on
        # jumpable squares that lies on a run from a take-off to a landing along d
        air_foot: list = []
        self.air_off = air_off = npl
        one = (w, h) == (1, 1)
        if walker and (one or st.large_jumps):
            for o, (bw, bh) in enumerate(sizes):
                base = o * self.turn_off
                fit = fitp[base:base + ns]
                J = jump[base:base + ns]
                cp = cellpos[o]
                for dd in self.dirs[(bw, bh)]:
                    dx, dy = dd
                    sh = dy * W + dx
                    fwd = grid.node[P0 + sh]
                    bwd = grid.node[P0 - sh]
                    land = self._first_off(fwd, fit, J)
                    start = self._first_off(bwd, fit, J)
                    air = np.flatnonzero(J & (land >= 0) & (start >= 0))
                    if not len(air):
                        continue
                    ids = np.full(ns, -1, np.int64)
                    ids[air] = air_off + len(air_foot) + np.arange(len(air))
                    air_foot.extend((base + air).tolist())
                    # take-off: from the placement before the run's first square
                    prev = bwd[air]
                    first = (prev >= 0)
                    first[first] = ~J[prev[first]]
                    p = air[first]
                    u = prev[first]
                    self._jump_links(emit, grid, walkable, st, cp, has_door, "take_off",
                                     base + u, ids[p], dd, u, base, base + p,
                                     JUMP_TAKE_OFF)
                    # over: air to air while the run goes on; land: on the first
                    # placement off the jumpable squares
                    nxt = fwd[air]
                    on = J[nxt]
                    self._jump_links(emit, grid, walkable, st, cp, has_door, "over",
                                     ids[air[on]], ids[nxt[on]], dd, air[on], base,
                                     base + nxt[on], JUMP_OVER)
                    self._jump_links(emit, grid, walkable, st, cp, has_door, "land",
                                     ids[air[~on]], base + nxt[~on], dd, air[~on], base,
                                     base + nxt[~on], JUMP_LAND)
        index = st.index
        if one:
            for a, b in d.stairs:
                ia, ib = index[a], index[b]
                if fitp[ia] and fitp[ib]:
                    slots += [("fixed", ia, ib, None, D.STAIRS_COST),
                              ("fixed", ib, ia, None, D.STAIRS_COST)]
                    involved += [frozenset(), frozenset()]
        if side == "hero":
            for g in d.glyphs:
                ig = index[g]
                if fitp[ig]:
                    slots += [("fixed", ig, ns, None, D.TOWN_COST),
                              ("fixed", ns, ig, None, D.TOWN_COST)]
                    involved += [frozenset(), frozenset()]
        self.air_foot = np.array(air_foot, np.int64)
        self.n_air = len(air_foot)
        self.vec = tuple(np.concatenate([x[i] for x in vec]).astype(np.int32)
                         if vec else np.zeros(0, np.int32) for i in range(3))
        # doors each game-word slot involves
        for i, (kind, u, v, dd, sq) in enumerate(slots):
            if involved[i] is not None:
                continue
            if kind in ("step", "turn"):
                doors = set(straddle[u]) | straddle[v]
                if kind == "turn":
                    doors.update(self._swept_doors(u, v))
                for c in self.facts[u]["cells"] if kind == "step" else ():
                    for a, b in _sides_examined(c, dd):
                        k2 = d.door_of.get(D._side(a, b))
                        if k2 is not None:
                            doors.add(k2)
            else:          # a jump link: the sides the base crosses leaving placement
                into = int(self.air_foot[v - air_off]) if kind != "land" else v
                doors = set(straddle[sq]) | straddle[into]
                for c in self.facts[sq]["cells"]:
                    doors.update(k2 for k2 in (d.door_of.get(D._side(a, b)) for a, b in
                                               _sides_examined(c, dd)) if k2 is not None)
            involved[i] = frozenset(doors)
        place_nodes = np.flatnonzero(fitp)
        return place_nodes, slots, involved, n_turn

    def _swept_doors(self, u, v):
        d = self.st.dungeon
        return [d.door_of[D._side(a, b)] for a, b in D.swept_sides(
            self.facts[u]["cells"], self.facts[v]["cells"]) if D._side(a, b) in d.door_of]

    @staticmethod
    def _first_off(nxt, fit, J):
        """int64[NS]: for each square, following ``nxt`` (the next square along a
        direction, -1 off the board) over placements wholly on jumpable squares
        (``J``), the first placement that fits and is not jumpable, or -1 (a square
        that does not fit, or the board's edge, ends the run). Pointer jumping: log of
        the longest run numpy passes."""
        p = nxt.copy()
        ok = p >= 0
        ok[ok] = fit[p[ok]]
        p[~ok] = -1
        while True:
            go = p >= 0
            go[go] = J[p[go]]
            if not go.any():
                return p
            p[go] = p[p[go]]

    @staticmethod
    def _jump_links(emit, grid, walkable, st, cp, has_door, kind, u, v, dd, sq, base,
                    into, cost):
        """Jump links u -> v of ``kind`` (cost ``cost``): the base leaves placement
        ``base + sq`` (sq: square indices) along dd into placement ``into`` through no
        wall; a door on the way or under either base makes it a game-word slot (priced
        per door state)."""
        legal, doors = _cross(grid, cp[sq], dd[0], dd[1], walkable, st.corner)
        inv = doors.any(axis=1) | has_door[base + sq] | has_door[into]
        emit(kind, u, v, dd, base + sq, inv, legal.all(axis=1), cost)

    # ----------------------------------------------------------- door states
    def _place(self, u, dv):
        f = self.facts[u]
        if f is None:
            return None
        sd = self.straddle[u]
        if not sd:
            return f
        if any(dv[k] == SHUT for k in sd):
            return None
        return dict(f, straddled=frozenset(k for k in sd if dv[k] != OPEN))

    def _slot_result(self, i, rules, dv):
        kind, u, v, dd, sq = self.slots[i]
        if kind == "step":
            fu, fv = self._place(u, dv), self._place(v, dv)
            if fu is None or fv is None:
                return None
            return rules.step(fu, fv, dd)
        if kind == "fixed":
            return (sq, frozenset())
        if kind == "open":               # open door sq without stepping
            return (D.DOOR_COST, frozenset((sq,))) if dv[sq] == OPENABLE else None
        if kind == "mem":
            return self._mem_result(sq, rules, dv)
        if kind == "turn":
            fu, fv = self._place(u, dv), self._place(v, dv)
            return None if fu is None or fv is None else rules.turn(fu, fv)
        # a jump: the base leaves placement sq by dd, through no wall or closed door,
        # into and out of placements that straddle no closed door
        into = self.air_foot[v - self.air_off] if kind != "land" else v
        for p in (sq, into):
            if any(dv[k] != OPEN for k in self.straddle[p]):
                return None
        for c in self.facts[sq]["cells"]:
            crossed = rules.cell_step(c, dd)
            if crossed is None or crossed:
                return None    # no jumping through walls or closed doors
        cost = JUMP_TAKE_OFF if kind == "take_off" else \
            JUMP_OVER if kind == "over" else JUMP_LAND
        return (cost, frozenset())

    def _mem_result(self, sq, rules, dv, results=None):
        """A link of door memory: slot ``i``'s step from its source having opened the
        doors S on this move (S open for it), into its target keeping the doors S2
        (None: the plain target). ``results``: the slots' results under ``dv`` so far
        (a step that involves no door prices as the plain one)."""
        i, S, S2 = sq
        if results is not None and not self.involved[i]:
            return results[i]            # no door on the way: S stays as it was
        if S:                            # (S is a few doors: no pass over all of them)
            saved = rules.door_state
            words, opened = list(saved), list(dv)
            for k in S:
                words[k], opened[k] = "open", OPEN
            rules.door_state, dv = words, tuple(opened)
        res = self._slot_result(i, rules, dv)
        if S:
            rules.door_state = saved
        if res is None or S2 is None:
            return res
        return res if (S | res[1]) & self.near[self.slots[i][2]] == S2 else None

    def links(self, dv) -> _Links:
        """The graph under door vector ``dv`` (per door: OPEN, OPENABLE or SHUT for this
        kind), built from the last one built by recomputing only the slots that involve
        a door whose state differs."""
        got = self.links_cache.get(dv)
        if got is not None:
            return got
        with _STATIC_LOCK:
            return self._build_links(dv)

    def _build_links(self, dv) -> _Links:
        got = self.links_cache.get(dv)
        if got is not None:
            return got
        rules = self.rules
        rules.door_state = [_DOOR_WORDS[x] for x in dv]
        prev = self._last_links
        if prev is None:
            # the plain slots come first; the radius-0 graph has priced them already
            # under this door vector if it has answered under it
            g0 = self.base0.links_cache.get(dv) if self.base0 is not None else None
            results = g0.results[:self.n_base] if g0 is not None else []
            for i in range(len(results), len(self.slots)):
                slot = self.slots[i]
                results.append(self._mem_result(slot[4], rules, dv, results)
                               if slot[0] == "mem" else self._slot_result(i, rules, dv))
        else:
            changed = {k for k, (a, b) in enumerate(zip(dv, self._last_dv)) if a != b}
            results = list(prev.results)
            for i in self.dynamic:
                if self.involved[i] & changed:
                    results[i] = self._slot_result(i, rules, dv)
        rules.door_state = ["open"] * len(dv)
        steps: dict = {}
        for (kind, u, v, _, _), res in zip(self.slots, results):
            if res is None:
                continue
            old = steps.get((u, v))
            if old is None or res[0] < old[0]:
                steps[(u, v)] = res
        board = self._board(steps)
        pits = self.pit_nodes
        has_leave = bool(len(pits)) and (
            any(u not in self.straddle for u in pits.tolist()) or
            any(self._place(u, dv) is not None for u in pits.tolist()))
        out = _Links(board, steps, has_leave, self.leave if has_leave else None, results)
        self.links_cache[dv] = out
        self._last_links, self._last_dv = out, dv
        return out

    def _board(self, steps: dict) -> Board:
        """The packed board of the array links (``vec``) and the game-word ``steps``
        ((u, v) -> (cost, doors)): the least cost per (u, v), as a CSR link table."""
        vu, vv, vc = self.vec
        if steps:
            su = np.fromiter((u for u, _ in steps), np.int32, len(steps))
            sv = np.fromiter((v for _, v in steps), np.int32, len(steps))
            sc = np.fromiter((c for c, _ in steps.values()), np.int32, len(steps))
            vu, vv, vc = (np.concatenate(x) for x in ((vu, su), (vv, sv), (vc, sc)))
        n = self.n
        key = vu.astype(np.int64) * n + vv
        order = np.lexsort((vc, key))
        key = key[order]
        first = np.ones(len(key), np.bool_)
        first[1:] = key[1:] != key[:-1]
        # each node's links in the order they were made (steps in STEPS order, turns,
        # jumps, then the game-word ones): the kernel breaks ties by it
        order = np.sort(order[first])
        vu, vv, vc = vu[order], vv[order], vc[order]
        order = np.argsort(vu, kind="stable")
        vu, vv, vc = vu[order], vv[order], vc[order]
        if len(vc) and int(vc.max()) > T.MAX_COST:
            raise LimitError(f"a Descent link costs {int(vc.max())} MP; at most {T.MAX_COST}")
        ptr = np.zeros(n + 1, T.INDEX)
        np.cumsum(np.bincount(vu, minlength=n), out=ptr[1:])
        data = np.zeros((len(vu), 3), T.INDEX)
        data[:, 0] = vv
        data[:, 1] = vc
        return self.base._replace(link_ptr=ptr, link_data=data)

    def template(self, links: _Links, penalties: bool, occ, flags, pen,
                 cap: int = D.MAX_WOUNDS) -> Prepared:
        """The prepared kernel query of ``links`` (cached), to be bound to a position's
        layers with :meth:`Prepared.with_layers`; ``cap``: the most wounds it counts
        (see :func:`wound_cap`)."""
        p = links.prepared.get((penalties, cap))
        if p is None:
            p = prepare(links.board, self.mover, _TOP_BUDGET, occupant=occ,
                        cell_flags=flags,
                        enter_penalty=pen if penalties else None,
                        leave=links.leave if penalties else None,
                        max_penalty=cap if penalties else None)
            links.prepared[(penalties, cap)] = p
        return p

    # ----------------------------------------------------------- geometry
    def adjacent_nodes(self, size, anchor: int) -> np.ndarray:
        """Nodes (placements that fit) adjacent to a figure of ``size`` at square
        ``anchor``: some square of the base at Chebyshev distance exactly 1 from some
        square of the figure."""
        key = (size, anchor)
        got = self._adjacent.get(key)
        if got is not None:
            return got
        bx, by = self.st.squares[anchor]
        index = self.st.index
        nodes = []
        w, h = self.size
        for base, (w, h) in ((0, (w, h)), (self.turn_off, (h, w)))[:1 + self.turns]:
            offs = self._offsets.get((size, (w, h)))
            if offs is None:
                gw, gh = size
                offs = []
                for ox in range(-w - 1, gw + 2):
                    for oy in range(-h - 1, gh + 2):
                        if any(max(abs(ox + i - gi), abs(oy + j - gj)) == 1
                               for i in range(w) for j in range(h)
                               for gi in range(gw) for gj in range(gh)):
                            offs.append((ox, oy))
                self._offsets[(size, (w, h))] = offs
            for ox, oy in offs:
                u = index.get((bx + ox, by + oy))
                if u is not None and self.fits[base + u]:
                    nodes.append(base + u)
                    nodes.extend(self.mem_of.get(base + u, ()))
        got = self._adjacent[key] = np.array(sorted(nodes), dtype=np.int64)
        return got

    def own_nodes(self, anchor: int) -> tuple:
        """(nodes whose base overlaps the base of this kind at ``anchor``, the squares
        under them flattened, the squares of that base): a large mover's own layer."""
        got = self._own.get(anchor)
        if got is None:
            cells = self.foot[anchor]
            nodes = np.unique(self.covering([s for s in cells.tolist() if s < self.st.ns]))
            got = (nodes, np.ascontiguousarray(self.foot[nodes].ravel()), cells.copy())
            self._own[anchor] = got
        return got

    def occ_values(self, square_bits: np.ndarray, nodes: np.ndarray) -> np.ndarray:
        """Occupant layer values of ``nodes``: the other side if any square under the
        node holds an enemy, else this side if any holds a friend, else OCC_EMPTY
        (``square_bits``: uint8, 1 hero, 2 monster, 0 empty)."""
        if self.k == 1:
            return self.occ_lut[square_bits[self.foot0[nodes]]]
        return self.occ_lut[np.bitwise_or.reduce(square_bits[self.foot[nodes]], axis=1)]


# ----------------------------------------------------------------------------- kinds
class _KindState:
    """One position's layers for one kind of mover (the arrays its prepared queries
    read): occupant int32[n], flags uint8[n], pen (aura wounds) int32[n], and the count
    of adjacent enemy grapplers per node ``grip`` int32[n]. ``pen_nz`` and ``n_stop``
    count the nodes with wounds and with CELL_STOP; ``cur`` is the prepared query in use
    (``(Prepared, penalties)``; None: choose again)."""

    __slots__ = ("g", "dv", "links", "occ", "flags", "pen", "grip", "pen_nz", "pen_max",
                 "n_stop",
                 "bound", "cur", "pending", "pending_grip", "pen_dirty", "stale")

    def sync(self, square_bits) -> None:
        """Bring the layers up to date with the changes since the last query of this
        kind: the occupant layer over the squares changed (``pending``), the stop flags
        of the nodes whose grapple count changed (``pending_grip``), whether wounds are
        left anywhere (``pen_dirty``). O(nodes touched)."""
        g = self.g
        pend = self.pending
        if pend:
            nodes = g.covering(pend)
            self.occ[nodes] = g.occ_values(square_bits, nodes)
            pend.clear()
        grip = self.pending_grip
        if grip:
            nodes = grip[0] if len(grip) == 1 else np.concatenate(grip)
            self.flags[nodes] = g.flags_static[nodes] | np.where(
                self.grip[nodes] > 0, T.CELL_STOP, 0).astype(np.uint8)
            self.n_stop = int(np.count_nonzero(self.flags & T.CELL_STOP))
            grip.clear()
        if self.pen_dirty:
            nz = int(np.count_nonzero(self.pen))
            if (nz > 0) != (self.pen_nz > 0):
                self.cur = None      # the penalty kernel comes or goes
            self.pen_nz = nz
            self.pen_max = int(self.pen.max()) if nz else 0
            self.pen_dirty = False
        self.stale = False

    def copy(self) -> "_KindState":
        new = object.__new__(_KindState)
        new.pending = list(self.pending)
        new.pending_grip = list(self.pending_grip)
        new.pen_dirty, new.stale = self.pen_dirty, self.stale
        new.g, new.dv, new.links = self.g, self.dv, self.links
        new.occ, new.flags = self.occ.copy(), self.flags.copy()
        new.pen, new.grip = self.pen.copy(), self.grip.copy()
        new.pen_nz, new.pen_max, new.n_stop = self.pen_nz, self.pen_max, self.n_stop
        new.bound = {}
        new.cur = None
        return new

    def set_links(self, dv, links) -> None:
        self.dv, self.links, self.bound, self.cur = dv, links, {}, None

    def prepared(self, mp: int = _TOP_BUDGET) -> tuple[Prepared, bool]:
        """(the prepared query for a move of ``mp`` MP, whether it counts wounds)."""
        penalties = self.links.has_leave or self.pen_nz > 0
        cap = wound_cap(mp, self.pen_max) if penalties else 0
        cur = self.cur
        if cur is not None and cur[2] == cap:
            return cur[0], cur[1]
        p = self.bound.get(cap)
        if p is None:
            t = self.g.template(self.links, penalties, self.occ, self.flags, self.pen,
                                cap or D.MAX_WOUNDS)
            # (reads the position's own layers: a write to them is what it sees next)
            p = self.bound[cap] = t.with_layers(
                occupant=self.occ, cell_flags=self.flags,
                enter_penalty=self.pen if penalties else None)
        self.cur = (p, penalties, cap)
        return p, penalties


class _Columns(dict):
    """``Moves.columns`` of Descent, each int32[E] made on first read: ``left`` (MP
    left), ``wounds_cost``, ``in_pit`` (0/1) and ``doors_opened`` (a count; it needs
    each end's path)."""

    __slots__ = ("_moves",)
    NAMES = ("left", "wounds_cost", "in_pit", "doors_opened")

    def __init__(self, moves):
        dict.__init__(self, _COLUMNS)
        self._moves = moves

    def __getitem__(self, key):
        v = dict.__getitem__(self, key)
        if v is None:
            m = self._moves
            ex = m._extra
            if key == "left":
                v = (ex.mp - m.costs).astype(T.INDEX)
            elif key == "wounds_cost":
                v = m.costs if ex.wounds_cost is None else ex.wounds_cost
            elif key == "in_pit":
                v = ex.g.in_pit[m.actions]
            else:
                v = np.array([len(e["doors_opened"]) for e in m.to_dicts()], dtype=T.INDEX)
            dict.__setitem__(self, key, v)
        return v

    def get(self, key, default=None):
        return self[key] if key in self else default

    def values(self):
        return [self[k] for k in self]

    def items(self):
        return [(k, self[k]) for k in self]


_COLUMNS = dict.fromkeys(_Columns.NAMES)


class _Extra:
    """What ``to_dicts``, the columns and ``apply_move`` need of one answer: the kernel
    result (None for a batch answer), the graph, MP, paths wanted, the row of the kernel
    result of each end (``order``), the least-wound costs, the search tree as lists."""

    __slots__ = ("reach", "links", "g", "mp", "paths", "order", "wounds_cost", "tree")

    def __init__(self, reach, links, g, mp, paths, order, wounds_cost):
        self.reach, self.links, self.g, self.mp = reach, links, g, mp
        self.paths, self.order, self.wounds_cost, self.tree = paths, order, wounds_cost, None


# ----------------------------------------------------------------------------- position
@register_position("descent")
class Position(_Position):
    """A live Descent (1st edition) position: dungeon, doors, rune keys and figures.

    Build one with ``movecore.position(scenario)`` (its ``query`` is not used),
    ``Position.from_scenario(scenario)``, or from the game's objects:
    ``Position(read_board(spec), read_figures(items, dungeon), rune_keys=...)``.

    Query keys (those of the scenario ``query`` but ``figure``): ``action``
    (``run``/``advance``/``ready``/``battle``, heroes), ``fatigue``, ``mp``, ``paths``.
    A monster with no key moves its speed.

    Moves: ``actions`` are node ids: the anchor square's index in map order (the
    top-left square of a large monster; ``NS`` = the town), for every figure
    (``n_actions = NS + 1``; a monster that turns also has ``NS + 1 + s``, its base
    turned at square ``s``). ``costs`` MP, ``penalty`` wounds (aura, pit falls),
    ``stop`` codes: 1 ``"grapple"``, 2 ``"ice"``, 3 ``"grappled"`` (started next to a
    grappler: no MP may be spent). ``columns``: ``left`` (MP left), ``wounds_cost`` (least
    MP of a way with the least wounds), ``in_pit`` (0/1) and ``doors_opened`` (number of
    doors opened along the reported path; computed on first read).

    State changes: :meth:`apply_move` (a move through closed doors opens them),
    :meth:`remove_figure`, :meth:`add_figure`, :meth:`open_door`, :meth:`close_door`,
    :meth:`reveal`, :meth:`add_rune_key`.

    >>> import movecore as mc
    >>> pos = mc.position({"game": "descent", "board": {"width": 4, "height": 1,
    ...     "doors": [{"id": "d", "between": [[1, 0], [2, 0]]}]},
    ...     "figures": [{"id": "h", "side": "hero", "at": [0, 0], "speed": 4}]})
    >>> m = pos.legal_moves("h", action="advance")
    >>> m.coords.tolist(), m.costs.tolist()
    ([[0, 0], [1, 0], [2, 0]], [0, 1, 4])
    >>> m.columns["doors_opened"].tolist()
    [0, 0, 1]
    >>> pos.apply_move("h", (2, 0), action="advance")    # through the door: it opens
    >>> pos.door_is_open("d"), pos.where("h")
    (True, (2, 0))
    >>> pos.legal_moves("h", mp=2).costs.tolist()
    [0, 1, 1, 2]
    """

    STOP_REASONS = STOP_REASONS

    def __init__(self, dungeon: D.Dungeon, figures: list, *, rune_keys=(),
                 corner_cutting: bool = True, ice: str = "normal",
                 large_turns: str = "all", large_jumps: bool = False,
                 hound_slides: bool = False):
        """``figures``: :class:`movecore.games.descent.Hero` objects (see
        :func:`~movecore.games.descent.read_figures`, which checks their placement)."""
        if ice not in ("normal", "stop"):
            raise ScenarioError(f"options.ice must be 'normal' or 'stop'; got {ice!r}")
        if not isinstance(large_turns, str) or large_turns not in D.LARGE_TURNS:
            raise ScenarioError(f"options.large_turns must be one of {list(D.LARGE_TURNS)}"
                                f"; got {describe(large_turns)}")
        if not isinstance(large_jumps, (bool, np.bool_)):
            raise ScenarioError(f"options.large_jumps must be true or false; got "
                                f"{describe(large_jumps)}")
        if not isinstance(hound_slides, (bool, np.bool_)):
            raise ScenarioError(f"options.hound_slides must be true or false; got "
                                f"{describe(hound_slides)}")
        st = self.st = _static_for(dungeon, corner_cutting, ice, large_turns, large_jumps,
                                   hound_slides)
        self.rune_keys = frozenset(rune_keys)
        self.door_open = [door.open for door in dungeon.doors]
        self.door_unrevealed = [door.leads_to_unrevealed for door in dungeon.doors]
        self.ids: list = []
        self.index: dict = {}
        self.side: list = []      # 0 hero, 1 monster
        self.size: list = []      # (w, h)
        self.speed: list = []
        self.fly: list = []
        self.grapple: list = []
        self.aura: list = []
        self.anchor: list = []    # square index, -1 in town
        self.alive: list = []
        self.fkey: list = []      # kind key (side, w, h, fly)
        # per square: 1 hero, 2 monster, 0 empty; [NS] pads footprints, always empty
        self.square_bits = np.zeros(st.ns + 1, np.uint8)
        self.square_owner = np.full(st.ns + 1, -1, np.int64)
        # kind key -> _KindState: this position's layers per kind of mover. Shared with
        # copies until either changes or syncs them (copy on write: _own_kinds).
        self.kstate: dict = {}
        self._ks_shared = False
        self._figs_shared = False
        # queries sync the kinds' layers in place: one thread at a time per position
        self._lock = threading.RLock()
        self._dv = self._door_vectors()
        self._last: Moves | None = None
        self.version = 0
        for f in figures:
            self._append(f)

    def _append(self, f: D.Hero) -> None:
        self._own_figures()
        i = len(self.ids)
        self.ids.append(f.id)
        self.index[f.id] = i
        self.side.append(SIDE_CODE[f.side])
        self.size.append(tuple(f.size))
        self.speed.append(int(f.speed))
        self.fly.append(bool(f.fly))
        self.grapple.append(bool(f.grapple))
        self.aura.append(int(f.aura))
        self.anchor.append(-1)
        self.alive.append(True)
        self.fkey.append((f.side, f.size[0], f.size[1], bool(f.fly)))
        if f.anchor is not None:
            self._place(i, self.st.index[tuple(f.anchor)])

    # ---------------------------------------------------------------- construction
    @classmethod
    def from_scenario(cls, scenario: Mapping) -> "Position":
        """The position of a scenario dict (``query``, if any, is not used)."""
        scenario = expect_object(scenario, "scenario")
        expect_keys(scenario, "scenario", ("game", "board", "options", "party", "figures",
                                           "query"), required=("board", "figures"))
        return cls._from_parts(scenario)

    @classmethod
    def _from_parts(cls, scenario: Mapping) -> "Position":
        dungeon = D.read_board(scenario["board"])
        opts = expect_object(scenario.get("options", {}), "options")
        expect_keys(opts, "options", ("corner_cutting", "ice", "large_turns",
                                      "large_jumps", "hound_slides"))
        corner = get_bool(opts, "corner_cutting", "options", True)
        ice = get_str(opts, "ice", "options", ("normal", "stop"), "normal")
        turns = get_str(opts, "large_turns", "options", D.LARGE_TURNS, "all")
        jumps = get_bool(opts, "large_jumps", "options", False)
        slides = get_bool(opts, "hound_slides", "options", False)
        party = expect_object(scenario.get("party", {}), "party")
        expect_keys(party, "party", ("rune_keys",))
        keys = get_list(party, "rune_keys", "party", [])
        for k in keys:
            if not isinstance(k, str):
                raise ScenarioError(f"party.rune_keys must hold rune key names; got "
                                    f"{k!r:.60}")
        figures = D.read_figures(scenario["figures"], dungeon)
        return cls(dungeon, figures, rune_keys=keys, corner_cutting=corner, ice=ice,
                   large_turns=turns, large_jumps=jumps, hound_slides=slides)

    def copy(self) -> "Position":
        """An independent position: figure lists, door states and squares copied; the
        kinds' layers shared until either position changes (then copied); the dungeon,
        kind graphs, boards and prepared templates shared."""
        with self._lock:
            new = object.__new__(type(self))
            new.__dict__.update(self.__dict__)
            # what a move changes is copied; the figures' other lists (_FIGURE_LISTS)
            # are shared until either position changes one (_own_figures)
            new.anchor = list(self.anchor)
            new.alive = list(self.alive)
            new.door_open = list(self.door_open)
            new.door_unrevealed = list(self.door_unrevealed)
            new.square_bits = self.square_bits.copy()
            new.square_owner = self.square_owner.copy()
            self._ks_shared = new._ks_shared = True
            self._figs_shared = new._figs_shared = True
            new._lock = threading.RLock()
            new._last = None
            return new

    #: The figures' lists shared by copies until one changes (add_figure, a turn).
    _FIGURE_LISTS = ("ids", "side", "size", "speed", "fly", "grapple", "aura", "fkey")

    def _own_figures(self) -> None:
        """Before a figure list of ``_FIGURE_LISTS`` (or ``index``) changes: made this
        position's own if a copy shares them."""
        if self._figs_shared:
            for name in self._FIGURE_LISTS:
                setattr(self, name, list(getattr(self, name)))
            self.index = dict(self.index)
            self._figs_shared = False

    def _own_kinds(self) -> dict:
        """Before the kinds' layers change (a move, a door, a sync): made this
        position's own if a copy shares them. Returns ``{id(old): own}`` of what was
        copied."""
        if not self._ks_shared:
            return {}
        old = list(self.kstate.items())
        self.kstate = {k: s.copy() for k, s in old}
        self._ks_shared = False
        return {id(s): self.kstate[k] for k, s in old}

    def _sync(self, ks: _KindState) -> _KindState:
        """``ks`` up to date (this position's own first)."""
        if self._ks_shared:
            ks = self._own_kinds()[id(ks)]
        if ks.stale:
            ks.sync(self.square_bits)
        return ks

    def __getstate__(self) -> dict:
        """Pickled without the dungeon's graphs and prepared queries (compiled
        kernels): ``st`` is found again (or built) from the dungeon and options, the
        kinds' layers are made again when asked."""
        state = dict(self.__dict__)
        st = self.st
        state["st"] = (st.dungeon, st.corner, st.ice, st.large_turns, st.large_jumps,
                       st.hound_slides)
        state.update(kstate={}, _ks_shared=False, _figs_shared=False, _last=None)
        del state["_lock"]
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self.st = _static_for(*state["st"])
        self._lock = threading.RLock()

    # ---------------------------------------------------------------- figures
    @property
    def figures(self) -> list:
        """Ids of the figures in play, in scenario order (added ones last)."""
        return [fid for fid, a in zip(self.ids, self.alive) if a]

    def _fig(self, figure) -> int:
        i = self.index.get(figure_key(figure), -1)
        if i < 0 or not self.alive[i]:
            raise self._figure_error(figure)
        return i

    def side_of(self, figure) -> str:
        """``"hero"`` or ``"monster"``."""
        return D.SIDES[self.side[self._fig(figure)]]

    def where(self, figure):
        """The figure's square ``(x, y)`` (a large monster's top-left square), or
        ``"town"``."""
        a = self.anchor[self._fig(figure)]
        return D.TOWN if a < 0 else self.st.squares[a]

    def touching(self, figure) -> list:
        """Ids of the figures with a square next to (8 neighbours) a square of
        ``figure``'s base, in play order; none for a hero in town."""
        i = self._fig(figure)
        if self.anchor[i] < 0:
            return []
        squares = self.st.squares
        # the squares at distance 1 of the base (bases never overlap)
        near = {(x + dx, y + dy) for x, y in (squares[s] for s in self._squares(
            i, self.anchor[i])) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx or dy}
        out = []
        for j, fid in enumerate(self.ids):
            if j == i or not self.alive[j] or self.anchor[j] < 0:
                continue
            if any(squares[s] in near for s in self._squares(j, self.anchor[j])):
                out.append(fid)
        return out

    def _kind_key(self, i: int):
        return self.fkey[i]

    def _squares(self, i: int, anchor: int) -> list:
        if anchor < 0:
            return []
        if self.size[i] == (1, 1):
            return [anchor]
        key = (self.size[i], anchor)
        got = self.st.footprints.get(key)
        if got is None:
            idx = self.st.index
            got = self.st.footprints[key] = [
                idx[c] for c in D.footprint_cells(self.st.squares[anchor], self.size[i])]
        return got

    def _place(self, i: int, anchor: int) -> None:
        """Put figure i (off the board or in town) at ``anchor`` (-1 = town)."""
        self.anchor[i] = anchor
        sq = self._squares(i, anchor)
        if sq:
            self.square_bits[sq] = 1 << self.side[i]
            self.square_owner[sq] = i
        self._update_kinds(i, sq, -1, anchor)

    def _lift(self, i: int) -> list:
        """Take figure i off its squares (anchor kept); returns the squares."""
        sq = self._squares(i, self.anchor[i])
        if sq:
            self.square_bits[sq] = 0
            self.square_owner[sq] = -1
        return sq

    def _update_kinds(self, i: int, squares: list, old_anchor: int, new_anchor: int):
        """Every kind's layers after figure i's squares changed (``squares``: old and
        new, together) and, for a grappler or aura, its anchor moved."""
        gr, au = self.grapple[i], self.aura[i]
        size = self.size[i]
        self._own_kinds()
        for ks in self.kstate.values():
            g = ks.g
            if squares:
                ks.pending.extend(squares)       # the occupant layer: at the next query
                ks.stale = True
            if (gr or au) and g.team != self.side[i]:
                ks.stale = True
                for a, sign in ((old_anchor, -1), (new_anchor, 1)):
                    if a < 0:
                        continue
                    adj = g.adjacent_nodes(size, a)
                    if gr:
                        ks.grip[adj] += sign     # the stop flags: at the next query
                        ks.pending_grip.append(adj)
                    if au:
                        ks.pen[adj] += sign * au
                        ks.pen_dirty = True

    def _kind_state(self, i: int, radius: int = 0) -> _KindState:
        """Figure i's kind's layers for queries whose door memory reaches ``radius``."""
        key = self._kind_key(i) + (radius,)
        ks = self.kstate.get(key)
        if ks is None:
            ks = self.kstate[key] = self._new_kind_state(key)
        return ks

    def _new_kind_state(self, key) -> _KindState:
        g = self.st.kind(key)
        ks = object.__new__(_KindState)
        ks.g = g
        ks.dv = self._dv[g.team]
        ks.links = g.links(ks.dv)
        ks.occ = np.ascontiguousarray(g.occ_values(self.square_bits, np.arange(g.n)),
                                      dtype=T.INDEX)
        ks.grip = np.zeros(g.n, T.INDEX)
        ks.pen = np.zeros(g.n, T.INDEX)
        for j, alive in enumerate(self.alive):
            if not alive or self.anchor[j] < 0 or self.side[j] == g.team:
                continue
            if self.grapple[j]:
                ks.grip[g.adjacent_nodes(self.size[j], self.anchor[j])] += 1
            if self.aura[j]:
                ks.pen[g.adjacent_nodes(self.size[j], self.anchor[j])] += self.aura[j]
        ks.flags = g.flags_static | np.where(ks.grip > 0, T.CELL_STOP, 0).astype(np.uint8)
        ks.pen_nz = int(np.count_nonzero(ks.pen))
        ks.pen_max = int(ks.pen.max()) if ks.pen_nz else 0
        ks.n_stop = int(np.count_nonzero(ks.flags & T.CELL_STOP))
        ks.bound = {}
        ks.cur = None
        ks.pending, ks.pending_grip, ks.pen_dirty, ks.stale = [], [], False, False
        return ks

    def remove_figure(self, figure) -> None:
        """Take a figure out of play (killed): its squares are free from now on."""
        i = self._fig(figure)
        old = self.anchor[i]
        self._record(_unremove, i, old)
        sq = self._lift(i)
        self.alive[i] = False
        self.anchor[i] = -1
        self._update_kinds(i, sq, old, -1)
        self._last = None
        self._touch()

    def add_figure(self, figure, side: str | None = None, at=None, *, speed: int = 0,
                   footprint: str = "1x1", abilities=()) -> None:
        """Put a figure into play: ``figure`` is a scenario figure entry (a dict with
        ``id``, ``side``, ``at``, ...) or an id with the other arguments in the same
        words. The id must not be in play (a removed figure's id may come back). The
        base must fit on free squares, as in a scenario (:class:`PlacementError`).

        >>> import movecore as mc
        >>> pos = mc.position({"game": "descent", "board": {"width": 3, "height": 1},
        ...                    "figures": []})
        >>> pos.add_figure({"id": "m", "side": "monster", "at": [0, 0], "speed": 2})
        >>> pos.add_figure("h", "hero", [2, 0], speed=3)
        >>> pos.legal_moves("m").coords.tolist()
        [[0, 0], [1, 0]]
        """
        if isinstance(figure, Mapping):
            if side is not None or at is not None:
                raise QueryError("add_figure: give a figure entry or id/side/at, not both")
            entry = dict(figure)
        else:
            entry = {"id": figure, "side": side, "at": at, "speed": speed,
                     "footprint": footprint, "abilities": list(abilities)}
        from ...scenario import clean_scenario
        entry = clean_scenario(entry, "add_figure")   # as a scenario's: depth, text
        d = self.st.dungeon
        now = D.Dungeon(d.terrain, d.walls, [
            _replace(door, open=self.door_open[k], leads_to_unrevealed=self.door_unrevealed[k])
            for k, door in enumerate(d.doors)], d.door_of, d.stairs, d.glyphs)
        f = D.read_figures([entry], now)[0]     # placement checked as in a scenario
        fid = f.id
        i = self.index.get(fid, -1)
        if i >= 0 and self.alive[i]:
            raise PlacementError(f"add_figure: figure {fid!r} is already in play")
        anchor = -1
        if f.anchor is not None:
            anchor = self.st.index[tuple(f.anchor)]
            for c in f.cells:
                j = int(self.square_owner[self.st.index[c]])
                if j >= 0:
                    raise PlacementError(f"add_figure: {fid!r} would cover {list(c)}, "
                                         f"where {self.ids[j]!r} stands")
        self._record_snapshot()
        if i >= 0:       # a removed figure comes back: its slot is reused
            self._own_figures()
            self.side[i] = SIDE_CODE[f.side]
            self.size[i] = tuple(f.size)
            self.speed[i] = int(f.speed)
            self.fly[i] = bool(f.fly)
            self.grapple[i] = bool(f.grapple)
            self.aura[i] = int(f.aura)
            self.fkey[i] = (f.side, f.size[0], f.size[1], bool(f.fly))
            self.alive[i] = True
            self.anchor[i] = -1
            if anchor >= 0:
                self._place(i, anchor)
        else:
            self._append(f)
        self._last = None
        self._touch()

    # ---------------------------------------------------------------- doors and keys
    def _door_vectors(self) -> tuple:
        """Per side (0 hero, 1 monster): the door vector, per door OPEN, OPENABLE or
        SHUT for that side."""
        hero, monster = [], []
        for k, door in enumerate(self.st.dungeon.doors):
            if self.door_open[k]:
                hero.append(OPEN)
                monster.append(OPEN)
                continue
            hero.append(OPENABLE if door.rune is None or door.rune in self.rune_keys
                        else SHUT)
            monster.append(OPENABLE if door.rune is None and not self.door_unrevealed[k]
                           else SHUT)
        return (tuple(hero), tuple(monster))

    def _doors_changed(self) -> None:
        self._relink()
        self._last = None
        self._touch()

    def _relink(self) -> None:
        """Every kind's links after door states changed."""
        self._dv = self._door_vectors()
        self._own_kinds()
        for ks in self.kstate.values():
            dv = self._dv[ks.g.team]
            if dv != ks.dv:
                ks.set_links(dv, ks.g.links(dv))

    def _door(self, name) -> int:
        try:
            k = self.st.door_index.get(name, -1)
        except TypeError:
            k = -1
        if k < 0:
            raise QueryError(f"unknown door {describe(name)}; doors: "
                             f"{list(self.st.door_index)}")
        return k

    def door_is_open(self, name) -> bool:
        return self.door_open[self._door(name)]

    @property
    def doors(self) -> dict:
        """``{door id: "open" | "closed"}``."""
        return {door.id: "open" if self.door_open[k] else "closed"
                for k, door in enumerate(self.st.dungeon.doors)}

    def open_door(self, name) -> None:
        """Open a closed door (whoever opens it: the position does not charge the 2 MP;
        :meth:`apply_move` opens the doors its path crosses). An open door costs nothing
        to cross, for every figure, rune or not. :class:`IllegalMoveError` if it is
        already open."""
        k = self._door(name)
        if self.door_open[k]:
            raise IllegalMoveError(f"door {name!r} is already open")
        self._record_snapshot()
        self.door_open[k] = True
        self._doors_changed()

    def close_door(self, name) -> None:
        """Close an open door (rulebook: open or close for 2 MP from an adjacent square;
        the position does not charge it). :class:`IllegalMoveError` if it is already
        closed or a figure's base straddles it."""
        k = self._door(name)
        if not self.door_open[k]:
            raise IllegalMoveError(f"door {name!r} is already closed")
        sides = self.st.dungeon.doors[k].sides
        for i, alive in enumerate(self.alive):
            if alive and self.anchor[i] >= 0 and self.size[i] != (1, 1):
                cells = D.footprint_cells(self.st.squares[self.anchor[i]], self.size[i])
                if any(D._side(a, b) in sides for a, b in D._internal_sides(cells)):
                    raise IllegalMoveError(f"door {name!r} cannot close: "
                                           f"{self.ids[i]!r} stands across it")
        self._record_snapshot()
        self.door_open[k] = False
        self._doors_changed()

    def reveal(self, name) -> None:
        """The area behind door ``name`` is revealed: monsters may open it from now on
        (``leads_to_unrevealed`` becomes false). :class:`IllegalMoveError` if it was
        not marked as leading to an unrevealed area."""
        k = self._door(name)
        if not self.door_unrevealed[k]:
            raise IllegalMoveError(f"door {name!r} does not lead to an unrevealed area")
        self._record_snapshot()
        self.door_unrevealed[k] = False
        self._doors_changed()

    def add_rune_key(self, rune: str) -> None:
        """The party gains the rune key ``rune``: its heroes may open doors of that rune.
        :class:`IllegalMoveError` if the party holds it already."""
        if not isinstance(rune, str):
            raise QueryError(f"a rune key is a name (string); got {describe(rune)}")
        if rune in self.rune_keys:
            raise IllegalMoveError(f"the party already holds the {rune!r} rune key")
        self._record_snapshot()
        self.rune_keys = self.rune_keys | {rune}
        self._doors_changed()

    # ---------------------------------------------------------------- queries
    def _parse(self, i: int, query: Mapping) -> tuple[int, bool, int]:
        """(MP, paths, door-memory radius) of a query for figure i, cached per (side,
        speed, query)."""
        try:
            # the values' types are part of the key: True == 1 would otherwise answer
            # a bad query from a good one's entry
            key = (self.side[i], self.speed[i], tuple(query.items()),
                   tuple(map(type, query.values())))
            got = self.st.query_cache.get(key)
        except TypeError:      # an unhashable value: the slow path names it
            key, got = None, None
        if got is not None:
            return got
        for k in query:
            if k not in _QUERY_KEYS:
                raise QueryError(f"unknown query key {k!r}; expected one of "
                                 f"{sorted(_QUERY_KEYS)} (the figure is the first "
                                 f"argument)")
        hero = D.Hero(self.ids[i], D.SIDES[self.side[i]], None, self.speed[i], (1, 1))
        mp = D.movement_points(hero, query)
        paths = get_bool(query, "paths", "query", False)
        radius = min(memory_radius(mp), self.st.radius_cap) if self.st.dungeon.doors else 0
        got = (mp, paths, radius)
        if key is not None:
            if len(self.st.query_cache) > 4096:
                self.st.query_cache.clear()
            self.st.query_cache[key] = got
        return got

    @locked
    def legal_moves(self, figure, **query) -> Moves:
        """Every legal end of ``figure``'s move (cost order, then x, then y, as
        ``solve()`` lists them). ``query``: ``action``, ``fatigue``, ``mp``, ``paths``.

        >>> import movecore as mc
        >>> pos = mc.position({"game": "descent", "board": {"rows": [".p.."]},
        ...     "figures": [{"id": "h", "side": "hero", "at": [0, 0], "speed": 4}]})
        >>> m = pos.legal_moves("h", action="advance")
        >>> m.coords.tolist(), m.costs.tolist(), m.penalty.tolist()   # pit: 1 wound
        ([[0, 0], [1, 0], [2, 0], [3, 0]], [0, 1, 3, 4], [0, 1, 0, 0])
        """
        i = self.index.get(figure_key(figure), -1)
        if i < 0 or not self.alive[i]:
            raise self._figure_error(figure)
        try:
            mp, paths, radius = self.st.query_cache[(self.side[i], self.speed[i],
                                                     tuple(query.items()),
                                                     tuple(map(type, query.values())))]
        except (KeyError, TypeError):
            mp, paths, radius = self._parse(i, query)
        ks = self.kstate.get(self.fkey[i] + (radius,))
        if ks is None:
            ks = self._kind_state(i, radius)
        if ks.stale or (self._ks_shared and ks.g.large):   # (a large figure's query
            ks = self._sync(ks)                             # writes its layers)
        prep, penalties = ks.prepared(mp)
        g = ks.g
        anchor = self.anchor[i]
        grappled = anchor >= 0 and ks.grip[anchor] > 0
        start = anchor if anchor >= 0 else g.st.ns
        # the search tree only where a path is read: asked for, or doors on the way
        # (apply_move opens them, to_dicts lists them); a penalty query then runs lean
        tree = paths or bool(ks.links.door_steps)
        if g.large:
            r = self._reach_large(i, ks, prep, start, 0 if grappled else mp, tree)
        else:
            r = prep.reach(start, 0 if grappled else mp, paths=tree)
        if penalties:
            actions, costs, stop, penalty, wounds_cost, order = _sort_ends(
                r.cells, r.costs, g.rank, g.n, r.stopped if ks.n_stop else _NO_BOOL,
                ks.grip, g.ice_code, r.penalties, r.penalty_costs)
        elif not ks.n_stop and not grappled:
            # no stop, no penalty: stop codes and penalties all 0 (Moves makes them
            # when read), wounds_cost the costs (see _Columns)
            actions, costs, order = _sort_plain(r.cells, r.costs, g.rank, g.n)
            stop = penalty = wounds_cost = None
        else:
            actions, costs, stop, penalty, wounds_cost, order = _sort_ends(
                r.cells, r.costs, g.rank, g.n, r.stopped if ks.n_stop else _NO_BOOL,
                ks.grip, g.ice_code, _NO_INT, _NO_INT)
        if grappled:
            stop[0] = STOP_GRAPPLED
        m = Moves(self, figure, actions, costs, stop, penalty, None, query,
                  _Extra(r, ks.links, g, mp, paths, order, wounds_cost))
        m.columns = _Columns(m)
        self._last = m
        return m

    def _reach_large(self, i: int, ks: _KindState, prep: Prepared, start: int,
                     budget: int, paths: bool = True):
        """A large monster's query: the nodes over its own base are free for it (the
        layer says "a friend stands there" to every other figure of its kind)."""
        g = ks.g
        own, under, sq = g.own_nodes(start)
        occ = ks.occ
        saved = occ[own]
        bits = self.square_bits
        bits[sq] = 0
        occ[own] = g.occ_lut[np.bitwise_or.reduce(bits[under].reshape(-1, g.k), axis=1)]
        bits[sq] = 1 << self.side[i]
        try:
            return prep.reach(start, budget, paths=paths)
        finally:
            occ[own] = saved

    @locked
    def legal_moves_side(self, side, **query) -> dict:
        """``{id: Moves}`` for every figure of ``side`` (``"hero"`` or ``"monster"``),
        each as if it moved first. Figures of one kind (side, footprint 1x1, flying or
        not) whose query has no penalty layer (no pits for walkers, no enemy aura)
        share one batch kernel call; the others are asked one by one (large monsters
        leave their own squares for their own query; penalty queries need the
        single-query kernel)."""
        if side not in SIDE_CODE:
            raise QueryError(f"side must be 'hero' or 'monster'; got {describe(side)}")
        code = SIDE_CODE[side]
        members = [i for i, a in enumerate(self.alive) if a and self.side[i] == code]
        out: dict = {}
        groups: dict = {}
        for i in members:
            if self.size[i] == (1, 1):
                radius = self._parse(i, query)[2]
                groups.setdefault(self._kind_key(i) + (radius,), []).append(i)
        batched: dict = {}
        for key, idx in groups.items():
            if len(idx) < 2:
                continue
            mp_paths = [self._parse(i, query) for i in idx]
            if any(p for _, p, _ in mp_paths):
                continue
            ks = self._kind_state(idx[0], key[-1])
            if ks.stale:
                ks = self._sync(ks)
            prep, penalties = ks.prepared()
            if penalties:
                continue
            g = ks.g
            starts = np.array([g.st.ns if self.anchor[i] < 0 else self.anchor[i]
                               for i in idx], dtype=np.int64)
            grappled = np.array([self.anchor[i] >= 0 and ks.grip[self.anchor[i]] > 0
                                 for i in idx])
            budgets = np.array([0 if gr else mp for gr, (mp, _, _) in zip(grappled, mp_paths)],
                               dtype=np.int64)
            batch = prep.reach_many(starts, budgets, threads=1)
            keys = batch.costs.astype(np.int64) * g.n + g.rank[batch.cells]
            for k, i in enumerate(idx):
                lo, hi = batch.offsets[k], batch.offsets[k + 1]
                order = lo + np.argsort(keys[lo:hi], kind="stable")
                actions = batch.cells[order]
                costs = batch.costs[order]
                stopped = batch.stopped[order]
                stop = np.where(stopped, np.where(ks.grip[actions] > 0, STOP_GRAPPLE,
                                                  g.ice_code[actions]), 0).astype(np.int8)
                if grappled[k]:
                    stop[0] = STOP_GRAPPLED
                mp = mp_paths[k][0]
                m = Moves(self, self.ids[i], actions, costs, stop, None, None,
                          dict(query), _Extra(None, ks.links, g, mp, False, None, None))
                m.columns = _Columns(m)
                batched[i] = m
        for i in members:
            out[self.ids[i]] = batched[i] if i in batched else \
                self.legal_moves(self.ids[i], **query)
        return out

    def n_actions(self, figure) -> int:
        """Squares of the dungeon + 1 (the town); a monster that may turn (a two-square
        or 2x3 base, option ``large_turns``) has one more action per square:
        ``NS + 1 + s`` = its base turned, at square s."""
        i = self._fig(figure)
        if D.turns_allowed(self.size[i], self.st.large_turns):
            return self.st.kind(self._kind_key(i)).n_actions
        return self.st.ns + 1

    def action_of(self, figure, to) -> int:
        """The action id of ``to``: an action id, a square ``(x, y)`` (a large
        monster's top-left square, or the list of squares of its base) or ``"town"``."""
        i = self._fig(figure)
        st = self.st
        if isinstance(to, (int, np.integer)) and not isinstance(to, bool):
            top = self.n_actions(figure) - 1
            if not 0 <= to <= top:
                raise IllegalMoveError(f"action {to} is not in [0, {top}]")
            return int(to)
        if isinstance(to, str):
            if to != D.TOWN:
                raise IllegalMoveError(f"{describe(to)} is not a square or 'town'")
            return st.ns
        if isinstance(to, (list, tuple, np.ndarray)) and len(to) and \
                isinstance(to[0], (list, tuple, np.ndarray)):
            cells = [as_coord(_plain(c), "to") for c in to]
            anchor = (min(c[0] for c in cells), min(c[1] for c in cells))
            w, h = self.size[i]
            turns = D.turns_allowed((w, h), st.large_turns)
            turned = turns and sorted(cells) == sorted(D.footprint_cells(anchor, (h, w)))
            if not turned and sorted(cells) != sorted(D.footprint_cells(anchor, (w, h))):
                raise IllegalMoveError(f"{describe(to)} is not the base of "
                                       f"{self.ids[i]!r} ({w}x{h}"
                                       f"{', or turned' if turns else ''})")
            a = st.index.get(anchor)
            if turned and a is not None:
                return st.ns + 1 + a         # the turned base (see n_actions)
            to = anchor
        c = as_coord(_plain(to), "to")
        a = st.index.get(c)
        if a is None:
            raise IllegalMoveError(f"{list(c)} is not a square of the dungeon")
        return a

    def action_coords(self, figure, actions) -> np.ndarray:
        """int32[E, 2] squares (one-square figures; the town reads as its board
        coordinate, one left of and above the map's corner) or int32[E, k, 2] bases
        (large monsters)."""
        i = self._fig(figure)
        actions = check_actions(actions, self.n_actions(figure), figure)
        if self.size[i] == (1, 1):
            return self.st.coords[actions]
        g = self.st.kind(self._kind_key(i))
        return self.st.coords[g.foot[actions]]     # turned bases too

    def apply_move(self, figure, to, **query) -> None:
        """Move ``figure`` to the legal end ``to`` of the move ``query`` asks for; every
        closed door its path (the one ``to_dicts`` reports) opens stays open.
        :class:`IllegalMoveError` (position unchanged) if ``to`` is not a legal end."""
        i = self._fig(figure)
        m = self._last
        if m is None or m.version != self.version or m.figure != figure or \
                m.query != query or m._extra.reach is None:
            m = self.legal_moves(figure, **query)
        a = self.action_of(figure, to)
        rows = np.flatnonzero(m.actions == a)
        if rows.size == 0:
            raise IllegalMoveError(f"{describe(to)} is not a legal end of figure "
                                   f"{figure!r} in this position")
        row = int(rows[0])
        opened = []
        if m.costs[row] and m._extra.links.door_steps:
            path = self._end_path(m._extra, row, single=True)
            opened = [k for k in self._path_doors(m._extra, path) if not self.door_open[k]]
        if a > self.st.ns:
            self._record_snapshot()        # (a turned base: rare)
        else:
            self._record(_unmove, i, self.anchor[i], tuple(opened))
        for k in opened:
            self.door_open[k] = True
        if opened:
            self._relink()
        if a > self.st.ns:                   # a 2-square monster ends turned
            self._turn(i, a - self.st.ns - 1)
            return
        self._move(i, a if a < self.st.ns else -1)

    def _turn(self, i: int, anchor: int) -> None:
        """Figure i (a base that turns) ends turned at square ``anchor``: its size and
        kind swap (the other kind's graph has both orientations too)."""
        old = self.anchor[i]
        self._update_kinds(i, self._lift(i), old, -1)    # grapple/aura leave the old base
        w, h = self.size[i]
        self._own_figures()
        self.size[i] = (h, w)
        self.fkey[i] = (self.fkey[i][0], h, w, self.fkey[i][3])
        self._place(i, anchor)
        self._last = None
        self._touch()

    def non_move_actions(self, figure) -> dict:
        """``{"town": NS}`` for a hero (NS = the dungeon's squares: the id right after
        them): the glyph to town is an action, not a move on the board. ``Moves.mask``
        is False on it, ``Moves.non_moves`` has it when the hero may go to town now, and
        ``apply_move(hero, "town")`` (or the id) takes it. Monsters have none (a monster
        that turns never has the id NS: its turned bases are NS + 1 + s)."""
        i = self._fig(figure)
        return {D.TOWN: self.st.ns} if self.side[i] == 0 else {}

    def _move_actions(self, moves: Moves) -> np.ndarray:
        a = moves.actions
        return a[a != self.st.ns]

    def _non_moves(self, moves: Moves) -> dict:
        ns = self.st.ns
        return {D.TOWN: ns} if (moves.actions == ns).any() else {}

    def _key_parts(self) -> tuple:
        figs = [(self.ids[i], self.side[i], self.size[i], self.speed[i], self.fly[i],
                 self.grapple[i], self.aura[i], self.anchor[i])
                for i, a in enumerate(self.alive) if a]
        return (figs, self.door_open, self.door_unrevealed, sorted(self.rune_keys),
                self._rare_part())

    def _rare_state(self):
        """The dungeon and options (doors as built: their states are key parts)."""
        s = self.to_scenario()
        for door in s["board"].get("doors", ()):
            del door["open"], door["leads_to_unrevealed"]
        return s["board"], s["options"]

    def _move(self, i: int, anchor: int) -> None:
        old = self.anchor[i]
        sq = self._lift(i)
        self.anchor[i] = anchor
        new = self._squares(i, anchor)
        if new:
            self.square_bits[new] = 1 << self.side[i]
            self.square_owner[new] = i
        self._update_kinds(i, sq + new, old, anchor)
        self._last = None
        self._touch()

    @staticmethod
    def _end_path(ex: _Extra, row: int, least_penalty: bool | None = None,
                  single: bool = False) -> list:
        """The path (nodes, air nodes included) of the moves' ``row``-th end: by default
        the reported one, the cheapest with the fewest wounds among the cheapest."""
        if ex.tree is None and single:
            # one path (apply_move): walk the arrays, do not convert the whole tree
            r = ex.reach
            j = int(ex.order[row])
            return r.path_nodes(j, r.penalty_costs[j] == r.costs[j])
        if ex.tree is None:       # the search tree as lists, once per answer
            r = ex.reach
            tree = r.tree
            ex.tree = (tree[:, 0].tolist(), tree[:, 3].tolist(), r.tree_rows.tolist(),
                       r.penalty_costs.tolist(), r.costs.tolist())
        cell, parent, tree_of, pcost, cost = ex.tree
        j = int(ex.order[row])
        if least_penalty is None:
            least_penalty = pcost[j] == cost[j]
        t = tree_of[j][1 if least_penalty else 0]
        out = []
        while t >= 0:
            out.append(cell[t])
            t = parent[t]
        out.reverse()
        return out

    def _path_doors(self, ex: _Extra, path: list) -> list:
        out: list = []
        door_steps = ex.links.door_steps
        if not door_steps:
            return out
        for u, v in zip(path, path[1:]):
            for k in door_steps.get((u, v), ()):
                if k not in out:
                    out.append(k)
        return out

    def _end_dicts(self, moves: Moves) -> list[dict]:
        ex = moves._extra
        if ex.reach is None:   # a batch answer: ask again (same position) for the paths
            if moves.stale:
                raise QueryError("these moves came from a batch and the position has "
                                 "changed since: ask legal_moves again for their paths")
            ex = self.legal_moves(moves.figure, **moves.query)._extra
            moves._extra = ex
        g = ex.g
        st = g.st
        doors = st.dungeon.doors
        ends = []
        stops = moves.stop.tolist()
        need_path = ex.paths or bool(ex.links.door_steps)   # (else no tree was kept)
        for row, (node, cost, wounds, wcost, pit, sc) in enumerate(zip(
                moves.actions.tolist(), moves.costs.tolist(), moves.penalty.tolist(),
                moves.columns["wounds_cost"].tolist(), moves.columns["in_pit"].tolist(),
                stops)):
            path = self._end_path(ex, row) if need_path else []
            e: dict = {"at": self._node_word(st, g.anchor_of[node])}
            if g.large:
                e["cells"] = [list(c) for c in g.facts[node]["cells"]]
            e["cost"] = cost
            e["left"] = ex.mp - cost
            e["wounds"] = wounds
            e["wounds_cost"] = wcost
            e["doors_opened"] = [doors[k].id for k in self._path_doors(ex, path)]
            e["stop"] = STOP_REASONS[sc]
            e["in_pit"] = bool(pit)
            if ex.paths:
                at = g.anchor_of            # anchors (turned, door memory); -1: air
                e["path"] = [self._node_word(st, at[x]) for x in path if at[x] >= 0]
                wp = self._end_path(ex, row, least_penalty=True)
                e["wounds_path"] = [self._node_word(st, at[x]) for x in wp if at[x] >= 0]
            ends.append(e)
        return ends

    @staticmethod
    def _node_word(st: _Static, node: int):
        return D.TOWN if node == st.ns else list(st.squares[node])

    # ---------------------------------------------------------------- scenario form
    def to_scenario(self, query: Mapping | None = None) -> dict:
        """The scenario of this position: ``movecore.solve()`` of it answers exactly as
        this position (doors, rune keys and figures as they are now)."""
        st = self.st
        d = st.dungeon
        xs = [c[0] for c in st.squares]
        ys = [c[1] for c in st.squares]
        rows = []
        for y in range(max(ys) + 1):
            rows.append("".join(_CHAR_OF[d.terrain[(x, y)]] if (x, y) in d.terrain
                                else "#" for x in range(max(xs) + 1)))
        board: dict = {"rows": rows}
        if min(xs) < 0 or min(ys) < 0:     # rows start at [0, 0]: the common cells form
            board = {"cells": [{"at": [x, y], **({"terrain": d.terrain[(x, y)]}
                                                if d.terrain[(x, y)] != "floor" else {})}
                               for x, y in sorted(d.terrain, key=lambda c: (c[1], c[0]))]}
        if d.walls:
            board["walls"] = [[list(a), list(b)] for a, b in sorted(d.walls)]
        if d.doors:
            board["doors"] = [
                {"id": door.id, "sides": [[list(a), list(b)] for a, b in sorted(door.sides)],
                 "open": self.door_open[k], "rune": door.rune,
                 "leads_to_unrevealed": self.door_unrevealed[k]}
                for k, door in enumerate(d.doors)]
        if d.stairs:
            board["stairs"] = [[list(a), list(b)] for a, b in d.stairs]
        if d.glyphs:
            board["glyphs"] = [list(c) for c in d.glyphs]
        figures = []
        for i, fid in enumerate(self.ids):
            if not self.alive[i]:
                continue
            a = self.anchor[i]
            f = {"id": fid, "side": D.SIDES[self.side[i]],
                 "at": D.TOWN if a < 0 else list(st.squares[a]), "speed": self.speed[i]}
            if self.size[i] != (1, 1):
                f["footprint"] = f"{self.size[i][0]}x{self.size[i][1]}"
            ab: list = []
            if self.grapple[i]:
                ab.append("grapple")
            if self.aura[i]:
                ab.append({"aura": self.aura[i]})
            if self.fly[i]:
                ab.append("fly")
            if ab:
                f["abilities"] = ab
            figures.append(f)
        s = {"game": "descent", "board": board,
             "options": {"corner_cutting": st.corner, "ice": st.ice,
                         "large_turns": st.large_turns, "large_jumps": st.large_jumps,
                         "hound_slides": st.hound_slides},
             "party": {"rune_keys": sorted(self.rune_keys)}, "figures": figures}
        if query is not None:
            s["query"] = _copy.deepcopy(dict(query))
        return s

    def solve(self, query: Mapping) -> dict:
        """``movecore.solve()``'s result for a query dict in the game's words
        (``{"figure": id, "action": ..., "paths": ...}``)."""
        query = expect_object(query, "query")
        expect_keys(query, "query", ("figure",) + _QUERY_KEYS, required=("figure",))
        fid = query["figure"]
        i = self.index.get(figure_key(fid), -1)
        if i < 0 or not self.alive[i]:
            raise QueryError(f"query.figure names {fid!r}, which is not in the scenario; "
                             f"known figures: {self.figures}")
        q = {k: v for k, v in query.items() if k != "figure"}
        m = self.legal_moves(fid, **q)
        return {"figure": fid, "mp": m._extra.mp, "ends": m.to_dicts()}


def _plain(c):
    """A coordinate given as a NumPy array or with NumPy integers, as Python values (a
    float stays a float, for :func:`as_coord` to refuse: ``int(1.5)`` would be 1)."""
    if isinstance(c, np.ndarray):
        return c.tolist()
    if isinstance(c, (list, tuple)):
        return [int(v) if isinstance(v, np.integer) else v for v in c]
    return c


# ------------------------------------------------------------------ undo entries
def _unmove(pos: Position, i: int, anchor: int, opened: tuple = ()) -> None:
    """Figure i back to ``anchor`` (-1: town), the doors its path opened closed again: a
    move (not a turn) taken back, by the same incremental update as the move."""
    if opened:
        for k in opened:
            pos.door_open[k] = False
        pos._relink()
    old = pos.anchor[i]
    sq = pos._lift(i)
    pos.anchor[i] = anchor
    new = pos._squares(i, anchor)
    if new:
        pos.square_bits[new] = 1 << pos.side[i]
        pos.square_owner[new] = i
    pos._update_kinds(i, sq + new, old, anchor)
    pos._last = None


def _unremove(pos: Position, i: int, anchor: int) -> None:
    pos.alive[i] = True
    pos.anchor[i] = -1
    if anchor >= 0:
        pos._place(i, anchor)
    pos._last = None
