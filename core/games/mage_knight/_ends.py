"""A Mage Knight move's ends: the jitted finishing of the kernel's sorted ends into a
move's block (stop codes, safe, pvp, occupied, can_stay), the search-tree detail of what a
stopped end provoked, and the lazy ``Moves.columns`` that read the block.

Private to :mod:`.position` and :mod:`._search_tree`.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ...kernels import _types as T
from ...position import LazyColumns

#: Rows of a move's block (int32[_ROWS, E]): cells, costs, stop, safe, pvp, occupied,
#: can_stay, penalty (0).
_ROWS = 8


@njit(cache=T.CACHE, nogil=True)
def _finish_ends(ends, total, start, team_at, assault_at, safe_at, accessible, my_team,
                 pvp, is_move, drop_occupied, out):
    """The rows of a move's ``out`` block (int32[8, total], see ``_ROWS``) from the
    kernel's sorted ends (int32[3, >= total]: cell, cost, stopped): stop code (1 assault,
    2 provoked), safe, pvp, occupied, can_stay (0/1), penalty 0. ``team_at``: int32[N]
    team of the hero on a one-hero space (-1 none); ``assault_at`` / ``safe_at`` /
    ``accessible``: bool[N] of the moving player. With ``drop_occupied`` the ends on
    another hero's one-hero space are left out (a direct move ending safe: such a space
    is passed, never an end, and passing a space is all a direct move does with it).
    Returns the number of ends written."""
    k = 0
    for j in range(total):
        v = ends[0, j]
        here = v != start
        ta = team_at[v]
        occupied = here and ta >= 0
        if occupied and drop_occupied:
            continue
        out[0, k] = v
        out[1, k] = ends[1, j]
        if here and assault_at[v]:
            out[2, k] = 1
        elif is_move and ends[2, j] != 0:
            out[2, k] = 2
        else:
            out[2, k] = 0
        out[3, k] = 1 if (not here) or (safe_at[v] and not occupied) else 0
        out[4, k] = 1 if pvp and occupied and ta != my_team else 0
        out[5, k] = 1 if occupied else 0
        out[6, k] = 1 if (not here) or (accessible[v] and not occupied) else 0
        out[7, k] = 0
        k += 1
    return k


@njit(cache=T.CACHE, nogil=True)
def _any_tricky(cells, stop, start, zoc):
    """Does some end other than the start stop next to a rampaging enemy (so that which
    enemy it provoked, or whether its cheapest arrival provoked, needs the tree)?"""
    for k in range(cells.shape[0]):
        v = cells[k]
        if stop[k] != 0 and v != start and zoc[v] != 0:
            return True
    return False


@njit(cache=T.CACHE, nogil=True)
def _provoke_detail(cells, costs, stop, start, zoc, zoc_from, nbr, edges, terrain, table,
                    budget, r_cells, r_free, r_tree, r_tree_of, free_at, parent_at,
                    every_stop, provoked, free_cost, tokens, quiet_from):
    """What a normal move's stopped ends provoked (the rules of RULES.md §1, as
    ``mage_knight.move`` words them): per end (rows of ``cells``/``costs``/``stop``, the
    sorted ends), ``provoked`` 0/1, ``free_cost`` (cheapest arrival that does not provoke
    where the cheapest one does; -1 none), ``tokens`` (uint64 bits of the enemies
    provoked), ``quiet_from`` (an assault end's cheapest quiet predecessor, -1 none).
    The step ``u -> v`` provokes the enemies of ``zoc_from[u] & zoc[v]`` (walls: see
    ``mage_knight.provoke_layers``). ``edges``: the board's sides (int32[N, K, 2] or [0, K, 2]): a wall adds its cost to
    a step (the same both ways, so the side of ``v`` towards ``u`` is read).

    ``r_cells``/``r_free``/``r_tree``/``r_tree_of``: the tree-mode run's ends, their
    cheapest arrival that may go on (-1 none), its search tree (rows: cell, cost,
    flags, parent row) and each end's least-cost row (column 0): what
    :attr:`Reach.parents` reads (:attr:`Reach.tree` and :attr:`Reach.tree_rows`, read
    here to spare its NumPy walk). ``free_at`` (int64[N]) / ``parent_at`` (int32[N]) are filled per
    space. Ends examined: stopped ones next to an enemy, or every stopped one with
    ``every_stop`` (paths are wanted: an assault end's path runs through ``quiet_from``).
    """
    n = free_at.shape[0]
    for c in range(n):
        free_at[c] = -1
        parent_at[c] = -1
    for j in range(r_cells.shape[0]):
        free_at[r_cells[j]] = r_free[j]
        row = r_tree_of[j, 0]
        prow = r_tree[row, 3] if row >= 0 else -1
        parent_at[r_cells[j]] = r_tree[prow, 0] if prow >= 0 else -1
    free_at[start] = 0
    for k in range(cells.shape[0]):
        v = cells[k]
        if stop[k] == 0 or v == start or (zoc[v] == 0 and not every_stop):
            continue
        if stop[k] == 1:  # an assault: every arrival stops; prefer one that is quiet
            best = -1
            for d in range(nbr.shape[1]):
                u = nbr[v, d]
                step = table[terrain[v]]
                if edges.shape[0] > 0:
                    step += edges[v, d, 0]
                if u < 0 or free_at[u] < 0 or free_at[u] + step > budget:
                    continue
                if (zoc_from[u] & zoc[v]) != 0:
                    continue
                c = free_at[u] + step
                if best < 0 or c < best:
                    best = c
                    quiet_from[k] = u
            if best == costs[k]:
                continue
            if best >= 0:
                free_cost[k] = best
        elif free_at[v] >= 0:
            free_cost[k] = free_at[v]
        u = parent_at[v]
        if u >= 0:
            tokens[k] = zoc_from[u] & zoc[v]
        if tokens[k] != 0:
            provoked[k] = 1

class _Columns(LazyColumns):
    """``Moves.columns`` of a Mage Knight move. ``safe``, ``pvp``, ``occupied`` and
    ``can_stay`` are rows of the block the ends were written to (made into arrays on
    first access); ``provoked`` and ``free_cost`` need the search tree where a stopped
    end is next to a rampaging enemy, so they are worked out on first access of either
    (or of the dict as a whole: :class:`~movecore.position.LazyColumns`)."""

    __slots__ = ("_block",)
    _ROW = {"safe": 3, "pvp": 4, "occupied": 5, "can_stay": 6}

    def __init__(self, block: np.ndarray, fill):
        LazyColumns.__init__(self, {}, fill)
        self._block = block

    def _load(self) -> None:
        if self._block is not None:
            for k, row in self._ROW.items():
                if not dict.__contains__(self, k):
                    dict.__setitem__(self, k, self._block[row])
            self._block = None
        LazyColumns._load(self)

    def __getitem__(self, key):
        if not dict.__contains__(self, key):
            row = self._ROW.get(key)
            if row is not None and self._block is not None:
                v = self._block[row]
                dict.__setitem__(self, key, v)
                return v
            self._load()
        return dict.__getitem__(self, key)

