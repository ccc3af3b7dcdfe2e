"""Every game's live position: ``undo()`` takes back moves and documented state changes
exactly (legal moves, all columns, masks and ``key()`` equal those recorded before each
change), ``key()`` is equal exactly for equal positions (however reached), the mask is
True only on moves ``apply_move`` accepts (non-move actions have their own ids), and
grid positions keep the scenario's provoke tokens.

The walks are seeded random legal move sequences on the bundled examples (self-play's
scenarios and per-game queries, :mod:`movecore.tools.selfplay`), with the game's other state
changes mixed in."""
from __future__ import annotations

import json
import pickle

import numpy as np
import pytest

import movecore as mc
from movecore.tools import selfplay

GAMES = selfplay.GAMES


def _examples(game):
    return [s for _, s in selfplay.example_scenarios(game)]


def _snap(pos, g) -> dict:
    """Everything a player reads: every moving figure's legal moves (all columns, the
    mask, the non-move actions) under the game's self-play query (fixed dice)."""
    rng = np.random.default_rng(0)
    out = {}
    for f in pos.figures:
        if not g.moves(pos, f):
            out[f] = ("stays", pos.where(f))
            continue
        q = g.query(pos, f, rng)
        try:
            m = pos.legal_moves(f, **q)
        except mc.MovecoreError as e:
            out[f] = ("error", type(e).__name__, str(e))
            continue
        cols = {k: np.asarray(v).tolist() for k, v in sorted(m.columns.items())}
        for k in ("engaged_with", "leaving_attackers"):    # (Heroscape: figure slots)
            if k in cols:
                cols[k] = [pos.ids_of(x) for x in cols[k]]
        out[f] = (pos.where(f), m.actions.tolist(), m.costs.tolist(), m.stop.tolist(),
                  m.penalty.tolist(), cols, np.flatnonzero(m.mask).tolist(), m.non_moves)
    return out


def _state(pos) -> str:
    return json.dumps(pos.to_scenario(), sort_keys=True, default=str)


# ------------------------------------------------------------ other state changes
def _grid_change(pos, rng):
    r = rng.random()
    if r < 0.4 and len(pos.figures) > 2:
        pos.remove_figure(pos.figures[int(rng.integers(len(pos.figures)))])
    elif r < 0.7:
        free = np.flatnonzero((pos.occ == -1) & (pos._tok_flags == 0))
        if len(free):
            at = pos.board.coord(int(free[int(rng.integers(len(free)))]))
            pos.add_figure(f"new{int(rng.integers(1000))}" if rng.random() < 0.5 else "x",
                           "green" if rng.random() < 0.5 else pos.sides[0], at) \
                if "x" not in pos.figures else pos.remove_figure("x")
    elif pos.provoke and rng.random() < 0.5:
        pos.remove_provoke(pos.provoke[int(rng.integers(len(pos.provoke)))])
    else:
        free = np.flatnonzero(pos.occ == -1)
        at = pos.board.coord(int(free[int(rng.integers(len(free)))]))
        if at not in pos.provoke:
            pos.add_provoke(at)


def _mage_knight_change(pos, rng):
    r = rng.random()
    spaces = pos.map.spaces
    if r < 0.2:
        pos.set_time("night" if pos.time == "day" else "day")
    elif r < 0.3:
        pos.set_pvp(not pos.pvp)
    elif r < 0.5:
        sites = [c for c, s in enumerate(spaces) if s.site in ("keep", "mage_tower", "city")]
        if sites:
            c = sites[int(rng.integers(len(sites)))]
            by = pos.figures[int(rng.integers(len(pos.figures)))] if rng.random() < 0.5 \
                else None
            pos.conquer(pos.board.coord(c), by=by)
    elif r < 0.65:
        foes = [c for c, s in enumerate(spaces) if s.rampaging is not None]
        if foes:
            pos.defeat_enemy(pos.board.coord(foes[int(rng.integers(len(foes)))]))
    elif r < 0.8:
        if pos.map.open:
            at = pos.map.open[int(rng.integers(len(pos.map.open)))]
            pos.reveal_tile(at, f"countryside_{int(rng.integers(1, 12))}")
    elif r < 0.9 and len(pos.figures) > 1:
        pos.remove_figure(pos.figures[int(rng.integers(len(pos.figures)))])
    else:
        gone = [h for h in pos.ids if h not in pos.figures]
        free = [c for c, s in enumerate(pos.map.spaces) if s.accessible()
                and s.rampaging is None and pos.team_at[c] < 0]
        if gone and free:
            pos.add_figure(gone[0], pos.board.coord(free[int(rng.integers(len(free)))]))


