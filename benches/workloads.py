"""Deterministic, seeded benchmark workloads (the performance issue's definitions).

    skirmish-hex     hex 24x25 axial parallelogram (600 cells), entry cost 1/2/3 with
                     probability .7/.2/.1, 10% blocked, budget 6
    dungeon-square8  32x32, 8 neighbours, entry cost 1 (20% cost 2), 15% blocked, budget 8
    big-square4      256x256, 4 neighbours, entry cost 1..4, 5% blocked, budget 40
    heights-hex      skirmish-hex geometry, smoothed heights 0..4, step cost
                     1 + max(0, rise), 10% blocked, budget 6

``make(name, n_starts=1000, seed=0)`` returns a :class:`Workload` whose ``starts`` are
seeded cells that can be entered. Terrain ids equal entry costs (id 0 = blocked).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import movecore as mc

NAMES = ("skirmish-hex", "dungeon-square8", "big-square4", "heights-hex")


@dataclass(frozen=True)
class Workload:
    name: str
    board: mc.Board
    mover: mc.Mover
    starts: np.ndarray   # int32 cell indices
    budget: int
    cost: np.ndarray     # int32[N] entry cost per cell, -1 = blocked (for the peers)


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


def make(name: str, n_starts: int = 1000, seed: int = 0) -> Workload:
    rng = np.random.default_rng([seed, NAMES.index(name)])
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
        board = mc.Board.hex(coords)
        if name == "heights-hex":
            height = _smooth_heights(board, rng)
            climb = 1
        budget = 6
    elif name == "dungeon-square8":
        board = mc.Board.square(32, 32, neighbours=8)
        n = board.n_cells
        cost = np.where(rng.random(n) < 0.2, 2, 1)
        cost[rng.random(n) < 0.15] = -1
        budget = 8
    elif name == "big-square4":
        board = mc.Board.square(256, 256, neighbours=4)
        n = board.n_cells
        cost = rng.integers(1, 5, size=n)
        cost[rng.random(n) < 0.05] = -1
        budget = 40
    else:
        raise KeyError(f"unknown workload {name!r}; expected one of {NAMES}")
    terrain = np.where(cost < 0, 0, cost).astype(np.int32)
    board = board.with_layers(terrain=terrain, height=height)
    mover = mc.Mover(terrain_cost=[-1, 1, 2, 3, 4], climb_per_level=climb)
    open_cells = np.flatnonzero(cost >= 0).astype(np.int32)
    starts = rng.choice(open_cells, size=n_starts).astype(np.int32)
    return Workload(name, board, mover, starts, budget, cost.astype(np.int32))
