"""``movecore bench``: movecore against the peers a user would pick instead.

On the same starts of each workload (:mod:`movecore.tools.workloads`) it times

* movecore, one query per call through the public API (cells and costs as arrays),
* movecore batches (:func:`movecore.reach_many`) on one thread and on every thread,
* the C yardstick (``benches/c_yardstick.py``: a hand-written bucket-queue kernel, gcc
  -O3 -march=native, through cffi) when the source tree is at hand,
* ``scipy.sparse.csgraph.dijkstra``, one source per call with ``limit`` and batched
  ``indices``; ``tcod.path.dijkstra2d`` on a window around the start (hex boards through
  ``edge_map``; climbing costs through ``tcod.path.CustomGraph``, one edge rule per
  direction); ``networkx.single_source_dijkstra_path_length`` with ``cutoff``; a
  plain-Python ``heapq`` Dijkstra,

checks that every method returns the same cells and costs as movecore, and prints a table
of microseconds per query with each method's time as a multiple of movecore's. Peers are
the optional ``bench`` extra; a missing one is skipped with a note. Also reported: the
double-space query against a single-space one on the same battlefield, import + warm-up
time from the Numba cache and the compile time without it, and the resident memory
before and after a million queries.
"""
from __future__ import annotations

import gc
import heapq
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from ._timing import best_time, rss_bytes  # noqa: F401 (rss_bytes: bench's API)
from .workloads import NAMES, make

# The kernels load where a method is built, not at import (``movecore bench --help``).


def _reach_module():
    """The module ``movecore.reach`` (the package attribute is the function): its
    ``BATCH_THREADS``."""
    import importlib
    return importlib.import_module("movecore.reach")

PEERS = ("scipy", "scipy-batch", "tcod", "networkx", "heapq")


# ------------------------------------------------------------------ the plain digraph
def edge_list(w):
    """(src, dst, cost) of every legal step of a peer-friendly workload."""
    nbr = w.board.nbr
    n, k = nbr.shape
    h = w.board.height.astype(np.int64)
    u = np.repeat(np.arange(n), k)
    v = nbr.ravel().astype(np.int64)
    ok = v >= 0
    u, v = u[ok], v[ok]
    c = w.cost[v].astype(np.int64)
    ok = (c >= 0) & (w.cost[u] >= 0)
    u, v, c = u[ok], v[ok], c[ok]
    if w.climb:
        c = c + w.climb * np.maximum(0, h[v] - h[u])
    return u, v, c


def _peer_friendly(w) -> bool:
    return w.peer_friendly


def _grid_shape(w):
    """(rows, cols) when cell i sits at row i // cols, column i % cols, else None."""
    xy = w.board.coords
    cols = int(xy[:, 0].max()) + 1
    rows = int(xy[:, 1].max()) + 1
    idx = xy[:, 1].astype(np.int64) * cols + xy[:, 0]
    if rows * cols != w.board.n_cells or not np.array_equal(idx, np.arange(w.board.n_cells)):
        return None
    return rows, cols


