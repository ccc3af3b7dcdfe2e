"""Listing the set places of byte rows or of bit sets, eight places a store, in compiled
code.

``and32(x, bx, y, by, p)``: bit ``h`` (``h < 32``) set where ``x[bx, p + h] & y[by, p +
h]`` is not 0, as uint64 (``x``, ``y`` C-contiguous 2-D arrays of a one-byte dtype:
two 32-byte vector loads, a compare, one ``vpmovmskb``).

``put8(dst, b, c, tab, m, base)``: ``dst[b, c + h] = base + tab[8 m + h]`` for ``h <
8`` (``dst`` a C-contiguous int32[R, P], ``tab`` a C-contiguous uint8[256 * 8], ``m``
in 0..255): one unaligned 32-byte vector store. With :data:`SET_BITS` (row ``m``: the
positions of byte ``m``'s set bits, ascending, then zeros) it writes the next eight
slots of a list of the byte's set places at once; the count then moves on by the
byte's :func:`popcount` (the slots past it stale: the next byte's store overwrites
them).

``popcount(x)``: the set bits of an integer (LLVM's ``ctpop``).

None of these checks its bounds (the caller's duty: ``p + 32`` and ``c + 8`` at most
the rows' lengths). :func:`list_and` is the loop built on them: a scan that writes a
slot and moves a count at every place (a store and a load pair each) lists a 746-place
row ~3x slower (docs/performance_log.md, ``hslist``).
"""
from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic, overload, register_jitable

#: uint8[256 * 8]: row ``m`` (``8 m ... 8 m + 7``) the positions of the set bits of
#: byte ``m``, ascending, then zeros
SET_BITS = np.zeros(256 * 8, np.uint8)
for _m in range(256):
    _at = [h for h in range(8) if _m >> h & 1]
    SET_BITS[8 * _m:8 * _m + len(_at)] = _at
del _m, _at


def bytes_rows(a) -> bool:
    """Whether Numba type ``a`` is what :func:`and32` reads: a C-contiguous 2-D array
    of a one-byte dtype (uint8, int8, bool)."""
    return isinstance(a, types.Array) and a.ndim == 2 and a.layout == "C" and \
        a.dtype in (types.uint8, types.int8, types.boolean)


def list_rows(a) -> bool:
    """Whether Numba type ``a`` is what :func:`put8` writes: a C-contiguous int32[R,
    P]."""
    return isinstance(a, types.Array) and a.ndim == 2 and a.layout == "C" and \
        a.dtype == types.int32


def _row_ptr(context, builder, aryty, arg, b, i, sig_b, sig_i):
    ary = context.make_array(aryty)(context, builder, arg)
    ib = context.cast(builder, b, sig_b, types.intp)
    ii = context.cast(builder, i, sig_i, types.intp)
    return cgutils.get_item_pointer(context, builder, aryty, ary, [ib, ii],
                                    wraparound=False)


@intrinsic
def put8(typingctx, dst, b, c, tab, m, base):
    if not (list_rows(dst) and isinstance(tab, types.Array) and
            tab.ndim == 1 and tab.layout == "C" and tab.dtype == types.uint8 and
            all(isinstance(x, types.Integer) for x in (b, c, m, base))):
        return None

    def codegen(context, builder, sig, args):
        dst_, b_, c_, tab_, m_, base_ = args
        out = _row_ptr(context, builder, sig.args[0], dst_, b_, c_, sig.args[1],
                       sig.args[2])
        tty = sig.args[3]
        tary = context.make_array(tty)(context, builder, tab_)
        mi = context.cast(builder, m_, sig.args[4], types.intp)
        at = builder.mul(mi, ir.Constant(mi.type, 8))
        src = cgutils.get_item_pointer(context, builder, tty, tary, [at],
                                       wraparound=False)
        v8 = ir.VectorType(ir.IntType(8), 8)
        v32 = ir.VectorType(ir.IntType(32), 8)
        offs = builder.load(builder.bitcast(src, v8.as_pointer()), align=1)
        wide = builder.zext(offs, v32)
        b32 = builder.trunc(context.cast(builder, base_, sig.args[5], types.int64),
                            ir.IntType(32))
        splat = builder.insert_element(ir.Constant(v32, ir.Undefined), b32,
                                       ir.Constant(ir.IntType(32), 0))
        splat = builder.shuffle_vector(splat, ir.Constant(v32, ir.Undefined),
                                       ir.Constant(v32, [0] * 8))
        builder.store(builder.add(wide, splat),
                      builder.bitcast(out, v32.as_pointer()), align=1)
        return context.get_dummy_value()
    return types.none(dst, b, c, tab, m, base), codegen


