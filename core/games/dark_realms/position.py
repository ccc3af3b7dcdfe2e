"""The live position of Dark Realms (``movecore.games.dark_realms.Position``): the scene
read once, the figures, one occupancy layer kept in step with one prepared query per kind
of mover, and the trap layer the penalty queries read; the enemy AI's fast path is its
part :mod:`._enemy_moves`. The rules it answers by are those of :mod:`.rules`.
"""
from __future__ import annotations

import copy as _copy
from typing import Mapping

import numpy as np

from ...board import Board
from ...errors import IllegalMoveError, PlacementError, QueryError, describe
from ...kernels import _types as T
from ...position import (CellActions, Moves, bind_occupant, cell_index, figure_key,
                         new_figure_id, register_position, scratch_rows, shared_prepared)
from ...position import Position as _Position
from ...reach import Prepared, prepare
from ...scenario import expect_keys, expect_object
from ._enemy_moves import _EnemyMoves
from .rules import (DICE, ENEMIES, MAX_MOVE, MAX_TRAPS_TRACKED, SIDES, _QUERY_KEYS, Figure,
                    Scene, _clone, _solve_scene, read_scene)

#: Moves.columns of hero queries: stamina (Stamina spent), traps_cost; of die queries:
#: min_roll; of enemy queries: in_range (0/1), target (index into the result's targets)
ENEMY_REASONS = ("in_range", "route", "no_route", "no_target")


