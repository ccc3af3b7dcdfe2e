"""Batched games (issue 29) against the single live position they batch.

After every step of seeded random batched self-play, every game's batched answer (mask,
costs, stops of the acting figure) equals what a single live position in the same state
answers, and every game's state equals a single position that applied the same moves
with ``apply_move`` / ``remove_figure``."""
from __future__ import annotations

import re

import numpy as np
import pytest

import movecore as mc
from movecore.errors import describe
from movecore.tools.selfplay import example_scenarios
from movecore.tools.selfplay_batch import BatchedPlay

GAMES = ("grid", "tiny_epic_tactics", "mage_knight", "heroscape", "descent", "dark_realms")


def _dense(pos, fid, query, P):
    m = pos.legal_moves(fid, **query)
    mask = np.zeros(P, np.uint8)
    cost = np.full(P, -1, np.int32)
    stop = np.zeros(P, np.int8)
    moves = m.mask[m.actions]        # the ends that are moves (not Descent's town...)
    mask[m.actions[moves]] = 1
    cost[m.actions[moves]] = m.costs[moves]
    stop[m.actions[moves]] = m.stop[moves]
    return mask, cost, stop


def _run_differential(game, steps, B, seed, policy="random", backend="auto",
                      scenarios=None):
    """Returns the moves checked (on ``scenarios``, [(name, scenario)]; default: the
    game's bundled examples)."""
    checked = 0
    for name, scenario in scenarios or example_scenarios(game):
        play = BatchedPlay(game, scenario, B, seed=seed, policy=policy, backend=backend,
                           record=True)
        G = play.games
        singles = [G.root.copy() for _ in range(B)]
        state = _States(G, singles)
        for step in range(steps):
            play.step()
            mask, cost, stop = play.last_answer
            qs = play.last_queries
            act = play.last_actor
            for b in np.flatnonzero(act >= 0).tolist():
                fid = G.ids[int(act[b])]
                q = play.queries[int(act[b])] if qs is None else qs[b]
                want = _dense(singles[b], fid, q, G.n_places)
                assert np.array_equal(mask[b], want[0]), (name, b, fid)
                assert np.array_equal(cost[b], want[1]), (name, b, fid)
                assert np.array_equal(stop[b], want[2]), (name, b, fid)
            figs, to, rg, rf, reset = play.last
            for b in np.flatnonzero(figs >= 0).tolist():
                q = play.queries[int(figs[b])] if qs is None else qs[b]
                singles[b].apply_move(G.ids[int(figs[b])], int(to[b]), **q)
                state.read(b, singles[b], [int(figs[b])])
                checked += 1
            for b, g in zip(rg, rf):
                singles[b].remove_figure(G.ids[g])
                state.read(b, singles[b], [int(g)])
            for b in reset:                          # finished, restarted from the root
                singles[b] = G.root.copy()
                state.read(b, singles[b])
            if step % _States.EVERY == _States.EVERY - 1 or step == steps - 1:
                state.read_all(singles)
            state.check(G)
            # a position made from a game's arrays answers as the single one
            for b in range(min(B, 2)):
                a = int(play.actor[b])
                if not play.done[b] and a >= 0 and play.queries is not None:
                    q, fid = play.queries[a], G.ids[a]
                    got = _dense(G.position(b), fid, q, G.n_places)
                    want = _dense(singles[b], fid, q, G.n_places)
                    assert all(np.array_equal(x, y) for x, y in zip(got, want)), \
                        (name, b, fid)
    return checked


