"""The live position of Mage Knight (``movecore.games.mage_knight.Position``).

Imported by :mod:`movecore.games.mage_knight` (import it from there). A position holds the
map (a :class:`~movecore.games.mage_knight.MageKnightMap`, immutable, shared by copies),
per-space arrays derived from it (assault spaces per player, rampaging enemies and their
provoke bits, safe spaces, the rank of each space in the result order), one prepared
query per cost table and kind of player, and the heroes as arrays. Heroes never block a
move (they are passed freely), so moving a hero touches no kernel layer at all: only the
hero arrays and the one-hero-per-space table the ``safe`` / ``pvp`` columns read.

A move is answered by the packed one-thread kernel in end mode (cells, costs, stopped,
already sorted as ``solve()`` lists them); what needs the search tree (which rampaging
enemy an end provokes, the cheapest arrival that does not provoke, paths) is worked out
only when asked for (``to_dicts()``, ``columns["provoked"]``, ``columns["free_cost"]``),
by the same kernel in tree mode.
"""
from __future__ import annotations

import copy as _copy
from typing import Mapping, Sequence

import numpy as np
from numba import njit

from ...errors import (IllegalMoveError, LimitError, PlacementError, QueryError,
                      ScenarioError, describe)
from ...kernels import _types as T
from ...mover import Mover
from ...position import (BUILD_LOCK, CellActions, LazyColumns, Moves, cell_index,
                         figure_key, new_figure_id, register_position, scratch_rows)
from ...position import Position as _Position
from ...reach import Prepared, prepare
from ...scenario import (as_coord, expect_keys, expect_object, get_bool, get_int, get_list,
                        get_str)
from . import rules as mk
from .._common import coord_list

_QUERY_KEYS = ("budget", "paths", "mode", "end_safe", "reveal")
_MODES = ("move", "direct")
_NO_TOKEN = -1
_FLAG_STOP = int(T.CELL_STOP)
_FLAG_BLOCKED = int(T.CELL_BLOCKED)
_FLAG_NO_END = int(T.CELL_NO_END)
#: Prepared queries kept per position (cost tables x kinds of player); more are dropped.
_MAX_PREPARED = 32


#: Rows of a move's block (int32[_ROWS, E]): cells, costs, stop, safe, pvp, occupied,
#: can_stay, penalty (0).
_ROWS = 8


@njit(cache=T.CACHE, nogil=True)
def _finish_ends(ends, total, start, team_at, assault_at, safe_at, accessible, my_team,
                 pvp, is_move, drop_occupied, out):
    """The rows of a move's ``out`` block (int32[8, total], see ``_ROWS``) from the
    kernel's sorted ends (int32[3, >= total]: cell, cost, stopped): stop code (1 assault,
    2 provoked), safe, pvp, occupied, can_stay (0/1), penalty 0. ``team_at``: int32[N]
    team of the hero on a one-hero space (-1 none); ``assault_at`` / ``safe_at`` /
    ``accessible``: bool[N] of the moving player. With ``drop_occupied`` the ends on
    another hero's one-hero space are left out (a direct move ending safe: such a space
    is passed, never an end, and passing a space is all a direct move does with it).
    Returns the number of ends written."""
    k = 0
    for j in range(total):
        v = ends[0, j]
        here = v != start
        ta = team_at[v]
        occupied = here and ta >= 0
        if occupied and drop_occupied:
            continue
        out[0, k] = v
        out[1, k] = ends[1, j]
        if here and assault_at[v]:
            out[2, k] = 1
        elif is_move and ends[2, j] != 0:
            out[2, k] = 2
        else:
            out[2, k] = 0
        out[3, k] = 1 if (not here) or (safe_at[v] and not occupied) else 0
        out[4, k] = 1 if pvp and occupied and ta != my_team else 0
        out[5, k] = 1 if occupied else 0
        out[6, k] = 1 if (not here) or (accessible[v] and not occupied) else 0
        out[7, k] = 0
        k += 1
    return k


@njit(cache=T.CACHE, nogil=True)
def _any_tricky(cells, stop, start, zoc):
    """Does some end other than the start stop next to a rampaging enemy (so that which
    enemy it provoked, or whether its cheapest arrival provoked, needs the tree)?"""
    for k in range(cells.shape[0]):
        v = cells[k]
        if stop[k] != 0 and v != start and zoc[v] != 0:
            return True
    return False


@njit(cache=T.CACHE, nogil=True)
def _provoke_detail(cells, costs, stop, start, zoc, zoc_from, nbr, edges, terrain, table,
                    budget, r_cells, r_free, r_tree, r_tree_of, free_at, parent_at,
                    every_stop, provoked, free_cost, tokens, quiet_from):
    """What a normal move's stopped ends provoked (the rules of RULES.md §1, as
    ``mage_knight.move`` words them): per end (rows of ``cells``/``costs``/``stop``, the
    sorted ends), ``provoked`` 0/1, ``free_cost`` (cheapest arrival that does not provoke
    where the cheapest one does; -1 none), ``tokens`` (uint64 bits of the enemies
    provoked), ``quiet_from`` (an assault end's cheapest quiet predecessor, -1 none).
    The step ``u -> v`` provokes the enemies of ``zoc_from[u] & zoc[v]`` (walls: see
    ``mage_knight.provoke_layers``). ``edges``: the board's sides (int32[N, K, 2] or [0, K, 2]): a wall adds its cost to
    a step (the same both ways, so the side of ``v`` towards ``u`` is read).

    ``r_cells``/``r_free``/``r_tree``/``r_tree_of``: the tree-mode run's ends, their
    cheapest arrival that may go on (-1 none), its search tree (rows: cell, cost,
    flags, parent row) and each end's least-cost row (column 0): what
    :attr:`Reach.parents` reads (:attr:`Reach.tree` and :attr:`Reach.tree_rows`, read
    here to spare its NumPy walk). ``free_at`` (int64[N]) / ``parent_at`` (int32[N]) are filled per
    space. Ends examined: stopped ones next to an enemy, or every stopped one with
    ``every_stop`` (paths are wanted: an assault end's path runs through ``quiet_from``).
    """
    n = free_at.shape[0]
    for c in range(n):
        free_at[c] = -1
        parent_at[c] = -1
    for j in range(r_cells.shape[0]):
        free_at[r_cells[j]] = r_free[j]
        row = r_tree_of[j, 0]
        prow = r_tree[row, 3] if row >= 0 else -1
        parent_at[r_cells[j]] = r_tree[prow, 0] if prow >= 0 else -1
    free_at[start] = 0
    for k in range(cells.shape[0]):
        v = cells[k]
        if stop[k] == 0 or v == start or (zoc[v] == 0 and not every_stop):
            continue
        if stop[k] == 1:  # an assault: every arrival stops; prefer one that is quiet
            best = -1
            for d in range(nbr.shape[1]):
                u = nbr[v, d]
                step = table[terrain[v]]
                if edges.shape[0] > 0:
                    step += edges[v, d, 0]
                if u < 0 or free_at[u] < 0 or free_at[u] + step > budget:
                    continue
                if (zoc_from[u] & zoc[v]) != 0:
                    continue
                c = free_at[u] + step
                if best < 0 or c < best:
                    best = c
                    quiet_from[k] = u
            if best == costs[k]:
                continue
            if best >= 0:
                free_cost[k] = best
        elif free_at[v] >= 0:
            free_cost[k] = free_at[v]
        u = parent_at[v]
        if u >= 0:
            tokens[k] = zoc_from[u] & zoc[v]
        if tokens[k] != 0:
            provoked[k] = 1


