"""Descent: Journeys in the Dark, 1st edition (``movecore.games.descent``, docs/descent.md).

* :mod:`.rules` — the rulebook page: the game's words, options and rule decisions, the
  dungeon and figure readers.
* :mod:`.position` — the live :class:`Position` (what ``solve()`` and :func:`move` ask).

Its private modules, by responsibility:

* :mod:`._dungeon` — the dungeon as flat arrays (board reading), door and stop codes.
* :mod:`._placements` — where a kind may stand and step: placements, steps, turns and
  pit jumps, built with numpy over the dungeon.
* :mod:`._door_memory` — the memory of the doors opened on a move (memory radius, memory
  nodes and their links).
* :mod:`._kind_graph` — one kind's graph: nodes, per-node arrays, the board of each door
  state, large monsters' geometry.
* :mod:`._static` — what positions of one dungeon share, and the cache of dungeons.
* :mod:`._layers` — a position's layers per kind of mover.
* :mod:`._doors` — door states and rune keys of a position.
* :mod:`._answers` — answers in game words: paths, doors opened, ends, scenario form.
* :mod:`._window` — the box of a big dungeon a one-off ``solve()`` can reach.

Importing the package registers the game; its public names are re-exported here. It
loads only the rules (reading a scenario, :func:`read_scenario`, needs no kernel):
:class:`Position` loads on first use.
"""
from ...position import lazy_position
from ...scenario import expect_keys, register_game
from .._common import lazy_exports
from .rules import *  # noqa: F401,F403  (the public names: ``descent.read_board``, ...)
from .rules import Dungeon, Hero, read_scenario

__getattr__, __dir__ = lazy_exports(__name__, {"Position": "position"})
lazy_position("descent", __name__ + ".position")


@register_game("descent", read=read_scenario)
def solve_descent(scenario: dict) -> dict:
    """``solve()`` of a Descent scenario: its live position, asked the query."""
    expect_keys(scenario, "scenario", ("game", "board", "options", "party", "figures",
                                       "query"), required=("board", "figures", "query"))
    from .position import Position
    pos = Position._from_parts(scenario, scenario["query"])
    return pos.solve(scenario["query"])


def move(dungeon: Dungeon, figures: list[Hero], mover: Hero, mp: int, *, rune_keys=(),
         corner_cutting: bool = True, ice: str = "normal", large_turns: str = "all",
         large_jumps: bool = False, hound_slides: bool = False,
         paths: bool = False) -> dict:
    """Every legal end of ``mover``'s move with ``mp`` movement points, in game words
    (``solve()``'s result; a one-off :class:`Position` of the objects answers it)."""
    from .position import Position
    pos = Position(dungeon, figures, rune_keys=set(rune_keys),
                   corner_cutting=corner_cutting, ice=ice, large_turns=large_turns,
                   large_jumps=large_jumps, hound_slides=hound_slides)
    return pos.solve({"figure": mover.id, "mp": mp, "paths": paths})
