"""One query's answer: :class:`Reach` (the ends, their fields, the search tree and the
paths walked back along it) and the runs that fill it (:func:`_reach_prepared` on the
kernel the query was prepared for, :func:`_run_general` on the general one).
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np
from numpy.typing import NDArray

from ..board import Board
from ..errors import LimitError, QueryError, describe
from ..kernels import _types as T
from ._kernels import (_NO_QUERIES, _REACH_QUERY, _ROWS_MODE, _TREE_MODE, _fast_workspace,
                       _pen_kernel, _pen_workspace, _workspace)
from ._query import _Query, _budget_params
from ._validate import Cell, _cell


def _pen_tree(q: "_Query", occupant, qflags, leave, enter_pen, start: int,
              budget: int):
    """Run ``reach_pen`` in tree mode on ``q``'s packing and these layers: (workspace,
    ends n, tree rows k); the tree and ends lie in ``ws.out`` (see ``reach_pen``).
    None where the kernel cannot answer (it cannot happen: see ``reach1``)."""
    ws = _pen_workspace(q.n, int(q.params[T.P_N_PEN]), q.nb)
    nk = _pen_kernel()(q.pblob, occupant, qflags, q.zoc, leave, enter_pen, q.params,
                       ws.buf, _TREE_MODE, _NO_QUERIES, start, budget)
    if nk < 0:  # pragma: no cover
        return None
    return ws, nk & 0xFFFFFFFF, nk >> 32


def _pen_ends(q: "_Query", start: int, budget: int) -> "Reach":
    """A penalty query's :class:`Reach` without a search tree (``paths=False``): the
    kernel's rows mode, its columns as a packed result with an empty tree."""
    ws = _pen_workspace(q.n, int(q.params[T.P_N_PEN]), q.nb)
    n = _pen_kernel()(q.pblob, q.occupant, q.qflags, q.zoc, q.leave, q.enter_pen, q.params,
                      ws.buf, _ROWS_MODE, _NO_QUERIES, start, budget)
    if n < 0:  # pragma: no cover (cannot happen): the tree-mode answer
        return _reach_prepared(q, start, budget)
    r = Reach._packed(q.board, start, budget, ws.out[:8 * n].copy(), n)
    r._no_tree = True
    return r


def _pen_rows(q: "_Query", occupant, qflags, leave, enter_pen, start: int,
              budget: int) -> np.ndarray | None:
    """The end rows of a penalty query on ``q``'s packing and these layers (trusted
    arrays of the kernel types): int32[E, 8] (cell, cost, stopped, -1, least penalty,
    its cost, -1, cheapest free cost or -1): ``reach_query``'s rows without the tree
    rows (no tree is kept), a view of the thread's workspace (valid until its next
    query); None when ``q`` has no packed penalty kernel (run the general one)."""
    if q.pblob is None:
        return None
    ws = _pen_workspace(q.n, int(q.params[T.P_N_PEN]), q.nb)
    n = _pen_kernel()(q.pblob, occupant, qflags, q.zoc, leave, enter_pen, q.params, ws.buf,
                      _ROWS_MODE, _NO_QUERIES, start, budget)
    if n < 0:  # pragma: no cover (cannot happen)
        return None
    return ws.rows[:8 * n].reshape(n, 8)


