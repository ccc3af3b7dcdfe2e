"""Live positions of the generic game: an incrementally updated position answers exactly
as one rebuilt from scratch (``solve()`` of ``to_scenario()``) and as a plain ``reach()``
with the occupancy rebuilt by hand, after every step of seeded random move sequences."""
from __future__ import annotations

import json

import numpy as np
import pytest

import movecore as mc
from movecore.tools.cli import example_paths
from movecore.games import grid

EXAMPLES = [p for p in example_paths() if json.loads(p.read_text())["game"] == "grid"]


def _random_scenario(seed: int) -> dict:
    """A random grid board with holes, costs, heights, stop cells, a link, 2-3 teams."""
    rng = np.random.default_rng(seed)
    kind = ["hex", "square4", "square8"][seed % 3]
    w, h = int(rng.integers(3, 8)), int(rng.integers(3, 8))
    cells = []
    for x in range(w):
        for y in range(h):
            if rng.random() < 0.1:
                continue
            c = {"at": [x, y]}
            if rng.random() < 0.2:
                c["cost"] = int(rng.choice([-1, 2, 3]))
            if rng.random() < 0.2:
                c["height"] = int(rng.integers(0, 3))
            if rng.random() < 0.1:
                c["stop"] = True
            cells.append(c)
    free = [c["at"] for c in cells if c.get("cost", 1) >= 0]
    rng.shuffle(free)
    n_fig = min(len(free), int(rng.integers(2, 7)))
    figures = [{"id": f"f{i}", "team": ["red", "blue", "green"][i % int(rng.integers(2, 4))],
                "at": free[i]} for i in range(n_fig)]
    board = {"grid": kind, "cells": cells}
    if len(free) > n_fig + 1 and rng.random() < 0.5:
        board["links"] = [{"between": [free[-1], free[-2]], "cost": int(rng.integers(1, 3))}]
    return {"game": "grid", "board": board,
            "options": {"climb_per_level": int(rng.integers(0, 2)), "max_climb": None},
            "figures": figures, "query": {"figure": "f0", "budget": int(rng.integers(1, 6))}}


def _by_hand(pos: grid.Position, fid, budget: int) -> list:
    """The same answer through plain reach() with the occupancy rebuilt from the figures."""
    occ = np.full(pos.board.n_cells, mc.OCC_EMPTY, np.int32)
    for f in pos.figures:
        if f != fid:
            occ[pos.board.index(pos.where(f))] = pos.teams[pos.side_of(f)]
    mover = mc.Mover(terrain_cost=pos.table, team=pos.teams[pos.side_of(fid)],
                     **pos.options)
    flags = zoc = None
    if pos.provoke:      # the position's provoke tokens (from the scenario, or added)
        from movecore.games._common import token_masks
        flags = np.zeros(pos.board.n_cells, np.uint8)
        for t in pos.provoke:
            if pos.board.find(t) >= 0:
                flags[pos.board.find(t)] = mc.CELL_BLOCKED
        zoc = token_masks(pos.board, pos.provoke)
    r = mc.reach(pos.board, mover, pos.where(fid), budget, occupant=occ, cell_flags=flags,
                 zoc=zoc)
    return sorted((int(k), tuple(pos.board.coord(int(c))), bool(s))
                  for c, k, s in zip(r.cells, r.costs, r.stopped))


def _check(pos: grid.Position, fid, query: dict) -> None:
    moves = pos.legal_moves(fid, **query)
    fresh = mc.solve(pos.to_scenario({"figure": fid, **query}))
    assert moves.to_dicts() == fresh["ends"]
    assert pos.solve({"figure": fid, **query}) == fresh
    if "provoke" not in query:
        assert sorted((e["cost"], tuple(e["at"]), e["stopped"]) for e in fresh["ends"]) == \
            _by_hand(pos, fid, query["budget"])
    assert moves.mask.sum() == len(moves) and moves.mask[moves.actions].all()


