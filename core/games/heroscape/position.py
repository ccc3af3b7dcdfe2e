"""The live position of Heroscape (``movecore.games.heroscape.Position``): a battlefield and
an army held as arrays, answering ``legal_moves`` at kernel speed and changing in place.

What a position keeps (see :class:`Position`):

* shared by every copy (per battlefield and rules, built once): the placement graph of
  double-space figures, one packed kernel query per kind of mover (single / double,
  walker / phantom walker / flyer, team, climb limit; with and without leaving penalties),
  static cell flags, stop codes, the order ``solve()`` lists its ends in;
* per position (copied by :meth:`Position.copy`): the figures as arrays, the figure on
  every space, who is engaged, and the layers the kernels read -- the occupancy of spaces
  (``occ_any``: team ids; ``occ_walk``: engaged figures as walls, master game), of
  placements (per team), and the leaving-engagement masks per (team, height class), one
  bit per enemy figure.

A move changes the occupancy of the spaces it leaves and enters, the engagement (and so
the walls) of the figures next to them, the mask bits of the moved figure, and the
placements touching those spaces: O(changed spaces), never a rebuild.

Queries call the kernels directly on these layers (``reach1_ordered`` for a move without
leaving penalties, ``reach_query`` with them): no layer is copied per query. Falls (a
battlefield with a drop of at least the mover's Height, master game), paths, and positions
that held more than 64 figures (crowds of any size: leave bits shared by enemies no step
can be next to both of) are answered from the same searches by :mod:`._falls`; the
reference :func:`~movecore.games.heroscape.moves` is the tests' oracle, never called
here.
"""
from __future__ import annotations

import copy as _copy
import functools
import threading
from typing import Mapping

import numpy as np

from ...errors import IllegalMoveError, PlacementError, QueryError, describe
from ...kernels import _types as T
from ...mover import Mover
from ...position import (Moves, check_actions, figure_key, fresh_lock, locked,
                         new_figure_id, register_position)
from ...position import Position as _Position
from ...reach import prepare
from ...scenario import (as_coord, expect_keys, expect_object, get_bool, get_id, get_int,
                        get_str)
from . import rules as hs
from ._entry import _NO_NODES2, _NO_TOUCH, _jit

_NO_ORDER = np.zeros(0, np.int64)
_NO_I64 = np.zeros(0, np.int64)
_NO_ROWS = np.zeros((0, 8), T.INDEX)
_U64_ONE = np.uint64(1)
_QUERY_KEYS = ("move", "paths", "never_attacked_leaving")
_MAX_BITS = 64                      # leave masks are uint64: one bit per enemy figure
_NO_FLIGHT = np.zeros(0, np.bool_)  # read-only zeros: the flight columns of non-flyers


def _no_flight(size: int) -> np.ndarray:
    """:data:`_NO_FLIGHT` grown to at least ``size`` (made whole, then published)."""
    global _NO_FLIGHT
    z = np.zeros(max(size, 4096), np.bool_)
    z.flags.writeable = False
    _NO_FLIGHT = z
    return z


# ------------------------------------------------------------------------------ helpers
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


