"""Packaging: the install works beside a clone, ships its data and type marker, and the
public API is typed."""
from __future__ import annotations

import inspect
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
    assert {"movecore/py.typed", "movecore/games/mage_knight_tiles.json",
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


@pytest.mark.parametrize("name,fn", list(_public_callables()), ids=lambda v: str(v)[:40])
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