def _descent_change(pos, rng):
    r = rng.random()
    doors = list(pos.doors)
    if r < 0.4 and doors:
        d = doors[int(rng.integers(len(doors)))]
        (pos.close_door if pos.door_is_open(d) else pos.open_door)(d)
    elif r < 0.5 and doors:
        pos.reveal(doors[int(rng.integers(len(doors)))])
    elif r < 0.6:
        pos.add_rune_key(["red", "yellow", "blue"][int(rng.integers(3))])
    elif r < 0.8 and len(pos.figures) > 1:
        pos.remove_figure(pos.figures[int(rng.integers(len(pos.figures)))])
    else:
        gone = [f for f in pos.ids if f not in pos.figures]
        squares = pos.st.squares
        at = list(squares[int(rng.integers(len(squares)))])
        if gone:
            pos.add_figure(gone[0], "hero" if rng.random() < 0.5 else "monster", at,
                           speed=int(rng.integers(1, 5)))
        else:
            pos.add_figure(f"new{int(rng.integers(100))}", "monster", at, speed=3)


def _heroscape_change(pos, rng):
    if rng.random() < 0.5 and len(pos.figures) > 2:
        pos.remove_figure(pos.figures[int(rng.integers(len(pos.figures)))])
        return
    free = np.flatnonzero(pos.at_fig < 0)
    at = pos.board.coord(int(free[int(rng.integers(len(free)))]))
    gone = [f for f in pos.ids if f not in pos.figures]
    fid = gone[0] if gone and rng.random() < 0.5 else f"new{int(rng.integers(100))}"
    pos.add_figure(fid, pos.sides[int(rng.integers(len(pos.sides)))], at,
                   move=int(rng.integers(1, 6)), flying=bool(rng.random() < 0.3))


def _tiny_epic_tactics_change(pos, rng):
    r = rng.random()
    if r < 0.4:
        pos.new_turn()
    elif r < 0.7 and len(pos.figures) > 2:
        pos.remove_figure(pos.figures[int(rng.integers(len(pos.figures)))])
    else:
        free = np.flatnonzero(pos.occ == -1)
        at = pos.board.coord(int(free[int(rng.integers(len(free)))]))
        gone = [f for f in pos.ids if f not in pos.figures]
        fid = gone[0] if gone and rng.random() < 0.5 else f"new{int(rng.integers(100))}"
        pos.add_figure(fid, pos.sides[int(rng.integers(len(pos.sides)))], at)


def _dark_realms_change(pos, rng):
    r = rng.random()
    figs = pos.figures
    f = figs[int(rng.integers(len(figs)))]
    side = pos.side_of(f)
    if r < 0.2:
        pos.set_marked(f, not pos.index[f].marked) if side != "enemy" else None
    elif r < 0.35:
        pos.set_stamina_moved(f, not pos.index[f].stamina_moved) if side == "hero" \
            else None
    elif r < 0.55:
        c = int(rng.integers(pos.board.n_cells))
        pos.set_trap(c, not pos.scene.trap[c])
    elif r < 0.75 and len(figs) > 2:
        pos.remove_figure(f)
    else:
        free = np.flatnonzero((pos.occ == -1) & ~pos.scene.obstacle)
        at = pos.board.coord(int(free[int(rng.integers(len(free)))]))
        pos.add_figure(f"new{int(rng.integers(100))}", ["hero", "enemy", "summon"][
            int(rng.integers(3))], at, speed=int(rng.integers(0, 4)))


CHANGES = {"dark_realms": _dark_realms_change,
           "tiny_epic_tactics": _tiny_epic_tactics_change, "grid": _grid_change,
           "mage_knight": _mage_knight_change, "descent": _descent_change,
           "heroscape": _heroscape_change}


