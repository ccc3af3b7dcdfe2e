"""pytest-benchmark timings of penalty queries, one per registered implementation
(``movecore.reach.IMPLEMENTATIONS``: the general kernel and the packed penalty kernel),
on the workloads with a leaving-engagement layer (enemies scattered on the board, each
one bit on the cells around it) and an enter penalty on a few cells.

The normal test run disables benchmarking: each runs once as a smoke test and checks
that the implementation answers as the general kernel. Time them with
``pytest benches/bench_penalty.py --benchmark-enable``.
"""
from __future__ import annotations

import importlib

import numpy as np
import pytest

from workloads import make

R = importlib.import_module("movecore.reach")
NAMES = ("skirmish-hex", "dungeon-square8", "heights-hex", "double-space")
_cache = {}


def penalty_query(name):
    """(prepared ``_Query`` with penalties, starts) of workload ``name`` (seeded)."""
    if name not in _cache:
        w = make(name)
        rng = np.random.default_rng(7)
        n = w.board.n_cells
        leave = np.zeros(n, np.uint64)
        for bit, e in enumerate(rng.choice(n, size=min(n, 12), replace=False)):
            for v in w.board.nbr[e]:
                if v >= 0:
                    leave[v] |= np.uint64(1) << np.uint64(bit)
        pen = (rng.random(n) < 0.05).astype(np.int32)
        kw = w.query_kwargs()
        q = R._prepare(w.board, w.mover, w.budget, None, kw.get("cell_flags"), None, leave,
                       pen, 1, None)
        _cache[name] = (q, [int(s) for s in w.starts[:50]], w.budget)
    return _cache[name]


@pytest.mark.parametrize("impl", sorted(R.IMPLEMENTATIONS))
@pytest.mark.parametrize("name", NAMES)
def test_penalty_query(benchmark, name, impl):
    q, starts, budget = penalty_query(name)
    applies, run = R.IMPLEMENTATIONS[impl]
    if not applies(q):
        pytest.skip(f"{impl} does not answer penalty queries")

    def go():
        return [run(q, s, budget) for s in starts]

    got = benchmark(go)
    for r, s in zip(got[:5], starts):
        want = R._run_general(q, s, budget)
        assert r.cells.tolist() == want.cells.tolist()
        assert r.penalties.tolist() == want.penalties.tolist()


# ------------------------------------------------------------------ the games, A/B
GAME_CASES = (
    ("heroscape_engaged_knight", "dragon", {}), ("heroscape_engaged_knight", "knight", {}),
    ("heroscape_river_crossing", "dragon", {}),
    ("descent_hero_run", "Grisban", {"action": "run"}),
    ("descent_hero_run", "Jain", {"action": "run"}),
    ("dark_realms_die_planning", "ayla", {"move": 6}),
    ("dark_realms_die_planning", "borin", {"move": 6}),
)


def ab_games(rounds: int = 12, calls: int = 100, log=print) -> dict:
    """µs per ``legal_moves`` of the games' penalty moves with the general kernel and
    with the packed penalty kernel, in one process, interleaved round by round, CPU time
    (``time.process_time``: a shared machine's other work is not counted); each keeps
    its best round. The answers of both are checked equal first."""
    import json
    import time
    from pathlib import Path

    import movecore as mc
    from movecore.games.heroscape import position as HP
    fast_rows, fast_tree, fast_ends = HP._pen_rows, R._pen_tree, R._pen_ends

    import pkgutil
    modules = [R] + [importlib.import_module(f"movecore.reach.{m.name}")
                     for m in pkgutil.iter_modules(R.__path__)]

    def use(fast):  # the packed penalty kernel's three entries, or the general kernel
        HP._pen_rows = fast_rows if fast else (lambda *a: None)
        for mod in modules:  # each module of movecore.reach that calls them
            if "_pen_tree" in vars(mod):
                mod._pen_tree = fast_tree if fast else (lambda *a: None)
            if "_pen_ends" in vars(mod):
                mod._pen_ends = fast_ends if fast else R._run_general

    def cpu_us(f):
        t0 = time.process_time()
        for _ in range(calls):
            f()
        return (time.process_time() - t0) / calls * 1e6

    examples = Path(__file__).resolve().parents[1] / "core" / "examples"
    cases = []
    for ex, fig, query in GAME_CASES:
        pos = mc.position(json.loads((examples / f"{ex}.json").read_text()))
        cases.append((f"{ex} {fig}", lambda p=pos, f=fig, kw=query: p.legal_moves(f, **kw)))
    try:
        for name, f in cases:
            use(False)
            slow = f()
            use(True)
            fast = f()
            for col in ("actions", "costs", "stop", "penalty"):
                assert np.array_equal(getattr(slow, col), getattr(fast, col)), (name, col)
        best = {name: [float("inf"), float("inf")] for name, _ in cases}
        for _ in range(rounds):
            for name, f in cases:
                for i in (0, 1):
                    use(i == 1)
                    best[name][i] = min(best[name][i], cpu_us(f))
    finally:
        use(True)
    log("| position | figure | general kernel µs | reach_pen µs | speed-up |")
    log("|---|---|---:|---:|---:|")
    for name, (g, p) in best.items():
        log(f"| {name.replace(' ', ' | ')} | {g:.1f} | {p:.1f} | {g / p:.2f}x |")
    return best


if __name__ == "__main__":  # python benches/bench_penalty.py
    ab_games()
