"""Descent: Journeys in the Dark, 1st edition (seed 002, RULES.md section 3): the
``"descent"`` vocabulary of :func:`movecore.solve`.

The rulebook page, as this module applies it:

* Squares, 8 neighbours, every step costs 1 movement point (MP); a tree space costs 2 to
  enter. Figures stay on the board. Diagonal steps past blocked corners (obstacles,
  enemies, the corner of a wall) are allowed (option ``corner_cutting``), but no step may
  *cross* a wall line or a closed door: a diagonal step passes through a grid corner and
  crosses the lines there when every way around that corner does. The edge of the map
  (any side between an on-board and an off-board square) is a wall line.
* Water, rubble, boulders and crushing walls block movement (1st edition: water blocks).
  Lava kills a walking figure, so walkers never enter it.
* Friends (heroes for heroes, monsters for monsters) may be passed, enemies not; a move
  ends on an empty square.
* A closed door blocks every step that crosses it. A figure may open it for 2 MP from a
  square next to it and walk on: the door is paid once, on the step that passes it.
  Monsters cannot open doors that lead to unrevealed areas; rune-locked doors open only
  for heroes whose party holds the matching rune key.
* Stairs: 1 MP between linked staircases. Glyph to town and back: 1 MP, heroes only.
* Pits: a figure whose whole base enters pit spaces falls in (1 wound). From a pit it may
  move between spaces of the same pit normally, or climb out for 2 MP to an adjacent
  space. A one-square walker may jump across a straight run of pit (or ice) spaces for
  3 MP per space crossed.
* Ice (option ``ice``): ``"normal"`` treats it as floor (the surge roll is not modelled),
  ``"stop"`` ends the move on entry (the worst roll). Either way it can be jumped.
* Large monsters (footprints ``1x2``, ``2x1``, ``2x2``, ``2x3``, ``3x2``, anchored by the
  top-left square) move by translating the whole base one square; the base must fit after
  every step (no squeezing through one-square gaps); a step into new tree spaces costs 2;
  pits and ice apply only when the whole base is on them; large monsters never use
  stairs. Hell hounds (1x2) and dragons (2x3) may also turn a quarter for 1 MP into a
  turned base within one square of theirs that overlaps it (:func:`turn_offsets`,
  :meth:`Rules.turn`; option ``large_turns``: ``"all"``, ``"two_square"``, ``"none"``).
  With option ``large_jumps`` a large base jumps pits as a one-square walker does, over
  bases wholly on pit or ice squares.
* A door opened during a move stays open for the rest of it (paid once).
* Grapple: an enemy entering a square adjacent to the grappler must stop there; an enemy
  that starts adjacent cannot spend movement points. Aura N: N wounds each time an enemy
  enters a square adjacent to the figure. Fly: passes enemies and obstacles (not walls or
  closed doors), cannot end on a figure or a blocking obstacle, ignores pits, ice, lava
  and trees.
* MP: heroes from their action (``run`` 2 x speed, ``advance``/``ready`` speed,
  ``battle`` 0) plus 1 per fatigue spent; monsters their speed; ``mp`` overrides the
  action. Each end reports the MP left so a caller can buy actions with them.

Engine model: the search runs over *placements* (a figure's anchor square, or the town)
with :meth:`Board.graph`; every step is a directed link whose price this module computes
in game words (step, tree, climbing out, doors), so one-square figures and large monsters
run through the same proven kernel. Wounds (aura, pit falls) are the kernel's penalty
objective: aura as ``enter_penalty`` per placement, the pit fall as a ``leave`` bit held
by every placement outside a pit. Grapple and ice are stop placements (``CELL_STOP``),
fliers over obstacles get ``CELL_NO_END``. See docs/descent.md for the scenario format.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...errors import BoardError, LimitError, PlacementError, QueryError, ScenarioError
from ...kernels import _types as T
from ...position import figure_key
from ...scenario import (as_coord, expect_keys, expect_object, get_bool, get_id, get_int,
                        get_list, get_str)

# ----------------------------------------------------------------------------- words
TERRAINS = ("floor", "water", "rubble", "boulder", "crushing_wall", "pit", "lava", "ice",
            "tree")
#: Obstacles that block movement in 1st edition (FAQ: "Boulder, Crushing Wall, Rubble,
#: Water").
OBSTACLES = frozenset({"water", "rubble", "boulder", "crushing_wall"})
#: Hazards a one-square walker may jump across (3 MP per space crossed).
JUMPABLE = frozenset({"pit", "ice"})
MAP_CHARS = {".": "floor", "w": "water", "r": "rubble", "b": "boulder",
             "c": "crushing_wall", "p": "pit", "l": "lava", "i": "ice", "t": "tree",
             "#": None, " ": None}
FOOTPRINTS = {"1x1": (1, 1), "1x2": (1, 2), "2x1": (2, 1), "2x2": (2, 2), "2x3": (2, 3),
              "3x2": (3, 2)}
#: Option ``large_turns``: which large bases may turn a quarter (1 MP).
LARGE_TURNS = ("all", "two_square", "none")
ACTIONS = {"run": 2, "advance": 1, "ready": 1, "battle": 0}   # MP = factor x speed
ABILITIES = ("grapple", "aura", "fly")
SIDES = ("hero", "monster")
STEPS = ((1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1))
DOOR_COST = 2        # open a door
CLIMB_OUT_COST = 2   # climb out of a pit
JUMP_COST = 3        # per pit space jumped
TREE_COST = 2        # enter a tree space
STAIRS_COST = 1
TOWN_COST = 1
MAX_WOUNDS = 31      # wounds are tracked up to this many per move
#: Most squares of a dungeon (every board form; see docs/descent.md, "Board size").
MAX_SQUARES = 1 << 20
TOWN = "town"


def _side(a, b):
    """A cell side (the edge between two orthogonally adjacent squares), canonical."""
    return (a, b) if a <= b else (b, a)


@dataclass
class Door:
    id: Any
    sides: frozenset
    open: bool
    rune: str | None
    leads_to_unrevealed: bool


@dataclass
class Dungeon:
    """The map in game words: squares and their terrain, wall sides, doors, links."""

    terrain: dict                      # (x, y) -> terrain name, for on-board squares
    walls: set = field(default_factory=set)
    doors: list = field(default_factory=list)
    door_of: dict = field(default_factory=dict)    # side -> door index
    stairs: list = field(default_factory=list)     # pairs of squares
    glyphs: list = field(default_factory=list)     # active glyph squares
    # a box cut from a larger dungeon (solve() of a big board): what of the whole one
    # decides the order its moves are searched in (_kind_graph: _breadth_first)
    beyond: "tuple | None" = None  # (terrain names, sides with a door they may open)

    def on_board(self, c) -> bool:
        return c in self.terrain


@dataclass
class Hero:
    """A figure of the scenario (heroes and monsters alike)."""

    id: Any
    side: str
    anchor: tuple | None               # None = in town
    speed: int
    size: tuple
    grapple: bool = False
    aura: int = 0
    fly: bool = False

    @property
    def cells(self) -> list:
        if self.anchor is None:
            return []
        return footprint_cells(self.anchor, self.size)


def footprint_cells(anchor, size) -> list:
    x, y = anchor
    w, h = size
    return [(x + i, y + j) for j in range(h) for i in range(w)]


def turns_allowed(size, large_turns: str) -> bool:
    """Whether a base of ``size`` may turn a quarter under option ``large_turns``
    (``"all"``: two-square and 2x3 bases, ``"two_square"``: two-square bases only,
    ``"none"``)."""
    w, h = size
    if w == h or large_turns == "none":
        return False
    return w * h == 2 or large_turns == "all"


def step_directions(size, hound_slides: bool = False) -> tuple:
    """The directions a base of ``size`` steps in (1 MP, the whole base one square).

    Every base steps in all 8 directions but a hell hound's (a two-square base): "The
    figure moves one half of its body into a non-diagonal adjacent space while the other
    half of its body moves into the space(s) that the first half just vacated" (rulebook,
    as quoted on the wiki page Monsters) moves it along its long axis (or turns it, see
    :func:`turn_offsets`), and the BoardGameGeek thread "large monsters and movement"
    adds the diagonal sidestep of the whole body. Neither shifts it straight across its
    axis: that takes two moves, unless ``hound_slides`` (option ``hound_slides``).

    >>> step_directions((2, 1))
    ((1, 0), (1, 1), (-1, 1), (-1, 0), (-1, -1), (1, -1))
    >>> len(step_directions((2, 1), True)), len(step_directions((2, 2)))
    (8, 8)
    """
    w, h = size
    if w * h != 2 or hound_slides:
        return STEPS
    across = (0, 1) if w == 2 else (1, 0)     # across the long axis
    return tuple(d for d in STEPS if d != across and d != (-across[0], -across[1]))


def turn_offsets(size) -> list:
    """Anchor offsets of the quarter-turned placements of a ``w x h`` base: the
    ``h x w`` bases that lie within one square of the old base (in the box one square
    larger on every side) and overlap it. A two-square base has 4 (its head steps
    across the axis, the tail follows), a 2x3 base 8 (the 16 ends of one MP in the 4x5
    box are its 8 shifts and these 8 turns)."""
    w, h = size
    out = []
    for oy in range(-1, h - w + 2):
        for ox in range(-1, w - h + 2):
            if ox <= w - 1 and ox + h - 1 >= 0 and oy <= h - 1 and oy + w - 1 >= 0:
                out.append((ox, oy))
    return out


# ----------------------------------------------------------------------------- reading
def _cells_list(value, where) -> list:
    if not isinstance(value, list):
        raise ScenarioError(f"{where} must be a list of squares [x, y]; got {value!r:.60}")
    return [as_coord(c, f"{where}[{i}]") for i, c in enumerate(value)]


def _read_side(value, where, dungeon: Dungeon, what: str, need_on_board: bool):
    if not isinstance(value, list) or len(value) != 2:
        raise BoardError(f"{where} must be a pair of squares [[x, y], [x, y]] on either "
                         f"side of a cell edge; got {value!r:.60}")
    a, b = (as_coord(c, f"{where}[{i}]") for i, c in enumerate(value))
    if abs(a[0] - b[0]) + abs(a[1] - b[1]) != 1:
        raise BoardError(f"{what} {where} between {list(a)} and {list(b)} is not on a cell "
                         f"edge: the two squares must be orthogonal neighbours")
    if need_on_board:
        for c in (a, b):
            if not dungeon.on_board(c):
                raise BoardError(f"{what} {where} touches {list(c)}, which is not on the "
                                 f"board")
    return _side(a, b)


def _read_cells(cells) -> dict:
    """The squares of the common board form: ``[{"at": [x, y], "terrain": NAME}, ...]``
    (any shape; ``terrain`` defaults to floor; an obstacle terrain is a blocked square)."""
    terrain: dict = {}
    for i, c in enumerate(cells):
        w = f"board.cells[{i}]"
        c = expect_object(c, w)
        expect_keys(c, w, ("at", "terrain"), required=("at",))
        at = as_coord(c["at"], f"{w}.at")
        if at in terrain:
            raise BoardError(f"{w}.at {list(at)} is described twice in board.cells")
        name = get_str(c, "terrain", w, TERRAINS, "floor")
        terrain[at] = name
    return terrain


def read_board(spec) -> Dungeon:
    """The dungeon of a scenario's ``board`` (see docs/descent.md)."""
    spec = expect_object(spec, "board")
    expect_keys(spec, "board", ("rows", "width", "height", "terrain", "walls", "doors",
                                "stairs", "glyphs", "cells"))
    terrain: dict = {}
    if "cells" in spec:
        if "rows" in spec or "width" in spec or "height" in spec:
            raise ScenarioError("board gives both 'cells' and 'rows' or 'width'/'height'; "
                                "use one")
        terrain = _read_cells(get_list(spec, "cells", "board"))
    elif "rows" in spec:
        if "width" in spec or "height" in spec:
            raise ScenarioError("board gives both 'rows' and 'width'/'height'; use one")
        rows = get_list(spec, "rows", "board")
        for y, row in enumerate(rows):
            if not isinstance(row, str):
                raise ScenarioError(f"board.rows[{y}] must be a string; got {row!r:.60}")
            for x, ch in enumerate(row):
                if ch not in MAP_CHARS:
                    raise BoardError(f"board.rows[{y}] has {ch!r} at x={x}; expected one "
                                     f"of {''.join(sorted(MAP_CHARS))!r}")
                if MAP_CHARS[ch] is not None:
                    terrain[(x, y)] = MAP_CHARS[ch]
    else:
        w = get_int(spec, "width", "board", lo=1, hi=4096)
        h = get_int(spec, "height", "board", lo=1, hi=4096)
        if w * h > MAX_SQUARES:
            raise LimitError(f"a {w}x{h} dungeon has {w * h} squares; at most "
                             f"{MAX_SQUARES}")
        terrain = dict.fromkeys(((x, y) for y in range(h) for x in range(w)), "floor")
    if not terrain:
        raise BoardError("the board has no squares")
    if len(terrain) > MAX_SQUARES:
        raise LimitError(f"the board has {len(terrain)} squares; a Descent dungeon has at "
                         f"most {MAX_SQUARES}")
    names = expect_object(spec.get("terrain", {}), "board.terrain")
    for name, cells in names.items():
        if name not in TERRAINS:
            raise BoardError(f"unknown terrain {name!r} in board.terrain; expected one of "
                             f"{list(TERRAINS)}")
        for c in _cells_list(cells, f"board.terrain.{name}"):
            if c not in terrain:
                raise BoardError(f"board.terrain.{name} lists {list(c)}, which is not on "
                                 f"the board")
            terrain[c] = name
    dungeon = Dungeon(terrain)
    for i, s in enumerate(get_list(spec, "walls", "board", [])):
        dungeon.walls.add(_read_side(s, f"board.walls[{i}]", dungeon, "wall", False))
    seen_ids = set()
    for i, d in enumerate(get_list(spec, "doors", "board", [])):
        w = f"board.doors[{i}]"
        d = expect_object(d, w)
        expect_keys(d, w, ("id", "sides", "between", "open", "rune", "leads_to_unrevealed"),
                    required=("id",))
        did = get_id(d, "id", w)
        if did in seen_ids:
            raise BoardError(f"duplicate door id {did!r}")
        seen_ids.add(did)
        if ("sides" in d) == ("between" in d):
            raise BoardError(f"{w} needs exactly one of 'sides' (a list of cell edges) or "
                             f"'between' (one cell edge)")
        raw = [d["between"]] if "between" in d else get_list(d, "sides", w)
        if not 1 <= len(raw) <= 2:
            raise BoardError(f"{w} spans {len(raw)} cell edges; a door spans 1 or 2")
        sides = [_read_side(s, f"{w}.sides[{j}]", dungeon, "door", True)
                 for j, s in enumerate(raw)]
        if len(sides) == 2 and not _collinear_neighbours(*sides):
            raise BoardError(f"{w}: its two cell edges {[list(map(list, s)) for s in sides]}"
                             f" must continue each other on one line")
        for s in sides:
            if s in dungeon.walls:
                raise BoardError(f"{w} lies on a wall side {[list(c) for c in s]}")
            if s in dungeon.door_of:
                raise BoardError(f"{w} overlaps door {dungeon.doors[dungeon.door_of[s]].id!r}")
            dungeon.door_of[s] = len(dungeon.doors)
        rune = d.get("rune")
        if rune is not None and not isinstance(rune, str):
            raise BoardError(f"{w}.rune must be a rune key name (string) or null; got "
                             f"{rune!r:.60}")
        dungeon.doors.append(Door(did, frozenset(sides), get_bool(d, "open", w, False), rune,
                                  get_bool(d, "leads_to_unrevealed", w, False)))
    for i, pair in enumerate(get_list(spec, "stairs", "board", [])):
        w = f"board.stairs[{i}]"
        cells = _cells_list(pair, w)
        if len(cells) != 2 or cells[0] == cells[1]:
            raise BoardError(f"{w} must link two different staircase squares")
        for c in cells:
            if not dungeon.on_board(c) or terrain[c] in OBSTACLES | {"lava", "pit"}:
                raise BoardError(f"{w}: staircase square {list(c)} must be an open square "
                                 f"on the board")
        dungeon.stairs.append(tuple(cells))
    for c in _cells_list(get_list(spec, "glyphs", "board", []), "board.glyphs"):
        if not dungeon.on_board(c) or terrain[c] in OBSTACLES | {"lava", "pit"}:
            raise BoardError(f"glyph {list(c)} must be an open square on the board")
        dungeon.glyphs.append(c)
    return dungeon


