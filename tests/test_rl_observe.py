"""movecore.rl: the observation and the action mask, kept up to date step by step (cached
planes, masks written in place), against ones encoded from scratch from the live
position after every step of seeded random episodes, for every agent, in every game."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
pytest.importorskip("gymnasium")

import movecore.rl as rl  # noqa: E402
from movecore.rl.turns import GAMES  # noqa: E402
from movecore.tools.selfplay import example_scenarios  # noqa: E402

SCENARIOS = [(g, n, s) for g in GAMES for n, s in example_scenarios(g)]
_FIRST = {g: n for g, n, _ in reversed(SCENARIOS)}
# `pytest` plays one example per game, the soak tier (`pytest --soak`) all of them
CASES = [pytest.param(g, n, s, id=n[:-5], marks=() if _FIRST[g] == n else pytest.mark.slow)
         for g, n, s in SCENARIOS]


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def _cells(pos, lay, f) -> list:
    """Observation cells of the squares figure ``f`` covers, read from the position."""
    w = pos.where(f)
    if isinstance(w, str):
        return []
    if pos.game == "descent":
        i = pos.index[f]
        w = [pos.st.squares[q] for q in pos._squares(i, pos.anchor[i])]
    hw = lay.coords_hw(np.array([w] if isinstance(w, tuple) else w))
    return sorted(set(hw.tolist()))


def _lead(pos, lay, f, action) -> int:
    """The observation cell of the lead square of ``f``'s placement ``action``."""
    xy = np.asarray(pos.action_coords(f, [int(action)]), np.int64).reshape(-1, 2)
    return int(lay.coords_hw(xy[0]))


def oracle_observation(core, agent) -> np.ndarray:
    """float32[C, H, W] from scratch: every plane of docs/rl.md read off the position,
    the match and the scenario's static planes."""
    s, pos, m = core.s, core.pos, core.match
    lay = s.layout
    HW = lay.H * lay.W
    o = np.zeros((len(lay.names), HW), np.float32)
    S = lay.static.shape[0]
    o[:S] = lay.static
    n = len(s.sides)
    observer = s.side_index[s.actions[agent].side]
    for f in pos.figures:
        o[S + (s.side_index[pos.side_of(f)] - observer) % n, _cells(pos, lay, f)] = 1
    d = S + n
    if not core.over and s.agent_of[m.side] == agent:
        fid = m.figure
        o[d, _cells(pos, lay, fid)] = 1
        for f in m.moved:
            o[d + 1, _cells(pos, lay, f)] = 1
        mv = m.moves
        rows = range(len(mv.actions)) if m.rows is None else m.rows.tolist()
        costs = np.asarray(mv.costs)
        top = max([int(costs[r]) for r in rows] + [0])
        scale = 1.0 / top if top > 0 else 1.0
        for r in rows:
            h = _lead(pos, lay, fid, mv.actions[r])
            o[d + 2, h] = 1
            o[d + 3, h] = np.float32(int(costs[r]) * scale)
            if mv.stop[r]:
                o[d + 4, h] = 1
    o[d + 5] = lay.static[0] * np.float32(m.turn / core.max_turns)
    k = d + 6
    g = s.game
    if g == "grid":
        for t in pos.provoke:
            h = int(lay.coords_hw(np.array(t)))
            if h >= 0:
                o[k, h] = 1
    elif g == "heroscape":
        for f in pos.figures:
            if pos.engaged[pos.index[f]]:
                o[k, _cells(pos, lay, f)] = 1
    elif g == "descent":
        for is_open, cells in zip(pos.door_open, lay.extra["doors"]):
            o[k + (1 if is_open else 0), cells] = 1
    elif g == "mage_knight":
        if pos.time == "night":
            o[k] = lay.static[0]
    elif g == "dark_realms":
        if not core.over and m.query:
            q = m.query
            o[k] = lay.static[0] * np.float32(q.get("roll", q.get("move", 0)) / 12)
    return o.reshape(lay.shape)


def oracle_mask(core, agent) -> np.ndarray:
    """int8[A] from scratch: in the acting figure's slot, every place whose footprint
    is one of its usable legal ends' footprints; end turn; nothing for the others."""
    s, pos, m = core.s, core.pos, core.match
    al = s.actions[agent]
    mask = np.zeros(al.n, np.int8)
    if core.over or s.agent_of[m.side] != agent:
        return mask
    fid = m.figure
    mv = m.moves
    rows = range(len(mv.actions)) if m.rows is None else m.rows.tolist()
    lay = s.layout
    want = set()
    for r in rows:
        xy = np.asarray(pos.action_coords(fid, [int(mv.actions[r])]), np.int64)
        want.add(tuple(lay.coords_hw(xy.reshape(-1, 2)).tolist()))
    places = s.places[s.row[fid]]
    base = al.slots.index(fid) * al.P
    for p in range(len(places)):
        cells = places[p][places[p] >= 0]
        if len(cells) and tuple(cells.tolist()) in want:
            mask[base + p] = 1
    mask[al.end_turn] = 1
    return mask


def _check(core, agent, obs, mask) -> None:
    want = oracle_observation(core, agent)
    assert obs.dtype == np.float32 and obs.shape == want.shape
    bad = np.argwhere(obs != want)
    assert not len(bad), (core.s.game, agent, [core.s.layout.names[c] for c in
                                               sorted(set(bad[:, 0].tolist()))])
    assert mask.dtype == np.int8
    assert np.array_equal(mask, oracle_mask(core, agent)), (core.s.game, agent)


@pytest.mark.parametrize("game,name,scen", CASES)
def test_aec_observation_and_mask_equal_ones_from_scratch(game, name, scen):
    env = rl.env(scen, max_turns=12)
    rng = np.random.default_rng(len(name))
    core = env._core
    steps = episode = 0
    while steps < 80 and episode < 30:        # short episodes: play more of them
        episode += 1
        env.reset(seed=episode * 7)
        for agent in env.agent_iter(400):
            obs, _, term, trunc, _ = env.last()
            # the match keeps each side's figures itself: as the position lists them
            pos, m = core.pos, core.match
            assert m._lineup == {s: pos.team_figures(s) for s in pos.sides}
            assert m.n_sides == len(pos.sides)
            for other in env.possible_agents:      # every agent, acting or not
                o = env.observe(other)
                if not (term or trunc):
                    _check(core, other, o["observation"], o["action_mask"])
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[int(rng.random() * len(legal))]))
            steps += 1
    assert steps >= 80


@pytest.mark.parametrize("game,name,scen", CASES)
def test_gym_observation_and_mask_equal_ones_from_scratch(game, name, scen):
    env = rl.gym_env(scen, side=rl.env(scen).possible_agents[-1], max_turns=12)
    rng = np.random.default_rng(len(name) + 1)
    core = env._core
    steps = episode = 0
    while steps < 40 and episode < 80:
        episode += 1
        obs, info = env.reset(seed=episode)
        done = False
        while not done:
            if not core.over:
                _check(core, env.agent, obs, info["action_mask"])
            legal = np.flatnonzero(info["action_mask"])
            if not len(legal):     # the opponents ended the game before its first move
                break
            obs, _, term, trunc, info = env.step(int(legal[int(rng.random() * len(legal))]))
            done = term or trunc
            steps += 1
    assert steps >= 20
