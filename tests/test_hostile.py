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
