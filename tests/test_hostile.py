"""Hostile input at the public boundary (issue 33): every bad value is a typed
:class:`movecore.MovecoreError` naming it, never a wrong answer, a bare Python error or a
hang. The seeded mutation fuzzer over every bundled example is ``test_fuzz.py``."""
from __future__ import annotations

import copy
import json

import numpy as np
import pytest

import movecore as mc
from movecore.tools.cli import example_paths

EXAMPLES = {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in example_paths()}


def _first_example(game: str) -> dict:
    return next(copy.deepcopy(s) for s in EXAMPLES.values() if s["game"] == game)


GAMES = sorted({s["game"] for s in EXAMPLES.values()})


# ----------------------------------------------------------------- item 0: -2**63
GRID_2_63 = {"game": "grid", "board": {"grid": "square4", "cells": [
    {"at": [0, 0], "cost": -1}, {"at": [0, -2 ** 63]}, {"at": [1, 0]}]},
    "figures": [{"id": "a", "team": "r", "at": [1, 0]}],
    "query": {"figure": "a", "budget": 3}}


@pytest.mark.parametrize("v", [-2 ** 63, -2 ** 63 + 1, 2 ** 63 - 1, -(1 << 20) - 1])
def test_a_coordinate_of_minus_2_63_is_a_limit_error_not_a_wrapped_cell(v):
    # np.abs(-2**63) overflows to a negative number: the range check passed and the
    # cell wrapped onto (0, 0), answering the impassable (0, 0) at cost 1
    with pytest.raises(mc.LimitError, match="coordinates must lie within"):
        mc.Board.hex([(0, 0), (0, v)])
    s = copy.deepcopy(GRID_2_63)
    s["board"]["cells"][1]["at"] = [0, v]
    with pytest.raises(mc.LimitError):
        mc.solve(s)
    with pytest.raises(mc.LimitError):
        mc.Board.square_cells(np.array([[0, 0], [v, 0]], dtype=np.int64))


def test_the_coordinate_limit_itself_still_builds():
    b = mc.Board.hex([(0, -(1 << 20)), (0, 1 << 20)])
    assert b.coords.tolist() == [[0, -(1 << 20)], [0, 1 << 20]]


# ----------------------------------------------------------------- item 1: action ids
@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_action_ids_outside_the_range_are_query_errors(name):
    pos = mc.position(EXAMPLES[name])
    for fig in pos.figures:
        n = pos.n_actions(fig)
        assert pos.action_coords(fig, [0, n - 1]).shape[0] == 2
        assert pos.action_coords(fig, np.array([], np.int32)).shape[0] == 0
        for bad in (n, -1, -n, 10 ** 20, np.int64(n)):
            for ids in (bad, [0, bad], np.array([0, bad]) if bad != 10 ** 20 else [bad]):
                with pytest.raises(mc.QueryError, match=rf"action id -?\d+ is not in "
                                                        rf"\[0, {n}\)"):
                    pos.action_coords(fig, ids)
        for bad in (1.5, True, [True], "0", [[0.0]]):
            with pytest.raises(mc.QueryError, match="action id"):
                pos.action_coords(fig, bad)


# ----------------------------------------------------------------- item 2: figure ids
def _kw(s: dict) -> dict:
    """The scenario query as legal_moves keywords."""
    kw = {k: v for k, v in s.get("query", {}).items() if k not in ("figure", "enemy")}
    if "enemy" in s.get("query", {}):
        kw["enemy"] = True
    return kw


def _with_int_id(game: str) -> dict:
    """A game's example with its queried figure renamed 1 (one legal_moves answers)."""
    for s in EXAMPLES.values():
        q = s.get("query") or {}
        key = "enemy" if "enemy" in q else "figure"
        if s["game"] != game or key not in q:
            continue
        s = copy.deepcopy(s)
        for f in s["figures"]:
            if f["id"] == q[key]:
                f["id"] = 1
        s["query"][key] = 1
        try:
            mc.position(s).legal_moves(1, **_kw(s))
        except mc.MovecoreError:
            continue
        return s
    raise AssertionError(f"no {game} example for the test")


