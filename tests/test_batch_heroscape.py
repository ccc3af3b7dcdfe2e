"""Heroscape on the batched arrays backend (``movecore.games.heroscape._batch``) against
single live positions, on random battlefields.

Random battlefields (levels with drops, water, lava, glyphs, obstacles) and armies
(single- and double-space figures of two or three teams; flyers with and without
Stealth Flying, Phantom Walk, Ghost Walk, Disengage; heights 1-9), in the master and the
basic game, both climb limits, flyers stopping in water or on glyphs or not: after every
step of seeded self-play (random and greedy), every game's batched mask, costs and stops
equal a single position's ``legal_moves`` in the same state, and the games' figures
stand where the single positions that applied the same moves stand; leaving attacks
(``legal_moves(penalty=)``) and per-game queries (``move``, ``paths``) too.
"""
from __future__ import annotations

import random

import numpy as np
import pytest

import movecore as mc
from movecore.batch import BatchedGames

from test_batch import _dense, _run_differential

HEX_DIRS = [(1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)]
TERR = ["grass"] * 6 + ["rock", "sand", "water", "water", "lava", "snow"]


def random_scenario(seed: int, big: bool = False) -> dict:
    """A random battlefield and army of two or three teams (see the module docstring);
    ``big``: 10-14 x 8-11 spaces (room for a figure with no one in reach)."""
    rng = random.Random(seed)
    w, h = rng.randint(4, 8), rng.randint(3, 6)
    if big:
        w, h = w + 6, h + 5
    cells, info = [], {}
    for q in range(w):
        for r in range(h):
            if rng.random() < 0.1:
                continue
            c = {"at": [q, r], "terrain": rng.choice(TERR),
                 "level": rng.choice([0, 1, 1, 2, 3, 4, 6, 9]) if rng.random() < 0.5
                 else 1}
            if rng.random() < 0.06:
                c["obstacle"] = "tree"
            elif rng.random() < 0.08:
                c["glyph"] = "gerda"
            cells.append(c)
            info[(q, r)] = c
    free = [k for k, c in info.items() if "obstacle" not in c]
    rng.shuffle(free)
    taken: set = set()
    figs = []
    teams = "ab" if rng.random() < 0.6 else "abc"
    for i in range(rng.randint(3, 7)):
        double = rng.random() < 0.35
        at = None
        for a in free:
            if a in taken:
                continue
            if not double:
                at = [a]
                break
            nb = [(a[0] + dq, a[1] + dr) for dq, dr in HEX_DIRS]
            nb = [b for b in nb if b in info and "obstacle" not in info[b] and
                  b not in taken]
            if nb:
                at = [a, rng.choice(nb)]
                break
        if at is None:
            break
        taken.update(at)
        flying = rng.random() < 0.3
        u = rng.random()
        figs.append({"id": f"f{i}", "team": teams[i % len(teams)] if i < len(teams)
                     else rng.choice(teams),
                     "at": [list(c) for c in at] if len(at) == 2 else list(at[0]),
                     "move": rng.randint(1, 7), "height": rng.randint(1, 9),
                     "flying": flying, "stealth_flying": flying and rng.random() < 0.3,
                     "phantom_walk": u < 0.1, "ghost_walk": 0.1 <= u < 0.2,
                     "disengage": 0.2 <= u < 0.3})
    options = {"mode": rng.choice(["master", "master", "master", "basic"]),
               "climb_limit": rng.choice(["below_height", "up_to_height"]),
               "flyers_stop_in_water": rng.random() < 0.3,
               "flyers_stop_on_glyphs": rng.random() < 0.3}
    return {"game": "heroscape", "board": {"cells": cells}, "options": options,
            "figures": figs}


def _scenarios(seeds) -> list:
    out = []
    for s in seeds:
        sc = random_scenario(s)
        if len({f["team"] for f in sc["figures"]}) >= 2:
            out.append((f"random_{s}", sc))
    return out


@pytest.mark.parametrize("policy", ["random", "greedy"])
def test_random_battlefields_equal_single_positions(policy):
    """Every step of self-play on random battlefields: the batched answers and state
    are the single positions'."""
    scen = _scenarios(range(10 if policy == "random" else 6))
    checked = _run_differential("heroscape", steps=30, B=8, seed=2, policy=policy,
                                scenarios=scen)
    assert checked > 800


@pytest.mark.slow
def test_random_battlefields_many_moves():
    scen = _scenarios(range(100, 140))
    assert _run_differential("heroscape", steps=40, B=16, seed=4,
                             scenarios=scen) >= 10_000


def test_bundled_examples_run_on_arrays():
    """The bundled examples' batches are on arrays, their two-space figures answered by
    the layout's compiled call (no game asks a position)."""
    from movecore.tools.selfplay import example_scenarios
    from movecore.tools.selfplay_batch import BatchedPlay
    for name, sc in example_scenarios("heroscape"):
        play = BatchedPlay("heroscape", sc, 8, seed=1)
        G = play.games
        assert G.backend == "arrays" and G.why is None, name
        for _ in range(40):
            play.step()
        assert not G._live, name          # no position was restored


def _state_games(seed, B=6, steps=25):
    """B games of a random scenario, played ``steps`` moves apart (a batch to ask)."""
    from movecore.tools.selfplay_batch import BatchedPlay
    name, sc = _scenarios([seed])[0] if _scenarios([seed]) else (None, None)
    if sc is None:
        return None
    play = BatchedPlay("heroscape", sc, B, seed=seed)
    for _ in range(steps):
        play.step()
    return play


@pytest.mark.parametrize("seed", range(16))
def test_penalties_and_queries_per_game(seed):
    """``legal_moves(penalty=)`` (leaving attacks) and per-game queries (``move``,
    ``paths``) equal each game's position; every figure in play is asked."""
    play = _state_games(seed)
    if play is None:
        pytest.skip("one team only")
    G = play.games
    P = G.n_places
    for f in range(G.F):
        figs = np.where(G.alive[:, f], f, -1)
        pen = np.zeros((G.B, P), np.int32)
        mask, cost, stop = (a.copy() for a in G.legal_moves(figs, penalty=pen))
        qs = [None if figs[b] < 0 else ({"move": b % 4} if b % 3 else {"paths": True})
              for b in range(G.B)]
        qm, qc, qst = (a.copy() for a in G.legal_moves(figs, queries=qs))
        for b in np.flatnonzero(figs >= 0).tolist():
            pos = G.position(b)
            fid = G.ids[f]
            m = pos.legal_moves(fid)
            want = np.zeros(P, np.int32)
            want[m.actions] = m.penalty
            assert np.array_equal(pen[b], want), (seed, b, fid)
            assert all(np.array_equal(x[b], y) for x, y in zip(
                (mask, cost, stop), _dense(pos, fid, {}, P))), (seed, b, fid)
            assert all(np.array_equal(x[b], y) for x, y in zip(
                (qm, qc, qst), _dense(pos, fid, qs[b], P))), (seed, b, fid, qs[b])


@pytest.mark.parametrize("seed", [0, 2, 9, 12])
def test_double_space_rows_in_the_positions_order(seed):
    """A double-space figure's batched answer gives its ``Moves`` rows in order: the
    listed placements (the search's orientation of each pair) by cost, then by pair
    (``_vecnp.row_rank``: what the vector env's picks read), in every game of random
    runs, for every double-space figure in play."""
    from movecore.rl._vecnp import row_rank
    asked = 0
    for steps in (0, 8, 20):
        play = _state_games(seed, B=6, steps=steps)
        G = play.games
        P = G.n_places
        rank = row_rank(G.root, G.ids, np.zeros((G.F, P), np.int64))
        for f in range(G.F):
            if not G.root.double[G.root.index[G.ids[f]]]:
                continue
            figs = np.where(G.alive[:, f], f, -1)
            mask, cost, _ = (a.copy() for a in G.legal_moves(figs))
            for b in np.flatnonzero(figs >= 0).tolist():
                at = np.flatnonzero(mask[b])
                rows = at[np.lexsort((rank[f, at], cost[b, at]))]
                m = G.position(b).legal_moves(G.ids[f])
                assert np.array_equal(rows, m.actions), (seed, steps, b, G.ids[f])
                assert np.array_equal(cost[b, rows], m.costs)
                asked += len(rows) > 1
    assert asked > 10, asked


