"""Each game's board in a :class:`Picture`: read by the game's own reader (the one
``solve`` uses), drawn with the game's terrain colours, text characters, marks and legend
(one ``_board_<game>`` per game, registered in ``_BOARDS``)."""
from __future__ import annotations

from ._model import (OBSTACLE, RIFT, TEAM_COLOURS, TRAP, PCell, Picture, _is_coord,
                     _level_shading, _xy, shade)


HEROSCAPE_TERRAIN = {
    "grass": "#7cb342", "rock": "#9e9e9e", "sand": "#e6c98a", "road": "#bcaaa4",
    "snow": "#f5f5f5", "ice": "#b3e5fc", "swamp": "#6b8e4e", "dungeon": "#616161",
    "concrete": "#b0bec5", "asphalt": "#546e7a", "shadow": "#455a64", "water": "#4fa3e0",
    "lava": "#e64a19", "swamp_water": "#5d8a66", "molten_lava": "#e64a19",
}
MAGE_KNIGHT_TERRAIN = {
    "plains": "#c5e1a5", "hills": "#d7b47a", "forest": "#558b2f", "wasteland": "#a1887f",
    "desert": "#ffe082", "swamp": "#7e9a6a", "lake": "#4fa3e0", "mountain": "#8d8d8d",
    None: "#cfd8dc",
}
MAGE_KNIGHT_SITE = {
    "keep": "Keep", "mage_tower": "Tower", "city": "City", "monastery": "Monas.",
    "village": "Vill.", "portal": "Portal", "glade": "Glade", "mine": "Mine",
    "deep_mine": "D.Mine", "dungeon": "Dung.", "tomb": "Tomb", "ruins": "Ruins",
    "monster_den": "Den", "spawning_grounds": "Spawn", "maze": "Maze", "labyrinth": "Lab.",
    "refugee_camp": "Camp",
}
DESCENT_TERRAIN = {
    "floor": "#e8dcc0", "water": "#4fa3e0", "rubble": "#8d8d8d", "boulder": "#5d5d5d",
    "crushing_wall": "#795548", "pit": "#2b2b2b", "lava": "#e64a19", "ice": "#b3e5fc",
    "tree": "#2e7d32",
}
DESCENT_CHAR = {"floor": ".", "water": "~", "rubble": "r", "boulder": "B",
                "crushing_wall": "C", "pit": "O", "lava": "L", "ice": "i", "tree": "T"}
TET_TERRAIN = {
    "plains": "#a5d6a7", "bridge": "#a1887f", "water": "#4fa3e0", "forest": "#2e7d32",
    "peak": "#9e9e9e", "village": "#ffcc80", "ballista": "#5d4037",
}
TET_CHAR = {"plains": ".", "bridge": "=", "water": "~", "forest": "f", "peak": "^",
            "village": "v", "ballista": "b"}


# ------------------------------------------------------------------ per game: board
def _board_grid(scenario: dict, pic: Picture) -> None:
    from ..games.grid import build_board
    board, _ = build_board(scenario["board"])
    pic.grid = "hex" if board.kind == "hex" else "square"
    for raw in scenario["board"]["cells"]:
        cost = raw.get("cost", 1)
        at = _xy(raw["at"])
        if cost < 0:
            pic.cells.append(PCell(at, OBSTACLE, "wall", None, ("obstacle",), "#"))
            continue
        fill = shade("#c8e6c9", -0.12 * (cost - 1)) if cost >= 1 else "#fff9c4"
        marks = ("stop",) if raw.get("stop") else ()
        pic.cells.append(PCell(at, fill, f"cost {cost}", raw.get("height", 0), marks,
                               str(cost) if cost != 1 else "."))
    _level_shading(pic.cells)
    for ln in scenario["board"].get("links", []):
        pic.links.append((_xy(ln["between"][0]), _xy(ln["between"][1]), "link"))
    for t in scenario.get("query", {}).get("provoke", []) or []:
        pic.regions.append(([_xy(t)], "provoke"))
    pic.legend = [("#c8e6c9", "cost 1"), (shade("#c8e6c9", -0.12), "cost 2"),
                  (OBSTACLE, "impassable")]


def _board_heroscape(scenario: dict, pic: Picture) -> None:
    from ..games.heroscape import build_battlefield
    bf = build_battlefield(scenario["board"])
    pic.grid = "hex"
    for i in range(bf.board.n_cells):
        t = bf.terrain[i]
        marks = []
        if bf.obstacle[i] is not None:
            marks.append("obstacle:" + bf.obstacle[i])
        if bf.glyph[i] is not None:
            marks.append("glyph:" + bf.glyph[i])
        pic.cells.append(PCell(bf.board.coord(i), HEROSCAPE_TERRAIN.get(t, "#bdbdbd"), t,
                               int(bf.level[i]), tuple(marks), _tchar(t)))
    _level_shading(pic.cells)
    seen = sorted({c.terrain for c in pic.cells})
    pic.legend = [(HEROSCAPE_TERRAIN.get(t, "#bdbdbd"), t) for t in seen]


def _tchar(t: str) -> str:
    return {"water": "~", "lava": "^", "grass": ".", "rock": "r", "sand": ":",
            "road": "=", "snow": "*", "ice": "i", "swamp": "s"}.get(t, t[:1] or ".")


def _mage_knight_map(scenario: dict):
    from ..games.mage_knight import map as mk
    m = mk.read_map(scenario["board"])
    revealed = []
    query = scenario.get("query") if isinstance(scenario.get("query"), dict) else {}
    for i, item in enumerate(query.get("reveal", []) or []):
        pos, kind, cells, walls = mk._read_tile(item, f"query.reveal[{i}]")
        m = m.reveal(pos, cells, kind=kind, walls=walls)
        revealed.append(tuple(pos))
    return m, revealed


