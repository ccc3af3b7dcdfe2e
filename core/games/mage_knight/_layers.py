"""What a Mage Knight position derives from its map, and the cost tables met so far.

:class:`_Layers` holds the per-space arrays (shared by copies of a position until one
changes the map: copy on write) and the prepared queries; :func:`_table` /
:func:`_direct_key` give each cost table (time of day and effects) a small int key, so a
prepared query is found without hashing its table every query.

Private to the live position (:mod:`.position`, :mod:`._map_changes`,
:mod:`._search_tree`).
"""
from __future__ import annotations

import numpy as np

from ...errors import LimitError
from ...kernels import _types as T
from . import rules as mk

_NO_TOKEN = -1
_FLAG_STOP = int(T.CELL_STOP)
_FLAG_BLOCKED = int(T.CELL_BLOCKED)
_FLAG_NO_END = int(T.CELL_NO_END)


class _Layers:
    """Per-space arrays derived from the map (N = cells of the map), shared by copies of
    a position until one of them changes the map (copy on write).

    stop_any:   bool[N]  entering ends the move for a player owning no keep (an
                         unconquered keep, mage tower or city, or a keep anyone owns).
    rampaging:  bool[N]  a rampaging enemy stands there (cannot be entered).
    accessible: bool[N]  accessible under normal conditions (no lake / mountain unless a
                         city, no rampaging enemy).
    holds_many: bool[N]  a portal or a conquered city (several heroes, never pvp).
    zoc:        uint64[N] bit b set next to the rampaging enemy of bit b, no wall between.
    zoc_from:   uint64[N] bit b set next to it, walls or not (``zoc`` itself when the map
                has no walls): the step u -> v provokes ``zoc_from[u] & zoc[v]``.
    stop_sides: [(u, v)] provoking steps from a space walled off from an enemy (one-way
                stop sides of ``stop_board``, the board of the provoking moves).
    zoc_any:    bool[N]  zoc != 0.
    bit_cell:   int64[64] the space of each bit's enemy (-1: free bit).
    rank:       int64[N] rank of each space in (q, r) order (ends sort by cost, rank).
    keeps_of:   {player: [cells]} keeps owned, per player.
    player:     {player key: (flags uint8[N], assault bool[N], safe bool[N])}: kernel
                cell flags of a normal move, the assault spaces and the safe spaces
                (heroes aside) for that player (key None: a player owning no keep).
    prepared:   {(table, player key, end_safe): Prepared} (table None: a direct move).
    next_cells: {open position: int32 array} spaces next to it (reveal from there).
    """

    __slots__ = ("n", "stop_any", "rampaging", "accessible", "holds_many", "zoc",
                 "zoc_from", "stop_sides", "stop_board", "zoc_any", "bit_cell", "rank",
                 "keeps_of", "player", "prepared", "next_cells")

    def clone(self) -> "_Layers":
        new = object.__new__(_Layers)
        for k in self.__slots__:
            v = getattr(self, k)
            setattr(new, k, v.copy() if isinstance(v, np.ndarray) else v)
        if self.zoc_from is self.zoc:
            new.zoc_from = new.zoc
        # (list(...items()): a snapshot, while positions sharing these layers may add
        # entries in other threads)
        new.keeps_of = {p: list(c) for p, c in list(self.keeps_of.items())}
        new.player = {k: tuple(a.copy() for a in v) for k, v in list(self.player.items())}
        # a prepared query owns its layers: copied (the packed board and mover shared)
        new.prepared = {k: p.copy() for k, p in list(self.prepared.items())}
        new.next_cells = dict(self.next_cells)
        return new


def _build_layers(m: "mk.MageKnightMap") -> _Layers:
    L = object.__new__(_Layers)
    spaces = m.spaces
    n = len(spaces)
    L.n = n
    L.stop_any = np.fromiter((s.stops(None) for s in spaces), bool, n)
    L.rampaging = np.fromiter((s.rampaging is not None for s in spaces), bool, n)
    L.accessible = np.fromiter((s.accessible() for s in spaces), bool, n)
    L.holds_many = np.fromiter((s.holds_many() for s in spaces), bool, n)
    tokens = np.flatnonzero(L.rampaging)
    if len(tokens) > 64:
        raise LimitError(f"{len(tokens)} rampaging enemies; at most 64 are supported per "
                         f"query")
    L.bit_cell = np.full(64, _NO_TOKEN, np.int64)
    L.bit_cell[:len(tokens)] = tokens
    _token_layers(L, m.board)
    L.rank = _rank(m.board)
    L.keeps_of = {}
    for c, s in enumerate(spaces):
        if s.site == "keep" and s.owner is not None:
            L.keeps_of.setdefault(s.owner, []).append(c)
    L.player = {}
    L.prepared = {}
    L.next_cells = {p: np.array(m.cells_next_to(p), np.int32) for p in m.open}
    return L


def _token_layers(L: _Layers, board) -> None:
    """``zoc``, ``zoc_from``, ``stop_sides``, ``stop_board``, ``zoc_any`` of the enemies
    of ``L.bit_cell`` on ``board``."""
    L.zoc, L.zoc_from, L.stop_sides = mk.provoke_layers(board, L.bit_cell.tolist())
    L.stop_board = None
    L.zoc_any = L.zoc != 0


def _rank(board) -> np.ndarray:
    rank = np.empty(board.n_cells, np.int64)
    rank[np.lexsort((board.coords[:, 1], board.coords[:, 0]))] = np.arange(board.n_cells)
    return rank


#: Cost tables met so far (Move cost per cost class, -1 = cannot enter) and their keys:
#: a prepared query is found by a small int, not by hashing its table every query.
_TABLES: list[tuple] = []
_TABLE_KEYS: dict[tuple, int] = {}


_TABLE_ARRAYS: list[np.ndarray] = []
#: (quiet, bend) of each key: no step provokes / Space Bending (spaces 2 away adjacent).
_TABLE_MODE: list[tuple[bool, bool]] = []
#: Cost classes a direct move may not end on, per direct key -1 - i (None: no such class).
_FORBIDS: list[frozenset] = []


def _table(time: str, reductions, enter, forbid=(), quiet=False, bend=False) -> int:
    """Key (into ``_TABLES``) of the cost table of ``time`` with these effects."""
    costs = mk.terrain_costs(time, reductions, enter, forbid)
    table = tuple(-1 if costs[t] is None else costs[t] for t in mk.COST_CLASSES)
    full = (table, bool(quiet or bend), bool(bend))
    key = _TABLE_KEYS.get(full)
    if key is None:
        key = _TABLE_KEYS[full] = len(_TABLES)
        _TABLES.append(table)
        _TABLE_ARRAYS.append(np.array(table, np.int32))
        _TABLE_MODE.append(full[1:])
    return key


def _direct_key(forbid) -> int | None:
    """Key of a direct move's prepared query: None, or -1 - i for ``_FORBIDS[i]``."""
    if not forbid:
        return None
    f = frozenset(forbid)
    if f not in _FORBIDS:
        _FORBIDS.append(f)
    return -1 - _FORBIDS.index(f)
