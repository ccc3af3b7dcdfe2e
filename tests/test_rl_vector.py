"""movecore.rl.vector_env: B games stepped together equal B single Gymnasium envs."""
from __future__ import annotations

import functools

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


def test_vector_env_observe_and_render_need_a_reset_and_render_mode():
    """``observe()`` before the first ``reset()`` is refused (no state to observe yet,
    as ``step``); ``render()`` draws each game's position (a tuple of B, as
    ``SyncVectorEnv.render``) where ``render_mode`` is given, and is refused
    otherwise."""
    import movecore as mc
    envs = rl.vector_env("grid_hex_skirmish", num_envs=2)
    with pytest.raises(mc.QueryError, match="before reset"):
        envs.observe()
    with pytest.raises(mc.QueryError, match="render_mode"):
        envs.render()
    assert envs.metadata["render_modes"] == []
    drawn = rl.vector_env("grid_hex_skirmish", num_envs=2, render_mode="ansi")
    assert drawn.backend == "positions" and drawn.metadata["render_modes"] == ["ansi", "svg"]
    with pytest.raises(mc.QueryError, match="before reset"):
        drawn.render()
    drawn.reset(seed=4)
    one = rl.gym_env("grid_hex_skirmish", render_mode="ansi")
    one.reset(seed=5)
    pictures = drawn.render()
    assert isinstance(pictures, tuple) and len(pictures) == 2
    assert pictures[1] == one.render() and isinstance(pictures[0], str)


def test_vector_env_refuses_pickle_by_name_and_deep_copies_apart():
    """``pickle`` says in one sentence that a vector env does not pickle (not Python's
    "Can't pickle local object" from deep inside); ``copy.deepcopy`` still makes an
    independent copy that steps as the original does, its parent untouched."""
    import copy
    import pickle
    for name in ("grid_hex_skirmish", "heroscape_engaged_knight"):
        envs = rl.vector_env(name, num_envs=3)
        envs.reset(seed=2)
        with pytest.raises(TypeError, match="does not pickle"):
            pickle.dumps(envs)
        twin = copy.deepcopy(envs)
        a = np.array([np.flatnonzero(m)[0] for m in envs.action_masks()])
        before = envs.observe()
        got = twin.step(a)
        assert np.array_equal(envs.observe(), before)          # the parent untouched
        for x, y in zip(envs.step(a)[:4], got[:4]):
            assert np.array_equal(x, y)


# ---------------------------------------------------------------- the arrays backend
def _check_against_singles(envs, singles, steps, rng, seed, illegal_every=0, until=None):
    """Step ``envs`` and the single envs with the same actions; every game's observation,
    mask, reward and end equal its single env's after every step; the batched
    ``observe()`` equals the returned observations. Returns the moves checked."""
    B = envs.num_envs
    obs, info = envs.reset(seed=seed)
    want = [e.reset(seed=seed + i) for i, e in enumerate(singles)]
    assert np.array_equal(obs, np.stack([o for o, _ in want]))
    ended = [False] * B
    checked = 0
    for t in range(steps):
        if until is not None and checked >= until:
            break
        masks = envs.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
        if illegal_every and t % illegal_every == illegal_every - 1:
            actions[t % B] = envs.single_action_space.n - 1 if not masks[t % B][-1] else 0
        obs, reward, term, trunc, info = envs.step(actions)
        assert obs.dtype == np.float32 and obs.shape == envs.observation_space.shape
        assert envs.observation_space.contains(obs)
        assert np.array_equal(envs.observe(), obs)
        assert info["action_mask"].dtype == np.int8
        for i, e in enumerate(singles):
            if ended[i]:
                o, _ = e.reset()
                r, te, tr = 0.0, False, False
            else:
                o, r, te, tr, inf = e.step(int(actions[i]))
                assert bool(info.get("illegal_action", np.zeros(B, bool))[i]) == \
                    bool(inf.get("illegal_action", False))
                checked += 1
            assert np.array_equal(obs[i], o), (t, i)
            assert reward[i] == r and term[i] == te and trunc[i] == tr, (t, i, reward[i], r)
            assert np.array_equal(info["action_mask"][i], e._info()["action_mask"]), (t, i)
            ended[i] = bool(te or tr)
    return checked


ARRAY_GAMES = ("grid", "tiny_epic_tactics", "mage_knight")


def _array_scenarios():
    return [(g, name, s) for g in ARRAY_GAMES for name, s in example_scenarios(g)]


@pytest.mark.parametrize("opponent", ["random", "greedy"])
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("game,name,scenario", _array_scenarios(),
                         ids=[n for _, n, _ in _array_scenarios()])
def test_arrays_backend_equals_single_envs(game, name, scenario, threads, opponent):
    """Grid, Tiny Epic Tactics and Mage Knight step on arrays in one compiled call; every
    game equals its single env (observation, mask, reward, ends) after every step."""
    B = 9
    envs = rl.vector_env(scenario, num_envs=B, threads=threads, opponent=opponent)
    assert envs.backend == "arrays" and envs.why is None
    singles = [MovecoreGym(scenario, opponent=opponent) for _ in range(B)]
    rng = np.random.default_rng(len(name) + threads)
    assert _check_against_singles(envs, singles, 70, rng, seed=5, illegal_every=23) > 300


@pytest.mark.parametrize("copy", [True, False])
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("game", ARRAY_GAMES)
def test_arrays_backend_blocks_of_a_chunk_equal_single_envs(game, threads, copy):
    """``_vecgame.env_chunk`` takes a thread's games in blocks (``_BLOCK``: the block's
    moves, then its observations): with more games than a block, and a last block
    shorter than the others in each chunk, every game equals its single env after
    every step (``copy=False``: the kept buffer, updated in place)."""
    from movecore.rl._vecgame import _BLOCK
    B = 2 * _BLOCK + 11
    name, scenario = example_scenarios(game)[0]
    envs = rl.vector_env(scenario, num_envs=B, threads=threads, copy=copy, max_turns=9)
    singles = [MovecoreGym(scenario, max_turns=9) for _ in range(B)]
    rng = np.random.default_rng(threads + 2 * copy)
    assert _check_against_singles(envs, singles, 14, rng, seed=3, illegal_every=5) > 700


def test_env_chunks_cover_every_game_once_the_calling_thread_first():
    """The vector env's thread chunks: contiguous, non-empty, covering 0..B once, the
    calling thread's (chunk 0) the largest (its head start, ``vector._HEAD``)."""
    from movecore.rl.vector import _env_chunks
    for B in range(1, 200):
        for n in range(1, min(B, 6) + 1):
            c = _env_chunks(B, n)
            assert len(c) == n and c[0][0] == 0 and c[-1][1] == B
            assert all(lo < hi for lo, hi in c)
            assert all(c[i][1] == c[i + 1][0] for i in range(n - 1))
            assert c[0][1] - c[0][0] >= max(hi - lo for lo, hi in c) - 1
    assert _env_chunks(1024, 2) == [(0, 532), (532, 1024)]


@pytest.mark.parametrize("copy", [True, False])
@pytest.mark.parametrize("game", ARRAY_GAMES)
def test_moving_cut_changes_nothing(game, copy, monkeypatch):
    """Where a game is played (which thread's chunk) changes nothing it plays: a 2-thread
    env whose cut moves after every call (``vector._HEAD_BY_RATE``; here to a random
    place, through blocks and to its bounds) equals a 1-thread env after every step of
    seeded runs (observations, rewards, ends, masks); and the cut does move."""
    import movecore.rl.vector as vector
    name, scenario = example_scenarios(game)[0]
    cuts = np.random.default_rng(1)
    monkeypatch.setattr(vector, "_moved_head",
                        lambda B, n, first, took: int(cuts.integers(1, B)))
    # (every step split over the threads: a step made whole moves no cut)
    monkeypatch.setattr(vector.ThreadChoice, "use_split", lambda self: True)
    runs, seen = [], set()
    for threads in (1, 2):
        envs = rl.vector_env(scenario, num_envs=70, threads=threads, copy=copy)
        runs.append(_seeded_steps(envs, np.random.default_rng(4),
                                  lambda e: seen.add(e._chunks[0][1]) or ()))
    _same_runs(runs, 40)
    assert len(seen) > 20


def _entry_run(envs, copy, reset_at=None, owned=False) -> list:
    """40 seeded steps of ``envs`` from ``reset(seed=11)`` (random legal actions, one
    illegal every 9th step; ``reset_at``: a ``reset(seed=12)`` before that step): each
    step's (observations' copy, reward, terminated, truncated, mask, illegal flags),
    then the env's counts.
    ``owned``: each step's arrays are new, the caller's (none shares memory with the
    last step's: no buffer kept and written again; ``copy=False`` hands out the kept
    observations)."""
    obs, info = envs.reset(seed=11)
    rng = np.random.default_rng(4)
    run, last = [], ()
    for t in range(40):
        if t == reset_at:
            obs, info = envs.reset(seed=12)
        m = info["action_mask"]
        acts = (rng.random(m.shape) * m).argmax(1)
        if t % 9 == 8:
            acts[t % 13] = m.shape[1] - 1 if not m[t % 13, -1] else 0
        got = envs.step(acts)
        if owned:
            new = (*got[:4], got[4]["action_mask"])[0 if copy else 1:]
            assert not any(np.shares_memory(u, v) for u in new for v in last), t
            last = new
        obs, r, te, tr, info = got
        run.append((obs.copy(), r, te, tr, info["action_mask"],
                    info.get("illegal_action", np.zeros(0, bool))))
    run.append(tuple(envs.counts.values()))
    return run


def _entry_vs_dispatcher(monkeypatch, module, flag, make, used, **kw):
    """:func:`_entry_run` (``kw``) of ``make(copy)``'s envs, copy=True and kept, with
    ``module.flag`` (call the compiled step at its entry point) on, then off: the runs
    equal; ``used(envs, flag)`` checks which calls each env made."""
    runs = []
    for entry in (True, False):
        monkeypatch.setattr(module, flag, entry)
        run = []
        for copy in (True, False):
            envs = make(copy)
            run += _entry_run(envs, copy, **kw)
            used(envs, entry)
        runs.append(run)
    assert len(runs[0]) == len(runs[1]) == 82
    for x, y in zip(*runs):
        assert len(x) == len(y)
        assert all(np.array_equal(u, v) for u, v in zip(x, y))


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("game", ARRAY_GAMES)
def test_step_at_its_entry_point_equals_the_dispatcher(game, threads, monkeypatch):
    """The step's compiled chunk called at its overload's entry point (after the first
    step, ``MovecoreVectorEnv._run``) plays what the dispatcher's call plays: the same
    observations, rewards, ends and masks over seeded runs (copy=True and kept)."""
    import movecore.batch as batch
    from movecore.rl._vecgame import env_chunk
    scenario = example_scenarios(game)[0][1]

    def used(envs, entry):
        # the entry points are used where asked for (compiled wrappers, not the
        # dispatchers: the step's chunk, its modes), the dispatchers where not
        called = envs._entries
        assert (set(called) == {"modes", ("step", not envs.copy)} and
                env_chunk not in called.values() and
                all(not hasattr(c, "overloads") for c in called.values())) \
            if entry else not called

    _entry_vs_dispatcher(monkeypatch, batch, "ENTRY", lambda copy: rl.vector_env(
        scenario, num_envs=13, threads=threads, copy=copy, max_turns=9), used)


def _whole_entries(envs) -> dict:
    """The entry points an env's whole step (one compiled call per thread chunk) keeps:
    Dark Realms' ``_vecdr_env.WholeSteps``, Heroscape's or Descent's ``WholeStep``."""
    dr = envs._np._dr
    if dr is not None:
        return dr.whole_steps._entries
    return (envs._hsf if envs._hsf is not None else envs._dsf)._entries


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("name", ["heroscape_engaged_knight", "descent_door_round",
                                  "dark_realms_die_planning"])
def test_whole_step_at_its_entry_point_equals_the_dispatcher(name, threads,
                                                             monkeypatch):
    """Heroscape's, Descent's and Dark Realms' whole step called at its compiled
    overload's entry point after its first call (``batch.entry_call``) plays what the
    dispatcher's call plays: the same observations, rewards, ends, masks and counts
    over seeded runs with illegal actions, autoresets and a reset halfway (copy=True
    and kept), each step's arrays new (the caller's); the entry points are used
    (compiled wrappers, not the dispatcher)."""
    import movecore.batch as batch

    def used(envs, entry):
        called = _whole_entries(envs)
        assert (called and all(not hasattr(c, "overloads") for c in called.values())) \
            if entry else not called

    _entry_vs_dispatcher(monkeypatch, batch, "ENTRY", lambda copy: rl.vector_env(
        name, num_envs=13, threads=threads, copy=copy, max_turns=9), used,
        reset_at=20, owned=True)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("name", ["grid_hex_skirmish", "mage_knight_first_turns",
                                  "heroscape_engaged_knight", "descent_door_round",
                                  "dark_realms_die_planning"])
def test_actions_of_any_integer_array_play_as_int64(name, threads):
    """The step's compiled calls, at their entry points found for int64 C arrays
    (``batch.entry_call``), get the actions as such whatever the caller hands: int32,
    strided, big-endian and read-only arrays and lists of ints play what int64 arrays
    play (the same observations, rewards, ends, masks and illegal flags after every
    step, legal and illegal actions, autoresets); the caller's array is not written."""
    forms = (lambda a: a, lambda a: a.astype(np.int32),
             lambda a: np.repeat(a, 2)[::2], lambda a: a.astype(np.uint16).tolist(),
             lambda a: np.require(a, np.int64, "C").view(">i8").byteswap().view(">i8"))

    def ro(a):
        a = a.copy()
        a.flags.writeable = False
        return a

    runs = []
    for k in range(2):
        envs = rl.vector_env(name, num_envs=5, threads=threads, max_turns=9)
        envs.reset(seed=2)
        rng = np.random.default_rng(9)
        run = []
        for t in range(36):
            m = envs._mask
            a = (rng.random(m.shape) * m).argmax(1).astype(np.int64)
            if t % 7 == 3:
                a[t % 5] = m.shape[1] + 1 if t % 2 else 0      # (illegal, or maybe)
            given = a.copy() if k == 0 else \
                (ro(a) if t % 6 == 5 else forms[t % len(forms)](a.copy()))
            keep = np.array(given, copy=True)
            obs, r, term, trunc, info = envs.step(given)
            assert np.array_equal(np.asarray(given), keep)
            run.append((obs.copy(), r, term, trunc, info["action_mask"],
                        info.get("illegal_action", np.zeros(5, bool))))
        runs.append(run)
    _same_runs(runs, 36)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("game", ARRAY_GAMES)
