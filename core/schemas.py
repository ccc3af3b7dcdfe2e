"""JSON Schemas (draft 2020-12) of every game's scenario, in the common form and the
game's own spelling alike, shipped as ``movecore/schemas/GAME.json``.

Other languages validate a scenario against the schema before they call
``mc_solve_json``: what the schema refuses, the game's readers refuse too. The schema
describes the nested parts (doors, tiles, abilities, option words, integer ranges, the
query forms) from the games' own tables (:data:`_VALUES`, :data:`_QUERY_FORMS`); the
readers stay the judge of what a schema cannot say (cells on the board, figures that
exist, ids given twice, geometry): a scenario the schema accepts may still be refused
with a typed error.

The key sets are the readers' own: :func:`reader_keys` asks each reader for the keys it
allows (it reads one probe key ``__probe__`` and reads the list back from the error),
and :func:`build` adds the common form's words (:mod:`movecore.vocabulary`). After a
reader learns a key, ``python -m movecore.schemas --write`` regenerates the files.
"""
from __future__ import annotations

import copy
import functools
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
    from .scenario import example_paths
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


# ------------------------------------------------------------------ nested values
# What each key's value is, per game: built from the games' own tables (terrain names,
# abilities, sides, action names, option words) and the readers' limits, so that a
# word or a limit changed in a game changes its schema at the next --write.
BOOL = {"type": "boolean"}
COORDS = {"type": "array", "items": COORD}
#: A board cell's coordinates: within the board's limit (movecore.board: +-2**20).
CELL_AT = {**COORD, "prefixItems": [{"type": "integer", "minimum": -(1 << 20),
                                     "maximum": 1 << 20}] * 2}
#: ``board.cells`` where the reader wants at least one cell.
SOME_CELLS = {"type": "array", "items": {"$ref": "#/$defs/cell"}, "minItems": 1}
#: Two cells: a cell edge (walls, doors, links) or a staircase.
PAIR = {"type": "array", "items": COORD, "minItems": 2, "maxItems": 2}


def _int(lo: int | None = None, hi: int | None = None, null: bool = False) -> dict:
    out: dict = {"type": ["integer", "null"] if null else "integer"}
    if lo is not None:
        out["minimum"] = lo
    if hi is not None:
        out["maximum"] = hi
    return out


def _enum(words, null: bool = False) -> dict:
    return {"enum": list(words) + ([None] if null else [])}


def _obj(props: dict, required=(), **more) -> dict:
    return {"type": "object", "properties": props, "required": list(required),
            "additionalProperties": False, **more}


def _chars(chars, least: int = 0) -> dict:
    """A string of the characters ``chars`` (a map legend's), at least ``least``."""
    cls = "".join("\\" + c if c in "\\]^-[" else c for c in sorted(chars))
    return {"type": "string", "pattern": f"^[{cls}]*$", "minLength": least}


def _only_keys(keys, required=(), **more) -> dict:
    """One form of an object: only ``keys``, ``required`` among them."""
    return {"propertyNames": {"enum": list(keys)}, "required": list(required), **more}


