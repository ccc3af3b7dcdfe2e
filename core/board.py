"""The packed board: cells, geometry, static layers, edges and links, built once.

A :class:`Board` numbers its cells ``0..N-1`` in the order they were given and keeps
every layer as a flat NumPy array, ready for the kernels. Boards are immutable; the
``with_*`` and :meth:`Board.extend` methods return new boards that share what did not
change (cell indices stay valid across them).

Example::

    >>> from movecore import Board
    >>> b = Board.hex([(0, 0), (1, 0), (2, 0)], height=[0, 2, 0])
    >>> b.n_cells, b.kind, b.index((1, 0))
    (3, 'hex', 1)
    >>> b.neighbours(1).tolist()   # cell indices, -1 = no cell that way
    [2, -1, -1, 0, -1, -1]
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence, TypeAlias

import numpy as np
from numpy.typing import ArrayLike

from .errors import BoardError, LimitError, describe, is_sequence
from .kernels import _types as T

#: Direction vectors per grid kind. Column d of the neighbour table is direction d, and
#: the opposite direction is (d + K/2) % K.
DIRECTIONS: dict[str, tuple[tuple[int, int], ...]] = {
    # axial (q, r): E, NE, NW, W, SW, SE
    "hex": ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)),
    # (x, y), y down
    "square4": ((1, 0), (0, 1), (-1, 0), (0, -1)),
    "square8": ((1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)),
}
GRID_KINDS = tuple(DIRECTIONS)


def _diag_sides(kind: str) -> np.ndarray:
    """int32[K, 2]: for a diagonal direction, the two orthogonal directions it passes."""
    dirs = DIRECTIONS[kind]
    out = np.full((len(dirs), 2), -1, dtype=T.INDEX)
    if kind == "square8":
        for d, (dx, dy) in enumerate(dirs):
            if dx and dy:
                out[d] = (dirs.index((dx, 0)), dirs.index((0, dy)))
    return out


def _as_int_array(values, n: int, name: str, default: int, lo: int, hi: int,
                  dtype) -> np.ndarray:
    if values is None:
        return np.full(n, default, dtype=dtype)
    arr = np.asarray(values)
    if arr.shape != (n,):
        raise BoardError(f"{name} must have one value per cell, shape ({n},); got shape "
                         f"{arr.shape}")
    if arr.size and not np.issubdtype(arr.dtype, np.integer):
        if not np.issubdtype(arr.dtype, np.bool_):
            raise BoardError(f"{name} must hold integers; got dtype {arr.dtype}")
    if arr.size and (arr.min() < lo or arr.max() > hi):
        bad = arr[(arr < lo) | (arr > hi)][0]
        raise LimitError(f"{name} value {bad} is outside the supported range [{lo}, {hi}]")
    return np.ascontiguousarray(arr, dtype=dtype)


def _pack_layers(n: int, terrain, height, flags) -> np.ndarray:
    """int32[n, 3] (terrain id, height, flag bits) from per-cell values (None = default)."""
    cell_data = np.empty((n, 3), dtype=T.INDEX)
    cell_data[:, 0] = _as_int_array(terrain, n, "terrain", 0, 0, 1 << 15, T.INDEX)
    cell_data[:, 1] = _as_int_array(height, n, "height", 0, -T.MAX_HEIGHT, T.MAX_HEIGHT,
                                    T.INDEX)
    cell_data[:, 2] = _as_int_array(flags, n, "flags", 0, 0, 255, T.INDEX)
    return cell_data


@dataclass(frozen=True, eq=False)
class Link:
    """A non-geometric move between two cells (portal, stairs, pit jump), both ways.

    ``cost`` is the whole price of the move (no terrain or climb added); ``kind`` is a
    small id (0..62) a mover may allow or forbid (``Mover.links``).
    """

    a: int
    b: int
    cost: int = 1
    kind: int = 0
    two_way: bool = True


#: A per-cell layer: one integer per cell (a list or an array), or None for the default.
Layer: TypeAlias = ArrayLike | None


def _items(values, name: str) -> list:
    """``links`` / ``edges`` as a list (``None``: none); BoardError if not a collection."""
    if values is None:
        return []
    if not is_sequence(values):
        raise BoardError(f"{name} must be a list; got {describe(values)}")
    return list(values)


@dataclass(frozen=True, eq=False)
class Board:
    """A packed board. Build it with :meth:`hex`, :meth:`square`, :meth:`square_cells` or
    :meth:`graph`.

    Attributes (all read-only NumPy arrays):
        kind:      ``"hex"``, ``"square4"``, ``"square8"`` or ``"graph"``.
        coords:    int32[N, 2], axial (q, r) or (x, y) of each cell.
        nbr:       int32[N, K], neighbour per direction, -1 = none.
        cell_data: int32[N, 3], (terrain id >= 0, height, flag bits CELL_*).
        edges:     int32[N, K, 2], (extra cost >= 0, EDGE_* bits) per side; shape (0, K, 2)
                   when no side has anything.
        link_ptr, link_data: CSR of extra links, int32[N + 1] and int32[L, 3]
                   (destination, cost, kind).
    """

    kind: str
    coords: np.ndarray
    nbr: np.ndarray
    cell_data: np.ndarray
    edges: np.ndarray
    link_ptr: np.ndarray
    link_data: np.ndarray
    diag_sides: np.ndarray
    _origin: tuple
    _lookup: np.ndarray
    _cache: dict = field(default_factory=dict, repr=False)

    def __getstate__(self) -> dict:
        """Pickled without ``_cache`` (prepared queries, packings: made again when
        asked)."""
        return {k: v for k, v in self.__dict__.items() if k != "_cache"}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self.__dict__["_cache"] = {}

    # ------------------------------------------------------------------ building
    @classmethod
    def hex(cls, coords: Iterable[Sequence[int]], *, terrain: Layer = None,
            height: Layer = None, flags: Layer = None, links: Iterable[Link] = (), edges: Iterable[Mapping] = ()) -> "Board":
        """A hex board from any set of axial ``(q, r)`` coordinates.

        ``terrain`` (ids >= 0), ``height`` and ``flags`` (``CELL_*`` bits) give one value
        per cell in the order of ``coords``. ``links`` are :class:`Link` between cell
        indices; ``edges`` are dicts ``{"between": (a, b), "cost": c, "blocked": bool,
        "stop": bool}`` on the side shared by two adjacent cells (indices), both ways.
        """
        return cls._build("hex", coords, terrain, height, flags, links, edges)

    @classmethod
    def square(cls, width: int, height: int, *, neighbours: int = 4, terrain: Layer = None,
               elevation: Layer = None, flags: Layer = None, links: Iterable[Link] = (),
               edges: Iterable[Mapping] = ()) -> "Board":
        """A full ``width x height`` square board; cell ``(x, y)`` has index ``y*width+x``.

        ``elevation`` is the per-cell height (``height`` names the board size here).
        """
        for name, v in (("width", width), ("height", height)):
            if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v < 1:
                raise BoardError(f"square board {name} must be an integer >= 1; got "
                                 f"{describe(v)}")
        if width * height > T.MAX_CELLS:
            raise LimitError(f"a {width}x{height} board has {width * height} cells; at most "
                             f"{T.MAX_CELLS} are supported")
        ys, xs = np.divmod(np.arange(width * height), width)
        coords = np.stack([xs, ys], axis=1)
        return cls.square_cells(coords, neighbours=neighbours, terrain=terrain,
                                elevation=elevation, flags=flags, links=links, edges=edges)

    @classmethod
    def square_cells(cls, coords: Iterable[Sequence[int]], *, neighbours: int = 4,
                     terrain: Layer = None, elevation: Layer = None, flags: Layer = None,
                     links: Iterable[Link] = (),
                     edges: Iterable[Mapping] = ()) -> "Board":
        """A square board from a list of ``(x, y)`` cells, 4- or 8-neighbour."""
        if type(neighbours) is not int or neighbours not in (4, 8):
            raise BoardError(f"square boards have 4 or 8 neighbours; got "
                             f"{describe(neighbours)}")
        return cls._build(f"square{neighbours}", coords, terrain, elevation, flags, links,
                          edges)

    @classmethod
    def _build(cls, kind, coords, terrain, height, flags, links, edges) -> "Board":
        if kind not in DIRECTIONS:
            raise BoardError(f"unknown grid {describe(kind)}; expected one of {GRID_KINDS}")
        xy = cls._check_coords(coords)
        n = len(xy)
        cell_data = _pack_layers(n, terrain, height, flags)
        origin, lookup = cls._make_lookup(xy)
        nbr = cls._make_nbr(kind, xy, origin, lookup)
        K = nbr.shape[1]
        board = cls(kind, xy, nbr, cell_data, np.zeros((0, K, 2), T.INDEX),
                    np.zeros(n + 1, T.INDEX), np.zeros((0, 3), T.INDEX), _diag_sides(kind),
                    origin, lookup)
        edges = _items(edges, "edges")
        links = _items(links, "links")
        if edges:
            board = board.with_edges(edges)
        if links:
            board = board.with_links(links)
        return board

    @classmethod
    def graph(cls, nbr: ArrayLike, *, coords: ArrayLike | None = None, terrain: Layer = None,
              height: Layer = None, flags: Layer = None, links: Iterable[Link] = (), edges: Iterable[Mapping] = ()) -> "Board":
        """A board over an explicit neighbour table ``nbr[N, K]`` (int, -1 = none).

        For graphs that are not grids (corridors, room graphs) and for *placement
        graphs*: multi-cell figures searched as states (a two-space figure's (lead,
        trail) pairs, a large monster's anchors), so that they run through the same
        kernel as single cells. ``coords`` default to ``(i, 0)``; they must be unique.
        Column d need not mean a geometric direction.

        >>> g = Board.graph([[1, -1], [2, 0], [-1, 1]])   # a corridor c0 - c1 - c2
        >>> g.kind, g.n_cells, g.neighbours(1).tolist()
        ('graph', 3, [2, 0])
        """
        try:
            table = np.asarray(nbr)
        except Exception as exc:
            raise BoardError(f"nbr must be an integer table of shape (N, K); got "
                             f"{describe(nbr)}") from exc
        if table.ndim != 2 or table.shape[0] == 0 or table.shape[1] == 0 or \
                not np.issubdtype(table.dtype, np.integer):
            raise BoardError(f"nbr must be an integer table of shape (N, K) with N, K >= 1; "
                             f"got shape {table.shape}")
        n, k = table.shape
        if table.min() < -1 or table.max() >= n:
            raise BoardError(f"nbr entries must be cell indices 0..{n - 1} or -1")
        xy = cls._check_coords(np.stack([np.arange(n), np.zeros(n, np.int64)], axis=1)
                               if coords is None else coords)
        if len(xy) != n:
            raise BoardError(f"coords must give one pair per row of nbr ({n}); got {len(xy)}")
        cell_data = _pack_layers(n, terrain, height, flags)
        origin, lookup = cls._make_lookup(xy)
        board = cls("graph", xy, np.ascontiguousarray(table, dtype=T.INDEX), cell_data,
                    np.zeros((0, k, 2), T.INDEX), np.zeros(n + 1, T.INDEX),
                    np.zeros((0, 3), T.INDEX), np.full((k, 2), -1, T.INDEX), origin, lookup)
        edges, links = _items(edges, "edges"), _items(links, "links")
        if edges:
            board = board.with_edges(edges)
        if links:
            board = board.with_links(links)
        return board

    @staticmethod
    def _check_coords(coords) -> np.ndarray:
        try:
            seq = list(coords) if not isinstance(coords, np.ndarray) else coords
            xy = np.asarray(seq)
        except Exception as exc:  # ragged lists and the like
            raise BoardError(f"cell coordinates must be pairs of integers; got "
                             f"{describe(coords)}") from exc
        if xy.dtype != bool and not isinstance(seq, np.ndarray) and any(
                isinstance(v, (bool, np.bool_)) for p in seq
                for v in (p if isinstance(p, (list, tuple)) else ())):
            raise BoardError(f"cell coordinates must be pairs of integers, not booleans; got "
                             f"{describe(seq)}")   # True would read as 1: a wrong cell
        if xy.size == 0:
            raise BoardError("a board needs at least one cell; got no coordinates")
        if xy.ndim != 2 or xy.shape[1] != 2 or not np.issubdtype(xy.dtype, np.integer):
            raise BoardError(f"cell coordinates must be pairs of integers, shape (N, 2); got "
                             f"{describe(xy.tolist())}")
        if len(xy) > T.MAX_CELLS:
            raise LimitError(f"{len(xy)} cells; at most {T.MAX_CELLS} are supported")
        # compared, not np.abs'd: abs(-2**63) overflows int64 to a negative number
        off = ((xy < -(1 << 20)) | (xy > (1 << 20))).any(axis=1)
        if off.any():
            raise LimitError(f"coordinates must lie within +-{1 << 20}; got "
                             f"{xy[off.argmax()].tolist()}")
        lo = xy.min(axis=0)
        span = xy.max(axis=0) - lo + 1
        if int(span[0]) * int(span[1]) > 4 * T.MAX_CELLS:
            raise LimitError(f"cells spread over a {span[0]}x{span[1]} box; boards must fit "
                             f"a box of at most {4 * T.MAX_CELLS} positions")
        keys = (xy[:, 0] - lo[0]).astype(np.int64) * int(span[1]) + (xy[:, 1] - lo[1])
        uniq, first, counts = np.unique(keys, return_index=True, return_counts=True)
        if (counts > 1).any():
            dup = xy[first[np.argmax(counts > 1)]].tolist()
            raise BoardError(f"duplicate cell {dup}: every coordinate may appear once")
        return np.ascontiguousarray(xy, dtype=T.INDEX)

    @staticmethod
    def _make_lookup(xy):
        lo = xy.min(axis=0)
        span = xy.max(axis=0) - lo + 1
        lookup = np.full((int(span[0]), int(span[1])), -1, dtype=T.INDEX)
        lookup[xy[:, 0] - lo[0], xy[:, 1] - lo[1]] = np.arange(len(xy), dtype=T.INDEX)
        return (int(lo[0]), int(lo[1])), lookup

    @staticmethod
    def _lookup_many(origin, lookup, xy) -> np.ndarray:
        i = xy[:, 0] - origin[0]
        j = xy[:, 1] - origin[1]
        ok = (i >= 0) & (i < lookup.shape[0]) & (j >= 0) & (j < lookup.shape[1])
        out = np.full(len(xy), -1, dtype=T.INDEX)
        out[ok] = lookup[i[ok], j[ok]]
        return out

    @classmethod
    def _make_nbr(cls, kind, xy, origin, lookup) -> np.ndarray:
        dirs = DIRECTIONS[kind]
        nbr = np.empty((len(xy), len(dirs)), dtype=T.INDEX)
        for d, (dx, dy) in enumerate(dirs):
            nbr[:, d] = cls._lookup_many(origin, lookup, xy + np.array([dx, dy]))
        return nbr

    # ------------------------------------------------------------------ variants
    def with_edges(self, edges: Iterable[Mapping], *, replace: bool = False) -> "Board":
        """A board whose sides carry extra cost / blocking / stop flags.

        Each item: ``{"between": (a, b), "cost": 0, "blocked": False, "stop": False}``
        with ``a`` and ``b`` adjacent cell indices; it applies to both directions, or to
        the step ``a -> b`` only with ``"one_way": True``.
        Values add to what the board already has unless ``replace=True``.
        """
        K = self.nbr.shape[1]
        n = self.n_cells
        arr = np.zeros((n, K, 2), T.INDEX) if (replace or self.edges.shape[0] == 0) \
            else self.edges.copy()
        for item in _items(edges, "edges"):
            unknown = sorted(set(item) - {"between", "cost", "blocked", "stop", "one_way"}) \
                if isinstance(item, Mapping) else []
            if unknown:   # a typo would leave the side as it was, silently
                raise BoardError(f"edge {describe(item)}: unknown key {unknown[0]!r}; "
                                 f"expected 'between', 'cost', 'blocked', 'stop', 'one_way'")
            for key in ("blocked", "stop", "one_way") if isinstance(item, Mapping) else ():
                if not isinstance(item.get(key, False), (bool, np.bool_)):
                    raise BoardError(f"edge {key!r} must be true or false; got "
                                     f"{describe(item[key])}")
            try:
                a, b = (int(x) for x in item["between"])
            except Exception as exc:
                raise BoardError(f"an edge needs 'between': [a, b] with two cell indices; got "
                                 f"{describe(item)}") from exc
            for c in (a, b):
                if not 0 <= c < n:
                    raise BoardError(f"edge cell index {c} is not on the board (0..{n - 1})")
            cost = item.get("cost", 0)
            if not isinstance(cost, (int, np.integer)) or isinstance(cost, bool) \
                    or not 0 <= cost <= T.MAX_COST:
                raise LimitError(f"edge cost must be an integer in [0, {T.MAX_COST}]; got "
                                 f"{describe(cost)}")
            bits = (T.EDGE_BLOCKED if item.get("blocked") else 0) | \
                (T.EDGE_STOP if item.get("stop") else 0)
            found = False
            for u, v in ((a, b),) if item.get("one_way") else ((a, b), (b, a)):
                for d in np.flatnonzero(self.nbr[u] == v):
                    arr[u, d, 0] += cost
                    arr[u, d, 1] |= bits
                    found = True
            if not found:
                raise BoardError(f"edge between cells {self.coord(a)} and {self.coord(b)}: "
                                 f"they are not adjacent, so they share no side")
        if not arr.any():
            arr = np.zeros((0, K, 2), T.INDEX)
        return self._replace(edges=arr)

    def with_links(self, links: Iterable[Link], *, replace: bool = False) -> "Board":
        """A board with extra links (added to the existing ones unless ``replace``)."""
        n = self.n_cells
        rows = [] if replace else [
            (u, int(self.link_data[i, 0]), int(self.link_data[i, 1]),
             int(self.link_data[i, 2]))
            for u in range(n) for i in range(self.link_ptr[u], self.link_ptr[u + 1])]
        for ln in _items(links, "links"):
            if not isinstance(ln, Link):
                raise BoardError(f"links must be movecore.Link objects; got {describe(ln)}")
            for c in (ln.a, ln.b):
                if not isinstance(c, (int, np.integer)) or isinstance(c, bool) \
                        or not 0 <= c < n:
                    raise BoardError(f"link cell index {describe(c)} is not on the board "
                                     f"(0..{n - 1})")
            if not isinstance(ln.cost, (int, np.integer)) or isinstance(ln.cost, bool) \
                    or not 0 <= ln.cost <= T.MAX_COST:
                raise LimitError(f"link cost must be an integer in [0, {T.MAX_COST}]; got "
                                 f"{describe(ln.cost)}")
            if not isinstance(ln.kind, (int, np.integer)) or not 0 <= ln.kind <= 62:
                raise BoardError(f"link kind must be an integer in [0, 62]; got "
                                 f"{describe(ln.kind)}")
            if not isinstance(ln.two_way, (bool, np.bool_)):   # "no" would read as True
                raise BoardError(f"link two_way must be True or False; got "
                                 f"{describe(ln.two_way)}")
            rows.append((int(ln.a), int(ln.b), int(ln.cost), int(ln.kind)))
            if ln.two_way:
                rows.append((int(ln.b), int(ln.a), int(ln.cost), int(ln.kind)))
        rows.sort(key=lambda r: r[0])
        ptr = np.zeros(n + 1, T.INDEX)
        data = np.zeros((len(rows), 3), T.INDEX)
        for i, (u, v, c, k) in enumerate(rows):
            ptr[u + 1] += 1
            data[i] = (v, c, k)
        np.cumsum(ptr, out=ptr)
        return self._replace(link_ptr=ptr, link_data=data)

    def with_layers(self, *, terrain: Layer = None, height: Layer = None,
                    flags: Layer = None) -> "Board":
        """A board with some per-cell layers replaced (same cells, same geometry)."""
        cd = self.cell_data
        new = _pack_layers(self.n_cells, *(cd[:, i] if v is None else v
                                           for i, v in enumerate((terrain, height, flags))))
        return self._replace(cell_data=new)

    def extend(self, coords: Iterable[Sequence[int]], *, terrain: Layer = None,
               height: Layer = None, flags: Layer = None) -> "Board":
        """A board with more cells appended (indices ``N..N+M-1``); existing indices,
        layers, edges and links are kept. This is how a revealed tile joins the map."""
        if self.kind == "graph":
            raise BoardError("graph boards cannot be extended by coordinates; build a new "
                             "Board.graph with the larger table")
        new = self._check_coords(coords)
        m = len(new)
        xy = self._check_coords(np.concatenate([self.coords, new]))
        cd = _pack_layers(m, terrain, height, flags)
        origin, lookup = self._make_lookup(xy)
        nbr = self._make_nbr(self.kind, xy, origin, lookup)
        K = nbr.shape[1]
        edges = self.edges
        if edges.shape[0]:
            edges = np.concatenate([edges, np.zeros((m, K, 2), T.INDEX)])
        ptr = np.concatenate([self.link_ptr, np.full(m, self.link_ptr[-1], T.INDEX)])
        return Board(self.kind, xy, nbr, np.concatenate([self.cell_data, cd]), edges, ptr,
                     self.link_data, self.diag_sides, origin, lookup)

    def _replace(self, **changes) -> "Board":
        fields = dict(kind=self.kind, coords=self.coords, nbr=self.nbr,
                      cell_data=self.cell_data, edges=self.edges, link_ptr=self.link_ptr,
                      link_data=self.link_data, diag_sides=self.diag_sides,
                      _origin=self._origin, _lookup=self._lookup)
        fields.update(changes)
        return Board(**fields)

    # ------------------------------------------------------------------ queries
    @property
    def n_cells(self) -> int:
        return int(self.coords.shape[0])

    @property
    def n_directions(self) -> int:
        return int(self.nbr.shape[1])

    @property
    def terrain(self) -> np.ndarray:
        return self.cell_data[:, 0]

    @property
    def height(self) -> np.ndarray:
        return self.cell_data[:, 1]

    @property
    def flags(self) -> np.ndarray:
        return self.cell_data[:, 2]

    def index(self, coord: Sequence[int]) -> int:
        """Cell index of a coordinate; raises :class:`BoardError` if it is off the board."""
        i = self.find(coord)
        if i < 0:
            raise BoardError(f"cell {describe(coord)} is not on the board")
        return i

    def find(self, coord: Sequence[int]) -> int:
        """Cell index of a coordinate, or -1 if it is off the board (never raises on a
        well-formed pair)."""
        try:
            x, y = coord
            if type(x) is not int or type(y) is not int:  # NumPy integers, 2.0, booleans
                if any(isinstance(c, (bool, np.bool_)) or int(c) != c for c in (x, y)):
                    raise TypeError
                x, y = int(x), int(y)
        except Exception as exc:
            raise BoardError(f"a cell is a pair of integers; got {describe(coord)}") from exc
        i, j = x - self._origin[0], y - self._origin[1]
        if 0 <= i < self._lookup.shape[0] and 0 <= j < self._lookup.shape[1]:
            return int(self._lookup[i, j])
        return -1

    def indices(self, coords: ArrayLike) -> np.ndarray:
        """int32 indices of many coordinates (-1 for cells off the board)."""
        xy = np.asarray(coords, dtype=np.int64).reshape(-1, 2)
        return self._lookup_many(self._origin, self._lookup, xy)

    def coord(self, index: int) -> tuple[int, int]:
        """The (q, r) or (x, y) of cell ``index``, as Python ints."""
        q, r = self.coords[index].tolist()     # (7x faster than an int() of each)
        return q, r

    def neighbours(self, index: int) -> np.ndarray:
        """int32[K]: neighbour index per direction (-1 = none)."""
        return self.nbr[index]

    def adjacent(self, a: int, b: int) -> bool:
        return bool((self.nbr[a] == b).any())

    def distance(self, a: Sequence[int], b: Sequence[int]) -> int:
        """Grid distance between two coordinates, ignoring what lies between (hex:
        axial distance; square4: Manhattan; square8: Chebyshev)."""
        dx, dy = int(b[0]) - int(a[0]), int(b[1]) - int(a[1])
        if self.kind == "hex":
            return (abs(dx) + abs(dy) + abs(dx + dy)) // 2
        if self.kind == "graph":
            raise BoardError("graph boards have no coordinate distance; use "
                             "movecore.distance_field")
        if self.kind == "square4":
            return abs(dx) + abs(dy)
        return max(abs(dx), abs(dy))

    def occupancy(self, teams: Mapping[int, int] | None = None) -> np.ndarray:
        """int32[N] occupant layer: ``teams`` maps cell index -> team id (>= 0) or
        ``OCC_WALL``; every other cell is ``OCC_EMPTY``."""
        occ = np.full(self.n_cells, T.OCC_EMPTY, dtype=T.INDEX)
        if teams is None:
            return occ
        if not isinstance(teams, Mapping):
            raise BoardError(f"teams must map cell index -> team id; got {describe(teams)}")
        for cell, team in teams.items():
            if type(cell) is bool or not isinstance(cell, (int, np.integer)) or \
                    not 0 <= cell < self.n_cells:
                raise BoardError(f"occupancy: {describe(cell)} is not a cell index in "
                                 f"[0, {self.n_cells - 1}]")
            if type(team) is bool or not isinstance(team, (int, np.integer)) or \
                    not (0 <= team <= np.iinfo(T.INDEX).max or team == T.OCC_WALL):
                raise BoardError(f"occupancy: cell {cell} has team {describe(team)}; expected "
                                 f"a team id >= 0 or OCC_WALL ({T.OCC_WALL})")
            occ[cell] = team
        return occ

    # cached facts the query wrapper needs in O(1)
    def _fact(self, name):
        c = self._cache
        if name not in c:
            h = self.cell_data[:, 1]
            c["height_span"] = int(h.max() - h.min()) if self.n_cells else 0
            c["max_edge_cost"] = int(self.edges[:, :, 0].max()) if self.edges.shape[0] else 0
            c["max_terrain"] = int(self.cell_data[:, 0].max()) if self.n_cells else 0
            ld = self.link_data
            kc = np.unique(ld[:, 2].astype(np.int64) << 32 | ld[:, 1].astype(np.int64))
            c["link_costs"] = set(zip((kc >> 32).tolist(), (kc & 0xFFFFFFFF).tolist()))
            c["max_link_cost"] = int(ld[:, 1].max()) if len(ld) else 0
        return c[name]
