"""Live positions of Heroscape: an incrementally updated position answers exactly as the
reference implementation (``heroscape.moves`` on a battlefield and army rebuilt from
scratch) and as ``solve()`` of ``to_scenario()``, after every step of seeded random move
sequences with removals and new figures, on the bundled examples and random battlefields."""
from __future__ import annotations

import importlib
import json

import numpy as np
import pytest

import movecore as mc
from movecore.tools.cli import example_paths
from movecore.games import heroscape as hs

EXAMPLES = [p for p in example_paths() if p.name.startswith("heroscape_")]
HEX_DIRS = [(1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)]


# ------------------------------------------------------------------------------ helpers
def _random_scenario(seed: int, deep: bool = False) -> dict:
    """A random battlefield (levels, water, lava, glyphs, obstacles), random options and
    2-3 teams of single- and double-space walkers, flyers and phantom walkers; ``deep``:
    levels 0-24 and short figures, so that minor and major falls are everywhere."""
    rng = np.random.default_rng(seed)
    radius = int(rng.integers(2, 5))
    cells = []
    for q in range(-radius, radius + 1):
        for r in range(-radius, radius + 1):
            if abs(q + r) > radius or rng.random() < 0.05:
                continue
            c = {"at": [q, r], "level": int(rng.integers(0, 25 if deep else
                                                          4 if seed % 4 else 9))}
            x = rng.random()
            if x < 0.12:
                c["terrain"] = "water"
            elif x < 0.16:
                c["terrain"] = "lava"
            elif x < 0.22:
                c["obstacle"] = "tree"
            elif x < 0.27:
                c["glyph"] = "astrid"
            cells.append(c)
    free = [tuple(c["at"]) for c in cells if "obstacle" not in c]
    rng.shuffle(free)
    taken: set = set()
    figures = []
    teams = ["red", "blue", "green"][:int(rng.integers(2, 4))]
    for i in range(int(rng.integers(2, 8))):
        spot = _free_spots(rng, free, taken, rng.random() < 0.35)
        if spot is None:
            break
        f = {"id": f"f{i}", "team": teams[i % len(teams)],
             "at": list(spot[0]) if len(spot) == 1 else [list(s) for s in spot],
             "move": int(rng.integers(1, 8)),
             "height": int(rng.integers(1, 7) if deep else rng.integers(1, 10)
                           if rng.random() < 0.2 else rng.integers(4, 10))}
        x = rng.random()
        if x < 0.15:
            f["flying"] = True
        elif x < 0.2:
            f["stealth_flying"] = True
        elif x < 0.24:
            f["phantom_walk"] = True
        elif x < 0.27:
            f["ghost_walk"] = True
        elif x < 0.3:
            f["abilities"] = ["disengage"]
        elif x < 0.32:
            f["abilities"] = ["ghost_walk", "disengage"]
        figures.append(f)
    opts = {"mode": "basic" if rng.random() < 0.25 else "master",
            "climb_limit": "up_to_height" if rng.random() < 0.3 else "below_height",
            "flyers_stop_in_water": bool(rng.random() < 0.3),
            "flyers_stop_on_glyphs": bool(rng.random() < 0.3)}
    return {"game": "heroscape", "board": {"cells": cells}, "options": opts,
            "figures": figures, "query": {"figure": "f0"}}


def _free_spots(rng, free, taken, double):
    for p in free:
        if p in taken:
            continue
        if not double:
            taken.add(p)
            return [p]
        d = HEX_DIRS[int(rng.integers(6))]
        o = (p[0] + d[0], p[1] + d[1])
        if o in free and o not in taken:
            taken.update((p, o))
            return [p, o]
    return None


_FIELDS: dict = {}