def _play(scenario: dict, seed: int, steps: int) -> int:
    rng = np.random.default_rng(seed)
    pos = mc.position(scenario)
    checked = 0
    for _ in range(steps):
        figs = pos.figures
        fid = figs[int(rng.integers(len(figs)))]
        query = {"budget": int(rng.integers(0, 7))}
        if rng.random() < 0.2:
            query["paths"] = True
        if rng.random() < 0.1:
            query["provoke"] = [list(pos.board.coord(int(rng.integers(pos.board.n_cells))))]
        try:
            _check(pos, fid, query)
        except mc.PlacementError:   # a provoke token on the mover: refused, as solve()
            continue
        checked += 1
        # the side's batch answers each figure as if it moved first, exactly
        side = pos.side_of(fid)
        batch = pos.legal_moves_side(side, budget=query["budget"])
        for other, m in batch.items():
            assert m.to_dicts() == pos.legal_moves(other, budget=query["budget"]).to_dicts()
        moves = pos.legal_moves(fid, **query)
        to = moves.coords[int(rng.integers(len(moves)))].tolist()
        pos.apply_move(fid, to, **query)
        assert list(pos.where(fid)) == to
        if rng.random() < 0.1 and len(pos.figures) > 2:
            pos.remove_figure(pos.figures[int(rng.integers(len(pos.figures)))])
        _check(pos, pos.figures[0], {"budget": 3})
    return checked


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_random_move_sequences_from_every_example(path):
    scenario = json.loads(path.read_text())
    assert sum(_play(scenario, seed, 40) for seed in range(5)) > 50


@pytest.mark.parametrize("seeds", [range(0, 30), range(30, 60)], ids=["0-29", "30-59"])
def test_random_move_sequences_on_random_boards(seeds):
    # (the first 30 boards, ~750 moves, in every run; the other 30 in the soak tier)
    assert sum(_play(_random_scenario(seed), seed, 25) for seed in seeds) > 300


def test_copy_is_independent():
    scenario = json.loads((EXAMPLES[0]).read_text())
    pos = mc.position(scenario)
    fid = pos.figures[0]
    before = {f: pos.legal_moves(f, budget=4).to_dicts() for f in pos.figures}
    twin = pos.copy()
    m = twin.legal_moves(fid, budget=4)
    twin.apply_move(fid, m.coords[-1].tolist(), budget=4)
    twin.remove_figure(twin.figures[-1])
    assert {f: pos.legal_moves(f, budget=4).to_dicts() for f in pos.figures} == before
    # and the other way round: the original moves, the copy keeps its own answers
    twin_before = {f: twin.legal_moves(f, budget=4).to_dicts() for f in twin.figures}
    pos.apply_move(fid, pos.legal_moves(fid, budget=4).coords[-1].tolist(), budget=4)
    assert {f: twin.legal_moves(f, budget=4).to_dicts() for f in twin.figures} == twin_before


def test_bad_moves_raise_typed_errors_and_change_nothing():
    scenario = json.loads((EXAMPLES[0]).read_text())
    pos = mc.position(scenario)
    fid = pos.figures[0]
    before = pos.to_scenario()
    legal = {tuple(c) for c in pos.legal_moves(fid, budget=1).coords.tolist()}
    far = next(pos.board.coord(c) for c in range(pos.board.n_cells)
               if pos.board.coord(c) not in legal)
    with pytest.raises(mc.IllegalMoveError, match="not a legal end"):
        pos.apply_move(fid, far, budget=1)
    with pytest.raises(mc.QueryError, match="unknown figure"):
        pos.apply_move("nobody", (0, 0), budget=1)
    with pytest.raises(mc.QueryError, match="not on the board"):
        pos.apply_move(fid, (99, 99), budget=1)
    with pytest.raises(mc.QueryError, match="unknown query key"):
        pos.legal_moves(fid, speed=3)
    for bad in ({"paths": 0}, {"paths": None}, {"provoke": {}}):   # falsy, still wrong
        with pytest.raises(mc.MovecoreError):
            pos.legal_moves(fid, budget=1, **bad)
    with pytest.raises(mc.PlacementError, match="taken"):
        pos.add_figure("new", "red", pos.where(pos.figures[1]))
    with pytest.raises(mc.PlacementError, match="already in play"):
        pos.add_figure(fid, "red", far)
    pos.remove_figure(fid)
    with pytest.raises(mc.QueryError, match="unknown figure"):
        pos.remove_figure(fid)
    pos.add_figure(fid, before["figures"][0]["team"], before["figures"][0]["at"])
    assert pos.to_scenario() == before


def test_added_figure_blocks_and_moves():
    pos = mc.position({"game": "grid", "board": {"grid": "square4", "cells": [
        {"at": [x, 0]} for x in range(5)]}, "figures": [{"id": "a", "team": 1, "at": [0, 0]}]})
    assert pos.legal_moves("a", budget=4).coords[:, 0].tolist() == [0, 1, 2, 3, 4]
    pos.add_figure("b", 2, (2, 0))
    assert pos.legal_moves("a", budget=4).coords[:, 0].tolist() == [0, 1]
    assert pos.legal_moves("b", budget=1).coords[:, 0].tolist() == [2, 1, 3]
    assert pos.sides == [1, 2]
    with pytest.raises(mc.QueryError, match="needs 'budget'"):
        pos.legal_moves("a")
