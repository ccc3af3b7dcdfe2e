"""The live Mage Knight position (movecore.games.mage_knight.Position): after every step of
seeded random games (moves, day/night, effects, conquests, defeated enemies, revealed
tiles, heroes removed and added), its answers equal solve() of the scenario rebuilt from
scratch and the longhand reference (mage_knight.solve_reference) exactly; copies are
independent; refused changes raise typed errors and change nothing."""
from __future__ import annotations

import doctest
import json
import random
import sys
from pathlib import Path

import numpy as np
import pytest

import movecore as mc
from movecore.games.mage_knight import position as mkp
from movecore.games import mage_knight as mk

EXAMPLES = sorted((Path(mk.__file__).resolve().parents[2] / "examples")
                  .glob("mage_knight_*.json"))
CATALOGUE = [f"countryside_{i}" for i in range(1, 12)] + [f"core_{i}" for i in range(1, 9)]


def _random_query(rng, fid=None):
    q = {"budget": rng.choice([0, 2, 3, 4, 5, 6, 7, 8, 9, 11, 14])}
    if rng.random() < 0.3:
        q["paths"] = True
    if rng.random() < 0.15:
        q = {"budget": rng.randint(0, 4), "mode": "direct"}
        if rng.random() < 0.4:
            q["end_safe"] = rng.random() < 0.5
        if rng.random() < 0.3:
            q["paths"] = True
    if fid is not None:
        q = {"figure": fid, **q}
    return q


def _moves_agree(pos, m, ends):
    """The arrays of ``m`` say what its dicts say."""
    assert len(m) == len(ends)
    assert m.costs.tolist() == [e["cost"] for e in ends]
    assert [list(c) for c in m.coords.tolist()] == [e["at"] for e in ends]
    want_stop = [1 if "assault" in e["flags"] else
                 2 if ("provoked" in e["flags"] and m.query.get("mode") != "direct") else 0
                 for e in ends]
    assert m.stop.tolist() == want_stop
    assert m.columns["safe"].tolist() == [int(e["safe"]) for e in ends]
    assert m.columns["pvp"].tolist() == [int("pvp" in e["flags"]) for e in ends]
    assert m.columns["provoked"].tolist() == [int("provoked" in e["flags"]) for e in ends]
    assert m.columns["free_cost"].tolist() == [e.get("free_cost", -1) for e in ends]
    # the mask: the ends a hero may stay on (an attack on another hero is no move)
    assert m.mask.shape == (pos.n_actions(m.figure),)
    assert sorted(np.flatnonzero(m.mask).tolist()) == \
        sorted(m.actions[m.columns["can_stay"] == 1].tolist())


def check(pos, fid, q, reference=True):
    """pos answers q for fid exactly as solve() of the rebuilt scenario (and the
    longhand reference)."""
    full = {"figure": fid, **q}
    scenario = pos.to_scenario(full)
    want = mc.solve(scenario)
    got = pos.solve(full)
    assert got == want, (fid, q)
    if reference:
        assert mk.solve_reference(scenario) == want, (fid, q)
    m = pos.legal_moves(fid, **q)
    ends = m.to_dicts()
    assert ends == want["ends"], (fid, q)
    _moves_agree(pos, m, ends)
    assert pos.explore(fid, **q) == want["explore"]


def _fortified(pos):
    return [c for c, s in enumerate(pos.map.spaces) if s.site in mk.FORTIFIED]


def _random_turn(extra):
    """Random turn effects of the movement rules (``set_effects`` keywords): terrains
    forbidden, no provoking, Space Bending, explore cost and distance."""
    if extra is None or extra.random() < 0.4:
        return {}
    out = {}
    if extra.random() < 0.4:
        out["forbid"] = extra.sample(list(mk.COST_CLASSES), extra.randint(1, 3))
    if extra.random() < 0.3:
        out["provoke"] = False
    if extra.random() < 0.35:
        out["bend"] = True
    if extra.random() < 0.5:
        out["explore"] = {"cost": extra.choice([None, 0, 1, 2]),
                          "distance": extra.choice([1, 2])}
    return out