def _collinear_neighbours(s1, s2) -> bool:
    """Two unit cell edges that form one straight segment of length 2."""
    (a1, b1), (a2, b2) = s1, s2
    d1 = (b1[0] - a1[0], b1[1] - a1[1])
    d2 = (b2[0] - a2[0], b2[1] - a2[1])
    if d1 != d2:
        return False
    off = (a2[0] - a1[0], a2[1] - a1[1])
    # the edges continue each other when shifted across the edge direction by one
    return off in (((0, 1), (0, -1)) if d1 == (1, 0) else ((1, 0), (-1, 0)))


def read_figures(items, dungeon: Dungeon) -> list[Hero]:
    if not isinstance(items, list):
        raise ScenarioError(f"figures must be a list; got {items!r:.60}")
    out: list[Hero] = []
    taken: dict = {}
    for i, raw in enumerate(items):
        w = f"figures[{i}]"
        raw = expect_object(raw, w)
        expect_keys(raw, w, ("id", "side", "at", "speed", "footprint", "abilities"),
                    required=("id", "side", "at"))
        fid = get_id(raw, "id", w)
        if any(f.id == fid for f in out):
            raise ScenarioError(f"duplicate figure id {fid!r}")
        side = get_str(raw, "side", w, SIDES)
        speed = get_int(raw, "speed", w, 0, lo=0, hi=1 << 16)
        fp = get_str(raw, "footprint", w, FOOTPRINTS, "1x1")
        size = FOOTPRINTS[fp]
        if side == "hero" and size != (1, 1):
            raise PlacementError(f"hero {fid!r} has footprint {fp!r}; heroes occupy one "
                                 f"square (1x1)")
        fig = Hero(fid, side, None, speed, size)
        for j, ab in enumerate(get_list(raw, "abilities", w, [])):
            _read_ability(fig, ab, f"{w}.abilities[{j}]")
        if raw["at"] == TOWN:
            if side != "hero":
                raise PlacementError(f"figure {fid!r} is in town; only heroes go to town")
        else:
            fig.anchor = as_coord(raw["at"], f"{w}.at")
            for c in fig.cells:
                if not dungeon.on_board(c):
                    raise PlacementError(f"figure {fid!r} ({fp} at {list(fig.anchor)}) "
                                         f"covers {list(c)}, which is off the board (a wall)")
                t = dungeon.terrain[c]
                if t in OBSTACLES or (t == "lava" and not fig.fly):
                    raise PlacementError(f"figure {fid!r} covers {list(c)}, a {t} space "
                                         f"where no figure may stand")
                if c in taken:
                    raise PlacementError(f"figures {taken[c]!r} and {fid!r} both cover "
                                         f"{list(c)}; one figure per square")
                taken[c] = fid
            for a, b in _internal_sides(fig.cells):
                s = _side(a, b)
                if s in dungeon.walls:
                    raise PlacementError(f"figure {fid!r} ({fp} at {list(fig.anchor)}) "
                                         f"overlaps the wall between {list(a)} and {list(b)}")
                if s in dungeon.door_of and not dungeon.doors[dungeon.door_of[s]].open:
                    raise PlacementError(f"figure {fid!r} straddles the closed door "
                                         f"{dungeon.doors[dungeon.door_of[s]].id!r}")
        out.append(fig)
    return out


