"""Heroscape positions used from several threads (issue 30 item 3).

Copies are the documented way to branch a search, and tree searches run in threads:
four threads, each on its own ``pos.copy()``, must answer exactly as one thread does
(``path``, ``leaving_attacks_path``, ``least_fall_path``, ``leaving_attackers``, falls,
...), and the first queries of fresh copies (a double-space figure first: the shared
placement data is built lazily) must neither raise nor read half-built data.

The checks run in a child process: a crash there (a kernel reading another thread's
search tree can run off its arrays) fails the test instead of killing the test run.
"""
from __future__ import annotations

import json
import subprocess
import sys
import threading

import pytest

EXAMPLES = ("heroscape_engaged_knight.json", "heroscape_map_aoa_heshva_basin.json")


def _scenario(name: str) -> dict:
    if name == "crowd":
        return _crowd()
    from movecore.tools.cli import example_paths
    return json.loads(next(p for p in example_paths() if p.name == name).read_text())


def _crowd() -> dict:
    """110 figures on 169 spaces, engaged flyers among them: a crowd's queries (more
    than 64 enemies within reach) and flyers that may walk, from several threads."""
    import numpy as np
    rng = np.random.default_rng(11)
    cells = [{"at": [q, r], "level": int(rng.integers(0, 4))} for q in range(-7, 8)
             for r in range(-7, 8) if abs(q + r) <= 7]
    spots = rng.permutation(len(cells))[:110].tolist()
    return {"game": "heroscape", "board": {"cells": cells}, "figures": [
        {"id": f"f{k}", "team": "b" if k % 4 else "a", "at": cells[o]["at"], "move": 7,
         "height": int(rng.integers(2, 7)), "flying": k % 3 == 0}
        for k, o in enumerate(spots)]}


def _queries(pos) -> list:
    """(figure, query) pairs: every figure (a crowd's first twelve of team a), budgets
    0..8, with paths, and the never_attacked_leaving option."""
    out = []
    figs = pos.figures if len(pos.figures) <= 64 else pos.team_figures("a")[:12]
    for f in figs:
        for move in (None, 1, 3, 6, 8):
            q = {} if move is None else {"move": move}
            out.append((f, dict(q, paths=True)))
            out.append((f, q))
        out.append((f, {"never_attacked_leaving": True, "paths": True}))
    return out


def _answer(pos, f, q) -> list:
    return pos.legal_moves(f, **q).to_dicts()


def _run_threads(work, n: int = 4) -> list:
    """``work(k)`` on ``n`` threads started together; the exceptions they raised."""
    errors: list = []
    barrier = threading.Barrier(n)

    def run(k):
        try:
            barrier.wait()
            work(k)
        except BaseException as exc:  # noqa: BLE001 (reported by the parent)
            errors.append(repr(exc))

    threads = [threading.Thread(target=run, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors


def copies_agree(name: str, rounds: int = 0) -> str:
    """Four threads, each on its own copy, ask every query ``rounds`` times in their
    own order: the answers that differ from one thread's (a report, '' if none)."""
    import numpy as np

    import movecore as mc
    s = _scenario(name)
    pos = mc.position(s)
    rounds = rounds or (2 if name == "crowd" else 6)
    queries = _queries(pos)
    expected = [_answer(pos, f, q) for f, q in queries]
    copies = [pos.copy() for _ in range(4)]
    wrong: list = []

    def work(k):
        rng = np.random.default_rng(k)
        p = copies[k]
        for _ in range(rounds):
            for j in rng.permutation(len(queries)).tolist():
                f, q = queries[j]
                got = _answer(p, f, q)
                if got != expected[j]:
                    wrong.append((f, q, next((key for e, x in zip(got, expected[j])
                                              for key in e if e[key] != x.get(key)),
                                             "ends")))

    errors = _run_threads(work)
    return "; ".join(errors + [repr(w) for w in wrong[:5]] +
                     ([f"{len(wrong)} wrong answers"] if wrong else []))


def fresh_copies_agree(name: str, tries: int = 12) -> str:
    """``tries`` times: a fresh position (its own battlefield: nothing built yet), four
    copies, four threads whose first query is of a double-space figure (then the others)."""
    import movecore as mc
    s = _scenario(name)
    pos = mc.position(s)
    doubles = [f for f in pos.figures if pos.double[pos.index[f]]]
    assert doubles, name
    order = doubles + [f for f in pos.figures if f not in doubles]
    expected = {f: _answer(pos, f, {}) for f in order}
    report: list = []
    for _ in range(tries):
        fresh = mc.position(s)
        copies = [fresh.copy() for _ in range(4)]

        def work(k):
            for f in order:
                got = _answer(copies[k], f, {})
                if got != expected[f]:
                    report.append(f"thread {k}: {f} differs")

        report += _run_threads(work)
    return "; ".join(report[:5])


def _in_child(check: str, name: str) -> None:
    """Run ``check(name)`` in a child process: its report must be empty, and it must not
    crash."""
    done = subprocess.run([sys.executable, __file__, check, name], capture_output=True,
                          text=True, timeout=900)
    assert done.returncode == 0, (f"the child died (exit {done.returncode}):\n"
                                  f"{done.stderr[-3000:]}")
    assert done.stdout.strip().endswith("OK"), done.stdout[-3000:] + done.stderr[-3000:]


@pytest.mark.parametrize("name", EXAMPLES + ("crowd",))
def test_four_threads_on_copies_answer_as_one(name):
    _in_child("copies_agree", name)


@pytest.mark.parametrize("name", EXAMPLES)
def test_first_queries_of_fresh_copies_from_four_threads(name):
    _in_child("fresh_copies_agree", name)


if __name__ == "__main__":        # the child: python test_heroscape_threads.py CHECK NAME
    report = {"copies_agree": copies_agree,
              "fresh_copies_agree": fresh_copies_agree}[sys.argv[1]](sys.argv[2])
    print(report if report else "OK")


def test_a_query_that_raises_leaves_the_position_to_other_threads():
    """``locked`` releases the position's lock when the query raises (a typed error at
    the boundary): another thread then gets the position at once."""
    import movecore as mc
    pos = mc.position(_scenario(EXAMPLES[0]))
    for bad in ({"figure": "nobody"}, {"figure": pos.figures[0], "move": -1}):
        with pytest.raises(mc.QueryError):
            pos.legal_moves(bad.pop("figure"), **bad)
    got = []

    def other():
        ok = pos._lock.acquire(timeout=5)
        got.append(ok)
        if ok:
            pos._lock.release()
    t = threading.Thread(target=other)
    t.start()
    t.join()
    assert got == [True]
    assert len(pos.legal_moves(pos.figures[0])) > 0
