"""``movecore bench --batch``'s measuring loop (not a timing: what it measures, in what
order, and how its figures are put together)."""
import math
import os
import subprocess
import sys
import time

import numpy as np
import pytest
from pytest import approx

from movecore.tools import bench_batch
from movecore.tools.bench_batch import (REF_QUERIES, Figures, Schedule, _interleaved,
                                        _moves_per_s, _over_windows, _paired,
                                        _query_round, _quartiles, _reference,
                                        _thread_ratio)
from movecore.tools.selfplay_batch import STEPS_PER_CALL


def test_interleaved_takes_rounds_in_turn_until_every_contestant_has_a_figure():
    calls = []

    def one_round(i):
        calls.append(i)
        # contestant 1 does nothing in its first round (no figure yet): another pass
        units = 0 if (i == 1 and calls.count(1) == 1) else 10 * (i + 1)
        return units, 0.5, 0.25 * (i + 1), 0.2
    got = _interleaved(2, one_round, 0.0)
    assert calls == [0, 1, 0, 1]
    # per contestant: best units/s, process CPU per unit, busiest thread's CPU per unit
    # (this thread's, or the others' together: process CPU less this thread's), the
    # median round's (the round with no units has none)
    assert got[0][:3] == approx((20.0, 0.25 / 10, 0.2 / 10))
    assert got[1][:3] == approx((40.0, 0.5 / 20, 0.3 / 20))
    # and every round, in the order taken
    assert got[0].rounds == [(10, 0.5, 0.25, 0.2)] * 2
    assert got[1].rounds == [(0, 0.5, 0.5, 0.2), (20, 0.5, 0.5, 0.2)]


def test_interleaved_cpu_figures_are_the_median_rounds():
    rounds = iter([(100, 1.0, 1.0, 1.0), (100, 1.0, 1.0, 0.25), (100, 9.0, 9.0, 9.0)])
    # the third round (a kernel compiled on first use, say) weighs as one round of three
    f, = _interleaved(1, lambda i: next(rounds), 0.0, Schedule(min_rounds=3))
    assert f.cpu == approx(0.01) and f.busiest == approx(0.01)


def test_interleaved_gives_every_contestant_min_rounds_of_the_same_passes():
    calls = []

    def one_round(i):
        calls.append(i)
        return 1 + len(calls), 1.0 + i, 0.5, 0.5
    got = _interleaved(3, one_round, 0.0, Schedule(min_rounds=4))
    assert calls == [0, 1, 2] * 4
    assert [len(f.rounds) for f in got] == [4, 4, 4]
    # round k of each contestant comes from pass k
    assert [r[0] for r in got[2].rounds] == [4, 7, 10, 13]
    # the median round's units/s, the share of wall time this thread ran
    assert got[0].median == approx(np.median([2, 5, 8, 11]))
    assert got[1].share == approx(0.25)


def test_interleaved_shuffled_passes_take_every_contestant_once_in_new_orders():
    calls = []

    def one_round(i):
        calls.append(i)
        return len(calls), 1.0, 0.5, 0.5
    got = _interleaved(3, one_round, 0.0, Schedule(min_rounds=6, shuffle=True))
    passes = [calls[k:k + 3] for k in range(0, len(calls), 3)]
    assert len(passes) == 6 and all(sorted(p) == [0, 1, 2] for p in passes)
    assert len({tuple(p) for p in passes}) > 1          # the order changes between passes
    # round k of each contestant is its round of pass k
    for i, f in enumerate(got):
        assert [r[0] for r in f.rounds] == [3 * k + p.index(i) + 1
                                            for k, p in enumerate(passes)]
    # the same seeded orders every time (a run is reproducible)
    again = []
    _interleaved(3, lambda i: again.append(i) or (1, 1.0, 0.5, 0.5), 0.0,
                 Schedule(min_rounds=6, shuffle=True))
    assert again == calls


def _figs(rounds):
    return Figures(0.0, 0.0, 0.0, rounds)


