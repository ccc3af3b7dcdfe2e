"""What every Heroscape position of one battlefield and rules shares with its copies
(built once, lazily, under a lock, and published whole): the placement facts of
double-space figures and the kinds of mover with their packed kernel queries
(:class:`_Static`, found by :func:`_static`); the facts of one figure its queries read
(:class:`_Info`, kept per figure by the position until the figure changes); the loader of
:mod:`._falls`.

Private to the live position (:mod:`.position` and its parts).
"""
from __future__ import annotations

import functools
import threading

import numpy as np

from ...kernels import _types as T
from ...mover import Mover
from ...reach import prepare
from . import rules as hs
from ._entry import _NO_NODES2


@functools.lru_cache(maxsize=None)
def _falls():
    """:mod:`._falls` (falls and paths at kernel speed), imported on the first
    query of a figure that may fall or of one with paths."""
    from . import _falls
    return _falls


class _Info:
    """Per figure, what its queries need that changes only with the figure itself."""

    __slots__ = ("double", "flyer", "phantom", "team", "hclass", "move", "falls",
                 "leaves", "takeoff", "kind", "stop_glyph", "walk")

    def __init__(self, **kw):
        self.walk = None      # a flyer's: the _Info of the same figure walking
        for k, v in kw.items():
            setattr(self, k, v)


# ------------------------------------------------------------------------------ kinds
class _Kind:
    """One kind of mover on one board (static, shared by every position of a battlefield
    and rules): its :class:`Mover`, static cell flags, and packed queries (without
    penalties, and with leaving penalties per ``max_penalty``). Runs the kernels on layers
    the caller owns."""

    __slots__ = ("board", "mover", "qflags", "fast", "_pen", "_lock")

    def __init__(self, board, mover: Mover, qflags: np.ndarray):
        self.board = board
        self.mover = mover
        self.qflags = qflags
        # someone on the board: the packed query's occupancy tests stay on (P_HAS_OCC);
        # the occupant actually read is the position's, given per call
        dummy = np.full(board.n_cells, T.OCC_EMPTY, T.INDEX)
        dummy[0] = 0
        self.fast = prepare(board, mover, T.MAX_BUDGET, occupant=dummy, cell_flags=qflags)
        self._pen: dict = {}
        self._lock = threading.Lock()

    def pen_query(self, max_penalty: int):
        q = self._pen.get(max_penalty)
        if q is None:
            with self._lock:     # (built once, whichever thread asks first)
                q = self._pen.get(max_penalty)
                if q is None:
                    dummy = np.full(self.board.n_cells, T.OCC_EMPTY, T.INDEX)
                    dummy[0] = 0
                    q = self._pen[max_penalty] = prepare(
                        self.board, self.mover, T.MAX_BUDGET, occupant=dummy,
                        cell_flags=self.qflags,
                        leave=np.zeros(self.board.n_cells, np.uint64),
                        max_penalty=max_penalty)
        return q

    def run_fast(self, occupant, qflags, queries, ends, order) -> int:
        """Ends of ``queries`` (int64[Q, 3]) into ``ends`` (int32[3, R]), each query's
        ends sorted by (cost, ``order``) or in kernel order (``order`` empty)."""
        total = self.fast._run_layers_into(occupant, qflags, queries, ends, order)
        if total is None:  # a battlefield too large for the packed kernel's buckets
            return self._run_slow(occupant, qflags, queries, ends, order)
        return total

    def _run_slow(self, occupant, qflags, queries, ends, order) -> int:
        """:meth:`run_fast` through the general kernel (same ends, same order)."""
        src = np.zeros(1, T.INDEX)
        pos = 0
        for r in range(queries.shape[0]):
            rows, _ = self.run_general(self.fast, occupant, qflags, _NO_NODES2[0], int(
                queries[r, 0]), int(queries[r, 1]), src)
            if order.shape[0]:
                rows = rows[np.argsort(rows[:, 1].astype(np.int64) * (order.max() + 1) +
                                       order[rows[:, 0]], kind="stable")]
            k = rows.shape[0]
            ends[:, pos:pos + k] = rows[:, :3].T
            queries[r, 2] = k
            pos += k
        return pos

    def run_general(self, q, occupant, qflags, leave, start: int, budget: int,
                    sources: np.ndarray) -> tuple:
        """The general kernel (penalties): ``(rows, tree)``, rows int32[E, 8] end rows
        (cell, cost, stopped, row, penalty, penalty cost, row, free cost; of any layout:
        the packed kernel's is column-major) and the search tree int32[k, 4] (cell, cost,
        stopped, parent row): views of the calling thread's workspace, valid until its
        next query. Nothing is kept on the kind, which every copy of a position shares
        (and threads with it)."""
        rows, tree, k = q._rows_into(occupant, qflags, leave, start, budget, sources)
        if k >= 0:
            tree = tree[:4 * k].reshape(k, 4)
        return rows, tree