def _reference(pos, fid, query: dict) -> list:
    """``heroscape.moves`` on a battlefield and army rebuilt from the position's scenario
    (the battlefield, which never changes, built once per position and its copies)."""
    s = pos.to_scenario()
    key = id(pos.field)
    if key not in _FIELDS or _FIELDS[key][0] is not pos.field:
        _FIELDS.clear()
        _FIELDS[key] = (pos.field, hs.build_battlefield(s["board"]))
    field = _FIELDS[key][1]
    army = hs.read_army(field, s["figures"])
    o = s.get("options", {})
    rules = hs.Rules(**{k: o[k] for k in ("mode", "climb_limit", "flyers_stop_in_water",
                                          "flyers_stop_on_glyphs") if k in o})
    return hs.moves(field, army, fid, rules=rules, move=query.get("move"),
                    paths=query.get("paths", False),
                    never_attacked_leaving=query.get("never_attacked_leaving", False))


def _check(pos, fid, query: dict, fresh_solve: bool = True) -> None:
    moves = pos.legal_moves(fid, **query)
    ends = moves.to_dicts()
    assert ends == _reference(pos, fid, query)
    if fresh_solve:
        got = pos.solve({"figure": fid, **query})
        assert got == mc.solve(pos.to_scenario({"figure": fid, **query}))
        assert got["ends"] == ends
    # the arrays say what the dicts say
    assert len(moves) == len(ends)
    coords = moves.coords.tolist()
    assert coords == [e["at"] for e in ends]
    assert moves.costs.tolist() == [e["cost"] for e in ends]
    assert [pos.STOP_REASONS[s] for s in moves.stop.tolist()] == [e["stop"] for e in ends]
    assert moves.penalty.tolist() == [e["leaving_attacks"] for e in ends]
    assert moves.columns["leaving_attacks_cost"].tolist() == \
        [e["leaving_attacks_cost"] for e in ends]
    assert [hs.FALLS[f] for f in moves.columns["fall"].tolist()] == [e["fall"] for e in ends]
    assert [hs.FALLS[f] for f in moves.columns["least_fall"].tolist()] == \
        [e["least_fall"] for e in ends]
    assert moves.columns["least_fall_cost"].tolist() == [e["least_fall_cost"] for e in ends]
    for key in ("flies", "leaving_attacks_flies"):
        assert moves.columns[key].dtype == np.bool_
        assert moves.columns[key].tolist() == [e[key] for e in ends]
    for key in ("engaged_with", "leaving_attackers"):     # who, as bit masks
        if key in moves.columns:
            assert moves.columns[key].dtype == np.uint64
            assert [pos.ids_of(b) for b in moves.columns[key].tolist()] == \
                [e[key] for e in ends]
        else:
            assert len(pos.ids) > 64
    mask = moves.mask
    assert mask.shape == (pos.n_actions(fid),) and mask.sum() == len(moves)


def _add_random(pos, rng, k: int) -> None:
    """A new figure on free spaces (or a typed error that leaves the position alone)."""
    board = pos.board
    c = int(rng.integers(board.n_cells))
    at = list(board.coord(c))
    if rng.random() < 0.3:
        d = HEX_DIRS[int(rng.integers(6))]
        at = [at, [at[0] + d[0], at[1] + d[1]]]
    kw = dict(move=int(rng.integers(1, 8)), height=int(rng.integers(1, 10)))
    x = rng.random()
    if x < 0.15:
        kw["flying"] = True
    elif x < 0.2:
        kw["stealth_flying"] = True
    elif x < 0.24:
        kw["phantom_walk"] = True
    elif x < 0.27:
        kw["ghost_walk"] = True
    elif x < 0.3:
        kw["disengage"] = True
    team = pos.sides[int(rng.integers(len(pos.sides)))] if pos.sides else "red"
    before = pos.to_scenario()
    version = pos.version
    try:
        pos.add_figure(f"new{k}", team, at, **kw)
    except (mc.PlacementError, mc.QueryError):
        assert pos.to_scenario() == before and pos.version == version