def test_paired_ratios_are_round_by_round_by_wall_and_by_cpu():
    # (units, wall, process CPU, this thread's CPU) per round
    play = _figs([(100, 2.0, 1.0, 1.0), (100, 3.0, 1.0, 1.0), (0, 1.0, 1.0, 1.0),
                  (200, 2.0, 2.0, 2.0)])
    ref = _figs([(400, 1.0, 1.0, 1.0), (400, 1.0, 0.5, 0.5), (400, 1.0, 1.0, 1.0),
                 (400, 4.0, 2.0, 2.0)])
    got = _paired(play, ref)
    # seconds per move over seconds per query, per round; the round with no moves left out
    wall = [(2.0 / 100) / (1.0 / 400), (3.0 / 100) / (1.0 / 400), (2.0 / 200) / (4.0 / 400)]
    cpu = [(1.0 / 100) / (1.0 / 400), (1.0 / 100) / (0.5 / 400), (2.0 / 200) / (2.0 / 400)]
    assert got["n"] == 3
    assert got["wall"] == approx(_quartiles(wall))
    assert got["cpu"] == approx(_quartiles(cpu))
    assert got["wall"][0] == approx(8.0) and got["cpu"][0] == approx(4.0)
    # the units to count can be given (the vector env's moves per round, not its steps)
    got = _paired(play, ref, moves=[50, 50, 0, 100])
    assert got["wall"][0] == approx(16.0)


def test_thread_ratio_pairs_each_2_thread_round_with_the_1_thread_round_of_its_pass():
    # (units, wall, process CPU, this thread's CPU) per round
    one = _figs([(100, 1.0, 1.0, 1.0), (100, 1.0, 1.0, 1.0), (100, 2.0, 1.0, 1.0),
                 (0, 1.0, 1.0, 1.0), (100, 1.0, 1.0, 1.0)])
    two = _figs([(200, 1.0, 1.2, 0.5), (100, 1.0, 1.0, 0.4), (200, 1.0, 1.0, 0.7),
                 (200, 1.0, 1.0, 0.5), (0, 1.0, 1.0, 0.5)])
    got = _thread_ratio(one, two)
    # by wall: units/s of the 2-thread round over the 1-thread round's, the same pass;
    # passes where either round has no units are left out
    wall = [2.0, 1.0, 4.0]
    # by CPU: the 1-thread round's process CPU per unit over the 2-thread round's
    # busiest thread's (this thread's, or the process's less this thread's)
    cpu = [(1.0 / 100) / (0.7 / 200), (1.0 / 100) / (0.6 / 100),
           (1.0 / 100) / (0.7 / 200)]
    assert got["n"] == 3 and got["rounds"] == approx(wall)
    assert got["wall"] == approx(_quartiles(wall)) and got["wall"][0] == approx(2.0)
    assert got["cpu"] == approx(_quartiles(cpu))
    # a pass that reads a spell of a shared second core moves the median little
    spell = _figs([(100, 1.0, 1.0, 1.0)] * 3)
    got = _thread_ratio(spell, _figs([(190, 1.0, 1.0, 0.5), (110, 1.0, 1.0, 0.5),
                                      (185, 1.0, 1.0, 0.5)]))
    assert got["wall"][0] == approx(1.85)


def test_thread_ratio_reports_the_share_of_thread_time_that_waited_for_a_core():
    # (units, wall, process CPU, this thread's CPU, seconds waited for a core)
    one = _figs([(100, 1.0, 1.0, 1.0, 0.02), (100, 1.0, 1.0, 1.0, 0.0)])
    two = _figs([(200, 1.0, 1.0, 0.5, 0.9), (200, 1.0, 1.0, 0.5, 0.7)])
    # the 2-thread rounds: 1.6 s waited over 2 threads x 2 s
    assert _thread_ratio(one, two)["waited"] == approx(0.4)
    # the 1-thread rounds' share where it is the larger: 0.3 s over 1 thread x 2 s
    two = _figs([(200, 1.0, 1.0, 0.5, 0.0)] * 2)
    one = _figs([(100, 1.0, 1.0, 1.0, 0.1), (100, 1.0, 1.0, 1.0, 0.2)])
    assert _thread_ratio(one, two)["waited"] == approx(0.15)
    # rounds that recorded no waits (4 fields): none
    assert _thread_ratio(_figs([(100, 1.0, 1.0, 1.0)]),
                         _figs([(200, 1.0, 1.0, 0.5)]))["waited"] == 0.0


