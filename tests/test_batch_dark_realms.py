"""Dark Realms on the batched arrays backend (issue 29.6) against single live positions.

The layout (``movecore.games.dark_realms._batch``) holds a game as its figures' spaces and
occupancy: a card move (``move``, ``roll`` [+ ``bonus``] [+ ``stamina``]) is the kernel's
query of the figure's kind (team, flying) with the budget of that game's own roll; every
other query (the enemy AI, ``die``, ``teleport``, ``paths``) is answered by a live
position made from the game's arrays. After every step of seeded random play, on the
bundled examples and on random boards (hex, square4, square8; obstacles, traps, rifts,
flyers, summons, passing allies or not, dice, trap detour limits), every game's mask,
costs and stops equal a single position's, every game's figures stand where the single
position's do, and a position made from a game's arrays answers as the single one.
Turning any rule of the layout off makes the differential fail."""
from __future__ import annotations

import random

import numpy as np
import pytest

import movecore as mc
from movecore.batch import BatchedGames
from movecore.games.dark_realms import _batch as drb
from movecore.tools.selfplay import example_scenarios
from movecore.tools.selfplay_batch import BatchedPlay
from test_batch import _States, _dense, _run_differential
from test_dark_realms import random_board, random_figures
from test_position_dark_realms import random_query

_DICE = ("d6", "d8", "d12")


def _boards(seeds):
    """Random Dark Realms scenarios with a hero and an enemy at least."""
    out = []
    for seed in seeds:
        rng = random.Random(seed)
        while True:
            board = random_board(rng, size=rng.randint(3, 8))
            figs = random_figures(rng, board, n_enemies=(1, 3), n_players=(1, 4))
            sides = {f["side"] for f in figs}
            if {"hero", "enemy"} <= sides:
                break
        opts = {"pass_allies": rng.random() < 0.4, "die": rng.choice(_DICE)}
        if rng.random() < 0.3:
            opts["trap_detour_limit"] = rng.choice([0, 1, 2])
        out.append((f"random_{seed}", {"game": "dark_realms", "board": board,
                                       "figures": figs, "options": opts, "query": {}}))
    return out


def _ai_boards(seeds):
    """:func:`_boards` whose options are the compiled enemy AI's (allies not passed,
    traps walked around by any detour) on 4 boards in 5."""
    out = []
    for i, (name, sc) in enumerate(_boards(seeds)):
        if i % 5:
            opts = {k: v for k, v in sc["options"].items() if k != "trap_detour_limit"}
            sc = {**sc, "options": {**opts, "pass_allies": False}}
        out.append((name, sc))
    return out


def _closest_by_steps():
    """A board where the hero nearer in grid distance is farther in steps (a wall of
    obstacles with a gap at the far end): the enemy targets the other one."""
    cells = [{"at": [x, y], **({"obstacle": True} if x == 2 and y < 4 else {})}
             for x in range(7) for y in range(5)]
    figs = [{"id": "orc", "side": "enemy", "at": [0, 0]},
            {"id": "near", "side": "hero", "at": [3, 0]},
            {"id": "far", "side": "hero", "at": [0, 4]}]
    return ("closest_by_steps", {"game": "dark_realms", "board": {"grid": "square4",
                                                                  "cells": cells},
                                 "figures": figs, "options": {}, "query": {}})


def _dense_penalty(pos, fid, query, P):
    """int32[P]: each end's penalty (Dark Realms: traps), 0 elsewhere."""
    m = pos.legal_moves(fid, **query)
    pen = np.zeros(P, np.int32)
    moves = m.mask[m.actions]
    pen[m.actions[moves]] = m.penalty[moves]
    return pen


def _enemy_or_random_query(pos, fid, rng) -> dict:
    """An enemy's enemy AI move (attack range 1: the compiled path's), else a random
    query."""
    if pos.side_of(fid) == "enemy" and rng.random() < 0.9:
        return {"enemy": True, "move": rng.randint(1, 6), "attack_range": 1}
    return random_query(pos, fid, rng)


def _queries_differential(scenarios, steps, B, seed, query=random_query, counts=None):
    """Random per-game queries of every kind (card moves batched, the enemy AI compiled
    over the batch where it applies, the rest on restored positions; ``query(pos, fid,
    rng)`` draws them), random legal moves applied with ``apply(queries=)``, random
    removals and resets; after every step the batch equals single positions. Returns
    (moves applied, card moves answered by the kernels, of which with a trap counted on
    an end: the batched penalty kernel's); ``counts`` (a dict) receives the enemy AI
    queries answered by the compiled path (``compiled``) and on a restored position
    (``restored``)."""
    rng = random.Random(seed)
    moved = batched = trapped = 0
    counts = {} if counts is None else counts
    counts.update(compiled=0, restored=0)
    for name, sc in scenarios:
        root = mc.position(sc)
        G = BatchedGames(root, B)
        assert G.backend == "arrays", name
        ai = G._compiled
        singles = [root.copy() for _ in range(B)]
        state = _States(G, singles)
        for step in range(steps):
            figs = np.full(B, -1, np.int64)
            qs = [None] * B
            for b in range(B):
                alive = np.flatnonzero(G.alive[b])
                if len(alive) and rng.random() < 0.9:
                    f = int(rng.choice(alive.tolist()))
                    q = query(singles[b], G.ids[f], rng)
                    if q.get("stamina_only"):
                        q = {"move": 2}
                    figs[b], qs[b] = f, q
            pen = np.full((B, G.n_places), 7, np.int32)
            before = ai.answered if ai is not None else 0
            mask, cost, stop = G.legal_moves(figs, queries=qs, penalty=pen)
            n_ai = sum(1 for q in qs if q is not None and q.get("enemy") is True)
            got = (ai.answered if ai is not None else 0) - before
            counts["compiled"] += got
            counts["restored"] += n_ai - got
            to = np.full(B, -1, np.int64)
            for b in np.flatnonzero(figs >= 0).tolist():
                fid = G.ids[int(figs[b])]
                want = _dense(singles[b], fid, qs[b], G.n_places)
                assert np.array_equal(mask[b], want[0]), (name, b, fid, qs[b])
                assert np.array_equal(cost[b], want[1]), (name, b, fid, qs[b])
                assert np.array_equal(stop[b], want[2]), (name, b, fid, qs[b])
                assert np.array_equal(pen[b], _dense_penalty(singles[b], fid, qs[b],
                                                             G.n_places)), (name, b, fid)
                if G._query_budget(int(figs[b]), qs[b]) >= 0:
                    batched += 1
                    trapped += bool(pen[b].any())
                ends = np.flatnonzero(mask[b])
                if len(ends):
                    to[b] = int(rng.choice(ends.tolist()))
            figs = np.where(to >= 0, figs, -1)
            G.apply(figs, to, queries=qs)
            for b in np.flatnonzero(figs >= 0).tolist():
                singles[b].apply_move(G.ids[int(figs[b])], int(to[b]), **qs[b])
                state.read(b, singles[b], [int(figs[b])])
                moved += 1
            for b in range(B):
                alive = np.flatnonzero(G.alive[b])
                r = rng.random()
                if r < 0.1 and len(alive) > 1:
                    f = int(rng.choice(alive.tolist()))
                    G.remove([b], [f])
                    singles[b].remove_figure(G.ids[f])
                    state.read(b, singles[b], [f])
                elif r < 0.13:
                    G.reset([b])
                    singles[b] = root.copy()
                    state.read(b, singles[b])
            if step % _States.EVERY == _States.EVERY - 1 or step == steps - 1:
                state.read_all(singles)
            state.check(G)
            # a position made from a game's arrays answers as the single one
            b = rng.randrange(B)
            alive = np.flatnonzero(G.alive[b])
            if len(alive):
                fid = G.ids[int(rng.choice(alive.tolist()))]
                q = query(singles[b], fid, rng)
                if not q.get("stamina_only"):
                    got = _dense(G.position(b), fid, q, G.n_places)
                    want = _dense(singles[b], fid, q, G.n_places)
                    assert all(np.array_equal(x, y) for x, y in zip(got, want)), (name, q)
    return moved, batched, trapped