class _States:
    """What every game of the batch ``G`` must hold, read from its single positions:
    ``alive`` bool[B, F], ``cell`` int64[B, F] (the action index of each figure in play),
    ``doors`` int64[B] (Descent's open door bits; else 0). :meth:`read` reads a game's
    figures that a step changed in its single position (the one moved or removed; every
    one where it restarted), :meth:`read_all` every figure of every game, and
    :meth:`check` compares the whole batch with it: a figure the batch changed that its
    single position did not (or did not change as the single did) fails, as a check of
    every figure after every step would, at the cost of the figures a step changes. A
    single position's move changes no other figure; that is still read every
    :data:`EVERY` steps and at the end."""

    EVERY = 16

    def __init__(self, G, singles):
        F = len(G.ids)
        self.alive = np.zeros((G.B, F), bool)
        self.cell = np.full((G.B, F), -1, np.int64)
        self.doors = np.zeros(G.B, np.int64)
        self.ids = G.ids
        self.read_all(singles)
        self.check(G)

    def read_all(self, singles) -> None:
        for b, single in enumerate(singles):
            self.read(b, single)

    def read(self, b, single, figs=None) -> None:
        alive = single.figures
        for f in range(len(self.ids)) if figs is None else figs:
            fid = self.ids[f]
            self.alive[b, f] = fid in alive
            where = single.where(fid) if fid in alive else None
            self.cell[b, f] = -1 if where is None or isinstance(where, str) else \
                single.action_of(fid, where)
        if hasattr(single, "door_open"):             # Descent: the doors a move opened
            self.doors[b] = sum(1 << k for k, o in enumerate(single.door_open) if o)

    def check(self, G) -> None:
        assert np.array_equal(G.alive, self.alive), np.argwhere(G.alive != self.alive)
        cell = np.where(self.alive, G.cell, -1)      # (a figure out of play: any cell)
        assert np.array_equal(cell, self.cell), np.argwhere(cell != self.cell)
        if G._game is not None and hasattr(G._game, "doors"):
            # (game b's door bits, which ``G.position(b)`` opens its doors from)
            assert np.array_equal(G._game.doors, self.doors), \
                np.flatnonzero(G._game.doors != self.doors)


@pytest.mark.parametrize("game", GAMES)
def test_batched_games_equal_single_positions(game):
    checked = _run_differential(game, steps=12, B=8, seed=3)
    assert checked > 0


@pytest.mark.parametrize("policy", ["random", "greedy"])
def test_grid_arrays_backend_equals_positions(policy):
    """The grid game runs on arrays; its state follows the single positions."""
    assert _run_differential("grid", steps=60, B=32, seed=5, policy=policy) > 1000


