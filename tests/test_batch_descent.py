"""Descent on the batched arrays backend (issue 29) against single live positions.

Random dungeons (doors with and without rune keys, doors to unrevealed areas, pits, ice
that stops or not, water, glyphs, flyers, grapplers and auras, speeds whose door memory
reaches 0-2 links; large monsters of every base, turning or not) in seeded batched
self-play: after every step, every
game's batched mask, costs and stops equal what a single live position answers in the
same state, and every game's figures and doors equal a single position that applied the
same moves with ``apply_move`` (and ``remove_figure``). Every rule of the layout
(``movecore.games.descent._batch``) turned off makes one of these fail."""
from __future__ import annotations

import functools
import random

import numpy as np
import pytest

import movecore as mc
from movecore.batch import BatchedGames
from movecore.errors import IllegalMoveError
from movecore.tools.selfplay_batch import BatchedPlay

from test_batch import _dense, _run_differential


def _dungeon(seed: int) -> dict:
    """A random dungeon of one-square figures, split by a wall with doors."""
    rng = random.Random(seed)
    w, h = rng.randint(6, 9), rng.randint(4, 6)
    wall = rng.randint(2, w - 3)
    rows = []
    for y in range(h):
        row = []
        for x in range(w):
            if x == wall:
                row.append("#")
                continue
            r = rng.random()
            row.append("p" if r < (0.06 if seed % 2 else 0) else "i" if r < 0.12 else
                       "w" if r < 0.16 else ".")
        rows.append(row)
    doors = []
    ys = rng.sample(range(h), rng.randint(1, min(3, h)))
    runes = ["red", "blue"]
    for k, y in enumerate(ys):
        rows[y][wall] = "."
        rows[y][wall - 1] = "."
        rows[y][wall + 1] = "."
        d = {"id": f"d{k}", "between": [[wall - 1, y], [wall, y]]}
        r = rng.random()
        if r < 0.2:
            d["rune"] = rng.choice(runes)
        elif r < 0.35:
            d["leads_to_unrevealed"] = True
        elif r < 0.45:
            d["open"] = True
        doors.append(d)
    free = [(x, y) for y in range(h) for x in range(w) if rows[y][x] == "."]
    rng.shuffle(free)
    figs = []
    for j in range(rng.randint(1, 2)):
        figs.append({"id": f"h{j}", "side": "hero", "at": list(free.pop()),
                     "speed": rng.randint(3, 6)})
    for j in range(rng.randint(1, 3)):
        ab = []
        r = rng.random()
        if r < 0.25:
            ab = ["fly"]
        elif r < 0.4:
            ab = ["grapple"]
        elif r < 0.55:
            ab = [{"aura": 1}]
        figs.append({"id": f"m{j}", "side": "monster", "at": list(free.pop()),
                     "speed": rng.randint(3, 9), "abilities": ab})
    board = {"rows": ["".join(r) for r in rows], "doors": doors}
    if rng.random() < 0.4:
        board["glyphs"] = [list(free.pop())]
    return {"game": "descent", "board": board,
            "options": {"ice": rng.choice(["normal", "stop"])},
            "party": {"rune_keys": rng.sample(runes, rng.randint(0, 1))},
            "figures": figs}


def _dungeons(n: int, first: int = 0) -> list:
    out = []
    seed = first
    while len(out) < n:
        s = _dungeon(seed)
        try:
            mc.position(s)
        except mc.errors.MovecoreError:   # pragma: no cover (a door on a wall end)
            seed += 1
            continue
        out.append((f"dungeon {seed}", s))
        seed += 1
    return out


_BASES = ("1x2", "2x1", "2x2", "2x3", "3x2")


