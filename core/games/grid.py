"""The generic game ``"grid"``: costs, heights, stop cells, links and provoke tokens given
directly as numbers. It is the reference vocabulary of the scenario format v1.

Scenario::

    {"game": "grid",
     "board": {"grid": "hex" | "square4" | "square8",
               "cells": [{"at": [q, r], "cost": 1, "height": 0, "stop": false}, ...],
               "links": [{"between": [[q, r], [q, r]], "cost": 1}, ...]},
     "options": {"climb_per_level": 1, "climb_flat": 0, "max_climb": null},
     "figures": [{"id": "a", "team": "red", "at": [q, r]}, ...],
     "query": {"figure": "a", "budget": 6, "paths": false, "provoke": [[q, r], ...]}}

Rules: entering a cell costs ``cost + climb_per_level * max(0, rise) + climb_flat *
(rise > 0)``; ``cost: -1`` cannot be entered; a rise above ``max_climb`` is not allowed
(null = unlimited). ``stop: true`` ends the move on entry. A link is two-way and costs its
own ``cost``. Figures of the mover's team may be passed but not ended on; other teams
block. A provoke token's cell cannot be entered, and a step from a cell adjacent to a token
to another cell adjacent to the same token ends the move there (a token may stand off the
board: the cells next to it still feel it).

Result: ``{"figure": id, "ends": [{"at": [q, r], "cost": c, "stopped": bool,
"path": [[q, r], ...]}]}``, one entry per legal end (the start at cost 0), ordered by cost
then coordinates; ``path`` (start to end inclusive) only when ``query.paths`` is true.
"""
from __future__ import annotations

import numpy as np

from ..board import GRID_KINDS, Board, Link
from ..errors import BoardError, PlacementError, QueryError
from ..kernels import _types as T
from ..mover import Mover
from ..reach import reach
from ..scenario import (as_coord, expect_keys, expect_object, get_bool, get_coord, get_int,
                        get_list, get_str, register_game)
from ._common import (coord_list, end_order, find_figure, occupancy, read_figures,
                      team_numbers, token_masks)


def build_board(spec) -> tuple[Board, list[int]]:
    """Board of a grid scenario, and the terrain cost table (terrain id = cost class)."""
    spec = expect_object(spec, "board")
    expect_keys(spec, "board", ("grid", "cells", "links"), required=("grid", "cells"))
    grid = get_str(spec, "grid", "board", GRID_KINDS)
    cells = get_list(spec, "cells", "board")
    if not cells:
        raise BoardError("board.cells is empty; a board needs at least one cell")
    coords, costs, heights, flags = [], [], [], []
    for i, c in enumerate(cells):
        w = f"board.cells[{i}]"
        c = expect_object(c, w)
        expect_keys(c, w, ("at", "cost", "height", "stop"), required=("at",))
        coords.append(get_coord(c, "at", w))
        costs.append(get_int(c, "cost", w, 1, lo=-1, hi=T.MAX_COST))
        heights.append(get_int(c, "height", w, 0, lo=-T.MAX_HEIGHT, hi=T.MAX_HEIGHT))
        flags.append(T.CELL_STOP if get_bool(c, "stop", w, False) else 0)
    table = sorted(set(costs))
    terrain = [table.index(c) for c in costs]
    if grid == "hex":
        board = Board.hex(coords, terrain=terrain, height=heights, flags=flags)
    else:
        board = Board.square_cells(coords, neighbours=int(grid[-1]), terrain=terrain,
                                   elevation=heights, flags=flags)
    links = []
    for i, ln in enumerate(get_list(spec, "links", "board", [])):
        w = f"board.links[{i}]"
        ln = expect_object(ln, w)
        expect_keys(ln, w, ("between", "cost"), required=("between",))
        ends = get_list(ln, "between", w)
        if len(ends) != 2:
            raise BoardError(f"{w}.between must list two cells; got {len(ends)}")
        a, b = (board.find(as_coord(e, f"{w}.between[{j}]")) for j, e in enumerate(ends))
        if a < 0 or b < 0:
            raise BoardError(f"{w} links {ends}: both cells must be on the board")
        links.append(Link(a, b, get_int(ln, "cost", w, 1, lo=0, hi=T.MAX_COST)))
    if links:
        board = board.with_links(links)
    return board, table


@register_game("grid")
def solve_grid(scenario: dict) -> dict:
    expect_keys(scenario, "scenario", ("game", "board", "options", "figures", "query"),
                required=("board", "figures", "query"))
    board, table = build_board(scenario["board"])
    opts = expect_object(scenario.get("options", {}), "options")
    expect_keys(opts, "options", ("climb_per_level", "climb_flat", "max_climb"))
    mover_numbers = dict(
        terrain_cost=table,
        climb_per_level=get_int(opts, "climb_per_level", "options", 1, lo=0,
                                hi=T.MAX_CLIMB_COST),
        climb_flat=get_int(opts, "climb_flat", "options", 0, lo=0, hi=T.MAX_CLIMB_COST),
        max_climb=get_int(opts, "max_climb", "options", None, lo=0,
                          hi=2 * T.MAX_HEIGHT, allow_none=True))
    figures = read_figures(board, scenario["figures"])
    for f in figures:
        if table[board.terrain[f.cell]] < 0:
            raise PlacementError(f"figure {f.id!r} stands on {list(board.coord(f.cell))}, "
                                 f"a cell that cannot be entered (cost -1)")
    query = expect_object(scenario["query"], "query")
    expect_keys(query, "query", ("figure", "budget", "paths", "provoke"),
                required=("figure", "budget"))
    mover_fig = find_figure(figures, query["figure"])
    budget = get_int(query, "budget", "query", lo=0, hi=T.MAX_BUDGET)
    want_paths = get_bool(query, "paths", "query", False)
    teams = team_numbers(figures)
    occ = occupancy(board, figures, teams, exclude=mover_fig)
    token_at = [as_coord(t, f"query.provoke[{i}]")
                for i, t in enumerate(get_list(query, "provoke", "query", []))]
    token_cells = [c for c in (board.find(t) for t in token_at) if c >= 0]
    if mover_fig.cell in token_cells:
        raise PlacementError(f"a provoke token stands on the moving figure at "
                             f"{list(board.coord(mover_fig.cell))}")
    zoc = token_masks(board, token_at) if token_at else None
    qflags = None
    if token_cells:
        qflags = np.zeros(board.n_cells, np.uint8)
        qflags[token_cells] = T.CELL_BLOCKED
    mover = Mover(team=teams[mover_fig.team], **mover_numbers)
    r = reach(board, mover, mover_fig.cell, budget, occupant=occ, cell_flags=qflags,
              zoc=zoc)
    ends = []
    for row in end_order(board, r.cells, r.costs):
        cell = int(r.cells[row])
        e = {"at": list(board.coord(cell)), "cost": int(r.costs[row]),
             "stopped": bool(r.stopped[row])}
        if want_paths:
            e["path"] = coord_list(board, r.path(cell))
        ends.append(e)
    return {"figure": mover_fig.id, "ends": ends}
