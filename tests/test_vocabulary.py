"""The common scenario form (board.grid + board.cells with level) works for every game
and answers exactly as the game's own spelling; ``movecore convert`` / ``schema``."""
from __future__ import annotations

import copy
import json
from pathlib import Path
import subprocess
import sys

import pytest

import movecore as mc
from movecore.tools.cli import example_paths
from movecore.errors import BoardError, MovecoreError, ScenarioError
from movecore import to_common
from movecore.vocabulary import LEVEL_ALIASES, ONLY_GRID, to_native

EXAMPLES = {p.name: json.loads(p.read_text()) for p in example_paths()}


@pytest.fixture(params=sorted(EXAMPLES))
def example(request):
    return copy.deepcopy(EXAMPLES[request.param])


def test_every_example_answers_the_same_in_the_common_form(example):
    common = to_common(example)
    assert set(common["board"]) & {"grid"}
    assert "cells" in common["board"] or "tiles" in common["board"]
    assert mc.solve(common) == mc.solve(example)
    # the common form is a fixed point, and every game reads it as a live position
    assert to_common(common) == common
    pos = mc.position(common)
    assert mc.solve(pos.to_scenario(example["query"])) == mc.solve(example)


def test_common_form_uses_level_only(example):
    common = to_common(example)
    for c in common["board"].get("cells", []):
        assert not set(c) & {"height", "elevation"}, c


_HEX = {"grid": "hex", "cells": [{"at": [q, r]} for q in range(3) for r in range(2)]}


@pytest.mark.parametrize("game,figures,query", [
    ("heroscape", [{"id": "a", "team": 1, "at": [0, 0], "move": 3}],
     {"figure": "a"}),
    ("mage_knight", [{"id": "a", "at": [0, 0]}], {"figure": "a", "budget": 6}),
])
def test_the_neutral_hex_board_is_read(game, figures, query):
    """The issue's board: {"grid": "hex", "cells": [{"at": [q, r]}]} (Mage Knight cells
    need a terrain)."""
    board = copy.deepcopy(_HEX)
    if game == "mage_knight":
        for c in board["cells"]:
            c["terrain"] = "plains"
    s = {"game": game, "board": board, "figures": figures, "query": query}
    native = copy.deepcopy(s)
    del native["board"]["grid"]
    assert mc.solve(s) == mc.solve(native)
    assert len(mc.solve(s)["ends"]) == 6


@pytest.mark.parametrize("game", sorted(ONLY_GRID))
def test_the_wrong_grid_is_refused_by_name(game):
    s = copy.deepcopy(next(e for e in EXAMPLES.values() if e["game"] == game))
    s["board"]["grid"] = "square4" if ONLY_GRID[game] != "square4" else "hex"
    with pytest.raises(BoardError, match=repr(ONLY_GRID[game])):
        mc.solve(s)
    with pytest.raises(BoardError):
        mc.position(s)


def _grid_example():
    return copy.deepcopy(EXAMPLES["grid_hex_skirmish.json"])


def test_grid_level_is_height():
    s = _grid_example()
    own = mc.solve(s)
    for c in s["board"]["cells"]:
        if "height" in c:
            c["level"] = c.pop("height")
    assert mc.solve(s) == own
    s["board"]["cells"][6]["level"] = 0     # the level counts (the hill is gone)
    assert mc.solve(s) != own
    s["board"]["cells"][6]["height"] = 0
    with pytest.raises(ScenarioError, match="both 'level' and 'height'"):
        mc.solve(s)


def _tet_example():
    return copy.deepcopy(EXAMPLES["tiny_epic_tactics_skirmish.json"])


def test_tiny_epic_tactics_from_cells_alone_with_level():
    s = _tet_example()
    common = to_common(s)
    assert "width" not in common["board"] and "elevation" not in json.dumps(common["board"])
    assert any("level" in c for c in common["board"]["cells"])
    assert mc.solve(common) == mc.solve(s)
    lifted = copy.deepcopy(common)
    for c in lifted["board"]["cells"]:
        c["level"] = c.get("level", 0) + 1 if c["at"] == [4, 3] else c.get("level", 0)
    assert mc.solve(lifted) != mc.solve(common)   # level is read as the elevation


@pytest.mark.parametrize("drop,message", [([0, 0], r"leaves out \[0, 0\]"),
                                          ([5, 5], r"leaves out \[5, 5\]")])
def test_tiny_epic_tactics_is_a_rectangle_from_the_origin(drop, message):
    common = to_common(_tet_example())
    common["board"]["cells"] = [c for c in common["board"]["cells"] if c["at"] != drop]
    with pytest.raises(BoardError, match=message):
        mc.solve(common)
    common = to_common(_tet_example())
    common["board"]["cells"].append({"at": [-1, 0]})
    with pytest.raises(BoardError, match="from"):
        mc.solve(common)


def test_tiny_epic_tactics_grid_is_the_diagonals_option():
    s = _tet_example()
    s["options"]["diagonals"] = True
    common = to_common(s)
    assert common["board"]["grid"] == "square8"
    del common["options"]["diagonals"]
    assert mc.solve(common) == mc.solve(s)
    common["options"]["diagonals"] = False
    with pytest.raises(ScenarioError, match="give the grid once"):
        mc.solve(common)
    common["board"]["grid"] = "hex"
    with pytest.raises(BoardError, match="square4"):
        mc.solve(common)


def _shift(value, dx, dy):
    """Every [x, y] in a JSON value moved by (dx, dy)."""
    if isinstance(value, list):
        if len(value) == 2 and all(isinstance(v, int) and not isinstance(v, bool)
                                   for v in value):
            return [value[0] + dx, value[1] + dy]
        return [_shift(v, dx, dy) for v in value]
    if isinstance(value, dict):
        return {k: (v if k in ("id", "speed", "mp", "fatigue", "cost", "left", "wounds",
                               "wounds_cost") else _shift(v, dx, dy))
                for k, v in value.items()}
    return value