def _large_dungeon(seed: int) -> dict:
    """A random dungeon with large monsters (every base, turning under each
    ``large_turns`` option, with jumps and hound slides or not; some grapple, have an
    aura or fly) beside one-square figures, split by a wall with doors (wide enough
    for a large base to pass where two doors are side by side)."""
    rng = random.Random(seed)
    w, h = rng.randint(8, 11), rng.randint(5, 7)
    wall = rng.randint(3, w - 4)
    rows = []
    for y in range(h):
        row = []
        for x in range(w):
            if x == wall:
                row.append("#")
                continue
            r = rng.random()
            row.append("p" if r < (0.05 if seed % 2 else 0) else "i" if r < 0.09 else
                       "w" if r < 0.12 else "t" if r < 0.14 else ".")
        rows.append(row)
    doors = []
    y0 = rng.randint(0, h - 2)
    ys = [y0, y0 + 1] if rng.random() < 0.6 else [y0]
    for k, y in enumerate(ys):
        for x in (wall - 1, wall, wall + 1):
            rows[y][x] = "."
        d = {"id": f"d{k}", "between": [[wall - 1, y], [wall, y]]}
        r = rng.random()
        if r < 0.2:
            d["leads_to_unrevealed"] = True
        elif r < 0.35:
            d["open"] = True
        doors.append(d)
    taken: set = set()
    free = [(x, y) for y in range(h) for x in range(w) if rows[y][x] == "."]
    rng.shuffle(free)

    def place(size):
        for x, y in free:
            cells = [(x + i, y + j) for j in range(size[1]) for i in range(size[0])]
            if all(0 <= cx < w and 0 <= cy < h and rows[cy][cx] == "." and
                   (cx, cy) not in taken and not (cx == wall and cy not in ys)
                   for cx, cy in cells) and \
                    len({cx < wall for cx, _ in cells} | {cx <= wall for cx, _ in cells}) == 1:
                taken.update(cells)
                return [x, y]
        return None
    figs = []
    for j in range(rng.randint(1, 3)):
        at = place((1, 1))
        figs.append({"id": f"h{j}", "side": "hero", "at": at, "speed": rng.randint(3, 6)})
    for j in range(rng.randint(1, 3)):
        fp = rng.choice(_BASES)
        at = place(tuple(int(v) for v in fp.split("x")))
        if at is None:
            continue
        ab = []
        r = rng.random()
        if r < 0.15:
            ab = ["fly"]
        elif r < 0.25:
            ab = ["grapple"]
        elif r < 0.35:
            ab = [{"aura": 1}]
        figs.append({"id": f"L{j}", "side": "monster", "at": at, "footprint": fp,
                     "speed": rng.randint(3, 7), "abilities": ab})
    if rng.random() < 0.6:
        figs.append({"id": "m0", "side": "monster", "at": place((1, 1)),
                     "speed": rng.randint(3, 6)})
    board = {"rows": ["".join(r) for r in rows], "doors": doors}
    return {"game": "descent", "board": board,
            "options": {"ice": rng.choice(["normal", "stop"]),
                        "large_turns": rng.choice(["all", "all", "two_square", "none"]),
                        "large_jumps": rng.random() < 0.3,
                        "hound_slides": rng.random() < 0.3},
            "figures": [f for f in figs if f["at"] is not None]}


def _large_dungeons(n: int, first: int = 0) -> list:
    out = []
    seed = first
    while len(out) < n:
        s = _large_dungeon(seed)
        seed += 1
        if not any(f.get("footprint") for f in s["figures"]) or \
                not any(f["side"] == "hero" for f in s["figures"]):
            continue                                     # pragma: no cover
        try:
            mc.position(s)
        except mc.errors.MovecoreError:   # pragma: no cover (a door on a wall end)
            continue
        out.append((f"large dungeon {seed - 1}", s))
    return out


def _wounds_rows(G, play, pen) -> int:
    """The games whose current actor's answer counts wounds (``legal_moves(penalty=)``
    into ``pen``)."""
    act = np.where(play.done, -1, play.actor)
    G.legal_moves(act, penalty=pen)
    return int((pen > 0).any(axis=1).sum())


def test_random_dungeons_run_on_arrays():
    """The random dungeons are batched (not the positions backend) and every move is
    answered on the arrays, exercising what the layout handles: door states, door
    memory, wounds (pits, auras), grapplers."""
    n_wounds = n_doors = n_grip = 0
    for name, s in _dungeons(24):
        play = BatchedPlay("descent", s, 16, seed=1, record=True)
        G = play.games
        assert G.backend == "arrays" and G._game.all_arrays, (name, G.why)
        pen = np.zeros((G.B, G.n_places), np.int32)
        for _ in range(20):
            play.step()
            assert not G._game.slow.any(), name
            n_grip += int((play.last_answer[2] == 1).sum())
            n_doors += int((G._game.doors != G._game.doors0).sum())
            n_wounds += _wounds_rows(G, play, pen)
    assert min(n_wounds, n_doors, n_grip) > 0, (n_wounds, n_doors, n_grip)


@pytest.mark.parametrize("first", [0, 12])
def test_random_dungeons_equal_single_positions(first):
    assert _run_differential("descent", steps=25, B=12, seed=first,
                             scenarios=_dungeons(12, first)) > 2000


