"""Falls of the Heroscape live position (:mod:`.position`) at kernel speed.

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

from ...errors import LimitError
from ...kernels import _types as T
from ...kernels._types import CACHE
from ...position import LazyColumns
from ...reach import entry_point as _entry_point
from . import _entry as _P   # (the compiled helpers; the position imports this module)
from . import rules as hs

i64 = types.int64
I32_A = types.int32[:]
I32_2A = types.int32[:, :]
I64_1 = types.int64[::1]
B_1 = types.boolean[::1]

_NO_I64 = np.zeros(0, np.int64)
_NO_LEAVE = np.zeros(0, np.uint64)   # no penalty layer


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
    """Per end ``actions[e]``: its least cost in a search's ends (``ends`` int32[>=2, R]:
    cell, cost; ``n`` of them), the least of both orientations for a placement
    (``double``); -1 where that search does not reach it. ``pos`` as in
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


@njit(types.void(I32_A, I32_A, I32_A, I32_A, i64, I32_A, i64, I64_1, I64_1, I64_1),
      cache=CACHE, nogil=True)
def pick_rows(end_cell, k1, k2, sel, n, actions, double, flip, pos, out):
    """Per end ``actions[e]``: ``sel`` of its end row (a tree row), -1 if none; for a
    placement (``double``) of the row of it or of its flip with the least
    (``k1``, ``k2``), it (the listed placement) on a tie, as the reference picks it: so
    a path ends in the listed placement wherever that does as well, whatever order the
    search settled the two in. ``pos`` as in :func:`end_falls`."""
    for r in range(n):
        pos[end_cell[r]] = r
    for e in range(actions.shape[0]):
        a = actions[e]
        r = pos[a]
        if double:
            f = pos[flip[a]]
            if f >= 0 and (r < 0 or k1[f] < k1[r] or (k1[f] == k1[r] and
                                                      k2[f] < k2[r])):
                r = f
        out[e] = sel[r] if r >= 0 else -1
    for r in range(n):
        pos[end_cell[r]] = -1


@njit(types.int64[::1](I32_2A, I64_1, I64_1), cache=CACHE, nogil=True)
def walk(tree, rows, off):
    """The tree's paths (start to end) to ``rows``, one after another: path e is
    ``flat[off[e]:off[e + 1]]``."""
    E = rows.shape[0]
    total = 0
    for e in range(E):
        row = rows[e]
        while row >= 0:
            total += 1
            row = tree[row, 3]
    flat = np.empty(total, np.int64)
    k = 0
    for e in range(E):
        off[e] = k
        row = rows[e]
        m = 0
        while row >= 0:
            m += 1
            row = tree[row, 3]
        row = rows[e]
        j = k + m - 1
        while row >= 0:
            flat[j] = tree[row, 0]
            j -= 1
            row = tree[row, 3]
        k += m
    off[E] = k
    return flat


@functools.lru_cache(maxsize=None)
def _jit():
    return {name: _entry_point(f) for name, f in (
        ("end_falls", end_falls), ("limited_costs", limited_costs),
        ("pick_rows", pick_rows), ("walk", walk))}


def _limited(pos, kind, double: bool, drop: int):
    """The kind's query on the battlefield (placement graph) without the steps that drop
    ``drop`` levels or more onto dry land: built once, shared by the position's copies."""
    st = pos._st
    cache = st.__dict__.setdefault("_fall_kinds", {})
    key = (id(kind), drop)
    k = cache.get(key)
    if k is None:
        with st._lock:       # (built once, whichever copy's thread asks first)
            k = cache.get(key)
            if k is None:
                if double:
                    pl = st.pl
                    b = hs._fall_limited(pl.board, st.level[pl.lead],
                                         st.field.wet[pl.lead], drop)
                else:
                    b = hs._fall_limited(st.board, st.level, st.field.wet, drop)
                k = cache[key] = type(kind)(b, kind.mover, kind.qflags)
    return k


def _scratch(pos, size: int) -> np.ndarray:
    s = pos._bufs.get("fallpos")
    if s is None or s.shape[0] != size:
        s = pos._bufs["fallpos"] = np.full(size, -1, np.int64)
    return s


def _search(kind, occupant, qflags, start: int, budget: int, src):
    """(tree, ends) of the kind's query without penalties, from the kernel the reference
    runs: the packed one's tree mode, or the general one where the battlefield is too
    large for the packed kernel. ``ends``: int32[8, n] (cell, cost, stopped, row,
    penalty, penalty cost, penalty row, free cost), views of the kernel's workspace
    (valid until its next query)."""
    q = kind.fast
    if not q.fast:
        rows, tree = kind.run_general(q, occupant, qflags, _NO_LEAVE, start, budget, src)
        return tree, rows.T
    return q._tree_into(occupant, qflags, start, budget)


