"""What one Descent ``solve()`` costs on big boards: board size and doors far from the
figure against the figure's reach (issue 33.7). Each case runs in a fresh process (the
kernels from the cache) and reports the seconds of one ``solve()`` of a fresh dungeon
(reading the board, the mover's kind graph, the query), of a second one (the dungeon's
graphs reused), and the peak resident memory of the process (Linux: the peak is reset
after the kernels load; the process's memory before the scenario is read is shown
beside it).

    python benches/descent_reach_cost.py [CASE ...]            # this checkout
    python benches/descent_reach_cost.py --src DIR [CASE ...]  # and another checkout's
                                                               # package tree (A/B)

Cases: ``doors200`` / ``doors2000`` (a 316 x 316 room with 200 / 2,000 one-edge doors
scattered over it, a hero with 10 MP in its middle), ``doors200_near20`` (the same with
20 of the doors within 8 squares of the hero), ``room316``, ``hound316``, ``dragon316``
(316 x 316, a one-square monster, a 2x1 hell hound, a 2x3 dragon, speed 4),
``hound50x2000``, ``room1024`` / ``hound1024`` (1024 x 1024, the most squares a board may
have), ``position316`` (``mc.position()`` of the 316 x 316 room and one
``legal_moves``: a live position holds the whole dungeon). One run; quote ratios
measured in one run (a shared machine's times are noisy).
"""
from __future__ import annotations

import json
import random
import subprocess
import sys

_CHILD = r"""
import json, resource, sys, time
src = sys.argv[1]
if src:
    sys.path.insert(0, src)
import movecore as mc
mc.warmup()
s = json.loads(sys.stdin.read())


def status(key):
    for line in open("/proc/self/status"):
        if line.startswith(key):
            return int(line.split()[1]) / 1024


try:
    open("/proc/self/clear_refs", "w").write("5")
    base = status("VmRSS")
except OSError:
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
live = s.pop("live", False)
ask = (lambda s: {"ends": mc.position(s).legal_moves(s["query"]["figure"]).to_dicts()}) \
    if live else mc.solve
t0 = time.perf_counter()
try:
    out = ask(s)
    err, ends = None, len(out["ends"])
except mc.MovecoreError as e:
    err, ends = f"{type(e).__name__}: {e}"[:160], None
dt = time.perf_counter() - t0
t1 = time.perf_counter()
if err is None:                       # the same dungeon again: graphs reused
    ask(s)
again = time.perf_counter() - t1
try:
    peak = status("VmHWM")
except OSError:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"seconds": dt, "again": again, "peak_mib": peak, "base_mib": base,
                  "ends": ends, "error": err}))
"""


def _doors(n: int, side: int, near: int = 0, seed: int = 1) -> list:
    """n one-edge doors (between (x, y) and (x + 1, y)), seeded: ``near`` of them within
    8 squares of the middle, the others anywhere."""
    rng = random.Random(seed)
    mid = side // 2
    seen, out = set(), []
    while len(out) < n:
        if len(out) < near:
            x, y = mid + rng.randint(-8, 7), mid + rng.randint(-8, 8)
        else:
            x, y = rng.randrange(side - 1), rng.randrange(side)
        if (x, y) in seen or (x, y) == (mid, mid):
            continue
        seen.add((x, y))
        out.append({"id": f"d{len(out)}", "between": [[x, y], [x + 1, y]]})
    return out


def scenario(case: str) -> dict:
    """The scenario of ``case`` (see the module docstring)."""
    if case.startswith("doors"):
        side = 316
        n, _, near = case[5:].partition("_near")
        board = {"width": side, "height": side,
                 "doors": _doors(int(n), side, int(near or 0))}
        figs = [{"id": "h", "side": "hero", "at": [side // 2, side // 2], "speed": 4}]
        query = {"figure": "h", "mp": 10}
    elif case in ("room1024", "hound1024"):
        board = {"width": 1024, "height": 1024}
        figs = [{"id": "m", "side": "monster", "at": [512, 512], "speed": 4,
                 "footprint": "2x1" if case == "hound1024" else "1x1"}]
        query = {"figure": "m"}
    elif case in ("room316", "hound316", "dragon316", "hound50x2000", "position316"):
        w, h = (50, 2000) if case == "hound50x2000" else (316, 316)
        board = {"width": w, "height": h}
        fp = {"hound316": "2x1", "hound50x2000": "2x1", "dragon316": "2x3"}.get(case, "1x1")
        figs = [{"id": "m", "side": "monster", "at": [w // 2, h // 2], "speed": 4,
                 "footprint": fp}]
        query = {"figure": "m"}
        if case == "position316":          # a live position: the whole dungeon
            return {"game": "descent", "board": board, "figures": figs, "query": query,
                    "live": True}
    else:
        raise SystemExit(f"unknown case {case!r}")
    return {"game": "descent", "board": board, "figures": figs, "query": query}


CASES = ("doors200", "doors200_near20", "doors2000", "room316", "hound316", "dragon316",
         "hound50x2000", "room1024", "hound1024", "position316")


def run(case: str, src: str = "", timeout: float = 600.0) -> dict:
    """One ``solve()`` of ``case`` in a fresh process (``src``: a package tree to import
    movecore from instead of the installed one)."""
    text = json.dumps(scenario(case))
    try:
        out = subprocess.run([sys.executable, "-c", _CHILD, src], input=text, text=True,
                             capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"seconds": timeout, "error": f"over {timeout:.0f} s"}
    if out.returncode != 0:
        return {"seconds": float("nan"),
                "error": (out.stderr.strip().splitlines() or ["crashed"])[-1][:200]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list) -> None:
    srcs = [""]
    while "--src" in argv:
        k = argv.index("--src")
        srcs.append(argv[k + 1])
        del argv[k:k + 2]
    if len(srcs) > 1 and "--no-here" in argv:
        srcs.pop(0)
    argv = [a for a in argv if a != "--no-here"]
    for case in argv or CASES:
        for src in srcs:
            r = run(case, src)
            label = src or "this checkout"
            if r.get("error") and r.get("ends") is None and "peak_mib" not in r:
                print(f"{case:14s} {label:28s} {r['error']}", flush=True)
                continue
            print(f"{case:14s} {label:28s} {r['seconds']:7.2f} s  again {r['again']:6.3f} s"
                  f"  peak {r['peak_mib']:6.0f} MiB (before {r['base_mib']:.0f})  "
                  f"ends {r['ends']}  {r['error'] or ''}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
