"""Numba's on-disk cache and processes compiling at once on a cold cache (self-play
workers, process pools, a test's subprocesses): every cached function of movecore gets
one cache entry (one signature, one variant per qualname), which racing processes write
identically (see jit_audit; tests/conftest.py checks every test session the same way)."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _python(code, env=None, timeout=120):
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                         text=True, env=env, timeout=timeout, cwd=HERE)
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


def test_public_api_compiles_one_entry_per_cached_function():
    """The public API on every bundled example (solve, live positions, self-play with
    either policy), in a fresh process: no cache index file gets two entries."""
    out = subprocess.run([sys.executable, str(HERE / "jit_audit.py")], capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    assert "0 with more than one entry" in out.stdout


def test_audit_sees_a_second_signature():
    """The check can fail: a lazily compiled function called with another rank dtype
    (int64, not the int32 the package passes) shows as two entries of one index file
    (nothing is written to the cache here)."""
    out = _python("""
        import numpy as np
        from numba.core import caching
        caching.IndexDataCacheFile.save = lambda self, key, data: None  # write nothing
        import jit_audit
        from movecore.games.descent import position as dp
        cells = np.array([2, 0, 1], np.int32)
        costs = np.array([1, 1, 0], np.int32)
        for dtype in (np.int32, np.int64):
            out = dp._sort_plain(cells, costs, np.array([2, 1, 0], dtype), 3)
            print(out[0].tolist())
        print(sorted(p.rsplit("/", 1)[-1].split("-")[0] for p in jit_audit.shared_entries()))
    """)
    assert out.splitlines() == ["[1, 2, 0]", "[1, 2, 0]", "['position._sort_plain']"]


# Two processes compile one function on a cold cache, with Numba's writes forced into the
# worst order: both read the empty index, then A writes the index, B the index and its
# data, A its data last. Then a third process loads the cache.
_TOY = """
from numba import njit

@njit(cache=True)
def f(x):
    return x * 2 + 1
"""

_RACER = """
import os, sys, time
role, sync, arg = sys.argv[1], sys.argv[2], sys.argv[3]
from numba.core import caching

def mark(name):
    open(os.path.join(sync, name), "w").close()

def wait(name):
    t = time.monotonic() + 60
    while not os.path.exists(os.path.join(sync, name)):
        assert time.monotonic() < t, name
        time.sleep(0.005)

C = caching.IndexDataCacheFile
load, save_index, save_data = C._load_index, C._save_index, C._save_data

def _load_index(self):
    out = load(self)
    if not os.path.exists(os.path.join(sync, role + "_read")):
        mark(role + "_read")
        wait(("B" if role == "A" else "A") + "_read")
    return out

def _save_index(self, overloads):
    if role == "B":
        wait("A_index")
    save_index(self, overloads)
    if role == "A":
        mark("A_index")

def _save_data(self, name, data):
    if role == "A":
        wait("B_data")
    save_data(self, name, data)
    if role == "B":
        mark("B_data")

C._load_index, C._save_index, C._save_data = _load_index, _save_index, _save_data
import toy
print(toy.f(eval(arg)))
"""


def test_racing_writers_of_one_entry_leave_a_right_cache(tmp_path):
    """What the one-entry rule relies on: processes that compile the same signature at
    once, in the worst order of Numba's unlocked writes, leave a cache whose entry is
    right (they write the same data file name and the same code)."""
    (tmp_path / "toy.py").write_text(_TOY)
    (tmp_path / "racer.py").write_text(_RACER)
    sync = tmp_path / "sync"
    sync.mkdir()
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=str(tmp_path))
    run = [sys.executable, str(tmp_path / "racer.py")]
    a = subprocess.Popen(run + ["A", str(sync), "2.5"], env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    b = subprocess.run(run + ["B", str(sync), "2.5"], env=env, capture_output=True,
                       text=True, timeout=120)
    a_out, a_err = a.communicate(timeout=120)
    assert a.returncode == 0 and b.returncode == 0, a_err + b.stderr
    assert a_out.split() == b.stdout.split() == ["6.0"]
    assert sorted(os.listdir(sync)) == ["A_index", "A_read", "B_data", "B_read"]
    out = _python("""
        import toy
        print(toy.f(2.5), dict(toy.f.stats.cache_hits))
    """, env=env)
    assert out.strip().split(maxsplit=1) == ["6.0", "{(float64,): 1}"]