@pytest.mark.parametrize("game", GAMES)
def test_batched_ten_thousand_moves(game):
    """Issue 29's exactness check, in every run (not the soak tier): at least 10,000
    batched moves per game, each step's masks, costs and state against single live
    positions. Every bundled example plays 160 steps (a game moves at every step), its
    batch as large as the count needs, at least 16 games: 10,240 moves for two examples,
    15,360 for six."""
    steps, examples = 160, len(example_scenarios(game))
    B = max(16, -(-10_000 // (steps * examples)))
    assert _run_differential(game, steps=steps, B=B, seed=11) >= 10_000


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_batched_ten_thousand_moves_long(game):
    """(soak) 64 games of 160 steps on every bundled example: 10,240 moves per example."""
    examples = len(example_scenarios(game))
    assert _run_differential(game, steps=160, B=64, seed=11) == 10_240 * examples


@pytest.mark.parametrize("game", ["grid", "descent"])
def test_the_state_check_sees_what_only_the_batch_changed(game):
    """:class:`_States` fails where the batch changed a figure (or a door) that no single
    position changed: the differential reads only what a step changed in the singles."""
    play = BatchedPlay(game, example_scenarios(game)[0][1], 3, seed=1)
    G = play.games
    state = _States(G, [G.root.copy() for _ in range(G.B)])
    b, f = (int(x) for x in np.argwhere(G.alive)[-1])
    cell = int(G.cell[b, f])
    G.cell[b, f] = (cell + 1) % G.n_places
    with pytest.raises(AssertionError):
        state.check(G)
    G.cell[b, f] = cell
    state.check(G)
    if game == "descent":
        G._game.doors[b] ^= 1
        with pytest.raises(AssertionError):
            state.check(G)


def test_fused_step_chunks_cover_every_game_once_the_calling_thread_ahead():
    """The compiled step's thread chunks (``selfplay_batch._calls``): contiguous,
    covering 0..B once; the calling thread's head start (``_head_start``) grows with
    the share a pool thread's wake is of its chunk, and every chunk keeps at least half
    an even share."""
    from movecore.batch import _head_start, _wake
    from movecore.tools.selfplay_batch import _calls
    parts = [((c,), ("tail",)) for c in range(3)]
    for B in (3, 10, 97, 4096):
        for first in range(1, B - 1):
            calls = _calls(parts[:2], B, first)
            assert [c[1:3] for c in calls] == [(0, first), (first, B)]
        calls = _calls(parts, B, B // 3)
        assert calls[0][1] == 0 and calls[-1][2] == B
        assert all(calls[i][2] == calls[i + 1][1] for i in range(2))
    assert _head_start(4096, 2, 2048, 2048 * 1e-7) > _head_start(4096, 2, 2048, 2048 * 1e-6)
    assert _head_start(4096, 2, 2048, 2048 * 1e-6) == round(2048 + _wake() / 1e-6 / 2)
    assert _head_start(4096, 2, 2048, 1e-9) == 4096 - 1024        # at most 1.5 shares
    assert _head_start(100, 4, 25, 1e-9) == 100 - 3 * 12


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("game", ["grid", "tiny_epic_tactics", "mage_knight"])
def test_fused_step_kept_ends_equal_the_kernel(game, threads, monkeypatch):
    """The compiled step reading the kernel's kept ends (``selfplay_batch._KEPT_BYTES``,
    ``movecore.rl._vecgame.kept_ends``, where no other figure can change the search,
    as the vector env's step does) plays what it plays asking the kernel: the same
    cells, occupancy, actors, turns and counters after every step of every bundled
    scenario, both policies; and the table is made (the kept path taken)."""
    from movecore.tools import selfplay_batch as SB
    cap = SB._KEPT_BYTES
    for name, scenario in example_scenarios(game):
        for policy in ("random", "greedy"):
            plays = []
            for kb in (cap, 0):
                monkeypatch.setattr(SB, "_KEPT_BYTES", kb)
                p = BatchedPlay(game, scenario, 24, seed=5, policy=policy, threads=threads)
                assert p.fused
                p.step()
                plays.append(p)
            a, b = plays
            assert a._fz[2][0][-2].shape[0] > 0 and b._fz[2][0][-2].shape[0] == 0, name
            _step_alike(a, b, 60, name)


@pytest.mark.parametrize("policy", ["random", "greedy"])
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("game", ["grid", "tiny_epic_tactics"])
def test_fused_step_equals_array_path(game, policy, threads):
    """The compiled step makes the array path's choices for the same random numbers
    (Mage Knight's: ``test_batch_mage_knight.py``)."""
    for name, scenario in example_scenarios(game):
        a = BatchedPlay(game, scenario, 16, seed=7, policy=policy, threads=threads)
        b = BatchedPlay(game, scenario, 16, seed=7, policy=policy, fused=False)
        assert a.fused and not b.fused
        _step_alike(a, b, 80, name)


@pytest.mark.parametrize("game", ["grid", "tiny_epic_tactics", "mage_knight", "descent",
                                  "dark_realms"])
def test_fused_step_whole_or_split_plays_the_same_games(game, monkeypatch):
    """A 2-thread compiled step that runs every game on the calling thread at some
    steps and split over the threads at others (``batch.ThreadChoice``; here at
    random) plays what one thread plays, every bundled scenario (Descent's and Dark
    Realms' first three); both ways are taken."""
    from movecore.batch import ThreadChoice
    ways, rng = [], np.random.default_rng(3)
    monkeypatch.setattr(ThreadChoice, "use_split",
                        lambda self: ways.append(bool(rng.integers(2))) or ways[-1])
    scenarios = example_scenarios(game)
    for name, scenario in scenarios if game in ("grid", "tiny_epic_tactics",
                                                "mage_knight") else scenarios[:3]:
        a = BatchedPlay(game, scenario, 24, seed=5, threads=2)
        b = BatchedPlay(game, scenario, 24, seed=5, threads=1)
        assert a.fused, name
        _step_alike(a, b, 60, name)
    assert any(ways) and not all(ways)


def _choices(split_s, whole_s, calls):
    """A ``ThreadChoice`` asked ``calls`` times, each call taking ``split_s(k)`` or
    ``whole_s(k)`` seconds (``k`` the call's number) the way it chose; returns (the
    choice, the ways of the calls: True split)."""
    from movecore.batch import ThreadChoice
    ch, ways = ThreadChoice(), []
    for k in range(calls):
        split = ch.use_split()
        ways.append(split)
        ch.took(split, split_s(k) if split else whole_s(k))
    return ch, np.array(ways)


def test_the_threads_are_kept_where_they_measure_faster(monkeypatch):
    """``batch.ThreadChoice``: calls start split; where the whole way measures slower
    (or within 3%) the split is kept, and the tries of the other way grow rarer (after
    the warm-up every 256 calls, then every 512, ... 4,096); where the whole way is
    faster it is taken after the first try; a machine that changes (the whole way
    slower later) is seen at the next try; a try's first call is not timed (one slow
    call there changes nothing)."""
    from movecore import batch
    from movecore.batch import ThreadChoice
    monkeypatch.setattr(batch, "CHOOSE_THREADS", True)
    ch, ways = _choices(lambda k: 1e-4, lambda k: 1.8e-4, 20_000)
    assert ch.split and ways[:ThreadChoice.WARM].all()
    tries = np.flatnonzero(~ways[1:] & ways[:-1]) + 1        # a try's first call
    assert tries[0] == ThreadChoice.WARM
    gaps = np.diff(tries)
    assert gaps[0] == 256 + ThreadChoice.PROBE and gaps.max() == 4096 + ThreadChoice.PROBE
    assert (~ways).sum() < 0.01 * len(ways)
    ch, ways = _choices(lambda k: 1e-4, lambda k: 1.0e-4, 2000)    # a tie: kept
    assert ch.split
    ch, ways = _choices(lambda k: 3e-5, lambda k: 1e-5, 2000)
    assert not ch.split and (~ways[ThreadChoice.WARM:]).mean() > 0.98
    # whole faster for 3,000 calls, then slower: split again within the next try
    ch, ways = _choices(lambda k: 2e-5, lambda k: 1e-5 if k < 3000 else 4e-5, 8000)
    assert (~ways[100:3000]).mean() > 0.98 and ch.split and ways[-1000:].mean() > 0.98
    # one outlandish first call of a try (a cold cache) is not counted
    ch, ways = _choices(lambda k: 1e-4, lambda k: 1.0 if k == ThreadChoice.WARM else 1e-5,
                        40)
    assert not ch.split
    monkeypatch.setattr(batch, "CHOOSE_THREADS", False)    # (always split, as asked)
    ch, ways = _choices(lambda k: 3e-5, lambda k: 1e-5, 2000)
    assert ways.all()


@pytest.mark.parametrize("game", ["mage_knight", "dark_realms"])
def test_a_small_batch_on_two_threads_measures_both_ways_and_plays_the_same(game,
                                                                           monkeypatch):
    """With the choice on (as shipped), a 2-thread play of a small batch times both
    ways, on this machine's own clock, and plays what one thread plays whichever it
    keeps."""
    from movecore import batch
    monkeypatch.setattr(batch, "CHOOSE_THREADS", True)
    took, ways = batch.ThreadChoice.took, []
    monkeypatch.setattr(batch.ThreadChoice, "took",
                        lambda self, split, s: ways.append(split) or took(self, split, s))
    name, scenario = example_scenarios(game)[0]
    a = BatchedPlay(game, scenario, 16, seed=5, threads=2)
    b = BatchedPlay(game, scenario, 16, seed=5, threads=1)
    _step_alike(a, b, 40, name)
    assert len(ways) == 40 and any(ways) and not all(ways)


@pytest.mark.parametrize("game", ["grid", "tiny_epic_tactics", "mage_knight", "heroscape",
                                  "descent", "dark_realms"])
def test_several_steps_a_call_play_what_as_many_steps_play(game, monkeypatch):
    """``BatchedPlay.steps(n)`` (up to ``STEPS_PER_CALL`` steps in one compiled call
    where the whole step is one: every game but Dark Realms, whose rolls are drawn in
    NumPy; a step at a time there) plays what ``n`` calls of ``step()`` on one thread
    play: the same cells, occupancy, figures in play, actors, turns, step counter and
    moves after every call, on 1 and 2 threads (split or whole at random), both
    policies, every bundled scenario of the grid game, Tiny Epic Tactics and Mage
    Knight (Heroscape's and Descent's first three, Dark Realms' first), ``n`` from 0
    past ``STEPS_PER_CALL``."""
    from movecore.batch import ThreadChoice
    from movecore.tools.selfplay_batch import STEPS_PER_CALL
    ways, rng = [], np.random.default_rng(11)
    monkeypatch.setattr(ThreadChoice, "use_split",
                        lambda self: ways.append(bool(rng.integers(2))) or ways[-1])
    bulk = game != "dark_realms"
    scenarios = example_scenarios(game)
    for name, scenario in scenarios[:None if game in ("grid", "tiny_epic_tactics",
                                                      "mage_knight") else 3 if bulk else 1]:
        for threads, policy in ((1, "random"), (2, "greedy"), (2, "random")):
            # (short games: restarts inside a call of several steps)
            a = BatchedPlay(game, scenario, 12, seed=4, policy=policy, threads=threads,
                            max_turns=4)
            b = BatchedPlay(game, scenario, 12, seed=4, policy=policy, max_turns=4)
            assert a.steps_per_call == (STEPS_PER_CALL if bulk else 1), name
            for n in (0, 1, 3, STEPS_PER_CALL, 2 * STEPS_PER_CALL + 3, 5, 13):
                assert a.steps(n) == sum(b.step() for _ in range(n)), (name, n)
                assert np.array_equal(a.games.cell, b.games.cell), (name, n)
                assert np.array_equal(a.games.occ, b.games.occ), (name, n)
                assert np.array_equal(a.games.alive, b.games.alive), (name, n)
                assert np.array_equal(a.actor, b.actor) and np.array_equal(a.turn, b.turn)
                assert a._tick[0] == b._tick[0] and a.counts == b.counts, (name, n)
            assert a.counts["games"] > 0, name         # (restarts inside a call)
    assert game == "heroscape" or (any(ways) and not all(ways))   # (its step splits)
    for bad in (-1, 2.0, True, "3", None, np.int64(-2)):
        with pytest.raises(mc.QueryError, match=f"n must be a non-negative integer; got "
                                                f"{re.escape(describe(bad))}"):
            a.steps(bad)
    moves = a.steps(np.int64(3)) + a.steps(np.int32(2))      # (NumPy's integers too)
    assert moves == sum(b.step() for _ in range(5)) and a.counts == b.counts


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("game", ["grid", "mage_knight"])
def test_a_run_takes_the_steps_one_step_at_a_time_would(game, threads):
    """``run(n_games)`` (``play_until``: several steps a call while more than that many
    steps' worth of games are left to finish) stops after the very step a loop of
    ``step()`` stops after: the same step counter, counters and games."""
    name, scenario = example_scenarios(game)[0]
    for n_games in (1, 30, 150):
        a = BatchedPlay(game, scenario, 6, seed=2, threads=threads)
        b = BatchedPlay(game, scenario, 6, seed=2)
        rep = a.run(n_games)
        while b.counts["games"] < n_games:
            b.step()
        assert a._tick[0] == b._tick[0] and a.counts == b.counts, (name, n_games)
        assert np.array_equal(a.games.cell, b.games.cell), (name, n_games)
        assert rep["games"] == b.counts["games"] >= n_games
    a.play_until(np.int64(a.counts["games"] + 1))
    for bad in (-1, 2.0, None, False):
        with pytest.raises(mc.QueryError, match="n_games must be a non-negative integer"):
            a.run(bad)
        with pytest.raises(mc.QueryError, match="n_games must be a non-negative integer"):
            a.play_until(bad)


def _step_alike(a, b, steps, name) -> None:
    """Step plays ``a`` and ``b`` ``steps`` times: the same cells, occupancy, figures in
    play, actors and turns after every step, and the same counters at the end."""
    for _ in range(steps):
        a.step()
        b.step()
        assert np.array_equal(a.games.cell, b.games.cell), name
        assert np.array_equal(a.games.occ, b.games.occ), name
        assert np.array_equal(a.games.alive, b.games.alive), name
        assert np.array_equal(a.actor, b.actor) and np.array_equal(a.turn, b.turn)
    assert a.counts == b.counts, name


def test_selfplay_steps_compile_their_helpers_once():
    """The compiled self-play steps (the generic one, Heroscape's, Descent's, Dark
    Realms') pass ``n_all_sides`` to the turn helpers they share (``_n_sides``,
    ``_selfplay_next_actor``, ``_selfplay_restart``) as an int64 from the start: with the
    literal ``0`` Numba typed those calls with ``Literal[int](0)`` before the loop's
    type settled and compiled the helpers, and what it inlines there, twice. A step
    loaded from the cache compiles no helper, so this sees the steps compiled in this
    process (any edit of a step or of the helpers' module recompiles it: its cache stamp
    holds both files; ``tests/conftest.py`` checks the helpers after every session too)."""
    import jit_audit

    from movecore.rl import _vecgame as V
    from movecore.tools import _selfplay_dark_realms as R
    from movecore.tools import _selfplay_descent as D
    from movecore.tools import _selfplay_heroscape as H
    for game in ("grid", "heroscape", "descent", "dark_realms"):
        scenario = next(s for _, s in example_scenarios(game)
                        if BatchedPlay(game, s, 1).fused)
        play = BatchedPlay(game, scenario, 4, seed=0)
        for _ in range(3):
            play.step()
    steps = {"grid": V.selfplay_step, "heroscape": H.step_kernel(),
             "descent": D.step_kernel(), "dark_realms": R.dark_realms_chunk}
    assert all(d.signatures for d in steps.values())       # (each game's step ran)
    if not any(d.stats.cache_misses for d in steps.values()):
        pytest.skip("every step loaded from the cache: no helper compiled to check")
    helpers = (V._n_sides, V._selfplay_next_actor, V._selfplay_restart)
    assert all(h.signatures for h in helpers)
    assert jit_audit.literal_twins(helpers) == {}


def test_selfplay_random_numbers_are_uniform_per_game_and_step():
    """The compiled step's numbers (a counter-based stream per run, drawn per game inside
    each thread's chunk): in [0, 1), uniform (chi-square over 20 bins), uncorrelated
    between neighbouring games, draws and steps; a new step, a new key or another
    game's slot gives other numbers; the array path reads the same (above)."""
    from movecore.rl._vecgame import selfplay_uniforms
    B, T = 512, 40
    u = np.empty((T, B, 3))
    for t in range(T):
        selfplay_uniforms(12345, t, u[t])
    x = u.ravel()
    assert x.min() >= 0.0 and x.max() < 1.0
    counts = np.bincount((x * 20).astype(np.int64), minlength=20)
    expect = len(x) / 20
    assert ((counts - expect) ** 2 / expect).sum() < 45.3      # chi2(19), p = 0.001
    for a, b in ((u[:, :-1, 0], u[:, 1:, 0]), (u[:, :, 0], u[:, :, 1]),
                 (u[:-1, :, 0], u[1:, :, 0])):
        assert abs(np.corrcoef(a.ravel(), b.ravel())[0, 1]) < 0.02
    other = np.empty((B, 3))
    selfplay_uniforms(12346, 0, other)
    assert not np.isclose(other, u[0]).any()
    assert len(np.unique(x)) == len(x)


def test_entry_for_only_where_the_types_fit():
    """``batch.entry_for``: a compiled overload's entry point (called without the
    dispatcher typing its arguments) only for arguments it takes as they are; else the
    dispatcher itself (which converts, or compiles anew)."""
    from numba import njit

    from movecore.batch import entry_for

    @njit
    def f(a, b):
        return a[0] + b

    x = np.arange(3, dtype=np.int64)
    f(x, 1)
    e = entry_for(f, (x, 1))
    assert e is not f and e(x, 2) == 2
    assert entry_for(f, (x.astype(np.int32), 1)) is f     # (not compiled for int32)
    assert entry_for(f, (x[::2], 1)) is f                  # (nor for a strided array)

    @njit("int64(int64[:], int64)")
    def g(a, b):
        return a[0] + b

    assert entry_for(g, (x, 1)) is not g            # a declared 'A' array takes a C one
    assert entry_for(g, (x[::2], 1)) is not g       # ... or a strided one
    assert entry_for(g, (x.astype(np.int32), 1)) is g
    assert entry_for(g, (x.reshape(1, 3), 1)) is g
    ro = x.copy()
    ro.setflags(write=False)
    assert entry_for(g, (ro, 1)) is g               # (declared writable)


def test_entry_call_keeps_the_entry_point_after_the_first_call(monkeypatch):
    """``batch.entry_call``: the first call of a key through the dispatcher, then its
    overload's entry point, kept by key; with ``batch.ENTRY`` off, or a kernel that is
    no dispatcher, nothing is kept (every call the kernel's own)."""
    from numba import njit

    import movecore.batch as batch

    @njit
    def f(a, b):
        a[0] += b
        return a[0]

    x = np.zeros(2, np.int64)
    calls = {}
    assert batch.entry_call(calls, "k", f, (x, 2)) == 2
    assert list(calls) == ["k"] and calls["k"] is not f
    assert calls["k"] is batch.entry_for(f, (x, 2))
    assert batch.entry_call(calls, "k", f, (x, 3)) == 5 and x[0] == 5   # (its own x)
    monkeypatch.setattr(batch, "ENTRY", False)
    off = {}
    assert batch.entry_call(off, "k", f, (x, 1)) == 6 and off == {}
    assert batch.entry_call(calls, "k", f, (x, 1)) == 7    # (kept: still its entry)


def test_on_cut_runs_every_chunk_and_times_the_calling_threads():
    """``batch.on_cut``: every chunk of the cut once, in chunk order, the calling
    thread's chunk 0 timed (0.0 on one chunk); ``on_chunks`` is it on the even cut."""
    import threading
    import time

    from movecore.batch import on_chunks, on_cut
    me = threading.get_ident()

    def run(c, lo, hi):
        if c == 0:
            time.sleep(0.002)
        return c, lo, hi, threading.get_ident() == me

    got, took = on_cut([0, 5, 6, 10], run)
    assert got == [(0, 0, 5, True), (1, 5, 6, False), (2, 6, 10, False)]
    assert 0.002 <= took < 1.0
    assert on_cut([3, 7], run) == ([(0, 3, 7, True)], 0.0)
    assert on_chunks(10, 3, lambda c, lo, hi: (lo, hi)) == ([0, 3, 6, 10],
                                                            [(0, 3), (3, 6), (6, 10)])


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("game", ["grid", "heroscape", "descent", "dark_realms"])
def test_selfplay_step_at_its_entry_points_equals_the_dispatcher(game, threads,
                                                                monkeypatch):
    """The compiled self-play steps called at their overloads' entry points after
    their first calls (``batch.entry_call``: ``_chunks.run_chunks``, Dark Realms'
    chunked step) play what the dispatcher's calls play (``batch.ENTRY`` off): the same
    cells, occupancy, figures in play and counters after every step; the entry points
    kept where asked for (compiled wrappers, not the dispatcher), none where not."""
    import movecore.batch as batch
    name, scenario = example_scenarios(game)[0]
    plays = []
    for entry in (True, False):
        monkeypatch.setattr(batch, "ENTRY", entry)
        plays.append(BatchedPlay(game, scenario, 9, seed=3, threads=threads))
        assert plays[-1].fused
    for _ in range(40):
        for entry, p in zip((True, False), plays):
            monkeypatch.setattr(batch, "ENTRY", entry)
            p.step()
        a, b = plays
        assert np.array_equal(a.games.cell, b.games.cell), name
        assert np.array_equal(a.games.occ, b.games.occ), name
        assert np.array_equal(a.games.alive, b.games.alive), name
    assert a.counts == b.counts
    for entry, p in zip((True, False), plays):
        plan = getattr(p, "_drplan", None)
        kept = p._entries if plan is None else plan["entries"]
        assert (len(kept) >= threads and
                all(not hasattr(e, "overloads") for e in kept.values())) \
            if entry else not kept


def test_docstring_examples():
    import doctest
    import importlib
    failed, tried = doctest.testmod(importlib.import_module("movecore.batch"),
                                    optionflags=doctest.ELLIPSIS)
    assert failed == 0 and tried > 0


def test_per_thread_scratch_is_apart():
    """Each thread's scratch starts a cache line of its own and is C-contiguous."""
    from movecore.batch import per_thread
    for shape, dtype in (((4,), np.int64), ((1, 3), np.int64), ((3, 37), np.int32)):
        arrs = per_thread(3, shape, dtype)
        starts = [a.ctypes.data for a in arrs]
        assert all(s % 64 == 0 for s in starts)
        ends = [a.ctypes.data + a.nbytes for a in arrs]
        assert all((ends[i] - 1) // 64 < starts[i + 1] // 64 for i in range(2))
        assert all(a.shape == shape and a.dtype == dtype and a.flags.c_contiguous
                   and not a.any() for a in arrs)
