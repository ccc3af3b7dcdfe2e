"""Many queries at once: :class:`ReachBatch` (CSR ends) and the batch runs, on a Numba
parallel region or a pool of Python threads (``movecore.reach.BATCH_THREADS``).
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import NDArray

from ..kernels import _types as T
from ..kernels.reach import fast_layout_size, gather_batch, prange_batch, reach_batch
from ._handoff import _hand_pool
from ._kernels import _PLAIN, _parallel_lock, _pen, _pen_kernel, _thread_cache
from ._query import _Query


#: The package :mod:`movecore.reach`, where its settings live (``BATCH_THREADS``):
#: read from it at each call, so assigning one there (as the tests and ``movecore
#: bench`` do) takes effect here.
_settings = sys.modules[__package__]


@dataclass(frozen=True)
class ReachBatch:
    """Ends of many queries in CSR form: query i owns rows ``offsets[i]:offsets[i+1]``.

    Within a query the rows are in cost order, exactly as :func:`reach` lists them.
    The arrays belong to the result (``cells`` and ``costs`` may be rows of one block
    the kernel wrote: no copy is made where the block is mostly this result).
    """

    offsets: NDArray[np.int64]   # int64[Q + 1]
    cells: NDArray[np.int32]     # int32[total]
    costs: NDArray[np.int32]     # int32[total]
    stopped: NDArray[np.bool_]   # bool[total]

    def __len__(self) -> int:
        return int(self.offsets.shape[0] - 1)

    def __getitem__(self, i: int) -> tuple[NDArray[np.int32], NDArray[np.int32],
                                           NDArray[np.bool_]]:
        """(cells, costs, stopped) of query i."""
        lo, hi = self.offsets[i], self.offsets[i + 1]
        return self.cells[lo:hi], self.costs[lo:hi], self.stopped[lo:hi]


def _arena_needed(counts: np.ndarray, n_chunks: int, current: int, n_cells: int) -> int:
    """Arena rows per chunk after a batch overflowed: double, or the largest chunk's ends
    plus one query's worth, whichever is more."""
    n_q = len(counts)
    per_chunk = [counts[(n_q * c) // n_chunks:(n_q * (c + 1)) // n_chunks].sum()
                 for c in range(n_chunks)]
    return max(2 * current, int(max(per_chunk)) + n_cells)


def _gather(counts: np.ndarray, arena: np.ndarray, n_chunks: int) -> "ReachBatch":
    """The CSR result of a batch from its per-chunk arenas."""
    offsets = np.zeros(len(counts) + 1, np.int64)
    np.cumsum(counts, out=offsets[1:])
    total = int(offsets[-1])
    cells = np.empty(total, T.INDEX)
    costs = np.empty(total, T.INDEX)
    stopped = np.empty(total, np.uint8)
    gather_batch(counts, arena, n_chunks, cells, costs, stopped)
    return ReachBatch(offsets, cells, costs, stopped.view(bool))


def _batch_prepared(q: _Query, starts: np.ndarray, budgets: np.ndarray,
                    n_chunks: int) -> ReachBatch:
    if q.blob is not None or q.pblob is not None:
        return _batch_fast(q, starts, budgets, n_chunks)
    board = q.board
    n_pen = int(q.params[T.P_N_PEN])
    nb = int(q.params[T.P_N_BUCKETS])
    # Scratch is per Python thread (the kernel runs without the GIL), and parallel
    # regions are entered one at a time: Numba's default thread pool must not be entered
    # by two host threads at once.
    cache = _thread_cache("batch")
    key = (board.n_cells, n_chunks, n_pen)
    bw = cache.get(key)
    if bw is None or bw["bucket"].shape[1] < nb:
        bw = _batch_workspace(board.n_cells, n_pen, n_chunks, nb,
                              2 * board.n_cells * n_pen + 64, 64 * len(starts) + 1024)
        if len(cache) > 8:
            cache.clear()
        cache[key] = bw
    counts = np.zeros(len(starts), np.int64)
    status = np.zeros(n_chunks, np.int64)
    while True:
        with _parallel_lock:
            st = reach_batch(*q.layers(), starts, budgets, bw["state"], bw["heap"],
                             bw["bucket"], bw["cell"], bw["ctrl"], bw["tree"], bw["ends"],
                             bw["arena"], counts, status)
        if st == 0:
            break
        arena = bw["arena"].shape[1]
        heap = bw["heap"].shape[1]
        if st == T.STATUS_ARENA_FULL:
            arena = _arena_needed(counts, n_chunks, arena, board.n_cells)
        else:
            heap *= 2
        bw = _batch_workspace(board.n_cells, n_pen, n_chunks, nb, heap, arena)
        cache[key] = bw
    return _gather(counts, bw["arena"], n_chunks)


def _batch_fast(q: _Query, starts: np.ndarray, budgets: np.ndarray,
                n_chunks: int) -> ReachBatch:
    n = q.board.n_cells
    nb = int(q.params[T.P_N_BUCKETS])
    cache = _thread_cache("batch_fast")
    n_pen = 0 if q.pblob is None else int(q.params[T.P_N_PEN])  # 0: reach1's buffers
    key = (n, n_chunks, n_pen)
    bw = cache.get(key)
    if bw is None or bw[0][0, 2] < nb:
        bufs = np.zeros((n_chunks, _pen().pen_layout_size(n, n_pen, max(nb, 8)) if n_pen else
                         fast_layout_size(n, max(nb, 8))), T.INDEX)
        bufs[:, 2] = max(nb, 8)
        bufs[:, 3] = n_pen
        bw = [bufs, np.empty((n_chunks, 3, 64 * len(starts) // n_chunks + n), T.INDEX)]
        if len(cache) > 8:
            cache.clear()
        cache[key] = bw
    elif sys.getrefcount(bw[1]) > 2:  # (the list's reference and the argument's)
        # a result still holds rows of the last output block: this batch gets a new one
        # (when the results are dropped between batches, one block serves them all: no
        # allocation, no fresh pages to fault in)
        bw[1] = np.empty_like(bw[1])
    queries = np.empty((len(starts), 3), np.int64)
    queries[:, 0] = starts
    queries[:, 1] = budgets
    status = np.zeros(n_chunks, np.int64)
    while True:
        queries[:, 2] = 0
        if n_chunks > 1 and _settings.BATCH_THREADS == "prange" and not n_pen:
            with _parallel_lock:
                st = prange_batch()(q.blob, q.occupant, q.qflags, q.zoc, q.params,
                                    queries, bw[0], bw[1], status)
        else:
            st = _chunks_pooled(q, queries, bw[0], bw[1], status)
        if st >= 0:
            break
        if st == T.STATUS_QUEUE_FULL:  # cannot happen (see reach1): use the other kernel
            return _batch_prepared(replace(q, blob=None, pblob=None), starts, budgets,
                                   n_chunks)
        arena = _arena_needed(queries[:, 2], n_chunks, bw[1].shape[2], n)
        bw[1] = np.empty((n_chunks, 3, arena), T.INDEX)
    counts = queries[:, 2]
    offsets = np.zeros(len(counts) + 1, np.int64)
    np.cumsum(counts, out=offsets[1:])
    # chunk c wrote status[c] end columns (cell, cost, stopped rows), its queries' ends
    # one after another; a plain query never stops (see is_plain): its stopped row is
    # all zeros, not read
    plain = q.kernel is _PLAIN
    if n_chunks == 1:
        total = int(status[0])
        block = bw[1][0, :, :total]
        if 2 * total >= bw[1].shape[2]:
            # mostly this batch's: its rows are the answer, no copy (the next batch
            # writes elsewhere while this result lives, see above)
            cells, costs = block[0], block[1]
        else:  # a small part of a large block: copied, the block stays free
            cells, costs = block[0].copy(), block[1].copy()
    else:
        rows = 2 if plain else 3
        block = np.concatenate([bw[1][c, :rows, :status[c]] for c in range(n_chunks)],
                               axis=1)
        total = block.shape[1]
        cells, costs = block[0], block[1]
    stopped = np.zeros(total, bool) if plain else block[2].astype(bool)
    return ReachBatch(offsets, cells, costs, stopped)




def _chunks_pooled(q: _Query, queries, bufs, ends, status) -> int:
    """``reach1_batch`` without a parallel region: chunk 0 on this thread, the others
    on pool threads (the kernel releases the GIL). Same outputs and return value."""
    n_chunks, n_q, kernel = bufs.shape[0], queries.shape[0], q.fast or q.kernel

    def run(c):
        lo, hi = (n_q * c) // n_chunks, (n_q * (c + 1)) // n_chunks
        if q.pblob is not None:  # penalties: reach_pen, the same conventions
            status[c] = _pen_kernel()(q.pblob, q.occupant, q.qflags, q.zoc, q.leave,
                                      q.enter_pen, q.params, bufs[c], ends[c],
                                      queries[lo:hi], 0, 0)
            return
        status[c] = kernel(q.blob, q.occupant, q.qflags, q.zoc, q.params, bufs[c], ends[c],
                           queries[lo:hi], 0, 0)

    futures = []
    if n_chunks > 1:
        pool = _hand_pool(n_chunks - 1)
        futures = [pool.submit(run, c) for c in range(1, n_chunks)]
    run(0)
    for f in futures:
        f.result()
    return min(0, int(status.min()))


def _batch_workspace(n, n_pen, n_chunks, nb, heap_cap, arena_cap):
    S = 2 * n * n_pen
    heap = np.empty((n_chunks, heap_cap, 2), T.INDEX)
    heap[:, :, 1] = np.arange(1, heap_cap + 1, dtype=T.INDEX)
    heap[:, -1, 1] = -1
    return dict(state=np.zeros((n_chunks, S, 4), T.INDEX), heap=heap,
                bucket=np.full((n_chunks, max(nb, 1), 2), -1, T.INDEX),
                cell=np.zeros((n_chunks, n, 2), T.INDEX),
                ctrl=np.zeros((n_chunks, 8), np.int64),
                tree=np.empty((n_chunks, S, 4), T.INDEX),
                ends=np.empty((n_chunks, n, 8), T.INDEX),
                arena=np.empty((n_chunks, arena_cap, 3), T.INDEX))
