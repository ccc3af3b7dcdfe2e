"""movecore.rl: PettingZoo's and Gymnasium's own checks on every game's environments, the
fixed action space, the observation planes against the position, seeding, bad input,
hooks, and the docs' training example."""
from __future__ import annotations

import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
pytest.importorskip("gymnasium")

import movecore as mc  # noqa: E402
import movecore.rl as rl  # noqa: E402
from movecore.rl.spaces import ActionLayout  # noqa: E402
from movecore.rl.turns import GAMES, Match  # noqa: E402
from movecore.tools.selfplay import example_scenarios  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = [(g, n, s) for g in GAMES for n, s in example_scenarios(g)]
IDS = [n[:-5] for _, n, _ in SCENARIOS]
FIRST = {g: s for g, n, s in reversed(SCENARIOS)}     # one scenario per game


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


# ------------------------------------------------------------------ their own checks
@pytest.mark.parametrize("game,name,scen", SCENARIOS, ids=IDS)
def test_pettingzoo_api_and_seed_tests(game, name, scen):
    from pettingzoo.test import api_test, seed_test
    api_test(rl.env(scen), num_cycles=60, verbose_progress=False)
    seed_test(lambda: rl.env(scen), num_cycles=40)


@pytest.mark.parametrize("game,name,scen", SCENARIOS, ids=IDS)
def test_gymnasium_check_env(game, name, scen):
    from gymnasium.utils.env_checker import check_env
    check_env(rl.gym_env(scen), skip_render_check=True)
    check_env(rl.gym_env(scen, opponent="greedy", side=rl.env(scen).possible_agents[-1]),
              skip_render_check=True)


@pytest.mark.parametrize("game", GAMES)
def test_pettingzoo_wrapped_env_passes_too(game):
    from pettingzoo.test import api_test
    api_test(rl.env(FIRST[game], wrappers=True), num_cycles=30, verbose_progress=False)


# ------------------------------------------------------------------ against the position
def _cells_hw(pos, lay, f) -> np.ndarray:
    """The observation cells of the squares figure ``f`` covers, read from the position
    (a Descent large monster's ``where`` is its top-left square: its base is read from
    the position's own footprint)."""
    w = pos.where(f)
    if isinstance(w, str):
        return np.zeros(0, np.int64)
    if pos.game == "descent":
        i = pos.index[f]
        w = [pos.st.squares[q] for q in pos._squares(i, pos.anchor[i])]
    return lay.coords_hw(np.array([w] if isinstance(w, tuple) else w))