def _paths(tree, ends, actions, double, flip, scratch, field: int = 3, k1: int = 1,
           k2: int = 1) -> tuple:
    """(flat, off) of the tree paths to the ends ``actions``: the tree row ``field`` of
    each end's row (see :func:`pick_rows`)."""
    J = _jit()
    E = actions.shape[0]
    sel = np.empty(E, np.int64)
    J["pick_rows"](ends[0], ends[k1], ends[k2], ends[field], ends.shape[1], actions,
                   double, flip, scratch, sel)
    off = np.empty(E + 1, np.int64)
    return J["walk"](tree, sel, off), off


def fill(pos, i: int, info, kind, occupant, qflags, start: int, budget: int, actions,
         costs, cols: dict, q: dict, rows=None, tree=None, height: int = -1) -> dict:
    """The columns ``fall``, ``least_fall`` and ``least_fall_cost`` of the ends
    ``actions`` (costs ``costs``) of figure i's query on ``kind`` with ``occupant`` and
    ``qflags`` from ``start`` (a figure that may fall), and with ``paths`` in ``q`` the
    paths (kept for :func:`attach_paths`). ``rows`` and ``tree`` are the penalty
    kernel's end rows and search tree when it answered, else the search runs here.
    Returns ``cols`` with them; without paths, a :class:`LazyColumns` that makes them on
    first read from copies of this query's layers, rows and tree (an answer keeps
    answering for the position it was asked on after that changes)."""
    want = bool(q.get("paths")) if q else False
    if not (info.falls or want):
        return cols
    if not want and height < 0:
        return LazyColumns(cols, _fill_later, (
            pos, i, info, kind, occupant.copy(),
            qflags if qflags is kind.qflags else qflags.copy(), start, budget, actions,
            costs, q, None if rows is None else rows.copy(),
            None if tree is None else tree.copy(), int(pos.height[i])))
    st = pos._st
    J = _jit()
    double = 1 if info.double else 0
    size = kind.board.n_cells
    scratch = _scratch(pos, size)
    E = actions.shape[0]
    src = pos._buf("src", (1,), T.INDEX)
    if rows is None:
        tree, ends = _search(kind, occupant, qflags, start, budget, src)
    else:
        ends = rows.T
    n = ends.shape[1]
    lead, flip = (st.lead, st.flip) if double else (_NO_I64, _NO_I64)
    got: dict = {}
    if want:
        got["path"] = _paths(tree, ends, actions, 0, flip, scratch)
        # the least-attack path: its placement or its flip by (attacks, their cost)
        got["leaving_attacks_path"] = _paths(tree, ends, actions, double, flip, scratch,
                                             6, 4, 5) if rows is not None else \
            got["path"]
        got["least_fall_path"] = got["path"]
        pos._bufs["paths"] = got
    if not info.falls:
        return cols
    if height < 0:
        height = int(pos.height[i])
    fall = np.empty(E, T.INDEX)
    J["end_falls"](tree, ends[0], ends[3], n, actions, st.level64, st.field.wet, height,
                   double, lead, flip, scratch, fall)
    # ends still to place: those whose least-cost path falls (with paths: every end,
    # whose least-fall path is that of the first cut search that reaches it)
    todo = np.arange(E) if want else np.flatnonzero(fall)
    if not todo.size:        # no least-cost path falls: no fall at the least cost
        cols["fall"] = cols["least_fall"] = fall
        cols["least_fall_cost"] = costs
        return cols
    least = np.zeros(E, T.INDEX)
    lcost = costs.copy()
    got_c = np.empty(E, T.INDEX)
    lf_paths = [None, None]
    for worst, drop in enumerate((height, height + 10)):
        lk = _limited(pos, kind, bool(double), drop)
        lt, le = _search(lk, occupant, qflags, start, budget, src)
        J["limited_costs"](le, le.shape[1], actions, double, flip, scratch, got_c)
        hit = got_c[todo] >= 0
        least[todo[hit]] = worst
        lcost[todo[hit]] = got_c[todo[hit]]
        if want:
            lf_paths[worst] = _paths(lt, le, actions, double, flip, scratch, 3, 1, 1)
        todo = todo[~hit]
        # not reached: the least fall is the least-cost path's if it is the next
        # one up (that path is on the next cut board, at the end's cost)
        least[todo] = fall[todo]
        todo = todo[fall[todo] > worst + 1]
        if not todo.size and not (want and worst == 0 and (least == 1).any()):
            break
    if want:
        got["least_fall_path"] = (least, lf_paths, got["path"])
    cols["fall"] = fall
    cols["least_fall"] = least
    cols["least_fall_cost"] = lcost
    return cols


