"""Packaging: the install works beside a clone, ships its data and type marker, and the
public API is typed."""
from __future__ import annotations

import inspect
import os
import subprocess
import sys
import typing
from pathlib import Path

import pytest

import movecore as mc

ROOT = Path(__file__).resolve().parent.parent


def test_import_works_beside_a_folder_named_movecore(tmp_path):
    """`python script.py` in the folder that holds a clone named movecore: the clone must
    not shadow the install as an empty namespace package."""
    (tmp_path / "movecore" / "core").mkdir(parents=True)   # a clone: no __init__.py on top
    (tmp_path / "script.py").write_text(
        "import movecore\nprint(movecore.Board.__name__, movecore.__file__)\n")
    out = subprocess.run([sys.executable, "script.py"], cwd=tmp_path, capture_output=True,
                         text=True)
    assert out.returncode == 0, (
        out.stderr + "\n(an editable install made before setup.cfg's strict mode: run "
        "pip install -e . again)")
    assert out.stdout.split()[0] == "Board"
    assert str(tmp_path) not in out.stdout


def test_py_typed_marker_is_package_data():
    from importlib import resources
    assert (resources.files("movecore") / "py.typed").is_file()
    text = (ROOT / "pyproject.toml").read_text()
    assert '"py.typed"' in text


