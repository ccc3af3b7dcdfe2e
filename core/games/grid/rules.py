"""The generic game ``"grid"``: costs, heights, stop cells, links and provoke tokens given
directly as numbers. It is the reference vocabulary of the scenario format v1.

Scenario::

    {"game": "grid",
     "board": {"grid": "hex" | "square4" | "square8",
               "cells": [{"at": [q, r], "cost": 1, "height": 0, "stop": false}, ...],
               "links": [{"between": [[q, r], [q, r]], "cost": 1}, ...]},
     "options": {"climb_per_level": 1, "climb_flat": 0, "max_climb": null},
     "figures": [{"id": "a", "team": "red", "at": [q, r]}, ...],
     "query": {"figure": "a", "budget": 6, "paths": false, "provoke": [[q, r], ...]}}

A live position (:func:`movecore.position`) keeps the scenario's provoke tokens
(``query.provoke``) as its own state: :attr:`Position.provoke`, changed with
``add_provoke`` / ``remove_provoke`` / ``set_provoke``, copied, undone and hashed with the
figures.

Rules: entering a cell costs ``cost + climb_per_level * max(0, rise) + climb_flat *
(rise > 0)``; ``cost: -1`` cannot be entered; a rise above ``max_climb`` is not allowed
(null = unlimited). ``stop: true`` ends the move on entry. A link is two-way and costs its
own ``cost``. Figures of the mover's team may be passed but not ended on; other teams
block. A provoke token's cell cannot be entered, and a step from a cell adjacent to a token
to another cell adjacent to the same token ends the move there (a token may stand off the
board: the cells next to it still feel it).

Result: ``{"figure": id, "ends": [{"at": [q, r], "cost": c, "stopped": bool,
"path": [[q, r], ...]}]}``, one entry per legal end (the start at cost 0), ordered by cost
then coordinates; ``path`` (start to end inclusive) only when ``query.paths`` is true.
"""
from __future__ import annotations

import numpy as np

import copy as _copy
from dataclasses import dataclass
from typing import TYPE_CHECKING, Mapping

from ...board import GRID_KINDS, Board, Link
from ...errors import BoardError, IllegalMoveError, PlacementError, QueryError, describe
from ...kernels import _types as T
from ...mover import Mover
from ...position import (BUILD_LOCK, CellActions, Moves, bind_occupant, cell_index,
                         figure_key, new_figure_id, register_position, scratch_rows)
from ...position import Position as _Position
if TYPE_CHECKING:
    from ...reach import Prepared
from ...scenario import (as_coord, expect_keys, expect_object, get_bool, get_coord, get_int,
                        get_list, get_str, register_game)
from .._common import coord_list, read_figures, token_masks


def build_board(spec) -> tuple[Board, list[int]]:
    """Board of a grid scenario, and the terrain cost table (terrain id = cost class)."""
    spec = expect_object(spec, "board")
    expect_keys(spec, "board", ("grid", "cells", "links"), required=("grid", "cells"))
    grid = get_str(spec, "grid", "board", GRID_KINDS)
    cells = get_list(spec, "cells", "board")
    if not cells:
        raise BoardError("board.cells is empty; a board needs at least one cell")
    coords, costs, heights, flags = [], [], [], []
    for i, c in enumerate(cells):
        w = f"board.cells[{i}]"
        c = expect_object(c, w)
        expect_keys(c, w, ("at", "cost", "height", "stop"), required=("at",))
        coords.append(get_coord(c, "at", w))
        costs.append(get_int(c, "cost", w, 1, lo=-1, hi=T.MAX_COST))
        heights.append(get_int(c, "height", w, 0, lo=-T.MAX_HEIGHT, hi=T.MAX_HEIGHT))
        flags.append(T.CELL_STOP if get_bool(c, "stop", w, False) else 0)
    table = sorted(set(costs))
    terrain = [table.index(c) for c in costs]
    if grid == "hex":
        board = Board.hex(coords, terrain=terrain, height=heights, flags=flags)
    else:
        board = Board.square_cells(coords, neighbours=int(grid[-1]), terrain=terrain,
                                   elevation=heights, flags=flags)
    links = []
    for i, ln in enumerate(get_list(spec, "links", "board", [])):
        w = f"board.links[{i}]"
        ln = expect_object(ln, w)
        expect_keys(ln, w, ("between", "cost"), required=("between",))
        ends = get_list(ln, "between", w)
        if len(ends) != 2:
            raise BoardError(f"{w}.between must list two cells; got {len(ends)}")
        a, b = (board.find(as_coord(e, f"{w}.between[{j}]")) for j, e in enumerate(ends))
        if a < 0 or b < 0:
            raise BoardError(f"{w} links {ends}: both cells must be on the board")
        links.append(Link(a, b, get_int(ln, "cost", w, 1, lo=0, hi=T.MAX_COST)))
    if links:
        board = board.with_links(links)
    return board, table


