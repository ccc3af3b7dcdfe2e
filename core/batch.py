"""Batched positions: B independent games of one scenario, advanced together.

Bulk self-play and vector environments ask the same thing of many games at once: *the
acting figure's legal ends in every game*, then *apply one move in every game*. A
:class:`BatchedGames` holds B games built from one live position (the root) and answers
both for all games in one call:

* games whose position describes its moves as "one prepared query per figure over an
  occupant layer", with optional end rules as data (:meth:`movecore.Position._batch_layout`:
  grid, Tiny Epic Tactics, Mage Knight, Dark Realms' card moves) keep
  their state as arrays over B (``occ[B, N]``, ``cell[B, F]``, ``alive[B, F]``) and run
  every game's query in **one compiled call** (:func:`movecore.kernels.batch.reach_games`,
  ``threads=`` chunks on a pool of threads, as :func:`movecore.reach_many`); a query
  the layout answers otherwise runs compiled over the batch too where the layout
  compiles it (Dark Realms' enemy AI: ``BatchLayout.compiled``), else asks a live
  position kept per game and made equal to the game's arrays first; a layout may bring
  its own batched moves over per-game state of its own (``BatchLayout.game``: Descent's
  doors and kinds of mover);
* every other game keeps B live positions (copies of the root) and asks each in turn:
  the same API and the same answers, one kernel call per game (``backend == "positions"``;
  :attr:`BatchedGames.why` says why the game is not batched).

Both backends give exactly what the game's single live position answers for the same
state; ``tests/test_batch.py`` checks it after every step of seeded random runs.

>>> import movecore as mc
>>> from movecore.batch import BatchedGames
>>> pos = mc.position({"game": "grid", "board": {"grid": "square4", "cells": [
...     {"at": [x, 0]} for x in range(4)]}, "figures": [
...     {"id": "a", "team": "red", "at": [0, 0]}, {"id": "b", "team": "blue", "at": [3, 0]}],
...     "query": {"figure": "a", "budget": 2}})
>>> games = BatchedGames(pos, 3)
>>> mask, cost, stop = games.legal_moves([0, 0, 1])   # figure slots acting per game
>>> mask.astype(int).tolist()
[[1, 1, 1, 0], [1, 1, 1, 0], [0, 1, 1, 1]]
>>> games.apply([0, -1, 1], [2, -1, 1])               # game 1 does not move
>>> games.cell.tolist()
[[2, 3], [0, 3], [0, 1]]
>>> games.position(2).where("b")
(1, 0)
"""
from __future__ import annotations

from dataclasses import dataclass
from time import perf_counter
from typing import Any, Mapping, Sequence

import numpy as np

from .errors import IllegalMoveError, QueryError, describe, is_sequence
from .kernels import _types as T
from .reach import _hand_pool
from .reach._handoff import spinning

__all__ = ["BatchLayout", "BatchedGames", "QueryColumns"]


@dataclass
class BatchLayout:
    """What a game's position gives the array backend (see
    :meth:`movecore.Position._batch_layout`): its moves are, for every figure, one
    prepared query (no penalties) over one occupant layer, and a move changes nothing but
    that layer and the figure's cell.

    Attributes:
        occ:      int32[N] the position's occupant layer now.
        cell:     int32[F] each figure slot's cell (-1: out of play).
        team:     int32[F] the occupant code a figure writes where it stands.
        shapes:   list of :class:`movecore.Prepared`, the distinct query shapes (one per
                  team, or per kind of mover), all on the position's board.
        shape_of: int64[F] the shape each figure's moves are asked with ...
        shape_cell: int64[N] ... plus this, for the cell the figure stands on (a rule
                  that depends on where the move starts: Tiny Epic Tactics' ballista);
                  None: zeros.
        budget:   int64[F] each figure's budget (<= its shape's ``max_budget``).
        restore:  callable(position, occ, cell, alive) that makes a copy of the root
                  equal to one game's arrays (for :meth:`BatchedGames.position`).

    Optional rules on the kernel's ends, as data (applied after every batched query, in
    the array path and the compiled self-play step; None: no such rule). A figure whose
    ``team`` is ``OCC_EMPTY`` never blocks a move (Mage Knight's heroes).

        one_figure: bool[N] spaces that hold one figure: such a space is no end of a
                  move (mask 0, cost -1, stop 0) while another figure in play stands
                  on it, unless the mover starts there (Mage Knight: another hero's
                  space, an attack or a shared space; portals and conquered cities
                  hold many).
        no_end:   bool[N] spaces that are never an end but the start (Mage Knight: a
                  lake or mountain entered by an effect, a forced withdrawal).
        stop_code: int8[S, N] the stop code of an end the kernel stopped on, per shape
                  and space (Mage Knight: 1 an assault, 2 provoked); the start keeps
                  the kernel's (a start is never stopped).

    Optional: queries chosen per game and move (``legal_moves(queries=)``, Dark Realms'
    rolled die; None: refused on this backend).

        query_budget: callable(slot, query) -> int: the budget of the slot's shape that
                  answers ``query`` exactly (>= 0), or -1: a live position made from the
                  game's arrays (``restore``) answers it, for a query whose move changes
                  nothing but the figure's cell (the layout raises QueryError for any
                  other). ``budget`` may then hold -1 too (the slot's own query is
                  answered on a position).
        compiled: callable(games, slots, queries, occ, cell, alive, mask, cost, stop,
                  penalty, threads=) -> int64[]: of the games ``games`` whose query
                  ``query_budget`` sent to a position (slot ``slots[i]`` asking
                  ``queries[i]``), answers those it can in one compiled call over the
                  batch's arrays (``threads`` chunks; their rows cleared before,
                  written as a position's ``Moves``) and returns the games left to a
                  position (Dark Realms: the enemy AI,
                  :mod:`movecore.games.dark_realms._batch_enemy`); None: every such
                  game asks a position. With queries in array form (:class:`QueryColumns`)
                  and a ``query_columns`` that gave them, ``queries`` is instead
                  int64[R], what ``query_columns`` gave for those games.
        query_columns: callable(slots, columns) -> (budget, compiled): the array form
                  of ``query_budget`` (``legal_moves(queries={key: array[B]})``, over the
                  batch at once): ``slots`` int64[B] (-1: no query), ``columns`` the
                  :class:`QueryColumns` arrays; returns int64[B] budgets (as
                  ``query_budget`` gives for each game's query, -1: not batched) and
                  int64[B] or None: per game the value ``compiled`` takes instead of the
                  query (-1: a live position answers it; None: ``compiled`` gets the
                  games' query dicts). Validates the arrays' dtypes (QueryError).

    Optional: penalties (``legal_moves(penalty=)``; None: every end's penalty is 0).

        penalty:  list, one per shape: the :class:`movecore.Prepared` query with
                  penalties that answers that shape's moves with their penalties (same
                  mover, cell flags and ends; its penalty layers, shared by every game),
                  or None (that shape's moves have none) (Dark Realms: a walker's move
                  over traps, traps as a second objective).
        penalty_on_position: bool, or bool[F] per figure slot: with
                  ``legal_moves(penalty=)`` that slot's query is answered by a live
                  position made from the game's arrays (``restore``) (Heroscape: a
                  flyer's take-off attacks, an engaged flyer's walk).

    Optional: queries the layout answers itself, compiled, over the batch (None: none).

        own:      bool[F] figure slots whose queries ``answer`` answers (with the budget
                  of ``budget`` / ``query_budget``; -1 still means a live position)
                  (Heroscape's two-space figures, on the placement graph).
        answer:   callable(occ, cell, alive, rows, figs, budgets, mask, cost, stop,
                  penalty): games ``rows``' rows of the dense answer for figure slots
                  ``figs`` (int64 arrays): for ``own`` slots the whole answer (their
                  rows arrive cleared: mask 0, cost -1, stop 0); with ``penalty``
                  (int32[B, A], zeros) asked, every batched game's row comes, and the
                  other slots' penalties alone are written (their rows hold the kernel's
                  answer) (Heroscape's leaving attacks).

    Optional: a move that changes more than the figure's own cell (None: the figure's
    team code leaves its cell and is written on the new one).

        move:     callable(occ, cell, alive, rows, figs, to): games ``rows`` move figure
                  slots ``figs`` to places ``to`` (-1: out of play), writing the three
                  arrays (Heroscape: two-space figures, engaged figures' codes).
        place_spaces, place_kind: the spaces of a place (list of int64[X, 2] tables,
                  -1 = no second space; slot ``f``'s places index table
                  ``place_kind[f]``) where a place is not one cell (Heroscape's
                  two-space figures stand on placement nodes); None: place = cell.

    Optional: what a game's own compiled self-play step reads (None: the layout has
    none; :class:`movecore.tools.selfplay_batch.BatchedPlay` runs it where set).

        selfplay: a dict of the game's arrays and argument makers (Heroscape: the
                  move's constants, ``consts``, and ``doubles(own)``: the two-space
                  figures' compiled call's arguments, with scratch of their own, one set
                  per thread, or ``answer``'s for the first thread;
                  :mod:`movecore.tools._selfplay_heroscape`).

    Optional: a game's own batched moves (None: the kernel path above).

        game:     an object that answers and applies the moves itself, over per-game
                  state of its own (Descent: doors, kinds of mover; its ``_batch``
                  module): ``bind(games)``, ``legal(games, figs, mask, cost, stop,
                  penalty)`` (``penalty``: as ``legal_moves(penalty=)``, zeros, or
                  None) -> the games a live position answers (``restore``), ``move(games, rows,
                  figs, to)`` (after its ``legal`` answer), ``remove``, ``reset`` and
                  ``restore(position, b, cell, alive)``. ``shapes`` / ``budget`` are
                  then only each slot's query at the root (the bench's kernel column);
                  the generic compiled self-play step is not run: the game's own is,
                  where its ``all_arrays`` holds (Descent:
                  :mod:`movecore.tools._selfplay_descent`).
    """

    occ: np.ndarray
    cell: np.ndarray
    team: np.ndarray
    shapes: list
    shape_of: np.ndarray
    budget: np.ndarray
    restore: Any
    shape_cell: np.ndarray | None = None
    one_figure: np.ndarray | None = None
    no_end: np.ndarray | None = None
    stop_code: np.ndarray | None = None
    query_budget: Any = None
    query_columns: Any = None
    penalty: list | None = None
    penalty_on_position: bool = False
    own: np.ndarray | None = None
    answer: Any = None
    move: Any = None
    place_spaces: list | None = None
    place_kind: np.ndarray | None = None
    compiled: Any = None
    selfplay: Any = None
    game: Any = None


