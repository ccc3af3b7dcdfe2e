"""The published JSON Schemas agree with the readers: they accept every example (own
spelling and common form, bundled and in the docs), and on structural mutations of the
examples the schema refuses what the reader refuses and the other way round."""
from __future__ import annotations

import copy
import json
import random
import re
from pathlib import Path

import jsonschema
import pytest

import movecore as mc
from movecore import schemas
from movecore.tools.cli import example_paths
from movecore.errors import MovecoreError
from movecore import to_common

ROOT = Path(__file__).resolve().parent.parent
GAMES = mc.available_games()
EXAMPLES = {p.name: json.loads(p.read_text()) for p in example_paths()}


def _validator(game):
    return jsonschema.Draft202012Validator(schemas.load(game))


def _schema_ok(s, game=None) -> bool:
    return _validator(game or s["game"]).is_valid(s)


def _reader_ok(s) -> bool:
    try:
        mc.solve(copy.deepcopy(s))
    except MovecoreError:
        return False
    return True


def _doc_scenarios():
    out = []
    for page in sorted((ROOT / "docs").glob("*.md")):
        for block in re.findall(r"```json\n(.*?)```", page.read_text(), re.S):
            try:
                data = json.loads(block)
            except json.JSONDecodeError:
                continue        # a template with placeholders, or a result
            if isinstance(data, dict) and "game" in data:
                out.append(pytest.param(data, id=f"{page.stem}-{len(out)}"))
    return out


@pytest.mark.parametrize("game", GAMES)
def test_schema_is_well_formed_and_in_step_with_the_readers(game):
    shipped = schemas.load(game)
    jsonschema.Draft202012Validator.check_schema(shipped)
    built = schemas.build(game)
    for part in schemas.PARTS:
        where = shipped if part == "scenario" else shipped["$defs"][part]
        want = built if part == "scenario" else built["$defs"][part]
        assert sorted(where["properties"]) == sorted(want["properties"]), (
            f"{game} {part}: the readers now allow {sorted(want['properties'])}; run "
            f"`python -m movecore.schemas --write`")
    assert shipped == built, "run `python -m movecore.schemas --write`"


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_every_example_is_valid_in_both_spellings(name):
    s = EXAMPLES[name]
    v = _validator(s["game"])
    assert not list(v.iter_errors(s))
    assert not list(v.iter_errors(to_common(s)))


@pytest.mark.parametrize("scenario", _doc_scenarios())
def test_every_docs_example_is_valid(scenario):
    assert _schema_ok(scenario)
    assert _reader_ok(scenario)


def test_docs_hold_examples_of_most_games():
    assert len({p.values[0]["game"] for p in _doc_scenarios()}) >= 4


# ---------------------------------------------------------------- mutations
#: Values the reader lets through unread, which the schema refuses (the reader's
#: laxity, not the schema's error): (game, the mutated key path's tail, why).
READER_LAX: list = []   # (game, key path, why): none left


def _lax(game, path) -> bool:
    return any(g == game and tuple(path[-len(t):]) == t for g, t, _ in READER_LAX)


_BAD_VALUES = [{"x": 1}, "not a value", [[[1]]], True, 1.5]


def _parts(s):
    """(location, object) of every object the schema describes key by key."""
    yield "scenario", s
    board = s.get("board")
    if isinstance(board, dict):
        yield "board", board
        for c in board.get("cells", [])[:3]:
            yield "cell", c
    if isinstance(s.get("options"), dict):
        yield "options", s["options"]
    for f in s.get("figures", [])[:2]:
        yield "figure", f
    if isinstance(s.get("query"), dict):
        yield "query", s["query"]


def _mutations(s, rng):
    """Structural mutations: an unknown key, a required key dropped, a typed key given
    a value of the wrong JSON type, a list given as an object."""
    sch = schemas.load(s["game"])
    for part, obj in list(_parts(s)):
        spec = sch if part == "scenario" else sch["$defs"][part]
        yield f"{part}: unknown key", obj, "unknown_key_zz", 1, False
        for key in spec.get("required", ()):
            if key in obj:
                yield f"{part}: without {key}", obj, key, None, True
        for key, sub in spec["properties"].items():
            if key in obj and sub and "$ref" not in sub:
                yield f"{part}.{key}: wrong type", obj, key, rng.choice(_BAD_VALUES), False
    yield "cells not a list", s.get("board", {}), "cells", {"at": [0, 0]}, False


def _apply(s, obj, key, value, drop):
    """A copy of ``s`` with ``obj[key]`` replaced (or dropped): ``obj`` is found by
    identity in ``s`` and mirrored in the copy."""
    def walk(a, b):
        if a is obj:
            return b
        if isinstance(a, dict):
            for k in a:
                r = walk(a[k], b[k])
                if r is not None:
                    return r
        if isinstance(a, list):
            for x, y in zip(a, b):
                r = walk(x, y)
                if r is not None:
                    return r
        return None
    out = copy.deepcopy(s)
    target = walk(s, out)
    if drop:
        del target[key]
    else:
        target[key] = value
    return out


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_schema_and_reader_agree_on_structural_mutations(name):
    rng = random.Random(name)
    for form in (EXAMPLES[name], to_common(EXAMPLES[name])):
        for what, obj, key, value, drop in _mutations(form, rng):
            m = _apply(form, obj, key, value, drop)
            schema_ok, reader_ok = _schema_ok(m, form["game"]), _reader_ok(m)
            if not schema_ok and not _lax(form["game"], (re.split(r"[.:]", what)[0], key)):
                assert not reader_ok, (name, what, value)   # refuses what the reader does
            if what.endswith("unknown key") or "without" in what or "list" in what:
                assert not schema_ok and not reader_ok, (name, what)


def test_schema_refuses_level_and_its_alias_together():
    s = to_common(EXAMPLES["grid_hex_skirmish.json"])
    s["board"]["cells"][0].update(level=1, height=1)
    assert not _schema_ok(s) and not _reader_ok(s)


@pytest.mark.parametrize("game", sorted(p.stem for p in
                                        (ROOT / "core" / "schemas").glob("*.json")))
def test_every_field_has_a_description(game):
    """Each property of the shipped schema (every part, every query form) says what it
    is, in one line."""
    shipped = json.loads((ROOT / "core" / "schemas" / f"{game}.json").read_text())
    parts = {"scenario": shipped, **shipped["$defs"]}
    seen = 0
    for part, sub in parts.items():
        for holder in [sub, *sub.get("oneOf", ()), *sub.get("anyOf", ())]:
            for key, value in holder.get("properties", {}).items():
                text = value.get("description")
                assert isinstance(text, str) and text and "\n" not in text, (part, key)
                seen += 1
    assert seen > 20
