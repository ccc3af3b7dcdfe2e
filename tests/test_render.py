"""Pictures (movecore.render), the ``solve --svg/--to/--text`` options and ``movecore demo``.

The golden pictures under tests/data/render/<game>.svg are the demo's output; after an
intended change of the drawing (or of a game's answer) rewrite them with

    MOVECORE_REGEN_RENDER=1 python -m pytest -q tests/test_render.py -k golden
"""
from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from movecore.cli import example_paths, main
from movecore.demo import DEMO, run_demo
from movecore.errors import QueryError, ScenarioError
from movecore.render import (choose_end, parse_to, picture, render_svg, solve_for_picture,
                             to_svg, to_text)
from movecore.scenario import solve

SVG = "{http://www.w3.org/2000/svg}"
GOLDEN = Path(__file__).parent / "data" / "render"
DOCS_IMG = Path(__file__).parent.parent / "docs" / "img"
EXAMPLES = {p.name: p for p in example_paths()}


def load(name: str) -> dict:
    return json.loads(EXAMPLES[name].read_text(encoding="utf-8"))


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)          # well-formed XML or this raises
    assert root.tag == SVG + "svg"
    return root


def by_class(root, tag: str, cls: str) -> list:
    return [e for e in root.iter(SVG + tag) if e.get("class") == cls]


# ------------------------------------------------ independent counts from the scenario
def board_cell_count(s: dict) -> int:
    """Spaces of the board, counted from the scenario's own words (not the renderer)."""
    b, game = s["board"], s["game"]
    if game == "descent":
        return sum(ch not in "# " for row in b["rows"] for ch in row)
    if game == "tiny_epic_tactics":
        return b["width"] * b["height"]
    if game == "mage_knight":
        from movecore.games.mage_knight import tile_catalogue
        tiles = b.get("tiles", []) + s["query"].get("reveal", [])
        return sum(len(tile_catalogue()[t["tile"]]["cells"]) for t in tiles) + \
            len(b.get("cells", []))
    return len(b["cells"])


def end_anchor_count(result: dict) -> int:
    """Distinct end cells of the result (anchor: ``at``, or its first cell)."""
    anchors = set()
    for e in result.get("ends", []):
        at = e["at"]
        if isinstance(at, str):      # off the board (Descent's town)
            continue
        anchors.add(tuple(at) if isinstance(at[0], int) else tuple(at[0]))
    for key in ("knock_back", "solo"):
        if key in result:
            anchors.add(tuple(result[key]["at"]))
    if result.get("kind") == "enemy":
        anchors.add(tuple(result["at"]))
    return len(anchors)


def figures_on_board(s: dict) -> int:
    return sum(1 for f in s["figures"] if f.get("at") is not None)


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_every_example_draws_its_cells_figures_and_ends(name):
    s = load(name)
    result = solve(s)
    svg = render_svg(s, result)
    root = parse(svg)
    assert len(by_class(root, "polygon", "cell")) == board_cell_count(s)
    assert len(by_class(root, "g", "figure")) == figures_on_board(s)
    assert len(by_class(root, "text", "cost")) == end_anchor_count(result)
    assert len(by_class(root, "polygon", "end")) == end_anchor_count(result)
    # every cost label says the cheapest cost of the ends at that cell
    text = to_text(picture(s, result))
    assert f"{end_anchor_count(result)} end cells" in text


def test_labels_show_the_cheapest_cost_per_cell():
    s = load("grid_hex_skirmish.json")
    result = solve(s)
    root = parse(render_svg(s, result))
    # the label text is the last text node (after the <title> tooltip)
    labels = sorted(int(list(t.itertext())[-1]) for t in by_class(root, "text", "cost"))
    assert labels == sorted(e["cost"] for e in result["ends"])


def test_stopped_and_dangerous_ends_are_marked():
    s = load("grid_hex_skirmish.json")          # a provoke token stops the move
    result = solve(s)
    stopped = [e for e in result["ends"] if e["stopped"]]
    assert stopped
    root = parse(render_svg(s, result))
    dashed = [p for p in by_class(root, "polygon", "end") if p.get("stroke-dasharray")]
    assert len(dashed) == len(stopped)
    s = load("heroscape_engaged_knight.json")    # engaged: leaving attacks
    result = solve(s)
    risky = {tuple(e["at"]) for e in result["ends"] if e["leaving_attacks"]}
    safe = {tuple(e["at"]) for e in result["ends"] if not e["leaving_attacks"]}
    badges = by_class(parse(render_svg(s, result)), "circle", "danger")
    assert len(badges) == len(risky - safe) and risky - safe


def test_path_to_a_chosen_end_is_drawn_step_by_step():
    s = load("tiny_epic_tactics_skirmish.json")
    result = solve(s)
    end = max(result["ends"], key=lambda e: (e["cost"], e["at"]))
    pic = picture(s, result, tuple(end["at"]))
    root = parse(to_svg(pic))
    (line,) = by_class(root, "polyline", "path")
    assert len(line.get("points").split()) == len(end["path"])
    text = to_text(pic)
    board = "\n".join(text.splitlines()[1:-1])
    assert board.count("*") == len(end["path"]) - 1   # every step but the start
    assert f"path to {end['at']}" in text


def test_two_space_and_large_figures_cover_their_cells():
    s = load("heroscape_river_crossing.json")
    pic = picture(s, solve(s))
    dragon = next(f for f in pic.figures if f.id == "dragon")
    assert sorted(dragon.cells) == sorted(map(tuple, s["figures"][0]["at"]))
    s = load("descent_ogre.json")
    result = solve(s)
    pic = picture(s, result)
    ogre = next(f for f in pic.figures if f.id == "ogre")
    assert len(ogre.cells) == 4
    for e, raw in zip(pic.ends, result["ends"]):
        assert sorted(e.cells) == sorted(map(tuple, raw["cells"]))


