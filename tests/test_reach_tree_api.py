"""The search tree's public API (``Reach.tree``, ``Reach.tree_rows``, ``Reach.path_nodes``)
and the live positions' section of ``Prepared`` against ``Reach.path`` and ``reach`` on
seeded random boards; and the layering: the game modules import no private name of the
engine."""
from __future__ import annotations

import ast
import importlib
import pathlib

import numpy as np
import pytest
from randboards import random_case

import movecore as mc
from movecore.kernels import _types as T

SEEDS = range(300)


def _results(board, mover, layers, start, budget):
    """The same query answered every way that keeps a tree: ``reach`` with the layers
    (tree mode), a prepared query (a plain one keeps no tree: made on first read), and
    the general kernel."""
    from movecore.reach import IMPLEMENTATIONS, _prepare
    yield "reach", mc.reach(board, mover, start, budget, **layers)
    yield "prepared", mc.prepare(board, mover, budget, **layers).reach(start)
    q = _prepare(board, mover, budget, layers["occupant"], layers["cell_flags"],
                 layers["zoc"], layers["leave"], layers["enter_penalty"],
                 layers["leave_weight"], layers["max_penalty"])
    for name, (applies, run) in IMPLEMENTATIONS.items():
        if applies(q):
            yield name, run(q, start, budget)


def _check_tree(r):
    tree, rows = r.tree, r.tree_rows
    assert tree.dtype == np.int32 and tree.ndim == 2 and tree.shape[1] == 4
    assert rows.dtype == np.int32 and rows.shape == (len(r), 2)
    assert tree.shape[0] >= len(r)
    k = tree.shape[0]
    assert ((tree[:, 3] >= -1) & (tree[:, 3] < k)).all()
    for i in range(len(r)):
        cell = int(r.cells[i])
        for lp in (False, True):
            want = r.path(cell, least_penalty=lp).tolist()
            assert r.path_nodes(i, lp) == want
            assert r.path_nodes(i, least_penalty=lp) == want
            row = int(rows[i, 1 if lp else 0])
            assert tree[row, 0] == cell
            if lp:  # the least-penalty arrival: its penalty and cost
                assert tree[row, 2] >> 1 == r.penalties[i]
                assert tree[row, 1] == r.penalty_costs[i]
            else:   # the least-cost arrival: its cost, stopped as reported
                assert tree[row, 1] == r.costs[i]
                assert bool(tree[row, 2] & 1) == bool(r.stopped[i])
            # the parent rows lead back to the start, cost never rising on the way back
            chain = [row]
            while tree[chain[-1], 3] >= 0:
                assert tree[tree[chain[-1], 3], 1] <= tree[chain[-1], 1]
                chain.append(int(tree[chain[-1], 3]))
                assert len(chain) <= k
            assert tree[chain[-1], 0] == r.start and tree[chain[-1], 1] == 0
    parents = r.parents
    for i in range(len(r)):
        p = r.path_nodes(i)
        assert parents[i] == (p[-2] if len(p) > 1 else -1)


@pytest.mark.parametrize("penalties", [False, True])
def test_tree_accessors_match_path(penalties):
    for seed in SEEDS:
        _, board, mover, layers, start, budget, _ = random_case(seed, penalties=penalties)
        for name, r in _results(board, mover, layers, start, budget):
            try:
                _check_tree(r)
            except AssertionError:  # pragma: no cover (names the case)
                print(f"seed {seed} ({name})")
                raise


def test_tree_of_a_plain_query():
    for seed in range(100):
        _, board, mover, _, start, budget, _ = random_case(seed, plain=True)
        r = mc.reach(board, mover, start, budget)   # ends only: the tree made on demand
        _check_tree(r)


def test_rows_mode_has_no_tree():
    """A penalty query asked with ``paths=False`` keeps no tree: its accessors refuse."""
    board = mc.Board.square(4, 1)
    q = mc.prepare(board, mc.Mover(), 3, enter_penalty=[0, 1, 0, 0])
    r = q.reach(0, paths=False)
    assert r.cells.tolist() == [0, 1, 2, 3]
    for read in (lambda: r.tree, lambda: r.tree_rows, lambda: r.path_nodes(1)):
        with pytest.raises(mc.QueryError, match="paths=False"):
            read()
    assert q.reach(0).path_nodes(3, True) == [0, 1, 2, 3]