# ---------------------------------------------------------------------- results
class Reach:
    """The legal ends of one query, cheapest first.

    Attributes (arrays of one row per end, the start included at cost 0):
        cells:    int32[E] cell indices.
        costs:    int32[E] least cost to end there.
        stopped:  bool[E] the least-cost arrival had to stop there (water, provoking...);
                  a free arrival of equal cost always wins the tie.
        free_costs: int32[E] least cost of an arrival that did not have to stop (-1 if
                  every arrival within the budget stops).
        penalties: int32[E] least penalty (leaving attacks, wounds) of any arrival within
                  the budget (0 when penalties are off; capped at ``max_penalty``).
        penalty_costs: int32[E] least cost among the arrivals with that least penalty.

    A result is read-only by convention (its arrays belong to it). The arrays of a
    fast-path result are views of one block copied out of the kernel's workspace;
    ``cells`` and ``costs`` are made at once, the others on first access (each NumPy
    view costs about as much as the search of a small move on this project's machine).
    A plain :func:`reach` (no per-query layers) keeps no search tree: the first call of
    :meth:`path` (or a read of ``free_costs`` where some end had to stop) runs the same
    query again, keeping its tree; the answer is the same either way.

    The search tree itself: :attr:`tree` (int32[K, 4]), :attr:`tree_rows` (int32[E, 2])
    and :meth:`path_nodes` (one end's path as a list, walked without building arrays).
    """

    board: Board
    start: int
    budget: int
    cells: NDArray[np.int32]
    costs: NDArray[np.int32]
    stopped: NDArray[np.bool_]
    free_costs: NDArray[np.int32]
    penalties: NDArray[np.int32]
    penalty_costs: NDArray[np.int32]

    __slots__ = ("board", "start", "budget", "cells", "costs", "_out", "_n", "_q", "_blk",
                 "__dict__")
    _LAZY = ("stopped", "free_costs", "penalties", "penalty_costs", "_tree", "_tree_of")

    def __init__(self, board, start, budget, cells, costs, stopped, free_costs, penalties,
                 penalty_costs, _tree, _tree_of):
        self.board, self.start, self.budget = board, start, budget
        self.cells, self.costs = cells, costs
        self._out, self._n, self._q, self._blk = None, 0, None, None
        self.__dict__.update(stopped=stopped, free_costs=free_costs, penalties=penalties,
                             penalty_costs=penalty_costs, _tree=_tree, _tree_of=_tree_of)

    @classmethod
    def _packed(cls, board, start, budget, out, n):
        """A result over ``out`` = tree[k, 4] then ends[8, n] (``reach1``'s tree mode)."""
        r = object.__new__(cls)
        e = out.shape[0] - 8 * n
        r.board, r.start, r.budget, r._out, r._n = board, start, budget, out, n
        r._q = r._blk = None
        r.cells, r.costs = out[e:e + n], out[e + n:e + 2 * n]
        return r

    def __getattr__(self, name):
        # Only reached for an attribute not yet made: the arrays of a packed result.
        if name not in Reach._LAZY or (self._out is None and self._blk is None):
            raise AttributeError(f"'Reach' object has no attribute {name!r}")
        if self._out is None:  # ends only: the rest is known, or needs the tree
            n = self._n
            stopped = self._blk[2 * n:]
            v = None
            if name == "stopped":
                v = stopped.astype(bool)
            elif name == "penalties":
                v = np.zeros(n, T.INDEX)
            elif name == "penalty_costs" or (name == "free_costs" and not stopped.any()):
                v = self.costs  # no penalties; no end had to stop: every cost is free
            if v is not None:
                self.__dict__[name] = v
                return v
            full = _reach_prepared(self._q, self.start, self.budget)
            if not np.array_equal(full.cells, self.cells):  # pragma: no cover
                raise RuntimeError("movecore: a query run again gave other ends")
            self._out, self._n = full._out, full._n
        n, out = self._n, self._out
        e = out.shape[0] - 8 * n  # the ends' fields follow the tree, n values each
        if name == "stopped":
            v = out[e + 2 * n:e + 3 * n].astype(bool)
        elif name == "free_costs":
            v = out[e + 7 * n:]
        elif name == "penalties":
            v = out[e + 4 * n:e + 5 * n]
        elif name == "penalty_costs":
            v = out[e + 5 * n:e + 6 * n]
        elif name == "_tree":
            v = out[:e].reshape(-1, 4)
        else:
            v = out[e:].reshape(8, n)[3::3].T
        self.__dict__[name] = v
        return v

    def __repr__(self) -> str:
        return (f"Reach(start={self.start}, budget={self.budget}, {len(self)} ends: "
                f"cells={self.cells!r}, costs={self.costs!r})")

    def __len__(self) -> int:
        return int(self.cells.shape[0])

    @property
    def coords(self) -> NDArray[np.int32]:
        """int32[E, 2] coordinates of the ends."""
        return self.board.coords[self.cells]

    @property
    def mask(self) -> NDArray[np.bool_]:
        """bool[N]: True on every cell where the figure may end (an RL action mask)."""
        m = np.zeros(self.board.n_cells, dtype=bool)
        m[self.cells] = True
        return m

    def end_index(self, end: Cell) -> int:
        """Row of an end given as a cell index or coordinate; :class:`QueryError` if the
        figure cannot end there."""
        cell = _cell(self.board, end, "end")
        rows = np.flatnonzero(self.cells == cell)
        if rows.size == 0:
            raise QueryError(f"{describe(self.board.coord(cell))} is not a legal end of this "
                             f"move (budget {self.budget})")
        return int(rows[0])

    def cost(self, end: Cell) -> int:
        return int(self.costs[self.end_index(end)])

    @property
    def parents(self) -> NDArray[np.int32]:
        """int32[E]: per end, the cell before it on :meth:`path` (-1 for the start): the
        whole least-cost path tree in one array (walk it back to the start)."""
        self._check_paths()
        rows = self._tree_of[:, 0]
        prow = np.where(rows >= 0, self._tree[np.maximum(rows, 0), 3], -1)
        return np.where(prow >= 0, self._tree[np.maximum(prow, 0), 0], -1).astype(T.INDEX)

    @property
    def tree(self) -> NDArray[np.int32]:
        """int32[K, 4]: the search tree, one row per arrival the search kept: ``(node,
        cost, penalty * 2 + stopped, parent row)``, the parent row -1 at the start
        (``node`` is a cell, or a placement on a ``Board.graph``). Walk the parent rows
        from a row of :attr:`tree_rows` back to the start for a path (what :meth:`path`
        does). A view of the result's block (read-only by convention; K >= len(self));
        :class:`QueryError` for a result asked with ``paths=False``.

        >>> import movecore as mc
        >>> r = mc.reach(mc.Board.square(3, 1), mc.Mover(), (0, 0), 2)
        >>> r.tree.tolist()
        [[0, 0, 0, -1], [1, 1, 0, 0], [2, 2, 0, 1]]
        """
        if self._no_tree:
            self._check_paths()
        return self._tree

    @property
    def tree_rows(self) -> NDArray[np.int32]:
        """int32[E, 2]: per end (row of ``cells``), the :attr:`tree` row of its least-cost
        arrival (column 0) and of its least-penalty arrival (column 1, the same row when
        penalties are off): the rows :meth:`path` starts from. A view (not necessarily
        contiguous); :class:`QueryError` for a result asked with ``paths=False``.

        >>> import movecore as mc
        >>> r = mc.reach(mc.Board.square(3, 1), mc.Mover(), (0, 0), 2)
        >>> r.tree_rows.tolist()
        [[0, 0], [1, 1], [2, 2]]
        """
        if self._no_tree:
            self._check_paths()
        return self._tree_of

    def path_nodes(self, i: int, least_penalty: bool = False) -> list[int]:
        """``path(cells[i], least_penalty=least_penalty).tolist()`` for the end in row
        ``i`` (``0 <= i < len(self)``, not checked: a live position's hot path), walked
        from :attr:`tree_rows` without looking the end up or making an array.

        >>> import movecore as mc
        >>> r = mc.reach(mc.Board.square(3, 1), mc.Mover(), (0, 0), 2)
        >>> r.path_nodes(2)
        [0, 1, 2]
        """
        if self._no_tree:
            self._check_paths()
        tree = self._tree
        row = int(self._tree_of[i, 1 if least_penalty else 0])
        out = []
        while row >= 0:
            out.append(int(tree[row, 0]))
            row = int(tree[row, 3])
        out.reverse()
        return out

    def path(self, end: Cell, *, least_penalty: bool = False,
             free: bool = False) -> NDArray[np.int32]:
        """int32[L] cell indices from the start to ``end`` inclusive, along a least-cost
        arrival; with ``least_penalty``, along a least-penalty one; with ``free``, along
        the cheapest arrival that did not have to stop there (:class:`QueryError` when
        every arrival there stops: ``free_costs`` is -1)."""
        i = self.end_index(end)
        self._check_paths()
        tree = self._tree
        if free:
            cell = int(self.cells[i])
            rows = np.flatnonzero((tree[:, 0] == cell) & ((tree[:, 2] & 1) == 0))
            if rows.size == 0:
                raise QueryError(f"every arrival at {describe(self.board.coord(cell))} "
                                 f"within budget {self.budget} has to stop there")
            row = int(rows[np.argmin(tree[rows, 1])])
        else:
            row = self._tree_of[i, 1 if least_penalty else 0]
        out = []
        while row >= 0:
            out.append(int(tree[row, 0]))
            row = int(tree[row, 3])
        return np.array(out[::-1], dtype=T.INDEX)

    _no_tree = False  # a result asked with paths=False (set on the instance)

    def _check_paths(self):
        if self._no_tree:
            raise QueryError("this result was asked with paths=False: it has no paths; "
                             "ask the query again with paths=True")

    def path_coords(self, end: Cell, **kw: bool) -> list[tuple[int, int]]:
        return [self.board.coord(c) for c in self.path(end, **kw)]