@pytest.mark.parametrize("game", GAMES)
def test_a_figure_id_matches_only_an_equal_id_of_the_same_type(game):
    s = _with_int_id(game)
    pos = mc.position(s)
    kw = _kw(s)
    assert 1 in pos.figures
    pos.legal_moves(1, **kw)
    pos.legal_moves(np.int64(1), **kw)           # a NumPy integer reads as its int
    for bad in (True, 1.0, "1", [1], None, "\ud800", "", 0, False, "nobody", b"1"):
        with pytest.raises(mc.QueryError, match="unknown figure|not in"):
            pos.legal_moves(bad, **kw)
        with pytest.raises(mc.QueryError):
            pos.apply_move(bad, 0, **kw)
        with pytest.raises(mc.QueryError):
            pos.n_actions(bad)
        with pytest.raises(mc.QueryError):
            pos.action_coords(bad, [0])
    # in solve(): query.figure true is not figure 1 (a boolean is never a number)
    key = "enemy" if "enemy" in s["query"] else "figure"
    mc.solve(s)
    for bad in (True, "1", [1]):
        t = copy.deepcopy(s)
        t["query"][key] = bad
        with pytest.raises(mc.MovecoreError):
            mc.solve(t)


@pytest.mark.parametrize("game", GAMES)
def test_figure_ids_that_utf8_cannot_encode_are_refused(game):
    s = _first_example(game)
    s["figures"][0]["id"] = "\ud800"
    with pytest.raises(mc.ScenarioError, match="UTF-8"):
        mc.position(s)
    with pytest.raises(mc.ScenarioError, match="UTF-8"):
        mc.solve(s)


@pytest.mark.parametrize("game", ["grid", "heroscape", "tiny_epic_tactics", "mage_knight",
                                  "dark_realms"])
def test_add_figure_checks_the_new_id(game):
    pos = mc.position(_first_example(game))
    for bad in (True, 1.5, "\udfff", None, [1]):
        with pytest.raises(mc.QueryError, match="figure id|add_figure"):
            pos.add_figure(bad, *(("hero",) if game == "dark_realms" else
                                  () if game == "mage_knight" else ("red",)), (99, 99))


def test_dark_realms_enemy_must_be_a_boolean():
    s = next(copy.deepcopy(v) for v in EXAMPLES.values()
             if v["game"] == "dark_realms" and "enemy" in v.get("query", {}))
    pos = mc.position(s)
    fid = s["query"]["enemy"]
    rest = {k: v for k, v in s["query"].items() if k != "enemy"}
    assert len(pos.legal_moves(fid, enemy=True, **rest)) > 0
    for bad in ("ayla", float("nan"), [], 1, None):
        with pytest.raises(mc.QueryError, match="enemy"):
            pos.legal_moves(fid, enemy=bad, **rest)


# ----------------------------------------------------------------- item 3: nesting
def _deep(n: int):
    v: list = []
    for _ in range(n):
        v = [v]
    return v


def test_describe_is_a_bounded_preview():
    assert mc.errors.describe(_deep(100_000)) == "[[[[[[[[...]]]]]]]]"
    assert mc.errors.describe({"a": [1, (2,)]}) == repr({"a": [1, (2,)]})
    assert len(mc.errors.describe(list(range(10 ** 6)))) == 60
    assert "bits" in mc.errors.describe(10 ** 5000)      # repr itself would raise


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("where", ["board", "figure", "query", "options"])
def test_deep_nesting_is_a_scenario_error(game, where):
    s = _first_example(game)
    deep = _deep(5000)
    if where == "board":
        s["board"] = {**s["board"], "cells": deep} if "cells" in s["board"] else \
            {**s["board"], "rows": deep}
    elif where == "figure":
        s["figures"][0]["at"] = deep
    elif where == "query":
        s["query"] = {**s.get("query", {}), "figure": deep}
    else:
        s["options"] = {"x": deep}
    for fn in (mc.solve, mc.position):
        with pytest.raises(mc.ScenarioError, match="nested more than"):
            fn(s)
    with pytest.raises(mc.ScenarioError, match="nested"):
        mc.solve("[" * 100_000 + "]" * 100_000)


def test_descent_add_figure_refuses_deep_abilities():
    pos = mc.position(_first_example("descent"))
    with pytest.raises(mc.ScenarioError, match="nested"):
        pos.add_figure({"id": "x", "side": "monster", "at": [0, 0],
                        "abilities": _deep(5000)})


