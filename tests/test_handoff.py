"""The batched steps' hand-off to spinning pool workers (``movecore.reach._handoff``):
every chunk runs once, results come back in chunk order, a chunk's exception reaches
its caller, callers on several threads at once each get their own chunks' results, a
worker's spin ends and it sleeps (no CPU burned when idle) and wakes again, a forked
child and the interpreter's exit work. The steps' own differentials (1 thread against
2, through this hand-off) are in ``test_batch.py`` and ``test_rl_vector.py``."""
from __future__ import annotations

import importlib
import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

from movecore.batch import on_chunks

R = importlib.import_module("movecore.reach")
H = importlib.import_module("movecore.reach._handoff")


@pytest.fixture(autouse=True)
def _no_hang():
    """A lost job (a worker asleep through it, a worker thread ended by an error) would
    leave its caller waiting for ever: the test fails after 120 s instead (a lock's
    wait is interrupted by a signal's handler)."""
    def late(signum, frame):
        raise TimeoutError("a hand-off never finished")
    old = signal.signal(signal.SIGALRM, late)
    signal.alarm(120)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


@pytest.fixture(params=["spin", "executor"])
def hand_off(request, monkeypatch):
    monkeypatch.setattr(R, "HAND_OFF", request.param)
    return request.param


def _chunked(n, n_chunks, log, rng=None):
    """``on_chunks``'s ``run``: logs (c, lo, hi) and, where ``rng`` is given, spins a
    random few microseconds to tens of them (GIL-free: numpy's sum of a small array
    is too short; a sleep gives the GIL up), so that threads end in every order."""
    def run(c, lo, hi):
        if rng is not None:
            time.sleep(float(rng[c]))
        with log[0]:
            log[1].append((c, lo, hi))
        return (c, lo, hi, sum(range(lo, hi)))
    return run