def test_apply_remove_reset_and_positions():
    """apply (validated), remove and reset on arrays follow a single position's
    apply_move and remove_figure (engagement included: it decides the next answers)."""
    play = _state_games(21, B=4, steps=0)
    G = play.games
    rng = np.random.default_rng(0)
    singles = [G.root.copy() for _ in range(G.B)]
    P = G.n_places
    for step in range(60):
        f = step % G.F
        figs = np.where(G.alive[:, f], f, -1)
        mask, _, _ = G.legal_moves(figs)
        to = np.array([rng.choice(np.flatnonzero(mask[b])) if figs[b] >= 0 else -1
                       for b in range(G.B)])
        G.apply(figs, to)
        for b in np.flatnonzero(figs >= 0).tolist():
            singles[b].apply_move(G.ids[f], int(to[b]))
        if step % 7 == 3:
            g = (f + 1) % G.F
            rows = [b for b in range(G.B) if G.alive[b, g]][:2]
            G.remove(rows, [g] * len(rows))
            for b in rows:
                singles[b].remove_figure(G.ids[g])
        if step % 23 == 22:
            G.reset([0])
            singles[0] = G.root.copy()
        for b in range(G.B):
            for g in range(G.F):
                figs = np.full(G.B, -1)
                if not G.alive[b, g]:
                    continue
                figs[b] = g
                got = G.legal_moves(figs)
                want = _dense(singles[b], G.ids[g], {}, P)
                assert all(np.array_equal(x[b], y) for x, y in zip(got, want)), \
                    (step, b, G.ids[g])
    with pytest.raises(mc.IllegalMoveError):
        f = int(np.flatnonzero(G.alive[0])[0])
        mask, _, _ = G.legal_moves(np.array([f] + [-1] * (G.B - 1)))
        G.apply(np.array([f] + [-1] * (G.B - 1)),
                np.array([int(np.flatnonzero(mask[0] == 0)[0])] + [-1] * (G.B - 1)))