# ----------------------------------------------------------------- item 4: unhashable
@pytest.mark.parametrize("game", [["grid"], {"grid": 1}, {1, 2} and [1], 1.5, None, True])
def test_an_unhashable_or_non_text_game_is_an_unknown_game_error(game):
    s = _first_example("grid")
    s["game"] = game
    with pytest.raises(mc.ScenarioError):
        mc.solve(s)
    with pytest.raises(mc.UnknownGameError):
        mc.position(s)


# ----------------------------------------------------------------- item 9: one rule
@pytest.mark.parametrize("game", GAMES)
def test_whole_number_floats_read_as_integers_everywhere(game):
    """The rule (docs/api.md): a JSON number that is a whole number is that integer,
    as JSON Schema's ``integer`` says; the schema and the readers agree."""
    s = _first_example(game)
    f = s["figures"][0]
    t = copy.deepcopy(s)

    def floats(v):
        if isinstance(v, dict):
            return {k: floats(x) for k, x in v.items()}
        if isinstance(v, list):
            return [floats(x) for x in v]
        return float(v) if type(v) is int else v
    t = floats(t)
    t["figures"][0]["at"] = floats(f["at"]) if not isinstance(f["at"], str) else f["at"]
    assert mc.position(t).figures == mc.position(s).figures
    if "query" in s:
        assert mc.solve(t) == mc.solve(s)
        assert mc.solve(json.dumps(t)) == mc.solve(s)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), 0.5, 1e308, -2.0 ** 63])
def test_other_floats_are_typed_errors(value):
    s = _first_example("grid")
    s["figures"][0]["at"] = [value, 0]
    with pytest.raises(mc.MovecoreError):
        mc.solve(s)


def test_json_integers_past_the_digit_limit_are_scenario_errors():
    text = json.dumps(_first_example("grid")).replace('"budget": ', '"budget": ' + "9" * 5000
                                                      + ", \"x\": ", 1)
    for fn in (mc.solve, mc.position):
        with pytest.raises(mc.ScenarioError, match="JSON"):
            fn(text)
    s = _first_example("grid")
    s["query"]["budget"] = 10 ** 5000     # from Python: a LimitError naming it
    with pytest.raises(mc.MovecoreError):
        mc.solve(s)


def test_descent_action_of_refuses_float_coordinates():
    """``int(1.5)`` read the square (1, 0) and ``int(inf)`` raised OverflowError."""
    s = next(copy.deepcopy(v) for v in EXAMPLES.values() if v["game"] == "descent")
    pos = mc.position(s)
    fig = pos.figures[0]
    for to in ([1.5, 0], [float("inf"), 0], [[float("nan"), 0]], np.array([1.5, 0.0])):
        with pytest.raises(mc.MovecoreError, match="two integers"):
            pos.action_of(fig, to)
        with pytest.raises(mc.MovecoreError):
            pos.apply_move(fig, to)
    x, y = pos.where(fig)
    assert pos.action_of(fig, (np.int64(x), np.int64(y))) == pos.action_of(fig, [x, y])


# ------------------------------------------- item 4: every word used as a dictionary key
@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_every_value_as_an_unhashable_or_odd_value_is_a_typed_error(name):
    """Each kind of place of the example (its path with list indices as *) given a
    list, an object, a boolean or NaN: a typed error or an answer, never TypeError
    (an unhashable word looked up in a table) or another bare Python error."""
    import fuzz
    s = EXAMPLES[name]
    seen = set()
    for path, _ in fuzz.sites(s):
        sig = tuple("*" if type(k) is int else k for k in path)
        if not path or sig in seen:
            continue
        seen.add(sig)
        for value in ([], {}, ["x"], {"x": 1}, True, float("nan")):
            m = copy.deepcopy(s)
            fuzz._put(m, path, value)
            for fn in (mc.solve, mc.position):
                try:
                    fn(m)
                except mc.MovecoreError:
                    pass


# ================================================= the RL environments, batches, self-play
def _rl():
    pytest.importorskip("pettingzoo")
    pytest.importorskip("gymnasium")
    import movecore.rl as rl
    return rl


def _grid() -> dict:
    return copy.deepcopy(EXAMPLES["grid_hex_skirmish"])


def _main(argv) -> int:
    from movecore.tools.cli import main
    return main(argv)