class _Static:
    """Everything a position of one battlefield and rules shares with its copies."""

    def __init__(self, field_: hs.Battlefield, rules: hs.Rules):
        self.field = field_
        self.rules = rules
        board = field_.board
        self.board = board
        self.n = board.n_cells
        self.master = rules.mode == "master"
        lv = field_.level
        self.level = lv
        self.span = int(lv.max() - lv.min()) if lv.size else 0
        self.nbr = board.nbr
        self.nbr64 = np.ascontiguousarray(board.nbr, np.int64)
        self.level64 = np.ascontiguousarray(lv, np.int64)
        self.coords = np.ascontiguousarray(board.coords, np.int64)
        self.coord_tuples = [(int(q), int(r)) for q, r in board.coords.tolist()]
        # ends of one-space figures are listed by cost, then (q, r)
        self.rank = np.empty(self.n, np.int64)
        self.rank[np.lexsort((board.coords[:, 1], board.coords[:, 0]))] = np.arange(self.n)
        blocked = field_.blocked
        glyphs = field_.glyphs
        lava = np.array([t == "lava" for t in field_.terrain], bool)
        self.lava = lava
        self.wet_ids = [hs.TERRAINS.index(t) for t in hs.STOPPING]
        # stop codes per space (Position.STOP_REASONS), with and without glyph stops
        self.stop_code = {}
        for sg in (False, True):
            code = np.where(lava, 2, 1).astype(np.int8)
            if sg:
                code[glyphs] = 3
            self.stop_code[sg] = code
        walk = np.zeros(self.n, np.uint8)
        walk[blocked] |= T.CELL_BLOCKED
        walk[glyphs] |= T.CELL_STOP
        fly = np.zeros(self.n, np.uint8)
        fly[blocked] |= T.CELL_NO_END
        if rules.flyers_stop_on_glyphs:
            fly[glyphs] |= T.CELL_STOP
        self.cell_flags = {False: walk, True: fly}
        self.kinds: dict = {}
        self.node_of: dict = {}     # lead * n + trail -> placement (or -1), as asked
        # what is built lazily (placements, kinds, cut boards) is built under this lock
        # and published whole: copies on other threads read it at any moment
        self._lock = threading.RLock()
        self._pl = None

    # ---------------------------------------------------------------- placements
    @property
    def pl(self) -> hs.Placements:
        if self._pl is None:
            self._build_placements()
        return self._pl

    _PLACEMENT_FACTS = ("lead", "trail", "flip", "P", "touch", "pair_rank",
                        "node_stop_code", "node_flags")

    def __getattr__(self, name):
        # only reached for a fact not made yet: the placement facts, on first need (all
        # of them are set before ``_pl``: once ``_pl`` is set, every fact is there)
        if name in _Static._PLACEMENT_FACTS and self.__dict__.get("_pl") is None:
            self._build_placements()
            return getattr(self, name)
        raise AttributeError(name)

    def _build_placements(self) -> None:
        """The placement facts of double-space figures, built once (double-checked under
        the lock) and published whole: the facts first, ``_pl`` last."""
        with self._lock:
            if self.__dict__.get("_pl") is None:
                facts = self._placement_facts()
                self.__dict__.update(facts)
                self._pl = facts["_pl_graph"]

    def _placement_facts(self) -> dict:
        field_, rules = self.field, self.rules
        pl = hs.placement_graph(field_)
        lead, trail = pl.lead.astype(np.int64), pl.trail.astype(np.int64)
        P = len(lead)
        # nodes whose lead or trail is a space: node_of[c, :] and their flips
        no = pl.node_of
        touch = np.where(no >= 0, no, -1)
        touch = np.ascontiguousarray(np.concatenate([touch, np.where(
            no >= 0, pl.flip[np.maximum(no, 0)], -1)], axis=1), np.int64)
        # pairs listed by cost, then by their two spaces sorted
        c = self.coords
        a, b = c[lead], c[trail]
        swap = (a[:, 0] > b[:, 0]) | ((a[:, 0] == b[:, 0]) & (a[:, 1] > b[:, 1]))
        lo = np.where(swap[:, None], b, a)
        hi = np.where(swap[:, None], a, b)
        order = np.lexsort((hi[:, 1], hi[:, 0], lo[:, 1], lo[:, 0]))
        rank = np.empty(P, np.int64)
        new = np.ones(P, bool)
        new[1:] = (np.diff(lo[order], axis=0) != 0).any(1) | \
            (np.diff(hi[order], axis=0) != 0).any(1)
        rank[order] = np.cumsum(new) - 1
        wet, glyphs = field_.wet, field_.glyphs
        lava = self.lava
        node_stop_code = {}
        for sg in (False, True):
            code = np.where(lava[lead] & lava[trail], 2, 1).astype(np.int8)
            if sg:
                code[glyphs[lead]] = 3
            node_stop_code[sg] = code
        flags = {}
        for flyer in (False, True):
            f = np.zeros(P, np.uint8)
            stop_wet = not flyer or rules.flyers_stop_in_water
            stop_glyph = not flyer or rules.flyers_stop_on_glyphs
            if flyer:
                f[pl.board.terrain == 1] |= T.CELL_NO_END
            if stop_wet:
                f[wet[lead] & wet[trail]] |= T.CELL_STOP
            if stop_glyph:
                f[glyphs[lead]] |= T.CELL_STOP
            flags[flyer] = f
        return {"lead": lead, "trail": trail, "flip": pl.flip.astype(np.int64), "P": P,
                "touch": touch, "pair_rank": rank, "node_stop_code": node_stop_code,
                "node_flags": flags, "_pl_graph": pl}

    # ---------------------------------------------------------------- kinds
    def kind(self, double: bool, flyer: bool, phantom: bool, team: int,
             max_climb) -> _Kind:
        """The kind of mover (cached): flyers and phantom walkers pass every figure, so
        their team does not matter; a climb limit above the battlefield's level span is
        no limit."""
        if flyer or phantom:
            team = 0
        if max_climb is not None:
            max_climb = min(max_climb, self.span)
        key = (double, flyer, phantom, team, max_climb)
        k = self.kinds.get(key)
        if k is not None:
            return k
        with self._lock:     # (built once, whichever copy's thread asks first)
            k = self.kinds.get(key)
            if k is None:
                k = self.kinds[key] = self._make_kind(double, flyer, phantom, team,
                                                      max_climb)
        return k

    def _make_kind(self, double: bool, flyer: bool, phantom: bool, team: int,
                   max_climb) -> _Kind:
        rules = self.rules
        enemies = "pass" if (flyer or phantom) else "block"
        if double:
            pl = self.pl
            mover = Mover(terrain_cost=[1, 1] if flyer else [1, -1],
                          climb_per_level=0 if flyer else 1, max_climb=max_climb,
                          team=team, allies="pass", enemies=enemies)
            k = _Kind(pl.board, mover, self.node_flags[flyer])
        else:
            stop_wet = not flyer or rules.flyers_stop_in_water
            mover = Mover(terrain_cost=[1] * len(hs.TERRAINS),
                          stop_terrain=self.wet_ids if stop_wet else (),
                          climb_per_level=0 if flyer else 1, max_climb=max_climb,
                          team=team, allies="pass", enemies=enemies)
            k = _Kind(self.board, mover, self.cell_flags[flyer])
        return k


def _static(field_: hs.Battlefield, rules: hs.Rules) -> _Static:
    """The shared part of positions on ``field_`` under ``rules`` (cached on it)."""
    cache = field_.__dict__.setdefault("_positions_static", {})
    st = cache.get(rules)
    if st is None:
        with _STATIC_LOCK:
            st = cache.get(rules)
            if st is None:
                st = cache[rules] = _Static(field_, rules)
    return st


_STATIC_LOCK = threading.Lock()
