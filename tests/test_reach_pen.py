"""The packed penalty kernel (``kernels/reach_pen.py``) against the general kernel, exactly,
over thousands of seeded random boards with penalties (hex, square4, square8, heights and
climb limits, stop cells and terrain, provoke tokens, allies / enemies, links, side edges,
leave masks, enter penalties, max_penalty caps), its paths against the rules, its batches
against its single queries, and the dispatch that sends penalty queries to it."""
from __future__ import annotations

import importlib
import json
import pkgutil
from pathlib import Path

import numpy as np
import pytest

import movecore as mc
from movecore.kernels import _types as T
from oracle import oracle_reach, path_totals
from randboards import random_case

R = importlib.import_module("movecore.reach")
#: The package and its modules: each module calls the kernels and helpers it imported
#: itself, so a stand-in is set in every module that binds the name (patch_reach).
REACH_MODULES = [R] + [importlib.import_module(f"movecore.reach.{m.name}")
                       for m in pkgutil.iter_modules(R.__path__)]
N_BOARDS = 2400
FIELDS = ("cells", "costs", "stopped", "free_costs", "penalties", "penalty_costs")
EXAMPLES = Path(__file__).resolve().parents[1] / "core" / "examples"


def patch_reach(m, name: str, value) -> None:
    """``name`` replaced by ``value`` (with ``monkeypatch`` context ``m``) in every module
    of movecore.reach that binds it."""
    bound = [mod for mod in REACH_MODULES if name in vars(mod)]
    assert bound, name
    for mod in bound:
        m.setattr(mod, name, value)


def penalty_case(seed: int):
    """A random board with a penalty query; every third one with a tight cap (1 or 2
    levels above none) so that penalties saturate, every fifth with a larger budget."""
    spec, board, mover, layers, start, budget, rng = random_case(seed, penalties=True)
    if seed % 3 == 0:
        spec["max_penalty"] = layers["max_penalty"] = rng.choice([1, 2])
    if seed % 5 == 0:
        budget = rng.randint(8, 16)
    q = R._prepare(board, mover, budget, layers["occupant"], layers["cell_flags"],
                   layers["zoc"], layers["leave"], layers["enter_penalty"],
                   layers["leave_weight"], layers["max_penalty"])
    return spec, board, mover, layers, start, budget, rng, q


def _check_paths(spec, r, i, budget):
    """The least-cost, least-penalty and free paths to end i follow legal steps (only the
    last may stop; the free one none) and cost / weigh what the result reports."""
    cell = int(r.cells[i])
    p = r.path(cell).tolist()
    assert p[0] == r.start and p[-1] == cell
    totals, _ = path_totals(spec, p)
    assert int(r.costs[i]) in totals and r.costs[i] <= budget, (p, totals)
    p = r.path(cell, least_penalty=True).tolist()
    assert p[0] == r.start and p[-1] == cell
    totals, pen = path_totals(spec, p)
    assert int(r.penalty_costs[i]) in totals and pen == r.penalties[i], (p, totals, pen)
    if r.free_costs[i] >= 0:
        p = r.path(cell, free=True).tolist()
        totals, _ = path_totals(spec, p, free_end=True)
        assert p[-1] == cell and int(r.free_costs[i]) in totals, (p, totals)
    else:
        with pytest.raises(mc.QueryError):
            r.path(cell, free=True)