def test_bundled_examples_run_on_arrays():
    for name, scenario in example_scenarios("dark_realms"):
        play = BatchedPlay("dark_realms", scenario, 4, seed=0)
        assert play.games.backend == "arrays" and play.games.why is None, name
        assert play.fused, name   # (the compiled step: _selfplay_dark_realms)


def test_random_boards_exercise_every_rule():
    """The random boards hold what the layout's rules are for: traps a walker crosses,
    flyers (a shape of their own, obstacles flown over), rifts, obstacles, summons,
    allies passed and not, dice other than a d6."""
    seen = set()
    for name, sc in _boards(range(24)):
        G = BatchedGames(mc.position(sc), 1)
        assert G.backend == "arrays", name
        cells = sc["board"]["cells"]
        figs = sc["figures"]
        seen |= {k for k in ("trap", "rift", "obstacle") if any(c.get(k) for c in cells)}
        seen |= {"flying"} if any(f.get("flying") for f in figs) else set()
        seen |= {"summon"} if any(f["side"] == "summon" for f in figs) else set()
        seen.add(("pass_allies", sc["options"]["pass_allies"]))
        seen.add(sc["options"]["die"])
        if len(G._layout.shapes) > 2:
            seen.add("shapes")
    assert seen >= {"trap", "rift", "obstacle", "flying", "summon", ("pass_allies", True),
                    ("pass_allies", False), "d8", "d12", "shapes"}


@pytest.mark.parametrize("policy", ["random", "greedy"])
def test_random_boards_selfplay_equals_single_positions(policy):
    assert _run_differential("dark_realms", steps=30, B=12, seed=5, policy=policy,
                             scenarios=_boards(range(12))) > 1500


def test_random_queries_equal_single_positions():
    counts = {}
    moved, batched, trapped = _queries_differential(
        _boards(range(8)) + example_scenarios("dark_realms")[:2], steps=25, B=8, seed=1,
        counts=counts)
    assert moved > 1000 and batched > 500 and trapped > 200
    # the enemy AI: compiled (attack range 1) and on restored positions (ranges 2, 3;
    # allies passed, a trap detour limit)
    assert counts["compiled"] > 100 and counts["restored"] > 50, counts


def test_enemy_ai_queries_equal_single_positions():
    """Mostly the enemy AI's moves (attack range 1: the compiled path), on boards with
    every rule it reads: marked characters, summons, speeds, flyers, traps."""
    counts = {}
    moved, _, _ = _queries_differential(_ai_boards(range(20, 36)) + [_closest_by_steps()],
                                        steps=20, B=8, seed=2,
                                        query=_enemy_or_random_query, counts=counts)
    assert moved > 1500 and counts["compiled"] > 800 and counts["restored"] > 50, counts


@pytest.mark.slow
def test_random_boards_many_moves():
    # (ten thousand moves of Dark Realms: test_batch.py's bundled boards)
    assert _run_differential("dark_realms", steps=100, B=16, seed=13,
                             scenarios=_boards(range(100, 112))) >= 3_000


def test_a_hero_roll_is_its_games_budget():
    """Two games, two rolls: each game's hero gets its own die's reach; an enemy's
    query in a third game runs the enemy AI (one end: toward the hero)."""
    sc = {"game": "dark_realms", "board": {"cells": [{"at": [q, 0]} for q in range(8)]},
          "figures": [{"id": "h", "side": "hero", "at": [0, 0]},
                      {"id": "e", "side": "enemy", "at": [7, 0]}], "query": {}}
    G = BatchedGames(mc.position(sc), 3)
    mask, cost, _ = G.legal_moves(np.array([0, 0, 1]), queries=[
        {"roll": 2}, {"roll": 5}, {"enemy": True, "move": 3, "attack_range": 1}])
    assert np.flatnonzero(mask[0]).tolist() == [0, 1, 2]
    assert np.flatnonzero(mask[1]).tolist() == [0, 1, 2, 3, 4, 5]
    assert np.flatnonzero(mask[2]).tolist() == [4] and cost[2, 4] == 3
    # a card beyond the shape's budget is answered on a position
    assert G._query_budget(0, {"move": 100}) == -1
    mask, cost, _ = G.legal_moves(np.array([0, -1, -1]), queries=[{"move": 100}, None, None])
    assert np.flatnonzero(mask[0]).tolist() == list(range(7)) and cost[0, 6] == 6
    with pytest.raises(mc.IllegalMoveError, match="game 0"):
        G.apply(np.array([0, -1, -1]), np.array([3, -1, -1]), queries=[{"roll": 2}] * 3)
    assert G.cell[:, 0].tolist() == [0, 0, 0]


def test_a_stamina_only_move_is_refused():
    """It marks the hero too, which the arrays do not hold: a typed error, and a
    batch whose every figure asks it stays on positions."""
    name, sc = example_scenarios("dark_realms")[0]
    pos = mc.position(sc)
    G = BatchedGames(pos, 2)
    hero = next(i for i, f in enumerate(G.ids) if pos.side_of(f) == "hero")
    with pytest.raises(mc.QueryError, match="Stamina-only"):
        G.legal_moves(np.array([hero, -1]), queries=[{"stamina_only": True,
                                                      "stamina": 1}, None])
    G = BatchedGames(pos, 2, query={"stamina_only": True, "stamina": 1})
    assert G.backend == "positions" and "Stamina-only" in G.why


# ---------------------------------------------------------------- each rule, turned off
def _off_budget(pos, query):            # every card move asked with the slot's budget
    L, why = _ORIG(pos, query)
    qb = L.query_budget
    L.query_budget = lambda s, q: min(qb(s, q), 3) if qb(s, q) >= 0 else -1
    return L, why


def _off_shapes(pos, query):            # one shape for every kind (flyers as walkers)
    L, why = _ORIG(pos, query)
    L.shape_of = np.zeros_like(L.shape_of)
    return L, why


def _off_teams(pos, query):             # every figure an ally of every other
    L, why = _ORIG(pos, query)
    L.occ = np.where(L.occ >= 0, 0, L.occ).astype(np.int32)
    L.team = np.zeros_like(L.team)
    return L, why


def _off_fallback(pos, query):          # the enemy AI answered as a card move
    L, why = _ORIG(pos, query)
    qb = L.query_budget

    def budget(s, q):
        if q.get("enemy") is True:
            return q["move"]
        return qb(s, q)
    L.query_budget = budget
    return L, why


def _off_penalty(pos, query):           # no penalty shapes: no trap counted
    L, why = _ORIG(pos, query)
    L.penalty = None
    return L, why


def _off_restore(pos, query):           # a restored position forgets the moves
    L, why = _ORIG(pos, query)
    restore, start = L.restore, L.cell.copy()
    L.restore = lambda p, occ, cell, alive: restore(p, occ, start, alive)
    return L, why


_ORIG = drb.batch_layout


@pytest.mark.parametrize("off", [_off_budget, _off_shapes, _off_teams, _off_fallback,
                                 _off_restore, _off_penalty], ids=lambda f: f.__name__)
def test_turning_a_rule_off_fails(monkeypatch, off):
    monkeypatch.setattr(drb, "batch_layout", off)
    with pytest.raises(AssertionError, match=r"^\('random_\d+', \d+, '"):
        _queries_differential(_boards(range(8)), steps=25, B=8, seed=1)