def _random_step(pos, rng, log, extra=None):
    """One random change of the position; returns the hero that moved (or None).
    ``extra``: a second random stream for the turn effects of the movement rules (so
    that the main stream, and the games it played before them, stay as they were)."""
    x = rng.random()
    heroes = pos.figures
    if x < 0.62 and heroes:
        fid = rng.choice(heroes)
        q = _random_query(rng)
        m = pos.legal_moves(fid, **q)
        ok = np.flatnonzero(m.columns["can_stay"] == 1)
        to = int(m.actions[rng.choice(ok.tolist())])
        pos.apply_move(fid, to if rng.random() < 0.5 else pos.board.coord(to), **q)
        log.append(("move", fid, to))
        return fid
    if x < 0.68:
        pos.set_time(rng.choice(mk.TIMES))
    elif x < 0.73:
        reds = [{"terrains": rng.choice(["all", ["plains"], ["forest", "hills", "city"],
                                         ["swamp", "desert"]]),
                 "by": rng.randint(0, 3), "min": rng.randint(0, 3)}
                for _ in range(rng.choice([0, 1, 2]))]
        enter = [{"terrains": ["lake"], "cost": rng.randint(1, 4)}] \
            if rng.random() < 0.3 else []
        pos.set_effects(reds, enter, **_random_turn(extra))
    elif x < 0.76:
        pos.set_pvp(rng.random() < 0.6)
    elif x < 0.82:
        forts = _fortified(pos)
        if forts:
            c = rng.choice(forts)
            by = rng.choice(heroes + [None]) if heroes else None
            try:
                pos.conquer(pos.board.coord(c), by=by)
                log.append(("conquer", c, by))
            except mc.PlacementError:
                pass
    elif x < 0.87:
        tokens = [c for c, s in enumerate(pos.map.spaces) if s.rampaging]
        if tokens:
            c = rng.choice(tokens)
            pos.defeat_enemy(c)
            log.append(("defeat", c))
    elif x < 0.90:   # reveal a tile next to a hero and move on (query.reveal)
        cands = [(h, p) for h in heroes for p in pos.map.open
                 if pos.board.find(pos.where(h)) in pos.map.cells_next_to(p)]
        if cands:
            fid, p = rng.choice(cands)
            q = {"budget": rng.randint(0, 6), "paths": rng.random() < 0.3,
                 "reveal": [{"position": list(p), "tile": rng.choice(CATALOGUE)}]}
            try:
                full = {"figure": fid, **q}
                want = mc.solve(pos.to_scenario(full))
            except mc.PlacementError:
                return None
            assert pos.solve(full) == want
            m = pos.legal_moves(fid, **q)
            assert m.to_dicts() == want["ends"]
            n = pos.board.n_cells
            ok = np.flatnonzero(m.columns["can_stay"] == 1)
            pos.apply_move(fid, int(m.actions[rng.choice(ok.tolist())]), **q)
            assert pos.board.n_cells > n and tuple(p) not in pos.map.open
            log.append(("reveal_move", fid, p))
            return fid
    elif x < 0.93:
        if pos.map.open:
            p = rng.choice(pos.map.open)
            used = {tuple(pos.board.coord(c)) for c in range(pos.board.n_cells)}
            name = rng.choice(CATALOGUE)
            cells = {tuple(c) for c in mk.tile_cells(p)}
            if not cells & used:
                try:
                    pos.reveal_tile(p, name)
                    log.append(("reveal", p, name))
                except mc.PlacementError:
                    pass
    elif x < 0.97 and len(heroes) > 1:
        fid = rng.choice(heroes)
        pos.remove_figure(fid)
        log.append(("remove", fid))
    else:
        free = [c for c in range(pos.board.n_cells)
                if pos.map.spaces[c].accessible() and pos.team_at[c] < 0]
        fid = f"h{len(log)}"
        team = rng.choice([None, "blue"])
        pos.add_figure(fid, rng.choice(free), team=team)
        log.append(("add", fid))
        return fid
    return None


