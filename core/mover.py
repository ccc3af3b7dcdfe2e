"""The mover: the numbers a query needs about the moving figure (no game words here).

Example::

    >>> from movecore import Mover
    >>> m = Mover(terrain_cost=[1, 2, -1], stop_terrain=[1], climb_per_level=1,
    ...           max_climb=2)
    >>> m.allies, m.enemies
    ('pass', 'block')
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Literal, Sequence, TypeAlias

import numpy as np
from numpy.typing import NDArray

from .errors import LimitError, QueryError, describe, is_sequence
from .kernels import _types as T

#: What a figure may do on a cell where another figure stands (see :class:`Mover`).
Occupancy: TypeAlias = Literal["pass", "block", "pass_end"]
OCCUPANCY_MODES = {"pass": T.PASS_NO_END, "block": T.BLOCK, "pass_end": T.PASS_END}


def _check_int(name, value, lo, hi, allow_none=False):
    if value is None and allow_none:
        return value
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool):
        raise QueryError(f"{name} must be an integer; got {describe(value)}")
    if not lo <= value <= hi:
        raise LimitError(f"{name} must lie in [{lo}, {hi}]; got {value}")
    return int(value)


def _int_tuple(name, values, what, lo, hi) -> tuple:
    if not is_sequence(values):
        raise QueryError(f"{name} must be a list of {what}s; got {describe(values)}")
    return tuple(_check_int(what, v, lo, hi) for v in values)


@dataclass(frozen=True, eq=False)
class Mover:
    """How a figure pays for and is limited by the board.

    Args:
        terrain_cost: entry cost per terrain id (index = id), ``-1`` = cannot enter.
            ``None``: every terrain costs 1.
        stop_terrain: terrain ids whose entry ends the move (water, lava).
        climb_per_level: extra cost per level climbed in one step.
        climb_flat: extra cost for any climb, whatever its size.
        max_climb: most levels one step may climb (``None`` = unlimited).
        descend_per_level: extra cost per level dropped (0 in every game so far).
        team: the mover's team id (>= 0); occupants of this team are allies.
        allies / enemies: ``"pass"`` (pass, never end: the default for allies),
            ``"block"`` (neither: the default for enemies) or ``"pass_end"``.
        links: link kinds the figure may use (``None`` = all kinds).
        corner_cutting: square8 only; ``False`` forbids a diagonal step when either
            orthogonal cell beside it is off the board or cannot be entered.
    """

    terrain_cost: Sequence[int] | NDArray[np.integer] | None = None
    stop_terrain: Iterable[int] = ()
    climb_per_level: int = 0
    climb_flat: int = 0
    max_climb: int | None = None
    descend_per_level: int = 0
    team: int = 0
    allies: Occupancy = "pass"
    enemies: Occupancy = "block"
    links: Iterable[int] | None = None
    corner_cutting: bool = True

    def __post_init__(self) -> None:
        # Validate once, at construction: a Mover that exists is valid.
        if self.terrain_cost is not None:
            tc = np.asarray(self.terrain_cost)
            if tc.ndim != 1 or tc.size == 0 or not np.issubdtype(tc.dtype, np.integer) or \
                    (not isinstance(self.terrain_cost, np.ndarray)
                     and any(isinstance(v, (bool, np.bool_)) for v in self.terrain_cost)):
                # (a list holding True would become the integer array [1, ...])
                raise QueryError(f"terrain_cost must be a non-empty list of integers; got "
                                 f"{describe(self.terrain_cost)}")
            if tc.min() < -1 or tc.max() > T.MAX_COST:
                bad = tc[(tc < -1) | (tc > T.MAX_COST)][0]
                raise LimitError(f"terrain cost {bad} is outside [-1, {T.MAX_COST}] "
                                 f"(-1 = cannot enter)")
        # Iterables become tuples: checked once and read again later (a generator would
        # be spent by the check).
        object.__setattr__(self, "stop_terrain", _int_tuple("stop_terrain", self.stop_terrain,
                                                            "terrain id", 0, 1 << 15))
        _check_int("climb_per_level", self.climb_per_level, 0, T.MAX_CLIMB_COST)
        _check_int("climb_flat", self.climb_flat, 0, T.MAX_CLIMB_COST)
        _check_int("descend_per_level", self.descend_per_level, 0, T.MAX_CLIMB_COST)
        _check_int("max_climb", self.max_climb, 0, 2 * T.MAX_HEIGHT, allow_none=True)
        _check_int("team", self.team, 0, (1 << 31) - 1)
        for name in ("allies", "enemies"):
            mode = getattr(self, name)
            if not isinstance(mode, str) or mode not in OCCUPANCY_MODES:
                raise QueryError(f"{name} must be one of {sorted(OCCUPANCY_MODES)}; got "
                                 f"{describe(mode)}")
        if self.links is not None:
            object.__setattr__(self, "links",
                               _int_tuple("links", self.links, "link kind", 0, 62))
        if not isinstance(self.corner_cutting, (bool, np.bool_)):
            raise QueryError(f"corner_cutting must be True or False; got "
                             f"{describe(self.corner_cutting)}")
        object.__setattr__(self, "_packed", {})

    def terrain_rule(self, n_terrain: int) -> NDArray[np.int32]:
        """int32[max(n_terrain, len(table)), 2]: (entry cost, TERRAIN_* bits) per id.

        Rows past the given table read "cannot enter" (queries refuse a board whose
        terrain ids run past ``terrain_cost``, at the boundary: ``reach.prepare``)."""
        cache = self._packed
        if n_terrain not in cache:
            if self.terrain_cost is None:
                size = max(n_terrain, max(self.stop_terrain, default=-1) + 1)
                rule = np.zeros((size, 2), T.INDEX)
                rule[:, 0] = 1
            else:
                tc = np.asarray(self.terrain_cost, dtype=T.INDEX)
                size = max(n_terrain, len(tc), max(self.stop_terrain, default=-1) + 1)
                rule = np.zeros((size, 2), T.INDEX)
                rule[:, 0] = T.IMPASSABLE
                rule[: len(tc), 0] = tc
            for t in self.stop_terrain:
                rule[t, 1] |= T.TERRAIN_STOP
            cache[n_terrain] = rule
        return cache[n_terrain]

    @property
    def link_mask(self) -> int:
        if self.links is None:
            return (1 << 63) - 1
        m = 0
        for k in self.links:
            m |= 1 << int(k)
        return m
