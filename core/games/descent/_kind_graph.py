"""The placement graph of one kind of Descent figure (private to
:mod:`movecore.games.descent`): :class:`_KindGraph` (one per side, footprint, flying
and door-memory radius, shared by every position of a dungeon) and its boards per door
state (:class:`_Links`).

* **Nodes.** Node ``s < NS`` is the anchor square ``s`` (the dungeon's squares in map
  order); node ``NS`` is the town; nodes above are, for a kind that turns (hell hound,
  dragon), its turned placements (``NS + 1 + s``: the base of the other orientation at
  square ``s``), then air nodes (pit jumps, :mod:`._placements`), then door-memory nodes
  (:mod:`._door_memory`). An anchor where the kind's base does not fit has no links.
  Action ids are these node ids, so every figure has ``NS + 1`` actions (a monster that
  turns ``2 NS + 1``).
* **Doors.** A step's price depends on the doors it crosses or straddles. Each link slot
  of the graph records the doors it involves; a door change recomputes only those slots
  (the board of a door state is then packed from the slot results and cached per kind,
  for every copy).
"""
from __future__ import annotations

import numpy as np

from ...board import Board
from ...errors import LimitError
from ...kernels import _types as T
from ...mover import Mover
from ...reach import Prepared, prepare
from . import rules as D
from ._door_memory import (_add_door_memory, _door_scope, _door_seeds, _memory_link_result,
                           _undirected)
from ._dungeon import (_DOOR_WORDS, _STATIC_LOCK, DEAR_FOR_JUMPERS, DEAR_FOR_WALKERS,
                       JUMP_LAND, JUMP_OVER, JUMP_TAKE_OFF, OPEN, OPENABLE, SHUT, SIDE_CODE,
                       STOP_ICE, _gc_paused)
from ._placements import _build_placements, _openers

_TOP_BUDGET = T.MAX_BUDGET
#: Most nodes of one kind's placement graph (both orientations, pit-jump and
#: door-memory nodes together).
NODES_MAX = 1 << 24
_NO_DOORS = frozenset()
_SCOPES_MAX = 4096               # door scopes cached per plain graph (start, depth)


class _Links:
    """The graph of one kind under one door state: the packed board, the prepared
    queries (unbound: per position they are re-bound to its own layers), the step
    bookkeeping for ``doors_opened``, and whether any pit placement exists."""

    __slots__ = ("board", "steps", "door_steps", "has_leave", "leave", "prepared",
                 "results", "breadth_first")

    def __init__(self, board, steps, has_leave, leave, results, breadth_first=True):
        self.board = board
        self.breadth_first = breadth_first   # prepare(breadth_first=): see _breadth_first
        self.steps = steps            # (u, v) -> (cost, frozenset of door indices)
        self.door_steps = {k: v[1] for k, v in steps.items() if v[1]}   # doors to open
        self.has_leave = has_leave
        self.leave = leave            # uint64[n] pit-fall bits (None without pits)
        self.prepared = {}            # penalty mode (bool) -> Prepared (template)
        self.results = results        # slot -> (cost, doors) or None


