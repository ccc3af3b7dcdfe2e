"""The yardstick: a hand-written C bucket-queue (Dial) kernel, ``gcc -O3 -march=native``,
built through cffi (API mode) into a temporary build directory (never into the repo).

It does the work of a plain movecore query on the benchmark workloads (entry cost per
cell, -1 = blocked, plus ``climb`` per level climbed; the start is an end at cost 0) and
returns the same ends (cell, cost) in settle order. ``build()`` returns the compiled
module or raises ``RuntimeError`` (no compiler, no cffi) with the reason.
"""
from __future__ import annotations

import hashlib
import os
import sys
import tempfile

import numpy as np

CDEF = """
int64_t yard_batch(const int32_t *nbr, int32_t n, int32_t k, const int32_t *cost,
                   const int32_t *height, int32_t climb, const int32_t *starts, int64_t nq,
                   int32_t budget, int32_t nb, int32_t *out_cells, int32_t *out_costs,
                   int64_t *offsets, int64_t cap, int32_t *dist, int32_t *stamp,
                   int32_t *bucket, int32_t *bcount, int32_t *generation);
"""

SOURCE = r"""
#include <stdint.h>
/* One query after another; workspace dist/stamp [n], bucket [nb * n], bcount [nb]
   (zeroed by the caller once) and the stamp generation of that workspace (one int).
   Returns the number of rows written, -1 if cap is hit. */
int64_t yard_batch(const int32_t *restrict nbr, int32_t n, int32_t k,
                   const int32_t *restrict cost, const int32_t *restrict height,
                   int32_t climb, const int32_t *restrict starts, int64_t nq,
                   int32_t budget, int32_t nb, int32_t *restrict out_cells,
                   int32_t *restrict out_costs, int64_t *restrict offsets, int64_t cap,
                   int32_t *restrict dist, int32_t *restrict stamp,
                   int32_t *restrict bucket, int32_t *restrict bcount,
                   int32_t *restrict generation)
{
    int64_t o = 0;
    int32_t gen = *generation;
    offsets[0] = 0;
    for (int64_t q = 0; q < nq; q++) {
        gen++;
        int32_t s = starts[q];
        stamp[s] = gen; dist[s] = 0;
        bucket[0] = s; bcount[0] = 1;
        int32_t pending = 1;
        int32_t b = 0;
        for (int32_t cur = 0; cur <= budget && pending > 0; cur++) {
            int32_t *bk = bucket + (int64_t)b * n;
            /* entries of this bucket cost cur; new ones cost > cur (steps >= 1, < nb) */
            for (int32_t i = 0; i < bcount[b]; i++) {
                int32_t u = bk[i];
                pending--;
                if (dist[u] != cur) continue;          /* stale */
                if (o >= cap) { *generation = gen; return -1; }
                out_cells[o] = u; out_costs[o] = cur; o++;
                const int32_t *nu = nbr + (int64_t)u * k;
                int32_t hu = height[u];
                for (int32_t j = 0; j < k; j++) {
                    int32_t v = nu[j];
                    if (v < 0) continue;
                    int32_t c = cost[v];
                    if (c < 0) continue;
                    int32_t rise = height[v] - hu;
                    if (rise > 0) c += climb * rise;
                    c += cur;
                    if (c > budget) continue;
                    if (stamp[v] == gen && dist[v] <= c) continue;
                    stamp[v] = gen; dist[v] = c;
                    /* c - cur < nb: the bucket after b by the step, without a
                       division (c % nb costs ~15% on big-square4) */
                    int32_t b2 = b + (c - cur);
                    if (b2 >= nb) b2 -= nb;
                    bucket[(int64_t)b2 * n + bcount[b2]++] = v;
                    pending++;
                }
            }
            bcount[b] = 0;
            b = (b + 1 == nb) ? 0 : b + 1;
        }
        for (int32_t i = 0; i < nb; i++) bcount[i] = 0;
        offsets[q + 1] = o;
    }
    *generation = gen;
    return o;
}
"""

_lib = None


def build():
    """Compile (once per source and interpreter; cached in the temp directory)."""
    global _lib
    if _lib is not None:
        return _lib
    try:
        import cffi
    except ImportError as exc:  # pragma: no cover
        raise RuntimeError(f"cffi is missing ({exc})") from exc
    tag = hashlib.sha1((SOURCE + CDEF + sys.version).encode()).hexdigest()[:12]
    name = f"_mc_yardstick_{tag}"
    tmp = os.path.join(tempfile.gettempdir(), "movecore-yardstick", tag)
    os.makedirs(tmp, exist_ok=True)
    if tmp not in sys.path:
        sys.path.insert(0, tmp)
    try:
        mod = __import__(name)
    except ImportError:
        ffi = cffi.FFI()
        ffi.cdef(CDEF)
        ffi.set_source(name, SOURCE, extra_compile_args=["-O3", "-march=native"])
        try:
            ffi.compile(tmpdir=tmp, verbose=False)
        except Exception as exc:
            raise RuntimeError(f"could not compile the C yardstick: {exc}") from exc
        mod = __import__(name)
    _lib = mod
    return mod


class Yardstick:
    """The C kernel bound to one workload; ``run(starts)`` -> (offsets, cells, costs)."""

    def __init__(self, nbr, cost, height, climb, budget):
        self.mod = build()
        self.ffi = self.mod.ffi
        self.nbr = np.ascontiguousarray(nbr, np.int32)
        self.n, self.k = self.nbr.shape
        self.cost = np.ascontiguousarray(cost, np.int32)
        self.height = np.ascontiguousarray(
            np.zeros(self.n) if height is None else height, np.int32)
        self.climb = int(climb)
        self.budget = int(budget)
        rise = int(self.height.max() - self.height.min()) if self.n else 0
        self.nb = int(self.cost.max()) + self.climb * rise + 1
        self.dist = np.zeros(self.n, np.int32)
        self.stamp = np.zeros(self.n, np.int32)
        self.bucket = np.zeros(self.nb * self.n, np.int32)
        self.bcount = np.zeros(self.nb, np.int32)
        self.generation = np.zeros(1, np.int32)  # of the stamps: belongs to this workspace
        self.cap = 0

    def _p(self, a):
        return self.ffi.from_buffer("int64_t[]" if a.dtype == np.int64 else "int32_t[]", a)

    def run(self, starts):
        starts = np.ascontiguousarray(starts, np.int32)
        cap = max(self.cap, 64 * len(starts) + 1024)
        while True:
            cells = np.empty(cap, np.int32)
            costs = np.empty(cap, np.int32)
            offsets = np.zeros(len(starts) + 1, np.int64)
            o = self.mod.lib.yard_batch(
                self._p(self.nbr), self.n, self.k, self._p(self.cost), self._p(self.height),
                self.climb, self._p(starts), len(starts), self.budget, self.nb,
                self._p(cells), self._p(costs), self._p(offsets), cap, self._p(self.dist),
                self._p(self.stamp), self._p(self.bucket), self._p(self.bcount),
                self._p(self.generation))
            if o >= 0:
                self.cap = cap
                return offsets, cells[:o], costs[:o]
            cap *= 4
            self.bcount[:] = 0
