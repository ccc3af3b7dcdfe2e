"""movecore.rl.vector_env: B games stepped together equal B single Gymnasium envs."""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("gymnasium")

import movecore.rl as rl                                   # noqa: E402
from movecore.rl.envs import MovecoreGym                   # noqa: E402
from movecore.tools.selfplay import example_scenarios      # noqa: E402

GAMES = ("grid", "tiny_epic_tactics", "mage_knight", "heroscape", "descent", "dark_realms")


@pytest.mark.parametrize("game", GAMES)
def test_vector_env_equals_single_envs(game):
    name, scenario = example_scenarios(game)[0]
    B = 3
    envs = rl.vector_env(scenario, num_envs=B)
    singles = [MovecoreGym(scenario) for _ in range(B)]
    obs, info = envs.reset(seed=11)
    want = [e.reset(seed=11 + i) for i, e in enumerate(singles)]
    assert np.array_equal(obs, np.stack([o for o, _ in want]))
    assert info["action_mask"].shape == (B, envs.single_action_space.n)
    assert np.array_equal(envs.action_masks(), info["action_mask"].astype(bool))
    rng = np.random.default_rng(0)
    ended = [False] * B
    for _ in range(60):
        masks = envs.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
        obs, reward, term, trunc, info = envs.step(actions)
        for i, e in enumerate(singles):
            if ended[i]:      # next-step autoreset: this step reset game i
                o, _ = e.reset()
                r, t, tr = 0.0, False, False
            else:
                o, r, t, tr, _ = e.step(int(actions[i]))
            assert np.array_equal(obs[i], o), (name, i)
            assert reward[i] == r and term[i] == t and trunc[i] == tr, (name, i)
            assert np.array_equal(envs.action_masks()[i], e.action_masks()), (name, i)
            ended[i] = bool(t or tr)


def test_vector_env_seeding_and_bad_input():
    a = rl.vector_env("grid_hex_skirmish", num_envs=2)
    b = rl.vector_env("grid_hex_skirmish", num_envs=2)
    assert np.array_equal(a.reset(seed=3)[0], b.reset(seed=3)[0])
    import movecore as mc
    with pytest.raises(mc.QueryError):
        rl.vector_env("grid_hex_skirmish", num_envs=0)
    with pytest.raises(mc.MovecoreError):
        rl.vector_env("grid_hex_skirmish", num_envs=2, opponent="nobody")
