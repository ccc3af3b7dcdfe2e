"""A seeded mutation fuzzer over the bundled examples (issue 33), used by test_fuzz.py.

Each case is one example with one to three mutations (a deleted key, a value of another
type, a boolean for a number, NaN or an infinity, 2**63 and friends, a whole-number float,
deep nesting, a duplicated figure id, unicode text with lone surrogates), driven through
``solve()``, ``position()``, ``legal_moves``, ``apply_move`` and the action helpers.
:func:`run_case` returns what went wrong: every failure must be a
:class:`movecore.MovecoreError` subclass, and no case may take 10 s of its thread's CPU
(CPU, not wall clock: a case is a hang guard, and other jobs on a shared machine must not
fail it).
"""
from __future__ import annotations

import copy
import json
import math
import random
import time
import traceback
from typing import Any, Callable

import movecore as mc
from movecore.tools.cli import example_paths

EXAMPLES = {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in example_paths()}
GAMES = sorted({s["game"] for s in EXAMPLES.values()})
#: The longest one case may take (seconds of the calling thread's CPU time).
CASE_LIMIT_S = 10.0
DEEP = object()   # a marker: the mutation nests the value (applied last, never copied)

#: Values a mutation puts in place of another: every JSON type, numbers at and past the
#: kernels' limits (never a mid-size board dimension: big boards are issue 33.7's), and
#: text no UTF-8 encoder takes.
POOL: list = [None, True, False, 0, -1, 1, 2, 1.0, -0.0, 0.5, 1e308, -1e308,
              float("nan"), float("inf"), float("-inf"), 2 ** 31, 2 ** 31 - 1, -2 ** 31,
              2 ** 63, 2 ** 63 - 1, -2 ** 63, -2 ** 63 + 1, 2 ** 64, 1 << 30, 10 ** 30,
              "", "x", "zz", "\ud800", "a\udfffb", "\u00e9", "\U0001f409", "\x00",
              [], {}, [0, 0], [0.0, 0], [True, 0], [[0, 0]], {"x": 1}, [None], "town"]


def sites(node, path=()):
    """(path, value) of every place in a scenario (lists: their first four items)."""
    yield path, node
    if isinstance(node, dict):
        for k, v in node.items():
            yield from sites(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node[:4]):
            yield from sites(v, path + (i,))


def _get(s, path):
    for step in path:
        s = s[step]
    return s


def _put(s, path, value) -> None:
    _get(s, path[:-1])[path[-1]] = value


def _nest(value, depth: int):
    for _ in range(depth):
        value = [value]
    return value


def mutate(s: dict, rng: random.Random) -> tuple[dict, list]:
    """A mutated copy of scenario ``s`` and the list of mutations (for the report)."""
    out = copy.deepcopy(s)
    done: list = []
    deep = None
    for _ in range(rng.choice((1, 1, 2, 3))):
        places = [(p, v) for p, v in sites(out) if p]
        # a kind of place first (its path with list indices as *), then one of them: a
        # board of 700 cells must not make every mutation a coordinate's
        kinds: dict = {}
        for p, v in places:
            kinds.setdefault(tuple("*" if type(k) is int else k for k in p), []).append(
                (p, v))
        path, value = rng.choice(kinds[rng.choice(sorted(kinds, key=str))])
        kind = rng.choice(("delete", "pool", "pool", "bool", "float", "nan", "big",
                           "deep", "dup_id", "unicode", "swap"))
        if kind == "delete":
            parent = _get(out, path[:-1])
            if isinstance(parent, dict):
                del parent[path[-1]]
            else:
                del parent[path[-1]]
        elif kind == "pool":
            _put(out, path, rng.choice(POOL))
        elif kind == "bool":
            ints = [p for p, v in places if type(v) is int]
            if ints:
                path = rng.choice(ints)
            _put(out, path, rng.choice((True, False)))
        elif kind == "float":      # the same number as a whole float: must read the same
            nums = [p for p, v in places if type(v) is int and abs(v) < 2 ** 53]
            if nums:
                path = rng.choice(nums)
                _put(out, path, float(_get(out, path)))
        elif kind == "nan":
            _put(out, path, rng.choice((math.nan, math.inf, -math.inf)))
        elif kind == "big":
            _put(out, path, rng.choice((2 ** 63, -2 ** 63, 2 ** 63 - 1, 2 ** 64, -2 ** 64,
                                        10 ** 5000)))
        elif kind == "deep":
            deep = (path, rng.choice((33, 100, 3000)))
        elif kind == "dup_id":
            figs = out.get("figures")
            if isinstance(figs, list) and figs and isinstance(figs[0], dict):
                if len(figs) > 1 and isinstance(figs[1], dict) and "id" in figs[0]:
                    figs[1]["id"] = figs[0]["id"]
                else:
                    figs.append(copy.deepcopy(figs[0]))
            path = ("figures",)
        elif kind == "unicode":
            strs = [p for p, v in places if isinstance(v, str)] or [path]
            path = rng.choice(strs)
            _put(out, path, rng.choice(("\ud800", "x\udfff", "\u00e9\u0301", "\U0001f409",
                                        "\x00", "\u202e", "a" * 10_000)))
        else:   # swap: a list for an object and back, a number for text and back
            v = _get(out, path)
            new = (list(v.values()) if isinstance(v, dict) else
                   dict(enumerate(v)) if isinstance(v, list) else
                   repr(v)[:50] if isinstance(v, float) or (
                       isinstance(v, int) and abs(v) < 10 ** 100) else
                   len(v) if isinstance(v, str) else [v])
            if isinstance(new, dict):
                new = {str(k): x for k, x in new.items()}
            _put(out, path, new)
        done.append((kind, path))
        if not isinstance(out, dict):
            break
    if deep is not None:      # nested last: nothing copies or walks it afterwards
        path, depth = deep
        try:
            _put(out, path, _nest(_get(out, path), depth))
            done.append(("deep", path))
        except (KeyError, IndexError, TypeError):
            pass
    return out, done


