"""Helpers shared by the game vocabularies: figures, provoke masks, JSON output.

Game words stay in the game modules; what is here is bookkeeping every adapter needs.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

import numpy as np

from ..board import Board
from ..errors import LimitError, PlacementError, QueryError, ScenarioError, describe
from ..kernels import _types as T
from ..scenario import as_coord, expect_object, get_id


@dataclass
class Figure:
    """One figure read from a scenario: ``cells`` are board indices (first = lead)."""

    id: Any
    team: Any
    cells: list[int]
    raw: dict = field(default_factory=dict)

    @property
    def cell(self) -> int:
        return self.cells[0]


def read_figures(board: Board, items, where: str = "figures", *, team_key: str = "team",
                 allowed_keys: Iterable[str] = ("id", "team", "at"), max_cells: int = 1,
                 board_word: str = "board", cell_word: str = "cell") -> list[Figure]:
    """Read ``[{"id", team_key, "at"}, ...]``: ids unique, every cell on the board, no two
    figures sharing a cell. ``at`` is one cell or, where ``max_cells`` > 1, a list of up
    to that many cells (lead first). ``board_word`` and ``cell_word`` name the board and
    its cells in messages, in the game's words ("battlefield", "space")."""
    if not isinstance(items, list):
        raise ScenarioError(f"{where} must be a list of figures; got {describe(items)}")
    from ..scenario import expect_keys
    figures: list[Figure] = []
    seen_ids: set = set()
    taken: dict[int, Any] = {}
    for i, raw in enumerate(items):
        w = f"{where}[{i}]"
        raw = expect_object(raw, w)
        expect_keys(raw, w, allowed_keys, required=("id", "at"))
        fid = get_id(raw, "id", w)
        if fid in seen_ids:
            raise ScenarioError(f"duplicate figure id {fid!r} in {where}")
        seen_ids.add(fid)
        team = raw.get(team_key, fid)
        if isinstance(team, bool) or not isinstance(team, (str, int)):
            raise ScenarioError(f"{w}.{team_key} must be a string or integer; got "
                                f"{describe(team)}")
        at = raw["at"]
        if max_cells > 1 and isinstance(at, list) and at and isinstance(at[0], (list, tuple)):
            if len(at) > max_cells:
                raise PlacementError(f"figure {fid!r} stands on {len(at)} {cell_word}s; a "
                                     f"figure takes 1 to {max_cells} {cell_word}s")
            coords = [as_coord(c, f"{w}.at[{j}]") for j, c in enumerate(at)]
        else:
            coords = [as_coord(at, f"{w}.at")]
        cells = []
        for c in coords:
            idx = board.find(c)
            if idx < 0:
                raise PlacementError(f"figure {fid!r} stands on {list(c)}, which is not on "
                                     f"the {board_word}")
            if idx in taken:
                raise PlacementError(f"figures {taken[idx]!r} and {fid!r} both stand on "
                                     f"{list(c)}; one figure per {cell_word}")
            if idx in cells:
                raise PlacementError(f"figure {fid!r} lists {cell_word} {list(c)} twice")
            taken[idx] = fid
            cells.append(idx)
        figures.append(Figure(fid, team, cells, raw))
    return figures


def find_figure(figures: list[Figure], fid, where: str = "query.figure") -> Figure:
    for f in figures:
        if f.id == fid:
            return f
    raise QueryError(f"{where} names figure {fid!r}, which is not in the scenario; known "
                     f"figures: {[f.id for f in figures]}")


def team_numbers(figures: list[Figure]) -> dict[Any, int]:
    """Team name -> small team id (>= 0), in order of first appearance."""
    out: dict[Any, int] = {}
    for f in figures:
        out.setdefault(f.team, len(out))
    return out


def occupancy(board: Board, figures: list[Figure], teams: Mapping[Any, int],
              exclude: Figure | None = None) -> np.ndarray:
    """int32[N] occupant layer with every figure but ``exclude``."""
    occ = np.full(board.n_cells, T.OCC_EMPTY, dtype=T.INDEX)
    for f in figures:
        if f is exclude:
            continue
        occ[f.cells] = teams[f.team]
    return occ


def adjacency_masks(board: Board, token_cells: Iterable[int],
                    what: str = "provoke tokens") -> np.ndarray:
    """uint64[N]: bit i set on the cells adjacent to token i (geometric neighbours).

    With these as ``zoc``, a step between two cells adjacent to the same token stops;
    as ``leave``, leaving a token's neighbourhood costs one penalty per token.
    """
    token_cells = list(token_cells)
    if len(token_cells) > 64:
        raise LimitError(f"{len(token_cells)} {what}; at most 64 are supported per query")
    masks = np.zeros(board.n_cells, dtype=np.uint64)
    for bit, cell in enumerate(token_cells):
        nb = board.nbr[cell]
        masks[nb[nb >= 0]] |= np.uint64(1) << np.uint64(bit)
    return masks


def token_masks(board: Board, token_coords: Iterable, what: str = "provoke tokens"
                ) -> np.ndarray:
    """Like :func:`adjacency_masks`, for tokens given by coordinates; a token may stand
    off the board (its on-board neighbours still feel it)."""
    from ..board import DIRECTIONS
    token_coords = list(token_coords)
    if len(token_coords) > 64:
        raise LimitError(f"{len(token_coords)} {what}; at most 64 are supported per query")
    masks = np.zeros(board.n_cells, dtype=np.uint64)
    for bit, (x, y) in enumerate(token_coords):
        for dx, dy in DIRECTIONS[board.kind]:
            v = board.find((x + dx, y + dy))
            if v >= 0:
                masks[v] |= np.uint64(1) << np.uint64(bit)
    return masks


def end_order(board: Board, cells: np.ndarray, costs: np.ndarray) -> np.ndarray:
    """Row order by cost, then coordinates: a stable, documented order for results."""
    xy = board.coords[cells]
    return np.lexsort((xy[:, 1], xy[:, 0], costs))


def coord_list(board: Board, cells) -> list[list[int]]:
    return [list(board.coord(int(c))) for c in cells]


def lazy_exports(module: str, names: Mapping[str, str]):
    """``(__getattr__, __dir__)`` for a game package (PEP 562): each public name of
    ``names`` (name -> submodule) is imported from ``module.<submodule>`` on its first
    use, so importing the package (its rules: reading a scenario) loads no position,
    reference search or kernel. ``from movecore.games.heroscape import Position`` works
    as before."""
    import importlib
    import sys

    def __getattr__(name: str):
        sub = names.get(name)
        if sub is None:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{module}.{sub}"), name)
        setattr(sys.modules[module], name, value)
        return value

    def __dir__() -> list:
        return sorted(set(vars(sys.modules[module])) | set(names))

    return __getattr__, __dir__
