"""The Dark Realms enemy AI on a live position's prepared queries: the target's tier,
the reverse search from the target's space, and the destination picked by the compiled
:func:`._enemy_pick._pick` (:class:`_EnemyMoves`, a part of
:class:`~movecore.games.dark_realms.Position`; not used on its own). Where the rules
allow no such shortcut, the reference :func:`~movecore.games.dark_realms.enemy_turn`
answers.
"""
from __future__ import annotations

import numpy as np

from ...kernels import _types as T
from ...mover import Mover
from ...position import BUILD_LOCK, bind_occupant
from ...reach import prepare
from ._enemy_pick import _pick
from .rules import (ENEMIES, Figure, Scene, _closest_fastest, _enemy_turn_result,
                    _target_tier, enemy_turn)


class _EnemyMoves:
    """The enemy AI methods of :class:`~movecore.games.dark_realms.Position`."""

    def _reverse_query(self, enemy: Figure):
        """(prepared query, W) of the enemies' reverse searches: one scalar cost per
        route, ``steps + W * traps`` (entering a trap costs ``W + 1``, another space 1;
        W = N + 1 > any least route's steps), so (traps, steps) in lexicographic order
        run on the packed kernel. Made again after a trap changes."""
        W = self.board.n_cells + 1
        hit = self._queries.get((ENEMIES, "rev"))
        if hit is None:
            proto = self._rev
            if proto is None:
                board = self.board.with_layers(terrain=self.scene.trap.astype(T.INDEX))
                proto = self._rev = prepare(
                    board, Mover(terrain_cost=[1, W + 1], team=ENEMIES, allies="block",
                                 enemies="block"),
                    (self._n_traps + 1) * W, occupant=self.occ,
                    cell_flags=self._flags_for(False))
            hit = self._queries[(ENEMIES, "rev")] = bind_occupant(proto, self.occ)
        return hit, W

    def _enemy_turn(self, scene: Scene, enemy: Figure, move: int, attack_range: int,
                    dest_cells: list | None = None):
        """enemy_turn() on the position's prepared queries where the rules allow (allies
        not passed, melee, traps avoided first or none): for a walker the reverse
        search from the goal is a search from the target's space, whose first step
        enters exactly the goal spaces (costs ``steps + W * traps``); for a flyer (no
        traps) one batch from the goal spaces. Else the reference enemy_turn().
        ``dest_cells`` (a list) receives the cell of every move on the fast path."""
        n = self.board.n_cells
        walker_traps = self._n_traps and not enemy.flying
        if (enemy.side != "enemy" or scene.pass_allies or attack_range != 1
                or (walker_traps and scene.trap_avoidance != "detour")
                or (self._n_traps + 1) * (n + 1) > T.MAX_BUDGET
                or (enemy.flying and not self._query_for((ENEMIES, "far", True), enemy, n,
                                                         False).fast)):
            return enemy_turn(scene, enemy, move, attack_range)
        tier = _target_tier(scene)
        n = self.board.n_cells
        if len(tier) > 1:
            # the distance field: every arrival of an unbounded move; a flyer's counts the
            # obstacles it flies over, so its query lets it end anywhere (same routes)
            key = (ENEMIES, "field", enemy.flying)
            fq = self._queries.get(key)
            if fq is None:
                with BUILD_LOCK:
                    proto = self._proto.get(key)
                    if proto is None:
                        proto = self._proto[key] = prepare(
                            self.board, scene.mover(enemy), n, occupant=self.occ,
                            cell_flags=np.zeros(n, np.uint8) if enemy.flying else
                            self._flags_for(False))
                fq = self._queries[key] = bind_occupant(proto, self.occ)
            r = fq.reach(enemy.cell, n)
            field_ = np.full(n, -1, np.int64)
            field_[r.cells] = r.costs
            tier = _closest_fastest(scene, enemy, field_, tier)
        moves = [self._enemy_dest(enemy, t, move, dest_cells) for t in tier]
        return _enemy_turn_result(scene, enemy, move, attack_range, tier, moves)

    def _enemy_dest(self, enemy: Figure, target: Figure, move: int,
                    dest_cells: list | None = None) -> dict:
        """enemy_destination() with attack_range 1 (see :meth:`_enemy_turn`); the cell
        of the destination is appended to ``dest_cells`` when given."""
        board, scene = self.board, self.scene
        xy = board.coords
        tgt = target.cell

        dist = self._distances(tgt)

        traps = scene.trap
        if dist[enemy.cell] <= 1:
            if dest_cells is not None:
                dest_cells.append(enemy.cell)
            return {"target": target.id, "at": scene.coord(enemy.cell), "steps": 0,
                    "path": [scene.coord(enemy.cell)], "traps": 0, "in_range": True,
                    "reason": "in_range"}
        flying = enemy.flying
        has_traps = self._n_traps > 0 and not flying
        if has_traps:
            fq = self._query_for((ENEMIES, "traps"), enemy, move, True)
            fr = fq.reach(enemy.cell, move)
            cells = fr.cells
            t_now = fr.penalties
            s_now = fr.penalty_costs
        else:
            fr = self._query_for((ENEMIES, flying), enemy, move, False).reach(enemy.cell,
                                                                              move)
            cells = fr.cells
            t_now = self._no_traps[:cells.shape[0]]
            s_now = fr.costs
        n = board.n_cells
        rem = np.full(n, -1, np.int64)     # (this call's: threads may share the position)
        W = 1
        occ = self.occ.copy()              # the mover's own space empty, for this call
        occ[enemy.cell] = T.OCC_EMPTY
        if flying:
            # a flyer passes over obstacles next to the target, which are no goal: one
            # search from every goal space (one batch), the least steps over them
            goal = [a for a in board.nbr[tgt].tolist() if a >= 0 and
                    not scene.obstacle[a] and self.occ[a] == T.OCC_EMPTY]
            if goal:
                rq = bind_occupant(self._query_for((ENEMIES, "far", True), enemy, n,
                                                   False), occ)
                rows = np.empty((len(goal), 3), np.int64)
                rows[:, 0] = goal
                rows[:, 1] = n
                many = np.empty((3, len(goal) * n), T.INDEX)
                total = rq._run_into(rows, many)
                big = np.int64(1) << 40
                rem.fill(big)
                np.minimum.at(rem, many[0, :total], many[1, :total].astype(np.int64))
                rem[rem == big] = -1
        else:
            # the reverse search: from the target's space, the mover's own space empty;
            # an arrival's cost k = steps + W * traps (the target's space is no plan)
            rq, W = self._reverse_query(enemy)
            rr = bind_occupant(rq, occ).reach(tgt)
            rem[rr.cells] = rr.costs
            rem[tgt] = -1
        best, routed = _pick()(cells, t_now, s_now, rem, flying, W, traps, dist,
                                   self._rank)
        best = int(best)
        how = "route" if routed else "no_route"
        dest = int(cells[best])
        path = fr.path_nodes(best, has_traps)   # fr.path(dest, least_penalty=has_traps)
        if dest_cells is not None:
            dest_cells.append(dest)
        return {"target": target.id, "at": scene.coord(dest), "steps": len(path) - 1,
                "path": xy[path].tolist(),
                "traps": int(traps[path[1:]].sum()) if has_traps else 0,  # (none: no trap)
                "in_range": bool(dist[dest] <= 1), "reason": how}