@pytest.mark.parametrize("policy", ["random", "greedy"])
def test_two_threads_play_as_one(policy):
    """The kernel's chunks on two threads, the enemy AI's positions after them: the
    same games as one thread for the same seed."""
    for name, scenario in example_scenarios("dark_realms") + _boards(range(3)):
        a = BatchedPlay("dark_realms", scenario, 16, seed=3, policy=policy, threads=2)
        b = BatchedPlay("dark_realms", scenario, 16, seed=3, policy=policy)
        assert a.games.threads == 2 and len(a.games._bufs) == 2
        for _ in range(40):
            a.step()
            b.step()
            assert np.array_equal(a.games.cell, b.games.cell), name
            assert np.array_equal(a.games.alive, b.games.alive), name
        assert a.counts == b.counts, name
        ai = a.games._compiled                        # (the enemy AI on 2 threads too)
        assert ai is None or ai._per_thread or name.startswith("random"), name


def test_penalties_on_both_backends():
    """``legal_moves(penalty=)``: each end's trap count, the same on the positions
    backend and on arrays (the batched penalty kernel), 0 for flyers and for a game
    that asks nothing; a bad out array is a typed error."""
    rng = random.Random(4)
    counted = 0
    for name, sc in _boards(range(6)) + example_scenarios("dark_realms"):
        root = mc.position(sc)
        A = BatchedGames(root, 6)
        P = BatchedGames(root, 6, backend="positions")
        figs = np.array([rng.randrange(A.F) for _ in range(6)], np.int64)
        figs[5] = -1
        qs = [{"roll": rng.randint(1, 6), "bonus": 1} for _ in range(5)] + [None]
        pa = np.full((6, A.n_places), 9, np.int32)
        pp = np.full((6, A.n_places), 9, np.int32)
        got = A.legal_moves(figs, queries=qs, penalty=pa)
        want = P.legal_moves(figs, queries=qs, penalty=pp)
        assert all(np.array_equal(x, y) for x, y in zip(got, want)), name
        assert np.array_equal(pa, pp) and not pa[5].any(), name
        counted += int((pa > 0).sum())
        for b in range(5):
            assert np.array_equal(pa[b], _dense_penalty(root, A.ids[int(figs[b])], qs[b],
                                                        A.n_places)), name
    assert counted > 10
    with pytest.raises(mc.QueryError, match="penalty must be int32"):
        A.legal_moves(figs, queries=qs, penalty=np.zeros((6, A.n_places), np.int64))


def test_a_penalty_shape_must_take_its_shapes_budgets(monkeypatch):
    """A penalty shape prepared for a smaller budget than its shape's is refused (it
    could not answer every move its shape answers)."""
    name, sc = example_scenarios("dark_realms")[0]
    pos = mc.position(sc)

    def small(p, query):
        L, why = _ORIG(p, query)
        i = next(i for i, q in enumerate(L.penalty) if q is not None)
        L.penalty[i] = mc.prepare(p.board, mc.Mover(), 1, occupant=p.occ,
                                  enter_penalty=p._trap_pen, max_penalty=2)
        return L, why
    monkeypatch.setattr(drb, "batch_layout", small)
    with pytest.raises(mc.QueryError, match="every budget its shape takes"):
        BatchedGames(pos, 2)


# ---------------------------------------------------------------- the enemy AI, compiled
def test_selfplay_enemy_moves_are_compiled():
    """Batched self-play answers its enemies' moves (the enemy AI, attack range 1) on
    the compiled path over the batch: no game's live position is ever made."""
    for name, scenario in example_scenarios("dark_realms"):
        play = BatchedPlay("dark_realms", scenario, 16, seed=0)
        G = play.games
        assert G._compiled is not None, name
        for _ in range(40):
            play.step()
        assert G._compiled.answered > 100 and not G._live, (name, G._compiled.answered)


def test_compiled_enemy_ai_equals_the_reference():
    """The compiled enemy AI against the rules' reference (``rules.enemy_turn``, the
    slow oracle: Python searches, no prepared query) on the states of random play."""
    from movecore.games.dark_realms.rules import enemy_turn
    rng = random.Random(11)
    checked = 0
    for name, sc in _ai_boards(range(40, 56)) + example_scenarios("dark_realms"):
        root = mc.position(sc)
        B = 6
        G = BatchedGames(root, B)
        if G._compiled is None:
            continue
        for _ in range(12):
            figs = np.full(B, -1, np.int64)
            qs = [None] * B
            for b in range(B):
                alive = np.flatnonzero(G.alive[b]).tolist()
                f = rng.choice(alive)
                figs[b] = f
                enemy = root.side_of(G.ids[f]) == "enemy"
                qs[b] = ({"enemy": True, "move": rng.randint(1, 6)} if enemy else
                         {"move": rng.randint(0, 4)})
            before = G._compiled.answered
            pen = np.zeros((B, G.n_places), np.int32)
            mask, cost, _ = G.legal_moves(figs, queries=qs, penalty=pen)
            n_ai = sum(q.get("enemy") is True for q in qs)
            for b in range(B):
                if qs[b].get("enemy") is not True or not G._compiled.slot_ok[figs[b]]:
                    continue
                pos = G.position(b)
                want = enemy_turn(pos.scene, pos._fig(G.ids[int(figs[b])]), qs[b]["move"])
                wm = np.zeros(G.n_places, np.uint8)
                wc = np.full(G.n_places, -1, np.int32)
                wp = np.zeros(G.n_places, np.int32)
                for m in want["moves"]:
                    c = pos.board.find(tuple(m["at"]))
                    wm[c], wc[c], wp[c] = 1, m["steps"], m["traps"]
                assert np.array_equal(mask[b], wm), (name, b, qs[b])
                assert np.array_equal(cost[b], wc), (name, b, qs[b])
                assert np.array_equal(pen[b], wp), (name, b, qs[b])
                checked += 1
            assert G._compiled.answered - before == sum(
                qs[b].get("enemy") is True and G._compiled.slot_ok[figs[b]]
                for b in range(B)) <= n_ai
            to = np.array([rng.choice(np.flatnonzero(mask[b]).tolist())
                           if mask[b].any() else -1 for b in range(B)])
            G.apply(np.where(to >= 0, figs, -1), to, queries=qs)
    assert checked > 300


def _ai_off(**changes):
    """The layout with the compiled enemy AI's inputs ``changes`` (name -> function of
    the input) applied: one rule of it turned off."""
    def off(pos, query):
        L, why = _ORIG(pos, query)
        for k, fn in changes.items():
            if L.compiled is not None:
                L.compiled.args[k] = fn(L.compiled.args[k])
        return L, why
    off.__name__ = "_off_" + "_".join(changes)
    return off


_ZERO = np.zeros_like
_SLOW = lambda v: False                          # noqa: E731 (the kernels' path)


def _lose_a_direction(k):
    """The bit offsets with one direction (the first) replaced by another."""
    k = k.copy()
    k[0] = k[1]
    return k


_AI_OFF = [
    _ai_off(marked=_ZERO),                       # the marked characters first
    _ai_off(summon=_ZERO),                       # then the summons
    _ai_off(speed=_ZERO),                        # the fastest among the closest
    _ai_off(n_traps=lambda n: 0),                # the walker's forward search over traps
    _ai_off(obstacle=np.ones_like),              # the flyer's goal spaces, its ends
    _ai_off(trap=_ZERO),                         # the pick: the end's own trap
    # the pick: (x, y) last (on the neighbour table's searches: the bit sets list a
    # level's ends of one step count in (x, y) order, so a tie there is never broken
    # any other way)
    _ai_off(rank=_ZERO, use_bits=_SLOW),
    # the fast searches (the default) as bit sets over the padded grid
    _ai_off(trap_bits=_ZERO),                    # traps in the walker's searches
    _ai_off(walk_bits=np.ones_like),             # walkers never enter an obstacle
    _ai_off(sp=_lose_a_direction),               # every direction of a step
    _ai_off(sn=_lose_a_direction),
    _ai_off(use_tab=_SLOW, nbb=_ZERO),           # the closest target's neighbours
    # ... over the neighbour table (other boards)
    _ai_off(trap8=_ZERO, use_bits=_SLOW),        # traps in the walker's searches
    _ai_off(walk_ok=np.ones_like, use_bits=_SLOW),   # walkers never enter an obstacle
    _ai_off(tab_check=_SLOW),                    # the tables only where no figure is
    #                                              on a least route
    _ai_off(tab_wpk=lambda t: np.where(t > 0, t & 0xFFFF, t)),  # the traps in the walker's
    #                                              table (the pick reads it packed)
    _ai_off(tab_walk=lambda t: np.full_like(t, -1)),  # its least routes, as checked
    _ai_off(use_tab=_SLOW, use_bits=_SLOW, tab_fly=lambda t: t, nbrf=lambda a: np.where(
        np.arange(len(a)) % 2 == 0, a, -1)),     # the neighbour table searched
    # the kernels' path (``fast`` False)
    _ai_off(fast=_SLOW, field_budget=lambda n: 0),   # the closest by steps (the field)
    _ai_off(fast=_SLOW, rev_budget=lambda n: 0),     # the walker's reverse search
    _ai_off(fast=_SLOW, rev_check=_SLOW),        # its bound checked (else: whole board)
]


