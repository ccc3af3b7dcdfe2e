"""The layers a Heroscape position keeps for its kernels, and keeps up to date as
figures move: the occupancy of placements (per team and mode), the engagement of every
figure, and the leave masks (one bit per enemy figure, per team and height class) of
spaces; those of placements, which a double-space figure's query reads, are made from
them for the query in its thread's scratch (:class:`_Layers`, a part of
:class:`~movecore.games.heroscape.Position`; not used on its own).

A move changes them in one compiled call (:meth:`_Layers._relocate`): O(changed spaces),
never a rebuild.
"""
from __future__ import annotations

import threading

import numpy as np

from ...kernels import _types as T
from . import rules as hs
from ._entry import _NO_NODES2, _NO_TOUCH, _jit
from ._shared import _Info, _falls  # noqa: F401  (_Info: annotations)

_NO_I64 = np.zeros(0, np.int64)
_U64_ONE = np.uint64(1)
_MAX_BITS = 64                      # leave masks are uint64: one bit per enemy figure
#: No leave layer of placements is kept (``relocate``'s ``lvn``): a query derives the
#: row it reads (:meth:`_Layers._node_leave_layer`) into its thread's scratch.
_NO_LVN = np.zeros((0, 0), np.uint64)
_scratch = threading.local()        # per thread: its scratch arrays (thread_buf)


def thread_buf(name: str, shape: tuple, dtype, fill=None) -> np.ndarray:
    """This thread's scratch array ``name`` of ``shape`` and ``dtype`` (one dtype per
    name; made again when the shape differs, filled with ``fill`` then if given; a kernel
    that marks it leaves it as found), shared by every position this thread asks:
    positions keep no scratch of their own, so a copy costs no buffer. Valid until the
    thread's next use of ``name``: a query copies out what it keeps."""
    try:
        b = _scratch.bufs.get(name)
    except AttributeError:
        b = None
        _scratch.bufs = {}
    if b is None or b.shape != shape:
        b = _scratch.bufs[name] = np.empty(shape, dtype) if fill is None else \
            np.full(shape, fill, dtype)
    return b


class _QueryScratch:
    """One thread's scratch for a figure's query on a battlefield of ``n`` spaces and
    (``P`` > 0) ``P`` placements, fetched once per query (:func:`query_scratch`) and
    passed down: one thread-local lookup a query, not one a buffer. Valid until the
    thread's next query: a query copies out what it keeps. The arrays filled with -1
    (``whopos_*``, ``rowpos``) and the placement flags (:meth:`flags`) are left as
    found by the kernels that mark them."""

    __slots__ = ("n", "P", "q1", "src", "ends1", "whopos_n", "saved", "saved_at",
                 "nflags", "rowpos", "endsP", "node_leave", "whopos_P")

    def __init__(self, n: int, P: int):
        self.n, self.P = n, P
        self.q1 = np.empty((1, 3), np.int64)          # (start, budget, ends): one query
        self.src = np.empty(1, T.INDEX)               # the penalty kernel's sources
        self.ends1 = np.empty((3, n), T.INDEX)        # a one-space query's ends
        self.whopos_n = np.full(n, -1, np.int64)      # who_bits' row positions (spaces)
        self.saved = np.empty(26, T.INDEX)            # free_nodes: placements changed
        self.saved_at = np.empty(26, np.int64)
        self.nflags: list = []                        # [(kind's flags, this copy)]
        self.rowpos = np.full(P, -1, np.int64)        # finish_double's row positions
        self.endsP = np.empty((3, P), T.INDEX)        # a two-space query's ends
        self.node_leave = np.empty(P, np.uint64)      # the placement leave row
        self.whopos_P = np.full(P, -1, np.int64)      # who_bits' row positions

    def flags(self, qflags: np.ndarray) -> np.ndarray:
        """This thread's copy of a kind's placement flags ``qflags`` (uint8[P]), in
        which a query marks its start never to stop and puts it back (``free_nodes``,
        ``restore``): copied once, not per query (a kind's flags never change)."""
        for ref, f in self.nflags:
            if ref is qflags:
                return f
        if len(self.nflags) >= 8:
            self.nflags.clear()
        f = qflags.copy()
        self.nflags.append((qflags, f))
        return f


