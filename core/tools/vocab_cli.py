"""``movecore schema GAME`` and ``movecore convert FILE``: the published JSON Schema of a
game's scenarios, and a scenario rewritten in the common form (docs/api.md)."""
from __future__ import annotations

import copy
import json
import sys
from typing import Any, Mapping

from ..vocabulary import LEVEL, ONLY_GRID, to_native


def cmd_schema(args) -> int:
    from ..schemas import dump, load
    sys.stdout.write(dump(load(args.game)))
    return 0


def cmd_convert(args) -> int:
    from ..scenario import read_scenario as _read
    from ..errors import ScenarioError
    scenario = _read(args.file)
    if not isinstance(scenario, dict):
        raise ScenarioError(f"a scenario is a JSON object; got {type(scenario).__name__}")
    if not isinstance(scenario.get("game"), str):
        from .. import solve
        solve(scenario)     # the typed error naming the missing game
    common = to_common(scenario)
    sys.stdout.write(json.dumps(common) if args.compact else format_scenario(common))
    sys.stdout.write("\n")
    return 0


def format_scenario(scenario: dict) -> str:
    """JSON with one scenario part per line, and one board key / board list item (a
    cell, a door) per line."""
    def board(b: dict) -> str:
        parts = []
        for key, value in b.items():
            if isinstance(value, list) and value:
                items = ",\n    ".join(json.dumps(v) for v in value)
                parts.append(f"{json.dumps(key)}: [\n    {items}]")
            else:
                parts.append(f"{json.dumps(key)}: {json.dumps(value)}")
        return "{" + ",\n  ".join(parts) + "}"
    lines = [f"{json.dumps(k)}: "
             + (board(v) if k == "board" and isinstance(v, dict) else json.dumps(v))
             for k, v in scenario.items()]
    return "{" + ",\n ".join(lines) + "}"


def register(sub) -> None:
    p = sub.add_parser("schema", help="print the JSON Schema (draft 2020-12) of a game's "
                       "scenarios")
    p.add_argument("game", help="game name (movecore games lists them)")
    p.set_defaults(fn=cmd_schema)
    p = sub.add_parser("convert", help="print a scenario in the common form (board.grid, "
                       "board.cells with level), validated")
    p.add_argument("file", help="scenario JSON file, or - for stdin")
    p.add_argument("--compact", action="store_true", help="one-line JSON")
    p.set_defaults(fn=cmd_convert)


# ----------------------------------------------------------------------- common form
def to_common(scenario: Mapping) -> dict:
    """The scenario in the common form (``board.grid`` and ``board.cells`` with
    ``level``), validated by the game's own reader on the way."""
    from ..position import position
    from ..scenario import solve
    game = scenario.get("game")
    native = to_native(scenario)
    if "query" in native:
        solve(native)       # the game's readers validate the whole scenario
    else:
        position(native)
    out = copy.deepcopy(dict(native))     # nothing of the caller's scenario is shared
    if "fields" in scenario:
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