def _play(scenario: dict, seed: int, steps: int, others: int = 1,
          paths: float = 0.1) -> int:
    rng = np.random.default_rng(seed)
    pos = mc.position(scenario)
    checked = 0
    for step in range(steps):
        figs = pos.figures
        if not figs:
            break
        fid = figs[int(rng.integers(len(figs)))]
        query = {}
        if rng.random() < 0.5:
            query["move"] = int(rng.integers(0, 9))
        if rng.random() < paths:
            query["paths"] = True
        if rng.random() < 0.15:
            query["never_attacked_leaving"] = bool(rng.random() < 0.8)
        _check(pos, fid, query, fresh_solve=step % 4 == 0)
        checked += 1
        # the side's batch answers each figure as if it moved first, exactly
        if rng.random() < 0.3:
            side = pos.side_of(fid)
            q = {k: v for k, v in query.items() if k != "paths"}
            for other, m in pos.legal_moves_side(side, **q).items():
                assert m.to_dicts() == pos.legal_moves(other, **q).to_dicts()
        moves = pos.legal_moves(fid, **query)
        row = int(rng.integers(len(moves)))
        if rng.random() < 0.5:
            pos.apply_move(fid, int(moves.actions[row]), **query)
        else:
            to = moves.coords[row].tolist()
            if len(np.shape(to)) == 2 and rng.random() < 0.5:
                to = to[::-1]        # a double-space end in the other orientation
            pos.apply_move(fid, to, **query)
            assert (list(pos.where(fid)) if isinstance(pos.where(fid), tuple) else
                    [list(c) for c in pos.where(fid)]) == to
        x = rng.random()
        if x < 0.08 and len(pos.figures) > 1:
            pos.remove_figure(pos.figures[int(rng.integers(len(pos.figures)))])
        elif x < 0.14:
            _add_random(pos, rng, step)
        for _ in range(others):
            figs = pos.figures
            if figs:
                _check(pos, figs[int(rng.integers(len(figs)))], {}, fresh_solve=False)
                checked += 1
    return checked


# ------------------------------------------------------------------------------ tests
@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_random_move_sequences_from_every_example(path):
    scenario = json.loads(path.read_text())
    assert sum(_play(scenario, seed, 60, others=2) for seed in range(6)) >= 1000


@pytest.mark.parametrize("seeds", [range(0, 30), range(30, 60)], ids=["0-29", "30-59"])
def test_random_move_sequences_on_random_battlefields(seeds):
    # (the first 30 battlefields, 1,200 moves, in every run; the other 30 in the soak tier)
    assert sum(_play(_random_scenario(seed), seed, 20) for seed in seeds) >= 1000


def test_random_move_sequences_with_deep_drops():
    # falls (fall on the least-cost path, least fall and its cost) from the position's
    # own searches, against the reference, minor and major, single and double-space
    assert sum(_play(_random_scenario(seed, deep=True), seed, 20) for seed in range(40)) \
        >= 1200


def test_paths_on_real_and_deep_battlefields():
    # paths (least-cost, least-attack, least-fall) walked back through the position's own
    # search trees, against the reference, on every query
    n = sum(_play(json.loads(p.read_text()), 7, 25, paths=1.0) for p in EXAMPLES)
    n += sum(_play(_random_scenario(seed, deep=seed % 2 == 0), seed, 15, paths=1.0)
             for seed in range(30))
    assert n >= 900


def test_flyers_choose_flying_or_walking():
    # issue 30 item 4: every other figure a flyer (single and double-space, many of them
    # engaged, in master games): each end the least over flight and walk, as the
    # reference's, after every step
    n = walked = 0
    for seed in range(40):
        s = _random_scenario(seed, deep=seed % 3 == 0)
        s["options"]["mode"] = "master"
        for k, f in enumerate(s["figures"]):
            if k % 2 == 0:
                f.update(flying=True, stealth_flying=False, phantom_walk=False,
                         abilities=[])
        n += _play(s, seed, 15, paths=0.3)
        pos = mc.position(s)
        for f in pos.figures:
            m = pos.legal_moves(f)
            walked += int((m.columns["flies"] & ~m.columns["leaving_attacks_flies"]).sum())
    assert n >= 600 and walked > 20


def test_example_solve_is_unchanged():
    for path in EXAMPLES:
        s = json.loads(path.read_text())
        pos = mc.position(s)
        assert pos.solve(s["query"]) == mc.solve(s)
        q = {k: v for k, v in s["query"].items() if k != "figure"}
        assert pos.legal_moves(s["query"]["figure"], **q).to_dicts() == \
            _reference(pos, s["query"]["figure"], q)


