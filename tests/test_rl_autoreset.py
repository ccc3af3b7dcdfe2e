"""The vector env's autoreset modes and partial resets: ``vector_env(...,
autoreset_mode=...)`` (Gymnasium's ``NEXT_STEP``, ``SAME_STEP``, ``DISABLED``) and
``reset(options={"reset_mask": m})`` give, step by step, exactly what Gymnasium's own
``SyncVectorEnv`` of single :class:`~movecore.rl.envs.MovecoreGym` s gives: the
observations, rewards, ends and the whole info (``final_obs``, ``final_info``, the masks
and their ``_key`` flags), on every backend and step path."""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("gymnasium")

from gymnasium.vector import AutoresetMode, SyncVectorEnv   # noqa: E402

import movecore as mc                                       # noqa: E402
import movecore.rl as rl                                    # noqa: E402
from movecore.rl.envs import MovecoreGym                    # noqa: E402
from movecore.tools.selfplay import example_scenarios       # noqa: E402

GAMES = ("grid", "tiny_epic_tactics", "mage_knight", "heroscape", "descent", "dark_realms")
MODES = (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP, AutoresetMode.DISABLED)


def _same(a, b, where):
    """``a`` equals ``b``: tuples and dicts item by item, Gymnasium's object arrays
    (``final_obs``) too, arrays by shape, dtype and value."""
    if isinstance(a, tuple):
        assert isinstance(b, tuple) and len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            _same(x, y, f"{where}, item {i}")
        return
    if isinstance(a, dict):
        assert isinstance(b, dict) and sorted(a) == sorted(b), (where, sorted(a), sorted(b))
        for k in a:
            _same(a[k], b[k], f"{where}[{k!r}]")
        return
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape and a.dtype == b.dtype, (where, a.shape, b.shape, a.dtype,
                                                       b.dtype)
    if a.dtype == object:
        for i, (x, y) in enumerate(zip(a, b)):
            assert (x is None) == (y is None), (where, i)
            if x is not None:
                _same(x, y, f"{where}[{i}]")
    else:
        assert np.array_equal(a, b), where


def _against_sync(game, mode, *, copy=True, threads=1, backend="auto", B=5, steps=50,
                  sub_steps=False, seed=3):
    """Steps ``vector_env`` and ``SyncVectorEnv`` of single envs side by side with the
    same actions (random legal ones, every 17th step one illegal action), every result
    equal after every step; with ``DISABLED`` the ended games are reset by
    ``reset_mask`` before the next step. ``sub_steps``: Heroscape's, Descent's and Dark
    Realms' sub-step path instead of their compiled whole step. Returns the episodes
    ended."""
    kw = {"max_turns": 3}           # (short games: many ends)
    _, scenario = example_scenarios(game)[0]
    envs = rl.vector_env(scenario, num_envs=B, autoreset_mode=mode, copy=copy,
                         threads=threads, backend=backend, **kw)
    if sub_steps:
        assert envs._np is not None
        envs._hsf = envs._dsf = None
        if envs._np._dr is not None:
            envs._np._dr.whole = False
    ref = SyncVectorEnv([lambda: MovecoreGym(scenario, **kw) for _ in range(B)],
                        autoreset_mode=mode)
    assert envs.metadata["autoreset_mode"] is mode
    _same(envs.reset(seed=seed), ref.reset(seed=seed), "reset")
    rng = np.random.default_rng(seed)
    A = envs.single_action_space.n
    ends = 0
    for t in range(steps):
        ended = ref._terminations | ref._truncations
        if mode is AutoresetMode.DISABLED and ended.any():
            assert np.array_equal(envs.ended, ended)
            with pytest.raises(mc.QueryError, match="reset_mask"):
                envs.step(np.zeros(B, np.int64))
            _same(envs.reset(options={"reset_mask": ended.copy()}),
                  ref.reset(options={"reset_mask": ended.copy()}), f"reset_mask {t}")
        masks = np.stack([e.action_masks() for e in ref.envs])
        assert np.array_equal(envs.action_masks(), masks), t
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0
                            for m in masks])
        if t % 17 == 16:
            b = t % B
            actions[b] = A - 1 if not masks[b, -1] else 0
        got, want = envs.step(actions), ref.step(actions)
        _same(got, want, f"step {t}")
        if not copy and envs.backend == "arrays":
            assert not got[0].flags.writeable
        ends += int((want[2] | want[3]).sum())
    return ends


@pytest.mark.parametrize("mode", MODES, ids=[m.name for m in MODES])
@pytest.mark.parametrize("game", GAMES)
def test_autoreset_modes_equal_gymnasiums_sync_vector_env(game, mode):
    """Each game's vector env in each autoreset mode against ``SyncVectorEnv`` of
    single envs (its one-call compiled step, one thread, ``copy=True``)."""
    assert _against_sync(game, mode) >= 10


@pytest.mark.parametrize("game", GAMES)
def test_same_step_autoreset_on_two_threads_and_kept_observations(game):
    """The same-step restarts on a step cut in two threads' chunks, with the kept
    observations handed out (``copy=False``: the restarted rows rewritten in the kept
    buffer)."""
    assert _against_sync(game, AutoresetMode.SAME_STEP, copy=False, threads=2, B=9,
                         steps=40) >= 10


@pytest.mark.parametrize("game", ("heroscape", "descent", "dark_realms"))
def test_same_step_autoreset_on_the_sub_step_path(game):
    """Heroscape's, Descent's and Dark Realms' sub-step path (the one the compiled
    whole steps replace; a scenario they do not take runs on it)."""
    for mode in (AutoresetMode.SAME_STEP, AutoresetMode.DISABLED):
        assert _against_sync(game, mode, sub_steps=True, steps=40) >= 10