def test_the_closest_target_by_steps():
    """The enemy targets the hero it reaches in fewer steps, not the one nearer in grid
    distance (behind a wall): on the compiled path as on a position."""
    name, sc = _closest_by_steps()
    G = BatchedGames(mc.position(sc), 2)
    q = {"enemy": True, "move": 3}
    mask, cost, _ = G.legal_moves(np.array([0, 0]), queries=[q, q])
    assert G._compiled.answered == 2
    assert [G.root.board.coord(int(c)) for c in np.flatnonzero(mask[0])] == [(0, 3)]
    assert cost[0, G.root.board.find((0, 3))] == 3
    assert G.root.legal_moves("orc", **q).to_dicts()[0]["target"] == "far"


@pytest.mark.parametrize("off", _AI_OFF, ids=lambda f: f.__name__)
def test_turning_an_enemy_ai_rule_off_fails(monkeypatch, off):
    monkeypatch.setattr(drb, "batch_layout", off)
    with pytest.raises(AssertionError, match=r"^\('\w+', \d+, '"):
        _queries_differential(_ai_boards(range(20, 36)) + [_closest_by_steps()], steps=20,
                              B=8, seed=2, query=_enemy_or_random_query)


def _fast_and_kernels(scenarios, steps, B, seed):
    """Self-play of ``scenarios``; at every step every game's enemy AI move (the
    rolled queries of the step) answered six ways: the fast searches as bit sets with
    the tables and the kept answers (the default), without the kept answers
    (``kept_top`` 0: searched), without the tables (``use_tab`` False), the bit sets'
    walker's reverse search cut short (a level of more than two steps: the neighbour
    table's search), the fast searches over the neighbour table (``use_bits`` False,
    the searches the bit sets replace), and the kernels' path (``fast`` False, the
    searches the fast ones replace): the same mask, steps and traps (the kept answers
    both on the bit sets and, with ``use_bits`` False, on the byte rows). Returns the
    table counters summed (pick from the tables, searched; field from the tables,
    searched; kept answers taken, refused) and the bit sets' (forward, closest-target,
    reverse searches), and the enemy moves compared."""
    hits = np.zeros(6, np.int64)
    bits = np.zeros(3, np.int64)
    n_ai = 0
    for name, sc in scenarios:
        play = BatchedPlay("dark_realms", sc, B, seed=seed)
        G = play.games
        ai = G._compiled
        if ai is None:
            continue
        for _ in range(steps):
            act = np.where(play.done, -1, play.actor)
            qs = play._rolled_queries(act)
            got = []
            short = ai.args["brev"][:3].copy()
            for cfg in ({}, {"kept_top": 0}, {"use_tab": False},
                        {"use_tab": False, "brev": short}, {"use_bits": False},
                        {"fast": False}):
                keep = {k: ai.args[k] for k in cfg}
                ai.args.update(cfg)
                h0 = ai.args["tab_hits"].copy()
                b0 = ai.args["bit_hits"].copy()
                a0 = ai.answered
                pen = np.zeros((G.B, G.n_places), np.int32)
                got.append([a.copy() for a in G.legal_moves(act, queries=qs,
                                                            penalty=pen)] + [pen])
                ai.args.update(keep)
                if not cfg:
                    hits += ai.args["tab_hits"] - h0
                    n_ai += ai.answered - a0
                if "brev" not in cfg:
                    bits += ai.args["bit_hits"] - b0
            for other in got[1:]:
                for x, y in zip(got[0], other):
                    bad = np.flatnonzero((x != y).any(axis=1))
                    assert not len(bad), (name, int(bad[0]))
            play.step()
    return hits, bits, n_ai


def test_fast_searches_equal_the_kernels():
    """The fast searches (bit sets over the padded grid, breadth-first searches over
    the neighbour table, both written for the compiled scope's rules, and the tables
    of the board with no figure on it) against the searches they replace, on random
    boards (hex, square4, square8: traps, obstacles, flyers) and the bundled examples
    in self-play: the tables' answers, the searches after them and every bit set
    search are taken many times."""
    hits, bits, n_ai = _fast_and_kernels(_ai_boards(range(60, 76)) + [_closest_by_steps()]
                                         + example_scenarios("dark_realms"), steps=24,
                                         B=32, seed=5)
    assert n_ai > 3000 and (hits > 100).all() and (bits > 100).all(), (n_ai, hits, bits)


@pytest.mark.slow
def test_fast_searches_equal_the_kernels_long():
    hits, bits, n_ai = _fast_and_kernels(_ai_boards(range(100, 124)), steps=40, B=32,
                                         seed=6)
    assert n_ai > 10000 and (hits > 500).all() and (bits > 300).all(), (n_ai, hits, bits)


def test_the_tables_are_the_empty_boards_searches():
    """Each table row is the fast search of the board with no figure on it from that
    space (the walker's reverse costs, its steps; the flyer's steps), and the kernel's
    own answer there: the reverse kernel's costs, the distance field's steps."""
    from movecore.position import bind_occupant
    for name, sc in _ai_boards(range(60, 70)) + example_scenarios("dark_realms"):
        sc = {**sc, "figures": [f for f in sc["figures"] if f["side"] == "enemy"][:1] +
              [f for f in sc["figures"] if f["side"] != "enemy"][:1]}
        pos = mc.position(sc)
        G = BatchedGames(pos, 1)
        if G._compiled is None or not G._compiled.args["use_tab"]:
            continue
        a = G._compiled.args
        n = pos.board.n_cells
        empty = np.full(n, -1, np.int32)
        enemy = next(f for f in pos.scene.figures if f.side == "enemy")
        for key, tab in (("tab_walk", a["tab_walk"]), ("tab_wstep", a["tab_wstep"]),
                         ("tab_fly", a["tab_fly"])):
            if tab.shape[0] != n:
                continue
            if key == "tab_walk":
                rq = pos._reverse_query(enemy)[0]
            else:
                fly = key == "tab_fly"
                rq = mc.prepare(pos.board, mc.Mover(), n, occupant=empty,
                                cell_flags=np.zeros(n, np.uint8) if fly else
                                pos._flags_for(False))
            for x in range(0, n, 3):
                want = np.full(n, -1, np.int64)
                if not (key != "tab_fly" and pos.scene.obstacle[x]):
                    r = bind_occupant(rq, empty).reach(x) if key == "tab_walk" \
                        else rq.reach(x, n)
                    want[r.cells] = r.costs
                assert np.array_equal(tab[x], want), (name, key, x)
        if a["tab_walk"].shape[0] == n:        # the pick's packed form of the walker's
            k = a["tab_walk"].astype(np.int64)
            trap = pos.scene.trap.astype(np.int64)
            for x in range(n):
                for c in range(n):
                    q, r = divmod(int(k[x, c]), n + 1)
                    want = (q - trap[c]) * 65536 + r - 1 if k[x, c] >= 0 and r else -1
                    assert a["tab_wpk"][x, c] == want, (name, x, c)


