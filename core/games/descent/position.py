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

from ...board import Board, Link
from ...errors import (IllegalMoveError, LimitError, PlacementError, QueryError,
                      ScenarioError, describe)
from ...kernels import _types as T
from ...mover import Mover
from ...position import Moves, locked, register_position
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
                 large_turns: str = "all", large_jumps: bool = False):
        self.dungeon = dungeon
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
                large_jumps: bool = False):
    """Everything of a dungeon the graphs depend on (not whether doors are open or lead
    to unrevealed areas: those are the position's)."""
    return (tuple(dungeon.terrain.items()), frozenset(dungeon.walls),
            tuple((door.id, door.sides, door.rune) for door in dungeon.doors),
            tuple(dungeon.stairs), tuple(dungeon.glyphs), bool(corner), ice, large_turns,
            bool(large_jumps))


def _static_for(dungeon: D.Dungeon, corner: bool, ice: str,
                large_turns: str = "all", large_jumps: bool = False) -> _Static:
    key = _static_key(dungeon, corner, ice, large_turns, large_jumps)
    with _STATIC_LOCK:
        st = _STATICS.pop(key, None)
        if st is None:
            st = _Static(dungeon, corner, ice, large_turns, large_jumps)
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


def _memory_reach(n: int, slots: list, involved: list, radius: int) -> dict:
    """``{node: doors}``: the doors whose memory node ``node`` keeps, those within
    ``radius`` links of a node next to the door (an end of a link that involves it),
    links taken both ways (a lower bound of the distance either way)."""
    adj: list = [[] for _ in range(n)]
    seeds: dict = {}
    for (_, u, v, _, _), inv in zip(slots, involved):
        adj[u].append(v)
        adj[v].append(u)
        for d in inv:
            seeds.setdefault(d, set()).update((u, v))
    near: dict = {}
    for d, nodes in seeds.items():
        seen = set(nodes)
        frontier = list(nodes)
        for _ in range(radius):
            nxt = {v for u in frontier for v in adj[u]} - seen
            seen |= nxt
            frontier = nxt
        for u in seen:
            near.setdefault(u, set()).add(d)
    return {u: frozenset(ds) for u, ds in near.items()}


def _subsets(doors: frozenset, most: int = 1 << 30) -> list:
    """The non-empty subsets of ``doors`` of at most ``most`` doors (frozensets,
    smallest first)."""
    ds = sorted(doors)
    return [frozenset(c) for r in range(1, min(len(ds), most) + 1)
            for c in itertools.combinations(ds, r)]