@pytest.mark.parametrize("game", ("grid", "descent"))
def test_autoreset_modes_on_the_positions_backend(game):
    for mode in (AutoresetMode.SAME_STEP, AutoresetMode.DISABLED):
        assert _against_sync(game, mode, backend="positions", B=4, steps=30) >= 5


def test_reset_mask_seeds_only_its_games_and_leaves_the_others():
    """A partial reset with seeds: each reset game seeded with its own (``seed + b``
    or its list entry), the other games' states, streams and observations untouched
    (they play on exactly as a ``SyncVectorEnv``'s); ``_action_mask`` is the mask."""
    _, scenario = example_scenarios("heroscape")[0]
    B = 4
    for copy in (True, False):
        envs = rl.vector_env(scenario, num_envs=B, copy=copy)
        ref = SyncVectorEnv([lambda: MovecoreGym(scenario) for _ in range(B)])
        _same(envs.reset(seed=1), ref.reset(seed=1), "reset")
        rng = np.random.default_rng(0)
        for t in range(12):
            if t in (4, 9):
                m = np.array([t == 4, False, True, t == 9])
                seed = 50 if t == 4 else [None, 7, 8, None]
                got = envs.reset(seed=seed, options={"reset_mask": m.copy()})
                want = ref.reset(seed=seed, options={"reset_mask": m.copy()})
                _same(got, want, f"reset_mask {t}")
                assert np.array_equal(got[1]["_action_mask"], m)
            masks = np.stack([e.action_masks() for e in ref.envs])
            actions = np.array([rng.choice(np.flatnonzero(x)) for x in masks])
            _same(envs.step(actions), ref.step(actions), f"step {t}")


def test_same_step_autoreset_counts_episodes_in_gymnasiums_own_wrapper():
    """Gymnasium's ``RecordEpisodeStatistics`` reads the env's ``autoreset_mode``
    from its metadata: over the same-step env its episode returns and lengths equal
    those it records over ``SyncVectorEnv`` (and differ from what it would count if
    it took the env for a next-step one)."""
    from gymnasium.wrappers.vector import RecordEpisodeStatistics
    _, scenario = example_scenarios("grid")[0]
    B = 6
    mode = AutoresetMode.SAME_STEP
    envs = RecordEpisodeStatistics(rl.vector_env(scenario, num_envs=B, max_turns=3,
                                                 autoreset_mode="SameStep"))
    ref = RecordEpisodeStatistics(SyncVectorEnv(
        [lambda: MovecoreGym(scenario, max_turns=3) for _ in range(B)],
        autoreset_mode=mode))
    envs.reset(seed=0)
    ref.reset(seed=0)
    rng = np.random.default_rng(0)
    seen = 0
    for _ in range(40):
        masks = np.stack([e.action_masks() for e in ref.env.envs])
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        *_, info = envs.step(actions)
        *_, want = ref.step(actions)
        assert ("episode" in info) == ("episode" in want)
        if "episode" in want:
            seen += int(want["_episode"].sum())
            assert np.array_equal(info["_episode"], want["_episode"])
            for k in ("r", "l"):
                assert np.array_equal(info["episode"][k], want["episode"][k]), k
    assert seen >= 10


def test_autoreset_mode_and_reset_options_are_checked():
    _, scenario = example_scenarios("grid")[0]
    for good, want in (("NextStep", AutoresetMode.NEXT_STEP),
                       ("same_step", AutoresetMode.SAME_STEP),
                       ("DISABLED", AutoresetMode.DISABLED),
                       (AutoresetMode.SAME_STEP, AutoresetMode.SAME_STEP)):
        envs = rl.vector_env(scenario, num_envs=2, autoreset_mode=good)
        assert envs.autoreset_mode is want and envs.metadata["autoreset_mode"] is want
    # (the class's metadata is not the instance's)
    from movecore.rl.vector import MovecoreVectorEnv
    assert MovecoreVectorEnv.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    for bad in ("sometimes", 1, None, True):
        with pytest.raises(mc.QueryError, match="autoreset_mode"):
            rl.vector_env(scenario, num_envs=2, autoreset_mode=bad)
    envs = rl.vector_env(scenario, num_envs=3)
    with pytest.raises(mc.QueryError, match="first reset"):
        envs.reset(options={"reset_mask": np.ones(3, bool)})
    obs, _ = envs.reset(seed=0)
    for options, match in (({"reset_mak": np.ones(3, bool)}, "unknown key"),
                           ([("reset_mask", np.ones(3, bool))], "dict"),
                           ({"reset_mask": [True, True, True]}, "numpy bool array"),
                           ({"reset_mask": np.ones(3, np.int8)}, "numpy bool array"),
                           ({"reset_mask": np.ones(4, bool)}, r"shape \(3,\)"),
                           ({"reset_mask": np.zeros(3, bool)}, "at least one True")):
        with pytest.raises(mc.QueryError, match=match):
            envs.reset(options=options)
    # nothing changed by the refused resets: the games play on as a fresh env's
    other = rl.vector_env(scenario, num_envs=3)
    assert np.array_equal(other.reset(seed=0)[0], obs)
    a = np.array([np.flatnonzero(m)[0] for m in envs.action_masks()])
    for x, y in zip(envs.step(a)[:4], other.step(a)[:4]):
        assert np.array_equal(x, y)
    assert envs.reset(options={})[0].shape == obs.shape     # (no mask: every game)
