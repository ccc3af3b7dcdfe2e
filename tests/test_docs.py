"""The documentation stays true: docstring examples run, and the README's `movecore solve`
examples print exactly what the README shows."""
from __future__ import annotations

import doctest
import importlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MODULES = ["movecore", "movecore.board", "movecore.mover", "movecore.reach",
           "movecore.scenario", "movecore.position", "movecore.games.grid",
           "movecore.games.tiny_epic_tactics_position", "movecore.games.descent_position",
           "movecore.games.heroscape_position", "movecore.games._mage_knight_position",
           "movecore.games.dark_realms"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    mod = importlib.import_module(name)
    failed, tried = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
    assert failed == 0 and tried > 0


def test_readme_solve_examples_are_real():
    text = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```console\n\$ (movecore solve [^\n]+)\n(.*?)```", text, re.S)
    assert len(blocks) >= 2
    for command, shown in blocks:
        args = command.split()[1:]
        out = subprocess.run([sys.executable, "-m", "movecore", *args], cwd=ROOT,
                             capture_output=True, text=True, check=True).stdout
        assert out == shown, command


def test_ai_guide_example_runs():
    """docs/ai.md's example is a complete program: it runs as printed."""
    text = (ROOT / "docs" / "ai.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks
    for code in blocks:
        out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                             text=True)
        assert out.returncode == 0, out.stderr
        assert "refused:" in out.stdout


def test_readme_python_examples_run():
    text = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) >= 2
    for code in blocks:
        out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                             text=True)
        assert out.returncode == 0, out.stderr
