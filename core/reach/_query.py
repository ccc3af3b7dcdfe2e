"""Preparation: a validated query packed into the arrays the kernels read.

:func:`_prepare` checks the board, mover and layers, fills the kernel parameters and
picks the kernel (:class:`_Query`: everything but the start and the budget);
:func:`_pack` lays the board and the mover's terrain rule out in one int32 block
(``reach1``'s and ``reach_pen``'s ``blob``), cached on the board per rule.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass

import numpy as np

from ..board import Board
from ..errors import LimitError, QueryError, describe
from ..kernels import _types as T
from ..kernels.reach import (H_ANY_STOP, H_HILLY, H_PLAIN, HDR, PL_BLOCKED, PL_NO_END,
                             PL_OK, is_plain)
from ..mover import OCCUPANCY_MODES, Mover
from ._kernels import _KERNELS, _REACH1, _REACH1_ONE, _kernel_named, _plain_entries
from ._validate import _layer, _occupant


#: The package :mod:`movecore.reach`, where its settings live (``_FAST_MAX_STACK``):
#: read from it at each call, so assigning one there (as the tests do) takes effect here.
_settings = sys.modules[__package__]

#: The penalty levels tracked when a query gives a penalty layer and no ``max_penalty``.
DEFAULT_MAX_PENALTY = 15


@dataclass(frozen=True)
class _Query:
    """Validated, packed arrays of one query shape (everything but start and budget)."""

    board: Board
    rule: np.ndarray
    occupant: np.ndarray
    qflags: np.ndarray
    zoc: np.ndarray
    leave: np.ndarray
    enter_pen: np.ndarray
    params: np.ndarray
    blob: np.ndarray | None = None   # fast path: board + mover packed (n_pen == 1)
    top: int = -1                    # params[P_BUDGET] and params[P_N_BUCKETS] as ints
    nb: int = 1
    kernel: object = None            # fast path: reach1_plain or reach1_general (entry)
    one: object = None               # its 5-argument single query (reach1_one_*), when
    #                                  no layer is given and nobody stands on the board
    n: int = 0                       # cells of the board
    own_occupant: bool = False       # occupant is this query's own copy (set_layer)
    pblob: np.ndarray | None = None  # penalty fast path: the same packing, for reach_pen
    fast: object = None              # batches: reach_plain_k's (same signature as
    #                                  kernel, ends mode; hands anything else to reach1)

    def __getstate__(self) -> dict:
        """Pickled with its compiled entry points named, not pickled (see _KERNELS)."""
        state = dict(self.__dict__)
        for k in ("kernel", "one", "fast"):
            f = state[k]
            if f is not None:
                state[k] = _KERNELS[id(f)][0]
        return state

    def __setstate__(self, state: dict) -> None:
        for k in ("kernel", "one", "fast"):
            if state[k] is not None:
                state[k] = _kernel_named(state[k])
        self.__dict__.update(state)

    def layers(self):
        b = self.board
        return (b.nbr, b.link_ptr, b.link_data, b.cell_data, b.edges, b.diag_sides,
                self.rule, self.occupant, self.qflags, self.zoc, self.leave, self.enter_pen,
                self.params)


def _prepare(board, mover, budget, occupant, cell_flags, zoc, leave, enter_penalty,
             leave_weight, max_penalty, breadth_first: bool = True) -> _Query:
    if not isinstance(board, Board):
        raise QueryError(f"board must be a movecore.Board; got {describe(board)}")
    if not isinstance(mover, Mover):
        raise QueryError(f"mover must be a movecore.Mover; got {describe(mover)}")
    n = board.n_cells
    top_terrain = board._fact("max_terrain")
    if mover.terrain_cost is not None and top_terrain >= len(mover.terrain_cost):
        # (an id past the table would read as "cannot enter": a silent wrong answer)
        cell = int(np.flatnonzero(board.cell_data[:, 0] >= len(mover.terrain_cost))[0])
        raise QueryError(f"the board has terrain id {int(board.cell_data[cell, 0])} (at "
                         f"{list(board.coord(cell))}) but the mover's terrain_cost has "
                         f"{len(mover.terrain_cost)} entries (ids 0.."
                         f"{len(mover.terrain_cost) - 1}); give every id a cost (-1 = "
                         f"cannot enter)")
    rule = mover.terrain_rule(top_terrain + 1)
    occ = _occupant(board, occupant)
    qflags = _layer(cell_flags, n, np.uint8, "cell_flags")
    zoc_a = _layer(zoc, n, np.uint64, "zoc")
    leave_a = _layer(leave, n, np.uint64, "leave")
    pen_a = _layer(enter_penalty, n, T.INDEX, "enter_penalty")
    penalties = leave is not None or enter_penalty is not None
    if max_penalty is None:
        max_penalty = DEFAULT_MAX_PENALTY if penalties else 0
    if not isinstance(max_penalty, (int, np.integer)) or isinstance(max_penalty, bool) \
            or not 0 <= max_penalty < T.MAX_PENALTY_LEVELS:
        raise LimitError(f"max_penalty must be an integer in [0, "
                         f"{T.MAX_PENALTY_LEVELS - 1}]; got {describe(max_penalty)}")
    if not isinstance(leave_weight, (int, np.integer)) or isinstance(leave_weight, bool) \
            or not 0 <= leave_weight <= 1 << 16:
        raise LimitError(f"leave_weight must be an integer in [0, 65536]; got "
                         f"{describe(leave_weight)}")
    n_pen = int(max_penalty) + 1 if penalties else 1
    # Largest single step: bounds the ring of buckets (costs inside it are distinct mod B).
    span = board._fact("height_span")
    if mover.max_climb is not None:
        span_up = min(span, mover.max_climb)
    else:
        span_up = span
    rise_cost = mover.climb_per_level * span_up + (mover.climb_flat if span_up else 0)
    step = max(int(rule[:, 0].max()) + board._fact("max_edge_cost") + max(
        rise_cost, mover.descend_per_level * span), board._fact("max_link_cost"))
    link_mask = mover.link_mask
    if not isinstance(breadth_first, (bool, np.bool_)):
        raise QueryError(f"breadth_first must be True or False; got "
                         f"{describe(breadth_first)}")
    # every step costs 1: a FIFO queue (breadth-first) instead of the cost buckets; the
    # two settle ties between paths of equal cost in other orders (see prepare())
    unit = (bool(breadth_first) and n_pen == 1 and set(rule[:, 0].tolist()) <= {-1, 1}
            and (span == 0 or (mover.climb_per_level == 0 and mover.climb_flat == 0
                               and mover.descend_per_level == 0))
            and board._fact("max_edge_cost") == 0
            and all(c == 1 for k, c in board._fact("link_costs") if (link_mask >> k) & 1))
    params = np.zeros(T.N_PARAMS, np.int64)
    params[T.P_BUDGET] = budget
    params[T.P_TEAM] = mover.team
    params[T.P_ALLY] = OCCUPANCY_MODES[mover.allies]
    params[T.P_ENEMY] = OCCUPANCY_MODES[mover.enemies]
    params[T.P_CLIMB_PER_LEVEL] = mover.climb_per_level
    params[T.P_CLIMB_FLAT] = mover.climb_flat
    params[T.P_MAX_CLIMB] = -1 if mover.max_climb is None else mover.max_climb
    params[T.P_LINK_MASK] = link_mask
    params[T.P_N_PEN] = n_pen
    params[T.P_LEAVE_WEIGHT] = leave_weight
    params[T.P_CORNER_CUT] = 1 if mover.corner_cutting else 0
    params[T.P_N_BUCKETS] = min(step, budget) + 1
    params[T.P_DESCEND_PER_LEVEL] = mover.descend_per_level
    params[T.P_UNIT] = 1 if unit else 0
    params[T.P_HAS_OCC] = occupant is not None and bool((occ != T.OCC_EMPTY).any())
    blob = kernel = one = fast = None
    max_stack = _settings._FAST_MAX_STACK
    if n_pen == 1 and int(params[T.P_N_BUCKETS]) * n <= max_stack:
        blob = _pack(board, rule)
        plain = bool(is_plain(blob, qflags, zoc_a, params))
        kernel = _REACH1[plain]
        if qflags.size == 0 and zoc_a.size == 0 and not params[T.P_HAS_OCC]:
            one = _REACH1_ONE[plain]
        if plain:
            fast = _plain_kernels(board, blob, params)
            if fast is not None and one is not None:
                one = fast[1]
    pblob = None
    if n_pen > 1 and int(params[T.P_N_BUCKETS]) * n * n_pen <= max_stack:
        pblob = _pack(board, rule)  # penalties: reach_pen over the same packing
    return _Query(board, rule, occ, qflags, zoc_a, leave_a, pen_a, params, blob,
                  int(budget), int(params[T.P_N_BUCKETS]), kernel, one, n,
                  occupant is not None, pblob=pblob, fast=fast and fast[0])


def _plain_kernels(board, blob, params):
    """(batch, one) of ``reach_plain_k`` for a plain query when its board and mover fit
    it (K of 4, 6 or 8, the plain section usable, no cell that may not be ended on,
    budget below the blocked cost, climbing paid per level only), else None."""
    K = board.nbr.shape[1]
    sec = int(blob[blob[H_PLAIN]])
    if K not in (4, 6, 8) or not sec & PL_OK or sec & PL_NO_END or \
            int(params[T.P_BUDGET]) >= PL_BLOCKED:
        return None
    climbs = bool(blob[H_HILLY]) and bool(params[T.P_CLIMB_PER_LEVEL] or
                                          params[T.P_CLIMB_FLAT] or
                                          params[T.P_DESCEND_PER_LEVEL] or
                                          params[T.P_MAX_CLIMB] >= 0)
    if climbs and (params[T.P_CLIMB_FLAT] or params[T.P_DESCEND_PER_LEVEL] or
                   params[T.P_MAX_CLIMB] >= 0):
        return None
    return _plain_entries(K, climbs, bool(params[T.P_UNIT]))


def _pack(board: Board, rule: np.ndarray) -> np.ndarray:
    """The board and a mover's terrain rule in one int32 array (``reach1``'s ``blob``),
    cached on the board per rule."""
    key = ("fast_blob", rule.tobytes())
    blob = board._cache.get(key)
    if blob is not None:
        return blob
    cd = board.cell_data
    entry = rule[cd[:, 0], 0].astype(T.INDEX)
    entry[(cd[:, 2] & T.CELL_BLOCKED) != 0] = -1
    flags = cd[:, 2] | np.where(rule[cd[:, 0], 1] & T.TERRAIN_STOP, T.CELL_STOP, 0)
    cinfo = np.stack([entry, flags.astype(T.INDEX), cd[:, 1], cd[:, 0]], axis=1)
    parts = [board.nbr, board.link_ptr, board.link_data, board.cell_data, board.edges,
             board.diag_sides, rule, cinfo]
    head = np.zeros(HDR, T.INDEX)
    head[:5] = (board.n_cells, board.nbr.shape[1], board.link_data.shape[0],
                rule.shape[0], board.edges.shape[0])
    head[H_ANY_STOP] = bool((flags & T.CELL_STOP).any())
    head[H_HILLY] = board.n_cells > 0 and bool((cd[:, 1] != cd[0, 1]).any())
    # the plain section (``reach_plain_k``): PL_* bits, a pad word (cell -1), then
    # entry cost (PL_BLOCKED: cannot enter) | height above the lowest << 16 per cell
    low = int(cd[:, 1].min()) if board.n_cells else 0
    rel = cd[:, 1].astype(np.int64) - low
    words = np.where(entry < 0, PL_BLOCKED, entry).astype(np.int64) | (rel << 16)
    ok = board.n_cells == 0 or (int(entry.max()) < PL_BLOCKED and int(rel.max()) < 1 << 15)
    no_end = bool(((cd[:, 2] & T.CELL_NO_END) != 0)[entry >= 0].any())
    plain = np.zeros(board.n_cells + 2, T.INDEX)
    plain[0] = (PL_OK if ok else 0) | (PL_NO_END if no_end else 0)
    plain[1] = PL_BLOCKED
    if ok:
        plain[2:] = words.astype(np.uint32).view(T.INDEX)
    parts.append(plain)
    off = HDR
    for i, a in enumerate(parts):
        if i == 8:
            head[H_PLAIN] = off
        else:
            head[5 + i] = off
        off += a.size
    blob = np.concatenate([head] + [np.ascontiguousarray(a, T.INDEX).ravel() for a in parts])
    if len(board._cache) > 64:
        for k in [k for k in list(board._cache)   # (a snapshot: threads share boards)
                  if isinstance(k, tuple) and k[0] == "fast_blob"]:
            board._cache.pop(k, None)
    board._cache[key] = blob
    return blob


def _budget_params(q: _Query, budget: int) -> np.ndarray:
    """A copy of ``q``'s int64 parameters for a smaller ``budget`` (the general kernel
    reads the budget and its ring of buckets from them)."""
    params = q.params.copy()
    params[T.P_BUDGET] = budget
    params[T.P_N_BUCKETS] = min(int(q.params[T.P_N_BUCKETS]) - 1, budget) + 1
    return params
