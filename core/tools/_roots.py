"""The positions self-play games start from: built once per process per scenario.

Shared by the one-game-at-a-time self-play (:mod:`.selfplay`) and the batched one
(:mod:`.selfplay_batch`).
"""
from __future__ import annotations

import numpy as np

from ..rl.turns import GAME_CLASSES, turn_sides

_ROOTS: dict = {}


def root_position(game: str, scenario: dict):
    """The position of a scenario, read once per process (games play on copies), with
    every figure's query asked once so that what a position caches (prepared queries per
    kind of mover) is made here, not in every game."""
    return _root(game, scenario)[0]


def _root(game: str, scenario: dict) -> tuple:
    """(root position, the sides that have a figure that moves) of a scenario."""
    key = id(scenario)
    hit = _ROOTS.get(key)
    if hit is None or hit[0] is not scenario:
        from ..position import position
        pos = position(scenario)
        g = GAME_CLASSES[game](pos)
        rng = np.random.default_rng(0)
        for f in pos.figures:
            if g.moves(pos, f):
                pos.legal_moves(f, **g.query(pos, f, rng))
        sides = turn_sides(g, pos)
        hit = _ROOTS[key] = (scenario, pos, sides)
    return hit[1:]
