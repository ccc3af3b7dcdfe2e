"""Falls of the Heroscape live position (:mod:`.heroscape_position`) at kernel speed.

A walker in the master game may fall where the battlefield drops at least its Height.
Every end reports (as the reference :func:`movecore.games.heroscape.moves` does):

* ``fall``: the worst step of the least-cost path, the path the reference reads off its
  search tree. The position's query keeps the same tree: the penalty kernel's (a walker
  with leaving attacks), or the packed kernel's tree mode run once more (a query without
  penalties, where the ends came from the ordered kernel); :func:`end_falls` walks it back
  from each end in one compiled call.
* ``least_fall`` and ``least_fall_cost``: searches on the battlefield (or placement graph)
  without the steps of a fall (drop >= Height onto dry land), then without those of a
  major one (>= Height + 10), as the reference does; an end is in the first that reaches
  it. The cut boards (``heroscape._fall_limited``) and their packed queries are built once
  per battlefield, mover kind and drop, and shared by every copy of the position. They run
  only when needed: an end whose least-cost path does not fall has ``least_fall`` none at
  its cost; one whose least-cost path falls minor needs only the first cut search (if it
  is not there, its least fall is minor at its cost); the second runs only for an end
  whose least-cost path falls major and that the first does not reach.
"""
from __future__ import annotations

import functools

import numpy as np
from numba import njit, types

from ..kernels import _types as T
from ..kernels._types import CACHE
from ..reach import _entry_point, _fast_workspace
from . import heroscape as hs

i64 = types.int64
I32_A = types.int32[:]
I32_2A = types.int32[:, :]
I64_1 = types.int64[::1]
B_1 = types.boolean[::1]

_TREE_MODE = np.zeros((3, 0), T.INDEX)    # reach1: no end columns = tree mode
_NO_QUERIES = np.zeros((0, 3), np.int64)
_NO_I64 = np.zeros(0, np.int64)


@njit(types.void(I32_2A, I32_A, I32_A, i64, I32_A, I64_1, B_1, i64, i64, I64_1, I64_1,
                 I64_1, I32_A), cache=CACHE, nogil=True)
def end_falls(tree, end_cell, end_row, n, actions, level, wet, height, double, lead,
              flip, pos, out):
    """Per end ``actions[e]``: the worst fall (0 none, 1 minor, 2 major) of the search
    tree's path to it: ``end_row[r]`` is the tree row of the end ``end_cell[r]`` (its
    least-cost arrival), ``tree[row]`` = (cell, cost, stopped, parent row). A step onto
    water (or lava) is no fall; for a placement (``double``) a step is the lead's, a flip
    is none. ``pos`` (int64[cells], all -1) is scratch, left as found."""
    for r in range(n):
        pos[end_cell[r]] = r
    for e in range(actions.shape[0]):
        r = pos[actions[e]]
        worst = 0
        row = end_row[r]
        while row >= 0:
            par = tree[row, 3]
            if par < 0:
                break
            u = tree[par, 0]
            v = tree[row, 0]
            step = True
            if double:
                if flip[u] == v:
                    step = False
                u = lead[u]
                v = lead[v]
            if step and not wet[v]:
                d = level[u] - level[v]
                if d >= height + 10:
                    worst = 2
                elif d >= height and worst == 0:
                    worst = 1
            row = par
        out[e] = worst
    for r in range(n):
        pos[end_cell[r]] = -1


@njit(types.void(I32_2A, i64, I32_A, i64, I64_1, I64_1, I32_A), cache=CACHE, nogil=True)
def limited_costs(ends, n, actions, double, flip, pos, out):
    """Per end ``actions[e]``: its least cost in a search's ends (``ends`` int32[3, R]:
    cell, cost, stopped; ``n`` of them), the least of both orientations for a
    placement (``double``); -1 where that search does not reach it. ``pos`` as in
    :func:`end_falls`."""
    for r in range(n):
        pos[ends[0, r]] = ends[1, r]
    for e in range(actions.shape[0]):
        a = actions[e]
        c = pos[a]
        if double:
            c2 = pos[flip[a]]
            if c2 >= 0 and (c < 0 or c2 < c):
                c = c2
        out[e] = c
    for r in range(n):
        pos[ends[0, r]] = -1


@functools.lru_cache(maxsize=None)
def _jit():
    return {name: _entry_point(f) for name, f in (("end_falls", end_falls),
                                                   ("limited_costs", limited_costs))}


