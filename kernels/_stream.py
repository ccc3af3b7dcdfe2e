"""``stream_copy(dst, src)``: ``dst[:] = src`` in compiled code by non-temporal
(streaming) stores where ``dst`` is aligned for them, and ``store_fence()`` to order
those stores before what follows. Neither changes a value that ``dst[:] = src`` would
not write, and neither raises.

Why: a batch's new observation array (``copy=True``: Gymnasium's vector envs hand out a
new array each step) is written whole, ~11.5 KiB a game, ~12 MiB a step at 1,024 games:
more than this kind of host's last-level cache. Plain stores read each line before they
write it (a read for ownership) and evict the step's own state from the cache on the
way; streaming stores write whole lines to memory past the cache (x86's ``vmovntps``).
A caller composes a game's row in a small scratch row that stays in the cache and
streams the finished row out (docs/performance_log.md, "streamed observations").

``store_fence()`` (x86's ``sfence``) after the streamed rows:
streaming stores are weakly ordered, and the fence makes them visible before the
function returns (once a call, not a row).
"""
from __future__ import annotations

import functools
import glob
import platform

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

#: the last-level cache's bytes where the system does not say (this project's hosts')
DEFAULT_LLC_BYTES = 8 << 20


@functools.cache
def llc_bytes() -> int:
    """The largest data cache of CPU 0, in bytes (Linux's
    ``/sys/devices/system/cpu/cpu0/cache/index*/size``, e.g. ``8192K``), or
    :data:`DEFAULT_LLC_BYTES` where it cannot be read."""
    best = 0
    for d in glob.glob("/sys/devices/system/cpu/cpu0/cache/index*"):
        try:
            with open(f"{d}/type") as fh:
                if fh.read().strip() == "Instruction":
                    continue
            with open(f"{d}/size") as fh:
                txt = fh.read().strip().upper()
            scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(txt[-1:], 1)
            best = max(best, int(txt.rstrip("KMG")) * scale)
        except (OSError, ValueError):
            continue
    return best or DEFAULT_LLC_BYTES


#: rows are streamed out of a scratch row where the array they fill has at least this
#: many bytes (:func:`scratch_row`); None: three quarters of the last-level cache
#: (:func:`llc_bytes`). Below it the new array's lines stay in the cache from one step
#: to the next and streaming them past it costs: on a host with an 8 MiB cache,
#: Heroscape's env move at 11.5 MiB a step 1.10x faster streamed, Dark Realms' at 7.3
#: MiB 1.065x, Descent's at 1.1-4.5 MiB 0.98x (docs/performance_log.md, "streamed
#: observations"). Tests set it (0: always; ``1 << 62``: never).
STREAM_MIN_BYTES = None


def scratch_row(rows: int, length: int) -> np.ndarray:
    """A thread's scratch row (float32[length]) for composing rows of a float32[rows,
    length] array before :func:`stream_copy` streams each out, where the array reaches
    :data:`STREAM_MIN_BYTES`; else float32[0] (the caller writes in place)."""
    least = STREAM_MIN_BYTES if STREAM_MIN_BYTES is not None else 3 * llc_bytes() // 4
    return np.zeros(length if rows * length * 4 >= least else 0, np.float32)


#: the bytes one streaming store writes (a 256-bit vector: AVX's ``vmovntps``; LLVM
#: splits it into two 128-bit stores on a machine without AVX)
VECTOR_BYTES = 32


@intrinsic
def _stream_vector(typingctx, dst, i, src, j):
    """``dst[i:i + w] = src[j:j + w]``, ``w`` = 32 bytes of the dtype, by one
    non-temporal store; ``dst[i]`` 32-byte aligned and both ranges in bounds: the
    caller's duty. 1-D arrays of one numeric dtype."""
    if not (isinstance(dst, types.Array) and isinstance(src, types.Array)
            and dst.ndim == 1 and src.ndim == 1 and dst.dtype == src.dtype
            and isinstance(dst.dtype, (types.Float, types.Integer))
            and isinstance(i, types.Integer) and isinstance(j, types.Integer)):
        return None

    def codegen(context, builder, sig, args):
        dty, _, sty, _ = sig.args
        d = context.make_array(dty)(context, builder, args[0])
        s = context.make_array(sty)(context, builder, args[2])
        pd = cgutils.get_item_pointer(context, builder, dty, d,
                                      [context.cast(builder, args[1], sig.args[1],
                                                    types.intp)], wraparound=False)
        ps = cgutils.get_item_pointer(context, builder, sty, s,
                                      [context.cast(builder, args[3], sig.args[3],
                                                    types.intp)], wraparound=False)
        elt = context.get_data_type(dty.dtype)
        vec = ir.VectorType(elt, VECTOR_BYTES * 8 // dty.dtype.bitwidth)
        v = builder.load(builder.bitcast(ps, vec.as_pointer()),
                         align=dty.dtype.bitwidth // 8)
        st = builder.store(v, builder.bitcast(pd, vec.as_pointer()), align=VECTOR_BYTES)
        st.set_metadata("nontemporal",
                        builder.module.add_metadata([ir.IntType(32)(1)]))
        return context.get_dummy_value()
    return types.none(dst, i, src, j), codegen


@intrinsic
def _address(typingctx, a):
    """The address of ``a``'s first element (an int)."""
    if not isinstance(a, types.Array):
        return None

    def codegen(context, builder, sig, args):
        ary = context.make_array(sig.args[0])(context, builder, args[0])
        return builder.ptrtoint(ary.data, context.get_value_type(types.intp))
    return types.intp(a), codegen


#: x86: streaming stores are ordered by ``sfence`` (or ``mfence``); LLVM's ``fence
#: seq_cst`` compiles to a locked ``or`` there, which does not order them
_X86 = platform.machine().lower() in ("x86_64", "amd64", "i386", "i686", "x86")


@intrinsic
def store_fence(typingctx):
    """Orders every store before it (the streamed ones too) before what follows:
    x86's ``sfence``, elsewhere LLVM's ``fence seq_cst``."""
    def codegen(context, builder, sig, args):
        if _X86:
            fn = builder.module.declare_intrinsic(
                "llvm.x86.sse.sfence", fnty=ir.FunctionType(ir.VoidType(), []))
            builder.call(fn, [])
        else:   # pragma: no cover (this project's hosts are x86)
            builder.fence("seq_cst")
        return context.get_dummy_value()
    return types.none(), codegen


@njit(nogil=True, inline="always")
def stream_copy(dst, src):
    """``dst[:] = src`` (1-D, C-contiguous, one dtype, ``src`` at least as long): plain
    stores up to ``dst``'s first 32-byte boundary and past its last one, streaming
    stores between. A ``dst`` whose elements are not aligned to their size is copied by
    plain stores alone. Call :func:`store_fence` once after the last row."""
    n = dst.shape[0]
    size = dst.itemsize
    w = VECTOR_BYTES // size
    a = _address(dst)
    head = n
    if a % size == 0:
        head = min(((VECTOR_BYTES - a % VECTOR_BYTES) % VECTOR_BYTES) // size, n)
    for i in range(head):
        dst[i] = src[i]
    i = head
    while i + w <= n:
        _stream_vector(dst, i, src, i)
        i += w
    while i < n:
        dst[i] = src[i]
        i += 1