def test_a_build_holds_the_examples_and_the_type_marker(tmp_path):
    """What a plain `pip install` gets (setuptools' build_py, the step that fills a wheel):
    examples (movecore examples / solve NAME), the tile catalogue, C sources, py.typed."""
    pytest.importorskip("setuptools")
    out = subprocess.run([sys.executable, "-c", "import setuptools; setuptools.setup()",
                          "-q", "build_py", "--build-lib", str(tmp_path)], cwd=ROOT,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    names = {p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file()}
    examples = {f"movecore/examples/{p.name}" for p in (ROOT / "core/examples").glob("*.json")}
    assert examples and examples <= names
    assert {"movecore/py.typed", "movecore/games/mage_knight/tiles.json",
            "movecore/bindings/movecore.h", "movecore/kernels/reach.py"} <= names


def test_ray_is_not_a_test_dependency():
    text = (ROOT / "pyproject.toml").read_text()
    test_extra = text.split("test = [", 1)[1].split("]", 1)[0]
    assert "ray" not in test_extra
    assert 'scale = ["ray' in text


def _public_callables():
    for name in mc.__all__:
        obj = getattr(mc, name)
        if inspect.isclass(obj) and not issubclass(obj, BaseException):
            for k, v in vars(obj).items():
                if k.startswith("_"):
                    continue
                f = v.fget if isinstance(v, property) else getattr(v, "__func__", v)
                if inspect.isfunction(f):
                    yield f"{name}.{k}", f
        elif inspect.isfunction(obj):
            yield name, obj


_PUBLIC_CALLABLES = list(_public_callables())


# (ids: the names only; a function's repr holds its address, which differs between the
# processes of a parallel run, and pytest-xdist needs every worker to collect the same ids)
@pytest.mark.parametrize("name,fn", _PUBLIC_CALLABLES, ids=[n for n, _ in _PUBLIC_CALLABLES])
def test_public_results_are_typed(name, fn):
    hints = typing.get_type_hints(fn)
    assert "return" in hints, f"{name} has no return annotation"
    assert hints["return"] is not typing.Any, f"{name} returns Any"


@pytest.mark.parametrize("name", ["hex", "square", "square_cells", "graph", "with_layers",
                                  "extend", "with_edges", "with_links", "indices"])
def test_board_builders_are_fully_annotated(name):
    fn = getattr(mc.Board, name)
    hints = typing.get_type_hints(fn)
    params = [p for p in inspect.signature(fn).parameters if p not in ("self", "cls")]
    assert [p for p in params if p not in hints] == []


def _query_api():
    """The query functions and the methods of the objects they take and return."""
    import importlib
    module = importlib.import_module("movecore.reach")
    for name in ("reach", "prepare", "reach_many", "distance_field", "warmup"):
        yield name, getattr(module, name)
    for cls, dunders in ((mc.Prepared, ()), (mc.Reach, ("__len__",)),
                         (mc.ReachBatch, ("__init__", "__len__", "__getitem__")),
                         (mc.Mover, ("__init__",))):
        for k, v in vars(cls).items():
            if k.startswith("_") and k not in dunders:
                continue
            f = v.fget if isinstance(v, property) else getattr(v, "__func__", v)
            if inspect.isfunction(f):
                yield f"{cls.__name__}.{k}", f


def _untyped(hint) -> bool:
    """Any, or a bare ndarray (no dtype), at the top or as one member of a union."""
    import numpy as np
    members = typing.get_args(hint) if typing.get_origin(hint) in (typing.Union,
                                                                     type(int | None)) \
        else (hint,)
    return any(m is typing.Any or m is np.ndarray for m in members)


QUERY_API = list(_query_api())


@pytest.mark.parametrize("name,fn", QUERY_API, ids=[name for name, _ in QUERY_API])
def test_the_query_api_is_fully_annotated(name, fn):
    hints = typing.get_type_hints(fn)
    params = [p for p, v in inspect.signature(fn).parameters.items()
              if p not in ("self", "cls")]
    assert [p for p in params if p not in hints] == [], name
    assert "return" in hints, f"{name} has no return annotation"
    assert [k for k, h in hints.items() if _untyped(h)] == [], (name, hints)


def _dtype_of(hint):
    """np.int32 from NDArray[np.int32]."""
    return typing.get_args(typing.get_args(hint)[1])[0]


@pytest.mark.parametrize("kw", [{}, {"leave": [0, 1, 0, 0]}, {"cell_flags": [0, 0, 0, 0]}])
def test_result_attributes_are_typed_as_they_are(kw):
    """Reach and ReachBatch declare their arrays' dtypes; the results hold those dtypes
    (the fast path, the tree mode and the penalty kernel alike)."""
    import numpy as np
    b = mc.Board.square(4, 1)
    r = mc.reach(b, mc.Mover(), 0, 3, **kw)
    hints = typing.get_type_hints(mc.Reach)
    arrays = {"cells", "costs", "stopped", "free_costs", "penalties", "penalty_costs"}
    assert arrays | {"board", "start", "budget"} <= set(hints)
    assert not [k for k, h in hints.items() if _untyped(h)]
    assert (hints["board"], hints["start"], hints["budget"]) == (mc.Board, int, int)
    for name in sorted(arrays):
        assert getattr(r, name).dtype == _dtype_of(hints[name]), name
    assert r.coords.dtype == _dtype_of(typing.get_type_hints(mc.Reach.coords.fget)["return"])
    assert r.path(3).dtype == _dtype_of(typing.get_type_hints(mc.Reach.path)["return"])
    batch = mc.reach_many(b, mc.Mover(), [0, 3], 2, **kw)
    bh = typing.get_type_hints(mc.ReachBatch)
    assert set(bh) == {"offsets", "cells", "costs", "stopped"}
    for name, hint in bh.items():
        assert getattr(batch, name).dtype == _dtype_of(hint), name
    field = mc.distance_field(b, mc.Mover(), [0])
    assert field.dtype == _dtype_of(typing.get_type_hints(mc.distance_field)["return"])
    assert isinstance(np.zeros(1), typing.get_origin(hints["cells"]))


#: The layers below the games (``movecore.kernels`` and the engine: the layers contract in
#: pyproject.toml keeps them from importing any game), which the forks share loaded:
#: loading the kernels from the cache in each of ~50 forks was most of the test's time.
_BELOW_THE_GAMES = ("movecore.kernels.reach", "movecore.kernels.reach_pen", "movecore.board",
                    "movecore.mover", "movecore.reach", "movecore.position", "movecore.batch",
                    "movecore.scenario", "movecore.vocabulary")

#: Import each module named on the command line first, in a fork of a process that has
#: loaded numpy, numba and the layers below the games (no module of a game, nor of the
#: layers above them); print "ok" per module, its traceback (stderr) and exit 1 at the
#: first that fails.
_IMPORT_EACH_IN_A_FORK = """
import importlib, os, sys, traceback
import numpy, numba
for m in %r:
    importlib.import_module(m)
above = ("movecore.games", "movecore.rl", "movecore.tools", "movecore.render",
         "movecore.schemas", "movecore.bindings")
assert not [m for m in sys.modules if m.startswith(above)], sorted(sys.modules)
for m in sys.argv[1:]:
    pid = os.fork()
    if pid == 0:
        try:
            importlib.import_module(m)
        except BaseException:
            traceback.print_exc()
            sys.stderr.flush()
            os._exit(1)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    if status != 0:
        sys.exit(f"importing {m} first failed")
    print("ok", flush=True)
""" % (_BELOW_THE_GAMES,)


def test_every_game_module_imports_first():
    # every module of a game package may be imported first (its package's __init__
    # runs first and imports the rules, then the live position)
    games = Path(__file__).parent.parent / "core" / "games"
    mods = [".".join(("movecore", "games", *p.relative_to(games).parent.parts,
                      *([p.stem] if p.stem != "__init__" else [])))
            for p in games.rglob("*.py")]
    if hasattr(os, "fork"):
        # one process with numpy, numba and the layers below the games loaded (no game
        # module), each module then
        # imported first in a fork of it: the same check as a fresh interpreter per
        # module, without paying the interpreter's and numba's start-up 52 times
        r = subprocess.run([sys.executable, "-c", _IMPORT_EACH_IN_A_FORK, *mods],
                           capture_output=True, text=True)
        assert r.returncode == 0 and r.stdout.split() == ["ok"] * len(mods), \
            (r.stdout[-300:], r.stderr[-1500:])
    else:
        code = "import importlib, sys\nfor m in sys.argv[1:]:\n" \
               "    importlib.import_module(m)\n"
        for m in mods:
            r = subprocess.run([sys.executable, "-c", code, m], capture_output=True,
                               text=True)
            assert r.returncode == 0, (m, r.stderr[-500:])
    r = subprocess.run([sys.executable, "-c", "import movecore.games.descent.position as p, "
                        "movecore.games.descent as d; assert d.Position is p.Position"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-500:]
