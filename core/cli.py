"""The ``movecore`` command line.

    movecore solve FILE.json [--paths]   solve a scenario ('-' reads stdin), print JSON
    movecore demo [--out DIR]            solve every bundled example, print timings
    movecore games                       list the registered game vocabularies

Exit status: 0 on success, 2 on bad input (the typed error's message on stderr).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from importlib import resources
from pathlib import Path

from .errors import MovecoreError, ScenarioError
from .scenario import available_games, load_scenario, solve


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
    result = solve(scenario)
    sys.stdout.write(json.dumps(result) if args.compact else format_result(result))
    sys.stdout.write("\n")
    return 0


def cmd_demo(args) -> int:
    from .reach import warmup
    t0 = time.perf_counter()
    warmup()
    print(f"kernels ready in {time.perf_counter() - t0:.2f} s "
          f"(numba cache; first run compiles)")
    print(f"games: {', '.join(available_games())}")
    for path in example_paths():
        scenario = load_scenario(path.read_text(encoding="utf-8"))
        solve(scenario)  # first call pays any adapter-specific warm-up
        n = 20
        t0 = time.perf_counter()
        for _ in range(n):
            result = solve(scenario)
        dt = (time.perf_counter() - t0) / n
        ends = result.get("ends", [])
        print(f"\n== {path.name}  (game {scenario['game']}, {dt * 1e3:.2f} ms per solve)")
        if isinstance(ends, list):
            shown = ", ".join(f"{e.get('at')}:{e.get('cost')}" for e in ends[:12])
            more = f" ... (+{len(ends) - 12})" if len(ends) > 12 else ""
            print(f"   {len(ends)} ends: {shown}{more}")
        else:
            print("   " + json.dumps(result)[:300])
    return 0


def cmd_games(args) -> int:
    for g in available_games():
        print(g)
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="movecore", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("solve", help="solve a scenario file and print the result as JSON")
    p.add_argument("file", help="scenario JSON file, or - for stdin")
    p.add_argument("--paths", action="store_true", help="include the path to every end")
    p.add_argument("--compact", action="store_true", help="one-line JSON")
    p.set_defaults(fn=cmd_solve)
    p = sub.add_parser("demo", help="solve every bundled example scenario")
    p.set_defaults(fn=cmd_demo)
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