# ----------------------------------------------------- a scenario dict read when it is used
def test_an_edited_scenario_dict_makes_an_environment_of_what_it_holds_now():
    """The set-ups were kept by the dict's id: an edited dict played the old scenario."""
    rl = _rl()
    d = _grid()
    for make in (rl.gym_env, rl.env):
        make(d).reset(seed=0)
    d["figures"][0]["at"] = [3, 2]
    for make in (rl.gym_env, rl.env):
        e = make(d)
        e.reset(seed=0)
        assert e.position.where("scout") == (3, 2)
    d["figures"].pop(2)                      # the only enemy
    with pytest.raises(mc.ScenarioError, match="two sides"):
        rl.gym_env(d)


def test_the_scenario_caches_are_bounded_and_compare_what_they_keep():
    from movecore.rl._core import _SETUPS
    from movecore.scenario import ScenarioCache
    from movecore.tools._roots import _ROOTS
    c = ScenarioCache(2)
    built = []
    d = {"a": [1, 2]}
    assert c.get(d, 0, lambda: built.append(1) or 1) == 1
    assert c.get(d, 0, lambda: built.append(2) or 2) == 1          # unchanged: kept
    d["a"][1] = 3
    assert c.get(d, 0, lambda: built.append(3) or 3) == 3          # edited: anew
    d["a"][1] = True                          # True == 1 but is not the same value
    assert c.get(d, 0, lambda: 4) == 4
    kept = [{"k": k} for k in range(5)]
    for k, s in enumerate(kept):
        c.get(s, 0, lambda: k)
    assert len(c) == 2
    assert _SETUPS.size <= 64 and _ROOTS.size <= 64


def test_a_held_scenario_is_compared_once_per_key(monkeypatch):
    """``ScenarioCache.held``: inside the block a dict is compared with its kept copy
    once per key (a stale entry at its address is still seen, and an edit made before
    the block), outside at every hit; other dicts and other threads compare as ever."""
    import threading
    from movecore import scenario as S
    compares = []
    real = S._same
    monkeypatch.setattr(S, "_same", lambda a, b: compares.append(1) or real(a, b))
    c = S.ScenarioCache(4)
    d, other = {"a": [1]}, {"b": 2}
    c.get(d, 0, lambda: "d")
    c.get(other, 0, lambda: "o")
    d["a"][0] = 5                               # edited before the block: seen once
    with c.held(d):
        assert [c.get(d, 0, lambda: "d5") for _ in range(5)] == ["d5"] * 5
        assert len(compares) == 1               # (the first lookup; then trusted)
        assert c.get(d, 1, lambda: "d-1") == "d-1" and c.get(d, 1, lambda: 0) == "d-1"
        assert len(compares) == 1               # (key 1 built in the block: trusted)
        c.get(other, 0, lambda: "o2")
        c.get(other, 0, lambda: "o2")
        assert len(compares) == 3               # another dict: every hit compared
        seen = []
        t = threading.Thread(target=lambda: seen.append(c.get(d, 0, lambda: "t")))
        t.start()
        t.join()
        assert seen == ["d5"] and len(compares) == 4   # another thread: compared
    c.get(d, 0, lambda: "x")
    assert len(compares) == 5                   # after the block: compared again


def test_a_positions_backend_vector_env_sets_its_scenario_up_once(monkeypatch):
    """The positions backend's B environments share one set-up, checked against the
    dict once (not once per environment), and still follow a dict edited between two
    vector envs."""
    rl = _rl()
    from movecore import scenario as S
    compares = []
    real = S._same
    monkeypatch.setattr(S, "_same", lambda a, b: compares.append(1) or real(a, b))
    d = _grid()
    a = rl.vector_env(d, num_envs=6, backend="positions")
    assert len({id(e._s) for e in a.envs}) == 1
    assert len(compares) <= 2                   # (the first env's, the block's first)
    d["figures"][0]["at"] = [3, 2]
    b = rl.vector_env(d, num_envs=3, backend="positions")
    assert b.envs[0]._s is not a.envs[0]._s
    b.reset(seed=0)
    assert b.envs[0].position.where("scout") == (3, 2)


def test_self_play_roots_follow_an_edited_dict_and_check_the_game():
    from movecore.tools._roots import _root
    from movecore.tools.selfplay_batch import BatchedPlay
    d = _grid()
    assert _root("grid", d)[0].where("scout") == (0, 1)
    d["figures"][0]["at"] = [3, 2]
    assert _root("grid", d)[0].where("scout") == (3, 2)
    hs = _first_example("heroscape")
    with pytest.raises(mc.UnknownGameError, match="chess"):
        BatchedPlay("chess", d, 2)
    with pytest.raises(mc.ScenarioError, match="'heroscape', not 'grid'"):
        BatchedPlay("grid", hs, 2)
    with pytest.raises(mc.ScenarioError, match="'grid', not 'heroscape'"):
        BatchedPlay("heroscape", d, 2)