class _KindGraph:
    """The placement graph of one kind of mover: ``key = (side, w, h, fly, memory
    radius)`` (see :func:`._door_memory.memory_radius`).

    Arrays (n = number of nodes = NS + 1 + turned + air + door-memory nodes):
        foot:         int32[n, w*h] squares under each node (``NS`` pads: always empty).
        flags_static: uint8[n] CELL_NO_END / ice CELL_STOP (no grapple: per position).
        ice_code:     int8[n] STOP_ICE where ice stops the move, else 0.
        in_pit:       int32[n] 1 where the whole base is in a pit.
        rank:         int64[n] rank of the node's coordinate in (x, y) order.
    """

    def __init__(self, st, key):
        side, w, h, fly, radius = key[:5]
        self.mem_radius = radius
        # the doors whose memory the graph keeps: None, every door; else those a query
        # of this graph reaches (see _static.ALL_DOORS_MAX and _door_memory._door_scope)
        self.scope = key[5] if len(key) > 5 else None
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
        if self.scope is None:
            g0 = st.kind(key[:4] + (0,)) if radius else None
        else:                            # the plain graph: no door memory at all
            g0 = st.kind(key[:4] + (0, _NO_DOORS)) if radius or self.scope else None
        self.base0 = g0
        if g0 is not None:
            # all but the door memory is the radius-0 graph's: shared, not built again
            for name in ("turns", "turn_off", "fitp", "p_in_pit", "p_on_ice", "p_may_end",
                         "pfoot", "straddle", "air_off", "air_foot", "n_air", "dirs",
                         "openers", "vec0", "seeds", "_plain"):
                setattr(self, name, getattr(g0, name))
            self.facts = g0.facts
            place_nodes, n_turn = g0.place_nodes, g0.n_turn
            slots, involved = g0.slots[:g0.n_base], g0.involved[:g0.n_base]
        else:
            place_nodes, slots, involved, n_turn = _build_placements(self, st, rules, key)
            self.vec0 = self.vec
            self.openers = _openers(self)
            self.seeds = _door_seeds(slots, involved, self.openers)
            # what every radius and scope computes of the plain graph once, when asked:
            # the undirected CSR table, the nodes next to doors, base slot results
            self._plain = {"results": {}}
        self.place_nodes, self.n_turn, self.n_base = place_nodes, n_turn, len(slots)
        self.slots = slots
        air_off = self.air_off
        n = self.n = ns + 1 + self.n_air + n_turn
        if n > NODES_MAX:
            raise LimitError(f"a {w}x{h} {side}'s placement graph on this board would have "
                             f"{n} nodes; at most {NODES_MAX} (a smaller board)")
        mem_base = _add_door_memory(self, n, slots, involved)
        n = self.n
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

    # ----------------------------------------------------------- door scopes
    def undirected(self) -> tuple:
        """(ptr, nbr): the plain graph's links taken both ways as a CSR table (built on
        first use, shared by every radius and scope of the kind)."""
        p = self._plain
        got = p.get("csr")
        if got is None:
            with _STATIC_LOCK:
                got = p.get("csr")
                if got is None:
                    n0 = self.st.ns + 1 + self.n_air + self.n_turn
                    got = p["csr"] = _undirected(n0, self.slots[:self.n_base], self.vec0)
        return got

    def seed_nodes(self) -> tuple:
        """(is_seed bool[n0], {node: doors}): the plain nodes next to a door."""
        p = self._plain
        got = p.get("seeds")
        if got is None:
            with _STATIC_LOCK:
                got = p.get("seeds")
                if got is None:
                    n0 = self.st.ns + 1 + self.n_air + self.n_turn
                    doors_of: dict = {}
                    for d, nodes in self.seeds.items():
                        for u in nodes:
                            doors_of.setdefault(u, set()).add(d)
                    is_seed = np.zeros(n0, np.bool_)
                    if doors_of:
                        is_seed[np.fromiter(doors_of, np.int64, len(doors_of))] = True
                    got = p["seeds"] = (is_seed, doors_of)
        return got

    def door_scope(self, start: int, depth: int) -> frozenset:
        """The doors whose memory a move from node ``start`` may need: those next to a
        node within ``depth`` links of it (``depth = mp + radius + 1``; see
        :func:`._door_memory._door_scope`). Cached per (start, depth)."""
        cache = self._plain.setdefault("scopes", {})
        got = cache.get((start, depth))
        if got is None:
            got = _door_scope(self, start, depth)
            if len(cache) >= _SCOPES_MAX:
                cache.clear()
            cache[(start, depth)] = got
        return got

    def _plain_results(self, rules, dv) -> list:
        """The results of the plain slots (``slots[:n_base]``) under door vector ``dv``,
        priced once per door vector for every scope of the kind."""
        cache = self._plain["results"]
        got = cache.get(dv)
        if got is None:
            got = [self._slot_result(i, rules, dv) for i in range(self.n_base)]
            if len(cache) >= 8:
                cache.clear()
            cache[dv] = got
        return list(got)

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
        return _memory_link_result(self, sq, rules, dv, results)

    def links(self, dv) -> _Links:
        """The graph under door vector ``dv`` (per door: OPEN, OPENABLE or SHUT for this
        kind), built from the last one built by recomputing only the slots that involve
        a door whose state differs."""
        got = self.links_cache.get(dv)
        if got is not None:
            return got
        with _STATIC_LOCK, _gc_paused():
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
            if g0 is not None:
                results = g0.results[:self.n_base]
            elif self.scope is not None:
                results = self._plain_results(rules, dv)
            else:
                results = []
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
        out = _Links(board, steps, has_leave, self.leave if has_leave else None, results,
                     self._breadth_first(dv))
        self.links_cache[dv] = out
        self._last_links, self._last_dv = out, dv
        return out

    def _breadth_first(self, dv) -> bool:
        """Whether the kernel may search this kind's graph under door vector ``dv``
        breadth-first (it does where every link then costs 1 MP): not where the whole
        dungeon has what makes a step of this kind dearer, a door it may open (2 MP),
        for a walker a tree or a pit, for one that jumps ice too (:data:`DEAR_FOR_WALKERS`).

        Decided on the whole dungeon, also for a box cut from it (``solve()`` of a big
        board: its ``Dungeon.beyond``), so that the box settles ties between paths of
        equal cost in the order the whole dungeon does and reports the same paths: the
        box of a plain room with a far door would else run breadth-first, the whole
        dungeon on cost buckets. (A dungeon with such a feature that no link of this
        kind reaches runs on cost buckets: the same ends, costs and paths either way.)"""
        st = self.st
        terrains, openers = st.beyond
        if OPENABLE in dv or self.side in openers:
            return False
        if self.fly:
            return True
        jumps = self.size == (1, 1) or st.large_jumps
        return not terrains & (DEAR_FOR_JUMPERS if jumps else DEAR_FOR_WALKERS)

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
                        max_penalty=cap if penalties else None,
                        breadth_first=links.breadth_first)
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