class NotPickled:
    """A batch whose compiled parts (closures, entry points) do not pickle: ``pickle``
    raises a ``TypeError`` saying so and what to do (``_INSTEAD``), rather than Python's
    "Can't pickle local object ..." from deep inside; ``copy.deepcopy`` copies every
    attribute, as it would without the refusal."""

    #: what to pickle instead (the subclass's)
    _INSTEAD = "copy.deepcopy it in this process"

    def __reduce_ex__(self, protocol):
        raise TypeError(f"a movecore {type(self).__name__} does not pickle (its compiled "
                        f"parts): {self._INSTEAD}")

    def __deepcopy__(self, memo):
        import copy
        new = object.__new__(type(self))
        memo[id(self)] = new
        new.__dict__.update(copy.deepcopy(self.__dict__, memo))
        return new


class BatchedGames(NotPickled):
    """B games of the position ``root`` (each a copy of it), for batched self-play.

    Figures are named by their *slot*: the index of their id in ``root.figures`` (the
    play order; a figure keeps its slot after it leaves play). Places are cells for
    one-cell figures (``root.n_actions(fid)`` columns; multi-cell figures: placements).

    Args:
        root:      the live position every game starts from (not changed).
        num_games: B >= 1.
        query:     the query keywords every figure's moves are asked with (default: the
                   scenario's own query, as ``legal_moves(fid)``); or a list of them,
                   one per figure slot.
        threads:   threads of a batched kernel call (default 1).
        backend:   "auto" (arrays where the game allows, else positions), "arrays" or
                   "positions".

    State (array backend; the positions backend keeps it in sync):
        cell  int32[B, F]  each figure's place (cell) in each game, -1 out of play.
        alive bool[B, F]   figure in play.
        occ   int32[B, N]  each game's occupant layer (array backend only).
    """

    _INSTEAD = ("pickle its games' positions (position(b)) or the scenario and make it "
                "again, or copy.deepcopy it in this process")

    # (the array backend's optional layout hooks, unset: see BatchLayout)
    _move = None
    _own = None
    _place_spaces = None
    _selfplay = None
    _game = None
    #: whether a place may be more than one space (:meth:`spaces`; self-play's removals
    #: and greedy distances then read every space of a place)
    multi_space = False
    _game_spaces = False

    def __init__(self, root, num_games: int, *, query: Mapping | None = None,
                 threads: int = 1, backend: str = "auto"):
        if not callable(getattr(root, "legal_moves", None)) or \
                not callable(getattr(root, "copy", None)) or isinstance(root, Mapping):
            raise QueryError(f"root must be a live position: pass "
                             f"movecore.position(scenario); got {describe(root)}")
        if type(num_games) is not int or num_games < 1:
            raise QueryError(f"num_games must be a positive integer; got "
                             f"{describe(num_games)}")
        if type(threads) is not int or threads < 1:
            raise QueryError(f"threads must be a positive integer; got {describe(threads)}")
        if backend not in ("auto", "arrays", "positions"):
            raise QueryError(f"backend must be 'auto', 'arrays' or 'positions'; got "
                             f"{describe(backend)}")
        self.root = root
        self.B = num_games
        self.threads = threads
        self.ids = list(root.figures)
        self.F = len(self.ids)
        if isinstance(query, (list, tuple)):
            if len(query) != self.F:
                raise QueryError(f"query: one per figure slot ({self.F}); got {len(query)}")
            if not all(isinstance(q, Mapping) for q in query):
                raise QueryError(f"query: one dict per figure slot; got {describe(query)}")
            self.queries = [dict(q) for q in query]
        elif query is not None and not isinstance(query, Mapping):
            raise QueryError(f"query must be a dict, or one per figure slot; got "
                             f"{describe(query)}")
        else:
            self.queries = [dict(query or {})] * self.F
        self.query = self.queries[0] if len(set(map(repr, self.queries))) <= 1 else None
        self.n_places = max([root.n_actions(f) for f in root.figures] or [0])
        hook = getattr(root, "_batch_layout", None)
        layout, why = (None, f"{type(root).__module__} has no batched layout") \
            if hook is None else hook(self.queries) \
            if self.query is None and getattr(root, "_batch_queries", False) else \
            (None, "figures ask different queries") if self.query is None else \
            hook(self.query)
        if backend == "arrays" and layout is None:
            raise QueryError(f"the {root.game!r} game has no array backend: {why}")
        if backend == "positions":
            layout, why = None, "asked for"
        self.why = why
        self.backend = "arrays" if layout is not None else "positions"
        self._layout = layout
        if layout is not None:
            self._init_arrays(layout)
        else:
            self._init_positions()

    # ------------------------------------------------------------------ construction
    def _init_arrays(self, L: BatchLayout) -> None:
        from .kernels.reach import fast_layout_size
        B = self.B
        self._game = L.game
        if L.game is not None:
            self._init_game(L)
            return
        self._occ0 = np.ascontiguousarray(L.occ, T.INDEX)
        self._cell0 = np.ascontiguousarray(L.cell, T.INDEX)
        self.team = np.ascontiguousarray(L.team, T.INDEX)
        self.occ = np.repeat(self._occ0[None], B, axis=0)
        self.cell = np.repeat(self._cell0[None], B, axis=0)
        self.alive = self.cell >= 0
        shapes = L.shapes
        qs = [p._q for p in shapes]
        for q in qs:
            if q.blob is None or q.pblob is not None:
                raise QueryError("a batched query shape must be a fast query without "
                                 "penalties")
        self._blobs = np.concatenate([q.blob for q in qs]).astype(T.INDEX)
        self._blob_at = np.cumsum([0] + [len(q.blob) for q in qs]).astype(np.int64)
        self._qflags = np.concatenate([q.qflags for q in qs]).astype(np.uint8)
        self._qflags_at = np.cumsum([0] + [len(q.qflags) for q in qs]).astype(np.int64)
        self._zoc = np.concatenate([q.zoc for q in qs]).astype(np.uint64)
        self._zoc_at = np.cumsum([0] + [len(q.zoc) for q in qs]).astype(np.int64)
        params = np.stack([q.params for q in qs]).astype(np.int64)
        params[:, T.P_HAS_OCC] = 1     # every game reads its own occupant row
        self._params = params
        self._shape_of = np.ascontiguousarray(L.shape_of, np.int64)
        self._shape_cell = np.zeros(self.occ.shape[1], np.int64) if L.shape_cell is None \
            else np.ascontiguousarray(L.shape_cell, np.int64)
        self._budget = np.ascontiguousarray(L.budget, np.int64)
        self._restore = L.restore
        self._query_budget = L.query_budget
        self._query_columns = L.query_columns
        self._compiled = L.compiled
        self._live: dict = {}     # game -> its position for queries not batched
        self._move = L.move
        self._selfplay = L.selfplay
        self._own = None if L.answer is None else (
            np.zeros(len(L.cell), bool) if L.own is None else np.asarray(L.own, bool),
            L.answer)
        self.multi_space = L.place_spaces is not None
        self._pen_on_position = np.broadcast_to(np.asarray(L.penalty_on_position, bool),
                                                (len(L.cell),))
        self._place_spaces = None if L.place_spaces is None else (
            [np.asarray(t, np.int64) for t in L.place_spaces],
            np.asarray(L.place_kind, np.int64))
        self._pen = None if L.penalty is None or all(p is None for p in L.penalty) else \
            self._pen_shapes(L.penalty)
        # the end rules (BatchLayout): one-figure spaces (uint8[N]), no-end spaces (cell
        # list), stop codes per shape; the compiled step reads the first two
        N = self.occ.shape[1]
        self._end_rules = any(x is not None for x in (L.one_figure, L.no_end, L.stop_code))
        self._one_figure = np.zeros(N, np.uint8) if L.one_figure is None else \
            np.ascontiguousarray(L.one_figure, np.uint8)
        self._any_one_figure = bool(self._one_figure.any())     # (once, not per query)
        self._no_end = np.zeros(0, np.int64) if L.no_end is None else \
            np.flatnonzero(L.no_end).astype(np.int64)
        self._stop_code = None if L.stop_code is None else \
            np.ascontiguousarray(L.stop_code, np.int8)
        n = self.occ.shape[1]
        nb = max(max(int(q.params[T.P_N_BUCKETS]) for q in qs), 8)
        # one workspace and end block per thread, each on cache lines of its own
        n_chunks = threads_or(self.threads, B)
        self._bufs = per_thread(n_chunks, (fast_layout_size(n, nb),), T.INDEX)
        for buf in self._bufs:
            buf[2] = nb
        self._ends = per_thread(n_chunks, (3, n), T.INDEX)
        self._queries = np.zeros((B, 3), np.int64)
        self._shape = np.full(B, -1, np.int64)

    def _init_game(self, L: BatchLayout) -> None:
        """A layout whose ``game`` answers and applies the moves (BatchLayout)."""
        self._cell0 = np.ascontiguousarray(L.cell, T.INDEX)
        self.team = np.ascontiguousarray(L.team, T.INDEX)
        self.cell = np.repeat(self._cell0[None], self.B, axis=0)
        self.alive = self.cell >= 0
        self._budget = np.ascontiguousarray(L.budget, np.int64)
        self._query_budget = None
        self._query_columns = None
        self._compiled = None
        self._end_rules = False
        self._live: dict = {}
        self._bufs = [None] * threads_or(self.threads, self.B)
        L.game.bind(self)
        self.occ = L.game.sq           # (the game's own occupancy)
        # places of many squares (Descent's large monsters): the game's own spaces
        self._game_spaces = self.multi_space = bool(getattr(L.game, "large", False))
        self._restore = None

    def _pen_shapes(self, pens) -> dict:
        """The penalty shapes packed for :func:`movecore.kernels.batch.reach_games_pen`
        (one layer row per shape, shared by every game)."""
        from .kernels.reach_pen import pen_layout_size, pen_out_offset
        N = self.occ.shape[1]
        idx = [i for i, p in enumerate(pens) if p is not None]
        qs = [pens[i]._q for i in idx]
        if any(q.pblob is None for q in qs):
            raise QueryError("a batched penalty shape must have the packed penalty kernel")
        if any(pens[i].max_budget < self._layout.shapes[i].max_budget for i in idx):
            raise QueryError("a batched penalty shape must take every budget its shape "
                             "takes (max_budget)")
        pshape = np.full(len(pens), -1, np.int64)
        pshape[idx] = np.arange(len(idx))
        params = np.stack([q.params for q in qs]).astype(np.int64)
        params[:, T.P_HAS_OCC] = 1

        def layers(arrs, dtype):
            if all(len(a) == 0 for a in arrs):
                return np.zeros((len(arrs), 0), dtype)
            return np.stack([a if len(a) else np.zeros(N, dtype) for a in arrs]).astype(dtype)
        n_pen = int(params[:, T.P_N_PEN].max())
        nb = max(max(int(q.nb) for q in qs), 8)
        buf = np.zeros(pen_layout_size(N, n_pen, nb), T.INDEX)
        buf[2], buf[3] = nb, n_pen
        return {"pshape": pshape, "shape": np.full(self.B, -1, np.int64),
                "args": (np.concatenate([q.pblob for q in qs]).astype(T.INDEX),
                         np.cumsum([0] + [len(q.pblob) for q in qs]).astype(np.int64),
                         np.concatenate([q.qflags for q in qs]).astype(np.uint8),
                         np.cumsum([0] + [len(q.qflags) for q in qs]).astype(np.int64),
                         np.concatenate([q.zoc for q in qs]).astype(np.uint64),
                         np.cumsum([0] + [len(q.zoc) for q in qs]).astype(np.int64),
                         layers([q.leave for q in qs], np.uint64),
                         layers([q.enter_pen for q in qs], T.INDEX)),
                "params": params,
                "buf": buf, "out_at": pen_out_offset(N, n_pen, nb)}

    def _init_positions(self) -> None:
        B = self.B
        self.positions = [self.root.copy() for _ in range(B)]
        # the root's places, mirrored per game from then on: a move sets the figure's
        # place (its action id), a removal clears it
        root = self.root
        self._cell0 = np.array([-1 if isinstance(root.where(f), str) else
                                root.action_of(f, root.where(f)) for f in self.ids], T.INDEX)
        self.cell = np.repeat(self._cell0[None], B, axis=0)
        self.alive = np.ones((B, self.F), bool)
        self._moves: list = [None] * B

    # ------------------------------------------------------------------ queries
    def legal_moves(self, figures: Sequence[int] | np.ndarray, *, out=None,
                    queries: Sequence[Mapping | None] | Mapping | None = None,
                    penalty=None):
        """The legal ends of figure slot ``figures[b]`` in every game ``b`` (-1: game
        ``b`` asks nothing, its rows are cleared), in one batched call.

        Returns ``(mask, cost, stop)``: uint8/bool[B, P] (1 on each legal end: a place
        id, as the game's ``Moves.actions``), int32[B, P] least costs (-1 elsewhere) and
        int8[B, P] stop codes (0 = need not stop), P = ``n_places``. ``out`` = the same
        three arrays to write into (uint8, int32, int8; B rows of >= P columns, any
        layout: e.g. a figure's slot of a wider action-space mask; QueryError otherwise).
        ``queries``: one query per game for this call (None for a game that asks
        nothing): a game whose moves are rolled per move, as Dark Realms' die (the
        positions backend, or a layout with ``query_budget``); or the same in **array
        form**, one array per keyword (``{"roll": int[B], "enemy": bool[B], ...}``, a
        :class:`QueryColumns`: -1 / False leaves the keyword out of that game's query;
        validated here, and read over the batch at once where the layout has
        ``query_columns``). ``penalty``: int32[B, >= P] (writeable) to receive each
        end's penalty (``Moves.penalty``: Dark Realms' traps; 0 elsewhere, and for a
        game that asks nothing; the array backend runs the penalty queries on one
        thread)."""
        figs = self._figures(figures)
        B, P = self.B, self.n_places
        if out is None:
            out = (np.zeros((B, P), np.uint8), np.full((B, P), -1, np.int32),
                   np.zeros((B, P), np.int8))
        else:
            self._check_out(out)
        mask, cost, stop = out
        if isinstance(queries, Mapping):
            queries = QueryColumns(queries, B)
        elif queries is not None and not isinstance(queries, QueryColumns):
            if is_sequence(queries):
                queries = list(queries)
            if not isinstance(queries, list) or not all(
                    q is None or isinstance(q, Mapping) for q in queries):
                raise QueryError(f"queries: one dict (or None) per game (B={B}), or one "
                                 f"array per keyword; got {describe(queries)}")
        if queries is not None and (len(queries) != self.B or (
                self.backend == "arrays" and self._query_budget is None)):
            raise QueryError(f"queries: one per game (B={self.B}), on the positions "
                             f"backend or a layout with query_budget")
        if penalty is not None:
            pa = penalty
            if not isinstance(pa, np.ndarray) or pa.dtype != np.int32 or pa.ndim != 2 \
                    or pa.shape[0] != B or pa.shape[1] < P or not pa.flags.writeable:
                raise QueryError(f"penalty must be int32[B={B}, >= {P}], writeable; got "
                                 f"{describe(penalty)}")
            penalty[:] = 0
        if self.backend == "arrays":
            self._legal_arrays(figs, mask, cost, stop, queries, penalty)
        else:
            self._legal_positions(figs, mask, cost, stop, queries, penalty)
        return mask, cost, stop

    def _check_out(self, out) -> None:
        """``legal_moves(out=)``: three writeable arrays uint8[B, >= P] (bool too on the
        positions backend), int32[B, >= P], int8[B, >= P] (the compiled calls write
        every row's P columns: a smaller array would be written out of bounds)."""
        B, P = self.B, self.n_places
        masks = (np.uint8,) if self.backend == "arrays" else (np.uint8, np.bool_)
        want = (f"out must be (mask, cost, stop): uint8[B={B}, >= {P}], "
                f"int32[B, >= {P}], int8[B, >= {P}] writeable arrays")
        if not isinstance(out, (tuple, list)) or len(out) != 3:
            raise QueryError(f"{want}; got {describe(out)}")
        for name, a, dtypes in zip(("mask", "cost", "stop"), out,
                                   (masks, (np.int32,), (np.int8,))):
            if not isinstance(a, np.ndarray) or a.dtype.type not in dtypes or \
                    a.ndim != 2 or a.shape[0] != B or a.shape[1] < P or \
                    not a.flags.writeable:
                raise QueryError(f"{want}; got {name} " + (
                    f"{a.dtype}{list(a.shape)}" if isinstance(a, np.ndarray) else
                    describe(a)))

    def _figures(self, figures) -> np.ndarray:
        f = np.asarray(figures)
        if f.shape != (self.B,) or f.dtype.kind not in "iu":
            raise QueryError(f"figures must be B={self.B} figure slots (integers, -1 = "
                             f"none); got {describe(figures)}")
        bad = (f < -1) | (f >= self.F)       # (before the cast: a huge uint64 named)
        if bad.any():
            b = int(np.flatnonzero(bad)[0])
            raise QueryError(f"figures[{b}] = {int(f[b])} is not a figure slot in "
                             f"[-1, {self.F})")
        f = f.astype(np.int64)
        rows = np.flatnonzero(f >= 0)
        dead = ~self.alive[rows, f[rows]]
        if dead.any():
            b = int(rows[np.flatnonzero(dead)[0]])
            raise QueryError(f"figures[{b}]: figure {self.ids[int(f[b])]!r} is not in "
                             f"play in game {b}")
        return f

    def _legal_arrays(self, figs, mask, cost, stop, queries=None, penalty=None) -> None:
        from .kernels.batch import reach_games
        if self._game is not None:
            slow = self._game.legal(self, figs, mask, cost, stop, penalty)
            if len(slow):
                self._legal_restored(slow, figs, queries, mask, cost, stop, penalty)
            return
        q = self._queries
        act = figs >= 0
        fa = np.where(act, figs, 0)
        q[:, 0] = np.where(act, self.cell[np.arange(self.B), fa], -1)
        q[:, 1] = self._budget[fa]
        slow = None
        pre = None          # the array form's values for ``compiled``
        if self._query_budget is not None:
            if isinstance(queries, QueryColumns) and self._query_columns is not None:
                budget, pre = self._query_columns(figs, queries.arrays)
                q[:, 1] = np.where(act, budget, q[:, 1])
            elif queries is not None:
                qb = self._query_budget
                q[:, 1] = [qb(f, queries[b]) if f >= 0 and queries[b] is not None else
                           self._budget[max(f, 0)] for b, f in enumerate(figs.tolist())]
            slow = np.flatnonzero(act & ((q[:, 1] < 0) | (
                (penalty is not None) & self._pen_on_position[fa])))
            q[slow, 0] = -1            # answered on a position below
        own = None
        if self._own is not None:      # answered by the layout itself, below
            own = np.flatnonzero((q[:, 0] >= 0) & (self._own[0][fa] |
                                                   (penalty is not None)))
            own_q = q[own].copy()
            q[own[self._own[0][fa[own]]], 0] = -1
        shape = self._shape
        shape[:] = np.where(act, self._shape_of[fa] +
                            self._shape_cell[np.maximum(q[:, 0], 0)], -1)
        prow = None
        if penalty is not None and self._pen is not None:
            # the games whose shape has penalties: the penalty kernel answers them below
            pk = self._pen["pshape"][np.maximum(shape, 0)]
            prow = np.flatnonzero((shape >= 0) & (pk >= 0) & (q[:, 0] >= 0))
            starts = q[prow, 0].copy()
            q[prow, 0] = -1
        args = (self._blobs, self._blob_at, self._qflags, self._qflags_at, self._zoc,
                self._zoc_at, self._params, shape, self.occ)
        n_chunks = len(self._bufs)
        B = self.B
        if n_chunks == 1:
            st = reach_games(*args, self._bufs[0], self._ends[0], q, 0, B, mask, cost,
                             stop)
        else:
            from .reach import _hand_pool
            status = np.zeros(n_chunks, np.int64)

            def run(c):
                status[c] = reach_games(*args, self._bufs[c], self._ends[c], q,
                                        (B * c) // n_chunks, (B * (c + 1)) // n_chunks,
                                        mask, cost, stop)

            pool = _hand_pool(n_chunks - 1)
            futures = [pool.submit(run, c) for c in range(1, n_chunks)]
            run(0)
            for fu in futures:
                fu.result()
            st = int(status.min())
        if prow is not None and len(prow):
            from .kernels.batch import reach_games_pen
            P = self._pen
            q[prow, 0] = starts
            ps = P["shape"]
            ps[:] = -1
            ps[prow] = pk[prow]
            # (layer row = penalty shape: each shape's layers are every game's)
            st = min(st, reach_games_pen()(*P["args"], ps, P["params"], ps, self.occ,
                                           P["buf"], P["out_at"], q, 0, self.B, mask,
                                           cost, stop, penalty))
        if st < 0:  # pragma: no cover (ends hold one column per cell)
            raise RuntimeError(f"movecore: batched kernel status {st}")
        if self._end_rules:
            self._apply_end_rules(figs, q[:, 0], shape, mask, cost, stop)
        if own is not None and len(own):
            self._own[1](self.occ, self.cell, self.alive, own, figs[own], own_q[:, 1],
                         mask, cost, stop, penalty)
        if slow is not None and len(slow) and self._compiled is not None:
            mine = self.queries
            slow = self._compiled(slow, figs[slow], pre[slow] if pre is not None else [
                mine[f] if queries is None or queries[b] is None else queries[b]
                for b, f in zip(slow.tolist(), figs[slow].tolist())],
                self.occ, self.cell, self.alive, mask, cost, stop, penalty,
                threads=len(self._bufs))
        if slow is not None and len(slow):
            self._legal_restored(slow, figs, queries, mask, cost, stop, penalty)

    def _legal_restored(self, rows, figs, queries, mask, cost, stop, penalty=None) -> None:
        """Games ``rows`` of the array backend whose query the layout does not batch:
        answered by a live position of each game, a copy of the root kept per game
        (its prepared queries stay bound) and made equal to the game's arrays by the
        layout's ``restore`` before each query (the arrays are the state; the position
        is only asked, never moved)."""
        live = self._live
        for b in rows.tolist():
            f = int(figs[b])
            qy = self.queries[f] if queries is None or queries[b] is None else queries[b]
            pos = live.get(b)
            if pos is None:
                pos = live[b] = self.root.copy()
            if self._game is not None:
                self._game.restore(pos, b, self.cell[b], self.alive[b])
            else:
                self._restore(pos, self.occ[b], self.cell[b], self.alive[b])
            _write_row(b, pos.legal_moves(self.ids[f], **qy), mask, cost, stop, penalty)

    def _apply_end_rules(self, figs, start, shape, mask, cost, stop) -> None:
        """The layout's end rules (:class:`BatchLayout`) on the kernel's answer, over the
        batch at once."""
        rows = np.flatnonzero(figs >= 0)
        if not len(rows):
            return
        st = start[rows]
        if self._any_one_figure:
            cells = self.cell[rows]                                    # [R, F]
            other = self.alive[rows] & (np.arange(self.F)[None] != figs[rows][:, None])
            c = np.where(other, cells, 0)
            hit = other & (self._one_figure[c] != 0) & (c != st[:, None])
            r, g = np.nonzero(hit)
            b, c = rows[r], cells[r, g]
            mask[b, c] = 0
            cost[b, c] = -1
            stop[b, c] = 0
        if len(self._no_end):
            r, k = np.nonzero(self._no_end[None] != st[:, None])
            b, c = rows[r], self._no_end[k]
            mask[b, c] = 0
            cost[b, c] = -1
            stop[b, c] = 0
        if self._stop_code is not None:
            N = self.occ.shape[1]
            s = stop[rows, :N]
            stop[rows, :N] = np.where(s != 0, self._stop_code[shape[rows]], 0)

    def _legal_positions(self, figs, mask, cost, stop, queries, penalty=None) -> None:
        mask[:] = 0
        cost[:] = -1
        stop[:] = 0
        for b in range(self.B):
            f = int(figs[b])
            if f < 0:
                self._moves[b] = None
                continue
            q = self.queries[f] if queries is None or queries[b] is None else queries[b]
            self._moves[b] = m = self.positions[b].legal_moves(self.ids[f], **q)
            _write_row(b, m, mask, cost, stop, penalty)

    # ------------------------------------------------------------------ changes
    def apply(self, figures, places, *, queries=None) -> None:
        """Move figure slot ``figures[b]`` to place ``places[b]`` in every game ``b``
        (-1: game ``b`` does not move). Validated: every move must be a legal end of that
        figure in its game (:class:`movecore.IllegalMoveError` naming the game, and no
        game changes, otherwise), for ``queries`` (one per game, as
        :meth:`legal_moves`; default: each slot's own; the positions backend takes
        the moves its last :meth:`legal_moves` answered)."""
        figs = self._figures(figures)
        to = np.asarray(places)
        if to.shape != (self.B,) or to.dtype.kind not in "iu":
            raise QueryError(f"places must be B={self.B} place ids (integers); got "
                             f"{describe(places)}")
        rows = np.flatnonzero(figs >= 0)
        if not len(rows):
            return
        bad = (to[rows] < 0) | (to[rows] >= self.n_places)
        if bad.any():
            b = int(rows[np.flatnonzero(bad)[0]])
            raise IllegalMoveError(f"places[{b}] = {int(to[b])} is not a place id in "
                                   f"[0, {self.n_places})")
        to = to.astype(np.int64)
        if self.backend == "positions":
            self._apply_positions(figs, to, rows)
            return
        mask, _, _ = self.legal_moves(np.where(figs >= 0, figs, -1), queries=queries)
        ok = mask[rows, to[rows]] != 0
        if not ok.all():
            b = int(rows[np.flatnonzero(~ok)[0]])
            raise IllegalMoveError(f"game {b}: {int(to[b])} is not a legal end of figure "
                                   f"{self.ids[int(figs[b])]!r}")
        self._move_trusted(rows, figs[rows], to[rows])

    def _move_trusted(self, rows, figs, to) -> None:
        """Array backend: games ``rows`` move ``figs`` to ``to`` (already validated)."""
        if self._game is not None:
            self._game.move(self, rows, figs, to)
            return
        if self._move is not None:
            self._move(self.occ, self.cell, self.alive, rows, figs, to)
            return
        occ, cell = self.occ, self.cell
        occ[rows, cell[rows, figs]] = T.OCC_EMPTY
        occ[rows, to] = self.team[figs]
        cell[rows, figs] = to

    def _apply_positions(self, figs, to, rows) -> None:
        # validate every game first (nothing changes when one is illegal)
        for b in rows:
            m = self._moves[b]
            pos = self.positions[b]
            fid = self.ids[int(figs[b])]
            if m is None or m.stale or m.figure != fid:   # (asked with the slot's query)
                m = self._moves[b] = pos.legal_moves(fid, **self.queries[int(figs[b])])
            if not (to[b] < len(m.mask) and m.mask[to[b]]):
                raise IllegalMoveError(f"game {b}: {int(to[b])} is not a legal end of "
                                       f"figure {fid!r}")
        for b in rows:
            m = self._moves[b]
            pos = self.positions[b]
            pos.apply_row(m, int(np.flatnonzero(m.actions == to[b])[0]))
            self._moves[b] = None
            f = int(figs[b])
            w = pos.where(self.ids[f])   # (a move to an off-board place, as a town)
            self.cell[b, f] = -1 if isinstance(w, str) else pos.action_of(self.ids[f], w)

    def remove(self, games, figures) -> None:
        """Take figure slot ``figures[i]`` out of play in game ``games[i]`` (``games``,
        ``figures``: int[K] of the same length; QueryError for an id out of range or a
        figure not in play)."""
        games = _indices("remove: games", games, self.B)
        figs = _indices("remove: figures", figures, self.F)
        if games.shape != figs.shape:
            raise QueryError("remove: games and figures must have the same length")
        # (checked before any game changes, on both backends)
        out = np.flatnonzero(~self.alive[games, figs])
        if len(out):
            b, f = int(games[out[0]]), int(figs[out[0]])
            raise QueryError(f"remove: figure slot {f} ({describe(self.ids[f])}) of game "
                             f"{b} is not in play")
        _, first, n = np.unique(games * self.F + figs, return_index=True,
                                return_counts=True)
        if (n > 1).any():
            k = int(first[n > 1].min())
            raise QueryError(f"remove: figure slot {int(figs[k])} of game {int(games[k])} "
                             f"is named twice")
        if self.backend == "positions":
            for b, f in zip(games.tolist(), figs.tolist()):
                self.positions[b].remove_figure(self.ids[f])
                self._moves[b] = None
                self.cell[b, f] = -1
                self.alive[b, f] = False
            return
        if self._game is not None:
            self._game.remove(self, games, figs)
        elif self._move is not None:
            self._move(self.occ, self.cell, self.alive, games, figs,
                       np.full(len(games), -1, np.int64))
        else:
            self.occ[games, self.cell[games, figs]] = T.OCC_EMPTY
        self.cell[games, figs] = -1
        self.alive[games, figs] = False

    def reset(self, games=None) -> None:
        """Put games ``games`` (bool[B] or int[K] game indices; default all) back to
        the root (QueryError for an index out of [0, B))."""
        sel = np.arange(self.B) if games is None else np.asarray(games)
        if sel.dtype == bool:
            if sel.shape != (self.B,):
                raise QueryError(f"reset: games must be bool[B={self.B}] or game indices; "
                                 f"got {describe(games)}")
            sel = np.flatnonzero(sel)
        sel = _indices("reset: games", sel, self.B)
        if self.backend == "positions":
            for b in sel.tolist():
                self.positions[b] = self.root.copy()
                self._moves[b] = None
            self.cell[sel] = self._cell0
            self.alive[sel] = True
            return
        if self._game is not None:
            self._game.reset(self, sel)
        else:
            self.occ[sel] = self._occ0
        self.cell[sel] = self._cell0
        self.alive[sel] = self._cell0 >= 0
        if self._live:            # (their figures come back: copies of the root again)
            for b in sel.tolist():
                self._live.pop(b, None)

    def spaces(self, rows, slots=None, places=None) -> np.ndarray:
        """int64[..., S]: the spaces (cells; -1 = none) of the places of games ``rows``'
        figures (``[R, F, S]``; -1 out of play), or of ``places`` (int[R, K]) as places
        of figure slots ``slots`` (int[R]): a place is one cell, or two spaces where the
        layout says so (``BatchLayout.place_spaces``; S = 2), or the squares of a base
        in the figure's orientation in that game where the layout's ``game`` has
        ``spaces`` (Descent's large monsters; S = the widest base's squares). S = 2
        otherwise. QueryError for a game, slot or place id out of range (places may
        hold -1: no place)."""
        rows = _indices("spaces: rows", rows, self.B).reshape(np.shape(rows))
        if places is None:
            p = self.cell[rows].astype(np.int64)
            kind = None if self._place_spaces is None else self._place_spaces[1][None]
        else:
            slots = _indices("spaces: slots", slots, self.F)
            p = np.asarray(places)
            if p.ndim != 2 or p.shape[0] != len(slots) or len(rows) != len(slots):
                raise QueryError(f"spaces: places must be int[R, K] with rows and slots "
                                 f"int[R]; got {describe(places)}")
            p = _indices("spaces: places", p, self.n_places, lo=-1).reshape(p.shape)
            kind = None if self._place_spaces is None else \
                self._place_spaces[1][slots][:, None]
        if self._game_spaces:           # (the game's own: Descent's large bases)
            return self._game.spaces(self, rows, slots, None if places is None else p)
        out = np.full(p.shape + (2,), -1, np.int64)
        if kind is None:
            out[..., 0] = p
            out[p < 0, 0] = -1
            return out
        kind = np.broadcast_to(kind, p.shape)
        for k, table in enumerate(self._place_spaces[0]):
            sel = (kind == k) & (p >= 0)
            out[sel] = table[p[sel]]
        return out

    # ------------------------------------------------------------------ checking
    def position(self, b: int):
        """A live position equal to game ``b`` (a copy: changing it changes no game)."""
        if not isinstance(b, (int, np.integer)) or isinstance(b, (bool, np.bool_)) or \
                not 0 <= b < self.B:
            raise QueryError(f"game {describe(b)} is not an integer in [0, {self.B})")
        b = int(b)          # (a numpy integer too: np.flatnonzero(...)'s games)
        if self.backend == "positions":
            return self.positions[b].copy()
        pos = self.root.copy()
        if self._game is not None:
            self._game.restore(pos, b, self.cell[b].copy(), self.alive[b].copy())
        else:
            self._restore(pos, self.occ[b].copy(), self.cell[b].copy(),
                          self.alive[b].copy())
        return pos


