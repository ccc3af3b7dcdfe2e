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
  placements (per team), and the leaving-engagement masks of spaces per (team, height
  class), one bit per enemy figure; no scratch (each thread's own), and no leave masks of
  placements: a double-space figure's query makes the row it reads from the spaces' in
  one compiled pass, into its thread's scratch (batched self-play holds thousands of
  copies: a copy of the largest bundled map holds about 18 KiB).

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

The position is written in parts, one module each: this one (construction, copies,
figures, changes, actions, ``legal_moves``, scenario form), :mod:`._shared` (what copies
share: placement facts, kinds of mover and their packed queries), :mod:`._layers` (the
occupancy, engagement and leave layers, kept up to date by every change) and
:mod:`._figure_moves` (one figure's move: the kernels run and the ends finished).
"""
from __future__ import annotations

import copy as _copy
from typing import Mapping

import numpy as np

from ...errors import IllegalMoveError, PlacementError, QueryError, describe
from ...kernels import _types as T
from ...position import (Moves, check_actions, figure_key, fresh_lock, locked,
                         new_figure_id, register_position)
from ...position import Position as _Position
from ...scenario import as_coord, get_bool, get_int
from . import rules as hs
from ._entry import _jit
from ._figure_moves import _FigureMoves
from ._layers import _MAX_BITS, _Layers
from ._shared import _Info, _falls, _static

_QUERY_KEYS = hs.QUERY_KEYS
read_rules = hs.read_rules     # (its old home: ``heroscape.position.read_rules``)


# ------------------------------------------------------------------------------ position
@register_position("heroscape")
class Position(_Layers, _FigureMoves, _Position):
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
    pair once, in the orientation ``solve()`` reports: the placement with the least
    ``rules.placement_key``, not the search's order); ``stop`` codes index
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
        setup = hs.read_scenario(scenario, query=False)
        return cls(setup.field, setup.army, setup.rules, scenario=scenario)

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
            d["_bufs"] = {}
            d["_last"] = None
            d["_lock"] = fresh_lock()
            return new

    _moves_shared = False     # (class defaults: see copy())
    _figs_shared = False

    #: What a move writes in place (shared by copies until either moves: _own_moves).
    _MOVE_ARRAYS = ("cells", "alive", "at_fig", "occ_any", "occ_walk", "engaged", "_lv",
                    "_nw")

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
        state.update(field=field_, _info=[None] * len(self._info), _bufs={},
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
        t = type(figure)     # (a str or int id is its own key: figure_key's first test)
        i = self._live.get(figure if t is str or t is int else figure_key(figure))
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
        >>> m.coords.tolist()[-1]        # lead first (the lower placement of a tie)
        [[2, 0], [3, 0]]
        >>> pos.apply_move("wyrm", [[3, 0], [2, 0]])   # that end, the other way round
        >>> pos.where("wyrm")
        [(3, 0), (2, 0)]
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

    def _batch_layout(self, query: Mapping):
        """The batched arrays backend's layout (see :mod:`._batch`)."""
        from ._batch import batch_layout
        return batch_layout(self, query)

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
        out = []
        while m:            # (the set bits only, low to high: most masks are 0 or 1 bit)
            low = m & -m
            j = low.bit_length() - 1
            if j >= len(ids):
                break
            out.append(ids[j])
            m ^= low
        return out

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
        fid, kw = hs.read_query(query, self.figures)
        i = self.index[figure_key(fid)]
        move = kw.get("move")
        m = self.legal_moves(fid, **kw)
        return {"figure": fid, "double_space": bool(self.double[i]),
                "mode": self.rules.mode, "move": int(self.move[i]) if move is None
                else move, "ends": m.to_dicts()}


# ------------------------------------------------------------------ undo entries
def _unmove(pos: Position, i: int, c0: int, c1: int) -> None:
    """Figure i back on spaces ``c0`` (, ``c1``): the move's own incremental update."""
    pos._relocate(i, c0, c1 if pos.double[i] else -1)


def _unremove(pos: Position, i: int, c0: int, c1: int) -> None:
    pos._own_moves()
    pos.alive[i] = True
    pos._live[pos.ids[i]] = i
    pos._relocate(i, c0, c1 if pos.double[i] else -1)