def _reach_prepared(q: _Query, start: int, budget: int) -> Reach:
    """Run a validated query (adapters call this to reuse one _Query for many starts;
    ``budget`` at most the one it was prepared for)."""
    if budget > q.top:
        raise LimitError(f"budget {budget} exceeds the prepared query's {q.top}")
    if q.pblob is not None:  # penalties: the packed penalty kernel, tree mode
        got = _pen_tree(q, q.occupant, q.qflags, q.leave, q.enter_pen, start, budget)
        if got is None:  # pragma: no cover (cannot happen): the general kernel
            return _reach_prepared(replace(q, pblob=None), start, budget)
        ws, n, k = got
        return Reach._packed(q.board, start, budget, ws.out[:4 * k + 8 * n].copy(), n)
    if q.blob is not None:
        board = q.board
        ws = _fast_workspace(board.n_cells, q.nb)
        nk = q.kernel(q.blob, q.occupant, q.qflags, q.zoc, q.params, ws.buf, _TREE_MODE,
                      _NO_QUERIES, start, budget)
        if nk < 0:  # cannot happen (see reach1): use the other kernel
            return _reach_prepared(replace(q, blob=None), start, budget)
        n = nk & 0xFFFFFFFF
        return Reach._packed(board, start, budget, ws.out[:4 * (nk >> 32) + 8 * n].copy(), n)
    params = q.params if q.top == budget else _budget_params(q, budget)
    n_pen = int(params[T.P_N_PEN])
    b = q.board
    layers = (b.nbr, b.link_ptr, b.link_data, b.cell_data, b.edges, b.diag_sides, q.rule,
              q.occupant, q.qflags, q.zoc, q.leave, q.enter_pen, params)
    grow = False
    while True:
        ws = _workspace(b, n_pen, int(params[T.P_N_BUCKETS]), grow)
        ws.src[0] = start
        # (the compiled entry point: every argument is already of the declared type)
        n = _REACH_QUERY(*layers, ws.src, ws.state, ws.heap, ws.bucket, ws.cell, ws.ctrl,
                         ws.tree, ws.ends)
        if n != T.STATUS_QUEUE_FULL:
            break
        grow = True
    n_tree = int(ws.ctrl[4])
    # one copy of the ends' eight fields (as rows: each field contiguous), one of the tree
    e = ws.ends[:n].T.copy()
    return Reach(b, start, budget, e[0], e[1], e[2].astype(bool), e[7], e[4], e[5],
                 ws.tree[:n_tree].copy(), e[3::3].T)


def _run_general(q: _Query, start: int, budget: int) -> Reach:
    """``q`` on the general kernel (``reach_query``), whatever packed kernel it has."""
    return _reach_prepared(replace(q, blob=None, pblob=None), start, budget)
