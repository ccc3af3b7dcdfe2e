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

from movecore.tools.cli import example_paths, main
from movecore.tools.demo import DEMO, run_demo
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


# ------------------------------------------- the picture says what the JSON says
def _json_stop(e: dict) -> bool:
    """The result says the move stops here: ``stopped``, a ``stop`` reason, or Mage
    Knight's ``assault`` / ``provoked`` flags."""
    return bool(e.get("stopped")) or e.get("stop") not in (None, False) or \
        bool({"assault", "provoked"} & set(e.get("flags") or ()))


def _json_stop_reason(e: dict) -> str:
    if isinstance(e.get("stop"), str):
        return e["stop"]
    return ", ".join(f for f in ("assault", "provoked") if f in (e.get("flags") or ()))


def _anchor(at):
    return tuple(at) if isinstance(at[0], int) else tuple(at[0])


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_end_marks_come_from_the_result_fields(name):
    """Every drawn end is a JSON end at that cell with the same cost, its stop rim iff
    that JSON end has a stop, its Stamina rim iff it needs Stamina; every JSON end cell
    is drawn."""
    s = load(name)
    result = solve_for_picture(s, True)
    root = parse(to_svg(picture(s, result)))
    ends = [e for e in result.get("ends", []) if not isinstance(e.get("at"), str)]
    if not ends:
        return
    by_cell: dict = {}
    for e in ends:
        by_cell.setdefault(_anchor(e["at"]), []).append(e)
    drawn = by_class(root, "polygon", "end")
    assert {tuple(map(int, p.get("data-at").split(","))) for p in drawn} == set(by_cell)
    for p in drawn:
        at = tuple(map(int, p.get("data-at").split(",")))
        stop = p.get("data-stop") == "true"
        match = [e for e in by_cell[at] if str(e["cost"]) == p.get("data-cost")
                 and _json_stop(e) == stop
                 and int(p.get("data-stamina")) == (e.get("stamina") or 0)]
        assert match, (name, at, p.attrib, by_cell[at])
        assert bool(p.get("stroke-dasharray")) == stop
        if stop and any(_json_stop_reason(e) for e in match):
            assert p.get("data-stop-reason") in {_json_stop_reason(e) for e in match}


def _mk_provoking_scenario() -> dict:
    """Tovak beside a rampaging orc band and an unconquered keep: stepping along the orcs
    provokes them, entering the keep is an assault; both end the move."""
    cells = [{"at": [q, r], "terrain": "plains"} for q in range(-2, 3) for r in range(-2, 3)
             if abs(q + r) <= 2]
    for c in cells:
        if c["at"] == [1, 0]:
            c["rampaging"] = "orc_marauders"
        if c["at"] == [-1, 0]:
            c["site"] = "keep"
    return {"game": "mage_knight", "board": {"cells": cells},
            "options": {"time": "day"}, "figures": [{"id": "tovak", "at": [0, 0]}],
            "query": {"figure": "tovak", "budget": 4, "paths": True}}


def test_mage_knight_stops_are_drawn_named_and_marked_in_text():
    """Provoked and assault ends stop the move: dashed rims with data-stop="true" and
    their reason, a legend entry naming both, and an "s" in the text picture."""
    s = _mk_provoking_scenario()
    result = solve(s)
    reasons = {tuple(e["at"]): _json_stop_reason(e) for e in result["ends"]}
    assert "provoked" in reasons.values() and "assault" in reasons.values(), result
    pic = picture(s, solve_for_picture(s, True))
    root = parse(to_svg(pic))
    for p in by_class(root, "polygon", "end"):
        at = tuple(map(int, p.get("data-at").split(",")))
        if reasons.get(at):
            assert p.get("data-stop") == "true" and p.get("stroke-dasharray")
            assert p.get("data-stop-reason") == reasons[at]
    legend = [t.text for g in root.iter(SVG + "g") if g.get("class") == "legend"
              for t in g.iter(SVG + "text")]
    stops = [w for w in legend if w.startswith("move stops")]
    assert len(stops) == 1 and "assault" in stops[0] and "provoked" in stops[0], legend
    text = to_text(pic)
    assert "s = stops there (" in text and "provoked" in text.splitlines()[-1]
    provoked = next(e for e in result["ends"] if _json_stop_reason(e) == "provoked")
    assert f"{provoked['cost']}s" in text


@pytest.mark.parametrize("name,reason", [("heroscape_stream_crossing.json", "water"),
                                         ("heroscape_stream_crossing.json", "glyph"),
                                         ("descent_hero_run.json", "grapple"),
                                         ("mage_knight_first_turns.json", "assault")])