class QueryColumns(Sequence):
    """Per-game queries in array form: one array per query keyword (``legal_moves(
    queries={"roll": rolls, "enemy": is_enemy, "attack_range": 1})``), the batched
    counterpart of a list of B query dicts.

    ``columns``: ``{keyword: value}``, each value a scalar or an array of shape ``(B,)``,
    of integers or booleans. Game ``b``'s query holds ``keyword: int(value[b])`` for an
    integer column where ``value[b] != -1`` (-1: the keyword is left out of that game's
    query) and ``keyword: True`` for a boolean column where ``value[b]`` is true; so a
    batch may mix queries of different shapes (heroes' ``roll``, enemies' ``enemy`` and
    ``move``). ``columns[k]`` as given is validated once here (QueryError naming the bad
    keyword, shape, dtype or value); ``arrays`` holds them as int64[B] / bool[B].
    ``qc[b]`` is game ``b``'s query dict (what a live position is asked where the
    batch does not answer it over the arrays).

    >>> import numpy as np
    >>> qc = QueryColumns({"roll": np.array([3, -1]), "move": np.array([-1, 4]),
    ...                    "enemy": np.array([False, True]), "attack_range": 1}, 2)
    >>> qc[0], qc[1]
    ({'roll': 3, 'attack_range': 1}, {'move': 4, 'enemy': True, 'attack_range': 1})
    """

    def __init__(self, columns: Mapping, B: int):
        if isinstance(columns, QueryColumns):
            columns = columns.arrays
        self.B = B
        self.arrays: dict = {}
        for k, v in columns.items():
            if not isinstance(k, str):
                raise QueryError(f"queries: keywords must be strings; got {describe(k)}")
            a = np.asarray(v)
            if a.dtype.kind not in "biu" or a.shape not in ((), (B,)):
                raise QueryError(f"queries[{k!r}] must be a scalar or an array of B={B} "
                                 f"integers or booleans; got {describe(v)}")
            if a.dtype.kind != "b":
                if a.dtype.kind == "u" and a.dtype.itemsize == 8 and a.size and \
                        int(a.max()) > 2**62:
                    raise QueryError(f"queries[{k!r}]: value {int(a.max())} is too large")
                a = a.astype(np.int64)
                bad = a < -1
                if bad.any():
                    i = int(np.flatnonzero(bad.ravel())[0])
                    raise QueryError(f"queries[{k!r}]" + (f"[{i}]" if a.ndim else "") +
                                     f" = {int(a.ravel()[i])}: a keyword's value is >= 0, "
                                     f"or -1 to leave it out of that game's query")
            self.arrays[k] = np.ascontiguousarray(np.broadcast_to(a, (B,)))

    def __len__(self) -> int:
        return self.B

    def __getitem__(self, b: int) -> dict:
        """Game ``b``'s query dict."""
        if not -self.B <= b < self.B:
            raise IndexError(b)
        return {k: True if a.dtype.kind == "b" else int(a[b])
                for k, a in self.arrays.items() if (a[b] if a.dtype.kind == "b" else
                                                    a[b] != -1)}