def read_options(opts) -> dict:
    """``options`` of a grid scenario as :class:`Mover` keyword arguments (all but the
    terrain table and the team)."""
    opts = expect_object(opts, "options")
    expect_keys(opts, "options", ("climb_per_level", "climb_flat", "max_climb"))
    return dict(
        climb_per_level=get_int(opts, "climb_per_level", "options", 1, lo=0,
                                hi=T.MAX_CLIMB_COST),
        climb_flat=get_int(opts, "climb_flat", "options", 0, lo=0, hi=T.MAX_CLIMB_COST),
        max_climb=get_int(opts, "max_climb", "options", None, lo=0,
                          hi=2 * T.MAX_HEIGHT, allow_none=True))


#: The keys of a ``solve()`` query besides ``figure`` (those ``legal_moves`` takes).
QUERY_KEYS = _QUERY_KEYS = ("budget", "paths", "provoke")


def read_query(query, figures: list):
    """The id of the figure a scenario's ``query`` moves (one of ``figures``, the ids in
    play), its keys and ``budget`` checked."""
    query = expect_object(query, "query")
    expect_keys(query, "query", ("figure",) + QUERY_KEYS, required=("figure", "budget"))
    fid = query["figure"]
    if figure_key(fid) not in figures:
        raise QueryError(f"query.figure names figure {fid!r}, which is not in the "
                         f"scenario; known figures: {figures}")
    get_int(query, "budget", "query", lo=0, hi=T.MAX_BUDGET)
    return fid


@dataclass(frozen=True)
class Setup:
    """A grid scenario read (:func:`read_scenario`): what a position is built of."""
    board: Board
    table: list
    figures: list       # (id, team, cell)
    options: dict
    default_query: dict
    provoke: list


def read_scenario(scenario, query: bool = True) -> Setup:
    """Read and validate a grid scenario: ``board`` (:func:`build_board`), ``options``
    (:func:`read_options`), ``figures``, the provoke tokens of its ``query`` and, when
    given, the query itself (:func:`read_query`, then ``paths``), raising the typed
    errors :func:`movecore.solve` raises (``query=False``: only the tokens and default
    budget of the query are read, as ``Position.from_scenario`` does). Pure reading: it
    loads no kernel."""
    scenario = expect_object(scenario, "scenario")
    expect_keys(scenario, "scenario", ("game", "board", "options", "figures", "query"),
                required=("board", "figures"))
    board, table = build_board(scenario["board"])
    options = read_options(scenario.get("options", {}))
    figures = read_figures(board, scenario["figures"])
    for f in figures:
        if table[board.terrain[f.cell]] < 0:
            raise PlacementError(f"figure {f.id!r} stands on "
                                 f"{list(board.coord(f.cell))}, a cell that cannot be "
                                 f"entered (cost -1)")
    q = scenario.get("query")
    default = {}
    provoke = []
    if isinstance(q, Mapping):
        if "budget" in q:
            default["budget"] = q["budget"]
        provoke = [as_coord(t, f"query.provoke[{k}]")
                   for k, t in enumerate(get_list(q, "provoke", "query", []))]
        token_masks(board, dict.fromkeys(provoke))      # (at most 64: LimitError)
    if query and "query" in scenario:
        read_query(q, [f.id for f in figures])
        get_bool(q, "paths", "query", False)
    return Setup(board, table, [(f.id, f.team, f.cell) for f in figures], options,
                 default, provoke)


