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

The position is written in parts, one module each: this one (construction, figures,
options, moves, applying, scenario form), :mod:`._layers` (the per-space arrays and the
cost tables), :mod:`._ends` (the jitted finishing of a move's ends, its lazy columns),
:mod:`._map_changes` (:meth:`~Position.conquer`, :meth:`~Position.defeat_enemy`,
:meth:`~Position.reveal_tile`) and :mod:`._search_tree` (what needs the search tree:
provoked enemies, free costs, paths, :meth:`~Position.explore`).
"""
from __future__ import annotations

import copy as _copy
from typing import Mapping, Sequence

import numpy as np

from ...errors import IllegalMoveError, LimitError, PlacementError, QueryError, describe
from ...kernels import _types as T
from ...mover import Mover
from ...position import (BUILD_LOCK, CellActions, Moves, cell_index, figure_key,
                         new_figure_id, register_position, scratch_rows)
from ...position import Position as _Position
from ...reach import Prepared, prepare
from ...scenario import get_bool, get_int, get_list, get_str
from . import rules as mk
from ._ends import _ROWS, _Columns, _finish_ends
from ._layers import (_FLAG_NO_END, _FORBIDS, _TABLE_MODE, _TABLES, _Layers,
                      _build_layers, _direct_key, _table)
from ._map_changes import _MapChanges
from ._search_tree import _SearchTreeAnswers

_QUERY_KEYS = mk.QUERY_KEYS
_MODES = mk.MODES
#: Prepared queries kept per position (cost tables x kinds of player); more are dropped.
_MAX_PREPARED = 32


def _read_time(time) -> str:
    if time not in mk.TIMES:
        raise QueryError(f"time is {describe(time)}; expected one of {list(mk.TIMES)}")
    return time


@register_position("mage_knight")
class Position(_MapChanges, _SearchTreeAnswers, CellActions, _Position):
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
        st = mk.read_scenario(scenario, query=False)
        return cls(st.map, st.heroes, time=st.time, pvp=st.pvp, reductions=st.reductions,
                   enter=st.enter, default_query=st.default_query, scenario=scenario,
                   turn=st.turn, cities=st.cities)

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
        end_safe = mk.end_safe_of(query, mode)
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
        fid = mk.read_query(query, self.figures)
        mode = query.get("mode", "move")
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
