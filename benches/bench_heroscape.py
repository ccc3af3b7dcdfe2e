"""Heroscape: a double-space query against a single-space query on one 600-hex battlefield
(a 24 x 25 axial parallelogram with hills, a river, trees and a few enemies).

The normal test run disables benchmarking (``--benchmark-disable``): each runs once as a
smoke test. Time them with ``pytest benches/bench_heroscape.py --benchmark-enable``.
"""
from __future__ import annotations

import random

import pytest

from movecore.games import heroscape as hs

W, H = 24, 25


def battlefield_and_army():
    rng = random.Random(600)
    cells = []
    for q in range(W):
        for r in range(H):
            c = {"at": [q, r], "level": 1 + (q // 6 + r // 5) % 3 + (rng.random() < 0.1)}
            if q in (11, 12):
                c["level"], c["terrain"] = 0, "water"
            elif rng.random() < 0.05:
                c["obstacle"] = "tree"
            elif rng.random() < 0.01:
                c["glyph"] = "astrid"
            cells.append(c)
    field = hs.build_battlefield({"cells": cells})
    free = [tuple(c["at"]) for c in cells if "obstacle" not in c]
    figures = [
        {"id": "snake", "team": "a", "at": [[4, 12], [3, 12]], "move": 8, "height": 7},
        {"id": "single", "team": "a", "at": [4, 14], "move": 8, "height": 5},
    ]
    spots = [p for p in free if p not in {(4, 12), (3, 12), (4, 14)}]
    rng.shuffle(spots)
    for i, p in enumerate(spots[:12]):
        figures.append({"id": f"e{i}", "team": "b", "at": list(p), "height": 5})
    for i, p in enumerate(spots[12:20]):
        figures.append({"id": f"f{i}", "team": "a", "at": list(p), "height": 5})
    army = hs.read_army(field, figures)
    hs.placement_graph(field)  # built once per battlefield, like the Board itself
    return field, army


_cache = {}


def world():
    if not _cache:
        _cache["w"] = battlefield_and_army()
    return _cache["w"]


@pytest.mark.parametrize("who", ["single", "snake"])
def test_heroscape_query(benchmark, who):
    field, army = world()
    assert field.board.n_cells == W * H == 600
    ends = benchmark(hs.moves, field, army, who)
    assert len(ends) > 10
    assert ends[0]["cost"] == 0
    if who == "snake":
        assert all(len(e["at"]) == 2 for e in ends)


@pytest.mark.parametrize("who", ["single", "snake"])
def test_heroscape_position_legal_moves(benchmark, who):
    """The same query on a live position (built once; ``legal_moves`` per call)."""
    field, army = world()
    pos = hs.Position(field, army)
    moves = benchmark(pos.legal_moves, who)
    assert moves.to_dicts() == hs.moves(field, army, who)


def test_heroscape_position_move_and_answer(benchmark):
    """One step of a self-play loop: a figure's legal moves, then one of them applied
    (the position goes back and forth between two neighbouring spaces)."""
    field, army = world()
    pos = hs.Position(field, army)
    home = pos.where("single")
    away = tuple(pos.legal_moves("single", move=1).coords[-1].tolist())

    def step():
        pos.legal_moves("single")
        pos.apply_move("single", away if pos.where("single") == home else home)

    benchmark(step)
