"""Live positions are safe to branch, in every game (issue 30.1 and 30.3, issue 33.8,
issue 28.7): a copy never touches its parent, copies run in threads of their own, one
position answers read-only queries from several threads, and a position pickles.

Every check plays seeded random legal move sequences (self-play's choice of who moves
and what each figure asks, with random budgets and removals) on every bundled example
of every game, and compares each answer (ends, costs, stops, penalties, every column,
paths) with an independent one: a position rebuilt from the scenario of the state, or
the same sequence run in one thread.
"""
from __future__ import annotations

import pickle
import threading

import numpy as np
import pytest

import movecore as mc
from movecore.tools import selfplay as sp
from movecore.errors import MovecoreError


def _examples(game):
    try:
        return sp.example_scenarios(game)
    except mc.ScenarioError:
        return []


GAMES = [g for g in sp.GAMES if _examples(g)]
CASES = [pytest.param(game, name, scen, id=name.removesuffix(".json"))
         for game in GAMES for name, scen in _examples(game)]


# ------------------------------------------------------------------------ helpers
def _query(g, pos, fid, rng, paths=False):
    """Self-play's query for ``fid``, its budget (where it has one) drawn at random."""
    q = dict(g.query(pos, fid, rng))
    if "budget" in q and rng.random() < 0.7:
        q["budget"] = int(rng.integers(1, 2 * int(q["budget"]) + 2))
    if paths:
        q["paths"] = True
    return q


def _answer(pos, fid, q):
    """Everything ``legal_moves(fid, **q)`` says, as plain lists (the typed error's name
    and message where it refuses)."""
    try:
        m = pos.legal_moves(fid, **q)
        cols = {k: _column(pos, v) for k, v in sorted(m.columns.items())}
        out = (np.asarray(m.coords).tolist(), m.costs.tolist(),
               np.asarray(m.stop).tolist(), np.asarray(m.penalty).tolist(), cols)
        if q.get("paths"):
            out += (m.to_dicts(),)
        return out
    except MovecoreError as e:
        return (type(e).__name__, str(e))


def _column(pos, values):
    """A column as a list; bit masks of figures (uint64, Heroscape's ``engaged_with``
    and ``leaving_attackers``: bit j = the position's figure j) as lists of ids, which a
    rebuilt position (its removed figures gone, the others renumbered) also gives."""
    a = np.asarray(values)
    if a.dtype == np.uint64 and hasattr(pos, "ids_of"):
        return [pos.ids_of(int(x)) for x in a.tolist()]
    return a.tolist()


def _movers(pos, g):
    return [f for f in pos.figures if g.moves(pos, f)]


def _answers(pos, g, queries):
    """The answers of every figure that moves to its query in ``queries``."""
    return {f: _answer(pos, f, queries[f]) for f in _movers(pos, g) if f in queries}


def _queries(pos, g, rng, paths=False):
    return {f: _query(g, pos, f, rng, paths) for f in _movers(pos, g)}


def _step(pos, g, rng, log=None, paths=False):
    """One random legal move (and, half the time, the removal of an enemy it touches);
    ``log`` receives every answer read on the way. False when nobody could move."""
    figs = _movers(pos, g)
    rng.shuffle(figs)
    for fid in figs:
        q = _query(g, pos, fid, rng, paths and rng.random() < 0.5)
        try:
            m = pos.legal_moves(fid, **q)
        except MovecoreError as e:
            if log is not None:
                log.append((fid, type(e).__name__))
            continue
        if log is not None:
            log.append((fid, q, _answer(pos, fid, q)))
        rows = g.usable(pos, fid, m)
        n = len(m.actions) if rows is None else len(rows)
        if n == 0:
            continue
        pick = int(rng.integers(n))
        row = pick if rows is None else int(rows[pick])
        pos.apply_row(m, row)
        if log is not None:
            log.append((fid, "at", pos.where(fid)))
        side = pos.side_of(fid)
        near = [f for f in pos.touching(fid) if pos.side_of(f) != side]
        if near and rng.random() < sp.REMOVE_CHANCE:
            gone = near[int(rng.integers(len(near)))]
            pos.remove_figure(gone)
            if log is not None:
                log.append(("removed", gone))
        return True
    if hasattr(pos, "new_turn"):    # Tiny Epic Tactics: every unit moved this turn
        pos.new_turn()
        return True
    return False