@pytest.mark.slow
def test_ten_thousand_moves_on_random_dungeons():
    assert _run_differential("descent", steps=100, B=16, seed=9,
                             scenarios=_dungeons(8, 100)) >= 10_000


@pytest.mark.parametrize("policy", ["random", "greedy"])
def test_bundled_examples_on_arrays_equal_single_positions(policy):
    from movecore.tools.selfplay import example_scenarios
    scen = [(n, s) for n, s in example_scenarios("descent")
            if BatchedPlay("descent", s, 1).games.backend == "arrays"]
    assert len(scen) >= 2
    assert _run_differential("descent", steps=30, B=16, seed=5, policy=policy,
                             scenarios=scen) > 1000


def _wounds_differential(scenarios, steps=12, B=8, seed=2) -> int:
    """After every self-play step, each game's ``legal_moves(penalty=)`` (the wounds of
    each end) equals what a live position of that game counts (``Moves.penalty``);
    returns the ends with wounds seen."""
    seen = 0
    for name, s in scenarios:
        play = BatchedPlay("descent", s, B, seed=seed)
        G = play.games
        pen = np.zeros((G.B, G.n_places), np.int32)
        for _ in range(steps):
            play.step()
            act = np.where(play.done, -1, play.actor)
            G.legal_moves(act, penalty=pen)
            for b in np.flatnonzero(act >= 0).tolist():
                fid = G.ids[int(act[b])]
                m = G.position(b).legal_moves(fid, **play.queries[int(act[b])])
                want = np.zeros(G.n_places, np.int32)
                ok = m.mask[m.actions]
                want[m.actions[ok]] = m.penalty[ok]
                assert np.array_equal(pen[b], want), (name, b, fid)
                seen += int(np.count_nonzero(want))
    return seen


def test_wounds_per_end_equal_the_positions():
    """``legal_moves(penalty=)``: each end's wounds (pits, auras) as the position counts
    them (the penalty kernel over the game's aura layer and door state)."""
    assert _wounds_differential(_dungeons(4)) > 0


def test_apply_validates_and_opens_doors():
    """``apply`` takes legal ends only (no game changes otherwise); a move through a
    closed door opens it in that game alone."""
    from movecore.examples import load
    s = load("descent_door_twice")
    G = BatchedGames(mc.position(s), 3, query=[{"action": "advance"}, {}])
    assert G.backend == "arrays"
    pos = G.root.copy()
    m = pos.legal_moves("Grisban", action="advance")
    d = m.to_dicts()
    through = next(e for e in d if e["doors_opened"])
    to = pos.action_of("Grisban", tuple(through["at"]))
    with pytest.raises(IllegalMoveError):
        G.apply([0, 0, -1], [to, G.n_places - 1, -1])   # the town is no move
    assert (G.cell == G._cell0).all() and (G._game.doors == G._game.doors0).all()
    G.apply([0, -1, -1], [to, -1, -1])
    assert G.position(0).doors == {"oak door": "open"}
    assert G.position(1).doors == {"oak door": "closed"}
    pos.apply_move("Grisban", to, action="advance")
    for f in ("Grisban", "goblin"):
        q = {"action": "advance"} if f == "Grisban" else {}
        assert all(np.array_equal(x, y) for x, y in zip(
            _dense(G.position(0), f, q, G.n_places), _dense(pos, f, q, G.n_places)))
    G.reset([0])
    assert G.position(0).doors == {"oak door": "closed"}


def test_why_not_arrays():
    from movecore.examples import load
    for name in ("descent_dragon", "descent_hero_run", "descent_hell_hound"):
        G = BatchedPlay("descent", load(name), 2).games
        assert G.backend == "arrays", (name, G.why)
    s = load("descent_door_twice")
    s["figures"][0]["at"] = "town"
    G = BatchedPlay("descent", s, 2).games
    assert G.backend == "positions" and "town" in G.why, G.why