def test_board_features_are_drawn():
    s = load("descent_hero_run.json")
    root = parse(render_svg(s, solve(s)))
    assert len(by_class(root, "line", "wall")) == len(s["board"]["walls"])
    assert len(by_class(root, "line", "door")) == sum(len(d["sides"])
                                                       for d in s["board"]["doors"])
    assert len(by_class(root, "g", "mark stairs")) == 2
    town = [e["cost"] for e in solve(s)["ends"] if e["at"] == "town"]
    assert [t.text for t in by_class(root, "text", "offboard")] == \
        [f"also reachable: town (cost {town[0]})"]
    assert len(by_class(root, "polygon", "mark glyph")) == len(s["board"]["glyphs"])
    s = load("dark_realms_hero_move.json")
    root = parse(render_svg(s, solve(s)))
    cells = s["board"]["cells"]
    assert len(by_class(root, "polygon", "mark trap")) == sum(bool(c.get("trap")) for c in cells)
    assert len(by_class(root, "circle", "mark rift")) == sum(bool(c.get("rift")) for c in cells)
    assert len(by_class(root, "g", "mark obstacle")) == sum(bool(c.get("obstacle"))
                                                             for c in cells)
    s = load("tiny_epic_tactics_skirmish.json")
    root = parse(render_svg(s, solve(s)))
    assert len(by_class(root, "circle", "mark portal")) == sum("portal" in c for c in
                                                                s["board"]["cells"])
    levels = {int(t.text[1:]) for t in by_class(root, "text", "level")}
    assert levels == {int(ch) for row in s["board"]["elevation"] for ch in row}
    s = load("mage_knight_first_turns.json")
    root = parse(render_svg(s, solve(s)))
    regions = [t for t in root.iter(SVG + "text") if (t.text or "").startswith("explore")]
    assert len(regions) == len(s["board"]["open"])


def test_flat_hexes_and_determinism():
    s = load("heroscape_stream_crossing.json")
    result = solve(s)
    a = render_svg(s, result, orientation="flat")
    assert a == render_svg(s, result, orientation="flat")
    assert a != render_svg(s, result)
    parse(a)


def test_bad_requests_raise_typed_errors():
    s = load("grid_hex_skirmish.json")
    result = solve(s)
    with pytest.raises(QueryError):
        picture(s, result, (40, 40))
    with pytest.raises(QueryError):          # paths were not asked for
        picture(s, result, (1, 2))
    with pytest.raises(ScenarioError):
        picture(dict(s, game="chess"), result)
    with pytest.raises(ScenarioError):
        picture(s, result, orientation="round")
    with pytest.raises(ScenarioError):
        picture(s, [])
    with pytest.raises(QueryError):
        parse_to("3")
    assert parse_to(" 3,-1") == (3, -1)
    pic = picture(s, solve_for_picture(s, True))
    assert choose_end(pic, (1, 2)).path[-1] == [(1, 2)]


def test_cli_solve_svg_to_text(tmp_path, capsys):
    f = str(EXAMPLES["grid_hex_skirmish.json"])
    out = tmp_path / "x.svg"
    assert main(["solve", f, "--svg", str(out), "--to", "2,1", "--text"]) == 0
    text = capsys.readouterr().out
    assert "path to [2, 1]" in text and "@sc" in text
    (line,) = by_class(parse(out.read_text()), "polyline", "path")
    assert main(["solve", f, "--svg", str(out)]) == 0
    assert json.loads(capsys.readouterr().out)["figure"] == "scout"
    assert main(["solve", f, "--to=9,9"]) == 2
    assert "QueryError" in capsys.readouterr().err
    assert main(["render", f, "--to=-1,2"]) == 0
    assert "path to [-1, 2]" in capsys.readouterr().out


def test_demo_writes_one_picture_per_game(tmp_path):
    lines = []
    written = run_demo(tmp_path / "demo", repeat=1, echo=lambda *a, **k: lines.append(
        " ".join(map(str, a))))
    assert sorted(p.name for p in written) == sorted(f"{g}.svg" for g, _, _ in DEMO)
    for p in written:
        root = parse(p.read_text(encoding="utf-8"))
        assert by_class(root, "polyline", "path"), p.name   # each shows a route
    assert sum("ms per solve" in ln for ln in lines) == len(DEMO)


def test_cli_demo(tmp_path, capsys):
    assert main(["demo", "--out", str(tmp_path / "d")]) == 0
    assert "6 pictures written" in capsys.readouterr().out


@pytest.fixture(scope="module")
def demo_pictures(tmp_path_factory):
    out = tmp_path_factory.mktemp("golden")
    return {p.stem: p.read_text(encoding="utf-8")
            for p in run_demo(out, repeat=0, echo=lambda *a, **k: None)}


@pytest.mark.parametrize("game", [g for g, _, _ in DEMO])
def test_golden_pictures(game, demo_pictures):
    got = demo_pictures[game]
    golden = GOLDEN / f"{game}.svg"
    docs = DOCS_IMG / f"{game}.svg"      # the picture shown in docs/<game>.md
    if os.environ.get("MOVECORE_REGEN_RENDER"):
        for p in (golden, docs):
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(got, encoding="utf-8")
    assert got == golden.read_text(encoding="utf-8"), (
        f"{game}: the picture changed; if intended, regenerate (see module docstring)")
    if docs.exists():
        assert docs.read_text(encoding="utf-8") == got, f"docs/img/{game}.svg is stale"
