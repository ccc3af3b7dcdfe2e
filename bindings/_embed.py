"""The Python half of ``libmovecore.so``: what each exported ``mc_*`` function does.

Loaded by the library's embedded init code, which calls :func:`install` with the cffi
``ffi`` / ``lib`` of the library. Every function here validates its C arguments (NULL
pointers, sizes, handles), runs the ordinary Python API (:func:`movecore.solve`,
:func:`movecore.reach`, :func:`movecore.reach_many`, ``Reach.path``) and copies the
answer into the caller's buffers. Nothing escapes as an exception: each failure becomes
a negative ``mc_status`` and a message for ``mc_last_error()``.

Status codes and constants are read from ``lib`` (that is, from ``movecore.h``).
"""
from __future__ import annotations

import itertools
import json
import threading
from dataclasses import dataclass, field, replace

import numpy as np

import movecore as mc
from movecore.kernels import _types as T

ffi = lib = None          # set by install()
S: dict[str, int] = {}    # MC_* constants of movecore.h, set by install()

GRIDS = {0: ("hex", None), 1: ("square", 4), 2: ("square", 8)}
MODES = {0: "pass", 1: "block", 2: "pass_end"}
KNOWN_FLAGS = int(T.CELL_BLOCKED | T.CELL_STOP | T.CELL_NO_END)


class _Fail(Exception):
    """A C-level argument error: status name and message."""

    def __init__(self, status: str, message: str):
        super().__init__(message)
        self.status = status


# Most specific first: UnknownGameError is a ScenarioError.
_ERRORS = ((mc.ScenarioError, "MC_E_SCENARIO"), (mc.BoardError, "MC_E_BOARD"),
           (mc.PlacementError, "MC_E_PLACEMENT"), (mc.QueryError, "MC_E_QUERY"),
           (mc.LimitError, "MC_E_LIMIT"), (mc.MovecoreError, "MC_E_ARG"))


def _fail(status: str, message: str) -> int:
    lib._mc_set_error(message.encode("utf-8", "replace"))
    return S[status]


_API = []


def _api(fn):
    """Register ``fn`` as the body of ``_mcpy_<name>``; turn every exception into a status."""
    def body(*args):
        try:
            fn(*args)
            return S["MC_OK"]
        except _Fail as exc:
            return _fail(exc.status, str(exc))
        except mc.MovecoreError as exc:
            status = next(s for cls, s in _ERRORS if isinstance(exc, cls))
            return _fail(status, f"{type(exc).__name__}: {exc}")
        except MemoryError:
            return _fail("MC_E_LIMIT", "out of memory")
        except BaseException as exc:  # a bug: never let it reach the host
            return _fail("MC_E_INTERNAL", f"internal error in {fn.__name__}: "
                                          f"{type(exc).__name__}: {exc}")
    body.__name__ = fn.__name__
    _API.append((fn.__name__, body))
    return fn


# ------------------------------------------------------------------ C memory helpers
def _null(ptr) -> bool:
    return ptr == ffi.NULL


def _need(ptr, name: str) -> None:
    if _null(ptr):
        raise _Fail("MC_E_NULL", f"{name} is NULL")


def _read(ptr, n: int, dtype, name: str) -> np.ndarray:
    """A copy of ``n`` values of a caller array (``n`` already bounded)."""
    _need(ptr, name)
    dtype = np.dtype(dtype)
    return np.frombuffer(ffi.buffer(ptr, n * dtype.itemsize), dtype).copy()


def _write(ptr, values, dtype) -> None:
    a = np.ascontiguousarray(values, dtype=dtype)
    if a.size:
        ffi.memmove(ptr, a, a.nbytes)


def _set(ptr, value) -> None:
    ptr[0] = value


# ------------------------------------------------------------------ board registry
@dataclass(frozen=True, eq=False)
class _Entry:
    """What a handle names. Immutable: set_occupants swaps in a new entry, so a query
    that already took the entry keeps a consistent board + occupants."""

    board: mc.Board
    terrain_cost: tuple
    occupant: np.ndarray | None = None
    movers: dict = field(default_factory=dict)   # mc_mover fields -> Mover (shared)


