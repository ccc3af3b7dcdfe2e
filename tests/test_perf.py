"""Performance issue: the fast kernel (``reach1``) agrees exactly with the general one,
threads give the same answers as one thread, repeated queries do not grow memory, and the
benchmark command and workloads work. Timing targets are measured by ``movecore bench``
(see docs/performance.md), not asserted here: CI machines are too noisy."""
from __future__ import annotations

import importlib
import sys
import threading
import weakref
from dataclasses import replace

import numpy as np
import pytest

import movecore as mc
from movecore.tools import workloads
from randboards import random_case, unit_cost_twin

R = importlib.import_module("movecore.reach")


def _same_reach(a, b):
    for f in ("cells", "costs", "stopped", "free_costs", "penalties", "penalty_costs"):
        assert np.array_equal(getattr(a, f), getattr(b, f)), f
    assert np.array_equal(a._tree, b._tree)
    assert np.array_equal(a._tree_of, b._tree_of)


def test_fast_kernel_equals_general_kernel_exactly():
    """Same ends, same order, same search tree (paths) as the linked-list kernel."""
    checked = 0
    for seed in range(1500):
        spec, board, mover, layers, start, budget, rng = random_case(seed, penalties=False)
        q = R._prepare(board, mover, budget, layers["occupant"], layers["cell_flags"],
                       layers["zoc"], None, None, 1, None)
        if q.blob is None:
            continue
        checked += 1
        fast = R._reach_prepared(q, start, budget)
        slow = R._reach_prepared(replace(q, blob=None), start, budget)
        _same_reach(fast, slow)
        for cell in fast.cells[:5]:
            assert fast.path(int(cell)).tolist() == slow.path(int(cell)).tolist()
    assert checked > 1000


@pytest.mark.parametrize("kind", ["hex", "square4", "square8"])
def test_plain_build_equals_general_build_exactly(kind):
    """``reach1_plain`` (stop, flag, zoc, edge and corner tests compiled out) answers plain
    queries exactly as ``reach1_general`` does: ends, order and search tree. Each kind of
    board is its own compiled variant (neighbour count, climb rule, unit steps; one
    source, specialised by constants): every run checks all nine (the square ones were
    in the soak tier to save their compiles, ~4 CPU s each on a cold cache, but other
    tests of every run compile each of them too: their checks cost ~1 s more)."""
    from movecore.kernels.reach import is_plain
    checked = 0
    for seed in range(300):
        spec, board, mover, layers, start, budget, rng = random_case(seed, kind=kind,
                                                                     plain=True)
        q = R._prepare(board, mover, budget, layers["occupant"], None, None, None, None, 1,
                       None)
        if q.blob is None or not is_plain(q.blob, q.qflags, q.zoc, q.params):
            continue
        checked += 1
        assert q.kernel is R._REACH1[True]
        general = replace(q, kernel=R._REACH1[False])
        _same_reach(R._reach_prepared(q, start, budget),
                    R._reach_prepared(general, start, budget))
    assert checked > 200


