"""The scenario files the commands read: a path, ``-`` (stdin) or a bundled example's
name (:func:`movecore.scenario.find_example`)."""
from __future__ import annotations

import sys
from pathlib import Path

from ..errors import ScenarioError
from ..scenario import find_example, load_scenario


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