def _indices(name: str, values, n: int, lo: int = 0) -> np.ndarray:
    """int64[K]: ``values`` (integers, any shape, flattened) checked to lie in [lo, n)
    (QueryError naming the first bad one)."""
    a = np.asarray(values)
    if a.size == 0:
        return np.zeros(0, np.int64)
    if a.dtype.kind not in "iu":
        raise QueryError(f"{name} must be integers; got {describe(values)}")
    a = a.ravel()
    bad = (a < lo) | (a >= n)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise QueryError(f"{name}[{i}] = {int(a[i])} is not in [{lo}, {n})")
    return a.astype(np.int64)


#: how long after its submit a pool thread starts its chunk of the compiled step, in
#: seconds, by hand-off (``movecore.reach.HAND_OFF``): "executor", a wake of a sleeping
#: thread (27-30 us here, `benches/pool_wake.py` 30-70 us); "spin", a worker spinning
#: for its chunk, which then waits for the caller to give the GIL up (`benches/
#: pool_wake.py --step`)
_WAKE = 30e-6
_SPIN_WAKE = 8e-6


def _wake() -> float:
    """:data:`_SPIN_WAKE` where the pool's workers spin for their chunks now
    (:func:`movecore.reach._handoff.spinning`), else :data:`_WAKE` (the executor, the
    spin turned off, or a platform whose cycle counter does not advance; movecore.reach's
    settings, read at each call: a step recuts its chunks by it)."""
    return _SPIN_WAKE if spinning() else _WAKE


