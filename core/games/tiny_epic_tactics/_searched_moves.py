"""The Tiny Epic Tactics moves that need whole search trees or the rules' longhand: a
move with paths, ``via`` a village or several Move actions in a row (as the reference
searches answer them), a knock back and the solo enemy's move (:class:`_SearchedMoves`, a
part of :class:`~movecore.games.tiny_epic_tactics.Position`; not used on its own). A
plain move is one kernel call (:meth:`Position._plain`).
"""
from __future__ import annotations

import copy as _copy

import numpy as np

from ...errors import QueryError
from ...kernels import _types as T
from ...position import Moves
from ...reach import Prepared
from .._common import Figure, end_order
from .rules import (End, Muster, knock_back, side_away_from, solo_entry, solo_turn,
                    villages_on)


class _SearchedMoves:
    """The search-tree and longhand moves of
    :class:`~movecore.games.tiny_epic_tactics.Position`."""

    def _tree(self, p: Prepared, i: int, start: int, budget: int):
        """A full answer (search tree kept) from ``start`` with unit ``i`` off the map
        (it is the one moving), as the reference answers."""
        if not self.alive[i]:  # pragma: no cover
            raise self._figure_error(self.ids[i])
        occ = self.occ.copy()     # (the position's own is never written by a query:
        occ[int(self.cell[i])] = T.OCC_EMPTY    # threads may share it)
        r = p.with_layers(occupant=occ).reach(start, budget)
        r.tree  # noqa: B018  (made now)
        return r

    def _move(self, i: int, figure, parsed: tuple, query) -> Moves:
        """A move with paths, ``via`` or several actions: full search trees, End lists."""
        _, budget, paths, via, actions, given = parsed
        if via >= 0 and actions > 1:
            raise QueryError("query.via works with one Move action; drop query.actions")
        self._check_may_move(i, actions, given)
        if via >= 0:
            ends = self._via(i, budget, via)
        else:
            ends = self._actions(i, budget, actions)
        cells = np.array([e.cell for e in ends], T.INDEX)
        costs = np.array([e.cost for e in ends], T.INDEX)
        order = end_order(self.board, cells, costs) if len(ends) else np.zeros(0, np.int64)
        ends = [ends[int(r)] for r in order]
        cells, costs = cells[order], costs[order]
        columns = {"ballista": self._ballista[cells]}
        if given:
            columns["actions"] = np.array([e.actions for e in ends], T.INDEX)
        return Moves(self, figure, cells, costs, None, None, columns, query,
                     ("ends", i, ends, via, paths, given, self.version))

    def _via(self, i: int, budget: int, village: int) -> list[End]:
        """As :func:`.reference.moves_via`: the least cost to arrive in the village (an
        ally standing there passed), then a move from it with what is left."""
        start = int(self.cell[i])
        realm = self.realm
        if village == start:
            raise QueryError(f"via {list(realm.xy(village))} is the village the unit starts "
                             f"in; a unit does not benefit from starting its turn in a "
                             f"village")
        if village == self._began(i) or village in self._used_cells(i):
            raise QueryError(f"via {list(realm.xy(village))}: unit {self.ids[i]!r} already "
                             f"used that village this turn (it began its turn there or "
                             f"healed there); a village heals a unit once per turn")
        to_village = self._tree(self._unit_prep(i, budget, "pass_end"), i, start, budget)
        rows = np.flatnonzero(to_village.cells == village)
        if rows.size == 0:
            return []
        spent = int(to_village.costs[rows[0]])
        lead = to_village.path(village).tolist()
        onwards = self._tree(self._unit_prep(i, budget), i, village, budget - spent)
        taken = self.occ[village] != T.OCC_EMPTY
        ends = []
        for c, k in zip(onwards.cells.tolist(), onwards.costs.tolist()):
            if c == village and taken:
                continue
            ends.append(End(c, spent + k, lead + onwards.path(c).tolist()[1:]))
        return ends

    def _actions(self, i: int, budget: int, actions: int) -> list[End]:
        """As :func:`.reference.unit_moves`: one Move action, or up to ``actions`` in a
        row."""
        start = int(self.cell[i])
        p = self._unit_prep(i, budget)
        first = self._tree(p, i, start, budget)
        if actions == 1:
            return [End(c, k, first.path(c).tolist(), 0 if c == start else 1)
                    for c, k in zip(first.cells.tolist(), first.costs.tolist())]
        from .rules import _layered_path
        reaches = {start: first}
        layers = [{start: (0, None)}]
        best: dict[int, End] = {start: End(start, 0, [start], 0)}
        for k in range(1, actions + 1):
            prev = layers[-1]
            layer = dict(prev)
            for u, (cu, _) in prev.items():
                r = reaches.get(u)
                if r is None:
                    r = reaches[u] = self._tree(p, i, u, budget)
                for c, step in zip(r.cells.tolist(), r.costs.tolist()):
                    if cu + step < layer.get(c, (1 << 60, None))[0]:
                        layer[c] = (cu + step, u)
            layers.append(layer)
            for c, (cost, _) in layer.items():
                if c not in best:
                    best[c] = End(c, cost, _layered_path(layers, reaches, k, c), k)
        return list(best.values())

    def _muster_now(self) -> Muster:
        hit = self._muster
        if hit is not None and hit[0] == self.version:
            return hit[1]
        figs = [Figure(fid, self.team_name[i], [int(self.cell[i])])
                for i, fid in enumerate(self.ids) if self.alive[i]]
        m = Muster(figs, dict(self.teams))
        self._muster = (self.version, m)
        return m

    def _figure_obj(self, muster: Muster, i: int) -> Figure:
        fid = self.ids[i]
        return next(f for f in muster.figures if f.id == fid)

    def _knock_back(self, i: int, figure, parsed: tuple, query) -> Moves:
        _, side, distance, attacker = parsed
        realm = self.realm
        if attacker >= 0:
            if attacker == i:
                raise QueryError(f"unit {figure!r} cannot knock itself back")
            side = side_away_from(realm, realm.xy(int(self.cell[attacker])),
                                  realm.xy(int(self.cell[i])))
        muster = self._muster_now()
        kb = knock_back(realm, muster, self._figure_obj(muster, i), side, distance)
        end = kb.path[-1]
        d = {"target": figure, "direction": side, "from": list(realm.xy(kb.start)),
             "at": list(realm.xy(end)), "moved": kb.moved, "health_lost": kb.health_lost,
             "fell": kb.fell, "stopped_by": kb.stopped_by,
             "path": [list(realm.xy(c)) for c in kb.path]}
        code = self.STOP_REASONS.index(kb.stopped_by)
        one = lambda v: np.array([v], T.INDEX)  # noqa: E731
        return Moves(self, figure, one(end), one(kb.moved), one(code), None,
                     {"moved": one(kb.moved), "health_lost": one(kb.health_lost),
                      "fell": one(int(kb.fell))}, query, ("knock_back", d))

    def _solo(self, i: int, figure, parsed: tuple, query) -> Moves:
        _, budget, compass, target, attack_range, climb = parsed
        muster = self._muster_now()
        enemy = self._figure_obj(muster, i)
        tgt = None
        if target >= 0:
            if self.team[target] == self.team[i]:
                raise QueryError(f"query.target {self.ids[target]!r} is on the solo enemy's "
                                 f"own team; it moves towards one of your units")
            tgt = self._figure_obj(muster, target)
        sm = solo_turn(self.realm, muster, enemy, budget, compass, tgt, self.blocked,
                       attack_range, climb, self.options.get("solo_target", "next_closest"))
        end = sm.path[-1]
        d = solo_entry(self.realm, figure, enemy.cell, sm, climb)
        one = lambda v: np.array([v], T.INDEX)  # noqa: E731
        return Moves(self, figure, one(end), one(sm.cost),
                     one(self.STOP_REASONS.index(sm.stopped_by)), None, {}, query,
                     ("solo", d))

    def _end_dicts(self, moves: Moves) -> list[dict]:
        extra = moves._extra
        if extra[0] in ("knock_back", "solo"):
            return [_copy.deepcopy(extra[1])]
        if extra[-1] != self.version:
            raise QueryError(f"these moves of {moves.figure!r} were made before the "
                             f"position changed (version {extra[-1]}, now {self.version}): "
                             f"ask legal_moves again")
        i = extra[1]
        realm = self.realm
        start = int(self.cell[i])
        exclude = {self._began(i)} | self._used_cells(i)
        if extra[0] == "move":
            budget = extra[2]
            r = self._tree(self._unit_prep(i, budget), i, start, budget)
            if not np.array_equal(np.sort(r.cells), np.sort(moves.actions)):
                raise RuntimeError("movecore: the kernel's ends differ between its two "
                                   "modes")  # pragma: no cover
            paths = (r.path(int(c)).tolist() for c in moves.actions)
            ends = [End(int(c), int(k), pth) for c, k, pth in
                    zip(moves.actions, moves.costs, paths)]
            want_paths, given = False, False
        else:
            ends, want_paths, given = extra[2], extra[4], extra[5]
        out = []
        for e in ends:
            entry = {"at": list(realm.xy(e.cell)), "cost": e.cost,
                     "villages": [list(realm.xy(v)) for v in
                                  villages_on(realm, e.path, exclude)],
                     "ballista": bool(self._ballista[e.cell])}
            if given:
                entry["actions"] = e.actions
            if want_paths:
                entry["path"] = [list(realm.xy(c)) for c in e.path]
            out.append(entry)
        return out