def _board_mage_knight(scenario: dict, pic: Picture) -> None:
    from ..games.mage_knight import map as mk
    m, revealed = _mage_knight_map(scenario)
    pic.grid = "hex"
    for i, s in enumerate(m.spaces):
        marks = []
        if s.site:
            word = MAGE_KNIGHT_SITE.get(s.site, s.site[:5])
            if s.conquered or s.owner is not None:
                word += "*"
            marks.append("site:" + word)
        if s.rampaging:
            marks.append("rampaging:" + {"orc_marauders": "Orcs"}.get(s.rampaging,
                                                                      s.rampaging[:5]))
        t = s.terrain if s.site != "city" else None
        char = {"plains": ".", "hills": "h", "forest": "f", "wasteland": "w", "desert": "d",
                "swamp": "s", "lake": "~", "mountain": "^"}.get(t, "C")
        pic.cells.append(PCell(m.board.coord(i), MAGE_KNIGHT_TERRAIN.get(t, "#cfd8dc"),
                               t or "city", None, tuple(marks), char))
    for p in m.open:
        pic.regions.append(([tuple(c) for c in mk.tile_cells(p)], "unexplored"))
    pic.walls = [(a, b) for a, b in sorted(m.walls)   # (Lost Legion walls: thick sides)
                 if m.board.find(a) >= 0 and m.board.find(b) >= 0]
    seen = sorted({c.terrain for c in pic.cells})
    pic.legend = [(MAGE_KNIGHT_TERRAIN.get(t if t != "city" else None), t) for t in seen]
    if revealed:
        pic.title += f"  (revealed {', '.join(str(list(p)) for p in revealed)})"


def _board_descent(scenario: dict, pic: Picture) -> None:
    from ..games.descent import read_board
    d = read_board(scenario["board"])
    pic.grid = "square"
    glyphs = set(map(tuple, d.glyphs))
    stairs = {tuple(c) for pair in d.stairs for c in pair}
    for at in sorted(d.terrain, key=lambda c: (c[1], c[0])):
        t = d.terrain[at]
        marks = []
        if at in glyphs:
            marks.append("glyph")
        if at in stairs:
            marks.append("stairs")
        pic.cells.append(PCell(at, DESCENT_TERRAIN.get(t, "#bdbdbd"), t, None,
                               tuple(marks), DESCENT_CHAR.get(t, "?")))
    pic.walls = sorted(d.walls)
    for door in d.doors:
        colour = TEAM_COLOURS.get(door.rune, "#6d4c41") if door.rune else "#6d4c41"
        pic.doors.append((str(door.id), sorted(door.sides), door.open, colour))
    for a, b in d.stairs:
        pic.links.append((tuple(a), tuple(b), "stairs"))
    seen = sorted({c.terrain for c in pic.cells})
    pic.legend = [(DESCENT_TERRAIN.get(t, "#bdbdbd"), t) for t in seen]


def _board_tiny_epic_tactics(scenario: dict, pic: Picture) -> None:
    from ..games.tiny_epic_tactics import build_realm
    opts = scenario.get("options") if isinstance(scenario.get("options"), dict) else {}
    realm = build_realm(scenario["board"], opts)
    pic.grid = "square"
    for i in range(realm.board.n_cells):
        t = realm.terrain[i]
        marks = []
        if i in realm.portals:
            side = realm.portals[i]
            marks.append("portal:" + (side or ""))
        pic.cells.append(PCell(realm.xy(i), TET_TERRAIN.get(t, "#bdbdbd"), t,
                               realm.elevation(i), tuple(marks), TET_CHAR.get(t, "?")))
    _level_shading(pic.cells)
    seen = sorted({c.terrain for c in pic.cells})
    pic.legend = [(TET_TERRAIN.get(t, "#bdbdbd"), t) for t in seen]


def _board_dark_realms(scenario: dict, pic: Picture) -> None:
    from ..games.dark_realms import read_scene
    scene = read_scene(scenario)
    pic.grid = "hex" if scene.board.kind == "hex" else "square"
    for i in range(scene.board.n_cells):
        at = scene.board.coord(i)
        if scene.obstacle[i]:
            pic.cells.append(PCell(at, OBSTACLE, "obstacle", None, ("obstacle",), "#"))
        elif scene.trap[i]:
            pic.cells.append(PCell(at, "#d7ccc8", "trap", None, ("trap",), "x"))
        elif scene.rift[i]:
            pic.cells.append(PCell(at, "#d1c4e9", "rift", None, ("rift",), "@"))
        else:
            pic.cells.append(PCell(at, "#d7ccc8", "floor", None, (), "."))
    pic.legend = [("#d7ccc8", "floor"), (OBSTACLE, "obstacle"), (TRAP, "trap"),
                  (RIFT, "rift")]


def _explore(result: dict, pic: Picture) -> None:
    """Mage Knight: the cost to reveal each open tile position, written on the region."""
    for ex in result.get("explore", []) or []:
        if not isinstance(ex, dict):
            continue
        pos = ex.get("position")
        for k, (cells, label) in enumerate(pic.regions):
            from ..games.mage_knight import tile_cells
            if _is_coord(pos) and cells == [tuple(c) for c in tile_cells(pos)]:
                pic.regions[k] = (cells, f"explore {ex.get('cost')}")


_BOARDS = {
    "grid": _board_grid, "heroscape": _board_heroscape, "mage_knight": _board_mage_knight,
    "descent": _board_descent, "tiny_epic_tactics": _board_tiny_epic_tactics,
    "dark_realms": _board_dark_realms,
}
