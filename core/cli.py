"""The ``movecore`` command line.

    movecore solve FILE.json [--paths] [--svg OUT.svg] [--to X,Y] [--text]
                                         solve a scenario ('-' reads stdin), print JSON
                                         (--text: a text picture; --svg: draw it)
    movecore games                       list the registered game vocabularies
    movecore demo | bench | selfplay | capi ...   (see ``movecore CMD --help``)

Exit status: 0 on success, 2 on bad input (the typed error's message on stderr).
"""
from __future__ import annotations

import argparse
import importlib
import json
import sys
import time
from importlib import resources
from pathlib import Path

from .errors import MovecoreError, ScenarioError
from .scenario import available_games, load_scenario, solve


#: Modules that add subcommands: each has ``register(subparsers)`` which adds its parser
#: and sets ``fn`` (a function of the parsed args returning the exit status).
_COMMAND_MODULES = [
    "movecore.demo",          # movecore demo
    "movecore.render",        # movecore render ... (pictures)
    "movecore.bench",         # movecore bench
    "movecore.selfplay",      # movecore selfplay
    "movecore.bindings.capi",  # movecore capi build
    "movecore.vocab_cli",     # movecore schema GAME | convert FILE
]
_missing: dict[str, Exception] = {}


def _read(path: str) -> dict:
    if path == "-":
        text = sys.stdin.read()
    else:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise ScenarioError(f"cannot read scenario file {path!r}: {exc.strerror}") from exc
    return load_scenario(text)


def example_paths() -> list[Path]:
    """The bundled example scenarios (``movecore/examples/*.json``), sorted by name."""
    root = resources.files("movecore") / "examples"
    return sorted((Path(str(p)) for p in root.iterdir() if p.name.endswith(".json")),
                  key=lambda p: p.name)


def format_result(result: dict) -> str:
    """JSON with one top-level key per line and one list item (an end) per line."""
    lines = []
    for key, value in result.items():
        if isinstance(value, list) and value:
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
        from .vocabulary import to_native
        scenario = to_native(scenario)      # the pictures read the game's own spelling
    if want_picture:
        from .render import parse_to, picture, solve_for_picture, to_svg, to_text
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


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="movecore", description=__doc__.split("\n")[0])
    from . import __version__
    parser.add_argument("--version", action="version", version=f"movecore {__version__}")
    sub = parser.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("solve", help="solve a scenario file and print the result as JSON")
    p.add_argument("file", help="scenario JSON file, or - for stdin")
    p.add_argument("--paths", action="store_true", help="include the path to every end")
    p.add_argument("--compact", action="store_true", help="one-line JSON")
    p.add_argument("--svg", metavar="OUT.svg", help="also draw the board and the reach as SVG")
    p.add_argument("--to", metavar="X,Y", help="draw the path to the end at X,Y (asks the "
                   "query for paths)")
    p.add_argument("--text", action="store_true",
                   help="print a text picture of the reach instead of the JSON")
    p.set_defaults(fn=cmd_solve)
    for name in _COMMAND_MODULES:
        try:
            mod = importlib.import_module(name)
        except ImportError as exc:  # an optional extra is missing: say so, keep the rest
            _missing[name] = exc
            continue
        mod.register(sub)
    p = sub.add_parser("games", help="list the game vocabularies")
    p.set_defaults(fn=cmd_games)
    args = parser.parse_args(argv)
    try:
        return args.fn(args)
    except MovecoreError as exc:
        print(f"movecore: error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