def test_queries_that_can_stop_or_carry_layers_are_not_plain():
    """Each feature the plain build compiles out (stops, per-query flags, zones of
    control, side edges, the corner rule, links) sends a query to the general build."""
    from movecore.kernels import _types as T
    hexes = [(q, r) for q in range(4) for r in range(4)]
    board = mc.Board.hex(hexes, terrain=[0] * 15 + [1])
    n = board.n_cells

    def kind(board, mover, **layers):
        q = R._prepare(board, mover, 3, layers.get("occupant"), layers.get("cell_flags"),
                       layers.get("zoc"), None, None, 1, None)
        return "plain" if q.kernel is R._REACH1[True] else "general"

    assert kind(board, mc.Mover(terrain_cost=[1, 2])) == "plain"
    assert kind(board, mc.Mover(terrain_cost=[1, 2]),
                occupant=np.full(n, T.OCC_EMPTY, np.int32)) == "plain"
    assert kind(board, mc.Mover(terrain_cost=[1, 2], stop_terrain=[1])) == "general"
    assert kind(board, mc.Mover(), cell_flags=np.zeros(n, np.uint8)) == "general"
    assert kind(board, mc.Mover(), zoc=np.zeros(n, np.uint64)) == "general"
    stop_cell = mc.Board.hex(hexes, flags=[T.CELL_STOP] + [0] * 15)
    assert kind(stop_cell, mc.Mover()) == "general"
    walled = board.with_edges([{"between": (0, 1), "blocked": True}])
    assert kind(walled, mc.Mover(terrain_cost=[1, 2])) == "general"
    portal = board.with_links([mc.Link(0, 15, 1, 0, True)])
    assert kind(portal, mc.Mover(terrain_cost=[1, 2])) == "general"
    sq8 = mc.Board.square(4, 4, neighbours=8)
    assert kind(sq8, mc.Mover()) == "plain"
    assert kind(sq8, mc.Mover(corner_cutting=False)) == "general"
    # and the answers differ where it matters: a stop terrain ends the move there
    r = mc.reach(board, mc.Mover(terrain_cost=[1, 1], stop_terrain=[1]), 14, 3)
    assert bool(r.stopped[r.end_index(15)])


def test_single_query_entry_equals_tree_mode_up_to_a_full_board():
    """``reach1_one`` (5 arguments, ends packed as cells, costs, stopped after the
    search) gives a plain reach() the tree-mode answer, also when the move reaches every
    cell (the packing moves each row down over the one before: n == N is its edge)."""
    full = 0
    for seed in range(400):
        spec, board, mover, layers, start, budget, rng = random_case(seed, plain=True)
        for b in (budget, 4 * budget + 8):
            r = mc.reach(board, mover, start, b)
            q = R._prepare(board, mover, b, None, None, None, None, None, 1, None)
            if q.one is None:
                continue
            assert r._blk is not None and r._blk.shape == (3 * len(r),)
            full += len(r) == board.n_cells
            _same_reach(r, R._reach_prepared(q, start, b))
    assert full > 20


def test_packed_result_reads_like_an_eager_one():
    board = mc.Board.square(5, 1, terrain=[0, 0, 1, 0, 0])
    occupant = board.occupancy({4: 1})  # a per-query layer: tree mode, packed result
    r = mc.reach(board, mc.Mover(terrain_cost=[1, 3]), (0, 0), budget=4, occupant=occupant)
    assert r._out is not None and r._blk is None
    assert r.cells.tolist() == [0, 1, 2] and r.costs.tolist() == [0, 1, 4]
    assert r.stopped.dtype == bool and r.free_costs.tolist() == [0, 1, 4]
    assert r.penalties.tolist() == [0, 0, 0] and r.penalty_costs.tolist() == [0, 1, 4]
    assert r._tree_of.shape == (3, 2) and r._tree.shape[1] == 4
    assert "3 ends" in repr(r) and len(r) == 3
    with pytest.raises(AttributeError):
        r.no_such_field


def test_plain_result_keeps_ends_only_until_a_path_is_asked_for():
    """A plain reach() runs in ends mode; stopped, penalties and (when nothing had to
    stop) free costs need no tree; a path or a stopped end's free cost runs the query
    again in tree mode, with the same answer as an eager (tree-mode) result."""
    board = mc.Board.square(5, 1, terrain=[0, 0, 1, 0, 0])
    mover = mc.Mover(terrain_cost=[1, 3])
    r = mc.reach(board, mover, (0, 0), budget=4)
    assert r._out is None and r._blk is not None
    assert r.cells.tolist() == [0, 1, 2] and r.costs.tolist() == [0, 1, 4]
    assert r.stopped.tolist() == [False] * 3 and r.free_costs.tolist() == [0, 1, 4]
    assert r.penalties.tolist() == [0, 0, 0] and r.penalty_costs.tolist() == [0, 1, 4]
    assert r._out is None  # none of those needed the tree
    assert r.path_coords((2, 0)) == [(0, 0), (1, 0), (2, 0)]
    assert r._out is not None and r._tree_of.shape == (3, 2)
    with pytest.raises(AttributeError):
        r.no_such_field
    # water: the stopped end's free cost comes from the tree, and agrees with tree mode
    hexes = [(q, 0) for q in range(5)]
    river = mc.Board.hex(hexes, terrain=[0, 1, 0, 0, 0])
    wader = mc.Mover(terrain_cost=[1, 1], stop_terrain=[1])
    for budget in range(5):
        lazy = mc.reach(river, wader, 0, budget)
        assert lazy._out is None
        q = R._prepare(river, wader, budget, None, None, None, None, None, 1, None)
        _same_reach(lazy, R._reach_prepared(q, 0, budget))
    assert lazy.stopped.tolist() == [False, True]
    assert lazy.free_costs.tolist() == [0, -1]


