"""Descent's dungeon as the placement graphs read it (private to
:mod:`movecore.games.descent`): the codes shared by the graph modules (door states,
stop reasons, jump prices), the dungeon as flat numpy arrays over its box
(:class:`_Grid`), the wall and door test of a step (:func:`_cross`), and each
placement's facts in game words, made on first read (:class:`_Facts`).
"""
from __future__ import annotations

import contextlib
import gc
import threading

import numpy as np

from ...errors import LimitError
from . import rules as D

OPEN, OPENABLE, SHUT = 0, 1, 2
_DOOR_WORDS = ("open", "openable", "shut")
#: Stop reason names by code (``Moves.stop``).
STOP_REASONS = (None, "grapple", "ice", "grappled")
STOP_GRAPPLE, STOP_ICE, STOP_GRAPPLED = 1, 2, 3
SIDE_CODE = {"hero": 0, "monster": 1}
# a jump across k jumpable squares: 1 to take off, 3 per further square, 2 to land = 3k
JUMP_TAKE_OFF, JUMP_OVER, JUMP_LAND = 1, 3, 2
#: Terrains that make some step of a walker (a figure that does not fly) dearer than
#: 1 MP: entering a tree (2), climbing out of a pit (2); and of a walker that jumps
#: (one square, or any with option ``large_jumps``): jumping across pits and ice (3k).
DEAR_FOR_WALKERS = frozenset({"tree", "pit"})
DEAR_FOR_JUMPERS = DEAR_FOR_WALKERS | D.JUMPABLE


def door_states(door: "D.Door", is_open: bool, unrevealed: bool, rune_keys) -> tuple:
    """(hero's, monster's) state of ``door``: OPEN, OPENABLE (closed; the side may
    open it, 2 MP) or SHUT (closed for good: a hero lacks its rune key, a monster
    opens no rune door and none that leads to an unrevealed area)."""
    if is_open:
        return OPEN, OPEN
    return (OPENABLE if door.rune is None or door.rune in rune_keys else SHUT,
            OPENABLE if door.rune is None and not unrevealed else SHUT)


#: One lock for what positions of a dungeon share (the static data, its kind graphs and
#: their caches, the rules' door-state scratch).
_STATIC_LOCK = threading.RLock()