def test_over_windows_leaves_out_windows_that_waited_for_a_core():
    w = lambda wall, waited: {"wall": (wall, wall, wall), "cpu": (1.9, 1.9, 1.9),  # noqa
                              "rounds": [wall], "waited": waited}
    S = bench_batch.SPELL
    windows = [w(1.80, 0.0), w(1.20, S + 0.01), w(1.84, S), w(1.76, 0.01)]
    got = _over_windows(windows)
    # the window that waited over SPELL is printed, not counted: the median of the rest
    assert got["counted"] == [True, False, True, True]
    assert got["wall"] == approx(1.80) and got["n"] == 3
    assert got["windows"] == [1.80, 1.20, 1.84, 1.76]
    assert got["waited"] == [0.0, S + 0.01, S, 0.01]
    assert bench_batch._windows_short(windows) == 0
    assert bench_batch._windows_short(windows[:3]) == 1
    # every window waited: every window counts (a busy machine's figure), and the
    # printed figure says so
    busy = [w(1.2, 0.5), w(1.3, 0.4), w(1.1, 0.6)]
    got = _over_windows(busy)
    assert got["counted"] == [True] * 3 and got["wall"] == approx(1.2)
    assert bench_batch._windows_short(busy) == 3
    assert "busy machine" in bench_batch._threads(got)
    assert "[1.20: waited 11%]" in bench_batch._threads(_over_windows(windows))


@pytest.mark.skipif(not os.path.exists("/proc/self/task") or
                    not hasattr(os, "sched_setaffinity"), reason="Linux only")
def test_waited_counts_the_time_a_thread_waits_for_a_core_another_process_holds():
    """Two busy processes on one core: each waits for about half the time, and
    ``_waited`` sees it; alone on a core, this thread waits little."""
    cpu = min(os.sched_getaffinity(0))
    before = os.sched_getaffinity(0)
    spin = "import time\nt = time.perf_counter()\nwhile time.perf_counter() - t < 0.6: pass"
    os.sched_setaffinity(0, {cpu})
    try:
        other = subprocess.Popen([sys.executable, "-c", spin],
                                 preexec_fn=lambda: os.sched_setaffinity(0, {cpu}))
        time.sleep(0.05)
        w0, t0 = bench_batch._waited(), time.perf_counter()
        while time.perf_counter() - t0 < 0.4:
            pass
        shared = (bench_batch._waited() - w0) / (time.perf_counter() - t0)
        other.wait()
    finally:
        os.sched_setaffinity(0, before)
    assert shared > 0.25          # ~0.5: the other process ran half the time


def test_over_windows_is_the_median_window_so_one_spell_does_not_set_it():
    windows = [{"wall": (1.80, 1.7, 1.9), "cpu": (1.90, 1.8, 2.0), "rounds": [1.7, 1.8, 1.9]},
               {"wall": (1.10, 1.0, 1.2), "cpu": (1.85, 1.8, 1.9), "rounds": [1.0, 1.1, 1.2]},
               {"wall": (1.84, 1.8, 1.9), "cpu": (1.88, 1.8, 1.9), "rounds": [1.8, 1.84, 1.9]}]
    got = _over_windows(windows)
    # the window that met the spell (1.10) leaves the figure at the nearer other window
    assert got["wall"] == approx(1.80) and got["cpu"] == approx(1.88)
    assert got["windows"] == [1.80, 1.10, 1.84]       # each window's, in order taken
    # the spread: quartiles of every paired round of every window
    allr = [1.7, 1.8, 1.9, 1.0, 1.1, 1.2, 1.8, 1.84, 1.9]
    assert got["rounds"] == approx(_quartiles(allr)) and got["n"] == 9
    # one window: its own figure
    assert _over_windows(windows[1:2])["wall"] == approx(1.10)


def test_quartiles():
    assert _quartiles([3.0, 1.0, 2.0]) == approx((2.0, 1.5, 2.5))
    assert all(math.isnan(x) for x in _quartiles([]))


class _Prep:
    """A prepared query's stand-in: counts its calls, advances a fake clock by 1 s each."""

    def __init__(self, clock):
        self.calls, self.clock = 0, clock

    def reach_many(self, starts, budget, threads):
        assert threads == 1 and budget == 3
        self.calls += 1
        self.clock[0] += 1.0