@register_position("dark_realms")
class Position(_EnemyMoves, CellActions, _Position):
    """A live Dark Realms position: the scene (board, terrain masks, options) read once,
    the figures, one occupancy layer (int32[N], the team of the figure on each space, -1
    empty) kept in step with one prepared query per (team, flying) kind of mover.

    Query keys (those of the scenario ``query`` without ``figure``): ``move`` | ``roll``
    [+ ``bonus``] [+ ``stamina``], ``stamina_only`` + ``stamina``, ``die`` [+ ``bonus``,
    ``stamina``], ``teleport``, ``paths``; for the enemy AI ``enemy=True`` (or the enemy's
    id) with ``move`` | ``roll`` and ``attack_range``.

    Moves of a hero query: ``actions`` = spaces, ``costs`` = spaces moved (teleport: grid
    distance), ``penalty`` = traps triggered, ``columns``: ``stamina``, ``traps_cost``
    (card/Stamina moves), ``min_roll`` (die). Of an enemy query: one row per target the
    AI may pick (ties: several), ``actions`` = its destination, ``costs`` = steps,
    ``penalty`` = traps on the path, ``columns``: ``in_range`` (0/1), ``reason`` (index
    into ``ENEMY_REASONS``). No stop codes (Dark Realms moves never stop early).

    >>> import movecore as mc
    >>> pos = mc.position({"game": "dark_realms", "board": {"cells": [
    ...     {"at": [q, 0]} for q in range(5)]}, "figures": [
    ...     {"id": "ayla", "side": "hero", "at": [0, 0]},
    ...     {"id": "orc", "side": "enemy", "at": [4, 0]}], "query": {"figure": "ayla",
    ...     "move": 2}})
    >>> pos.legal_moves("ayla", move=2).coords.tolist()
    [[0, 0], [1, 0], [2, 0]]
    >>> pos.apply_move("ayla", (2, 0), move=2)
    >>> m = pos.legal_moves("orc", enemy=True, move=3)
    >>> m.coords.tolist(), m.to_dicts()[0]["target"]
    ([[3, 0]], 'ayla')
    """

    STOP_REASONS = (None,)

    def __init__(self, scene: Scene, scenario: Mapping | None = None):
        self.scene = scene
        self.board = scene.board
        self._scenario = scenario
        n = scene.board.n_cells
        self.occ = np.full(n, T.OCC_EMPTY, T.INDEX)
        for f in scene.figures:
            self.occ[f.cell] = f.team
        self.index = {f.id: f for f in scene.figures}
        self._rank = np.empty(n, np.int64)
        xy = scene.board.coords
        self._rank[np.lexsort((xy[:, 1], xy[:, 0]))] = np.arange(n)
        # Per-position state: ``scene.figures`` (Figure objects), ``scene.trap``,
        # ``occ`` and ``_trap_pen`` (the trap layer as the penalty kernels read it),
        # ``_n_traps``, ``version``. The rest is shared with copies (board-only, never
        # written once published) or a cache of this position.
        self._trap_pen = scene.trap.astype(T.INDEX)
        self._figs_owned = True   # scene.figures and index are this position's alone
        self._flags = {}       # flying -> uint8[N] cell flags (board-only, shared)
        # prepared queries: key ((team, flying), (team, "traps"), ...) -> Prepared
        # reading this position's ``occ`` (and ``_trap_pen``): its own. ``_proto``: key
        # (with its trap levels) -> the prepared query made by this position or a
        # relative (copies share it; entries are published whole and never written),
        # only ever rebound to a position's own layers (``bind_occupant``). ``_rev``:
        # the enemies' reverse query's prototype (its terrain is the trap layout: this
        # position's and its copies' until a trap changes).
        self._queries = {}
        self._proto = {}
        self._rev = None
        self._levels = {}      # query key -> trap levels its penalty layer tracks
        self._zeros = np.zeros(n, T.INDEX)   # read-only zero column (never written)
        self._zeros.flags.writeable = False
        self._no_traps = np.zeros(n, T.INDEX)  # the enemy AI's (writeable: one signature)
        self._faces = DICE[scene.die]
        self._n_traps = int(scene.trap.sum())
        self._last = None
        self.version = 0

    @classmethod
    def from_scenario(cls, scenario: Mapping) -> "Position":
        scenario = expect_object(scenario, "scenario")
        s = dict(scenario)
        s.setdefault("query", {})
        return cls(read_scene(s), scenario)

    def copy(self) -> "Position":
        """An independent position: figures and occupancy copied, board shared."""
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        sc = self.scene
        # the figure objects (and ``index``) are shared until either position changes
        # one (copy on write: see _own_figures)
        new.scene = Scene(sc.board, sc.obstacle, sc.trap.copy(), sc.rift, sc.figures,
                          sc.pass_allies, sc.die, sc.trap_detour_limit, sc._cache)
        self._figs_owned = new._figs_owned = False
        new.occ = self.occ.copy()
        new._trap_pen = self._trap_pen.copy()
        new._queries = {}     # rebound to the copy's layers when first asked
        new._last = None
        return new

    def __getstate__(self) -> dict:
        """Pickled without prepared queries (compiled kernels): made again when asked."""
        state = dict(self.__dict__)
        state.update(_queries={}, _proto={}, _rev=None, _levels={}, _last=None)
        return state

    def _own_figures(self) -> None:
        """Before a change to a figure: the figure objects (shared with copies until
        then) made this position's own."""
        if not self._figs_owned:
            figs = [_clone(f) for f in self.scene.figures]
            self.scene.figures = figs
            self.index = {f.id: f for f in figs}
            self._figs_owned = True

    def _mine(self, f: Figure) -> Figure:
        """Figure ``f`` of this position, made its own (see :meth:`_own_figures`)."""
        if not self._figs_owned:
            self._own_figures()
            return self.index[f.id]
        return f

    # ---------------------------------------------------------------- figures
    @property
    def figures(self) -> list:
        return [f.id for f in self.scene.figures]

    @property
    def sides(self) -> list[str]:
        return list(dict.fromkeys(f.side for f in self.scene.figures))

    def team_figures(self, side: str) -> list:
        return [f.id for f in self.scene.figures if f.side == side]

    def touching(self, figure) -> list:
        """Ids of the figures on a space at grid distance 1 of ``figure``'s, in play
        order."""
        f = self._fig(figure)
        near = self._distances(f.cell)
        return [g.id for g in self.scene.figures if g is not f and near[g.cell] == 1]

    def _fig(self, figure) -> Figure:
        f = self.index.get(figure_key(figure))
        if f is None:
            raise self._figure_error(figure)
        return f

    def side_of(self, figure) -> str:
        """``"hero"``, ``"enemy"`` or ``"summon"``."""
        return self._fig(figure).side

    def where(self, figure) -> tuple:
        return self.board.coord(self._fig(figure).cell)

    def _cell(self, at, what: str) -> int:
        return cell_index(self.board, at, what)

    def _set_occ(self, cell: int, value: int) -> None:
        self.occ[cell] = value    # the layer every prepared query reads

    def remove_figure(self, figure) -> None:
        """Take a figure off the board (defeated, dismissed summon)."""
        f = self._fig(figure)
        self._record(_unremove, _copy.copy(f), self.scene.figures.index(f))
        self._own_figures()
        f = self.index[f.id]
        self.scene.figures = [g for g in self.scene.figures if g is not f]
        del self.index[f.id]
        self._set_occ(f.cell, T.OCC_EMPTY)
        self._touch()

    def add_figure(self, figure, side, at, *, speed: int = 0, marked: bool = False,
                   flying: bool = False) -> None:
        """Put a new figure (a summon, a spawned enemy) on the empty space ``at``.

        >>> pos = Position.from_scenario({"board": {"cells": [{"at": [0, 0]},
        ...     {"at": [1, 0]}]}, "figures": []})
        >>> pos.add_figure("wolf", "summon", (1, 0)); pos.figures
        ['wolf']
        """
        figure = new_figure_id(figure)
        if figure in self.index:
            raise PlacementError(f"add_figure: figure {figure!r} is already in play")
        if side not in SIDES:
            raise QueryError(f"add_figure: side {describe(side)} is not one of {SIDES}")
        if marked and side == "enemy":
            raise QueryError("add_figure: only heroes and summons carry a Mark")
        cell = self._cell(at, "add_figure: at")
        if self.occ[cell] != T.OCC_EMPTY or self.scene.obstacle[cell]:
            raise PlacementError(f"add_figure: {list(self.board.coord(cell))} is not an "
                                 f"empty space")
        f = Figure(figure, side, cell, speed=int(speed), marked=bool(marked),
                   flying=bool(flying))
        self._record(_unadd, figure)
        self._own_figures()
        self.scene.figures = self.scene.figures + [f]
        self.index[figure] = f
        self._set_occ(cell, f.team)
        self._touch()

    def set_stamina_moved(self, figure, spent: bool = True) -> None:
        """Mark a hero's once-per-round Stamina-only move as made (or, at a new round,
        as available again)."""
        f = self._fig(figure)
        if f.side != "hero" and spent:
            raise QueryError(f"{figure!r} is a {f.side}; only heroes have Stamina")
        self._record(_unset, f.id, "stamina_moved", f.stamina_moved)
        self._mine(f).stamina_moved = bool(spent)
        self._touch()

    def set_marked(self, figure, marked: bool = True) -> None:
        """Give or take a hero's or summon's Mark (the enemy AI targets it first)."""
        f = self._fig(figure)
        if f.side == "enemy" and marked:
            raise QueryError(f"{figure!r} is an enemy; only heroes and summons carry a "
                             f"Mark")
        self._record(_unset, f.id, "marked", f.marked)
        self._mine(f).marked = bool(marked)
        self._touch()

    def set_trap(self, at, present: bool = True) -> None:
        """Place a trap on a space, or take one away (a triggered, one-shot trap)."""
        cell = self._cell(at, "set_trap: at")
        if present and self.scene.obstacle[cell]:
            raise PlacementError(f"set_trap: {list(self.board.coord(cell))} is an "
                                 f"obstacle")
        self._record_snapshot()
        if self.scene.trap[cell] != present:
            self.scene.trap[cell] = present
            self._trap_pen[cell] = int(present)   # the layer trap queries read
            self._n_traps += 1 if present else -1
            self._rev = None                   # its terrain is the trap mask
            self._queries.pop((ENEMIES, "rev"), None)
        self._touch()

    # ---------------------------------------------------------------- moves
    def _flags_for(self, flying: bool) -> np.ndarray:
        fl = self._flags.get(flying)
        if fl is None:
            fl = self._flags[flying] = self.scene.cell_flags(
                Figure(None, "hero", 0, flying=flying))
        return fl

    def _prepared(self, f: Figure, budget: int) -> Prepared:
        return self._query_for((f.team, f.flying), f, budget, False)

    def _plain(self, f: Figure, budget: int):
        """(cells, costs) of a move without trap penalty, in solve()'s order."""
        q = self._prepared(f, budget)
        if q.fast:
            row, ends = scratch_rows(1, self.board.n_cells)   # this thread's (threads
            #                                                   may share a position)
            row[0, 0] = f.cell
            row[0, 1] = budget
            total = q._run_into(row, ends, self._rank)
            blk = ends[:2, :total].copy()
            return blk[0], blk[1]
        r = q.reach(f.cell, budget)
        order = np.argsort(r.costs.astype(np.int64) * self.board.n_cells +
                           self._rank[r.cells], kind="stable")
        return r.cells[order], r.costs[order]

    def _trapped(self, f: Figure, budget: int):
        """(cells, costs, traps, traps_cost) of a walker's move with traps as a second
        objective (one prepared penalty query per team; trap changes via set_layer)."""
        q = self._query_for((f.team, "traps"), f, budget, True)
        got = q._pen_sorted(f.cell, budget, self._rank)
        if got is not None:
            return got
        r = q.reach(f.cell, budget, paths=False)  # (no path is asked of it)
        cells = r.cells
        order = np.argsort(r.costs.astype(np.int64) * self.board.n_cells +
                           self._rank[cells], kind="stable")
        return cells[order], r.costs[order], r.penalties[order], r.penalty_costs[order]

    def _query_for(self, key, f: Figure, budget: int, traps: bool) -> Prepared:
        """The prepared query ``key`` (kept in step with occupancy and traps)."""
        q = self._queries.get(key)
        levels = min(self._n_traps, MAX_TRAPS_TRACKED) if traps else 0
        if q is None or q.max_budget < budget or self._levels.get(key, 0) < levels:
            levels = max(levels, self._levels.get(key, 0))

            def make(top: int) -> Prepared:     # (copies share it: built once)
                extra = dict(enter_penalty=self._trap_pen,
                             max_penalty=levels) if traps else {}
                return prepare(self.board, self.scene.mover(f), top, occupant=self.occ,
                               cell_flags=self._flags_for(f.flying), **extra)
            proto = shared_prepared(self._proto, (key, levels), budget, make, bound=q,
                                    least=8)
            layers = {"enter_pen": self._trap_pen} if traps else {}
            q = self._queries[key] = bind_occupant(proto, self.occ, **layers)
            self._levels = {**self._levels, key: levels}
        return q

    def _distances(self, cell: int) -> np.ndarray:
        """int64[N] grid distances from ``cell`` (rows of a board-only N x N table made
        once, shared by copies, for boards up to 2,048 spaces)."""
        table = self.scene._cache.get("distances")
        if table is None:
            if self.board.n_cells > 2048:
                return self.scene.distances_from(cell)
            n = self.board.n_cells
            table = np.stack([self.scene.distances_from(c) for c in range(n)])
            self.scene._cache["distances"] = table
        return table[cell]

    def legal_moves(self, figure, **query) -> Moves:
        """Every legal end of ``figure`` for ``query`` (the scenario query's keys without
        ``figure``; ``enemy=True`` asks the enemy AI), in ``solve()``'s order.

        >>> pos = Position.from_scenario({"board": {"cells": [{"at": [q, 0]}
        ...     for q in range(4)]}, "figures": [{"id": "a", "side": "hero", "at": [0, 0]}]})
        >>> m = pos.legal_moves("a", move=1, stamina=1)
        >>> m.actions.tolist(), m.columns["stamina"].tolist()
        ([0, 1, 2], [0, 0, 1])
        """
        f = self._fig(figure)
        card = self._fast_card(f, query)
        if card >= 0:
            stamina = query.get("stamina", 0)
            if f.flying or self._n_traps == 0:
                cells, costs = self._plain(f, card + stamina)
                traps = self._zeros[:cells.shape[0]]
                tcost = costs
            else:
                cells, costs, traps, tcost = self._trapped(f, card + stamina)
            spent = np.maximum(costs - card, 0) if stamina else self._zeros[:cells.shape[0]]
            m = Moves(self, figure, cells, costs, penalty=traps,
                      columns={"stamina": spent, "traps_cost": tcost}, query=query,
                      extra=("move", card))
            self._last = m
            return m
        if "enemy" in query and f.side == "enemy" and query["enemy"] is True:
            move = query.get("move")
            rng = query.get("attack_range", 1)
            if len(query) <= 3 and type(move) is int and type(rng) is int and \
                    0 <= move <= MAX_MOVE and 1 <= rng <= MAX_MOVE and \
                    (len(query) == 2 + ("attack_range" in query)):
                cells: list = []
                res = self._enemy_turn(self.scene, f, move, rng, cells)
                m = self._moves_of(res, query, cells if cells or not res["moves"] else None)
                self._last = m
                return m
        if "enemy" in query:
            ask = query["enemy"]
            if type(ask) is not bool:
                raise QueryError(f"enemy must be True (the enemy AI's move) or False; got "
                                 f"{describe(ask)}")
            q = {k: v for k, v in query.items() if k != "enemy"}
            if ask:
                q["enemy"] = f.id
            else:
                q["figure"] = f.id
        else:
            q = {**query, "figure": f.id}
        res = self.solve(q, _moves=True)
        res.query = query
        self._last = res
        return res

    def _fast_card(self, f: Figure, query: Mapping) -> int:
        """The card move of a plain card query ("move" N, or "roll" r [+ "bonus"], with
        "stamina" for heroes, no paths) that no trap affects; -1 if it is not one (the
        general path then answers and validates)."""
        card = -1
        n = 0
        for k, v in query.items():
            if type(v) is not int or v < 0 or v > MAX_MOVE:
                return -1
            if k == "move":
                card = v
            elif k == "roll":
                if not 1 <= v <= self._faces:
                    return -1
                card = v + query.get("bonus", 0) if type(query.get("bonus", 0)) is int \
                    else -1
            elif k == "stamina":
                if v and f.side != "hero":
                    return -1
            elif k != "bonus":
                return -1
            n += 1
        if ("move" in query) == ("roll" in query) or ("bonus" in query and "move" in query):
            return -1
        return card

    def _batch_layout(self, query: Mapping):
        """The batched arrays backend's layout (see :mod:`._batch`)."""
        from ._batch import batch_layout
        return batch_layout(self, query)

    def legal_moves_side(self, side, **query) -> dict:
        return {fid: self.legal_moves(fid, **query) for fid in self.team_figures(side)}

    def apply_move(self, figure, to, **query) -> None:
        """Move ``figure`` to the legal end ``to`` (cell index or coordinate) of ``query``;
        :class:`IllegalMoveError` (position unchanged) if it is not one. A Stamina-only
        move marks the hero's ``stamina_moved``."""
        f = self._fig(figure)
        m = self._last
        if m is None or m.version != self.version or m.figure != figure or m.query != query:
            m = self.legal_moves(figure, **query)
        cell = to if type(to) is int and 0 <= to < self.board.n_cells else \
            self._cell(to, "to")
        acts = m.actions   # (a list's `in` beats numpy's == and any() on few ends)
        if not (cell in acts.tolist() if len(acts) < 128 else (acts == cell).any()):
            raise IllegalMoveError(f"{describe(to)} is not a legal end of figure "
                                   f"{figure!r} in this position")
        self._move(f, cell, bool(query.get("stamina_only")))

    def apply_row(self, moves: Moves, row: int) -> None:
        """The end at ``row`` of ``moves``: taken as it is while the position has not
        changed since ``moves`` were answered, else validated as :meth:`apply_move`."""
        row = self._row(moves, row)
        f = self.index.get(moves.figure) if moves.version == self.version else None
        if f is None:
            return self.apply_move(moves.figure, int(moves.actions[row]), **moves.query)
        self._move(f, int(moves.actions[row]), bool(moves.query.get("stamina_only")))

    def _move(self, f: Figure, cell: int, stamina: bool = False) -> None:
        self._record(_unmove, f.id, f.cell, f.stamina_moved)
        if stamina:
            f = self._mine(f)
            f.stamina_moved = True
        if cell != f.cell:
            f = self._mine(f)
            self._set_occ(f.cell, T.OCC_EMPTY)
            f.cell = cell
            self._set_occ(cell, f.team)
        self._touch()

    def _key_parts(self) -> tuple:
        return ([(f.id, f.side, f.cell, f.speed, f.marked, f.flying, f.stamina_moved)
                 for f in self.scene.figures], self._rare_part())

    def _end_dicts(self, moves: Moves) -> list[dict]:
        kind = moves._extra[0]
        if kind == "move":
            card = moves._extra[1]
            return [{"at": list(self.board.coord(c)), "cost": k, "stamina": max(0, k - card),
                     "traps": t, "traps_cost": tk}
                    for c, k, t, tk in zip(moves.actions.tolist(), moves.costs.tolist(),
                                           moves.penalty.tolist(),
                                           moves.columns["traps_cost"].tolist())]
        if kind == "result":
            r = moves._extra[1]
            return r["moves"] if "enemy" in r else r["ends"]
        raise AssertionError(kind)  # pragma: no cover

    # ---------------------------------------------------------------- scenario form
    def to_scenario(self, query: Mapping | None = None) -> dict:
        """The scenario of this position (``solve()`` of it answers as this position)."""
        base = self._scenario or {}
        # (the board is written below: not copied first, a large board's deep copy costs
        # milliseconds; its key keeps its place)
        s = {k: None if k == "board" else _copy.deepcopy(v) for k, v in base.items()
             if k not in ("figures", "query")}
        s.setdefault("game", "dark_realms")
        board = self.board
        grid = board.kind if board.kind == "hex" else f"square{board.nbr.shape[1]}"
        sc = self.scene
        cells = []
        for c in range(board.n_cells):
            e = {"at": list(board.coord(c))}
            if sc.obstacle[c]:
                e["obstacle"] = True
            if sc.trap[c]:
                e["trap"] = True
            if sc.rift[c]:
                e["rift"] = True
            cells.append(e)
        s["board"] = {"grid": grid, "cells": cells}
        opts = dict(s.get("options", {}))
        opts.pop("grid", None)
        s["options"] = opts
        s["figures"] = [{"id": f.id, "side": f.side, "at": list(board.coord(f.cell)),
                         "speed": f.speed, "marked": f.marked, "flying": f.flying,
                         "stamina_moved": f.stamina_moved} for f in sc.figures]
        s["query"] = dict(query) if query is not None else {}
        return s

    def solve(self, query: Mapping, _moves: bool = False):
        """``solve()``'s result for a scenario ``query`` object."""
        scene = self.scene
        query = expect_object(query, "query")
        expect_keys(query, "query", _QUERY_KEYS)
        res = _solve_scene(scene, query, self._enemy_turn)
        return self._moves_of(res, query) if _moves else res

    def _moves_of(self, res: dict, query: Mapping, cells: list | None = None) -> Moves:
        """The Moves of a solve() result (rows: its ends, or the enemy AI's moves, whose
        cells ``cells`` gives when known)."""
        if "enemy" in res and res.get("kind") == "enemy":
            rows = res["moves"]
            if cells is None:
                cells = [_board_find(self.board, r["at"]) for r in rows]
            tids = res["targets"]
            # one table, a row per column: cells, steps, traps, in range, reason, target
            t = np.array([cells, [r["steps"] for r in rows], [r["traps"] for r in rows],
                          [r["in_range"] for r in rows],
                          [ENEMY_REASONS.index(r["reason"]) for r in rows],
                          [tids.index(r["target"]) for r in rows]], T.INDEX)
            m = Moves(self, res["enemy"], t[0], t[1], penalty=t[2],
                      columns={"in_range": t[3], "reason": t[4], "target": t[5]},
                      query=dict(query), extra=("result", res))
            return m
        ends = res["ends"]
        cells = np.array([_board_find(self.board, e["at"]) for e in ends], T.INDEX)
        cols = {}
        if res["kind"] == "die":
            cols["min_roll"] = np.array([e["min_roll"] for e in ends], T.INDEX)
        elif res["kind"] != "teleport":
            cols["stamina"] = np.array([e["stamina"] for e in ends], T.INDEX)
            cols["traps_cost"] = np.array([e["traps_cost"] for e in ends], T.INDEX)
        pen = np.array([e.get("traps", 0) for e in ends], T.INDEX)
        return Moves(self, res["figure"], cells, np.array([e["cost"] for e in ends], T.INDEX),
                     penalty=pen, columns=cols, query=dict(query), extra=("result", res))


def _board_find(board: Board, at) -> int:
    return board.find(tuple(at))


# ------------------------------------------------------------------ undo entries
def _unmove(pos: Position, fid, cell: int, stamina_moved: bool) -> None:
    pos._own_figures()        # (copies share figures until one changes: copy on write)
    f = pos.index[fid]
    f.stamina_moved = stamina_moved
    if cell != f.cell:
        pos._set_occ(f.cell, T.OCC_EMPTY)
        f.cell = cell
        pos._set_occ(cell, f.team)


def _unremove(pos: Position, f: Figure, at: int) -> None:
    f = _copy.copy(f)      # (the entry's own stays unshared: copies share the log)
    pos._own_figures()
    figs = list(pos.scene.figures)
    figs.insert(at, f)
    pos.scene.figures = figs
    pos.index[f.id] = f
    pos._set_occ(f.cell, f.team)


def _unadd(pos: Position, fid) -> None:
    pos._own_figures()
    f = pos.index.pop(fid)
    pos.scene.figures = [g for g in pos.scene.figures if g is not f]
    pos._set_occ(f.cell, T.OCC_EMPTY)


def _unset(pos: Position, fid, name: str, value) -> None:
    pos._own_figures()
    setattr(pos.index[fid], name, value)
