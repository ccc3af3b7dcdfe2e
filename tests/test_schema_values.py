"""The published schemas describe the nested parts of a scenario (doors, walls, tiles,
abilities, options with enumerated values, query forms) as precisely as the readers:

* a table of bad nested values per game that the reader refuses with a typed error and
  the schema refuses too, and a table of other forms both accept;
* a differential over seeded random mutations of every bundled example (each value
  replaced by one of the wrong type, out of range or an unknown word; keys dropped and
  added): where the schema refuses, the reader refuses; where the reader refuses and the
  schema accepts, the reader's message is one of the documented limits of a schema
  (:data:`BEYOND_A_SCHEMA`: cross-references, uniqueness, geometry, the board's size).
"""
from __future__ import annotations

import copy
import json
import random
import re

import jsonschema
import pytest

import movecore as mc
from movecore import schemas
from movecore.tools.cli import example_paths
from movecore.errors import MovecoreError
from movecore import to_common
from test_schemas import _lax

EXAMPLES = {p.stem: json.loads(p.read_text()) for p in example_paths()}
DROP = object()


def _validator(game):
    return jsonschema.Draft202012Validator(schemas.load(game))


def _reader_error(s, fresh=False):
    """The reader's typed error for ``s`` (None: accepted); ``fresh``: ``s`` is a copy
    of the caller's own, which the reader may have (else it reads a deep copy)."""
    try:
        mc.solve(s if fresh else copy.deepcopy(s))
    except MovecoreError as exc:
        return exc
    return None


def _set(s, path, value):
    out = copy.deepcopy(s)
    obj = out
    for step in path[:-1]:
        obj = obj.setdefault(step, {}) if isinstance(obj, dict) else obj[step]
    if value is DROP:
        del obj[path[-1]]
    else:
        obj[path[-1]] = value
    return out


