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

import pytest

HERE = Path(__file__).resolve().parent


def _python(code, env=None, timeout=120):
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                         text=True, env=env, timeout=timeout, cwd=HERE)
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


def test_the_audit_reads_past_dead_weak_proxies():
    """jit_audit (run after every test session, tests/conftest.py) on a heap holding a
    dead weak proxy: numba leaves one in its JIT engine for the code library of every
    dispatcher dropped (two threads' first build of one kernel, a test's throwaway
    function), and reading such a proxy's class raises ReferenceError, which showed as
    an ERROR at the teardown of whatever test ran last. The audit reads past it and
    still sees the cached dispatchers."""
    import weakref

    import jit_audit
    from movecore.kernels import reach

    class Gone:
        pass

    x = Gone()
    dead = [weakref.proxy(x)]
    del x
    try:
        dead[0].__class__
    except ReferenceError:
        pass
    else:  # pragma: no cover
        raise AssertionError("the proxy is alive")
    names = {d.py_func.__name__ for d in jit_audit.cached_dispatchers()}
    assert reach.is_plain.py_func.__name__ in names
    jit_audit.shared_entries()


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


# The cache folder: per user, keyed by movecore's version, outside the install tree (which
# `pip install -e .` rebuilds), so a reinstall keeps the compiled kernels.
_TOY_FUNCS = """
def twice(x):
    return 2 * x
"""

_TOY_MOVECORE = """
import importlib.util, os, sys
import movecore
numba = movecore._import_numba()
# a module of movecore's, as the cache locator sees it (its name is under movecore)
spec = importlib.util.spec_from_file_location(
    "movecore.toy", os.path.join(os.path.dirname(__file__), "toyfuncs.py"))
toy = importlib.util.module_from_spec(spec)
sys.modules["movecore.toy"] = toy
spec.loader.exec_module(toy)
f = numba.njit(cache=True)(toy.twice)

def mine(x):
    return 3 * x

g = numba.njit(cache=True)(mine)         # a user's own function: not moved
print(f(21), g(2), dict(f.stats.cache_hits), dict(f.stats.cache_misses))
print(f._cache._cache_path)
print(g._cache._cache_path)
"""


def _clean_env(**extra):
    env = {k: v for k, v in os.environ.items()
           if k not in ("NUMBA_CACHE_DIR", "MOVECORE_CACHE", "XDG_CACHE_HOME",
                        "MOVECORE_NO_CACHE")}
    env.update(extra)
    return env


def test_default_cache_dir_is_per_user_and_versioned(tmp_path):
    import movecore
    out = _python("import movecore; print(movecore.kernel_cache_dir())",
                  env=_clean_env(XDG_CACHE_HOME=str(tmp_path)))
    assert out.strip() == str(tmp_path / "movecore" / movecore.__version__ / "numba")
    out = _python("import movecore; print(movecore.kernel_cache_dir())",
                  env=_clean_env(HOME=str(tmp_path)))
    assert out.strip() == str(tmp_path / ".cache" / "movecore" / movecore.__version__ /
                              "numba")
    out = _python("import movecore; print(movecore.kernel_cache_dir())",
                  env=_clean_env(XDG_CACHE_HOME=str(tmp_path / "x"),
                                 MOVECORE_CACHE=str(tmp_path / "mine"),
                                 NUMBA_CACHE_DIR=str(tmp_path / "numba")))
    assert out.strip() == str(tmp_path / "numba")       # numba's own setting wins


