"""Pictures of a scenario and its answer: SVG for the eye, text for the terminal.

    from movecore.render import picture, to_svg, to_text
    result = solve(scenario)
    pic = picture(scenario, result, to=(3, 1))   # to: draw the path to this end
    open("reach.svg", "w").write(to_svg(pic))
    print(to_text(pic))

Everything works from the plain ``(scenario dict, result dict)`` pair that :func:`solve`
takes and gives, so any game works. Each game's board is read by that game's own reader
(the one ``solve`` uses), and :func:`picture` turns it into a neutral :class:`Picture`:
cells (terrain colour, level, marks such as obstacles, traps, glyphs, portals), wall
and door edges, links (stairs, portals), figures with their team colour and footprint,
the reach (one label per end cell: its cost; stopped ends and dangerous ends marked) and
the path to one chosen end. :func:`to_svg` and :func:`to_text` draw a Picture; the output
depends only on the input (no dates, no random ids), so pictures can be compared as files.

The drawing has no dependency beyond the standard library.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from xml.sax.saxutils import escape

from .errors import QueryError, ScenarioError

__all__ = ["Picture", "PCell", "PFigure", "PEnd", "picture", "to_svg", "to_text",
           "render_svg", "render_text", "choose_end"]


# ----------------------------------------------------------------------------- model
@dataclass
class PCell:
    at: tuple
    fill: str = "#e8e4d8"
    terrain: str = ""          # a word for the legend / the text char
    level: int | None = None   # elevation shown as a number (None: flat board)
    marks: tuple = ()          # e.g. ("obstacle",), ("trap",), ("glyph",), ("portal:N",)
    char: str = "."            # one character for the text rendering


@dataclass
class PFigure:
    id: str
    team: str
    cells: list
    mover: bool = False
    note: str = ""             # e.g. "fly"


@dataclass
class PEnd:
    cells: list                # the footprint (first cell = the anchor, where the label goes)
    cost: object
    stopped: bool = False
    danger: str = ""           # e.g. "2 attacks", "1 wound", "1 trap", "unsafe"
    label: str = ""            # what is written on the cell (default: the cost)
    path: list | None = None   # list of footprints (list of cells) from start to here
    raw: dict | None = None
    note: str = ""             # shown small under the cost: "pit", "assault", "st 1"...
    stamina: int = 0           # Dark Realms: Stamina this end needs beyond the card's move
    stop: str = ""             # why the move stops here ("water", "assault"...; "" = free)


@dataclass
class Picture:
    game: str
    grid: str                                   # "hex" | "square"
    cells: list = field(default_factory=list)   # PCell
    walls: list = field(default_factory=list)   # (a, b) square sides
    doors: list = field(default_factory=list)   # (label, [sides], open, colour)
    links: list = field(default_factory=list)   # (a, b, kind)
    regions: list = field(default_factory=list)  # (cells, label): e.g. unexplored tiles
    figures: list = field(default_factory=list)  # PFigure
    ends: list = field(default_factory=list)    # PEnd
    path: list | None = None                    # footprints of the drawn path
    target: tuple | None = None                 # anchor of the chosen end
    title: str = ""
    legend: list = field(default_factory=list)  # (colour, words)
    orientation: str = "pointy"                 # hex only: "pointy" | "flat"
    offboard: list = field(default_factory=list)  # (place, cost): ends off the board

    def labels(self) -> dict:
        """One reach label per anchor cell: the best end there (lowest cost, then least
        danger, then free before stopped)."""
        best: dict = {}
        for e in self.ends:
            a = tuple(e.cells[0])
            k = (_num(e.cost), bool(e.danger), e.stopped)
            if a not in best or k < best[a][0]:
                best[a] = (k, e)
        return {a: v[1] for a, v in best.items()}


def _num(x):
    return x if isinstance(x, (int, float)) else 0


def _xy(c) -> tuple:
    return (int(c[0]), int(c[1]))


def _is_coord(v) -> bool:
    return (isinstance(v, (list, tuple)) and len(v) == 2
            and all(isinstance(x, int) and not isinstance(x, bool) for x in v))


def _footprint(v) -> list:
    """A result's ``at`` / path step as a list of cells: [q, r] or [[q, r], ...]."""
    if _is_coord(v):
        return [_xy(v)]
    if isinstance(v, (list, tuple)) and v and all(_is_coord(x) for x in v):
        return [_xy(x) for x in v]
    return []


# ------------------------------------------------------------------------ colours
TEAM_COLOURS = {
    "red": "#c62828", "blue": "#1565c0", "green": "#2e7d32", "yellow": "#f9a825",
    "purple": "#6a1b9a", "orange": "#ef6c00", "black": "#212121", "white": "#fafafa",
    # game sides
    "hero": "#1565c0", "summon": "#00897b", "enemy": "#c62828", "monster": "#c62828",
    "jandar": "#1565c0", "utgar": "#c62828", "ullar": "#2e7d32", "vydar": "#757575",
    "einar": "#ef6c00", "aquilla": "#f9a825", "valkrill": "#6a1b9a",
    # Mage Knight heroes
    "tovak": "#1565c0", "arythea": "#c62828", "goldyx": "#f9a825", "norowas": "#2e7d32",
    "wolfhawk": "#6a1b9a", "krang": "#ef6c00", "braevalar": "#00838f",
}
PALETTE = ("#1565c0", "#c62828", "#2e7d32", "#f9a825", "#6a1b9a", "#ef6c00", "#00838f",
           "#5d4037")

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
RIFT, TRAP, OBSTACLE = "#7e57c2", "#d84315", "#424242"


def shade(colour: str, amount: float) -> str:
    """Lighten (amount > 0) or darken (amount < 0) a #rrggbb colour."""
    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    if amount >= 0:
        r, g, b = (round(x + (255 - x) * amount) for x in (r, g, b))
    else:
        r, g, b = (round(x * (1 + amount)) for x in (r, g, b))
    return f"#{r:02x}{g:02x}{b:02x}"


