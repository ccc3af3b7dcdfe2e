"""JSON Schemas (draft 2020-12) of every game's scenario, in the common form and the
game's own spelling alike, shipped as ``movecore/schemas/GAME.json``.

Other languages validate a scenario against the schema before they call
``mc_solve_json``: what the schema refuses, the game's readers refuse too. The readers
stay the judge of values (ranges, names of cells on the board, figures that exist): a
scenario the schema accepts may still be refused with a typed error.

The key sets are the readers' own: :func:`reader_keys` asks each reader for the keys it
allows (it reads one probe key ``__probe__`` and reads the list back from the error),
and :func:`build` adds the common form's words (:mod:`movecore.vocabulary`). After a
reader learns a key, ``python -m movecore.schemas --write`` regenerates the files.
"""
from __future__ import annotations

import copy
import json
import re
import sys
from importlib import resources
from pathlib import Path
from typing import Any

from .vocabulary import FIELDS, GRID_CHOICES, LEVEL, LEVEL_ALIASES, ONLY_GRID

DIALECT = "https://json-schema.org/draft/2020-12/schema"
PROBE = "__probe__"
#: The scenario parts the schema describes key by key: a path from the scenario root
#: (``0`` = the first item of a list) and the schema location it fills.
PARTS = {"scenario": (), "board": ("board",), "cell": ("board", "cells", 0),
         "options": ("options",), "figure": ("figures", 0), "query": ("query",)}

COORD = {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "integer"}],
         "items": False, "minItems": 2}
ID = {"type": ["string", "integer"]}

#: Small scenarios that reach the parts no bundled example shows (the probe needs a
#: scenario that is valid up to the part it probes).
_EXTRA_PROBES = [
    {"game": "mage_knight", "board": {"cells": [{"at": [0, 0], "terrain": "plains"}]},
     "figures": [{"id": "a", "at": [0, 0]}], "query": {"figure": "a", "budget": 1}},
    {"game": "descent", "board": {"cells": [{"at": [0, 0]}, {"at": [1, 0]}]},
     "figures": [{"id": "a", "side": "hero", "at": [0, 0], "speed": 2}],
     "query": {"figure": "a", "mp": 1}},
]


def _game_terrains(game: str) -> list[str] | None:
    import importlib
    if game in ("grid", "dark_realms"):
        return None
    return list(importlib.import_module(f"movecore.games.{game}").TERRAINS)


def _probe_scenarios(game: str) -> list[dict]:
    from .cli import example_paths
    out = [json.loads(p.read_text(encoding="utf-8")) for p in example_paths()]
    out += copy.deepcopy(_EXTRA_PROBES)
    return [s for s in out if s.get("game") == game]


def _probe(scenario: dict, path: tuple) -> list[str] | None:
    """The keys the reader allows at ``path`` of ``scenario`` (None: not reached)."""
    from . import solve
    from .errors import MovecoreError
    s = copy.deepcopy(scenario)
    obj: Any = s
    for step in path:
        if isinstance(obj, dict) and step not in obj:
            if step != "options":
                return None
            obj[step] = {}
        try:
            obj = obj[step]
        except (IndexError, KeyError, TypeError):
            return None
    if not isinstance(obj, dict):
        return None
    obj[PROBE] = 1
    try:
        solve(s)
    except MovecoreError as exc:
        m = re.search(rf"unknown key '{PROBE}' in \S+; expected one of (\[.*\])", str(exc))
        if m:
            return [k for k in json.loads(m.group(1).replace("'", '"')) if k != PROBE]
    return None


def _needs(scenario: dict, path: tuple, key: str) -> bool:
    """Whether the reader refuses ``scenario`` without ``key`` at ``path`` as missing."""
    from . import solve
    from .errors import MovecoreError
    s = copy.deepcopy(scenario)
    obj: Any = s
    for step in path:
        obj = obj[step]
    del obj[key]
    try:
        solve(s)
    except MovecoreError as exc:
        return re.search(rf"needs '{re.escape(key)}'(?:$| \()", str(exc)) is not None
    return False


def reader_required(game: str) -> dict[str, list[str]]:
    """Per part: the keys every probe scenario has there and its reader asks for."""
    out: dict[str, set] = {}
    for scenario in _probe_scenarios(game):
        for part, path in PARTS.items():
            obj: Any = scenario
            try:
                for step in path:
                    obj = obj[step]
            except (IndexError, KeyError, TypeError):
                continue
            if isinstance(obj, dict):
                found = {k for k in obj if _needs(scenario, path, k)}
                out[part] = found if part not in out else out[part] & found
    return {part: sorted(v) for part, v in out.items()}


def reader_keys(game: str) -> dict[str, list[str]]:
    """Per part of :data:`PARTS`: the keys the game's readers allow there (the union
    over the bundled examples, in the game's own spelling)."""
    keys: dict[str, set] = {}
    for scenario in _probe_scenarios(game):
        for part, path in PARTS.items():
            found = _probe(scenario, path)
            if found is not None:
                keys.setdefault(part, set()).update(found)
    return {part: sorted(v) for part, v in keys.items()}