class Failure(Exception):
    pass


def _call(fn: Callable, failures: list, what: str):
    """``fn()``; None when it raised a MovecoreError; an untyped exception is recorded."""
    try:
        return fn()
    except mc.MovecoreError:
        return None
    except Exception as exc:       # noqa: BLE001 - the point: anything untyped
        tb = traceback.extract_tb(exc.__traceback__)[-1]
        failures.append(f"{what}: {type(exc).__name__}: {str(exc)[:160]} "
                        f"(at {tb.filename.rsplit('/', 1)[-1]}:{tb.lineno})")
        return None


def _must_fail(fn: Callable, failures: list, what: str) -> None:
    """``fn()`` must raise a MovecoreError (a bad id answered is a wrong answer)."""
    try:
        fn()
    except mc.MovecoreError:
        return
    except Exception as exc:       # noqa: BLE001
        failures.append(f"{what}: {type(exc).__name__}: {str(exc)[:160]}")
        return
    failures.append(f"{what}: answered instead of a typed error")


#: Figure "ids" no bundled example uses: each must be an unknown figure.
NOT_IDS = [True, False, 0, 1.0, "", "\ud800", None, [], "nobody"]


def _query_kw(s) -> dict:
    q = s.get("query") if isinstance(s, dict) else None
    if not isinstance(q, dict):
        return {}
    kw = {k: v for k, v in q.items() if isinstance(k, str) and k not in ("figure",)}
    if s.get("game") == "dark_realms" and "enemy" in kw:
        kw["enemy"] = True
    return kw


def drive(s: Any, rng: random.Random) -> list[str]:
    """Run ``s`` through the public API; the untyped failures."""
    failures: list[str] = []
    _call(lambda: mc.solve(s), failures, "solve")
    pos = _call(lambda: mc.position(s), failures, "position")
    if pos is None:
        return failures
    kw = _query_kw(s)
    q = s.get("query") if isinstance(s, dict) else None
    if q is not None:
        _call(lambda: pos.solve(q), failures, "Position.solve")
    figs = list(pos.figures)[:3]
    figs.append(rng.choice(POOL + ["nobody"]))
    for fig in figs:
        for query in (kw, {}):
            m = _call(lambda: pos.legal_moves(fig, **query), failures, f"legal_moves({fig!r})")
            if m is None:
                continue
            n = _call(lambda: pos.n_actions(fig), failures, "n_actions")
            _call(lambda: pos.action_coords(fig, m.actions), failures, "action_coords")
            _call(lambda: m.to_dicts(), failures, "to_dicts")
            _call(lambda: m.mask, failures, "mask")
            bad = rng.choice([-1, -n if n else -1, n if n is not None else 0, 2 ** 63, True,
                              1.5, [[0.5]], "0"])
            _must_fail(lambda: pos.action_coords(fig, [bad]), failures,
                       f"action_coords({bad!r})")
            nobody = rng.choice(NOT_IDS)
            if nobody not in pos.figures:
                _must_fail(lambda: pos.action_coords(nobody, [0]), failures,
                           f"action_coords({nobody!r}, [0])")
                _must_fail(lambda: pos.n_actions(nobody), failures, f"n_actions({nobody!r})")
                _must_fail(lambda: pos.legal_moves(nobody, **query), failures,
                           f"legal_moves({nobody!r})")
            _call(lambda: pos.apply_move(fig, rng.choice(POOL), **query), failures,
                  "apply_move(bad to)")
            _call(lambda: pos.action_of(fig, rng.choice(POOL)), failures, "action_of")
            if len(m):
                _call(lambda: pos.action_of(fig, m.actions[0]), failures, "action_of(id)")
                _call(lambda: m.row(rng.choice(POOL)), failures, "Moves.row")
            if len(m):
                to = int(m.actions[rng.randrange(len(m))])
                c = pos.copy()
                _call(lambda: c.apply_move(fig, to, **query), failures, "apply_move")
            break
    return failures


def run_case(name: str, seed: int) -> tuple[list[str], float, list]:
    """Mutate example ``name`` with ``seed`` and drive it: (failures, CPU seconds of this
    thread, mutations)."""
    rng = random.Random(f"{name}:{seed}")
    s, done = mutate(EXAMPLES[name], rng)
    t = time.thread_time()
    failures = drive(s, rng)
    if done and all(kind == "float" for kind, _ in done):   # 6.0 is 6 (docs/api.md)
        want, got = _outcome(EXAMPLES[name]), _outcome(s)
        if want != got:
            failures.append(f"whole-number floats read differently: {got!r:.200} instead "
                            f"of {want!r:.200}")
    return failures, time.thread_time() - t, done


def _outcome(s):
    try:
        return mc.solve(s)
    except mc.MovecoreError as exc:
        return type(exc).__name__


def cases(game: str, n: int, seed: int = 0):
    """``n`` (example, seed) pairs spread over the game's examples."""
    names = sorted(k for k, v in EXAMPLES.items() if v["game"] == game)
    return [(names[i % len(names)], seed * 1_000_003 + i) for i in range(n)]