def test_query_round_lasts_as_long_as_it_is_asked(monkeypatch):
    clock = [0.0]
    monkeypatch.setattr(bench_batch.time, "perf_counter", lambda: clock[0])
    prep = _Prep(clock)
    one_round = _query_round((prep, np.arange(10), 3))
    assert one_round(0.0)[:2] == (10, 1.0)          # at least one call
    assert prep.calls == 1
    assert one_round(2.5)[:2] == (30, 3.0)          # until 2.5 s have passed
    assert prep.calls == 4


class _Play:
    def __init__(self, B):
        self.B = B

    def step(self):
        return self.B


def test_moves_per_s_paces_the_reference_by_the_first_plays_rounds():
    asked = []

    def ref_round(seconds):
        asked.append(seconds)
        return 7, 0.001, 0.001, 0.001
    *plays, ref = _moves_per_s([_Play(1024), _Play(1024)], 0.0, [ref_round],
                               Schedule(min_rounds=3))
    assert len(plays[0].rounds) == len(plays[1].rounds) == len(ref.rounds) == 3
    assert [r[0] for r in plays[0].rounds] == [4096] * 3      # 4 steps of 1,024 moves
    # each reference round is asked to last as long as the first play's round before it
    assert asked == [r[1] for r in plays[0].rounds]


def test_moves_per_s_rounds_last_round_seconds_in_whole_steps(monkeypatch):
    clock = [0.0]
    monkeypatch.setattr(bench_batch.time, "perf_counter", lambda: clock[0])

    class Slow(_Play):
        def step(self):
            clock[0] += 0.01
            return self.B
    got, = _moves_per_s([Slow(4096)], 0.0, schedule=Schedule(round_seconds=0.035))
    # one step would do for 4,096 moves; the round goes on to 0.035 s: 4 steps
    assert got.rounds[0][:2] == (4 * 4096, approx(0.04))

    class Bulk(_Play):          # several steps a call (BatchedPlay.steps)
        def steps(self, n):
            asked.append(n)
            clock[0] += 0.01
            return n * self.B
    asked = []
    got, = _moves_per_s([Bulk(64)], 0.0, schedule=Schedule(round_seconds=0.035),
                        per_call=8)
    # 4,096 moves are 64 steps, 8 calls of 8 (0.08 s: past round_seconds)
    assert got.rounds[0][:2] == (64 * 64, approx(0.08)) and set(asked) == {8}


class _Env:
    """A vector env's stand-in: B games, each step plays ``per_step`` figure moves per
    game and advances a fake clock by ``dt``."""

    def __init__(self, B, per_step, dt, clock):
        self.num_envs, self.per_step, self.dt, self.clock = B, per_step, dt, clock
        self._mask = np.ones((B, 3), bool)
        self.counts = {"moves": 0}

    def reset(self, seed):
        pass

    def step(self, actions):
        assert actions.shape == (self.num_envs,)
        self.clock[0] += self.dt
        self.counts["moves"] += self.per_step * self.num_envs


def test_env_steps_per_s_counts_moves_and_paces_each_reference_by_its_env(monkeypatch):
    clock = [0.0]
    monkeypatch.setattr(bench_batch.time, "perf_counter", lambda: clock[0])
    envs = [_Env(1024, 2, 0.010, clock), _Env(1024, 2, 0.006, clock),
            _Env(1024, 3, 0.004, clock)]
    asked = []

    def ref_round(seconds):
        asked.append(seconds)
        return 7, 0.001, 0.001, 0.001
    got = bench_batch._env_steps_per_s(envs, 0.0, [ref_round, ref_round],
                                       Schedule(min_rounds=2, round_seconds=0.02), [0, 2])
    (f0, m0), (f1, m1), (f2, m2), r0, r2 = got
    # rounds of 4 steps (4,096 env steps), longer where 4 steps last less than 0.02 s
    assert [r[0] for r in f0.rounds] == [4 * 1024] * 2
    assert [r[0] for r in f2.rounds] == [5 * 1024] * 2          # 0.02 s: 5 steps
    assert f0.rounds[0][1] == approx(0.04) and f2.rounds[0][1] == approx(0.02)
    # the figure moves of each round, not its env steps
    assert m0 == [4 * 1024 * 2] * 2 and m2 == [5 * 1024 * 3] * 2
    # reference k is asked for rounds as long as env pace[k]'s latest one
    assert asked == [approx(0.04), approx(0.02)] * 2
    assert len(r0.rounds) == len(r2.rounds) == 2