def _fill_later(pos, i: int, info, kind, occupant, qflags, start: int, budget: int,
                actions, costs, q: dict, rows, tree, height: int) -> dict:
    """:func:`fill`'s falls columns, made from the copies it kept."""
    return fill(pos, i, info, kind, occupant, qflags, start, budget, actions, costs, {}, q,
                *((rows, tree) if rows is not None else ()), height=height)


def _near(pos, i: int, reach_: int) -> list:
    """The enemies of figure i (indices, in play order) with a space within ``reach_``
    of one of its spaces (as the reference's ``_relevant_enemies``)."""
    c = pos._st.coords
    mine = c[pos._cells_of(i)]                               # [k, 2]
    js = np.flatnonzero(pos.alive & (pos.team != pos.team[i]))
    cells = pos.cells[js]                                    # [m, 2], -1: no space
    d = c[np.maximum(cells, 0)][:, :, None, :] - mine[None, None, :, :]
    dist = (np.abs(d[..., 0]) + np.abs(d[..., 1]) + np.abs(d.sum(-1))) // 2
    dist[cells < 0] = reach_ + 1
    return js[dist.min(axis=(1, 2)) <= reach_].tolist() if js.size else []


def near_layer(pos, i: int, info) -> np.ndarray:
    """The leave layer of one query of a position that held more than 64 figures: bit
    ``who_bits[b]`` for the b-th enemy within reach (both kept by :func:`many`), on the
    spaces (placements) where figure i would be adjacent to it. Made once per query."""
    got = pos._bufs.get("who_layer")
    if got is not None:
        return got
    st = pos._st
    J = _P._jit()
    row = np.zeros((1, st.n), np.uint64)
    team = np.array([pos.team[i]], np.int64)
    h = np.array([info.hclass], np.int64)
    for j, b in zip(pos._bufs["who_near"], pos._bufs["who_bits"]):
        J.leave_bits(row, _P._NO_NODES2, team, h, _NO_I64, _NO_I64, _P._NO_TOUCH,
                     st.nbr64, st.level64, pos.cells, pos.team, pos.height, j,
                     np.uint64(1) << np.uint64(b), 1)
    layer = row[0, st.lead] | row[0, st.trail] if info.double else row[0]
    pos._bufs["who_layer"] = layer
    return layer


#: Two enemies whose spaces are this close may be next to the spaces of one step (a
#: single-space mover's two, a double-space mover's three: all within one space of its
#: lead's), so they never share a bit of a crowd's leave layer.
_SHARED_STEP = 4


def _bits(pos, near: list) -> np.ndarray:
    """One bit (0..63) per enemy of a crowd (more than 64 within reach of a move), such
    that two enemies next to the spaces of one step never share one: a step's leaving
    attacks are then exactly the bits of the space (placement) it leaves that the one it
    enters lacks. Greedy colouring of the enemies within ``_SHARED_STEP`` spaces of each
    other, swept by position: a crowd on a full battlefield takes about 20 bits. More
    than 64 would need an enemy with 64 others within 4 spaces, all coloured apart (a
    single-space enemy has at most 60 spaces there; only a double-space one hemmed in by
    a solid pack of single-space ones could): a :class:`LimitError` naming it."""
    c = pos._st.coords
    cells = pos.cells[near]                                      # [m, 2], -1: none
    pts = c[np.maximum(cells, 0)].astype(np.int64)               # [m, 2, 2]
    d = pts[:, None, :, None, :] - pts[None, :, None, :, :]      # [m, m, 2, 2, 2]
    dist = (np.abs(d[..., 0]) + np.abs(d[..., 1]) + np.abs(d.sum(-1))) // 2
    ok = cells >= 0
    dist = np.where(ok[:, None, :, None] & ok[None, :, None, :], dist, _SHARED_STEP + 1)
    clash = dist.min(axis=(2, 3)) <= _SHARED_STEP
    bits = np.full(len(near), -1, np.int64)
    for k in np.lexsort((pts[:, 0, 1], pts[:, 0, 0])).tolist():
        taken = set(bits[clash[k]].tolist())
        b = 0
        while b in taken:
            b += 1
        if b >= 64:  # pragma: no cover (see above)
            raise LimitError(f"{len(near)} enemies within reach of figure "
                             f"{pos.ids[near[k]]!r}'s neighbours need more than 64 "
                             f"leave bits")
        bits[k] = b
    return bits


