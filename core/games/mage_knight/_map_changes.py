"""Changes to a Mage Knight map in a live position: a fortified site conquered, a
rampaging enemy defeated, a tile revealed, and the derived arrays and prepared queries
brought up to date in place (:class:`_MapChanges`, a part of
:class:`~movecore.games.mage_knight.Position`; not used on its own).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from ...errors import LimitError, PlacementError, QueryError, describe
from ...scenario import as_coord
from . import rules as mk
from ._layers import (_FLAG_BLOCKED, _FLAG_NO_END, _FLAG_STOP, _FORBIDS, _NO_TOKEN,
                      _TABLE_MODE, _rank, _token_layers)
from .map import FORTIFIED, _read_tile


class _MapChanges:
    """The map-changing methods of :class:`~movecore.games.mage_knight.Position`
    (:meth:`conquer`, :meth:`defeat_enemy`, :meth:`reveal_tile`) and the per-player
    arrays they keep up to date."""

    def _space_values(self, pkey, c: int) -> tuple[int, bool, bool]:
        s = self.map.spaces[c]
        assault = s.stops(pkey)
        flag = _FLAG_BLOCKED if s.rampaging is not None else (_FLAG_STOP if assault else 0)
        return flag, assault, s.accessible() and not assault

    def _player(self, pkey):
        """(flags, assault, safe) arrays of a player key (made on first use)."""
        L = self._L
        got = L.player.get(pkey)
        if got is None:
            assault = L.stop_any.copy()
            for c in L.keeps_of.get(pkey, ()):
                assault[c] = self.map.spaces[c].stops(pkey)
            flags = np.where(L.rampaging, _FLAG_BLOCKED,
                             np.where(assault, _FLAG_STOP, 0)).astype(np.uint8)
            got = L.player[pkey] = (flags, assault, L.accessible & ~assault)
        return got

    def _refresh(self, cells: Sequence[int]) -> None:
        """After the spaces ``cells`` changed in ``self.map``: their entries in every
        derived array and prepared query (O(len(cells)) per kept array / query)."""
        L = self._L
        spaces = self.map.spaces
        for c in cells:
            s = spaces[c]
            L.stop_any[c] = s.stops(None)
            L.rampaging[c] = s.rampaging is not None
            L.accessible[c] = s.accessible()
            L.holds_many[c] = s.holds_many()
            if L.holds_many[c]:
                self.team_at[c] = -1
        for pkey, (flags, assault, safe) in L.player.items():
            for c in cells:
                flags[c], assault[c], safe[c] = self._space_values(pkey, c)
        for (table, pkey, end_safe), prep in L.prepared.items():
            vals = []
            for c in cells:
                flag, _, safe = self._space_values(pkey, c)
                if table is None or table < 0:
                    flag = _FLAG_NO_END if (spaces[c].rampaging is not None or
                                            (end_safe and not safe) or
                                            (table is not None and spaces[c].cost_class
                                             in _FORBIDS[-1 - table])) else 0
                vals.append(flag)
            prep.set_layer("cell_flags", np.asarray(cells, np.int64),
                           np.asarray(vals, np.uint8))

    def _keys_changed(self, old_owner, new_owner) -> None:
        """Keep ownership moved: the player entries of those players are made again."""
        L = self._L
        for p in (old_owner, new_owner):
            if p is not None:
                L.player.pop(p, None)
                for k in [k for k in L.prepared if k[1] == p]:
                    del L.prepared[k]

    def conquer(self, at, by=None) -> None:
        """The fortified site (keep, mage tower, city) on space ``at`` is conquered.
        A keep becomes the keep of hero ``by`` (its owner: entering it is an assault for
        every other player; another player's keep may be taken by a hero); ``by=None``
        leaves it ownerless. Mage towers and cities have no owner here (``by`` only names
        who took them). Entering a conquered site no longer ends a move; a conquered city
        holds several heroes. :class:`PlacementError` (position unchanged) if the space
        holds no fortified site, or it is already conquered (a keep: already ``by``'s,
        or ``by=None`` on a keep conquered before).

        >>> import movecore as mc
        >>> pos = mc.position({"game": "mage_knight", "board": {"cells": [
        ...     {"at": [0, 0], "terrain": "plains"},
        ...     {"at": [1, 0], "terrain": "hills", "site": "mage_tower"},
        ...     {"at": [2, 0], "terrain": "plains"}]},
        ...     "figures": [{"id": "h", "at": [0, 0]}]})
        >>> pos.legal_moves("h", budget=5).coords.tolist()
        [[0, 0], [1, 0]]
        >>> pos.conquer((1, 0)); pos.legal_moves("h", budget=5).coords.tolist()
        [[0, 0], [1, 0], [2, 0]]
        """
        c = self._cell(at, "conquer: at")
        s = self.map.spaces[c]
        where = list(self.board.coord(c))
        if s.site not in FORTIFIED:
            raise PlacementError(f"conquer: {where} holds no fortified site "
                                 f"{list(FORTIFIED)} (site {s.site!r})")
        if by is not None and (isinstance(by, bool) or not isinstance(by, (str, int))):
            raise QueryError(f"conquer: by is a hero id (string or integer); got "
                             f"{describe(by)}")
        if s.site == "keep":
            if by is None and (s.conquered or s.owner is not None):
                raise PlacementError(f"conquer: the keep on {where} is already conquered "
                                     f"(owner {s.owner!r}); a hero (by=) may take it")
            if by is not None and s.owner == by:
                raise PlacementError(f"conquer: the keep on {where} is already {by!r}'s")
            changes = {"conquered": True, "owner": by}
        else:
            if s.conquered:
                raise PlacementError(f"conquer: the {s.site} on {where} is already "
                                     f"conquered")
            changes = {"conquered": True}
        old_owner = s.owner
        self._record_snapshot()
        self._own()
        self.map = self.map.with_updates({c: changes})
        if s.site == "keep":
            L = self._L
            if old_owner is not None:
                L.keeps_of[old_owner].remove(c)
                if not L.keeps_of[old_owner]:
                    del L.keeps_of[old_owner]
            if by is not None:
                L.keeps_of.setdefault(by, []).append(c)
            self._keys_changed(old_owner, by)
        self._refresh([c])
        self._touch()

    def defeat_enemy(self, at) -> None:
        """The rampaging enemy on space ``at`` is defeated: its space may be entered and
        its neighbours provoke no more. :class:`PlacementError` (position unchanged) if no
        rampaging enemy stands there."""
        c = self._cell(at, "defeat_enemy: at")
        s = self.map.spaces[c]
        if s.rampaging is None:
            raise PlacementError(f"defeat_enemy: no rampaging enemy stands on "
                                 f"{list(self.board.coord(c))}")
        self._record_snapshot()
        L = self._own()
        self.map = self.map.with_updates({c: {"rampaging": None}})
        bit = int(np.flatnonzero(L.bit_cell == c)[0])
        L.bit_cell[bit] = _NO_TOKEN
        nb = self.board.nbr[c]
        nb = nb[nb >= 0].astype(np.int64)
        L.zoc[nb] &= ~(np.uint64(1) << np.uint64(bit))
        if L.zoc_from is not L.zoc:
            L.zoc_from[nb] &= ~(np.uint64(1) << np.uint64(bit))
        L.zoc_any[nb] = L.zoc[nb] != 0
        provoking = [k for k in L.prepared if k[0] is not None and k[0] >= 0 and
                     not _TABLE_MODE[k[0]][0]]
        if L.stop_sides:
            sides = mk.stop_sides(self.board, L.zoc, L.zoc_from)
            if sides != L.stop_sides:   # the board of provoking moves changes: made again
                L.stop_sides, L.stop_board = sides, None
                for k in provoking:
                    del L.prepared[k]
                provoking = []
        for k in provoking:
            L.prepared[k].set_layer("zoc", nb, L.zoc[nb])
        self._refresh([c])
        self._touch()

    def reveal_tile(self, position, tile, *, kind: str | None = None, by=None) -> None:
        """Reveal a tile at the open tile ``position`` (a lattice centre): ``tile`` is a
        catalogue name (``"countryside_3"``) or a list of spaces in scenario words
        (``[{"hex": "NE", "terrain": "hills", "site": "keep"}, ...]``, with ``kind``
        ``countryside`` / ``core``). With ``by`` (a hero id), that hero must stand next to
        the position. The map grows by :meth:`Board.extend` (every cell index kept); the
        arrays grow by the new spaces, the provoke bits of enemies on the new tile reach
        old spaces next to them; the prepared queries are packed again for the larger
        map (on next use). Typed errors (position unchanged) as ``query.reveal``."""
        item = {"position": list(as_coord(position, "reveal_tile: position"))}
        if isinstance(tile, str):
            item["tile"] = tile
        else:
            item["cells"] = tile
        if kind is not None:
            item["kind"] = kind
        self._reveal([item], self._fig(by) if by is not None else None, "reveal_tile")

    def _reveal(self, items: list, i: int | None, what: str) -> list:
        """Reveal scenario tile items (in order) on this position; ``i``: the hero that
        must stand next to each. All checked before anything changes."""
        m = self.map
        revealed = []
        for k, item in enumerate(items):
            w = f"{what}[{k}]" if what == "query.reveal" else what
            pos, kind, cells, walls = _read_tile(item, w)
            if i is not None and tuple(pos) in m.open and \
                    int(self.cell[i]) not in m.cells_next_to(pos, self._rules[4]):
                raise PlacementError(f"{w}: hero {self.ids[i]!r} at "
                                     f"{list(m.board.coord(int(self.cell[i])))} is not "
                                     f"next to tile position {list(pos)}, so it cannot "
                                     f"reveal it")
            m = m.reveal(pos, cells, kind=kind, walls=walls)
            revealed.append(list(pos))
        tokens = [c for c in range(self.map.board.n_cells, m.board.n_cells)
                  if m.spaces[c].rampaging is not None]
        free_bits = int((self._L.bit_cell == _NO_TOKEN).sum())
        if len(tokens) > free_bits:
            raise LimitError(f"{64 - free_bits + len(tokens)} rampaging enemies; at most "
                             f"64 are supported per query")
        if not items:
            return revealed
        self._record_snapshot()
        old_n = self.map.board.n_cells
        L = self._own()
        self.map = m
        n = m.board.n_cells
        grow = n - old_n
        spaces = m.spaces[old_n:]
        L.n = n
        L.stop_any = np.concatenate([L.stop_any, [s.stops(None) for s in spaces]])
        L.rampaging = np.concatenate([L.rampaging, [s.rampaging is not None
                                                    for s in spaces]])
        L.accessible = np.concatenate([L.accessible, [s.accessible() for s in spaces]])
        L.holds_many = np.concatenate([L.holds_many, [s.holds_many() for s in spaces]])
        for c in tokens:
            L.bit_cell[int(np.flatnonzero(L.bit_cell == _NO_TOKEN)[0])] = c
        _token_layers(L, m.board)   # (a reveal packs the prepared queries again anyway)
        L.rank = _rank(m.board)
        L.player = {}
        L.prepared = {}          # the packed board changed: prepared again on next use
        L.next_cells = {p: np.array(m.cells_next_to(p), np.int32) for p in m.open}
        self.team_at = np.concatenate([self.team_at, np.full(grow, -1, np.int32)])
        self._scratch()
        self._touch()
        return revealed