def _play_checked(env, seed, steps=150, policy_rng=None):
    """Random legal play; after every step the observation and the mask are checked
    against the live position asked directly (the slow way)."""
    core = env._core
    s = core.s
    rng = policy_rng or np.random.default_rng(seed)
    env.reset(seed=seed)
    lay = s.layout
    checked = 0
    for _ in range(steps):
        agent = env.agent_selection
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            if not env.agents:
                env.reset(seed=int(rng.integers(1 << 30)))
            continue
        pos, m = core.pos, core.match
        al = env.action_layout(agent)
        # the mask: exactly the acting figure's legal ends that are moves, in its slot,
        # and end turn; never an id that is no place (Descent's town), never a Mage
        # Knight end where the hero may not stay
        fid = m.figure
        slot = al.slots.index(fid)
        moves = pos.legal_moves(fid, **m.query) if not s.rules.batch else m.moves
        ends = set(moves.actions.tolist())
        if s.game == "mage_knight":
            ends = {a for a, ok in zip(moves.actions.tolist(), moves.columns["can_stay"])
                    if ok}
        if s.game == "descent":
            ends.discard(pos.st.ns)
        if s.rules.batch and m.moved:     # ends allies took since the side's batch
            taken = {pos.action_of(f, pos.where(f)) for f in m.moved}
            ends -= taken
        # as places: the set of footprints the mask offers in the figure's slot equals
        # the set of the legal ends' footprints (a turned Descent base numbers its
        # placements in its own orientation, the env in the one it started in)
        mask = obs["action_mask"]
        assert mask[al.end_turn] == 1
        assert not mask[:al.end_turn].reshape(len(al.slots), al.P)[
            [k for k in range(len(al.slots)) if k != slot]].any()
        offered = np.flatnonzero(mask[slot * al.P:(slot + 1) * al.P])
        places = s.places[s.row[fid]]
        got = sorted(tuple(sorted(c for c in places[p] if c >= 0)) for p in offered)
        want = sorted(tuple(sorted(lay.coords_hw(np.asarray(
            pos.action_coords(fid, [a])).reshape(-1, 2)).tolist())) for a in ends)
        assert got == want, (s.game, fid)
        assert len(np.flatnonzero(mask)) == len(ends) + 1
        # the observation: every figure's cells on its side's plane, the acting one's
        o = obs["observation"]
        assert o.shape == lay.shape and o.dtype == np.float32
        side_k = s.side_index[al.side]
        n = len(s.sides)
        board_planes = np.zeros((n, lay.H * lay.W), np.float32)
        for f in pos.figures:
            hw = _cells_hw(pos, lay, f)
            board_planes[(s.side_index[pos.side_of(f)] - side_k) % n, hw] = 1
        S = lay.static.shape[0]
        assert (o.reshape(o.shape[0], -1)[S:S + n] == board_planes).all(), s.game
        act = o[lay.plane("acting")].ravel()
        hw = _cells_hw(pos, lay, fid)
        assert set(np.flatnonzero(act).tolist()) == set(hw.tolist())
        endp = o[lay.plane("end")].ravel()
        lead = {int(lay.coords_hw(np.asarray(pos.action_coords(fid, [a])).reshape(-1, 2))[0])
                for a in ends}
        assert set(np.flatnonzero(endp).tolist()) == lead
        # the other agents see no legal action
        for other in env.agents:
            if other != agent:
                assert not env.observe(other)["action_mask"].any()
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[int(rng.random() * len(legal))]))
        checked += 1
    return checked


@pytest.mark.parametrize("game", GAMES)
def test_mask_and_planes_match_the_position(game):
    checked = 0
    for _, name, scen in [t for t in SCENARIOS if t[0] == game][:3]:
        checked += _play_checked(rl.env(scen), seed=len(name), steps=120)
    assert checked > 100