# ------------------------------------------------------------------ peers
def make_peers(w, wanted):
    """{name: (run(starts) -> list of (cells, costs), note)}; notes for skipped ones."""
    peers, notes = {}, []
    if not _peer_friendly(w):
        return peers, [f"{w.name}: peers skipped (stop rules and links are not a plain "
                       "weighted digraph)"]
    u, v, c = edge_list(w)
    n, budget = w.board.n_cells, w.budget
    if "scipy" in wanted or "scipy-batch" in wanted:
        try:
            import scipy.sparse as sp
            from scipy.sparse.csgraph import dijkstra
        except ImportError:
            notes.append("scipy: not installed (pip install 'movecore[bench]')")
        else:
            G = sp.csr_matrix((c.astype(np.float64), (u, v)), shape=(n, n))

            def scipy_one(starts):
                out = []
                for s in starts:
                    d = dijkstra(G, indices=int(s), limit=budget + 0.5)
                    cells = np.flatnonzero(np.isfinite(d))
                    out.append((cells, d[cells].astype(np.int32)))
                return out

            def scipy_batch(starts, chunk=max(1, (1 << 24) // max(n, 1))):
                out = []
                for i in range(0, len(starts), chunk):
                    D = dijkstra(G, indices=np.asarray(starts[i:i + chunk]),
                                 limit=budget + 0.5)
                    for d in D:
                        cells = np.flatnonzero(np.isfinite(d))
                        out.append((cells, d[cells].astype(np.int32)))
                return out

            if "scipy" in wanted:
                peers["scipy 1-source"] = scipy_one
            if "scipy-batch" in wanted:
                peers["scipy batched"] = scipy_batch
    if "tcod" in wanted:
        try:
            import tcod.path
        except ImportError:
            notes.append("tcod: not installed (pip install 'movecore[bench]')")
        else:
            fn = _tcod_peer(w, tcod.path)
            if fn is None:
                notes.append(f"{w.name}: tcod skipped (not a row-major grid)")
            else:
                peers["tcod windowed"] = fn
    if "networkx" in wanted:
        try:
            import networkx as nx
        except ImportError:
            notes.append("networkx: not installed (pip install 'movecore[bench]')")
        else:
            g = nx.DiGraph()
            g.add_nodes_from(range(n))
            g.add_weighted_edges_from(zip(u.tolist(), v.tolist(), c.tolist()))

            def nx_run(starts):
                out = []
                for s in starts:
                    d = nx.single_source_dijkstra_path_length(g, int(s), cutoff=budget)
                    out.append((np.fromiter(d.keys(), np.int32, len(d)),
                                np.fromiter(d.values(), np.int32, len(d))))
                return out

            peers["networkx"] = nx_run
    if "heapq" in wanted:
        adj = [[] for _ in range(n)]
        for a, b, x in zip(u.tolist(), v.tolist(), c.tolist()):
            adj[a].append((b, x))

        def heapq_run(starts):
            out = []
            for s in starts:
                s = int(s)
                dist = {s: 0}
                pq = [(0, s)]
                while pq:
                    d, x = heapq.heappop(pq)
                    if d > dist[x]:
                        continue
                    for y, cost in adj[x]:
                        nd = d + cost
                        if nd <= budget and nd < dist.get(y, budget + 1):
                            dist[y] = nd
                            heapq.heappush(pq, (nd, y))
                out.append((np.fromiter(dist.keys(), np.int32, len(dist)),
                            np.fromiter(dist.values(), np.int32, len(dist))))
            return out

        peers["heapq (Python)"] = heapq_run
    return peers, notes


def _tcod_peer(w, tp):
    shape = _grid_shape(w)
    if shape is None:
        return None
    rows, cols = shape
    k = w.board.nbr.shape[1]
    cost = w.cost.reshape(rows, cols)
    b = w.budget
    if k == 6:  # axial hex: (dr, dq) offsets of E, NE, NW, W, SW, SE
        dirs = [(0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1), (1, 0)]
    elif k == 4:
        dirs = [(0, 1), (-1, 0), (0, -1), (1, 0)]
    else:
        dirs = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (dr, dc) != (0, 0)]
    edge_map = np.zeros((3, 3), np.int32)
    for dr, dc in dirs:
        edge_map[dr + 1, dc + 1] = 1
    open_cost = np.where(cost < 0, 0, cost).astype(np.int32)
    dir_cost = None
    if w.climb:  # climbing costs depend on the step: one cost array per direction
        h = w.board.height.reshape(rows, cols).astype(np.int64)
        dir_cost = []
        for dr, dc in dirs:
            src = np.full_like(h, 1 << 20)
            r0, r1 = max(0, dr), rows + min(0, dr)
            c0, c1 = max(0, dc), cols + min(0, dc)
            src[r0:r1, c0:c1] = h[r0 - dr:r1 - dr, c0 - dc:c1 - dc]
            dc_ = open_cost + w.climb * np.maximum(0, h - src)
            dir_cost.append(np.where(open_cost > 0, dc_, 0).astype(np.int32))

    def run(starts):
        out = []
        for s in starts:
            r, q = divmod(int(s), cols)
            r0, r1 = max(0, r - b), min(rows, r + b + 1)
            q0, q1 = max(0, q - b), min(cols, q + b + 1)
            if dir_cost is None:
                dist = tp.maxarray((r1 - r0, q1 - q0), np.int32)
                dist[r - r0, q - q0] = 0
                tp.dijkstra2d(dist, open_cost[r0:r1, q0:q1], edge_map=edge_map, out=dist)
            else:
                g = tp.CustomGraph((r1 - r0, q1 - q0))
                for (dr, dc), cst in zip(dirs, dir_cost):
                    g.add_edge((dr, dc), 1, cost=cst[r0:r1, q0:q1])
                pf = tp.Pathfinder(g)
                pf.add_root((r - r0, q - q0))
                pf.resolve()
                dist = pf.distance
            rr, qq = np.nonzero(dist <= b)
            out.append(((rr + r0) * cols + qq + q0, dist[rr, qq].astype(np.int32)))
        return out

    return run


# ------------------------------------------------------------------ movecore methods
def mc_single(w):
    from ..reach import reach
    kw = w.query_kwargs()
    board, mover, budget = w.board, w.mover, w.budget

    def run(starts):
        return [(r.cells, r.costs) for r in
                (reach(board, mover, int(s), budget, **kw) for s in starts)]
    return run


def mc_prepared(w):
    """One query per call through a prepared query (``movecore.prepare``)."""
    from ..reach import prepare
    p = prepare(w.board, w.mover, w.budget, **w.query_kwargs())
    one = p.reach

    def run(starts):
        return [(r.cells, r.costs) for r in (one(int(s)) for s in starts)]
    return run


def mc_batch(w, threads, how=None):
    """A batch; ``how`` = "pool" or "prange" sets how threads are used (default: the
    library's, ``reach.BATCH_THREADS``)."""
    from ..reach import reach_many
    _reach = _reach_module()
    kw = w.query_kwargs()

    def call(starts):
        if how is None:
            return reach_many(w.board, w.mover, starts, w.budget, threads=threads, **kw)
        was, _reach.BATCH_THREADS = _reach.BATCH_THREADS, how
        try:
            return reach_many(w.board, w.mover, starts, w.budget, threads=threads, **kw)
        finally:
            _reach.BATCH_THREADS = was

    def run(starts):
        b = call(starts)
        return [(b.cells[b.offsets[i]:b.offsets[i + 1]], b.costs[b.offsets[i]:b.offsets[i + 1]])
                for i in range(len(b))]

    def timed(starts):  # the batch call alone (splitting into queries is not timed)
        call(starts)
    return run, timed


def yardstick(w):
    """The C yardstick's runner, or None with a note when it cannot be built here."""
    here = Path(__file__).resolve().parents[2] / "benches"
    if not (here / "c_yardstick.py").exists():
        return None, None, "C yardstick: benches/c_yardstick.py not found (run from a " \
                           "source checkout)"
    if not _peer_friendly(w):
        return None, None, None
    sys.path.insert(0, str(here))
    try:
        import c_yardstick
        y = c_yardstick.Yardstick(w.board.nbr, w.cost, w.board.height, w.climb, w.budget)
    except Exception as exc:  # no compiler, no cffi
        return None, None, f"C yardstick: {exc}"
    finally:
        sys.path.remove(str(here))

    def run(starts):
        off, cells, costs = y.run(starts)
        return [(cells[off[i]:off[i + 1]], costs[off[i]:off[i + 1]])
                for i in range(len(starts))]

    return run, (lambda starts: y.run(starts)), None


def yardstick_threads(w, n_threads):
    """The C yardstick on ``n_threads`` threads (cffi releases the GIL), each with its own
    workspace and a contiguous share of the starts, run the way movecore runs a batch: the
    calling thread takes share 0, a persistent pool the others (no thread is started per
    call). How much a second core gives a kernel that is not movecore's, on this machine.
    Returns (runner, timed)."""
    from concurrent.futures import ThreadPoolExecutor

    import c_yardstick  # imported (and built) by yardstick() before this is called
    ys = [c_yardstick.Yardstick(w.board.nbr, w.cost, w.board.height, w.climb, w.budget)
          for _ in range(n_threads)]
    pool = ThreadPoolExecutor(max_workers=max(1, n_threads - 1))

    def timed(starts):
        parts = np.array_split(np.asarray(starts), n_threads)
        futures = [pool.submit(ys[i].run, parts[i]) for i in range(1, n_threads)]
        return [ys[0].run(parts[0])] + [f.result() for f in futures]

    def run(starts):
        res = []
        for off, cells, costs in timed(starts):
            res += [(cells[off[i]:off[i + 1]], costs[off[i]:off[i + 1]])
                    for i in range(len(off) - 1)]
        return res

    return run, timed


# ------------------------------------------------------------------ timing
def _same(a, b) -> bool:
    ca, xa = np.asarray(a[0]), np.asarray(a[1])
    cb, xb = np.asarray(b[0]), np.asarray(b[1])
    if ca.shape != cb.shape:
        return False
    ia, ib = np.argsort(ca, kind="stable"), np.argsort(cb, kind="stable")
    return np.array_equal(ca[ia], cb[ib]) and np.array_equal(xa[ia], xb[ib])


def bench_workload(w, n_queries, peers_wanted, rounds=3, min_time=0.05, log=print):
    """Rows (method, us per query, ok) for one workload; the first row is movecore's.

    Every method is checked against movecore's single queries first; then the rounds are
    interleaved (round r times every method once), so that a slow spell of a shared
    machine falls on all methods alike; each method keeps its best round."""
    import numba

    starts = w.starts[:n_queries]
    ref = mc_single(w)(starts)
    methods, notes = [], []  # (name, timed function, its starts)

    def add(name, runner, timed=None, sub=starts):
        res = runner(sub)
        ok = len(res) == len(sub) and all(_same(a, b) for a, b in zip(res, ref[:len(sub)]))
        methods.append((name, timed or runner, sub, ok))

    add("movecore reach (1/call)", mc_single(w))
    add("movecore prepared (1/call)", mc_prepared(w))
    run1, t1 = mc_batch(w, 1)
    add("movecore batch, 1 thread", run1, t1)
    nt = numba.get_num_threads()
    if nt > 1:
        runn, tn = mc_batch(w, nt)
        add(f"movecore batch, {nt} threads", runn, tn)
        other = "prange" if _reach_module().BATCH_THREADS == "pool" else "pool"
        runo, to = mc_batch(w, nt, other)
        add(f"movecore batch, {nt} threads, {other}", runo, to)
    yrun, ytimed, note = yardstick(w)
    if note:
        notes.append(note)
    if yrun is not None:
        add("C yardstick (gcc -O3)", yrun, ytimed)
        if nt > 1:
            add(f"C yardstick, {nt} threads", *yardstick_threads(w, nt))
    peers, pnotes = make_peers(w, peers_wanted)
    notes += pnotes
    for name, fn in peers.items():
        slow = name in ("networkx", "heapq (Python)") or "1-source" in name or "tcod" in name
        add(name, fn, sub=starts[:max(1, min(len(starts), 100 if slow else len(starts)))])
    best = [float("inf")] * len(methods)
    for name, fn, sub, _ in methods:
        fn(sub)  # warm
    for _ in range(rounds):
        for i, (name, fn, sub, _) in enumerate(methods):
            best[i] = min(best[i], best_time(fn, sub, 1, min_time))
    rows = []
    for (name, fn, sub, ok), t in zip(methods, best):
        t = t / len(sub) * 1e6
        rows.append((name, t, ok))
        log(f"  {w.name:16s} {name:26s} {t:10.2f} us/query  {'same' if ok else 'DIFFERENT'}")
    return rows, notes


def table(results) -> str:
    """Markdown table: one row per workload and method, with the ratio to movecore."""
    lines = ["| workload | method | µs / query | × movecore 1/call | × movecore batch 1t "
             "| same cells+costs |", "|---|---|---:|---:|---:|:-:|"]
    for name, rows in results.items():
        base = rows[0][1]
        batch = next((t for m, t, _ in rows if m == "movecore batch, 1 thread"), base)
        for m, t, ok in rows:
            lines.append(f"| {name} | {m} | {t:.2f} | {t / base:.2f} | {t / batch:.2f} | "
                         f"{'yes' if ok else 'NO'} |")
    return "\n".join(lines)


def double_vs_single(n_queries, rounds=3, min_time=0.05):
    w = make("double-space", n_starts=max(n_queries, 1))
    d = best_time(mc_single(w), w.starts[:n_queries], rounds, min_time)
    s = best_time(mc_single(w.single), w.single.starts[:n_queries], rounds, min_time)
    return d / n_queries * 1e6, s / n_queries * 1e6


# ------------------------------------------------------------------ cold start, memory
def cold_start(log=None) -> dict:
    """Seconds for ``import movecore; movecore.warmup()`` from the Numba cache, and with
    the cache off (``MOVECORE_NO_CACHE=1``: the compile time). ``log``: says which
    process starts."""
    code = ("import time; t=time.perf_counter(); import movecore; t1=time.perf_counter(); "
            "movecore.warmup(); print(t1-t, time.perf_counter()-t)")
    out = {}
    for label, env in (("compile (no cache)", {"MOVECORE_NO_CACHE": "1"}),
                       ("from cache (1st, fills it)", {}), ("from cache", {})):
        if log is not None:
            log(f"  cold start {label} ...", flush=True)
        e = dict(os.environ, **env)
        e.pop("MOVECORE_NO_CACHE", None) if not env else None
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env=e, timeout=600)
        if r.returncode:
            out[label] = ("error", r.stderr.strip().splitlines()[-1:])
            continue
        imp, tot = map(float, r.stdout.split())
        out[label] = (imp, tot)
    return out