def test_a_result_does_not_change_when_the_callers_layers_do():
    """A result that may run its query again (ends mode) must not see the caller's
    arrays change: reach() with layers answers in full at once, prepare() copies them."""
    board = mc.Board.square(4, 1)
    mover = mc.Mover(enemies="block")
    for make in (lambda occ: mc.reach(board, mover, 0, 3, occupant=occ),
                 lambda occ: mc.prepare(board, mover, 3, occupant=occ).reach(0)):
        occ = board.occupancy({})  # nobody on the board yet
        r = make(occ)
        occ[2] = 1  # an enemy arrives in the caller's array afterwards
        assert r.cells.tolist() == [0, 1, 2, 3]
        assert r.path(3).tolist() == [0, 1, 2, 3] and r.parents.tolist() == [-1, 0, 1, 2]


def test_fast_batch_equals_single_queries():
    for seed in range(300):
        spec, board, mover, layers, start, budget, rng = random_case(seed, penalties=False)
        starts = [start] + rng.sample(range(board.n_cells), min(4, board.n_cells))
        budgets = [budget] + [rng.randint(0, budget) for _ in starts[1:]]
        b = mc.reach_many(board, mover, starts, budgets, **layers)
        for i, (s, bud) in enumerate(zip(starts, budgets)):
            r = mc.reach(board, mover, s, bud, **layers)
            cells, costs, stopped = b[i]
            assert cells.tolist() == r.cells.tolist()
            assert costs.tolist() == r.costs.tolist()
            assert stopped.tolist() == r.stopped.tolist()


def test_a_batch_result_keeps_its_answer_while_later_batches_run():
    """A one-thread batch hands its output block to the result when the block is
    mostly that result (no copy), a small one is copied: either way a later batch on
    the same thread, board and size writes elsewhere."""
    w = workloads.make("skirmish-hex", n_starts=600)
    p = mc.prepare(w.board, w.mover, w.budget)
    kept = []
    for starts in (w.starts[:300], w.starts[300:], w.starts[:3], w.starts[::-1]):
        b = p.reach_many(starts, threads=1)
        kept.append((b, b.cells.copy(), b.costs.copy(), b.stopped.copy()))
    assert kept[0][0].cells.base is not None  # handed over: a view of the block
    for (b, cells, costs, stopped), (b2, *_) in zip(kept, kept[1:]):
        assert not np.shares_memory(b.cells, b2.cells)
    for b, cells, costs, stopped in kept:
        assert np.array_equal(b.cells, cells) and np.array_equal(b.costs, costs)
        assert np.array_equal(b.stopped, stopped)
    small = kept[2][0]
    assert small.cells.base is None  # a few ends out of a large block: copied
    assert [small[i][0].tolist() for i in range(3)] == \
        [p.reach(int(s)).cells.tolist() for s in w.starts[:3]]
    # once no result holds it, the block serves the next batch again
    block = weakref.ref(kept[3][0].cells.base)
    del kept, b, b2, small
    again = p.reach_many(w.starts[::-1], threads=1)
    assert again.cells.base is block()
    assert np.array_equal(again.cells, p.reach_many(w.starts[::-1], threads=1).cells)


def _answers(w, starts):
    return [(r.cells.tolist(), r.costs.tolist(), r.path(int(r.cells[-1])).tolist())
            for r in (mc.reach(w.board, w.mover, int(s), w.budget) for s in starts)]


