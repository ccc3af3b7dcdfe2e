"""The public query API: :func:`reach`, :func:`reach_many`, :func:`distance_field`.

Validation happens here, once; the kernels then run on clean arrays. Workspaces are
cached per board and per thread, so repeated queries allocate nothing proportional to
the board.

The package, by responsibility (the public names are all importable from here):

* ``__init__``: the query functions (:func:`reach`, :func:`prepare`, :func:`reach_many`,
  :func:`distance_field`, :func:`warmup`), :data:`IMPLEMENTATIONS` and the settings
  (:data:`BATCH_THREADS`);
* ``_validate``: cells, budgets and layers checked at the boundary (:data:`Cell`, ...);
* ``_query``: a validated query packed for the kernels (``_prepare``, ``_pack``);
* ``_result``: :class:`Reach`, its fields and paths, and the single-query runs;
* ``_prepared``: :class:`Prepared`, a query packed once and run from many starts;
* ``_batch``: :class:`ReachBatch` and the batch runs on several threads;
* ``_kernels``: the compiled entry points and their per-thread workspaces.

Imports go one way, down that list (``_prepared`` -> ``_result`` / ``_batch`` ->
``_query`` -> ``_validate`` / ``_kernels``).

Example::

    >>> import movecore as mc
    >>> board = mc.Board.square(5, 1, terrain=[0, 0, 1, 0, 0])
    >>> mover = mc.Mover(terrain_cost=[1, 3])
    >>> r = mc.reach(board, mover, (0, 0), budget=4)
    >>> [board.coord(c) for c in r.cells], r.costs.tolist()
    ([(0, 0), (1, 0), (2, 0)], [0, 1, 4])
    >>> [board.coord(c) for c in r.path((2, 0))]
    [(0, 0), (1, 0), (2, 0)]
"""
from __future__ import annotations

import os

import numpy as np
from numpy.typing import NDArray

from ..board import Board, Layer
from ..errors import QueryError, describe, is_sequence
from ..kernels import _types as T
from ..kernels.reach import field_query
from ..mover import Mover
from ._batch import ReachBatch, _batch_prepared
from ._kernels import _entry_point, _workspace
from ._prepared import Prepared
from ._query import DEFAULT_MAX_PENALTY, _prepare  # noqa: F401 (public)
from ._result import Reach, _reach_prepared, _run_general
from ._validate import (Budgets, Cell, Cells, _budget, _budgets_array, _cell, _n_chunks,
                        _starts_array)
# The package's own names other modules (movecore.batch and the batched self-play: the
# thread pool), the tests and the benches import as movecore.reach.<name>, kept at that
# path (the kernels' entry points, workspaces, the penalty kernel's runs), and _Query,
# which positions pickled before the split name there.
from ._handoff import _thread_pool  # noqa: F401
from ._handoff import _hand_pool  # noqa: F401
from ._kernels import _REACH1, _REACH1_ONE, _fast_workspace  # noqa: F401
from ._query import _Query  # noqa: F401
from ._result import _pen_ends, _pen_rows, _pen_tree  # noqa: F401

#: :func:`_entry_point` for the game modules' own compiled helpers (``@njit`` with one
#: explicit signature; called only with arguments of exactly its types).
entry_point = _entry_point

#: The fast kernel keeps one stack of at most N entries per bucket: used while
#: buckets * cells stays below this (else the linked-list kernel runs); the penalty
#: kernel one of N * n_pen, while buckets * cells * n_pen does.
_FAST_MAX_STACK = 1 << 23

#: How a fast batch uses several threads: "pool" (default), chunks run by the ``nogil``
#: kernel on a pool of Python threads and the calling one, or "prange", one Numba
#: parallel region over the chunks (``reach1_batch``). Both give identical results;
#: ``movecore bench`` measures both (docs/performance.md). Environment:
#: ``MOVECORE_BATCH_THREADS``.
BATCH_THREADS = os.environ.get("MOVECORE_BATCH_THREADS", "pool")

#: How a batched step hands its chunks to the pool threads: "spin" (default), to
#: workers that wait for the next chunk spinning on a flag, without the GIL, for up to
#: :data:`SPIN_S` seconds before they sleep (the caller's wait for a chunk likewise), or
#: "executor", a ``ThreadPoolExecutor`` whose idle threads sleep (a wake of ~30 us a
#: step). Same chunks, same answers (docs/performance_log.md, "A hand-off that does not
#: sleep between steps"). Environment: ``MOVECORE_HAND_OFF``.
HAND_OFF = os.environ.get("MOVECORE_HAND_OFF", "spin")

#: The longest a spinning worker (or a caller waiting for a chunk) spins, in seconds:
#: the CPU a pool thread burns after a batch's last step.
SPIN_S = 1e-3