_boards: dict[int, _Entry] = {}
_boards_lock = threading.Lock()
_handles = itertools.count(1)
_batch_lock = threading.Lock()   # numba's workqueue layer runs one parallel region at a time
_tls = threading.local()         # per host thread: last solve / batch answer (size queries)


def _entry(handle: int) -> _Entry:
    e = _boards.get(handle)
    if e is None:
        raise _Fail("MC_E_HANDLE", f"board handle {handle} is unknown or was freed")
    return e


_MOVER_FIELDS = ("team", "allies", "enemies", "climb_per_level", "climb_flat",
                 "max_climb", "descend_per_level", "corner_cutting")
_DEFAULT_MOVER = (0, 0, 1, 0, 0, -1, 0, 1)   # mc_mover_init


def _mover(e: _Entry, ptr) -> mc.Mover:
    key = _DEFAULT_MOVER if _null(ptr) else tuple(int(getattr(ptr, f))
                                                 for f in _MOVER_FIELDS)
    m = e.movers.get(key)
    if m is None:
        team, allies, enemies, cpl, cf, max_climb, dpl, cut = key
        for name, mode in (("allies", allies), ("enemies", enemies)):
            if mode not in MODES:
                raise _Fail("MC_E_ARG", f"mover.{name} is {mode}; expected MC_PASS (0), "
                                        f"MC_BLOCK (1) or MC_PASS_END (2)")
        if max_climb < -1:
            raise _Fail("MC_E_ARG", f"mover.max_climb is {max_climb}; expected -1 "
                                    f"(unlimited) or a number of levels >= 0")
        if cut not in (0, 1):
            raise _Fail("MC_E_ARG", f"mover.corner_cutting is {cut}; expected 0 or 1")
        if team < 0:
            raise _Fail("MC_E_ARG", f"mover.team is {team}; expected a team id >= 0")
        try:   # every bad mover field is MC_E_ARG (docs/c_api.md), a too-large one too
            m = mc.Mover(terrain_cost=list(e.terrain_cost), climb_per_level=cpl,
                         climb_flat=cf, max_climb=None if max_climb == -1 else max_climb,
                         descend_per_level=dpl, team=team, allies=MODES[allies],
                         enemies=MODES[enemies], corner_cutting=bool(cut))
        except mc.MovecoreError as exc:
            raise _Fail("MC_E_ARG", f"mover: {exc}") from None
        if len(e.movers) > 64:
            e.movers.clear()
        e.movers[key] = m
    return m


# ------------------------------------------------------------------ the API
@_api
def solve_json(scenario, out, out_len, needed):
    _need(scenario, "scenario")
    if _null(out) and _null(needed):
        raise _Fail("MC_E_NULL", "out and needed are both NULL: pass out (with out_len) "
                                 "for the result, or needed to ask its size")
    raw = ffi.string(scenario)
    last = getattr(_tls, "solved", None)
    if last is not None and last[0] == raw:
        answer = last[1]
    else:
        try:
            data = json.loads(raw.decode("utf-8"))
        except UnicodeDecodeError as exc:
            raise _Fail("MC_E_JSON", f"scenario is not UTF-8 text: {exc}") from None
        except (ValueError, RecursionError) as exc:
            raise _Fail("MC_E_JSON", f"scenario is not valid JSON: {exc}") from None
        result = mc.solve(data)
        answer = json.dumps(result, separators=(",", ":")).encode("utf-8") + b"\0"
        _tls.solved = (raw, answer)
    if not _null(needed):
        _set(needed, len(answer))
    if _null(out):
        return
    if out_len < len(answer):
        if out_len > 0:
            out[0] = b"\0"
        raise _Fail("MC_E_BUFFER", f"out_len {out_len} is too small: the result needs "
                                   f"{len(answer)} bytes (terminating NUL included)")
    ffi.memmove(out, answer, len(answer))
    _tls.solved = None     # delivered: do not keep the text alive