def test_large_dungeons_run_on_arrays():
    """The random dungeons with large monsters are batched and exercise what the
    layout adds: bases that turn (orientation 1), removals of large bases, doors
    opened by them, and moves that count wounds (auras, pits), all on the arrays."""
    n_turned = n_wounds = n_doors = n_removed = 0
    for name, s in _large_dungeons(12):
        play = BatchedPlay("descent", s, 16, seed=1, record=True)
        G = play.games
        assert G.backend == "arrays" and G.multi_space, (name, G.why)
        g = G._game
        assert g.all_arrays, name
        large = np.array([g.size0[f] != (1, 1) for f in range(G.F)])
        pen = np.zeros((G.B, G.n_places), np.int32)
        for _ in range(30):
            play.step()
            assert not g.slow.any(), name
            n_turned += int(g.orient.sum())
            n_doors += int((g.doors != g.doors0).sum())
            n_removed += sum(bool(large[f]) for f in play.last[3])
            n_wounds += _wounds_rows(G, play, pen)
    assert min(n_turned, n_wounds, n_doors, n_removed) > 0, \
        (n_turned, n_wounds, n_doors, n_removed)


@pytest.mark.parametrize("policy, first", [("random", 0), ("greedy", 12)])
def test_large_monsters_equal_single_positions(policy, first):
    """Large monsters (bases that turn, their own base free for their own move, every
    square of a base occupied, removed and near an enemy): after every batched step
    each game's mask, costs and stops equal the single position's, and its state the
    position's after ``apply_move`` / ``remove_figure``."""
    assert _run_differential("descent", steps=25, B=10, seed=first, policy=policy,
                             scenarios=_large_dungeons(10, first)) > 1500


@pytest.mark.slow
def test_ten_thousand_moves_with_large_monsters():
    # (the greedy policy on large monsters: test_large_monsters_greedy_and_removals_...)
    assert _run_differential("descent", steps=100, B=16, seed=9, policy="random",
                             scenarios=_large_dungeons(8, 100)) >= 10_000


def test_large_monsters_greedy_and_removals_read_every_square():
    """Self-play's greedy choice and removals on arrays equal the positions backend's
    (every square of a base: ``Position.touching``, ``action_coords``) for the same
    random numbers."""
    from movecore.examples import load
    scen = _large_dungeons(4, 40) + [("descent_hero_run", load("descent_hero_run"))]
    for name, s in scen:
        # (the array path; the compiled step makes its choices: test_compiled_step...)
        a = BatchedPlay("descent", s, 8, seed=4, policy="greedy", fused=False)
        b = BatchedPlay("descent", s, 8, seed=4, policy="greedy", backend="positions")
        assert a.games.backend == "arrays" and b.games.backend == "positions"
        for _ in range(30):
            a.step()
            b.step()
            assert np.array_equal(a.games.cell, b.games.cell), name
            assert np.array_equal(a.games.alive, b.games.alive), name
            assert a.last[2:] == b.last[2:], name


def test_large_wounds_per_end_equal_the_positions():
    """``legal_moves(penalty=)`` with large monsters: each end's wounds as the position
    counts them."""
    assert _wounds_differential(_large_dungeons(8, 60)) > 0


def test_large_spaces_follow_the_orientation():
    """``BatchedGames.spaces``: a large base's squares in its orientation in each game,
    as the position lists them (``where``), and a turned base's action's squares."""
    from movecore.examples import load
    s = load("descent_hell_hound")
    play = BatchedPlay("descent", s, 16, seed=3)
    G = play.games
    f = next(f for f in range(G.F) if G._game.size0[f] != (1, 1))
    seen = 0
    for _ in range(30):
        play.step()
        sp = G.spaces(np.arange(G.B))
        assert sp.shape[2] == 2
        for b in range(G.B):
            pos = G.position(b)
            for g, fid in enumerate(G.ids):
                if not G.alive[b, g]:
                    assert (sp[b, g] == -1).all()
                    continue
                w = pos.where(fid)
                want = sorted(pos.st.index[c] for c in ([w] if isinstance(w, tuple) else w))
                assert sorted(x for x in sp[b, g].tolist() if x >= 0) == want
            if G.alive[b, f]:
                fid = G.ids[f]
                acts = np.flatnonzero(_dense(pos, fid, {}, G.n_places)[0])
                got = G.spaces(np.full(len(acts), b), np.full(len(acts), f), acts[:, None])
                want = pos.action_coords(fid, acts)
                idx = pos.st.index
                for k, a in enumerate(acts.tolist()):
                    assert sorted(got[k, 0].tolist()) == sorted(
                        idx[tuple(c)] for c in want[k].tolist()), (b, a)
                seen += int((acts > pos.st.ns).any())
    assert seen > 0


