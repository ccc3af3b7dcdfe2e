"""The common scenario form shared by every game, and its translation to and from each
game's own spelling.

Every game accepts a board in the *common form*::

    {"grid": "hex" | "square4" | "square8",
     "cells": [{"at": [x, y], "terrain": NAME, "level": N, ...game's cell keys}, ...],
     ...game's board keys (links, doors, tiles, ...)}

``level`` is the one word for a cell's height on every game with levels; each game's own
word stays an alias (:data:`LEVEL_ALIASES`). ``grid`` is accepted by every game: where
the game has only one grid it must name that grid (:data:`ONLY_GRID`), otherwise the
game's own switch follows it. A game's shortcut forms (Descent's ``rows``, Tiny Epic
Tactics' ``width``/``height`` rectangle, Mage Knight's ``tiles``) stay shortcuts of it.

:func:`to_native` turns a scenario in the common form into the game's own spelling (what
``solve()`` and ``position()`` call first); :func:`movecore.to_common` (in
:mod:`movecore.tools.convert`) does the reverse, for ``movecore convert``. Both leave what they do not recognise to the game's reader, which
names the bad value.
"""
from __future__ import annotations

from typing import Mapping

from .errors import BoardError, ScenarioError, describe

#: The common word for a cell's level, and each game's own word (an accepted alias).
LEVEL = "level"
LEVEL_ALIASES = {"grid": "height", "heroscape": "level", "tiny_epic_tactics": "elevation"}
#: Games whose board has a single grid: ``board.grid`` must name it.
ONLY_GRID = {"heroscape": "hex", "mage_knight": "hex", "descent": "square8"}
#: Games with a choice of grid and where the choice lives in the game's own spelling.
GRID_CHOICES = {"grid": ("hex", "square4", "square8"),
                "dark_realms": ("hex", "square4", "square8"),
                "tiny_epic_tactics": ("square4", "square8")}


def _is_map(value) -> bool:
    return isinstance(value, dict) or isinstance(value, Mapping)   # dict: the fast test


def _copy_board(scenario: Mapping) -> tuple[dict, dict | None]:
    out = dict(scenario)
    board = scenario.get("board")
    if not isinstance(board, Mapping):
        return out, None
    board = dict(board)
    out["board"] = board
    return out, board


def _cells(board: Mapping) -> list | None:
    cells = board.get("cells")
    return cells if isinstance(cells, list) else None


def _rename_level(cells: list, own: str) -> list:
    """Cells with the common ``level`` spelled as the game's own word ``own``."""
    out = []
    for i, c in enumerate(cells):
        if _is_map(c) and LEVEL in c and own != LEVEL:
            if own in c:
                raise ScenarioError(f"board.cells[{i}] gives both {LEVEL!r} and {own!r} "
                                    f"(its alias); give one")
            c = {(own if k == LEVEL else k): v for k, v in c.items()}
        out.append(c)
    return out


def _check_only_grid(game: str, board: dict) -> None:
    if "grid" not in board:
        return
    grid = board.pop("grid")
    if grid != ONLY_GRID[game]:
        raise BoardError(f"board.grid is {describe(grid)}; a {game} board is always "
                         f"{ONLY_GRID[game]!r} (give {ONLY_GRID[game]!r} or leave it out)")


def to_native(scenario: Mapping) -> Mapping:
    """The scenario in its game's own spelling (the scenario itself when nothing of the
    common form needs translating). Malformed parts are left for the game's reader."""
    game = scenario.get("game")
    if "fields" in scenario:
        fields_wanted(scenario)
        scenario = {k: v for k, v in scenario.items() if k != "fields"}
    board = scenario.get("board")
    if not isinstance(board, Mapping):
        return scenario
    if game in ONLY_GRID:
        needs = "grid" in board
        if game == "heroscape":
            needs = needs or any(_is_map(c) and isinstance(c.get("glyph"), bool)
                                 for c in _cells(board) or ())
        if not needs:
            return scenario
        out, board = _copy_board(scenario)
        _check_only_grid(game, board)
        if game == "heroscape" and _cells(board) is not None:
            board["cells"] = [_heroscape_glyph(c) for c in board["cells"]]
        return out
    if game == "grid":
        cells = _cells(board)
        if cells is None or not any(_is_map(c) and LEVEL in c for c in cells):
            return scenario
        out, board = _copy_board(scenario)
        board["cells"] = _rename_level(cells, LEVEL_ALIASES["grid"])
        return out
    if game == "tiny_epic_tactics":
        return _tet_native(scenario)
    return scenario


def _heroscape_glyph(c):
    """Heroscape glyph ``true`` (an unnamed glyph) / ``false`` (none) as the reader's name
    or null."""
    if _is_map(c) and isinstance(c.get("glyph"), bool):
        c = dict(c)
        c["glyph"] = "glyph" if c["glyph"] else None
    return c