def test_descent_cells_any_shape_and_negative_coordinates():
    s = copy.deepcopy(EXAMPLES["descent_hero_run.json"])
    common = to_common(s)
    moved = {k: (_shift(v, -5, -3) if k in ("board", "figures") else v)
             for k, v in common.items()}
    moved["board"]["grid"] = "square8"
    want = mc.solve(s)
    got = mc.solve(moved)
    assert _shift(got["ends"], 5, 3) == want["ends"]
    # a dungeon that is no rectangle: the squares off the board are simply not listed
    holed = copy.deepcopy(moved)
    holed["board"]["cells"] = [c for c in holed["board"]["cells"] if c["at"] != [-1, -1]]
    assert [-1, -1] in [e["at"] for e in got["ends"]]
    assert [-1, -1] not in [e["at"] for e in mc.solve(holed)["ends"]]
    # and the live position writes such a board back in the cells form
    pos = mc.position(moved)
    assert mc.solve(pos.to_scenario(moved["query"])) == got
    with pytest.raises(ScenarioError, match="'cells' and 'rows'"):
        mc.solve({**moved, "board": {**moved["board"], "rows": ["..."]}})


def test_heroscape_glyph_true_is_an_unnamed_glyph():
    s = copy.deepcopy(EXAMPLES["heroscape_stream_crossing.json"])
    named = mc.solve(s)
    cells = s["board"]["cells"]
    i = next(i for i, c in enumerate(cells) if c.get("glyph"))
    cells[i]["glyph"] = True
    assert mc.solve(s) == named
    cells[i]["glyph"] = False
    assert mc.solve(s) != named
    del cells[i]["glyph"]
    none = mc.solve(s)
    cells[i]["glyph"] = False
    assert mc.solve(s) == none


def test_to_native_leaves_own_spelling_alone(example):
    assert to_native(example) is example


def test_level_aliases_are_documented():
    text = Path(__file__).resolve().parents[1] / "docs" / "api.md"  # the repository's
    doc = open(text, encoding="utf-8").read()
    assert "## Common form" in doc
    for game, word in LEVEL_ALIASES.items():
        assert f"`{word}`" in doc and game in doc


def _cli(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "movecore", *args], capture_output=True,
                          text=True, input=stdin)


def test_cli_convert_prints_the_common_form():
    path = next(p for p in example_paths() if p.name == "descent_ogre.json")
    out = _cli("convert", str(path))
    assert out.returncode == 0, out.stderr
    common = json.loads(out.stdout)
    assert common == to_common(EXAMPLES["descent_ogre.json"])
    bad = _cli("convert", "-", stdin=json.dumps({"game": "heroscape", "board": {
        "grid": "square4", "cells": [{"at": [0, 0]}]}, "figures": [], "query": {}}))
    assert bad.returncode == 2 and "BoardError" in bad.stderr


def test_cli_schema_prints_the_shipped_schema():
    from movecore.schemas import load
    out = _cli("schema", "heroscape")
    assert out.returncode == 0 and json.loads(out.stdout) == load("heroscape")
    assert _cli("schema", "chess").returncode == 2


def test_errors_stay_typed():
    for bad in ({"game": "grid", "board": {"grid": "hex", "cells": [{"at": [0, 0],
                                                                     "level": "x"}]},
                 "figures": [], "query": {"figure": "a", "budget": 1}},
                {"game": "tiny_epic_tactics", "board": {"cells": [{"at": "x"}]},
                 "figures": [], "query": {}},
                {"game": "tiny_epic_tactics", "board": {"grid": 3}, "figures": [],
                 "query": {}}):
        with pytest.raises(MovecoreError):
            mc.solve(bad)


def test_common_result_fields_are_added_beside_the_own(example):
    from movecore.vocabulary import RESULT_ALIASES
    if isinstance(example.get("query"), dict):
        example["query"]["paths"] = True
    own = mc.solve(example)
    assert mc.solve({**example, "fields": "own"}) == own
    common = mc.solve({**example, "fields": "common"})
    aliases = RESULT_ALIASES.get(example["game"], {})

    def check(o, c):
        assert {k: c[k] for k in o} == o          # nothing of the own spelling changes
        for k in set(c) - set(o):
            if k == "stopped":
                assert c[k] == (c["stop"] is not None)
            else:
                own_key = next(a for a, b in aliases.items() if b == k)
                assert c[k] == o[own_key]
    check({k: v for k, v in own.items() if not isinstance(v, (list, dict))},
          {k: v for k, v in common.items() if not isinstance(v, (list, dict))})
    for key, value in own.items():
        if isinstance(value, list) and value and isinstance(value[0], dict):
            for o, c in zip(value, common[key]):
                check(o, c)
        elif isinstance(value, dict):
            check(value, common[key])
    with pytest.raises(ScenarioError, match="fields"):
        mc.solve({**example, "fields": "mine"})


def test_common_result_fields_where_games_differ():
    hs = mc.solve({**EXAMPLES["heroscape_engaged_knight.json"], "fields": "common"})
    ds = mc.solve({**EXAMPLES["descent_hero_run.json"], "fields": "common"})
    for r in (hs, ds):
        assert "budget" in r
        assert all({"penalty", "penalty_cost", "stopped"} <= set(e) for e in r["ends"])
    assert any(e["penalty"] for e in hs["ends"])
    kb = mc.solve({**EXAMPLES["tiny_epic_tactics_solo_compass.json"], "fields": "common"})
    assert kb["solo"]["stop"] == "adjacent" and kb["solo"]["stopped"] is True
