"""One Descent position's layers per kind of mover (private to
:mod:`movecore.games.descent`): :class:`_KindState`, the occupancy, stop and aura arrays
its prepared kernel queries read, updated incrementally as figures move.
"""
from __future__ import annotations

import numpy as np

from ...kernels import _types as T
from ...reach import Prepared
from . import rules as D

_TOP_BUDGET = T.MAX_BUDGET
#: Layers of door-scoped graphs kept per position (see _KindLayers._kind_state).
_SCOPED_LAYERS_MAX = 8


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


class _KindLayers:
    """Each kind's layers kept in step with the figures (a part of
    :class:`~movecore.games.descent.Position`: ``kstate`` maps a kind key with its
    memory radius to that kind's :class:`_KindState`, shared with copies until either
    changes), and a large monster's query over its own base."""

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

    def _kind_state(self, i: int, radius: int = 0, mp: int = 0) -> _KindState:
        """Figure i's kind's layers for queries of ``mp`` MP whose door memory reaches
        ``radius``. Where graphs are door-scoped (``st.scoped``), those of a graph that
        keeps the memory of every door a move of ``mp`` MP from where figure i stands
        may reach (a few such layers are kept per position, the most recent)."""
        st = self.st
        if st.scoped:
            key4 = self._kind_key(i)
            a = self.anchor[i]
            plain = st.plain_kind(key4)
            doors = plain.door_scope(a if a >= 0 else st.ns, mp + radius + 1)
            g = st.scoped_kind(key4, radius, doors)
            ks = self.kstate.get(g.key)
            if ks is None:
                ks = self.kstate[g.key] = self._new_kind_state(g.key, g)
                scoped = [k for k in self.kstate if len(k) > 5 and k[5]]
                for k in scoped[:-_SCOPED_LAYERS_MAX]:
                    del self.kstate[k]      # (made again from the figures if asked)
            return ks
        key = self._kind_key(i) + (radius,)
        ks = self.kstate.get(key)
        if ks is None:
            ks = self.kstate[key] = self._new_kind_state(key)
        return ks

    def _new_kind_state(self, key, g=None) -> _KindState:
        if g is None:
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
