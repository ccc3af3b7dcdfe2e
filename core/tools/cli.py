"""The movecore command line.

    movecore solve FILE.json [--paths] [--svg OUT.svg] [--to X,Y] [--text]
                                         solve a scenario ('-' reads stdin), print JSON
                                         (--text: a text picture; --svg: draw it); FILE
                                         may name a bundled example (movecore examples)
    movecore games                       list the registered game vocabularies
    movecore examples                    list the bundled example scenarios (name, game,
                                         description; movecore.examples in Python)
    movecore demo | render | bench | selfplay | capi ...   (see movecore CMD --help)

Exit status: 0 on success, 2 on bad input (the typed error's message on stderr, one
line): a file that is not UTF-8 JSON, over 64 MiB (movecore.scenario.MAX_SCENARIO_BYTES),
a closed stdin or stdout.
Help and argument errors load no kernels: a subcommand's module is imported only when
that subcommand runs (or its own --help is asked).
"""
from __future__ import annotations

import argparse
import importlib
import json
import re
import sys
from pathlib import Path

from ..errors import MovecoreError, ScenarioError
from ..scenario import available_games, example_paths, solve
from ..scenario import read_scenario as _read


#: Modules that add subcommands: each has ``register(subparsers)`` which adds its parser
#: and sets ``fn`` (a function of the parsed args returning the exit status). A module is
#: imported only when its command is the one given (some load the kernels on import);
#: otherwise the command is listed with this help line.
_COMMAND_MODULES = {
    "demo": ("movecore.tools.demo", "solve and draw one bundled example per game"),
    "render": ("movecore.render", "draw a scenario and its reach (SVG and/or text)"),
    "bench": ("movecore.tools.bench", "time movecore against scipy / tcod / networkx; "
              "or --games, --batch, --rl, --big"),
    "selfplay": ("movecore.tools.selfplay", "bulk seeded movement-only self-play"),
    "capi": ("movecore.bindings.capi", "build the C ABI (libmovecore.so + movecore.h)"),
    "schema": ("movecore.tools.vocab_cli", "print a game's scenario JSON Schema"),
    "convert": ("movecore.tools.vocab_cli", "print a scenario in the common form"),
}
_missing: dict[str, Exception] = {}
_COORD = re.compile(r"^\s*-?\d+\s*,\s*-?\d+\s*$")


def format_result(result: dict) -> str:
    """JSON with one top-level key per line and one list item (an end) per line; a list of
    plain values (a coordinate) stays on one line."""
    lines = []
    for key, value in result.items():
        if isinstance(value, list) and value and \
                any(isinstance(v, (list, dict)) for v in value):
            items = ",\n  ".join(json.dumps(v) for v in value)
            lines.append(f"{json.dumps(key)}: [\n  {items}\n ]")
        else:
            lines.append(f"{json.dumps(key)}: {json.dumps(value)}")
    return "{" + ",\n ".join(lines) + "}"


def cmd_solve(args) -> int:
    scenario = _read(args.file)
    if args.paths:
        query = scenario.get("query")
        if isinstance(query, dict):
            query["paths"] = True
    want_picture = bool(args.svg or args.text or args.to)
    if want_picture:
        from ..vocabulary import to_native
        scenario = to_native(scenario)      # the pictures read the game's own spelling
    if want_picture:
        from ..render import parse_to, picture, solve_for_picture, to_svg, to_text
        to = parse_to(args.to) if args.to else None
        result = solve_for_picture(scenario, to is not None)
        pic = picture(scenario, result, to)
        if args.svg:
            try:
                Path(args.svg).write_text(to_svg(pic), encoding="utf-8")
            except OSError as exc:
                raise ScenarioError(f"cannot write {args.svg!r}: {exc.strerror}") from exc
        if args.text:
            sys.stdout.write(to_text(pic))
            return 0
    else:
        result = solve(scenario)
    sys.stdout.write(json.dumps(result) if args.compact else format_result(result))
    sys.stdout.write("\n")
    return 0


def cmd_games(args) -> int:
    for g in available_games():
        print(g)
    return 0


def cmd_examples(args) -> int:
    from ..examples import catalogue
    rows = catalogue()
    wn = max((len(e.name) for e in rows), default=0)
    wg = max((len(e.game) for e in rows), default=0)
    for e in rows:
        print(f"{e.name:{wn}}  {e.game:{wg}}  {e.description}".rstrip())
    return 0


