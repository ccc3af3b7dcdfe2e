"""The live position of Tiny Epic Tactics (``movecore.games.tiny_epic_tactics.Position``).

The realm map is packed once; one prepared query per kind of mover (team, how allies are
passed, the ballista a unit started its turn on) reads the position's occupancy array
itself (``bind_occupant``); the units and the turn in progress are arrays. See
docs/tiny_epic_tactics.md, "Live position".

The position is written in parts, one module each: this one (construction, figures,
prepared queries, ``legal_moves`` and the plain move's one kernel call, applying a move,
scenario form), :mod:`._turn` (the turn in progress: Move actions taken, where each
turn began, villages used) and :mod:`._searched_moves` (what needs whole search trees or
the rules' longhand: paths, ``via``, several Move actions, knock back, the solo move,
the ends as dicts).
"""
from __future__ import annotations

import copy as _copy
from typing import Any, Mapping

import numpy as np

from ...errors import IllegalMoveError, PlacementError, QueryError, describe
from ...kernels import _types as T
from ...position import (BUILD_LOCK, CellActions, Moves, bind_occupant, cell_index,
                         figure_key, new_figure_id, register_position, scratch_rows)
from ...position import Position as _Position
from ...reach import Prepared, prepare
from .._common import Figure
from ._searched_moves import _SearchedMoves
from . import rules as tet
from ._turn import _NOT_STARTED, _Turn
from .rules import Realm, mover_for, villages_on

#: Query keys per query type (those of the scenario ``query`` but the moving unit).
_MOVE_KEYS, _KNOCK_KEYS, _SOLO_KEYS = tet.MOVE_KEYS, tet.KNOCK_KEYS, tet.SOLO_KEYS
_KINDS = tet.KINDS


