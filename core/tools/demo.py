"""``movecore demo``: one bundled example per game, drawn.

For each game (grid, Heroscape, Mage Knight, Descent, Tiny Epic Tactics, Dark Realms) the
demo solves a bundled example scenario, prints the text picture of its reach and the time
per solve, and writes the SVG picture to a folder (``--out DIR``, default
``movecore-demo/`` in the current directory). ``--all`` also times every bundled example.
"""
from __future__ import annotations

import json
import time
from pathlib import Path

from .cli import example_paths
from ..errors import MovecoreError, ScenarioError
from ..scenario import available_games, load_scenario, solve

#: (game, example file, end to draw the path to: None = the farthest end)
DEMO = (
    ("grid", "grid_hex_skirmish.json", None),
    ("heroscape", "heroscape_map_aoa_shattered_table.json", None),
    ("mage_knight", "mage_knight_first_turns.json", None),
    ("descent", "descent_hero_run.json", None),
    ("tiny_epic_tactics", "tiny_epic_tactics_skirmish.json", None),
    ("dark_realms", "dark_realms_hero_move.json", None),
)
DEFAULT_OUT = "movecore-demo"


def _example(name: str) -> Path | None:
    for p in example_paths():
        if p.name == name:
            return p
    return None


def farthest_end(pic):
    """The anchor of the end drawn by default: the dearest end that has a path (ties: the
    first in the result's order), so the picture shows a long route."""
    best = None
    for e in pic.ends:
        if e.path and isinstance(e.cost, (int, float)) and \
                (best is None or e.cost > best.cost):
            best = e
    return None if best is None else tuple(best.cells[0])


def kernels_ready() -> str:
    """Load the kernels (compiling them on a cold cache) and say truthfully how long it
    took and where they came from."""
    import importlib
    import sys

    import movecore
    loaded_before = "movecore.kernels.reach" in sys.modules
    t0 = time.perf_counter()
    # the shared kernels only: the per-kind and per-game ones compile (announced) at the
    # first query that needs them, so the demo compiles only what its examples use
    importlib.import_module("movecore.kernels.reach")
    dt = time.perf_counter() - t0
    info = movecore.KERNELS_LOADED
    if loaded_before or info is None:
        return f"kernels ready in {dt:.2f} s (already loaded)"
    if info["cold"]:
        import os
        where = ("not cached: MOVECORE_NO_CACHE is set" if os.environ.get(
            "MOVECORE_NO_CACHE", "") not in ("", "0") else
            f"cached now in {movecore.kernel_cache_dir()}: later runs load them")
        return f"kernels ready in {dt:.1f} s in all, the compile above included ({where})"
    return f"kernels loaded from the numba cache in {dt:.2f} s"


def run_demo(out_dir, *, repeat: int = 5, echo=print) -> list[Path]:
    """Solve and draw one example per game; write ``<game>.svg`` into ``out_dir``.
    Returns the written files (a game whose example is missing is reported, skipped)."""
    from ..render import picture, solve_for_picture, to_svg, to_text
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ScenarioError(f"cannot create the demo folder {str(out)!r}: "
                            f"{exc.strerror}") from exc
    echo(kernels_ready())
    written = []
    for game, name, to in DEMO:
        path = _example(name)
        if path is None or game not in available_games():
            echo(f"\n== {game}: example {name} not bundled; skipped")
            continue
        scenario = load_scenario(path.read_text(encoding="utf-8"))
        t1 = time.perf_counter()
        result = solve_for_picture(scenario, True)
        first = time.perf_counter() - t1
        t1 = time.perf_counter()
        for _ in range(repeat):
            solve(scenario)
        per = (time.perf_counter() - t1) / max(repeat, 1)
        pic = picture(scenario, result)
        if pic.path is None:
            far = to or farthest_end(pic)
            if far is not None:
                pic = picture(scenario, result, far)
        target = out / f"{game}.svg"
        try:
            target.write_text(to_svg(pic), encoding="utf-8")
        except OSError as exc:
            raise ScenarioError(f"cannot write {str(target)!r}: {exc.strerror}") from exc
        written.append(target)
        echo(f"\n== {game}: {name}  ({per * 1e3:.2f} ms per solve, first "
             f"{first * 1e3:.1f} ms; {len(pic.labels())} end cells) -> {target}")
        echo(to_text(pic), end="")
    return written


def time_all(echo=print, repeat: int = 20) -> None:
    """Time every bundled example (the old ``demo``)."""
    for path in example_paths():
        scenario = load_scenario(path.read_text(encoding="utf-8"))
        try:
            solve(scenario)
        except MovecoreError as exc:
            echo(f"== {path.name}: {type(exc).__name__}: {exc}")
            continue
        t0 = time.perf_counter()
        for _ in range(repeat):
            result = solve(scenario)
        dt = (time.perf_counter() - t0) / repeat
        ends = result.get("ends")
        n = f"{len(ends)} ends" if isinstance(ends, list) else json.dumps(result)[:80]
        echo(f"== {path.name}  (game {scenario.get('game')}, {dt * 1e3:.2f} ms per solve; "
             f"{n})")


def cmd_demo(args) -> int:
    t0 = time.perf_counter()
    written = run_demo(args.out)
    if args.all:
        print("\n== every bundled example")
        time_all()
    print(f"\n{len(written)} pictures written to {Path(args.out).resolve()}/ "
          f"in {time.perf_counter() - t0:.2f} s")
    return 0


def register(sub) -> None:
    p = sub.add_parser("demo", help="solve and draw one bundled example per game")
    p.add_argument("--out", metavar="DIR", default=DEFAULT_OUT,
                   help=f"folder for the SVG pictures (default {DEFAULT_OUT}/)")
    p.add_argument("--all", action="store_true", help="also time every bundled example")
    p.set_defaults(fn=cmd_demo)