def _descent() -> dict:
    from .kernels import _types as T
    from .games import descent as D
    door = _obj({"id": ID, "sides": {"type": "array", "items": PAIR, "minItems": 1,
                                     "maxItems": 2},
                 "between": PAIR, "open": BOOL, "rune": {"type": ["string", "null"]},
                 "leads_to_unrevealed": BOOL}, ["id"],
                oneOf=[{"required": ["sides"]}, {"required": ["between"]}])
    ability = {"oneOf": [_enum(D.ABILITIES)] + [
        _obj({name: _int(1, D.MAX_WOUNDS, null=True) if name == "aura"
              else _enum([True], null=True)}, [name]) for name in D.ABILITIES]}
    return {
        ("board", "rows"): {"type": "array", "items": _chars(D.MAP_CHARS), "minItems": 1},
        # the dungeon is given once: as cells, as rows, or as width and height
        ("$rules", "board"): {"oneOf": [
            {"required": ["cells"], "not": {"anyOf": [
                {"required": [k]} for k in ("rows", "width", "height")]}},
            {"required": ["rows"], "not": {"anyOf": [
                {"required": [k]} for k in ("cells", "width", "height")]}},
            {"required": ["width", "height"], "not": {"anyOf": [
                {"required": [k]} for k in ("cells", "rows")]}}]},
        ("board", "width"): _int(1, 4096), ("board", "height"): _int(1, 4096),
        ("board", "terrain"): {"type": "object", "propertyNames": _enum(D.TERRAINS),
                               "additionalProperties": COORDS},
        ("board", "walls"): {"type": "array", "items": PAIR},
        ("board", "doors"): {"type": "array", "items": door},
        ("board", "stairs"): {"type": "array", "items": PAIR},
        ("board", "glyphs"): COORDS,
        ("figure", "at"): {"anyOf": [COORD, {"const": D.TOWN}]},
        ("figure", "side"): _enum(D.SIDES),
        ("figure", "speed"): _int(0, 1 << 16),
        ("figure", "footprint"): _enum(D.FOOTPRINTS),
        ("figure", "abilities"): {"type": "array", "items": ability},
        ("options", "corner_cutting"): BOOL, ("options", "large_jumps"): BOOL,
        ("options", "hound_slides"): BOOL,
        ("options", "ice"): _enum(("normal", "stop")),    # descent.position's literal
        ("options", "large_turns"): _enum(D.LARGE_TURNS),
        ("scenario", "party"): _obj({"rune_keys": {"type": "array",
                                                   "items": {"type": "string"}}}),
        ("query", "figure"): ID,
        ("query", "action"): _enum(D.ACTIONS),
        ("query", "fatigue"): _int(0, 1 << 16),
        ("query", "mp"): _int(0, T.MAX_BUDGET // 2, null=True),
    }


def _dark_realms() -> dict:
    from .games import dark_realms as R
    from .board import GRID_KINDS
    move = _int(0, R.MAX_MOVE)
    return {
        ("board", "cells"): SOME_CELLS,
        ("figure", "at"): COORD, ("figure", "side"): _enum(R.SIDES),
        ("figure", "speed"): move, ("figure", "marked"): BOOL,
        ("figure", "flying"): BOOL, ("figure", "stamina_moved"): BOOL,
        ("options", "grid"): _enum(GRID_KINDS), ("options", "pass_allies"): BOOL,
        ("options", "die"): _enum(R.DICE),
        ("options", "trap_avoidance"): _enum(R.TRAP_AVOIDANCE),
        ("options", "trap_detour_limit"): _int(0, null=True),
        ("query", "figure"): ID, ("query", "enemy"): ID,
        ("query", "move"): move, ("query", "bonus"): move, ("query", "stamina"): move,
        ("query", "teleport"): move, ("query", "attack_range"): _int(1, R.MAX_MOVE),
        ("query", "roll"): _int(1, max(R.DICE.values())),
        ("query", "die"): _enum(R.DICE), ("query", "stamina_only"): BOOL,
    }


def _dark_realms_query() -> list:
    """The query forms: the enemy AI's, and a hero's teleport, die, Stamina-only and
    card move (the reader's own order of tests; each form takes only its keys)."""
    card = [{"required": ["move"], "not": {"anyOf": [{"required": ["bonus"]},
                                                      {"required": ["roll"]}]}},
            {"required": ["roll"], "not": {"required": ["move"]}}]
    return [
        _only_keys(("enemy", "move", "roll", "bonus", "attack_range", "paths"),
                   ["enemy"], oneOf=card),
        _only_keys(("figure", "teleport", "paths"), ["figure", "teleport"]),
        _only_keys(("figure", "die", "bonus", "stamina", "paths"), ["figure", "die"]),
        _only_keys(("figure", "stamina_only", "stamina", "paths"),
                   ["figure", "stamina_only", "stamina"],
                   properties={"stamina_only": {"const": True}}),
        _only_keys(("figure", "move", "roll", "bonus", "stamina", "stamina_only", "paths"),
                   ["figure"], properties={"stamina_only": {"const": False}}, oneOf=card),
    ]


def _grid() -> dict:
    from .kernels import _types as T
    height = _int(-T.MAX_HEIGHT, T.MAX_HEIGHT)
    return {
        ("cell", "cost"): _int(-1, T.MAX_COST), ("cell", "height"): height,
        ("cell", LEVEL): height, ("cell", "stop"): BOOL, ("board", "cells"): SOME_CELLS,
        ("board", "links"): {"type": "array", "items": _obj(
            {"between": PAIR, "cost": _int(0, T.MAX_COST)}, ["between"])},
        ("figure", "at"): COORD,
        ("options", "climb_per_level"): _int(0, T.MAX_CLIMB_COST),
        ("options", "climb_flat"): _int(0, T.MAX_CLIMB_COST),
        ("options", "max_climb"): _int(0, 2 * T.MAX_HEIGHT, null=True),
        ("query", "figure"): ID, ("query", "budget"): _int(0, T.MAX_BUDGET),
        ("query", "provoke"): COORDS,
    }


def _heroscape() -> dict:
    from .kernels import _types as T
    from .games import heroscape as H
    out = {
        ("cell", "level"): _int(0, T.MAX_HEIGHT), ("board", "cells"): SOME_CELLS,
        ("figure", "at"): {"anyOf": [COORD, {"type": "array", "items": COORD,
                                             "minItems": 1, "maxItems": 2}]},
        ("figure", "move"): _int(0, T.MAX_BUDGET),
        ("figure", "height"): _int(1, H.MAX_FIGURE_HEIGHT),
        ("figure", "abilities"): {"type": "array", "items": _enum(H.ABILITIES)},
        ("options", "mode"): _enum(H.MODES),
        ("options", "climb_limit"): _enum(H.CLIMB_LIMITS),
        ("options", "flyers_stop_in_water"): BOOL,
        ("options", "flyers_stop_on_glyphs"): BOOL,
        ("query", "figure"): ID, ("query", "move"): _int(0, T.MAX_BUDGET, null=True),
        ("query", "never_attacked_leaving"): BOOL,
    }
    out.update({("figure", k): BOOL for k in H.ABILITIES})
    return out


def _mage_knight() -> dict:
    from .kernels import _types as T
    from .games import mage_knight as M
    _MODES = M.MODES
    space = {"terrain": _enum(M.TERRAINS, null=True), "site": _enum(M.SITES, null=True),
             "conquered": BOOL, "owner": {"type": ["string", "integer", "null"]},
             "rampaging": _enum(M.RAMPAGING, null=True)}
    site = {"required": ["site"]}
    # a space without terrain is a city; only fortified sites are conquered, only keeps
    # owned (movecore.games.mage_knight._check_space)
    space_rules = [
        {"anyOf": [{"required": ["terrain"], "properties": {"terrain": {"not": {
            "const": None}}}}, {**site, "properties": {"site": {"const": "city"}}}]},
        {"if": {"required": ["conquered"], "properties": {"conquered": {"const": True}}},
         "then": {**site, "properties": {"site": _enum(M.FORTIFIED)}}},
        {"if": {"required": ["owner"], "properties": {"owner": {"not": {"const": None}}}},
         "then": {**site, "properties": {"site": {"const": "keep"}}}},
    ]
    hexes = _enum(M.TILE_HEXES)
    walls = {"type": "array", "items": _obj({"hex": hexes, "side": _enum(M.SIDES)},
                                            ["hex", "side"])}
    tile = _obj({"position": COORD, "tile": _enum(sorted(M.tile_catalogue())),
                 "kind": _enum(M.TILE_KINDS + ("starting",)),
                 "cells": {"type": "array", "items": _obj(
                     {"hex": hexes, "at": COORD, **space}, allOf=space_rules,
                     oneOf=[{"required": ["hex"]}, {"required": ["at"]}])},
                 "walls": walls}, ["position"],
                oneOf=[{"required": ["tile"]}, {"required": ["cells"]}])
    cost = _int(0, T.MAX_COST)
    out = {("cell", k): v for k, v in space.items()}
    out[("$rules", "cell")] = {"allOf": space_rules}
    out[("$rules", "board")] = {"anyOf": [{"required": ["cells"]},   # the map's spaces
                                          {"required": ["tiles"]}]}
    out.update({
        ("$defs", "tile"): tile,
        ("board", "tiles"): {"type": "array", "items": {"$ref": "#/$defs/tile"}},
        ("board", "walls"): {"type": "array", "items": PAIR},
        ("board", "open"): COORDS,
        ("board", "next_tile"): _enum(M.NEXT_TILE),
        ("board", "shape"): _enum(M.MAP_SHAPES, null=True),
        ("board", "updates"): {"type": "array", "items": _obj(
            {"at": COORD, **{k: space[k] for k in ("conquered", "owner", "rampaging")}},
            ["at"])},
        ("figure", "at"): COORD,
        ("options", "time"): _enum(M.TIMES), ("options", "cities"): _enum(M.CITY_RULES),
        ("options", "pvp"): BOOL, ("options", "provoke"): BOOL, ("options", "bend"): BOOL,
        ("options", "forbid"): {"type": "array", "items": _enum(M.COST_CLASSES)},
        ("options", "reductions"): {"type": "array", "items": _obj(
            {"terrains": {"anyOf": [{"const": "all"}, {
                "type": "array", "items": _enum(M.COST_CLASSES), "minItems": 1}]},
             "by": cost, "min": cost}, ["terrains", "by"])},
        ("options", "enter"): {"type": "array", "items": _obj(
            {"terrains": {"type": "array", "items": _enum(M.INACCESSIBLE)},
             "cost": cost}, ["terrains", "cost"])},
        ("options", "explore"): _obj({"cost": _int(0, T.MAX_COST, null=True),
                                      "distance": _enum(M.EXPLORE_DISTANCES)}),
        ("query", "figure"): ID, ("query", "budget"): _int(0, T.MAX_BUDGET),
        ("query", "mode"): _enum(_MODES), ("query", "end_safe"): BOOL,
        ("query", "reveal"): {"type": "array", "items": {"$ref": "#/$defs/tile"}},
    })
    return out


def _mage_knight_query() -> list:
    """A move (``mode`` "move", the default) or a direct move; ``end_safe`` is the
    direct move's."""
    return [{"properties": {"mode": {"const": "move"}}, "not": {"required": ["end_safe"]}},
            {"properties": {"mode": {"const": "direct"}}, "required": ["mode"]}]


def _tiny_epic_tactics() -> dict:
    from .kernels import _types as T
    from .games import tiny_epic_tactics as E
    from .games.tiny_epic_tactics.rules import KINDS as _KINDS
    elevation = _int(0, E.MAX_ELEVATION)
    return {
        ("board", "width"): _int(1, 4096), ("board", "height"): _int(1, 4096),
        # the size: width and height together, or the rectangle that the terrain or
        # elevation rows or the cells fill (movecore.vocabulary._tet_size)
        ("$rules", "board"): {"dependentRequired": {"width": ["height"],
                                                    "height": ["width"]},
                              "anyOf": [{"required": ["width"]}] + [
                                  {"required": [k], "properties": {k: {"minItems": 1}}}
                                  for k in ("terrain", "elevation", "cells")]},
        ("board", "terrain"): {"type": "array", "items": _chars(E.LEGEND, 1)},
        ("board", "elevation"): {"type": "array", "items": {"anyOf": [
            _chars("0123456789", 1), {"type": "array", "items": elevation}]}},
        ("cell", "elevation"): elevation, ("cell", LEVEL): elevation,
        ("cell", "portal"): {"anyOf": [BOOL, _enum(E.SIDES)]},
        ("figure", "at"): COORD, ("figure", "moved"): _int(0, E.MAX_ACTIONS),
        ("figure", "turn_start"): COORD, ("figure", "villages_used"): COORDS,
        ("options", "portal_hop_cost"): {"anyOf": [{"const": "step"}, _int(1, 64)]},
        ("options", "diagonals"): BOOL,
        ("options", "solo_blocked"): _enum(("stop", "turn")),   # the reader's literal
        ("options", "solo_target"): _enum(E.SOLO_TARGETS),
        ("query", "type"): _enum(_KINDS), ("query", "figure"): ID,
        ("query", "budget"): _int(0, T.MAX_BUDGET), ("query", "via"): COORD,
        ("query", "actions"): _int(1, E.MAX_ACTIONS), ("query", "attacker"): ID,
        ("query", "target"): ID, ("query", "direction"): _enum(E.SIDES),
        ("query", "compass"): _enum(E.SIDES),
        ("query", "distance"): _int(0, E.MAX_KNOCK_BACK),
        ("query", "range"): _int(0, T.MAX_BUDGET), ("query", "climb"): BOOL,
    }


def _tiny_epic_tactics_query() -> list:
    """The three query types: a move (the default type), a knock back (of ``target``,
    by an ``attacker`` or in a ``direction``), a solo-mode move."""
    from .games.tiny_epic_tactics import rules as E
    return [
        _only_keys(("figure",) + E.MOVE_KEYS, ["figure", "budget"],
                   properties={"type": {"const": "move"}}),
        _only_keys(("target",) + E.KNOCK_KEYS, ["target", "distance", "type"],
                   properties={"type": {"const": "knock_back"}},
                   oneOf=[{"required": ["attacker"]}, {"required": ["direction"]}]),
        _only_keys(("figure",) + E.SOLO_KEYS, ["figure", "budget", "compass", "type"],
                   properties={"type": {"const": "solo"}},
                   **{"not": {"required": ["target", "climb"],
                            "properties": {"climb": {"const": True}}}}),
    ]


#: Per game: its (part, key) -> value schema table, and its query forms (or None).
_VALUES = {"descent": _descent, "dark_realms": _dark_realms, "grid": _grid,
           "heroscape": _heroscape, "mage_knight": _mage_knight,
           "tiny_epic_tactics": _tiny_epic_tactics}
_QUERY_FORMS = {"dark_realms": _dark_realms_query, "mage_knight": _mage_knight_query,
                "tiny_epic_tactics": _tiny_epic_tactics_query}


def _value_schema(game: str, part: str, key: str) -> dict:
    """What a key's value is, where the schema says (else any value: the reader judges)."""
    table = _values(game)
    if (part, key) in table:
        return table[(part, key)]
    if key == "at":
        if part == "cell":
            return CELL_AT
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


#: A one-line description of every key the schemas describe: (part, key), with a game's
#: own meaning under (game, part, key) where it differs. docs/<game>.md has the details.
DESCRIPTIONS = {
    # the scenario
    ("scenario", "game"): "The game whose rules and vocabulary the scenario uses.",
    ("scenario", "board"): "The board: its cells and their features, in the game's words.",
    ("scenario", "options"): "Rule options; every one has a default.",
    ("scenario", "figures"): "The figures in play, one object each.",
    ("scenario", "query"): "What to ask: the moving figure and its move.",
    ("scenario", "fields"): "\"common\": the result uses the common field names "
                            "(docs/api.md, Common form).",
    ("scenario", "party"): "The heroes' party: the rune keys it holds.",
    # board
    ("board", "grid"): "The grid: \"hex\" (axial [q, r]), \"square4\" or \"square8\" "
                       "([x, y], y down).",
    ("board", "cells"): "The cells (spaces, squares) of the board, one object each; cells "
                        "not listed are off the board.",
    ("board", "width"): "Width in cells of a rectangular map.",
    ("board", "height"): "Height in cells of a rectangular map.",
    ("board", "terrain"): "Terrain of the map's cells, by row or by terrain name.",
    ("board", "elevation"): "Elevation of each space, one row per map row (0 = the map).",
    ("board", "rows"): "The map, one string per row (y down), one character per square.",
    ("board", "walls"): "Walls between two neighbouring cells: pairs of cells.",
    ("board", "doors"): "Doors: an id, the cell edges they span, open or closed, rune.",
    ("board", "stairs"): "Linked staircases: pairs of squares one step apart.",
    ("board", "glyphs"): "Squares holding an active glyph (a teleport to town).",
    ("board", "links"): "Extra two-way connections between cells (portals, stairs).",
    ("board", "tiles"): "Map tiles placed: a catalogue tile or its spaces, at a tile "
                        "position.",
    ("board", "open"): "Open tile positions where a tile may be revealed.",
    ("board", "next_tile"): "The kind of the next tile to reveal (countryside or core).",
    ("board", "shape"): "A map shape of the Scenario Book (wedge, open_5, open_4, open_3).",
    ("board", "updates"): "Changes to spaces laid by tiles: conquered, owner, rampaging.",
    # cells
    ("cell", "at"): "The cell's coordinate.",
    ("cell", "terrain"): "The cell's terrain.",
    ("cell", "cost"): "Cost of entering the cell (-1: it cannot be entered).",
    ("cell", "height"): "The cell's level (an alias of level).",
    ("cell", "level"): "The cell's level (height, elevation).",
    ("cell", "elevation"): "The space's elevation (0 = the map scroll).",
    ("cell", "stop"): "Entering the cell ends the move.",
    ("cell", "obstacle"): "An obstacle on the cell.",
    ("cell", "glyph"): "A glyph on the space: its name, true for an unnamed one, or null.",
    ("cell", "trap"): "A trap: it may be entered and it triggers.",
    ("cell", "rift"): "A rift: it never blocks.",
    ("cell", "portal"): "The space in front of a portal: true, or the side the portal "
                        "stands on (N, E, S, W).",
    ("cell", "site"): "The site on the space (city, keep, mage_tower...), or null.",
    ("cell", "conquered"): "A fortified site that has been conquered.",
    ("cell", "owner"): "The hero owning a keep (implies conquered).",
    ("cell", "rampaging"): "The rampaging enemy on the space (orc_marauders, draconum), or "
                           "null.",
    # Mage Knight tiles
    ("tile", "position"): "The tile's centre, on the tile lattice.",
    ("tile", "tile"): "A catalogue tile name (else kind and cells).",
    ("tile", "kind"): "countryside or core: the tile's back.",
    ("tile", "cells"): "The tile's spaces, by hex name or coordinate.",
    ("tile", "walls"): "Walls on the tile (Lost Legion): a hex and a side.",
    # figures
    ("figure", "id"): "The figure's id, unique.",
    ("figure", "team"): "The figure's team (side): allies share one; default its own id.",
    ("figure", "side"): "The figure's side.",
    ("figure", "at"): "Where the figure stands.",
    ("figure", "move"): "The figure's Move value.",
    ("figure", "height"): "The figure's Height.",
    ("figure", "speed"): "The figure's speed.",
    ("figure", "flying"): "The figure flies.",
    ("figure", "stealth_flying"): "Stealth Flying (implies flying).",
    ("figure", "ghost_walk"): "Ghost Walk: moves through all figures.",
    ("figure", "disengage"): "Disengage: never attacked when leaving an engagement.",
    ("figure", "phantom_walk"): "Phantom Walk: Ghost Walk and Disengage.",
    ("figure", "abilities"): "The figure's movement abilities, as a list of names.",
    ("figure", "footprint"): "A large monster's base, \"WxH\" (default \"1x1\").",
    ("figure", "marked"): "Carries a Mark (heroes and summons only).",
    ("figure", "stamina_moved"): "Heroes only: the Stamina-only move of this round is spent.",
    ("figure", "moved"): "Move actions the unit has taken this turn (1..3).",
    ("figure", "turn_start"): "Where the unit's turn began (default: at).",
    ("figure", "villages_used"): "Villages the unit has healed in this turn.",
    # options
    ("options", "grid"): "The grid: \"hex\", \"square4\" or \"square8\".",
    ("options", "climb_per_level"): "Extra cost per level climbed.",
    ("options", "climb_flat"): "Extra cost of any climb, however many levels.",
    ("options", "max_climb"): "Most levels one step may climb (null: no limit).",
    ("options", "mode"): "\"master\" (leaving-engagement attacks) or \"basic\" game.",
    ("options", "climb_limit"): "\"below_height\": a step climbs fewer levels than the "
                                "figure's Height; \"up_to_height\": up to it.",
    ("options", "flyers_stop_in_water"): "A flyer ending on water stops there.",
    ("options", "flyers_stop_on_glyphs"): "A flyer passing over a glyph stops on it.",
    ("options", "time"): "\"day\" or \"night\": terrain costs follow it.",
    ("options", "pvp"): "Player combat allowed: ending on another hero is an attack.",
    ("options", "reductions"): "Terrain cost reductions: terrains, by, min.",
    ("options", "enter"): "Terrains that may be entered at a cost this turn (lake, "
                          "mountain).",
    ("options", "forbid"): "Cost classes that cannot be entered this turn.",
    ("options", "provoke"): "false: no step provokes a rampaging enemy this turn.",
    ("options", "bend"): "Space Bending: spaces two away count as adjacent.",
    ("options", "explore"): "Move points and reach of a reveal ({cost, distance}; null: "
                            "no exploring).",
    ("options", "cities"): "\"open\", or \"closed\": cities can be neither entered nor "
                           "conquered.",
    ("options", "corner_cutting"): "A diagonal step may pass the corner of a wall or an "
                                   "obstacle.",
    ("options", "ice"): "\"normal\" ice (slide) or \"stop\": entering ice ends the move.",
    ("options", "large_turns"): "Which large monsters may turn their base as they move.",
    ("options", "large_jumps"): "Large monsters may jump over what blocks them.",
    ("options", "hound_slides"): "Hell hounds may also shift sideways across their long "
                                 "axis for 1 MP.",
    ("options", "pass_allies"): "false: every figure blocks; true: allies may be passed.",
    ("options", "die"): "The die a Move card rolls (d4, d6, d8, d10, d12, d20).",
    ("options", "trap_detour_limit"): "How many extra steps an enemy accepts to walk "
                                      "around traps (null: any).",
    ("options", "trap_avoidance"): "Shorthand for trap_detour_limit.",
    ("options", "portal_hop_cost"): "What a portal hop costs (\"step\": one step onto the "
                                    "exit front space).",
    ("options", "diagonals"): "true allows diagonal steps (8 neighbours); not a rule of the "
                              "game.",
    ("options", "solo_blocked"): "What a solo enemy does when its compass route is blocked.",
    ("options", "solo_target"): "How a solo enemy without a given target picks one.",
    # query
    ("query", "figure"): "The id of the figure that moves.",
    ("query", "budget"): "Movement points to spend.",
    ("query", "paths"): "Also give the path to every end.",
    ("query", "provoke"): "Provoke tokens: cells whose neighbours stop a move entering "
                          "them.",
    ("query", "move"): "The Move value of this move (overrides the figure's).",
    ("query", "never_attacked_leaving"): "This move draws no leaving-engagement attack.",
    ("query", "mode"): "\"move\", or \"direct\" (move N spaces, 1 per space).",
    ("query", "end_safe"): "Direct moves only: only safe spaces are ends.",
    ("query", "reveal"): "Tiles revealed on the way: a position and a tile.",
    ("query", "action"): "The hero's action: run, advance, ready or battle.",
    ("query", "fatigue"): "Fatigue spent for extra movement points.",
    ("query", "mp"): "Movement points, instead of an action.",
    ("query", "roll"): "The die roll of a Move card.",
    ("query", "bonus"): "Bonus movement added to the roll.",
    ("query", "stamina"): "Stamina that may be spent for extra steps.",
    ("query", "stamina_only"): "The once-per-round move paid with Stamina alone.",
    ("query", "die"): "Planning: the die of the roll to come; each end's odds.",
    ("query", "teleport"): "A teleport instead of a walk.",
    ("query", "enemy"): "The enemy that moves by the enemy AI.",
    ("query", "attack_range"): "The enemy's attack range.",
    ("query", "type"): "The query: \"move\" (default), \"knock_back\" or \"solo\".",
    ("query", "actions"): "Move actions this turn (1..3; more than 1 for a last unit).",
    ("query", "via"): "Only the ends reachable while passing this village.",
    ("query", "target"): "The unit knocked back, or the solo enemy's target.",
    ("query", "attacker"): "Knock back: the attacking unit (the push goes away from it).",
    ("query", "direction"): "Knock back: the direction of the push (N, E, S, W).",
    ("query", "distance"): "Knock back: spaces to push.",
    ("query", "compass"): "Solo move: the compass on the drawn Solo Enemy card.",
    ("query", "range"): "Solo move: the enemy's Missile or Spell range (0 = Melee).",
    ("query", "climb"): "Solo move: the drawn card has the Climb bonus.",
}


def _add_descriptions(game: str, part: str, schema: dict) -> None:
    """Give every property of ``schema`` (a part's object schema, its query forms
    included) its description from :data:`DESCRIPTIONS`, first in its keys."""
    for holder in [schema, *schema.get("oneOf", ()), *schema.get("anyOf", ())]:
        props = holder.get("properties") if isinstance(holder, dict) else None
        for key, sub in list((props or {}).items()):
            text = DESCRIPTIONS.get((game, part, key)) or DESCRIPTIONS.get((part, key))
            if text and isinstance(sub, dict) and "description" not in sub:
                props[key] = {"description": text, **sub}


@functools.lru_cache(maxsize=None)
def _values(game: str) -> dict:
    return _VALUES[game]() if game in _VALUES else {}


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
    if game in _QUERY_FORMS:
        defs["query"]["oneOf"] = _QUERY_FORMS[game]()
    for (kind, name), sub in _values(game).items():
        if kind == "$defs":         # a part used in two places, given once
            defs[name] = sub
        elif kind == "$rules":      # rules of a part that tie its keys together
            defs[name].update(sub)
    if game in LEVEL_ALIASES and LEVEL_ALIASES[game] != LEVEL:
        defs["cell"]["not"] = {"required": [LEVEL, LEVEL_ALIASES[game]]}
    _add_descriptions(game, "scenario", top)
    for part, sub in defs.items():
        _add_descriptions(game, part, sub)
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
    shipped = sorted(p.name[:-5] for p in (resources.files("movecore") / "schemas").iterdir()
                     if p.name.endswith(".json"))
    if not isinstance(game, str) or game not in shipped:
        from .scenario import available_games
        known = available_games()       # a game registered at run time has no schema
        raise UnknownGameError(f"unknown game {game!r}; expected one of {shipped}" + (
            "" if game not in known else f" ({game!r} is registered but ships no schema)"))
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