class _Columns(LazyColumns):
    """``Moves.columns`` of a Mage Knight move. ``safe``, ``pvp``, ``occupied`` and
    ``can_stay`` are rows of the block the ends were written to (made into arrays on
    first access); ``provoked`` and ``free_cost`` need the search tree where a stopped
    end is next to a rampaging enemy, so they are worked out on first access of either
    (or of the dict as a whole: :class:`~movecore.position.LazyColumns`)."""

    __slots__ = ("_block",)
    _ROW = {"safe": 3, "pvp": 4, "occupied": 5, "can_stay": 6}

    def __init__(self, block: np.ndarray, fill):
        LazyColumns.__init__(self, {}, fill)
        self._block = block

    def _load(self) -> None:
        if self._block is not None:
            for k, row in self._ROW.items():
                if not dict.__contains__(self, k):
                    dict.__setitem__(self, k, self._block[row])
            self._block = None
        LazyColumns._load(self)

    def __getitem__(self, key):
        if not dict.__contains__(self, key):
            row = self._ROW.get(key)
            if row is not None and self._block is not None:
                v = self._block[row]
                dict.__setitem__(self, key, v)
                return v
            self._load()
        return dict.__getitem__(self, key)


class _Layers:
    """Per-space arrays derived from the map (N = cells of the map), shared by copies of
    a position until one of them changes the map (copy on write).

    stop_any:   bool[N]  entering ends the move for a player owning no keep (an
                         unconquered keep, mage tower or city, or a keep anyone owns).
    rampaging:  bool[N]  a rampaging enemy stands there (cannot be entered).
    accessible: bool[N]  accessible under normal conditions (no lake / mountain unless a
                         city, no rampaging enemy).
    holds_many: bool[N]  a portal or a conquered city (several heroes, never pvp).
    zoc:        uint64[N] bit b set next to the rampaging enemy of bit b, no wall between.
    zoc_from:   uint64[N] bit b set next to it, walls or not (``zoc`` itself when the map
                has no walls): the step u -> v provokes ``zoc_from[u] & zoc[v]``.
    stop_sides: [(u, v)] provoking steps from a space walled off from an enemy (one-way
                stop sides of ``stop_board``, the board of the provoking moves).
    zoc_any:    bool[N]  zoc != 0.
    bit_cell:   int64[64] the space of each bit's enemy (-1: free bit).
    rank:       int64[N] rank of each space in (q, r) order (ends sort by cost, rank).
    keeps_of:   {player: [cells]} keeps owned, per player.
    player:     {player key: (flags uint8[N], assault bool[N], safe bool[N])}: kernel
                cell flags of a normal move, the assault spaces and the safe spaces
                (heroes aside) for that player (key None: a player owning no keep).
    prepared:   {(table, player key, end_safe): Prepared} (table None: a direct move).
    next_cells: {open position: int32 array} spaces next to it (reveal from there).
    """

    __slots__ = ("n", "stop_any", "rampaging", "accessible", "holds_many", "zoc",
                 "zoc_from", "stop_sides", "stop_board", "zoc_any", "bit_cell", "rank",
                 "keeps_of", "player", "prepared", "next_cells")

    def clone(self) -> "_Layers":
        new = object.__new__(_Layers)
        for k in self.__slots__:
            v = getattr(self, k)
            setattr(new, k, v.copy() if isinstance(v, np.ndarray) else v)
        if self.zoc_from is self.zoc:
            new.zoc_from = new.zoc
        # (list(...items()): a snapshot, while positions sharing these layers may add
        # entries in other threads)
        new.keeps_of = {p: list(c) for p, c in list(self.keeps_of.items())}
        new.player = {k: tuple(a.copy() for a in v) for k, v in list(self.player.items())}
        # a prepared query owns its layers: copied (the packed board and mover shared)
        new.prepared = {k: p.copy() for k, p in list(self.prepared.items())}
        new.next_cells = dict(self.next_cells)
        return new


def _build_layers(m: "mk.MageKnightMap") -> _Layers:
    L = object.__new__(_Layers)
    spaces = m.spaces
    n = len(spaces)
    L.n = n
    L.stop_any = np.fromiter((s.stops(None) for s in spaces), bool, n)
    L.rampaging = np.fromiter((s.rampaging is not None for s in spaces), bool, n)
    L.accessible = np.fromiter((s.accessible() for s in spaces), bool, n)
    L.holds_many = np.fromiter((s.holds_many() for s in spaces), bool, n)
    tokens = np.flatnonzero(L.rampaging)
    if len(tokens) > 64:
        raise LimitError(f"{len(tokens)} rampaging enemies; at most 64 are supported per "
                         f"query")
    L.bit_cell = np.full(64, _NO_TOKEN, np.int64)
    L.bit_cell[:len(tokens)] = tokens
    _token_layers(L, m.board)
    L.rank = _rank(m.board)
    L.keeps_of = {}
    for c, s in enumerate(spaces):
        if s.site == "keep" and s.owner is not None:
            L.keeps_of.setdefault(s.owner, []).append(c)
    L.player = {}
    L.prepared = {}
    L.next_cells = {p: np.array(m.cells_next_to(p), np.int32) for p in m.open}
    return L


def _token_layers(L: _Layers, board) -> None:
    """``zoc``, ``zoc_from``, ``stop_sides``, ``stop_board``, ``zoc_any`` of the enemies
    of ``L.bit_cell`` on ``board``."""
    L.zoc, L.zoc_from, L.stop_sides = mk.provoke_layers(board, L.bit_cell.tolist())
    L.stop_board = None
    L.zoc_any = L.zoc != 0


def _rank(board) -> np.ndarray:
    rank = np.empty(board.n_cells, np.int64)
    rank[np.lexsort((board.coords[:, 1], board.coords[:, 0]))] = np.arange(board.n_cells)
    return rank


def _read_time(time) -> str:
    if time not in mk.TIMES:
        raise QueryError(f"time is {describe(time)}; expected one of {list(mk.TIMES)}")
    return time


#: Cost tables met so far (Move cost per cost class, -1 = cannot enter) and their keys:
#: a prepared query is found by a small int, not by hashing its table every query.
_TABLES: list[tuple] = []
_TABLE_KEYS: dict[tuple, int] = {}


_TABLE_ARRAYS: list[np.ndarray] = []
#: (quiet, bend) of each key: no step provokes / Space Bending (spaces 2 away adjacent).
_TABLE_MODE: list[tuple[bool, bool]] = []
#: Cost classes a direct move may not end on, per direct key -1 - i (None: no such class).
_FORBIDS: list[frozenset] = []


def _table(time: str, reductions, enter, forbid=(), quiet=False, bend=False) -> int:
    """Key (into ``_TABLES``) of the cost table of ``time`` with these effects."""
    costs = mk.terrain_costs(time, reductions, enter, forbid)
    table = tuple(-1 if costs[t] is None else costs[t] for t in mk.COST_CLASSES)
    full = (table, bool(quiet or bend), bool(bend))
    key = _TABLE_KEYS.get(full)
    if key is None:
        key = _TABLE_KEYS[full] = len(_TABLES)
        _TABLES.append(table)
        _TABLE_ARRAYS.append(np.array(table, np.int32))
        _TABLE_MODE.append(full[1:])
    return key