# ------------------------------------------------------------ bad nested values
_DOOR = ("board", "doors", 0)
_TILE = ("board", "tiles", 0)
_HS_FIG = ("figures", 0)
BAD = {
    "descent_door_round": [
        (_DOOR + ("sides",), []),                          # a door spans 1 or 2 edges
        (_DOOR + ("between",), [[2, 1], [3, 1]]),          # sides and between
        (_DOOR + ("sides",), DROP),                        # neither
        (_DOOR + ("open",), "yes"),
        (_DOOR + ("colour",), "red"),
        (_DOOR + ("rune",), 3),
        (_DOOR + ("sides", 0), [[2, 1]]),
        (_DOOR + ("sides", 0, 0), [2, 1.5]),
        (("board", "walls", 0), [[2, 0], [3, 0], [4, 0]]),
        (("board", "walls", 0, 1), [3, "0"]),
        (("board", "rows", 0), "##..?."),
        (("board", "terrain"), {"lava_pool": [[2, 0]]}),
        (("board", "terrain"), {"pit": [2, 0]}),
        (("board", "stairs"), [[[2, 0]]]),
        (("board", "glyphs"), [[2, 0, 1]]),
        (("figures", 0, "side"), "villain"),
        (("figures", 1, "footprint"), "3x3"),
        (("figures", 0, "speed"), -1),
        (("figures", 0, "abilities"), ["teleport"]),
        (("figures", 0, "abilities"), [{"aura": 0}]),
        (("figures", 0, "abilities"), [{"aura": 2, "fly": True}]),
        (("figures", 0, "abilities"), [{"fly": 2}]),
        (("figures", 0, "abilities"), "fly"),
        (("figures", 0, "at"), "tavern"),
        (("options",), {"ice": "slippery"}),
        (("options",), {"large_turns": "some"}),
        (("options",), {"corner_cutting": "no"}),
        (("party",), {"rune_keys": [1]}),
        (("party",), {"runes": []}),
        (("query", "action"), "sprint"),
        (("query", "fatigue"), -1),
        (("query", "mp"), "3"),
    ],
    "dark_realms_hero_move": [
        (("board", "cells"), []),
        (("board", "cells", 0, "trap"), "yes"),
        (("board", "cells", 0, "at"), [1 << 21, 0]),
        (("figures", 0, "side"), "villain"),
        (("figures", 0, "speed"), -1),
        (("figures", 0, "marked"), 1),
        (("options", "die"), "d7"),
        (("options", "trap_avoidance"), "avoid"),
        (("options", "trap_detour_limit"), -1),
        (("options", "grid"), "triangle"),
        (("query", "move"), 3),                            # move and roll
        (("query", "teleport"), 2),                        # teleport takes no roll
        (("query", "enemy"), "ghoul"),                     # an enemy query has no figure
        (("query", "stamina_only"), True),                 # takes no roll
        (("query", "die"), "d6"),                          # a die query takes no roll
        (("query", "roll"), 0),
        (("query", "roll"), 21),
        (("query",), {"figure": "ayla"}),                  # no move at all
        (("query",), {"figure": "ayla", "die": "d9"}),
        (("query",), {"figure": "ayla", "stamina_only": True}),     # needs stamina
    ],
    "dark_realms_enemy_turn": [
        (("query", "stamina"), 1),
        (("query", "attack_range"), 0),
        (("query", "bonus"), 1),                           # bonus goes with roll
        (("query", "move"), DROP),
    ],
    "grid_issue_example": [
        (("board", "cells", 0, "cost"), -2),
        (("board", "cells", 0, "height"), 1 << 15),
        (("board", "cells", 0, "stop"), "yes"),
        (("board", "links", 0, "between"), [[0, 0]]),
        (("board", "links", 0, "cost"), -1),
        (("board", "links", 0, "weight"), 1),
        (("board", "links", 0, "between"), DROP),
        (("options", "climb_per_level"), -1),
        (("options", "max_climb"), "none"),
        (("options", "climb_flat"), 1 << 11),
        (("query", "budget"), -1),
        (("query", "provoke"), [[3, "0"]]),
        (("query", "provoke"), [3, 0]),
        (("figures", 0, "at"), [[0, 0]]),
    ],
    "heroscape_engaged_knight": [
        (("board", "cells"), []),
        (("board", "cells", 0, "level"), -1),
        (("board", "cells", 0, "terrain"), "lavaflow"),
        (_HS_FIG + ("at",), [[0, 4], [-1, 4], [1, 4]]),
        (_HS_FIG + ("move",), -1),
        (_HS_FIG + ("height",), 0),
        (_HS_FIG + ("flying",), "yes"),
        (_HS_FIG + ("abilities",), ["teleport"]),
        (_HS_FIG + ("abilities",), "flying"),
        (("options", "mode"), "expert"),
        (("options", "climb_limit"), "any"),
        (("options", "flyers_stop_in_water"), 1),
        (("query", "move"), -1),
        (("query", "never_attacked_leaving"), "no"),
    ],
    "mage_knight_reveal_continue": [
        (_TILE + ("tile",), "Z"),
        (_TILE + ("cells",), []),                          # tile and cells
        (_TILE + ("tile",), DROP),                         # neither
        (_TILE + ("kind",), "desert"),
        (_TILE + ("walls",), [{"hex": "C", "side": "UP"}]),
        (_TILE + ("walls",), [{"hex": "X", "side": "E"}]),
        (_TILE + ("walls",), [{"hex": "C"}]),
        (_TILE + ("position",), [0]),
        (_TILE, {"position": [0, 0], "cells": [{"hex": "C", "at": [0, 0],
                                                 "terrain": "plains"}]}),
        (_TILE, {"position": [0, 0], "cells": [{"hex": "C", "terrain": "tundra"}]}),
        (_TILE, {"position": [0, 0], "cells": [{"hex": "C", "site": "castle",
                                                 "terrain": "plains"}]}),
        (_TILE, {"position": [0, 0], "cells": [{"hex": "C", "site": "village"}]}),
        (_TILE, {"position": [0, 0], "cells": [{"hex": "C", "terrain": "plains",
                                                 "site": "village", "conquered": True}]}),
        (_TILE, {"position": [0, 0], "cells": [{"hex": "C", "terrain": "plains",
                                                 "site": "mage_tower", "owner": "a"}]}),
        (("board", "cells"), [{"at": [0, 5], "terrain": None}]),
        (("board", "cells"), [{"at": [0, 5], "terrain": "hills", "owner": "tovak"}]),
        (("board", "next_tile"), "any"),
        (("board", "shape"), "round"),
        (("board", "open", 0), [4]),
        (("board", "walls"), [[[0, 0]]]),
        (("board", "updates", 0, "rampaging"), "goblins"),
        (("board", "updates", 0, "owner"), True),
        (("board", "updates", 0, "site"), "keep"),
        (("options", "time"), "dusk"),
        (("options", "reductions", 0, "terrains"), []),
        (("options", "reductions", 0, "terrains"), ["ocean"]),
        (("options", "reductions", 0, "by"), -1),
        (("options", "reductions", 0, "by"), DROP),
        (("options", "enter"), [{"terrains": ["plains"], "cost": 2}]),
        (("options", "forbid"), ["ocean"]),
        (("options", "explore"), {"distance": 3}),
        (("options", "explore"), {"cost": -1}),
        (("options", "cities"), "ajar"),
        (("options", "pvp"), "yes"),
        (("query", "mode"), "fly"),
        (("query", "end_safe"), False),                    # end_safe is the direct move's
        (("query", "reveal", 0, "tile"), "Z"),
        (("query", "budget"), -1),
    ],
    "tiny_epic_tactics_skirmish": [
        (("board", "terrain", 0), "..~~..ff....v?"),
        (("board", "elevation", 0), "0000001111100x"),
        (("board", "elevation", 0), [0] * 13 + [65]),
        (("board", "cells", 0, "portal"), "NE"),
        (("board", "cells", 0, "elevation"), 65),
        (("board", "cells", 0, "terrain"), "lava"),
        (("board", "width"), 0),
        (("figures", 0, "moved"), 4),
        (("figures", 0, "villages_used"), [12, 0]),
        (("figures", 0, "turn_start"), "here"),
        (("options", "portal_hop_cost"), 0),
        (("options", "portal_hop_cost"), "jump"),
        (("options", "solo_blocked"), "wait"),
        (("options", "solo_target"), "farthest"),
        (("options", "diagonals"), "yes"),
        (("query", "type"), "fly"),
        (("query", "actions"), 4),
        (("query", "compass"), "N"),                       # a move takes no compass
        (("query", "via"), [1]),
    ],
    "tiny_epic_tactics_knock_back": [
        (("query", "direction"), "N"),                     # attacker and direction
        (("query", "attacker"), DROP),                     # neither
        (("query", "distance"), 65),
        (("query", "budget"), 3),
        (("query", "type"), DROP),                         # then it is a move
    ],
    "tiny_epic_tactics_solo_compass": [
        (("query", "compass"), "NE"),
        (("query", "compass"), DROP),
        (("query",), {"type": "solo", "figure": "orc", "budget": 5, "compass": "W",
                      "target": "knight", "climb": True}),
        (("query", "range"), -1),
        (("query", "via"), [0, 4]),
    ],
}