@register_position("grid")
class Position(CellActions, _Position):
    """A live position of the generic game: the board packed once, one prepared query per
    team whose occupant layer follows the figures (``Prepared.set_layer``), the figures as
    arrays.

    Query keys (those of the scenario ``query`` but ``figure``): ``budget`` (default: the
    scenario's query budget), ``paths``, ``provoke``. Moves: ``actions`` are board cells;
    ``stop`` is 1 (``"stopped"``) where the move had to end; no penalty.

    >>> import movecore as mc
    >>> pos = mc.position({"game": "grid", "board": {"grid": "hex", "cells": [
    ...     {"at": [q, 0]} for q in range(5)]}, "figures": [
    ...     {"id": "a", "team": 1, "at": [0, 0]}, {"id": "b", "team": 2, "at": [4, 0]}]})
    >>> pos.legal_moves("a", budget=3).actions.tolist()
    [0, 1, 2, 3]
    >>> pos.apply_move("a", (3, 0), budget=3); pos.where("a")
    (3, 0)
    >>> side = pos.legal_moves_side(2, budget=3)     # every figure of team 2, one batch
    >>> side["b"].coords.tolist()
    [[4, 0]]
    """

    STOP_REASONS = (None, "stopped")

    def __init__(self, board: Board, table: list[int], figures: list, *,
                 options: Mapping | None = None, default_query: Mapping | None = None,
                 scenario: Mapping | None = None, provoke=()):
        """``figures``: ``[(id, team, cell)]``; ``table``: cost per terrain id;
        ``options``: Mover climbing keywords (:func:`read_options`); ``provoke``: the
        provoke tokens' coordinates (on or off the board)."""
        self.board = board
        self.table = list(table)
        self.options = dict(options or {})
        self.default_query = dict(default_query or {})
        self._scenario = scenario
        self.ids = [f[0] for f in figures]
        self.index = {fid: i for i, fid in enumerate(self.ids)}
        self.team_name = [f[1] for f in figures]
        self.teams = {}
        for t in self.team_name:
            self.teams.setdefault(t, len(self.teams))
        self.team = np.array([self.teams[t] for t in self.team_name], T.INDEX)
        self.cell = np.array([f[2] for f in figures], T.INDEX)
        self.alive = np.ones(len(figures), bool)
        self.occ = np.full(board.n_cells, T.OCC_EMPTY, T.INDEX)
        self.occ[self.cell] = self.team
        # cell -> rank in (x, y) order: ends sorted by cost * N + rank, as solve() lists
        self._rank = np.empty(board.n_cells, np.int64)
        self._rank[np.lexsort((board.coords[:, 1], board.coords[:, 0]))] = \
            np.arange(board.n_cells)
        # Per-position state: the figure arrays above (``team_name``, ``team``,
        # ``cell``, ``alive``, ``occ``), the provoke tokens below (``_tokens``,
        # ``_tok_bit``, ``_tok_flags``, ``_tok_zoc``), ``version`` and the undo log;
        # everything else is shared with copies (immutable) or a cache of this position.
        #
        # ``_queries``: team id -> prepared query reading ``self.occ`` (and the token
        # layers while there are tokens: a move writes one array); this position's
        # own. ``_proto``: team id (or (team, True) with tokens) -> the largest prepared
        # query made so far by this position or a relative (copies share it): board
        # and mover packing only, never run as it is, only rebound (``_bind``) to a
        # position's own layers; an entry is published whole, so threads may share it.
        self._queries: dict[int, Prepared] = {}
        self._proto: dict[int, Prepared] = {}
        self._last: Moves | None = None
        self._figures: list | None = None      # ids in play (cached until a change)
        self.version = 0
        # provoke tokens: coordinates in order of placing, the zoc bit of each, and the
        # layers every prepared query reads while there is a token (a token's cell
        # blocked; each cell next to a token carries its bit); written in place
        self._tokens: list = []
        self._tok_bit: list = []
        self._tok_flags = np.zeros(board.n_cells, np.uint8)
        self._tok_zoc = np.zeros(board.n_cells, np.uint64)
        for t in provoke:
            t = tuple(as_coord(t, "provoke"))
            if t not in self._tokens:
                self._place_token(t)

    # ---------------------------------------------------------------- construction
    @classmethod
    def from_scenario(cls, scenario: Mapping) -> "Position":
        st = read_scenario(scenario, query=False)
        return cls(st.board, st.table, st.figures, options=st.options,
                   default_query=st.default_query, scenario=scenario, provoke=st.provoke)

    def copy(self) -> "Position":
        """An independent position: figure arrays copied, board and tables shared."""
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new.team_name = list(self.team_name)
        new.cell = self.cell.copy()
        new.alive = self.alive.copy()
        new.occ = self.occ.copy()
        new._tokens = list(self._tokens)
        new._tok_bit = list(self._tok_bit)
        new._tok_flags = self._tok_flags.copy()
        new._tok_zoc = self._tok_zoc.copy()
        # prepared queries read the position's own layers: a copy rebinds the shared
        # prototypes to its own when first asked (nothing repacked, nothing made for a
        # team not asked, nothing of the parent's written)
        new._queries = {}
        new._last = None
        return new

    def __getstate__(self) -> dict:
        """Pickled without prepared queries (compiled kernels): made again when asked."""
        state = dict(self.__dict__)
        state.update(_queries={}, _proto={}, _last=None)
        return state

    # ---------------------------------------------------------------- figures
    figures = property(_Position._listed_figures, doc="Ids of the figures in play.")
    team_figures = _Position._listed_team_figures

    touching = _Position._listed_touching

    def side_of(self, figure):
        return self.team_name[self._fig(figure)]

    def where(self, figure) -> tuple[int, int]:
        return self.board.coord(int(self.cell[self._fig(figure)]))

    def remove_figure(self, figure) -> None:
        """Take a figure off the board (its cell is free from now on)."""
        i = self._fig(figure)
        self._record(_unremove, i)
        self.alive[i] = False
        self._set_occ(int(self.cell[i]), T.OCC_EMPTY)
        self._touch()

    def add_figure(self, figure, team, at) -> None:
        """Put a new figure (or one removed earlier) of ``team`` on the free cell ``at``."""
        figure = new_figure_id(figure)
        if isinstance(team, bool) or not isinstance(team, (str, int)):
            raise QueryError(f"a team is a string or integer; got {describe(team)}")
        cell = self._cell(at, "add_figure: at")
        if self.occ[cell] != T.OCC_EMPTY:
            raise PlacementError(f"add_figure: {list(self.board.coord(cell))} is taken")
        if self.table[self.board.terrain[cell]] < 0:
            raise PlacementError(f"add_figure: {list(self.board.coord(cell))} cannot be "
                                 f"entered (cost -1)")
        if self._tok_flags[cell]:
            raise PlacementError(f"add_figure: a provoke token stands on "
                                 f"{list(self.board.coord(cell))}")
        i = self.index.get(figure, -1)
        if i >= 0 and self.alive[i]:
            raise PlacementError(f"add_figure: figure {figure!r} is already in play")
        # (undo: the roster as it was; O(figures), the figure arrays are small)
        self._record(_unadd, cell, self.ids, self.index, tuple(self.team_name), self.teams,
                     self.team, self.cell.copy(), self.alive.copy())
        if team not in self.teams:
            self.teams = dict(self.teams)
            self.teams[team] = len(self.teams)
        if i < 0:
            i = len(self.ids)
            self.ids = self.ids + [figure]
            self.index = {**self.index, figure: i}
            self.team_name.append(team)
            self.team = np.append(self.team, np.int32(self.teams[team]))
            self.cell = np.append(self.cell, np.int32(cell))
            self.alive = np.append(self.alive, True)
        else:
            self.team_name[i] = team
            self.team = self.team.copy()
            self.team[i] = self.teams[team]
            self.cell[i] = cell
            self.alive[i] = True
        self._set_occ(cell, int(self.team[i]))
        self._touch()

    def _cell(self, at, what: str) -> int:
        return cell_index(self.board, at, what)

    def _set_occ(self, cell: int, value: int) -> None:
        self.occ[cell] = value    # the layer every prepared query reads

    # ---------------------------------------------------------------- provoke tokens
    @property
    def provoke(self) -> list[tuple[int, int]]:
        """The provoke tokens' coordinates, in the order they were placed (a token may
        stand off the board). Every query reads them: a token's cell cannot be entered,
        and a step between two cells next to the same token ends the move.

        >>> import movecore as mc
        >>> pos = mc.position({"game": "grid", "board": {"grid": "square4", "cells": [
        ...     {"at": [x, 0]} for x in range(4)]}, "figures": [
        ...     {"id": "a", "team": "red", "at": [0, 0]}], "query": {"budget": 3}})
        >>> pos.add_provoke((2, 0)); pos.provoke
        [(2, 0)]
        >>> pos.legal_moves("a").coords.tolist()      # (2, 0) is the token's
        [[0, 0], [1, 0]]
        >>> pos.remove_provoke((2, 0)); len(pos.legal_moves("a"))
        4
        """
        return list(self._tokens)

    def add_provoke(self, at) -> None:
        """Place a provoke token at ``at`` (a coordinate, on or off the board; a cell
        index for a board cell). :class:`PlacementError` if a token or a figure stands
        there already; :class:`LimitError` past 64 tokens. Undone by :meth:`undo`."""
        t = self._token_coord(at, "add_provoke: at")
        if t in self._tokens:
            raise PlacementError(f"add_provoke: a provoke token stands on {list(t)} "
                                 f"already")
        c = self.board.find(t)
        if c >= 0 and self.occ[c] != T.OCC_EMPTY:
            raise PlacementError(f"add_provoke: a figure stands on {list(t)}")
        if len(self._tokens) >= 64:
            from ...errors import LimitError
            raise LimitError("add_provoke: 64 provoke tokens already; at most 64 are "
                             "supported")
        self._record(_unplace_token, t)
        self._place_token(t)
        self._touch()

    def remove_provoke(self, at) -> None:
        """Take away the provoke token at ``at``; :class:`QueryError` if none stands
        there. Undone by :meth:`undo`."""
        t = self._token_coord(at, "remove_provoke: at")
        if t not in self._tokens:
            raise QueryError(f"remove_provoke: no provoke token at {list(t)}; tokens: "
                             f"{[list(x) for x in self._tokens]}")
        self._record(_replace_token, t, self._tokens.index(t))
        self._remove_token(t)
        self._touch()

    def set_provoke(self, tokens) -> None:
        """Replace every provoke token by ``tokens`` (coordinates); the same checks as
        :meth:`add_provoke`. One change for :meth:`undo`."""
        new = [self._token_coord(t, f"set_provoke: tokens[{k}]")
               for k, t in enumerate(get_list({"t": tokens}, "t", "set_provoke"))]
        if len(set(new)) != len(new):
            raise PlacementError("set_provoke: two tokens on one place")
        if len(new) > 64:
            from ...errors import LimitError
            raise LimitError(f"set_provoke: {len(new)} provoke tokens; at most 64 are "
                             f"supported")
        for t in new:
            c = self.board.find(t)
            if c >= 0 and self.occ[c] != T.OCC_EMPTY:
                raise PlacementError(f"set_provoke: a figure stands on {list(t)}")
        self._record(_reset_tokens, tuple(self._tokens))
        _reset_tokens(self, new)
        self._touch()

    def _token_coord(self, at, what: str) -> tuple[int, int]:
        if isinstance(at, (int, np.integer)) and not isinstance(at, bool):
            return self.board.coord(self._cell(at, what))
        return tuple(as_coord(at, what))

    def _token_cells(self, t) -> tuple[int, list]:
        """(the token's cell or -1, the cells next to it)."""
        from ...board import DIRECTIONS
        board = self.board
        x, y = t
        near = [board.find((x + dx, y + dy)) for dx, dy in DIRECTIONS[board.kind]]
        return board.find(t), [v for v in near if v >= 0]

    def _place_token(self, t, at: int | None = None) -> None:
        """Put token ``t`` down (at list position ``at``): O(its neighbours)."""
        first = not self._tokens
        used = set(self._tok_bit)
        bit = next(b for b in range(64) if b not in used)
        if at is None:
            self._tokens.append(t)
            self._tok_bit.append(bit)
        else:
            self._tokens.insert(at, t)
            self._tok_bit.insert(at, bit)
        c, near = self._token_cells(t)
        if c >= 0:
            self._tok_flags[c] = T.CELL_BLOCKED
        if near:
            self._tok_zoc[near] |= np.uint64(1) << np.uint64(bit)
        if first:
            self._queries = {}    # the queries that read the token layers from now on

    def _remove_token(self, t) -> None:
        k = self._tokens.index(t)
        bit = self._tok_bit[k]
        del self._tokens[k], self._tok_bit[k]
        c, near = self._token_cells(t)
        if c >= 0:
            self._tok_flags[c] = 0
        if near:
            self._tok_zoc[near] &= ~(np.uint64(1) << np.uint64(bit))
        if not self._tokens:
            self._queries = {}    # the plain queries again

    # ---------------------------------------------------------------- moves
    def _budget(self, query: Mapping) -> int:
        b = query.get("budget")
        if type(b) is int and 0 <= b <= T.MAX_BUDGET:
            return b
        if "budget" not in query:
            raise QueryError("the query needs 'budget' (movement points); the scenario gave "
                             "no default")
        return get_int(query, "budget", "query", lo=0, hi=T.MAX_BUDGET)

    def _prepared(self, team: int, budget: int) -> Prepared:
        """The prepared query of ``team`` answering ``budget``, reading ``self.occ``."""
        q = self._queries.get(team)
        if q is None or q.max_budget < budget:
            # (with provoke tokens: a query that reads the token layers too; without,
            # the plain one, which skips them)
            key = (team, True) if self._tokens else team
            proto = self._proto.get(key)
            if proto is None or proto.max_budget < budget:
                with BUILD_LOCK:      # (copies share it: built once, then published)
                    proto = self._proto.get(key)
                    if proto is None or proto.max_budget < budget:
                        top = max(budget, 2 * q.max_budget if q is not None else 0)
                        mover = Mover(terrain_cost=self.table, team=team, **self.options)
                        layers = dict(cell_flags=self._tok_flags, zoc=self._tok_zoc) \
                            if self._tokens else {}
                        from ...reach import prepare
                        proto = self._proto[key] = prepare(
                            self.board, mover, min(top, T.MAX_BUDGET), occupant=self.occ,
                            **layers)
            q = self._queries[team] = self._bind(proto)
        return q

    def _bind(self, prepared: Prepared) -> Prepared:
        """``prepared`` reading this position's own layers (occupancy; tokens)."""
        if self._tokens:
            return bind_occupant(prepared, self.occ, qflags=self._tok_flags,
                                 zoc=self._tok_zoc)
        return bind_occupant(prepared, self.occ)

    def _query(self, query: Mapping) -> dict:
        for k in query:
            if k not in _QUERY_KEYS:
                raise QueryError(f"unknown query key {k!r}; expected one of "
                                 f"{sorted(_QUERY_KEYS)}")
        # (read below only when truthy: a falsy wrong value must still be an error)
        if "paths" in query:
            get_bool(query, "paths", "query", False)
        if "provoke" in query:
            get_list(query, "provoke", "query", [])
        return {**self.default_query, **query} if self.default_query else dict(query)

    def legal_moves(self, figure, **query) -> Moves:
        """Every legal end of ``figure`` (cost order, then coordinates, as ``solve()``),
        under the position's provoke tokens (and those of a ``provoke`` query key, for
        this query only). :class:`PlacementError` if a token stands on the figure."""
        i = self._fig(figure)
        if self._tokens and self._tok_flags[self.cell[i]]:
            self._token_on(i)
        q = self._query(query) if query or not self.default_query else self.default_query
        budget = self._budget(q)
        if q.get("provoke") or q.get("paths"):
            paths = get_bool(q, "paths", "query", False)
            r = self._provoked(i, q, budget) if q.get("provoke") else \
                self._prepared(int(self.team[i]), budget).reach(int(self.cell[i]), budget)
            order = np.argsort(r.costs.astype(np.int64) * self.board.n_cells +
                               self._rank[r.cells], kind="stable")
            m = Moves(self, figure, r.cells[order], r.costs[order],
                      r.stopped[order].view(np.int8), query=q, extra=(r, paths))
        else:
            prep = self._prepared(int(self.team[i]), budget)
            m = self._one(prep, i, budget, q) if prep._q.blob is not None else \
                self._batch([i], budget, q)[0]
        self._last = m
        return m

    def legal_moves_side(self, side, **query) -> dict:
        """Every figure of ``side``, each as if it moved first, in one batch kernel call
        (a ``provoke`` or ``paths`` query asks figure by figure)."""
        q = self._query(query) if query or not self.default_query else self.default_query
        if q.get("provoke") or q.get("paths"):
            return super().legal_moves_side(side, **query)
        budget = self._budget(q)
        members = [i for i, t in enumerate(self.team_name) if t == side and self.alive[i]]
        if not members:
            return {}
        if self._tokens:
            for i in members:
                if self._tok_flags[self.cell[i]]:
                    self._token_on(i)
        return {self.ids[i]: m for i, m in zip(members, self._batch(members, budget, q))}

    def _one(self, prep: Prepared, i: int, budget: int, q: Mapping) -> Moves:
        """Moves of figure ``i`` from ``prep`` (its team's prepared query, ``prep.fast``):
        one kernel call into this thread's scratch, the ends copied out (legal_moves' hot
        path: no list, no slicing per figure)."""
        rank = self._rank
        queries, ends = scratch_rows(1, rank.shape[0])
        queries[0, 0] = self.cell[i]
        queries[0, 1] = budget
        block = ends[:, :prep._run_into(queries, ends, rank)].copy()
        return Moves(self, self.ids[i], block[0], block[1], block[2], query=q)

    def _batch(self, members: list, budget: int, q: Mapping) -> list:
        """Moves of figures ``members`` (indices, one team) from one kernel call."""
        team = int(self.team[members[0]])
        prep = self._prepared(team, budget)
        k = len(members)
        if k == 1 and prep.fast:   # one figure: no slicing per figure
            return [self._one(prep, members[0], budget, q)]
        n = self.board.n_cells
        # this thread's query rows and end columns (threads may share a position)
        queries, ends = scratch_rows(k, n)
        queries[:, 0] = self.cell[members]
        queries[:, 1] = budget
        if prep.fast:
            total = prep._run_into(queries, ends, self._rank)
            block = ends[:, :total].copy()
            counts = queries[:, 2].tolist()
        else:  # a board too large for the packed kernel: the general one, sorted here
            batch = prep.reach_many(queries[:, 0], budget, threads=1)
            keys = batch.costs.astype(np.int64) * n + self._rank[batch.cells]
            order = np.concatenate([lo + np.argsort(keys[lo:hi], kind="stable") for lo, hi
                                    in zip(batch.offsets[:-1], batch.offsets[1:])])
            block = np.stack([batch.cells[order], batch.costs[order],
                              batch.stopped[order].astype(T.INDEX)])
            counts = np.diff(batch.offsets).tolist()
        out = []
        lo = 0
        for i, c in zip(members, counts):
            hi = lo + c
            out.append(Moves(self, self.ids[i], block[0, lo:hi], block[1, lo:hi],
                             block[2, lo:hi], query=q))
            lo = hi
        return out

    def _batch_layout(self, query: Mapping):
        """(:class:`movecore.batch.BatchLayout`, None) for batched games asking
        ``query``, or (None, why) where a query cannot be batched: one prepared query per
        team over the occupant layer, a move writes two cells of it."""
        from ...batch import BatchLayout
        q = self._query(query) if query or not self.default_query else self.default_query
        if q.get("provoke") or q.get("paths"):
            return None, "a query with paths or provoke tokens is asked figure by figure"
        budget = self._budget(q)
        slots = np.flatnonzero(self.alive)      # the figures in play, in play order
        team = self.team[slots]
        teams = sorted(set(team.tolist()))
        shapes = [self._prepared(t, budget) for t in teams]
        if not all(p.fast for p in shapes):
            return None, "the board is too large for the packed kernel"
        shape_of = np.searchsorted(teams, team).astype(np.int64)

        def restore(pos, occ, cell, alive):
            """Make ``pos`` (a copy of this position) hold one batched game's arrays."""
            pos.occ[:] = occ
            pos.alive = pos.alive.copy()
            pos.alive[slots] = alive
            pos.cell = pos.cell.copy()
            pos.cell[slots] = np.where(alive, cell, pos.cell[slots])
            pos._touch()

        return BatchLayout(occ=self.occ.copy(), cell=self.cell[slots].copy(),
                           team=team.copy(), shapes=shapes, shape_of=shape_of,
                           budget=np.full(len(slots), budget, np.int64),
                           restore=restore), None

    def _token_on(self, i: int):
        raise PlacementError(f"a provoke token stands on the moving figure "
                             f"{self.ids[i]!r} at {list(self.board.coord(int(self.cell[i])))}")

    def _provoked(self, i: int, q: Mapping, budget: int):
        """A query with a ``provoke`` key: its tokens and the position's, one query."""
        board = self.board
        token_at = [as_coord(t, f"query.provoke[{k}]")
                    for k, t in enumerate(get_list(q, "provoke", "query", []))]
        token_at = list(dict.fromkeys(self._tokens + [tuple(t) for t in token_at]))
        token_cells = [c for c in (board.find(t) for t in token_at) if c >= 0]
        if int(self.cell[i]) in token_cells:
            raise PlacementError(f"a provoke token stands on the moving figure at "
                                 f"{list(board.coord(int(self.cell[i])))}")
        qflags = None
        if token_cells:
            qflags = np.zeros(board.n_cells, np.uint8)
            qflags[token_cells] = T.CELL_BLOCKED
        mover = Mover(terrain_cost=self.table, team=int(self.team[i]), **self.options)
        from ...reach import reach
        return reach(board, mover, int(self.cell[i]), budget, occupant=self.occ,
                     cell_flags=qflags, zoc=token_masks(board, token_at))

    def apply_move(self, figure, to, **query) -> None:
        """Move ``figure`` to the legal end ``to`` (a cell index or coordinate) of the
        move ``query`` asks for; :class:`IllegalMoveError` (position unchanged) if it is
        not one."""
        i = self._fig(figure)
        m = self._last
        if m is None or m.version != self.version or m.figure != figure or \
                (m.query != query and m.query != self._query(query)):
            m = self.legal_moves(figure, **query)
        cell = to if type(to) is int and 0 <= to < self.board.n_cells else \
            self.action_of(figure, to)
        acts = m.actions   # (a list's `in` beats numpy's == and any() on few ends)
        if not (cell in acts.tolist() if len(acts) < 128 else (acts == cell).any()):
            raise IllegalMoveError(f"{describe(to)} is not a legal end of figure "
                                   f"{figure!r} in this position")
        self._move(i, cell)

    def apply_row(self, moves: Moves, row: int) -> None:
        """The end at ``row`` of ``moves``: taken as it is while the position has not
        changed since ``moves`` were answered, else validated as :meth:`apply_move`."""
        row = self._row(moves, row)
        if moves.version != self.version:
            return self.apply_move(moves.figure, int(moves.actions[row]), **moves.query)
        self._move(self.index[moves.figure], int(moves.actions[row]))

    def _move(self, i: int, cell: int) -> None:
        old = int(self.cell[i])
        self._record(_unmove, i, old)
        self.occ[old] = T.OCC_EMPTY
        self.cell[i] = cell
        self.occ[cell] = self.team[i]
        self._touch()

    def _rare_state(self):
        from ...position import board_fingerprint
        return board_fingerprint(self.board), self.table, sorted(self.options.items())

    def _key_parts(self) -> tuple:
        alive = self.alive
        return ([(fid, t) for fid, t, a in zip(self.ids, self.team_name, alive) if a],
                self.cell[alive], sorted(self._tokens), self._rare_part())

    def _end_dicts(self, moves: Moves) -> list[dict]:
        board = self.board
        r, paths = moves._extra if moves._extra is not None else (None, False)
        ends = []
        for cell, cost, st in zip(moves.actions.tolist(), moves.costs.tolist(),
                                  moves.stop.tolist()):
            e = {"at": list(board.coord(cell)), "cost": cost, "stopped": bool(st)}
            if paths:
                e["path"] = coord_list(board, r.path(cell))
            ends.append(e)
        return ends

    # ---------------------------------------------------------------- scenario form
    def to_scenario(self, query: Mapping | None = None) -> dict:
        """The scenario of this position (``solve()`` of it answers as this position)."""
        s = {k: _copy.deepcopy(v) for k, v in (self._scenario or {}).items()
             if k not in ("figures", "query")}
        if self._scenario is None:
            raise QueryError("to_scenario: this position was not built from a scenario")
        s["figures"] = [{"id": fid, "team": self.team_name[i],
                         "at": list(self.board.coord(int(self.cell[i])))}
                        for i, fid in enumerate(self.ids) if self.alive[i]]
        if query is not None:
            s["query"] = dict(query)
        if self._tokens:    # the position's tokens, and the query's own
            q = s.setdefault("query", {})
            extra = [tuple(as_coord(t, "query.provoke")) for t in q.get("provoke") or []]
            q["provoke"] = [list(t) for t in dict.fromkeys(self._tokens + extra)]
        return s

    def solve(self, query: Mapping) -> dict:
        """``solve()``'s result for a scenario ``query`` object (with ``figure``)."""
        fid = read_query(query, self.figures)
        m = self.legal_moves(fid, **{k: v for k, v in query.items() if k != "figure"})
        return {"figure": fid, "ends": m.to_dicts()}