def test_next_game_hint_changes_nothing(game, threads, monkeypatch):
    """The step's hint that the next game's occupancy row and answers will be read
    (``_vecgame._fetch_game``, ``vector._FETCH_GAME``; on where answers are large:
    Tiny Epic Tactics) plays what the step without it plays: the same observations,
    rewards, ends, masks and occupancy after every step of seeded runs with illegal
    actions (copy=True and kept), more games than a block."""
    import movecore.rl.vector as vector
    from movecore.rl._vecgame import _BLOCK
    name, scenario = example_scenarios(game)[0]
    runs, flags = [], []
    for hint in (True, False):
        monkeypatch.setattr(vector, "_FETCH_GAME", hint)
        run = []
        for copy in (True, False):
            envs = rl.vector_env(scenario, num_envs=_BLOCK + 7, threads=threads, copy=copy,
                                 max_turns=12)
            flags.append(envs._S[0][27])
            run += _seeded_steps(envs, np.random.default_rng(len(name) + threads),
                                 lambda e: (e.games.occ.copy(),))
        runs.append(run)
    on = game == "tiny_epic_tactics"
    assert flags == [on, on, False, False]
    _same_runs(runs, 80)


def _seeded_steps(envs, rng, extra) -> list:
    """40 steps of ``envs`` from ``reset(seed=7)``, random legal actions of ``rng`` and
    an illegal one every tenth step: after each, (observations, rewards, ends, masks,
    ``*extra(envs)``)."""
    run = []
    obs, info = envs.reset(seed=7)
    for t in range(40):
        m = info["action_mask"]
        acts = (rng.random(m.shape) * m).argmax(1)
        if t % 10 == 9:
            acts[t % 11] = 0 if not m[t % 11, 0] else m.shape[1]
        obs, r, te, tr, info = envs.step(acts)
        run.append((obs.copy(), r, te, tr, info["action_mask"], *extra(envs)))
    return run


def _same_runs(runs, n) -> None:
    assert len(runs[0]) == len(runs[1]) == n
    for x, y in zip(*runs):
        assert all(np.array_equal(u, v) for u, v in zip(x, y))


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("game,name,scenario", _array_scenarios(),
                         ids=[n for _, n, _ in _array_scenarios()])
def test_kept_ends_equal_the_kernel(game, name, scenario, threads, monkeypatch):
    """The kernel's ends kept per (figure, shape, start) on the board with no figure
    on it (``vector._KEPT_BYTES``, ``MovecoreVectorEnv._kept_ends``), read wherever no
    other figure stands on a cell the kept search settled, or only on ones the mover
    passes, or on the search's leaves (the cells it may not end on dropped:
    ``_vecgame._held``), play what the
    step asking the kernel plays: the same observations, rewards, ends, masks and
    answers (cells, costs, stops, counts, in order) after every step of seeded runs
    with illegal actions, both opponents, copy=True and kept, more games than a block;
    and the end rules' counts of the figures' one-figure spaces and of the dropped
    cells (``_vecgame._answer``'s ``no_end``) are back to the layout's no-end spaces
    after every step. Where figures block (grid, Tiny Epic Tactics) the runs of the
    bench's scenario (the game's first) take each way: kept ends as they are, kept ends
    less held cells, the kernel asked (elsewhere some may not: the grid issue's example,
    3 spaces, never keeps)."""
    import movecore.rl.vector as vector
    from movecore.rl._vecgame import _BLOCK
    runs, kept, used = [], [], np.zeros(3, np.int64)
    for on in (True, False):
        monkeypatch.setattr(vector, "_KEPT_BYTES", vector._KEPT_BYTES if on else 0)
        run = []
        for copy, opponent in ((True, "random"), (False, "greedy")):
            envs = rl.vector_env(scenario, num_envs=_BLOCK + 7, threads=threads,
                                 copy=copy, max_turns=12, opponent=opponent)
            kept.append(envs._S[0][29].shape[0] > 0)
            no_end = np.zeros(envs._N, np.int32)
            no_end[envs.games._no_end] = 1

            def answers(e):
                assert all(np.array_equal(S[24], no_end) for S in e._S)
                st = e._state
                used = np.arange(st["ans_cell"].shape[2]) < st["ans_n"][..., None]
                return (*[np.where(used, st[x], 0) for x in ("ans_cell", "ans_cost",
                                                             "ans_stop")],
                        st["ans_n"].copy())
            run += _seeded_steps(envs, np.random.default_rng(len(name) + threads),
                                 answers)
            if on:      # (kept as they are, kept less held cells, the kernel asked)
                n_kept, n_held = envs._n_kept
                used += (n_kept - n_held, n_held, envs.counts["generations"] - n_kept)
        runs.append(run)
    assert kept == [True, True, False, False]
    _same_runs(runs, 80)
    if game == "mage_knight":           # (no figure ever blocks: always kept)
        assert used[0] > 0 and used[1] == used[2] == 0
    elif name == example_scenarios(game)[0][0]:
        assert (used > 0).all(), used


def answer_at(S, f, start, began, cell, alive):
    """``_vecgame._answer`` for one query of game 0 into answer slot 0, called from
    Python with the argument types of the env's own calls (``_answer`` is cached: a
    second signature would fail the session's audit), so the env's compiled entry
    answers (a compiled wrapper of it cost ~3 CPU s on a cold cache)."""
    from movecore.rl._vecgame import _answer
    _answer(S, np.int64(0), np.int64(f), np.int64(0), np.int32(start), np.int32(began),
            cell, alive)


@pytest.mark.parametrize("game,name,scenario", _array_scenarios(),
                         ids=[n for _, n, _ in _array_scenarios()])
def test_kept_ends_equal_the_kernel_anywhere(game, name, scenario):
    """The kept ends (``MovecoreVectorEnv._kept_ends``, read by ``_vecgame._answer``)
    equal the kernel's answer on random boards: the figures in play (a random subset)
    on random distinct cells, each query from a figure's cell with its shape by a random
    cell where it began (Tiny Epic Tactics' ballistas: shapes the seeded runs of the
    test above seldom reach); the same cells, costs, stops and count in order, and
    ``no_end`` back after each query. Each way is taken (kept as they are, kept less
    held cells, the kernel asked) in the bench's scenario where figures block."""
    envs = rl.vector_env(scenario, num_envs=1)
    S = envs._S[0]
    if S[29].shape[0] == 0:
        pytest.skip("no kept ends")
    asked = S[:28] + (S[28][:0], S[29][:0], S[30][:0])     # the kernel path
    occ, cell, alive, team = envs.games.occ, envs.games.cell, envs.games.alive, \
        envs.games.team
    no_end = S[24].copy()
    ans = envs._state["ans_cell"], envs._state["ans_cost"], envs._state["ans_stop"]
    rng = np.random.default_rng(5)
    N, F = occ.shape[1], cell.shape[1]
    before = S[26].copy()
    # the cells of a shape of their own (ballistas): often a figure's, often where one
    # began (a unit that began there may not end there, and may pass it)
    special = np.flatnonzero(envs.games._shape_cell > 0)
    for _ in range(600):
        occ[0] = -1
        alive[0] = rng.random(F) < 0.8
        at = rng.permutation(N)
        if special.size and rng.random() < 0.5:
            at = np.concatenate([rng.permutation(special), at[~np.isin(at, special)]])
            at[:F] = rng.permutation(at[:F])
        cell[0] = np.where(alive[0], at[:F], -1)
        occ[0, cell[0, alive[0]]] = team[alive[0]]
        for f in np.flatnonzero(alive[0]):
            began = int(cell[0, f]) if not envs._batch else int(rng.choice(special)) \
                if special.size and rng.random() < 0.5 else int(rng.integers(N))
            got = []
            for s in (S, asked):
                answer_at(s, f, cell[0, f], began, cell, alive)
                n = envs._state["ans_n"][0, 0]
                got.append((n, *[a[0, 0, :n].copy() for a in ans]))
                assert np.array_equal(S[24], no_end)
            assert all(np.array_equal(x, y) for x, y in zip(*got))
    d = S[26] - before          # (generations of both paths, kept, held)
    if game == "mage_knight":
        assert d[2] * 2 == d[1] > 0 and d[3] == 0
    elif name == example_scenarios(game)[0][0]:
        assert (np.array([d[2] - d[3], d[3], d[1] / 2 - d[2]]) > 0).all(), d


@pytest.mark.slow
@pytest.mark.parametrize("game,name,scenario", _array_scenarios(),
                         ids=[n for _, n, _ in _array_scenarios()])
def test_arrays_backend_ten_thousand_moves(game, name, scenario):
    """At least 10,000 moves per game (issue 29), shared out over its bundled scenarios
    (one test each; each scenario's share rounded up)."""
    B = 32
    envs = rl.vector_env(scenario, num_envs=B, max_turns=12)
    singles = [MovecoreGym(scenario, max_turns=12) for _ in range(B)]
    rng = np.random.default_rng(2)
    share = -(-10_000 // sum(1 for g, _, _ in _array_scenarios() if g == game))
    assert _check_against_singles(envs, singles, 1000, rng, seed=17, until=share) >= share


@pytest.mark.parametrize("game", GAMES)
def test_batched_observation_equals_single_observe(game):
    """``observe()`` (one compiled call on arrays, a loop over positions otherwise)
    equals each game's single-env observation, and writes into ``out``."""
    name, scenario = example_scenarios(game)[-1]
    B = 4
    envs = rl.vector_env(scenario, num_envs=B)
    singles = [MovecoreGym(scenario) for _ in range(B)]
    rng = np.random.default_rng(9)
    _check_against_singles(envs, singles, 25, rng, seed=2)
    out = np.full(envs.observation_space.shape, 7, np.float32)
    assert envs.observe(out=out) is out
    assert np.array_equal(out, np.stack([e._core.observe(e.agent) for e in singles]))
    import movecore as mc
    with pytest.raises(mc.QueryError):
        envs.observe(out=np.zeros((B, 1), np.float32))


def test_backends_agree_and_illegal_raise():
    """The positions backend of an array game gives the same games; ``illegal="raise"``
    raises naming the game and changes none."""
    import movecore as mc
    scenario = example_scenarios("grid")[0][1]
    a = rl.vector_env(scenario, num_envs=5)
    b = rl.vector_env(scenario, num_envs=5, backend="positions")
    assert (a.backend, b.backend) == ("arrays", "positions") and b.why == "asked for"
    oa, _ = a.reset(seed=4)
    ob, _ = b.reset(seed=4)
    rng = np.random.default_rng(1)
    for _ in range(40):
        assert np.array_equal(oa, ob)
        assert np.array_equal(a.action_masks(), b.action_masks())
        acts = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0
                         for m in a.action_masks()])
        oa, ra, ta, tra, _ = a.step(acts)
        ob, rb, tb, trb, _ = b.step(acts)
        assert np.array_equal(ra, rb) and np.array_equal(ta, tb) and np.array_equal(tra, trb)
    r = rl.vector_env(scenario, num_envs=3, illegal="raise")
    r.reset(seed=0)
    before = r.observe().copy()
    acts = np.array([np.flatnonzero(m)[0] for m in r.action_masks()])
    acts[1] = r.single_action_space.n + 5
    with pytest.raises(mc.IllegalMoveError, match="game 1"):
        r.step(acts)
    assert np.array_equal(r.observe(), before)
    with pytest.raises(mc.IllegalMoveError):
        r.step(acts[:2])
    with pytest.raises(mc.QueryError):
        rl.vector_env(scenario, num_envs=2, backend="arrays", reward_fn=lambda *a: {})
    with pytest.raises(mc.QueryError):
        rl.vector_env(scenario, num_envs=2, threads=0)
    with pytest.raises(mc.QueryError):      # (the glyph to town: positions)
        rl.vector_env("descent_ogre", num_envs=2, town=True, backend="arrays")
    with pytest.raises(mc.QueryError):
        rl.vector_env(scenario, num_envs=2).step(np.zeros(2, np.int64))   # before reset


@pytest.mark.parametrize("game", ["heroscape", "descent", "dark_realms"])
def test_an_env_builds_its_games_layout_once(game, monkeypatch):
    """Pay once: a numpy-driven env builds its ``BatchedGames`` (the game's batched
    layout: a Heroscape board's static ends, ~0.2 s) once, the B games of its threads,
    whose layout told the backend it takes them (it was built twice: a game to tell,
    then the env's B). The positions backend tells with one game and plays none; so
    does an env whose layout the arrays refuse (no B copies of the root made to tell
    it)."""
    import movecore as mc
    from movecore import batch
    built = []
    init = batch.BatchedGames.__init__

    def spy(self, root, num_games, **kw):
        built.append((num_games, kw.get("threads", 1)))
        init(self, root, num_games, **kw)

    monkeypatch.setattr(batch.BatchedGames, "__init__", spy)
    scenario = example_scenarios(game)[0][1]
    envs = rl.vector_env(scenario, num_envs=5, threads=2)
    assert envs.backend == "arrays" and built == [(5, 2)]
    assert envs.games.B == 5 and envs.games.threads == 2
    built.clear()
    assert rl.vector_env(scenario, num_envs=5, backend="positions").why == "asked for"
    assert built == [(1, 1)]
    # a layout the arrays refuse: told by one game, no B copies of the root made
    root_type = type(rl.gym_env(scenario)._s.root)
    monkeypatch.setattr(root_type, "_batch_layout",
                        lambda self, q: (None, "no layout in this test"), raising=False)
    copies = []
    copy = root_type.copy
    monkeypatch.setattr(root_type, "copy", lambda self: copies.append(1) or copy(self))
    built.clear()
    envs = rl.vector_env(scenario, num_envs=5, threads=2)
    assert envs.backend == "positions" and "no layout in this test" in envs.why
    assert built == [(5, 2), (1, 1)] and len(copies) <= 1
    with pytest.raises(mc.QueryError, match="no layout in this test"):
        rl.vector_env(scenario, num_envs=5, backend="arrays")