def test_the_kept_answers_are_the_two_figure_boards():
    """Each kept answer (``BatchEnemyAI.keep``) is the rules' reference answer
    (``rules.enemy_turn``) on the board where only the mover and the target stand
    (destination, steps, traps), and holds what ``_kept_answer`` assumes of it: its
    destination has a route on to the target (the walker's packed table; the flyer's
    least steps from a space next to the target, no obstacle) and its forward steps
    and traps are the least of the board with no figure (``tab_walk``, ``tab_fly``:
    not kept where the move is too short for those)."""
    from movecore.games.dark_realms.rules import PLAYERS, enemy_turn
    rng = random.Random(3)
    n_kept = 0
    for name, sc in _ai_boards(range(60, 72)) + example_scenarios("dark_realms"):
        G = BatchedGames(mc.position(sc), 1)
        ai = G._compiled
        if ai is None or ai.args["kept_top"] == 0:
            continue
        ai.keep()
        a = ai.args
        kept, W = a["kept"], a["W"]
        h = int(np.flatnonzero(a["team"] == PLAYERS)[0])
        board = G.root.board
        for fly in (0, 1):
            slots = np.flatnonzero(ai.slot_ok & (a["flying"] == bool(fly)))
            if not len(slots):
                continue
            e = int(slots[0])
            figs = {f["id"]: f for f in sc["figures"]}
            got = np.argwhere(kept[fly] >= 0)
            # every kept entry: its forward steps and traps the least of the board
            # with no figure, its destination with a route on
            move, E, T = got.T
            v = kept[fly][move, E, T].astype(np.int64)
            dest, steps, traps = v & 0xFFFF, (v >> 16) & 0xFF, v >> 24
            assert (steps <= move).all(), name
            if fly:
                nb = board.nbr[T]
                x = a["tab_fly"][np.maximum(nb, 0), dest[:, None]]
                x = np.where((nb >= 0) & ~a["obstacle"][np.maximum(nb, 0)], x, -1)
                assert (x.max(1) >= 0).all() and (traps == 0).all() and \
                    (steps == a["tab_fly"][E, dest]).all(), name
            else:
                assert (a["tab_wpk"][T, dest] >= 0).all() and \
                    (steps + W * traps == a["tab_walk"][E, dest]).all(), name
            for move, E, T in rng.sample(got.tolist(), min(40, len(got))):
                v = int(kept[fly, move, E, T])
                dest, steps, traps = v & 0xFFFF, (v >> 16) & 0xFF, v >> 24
                two = {**sc, "figures": [
                    {**figs[G.ids[e]], "at": list(board.coord(E))},
                    {**figs[G.ids[h]], "at": list(board.coord(T))}]}
                pos = mc.position(two)
                want = enemy_turn(pos.scene, pos._fig(G.ids[e]), move)["moves"]
                assert [(board.find(tuple(m["at"])), m["steps"], m["traps"])
                        for m in want] == [(dest, steps, traps)], (name, fly, move, E, T)
                n_kept += 1
    assert n_kept > 300, n_kept


@pytest.mark.parametrize("slack", [0, 1, -1])
def test_the_bounded_reverse_search_is_exact(monkeypatch, slack):
    """The walker's reverse search bounded by any guess of the winner's steps left
    (0: the tightest, most often run again over the whole board; -1: the whole board at
    once, unbounded) answers as the single positions (turning its check off fails:
    ``test_turning_an_enemy_ai_rule_off_fails``)."""
    monkeypatch.setattr(drb, "batch_layout", _ai_off(fast=_SLOW,
                                                     rev_slack=lambda s: slack))
    counts = {}
    _queries_differential(_ai_boards(range(20, 36)) + [_closest_by_steps()], steps=20,
                          B=8, seed=2, query=_enemy_or_random_query, counts=counts)
    assert counts["compiled"] > 500, counts


def test_the_bounded_reverse_search_in_steady_play():
    """Self-play's enemy moves out of step (after 30 steps), answered with the walker's
    reverse search bounded (each guess: the default, the tightest) and over the whole
    board (-1): the same ends, steps and traps, move after move."""
    from movecore.games.dark_realms._batch_enemy import REV_SLACK
    for name, scenario in example_scenarios("dark_realms"):
        play = BatchedPlay("dark_realms", scenario, 128, seed=4)
        G = play.games
        G._compiled.args["fast"] = False        # the kernels' path
        for _ in range(30):
            play.step()
        for _ in range(12):
            act = np.where(play.done, -1, play.actor)
            qs = play._rolled_queries(act)
            got = []
            for slack in (-1, REV_SLACK, 0):
                G._compiled.args["rev_slack"] = slack
                pen = np.zeros((G.B, G.n_places), np.int32)
                got.append([a.copy() for a in G.legal_moves(act, queries=qs,
                                                            penalty=pen)] + [pen])
            G._compiled.args["rev_slack"] = REV_SLACK
            for other in got[1:]:
                assert all(np.array_equal(x, y) for x, y in zip(got[0], other)), name
            play.step()


# ---------------------------------------------------------------- queries in array form
_KEYS = ("move", "roll", "bonus", "stamina", "attack_range")


def _random_columns(G, figs, rng, faces):
    """Per-game queries in array form (``QueryColumns``) over random keyword subsets and
    values at the edges of every rule (-1 = left out, 0, 1, the die's faces and one
    more, MAX_MOVE and one more, past the shape's budget)."""
    from movecore.games.dark_realms.rules import MAX_MOVE
    B = len(figs)
    if rng.random() < 0.5:    # well-formed: heroes' cards, enemies' AI moves, mixed
        enemy = np.array([f >= 0 and G.root.side_of(G.ids[f]) == "enemy" and
                          rng.random() < 0.8 for f in figs.tolist()])
        key = rng.choice(["move", "roll"])
        v = np.array([rng.randint(0 if key == "move" else 1, 6) for _ in range(B)])
        cols = {key: v, "enemy": enemy,
                "attack_range": np.where(enemy, rng.choice([1, 1, 2]), -1)}
        if key == "roll" and rng.random() < 0.5:
            cols["bonus"] = np.array([rng.choice([-1, 0, 1, 2]) for _ in range(B)])
        if rng.random() < 0.3:
            cols["stamina"] = np.where(enemy, -1, [rng.randint(-1, 2) for _ in range(B)])
        return cols
    vals = [-1, -1, -1, 0, 1, 2, 3, 4, 5, 6, faces, faces + 1, 40, MAX_MOVE, MAX_MOVE + 1]
    cols = {}
    for k in rng.sample(_KEYS, rng.randint(1, len(_KEYS))):
        cols[k] = np.array([rng.choice(vals) for _ in range(B)], np.int64)
    if "attack_range" in cols:
        cols["attack_range"] = np.array([rng.choice([-1, 1, 1, 2]) for _ in range(B)])
    if rng.random() < 0.7:
        cols["enemy"] = np.array([rng.random() < 0.5 for _ in range(B)])
    return cols