def _level_shading(cells: list) -> None:
    """Shade cells by level (low dark, high light) and keep the level numbers only when
    the board has more than one level."""
    levels = [c.level for c in cells if c.level is not None]
    if not levels or min(levels) == max(levels):
        for c in cells:
            c.level = None
        return
    lo, hi = min(levels), max(levels)
    for c in cells:
        if c.level is not None:
            t = (c.level - lo) / (hi - lo)
            c.fill = shade(c.fill, -0.18 + 0.40 * t)


# ------------------------------------------------------------------ per game: board
def _board_grid(scenario: dict, pic: Picture) -> None:
    from .games.grid import build_board
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
    from .games.heroscape import build_battlefield
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
    from .games.mage_knight import map as mk
    m = mk.read_map(scenario["board"])
    revealed = []
    query = scenario.get("query") if isinstance(scenario.get("query"), dict) else {}
    for i, item in enumerate(query.get("reveal", []) or []):
        pos, kind, cells, walls = mk._read_tile(item, f"query.reveal[{i}]")
        m = m.reveal(pos, cells, kind=kind, walls=walls)
        revealed.append(tuple(pos))
    return m, revealed


def _board_mage_knight(scenario: dict, pic: Picture) -> None:
    from .games.mage_knight import map as mk
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
    from .games.descent import read_board
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
    from .games.tiny_epic_tactics import build_realm
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
    from .games.dark_realms import read_scene
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


# ---------------------------------------------------------------- per game: figures
def _figures(scenario: dict, result: dict, game: str) -> list:
    figs = scenario.get("figures") or []
    query = scenario.get("query") if isinstance(scenario.get("query"), dict) else {}
    mover = (result.get("figure") or result.get("enemy") or query.get("figure")
             or query.get("enemy"))
    for key in ("knock_back", "solo"):
        if isinstance(result.get(key), dict):
            mover = result[key].get("target") if key == "knock_back" else \
                result[key].get("figure")
    out = []
    sizes = {}
    if game == "descent":
        from .games.descent import read_board, read_figures
        for h in read_figures(figs, read_board(scenario["board"])):
            sizes[h.id] = h.size
    for f in figs:
        if not isinstance(f, dict):
            continue
        fid = f.get("id")
        team = f.get("team", f.get("side", fid if game == "mage_knight" else "?"))
        at = f.get("at")
        cells = _footprint(at)
        if fid in sizes and cells:
            from .games.descent import footprint_cells
            cells = footprint_cells(cells[0], sizes[fid])
        if not cells:
            continue   # e.g. a Descent hero in town
        note = "fly" if f.get("flying") or "fly" in (f.get("abilities") or []) else ""
        out.append(PFigure(str(fid), str(team), cells, fid == mover, note))
    return out


# ------------------------------------------------------------------ per game: ends
def _danger(game: str, e: dict) -> str:
    parts = []
    n = e.get("leaving_attacks") or 0
    if n:
        parts.append(f"{n} leaving attack{'s' * (n != 1)}")
    if e.get("fall") not in (None, "none"):
        parts.append(f"{e['fall']} fall")
    n = e.get("wounds") or 0
    if n:
        parts.append(f"{n} wound{'s' * (n != 1)}")
    n = e.get("traps") or 0
    if n:
        parts.append(f"{n} trap{'s' * (n != 1)}")
    if e.get("safe") is False:
        parts.append("unsafe")
    return ", ".join(parts)


#: Mage Knight flags that end the move (``pvp``, an attack on a hero one passes freely,
#: and ``safe`` are not stops)
MAGE_KNIGHT_STOPS = ("assault", "provoked")


def _stop_reason(e: dict) -> str:
    """Why the move must stop at this end, exactly as the result says it ("" = it need
    not): a ``stop`` reason (Heroscape, Descent), Mage Knight's ``assault`` /
    ``provoked`` flags, ``stopped_by`` (Tiny Epic Tactics' knock back), ``stopped``
    (grid: a stop cell or a provoke token). A pit or a Stamina cost is a note, not a
    stop."""
    stop = e.get("stop")
    if isinstance(stop, str) and stop:
        return stop
    flags = e.get("flags")
    if isinstance(flags, list):
        hit = [f for f in MAGE_KNIGHT_STOPS if f in flags]
        if hit:
            return ", ".join(hit)
    if e.get("stopped_by") is not None:
        return f"stopped by {e['stopped_by']}"
    if stop not in (None, False) or e.get("stopped"):
        return "stops"
    return ""


def _stopped(e: dict) -> bool:
    """Whether the result says the move stops at this end (see :func:`_stop_reason`)."""
    return bool(_stop_reason(e))


def _note(e: dict) -> str:
    """Small words under an end's cost, from the result's own fields."""
    parts = []
    if e.get("in_pit"):
        parts.append("pit")
    flags = e.get("flags")
    if isinstance(flags, list):
        parts += [str(f) for f in flags]
    if isinstance(e.get("stamina"), int) and e["stamina"] > 0:
        parts.append(f"st {e['stamina']}")
    return " ".join(parts)