def _read_ability(fig: Hero, ab, where):
    if isinstance(ab, str):
        name, value = ab, None
    elif isinstance(ab, dict) and len(ab) == 1:
        (name, value), = ab.items()
    else:
        raise ScenarioError(f"{where} must be an ability name or {{name: value}}; got "
                            f"{ab!r:.60}")
    if name not in ABILITIES:
        raise ScenarioError(f"{where}: unknown ability {name!r}; expected one of "
                            f"{list(ABILITIES)}")
    if name == "aura":
        n = 1 if value is None else value
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_WOUNDS:
            raise ScenarioError(f"{where}: aura takes a number of wounds 1..{MAX_WOUNDS}; "
                                f"got {value!r:.60}")
        fig.aura = n
    else:
        if value not in (None, True):
            raise ScenarioError(f"{where}: {name} takes no value; got {value!r:.60}")
        setattr(fig, name, True)


def swept_sides(old, new):
    """The cell sides a base sweeps turning from squares ``old`` to ``new`` besides
    those inside either base (which the placements check): those between a square of
    the old base only and an orthogonally adjacent square of the new base only. (None
    for the turns of :func:`turn_offsets`; the rule is kept general.)"""
    new_only = set(new) - set(old)
    return [(p, q) for p in set(old) - set(new) for dx, dy in STEPS[::2]
            if (q := (p[0] + dx, p[1] + dy)) in new_only]