def memory_run(n: int, name="skirmish-hex"):
    """(rss before, rss after, seconds) of ``n`` public queries, results dropped."""
    from ..reach import reach
    w = make(name)
    starts = w.starts.tolist()
    for s in starts[:100]:
        reach(w.board, w.mover, s, w.budget)
    gc.collect()
    before = rss_bytes()
    t0 = time.perf_counter()
    m = len(starts)
    for i in range(n):
        reach(w.board, w.mover, starts[i % m], w.budget)
    t = time.perf_counter() - t0
    gc.collect()
    return before, rss_bytes(), t


# ------------------------------------------------------------------ CLI
def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = ""
    try:
        load = " load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        pass
    import numba
    return (f"{cpu}, {os.cpu_count()} cores, Python {sys.version.split()[0]}, numba "
            f"{numba.__version__}, numpy {np.__version__};{load}")


def load_note(load=None, cores=None) -> str:
    """The load average, and a warning when it is above 1 per core (other jobs share the
    cores: timings come out slow and noisy, threads gain little)."""
    try:
        load = os.getloadavg() if load is None else load
    except OSError:
        return "load average: unknown"
    cores = cores or os.cpu_count() or 1
    line = f"load average {' '.join(f'{x:.2f}' for x in load)} on {cores} cores"
    if load[0] > cores:
        line += (f"\nwarning: the machine is busy (load {load[0]:.2f} > 1 per core): other "
                 f"jobs share the cores, so these timings are slow and noisy, and more "
                 f"threads may come out slower than one; compare ratios within one run, "
                 f"or run again on a quiet machine")
    return line


