"""``BatchedGames``' public methods validate what they are given (typed movecore errors
naming the bad value), on every game's arrays backend and the positions backend: an
``out=`` too small for the compiled calls (which write every row's P columns), game,
slot and place ids out of range for ``remove`` / ``reset`` / ``spaces``, huge unsigned
ids."""
from __future__ import annotations

from functools import partial

import numpy as np
import pytest

from movecore.errors import IllegalMoveError, QueryError
from movecore.tools.selfplay import example_scenarios
from movecore.tools.selfplay_batch import BatchedPlay

CASES = [("heroscape", "auto"), ("descent", "auto"), ("dark_realms", "auto"),
         ("mage_knight", "auto"), ("grid", "positions")]


def _games(game, backend):
    play = BatchedPlay(game, example_scenarios(game)[0][1], 4, seed=0, backend=backend)
    G = play.games
    assert G.backend == ("positions" if backend == "positions" else "arrays"), G.why
    f0 = int(np.flatnonzero(G.alive[0])[0])
    figs = np.full(4, f0)
    if play.queries is None:               # (Dark Realms: each move's query is rolled)
        qs = play._rolled_queries(figs)
        G.legal_moves = partial(G.legal_moves, queries=qs)
    return G, figs, f0


def _out(B, P, dtypes=(np.uint8, np.int32, np.int8)):
    return tuple(np.zeros((B, P), d) for d in dtypes)


@pytest.mark.parametrize("game,backend", CASES)
def test_out_is_validated(game, backend):
    G, figs, _ = _games(game, backend)
    B, P = G.B, G.n_places
    ok = G.legal_moves(figs)
    wide = _out(B, P + 3)                  # more columns: fine (a wider action mask)
    G.legal_moves(figs, out=wide)
    assert all(np.array_equal(w[:, :P], o) for w, o in zip(wide, ok))
    flat = tuple(np.zeros((B * P,), np.uint8) for _ in range(3))
    bad = [_out(B, P - 1), _out(B - 1, P),
           _out(B, P, (np.int64, np.int32, np.int8)),
           _out(B, P, (np.uint8, np.int64, np.int8)),
           _out(B, P, (np.uint8, np.int32, np.uint8)),
           _out(B, P)[:2], np.zeros((B, P), np.uint8), flat]
    ro = _out(B, P)
    ro[1].flags.writeable = False
    bad.append(ro)
    for out in bad:
        with pytest.raises(QueryError, match="out must be"):
            G.legal_moves(figs, out=out)


@pytest.mark.parametrize("game,backend", CASES)
def test_ids_out_of_range_are_named(game, backend):
    G, figs, f0 = _games(game, backend)
    with pytest.raises(QueryError, match=r"games\[0\] = -1 is not in \[0, 4\)"):
        G.remove([-1], [f0])               # (was: game 3's figure removed)
    with pytest.raises(QueryError, match=r"figures\[0\] = 99 "):
        G.remove([0], [99])
    with pytest.raises(QueryError, match="must be integers"):
        G.remove([0.5], [f0])
    assert G.alive[:, f0].all()            # nothing changed
    with pytest.raises(QueryError, match=r"games\[0\] = 4 is not in"):
        G.reset([4])
    with pytest.raises(QueryError, match=r"games\[0\] = -1 is not in"):
        G.reset([-1])
    with pytest.raises(QueryError, match="bool"):
        G.reset(np.ones(3, bool))
    G.reset([])
    G.reset(np.ones(4, bool))
    big = np.full(4, 2**63, np.uint64)
    with pytest.raises(QueryError, match="= 9223372036854775808 is not a figure slot"):
        G.legal_moves(big)
    with pytest.raises(IllegalMoveError, match="= 9223372036854775809 is not a place"):
        G.apply(figs, np.full(4, 2**63 + 1, np.uint64))
    if backend == "arrays" or G.backend == "arrays":
        rows = np.arange(4)
        assert G.spaces(rows).shape == (4, G.F, 2)
        with pytest.raises(QueryError, match=r"rows\[0\] = 9 is not in"):
            G.spaces([9])
        with pytest.raises(QueryError, match=r"places\[0\] = 100000 is not in \[-1, "):
            G.spaces([0], [f0], [[100000]])
        with pytest.raises(QueryError, match=r"slots\[0\] = 99"):
            G.spaces([0], [99], [[0]])
        assert (G.spaces([0], [f0], [[-1]]) == -1).all()


def test_a_pool_held_while_a_larger_one_is_made_still_runs():
    """``reach.compiled.thread_pool``: a caller that got the pool, then (another thread)
    a larger one is asked for, still submits to the pool it holds (it was shut down:
    RuntimeError 'cannot schedule new futures after shutdown')."""
    from movecore.reach import _handoff
    from movecore.reach.compiled import thread_pool
    held = thread_pool(1)
    size = _handoff._executor[1]
    bigger = thread_pool(size + 1)
    assert bigger is not held and thread_pool(size + 1) is bigger
    assert held.submit(lambda: 7).result() == 7


@pytest.mark.parametrize("query", ["budget", 3, [1, 2], ["a"] * 5])
def test_a_query_that_is_no_dict_is_named(query):
    from movecore import examples
    from movecore.batch import BatchedGames
    from movecore.position import position
    root = position(examples.load("grid_hex_skirmish"))
    if isinstance(query, list):
        query = query[:1] * len(root.figures)
    with pytest.raises(QueryError, match="query"):
        BatchedGames(root, 2, query=query)


@pytest.mark.parametrize("game,backend", CASES[:3])
def test_a_read_only_penalty_is_named(game, backend):
    G, figs, _ = _games(game, backend)
    pen = np.zeros((G.B, G.n_places), np.int32)
    pen.flags.writeable = False
    with pytest.raises(QueryError, match=r"penalty must be int32.*writeable"):
        G.legal_moves(figs, penalty=pen)


@pytest.mark.parametrize("game,backend", CASES)
def test_position_takes_a_numpy_game_index(game, backend):
    G, figs, f0 = _games(game, backend)
    for b in np.flatnonzero(G.alive[:, f0])[:2]:       # np.int64 indices
        assert G.position(b).where(G.ids[f0]) == G.position(int(b)).where(G.ids[f0])
    for bad in (True, 4, -1, 1.0, np.int64(4)):
        with pytest.raises(QueryError, match="is not an integer in"):
            G.position(bad)


@pytest.mark.parametrize("game", ("grid", "heroscape"))
def test_batched_games_refuse_pickle_by_name_and_deep_copy_apart(game):
    """``pickle`` says in one sentence that a BatchedGames does not pickle;
    ``copy.deepcopy`` makes games that move apart from the original's."""
    import copy
    import pickle
    import movecore as mc
    from movecore.batch import BatchedGames
    G = BatchedGames(mc.position(example_scenarios(game)[0][1]), 3)
    with pytest.raises(TypeError, match="does not pickle"):
        pickle.dumps(G)
    twin = copy.deepcopy(G)
    f0 = int(np.flatnonzero(G.alive[0])[0])
    figs = np.full(3, f0)
    mask = twin.legal_moves(figs)[0]
    cells = G.cell.copy()
    places = np.array([np.flatnonzero(m)[-1] for m in mask])
    twin.apply(figs, places)
    assert np.array_equal(G.cell, cells) and not np.array_equal(twin.cell, cells)
    assert np.array_equal(G.legal_moves(figs)[0], mask)