# ------------------------------------------------------------ the positions' section
def _prepared_with_layers(seed, penalties):
    spec, board, mover, layers, start, budget, rng = random_case(seed, penalties=penalties)
    n = board.n_cells
    occ = layers["occupant"]
    flags = layers["cell_flags"]
    if flags is None:
        flags = np.zeros(n, np.uint8)
    leave = layers["leave"] if layers["leave"] is not None else np.zeros(n, np.uint64)
    kw = dict(layers, occupant=occ, cell_flags=flags)
    if penalties:
        kw["leave"] = leave
    # a dummy occupant and no cell flags in the prepared query: the call's layers count
    dummy = np.full(n, T.OCC_EMPTY, np.int32)
    dummy[0] = 0
    top = budget + rng.randint(0, 3)
    p = mc.prepare(board, mover, top, **dict(kw, occupant=dummy,
                                             cell_flags=np.zeros(n, np.uint8)))
    return p, board, mover, kw, occ, flags, leave, start, budget


def _ends_of(rows_cells, rows_costs):
    return sorted(zip(np.asarray(rows_cells).tolist(), np.asarray(rows_costs).tolist()))


def test_positions_run_layers_into_matches_reach():
    for seed in SEEDS:
        p, board, mover, kw, occ, flags, _, start, budget = _prepared_with_layers(seed, False)
        if not p.fast:
            continue
        want = mc.reach(board, mover, start, budget, **kw)
        queries = np.array([[start, budget, 0]], np.int64)
        ends = np.empty((3, board.n_cells), np.int32)
        rank = np.random.default_rng(seed).permutation(board.n_cells).astype(np.int64)
        for order in (np.zeros(0, np.int64), rank):
            total = p._run_layers_into(occ, flags, queries, ends, order)
            assert total == queries[0, 2] == len(want)
            assert _ends_of(ends[0, :total], ends[1, :total]) == \
                _ends_of(want.cells, want.costs)
            assert (np.diff(ends[1, :total]) >= 0).all()
            if order.size:  # ties by rank
                key = ends[1, :total].astype(np.int64) * board.n_cells + rank[ends[0, :total]]
                assert (np.diff(key) > 0).all()
            got_stop = dict(zip(ends[0, :total].tolist(), ends[2, :total].tolist()))
            assert got_stop == dict(zip(want.cells.tolist(), want.stopped.astype(int).tolist()))


def test_positions_tree_into_matches_reach():
    for seed in SEEDS:
        p, board, mover, kw, occ, flags, _, start, budget = _prepared_with_layers(seed, False)
        if not p.fast:
            continue
        want = mc.reach(board, mover, start, budget, **kw)
        tree, ends = p._tree_into(occ, flags, start, budget)
        assert ends.shape == (8, len(want))
        assert ends[0].tolist() == want.cells.tolist()
        assert ends[1].tolist() == want.costs.tolist()
        assert ends[7].tolist() == want.free_costs.tolist()
        assert np.array_equal(tree, want.tree)
        assert np.array_equal(ends[[3, 6]].T, want.tree_rows)