def _rebuilt(pos):
    return mc.position(pos.to_scenario())


def _game(game, pos):
    return sp.GAME_CLASSES[game](pos)


# ------------------------------------------------------------------------ copies
@pytest.mark.parametrize("game,name,scen", CASES)
def test_a_copy_never_changes_its_parent(game, name, scen):
    """Differential: after every step of a seeded random game, a copy plays random moves
    (random budgets, removals); the parent still answers every figure exactly as a
    position rebuilt from the parent's scenario, and the copy as one rebuilt from its
    own."""
    rng = np.random.default_rng([30, 1, len(name)])
    pos = mc.position(scen)
    g = _game(game, pos)
    for step in range(8):
        child = pos.copy()
        for _ in range(3):
            _step(child, g, rng)
        qs = _queries(pos, g, rng)
        assert _answers(pos, g, qs) == _answers(_rebuilt(pos), g, qs), (name, step)
        qc = _queries(child, g, rng)
        assert _answers(child, g, qc) == _answers(_rebuilt(child), g, qc), (name, step)
        # and the copy's own answers survive the parent moving on
        before = _answers(child, g, qc)
        if not _step(pos, g, rng):
            break
        assert _answers(child, g, qc) == before, (name, step)


def test_grid_copy_does_not_corrupt_its_parent():
    """Issue 30.1: the first query a copy made for a team (or at a larger budget) was
    stored, bound to the copy's figures, in the parent's dictionary of prepared
    queries."""
    sc = {"game": "grid", "board": {"grid": "square4", "cells": [{"at": [x, 0]}
                                                                  for x in range(6)]},
          "figures": [{"id": "a", "team": "red", "at": [0, 0]},
                      {"id": "b", "team": "blue", "at": [5, 0]}]}
    pos = mc.position(sc)
    child = pos.copy()
    child.apply_move("a", (3, 0), budget=3)
    assert pos.legal_moves("a", budget=3).coords.tolist() == [[0, 0], [1, 0], [2, 0], [3, 0]]
    assert child.legal_moves("a", budget=3).coords.tolist() == [
        [3, 0], [2, 0], [4, 0], [1, 0], [0, 0]]
    # budgets 1 then 5: the parent never lets a stand on b's cell
    pos = mc.position(sc)
    pos.legal_moves("a", budget=1)
    child = pos.copy()
    child.apply_move("b", (2, 0), budget=3)
    child.legal_moves("a", budget=5)
    assert pos.legal_moves("a", budget=5).coords.tolist() == [
        [0, 0], [1, 0], [2, 0], [3, 0], [4, 0]]
    with pytest.raises(mc.IllegalMoveError):
        child.apply_move("a", (2, 0), budget=5)
    pos.apply_move("a", (4, 0), budget=5)
    assert pos.where("a") == (4, 0) and child.where("a") == (0, 0)


# ------------------------------------------------------------------------ threads
def _play(pos, g, seed, steps):
    """A transcript of ``steps`` random moves with path queries on ``pos``."""
    rng = np.random.default_rng(seed)
    log = []
    for _ in range(steps):
        if not _step(pos, g, rng, log, paths=True):
            break
    return log


def _in_threads(work, n=4):
    """Run ``work(k)`` in ``n`` threads at once; their results (an exception re-raised)."""
    out = [None] * n
    errors = []
    start = threading.Barrier(n)

    def run(k):
        try:
            start.wait()
            out[k] = work(k)
        except BaseException as e:  # noqa: BLE001 (re-raised in the main thread)
            errors.append(e)
    ths = [threading.Thread(target=run, args=(k,)) for k in range(n)]
    for t in ths:
        t.start()
    for t in ths:
        t.join()
    if errors:
        raise errors[0]
    return out


def _thread_case(game, name, scen):
    return pytest.param(game, name, scen, id=name.removesuffix(".json"))


THREAD_CASES = [_thread_case(*c.values) for c in CASES]


