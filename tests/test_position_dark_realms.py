"""Live Dark Realms positions: after every step of seeded random play (moves, Stamina,
teleports, enemy AI moves, removals, summons, traps, Marks) the position answers exactly
as solve() of the scenario rebuilt from scratch."""
from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

import movecore as mc
from movecore.errors import IllegalMoveError, MovecoreError, QueryError
from movecore.games import dark_realms as dr
from movecore.games.dark_realms import Position
from movecore.position import Position as _BasePosition

EXAMPLES = sorted((Path(mc.__file__).parent / "examples").glob("dark_realms_*.json"))


def load(path) -> dict:
    return json.loads(Path(path).read_text())


def random_query(pos, fid, rng) -> dict:
    side = pos.side_of(fid)
    kinds = ["move", "roll", "roll", "move_paths", "teleport", "die"]
    if side == "hero":
        kinds += ["stamina", "stamina_only"]
    if side == "enemy":
        kinds += ["enemy", "enemy", "enemy"]
    k = rng.choice(kinds)
    if k == "move":
        return {"move": rng.randint(0, 5)}
    if k == "roll":
        q = {"roll": rng.randint(1, 6), "bonus": rng.randint(0, 2)}
        if side == "hero" and rng.random() < 0.5:
            q["stamina"] = rng.randint(0, 2)
        return q
    if k == "move_paths":
        return {"move": rng.randint(1, 4), "paths": True}
    if k == "stamina":
        return {"move": rng.randint(0, 3), "stamina": rng.randint(0, 3)}
    if k == "stamina_only":
        return {"stamina_only": True, "stamina": rng.randint(0, 3)}
    if k == "teleport":
        return {"teleport": rng.randint(0, 3)}
    if k == "die":
        return {"die": "d6", "bonus": rng.randint(0, 1)}
    return {"enemy": True, "move": rng.randint(1, 5), "attack_range": rng.choice([1, 1, 2, 3])}


def scenario_query(fid, q) -> dict:
    if q.get("enemy"):
        return {**{k: v for k, v in q.items() if k != "enemy"}, "enemy": fid}
    return {**q, "figure": fid}


def check(pos, fid, q):
    """The position's answer equals solve() of its scenario; returns the Moves."""
    sq = scenario_query(fid, q)
    try:
        want = mc.solve(pos.to_scenario(sq))
    except MovecoreError as e:
        with pytest.raises(type(e)):
            pos.legal_moves(fid, **q)
        with pytest.raises(type(e)):
            pos.solve(sq)
        return None
    # the reference: the scene re-read and answered by the module's functions alone
    # (enemy_turn, move_ends...), not by any position
    sc = pos.to_scenario(sq)
    assert dr.rules._solve_scene(dr.read_scene(sc), sq) == want
    m = pos.legal_moves(fid, **q)
    got = m.to_dicts()
    assert got == (want["moves"] if "enemy" in sq else want["ends"]), (fid, q)
    assert pos.solve(sq) == want
    assert m.mask.sum() == len(set(m.actions.tolist()))
    assert [list(c) for c in m.coords.tolist()] == [e["at"] for e in got]
    if "enemy" not in sq:
        assert m.costs.tolist() == [e["cost"] for e in got]
        assert m.penalty.tolist() == [e.get("traps", 0) for e in got]
    else:
        assert m.costs.tolist() == [e["steps"] for e in got]
        assert m.penalty.tolist() == [e["traps"] for e in got]
    return m


def random_change(pos, rng, n_added):
    """A random state change; returns the new count of added figures."""
    r = rng.random()
    board = pos.board
    free = [c for c in range(board.n_cells)
            if pos.occ[c] < 0 and not pos.scene.obstacle[c]]
    if r < 0.25 and len(pos.figures) > 2:
        pos.remove_figure(rng.choice(pos.figures))
    elif r < 0.5 and free:
        side = rng.choice(["summon", "enemy", "hero"])
        pos.add_figure(f"new{n_added}", side, board.coord(rng.choice(free)),
                       speed=rng.randint(0, 4), flying=rng.random() < 0.3,
                       marked=side != "enemy" and rng.random() < 0.2)
        n_added += 1
    elif r < 0.75 and free:
        c = rng.choice(free)
        pos.set_trap(c, not pos.scene.trap[c])
    else:
        fid = rng.choice(pos.figures)
        side = pos.side_of(fid)
        if side == "hero" and rng.random() < 0.5:
            pos.set_stamina_moved(fid, rng.random() < 0.5)
        elif side != "enemy":
            pos.set_marked(fid, rng.random() < 0.5)
    return n_added


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_random_play_matches_solve(path):
    _random_play(load(path), random.Random(path.stem), 200)


