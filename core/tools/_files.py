"""The scenario files the commands read: a path, ``-`` (stdin) or a bundled example's
name, and the bundled examples (``movecore/examples/*.json``)."""
from __future__ import annotations

import sys
from importlib import resources
from pathlib import Path

from ..errors import ScenarioError
from ..scenario import load_scenario


def _read(path: str) -> dict:
    if path == "-":
        text = sys.stdin.read()
    else:
        file = Path(path)
        if not file.exists():
            file = find_example(path) or file
        try:
            text = file.read_text(encoding="utf-8")
        except OSError as exc:
            raise ScenarioError(f"cannot read scenario file {path!r}: {exc.strerror} "
                                f"(movecore examples lists the bundled ones)") from exc
    return load_scenario(text)


def example_paths() -> list[Path]:
    """The bundled example scenarios (``movecore/examples/*.json``), sorted by name."""
    root = resources.files("movecore") / "examples"
    return sorted((Path(str(p)) for p in root.iterdir() if p.name.endswith(".json")),
                  key=lambda p: p.name)


def find_example(name: str) -> Path | None:
    """The bundled example called ``name`` (with or without ``.json``), or None."""
    want = name if name.endswith(".json") else name + ".json"
    return next((p for p in example_paths() if p.name == want), None)