@_api
def board_create(grid, coords, cost, height, flags, n_cells, board):
    _need(board, "board (the handle out-pointer)")
    _set(board, 0)
    if grid not in GRIDS:
        raise _Fail("MC_E_ARG", f"grid is {grid}; expected MC_GRID_HEX (0), "
                                f"MC_GRID_SQUARE4 (1) or MC_GRID_SQUARE8 (2)")
    if n_cells == 0:
        raise _Fail("MC_E_ARG", "n_cells is 0; a board needs at least one cell")
    if n_cells > T.MAX_CELLS:
        raise _Fail("MC_E_LIMIT", f"n_cells is {n_cells}; at most {T.MAX_CELLS} cells "
                                  f"are supported")
    n = int(n_cells)
    xy = _read(coords, 2 * n, np.int32, "coords").reshape(n, 2)
    costs = np.ones(n, np.int32) if _null(cost) else _read(cost, n, np.int32, "cost")
    bad = np.flatnonzero((costs < -1) | (costs > T.MAX_COST))
    if bad.size:
        i = int(bad[0])
        raise _Fail("MC_E_LIMIT" if costs[i] > 0 else "MC_E_ARG",
                    f"cost[{i}] is {costs[i]}; expected -1 (cannot be entered) or a cost "
                    f"in [0, {T.MAX_COST}]")
    heights = None if _null(height) else _read(height, n, np.int32, "height")
    cell_flags = None if _null(flags) else _read(flags, n, np.uint8, "flags")
    if cell_flags is not None:
        bad = np.flatnonzero(cell_flags & ~np.uint8(KNOWN_FLAGS))
        if bad.size:
            i = int(bad[0])
            raise _Fail("MC_E_ARG", f"flags[{i}] is {cell_flags[i]}; expected a "
                                    f"combination of MC_CELL_BLOCKED (1), MC_CELL_STOP (2) "
                                    f"and MC_CELL_NO_END (4)")
    table = np.unique(costs)
    terrain = np.searchsorted(table, costs).astype(np.int32)
    kind, k = GRIDS[grid]
    if kind == "hex":
        b = mc.Board.hex(xy, terrain=terrain, height=heights, flags=cell_flags)
    else:
        b = mc.Board.square_cells(xy, neighbours=k, terrain=terrain, elevation=heights,
                                  flags=cell_flags)
    entry = _Entry(b, tuple(int(c) for c in table))
    handle = next(_handles)
    with _boards_lock:
        _boards[handle] = entry
    _set(board, handle)


@_api
def board_free(board):
    with _boards_lock:
        if _boards.pop(board, None) is None:
            raise _Fail("MC_E_HANDLE", f"board handle {board} is unknown or was already "
                                       f"freed")


@_api
def board_cell_count(board, n_cells):
    _need(n_cells, "n_cells")
    _set(n_cells, _entry(board).board.n_cells)


@_api
def board_find(board, q, r, cell):
    _need(cell, "cell")
    _set(cell, int(_entry(board).board.find((int(q), int(r)))))


@_api
def board_set_occupants(board, occupant, n):
    e = _entry(board)
    if _null(occupant):
        occ = None
    else:
        if n != e.board.n_cells:
            raise _Fail("MC_E_ARG", f"n is {n}; the occupant array needs one value per "
                                    f"cell ({e.board.n_cells})")
        occ = _read(occupant, e.board.n_cells, np.int32, "occupant")
        bad = np.flatnonzero(occ < T.OCC_WALL)
        if bad.size:
            i = int(bad[0])
            raise _Fail("MC_E_ARG", f"occupant[{i}] is {occ[i]}; expected a team id >= 0, "
                                    f"MC_OCC_EMPTY (-1) or MC_OCC_WALL (-2)")
    with _boards_lock:
        if _boards.get(board) is not e:
            e = _entry(board)
        _boards[board] = replace(e, occupant=occ)