def test_query_columns_read_as_the_query_dicts():
    """The array form's budgets and enemy AI Moves (``query_columns``, over the batch
    at once) equal ``query_budget`` and ``BatchEnemyAI.move_of`` of every game's query
    dict, on random keyword subsets and edge values; and ``legal_moves`` in array form
    answers as with the games' query dicts (penalties included)."""
    from movecore.batch import QueryColumns
    rng = random.Random(5)
    n_budget = n_enemy = 0
    for name, sc in _ai_boards(range(60, 72)) + example_scenarios("dark_realms"):
        root = mc.position(sc)
        B = 12
        G = BatchedGames(root, B)
        if G._query_columns is None:
            continue
        ai = G._compiled
        for _ in range(25):
            figs = np.array([rng.randrange(-1, G.F) for _ in range(B)], np.int64)
            qc = QueryColumns(_random_columns(G, figs, rng, root._faces), B)
            budget, pre = G._query_columns(figs, qc.arrays)
            for b in np.flatnonzero(figs >= 0).tolist():
                f, q = int(figs[b]), qc[b]
                if q.get("stamina_only"):
                    continue
                assert budget[b] == G._query_budget(f, q), (name, f, q)
                if ai is not None:
                    assert pre[b] == ai.move_of(f, q), (name, f, q)
                    n_enemy += pre[b] >= 0
                n_budget += budget[b] >= 0
            # the answers: array form against dict form (the errors a live position
            # raises for a bad query too: the same game's, both ways)
            A = np.full((B, G.n_places), 5, np.int32)
            D = np.full((B, G.n_places), 5, np.int32)
            try:
                want = [a.copy() for a in G.legal_moves(figs, queries=list(qc), penalty=D)]
            except mc.MovecoreError as e:
                with pytest.raises(type(e)):
                    G.legal_moves(figs, queries=qc.arrays, penalty=A)
                continue
            got = G.legal_moves(figs, queries=qc.arrays, penalty=A)
            for x, y in zip(got, want):
                assert np.array_equal(x, y), name
            assert np.array_equal(A, D), name
    assert n_budget > 600 and n_enemy > 300, (n_budget, n_enemy)


def test_query_columns_are_validated():
    """The array form is checked once at the boundary: typed errors naming the bad
    keyword or value."""
    name, sc = example_scenarios("dark_realms")[0]
    G = BatchedGames(mc.position(sc), 3)
    figs = np.array([0, 1, -1])
    for cols, word in [({"roll": np.array([1, 2])}, "roll"),
                       ({"roll": np.array([1.0, 2.0, 3.0])}, "roll"),
                       ({"move": np.array([1, -2, 3])}, "-2"),
                       ({"move": np.array([True, False, True])}, "move"),
                       ({"enemy": np.array([1, 0, 0]), "move": 3}, "enemy"),
                       ({"roll": "3"}, "roll")]:
        with pytest.raises(mc.QueryError, match=word):
            G.legal_moves(figs, queries=cols)
    with pytest.raises(mc.QueryError, match="Stamina-only"):
        G.legal_moves(figs, queries={"stamina_only": True, "stamina": 1})
    # a scalar broadcasts; -1 leaves a keyword out
    mask, _, _ = G.legal_moves(figs, queries={"move": np.array([2, -1, -1]),
                                              "roll": np.array([-1, 3, -1])})
    want = G.legal_moves(figs, queries=[{"move": 2}, {"roll": 3}, None])[0].copy()
    assert np.array_equal(mask, want)


def test_selfplay_query_columns_are_its_query_dicts():
    """Self-play's rolled queries in array form (``DarkRealmsGame.query_columns``) are
    the dicts of ``DarkRealmsGame.queries`` from the same draws."""
    from movecore.batch import QueryColumns
    from movecore.rl.turns import GAME_CLASSES
    name, sc = example_scenarios("dark_realms")[0]
    root = mc.position(sc)
    g = GAME_CLASSES["dark_realms"](root)
    ids = list(root.figures)
    movers = [f for f in ids if g.moves(root, f)]
    rng = random.Random(3)
    figs = [rng.choice(movers + [None]) for _ in range(40)]
    active = np.array([f is not None for f in figs])
    hero = np.array([f is not None and root.side_of(f) == "hero" for f in figs])
    r1, r2 = np.random.default_rng(9), np.random.default_rng(9)
    qc = QueryColumns(g.query_columns(hero, r1, active), len(figs))
    want = g.queries(root, [f for f in figs if f is not None], r2)
    assert [qc[b] for b in np.flatnonzero(active)] == want
    assert r1.random() == r2.random()


# ---------------------------------------------------------------- the compiled step
#: (threads, policy): the first in every run, the other three in the soak tier
#: (``tests/conftest.py``, ``SLOW``); two threads against one and the greedy policy
#: against single positions play in every run (``test_two_threads_play_as_one``,
#: ``test_random_boards_selfplay_equals_single_positions``)
_STEP_CASES = [(1, "random"), (2, "greedy"), (1, "greedy"), (2, "random")]


@pytest.mark.parametrize("threads,policy", _STEP_CASES)
def test_compiled_step_equals_array_path(threads, policy):
    """``BatchedPlay`` runs Dark Realms' compiled step (the chunked step where its scope
    holds; else the rolled queries in array form, one batched ``legal_moves``, the rest
    compiled: :mod:`movecore.tools._selfplay_dark_realms`): the array path's choices
    for the same random numbers, and the same spaces, occupancy, turns and counters."""
    chunked = 0
    for name, s in example_scenarios("dark_realms") + _boards(range(6)) + \
            _ai_boards(range(30, 36)):
        a = BatchedPlay("dark_realms", s, 16, seed=7, policy=policy, threads=threads)
        # (the step of one batched legal_moves, where the chunked step is taken: one
        # thread count is enough, the chunks are ``test_chunked_answers...``'s)
        c = BatchedPlay("dark_realms", s, 16, seed=7, policy=policy, threads=threads)
        c.chunked = False
        plays = (a, c) if threads == 1 else (a,)
        b = BatchedPlay("dark_realms", s, 16, seed=7, policy=policy, threads=threads,
                        fused=False)
        assert a.fused and c.fused and not b.fused, name
        for _ in range(60):
            b.step()
            for x in plays:
                x.step()
                gx, gb = x.games, b.games
                assert np.array_equal(gx.cell, gb.cell), name
                assert np.array_equal(gx.alive, gb.alive), name
                assert np.array_equal(gx.occ, gb.occ), name
                assert np.array_equal(x.actor, b.actor) and np.array_equal(x.turn, b.turn)
        assert all(x.counts == b.counts for x in plays), name
        assert a.counts["games"] > 0 or name.startswith("random"), name
        assert getattr(c, "_drplan", None) is None
        chunked += a._drplan is not None
    assert chunked >= 6, chunked


def test_chunked_step_with_games_not_acting_equals_array_path():
    """Games that do not act at a step's start (finished from outside: ``done`` set
    before the step) draw no roll: the chunked step's draw (only the acting games', in
    game order, as ``query_columns``; its whole-batch draw where every game acts) keeps
    the array path's stream, and both restart those games alike."""
    seen = 0
    for name, s in example_scenarios("dark_realms") + _ai_boards(range(30, 33)):
        a = BatchedPlay("dark_realms", s, 12, seed=5)
        b = BatchedPlay("dark_realms", s, 12, seed=5, fused=False)
        for i in range(40):
            if i % 7 == 3:          # (a few games end from outside, as a caller may)
                for x in (a, b):
                    x.done[i % 5::5] = True
            a.step()
            b.step()
            assert np.array_equal(a.games.cell, b.games.cell), (name, i)
            assert np.array_equal(a.games.occ, b.games.occ), (name, i)
            assert np.array_equal(a.actor, b.actor) and np.array_equal(a.turn, b.turn)
        assert a.counts == b.counts, name
        seen += a._drplan is not None
    assert seen >= 2, seen


