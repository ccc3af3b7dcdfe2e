"""``movecore.position.shared_prepared``: the prototype prepared query that a position
shares with its copies, built once under ``BUILD_LOCK`` (checked again there), grown with
room when a larger budget is asked; and the games that keep their prototypes with it (grid,
Tiny Epic Tactics, Dark Realms) build none again for a copy."""
from __future__ import annotations

import importlib
import threading
import time

import pytest

from movecore import examples
from movecore.kernels import _types as T
from movecore.position import position, shared_prepared


class _Made:
    def __init__(self, max_budget: int):
        self.max_budget = max_budget


def _maker(log: list, delay: float = 0.0):
    def make(top: int) -> _Made:
        log.append(top)
        if delay:
            time.sleep(delay)
        return _Made(top)
    return make


def test_built_once_then_a_dict_hit():
    protos, log = {}, []
    a = shared_prepared(protos, "k", 5, _maker(log), least=8)
    assert log == [8] and protos["k"] is a and a.max_budget == 8
    for budget in (0, 5, 8):     # answered: nothing made
        assert shared_prepared(protos, "k", budget, _maker(log), least=8) is a
    assert log == [8]


def test_a_larger_budget_grows_it_with_room_capped_at_the_kernel_limit():
    protos, log = {}, []
    a = shared_prepared(protos, "k", 3, _maker(log))
    assert a.max_budget == 3
    b = shared_prepared(protos, "k", 4, _maker(log), bound=a)     # twice the bound's
    assert b.max_budget == 6 and protos["k"] is b
    c = shared_prepared(protos, "k", 20, _maker(log), bound=b)    # the budget itself
    assert c.max_budget == 20
    d = shared_prepared(protos, "k", T.MAX_BUDGET, _maker(log), bound=_Made(T.MAX_BUDGET))
    assert d.max_budget == T.MAX_BUDGET
    assert log == [3, 6, 20, T.MAX_BUDGET]


def test_threads_asking_at_once_build_it_once():
    protos, log = {}, []
    n = 8
    barrier = threading.Barrier(n)
    got = [None] * n

    def run(k):
        barrier.wait()
        got[k] = shared_prepared(protos, "k", 4, _maker(log, delay=0.01))

    threads = [threading.Thread(target=run, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(log) == 1 and all(g is protos["k"] for g in got)


@pytest.mark.parametrize("name, module, figure, query", [
    ("grid_hex_skirmish", "movecore.games.grid.rules", "guard", {"budget": 4}),
    ("tiny_epic_tactics_skirmish", "movecore.games.tiny_epic_tactics.position", "knight",
     {"budget": 4}),
    ("dark_realms_hero_move", "movecore.games.dark_realms.position", "ayla",
     {"roll": 2, "bonus": 1, "stamina": 2}),
])
def test_a_copy_builds_no_prepared_query_again(monkeypatch, name, module, figure, query):
    reach = importlib.import_module("movecore.reach")   # (movecore.reach: the function)
    mod = importlib.import_module(module)
    calls = []
    real = reach.prepare

    def counting(*args, **kwargs):
        calls.append(args[2] if len(args) > 2 else kwargs.get("max_budget"))
        return real(*args, **kwargs)

    # (where the game imports it: at the top, or when it builds one)
    monkeypatch.setattr(reach, "prepare", counting)
    if hasattr(mod, "prepare"):
        monkeypatch.setattr(mod, "prepare", counting)
    pos = position(examples.load(name))
    first = pos.legal_moves(figure, **query)
    assert calls, "the position built its prototype"
    made = len(calls)
    twin = pos.copy()
    again = twin.legal_moves(figure, **query)
    assert len(calls) == made       # the copy bound the shared prototype, built none
    assert again.actions.tolist() == first.actions.tolist()
    assert again.costs.tolist() == first.costs.tolist()
