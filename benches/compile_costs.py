"""Where a cold-cache run spends its CPU on Numba compiles: every ``numba:compile`` event
of every process (pytest-xdist workers and the subprocesses tests start), by function.

Two steps. ``probe DIR`` writes a ``sitecustomize.py`` into ``DIR``; any Python started
with ``PYTHONPATH=DIR`` and ``COLDJIT_EV=LOGDIR`` in its environment then logs each
compile it does (nested ones too: a callee compiled while its caller is) to
``LOGDIR/<pid>.jsonl``, with its wall and process CPU seconds, its argument types, whether
the dispatcher is cached, and the test running (``PYTEST_CURRENT_TEST``). The listener is
registered when numba is imported, whoever imports it first. ``report LOGDIR`` reads the
logs back: compile CPU by process, by top-level function (a depth-0 compile's CPU holds
its nested compiles), the functions compiled with more than one signature in one
process, and those compiled in more than one process (a test's subprocess with a cache
of its own, or an uncached function). A subprocess inherits its test worker's
``PYTEST_XDIST_WORKER``: the report names processes by pid and command line.

The whole suite on a cold cache (what CI, ``.ci/run``, pays; the 2026-11-28 readings in
``docs/performance_log.md``, "The cold compile CI pays")::

    python benches/compile_costs.py probe /tmp/probe
    COLDJIT_EV=/tmp/ev PYTHONPATH=/tmp/probe MOVECORE_CACHE=/tmp/cold-1 \\
        /usr/bin/time -v pytest --durations=40
    python benches/compile_costs.py report /tmp/ev

(``COLDJIT_EV``: the variable is named after the session that wrote this.) Process CPU
time includes every thread's: a compile beside a running parallel kernel reads high.
"""
from __future__ import annotations

import collections
import glob
import json
import os
import sys

_PROBE = r'''
# written by benches/compile_costs.py: log every numba:compile event of this process
import os, sys, json, time
_DIR = os.environ.get("COLDJIT_EV")
if _DIR:
    import importlib.abc, importlib.util

    def _install(numba):
        from numba.core import event
        os.makedirs(_DIR, exist_ok=True)
        st = {"f": None, "pid": None, "stack": []}

        def out(rec):
            if st["pid"] != os.getpid():        # (first record, or a forked child's)
                st["pid"] = os.getpid()
                st["f"] = open(os.path.join(_DIR, f"{os.getpid()}.jsonl"), "a",
                               buffering=1)
                st["f"].write(json.dumps({"argv": sys.argv, "ppid": os.getppid(),
                    "worker": os.environ.get("PYTEST_XDIST_WORKER")}) + "\n")
            st["f"].write(json.dumps(rec) + "\n")

        class Listener(event.Listener):
            def on_start(self, ev):
                f = getattr(ev.data.get("dispatcher"), "py_func", None)
                name = f"{getattr(f, '__module__', '?')}.{getattr(f, '__qualname__', '?')}"
                st["stack"].append((name, time.perf_counter(), time.process_time()))

            def on_end(self, ev):
                if not st["stack"]:
                    return
                name, w0, c0 = st["stack"].pop()
                d = ev.data.get("dispatcher")
                out({"name": name, "depth": len(st["stack"]),
                     "wall": time.perf_counter() - w0, "cpu": time.process_time() - c0,
                     "t": time.time(), "sig": str(ev.data.get("args")),
                     "cached": type(getattr(d, "_cache", None)).__name__ != "NullCache",
                     "test": os.environ.get("PYTEST_CURRENT_TEST")})
        event.register("numba:compile", Listener())

    class _Finder(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path, target=None):
            if name != "numba":
                return None
            sys.meta_path.remove(self)
            spec = importlib.util.find_spec(name)
            if spec is not None:
                run = spec.loader.exec_module

                def exec_module(module):
                    run(module)
                    _install(module)
                spec.loader.exec_module = exec_module
            return spec
    sys.meta_path.insert(0, _Finder())
'''


def probe(folder: str) -> None:
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "sitecustomize.py"), "w") as f:
        f.write(_PROBE.lstrip())
    print(f"COLDJIT_EV=LOGDIR PYTHONPATH={folder} ...")


def read(folder: str) -> tuple[dict, list]:
    """({pid: its label}, [every compile record, with its pid])."""
    procs, recs = {}, []
    for path in sorted(glob.glob(os.path.join(folder, "*.jsonl"))):
        pid = os.path.basename(path).split(".")[0]
        lines = open(path).read().splitlines()
        head = json.loads(lines[0])
        procs[pid] = f"{pid} {head['worker'] or '-'} {' '.join(head['argv'])[:70]}"
        for line in lines[1:]:
            rec = json.loads(line)
            rec["pid"] = pid
            recs.append(rec)
    return procs, recs


def report(folder: str, top: int = 50) -> None:
    procs, recs = read(folder)
    roots = [r for r in recs if r["depth"] == 0]
    print(f"{len(procs)} processes, {len(recs)} compiles, {len(roots)} top-level; "
          f"top-level CPU {sum(r['cpu'] for r in roots):.1f} s")
    print("\nCPU s  compiles  process (pid, xdist worker, command)")
    per = collections.defaultdict(list)
    for r in roots:
        per[r["pid"]].append(r)
    for pid, rs in sorted(per.items(), key=lambda x: -sum(r["cpu"] for r in x[1])):
        print(f"{sum(r['cpu'] for r in rs):6.1f} {len(rs):5d}  {procs[pid]}")
    print("\nCPU s  compiles  processes  signatures  cached  top-level function")
    by = collections.defaultdict(list)
    for r in roots:
        by[r["name"]].append(r)
    for name, rs in sorted(by.items(), key=lambda x: -sum(r["cpu"] for r in x[1]))[:top]:
        print(f"{sum(r['cpu'] for r in rs):6.1f} {len(rs):5d} {len({r['pid'] for r in rs}):5d}"
              f" {len({r['sig'] for r in rs}):5d}  {'yes' if rs[0]['cached'] else 'no ':>4}"
              f"  {name}")
    sigs = collections.defaultdict(set)
    for r in recs:
        sigs[(r["pid"], r["name"])].add(r["sig"])
    multi = sorted({n for (_, n), s in sigs.items() if len(s) > 1})
    print("\nmore than one signature in one process (any depth):")
    for name in multi:
        n = max(len(s) for (_, m), s in sigs.items() if m == name)
        print(f"  {n} {name}")
    where = collections.defaultdict(set)
    cpu = collections.Counter()
    for r in recs:
        where[r["name"]].add(r["pid"])
        cpu[r["name"]] += r["cpu"]
    print("\ncompiled in more than one process (any depth, CPU s summed over the depths):")
    for name, c in cpu.most_common():
        if len(where[name]) > 1 and c >= 0.5:
            print(f"  {c:6.1f} {len(where[name])} {name}")


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in ("probe", "report"):
        sys.exit(__doc__)
    (probe if sys.argv[1] == "probe" else report)(sys.argv[2])
