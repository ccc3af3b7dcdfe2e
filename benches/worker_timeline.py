"""Where a whole-suite run's pytest-xdist workers spend their wall time: each worker's
start-up (the conftest's compile warm-up, then the collection) and each test, with the
worker's CPU (its own and its finished children's) at each step, so that a worker that
waits (on the other's compile lock, on nothing left to steal) shows as wall time
without CPU.

Two steps. ``plugin DIR`` writes a pytest plugin ``tltimeline.py`` into ``DIR``; a run
with ``PYTHONPATH=DIR`` and ``-p tltimeline`` (workers load it too) logs each process's
events to ``$TL_DIR/<worker>-<pid>.log``. ``report TL_DIR`` reads them back: per worker,
its start-up's CPU (the warm-up's compiles) and wall (from the controller's
configure), its collection's wall and CPU, its tests' wall and CPU, when
its last test ended, and the tests whose CPU is well above their wall (threads).

The readings of 2026-11-29/30 (``docs/performance_log.md``, "CI at 606 s")::

    python benches/worker_timeline.py plugin /tmp/tl
    TL_DIR=/tmp/tl/out PYTHONPATH=/tmp/tl MOVECORE_CACHE=/tmp/cold \\
        pytest -p tltimeline
    python benches/worker_timeline.py report /tmp/tl/out
"""
from __future__ import annotations

import glob
import os
import sys

_PLUGIN = r'''
# written by benches/worker_timeline.py: each step of this process, with its wall time
# and CPU (its own and its finished children's)
import os, resource, time
import pytest
_f = None

def _out(kind, name=""):
    global _f
    if _f is None:
        d = os.environ.get("TL_DIR", "tl-out")
        os.makedirs(d, exist_ok=True)
        who = os.environ.get("PYTEST_XDIST_WORKER", "main")
        _f = open(os.path.join(d, f"{who}-{os.getpid()}.log"), "a", buffering=1)
    r = resource.getrusage(resource.RUSAGE_SELF)
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = r.ru_utime + r.ru_stime + c.ru_utime + c.ru_stime
    _f.write(f"{kind} {time.time():.3f} {cpu:.3f} {name}\n")

@pytest.hookimpl(trylast=True)
def pytest_configure(config):     # (after the conftest's: its warm-up is done)
    _out("configure")

def pytest_collection_finish(session):
    _out("collected")

def pytest_runtest_logstart(nodeid, location):
    _out("start", nodeid)

def pytest_runtest_logfinish(nodeid, location):
    _out("end", nodeid)

def pytest_unconfigure(config):
    _out("unconfigure")
'''


def plugin(folder: str) -> None:
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "tltimeline.py"), "w") as f:
        f.write(_PLUGIN.lstrip())
    print(f"TL_DIR=LOGDIR PYTHONPATH={folder} pytest -p tltimeline ...")


def report(folder: str) -> None:
    heavy = []
    mains = glob.glob(os.path.join(folder, "main-*.log"))
    t_main = float(open(mains[0]).readline().split()[1]) if mains else None
    for path in sorted(glob.glob(os.path.join(folder, "gw*.log"))):
        events = [line.rstrip("\n").split(" ", 3) for line in open(path)]
        t0, c0 = float(events[0][1]), float(events[0][2])
        began: dict = {}
        wall = cpu = 0.0
        last = t0
        print(os.path.basename(path))
        since = "" if t_main is None else f"{t0 - t_main:.1f} s wall after the " \
            "controller's configure, "
        print(f"  start-up and warm-up: {since}{c0:.1f} CPU s")
        for kind, t, c, *rest in events:
            t, c = float(t), float(c)
            if kind == "collected":
                print(f"  collection: {t - t0:.1f} s wall, {c - c0:.1f} CPU s")
            elif kind == "start":
                began[rest[0]] = (t, c)
            elif kind == "end":
                t1, c1 = began.pop(rest[0])
                wall += t - t1
                cpu += c - c1
                last = t
                if c - c1 > 1.0 and c - c1 > 1.3 * (t - t1):
                    heavy.append((c - c1, t - t1, rest[0]))
            elif kind == "unconfigure":
                print(f"  tests: {wall:.1f} s wall, {cpu:.1f} CPU s; last test ended at "
                      f"{last - t0:.1f} s, the worker at {t - t0:.1f} s (from configure)")
    if heavy:
        print("tests whose CPU is over 1.3x their wall:")
        for c, w, name in sorted(heavy, reverse=True)[:20]:
            print(f"  {c:6.1f} CPU s {w:6.1f} s  {name}")


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2 or argv[0] not in ("plugin", "report"):
        print(__doc__)
        return 2
    (plugin if argv[0] == "plugin" else report)(argv[1])
    return 0


if __name__ == "__main__":
    sys.exit(main())
