"""``Position.apply_row`` (the end at a row of an answer, trusted while the answer is
current) against the validated ``apply_move`` it stands for, over seeded random move
sequences of every game's bundled examples; and positions copied from copies answer as
positions rebuilt from scratch; the protocol's ``touching`` is the grid distance 1."""
from __future__ import annotations

import numpy as np
import pytest

import movecore as mc
from movecore.tools import selfplay as sp
from movecore.position import Position as Base


def _examples():
    out = []
    for game in sp.GAMES:
        if game not in mc.position_games():
            continue
        try:
            scens = sp.example_scenarios(game)
        except mc.ScenarioError:
            continue
        out += [pytest.param(game, s, id=name) for name, s in scens]
    return out


def _state(pos) -> list:
    return [(f, pos.where(f)) for f in pos.figures]


def _touching_by_distance(pos, figure) -> list:
    """The figures with a cell at grid distance 1 of one of ``figure``'s cells."""
    from movecore.position import grid_distance
    kind = getattr(getattr(pos, "board", None), "kind", "hex")
    mine = sp._cells(pos.where(figure))
    return [f for f in pos.figures if f != figure and isinstance(pos.where(f), (tuple, list))
            and (grid_distance(kind, mine[:, None], sp._cells(pos.where(f))[None]) == 1).any()]


def _answers(pos, g, rng_seed: int) -> list:
    rng = np.random.default_rng(rng_seed)
    out = []
    for f in pos.figures:
        if g.moves(pos, f):
            q = g.query(pos, f, rng)
            try:
                m = pos.legal_moves(f, **q)
            except mc.QueryError as e:   # a rule refuses (a unit that took its action)
                out.append((f, str(e)))
                continue
            out.append((f, m.actions.tolist(), m.costs.tolist()))
    return out


@pytest.mark.parametrize("game,scenario", _examples())
def test_apply_row_moves_as_apply_move(game, scenario):
    """Two positions of one scenario, the same random moves: one by ``apply_row`` of
    the answer's row, one by ``apply_move`` of its end (validated). They stay equal:
    figures, and every figure's next answer."""
    steps = 0
    for seed in range(4):
        rng = np.random.default_rng(seed)
        fast, slow = mc.position(scenario).copy(), mc.position(scenario)
        g = sp.GAME_CLASSES[game](slow)
        for _ in range(12):
            figs = [f for f in slow.figures if g.moves(slow, f)]
            if not figs:
                break
            fid = figs[int(rng.integers(len(figs)))]
            q = g.query(slow, fid, np.random.default_rng(steps))
            try:
                m_slow = slow.legal_moves(fid, **q)
            except mc.QueryError:        # a rule refuses: so does the other
                with pytest.raises(mc.QueryError):
                    fast.legal_moves(fid, **q)
                continue
            m_fast = fast.legal_moves(fid, **q)
            assert m_fast.actions.tolist() == m_slow.actions.tolist()
            rows = g.usable(slow, fid, m_slow)
            rows = np.arange(len(m_slow)) if rows is None else rows
            if len(rows) == 0:
                continue
            row = int(rows[int(rng.integers(len(rows)))])
            fast.apply_row(m_fast, row)
            slow.apply_move(fid, int(m_slow.actions[row]), **q)
            assert _state(fast) == _state(slow)
            assert _answers(fast, g, steps) == _answers(slow, g, steps)
            steps += 1
    assert steps >= 4