@pytest.mark.parametrize("limit", [1, 2, 3])
def test_random_play_with_a_trap_detour_limit(limit):
    """Enemies with a numeric detour limit answer as solve() after every step."""
    s = load(EXAMPLES[0].parent / "dark_realms_enemy_turn.json")
    s["options"] = {**s.get("options", {}), "trap_detour_limit": limit}
    s["options"].pop("trap_avoidance", None)
    _random_play(s, random.Random(limit), 120)


def test_trap_queries_fast_path_equals_the_reach_path(monkeypatch):
    """A hero's move over traps (the packed penalty kernel's rows, sorted in one compiled
    call) equals the same query through a Reach, after every step of random play."""
    from movecore.reach import Prepared
    fast = Prepared._pen_sorted
    compared = []

    def both(self, start, budget, order):
        got = fast(self, start, budget, order)
        r = self.reach(start, budget, paths=False)
        idx = np.lexsort((order[r.cells], r.costs))
        want = (r.cells[idx], r.costs[idx], r.penalties[idx], r.penalty_costs[idx])
        assert got is not None
        assert [g.tolist() for g in got] == [w.tolist() for w in want]
        compared.append(1)
        return got

    monkeypatch.setattr(Prepared, "_pen_sorted", both)
    for name in ("dark_realms_die_planning.json", "dark_realms_enemy_turn.json"):
        _random_play(load(EXAMPLES[0].parent / name), random.Random(name), 60)
    assert len(compared) > 50


def _random_play(s, rng, n_steps):
    pos = mc.position(s)
    assert isinstance(pos, Position)
    assert pos.solve(s["query"]) == mc.solve(s)
    n_added = 0
    steps = 0
    for step in range(n_steps):
        if not pos.figures:
            break
        fid = rng.choice(pos.figures)
        q = random_query(pos, fid, rng)
        m = check(pos, fid, q)
        # a few others too
        for other in rng.sample(pos.figures, min(2, len(pos.figures))):
            check(pos, other, random_query(pos, other, rng))
        if m is not None and len(m):
            v = pos.version
            row = rng.randrange(len(m))
            to = int(m.actions[row])
            if rng.random() < 0.5:
                pos.apply_move(fid, pos.board.coord(to), **q)
            else:   # the trusted fast path (others were asked since: m is still current)
                pos.apply_row(m, row)
            assert pos.version > v and pos.board.find(pos.where(fid)) == to
            if q.get("stamina_only"):
                assert pos.to_scenario()["figures"][pos.figures.index(fid)]["stamina_moved"]
            check(pos, fid, q)
        if rng.random() < 0.2:
            n_added = random_change(pos, rng, n_added)
        check_figure_lists(pos)
        steps += 1
    assert steps >= n_steps // 2


def check_figure_lists(pos):
    """The position's own touching / sides / team_figures equal the generic ones."""
    base = _BasePosition
    assert pos.sides == base.sides.fget(pos)
    for side in ("hero", "enemy", "summon"):
        assert pos.team_figures(side) == base.team_figures(pos, side)
    for fid in pos.figures:
        assert pos.touching(fid) == base.touching(pos, fid)