def _ends(game: str, scenario: dict, result: dict, figures: list) -> list:
    sizes = {f.id: f.cells for f in figures}
    mover = next((f for f in figures if f.mover), None)

    def foot(v) -> list:
        cells = _footprint(v)
        # Descent ends and paths name the anchor of a large monster: grow the footprint
        if game == "descent" and mover is not None and len(cells) == 1 and \
                len(mover.cells) > 1:
            ax, ay = mover.cells[0]
            return [(cells[0][0] + x - ax, cells[0][1] + y - ay) for x, y in mover.cells]
        return cells

    out, offboard = [], []
    raw_ends = result.get("ends") if isinstance(result.get("ends"), list) else []
    kind = result.get("kind")
    for e in raw_ends:
        if not isinstance(e, dict):
            continue
        cells = _footprint(e.get("cells")) or foot(e.get("at"))
        if not cells:
            if isinstance(e.get("at"), str):   # an end off the board, e.g. Descent's town
                offboard.append((e["at"], e.get("cost")))
            continue
        label = ""
        if kind == "die" and "min_roll" in e:
            label = f"{e['min_roll']}+"
        path = e.get("path")
        path = [foot(s) for s in path] if isinstance(path, list) else None
        stamina = e.get("stamina") if isinstance(e.get("stamina"), int) else 0
        out.append(PEnd(cells, e.get("cost"), _stopped(e), _danger(game, e), label, path, e,
                        _note(e), stamina, _stop_reason(e)))
    # one-destination answers: a Dark Realms enemy move, a knock back, a solo move
    single = None
    if kind == "enemy" and result.get("at") is not None:
        single = dict(result, cost=result.get("steps"))
    for key in ("knock_back", "solo"):
        if isinstance(result.get(key), dict):
            single = dict(result[key])
            single.setdefault("cost", single.get("moved"))
            single["stopped"] = single.get("stopped_by") is not None
    if single is not None and _footprint(single.get("at")):
        path = single.get("path")
        path = [foot(s) for s in path] if isinstance(path, list) else None
        danger = _danger(game, single)
        if single.get("health_lost"):
            danger = (danger + ", " if danger else "") + f"{single['health_lost']} health"
        reason = _stop_reason(single) if single.get("stopped") else ""
        out.append(PEnd(foot(single["at"]), single.get("cost"), bool(single.get("stopped")),
                        danger, "", path, single, stop=reason))
    return out, offboard


def _explore(result: dict, pic: Picture) -> None:
    """Mage Knight: the cost to reveal each open tile position, written on the region."""
    for ex in result.get("explore", []) or []:
        if not isinstance(ex, dict):
            continue
        pos = ex.get("position")
        for k, (cells, label) in enumerate(pic.regions):
            from .games.mage_knight import tile_cells
            if _is_coord(pos) and cells == [tuple(c) for c in tile_cells(pos)]:
                pic.regions[k] = (cells, f"explore {ex.get('cost')}")


_BOARDS = {
    "grid": _board_grid, "heroscape": _board_heroscape, "mage_knight": _board_mage_knight,
    "descent": _board_descent, "tiny_epic_tactics": _board_tiny_epic_tactics,
    "dark_realms": _board_dark_realms,
}


def choose_end(pic: Picture, to) -> PEnd:
    """The end whose anchor (or any footprint cell) is ``to``, the cheapest first."""
    to = _xy(to)
    hits = [e for e in pic.ends if tuple(e.cells[0]) == to] or \
        [e for e in pic.ends if to in map(tuple, e.cells)]
    if not hits:
        raise QueryError(f"--to {list(to)}: no end of this move is there; ends are at "
                         f"{sorted({tuple(e.cells[0]) for e in pic.ends})[:20]}")
    return min(hits, key=lambda e: (_num(e.cost), bool(e.danger)))


def picture(scenario: dict, result: dict, to=None, *, orientation: str = "pointy",
            title: str | None = None) -> Picture:
    """The :class:`Picture` of a scenario and its :func:`solve` result.

    ``to``: an end's cell; the path to it is drawn (the result must hold paths: solve
    with ``query.paths`` true). Without ``to``, a result with a single destination (an
    enemy move, a knock back, a solo move) draws its path.
    """
    if not isinstance(scenario, dict) or not isinstance(result, dict):
        raise ScenarioError("picture() needs the scenario dict and the result dict of "
                            "solve()")
    if orientation not in ("pointy", "flat"):
        raise ScenarioError(f"orientation is {orientation!r}; expected 'pointy' or 'flat'")
    game = scenario.get("game", "grid")
    if game not in _BOARDS:
        raise ScenarioError(f"no picture for game {game!r}; known: {sorted(_BOARDS)}")
    pic = Picture(game, "hex", orientation=orientation)
    pic.title = title if title is not None else _title(game, scenario, result)
    try:
        _BOARDS[game](scenario, pic)
    except (KeyError, TypeError, IndexError, AttributeError) as exc:
        raise ScenarioError(f"cannot draw this {game} board: {exc!r}") from exc
    pic.figures = _figures(scenario, result, game)
    pic.ends, pic.offboard = _ends(game, scenario, result, pic.figures)
    _explore(result, pic)
    chosen = None
    if to is not None:
        chosen = choose_end(pic, to)
        if chosen.path is None:
            raise QueryError(f"the result has no path to {list(_xy(to))}: solve with "
                             f"query.paths true")
    elif len(pic.ends) == 1 and pic.ends[0].path:
        chosen = pic.ends[0]
    if chosen is not None:
        pic.path = chosen.path
        pic.target = tuple(chosen.cells[0])
    return pic


def _title(game: str, scenario: dict, result: dict) -> str:
    who = result.get("figure") or result.get("enemy")
    for key in ("knock_back", "solo"):
        if isinstance(result.get(key), dict):
            who = f"{key.replace('_', ' ')} of {result[key].get('target') if key == 'knock_back' else result[key].get('figure')}"
    budget = (result.get("mp") or result.get("move") or result.get("card_move")
              or (scenario.get("query") or {}).get("budget"))
    t = f"{game.replace('_', ' ').title()}: {who}"
    if budget is not None and not isinstance(budget, bool):
        t += f", move {budget}"
    return t


# ----------------------------------------------------------------------- geometry
S = 26.0      # hex circumradius / half a square side, in px
SQ3 = math.sqrt(3.0)


def _centre(pic: Picture, c) -> tuple:
    q, r = c
    if pic.grid == "hex":
        if pic.orientation == "pointy":
            return (S * SQ3 * (q + r / 2.0), S * 1.5 * r)
        return (S * 1.5 * q, S * SQ3 * (r + q / 2.0))
    return (2 * S * q, 2 * S * r)