class _Parser(argparse.ArgumentParser):
    """An argument parser whose help has no reStructuredText markup (double backticks
    from docstrings); subcommand parsers are of this class too."""

    def format_help(self) -> str:
        return super().format_help().replace("``", "")

    def format_usage(self) -> str:
        return super().format_usage().replace("``", "")


def _join_negative_coords(argv: list) -> list:
    """``--to -4,8`` -> ``--to=-4,8`` (argparse takes a leading '-' for an option)."""
    out = []
    for arg in argv:
        if out and out[-1] == "--to" and isinstance(arg, str) and _COORD.match(arg):
            out[-1] = f"--to={arg}"
        else:
            out.append(arg)
    return out


def main(argv=None) -> int:
    argv = _join_negative_coords(list(sys.argv[1:] if argv is None else argv))
    parser = _Parser(prog="movecore", description="movecore: exact, fast movement "
                     "generation for tabletop board games (movecore CMD --help for each)")
    from .. import __version__
    parser.add_argument("--version", action="version", version=f"movecore {__version__}")
    sub = parser.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("solve", help="solve a scenario file and print the result as JSON")
    p.add_argument("file", help="scenario JSON file, - for stdin, or the name of a bundled "
                   "example (movecore examples lists them)")
    p.add_argument("--paths", action="store_true", help="include the path to every end")
    p.add_argument("--compact", action="store_true", help="one-line JSON")
    p.add_argument("--svg", metavar="OUT.svg", help="also draw the board and the reach as SVG")
    p.add_argument("--to", metavar="X,Y", help="draw the path to the end at X,Y (asks the "
                   "query for paths; negative numbers work: --to -4,8)")
    p.add_argument("--text", action="store_true",
                   help="print a text picture of the reach instead of the JSON")
    p.set_defaults(fn=cmd_solve)
    chosen = next((a for a in argv if not a.startswith("-")), None)
    if chosen in _COMMAND_MODULES:
        name = _COMMAND_MODULES[chosen][0]
        try:
            mod = importlib.import_module(name)
        except ImportError as exc:  # an optional extra is missing: say so
            _missing[name] = exc
        else:
            mod.register(sub)       # may add several commands (schema and convert)
    for cmd, (name, help_line) in _COMMAND_MODULES.items():
        if cmd in sub.choices:
            continue
        p = sub.add_parser(cmd, help=help_line, add_help=False)
        p.add_argument("rest", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
        p.set_defaults(fn=lambda args, name=name: _unavailable(name))
    p = sub.add_parser("games", help="list the game vocabularies")
    p.set_defaults(fn=cmd_games)
    p = sub.add_parser("examples", help="list the bundled example scenarios (solve takes "
                       "their names)")
    p.set_defaults(fn=cmd_examples)
    args = parser.parse_args(argv)
    if sys.stdout is None:     # started with stdout closed (>&-): nowhere to answer
        return _fail("stdout is closed; movecore writes its answer there")
    try:
        return args.fn(args)
    except MovecoreError as exc:
        return _fail(f"{type(exc).__name__}: {exc}")
    except BrokenPipeError:
        return 0
    except OSError as exc:     # writing the answer: a closed descriptor, a full disk
        return _fail(f"cannot write the answer: {exc.strerror or exc}")
    except MemoryError:
        return _fail("out of memory")
    except ModuleNotFoundError as exc:     # an optional extra is missing: say which
        extra = _EXTRA_OF.get((exc.name or "").split(".")[0])
        if extra is None:
            raise
        return _fail(f"{exc.name} is not installed: pip install 'movecore[{extra}]' "
                     f"(from a clone: pip install -e '.[{extra}]')")


#: the optional extra that installs each module a command may need
_EXTRA_OF = {"gymnasium": "rl", "pettingzoo": "rl", "ray": "scale"}


def _fail(message: str) -> int:
    """One line on stderr (if there is one) and exit status 2."""
    if sys.stderr is not None:
        print(f"movecore: error: {message}", file=sys.stderr)
    return 2


def _unavailable(name: str) -> int:
    print(f"movecore: error: {name} cannot be imported: {_missing.get(name)}",
          file=sys.stderr)
    return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
