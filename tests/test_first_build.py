"""Two threads' first call of a compiled function that is built on first use (``once``,
``kernels/_jit.py``): one thread builds it, the other waits and gets the same function;
nothing is compiled or loaded twice, and the answers are right."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_a_second_thread_waits_for_the_first_build():
    """``once``: a thread asking while another builds gets that build (the builder ran
    once); other arguments are other builds; an exception is not kept; keyword and
    positional arguments as ``functools.cache``."""
    from movecore.kernels._jit import once
    runs = []
    entered, release = threading.Event(), threading.Event()

    @once
    def build(k, scale=1):
        runs.append(k)
        if k == "slow":
            entered.set()
            release.wait(30)
        if k == "bad" and runs.count("bad") == 1:
            raise ValueError("once")
        return [k, scale]

    got = {}
    first = threading.Thread(target=lambda: got.setdefault("first", build("slow")))
    first.start()
    assert entered.wait(30)
    second = threading.Thread(target=lambda: got.setdefault("second", build("slow")))
    second.start()
    second.join(0.5)        # (time to arrive: it then waits for the first's build)
    release.set()
    first.join(30)
    second.join(30)
    assert runs == ["slow"]
    assert got["first"] is got["second"] is build("slow")
    assert build("other") == ["other", 1] and build("other", scale=2) == ["other", 2]
    assert build("other", scale=2) is build("other", scale=2)
    with pytest.raises(ValueError):
        build("bad")
    assert build("bad") == ["bad", 1]
    assert runs == ["slow", "other", "other", "bad", "bad"]


# A fresh process (nothing built yet): every Numba dispatcher made is counted by the name
# of its function, and making one of the watched names takes a second (a hook on
# Dispatcher.__init__: the first build is slow, so two threads asking at once both reach
# it unless one waits). Then the check named in argv[1] runs.
_FRESH = r"""
import json, sys, threading, time
import numpy as np
import movecore as mc
numba = mc._import_numba()
from numba.core.dispatcher import Dispatcher
made = {}
watch = set(sys.argv[2].split(","))
init = Dispatcher.__init__

def counted(self, py_func, *a, **k):
    name = py_func.__name__
    made[name] = made.get(name, 0) + 1
    if name in watch:
        time.sleep(1.0)
    init(self, py_func, *a, **k)

Dispatcher.__init__ = counted
sys.path.insert(0, sys.argv[3])
import test_first_build as t
ok = t.CHECKS[sys.argv[1]]()
print(json.dumps({"ok": ok, "made": {n: made.get(n, 0) for n in watch}}))
"""


def _reach_many_with_penalties() -> bool:
    """``reach_many(threads=2)`` with penalties, its first call: the calling thread and
    a pool thread each run their chunk's first penalty query at once (the penalty kernel
    is built there). Its answers: one ``reach`` per start's."""
    import numpy as np
    import movecore as mc
    board = mc.Board.square(9, 9)
    pen = (np.arange(board.n_cells) % 3 == 0).astype(np.int32)
    starts = [board.coord(c) for c in range(0, board.n_cells, 4)]
    got = mc.reach_many(board, mc.Mover(), starts, 4, enter_penalty=pen, threads=2)
    for i, s in enumerate(starts):
        one = mc.reach(board, mc.Mover(), s, 4, enter_penalty=pen)
        lo, hi = got.offsets[i], got.offsets[i + 1]
        if sorted(zip(got.cells[lo:hi].tolist(), got.costs[lo:hi].tolist())) != \
                sorted(zip(one.cells.tolist(), one.costs.tolist())):
            return False
    return True


def _two_descent_plays() -> bool:
    """Two threads each start and step their own batched Descent self-play (its legal
    moves' and its step's compiled calls are built on the first step): their games
    equal the same two plays stepped one after the other on this thread."""
    from movecore.tools.cli import example_paths
    from movecore.tools.selfplay_batch import BatchedPlay
    path = next(p for p in example_paths() if p.name == "descent_ogre.json")
    scenario = json.loads(path.read_text())

    def play(seed):
        p = BatchedPlay("descent", scenario, 8, seed=seed, max_turns=6)
        assert p.fused
        for _ in range(12):
            p.step()
        return [dict(p.counts), p.games.cell.tolist(), p.games.alive.tolist()]

    got = {}
    threads = [threading.Thread(target=lambda s=s: got.setdefault(s, play(s)))
               for s in (1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return got == {s: play(s) for s in (1, 2)}


def _two_distance_fields() -> bool:
    """Two threads each ask a ``distance_field`` (its kernel is compiled at its first
    call: ``kernels.reach._at_first_use``): their fields equal the same fields asked one
    after the other on this thread."""
    import numpy as np
    import movecore as mc
    board = mc.Board.square(12, 12)
    sources = {1: [(0, 0)], 2: [(5, 7), (11, 2)]}

    def field(k):
        return mc.distance_field(board, mc.Mover(), sources[k]).tolist()

    got = {}
    threads = [threading.Thread(target=lambda k=k: got.setdefault(k, field(k)))
               for k in sources]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    want = {k: field(k) for k in sources}
    return bool(got == want and np.array(want[1]).max() > 0)


CHECKS = {"reach_many": _reach_many_with_penalties, "descent": _two_descent_plays,
          "distance_field": _two_distance_fields}
#: the builders' functions each check reaches first from two threads at once
WATCH = {"reach_many": "reach_pen", "descent": "legal_games,descent_step",
         "distance_field": "field_query"}


@pytest.mark.parametrize("check", list(CHECKS))
def test_two_threads_first_call_builds_once(check):
    """A fresh process's first call from two threads at once (the calling thread and a
    pool thread of one batched call; two threads with a batch each): each compiled
    function built on first use is made once (one dispatcher: compiled or loaded once),
    and the answers are right."""
    env = {k: v for k, v in os.environ.items() if k != "MOVECORE_NO_CACHE"}
    out = subprocess.run([sys.executable, "-c", _FRESH, check, WATCH[check],
                          str(ROOT / "tests")], env=env, capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["ok"]
    assert got["made"] == dict.fromkeys(WATCH[check].split(","), 1), got