def _corners(pic: Picture, c, scale: float = 1.0) -> list:
    x, y = _centre(pic, c)
    r = S * scale
    if pic.grid == "hex":
        start = 30 if pic.orientation == "pointy" else 0
        return [(x + r * math.cos(math.radians(start + 60 * k)),
                 y + r * math.sin(math.radians(start + 60 * k))) for k in range(6)]
    return [(x - r, y - r), (x + r, y - r), (x + r, y + r), (x - r, y + r)]


def _f(v: float) -> str:
    s = f"{v:.1f}"
    return "0.0" if s == "-0.0" else s


def _pts(points) -> str:
    return " ".join(f"{_f(x)},{_f(y)}" for x, y in points)


def _side_segment(a, b) -> tuple:
    """The unit edge between two orthogonally adjacent squares."""
    (ax, ay), (bx, by) = a, b
    cx, cy = (ax + bx) * S, (ay + by) * S   # midpoint of the two centres
    if ax != bx:   # vertical edge
        return (cx, cy - S), (cx, cy + S)
    return (cx - S, cy), (cx + S, cy)


def _hex_side(pic: Picture, a, b) -> tuple:
    """The side two adjacent hexes share (half a side either way of the midpoint of
    their centres, across the line between them)."""
    (ax, ay), (bx, by) = _centre(pic, a), _centre(pic, b)
    dx, dy = bx - ax, by - ay
    k = S / 2.0 / math.hypot(dx, dy)
    mx, my = (ax + bx) / 2.0, (ay + by) / 2.0
    return (mx - dy * k, my + dx * k), (mx + dy * k, my - dx * k)


def _team_colour(pic: Picture) -> dict:
    out, k = {}, 0
    for f in pic.figures:
        if f.team in out:
            continue
        if f.team.lower() in TEAM_COLOURS:
            out[f.team] = TEAM_COLOURS[f.team.lower()]
        else:
            used = set(out.values())
            free = [p for p in PALETTE if p not in used] or list(PALETTE)
            out[f.team] = free[k % len(free)]
            k += 1
    return out


# ---------------------------------------------------------------------------- SVG
REACH_RIM, STOP_RIM, DANGER_RIM, STAMINA_RIM = "#f9a825", "#ef6c00", "#d32f2f", "#5e35b1"
PATH_COLOUR, LINK_COLOUR = "#0d47a1", "#6a1b9a"
_MARK_LEGEND = {   # mark kind -> (swatch, colour, words)
    "obstacle": ("fill", OBSTACLE, "obstacle"), "trap": ("rim", TRAP, "trap"),
    "rift": ("rim", RIFT, "rift"), "glyph": ("fill", "#ffeb3b", "glyph"),
    "stairs": ("fill", "#4e342e", "stairs"), "portal": ("rim", "#4527a0", "portal"),
    "stop": ("rim", "#b71c1c", "stop cell"), "rampaging": ("fill", "#4e342e", "rampaging"),
}


def stop_reasons(pic: Picture) -> list:
    """The reasons the drawn ends stop the move, in order of first appearance (each a
    name: "water", "assault", "provoked"...; "stops" where the result gives none)."""
    out = []
    for e in pic.labels().values():
        if e.stopped:
            for r in (e.stop or "stops").split(", "):
                if r not in out:
                    out.append(r)
    return out


def legend_items(pic: Picture) -> list:
    """(swatch, colour, words) for everything the picture draws: terrain, marks, links,
    doors, teams, the path and the reach's rims."""
    items = [("fill", c, w) for c, w in pic.legend]
    words = {w for _, _, w in items}
    kinds = []
    for c in pic.cells:
        for m in c.marks:
            k = m.partition(":")[0]
            if k in _MARK_LEGEND and k not in kinds:
                kinds.append(k)
    for k in kinds:
        if _MARK_LEGEND[k][2] not in words and not (k == "obstacle" and "impassable" in words):
            items.append(_MARK_LEGEND[k])
    for kind in dict.fromkeys(k for _, _, k in pic.links):
        items.append(("dash", LINK_COLOUR, "stairs link" if kind == "stairs" else kind))
    for (colour, is_open), label in {(d[3], d[2]): d[0] for d in pic.doors}.items():
        items.append(("door" if not is_open else "dash", colour,
                      f"{label} (open)" if is_open else label))
    for team, colour in _team_colour(pic).items():
        items.append(("dot", colour, f"team {team}"))
    if pic.path:
        items.append(("line", PATH_COLOUR, "path"))
    ends = pic.labels().values()
    items.append(("rim", REACH_RIM, "reach: cost (others dimmed)" if len(ends) > 1 else
                  "end: cost"))
    reasons = stop_reasons(pic)
    if reasons:
        named = [r for r in reasons if r != "stops"]
        items.append(("rim", STOP_RIM, "move stops" + (f": {', '.join(named)}" if named
                                                       else "")))
    if any(e.danger for e in ends):
        items.append(("rim", DANGER_RIM, "danger"))
    if any(e.stamina for e in ends):
        items.append(("rim", STAMINA_RIM, "needs Stamina (st n)"))
    return items


def _swatch(kind: str, colour: str, x: float, y: float) -> str:
    if kind == "fill":
        return (f'<rect x="{_f(x)}" y="{_f(y)}" width="12" height="12" fill="{colour}" '
                f'stroke="#555" stroke-width="0.5"/>')
    if kind == "rim":
        return (f'<rect x="{_f(x + 1)}" y="{_f(y + 1)}" width="10" height="10" fill="none" '
                f'stroke="{colour}" stroke-width="2.5"/>')
    if kind == "dot":
        return (f'<circle cx="{_f(x + 6)}" cy="{_f(y + 6)}" r="6" fill="{colour}" '
                f'stroke="#fff" stroke-width="1"/>')
    dash = ' stroke-dasharray="3,2"' if kind == "dash" else ""
    width = 5 if kind == "door" else 3
    return (f'<line x1="{_f(x)}" y1="{_f(y + 6)}" x2="{_f(x + 12)}" y2="{_f(y + 6)}" '
            f'stroke="{colour}" stroke-width="{width}"{dash}/>')