def test_two_threads_give_the_same_results_as_one():
    w = workloads.make("skirmish-hex", n_starts=10_000)
    starts = w.starts
    want = _answers(w, starts)
    got = [None, None]

    def work(i):
        got[i] = _answers(w, starts)

    ts = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert got[0] == want and got[1] == want


@pytest.mark.parametrize("how", ["pool", "prange"])
def test_a_two_thread_batch_of_10000_equals_one_thread(how, monkeypatch):
    """Both ways of running a batch's chunks on two threads (a thread pool, the
    default; a Numba parallel region) give the one-thread answer, query by query."""
    monkeypatch.setattr(R, "BATCH_THREADS", how)
    w = workloads.make("skirmish-hex", n_starts=10_000)
    one = mc.reach_many(w.board, w.mover, w.starts, w.budget, threads=1)
    for _ in range(3):
        two = mc.reach_many(w.board, w.mover, w.starts, w.budget, threads=2)
        for f in ("offsets", "cells", "costs", "stopped"):
            assert np.array_equal(getattr(two, f), getattr(one, f)), f
    assert [cells for cells, _, _ in _answers(w, w.starts[:500])] == \
        [one[i][0].tolist() for i in range(500)]


@pytest.mark.parametrize("how", ["pool", "prange"])
def test_threads_mixing_batches_and_single_queries(how, monkeypatch):
    monkeypatch.setattr(R, "BATCH_THREADS", how)
    w = workloads.make("heights-hex", n_starts=400)
    want = mc.reach_many(w.board, w.mover, w.starts, w.budget, threads=1)
    errors = []

    def work():
        try:
            for _ in range(5):
                b = mc.reach_many(w.board, w.mover, w.starts, w.budget)
                assert np.array_equal(b.cells, want.cells)
                assert np.array_equal(b.costs, want.costs)
                for i in range(0, len(w.starts), 37):
                    r = mc.reach(w.board, w.mover, int(w.starts[i]), w.budget)
                    assert r.cells.tolist() == want[i][0].tolist()
        except AssertionError as exc:  # pragma: no cover - reported below
            errors.append(exc)

    ts = [threading.Thread(target=work) for _ in range(2)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors


def test_repeated_queries_do_not_grow_memory():
    from movecore.tools.bench import memory_run
    before, after, _ = memory_run(20_000)
    assert after - before < 4 * 2**20


def test_repeated_queries_allocate_nothing_proportional_to_the_board():
    """The query buffers are reused: a query on the 65,536-cell board returns arrays
    sized by its ends, not by the board."""
    w = workloads.make("big-square4", n_starts=5)
    r = mc.reach(w.board, w.mover, int(w.starts[0]), 3)
    assert r.cells.base is not None and r.cells.base.size < 3 * 100
    assert r.costs.base is r.cells.base
    assert r._tree.base is not None and r._tree.base.size < 100 * 8  # tree mode, rerun
    assert r.free_costs.base is r._tree.base


@pytest.mark.parametrize("how", ["pool", "prange"])
def test_a_batch_whose_ends_overflow_the_first_arena_is_run_again_exactly(how, monkeypatch):
    """Hundreds of ends per query overflow the batch's first output arena (64 per
    query): the retry starts from clean scratch and gives the single-query answers."""
    monkeypatch.setattr(R, "BATCH_THREADS", how)
    board = mc.Board.square(30, 30)
    mover = mc.Mover()
    starts = np.arange(0, 900, 7, dtype=np.int32)
    for threads in (1, 2):
        b = mc.reach_many(board, mover, starts, 20, threads=threads)
        assert b.offsets[-1] > 64 * len(starts) + board.n_cells
        for i, s in enumerate(starts):
            r = mc.reach(board, mover, int(s), 20)
            assert b[i][0].tolist() == r.cells.tolist()
            assert b[i][1].tolist() == r.costs.tolist()


def test_workloads_are_deterministic_and_double_space_is_a_placement_graph():
    for name in workloads.NAMES:
        a, b = workloads.make(name, n_starts=20), workloads.make(name, n_starts=20)
        assert np.array_equal(a.starts, b.starts) and a.board.n_cells == b.board.n_cells
    d = workloads.make("double-space", n_starts=20)
    pl = d.extra["placements"]
    assert d.board is pl.board and d.single.board is d.extra["field"].board
    assert np.array_equal(d.single.starts, pl.lead[d.starts])
    r = mc.reach(d.board, d.mover, int(d.starts[0]), d.budget, **d.query_kwargs())
    assert len(r) > 10


def test_bench_methods_agree_on_a_small_run():
    from movecore.tools.bench import bench_workload
    w = workloads.make("dungeon-square8", n_starts=8)
    rows, notes = bench_workload(w, 8, ("scipy", "heapq"), rounds=1, min_time=0.0,
                                 log=lambda *a: None)
    assert rows[0][0].startswith("movecore") and all(ok for _, _, ok in rows)
    assert {m for m, _, _ in rows} >= {"movecore reach (1/call)", "heapq (Python)"}


def test_warmup_and_cli_registration():
    import argparse
    from movecore.tools import bench
    mc.warmup()
    p = argparse.ArgumentParser()
    sub = p.add_subparsers()
    bench.register(sub)
    args = p.parse_args(["bench", "--queries", "3", "--memory", "0", "--no-cold"])
    assert args.fn is bench.run_bench and args.queries == 3


def test_bench_says_each_phase_as_it_starts_and_the_load(capsys):
    """`movecore bench` names each phase before it runs (the long ones go silent
    otherwise) and prints the load average before and after."""
    import argparse
    from movecore.tools import bench
    p = argparse.ArgumentParser()
    bench.register(p.add_subparsers())
    args = p.parse_args(["bench", "--workloads", "skirmish-hex", "--queries", "3",
                         "--peers", "", "--rounds", "1", "--min-time", "0",
                         "--memory", "20", "--no-cold", "--no-big"])
    assert bench.run_bench(args) == 0
    out = capsys.readouterr().out
    marks = ["load average", "== loading the kernels", "kernels ready",
             "== workload skirmish-hex", "== double-space", "double-space query",
             "== memory: 20 queries", "memory: 20 queries in", "load average"]
    at = 0
    for m in marks:
        i = out.find(m, at)
        assert i >= 0, (m, out)
        at = i + len(m)


def test_bench_warns_on_a_busy_machine():
    from movecore.tools import bench
    quiet = bench.load_note((0.5, 0.4, 0.3), 2)
    assert quiet == "load average 0.50 0.40 0.30 on 2 cores"
    busy = bench.load_note((4.2, 3.0, 2.0), 2)
    assert busy.startswith("load average 4.20 3.00 2.00 on 2 cores\nwarning: the machine "
                           "is busy (load 4.20 > 1 per core)")
    assert "warning" not in bench.load_note((2.0, 2.0, 2.0), 2)


@pytest.mark.skipif(not importlib.import_module("movecore.kernels._types").CACHE,
                    reason="the Numba cache is turned off")
def test_a_second_import_loads_every_kernel_from_the_cache():
    """Cold start: once the cache is filled, an import compiles nothing. (A kernel whose
    cache key changes from process to process, e.g. one capturing another dispatcher in
    a closure, would be compiled again at every import: seconds, not a fraction.)"""
    import os
    import subprocess
    env = dict(os.environ, NUMBA_DEBUG_CACHE="1")
    env.pop("MOVECORE_NO_CACHE", None)
    # warm-up, then the lazily built kernel of the other batch threading
    code = ("import sys, movecore; movecore.warmup(); "
            "sys.modules['movecore.reach'].BATCH_THREADS = 'prange'; "
            "movecore.reach_many(movecore.Board.square(4, 4), movecore.Mover(), [0, 5], 3, "
            "threads=2)")
    subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, check=True)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout
    assert "data loaded" in out
    assert "data saved" not in out, [ln for ln in out.splitlines() if "saved" in ln]