def _tet_native(scenario: Mapping) -> Mapping:
    board = scenario["board"]
    cells = _cells(board)
    leveled = cells is not None and any(_is_map(c) and LEVEL in c for c in cells)
    sized = "width" in board or "height" in board
    if "grid" not in board and not leveled and sized:
        return scenario
    out, board = _copy_board(scenario)
    if "grid" in board:
        grid = board.pop("grid")
        if grid not in GRID_CHOICES["tiny_epic_tactics"]:
            raise BoardError(f"board.grid is {describe(grid)}; a tiny_epic_tactics realm "
                             f"map is 'square4' (or 'square8': options.diagonals)")
        opts = scenario.get("options", {})
        if isinstance(opts, Mapping):
            diag = opts.get("diagonals", grid == "square8")
            if diag != (grid == "square8"):
                raise ScenarioError(f"board.grid is {grid!r} but options.diagonals is "
                                    f"{describe(diag)}; give the grid once")
            if grid == "square8":
                out["options"] = {**opts, "diagonals": True}
    if cells is not None:
        cells = board["cells"] = _rename_level(cells, LEVEL_ALIASES["tiny_epic_tactics"])
    if not sized:
        _tet_size(board, cells)
    return out


def _tet_size(board: dict, cells: list | None) -> None:
    """``width``/``height`` of a realm map given only as rows or cells: the rectangle
    from [0, 0] that the rows or the cells fill (every space listed)."""
    for key in ("terrain", "elevation"):
        rows = board.get(key)
        if isinstance(rows, list) and rows and isinstance(rows[0], (str, list)):
            board["width"], board["height"] = len(rows[0]), len(rows)
            return
    if not cells:
        return      # the reader says what is missing
    xy = set()
    for c in cells:
        at = c.get("at") if _is_map(c) else None
        if not (isinstance(at, list) and len(at) == 2 and all(
                isinstance(v, int) and not isinstance(v, bool) for v in at)):
            return  # the reader names the bad cell
        xy.add((at[0], at[1]))
    xs, ys = [p[0] for p in xy], [p[1] for p in xy]
    if min(xs) < 0 or min(ys) < 0:
        raise BoardError(f"a tiny_epic_tactics realm map is a rectangle of spaces from "
                         f"[0, 0]; board.cells lists {[min(xs), min(ys)]}")
    w, h = max(xs) + 1, max(ys) + 1
    if w * h > 1 << 20:
        return      # the reader raises the LimitError
    missing = [[x, y] for y in range(h) for x in range(w) if (x, y) not in xy]
    if missing:
        raise BoardError(f"a tiny_epic_tactics realm map is a rectangle of spaces from "
                         f"[0, 0] to {[w - 1, h - 1]}; board.cells leaves out {missing[0]}"
                         f"{f' and {len(missing) - 1} more' if len(missing) > 1 else ''}")
    board["width"], board["height"] = w, h


# ---------------------------------------------------------------------- result fields
#: Result fields of the same fact under one spelling across games (``"fields":
#: "common"`` in a scenario adds them; the game's own spelling stays): per game, own
#: field -> common field, in every end and in the result's top level.
RESULT_ALIASES = {
    "heroscape": {"leaving_attacks": "penalty", "leaving_attacks_cost": "penalty_cost",
                  "leaving_attacks_path": "penalty_path", "move": "budget"},
    "descent": {"wounds": "penalty", "wounds_cost": "penalty_cost",
                "wounds_path": "penalty_path", "mp": "budget"},
    "dark_realms": {"traps": "penalty", "traps_cost": "penalty_cost",
                    "traps_path": "penalty_path"},
    "tiny_epic_tactics": {"stopped_by": "stop"},
}
#: Games whose ends give a stop reason ``stop`` (null: free) but no ``stopped`` flag.
_STOP_REASON_GAMES = ("heroscape", "descent")
FIELDS = ("own", "common")


def fields_wanted(scenario: Mapping) -> str:
    """The scenario's ``fields`` (``"own"``, the default, or ``"common"``)."""
    value = scenario.get("fields", "own")
    if value not in FIELDS:
        raise ScenarioError(f"scenario.fields is {describe(value)}; expected one of "
                            f"{list(FIELDS)}")
    return value


def with_common_fields(game: str, result: dict) -> dict:
    """``result`` with the common spelling added beside each game-specific field."""
    aliases = RESULT_ALIASES.get(game, {})

    def add(d: dict) -> dict:
        out = dict(d)
        for own, common in aliases.items():
            if own in d and common not in d:
                out[common] = d[own]
        if game in _STOP_REASON_GAMES and "stop" in d and "stopped" not in d:
            out["stopped"] = d["stop"] is not None
        if "stop" in out and "stopped" not in out and game == "tiny_epic_tactics":
            out["stopped"] = out["stop"] is not None
        return out

    out = add(result)
    for key, value in result.items():
        if isinstance(value, list) and value and isinstance(value[0], dict):
            out[key] = [add(v) for v in value]
        elif isinstance(value, dict):
            out[key] = add(value)
    return out