def _walk(game, scenario, seed, steps, change_rate=0.3):
    """(position, [(snapshot, key, state) before each change]) of a seeded random walk:
    moves picked uniformly from the mask (apply_move or apply_row), and the game's other
    state changes."""
    rng = np.random.default_rng(seed)
    pos = mc.position(scenario)
    g = selfplay.GAME_CLASSES[game](pos)
    change = CHANGES.get(game)
    qrng = np.random.default_rng(seed + 1)
    history = []
    for _ in range(steps):
        before = (_snap(pos, g), pos.key(), _state(pos))
        depth = pos.undo_depth
        if change is not None and rng.random() < change_rate:
            try:
                change(pos, rng)
            except mc.MovecoreError:     # a change the position refused: nothing done
                assert pos.undo_depth == depth and pos.key() == before[1]
        else:
            movers = [f for f in pos.figures if g.moves(pos, f)]
            if not movers:
                break
            f = movers[int(rng.integers(len(movers)))]
            q = g.query(pos, f, qrng)
            try:
                m = pos.legal_moves(f, **q)
            except mc.QueryError:       # (a unit that took its Move action this turn)
                continue
            acts = np.flatnonzero(m.mask)
            if not len(acts):
                continue
            a = int(acts[int(rng.integers(len(acts)))])
            if rng.random() < 0.5:
                pos.apply_row(m, m.row(a))
            else:
                pos.apply_move(f, a, **q)
        if pos.undo_depth == depth:      # (a change that changed nothing)
            continue
        assert pos.undo_depth == depth + 1
        history.append(before)
    return pos, g, history


@pytest.mark.parametrize("game", GAMES)
def test_undo_takes_back_every_change_exactly(game):
    for k, scenario in enumerate(_examples(game)):
        for seed in range(2):
            pos, g, history = _walk(game, scenario, 100 * k + seed, 25)
            assert history, (game, k)
            fresh_key = mc.position(scenario).key()
            for snap, key, state in reversed(history):
                pos.undo()
                assert _state(pos) == state
                assert pos.key() == key
                assert _snap(pos, g) == snap
            assert pos.undo_depth == 0 and pos.key() == fresh_key
            with pytest.raises(mc.IllegalMoveError, match="nothing to undo"):
                pos.undo()