# ----------------------------------------------------------------- copy.copy(position)
@pytest.mark.parametrize("name", sorted(n for n, s in EXAMPLES.items() if "query" in s))
def test_copy_copy_of_a_position_is_a_copy_that_moves_alone(name):
    """``copy.copy`` shared the arrays: moving the copy moved the original."""
    s = EXAMPLES[name]
    fig, kw = s["query"].get("figure") or s["query"].get("enemy"), _kw(s)
    p = mc.position(s)
    before = {f: p.where(f) for f in p.figures}
    q = copy.copy(p)
    assert type(q) is type(p) and q is not p
    try:
        m = q.legal_moves(fig, **kw)
        far = np.flatnonzero(m.costs > 0)
        if not len(far):
            pytest.skip("the queried figure has nowhere to go")
        q.apply_row(m, int(far[-1]))
    except (mc.MovecoreError, TypeError):
        pytest.skip("the scenario's query is not one legal_moves call and its move")
    assert q.where(fig) != before[fig]
    assert {f: p.where(f) for f in p.figures} == before and p.undo_depth == 0
    fresh = mc.position(s)      # (Dark Realms: the occupancy was shared, not the place)
    assert p.key() == fresh.key() and p.to_scenario() == fresh.to_scenario()
    assert p.legal_moves(fig, **kw).actions.tolist() == \
        fresh.legal_moves(fig, **kw).actions.tolist()


# ----------------------------------------------------------------- seeds
@pytest.mark.parametrize("seed", [-1, 1.5, "x", True, None, [1, 2]])
def test_a_bad_self_play_seed_is_a_query_error(seed):
    from movecore.tools.selfplay import run_selfplay
    from movecore.tools.selfplay_batch import BatchedPlay, run_batched
    d = _grid()
    if seed is not None and not isinstance(seed, list):
        with pytest.raises(mc.QueryError, match="seed"):
            BatchedPlay("grid", d, 2, seed=seed)
    with pytest.raises(mc.QueryError, match="seed"):
        run_batched("grid", 2, [("g", d)], seed, batch=2)
    with pytest.raises(mc.QueryError, match="seed"):
        run_selfplay("grid", 2, seed)


def test_batched_play_takes_numpy_and_sequence_seeds():
    from movecore.tools.selfplay_batch import BatchedPlay
    d = _grid()
    a = BatchedPlay("grid", d, 2, seed=np.int64(4))
    assert a._key == BatchedPlay("grid", d, 2, seed=4)._key
    BatchedPlay("grid", d, 2, seed=[1, 2])
    for bad in ([1, -2], [], [None]):
        with pytest.raises(mc.QueryError, match="seed"):
            BatchedPlay("grid", d, 2, seed=bad)


@pytest.mark.parametrize("batch", [[], ["--batch", "2"]])
def test_the_cli_refuses_a_negative_seed_and_huge_turns_in_one_line(batch, capsys):
    for extra in (["--seed", "-1"], ["--turns", str(2 ** 63)]):
        assert _main(["selfplay", "--game", "grid", "--games", "2", *batch, *extra]) == 2
        err = capsys.readouterr().err
        assert err.startswith("movecore: error: QueryError") and err.count("\n") == 1


@pytest.mark.parametrize("seed", [-1, 1.5, [1, 2], True, "x", np.float64(2)])
def test_single_env_seeds_follow_the_vector_envs_rule(seed):
    rl = _rl()
    for make in (rl.gym_env, rl.env):
        with pytest.raises(mc.QueryError, match="seed"):
            make("grid_hex_skirmish").reset(seed=seed)


def test_single_envs_take_numpy_integer_seeds():
    rl = _rl()
    for make in (rl.gym_env, rl.env):
        a, b = make("grid_hex_skirmish"), make("grid_hex_skirmish")
        a.reset(seed=np.int64(3))
        b.reset(seed=3)
        assert a.position.key() == b.position.key()