def _internal_sides(cells):
    s = set(cells)
    for (x, y) in cells:
        for n in ((x + 1, y), (x, y + 1)):
            if n in s:
                yield (x, y), n


# ----------------------------------------------------------------------------- rules
class Rules:
    """What one moving figure may do on one dungeon: placements and the price of steps."""

    def __init__(self, dungeon: Dungeon, figures: list[Hero], mover: Hero, rune_keys,
                 corner_cutting: bool, ice: str):
        self.d = dungeon
        self.mover = mover
        self.corner_cutting = corner_cutting
        self.ice_stops = ice == "stop"
        fly = mover.fly
        self.fly = fly
        # door state for this figure: open (free), openable (2 MP once), shut (a wall)
        self.door_state = []
        for door in dungeon.doors:
            if door.open:
                self.door_state.append("open")
            elif mover.side == "hero":
                ok = door.rune is None or door.rune in rune_keys
                self.door_state.append("openable" if ok else "shut")
            else:
                ok = door.rune is None and not door.leads_to_unrevealed
                self.door_state.append("openable" if ok else "shut")
        self.friends: dict = {}
        self.enemies: dict = {}
        self.grapplers: list = []
        self.auras: list = []
        for f in figures:
            if f is mover:
                continue
            mine = f.side == mover.side
            for c in f.cells:
                (self.friends if mine else self.enemies)[c] = f.id
            if not mine and f.anchor is not None:
                if f.grapple:
                    self.grapplers.append(set(f.cells))
                if f.aura:
                    self.auras.append((set(f.cells), f.aura))

    # --- squares
    def passable(self, c) -> bool:
        """The mover's base may cover square c while moving (figures aside)."""
        t = self.d.terrain.get(c)
        if t is None:
            return False
        return self.fly or (t not in OBSTACLES and t != "lava")

    def side_state(self, a, b):
        """'wall', 'shut' (a door this figure cannot open), a door index, or None."""
        s = _side(a, b)
        if s in self.d.walls or a not in self.d.terrain or b not in self.d.terrain:
            return "wall"      # the edge of the map is a wall line
        k = self.d.door_of.get(s)
        if k is None or self.door_state[k] == "open":
            return None
        return "shut" if self.door_state[k] == "shut" else k

    def cell_step(self, c, d):
        """A square of the base moves by d: None if a wall or shut door is crossed, else
        the set of closed doors crossed (each must be opened)."""
        dx, dy = d
        n = (c[0] + dx, c[1] + dy)
        if dx == 0 or dy == 0:
            st = self.side_state(c, n)
            if st in ("wall", "shut"):
                return None
            return frozenset() if st is None else frozenset([st])
        # A diagonal step passes through a grid corner: it crosses the lines there only
        # when both ways around the corner (via either orthogonal square) cross them.
        best = None
        routes = ((c[0] + dx, c[1]), (c[0], c[1] + dy))
        for mid in routes:
            doors = set()
            ok = True
            for a, b in ((c, mid), (mid, n)):
                st = self.side_state(a, b)
                if st in ("wall", "shut"):
                    ok = False
                    break
                if st is not None:
                    doors.add(st)
            if ok and (best is None or len(doors) < len(best)):
                best = frozenset(doors)
        if best is None:
            return None
        if not self.corner_cutting:
            # both orthogonal squares must be open and reachable without walls
            for mid in routes:
                if not self.passable(mid):
                    return None
                for a, b in ((c, mid), (mid, n)):
                    if self.side_state(a, b) in ("wall", "shut"):
                        return None
        return best

    # --- placements
    def placement(self, anchor, size=None):
        """Facts of the mover's base at ``anchor`` (``size``: a turned 2-square base's
        size; default the mover's), or None if it cannot be there."""
        cells = footprint_cells(anchor, size or self.mover.size)
        for c in cells:
            if not self.passable(c):
                return None
        straddled = set()
        for a, b in _internal_sides(cells):
            st = self.side_state(a, b)
            if st in ("wall", "shut"):
                return None
            if st is not None:
                straddled.add(st)
        terr = [self.d.terrain[c] for c in cells]
        walker = not self.fly
        return dict(
            cells=cells,
            straddled=frozenset(straddled),
            trees=frozenset(c for c, t in zip(cells, terr) if t == "tree") if walker
            else frozenset(),
            in_pit=walker and all(t == "pit" for t in terr),
            on_ice=walker and all(t == "ice" for t in terr),
            may_end=all(t not in OBSTACLES for t in terr),
        )

    def adjacent(self, cells, group) -> bool:
        for (x, y) in cells:
            for g in group:
                if max(abs(g[0] - x), abs(g[1] - y)) == 1:
                    return True
        return False

    def step(self, src, dst, d):
        """(MP, doors opened) of a step of the whole base by d from placement src to
        placement dst, or None if it is not allowed."""
        opened = set()
        for c in src["cells"]:
            crossed = self.cell_step(c, d)
            if crossed is None:
                return None
            opened |= crossed
        return self._price(src, dst, opened)

    def turn(self, src, dst):
        """(MP, doors opened) of a base turning a quarter from placement src to the
        turned placement dst (one of :func:`turn_offsets`): the squares of both bases
        together are swept like one base, so no wall or door this figure cannot open may
        lie between two orthogonally adjacent squares of them, and the closed doors
        there are opened (paid as a step pays them); None if not allowed. Inside either
        base the placements say it (``straddled``); :func:`swept_sides` are the rest.
        For a two-square base this is its head stepping across the axis and the tail
        following into the head's square."""
        crossed = set()
        for a, b in swept_sides(src["cells"], dst["cells"]):
            st = self.side_state(a, b)
            if st in ("wall", "shut"):
                return None
            if st is not None:
                crossed.add(st)
        return self._price(src, dst, crossed)

    def _price(self, src, dst, opened):
        """A move from placement src to dst that crosses the closed doors ``opened``."""
        opened = (opened | dst["straddled"]) - src["straddled"]
        cost = 1
        if dst["trees"] - src["trees"]:
            cost = TREE_COST
        if src["in_pit"] and not dst["in_pit"]:
            cost = CLIMB_OUT_COST + (TREE_COST - 1 if dst["trees"] - src["trees"] else 0)
        return cost + DOOR_COST * len(opened), frozenset(opened)


