"""The layers (docs/architecture.md), checked with import-linter: the contracts in
pyproject.toml ([tool.importlinter]) hold for the source, and each of them fails on a copy
of the source with one offending import added (so this test can fail)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("importlinter")
ROOT = Path(__file__).resolve().parent.parent
IGNORE = shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc", "*.so", "*.o")


def _lint(cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "import sys; from importlinter.cli import "
                           "lint_imports_command as c; sys.exit(c())",
                           "--config", str(ROOT / "pyproject.toml"), "--no-cache"],
                          cwd=cwd, env=env, capture_output=True, text=True)


def test_the_contracts_hold():
    r = _lint(ROOT)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]
    assert "0 broken" in r.stdout and "4 kept" in r.stdout, r.stdout[-2000:]


@pytest.fixture(scope="module")
def source_copy(tmp_path_factory) -> Path:
    """The installed package's layout (pyproject's package-dir) built from the sources."""
    top = tmp_path_factory.mktemp("src")
    shutil.copytree(ROOT / "core", top / "movecore", ignore=IGNORE)
    shutil.copytree(ROOT / "kernels", top / "movecore" / "kernels", ignore=IGNORE)
    shutil.copytree(ROOT / "bindings", top / "movecore" / "bindings", ignore=IGNORE)
    return top


@pytest.mark.parametrize("where,line,contract", [
    # the engine reaching up into a game
    ("position.py", "from .games.grid import rules as _x", "Layers"),
    # the kernels reaching up into the engine
    ("kernels/_types.py", "from ..board import Board as _x", "Layers"),
    # one game importing another
    ("games/heroscape/rules.py", "from ..descent import rules as _x", "independent"),
    # a circle inside the tools (bench <-> bench_games, as before issue 32)
    ("tools/bench_games.py", "from .bench import run_bench as _x", "circles"),
    # a circle inside a game package (rules <-> position)
    ("games/mage_knight/rules.py", "from .position import Position as _x", "circles"),
    # a circle inside the engine (scenario <-> position)
    ("scenario.py", "from .position import position as _x", "circles"),
    # the live position calling its game's reference search (the tests' oracle only)
    ("games/mage_knight/position.py", "from . import reference as _x", "oracle"),
    # a tool calling a game's reference search
    ("tools/demo.py", "from ..games.heroscape.reference import moves as _x", "oracle"),
])
def test_a_broken_contract_fails(source_copy, tmp_path, where, line, contract):
    pkg = tmp_path / "movecore"
    shutil.copytree(source_copy / "movecore", pkg)
    path = pkg / where
    path.write_text(path.read_text() + f"\n{line}  # noqa\n")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    r = _lint(tmp_path, env)
    assert r.returncode != 0, r.stdout[-3000:]
    broken = [ln for ln in r.stdout.splitlines() if ln.endswith("BROKEN")]
    assert any(contract in b for b in broken), r.stdout[-3000:]