def query_scratch(n: int, P: int = 0) -> _QueryScratch:
    """This thread's :class:`_QueryScratch` for ``n`` spaces and, if ``P`` > 0, ``P``
    placements (made again when they differ: one battlefield's at a time, as
    :func:`thread_buf`)."""
    try:
        s = _scratch.query
    except AttributeError:
        s = None
    if s is None or s.n != n or (P and s.P != P):
        s = _scratch.query = _QueryScratch(n, P)
    return s


class _Layers:
    """The layer methods of :class:`~movecore.games.heroscape.Position`: occupancy,
    engagement and leave masks, made on first need and kept up to date by every
    change."""

    def _is_engaged(self, i: int) -> bool:
        """Figure i adjacent to an enemy (heights considered) where it stands."""
        return self._adjacent_enemies(i, count=False) > 0

    def _adjacent_enemies(self, i: int, count: bool = True) -> int:
        """Number of distinct enemies adjacent to figure i (or 1 for any, ``count``
        false)."""
        st = self._st
        return _jit().adjacent(self.cells, st.nbr64, self.at_fig, self.team, self.height,
                               st.level64, i, 1 if count else 0)

    def _node_layer(self, t: int, mode: int) -> np.ndarray:
        """int32[P]: the occupancy of placements for a walker of team t (``mode`` 0: a
        wall or an enemy on either space blocks, else a friend on either may be passed)
        or for a flyer or phantom walker (``mode`` 1, t 0: a figure on either space is
        passed, never ended on). A row of ``self._nw``, kept up to date from then on."""
        key = (t, mode)
        r = self._nw_rows.get(key)
        if r is None:
            st = self._st
            row = np.empty((1, st.P), T.INDEX)
            _jit().refresh_nodes(row[0], self.occ_any if mode else self.occ_walk, st.lead,
                                 st.trail, st.touch, np.arange(st.n, dtype=np.int64), t,
                                 mode)
            r = len(self._nw_rows)
            self._nw = np.ascontiguousarray(np.concatenate([self._nw.reshape(-1, st.P),
                                                            row]))
            self._nw_team = np.append(self._nw_team, t)
            self._nw_mode = np.append(self._nw_mode, mode)
            self._nw_rows[key] = r
        return self._nw[r]

    def _hclass(self, height: int) -> int:
        """Heights above the level span (+1) see every neighbouring space alike."""
        return int(min(height, self._st.span + 1))

    def _leave_cells(self, j: int, h: int):
        """(cells, ok) of enemy j's neighbourhood: spaces where a mover of height class h
        would be adjacent to it."""
        st = self._st
        lv = st.level
        ce = self._cells_of(j)
        nb = st.nbr[ce]                              # int32[k, 6]
        ok = nb >= 0
        nbv = np.maximum(nb, 0)
        lce = lv[ce][:, None]
        ok &= (lv[nbv] - lce < self.height[j]) & (lce - lv[nbv] < h)
        return nbv[ok].astype(np.int64)

    def _no_leave(self) -> None:
        """No leave layer yet: rows are added per (team, mover height class) on first
        need, then kept up to date by every change."""
        n = self._st.n
        self._lv_rows: dict = {}                     # (team, height class) -> row
        self._lv = np.zeros((0, n), np.uint64)       # uint64[L, N]: bit j = enemy j
        self._lv_team = np.zeros(0, np.int64)
        self._lv_h = np.zeros(0, np.int64)

    def _leave_row(self, t: int, h: int) -> int:
        """Row of the leave layer of team t and height class h: bit j set on the spaces
        where such a mover would be adjacent to enemy figure j."""
        r = self._lv_rows.get((t, h))
        if r is not None:
            return r
        st = self._st
        row = np.zeros((1, st.n), np.uint64)
        team = np.array([t], np.int64)
        hs_ = np.array([h], np.int64)
        J = _jit()
        for j in np.flatnonzero(self.alive & (self.team != t)).tolist():
            J.leave_bits(row, _NO_NODES2, team, hs_, _NO_I64, _NO_I64, _NO_TOUCH,
                         st.nbr64, st.level64, self.cells, self.team, self.height, j,
                         _U64_ONE << np.uint64(j), 1)
        r = len(self._lv_rows)
        self._lv = np.ascontiguousarray(np.concatenate([self._lv, row]))
        self._lv_team = np.append(self._lv_team, t)
        self._lv_h = np.append(self._lv_h, h)
        self._lv_rows[(t, h)] = r
        return r

    def _node_leave_layer(self, t: int, h: int, out=None) -> np.ndarray:
        """uint64[P]: the leave bits of a placement's two spaces (``lv[lead] |
        lv[trail]`` of the row of team t and height class h), made from the spaces' row
        into ``out`` (the query's scratch, :class:`_QueryScratch`) or this thread's
        scratch: valid until the thread's next call, read by the query that asked, never
        kept (positions keep no placement leave layer: 8 bytes a placement and row per
        copy, the most of a position's memory)."""
        r = self._leave_row(t, h)     # (may make self._lv again: read it after)
        row = self._lv[r]
        st = self._st
        if out is None:
            out = thread_buf("node_leave", (st.P,), np.uint64)
        _jit().node_leave(row, st.lead, st.trail, out)
        return out

    def _relocate(self, i: int, new0: int, new1: int = -1) -> None:
        """Figure i from where it stands (if anywhere) to ``new0`` (, ``new1``), or off
        the battlefield (``new0`` -1): occupancy, engagement, walls, leave bits and the
        placements touching every space that changed (one compiled call)."""
        if self._moves_shared:
            self._own_moves()
        st = self._st
        changed = thread_buf("changed", (64,), np.int64)
        if self._nw.shape[0]:
            lead, trail, touch = st.lead, st.trail, st.touch
        else:
            lead, trail, touch = _NO_I64, _NO_I64, _NO_TOUCH
        bits = 1 if (self._lv_rows and len(self.ids) <= _MAX_BITS) else 0
        _jit().relocate(self.cells, st.nbr64, self.at_fig, self.team, self.height,
                        st.level64, self.engaged, i, new0, new1, changed, st.master,
                        self.occ_any, self.occ_walk, self._nw, self._nw_team,
                        self._nw_mode, lead, trail, touch, self._lv, _NO_LVN,
                        self._lv_team, self._lv_h, bits)

    def _leave_query(self, i: int, budget: int, info: "_Info | None" = None,
                     scratch: "_QueryScratch | None" = None):
        """(leave layer or None, max_penalty) of a walker's move (master game); a
        two-space figure's placement row is made into ``scratch`` where given."""
        info = info or self._info[i] or self._figure_info(i)
        if not info.leaves:
            return None, 0
        n_rel = _jit().relevant(self.cells, self._st.coords, self.team, self.alive, i,
                                budget + 2 + info.double)
        if n_rel == 0:
            return None, 0
        mp = hs._max_penalty(n_rel, budget)
        t, h = info.team, info.hclass
        if len(self.ids) > _MAX_BITS:   # more figures than bits: this query's own masks
            return _falls().near_layer(self, i, info), mp   # (any crowd: see many)
        if info.double:
            return self._node_leave_layer(
                t, h, None if scratch is None else scratch.node_leave), mp
        return self._leave_layer(t, h), mp

    def _leave_layer(self, t: int, h: int) -> np.ndarray:
        """uint64[n]: the leave layer of team t and height class h (a row of ``_lv``)."""
        r = self._lv_rows.get((t, h))
        if r is None:
            r = self._leave_row(t, h)   # (makes self._lv again)
        return self._lv[r]

    def _who_layer(self, i: int, info: "_Info",
                   scratch: "_QueryScratch | None" = None) -> np.ndarray:
        """The leave layer the who columns of figure i's ends read (master game; a
        two-space figure's placement row made into ``scratch`` where given)."""
        if len(self.ids) > _MAX_BITS:   # more figures than bits: this query's enemies'
            return _falls().near_layer(self, i, info)
        if info.double:
            return self._node_leave_layer(info.team, info.hclass,
                                          None if scratch is None else scratch.node_leave)
        return self._leave_layer(info.team, info.hclass)

    def _who_scratch(self, size: int) -> np.ndarray:
        """int64[size], all -1: ``who_bits``'s row positions (left as found)."""
        return thread_buf("whopos_n" if size == self._st.n else "whopos_P", (size,),
                          np.int64, -1)

    def _node(self, lead: int, trail: int) -> int:
        """The placement (lead, trail) of two neighbouring spaces, or -1."""
        st = self._st
        nodes = st.node_of
        key = lead * st.n + trail
        p = nodes.get(key)
        if p is None:
            p = -1
            for x in st.touch[lead, :6].tolist():
                if x >= 0 and st.trail[x] == trail:
                    p = x
                    break
            if len(nodes) > 4096:
                nodes.clear()
            nodes[key] = p
        return p