def test_compiled_functions_survive_a_rebuilt_install_tree(tmp_path):
    """A movecore function compiles once into MOVECORE_CACHE (outside the package, so a
    reinstall, which rebuilds the package tree, keeps it) and the next process loads it;
    a user's own cached function stays where numba puts it."""
    (tmp_path / "toy.py").write_text(_TOY_MOVECORE)
    (tmp_path / "toyfuncs.py").write_text(_TOY_FUNCS)
    cache = tmp_path / "cache"
    env = _clean_env(MOVECORE_CACHE=str(cache))
    first = subprocess.run([sys.executable, str(tmp_path / "toy.py")], capture_output=True,
                           text=True, env=env, timeout=120, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    lines = first.stdout.splitlines()
    assert lines[0] == "42 6 {} {(int64,): 1}"
    assert lines[1].startswith(str(cache) + os.sep)
    assert not lines[2].startswith(str(cache))
    assert [p.name for p in cache.rglob("*.nbi")] and \
        all(p.name.startswith("toyfuncs.twice") for p in cache.rglob("*.nbi"))
    again = subprocess.run([sys.executable, str(tmp_path / "toy.py")], capture_output=True,
                           text=True, env=env, timeout=120, cwd=tmp_path)
    assert again.stdout.splitlines()[0] == "42 6 {(int64,): 1} {}", again.stderr


def test_an_unwritable_cache_dir_falls_back_to_numbas_default(tmp_path):
    """CI or a read-only home: movecore still caches (numba's __pycache__ beside the
    sources) rather than failing."""
    (tmp_path / "toy.py").write_text(_TOY_MOVECORE)
    (tmp_path / "toyfuncs.py").write_text(_TOY_FUNCS)
    blocker = tmp_path / "file"
    blocker.write_text("")                      # a file: no folder can be made under it
    out = subprocess.run([sys.executable, str(tmp_path / "toy.py")], capture_output=True,
                         text=True, env=_clean_env(MOVECORE_CACHE=str(blocker / "cache")),
                         timeout=120, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[0].startswith("42 6")
    assert not out.stdout.splitlines()[1].startswith(str(blocker))


_TOY_EAGER = """
from numba import njit

@njit("int64(int64)", cache=True)
def thrice(x):
    return 3 * x
"""

_TOY_ANNOUNCED = """
import importlib.util, os, sys
import movecore
numba = movecore._import_numba()
here = os.path.dirname(__file__)
# movecore modules, as movecore's import hook wraps them: one lazy, one eager
spec = importlib.util.spec_from_file_location("movecore.toy", os.path.join(here, "toyfuncs.py"))
toy = importlib.util.module_from_spec(spec)
sys.modules["movecore.toy"] = toy
spec.loader.exec_module(toy)
f = numba.njit(cache=True)(toy.twice)
spec = importlib.util.spec_from_file_location("movecore.games.toy_eager",
                                              os.path.join(here, "toyeager.py"))
spec.loader = movecore._ModuleLoader(spec.loader)
eager = importlib.util.module_from_spec(spec)
sys.modules["movecore.games.toy_eager"] = eager
spec.loader.exec_module(eager)
print(f(21), eager.thrice(2))
"""


def test_every_compile_is_announced_with_what_and_how_long(tmp_path):
    """A lazily compiled function of movecore says what it compiles at its first use,
    with an estimate, and the true time after; a module whose import compiles is one
    announcement; a warm cache says nothing."""
    (tmp_path / "toy.py").write_text(_TOY_ANNOUNCED)
    (tmp_path / "toyfuncs.py").write_text(_TOY_FUNCS)
    (tmp_path / "toyeager.py").write_text(_TOY_EAGER)
    env = _clean_env(MOVECORE_CACHE=str(tmp_path / "cache"))
    run = [sys.executable, str(tmp_path / "toy.py")]
    cold = subprocess.run(run, capture_output=True, text=True, env=env, timeout=120)
    assert cold.returncode == 0, cold.stderr
    assert cold.stdout.split() == ["42", "6"]
    lines = cold.stderr.splitlines()
    assert len(lines) == 4, lines
    assert lines[0].startswith("movecore: compiling movecore.games.toy_eager (once; "
                               f"cached in {tmp_path / 'cache'}), about ")
    assert lines[1].startswith("movecore: movecore.games.toy_eager compiled in ")
    assert lines[2].startswith("movecore: compiling movecore.toy.twice at its first use "
                               f"(once; cached in {tmp_path / 'cache'}), about ")
    assert lines[2].endswith(" s ...")
    assert lines[3].startswith("movecore: movecore.toy.twice compiled in ")
    warm = subprocess.run(run, capture_output=True, text=True, env=env, timeout=120)
    assert warm.stdout.split() == ["42", "6"] and warm.stderr == "", warm.stderr


def test_compile_estimates_name_the_game():
    import movecore
    what, about = movecore._describe("movecore.games.heroscape._jit")
    assert what == "movecore.games.heroscape._jit (Heroscape)" and about == ", about 6-22 s"
    what, about = movecore._describe(
        "movecore.kernels.reach_pen.kernel.<locals>.reach_pen")
    assert what == "movecore.kernels.reach_pen.kernel.reach_pen" and about == \
        ", about 4-13 s"
    # the one-call steps (tens of seconds, not the default's 1-10), each by its own key
    for name, about in [
            ("movecore.rl._vecgame.env_chunk", ", about 15-60 s"),
            ("movecore.rl._vecdr_env.env_kernel.<locals>.env_chunk", ", about 10-45 s"),
            ("movecore.rl._vecdr.dr_queries", ", about 3-12 s"),
            ("movecore.tools._selfplay_descent.step_kernel.<locals>.descent_step",
             ", about 5-25 s")]:
        assert movecore._describe(name)[1] == about, name


# A cached function that calls a compiled function of another file: numba links the
# callee's code into the caller's cache entry, and numba's own stamp of that entry is
# the caller's file only. A pair of toy modules under movecore's name, loaded the way
# the package loads them.
_TOY_CALLEE = """
from numba import njit

@njit(cache=True)
def step(x):
    return x + {step}
"""

_TOY_MIDDLE = """
from numba import njit

from movecore import toycallee as callee


@njit(cache=True)
def twice(x):
    return 2 * callee.step(x)
"""

_TOY_CALLER = """
from numba import njit

from movecore.toymiddle import twice


@njit(cache=True)
def scaled(x):
    return 10 * twice(x)
"""

_TOY_BUILDER = """
from numba import njit

from movecore import toycallee

_LINKED = None      # toycallee.step, linked in by build() (as the builders link theirs)


def build():
    global _LINKED
    _LINKED = toycallee.step
    k = 100

    @njit(cache=True)
    def built(x):
        return k + _LINKED(x)
    return built
"""

_TOY_CALLING = """
import importlib.util, os, sys
import movecore
movecore._import_numba()
here = os.path.dirname(__file__)
for name in ("toycallee", "toymiddle", "toycaller", "toybuilder"):
    spec = importlib.util.spec_from_file_location("movecore." + name,
                                                  os.path.join(here, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules["movecore." + name] = module
    spec.loader.exec_module(module)
f = sys.modules["movecore.toycaller"].scaled
g = sys.modules["movecore.toymiddle"].twice
h = sys.modules["movecore.toybuilder"].build()
print(f(1), g(1), h(1), dict(f.stats.cache_hits), dict(g.stats.cache_hits),
      dict(h.stats.cache_hits))
"""


@pytest.mark.parametrize("where", ["movecore", "numba", "fallback"])
def test_an_edited_callee_in_another_file_recompiles_its_callers(tmp_path, where):
    """A developer edits a kernel (or a user installs another commit of the same version
    over the last one): the next process must not load a caller's cache entry that holds
    the old callee's code, directly (toymiddle) or through another module (toycaller).
    movecore's cache locator stamps each entry with the sources of the movecore modules
    the caller's module takes compiled code from, transitively, and the kernels; a
    reinstall that rewrites the same sources (new mtimes) still loads the cache. The same
    for a builder's function (toybuilder: a closure, decorated at the builder's call,
    linking a callee the builder binds to a global; its stamp, its closure). The same
    in movecore's folder, in NUMBA_CACHE_DIR and in numba's __pycache__ fallback."""
    (tmp_path / "toycalling.py").write_text(_TOY_CALLING)
    (tmp_path / "toymiddle.py").write_text(_TOY_MIDDLE)
    (tmp_path / "toycaller.py").write_text(_TOY_CALLER)
    (tmp_path / "toybuilder.py").write_text(_TOY_BUILDER)
    blocker = tmp_path / "file"
    blocker.write_text("")                      # a file: no folder can be made under it
    env = _clean_env(**{"movecore": {"MOVECORE_CACHE": str(tmp_path / "cache")},
                        "numba": {"NUMBA_CACHE_DIR": str(tmp_path / "cache")},
                        "fallback": {"MOVECORE_CACHE": str(blocker / "cache")}}[where])

    def run(step):
        (tmp_path / "toycallee.py").write_text(_TOY_CALLEE.format(step=step))
        # (Python's own bytecode of the edited file goes: an edit of the same size in
        # the same second as the last write reads as unchanged to its pyc check, and
        # the process ran the old callee, where bytecode is written (.ci/run); numba's
        # fallback cache beside the sources, .nbi/.nbc, stays)
        for pyc in (tmp_path / "__pycache__").glob("toycallee.*.pyc"):
            pyc.unlink()
        return _python(f"exec(open({str(tmp_path / 'toycalling.py')!r}).read(), "
                       f"{{'__file__': {str(tmp_path / 'toycalling.py')!r}}})",
                       env=env).strip()

    hit = "{(int64,): 1}"
    assert run(1) == "40 4 102 {} {} {}"           # cold: compiled
    assert run(1) == f"40 4 102 {hit} {hit} {hit}"  # warm: loaded
    assert run(2) == "60 6 103 {} {} {}"           # the callee edited: all recompiled
    if where != "movecore":                        # (the same stamps: CI time)
        return
    for name in ("toymiddle", "toycaller", "toybuilder"):  # a reinstall: new mtimes,
        os.utime(tmp_path / f"{name}.py", ns=(10**18, 10**18))  # the same sources
    assert run(2) == f"60 6 103 {hit} {hit} {hit}"


def test_every_kernel_file_is_in_every_stamp():
    """The kernels' constants (``from movecore.kernels._types import NONE``: a global,
    baked into the code) leave no trace in the importer's globals, so every file of
    movecore/kernels is in the stamp of every cached movecore function, with its own."""
    import movecore
    kernels = Path(movecore.__file__).parent / "kernels"
    files = movecore._dependency_files({"__name__": "movecore.toyalone"}, "/x/toyalone.py")
    names = {Path(f).name for f in files if Path(f).parent == kernels}
    assert "/x/toyalone.py" in files and "_types.py" in names and "reach.py" in names
    assert names == {p.name for p in kernels.glob("*.py")}


# The builders of compiled functions (``once``-made dispatchers of a function defined in
# the builder: ``kernels.reach_pen.kernel``, ``tools._selfplay_heroscape.step_kernel``,
# ``rl._vechsenv.env_kernel`` ...) link compiled functions of other files, some of them
# through a module the builder imports in its body. The cache stamp of the built entry
# (``_dependency_files``) follows the movecore modules its module holds at its level:
# every module a builder imports in its body and that compiles code must be among them.
_BUILDERS_CHECK = r"""
import ast, importlib, importlib.util, pathlib, sys
import movecore
movecore._import_numba()
root = pathlib.Path(movecore.__file__).parent
COMPILES = {"njit", "jit", "vectorize", "guvectorize", "cfunc"}


def names(tree):
    return {getattr(n, "id", None) or getattr(n, "attr", None) for n in ast.walk(tree)
            if isinstance(n, (ast.Name, ast.Attribute))}


def module_name(path):
    parts = ("movecore",) + path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


builders = []
for path in sorted(root.rglob("*.py")):
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for fn in ast.parse(path.read_text()).body:
        if not isinstance(fn, ast.FunctionDef) or "njit" not in names(fn) or not any(
                isinstance(n, ast.FunctionDef) and n is not fn for n in ast.walk(fn)):
            continue
        imports = set()
        for n in ast.walk(fn):
            if isinstance(n, ast.ImportFrom):
                base = importlib.util.resolve_name("." * n.level + (n.module or ""),
                                                   package)
                if not base.startswith("movecore."):
                    continue
                pkg = importlib.import_module(base)
                for a in n.names:
                    sub = base + "." + a.name
                    is_sub = hasattr(pkg, "__path__") and importlib.util.find_spec(sub)
                    imports.add(sub if is_sub else base)
            elif isinstance(n, ast.Import):
                imports.update(a.name for a in n.names if a.name.startswith("movecore."))
        # a builder reading a file's stamps (mtimes): a reinstall of the same sources
        # would recompile what it builds
        stamps = {"st_mtime", "st_mtime_ns", "getmtime", "stat"} & names(fn)
        builders.append((name, fn.name, sorted(imports), sorted(stamps)))
for name, *_ in builders:
    importlib.import_module(name)
for name, builder, imports, stamps in builders:
    mod = sys.modules[name]
    files = set(movecore._dependency_files(vars(mod), mod.__file__))
    for imp in imports:
        m = importlib.import_module(imp)
        if COMPILES & names(ast.parse(pathlib.Path(m.__file__).read_text())) and \
                m.__file__ not in files:
            print("not in the stamp:", name, builder, imp)
    if stamps:
        print("reads file stamps:", name, builder, stamps)
print("builders:", " ".join(sorted(f"{n}.{b}" for n, b, *_ in builders)))
"""


def test_builders_links_are_in_their_stamps():
    """Every builder of compiled functions: each module it imports in its body that
    compiles code is in the cache stamp of its module's entries (else an edit there
    would leave the built function's entry stale: move the import to the module's level),
    and it stamps nothing with mtimes (a reinstall of the same sources would recompile).
    In a fresh process: what a builder already run links (``_DK = ...``) may reach the
    stamp too, depending on the order of the calls; the imports alone must."""
    out = _python(_BUILDERS_CHECK).splitlines()
    assert out[:-1] == [], "\n".join(out)
    found = set(out[-1].split()[1:])
    assert {"movecore.kernels.reach_pen.kernel", "movecore.kernels.batch.reach_games_pen",
            "movecore.games.heroscape._batch_doubles.doubles_kernel",
            "movecore.games.descent._batch.legal_kernel",
            "movecore.games.dark_realms._batch_enemy.kernel",
            "movecore.tools._selfplay_descent.step_kernel",
            "movecore.tools._selfplay_heroscape.step_kernel",
            "movecore.rl._vechsenv.env_kernel", "movecore.rl._vecdescent_env.env_kernel",
            "movecore.rl._vecdr_env.env_kernel"} <= found, found
