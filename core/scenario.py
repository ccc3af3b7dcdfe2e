"""The scenario format v1: ``solve(scenario) -> result``, the game registry, and the
small readers every game vocabulary uses to validate its part of a scenario.

A scenario is a JSON object ``{"game": NAME, "board": ..., "options": ..., "figures":
..., "query": ...}``; what goes inside each part is the game's vocabulary. Each game
module in :mod:`movecore.games` registers itself with :func:`register_game`.

>>> import movecore as mc
>>> mc.solve({"game": "grid", "board": {"grid": "square4", "cells": [
...     {"at": [0, 0]}, {"at": [1, 0]}]}, "figures": [{"id": "a", "team": "red",
...     "at": [0, 0]}], "query": {"figure": "a", "budget": 1}})["ends"][1]
{'at': [1, 0], 'cost': 1, 'stopped': False}
"""
from __future__ import annotations

import contextlib
import copy
import importlib
import json
import os
import pkgutil
import sys
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, TypedDict

from .errors import MovecoreError, ScenarioError, UnknownGameError, describe

class End(TypedDict, total=False):
    """One legal end of a :func:`solve` result (``result["ends"]``). Every game gives
    ``at`` (a cell ``[q, r]``, a footprint ``[[q, r], ...]`` or a word such as Descent's
    ``"town"``) and ``cost``; the others are the game's (see docs/<game>.md): e.g.
    ``stopped`` (grid), ``stop`` (Heroscape, Descent: the reason or null), ``flags``
    (Mage Knight), ``path`` when the query asked for paths."""
    at: Any
    cost: int
    stopped: bool
    stop: "str | None"
    flags: list
    path: list


class SolveResult(TypedDict, total=False):
    """What :func:`solve` returns: the moving ``figure`` and its legal ``ends`` (cheapest
    first, the start included at cost 0), plus the game's own keys (``mp``, ``kind``,
    ``explore``...: docs/<game>.md). One-destination answers (a Dark Realms enemy move,
    a Tiny Epic Tactics knock back) carry their keys instead of ``ends``."""
    figure: Any
    ends: "list[End]"


SolveFn = Callable[[dict], dict]
_GAMES: dict[str, SolveFn] = {}
#: game -> its scenario reader (``register_game(name, read=...)``): :func:`check_scenario`
_READERS: dict[str, Callable[[dict], Any]] = {}
_loaded = False


def register_game(name: str, *, read: "Callable[[dict], Any] | None" = None
                  ) -> Callable[[SolveFn], SolveFn]:
    """Decorator: ``@register_game("heroscape")`` makes ``solve`` route that game's
    scenarios to the decorated function, which returns the result dict. ``read``: the
    game's reader of a whole scenario in its own spelling (board, options, figures and
    the query if given), raising the typed errors ``solve`` raises without answering
    the query; :func:`check_scenario` (``movecore convert``) calls it, so it should load
    no kernels. A game registered without one is checked by solving it."""
    def deco(fn: SolveFn) -> SolveFn:
        _GAMES[name] = fn
        if read is not None:
            _READERS[name] = read
        else:
            _READERS.pop(name, None)
        return fn
    return deco


#: the game packages' module names (``movecore.games``' listing, made at the first
#: :func:`_load_games`)
_game_names: "list[str] | None" = None


def _load_games(game: object = None) -> None:
    """Import the game modules (each registers itself). With ``game``: only the module
    of that name (``movecore.games.<game>``) when it registers the game, so solving one
    game's scenario loads no other game (nor their kernels); every module otherwise."""
    global _loaded, _game_names
    if _loaded:
        return
    games = importlib.import_module(__name__.rpartition(".")[0] + ".games")  # (above: found by name)
    names = _game_names
    if names is None:   # (listed once: a solve() of one game's scenario comes here each time)
        names = _game_names = [m.name for m in pkgutil.iter_modules(games.__path__)
                               if not m.name.startswith("_")]
    if isinstance(game, str) and game in names:
        # a game package registers its solve() and its live position on import
        if game not in _GAMES:
            importlib.import_module(f"{games.__name__}.{game}")
        if game in _GAMES:
            return
    for name in names:
        importlib.import_module(f"{games.__name__}.{name}")
    _loaded = True


def available_games() -> list[str]:
    """Names of every registered game vocabulary."""
    _load_games()
    return sorted(_GAMES)