#: A spinning worker that sees its chunk waits for the caller to give the GIL up (the
#: caller holds it until its own chunk's kernel starts): it counts its wait for the GIL
#: as a sleep where it took over GIL_SLEPT_S seconds, and then spins a little longer
#: after the next chunk is handed over, up to GIL_DELAY_MAX_S.
GIL_SLEPT_S = 8e-6
GIL_DELAY_MAX_S = 20e-6


def reach(board: Board, mover: Mover, start: Cell, budget: int, *, occupant: Layer = None,
          cell_flags: Layer = None, zoc: Layer = None, leave: Layer = None,
          enter_penalty: Layer = None, leave_weight: int = 1,
          max_penalty: int | None = None) -> Reach:
    """Every cell where a figure at ``start`` may end a move of at most ``budget``.

    Args:
        board: the packed :class:`Board`.
        mover: the figure's :class:`Mover` (costs, climbing, occupancy semantics).
        start: cell index or coordinate pair. The start is always an end at cost 0,
            whatever stands there (it is the figure itself).
        budget: movement points, an integer >= 0.
        occupant: int32[N] team id per cell (``OCC_EMPTY`` -1, ``OCC_WALL`` -2).
        cell_flags: uint8[N] extra ``CELL_*`` bits for this query (OR-ed with the board's).
        zoc: uint64[N] provoke masks: the step u -> v must stop when ``zoc[u] & zoc[v]``.
        leave: uint64[N] penalty masks: the step u -> v adds
            ``popcount(leave[u] & ~leave[v]) * leave_weight`` to the penalty.
        enter_penalty: int32[N] penalty added on entering each cell.
        max_penalty: penalties are tracked up to this value (default 15 when any penalty
            layer is given); larger ones count as ``max_penalty``.

    Returns:
        A :class:`Reach` with the ends in order of cost.

    Raises:
        QueryError, LimitError: on bad input, naming the bad value.
    """
    if occupant is None and cell_flags is None and zoc is None and leave is None and \
            enter_penalty is None and max_penalty is None and type(leave_weight) is int \
            and leave_weight == 1:
        # The hot path of move generation: this board and mover asked before. Their
        # cached prepared query runs it; any miss or doubt takes the checked path.
        try:
            p = board._cache[("plain_query", id(mover))]
        except (AttributeError, KeyError, TypeError):
            p = None
        if p is not None and p.mover is mover and type(budget) is int and \
                0 <= budget <= p._q.top:
            return p.reach(start, budget)
        budget = _budget(budget)
        if isinstance(board, Board):
            # Boards and movers are immutable, so identity is enough; the entry keeps
            # the mover alive, so its id cannot be recycled while cached.
            if p is None or p.mover is not mover or p._q.top < budget:
                p = prepare(board, mover, budget)
                board._cache[("plain_query", id(mover))] = p
            return p.reach(start, budget)
    # Layers given: the answer is computed in full at once (tree mode), so the caller's
    # arrays need no copy (a Prepared copies them, since its results may run again).
    budget = _budget(budget)
    q = _prepare(board, mover, budget, occupant, cell_flags, zoc, leave, enter_penalty,
                 leave_weight, max_penalty)
    if type(start) is not int or not 0 <= start < q.n:
        start = _cell(board, start, "start")
    return _reach_prepared(q, start, budget)


def prepare(board: Board, mover: Mover, budget: int, *, occupant: Layer = None,
            cell_flags: Layer = None, zoc: Layer = None, leave: Layer = None,
            enter_penalty: Layer = None, leave_weight: int = 1,
            max_penalty: int | None = None, breadth_first: bool = True) -> "Prepared":
    """Validate and pack a query once, to run it from many starts: the arguments are
    those of :func:`reach` but the start, and ``budget`` is the largest budget it will
    be asked for. The layers are copied: changing your arrays later does not change it.

    ``breadth_first`` (default True): where every step of the board costs 1 for this
    mover (no penalties), search breadth-first (a FIFO queue); False: always the cost
    buckets. Both give the same ends, costs and stops; where two paths cost the same,
    they may report different ones (FIFO against LIFO within a bucket), and list ends of
    one cost in another order. A caller that
    answers a part of a larger board (a box round the mover) and wants the paths of
    the whole board passes False where the whole board has a dearer step.

    >>> import movecore as mc
    >>> b = mc.Board.square(4, 1)
    >>> q = mc.prepare(b, mc.Mover(), 2)
    >>> q.reach((0, 0)).costs.tolist(), q.reach(3, 1).cells.tolist()
    ([0, 1, 2], [3, 2])
    >>> q.reach_many([0, 3]).offsets.tolist()
    [0, 3, 6]
    """
    budget = _budget(budget)
    layers = dict(occupant=occupant, cell_flags=cell_flags, zoc=zoc, leave=leave,
                  enter_penalty=enter_penalty)
    for name, a in layers.items():  # own copies (results may run the query again)
        if a is not None:
            layers[name] = np.array(a, copy=True)
    q = _prepare(board, mover, budget, layers["occupant"], layers["cell_flags"],
                 layers["zoc"], layers["leave"], layers["enter_penalty"], leave_weight,
                 max_penalty, breadth_first)
    return Prepared(q, mover)


