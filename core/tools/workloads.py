"""Deterministic, seeded benchmark workloads (the performance issue's definitions).

    skirmish-hex     hex 24x25 axial parallelogram (600 cells), entry cost 1/2/3 with
                     probability .7/.2/.1, 10% blocked, budget 6
    dungeon-square8  32x32, 8 neighbours, entry cost 1 (20% cost 2), 15% blocked, budget 8
    big-square4      256x256, 4 neighbours, entry cost 1..4, 5% blocked, budget 40
    heights-hex      skirmish-hex geometry, smoothed heights 0..4, step cost
                     1 + max(0, rise), 10% blocked, budget 6
    double-space     the skirmish-hex board as a Heroscape battlefield (smoothed levels
                     1..4, a river of water that stops a move, 10% trees), a two-space
                     figure (height 5), move 7: searched over the placement graph of
                     :func:`movecore.games.heroscape.placement_graph`. ``single`` holds
                     the same battlefield and starts (the lead space) for a single-space
                     figure, for the "within 3x of a single-space query" comparison.

``make(name, n_starts=1000, seed=0)`` returns a :class:`Workload` whose ``starts`` are
seeded cells that can be entered. Terrain ids equal entry costs (id 0 = blocked).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # imported where a workload is built: this module loads no kernels
    from ..board import Board
    from ..mover import Mover

NAMES = ("skirmish-hex", "dungeon-square8", "big-square4", "heights-hex", "double-space")


@dataclass(frozen=True)
class Workload:
    name: str
    board: Board
    mover: Mover
    starts: np.ndarray   # int32 cell indices
    budget: int
    cost: np.ndarray     # int32[N] entry cost per cell, -1 = blocked (for the peers)
    climb: int = 0       # extra cost per level climbed (height = board.height)
    cell_flags: Any = None   # per-query CELL_* bits (double-space: water stops)
    single: Any = None       # double-space: the single-space Workload on the same field
    extra: dict = field(default_factory=dict, repr=False)

    @property
    def peer_friendly(self) -> bool:
        """True when a plain weighted digraph (entry cost + climb) is the whole rule set,
        so scipy / tcod / networkx / heapq peers compute the same answer."""
        return self.cell_flags is None and self.board.link_data.shape[0] == 0

    def query_kwargs(self) -> dict:
        return {} if self.cell_flags is None else {"cell_flags": self.cell_flags}


def _hex_parallelogram(w=24, h=25):
    return [(q, r) for r in range(h) for q in range(w)]


def _smooth_heights(board, rng, top=4, rounds=3):
    h = rng.random(board.n_cells)
    nbr = board.nbr
    for _ in range(rounds):
        s = h.copy()
        cnt = np.ones(board.n_cells)
        for d in range(nbr.shape[1]):
            ok = nbr[:, d] >= 0
            s[ok] += h[nbr[ok, d]]
            cnt[ok] += 1
        h = s / cnt
    h = (h - h.min()) / max(h.max() - h.min(), 1e-9)
    return np.rint(h * top).astype(np.int32)


def _double_space(n_starts: int, rng) -> Workload:
    from ..board import Board
    from ..games import heroscape as hs
    from ..kernels import _types as T
    from ..mover import Mover

    coords = _hex_parallelogram()
    geo = Board.hex(coords)
    levels = 1 + _smooth_heights(geo, rng, top=3)
    cells = []
    for i, (q, r) in enumerate(coords):
        c = {"at": [q, r], "level": int(levels[i])}
        if q + r // 2 in (14, 15):      # a river across the field
            c["level"], c["terrain"] = 0, "water"
        elif rng.random() < 0.10:
            c["obstacle"] = "tree"
        cells.append(c)
    field_ = hs.build_battlefield({"cells": cells})
    pl = hs.placement_graph(field_)
    wet, blocked = field_.wet, field_.blocked
    # what movecore.games.heroscape.moves builds for a walker (basic game, no figures)
    qflags = np.zeros(pl.board.n_cells, np.uint8)
    qflags[wet[pl.lead] & wet[pl.trail]] |= T.CELL_STOP
    walker = Mover(terrain_cost=[1, -1], climb_per_level=1, max_climb=4)
    ok = np.flatnonzero(~blocked[pl.lead] & ~blocked[pl.trail] & ~wet[pl.lead]
                        & ~wet[pl.trail])
    starts = rng.choice(ok, size=n_starts).astype(np.int32)
    qflags[starts] = 0  # starting in water never stops (no start is wet here anyway)
    budget = 7
    wet_ids = [hs.TERRAINS.index(t) for t in hs.STOPPING]
    single_mover = Mover(terrain_cost=[1] * len(hs.TERRAINS), stop_terrain=wet_ids,
                         climb_per_level=1, max_climb=4)
    sflags = np.zeros(field_.board.n_cells, np.uint8)
    sflags[blocked] |= T.CELL_BLOCKED
    scost = np.where(blocked, -1, 1).astype(np.int32)
    single = Workload("double-space/single", field_.board, single_mover,
                      pl.lead[starts].astype(np.int32), budget, scost, 1, sflags,
                      extra={"field": field_})
    node_cost = np.where(pl.board.terrain == 1, -1, 1).astype(np.int32)
    return Workload("double-space", pl.board, walker, starts, budget, node_cost, 1, qflags,
                    single, {"field": field_, "placements": pl})


def make(name: str, n_starts: int = 1000, seed: int = 0) -> Workload:
    """The workload ``name`` (one of :data:`NAMES`) with ``n_starts`` seeded starts."""
    if name not in NAMES:
        raise KeyError(f"unknown workload {name!r}; expected one of {NAMES}")
    rng = np.random.default_rng([seed, NAMES.index(name)])
    if name == "double-space":
        return _double_space(n_starts, rng)
    from ..board import Board
    from ..mover import Mover
    climb = 0
    height = None
    if name in ("skirmish-hex", "heights-hex"):
        coords = _hex_parallelogram()
        n = len(coords)
        if name == "skirmish-hex":
            cost = rng.choice([1, 2, 3], size=n, p=[0.7, 0.2, 0.1])
        else:
            cost = np.ones(n, np.int64)
        cost[rng.random(n) < 0.10] = -1
        board = Board.hex(coords)
        if name == "heights-hex":
            height = _smooth_heights(board, rng)
            climb = 1
        budget = 6
    elif name == "dungeon-square8":
        board = Board.square(32, 32, neighbours=8)
        n = board.n_cells
        cost = np.where(rng.random(n) < 0.2, 2, 1)
        cost[rng.random(n) < 0.15] = -1
        budget = 8
    else:  # big-square4
        board = Board.square(256, 256, neighbours=4)
        n = board.n_cells
        cost = rng.integers(1, 5, size=n)
        cost[rng.random(n) < 0.05] = -1
        budget = 40
    terrain = np.where(cost < 0, 0, cost).astype(np.int32)
    board = board.with_layers(terrain=terrain, height=height)
    mover = Mover(terrain_cost=[-1, 1, 2, 3, 4], climb_per_level=climb)
    open_cells = np.flatnonzero(cost >= 0).astype(np.int32)
    starts = rng.choice(open_cells, size=n_starts).astype(np.int32)
    return Workload(name, board, mover, starts, budget, cost.astype(np.int32), climb)
