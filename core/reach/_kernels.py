"""The compiled kernels :mod:`movecore.reach` calls, and their per-thread scratch.

Each kernel is called through its compiled entry point (:func:`_entry_point`: no Numba
dispatcher re-typing the arguments), named so a pickled query finds it again
(:func:`_kernel_named`). Workspaces are cached per thread and per board size and reused
by every query (:func:`_workspace` for the general kernel, :func:`_fast_workspace` for
``reach1``, :func:`_pen_workspace` for ``reach_pen``); the penalty kernels load on the
first query with a penalty (:func:`_pen`).
"""
from __future__ import annotations

import threading

import numpy as np

from ..board import Board
from ..kernels import _types as T
from ..kernels._jit import once
from ..kernels.reach import (fast_layout_size, reach1_general, reach1_one_general,
                             reach1_one_plain, reach1_ordered, reach1_plain, reach_plain_k,
                             reach_query)


_PEN_MODULE = None


def _pen():
    """The penalty kernels' module, imported (its kernels loaded) at the first query with
    a penalty: a query without one loads none of them."""
    global _PEN_MODULE
    if _PEN_MODULE is None:
        from ..kernels import reach_pen
        _PEN_MODULE = reach_pen
    return _PEN_MODULE


_new = object.__new__
_TREE_MODE = np.zeros((3, 0), T.INDEX)    # reach1: no end columns = tree mode
_ROWS_MODE = np.zeros((8, 0), T.INDEX)    # reach_pen: the ends' 8 fields, no tree
_NO_QUERIES = np.zeros((0, 3), np.int64)  # reach1: the one query in its scalar arguments


def _entry_point(kernel):
    """The compiled function behind a one-signature kernel, called without Numba's
    dispatcher (which re-types every argument: ~0.05 us each, half of a small query's
    overhead). Only for arguments already of the declared types, as here."""
    try:
        return kernel.overloads[kernel.signatures[0]].entry_point
    except (AttributeError, IndexError, KeyError):  # another Numba: the dispatcher
        return kernel


_REACH1 = {True: _entry_point(reach1_plain), False: _entry_point(reach1_general)}
_PLAIN = _REACH1[True]
_ORDERED = _entry_point(reach1_ordered)
_REACH_QUERY = _entry_point(reach_query)
_NO_ORDER = np.zeros(0, np.int64)
_REACH1_ONE = {True: _entry_point(reach1_one_plain), False: _entry_point(reach1_one_general)}
#: id(compiled entry point) -> (its name, itself): a pickled query names its kernels
#: (a compiled closure does not pickle) and :func:`_kernel_named` finds them again.
_KERNELS: dict = {}


def _name_kernel(name: tuple, f):
    _KERNELS[id(f)] = (name, f)
    return f


def _kernel_named(name: tuple):
    if name[0] == "plain_k":
        return _plain_entries(*name[1:-1])[name[-1]]
    return {"reach1": _REACH1, "one": _REACH1_ONE}[name[0]][name[1]]


for _plain_flag in (True, False):
    _name_kernel(("reach1", _plain_flag), _REACH1[_plain_flag])
    _name_kernel(("one", _plain_flag), _REACH1_ONE[_plain_flag])


# ---------------------------------------------------------------------- workspaces
class _Workspace:
    """Kernel scratch for one thread and one state count; reused across queries."""

    __slots__ = ("state", "heap", "bucket", "cell", "ctrl", "tree", "ends", "n_pen", "src")

    def __init__(self, n_cells: int, n_pen: int, heap_cap: int, n_buckets: int):
        S = 2 * n_cells * n_pen
        self.n_pen = n_pen
        self.state = np.zeros((S, 4), T.INDEX)
        self.heap = np.empty((heap_cap, 2), T.INDEX)
        self.heap[:, 1] = np.arange(1, heap_cap + 1, dtype=T.INDEX)
        self.heap[-1, 1] = -1
        self.bucket = np.full((n_buckets, 2), -1, T.INDEX)
        self.cell = np.zeros((n_cells, 2), T.INDEX)
        self.ctrl = np.zeros(8, np.int64)
        self.tree = np.empty((S, 4), T.INDEX)
        self.ends = np.empty((n_cells, 8), T.INDEX)
        self.src = np.zeros(1, T.INDEX)   # the one source of a single query