@pytest.mark.parametrize("game", GAMES)
def test_undo_after_rebuild_and_copies(game):
    """A position undone part-way answers as one rebuilt from its scenario; a copy's
    undo never changes its parent (the log is shared, the state is not)."""
    scenario = _examples(game)[0]
    pos, g, history = _walk(game, scenario, 7, 12)
    child = pos.copy()
    parent = (_snap(pos, g), pos.key())
    for _ in range(len(history) // 2):
        child.undo()
    assert (_snap(pos, g), pos.key()) == parent
    rebuilt = mc.position(child.to_scenario())
    assert _snap(rebuilt, g) == _snap(child, g)
    assert rebuilt.key() == child.key()


@pytest.mark.parametrize("game", GAMES)
def test_key_equal_iff_state_equal(game):
    """Over many positions (walks, undone and replayed), key equality is state
    equality (the state: the position's scenario)."""
    by_state, by_key = {}, {}
    for k, scenario in enumerate(_examples(game)):
        pos, g, history = _walk(game, scenario, 1000 + k, 20)
        seen = [(s, key) for _, key, s in history] + [(_state(pos), pos.key())]
        while pos.undo_depth:
            pos.undo()
            seen.append((_state(pos), pos.key()))
        for s, key in seen:
            assert by_state.setdefault(s, key) == key
            assert by_key.setdefault(key, s) == s
    assert len(by_key) > 10


@pytest.mark.parametrize("game", GAMES)
def test_key_same_for_move_orders(game):
    """Two figures' moves in either order: equal positions, equal keys."""
    found = 0
    for k, scenario in enumerate(_examples(game)):
        rng = np.random.default_rng(k)
        pos = mc.position(scenario)
        g = selfplay.GAME_CLASSES[game](pos)
        movers = [f for f in pos.figures if g.moves(pos, f)]
        for _ in range(20):
            if len(movers) < 2:
                break
            a, b = rng.choice(len(movers), 2, replace=False)
            fa, fb = movers[a], movers[b]
            qa = g.query(pos, fa, np.random.default_rng(1))
            qb = g.query(pos, fb, np.random.default_rng(1))
            try:
                ma = np.flatnonzero(pos.legal_moves(fa, **qa).mask)
                mb = np.flatnonzero(pos.legal_moves(fb, **qb).mask)
            except mc.QueryError:
                continue
            if not len(ma) or not len(mb):
                continue
            ta, tb = int(rng.choice(ma)), int(rng.choice(mb))
            p, q = pos.copy(), pos.copy()
            try:
                p.apply_move(fa, ta, **qa)
                p.apply_move(fb, tb, **qb)
                q.apply_move(fb, tb, **qb)
                q.apply_move(fa, ta, **qa)
            except mc.QueryError:
                continue
            if _state(p) != _state(q):   # (a move with a side effect on its path)
                assert p.key() != q.key()
                continue
            assert p.key() == q.key()
            assert (p.key() == pos.key()) == (_state(p) == _state(pos))
            found += 1
    assert found or game in ("mage_knight",)


@pytest.mark.parametrize("game", GAMES)
def test_masked_random_policy_only_moves(game):
    """A policy that picks uniformly among the mask's actions only ever picks moves on
    the board that apply_move accepts: never a non-move action (Descent's town, Mage
    Knight's attack on another hero) disguised as a place; the non-move actions have
    their own ids after the places and apply_move takes them."""
    for k, scenario in enumerate(_examples(game)):
        rng = np.random.default_rng(k)
        pos = mc.position(scenario)
        g = selfplay.GAME_CLASSES[game](pos)
        for _ in range(30):
            movers = [f for f in pos.figures if g.moves(pos, f)]
            if not movers:
                break
            f = movers[int(rng.integers(len(movers)))]
            q = g.query(pos, f, rng)
            try:
                m = pos.legal_moves(f, **q)
            except mc.QueryError:       # (a unit that took its Move action this turn)
                continue
            mask = m.mask
            assert mask.shape == (pos.n_actions(f),) and mask is m.mask   # made once
            specials = pos.non_move_actions(f)
            assert set(m.non_moves.items()) <= set(specials.items())
            assert not mask[list(specials.values())].any()
            acts = np.flatnonzero(mask)
            assert set(acts.tolist()) <= set(m.actions.tolist())
            if not len(acts):
                continue
            a = int(rng.choice(acts))
            pos.apply_move(f, a, **q)
            assert not isinstance(pos.where(f), str)     # on the board


def test_descent_town_is_its_own_action():
    sc = {"game": "descent", "board": {"rows": ["....", "...."], "glyphs": [[1, 1]]},
          "figures": [{"id": "h", "side": "hero", "at": [1, 1], "speed": 3}]}
    pos = mc.position(sc)
    m = pos.legal_moves("h", action="run")
    town = pos.action_of("h", "town")
    assert town == pos.n_actions("h") - 1 == 8      # after the 8 squares
    assert town in m.actions.tolist() and not m.mask[town]     # (failed before)
    assert pos.non_move_actions("h") == {"town": town} == m.non_moves
    assert m.mask.sum() == len(m) - 1
    pos.apply_row(m, m.row(town))
    assert pos.where("h") == "town"
    pos.undo()
    assert pos.where("h") == (1, 1)


def test_mage_knight_attack_is_no_move():
    """Another hero's one-hero space is an end (an attack: ``pvp``) but no move: the
    mask is False there, apply_move refuses it."""
    sc = {"game": "mage_knight", "board": {"cells": [
        {"at": [q, 0], "terrain": "plains"} for q in range(3)]},
        "figures": [{"id": "a", "at": [0, 0]}, {"id": "b", "at": [2, 0]}]}
    pos = mc.position(sc)
    m = pos.legal_moves("a", budget=4)
    b = pos.action_of("a", (2, 0))
    row = m.row(b)
    assert m.columns["pvp"][row] == 1 and not m.mask[b] and m.mask[m.actions[0]]
    with pytest.raises(mc.IllegalMoveError):
        pos.apply_move("a", b, budget=4)


# ------------------------------------------------------------ grid provoke tokens
def _example(name):
    from movecore.scenario import example_paths
    for p in example_paths():
        if p.name == name:
            return json.loads(p.read_text())
    raise AssertionError(name)


def test_grid_position_keeps_provoke_tokens():
    """Issue 30.2: the scenario's tokens belong to the position (failed before: 14 ends,
    the token's own cell (1, 3) among them, and apply_move onto it accepted)."""
    s = _example("grid_hex_skirmish.json")
    ends = mc.solve(s)["ends"]
    pos = mc.position(s)
    m = pos.legal_moves("scout")
    assert [1, 3] not in m.coords.tolist()
    assert len(ends) == 12 and m.to_dicts() == ends
    with pytest.raises(mc.IllegalMoveError):
        pos.apply_move("scout", (1, 3), budget=4)
    assert pos.provoke == [(1, 3)]
    side = pos.legal_moves_side("red")
    assert side["scout"].to_dicts() == ends
    # the same query asked with the token again (the query's tokens add to the
    # position's): the same answer
    assert pos.legal_moves("scout", provoke=[[1, 3]]).to_dicts() == ends
    # to_scenario keeps them
    assert mc.solve(pos.to_scenario({"figure": "scout", "budget": 4})) == mc.solve(s)


def test_grid_provoke_methods_copy_undo_key():
    s = _example("grid_hex_skirmish.json")
    no_tokens = dict(s, query={k: v for k, v in s["query"].items() if k != "provoke"})
    pos, plain = mc.position(s), mc.position(no_tokens)
    k0 = pos.key()
    assert plain.key() != k0
    pos.remove_provoke((1, 3))
    assert pos.provoke == [] and pos.key() == plain.key()
    assert pos.legal_moves("scout").to_dicts() == plain.legal_moves("scout").to_dicts()
    twin = pos.copy()
    pos.undo()
    assert pos.provoke == [(1, 3)] and pos.key() == k0 and twin.provoke == []
    assert pos.legal_moves("scout").to_dicts() == mc.solve(s)["ends"]
    assert twin.legal_moves("scout").to_dicts() == plain.legal_moves("scout").to_dicts()
    plain.add_provoke((1, 3))
    assert plain.key() == k0
    assert plain.legal_moves("scout").to_dicts() == mc.solve(s)["ends"]
    plain.set_provoke([(4, 0), (9, 9)])      # a token off the board still provokes
    want = mc.solve(dict(s, query=dict(s["query"], provoke=[[4, 0], [9, 9]])))["ends"]
    assert plain.legal_moves("scout").to_dicts() == want
    plain.undo()
    assert plain.provoke == [(1, 3)] and plain.key() == k0
    with pytest.raises(mc.PlacementError):
        plain.add_provoke((1, 3))
    with pytest.raises(mc.PlacementError):
        plain.add_provoke((0, 1))            # the scout stands there
    with pytest.raises(mc.QueryError):
        plain.remove_provoke((2, 2))
    with pytest.raises(mc.PlacementError):
        plain.add_figure("new", "red", (1, 3))


def test_grid_provoke_differential():
    """Random tokens and moves: the position (tokens baked into its layers, changed
    incrementally) answers as solve() of its scenario, for single and batch queries."""
    rng = np.random.default_rng(5)
    for name in ("grid_hex_skirmish.json", "grid_ally_pass.json",
                 "grid_issue_example.json"):
        pos = mc.position(_example(name))
        budget = pos.default_query.get("budget", 4)
        for _ in range(40):
            r = rng.random()
            if r < 0.3:
                free = np.flatnonzero(pos.occ == -1)
                at = pos.board.coord(int(free[int(rng.integers(len(free)))]))
                if at not in pos.provoke:
                    pos.add_provoke(at)
            elif r < 0.45 and pos.provoke:
                pos.remove_provoke(pos.provoke[int(rng.integers(len(pos.provoke)))])
            f = pos.figures[int(rng.integers(len(pos.figures)))]
            m = pos.legal_moves(f, budget=budget)
            want = mc.solve(pos.to_scenario({"figure": f, "budget": budget}))["ends"]
            assert m.to_dicts() == want
            side = pos.legal_moves_side(pos.side_of(f), budget=budget)
            assert side[f].to_dicts() == want
            pos.apply_row(m, int(rng.integers(len(m))))


def test_grid_selfplay_never_ends_on_a_token():
    """Issue 30.2: grid self-play never ends a move on a provoke token's cell (it did
    222 times in 3,621 moves)."""
    for name, s in selfplay.example_scenarios("grid"):
        tokens = {tuple(t) for t in (s.get("query") or {}).get("provoke", [])}
        for seed in range(20):
            trace: list = []
            selfplay.play("grid", s, seed, trace=trace)
            assert trace
            assert not any(tuple(mv.at) in tokens for mv in trace), name


def test_undo_log_pickles_flat():
    """The undo log of a long game pickles without deep recursion."""
    from movecore.position import _UndoEntry, _undo_log_of
    log = None
    for i in range(5000):
        log = _UndoEntry(max, (i,), log)
    back = pickle.loads(pickle.dumps(log))
    assert back.depth == 5000 and back.args == (4999,) and back.prev.args == (4998,)
    assert _undo_log_of([]) is None


def test_grid_page_provoke_example():
    """docs/grid.md's live-position example runs as printed."""
    import doctest
    import re
    from pathlib import Path
    page = (Path(__file__).resolve().parents[1] / "docs" / "grid.md").read_text()
    blocks = [b for b in re.findall(r"```python\n(.*?)```", page, re.S) if ">>>" in b]
    assert blocks
    for text in blocks:
        test = doctest.DocTestParser().get_doctest(text, {}, "grid.md", "grid.md", 0)
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
        runner.run(test)
        assert runner.failures == 0 and runner.tries > 0