@pytest.mark.parametrize("n_chunks", [2, 3, 4])
def test_every_chunk_once_results_in_chunk_order(hand_off, n_chunks):
    rng = np.random.default_rng(n_chunks)
    for rep in range(150):
        n = int(rng.integers(n_chunks, 60))
        log = (threading.Lock(), [])
        delays = rng.choice([0.0, 0.0, 1e-5, 2e-4], n_chunks)
        cut, res = on_chunks(n, n_chunks, _chunked(n, n_chunks, log, delays))
        assert cut == [(n * c) // n_chunks for c in range(n_chunks + 1)]
        assert res == [(c, cut[c], cut[c + 1], sum(range(cut[c], cut[c + 1])))
                       for c in range(n_chunks)]
        assert sorted(log[1]) == [(c, cut[c], cut[c + 1]) for c in range(n_chunks)]
    if hand_off == "spin":
        assert isinstance(H._pool, H._HandPool) and len(H._pool.workers) >= n_chunks - 1


class Boom(Exception):
    pass


def test_a_chunks_exception_reaches_the_caller_and_the_pool_goes_on(hand_off):
    for bad in (0, 1, 2):
        def run(c, lo, hi):
            if c == bad:
                raise Boom(c)
            return c
        with pytest.raises(Boom) as e:
            on_chunks(9, 3, run)
        assert e.value.args == (bad,)
        assert on_chunks(9, 3, lambda c, lo, hi: hi)[1] == [3, 6, 9]
    # a worker's BaseException too (it would end an executor's thread's job alike)
    pool = R._hand_pool(1)
    job = pool.submit(lambda: (_ for _ in ()).throw(KeyboardInterrupt()))
    with pytest.raises(KeyboardInterrupt):
        job.result()
    assert pool.submit(lambda x: x + 1, 4).result() == 5


def test_two_callers_at_once_get_their_own_results(hand_off):
    """Two (three) threads hand chunks over at once: a caller finding every worker
    taken hands its chunk to the executor; no caller ever sees another's result."""
    errors, used = [], set()

    def caller(k):
        rng = np.random.default_rng(k)
        try:
            for rep in range(200):
                n = int(rng.integers(2, 40))
                tag = (k, rep)
                cut, res = on_chunks(n, 2, lambda c, lo, hi: (tag, c, lo, hi))
                assert res == [(tag, 0, 0, cut[1]), (tag, 1, cut[1], n)], (tag, res)
                if rep % 16 == 0:
                    used.add(type(R._hand_pool(1).submit(int, 3)).__name__)
        except BaseException as e:      # (reported below, on the test's thread)
            errors.append(e)

    threads = [threading.Thread(target=caller, args=(k,)) for k in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not any(t.is_alive() for t in threads)
    assert not errors, errors


def _within(fn, seconds=60.0):
    """``fn()`` on a daemon thread, failing (not hanging) where it does not return in
    ``seconds``: a job whose wake-up was lost is never run."""
    out = []
    t = threading.Thread(target=lambda: out.append(fn()), daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), "a job was never run: its worker slept through it"
    return out[0]


def _thread_cpu(thread) -> float:
    return time.clock_gettime(time.pthread_getcpuclockid(thread.ident))


@pytest.mark.skipif(not hasattr(time, "pthread_getcpuclockid"), reason="Linux")
def test_the_spin_ends_the_worker_sleeps_and_wakes(monkeypatch):
    """After its last job a worker spins at most ``SPIN_S``, then sleeps: it burns no CPU
    while idle, and the next job wakes it. With a spin of a microsecond the worker
    sleeps between nearly every two jobs, which takes the sleep protocol's race (the
    worker's last look at REQ against the caller's look at SLEEP) hundreds of times:
    a lost wake-up would leave a job unrun (the caller's wait below would hang)."""
    monkeypatch.setattr(R, "HAND_OFF", "spin")
    monkeypatch.setattr(R, "SPIN_S", 2e-3)
    pool = R._hand_pool(1)
    w = pool.workers[0]
    assert pool.submit(lambda: 1).result() == 1
    time.sleep(0.05)
    assert w.flags[H.SLEEP] == 1                # asleep once the spin ended
    c0 = _thread_cpu(w.thread)
    time.sleep(0.2)
    assert _thread_cpu(w.thread) - c0 < 0.02    # (asleep: no CPU)
    # woken; its next spin (read after the job) long enough that SLEEP = 0 stays
    # for the look below even where this thread waits for a core
    monkeypatch.setattr(R, "SPIN_S", 1.0)
    assert _within(lambda: pool.submit(lambda: 2).result()) == 2
    assert w.flags[H.SLEEP] == 0

    monkeypatch.setattr(R, "SPIN_S", 1e-6)
    done = []

    def many():
        for k in range(600):
            job = pool.submit(lambda k=k: k)
            if k % 3 == 0:
                time.sleep(2e-5)        # (the worker may be between spin and sleep)
            done.append(job.result() == k)
    _within(many)
    assert len(done) == 600 and all(done)


@pytest.mark.skipif(not hasattr(time, "pthread_getcpuclockid"), reason="Linux")
def test_no_spin_at_all(monkeypatch):
    """``SPIN_S = 0`` (a program whose own threads need the cores between steps): no
    spin on either side, every job still runs once and its value comes back, and the
    idle worker sleeps without burning CPU."""
    monkeypatch.setattr(R, "HAND_OFF", "spin")
    monkeypatch.setattr(R, "SPIN_S", 0.0)
    pool = R._hand_pool(1)
    w = pool.workers[0]
    got = _within(lambda: [pool.submit(lambda k=k: k * k).result() for k in range(300)])
    assert got == [k * k for k in range(300)]
    time.sleep(0.05)
    c0 = _thread_cpu(w.thread)
    time.sleep(0.1)
    assert _thread_cpu(w.thread) - c0 < 0.01


def _busy(seconds):
    t = time.perf_counter() + seconds
    while time.perf_counter() < t:
        pass


def test_the_sleep_race_and_forced_switches(monkeypatch):
    """The sleep protocol's race, thousands of times: each job submitted a random 0-30
    us after the last one's end, while the worker's spin of ~a microsecond ends and it
    goes to sleep (the caller's look at SLEEP against the worker's last look at REQ);
    and the GIL switched between any two bytecodes (``sys.setswitchinterval``), so that
    a worker that saw REQ runs while the caller is still inside ``submit`` (a job
    written after REQ would be missed)."""
    monkeypatch.setattr(R, "HAND_OFF", "spin")
    monkeypatch.setattr(R, "SPIN_S", 1e-6)
    pool = R._hand_pool(1)
    rng = np.random.default_rng(5)
    gaps = rng.uniform(0, 30e-6, 4000) * (rng.random(4000) < 0.8)
    old = sys.getswitchinterval()
    try:
        for k, gap in enumerate(gaps):
            if k == 2000:
                sys.setswitchinterval(1e-6)
            _busy(gap)
            job = pool.submit(lambda k=k: k * 3)
            # (the caller waits spinning, GIL-free, past the worker's own spin: the
            # worker's end is seen at once and the next submit meets the worker going
            # from its spin to its sleep)
            job.spin = int(pool.rate * 2e-3)
            assert job.result() == k * 3
    finally:
        sys.setswitchinterval(old)


@pytest.mark.skipif(sys.platform != "linux", reason="fork")
def test_a_forked_child_hands_off_to_its_own_workers(monkeypatch):
    monkeypatch.setattr(R, "HAND_OFF", "spin")
    assert on_chunks(10, 2, lambda c, lo, hi: hi - lo)[1] == [5, 5]
    parent = H._pool
    pid = os.fork()
    if pid == 0:                # the child: a pool of its own, then out at once
        ok = False
        try:
            ok = H._pool is None and on_chunks(10, 2, lambda c, lo, hi: hi)[1] == [5, 10] \
                and H._pool is not parent
        finally:
            os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert H._pool is parent and on_chunks(4, 2, lambda c, lo, hi: c)[1] == [0, 1]


def test_the_interpreter_exits_with_workers_spinning_or_asleep():
    code = ("import sys, time; from movecore.batch import on_chunks; "
            "assert on_chunks(8, 3, lambda c, lo, hi: hi)[1] == [2, 5, 8]; "
            "time.sleep(float(sys.argv[1])); print('ok')")
    for wait in ("0", "0.05"):      # still spinning, then asleep
        out = subprocess.run([sys.executable, "-c", code, wait], capture_output=True,
                             text=True, timeout=60)
        assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


def test_executor_switch_and_a_full_pool_fall_back_to_futures(monkeypatch):
    from concurrent.futures import Future
    monkeypatch.setattr(R, "HAND_OFF", "executor")
    assert isinstance(R._hand_pool(1).submit(int, 2), Future)
    monkeypatch.setattr(R, "HAND_OFF", "spin")
    pool = R._hand_pool(1)
    held = [w for w in pool.workers if w.owner.acquire(False)]
    try:
        f = pool.submit(int, 7)             # every worker taken: the executor's
        assert isinstance(f, Future) and f.result() == 7
    finally:
        for w in held:
            w.owner.release()
    assert isinstance(pool.submit(int, 8), H._Job)


def test_the_steps_head_start_reads_the_wake_the_pool_has(monkeypatch):
    """``batch._wake()`` (the calling thread's head start) is the spin's short wake only
    where a handed chunk finds its worker spinning: not with the executor, not with the
    spin turned off, not where the cycle counter does not advance (the pool falls back
    to the executor)."""
    from movecore.batch import _SPIN_WAKE, _WAKE, _wake
    monkeypatch.setattr(R, "HAND_OFF", "spin")
    R._hand_pool(1)
    assert H.spinning() and _wake() == _SPIN_WAKE
    monkeypatch.setattr(R, "SPIN_S", 0.0)
    assert not H.spinning() and _wake() == _WAKE
    monkeypatch.setattr(R, "SPIN_S", 1e-3)
    monkeypatch.setattr(R, "HAND_OFF", "executor")
    assert not H.spinning() and _wake() == _WAKE
    monkeypatch.setattr(R, "HAND_OFF", "spin")
    monkeypatch.setattr(H._pool, "rate", 0.0)          # a counter that does not advance
    assert not H.spinning() and _wake() == _WAKE
    from concurrent.futures import Future
    assert isinstance(R._hand_pool(1).submit(int, 3), Future)
