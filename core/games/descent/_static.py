"""What every position of one Descent dungeon shares (private to
:mod:`movecore.games.descent`): :class:`_Static` (the dungeon, options, square index,
lookup grid and kind graphs) and the cache of recent dungeons' (:func:`_static_for`).
"""
from __future__ import annotations

import numpy as np

from ...kernels import _types as T
from . import rules as D
from ._dungeon import _STATIC_LOCK, _gc_paused, _Grid
from ._kind_graph import _NO_DOORS, _KindGraph

#: Up to this many doors, each kind keeps the memory of every door of the dungeon (one
#: graph per memory radius); with more, a query's graph keeps only the doors its move
#: can reach (``_Static.scoped``: see :meth:`_Static.scoped_kind`), so that doors far
#: from the figure cost nothing.
ALL_DOORS_MAX = 16
#: Door-scoped graphs kept per kind and memory radius (the most recent).
SCOPED_GRAPHS_MAX = 4


class _Static:
    """What every copy of a position shares: the dungeon, options, the square index and
    the kind graphs (each with its boards and prepared queries per door state).

    Positions of the same dungeon and options share one (see :func:`_static_for`): the
    door states and everything else that changes in play live in the position."""

    def __init__(self, dungeon: D.Dungeon, corner_cutting: bool, ice: str,
                 large_turns: str = "all", large_jumps: bool = False,
                 hound_slides: bool = False):
        self.dungeon = dungeon
        self.hound_slides = bool(hound_slides)
        self.corner = bool(corner_cutting)
        self.ice = ice
        self.large_turns = large_turns
        self.large_jumps = bool(large_jumps)
        self.squares = list(dungeon.terrain)            # node s -> (x, y)
        self.index = {c: i for i, c in enumerate(self.squares)}
        self.ns = len(self.squares)
        lo = min(min(c[0] for c in self.squares), min(c[1] for c in self.squares))
        self.lo = lo
        self.town_xy = (lo - 1, lo - 1)                  # the town's coordinate in boards
        self.coords = np.array(self.squares + [self.town_xy], dtype=T.INDEX)
        self.door_index = {door.id: k for k, door in enumerate(dungeon.doors)}
        self.kinds: dict = {}
        self.scoped = len(dungeon.doors) > ALL_DOORS_MAX
        self.scoped_graphs: dict = {}   # (side, w, h, fly, radius) -> recent graphs
        self.query_cache: dict = {}
        # a memory radius this large reaches every node of any kind's graph
        self.radius_cap = 1 << (3 * self.ns + 2).bit_length()
        self.footprints: dict = {}     # (size, anchor) -> squares under the base
        self._grid: "_Grid | None" = _Grid(self)     # (LimitError for a sparse board)
        self._beyond = None

    @property
    def beyond(self) -> tuple:
        """(terrain names, sides that may open a door outside it) of the whole dungeon:
        ``dungeon.beyond`` of a box cut from it, else its own terrains and no door
        outside (its doors are in the door vectors). Decides whether a kind's graph may
        run breadth-first (``_KindGraph._breadth_first``)."""
        b = self._beyond
        if b is None:
            b = self.dungeon.beyond
            if b is None:
                b = (frozenset(self.dungeon.terrain.values()), frozenset())
            self._beyond = b
        return b

    def grid(self) -> "_Grid":
        """The dungeon as flat numpy arrays (built on first use, shared by the kinds)."""
        g = self._grid
        if g is None:
            with _STATIC_LOCK:
                g = self._grid
                if g is None:
                    g = self._grid = _Grid(self)
        return g

    def kind(self, key) -> "_KindGraph":
        """The graph of kind ``key`` = (side, w, h, fly, memory radius); a key without
        the radius means radius 0."""
        if len(key) == 4:
            key = key + (0,)
        g = self.kinds.get(key)
        if g is None:
            with _STATIC_LOCK:
                g = self.kinds.get(key)
                if g is None:
                    with _gc_paused():
                        g = self.kinds[key] = _KindGraph(self, key)
        return g

    def plain_kind(self, key4) -> "_KindGraph":
        """The radius-0 graph of kind ``key4`` = (side, w, h, fly): its placements and
        action ids (with every door's memory, or none where graphs are door-scoped)."""
        return self.kind(key4 + ((0, _NO_DOORS) if self.scoped else (0,)))

    def scoped_kind(self, key4, radius: int, doors: frozenset) -> "_KindGraph":
        """A graph of kind ``key4`` whose door memory (``radius``) covers at least
        ``doors``: a recent one whose doors include them, else one built for them. A
        graph keeping more doors answers as exactly (the memory of a door no move
        reaches is never entered)."""
        if not doors:
            return self.kind(key4 + (0, _NO_DOORS))
        with _STATIC_LOCK:
            recent = self.scoped_graphs.setdefault(key4 + (radius,), [])
            for k, g in enumerate(recent):
                if doors <= g.scope:
                    if k:
                        recent.insert(0, recent.pop(k))
                    return g
            with _gc_paused():
                g = _KindGraph(self, key4 + (radius, doors))
            recent.insert(0, g)
            del recent[SCOPED_GRAPHS_MAX:]
        return g


#: Recent dungeons' static data, so that ``solve()`` of one dungeon again and again (one
#: scenario per move, as callers without a live position do) builds its graphs once.
_STATICS: dict = {}
_STATICS_MAX = 16


def _static_key(dungeon: D.Dungeon, corner: bool, ice: str, large_turns: str = "all",
                large_jumps: bool = False, hound_slides: bool = False):
    """Everything of a dungeon the graphs depend on (not whether doors are open or lead
    to unrevealed areas: those are the position's)."""
    return (tuple(dungeon.terrain.items()), frozenset(dungeon.walls),
            tuple((door.id, door.sides, door.rune) for door in dungeon.doors),
            tuple(dungeon.stairs), tuple(dungeon.glyphs), dungeon.beyond, bool(corner), ice,
            large_turns, bool(large_jumps), bool(hound_slides))


def _static_for(dungeon: D.Dungeon, corner: bool, ice: str,
                large_turns: str = "all", large_jumps: bool = False,
                hound_slides: bool = False) -> _Static:
    key = _static_key(dungeon, corner, ice, large_turns, large_jumps, hound_slides)
    with _STATIC_LOCK:
        st = _STATICS.pop(key, None)
        if st is None:
            with _gc_paused():
                st = _Static(dungeon, corner, ice, large_turns, large_jumps, hound_slides)
        _STATICS[key] = st                 # most recent last
        while len(_STATICS) > _STATICS_MAX:
            del _STATICS[next(iter(_STATICS))]
    return st