@contextlib.contextmanager
def _gc_paused():
    """Python's cyclic garbage collector paused for the block, then as it was: reading a
    board and building a graph allocate up to millions of small tuples and sets, none in
    a cycle, and the collector's passes over them cost more than the work itself (3x on
    a graph of many doors)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


#: Most squares in the box round a Descent board (its lookup grid; see docs/descent.md).
GRID_MAX = 1 << 22
_TERRAIN_CODE = {t: i for i, t in enumerate(D.TERRAINS)}
_OFF = 255                                   # terrain code of an off-board square
_PAD = 4                                     # off-board margin round the grid


def _codes(names) -> np.ndarray:
    """bool[256]: which terrain codes are in ``names``."""
    out = np.zeros(256, np.bool_)
    out[[_TERRAIN_CODE[t] for t in names]] = True
    return out


_IS_OBSTACLE = _codes(D.OBSTACLES)
_IS_JUMPABLE = _codes(D.JUMPABLE)
_IS_TREE = _codes(("tree",))
_IS_PIT = _codes(("pit",))
_IS_ICE = _codes(("ice",))
_WALKABLE = ~(_codes(D.OBSTACLES | {"lava"}))
_WALKABLE[_OFF] = False
_ON_BOARD = np.ones(256, np.bool_)
_ON_BOARD[_OFF] = False


class _Grid:
    """The dungeon as flat arrays over its box with a margin of ``_PAD`` off-board
    squares (position ``p = (y - y0) * W + (x - x0)``): ``node`` int64 (square index or
    -1), ``code`` uint8 terrain code (255 off the board), walls and doors on the side
    right of (``wr``, ``dr``) and below (``wd``, ``dd``) each position (doors: door index
    or -1), and ``pos`` int64[NS] of each square. Built once per dungeon (numpy, no
    Python per square)."""

    def __init__(self, st):
        d = st.dungeon
        xy = st.coords[:st.ns].astype(np.int64)
        lo = xy.min(axis=0) - _PAD
        span = xy.max(axis=0) - lo + 1 + _PAD
        self.W, self.H = int(span[0]), int(span[1])
        if self.W * self.H > GRID_MAX:
            raise LimitError(
                f"the board's squares spread over a {self.W - 2 * _PAD}x"
                f"{self.H - 2 * _PAD} box; a Descent board must fit a box of at most "
                f"{GRID_MAX} squares (its {st.ns} squares closer together)")
        self.x0, self.y0 = int(lo[0]), int(lo[1])
        W = self.W
        self.pos = (xy[:, 1] - self.y0) * W + (xy[:, 0] - self.x0)
        size = self.W * self.H
        self.node = np.full(size, -1, np.int64)
        self.node[self.pos] = np.arange(st.ns)
        self.code = np.full(size, _OFF, np.uint8)
        self.code[self.pos] = np.fromiter((_TERRAIN_CODE[t] for t in d.terrain.values()),
                                          np.uint8, st.ns)
        self.wr = np.zeros(size, np.bool_)
        self.wd = np.zeros(size, np.bool_)
        self.dr = np.full(size, -1, np.int32)
        self.dd = np.full(size, -1, np.int32)
        for (a, b) in d.walls:
            if a in d.terrain and b in d.terrain:      # else the map's edge: a wall
                self._mark(a, b, self.wr, self.wd, True)
        for k, door in enumerate(d.doors):
            for a, b in door.sides:
                self._mark(a, b, self.dr, self.dd, k)

    def _mark(self, a, b, right, down, value):
        p = (a[1] - self.y0) * self.W + (a[0] - self.x0)
        (right if a[1] == b[1] else down)[p] = value

    def at(self, x, y) -> int:
        """Position of square (x, y) (in the box or not)."""
        return (y - self.y0) * self.W + (x - self.x0)


def _cross(grid: _Grid, c, dx: int, dy: int, walkable, corner: bool):
    """Squares at positions ``c`` (any shape) each moving by (dx, dy): (legal, doors):
    bool arrays of c's shape, legal where no wall is crossed (a diagonal passes through
    a grid corner: legal when one way round it, via either orthogonal square, crosses
    no wall; without corner cutting both ways must be open and both squares passable),
    doors where a door lies on a side examined (its price is then a door state's)."""
    W = grid.W
    wr, wd, dr, dd = grid.wr, grid.wd, grid.dr, grid.dd
    if dy == 0:
        p = c if dx == 1 else c - 1
        return ~wr[p], dr[p] >= 0
    if dx == 0:
        p = c if dy == 1 else c - W
        return ~wd[p], dd[p] >= 0
    m1, m2, n = c + dx, c + dy * W, c + dx + dy * W
    h1 = c if dx == 1 else m1               # side c|m1 (horizontal step)
    v1 = m1 if dy == 1 else n              # side m1|n: below m1, or below n
    v2 = c if dy == 1 else m2               # side c|m2
    h2 = m2 if dx == 1 else n               # side m2|n
    on1 = grid.node[m1] >= 0
    on2 = grid.node[m2] >= 0
    r1 = on1 & ~wr[h1] & ~wd[v1]
    r2 = on2 & ~wd[v2] & ~wr[h2]
    doors = (dr[h1] >= 0) | (dd[v1] >= 0) | (dd[v2] >= 0) | (dr[h2] >= 0)
    if corner:
        return r1 | r2, doors
    code = grid.code
    return r1 & r2 & walkable[code[m1]] & walkable[code[m2]], doors


def _sides_examined(c, d):
    """The cell sides a base square ``c`` stepping by ``d`` may cross (both ways round
    the corner for a diagonal)."""
    n = (c[0] + d[0], c[1] + d[1])
    if d[0] == 0 or d[1] == 0:
        return [(c, n)]
    m1, m2 = (n[0], c[1]), (c[0], n[1])
    return [(c, m1), (m1, n), (c, m2), (m2, n)]


class _Sparse(dict):
    """A dict that answers ``default`` for a missing key (without storing it)."""

    __slots__ = ("default",)

    def __init__(self, default):
        dict.__init__(self)
        self.default = default

    def __missing__(self, key):
        return self.default


class _Facts:
    """The placement facts (:meth:`D.Rules.placement`, every door open) of a kind's
    nodes, made on first read: only the nodes whose links are priced in game words
    (those that involve doors) and the ends a caller lists need them."""

    __slots__ = ("g", "got")

    def __init__(self, g):
        self.g = g
        self.got: dict = {}

    def __getitem__(self, u):
        got = self.got.get(u, False)
        if got is not False:
            return got
        g = self.g
        f = None
        if 0 <= u < len(g.fitp) and g.fitp[u]:
            turned = u > g.st.ns
            size = (g.size[1], g.size[0]) if turned else g.size
            rules = g.rules
            with _STATIC_LOCK:           # (the rules' door states are shared scratch)
                saved = rules.door_state
                rules.door_state = ["open"] * len(g.st.dungeon.doors)
                try:
                    f = rules.placement(g.st.squares[u - g.turn_off if turned else u],
                                        size)
                finally:
                    rules.door_state = saved
        self.got[u] = f
        return f