def test_reference_starts_are_a_fixed_sample_not_the_runs_stopping_point():
    from movecore.tools.selfplay import example_scenarios
    from movecore.tools.selfplay_batch import BatchedPlay
    name, scen = example_scenarios("grid")[0]
    play = BatchedPlay("grid", scen, 8, seed=1, threads=1)
    prep, starts, budget = _reference("grid", scen, play)
    assert starts.dtype == np.int64 and starts.shape == (REF_QUERIES,)
    assert starts.max() < prep._q.n
    assert budget == int(play.games._budget[0])
    # many games' figures: more cells than one game has figures
    assert len(np.unique(starts)) > play.games.F
    for _ in range(7):           # the timed play moves on: the reference does not
        play.step()
    prep2, starts2, budget2 = _reference("grid", scen, play)
    assert np.array_equal(starts, starts2) and budget2 == budget
    # the query runs: one end list per start
    assert len(prep.reach_many(starts, budget, threads=1)) == REF_QUERIES


def test_batch_report_without_the_rl_extra_says_its_env_rows_are_left_out(monkeypatch):
    """Where Gymnasium is not installed (hidden here by a None in ``sys.modules``) the
    report plays and prints the ``BatchedPlay`` rows and says once, naming the rl
    extra, that the vector env rows are left out: none is measured."""
    import sys
    monkeypatch.setitem(sys.modules, "gymnasium", None)
    monkeypatch.setattr(bench_batch, "ENV_BATCHES", (4, 8))
    monkeypatch.setattr(bench_batch, "BENCH", Schedule(2, 0.0, True))
    monkeypatch.setattr(bench_batch, "WINDOW", Schedule(3, 0.0, True))
    monkeypatch.setattr(bench_batch, "memory_4096", lambda game: 1.0)
    lines = []
    out = bench_batch.batch_report(["grid"], min_time=0.0, selfplay_games=2,
                                   batches=(1, 64), log=lambda *a, **k: lines.append(a[0]))
    said = [x for x in lines if "vector env rows are left out" in x]
    assert len(said) == 1 and "movecore[rl]" in said[0] and "gymnasium" in said[0]
    row = out["grid"]
    assert row[(64, 1)] > 0
    assert not any(isinstance(k, tuple) and str(k[0]).startswith("env") for k in row)