# ------------------------------------------------------------------ undo entries
# (module functions: a position's undo log pickles; see Position.undo)
def _unmove(pos: Position, i: int, cell: int) -> None:
    pos.occ[pos.cell[i]] = T.OCC_EMPTY
    pos.cell[i] = cell
    pos.occ[cell] = pos.team[i]


def _unremove(pos: Position, i: int) -> None:
    pos.alive[i] = True
    pos.occ[pos.cell[i]] = pos.team[i]


def _unadd(pos: Position, cell, ids, index, team_name, teams, team, cells, alive) -> None:
    pos.occ[cell] = T.OCC_EMPTY
    pos.ids, pos.index, pos.teams, pos.team = ids, index, teams, team
    pos.team_name = list(team_name)
    pos.cell, pos.alive = cells.copy(), alive.copy()


def _unplace_token(pos: Position, t) -> None:
    pos._remove_token(t)


def _replace_token(pos: Position, t, at: int) -> None:
    pos._place_token(t, at)


def _reset_tokens(pos: Position, tokens) -> None:
    for t in list(pos._tokens):
        pos._remove_token(t)
    for t in tokens:
        pos._place_token(tuple(t))


@register_game("grid", read=read_scenario)
def solve_grid(scenario: dict) -> dict:
    expect_keys(scenario, "scenario", ("game", "board", "options", "figures", "query"),
                required=("board", "figures", "query"))
    pos = Position.from_scenario(scenario)
    return pos.solve(scenario["query"])