def _direct_key(forbid) -> int | None:
    """Key of a direct move's prepared query: None, or -1 - i for ``_FORBIDS[i]``."""
    if not forbid:
        return None
    f = frozenset(forbid)
    if f not in _FORBIDS:
        _FORBIDS.append(f)
    return -1 - _FORBIDS.index(f)


@register_position("mage_knight")
class Position(CellActions, _Position):
    """A live Mage Knight position: the map, the options (time of day, effects played,
    player combat) and the heroes; every hero plays for itself (its side is its id).

    Query keys (the scenario ``query`` keys but ``figure``): ``budget`` (Move points, or
    spaces for a direct move; default: the scenario's query budget), ``paths``, ``mode``
    (``"move"`` | ``"direct"``), ``end_safe`` (direct only), ``reveal`` (tiles revealed
    first: the answer is that of a copy with those tiles; ``apply_move`` reveals them).

    Moves: ``actions`` are map spaces (cell indices; ``n_actions`` grows when a tile is
    revealed); ``stop`` is 1 (``"assault"``: ending there is an assault) or 2
    (``"provoked"``: the move ends there because it provoked a rampaging enemy), 0
    otherwise; ``penalty`` is 0. Columns (int32 per end): ``safe`` (1: a safe space),
    ``pvp`` (1: ending there attacks another hero), ``occupied`` (1: another hero stands
    on a space that holds one hero: :meth:`apply_move` refuses it), ``provoked`` (1: the
    cheapest arrival provokes, also on an assault space), ``free_cost`` (the cheapest
    arrival that does not provoke where that is dearer, else -1), ``can_stay`` (1: the
    hero may stay there, the ends :meth:`apply_move` accepts: not ``occupied``, not a
    lake or mountain entered by an effect).

    State changes: :meth:`apply_move`, :meth:`add_figure`, :meth:`remove_figure`,
    :meth:`set_time`, :meth:`set_effects`, :meth:`set_pvp`, :meth:`reveal_tile`,
    :meth:`conquer`, :meth:`defeat_enemy`.

    >>> import movecore as mc
    >>> pos = mc.position({"game": "mage_knight", "board": {"cells": [
    ...     {"at": [0, 0], "terrain": "plains"}, {"at": [1, 0], "terrain": "forest"},
    ...     {"at": [2, 0], "terrain": "plains", "site": "keep"}]},
    ...     "figures": [{"id": "tovak", "at": [0, 0]}]})
    >>> m = pos.legal_moves("tovak", budget=5)
    >>> m.coords.tolist(), m.costs.tolist(), m.stop.tolist()
    ([[0, 0], [1, 0], [2, 0]], [0, 3, 5], [0, 0, 1])
    >>> pos.set_time("night"); pos.legal_moves("tovak", budget=5).costs.tolist()
    [0, 5]
    >>> pos.conquer((2, 0), by="tovak"); pos.set_time("day")
    >>> pos.apply_move("tovak", (2, 0), budget=5); pos.where("tovak")
    (2, 0)
    """

    STOP_REASONS = (None, "assault", "provoked")

    def __init__(self, m: "mk.MageKnightMap", heroes: Sequence["mk.Hero"], *,
                 time: str = "day", pvp: bool = True, reductions: Sequence[Mapping] = (),
                 enter: Sequence[Mapping] = (), default_query: Mapping | None = None,
                 scenario: Mapping | None = None, turn: Mapping | None = None,
                 cities: str = "open"):
        """``m``: the map; ``heroes``: :class:`~movecore.games.mage_knight.Hero` (their
        cells on ``m``); options as in the scenario (``reductions`` / ``enter`` already
        validated, see :func:`~movecore.games.mage_knight.read_effects`; ``turn``: the
        other turn effects, see :func:`~movecore.games.mage_knight.read_turn`)."""
        self.map = m
        self._L = _build_layers(m)
        self._owned = True                # self._L is this position's alone
        self.time = _read_time(time)
        self.pvp = bool(pvp)
        self.reductions = [dict(r) for r in reductions]
        self.enter = [dict(e) for e in enter]
        if cities not in mk.CITY_RULES:
            raise QueryError(f"cities is {describe(cities)}; expected one of "
                             f"{list(mk.CITY_RULES)}")
        self.cities = cities
        self._set_turn(_copy.deepcopy(dict(turn or mk.NO_TURN_EFFECTS)))
        self.default_query = dict(default_query or {})
        self._default_budget = self.default_query.get("budget")
        self._scenario = scenario
        self.ids = [h.id for h in heroes]
        self.index = {h: i for i, h in enumerate(self.ids)}
        self.team_name = [h.team for h in heroes]
        self.teams: dict = {}
        for t in self.team_name:
            self.teams.setdefault(t, len(self.teams))
        self.team_list = [self.teams[t] for t in self.team_name]   # team id per hero
        self.cell = np.array([h.cell for h in heroes], np.int32)
        self.alive = np.ones(len(heroes), bool)
        # team id of the hero on each space holding one hero (-1: none, or a portal /
        # conquered city, where heroes never fight and a space stays safe)
        self.team_at = np.full(m.board.n_cells, -1, np.int32)
        for i, c in enumerate(self.cell.tolist()):
            if not self._L.holds_many[c]:
                self.team_at[c] = self.team_list[i]
        self._scratch()
        self.version = 0

    def _set_turn(self, turn: dict) -> None:
        """The turn effects (validated) and what they make: cost table keys, the direct
        move's key, explore cost and distance (``self._rules``)."""
        self.turn = turn
        self._rules = mk.turn_rules(turn, self.cities)
        forbid, quiet, bend = self._rules[:3]
        self._table_key = {t: _table(t, self.reductions, self.enter, forbid, quiet, bend)
                           for t in mk.TIMES}
        self._direct_key = _direct_key(forbid)

    def _scratch(self) -> None:
        # (query scratch is the thread's: see scratch_rows; threads may share a position)
        self._figures: list | None = None     # ids in play (cached until a change)
        self._last: Moves | None = None

    # ---------------------------------------------------------------- construction
    @classmethod
    def from_scenario(cls, scenario: Mapping) -> "Position":
        """The position of a scenario dict (its ``query`` gives the default budget)."""
        scenario = expect_object(scenario, "scenario")
        expect_keys(scenario, "scenario", ("game", "board", "options", "figures", "query"),
                    required=("board", "figures"))
        m = mk.read_map(scenario["board"])
        opts = expect_object(scenario.get("options", {}), "options")
        expect_keys(opts, "options", mk.OPTION_KEYS)
        time = get_str(opts, "time", "options", mk.TIMES, "day")
        pvp = get_bool(opts, "pvp", "options", True)
        reductions, enter = mk.read_effects(opts)
        turn = mk.read_turn(opts)
        cities = get_str(opts, "cities", "options", mk.CITY_RULES, "open")
        heroes = mk.read_heroes(m, scenario["figures"])
        q = scenario.get("query")
        default = {}
        if isinstance(q, Mapping) and "budget" in q:
            default["budget"] = q["budget"]
        return cls(m, heroes, time=time, pvp=pvp, reductions=reductions, enter=enter,
                   default_query=default, scenario=scenario, turn=turn, cities=cities)

    def copy(self) -> "Position":
        """An independent position: hero arrays copied; the map, the derived layers and
        the prepared queries shared until either position changes the map (then that
        one makes its own)."""
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        # per-position arrays; the hero lists and dicts (ids, index, team_name, teams,
        # team_list), the effects (reductions, enter, turn, _table_key) and the map are
        # shared: every change replaces them, none writes them in place
        new.cell = self.cell.copy()
        new.alive = self.alive.copy()
        new.team_at = self.team_at.copy()
        self._owned = new._owned = False
        new._figures = None
        new._last = None
        return new

    def __getstate__(self) -> dict:
        """Pickled without prepared queries (compiled kernels): made again when asked."""
        state = dict(self.__dict__)
        L = state["_L"] = self._L.clone()
        L.prepared = {}
        state.update(_owned=True, _last=None)
        return state

    def _own(self) -> _Layers:
        """The layers, made this position's own before a change (copy on write)."""
        if not self._owned:
            self._L = self._L.clone()
            self._owned = True
        return self._L

    # ---------------------------------------------------------------- figures
    @property
    def board(self):
        """The packed map (:class:`~movecore.Board`; a new one after each reveal, every
        cell index kept)."""
        return self.map.board

    @property
    def figures(self) -> list:
        f = self._figures
        if f is None:
            f = self._figures = [h for h, a in zip(self.ids, self.alive) if a]
        return list(f)

    @property
    def sides(self) -> list:
        """Every hero plays for itself: the ids of the heroes in play."""
        return self.figures

    def _touch(self) -> None:
        self.version += 1
        self._figures = None
        self._last = None

    def touching(self, figure) -> list:
        """Ids of the heroes on a space next to hero ``figure``'s, in play order."""
        near = set(self.board.nbr[self.cell[self._fig(figure)]].tolist())  # (-1: none)
        return [h for h, hc, a in zip(self.ids, self.cell.tolist(), self.alive.tolist())
                if a and hc in near]

    def _fig(self, figure) -> int:
        i = self.index.get(figure_key(figure), -1)
        if i < 0 or not self.alive[i]:
            raise self._figure_error(figure)
        return i

    def side_of(self, figure):
        """Every hero plays for itself: its side is its id."""
        return self.ids[self._fig(figure)]

    def team_of(self, figure):
        """The hero's team (teammates never fight; default: its own id)."""
        return self.team_name[self._fig(figure)]

    def team_figures(self, side) -> list:
        i = self.index.get(figure_key(side), -1)
        return [side] if i >= 0 and self.alive[i] else []

    def where(self, figure) -> tuple[int, int]:
        return self.board.coord(int(self.cell[self._fig(figure)]))

    def _cell(self, at, what: str) -> int:
        return cell_index(self.board, at, what, "a space of the map")

    def remove_figure(self, figure) -> None:
        """Take a hero off the map (its space is free from now on)."""
        i = self._fig(figure)
        self._record(_unremove, i)
        self.alive[i] = False
        c = int(self.cell[i])
        if not self._L.holds_many[c]:
            self.team_at[c] = -1
        self._touch()

    def add_figure(self, figure, at, team=None) -> None:
        """Put a hero (new, or one removed earlier) on the space ``at`` (``team``
        default: its id). The space must be accessible, hold no rampaging enemy, and
        hold no other hero unless it is a portal or a conquered city."""
        figure = new_figure_id(figure)
        team = figure if team is None else team
        if isinstance(team, bool) or not isinstance(team, (str, int)):
            raise QueryError(f"a team is a string or integer; got {describe(team)}")
        c = self._cell(at, "add_figure: at")
        s = self.map.spaces[c]
        where = list(self.board.coord(c))
        if s.rampaging is not None:
            raise PlacementError(f"add_figure: {where} is held by rampaging {s.rampaging}")
        if not s.accessible():
            raise PlacementError(f"add_figure: {where} is a {s.terrain} space, which "
                                 f"heroes cannot enter")
        if self.team_at[c] >= 0:
            raise PlacementError(f"add_figure: another hero stands on {where}; only a "
                                 f"portal or a conquered city holds several heroes")
        i = self.index.get(figure, -1)
        if i >= 0 and self.alive[i]:
            raise PlacementError(f"add_figure: hero {figure!r} is already in play")
        self._record_snapshot()
        # (the lists and dicts of heroes are shared with copies: replaced, never
        # written in place)
        if team not in self.teams:
            self.teams = {**self.teams, team: len(self.teams)}
        if i < 0:
            i = len(self.ids)
            self.ids = self.ids + [figure]
            self.index = {**self.index, figure: i}
            self.team_name = self.team_name + [team]
            self.team_list = self.team_list + [self.teams[team]]
            self.cell = np.append(self.cell, np.int32(c))
            self.alive = np.append(self.alive, True)
        else:
            self.team_name = list(self.team_name)
            self.team_name[i] = team
            self.team_list = list(self.team_list)
            self.team_list[i] = self.teams[team]
            self.cell[i] = c
            self.alive[i] = True
        if not self._L.holds_many[c]:
            self.team_at[c] = self.team_list[i]
        self._touch()

    # ---------------------------------------------------------------- options
    def set_time(self, time: str) -> None:
        """``"day"`` or ``"night"``: which Day/Night cost table moves use (both are
        precomputed; O(1))."""
        time = _read_time(time)
        self._record_snapshot()
        self.time = time
        self._touch()

    def set_effects(self, reductions: Sequence[Mapping] = (),
                    enter: Sequence[Mapping] = (), *, forbid: Sequence[str] = (),
                    provoke: bool = True, bend: bool = False,
                    explore: Mapping | None = None) -> None:
        """The effects played this turn, replacing the previous ones (words of the
        scenario options ``reductions``, ``enter``, ``forbid``, ``provoke``, ``bend``,
        ``explore``); validated as the scenario is."""
        opts = {"reductions": list(reductions), "enter": list(enter),
                "forbid": list(forbid), "provoke": provoke, "bend": bend}
        if explore is not None:
            opts["explore"] = explore
        red, ent = mk.read_effects(opts)
        turn = mk.read_turn(opts)
        self._record_snapshot()
        self.reductions, self.enter = red, ent
        self._set_turn(turn)
        self._touch()

    def set_pvp(self, allowed: bool) -> None:
        """Whether player combat is allowed (ending on another hero is an attack)."""
        if not isinstance(allowed, bool):
            raise QueryError(f"set_pvp: allowed must be true or false; got "
                             f"{describe(allowed)}")
        self._record_snapshot()
        self.pvp = allowed
        self._touch()

    # ---------------------------------------------------------------- map changes
    def _space_values(self, pkey, c: int) -> tuple[int, bool, bool]:
        s = self.map.spaces[c]
        assault = s.stops(pkey)
        flag = _FLAG_BLOCKED if s.rampaging is not None else (_FLAG_STOP if assault else 0)
        return flag, assault, s.accessible() and not assault

    def _player(self, pkey):
        """(flags, assault, safe) arrays of a player key (made on first use)."""
        L = self._L
        got = L.player.get(pkey)
        if got is None:
            assault = L.stop_any.copy()
            for c in L.keeps_of.get(pkey, ()):
                assault[c] = self.map.spaces[c].stops(pkey)
            flags = np.where(L.rampaging, _FLAG_BLOCKED,
                             np.where(assault, _FLAG_STOP, 0)).astype(np.uint8)
            got = L.player[pkey] = (flags, assault, L.accessible & ~assault)
        return got

    def _refresh(self, cells: Sequence[int]) -> None:
        """After the spaces ``cells`` changed in ``self.map``: their entries in every
        derived array and prepared query (O(len(cells)) per kept array / query)."""
        L = self._L
        spaces = self.map.spaces
        for c in cells:
            s = spaces[c]
            L.stop_any[c] = s.stops(None)
            L.rampaging[c] = s.rampaging is not None
            L.accessible[c] = s.accessible()
            L.holds_many[c] = s.holds_many()
            if L.holds_many[c]:
                self.team_at[c] = -1
        for pkey, (flags, assault, safe) in L.player.items():
            for c in cells:
                flags[c], assault[c], safe[c] = self._space_values(pkey, c)
        for (table, pkey, end_safe), prep in L.prepared.items():
            vals = []
            for c in cells:
                flag, _, safe = self._space_values(pkey, c)
                if table is None or table < 0:
                    flag = _FLAG_NO_END if (spaces[c].rampaging is not None or
                                            (end_safe and not safe) or
                                            (table is not None and spaces[c].cost_class
                                             in _FORBIDS[-1 - table])) else 0
                vals.append(flag)
            prep.set_layer("cell_flags", np.asarray(cells, np.int64),
                           np.asarray(vals, np.uint8))

    def _keys_changed(self, old_owner, new_owner) -> None:
        """Keep ownership moved: the player entries of those players are made again."""
        L = self._L
        for p in (old_owner, new_owner):
            if p is not None:
                L.player.pop(p, None)
                for k in [k for k in L.prepared if k[1] == p]:
                    del L.prepared[k]

    def conquer(self, at, by=None) -> None:
        """The fortified site (keep, mage tower, city) on space ``at`` is conquered.
        A keep becomes the keep of hero ``by`` (its owner: entering it is an assault for
        every other player; another player's keep may be taken by a hero); ``by=None``
        leaves it ownerless. Mage towers and cities have no owner here (``by`` only names
        who took them). Entering a conquered site no longer ends a move; a conquered city
        holds several heroes. :class:`PlacementError` (position unchanged) if the space
        holds no fortified site, or it is already conquered (a keep: already ``by``'s,
        or ``by=None`` on a keep conquered before).

        >>> import movecore as mc
        >>> pos = mc.position({"game": "mage_knight", "board": {"cells": [
        ...     {"at": [0, 0], "terrain": "plains"},
        ...     {"at": [1, 0], "terrain": "hills", "site": "mage_tower"},
        ...     {"at": [2, 0], "terrain": "plains"}]},
        ...     "figures": [{"id": "h", "at": [0, 0]}]})
        >>> pos.legal_moves("h", budget=5).coords.tolist()
        [[0, 0], [1, 0]]
        >>> pos.conquer((1, 0)); pos.legal_moves("h", budget=5).coords.tolist()
        [[0, 0], [1, 0], [2, 0]]
        """
        c = self._cell(at, "conquer: at")
        s = self.map.spaces[c]
        where = list(self.board.coord(c))
        if s.site not in mk.FORTIFIED:
            raise PlacementError(f"conquer: {where} holds no fortified site "
                                 f"{list(mk.FORTIFIED)} (site {s.site!r})")
        if by is not None and (isinstance(by, bool) or not isinstance(by, (str, int))):
            raise QueryError(f"conquer: by is a hero id (string or integer); got "
                             f"{describe(by)}")
        if s.site == "keep":
            if by is None and (s.conquered or s.owner is not None):
                raise PlacementError(f"conquer: the keep on {where} is already conquered "
                                     f"(owner {s.owner!r}); a hero (by=) may take it")
            if by is not None and s.owner == by:
                raise PlacementError(f"conquer: the keep on {where} is already {by!r}'s")
            changes = {"conquered": True, "owner": by}
        else:
            if s.conquered:
                raise PlacementError(f"conquer: the {s.site} on {where} is already "
                                     f"conquered")
            changes = {"conquered": True}
        old_owner = s.owner
        self._record_snapshot()
        self._own()
        self.map = self.map.with_updates({c: changes})
        if s.site == "keep":
            L = self._L
            if old_owner is not None:
                L.keeps_of[old_owner].remove(c)
                if not L.keeps_of[old_owner]:
                    del L.keeps_of[old_owner]
            if by is not None:
                L.keeps_of.setdefault(by, []).append(c)
            self._keys_changed(old_owner, by)
        self._refresh([c])
        self._touch()

    def defeat_enemy(self, at) -> None:
        """The rampaging enemy on space ``at`` is defeated: its space may be entered and
        its neighbours provoke no more. :class:`PlacementError` (position unchanged) if no
        rampaging enemy stands there."""
        c = self._cell(at, "defeat_enemy: at")
        s = self.map.spaces[c]
        if s.rampaging is None:
            raise PlacementError(f"defeat_enemy: no rampaging enemy stands on "
                                 f"{list(self.board.coord(c))}")
        self._record_snapshot()
        L = self._own()
        self.map = self.map.with_updates({c: {"rampaging": None}})
        bit = int(np.flatnonzero(L.bit_cell == c)[0])
        L.bit_cell[bit] = _NO_TOKEN
        nb = self.board.nbr[c]
        nb = nb[nb >= 0].astype(np.int64)
        L.zoc[nb] &= ~(np.uint64(1) << np.uint64(bit))
        if L.zoc_from is not L.zoc:
            L.zoc_from[nb] &= ~(np.uint64(1) << np.uint64(bit))
        L.zoc_any[nb] = L.zoc[nb] != 0
        provoking = [k for k in L.prepared if k[0] is not None and k[0] >= 0 and
                     not _TABLE_MODE[k[0]][0]]
        if L.stop_sides:
            sides = mk.stop_sides(self.board, L.zoc, L.zoc_from)
            if sides != L.stop_sides:   # the board of provoking moves changes: made again
                L.stop_sides, L.stop_board = sides, None
                for k in provoking:
                    del L.prepared[k]
                provoking = []
        for k in provoking:
            L.prepared[k].set_layer("zoc", nb, L.zoc[nb])
        self._refresh([c])
        self._touch()

    def reveal_tile(self, position, tile, *, kind: str | None = None, by=None) -> None:
        """Reveal a tile at the open tile ``position`` (a lattice centre): ``tile`` is a
        catalogue name (``"countryside_3"``) or a list of spaces in scenario words
        (``[{"hex": "NE", "terrain": "hills", "site": "keep"}, ...]``, with ``kind``
        ``countryside`` / ``core``). With ``by`` (a hero id), that hero must stand next to
        the position. The map grows by :meth:`Board.extend` (every cell index kept); the
        arrays grow by the new spaces, the provoke bits of enemies on the new tile reach
        old spaces next to them; the prepared queries are packed again for the larger
        map (on next use). Typed errors (position unchanged) as ``query.reveal``."""
        item = {"position": list(as_coord(position, "reveal_tile: position"))}
        if isinstance(tile, str):
            item["tile"] = tile
        else:
            item["cells"] = tile
        if kind is not None:
            item["kind"] = kind
        self._reveal([item], self._fig(by) if by is not None else None, "reveal_tile")

    def _reveal(self, items: list, i: int | None, what: str) -> list:
        """Reveal scenario tile items (in order) on this position; ``i``: the hero that
        must stand next to each. All checked before anything changes."""
        m = self.map
        revealed = []
        for k, item in enumerate(items):
            w = f"{what}[{k}]" if what == "query.reveal" else what
            pos, kind, cells, walls = mk._read_tile(item, w)
            if i is not None and tuple(pos) in m.open and \
                    int(self.cell[i]) not in m.cells_next_to(pos, self._rules[4]):
                raise PlacementError(f"{w}: hero {self.ids[i]!r} at "
                                     f"{list(m.board.coord(int(self.cell[i])))} is not "
                                     f"next to tile position {list(pos)}, so it cannot "
                                     f"reveal it")
            m = m.reveal(pos, cells, kind=kind, walls=walls)
            revealed.append(list(pos))
        tokens = [c for c in range(self.map.board.n_cells, m.board.n_cells)
                  if m.spaces[c].rampaging is not None]
        free_bits = int((self._L.bit_cell == _NO_TOKEN).sum())
        if len(tokens) > free_bits:
            raise LimitError(f"{64 - free_bits + len(tokens)} rampaging enemies; at most "
                             f"64 are supported per query")
        if not items:
            return revealed
        self._record_snapshot()
        old_n = self.map.board.n_cells
        L = self._own()
        self.map = m
        n = m.board.n_cells
        grow = n - old_n
        spaces = m.spaces[old_n:]
        L.n = n
        L.stop_any = np.concatenate([L.stop_any, [s.stops(None) for s in spaces]])
        L.rampaging = np.concatenate([L.rampaging, [s.rampaging is not None
                                                    for s in spaces]])
        L.accessible = np.concatenate([L.accessible, [s.accessible() for s in spaces]])
        L.holds_many = np.concatenate([L.holds_many, [s.holds_many() for s in spaces]])
        for c in tokens:
            L.bit_cell[int(np.flatnonzero(L.bit_cell == _NO_TOKEN)[0])] = c
        _token_layers(L, m.board)   # (a reveal packs the prepared queries again anyway)
        L.rank = _rank(m.board)
        L.player = {}
        L.prepared = {}          # the packed board changed: prepared again on next use
        L.next_cells = {p: np.array(m.cells_next_to(p), np.int32) for p in m.open}
        self.team_at = np.concatenate([self.team_at, np.full(grow, -1, np.int32)])
        self._scratch()
        self._touch()
        return revealed

    # ---------------------------------------------------------------- moves
    def _read_query(self, query: Mapping):
        """(mode, budget, paths, end_safe, reveal) of a query (defaults filled in)."""
        for k in query:
            if k not in _QUERY_KEYS:
                raise QueryError(f"unknown query key {k!r}; expected one of "
                                 f"{sorted(_QUERY_KEYS)}")
        budget = query.get("budget", self.default_query.get("budget"))
        if type(budget) is not int or not 0 <= budget <= T.MAX_BUDGET:
            if budget is None:
                raise QueryError("the query needs 'budget' (Move points); the scenario "
                                 "gave no default")
            budget = get_int({"budget": budget}, "budget", "query", lo=0, hi=T.MAX_BUDGET)
        mode = query.get("mode", "move")
        if mode != "move" and mode != "direct":
            mode = get_str(query, "mode", "query", _MODES, "move")
        paths = query.get("paths", False)
        if paths is not False and paths is not True:
            paths = get_bool(query, "paths", "query", False)
        end_safe = True
        if "end_safe" in query:
            if mode != "direct":
                raise ScenarioError("query.end_safe applies to mode \"direct\" only")
            end_safe = get_bool(query, "end_safe", "query", True)
        reveal = query.get("reveal")
        if reveal is not None:
            reveal = get_list(query, "reveal", "query", [])
        return mode, budget, paths, end_safe, reveal

    def _prepared(self, key: tuple, budget: int) -> Prepared:
        """The prepared query of ``key`` = (cost table key or None for a direct move,
        player key, end_safe), answering ``budget`` (made, or made larger, here)."""
        L = self._L
        prep = L.prepared.get(key)
        if prep is not None and prep.max_budget >= budget:
            return prep
        with BUILD_LOCK:   # (copies share the layers: built once, whole, then published)
            return self._make_prepared(key, budget)

    def _make_prepared(self, key: tuple, budget: int) -> Prepared:
        L = self._L
        prep = L.prepared.get(key)
        if prep is not None and prep.max_budget >= budget:
            return prep
        table_key, pkey, end_safe = key
        top = min(max(budget, 16, 2 * prep.max_budget if prep is not None else 0),
                  T.MAX_BUDGET)
        flags, _, safe = self._player(pkey)
        if table_key is None or table_key < 0:   # direct: 1 per space, over everything
            no_end = L.rampaging | (~safe if end_safe else False)
            if table_key is not None:   # never ending on a forbidden cost class
                ids = [mk.COST_CLASSES.index(t) for t in _FORBIDS[-1 - table_key]]
                no_end = no_end | np.isin(self.board.terrain, ids)
            prep = prepare(mk.wall_free(self.board),   # walls never change a direct move
                           Mover(terrain_cost=[1] * len(mk.COST_CLASSES)), top,
                           cell_flags=np.where(no_end, _FLAG_NO_END, 0).astype(np.uint8))
        else:
            quiet, bend = _TABLE_MODE[table_key]
            board = mk.bent_board(self.board) if bend else self.board
            if not quiet and L.stop_sides:
                if L.stop_board is None:
                    L.stop_board = mk.provoke_board(self.board, L.stop_sides)
                board = L.stop_board
            prep = prepare(board,
                           Mover(terrain_cost=list(_TABLES[table_key])), top,
                           cell_flags=flags, zoc=None if quiet else L.zoc)
        if not prep.fast:  # pragma: no cover (a map of millions of spaces)
            raise LimitError(f"a map of {self.board.n_cells} spaces is too large for the "
                             f"packed kernel the live position runs on")
        if len(L.prepared) >= _MAX_PREPARED:
            L.prepared.clear()
        L.prepared[key] = prep
        return prep

    def legal_moves(self, figure, **query) -> Moves:
        """Every legal end of hero ``figure`` for ``query`` (the scenario query keys but
        ``figure``), in ``solve()``'s order: by cost, then (q, r).

        >>> import movecore as mc
        >>> pos = mc.position({"game": "mage_knight", "board": {"cells": [
        ...     {"at": [0, 0], "terrain": "plains"}, {"at": [1, 0], "terrain": "plains"},
        ...     {"at": [2, 0], "terrain": "hills"},
        ...     {"at": [2, -1], "terrain": "plains", "rampaging": "orc_marauders"}]},
        ...     "figures": [{"id": "a", "at": [0, 0]}, {"id": "b", "at": [1, 0]}]})
        >>> m = pos.legal_moves("a", budget=5)
        >>> m.coords.tolist(), m.costs.tolist(), m.stop.tolist()
        ([[0, 0], [1, 0], [2, 0]], [0, 2, 5], [0, 0, 2])
        >>> m.columns["pvp"].tolist(), m.columns["safe"].tolist()
        ([0, 1, 0], [1, 0, 1])
        >>> m.to_dicts()[2]["flags"], m.to_dicts()[2]["provoked"]
        (['provoked'], [[2, -1]])
        """
        i = self.index.get(figure_key(figure), -1)
        if i < 0 or not self.alive[i]:
            raise self._figure_error(figure)
        budget = query.get("budget") if query else self._default_budget
        if len(query) == (1 if query else 0) and type(budget) is int and \
                0 <= budget <= T.MAX_BUDGET:
            mode, paths, end_safe, reveal = "move", False, True, None   # the hot path
        else:
            mode, budget, paths, end_safe, reveal = self._read_query(query)
            if reveal:
                p = self.copy()
                p._reveal(reveal, i, "query.reveal")
                rest = {k: v for k, v in query.items() if k != "reveal"}
                return p.legal_moves(figure, **rest)
        L = self._L
        start = int(self.cell[i])
        pkey = figure if figure in L.keeps_of else None
        is_move = mode == "move"
        key = (self._table_key[self.time] if is_move else self._direct_key, pkey, end_safe)
        prep = L.prepared.get(key)
        if prep is None or prep.max_budget < budget:
            prep = self._prepared(key, budget)
        player = L.player.get(pkey)
        if player is None:
            player = self._player(pkey)
        q, ends = scratch_rows(1, max(L.n, 1))   # this thread's (threads may share)
        q[0, 0] = start
        q[0, 1] = budget
        total = prep._run_into(q, ends, L.rank)
        block = np.empty((_ROWS, total), np.int32)
        n = _finish_ends(ends, total, start, self.team_at, player[1], player[2],
                         L.accessible, self.team_list[i], self.pvp, is_move,
                         not is_move and end_safe, block)
        if n < total:
            block = block[:, :n]
        m = Moves(self, figure, block[0], block[1], block[2], block[7], None, query,
                  extra=[start, prep, is_move, budget, paths, None])
        m.columns = _Columns(block, lambda: self._lazy_columns(m))
        self._last = m
        return m

    def _batch_layout(self, query: Mapping):
        """The batched arrays backend's layout (see :mod:`._batch`)."""
        from ._batch import batch_layout
        return batch_layout(self, query)

    def legal_moves_side(self, side, **query) -> dict:
        """``{hero: Moves}`` of the one hero whose side ``side`` is (every hero plays
        for itself)."""
        return {f: self.legal_moves(f, **query) for f in self.team_figures(side)}

    # ------------------------------------------------ what needs the search tree
    def _analyse(self, m: Moves) -> dict:
        """Per end: provoked (0/1), free_cost (-1: none), the provoked enemies (a bit
        mask), the path and free path (when asked), and each space's cheapest arrival
        that may go on (for exploring): from the kernel's search tree (the same kernel in
        tree mode) where a stopped end is next to a rampaging enemy or paths are asked,
        else from the ends alone."""
        start, prep, is_move, budget, paths, done = m._extra
        if done is not None:
            return done
        if m.version != self.version:
            raise QueryError(f"these moves of {m.figure!r} are stale: the position changed "
                             f"since they were generated; ask legal_moves again")
        L = self._L
        board = self.board
        cells, costs = m.actions, m.costs
        n_ends = len(cells)
        r = None
        zoc, zoc_from = L.zoc, L.zoc_from  # none provoked when moves are quiet (Space
        if is_move and _TABLE_MODE[self._table_key[self.time]][0]:     # Bending...)
            zoc = zoc_from = np.zeros(L.n, np.uint64)
        if paths or (is_move and _any_tricky(cells, m.stop, start, zoc)):
            r = prep.reach(start, budget)
            if len(r.cells) < n_ends:  # pragma: no cover (the same kernel, same layers)
                raise RuntimeError("movecore: the tree-mode run gave other ends")
        out = np.empty((3, n_ends), np.int32)     # provoked, free_cost, quiet_from
        out[0] = 0
        out[1:] = -1
        provoked, free_cost, quiet_from = out
        tokens = np.zeros(n_ends, np.uint64)
        free_at = None   # made by _explore from the ends where no tree was needed
        if is_move and r is not None:
            free_at = np.empty(board.n_cells, np.int64)
            parent_at = np.empty(board.n_cells, np.int32)   # (this call's scratch)
            _provoke_detail(cells, costs, m.stop, start, zoc, zoc_from, prep.board.nbr,
                            prep.board.edges, board.terrain,
                            _TABLE_ARRAYS[self._table_key[self.time]], budget,
                            r.cells, r.free_costs, r.tree, r.tree_rows, free_at,
                            parent_at, paths, provoked, free_cost, tokens, quiet_from)
        path = free_path = None
        if paths:
            path, free_path = [], {}
            qf = quiet_from.tolist()
            fc = free_cost.tolist()
            for row, (v, st) in enumerate(zip(cells.tolist(), m.stop.tolist())):
                if st == 1 and is_move:
                    if not provoked[row]:
                        path.append(r.path(qf[row], free=True).tolist() + [v])
                        continue
                    if fc[row] >= 0:
                        free_path[row] = r.path(qf[row], free=True).tolist() + [v]
                elif st == 2 and fc[row] >= 0:
                    free_path[row] = r.path(v, free=True).tolist()
                path.append(r.path(v).tolist())
        done = {"provoked": provoked, "free_cost": free_cost, "tokens": tokens,
                "path": path, "free_path": free_path, "free_at": free_at, "reach": r}
        m._extra[5] = done
        return done

    def _token_cells(self, mask: int) -> list[int]:
        """Spaces of the rampaging enemies of the bits set in ``mask``."""
        bit_cell = self._L.bit_cell
        return [int(bit_cell[b]) for b in range(64) if (mask >> b) & 1]

    def _lazy_columns(self, m: Moves) -> dict:
        a = self._analyse(m)
        return {"provoked": a["provoked"], "free_cost": a["free_cost"]}

    def _end_dicts(self, m: Moves) -> list[dict]:
        a = self._analyse(m)
        board = self.board
        start, _, is_move, _, paths, _ = m._extra
        cols = m.columns
        safe, pvp = cols["safe"].tolist(), cols["pvp"].tolist()
        provoked, free_cost = a["provoked"].tolist(), a["free_cost"].tolist()
        tokens, path, free_path = a["tokens"].tolist(), a["path"], a["free_path"]
        ends = []
        for row, (v, cost, st) in enumerate(zip(m.actions.tolist(), m.costs.tolist(),
                                               m.stop.tolist())):
            flags = []
            if st == 1:
                flags.append("assault")
            if provoked[row]:
                flags.append("provoked")
            if pvp[row]:
                flags.append("pvp")
            e = {"at": list(board.coord(v)), "cost": cost, "flags": flags,
                 "safe": bool(safe[row])}
            if provoked[row]:
                e["provoked"] = sorted(coord_list(board, self._token_cells(tokens[row])))
            if free_cost[row] >= 0:
                e["free_cost"] = free_cost[row]
            if paths:
                e["path"] = coord_list(board, path[row])
                if row in free_path:
                    e["free_path"] = coord_list(board, free_path[row])
            ends.append(e)
        return ends

    def explore(self, figure, **query) -> list[dict]:
        """The tile positions hero ``figure`` can reveal in this move (as ``solve()``'s
        ``explore``: ``position``, ``from``, ``cost`` with the 2 Move points of the
        reveal, ``placeable``, ``path`` when asked); [] for a direct move."""
        m = self._last
        if m is None or m.version != self.version or m.figure != figure or \
                m.query != query or m.position is not self:
            m = self.legal_moves(figure, **query)
        return m.position._explore(m)

    def _explore(self, m: Moves) -> list[dict]:
        start, _, is_move, budget, paths, _ = m._extra
        mp = self.map
        cost, distance = self._rules[3:]
        if not is_move or mp.next_tile == "none" or not mp.open or cost is None:
            return []
        a = self._analyse(m)
        free_at, r = a["free_at"], a["reach"]
        board = self.board
        if free_at is None:   # no tree: an end's arrival goes on iff it did not stop
            free_at = np.full(board.n_cells, -1, np.int64)
            going = m.stop == 0
            free_at[m.actions[going]] = m.costs[going]
            free_at[start] = 0
        out = []
        for pos in mp.open:
            best = None
            near = self._L.next_cells[pos].tolist() if distance == 1 else \
                mp.cells_next_to(pos, distance)
            for c in near:
                f = int(free_at[c])
                if f >= 0 and f + cost <= budget:
                    key = (f, board.coord(c))
                    if best is None or key < best[0]:
                        best = (key, c)
            if best is None:
                continue
            c = best[1]
            e = {"position": list(pos), "from": list(board.coord(c)),
                 "cost": int(free_at[c]) + cost, "placeable": mp.placeable(pos)}
            if paths:
                e["path"] = coord_list(board, r.path(c, free=True).tolist())
            out.append(e)
        out.sort(key=lambda e: (e["cost"], e["position"]))
        return out

    # ---------------------------------------------------------------- applying
    def apply_move(self, figure, to, **query) -> None:
        """Move hero ``figure`` to the legal end ``to`` (a space index or ``(q, r)``) of
        the move ``query`` asks for (with ``reveal``, the tiles are revealed first).
        :class:`IllegalMoveError` (position unchanged) if ``to`` is not a legal end, or
        an end the hero cannot stay on (``columns["can_stay"]`` 0): another hero's space
        that holds one hero (an attack, or no space to share: resolve it, then
        :meth:`remove_figure` or move the other hero), or a lake or mountain entered by
        an effect (a forced withdrawal follows)."""
        i = self._fig(figure)
        if query.get("reveal"):
            p = self.copy()
            p._reveal(p._read_query(query)[4], i, "query.reveal")
            rest = {k: v for k, v in query.items() if k != "reveal"}
            p.apply_move(figure, to, **rest)
            version = self.version
            self._record_snapshot()        # (one change: the reveals and the move)
            log = self._undo_log
            self.__dict__.update(p.__dict__)
            self._undo_log, self._rare_key = log, None
            self.version = version
            self._touch()
            return
        m = self._last
        if m is None or m.figure != figure or m.query != query:
            m = self.legal_moves(figure, **query)
        cell = to if type(to) is int and 0 <= to < self._L.n else self._cell(to, "to")
        try:
            row = m.actions.tolist().index(cell)
        except ValueError:
            raise IllegalMoveError(f"{describe(to)} is not a legal end of hero {figure!r} "
                                   f"in this position") from None
        if not m.columns["can_stay"][row]:
            if m.columns["occupied"][row]:
                raise IllegalMoveError(f"{describe(to)}: another hero stands there (an "
                                       f"attack, or a space that holds one hero); this "
                                       f"position applies movement only")
            raise IllegalMoveError(f"{describe(to)}: a hero cannot stay on a "
                                   f"{self.map.spaces[cell].terrain} space (a forced "
                                   f"withdrawal follows); this position applies movement "
                                   f"only")
        self._move(i, cell)

    def _move(self, i: int, cell: int) -> None:
        old = int(self.cell[i])
        self._record(_unmove, i, old)
        _unmove(self, i, cell)
        self._touch()

    def _move_actions(self, moves: Moves) -> np.ndarray:
        """The ends a hero may stay on (``columns["can_stay"]``): an attack on another
        hero (``pvp``), a shared one-hero space or a forced withdrawal is no move."""
        return moves.actions[np.asarray(moves.columns["can_stay"]) != 0]

    def _key_parts(self) -> tuple:
        alive = self.alive
        return ([(h, t) for h, t, a in zip(self.ids, self.team_name, alive) if a],
                self.cell[alive], self._rare_part())

    # ---------------------------------------------------------------- scenario form
    def _rare_state(self):
        s = self.to_scenario()
        return s["board"], s["options"]

    def to_scenario(self, query: Mapping | None = None) -> dict:
        """The scenario of this position: every space in cell-index order (revealed
        tiles, conquests and defeated enemies included), the open positions, the
        options and the heroes; ``solve()`` of it answers as this position."""
        mp = self.map
        cells = []
        for c, s in enumerate(mp.spaces):
            d = {"at": list(mp.board.coord(c))}
            if s.terrain is not None:
                d["terrain"] = s.terrain
            if s.site is not None:
                d["site"] = s.site
            if s.conquered:
                d["conquered"] = True
            if s.owner is not None:
                d["owner"] = s.owner
            if s.rampaging is not None:
                d["rampaging"] = s.rampaging
            cells.append(d)
        board = {"cells": cells, "open": [list(p) for p in mp.open],
                 "next_tile": mp.next_tile}
        if mp.walls:
            board["walls"] = [[list(a), list(b)] for a, b in sorted(mp.walls)]
        if mp.shape is not None:
            del board["open"]            # (the shape gives the open positions)
            board["shape"] = mp.shape
        figures = []
        for i, h in enumerate(self.ids):
            if self.alive[i]:
                f = {"id": h, "at": list(mp.board.coord(int(self.cell[i])))}
                if self.team_name[i] != h:
                    f["team"] = self.team_name[i]
                figures.append(f)
        s = {"game": "mage_knight", "board": board,
             "options": {"time": self.time, "pvp": self.pvp,
                         "reductions": _copy.deepcopy(self.reductions),
                         "enter": _copy.deepcopy(self.enter),
                         **_copy.deepcopy(self.turn), "cities": self.cities},
             "figures": figures}
        if query is not None:
            s["query"] = _copy.deepcopy(dict(query))
        return s

    def solve(self, query: Mapping) -> dict:
        """``solve()``'s result for a scenario ``query`` object (with ``figure``):
        ``figure``, ``mode``, ``time``, ``ends``, ``explore`` (and ``revealed``)."""
        query = expect_object(query, "query")
        expect_keys(query, "query", ("figure",) + _QUERY_KEYS, required=("figure", "budget"))
        mode = get_str(query, "mode", "query", _MODES, "move")
        get_int(query, "budget", "query", lo=0, hi=T.MAX_BUDGET)
        get_bool(query, "paths", "query", False)
        fid = query["figure"]
        if figure_key(fid) not in self.index or not self.alive[self.index[fid]]:
            raise QueryError(f"query.figure names hero {fid!r}, which is not in the "
                             f"scenario; known heroes: {self.figures}")
        rest = {k: v for k, v in query.items() if k != "figure"}
        pos = self
        revealed = []
        if rest.get("reveal") is not None:
            items = get_list(query, "reveal", "query", [])
            pos = self.copy()
            revealed = pos._reveal(items, self.index[fid], "query.reveal")
            rest.pop("reveal")
        m = pos.legal_moves(fid, **rest)
        result = {"figure": fid, "mode": mode, "time": self.time, "ends": m.to_dicts(),
                  "explore": pos._explore(m)}
        if revealed:
            result["revealed"] = revealed
        return result



# ------------------------------------------------------------------ undo entries
def _unmove(pos: Position, i: int, cell: int) -> None:
    """Hero i to ``cell`` (the state a move overwrote; no record)."""
    old = int(pos.cell[i])
    holds_many = pos._L.holds_many
    if not holds_many[old]:
        pos.team_at[old] = -1
    pos.cell[i] = cell
    if not holds_many[cell]:
        pos.team_at[cell] = pos.team_list[i]


def _unremove(pos: Position, i: int) -> None:
    pos.alive[i] = True
    c = int(pos.cell[i])
    if not pos._L.holds_many[c]:
        pos.team_at[c] = pos.team_list[i]