def load_scenario(text: str) -> dict:
    """Parse a scenario from JSON text; :class:`ScenarioError` on bad JSON (bad syntax,
    bytes that are not UTF-8, an integer of more digits than Python reads, nesting too
    deep)."""
    try:
        data = json.loads(text)
    except RecursionError as exc:
        raise ScenarioError("scenario JSON is nested too deeply") from exc
    except ValueError as exc:   # JSONDecodeError, UnicodeDecodeError, int digit limit
        raise ScenarioError(f"scenario is not valid JSON: {str(exc)[:200]}") from None
    return data


def as_scenario(scenario: "Mapping[str, Any] | str | bytes | os.PathLike") -> Any:
    """A scenario as ``solve`` and ``position`` take it: a dict as is, JSON text parsed,
    a :class:`pathlib.Path` (any ``os.PathLike``) read from its file. A string is JSON
    text, never a file name: one that is not JSON but looks like a path says so."""
    if isinstance(scenario, os.PathLike):
        try:
            text = Path(scenario).read_text(encoding="utf-8")
        except OSError as exc:
            raise ScenarioError(f"cannot read scenario file {str(scenario)!r}: "
                                f"{exc.strerror}") from exc
        return load_scenario(text)
    if isinstance(scenario, (str, bytes)):
        head = scenario.lstrip()[:1]
        if head and head not in ("{", "[", b"{", b"[") and isinstance(scenario, str) and \
                "\n" not in scenario.strip() and (scenario.strip().endswith(".json")
                                                  or os.path.exists(scenario.strip())):
            raise ScenarioError(
                f"a scenario string is JSON text; {scenario!r} looks like a file path: "
                f"pass pathlib.Path({scenario.strip()!r}) to read the file (or "
                f"movecore.examples.load(name) for a bundled example)")
        return load_scenario(scenario)
    return scenario


#: The deepest nesting of lists and objects a scenario may use (the formats need 7).
MAX_DEPTH = 32


def clean_scenario(value, where: str = "scenario"):
    """The scenario as every reader takes it, checked once at the boundary: a JSON
    number that is a whole number is that integer wherever it stands (``6.0`` reads as
    ``6`` and ``-0.0`` as ``0``, as JSON Schema's ``integer`` says), text must be
    encodable as UTF-8 (no lone surrogates), and lists and objects nest at most
    :data:`MAX_DEPTH` levels (:class:`ScenarioError` naming where otherwise). Returns
    ``value`` itself when nothing changes, else a copy of the parts that do.

    >>> clean_scenario({"at": [1.0, -0.0], "budget": 6.0})
    {'at': [1, 0], 'budget': 6}
    """
    try:
        return _clean(value, 0)
    except _Bad as bad:
        at = where + "".join(f".{_printable(k)}" if type(k) is str else f"[{k}]"
                             for k in reversed(bad.path))
        raise bad.error(bad.message(at)) from None


def _printable(key: str) -> str:
    """A key for a message: as it is, or escaped if UTF-8 cannot encode it."""
    try:
        key.encode("utf-8")
        return key
    except UnicodeEncodeError:
        return ascii(key)


class _Bad(Exception):
    """A bad value deep in a scenario; its path is gathered while unwinding (so that
    the walk formats no path while all is well)."""

    def __init__(self, error, message):
        self.error, self.message, self.path = error, message, []


def _clean(v, depth: int):
    t = type(v)
    if t is dict or t is list or t is tuple or isinstance(v, Mapping):
        if depth >= MAX_DEPTH:
            raise _Bad(ScenarioError, lambda at: f"{at} is nested more than {MAX_DEPTH} "
                                                 f"levels deep; a scenario needs far fewer")
        new = None
        if t is dict or (t is not list and t is not tuple):
            for k, x in v.items():
                if type(k) is str and not k.isascii():
                    try:
                        _utf8(k)
                    except _Bad as bad:
                        bad.path.append(k)
                        raise
                tx = type(x)
                if (tx is int and -_BIG < x < _BIG) or tx is bool or x is None or \
                        (tx is str and x.isascii()):
                    continue
                try:
                    y = _clean(x, depth + 1)
                except _Bad as bad:
                    bad.path.append(k)
                    raise
                if y is not x or t is not dict:
                    if new is None:
                        new = dict(v)
                    new[k] = y
            return v if new is None else new
        for i, x in enumerate(v):
            tx = type(x)
            if (tx is int and -_BIG < x < _BIG) or tx is bool or x is None or \
                    (tx is str and x.isascii()):
                continue
            try:
                y = _clean(x, depth + 1)
            except _Bad as bad:
                bad.path.append(i)
                raise
            if y is not x:
                if new is None:
                    new = list(v)
                new[i] = y
        return v if new is None else (new if t is list else tuple(new))
    if isinstance(v, float):
        return int(v) if v.is_integer() else v
    if isinstance(v, int) and not isinstance(v, bool) and not -_BIG < v < _BIG:
        from .errors import LimitError
        digits = int(v.bit_length() * 0.30103) + 1
        raise _Bad(LimitError, lambda at: f"{at} is an integer of about {digits} digits; "
                                          f"JSON text stops at {_DIGITS}")
    if isinstance(v, str):
        _utf8(v)
    return v


