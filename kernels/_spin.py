"""A flag in shared memory that one thread sets and another waits on without the GIL and
without sleeping: the hand-off of a batched step's chunk to a pool thread that is still
spinning after its last chunk (``movecore.reach._handoff``; docs/performance_log.md, "A
hand-off that does not sleep between steps").

``flags`` is an int64[k] array (C order; the caller keeps each flag a writer updates
on a cache line of its own).

* :func:`publish` ``(flags, i, value, j)``: store ``flags[i] = value`` with sequentially
  consistent ordering (x86: ``xchg``, a full barrier), then read ``flags[j]`` and return
  it: every write this thread made before the store is seen by a thread that reads the
  new value (release), and the load is not moved before the store (the sleep
  protocol's store-then-load on both sides needs that, see ``_handoff``). Holds the GIL.
* :func:`spin_until` ``(flags, i, target, budget, store_i, store_v, delay, mark_i)``:
  first, where ``store_i`` >= 0, the store ``flags[store_i] = store_v`` as
  :func:`publish` makes it; then read ``flags[i]`` (a sequentially consistent atomic
  load: acquire, and never hoisted out of the loop by LLVM) until it is at least
  ``target`` or ``budget`` ticks of the CPU's cycle counter have passed (``budget`` <= 0:
  one read); returns the last value read. Between reads a ``pause`` (x86; a hint that
  this is a spin, which frees the core's shared resources for its sibling) and a
  ``sched_yield`` (every ``YIELD_MASK + 1`` reads), so that a spinning thread that shares
  its core with a runnable one (the machine is loaded) lets it run. Where the value
  reached ``target``, it spins ``delay`` ticks more before it returns (a pool worker's
  wait for the caller to give the GIL up, see ``_handoff``), and where ``mark_i`` >= 0
  it then writes the cycle counter to ``flags[mark_i]`` (a plain store: the same thread
  reads it, for how long its return waited for the GIL). Runs without the GIL, the
  store included: a worker that publishes its chunk's end this way has given the GIL
  up before the caller can see it, so the caller that leaves its own spin never waits
  for the GIL (a wait for the GIL is a sleep on a condition variable: the wake this
  module exists to avoid).
* :func:`cycles_now` ``()``: the cycle counter.

They raise nothing and touch only the slots named (in range: the caller's duty).
"""
from __future__ import annotations

import numba
from llvmlite import binding as _llvm
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

#: ``spin_until`` yields the core every ``YIELD_MASK + 1`` reads (a power of two less
#: one): at every read, since yielding every 64 (~3-5 us of ``pause``) took half the
#: executor's speed where the caller and the worker shared one core (docs/performance_log.md,
#: "A hand-off that does not sleep between steps"); with no other thread ready the call
#: returns at once
YIELD_MASK = 0
#: the spin's ``pause``: x86 only (elsewhere the loop reads without a hint)
_X86 = _llvm.get_process_triple().split("-")[0] in ("x86_64", "i386", "i686")


def _flag_pointer(context, builder, sig, args):
    aryty = sig.args[0]
    ary = context.make_array(aryty)(context, builder, args[0])
    idx = context.cast(builder, args[1], sig.args[1], types.intp)
    return cgutils.get_item_pointer(context, builder, aryty, ary, [idx], wraparound=False)


def _is_flags(a, i):
    return isinstance(a, types.Array) and a.ndim == 1 and a.dtype == types.int64 and \
        isinstance(i, types.Integer)


@intrinsic
def _load(typingctx, a, i):
    if not _is_flags(a, i):
        return None

    def codegen(context, builder, sig, args):
        return builder.load_atomic(_flag_pointer(context, builder, sig, args), "seq_cst", 8)
    return types.int64(a, i), codegen


@intrinsic
def _store(typingctx, a, i, v):
    if not (_is_flags(a, i) and isinstance(v, types.Integer)):
        return None

    def codegen(context, builder, sig, args):
        val = context.cast(builder, args[2], sig.args[2], types.int64)
        builder.store_atomic(val, _flag_pointer(context, builder, sig, args), "seq_cst", 8)
        return context.get_dummy_value()
    return types.none(a, i, v), codegen


def _no_args_call(name: str, ret: ir.Type, result, keep: bool = True):
    """An intrinsic that calls the function (or LLVM intrinsic) ``name`` of no
    arguments returning ``ret``; its value is the call's (``result``: the Numba type)
    or none (``result`` None). ``keep`` False: the intrinsic emits nothing."""
    @intrinsic
    def call(typingctx):
        def codegen(context, builder, sig, args):
            if keep:
                fn = cgutils.get_or_insert_function(builder.module,
                                                    ir.FunctionType(ret, []), name)
                value = builder.call(fn, [])
                if result is not None:
                    return value
            return context.get_dummy_value()
        return (types.none if result is None else result)(), codegen
    return call


#: x86's ``pause`` (elsewhere nothing)
_pause = _no_args_call("llvm.x86.sse2.pause", ir.VoidType(), None, keep=_X86)
#: LLVM's portable cycle counter (x86: rdtsc); the pool checks it advances before it
#: spins (a target where it reads 0 would never end a spin: no spinning there)
_cycles = _no_args_call("llvm.readcyclecounter", ir.IntType(64), types.int64)
#: the C library's ``sched_yield`` (its int result dropped)
_sched_yield = _no_args_call("sched_yield", ir.IntType(32), None)


@numba.njit(cache=True)
def publish(flags, i, value, j):
    _store(flags, i, value)
    return _load(flags, j)


@numba.njit(nogil=True, cache=True)
def spin_until(flags, i, target, budget, store_i, store_v, delay, mark_i):
    if store_i >= 0:
        _store(flags, store_i, store_v)
    v = _load(flags, i)
    if v < target and budget > 0:
        t0 = _cycles()
        k = 0
        while True:
            _pause()
            v = _load(flags, i)
            if v >= target:
                break
            k += 1
            if k & YIELD_MASK == 0:
                if _cycles() - t0 > budget:
                    return v
                _sched_yield()
    if v >= target:
        t0 = _cycles()
        while _cycles() - t0 < delay:
            _pause()
        if mark_i >= 0:
            flags[mark_i] = _cycles()
    return v


@numba.njit(cache=True)
def cycles_now():
    """The cycle counter :func:`spin_until` measures its budget by (the pool measures
    its rate against ``time.perf_counter`` once)."""
    return _cycles()
