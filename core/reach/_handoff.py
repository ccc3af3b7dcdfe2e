"""The hand-off of a batched step's chunks to the pool threads: :func:`_hand_pool`.

A step of a few hundred microseconds (Mage Knight's ``BatchedPlay`` at B = 4,096: ~280 us
on 2 threads) handed to a sleeping pool thread loses the wake of an idle core, 27-30 us
here, on every step, and a ``concurrent.futures`` future costs ~15 us of Python
more. Here each pool thread, after its chunk, waits for the next one spinning on a flag
in shared memory, without the GIL (``kernels._spin.spin_until``), for at most
:data:`movecore.reach.SPIN_S` seconds; only then does it sleep. The caller's wait for a
chunk's end is such a spin too (at most ``SPIN_S``, then it blocks on a lock).

The protocol, per worker (its ``flags``: REQ, DONE and SLEEP, each on a cache line of
its own; every one a counter or 0/1 only its one writer stores, by ``publish``, a
sequentially consistent store):

* A caller owns the worker from its ``submit`` until the worker has run the job: it
  takes the worker's ``owner`` lock without blocking, or, when another caller holds
  every worker (two callers on two threads at once, or a job that submits), hands the
  job to the ``ThreadPoolExecutor`` (``_thread_pool``) as before. The owner writes the
  job, then publishes REQ = seq (so a worker that reads seq reads the job), then reads
  SLEEP: 1 means the worker is asleep or about to be, and it sets the worker's event.
* The worker spins until REQ > its last seq; when the spin times out it publishes
  SLEEP = 1, reads REQ once more, and sleeps on its event only if no job came. Both
  sides store, then load (sequentially consistent): either the worker's last read sees
  the job or the owner's read sees SLEEP = 1 and wakes it; no job is left asleep. An
  event set once too often (the owner read a SLEEP = 1 the worker was about to clear)
  costs one more spin, nothing else.
* The worker runs the job (the chunk's compiled kernel releases the GIL), keeps its
  value or exception in the job, gives the worker back (``owner``), releases the job's
  lock and publishes DONE = seq. The caller's ``result()`` spins until DONE >= seq, else
  blocks on the job's lock; either way the value is written before it looks.

Worker threads are daemons; at exit they are told to stop (:func:`_stop`), and a forked
child starts with no pool (``os.register_at_fork``). ``movecore.reach.HAND_OFF =
"executor"`` (``MOVECORE_HAND_OFF``) hands every job to the executor instead: the old
hand-off, for A/B.
"""
from __future__ import annotations

import atexit
import os
import sys
import threading
import time
from _thread import allocate_lock

import numpy as np

from ..kernels._spin import cycles_now, publish, spin_until

_settings = sys.modules[__package__]

REQ, DONE, SLEEP, SEEN = 0, 8, 16, 17     # (REQ, DONE, SLEEP: 64 bytes apart)


class _Job:
    """One submitted call: ``result()`` waits for it (a ``Future``'s one method the
    batched steps use)."""

    __slots__ = ("fn", "args", "value", "exc", "lock", "seq", "flags", "spin")

    def __init__(self, fn, args, flags, seq, spin):
        self.fn, self.args, self.flags, self.seq, self.spin = fn, args, flags, seq, spin
        self.value = self.exc = None
        self.lock = allocate_lock()
        self.lock.acquire()        # released by the worker once value or exc is kept

    def result(self):
        """The call's value, or its exception raised here."""
        if spin_until(self.flags, DONE, self.seq, self.spin, -1, 0, 0, -1) < self.seq:
            self.lock.acquire()    # (blocks, without the GIL, until the worker is done)
        if self.exc is not None:
            exc, self.exc = self.exc, None
            raise exc
        return self.value


class _Worker:
    __slots__ = ("flags", "owner", "job", "event", "seq", "thread", "pool", "delay")

    def __init__(self, pool):
        raw = np.zeros(24 + 8, np.int64)
        off = (-raw.ctypes.data % 64) // 8
        self.flags = raw[off:off + 24]          # REQ, DONE, SLEEP on lines of their own
        self.owner = threading.Lock()
        self.event = threading.Event()
        self.job = None
        self.seq = 0                            # (the owner's: the last REQ published)
        self.delay = 0      # (the worker's: its spin after it saw a job, cycle ticks)
        self.pool = pool
        self.thread = threading.Thread(target=_serve, args=(self,), daemon=True,
                                       name="movecore-spin")
        self.thread.start()


class _HandPool:
    """Spinning workers, with the executor for what they cannot take."""

    def __init__(self, rate: float):
        self.workers: list = []
        self.rate = rate          # cycle counter ticks a second
        self.stopping = False

    def spin_ticks(self) -> int:
        return int(_settings.SPIN_S * self.rate)

    def submit(self, fn, *args):
        """``fn(*args)`` on a spinning worker, or on the executor when none is free;
        returns what ``result()`` answers."""
        for w in self.workers:
            if w.owner.acquire(False):
                break
        else:
            return _thread_pool(len(self.workers)).submit(fn, *args)
        w.seq += 1
        job = w.job = _Job(fn, args, w.flags, w.seq, self.spin_ticks())
        # (stored holding the GIL: the worker that sees it finds the GIL taken only
        # while this thread goes on to its own chunk's kernel, which releases it)
        if publish(w.flags, REQ, w.seq, SLEEP):
            w.event.set()
        return job