def test_queries_and_crowds():
    """Every query key is batched (``paths`` and ``never_attacked_leaving`` change no
    end, cost or stop); an unknown key is the position's QueryError; crowds of more
    than 64 figures run on positions, saying why."""
    sc = _scenarios([3])[0][1]
    pos = mc.position(sc)
    for q in ({"paths": True}, {"never_attacked_leaving": True, "move": 2}):
        G = BatchedGames(pos, 2, query=q)
        assert G.backend == "arrays"
        f = int(np.flatnonzero(G.alive[0])[0])
        got = G.legal_moves(np.array([f, -1]))
        assert all(np.array_equal(x[0], y) for x, y in zip(
            got, _dense(pos, G.ids[f], q, G.n_places)))
    with pytest.raises(mc.QueryError, match="bogus"):
        BatchedGames(pos, 2, query={"bogus": 1})
    cells = [{"at": [q, r]} for q in range(12) for r in range(12)]
    figs = [{"id": f"x{i}", "team": "ab"[i % 2], "at": [i % 12, i // 12]}
            for i in range(70)]
    crowd = mc.position({"game": "heroscape", "board": {"cells": cells}, "figures": figs})
    G = BatchedGames(crowd, 2)
    assert G.backend == "positions" and "64" in G.why


@pytest.mark.parametrize("policy", ["random", "greedy"])
def test_arrays_play_as_the_positions_backend(policy):
    """Self-play on arrays makes the positions backend's choices for the same random
    numbers: the policy's end (greedy: nearest to an enemy over both spaces of a
    two-space figure) and the removal of an adjacent enemy (``touching``: any space
    next to any of the mover's); the random runs' batched calls on two threads."""
    from movecore.tools.selfplay_batch import BatchedPlay
    removed = 0
    for name, sc in _scenarios(range(30, 36)):
        a = BatchedPlay("heroscape", sc, 8, seed=9, policy=policy,
                        threads=2 if policy == "random" else 1)
        b = BatchedPlay("heroscape", sc, 8, seed=9, policy=policy, backend="positions")
        assert a.games.backend == "arrays" and b.games.backend == "positions"
        for _ in range(40):
            a.step()
            b.step()
            assert np.array_equal(a.games.cell, b.games.cell), name
            assert np.array_equal(a.games.alive, b.games.alive), name
        removed += int((~a.games.alive).sum()) + a.counts["games"]
    assert removed > 0


def _gauntlet(double: bool) -> dict:
    """A corridor between two rows of enemies: a walker (``double``: two-space, lying
    along it) draws a leaving attack or more every step, 16 or more at the far end."""
    L = 24 if double else 12
    width = (0, 1) if double else (0,)
    rows = (-1,) + width + (width[-1] + 1,)
    cells = [{"at": [q, r]} for q in range(-2, L + 2) for r in rows]
    at = [[1, 0], [0, 0]] if double else [0, 0]
    figs = [{"id": "runner", "team": "a", "at": at, "move": 20 if double else 9,
             "height": 5}]
    for q in range(-2, L + 2):
        for r in (rows[0], rows[-1]):
            figs.append({"id": f"e{q}_{r}", "team": "b", "at": [q, r], "height": 5})
    return {"game": "heroscape", "board": {"cells": cells}, "figures": figs,
            "options": {"mode": "master"}}


@pytest.mark.parametrize("double", [False, True])
def test_many_attacks_on_one_end(double):
    """Ends with 16 or more leaving attacks (the penalty kernel at 63 levels, as the
    position asks for many enemies in reach) and a two-space figure's least attacks over
    both orientations of a pair: as the position answers."""
    pos = mc.position(_gauntlet(double))
    G = BatchedGames(pos, 2)
    assert G.backend == "arrays"
    pen = np.zeros((2, G.n_places), np.int32)
    got = G.legal_moves(np.array([0, -1]), penalty=pen)
    m = pos.legal_moves("runner")
    want = np.zeros(G.n_places, np.int32)
    want[m.actions] = m.penalty
    assert m.penalty.max() >= 16
    assert np.array_equal(pen[0], want)
    assert all(np.array_equal(x[0], y) for x, y in zip(
        got, _dense(pos, "runner", {}, G.n_places)))


def _doubles_arguments(G):
    """The layout's compiled call and its arguments between ``budgets`` and ``mask``
    (the ``rest`` its ``answer`` closes over)."""
    from movecore.games.heroscape._batch_doubles import doubles_kernel
    fn = G._own[1]
    cells = dict(zip(fn.__code__.co_freevars, (c.cell_contents for c in fn.__closure__)))
    return doubles_kernel(), cells["rest"]


def test_penalty_steps_tables_equal_the_penalty_kernel():
    """The two-space walkers' penalty queries (and every walker's leaving attacks) over
    the tables of steps give what the penalty kernel on the blobs gives (the path they
    replace: the same call with the tables' columns taken off ``pparams``): ends,
    costs, stops, orientation and attacks, for every figure in play of random games."""
    seen = {"double": 0, "single": 0}
    for seed in range(0, 96, 3):
        play = _state_games(seed, B=8, steps=20)
        if play is None:
            continue
        G = play.games
        K, rest = _doubles_arguments(G)
        kind, pparams = rest[2], rest[21]
        assert pparams.shape[1] == 18     # (the tables' bounds: _batch._pen_shapes)
        slow = list(rest)
        slow[21] = np.ascontiguousarray(pparams[:, :16])
        P = G.n_places
        for f in range(G.F):
            rows = np.flatnonzero(G.alive[:, f]).astype(np.int64)
            figs = np.full(len(rows), f, np.int64)
            buds = np.full(len(rows), int(G._budget[f]), np.int64)
            outs = []
            for r in (rest, tuple(slow)):
                out = (np.zeros((G.B, P), np.uint8), np.full((G.B, P), -1, np.int32),
                       np.zeros((G.B, P), np.int8), np.zeros((G.B, P), np.int32))
                assert K(G.occ, G.cell, G.alive, rows, figs, buds, *r, *out, 1) == 0
                outs.append(out)
            for a, b in zip(*outs):
                assert np.array_equal(a, b), (seed, G.ids[f])
            seen["double" if kind[f] >= 0 else "single"] += int(
                (outs[0][3][rows] > 0).any(axis=1).sum())
    # games where the penalty queries drew attacks, for both kinds of figure
    assert seen["double"] > 10 and seen["single"] > 10, seen


def _walker_states(steps=(6, 14, 30)):
    """(name, BatchedGames) at several points of seeded self-play (8 games each) on the
    bundled battlefields (the published maps, the engaged dragon) and random ones (the
    master game, big and small), for the two-space walkers' checks below."""
    from movecore.tools.selfplay import example_scenarios
    from movecore.tools.selfplay_batch import BatchedPlay
    scen = [(n, s) for n, s in example_scenarios("heroscape")
            if "map_aoa" in n or "engaged" in n]
    for s in range(40, 70):
        sc = random_scenario(s, big=s % 2 == 0)
        sc["options"]["mode"] = "master"
        if len({f["team"] for f in sc["figures"]}) >= 2:
            scen.append((f"random_{s}", sc))
    for name, sc in scen:
        play = BatchedPlay("heroscape", sc, 8, seed=11)
        done = 0
        for k in steps:
            for _ in range(k - done):
                play.step()
            done = k
            yield name, play.games


def test_two_space_walkers_in_reach_equal_the_slow_search():
    """A two-space walker with an enemy in reach (the penalty search over its kind's
    table of steps: at the budget only the steps that cost 0 are tried, a tried step's
    state is tested first; each pair's orientation read from the search's own cell
    stamps, ``kernels.reach_pen.pen_row_of``) answers as the penalty kernel on the
    blob (the same call with the tables' columns taken off ``pparams``) and as its
    position: ends, costs, stops and the listed orientation, with and without leaving
    attacks asked (self-play asks none), in every game of seeded self-play on the
    published battlefields and random ones."""
    seen = dict(queries=0, attacked=0, positions=0)
    for name, G in _walker_states():
        K, rest = _doubles_arguments(G)
        kind, passes, leaves, pparams = rest[2], rest[3], rest[4], rest[21]
        slow = list(rest)
        slow[21] = np.ascontiguousarray(pparams[:, :16])
        P = G.n_places
        for f in range(G.F):
            if kind[f] < 0 or passes[f] or not leaves[f]:
                continue            # (a two-space walker drawing leaving attacks)
            rows = np.flatnonzero(G.alive[:, f]).astype(np.int64)
            figs = np.full(len(rows), f, np.int64)
            buds = np.full(len(rows), int(G._budget[f]), np.int64)
            for want in (0, 1):
                outs = []
                for r in (rest, tuple(slow)):
                    out = (np.zeros((G.B, P), np.uint8), np.full((G.B, P), -1, np.int32),
                           np.zeros((G.B, P), np.int8), np.zeros((G.B, P), np.int32))
                    pen = out[3] if want else np.zeros((0, 0), np.int32)
                    assert K(G.occ, G.cell, G.alive, rows, figs, buds, *r, *out[:3], pen,
                             want) == 0
                    outs.append(out)
                for a, b in zip(*outs):
                    assert np.array_equal(a, b), (name, G.ids[f], want)
                seen["attacked"] += want * int((outs[0][3][rows] > 0).any(axis=1).sum())
            seen["queries"] += len(rows)
            for b in rows[:2].tolist():     # (and its position: the slow path's own)
                got = [x[b] for x in outs[0][:3]]
                assert all(np.array_equal(x, y) for x, y in zip(
                    got, _dense(G.position(b), G.ids[f], {}, P))), (name, b, G.ids[f])
                seen["positions"] += 1
    # (games whose walker drew leaving attacks: the penalty search ran there)
    assert seen["queries"] > 400 and seen["attacked"] > 40 and \
        seen["positions"] > 120, seen


def test_kept_ends_of_movers_that_pass_every_figure():
    """A two-space flyer's or phantom walker's moves from its kind's kept ends (each pair
    of spaces once by the kept flag of which orientation is listed, the occupied
    placements left out) equal its position's ``legal_moves``: every such figure in
    play of random games, and what the kept ends of one start hold."""
    checked = 0
    for seed in range(0, 120, 2):
        play = _state_games(seed, B=6, steps=15)
        if play is None:
            continue
        G = play.games
        K, rest = _doubles_arguments(G)
        kind, passes, flip = rest[2], rest[3], rest[7]
        tab_at, tab_ptr, tab = rest[-7], rest[-5], rest[-4]
        P = G.n_places
        for f in np.flatnonzero((kind >= 0) & passes & (tab_at >= 0)).tolist():
            # the kept flag: 1 exactly where the placement's flip is an end with a
            # lesser (cost, stopped, placement) -- the listed one of the pair (the
            # rule written out here, not rules.placement_key)
            for s in range(0, P, 37):
                lo, hi = tab_ptr[tab_at[f] + s], tab_ptr[tab_at[f] + s + 1]
                label = {int(n): (int(c), int(st != 0), int(n)) for n, c, st in
                         zip(tab[0, lo:hi], tab[1, lo:hi], tab[2, lo:hi])}
                assert [int(label.get(int(flip[n]), (1 << 30,)) < label[n]) for n in
                        label] == tab[3, lo:hi].tolist()
            figs = np.where(G.alive[:, f], f, -1)
            mask, cost, stop = G.legal_moves(figs)
            for b in np.flatnonzero(figs >= 0).tolist():
                want = _dense(G.position(b), G.ids[f], {}, P)
                assert all(np.array_equal(x[b], y) for x, y in zip(
                    (mask, cost, stop), want)), (seed, b, G.ids[f])
                checked += 1
    assert checked > 40, checked


def _packed_vs_rows(scenarios, steps=(0, 8, 20), B=8, mutate=None) -> dict:
    """Every two-space figure in play that takes kept ends (flyers, phantom walkers,
    walkers with no one but friends in reach), in games of ``scenarios`` after each
    of ``steps`` self-play steps: the call reading the kept ends' packed row (bits 0)
    against the same call reading their four rows (``NO_PACKED_KEPT``, the path
    before it): mask, cost and stop; counted where the packed row was read (a packed
    row one cost dearer changes the answer). ``mutate(tab)`` breaks the packed row."""
    from movecore.games.heroscape import _batch_doubles as BD
    from movecore.tools.selfplay_batch import BatchedPlay
    seen = dict.fromkeys(("answers", "kept", "flyers", "walkers", "starts"), 0)
    for name, sc in scenarios:
        if len({f["team"] for f in sc["figures"]}) < 2:
            continue
        play = BatchedPlay("heroscape", sc, B, seed=5)
        G = play.games
        K, rest = _doubles_arguments(G)
        kind, passes = rest[2], rest[3]
        flip, tab_at, tab_ptr, tab = rest[7], rest[-7], rest[-5], rest[-4]
        figs_k = np.flatnonzero((kind >= 0) & (tab_at >= 0)).tolist()
        if not figs_k:
            continue
        assert tab.shape[0] == 5, name
        P = G.n_places
        # the packed row, worked out again from the four: each start's ends kept (row
        # 3 is 0) by placement, -1 after them where fewer
        for f in figs_k:
            for s in range(0, P, 5):
                lo, hi = tab_ptr[tab_at[f] + s], tab_ptr[tab_at[f] + s + 1]
                keep = tab[3, lo:hi] == 0
                want = sorted(zip(tab[0, lo:hi][keep].tolist(), tab[1, lo:hi][keep].tolist(),
                                  tab[2, lo:hi][keep].tolist()))
                word = [int(w) for w in tab[4, lo:hi]]
                got = [(w & 0xFFFF, (w >> 16) & 0x3FFF, w >> 30) for w in word[:len(want)]]
                assert got == [(a, c, int(d != 0)) for a, c, d in want], (name, f, s)
                assert word[len(want):len(want) + 1] in ([], [-1]), (name, f, s)
                # (each pair once: no kept end's flip is kept too)
                kept_nodes = {a for a, _, _ in want}
                assert not any(flip[a] in kept_nodes and flip[a] != a for a in kept_nodes)
                seen["starts"] += 1
        # (the packed row with every end one cost dearer: the answers it changes are
        # the ones read from the packed row)
        dear = rest[:-4] + (_cost_off(tab.copy()),) + rest[-3:]
        if mutate is not None:
            rest = rest[:-4] + (mutate(tab.copy()),) + rest[-3:]
        for t in range(max(steps) + 1):
            if t in steps:
                for f in figs_k:
                    rows = np.flatnonzero(G.alive[:, f] & ~play.done).astype(np.int64)
                    if not len(rows):
                        continue
                    figs = np.full(len(rows), f, np.int64)
                    buds = np.full(len(rows), int(G._budget[f]), np.int64)
                    outs = []
                    for bits, args in ((0, rest), (BD.NO_PACKED_KEPT, rest), (0, dear)):
                        out = (np.zeros((G.B, P), np.uint8),
                               np.full((G.B, P), -1, np.int32), np.zeros((G.B, P), np.int8))
                        assert K(G.occ, G.cell, G.alive, rows, figs, buds, *args, *out,
                                 np.zeros((0, 0), np.int32), bits) == 0
                        outs.append(out)
                    for a, c in zip(outs[0], outs[1]):
                        assert np.array_equal(a[rows], c[rows]), (name, t, G.ids[f])
                    seen["answers"] += len(rows)
                    kept = int((outs[0][1][rows] != outs[2][1][rows]).any(1).sum())
                    seen["kept"] += kept
                    seen["flyers" if passes[f] else "walkers"] += kept
            play.step()
    return seen


def _cost_off(tab):
    """``tab`` (``static_ends``' rows) with every packed kept end one cost dearer."""
    tab[4, tab[4] >= 0] += 1 << 16
    return tab


def test_packed_kept_ends_equal_the_four_rows():
    """The two-space call's kept ends read from their packed row (one word an end, the
    listed placement of each pair alone, by placement) answer what the four rows in the
    kernel's order answer (the path before it, ``NO_PACKED_KEPT``), for the flyers and the
    walkers that take them on the bundled battlefields and random big ones; the packed
    row is the four rows' kept ends; and a packed row broken gives other answers."""
    from movecore.tools.selfplay import example_scenarios
    big = [(f"big_{s}", random_scenario(s, big=True)) for s in range(12)]
    for _, sc in big[1::2]:     # (no leaving attacks: more walkers take kept ends)
        sc["options"]["mode"] = "basic"
    scen = example_scenarios("heroscape") + big
    seen = _packed_vs_rows(scen, steps=(0, 6, 14, 24, 36), B=16)
    assert seen["flyers"] > 600 and seen["walkers"] > 300 and seen["starts"] > 2000, seen

    def last_lost(tab):         # (each start's last kept end dropped)
        for e in range(1, tab.shape[1]):
            if tab[4, e] == -1 and tab[4, e - 1] >= 0:
                tab[4, e - 1] = -1
        return tab
    for mutate in (_cost_off, last_lost):
        with pytest.raises(AssertionError):
            _packed_vs_rows(scen[:1], steps=(0,), mutate=mutate)


# ---------------------------------------------------------------- the compiled step
def _compiled_vs_array(scenarios, policy, threads, steps, B=16, seed=7) -> dict:
    """Plays every scenario on the compiled step (:mod:`movecore.tools._selfplay_heroscape`)
    and on the array path (``fused=False``) with the same random numbers; after every
    step the two hold the same answers (every game's legal ends, costs and stop codes:
    ``_out``), figures, occupant rows (engagement codes), actors, turns and counters
    (AssertionError at the first difference). Returns what the runs did (the array
    path's ``last``): moves, two-space moves, removals, removals of or by a two-space
    figure, games reset; and the compiled step's one-space moves answered from the kept
    ends (``games.heroscape._kept.kept_tables``)."""
    from movecore.tools.selfplay_batch import BatchedPlay
    seen = dict.fromkeys(("moves", "double_moves", "removals", "double_removals",
                          "resets", "kept"), 0)
    for name, sc in scenarios:
        a = BatchedPlay("heroscape", sc, B, seed=seed, policy=policy, threads=threads)
        b = BatchedPlay("heroscape", sc, B, seed=seed, policy=policy, fused=False)
        assert a.fused and not b.fused, name
        double = a.games._selfplay["consts"][0]
        for i in range(steps):
            a.step()
            b.step()
            ga, gb = a.games, b.games
            assert all(np.array_equal(x, y) for x, y in zip(a._out, b._out)), (name, i)
            assert np.array_equal(ga.cell, gb.cell), (name, i)
            assert np.array_equal(ga.alive, gb.alive), (name, i)
            assert np.array_equal(ga.occ, gb.occ), (name, i)
            assert np.array_equal(a.actor, b.actor), (name, i)
            assert np.array_equal(a.turn, b.turn), (name, i)
            assert a.counts == b.counts, (name, i)
            figs, _, rg, rf, reset = b.last
            seen["moves"] += int((figs >= 0).sum())
            seen["double_moves"] += int(double[figs[figs >= 0]].sum())
            seen["removals"] += len(rf)
            seen["double_removals"] += sum(bool(double[g] or double[figs[r]])
                                           for r, g in zip(rg, rf))
            seen["resets"] += len(reset)
        seen["kept"] += getattr(a, "kept_ends_used", 0)
        assert not a.games._live, name          # (no game was asked on a position)
    return seen


def _step_scenarios(seeds) -> list:
    from movecore.tools.selfplay import example_scenarios
    return example_scenarios("heroscape") + _scenarios(seeds)


#: (threads, policy): the first two cover each thread count and each policy (every run);
#: the other two are the soak tier's (``tests/conftest.py``, ``SLOW``)
_STEP_CASES = [(1, "random"), (2, "greedy"), (1, "greedy"), (2, "random")]


@pytest.mark.parametrize("threads,policy", _STEP_CASES)
def test_compiled_step_equals_array_path(threads, policy):
    """``BatchedPlay`` runs Heroscape's compiled step (one call per thread): on the
    bundled battlefields and random ones, the array path's answers and choices for the
    same random numbers -- the moves (greedy: nearest over both spaces), the engagement
    codes they rewrite, the removals (either space of a two-space figure), the games
    reset and the counters; 1 and 2 threads alike."""
    seen = _compiled_vs_array(_step_scenarios(range(12)), policy, threads, steps=40)
    assert seen["double_moves"] > 200 and seen["double_removals"] > 10, seen
    assert seen["resets"] > 10, seen
    # the kept ends answered a good share of the one-space moves (the fast path runs)
    assert seen["kept"] > 0.1 * (seen["moves"] - seen["double_moves"]), seen


@pytest.mark.slow
@pytest.mark.parametrize("policy", ["random", "greedy"])
def test_compiled_step_equals_array_path_long(policy):
    seen = _compiled_vs_array(_scenarios(range(100, 125)), policy, 2, steps=80, seed=3)
    assert seen["moves"] >= 20_000 and seen["kept"] > 2_000, seen


def test_the_step_with_one_two_space_call_a_game_equals_the_array_path(monkeypatch):
    """The step's two-space figures answered one call a game (``DOUBLES_AT_ONCE`` off:
    the step before one call a chunk, kept for A/B runs) plays as the array path too."""
    from movecore.tools import _selfplay_heroscape as H
    monkeypatch.setattr(H, "RULES", H.RULES & ~H.DOUBLES_AT_ONCE)
    seen = _compiled_vs_array(_step_scenarios(range(4)), "random", 2, steps=20)
    assert seen["double_moves"] > 50, seen


@pytest.mark.parametrize("rule", ["NEIGHBOUR_CODES", "REMOVAL_SPACES", "GREEDY_SPACES"])
def test_turning_a_rule_of_the_step_off_fails(monkeypatch, rule):
    """Each rule of the compiled step, turned off, makes the differential above fail
    (it can fail): the codes of the figures next to a move's places, the removal's
    neighbours of a two-space figure's second space, greedy distances over both
    spaces."""
    from movecore.tools import _selfplay_heroscape as H
    monkeypatch.setattr(H, "RULES", H.RULES & ~getattr(H, rule))
    policy = "greedy" if rule == "GREEDY_SPACES" else "random"
    with pytest.raises(AssertionError):
        _compiled_vs_array(_step_scenarios(range(12)), policy, 1, steps=40)


@pytest.mark.parametrize("bit", ["BREAK_FRIENDS", "BREAK_REACH", "BREAK_FAR",
                                 "NO_WALKER_SEARCH"])
def test_breaking_the_kept_ends_rule_fails(monkeypatch, bit):
    """The kept ends' rule broken makes the differential above fail (it can fail): the
    friends' spaces kept as ends, the kept ends taken whoever stands within reach, or
    with a figure one cost nearer than the budget; or a two-space walker's (the
    timing-only switch of ``benches/heroscape_search_bound.py``: it does answer
    otherwise)."""
    from movecore.tools import _selfplay_heroscape as H
    monkeypatch.setattr(H, "RULES", H.RULES | getattr(H, bit))
    with pytest.raises(AssertionError):
        _compiled_vs_array(_step_scenarios(range(12)), "random", 1, steps=40)


def test_kept_ends_reach_covers_the_query():
    """The kept ends' reach table (``near``: least costs with nothing that stops a move)
    is never above the least cost of any end of the query itself from the same start
    on the empty battlefield, and the kept ends are that query's: for every one-space
    kind of random battlefields (stops, climbs, water, glyphs)."""
    from movecore.games.heroscape._kept import kept_tables
    from movecore.reach.compiled import reach1_general
    from movecore.tools.selfplay_batch import BatchedPlay
    checked = 0
    for name, sc in _step_scenarios(range(20)):
        play = BatchedPlay("heroscape", sc, 2, seed=1)
        G = play.games
        kept_at, codes, ptr, kept, near, far = kept_tables(G)
        N = G.occ.shape[1]
        ends = np.zeros((3, N), np.int32)
        query = np.zeros((1, 3), np.int64)
        for f in np.flatnonzero(kept_at >= 0).tolist():
            k, sh, bud = int(kept_at[f]), int(G._shape_of[f]), int(G._budget[f])
            blob = G._blobs[G._blob_at[sh]:G._blob_at[sh + 1]]
            qf = G._qflags[G._qflags_at[sh]:G._qflags_at[sh + 1]]
            zc = G._zoc[G._zoc_at[sh]:G._zoc_at[sh + 1]]
            for s in range(0, N, 3):
                row = np.full(N, -1, np.int32)
                row[s] = codes[k]
                query[0] = s, bud, 0
                m = reach1_general(blob, row, qf, zc, G._params[sh], G._bufs[0].copy(),
                                   ends, query, 0, 0)
                got = kept[:, ptr[k * N + s]:ptr[k * N + s + 1]]
                assert sorted(map(tuple, got.T.tolist())) == \
                    sorted(map(tuple, ends[:, :m].T.tolist())), (name, f, s)
                assert (near[k * N + s, ends[0, :m]] <= ends[1, :m]).all(), (name, f, s)
                checked += 1
            # no step costs 0 on these battlefields: a figure at the budget is far
            assert far[k] == bud, (name, f)
    assert checked > 500, checked


def _figure_spaces(G, rest, b, j) -> tuple:
    """The spaces of figure slot ``j`` in game ``b`` (two for a two-space figure);
    ``rest``: the layout's call arguments (:func:`_doubles_arguments`)."""
    kind, lead, trail = rest[2], rest[5], rest[6]
    x = int(G.cell[b, j])
    return (int(lead[x]), int(trail[x])) if kind[j] >= 0 else (x,)


def _enemy_within(G, rest, b, f, reach) -> bool:
    """Whether an enemy of slot ``f`` in game ``b`` has a space within grid distance
    ``reach`` of one of ``f``'s (the position's ``relevant``)."""
    team, coords = rest[0], rest[8]
    mine = _figure_spaces(G, rest, b, f)

    def hexd(a, c):
        dq, dr = coords[c] - coords[a]
        return (abs(dq) + abs(dr) + abs(dq + dr)) // 2
    return any(min(hexd(a, c) for a in mine for c in _figure_spaces(G, rest, b, j))
               <= reach for j in range(G.F)
               if j != f and G.alive[b, j] and team[j] != team[f])


def test_kept_ends_of_two_space_walkers():
    """A two-space walker with no enemy in reach for leaving attacks and no figure but
    friends it passes (not engaged) on a space within its budget's reach
    (``_batch_doubles.walker_near``; one at the budget is met there, if at all:
    ``walker_far``) takes its kind's kept ends: on the bundled
    battlefields and big random ones (heights, water, engaged figures, flyers; half of
    them in the basic game: no leaving attacks, enemies in reach of the rule), every
    walker's answer in every game equals the plain query's (the same call with the
    kept ends turned off) and, where the kept ends are taken, its position's
    ``legal_moves``, and the rule before ``walker_far`` bounded the figures too
    (``NO_FIGURES_FAR``: none at the budget either); the rule broken (kept ends taken
    whoever stands in reach) gives other answers; the reach is below the cost of every
    kept end."""
    from movecore.games.heroscape import _batch_doubles as BD
    from movecore.tools.selfplay import example_scenarios
    from movecore.tools.selfplay_batch import BatchedPlay
    seen = dict.fromkeys(("queries", "kept", "friends", "broken", "positions", "edge"),
                         0)
    big = [(f"big_{s}", random_scenario(s, big=True)) for s in range(24)]
    for _, sc in big[1::2]:     # no leaving attacks: enemies near a walker's kept ends
        sc["options"]["mode"] = "basic"
    for name, sc in example_scenarios("heroscape") + big:
        if len({f["team"] for f in sc["figures"]}) < 2:
            continue
        play = BatchedPlay("heroscape", sc, 8, seed=3)
        G = play.games
        K, rest = _doubles_arguments(G)
        team, kind, passes, leaves = (rest[i] for i in (0, 2, 3, 4))
        lead, trail = rest[5], rest[6]
        tab_at, tab_ptr, tab, near_at, near, near_far = rest[-7], rest[-5], rest[-4], \
            rest[-3], rest[-2], rest[-1]
        walkers = np.flatnonzero((kind >= 0) & ~passes & (near_at >= 0)).tolist()
        P = G.n_places
        for f in walkers:     # the reach is below every kept end's cost, both spaces
            for s in range(0, P, 7):
                got = tab[:, tab_ptr[tab_at[f] + s]:tab_ptr[tab_at[f] + s + 1]]
                for sp in (lead, trail):
                    assert (near[near_at[f] + s, sp[got[0]]] <= got[1]).all(), name
        for _ in range(8 if walkers else 0):
            for f in walkers:
                rows = np.flatnonzero(G.alive[:, f] & ~play.done).astype(np.int64)
                figs = np.full(len(rows), f, np.int64)
                buds = np.full(len(rows), int(G._budget[f]), np.int64)
                outs = []
                for bits in (0, BD.NO_KEPT_WALKERS, BD.BREAK_KEPT_WALKERS,
                             BD.NO_FIGURES_FAR):
                    out = (np.zeros((G.B, P), np.uint8), np.full((G.B, P), -1, np.int32),
                           np.zeros((G.B, P), np.int8))
                    assert K(G.occ, G.cell, G.alive, rows, figs, buds, *rest, *out,
                             np.zeros((0, 0), np.int32), bits) == 0
                    outs.append(out)
                for a, c, d in zip(outs[0], outs[1], outs[3]):
                    assert np.array_equal(a, c) and np.array_equal(a, d), (name, G.ids[f])
                seen["queries"] += len(rows)
                seen["broken"] += sum(not np.array_equal(a, c)
                                      for a, c in zip(outs[1], outs[2]))
                bud = int(G._budget[f])
                for b in rows.tolist():      # the kept ends' rule, worked out here
                    others = [(j, _figure_spaces(G, rest, b, j)) for j in range(G.F)
                              if j != f and G.alive[b, j]]
                    if leaves[f] and _enemy_within(G, rest, b, f, bud + 3):
                        continue
                    row = near[near_at[f] + G.cell[b, f]]
                    within = [x for _, xs in others for x in xs if row[x] < near_far[f]]
                    if any(G.occ[b, x] != team[f] for x in within):
                        continue
                    seen["kept"] += 1
                    seen["friends"] += bool(within)
                    # (a figure not a friend it passes at the budget: kept since
                    # walker_far bounds the figures too)
                    seen["edge"] += any(G.occ[b, x] != team[f] and row[x] <= bud
                                        for _, xs in others for x in xs)
                    if seen["positions"] < 20 or within and seen["positions"] < 40:
                        want = _dense(G.position(b), G.ids[f], {}, P)
                        assert all(np.array_equal(x[b], y) for x, y in zip(
                            outs[0], want)), (name, b, G.ids[f])
                        seen["positions"] += 1
            play.step()
    assert seen["kept"] > 100 and seen["friends"] > 10 and seen["broken"] > 0 and \
        seen["edge"] > 10, seen


def _leave_far_scenarios(seeds, cliffs) -> list:
    """The bundled battlefields, big random ones (the master game: leaving attacks; room
    for a walker with an enemy in reach but none next to its reach) and as many again
    with cliffs (levels 1, 2 and 8, tall figures, no water: an enemy out of a walker's
    reach with a space next to it in reach, where the rule's second half decides)."""
    from movecore.tools.selfplay import example_scenarios
    out = list(example_scenarios("heroscape"))
    for s in seeds:
        sc = random_scenario(s, big=True)
        sc["options"]["mode"] = "master"
        out.append((f"big_{s}", sc))
    for s in cliffs:
        sc = random_scenario(s, big=True)
        sc["options"]["mode"] = "master"
        rng = random.Random(s + 7)
        for c in sc["board"]["cells"]:
            c["level"] = rng.choice([1, 1, 1, 2, 8])
            if c["terrain"] in ("water", "lava"):
                c["terrain"] = "grass"
        for f in sc["figures"]:
            f["height"] = rng.choice([5, 8, 9])
        out.append((f"cliffs_{s}", sc))
    return [(n, sc) for n, sc in out if len({f["team"] for f in sc["figures"]}) >= 2]


def _walkers_far_from_enemies(seeds, cliffs, steps, B=8) -> dict:
    """Every two-space walker drawing leaving attacks, in every game of ``steps`` steps
    of seeded self-play on :func:`_leave_far_scenarios`, answered with the kept ends
    for a walker whose enemies in reach have no space next to them in its reach below
    the budget (``_batch_doubles.walker_far``), equals the same call without them (its
    penalty search), with and without leaving attacks asked; where that rule (worked
    out here again) takes them, its position's ``legal_moves`` too. Counts the games."""
    from movecore.games.heroscape import _batch_doubles as BD
    from movecore.tools.selfplay_batch import BatchedPlay
    seen = dict.fromkeys(("queries", "taken", "broken", "positions"), 0)
    seen["taken_near_enemies"] = 0
    for name, sc in _leave_far_scenarios(seeds, cliffs):
        play = BatchedPlay("heroscape", sc, B, seed=5)
        G = play.games
        K, rest = _doubles_arguments(G)
        team, height, kind, passes, leaves = (rest[i] for i in range(5))
        level, nbr = rest[9], rest[10]
        near_at, near, near_far = rest[-3], rest[-2], rest[-1]
        walkers = np.flatnonzero((kind >= 0) & ~passes & leaves & (near_at >= 0)).tolist()
        P = G.n_places
        def spaces(b, j):
            return _figure_spaces(G, rest, b, j)
        for _ in range(steps if walkers else 0):
            for f in walkers:
                rows = np.flatnonzero(G.alive[:, f] & ~play.done).astype(np.int64)
                figs = np.full(len(rows), f, np.int64)
                bud = int(G._budget[f])
                buds = np.full(len(rows), bud, np.int64)
                for want in (0, 1):
                    outs = []
                    for bits in (0, BD.NO_LEAVE_FAR, BD.BREAK_LEAVE_FAR):
                        out = (np.zeros((G.B, P), np.uint8),
                               np.full((G.B, P), -1, np.int32),
                               np.zeros((G.B, P), np.int8), np.zeros((G.B, P), np.int32))
                        pen = out[3] if want else np.zeros((0, 0), np.int32)
                        assert K(G.occ, G.cell, G.alive, rows, figs, buds, *rest,
                                 *out[:3], pen, bits | want) == 0
                        outs.append(out)
                    for a, c in zip(outs[0], outs[1]):
                        assert np.array_equal(a, c), (name, G.ids[f], want)
                    seen["broken"] += int(sum((a[rows] != c[rows]).any(axis=1)
                                              for a, c in zip(outs[1], outs[2])).sum())
                seen["queries"] += len(rows)
                for b in rows.tolist():      # the rule, worked out here again
                    if not _enemy_within(G, rest, b, f, bud + 3):
                        continue            # (no enemy in reach: the rule before)
                    row = near[near_at[f] + G.cell[b, f]]
                    if any(row[x] < near_far[f] and G.occ[b, x] != team[f]
                           for j in range(G.F) if j != f and G.alive[b, j]
                           for x in spaces(b, j)):
                        continue            # a figure in reach: the search
                    j_h = [(xs, height[j]) for j in range(G.F) for xs in [spaces(b, j)]
                           if G.alive[b, j] and team[j] != team[f]]
                    if any(c >= 0 and level[c] - level[ce] < hj and
                           level[ce] - level[c] < height[f] and row[c] < near_far[f]
                           for xs, hj in j_h for ce in xs for c in nbr[ce]):
                        continue            # a space next to an enemy in reach
                    seen["taken"] += 1
                    # (an enemy's neighbour within the budget's reach: what the rule's
                    # second half reads, at or beyond near_far)
                    seen["taken_near_enemies"] += any(
                        c >= 0 and row[c] <= bud for xs, _ in j_h for ce in xs
                        for c in nbr[ce])
                    if seen["positions"] < 60:
                        want_ = _dense(G.position(b), G.ids[f], {}, P)
                        assert all(np.array_equal(x[b], y) for x, y in zip(
                            outs[0][:3], want_)), (name, b, G.ids[f])
                        seen["positions"] += 1
            play.step()
    return seen


def test_two_space_walkers_far_from_enemies_take_kept_ends():
    """:func:`_walkers_far_from_enemies` on the bundled battlefields, 8 big random ones
    and 30 with cliffs (the long variant's 40 and 140: the soak tier); the rule broken
    (the kept ends taken whether or not a space next to an enemy is in reach:
    ``BREAK_LEAVE_FAR``) gives other answers."""
    seen = _walkers_far_from_enemies(range(8), range(30), steps=30, B=16)
    assert seen["taken"] > 500 and seen["taken_near_enemies"] > 20 and \
        seen["positions"] >= 60 and seen["broken"] > 0, seen


@pytest.mark.slow
def test_two_space_walkers_far_from_enemies_take_kept_ends_more():
    seen = _walkers_far_from_enemies(range(8, 16), range(30, 60), steps=30, B=16)
    assert seen["taken"] > 250 and seen["broken"] > 0, seen


@pytest.mark.slow
def test_two_space_walkers_far_from_enemies_take_kept_ends_long():
    seen = _walkers_far_from_enemies(range(100, 140), range(100, 240), steps=30, B=16)
    assert seen["taken"] > 3000 and seen["broken"] > 10, seen


def _built(scenarios, B, seed):
    """``(name, BatchedPlay)`` of each of ``scenarios`` that builds (one thread)."""
    from movecore.tools.selfplay_batch import BatchedPlay
    for name, sc in scenarios:
        try:
            yield name, BatchedPlay("heroscape", sc, B, seed=seed, threads=1)
        except mc.errors.MovecoreError:
            continue


def _bits_vs_kernel(scenarios, steps=6, B=32, seed=5, mutate=None) -> dict:
    """A one-space query as bit sets (``_bits.one_bits``) against the kernel it stands
    in for (``reach1_general``): from every one-space figure's space in every game of
    ``steps`` self-play steps (the compiled step's states), with the games' own rows and
    with their figures' codes shuffled over the battlefield (figures on water, glyphs,
    next to obstacles), budgets 0, 1, the figure's and 3 more; the same ends, costs and
    stops, each end listed once. ``mutate(Z)`` -> Z: broken tables (the check must
    fail). Returns counts (queries, ends, shapes taken / not)."""
    from movecore.games.heroscape._bits import bit_tables, one_bits, scratch_words
    from movecore.kernels._types import OCC_EMPTY
    from movecore.reach.compiled import reach1_general
    rng = np.random.default_rng(seed)
    seen = dict.fromkeys(("queries", "ends", "stopped", "taken", "not_taken"), 0)
    for name, play in _built(scenarios, B, seed):
        G = play.games
        Z = bit_tables(G, play.coords)
        if mutate is not None:
            Z = mutate(Z)
        ok = Z[0]
        seen["taken"] += int(ok.sum())
        seen["not_taken"] += int(len(ok) - ok.sum())
        N = G.occ.shape[1]
        double = np.asarray(G._selfplay["consts"][0], bool)
        budget = np.asarray(G._budget, np.int64)
        lay = np.zeros(scratch_words(Z, int(budget.max()) + 3), np.uint64)
        buf, ends = G._bufs[0], np.zeros((3, N), np.int32)
        query = np.zeros((1, 3), np.int64)
        for _ in range(steps):
            play.step()
            for b in range(B):
                rows = [G.occ[b].copy()]
                shuffled = np.full(N, OCC_EMPTY, np.int32)
                shuffled[rng.permutation(N)] = rows[0]
                rows.append(shuffled)
                for f in range(G.F):
                    if double[f] or not G.alive[b, f] or budget[f] < 0:
                        continue
                    start = int(G.cell[b, f])
                    sh = int(G._shape_of[f] + G._shape_cell[start])
                    if not ok[sh]:
                        continue
                    blob = G._blobs[G._blob_at[sh]:G._blob_at[sh + 1]]
                    qf = G._qflags[G._qflags_at[sh]:G._qflags_at[sh + 1]]
                    zc = G._zoc[G._zoc_at[sh]:G._zoc_at[sh + 1]]
                    for occ in rows:
                        for bud in sorted({0, 1, int(budget[f]), int(budget[f]) + 3}):
                            query[0, :2] = start, bud
                            m = reach1_general(blob, occ, qf, zc, G._params[sh], buf,
                                               ends, query, 0, 0)
                            want = sorted(map(tuple, ends[:, :m].T.tolist()))
                            m = one_bits(Z, sh, occ, G._params[sh], start, bud, lay, ends)
                            got = sorted(map(tuple, ends[:, :m].T.tolist()))
                            assert got == want, (name, b, f, bud)
                            seen["queries"] += 1
                            seen["ends"] += m
                            seen["stopped"] += sum(e[2] for e in got)
    return seen


def test_one_space_queries_as_bit_sets_equal_the_kernel():
    """``_bits.one_bits`` gives ``reach1_general``'s ends, costs and stops on every
    bundled battlefield and random ones (levels with drops, water, lava, glyphs,
    obstacles; Ghost Walk; both climb limits), and its tables take the bundled kinds."""
    from movecore.tools.selfplay import example_scenarios
    bundled = example_scenarios("heroscape")
    seen = _bits_vs_kernel(bundled + _scenarios(range(10)))
    assert seen["queries"] > 40_000 and seen["stopped"] > 50_000, seen
    assert seen["taken"] >= 2 * len(bundled), seen


@pytest.mark.parametrize("how", ["offset", "cost", "stop", "no_end"])
def test_bit_set_check_fails_on_broken_tables(how):
    """The check above fails with the tables broken: a direction's offset one bit off,
    every step's cost class moved one up, the stopping cells forgotten, the cells
    never ended on forgotten."""
    from movecore.tools.selfplay import example_scenarios

    def mutate(Z):
        Z = list(Z)
        if how == "offset":
            Z[1] = Z[1].copy()
            Z[1][0] += 1
        elif how == "cost":
            Z[2] = np.concatenate([np.zeros_like(Z[2][:, :, :1]), Z[2]], axis=2)
            Z[7] = np.concatenate([np.zeros_like(Z[7][:, :, :1]), Z[7]], axis=2)
        elif how == "stop":
            Z[3] = np.zeros_like(Z[3])
        else:
            Z[4] = np.zeros_like(Z[4])
        return tuple(Z)

    with pytest.raises(AssertionError):
        _bits_vs_kernel(example_scenarios("heroscape") + _scenarios(range(10)), steps=4,
                        mutate=mutate)


def _pair_bits_vs_kernel(scenarios, steps=3, B=8, seed=3, mutate=None) -> dict:
    """A two-space walker's plain query as bit sets (``_bits2.pair_bits``) against the
    kernel's (``reach1_ordered`` and the pairs' pass: ``NO_PAIR_BITS``) and its penalty
    search (``NO_PAIR_BITS | NO_PLAIN_UNASKED``: the call before either), without
    leaving attacks asked and without kept ends (``NO_KEPT_WALKERS``): every two-space
    walker in every game of ``steps`` self-play steps, on the game's own row and on one
    with the figures' codes shuffled over the battlefield and the walker on a random
    placement, budgets 0, 1, its own and 3 more: the same mask, costs and stops (each
    pair of spaces once, as its least ``placement_key``). ``mutate(bat, btab)`` ->
    (bat, btab): broken tables (the check must fail). Returns counts."""
    from movecore.games.heroscape import _batch_doubles as BD
    from movecore.kernels._types import OCC_EMPTY
    rng = np.random.default_rng(seed)
    seen = dict.fromkeys(("layouts", "queries", "ends", "stopped", "searched",
                          "not_taken"), 0)
    for name, play in _built(scenarios, B, seed):
        G = play.games
        if G._own is None:
            continue
        K, rest = _doubles_arguments(G)
        kind, passes = rest[2], rest[3]
        walkers = [f for f in range(G.F) if kind[f] >= 0 and not passes[f]]
        if not walkers:
            continue
        rest = list(rest)
        bat, btab = rest[32], rest[33]
        assert bat.dtype == np.int64 and btab.dtype == np.uint64   # (the tables' place)
        if mutate is not None:
            rest[32], rest[33] = mutate(bat.copy(), btab.copy())
        seen["layouts"] += 1
        taken = [f for f in walkers if bat[0] and bat[11 + kind[f]]]
        seen["not_taken"] += len(walkers) - len(taken)
        N, P = G.occ.shape[1], G.n_places
        for _ in range(steps):
            play.step()
            for f in taken:
                k = int(kind[f])
                blob = rest[13][rest[14][k]:rest[14][k + 1]]
                enter = np.flatnonzero(blob[blob[12]:blob[12] + 4 * P:4] >= 0)
                games = np.flatnonzero(G.alive[:, f])
                occ = np.concatenate([G.occ[games], G.occ[games]])
                cell = np.concatenate([G.cell[games], G.cell[games]])
                for i in range(len(games), len(occ)):      # shuffled codes, any start
                    occ[i] = OCC_EMPTY
                    occ[i, rng.permutation(N)] = G.occ[games[i - len(games)]]
                    cell[i, f] = rng.choice(enter)
                alive = np.concatenate([G.alive[games], G.alive[games]])
                rows = np.arange(len(occ), dtype=np.int64)
                figs = np.full(len(rows), f, np.int64)
                for bud in sorted({0, 1, int(G._budget[f]), int(G._budget[f]) + 3}):
                    buds = np.full(len(rows), bud, np.int64)
                    outs = []
                    for bits in (0, BD.NO_PAIR_BITS, BD.NO_PAIR_BITS | BD.NO_PLAIN_UNASKED):
                        out = (np.zeros((len(rows), P), np.uint8),
                               np.full((len(rows), P), -1, np.int32),
                               np.zeros((len(rows), P), np.int8))
                        assert K(occ, cell, alive, rows, figs, buds, *rest, *out,
                                 np.zeros((0, 0), np.int32),
                                 bits | BD.NO_KEPT_WALKERS) == 0
                        outs.append(out)
                    for other in outs[1:]:
                        for a, c in zip(outs[0], other):
                            assert np.array_equal(a, c), (name, G.ids[f], bud)
                    m = outs[0][0] != 0
                    seen["queries"] += len(rows)
                    seen["ends"] += int(m.sum())
                    seen["stopped"] += int((outs[0][2] != 0).sum())
                    seen["searched"] += int(sum(
                        _enemy_within(G, tuple(rest), b, f, bud + 3) for b in games)) \
                        if bud == int(G._budget[f]) else 0
    return seen


def test_two_space_walkers_plain_query_as_bit_sets_equal_the_kernel():
    """``_bits2.pair_bits`` gives the plain query's and the penalty search's ends, costs,
    stops and listed placements (``_pair_bits_vs_kernel``) on the bundled battlefields
    and 150 random ones (levels with drops, water, lava, glyphs, obstacles; both climb
    limits; the master and the basic game), and its tables take the bundled walkers.
    (150 more and the long variant's 1,500: the soak tier.)"""
    from movecore.tools.selfplay import example_scenarios
    seen = _pair_bits_vs_kernel(example_scenarios("heroscape") + _scenarios(range(150)))
    assert seen["layouts"] > 90 and seen["queries"] > 22_000 and \
        seen["stopped"] > 11_500 and seen["searched"] > 2_800 and \
        seen["not_taken"] == 0, seen


@pytest.mark.slow
def test_two_space_walkers_plain_query_as_bit_sets_equal_the_kernel_more():
    seen = _pair_bits_vs_kernel(_scenarios(range(150, 300)))
    assert seen["layouts"] > 75 and seen["not_taken"] == 0, seen


@pytest.mark.slow
def test_two_space_walkers_plain_query_as_bit_sets_equal_the_kernel_long():
    # (~1,000 more battlefields, ~10 s: each one's layout is most of it; a run over
    # 2,500 seeds, 1,657 layouts, 68,092 queries, passed once: docs/performance_log.md)
    seen = _pair_bits_vs_kernel(_scenarios(range(1000, 2500)), steps=1, B=4)
    assert seen["layouts"] > 900 and seen["not_taken"] == 0, seen


@pytest.mark.parametrize("how", ["offset", "cost", "stop", "no_end", "enter", "ties",
                                 "pass"])
def test_pair_bit_set_check_fails_on_broken_tables(how):
    """The check above fails with the tables broken: a direction's offset one bit off,
    every step's cost class moved one up, the stopping placements forgotten, the
    placements never ended on forgotten, one placement that may be entered dropped, the
    pairs settled as ties forgotten (both listed), the pairs where either stops kept
    from the pairs' pass."""
    from movecore.tools.selfplay import example_scenarios

    def mutate(bat, btab):
        W, smax, nk = int(bat[0]), int(bat[1]), int(bat[2])
        planes = btab.reshape(max(nk, 1), 5 + smax, 6, W)
        if how == "offset":
            bat[5] += 1
        elif how == "cost":
            planes[:, 3:3 + smax] = np.concatenate([np.zeros_like(planes[:, 3:4]),
                                                    planes[:, 3:2 + smax]], axis=1)
        elif how == "stop":
            planes[:, 1] = 0
        elif how == "no_end":
            planes[:, 2] = ~np.uint64(0)
        elif how == "ties":
            planes[:, 3 + smax] = 0
        elif how == "pass":
            planes[:, 4 + smax] = 0
        else:
            w = np.flatnonzero(planes[0, 0, 0])[0]
            planes[:, 0, 0, w] &= planes[:, 0, 0, w] - np.uint64(1)
        return bat, btab

    with pytest.raises(AssertionError):
        _pair_bits_vs_kernel(example_scenarios("heroscape") + _scenarios(range(20)),
                             steps=2, mutate=mutate)


@pytest.mark.parametrize("path", ["ONE_BITS", "KTH_BLOCKS", "PACKED_KEPT", "PLAIN_UNASKED",
                                  "PAIR_BITS"])
def test_the_step_without_a_fast_path_equals_the_array_path(monkeypatch, path):
    """The step with its one-space queries by the kernel (``ONE_BITS`` off) or its
    policy's scan place by place (``KTH_BLOCKS`` off) -- the step before each, kept for
    A/B runs -- plays as the array path too."""
    from movecore.tools import _selfplay_heroscape as H
    monkeypatch.setattr(H, "RULES", H.RULES & ~getattr(H, path))
    _compiled_vs_array(_step_scenarios(range(4)), "random", 1, steps=20)


def _codes_from_rows(nbr, cell, alive, consts, b) -> np.ndarray:
    """Game ``b``'s occupant row made from scratch, neighbours read from the
    neighbour rows ``nbr`` (int[N, K], -1 none): each figure in play's team on its
    spaces, plus the number of teams where it is engaged (master game: an enemy on a
    space next to one of its own, the height exception applied)."""
    from movecore.kernels._types import OCC_EMPTY
    double, lead, trail, team, height, level, _, n_teams, master = consts

    def spaces(g):
        x = int(cell[b, g])
        return (int(lead[x]), int(trail[x])) if double[g] else (x,)

    occ = np.full(nbr.shape[0], OCC_EMPTY, np.int32)
    F = cell.shape[1]
    for i in range(F):
        if not alive[b, i]:
            continue
        engaged = master and any(
            x in nbr[c].tolist() and level[c] - level[x] < height[j] and
            level[x] - level[c] < height[i]
            for j in range(F) if j != i and alive[b, j] and team[j] != team[i]
            for c in spaces(i) for x in spaces(j))
        for c in spaces(i):
            occ[c] = team[i] + (n_teams if engaged else 0)
    return occ


def _touching_from_rows(nbr, cell, alive, side_of, consts, b, f, r) -> int:
    """The removal coin's victim (``_selfplay_heroscape._touching_enemy``, both
    spaces), neighbours read from the rows ``nbr``."""
    double, lead, trail = consts[:3]

    def spaces(g):
        x = int(cell[b, g])
        return (int(lead[x]), int(trail[x])) if double[g] else (x,)

    hits = [g for g in range(cell.shape[1]) if alive[b, g] and side_of[g] != side_of[f]
            and any(x in nbr[c].tolist() for c in spaces(f) for x in spaces(g))]
    return hits[int(r * len(hits))] if hits else -1


def _adjacency_vs_rows(scenarios, steps=4, B=8, seed=11, tries=12, mutate=None) -> dict:
    """The moves' neighbour tests by the layout's adjacency bits
    (``_batch.adjacency_bits``: ``_move_one``, ``_engaged``, ``_touching_enemy``)
    against the same tests read from the neighbour rows: in every game of ``steps``
    self-play steps (the compiled step's states), and from ``tries`` random positions a
    game (each figure in or out of play, on random free spaces or placements, the
    codes written whole by ``_batch._codes``, then a random figure moved or taken out
    by ``_batch._move``): every occupant row equals the rows' (:func:`_codes_from_rows`)
    and every removal victim the rows' (:func:`_touching_from_rows`). ``mutate(adj)``
    -> adj: broken bits (the check must fail). Returns counts."""
    from movecore.games.heroscape._batch import _codes, _move, adjacency_bits
    from movecore.kernels._types import OCC_EMPTY
    from movecore.tools._selfplay_heroscape import _touching_enemy
    rng = np.random.default_rng(seed)
    seen = dict.fromkeys(("rows", "engaged", "moves", "victims", "touching"), 0)
    for name, play in _built(scenarios, B, seed):
        G = play.games
        nbr = np.asarray(G.root._st.nbr64)
        consts = list(G._selfplay["consts"])
        want = adjacency_bits(nbr)
        assert consts[6].dtype == np.uint64 and np.array_equal(consts[6], want), name
        if mutate is not None:
            consts[6] = mutate(consts[6].copy())
        consts = tuple(consts)
        double, lead, trail = consts[:3]
        n_teams = consts[7]
        N = nbr.shape[0]
        P = len(lead)
        for _ in range(steps):
            play.step()
            states = [(G.occ.copy(), G.cell.copy(), G.alive.copy())]
            for _ in range(tries):      # random positions of every game
                cell = np.full((B, G.F), -1, np.int32)
                alive = np.zeros((B, G.F), bool)
                for b in range(B):
                    free = np.ones(N, bool)
                    for g in rng.permutation(G.F).tolist():
                        if rng.random() < 0.15:
                            continue
                        if double[g]:
                            ok = np.flatnonzero(free[lead] & free[trail]) if P else []
                            if not len(ok):
                                continue
                            p = int(rng.choice(ok))
                            free[lead[p]] = free[trail[p]] = False
                        else:
                            p = int(rng.choice(np.flatnonzero(free)))
                            free[p] = False
                        cell[b, g], alive[b, g] = p, True
                occ = np.full((B, N), OCC_EMPTY, np.int32)
                for b in range(B):        # (_codes writes one game's rows: game 0's)
                    o = occ[b:b + 1].copy()
                    _codes(o, cell[b:b + 1].copy(), alive[b:b + 1].copy(),
                           np.arange(G.F, dtype=np.int64), *consts)
                    occ[b] = o[0]
                states.append((occ, cell, alive))
            for occ, cell, alive in states:
                for b in range(B):
                    row = _codes_from_rows(nbr, cell, alive, consts, b)
                    assert np.array_equal(occ[b], row), (name, b)
                    seen["rows"] += 1
                    seen["engaged"] += int((row >= n_teams).sum())
                    for f in np.flatnonzero(alive[b]).tolist():
                        r = float(rng.random())
                        got = _touching_enemy(consts[6], cell, alive, play.side_of,
                                              double, lead, trail, b, f, r, True)
                        assert got == _touching_from_rows(nbr, cell, alive, play.side_of,
                                                          consts, b, f, r), (name, b, f)
                        seen["victims"] += 1
                        seen["touching"] += got >= 0
                # one random figure of each game moved (or taken out), codes rewritten
                occ, cell, alive = occ.copy(), cell.copy(), alive.copy()
                rows, figs, to = [], [], []
                for b in range(B):
                    ins = np.flatnonzero(alive[b])
                    if not len(ins):
                        continue
                    f = int(rng.choice(ins))
                    free = np.ones(N, bool)   # (the mover's own spaces free too)
                    for g in ins.tolist():
                        x = int(cell[b, g])
                        for s in ((lead[x], trail[x]) if double[g] else (x,)):
                            free[s] = g == f
                    if double[f]:
                        ok = np.flatnonzero(free[lead] & free[trail])
                    else:
                        ok = np.flatnonzero(free)
                    t = -1 if rng.random() < 0.2 or not len(ok) else int(rng.choice(ok))
                    rows.append(b)
                    figs.append(f)
                    to.append(t)
                _move(occ, cell, alive, np.array(rows, np.int64), np.array(figs, np.int64),
                      np.array(to, np.int64), *consts)
                for b in rows:
                    assert np.array_equal(occ[b], _codes_from_rows(nbr, cell, alive,
                                                                   consts, b)), (name, b)
                    seen["moves"] += 1
    return seen


def test_move_codes_by_adjacency_bits_equal_the_neighbour_rows():
    """The layout's adjacency bits hold exactly the neighbour rows, and the engagement
    codes a move writes (``_batch._move_one``, ``_engaged``: the compiled step's and
    ``BatchedGames.apply``'s) and the removal coin's victims (``_touching_enemy``),
    tested by those bits, are the ones the neighbour rows give: on the bundled
    battlefields and random ones, in self-play states and random positions."""
    from movecore.tools.selfplay import example_scenarios
    seen = _adjacency_vs_rows(example_scenarios("heroscape") + _scenarios(range(10)))
    assert seen["rows"] > 5_000 and seen["engaged"] > 5_000, seen
    assert seen["moves"] > 5_000 and seen["touching"] > 2_000, seen


@pytest.mark.parametrize("how", ["one_direction", "bit_shift"])
def test_adjacency_bit_check_fails_on_broken_bits(how):
    """The check above fails with broken adjacency bits: one neighbour of every space
    forgotten (its lowest bit), or every bit one space up (a bit's index one off)."""
    from movecore.tools.selfplay import example_scenarios

    def mutate(adj):
        if how == "one_direction":
            for c in range(adj.shape[0]):
                for w in range(adj.shape[1]):
                    if adj[c, w]:
                        adj[c, w] &= adj[c, w] - np.uint64(1)
                        break
            return adj
        return adj << np.uint64(1)

    with pytest.raises(AssertionError):
        _adjacency_vs_rows(example_scenarios("heroscape") + _scenarios(range(4)),
                           steps=2, tries=3, mutate=mutate)
