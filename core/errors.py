"""Typed errors raised at movecore's public boundary (never inside kernels).

Every message names the bad value and what was expected. All derive from
:class:`MovecoreError`, which derives from :class:`ValueError` so that callers that
only know "bad input" still catch them.
"""
from __future__ import annotations


class MovecoreError(ValueError):
    """Base class of every error movecore raises on bad input."""


class ScenarioError(MovecoreError):
    """A scenario (JSON document or dict) is malformed: bad JSON, wrong types, unknown keys."""


class UnknownGameError(ScenarioError):
    """The scenario names a game no adapter is registered for."""


class BoardError(MovecoreError):
    """A board description is inconsistent: unknown grid, duplicate or off-board cells."""


class PlacementError(MovecoreError):
    """A figure stands where it cannot: off the board, on a blocked cell, on another figure."""


class QueryError(MovecoreError):
    """A query asks for something impossible: unknown figure, bad budget, bad start."""


class IllegalMoveError(QueryError):
    """A live position was asked to apply a move that is not legal there (an end the
    figure cannot reach, a state change the game does not allow); the position is left
    unchanged."""


class LimitError(MovecoreError):
    """A number does not fit the kernel dtypes (costs, heights, budgets, board size)."""


def describe(value, limit: int = 60) -> str:
    """``repr`` of a user value, shortened for error messages: a bounded preview (at most
    ``limit`` characters, nested lists and dicts shown a few levels deep), so that a huge,
    deeply nested or unprintable value never makes the message itself fail.

    >>> describe([1, {"a": (2,)}]), describe([[[[[[[[[[[0]]]]]]]]]]])
    ("[1, {'a': (2,)}]", '[[[[[[[[...]]]]]]]]')
    """
    parts: list[str] = []
    size = 0

    def emit(text: str) -> None:
        nonlocal size
        parts.append(text)
        size += len(text)
        if size > limit:
            raise _Full

    def show(v, depth: int) -> None:
        t = type(v)
        if t is dict or t is list or t is tuple:
            if depth >= _DEPTH:
                emit("...")
                return
            opening, closing = {dict: "{}", list: "[]", tuple: "()"}[t]
            emit(opening)
            items = v.items() if t is dict else v
            for k, item in enumerate(items):
                if k:
                    emit(", ")
                if t is dict:
                    show(item[0], depth + 1)
                    emit(": ")
                    item = item[1]
                show(item, depth + 1)
            emit("," + closing if t is tuple and len(v) == 1 else closing)
        else:
            emit(_atom(v, limit))

    try:
        show(value, 0)
    except _Full:
        pass
    text = "".join(parts)
    return text if len(text) <= limit else text[: limit - 3] + "..."


_DEPTH = 8


class _Full(Exception):
    """The preview is long enough."""


def _atom(value, limit: int) -> str:
    """``repr`` of a non-container value, at most about ``limit`` characters."""
    if isinstance(value, str) and len(value) > limit:
        value = value[:limit]
    try:
        text = repr(value)
    except Exception:      # an integer past Python's digit limit, a broken __repr__
        if isinstance(value, int):
            return f"<an integer of {value.bit_length()} bits>"
        return f"<{type(value).__name__}>"
    return text


def is_sequence(value) -> bool:
    """True for a list-like of items a boundary may read one by one: iterable, and not a
    string, a mapping or a 0-d array (whose iteration would be a caller's mistake)."""
    from collections.abc import Mapping

    import numpy as np
    if isinstance(value, (str, bytes, Mapping)) or not hasattr(value, "__iter__"):
        return False
    return not (isinstance(value, np.ndarray) and value.ndim == 0)


def seed_value(value, what: str = "seed", none: bool = True):
    """A seed read at the boundary: a non-negative integer (Python's or NumPy's; not a
    bool) as a Python ``int``, or None where ``none``; :class:`QueryError` naming
    ``what`` and the value otherwise. The one rule of every seed movecore takes (the
    environments' ``reset(seed=)``, self-play's ``seed``)."""
    import numpy as np
    if value is None and none:
        return None
    if value is None or isinstance(value, (bool, np.bool_)) or \
            not isinstance(value, (int, np.integer)) or value < 0:
        raise QueryError(f"{what}: a non-negative integer{' or None' if none else ''}; got "
                         f"{describe(value)}")
    return int(value)