def phase(what: str) -> float:
    """Say that a phase starts (each can take minutes on a busy machine); its start."""
    print(f"\n== {what} ...", flush=True)
    return time.perf_counter()


def check_args(args) -> None:
    """QueryError naming the first count or time out of range (before anything runs)."""
    from ..errors import QueryError, describe
    for flag, least in (("queries", 1), ("rounds", 1), ("rl_steps", 1),
                        ("selfplay_games", 1), ("memory", 0)):
        v = getattr(args, flag, None)
        if v is not None and (type(v) is not int or v < least):
            raise QueryError(f"--{flag.replace('_', '-')} must be an integer >= {least}; "
                             f"got {describe(v)}")
    t = getattr(args, "min_time", None)
    if t is not None and not (isinstance(t, (int, float)) and 0 <= t < float("inf")):
        raise QueryError(f"--min-time must be a finite number of seconds >= 0; got "
                         f"{describe(t)}")


def run_bench(args) -> int:
    check_args(args)
    if args.rl is not None:
        # (the rl extra missing is said at once, not after the kernels' compile, which
        # importing them starts: up to a minute on a cold cache)
        from ..rl import _rl_extra
        _rl_extra()
    from ..reach import warmup

    print(load_note(), flush=True)
    t0 = phase("loading the kernels (compiling them on a cold cache)")
    warmup()
    print(f"kernels ready in {time.perf_counter() - t0:.2f} s")
    print(f"machine: {machine()}")
    if args.big is not None:
        from .bench_big import big_report
        big_report([g for g in args.big.split(",") if g] or None)
        return 0
    if args.batch is not None:
        from .bench_batch import batch_report
        batch_report([g for g in args.batch.split(",") if g] or None,
                     min_time=args.min_time, selfplay_games=args.selfplay_games)
        return 0
    if args.rl is not None:
        from ..rl.bench import rl_report
        wanted = [g for g in args.rl.split(",") if g] or None
        rl_report(wanted, steps=args.rl_steps, rounds=args.rounds)
        return 0
    if args.games is not None:
        from .bench_games import games_report
        wanted = [g for g in args.games.split(",") if g] or None
        phase("the game layer: legal_moves per figure, then self-play per game")
        games_report(wanted, rounds=args.rounds, selfplay_games=args.selfplay_games)
        print(f"\n{load_note()}")
        return 0
    names = args.workloads.split(",") if args.workloads else [n for n in NAMES
                                                            if n != "double-space"]
    peers = PEERS if args.peers == "all" else tuple(p for p in args.peers.split(",") if p)
    results, notes = {}, []
    for name in names:
        phase(f"workload {name}: {args.queries} queries, every method checked, then "
              f"{args.rounds} timing rounds")
        w = make(name, n_starts=max(args.queries, 1))
        rows, n = bench_workload(w, args.queries, peers, args.rounds, args.min_time)
        results[name] = rows
        notes += n
    print()
    print(table(results))
    bad = [(n, m) for n, rows in results.items() for m, _, ok in rows if not ok]
    for note in dict.fromkeys(notes):
        print(f"note: {note}")
    phase("double-space against single-space queries")
    d, s = double_vs_single(args.queries, args.rounds, args.min_time)
    print(f"\ndouble-space query {d:.2f} us vs single-space {s:.2f} us on the same "
          f"battlefield: {d / s:.2f}x")
    if args.memory:
        phase(f"memory: {args.memory:,} queries, resident memory before and after")
        before, after, t = memory_run(args.memory)
        print(f"memory: {args.memory} queries in {t:.1f} s ({t / args.memory * 1e6:.2f} "
              f"us each); resident {before / 2**20:.1f} MiB before, {after / 2**20:.1f} MiB "
              f"after ({(after - before) / 2**20:+.1f} MiB)")
    if args.cold:
        phase("cold start: three fresh processes, the first compiling every kernel with "
              "the cache off (20 s to 1 min)")
        for label, v in cold_start(log=print).items():
            if v[0] == "error":
                print(f"cold start {label}: failed {v[1]}")
            else:
                print(f"cold start {label}: import {v[0]:.2f} s, import + warmup "
                      f"{v[1]:.2f} s")
    if args.big_default:
        phase("big boards: one solve() per game on a 100,000-cell board, each in a fresh "
              "process")
        from .bench_big import big_report
        big_report()
    print(f"\n{load_note()}")
    if bad:
        print(f"MISMATCH: {bad}")
        return 1
    return 0