# ---------------------------------------------------------------- the chunked step
def _chunked_answers(scenarios, steps, B, seed, threads=1, bits=True):
    """Self-play on the chunked step (``_selfplay_dark_realms``: the whole step per
    thread on its chunk of games); before every step, every acting game's legal ends
    for the step's rolls as the chunk answers them (a hero's breadth-first search, the
    enemy AI on the thread's scratch) against one batched ``legal_moves`` for the same
    rolled queries (the kernel's query shapes). Returns the (hero, enemy) rows
    compared, the hero rows of a flyer next to an obstacle, and the hero rows searched
    as bit sets over the grid (``bits``; else over the neighbour table)."""
    import copy
    from movecore.tools import _selfplay_dark_realms as sdr
    n = np.zeros(4, np.int64)
    for name, sc in scenarios:
        play = BatchedPlay("dark_realms", sc, B, seed=seed, threads=threads)
        plan = sdr.chunked_plan(play)
        if plan is None:
            continue
        if not bits:
            plan["grid"] = None
            plan.update(sdr.plan_bits(plan))
        play._drplan = plan
        G = play.games
        obstacle = G.root.scene.obstacle
        near_obstacle = np.array([obstacle[[v for v in row if v >= 0]].any()
                                  for row in G.root.board.nbr])
        for _ in range(steps):
            act = np.where(play.done, -1, play.actor)
            rng = copy.deepcopy(play.rng)
            play.rng = copy.deepcopy(rng)
            rolls = sdr.draw_rolls(play, plan).copy()
            for c in range(plan["n_chunks"]):
                sdr.answer_chunk(play, plan, c, rolls)
            got = play._out[0].copy()
            play.rng = copy.deepcopy(rng)
            want = G.legal_moves(act, queries=play._rolled_queries(act))[0]
            play.rng = rng               # (the step draws the same rolls again)
            for b in np.flatnonzero(act >= 0).tolist():
                assert np.array_equal(got[b], want[b]), (name, b)
                f = int(act[b])
                hero = plan["hero"][f]
                n[0 if hero else 1] += 1
                n[2] += hero and plan["flying"][f] and near_obstacle[G.cell[b, f]]
                n[3] += hero and plan["use_bits"]
            play.step()
    return n


@pytest.mark.parametrize("threads,bits", [(1, True), (2, True), (1, False)])
def test_chunked_answers_equal_the_batched_legal_moves(threads, bits):
    """The chunked step's answers (heroes' card moves by a breadth-first search of the
    compiled scope's rules: bit sets over the padded grid, or the neighbour table;
    enemies' on each thread's scratch) equal the batched ``legal_moves`` (the query
    shapes' kernel) for the same rolls, move after move, on hex, square4 and square8
    boards."""
    n = _chunked_answers(_ai_boards(range(60, 72)) + example_scenarios("dark_realms"),
                         steps=20, B=12, seed=3, threads=threads, bits=bits)
    assert n[0] > 1000 and n[1] > 1000 and n[2] > 20, n
    assert (n[3] > 0.8 * n[0]) if bits else n[3] == 0, n


def _plan_off(change):
    """The chunked step's plan with ``change`` applied: one of its rules turned off."""
    from movecore.tools import _selfplay_dark_realms as sdr
    orig = sdr.chunked_plan

    def off(play):
        plan = orig(play)
        if plan is not None:
            change(plan)
            plan.update(sdr.plan_bits(plan))
        return plan
    off.__name__ = change.__name__
    return off


def _walkers_enter_obstacles(plan):
    plan["passable"][0] = 1


def _flyers_blocked_by_obstacles(plan):
    plan["passable"][1] = plan["passable"][0]


def _flyers_end_on_obstacles(plan):
    plan["may_end"][1] = 1


def _flyers_walk(plan):
    plan["flying"][:] = False


def _a_grid_direction_left_out(plan):
    if plan["grid"] is not None:
        bpos, shifts, W = plan["grid"]
        plan["grid"] = (bpos, shifts[:-1], W)


@pytest.mark.parametrize("off", [_walkers_enter_obstacles, _flyers_blocked_by_obstacles,
                                 _flyers_end_on_obstacles, _flyers_walk,
                                 _a_grid_direction_left_out])
def test_turning_a_chunked_rule_off_fails(monkeypatch, off):
    from movecore.tools import _selfplay_dark_realms as sdr
    monkeypatch.setattr(sdr, "chunked_plan", _plan_off(off))
    with pytest.raises(AssertionError, match=r"^\('\w+', \d+\)"):
        _chunked_answers(_ai_boards(range(60, 72)) + example_scenarios("dark_realms"),
                         steps=20, B=12, seed=3)


def test_the_chunked_step_is_taken_where_its_scope_holds():
    """The bundled examples run the chunked step; a scenario whose enemies the compiled
    enemy AI does not answer (allies passed) runs the batched ``legal_moves`` step."""
    for name, sc in example_scenarios("dark_realms"):
        play = BatchedPlay("dark_realms", sc, 4, seed=0)
        play.step()
        assert play._drplan is not None, name
    name, sc = _ai_boards([61])[0]
    sc = {**sc, "options": {**sc["options"], "pass_allies": True}}
    play = BatchedPlay("dark_realms", sc, 4, seed=0)
    play.step()
    assert play.fused and play._drplan is None


def test_the_fast_pick_is_the_positions_pick():
    """``_batch_enemy._pick_fast`` (the fast searches' pick: the quotient by a
    multiplication, ends that lose on the first two keys passed over, the grid distance
    only where read) answers as the position's compiled pick on random ends: walkers
    and flyers, traps, ties on every key, ends next to the target, ends without a route
    on (the fallback), and board sizes whose ``W`` is large."""
    from movecore.games.dark_realms._batch_enemy import _pick_fast
    from movecore.games.dark_realms._enemy_pick import _pick
    pick = _pick()
    rng = np.random.default_rng(5)
    kinds = {0: 0, 1: 0}
    for case in range(3000):
        n = int(rng.integers(2, 40))
        W = int(rng.choice([n + 1, 1025, (1 << 22) + 1]))
        fly = bool(rng.random() < 0.3)
        coords = rng.integers(-4, 5, (n, 2)).astype(np.int64)
        kind = int(rng.integers(0, 3))
        tg = int(rng.integers(0, n))
        nf = int(rng.integers(1, n + 1))
        cells = rng.permutation(n)[:nf].astype(np.int32)
        ft = rng.integers(0, 3, nf).astype(np.int32)
        fs = rng.integers(0, 4, nf).astype(np.int32)
        trap = rng.random(n) < 0.3
        rem = np.full(n, -1, np.int64)
        routed = rng.random(nf) < (0.0 if case % 7 == 0 else 0.8)
        steps = rng.integers(0, 4, nf)
        traps = rng.integers(0, 3, nf)
        w = 1 if fly else W
        rem[cells[routed]] = (steps if fly else steps + W * (traps + trap[cells]))[routed]
        rank = rng.permutation(n).astype(np.int64)
        dist = np.array([(abs(a) + abs(b) + abs(a + b)) // 2 if kind == 0 else
                         abs(a) + abs(b) if kind == 1 else max(abs(a), abs(b))
                         for a, b in coords - coords[tg]], np.int64)
        want = pick(cells, ft, fs, rem, fly, w, trap, dist, rank)
        got = _pick_fast(cells, ft, fs, nf, rem, fly, w, 1.0 / w, trap, coords, kind, tg,
                         rank)
        assert tuple(got) == tuple(want), case
        kinds[int(want[1])] += 1
    assert min(kinds.values()) > 300, kinds


def test_the_chunked_step_drops_live_positions_of_restarted_games():
    """A caller's own query outside the compiled scope makes a live position of a game;
    once a game restarts (a removed figure back in play), the chunked step drops its
    live position, and a query after it answers as a single position of the game."""
    name, sc = example_scenarios("dark_realms")[0]
    play = BatchedPlay("dark_realms", sc, 8, seed=1)
    G = play.games
    hero = G.ids.index(next(f["id"] for f in sc["figures"] if f["side"] == "hero"))
    figs = np.full(8, hero)
    q = [{"die": "d6"}] * 8
    finished = play.counts["games"]
    while play.counts["games"] == finished:
        if not G.alive[:, hero].all():
            play.step()
            continue
        G.legal_moves(figs, queries=q)
        assert len(G._live) == 8
        play.step()
    restarted = np.flatnonzero(play._drplan["restarted"]).tolist()
    assert restarted and not any(b in G._live for b in restarted)
    for b in np.flatnonzero(G.alive[:, hero]).tolist():
        m = G.legal_moves(np.where(np.arange(8) == b, hero, -1), queries=q)[0]
        want = G.position(b).legal_moves(G.ids[hero], die="d6")
        assert sorted(np.flatnonzero(m[b]).tolist()) == sorted(want.actions.tolist())