def _halo_text(x: float, y: float, text: str, size: int, colour: str, cls: str = "",
               extra: str = "") -> str:
    """Text over a white halo (drawn twice: no reliance on paint-order)."""
    common = f'x="{_f(x)}" y="{_f(y)}" font-size="{size}" text-anchor="middle" {extra}'
    c = f' class="{cls}"' if cls else ""
    return (f'<text {common} fill="#fff" stroke="#fff" stroke-width="3">{escape(text)}'
            f'</text><text{c} {common} fill="{colour}">{escape(text)}</text>')


def to_svg(pic: Picture) -> str:
    """The picture as a standalone SVG document (a string).

    Every mark comes from the result's own fields: an end's rim is dashed orange exactly
    when its JSON entry has a stop (``stopped`` / ``stop``), red when it carries a danger,
    purple when it needs Stamina; reached cells keep their terrain colour (the cells no
    end reaches are dimmed instead); labels (sites, doors, costs) are drawn last, over
    figures and lines."""
    if not pic.cells:
        raise ScenarioError("nothing to draw: the board has no cells")
    pts = [p for c in pic.cells for p in _corners(pic, c.at)]
    for cells, _ in pic.regions:
        pts += [p for c in cells for p in _corners(pic, c)]
    pad = 10.0
    x0 = min(p[0] for p in pts) - pad
    y0 = min(p[1] for p in pts) - pad - 26
    x1 = max(p[0] for p in pts) + pad
    y1 = max(p[1] for p in pts) + pad
    w = max(x1 - x0, 6.2 * len(pic.title) + 4 * pad, 300.0)
    items = legend_items(pic)
    rows, row, used = [], [], 0.0
    for item in items:
        iw = 22 + 6.2 * len(item[2])
        if row and used + iw > w - 2 * pad:
            rows.append(row)
            row, used = [], 0.0
        row.append(item)
        used += iw
    rows.append(row)
    h = y1 - y0 + 20.0 * len(rows) + 10
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{_f(w)}" height="{_f(h)}" '
           f'viewBox="{_f(x0)} {_f(y0)} {_f(w)} {_f(h)}" font-family="DejaVu Sans, '
           f'Arial, sans-serif">',
           f'<rect x="{_f(x0)}" y="{_f(y0)}" width="{_f(w)}" height="{_f(h)}" '
           f'fill="#fbfaf7"/>',
           f'<text x="{_f(x0 + pad)}" y="{_f(y0 + 18)}" font-size="15" '
           f'font-weight="bold" fill="#222">{escape(pic.title)}</text>']
    # cells
    out.append('<g class="board">')
    for c in pic.cells:
        out.append(f'<polygon class="cell" points="{_pts(_corners(pic, c.at))}" '
                   f'fill="{c.fill}" stroke="#555" stroke-width="0.8">'
                   f'<title>{escape(str(list(c.at)))} {escape(c.terrain)}'
                   f'{"" if c.level is None else f" level {c.level}"}</title></polygon>')
    out.append('</g>')
    # the cells no end reaches are dimmed: reached cells keep their terrain colour
    labels = pic.labels()
    if len(labels) > 1:
        out.append('<g class="unreached">')
        for c in pic.cells:
            if tuple(c.at) not in labels:
                out.append(f'<polygon points="{_pts(_corners(pic, c.at))}" fill="#fbfaf7" '
                           f'fill-opacity="0.5"/>')
        out.append('</g>')
    # regions (unexplored tiles, provoke tokens)
    for cells, label in pic.regions:
        for c in cells:
            out.append(f'<polygon class="region" points="{_pts(_corners(pic, c))}" '
                       f'fill="none" stroke="#888" stroke-width="0.8" '
                       f'stroke-dasharray="3,3"/>')
        cx = sum(_centre(pic, c)[0] for c in cells) / len(cells)
        cy = sum(_centre(pic, c)[1] for c in cells) / len(cells)
        out.append(f'<text x="{_f(cx)}" y="{_f(cy + 4)}" font-size="12" fill="#555" '
                   f'text-anchor="middle" font-style="italic">{escape(label)}</text>')
    # marks (site names are labels: drawn last)
    for c in pic.cells:
        x, y = _centre(pic, c.at)
        for m in c.marks:
            if not m.startswith("site:"):
                out.append(_mark_svg(pic, m, x, y))
    # reach: every end gets a rim (dashed orange: the result says it stops there; red:
    # a danger; purple: it needs Stamina)
    out.append('<g class="reach">')
    for a, e in sorted(labels.items()):
        rim = DANGER_RIM if e.danger else STOP_RIM if e.stopped else \
            STAMINA_RIM if e.stamina else REACH_RIM
        out.append(f'<polygon class="end" data-at="{a[0]},{a[1]}" data-cost="{escape(str(e.cost))}"'
                   f' data-stop="{str(e.stopped).lower()}"'
                   + (f' data-stop-reason="{escape(e.stop)}"' if e.stopped and e.stop else "")
                   + f' data-stamina="{e.stamina}" '
                   f'points="{_pts(_corners(pic, a, 0.86))}" fill="none" stroke="{rim}" '
                   f'stroke-width="{3 if (e.danger or e.stopped or e.stamina) else 2.5}"'
                   f'{_DASH53 if e.stopped else ""}/>')
    out.append('</g>')
    # level numbers
    for c in pic.cells:
        if c.level is not None:
            x, y = _centre(pic, c.at)
            out.append(f'<text class="level" x="{_f(x)}" y="{_f(y - S * 0.55)}" '
                       f'font-size="8" fill="#222" fill-opacity="0.75" text-anchor="middle">'
                       f'L{c.level}</text>')
    # walls and doors (door names are labels: drawn last)
    for a, b in pic.walls:
        p, q = _hex_side(pic, a, b) if pic.grid == "hex" else _side_segment(a, b)
        out.append(f'<line class="wall" x1="{_f(p[0])}" y1="{_f(p[1])}" x2="{_f(q[0])}" '
                   f'y2="{_f(q[1])}" stroke="#111" stroke-width="5" '
                   f'stroke-linecap="square"/>')
    door_labels = []
    for label, sides, is_open, colour in pic.doors:
        segs = [_side_segment(a, b) for a, b in sides]
        for p, q in segs:
            out.append(f'<line class="door" x1="{_f(p[0])}" y1="{_f(p[1])}" '
                       f'x2="{_f(q[0])}" y2="{_f(q[1])}" stroke="{colour}" stroke-width="7"'
                       f'{_DASH44 if is_open else ""}/>')
        mx = sum(p[0] + q[0] for p, q in segs) / (2 * len(segs))
        my = sum(p[1] + q[1] for p, q in segs) / (2 * len(segs))
        door_labels.append(_halo_text(mx, my - 6, label, 9, colour, "door-label",
                                      'font-weight="bold"'))
    for a, b, kind in pic.links:
        (ax, ay), (bx, by) = _centre(pic, a), _centre(pic, b)
        out.append(f'<line class="link" x1="{_f(ax)}" y1="{_f(ay)}" x2="{_f(bx)}" '
                   f'y2="{_f(by)}" stroke="{LINK_COLOUR}" stroke-width="1.5" '
                   f'stroke-dasharray="6,4" opacity="{0.35 if kind == "stairs" else 0.7}"><title>{escape(kind)}</title>'
                   f'</line>')
    # path
    if pic.path:
        pts = []
        for step in pic.path:
            if step:
                xs = [_centre(pic, c) for c in step]
                pts.append((sum(p[0] for p in xs) / len(xs), sum(p[1] for p in xs) / len(xs)))
        out.append(f'<polyline class="path" points="{_pts(pts)}" fill="none" '
                   f'stroke="{PATH_COLOUR}" stroke-width="4" stroke-linejoin="round" '
                   f'stroke-linecap="round" opacity="0.8"/>')
        if pts:
            x, y = pts[-1]
            out.append(f'<circle class="target" cx="{_f(x)}" cy="{_f(y)}" r="6" '
                       f'fill="{PATH_COLOUR}"/>')
    # figures
    colours = _team_colour(pic)
    occupied = set()
    for f in pic.figures:
        col = colours.get(f.team, "#555")
        cs = [_centre(pic, c) for c in f.cells]
        occupied.update(map(tuple, f.cells))
        out.append(f'<g class="figure"><title>{escape(f.id)} ({escape(f.team)})</title>')
        ring = "#ffd600" if f.mover else "#fff"
        ring_w = 3 if f.mover else 1.5
        if len(cs) > 1 and pic.grid == "square":
            xs = [c[0] for c in f.cells]
            ys = [c[1] for c in f.cells]
            (ax, ay), (bx, by) = _centre(pic, (min(xs), min(ys))), \
                _centre(pic, (max(xs), max(ys)))
            m = S * 0.55
            out.append(f'<rect x="{_f(ax - m)}" y="{_f(ay - m)}" width="{_f(bx - ax + 2 * m)}"'
                       f' height="{_f(by - ay + 2 * m)}" rx="{_f(m)}" fill="{col}" '
                       f'stroke="{ring}" stroke-width="{ring_w}"/>')
        elif len(cs) > 1:
            out.append(f'<polyline points="{_pts(cs)}" fill="none" stroke="{ring}" '
                       f'stroke-width="{_f(S * 1.1 + 2 * ring_w)}" stroke-linecap="round" '
                       f'stroke-linejoin="round"/>')
            out.append(f'<polyline points="{_pts(cs)}" fill="none" stroke="{col}" '
                       f'stroke-width="{_f(S * 1.1)}" stroke-linecap="round" '
                       f'stroke-linejoin="round"/>')
        else:
            x, y = cs[0]
            out.append(f'<circle cx="{_f(x)}" cy="{_f(y)}" r="{_f(S * 0.55)}" '
                       f'fill="{col}" stroke="{ring}" stroke-width="{ring_w}"/>')
        x = sum(p[0] for p in cs) / len(cs)
        y = sum(p[1] for p in cs) / len(cs)
        name = f.id[:3]
        out.append(f'<text x="{_f(x)}" y="{_f(y + 1)}" font-size="10" fill="#fff" '
                   f'text-anchor="middle" font-weight="bold">{escape(name)}</text>')
        out.append('</g>')
    # labels, on top of lines and figures: door names, site names, then the reach's costs
    # (a cost under the figure standing there), notes and danger badges
    out += door_labels
    for c in pic.cells:
        x, y = _centre(pic, c.at)
        for m in c.marks:
            if m.startswith("site:"):
                out.append(_mark_svg(pic, m, x, y))
    for a, e in sorted(labels.items()):
        x, y = _centre(pic, a)
        if a in occupied:
            y += S * 0.62
        text = escape(e.label or str(e.cost))
        tip = f"{list(a)} cost {e.cost}" + (f" stops ({e.stop})" if e.stopped and e.stop
                                             not in ("", "stops") else
                                             " stops" if e.stopped else "") + \
            (f" ({e.danger})" if e.danger else "") + (f" [{e.note}]" if e.note else "")
        common = (f'x="{_f(x)}" y="{_f(y + 5)}" font-size="14" font-weight="bold" '
                  f'text-anchor="middle"')
        out.append(f'<text {common} fill="#fff" stroke="#fff" stroke-width="3">{text}'
                   f'</text>')
        out.append(f'<text class="cost" {common} fill="#111"><title>{escape(tip)}</title>'
                   f'{text}</text>')
        if e.note and a not in occupied:
            out.append(_halo_text(x, y + S * 0.62, e.note, 8,
                                  STAMINA_RIM if e.stamina else "#333", "note"))
        if e.danger:
            bx, by = _centre(pic, a)
            bx, by = bx + S * 0.6, by + S * 0.42
            out.append(f'<circle class="danger" cx="{_f(bx)}" cy="{_f(by)}" r="6" '
                       f'fill="{DANGER_RIM}"><title>{escape(e.danger)}</title></circle>'
                       f'<text x="{_f(bx)}" y="{_f(by + 3.5)}" font-size="9" '
                       f'font-weight="bold" fill="#fff" text-anchor="middle">'
                       f'{_badge(e.danger)}</text>')
    # legend, wrapped into rows
    ly = y1 + 4
    for row in rows:
        lx = x0 + pad
        for kind, colour, words in row:
            out.append(f'<g class="legend">{_swatch(kind, colour, lx, ly)}'
                       f'<text x="{_f(lx + 15)}" y="{_f(ly + 10)}" font-size="10" '
                       f'fill="#333">{escape(words)}</text></g>')
            lx += 22 + 6.2 * len(words)
        ly += 20
    if pic.offboard:
        words = "also reachable: " + ", ".join(f"{p} (cost {c})" for p, c in pic.offboard)
        out.append(f'<text class="offboard" x="{_f(x0 + w - pad)}" y="{_f(y0 + 18)}" '
                   f'font-size="12" text-anchor="end" fill="#333">{escape(words)}</text>')
    out.append('</svg>')
    return "\n".join(out) + "\n"


