"""The yardstick: a hand-written C bucket-queue (Dial) kernel, ``gcc -O3 -march=native``,
built through cffi (API mode) into a temporary build directory (never into the repo).

It does the work of a plain movecore query on the benchmark workloads (entry cost per
cell, -1 = blocked, plus ``climb`` per level climbed; the start is an end at cost 0) and
returns the same ends (cell, cost) in settle order. ``build()`` returns the compiled
module or raises ``RuntimeError`` (no compiler, no cffi) with the reason.

What makes it a limit and not merely C:

* the neighbour count is a compile-time constant (one body per K in 4, 6, 8 and per
  "climbs or not", chosen once per call): the neighbour loop is unrolled;
* one word per cell, entry cost in the low 16 bits (0xFFFF = cannot enter) and height in
  the high 16, with a pad word in front for cell -1 ("no neighbour"): "off the board",
  "blocked" and "over budget" are one test, cost and height one load (without heights,
  the costs alone as uint16: half the bytes);
* distances stamped ``base + d`` (uint32), ``base`` advancing by budget + 1 per query:
  "not reached this query, or dearer" is one unsigned compare and nothing is reset
  between queries (once per 2**32 / (budget + 1) queries the array is zeroed);
* one LIFO list per cost 0..budget in a pool written in push order, so the pushes of a
  query touch a few cache lines (every entry cost >= 1: a list is never pushed onto
  while it is read);
* every start in one call, cells and costs written straight into the caller's buffers.
"""
from __future__ import annotations

import hashlib
import importlib
import os
import shutil
import sys
import tempfile

import numpy as np

CDEF = """
typedef struct {
    const int32_t *nbr;   /* N*K, -1 = none */
    const int32_t *word;  /* N + 1: pad word (cell -1) then cost | height << 16 */
    const uint16_t *cost; /* N + 1: the same costs alone (pad 0xFFFF), when no climb */
    uint32_t *dist;       /* N, base + d */
    int32_t *head;        /* budget + 1 list heads */
    int32_t *pool;        /* 2 * (N*K + 1): (cell, next) */
    int32_t n, k, budget, climb;
    uint32_t base;
} yard_ctx;

int64_t yard_batch(yard_ctx *c, const int32_t *starts, int64_t m, int32_t *out_cells,
                   int32_t *out_costs, int64_t *offsets, int64_t cap);
"""