@pytest.mark.parametrize("game,scenario", _examples())
def test_apply_row_of_a_stale_answer_is_validated(game, scenario):
    """An answer made before the position changed is checked as ``apply_move`` checks:
    an end no longer legal raises IllegalMoveError and leaves the position unchanged;
    a bad row or another position's answer is a QueryError."""
    pos = mc.position(scenario)
    g = sp.GAME_CLASSES[game](pos)
    rng = np.random.default_rng(0)
    figs = [f for f in pos.figures if g.moves(pos, f)]
    answers = {f: pos.legal_moves(f, **g.query(pos, f, rng)) for f in figs}
    m = answers[figs[0]]
    with pytest.raises(mc.QueryError, match="row"):
        pos.apply_row(m, len(m))
    with pytest.raises(mc.QueryError, match="row"):
        pos.apply_row(m, "0")
    with pytest.raises(mc.QueryError, match="not an answer"):
        mc.position(scenario).apply_row(m, 0)
    # move the first figure onto an end another figure's (now stale) answer also had
    for a in figs:
        for b in figs:
            if a == b or pos.side_of(a) == pos.side_of(b):
                continue
            ma, mb = answers[a], answers[b]
            if ma.coords.ndim != 2 or mb.coords.ndim != 2:   # one-cell figures
                continue
            xa, xb = [list(map(tuple, m.coords.tolist())) for m in (ma, mb)]
            common = sorted(set(xa[1:]) & set(xb[1:]))   # (not where they stand)
            if not common:
                continue
            pos.apply_move(a, int(ma.actions[xa.index(common[0])]), **ma.query)
            before = _state(pos)
            row = xb.index(common[0])
            with pytest.raises(mc.IllegalMoveError):
                pos.apply_row(mb, row)
            assert _state(pos) == before
            return
    pytest.skip("no two enemy figures share an end in this example")


@pytest.mark.parametrize("game,scenario", _examples())
def test_copies_of_copies_answer_as_rebuilt(game, scenario):
    """A copy of a copy of an asked position, moved at random (with ``apply_row``),
    answers every figure as the scenario of its state rebuilt from scratch."""
    root = sp.root_position(game, scenario)
    g = sp.GAME_CLASSES[game](root)
    rng = np.random.default_rng(5)
    pos = root.copy()
    for step in range(8):
        if step % 3 == 2:
            pos = pos.copy()
        figs = [f for f in pos.figures if g.moves(pos, f)]
        if not figs:
            break
        fid = figs[int(rng.integers(len(figs)))]
        q = g.query(pos, fid, rng)
        try:
            m = pos.legal_moves(fid, **q)
        except mc.QueryError:
            continue
        rows = g.usable(pos, fid, m)
        rows = np.arange(len(m)) if rows is None else rows
        if len(rows):
            pos.apply_row(m, int(rows[int(rng.integers(len(rows)))]))
        rebuilt = mc.position(pos.to_scenario())
        assert _answers(pos, g, step) == _answers(rebuilt, g, step)
        for f in pos.figures:
            if isinstance(pos.where(f), (tuple, list)):
                assert Base.touching(pos, f) == _touching_by_distance(pos, f), (step, f)


def _descent_touching_by_distance(pos, figure) -> list:
    """Descent: the figures with a square of their base at distance 1 (8 neighbours) of
    a square of ``figure``'s base; none in town."""
    i = pos.index[figure]
    if pos.anchor[i] < 0:
        return []
    sq = pos.st.squares
    mine = [sq[s] for s in pos._squares(i, pos.anchor[i])]
    return [f for j, f in enumerate(pos.ids) if j != i and pos.alive[j] and pos.anchor[j] >= 0
            and any(max(abs(a[0] - b[0]), abs(a[1] - b[1])) == 1 for a in mine
                    for b in (sq[s] for s in pos._squares(j, pos.anchor[j])))]


@pytest.mark.parametrize("name,scenario", [pytest.param(n, s, id=n) for n, s in (
    sp.example_scenarios("descent") if "descent" in mc.position_games() else [])])
def test_descent_touching_is_distance_one_between_bases(name, scenario):
    checked = 0
    for seed in range(3):
        trace: list = []
        sp.play("descent", scenario, seed, max_turns=12, trace=trace)
        for mv in trace:
            pos = mc.position(mv.scenario)
            for f in pos.figures:
                assert pos.touching(f) == _descent_touching_by_distance(pos, f), (seed, f)
                checked += bool(pos.touching(f))
    assert checked > 0


def test_examples_and_their_positions_are_read_once_per_process():
    """Self-play reads the bundled examples and packs their positions once per process
    (a run's clock does not count them again): same scenario objects, same roots."""
    a, b = sp.example_scenarios("grid"), sp.example_scenarios("grid")
    assert [s for _, s in a] and all(x is y for (_, x), (_, y) in zip(a, b))
    a.clear()     # the caller's list: the cache keeps its own
    assert sp.example_scenarios("grid") == b
    roots = [sp.root_position("grid", s) for _, s in b]
    sp.run_selfplay("grid", len(b) + 1, 0)
    assert all(sp.root_position("grid", s) is r for (_, s), r in zip(b, roots))
