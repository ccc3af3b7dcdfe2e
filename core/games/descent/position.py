"""The live position of Descent 1st edition (``movecore.games.descent.Position``).

A :class:`Position` holds one dungeon, the party's rune keys, the door states and the
figures as arrays. Everything that depends only on the dungeon and the *kind* of a
figure (side, footprint, flying) is built once and shared by every copy
(:class:`._static._Static`, :class:`._kind_graph._KindGraph`): the placement graph (one
node per anchor square, the town, and "air" nodes of pit jumps), its per-node facts, and
one packed board and prepared kernel query per door state. Per position, each kind of
mover keeps its layers (occupancy, stops, aura wounds) as arrays the prepared query reads
directly (:class:`._layers._KindState`), so moving, adding or removing a figure writes
only the few nodes it touches. The package's other modules: see its docstring.
"""
from __future__ import annotations

import threading
from dataclasses import replace as _replace
from typing import Mapping

import numpy as np
from numba import njit

from ...board import Board
from ...errors import IllegalMoveError, PlacementError, QueryError, ScenarioError, describe
from ...kernels import _types as T
from ...position import Moves, check_actions, figure_key, locked, register_position
from ...position import Position as _Position
from ...scenario import as_coord, expect_keys, expect_object, get_bool
from . import rules as D
from ._answers import _Columns, _Extra, _GameWords
from ._doors import _DoorStates
from ._dungeon import SIDE_CODE, STOP_GRAPPLE, STOP_GRAPPLED, STOP_REASONS, _gc_paused
from ._layers import _KindLayers
from ._static import _static_for
from ._window import _reach_window
# the names this module has always offered (tests, docs and callers import them here)
from ._door_memory import MEMORY_NODES_MAX, memory_radius  # noqa: F401,E402
from ._dungeon import (GRID_MAX, JUMP_LAND, JUMP_OVER, JUMP_TAKE_OFF,  # noqa: F401
                       OPEN, OPENABLE, SHUT, STOP_ICE)
from ._kind_graph import NODES_MAX  # noqa: F401
from ._layers import _KindState, wound_cap  # noqa: F401
from ._static import _STATICS  # noqa: F401

_QUERY_KEYS = D.QUERY_KEYS
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


# ----------------------------------------------------------------------------- position
@register_position("descent")
class Position(_DoorStates, _GameWords, _KindLayers, _Position):
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
    def _from_parts(cls, scenario: Mapping, query=None) -> "Position":
        """The position of a scenario; with ``query`` (``solve()``: a one-off answer)
        on a big board, that of the part of the dungeon the move can reach
        (:func:`._window._reach_window`)."""
        with _gc_paused():
            return cls._read_parts(scenario, query)

    @classmethod
    def _read_parts(cls, scenario: Mapping, query) -> "Position":
        st = D.read_scenario(scenario, query=False)
        dungeon, figures, turns = st.dungeon, st.figures, st.options["large_turns"]
        if query is not None:
            box = _reach_window(dungeon, figures, query, turns, st.rune_keys)
            if box is not None:
                dungeon, figures = box
        return cls(dungeon, figures, rune_keys=st.rune_keys, **st.options)

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
        """Where the figure stands: its square ``(x, y)``; a large monster's squares, a
        list of ``(x, y)`` (its top-left square, the anchor, first); or ``"town"``.

        >>> import movecore as mc
        >>> pos = mc.position({"game": "descent", "board": {"width": 3, "height": 2},
        ...     "figures": [{"id": "ogre", "side": "monster", "at": [0, 0],
        ...                  "footprint": "2x2", "speed": 3}]})
        >>> pos.where("ogre")
        [(0, 0), (1, 0), (0, 1), (1, 1)]
        """
        i = self._fig(figure)
        a = self.anchor[i]
        if a < 0:
            return D.TOWN
        squares = self.st.squares
        if self.size[i] == (1, 1):
            return squares[a]
        return [squares[s] for s in self._squares(i, a)]

    @property
    def board(self):
        """The dungeon's squares as a :class:`~movecore.Board` (8 neighbours): cell ``s``
        is square ``s`` in map order, the action id of a one-square figure standing
        there (the town, action ``NS``, has no cell). Built once per dungeon, shared by
        copies; terrain and doors are in ``self.st.dungeon``, not in this board."""
        st = self.st
        board = getattr(st, "squares_board", None)
        if board is None:
            board = st.squares_board = Board.square_cells(st.squares, neighbours=8)
        return board

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
        ks = self.kstate.get(self.fkey[i] + (radius,))     # (none where door-scoped)
        if ks is None:
            ks = self._kind_state(i, radius, mp)
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
            # (door-scoped graphs differ per figure: each is asked on its own)
            if self.size[i] == (1, 1) and not self.st.scoped:
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

    #: ``_batch_layout`` takes one query per figure slot (heroes and monsters differ)
    _batch_queries = True

    def _batch_layout(self, query):
        """The batched arrays backend's layout (see :mod:`._batch`)."""
        from ._batch import batch_layout
        return batch_layout(self, query)

    def n_actions(self, figure) -> int:
        """Squares of the dungeon + 1 (the town); a monster that may turn (a two-square
        or 2x3 base, option ``large_turns``) has one more action per square:
        ``NS + 1 + s`` = its base turned, at square s."""
        i = self._fig(figure)
        if D.turns_allowed(self.size[i], self.st.large_turns):
            return self.st.plain_kind(self._kind_key(i)).n_actions
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
        g = self.st.plain_kind(self._kind_key(i))
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

    def solve(self, query: Mapping) -> dict:
        """``movecore.solve()``'s result for a query dict in the game's words
        (``{"figure": id, "action": ..., "paths": ...}``)."""
        fid = D.read_query(query, self.figures)
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