_local = threading.local()
_parallel_lock = threading.Lock()


def _thread_cache(name: str) -> dict:
    """This thread's scratch cache ``name`` (workspaces are never shared by threads)."""
    cache = getattr(_local, name, None)
    if cache is None:
        cache = {}
        setattr(_local, name, cache)
    return cache


def _workspace(board: Board, n_pen: int, n_buckets: int, grow: bool = False) -> _Workspace:
    cache = _thread_cache("ws")
    key = (board.n_cells, n_pen)  # scratch is generation-stamped: any board of this size
    ws = cache.get(key)
    if ws is None or grow or ws.bucket.shape[0] < n_buckets:
        heap = 2 * board.n_cells * n_pen + 64
        if ws is not None:
            heap = ws.heap.shape[0] * (2 if grow else 1)
            n_buckets = max(n_buckets, ws.bucket.shape[0])
        ws = _Workspace(board.n_cells, n_pen, heap, max(n_buckets, 1))
        if len(cache) > 16:
            cache.clear()
        cache[key] = ws
    return ws


@once
def _plain_entries(K, climbs, fifo):
    batch, one = reach_plain_k(K, climbs, fifo)
    return (_name_kernel(("plain_k", K, climbs, fifo, 0), _entry_point(batch)),
            _name_kernel(("plain_k", K, climbs, fifo, 1), _entry_point(one)))


class _FastWorkspace:
    """``reach1`` scratch for one thread: one int32 buffer and a view of its out block
    (a tree-mode query's tree and ends, or ``reach1_one``'s ends)."""

    __slots__ = ("buf", "out", "nb")

    def __init__(self, n: int, nb: int):
        self.nb = nb
        self.buf = _fast_buffer(n, nb)
        o_out = 8 + 2 * n * 4 + n * 2 + nb * 2 * n + nb * 2
        self.out = self.buf[o_out:]


def _fast_buffer(n: int, nb: int) -> np.ndarray:
    buf = np.zeros(fast_layout_size(n, nb), T.INDEX)
    buf[2] = nb
    return buf


def _fast_workspace(n: int, nb: int) -> _FastWorkspace:
    try:
        ws = _local.fast[n]
        if ws.nb >= nb:
            return ws
    except (AttributeError, KeyError):  # first query of this thread or of this size
        pass
    cache = _thread_cache("fast")
    if len(cache) > 16:
        cache.clear()
    ws = cache[n] = _FastWorkspace(n, max(nb, 8))
    return ws


class _PenWorkspace:
    """``reach_pen`` scratch for one thread: one int32 buffer for N cells, ``n_pen``
    penalty levels and ``nb`` buckets, and views of its out block (tree, then ends
    column-major) and of the ends row-major before it (``rows``)."""

    __slots__ = ("buf", "out", "rows", "nb", "n_pen")

    def __init__(self, n: int, n_pen: int, nb: int):
        self.nb, self.n_pen = nb, n_pen
        self.buf = _pen_buffer(n, n_pen, nb)
        o_out = _pen().pen_out_offset(n, n_pen, nb)
        self.out = self.buf[o_out:]
        self.rows = self.buf[o_out - 8 * n:o_out]


def _pen_buffer(n: int, n_pen: int, nb: int) -> np.ndarray:
    buf = np.zeros(_pen().pen_layout_size(n, n_pen, nb), T.INDEX)
    buf[2] = nb
    buf[3] = n_pen
    return buf


def _pen_workspace(n: int, n_pen: int, nb: int) -> _PenWorkspace:
    cache = _thread_cache("pen")
    ws = cache.get(n)
    if ws is None or ws.nb < nb or ws.n_pen < n_pen:
        if len(cache) > 16:
            cache.clear()
        if ws is not None:  # grow to both needs: no flip-flop between two queries
            nb, n_pen = max(nb, ws.nb), max(n_pen, ws.n_pen)
        ws = cache[n] = _PenWorkspace(n, n_pen, max(nb, 8))
    return ws


def _pen_kernel():
    """The compiled penalty kernel (loaded on the first penalty query)."""
    global _PEN
    if _PEN is None:
        _PEN = _entry_point(_pen().kernel())
    return _PEN


_PEN = None