# ---------------------------------------------------------------- the bit set searches
def _grid_boards(seeds):
    """Random Dark Realms boards (hex, square4, square8 in turn) of up to 15 x 15
    spaces, some left out, obstacles and traps: grids of one to four words."""
    for seed in seeds:
        rng = random.Random(seed)
        kind = ("hex", "square4", "square8")[seed % 3]
        w, h = rng.randint(1, 15), rng.randint(1, 15)
        cells = []
        for x in range(w):
            for y in range(h):
                if rng.random() < 0.9 or not cells:
                    r = rng.random()
                    cells.append({"at": [x, y], **({"obstacle": True} if r < 0.15 else
                                                   {"trap": True} if r < 0.25 else {})})
        free = [c["at"] for c in cells if not c.get("obstacle")] or [cells[0]["at"]]
        cells = [c if c["at"] != free[0] else {"at": c["at"]} for c in cells]
        sc = {"game": "dark_realms", "board": {"grid": kind, "cells": cells},
              "figures": [{"id": "e", "side": "enemy", "at": free[0]}], "options": {},
              "query": {}}
        yield mc.position(sc), rng


def test_bit_searches_equal_the_neighbour_table_searches():
    """Each bit set search of the enemy AI (``_batch_enemy``: ``_fwd_bits``,
    ``_rev_walk_bits``, ``_rev_fly_bits``, ``_field_bits``) against the neighbour
    table's search it replaces (``_bfs_traps``, ``_bfs``, ``_rev_walk``, ``_rev_fly``,
    the closest target's keys from ``_bfs``) on random boards of one to four words,
    random figures (every figure blocks), starts, budgets 0-8, targets and spaces
    wanted: the same ends with the same traps and steps, the same costs (the forward
    search's levels past the first, which compute only the layers a trap entry changes,
    among them)."""
    from movecore.games.dark_realms import _batch_enemy as be
    n = np.zeros(6, np.int64)
    words = set()
    for pos, rng in _grid_boards(range(30)):
        board = pos.board
        N, K = board.n_cells, board.nbr.shape[1]
        grid = be.grid_layout(board)
        assert grid is not None
        bpos, shifts, W = grid
        words.add(W)
        bat = np.full(W * 64, -1, np.int64)
        bat[bpos] = np.arange(N)
        sp, sn = be._four(shifts[shifts > 0]), be._four(-shifts[shifts < 0])
        nbrf = np.ascontiguousarray(board.nbr, np.int32).ravel()
        obstacle = np.asarray(pos.scene.obstacle, bool)
        trap8 = pos.scene.trap.astype(np.uint8)
        n_traps = int(trap8.sum())
        trapb = be.bits_of([trap8], bpos, W)[0]
        nbb = np.zeros((N, W), np.uint64)
        for c in range(N):
            nbb[c] = be.bits_of([np.isin(np.arange(N), board.nbr[c][board.nbr[c] >= 0])],
                                bpos, W)[0]
        coords = np.ascontiguousarray(board.coords, np.int64)
        kind = be._KIND[board.kind]
        ws = lambda k: np.zeros((k, W), np.uint64)                 # noqa: E731
        i32 = lambda: np.zeros(N, np.int32)                        # noqa: E731
        for _ in range(12):
            occupied = np.array([rng.random() < 0.2 for _ in range(N)])
            start = rng.randrange(N)
            occupied[start] = False
            budget = rng.randint(0, 8)
            walk = (~obstacle & ~occupied).astype(np.uint8)
            walk[start] = 1
            fly = (~occupied).astype(np.uint8)
            fly[start] = 1
            # the forward searches: a walker over traps, a flyer
            least, steps, cells = np.full(N, be._BIG, np.int32), i32(), i32()
            states = np.zeros(N * (min(n_traps, budget) + 1) + 1, np.int64)
            m = be._bfs_traps(nbrf, K, walk, trap8, start, budget, least, steps, cells,
                              states)
            want = {int(c): (int(least[c]), int(steps[c])) for c in cells[:m]}
            fc, ft, fs = i32(), i32(), i32()
            got = be._fwd_bits(start, budget, be.bits_of([walk], bpos, W)[0], trapb,
                               min(n_traps, budget), sp, sn, bpos, bat, obstacle, False,
                               ws(budget + 1), ws(budget + 1), ws(1)[0], fc, ft, fs)
            assert {int(fc[j]): (int(ft[j]), int(fs[j])) for j in range(got)} == want
            n[0] += 1
            n[5] += int((ft[:got] >= 1).any())       # (a second level of traps)
            field, order = np.full(N, -1, np.int32), i32()
            m = be._bfs(nbrf, K, fly, start, budget, field, order)
            want = {int(c): (0, int(field[c])) for c in order[:m] if not obstacle[c]}
            got = be._fwd_bits(start, budget, be.bits_of([fly], bpos, W)[0], ws(1)[0], 0,
                               sp, sn, bpos, bat, obstacle, True, ws(budget + 1),
                               ws(budget + 1), ws(1)[0], fc, ft, fs)
            assert {int(fc[j]): (int(ft[j]), int(fs[j])) for j in range(got)} == want
            # the closest target: 1-3 targets on occupied spaces (or anywhere)
            tier = np.array([rng.randrange(N) for _ in range(rng.randint(1, 3))], np.int64)
            cell = tier.astype(np.int32)[None, :]
            nt = len(tier)
            keys = np.zeros((nt, 2), np.int64)
            be._field_bits(start, be.bits_of([walk], bpos, W)[0], nbb, cell, 0,
                           np.arange(nt, dtype=np.int64), nt, keys, coords, kind, sp, sn,
                           bpos, ws(1)[0], ws(1)[0])
            field[:] = -1
            be._bfs(nbrf, K, walk, start, N, field, order)
            for t in range(nt):
                d = [field[v] + 1 for v in board.nbr[tier[t]] if v >= 0 and field[v] >= 0]
                want = (0, min(d)) if d else (1, be._grid_distance(coords, kind, start,
                                                                  tier[t]))
                assert tuple(keys[t]) == want
                n[1] += 1
            # the reverse searches from a target's space, for random spaces wanted
            tg = rng.randrange(N)
            wanted = np.array([c != tg and walk[c] and rng.random() < 0.3
                               for c in range(N)], np.uint8)
            nw = int(wanted.sum())
            Wt = N + 1
            rem, fifo, tq = np.full(N, -1, np.int64), i32(), i32()
            be._rev_walk(nbrf, K, walk, trap8, tg, Wt, wanted, nw, rem, fifo, tq)
            got = np.full(N, -1, np.int64)
            st = be._rev_walk_bits(tg, be.bits_of([walk], bpos, W)[0], trapb,
                                   be.bits_of([wanted], bpos, W)[0], Wt, n_traps, sp, sn,
                                   bpos, bat, ws(be.REV_ROWS), *ws(4), got)
            assert st == 0
            on = wanted.astype(bool)
            assert np.array_equal(got[on], rem[on]), (board.kind, tg)
            n[2] += nw
            n[3] += int((rem[on] >= Wt).sum())            # (a trap on the route)
            goal = walk.copy()
            wanted &= fly
            rem[:] = -1
            be._rev_fly(nbrf, K, goal, fly, tg, wanted, int(wanted.sum()), rem, fifo)
            got[:] = -1
            be._rev_fly_bits(tg, be.bits_of([goal], bpos, W)[0],
                             be.bits_of([fly], bpos, W)[0], be.bits_of([wanted], bpos, W)[0],
                             sp, sn, nbb, bat, *ws(2), got)
            on = wanted.astype(bool)
            assert np.array_equal(got[on], rem[on]), (board.kind, tg)
            n[4] += int(on.sum())
    assert words >= {1, 2, 3} and (n > 100).all(), (words, n)
