"""A live Descent position's answers in game words (private to
:mod:`movecore.games.descent`): the lazy ``Moves.columns`` (:class:`_Columns`), what an
answer keeps for them (:class:`_Extra`), and :class:`_GameWords`, the part of
:class:`~movecore.games.descent.Position` that reads paths, the doors a path opens and
each end as ``solve()`` lists it, and writes the position as a scenario.
"""
from __future__ import annotations

import copy as _copy
from typing import Mapping

import numpy as np

from ...errors import QueryError
from ...kernels import _types as T
from ...position import Moves
from . import rules as D
from ._dungeon import STOP_REASONS

_CHAR_OF = {v: k for k, v in D.MAP_CHARS.items() if v is not None}


class _Columns(dict):
    """``Moves.columns`` of Descent, each int32[E] made on first read: ``left`` (MP
    left), ``wounds_cost``, ``in_pit`` (0/1) and ``doors_opened`` (a count; it needs
    each end's path)."""

    __slots__ = ("_moves",)
    NAMES = ("left", "wounds_cost", "in_pit", "doors_opened")

    def __init__(self, moves):
        dict.__init__(self, _COLUMNS)
        self._moves = moves

    def __getitem__(self, key):
        v = dict.__getitem__(self, key)
        if v is None:
            m = self._moves
            ex = m._extra
            if key == "left":
                v = (ex.mp - m.costs).astype(T.INDEX)
            elif key == "wounds_cost":
                v = m.costs if ex.wounds_cost is None else ex.wounds_cost
            elif key == "in_pit":
                v = ex.g.in_pit[m.actions]
            else:
                v = np.array([len(e["doors_opened"]) for e in m.to_dicts()], dtype=T.INDEX)
            dict.__setitem__(self, key, v)
        return v

    def get(self, key, default=None):
        return self[key] if key in self else default

    def values(self):
        return [self[k] for k in self]

    def items(self):
        return [(k, self[k]) for k in self]


_COLUMNS = dict.fromkeys(_Columns.NAMES)


class _Extra:
    """What ``to_dicts``, the columns and ``apply_move`` need of one answer: the kernel
    result (None for a batch answer), the graph, MP, paths wanted, the row of the kernel
    result of each end (``order``), the least-wound costs, the search tree as lists."""

    __slots__ = ("reach", "links", "g", "mp", "paths", "order", "wounds_cost", "tree")

    def __init__(self, reach, links, g, mp, paths, order, wounds_cost):
        self.reach, self.links, self.g, self.mp = reach, links, g, mp
        self.paths, self.order, self.wounds_cost, self.tree = paths, order, wounds_cost, None


