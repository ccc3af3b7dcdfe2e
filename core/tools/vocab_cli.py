"""``movecore schema GAME`` and ``movecore convert FILE``: the published JSON Schema of a
game's scenarios, and a scenario rewritten in the common form (docs/api.md)."""
from __future__ import annotations

import json
import sys

from .convert import to_common


def cmd_schema(args) -> int:
    from ..schemas import dump, load
    sys.stdout.write(dump(load(args.game)))
    return 0


def cmd_convert(args) -> int:
    from ..scenario import read_scenario as _read
    common = to_common(_read(args.file))   # (validated as solve() reads it, not solved)
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