@pytest.mark.parametrize("block", range(4))
def test_penalty_kernel_equals_general_kernel_exactly(block):
    """Every result column, the search tree and each end's tree rows: row for row the
    general kernel's (same settle order), and every path valid."""
    seen = dict(fast=0, penalty=0, capped=0, stopped=0, stop_and_free=0, links=0,
                edges=0, zoc=0)
    kinds = set()
    for seed in range(block * N_BOARDS // 4, (block + 1) * N_BOARDS // 4):
        spec, board, mover, layers, start, budget, rng, q = penalty_case(seed)
        assert q.pblob is not None and q.blob is None
        fast = R._reach_prepared(q, start, budget)
        slow = R._run_general(q, start, budget)
        for f in FIELDS + ("_tree", "_tree_of"):
            a, b = np.asarray(getattr(fast, f)), np.asarray(getattr(slow, f))
            assert a.dtype == b.dtype and a.shape == b.shape and (a == b).all(), (seed, f)
        # rows mode (the positions' entry: no tree) lists the same ends, fields, order
        rows = R._pen_rows(q, q.occupant, q.qflags, q.leave, q.enter_pen, start, budget)
        want = np.stack([slow.cells, slow.costs, slow.stopped, slow.penalties,
                         slow.penalty_costs, slow.free_costs], axis=1)
        assert np.array_equal(rows[:, [0, 1, 2, 4, 5, 7]], want), seed
        assert (rows[:, [3, 6]] == -1).all()
        # Prepared.reach(paths=False): the same columns, no paths
        lean = R._pen_ends(q, start, budget)
        for f in FIELDS:
            assert np.array_equal(getattr(lean, f), getattr(slow, f)), (seed, f)
        with pytest.raises(mc.QueryError, match="paths=False"):
            lean.path(start)
        for i in range(min(len(fast), 6)):
            _check_paths(spec, fast, i, budget)
        seen["fast"] += 1
        seen["penalty"] += bool((fast.penalties > 0).any())
        seen["capped"] += bool((fast.penalties == spec["max_penalty"]).any())
        seen["stopped"] += bool(fast.stopped.any())
        # a cell reached both by arrivals that stop and by ones that go on (free wins
        # a tie of cost; a dearer free arrival is kept beside a stopped end)
        tree = fast._tree
        stop_cells = set(tree[(tree[:, 2] & 1) == 1, 0].tolist())
        seen["stop_and_free"] += bool(stop_cells & set(tree[(tree[:, 2] & 1) == 0, 0]
                                                       .tolist()))
        seen["links"] += bool(spec["links"])
        seen["edges"] += bool(spec["edges"])
        seen["zoc"] += spec["zoc"] is not None
        kinds.add(spec["kind"])
    # the boards really exercise what they are meant to
    assert kinds == {"hex", "square4", "square8"}
    assert all(v > 20 for v in seen.values()), str(seen)


def test_penalty_kernel_matches_the_oracle():
    for seed in range(400):
        spec, board, mover, layers, start, budget, rng, q = penalty_case(seed + 50000)
        r = R.IMPLEMENTATIONS["reach_pen"][1](q, start, budget)
        want = oracle_reach(spec, [start], budget)
        assert {int(c) for c in r.cells} == set(want)
        for i, c in enumerate(r.cells.tolist()):
            w = want[c]
            got = (int(r.costs[i]), bool(r.stopped[i]), int(r.free_costs[i]),
                   int(r.penalties[i]), int(r.penalty_costs[i]))
            assert got == (w["cost"], w["stopped"], w["free_cost"], w["penalty"],
                           w["penalty_cost"]), (seed, c)


def test_sorted_penalty_ends_equal_the_sorted_reach():
    """Prepared._pen_sorted (the positions' hot path: rows mode, sorted in the kernel
    module) equals the Reach of the same query sorted by (cost, order[cell])."""
    checked = 0
    for seed in range(300):
        spec, board, mover, layers, start, budget, rng, q = penalty_case(seed + 70000)
        p = R.Prepared(q, mover)
        order = np.random.default_rng(seed).permutation(board.n_cells).astype(np.int64)
        got = p._pen_sorted(start, budget, order)
        if got is None:
            continue
        r = p.reach(start, budget)
        idx = np.lexsort((order[r.cells], r.costs))
        want = (r.cells[idx], r.costs[idx], r.penalties[idx], r.penalty_costs[idx])
        for g, w in zip(got, want):
            assert g.dtype == np.int32 and g.tolist() == w.tolist(), seed
        checked += 1
    assert checked > 250


@pytest.mark.parametrize("threads", [1, 2])
def test_penalty_batches_equal_single_queries(threads):
    """reach_many and Prepared.reach_many with penalties (the kernel's ends mode, one
    thread or chunks on two) list exactly the single queries' ends, in their order."""
    for seed in range(250):
        spec, board, mover, layers, start, budget, rng, q = penalty_case(seed + 90000)
        starts = [rng.randrange(board.n_cells) for _ in range(rng.randint(1, 7))]
        budgets = [rng.randint(0, budget) for _ in starts]
        batch = R._batch_prepared(q, np.array(starts, np.int32), np.array(budgets, np.int64),
                                  R._n_chunks(threads, len(starts)))
        for i, (s, b) in enumerate(zip(starts, budgets)):
            want = R._run_general(q, s, b)
            cells, costs, stopped = batch[i]
            assert cells.tolist() == want.cells.tolist(), (seed, i)
            assert costs.tolist() == want.costs.tolist()
            assert stopped.tolist() == want.stopped.tolist()


def test_penalty_queries_are_dispatched_to_the_packed_kernel(monkeypatch):
    """reach(), prepare().reach, reach_many and Prepared.reach_many with penalties never
    run the general kernel; one whose buckets would not fit falls back to it, with the
    same answer."""
    spec, board, mover, layers, start, budget, rng, q = penalty_case(7)
    want = R._run_general(q, start, budget)

    def refuse(*a):
        raise AssertionError("the general kernel ran")
    kw = {k: v for k, v in layers.items()}
    with monkeypatch.context() as m:
        patch_reach(m, "_REACH_QUERY", refuse)
        patch_reach(m, "reach_batch", refuse)
        for got in (mc.reach(board, mover, start, budget, **kw),
                    mc.prepare(board, mover, budget, **kw).reach(start),
                    mc.prepare(board, mover, budget, **kw).reach(start, paths=False)):
            for f in FIELDS:
                assert np.array_equal(getattr(got, f), getattr(want, f)), f
        for b in (mc.reach_many(board, mover, [start], budget, **kw),
                  mc.prepare(board, mover, budget, **kw).reach_many([start, start])):
            assert b[0][0].tolist() == want.cells.tolist()
    with monkeypatch.context() as m:
        m.setattr(R, "_FAST_MAX_STACK", 0)
        slow_q = R._prepare(board, mover, budget, layers["occupant"], layers["cell_flags"],
                            layers["zoc"], layers["leave"], layers["enter_penalty"],
                            layers["leave_weight"], layers["max_penalty"])
        assert slow_q.pblob is None and slow_q.blob is None
        got = mc.reach(board, mover, start, budget, **kw)
        for f in FIELDS:
            assert np.array_equal(getattr(got, f), getattr(want, f)), f


def test_a_workspace_grows_with_penalty_levels_and_buckets():
    """Queries on one board size with more penalty levels or buckets than the thread's
    workspace holds get a larger one, and answer as the general kernel."""
    board = mc.Board.square(9, 9)
    leave = np.zeros(81, np.uint64)
    leave[::2] = 0b111
    for mover, max_pen in ((mc.Mover(), 1), (mc.Mover(), 40), (mc.Mover(terrain_cost=[9]),
                                                                  3), (mc.Mover(), 2)):
        q = R._prepare(board, mover, 30, None, None, None, leave, None, 1, max_pen)
        a, b = R._reach_prepared(q, 40, 30), R._run_general(q, 40, 30)
        for f in FIELDS + ("_tree",):
            assert np.array_equal(getattr(a, f), getattr(b, f)), (max_pen, f)


@pytest.mark.parametrize("example, figure, query", [
    ("heroscape_engaged_knight.json", "dragon", {}),
    ("heroscape_engaged_knight.json", "knight", {}),
    ("descent_hero_run.json", "Jain", {"action": "run"}),
    ("dark_realms_die_planning.json", "ayla", {"move": 6}),
])
def test_game_penalty_moves_run_on_the_packed_kernel(monkeypatch, example, figure, query):
    """The live positions' penalty moves (leaving attacks, aura wounds, traps) come from
    the packed kernel, and equal the general kernel's answer."""
    pos = mc.position(json.loads((EXAMPLES / example).read_text()))
    fast = pos.legal_moves(figure, **query)
    assert np.asarray(fast.penalty).any()   # a penalty query indeed
    with monkeypatch.context() as m:   # the general kernel everywhere
        # (the packed penalty kernel declines every query: each caller falls back)
        patch_reach(m, "_pen_kernel", lambda: lambda *a: T.STATUS_QUEUE_FULL)
        patch_reach(m, "_pen_tree", lambda *a: None)
        patch_reach(m, "_pen_ends", R._run_general)
        slow = mc.position(json.loads((EXAMPLES / example).read_text())).legal_moves(
            figure, **query)
    for f in ("actions", "costs", "stop", "penalty"):
        assert np.array_equal(getattr(fast, f), getattr(slow, f)), f

    def refuse(*a):
        raise AssertionError("the general kernel ran")
    with monkeypatch.context() as m:
        patch_reach(m, "_REACH_QUERY", refuse)
        again = mc.position(json.loads((EXAMPLES / example).read_text())).legal_moves(
            figure, **query)
        assert np.array_equal(again.actions, fast.actions)


def test_penalty_kernel_is_not_used_without_penalties():
    """A query without penalty layers (or capped at 0) keeps reach1: no penalty dimension."""
    board = mc.Board.square(5, 5)
    for kw in ({}, dict(leave=np.ones(25, np.uint64), max_penalty=0)):
        q = R._prepare(board, mc.Mover(), 4, None, None, None, kw.get("leave"), None, 1,
                       kw.get("max_penalty"))
        assert q.pblob is None and q.blob is not None and q.params[T.P_N_PEN] == 1


def test_with_layers_reads_the_callers_arrays_without_a_copy():
    """A bound query sees every later write to the caller's layers, and answers exactly as
    a query prepared afresh with those values (penalty queries on the packed kernel)."""
    for seed in range(120):
        spec, board, mover, layers, start, budget, rng, q = penalty_case(seed + 70000)
        n = board.n_cells
        occ = layers["occupant"].copy()
        flags = layers["cell_flags"].copy()
        pen = np.zeros(n, np.int32)
        leave = np.zeros(n, np.uint64) if layers["leave"] is None else layers["leave"].copy()
        prep = mc.prepare(board, mover, budget, occupant=occ, cell_flags=flags,
                          zoc=layers["zoc"], leave=leave, enter_penalty=pen,
                          leave_weight=layers["leave_weight"],
                          max_penalty=layers["max_penalty"])
        bound = prep.with_layers(occupant=occ, cell_flags=flags, leave=leave,
                                 enter_penalty=pen)
        for _ in range(3):   # the caller changes its arrays in place, then asks again
            pen[:] = rng.choice([0, 0, 1, 2]) if rng.random() < 0.5 else \
                [rng.choice([0, 0, 1]) for _ in range(n)]
            occ[rng.randrange(n)] = rng.choice([T.OCC_EMPTY, 0, 1, T.OCC_WALL])
            flags[rng.randrange(n)] ^= T.CELL_BLOCKED
            leave[rng.randrange(n)] ^= np.uint64(1)
            got = bound.reach(start, budget)
            want = mc.reach(board, mover, start, budget, occupant=occ, cell_flags=flags,
                            zoc=layers["zoc"], leave=leave, enter_penalty=pen,
                            leave_weight=layers["leave_weight"],
                            max_penalty=layers["max_penalty"])
            for f in FIELDS:
                assert np.array_equal(getattr(got, f), getattr(want, f)), (seed, f)
            b = bound.reach_many([start, start], budget)
            assert b[1][0].tolist() == want.cells.tolist()
        assert prep.reach(start, budget).cells.size >= 1   # the original keeps its copies


def test_with_layers_refuses_what_it_cannot_bind():
    board = mc.Board.square(3, 1)
    q = mc.prepare(board, mc.Mover(), 2, enter_penalty=[0, 1, 0])
    with pytest.raises(mc.QueryError, match="prepared without leave"):
        q.with_layers(leave=np.zeros(3, np.uint64))
    with pytest.raises(mc.QueryError, match="prepared without occupant"):
        q.with_layers(occupant=np.full(3, -1, np.int32))
    for bad in (np.zeros(3, np.int64), np.zeros(4, np.int32), np.zeros(6, np.int32)[::2],
                [0, 1, 0]):
        with pytest.raises(mc.QueryError, match="enter_penalty must be a writable"):
            q.with_layers(enter_penalty=bad)
    frozen = np.zeros(3, np.int32)
    frozen.flags.writeable = False
    with pytest.raises(mc.QueryError, match="writable contiguous int32"):
        q.with_layers(enter_penalty=frozen)


def test_penalty_kernel_cache_stamp_follows_reach_py():
    """``reach_pen`` inlines step-rule helpers from ``kernels/reach.py``; Numba's own
    stamp of its cache entry is ``reach_pen.py``'s alone: movecore's adds a digest of the
    contents of every kernel file (``movecore._dependency_files``), ``reach.py`` among
    them, so an edit to the shared rule recompiles it. Its closure holds no file stamps
    (mtimes), which a reinstall of the same sources would change."""
    import movecore
    from movecore.kernels import reach, reach_pen
    d = reach_pen.kernel()
    files = movecore._dependency_files(d.py_func.__globals__, reach_pen.__file__)
    assert reach.__file__ in files
    if T.CACHE:
        assert d._cache._cache_file._source_stamp[1] == movecore._files_digest(files)
    assert d.py_func.__closure__ is None


def _steps_block(seeds) -> dict:
    """``reach_pen_steps`` over ``pen_steps``' table against ``reach_pen``'s rows mode on
    the penalty boards of ``seeds``: the same rows in the same order and the same states
    settled, for the query's own cell flags and for flags whose stop and no-end bits
    differ from those the table was made with (a batch's per-game flags)."""
    from movecore.kernels.reach_pen import kernel, pen_layout_size, pen_out_offset, \
        pen_row_of, steps_kernel
    RP, (pen_steps, RPS) = kernel(), steps_kernel()
    seen = dict(queries=0, rows=0, links=0, edges=0, climbs=0, corner=0, other_flags=0,
                zoc=0, penalty=0)
    for seed in seeds:
        spec, board, mover, layers, start, budget, rng, q = penalty_case(seed)
        n, n_pen = q.n, int(q.params[T.P_N_PEN])
        nb = max(int(q.params[T.P_N_BUCKETS]), 8)
        table = pen_steps(q.pblob, q.qflags, q.params)
        bufs = []
        for _ in range(2):
            b = np.zeros(pen_layout_size(n, n_pen, nb), np.int32)
            b[2], b[3] = nb, n_pen
            bufs.append(b)
        at = pen_out_offset(n, n_pen, nb)
        flag_sets = [q.qflags]
        if len(q.qflags):   # stop and no-end bits moved, blocked bits kept
            other = q.qflags.copy()
            for c in range(n):
                if rng.random() < 0.3:
                    other[c] = (other[c] & T.CELL_BLOCKED) | rng.choice(
                        [0, T.CELL_STOP, T.CELL_NO_END, T.CELL_STOP | T.CELL_NO_END])
            flag_sets.append(other)
        for qf in flag_sets:
            for s in {start, rng.randrange(n)}:
                want = RP(q.pblob, q.occupant, qf, q.zoc, q.leave, q.enter_pen, q.params,
                          bufs[0], np.empty((8, 0), np.int32), np.empty((0, 3), np.int64),
                          s, budget)
                got = RPS(q.pblob, table, q.occupant, qf, q.zoc, q.leave, q.enter_pen,
                          q.params, bufs[1], s, budget)
                assert got == want >= 0, seed
                # (its rows row-major in the rows block; reach_pen's also column-major
                # in the out block)
                rows = bufs[1][at - 8 * n:at - 8 * n + 8 * got].reshape(got, 8)
                assert np.array_equal(rows.T.ravel(), bufs[0][at:at + 8 * want]), (seed, s)
                assert bufs[1][1] == bufs[0][1], seed       # the same states settled
                # each cell's row from the search's cell stamps (-1: not an end), in
                # both kernels' workspaces
                row_of = np.full(n, -1)
                row_of[rows[:, 0]] = np.arange(got)
                for bf in bufs:
                    assert [pen_row_of(bf, n, v) for v in range(n)] == row_of.tolist()
                seen["queries"] += 1
                seen["rows"] += got
                seen["penalty"] += bool((bufs[0][at + 4 * want:at + 5 * want] > 0).any())
        seen["other_flags"] += len(flag_sets) > 1
        seen["links"] += bool(spec["links"])
        seen["edges"] += bool(spec["edges"])
        seen["zoc"] += spec["zoc"] is not None
        seen["climbs"] += bool(q.params[T.P_CLIMB_PER_LEVEL] or q.params[T.P_CLIMB_FLAT] or
                               q.params[T.P_MAX_CLIMB] >= 0)
        seen["corner"] += spec["kind"] == "square8"
    return seen


def test_penalty_steps_kernel_equals_the_penalty_kernel():
    """The table-driven rows mode (batched Heroscape's penalty queries) makes the
    penalty kernel's decisions: its rows, their order and its settled states."""
    seen = _steps_block(range(0, N_BOARDS, 4))
    assert all(v > 20 for v in seen.values()), str(seen)


def test_penalty_steps_kernel_equals_the_penalty_kernel_on_more_boards():
    seen = _steps_block(range(2, N_BOARDS, 4))     # (other boards than the short run's)
    assert all(v > 20 for v in seen.values()), str(seen)


def test_penalty_steps_kernel_on_a_workspace_it_shares():
    """``reach_pen_steps`` keeps a state in one word (``base + cost``, the base past every
    word an earlier query wrote, ``buf[4]``) and pushes no arrival that a strictly
    cheaper one at a lower penalty already dominates: on a workspace shared with
    ``reach_pen``'s queries (its levels 64, not the query's), across the base's reset
    near the int32 limit and the stamps' wrap, its rows, their order, its settled states
    and each cell's row (``pen_row_of``) are the penalty kernel's on a workspace of its
    own; and ``reach_pen``'s stay its own after it."""
    from movecore.kernels.reach_pen import kernel, pen_layout_size, pen_out_offset, \
        pen_row_of, steps_kernel
    RP, (pen_steps, RPS) = kernel(), steps_kernel()
    top = np.iinfo(np.int32).max
    seen = dict(queries=0, rows=0, penalised=0, resets=0, wraps=0, shared=0)
    ctrl = (0, 0)       # (the stamps and the base, carried from board to board)
    for seed in range(1, N_BOARDS, 6):
        spec, board, mover, layers, start, budget, rng, q = penalty_case(seed)
        n, n_pen = q.n, int(q.params[T.P_N_PEN])
        nb = max(int(q.params[T.P_N_BUCKETS]), 8)
        table = pen_steps(q.pblob, q.qflags, q.params)
        own = np.zeros(pen_layout_size(n, n_pen, nb), np.int32)
        own[2], own[3] = nb, n_pen
        shared = np.zeros(pen_layout_size(n, T.MAX_PENALTY_LEVELS, nb), np.int32)
        shared[2], shared[3] = nb, T.MAX_PENALTY_LEVELS
        shared[0], shared[4] = ctrl
        at, at_s = pen_out_offset(n, n_pen, nb), pen_out_offset(n, shared[3], nb)
        no_ends, no_queries = np.empty((8, 0), np.int32), np.empty((0, 3), np.int64)
        for s in (start, rng.randrange(n), rng.randrange(n)):
            # (moved on, never back: a base or stamp taken back may meet its old words)
            if rng.random() < 0.2:      # the next base near the int32 limit: a reset
                shared[4] = max(shared[4], top - rng.randrange(2 * budget + 2))
            if rng.random() < 0.05:     # the stamps about to wrap
                shared[0] = max(shared[0], top - 1 - rng.randrange(2))
            base = int(shared[4])
            want = RP(q.pblob, q.occupant, q.qflags, q.zoc, q.leave, q.enter_pen, q.params,
                      own, no_ends, no_queries, s, budget)
            got = RPS(q.pblob, table, q.occupant, q.qflags, q.zoc, q.leave, q.enter_pen,
                      q.params, shared, s, budget)
            assert got == want >= 0, (spec, s)
            rows = shared[at_s - 8 * n:at_s - 8 * n + 8 * got].reshape(got, 8)
            assert np.array_equal(rows.T.ravel(), own[at:at + 8 * want]), (spec, s)
            assert shared[1] == own[1], (spec, s)      # the same states settled
            row_of = np.full(n, -1)
            row_of[rows[:, 0]] = np.arange(got)
            assert [pen_row_of(shared, n, v) for v in range(n)] == row_of.tolist()
            seen["resets"] += int(shared[4]) < base
            seen["wraps"] += int(shared[0]) < 3
            seen["queries"] += 1
            seen["rows"] += got
            seen["penalised"] += int((rows[:, 4] > 0).sum())
            if rng.random() < 0.5:
                continue        # (the next query on its words, or on reach_pen's)
            # reach_pen on the workspace after it: its own answer
            again = RP(q.pblob, q.occupant, q.qflags, q.zoc, q.leave, q.enter_pen,
                       q.params, shared, no_ends, no_queries, s, budget)
            assert again == want and np.array_equal(shared[at_s:at_s + 8 * want],
                                                    own[at:at + 8 * want]), (spec, s)
            seen["shared"] += 1
        ctrl = (shared[0], shared[4])
    assert seen["rows"] > 4000 and seen["penalised"] > 500 and seen["resets"] > 20 and \
        seen["wraps"] > 5 and seen["shared"] > 400, seen