def test_copy_is_independent():
    scenario = json.loads(EXAMPLES[0].read_text())
    pos = mc.position(scenario)

    def answers(p):
        return {f: p.legal_moves(f).to_dicts() for f in p.figures}

    before = answers(pos)
    twin = pos.copy()
    for fid in ("knight", "dragon", "raelin"):
        m = twin.legal_moves(fid)
        twin.apply_move(fid, int(m.actions[-1]))
    twin.remove_figure("orc_1")
    twin.add_figure("scout", "utgar", [8, 4], move=6)
    assert answers(pos) == before
    twin_before = answers(twin)
    for fid in ("knight", "dragon", "archer"):
        pos.apply_move(fid, int(pos.legal_moves(fid).actions[-1]))
    pos.remove_figure("raelin")
    assert answers(twin) == twin_before
    for p in (pos, twin):
        for f in p.figures:
            assert p.legal_moves(f).to_dicts() == _reference(p, f, {})


def _arrays(x, seen=None) -> list:
    """The numpy arrays held by ``x``'s attributes (containers and Moves followed)."""
    seen = set() if seen is None else seen
    if id(x) in seen:
        return []
    seen.add(id(x))
    if isinstance(x, np.ndarray):
        return [x]
    if isinstance(x, dict):
        return [a for v in x.values() for a in _arrays(v, seen)]
    if isinstance(x, (list, tuple)):
        return [a for v in x for a in _arrays(v, seen)]
    if isinstance(x, mc.Moves):
        slots = [k for c in type(x).__mro__ for k in getattr(c, "__slots__", ())]
        return _arrays([getattr(x, k, None) for k in slots], seen)
    return []


def test_a_copy_owns_its_state_and_no_scratch():
    """Batched self-play keeps thousands of copies of one root (issue 29: 4,096 games of
    the largest map under 200 MiB): a copy that asked every figure (double-space ones
    with leaving attacks too) and moved owns the arrays a move writes and its last
    answer, nothing else -- no placement leave layer (a query derives its row), no query
    buffers (this thread's scratch)."""
    path = next(p for p in EXAMPLES if "shattered_table" in p.name)
    root = mc.position(json.loads(path.read_text()))
    for f in root.figures:
        root.legal_moves(f)
    twin = root.copy()
    doubles = [f for f in twin.figures if isinstance(twin.where(f), list)]
    assert doubles and twin.rules.mode == "master"
    for f in doubles + twin.figures:
        twin.legal_moves(f)
    f = doubles[0]
    twin.apply_move(f, int(twin.legal_moves(f).actions[-1]))
    for f in twin.figures:
        last = twin.legal_moves(f)
    shared = _arrays(vars(root))
    own = [a for a in _arrays({k: v for k, v in vars(twin).items() if k != "_last"})
           if not any(np.shares_memory(a, b) for b in shared)]
    state = [getattr(twin, k) for k in type(twin)._MOVE_ARRAYS]
    extra = [a.shape for a in own if not any(a is b for b in state)]
    assert extra == []
    assert sum(a.nbytes for a in state) < 20 * 1024     # (the map: 194 spaces, 1,056
    assert twin._lv.shape[0] >= 1                        # placements, 2 teams)
    assert all(not np.shares_memory(a, b) for a in _arrays(last) for b in shared)


