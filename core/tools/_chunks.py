"""The hand-off of a compiled self-play step's chunks: :func:`run_chunks` (its own module:
``selfplay_batch`` and the games' steps, which it imports when a step first runs, both
call it)."""
from __future__ import annotations

from time import perf_counter

from ..batch import entry_call, on_cut


def run_chunks(play, kernel, calls, counts, steps: int = 1) -> tuple:
    """``kernel(*calls[c])`` for every chunk ``c`` of a compiled step (chunk 0 on the
    calling thread, the rest on the pool's: :func:`movecore.batch.on_cut`), its
    per-thread ``counts`` zeroed first, each call taking ``steps`` steps (the calls
    read ``play._n_steps``, set here; ``play._tick``, the step counter, moves on by
    them after); returns (the calls' values in chunk order, the calling thread's
    seconds in its chunk; 0.0 on one thread).

    After the first step the chunks call ``kernel``'s compiled entry point
    (:func:`movecore.batch.entry_call`, kept in ``play._entries`` by (kernel, chunk)):
    the calls' arguments are built once (their arrays fixed; only ``lo``, ``hi`` ints
    change when chunks are recut), and the dispatcher's typing of their ~30-90 arrays,
    nested tuples among them, was ~2-3 us of a step (docs/performance_log.md, "The
    self-play step's fixed cost")."""
    for c in counts:
        c.fill(0)
    ent = play._entries
    if ent is None:
        ent = play._entries = {}
    play._n_steps[0] = steps
    if len(calls) == 1:     # (one thread: no closure, no cut; ~1 us of a ~20 us step)
        got = [entry_call(ent, (kernel, 0), kernel, calls[0])], 0.0
    else:
        got = on_cut(range(len(calls) + 1),
                     lambda c, lo, hi: entry_call(ent, (kernel, c), kernel, calls[c]))
    play._tick[0] += steps
    return got


def run_chosen(play, kernel, calls, whole, counts, choices, steps: int = 1) -> tuple:
    """:func:`run_chunks` of ``steps`` steps on the threads' ``calls``, or on ``whole``
    (every game in chunk 0's call, on the calling thread) where the choice says so
    (``choices``: two ``movecore.batch.ThreadChoice``, one for calls of one step and
    one for calls of several, so that their timings never mix), timed for it (told the
    seconds per step). Returns (whether the call was split, the counters it wrote:
    ``counts``, or chunk 0's alone when made whole, and the calling thread's seconds in
    its chunk)."""
    if len(calls) == 1:
        return True, counts, run_chunks(play, kernel, calls, counts, steps)[1]
    choice = choices[steps > 1]
    split = choice.use_split()
    if not split:
        counts = counts[:1]     # (a whole call writes chunk 0's counters alone)
    t0 = perf_counter()
    took = run_chunks(play, kernel, calls if split else whole, counts, steps)[1]
    choice.took(split, (perf_counter() - t0) / steps)
    return split, counts, took
