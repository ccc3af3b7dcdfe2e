"""``prefetch(a, i)``: a hint, in compiled code, that the cache line holding ``a[i]``
(``a`` a 1-D array, ``i`` in range: the caller's duty) will be read soon (LLVM's
``llvm.prefetch``: x86's ``prefetcht0``). It changes no value and raises nothing; a
loop over the games of a batch issues it for the next game's rows while it works on
this one, so that their misses overlap the work (docs/performance_log.md, "The vector
env's step: ... the next game's answer fetched ahead")."""
from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def prefetch(typingctx, a, i):
    if not (isinstance(a, types.Array) and a.ndim == 1 and isinstance(i, types.Integer)):
        return None

    def codegen(context, builder, sig, args):
        aryty = sig.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        idx = context.cast(builder, args[1], sig.args[1], types.intp)
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [idx],
                                       wraparound=False)
        i32, byte_ptr = ir.IntType(32), ir.IntType(8).as_pointer()
        fnty = ir.FunctionType(ir.VoidType(), [byte_ptr, i32, i32, i32])
        # The name's pointer suffix from llvmlite (``p0i8`` with typed pointers, as
        # Numba names ``llvm.memcpy``), not spelled here: it differs across LLVM versions.
        fn = builder.module.declare_intrinsic("llvm.prefetch", [byte_ptr], fnty)
        # (read, keep in every cache level, data; one declaration for every dtype)
        builder.call(fn, [builder.bitcast(ptr, byte_ptr), i32(0), i32(3), i32(1)])
        return context.get_dummy_value()
    return types.none(a, i), codegen