def _play(pos, seed, steps, reference_every=1):
    rng = random.Random(seed)
    extra = random.Random(seed + 7919)
    log = []
    for step in range(steps):
        moved = _random_step(pos, rng, log, extra)
        heroes = pos.figures
        if not heroes:
            break
        fid = moved if moved in heroes else rng.choice(heroes)
        check(pos, fid, _random_query(rng), reference=step % reference_every == 0)
        other = rng.choice(heroes)
        q = _random_query(rng)
        m = pos.legal_moves(other, **q)
        assert m.to_dicts() == mc.solve(pos.to_scenario({"figure": other, **q}))["ends"]
    return log


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
@pytest.mark.parametrize("seed", range(3))
def test_random_games_from_bundled_examples(path, seed):
    sc = json.loads(path.read_text())
    sc["query"].pop("reveal", None)   # the position of the board as given
    pos = mc.position(sc)
    log = _play(pos, seed, 250, reference_every=2)
    kinds = {k[0] for k in log}
    assert "move" in kinds


def _random_map_scenario(seed):
    rng = random.Random(seed)
    radius = 3
    coords = [(q, r) for q in range(-radius, radius + 1) for r in range(-radius, radius + 1)
              if abs(q + r) <= radius and rng.random() < 0.92]
    if (0, 0) not in coords:
        coords.append((0, 0))
    rng.shuffle(coords)
    cells = []
    for at in coords:
        c = {"at": list(at), "terrain": rng.choice(mk.TERRAINS[:6] * 3 + mk.TERRAINS[6:])}
        x = rng.random()
        if x < 0.06:
            c["site"] = "city"
            c["conquered"] = rng.random() < 0.3
        elif x < 0.16:
            c["site"] = "keep"
            owner = rng.choice([None, "h", "g"])
            if owner:
                c["owner"] = owner
        elif x < 0.20:
            c["site"] = "mage_tower"
        elif x < 0.26:
            c["site"] = rng.choice(["dungeon", "village", "portal", "ruins"])
        if at != (0, 0) and rng.random() < 0.12:
            c["rampaging"] = rng.choice(mk.RAMPAGING)
        cells.append(c)
    start = next(c for c in cells if tuple(c["at"]) == (0, 0))
    start.update(terrain="plains")
    for k in ("site", "conquered", "owner", "rampaging"):
        start.pop(k, None)
    figs = [{"id": "h", "at": [0, 0]}]
    for c in rng.sample(cells, 4):
        if tuple(c["at"]) != (0, 0) and "rampaging" not in c and \
                c["terrain"] not in mk.INACCESSIBLE and c.get("site") is None and \
                all(f["at"] != c["at"] for f in figs):
            figs.append({"id": "g" if len(figs) == 1 else f"o{len(figs)}", "at": c["at"],
                         **({"team": "h"} if rng.random() < 0.2 else {})})
    opts = {"time": rng.choice(mk.TIMES), "pvp": rng.random() < 0.7}
    if random.Random(seed + 5000).random() < 0.4:   # (its own stream: the maps stay)
        opts["cities"] = "closed"
    return {"game": "mage_knight", "board": {"cells": cells}, "options": opts,
            "figures": figs, "query": {"figure": "h", "budget": 6}}


@pytest.mark.parametrize("seed", range(6))
def test_random_games_on_random_maps(seed):
    pos = mc.position(_random_map_scenario(seed))
    _play(pos, 100 + seed, 120, reference_every=2)


