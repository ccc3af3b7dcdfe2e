"""A query validated and packed once, run from many starts: :class:`Prepared`.

Its public methods answer exactly as :func:`movecore.reach.reach` and
:func:`movecore.reach.reach_many`; its private section (``_run_into``, ``_rows_into``,
...) is the live positions' hot path: trusted arguments, no validation, one thread.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..board import Board
from ..errors import LimitError, QueryError, describe
from ..kernels import _types as T
from ..mover import Mover
from ._batch import ReachBatch, _batch_prepared
from ._kernels import (_NO_ORDER, _NO_QUERIES, _ORDERED, _REACH_QUERY, _ROWS_MODE,
                       _TREE_MODE, _fast_workspace, _local, _new, _pen, _pen_kernel,
                       _pen_workspace, _workspace)
from ._query import _Query, _budget_params
from ._result import Reach, _pen_ends, _reach_prepared
from ._validate import (Budgets, Cell, Cells, _budget, _budgets_array, _cell, _n_chunks,
                        _starts_array)


class Prepared:
    """A validated, packed query (board, mover, layers) to run from many starts; made
    by :func:`prepare`. ``reach(start, budget=None)`` and ``reach_many(starts,
    budgets=None, threads=None)`` answer exactly as :func:`reach` and
    :func:`reach_many` with the same arguments, without validating and packing the board,
    mover and layers again (the cheapest way to ask many single queries).

    Attributes: ``board``, ``mover``, ``max_budget`` (the largest budget it answers).
    """

    mover: Mover

    __slots__ = ("_q", "mover")

    def __init__(self, q: _Query, mover: Mover):
        self._q, self.mover = q, mover

    @property
    def board(self) -> Board:
        return self._q.board

    @property
    def max_budget(self) -> int:
        return self._q.top

    @property
    def fast(self) -> bool:
        """True when the packed one-thread kernel answers this query (no penalties, and
        a board that fits its buckets): what :meth:`_run_into` needs."""
        return self._q.blob is not None

    def __repr__(self) -> str:
        return f"Prepared({self._q.n} cells, max_budget={self._q.top})"

    def reach(self, start: Cell, budget: int | None = None, *, paths: bool = True) -> Reach:
        """Every end of a move from ``start`` (cell index or coordinate) with ``budget``
        (default: ``max_budget``); :class:`LimitError` if it exceeds ``max_budget``.
        ``paths=False`` promises that no path will be asked: a penalty query then runs
        without a search tree, from far fewer labels (see ``kernels/reach_pen.py``), with
        the same columns, and its ``path`` / ``parents`` raise :class:`QueryError`; other
        queries are answered as with ``paths=True``."""
        q = self._q
        if budget is None:
            budget = q.top
        elif type(budget) is not int or not 0 <= budget <= q.top:
            budget = _budget(budget)
            if budget > q.top:
                raise LimitError(f"budget {budget} exceeds this prepared query's "
                                 f"max_budget {q.top}: prepare it with a larger one")
        if type(start) is not int or not 0 <= start < q.n:
            start = _cell(q.board, start, "start")
        if not paths and q.pblob is not None:
            return _pen_ends(q, start, budget)
        if q.one is None:
            return _reach_prepared(q, start, budget)
        # No per-query layer: every array is the library's own, so the ends alone now,
        # the search tree only if a path is asked for (see Reach).
        try:
            ws = _local.fast[q.n]
            if ws.nb < q.nb:
                ws = _fast_workspace(q.n, q.nb)
        except (AttributeError, KeyError):
            ws = _fast_workspace(q.n, q.nb)
        n = q.one(q.blob, q.params, ws.buf, start, budget)
        if n < 0:  # pragma: no cover (cannot happen, see reach1): the tree-mode run
            return _reach_prepared(q, start, budget)
        # A result over blk = int32[3 * n] (cells, costs, stopped of the n ends), made
        # here and not in a classmethod (a call is ~0.2 us of a ~5 us query)
        blk = ws.out[:3 * n].copy()
        r = _new(Reach)
        r.board = q.board
        r.start = start
        r.budget = budget
        r._out = None
        r._n = n
        r._q = q
        r._blk = blk
        r.cells = blk[:n]
        r.costs = blk[n:2 * n]
        return r

    def copy(self) -> "Prepared":
        """The same prepared query with its own copies of the per-query layers (the board
        and mover packing shared): :meth:`set_layer` on one never shows in the other. A
        live position's ``copy()`` uses it (no repacking)."""
        q = self._q
        new = object.__new__(Prepared)
        new.mover = self.mover
        new._q = replace(q, occupant=q.occupant.copy() if q.own_occupant else q.occupant,
                         qflags=q.qflags.copy(), zoc=q.zoc.copy(), leave=q.leave.copy(),
                         enter_pen=q.enter_pen.copy(), params=q.params.copy())
        return new

    def set_layer(self, name: str, cells: int | ArrayLike, values: int | ArrayLike) -> None:
        """Change a per-query layer in place: ``layer[cells] = values`` for ``name`` in
        ``occupant``, ``cell_flags``, ``zoc``, ``leave``, ``enter_penalty``. The next query
        sees the change; nothing else is repacked (O(len(cells))), so a live game position
        keeps one prepared query per mover and moves its figures in it.

        The layer must have been given to :func:`prepare` (the query owns a copy of it);
        values are checked like :func:`prepare` checks them.

        >>> import movecore as mc
        >>> q = mc.prepare(mc.Board.square(4, 1), mc.Mover(team=0), 3,
        ...                occupant=[-1, -1, -1, -1])
        >>> q.set_layer("occupant", [2], [1])     # an enemy steps onto (2, 0)
        >>> q.reach(0).cells.tolist()
        [0, 1]
        """
        q = self._q
        if name == "occupant" and type(cells) is int and type(values) is int and \
                q.own_occupant and 0 <= cells < q.n and T.OCC_WALL <= values < 1 << 31:
            # one figure stepping (the live positions' case): checked in O(1)
            q.occupant[cells] = values
            if values != T.OCC_EMPTY and not q.params[T.P_HAS_OCC]:
                params = q.params.copy()
                params[T.P_HAS_OCC] = 1
                self._q = replace(q, params=params, one=None)
            return
        arrays = {"occupant": q.occupant, "cell_flags": q.qflags, "zoc": q.zoc,
                  "leave": q.leave, "enter_penalty": q.enter_pen}
        if name not in arrays:
            raise QueryError(f"set_layer: unknown layer {describe(name)}; expected one of "
                             f"{sorted(arrays)}")
        layer = arrays[name]
        if layer.shape[0] != q.n or (name == "occupant" and not q.own_occupant):
            raise QueryError(f"set_layer: this query was prepared without {name}=; give it "
                             f"to prepare() to change it later")
        idx = np.asarray(cells)
        if idx.dtype.kind not in "iu" or (idx.size and (int(idx.min()) < 0
                                                        or int(idx.max()) >= q.n)):
            raise QueryError(f"set_layer: cells must be cell indices in [0, {q.n}); got "
                             f"{describe(cells)}")
        vals = np.asarray(values)
        if vals.size and vals.dtype.kind not in "iub":
            raise QueryError(f"set_layer: {name} values must be integers; got dtype "
                             f"{vals.dtype}")
        if name == "occupant":
            lo, hi = T.OCC_WALL, np.iinfo(T.INDEX).max
        else:
            lo, hi = 0, np.iinfo(layer.dtype).max
        if vals.size and (int(vals.min()) < lo or int(vals.max()) > hi):
            raise LimitError(f"set_layer: {name} values must lie in [{lo}, {hi}]; got "
                             f"{describe(values)}")
        layer[idx] = vals
        if name == "occupant" and not q.params[T.P_HAS_OCC] and \
                bool((layer[idx] != T.OCC_EMPTY).any()):
            # someone now stands on the board: the kernels must read the occupant layer
            # (the flag is never cleared again: reading an empty layer is only slower)
            params = q.params.copy()
            params[T.P_HAS_OCC] = 1
            self._q = replace(q, params=params, one=None)

    def with_layers(self, *, occupant: NDArray[np.int32] | None = None,
                    cell_flags: NDArray[np.uint8] | None = None,
                    zoc: NDArray[np.uint64] | None = None,
                    leave: NDArray[np.uint64] | None = None,
                    enter_penalty: NDArray[np.int32] | None = None) -> "Prepared":
        """The same prepared query reading the caller's own layer arrays, without a copy:
        a write to them is what the next query sees (a live position keeps its layers
        and binds them once). Board, mover, parameters and packing are shared. Each layer
        given must have been given to :func:`prepare` and be a writable, C-contiguous
        array of its kernel type (int32 ``occupant`` and ``enter_penalty``, uint8
        ``cell_flags``, uint64 ``zoc`` and ``leave``) with one value per cell; values
        are the caller's to keep in range (see :func:`reach`). Penalty queries run the
        packed penalty kernel, as :meth:`reach` does.

        >>> import numpy as np, movecore as mc
        >>> b = mc.Board.square(4, 1)
        >>> traps = np.zeros(4, np.int32)
        >>> q = mc.prepare(b, mc.Mover(), 3, enter_penalty=traps).with_layers(
        ...     enter_penalty=traps)
        >>> traps[1] = 1                        # a trap appears on (1, 0)
        >>> q.reach(0).penalties.tolist()
        [0, 1, 1, 1]
        """
        q = self._q
        given = dict(occupant=(occupant, "occupant", np.int32),
                     cell_flags=(cell_flags, "qflags", np.uint8),
                     zoc=(zoc, "zoc", np.uint64), leave=(leave, "leave", np.uint64),
                     enter_penalty=(enter_penalty, "enter_pen", np.int32))
        changes = {}
        for name, (a, field, dtype) in given.items():
            if a is None:
                continue
            if getattr(q, field).shape[0] != q.n or (name == "occupant" and
                                                     not q.own_occupant):
                raise QueryError(f"with_layers: this query was prepared without {name}=; "
                                 f"give it to prepare() to bind it later")
            if not (isinstance(a, np.ndarray) and a.dtype == dtype and a.shape == (q.n,)
                    and a.flags.c_contiguous and a.flags.writeable):
                raise QueryError(f"with_layers: {name} must be a writable contiguous "
                                 f"{np.dtype(dtype).name} array of shape ({q.n},); got "
                                 f"{describe(a)}")
            changes[field] = a
        if "occupant" in changes:  # whoever the caller puts there later is seen
            params = q.params.copy()
            params[T.P_HAS_OCC] = 1
            changes.update(params=params, one=None)
        new = object.__new__(Prepared)
        new.mover = self.mover
        new._q = replace(q, **changes)
        return new

    def _run_into(self, queries: np.ndarray, ends: np.ndarray,
                  order: np.ndarray | None = None) -> int:
        """The live positions' hot path (trusted arguments, no validation, one thread,
        nothing allocated): the ends of ``queries`` (int64[Q, 3], C order: start cell,
        budget <= ``max_budget``, and column 2 receives each query's end count) written
        one query after another into ``ends`` (int32[3, R], R >= Q * N: cell, cost,
        stopped rows), each query's ends sorted by (cost, ``order[cell]``) where
        ``order`` (int64[N]) is given, else in cost order. Returns the columns written.
        Only for a query without penalties (``max_penalty`` 0); a position validates
        its figures and budgets once, at its own boundary."""
        q = self._q
        try:
            ws = _local.fast[q.n]
            if ws.nb < q.nb:
                ws = _fast_workspace(q.n, q.nb)
        except (AttributeError, KeyError):
            ws = _fast_workspace(q.n, q.nb)
        total = _ORDERED(q.blob, q.occupant, q.qflags, q.zoc, q.params, ws.buf, ends,
                         queries, _NO_ORDER if order is None else order)
        if total < 0:  # pragma: no cover (R >= Q * N: an end is listed once per cell)
            raise LimitError(f"movecore: ends buffer too small ({ends.shape[1]} columns)")
        return total

    def _pen_sorted(self, start: int, budget: int, order: np.ndarray):
        """The live positions' hot path of a penalty query (trusted arguments, one
        thread, no tree): new int32[E] arrays (cells, costs, penalties, penalty_costs)
        sorted by (cost, ``order[cell]``) (``order``: int64[N], distinct values); None
        where this query has no packed penalty kernel (ask :meth:`reach`)."""
        q = self._q
        if q.pblob is None:
            return None
        ws = _pen_workspace(q.n, int(q.params[T.P_N_PEN]), q.nb)
        n = _pen_kernel()(q.pblob, q.occupant, q.qflags, q.zoc, q.leave, q.enter_pen,
                          q.params, ws.buf, _ROWS_MODE, _NO_QUERIES, start, budget)
        if n < 0:  # pragma: no cover (cannot happen: see _pen_ends)
            return None
        return _pen().sorted_pen_ends(ws.out, n, order)

    # The live positions' section: trusted arguments (layers of the kernel types, one
    # value per cell, values in range; budgets <= max_budget), no validation, one
    # thread; a position validates its figures once, at its own boundary. The layers
    # given replace the query's own for this one call, so one prepared query serves
    # every position (it must have been prepared with that layer: ``occupant`` with
    # someone standing, ``leave`` for penalties).

    def _run_layers_into(self, occupant: np.ndarray, cell_flags: np.ndarray,
                         queries: np.ndarray, ends: np.ndarray,
                         order: np.ndarray) -> int | None:
        """:meth:`_run_into` on the caller's ``occupant`` (int32[N]) and ``cell_flags``
        (uint8[N]); ``order`` int64[N], or empty for cost order. None where the query
        has no packed kernel (:attr:`fast` is False: ask :meth:`_rows_into`)."""
        q = self._q
        if q.blob is None:
            return None
        try:
            ws = _local.fast[q.n]
            if ws.nb < q.nb:
                ws = _fast_workspace(q.n, q.nb)
        except (AttributeError, KeyError):
            ws = _fast_workspace(q.n, q.nb)
        total = _ORDERED(q.blob, occupant, cell_flags, q.zoc, q.params, ws.buf, ends,
                         queries, order)
        if total < 0:  # pragma: no cover (R >= Q * N)
            raise LimitError(f"movecore: ends buffer too small ({ends.shape[1]} columns)")
        return total

    def _tree_into(self, occupant: np.ndarray, cell_flags: np.ndarray, start: int,
                   budget: int) -> tuple[np.ndarray, np.ndarray]:
        """(tree int32[K, 4], ends int32[8, E]) of one query without penalties on the
        caller's layers, search tree kept: :attr:`Reach.tree` and the end fields (cell,
        cost, stopped, least-cost row, penalty, penalty cost, least-penalty row, free
        cost) as rows, in the kernel's order (cost order); views of the thread's
        workspace, valid until its next query. Only where :attr:`fast` is True."""
        q = self._q
        ws = _fast_workspace(q.n, q.nb)
        nk = q.kernel(q.blob, occupant, cell_flags, q.zoc, q.params, ws.buf, _TREE_MODE,
                      _NO_QUERIES, start, budget)
        if nk < 0:  # pragma: no cover (cannot happen, see reach1)
            raise LimitError("movecore: the packed kernel could not answer")
        n, k = nk & 0xFFFFFFFF, nk >> 32
        out = ws.out
        return out[:4 * k].reshape(k, 4), out[4 * k:4 * k + 8 * n].reshape(8, n)

    def _rows_into(self, occupant: np.ndarray, cell_flags: np.ndarray, leave: np.ndarray,
                   start: int, budget: int, sources: np.ndarray):
        """The end rows of one query (penalties or not) on the caller's layers, search tree
        kept: ``(rows, tree, k)``, rows int32[E, 8] (cell, cost, stopped, least-cost row,
        penalty, penalty cost, least-penalty row, free cost; a view of any layout), in
        the kernel's order, and the :attr:`Reach.tree` as ``tree[:4 * k].reshape(k, 4)``
        when ``k >= 0`` (left to the caller: most calls never read it), else ``tree``
        itself (int32[K', 4], its first rows the tree). ``sources``: int32[1] scratch. Views of the thread's workspace, valid
        until its next query. ``leave`` (uint64[N]) is ignored without penalties."""
        q = self._q
        if q.pblob is not None:  # the packed penalty kernel: the same rows and tree
            # (_pen_tree's call, inline: the hot path of a position's penalty query)
            ws = _pen_workspace(q.n, int(q.params[T.P_N_PEN]), q.nb)
            nk = _pen_kernel()(q.pblob, occupant, cell_flags, q.zoc, leave, q.enter_pen,
                               q.params, ws.buf, _TREE_MODE, _NO_QUERIES, start, budget)
            if nk >= 0:  # (always: see reach1)
                n, k = nk & 0xFFFFFFFF, nk >> 32
                return ws.out[4 * k:4 * k + 8 * n].reshape(8, n).T, ws.out, k
        params = _budget_params(q, budget)
        b = q.board
        n_pen = int(params[T.P_N_PEN])
        nb = int(params[T.P_N_BUCKETS])
        sources[0] = start
        grow = False
        while True:
            ws = _workspace(b, n_pen, nb, grow)
            n = _REACH_QUERY(b.nbr, b.link_ptr, b.link_data, b.cell_data, b.edges,
                             b.diag_sides, q.rule, occupant, cell_flags, q.zoc, leave,
                             q.enter_pen, params, sources, ws.state, ws.heap, ws.bucket,
                             ws.cell, ws.ctrl, ws.tree, ws.ends)
            if n != T.STATUS_QUEUE_FULL:
                return ws.ends[:n], ws.tree, -1
            grow = True

    def reach_many(self, starts: Cells, budgets: Budgets | None = None, *,
                   threads: int | None = None) -> "ReachBatch":
        """:meth:`reach` for many starts (see :func:`reach_many`); ``budgets`` is one
        integer or one per start (default: ``max_budget``)."""
        q = self._q
        s = _starts_array(q.board, starts)
        b = _budgets_array(q.top if budgets is None else budgets, len(s))
        if len(b) and int(b.max()) > q.top:
            raise LimitError(f"budget {int(b.max())} exceeds this prepared query's "
                             f"max_budget {q.top}: prepare it with a larger one")
        return _batch_prepared(q, s, b, _n_chunks(threads, len(s)))