@pytest.mark.parametrize("penalties", [False, True])
def test_positions_rows_into_matches_reach(penalties):
    src = np.zeros(1, np.int32)
    for seed in SEEDS:
        p, board, mover, kw, occ, flags, leave, start, budget = \
            _prepared_with_layers(seed, penalties)
        want = mc.reach(board, mover, start, budget, **kw)
        rows, tree, k = p._rows_into(occ, flags, leave if penalties else
                                     np.zeros(0, np.uint64), start, budget, src)
        if k >= 0:
            tree = tree[:4 * k].reshape(k, 4)
        got = {int(c): i for i, c in enumerate(rows[:, 0])}
        assert sorted(got) == sorted(want.cells.tolist())
        for i, c in enumerate(want.cells.tolist()):
            row = rows[got[c]]
            assert row[1] == want.costs[i] and bool(row[2]) == bool(want.stopped[i])
            assert row[4] == want.penalties[i] and row[5] == want.penalty_costs[i]
            assert row[7] == want.free_costs[i]
            for col, lp in ((3, False), (6, True)):
                t, path = int(row[col]), []
                while t >= 0:
                    path.append(int(tree[t, 0]))
                    t = int(tree[t, 3])
                assert path[-1] == start and path[0] == c
                t0 = int(row[col])
                assert tree[t0, 1] == (want.penalty_costs[i] if lp else want.costs[i])
                if lp:
                    assert tree[t0, 2] >> 1 == want.penalties[i]
                if k >= 0:  # the packed kernel reach() ran too: the very same path
                    assert path[::-1] == want.path(c, least_penalty=lp).tolist()


def test_positions_rows_into_general_kernel(monkeypatch):
    """A board too large for the packed kernels' buckets: the general kernel, the same
    rows (its per-budget parameters made by the call)."""
    monkeypatch.setattr(importlib.import_module("movecore.reach"), "_FAST_MAX_STACK", 0)
    p, board, _, _, occ, flags, _, start, budget = _prepared_with_layers(1, False)
    assert not p.fast and p._run_layers_into(
        occ, flags, np.array([[start, budget, 0]], np.int64),
        np.empty((3, board.n_cells), np.int32), np.zeros(0, np.int64)) is None
    test_positions_rows_into_matches_reach(True)
    test_positions_rows_into_matches_reach(False)


# ------------------------------------------------------------ layering
GAMES = pathlib.Path(mc.__file__).resolve().parent / "games"
ENGINE = ("movecore.reach", "movecore.kernels")
#: the modules of the kernels a game may import: the declared dtypes and sentinels, and
#: how to compile (``_jit``: Numba's options asked for once, a builder made once; it
#: imports no kernel and no numba at import)
DECLARED = ("movecore.kernels._types", "movecore.kernels._jit")


def _private_imports(path: pathlib.Path) -> list[str]:
    """``module: name`` for each private name (leading underscore) the file imports from
    the engine (movecore.reach, movecore.kernels*), and each import of a kernel module
    (the game layer runs the kernels through movecore.reach only)."""
    tree = ast.parse(path.read_text(), str(path))
    pkg = ["movecore", "games"] + ([path.parent.name] if path.parent.parent == GAMES else [])
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:  # relative to the file's package (movecore.games[.<game>])
                base = pkg[:len(pkg) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            for alias in node.names:
                full = f"{mod}.{alias.name}"
                if full in DECLARED or mod in DECLARED:
                    continue
                if mod.startswith(ENGINE) and (alias.name.startswith("_") or
                                               mod.startswith("movecore.kernels")):
                    found.append(f"{path.name}: from {mod} import {alias.name}")
                elif mod == "movecore" and alias.name in ("kernels",):
                    found.append(f"{path.name}: from movecore import kernels")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("movecore.kernels") and alias.name not in DECLARED:
                    found.append(f"{path.name}: import {alias.name}")
    return found


def test_games_use_the_engines_public_api():
    files = sorted(GAMES.rglob("*.py"))
    assert len(files) > 5
    bad = [f for p in files for f in _private_imports(p)]
    assert bad == []


def test_layering_scan_finds_private_imports(tmp_path):
    """The scan itself: it flags what the game modules used to import."""
    p = tmp_path / "g.py"
    p.write_text("from ..reach import (_ORDERED, _entry_point, prepare)\n"
                 "from ..kernels.reach import reach_query\n"
                 "from ..kernels import _types as T\n"
                 "from ..kernels._types import CACHE\n"
                 "from movecore.reach import _pen_tree\n"
                 "import movecore.kernels.reach_pen\n")
    assert _private_imports(p) == [
        "g.py: from movecore.reach import _ORDERED",
        "g.py: from movecore.reach import _entry_point",
        "g.py: from movecore.kernels.reach import reach_query",
        "g.py: from movecore.reach import _pen_tree",
        "g.py: import movecore.kernels.reach_pen"]