def test_descent_town_is_its_own_action():
    scen = dict((n, s) for _, n, s in SCENARIOS)["descent_ogre.json"]
    env = rl.env(scen, town=True)
    env.reset(seed=3)
    al = env.action_layout("hero")
    assert al.specials == ("town",)
    # heroes on the glyph (or next to it) may go to town: find a seed where one can
    for seed in range(40):
        env.reset(seed=seed)
        for _ in range(30):
            a = env.agent_selection
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                break
            lay = env.action_layout(a)
            mask = obs["action_mask"]
            town_ids = [lay.special(0, k) for k in range(len(lay.slots))]
            if mask[town_ids].any():
                fid = env._core.match.figure
                env.step(int(np.array(town_ids)[mask[town_ids] == 1][0]))
                assert env.position.where(fid) == "town"
                return
            # never a place that is the town id
            ns = env.position.st.ns
            assert not mask[:lay.end_turn].reshape(len(lay.slots), lay.P)[:, ns].any()
            legal = np.flatnonzero(mask)
            env.step(int(legal[len(legal) // 2]))
    raise AssertionError("no hero could go to town")


def test_action_layout_ids():
    al = ActionLayout("hero", ["a", "b"], 5, ("town",))
    assert al.n == 2 * 5 + 1 + 2
    assert al.decode(7) == ("move", 1, 2)
    assert al.decode(10) == ("end_turn",)
    assert al.decode(12) == ("special", "town", 1)
    assert al.names()[12] == "b:town" and al.names()[7] == "b@2"


def test_action_space_is_fixed_per_side():
    env = rl.env("heroscape_engaged_knight")
    env.reset(seed=0)
    sizes = {a: env.action_space(a).n for a in env.agents}
    al = env.action_layout("utgar")
    P = max(env.position.n_actions(f) for f in al.slots)
    assert sizes["utgar"] == len(al.slots) * P + 1
    for _ in range(60):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            break
        assert obs["action_mask"].shape == (sizes[env.agent_selection],)
        env.step(int(np.flatnonzero(obs["action_mask"])[-1]))


# ------------------------------------------------------------------ seeding
@pytest.mark.parametrize("game", GAMES)
def test_same_seed_same_episode(game):
    def run(seed):
        env = rl.gym_env(FIRST[game])
        obs, info = env.reset(seed=seed)
        obs_seen, rest = [obs.copy()], []
        rng = np.random.default_rng(0)
        for _ in range(60):
            legal = np.flatnonzero(info["action_mask"])
            obs, r, term, trunc, info = env.step(int(legal[int(rng.random() * len(legal))]))
            obs_seen.append(obs.copy())
            rest.append((r, term, trunc))
            if term or trunc:
                break
        return obs_seen, rest, {f: env.position.where(f) for f in env.position.figures}

    a, b = run(5), run(5)
    assert a[1] == b[1] and a[2] == b[2]
    assert len(a[0]) == len(b[0]) and all(np.array_equal(x, y) for x, y in zip(a[0], b[0]))


def test_different_seeds_differ():
    ends = set()
    for seed in range(6):
        env = rl.env("dark_realms_hero_move")
        env.reset(seed=seed)
        obs = env.last()[0]
        ends.add(obs["action_mask"].tobytes())     # the rolled Move differs
    assert len(ends) > 1


# ------------------------------------------------------------------ bad input
def _state(env):
    pos = env.position
    return {f: pos.where(f) for f in pos.figures}, env._core.match.figure


def test_illegal_action_raw_env_raises_and_changes_nothing():
    env = rl.raw_env("grid_hex_skirmish")
    env.reset(seed=1)
    before = _state(env)
    mask = env.last()[0]["action_mask"]
    bad = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(mc.IllegalMoveError):
        env.step(bad)
    with pytest.raises(mc.IllegalMoveError):
        env.step(10_000)
    with pytest.raises(mc.IllegalMoveError):
        env.step("3")
    assert _state(env) == before
    env.step(int(np.flatnonzero(mask)[0]))      # the episode goes on


@pytest.mark.parametrize("wrapped", [False, True])
def test_illegal_action_env_terminates_with_minus_one(wrapped):
    env = rl.env("grid_hex_skirmish", wrappers=wrapped)
    env.reset(seed=1)
    agent = env.agent_selection
    before = _state(env.unwrapped)
    mask = env.last()[0]["action_mask"]
    env.step(int(np.flatnonzero(mask == 0)[0]))
    assert all(env.terminations.values())
    assert env.rewards[agent] == -1 and sum(env.rewards.values()) == -1
    assert _state(env.unwrapped)[0] == before[0]
    while env.agents:
        env.step(None)


def test_step_before_reset_and_after_the_end():
    env = rl.env("grid_issue_example")
    with pytest.raises(mc.QueryError):
        env.step(0)
    with pytest.raises(mc.QueryError):
        env.last()
    env.reset(seed=0)
    with pytest.raises(mc.QueryError):
        env.observe("nobody")
    with pytest.raises(mc.QueryError):
        env.action_space("nobody")
    # play to the end; then a dead agent may only pass None
    for _ in range(500):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            with pytest.raises(ValueError):
                env.step(0)
            env.step(None)
            if not env.agents:
                break
            continue
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert not env.agents


def test_gym_bad_input():
    env = rl.gym_env("grid_hex_skirmish")
    with pytest.raises(mc.QueryError):
        env.step(0)
    obs, info = env.reset(seed=2)
    bad = int(np.flatnonzero(info["action_mask"] == 0)[0])
    before = _state(env)
    obs, r, term, trunc, info = env.step(bad)
    assert term and r == -1 and info["illegal_action"] and not info["action_mask"].any()
    assert _state(env)[0] == before[0]
    with pytest.raises(mc.QueryError):
        env.step(0)
    strict = rl.gym_env("grid_hex_skirmish", illegal="raise")
    obs, info = strict.reset(seed=2)
    with pytest.raises(mc.IllegalMoveError):
        strict.step(bad)
    strict.step(int(np.flatnonzero(info["action_mask"])[0]))
    for kw in ({"opponent": "nobody"}, {"side": "green"}, {"max_turns": 0},
               {"render_mode": "human"}, {"reward_fn": 3}):
        with pytest.raises(mc.QueryError):
            rl.gym_env("grid_hex_skirmish", **kw)
    with pytest.raises(mc.ScenarioError):
        rl.env("no_such_example")


# ------------------------------------------------------------------ rewards, ends, render
def test_rewards_are_removals_zero_sum():
    """Each removal: +1 to the side that removed, -1 to the side that lost the figure
    (summed over an episode through last(), as an agent sees them)."""
    env = rl.env("grid_hex_skirmish", max_turns=200)
    rng = np.random.default_rng(0)
    lost_any = False
    for ep in range(5):
        env.reset(seed=ep)
        totals = {a: 0.0 for a in env.possible_agents}
        start = {a: len(env.position.team_figures(a)) for a in env.possible_agents}
        for agent in env.agent_iter(2000):
            obs, r, term, trunc, _ = env.last()
            totals[agent] += r
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[int(rng.random() * len(legal))]))
        pos = env.position
        lost = {a: start[a] - len(pos.team_figures(a)) for a in start}
        assert totals == {"red": lost["blue"] - lost["red"], "blue": lost["red"] - lost["blue"]}
        lost_any |= any(lost.values())
    assert lost_any


def test_hooks_and_truncation():
    seen = []

    def reward_fn(pos, side, figure, removed):
        seen.append(figure)
        return {side: 0.5}

    env = rl.env("heroscape_engaged_knight", max_turns=3, reward_fn=reward_fn)
    env.reset(seed=0)
    for agent in env.agent_iter(1000):
        obs, r, term, trunc, _ = env.last()
        if term or trunc:
            assert trunc and not term
            env.step(None)
            continue
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert seen and env._core.match.turn == 3
    env = rl.env("heroscape_engaged_knight", terminal_fn=lambda pos: True)
    env.reset(seed=0)
    obs = env.last()[0]
    env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert all(env.terminations.values())


@pytest.mark.parametrize("game", GAMES)
def test_render_text_and_svg(game):
    for mode, head in (("ansi", ""), ("svg", "<svg")):
        env = rl.env(FIRST[game], render_mode=mode)
        env.reset(seed=0)
        out = env.render()
        assert isinstance(out, str) and out.startswith(head) and len(out) > 20


# ------------------------------------------------------------------ turns shared with selfplay
def test_match_turn_order_and_end():
    scen = FIRST["tiny_epic_tactics"]
    pos = mc.position(scen)
    m = Match("tiny_epic_tactics", pos.copy(), np.random.default_rng(0), max_turns=4)
    sides = []
    while not m.over:
        sides.append((m.turn, m.side, m.figure))
        m.play(m.random_row())
    turns = {}
    for t, side, f in sides:
        turns.setdefault(t, (side, []))[1].append(f)
    for t, (side, figs) in turns.items():
        assert side == pos.sides[(t - 1) % 2]
        assert figs == [f for f in pos.team_figures(side) if f in figs]
    assert m.over in ("terminated", "truncated")


def test_selfplay_plays_through_match():
    from movecore.tools import selfplay as sp
    assert sp.Match is Match and sp.GAME_CLASSES is rl.turns.GAME_CLASSES


# ------------------------------------------------------------------ dependencies
def test_nothing_else_imports_pettingzoo_or_gymnasium():
    core = ROOT / "core"
    bad = []
    for p in core.rglob("*.py"):
        if "rl" in p.relative_to(core).parts[:1]:
            continue
        text = p.read_text(encoding="utf-8")
        if re.search(r"^\s*(import|from)\s+(pettingzoo|gymnasium)\b", text, re.M):
            bad.append(str(p))
    assert not bad
    code = ("import sys, movecore, movecore.tools.selfplay, movecore.rl, movecore.rl.turns, "
            "movecore.rl.spaces; assert 'pettingzoo' not in sys.modules and "
            "'gymnasium' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def test_without_the_rl_extra_the_envs_and_the_cli_name_it(tmp_path):
    """Where Gymnasium is not installed (``pip install -e .`` alone; here hidden by a
    None in ``sys.modules``), the env functions raise a ``ModuleNotFoundError`` that
    names the ``rl`` extra, and ``movecore bench --rl`` says so in one line (exit 2),
    not with a traceback, before it compiles anything (an empty cache folder: the
    kernels' compile would print its own lines first)."""
    hide = "import sys; sys.modules['gymnasium'] = None; "
    for call in ("rl.env('grid_hex_skirmish')", "rl.gym_env('grid_hex_skirmish')",
                 "rl.vector_env('grid_hex_skirmish', 2)"):
        code = hide + ("import movecore.rl as rl\ntry:\n    " + call +
                       "\nexcept ModuleNotFoundError as x:\n    print(x.name, x)")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             cwd=ROOT)
        assert out.returncode == 0, out.stderr[-2000:]
        assert out.stdout.startswith("gymnasium ") and "movecore[rl]" in out.stdout, \
            (call, out.stdout)
    code = hide + ("from movecore.tools.cli import main; "
                   "sys.exit(main(['bench', '--rl', 'grid', '--rl-steps', '10']))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, env={**os.environ, "MOVECORE_CACHE": str(tmp_path)})
    assert out.returncode == 2, (out.returncode, out.stderr[-2000:])
    assert "Traceback" not in out.stderr and "movecore[rl]" in out.stderr, out.stderr
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr


def test_every_bundled_example_makes_an_env_or_is_one_sided():
    """What docs/rl.md says: an env of every bundled example (those of no game's
    self-play list too, the C ABI's), but the two one-sided rule examples it names,
    which are refused with a ScenarioError."""
    import movecore as mc
    from movecore import examples
    one_sided = {"grid_ally_pass", "mage_knight_walls"}
    refused = set()
    for name in examples.names():
        try:
            e = rl.env(name)
        except mc.ScenarioError as x:
            assert "two sides" in str(x), (name, x)
            refused.add(name)
            continue
        e.reset(seed=0)
        assert len(e.possible_agents) >= 2, name
    assert refused == one_sided
    text = (ROOT / "docs" / "rl.md").read_text()
    assert all(f"`{n}`" in text for n in one_sided)


# ------------------------------------------------------------------ docs/rl.md
def test_docs_training_example_beats_random():
    """docs/rl.md's examples run as printed; the training one (at 1,500 steps) prints
    the returns the page gives for 1,500 steps (within 0.05: another machine's floating
    point may move a seeded run a little; a changed game moves it more)."""
    text = (ROOT / "docs" / "rl.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks
    said = re.search(r"with 1,500 steps, `([+-][0-9.]+)` against\s+`([+-][0-9.]+)`", text)
    assert said, "docs/rl.md no longer gives the 1,500-step returns"
    # the vector env's step compiled (or loaded) here first, under the test workers'
    # compile lock: the page's processes load it. (Compiled in a page's process, where
    # no lock is held, a worker's test that needs it at the same moment compiled it
    # too: ~26 CPU s twice on a cold cache.)
    warm = rl.vector_env("grid_hex_skirmish", num_envs=2, threads=2)
    warm.reset(seed=0)
    warm.step(np.zeros(2, np.int64))
    warm.close()
    printed = None
    for code in blocks:
        code = code.replace("STEPS = 4000", "STEPS = 1500")
        out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                             text=True, timeout=600)
        assert out.returncode == 0, out.stderr[-3000:]
        printed = re.search(r"trained ([+-][0-9.]+), random ([+-][0-9.]+)",
                            out.stdout) or printed
    assert printed, "the training example printed no returns"
    for doc, got in zip(said.groups(), printed.groups()):
        assert abs(float(doc) - float(got)) <= 0.05, (said.groups(), printed.groups())


@pytest.mark.parametrize("game", GAMES)
def test_game_pages_list_the_planes_and_shapes(game):
    """Each game's page lists, per bundled example, the observation shape, the action
    space of every side and the planes, as the env has them."""
    page = (ROOT / "docs" / f"{game}.md").read_text()
    assert "## Reinforcement learning" in page
    for _, name, scen in [t for t in SCENARIOS if t[0] == game]:
        e = rl.env(scen)
        acts = ", ".join(
            f"{a}: {len(e.action_layout(a).slots)} x {e.action_layout(a).P} + "
            f"{e.action_space(a).n - len(e.action_layout(a).slots) * e.action_layout(a).P}"
            f" = {e.action_space(a).n}" for a in e.possible_agents)
        row = (f"| `{name[:-5]}` | `{list(e._s.layout.shape)}` | {acts} | "
               f"{', '.join('`%s`' % p for p in e.plane_names)} |")
        assert row in page, row


def test_gym_opponent_moves_a_turned_base():
    """The built-in opponent plays a Descent base that turns (its ids swap while it
    stands turned): hundreds of steps against it never hit an illegal move."""
    env = rl.gym_env("descent_hell_hound", side="hero", opponent="random")
    turned = 0
    for seed in range(30):
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            obs, r, term, trunc, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
            assert not info.get("illegal_action")
            turned += bool(env._core.turned)
            done = term or trunc
    assert turned


@pytest.mark.parametrize("name", ["movecore.rl.turns", "movecore.rl.spaces",
                                  "movecore.rl.envs"])
def test_docstring_examples(name):
    import doctest
    import importlib
    failed, tried = doctest.testmod(importlib.import_module(name),
                                    optionflags=doctest.ELLIPSIS)
    assert failed == 0 and tried > 0


def test_gym_learner_wiped_out_is_terminated():
    """A learner whose figures are all removed while two other sides play on (Dark Realms:
    enemies and summons) is terminated, not left to the turn limit."""
    env = rl.gym_env("dark_realms_die_planning", side="hero", opponent="greedy",
                     max_turns=60)
    seen = 0
    for seed in range(40):
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            obs, r, term, trunc, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
            done = term or trunc
        if "hero" not in env.position.sides:
            assert term and not trunc
            seen += 1
    assert seen


def test_examples_are_what_selfplay_plays():
    for game in GAMES:
        assert rl.examples(game) == [n[:-5] for g, n, _ in SCENARIOS if g == game]
    assert rl.env("grid_hex_skirmish")._s is rl.env("grid_hex_skirmish.json")._s
    with pytest.raises(mc.ScenarioError):
        rl.examples("chess")


@pytest.mark.parametrize("game", GAMES)
def test_match_restart_plays_as_a_new_match(game):
    """An environment's reset restarts its match on a fresh copy: the same game as a
    new Match with the same seed, whatever the last game left behind."""
    root = mc.position(FIRST[game])

    def play(m):
        seen = []
        while not m.over and len(seen) < 80:
            seen.append((m.turn, m.side, m.figure, m.moves.actions.tolist()))
            m.play(m.random_row())
        return seen, m.over, m.n_sides, {f: m.pos.where(f) for f in m.pos.figures}

    used = Match(game, root.copy(), np.random.default_rng(1), max_turns=10)
    play(used)
    used.restart(root.copy(), np.random.default_rng(7))
    fresh = Match(game, root.copy(), np.random.default_rng(7), max_turns=10)
    assert play(used) == play(fresh)


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("max_turns", [1, 2, 40])
def test_reset_after_an_episode_plays_as_a_new_env(game, max_turns):
    """A reset after an episode (a short one taken back by undo, a long one from a fresh
    copy) starts the same game as a new environment: the same observations, masks,
    rewards and ends for the same seed and actions, from a position equal to the
    start."""
    def play(env, seed, rng, steps):
        env.reset(seed=seed)
        seen = []
        for _ in range(steps):
            obs, r, term, trunc, _ = env.last()
            seen.append((obs["observation"].tobytes(), obs["action_mask"].tobytes(), r,
                         term, trunc, env.agent_selection))
            if term or trunc:
                env.step(None)
                if not env.agents:
                    break
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[int(rng.random() * len(legal))]))
        return seen

    start = mc.position(FIRST[game]).key()
    used = rl.env(FIRST[game], max_turns=max_turns)
    for seed in range(3):     # episodes played to their end (or 200 steps)
        play(used, seed, np.random.default_rng(seed), 200)
        depth = used.position.undo_depth - used._core.s.root_depth
        before = used.position
        used.reset(seed=11)
        assert used.position.key() == start
        assert (used.position is before) == (0 <= depth <= 4)   # undone in place
    fresh = rl.env(FIRST[game], max_turns=max_turns)
    assert play(used, 11, np.random.default_rng(5), 300) == \
        play(fresh, 11, np.random.default_rng(5), 300)
