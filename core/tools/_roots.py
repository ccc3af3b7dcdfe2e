"""The positions self-play games start from: built once per process per scenario.

Shared by the one-game-at-a-time self-play (:mod:`.selfplay`) and the batched one
(:mod:`.selfplay_batch`).
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ..errors import ScenarioError, UnknownGameError, describe
from ..scenario import ScenarioCache
from ..rl.turns import GAME_CLASSES, turn_sides

#: each scenario's root position and sides (:func:`_root`), by the dict and the game
_ROOTS = ScenarioCache(64)


def root_position(game: str, scenario: dict):
    """The position of a scenario, read once per process (games play on copies), with
    every figure's query asked once so that what a position caches (prepared queries per
    kind of mover) is made here, not in every game."""
    return _root(game, scenario)[0]


def _root(game: str, scenario: dict) -> tuple:
    """(root position, the sides that have a figure that moves) of a scenario of
    ``game`` (UnknownGameError for a game self-play does not know, ScenarioError for a
    scenario of another game). Made once per scenario dict while it is not changed."""
    if not isinstance(game, str) or game not in GAME_CLASSES:
        raise UnknownGameError(f"unknown game {describe(game)}; expected one of "
                               f"{sorted(GAME_CLASSES)}")
    if not isinstance(scenario, Mapping):
        raise ScenarioError(f"expected a scenario dict; got {describe(scenario)}")
    if scenario.get("game") != game:
        raise ScenarioError(f"the scenario is of game {describe(scenario.get('game'))}, "
                            f"not {game!r}")
    return _ROOTS.get(scenario, game, lambda: _build(game, scenario))


def _build(game: str, scenario: Mapping) -> tuple:
    from ..position import position
    pos = position(scenario)
    g = GAME_CLASSES[game](pos)
    rng = np.random.default_rng(0)
    for f in pos.figures:
        if g.moves(pos, f):
            pos.legal_moves(f, **g.query(pos, f, rng))
    return pos, turn_sides(g, pos)