def _value_schema(game: str, part: str, key: str) -> dict:
    """What a key's value is, where the schema says (else any value: the reader judges)."""
    if key == "at":
        if part == "cell":
            return COORD
        if part == "figure":
            return {"anyOf": [COORD, {"type": "array", "items": COORD, "minItems": 1},
                              {"type": ["string", "null"]}]}
    if key in ("id", "team") and part == "figure":
        return ID
    if key == "game":
        return {"const": game}
    if part == "scenario" and key == "fields":
        return {"enum": list(FIELDS)}
    if key == "paths":
        return {"type": "boolean"}
    if part == "scenario" and key in ("board", "options"):
        return {"$ref": f"#/$defs/{key}"}
    if part == "scenario" and key == "figures":
        return {"type": "array", "items": {"$ref": "#/$defs/figure"}}
    if part == "scenario" and key == "query":
        return {"$ref": "#/$defs/query"}
    if part == "board" and key == "cells":
        return {"type": "array", "items": {"$ref": "#/$defs/cell"}}
    if part == "board" and key == "grid":
        return {"enum": [ONLY_GRID[game]] if game in ONLY_GRID
                else list(GRID_CHOICES[game])}
    if part == "board" and key in ("width", "height") and game != "grid":
        return {"type": "integer", "minimum": 1}
    if part == "board" and key == "rows":
        return {"type": "array", "items": {"type": "string"}}
    if part == "cell":
        if key in (LEVEL, LEVEL_ALIASES.get(game)) or key == "cost":
            return {"type": "integer"}
        if key == "terrain" and _game_terrains(game):
            return {"enum": _game_terrains(game)}
        if key in ("stop", "trap", "rift", "conquered") or (
                key == "obstacle" and game == "dark_realms"):
            return {"type": "boolean"}
        if key == "glyph":
            return {"type": ["string", "boolean", "null"], "minLength": 1}
        if key == "obstacle":
            return {"type": ["string", "null"], "minLength": 1}
    return {}


def _object(game: str, part: str, keys: list[str], required=()) -> dict:
    return {"type": "object",
            "properties": {k: _value_schema(game, part, k) for k in keys},
            "required": [k for k in required if k in keys],
            "additionalProperties": False}


def common_keys(game: str, part: str) -> list[str]:
    """The common form's words a game accepts at a part beyond its own reader's."""
    if part == "scenario":
        return ["fields"]
    if part == "board" and game in set(ONLY_GRID) | set(GRID_CHOICES):
        return ["grid"]
    if part == "cell" and game in LEVEL_ALIASES:
        return [LEVEL]
    return []


def build(game: str) -> dict:
    """The schema of a game's scenarios, from its readers' key sets."""
    keys = reader_keys(game)
    parts = {p: sorted(set(keys.get(p, ())) | set(common_keys(game, p))) for p in PARTS}
    required = reader_required(game)
    required["scenario"] = sorted(set(required.get("scenario", ())) | {"game"})
    if game == "tiny_epic_tactics":     # a realm map's size may follow from its cells
        required["board"] = []
    defs = {p: _object(game, p, parts[p], required.get(p, ()))
            for p in PARTS if p != "scenario"}
    top = _object(game, "scenario", parts["scenario"], required["scenario"])
    if game in LEVEL_ALIASES and LEVEL_ALIASES[game] != LEVEL:
        defs["cell"]["not"] = {"required": [LEVEL, LEVEL_ALIASES[game]]}
    return {"$schema": DIALECT,
            "$id": f"https://movecore.invalid/schemas/{game}.json",
            "title": f"movecore {game} scenario",
            "description": f"A {game} scenario for movecore.solve / mc_solve_json, in the "
                           f"common form or the game's own spelling (docs/api.md).",
            **top, "$defs": defs}


def schema_path(game: str) -> Path:
    return Path(str(resources.files("movecore") / "schemas" / f"{game}.json"))


def load(game: str) -> dict:
    """The shipped schema of a game (:class:`UnknownGameError` for an unknown game)."""
    from .errors import UnknownGameError
    from .scenario import available_games
    if game not in available_games():
        raise UnknownGameError(f"unknown game {game!r}; expected one of "
                               f"{available_games()}")
    return json.loads(schema_path(game).read_text(encoding="utf-8"))


def dump(schema: dict) -> str:
    return json.dumps(schema, indent=1, sort_keys=True) + "\n"


def write_all() -> None:
    from .scenario import available_games
    for game in available_games():
        schema_path(game).write_text(dump(build(game)), encoding="utf-8")


if __name__ == "__main__":  # pragma: no cover
    if sys.argv[1:] == ["--write"]:
        write_all()
    else:
        print("usage: python -m movecore.schemas --write", file=sys.stderr)
        sys.exit(2)