def test_batch_and_field_kernels_compile_at_their_first_use():
    """The kernels only some programs call (reach_many's general batch and its gather,
    distance_field's) are not compiled by the import, so a solve or the demo never waits
    for them on a cold cache; at their first call they compile (or load) exactly their
    declared signature, once."""
    import subprocess
    code = """
import numpy as np
import movecore as mc
from movecore.kernels import reach as K
lazy = (K.reach_batch, K.field_query, K.gather_batch)
print([len(k.compiled) for k in lazy])
mc.distance_field(mc.Board.square(3, 3), mc.Mover(), [0])
K.gather_batch(np.zeros(1, np.int64), np.zeros((1, 1, 3), np.int32), 1,
               np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros(0, np.uint8))
print([len(k.compiled) for k in lazy])
print([len(k.compiled[0].signatures) for k in lazy[1:]])
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split("\n")[:3] == ["[0, 0, 0]", "[0, 1, 1]", "[1, 1]"]


def test_fast_kernel_equals_general_kernel_on_unit_costs():
    """Unit-cost movers settle in FIFO order (the general kernel's BFS): same order."""
    from movecore.kernels import _types as T
    checked = 0
    for seed in range(600):
        spec, board, mover, layers, start, budget, rng = random_case(seed, penalties=False)
        unit = unit_cost_twin(mover)
        q = R._prepare(board, unit, budget, layers["occupant"], layers["cell_flags"],
                       layers["zoc"], None, None, 1, None)
        if q.params[T.P_UNIT] != 1 or q.blob is None:
            continue
        checked += 1
        _same_reach(R._reach_prepared(q, start, budget),
                    R._reach_prepared(replace(q, blob=None), start, budget))
    assert checked > 50


def _plain_dial_case(seed):
    """A seeded board and mover that ``reach_plain_k`` answers: hex, square4 or square8,
    terrain costs with zero-cost and impassable ids (or unit costs: BFS), blocked cells,
    heights paid per level or not, nobody on the board."""
    import random

    from movecore.kernels import _types as T
    rng = random.Random(seed)
    kind = rng.choice(["hex", "square4", "square8"])
    w, h = rng.randint(2, 12), rng.randint(1, 10)
    cells = [(x, y) for x in range(w) for y in range(h) if rng.random() < 0.9] or [(0, 0)]
    rng.shuffle(cells)
    n = len(cells)
    table = [rng.choice([0, 1, 1, 2, 3, 5, -1]) for _ in range(rng.randint(1, 4))]
    if rng.random() < 0.25:  # every step costs 1: the BFS variant
        table = [rng.choice([1, 1, -1]) for _ in table]
        table[0] = 1
    terrain = [rng.randrange(len(table)) for _ in range(n)]
    height = None if rng.random() < 0.4 else [rng.randint(0, 4) for _ in range(n)]
    flags = [int(T.CELL_BLOCKED) if rng.random() < 0.05 else 0 for _ in range(n)]
    board = (mc.Board.hex(cells, terrain=terrain, height=height, flags=flags)
             if kind == "hex" else
             mc.Board.square_cells(cells, neighbours=int(kind[-1]), terrain=terrain,
                                   elevation=height, flags=flags))
    mover = mc.Mover(terrain_cost=table, climb_per_level=rng.choice([0, 1, 2]))
    return board, mover, rng


def test_plain_kernel_at_the_limit_equals_reach1_exactly():
    """``reach_plain_k`` (neighbour count compiled in, padded cell words, stamped
    distances, pooled bucket lists or a BFS queue) gives prepare().reach and reach_many
    the same ends in the same order as ``reach1_plain``, over seeded random boards,
    budgets and starts, on one and two threads, also across the wrap of its distance
    stamps."""
    from movecore.kernels import _types as T
    from movecore.kernels.reach import _reach1_size
    checked, fifo = 0, 0
    for seed in range(400):
        board, mover, rng = _plain_dial_case(seed)
        top = rng.choice([0, 1, 3, 6, 12, 40])
        p = mc.prepare(board, mover, top)
        if p._q.fast is None:
            continue
        checked += 1
        fifo += int(p._q.params[T.P_UNIT])
        ref = mc.Prepared(replace(p._q, fast=None, one=R._REACH1_ONE[True]), mover)
        assert p._q.one is not ref._q.one
        if seed % 7 == 0:  # the next query's stamps wrap: zeroed once, same answers
            ws = R._fast_workspace(board.n_cells, p._q.nb)
            ws.buf[_reach1_size(board.n_cells, int(ws.buf[2]))] = 2 ** 31 - 3
        starts = [rng.randrange(board.n_cells) for _ in range(8)]
        budgets = [rng.randint(0, top) for _ in starts]
        for s, b in zip(starts, budgets):
            got, want = p.reach(s, b), ref.reach(s, b)
            assert np.array_equal(got._blk, want._blk)  # cells, costs, stopped rows
            assert got.cells.tolist() == want.cells.tolist()
            assert got.costs.tolist() == want.costs.tolist()
            assert got.path(int(got.cells[-1])).tolist() == \
                want.path(int(want.cells[-1])).tolist()
        want = ref.reach_many(starts, budgets, threads=1)
        for threads in (1, 2):
            got = p.reach_many(starts, budgets, threads=threads)
            assert np.array_equal(got.offsets, want.offsets)
            assert np.array_equal(got.cells, want.cells)
            assert np.array_equal(got.costs, want.costs)
            assert not got.stopped.any()
    assert checked > 250 and fifo > 40


def test_plain_kernel_at_the_limit_hands_other_queries_to_reach1():
    """The workloads' queries take ``reach_plain_k``; someone on the board (a live
    position's set_layer) or a per-query layer swapped in sends its batches to
    ``reach1``, with reach1's answers."""
    for name in ("skirmish-hex", "dungeon-square8", "heights-hex"):
        w = workloads.make(name, n_starts=50)
        p = mc.prepare(w.board, w.mover, w.budget, occupant=np.full(w.board.n_cells, -1))
        assert p._q.fast is not None and p._q.one is not None
        enemy = int(w.starts[0])
        p.set_layer("occupant", enemy, 1)  # blocks it (enemies: block by default)
        assert p._q.one is None
        got = p.reach_many(w.starts[1:], threads=1)
        want = mc.reach_many(w.board, w.mover, w.starts[1:], w.budget,
                             occupant=p._q.occupant, threads=1)
        assert np.array_equal(got.cells, want.cells) and enemy not in set(got.cells.tolist())
        assert np.array_equal(got.offsets, want.offsets)


def test_import_leaves_scipy_linalg_to_numba_first_use():
    """``import movecore`` (and warmup) does not pay for numba's import of scipy.linalg
    (its BLAS probe), and numba still finds BLAS when it compiles linear algebra."""
    import subprocess
    pytest.importorskip("scipy")
    code = ("import sys, numpy as np, movecore; movecore.warmup(); import numba; "
            "before = 'scipy.linalg' in sys.modules; "
            "f = numba.njit(lambda x: np.dot(x, x)); "
            "print(before, f(np.eye(2)).sum(), 'scipy.linalg.cython_blas' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["False", "2.0", "True"]


@pytest.mark.skipif(not importlib.import_module("movecore.kernels._types").CACHE,
                    reason="the numba cache is off (MOVECORE_NO_CACHE)")
def test_kernel_variants_keep_their_own_cache_index():
    """Each variant a factory builds (reach1 general/plain, reach1_one, reach_plain_k per
    board kind) has its own numba cache index. Variants sharing one index raced when
    processes compiled different ones at once (self-play workers on a cold cache): one
    overwrote the other's data file and the index mapped a variant to another's code,
    which then answered plain queries wrongly from the cache."""
    K = importlib.import_module("movecore.kernels.reach")
    kernels = [K.reach1_general, K.reach1_plain, K.reach1_one_general, K.reach1_one_plain]
    for k in (4, 6, 8):
        for climb, fifo in ((False, False), (True, False), (False, True)):
            kernels += list(K.reach_plain_k(k, climb, fifo))
    index = [d._cache._cache_file._index_path for d in kernels]
    assert len(set(index)) == len(index)