# ----------------------------------------------------------------- bench arguments
@pytest.mark.parametrize("args", [["--rl", "grid", "--rl-steps", "0"],
                                  ["--rl", "grid", "--rl-steps", "-5"],
                                  ["--rl", "grid", "--rounds", "0"],
                                  ["--queries", "0"], ["--games", "grid",
                                                       "--selfplay-games", "0"],
                                  ["--min-time", "nan"], ["--min-time", "inf"],
                                  ["--min-time", "-1"], ["--memory", "-1"]])
def test_bench_counts_out_of_range_are_one_line_errors(args, capsys):
    assert _main(["bench", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("movecore: error: QueryError: --") and err.count("\n") == 1


# ----------------------------------------------------------------- BatchedGames
def test_batched_games_positions_backend_reads_a_none_query_as_the_slots_own():
    from movecore.batch import BatchedGames
    root = mc.position(_grid())
    G = BatchedGames(root, 2, backend="positions")
    want = G.legal_moves([0, 0])
    got = G.legal_moves([0, 0], queries=[None, None])
    assert all((a == b).all() for a, b in zip(want, got))
    for bad in ("ab", [1, 2], [None, "x"]):
        with pytest.raises(mc.QueryError, match="queries"):
            G.legal_moves([0, 0], queries=bad)


@pytest.mark.parametrize("backend", ["positions", "arrays"])
def test_batched_remove_checks_every_pair_before_changing_a_game(backend):
    from movecore.batch import BatchedGames
    root = mc.position(_grid())
    G = BatchedGames(root, 3, backend=backend)
    G.remove([0], [1])
    with pytest.raises(mc.QueryError, match="slot 1 .* of game 0 is not in play"):
        G.remove([1, 0], [1, 1])
    assert G.alive[1, 1]
    if backend == "positions":
        assert "guard" in G.positions[1].figures
    with pytest.raises(mc.QueryError, match="slot 2 of game 0 is named twice"):
        G.remove([0, 0], [2, 2])
    assert G.alive[0, 2]
    G.remove([0, 1], [2, 2])
    assert not G.alive[0, 2] and not G.alive[1, 2]


@pytest.mark.parametrize("root", [None, "grid", 3])
def test_batched_games_of_a_scenario_dict_says_to_make_a_position(root):
    from movecore.batch import BatchedGames
    for r in (_grid(), root):
        with pytest.raises(mc.QueryError, match=r"movecore\.position\(scenario\)"):
            BatchedGames(r, 2)


def test_batched_play_run_checks_its_count():
    from movecore.tools.selfplay_batch import BatchedPlay
    bp = BatchedPlay("grid", _grid(), 2)
    for bad in ("x", None, -1, 2.5, True):
        with pytest.raises(mc.QueryError, match="n_games"):
            bp.run(bad)
    assert bp.run(0)["games"] == 0


# ----------------------------------------------------------------- max_turns
@pytest.mark.parametrize("turns", [2 ** 31, 2 ** 63, 2 ** 64 + 1])
def test_max_turns_has_an_upper_bound(turns):
    rl = _rl()
    from movecore.rl.turns import MAX_TURNS
    from movecore.tools.selfplay_batch import BatchedPlay
    for make in (rl.gym_env, rl.env, rl.raw_env, lambda n, **k: rl.vector_env(n, 2, **k)):
        with pytest.raises(mc.QueryError, match="max_turns"):
            make("grid_hex_skirmish", max_turns=turns)
    with pytest.raises(mc.QueryError, match="turns"):
        BatchedPlay("grid", _grid(), 2, max_turns=turns)
    rl.gym_env("grid_hex_skirmish", max_turns=MAX_TURNS)


def test_every_turn_limit_takes_one_rule():
    """The environments' ``max_turns``, ``run_selfplay``'s and ``BatchedPlay``'s take the
    same values (``turns_value``): NumPy integers too, as a Python ``int``; a bool, a
    float, a string, 0 or a negative number is a QueryError naming the keyword."""
    import numpy as np
    rl = _rl()
    from movecore.tools.selfplay import run_selfplay
    from movecore.tools.selfplay_batch import BatchedPlay
    scen = _grid()
    makers = {
        "max_turns": lambda t: rl.gym_env("grid_hex_skirmish", max_turns=t),
        "turns": lambda t: run_selfplay("grid", 0, 1, max_turns=t, scenarios=[("g", scen)]),
        "turns ": lambda t: BatchedPlay("grid", scen, 2, max_turns=t)}
    for word, make in makers.items():
        for bad in (True, np.bool_(True), 3.0, "3", None, 0, -1, np.int64(0)):
            with pytest.raises(mc.QueryError, match=word.strip()):
                make(bad)
        for good in (3, np.int64(3), np.int32(3), np.uint8(3)):
            make(good)
    play = BatchedPlay("grid", scen, 2, max_turns=np.int16(5))
    assert type(play.max_turns) is int and play.max_turns == 5


# ----------------------------------------------------------------- before reset
def test_render_and_position_before_reset_are_query_errors():
    rl = _rl()
    for make in (rl.gym_env, rl.env, rl.raw_env):
        e = make("grid_hex_skirmish", render_mode="ansi")
        for what in (e.render, lambda: e.position):
            with pytest.raises(mc.QueryError, match="reset"):
                what()
        e.reset(seed=0)
        assert isinstance(e.render(), str)


# ----------------------------------------------------------------- keywords
@pytest.mark.parametrize("value", ["x", "1", None, [1], True, float("nan"), float("inf")])
def test_illegal_reward_is_a_finite_number(value):
    rl = _rl()
    for make in (rl.gym_env, rl.env, lambda n, **k: rl.vector_env(n, 2, **k)):
        with pytest.raises(mc.QueryError, match="illegal_reward"):
            make("grid_hex_skirmish", illegal_reward=value)
    assert rl.gym_env("grid_hex_skirmish", illegal_reward=np.int64(-3)).illegal_reward == -3.0


@pytest.mark.parametrize("value", ["no", "False", 1, None])
def test_town_is_true_or_false(value):
    rl = _rl()
    for make in (rl.gym_env, rl.env):
        with pytest.raises(mc.QueryError, match="town"):
            make("grid_hex_skirmish", town=value)


def test_an_unhashable_agent_is_a_query_error():
    rl = _rl()
    e = rl.env("grid_hex_skirmish")
    e.reset(seed=0)
    for fn in (e.observe, e.action_space, e.observation_space, e.action_layout,
               e.action_cells):
        for agent in ([1], {}, {"red"}):
            with pytest.raises(mc.QueryError, match="unknown agent"):
                fn(agent)


@pytest.mark.parametrize("kw", [{"reward_fn": lambda *a: None},
                                {"reward_fn": lambda *a: {"red": "1"}},
                                {"terminal_fn": lambda pos: np.zeros(3)},
                                {"terminal_fn": lambda pos: None}])
def test_a_callback_answer_of_the_wrong_type_is_a_query_error(kw):
    rl = _rl()
    for make in (rl.gym_env, rl.env):
        e = make("grid_hex_skirmish", **kw)
        e.reset(seed=0)
        mask = e.action_masks() if make is rl.gym_env else e.last()[0]["action_mask"]
        a = int(np.flatnonzero(mask)[0])
        name = next(iter(kw))
        with pytest.raises(mc.QueryError, match=name):
            e.step(a)
        with pytest.raises(mc.QueryError, match="reset"):        # the episode stopped
            e.step(a)
        e.reset(seed=0)                                           # and starts again


def test_an_observation_too_large_is_a_limit_error():
    rl = _rl()
    from movecore.rl.spaces import MAX_OBSERVATION_BYTES, check_observations
    d = _grid()
    d["board"]["cells"].append({"at": [4000, 4000]})
    with pytest.raises(mc.LimitError, match="MiB"):
        rl.gym_env(d)
    with pytest.raises(mc.LimitError, match="num_envs"):
        check_observations((15, 10, 10), 10 ** 30)
    check_observations((1, 1, MAX_OBSERVATION_BYTES // 4), 1)


def test_vector_env_refuses_a_batch_of_observations_too_large_before_allocating():
    rl = _rl()
    with pytest.raises(mc.LimitError, match="num_envs"):
        rl.vector_env("grid_hex_skirmish", num_envs=10 ** 12)


def test_a_gym_step_before_the_first_reset_says_so():
    """Before any reset a step says "before reset()" (not "after the episode ended",
    which it says once an episode is over)."""
    rl = _rl()
    e = rl.gym_env("grid_hex_skirmish")
    with pytest.raises(mc.QueryError, match=r"step\(\) before reset\(\)"):
        e.step(0)
    e.reset(seed=0)
    *_, info = e.step(e.action_space.n)           # outside the space: the game ends
    assert info["illegal_action"]
    with pytest.raises(mc.QueryError, match="after the episode ended"):
        e.step(0)