# ------------------------------------------------------------------------------ position
@register_position("heroscape")
class Position(_Position):
    """A live Heroscape position: battlefield, rules and army, changed in place.

    Build it with ``movecore.position(scenario)`` (or :meth:`from_scenario`), or from the
    game's objects: ``Position(field, army, rules)`` (``field`` from
    :func:`~movecore.games.heroscape.build_battlefield`, ``army`` from
    :func:`~movecore.games.heroscape.read_army`).

    Query keys (those of the scenario ``query`` but ``figure``): ``move`` (default: the
    figure's Move), ``paths`` (default false).

    :class:`~movecore.position.Moves` of a figure: ``actions`` are spaces (cell indices)
    for a single-space figure, placement nodes ``(lead, trail)`` of
    :func:`~movecore.games.heroscape.placement_graph` for a double-space one (each end
    pair once, in the orientation ``solve()`` reports); ``stop`` codes index
    :attr:`STOP_REASONS` (0 none, 1 water, 2 lava, 3 glyph); ``penalty`` is
    ``leaving_attacks``; ``columns``: ``leaving_attacks_cost`` (int32), ``fall`` and
    ``least_fall`` (int32 index in :data:`~movecore.games.heroscape.FALLS`),
    ``least_fall_cost`` (int32), ``flies`` and ``leaving_attacks_flies`` (bool: the
    least-cost and the least-attack path fly; an engaged flyer may walk instead),
    ``engaged_with`` and ``leaving_attackers`` (uint64 bit masks, bit j = figure j:
    :meth:`ids_of`).

    Copies (:meth:`copy`) may be used from different threads at once, one thread per
    copy: what they share is read-only once built (built under a lock, published
    whole); search trees and scratch arrays belong to the calling thread or the copy.

    >>> import movecore as mc
    >>> pos = mc.position({"game": "heroscape", "board": {"cells": [
    ...     {"at": [q, 0]} for q in range(5)]}, "figures": [
    ...     {"id": "a", "team": "red", "at": [0, 0], "move": 3},
    ...     {"id": "b", "team": "blue", "at": [4, 0]}]})
    >>> m = pos.legal_moves("a")
    >>> m.coords.tolist(), m.costs.tolist(), m.penalty.tolist()
    ([[0, 0], [1, 0], [2, 0], [3, 0]], [0, 1, 2, 3], [0, 0, 0, 0])
    >>> pos.apply_move("a", (3, 0))          # next to b: engaged
    >>> m = pos.legal_moves("a", move=1)
    >>> m.coords.tolist(), m.penalty.tolist()   # stepping away draws b's attack
    ([[3, 0], [2, 0]], [0, 1])
    >>> pos.remove_figure("b"); pos.legal_moves("a", move=1).penalty.tolist()
    [0, 0, 0]
    """

    STOP_REASONS = (None, "water", "lava", "glyph")

    def __init__(self, field_: hs.Battlefield, army: list, rules: hs.Rules = hs.Rules(), *,
                 scenario: Mapping | None = None):
        if not isinstance(rules, hs.Rules) or rules.mode not in hs.MODES or \
                rules.climb_limit not in hs.CLIMB_LIMITS:
            raise QueryError(f"rules must be a heroscape.Rules with mode in {hs.MODES} and "
                             f"climb_limit in {hs.CLIMB_LIMITS}; got {describe(rules)}")
        st = _static(field_, rules)
        self._st = st
        self.field = field_
        self.rules = rules
        self.board = field_.board
        self._scenario = scenario
        F = len(army)
        self.ids = [f.id for f in army]
        self.index = {f.id: i for i, f in enumerate(army)}
        self.team_name = [f.team for f in army]
        self.teams: dict = {}
        for t in self.team_name:
            self.teams.setdefault(t, len(self.teams))
        self.team = np.array([self.teams[t] for t in self.team_name], np.int64)
        self.cells = np.full((F, 2), -1, np.int64)
        for i, f in enumerate(army):
            self.cells[i, :len(f.cells)] = f.cells
        self.double = np.array([f.double for f in army], bool)
        self.move = np.array([f.move for f in army], np.int64)
        self.height = np.array([f.height for f in army], np.int64)
        self.flying = np.array([f.flying for f in army], bool)
        self.stealth = np.array([f.stealth_flying for f in army], bool)
        self.phantom = np.array([f.phantom_walk for f in army], bool)
        self.ghost = np.array([f.ghost_walk for f in army], bool)
        self.disengage = np.array([f.disengage for f in army], bool)
        self.alive = np.ones(F, bool)
        self._live = dict(self.index)            # id -> index of the figures in play
        self._info: list = [None] * F            # per figure: see _figure_info
        raws = {}
        if scenario is not None:
            raws = {f.get("id"): f for f in scenario.get("figures", [])
                    if isinstance(f, Mapping)}
        self.raw = [{k: _copy.deepcopy(v) for k, v in raws.get(f.id, {}).items()
                     if k not in ("id", "team", "at")} for f in army]
        n = st.n
        self.at_fig = np.full(n, -1, np.int64)
        self.occ_any = np.full(n, T.OCC_EMPTY, T.INDEX)
        self.occ_walk = np.full(n, T.OCC_EMPTY, T.INDEX)
        self.engaged = np.zeros(F, bool)
        for i in range(F):
            self.at_fig[self._cells_of(i)] = i
        for i in range(F):
            self.engaged[i] = self._is_engaged(i)
        self._no_leave()
        # placement occupancy, one row per (team, mode) asked for: mode 0 for walkers of
        # that team, mode 1 (team 0) for flyers and phantom walkers, who pass everyone
        self._nw_rows: dict = {}
        self._nw = np.zeros((0, 0), T.INDEX)       # int32[K, P]
        self._nw_team = np.zeros(0, np.int64)
        self._nw_mode = np.zeros(0, np.int64)
        _jit().sync_cells(np.flatnonzero(self.at_fig >= 0), self.at_fig, self.team,
                          self.engaged, st.master, self.occ_any, self.occ_walk)
        self._nflags: dict = {}      # flyer -> uint8[P] (this position's: starts change)
        self._bufs: dict = {}
        self._last = None
        self.version = 0
        # copies share the per-figure constants (_FIGURE_CONSTANTS) until one changes
        # them (add_figure: _own_figures); queries add layer rows and use _bufs: one
        # thread at a time per position (see docs/ai.md, "Threads")
        self._figs_shared = False
        self._moves_shared = False
        self._lock = fresh_lock()

    # ---------------------------------------------------------------- construction
    @classmethod
    def from_scenario(cls, scenario: Mapping) -> "Position":
        """The position of a scenario dict (its ``query``, if any, is not used)."""
        scenario = expect_object(scenario, "scenario")
        expect_keys(scenario, "scenario", ("game", "board", "options", "figures", "query"),
                    required=("board", "figures"))
        field_ = hs.build_battlefield(scenario["board"])
        rules = read_rules(scenario.get("options", {}))
        army = hs.read_army(field_, scenario["figures"])
        return cls(field_, army, rules, scenario=scenario)

    def copy(self) -> "Position":
        """An independent position: per-position arrays copied; battlefield, placement
        graph and packed queries shared.

        >>> import movecore as mc
        >>> pos = mc.position({"game": "heroscape", "board": {"cells": [
        ...     {"at": [q, 0]} for q in range(3)]}, "figures": [
        ...     {"id": "a", "team": "red", "at": [0, 0]}]})
        >>> twin = pos.copy(); twin.apply_move("a", (2, 0))
        >>> pos.where("a"), twin.where("a")
        ((0, 0), (2, 0))
        """
        with self._lock:
            new = object.__new__(type(self))
            d = new.__dict__
            d.update(self.__dict__)
            # what a move changes (_MOVE_ARRAYS) and the per-figure constants are
            # shared until either position changes them (copy on write: _own_moves,
            # _own_figures); the layers' row tables are copied (queries add rows;
            # _lv_team, _lv_h, _nw_team, _nw_mode are replaced, never written)
            self._moves_shared = d["_moves_shared"] = True
            d["_live"] = dict(self._live)
            d["_info"] = list(self._info)
            d["_lv_rows"] = dict(self._lv_rows)
            d["_nw_rows"] = dict(self._nw_rows)
            self._figs_shared = d["_figs_shared"] = True
            d["_nflags"] = {}
            d["_bufs"] = {}
            d["_last"] = None
            d["_lock"] = fresh_lock()
            return new

    _moves_shared = False     # (class defaults: see copy())
    _figs_shared = False

    #: What a move writes in place (shared by copies until either moves: _own_moves).
    _MOVE_ARRAYS = ("cells", "alive", "at_fig", "occ_any", "occ_walk", "engaged", "_lv",
                    "_lvn", "_nw")

    def _own_moves(self) -> None:
        """Before a move (or a removal, an addition, an undo) writes the arrays of
        ``_MOVE_ARRAYS``: made this position's own if a copy shares them."""
        if self._moves_shared:
            d = self.__dict__
            for name in self._MOVE_ARRAYS:
                d[name] = d[name].copy()
            self._moves_shared = False

    #: Per-figure values that only add_figure changes (shared by copies until then).
    _FIGURE_CONSTANTS = ("team", "double", "move", "height", "flying", "stealth",
                         "phantom", "ghost", "disengage")

    def _own_figures(self) -> None:
        """Before a per-figure constant changes: made this position's own if a copy
        shares them."""
        if self._figs_shared:
            d = self.__dict__
            for name in self._FIGURE_CONSTANTS:
                d[name] = d[name].copy()
            d["ids"], d["team_name"] = list(self.ids), list(self.team_name)
            d["raw"] = [dict(r) for r in self.raw]
            d["index"], d["teams"] = dict(self.index), dict(self.teams)
            self._figs_shared = False

    def __getstate__(self) -> dict:
        """Pickled without the battlefield's shared search data and prepared queries
        (compiled kernels, locks): found again (or built) from the battlefield and
        rules on unpickling; per-figure caches made again when asked."""
        state = dict(self.__dict__)
        f = self.field
        field_ = object.__new__(type(f))
        field_.__dict__.update({k: v for k, v in f.__dict__.items()
                                if k != "_positions_static"})
        state.update(field=field_, _info=[None] * len(self._info), _nflags={}, _bufs={},
                     _last=None, _figs_shared=False, _moves_shared=False)
        for k in ("_st", "_lock"):
            del state[k]
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._st = _static(self.field, self.rules)
        self._lock = fresh_lock()

    # ---------------------------------------------------------------- figures
    @property
    def figures(self) -> list:
        """Ids of the figures in play, in scenario order."""
        return [self.ids[i] for i in sorted(self._live.values())]

    def _fig(self, figure) -> int:
        i = self._live.get(figure_key(figure))
        if i is None:
            raise self._figure_error(figure)
        return i

    def side_of(self, figure):
        """The team of a figure in play."""
        return self.team_name[self._fig(figure)]

    @property
    def sides(self) -> list:
        """The teams with figures in play, in order of first appearance."""
        tn = self.team_name
        return list(dict.fromkeys(tn[i] for i in sorted(self._live.values())))

    def team_figures(self, side) -> list:
        """Ids of the figures of ``side`` in play, in scenario order."""
        tn = self.team_name
        return [self.ids[i] for i in sorted(self._live.values()) if tn[i] == side]

    def _cells_of(self, i: int) -> np.ndarray:
        return self.cells[i, :2 if self.double[i] else 1]

    def where(self, figure):
        """A single-space figure's space ``(q, r)``; a double-space one's two spaces
        ``[(q, r), (q, r)]``, leading end first."""
        i = self._fig(figure)
        ct = self._st.coord_tuples
        if self.double[i]:
            return [ct[c] for c in self.cells[i].tolist()]
        return ct[self.cells[i, 0]]

    @locked
    def touching(self, figure) -> list:
        """Ids of the figures on a space next to one of ``figure``'s spaces (neighbouring
        hexes, whatever their levels), in play order."""
        i = self._fig(figure)
        out = self._bufs.get("near")
        if out is None:
            out = self._bufs["near"] = np.empty(12, np.int64)
        k = _jit().touching(self.cells, self._st.nbr64, self.at_fig, i, out)
        ids = self.ids
        return [ids[j] for j in out[:k].tolist()]

    def is_engaged(self, figure) -> bool:
        """True when the figure stands adjacent to an enemy (master game's engagement)."""
        return bool(self.engaged[self._fig(figure)])

    # ---------------------------------------------------------------- layers
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
        self._lvn = np.zeros((0, 0), np.uint64)      # uint64[L, P] once a double asks
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
        if self._lvn.shape[1]:
            self._lvn = np.ascontiguousarray(np.concatenate(
                [self._lvn, row[:, st.lead] | row[:, st.trail]]))
        self._lv_rows[(t, h)] = r
        return r

    def _node_leave_layer(self, t: int, h: int) -> np.ndarray:
        """uint64[P]: the leave bits of a placement's two spaces."""
        r = self._leave_row(t, h)
        if self._lvn.shape[1] == 0:
            st = self._st
            self._lvn = np.ascontiguousarray(self._lv[:, st.lead] | self._lv[:, st.trail])
        return self._lvn[r]

    def _relocate(self, i: int, new0: int, new1: int = -1) -> None:
        """Figure i from where it stands (if anywhere) to ``new0`` (, ``new1``), or off
        the battlefield (``new0`` -1): occupancy, engagement, walls, leave bits and the
        placements touching every space that changed (one compiled call)."""
        if self._moves_shared:
            self._own_moves()
        st = self._st
        changed = self._bufs.get("changed")
        if changed is None:
            changed = self._bufs["changed"] = np.empty(64, np.int64)
        if self._nw.shape[0] or self._lvn.shape[1]:
            lead, trail, touch = st.lead, st.trail, st.touch
        else:
            lead, trail, touch = _NO_I64, _NO_I64, _NO_TOUCH
        bits = 1 if (self._lv_rows and len(self.ids) <= _MAX_BITS) else 0
        _jit().relocate(self.cells, st.nbr64, self.at_fig, self.team, self.height,
                        st.level64, self.engaged, i, new0, new1, changed, st.master,
                        self.occ_any, self.occ_walk, self._nw, self._nw_team,
                        self._nw_mode, lead, trail, touch, self._lv, self._lvn,
                        self._lv_team, self._lv_h, bits)

    # ---------------------------------------------------------------- changes
    def remove_figure(self, figure) -> None:
        """Take a figure off the battlefield (destroyed): its spaces are free, its
        enemies next to it may no longer be engaged."""
        i = self._fig(figure)
        c0, c1 = self.cells[i].tolist()
        self._record(_unremove, i, c0, c1)
        self._relocate(i, -1)
        self.alive[i] = False
        del self._live[figure]
        self._touch()

    def add_figure(self, figure, team, at, *, move: int = 5, height: int = 5,
                   flying: bool = False, stealth_flying: bool = False,
                   phantom_walk: bool = False, ghost_walk: bool = False,
                   disengage: bool = False) -> None:
        """Put a new figure (or one removed earlier: its id again) of ``team`` on free
        spaces ``at``: one ``(q, r)``, or two neighbouring ones (leading end first) for a
        double-space figure. Keywords as the scenario's figure keys.

        >>> import movecore as mc
        >>> pos = mc.position({"game": "heroscape", "board": {"cells": [
        ...     {"at": [q, 0]} for q in range(4)]}, "figures": [
        ...     {"id": "a", "team": "red", "at": [0, 0], "move": 3}]})
        >>> pos.add_figure("orc", "blue", (2, 0), height=5)
        >>> pos.legal_moves("a").coords.tolist()     # the orc blocks the way
        [[0, 0], [1, 0]]
        >>> pos.is_engaged("a"), pos.remove_figure("orc"), len(pos.legal_moves("a"))
        (False, None, 4)
        """
        figure = new_figure_id(figure)
        if isinstance(team, bool) or not isinstance(team, (str, int)):
            raise QueryError(f"a team is a string or integer; got {describe(team)}")
        w = "add_figure"
        raw = {"move": move, "height": height, "flying": flying,
               "stealth_flying": stealth_flying, "phantom_walk": phantom_walk,
               "ghost_walk": ghost_walk, "disengage": disengage}
        move = get_int(raw, "move", w, lo=0, hi=T.MAX_BUDGET)
        height = get_int(raw, "height", w, lo=1, hi=hs.MAX_FIGURE_HEIGHT)
        for k in ("flying", "stealth_flying", "phantom_walk", "ghost_walk", "disengage"):
            get_bool(raw, k, w)
        if isinstance(at, (list, tuple)) and at and isinstance(at[0], (list, tuple)):
            if len(at) not in (1, 2):
                raise PlacementError(f"add_figure: a figure takes 1 or 2 spaces; got "
                                     f"{len(at)}")
            spots = [self._space(a, f"add_figure: at[{k}]") for k, a in enumerate(at)]
        else:
            spots = [self._space(at, "add_figure: at")]
        for c in spots:
            if self.at_fig[c] >= 0:
                raise PlacementError(f"add_figure: {list(self.board.coord(c))} is taken by "
                                     f"{self.ids[self.at_fig[c]]!r}")
            if self.field.obstacle[c] is not None:
                raise PlacementError(f"add_figure: {list(self.board.coord(c))} is inside "
                                     f"the obstacle {self.field.obstacle[c]!r}")
        if len(spots) == 2 and not self.board.adjacent(spots[0], spots[1]):
            raise PlacementError(f"add_figure: {[list(self.board.coord(c)) for c in spots]}"
                                 f" are not neighbouring spaces")
        if len(spots) == 2 and spots[0] == spots[1]:
            raise PlacementError("add_figure: the two spaces are the same")
        i = self.index.get(figure, -1)
        if i >= 0 and self.alive[i]:
            raise PlacementError(f"add_figure: figure {figure!r} is already in play")
        self._record_snapshot()
        self._own_figures()
        self._own_moves()
        if team not in self.teams:
            self.teams = dict(self.teams)
            self.teams[team] = len(self.teams)
        flying = bool(flying or stealth_flying)
        if i < 0:
            i = len(self.ids)
            if i == _MAX_BITS:  # one bit per figure no longer fits: masks per query
                self._no_leave()
            self.ids.append(figure)
            self.index[figure] = i
            self.team_name.append(team)
            self.raw.append({})
            grow = lambda a, v: np.append(a, np.array([v], a.dtype), axis=0)  # noqa
            self.team = grow(self.team, self.teams[team])
            self.cells = grow(self.cells, [-1, -1])
            self.double = grow(self.double, len(spots) == 2)
            self.move = grow(self.move, move)
            self.height = grow(self.height, height)
            self.flying = grow(self.flying, flying)
            self.stealth = grow(self.stealth, bool(stealth_flying))
            self.phantom = grow(self.phantom, bool(phantom_walk))
            self.ghost = grow(self.ghost, bool(ghost_walk))
            self.disengage = grow(self.disengage, bool(disengage))
            self.alive = grow(self.alive, True)
            self.engaged = grow(self.engaged, False)
        else:
            self.team_name[i] = team
            self.team[i] = self.teams[team]
            self.cells[i] = -1
            self.double[i] = len(spots) == 2
            self.move[i], self.height[i] = move, height
            self.flying[i], self.stealth[i] = flying, bool(stealth_flying)
            self.phantom[i] = bool(phantom_walk)
            self.ghost[i], self.disengage[i] = bool(ghost_walk), bool(disengage)
            self.alive[i] = True
            self.raw[i] = {}
        self._live[figure] = i
        while len(self._info) <= i:
            self._info.append(None)
        self._info[i] = None
        self._relocate(i, spots[0], spots[1] if len(spots) == 2 else -1)
        self._touch()

    def _space(self, at, what: str) -> int:
        if isinstance(at, (int, np.integer)) and not isinstance(at, bool):
            if not 0 <= at < self._st.n:
                raise QueryError(f"{what}: {at} is not a space index in [0, {self._st.n})")
            return int(at)
        c = self.board.find(as_coord(at, what))
        if c < 0:
            raise QueryError(f"{what}: {list(at)} is not on the battlefield")
        return c

    def apply_move(self, figure, to, **query) -> None:
        """Move ``figure`` to the legal end ``to`` of the move ``query`` asks for: an
        action id (a space, or a placement of a double-space figure) or coordinates
        (``(q, r)``; two spaces, leading end first, for a double-space figure, in either
        orientation of a legal end). :class:`IllegalMoveError` if it is not one; the
        position is then unchanged.

        >>> import movecore as mc
        >>> pos = mc.position({"game": "heroscape", "board": {"cells": [
        ...     {"at": [q, 0]} for q in range(5)]}, "figures": [
        ...     {"id": "wyrm", "team": "red", "at": [[1, 0], [0, 0]], "move": 2}]})
        >>> m = pos.legal_moves("wyrm")
        >>> m.coords.tolist()[-1]                  # lead first
        [[3, 0], [2, 0]]
        >>> pos.apply_move("wyrm", [[2, 0], [3, 0]])   # that end, the other way round
        >>> pos.where("wyrm")
        [(2, 0), (3, 0)]
        >>> pos.apply_move("wyrm", [[0, 0], [4, 0]])
        Traceback (most recent call last):
        ...
        movecore.errors.IllegalMoveError: ...
        """
        i = self._fig(figure)
        m = self._last
        if m is None or m.version != self.version or m.figure != figure or \
                (m.query != query and m.query != (self._query(query) if query else {})):
            m = self.legal_moves(figure, **query)
        double = (self._info[i] or self._figure_info(i)).double
        if type(to) is int and 0 <= to < (self._st.P if double else self._st.n):
            action = to
        else:
            action = self.action_of(figure, to)
        acts = m.actions
        ok = (acts == action).any()
        if not ok and double:
            ok = (acts == self._st.flip[action]).any()
        if not ok:
            raise IllegalMoveError(f"{describe(to)} is not a legal end of figure "
                                   f"{figure!r} in this position")
        c0, c1 = self.cells[i].tolist()
        self._record(_unmove, i, c0, c1)
        if double:
            st = self._st
            self._relocate(i, int(st.lead[action]), int(st.trail[action]))
        else:
            self._relocate(i, action)
        self._touch()

    def _move(self, i: int, cells: list) -> None:
        c0, c1 = self.cells[i].tolist()
        self._record(_unmove, i, c0, c1)
        self._relocate(i, cells[0], cells[1] if len(cells) == 2 else -1)
        self._touch()

    def _key_parts(self) -> tuple:
        alive = self.alive
        return ([(self.ids[i], self.team_name[i]) for i in sorted(self._live.values())],
                self.cells[alive], self.double[alive], self.move[alive],
                self.height[alive], self.flying[alive], self.stealth[alive],
                self.phantom[alive], self.ghost[alive], self.disengage[alive],
                self._rare_part())

    # ---------------------------------------------------------------- actions
    def n_actions(self, figure) -> int:
        """Spaces of the battlefield (single-space figure) or placement nodes (double)."""
        i = self._fig(figure)
        return self._st.P if self.double[i] else self._st.n

    def action_of(self, figure, to) -> int:
        """The action id of ``to``: a space index or ``(q, r)``; for a double-space figure
        a placement node id or two neighbouring spaces (leading end first)."""
        i = self._fig(figure)
        if not self.double[i]:
            return self._space(to, "to")
        st = self._st
        if isinstance(to, (int, np.integer)) and not isinstance(to, bool):
            if not 0 <= to < st.P:
                raise QueryError(f"to: {to} is not a placement id in [0, {st.P})")
            return int(to)
        if not (isinstance(to, (list, tuple, np.ndarray)) and len(to) == 2):
            raise QueryError(f"to: a double-space figure's end is a placement id or two "
                             f"spaces; got {describe(to)}")
        a, b = (self._space(x, f"to[{k}]") for k, x in enumerate(to))
        p = self._node(a, b)
        if p >= 0:
            return p
        raise IllegalMoveError(f"{describe(to)} is not a legal end of figure {figure!r}: "
                               f"the two spaces are not neighbours")

    def action_coords(self, figure, actions) -> np.ndarray:
        """int32[E, 2] spaces, or int32[E, 2, 2] (lead, trail) for a double-space figure."""
        i = self._fig(figure)
        coords = self.board.coords
        st = self._st
        actions = check_actions(actions, st.P if self.double[i] else st.n, figure)
        if not self.double[i]:
            return coords[actions]
        return np.stack([coords[st.lead[actions]], coords[st.trail[actions]]], axis=-2)

    # ---------------------------------------------------------------- moves
    def _query(self, query: Mapping) -> dict:
        for k in query:
            if k not in _QUERY_KEYS:
                raise QueryError(f"unknown query key {k!r}; expected one of "
                                 f"{sorted(_QUERY_KEYS)}")
        return dict(query)

    def _budget(self, i: int, query: Mapping) -> int:
        b = query.get("move")
        if b is None:
            return int(self.move[i])
        if type(b) is int and 0 <= b <= T.MAX_BUDGET:
            return b
        if isinstance(b, bool) or not isinstance(b, (int, np.integer)) or \
                not 0 <= b <= T.MAX_BUDGET:
            raise QueryError(f"move must be an integer in [0, {T.MAX_BUDGET}]; got "
                             f"{describe(b)}")
        return int(b)

    def _relevant(self, i: int, budget: int) -> int:
        """Enemies that a walking move of ``budget`` could come next to (as the reference
        ``_relevant_enemies``)."""
        reach_ = budget + 2 + (1 if self.double[i] else 0)
        return _jit().relevant(self.cells, self._st.coords, self.team, self.alive, i,
                               reach_)

    def _buf(self, name: str, shape, dtype) -> np.ndarray:
        b = self._bufs.get(name)
        if b is None or b.shape != shape:
            b = self._bufs[name] = np.empty(shape, dtype)
        return b

    @locked
    def legal_moves(self, figure, **query) -> Moves:
        """Every legal end of ``figure``'s move (``solve()``'s ends, as arrays); query
        keys ``move`` (default: the figure's Move) and ``paths``.

        >>> import movecore as mc
        >>> pos = mc.position({"game": "heroscape", "board": {"cells": [
        ...     {"at": [0, 0]}, {"at": [1, 0], "terrain": "water", "level": 0},
        ...     {"at": [2, 0]}, {"at": [0, 1], "glyph": "astrid"}]},
        ...     "figures": [{"id": "a", "team": "red", "at": [0, 0], "move": 4}]})
        >>> m = pos.legal_moves("a")
        >>> m.coords.tolist(), [pos.STOP_REASONS[s] for s in m.stop]
        ([[0, 0], [0, 1], [1, 0]], [None, 'glyph', 'water'])
        >>> m.to_dicts()[2]
        {'at': [1, 0], 'cost': 1, 'stop': 'water', 'leaving_attacks': 0, \
'leaving_attacks_cost': 1, 'leaving_attackers': [], 'engaged_with': [], 'flies': False, \
'leaving_attacks_flies': False, 'fall': 'none', 'least_fall': 'none', 'least_fall_cost': 1}
        >>> pos.legal_moves("a", move=0).actions.tolist()
        [0]
        """
        i = self._fig(figure)
        info = self._info[i] or self._figure_info(i)
        if query:
            q = self._query(query)
            budget = self._budget(i, q)
            paths = q.get("paths", False)
            if type(paths) is not bool:
                paths = get_bool(q, "paths", "query", False)
            calm = q.get("never_attacked_leaving", False)
            if calm is not False:
                if type(calm) is not bool:
                    raise QueryError(f"never_attacked_leaving must be true or false; got "
                                     f"{describe(calm)}")
                if calm and (info.leaves or info.takeoff):
                    info = _Info(**{k: getattr(info, k) for k in _Info.__slots__})
                    info.leaves = info.takeoff = False
        else:
            q, budget, paths = {}, info.move, False
        m = self._moves(i, info, figure, budget, paths, q)
        if info.takeoff and self.engaged[i]:
            # an engaged flyer may walk instead of taking off (and drawing every
            # leaving attack at once): each end's least attacks over both
            m = self._choose(i, m, self._moves(i, self._walk_info(i, info), figure,
                                               budget, paths, q))
        self._last = m
        return m

    def _moves(self, i: int, info: "_Info", figure, budget: int, paths: bool,
               q: dict) -> Moves:
        if len(self.ids) > _MAX_BITS:
            m = _falls().many(self, i, info, figure, budget, paths, q)
        elif info.double:
            m = self._double(i, info, figure, budget, q)
        else:
            m = self._single(i, info, figure, budget, q)
        if paths and m._extra is None:
            _falls().attach_paths(self, m)
        return m

    def _walk_info(self, i: int, info: "_Info") -> "_Info":
        """The _Info of flyer i walking (walking rules: climb limit, water and glyph
        stops, enemies block, leaving attacks per step; its falls never matter, the
        flight never falls)."""
        w = info.walk
        if w is None:
            h = int(self.height[i])
            mc = h - 1 if self.rules.climb_limit == "below_height" else h
            w = _Info(double=info.double, flyer=False, phantom=info.phantom,
                      team=info.team, hclass=info.hclass, move=info.move, falls=False,
                      leaves=True, takeoff=False, kind=self._st.kind(
                          info.double, False, info.phantom, info.team, mc),
                      stop_glyph=True)
            info.walk = w
        return w

    def _choose(self, i: int, flight: Moves, walk: Moves) -> Moves:
        """``flight`` with, per end, the walk's least attacks where they are fewer (or as
        many at less cost): their cost, attackers, path and ``leaving_attacks_flies``
        false (see :func:`heroscape._choose`: a walk's end is always a flight's)."""
        st = self._st
        double = bool(self.double[i])
        A, B = flight.actions, walk.actions
        at = np.full(st.P if double else st.n, -1, np.int64)
        at[A] = np.arange(A.shape[0])
        r = at[B]
        if double:
            r = np.where(r >= 0, r, at[st.flip[B]])
        fc, wc = flight.columns, walk.columns
        wp, wpc = walk.penalty, wc["leaving_attacks_cost"]
        fp, fpc = flight.penalty[r], fc["leaving_attacks_cost"][r]
        better = (wp < fp) | ((wp == fp) & (wpc < fpc))
        rows, k = r[better], np.flatnonzero(better)
        flight.penalty[rows] = wp[k]
        fc["leaving_attacks_cost"][rows] = wpc[k]
        fc["leaving_attacks_flies"][rows] = False
        if "leaving_attackers" in fc:
            fc["leaving_attackers"][rows] = wc["leaving_attackers"][k]
        if flight._extra is not None:
            fe, we = flight._extra, walk.to_dicts()
            for a, b in zip(rows.tolist(), k.tolist()):
                e, w = fe[a], we[b]
                for key in ("leaving_attacks", "leaving_attacks_cost", "leaving_attackers",
                            "leaving_attacks_path"):
                    if key in w:
                        e[key] = w[key]
                e["leaving_attacks_flies"] = False
        return flight

    @staticmethod
    def _flies(info: "_Info", cols, actions: np.ndarray, start: int,
               fstart: int = -1) -> None:
        """The columns ``flies`` and ``leaving_attacks_flies`` of one mode's ends: a
        flyer flies to every end but its start (a flip in place is no flight); a figure
        that does not fly gets one read-only view of zeros for both (nothing made)."""
        E = actions.shape[0]
        if not info.flyer:
            z = _NO_FLIGHT
            if z.shape[0] < E:
                z = _no_flight(E)
            cols["flies"] = cols["leaving_attacks_flies"] = z[:E]
            return
        f = np.empty((2, E), np.bool_)
        np.not_equal(actions, start, out=f[0])
        if fstart >= 0:
            f[0] &= actions != fstart
        f[1] = f[0]
        cols["flies"] = f[0]
        cols["leaving_attacks_flies"] = f[1]

    def _figure_info(self, i: int) -> "_Info":
        """What a query of figure i needs that changes only with the figure itself."""
        st = self._st
        flyer = bool(self.flying[i])
        h = int(self.height[i])
        mc = None if flyer else (h - 1 if self.rules.climb_limit == "below_height" else h)
        double = bool(self.double[i])
        # Ghost Walk (or Phantom Walk) passes all figures; Disengage (or Phantom Walk) is
        # never attacked when leaving an engagement
        passes = bool(self.phantom[i] or self.ghost[i])
        calm = bool(self.phantom[i] or self.disengage[i])
        info = _Info(
            double=double, flyer=flyer, phantom=passes,
            team=int(self.team[i]), hclass=self._hclass(h), move=int(self.move[i]),
            falls=st.master and not flyer and st.field.deepest_drop >= h,
            leaves=st.master and not flyer and not calm,
            takeoff=st.master and flyer and not self.stealth[i] and not calm,
            kind=st.kind(double, flyer, passes, int(self.team[i]), mc),
            stop_glyph=not flyer or self.rules.flyers_stop_on_glyphs)
        self._info[i] = info
        return info

    def _leave_query(self, i: int, budget: int, info: "_Info | None" = None):
        """(leave layer or None, max_penalty) of a walker's move (master game)."""
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
            return self._node_leave_layer(t, h), mp
        return self._leave_layer(t, h), mp

    def _leave_layer(self, t: int, h: int) -> np.ndarray:
        """uint64[n]: the leave layer of team t and height class h (a row of ``_lv``)."""
        r = self._lv_rows.get((t, h))
        if r is None:
            r = self._leave_row(t, h)   # (makes self._lv again)
        return self._lv[r]

    def _who_layer(self, i: int, info: "_Info") -> np.ndarray:
        """The leave layer the who columns of figure i's ends read (master game)."""
        if len(self.ids) > _MAX_BITS:   # more figures than bits: this query's enemies'
            return _falls().near_layer(self, i, info)
        if info.double:
            return self._node_leave_layer(info.team, info.hclass)
        return self._leave_layer(info.team, info.hclass)

    def _who_scratch(self, size: int) -> np.ndarray:
        """int64[size], all -1: ``who_bits``'s row positions (left as found)."""
        pos = self._bufs.get("whopos")
        if pos is None or pos.shape[0] != size:
            pos = self._bufs["whopos"] = np.full(size, -1, np.int64)
        return pos

    def _takeoff(self, i: int, info: "_Info | None" = None) -> int:
        """Leaving attacks of a flyer's take-off (master game, no Stealth Flying)."""
        info = info or self._info[i] or self._figure_info(i)
        return self._adjacent_enemies(i) if info.takeoff else 0

    def _single(self, i: int, info: "_Info", figure, budget: int, q: dict) -> Moves:
        st = self._st
        J = _jit()
        kind = info.kind
        flyer = info.flyer
        start = int(self.cells[i, 0])
        occ = self.occ_any if (flyer or info.phantom or not st.master) else self.occ_walk
        leave, mp = self._leave_query(i, budget, info) if info.leaves else (None, 0)
        code = st.stop_code[info.stop_glyph]
        if leave is None:
            # (the figure's own space stays occupied: a start is never entered again)
            queries = self._buf("q1", (1, 3), np.int64)
            queries[0, 0] = start
            queries[0, 1] = budget
            ends = self._buf("ends1", (3, st.n), T.INDEX)
            total = kind.run_fast(occ, kind.qflags, queries, ends, st.rank)
            out = np.empty((6, total), T.INDEX)
            takeoff = self._takeoff(i, info) if flyer else 0
            if st.master:   # the ends and the who columns in one compiled call
                who = np.empty((2, total), np.uint64)
                J.finish_fast_who(ends, 0, total, code, start, takeoff, out,
                                  self._who_layer(i, info), 2 if info.takeoff else 0,
                                  self._who_scratch(st.n), who)
                cols = {"engaged_with": who[0], "leaving_attackers": who[1]}
            else:
                J.finish_fast(ends, 0, total, code, start, takeoff, out)
                cols = self._who(i, info, out[0])
        else:
            # the query frees the figure's own space for a moment: in this position's
            # own arrays, never in those a copy shares (copy on write, see copy())
            self._own_moves()
            occ = self.occ_any if (flyer or info.phantom or not st.master) else \
                self.occ_walk
            saved = int(occ[start])
            occ[start] = T.OCC_EMPTY
            try:
                rows, tree = kind.run_general(kind.pen_query(mp), occ, kind.qflags, leave,
                                              start, budget, self._buf("src", (1,), T.INDEX))
                n = rows.shape[0]
                out = np.empty((6, n), T.INDEX)
                who = np.empty((2, n), np.uint64)   # (leave: the who columns' layer)
                J.finish_pen_who(rows, st.rank, code, out, tree, leave,
                                 self._who_scratch(st.n), who)
                cols = {"engaged_with": who[0], "leaving_attackers": who[1]}
            finally:
                occ[start] = saved
        cols["leaving_attacks_cost"] = out[4]
        if not info.falls:
            cols["fall"] = cols["least_fall"] = out[5]  # (no fall possible: 0, cost)
            cols["least_fall_cost"] = out[1]
        if info.falls or q:
            cols = _falls().fill(self, i, info, kind, occ, kind.qflags, start, budget,
                                 out[0], out[1], cols, q,
                                 *((rows, tree) if leave is not None else ()))
        self._flies(info, cols, out[0], start)
        return Moves(self, figure, out[0], out[1], out[2], out[3], cols, query=q)

    def _double(self, i: int, info: "_Info", figure, budget: int, q: dict) -> Moves:
        st = self._st
        J = _jit()
        kind = info.kind
        flyer = info.flyer
        t = info.team
        # the query frees the figure's spaces for a moment (free_nodes, restore): in
        # this position's own arrays, never in those a copy shares (see copy())
        self._own_moves()
        c0, c1 = int(self.cells[i, 0]), int(self.cells[i, 1])
        passes_all = flyer or info.phantom
        if passes_all:
            node_occ, occ, any_mode = self._node_layer(0, 1), self.occ_any, 1
        else:
            node_occ, occ, any_mode = self._node_layer(t, 0), self.occ_walk, 0
        leave, mp = self._leave_query(i, budget, info) if info.leaves else (None, 0)
        code = st.node_stop_code[info.stop_glyph]
        flags = self._nflags.get(flyer)
        if flags is None:
            flags = self._nflags[flyer] = kind.qflags.copy()
        # the figure's own spaces are free while it moves: the placements touching them
        # are made again without it, and put back after the query; a start (either
        # orientation) never stops (see heroscape._double_moves)
        saved = self._buf("saved", (26,), T.INDEX)
        saved_at = self._buf("saved_at", (26,), np.int64)
        k = J.free_nodes(node_occ, occ, st.lead, st.trail, st.touch, st.flip, flags, c0,
                         c1, t, any_mode, saved, saved_at)
        start, fstart, k = k >> 5 & 0x1FFFFFFF, k >> 34, k & 31
        rowpos = self._bufs.get("rowpos")
        if rowpos is None:
            rowpos = self._bufs["rowpos"] = np.full(st.P, -1, np.int64)
        try:
            if leave is None:
                queries = self._buf("q1", (1, 3), np.int64)
                queries[0, 0] = start
                queries[0, 1] = budget
                rows = self._buf("endsP", (3, st.P), T.INDEX)
                n = kind.run_fast(node_occ, flags, queries, rows, _NO_ORDER)
                pen_rows = 0
            else:
                rows, tree = kind.run_general(kind.pen_query(mp), node_occ, flags, leave,
                                              start, budget, self._buf("src", (1,), T.INDEX))
                n = rows.shape[0]
                pen_rows = 1
            out = np.empty((6, n), T.INDEX)
            takeoff = self._takeoff(i, info) if flyer else 0
            if st.master:   # the ends and the who columns in one compiled call
                who = np.empty((2, n), np.uint64)
                m = J.finish_double_who(
                    rows, n, pen_rows, st.flip, st.pair_rank, code, rowpos, start, fstart,
                    takeoff, out, tree if pen_rows else _NO_ROWS,
                    self._who_layer(i, info), 1 if pen_rows else 2 if info.takeoff else 0,
                    self._who_scratch(st.P), who)
                cols = {"engaged_with": who[0, :m], "leaving_attackers": who[1, :m]}
            else:
                m = J.finish_double(rows, n, pen_rows, st.flip, st.pair_rank, code, rowpos,
                                    start, fstart, takeoff, out)
                cols = self._who(i, info, out[0, :m])
            if info.falls or q:
                cols = _falls().fill(self, i, info, kind, node_occ, flags, start, budget,
                                     out[0, :m], out[1, :m], cols, q,
                                     *((rows, tree) if pen_rows else ()))
        finally:
            J.restore(node_occ, flags, saved_at, saved, k)
        cols["leaving_attacks_cost"] = out[4, :m]
        if not info.falls:
            cols["fall"] = cols["least_fall"] = out[5, :m]  # (no fall possible: 0, cost)
            cols["least_fall_cost"] = out[1, :m]
        self._flies(info, cols, out[0, :m], start, fstart)
        return Moves(self, figure, out[0, :m], out[1, :m], out[2, :m], out[3, :m], cols,
                     query=q)

    @locked
    def _who(self, i: int, info: "_Info", actions: np.ndarray, rows=None,
             tree=None) -> dict:
        """The columns ``engaged_with`` and ``leaving_attackers`` (uint64[E], bit j =
        figure j: :meth:`ids_of`) of ends ``actions``: the enemies the figure is adjacent
        to there, and those it leaves on the least-attack path of the penalty kernel's
        ``rows`` and ``tree`` (a flyer: those engaged at take-off, on every end but its
        start). One compiled call."""
        st = self._st
        E = actions.shape[0]
        out = np.empty((2, E), np.uint64)
        if not st.master:
            out[:] = 0
            return {"engaged_with": out[0], "leaving_attackers": out[1]}
        layer = self._who_layer(i, info)
        start = fstart = -1
        if rows is not None:
            mode = 1
        elif info.takeoff:
            mode = 2
            start = int(self.cells[i, 0])
            if info.double:
                start = self._node(start, int(self.cells[i, 1]))
                fstart = int(st.flip[start])
        else:
            mode = 0
        pos = self._who_scratch(st.P if info.double else st.n)
        _jit().who_bits(rows if rows is not None else _NO_ROWS, 0 if rows is None else
                        rows.shape[0], tree if tree is not None else _NO_ROWS, layer,
                        actions, st.flip if info.double else _NO_I64, int(info.double),
                        mode, start, fstart, pos, out)
        return {"engaged_with": out[0], "leaving_attackers": out[1]}

    def ids_of(self, mask) -> list:
        """The figure ids of a bit mask of the ``engaged_with`` / ``leaving_attackers``
        columns (bit j = the position's figure j), in play order.

        >>> import movecore as mc
        >>> pos = mc.position({"game": "heroscape", "board": {"cells": [
        ...     {"at": [q, 0]} for q in range(4)]}, "figures": [
        ...     {"id": "a", "team": "red", "at": [1, 0], "move": 2},
        ...     {"id": "orc", "team": "blue", "at": [2, 0]}]})
        >>> m = pos.legal_moves("a")
        >>> [(c, pos.ids_of(e), pos.ids_of(l)) for c, e, l in zip(m.coords.tolist(),
        ...  m.columns["engaged_with"], m.columns["leaving_attackers"])]
        [([1, 0], ['orc'], []), ([0, 0], [], ['orc'])]
        """
        m = int(mask)
        ids = self.ids
        return [ids[j] for j in range(len(ids)) if m >> j & 1]

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

    @locked
    def _end_dicts(self, moves: Moves) -> list[dict]:
        if moves._extra is not None:   # made with the query (paths, a crowd's who)
            return moves._extra
        board = self.board
        i = self.index[moves.figure]
        coord = board.coord
        if self.double[i]:
            st = self._st
            ats = [[list(coord(a)), list(coord(b))] for a, b in
                   zip(st.lead[moves.actions].tolist(), st.trail[moves.actions].tolist())]
        else:
            ats = [list(coord(c)) for c in moves.actions.tolist()]
        reasons = self.STOP_REASONS
        falls = hs.FALLS
        ids_of = self.ids_of
        cols = moves.columns
        return [{"at": at, "cost": c, "stop": reasons[s], "leaving_attacks": p,
                 "leaving_attacks_cost": pc, "leaving_attackers": ids_of(lft),
                 "engaged_with": ids_of(eng), "flies": fl, "leaving_attacks_flies": lfl,
                 "fall": falls[f], "least_fall": falls[lf], "least_fall_cost": lfc}
                for at, c, s, p, pc, lft, eng, fl, lfl, f, lf, lfc in zip(
                    ats, moves.costs.tolist(), moves.stop.tolist(), moves.penalty.tolist(),
                    cols["leaving_attacks_cost"].tolist(),
                    cols["leaving_attackers"].tolist(), cols["engaged_with"].tolist(),
                    cols["flies"].tolist(), cols["leaving_attacks_flies"].tolist(),
                    cols["fall"].tolist(), cols["least_fall"].tolist(),
                    cols["least_fall_cost"].tolist())]

    @locked
    def legal_moves_side(self, side, **query) -> dict:
        """``{id: Moves}`` for every figure of ``side``, each as if it moved first.
        Single-space figures of one kind whose moves draw no leaving attacks (no enemy
        within reach, a flyer, or the basic game) are answered by one kernel call; the
        others one by one.

        >>> import movecore as mc
        >>> pos = mc.position({"game": "heroscape", "board": {"cells": [
        ...     {"at": [q, 0]} for q in range(6)]}, "figures": [
        ...     {"id": "a", "team": "red", "at": [0, 0], "move": 2},
        ...     {"id": "b", "team": "red", "at": [5, 0], "move": 1}]})
        >>> {f: m.coords.tolist() for f, m in pos.legal_moves_side("red").items()}
        {'a': [[0, 0], [1, 0], [2, 0]], 'b': [[5, 0], [4, 0]]}
        """
        q = self._query(query) if query else {}
        members = [i for i, t in enumerate(self.team_name) if t == side and self.alive[i]]
        out: dict = {}
        if q.get("paths") or q.get("never_attacked_leaving") or len(self.ids) > _MAX_BITS:
            return {self.ids[i]: self.legal_moves(self.ids[i], **q) for i in members}
        groups: dict = {}
        for i in members:
            info = self._info[i] or self._figure_info(i)
            if info.double or info.falls or (info.takeoff and self.engaged[i]) or (
                    info.leaves and self._relevant(i, self._budget(i, q)) > 0):
                continue
            groups.setdefault(info.kind, []).append(i)
        done: dict = {}
        for kind, idx in groups.items():
            if len(idx) == 1:
                continue
            done.update(self._batch(kind, idx, q))
        for i in members:
            fid = self.ids[i]
            out[fid] = done[fid] if fid in done else self.legal_moves(fid, **q)
        return out

    def _batch(self, kind: _Kind, idx: list, q: dict) -> dict:
        """Moves of single-space figures ``idx`` of one kind, without leaving attacks,
        from one kernel call (each figure's own space stays occupied for the others' and
        its own query: a start is never entered again, so that changes nothing)."""
        st = self._st
        k = len(idx)
        queries = self._buf(f"q{k}", (k, 3), np.int64)
        for r, i in enumerate(idx):
            queries[r, 0] = self.cells[i, 0]
            queries[r, 1] = self._budget(i, q)
        ends = self._bufs.get("endsB")
        if ends is None or ends.shape[1] < k * st.n:
            ends = self._bufs["endsB"] = np.empty((3, k * st.n), T.INDEX)
        i0 = idx[0]
        flyer = bool(self.flying[i0])
        occ = self.occ_any if (flyer or self.phantom[i0] or self.ghost[i0] or
                               not st.master) else \
            self.occ_walk
        kind.run_fast(occ, kind.qflags, queries, ends, st.rank)
        code = st.stop_code[not flyer or self.rules.flyers_stop_on_glyphs]
        J = _jit()
        out = {}
        lo = 0
        for r, i in enumerate(idx):
            hi = lo + int(queries[r, 2])
            o = np.empty((6, hi - lo), T.INDEX)
            J.finish_fast(ends, lo, hi, code, int(self.cells[i, 0]),
                          self._takeoff(i) if flyer else 0, o)
            info = self._info[i] or self._figure_info(i)
            cols = self._who(i, info, o[0])
            cols["leaving_attacks_cost"] = o[4]
            cols["fall"] = cols["least_fall"] = o[5]
            cols["least_fall_cost"] = o[1]
            self._flies(info, cols, o[0], int(self.cells[i, 0]))
            out[self.ids[i]] = Moves(self, self.ids[i], o[0], o[1], o[2], o[3], cols,
                                     query=q)
            lo = hi
        return out

    # ---------------------------------------------------------------- scenario form
    def to_scenario(self, query: Mapping | None = None) -> dict:
        """The scenario of this position (``solve()`` of it answers as this position)."""
        if self._scenario is not None:
            s = {k: _copy.deepcopy(v) for k, v in self._scenario.items()
                 if k not in ("figures", "query", "board")}
            # (a validated board: cells of scalars and an "at" pair; copied cell by cell,
            # a deep copy of a large battlefield costs milliseconds)
            s["board"] = {"cells": [{**c, "at": list(c["at"])}
                                    for c in self._scenario["board"]["cells"]]}
        else:
            f = self.field
            cells = []
            for c in range(self._st.n):
                e = {"at": list(self.board.coord(c)), "level": int(f.level[c]),
                     "terrain": f.terrain[c]}
                if f.obstacle[c] is not None:
                    e["obstacle"] = f.obstacle[c]
                if f.glyph[c] is not None:
                    e["glyph"] = f.glyph[c]
                cells.append(e)
            r = self.rules
            s = {"game": "heroscape", "board": {"cells": cells},
                 "options": {"mode": r.mode, "climb_limit": r.climb_limit,
                             "flyers_stop_in_water": r.flyers_stop_in_water,
                             "flyers_stop_on_glyphs": r.flyers_stop_on_glyphs}}
        s["game"] = "heroscape"
        figs = []
        coord = self.board.coord
        for i in np.flatnonzero(self.alive).tolist():
            e = {"id": self.ids[i], "team": self.team_name[i]}
            if self.double[i]:
                e["at"] = [list(coord(int(c))) for c in self.cells[i]]
            else:
                e["at"] = list(coord(int(self.cells[i, 0])))
            e.update(_copy.deepcopy(self.raw[i]))
            e.update(move=int(self.move[i]), height=int(self.height[i]),
                     flying=bool(self.flying[i]), stealth_flying=bool(self.stealth[i]),
                     phantom_walk=bool(self.phantom[i]), ghost_walk=bool(self.ghost[i]),
                     disengage=bool(self.disengage[i]))
            figs.append(e)
        s["figures"] = figs
        if query is not None:
            s["query"] = dict(query)
        return s

    def solve(self, query: Mapping) -> dict:
        """``solve()``'s result for a scenario ``query`` object (with ``figure``)."""
        query = expect_object(query, "query")
        expect_keys(query, "query", ("figure",) + _QUERY_KEYS, required=("figure",))
        fid = get_id(query, "figure", "query")
        move = get_int(query, "move", "query", None, lo=0, hi=T.MAX_BUDGET,
                       allow_none=True)
        want_paths = get_bool(query, "paths", "query", False)
        calm = get_bool(query, "never_attacked_leaving", "query", False)
        i = self.index.get(figure_key(fid), -1)
        if i < 0 or not self.alive[i]:
            raise QueryError(f"query.figure names figure {fid!r}, which is not in the "
                             f"scenario; known figures: {self.figures}")
        kw = {"paths": True} if want_paths else {}
        if calm:
            kw["never_attacked_leaving"] = True
        if move is not None:
            kw["move"] = move
        m = self.legal_moves(fid, **kw)
        return {"figure": fid, "double_space": bool(self.double[i]),
                "mode": self.rules.mode, "move": int(self.move[i]) if move is None
                else move, "ends": m.to_dicts()}


def read_rules(opts) -> hs.Rules:
    """``options`` of a Heroscape scenario."""
    opts = expect_object(opts, "options")
    expect_keys(opts, "options", ("mode", "climb_limit", "flyers_stop_in_water",
                                  "flyers_stop_on_glyphs"))
    return hs.Rules(mode=get_str(opts, "mode", "options", hs.MODES, "master"),
                    climb_limit=get_str(opts, "climb_limit", "options", hs.CLIMB_LIMITS,
                                        "below_height"),
                    flyers_stop_in_water=get_bool(opts, "flyers_stop_in_water", "options",
                                                  False),
                    flyers_stop_on_glyphs=get_bool(opts, "flyers_stop_on_glyphs",
                                                   "options", False))


# ------------------------------------------------------------------ undo entries
def _unmove(pos: Position, i: int, c0: int, c1: int) -> None:
    """Figure i back on spaces ``c0`` (, ``c1``): the move's own incremental update."""
    pos._relocate(i, c0, c1 if pos.double[i] else -1)


def _unremove(pos: Position, i: int, c0: int, c1: int) -> None:
    pos._own_moves()
    pos.alive[i] = True
    pos._live[pos.ids[i]] = i
    pos._relocate(i, c0, c1 if pos.double[i] else -1)