def test_batch_report_prints_paired_medians(monkeypatch):
    """One small run of the report: its figures are there, finite, their quartiles in
    order, and the printed lines show them."""
    monkeypatch.setattr(bench_batch, "ENV_BATCHES", (4, 8))
    monkeypatch.setattr(bench_batch, "BENCH", Schedule(2, 0.0, True))
    monkeypatch.setattr(bench_batch, "WINDOW", Schedule(3, 0.0, True))
    monkeypatch.setattr(bench_batch, "memory_4096", lambda game: 1.0)
    paired, real = [], bench_batch._paired

    def spy(figs, ref, moves=None):
        paired.append(moves)
        return real(figs, ref, moves)
    monkeypatch.setattr(bench_batch, "_paired", spy)
    lines, ratios, real_ratio = [], [], bench_batch._thread_ratio

    def spy_ratio(one, two):
        ratios.append((one, two, len(lines)))
        got = real_ratio(one, two)
        # the play's second window (the fourth ratio taken: the play's, its several
        # steps a call's and the env's per window) met a spell of a busy machine: it
        # must be retaken; every other window waited for nothing
        got["waited"] = 0.5 if len(ratios) == 4 else 0.0
        return got
    monkeypatch.setattr(bench_batch, "_thread_ratio", spy_ratio)
    out = bench_batch.batch_report(["grid"], min_time=0.0, selfplay_games=2,
                                   batches=(1, 64), log=lambda *a, **k: lines.append(a[0]))
    row = out["grid"]
    text = "\n".join(lines)
    for B in (1, 64):
        for key in ((B, 1), (B, 2), ("best", B, 1)):
            assert row[key] > 0
        r = row[("ratio", B)]
        assert r["n"] >= 2
        for how in ("wall", "cpu"):
            med, q1, q3 = r[how]
            assert 0 < q1 <= med <= q3
        assert f"B=64: {row[('ratio', 64)]['wall'][0]:.2f}" in text
    k, (k_med, k1, k3) = row["kernel"], row[("kernel", "quartiles")]
    assert k == k_med and 0 < k1 <= k <= k3
    assert f"{k:,.0f} queries/s" in text
    assert 0 < row["share"] <= 1.05
    best, ratio = row["move/query"]
    assert best in (1, 64) and ratio == row[("ratio", best)]
    assert ratio["cpu"][0] == min(row[("ratio", B)]["cpu"][0] for B in (1, 64))
    for key in (1, "kept"):
        r = row[("env ratio", 8, key)]
        assert 0 < r["cpu"][1] <= r["cpu"][0] <= r["cpu"][2]
        assert row[("env moves", 8, key)] > 0
    assert ("env ratio", 8, 2) not in row
    # the env's ratios count its figure moves per round (env 1 at B = 4; env 1 and the
    # kept observations at B = 8), the plays' their own units (2 B)
    assert sum(m is not None for m in paired) == 3 and paired.count(None) == 2
    assert "kernel queries (paired rounds, wall)" in text
    # 2 threads / 1 (B = 64, the env at B = 8): one window in the game's own rounds, then
    # one per pass over the games; every window 1- and 2-thread rounds of the same passes
    W = bench_batch.THREAD_WINDOWS
    # W windows of the play, of its several steps a call (BatchedPlay.steps) and of the
    # env, then one retake of the play's
    assert W == 3 and len(ratios) == 3 * W + 1
    for k, (one, two, _) in enumerate(ratios):
        # (the game's own window: BENCH's rounds; the further ones: WINDOW's)
        assert len(one.rounds) == len(two.rounds) >= (2 if k < 3 else 3)
        # every round records the seconds its threads waited for a core
        assert all(len(r) == 5 and r[4] >= 0 for r in one.rounds + two.rounds)
    assert all(len(one.rounds) == 3 for one, _, _ in ratios[3:])
    # the further windows come after the game's rows are taken, announced, and before
    # the rows are printed; then the retake, announced, of the play's window alone
    passes = [i for i, line in enumerate(lines) if "2 threads / 1: window" in line]
    retakes = [i for i, line in enumerate(lines) if "2 threads / 1: retake" in line]
    assert len(passes) == W - 1 and len(retakes) == 1 and "grid play ..." in lines[retakes[0]]
    assert [at for _, _, at in ratios] == [passes[0]] * 3 + [passes[0] + 1] * 3 + \
        [passes[1] + 1] * 3 + [retakes[0] + 1]
    printed = next(i for i, line in enumerate(lines) if line.startswith("  grid ["))
    assert printed > retakes[-1]
    # the legend, once, just above the rows; the game's pass names its window 1
    assert lines.count(bench_batch.LEGEND) == 1 and lines[printed - 1] == bench_batch.LEGEND
    assert any(line.startswith("[batch] grid (") and "window 1" in line for line in lines)
    for key, n, counted in ((("threads", 64), W + 1, [True, False, True, True]),
                            (("threads", "bulk", 64), W, [True] * W),
                            (("threads", "env", 8), W, [True] * W)):
        t = row[key]
        assert len(t["windows"]) == n and t["counted"] == counted and t["n"] >= 2 * W
        kept = [w for w, c in zip(t["windows"], counted) if c]
        assert t["wall"] == approx(float(np.median(kept))) and t["cpu"] > 0
        assert t["rounds"][1] <= t["rounds"][0] <= t["rounds"][2]
        assert f"{t['wall']:.2f}x (median of {W} windows: " in text
    assert f"[{row[('threads', 64)]['windows'][1]:.2f}: waited 50%]" in text
    assert row["steps_per_call"] == STEPS_PER_CALL > 1
    assert f"2 threads / 1 at B=64, {STEPS_PER_CALL} steps a call (BatchedPlay.steps" in text