def _limited(pos, kind, double: bool, drop: int):
    """The kind's query on the battlefield (placement graph) without the steps that drop
    ``drop`` levels or more onto dry land: built once, shared by the position's copies."""
    st = pos._st
    cache = st.__dict__.setdefault("_fall_kinds", {})
    key = (id(kind), drop)
    k = cache.get(key)
    if k is None:
        if double:
            pl = st.pl
            b = hs._fall_limited(pl.board, st.level[pl.lead], st.field.wet[pl.lead], drop)
        else:
            b = hs._fall_limited(st.board, st.level, st.field.wet, drop)
        k = cache[key] = type(kind)(b, kind.mover, kind.qflags)
    return k


def _scratch(pos, size: int) -> np.ndarray:
    s = pos._bufs.get("fallpos")
    if s is None or s.shape[0] != size:
        s = pos._bufs["fallpos"] = np.full(size, -1, np.int64)
    return s


def _tree(kind, occupant, qflags, start: int, budget: int, src):
    """(tree, end cells, end rows, n) of the kind's query without penalties, from the
    kernel the reference runs: the packed one's tree mode, or the general one where the
    battlefield is too large for the packed kernel."""
    q = kind.fast
    if q.blob is None:
        rows = kind.run_general(q, occupant, qflags, q.leave, start, budget, src)
        return kind.tree, rows[:, 0], rows[:, 3], rows.shape[0]
    ws = _fast_workspace(q.n, q.nb)
    nk = q.kernel(q.blob, occupant, qflags, q.zoc, q.params, ws.buf, _TREE_MODE,
                  _NO_QUERIES, start, budget)
    n = nk & 0xFFFFFFFF
    k = nk >> 32
    out = ws.out
    tree = out[:4 * k].reshape(k, 4)
    base = 4 * k
    return tree, out[base:base + n], out[base + 3 * n:base + 4 * n], n


def fill(pos, i: int, kind, occupant, qflags, start: int, budget: int, actions, costs,
         cols: dict, rows=None, tree=None) -> None:
    """The columns ``fall``, ``least_fall`` and ``least_fall_cost`` of the ends
    ``actions`` (costs ``costs``) of figure i's query on ``kind`` with ``occupant`` and
    ``qflags`` from ``start``: ``rows`` and ``tree`` are the penalty kernel's end rows
    and search tree when it answered, else the tree is made here."""
    st = pos._st
    J = _jit()
    double = 1 if kind.board is not st.board else 0
    size = kind.board.n_cells
    scratch = _scratch(pos, size)
    E = actions.shape[0]
    src = pos._buf("src", (1,), T.INDEX)
    if rows is None:
        tree, cells, trows, n = _tree(kind, occupant, qflags, start, budget, src)
    else:
        cells, trows, n = rows[:, 0], rows[:, 3], rows.shape[0]
    lead, flip = (st.lead, st.flip) if double else (_NO_I64, _NO_I64)
    height = int(pos.height[i])
    level, wet = st.level64, st.field.wet
    fall = np.empty(E, T.INDEX)
    J["end_falls"](tree, cells, trows, n, actions, level, wet, height, double, lead, flip,
                   scratch, fall)
    least = np.zeros(E, T.INDEX)
    lcost = costs.copy()
    todo = np.flatnonzero(fall)
    if todo.size:
        ends = pos._buf("fallends", (3, size), T.INDEX)
        queries = pos._buf("q1", (1, 3), np.int64)
        got = np.empty(E, T.INDEX)
        for worst, drop in enumerate((height, height + 10)):
            # ends still to place whose least-cost path falls worse than ``worst``
            lk = _limited(pos, kind, bool(double), drop)
            queries[0, 0] = start
            queries[0, 1] = budget
            m = lk.run_fast(occupant, qflags, queries, ends, _NO_I64)
            J["limited_costs"](ends, m, actions, double, flip, scratch, got)
            hit = got[todo] >= 0
            least[todo[hit]] = worst
            lcost[todo[hit]] = got[todo[hit]]
            todo = todo[~hit]
            # not reached: the least fall is the least-cost path's if it is the next
            # one up (that path is on the next cut board, at the end's cost)
            least[todo] = fall[todo]
            todo = todo[fall[todo] > worst + 1]
            if not todo.size:
                break
    cols["fall"] = fall
    cols["least_fall"] = least
    cols["least_fall_cost"] = lcost