@intrinsic
def and32(typingctx, x, bx, y, by, p):
    if not (bytes_rows(x) and bytes_rows(y) and
            all(isinstance(v, types.Integer) for v in (bx, by, p))):
        return None

    def codegen(context, builder, sig, args):
        px = _row_ptr(context, builder, sig.args[0], args[0], args[1], args[4],
                      sig.args[1], sig.args[4])
        py = _row_ptr(context, builder, sig.args[2], args[2], args[3], args[4],
                      sig.args[3], sig.args[4])
        v = ir.VectorType(ir.IntType(8), 32)
        a = builder.load(builder.bitcast(px, v.as_pointer()), align=1)
        b = builder.load(builder.bitcast(py, v.as_pointer()), align=1)
        nz = builder.icmp_unsigned("!=", builder.and_(a, b), ir.Constant(v, [0] * 32))
        bits = builder.bitcast(nz, ir.IntType(32))
        return builder.zext(bits, ir.IntType(64))
    return types.uint64(x, bx, y, by, p), codegen


@intrinsic
def popcount(typingctx, x):
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        v = context.cast(builder, args[0], sig.args[0], types.uint64)
        fnty = ir.FunctionType(ir.IntType(64), [ir.IntType(64)])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.ctpop.i64")
        return builder.call(fn, [v])
    return types.int64(x), codegen


_BYTE = np.uint64(0xFF)


def list_and(x, bx, y, by, dst, bd, n):
    """The places ``p < n`` where ``x[bx, p] & y[by, p]`` is not 0, ascending, into
    ``dst[bd, :c]``; returns ``c``. Slots of ``dst[bd]`` past ``c`` (below ``n``) may be
    overwritten: stale. ``n`` at most the rows' lengths (the caller's duty). Compiled:
    32 places a step (:func:`and32`, four :func:`put8`) where ``x``, ``y`` are
    C-contiguous 2-D arrays of a one-byte dtype and ``dst`` a C-contiguous int32[R, >=
    n] (the last ``n % 32`` places, and other types, a place a step, as the scan)."""
    return _scan(x, bx, y, by, dst, bd, 0, 0, n)


@register_jitable
def _scan(x, bx, y, by, dst, bd, p, c, n):
    """:func:`list_and` a place a step from place ``p`` (``c`` listed before it) to
    ``n``; returns the count listed."""
    while p < n:                        # (no branch: the next slot written anyway)
        dst[bd, c] = p
        c += (x[bx, p] & y[by, p]) != 0
        p += 1
    return c


@overload(list_and, jit_options={"nogil": True})
def _list_and(x, bx, y, by, dst, bd, n):
    if not (bytes_rows(x) and bytes_rows(y) and list_rows(dst)):
        def scalar(x, bx, y, by, dst, bd, n):
            return _scan(x, bx, y, by, dst, bd, 0, 0, n)
        return scalar

    def eight(x, bx, y, by, dst, bd, n):
        c = 0
        p = 0
        while p + 32 <= n:
            m = and32(x, bx, y, by, p)
            for j in range(4):
                # (slots c ... c + 7 written: c <= p + 8 j, so within the first n)
                h = (m >> np.uint64(8 * j)) & _BYTE
                put8(dst, bd, c, SET_BITS, h, p + 8 * j)
                c += popcount(h)
            p += 32
        return _scan(x, bx, y, by, dst, bd, p, c, n)
    return eight