class _GameWords:
    """Paths, doors opened and ends in game words, and the scenario form (a part of
    :class:`~movecore.games.descent.Position`)."""

    @staticmethod
    def _end_path(ex: _Extra, row: int, least_penalty: bool | None = None,
                  single: bool = False) -> list:
        """The path (nodes, air nodes included) of the moves' ``row``-th end: by default
        the reported one, the cheapest with the fewest wounds among the cheapest."""
        if ex.tree is None and single:
            # one path (apply_move): walk the arrays, do not convert the whole tree
            r = ex.reach
            j = int(ex.order[row])
            return r.path_nodes(j, r.penalty_costs[j] == r.costs[j])
        if ex.tree is None:       # the search tree as lists, once per answer
            r = ex.reach
            tree = r.tree
            ex.tree = (tree[:, 0].tolist(), tree[:, 3].tolist(), r.tree_rows.tolist(),
                       r.penalty_costs.tolist(), r.costs.tolist())
        cell, parent, tree_of, pcost, cost = ex.tree
        j = int(ex.order[row])
        if least_penalty is None:
            least_penalty = pcost[j] == cost[j]
        t = tree_of[j][1 if least_penalty else 0]
        out = []
        while t >= 0:
            out.append(cell[t])
            t = parent[t]
        out.reverse()
        return out

    def _path_doors(self, ex: _Extra, path: list) -> list:
        out: list = []
        door_steps = ex.links.door_steps
        if not door_steps:
            return out
        for u, v in zip(path, path[1:]):
            for k in door_steps.get((u, v), ()):
                if k not in out:
                    out.append(k)
        return out

    def _end_dicts(self, moves: Moves) -> list[dict]:
        ex = moves._extra
        if ex.reach is None:   # a batch answer: ask again (same position) for the paths
            if moves.stale:
                raise QueryError("these moves came from a batch and the position has "
                                 "changed since: ask legal_moves again for their paths")
            ex = self.legal_moves(moves.figure, **moves.query)._extra
            moves._extra = ex
        g = ex.g
        st = g.st
        doors = st.dungeon.doors
        ends = []
        stops = moves.stop.tolist()
        need_path = ex.paths or bool(ex.links.door_steps)   # (else no tree was kept)
        for row, (node, cost, wounds, wcost, pit, sc) in enumerate(zip(
                moves.actions.tolist(), moves.costs.tolist(), moves.penalty.tolist(),
                moves.columns["wounds_cost"].tolist(), moves.columns["in_pit"].tolist(),
                stops)):
            path = self._end_path(ex, row) if need_path else []
            e: dict = {"at": self._node_word(st, g.anchor_of[node])}
            if g.large:
                e["cells"] = [list(c) for c in g.facts[node]["cells"]]
            e["cost"] = cost
            e["left"] = ex.mp - cost
            e["wounds"] = wounds
            e["wounds_cost"] = wcost
            e["doors_opened"] = [doors[k].id for k in self._path_doors(ex, path)]
            e["stop"] = STOP_REASONS[sc]
            e["in_pit"] = bool(pit)
            if ex.paths:
                at = g.anchor_of            # anchors (turned, door memory); -1: air
                e["path"] = [self._node_word(st, at[x]) for x in path if at[x] >= 0]
                wp = self._end_path(ex, row, least_penalty=True)
                e["wounds_path"] = [self._node_word(st, at[x]) for x in wp if at[x] >= 0]
            ends.append(e)
        return ends

    @staticmethod
    def _node_word(st, node: int):
        return D.TOWN if node == st.ns else list(st.squares[node])

    # ---------------------------------------------------------------- scenario form
    def to_scenario(self, query: Mapping | None = None) -> dict:
        """The scenario of this position: ``movecore.solve()`` of it answers exactly as
        this position (doors, rune keys and figures as they are now)."""
        st = self.st
        d = st.dungeon
        xs = [c[0] for c in st.squares]
        ys = [c[1] for c in st.squares]
        rows = []
        for y in range(max(ys) + 1):
            rows.append("".join(_CHAR_OF[d.terrain[(x, y)]] if (x, y) in d.terrain
                                else "#" for x in range(max(xs) + 1)))
        board: dict = {"rows": rows}
        if min(xs) < 0 or min(ys) < 0:     # rows start at [0, 0]: the common cells form
            board = {"cells": [{"at": [x, y], **({"terrain": d.terrain[(x, y)]}
                                                if d.terrain[(x, y)] != "floor" else {})}
                               for x, y in sorted(d.terrain, key=lambda c: (c[1], c[0]))]}
        if d.walls:
            board["walls"] = [[list(a), list(b)] for a, b in sorted(d.walls)]
        if d.doors:
            board["doors"] = [
                {"id": door.id, "sides": [[list(a), list(b)] for a, b in sorted(door.sides)],
                 "open": self.door_open[k], "rune": door.rune,
                 "leads_to_unrevealed": self.door_unrevealed[k]}
                for k, door in enumerate(d.doors)]
        if d.stairs:
            board["stairs"] = [[list(a), list(b)] for a, b in d.stairs]
        if d.glyphs:
            board["glyphs"] = [list(c) for c in d.glyphs]
        figures = []
        for i, fid in enumerate(self.ids):
            if not self.alive[i]:
                continue
            a = self.anchor[i]
            f = {"id": fid, "side": D.SIDES[self.side[i]],
                 "at": D.TOWN if a < 0 else list(st.squares[a]), "speed": self.speed[i]}
            if self.size[i] != (1, 1):
                f["footprint"] = f"{self.size[i][0]}x{self.size[i][1]}"
            ab: list = []
            if self.grapple[i]:
                ab.append("grapple")
            if self.aura[i]:
                ab.append({"aura": self.aura[i]})
            if self.fly[i]:
                ab.append("fly")
            if ab:
                f["abilities"] = ab
            figures.append(f)
        s = {"game": "descent", "board": board,
             "options": {"corner_cutting": st.corner, "ice": st.ice,
                         "large_turns": st.large_turns, "large_jumps": st.large_jumps,
                         "hound_slides": st.hound_slides},
             "party": {"rune_keys": sorted(self.rune_keys)}, "figures": figures}
        if query is not None:
            s["query"] = _copy.deepcopy(dict(query))
        return s