@register_position("tiny_epic_tactics")
class Position(_Turn, _SearchedMoves, CellActions, _Position):
    """A live Tiny Epic Tactics position: the realm packed once, the units as arrays,
    the turn in progress (Move actions taken, the space each unit's turn began on, the
    villages each unit used), one prepared query per kind of mover kept up to date in
    place.

    Query keys: those of the scenario ``query`` but ``figure`` (``target`` for a knock
    back, whose figure is the unit pushed): ``type`` (``"move"`` default,
    ``"knock_back"``, ``"solo"``), ``budget`` (default: the scenario query's), ``paths``,
    ``via``, ``actions``; ``attacker`` / ``direction``, ``distance``; ``compass``,
    ``target``. ``Moves.actions`` are realm spaces (cell indices); columns:
    ``ballista`` (1 where the end is a ballista space), ``actions`` (with the ``actions``
    key: Move actions the end needs), and for a knock back ``moved``, ``health_lost``,
    ``fell``. ``stop`` codes name :attr:`STOP_REASONS` (a move never has to stop: 0).

    >>> import movecore as mc
    >>> pos = mc.position({"game": "tiny_epic_tactics", "board": {"width": 4, "height": 2,
    ...     "terrain": ["..~.", "...."]}, "figures": [{"id": "k", "team": "red", "at": [0, 0]},
    ...     {"id": "r", "team": "red", "at": [0, 1]}, {"id": "o", "team": "blue",
    ...     "at": [3, 0]}]})
    >>> m = pos.legal_moves("k", budget=2)
    >>> m.coords.tolist(), m.costs.tolist()
    ([[0, 0], [1, 0], [1, 1]], [0, 1, 2])
    >>> pos.apply_move("k", (1, 0), budget=2); pos.where("k"), pos.moved("k")
    ((1, 0), 1)
    >>> pos.legal_moves("k", budget=2)
    Traceback (most recent call last):
    ...
    movecore.errors.QueryError: unit 'k' took its Move action this turn ...
    >>> pos.new_turn(); pos.legal_moves("k", budget=2).costs.tolist()
    [0, 1, 1, 2, 2]
    """

    STOP_REASONS = (None, "cliff", "edge", "unit", "portal", "adjacent", "blocked",
                    "out_of_movement", "target", "arrived")
    #: whether the realm has a ballista space (set per position; True, the general path,
    #: for a position pickled before it was kept)
    _has_ballistas = True

    def __init__(self, realm: Realm, figures: list[Figure], *, blocked: str = "stop",
                 options: Mapping | None = None, default_query: Mapping | None = None,
                 scenario: Mapping | None = None, turn: Mapping | None = None):
        """``figures``: units read from a scenario (``Figure`` with one cell);
        ``turn``: ``{id: (moved, turn_start cell, [village cells used])}`` for the units
        that took Move actions this turn (all of one team)."""
        board = realm.board
        n = board.n_cells
        self.realm = realm
        self.board = board
        self.blocked = blocked
        self.options = dict(options or {})
        self.default_query = dict(default_query or {})
        self._scenario = scenario
        self.ids = [f.id for f in figures]
        self.index = {fid: i for i, fid in enumerate(self.ids)}
        self.team_name = [f.team for f in figures]
        self.teams: dict[Any, int] = {}
        for t in self.team_name:
            self.teams.setdefault(t, len(self.teams))
        k = len(figures)
        #: int32[F] team id, cell, alive flag of every unit ever in play (index = order)
        self.team = np.array([self.teams[t] for t in self.team_name], T.INDEX)
        self.cell = np.array([f.cell for f in figures], T.INDEX)
        self.alive = np.ones(k, bool)
        #: int32[N] team id standing on each space (OCC_EMPTY where none)
        self.occ = np.full(n, T.OCC_EMPTY, T.INDEX)
        self.occ[self.cell] = self.team
        # the turn in progress: Move actions taken, the space the turn began on (only
        # meaningful when moved > 0), village cells used (frozensets), and moves whose
        # villages are not resolved yet ([(start, end, budget, turn_start, occ)])
        self.moves_taken = np.zeros(k, np.int8)
        self.turn_start = np.full(k, _NOT_STARTED, T.INDEX)
        self._used: list = [frozenset()] * k
        self._pending: list = [()] * k
        self._turn_team = -1
        self._movers: list = []   # units with moves_taken > 0 (cleared by new_turn)
        for fid, (moved, began, used) in (turn or {}).items():
            i = self.index[fid]
            self._movers.append(i)
            self.moves_taken[i] = moved
            self.turn_start[i] = began
            self._used[i] = frozenset(used)
            self._turn_team = int(self.team[i])
        # static tables
        terrain = realm.terrain
        self._ballista = np.array([t == "ballista" for t in terrain], T.INDEX)
        self._village = np.array([t == "village" for t in terrain], bool)
        self._has_villages = bool(self._village.any())
        self._has_ballistas = bool(self._ballista.any())
        # cell -> rank in (x, y) order: ends sorted by (cost, rank), as solve() lists them
        self._rank = np.empty(n, np.int64)
        self._rank[np.lexsort((board.coords[:, 1], board.coords[:, 0]))] = np.arange(n)
        self._zeros = np.zeros(n, T.INDEX)
        self._zeros.flags.writeable = False
        # prepared queries: (team, allies, ballista cell or -1) -> Prepared reading
        # ``self.occ`` (this position's own); ``_proto``: the same keys -> the largest
        # prepared query made so far by this position or a relative (copies share it,
        # entries are published whole), never run itself, only rebound to a
        # position's ``occ`` (``bind_occupant``): a copy repacks nothing
        self._preps: dict[tuple, Prepared] = {}
        self._proto: dict[tuple, Prepared] = {}
        # the last Moves asked per unit, and since when Moves may be wrong for more than
        # the spaces allies took since: per team (enemies moved or came, a new turn), per
        # unit (it moved itself). A plain move's ends stay legal while only allies move
        # (their spaces are passed at the same cost), so a side's batch answers every
        # unit's apply_move without another search.
        self._recent: list = [None] * k
        self._team_stale: list = [0] * len(self.teams)
        self._unit_stale: list = [0] * k
        self._figures: list | None = None
        self._muster = None   # (version, Muster) for knock back and solo
        self.version = 0

    # ---------------------------------------------------------------- construction
    @classmethod
    def from_scenario(cls, scenario: Mapping) -> "Position":
        """The position of a scenario dict (its ``query``, if any, gives the default
        ``budget``). Raises the typed errors :func:`movecore.solve` raises."""
        st = tet.read_scenario(scenario, query=False)
        return cls(st.realm, st.figures, blocked=st.blocked, options=st.options,
                   default_query=st.default_query, scenario=scenario, turn=st.turn)

    def copy(self) -> "Position":
        """An independent position: unit and turn arrays copied, realm and static tables
        shared, each prepared query copied with its own layers (nothing repacked)."""
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new.team_name = list(self.team_name)
        new.team = self.team.copy()
        new.cell = self.cell.copy()
        new.alive = self.alive.copy()
        new.occ = self.occ.copy()
        new.moves_taken = self.moves_taken.copy()
        new.turn_start = self.turn_start.copy()
        new._used = list(self._used)
        new._pending = list(self._pending)
        new._movers = list(self._movers)
        new._preps = {}                    # rebound to new.occ when first asked
        new._recent = [None] * len(self.ids)
        new._team_stale = list(self._team_stale)
        new._unit_stale = list(self._unit_stale)
        new._muster = None
        return new

    def __getstate__(self) -> dict:
        """Pickled without prepared queries (compiled kernels) and answers kept: made
        again when asked."""
        state = dict(self.__dict__)
        state.update(_preps={}, _proto={}, _recent=[None] * len(self.ids), _muster=None)
        return state

    # ---------------------------------------------------------------- figures
    figures = property(_Position._listed_figures,
                       doc="Ids of the units in play, in scenario order (added units last).")
    team_figures = _Position._listed_team_figures

    def _stale_all(self) -> None:
        """After a change that may take ends away from any unit (call after _touch)."""
        v = self.version
        self._team_stale = [v] * len(self._team_stale)

    @property
    def sides(self) -> list:
        """The teams with units in play, in order of first appearance."""
        return list(dict.fromkeys(t for t, a in zip(self.team_name, self.alive) if a))

    #: Ids of the units on the spaces next to ``figure``'s (the map's geometric
    #: neighbours, not portal hops), in play order.
    touching = _Position._listed_touching

    def side_of(self, figure):
        """The unit's team (the scenario's ``team`` value)."""
        return self.team_name[self._fig(figure)]

    def where(self, figure) -> tuple[int, int]:
        """The unit's space ``(x, y)``."""
        return self.board.coord(int(self.cell[self._fig(figure)]))

    def remove_figure(self, figure) -> None:
        """Take a unit off the map (defeated); its space is free from now on.

        >>> import movecore as mc
        >>> pos = mc.position({"game": "tiny_epic_tactics", "board": {"width": 3,
        ...     "height": 1}, "figures": [{"id": "a", "team": 1, "at": [0, 0]},
        ...     {"id": "b", "team": 2, "at": [1, 0]}]})
        >>> pos.remove_figure("b"); pos.legal_moves("a", budget=2).coords.tolist()
        [[0, 0], [1, 0], [2, 0]]
        """
        i = self._fig(figure)
        self._record(_unremove, i)
        self.alive[i] = False
        self._set_occ(int(self.cell[i]), T.OCC_EMPTY)
        self._touch()

    def add_figure(self, figure, team, at) -> None:
        """Put a new unit (or one removed earlier) of ``team`` on the free space ``at``
        (a coordinate or cell index); it has taken no action this turn.
        :class:`PlacementError` if the space is taken, :class:`QueryError` if it is
        off the map or the id is in play."""
        figure = new_figure_id(figure)
        if isinstance(team, bool) or not isinstance(team, (str, int)):
            raise QueryError(f"a team is a string or integer; got {describe(team)}")
        cell = self._cell(at, "add_figure: at")
        if self.occ[cell] != T.OCC_EMPTY:
            raise PlacementError(f"add_figure: {list(self.board.coord(cell))} is taken; "
                                 f"one unit per space")
        i = self.index.get(figure, -1)
        if i >= 0 and self.alive[i]:
            raise PlacementError(f"add_figure: unit {figure!r} is already in play")
        self._record_snapshot()
        if team not in self.teams:
            self.teams = {**self.teams, team: len(self.teams)}
            self._team_stale.append(0)
        tid = self.teams[team]
        if i < 0:
            i = len(self.ids)
            self.ids = self.ids + [figure]
            self.index = {**self.index, figure: i}
            self.team_name.append(team)
            self.team = np.append(self.team, np.int32(tid))
            self.cell = np.append(self.cell, np.int32(cell))
            self.alive = np.append(self.alive, True)
            self.moves_taken = np.append(self.moves_taken, np.int8(0))
            self.turn_start = np.append(self.turn_start, np.int32(_NOT_STARTED))
            self._used.append(frozenset())
            self._pending.append(())
            self._recent.append(None)
            self._unit_stale.append(0)
        else:
            self.team_name[i] = team
            self.team[i] = tid
            self.cell[i] = cell
            self.alive[i] = True
            self.moves_taken[i] = 0
            self.turn_start[i] = _NOT_STARTED
            self._used[i] = frozenset()
            self._pending[i] = ()
        self._set_occ(cell, tid)
        self._touch()
        self._stale_all()

    def _cell(self, at, what: str) -> int:
        return cell_index(self.board, at, what, "on the realm map")

    def _set_occ(self, cell: int, value: int) -> None:
        self.occ[cell] = value    # the layer every prepared query reads


    # ---------------------------------------------------------------- prepared queries
    def _prep(self, team: int, allies: str, ballista: int, budget: int) -> Prepared:
        """The prepared query of a mover kind; ``ballista``: the ballista space the unit
        started its turn on (blocked for it), or -1."""
        key = (team, allies, ballista)
        p = self._preps.get(key)
        if p is None or p.max_budget < budget:
            proto = self._proto.get(key)
            if proto is None or proto.max_budget < budget:
                with BUILD_LOCK:      # (copies share it: built once, then published)
                    proto = self._proto.get(key)
                    if proto is None or proto.max_budget < budget:
                        top = max(budget, 8, 2 * p.max_budget if p is not None else 0)
                        flags = None
                        if ballista >= 0:
                            flags = np.zeros(self.board.n_cells, np.uint8)
                            flags[ballista] = T.CELL_BLOCKED
                        proto = self._proto[key] = prepare(
                            self.board, mover_for(team, allies=allies),
                            min(top, T.MAX_BUDGET), occupant=self.occ, cell_flags=flags)
            p = self._preps[key] = bind_occupant(proto, self.occ)
        return p

    def _unit_prep(self, i: int, budget: int, allies: str = "pass") -> Prepared:
        began = self._began(i)
        return self._prep(int(self.team[i]), allies, began if self._ballista[began] else -1,
                          budget)

    def _batch_layout(self, query: Mapping):
        """(:class:`movecore.batch.BatchLayout`, None) for batched games asking a plain
        Move action (``budget`` only), or (None, why). Each unit's Move action is
        answered as its first of the turn from where it stands (a unit standing on a
        ballista may not end there: the shape of its team and that ballista); the
        turn's bookkeeping (one Move action per unit, villages used) is the driver's,
        and :meth:`movecore.batch.BatchedGames.position` gives a position at the start
        of a turn."""
        from ...batch import BatchLayout
        b = query.get("budget") if set(query) == {"budget"} else \
            self.default_query.get("budget") if not query else None
        if type(b) is not int or not 0 <= b <= T.MAX_BUDGET:
            return None, "only a plain Move action (budget alone) is batched"
        slots = np.flatnonzero(self.alive)
        team = self.team[slots]
        teams = sorted(set(team.tolist()))
        balls = np.flatnonzero(self._ballista)
        per = len(balls) + 1                   # shapes per team: no ballista, each one
        shapes = [self._prep(t, "pass", c, b) for t in teams for c in [-1, *balls.tolist()]]
        if not all(p.fast for p in shapes):
            return None, "the map is too large for the packed kernel"
        shape_cell = np.zeros(self.board.n_cells, np.int64)
        shape_cell[balls] = np.arange(1, per)

        def restore(pos, occ, cell, alive):
            pos.new_turn()
            for c in np.flatnonzero(pos.occ != occ).tolist():
                pos._set_occ(c, int(occ[c]))
            pos.alive = pos.alive.copy()
            pos.alive[slots] = alive
            pos.cell = pos.cell.copy()
            pos.cell[slots] = np.where(alive, cell, pos.cell[slots])
            pos._figures = None
            pos._stale_all()
            pos._touch()

        return BatchLayout(occ=self.occ.copy(), cell=self.cell[slots].copy(),
                           team=team.copy(),
                           shapes=shapes,
                           shape_of=(np.searchsorted(teams, team) * per).astype(np.int64),
                           budget=np.full(len(slots), b, np.int64), restore=restore,
                           shape_cell=shape_cell), None

    # ---------------------------------------------------------------- queries
    def _parse(self, query: Mapping, fid) -> tuple:
        """A query dict (scenario words, without the unit) as a tuple:
        ("move", budget, paths, via cell or -1, actions, actions given) /
        ("knock_back", side, distance, attacker index or -1) /
        ("solo", budget, compass, target index or -1, range, climb)."""
        return tet.parse_query(query, self.realm, self._named, self.default_query)

    def _named(self, fid, where: str) -> int:
        i = self.index.get(figure_key(fid), -1)
        if i < 0 or not self.alive[i]:
            raise QueryError(f"{where} names figure {fid!r}, which is not in the scenario; "
                             f"known figures: {self.figures}")
        return i

    def legal_moves(self, figure, **query) -> Moves:
        """The legal ends of ``figure`` for a query in the scenario's words (without
        ``figure``; for a knock back ``figure`` is the unit pushed), array-first, in
        ``solve()``'s order (cost, then x, then y).

        A plain move (``budget`` only, the hot path) is one kernel call into reused
        buffers. :class:`QueryError` if the unit may not take another Move action this
        turn (see :meth:`new_turn`).

        >>> import movecore as mc
        >>> pos = mc.position({"game": "tiny_epic_tactics", "board": {"width": 3,
        ...     "height": 1, "terrain": [".v."]}, "figures": [{"id": "k", "at": [0, 0]}]})
        >>> m = pos.legal_moves("k", budget=2)
        >>> m.actions.tolist(), m.costs.tolist(), m.columns["ballista"].tolist()
        ([0, 1, 2], [0, 1, 2], [0, 0, 0])
        >>> m.to_dicts()[1]
        {'at': [1, 0], 'cost': 1, 'villages': [[1, 0]], 'ballista': False}
        """
        i = self._fig(figure)
        b = query.get("budget") if len(query) == 1 else None
        if type(b) is int and 0 <= b <= T.MAX_BUDGET:
            m = self._plain(i, figure, b, query)
        elif not query and "budget" in self.default_query and \
                type(self.default_query["budget"]) is int:
            m = self._plain(i, figure, self.default_query["budget"], query)
        else:
            parsed = self._parse(query, figure)
            if parsed[0] == "move":
                _, budget, paths, via, actions, given = parsed
                if via < 0 and actions == 1 and not given and not paths:
                    m = self._plain(i, figure, budget, query)
                else:
                    m = self._move(i, figure, parsed, query)
            elif parsed[0] == "knock_back":
                m = self._knock_back(i, figure, parsed, query)
            else:
                m = self._solo(i, figure, parsed, query)
        self._recent[i] = m
        return m

    def _plain(self, i: int, figure, budget: int, query) -> Moves:
        """One Move action: one kernel call, ends sorted by the kernel."""
        if self.moves_taken[i]:
            self._check_may_move(i, 1, False)
        return self._batch(self._unit_prep(i, budget), [i], budget, query)[0]

    def legal_moves_side(self, side, **query) -> dict:
        """``{id: Moves}`` for every unit of ``side`` that may still take a Move action
        this turn, each as if it moved first. A plain move (``budget`` only) is one
        kernel call for all the units of the side, plus one per unit that started its
        turn on a ballista (its own prepared query); other queries ask unit by unit."""
        # (the arrays read as lists once: no numpy scalar per unit)
        alive, taken = self.alive.tolist(), self.moves_taken.tolist()
        members = [i for i, t in enumerate(self.team_name) if t == side and alive[i] and
                   (not taken[i] or self._actions_left(i) > 0)]
        if not members:
            return {}
        budget = query.get("budget") if len(query) == 1 else None
        if not query:
            budget = self.default_query.get("budget")
        if type(budget) is not int or not 0 <= budget <= T.MAX_BUDGET:
            parsed = self._parse(query, None)
            if parsed[0] != "move" or parsed[3] >= 0 or parsed[5] or parsed[2]:
                return {self.ids[i]: self.legal_moves(self.ids[i], **query)
                        for i in members}
            budget = parsed[1]
        ids = self.ids
        on = ()       # units that began their turn on a ballista (see _began)
        if self._has_ballistas:
            ball, cell, start = self._ballista, self.cell.tolist(), self.turn_start.tolist()
            on = [i for i in members if ball[start[i] if taken[i] else cell[i]]]
        if not on:    # one kernel call for the side
            p = self._prep(int(self.team[members[0]]), "pass", -1, budget)
            return dict(zip([ids[i] for i in members],
                            self._batch(p, members, budget, query)))
        out = {ids[i]: self._plain(i, ids[i], budget, query) for i in on}
        plain = [i for i in members if i not in on]
        if plain:
            p = self._prep(int(self.team[plain[0]]), "pass", -1, budget)
            for i, m in zip(plain, self._batch(p, plain, budget, query)):
                out[ids[i]] = m
        return {ids[i]: out[ids[i]] for i in members}

    def _batch(self, p: Prepared, members: list, budget: int, query) -> list:
        if not p.fast:
            return self._batch_general(p, members, budget, query)
        k = len(members)
        queries, ends = scratch_rows(k, self.board.n_cells)  # this thread's (threads
        #                                                      may share a position)
        if k == 1:
            queries[0, 0] = self.cell[members[0]]
            queries[0, 1] = budget
        else:
            queries[:, 0] = self.cell[members]
            queries[:, 1] = budget
        total = p._run_into(queries, ends, self._rank)
        block = ends[:, :total].copy()
        ball = self._ballista.take(block[0])
        v = self.version
        recent = self._recent
        if k == 1:
            i = members[0]
            m = recent[i] = Moves(self, self.ids[i], block[0], block[1], block[2],
                                  self._zeros[:total], {"ballista": ball}, query,
                                  ("move", i, budget, v))
            return [m]
        out = []
        lo = 0
        for i, c in zip(members, queries[:, 2].tolist()):
            hi = lo + c
            m = recent[i] = Moves(self, self.ids[i], block[0, lo:hi], block[1, lo:hi],
                                  block[2, lo:hi], self._zeros[:c],
                                  {"ballista": ball[lo:hi]}, query, ("move", i, budget, v))
            out.append(m)
            lo = hi
        return out

    def _batch_general(self, p: Prepared, members: list, budget: int, query) -> list:
        """A realm too large for the packed kernel: the general batch, sorted here."""
        n = self.board.n_cells
        batch = p.reach_many(self.cell[members], budget, threads=1)
        out = []
        for j, i in enumerate(members):
            cells, costs, stopped = batch[j]
            order = np.argsort(costs.astype(np.int64) * n + self._rank[cells],
                               kind="stable")
            cells = cells[order].astype(T.INDEX)
            out.append(Moves(self, self.ids[i], cells, costs[order].astype(T.INDEX),
                             stopped[order].astype(T.INDEX), None,
                             {"ballista": self._ballista[cells]}, query,
                             ("move", i, budget, self.version)))
            self._recent[i] = out[-1]
        return out


    # ---------------------------------------------------------------- apply
    def apply_move(self, figure, to, **query) -> None:
        """Move ``figure`` to the legal end ``to`` (a space index or ``(x, y)``) of the
        query ``query`` (as :meth:`legal_moves`); :class:`IllegalMoveError` (position
        unchanged) if it is not one.

        A move takes a Move action of the unit (none when it stays on its space; with
        ``actions``, as many as the end needs) and starts a new turn first when a unit
        of another team moved this turn. A knock back slides the pushed unit and a solo
        move moves the solo enemy; neither touches the turn's bookkeeping.

        >>> import movecore as mc
        >>> pos = mc.position({"game": "tiny_epic_tactics", "board": {"width": 3,
        ...     "height": 1}, "figures": [{"id": "a", "team": 1, "at": [0, 0]},
        ...     {"id": "b", "team": 2, "at": [2, 0]}]})
        >>> pos.apply_move("b", (1, 0), budget=1)
        >>> pos.apply_move("a", (1, 0), budget=1)
        Traceback (most recent call last):
        ...
        movecore.errors.IllegalMoveError: (1, 0) is not a legal end of figure 'a' ...
        """
        i = self._fig(figure)
        m = self._recent[i]
        if m is None or m.query != query or not self._fresh(m, i):
            m = self.legal_moves(figure, **query)
        if type(to) is int and 0 <= to < self.board.n_cells:
            cell = to
        else:
            cell = self._cell(to, "to")
        extra = m._extra
        start = int(self.cell[i])
        if extra[0] == "move":
            # ends of a plain move stay legal while only allies moved: unless taken now
            if cell != start and (self.occ[cell] != T.OCC_EMPTY or not (
                    cell in m.actions.tolist() if len(m.actions) < 256
                    else (m.actions == cell).any())):
                raise IllegalMoveError(f"{describe(to)} is not a legal end of figure "
                                       f"{figure!r} in this position")
            taken = 0 if cell == start else 1
            row = -1
        else:
            rows = np.flatnonzero(m.actions == cell)
            if rows.size == 0:
                raise IllegalMoveError(f"{describe(to)} is not a legal end of figure "
                                       f"{figure!r} in this position")
            row = int(rows[0])
            if extra[0] in ("knock_back", "solo"):
                self._record(_unrelocate, i, start)
                self._relocate(i, start, cell)
                self._stale_all()
                return
            if extra[5]:     # several actions asked: the end's own count
                taken = int(m.columns["actions"][row])
            else:            # a via move always moved; otherwise staying put is no action
                taken = 1 if (cell != start or extra[3] >= 0) else 0
        team = int(self.team[i])
        self._record_turn(i, start)
        if self._turn_team != team:
            if self._turn_team >= 0:
                self._new_turn()    # a unit of another team acts: its turn began
            self._turn_team = team
        if taken:
            if not self.moves_taken[i]:
                self.turn_start[i] = start
                self._movers.append(i)
            began = self._began(i)
            self.moves_taken[i] += taken
            if self._has_villages:
                if extra[0] == "move":
                    self._pending[i] = self._pending[i] + (
                        (start, cell, extra[2], began, self.occ.copy()),)
                else:
                    end = extra[2][row]
                    used = villages_on(self.realm, end.path,
                                       {began} | self._used_cells(i))
                    if used:
                        self._used[i] = self._used[i] | frozenset(used)
        self._relocate(i, start, cell)
        # the unit's own Moves are spent; the other teams' may have lost ends
        v = self.version
        self._unit_stale[i] = v
        ts = self._team_stale
        for t in range(len(ts)):
            if t != team:
                ts[t] = v

    def _record_turn(self, i: int, start: int) -> None:
        """Undo entry of a move (unit i from ``start``; -1: none) or a new turn: the
        turn's bookkeeping as it was (per unit: O(units))."""
        self._record(_unturn, i, start, self.moves_taken.copy(), self.turn_start.copy(),
                     tuple(self._used), tuple(self._pending), tuple(self._movers),
                     self._turn_team)

    def _key_parts(self) -> tuple:
        alive = np.flatnonzero(self.alive).tolist()
        used = [sorted(self._used_cells(i)) if self.moves_taken[i] else ()
                for i in alive]
        movers = sorted(self.ids[i] for i in self._movers if self.alive[i])
        return ([(self.ids[i], self.team_name[i]) for i in alive], self.cell[alive],
                self.moves_taken[alive], self.turn_start[alive], used, movers,
                self._rare_part())

    def _fresh(self, m: Moves, i: int) -> bool:
        """Whether ``m`` (the unit's last Moves) still answers for unit ``i``: exactly
        (nothing changed), or, for a plain move, up to the spaces its allies took."""
        if m.version == self.version:
            return True
        return m._extra[0] == "move" and m.version >= self._unit_stale[i] and \
            m.version >= self._team_stale[self.team[i]]

    def _relocate(self, i: int, start: int, cell: int) -> None:
        if cell != start:
            self._set_occ(start, T.OCC_EMPTY)
            self.cell[i] = cell
            self._set_occ(cell, int(self.team[i]))
        self._touch()

    # ---------------------------------------------------------------- scenario form
    def to_scenario(self, query: Mapping | None = None) -> dict:
        """The scenario of this position, the turn in progress included (figure keys
        ``moved``, ``turn_start``, ``villages_used``): ``solve()`` of it answers as this
        position does."""
        if self._scenario is None:
            raise QueryError("to_scenario: this position was not built from a scenario")
        s = {k: _copy.deepcopy(v) for k, v in self._scenario.items()
             if k not in ("figures", "query")}
        figs = []
        for i, fid in enumerate(self.ids):
            if not self.alive[i]:
                continue
            f = {"id": fid, "team": self.team_name[i],
                 "at": list(self.board.coord(int(self.cell[i])))}
            if self.moves_taken[i]:
                f["moved"] = int(self.moves_taken[i])
                f["turn_start"] = list(self.board.coord(int(self.turn_start[i])))
                used = self.villages_used(fid)
                if used:
                    f["villages_used"] = [list(v) for v in used]
            figs.append(f)
        s["figures"] = figs
        if query is not None:
            s["query"] = dict(query)
        return s

    def solve(self, query: Mapping) -> dict:
        """``solve()``'s result for a scenario ``query`` object (with ``figure``, or
        ``target`` for a knock back)."""
        kind, key, fid = tet.read_query(query, self.figures)
        i = self.index[figure_key(fid)]
        fid = self.ids[i]
        rest = {k: v for k, v in query.items() if k != key}
        if kind == "move":
            rest.setdefault("budget", query["budget"])
        m = self.legal_moves(fid, **rest)
        if kind == "knock_back":
            return {"knock_back": m.to_dicts()[0]}
        if kind == "solo":
            return {"solo": m.to_dicts()[0]}
        out: dict[str, Any] = {"figure": fid}
        if m._extra[0] == "ends" and m._extra[3] >= 0:
            out["via"] = list(self.realm.xy(m._extra[3]))
        out["ends"] = m.to_dicts()
        return out


# ------------------------------------------------------------------ undo entries
def _stale(pos) -> None:
    """After an undo: no kept answer is current (every unit's and team's Moves stale)."""
    pos._touch()
    pos._stale_all()
    pos._unit_stale = [pos.version] * len(pos._unit_stale)
    pos._recent = [None] * len(pos._recent)


def _unrelocate(pos, i: int, start: int) -> None:
    cell = int(pos.cell[i])
    if cell != start:
        pos._set_occ(cell, T.OCC_EMPTY)
        pos.cell[i] = start
        pos._set_occ(start, int(pos.team[i]))
    _stale(pos)


def _unturn(pos, i, start, taken, turn_start, used, pending, movers, turn_team) -> None:
    if i >= 0:
        _unrelocate(pos, i, start)
    pos.moves_taken[:] = taken
    pos.turn_start[:] = turn_start
    pos._used, pos._pending = list(used), list(pending)
    pos._movers, pos._turn_team = list(movers), turn_team
    _stale(pos)


def _unremove(pos, i: int) -> None:
    pos.alive[i] = True
    pos._set_occ(int(pos.cell[i]), int(pos.team[i]))
    _stale(pos)