def test_every_games_stop_reasons_are_named_in_the_legend(name, reason):
    s = load(name)
    root = parse(render_svg(s, solve(s)))
    legend = [t.text for g in root.iter(SVG + "g") if g.get("class") == "legend"
              for t in g.iter(SVG + "text")]
    stops = [w for w in legend if w.startswith("move stops")]
    assert len(stops) == 1 and reason in stops[0].split(": ", 1)[1].split(", "), legend


def test_a_descent_pit_end_is_not_drawn_as_a_stop():
    s = load("descent_hero_run.json")
    result = solve(s)
    pits = [e for e in result["ends"] if e.get("in_pit")]
    assert pits and all(e["stop"] is None for e in pits)
    root = parse(render_svg(s, result))
    for e in pits:
        (p,) = [p for p in by_class(root, "polygon", "end")
                if p.get("data-at") == f"{e['at'][0]},{e['at'][1]}"]
        assert p.get("data-stop") == "false" and not p.get("stroke-dasharray")
    assert any(t.text == "pit" for t in by_class(root, "text", "note"))


def test_dark_realms_stamina_ends_look_unlike_card_moves():
    s = load("dark_realms_hero_move.json")
    result = solve(s)
    need = {_anchor(e["at"]) for e in result["ends"] if e["stamina"] > 0}
    assert need
    root = parse(render_svg(s, result))
    purple = {tuple(map(int, p.get("data-at").split(",")))
              for p in by_class(root, "polygon", "end") if int(p.get("data-stamina")) > 0}
    assert purple == need
    assert "needs Stamina (st n)" in [t.text for t in root.iter(SVG + "text")]


def _order(root, pred) -> list:
    return [i for i, el in enumerate(root.iter()) if pred(el)]


def test_labels_are_drawn_over_figures_badges_and_the_path():
    s = load("mage_knight_first_turns.json")
    root = parse(render_svg(s, solve(s)))
    figures = _order(root, lambda el: el.get("class") == "figure")
    sites = _order(root, lambda el: el.get("class") == "mark site")
    assert sites and min(sites) > max(figures)
    s = load("descent_hero_run.json")
    root = parse(render_svg(s, solve_for_picture(s, True), to=(10, 3)))
    path = _order(root, lambda el: el.get("class") == "path")
    doors = _order(root, lambda el: el.get("class") == "door-label")
    assert path and doors and min(doors) > max(path)
    # a portal is a ring wider than a figure: it shows around one standing on it
    s = load("tiny_epic_tactics_skirmish.json")
    root = parse(render_svg(s, solve(s)))
    rings = by_class(root, "circle", "mark portal")
    assert rings and all(float(r.get("r")) > 26 * 0.55 for r in rings)


def _cell_at(polygon) -> tuple:
    return tuple(map(int, "".join(polygon.itertext()).split("]")[0].strip("[").split(",")))


def test_reached_cells_keep_their_terrain_colour():
    s = load("tiny_epic_tactics_skirmish.json")
    result = solve(s)
    root = parse(render_svg(s, result))
    assert all(p.get("fill") == "none" for p in by_class(root, "polygon", "end"))
    water = [p for p in by_class(root, "polygon", "cell")
             if " water" in "".join(p.itertext())]
    reached = {tuple(e["at"]) for e in result["ends"]}
    wet = [p for p in water if _cell_at(p) in reached]
    fills = {c.at: c.fill for c in picture(s, result).cells}   # terrain, shaded by level
    assert wet and all(p.get("fill") == fills[_cell_at(p)] for p in wet)
    assert {fills[_cell_at(p)] for p in wet} <= {fills[_cell_at(p)] for p in water
                                                 if p not in wet}  # as unreached water
    dim = next(g for g in root.iter(SVG + "g") if g.get("class") == "unreached")
    assert len(list(dim)) == len(by_class(root, "polygon", "cell")) - len(
        {_anchor(e["at"]) for e in result["ends"]})


@pytest.mark.parametrize("name,words", [
    ("tiny_epic_tactics_skirmish.json", ["portal", "team red", "team blue"]),
    ("descent_hero_run.json", ["stairs", "stairs link", "glyph", "red door", "oak door",
                               "team hero", "team monster"]),
    ("grid_hex_skirmish.json", ["link", "stop cell", "team red"]),
    ("heroscape_engaged_knight.json", ["glyph", "team jandar", "team utgar"]),
])
def test_legend_names_every_kind_of_mark(name, words):
    s = load(name)
    root = parse(render_svg(s, solve(s)))
    legend = [t.text for g in root.iter(SVG + "g") if g.get("class") == "legend"
              for t in g.iter(SVG + "text")]
    assert set(words) <= set(legend), legend
