"""Pictures of a scenario and its answer: SVG for the eye, text for the terminal.

    from movecore.render import picture, to_svg, to_text
    result = solve(scenario)
    pic = picture(scenario, result, to=(3, 1))   # to: draw the path to this end
    open("reach.svg", "w").write(to_svg(pic))
    print(to_text(pic))

Everything works from the plain ``(scenario dict, result dict)`` pair that :func:`solve`
takes and gives, so any game works. Each game's board is read by that game's own reader
(the one ``solve`` uses), and :func:`picture` turns it into a neutral :class:`Picture`:
cells (terrain colour, level, marks such as obstacles, traps, glyphs, portals), wall
and door edges, links (stairs, portals), figures with their team colour and footprint,
the reach (one label per end cell: its cost; stopped ends and dangerous ends marked) and
the path to one chosen end. :func:`to_svg` and :func:`to_text` draw a Picture; the output
depends only on the input (no dates, no random ids), so pictures can be compared as files.

The drawing has no dependency beyond the standard library.

The package, by responsibility (every name importable from here): ``_model`` (the
neutral :class:`Picture` and the shared colours), ``_boards`` (each game's board: its
terrain colours, characters, marks and legend), ``_picture`` (:func:`picture`: a
scenario and its result drawn into a Picture), ``_svg`` (:func:`to_svg`) and ``_text``
(:func:`to_text`); this module adds the one-call forms and the ``movecore render``
command. Imports go ``__init__`` -> ``_svg`` / ``_text`` / ``_picture`` -> ``_boards``
-> ``_model``.

The pictures sit below :mod:`movecore.rl` in the layers (its environments' render modes
``"ansi"`` and ``"svg"`` draw with them) and above the games (each board is read by its
game's reader): see docs/architecture.md.
"""
from __future__ import annotations

from ..errors import QueryError, ScenarioError
from ._boards import (DESCENT_CHAR, DESCENT_TERRAIN, HEROSCAPE_TERRAIN,  # noqa: F401
                      MAGE_KNIGHT_SITE, MAGE_KNIGHT_TERRAIN, TET_CHAR, TET_TERRAIN)
from ._model import (OBSTACLE, PALETTE, RIFT, TEAM_COLOURS, TRAP, PCell,  # noqa: F401
                     PEnd, PFigure, Picture, shade, stop_reasons)
from ._picture import MAGE_KNIGHT_STOPS, choose_end, picture  # noqa: F401
from ._svg import (DANGER_RIM, LINK_COLOUR, PATH_COLOUR, REACH_RIM, S, SQ3,  # noqa: F401
                   STAMINA_RIM, STOP_RIM, legend_items, to_svg)
from ._text import to_text


__all__ = ["Picture", "PCell", "PFigure", "PEnd", "picture", "to_svg", "to_text",
           "render_svg", "render_text", "choose_end"]


def render_svg(scenario: dict, result: dict, to=None, **kw) -> str:
    """``to_svg(picture(scenario, result, to))``."""
    return to_svg(picture(scenario, result, to, **kw))


def render_text(scenario: dict, result: dict, to=None, **kw) -> str:
    """``to_text(picture(scenario, result, to))``."""
    return to_text(picture(scenario, result, to, **kw))


# -------------------------------------------------------------------- command line
def parse_to(text: str) -> tuple:
    """``"3,-1"`` -> ``(3, -1)``; a typed error otherwise."""
    try:
        x, y = (int(v) for v in text.replace(" ", "").split(","))
    except ValueError:
        raise QueryError(f"--to {text!r}: expected two integers 'X,Y' (e.g. 3,-1)") from None
    return (x, y)


def solve_for_picture(scenario: dict, want_paths: bool) -> dict:
    """Solve, asking for paths when the query takes ``paths`` (and ``want_paths``)."""
    from ..scenario import solve
    query = scenario.get("query")
    if want_paths and isinstance(query, dict) and query.get("paths") is not True:
        try:
            return solve(dict(scenario, query=dict(query, paths=True)))
        except ScenarioError:
            pass   # this query kind takes no 'paths': solve it as it is
    return solve(scenario)


def cmd_render(args) -> int:
    from ..scenario import read_scenario as _read
    scenario = _read(args.file)
    to = parse_to(args.to) if args.to else None
    result = solve_for_picture(scenario, to is not None)
    pic = picture(scenario, result, to, orientation=args.orientation)
    if args.svg:
        with open(args.svg, "w", encoding="utf-8") as fh:
            fh.write(to_svg(pic))
    if args.text or not args.svg:
        print(to_text(pic), end="")
    return 0


def register(sub) -> None:
    p = sub.add_parser("render", help="draw a scenario and its reach (SVG and/or text)")
    p.add_argument("file", help="scenario JSON file, or - for stdin")
    p.add_argument("--svg", metavar="OUT.svg", help="write the picture as SVG")
    p.add_argument("--to", metavar="X,Y", help="draw the path to the end at X,Y")
    p.add_argument("--text", action="store_true", help="print the text picture")
    p.add_argument("--orientation", choices=("pointy", "flat"), default="pointy",
                   help="hex orientation (default pointy: rows of hexes)")
    p.set_defaults(fn=cmd_render)
