"""What a Mage Knight move's ends need the search tree for: which rampaging enemy an end
provoked, the cheapest arrival that does not provoke, paths, the ends as dicts, and the
tile positions a hero can explore (:class:`_SearchTreeAnswers`, a part of
:class:`~movecore.games.mage_knight.Position`; not used on its own).
"""
from __future__ import annotations

import numpy as np

from ...errors import QueryError
from ...position import Moves
from .._common import coord_list
from ._ends import _any_tricky, _provoke_detail
from ._layers import _TABLE_ARRAYS, _TABLE_MODE


class _SearchTreeAnswers:
    """The methods of :class:`~movecore.games.mage_knight.Position` that answer from the
    kernel's search tree (worked out only when asked for, once per move)."""

    def _analyse(self, m: Moves) -> dict:
        """Per end: provoked (0/1), free_cost (-1: none), the provoked enemies (a bit
        mask), the path and free path (when asked), and each space's cheapest arrival
        that may go on (for exploring): from the kernel's search tree (the same kernel in
        tree mode) where a stopped end is next to a rampaging enemy or paths are asked,
        else from the ends alone."""
        start, prep, is_move, budget, paths, done = m._extra
        if done is not None:
            return done
        if m.version != self.version:
            raise QueryError(f"these moves of {m.figure!r} are stale: the position changed "
                             f"since they were generated; ask legal_moves again")
        L = self._L
        board = self.board
        cells, costs = m.actions, m.costs
        n_ends = len(cells)
        r = None
        zoc, zoc_from = L.zoc, L.zoc_from  # none provoked when moves are quiet (Space
        if is_move and _TABLE_MODE[self._table_key[self.time]][0]:     # Bending...)
            zoc = zoc_from = np.zeros(L.n, np.uint64)
        if paths or (is_move and _any_tricky(cells, m.stop, start, zoc)):
            r = prep.reach(start, budget)
            if len(r.cells) < n_ends:  # pragma: no cover (the same kernel, same layers)
                raise RuntimeError("movecore: the tree-mode run gave other ends")
        out = np.empty((3, n_ends), np.int32)     # provoked, free_cost, quiet_from
        out[0] = 0
        out[1:] = -1
        provoked, free_cost, quiet_from = out
        tokens = np.zeros(n_ends, np.uint64)
        free_at = None   # made by _explore from the ends where no tree was needed
        if is_move and r is not None:
            free_at = np.empty(board.n_cells, np.int64)
            parent_at = np.empty(board.n_cells, np.int32)   # (this call's scratch)
            _provoke_detail(cells, costs, m.stop, start, zoc, zoc_from, prep.board.nbr,
                            prep.board.edges, board.terrain,
                            _TABLE_ARRAYS[self._table_key[self.time]], budget,
                            r.cells, r.free_costs, r.tree, r.tree_rows, free_at,
                            parent_at, paths, provoked, free_cost, tokens, quiet_from)
        path = free_path = None
        if paths:
            path, free_path = [], {}
            qf = quiet_from.tolist()
            fc = free_cost.tolist()
            for row, (v, st) in enumerate(zip(cells.tolist(), m.stop.tolist())):
                if st == 1 and is_move:
                    if not provoked[row]:
                        path.append(r.path(qf[row], free=True).tolist() + [v])
                        continue
                    if fc[row] >= 0:
                        free_path[row] = r.path(qf[row], free=True).tolist() + [v]
                elif st == 2 and fc[row] >= 0:
                    free_path[row] = r.path(v, free=True).tolist()
                path.append(r.path(v).tolist())
        done = {"provoked": provoked, "free_cost": free_cost, "tokens": tokens,
                "path": path, "free_path": free_path, "free_at": free_at, "reach": r}
        m._extra[5] = done
        return done

    def _token_cells(self, mask: int) -> list[int]:
        """Spaces of the rampaging enemies of the bits set in ``mask``."""
        bit_cell = self._L.bit_cell
        return [int(bit_cell[b]) for b in range(64) if (mask >> b) & 1]

    def _lazy_columns(self, m: Moves) -> dict:
        a = self._analyse(m)
        return {"provoked": a["provoked"], "free_cost": a["free_cost"]}

    def _end_dicts(self, m: Moves) -> list[dict]:
        a = self._analyse(m)
        board = self.board
        start, _, is_move, _, paths, _ = m._extra
        cols = m.columns
        safe, pvp = cols["safe"].tolist(), cols["pvp"].tolist()
        provoked, free_cost = a["provoked"].tolist(), a["free_cost"].tolist()
        tokens, path, free_path = a["tokens"].tolist(), a["path"], a["free_path"]
        ends = []
        for row, (v, cost, st) in enumerate(zip(m.actions.tolist(), m.costs.tolist(),
                                               m.stop.tolist())):
            flags = []
            if st == 1:
                flags.append("assault")
            if provoked[row]:
                flags.append("provoked")
            if pvp[row]:
                flags.append("pvp")
            e = {"at": list(board.coord(v)), "cost": cost, "flags": flags,
                 "safe": bool(safe[row])}
            if provoked[row]:
                e["provoked"] = sorted(coord_list(board, self._token_cells(tokens[row])))
            if free_cost[row] >= 0:
                e["free_cost"] = free_cost[row]
            if paths:
                e["path"] = coord_list(board, path[row])
                if row in free_path:
                    e["free_path"] = coord_list(board, free_path[row])
            ends.append(e)
        return ends

    def explore(self, figure, **query) -> list[dict]:
        """The tile positions hero ``figure`` can reveal in this move (as ``solve()``'s
        ``explore``: ``position``, ``from``, ``cost`` with the 2 Move points of the
        reveal, ``placeable``, ``path`` when asked); [] for a direct move."""
        m = self._last
        if m is None or m.version != self.version or m.figure != figure or \
                m.query != query or m.position is not self:
            m = self.legal_moves(figure, **query)
        return m.position._explore(m)

    def _explore(self, m: Moves) -> list[dict]:
        start, _, is_move, budget, paths, _ = m._extra
        mp = self.map
        cost, distance = self._rules[3:]
        if not is_move or mp.next_tile == "none" or not mp.open or cost is None:
            return []
        a = self._analyse(m)
        free_at, r = a["free_at"], a["reach"]
        board = self.board
        if free_at is None:   # no tree: an end's arrival goes on iff it did not stop
            free_at = np.full(board.n_cells, -1, np.int64)
            going = m.stop == 0
            free_at[m.actions[going]] = m.costs[going]
            free_at[start] = 0
        out = []
        for pos in mp.open:
            best = None
            near = self._L.next_cells[pos].tolist() if distance == 1 else \
                mp.cells_next_to(pos, distance)
            for c in near:
                f = int(free_at[c])
                if f >= 0 and f + cost <= budget:
                    key = (f, board.coord(c))
                    if best is None or key < best[0]:
                        best = (key, c)
            if best is None:
                continue
            c = best[1]
            e = {"position": list(pos), "from": list(board.coord(c)),
                 "cost": int(free_at[c]) + cost, "placeable": mp.placeable(pos)}
            if paths:
                e["path"] = coord_list(board, r.path(c, free=True).tolist())
            out.append(e)
        out.sort(key=lambda e: (e["cost"], e["position"]))
        return out
