"""The neutral picture every game is drawn into: :class:`Picture` (cells, walls, doors,
links, figures, ends, the path), its parts, and the colours shared by the drawings."""
from __future__ import annotations

from dataclasses import dataclass, field


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