def test_gymnasium_vector_api():
    """Gymnasium's vector conventions: spaces, autoreset metadata, a vector wrapper."""
    import gymnasium as gym
    from gymnasium.vector import AutoresetMode
    envs = rl.vector_env("grid_hex_skirmish", num_envs=4)
    assert isinstance(envs, gym.vector.VectorEnv)
    assert envs.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    wrapped = gym.wrappers.vector.RecordEpisodeStatistics(envs)
    obs, info = wrapped.reset(seed=0)
    assert envs.observation_space.contains(obs)
    envs.action_space.seed(0)
    for _ in range(30):     # any action of the space: illegal ones end their game
        obs, r, te, tr, info = wrapped.step(envs.action_space.sample())
        assert envs.observation_space.contains(obs)
    # the same seed, the same games, whichever thread count
    x = rl.vector_env("grid_hex_skirmish", num_envs=6, threads=2)
    y = rl.vector_env("grid_hex_skirmish", num_envs=6, threads=1)
    assert np.array_equal(x.reset(seed=[3, 4, 5, 6, 7, 8])[0], y.reset(seed=3)[0])


def test_docstring_example():
    import doctest
    import importlib
    failed, tried = doctest.testmod(importlib.import_module("movecore.rl.vector"),
                                    optionflags=doctest.ELLIPSIS)
    assert failed == 0 and tried > 0


@pytest.mark.parametrize("game", ARRAY_GAMES)
def test_arrays_backend_second_side_and_short_games(game):
    """The learner moving second (the opponents play at reset) and games truncated
    after a few turns: still every game equals its single env."""
    name, scenario = example_scenarios(game)[0]
    side = MovecoreGym(scenario)._s.agents[1]          # the second side to move
    B = 6
    envs = rl.vector_env(scenario, num_envs=B, side=side, max_turns=5, opponent="greedy")
    assert envs.backend == "arrays"
    singles = [MovecoreGym(scenario, side=side, max_turns=5, opponent="greedy")
               for _ in range(B)]
    rng = np.random.default_rng(4)
    assert _check_against_singles(envs, singles, 60, rng, seed=8) > 150


def _kept_run(envs, steps, seed, corrupt=None):
    """Step ``envs`` (``copy=False``) with random legal actions (an illegal one now and
    then: a game ends, the next step restarts it); after every step the kept
    observations it returns equal a draw from scratch (``observe()``) and the masks
    its own. Returns (steps, the steps where a place the last observation held off
    zero is zero now: what a kept buffer must clear). ``corrupt(envs)`` is called
    before every step (a wrong update, to show the check fails)."""
    rng = np.random.default_rng(seed)
    obs, _ = envs.reset(seed=seed)
    assert np.array_equal(obs, envs.observe())
    cleared = 0
    for t in range(steps):
        before = obs.copy()
        masks = envs.action_masks()
        acts = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
        if t % 17 == 16:
            acts[t % envs.num_envs] = envs.single_action_space.n - 1 \
                if not masks[t % envs.num_envs][-1] else 0
        if corrupt is not None:
            corrupt(envs)
        obs, _, _, _, info = envs.step(acts)
        fresh = envs.observe()
        if not np.array_equal(obs, fresh):
            return t, None
        assert np.array_equal(info["action_mask"], envs._mask)
        cleared += bool(((before != 0) & (fresh == 0)).any())
    return steps, cleared


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("game,name,scenario", _array_scenarios(),
                         ids=[n for _, n, _ in _array_scenarios()])
def test_kept_observations_equal_a_draw_from_scratch(game, name, scenario, threads):
    """``copy=False``: ``step`` updates the kept observations only where they change
    (``_vecgame.observe``'s kept mode) and returns them read-only; after every step of
    seeded runs (autoresets and illegal actions included) they equal the observations
    drawn from scratch, which the other tests hold equal to the single envs'."""
    B = 7
    envs = rl.vector_env(scenario, num_envs=B, threads=threads, copy=False,
                         max_turns=9)
    steps, cleared = _kept_run(envs, 90, seed=len(name) + threads)
    assert steps == 90
    assert cleared > 10          # the runs do clear places drawn before
    obs = envs.step(np.zeros(B, np.int64))[0]
    assert obs.base is envs._obs or obs is envs._obs
    with pytest.raises(ValueError):
        obs[0, 0, 0, 0] = 1.0                   # the kept buffer is read-only
    # copy=True (the default): each step's observations are the caller's to keep
    c = rl.vector_env(scenario, num_envs=B, threads=threads)
    first, _ = c.reset(seed=1)
    keep = first.copy()
    c.step(np.array([np.flatnonzero(m)[0] for m in c.action_masks()]))
    assert np.array_equal(first, keep)


def _copy_against_kept(scenario, steps, seed, corrupt=None):
    """Step a ``copy=True`` env (each observation drawn whole into a new array) and a
    ``copy=False`` one (the kept buffer: updated where it changed, or drawn whole in place
    when small) with the same seeds and actions; returns the first step where their
    observations or masks differ (``steps``: none). ``corrupt(envs)``: called on the
    ``copy=True`` env after its reset."""
    a = rl.vector_env(scenario, num_envs=5, max_turns=9)
    b = rl.vector_env(scenario, num_envs=5, max_turns=9, copy=False)
    oa, ia = a.reset(seed=seed)
    ob, ib = b.reset(seed=seed)
    if corrupt is not None:
        corrupt(a)
    rng = np.random.default_rng(seed)
    for t in range(steps):
        if not (np.array_equal(oa, ob) and np.array_equal(ia["action_mask"],
                                                          ib["action_mask"])):
            return t
        masks = a.action_masks()
        acts = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
        if t % 13 == 12:                # an illegal action: that game ends, then restarts
            acts[t % 5] = a.single_action_space.n - 1 if not masks[t % 5][-1] else 0
        oa, _, _, _, ia = a.step(acts)
        ob, _, _, _, ib = b.step(acts)
    return steps


@pytest.mark.parametrize("game", ARRAY_GAMES)
def test_copy_draws_whole_what_the_kept_buffer_holds(game):
    """``copy=True`` draws each game's observation whole into the new array (the path
    that replaced updating the kept buffer and copying it): after every step it equals
    the kept buffer of a ``copy=False`` env stepped alike, which Tiny Epic Tactics still
    updates where it changed and the grid game and Mage Knight (at most ``_WHOLE``
    floats) draw whole in place; the check fails when the whole draw's static planes
    are wrong."""
    from movecore.rl.vector import _WHOLE
    name, scenario = example_scenarios(game)[0]
    envs = rl.vector_env(scenario, num_envs=2, copy=False)
    whole = int(np.prod(envs.single_observation_space.shape)) <= _WHOLE
    assert (envs._K is envs._scratch) == whole and whole == (game != "tiny_epic_tactics")
    assert _copy_against_kept(scenario, 60, seed=len(name)) == 60

    def wrong_static(envs):      # the static planes the whole draw copies, off by one
        envs._base[np.flatnonzero(envs._base)[0]] += 1.0

    if not whole:                # (drawn whole in both, the wrong planes would agree)
        assert _copy_against_kept(scenario, 60, seed=1, corrupt=wrong_static) < 60


def test_kept_observations_check_fails_on_a_wrong_update():
    """The check above fails when the kept update is wrong: forgetting the places drawn
    last time (never cleared), or the turn plane's turn (never rewritten)."""
    scenario = example_scenarios("tiny_epic_tactics")[0][1]

    def forget(envs):
        envs._n_drawn[:] = 0

    def stale_turn(envs):       # the kept draw told its turn plane shows this turn
        B, C = envs.num_envs, envs.single_observation_space.shape[0]
        plane = envs._obs.reshape(B, C, -1)[:, envs._d + 5]
        plane[:] = 0.0          # (as never rewritten: the step's draw keeps it when
        envs._oturn[:] = envs._state["turn"]    # the turn it records is the game's)

    for corrupt in (forget, stale_turn):
        envs = rl.vector_env(scenario, num_envs=5, copy=False, max_turns=9)
        steps, cleared = _kept_run(envs, 60, seed=3, corrupt=corrupt)
        assert steps < 60 and cleared is None, corrupt.__name__
    with pytest.raises(Exception):
        rl.vector_env(scenario, num_envs=2, copy="no")


def test_compiled_stream_is_numpys_pcg64():
    """The compiled step draws each game's numbers itself (``_vecgame._draw``, on the
    PCG64 state taken from the game's ``np_random``): bit for bit what the single env's
    ``np_random.random()`` gives, over seeds and long runs (the 128-bit carries)."""
    from gymnasium.utils import seeding
    from movecore.rl._vecgame import draws
    envs = rl.vector_env("grid_hex_skirmish", num_envs=3)
    for seed in (0, 1, 12345, 2**63 + 7):
        envs._seed_stream(1, seed)
        want = seeding.np_random(seed)[0]
        got = np.empty(5000)
        draws(envs._state["rng"], 1, got)
        assert np.array_equal(got, want.random(5000)), seed
    # the state the env keeps is numpy's after those draws
    g = seeding.np_random(3)[0]
    envs._seed_stream(2, 3)
    draws(envs._state["rng"], 2, np.empty(777))
    g.random(777)
    s = g.bit_generator.state["state"]["state"]
    assert [int(x) for x in envs._state["rng"][2, :2]] == [s >> 64, s & (2**64 - 1)]


def _selection_errors(select, rng, sizes=range(1, 41), per=25):
    """Cases where ``select(keys, n, want)`` (the index of the ``want``-th smallest of
    the distinct ``keys[:n]``) differs from a sort."""
    bad = 0
    for n in sizes:
        for _ in range(per):
            keys = rng.choice(5 * n + 10, n, replace=False).astype(np.int64)
            want = int(rng.integers(n))
            work = keys.copy()          # (quickselect reorders it)
            bad += work[select(work, n, want)] != np.sort(keys)[want]
    return bad


def test_opponent_pick_by_counting_equals_a_sort():
    """``_vecgame._row_at`` picks among a move's few rows (at most ``_SMALL``) by counting
    the keys below each (``_kth_small``) and among more by quickselect (``_kth``): both
    give the ``want``-th smallest key; the check fails on a selection off by one."""
    from movecore.rl._vecgame import _SMALL, _kth, _kth_small
    rng = np.random.default_rng(0)
    assert _selection_errors(_kth_small, rng) == 0
    assert _selection_errors(
        lambda k, n, w: int(np.flatnonzero(k == _kth(k, n, w))[0]), rng) == 0
    assert _selection_errors(lambda k, n, w: _kth_small(k, n, min(w + 1, n - 1)),
                             rng, sizes=range(2, 9)) > 0
    assert 8 <= _SMALL <= 64


def test_list_and_lists_the_set_places_as_a_scan():
    """``kernels._bytes.list_and`` (the kept answer's list, ``_kept_answer.keep_list``:
    32 places a step, eight slots a vector store) lists the places where two byte rows'
    AND is not 0, ascending, as a place-at-a-time scan does: rows of every density,
    lengths on and off the 32-place step, bytes other than 0/1 (an AND of 2 and 1 is
    0), bool and int8 rows, a row's last place, and the scalar path (an int64 list);
    and it writes no slot at or past ``n``. ``hs_queries``' listing from bit sets
    (``put8`` a byte of cells) is held to the general path by the Heroscape env tests
    above."""
    from numba import njit

    from movecore.kernels._bytes import SET_BITS, list_and

    @njit
    def run(x, y, g, dst, n):
        c = np.zeros(x.shape[0], np.int64)
        for b in range(x.shape[0]):
            c[b] = list_and(x, b, y, g[b], dst, b, n)
        return c

    for m in range(256):
        assert list(SET_BITS[8 * m:8 * m + bin(m).count("1")]) == \
            [h for h in range(8) if m >> h & 1]
    rng = np.random.default_rng(5)
    for P in (1, 7, 31, 32, 33, 64, 95, 746):
        for dens in (0.0, 0.02, 0.14, 0.5, 1.0):
            R = 40
            x = (rng.random((R, P)) < dens).astype(np.uint8)
            x[::3] *= rng.integers(1, 4, (len(x[::3]), P)).astype(np.uint8)
            x[1, -1] = 1
            y = rng.integers(0, 3, (4, P)).astype(np.uint8)
            y[0] = 1
            g = rng.integers(0, 4, R)
            g[1] = 0
            for xx, yy, dt in ((x, y, np.int32), (x != 0, y, np.int32),
                               (x.astype(np.int8), y != 0, np.int32),
                               (x, y, np.int64)):
                for n in (P, P - 1):
                    dst = np.full((R, P + 1), -7, dt)
                    c = run(xx, yy, g, dst, n)
                    for b in range(R):
                        want = np.flatnonzero((xx[b, :n].astype(np.uint8) &
                                               yy[g[b], :n].astype(np.uint8)) != 0)
                        assert c[b] == len(want), (P, dens, b)
                        assert (dst[b, :c[b]] == want).all(), (P, dens, b)
                        assert (dst[b, n:] == -7).all()
                    # (uncompiled, the same scan)
                    py = np.full((R, P + 1), -7, dt)
                    assert list_and(xx, 2, yy, g[2], py, 2, n) == c[2]
                    assert (py[2, :c[2]] == dst[2, :c[2]]).all()


def test_fetch_ahead_is_a_hint_on_large_answers_only():
    """``_vecgame._fetch_ahead`` (cache hints for the next game's rows and answer) and
    ``_fetch_game`` (its occupancy row and answers) change no array; the first is
    issued where a game's answers are large (Tiny Epic Tactics: its differentials above
    run with it) and not for the grid game or Mage Knight (whose step it slowed);
    ``prefetch`` itself compiles for any 1-D dtype."""
    from numba import njit

    from movecore.kernels._prefetch import prefetch
    from movecore.rl._vecgame import _fetch_ahead, _fetch_game, _fetches_ahead

    @njit
    def touch(a, b):
        for i in range(a.shape[0]):
            prefetch(a, i)
            prefetch(b, i)
        return a.sum() + b.sum()

    assert touch(np.arange(5, dtype=np.int8), np.arange(5.0)) == 20.0
    ahead = {}
    for name in ("tiny_epic_tactics_knock_back", "grid_hex_skirmish",
                 "mage_knight_first_turns"):
        e = rl.vector_env(name, num_envs=5)
        e.reset(seed=2)
        for _ in range(3):
            e.step(np.array([np.argmax(m) for m in e.action_masks()]))
        st = e._state
        ahead[name] = bool(_fetches_ahead(st["ans_cell"]))
        arrays = (st["ans_cell"], st["ans_cost"], st["ans_stop"], st["ans_n"], st["rows"],
                  st["n_rows"], st["actor"])
        arrays += (e.games.occ,)
        before = [a.copy() for a in arrays]
        for b in range(5):
            for whole in (False, True):
                _fetch_ahead(*arrays[:7], e._batch, b, whole)
                _fetch_ahead(*arrays[:3], None, *arrays[4:7], e._batch, b, whole)
            _fetch_game(arrays[7], *arrays[:4], b)
        assert all(np.array_equal(x, y) for x, y in zip(before, arrays))
    assert ahead == {"tiny_epic_tactics_knock_back": True, "grid_hex_skirmish": False,
                     "mage_knight_first_turns": False}


