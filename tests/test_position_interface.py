"""One position interface for every game (docs/api.md, "Live positions"): the same
checks run over every game's position, built from each of its bundled examples."""
from __future__ import annotations

import json

import numpy as np
import pytest

import movecore as mc
from movecore.scenario import example_paths
from movecore.position import Moves, Position


def _scenarios():
    out = []
    games = set(mc.position_games())
    for p in example_paths():
        s = json.loads(p.read_text(encoding="utf-8"))
        if s.get("game") in games:
            out.append(pytest.param(s, id=p.stem))
    return out


SCENARIOS = _scenarios()


def test_every_game_with_a_position_is_checked():
    assert {s.values[0]["game"] for s in SCENARIOS} == set(mc.position_games())


def _is_coord(c) -> bool:
    return isinstance(c, tuple) and len(c) == 2 and all(type(v) is int for v in c)


def _cells(where) -> list:
    """The coordinates of a ``where`` answer ([] for an off-board place)."""
    if isinstance(where, str):
        return []
    return [where] if isinstance(where, tuple) else list(where)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_position_interface(scenario):
    pos = mc.position(scenario)
    assert isinstance(pos, Position) and pos.game == scenario["game"]
    assert type(pos.version) is int
    assert pos.STOP_REASONS[0] is None
    # who is in play
    figures = pos.figures
    assert isinstance(figures, list) and figures and len(set(figures)) == len(figures)
    sides = pos.sides
    assert sides and all(pos.side_of(f) in sides for f in figures)
    assert sorted(map(str, (f for s in sides for f in pos.team_figures(s)))) == \
        sorted(map(str, figures))
    # the board: a movecore Board whose cells hold every figure's coordinates
    board = pos.board
    assert isinstance(board, mc.Board) and board.n_cells > 0
    cells = {board.coord(i) for i in range(board.n_cells)}
    # where: a coordinate, a list of them (a multi-cell figure), or a word (off-board)
    where = {f: pos.where(f) for f in figures}
    for f, w in where.items():
        if isinstance(w, str):
            assert w and not _is_coord(w)
        elif isinstance(w, list):
            assert len(w) >= 2 and all(_is_coord(c) for c in w), (f, w)
            assert len(set(w)) == len(w)
        else:
            assert _is_coord(w), (f, w)
        assert set(_cells(w)) <= cells, (f, w)
    # touching: the figures on a cell next to one of the figure's cells
    for f in figures:
        near = pos.touching(f)
        assert isinstance(near, list) and f not in near and set(near) <= set(figures)
        assert near == Position.touching(pos, f), f      # the plain geometric definition
        for g in near:
            assert f in pos.touching(g)
    # legal moves: arrays of one length, a fixed-size mask, coordinates of the ends
    query = {k: v for k, v in (scenario.get("query") or {}).items()
             if k not in ("figure", "paths")}
    answered = 0
    for f in figures:
        m = None
        # defaults, the example's keys, a budget, a card's move
        for q in ({}, query, {"budget": 3}, {"move": 3}):
            try:
                m = pos.legal_moves(f, **q)
                break
            except mc.MovecoreError:
                continue
        if m is None:                   # (e.g. a figure that needs a query key)
            continue
        answered += 1
        assert isinstance(m, Moves) and m.figure == f and not m.stale
        e = len(m)
        assert m.actions.dtype == np.int32 and m.actions.shape == (e,)
        assert m.costs.shape == (e,) and m.stop.shape == (e,) and m.penalty.shape == (e,)
        assert m.mask.dtype == np.bool_ and m.mask.shape == (pos.n_actions(f),)
        # the mask marks moves among the ends (not a non-move action such as Descent's
        # town, nor an end a figure may pass but not stay on)
        assert set(np.flatnonzero(m.mask).tolist()) <= set(m.actions.tolist())
        assert len(m.coords) == e and len(m.to_dicts()) == e
        assert set(np.unique(m.stop).tolist()) <= set(range(len(pos.STOP_REASONS)))
        # the figure's own place, where the answer lists it (an end at cost 0), is drawn
        # as where() says (every cell of a multi-cell figure)
        if not isinstance(where[f], str) and (m.costs == 0).any():
            here = {frozenset(map(tuple, np.reshape(c, (-1, 2)).tolist()))
                    for c, cost in zip(m.coords, m.costs.tolist()) if cost == 0}
            assert frozenset(_cells(where[f])) in here, (f, where[f], here)
        if e:
            assert pos.action_of(f, m.actions[0]) == m.actions[0] or \
                pos.action_of(f, m.coords[0].tolist()) == m.actions[0]
    assert answered
    # copies are independent and equal
    cp = pos.copy()
    assert type(cp) is type(pos) and cp.figures == figures
    assert {f: cp.where(f) for f in figures} == where
    assert cp.board.n_cells == board.n_cells