def _head_start(B: int, n_chunks: int, first: int, took: float) -> int:
    """The games the calling thread's chunk takes next step (``first``; the pool threads
    share the rest evenly): at the rate it played ``first`` games in ``took`` seconds,
    more than its even share by what a pool thread's wake (:func:`_wake`) is worth, so that
    the threads end together (where the step is short, a few hundred us, the wake is
    ~10% of a chunk). At least half an even share each.

    >>> _head_start(4096, 2, 2048, 150e-6) - 2048 == round(_wake() * 2048 / 150e-6 / 2)
    True
    """
    share = B // (2 * n_chunks)
    if took <= 0.0:
        return first
    want = round(B / n_chunks + (n_chunks - 1) / n_chunks * _wake() * first / took)
    return min(max(want, max(1, share)), B - (n_chunks - 1) * max(1, share))


def _moved_head(B: int, n_chunks: int, first: int, took: float) -> int | None:
    """:func:`_head_start`'s next ``first`` where it moves the cut by at least B/256
    games (or one), else None: what a step's caller recuts its chunks by."""
    want = _head_start(B, n_chunks, first, took)
    return want if abs(want - first) >= max(1, B // 256) else None


#: whether a batched call asked for several threads runs whole on the calling thread
#: where that measured faster (:class:`ThreadChoice`, read when a step makes its
#: choice: at its first step on several threads); False: always split, as asked (the
#: tests' default, so that their 2-thread runs check the split path at every step; the
#: choice's own tests turn it on)
CHOOSE_THREADS = True


class ThreadChoice:
    """Whether a batched call asked for several threads runs its games in chunks on
    the pool's threads (``split``) or whole on the calling thread: the way its calls
    measured faster. A chunk handed to a pool thread costs a hand-off (its submit, the
    worker's wake and the GIL: tens of microseconds here), which a step of a few dozen
    games does not win back: two threads at B = 64 ran Mage Knight's ``BatchedPlay``
    at 0.31x one thread's speed, the grid game's at 0.57x (docs/performance_log.md,
    "Two threads where they pay"). The games played are the same either way (every
    game is its own; the whole call is chunk 0's with every game).

    The caller asks :meth:`use_split` before each call and tells :meth:`took` its wall
    seconds after. Calls start split (what ``threads=`` asked for); after
    :data:`WARM` calls each way is timed: the other way is tried for :data:`PROBE`
    calls (the first of them not counted: a way's first call warms its caches), the
    faster kept (by the mean of its timed calls, the kept way's last :data:`PROBE`; the
    other must be 3% faster to take over), and tried again :data:`EVERY` calls later,
    an interval that doubles each time the choice stands, up to :data:`EVERY_MAX`: a
    choice that keeps winning costs ~0.1% of the calls, and one the machine changes (a
    busy second core) is seen again within ~4,000 calls.

    >>> ch = ThreadChoice(choose=True)
    >>> for _ in range(40):     # (split calls 30 us, whole ones 10 us)
    ...     split = ch.use_split()
    ...     ch.took(split, 3e-5 if split else 1e-5)
    >>> ch.split
    False
    """

    __slots__ = ("split", "choose", "_trying", "_left", "_count", "_times", "_every",
                 "_next")

    #: calls before the first try of the other way
    WARM = 8
    #: calls of a try (the first not timed)
    PROBE = 5
    #: the first interval between tries, in calls; doubled up to EVERY_MAX while the
    #: choice stands
    EVERY = 256
    EVERY_MAX = 4096

    def __init__(self, choose: bool | None = None):
        #: False: every call split, as asked (default :data:`CHOOSE_THREADS`, read here)
        self.choose = CHOOSE_THREADS if choose is None else choose
        self.split = True           # the way kept
        self._trying = False        # a try of the other way under way
        self._left = 0              # its calls left
        self._count = 0             # calls since the choice was last made
        self._times = ([], [])      # (whole, split): the timed calls of each way
        self._every = self.EVERY // 2   # (doubled by the first try that stands)
        self._next = self.WARM

    def use_split(self) -> bool:
        """The way of the next call: the kept one, or the other during a try (always
        split where :attr:`choose` is False)."""
        if not self.choose:
            return True
        if not self._trying and self._count >= self._next:
            self._trying, self._left = True, self.PROBE
            self._times[not self.split].clear()
        return self.split != self._trying

    def took(self, split: bool, seconds: float) -> None:
        """A call's wall ``seconds``, made ``split`` or whole."""
        times = self._times[split]
        if self._trying:
            if self._left < self.PROBE:     # (a try's first call: not timed)
                times.append(seconds)
            self._left -= 1
            if self._left == 0:
                self._decide()
            return
        times.append(seconds)
        if len(times) > self.PROBE:
            del times[0]
        self._count += 1

    def _decide(self) -> None:
        kept, other = self._times[self.split], self._times[not self.split]
        self._trying = False
        self._count = 0
        if kept and other and sum(other) / len(other) < 0.97 * sum(kept) / len(kept):
            self.split = not self.split
            self._every = self.EVERY
            self._times[not self.split].clear()
        else:
            self._every = min(2 * self._every, self.EVERY_MAX)
        self._next = self._every


def _cut_chunks(B: int, n_chunks: int, first: int) -> list:
    """The ``(lo, hi)`` of ``n_chunks`` contiguous chunks covering ``0..B``: the calling
    thread's ``[0, first)`` (``first`` kept to leave every chunk a game), the rest cut
    evenly among the pool threads.

    >>> _cut_chunks(10, 2, 6), _cut_chunks(10, 3, 4), _cut_chunks(10, 1, 3)
    ([(0, 6), (6, 10)], [(0, 4), (4, 7), (7, 10)], [(0, 10)])
    """
    if n_chunks == 1:
        return [(0, B)]
    first = min(B - (n_chunks - 1), max(1, first))
    cut = [0] + [first + ((B - first) * c) // (n_chunks - 1) for c in range(n_chunks)]
    return list(zip(cut[:-1], cut[1:]))


#: call a batched step's compiled kernel at its overload's entry point after its first
#: call (:func:`entry_call`: the vector env's steps, the self-play steps); False: through
#: the dispatcher at every call (the tests compare the two)
ENTRY = True


def entry_call(entries: dict, key, kernel, args):
    """``kernel(*args)``: through the dispatcher at the first call of ``key``, then at
    the entry point of the overload it picked (:func:`entry_for`, kept in
    ``entries[key]``), where the dispatcher typed a step's ~15-30 arguments, nested
    tuples of ~30-100 arrays, at every call (2-4 us a call: docs/performance_log.md,
    "The self-play step's fixed cost" and "The vector env's whole step at its entry
    point"). With :data:`ENTRY` False, or a ``kernel`` that is no Numba dispatcher (the
    benches' and tests' stand-ins), every call is ``kernel``'s own.

    ``key`` names the call (a hashable the caller picks: the kernel, the thread chunk,
    ...): the types of its arguments never change. They are the caller's own arrays
    (made once with a fixed dtype, layout and flags, never reallocated into another
    type), arrays made at each call by ``np.empty``/``np.empty_like`` of those, inputs
    brought to one type (``np.require(..., "CAW")``), and Python bools, ints and floats,
    each of one type for the caller's life.

    >>> calls = {}
    >>> entry_call(calls, "k", max, (1, 2)), calls     # (no dispatcher: none kept)
    (2, {})
    """
    call = entries.get(key)
    if call is not None:
        return call(*args)
    out = kernel(*args)
    if ENTRY and hasattr(kernel, "overloads"):
        entries[key] = entry_for(kernel, args)
    return out


def entry_for(kernel, args):
    """The entry point of ``kernel``'s compiled overload for ``args`` (as its dispatcher
    types them; or one declared with 'A' arrays where they are arrays of another layout),
    or ``kernel`` itself where none fits (the dispatcher would convert an argument): a
    call to it unboxes ``args`` without typing them.

    Only for a call whose argument types never change (the batched steps' argument
    lists, built once: the same arrays, or arrays of a fixed dtype, layout and flags,
    and ints): Numba's dispatcher types every argument at every call (a step's nested
    tuples of constant arrays: ~2-4 us a call), the entry point only unboxes them."""
    sig = tuple(kernel.typeof_pyval(a) for a in args)
    cres = kernel.overloads.get(sig)
    if cres is None:   # (a declared signature's 'A' arrays take these C arrays as such)
        cres = next((c for s, c in kernel.overloads.items() if len(s) == len(sig) and
                     all(map(_takes, s, sig))), None)
    return kernel if cres is None else cres.entry_point


def _takes(want, have) -> bool:
    """A compiled argument of type ``want`` unboxes a value Numba types ``have`` as it
    is (no conversion): the same type, or an array of any layout for an 'A' array of
    its dtype and dimensions (writable and aligned where those are asked)."""
    if want == have:
        return True
    from numba.core import types
    return (isinstance(want, types.Array) and isinstance(have, types.Array) and
            want.layout == "A" and want.dtype == have.dtype and want.ndim == have.ndim
            and (have.mutable or not want.mutable) and (have.aligned or not want.aligned))


def summed(counts) -> list:
    """The per-thread counters ``counts`` (int64 arrays of one length) added up, as
    Python ints: ``np.sum(counts, axis=0).tolist()`` without its ~2 us of numpy on the
    few threads a step has (the arrays' own adds).

    >>> summed([np.array([1, 2]), np.array([3, 4])]), summed([np.arange(2)] * 3)
    ([4, 6], [0, 3])
    """
    if len(counts) == 1:
        return counts[0].tolist()
    total = counts[0] + counts[1]     # (a step's own Python: ~1 us, where a zip of the
    for c in counts[2:]:              # threads' lists was ~2.5 us and ~5 right after
        total += c                    # the kernel, its caches cold)
    return total.tolist()


def on_chunks(n: int, n_chunks: int, run) -> tuple:
    """``run(c, lo, hi)`` over ``n`` items cut into ``n_chunks`` contiguous chunks
    (``lo = n * c // n_chunks``), one per thread of the shared pool, the calling thread
    taking chunk 0; waits for all. Returns ``(cut, results)``: the ``n_chunks + 1``
    chunk bounds and each chunk's return value, in chunk order (:func:`on_cut` on the
    even cut).

    >>> on_chunks(5, 2, lambda c, lo, hi: hi - lo)
    ([0, 2, 5], [2, 3])
    """
    cut = [(n * c) // n_chunks for c in range(n_chunks + 1)]
    return cut, on_cut(cut, run)[0]


def on_cut(cut, run) -> tuple:
    """``run(c, cut[c], cut[c + 1])`` for every chunk ``c`` of the bounds ``cut`` (a
    list of ``n_chunks + 1`` ints), one per thread of the shared pool, the calling
    thread taking chunk 0; waits for all. Returns (each chunk's return value in chunk
    order, the calling thread's seconds in chunk 0: 0.0 with one chunk), the time a
    caller sets its next cut's head start by (:func:`_moved_head`).

    >>> on_cut([0, 3, 4, 9], lambda c, lo, hi: (c, hi - lo))[0]
    [(0, 3), (1, 1), (2, 5)]
    """
    if len(cut) == 2:
        return [run(0, cut[0], cut[1])], 0.0
    pool = _hand_pool(len(cut) - 2)
    futures = [pool.submit(run, c, cut[c], cut[c + 1]) for c in range(1, len(cut) - 1)]
    t0 = perf_counter()
    first = run(0, cut[0], cut[1])
    took = perf_counter() - t0
    return [first] + [fu.result() for fu in futures], took


def per_thread(n: int, shape, dtype) -> list:
    """``n`` zeroed arrays of ``shape`` and ``dtype`` (C order), each on cache lines of its
    own: the small scratch and counters each thread of a batched call writes for every
    game (a query row, move counters) would otherwise share a cache line with the next
    thread's, which then moves between the cores on every write (false sharing).

    >>> a, b = per_thread(2, (1, 3), np.int64)
    >>> a.shape, a.flags.c_contiguous, abs(a.ctypes.data - b.ctypes.data) >= 64
    ((1, 3), True, True)
    """
    size = int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize
    stride = -(-max(size, 1) // 64) * 64 + 64
    raw = np.zeros(n * stride + 64, np.uint8)
    off = (-raw.ctypes.data) % 64
    return [raw[off + k * stride:off + k * stride + size].view(dtype).reshape(shape)
            for k in range(n)]


def _write_row(b: int, m, mask, cost, stop, penalty) -> None:
    """Row ``b`` of the dense answers from a live position's :class:`movecore.Moves`
    ``m``: its ends that are moves (``Moves.mask``) only."""
    moves = m.mask[m.actions]
    acts = m.actions[moves]
    mask[b, acts] = 1
    cost[b, acts] = m.costs[moves]
    stop[b, acts] = m.stop[moves]
    if penalty is not None:
        penalty[b, acts] = m.penalty[moves]


def threads_or(threads: int, B: int) -> int:
    """Chunks of a batched call: ``threads``, at most one per game."""
    return max(1, min(threads, B))
