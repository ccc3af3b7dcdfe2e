"""The batched penalty kernel (``movecore.kernels.batch.reach_games_pen``) against the
slow oracle: B games of one packed penalty query shape on seeded random boards with
penalties (hex, square4, square8, heights, stop cells, zones, links, side edges, leave
masks, enter penalties, caps), each game with its own occupants, its own penalty layers
(``layer[b]``), start and budget; every game's dense row equals ``oracle_reach`` of that
game, and the rows of games that ask nothing are left as they were."""
from __future__ import annotations

import copy
import importlib
import random

import numpy as np

from movecore.kernels import _types as T
from movecore.kernels.batch import reach_games_pen
from movecore.kernels.reach_pen import pen_layout_size, pen_out_offset
from oracle import oracle_reach
from randboards import random_case

R = importlib.import_module("movecore.reach")


def _game(spec, rng, n):
    """A copy of ``spec`` with some occupants, leave bits and enter penalties changed."""
    s = copy.deepcopy(spec)
    for _ in range(rng.randint(0, 3)):
        s["occupant"][rng.randrange(n)] = rng.choice([None, None, 0, 1, "wall"])
    if s["leave"] is not None:
        for _ in range(rng.randint(0, 3)):
            s["leave"][rng.randrange(n)] ^= 1 << rng.randrange(3)
    if s["enter_pen"] is not None:
        for _ in range(rng.randint(0, 3)):
            s["enter_pen"][rng.randrange(n)] = rng.choice([0, 1, 2])
    return s


def test_batched_penalty_kernel_equals_the_oracle():
    checked = 0
    for seed in range(400):
        spec, board, mover, layers, start, budget, rng = random_case(seed + 91000,
                                                                     penalties=True)
        budget = max(budget, 1)
        q = R._prepare(board, mover, budget, layers["occupant"], layers["cell_flags"],
                       layers["zoc"], layers["leave"], layers["enter_penalty"],
                       layers["leave_weight"], layers["max_penalty"])
        if q.pblob is None:
            continue
        n = board.n_cells
        B = 5
        games = [_game(spec, rng, n) for _ in range(B)]
        starts = [rng.randrange(n) for _ in range(B)]
        for s, st in zip(games, starts):          # a start holds the mover itself
            s["occupant"][st] = None
        occ = np.array([[T.OCC_EMPTY if o is None else T.OCC_WALL if o == "wall" else o
                         for o in s["occupant"]] for s in games], np.int32)
        leave = np.zeros((B, 0), np.uint64) if spec["leave"] is None else \
            np.array([s["leave"] for s in games], np.uint64)
        enter = np.zeros((B, 0), np.int32) if spec["enter_pen"] is None else \
            np.array([s["enter_pen"] for s in games], np.int32)
        params = q.params.astype(np.int64)[None].copy()
        params[:, T.P_HAS_OCC] = 1
        n_pen = int(params[0, T.P_N_PEN])
        nb = max(int(q.nb), 8)
        buf = np.zeros(pen_layout_size(n, n_pen, nb), np.int32)
        buf[2], buf[3] = nb, n_pen
        queries = np.zeros((B, 3), np.int64)
        queries[:, 0] = starts
        queries[:, 1] = [rng.randint(0, budget) for _ in range(B)]
        queries[B - 1, 0] = -1                     # a game that asks nothing
        A = n + 2
        mask = np.full((B, A), 3, np.uint8)
        cost = np.full((B, A), 5, np.int32)
        stop = np.full((B, A), 1, np.int8)
        pen = np.full((B, A), 9, np.int32)
        st = reach_games_pen()(
            q.pblob, np.array([0, len(q.pblob)], np.int64), q.qflags,
            np.array([0, len(q.qflags)], np.int64), q.zoc,
            np.array([0, len(q.zoc)], np.int64), leave, enter,
            np.arange(B, dtype=np.int64), params, np.zeros(B, np.int64), occ, buf,
            pen_out_offset(n, n_pen, nb), queries, 0, B, mask, cost, stop, pen)
        assert st == 0
        assert (mask[B - 1] == 3).all() and (pen[B - 1] == 9).all()  # untouched
        for b in range(B - 1):
            want = oracle_reach(games[b], [starts[b]], int(queries[b, 1]))
            assert np.flatnonzero(mask[b]).tolist() == sorted(want), (seed, b)
            assert queries[b, 2] == len(want)
            for c, w in want.items():
                assert cost[b, c] == w["cost"], (seed, b, c)
                assert stop[b, c] == w["stopped"], (seed, b, c)
                assert pen[b, c] == w["penalty"], (seed, b, c)
            rest = np.ones(A, bool)
            rest[list(want)] = False
            assert (cost[b, rest] == -1).all() and (pen[b, rest] == 0).all()
            checked += 1
    assert checked > 600