# ----------------------------------------------------------------------------- the move
def movement_points(fig: Hero, query: dict) -> int:
    """MP of the moving figure: from the hero's action (+ fatigue), a monster's speed, or
    an explicit ``mp``."""
    mp = get_int(query, "mp", "query", None, lo=0, hi=T.MAX_BUDGET // 2, allow_none=True)
    fatigue = get_int(query, "fatigue", "query", 0, lo=0, hi=1 << 16)
    action = query.get("action")
    if fig.side == "monster":
        if action is not None:
            raise QueryError(f"query.action {action!r}: monsters take no hero action; they "
                             f"move their speed (or give 'mp')")
        if fatigue:
            raise QueryError("query.fatigue: only heroes spend fatigue for movement")
        return fig.speed if mp is None else mp
    if mp is None:
        if action is None:
            raise QueryError(f"query needs 'action' (one of {list(ACTIONS)}) or 'mp' for "
                             f"hero {fig.id!r}")
        action = get_str(query, "action", "query", ACTIONS)
        mp = ACTIONS[action] * fig.speed
    elif action is not None:
        get_str(query, "action", "query", ACTIONS)
    return mp + fatigue


# ----------------------------------------------------------------------------- scenario
#: The keys of a ``solve()`` query besides ``figure`` (those ``legal_moves`` takes).
QUERY_KEYS = ("action", "fatigue", "mp", "paths")
OPTION_KEYS = ("corner_cutting", "ice", "large_turns", "large_jumps", "hound_slides")


def read_query(query, figures: list) -> Any:
    """The id of the figure a scenario's ``query`` moves (one of ``figures``, the ids in
    play), its keys checked (the values: :func:`movement_points`, ``paths``)."""
    query = expect_object(query, "query")
    expect_keys(query, "query", ("figure",) + QUERY_KEYS, required=("figure",))
    fid = query["figure"]
    if figure_key(fid) not in figures:
        raise QueryError(f"query.figure names {fid!r}, which is not in the scenario; "
                         f"known figures: {figures}")
    return fid


@dataclass(frozen=True)
class Setup:
    """A Descent scenario read (:func:`read_scenario`): what a position is built of."""
    dungeon: Dungeon
    figures: list
    rune_keys: list
    options: dict


def read_scenario(scenario, query: bool = True) -> Setup:
    """Read and validate a Descent scenario: ``board`` (:func:`read_board`),
    ``options``, ``party`` (its rune keys), ``figures`` (:func:`read_figures`) and, when
    given, ``query`` (:func:`read_query`, then the figure's MP,
    :func:`movement_points`), raising the typed errors :func:`movecore.solve` raises
    (``query=False``: the query is not read, as ``Position.from_scenario`` does).
    ``options`` holds the position's keywords (``corner_cutting``, ``ice``,
    ``large_turns``, ``large_jumps``, ``hound_slides``). Pure reading: it loads no
    kernel."""
    scenario = expect_object(scenario, "scenario")
    expect_keys(scenario, "scenario", ("game", "board", "options", "party", "figures",
                                       "query"), required=("board", "figures"))
    dungeon = read_board(scenario["board"])
    opts = expect_object(scenario.get("options", {}), "options")
    expect_keys(opts, "options", OPTION_KEYS)
    options = {"corner_cutting": get_bool(opts, "corner_cutting", "options", True),
               "ice": get_str(opts, "ice", "options", ("normal", "stop"), "normal"),
               "large_turns": get_str(opts, "large_turns", "options", LARGE_TURNS, "all"),
               "large_jumps": get_bool(opts, "large_jumps", "options", False),
               "hound_slides": get_bool(opts, "hound_slides", "options", False)}
    party = expect_object(scenario.get("party", {}), "party")
    expect_keys(party, "party", ("rune_keys",))
    keys = get_list(party, "rune_keys", "party", [])
    for k in keys:
        if not isinstance(k, str):
            raise ScenarioError(f"party.rune_keys must hold rune key names; got "
                                f"{k!r:.60}")
    figures = read_figures(scenario["figures"], dungeon)
    if query and "query" in scenario:
        q = scenario["query"]
        fid = read_query(q, [f.id for f in figures])
        fig = next(f for f in figures if f.id == figure_key(fid))
        movement_points(fig, {k: v for k, v in q.items() if k != "figure"})
        get_bool(q, "paths", "query", False)
    return Setup(dungeon, figures, keys, options)