def test_opponent_row_from_its_cost_run_equals_a_sort():
    """``_vecgame._row_at``: the ``want``-th of a move's rows in the single env's order
    (cost, then coordinate rank), ranked within the run of its cost where the rows come
    in cost order (the kernel's), keyed whole where they do not (``_row_by_keys``),
    against a sort: answers of up to 70 rows (runs longer and shorter than ``_SMALL``,
    so both the counting and the quickselect), rows a subset in answer order."""
    from movecore.rl._vecgame import _SMALL, _row_at
    rng = np.random.default_rng(5)
    N = 90
    rank = rng.permutation(N).astype(np.int64)
    unrank = np.argsort(rank).astype(np.int64)
    keys = np.zeros(N, np.int64)
    seen = {True: 0, False: 0}
    long_runs = 0
    for trial in range(600):
        m = int(rng.integers(1, 71))
        cells = rng.choice(N, m, replace=False)
        cost = np.sort(rng.integers(0, int(rng.integers(1, 6)), m))
        in_order = trial % 3 != 0
        if not in_order:
            rng.shuffle(cost)
        in_order = bool(np.all(np.diff(cost) >= 0))
        ans_cell = np.zeros((2, 2, N), np.int32)
        ans_cost = np.zeros((2, 2, N), np.int32)
        ans_cell[1, 1, :m] = cells
        ans_cost[1, 1, :m] = cost
        rows = np.sort(rng.choice(m, int(rng.integers(1, m + 1)), replace=False))
        n = len(rows)
        rows = np.concatenate([rows, np.full(N - n, -1)]).astype(np.int64)
        order = sorted(rows[:n], key=lambda r: (cost[r], rank[cells[r]]))
        for want in {0, n - 1, int(rng.integers(n))}:
            got = _row_at(rank, ans_cell, ans_cost, keys, unrank, rows, 1, 1, n, want)
            assert got == order[want], (trial, n, want)
        seen[in_order] += 1
        run = np.bincount(cost[rows[:n]]).max()
        long_runs += in_order and run > _SMALL
    assert seen[True] > 100 and seen[False] > 100 and long_runs > 20, (seen, long_runs)


@pytest.mark.parametrize("seed", [np.int64(3), [np.int64(1), 2], (np.uint8(4), None)])
def test_reset_takes_numpy_integer_seeds(seed):
    """A numpy integer seed (what ``np.random`` gives) seeds like the same Python int."""
    from movecore.rl import vector_env
    env, ref = vector_env("grid_hex_skirmish", 2), vector_env("grid_hex_skirmish", 2)
    as_int = int(seed) if np.ndim(seed) == 0 else [None if s is None else int(s) for s in seed]
    o1, _ = env.reset(seed=seed)
    o2, _ = ref.reset(seed=as_int)
    assert np.array_equal(o1, o2)


@pytest.mark.parametrize("seed", [-1, 1.5, True, "7", [1], [1, -2], [1, 2.0]])
def test_reset_refuses_bad_seeds_with_a_typed_error(seed):
    from movecore.errors import QueryError
    from movecore.rl import vector_env
    env = vector_env("grid_hex_skirmish", 2)
    with pytest.raises(QueryError, match="seed"):
        env.reset(seed=seed)


# ---------------------------------------------------------------- numpy-driven arrays
@functools.lru_cache(maxsize=None)
def _np_scenarios():
    """Bundled scenarios for the numpy-driven arrays backend, two per game (Descent's
    door round and hell hound; Heroscape's with a double-space figure,
    ``backend="arrays"``); the random boards below cover the rest. Listed without
    building an env: the collection builds nothing (an env built here compiled
    Heroscape's two-space call, ~20 CPU s on a cold cache, in one pytest-xdist worker
    while the other waited for it)."""
    return [(game, name, s) for game in ("heroscape", "descent", "dark_realms")
            for name, s in example_scenarios(game)[::3]]


@pytest.mark.parametrize("game,name,scenario", _np_scenarios(),
                         ids=[n for _, n, _ in _np_scenarios()])