#: Most door-memory nodes one kind's graph may hold (see _KindGraph).
MEMORY_NODES_MAX = 250_000


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
            for name in ("turns", "turn_off", "facts", "straddle", "air_off", "air_foot",
                         "n_air"):
                setattr(self, name, getattr(g0, name))
            place_nodes, n_turn = g0.place_nodes, g0.n_turn
            slots, involved = g0.slots[:g0.n_base], g0.involved[:g0.n_base]
        else:
            place_nodes, slots, involved, n_turn = self._base(st, rules, key)
        self.place_nodes, self.n_turn, self.n_base = place_nodes, n_turn, len(slots)
        self.slots = slots
        facts, air_foot, air_off = self.facts, self.air_foot, self.air_off
        n = self.n = ns + 1 + self.n_air + n_turn
        # Door memory: a door opened during a move stays open for the rest of it. Node
        # mem(u, S) is "at node u having opened the doors S on this move" (S: doors
        # ``near`` u, see _memory_reach). It is never an end: every link into it has a
        # twin of the same price into the plain node u (directly, or through the twin
        # of an earlier link), so the plain nodes keep the least costs and the memory
        # only makes later steps through S free.
        near = _memory_reach(n, slots, involved, self.mem_radius)
        # a move of the MP this radius serves (mp <= 2 radius + 5) opens at most
        # radius + 2 doors: each costs 2 MP beside a step of 1 MP or more
        most = self.mem_radius + 2
        count = sum(sum(math.comb(len(ds), r) for r in range(1, min(len(ds), most) + 1))
                    for ds in near.values())
        if count > MEMORY_NODES_MAX:
            raise LimitError(
                f"a move of this many MP keeps the memory of up to {most} opened doors "
                f"over {count} graph nodes (limit {MEMORY_NODES_MAX}): too many doors "
                f"within {self.mem_radius} steps of each other; ask with fewer MP")
        mem: dict = {}                   # (node, doors) -> memory node
        mem_base: list = []
        for u in sorted(near):
            for S in _subsets(near[u], most):
                mem[(u, S)] = n + len(mem_base)
                mem_base.append(u)
        self.near = near
        sets_of: dict = {}
        for (u, S) in mem:
            sets_of.setdefault(u, []).append(S)
        no_doors = frozenset()
        for i in range(len(slots)):
            kind, u, v, dd, sq = slots[i]
            inv = involved[i]
            near_v = near.get(v, no_doors)
            if inv:                      # doors this step opens that v stays near
                for X in _subsets(inv & near_v, most):
                    slots.append(("mem", u, mem[(v, X)], dd, (i, no_doors, X)))
                    involved.append(inv)
            for S in sets_of.get(u, ()):
                src = mem[(u, S)]
                free = inv - S           # S is open for this move: only these can change
                if inv:                  # twin: the memory of S dropped at v
                    slots.append(("mem", src, v, dd, (i, S, None)))
                    involved.append(free)
                keep = S & near_v
                for X in [no_doors] + _subsets(free & near_v, most - len(keep)):
                    if keep | X:
                        slots.append(("mem", src, mem[(v, keep | X)], dd, (i, S, keep | X)))
                        involved.append(free)
        self.n_mem = len(mem_base)
        n = self.n = n + self.n_mem
        self.mem_of: dict = {}           # node -> its memory nodes
        for (u, _), m in mem.items():
            self.mem_of.setdefault(u, []).append(m)
        self.involved = involved
        self.dynamic = [i for i, s in enumerate(involved) if s]
        # per-node arrays
        k = w * h
        foot = np.full((n, k), ns, dtype=np.int64)
        flags = np.zeros(n, np.uint8)
        ice_code = np.zeros(n, np.int8)
        in_pit = np.zeros(n, T.INDEX)
        leave = np.ones(n, np.uint64)
        pit_nodes = []
        for u in place_nodes:
            f = facts[u]
            foot[u] = [index[c] for c in f["cells"]]
            if not f["may_end"]:
                flags[u] |= T.CELL_NO_END
            if rules.ice_stops and f["on_ice"]:
                flags[u] |= T.CELL_STOP
                ice_code[u] = STOP_ICE
            if f["in_pit"]:
                in_pit[u] = 1
                leave[u] = 0
                pit_nodes.append(u)
        for j, p in enumerate(air_foot):
            foot[air_off + j] = foot[p]
            flags[air_off + j] = T.CELL_NO_END
        mem0 = n - self.n_mem
        for j, u in enumerate(mem_base):
            m = mem0 + j
            foot[m], ice_code[m], in_pit[m], leave[m] = foot[u], ice_code[u], in_pit[u], leave[u]
            flags[m] = flags[u] | T.CELL_NO_END
        # node -> the square its path and end read as (the anchor; the town; -1: air)
        anchor_of = np.arange(n)
        anchor_of[ns + 1:air_off] -= self.turn_off
        anchor_of[air_off:mem0] = -1
        anchor_of[mem0:] = anchor_of[np.array(mem_base, dtype=np.int64)]
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
        self.pit_nodes = pit_nodes
        self.fits = np.zeros(n, np.bool_)
        self.fits[place_nodes] = True
        # which nodes cover each square (occupancy updates)
        cover: list = [[] for _ in range(ns)]
        for u in range(n):
            for s in foot[u]:
                if s < ns and (u >= ns or facts[u] is not None):
                    cover[s].append(u)
        self.cover = [np.array(c, dtype=np.int64) for c in cover]
        # coordinates: squares, town, air nodes on a row below the map's corner
        air_xy = [(st.lo + j, st.lo - 4) for j in range(n_turn)] + \
            [(st.lo + j, st.lo - 2) for j in range(self.n_air)] + \
            [(st.lo + j, st.lo - 3) for j in range(self.n_mem)]
        self.coords = np.concatenate([st.coords, np.array(air_xy, dtype=T.INDEX).reshape(
            -1, 2)]) if air_xy else st.coords
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

    def _base(self, st: _Static, rules, key):
        """Build the graph but its door memory: the placements (``facts``,
        ``straddle``, turned ones), the step table ``slots`` and the doors each slot
        involves; returns (placements, slots, involved, turned count). Every memory
        radius of a kind has the same (see __init__)."""
        side, w, h, fly = key[:4]
        d = st.dungeon
        ns = st.ns
        # placements with every door open (door states only straddle or forbid). A base
        # that turns (a hell hound, a dragon: D.turns_allowed) also stands turned: node
        # ns + 1 + s is the base of size (h, w) at square s (``turn_off`` = ns + 1; the
        # air nodes of large jumps come after these).
        self.turns = D.turns_allowed((w, h), st.large_turns)
        self.turn_off = ns + 1
        n_turn = ns if self.turns else 0
        facts: list = [None] * (ns + 1 + n_turn)
        straddle: list = [frozenset()] * (ns + 1 + n_turn)
        place_nodes: list = []           # (node, size) of every placement that fits
        for base, size in ((0, (w, h)), (self.turn_off, (h, w)))[:1 + self.turns]:
            for i, c in enumerate(st.squares):
                p = rules.placement(c, size)
                if p is None:
                    continue
                facts[base + i] = p
                place_nodes.append(base + i)
                straddle[base + i] = frozenset(
                    d.door_of[D._side(a, b)] for a, b in D._internal_sides(p["cells"])
                    if D._side(a, b) in d.door_of)
        self.facts = facts
        self.straddle = straddle
        # slots: (kind, u, v, d, square) in the insertion order of the step table
        slots: list = []
        index = st.index
        for u in place_nodes:
            base = u - u % self.turn_off if u > ns else 0
            ax, ay = st.squares[u - base]
            for dd in D.STEPS:
                v = index.get((ax + dd[0], ay + dd[1]))
                if v is not None and facts[base + v] is not None:
                    slots.append(("step", u, base + v, dd, None))
        if self.turns:
            # a quarter turn into a turned placement within one square of the base that
            # overlaps it (D.turn_offsets; D.Rules.turn prices it)
            offsets = {(w, h): D.turn_offsets((w, h)), (h, w): D.turn_offsets((h, w))}
            for u in place_nodes:
                turned = u > ns
                other, size = (0, (h, w)) if turned else (self.turn_off, (w, h))
                ax, ay = st.squares[u - self.turn_off if turned else u]
                for ox, oy in offsets[size]:
                    v = index.get((ax + ox, ay + oy))
                    if v is not None and facts[other + v] is not None:
                        slots.append(("turn", u, other + v, None, "turn"))
        air: dict = {}                   # (placement, direction) -> air node
        air_foot: list = []              # air node -> the placement it is over
        self.air_off = air_off = ns + 1 + n_turn     # the first air node
        one = (w, h) == (1, 1)
        if not fly and (one or st.large_jumps):      # jumps across pits (and ice)
            chain_slots = []
            for u in place_nodes:
                if self._on_jumpable(u):
                    continue
                for dd in D.STEPS:
                    run = self._jump_run(u, dd)
                    if run is None:
                        continue
                    over, land = run
                    nodes = []
                    for p in over:
                        k = (p, dd)
                        if k not in air:
                            air[k] = air_off + len(air_foot)
                            air_foot.append(p)
                        nodes.append(air[k])
                    # slot square: the placement the base leaves on that link
                    slots.append(("take_off", u, nodes[0], dd, u))
                    for a, b, p in zip(nodes, nodes[1:], over):
                        chain_slots.append(("over", a, b, dd, p))
                    chain_slots.append(("land", nodes[-1], land, dd, over[-1]))
            seen = set()
            for s in chain_slots:       # runs share their tails: each link once
                if (s[1], s[2]) not in seen:
                    seen.add((s[1], s[2]))
                    slots.append(s)
        if one:
            for a, b in d.stairs:
                ia, ib = index[a], index[b]
                if facts[ia] is not None and facts[ib] is not None:
                    slots.append(("fixed", ia, ib, None, D.STAIRS_COST))
                    slots.append(("fixed", ib, ia, None, D.STAIRS_COST))
        if side == "hero":
            for g in d.glyphs:
                ig = index[g]
                if facts[ig] is not None:
                    slots.append(("fixed", ig, ns, None, D.TOWN_COST))
                    slots.append(("fixed", ns, ig, None, D.TOWN_COST))
        self.air_foot = air_foot
        self.n_air = len(air_foot)
        # doors each slot involves (empty: its price never changes)
        involved = []
        for kind, u, v, dd, sq in slots:
            if kind in ("step", "turn"):
                doors = set(straddle[u]) | straddle[v]
                if kind == "turn":      # the sides both bases sweep (D.Rules.turn)
                    doors.update(d.door_of[D._side(a, b)] for a, b in D.swept_sides(
                        facts[u]["cells"], facts[v]["cells"]) if D._side(a, b) in d.door_of)
                for c in facts[u]["cells"] if kind == "step" else ():
                    for a, b in _sides_examined(c, dd):
                        k = d.door_of.get(D._side(a, b))
                        if k is not None:
                            doors.add(k)
                involved.append(frozenset(doors))
            elif kind == "fixed":
                involved.append(frozenset())
            else:          # a jump link: the sides the base crosses leaving placement
                into = air_foot[v - air_off] if kind != "land" else v   # sq, straddles
                doors = set(straddle[sq]) | straddle[into]
                for c in facts[sq]["cells"]:
                    doors.update(k for k in (d.door_of.get(D._side(a, b)) for a, b in
                                             _sides_examined(c, dd)) if k is not None)
                involved.append(frozenset(doors))
        return place_nodes, slots, involved, n_turn

    def _on_jumpable(self, u) -> bool:
        """Placement u lies wholly on jumpable squares (pit, ice)."""
        terrain = self.st.dungeon.terrain
        return all(terrain[c] in D.JUMPABLE for c in self.facts[u]["cells"])

    def _jump_run(self, u, dd):
        """The placements wholly on jumpable squares that a jump from placement u along
        dd crosses (the base keeps its orientation) and the landing placement, or None
        (terrain only: walls, doors and enemies are checked per state)."""
        st = self.st
        base = self.turn_off if u > st.ns else 0
        x, y = st.squares[u - base]
        over = []
        while True:
            x, y = x + dd[0], y + dd[1]
            s = st.index.get((x, y))
            if s is None or self.facts[base + s] is None:
                return None
            if self._on_jumpable(base + s):
                over.append(base + s)
                continue
            return (over, base + s) if over else None

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
        if S:
            saved = rules.door_state
            dv = tuple(OPEN if k in S else x for k, x in enumerate(dv))
            rules.door_state = [_DOOR_WORDS[x] for x in dv]
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
        links = [Link(u, v, c, 0, False) for (u, v), (c, _) in steps.items()]
        board = self.base.with_links(links, replace=True)
        has_leave = any(self._place(u, dv) is not None for u in self.pit_nodes)
        out = _Links(board, steps, has_leave, self.leave if has_leave else None, results)
        self.links_cache[dv] = out
        self._last_links, self._last_dv = out, dv
        return out

    def template(self, links: _Links, penalties: bool, occ, flags, pen) -> Prepared:
        """The prepared kernel query of ``links`` (cached), to be bound to a position's
        layers with :meth:`Prepared.with_layers`."""
        p = links.prepared.get(penalties)
        if p is None:
            p = prepare(links.board, self.mover, _TOP_BUDGET, occupant=occ,
                        cell_flags=flags,
                        enter_penalty=pen if penalties else None,
                        leave=links.leave if penalties else None,
                        max_penalty=D.MAX_WOUNDS if penalties else None)
            links.prepared[penalties] = p
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
                if u is not None and self.facts[base + u] is not None:
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
            nodes = np.unique(np.concatenate(
                [self.cover[s] for s in cells if s < self.st.ns]))
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

    __slots__ = ("g", "dv", "links", "occ", "flags", "pen", "grip", "pen_nz", "n_stop",
                 "bound", "cur", "pending", "pending_grip", "pen_dirty", "stale")

    def sync(self, square_bits) -> None:
        """Bring the layers up to date with the changes since the last query of this
        kind: the occupant layer over the squares changed (``pending``), the stop flags
        of the nodes whose grapple count changed (``pending_grip``), whether wounds are
        left anywhere (``pen_dirty``). O(nodes touched)."""
        g = self.g
        pend = self.pending
        if pend:
            cover = g.cover
            nodes = cover[pend[0]] if len(pend) == 1 else \
                np.concatenate([cover[s] for s in pend])
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
        new.pen_nz, new.n_stop = self.pen_nz, self.n_stop
        new.bound = {}
        new.cur = None
        return new

    def set_links(self, dv, links) -> None:
        self.dv, self.links, self.bound, self.cur = dv, links, {}, None

    def prepared(self) -> tuple[Prepared, bool]:
        cur = self.cur
        if cur is not None:
            return cur
        penalties = self.links.has_leave or self.pen_nz > 0
        p = self.bound.get(penalties)
        if p is None:
            t = self.g.template(self.links, penalties, self.occ, self.flags, self.pen)
            # (reads the position's own layers: a write to them is what it sees next)
            p = self.bound[penalties] = t.with_layers(
                occupant=self.occ, cell_flags=self.flags,
                enter_penalty=self.pen if penalties else None)
        self.cur = (p, penalties)
        return self.cur


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
                 large_turns: str = "all", large_jumps: bool = False):
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
        st = self.st = _static_for(dungeon, corner_cutting, ice, large_turns, large_jumps)
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
                                      "large_jumps"))
        corner = get_bool(opts, "corner_cutting", "options", True)
        ice = get_str(opts, "ice", "options", ("normal", "stop"), "normal")
        turns = get_str(opts, "large_turns", "options", D.LARGE_TURNS, "all")
        jumps = get_bool(opts, "large_jumps", "options", False)
        party = expect_object(scenario.get("party", {}), "party")
        expect_keys(party, "party", ("rune_keys",))
        keys = get_list(party, "rune_keys", "party", [])
        for k in keys:
            if not isinstance(k, str):
                raise ScenarioError(f"party.rune_keys must hold rune key names; got "
                                    f"{k!r:.60}")
        figures = D.read_figures(scenario["figures"], dungeon)
        return cls(dungeon, figures, rune_keys=keys, corner_cutting=corner, ice=ice,
                   large_turns=turns, large_jumps=jumps)

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
        state["st"] = (st.dungeon, st.corner, st.ice, st.large_turns, st.large_jumps)
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
        try:
            i = self.index.get(figure, -1)
        except TypeError:       # unhashable
            i = -1
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
        try:
            i = self.index[figure]
        except (KeyError, TypeError):
            raise self._figure_error(figure) from None
        if not self.alive[i]:
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
        prep, penalties = ks.cur or ks.prepared()
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
            cells = [as_coord(list(map(int, c)), "to") for c in to]
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
        c = as_coord(list(map(int, to)) if isinstance(to, np.ndarray) else to, "to")
        a = st.index.get(c)
        if a is None:
            raise IllegalMoveError(f"{list(c)} is not a square of the dungeon")
        return a

    def action_coords(self, figure, actions) -> np.ndarray:
        """int32[E, 2] squares (one-square figures; the town reads as its board
        coordinate, one left of and above the map's corner) or int32[E, k, 2] bases
        (large monsters)."""
        i = self._fig(figure)
        actions = np.asarray(actions, dtype=np.int64)
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
                         "large_turns": st.large_turns, "large_jumps": st.large_jumps},
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
        try:
            i = self.index.get(fid, -1)
        except TypeError:
            i = -1
        if i < 0 or not self.alive[i]:
            raise QueryError(f"query.figure names {fid!r}, which is not in the scenario; "
                             f"known figures: {self.figures}")
        q = {k: v for k, v in query.items() if k != "figure"}
        m = self.legal_moves(fid, **q)
        return {"figure": fid, "mp": m._extra.mp, "ends": m.to_dicts()}


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