def test_bad_table_covers_every_game():
    assert {EXAMPLES[n]["game"] for n in BAD} == set(mc.available_games())


@pytest.mark.parametrize("name", sorted(BAD))
def test_schema_refuses_the_bad_nested_values_the_reader_refuses(name):
    base = EXAMPLES[name]
    common = to_common(base)
    v = _validator(base["game"])
    assert v.is_valid(base) and _reader_error(base) is None and v.is_valid(common)
    for path, value in BAD[name]:
        bad = _set(base, path, value)
        assert _reader_error(bad) is not None, (path, value, "the reader accepts")
        assert not v.is_valid(bad), (path, value, "the schema accepts")
        try:    # the same value in the common form, where that has the same path
            bad = _set(common, path, value)
        except (KeyError, IndexError, TypeError):
            continue
        if _reader_error(bad) is not None:
            assert not v.is_valid(bad), (path, value, "the schema accepts (common)")


#: Other forms the readers accept, which the schema must accept too (no rule of the
#: schema is stricter than its reader's).
GOOD = {
    "descent_door_round": [
        (_DOOR, {"id": 7, "between": [[2, 1], [3, 1]], "open": True, "rune": "red",
                 "leads_to_unrevealed": True}),
        (_DOOR + ("rune",), None),
        (("figures", 0, "abilities"), ["fly", {"aura": 2}, {"grapple": None}, "aura",
                                       {"fly": True}, {"aura": None}]),
        (("figures", 0, "at"), "town"),
        (("board", "terrain"), {"pit": [[4, 2]], "water": []}),
        (("board", "glyphs"), [[4, 0]]),
        (("options",), {"corner_cutting": False, "ice": "stop", "large_turns": "none",
                        "large_jumps": True}),
        (("party",), {"rune_keys": ["red"]}),
        (("query", "mp"), None),
        (("query", "mp"), 3),
        (("query", "fatigue"), 2),
    ],
    "descent_dragon": [(("figures", 0, "footprint"), "2x2")],
    "dark_realms_hero_move": [
        (("query",), {"figure": "ayla", "teleport": 3}),
        (("query",), {"figure": "ayla", "die": "d8", "bonus": 1, "stamina": 1,
                      "paths": True}),
        (("query",), {"figure": "ayla", "stamina_only": True, "stamina": 2}),
        (("query",), {"figure": "ayla", "move": 3, "stamina_only": False}),
        (("query",), {"enemy": "ghoul", "roll": 3, "bonus": 1, "paths": False}),
        (("options", "trap_detour_limit"), None),
        (("options", "grid"), "hex"),
        (("figures", 0, "marked"), True),
    ],
    "grid_issue_example": [
        (("board", "links", 0, "cost"), DROP),
        (("options", "max_climb"), 3),
        (("board", "cells", 2, "cost"), -1),
        (("query", "provoke"), []),
    ],
    "heroscape_engaged_knight": [
        (_HS_FIG + ("abilities",), ["flying", "disengage"]),
        (("figures", 1, "at"), [[2, 3]]),
        (("query", "move"), None),
        (("query", "move"), 3),
        (("options",), {"mode": "basic", "climb_limit": "up_to_height",
                        "flyers_stop_in_water": True, "flyers_stop_on_glyphs": True}),
    ],
    "mage_knight_reveal_continue": [
        (("options", "enter"), [{"terrains": ["lake"], "cost": 5}]),
        (("options", "forbid"), ["city", "swamp"]),
        (("options", "explore"), {"cost": None, "distance": 2}),
        (("options", "cities"), "closed"),
        (("options", "reductions", 0, "terrains"), "all"),
        (("query", "reveal", 0), {
            "position": [-2, -1], "kind": "countryside",
            "cells": [{"hex": "C", "terrain": "plains"},
                      {"at": [-1, -1], "terrain": "forest", "site": "village"}],
            "walls": [{"hex": "C", "side": "E"}]}),
        (("board", "updates", 0, "rampaging"), None),
        (_TILE, {"position": [0, 0], "cells": [
            {"hex": "C", "site": "city"}, {"hex": "NW", "terrain": "plains"},
            {"hex": "E", "terrain": "hills", "site": "keep", "conquered": True,
             "owner": "tovak"}]}),
    ],
    "mage_knight_first_turns": [
        (("query", "mode"), "direct"),
        (("query",), {"figure": "tovak", "budget": 4, "mode": "direct", "end_safe": False}),
    ],
    "tiny_epic_tactics_skirmish": [
        (("board", "cells", 0, "portal"), True),
        (("options", "portal_hop_cost"), 2),
        (("board", "elevation", 0), [0] * 6 + [1] * 5 + [0] * 3),
    ],
    "tiny_epic_tactics_knock_back": [
        (("query",), {"type": "knock_back", "target": "troll", "direction": "N",
                      "distance": 2, "paths": True}),
    ],
    "tiny_epic_tactics_solo_compass": [
        (("query",), {"type": "solo", "figure": "orc", "budget": 5, "compass": "W",
                      "target": "knight", "range": 2, "climb": False}),
        (("query",), {"type": "solo", "figure": "orc", "budget": 5, "compass": "W",
                      "climb": True}),
    ],
}