def _badge(danger: str) -> str:
    """The number of the first danger ("2 leaving attacks" -> "2"), or "!"."""
    head = danger.split(" ", 1)[0]
    return head if head.isdigit() and len(head) <= 2 else "!"


_DASH44 = ' stroke-dasharray="4,4"'
_DASH53 = ' stroke-dasharray="5,3"'


def _mark_svg(pic: Picture, mark: str, x: float, y: float) -> str:
    kind, _, word = mark.partition(":")
    r = S * 0.55
    if kind == "obstacle":
        t = f'<title>{escape(word)}</title>' if word else ""
        return (f'<g class="mark obstacle">{t}<line x1="{_f(x - r)}" y1="{_f(y - r)}" '
                f'x2="{_f(x + r)}" y2="{_f(y + r)}" stroke="#eee" stroke-width="2"/>'
                f'<line x1="{_f(x - r)}" y1="{_f(y + r)}" x2="{_f(x + r)}" '
                f'y2="{_f(y - r)}" stroke="#eee" stroke-width="2"/>'
                f'{_small(word, x, y + r + 2, "#eee") if word else ""}</g>')
    if kind == "trap":
        return (f'<polygon class="mark trap" points="{_pts([(x, y - r), (x + r, y + r * 0.7), (x - r, y + r * 0.7)])}" '
                f'fill="none" stroke="{TRAP}" stroke-width="2.5"/>')
    if kind == "rift":
        return (f'<circle class="mark rift" cx="{_f(x)}" cy="{_f(y)}" r="{_f(r)}" '
                f'fill="none" stroke="{RIFT}" stroke-width="3" stroke-dasharray="4,2"/>')
    if kind == "stop":
        return (f'<polygon class="mark stop" points="{_pts(_octagon(x, y, r * 0.9))}" '
                f'fill="none" stroke="#b71c1c" stroke-width="2"/>')
    if kind == "glyph":
        return (f'<polygon class="mark glyph" points="{_pts(_star(x, y, r))}" '
                f'fill="#ffeb3b" stroke="#8d6e00" stroke-width="1"><title>glyph '
                f'{escape(word)}</title></polygon>'
                f'{_small(word, x, y + r + 4, "#3e2723") if word else ""}')
    if kind == "stairs":
        lines = "".join(f'<line x1="{_f(x - r)}" y1="{_f(y - r + k * r / 2)}" '
                        f'x2="{_f(x + r)}" y2="{_f(y - r + k * r / 2)}" stroke="#4e342e" '
                        f'stroke-width="2"/>' for k in range(5))
        return f'<g class="mark stairs"><title>stairs</title>{lines}</g>'
    if kind == "portal":
        # a ring around the cell: it shows around a figure standing on the portal
        arrow = {"N": (0, -1), "E": (1, 0), "S": (0, 1), "W": (-1, 0)}.get(word)
        s = (f'<circle class="mark portal" cx="{_f(x)}" cy="{_f(y)}" r="{_f(S * 0.8)}" '
             f'fill="none" stroke="#4527a0" stroke-width="2.5" stroke-dasharray="5,2">'
             f'<title>portal {escape(word)}</title></circle>')
        if arrow:
            s += (f'<line x1="{_f(x + arrow[0] * S * 0.8)}" y1="{_f(y + arrow[1] * S * 0.8)}" '
                  f'x2="{_f(x + arrow[0] * S)}" y2="{_f(y + arrow[1] * S)}" '
                  f'stroke="#4527a0" stroke-width="4"/>')
        return s
    if kind == "site":
        return _halo_text(x, y - S * 0.58, word, 9, "#3e2723", "mark site",
                          'font-weight="bold"')
    if kind == "rampaging":
        return (f'<g class="mark rampaging"><circle cx="{_f(x)}" cy="{_f(y)}" '
                f'r="{_f(r)}" fill="#4e342e" stroke="#b71c1c" stroke-width="2"/>'
                f'{_small(word, x, y + 3, "#fff")}</g>')
    return _small(mark, x, y, "#333")