def test_bad_changes_raise_typed_errors_and_change_nothing():
    scenario = json.loads(EXAMPLES[0].read_text())
    pos = mc.position(scenario)

    def state():
        return pos.to_scenario(), {f: pos.legal_moves(f).to_dicts() for f in pos.figures}

    before = state()
    version = pos.version
    legal = {tuple(c) for c in pos.legal_moves("knight", move=1).coords.tolist()}
    far = next(pos.board.coord(c) for c in range(pos.board.n_cells)
               if pos.board.coord(c) not in legal and pos.field.obstacle[c] is None)
    with pytest.raises(mc.IllegalMoveError, match="not a legal end"):
        pos.apply_move("knight", far, move=1)
    with pytest.raises(mc.IllegalMoveError):
        pos.apply_move("knight", pos.board.index(far), move=1)
    with pytest.raises(mc.IllegalMoveError):       # a placement that is not an end
        pos.apply_move("dragon", [[4, 2], [5, 2]], move=1)
    with pytest.raises(mc.IllegalMoveError):       # two spaces that are not neighbours
        pos.apply_move("dragon", [[0, 4], [2, 4]])
    with pytest.raises(mc.QueryError, match="unknown figure"):
        pos.apply_move("nobody", (0, 0))
    with pytest.raises(mc.QueryError, match="unknown figure"):
        pos.legal_moves("nobody")
    with pytest.raises(mc.QueryError, match="unknown figure"):
        pos.remove_figure("nobody")
    with pytest.raises(mc.QueryError, match="not on the battlefield"):
        pos.apply_move("knight", (99, 99))
    with pytest.raises(mc.QueryError, match="unknown query key"):
        pos.legal_moves("knight", budget=3)
    with pytest.raises(mc.QueryError, match="move must be"):
        pos.legal_moves("knight", move=-1)
    with pytest.raises(mc.QueryError, match="placement id"):
        pos.apply_move("dragon", 10 ** 6)
    with pytest.raises(mc.PlacementError, match="taken"):
        pos.add_figure("new", "jandar", pos.where("knight"))
    with pytest.raises(mc.PlacementError, match="obstacle"):
        blocked = next(c for c in range(pos.board.n_cells) if pos.field.obstacle[c])
        pos.add_figure("new", "jandar", pos.board.coord(blocked))
    with pytest.raises(mc.PlacementError, match="neighbouring"):
        pos.add_figure("new", "jandar", [[8, 8], [8, 6]])
    with pytest.raises(mc.PlacementError, match="already in play"):
        pos.add_figure("knight", "jandar", (8, 8))
    with pytest.raises(mc.ScenarioError):
        pos.add_figure("new", "jandar", (8, 8), height=0)
    with pytest.raises(mc.QueryError):
        pos.add_figure(None, "jandar", (8, 8))
    assert state() == before and pos.version == version


def test_figures_come_and_go():
    scenario = json.loads(EXAMPLES[0].read_text())
    pos = mc.position(scenario)
    assert pos.is_engaged("knight") and pos.is_engaged("orc_1")
    pos.remove_figure("orc_1")
    assert pos.is_engaged("knight")              # the dragon is still next to it
    pos.remove_figure("dragon")
    assert not pos.is_engaged("knight")
    assert pos.legal_moves("knight").penalty.max() == 0
    pos.add_figure("orc_1", "utgar", [2, 3], move=5, height=5)   # back, engaged again
    pos.add_figure("dragon", "utgar", [[0, 4], [-1, 4]], move=6, height=9)
    assert pos.is_engaged("knight")
    assert pos.legal_moves("knight").to_dicts() == _reference(pos, "knight", {})
    pos.add_figure("wyrm", "utgar", [[8, 6], [8, 7]], move=4, height=8)
    assert pos.where("wyrm") == [(8, 6), (8, 7)] and pos.n_actions("wyrm") > pos.board.n_cells
    for f in pos.figures:
        assert pos.legal_moves(f).to_dicts() == _reference(pos, f, {})


def test_many_figures_fall_back_to_masks_per_query():
    # more than 64 figures: one bit per figure no longer fits, the masks are made per
    # query from the enemies within reach (as the reference does)
    cells = [{"at": [q, r]} for q in range(-7, 8) for r in range(-7, 8) if abs(q + r) <= 7]
    spots = [c["at"] for c in cells][::2][:70]
    figs = [{"id": f"f{i}", "team": "ab"[i % 2], "at": at, "move": 3}
            for i, at in enumerate(spots)]
    s = {"game": "heroscape", "board": {"cells": cells}, "figures": figs,
         "query": {"figure": "f0"}}
    pos = mc.position(s)
    rng = np.random.default_rng(0)
    for _ in range(30):
        fid = pos.figures[int(rng.integers(len(pos.figures)))]
        _check(pos, fid, {}, fresh_solve=False)
        m = pos.legal_moves(fid)
        pos.apply_move(fid, int(m.actions[int(rng.integers(len(m)))]))