def test_numpy_arrays_backend_equals_single_envs(game, name, scenario):
    """Descent, Dark Realms and Heroscape play on ``BatchedGames`` arrays (the turn rule
    and the opponent over the batch); every game equals its single env after every step
    (observation with the game's planes, mask, reward, ends, illegal actions,
    autoresets), with each opponent and thread count in turn. (Each of them plays on
    the arrays: a QueryError here fails.)"""
    k = [n for _, n, _ in _np_scenarios()].index(name)
    threads, opponent = 1 + k % 2, ("random", "greedy")[(k // 2) % 2]
    B = 6
    envs = rl.vector_env(scenario, num_envs=B, threads=threads, opponent=opponent,
                         backend="arrays")
    assert envs.backend == "arrays" and envs.why is None and envs._np is not None
    singles = [MovecoreGym(scenario, opponent=opponent) for _ in range(B)]
    rng = np.random.default_rng(len(name) + threads)
    assert _check_against_singles(envs, singles, 45, rng, seed=5, illegal_every=23) > 150
    assert envs.counts["moves"] > 0 and envs.counts["generations"] > envs.counts["moves"] / 2


@pytest.mark.parametrize("game", [*ARRAY_GAMES, "heroscape", "descent", "dark_realms"])
def test_whole_or_split_steps_change_nothing(game, monkeypatch):
    """A 2-thread env whose steps run every game on the calling thread at some steps
    and split over the threads at others (``batch.ThreadChoice``; here at random, and
    the calls that follow the step's choice untimed, ``observe()`` and a partial
    reset's restart, follow the last one) equals a 1-thread env after every step of
    seeded runs, every game (Descent's, Dark Realms' and Heroscape's on the
    numpy-driven backend's compiled chunks); both ways are taken."""
    from movecore.batch import ThreadChoice
    _, scenario = example_scenarios(game)[0]
    ways, rng = [], np.random.default_rng(2)

    def use_split(self):
        self.split = bool(rng.integers(2))
        ways.append(self.split)
        return self.split

    def observe_and_reset(envs, t=[0]):
        t[0] += 1
        got = [envs.observe()]
        if t[0] % 6 == 0:       # (a partial reset: its restart's call)
            m = np.zeros(envs.num_envs, bool)
            m[t[0] % 7::5] = True
            got.append(envs.reset(options={"reset_mask": m})[0].copy())
        return got

    monkeypatch.setattr(ThreadChoice, "use_split", use_split)
    runs = []
    for threads in (1, 2):
        envs = rl.vector_env(scenario, num_envs=40, threads=threads, backend="arrays")
        assert envs.why is None and (game in ARRAY_GAMES or envs._np is not None)
        runs.append(_seeded_steps(envs, np.random.default_rng(4),
                                  lambda e, t=[0]: observe_and_reset(e, t)))
    _same_runs(runs, 40)
    assert any(ways) and not all(ways)


def _random_dungeon_runs(n, first, steps):
    """Random one-square dungeons (doors with runes, unrevealed and open ones, pits,
    ice, grapplers, auras: some moves answered on a live position of the game), the
    learner each side in turn, short and long turn limits, both opponents: every game
    equals its single env. Returns (moves checked, games whose doors opened)."""
    from test_batch_descent import _dungeons
    checked = opened = 0
    for k, (name, s) in enumerate(_dungeons(n, first)):
        agents = MovecoreGym(s)._s.agents
        side = agents[k % len(agents)]
        opp = ("random", "greedy")[(k // 2) % 2]
        mt = (5, 11, 40)[k % 3]
        envs = rl.vector_env(s, num_envs=6, opponent=opp, max_turns=mt, side=side)
        assert envs.backend == "arrays", (name, envs.why)
        singles = [MovecoreGym(s, opponent=opp, max_turns=mt, side=side) for _ in range(6)]
        checked += _check_against_singles(envs, singles, steps, np.random.default_rng(k),
                                          seed=first + k, illegal_every=19)
        g = envs._np.game
        opened += int((g.doors != g.doors0).sum())
    return checked, opened


def test_numpy_arrays_backend_random_dungeons():
    checked, opened = _random_dungeon_runs(4, 0, 30)
    assert checked > 500 and opened > 0


@pytest.mark.slow
def test_numpy_arrays_backend_random_dungeons_long():
    checked, opened = _random_dungeon_runs(8, 100, 70)
    assert checked > 2_500 and opened > 0


def _spy_large(envs) -> list:
    """Count, in ``envs``' numpy-driven steps, the moves that end turned (a base that
    turns: a place past the town, in its kind of now) and the removals of large bases:
    what the large-monster runs below must meet. Returns the live counts [turned,
    large removed]."""
    st = envs._np
    ns = st.s.root.st.ns
    large = np.array([sz != (1, 1) for sz in st.game.size0])
    got = [0, 0]
    play, remove = st.G._move_trusted, st.G.remove

    def move(rows, figs, to):
        got[0] += int((np.asarray(to) > ns).sum())
        play(rows, figs, to)

    def gone(games, figs):
        got[1] += int(large[np.asarray(figs)].sum())
        remove(games, figs)

    st.G._move_trusted, st.G.remove = move, gone
    fast = st._dp       # (the compiled move and removal: _vecdescent)

    def spy(rows, to, actor, tables, cell, alive, *rest):
        got[0] += int((np.asarray(to) > ns).sum())
        before = alive.copy()
        k = fast(rows, to, actor, tables, cell, alive, *rest)
        got[1] += int((before & ~alive)[:, large].sum())
        return k

    st._dp = spy
    one_call = envs._dsf        # (the step in one call per thread: _vecdescent_env)
    if one_call is not None:
        step = one_call.step

        def spy_step(mode, *rest):
            # (a base that turned flips its orientation; a restart's are the root's)
            o, a = st.game.orient.copy(), st.G.alive.copy()
            out = step(mode, *rest)
            on = (np.asarray(mode) != 2)[:, None]
            got[0] += int(((o != st.game.orient) & on).sum())
            got[1] += int(((a & ~st.G.alive) & on)[:, large].sum())
            return out

        one_call.step = spy_step
    return got


@pytest.mark.parametrize("name", ["descent_ogre", "descent_hero_run", "descent_dragon"])
def test_numpy_arrays_backend_large_monsters(name):
    """Descent's large monsters on arrays (the ogre's 2x2, the hell hound's 1x2, the
    dragon's 2x3 that turns under ``large_turns``): every game equals its single env
    after every step (the base's squares in the planes, removals and greedy distances
    over every square, a turned base's action ids and row order), each side learning,
    1 and 2 threads, random and greedy opponents."""
    from movecore.rl._core import _example
    s = _example(name)
    assert rl.vector_env(s, num_envs=1).backend == "arrays"        # (auto)
    agents = MovecoreGym(s)._s.agents
    turned = removed = checked = 0
    for k, (threads, opp) in enumerate(((1, "random"), (2, "greedy"))):
        side = agents[(k + len(name)) % len(agents)]
        envs = rl.vector_env(s, num_envs=6, threads=threads, opponent=opp, side=side,
                             backend="arrays")
        assert envs.why is None and envs._np.large
        got = _spy_large(envs)
        singles = [MovecoreGym(s, opponent=opp, side=side) for _ in range(6)]
        checked += _check_against_singles(envs, singles, 40,
                                          np.random.default_rng(k + len(name)),
                                          seed=3 + k + len(name), illegal_every=23)
        turned += got[0]
        removed += got[1]
    assert checked > 300 and turned > 0 and removed > 0


def _random_large_runs(n, first, steps):
    """Random dungeons with large monsters (``test_batch_descent``: every base, turning
    under each ``large_turns`` option, jumps and hound slides, grapplers and auras whose
    moves a live position of the game answers, doors): the learner each side in turn,
    short and long turn limits, both opponents, 1 and 2 threads: every game equals its
    single env. Returns (moves checked, moves that ended turned, large bases
    removed)."""
    from test_batch_descent import _large_dungeons
    checked = turned = removed = 0
    for k, (name, s) in enumerate(_large_dungeons(n, first)):
        agents = MovecoreGym(s)._s.agents
        side = agents[k % len(agents)]
        opp = ("random", "greedy")[(k // 2) % 2]
        mt = (5, 11, 40)[k % 3]
        envs = rl.vector_env(s, num_envs=6, opponent=opp, max_turns=mt, side=side,
                             threads=1 + k % 2)
        assert envs.backend == "arrays", (name, envs.why)
        got = _spy_large(envs)
        singles = [MovecoreGym(s, opponent=opp, max_turns=mt, side=side) for _ in range(6)]
        checked += _check_against_singles(envs, singles, steps, np.random.default_rng(k),
                                          seed=first + k, illegal_every=19)
        turned += got[0]
        removed += got[1]
    return checked, turned, removed


def test_numpy_arrays_backend_random_large_dungeons():
    checked, turned, removed = _random_large_runs(4, 0, 30)
    assert checked > 400 and turned > 0 and removed > 0


@pytest.mark.slow
def test_numpy_arrays_backend_random_large_dungeons_long():
    checked, turned, removed = _random_large_runs(10, 300, 60)
    assert checked > 2_500 and turned > 10 and removed > 10


def test_numpy_arrays_backend_why_and_api():
    """Descent's glyph to town (``town=True``) stays on positions and says why (large
    monsters are on arrays); the arrays backend keeps Gymnasium's conventions
    (copy=False: the kept buffer, read-only; observe(out=); illegal="raise" changes no
    game; a vector wrapper steps any action of the space)."""
    import gymnasium as gym
    import movecore as mc
    envs = rl.vector_env("descent_ogre", num_envs=2, town=True)
    assert envs.backend == "positions" and "town" in envs.why
    envs = rl.vector_env("descent_ogre", num_envs=2)
    assert envs.backend == "arrays" and envs.why is None
    hs = rl.vector_env("heroscape_engaged_knight", 1)     # (double-space figures)
    assert hs.backend == "arrays" and hs.why is None
    with pytest.raises(mc.QueryError):
        rl.vector_env("descent_door_round", num_envs=2, town=True, backend="arrays")
    envs = rl.vector_env("descent_door_round", num_envs=4, copy=False)
    obs, _ = envs.reset(seed=0)
    with pytest.raises(ValueError):
        obs[0, 0, 0, 0] = 1.0
    out = np.zeros(envs.observation_space.shape, np.float32)
    assert envs.observe(out=out) is out and np.array_equal(out, obs)
    r = rl.vector_env("descent_door_round", num_envs=3, illegal="raise")
    r.reset(seed=0)
    before = r.observe().copy()
    acts = np.array([np.flatnonzero(m)[0] for m in r.action_masks()])
    acts[2] = r.single_action_space.n + 1
    with pytest.raises(mc.IllegalMoveError, match="game 2"):
        r.step(acts)
    assert np.array_equal(r.observe(), before)
    for name in ("descent_door_twice", "dark_realms_enemy_turn", "heroscape_stream_crossing"):
        envs = rl.vector_env(name, num_envs=4, backend="arrays")
        assert isinstance(envs, gym.vector.VectorEnv)
        wrapped = gym.wrappers.vector.RecordEpisodeStatistics(envs)
        obs, _ = wrapped.reset(seed=0)
        wrapped.action_space.seed(0)
        for _ in range(30):     # any action of the space: illegal ones end their game
            obs, r, te, tr, info = wrapped.step(wrapped.action_space.sample())
            assert wrapped.observation_space.contains(obs)
            assert r.dtype == np.float64 and te.dtype == tr.dtype == np.bool_
        pos = envs.positions                  # each game's position, made from the arrays
        assert len(pos) == 4 and all(p.figures for p in pos)


#: random Dark Realms boards whose short runs meet an enemy AI tie between targets
SHORT_DR = list(range(12, 18))


def _random_dark_realms_runs(seeds, steps):
    """Random Dark Realms boards (hex, square4, square8; obstacles, traps, rifts,
    flyers, summons; the compiled enemy AI's options and others, answered on a live
    position of the game), each side learning in turn, every opponent, short and long
    turn limits, 1 and 2 threads: every game equals its single env (the rolled d6 of
    every figure drawn from the game's stream in the single env's order)."""
    from test_batch_dark_realms import _ai_boards, _boards
    checked = choices = 0
    for k, (name, s) in enumerate(_ai_boards(seeds[::2]) + _boards(seeds[1::2])):
        agents = MovecoreGym(s)._s.agents
        side = agents[k % len(agents)]
        opp = ("random", "greedy", "enemy_ai")[k % 3]
        mt = (5, 11, 40)[k % 3]
        envs = rl.vector_env(s, num_envs=6, opponent=opp, max_turns=mt, side=side,
                             threads=1 + k % 2)
        assert envs.backend == "arrays", (name, envs.why)
        singles = [MovecoreGym(s, opponent=opp, max_turns=mt, side=side) for _ in range(6)]
        checked += _check_against_singles(envs, singles, steps, np.random.default_rng(k),
                                          seed=5 + k, illegal_every=19)
        choices += envs._np.ai_choices
    return checked, choices


def test_numpy_arrays_backend_random_dark_realms_boards():
    checked, choices = _random_dark_realms_runs(SHORT_DR, 30)
    assert checked > 500 and choices > 0   # (an enemy AI's tie between targets met)


@pytest.mark.slow
def test_numpy_arrays_backend_random_dark_realms_boards_long():
    checked, choices = _random_dark_realms_runs(list(range(100, 108)), 60)
    assert checked > 2_000 and choices > 0


def _dr_answers_run(scenario, steps, seed, threads=1, bits=True, mutate=None):
    """Dark Realms' fast answers (``_vecdr``: the rolls drawn and the heroes' card moves
    answered in one compiled call, the enemies on the compiled enemy AI) against the
    general path they replace (``QueryColumns`` and one batched ``legal_moves``) at every
    query of a seeded run: the same rolls, the same stream states after, the same mask
    and, on the ends, the same costs and stops. ``bits``: False, the breadth-first
    search over the neighbour table instead of the bit sets; ``mutate(dr)``: a wrong
    answer (the check must fail). Returns the queries checked (None: no fast plan)."""
    envs = rl.vector_env(scenario, num_envs=8, threads=threads, max_turns=9,
                         opponent=("random", "greedy", "enemy_ai")[seed % 3])
    n = envs._np
    dr = n._dr
    if dr is None:
        return None
    dr.whole = False        # (the sub-step path: its answers are the ones checked)
    if not bits:
        dr.use_bits = False
    if mutate is not None:
        mutate(dr)
    fast = dr.answer
    checked = [0]

    def both(rows, g, mask, cost, stop):
        st = n.rng.copy()
        again = fast(rows, g, mask, cost, stop)
        got = [a[rows].copy() for a in (mask, cost, stop)] + [n.a_roll[rows].copy()]
        after = n.rng.copy()
        n.rng[:] = st
        n._legal(rows, g)
        assert np.array_equal(n.rng, after)
        assert np.array_equal(n.a_roll[rows], got[3])
        assert np.array_equal(mask[rows], got[0])
        m = got[0] != 0
        assert np.array_equal(cost[rows][m], got[1][m])
        assert np.array_equal(stop[rows][m], got[2][m])
        # (the kept answer: what the fast path kept is the general answer's usable ends)
        usable = (mask[rows] & n._usable8[g]).sum(1)
        assert np.array_equal(n.a_n[rows], usable)
        assert np.array_equal(np.sort(again), np.sort(rows[usable == 0]))
        checked[0] += len(rows)
        return again

    dr.answer = both
    rng = np.random.default_rng(seed)
    envs.reset(seed=seed)
    for _ in range(steps):
        m = envs._mask
        envs.step((rng.random(m.shape, np.float32) * m).argmax(1))
    return checked[0]


def test_dark_realms_fast_answers_equal_the_general_path():
    """Every bundled Dark Realms scenario and random boards (hex, square4, square8;
    obstacles, traps, flyers; the compiled enemy AI's options), 1 and 2 threads, the
    bit sets and the breadth-first search: the fast answers are the general path's."""
    from test_batch_dark_realms import _ai_boards
    runs = example_scenarios("dark_realms") + _ai_boards(range(40, 46))
    checked = planned = 0
    for k, (name, s) in enumerate(runs):
        got = _dr_answers_run(s, 12, seed=k, threads=1 + k % 2, bits=k % 3 != 2)
        if got is not None:
            planned += 1
            checked += got
    assert planned >= 7 and checked > 1_000


def test_dark_realms_fast_answers_check_fails_on_a_wrong_answer():
    """The check above fails when the bit sets forget a direction, the breadth-first
    search a neighbour, or an end's cost is off by one."""
    s = dict(example_scenarios("dark_realms"))["dark_realms_die_planning.json"]

    def no_shift(dr):
        dr.shifts = np.ascontiguousarray(dr.shifts[:-1])

    def no_nbr(dr):
        dr.nbr = np.ascontiguousarray(dr.nbr[:, :-1])

    def dearer(dr):
        answer = dr.answer

        def wrong(rows, g, mask, cost, stop):
            again = answer(rows, g, mask, cost, stop)
            cost[rows] += 1
            return again

        dr.answer = wrong

    for mutate, bits in ((no_shift, True), (no_nbr, False), (dearer, True)):
        with pytest.raises(AssertionError):
            _dr_answers_run(s, 12, seed=1, bits=bits, mutate=mutate)


def _fast_paths_run(plan, scenario, steps, seed, kw, mutate=None):
    """Two vector envs of ``scenario`` (``rl.vector_env(**kw)``) stepped with the same
    actions: the fast path (the numpy-driven backend's compiled answers, move and
    removal per thread chunk: its attribute ``plan``, ``_dr`` or ``_hs``) and the
    general one it replaces (that attribute removed); after every step the
    observations, masks, rewards, ends, the games' arrays and the streams are equal.
    ``mutate(fast_steps)``: a wrong fast path (the check must fail). Returns the moves
    checked (0: the scenario is not in the fast path's scope)."""
    fast, slow = rl.vector_env(scenario, **kw), rl.vector_env(scenario, **kw)
    setattr(slow._np, plan, None)
    if getattr(fast._np, plan) is None:
        return 0
    for e in (fast, slow):      # (the sub-steps: Descent's one-call step is checked on
        e._dsf = None           # them below, _descent_one_call_run)
    if mutate is not None:
        mutate(fast._np)
    rng = np.random.default_rng(seed)
    got = [e.reset(seed=seed) for e in (fast, slow)]
    for _ in range(steps):
        assert np.array_equal(got[0][0], got[1][0])
        assert np.array_equal(fast._mask, slow._mask)
        m = fast._mask
        a = (rng.random(m.shape, np.float32) * m).argmax(1)
        a[::5] = rng.integers(0, m.shape[1], len(a[::5]))   # (some illegal)
        got = [e.step(a) for e in (fast, slow)]
        for x, y in zip(got[0][:4], got[1][:4]):
            assert np.array_equal(x, y)
        for name in ("cell", "alive", "occ"):
            assert np.array_equal(getattr(fast.games, name), getattr(slow.games, name))
        if fast._np.game is not None:       # (Descent: squares, doors, orientations)
            for name in ("sq", "doors", "orient"):
                assert np.array_equal(getattr(fast._np.game, name),
                                      getattr(slow._np.game, name)), name
        for name in ("moved", "removed", "pending", "over", "actor"):
            assert np.array_equal(getattr(fast._np, name), getattr(slow._np, name)), name
        assert np.array_equal(fast._np.rng, slow._np.rng)
    assert fast.counts == slow.counts
    return fast.counts["moves"]


def _dr_paths_run(scenario, steps, seed, threads=1, mutate=None):
    """:func:`_fast_paths_run` on Dark Realms' fast path (``_vecdr``), every opponent."""
    kw = dict(num_envs=8, threads=threads, max_turns=9, copy=True,
              opponent=("random", "greedy", "enemy_ai")[seed % 3])
    return _fast_paths_run("_dr", scenario, steps, seed, kw, mutate)


def test_dark_realms_fast_env_equals_the_general_path():
    """The fast path's env steps (the answers, the move and removal, the kept
    observation and its copy, on 1 and 2 threads) equal the general path's on bundled
    scenarios and random boards, every opponent, illegal actions and autoresets."""
    from test_batch_dark_realms import _ai_boards
    runs = example_scenarios("dark_realms")[::2] + _ai_boards(range(50, 52))
    moves = sum(_dr_paths_run(s, 20, seed=k, threads=1 + k % 2)
                for k, (_, s) in enumerate(runs))
    assert moves > 600


def test_dark_realms_fast_env_check_fails_on_a_wrong_move():
    """The check above fails when the fast move's removal finds no neighbour."""
    s = dict(example_scenarios("dark_realms"))["dark_realms_die_planning.json"]

    def no_neighbours(n):
        n.adj = np.zeros_like(n.adj)

    with pytest.raises(AssertionError):
        _dr_paths_run(s, 25, seed=1, mutate=no_neighbours)


def _lockstep(fast, slow, steps, seed, state=(), illegal_from=4, also=None):
    """Steps two vector envs (a fast path and the one it replaces) with the same seeded
    actions, every fifth game's from ``illegal_from``'s offset drawn at random (some
    illegal), and both reset again halfway (``copy=True`` leaves the kept buffer behind:
    redrawn). Before each step their observations, masks and mask copies are equal;
    after it their rewards, ends, the games' cells, lives and occupancy, and the turn
    state (plus the names in ``state``) of their ``_np`` sub-step driver, or of
    ``_state`` (``_vecgame``'s envs: the compiled step's arrays).
    ``also(t, got)``: more checks after each step. Returns the last step's results."""
    names = ("turn", "side", "nxt", "actor", "over", "out", "removed", "moved",
             "pending", "rng") + tuple(state)
    rng = np.random.default_rng(seed)
    got = [e.reset(seed=seed) for e in (fast, slow)]
    for t in range(steps):
        if t == steps // 2:
            got = [e.reset(seed=seed + 1) for e in (fast, slow)]
        assert np.array_equal(got[0][0], got[1][0]), t
        assert np.array_equal(got[0][-1]["action_mask"], got[1][-1]["action_mask"]), t
        assert np.array_equal(fast._mask, slow._mask), t
        m = fast._mask
        a = (rng.random(m.shape, np.float32) * m).argmax(1)
        k = t % illegal_from
        a[k::5] = rng.integers(0, m.shape[1], len(a[k::5]))   # (some illegal)
        got = [e.step(a) for e in (fast, slow)]
        for x, y in zip(got[0][:4], got[1][:4]):
            assert np.array_equal(x, y), t
        for name in ("cell", "alive", "occ"):
            assert np.array_equal(getattr(fast.games, name), getattr(slow.games, name)), t
        if fast._np is not None:
            for name in names:
                assert np.array_equal(getattr(fast._np, name), getattr(slow._np, name)), \
                    (t, name)
        else:
            for name, v in fast._state.items():
                assert np.array_equal(v, slow._state[name]), (t, name)
        if also is not None:
            also(t, got)
    return got


def _dr_whole_run(scenario, steps, seed, threads=1, copy=True, side=None, mutate=None):
    """Two vector envs of a Dark Realms scenario stepped with the same actions (some
    illegal; a reset halfway): the whole step in compiled calls per thread chunk of
    games (``_vecdr_env``) and the sub-step path it replaces (``dr.whole = False``).
    After every step the observations (``copy=False``: the kept buffer), masks and
    their copies, rewards, ends, the games' arrays, the turn state and the streams are
    equal; at the end the counts and the enemy AI's answers and ties. ``mutate
    (whole_steps)``: a wrong whole step (the check must fail). Returns (moves, enemy
    AI ties met, whether the whole step took the heroes' card moves straight into the
    kept answer), or None where the scenario is not in ``_vecdr``'s scope."""
    from movecore.rl._vecdr_env import WholeSteps
    kw = dict(num_envs=8, threads=threads, max_turns=(9, 40)[seed % 2], copy=copy,
              opponent=("random", "greedy", "enemy_ai")[seed % 3])
    if side is not None:
        kw["side"] = side
    fast, slow = rl.vector_env(scenario, **kw), rl.vector_env(scenario, **kw)
    dr = fast._np._dr
    if dr is None:
        return None
    slow._np._dr.whole = False
    dr.whole_steps = WholeSteps(fast._np)
    if mutate is not None:
        mutate(dr.whole_steps)
    _lockstep(fast, slow, steps, seed, ("a_roll",), illegal_from=5)
    assert fast.counts == slow.counts
    assert dr.ai.answered == slow._np._dr.ai.answered
    assert fast._np.ai_choices == slow._np.ai_choices
    return fast.counts["moves"], fast._np.ai_choices, dr.whole_steps.Q[0][-2]


def _dr_whole_runs():
    """Bundled scenarios and random boards (hex, square4, square8; obstacles, traps,
    flyers, summons; among them boards whose runs meet an enemy AI tie), each side
    learning in turn, every opponent, 1 and 2 threads, ``copy`` True and False."""
    from test_batch_dark_realms import _ai_boards, _boards
    runs = example_scenarios("dark_realms") + _ai_boards(SHORT_DR[::2]) + \
        _boards(SHORT_DR[1::2]) + _ai_boards(range(60, 64))
    for k, (name, s) in enumerate(runs):
        agents = MovecoreGym(s)._s.agents
        yield name, s, dict(seed=k, threads=1 + k % 2, copy=(k // 2) % 2 == 0,
                            side=agents[k % len(agents)])


def test_dark_realms_whole_step_equals_the_sub_steps():
    """The whole env step in compiled calls per thread chunk (``_vecdr_env``: the
    games' moves, answers, picks, rewards, ends, observations and masks; the enemy AI
    between its rounds; its ties on the sub-step path) equals the sub-step path, which
    the tests above hold to the general path and to single envs."""
    moves = ties = runs = kept = 0
    for k, (name, s, kw) in enumerate(_dr_whole_runs()):
        # (the first runs also with a hero's card move through the mask row and
        # keep_answer, as the sub-step path, where it would go straight into the list)
        for mutate in (None, _no_hero_kept) if k < 3 else (None,):
            got = _dr_whole_run(s, 40, mutate=mutate, **kw)
            if got is not None:
                runs += 1
                moves += got[0]
                ties += got[1]
                kept += bool(got[2]) and mutate is None
    assert runs >= 14 and moves > 5_000 and ties > 0 and kept >= 4, \
        (runs, moves, ties, kept)


def _dr_lists_run(scenario, steps, seed, mutate=None):
    """The enemy AI's answers of one Dark Realms vector env's games (every enemy the
    compiled path answers, every Move 1-6, after each of ``steps`` random steps) both
    ways: straight into the kept answer (the whole step's ``lists``,
    ``_batch_enemy._put_end``) and as rows (mask, cost, stop) made into it by
    ``keep_answer`` (the sub-step path's); some places made unusable at random, the
    lists' stale entries and counts garbage first. Asserts the two equal (the count,
    the list, each listed place's cost and stop); ``mutate(args)``: the lists' call's
    layout inputs changed (the check must fail). Returns (answers, ties, ends left
    out as unusable), or None where the scenario is not in ``_vecdr``'s scope."""
    from movecore.games.dark_realms._batch_enemy import _NO_PEN, NO_LIST
    from movecore.rl._kept_answer import keep_answer
    e = rl.vector_env(scenario, num_envs=16, threads=1, max_turns=40)
    n = e._np
    if n is None or n._dr is None:
        return None
    ai, G = n._dr.ai, n.G
    k = ai.ready()
    args = dict(ai.args)
    if mutate is not None:
        mutate(args)
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    B, P = n.B, n.a_cost.shape[1]
    usable = (n._usable8 & (rng.random(n._usable8.shape) > 0.1)).astype(np.uint8)
    answers = ties = left_out = 0
    for _ in range(steps):
        e.step((rng.random(e._mask.shape) * e._mask).argmax(1))
        for f in np.flatnonzero(ai.slot_ok).tolist():
            games = np.flatnonzero(G.alive[:, f]).astype(np.int64)
            if not len(games):
                continue
            slots = np.full(len(games), f, np.int64)
            for move in range(1, min(ai.top, 6) + 1):
                moves = np.full(len(games), move, np.int64)
                mask = np.zeros((B, P), np.uint8)
                cost = np.zeros((B, P), np.int32)
                stop = np.zeros((B, P), np.int8)
                assert k(games, slots, moves, G.occ, G.cell, G.alive, *ai.args.values(),
                         mask, cost, stop, _NO_PEN, False, *NO_LIST) == 0
                want = (np.zeros((B, P), np.int32), np.zeros((B, P), np.int8),
                        np.zeros((B, P), np.int32), np.zeros(B, np.int64))
                keep_answer(games, slots, mask, cost, stop, usable, *want, False,
                            np.zeros((1, 1), np.int64), np.zeros((1, 1), np.int64),
                            np.zeros(1, bool), np.zeros(1, bool), np.zeros(B, np.int64),
                            np.zeros(B, n.actor.dtype), np.zeros(B, np.int64))
                got = (np.full((B, P), -5, np.int32), np.full((B, P), 9, np.int8),
                       np.full((B, P), -3, np.int32), np.full(B, 7, np.int64))
                assert k(games, slots, moves, G.occ, G.cell, G.alive, *args.values(),
                         mask * 0, cost, stop, _NO_PEN, False, got[2], got[0], got[1],
                         got[3], usable) == 0
                for b in games.tolist():
                    c = int(want[3][b])
                    assert got[3][b] == c
                    at = want[2][b, :c]
                    assert (got[2][b, :c] == at).all()
                    assert (got[0][b, at] == want[0][b, at]).all()
                    assert (got[1][b, at] == want[1][b, at]).all()
                    answers += 1
                    ties += c > 1
                    left_out += int((mask[b] & (usable[f] == 0)).sum())
    return answers, ties, left_out


def test_dark_realms_enemy_ai_lists_equal_the_rows_kept():
    """The enemy AI's answers written straight into the kept answer (what the whole
    step's phase 1 reads: no mask row written and scanned) equal its rows made into the
    kept answer by ``keep_answer``, on the bundled scenarios and random boards whose
    runs meet enemy AI ties (:func:`_dr_lists_run`)."""
    from test_batch_dark_realms import _ai_boards
    total = [0, 0, 0]
    for k, (name, s) in enumerate(example_scenarios("dark_realms") +
                                  _ai_boards(range(60, 64))):
        got = _dr_lists_run(s, 6, seed=k)
        if got is not None:
            total = [a + b for a, b in zip(total, got)]
    assert total[0] > 5_000 and total[1] > 0 and total[2] > 0, total


def _no_hero_kept(w):
    """The whole step with ``DarkRealmsAnswers.hero_kept`` off (``Q``'s flag)."""
    w.Q = [q[:-2] + (False, q[-1]) for q in w.Q]


def test_dark_realms_whole_step_check_fails_on_a_wrong_step():
    """The check above fails when the whole step's opponent picks in a wrong row order,
    picks greedy where it is random (or random where greedy), or measures the greedy
    distances on wrong coordinates."""
    s = dict(example_scenarios("dark_realms"))["dark_realms_die_planning.json"]

    def rule(i, f):
        def mutate(w):
            R = list(w.R)
            R[i] = f(R[i])
            w.R = tuple(R)
        return mutate

    wrong_order = rule(10, lambda rank: np.ascontiguousarray(rank[:, ::-1]))
    wrong_policy = rule(7, lambda greedy: not greedy)
    # (stretched: a board's own symmetries, turned or mirrored, keep every distance)
    wrong_coords = rule(8, lambda xy: np.ascontiguousarray(xy * np.array([2, 1])))
    for mutate, seed in ((wrong_order, 0), (wrong_policy, 0), (wrong_policy, 1),
                         (wrong_coords, 1)):
        with pytest.raises(AssertionError):
            _dr_whole_run(s, 24, seed=seed, side="enemy", mutate=mutate)


def _descent_paths_run(scenario, steps, seed, threads=1, mutate=None):
    """:func:`_fast_paths_run` on Descent's compiled move and removal (``_vecdescent``),
    both opponents."""
    kw = dict(num_envs=8, threads=threads, max_turns=9, copy=True,
              opponent=("random", "greedy")[seed % 2])
    return _fast_paths_run("_dp", scenario, steps, seed, kw, mutate)


def _descent_fast_runs():
    from test_batch_descent import _dungeons, _large_dungeons
    return (example_scenarios("descent")[::2] + list(_dungeons(2, 40)) +
            list(_large_dungeons(3, 40)))


def test_descent_fast_env_equals_the_general_path():
    """Descent's compiled move and removal (doors opened, large bases and turned
    ones, removals and their rewards and ends) give the general path's env steps on
    bundled scenarios and random dungeons (large monsters included), both opponents,
    1 and 2 threads, illegal actions and autoresets."""
    moves = sum(_descent_paths_run(s, 20, seed=k, threads=1 + k % 2)
                for k, (_, s) in enumerate(_descent_fast_runs()))
    assert moves > 1000


def test_descent_fast_env_check_fails_on_a_wrong_move():
    """The check above fails when the fast move's removal finds no neighbour, and
    when it forgets the doors the path opens."""
    from movecore.rl import _vecdescent

    def no_neighbours(n):
        n.adj = np.zeros_like(n.adj)

    def no_doors(n):
        fast = n._dp

        def play(rows, to, actor, tables, cell, alive, opened, a_open, *rest):
            return fast(rows, to, actor, tables, cell, alive, opened,
                        np.zeros_like(a_open), *rest)
        n._dp = play

    assert _vecdescent.descent_play is not None
    runs = dict(example_scenarios("descent"))
    for name, mutate in (("descent_ogre.json", no_neighbours),
                         ("descent_door_round.json", no_doors)):
        with pytest.raises(AssertionError):
            _descent_paths_run(runs[name], 25, seed=1, mutate=mutate)


def _descent_one_call_run(scenario, steps, seed, kw, mutate=None):
    """:func:`_one_call_run` of Descent's step in one compiled call per thread chunk
    (``_vecdescent_env``) against the sub-steps from Python it replaces, which the
    tests above hold to the general path and to single envs. Returns the moves
    checked (0: not on the one-call path)."""
    run = _one_call_run("_dsf", scenario, steps, seed, kw, mutate)
    return 0 if run is None else run[0].counts["moves"]


def _descent_one_call_runs():
    """Every bundled Descent scenario, random dungeons (doors, pits, ice, grapplers,
    auras) and random large-monster dungeons (every base, turning under each option),
    each side learning in turn, both opponents, 1 and 2 threads, ``copy`` True and
    False, short and long turn limits."""
    from test_batch_descent import _dungeons, _large_dungeons
    runs = example_scenarios("descent") + list(_dungeons(3, 60)) + \
        list(_large_dungeons(4, 60))
    for k, (name, s) in enumerate(runs):
        agents = MovecoreGym(s)._s.agents
        yield name, s, dict(num_envs=8, threads=1 + k % 2, max_turns=(9, 30)[k % 2],
                            copy=(k // 2) % 2 == 0,
                            opponent=("random", "greedy")[(k // 4) % 2],
                            side=agents[k % len(agents)], backend="arrays")


def test_descent_env_in_one_call_equals_the_sub_steps():
    """Descent's step in one compiled call per thread chunk (``_vecdescent_env``: the
    restarts, the learner's move or end of turn, the answers of the games that ask,
    the opponents' picks, moves and removals, the rewards and ends, the kept
    observation and its copy, the mask) plays what the sub-steps from Python play."""
    moves = runs = 0
    for k, (name, s, kw) in enumerate(_descent_one_call_runs()):
        got = _descent_one_call_run(s, 24, seed=k, kw=kw)
        assert got > 0, name            # (every one of them on the one-call path)
        moves += got
        runs += 1
    assert runs >= 13 and moves > 2_000, (runs, moves)


def test_descent_env_in_one_call_check_fails_on_a_wrong_step():
    """The check above fails when the one-call step's greedy opponent measures on the
    wrong grid (hex instead of Chebyshev), or its pick reads a wrong row order;
    unmutated, the same runs pass."""
    runs = dict(example_scenarios("descent"))
    kw = dict(num_envs=8, max_turns=20, opponent="greedy", backend="arrays")

    def hex_grid(one_call):
        one_call.kind = 0

    def wrong_order(one_call):
        one_call.steps.rank = np.ascontiguousarray(one_call.steps.rank[:, ::-1])

    for name, mutate in (("descent_door_round.json", hex_grid),
                         ("descent_ogre.json", wrong_order)):
        with pytest.raises(AssertionError):
            _descent_one_call_run(runs[name], 24, seed=1, kw=kw, mutate=mutate)
        assert _descent_one_call_run(runs[name], 24, seed=1, kw=kw) > 0


def test_descent_env_in_one_call_scope():
    """The one-call step plays Descent where every move is answered on arrays
    (``all_arrays``); elsewhere the sub-steps do (a live position answers a shape
    not packed), and ``town=True`` is on positions."""
    from movecore.rl._vecdescent_env import takes
    envs = rl.vector_env("descent_ogre", num_envs=2)
    assert envs._dsf is not None and takes(envs._np)
    envs._np.game.all_arrays = False
    assert not takes(envs._np)
    assert rl.vector_env("descent_ogre", num_envs=2, town=True)._dsf is None
    assert rl.vector_env("heroscape_engaged_knight", num_envs=2)._dsf is None


def _hs_answers_run(scenario, steps, seed, threads=1, mutate=None):
    """Heroscape's fast answers (``_vechs``: one-space figures answered straight into
    the kept answer, double-space ones by the layout's call) against the general path
    they replace (one batched ``legal_moves``, then ``keep_answer``) at every query of
    a seeded run: the same usable ends listed, their costs and stops, the acting
    figure, the next slot and the games with no usable end. ``mutate(hs)``: a wrong
    answer (the check must fail). Returns (queries checked, kept-end answers; None: no
    fast plan)."""
    from movecore.rl._vecnp import keep_answer
    envs = rl.vector_env(scenario, num_envs=8, threads=threads, max_turns=9,
                         opponent=("random", "greedy")[seed % 2], backend="arrays")
    envs._hsf = None            # (the sub-step path: its answers asked from Python)
    n = envs._np
    hs = n._hs
    if hs is None:
        return None
    if mutate is not None:
        mutate(hs)
    fast = hs.answer
    checked = [0]
    kept = ("a_list", "a_cost", "a_stop", "a_n", "nxt", "actor")

    def both(rows, g, mask, cost, stop):
        before = [getattr(n, a).copy() for a in kept]
        again = fast(rows, g, mask, cost, stop)
        got = [getattr(n, a).copy() for a in kept]
        for a, x in zip(kept, before):
            getattr(n, a)[:] = x
        n._legal(rows, g)
        want = np.empty(len(rows), np.int64)
        k = keep_answer(rows, g, mask, cost, stop, n._usable8, n.a_cost, n.a_stop,
                        n.a_list, n.a_n, *n._open, n.a_slow, n.nxt, n.actor, want)
        assert np.array_equal(again, want[:k])
        for a in ("a_n", "nxt", "actor"):
            assert np.array_equal(got[kept.index(a)], getattr(n, a)), a
        for b in rows.tolist():
            m = int(n.a_n[b])
            lst = n.a_list[b, :m]
            assert np.array_equal(got[0][b, :m], lst)
            assert np.array_equal(got[1][b, lst], n.a_cost[b, lst])
            assert np.array_equal(got[2][b, lst], n.a_stop[b, lst])
        checked[0] += len(rows)
        return again

    hs.answer = both
    rng = np.random.default_rng(seed)
    envs.reset(seed=seed)
    for _ in range(steps):
        m = envs._mask
        envs.step((rng.random(m.shape, np.float32) * m).argmax(1))
    return checked[0], hs.kept_used


def _hs_scenarios():
    from test_batch_heroscape import _scenarios
    return example_scenarios("heroscape") + list(_scenarios([0, 2]))


def test_heroscape_fast_answers_equal_the_general_path():
    """Every bundled Heroscape scenario and random battlefields (levels, water, lava,
    glyphs; double-space figures, flyers, phantom walkers), 1 and 2 threads, both
    opponents: the fast answers are the general path's, kept ends included."""
    checked = planned = kept = 0
    for k, (name, s) in enumerate(_hs_scenarios()):
        try:
            got = _hs_answers_run(s, 8, seed=k, threads=1 + k % 2)
        except mc_errors():          # (a battlefield the environments refuse)
            continue
        if got is not None:
            planned += 1
            checked += got[0]
            kept += got[1]
    assert planned >= 7 and checked > 800 and kept > 50, (planned, checked, kept)


def test_heroscape_fast_answers_check_fails_on_a_wrong_answer():
    """The check above fails when a kept end's stop code is dropped, or the kept ends
    are taken whoever stands within reach."""
    s = dict(example_scenarios("heroscape"))["heroscape_river_crossing.json"]

    def no_stop(hs):
        hs.rules = 1                    # (_vechs.BREAK_STOP)

    def any_reach(hs):
        near = hs.K[4]
        hs.K = hs.K[:4] + (np.full_like(near, 255),) + hs.K[5:]

    for mutate in (no_stop, any_reach):
        with pytest.raises(AssertionError):
            _hs_answers_run(s, 20, seed=1, mutate=mutate)


def test_heroscape_fast_answers_by_the_kernel_or_broken_bit_sets():
    """The fast answers with every one-space query by the kernel (``_vechs.NO_BITS``:
    the path before the bit sets, kept for A/B runs), or the two-space walkers' as
    before ``_bits2`` (``NO_PAIRS``), are the general path's too; the
    check fails with the bit sets' stopping cells forgotten."""
    from movecore.rl._vechs import NO_BITS, NO_PAIRS
    ex = dict(example_scenarios("heroscape"))

    def kernel(hs):
        hs.rules = NO_BITS

    def no_stop(hs):
        Z = list(hs.S[-1])
        Z[3] = np.zeros_like(Z[3])
        hs.S = hs.S[:-1] + (tuple(Z),)

    got = _hs_answers_run(ex["heroscape_engaged_knight.json"], 8, seed=0, mutate=kernel)
    assert got is not None and got[0] > 50, got
    # (and the two-space walkers' answer as before the plain answer where no leaving
    # attacks are asked and its bit sets: _vechs.NO_PAIRS)
    got = _hs_answers_run(ex["heroscape_engaged_knight.json"], 8, seed=0,
                          mutate=lambda hs: setattr(hs, "rules", NO_PAIRS))
    assert got is not None and got[0] > 50, got
    with pytest.raises(AssertionError):
        _hs_answers_run(ex["heroscape_river_crossing.json"], 20, seed=1, mutate=no_stop)


def _hs_paths_run(scenario, steps, seed, threads=1, mutate=None):
    """:func:`_fast_paths_run` on Heroscape's fast path (``_vechs``), both opponents."""
    kw = dict(num_envs=8, threads=threads, max_turns=9, copy=True,
              opponent=("random", "greedy")[seed % 2], backend="arrays")
    return _fast_paths_run("_hs", scenario, steps, seed, kw, mutate)


def test_heroscape_fast_env_equals_the_general_path():
    """The fast path's env steps (the answers, the move with its engagement codes and
    the removal, on 1 and 2 threads) equal the general path's on bundled scenarios and
    random battlefields, both opponents, illegal actions and autoresets."""
    runs = _hs_scenarios()[::2]         # (three bundled, one random battlefield)
    moves = 0
    for k, (_, s) in enumerate(runs):
        try:
            moves += _hs_paths_run(s, 15, seed=k, threads=1 + k % 2)
        except mc_errors():
            continue
    assert moves > 600, moves


def test_heroscape_fast_env_check_fails_on_a_wrong_move():
    """The check above fails when the fast move's removal finds no neighbour."""
    s = dict(example_scenarios("heroscape"))["heroscape_engaged_knight.json"]

    def no_neighbours(n):
        n.adj = np.zeros_like(n.adj)

    with pytest.raises(AssertionError):
        _hs_paths_run(s, 25, seed=1, mutate=no_neighbours)


def _one_call_run(attr, scenario, steps, seed, kw, mutate=None):
    """Two vector envs of ``scenario`` (``rl.vector_env(**kw)``) stepped with the same
    actions (some illegal; autoresets; a reset halfway): the step in one compiled call
    per thread chunk (the env's ``attr``: ``_hsf``, Heroscape's ``_vechsenv``;
    ``_dsf``, Descent's ``_vecdescent_env``) and the sub-steps from Python it replaces
    (``attr`` removed). After every step the observations (``copy=False``: the kept
    buffer), masks and their copies, rewards, ends and illegal flags, the games' arrays
    (Descent's squares, doors and orientations too), their turn state, kept answers
    and streams are equal, and at the end the counters. ``mutate(one_call)``: a wrong
    step (the check must fail). Returns (fast, slow), or None where the env is not on
    the one-call path."""
    fast, slow = rl.vector_env(scenario, **kw), rl.vector_env(scenario, **kw)
    if getattr(fast, attr) is None:
        return None
    setattr(slow, attr, None)
    if mutate is not None:
        mutate(getattr(fast, attr))

    def also(t, got):
        assert np.array_equal(got[0][4].get("illegal_action", 0),
                              got[1][4].get("illegal_action", 0))
        if fast._np.game is not None:       # (Descent: squares, doors, orientations)
            for name in ("sq", "doors", "orient"):
                assert np.array_equal(getattr(fast._np.game, name),
                                      getattr(slow._np.game, name)), (t, name)
        n = fast._np.a_n
        for b in range(len(n)):             # (the kept answers' usable ends)
            p = fast._np.a_list[b, :n[b]]
            assert np.array_equal(p, slow._np.a_list[b, :n[b]]), t
            for name in ("a_cost", "a_stop"):
                assert np.array_equal(getattr(fast._np, name)[b, p],
                                      getattr(slow._np, name)[b, p]), (t, name)

    got = _lockstep(fast, slow, steps, seed, ("a_n",), illegal_from=4, also=also)
    assert fast.counts == slow.counts
    if not kw.get("copy", True):
        assert np.array_equal(got[0][0], fast.observe())     # (the kept buffer)
    return fast, slow


def _hs_one_call_run(scenario, steps, seed, kw, mutate=None):
    """:func:`_one_call_run` of Heroscape's step in one compiled call per thread
    (``_vechsenv``), its counters too (kept-end answers, picks among a double-space
    figure's rows of one cost). Returns the moves checked (0: not on the fast path)."""
    run = _one_call_run("_hsf", scenario, steps, seed, kw, mutate)
    if run is None:
        return 0
    fast, slow = run
    assert fast._np.double_picks == slow._np.double_picks
    assert fast._np._hs.kept_used == slow._np._hs.kept_used
    return fast.counts["moves"]


def test_heroscape_env_in_one_call_equals_the_sub_steps():
    """Heroscape's step in one compiled call per thread (``_vechsenv``) plays what the
    sub-steps from Python play (the restarts, the learner's move or end of turn, the
    opponents' picks, moves and removals, the search for the next figure and its
    answer, the rewards and ends, the observation drawn whole into the new array or
    kept, the mask): every bundled scenario and random battlefields, 1 and 2 threads,
    both opponents, ``copy`` True and False, illegal actions and autoresets, short
    and long turn limits."""
    moves = 0
    for k, (_, s) in enumerate(_hs_scenarios()):
        kw = dict(num_envs=8, threads=1 + k % 2, max_turns=(9, 30)[k % 2],
                  copy=(k // 2) % 2 == 0, opponent=("random", "greedy")[(k // 4) % 2],
                  backend="arrays")
        try:
            moves += _hs_one_call_run(s, 16, seed=k, kw=kw)
        except mc_errors():          # (a battlefield the environments refuse)
            continue
    assert moves > 1000, moves


@pytest.mark.parametrize("name", ["heroscape_engaged_knight", "descent_door_round"])
def test_whole_draw_equals_the_kept_buffers_copy(name):
    """With ``copy=True`` Heroscape's and Descent's one-call steps draw each
    observation whole into the step's new array (``WholeStep.whole``); the way it
    replaced, the kept buffer updated where it changed and copied there, gives the same
    observations, masks, rewards, ends and games after every step (illegal actions,
    autoresets, a reset halfway), on 1 and 2 threads."""
    for threads in (1, 2):
        kw = dict(num_envs=8, threads=threads, max_turns=9, copy=True, backend="arrays")
        fast, slow = rl.vector_env(name, **kw), rl.vector_env(name, **kw)
        one, other = fast._one_call(), slow._one_call()
        assert one is not None and one.whole
        other.whole = False
        _lockstep(fast, slow, 24, seed=threads)
        assert fast.counts == slow.counts and fast.counts["moves"] > 100


def _obs_rows(envs) -> list:
    """The scratch rows each thread's whole draws stream from (empty: drawn in place):
    ``_vecgame.env_chunk``'s (grid, Tiny Epic Tactics, Mage Knight), Heroscape's and
    Descent's one-call step's, Dark Realms' whole steps' (``draw_obs``)."""
    if envs._np is None:
        return [h[-1][3] for h in envs._heads[False]]
    one = envs._one_call()
    if one is not None:
        return [w[-1] for w in one.W]
    return [w[9] for w in envs._np._dr.whole_steps.W]


@pytest.mark.parametrize("name", ["heroscape_engaged_knight", "dark_realms_die_planning",
                                  "descent_dragon", "tiny_epic_tactics_knock_back",
                                  "grid_hex_skirmish", "mage_knight_first_turns"])
def test_streamed_observations_equal_the_in_place_draw(name, monkeypatch):
    """``copy=True``'s whole draw composed in a thread's scratch row and streamed into
    the new array (``kernels._stream.STREAM_MIN_BYTES`` reached: forced here with 0)
    gives the same observations, masks, rewards, ends (and games, where a sub-step
    driver holds them) after every step as the draw in place (never reached), on 1 and
    2 threads and odd chunks (illegal actions, autoresets, a reset halfway; Descent's
    dragon turns its base), in every game."""
    from movecore.kernels import _stream

    def made(least, threads):
        monkeypatch.setattr(_stream, "STREAM_MIN_BYTES", least)
        e = rl.vector_env(name, num_envs=13, threads=threads, max_turns=9, copy=True,
                          backend="arrays")
        e.reset(seed=0)
        e.step(e._mask.argmax(1))           # (the compiled step's scratch made)
        return e

    for threads in (1, 2):
        fast, slow = made(0, threads), made(1 << 62, threads)
        assert all(r.size == int(np.prod(fast.single_observation_space.shape))
                   for r in _obs_rows(fast))
        assert all(r.size == 0 for r in _obs_rows(slow))
        _lockstep(fast, slow, 24, seed=threads)
        assert fast.counts == slow.counts and fast.counts["moves"] > 100


def test_rows_stream_from_three_quarters_of_the_last_level_cache(monkeypatch):
    """By default (``STREAM_MIN_BYTES`` None) a scratch row is given where the array
    reaches three quarters of the last-level cache (read from the system, or 8 MiB),
    an empty one below; a set ``STREAM_MIN_BYTES`` decides instead."""
    from movecore.kernels import _stream
    monkeypatch.setattr(_stream, "STREAM_MIN_BYTES", None)
    llc = _stream.llc_bytes()
    assert llc >= 1 << 16 and llc == _stream.llc_bytes()
    least = 3 * llc // 4
    rows = -(-least // (4 * 100))               # the first count of 100-float rows there
    assert _stream.scratch_row(rows, 100).shape == (100,)
    assert _stream.scratch_row(rows - 1, 100).shape == (0,)
    assert _stream.scratch_row(rows, 100).dtype == np.float32
    monkeypatch.setattr(_stream, "STREAM_MIN_BYTES", 400)
    assert _stream.scratch_row(1, 100).size == 100 and _stream.scratch_row(1, 99).size == 0


@pytest.mark.parametrize("dtype", [np.float32, np.int8, np.int64])
def test_stream_copy_equals_a_plain_copy(dtype):
    """``kernels._stream.stream_copy`` writes what ``dst[:] = src`` writes and nothing
    around it, whatever ``dst``'s alignment (every offset within a 32-byte vector,
    lengths 0 to 3 vectors and a bit, ``dst`` not aligned to its element's size
    either) and whatever ``src``'s."""
    from numba import njit

    from movecore.kernels._stream import store_fence, stream_copy

    @njit
    def copy(dst, src):
        stream_copy(dst, src)
        store_fence()

    size = np.dtype(dtype).itemsize
    raw = np.zeros(400 * size + 64, np.uint8)
    rng = np.random.default_rng(size)
    for skew in range(0, 40):       # (bytes: off the element size too, for size > 1)
        for n in range(0, 3 * 32 // size + 5):
            for s_off in (0, 1):
                buf = raw[skew:skew + (n + 8) * size].view(dtype)
                buf[:] = 7
                src = rng.integers(-100, 100, n + s_off).astype(dtype)[s_off:]
                copy(buf[3:3 + n], src)
                assert (buf[3:3 + n] == src).all(), (skew, n, s_off)
                assert (buf[:3] == 7).all() and (buf[3 + n:] == 7).all(), (skew, n)


def test_heroscape_env_in_one_call_check_fails_on_a_wrong_step():
    """The check above fails when the one-call step's greedy opponent measures its
    distances on the wrong grid (square instead of hex); unmutated, the same run
    passes."""
    s = dict(example_scenarios("heroscape"))["heroscape_engaged_knight.json"]

    def square(one_call):
        one_call.kind = 1

    kw = dict(num_envs=8, max_turns=20, opponent="greedy", backend="arrays")
    with pytest.raises(AssertionError):
        _hs_one_call_run(s, 25, seed=1, kw=kw, mutate=square)
    assert _hs_one_call_run(s, 25, seed=1, kw=kw) > 0        # (unmutated: equal)


def _random_heroscape_runs(seeds, steps, rank=None, only=None):
    """Random battlefields (levels, water, lava, glyphs, trees; two or three teams;
    single- and double-space figures, flyers, phantom and ghost walkers; the master and
    basic games), the learner each side in turn, both opponents on 1 and 2 threads:
    every game equals its single env (an opponent's pick among a double-space figure's
    rows, in the position's order; the cost plane where its placements share a lead
    cell; the engaged plane), with no game's moves asked of a live position. Returns
    (moves checked, {(opponent, threads): opponents' picks among a double-space
    figure's rows, two of one cost}). ``rank(envs)``: changes the row order (to show
    the check fails); ``only``: the runs played (indices)."""
    from test_batch_heroscape import _scenarios
    checked = 0
    picks: dict = {}
    for k, (name, s) in enumerate(_scenarios(seeds)):
        if only is not None and k not in only:
            continue
        try:
            agents = MovecoreGym(s)._s.agents
        except mc_errors():          # (a battlefield the environments refuse)
            continue
        side = agents[k % len(agents)]
        opp, threads = ("random", "greedy")[(k // 2) % 2], 1 + k % 2
        mt = (5, 11, 40)[k % 3]
        envs = rl.vector_env(s, num_envs=6, opponent=opp, max_turns=mt, side=side,
                             threads=threads, backend="arrays")
        if rank is not None:
            rank(envs)
        singles = [MovecoreGym(s, opponent=opp, max_turns=mt, side=side) for _ in range(6)]
        checked += _check_against_singles(envs, singles, steps, np.random.default_rng(k),
                                          seed=5 + k, illegal_every=19)
        assert not envs.games._live, name          # no position was asked
        picks[opp, threads] = picks.get((opp, threads), 0) + envs._np.double_picks
    return checked, picks


def mc_errors():
    import movecore as mc
    return mc.MovecoreError


#: random battlefields whose short runs (random and greedy, 1 and 2 threads) meet an
#: opponent's pick among a double-space figure's rows of one cost
SHORT_HS = [0, 12, 2, 8]


def test_numpy_arrays_backend_random_battlefields():
    checked, picks = _random_heroscape_runs(SHORT_HS, 30)
    assert checked > 500 and len(picks) == 4 and min(picks.values()) > 0, picks


def test_random_battlefields_check_fails_on_a_wrong_order():
    """The check above fails, in each of its runs, when a double-space figure's rows
    of one cost come in the reverse order of their pairs."""
    def reverse(envs):
        n = envs._np
        P = n.rank.shape[1]
        for f in np.flatnonzero(n.double):
            n.rank[f] = np.where(n.rank[f] < P, P - 1 - n.rank[f], P)

    for k in range(len(SHORT_HS)):
        with pytest.raises(AssertionError):
            _random_heroscape_runs(SHORT_HS, 30, rank=reverse, only={k})


@pytest.mark.slow
def test_numpy_arrays_backend_random_battlefields_long():
    checked, picks = _random_heroscape_runs(range(100, 110), 60)
    assert checked > 2_000 and len(picks) == 4 and min(picks.values()) > 0, picks


#: one scenario of each numpy-driven game whose kept planes all change in short runs
#: (Descent's doors open, a dragon's turned base, Heroscape's engaged figures, Dark Realms'
#: rolls)
KEPT_NP = ("descent_door_round", "descent_dragon", "heroscape_engaged_knight",
           "dark_realms_die_planning")


@pytest.mark.parametrize("name", KEPT_NP)
def test_numpy_arrays_kept_observations_equal_a_draw_from_scratch(name):
    """The numpy-driven backend keeps its observations too (``_vecnp.draw_obs``, kept
    mode: the places drawn last time cleared, the new ones written; the turn plane
    and the game's dense planes, the roll or the doors, rewritten where what they show
    changed): after every step of seeded runs (autoresets and illegal actions
    included) the kept buffer equals a draw from scratch, which the runs above hold
    equal to the single envs'."""
    envs = rl.vector_env(name, num_envs=5, copy=False, max_turns=7, backend="arrays")
    assert envs._np is not None
    steps, cleared = _kept_run(envs, 50, seed=len(name))
    assert steps == 50 and cleared > 10


@pytest.mark.parametrize("name", ("dark_realms_die_planning", "heroscape_engaged_knight"))
def test_numpy_arrays_kept_observations_on_two_threads(name):
    """Dark Realms' and Heroscape's kept draw on two threads (``_vecdr``, ``_vechs``:
    each thread draws its chunk of games, and with ``copy=True`` copies it) equals a
    draw from scratch after every step."""
    envs = rl.vector_env(name, num_envs=6, copy=False, max_turns=7, threads=2)
    plan = envs._np._dr if envs._np._dr is not None else envs._np._hs
    assert plan is not None and plan.n_chunks == 2
    steps, cleared = _kept_run(envs, 50, seed=7)
    assert steps == 50 and cleared > 10



def test_heroscape_ends_planes_where_placements_share_a_lead_cell():
    """The acting figure's three ends planes (``_vecnp.draw_obs``: at each end's lead
    cell 1, its cost over the largest, 1 where it stops) where a two-space figure's
    placements share a lead cell: the largest cost of them and a stop where any of them
    stops, whatever their order in the list, drawn from scratch and kept alike. The
    stops and costs of the kept answers are set so that the first of each pair stops
    and costs most (the order in which a kept draw's last write would be wrong)."""
    envs = rl.vector_env("heroscape_engaged_knight", num_envs=8, copy=False,
                         max_turns=30, backend="arrays")
    n = envs._np
    rng = np.random.default_rng(3)
    envs.reset(seed=3)
    checked = 0
    for t in range(40):
        acting = n.learner_acting()
        for b in np.flatnonzero(acting):
            f = n.actor[b]
            if not n.double[f]:
                continue
            ps = n.a_list[b, :n.a_n[b]]
            lead = n.lead[f, ps]
            for i in range(len(ps)):        # the first of a lead cell's places: the most
                first = lead[i] >= 0 and (lead[:i] != lead[i]).all()
                n.a_stop[b, ps[i]] = 1 if first else 0
                n.a_cost[b, ps[i]] = 9 if first else rng.integers(1, 9)
            checked += len(lead) - len(np.unique(lead))
        B, HW, d = envs.num_envs, n.HW, n.d
        for kept in (False, True):
            out = np.zeros((B, n.C, HW), np.float32) if not kept else envs._obs
            n.observe(out, kept=kept)
            o = out.reshape(B, n.C, HW)
            for b in np.flatnonzero(acting):
                f = n.actor[b]
                ps = n.a_list[b, :n.a_n[b]]
                lead, cost = n.lead[f, ps], n.a_cost[b, ps].astype(np.float64)
                top = cost.max() if len(ps) and cost.max() > 0 else 1.0
                want = np.zeros((3, HW), np.float32)
                for h, c, st in zip(lead, cost, n.a_stop[b, ps]):
                    if h < 0:
                        continue
                    want[0, h] = 1.0
                    want[1, h] = max(want[1, h], np.float32(c * (1.0 / top)))
                    want[2, h] = max(want[2, h], float(st != 0))
                assert np.array_equal(o[b, d + 2:d + 5], want), (t, b, kept)
        m = envs._mask
        envs.step((rng.random(m.shape, np.float32) * m).argmax(1))
    assert checked > 20, checked

def test_numpy_arrays_kept_check_fails_on_a_wrong_update():
    """The check above fails when the kept update forgets the places it drew, the
    turn its turn plane shows, or the state its game planes show (Descent's doors,
    Dark Realms' roll)."""
    def forget(envs):
        envs._np._rec[1][:] = 0

    def stale(planes, col):
        def corrupt(envs):
            n = envs._np
            B = envs.num_envs
            if not n._kept_ready:
                return
            o = envs._obs.reshape(B, n.C, -1)
            state = n.turn if col == 0 else n._doors_bits() if n.doors is not None \
                else np.where(n.over == 0, n.a_roll, -1)
            for plane in planes:
                o[:, n.d + plane] = 0.0  # as never rewritten, the state recorded the
            n._rec[2][:, col] = state    # game's: the next draw keeps it
        corrupt.__name__ = f"stale_{planes}"
        return corrupt

    for name, corrupt in (("descent_door_round", forget),
                          ("descent_door_round", stale((5,), 0)),
                          ("descent_door_round", stale((6, 7), 1)),
                          ("dark_realms_die_planning", stale((6,), 1))):
        envs = rl.vector_env(name, num_envs=5, copy=False, max_turns=7)
        steps, cleared = _kept_run(envs, 50, seed=3, corrupt=corrupt)
        assert steps < 50 and cleared is None, (name, corrupt.__name__)


def test_numpy_arrays_pick_is_the_kth_row():
    """``_vecnp.pick_rows`` (the opponent's pick: a selection over each game's usable
    ends, by bit sets of their ranks by cost where the ranks are distinct and the
    costs within the sets', else by counting them by cost) takes the row a stable sort
    of the ``Moves`` order takes, the ``int(u * n)``-th by (cost, rank, place), and
    counts the double-space figures' picks among rows of one cost as ``np.unique``
    does: few places and many
    costs (costs over 64 and below 0 included: the counts' outer buckets, whose rows
    mix costs), and many places of a few costs (over 48 rows of one cost: the
    quickselect); ranks with ties (a double's two orientations of one pair: the place
    decides)."""
    from movecore.rl._vecnp import pick_rows
    rng = np.random.default_rng(0)
    for P, top, low in ((40, 70, -5), (160, 3, 0)):
        B, F = 300, 3
        cost = rng.integers(low, top, (B, P)).astype(np.int32)
        cost[: B // 2] %= 9              # (many ties of cost: the rank decides)
        rank = np.array([rng.permutation(P) for _ in range(F)], np.int64)
        rank[2] //= 2                    # (ties of rank: the place decides)
        m = rng.random((B, P)) < rng.random((B, 1))
        n = m.sum(1).astype(np.int64)
        lists = np.zeros((B, P), np.int32)
        for b in range(B):
            lists[b, :n[b]] = np.flatnonzero(m[b])
        rows = rng.permutation(B).astype(np.int64)
        f = rng.integers(0, F, B).astype(np.int64)
        u = rng.random(B)
        double = np.array([True, False, True])
        to = np.empty(B, np.int64)
        picks = pick_rows(rows, rows, lists, n, f, u, cost, rank, double, to)
        key = np.where(m[rows], (cost[rows].astype(np.int64) * (P + 1) + rank[f]) * P
                       + np.arange(P), np.iinfo(np.int64).max)
        want = np.argsort(key, 1, kind="stable")[np.arange(B),
                                                 (u * n[rows]).astype(np.int64)]
        want[n[rows] == 0] = 0
        assert np.array_equal(to, want), P
        assert picks == sum(len(np.unique(cost[b][m[b]])) < n[b] for b, g in zip(rows, f)
                            if double[g] and n[b] > 1) > 0
        # what the runs cover: the outer buckets; a wanted row among over 48 of its cost
        same = [(cost[b][m[b]] == cost[b, w]).sum() for b, w in zip(rows, want)]
        assert (low < 0 and (cost[m] < 0).any() and (cost[m] >= 62).any()) or \
            max(same) > 48, P


def _arrays(x):
    """Every numpy array in ``x`` and its nested tuples and lists."""
    if isinstance(x, np.ndarray):
        yield x
    elif isinstance(x, (tuple, list)):
        for y in x:
            yield from _arrays(y)


@pytest.mark.parametrize("name", ["grid_hex_skirmish", "mage_knight_first_turns",
                                  "heroscape_engaged_knight", "descent_door_round"])
def test_each_thread_chunk_writes_its_own_scratch(name):
    """The step's per-chunk argument lists, built once and kept (``_heads``), give each
    thread chunk scratch of its own: beside the env's shared arrays (the same object in
    every chunk; each chunk writes its own games' rows), every chunk holds writable
    arrays no other chunk holds, and those never overlap another chunk's in memory.
    Two chunks handed one chunk's scratch would race on it: a test of answers cannot
    show that (at a few games the pool thread's chunk starts after the calling
    thread's has ended), this one does."""
    for copy in (True, False):
        envs = rl.vector_env(name, num_envs=13, threads=2, copy=copy, max_turns=9)
        envs.reset(seed=0)
        rng = np.random.default_rng(0)
        for _ in range(3):
            mask = envs.action_masks()
            envs.step((rng.random(mask.shape) * mask).argmax(1))
        whole = envs._hsf if envs._hsf is not None else envs._dsf
        kept = (whole if whole is not None else envs)._heads
        assert kept, "no argument lists kept"
        for heads in kept.values():
            assert len(heads) == 2
            per = [{id(a): a for a in _arrays(h) if a.flags.writeable} for h in heads]
            own = [[a for k, a in per[c].items() if k not in per[1 - c]] for c in (0, 1)]
            assert own[0] and own[1], "a chunk with no scratch of its own"
            for a in own[0]:
                for b in own[1]:
                    assert not np.may_share_memory(a, b)