def register(sub) -> None:
    p = sub.add_parser("bench", help="time movecore against scipy / tcod / networkx / "
                                     "heapq and a C yardstick; or the game layer "
                                     "(--games), batched self-play (--batch), the RL "
                                     "envs (--rl), 100,000-cell boards (--big)")
    p.add_argument("--workloads", default="",
                   help=f"comma-separated, from {', '.join(NAMES)} (default: the four "
                        f"peer workloads; double-space is always compared to single)")
    p.add_argument("--queries", type=int, default=1000, help="starts per workload (default 1000)")
    p.add_argument("--peers", default="all", help=f"comma list from {PEERS}, or 'all' (default all)")
    p.add_argument("--rounds", type=int, default=3,
                   help="timing rounds per method; the best round counts (default 3)")
    p.add_argument("--min-time", type=float, default=0.2, help="least seconds per round (default 0.2)")
    p.add_argument("--memory", type=int, default=1_000_000,
                   help="queries of the memory run (0: skip; default 1000000)")
    p.add_argument("--no-cold", dest="cold", action="store_false",
                   help="skip the cold-start subprocesses")
    p.add_argument("--games", nargs="?", const="", default=None, metavar="LIST",
                   help="instead: the game layer (live positions' legal moves and "
                        "copy() beside a plain prepared query, and self-play rates) for "
                        "every game, or a comma list of games")
    p.add_argument("--big", nargs="?", const="", default=None, metavar="LIST",
                   help="instead: one solve() per game on a 100,000-cell board, in a fresh "
                        "process each (seconds and peak memory), for every game or a "
                        "comma list")
    p.add_argument("--no-big", dest="big_default", action="store_false",
                   help="skip the 100,000-cell boards at the end of the default run")
    p.add_argument("--batch", nargs="?", const="", default=None, metavar="LIST",
                   help="instead: batched self-play moves/s (B = 1 ... 4096, 1 and 2 "
                        "threads) beside reach_many (their rounds in turn; medians, "
                        "move / query from paired rounds) and the per-position loop, and "
                        "the memory of 4096 games, for every game or a comma list")
    p.add_argument("--selfplay-games", type=int, default=300,
                   help="games of self-play per game with --games (default 300)")
    p.add_argument("--rl", nargs="?", const="", default=None, metavar="LIST",
                   help="instead: RL environment steps/s beside the raw position loop "
                        "(legal_moves + apply_row) for every game, or a comma list "
                        "(needs the rl extra)")
    p.add_argument("--rl-steps", type=int, default=2000,
                   help="env steps per loop with --rl (default 2000)")
    p.set_defaults(fn=run_bench)