@pytest.mark.parametrize("name", sorted(GOOD))
def test_schema_accepts_the_other_forms_the_reader_accepts(name):
    v = _validator(EXAMPLES[name]["game"])
    for path, value in GOOD[name]:
        good = _set(EXAMPLES[name], path, value)
        assert _reader_error(good) is None, (path, value)
        assert not [e.message for e in v.iter_errors(good)], (path, value)


# ------------------------------------------------------------ differential
#: What a schema cannot say, by the reader's message: a scenario the schema accepts may
#: still be refused for these (docs/api.md, "Schemas").
BEYOND_A_SCHEMA = {
    "a figure id the scenario does not have": r"names .*, which is not in the scenario",
    "what the moving figure's kind allows": r"for hero|monsters take no|only heroes",
    "ids and cells given twice": r"duplicate|twice|both (stand on|cover)",
    "cells on the board": r"not on the (board|battlefield|(\d+x\d+ )?realm map)|not a "
                          r"space of the map|off the board|open square on the board|"
                          r"cannot be entered|inside the obstacle|must be on the board|"
                          r"touches .* not on the board|not an open position|not next to "
                          r"tile position|not a village|no squares|has no spaces",
    "geometry": r"not on a cell edge|not a tile position of the lattice|not neighbouring "
                r"spaces|not adjacent|attacker at",
    "the board's size": r"must have \d+ rows|must describe \d+ spaces|realm map is a "
                        r"rectangle|board needs '(width|height)'|coordinates must lie "
                        r"within",
    "what a space holds": r"only fortified sites|only keeps",
    "text UTF-8 can encode (JSON text may escape a lone surrogate)": r"UTF-8 can encode",
}
_BEYOND = re.compile("|".join(f"(?:{r})" for r in BEYOND_A_SCHEMA.values()))




