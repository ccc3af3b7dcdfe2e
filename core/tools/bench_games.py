"""``movecore bench --games``: the game layer against the kernel, on the bundled positions.

For every game with live positions and every bundled example of it (two sides or one),
each figure that moves in self-play is asked its legal moves (``Position.legal_moves``
with the query self-play asks) and, beside it on the same board, a plain prepared query
(``prepare(board, Mover(), budget).reach(start)``: unit costs, nobody on the board,
``budget`` = the dearest end of the figure's answer, so both searches reach as far). The
ratio is what the game layer costs over the kernel. ``copy us`` is ``Position.copy()`` of
the position (after the figure's query: what its caches hold is there), its ratio to the
plain query beside it (the target: at most 3x, issue 28.7). Then ``movecore selfplay`` runs on
one core and reports turns/s and moves/s: the fastest of ``rounds`` runs of the same
games (a run of the short bundled games lasts a fraction of a second, so one run reads
the machine's noise as much as the game layer), the positions packed before.

Rows name the figure's kind: ``1-cell`` or ``k-cell`` (placements), ``+penalty`` where
some end reports one (leaving attacks, wounds). Ratios are taken in one run, interleaved
round by round (the machine is shared and noisy).
"""
from __future__ import annotations

import numpy as np

from ._timing import best_time


def _plain_board(pos, figure, kind: str):
    """The board a plain query runs on: the position's own, else (a game whose position
    keeps graphs per kind of mover, as Descent) the squares of its action space."""
    from ..board import Board
    board = getattr(pos, "board", None)
    if board is not None:
        return board
    key = ("plain_board", kind)
    cache = pos.__dict__.setdefault("_bench_cache", {})
    if key not in cache:
        xy = pos.action_coords(figure, np.arange(pos.n_actions(figure)))
        xy = np.unique(np.asarray(xy).reshape(-1, 2), axis=0)
        cache[key] = Board.hex(xy.tolist()) if kind == "hex" else Board.square_cells(
            xy.tolist(), neighbours=int(kind[-1]))
    return cache[key]


def figure_rows(game: str, scenario: dict, rounds: int = 5, min_time: float = 0.05):
    """[(figure, kind, us legal_moves, us plain query, ends, us copy)] for one
    scenario."""
    from . import selfplay as sp
    from ..mover import Mover
    from ..position import position
    from ..reach import prepare
    pos = position(scenario)
    g = sp.GAME_CLASSES[game](pos)
    rng = np.random.default_rng(0)
    rows = []
    for f in pos.figures:
        if not g.moves(pos, f):
            continue
        q = g.query(pos, f, rng)
        m = pos.legal_moves(f, **q)
        if len(m) == 0:
            continue
        board = _plain_board(pos, f, g.kind)
        cells = sp._cells(pos.where(f))
        start = board.find(tuple(cells[0].tolist()))
        budget = int(m.costs.max())
        plain = prepare(board, Mover(), budget)
        xy = m.coords
        k = xy.shape[1] if xy.ndim == 3 else 1      # cells a placement covers
        kind = f"{k}-cell" + ("+penalty" if bool(np.asarray(m.penalty).any()) else "")
        if q.get("enemy") is True:   # Dark Realms: the enemy AI's decision, not a reach
            kind = "enemy AI"
        t_pos = t_plain = t_copy = float("inf")
        for _ in range(rounds):  # interleaved: a slow spell hits all
            t_pos = min(t_pos, best_time(lambda _: pos.legal_moves(f, **q), None, 1,
                                         min_time))
            t_plain = min(t_plain, best_time(lambda _: plain.reach(start, budget), None,
                                             1, min_time))
            t_copy = min(t_copy, best_time(lambda _: pos.copy(), None, 1, min_time))
        rows.append((f, kind, t_pos * 1e6, t_plain * 1e6, len(m), t_copy * 1e6))
    return rows


def games_report(games=None, rounds: int = 5, min_time: float = 0.05,
                 selfplay_games: int = 300, log=print) -> dict:
    """Time every game's positions; returns {game: {"figures": [...], "selfplay": {...}}}
    and prints a table through ``log``."""
    from . import selfplay as sp
    from .cli import example_paths
    from ..position import position_games
    import json
    games = games or [g for g in sp.GAMES if g in position_games()]
    out = {}
    log("| game | example | figure | kind | legal_moves us | plain query us | ratio | "
        "copy us | copy / plain |")
    log("|---|---|---|---|---:|---:|---:|---:|---:|")
    for game in games:
        rows = []
        for p in example_paths():
            if not p.name.startswith(game + "_"):
                continue
            s = json.loads(p.read_text(encoding="utf-8"))
            if s.get("game") != game:
                continue
            for fig, kind, a, b, n, c in figure_rows(game, s, rounds, min_time):
                rows.append((p.stem, fig, kind, a, b, n, c))
                log(f"| {game} | {p.stem} | {fig} | {kind} | {a:.1f} | {b:.1f} | "
                    f"{a / b:.1f}x | {c:.1f} | {c / b:.1f}x |")
        out[game] = {"figures": rows}
    log("")
    log("| game | self-play games | turns/s | moves/s |")
    log("|---|---:|---:|---:|")
    for game in games:
        sp.run_selfplay(game, 5, 0)  # positions built and cached out of the timing
        rep = min((sp.run_selfplay(game, selfplay_games, 1) for _ in range(max(1, rounds))),
                  key=lambda r: r["seconds"])    # the same games each run
        out[game]["selfplay"] = {k: rep[k] for k in ("turns", "moves", "seconds",
                                                     "turns_per_s", "moves_per_s")}
        log(f"| {game} | {selfplay_games} | {rep['turns_per_s']:,.0f} | "
            f"{rep['moves_per_s']:,.0f} |")
    return out