@pytest.mark.parametrize("policy", ["random", "greedy"])
@pytest.mark.parametrize("threads", [1, 2])
def test_compiled_step_equals_array_path(policy, threads):
    """Where every move is answered on arrays, ``BatchedPlay`` runs the compiled step
    (:mod:`movecore.tools._selfplay_descent`): the array path's choices for the same
    random numbers, and the same squares, doors, orientations, turns and counters (the
    array path on as many threads), large monsters included."""
    from movecore.tools.selfplay import example_scenarios
    large = [(n, s) for n, s in _large_dungeons(16, 200)
             if BatchedPlay("descent", s, 1).fused][:3]
    scen = [(n, s) for n, s in example_scenarios("descent") + _dungeons(8)
            if BatchedPlay("descent", s, 1).fused] + large
    assert len(scen) >= 6
    # (pits, auras and grapplers too: descent_ogre, the odd seeds' pits)
    assert any(n == "descent_ogre.json" for n, _ in scen)
    # (large monsters too: bases that turn, removals and distances over every square)
    assert sum(BatchedPlay("descent", s, 1).games._game.large for _, s in scen) >= 3
    for name, s in scen:
        a = BatchedPlay("descent", s, 16, seed=7, policy=policy, threads=threads)
        b = BatchedPlay("descent", s, 16, seed=7, policy=policy, threads=threads,
                        fused=False)
        assert a.fused and not b.fused
        for _ in range(60):
            a.step()
            b.step()
            ga, gb = a.games, b.games
            assert np.array_equal(ga.cell, gb.cell), name
            assert np.array_equal(ga.alive, gb.alive), name
            assert np.array_equal(ga._game.sq, gb._game.sq), name
            assert np.array_equal(ga._game.doors, gb._game.doors), name
            assert np.array_equal(ga._game.orient, gb._game.orient), name
            assert np.array_equal(a.actor, b.actor) and np.array_equal(a.turn, b.turn)
        assert a.counts == b.counts, name


# ------------------------------------------------------------ grapplers on the arrays
def _grapple_only(name: str, s: dict, seed: int) -> tuple:
    """``s`` without pits and auras (so every move is answered on the arrays), with
    grapplers on both sides: each aura becomes a grapple, a monster grapples if none
    does, and (every other seed) a hero grapples too."""
    import copy
    s = copy.deepcopy(s)
    s["board"]["rows"] = [r.replace("p", ".") for r in s["board"]["rows"]]
    figs = s["figures"]
    for f in figs:
        f["abilities"] = ["grapple" if isinstance(a, dict) else a
                          for a in f.get("abilities", [])]
    mons = [f for f in figs if f["side"] == "monster"]
    if not any("grapple" in f["abilities"] for f in mons):
        mons[seed % len(mons)]["abilities"] = ["grapple"]
    if seed % 2:
        next(f for f in figs if f["side"] == "hero")["abilities"] = ["grapple"]
    return f"{name} (grapplers)", s


