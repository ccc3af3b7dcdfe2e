"""``movecore bench --big``: every game on a board of about 100,000 cells.

Each game's first bundled example keeps its figures, options and query; its board grows
to a 317 x 317 box (100,489 cells) of plain cells around the example's own (the cells
added copy the example's first cell without its features; a board of rows is padded with
open squares; a Mage Knight map of tiles becomes a box of plains around the heroes). One ``solve()`` of it runs in a fresh process, which reports the seconds
(reading and packing the board included) and its peak resident memory over the solve
(Linux: the peak is reset after the kernels load); the process's memory before the
scenario is read (interpreter, numpy, the kernels from the cache) is reported beside it. The largest boards each game answers in a second and under 500 MiB
are on each game's page.
"""
from __future__ import annotations

import json
import subprocess
import sys

SIDE = 317          # 317 * 317 = 100,489 cells

_CHILD = r"""
import json, resource, sys, time
import movecore as mc
mc.warmup()
s = json.loads(sys.stdin.read())


def status(key):
    for line in open("/proc/self/status"):
        if line.startswith(key):
            return int(line.split()[1]) / 1024


try:   # reset the peak (VmHWM) to what is resident now: the board's own peak after
    open("/proc/self/clear_refs", "w").write("5")
    base = status("VmRSS")
except OSError:
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
t0 = time.perf_counter()
try:
    mc.solve(s)
    err = None
except mc.MovecoreError as e:
    err = f"{type(e).__name__}: {e}"[:200]
dt = time.perf_counter() - t0
try:
    peak = status("VmHWM")
except OSError:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"seconds": dt, "peak_mib": peak, "base_mib": base, "error": err}))
"""


def big_scenario(scenario: dict, side: int = SIDE) -> dict:
    """``scenario`` with its board grown to a ``side`` x ``side`` box of plain cells
    around its own (see the module docstring)."""
    s = json.loads(json.dumps(scenario))
    board = s["board"]
    if "tiles" in board:   # a map of tiles (Mage Knight): plains cells around the figures
        xy = [f["at"] for f in s["figures"]]
        x0, y0 = min(x for x, _ in xy) - side // 2, min(y for _, y in xy) - side // 2
        s["board"] = {"cells": [{"at": [x, y], "terrain": "plains"}
                                for x in range(x0, x0 + side)
                                for y in range(y0, y0 + side)]}
        return s
    sized = "width" in board or "rows" in board   # a board given by its size or rows
    if "cells" in board and not sized:
        cells = board["cells"]
        have = {tuple(c["at"]) for c in cells}
        x0 = min(x for x, _ in have)
        y0 = min(y for _, y in have)
        plain = {k: v for k, v in cells[0].items() if k in ("at", "terrain", "level",
                                                            "height", "elevation")}
        for x in range(x0, x0 + side):
            for y in range(y0, y0 + side):
                if (x, y) not in have:
                    cells.append({**plain, "at": [x, y]})
        return s
    for key in ("rows", "terrain", "elevation"):
        rows = board.get(key)
        if isinstance(rows, list) and rows and isinstance(rows[0], str):
            fill = "." if key != "elevation" else "0"
            board[key] = [r.ljust(side, fill) for r in rows] + \
                [fill * side] * (side - len(rows))
    if "width" in board:
        board["width"] = side
        board["height"] = side
    return s


def run_big(scenario: dict, timeout: float = 600.0) -> dict:
    """One ``solve()`` of ``big_scenario(scenario)`` in a fresh process: seconds, peak
    and base resident MiB, and the error it raised (None)."""
    text = json.dumps(big_scenario(scenario))
    try:
        out = subprocess.run([sys.executable, "-c", _CHILD], input=text, text=True,
                             capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"seconds": timeout, "peak_mib": float("nan"), "base_mib": float("nan"),
                "error": f"over {timeout:.0f} s"}
    if out.returncode != 0:
        return {"seconds": float("nan"), "peak_mib": float("nan"), "base_mib": float("nan"),
                "error": (out.stderr.strip().splitlines() or ["crashed"])[-1][:200]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def big_report(games=None, log=print) -> dict:
    """Print and return each game's 100,000-cell figures."""
    from ..rl.turns import GAMES
    from .selfplay import example_scenarios
    out = {}
    log(f"[big] one solve() on a {SIDE}x{SIDE} board ({SIDE * SIDE:,} cells) per game, "
        f"each in a fresh process ...", flush=True)
    for game in games or GAMES:
        # the first example whose board is cells, rows or a size (not map tiles)
        growable = [(n, sc) for n, sc in example_scenarios(game) if "query" in sc and
                    any(k in sc["board"] for k in ("cells", "rows", "width", "tiles"))]
        if not growable:
            log(f"  {game}: no bundled example with a board of cells or rows")
            continue
        name, scenario = growable[0]
        r = out[game] = run_big(scenario)
        what = f"  {game} ({name}): {r['seconds']:.2f} s, peak {r['peak_mib']:.0f} MiB " \
               f"(process before the board: {r['base_mib']:.0f} MiB)"
        log(what + (f"; {r['error']}" if r["error"] else ""), flush=True)
    return out
