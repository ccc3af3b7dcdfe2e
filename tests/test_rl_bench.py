"""movecore bench --rl: the raw loop replays exactly the env's play (the same moves,
the same removals, the same legal-moves queries), so the two loops do the same game."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
pytest.importorskip("gymnasium")

import movecore.rl as rl  # noqa: E402
from movecore.rl import bench  # noqa: E402
from movecore.rl.envs import _example, _setup  # noqa: E402
from movecore.rl.turns import GAMES  # noqa: E402
from movecore.tools.selfplay import example_scenarios  # noqa: E402


@pytest.mark.parametrize("game", GAMES)
def test_raw_loop_replays_the_env_play(game):
    name = example_scenarios(game)[0][0]
    scen = _example(name)
    env = rl.env(scen)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        events = bench._record(env, 300, 1)
        bench._env_loop(env, events)
    last = []
    bench._raw_loop(_setup(scen, False).root, events, last)
    assert last[0].key() == env.position.key()
    # every step asks the figure's legal moves, end turns included
    steps = [e for e in events if e[0] != "reset"]
    assert len(steps) == 300 and all(e[1] is not None for e in steps)
    ends = [e for e in steps if e[3] is None]
    moves = [e for e in steps if e[3] is not None]
    assert moves and all(np.isscalar(e[3]) for e in moves)
    assert all(e[4] == [] for e in ends)


def test_rl_report_prints_every_example_of_a_game():
    lines = []
    rows = bench.rl_report(["grid"], steps=40, rounds=1, out=lines.append)
    assert [r["scenario"] for r in rows] == [n for n, _ in example_scenarios("grid")]
    assert all(r["raw_us"] > 0 and r["env_us"] > 0 and r["ratio"] > 0 for r in rows)
    assert "CPU time" in lines[0] and len(lines) == 2 + len(rows)


def test_pieces_cut_at_episode_starts_and_keep_every_event():
    env = rl.env(_example(example_scenarios("grid")[0][0]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        events = bench._record(env, 700, 1)
    pieces = bench._pieces(events, size=100)
    assert len(pieces) > 3 and [e for p in pieces for e in p] == events
    assert all(p[0][0] == "reset" for p in pieces)
    assert all(sum(e[0] != "reset" for e in p) >= 100 for p in pieces[:-1])
    # replayed piece by piece, the raw loop ends where the whole play does
    whole, parts = [], []
    root = _setup(_example(example_scenarios("grid")[0][0]), False).root
    bench._raw_loop(root, events, whole)
    for p in pieces:
        bench._raw_loop(root, p, parts)
    assert parts[-1].key() == whole[0].key()
