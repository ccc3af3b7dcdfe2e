"""The hand-off of a compiled self-play step's chunks: :func:`run_chunks` (its own module:
``selfplay_batch`` and the games' steps, which it imports when a step first runs, both
call it)."""
from __future__ import annotations

import time

from ..batch import entry_for


def run_chunks(play, kernel, calls, counts) -> tuple:
    """``kernel(*calls[c])`` for every chunk ``c`` of a compiled step (chunk 0 on the
    calling thread, the rest on the pool's), its per-thread ``counts`` zeroed first;
    returns (the calls' values in chunk order, the calling thread's seconds in its
    chunk; 0.0 on one thread).

    After the first step the chunks call ``kernel``'s compiled entry point
    (:func:`movecore.batch.entry_for`, kept in ``play._entries``): the calls' arguments
    are built once (their arrays fixed; only ``lo``, ``hi`` ints change when chunks are
    recut), and the dispatcher's typing of their ~30-90 arrays, nested tuples among
    them, was ~2-3 us of a step (docs/performance_log.md, "The self-play step's fixed
    cost")."""
    for c in counts:
        c.fill(0)
    ent = play._entries
    fresh = ent is None or ent[0] is not kernel
    run = [kernel] * len(calls) if fresh else ent[1]
    if len(calls) == 1:
        out, took = [run[0](*calls[0])], 0.0
    else:
        from ..reach import _hand_pool
        pool = _hand_pool(len(calls) - 1)
        futures = [pool.submit(f, *a) for f, a in zip(run[1:], calls[1:])]
        t0 = time.perf_counter()
        first = run[0](*calls[0])
        took = time.perf_counter() - t0
        out = [first] + [fu.result() for fu in futures]
    if fresh:   # (typed once, as the dispatcher typed them)
        play._entries = (kernel, [entry_for(kernel, a) for a in calls])
    return out, took
