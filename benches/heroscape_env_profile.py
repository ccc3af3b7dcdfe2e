"""A process to profile Heroscape's vector env step with ``perf``, its compiled
functions named: the env (``heroscape_engaged_knight``, B = 1,024, one thread,
``copy=True``, random opponent) stepped on the same seeded actions for ``--seconds``,
after a perf map (``/tmp/perf-PID.map``) is written from every Numba dispatcher's
library: each function's address (``get_pointer_to_function``), its end the next one's
start. Only functions compiled in this process are in a library's module, so run it on
an empty cache folder (a cold compile, ~1-2 min on 2 cores); from Numba's cache the map
is nearly empty. The action picks (numpy: the product, the cast, ``argmax``) are in the
samples: leave them out (``FLOAT_multiply``, ``_aligned_contig_cast_byte_to_float``,
``simd_argmax_f32``).

    MOVECORE_CACHE=$(mktemp -d) python benches/heroscape_env_profile.py --seconds 40 &
    # once it prints "pid N":
    perf record -e cpu-clock -F 1999 -p N -o /tmp/env.perf -- sleep 20
    perf report -i /tmp/env.perf --no-children --sort symbol

(docs/performance_log.md, ``hsenv4``: the shares of the step by function.)

``--play``: ``BatchedPlay``'s compiled step instead (same scenario and B, one thread;
``hsmove``). ``DUMP_CODE=NAME``: each mapped function whose name holds NAME also has its
machine code written to ``/tmp/code-ADDR.bin``, to read the samples' addresses against
(``perf script -F ip``; ``objdump -D -b binary -mi386:x86-64 /tmp/code-ADDR.bin``).
"""
from __future__ import annotations

import argparse
import gc
import os
import time

import numpy as np


def write_perf_map(path: str | None = None) -> int:
    """Writes ``perf``'s map of the compiled functions of every Numba dispatcher alive
    (default ``/tmp/perf-<pid>.map``); returns how many."""
    from numba.core.registry import CPUDispatcher
    seen = {}
    for d in gc.get_objects():
        if not isinstance(d, CPUDispatcher):
            continue
        for cres in d.overloads.values():
            lib = cres.library
            mod = getattr(lib, "_final_module", None)
            if mod is None:
                continue
            for fn in mod.functions:
                if fn.is_declaration:
                    continue
                try:
                    a = lib.get_pointer_to_function(fn.name)
                except Exception:   # (a function the engine did not emit)
                    continue
                if a:
                    seen.setdefault(a, fn.name)
    at = sorted(seen)
    dump = os.environ.get("DUMP_CODE")    # (a name's part: its machine code to a file,
    if dump and at:                       # for objdump -b binary --adjust-vma=ADDR)
        import ctypes
        for a, nx in zip(at, at[1:] + [at[-1] + 4096]):
            if dump in seen[a]:
                with open(f"/tmp/code-{a:x}.bin", "wb") as fh:
                    fh.write(ctypes.string_at(a, min(nx - a, 1 << 16)))
    with open(path or f"/tmp/perf-{os.getpid()}.map", "w") as fh:
        for a, nx in zip(at, at[1:] + [at[-1] + 4096] if at else []):
            fh.write(f"{a:x} {min(nx - a, 1 << 20):x} {seen[a]}\n")
    return len(at)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scenario", default="heroscape_engaged_knight")
    ap.add_argument("--B", type=int, default=1024)
    ap.add_argument("--seconds", type=float, default=40.0)
    ap.add_argument("--copy", type=int, default=1)
    ap.add_argument("--play", action="store_true",
                    help="profile BatchedPlay's step instead of the env's")
    args = ap.parse_args()
    if args.play:
        return _play(args)
    import movecore.rl as rl
    B, STEPS = args.B, 8
    e = rl.vector_env(args.scenario, num_envs=B, threads=1, copy=bool(args.copy),
                      opponent="random")
    e.reset(seed=7)
    U = np.random.default_rng(0).random((STEPS, B, e._mask.shape[1]), np.float32)
    for s in range(STEPS):
        e.step((U[s] * e._mask).argmax(1))
    print("pid", os.getpid(), "functions mapped", write_perf_map(), flush=True)
    t0, c0, m0 = time.time(), time.process_time(), e.counts["moves"]
    while time.time() - t0 < args.seconds:
        e.reset(seed=7)
        for s in range(STEPS):
            e.step((U[s] * e._mask).argmax(1))
    print(f"CPU µs a move (with the resets and the action picks): "
          f"{(time.process_time() - c0) / (e.counts['moves'] - m0) * 1e6:.3f}")


def _play(args) -> None:
    """``--play``: ``BatchedPlay``'s compiled step on the same scenario, B, one thread."""
    from movecore.tools import _selfplay_heroscape as S
    from movecore.tools.selfplay import example_scenarios
    from movecore.tools.selfplay_batch import BatchedPlay
    sc = dict(example_scenarios("heroscape"))[args.scenario + ".json"]
    p = BatchedPlay("heroscape", sc, args.B, seed=1, threads=1)
    for _ in range(3):
        S.step(p, 0)
    print("pid", os.getpid(), "functions mapped", write_perf_map(), flush=True)
    t0, c0, m0 = time.time(), time.process_time(), p.counts["moves"]
    while time.time() - t0 < args.seconds:
        S.step(p, 0)
    print(f"CPU µs a move: "
          f"{(time.process_time() - c0) / (p.counts['moves'] - m0) * 1e6:.3f}")


if __name__ == "__main__":
    main()