def many(pos, i: int, info, figure, budget: int, paths: bool, q: dict):
    """``legal_moves`` of a position that held more than 64 figures: the same queries,
    the leave layer made over the enemies within reach of this move and the who columns
    given as ids in ``to_dicts()`` (no mask columns). Up to 64 enemies within reach: one
    bit each, the who read off the kernels' bits. More (a crowd): bits shared by enemies
    never next to one step (:func:`_bits`), and the who read off the spaces: engaged
    with the enemies next to the end, attacked by those left on the least-attack path
    (the query then keeps its paths) or, for a flight, by those engaged at take-off."""
    reach_ = budget + 2 + (1 if info.double else 0)
    near = _near(pos, i, reach_)
    wide = len(near) > 64
    pos._bufs["who_near"] = near
    pos._bufs["who_bits"] = _bits(pos, near) if wide else range(len(near))
    pos._bufs["who_layer"] = None
    asked = dict(q, paths=True) if wide and not paths else q
    m = pos._double(i, info, figure, budget, asked) if info.double else \
        pos._single(i, info, figure, budget, asked)
    m.query = q
    cols = m.columns
    ids = [pos.ids[j] for j in near]

    def named(masks):
        return [[f for b, f in enumerate(ids) if x >> b & 1] for x in masks.tolist()]

    if not wide:
        eng = named(cols["engaged_with"])
        left = named(cols["leaving_attackers"])
    cols["engaged_with"][:] = 0
    cols["leaving_attackers"][:] = 0
    ends = pos._end_dicts(m)
    del cols["engaged_with"], cols["leaving_attackers"]
    if wide:
        attach_paths(pos, m, ends)
        _crowd_who(pos, i, info, near, ends)
        if not paths:
            for e in ends:
                del e["path"], e["least_fall_path"], e["leaving_attacks_path"]
    else:
        for e, a, b in zip(ends, eng, left):
            e["leaving_attackers"] = b
            e["engaged_with"] = a
        if paths:
            attach_paths(pos, m, ends)
    m._extra = ends
    return m


def _crowd_who(pos, i: int, info, near: list, ends: list) -> None:
    """``engaged_with`` and ``leaving_attackers`` of the ends of a crowd's query, from
    the spaces: the enemies next to the end (by the height rule), and those left along
    the least-attack path (a flight: those engaged at take-off, on every end but the
    start)."""
    st = pos._st
    if not st.master:
        for e in ends:
            e["engaged_with"], e["leaving_attackers"] = [], []
        return
    nextto: dict = {}                    # (q, r) -> enemies next to it (indices)
    ct = st.coord_tuples
    for j in near:
        for c in pos._leave_cells(j, info.hclass).tolist():
            nextto.setdefault(ct[c], set()).add(j)
    none: set = set()
    ids = pos.ids

    def spaces(at):                      # the spaces of an end or of a path's step
        return [tuple(at)] if isinstance(at[0], int) else [tuple(c) for c in at]

    def adjacent(cells):
        out = set()
        for c in cells:
            out |= nextto.get(c, none)
        return out

    start = {ct[c] for c in pos._cells_of(i).tolist()}
    takeoff = sorted(adjacent(start)) if info.takeoff else []
    for e in ends:
        cells = spaces(e["at"])
        e["engaged_with"] = [ids[j] for j in sorted(adjacent(cells))]
        if info.takeoff:
            left = takeoff if set(cells) != start else []
        elif info.leaves:
            path = [adjacent(spaces(p)) for p in e["leaving_attacks_path"]]
            left = sorted(set().union(*(u - v for u, v in zip(path, path[1:]))))
        else:
            left = []
        e["leaving_attackers"] = [ids[j] for j in left]


def attach_paths(pos, m, ends=None) -> None:
    """The ends of ``m`` in game words (``ends``, or made here) with their paths (kept
    by :func:`fill`), as ``to_dicts()`` gives them."""
    got = pos._bufs.pop("paths")
    st = pos._st
    cl = st.__dict__.get("_coord_lists")
    if cl is None:
        cl = st.__dict__["_coord_lists"] = st.board.coords.tolist()
    double = bool(pos.double[pos.index[m.figure]])
    if double:
        lead, trail = st.lead.tolist(), st.trail.tolist()

        def one(flat, a, b):
            return [[list(cl[lead[p]]), list(cl[trail[p]])] for p in flat[a:b]]
    else:
        def one(flat, a, b):
            return [list(cl[c]) for c in flat[a:b]]

    def lists(pair):
        flat, off = pair
        flat, off = flat.tolist(), off.tolist()
        return [one(flat, off[e], off[e + 1]) for e in range(len(off) - 1)]

    paths = lists(got["path"])
    lap = paths if got["leaving_attacks_path"] is got["path"] else \
        lists(got["leaving_attacks_path"])
    lfp = got["least_fall_path"]
    if lfp is not got["path"]:
        least, lf_paths, _ = lfp
        per = [lists(x) if x is not None else None for x in lf_paths]
        lfp = [per[w][e] if w < 2 else paths[e] for e, w in enumerate(least.tolist())]
    else:
        lfp = paths
    if ends is None:
        ends = pos._end_dicts(m)
    for e, p, f, a in zip(ends, paths, lfp, lap):
        e["path"] = p
        e["least_fall_path"] = f
        e["leaving_attacks_path"] = a
    m._extra = ends