def _crowd(seed: int) -> dict:
    """More than 64 figures (single and double-space walkers, flyers, phantom walkers,
    three teams) on a 169-space battlefield with deep drops and water."""
    rng = np.random.default_rng(seed)
    cells = []
    for q in range(-7, 8):
        for r in range(-7, 8):
            if abs(q + r) <= 7:
                c = {"at": [q, r], "level": int(rng.integers(0, 16))}
                if rng.random() < 0.1:
                    c["terrain"] = "water"
                cells.append(c)
    free = [tuple(c["at"]) for c in cells]
    rng.shuffle(free)
    taken: set = set()
    figs = []
    for i in range(70):
        spot = _free_spots(rng, free, taken, rng.random() < 0.2)
        f = {"id": f"f{i}", "team": "abc"[i % 3], "move": int(rng.integers(1, 7)),
             "height": int(rng.integers(1, 7)),
             "at": list(spot[0]) if len(spot) == 1 else [list(x) for x in spot]}
        x = rng.random()
        if x < 0.1:
            f["flying"] = True
        elif x < 0.15:
            f["phantom_walk"] = True
        figs.append(f)
    return {"game": "heroscape", "board": {"cells": cells}, "figures": figs,
            "query": {"figure": "f0"}}


def test_many_figures_at_kernel_speed():
    # more than 64 figures ever held: the position's own queries (falls and paths
    # included), the who columns made over the enemies within reach of each move
    n = sum(_play(_crowd(seed), seed, 12, paths=0.3) for seed in range(4))
    assert n >= 90


def test_side_batch_and_doctest_shapes():
    scenario = json.loads(EXAMPLES[0].read_text())
    pos = mc.position(scenario)
    side = pos.legal_moves_side("jandar")
    assert list(side) == ["knight", "archer", "raelin"]
    for fid, m in side.items():
        assert m.to_dicts() == pos.legal_moves(fid).to_dicts()
    raelin = side["raelin"]
    assert raelin.coords.shape == (len(raelin), 2, 2)
    assert pos.action_coords("raelin", raelin.actions).tolist() == raelin.coords.tolist()
    assert pos.action_of("raelin", raelin.coords[3].tolist()) == raelin.actions[3]


def test_built_from_the_game_objects():
    s = json.loads(EXAMPLES[0].read_text())
    field = hs.build_battlefield(s["board"])
    army = hs.read_army(field, s["figures"])
    pos = hs.Position(field, army, hs.Rules(**s.get("options", {})))
    assert pos.solve(s["query"]) == mc.solve(s)
    assert mc.solve(pos.to_scenario(s["query"])) == mc.solve(s)
    assert hs.placement_graph(field) is hs.placement_graph(pos.field)   # shared, once
    with pytest.raises(mc.QueryError):
        hs.Position(field, army, "master")


def test_touching_is_the_protocol_s():
    from movecore.position import Position as Base
    for path in EXAMPLES:
        pos = mc.position(json.loads(path.read_text()))
        rng = np.random.default_rng(3)
        for _ in range(20):
            for f in pos.figures:
                assert pos.touching(f) == Base.touching(pos, f)
                assert pos.team_figures(pos.side_of(f)) == Base.team_figures(
                    pos, pos.side_of(f))
            assert pos.sides == Base.sides.fget(pos)
            fid = pos.figures[int(rng.integers(len(pos.figures)))]
            m = pos.legal_moves(fid)
            pos.apply_move(fid, int(m.actions[int(rng.integers(len(m)))]))