SOURCE = r"""
#include <stdint.h>
#include <string.h>

typedef struct {
    const int32_t *nbr;
    const int32_t *word;
    const uint16_t *cost;
    uint32_t *dist;
    int32_t *head;
    int32_t *pool;
    int32_t n, k, budget, climb;
    uint32_t base;
} yard_ctx;

static inline __attribute__((always_inline)) int64_t
search(yard_ctx *restrict c, int32_t s, int32_t *restrict oc, int32_t *restrict od,
       const int K, const int CLIMB)
{
    const int32_t B = c->budget, climb = c->climb;
    const int32_t *restrict nbr = c->nbr;
    const int32_t *restrict word = c->word + 1;
    const uint16_t *restrict cost = c->cost + 1;
    uint32_t *restrict dist = c->dist;
    int32_t *restrict head = c->head;
    int32_t *restrict pool = c->pool;
    uint32_t base = c->base;
    if (base > UINT32_MAX - 2u * (uint32_t)(B + 1)) {
        memset(dist, 0, (size_t)c->n * sizeof(uint32_t));
        base = 1;
    }
    c->base = base + (uint32_t)B + 1u;
    for (int32_t b = 0; b <= B; b++) head[b] = -1;
    dist[s] = base;
    pool[0] = s; pool[1] = -1; head[0] = 0;
    int32_t ne = 1;
    int64_t k = 0;
    for (int32_t b = 0; b <= B; b++) {
        /* every step costs >= 1 (checked by the caller): no push onto the list read */
        for (int32_t e = head[b]; e >= 0;) {
            const int32_t u = pool[2 * e];
            e = pool[2 * e + 1];
            if (dist[u] - base != (uint32_t)b) continue;          /* stale */
            oc[k] = u; od[k] = b; k++;
            const int32_t *restrict nu = nbr + (int64_t)u * K;
            const int32_t hu = CLIMB ? word[u] >> 16 : 0;
            for (int j = 0; j < K; j++) {
                const int32_t v = nu[j];
                const int32_t w = CLIMB ? word[v] : (int32_t)cost[v];
                int32_t nd = b + (w & 0xFFFF);
                if (CLIMB) {  /* branch-free: the sign of a rise is not predictable */
                    int32_t dh = (w >> 16) - hu;
                    nd += climb * (dh & ~(dh >> 31));
                }
                if (nd > B) continue;                  /* none, blocked, over budget */
                if (dist[v] - base <= (uint32_t)nd) continue;     /* no gain */
                dist[v] = base + (uint32_t)nd;
                pool[2 * ne] = v; pool[2 * ne + 1] = head[nd]; head[nd] = ne++;
            }
        }
    }
    return k;
}

#define LOOP(KK, CL)                                                         \
    for (i = 0; i < m; i++) {                                                \
        if (cap - o < (int64_t)c->n) break;                                  \
        o += search(c, starts[i], out_cells + o, out_costs + o, KK, CL);     \
        offsets[i + 1] = o;                                                  \
    }                                                                        \
    return i;

/* Queries starts[0..m): query i's ends at offsets[i]..offsets[i+1] (offsets[0] set by
   the caller). Returns the queries done: fewer than m when fewer than N slots are left
   (grow the buffers and call again for the rest), -1 for an unsupported K. */
int64_t yard_batch(yard_ctx *c, const int32_t *starts, int64_t m, int32_t *out_cells,
                   int32_t *out_costs, int64_t *offsets, int64_t cap)
{
    int64_t o = offsets[0], i;
    switch (c->k * 2 + (c->climb != 0)) {
    case 8: LOOP(4, 0)  case 9: LOOP(4, 1)
    case 12: LOOP(6, 0) case 13: LOOP(6, 1)
    case 16: LOOP(8, 0) case 17: LOOP(8, 1)
    default: return -1;
    }
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
        # built in a folder of its own, then renamed into place: processes building at
        # once (test workers, two `movecore bench`) never load a half-written library
        work = tempfile.mkdtemp(dir=tmp)
        try:
            built = ffi.compile(tmpdir=work, verbose=False)
            os.replace(built, os.path.join(tmp, os.path.basename(built)))
        except Exception as exc:
            raise RuntimeError(f"could not compile the C yardstick: {exc}") from exc
        finally:
            shutil.rmtree(work, ignore_errors=True)
        importlib.invalidate_caches()
        mod = __import__(name)
    _lib = mod
    return mod


class Yardstick:
    """The C kernel bound to one workload; ``run(starts)`` -> (offsets, cells, costs),
    fresh arrays (the workspace and output buffers are reused across calls)."""

    def __init__(self, nbr, cost, height, climb, budget):
        self.mod = build()
        ffi = self.ffi = self.mod.ffi
        self.nbr = np.ascontiguousarray(nbr, np.int32)
        self.n, self.k = self.nbr.shape
        if self.k not in (4, 6, 8):
            raise RuntimeError(f"the C yardstick is built for 4, 6 or 8 neighbours, not "
                               f"{self.k}")
        cost = np.asarray(cost, np.int64)
        h = np.zeros(self.n, np.int64) if height is None else np.asarray(height, np.int64)
        h = h - (h.min() if self.n else 0)
        if budget >= 0xFFFF or (self.n and (cost.max() >= 0xFFFF or h.max() >= 1 << 15
                                            or ((cost >= 0) & (cost < 1)).any())):
            raise RuntimeError("the C yardstick needs entry costs in 1..65534, a budget "
                               "below 65535 and heights within 32767 levels")
        words = np.where(cost < 0, 0xFFFF, cost) | (h << 16)
        self.word = np.empty(self.n + 1, np.int32)
        self.word[0] = 0xFFFF
        self.word[1:] = words.astype(np.uint32).view(np.int32)
        self.cost16 = (self.word & 0xFFFF).astype(np.uint16)  # half the bytes to miss
        self.dist = np.zeros(self.n, np.uint32)
        self.head = np.zeros(int(budget) + 1, np.int32)
        self.pool = np.zeros(2 * (self.n * self.k + 1), np.int32)
        c = self.ctx = ffi.new("yard_ctx *")
        c.nbr = ffi.cast("int32_t *", ffi.from_buffer(self.nbr))
        c.word = ffi.cast("int32_t *", ffi.from_buffer(self.word))
        c.cost = ffi.cast("uint16_t *", ffi.from_buffer(self.cost16))
        c.dist = ffi.cast("uint32_t *", ffi.from_buffer(self.dist))
        c.head = ffi.cast("int32_t *", ffi.from_buffer(self.head))
        c.pool = ffi.cast("int32_t *", ffi.from_buffer(self.pool))
        c.n, c.k, c.budget = self.n, self.k, int(budget)
        c.climb = int(climb) if height is not None and h.any() else 0
        c.base = 1
        self.fn = self.mod.lib.yard_batch
        self._out(64 * 1024 + self.n, 1024)

    def _out(self, cap, m):
        """(Re)allocate the result buffers, keeping what they hold."""
        ffi, old = self.ffi, getattr(self, "cells", None)
        self.cap = int(cap)
        cells, costs = np.empty(self.cap, np.int32), np.empty(self.cap, np.int32)
        if old is not None:
            cells[:len(old)], costs[:len(old)] = old, self.costs
        self.cells, self.costs = cells, costs
        self.pc = ffi.cast("int32_t *", ffi.from_buffer(cells))
        self.pd = ffi.cast("int32_t *", ffi.from_buffer(costs))
        if getattr(self, "offsets", None) is None or len(self.offsets) < m + 1:
            self.offsets = np.zeros(m + 1, np.int64)
            self.po = ffi.cast("int64_t *", ffi.from_buffer(self.offsets))

    def run(self, starts):
        starts = np.ascontiguousarray(starts, np.int32)
        m = len(starts)
        if len(self.offsets) < m + 1:
            self._out(self.cap, m)
        self.offsets[0] = 0
        ps = self.ffi.cast("int32_t *", self.ffi.from_buffer(starts))
        done = 0
        while done < m:
            r = self.fn(self.ctx, ps + done, m - done, self.pc, self.pd, self.po + done,
                        self.cap)
            if r < 0:  # pragma: no cover (K checked above)
                raise RuntimeError("the C yardstick: unsupported neighbour count")
            done += r
            if done < m:
                self._out(2 * self.cap, m)
        total = int(self.offsets[m])
        return self.offsets[:m + 1].copy(), self.cells[:total].copy(), \
            self.costs[:total].copy()