def _serve(w: _Worker) -> None:
    flags, pool, last, done = w.flags, w.pool, 0, -1
    delay, step = 0, max(1, int(pool.rate * 0.5e-6))
    while True:
        # publishes the last job's end (done >= 0) without the GIL, then spins; once
        # the job is seen, ``delay`` more (below)
        seq = spin_until(flags, REQ, last + 1, pool.spin_ticks(), done, last, delay, SEEN)
        done = -1
        if seq <= last:
            # (cleared before SLEEP = 1: a set that wakes this sleep comes after it)
            w.event.clear()
            if spin_until(flags, REQ, last + 1, 0, SLEEP, 1, 0, -1) <= last:
                if pool.stopping:
                    return
                w.event.wait()
            publish(flags, SLEEP, 0, SLEEP)
            continue
        # The caller holds the GIL from its submit until its own chunk's kernel gives it
        # up: a worker that asks for it before sleeps on it (a condition variable: the
        # wake this pool exists to avoid). How long it waited says whether to wait
        # longer in the spin next time: a step more where it slept, a step less where
        # it did not.
        got = cycles_now() - flags[SEEN]
        if got > _settings.GIL_SLEPT_S * pool.rate:
            delay = min(delay + 2 * step, int(pool.rate * _settings.GIL_DELAY_MAX_S))
        elif delay:
            delay = max(0, delay - step // 4)
        w.delay = delay
        last = seq
        job = w.job
        w.job = None
        try:
            job.value = job.fn(*job.args)
        except BaseException as e:      # (the caller's result() raises it)
            job.exc = e
        job.fn = job.args = None
        w.owner.release()
        job.lock.release()
        done = DONE


_executor = (None, 0)  # (ThreadPoolExecutor, its workers), made on first need
_executor_lock = threading.Lock()


def _thread_pool(workers: int):
    """The shared pool of at least ``workers`` threads (made larger when asked for
    more). A smaller pool it replaces is not shut down: a caller on another thread may
    hold it between this call and its ``submit`` (which would raise on a shut-down
    pool); its idle threads end once it is no longer referenced."""
    global _executor
    with _executor_lock:
        size = _executor[1]
        if size < workers:
            from concurrent.futures import ThreadPoolExecutor
            _executor = (ThreadPoolExecutor(workers, thread_name_prefix="movecore"), workers)
        return _executor[0]




_pool = None
_pool_lock = threading.Lock()


def _rate() -> float:
    """Ticks a second of the cycle counter the spins measure by (0: it does not
    advance here, or the spin's functions do not build on this platform, e.g. no
    ``sched_yield``: nothing spins, the executor takes every job)."""
    try:
        probe = np.zeros(24, np.int64)
        publish(probe, REQ, 1, SLEEP)
        if spin_until(probe, REQ, 1, 0, -1, 0, 0, SEEN) != 1 or probe[SEEN] == 0:
            return 0.0
        cycles_now()
    except Exception:   # pragma: no cover (a platform the intrinsics do not build on)
        return 0.0
    t0, c0 = time.perf_counter(), cycles_now()
    while time.perf_counter() - t0 < 0.002:
        pass
    c1, t1 = cycles_now(), time.perf_counter()
    return max(0.0, (c1 - c0) / (t1 - t0))


def _hand_pool(workers: int):
    """What a batched step submits its chunks to: ``submit(fn, *args)`` then
    ``result()`` on what it returns. At least ``workers`` spinning workers (module
    docstring); the executor (``_thread_pool``) where :data:`movecore.reach.HAND_OFF` is
    ``"executor"`` or the cycle counter does not advance."""
    global _pool
    if _settings.HAND_OFF != "spin":
        return _thread_pool(workers)
    pool = _pool
    if pool is None or len(pool.workers) < workers:
        with _pool_lock:
            if _pool is None:
                _pool = _HandPool(_rate())
            pool = _pool
            if pool.rate <= 0.0:
                return _thread_pool(workers)
            while len(pool.workers) < workers:
                pool.workers.append(_Worker(pool))
    elif pool.rate <= 0.0:
        return _thread_pool(workers)
    return pool


def spinning() -> bool:
    """Whether a chunk handed over now finds its worker spinning (a wake of a few us):
    :data:`movecore.reach.HAND_OFF` is ``"spin"``, :data:`movecore.reach.SPIN_S` > 0,
    and the cycle counter advances (known once the pool is made; assumed until then)."""
    pool = _pool
    return (_settings.HAND_OFF == "spin" and _settings.SPIN_S > 0
            and (pool is None or pool.rate > 0.0))


def _stop() -> None:
    """At exit: every worker ends (a sleeping one is woken; a spinning one within its
    spin), so that none is in compiled code while the interpreter is torn down."""
    pool = _pool
    if pool is None:
        return
    pool.stopping = True
    for w in pool.workers:
        w.event.set()
    for w in pool.workers:
        w.thread.join(2 * _settings.SPIN_S + 0.1)


atexit.register(_stop)


def _forget_pool() -> None:   # a forked child has the pools' objects but not their threads
    global _pool, _pool_lock, _executor, _executor_lock
    _pool, _pool_lock = None, threading.Lock()
    _executor, _executor_lock = (None, 0), threading.Lock()


os.register_at_fork(after_in_child=_forget_pool)