def _small(word: str, x: float, y: float, colour: str) -> str:
    return (f'<text x="{_f(x)}" y="{_f(y)}" font-size="8" text-anchor="middle" '
            f'fill="{colour}">{escape(word)}</text>')


def _octagon(x, y, r):
    return [(x + r * math.cos(math.radians(22.5 + 45 * k)),
             y + r * math.sin(math.radians(22.5 + 45 * k))) for k in range(8)]


def _star(x, y, r):
    return [(x + (r if k % 2 == 0 else r * 0.45) * math.cos(math.radians(-90 + 36 * k)),
             y + (r if k % 2 == 0 else r * 0.45) * math.sin(math.radians(-90 + 36 * k)))
            for k in range(10)]


# ---------------------------------------------------------------------------- text
def to_text(pic: Picture) -> str:
    """The picture for a terminal: one 3-character slot per cell.

    A figure shows as ``@ab`` (the moving one) or ``ab`` plus its team's first letter in
    capitals for others; a reachable end as its cost, then ``s`` if the move stops there,
    ``!`` if it is dangerous, ``*`` if it lies on the drawn path; other cells as their
    terrain character (``#`` obstacle) and level digit. Hex rows are offset by half a slot.
    """
    labels = pic.labels()
    on_path = {tuple(c) for step in (pic.path or []) for c in step}
    figs = {}
    for f in pic.figures:
        for c in f.cells:
            figs[tuple(c)] = ("@" if f.mover else f.team[:1].upper()) + f.id[:2]
    slots = {}
    for c in pic.cells:
        a = tuple(c.at)
        if a in figs:
            s = figs[a]
        elif a in labels:
            e = labels[a]
            mark = ("s" if e.stopped else "") + ("!" if e.danger else "") + \
                ("*" if a in on_path else "")
            s = (e.label or str(e.cost)) + mark
        else:
            s = c.char + ("" if c.level is None else str(c.level % 10))
            if "obstacle" in " ".join(c.marks):
                s = "##"
        slots[a] = s[:4]
    if pic.grid == "hex" and pic.orientation == "pointy":
        pos = {a: (2 * a[0] + a[1], a[1]) for a in slots}     # doubled columns
        width = 2
    elif pic.grid == "hex":
        pos = {a: (a[0], 2 * a[1] + a[0]) for a in slots}     # doubled rows
        width = 4
    else:
        pos = {a: (a[0], a[1]) for a in slots}
        width = 4
    xs = [p[0] for p in pos.values()]
    ys = [p[1] for p in pos.values()]
    x0, y0 = min(xs), min(ys)
    rows: dict = {}
    for a, (x, y) in pos.items():
        rows.setdefault(y - y0, {})[x - x0] = slots[a]
    lines = [pic.title]
    for y in range(max(ys) - y0 + 1):
        row = rows.get(y, {})
        if not row and pic.grid == "hex" and pic.orientation == "flat":
            continue
        line = ""
        for x in sorted(row):
            col = x * width
            line = line.ljust(col) + row[x].rjust(3) + " "
        lines.append(line.rstrip())
    n_end = len(labels)
    if pic.offboard:
        lines.append("also reachable: " + ", ".join(f"{p} (cost {c})" for p, c in pic.offboard))
    named = [r for r in stop_reasons(pic) if r != "stops"]
    stops = "s = stops there" + (f" ({', '.join(named)})" if named else "")
    lines.append(f"{n_end} end cells; @ = moving figure, {stops}, ! = danger, "
                 f"* = on the path" + (f"; path to {list(pic.target)}" if pic.target else ""))
    return "\n".join(lines) + "\n"