#: Integers of more digits than Python's JSON reader takes (sys.get_int_max_str_digits)
#: are refused as in JSON text.
_DIGITS = 4300
_BIG = 10 ** _DIGITS


def _utf8(text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise _Bad(ScenarioError, lambda at: f"{at}: {describe(text)} is not text that "
                                             f"UTF-8 can encode (a lone surrogate)") \
            from None


def solve(scenario: "Mapping[str, Any] | str | os.PathLike") -> SolveResult:
    """Answer a scenario with the game's result dict: a dict, its JSON text, or a
    :class:`pathlib.Path` to a JSON file (a plain string is JSON text, not a path).

    Raises a :class:`movecore.MovecoreError` subclass on any malformed input.
    """
    scenario, game = _game_scenario(scenario)
    from .vocabulary import to_native, with_common_fields
    try:
        result = _GAMES[game](dict(to_native(scenario)))
        return with_common_fields(game, result) if scenario.get("fields") == "common" \
            else result     # (a dict of the SolveResult shape)
    except MovecoreError:
        raise
    except RecursionError as exc:
        raise ScenarioError(f"scenario is nested too deeply: {exc}") from exc


def _game_scenario(scenario) -> tuple[Mapping, str]:
    """(the scenario cleaned, its registered game) as :func:`solve` takes it."""
    scenario = as_scenario(scenario)
    if not isinstance(scenario, Mapping):
        raise ScenarioError(f"a scenario is a JSON object; got {describe(scenario)}")
    scenario = clean_scenario(scenario)
    game = scenario.get("game")
    if not isinstance(game, str):
        raise ScenarioError(f"scenario needs 'game': a game name string; got "
                            f"{describe(game)}")
    _load_games(game)
    if game not in _GAMES:
        raise UnknownGameError(f"unknown game {game!r}; expected one of {sorted(_GAMES)}")
    return scenario, game


def check_scenario(scenario: "Mapping[str, Any] | str | os.PathLike") -> dict:
    """Validate a scenario as :func:`solve` reads it, without answering its query: the
    scenario in the game's own spelling (:func:`movecore.vocabulary.to_native`), cleaned
    (:func:`clean_scenario`), or the typed error ``solve`` raises on it. The ``query`` is
    optional (as for :func:`movecore.position`); when given, its keys, values and the
    figure it names are checked. What only answering the query can find (a move too
    large for the kernels' limits, a tile revealed where it cannot go) is left to
    ``solve``. The game's reader loads no kernels (``movecore convert`` uses this); a
    game registered without a reader (:func:`register_game`) is checked by solving the
    scenario's query (without one, only its game is checked here).

    >>> check_scenario({"game": "grid", "board": {"grid": "square4", "cells": [
    ...     {"at": [0, 0]}]}, "figures": [{"id": "a", "at": [0, 0]}]})["figures"]
    [{'id': 'a', 'at': [0, 0]}]
    >>> check_scenario({"game": "grid", "board": {"grid": "square4", "cells": [
    ...     {"at": [0, 0]}]}, "figures": [{"id": "a", "at": [0, 0]}],
    ...     "query": {"figure": "b", "budget": 1}})
    Traceback (most recent call last):
    movecore.errors.QueryError: query.figure names figure 'b', which is not in the scenario; known figures: ['a']
    """
    scenario, game = _game_scenario(scenario)
    from .vocabulary import to_native
    native = dict(to_native(scenario))
    read = _READERS.get(game)
    try:
        if read is not None:
            read(dict(native))
        elif "query" in native:
            _GAMES[game](dict(native))
    except RecursionError as exc:
        raise ScenarioError(f"scenario is nested too deeply: {exc}") from exc
    return native


# ------------------------------------------------------------------------ readers
_MISSING = object()


def expect_object(value, where: str) -> dict:
    if not isinstance(value, Mapping):
        raise ScenarioError(f"{where} must be a JSON object; got {describe(value)}")
    return dict(value)


def expect_keys(obj: Mapping, where: str, allowed: Iterable[str],
                required: Iterable[str] = ()) -> None:
    """Reject unknown keys (a typo must not be silently ignored) and missing ones."""
    allowed = set(allowed) | set(required)
    for key in obj:
        if key not in allowed:
            raise ScenarioError(f"unknown key {key!r} in {where}; expected one of "
                                f"{sorted(allowed)}")
    for key in required:
        if key not in obj:
            raise ScenarioError(f"{where} needs {key!r}")


def get_int(obj: Mapping, key: str, where: str, default=_MISSING, lo: int | None = None,
            hi: int | None = None, allow_none: bool = False):
    value = obj.get(key, default)
    if value is _MISSING:
        raise ScenarioError(f"{where} needs {key!r} (an integer)")
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise ScenarioError(f"{where}.{key} must be an integer; got {describe(value)}")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        from .errors import LimitError
        rng = f"[{lo if lo is not None else '-inf'}, {hi if hi is not None else 'inf'}]"
        err = LimitError if (hi is not None and value > hi) else ScenarioError
        raise err(f"{where}.{key} must lie in {rng}; got {value}")
    return value


def get_bool(obj: Mapping, key: str, where: str, default=_MISSING) -> bool:
    value = obj.get(key, default)
    if value is _MISSING:
        raise ScenarioError(f"{where} needs {key!r} (true or false)")
    if not isinstance(value, bool):
        raise ScenarioError(f"{where}.{key} must be true or false; got {describe(value)}")
    return value


def get_str(obj: Mapping, key: str, where: str, choices: Iterable[str] | None = None,
            default=_MISSING) -> str:
    value = obj.get(key, default)
    if value is _MISSING:
        raise ScenarioError(f"{where} needs {key!r} (a string)")
    if not isinstance(value, str):
        raise ScenarioError(f"{where}.{key} must be a string; got {describe(value)}")
    if choices is not None and value not in choices:
        raise ScenarioError(f"{where}.{key} is {value!r}; expected one of {sorted(choices)}")
    return value


def get_list(obj: Mapping, key: str, where: str, default=_MISSING) -> list:
    value = obj.get(key, default)
    if value is _MISSING:
        raise ScenarioError(f"{where} needs {key!r} (a list)")
    if not isinstance(value, list):
        raise ScenarioError(f"{where}.{key} must be a list; got {describe(value)}")
    return value


def as_coord(value, where: str) -> tuple[int, int]:
    """A cell coordinate ``[q, r]`` / ``[x, y]`` as a tuple of two ints."""
    if not isinstance(value, (list, tuple)) or len(value) != 2 or any(
            isinstance(c, bool) or not isinstance(c, int) for c in value):
        raise ScenarioError(f"{where} must be a cell [q, r] of two integers; got "
                            f"{describe(value)}")
    return int(value[0]), int(value[1])


def get_coord(obj: Mapping, key: str, where: str, default=_MISSING) -> tuple[int, int]:
    value = obj.get(key, default)
    if value is _MISSING:
        raise ScenarioError(f"{where} needs {key!r} (a cell [q, r])")
    return as_coord(value, f"{where}.{key}")


def get_id(obj: Mapping, key: str, where: str) -> str:
    value = obj.get(key, _MISSING)
    if value is _MISSING:
        raise ScenarioError(f"{where} needs {key!r}")
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise ScenarioError(f"{where}.{key} must be a string or integer; got "
                            f"{describe(value)}")
    return value


# ---------------------------------------------------------------- bundled examples
def example_paths() -> list[Path]:
    """The bundled example scenarios (``movecore/examples/*.json``), sorted by name (their
    public home is :mod:`movecore.examples`: names, descriptions, ``load``)."""
    from .examples import _paths
    return list(_paths().values())


def find_example(name: str) -> Path | None:
    """The bundled example called ``name`` (with or without ``.json``), or None."""
    want = name if name.endswith(".json") else name + ".json"
    return next((p for p in example_paths() if p.name == want), None)


#: The largest scenario file :func:`read_scenario` reads (a 100,000-cell board is ~3 MiB).
MAX_SCENARIO_BYTES = 64 << 20


def read_scenario(path: str) -> dict:
    """A scenario from a file path, ``-`` (stdin) or a bundled example's name
    (:func:`find_example`): UTF-8 JSON text of at most :data:`MAX_SCENARIO_BYTES` bytes
    holding an object; :class:`ScenarioError` naming the problem otherwise (a file that
    cannot be read, is not UTF-8, is over the limit, a closed stdin: never a
    traceback)."""
    if path == "-":
        where = "stdin"
        stream = getattr(sys.stdin, "buffer", sys.stdin)
        if stream is None:
            raise ScenarioError("cannot read the scenario from stdin: it is closed")
        try:
            data = stream.read(MAX_SCENARIO_BYTES + 1)
        except (OSError, ValueError) as exc:   # a closed or unreadable descriptor
            raise ScenarioError(f"cannot read the scenario from stdin: "
                                f"{getattr(exc, 'strerror', None) or exc}") from None
    else:
        file = Path(path)
        if not file.exists():
            file = find_example(path) or file
        where = f"scenario file {path!r}"
        try:
            with open(file, "rb") as fh:
                data = fh.read(MAX_SCENARIO_BYTES + 1)
        except OSError as exc:
            raise ScenarioError(f"cannot read scenario file {path!r}: {exc.strerror} "
                                f"(movecore examples lists the bundled ones)") from None
    if len(data) > MAX_SCENARIO_BYTES:
        raise ScenarioError(f"{where} is over {MAX_SCENARIO_BYTES >> 20} MiB, the largest "
                            f"scenario movecore reads")
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ScenarioError(f"{where} is not UTF-8 text (byte {data[exc.start]:#04x} "
                                f"at offset {exc.start}): a scenario is UTF-8 JSON") \
                from None
    scenario = load_scenario(data)
    if not isinstance(scenario, dict):
        raise ScenarioError(f"{where} holds {describe(scenario)}; a scenario is a JSON "
                            f"object")
    return scenario


# ----------------------------------------------------------- what is built per scenario
class ScenarioCache:
    """At most ``size`` values built from scenario dicts, the least recently used
    dropped first. Each entry keeps a deep copy of the dict it was built from: a hit
    (the same dict, or one at the same address, and the same ``extra`` key) is answered
    only while the dict still equals that copy (values of the same types, compared with
    ``==``); a dict edited since, or another dict, is built anew."""

    def __init__(self, size: int):
        self.size = size
        self._entries: OrderedDict = OrderedDict()
        # (this thread's :meth:`held` block: its dict and the keys checked in it)
        self._held = threading.local()

    @contextlib.contextmanager
    def held(self, scenario):
        """Within the block, this thread's lookups of ``scenario`` (this very dict) compare
        it with the kept copy once per key, not at every hit: for code that builds many
        values from one dict it does not change meanwhile (a vector env's B environments;
        the compare of a large battlefield costs ~1-2 ms, most of such a build's time)."""
        before = getattr(self._held, "state", None)
        self._held.state = (scenario, set())
        try:
            yield
        finally:
            self._held.state = before

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        self._entries.clear()

    def get(self, scenario, extra, build: Callable[[], object]):
        """The value built from ``scenario`` (``build()`` when none is kept for it)."""
        key = (id(scenario), extra)
        hit = self._entries.get(key)
        held = getattr(self._held, "state", None)
        checked = held[1] if held is not None and held[0] is scenario else None
        if hit is not None and ((checked is not None and key in checked) or
                                _same(hit[0], scenario)):
            self._entries.move_to_end(key)
            if checked is not None:
                checked.add(key)
            return hit[1]
        try:
            kept = copy.deepcopy(scenario)
        except Exception:        # (not copyable: built every time, never kept)
            kept = _UNKEPT
        value = build()
        if kept is not _UNKEPT:
            self._entries[key] = (kept, value)
            self._entries.move_to_end(key)
            if checked is not None:
                checked.add(key)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)
        else:
            self._entries.pop(key, None)
        return value


_UNKEPT = object()


def _same(a, b) -> bool:
    """Whether ``b`` still holds what ``a`` (a deep copy) holds: the same types (True is
    not 1, 1.0 is not 1) and equal values, nested dicts, lists and arrays walked."""
    import numpy as np
    try:
        return _eq(a, b, np.ndarray)
    except Exception:            # (an odd value, a nesting too deep: build anew)
        return False


def _eq(a, b, ndarray) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_eq(v, b[k], ndarray) for k, v in a.items())
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_eq(x, y, ndarray) for x, y in zip(a, b))
    if isinstance(a, ndarray):
        return a.dtype == b.dtype and a.shape == b.shape and bool((a == b).all())
    return bool(a == b)