def _reach(e: _Entry, mover_ptr, start, budget):
    return mc.reach(e.board, _mover(e, mover_ptr), int(start), int(budget),
                    occupant=e.occupant)


@_api
def board_reach(board, mover, start, budget, cells, costs, stopped, parents, cap,
                n_ends):
    e = _entry(board)
    _need(n_ends, "n_ends")
    size_only = _null(cells) and _null(costs)
    if not size_only:
        _need(cells, "cells")
        _need(costs, "costs")
    r = _reach(e, mover, start, budget)
    n = len(r)
    _set(n_ends, n)
    if size_only:
        return
    if cap < n:
        raise _Fail("MC_E_BUFFER", f"cap {cap} is too small: this reach has {n} ends "
                                   f"(n_cells, {e.board.n_cells}, always suffices)")
    _write(cells, r.cells, np.int32)
    _write(costs, r.costs, np.int32)
    if not _null(stopped):
        _write(stopped, r.stopped, np.uint8)
    if not _null(parents):
        _write(parents, r.parents, np.int32)


@_api
def board_path(board, mover, start, budget, end, path, cap, length):
    e = _entry(board)
    _need(length, "length")
    r = _reach(e, mover, start, budget)
    p = r.path(int(end))
    _set(length, len(p))
    if _null(path):
        return
    if cap < len(p):
        raise _Fail("MC_E_BUFFER", f"cap {cap} is too small: the path has {len(p)} cells")
    _write(path, p, np.int32)


@_api
def board_reach_batch(board, mover, starts, budgets, n_queries, offsets, cells, costs,
                      stopped, cap, total):
    e = _entry(board)
    _need(total, "total")
    size_only = _null(offsets) and _null(cells) and _null(costs)
    if not size_only:
        _need(offsets, "offsets")
        _need(cells, "cells")
        _need(costs, "costs")
    if n_queries > 1 << 26:
        raise _Fail("MC_E_LIMIT", f"n_queries is {n_queries}; at most {1 << 26} per batch")
    q = int(n_queries)
    s = _read(starts, q, np.int32, "starts") if q else np.zeros(0, np.int32)
    b = _read(budgets, q, np.int32, "budgets") if q else np.zeros(0, np.int32)
    m = _mover(e, mover)
    key = (e, m, s.tobytes(), b.tobytes())
    last = getattr(_tls, "batch", None)
    if last is not None and last[0] == key:
        res = last[1]
    elif q == 0:
        res = (np.zeros(1, np.int64), np.zeros(0, np.int32), np.zeros(0, np.int32),
               np.zeros(0, np.uint8))
    else:
        with _batch_lock:
            rb = mc.reach_many(e.board, m, s.tolist(), b.tolist(), occupant=e.occupant)
        res = (rb.offsets, rb.cells, rb.costs, rb.stopped)
    _tls.batch = None
    n = int(res[0][-1])
    _set(total, n)
    if size_only:
        _tls.batch = (key, res)
        return
    if cap < n:
        _tls.batch = (key, res)
        raise _Fail("MC_E_BUFFER", f"cap {cap} is too small: the batch has {n} ends in all")
    _write(offsets, res[0], np.int64)
    _write(cells, res[1], np.int32)
    _write(costs, res[2], np.int32)
    if not _null(stopped):
        _write(stopped, res[3], np.uint8)


# ------------------------------------------------------------------ wiring
def install(ffi_, lib_) -> None:
    """Attach every ``_mcpy_*`` body to the library (called once by its init code)."""
    global ffi, lib
    ffi, lib = ffi_, lib_
    for name in dir(lib_):
        if name.startswith("MC_"):
            S[name] = getattr(lib_, name)
    for name, body in _API:
        ffi_.def_extern(name=f"_mcpy_{name}", error=S["MC_E_INTERNAL"])(body)
