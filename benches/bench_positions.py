"""The game layer: ``Position.legal_moves`` of every figure of every bundled example,
beside a plain prepared query on the same board (the ratio ``movecore bench --games``
prints), and one self-play game on positions.

The normal test run disables benchmarking (``--benchmark-disable``): each runs once as a
smoke test. Time them with ``pytest benches/bench_positions.py --benchmark-enable``.
"""
from __future__ import annotations

import json

import numpy as np
import pytest

import movecore as mc
from movecore.tools import selfplay as sp
from movecore.tools.cli import example_paths


def _cases():
    games = set(mc.position_games())
    out = []
    for p in example_paths():
        s = json.loads(p.read_text())
        if s.get("game") in games and p.name.startswith(s["game"] + "_"):
            out.append(pytest.param(s["game"], s, id=p.stem))
    return out


@pytest.mark.parametrize("game,scenario", _cases())
def test_legal_moves(benchmark, game, scenario):
    pos = mc.position(scenario)
    g = sp.GAME_CLASSES[game](pos)
    rng = np.random.default_rng(0)
    asks = [(f, g.query(pos, f, rng)) for f in pos.figures if g.moves(pos, f)]

    def every_figure():
        return [pos.legal_moves(f, **q) for f, q in asks]

    answers = benchmark(every_figure)
    # the mask holds the moves: every end but the non-move ones (Descent's town, a Mage
    # Knight hero's attack ends), and nothing else
    assert answers and all((m.costs >= 0).all() and m.mask.sum() ==
                           len(set(m.actions[m.mask[m.actions]].tolist())) and
                           m.mask[m.actions].any() for m in answers)


@pytest.mark.parametrize("game,scenario", _cases())
def test_plain_query_on_the_same_board(benchmark, game, scenario):
    from movecore.tools.bench_games import _plain_board
    pos = mc.position(scenario)
    board = _plain_board(pos, pos.figures[0], sp.GAME_CLASSES[game](pos).kind)
    plain = mc.prepare(board, mc.Mover(), 6)
    start = board.find(tuple(sp._cells(pos.where(pos.figures[0]))[0].tolist()))
    r = benchmark(plain.reach, start)
    assert r.costs[0] == 0


@pytest.mark.parametrize("game", [g for g in sp.GAMES if g in mc.position_games()])
def test_selfplay_game(benchmark, game):
    name, scenario = sp.example_scenarios(game)[0]
    rep = benchmark(sp.play, game, scenario, 1, max_turns=20)
    assert rep["turns"] >= 1