def test_battlefield_too_large_for_the_packed_kernel(monkeypatch):
    # the packed kernel refuses boards whose buckets would not fit: the position then
    # answers through the general kernel, the same ends in the same order
    monkeypatch.setattr(importlib.import_module("movecore.reach"), "_FAST_MAX_STACK", 0)
    for path in EXAMPLES:
        s = json.loads(path.read_text())
        s["options"] = dict(s.get("options", {}), mode="basic")
        assert _play(s, 7, 8) >= 8
    assert _play(_random_scenario(5), 5, 10) >= 10
    # falls and paths from the general kernel's search trees, as the reference's
    assert sum(_play(_random_scenario(seed, deep=True), seed, 10, paths=0.5)
               for seed in (0, 2, 4, 6)) >= 40


def test_abilities_option_and_who_columns():
    """Ghost Walk, Disengage and the never_attacked_leaving option on a live position,
    and the who columns as bit masks over the position's figures."""
    pos = mc.position({"game": "heroscape", "board": {"cells": [
        {"at": [q, 0]} for q in range(5)]}, "figures": [
        {"id": "m", "team": "red", "at": [1, 0], "move": 3, "ghost_walk": True},
        {"id": "en", "team": "blue", "at": [2, 0]},
        {"id": "far", "team": "blue", "at": [4, 0]}]})
    m = pos.legal_moves("m")
    got = {tuple(c): (p, pos.ids_of(e), pos.ids_of(lft)) for c, p, e, lft in zip(
        m.coords.tolist(), m.penalty.tolist(), m.columns["engaged_with"].tolist(),
        m.columns["leaving_attackers"].tolist())}
    assert got[(1, 0)] == (0, ["en"], [])
    assert got[(0, 0)] == (1, [], ["en"])
    assert got[(3, 0)] == (1, ["en", "far"], ["en"])
    calm = pos.legal_moves("m", never_attacked_leaving=True)
    assert calm.penalty.tolist() == [0] * len(calm)
    assert not calm.columns["leaving_attackers"].any()
    assert calm.columns["engaged_with"].tolist() == m.columns["engaged_with"].tolist()
    with pytest.raises(mc.QueryError, match="never_attacked_leaving"):
        pos.legal_moves("m", never_attacked_leaving=1)
    with pytest.raises(mc.ScenarioError, match="disengage"):
        pos.add_figure("x", "red", (0, 0), disengage="yes")
    pos.add_figure("x", "red", (0, 0), disengage=True)
    assert pos.to_scenario()["figures"][-1]["disengage"] is True
    assert pos.legal_moves("m", move=0).columns["engaged_with"].tolist() == [
        sum(1 << pos.ids.index(f) for f in ("en",))]


_LAZY = ("engaged_with", "leaving_attackers", "fall", "least_fall", "least_fall_cost",
         "leaving_attacks_cost", "flies", "leaving_attacks_flies")


def _lazy_round(pos, rng) -> int:
    """Every figure's moves asked (columns unread), and a side's; then other queries,
    a copy, moves of the copy and of the position itself: each answer's columns, read
    last (some through ``to_dicts()``), are those of the eager answer asked before the
    changes (a path query makes every column at once, on a copy)."""
    figs = pos.figures
    asked, eager = {}, {}
    for f in figs:
        q = {"move": int(rng.integers(0, 9))} if rng.random() < 0.3 else {}
        asked[f] = (q, pos.legal_moves(f, **q))
    for f, m in pos.legal_moves_side(pos.sides[int(rng.integers(len(pos.sides)))]).items():
        asked[(f, "side")] = ({}, m)
    for key, (q, m) in asked.items():
        f = key[0] if isinstance(key, tuple) else key
        e = pos.copy().legal_moves(f, paths=True, **q)
        assert m.actions.tolist() == e.actions.tolist()
        eager[key] = ({k: e.columns[k].tolist() for k in _LAZY},
                      [{k: v for k, v in d.items() if "path" not in k}
                       for d in e.to_dicts()])
    twin = pos.copy()
    for p in (twin, pos):
        for f in rng.permutation(figs).tolist()[:2]:
            if f in p.figures:
                m = p.legal_moves(f)
                p.apply_move(f, int(m.actions[int(rng.integers(len(m)))]))
        if rng.random() < 0.3 and len(p.figures) > 2:
            p.remove_figure(p.figures[0])
    for key in rng.permutation(len(asked)).tolist():
        key = list(asked)[key]
        q, m = asked[key]
        cols, dicts = eager[key]
        if rng.random() < 0.3:
            assert m.to_dicts() == dicts
        assert {k: m.columns[k].tolist() for k in _LAZY} == cols, key
        assert sorted(m.columns) == sorted(_LAZY)
    return len(asked)


