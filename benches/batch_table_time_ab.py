"""How long a whole ``movecore bench --batch`` table takes (wall and process CPU seconds):
another ``bench_batch.py`` (main's, say) against this tree's, alternated in one process
after the kernels are loaded, every game, the report's output kept (its 2-thread lines
printed).

    git -C /work/main show main:core/tools/bench_batch.py > /tmp/bench_batch_main.py
    python benches/batch_table_time_ab.py /tmp/bench_batch_main.py 3 0.1
"""
from __future__ import annotations

import importlib.util
import os
import sys
import time

from movecore.reach import warmup
from movecore.tools import bench_batch as this


def load(path: str):
    # a module of movecore.tools, so that its relative imports resolve
    spec = importlib.util.spec_from_file_location("movecore.tools._bench_batch_other", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def main() -> None:
    other = load(sys.argv[1])
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    min_time = float(sys.argv[3]) if len(sys.argv) > 3 else 0.1
    warmup()
    pair = (("other", other), ("this", this))
    for k in range(reps):
        for name, mod in pair[::1 if k % 2 == 0 else -1]:
            lines = []
            c0, t0 = time.process_time(), time.perf_counter()
            mod.batch_report(None, min_time=min_time,
                             log=lambda *a, **kw: lines.append(a[0]))
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
            print(f"{name}: {wall:.1f} s wall, {cpu:.1f} s CPU, load average "
                  f"{os.getloadavg()[0]:.2f}", flush=True)
            for line in lines:
                if "2 threads / 1 at" in line:
                    print("   ", line.strip().split("; 2 threads / 1 at")[-1][:150])


if __name__ == "__main__":
    main()