@pytest.mark.parametrize("game,name,scen", THREAD_CASES)
def test_copies_in_four_threads(game, name, scen):
    """Four threads, each on its own copy (made in the thread, of a fresh position, so
    that whatever copies share is built while they race), play seeded random games with
    path queries: every answer is the one the same game gives in one thread."""
    g = _game(game, mc.position(scen))
    steps = 6
    want = [_play(mc.position(scen).copy(), g, [33, k], steps) for k in range(4)]
    for rnd in range(3):
        root = mc.position(scen)
        got = _in_threads(lambda k: _play(root.copy(), g, [33, k], steps))
        for k in range(4):
            assert got[k] == want[k], (name, rnd, k)


@pytest.mark.parametrize("game,name,scen", CASES)
def test_one_position_read_from_four_threads(game, name, scen):
    """Issue 33.8: one position, four threads asking read-only ``legal_moves`` (with and
    without paths) of every figure in different orders: the answers of one thread."""
    pos = mc.position(scen)
    g = _game(game, pos)
    rng = np.random.default_rng(338)
    for _ in range(2):
        _step(pos, g, rng)
    asks = [(f, _query(g, pos, f, rng, paths)) for f in _movers(pos, g)
            for paths in (False, True, False)]
    want = [_answer(pos, f, q) for f, q in asks]
    fresh = mc.position(pos.to_scenario())   # nothing asked yet: lazily built data races

    def work(k):
        order = np.random.default_rng(k).permutation(len(asks) * 6) % len(asks)
        p = fresh if k % 2 else pos
        return [(i, _answer(p, *asks[i])) for i in order.tolist()]
    for got in _in_threads(work):
        for i, a in got:
            assert a == want[i], (name, asks[i])


# ------------------------------------------------------------------------ pickling
@pytest.mark.parametrize("game,name,scen", CASES)
def test_a_position_pickles(game, name, scen):
    """A position (fresh, played, or a copy) pickles and unpickles to an equal one: the
    same scenario, the same answers, and the same answers after the same moves."""
    rng = np.random.default_rng(287)
    pos = mc.position(scen)
    g = _game(game, pos)
    for _ in range(2):
        _step(pos, g, rng)
    for src in (pos, pos.copy(), mc.position(scen)):
        back = pickle.loads(pickle.dumps(src))
        assert type(back) is type(src)
        assert back.to_scenario() == src.to_scenario()
        assert back.key() == src.key() and back.undo_depth == src.undo_depth
        qs = _queries(src, g, rng, paths=True)
        assert _answers(back, g, qs) == _answers(src, g, qs), name
        seed = int(rng.integers(1 << 30))
        a, b = [], []
        for p, log in ((src, a), (back, b)):
            r = np.random.default_rng(seed)
            for _ in range(3):
                _step(p, g, r, log)
        assert a == b, name
        assert back.to_scenario() == src.to_scenario() and back.key() == src.key()
        qs = _queries(src, g, rng)
        assert _answers(back, g, qs) == _answers(src, g, qs), name


def test_boards_and_prepared_queries_pickle():
    """The pieces a position keeps pickle too: a board (its cache of packings left
    behind) and a prepared query (its compiled kernels named, found again on
    unpickling), answering as before, on every kernel path (plain, climbing, layers,
    penalties)."""
    b = mc.Board.hex([(q, r) for q in range(5) for r in range(4)],
                     height=[(q * r) % 3 for q in range(5) for r in range(4)])
    occ = np.full(b.n_cells, -1, np.int32)
    occ[7] = 1
    preps = [mc.prepare(b, mc.Mover(), 6), mc.prepare(b, mc.Mover(climb_per_level=1), 6),
             mc.prepare(b, mc.Mover(team=0), 6, occupant=occ),
             mc.prepare(b, mc.Mover(), 6, enter_penalty=np.arange(b.n_cells) % 2)]
    b.find((1, 1))
    back = pickle.loads(pickle.dumps(b))
    assert back.coords.tolist() == b.coords.tolist() and back._cache == {}
    for p in preps:
        q = pickle.loads(pickle.dumps(p))
        for start in (0, 9):
            a, z = p.reach(start), q.reach(start)
            assert a.cells.tolist() == z.cells.tolist()
            assert a.costs.tolist() == z.costs.tolist()
            assert a.penalties.tolist() == z.penalties.tolist()
            end = int(a.cells[-1])
            assert a.path(end).tolist() == z.path(end).tolist()
