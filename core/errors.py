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
    """``repr`` of a user value, shortened for error messages."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def is_sequence(value) -> bool:
    """True for a list-like of items a boundary may read one by one: iterable, and not a
    string, a mapping or a 0-d array (whose iteration would be a caller's mistake)."""
    from collections.abc import Mapping

    import numpy as np
    if isinstance(value, (str, bytes, Mapping)) or not hasattr(value, "__iter__"):
        return False
    return not (isinstance(value, np.ndarray) and value.ndim == 0)