def _grapple_dungeons(n: int, first: int = 0) -> list:
    """Small and large random dungeons whose grapplers are the only per-game rule."""
    out = [_grapple_only(nm, s, k) for k, (nm, s) in
           enumerate(_dungeons(n - n // 2, first))]
    out += [_grapple_only(nm, s, k) for k, (nm, s) in
            enumerate(_large_dungeons(n // 2, first + 300))]
    return out


def test_grapplers_answered_on_arrays():
    """An enemy grappler in play is the arrays' own per-game stop layer: the games run
    the compiled step, and the answers hold grapple stops (1) and grappled starts (3)
    (the differential below compares them)."""
    n_grip = n_grappled = 0
    for name, s in _grapple_dungeons(8):
        play = BatchedPlay("descent", s, 16, seed=1, record=True)
        G = play.games
        assert G.backend == "arrays" and G._game.all_arrays, (name, G.why)
        assert G._game.grip.any() and BatchedPlay("descent", s, 2).fused, name
        for _ in range(15):
            play.step()
            assert not G._game.slow.any(), name
            stop = play.last_answer[2]
            n_grip += int((stop == 1).sum())
            n_grappled += int((stop == 3).sum())
    assert n_grip > 0 and n_grappled > 0, (n_grip, n_grappled)


@pytest.mark.parametrize("policy", ["random", "greedy"])
def test_grapplers_equal_single_positions(policy):
    assert _run_differential("descent", steps=20, B=10, seed=3, policy=policy,
                             scenarios=_grapple_dungeons(8, 20)) > 1000


def test_grapple_layer_is_checked():
    """The differential fails when the grip layer is broken: no grappler read (the
    stops and the grappled start lost), or its nodes shifted."""
    scen = _grapple_dungeons(6, 20)

    def broken(how):
        from movecore.games.descent import _batch

        real = _batch._DescentBatch.bind

        def bind(self, G):
            real(self, G)
            if how == "grip":
                self.grip[:] = False
            else:
                self.adj_nodes[:] = np.roll(self.adj_nodes, 1)
        _batch._DescentBatch.bind = bind
        try:
            _run_differential("descent", steps=20, B=10, seed=3, scenarios=scen)
        except AssertionError:
            return True
        finally:
            _batch._DescentBatch.bind = real
        return False
    assert broken("grip") and broken("nodes")


# ------------------------------------------------ wounds (pits, auras) on the arrays
def _hazards(name: str, s: dict, seed: int) -> tuple:
    """``s`` with pits (a few floor squares), an enemy aura and a grappler on the
    monsters' side and (every other seed) an aura on a hero: every per-game rule of
    the layout at once."""
    import copy
    s = copy.deepcopy(s)
    rng = random.Random(seed)
    rows = [list(r) for r in s["board"]["rows"]]
    taken = {tuple(f["at"]) for f in s["figures"]}
    floor = [(x, y) for y, r in enumerate(rows) for x, c in enumerate(r)
             if c == "." and (x, y) not in taken]
    for x, y in rng.sample(floor, min(len(floor) // 8, 4)):
        rows[y][x] = "p"
    s["board"]["rows"] = ["".join(r) for r in rows]
    mons = [f for f in s["figures"] if f["side"] == "monster"]
    mons[0]["abilities"] = [{"aura": rng.randint(1, 2)}]
    mons[-1]["abilities"] = ["grapple"] if len(mons) > 1 else [{"aura": 1}, "grapple"]
    if seed % 2:
        next(f for f in s["figures"] if f["side"] == "hero")["abilities"] = [{"aura": 1}]
    return f"{name} (hazards)", s


def _hazard_dungeons(n: int, first: int = 0) -> list:
    out = []
    for k, (nm, s) in enumerate(_dungeons(n - n // 2, first) +
                                _large_dungeons(n // 2, first + 500)):
        try:
            nm, s = _hazards(nm, s, first + k)
            mc.position(s)
        except mc.errors.MovecoreError:   # pragma: no cover (a pit under a door)
            continue
        out.append((nm, s))
    return out


@pytest.mark.parametrize("policy", ["random", "greedy"])
def test_hazards_equal_single_positions(policy):
    """Pits, auras and grapplers together, small and large movers: every move on the
    arrays (the compiled step plays them), its mask, costs and stops and the state
    after it (the doors the reported path opens: the least-wound way's where it is
    among the cheapest) equal the single position's."""
    scen = _hazard_dungeons(8, 30)
    assert all(BatchedPlay("descent", s, 1).fused for _, s in scen)
    assert _run_differential("descent", steps=20, B=10, seed=4, policy=policy,
                             scenarios=scen) > 1000


def test_hazard_wounds_equal_the_positions():
    assert _wounds_differential(_hazard_dungeons(6, 50), steps=10) > 100


@pytest.mark.slow
def test_ten_thousand_moves_with_hazards():
    assert _run_differential("descent", steps=80, B=16, seed=9,
                             scenarios=_hazard_dungeons(8, 600)) >= 10_000


def test_wound_layers_are_checked():
    """The wounds differential fails when the aura layer or the pits' leave layer is
    broken, and the move differential when the reported path's doors are (the door
    steps dropped)."""
    from movecore.games.descent import _batch
    scen = _hazard_dungeons(4, 50)

    def broken(how, check):
        real = _batch._DescentBatch.bind

        def bind(self, G):
            real(self, G)
            if how == "aura":
                self.aura[:] = 0
            elif how == "leave":
                self.leaves[:] = 0
            else:
                self.dstep_bits[:] = 0
        _batch._DescentBatch.bind = bind
        try:
            check(scen)
        except AssertionError:
            return True
        finally:
            _batch._DescentBatch.bind = real
        return False
    wounds = functools.partial(_wounds_differential, steps=10)
    moves = functools.partial(_run_differential, "descent", 20, 10, 4)
    assert broken("aura", wounds) and broken("leave", wounds)
    assert broken("doors", lambda sc: moves(scenarios=sc))