@pytest.mark.parametrize("seed", range(4))
def test_random_games_under_movement_rule_effects(seed):
    """Games that start under Space Bending, no provoking, forbidden terrains and
    changed exploring (and change them again as they go)."""
    pos = mc.position(_random_map_scenario(20 + seed))
    turn = [{"bend": True}, {"provoke": False, "forbid": ["plains", "city"]},
            {"forbid": ["hills"], "explore": {"cost": 1, "distance": 2}},
            {"bend": True, "forbid": ["forest"], "explore": {"cost": None}}][seed]
    pos.set_effects(**turn)
    _play(pos, 300 + seed, 80)


@pytest.mark.parametrize("shape, seed", [("wedge", 0), ("wedge", 1), ("open_5", 2),
                                         ("open_4", 3), ("open_3", 4)])
def test_random_games_on_shaped_maps(shape, seed):
    """Tiles revealed on wedge and open maps: the open positions follow the shape (and
    core tiles stay off a wedge's coast) in the position as in solve()."""
    start = "A" if shape == "wedge" else "B"
    first = [(3, -2), (1, -3)] + ([] if shape == "wedge" else [(-2, -1)])
    tiles = [{"position": [0, 0], "tile": start}] + \
        [{"position": list(p), "tile": f"countryside_{i + 1}"} for i, p in enumerate(first)]
    sc = {"game": "mage_knight", "board": {"tiles": tiles, "shape": shape},
          "figures": [{"id": "a", "at": [0, 0]}, {"id": "b", "at": [1, 0]}],
          "query": {"figure": "a", "budget": 8}}
    pos = mc.position(sc)
    n = pos.board.n_cells
    log = _play(pos, 500 + seed, 200, reference_every=2)
    assert "shape" in pos.to_scenario()["board"]
    assert pos.board.n_cells > n and any(k[0].startswith("reveal") for k in log)
    for c in range(n, pos.board.n_cells, 7):
        assert mk.in_shape(mk.tile_of(pos.board.coord(c)), shape)
    for k in log:
        if k[0] == "reveal" and k[2].startswith("core"):
            assert not mk.on_coast(k[1], shape)
    placed = {mk.tile_of(xy) for xy in pos.board.coords.tolist()}
    assert set(pos.map.open) == {p for p in mk.read_map(
        pos.to_scenario()["board"]).open} and not set(pos.map.open) & placed


def _with_random_walls(sc, seed, share=0.3):
    """``sc`` with walls on a random ``share`` of the sides between its spaces."""
    rng = random.Random(seed + 70001)
    at = {tuple(c["at"]) for c in sc["board"]["cells"]}
    sides = sorted({mk.wall_key(a, (a[0] + d[0], a[1] + d[1]))
                    for a in at for d in mk.SIDES.values()
                    if (a[0] + d[0], a[1] + d[1]) in at})
    sc["board"]["walls"] = [[list(a), list(b)] for a, b in sides if rng.random() < share]
    return sc


LOST_LEGION = ["countryside_12", "countryside_13", "countryside_14", "core_9"]


@pytest.mark.parametrize("seed", range(4))
def test_random_games_on_walled_maps(seed, monkeypatch):
    """Walls (+1 a side, no provoking into a space walled off from the enemy) on random
    maps, under random effects, with enemies defeated as the game goes: the position
    answers as solve() and the longhand reference."""
    sc = _with_random_walls(_random_map_scenario(40 + seed), seed)
    assert len(sc["board"]["walls"]) > 10
    pos = mc.position(sc)
    assert pos.to_scenario()["board"]["walls"] == sorted(sc["board"]["walls"])
    if seed % 2:
        pos.set_effects([{"terrains": "all", "by": 3, "min": 0}])
    log = _play(pos, 700 + seed, 120)
    assert any(k[0] == "defeat" for k in log) or seed