def test_lazy_columns_answer_for_the_position_asked_on():
    n = 0
    for seed in range(30):
        rng = np.random.default_rng(seed)
        scenario = _random_scenario(seed, deep=seed % 2 == 0) if seed >= 6 else \
            json.loads(EXAMPLES[seed % len(EXAMPLES)].read_text())
        pos = mc.position(scenario)
        for _ in range(3):
            if len(pos.figures) < 3:
                break
            n += _lazy_round(pos, rng)
    assert n >= 200


def test_lazy_columns_fill_once_on_any_read_of_a_missing_column_or_the_whole():
    from movecore.position import LazyColumns
    calls = []

    def fill(k):
        calls.append(k)
        return {"b": k}

    reads = [lambda c: c["b"], lambda c: list(c), lambda c: len(c), lambda c: "b" in c,
             lambda c: c.get("b"), lambda c: dict(c), lambda c: c.copy(),
             lambda c: list(c.items()), lambda c: c == {"a": 1, "b": 2}]
    for read in reads:
        calls.clear()
        c = LazyColumns({"a": 1}, fill, (2,))
        assert c["a"] == 1 and calls == []          # a column given up front
        read(c)
        read(c)
        assert calls == [2] and dict(c) == {"a": 1, "b": 2}


def test_crowds_of_more_than_64_enemies_within_reach_are_answered_by_the_position():
    # issue 32 item 3: no fallback to the reference for a crowd: flyers, disengaging
    # and basic-game moves against the reference (which needs no leave masks for them),
    # walkers (the reference's masks stop at 64 enemies) against a rebuilt position,
    # after every step; the oracle of the walkers' crowd answers is in test_heroscape
    from movecore.games.heroscape import _falls as falls
    rng = np.random.default_rng(5)
    cells = [{"at": [q, r], "level": int(rng.integers(0, 4))} for q in range(-7, 8)
             for r in range(-7, 8) if abs(q + r) <= 7]
    spots = [c["at"] for c in cells]
    order = rng.permutation(len(spots))
    figs = []
    for k, o in enumerate(order[:110].tolist()):
        f = {"id": f"f{k}", "team": "b" if k % 4 else "a", "at": spots[o],
             "move": int(rng.integers(6, 9)), "height": int(rng.integers(2, 7))}
        if k % 5 == 1:
            f["flying"] = True
        figs.append(f)
    s = {"game": "heroscape", "board": {"cells": cells}, "figures": figs}
    pos = mc.position(s)
    by_ref = by_rebuild = crowded = 0
    for step in range(80):           # mostly team a's figures: 82 enemies
        side = pos.team_figures("a" if rng.random() < 0.75 else "b")
        fid = side[int(rng.integers(len(side)))]
        q = {"move": int(rng.integers(6, 9))}
        if rng.random() < 0.3:
            q["paths"] = True
        if rng.random() < 0.2:
            q["never_attacked_leaving"] = True
        i = pos.index[fid]
        crowded += len(falls._near(pos, i, q["move"] + 2 + int(pos.double[i]))) > 64
        ends = pos.legal_moves(fid, **q).to_dicts()
        try:
            want = _reference(pos, fid, q)
            by_ref += 1
        except mc.LimitError:
            want = mc.position(pos.to_scenario()).legal_moves(fid, **q).to_dicts()
            by_rebuild += 1
        assert ends == want, (step, fid, q)
        m = pos.legal_moves(fid, **q)
        pos.apply_move(fid, int(m.actions[int(rng.integers(len(m)))]), **q)
    assert crowded >= 25 and by_ref >= 20 and by_rebuild >= 15