def render_svg(scenario: dict, result: dict, to=None, **kw) -> str:
    """``to_svg(picture(scenario, result, to))``."""
    return to_svg(picture(scenario, result, to, **kw))


def render_text(scenario: dict, result: dict, to=None, **kw) -> str:
    """``to_text(picture(scenario, result, to))``."""
    return to_text(picture(scenario, result, to, **kw))


# -------------------------------------------------------------------- command line
def parse_to(text: str) -> tuple:
    """``"3,-1"`` -> ``(3, -1)``; a typed error otherwise."""
    try:
        x, y = (int(v) for v in text.replace(" ", "").split(","))
    except ValueError:
        raise QueryError(f"--to {text!r}: expected two integers 'X,Y' (e.g. 3,-1)") from None
    return (x, y)


def solve_for_picture(scenario: dict, want_paths: bool) -> dict:
    """Solve, asking for paths when the query takes ``paths`` (and ``want_paths``)."""
    from .scenario import solve
    query = scenario.get("query")
    if want_paths and isinstance(query, dict) and query.get("paths") is not True:
        try:
            return solve(dict(scenario, query=dict(query, paths=True)))
        except ScenarioError:
            pass   # this query kind takes no 'paths': solve it as it is
    return solve(scenario)


def cmd_render(args) -> int:
    from .scenario import read_scenario as _read
    scenario = _read(args.file)
    to = parse_to(args.to) if args.to else None
    result = solve_for_picture(scenario, to is not None)
    pic = picture(scenario, result, to, orientation=args.orientation)
    if args.svg:
        with open(args.svg, "w", encoding="utf-8") as fh:
            fh.write(to_svg(pic))
    if args.text or not args.svg:
        print(to_text(pic), end="")
    return 0


def register(sub) -> None:
    p = sub.add_parser("render", help="draw a scenario and its reach (SVG and/or text)")
    p.add_argument("file", help="scenario JSON file, or - for stdin")
    p.add_argument("--svg", metavar="OUT.svg", help="write the picture as SVG")
    p.add_argument("--to", metavar="X,Y", help="draw the path to the end at X,Y")
    p.add_argument("--text", action="store_true", help="print the text picture")
    p.add_argument("--orientation", choices=("pointy", "flat"), default="pointy",
                   help="hex orientation (default pointy: rows of hexes)")
    p.set_defaults(fn=cmd_render)