@pytest.mark.parametrize("seed", range(3))
def test_random_games_revealing_lost_legion_tiles(seed, monkeypatch):
    """Lost Legion tiles placed and revealed on a wedge map: their walls (one of them
    waiting on a tile's edge for the next tile) in the position as in solve()."""
    monkeypatch.setattr(sys.modules[__name__], "CATALOGUE", CATALOGUE + LOST_LEGION * 4)
    tiles = [{"position": [0, 0], "tile": "A"},
             {"position": [3, -2], "tile": "countryside_12"},
             {"position": [1, -3], "tile": "countryside_13"}]
    sc = {"game": "mage_knight", "board": {"tiles": tiles, "shape": "wedge"},
          "figures": [{"id": "a", "at": [0, 0]}, {"id": "b", "at": [1, 0]}],
          "query": {"figure": "a", "budget": 8}}
    pos = mc.position(sc)
    walls = len(pos.map.walls)
    log = _play(pos, 900 + seed, 200, reference_every=2)
    assert any(k[0].startswith("reveal") for k in log)
    assert len(pos.map.walls) >= walls == 7


def test_random_maps_cover_closed_cities():
    closed = [s for s in range(6) if _random_map_scenario(s)["options"].get("cities")]
    assert closed and len(closed) < 6


def test_reveal_then_continue_example_through_the_position():
    path = next(p for p in EXAMPLES if "reveal" in p.stem)
    sc = json.loads(path.read_text())
    pos = mc.position(sc)
    q = {k: v for k, v in sc["query"].items() if k != "figure"}
    want = mc.solve(sc)
    assert pos.solve(sc["query"]) == want == mk.solve_reference(sc)
    n = pos.board.n_cells
    m = pos.legal_moves("tovak", **q)      # answered on a copy with the tile
    assert m.to_dicts() == want["ends"] and pos.board.n_cells == n
    to = next(e["at"] for e in want["ends"] if not e["flags"])
    pos.apply_move("tovak", to, **q)        # reveals the tile, then moves
    assert pos.board.n_cells == n + 7 and pos.where("tovak") == tuple(to)
    assert [-2, -1] not in [list(p) for p in pos.map.open]
    check(pos, "tovak", {"budget": 5, "paths": True})


def _answers(pos):
    out = []
    for f in pos.figures:
        for q in ({"budget": 7, "paths": True}, {"budget": 3, "mode": "direct"}):
            out.append(pos.solve({"figure": f, **q}))
    return out


def test_copy_is_independent():
    sc = json.loads(EXAMPLES[0].read_text())
    pos = mc.position(sc)
    pos.legal_moves("tovak", budget=9)     # prepared queries exist before the copy
    before = _answers(pos)
    cp = pos.copy()
    cp.apply_move("tovak", (1, -1), budget=9)
    cp.defeat_enemy((3, -3))
    cp.conquer((2, -4), by="tovak")
    cp.set_time("night")
    cp.reveal_tile((4, -5), "countryside_5")
    cp.remove_figure("arythea")
    assert _answers(pos) == before
    assert cp.board.n_cells == pos.board.n_cells + 7
    check(cp, "tovak", {"budget": 9, "paths": True})
    # and the other way round
    cp2 = pos.copy()
    after_cp2 = _answers(cp2)
    pos.defeat_enemy((3, -3))
    pos.apply_move("arythea", (1, -1), budget=9)
    assert _answers(cp2) == after_cp2 == before
    check(pos, "tovak", {"budget": 9, "paths": True})


def _refused(pos, change, error):
    before = _answers(pos)
    version = pos.version
    scenario = pos.to_scenario()
    with pytest.raises(error):
        change(pos)
    assert _answers(pos) == before and pos.to_scenario() == scenario
    assert pos.version == version