def test_apply_row_of_a_stale_answer_is_validated():
    pos = mc.position(load(EXAMPLES[0].parent / "dark_realms_hero_move.json"))
    fid = pos.team_figures("hero")[0]
    m = pos.legal_moves(fid, move=2)
    row = int((m.costs > 0).argmax())
    other = mc.position(load(EXAMPLES[0].parent / "dark_realms_hero_move.json"))
    with pytest.raises(QueryError):
        other.apply_row(m, row)          # not this position's answer
    pos.add_figure("blocker", "enemy", pos.board.coord(int(m.actions[row])))
    with pytest.raises(IllegalMoveError):
        pos.apply_row(m, row)            # stale: the end is taken now
    pos.remove_figure("blocker")
    pos.apply_row(m, row)                # stale but legal again: validated, taken
    assert pos.board.find(pos.where(fid)) == int(m.actions[row])


def test_enemy_pick_matches_sorting():
    """The compiled choice of the enemy AI equals the lexsort it replaces, over random
    ends, reverse costs, traps and distances (ties included)."""
    rng = np.random.default_rng(7)
    for case in range(3000):
        n = int(rng.integers(2, 40))
        m = int(rng.integers(1, n + 1))
        cells = rng.permutation(n)[:m].astype(np.int32)
        t_now = rng.integers(0, 3, m).astype(np.int32)
        s_now = rng.integers(0, 5, m).astype(np.int32)
        trap = rng.random(n) < 0.3
        dist = rng.integers(0, 4, n).astype(np.int64)
        rank = rng.permutation(n).astype(np.int64)
        flying = bool(rng.random() < 0.3)
        w = n + 1
        if flying:
            rem = np.where(rng.random(n) < 0.6, rng.integers(0, n, n), -1)
            tr_all, sr_all = np.zeros(n, np.int64), rem
        else:
            steps = rng.integers(1, n, n)
            k = steps + w * (rng.integers(0, 3, n) + trap)
            rem = np.where(rng.random(n) < 0.6, k, -1)
            rem[int(rng.integers(n))] = -1
            tr_all = np.where(rem >= 0, rem // w - trap, -1)
            sr_all = np.where(rem >= 0, rem % w - 1, -1)
        rem = rem.astype(np.int64)
        tr, sr, to_t = tr_all[cells], sr_all[cells], dist[cells]
        planned = sr >= 0
        if planned.any():
            rows = np.flatnonzero(planned)
            tn, sn, trp, srp = t_now[rows], s_now[rows], tr[rows], sr[rows]
            far = np.where(srp == 0, -to_t[rows], 0)
            want = int(rows[np.lexsort((rank[cells][rows], tn, far, srp, sn + srp,
                                        tn + trp))[0]]), 1
        else:
            want = int(np.lexsort((rank[cells], s_now, t_now, to_t))[0]), 0
        got = dr.rules._pick()(cells, t_now, s_now, rem, flying, w, trap, dist, rank)
        assert (int(got[0]), int(got[1])) == want, case


def answers(pos):
    out = []
    for fid in pos.figures:
        out.append(pos.legal_moves(fid, move=3).to_dicts())
        out.append(pos.legal_moves(fid, teleport=2).to_dicts())
        if pos.side_of(fid) == "enemy":
            out.append(pos.legal_moves(fid, enemy=True, move=4).to_dicts())
    return out


def test_copy_is_independent():
    pos = mc.position(load(EXAMPLES[0]))
    before = answers(pos)
    cp = pos.copy()
    hero = next(f for f in cp.figures if cp.side_of(f) == "hero")
    m = cp.legal_moves(hero, move=3)
    cp.apply_move(hero, int(m.actions[-1]), move=3)
    cp.remove_figure(cp.figures[-1])
    cp.set_trap(int(m.actions[1]), True)
    cp.add_figure("imp", "summon", int(m.actions[2]), marked=True)
    cp.set_stamina_moved(hero)
    assert answers(pos) == before
    copied = answers(cp)
    pos.apply_move(hero, int(pos.legal_moves(hero, move=2).actions[-1]), move=2)
    pos.remove_figure(pos.figures[0])
    assert answers(cp) == copied
    for p in (pos, cp):  # each still agrees with solve()
        for fid in p.figures:
            check(p, fid, {"move": 3})


def test_errors_leave_position_unchanged():
    s = load(EXAMPLES[0])
    pos = mc.position(s)
    before = (answers(pos), pos.to_scenario(), pos.version)
    hero = next(f for f in pos.figures if pos.side_of(f) == "hero")
    enemy = next(f for f in pos.figures if pos.side_of(f) == "enemy")
    m = pos.legal_moves(hero, move=1)
    far = next(c for c in range(pos.board.n_cells) if c not in m.actions.tolist())
    with pytest.raises(IllegalMoveError):
        pos.apply_move(hero, far, move=1)
    with pytest.raises(IllegalMoveError):
        pos.apply_move(hero, pos.board.coord(far), move=1)
    with pytest.raises(QueryError):
        pos.apply_move("nobody", 0, move=1)
    with pytest.raises(QueryError):
        pos.legal_moves("nobody", move=1)
    with pytest.raises(QueryError):
        pos.remove_figure("nobody")
    with pytest.raises(QueryError):   # only heroes have Stamina
        pos.set_stamina_moved(enemy)
    with pytest.raises(QueryError):
        pos.set_marked(enemy)
    with pytest.raises(QueryError):
        pos.legal_moves(enemy, move=1, stamina=2)
    with pytest.raises(MovecoreError):   # a taken space
        pos.add_figure("imp", "summon", pos.where(hero))
    with pytest.raises(MovecoreError):   # an id in play
        pos.add_figure(hero, "summon", far)
    with pytest.raises(QueryError):
        pos.add_figure("imp", "dragon", far)
    pos.set_stamina_moved(hero)
    v = pos.version
    with pytest.raises(QueryError):      # the Stamina-only move is spent this round
        pos.apply_move(hero, pos.where(hero), stamina_only=True, stamina=1)
    with pytest.raises(QueryError):      # the AI moves enemies only
        pos.legal_moves(hero, enemy=True, move=3)
    assert pos.version == v
    pos.set_stamina_moved(hero, False)
    assert answers(pos) == before[0] and pos.to_scenario() == before[1]


def test_moves_columns_and_enemy_rows():
    pos = mc.position(load(EXAMPLES[0]))
    hero = next(f for f in pos.figures if pos.side_of(f) == "hero")
    m = pos.legal_moves(hero, roll=2, bonus=1, stamina=2)
    d = m.to_dicts()
    assert m.columns["stamina"].tolist() == [e["stamina"] for e in d]
    assert m.columns["traps_cost"].tolist() == [e["traps_cost"] for e in d]
    assert m.mask.shape == (pos.n_actions(hero),)
    enemy = next(f for f in pos.figures if pos.side_of(f) == "enemy")
    e = pos.legal_moves(enemy, enemy=True, move=4)
    res = pos.solve({"enemy": enemy, "move": 4})
    assert e.to_dicts() == res["moves"]
    assert e.columns["in_range"].tolist() == [int(r["in_range"]) for r in res["moves"]]
    pos.apply_move(enemy, int(e.actions[0]), enemy=True, move=4)
    assert list(pos.where(enemy)) == res["moves"][0]["at"]


@pytest.mark.parametrize("flying", [False, True])
@pytest.mark.parametrize("traps", [False, True])
def test_enemy_ai_without_route_matches_reference(flying, traps):
    # a corridor: the hero behind an obstacle wall (a flyer crosses it), traps on the way
    cells = [{"at": [x, 0], "obstacle": x == 5, "trap": traps and x in (2, 3)}
             for x in range(9)]
    s = {"game": "dark_realms", "board": {"grid": "square4", "cells": cells},
         "figures": [{"id": "orc", "side": "enemy", "at": [0, 0], "flying": flying},
                     {"id": "ayla", "side": "hero", "at": [8, 0]},
                     {"id": "bo", "side": "hero", "at": [7, 0], "speed": 2}],
         "query": {"enemy": "orc", "move": 3}}
    pos = mc.position(s)
    for move in range(0, 9):
        m = check(pos, "orc", {"enemy": True, "move": move})
        want = dr.rules._solve_scene(dr.read_scene(s), {"enemy": "orc", "move": move})
        assert m.to_dicts() == want["moves"]
    assert {r["reason"] for r in m.to_dicts()} == {"route" if flying else "no_route"}
