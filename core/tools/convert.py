"""A scenario in the common form (``movecore convert FILE``, :func:`movecore.to_common`):
the reverse of :func:`movecore.vocabulary.to_native`, validated by the game's readers.

It sits above the games and the engine: it asks
:func:`movecore.scenario.check_scenario` (the game's ``read_scenario``) to validate, and
reads Descent's and Tiny Epic Tactics' boards with their own readers. Neither solves
nor builds a position: converting loads no kernel (nor numba).
"""
from __future__ import annotations

import copy
from typing import Any, Mapping

from ..vocabulary import LEVEL, ONLY_GRID


def to_common(scenario: Mapping) -> dict:
    """The scenario in the common form (``board.grid`` and ``board.cells`` with
    ``level``), validated by the game's own reader on the way
    (:func:`movecore.scenario.check_scenario`: the typed errors of
    :func:`movecore.solve`, without solving; no kernel loads)."""
    from ..scenario import _READERS, check_scenario
    native = check_scenario(scenario)
    game = native.get("game")
    if game not in _READERS and "query" not in native:
        from ..position import position
        position(native)    # a game registered without a reader: its position reads it
    out = copy.deepcopy(dict(native))     # nothing of the caller's scenario is shared
    if isinstance(scenario, Mapping) and "fields" in scenario:
        out["fields"] = scenario["fields"]
    board = out["board"]
    if game == "grid":
        board["cells"] = [{(LEVEL if k == "height" else k): v for k, v in c.items()}
                          for c in board["cells"]]
    elif game == "heroscape" or game == "mage_knight":
        out["board"] = {"grid": "hex", **board}
    elif game == "dark_realms":
        opts = dict(native.get("options") or {})
        grid = board.pop("grid", None) or opts.pop("grid", None) or "hex"
        out["board"] = {"grid": grid, **board}
        if "options" in native:
            out["options"] = opts
    elif game == "descent":
        out["board"] = _descent_common(board)
    elif game == "tiny_epic_tactics":
        out["board"] = _tet_common(board, native.get("options") or {})
    return out


def _descent_common(board: dict) -> dict:
    from ..games.descent import read_board
    terrain = read_board(board).terrain
    cells = []
    for (x, y) in sorted(terrain, key=lambda p: (p[1], p[0])):
        c: dict[str, Any] = {"at": [x, y]}
        if terrain[(x, y)] != "floor":
            c["terrain"] = terrain[(x, y)]
        cells.append(c)
    rest = {k: v for k, v in board.items()
            if k not in ("rows", "width", "height", "terrain", "cells")}
    return {"grid": ONLY_GRID["descent"], "cells": cells, **rest}


def _tet_common(board: dict, options: Mapping) -> dict:
    from ..games.tiny_epic_tactics import build_realm
    realm = build_realm(board, dict(options))
    extra = {}
    for c in board.get("cells", []):
        if "portal" in c:
            extra[tuple(c["at"])] = c["portal"]
    cells = []
    for cell in range(realm.board.n_cells):
        x, y = (int(v) for v in realm.board.coord(cell))
        c: dict[str, Any] = {"at": [x, y]}
        if realm.terrain[cell] != "plains":
            c["terrain"] = realm.terrain[cell]
        lv = realm.elevation(cell)
        if lv:
            c[LEVEL] = int(lv)
        if (x, y) in extra:
            c["portal"] = extra[(x, y)]
        cells.append(c)
    cells.sort(key=lambda c: (c["at"][1], c["at"][0]))
    grid = "square8" if options.get("diagonals") else "square4"
    return {"grid": grid, "cells": cells}
