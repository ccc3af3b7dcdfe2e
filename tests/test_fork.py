"""A process forked after the parallel batch kernel ran must still work (multiprocessing's
default start method on Linux is fork)."""
from __future__ import annotations

import importlib
import multiprocessing as mp
import sys

import pytest

import movecore as mc


def _child(q):
    b = mc.Board.square(6, 6)
    r = mc.reach_many(b, mc.Mover(), [0, 35], 3, threads=2)
    q.put(r.costs.tolist())


@pytest.mark.skipif(sys.platform != "linux", reason="fork start method is Linux-only here")
@pytest.mark.parametrize("how", ["pool", "prange"])
def test_fork_after_parallel_batch(how, monkeypatch):
    """Either way of running a batch on threads (see reach.BATCH_THREADS): the child
    has neither the parent's pool threads nor its parallel region's."""
    monkeypatch.setattr(importlib.import_module("movecore.reach"), "BATCH_THREADS", how)
    b = mc.Board.square(6, 6)
    want = mc.reach_many(b, mc.Mover(), [0, 35], 3, threads=2).costs.tolist()
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    p = ctx.Process(target=_child, args=(q,))
    p.start()
    p.join(60)
    assert p.exitcode == 0
    assert q.get(timeout=5) == want