def _sites(node, path=()):
    yield path, node
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _sites(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node[:3]):
            yield from _sites(v, path + (i,))


def _wrong_values(v):
    if isinstance(v, bool):
        return [not v, 0, "true", None]
    if isinstance(v, int):
        return [v + 1, -1, -v - 1, 1 << 30, 1.5, str(v), True, None]
    if isinstance(v, str):
        return ["zz", "", 5, None, True, [v]]
    if isinstance(v, list):
        return [[], [v], {}, "x", v[:1], v + v[:1]]
    if isinstance(v, dict):
        return [[], "x", None]
    return ["x", 1]


def _random_mutations(s, rng, k=2):
    for path, v in list(_sites(s)):
        if not path or path[0] == "game":
            continue
        for new in rng.sample(_wrong_values(v), k):
            yield path, new
        if isinstance(v, dict):
            yield path + ("zz_key",), 1
            if v:
                yield path + (rng.choice(sorted(v, key=str)),), DROP


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_schema_and_reader_agree_on_random_nested_mutations(name):
    rng = random.Random(name)
    game = EXAMPLES[name]["game"]
    v = _validator(game)
    # two wrong values per site for the first example (the one `pytest` runs), one for the
    # rest (the soak tier's time; every site of every example is still mutated there)
    k = 2 if name == min(EXAMPLES) else 1
    for form in (EXAMPLES[name], to_common(EXAMPLES[name])):
        for path, value in _random_mutations(form, rng, k):
            m = _set(form, path, value)
            schema_ok, err = v.is_valid(m), _reader_error(m, fresh=True)   # (m: _set's)
            if not schema_ok and err is None:
                assert _lax(game, path), (
                    name, path, value, "the schema refuses what the reader accepts")
            if schema_ok and err is not None:
                assert _BEYOND.search(str(err)), (
                    name, path, value, f"the reader refuses ({err}) and the schema does "
                    f"not: a rule the schema could say")


# ------------------------------------------------ the fuzzer's mutations (issue 33.9)
@pytest.mark.parametrize("game", sorted({s["game"] for s in EXAMPLES.values()}))
def test_schema_and_reader_agree_on_the_fuzzers_mutations(game):
    """The seeded fuzzer's mutations (tests/fuzz.py: whole-number floats, -0.0, 1e308,
    booleans for numbers, NaN, 2**63, deleted keys, swapped types, duplicate ids,
    unicode): what the schema refuses the reader refuses, and what the reader refuses
    beyond the schema is one of BEYOND_A_SCHEMA."""
    import fuzz
    v = _validator(game)
    checked = 0
    for name, case in fuzz.cases(game, 150, seed=4):
        m, done = fuzz.mutate(fuzz.EXAMPLES[name], random.Random(f"{name}:{case}"))
        if any(kind in ("deep", "big") for kind, _ in done):
            continue    # nesting and 5,000-digit numbers: the validator's own limits
        schema_ok, err = v.is_valid(m), _reader_error(m, fresh=True)   # (m: mutate's copy)
        if not schema_ok:
            assert err is not None, (name, done, "the schema refuses what the reader "
                                     "accepts")
        elif err is not None:
            assert _BEYOND.search(str(err)), (name, done, f"the reader refuses ({err}) "
                                              f"and the schema does not")
        checked += 1
    assert checked >= 100
