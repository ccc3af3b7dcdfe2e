"""``movecore demo``: solve every bundled example scenario and print timings."""
from __future__ import annotations

import json
import time

from .cli import example_paths
from .scenario import available_games, load_scenario, solve


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


def register(sub) -> None:
    p = sub.add_parser("demo", help="solve every bundled example scenario")
    p.set_defaults(fn=cmd_demo)
