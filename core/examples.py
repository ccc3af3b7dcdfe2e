"""The bundled example scenarios: names, one-line descriptions, and ``load(name)``.

Every example is a scenario JSON file shipped in the package (``movecore/examples/``);
``movecore solve NAME`` and ``movecore examples`` on the command line read the same.
Loading an example imports no game and no kernel.

>>> from movecore import examples
>>> "grid_issue_example" in examples.names()
True
>>> scenario = examples.load("grid_issue_example")
>>> scenario["game"], examples.describe("grid_issue_example")[:31]
('grid', 'The README example: an enemy bl')
>>> import movecore as mc
>>> mc.solve(scenario)["ends"]
[{'at': [0, 0], 'cost': 0, 'stopped': False}]
"""
from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import NamedTuple

__all__ = ["Example", "names", "load", "describe", "path", "game", "catalogue"]

#: One line per bundled example (a test checks that every file has one).
DESCRIPTIONS = {
    "capi_hex_skirmish": "The C API's example: a hero on a small hex skirmish board, "
                         "with paths.",
    "dark_realms_die_planning": "Dark Realms: the odds of each end for a d6 movement roll "
                                "(planning before the die is cast).",
    "dark_realms_doc_example": "Dark Realms: the enemy AI moves a ghoul (move 4, "
                               "range 1): the worked example of the docs.",
    "dark_realms_enemy_turn": "Dark Realms: a ghoul's turn by the enemy AI among several "
                              "heroes.",
    "dark_realms_hero_move": "Dark Realms: a hero moves a roll of 2 plus bonus and "
                             "stamina, with paths.",
    "dark_realms_summon_target": "Dark Realms: a ranged enemy (archer, range 3) picks its "
                                 "target and end by the enemy AI.",
    "descent_door_round": "Descent: a hero runs around and through doors, with paths.",
    "descent_door_twice": "Descent: a hero advances with fatigue through a door twice, "
                          "with paths.",
    "descent_dragon": "Descent: a large 2x3 dragon moves and may turn its base, with paths.",
    "descent_hell_hound": "Descent: a two-square (2x1) hell hound's move, with paths.",
    "descent_hero_run": "Descent: a hero's run with fatigue on a dungeon with doors, walls, "
                        "stairs and glyphs.",
    "descent_ogre": "Descent: a large ogre's move through doors on the same dungeon, with "
                    "paths.",
    "grid_ally_pass": "Generic grid: a figure passes through an ally but may not end on it.",
    "grid_hex_skirmish": "Generic grid: a scout on hex cells with heights, a climb limit "
                         "and a provoke token.",
    "grid_issue_example": "The README example: an enemy blocks the way, an unenterable "
                          "cell behind a link.",
    "heroscape_engaged_knight": "Heroscape: an engaged knight's move with leaving-"
                                "engagement attacks (master game), with paths.",
    "heroscape_map_aoa_heshva_basin": "Heroscape: Agent Carr moves 5 on the Heshva Basin "
                                      "battlefield.",
    "heroscape_map_aoa_howling_pass": "Heroscape: Grimnak moves 5 on the Howling Pass "
                                      "battlefield.",
    "heroscape_map_aoa_shattered_table": "Heroscape: Sgt. Drake moves 6 on the Shattered "
                                         "Table battlefield.",
    "heroscape_river_crossing": "Heroscape: a two-space dragon crosses a river (master "
                                "game, climbing limited below its height).",
    "heroscape_stream_crossing": "Heroscape: a two-space wyvern crosses a stream (master "
                                 "game), with paths.",
    "mage_knight_first_turns": "Mage Knight: Tovak's first turns by day with terrain cost "
                               "reductions, with paths.",
    "mage_knight_reveal_continue": "Mage Knight: Tovak reveals a countryside tile and "
                                   "moves on onto it.",
    "mage_knight_walls": "Mage Knight: Tovak moves 7 by day where walls stand between "
                         "spaces, with paths.",
    "tiny_epic_tactics_knock_back": "Tiny Epic Tactics: the knight knocks the troll back "
                                    "3 spaces.",
    "tiny_epic_tactics_last_unit": "Tiny Epic Tactics: a side's last unit (the wizard) "
                                   "with 3 actions.",
    "tiny_epic_tactics_skirmish": "Tiny Epic Tactics: a knight moves 4 on a realm map "
                                  "with elevation and portals, with paths.",
    "tiny_epic_tactics_solo_compass": "Tiny Epic Tactics: a solo-mode orc moves by the "
                                      "compass (west).",
    "tiny_epic_tactics_village_detour": "Tiny Epic Tactics: a knight's way via a village "
                                        "space, with paths.",
}


class Example(NamedTuple):
    """A bundled example: its name (the file's stem), game, one-line description, file."""
    name: str
    game: str
    description: str
    path: Path


def _root():
    return resources.files("movecore") / "examples"


def _paths() -> dict[str, Path]:
    return {p.name[:-5]: Path(str(p)) for p in sorted(_root().iterdir(), key=lambda p: p.name)
            if p.name.endswith(".json")}


def names() -> list[str]:
    """The bundled examples' names, sorted."""
    return list(_paths())


def path(name: str) -> Path:
    """The file of the example ``name`` (with or without ``.json``);
    :class:`~movecore.ScenarioError` naming the known ones otherwise."""
    stem = name[:-5] if isinstance(name, str) and name.endswith(".json") else name
    found = _paths().get(stem) if isinstance(stem, str) else None
    if found is None:
        from .errors import ScenarioError, describe as _describe
        raise ScenarioError(f"no bundled example {_describe(name)}; expected one of "
                            f"{names()}")
    return found


def load(name: str) -> dict:
    """The scenario of the example ``name``: a new dict each call (``movecore.solve`` and
    ``movecore.position`` take it as it is)."""
    return json.loads(path(name).read_text(encoding="utf-8"))


def game(name: str) -> str:
    """The game the example ``name`` is a scenario of."""
    return load(name)["game"]


def describe(name: str) -> str:
    """The example's one-line description."""
    stem = path(name).name[:-5]
    return DESCRIPTIONS.get(stem, "")


def catalogue() -> list[Example]:
    """Every bundled example with its game and description, sorted by name."""
    return [Example(stem, json.loads(p.read_text(encoding="utf-8"))["game"],
                    DESCRIPTIONS.get(stem, ""), p) for stem, p in _paths().items()]
