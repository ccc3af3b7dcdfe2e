"""The seeded mutation fuzzer (tests/fuzz.py) over every bundled example (issue 33):
every failure of ``solve()``, ``position()``, ``legal_moves``, ``apply_move`` and the
action helpers on a mutated scenario is a :class:`movecore.MovecoreError` subclass, a bad
figure or action id is never answered, a whole-number float reads as its integer, and no
case takes :data:`fuzz.CASE_LIMIT_S` seconds.

The quick run (50 cases per game) is in the default set; the long one (3,000 per game,
a few minutes) is marked ``slow``."""
from __future__ import annotations

import pytest

import fuzz
import movecore as mc


def _warm(game: str) -> None:
    """Load the game's kernels first (a cold compile is not a hostile input's time)."""
    for name, s in fuzz.EXAMPLES.items():
        if s["game"] == game:
            try:
                pos = mc.position(s)
                mc.solve(s)
                for f in pos.figures[:2]:
                    pos.legal_moves(f, **fuzz._query_kw(s))
            except mc.MovecoreError:
                pass


def _run(game: str, n: int, seed: int) -> None:
    _warm(game)
    bad, slow = [], []
    for name, case in fuzz.cases(game, n, seed):
        failures, seconds, done = fuzz.run_case(name, case)
        if failures:
            bad.append((name, case, done, failures[:3]))
        if seconds > fuzz.CASE_LIMIT_S:
            slow.append((name, case, done, round(seconds, 1)))
    assert not bad, f"{len(bad)} of {n} cases failed untyped; first: {bad[:5]}"
    assert not slow, f"{len(slow)} of {n} cases took over {fuzz.CASE_LIMIT_S} s: {slow[:5]}"


@pytest.mark.parametrize("game", fuzz.GAMES)
def test_fuzz_quick(game):
    _run(game, 50, seed=1)


@pytest.mark.slow
@pytest.mark.parametrize("game", fuzz.GAMES)
def test_fuzz_long(game):
    _run(game, 1000, seed=2)


def test_the_fuzzer_reaches_every_mutation_kind_and_the_api():
    """The fuzzer is not vacuous: its mutations are of every kind, and some of its
    cases get through to legal moves."""
    import random
    kinds, answered = set(), 0
    for game in fuzz.GAMES:
        for name, case in fuzz.cases(game, 40, seed=3):
            s, done = fuzz.mutate(fuzz.EXAMPLES[name], random.Random(f"{name}:{case}"))
            kinds.update(k for k, _ in done)
            try:
                mc.solve(s)
                answered += 1
            except mc.MovecoreError:
                pass
    assert kinds == {"delete", "pool", "bool", "float", "nan", "big", "deep", "dup_id",
                     "unicode", "swap"}
    assert answered >= 20


def test_the_fuzzer_catches_an_untyped_error(monkeypatch):
    """A reader that lets a bare TypeError out is reported (the check can fail)."""
    def broken(*a, **k):
        raise TypeError("unhashable type: 'list'")
    monkeypatch.setattr(mc, "solve", broken)
    name = sorted(fuzz.EXAMPLES)[0]
    failures, _, _ = fuzz.run_case(name, 0)
    assert any("TypeError" in f for f in failures)
