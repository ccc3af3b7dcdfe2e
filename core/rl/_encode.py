"""Compiled writers of the RL environments' observation and action mask (arrays only, no
game logic: the game's answer comes in as arrays). One call per observation or mask, so
that a batched caller can run them per game of a batch."""
from __future__ import annotations

import numba as nb


# one signature each (tests/jit_audit.py: one cache entry per function); callers pass
# exactly these dtypes, C-contiguous
_ENCODE_SIG = ("int64(float32[:, ::1], float32[:, ::1], int64[:, ::1], int64[::1], int64, "
               "int64, int64, int64[::1], int64[::1], int32[::1], int64[::1], int32[::1], "
               "int32[::1], float32, float32[::1])")
_MASK_SIG = ("int64(int8[::1], int64[::1], int64, int64, int64, int64, int32[::1], "
             "int64[::1], int64[::1])")


@nb.njit(_ENCODE_SIG, cache=True, nogil=True)
def encode_common(o, static, fig_hw, fig_side, n_sides, observer, acting, moved, lead,
                  actions, rows, costs, stop, turn_frac, valid):
    """Write the common planes of one observation into ``o`` (float32[C, HW]); planes
    after ``S + n_sides + 6`` (the game's own) are zeroed. See ``spaces.encode``."""
    C, HW = o.shape
    S = static.shape[0]
    for c in range(S):
        for j in range(HW):
            o[c, j] = static[c, j]
    for c in range(S, C):
        for j in range(HW):
            o[c, j] = 0.0
    F, K = fig_hw.shape
    for f in range(F):
        rel = (fig_side[f] - observer) % n_sides
        for k in range(K):
            h = fig_hw[f, k]
            if h >= 0:
                o[S + rel, h] = 1.0
    d = S + n_sides
    if acting >= 0:
        for k in range(K):
            h = fig_hw[acting, k]
            if h >= 0:
                o[d, h] = 1.0
        for m in range(moved.shape[0]):
            for k in range(K):
                h = fig_hw[moved[m], k]
                if h >= 0:
                    o[d + 1, h] = 1.0
        n = rows.shape[0]
        top = 0
        for i in range(n):
            c = costs[rows[i]]
            if c > top:
                top = c
        scale = 1.0 / top if top > 0 else 1.0
        for i in range(n):
            r = rows[i]
            h = lead[actions[r]]
            if h >= 0:
                o[d + 2, h] = 1.0
                o[d + 3, h] = costs[r] * scale
                if stop[r] != 0:
                    o[d + 4, h] = 1.0
    for j in range(HW):
        o[d + 5, j] = valid[j] * turn_frac
    return 0


@nb.njit(_MASK_SIG, cache=True, nogil=True)
def fill_mask(mask, rowof, clear_lo, clear_hi, tail, base, actions, rows, extra):
    """Zero ``mask[clear_lo:clear_hi]`` and ``mask[tail:]`` (what was set before), then set
    ``mask[base + actions[r]]`` for every ``r`` in ``rows`` (``rowof[actions[r]] = r``)
    and ``mask[extra]``. Returns the number of actions set."""
    for j in range(clear_lo, clear_hi):
        mask[j] = 0
    for j in range(tail, mask.shape[0]):
        mask[j] = 0
    n = 0
    for i in range(rows.shape[0]):
        r = rows[i]
        a = actions[r]
        mask[base + a] = 1
        rowof[a] = r
        n += 1
    for i in range(extra.shape[0]):
        mask[extra[i]] = 1
        n += 1
    return n


_FUSED_SIG = ("int64(int8[::1], int64, int64, int64, "
              "int8[::1], int64[::1], int64, int64, int64, int64, int32[::1], "
              "int64[::1], int64[::1], float32[:, ::1], float32[:, ::1], int64[:, ::1], "
              "int64[::1], int64, int64, int64, int64[::1], int64[::1], int32[::1], "
              "int32[::1], float32, float32[::1])")


@nb.njit(_FUSED_SIG, cache=True, nogil=True)
def fill_and_encode(last_mask, last_lo, last_hi, last_tail, mask, rowof, clear_lo,
                    clear_hi, tail, base, actions, rows, extra, o, static, fig_hw, fig_side,
                    n_sides, observer, acting, moved, lead, costs, stop, turn_frac, valid):
    """Zero ``last_mask[last_lo:last_hi]`` and ``last_mask[last_tail:]`` (what the agent
    that acted last had set: an empty array for none), then :func:`fill_mask` and
    :func:`encode_common` of the acting agent's observation, in one call (an
    environment whose every step is observed draws it with the step); the other
    arguments are theirs. Returns the number of actions set."""
    for j in range(last_lo, last_hi):
        last_mask[j] = 0
    for j in range(last_tail, last_mask.shape[0]):
        last_mask[j] = 0
    n = fill_mask(mask, rowof, clear_lo, clear_hi, tail, base, actions, rows, extra)
    encode_common(o, static, fig_hw, fig_side, n_sides, observer, acting, moved, lead,
                  actions, rows, costs, stop, turn_frac, valid)
    return n


def _entry(dispatcher):
    """The compiled entry point of a one-signature dispatcher (skips the dispatcher's
    type resolution: about a third of a call of these small writers); the dispatcher
    itself where Numba does not expose it."""
    try:
        (cres,) = dispatcher.overloads.values()
        return cres.entry_point
    except Exception:  # pragma: no cover - depends on Numba's internals
        return dispatcher


#: the writers as the environments call them (exactly the declared dtypes)
encode_common_fast = _entry(encode_common)
fill_mask_fast = _entry(fill_mask)
fill_and_encode_fast = _entry(fill_and_encode)