def test_refused_changes_leave_the_position_unchanged():
    sc = json.loads(EXAMPLES[0].read_text())
    pos = mc.position(sc)
    # a space that is no legal end (too far / a lake), one held by another hero
    _refused(pos, lambda p: p.apply_move("tovak", (1, -1), budget=2), mc.IllegalMoveError)
    _refused(pos, lambda p: p.apply_move("tovak", (2, -1), budget=9), mc.IllegalMoveError)
    _refused(pos, lambda p: p.apply_move("tovak", (99, 0), budget=9), mc.QueryError)
    _refused(pos, lambda p: p.apply_move("zz", (0, 0), budget=9), mc.QueryError)
    _refused(pos, lambda p: p.legal_moves("zz", budget=9), mc.QueryError)
    _refused(pos, lambda p: p.legal_moves("tovak", budget=9, colour="red"), mc.QueryError)
    _refused(pos, lambda p: p.remove_figure("zz"), mc.QueryError)
    # state changes the game does not allow
    _refused(pos, lambda p: p.set_time("dusk"), mc.QueryError)
    _refused(pos, lambda p: p.set_effects([{"terrains": ["lava"], "by": 1}]),
             mc.ScenarioError)
    _refused(pos, lambda p: p.set_pvp("yes"), mc.QueryError)
    _refused(pos, lambda p: p.conquer((0, 0)), mc.PlacementError)          # a portal
    _refused(pos, lambda p: p.conquer((2, -4), by="arythea"), mc.PlacementError)  # owned
    _refused(pos, lambda p: p.defeat_enemy((0, 0)), mc.PlacementError)
    _refused(pos, lambda p: p.reveal_tile((3, -2), "core_1"), mc.PlacementError)  # taken
    _refused(pos, lambda p: p.reveal_tile((6, -4), "core_1"), mc.PlacementError)  # core
    _refused(pos, lambda p: p.reveal_tile((4, -5), "countryside_1", by="tovak"),
             mc.PlacementError)                                          # not next to it
    _refused(pos, lambda p: p.reveal_tile((4, -5), "nowhere_9"), mc.BoardError)
    _refused(pos, lambda p: p.add_figure("tovak", (1, 0)), mc.PlacementError)   # in play
    _refused(pos, lambda p: p.add_figure("x", (2, -1)), mc.PlacementError)      # taken
    _refused(pos, lambda p: p.add_figure("x", (3, -3)), mc.PlacementError)      # orcs
    _refused(pos, lambda p: p.apply_move("tovak", (-1, 0), budget=6,
                                         reveal=[{"position": [4, -5],
                                                  "tile": "countryside_1"}]),
             mc.PlacementError)
    # a move whose moves were listed before a change is checked against the new position
    m = pos.legal_moves("tovak", budget=9)
    pos.defeat_enemy((3, -3))
    assert m.stale
    with pytest.raises(mc.QueryError):
        m.to_dicts()
    check(pos, "tovak", {"budget": 9})


def test_moves_arrays_and_columns():
    sc = json.loads(EXAMPLES[0].read_text())
    pos = mc.position(sc)
    m = pos.legal_moves("tovak", budget=9)
    assert m.actions.dtype == np.int32 and m.costs.dtype == np.int32
    assert set(m.columns) == {"safe", "pvp", "occupied", "can_stay", "provoked",
                               "free_cost"}
    assert pos.STOP_REASONS == (None, "assault", "provoked")
    assert pos.side_of("tovak") == "tovak" and pos.sides == ["tovak", "arythea"]
    assert pos.legal_moves_side("arythea")["arythea"].to_dicts() == \
        pos.legal_moves("arythea", budget=9).to_dicts()
    assert pos.touching("tovak") == [] and pos.team_figures("tovak") == ["tovak"]
    row = m.row((2, -1))                       # arythea's space: an attack
    assert m.columns["pvp"][row] == 1 and m.columns["occupied"][row] == 1
    pos.set_pvp(False)
    m = pos.legal_moves("tovak", budget=9)
    assert m.columns["pvp"][row] == 0 and m.columns["occupied"][row] == 1
    assert m.columns["safe"][row] == 0
    pos.apply_move("tovak", (1, 0), budget=9)
    assert pos.touching("tovak") == ["arythea"] and pos.touching("arythea") == ["tovak"]


def test_docstring_examples():
    failed, tried = doctest.testmod(mkp, optionflags=doctest.ELLIPSIS)
    assert failed == 0 and tried > 10