#: Every implementation of one query, by name (numbagg style): the differential tests
#: run each one that applies against the oracle and against ``"general"``, the
#: benchmarks time them side by side. Each is ``(applies(q), run(q, start, budget))``
#: on a validated ``_Query`` (see ``_prepare``); ``run`` returns a :class:`Reach`.
IMPLEMENTATIONS = {
    # the reference: every query (the linked-list bucket queue over the board arrays)
    "general": (lambda q: True, _run_general),
    # queries without penalties on a board whose buckets fit (reach1, tree mode)
    "reach1": (lambda q: q.blob is not None, _reach_prepared),
    # queries with penalties on a board whose buckets fit (reach_pen, tree mode)
    "reach_pen": (lambda q: q.pblob is not None, _reach_prepared),
}


def reach_many(board: Board, mover: Mover, starts: Cells, budgets: Budgets, *,
               occupant: Layer = None, cell_flags: Layer = None, zoc: Layer = None,
               leave: Layer = None, enter_penalty: Layer = None, leave_weight: int = 1,
               max_penalty: int | None = None, threads: int | None = None) -> ReachBatch:
    """:func:`reach` for many starts at once, in parallel over ``threads`` (default: all
    Numba threads). ``budgets`` is one integer or one per start. Every query shares the
    board, mover and layers; results are identical to one :func:`reach` per start.

    >>> import movecore as mc
    >>> b = mc.Board.square(4, 1)
    >>> r = mc.reach_many(b, mc.Mover(), [(0, 0), (3, 0)], 1)
    >>> r[1][0].tolist(), r[1][1].tolist()
    ([3, 2], [0, 1])
    """
    s = _starts_array(board, starts)
    b = _budgets_array(budgets, len(s))
    top = int(b.max()) if len(b) else 0
    q = _prepare(board, mover, top, occupant, cell_flags, zoc, leave, enter_penalty,
                 leave_weight, max_penalty)
    return _batch_prepared(q, s, b, _n_chunks(threads, len(s)))


def distance_field(board: Board, mover: Mover, sources: Cells, budget: int | None = None,
                   *, occupant: Layer = None, cell_flags: Layer = None, zoc: Layer = None,
                   out: NDArray[np.int32] | None = None) -> NDArray[np.int32]:
    """Least movement cost from the nearest of ``sources`` to every cell (threat maps,
    "distance to the nearest hero"). int32[N], -1 where nothing arrives within
    ``budget`` (default: unbounded). Arrivals that must stop count but go no further;
    occupants are passed or blocked as for :func:`reach`. Writes into ``out`` if given.

    >>> import movecore as mc
    >>> mc.distance_field(mc.Board.square(5, 1), mc.Mover(), [(0, 0), (4, 0)]).tolist()
    [0, 1, 2, 1, 0]
    """
    budget = T.MAX_BUDGET if budget is None else _budget(budget)
    q = _prepare(board, mover, budget, occupant, cell_flags, zoc, None, None, 1, None)
    if not is_sequence(sources):
        raise QueryError(f"sources must be a sequence of cell indices or coordinates; got "
                         f"{describe(sources)}")
    src = np.array(sorted({_cell(board, x, "source") for x in sources}), dtype=T.INDEX)
    if out is None:
        out = np.empty(board.n_cells, T.INDEX)
    elif not (isinstance(out, np.ndarray) and out.dtype == T.INDEX
              and out.shape == (board.n_cells,) and out.flags.c_contiguous
              and out.flags.writeable):
        raise QueryError(f"out must be a writable contiguous int32 array of shape "
                         f"({board.n_cells},); got {describe(out)}")
    grow = False
    while True:
        out.fill(-1)
        ws = _workspace(board, 1, int(q.params[T.P_N_BUCKETS]), grow)
        n = field_query(*q.layers(), src, ws.state, ws.heap, ws.bucket, ws.cell, ws.ctrl,
                        ws.tree, out)
        if n != T.STATUS_QUEUE_FULL:
            return out
        grow = True


def warmup() -> None:
    """Load (or compile) the kernels now rather than on the first query. The plain
    kernels specialised per board kind (``reach_plain_k``: 4, 6 or 8 neighbours, with or
    without climbing) load on the first query of their kind (~20-50 ms from the cache),
    the ``prange`` batch on its first use."""
    b = Board.hex([(0, 0), (1, 0), (0, 1)])
    m = Mover()
    reach(b, m, 0, 2)
    reach(b, Mover(terrain_cost=[2]), 0, 2, leave=np.zeros(3, np.uint64))
    reach_many(b, m, [0, 1], 2)
    distance_field(b, m, [0])
