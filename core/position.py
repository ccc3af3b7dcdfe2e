"""Live game positions: the shape every game's position takes (OpenSpiel's ``State``,
python-chess's ``Board``), for AI code that asks for legal moves, applies one, and asks
again thousands of times a second.

A position is built once (from a scenario dict with :func:`position`, or from the game's
Python objects) and holds everything that depends only on the board or the rules, packed:
the board, prepared queries per kind of mover, placement graphs, static layers. Applying a
move changes only what it touches (the occupancy of a few cells, a few engagement bits),
never rebuilds. :meth:`Position.copy` copies the per-position arrays and shares the board,
so tree search can branch cheaply.

>>> import movecore as mc
>>> pos = mc.position({"game": "grid", "board": {"grid": "square4", "cells": [
...     {"at": [x, 0]} for x in range(4)]}, "figures": [
...     {"id": "a", "team": "red", "at": [0, 0]}, {"id": "b", "team": "blue", "at": [3, 0]}],
...     "query": {"figure": "a", "budget": 2}})
>>> m = pos.legal_moves("a")
>>> m.coords.tolist(), m.costs.tolist()
([[0, 0], [1, 0], [2, 0]], [0, 1, 2])
>>> pos.apply_move("a", (2, 0))
>>> pos.legal_moves("b").coords.tolist()     # b is blocked by a, two cells away
[[3, 0]]
>>> pos.legal_moves("a").to_dicts()[0]
{'at': [2, 0], 'cost': 0, 'stopped': False}
"""
from __future__ import annotations

import hashlib
import os
import threading
from typing import Any, Callable, Mapping, TypeAlias

import numpy as np

from .errors import IllegalMoveError, QueryError, ScenarioError, describe

PositionFactory = Callable[[Mapping], "Position"]
_POSITIONS: dict[str, PositionFactory] = {}
#: game -> the module whose import registers its position (:func:`lazy_position`)
_POSITION_MODULES: dict[str, str] = {}


#: Where a figure stands: its cell, the cells of a multi-cell figure, or an off-board place.
Where: TypeAlias = tuple[int, int] | list[tuple[int, int]] | str


def register_position(name: str) -> Callable:
    """Class decorator: ``@register_position("heroscape")`` makes :func:`position` build
    that game's positions with ``cls.from_scenario(scenario)``."""
    def deco(cls):
        _POSITIONS[name] = cls.from_scenario
        cls.game = name
        return cls
    return deco


def lazy_position(name: str, module: str) -> None:
    """Declare that importing ``module`` (a dotted name) registers game ``name``'s
    position (:func:`register_position`): :func:`position` imports it on first use, so
    a game package that calls this need not import its position, nor the kernels the
    position loads, until a position is asked for."""
    _POSITION_MODULES[name] = module


def _position_factory(game) -> "PositionFactory | None":
    """The registered factory of ``game``'s positions, its position module imported
    first if the game declared it lazily (:func:`lazy_position`)."""
    if isinstance(game, str) and game not in _POSITIONS and game in _POSITION_MODULES:
        import importlib
        importlib.import_module(_POSITION_MODULES[game])
    return _POSITIONS.get(game) if isinstance(game, str) else None


def position(scenario: "Mapping[str, Any] | str | os.PathLike") -> "Position":
    """The live position of a scenario (a dict, its JSON text, or a :class:`pathlib.Path`
    to its file): its board, options and figures; its ``query`` (if any) is not used.
    Raises the same typed errors as :func:`movecore.solve` on malformed input."""
    from .scenario import _load_games, as_scenario, clean_scenario
    scenario = as_scenario(scenario)
    if not isinstance(scenario, Mapping):
        raise ScenarioError(f"a scenario is a JSON object; got {describe(scenario)}")
    scenario = clean_scenario(scenario)
    game = scenario.get("game")
    _load_games(game)
    factory = _position_factory(game)
    if factory is None:
        from .errors import UnknownGameError
        raise UnknownGameError(f"no live position for game {describe(game)}; expected one "
                               f"of {position_games()}")
    from .vocabulary import to_native
    return factory(to_native(scenario))


class _NotAnId:
    """The key :func:`figure_key` gives a value that cannot be a figure id (no figure
    index holds it)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<not a figure id>"


_NOT_AN_ID = _NotAnId()


def figure_key(figure):
    """``figure`` as a key of a figure index (id -> row): the id itself when it can be
    one (a ``str``, or an ``int`` that is not a ``bool``; a NumPy integer or string reads
    as its Python value), else a key no index holds. An id so finds only an equal id of
    the same type: ``True`` never finds figure ``1``, nor ``1.0``, ``"1"`` or ``[1]``
    (one type check and the caller's one dict lookup: O(1)).

    >>> index = {1: 0, "a": 1}
    >>> [index.get(figure_key(f), -1) for f in (1, True, 1.0, "a", ["a"])]
    [0, -1, -1, 1, -1]
    """
    t = type(figure)
    if t is str or t is int:
        return figure
    if isinstance(figure, str):
        return str(figure)
    if isinstance(figure, (int, np.integer)) and not isinstance(figure, (bool, np.bool_)):
        return int(figure)
    return _NOT_AN_ID


def new_figure_id(figure, where: str = "add_figure"):
    """A figure id given to a method that adds a figure, checked and normalised as the
    scenario readers check ids: a string UTF-8 can encode, or an integer that is not a
    boolean; :class:`QueryError` otherwise."""
    key = figure_key(figure)
    if key is _NOT_AN_ID:
        raise QueryError(f"{where}: a figure id is a string or an integer (not a "
                         f"boolean); got {describe(figure)}")
    if type(key) is str and not key.isascii():
        try:
            key.encode("utf-8")
        except UnicodeEncodeError:
            raise QueryError(f"{where}: figure id {describe(key)} is not text that UTF-8 "
                             f"can encode (a lone surrogate)") from None
    return key


def check_actions(actions, n: int, figure=None) -> np.ndarray:
    """``actions`` (one action id or an array-like of them) as an integer array, each
    checked to lie in ``[0, n)``: :class:`QueryError` naming the first bad id and the
    range otherwise (a negative id would silently index from the end, a boolean is not
    an id). Vectorised: two reductions, no Python loop.

    >>> check_actions([0, 2], 3).tolist()
    [0, 2]
    """
    a = actions if type(actions) is np.ndarray else np.asarray(actions)
    if a.dtype.kind not in "iu":
        if a.size == 0 and a.dtype.kind == "f":   # [] reads as float64
            return a.astype(np.intp)
        if a.dtype.kind == "O" and a.size and all(type(x) is int for x in a.flat):
            bad = next((x for x in a.flat if not 0 <= x < n), None)   # past int64
            if bad is not None:
                raise QueryError(f"action id {bad} is not in [0, {n})" + (
                    "" if figure is None else f" for figure {describe(figure)}"))
        raise QueryError(f"action ids must be integers in [0, {n}); got "
                         f"{describe(actions)}" + ("" if figure is None else
                                                   f" for figure {describe(figure)}"))
    if a.size and (a.min() < 0 or a.max() >= n):
        bad = a[(a < 0) | (a >= n)].flat[0]
        raise QueryError(f"action id {int(bad)} is not in [0, {n})" +
                         ("" if figure is None else f" for figure {describe(figure)}"))
    return a


def position_games() -> list[str]:
    """Names of the games that have live positions."""
    from .scenario import _load_games
    _load_games()
    return sorted(set(_POSITIONS) | set(_POSITION_MODULES))


class Moves:
    """The legal moves of one figure in one position, array-first.

    Attributes (one row per legal end, the figure's own place included at cost 0, in the
    order ``solve()`` lists its ends):
        figure:  the figure's id.
        actions: int32[E] action ids, the indices of :attr:`mask`: board cells for a
                 one-cell figure, placement ids (see the game's ``placement``) for a
                 multi-cell one.
        costs:   int32[E] least cost of each end.
        stop:    int8 or int32[E] why the move had to end there, as a code: 0 = it need
                 not, else ``position.STOP_REASONS[code]`` names the reason in the game's
                 words.
        penalty: int32[E] the least penalty reachable within the move (leaving attacks,
                 wounds; 0 where the game has none).
        columns: dict of further per-end int32[E] arrays in the game's words (for example
                 ``leaving_attacks_cost``, ``fall``), documented on the game's page.

    ``mask`` is a fixed-size bool[A] over every action of the figure's kind
    (``position.n_actions(figure)``): the Gymnasium/PettingZoo action mask.
    ``to_dicts()`` gives exactly the ``ends`` that :func:`movecore.solve` returns for the
    same query (paths if the query asked for them).
    """

    __slots__ = ("position", "figure", "actions", "costs", "_stop", "_penalty", "columns",
                 "query", "version", "_dicts", "_extra", "_mask")

    position: "Position"            #: the position that answered
    figure: "str | int"             #: the moving figure's id
    actions: np.ndarray             #: int32[E] action ids (indices of ``mask``)
    costs: np.ndarray               #: int32[E] least cost of each end
    columns: "dict[str, np.ndarray]"    #: the game's further per-end arrays
    query: "dict[str, Any]"         #: the query keys asked (the figure's excepted)
    version: int                    #: the position's version when answered

    def __init__(self, position: "Position", figure, actions: np.ndarray,
                 costs: np.ndarray, stop: np.ndarray | None = None,
                 penalty: np.ndarray | None = None, columns: dict | None = None,
                 query: dict | None = None, extra: Any = None):
        self.position = position
        self.figure = figure
        self.actions = actions
        self.costs = costs
        self._stop = stop          # None: all zeros, made when first read
        self._penalty = penalty
        self.columns = {} if columns is None else columns
        self.query = {} if query is None else query
        self.version = position.version
        self._dicts = None
        self._extra = extra  # the game's own bookkeeping (for to_dicts, paths, apply)
        self._mask = None    # made on first read of ``mask``

    @property
    def stop(self) -> np.ndarray:
        if self._stop is None:
            self._stop = np.zeros(len(self.actions), np.int8)
        return self._stop

    @stop.setter
    def stop(self, value: np.ndarray) -> None:
        self._stop = value

    @property
    def penalty(self) -> np.ndarray:
        if self._penalty is None:
            self._penalty = np.zeros(len(self.actions), np.int32)
        return self._penalty

    @penalty.setter
    def penalty(self, value: np.ndarray) -> None:
        self._penalty = value

    def __len__(self) -> int:
        return int(self.actions.shape[0])

    def __repr__(self) -> str:
        return (f"Moves(figure={self.figure!r}, {len(self)} ends: actions="
                f"{self.actions!r}, costs={self.costs!r})")

    @property
    def mask(self) -> np.ndarray:
        """bool[A] (A = ``position.n_actions(figure)``): True on every *move* the figure
        may take, the places ``apply_move`` accepts (a masked random policy picks only
        moves). Ends that are no move (another hero's space in Mage Knight) and the
        game's non-move actions (Descent's ``town``, see :attr:`non_moves`) are False.
        Made on first read and kept (read-only): nothing is paid by code that never
        reads it."""
        m = self._mask
        if m is None:
            m = np.zeros(self.position.n_actions(self.figure), dtype=bool)
            m[self.position._move_actions(self)] = True
            m.flags.writeable = False
            self._mask = m
        return m

    @property
    def non_moves(self) -> dict:
        """``{name: action id}`` of the non-move actions this figure may take now (their
        ids are ``position.non_move_actions(figure)``, never a place; for example
        Descent's ``{"town": NS}``); ``apply_move(figure, id)`` / ``apply_row`` take
        them. Empty in games without such actions."""
        return self.position._non_moves(self)

    @property
    def coords(self) -> np.ndarray:
        """int32[E, 2] (one-cell figures) or int32[E, k, 2] (k-cell placements): where
        each end puts the figure, in board coordinates."""
        return self.position.action_coords(self.figure, self.actions)

    @property
    def stale(self) -> bool:
        """True once the position has changed since these moves were generated."""
        return self.version != self.position.version

    def row(self, to) -> int:
        """Row of the end ``to`` (an action id, a coordinate, or a list of coordinates for
        a multi-cell figure); :class:`IllegalMoveError` if it is not a legal end."""
        action = self.position.action_of(self.figure, to)
        rows = np.flatnonzero(self.actions == action)
        if rows.size == 0:
            raise IllegalMoveError(f"{describe(to)} is not a legal end of figure "
                                   f"{self.figure!r} in this position")
        return int(rows[0])

    def to_dicts(self) -> list[dict]:
        """The ends in game words: exactly ``solve()``'s ``ends`` for the same query."""
        if self._dicts is None:
            self._dicts = self.position._end_dicts(self)
        return self._dicts


class LazyColumns(dict):
    """``Moves.columns`` some of whose arrays are made on first access: ``fill(*args)``
    (a dict of the missing columns) runs once, when a column not given up front is read
    or the dict is read as a whole (iteration, ``len``, ``in``, ``get``...). The game's
    ``fill`` answers for the position the moves were asked on (from copies of what it
    needs), whatever happened to the position since."""

    __slots__ = ("_fill", "_args")

    def __init__(self, given: dict, fill: Callable, args: tuple = ()):
        dict.__init__(self, given)
        self._fill = fill
        self._args = args

    def _load(self) -> None:
        fill = self._fill
        if fill is not None:
            got = fill(*self._args)
            self._fill = self._args = None
            dict.update(self, got)

    def __getitem__(self, key):
        if self._fill is not None and not dict.__contains__(self, key):
            self._load()
        return dict.__getitem__(self, key)

    def get(self, key, default=None):
        self._load()
        return dict.get(self, key, default)

    def __contains__(self, key):
        self._load()
        return dict.__contains__(self, key)

    def __iter__(self):
        self._load()
        return dict.__iter__(self)

    def __len__(self):
        self._load()
        return dict.__len__(self)

    def __eq__(self, other):
        self._load()
        return dict.__eq__(self, other)

    __hash__ = None

    def __repr__(self):
        self._load()
        return dict.__repr__(self)

    def keys(self):
        self._load()
        return dict.keys(self)

    def values(self):
        self._load()
        return dict.values(self)

    def items(self):
        self._load()
        return dict.items(self)

    def copy(self) -> dict:
        self._load()
        return dict(dict.items(self))


class Position:
    """A live game position (one subclass per game: ``movecore.games.<game>.Position``).

    Common protocol:
        figures / sides / side_of(id) / team_figures(side): who is in play.
        where(id): a coordinate, a list of them (a multi-cell figure) or a word (an
            off-board place); touching(id): the figures on a cell next to one of its
            cells; board: the Board the coordinates live on.
        legal_moves(figure, **query) -> Moves;  legal_moves_side(side, **query) ->
            {id: Moves} (one batch kernel call where the rules allow).
        apply_move(figure, to, **query): validated against ``legal_moves``; on error the
            position is unchanged.  apply_row(moves, row): the end at ``row`` of an
            answer (no search again while the answer is current).
            remove_figure(id).  copy().
        to_scenario(query) -> dict: the scenario of this position (``solve()`` of it
            answers exactly as ``legal_moves(...).to_dicts()``).
        solve(query) -> dict: ``solve()``'s result for a query dict in the game's words.
        n_actions(figure), action_of(figure, to), action_coords(figure, actions),
            non_move_actions(figure) (Descent's town: ids after the places).
        undo(): takes back the last change (repeatedly); undo_depth.
        key(): a 64-bit hash, equal for equal positions (transposition tables).
        version: an int bumped by every change (Moves remember the version they saw).

    Games add their own state changes (doors, day/night, revealed tiles...) as methods.
    """

    game = ""
    #: Stop reason names by code (code 0 = no stop); per game.
    STOP_REASONS: tuple = (None,)

    version: int = 0

    # -------------------------------------------------------------- construction
    @classmethod
    def from_scenario(cls, scenario: Mapping) -> "Position":  # pragma: no cover
        raise NotImplementedError

    def copy(self) -> "Position":  # pragma: no cover
        raise NotImplementedError

    def __copy__(self) -> "Position":
        """``copy.copy(position)`` is :meth:`copy` (a shallow copy would share the
        occupancy and figure arrays: moving it would move the original)."""
        return self.copy()

    # -------------------------------------------------------------- figures
    @property
    def figures(self) -> list[str]:  # pragma: no cover
        """Ids of the figures in play, in scenario order."""
        raise NotImplementedError

    def side_of(self, figure: str) -> str:  # pragma: no cover
        raise NotImplementedError

    @property
    def sides(self) -> list[str]:
        """The sides with figures in play, in order of first appearance."""
        return list(dict.fromkeys(self.side_of(f) for f in self.figures))

    def team_figures(self, side: str) -> list[str]:
        return [f for f in self.figures if self.side_of(f) == side]

    def where(self, figure: str) -> Where:  # pragma: no cover
        """Where a figure stands: its coordinate, or list of coordinates."""
        raise NotImplementedError

    def remove_figure(self, figure) -> None:  # pragma: no cover
        raise NotImplementedError

    def touching(self, figure) -> list:
        """Ids of the figures standing on a cell next to one of ``figure``'s cells (the
        board's geometric neighbours), in play order."""
        kind = getattr(getattr(self, "board", None), "kind", "hex")
        kind = kind if kind in ("hex", "square4") else "square8"   # as grid_distance
        # the coordinates at grid distance 1 of a cell of the figure (a set: a figure
        # touches when one of its cells is in it)
        near = {(x + dx, y + dy) for x, y in _cells(self.where(figure))
                for dx, dy in _STEPS[kind]}
        out = []
        for f in self.figures:
            if f != figure and any(tuple(c) in near for c in _cells(self.where(f))):
                out.append(f)
        return out

    # -------------------------------------------------------------- moves
    def legal_moves(self, figure, **query) -> Moves:  # pragma: no cover
        raise NotImplementedError

    def legal_moves_side(self, side: str, **query) -> dict[str, Moves]:
        """``{id: Moves}`` for every figure of ``side`` in this position (each answered as
        if it moved first). Games answer with one batch kernel call where they can."""
        return {f: self.legal_moves(f, **query) for f in self.team_figures(side)}

    def apply_move(self, figure, to, **query) -> None:  # pragma: no cover
        raise NotImplementedError

    def apply_row(self, moves: Moves, row: int) -> None:
        """Apply the end at row ``row`` of ``moves`` (an answer of this position's
        ``legal_moves`` or ``legal_moves_side``): the same as ``apply_move(moves.figure,
        moves.actions[row], **moves.query)``, for AI code that picked a row. Games whose
        answer is still current take it without searching again (a trusted fast path);
        otherwise it is validated as :meth:`apply_move` (:class:`IllegalMoveError`,
        position unchanged, if the end is no longer legal)."""
        self.apply_move(moves.figure, int(moves.actions[self._row(moves, row)]),
                        **moves.query)

    def _row(self, moves: Moves, row) -> int:
        """``row`` checked against ``moves`` (an answer of this position)."""
        if type(row) is int and type(moves) is Moves and moves.position is self and \
                0 <= row < len(moves.actions):
            return row
        if not isinstance(moves, Moves) or moves.position is not self:
            raise QueryError(f"apply_row: {describe(moves)} is not an answer of this "
                             f"position's legal_moves")
        n = len(moves.actions)
        if type(row) is not int and not isinstance(row, np.integer) or \
                isinstance(row, bool) or not 0 <= row < n:
            raise QueryError(f"apply_row: row must be an integer in [0, {n}); got "
                             f"{describe(row)}")
        return int(row)

    def n_actions(self, figure) -> int:  # pragma: no cover
        raise NotImplementedError

    def non_move_actions(self, figure) -> dict:
        """``{name: action id}`` of the figure's actions that are no move on the board
        (Descent's ``"town"``), each its own id after the places, never a place; empty
        where the game has none. ``Moves.mask`` is False on them; ``Moves.non_moves``
        lists those legal now; ``apply_move`` / ``apply_row`` take them."""
        return {}

    def _move_actions(self, moves: Moves) -> np.ndarray:
        """The action ids of ``moves`` that are moves ``apply_move`` accepts (what
        ``Moves.mask`` marks); games with other ends or non-move actions override."""
        return moves.actions

    def _non_moves(self, moves: Moves) -> dict:
        return {}

    # -------------------------------------------------------------- undo and key
    # A position records, for every change, what the change overwrote (an entry of its
    # undo log: a function and its arguments that put it back); undo() pops one. The
    # log is a persistent linked list (a copy shares its parent's log and pushes onto
    # its own head: copy() needs nothing), pickled flat.
    _undo_log: "_UndoEntry | None" = None
    _key_cache: tuple = (-1, 0)

    def _record(self, restore: Callable, *args) -> None:
        """Push an undo entry: ``restore(self, *args)`` takes the change back (it must
        not record; ``args`` are values, not arrays the position will change)."""
        self._undo_log = _UndoEntry(restore, args, self._undo_log)

    def _record_snapshot(self) -> None:
        """Push an undo entry that puts back the whole per-position state (a
        :meth:`copy` made now): for rare changes (tiles, doors, effects...) whose exact
        inverse is not worth writing; O(copy), not O(cells touched)."""
        log = self._undo_log
        self._undo_log = None          # (the snapshot keeps none: it is the state)
        snap = self.copy()
        self._undo_log = _UndoEntry(_restore_snapshot, (snap,), log)
        self._rare_key = None          # (the change that follows may change it)

    @property
    def undo_depth(self) -> int:
        """How many changes :meth:`undo` can take back (0 for a fresh position)."""
        log = self._undo_log
        return 0 if log is None else log.depth

    def undo(self) -> None:
        """Take back the last change (a move applied with ``apply_move`` / ``apply_row``,
        or one of the game's documented state changes: figures added or removed,
        doors, time of day, tiles...), like python-chess's ``Board.pop()``; call it
        again to take back the one before. The position is then equal to the one before
        the change (same legal moves, same :meth:`key`); ``version`` still grows, so
        earlier ``Moves`` read as stale. A move costs O(cells it touched) to undo.
        :class:`IllegalMoveError` if there is nothing to undo.

        >>> import movecore as mc
        >>> pos = mc.position({"game": "grid", "board": {"grid": "square4", "cells": [
        ...     {"at": [x, 0]} for x in range(3)]}, "figures": [
        ...     {"id": "a", "team": "red", "at": [0, 0]}]})
        >>> k = pos.key(); pos.apply_move("a", (2, 0), budget=2); pos.key() == k
        False
        >>> pos.undo(); pos.where("a"), pos.key() == k, pos.undo_depth
        ((0, 0), True, 0)
        """
        log = self._undo_log
        if log is None:
            raise IllegalMoveError("undo: nothing to undo (no change since the position "
                                   "was built)")
        self._undo_log = log.prev
        log.restore(self, *log.args)
        self._undo_log = log.prev       # (a restore may have replaced the attributes)
        self._touch()

    def key(self) -> int:
        """A 64-bit hash of the position (an int in [0, 2**64)) for transposition tables:
        equal for equal positions, however they were reached (move orders, undo), and
        different for different ones (a collision needs ~2**32 positions). Deterministic
        across processes (not Python's salted ``hash``); cached until the next change.

        >>> import movecore as mc
        >>> sc = {"game": "grid", "board": {"grid": "square4", "cells": [
        ...     {"at": [x, 0]} for x in range(4)]}, "figures": [
        ...     {"id": "a", "team": "red", "at": [0, 0]},
        ...     {"id": "b", "team": "red", "at": [3, 0]}]}
        >>> p, q = mc.position(sc), mc.position(sc)
        >>> p.apply_move("a", (1, 0), budget=1); p.apply_move("b", (2, 0), budget=1)
        >>> q.apply_move("b", (2, 0), budget=1); q.apply_move("a", (1, 0), budget=1)
        >>> p.key() == q.key() != mc.position(sc).key()
        True
        """
        v, k = self._key_cache
        if v == self.version:
            return k
        h = hashlib.blake2b(digest_size=8)
        update = h.update
        for part in self._key_parts():
            if type(part) is np.ndarray:
                update(part.dtype.str.encode())    # (not str(dtype): 10 us)
                update(part.tobytes())
            else:
                update(repr(part).encode())
            update(b"|")
        k = int.from_bytes(h.digest(), "little")
        self._key_cache = (self.version, k)
        return k

    _rare_key: str | None = None

    def _rare_part(self) -> str:
        """A digest of the canonical text of the state that changes rarely or never
        (the board, options, doors, tiles, time of day...: what every change recorded
        with :meth:`_record_snapshot` may change), made once per such change."""
        r = self._rare_key
        if r is None:
            r = self._rare_key = hashlib.blake2b(repr(self._rare_state()).encode(),
                                                 digest_size=16).hexdigest()
        return r

    def _rare_state(self):
        """Default: the scenario of the position but its figures and query."""
        import json
        return json.dumps({k: v for k, v in self.to_scenario().items()
                           if k not in ("figures", "query")}, sort_keys=True, default=str)

    def _key_parts(self) -> tuple:  # pragma: no cover
        """The position's mutable state, canonically (arrays, and values whose repr is
        canonical): what :meth:`key` hashes. Equal positions give equal parts."""
        raise NotImplementedError

    def action_of(self, figure, to) -> int:  # pragma: no cover
        raise NotImplementedError

    def action_coords(self, figure, actions) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    def _end_dicts(self, moves: Moves) -> list[dict]:  # pragma: no cover
        raise NotImplementedError

    # -------------------------------------------------------------- scenario form
    def to_scenario(self, query: Mapping | None = None) -> dict:  # pragma: no cover
        raise NotImplementedError

    def solve(self, query: Mapping) -> dict:  # pragma: no cover
        raise NotImplementedError

    # -------------------------------------------------------------- helpers for games
    # A position that keeps its figures as ``ids`` (list), ``index`` (id -> row),
    # ``alive`` (per row) and ``team_name`` (side per row), with ``_figures`` = None, gets
    # ``figures``, ``team_figures``, ``_fig`` and ``_touch`` from here.
    def _touch(self) -> None:
        """Record a change (every mutating method calls it once)."""
        self.version += 1
        self._figures = None

    def _listed_figures(self) -> list:
        f = self._figures
        if f is None:
            f = self._figures = [fid for fid, a in zip(self.ids, self.alive) if a]
        return list(f)

    def _listed_team_figures(self, side) -> list:
        return [fid for fid, t, a in zip(self.ids, self.team_name, self.alive)
                if a and t == side]

    def _listed_touching(self, figure) -> list:
        """``touching()`` of a position whose figures each stand on one cell
        (``self.cell``, ``self.board``): the figures on the board's geometric neighbours
        of ``figure``'s cell, in play order."""
        i = self._fig(figure)
        near = self.board.nbr[self.cell[i]].tolist()     # (its -1 pads are no cell)
        return [fid for fid, c, a in zip(self.ids, self.cell.tolist(), self.alive.tolist())
                if a and c in near]

    def _fig(self, figure) -> int:
        """The row of a figure in play; :class:`QueryError` naming it otherwise."""
        t = type(figure)     # (a str or int id is its own key: figure_key's first test)
        i = self.index.get(figure if t is str or t is int else figure_key(figure), -1)
        if i < 0 or not self.alive[i]:
            raise self._figure_error(figure)
        return i

    def _figure_error(self, figure) -> QueryError:
        return QueryError(f"unknown figure {describe(figure)}; figures in play: "
                          f"{self.figures}")


class _UndoEntry:
    """One node of a position's undo log (see :meth:`Position.undo`)."""

    __slots__ = ("restore", "args", "prev", "depth")

    def __init__(self, restore, args, prev):
        self.restore, self.args, self.prev = restore, args, prev
        self.depth = 1 if prev is None else prev.depth + 1

    def __reduce__(self):    # flat: a deep log must not pickle recursively
        items = []
        e = self
        while e is not None:
            items.append((e.restore, e.args))
            e = e.prev
        return (_undo_log_of, (items,))


def board_fingerprint(board) -> str:
    """A deterministic hex digest of a :class:`movecore.Board` (geometry, cell data,
    links, edges): part of a position's :meth:`Position.key`."""
    h = hashlib.blake2b(digest_size=16)
    h.update(str(board.kind).encode())
    for a in (board.coords, board.cell_data, board.nbr, board.link_ptr, board.link_data,
              board.edges):
        a = np.ascontiguousarray(a)
        h.update(f"{a.dtype}{a.shape}".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def _undo_log_of(items) -> _UndoEntry | None:
    log = None
    for restore, args in reversed(items):
        log = _UndoEntry(restore, args, log)
    return log


def _restore_snapshot(pos, snap) -> None:
    """Undo entry of :meth:`Position._record_snapshot`: ``pos`` becomes the copy made
    before the change (its arrays, layers and prepared queries: all its own)."""
    version = pos.version
    d = pos.__dict__
    d.clear()
    d.update(snap.copy().__dict__)    # (a copy: the log entry may be pickled, shared)
    pos.version = version


class CellActions:
    """The action space of a game whose figures each stand on one cell: an action id is
    a board cell (``self.board``; ``self._cell(to, what)`` reads a cell or coordinate)."""

    def n_actions(self, figure) -> int:
        """The board's cells (the figure must be in play)."""
        self._fig(figure)
        return self.board.n_cells

    def action_of(self, figure, to) -> int:
        self._fig(figure)
        return self._cell(to, "to")

    def action_coords(self, figure, actions) -> np.ndarray:
        """int32[E, 2] the coordinates of cells ``actions`` (ids in ``[0, n_actions)``,
        :class:`QueryError` otherwise)."""
        self._fig(figure)
        return self.board.coords[check_actions(actions, self.board.n_cells, figure)]


def bind_occupant(prepared, occ: np.ndarray, **layers: np.ndarray):
    """``prepared`` (a :class:`movecore.Prepared`; board and mover packing, layers and
    parameters shared) reading the occupant layer ``occ`` (int32[N]) itself: a write to
    ``occ`` is what its next query sees, so a position whose prepared queries all read
    its own ``occ`` moves a figure with one write, and a copy rebinds them to its own
    ``occ`` in O(1). The layer is marked occupied (an empty one is only slower to read),
    so a figure stepping on needs no flag. Only for queries whose other layers nobody
    changes (they are shared with ``prepared``), or that are given in ``layers`` too:
    ``enter_pen`` (int32[N]), ``qflags`` (uint8[N]) or ``zoc`` (uint64[N]), the
    position's own arrays of the kernel type (``prepared`` was prepared with them),
    read as they are."""
    from .kernels import _types as T
    from .reach import Prepared
    p = prepared._q
    params = p.params
    if not params[T.P_HAS_OCC]:
        params = params.copy()
        params[T.P_HAS_OCC] = 1
    try:   # a field-for-field copy (dataclasses.replace re-runs __init__: 10x dearer)
        new = object.__new__(type(p))
        new.__dict__.update(p.__dict__)
        for k, v in (("occupant", occ), ("params", params), ("one", None)):
            object.__setattr__(new, k, v)
        for k, v in layers.items():
            if k not in ("enter_pen", "qflags", "zoc") or getattr(p, k).shape != v.shape or \
                    getattr(p, k).dtype != v.dtype:
                raise ValueError(f"bind_occupant: cannot bind {k}")  # pragma: no cover
            object.__setattr__(new, k, v)
    except AttributeError:  # pragma: no cover (a query type without __dict__)
        from dataclasses import replace
        new = replace(p, occupant=occ, params=params, one=None, **layers)
    return Prepared(new, prepared.mover)


def fresh_lock() -> threading.RLock:
    """A new lock for :func:`locked` (each position its own: a copy makes another)."""
    return threading.RLock()


def locked(method: Callable) -> Callable:
    """Method decorator: the method runs holding the position's own ``_lock`` (a
    ``threading.RLock`` each position makes for itself, never shared by copies), so that
    threads sharing one position take turns in it. For games whose queries bring lazily
    kept layers up to date in place (see docs/ai.md, "Threads")."""
    import functools

    @functools.wraps(method)
    def run(self, *args, **kwargs):
        lock = self._lock      # (acquire/release: a third cheaper than ``with`` here)
        lock.acquire()
        try:
            return method(self, *args, **kwargs)
        finally:
            lock.release()
    return run


#: Held while a position builds something it shares with its copies on first use (a
#: prepared query of a new kind of mover): built once, whole, then published.
BUILD_LOCK = threading.RLock()


def shared_prepared(protos: dict, key, budget: int, make: Callable, bound=None,
                    least: int = 0):
    """The prepared query ``protos[key]`` (a dict that a position shares with its
    copies) answering ``budget``: where it is missing or answers less, made under
    :data:`BUILD_LOCK` (checked again there: built once, whole, then published) by
    ``make(top)``, ``top`` = ``max(budget, least, 2 * bound.max_budget)`` capped at the
    kernels' budget limit (``bound``: the query it replaces, or None; room to grow, so
    that a rising budget rebuilds rarely). ``make`` builds nothing when it is not
    needed: the hit is one dict look-up."""
    proto = protos.get(key)
    if proto is None or proto.max_budget < budget:
        with BUILD_LOCK:
            proto = protos.get(key)
            if proto is None or proto.max_budget < budget:
                from .kernels import _types as T
                top = max(budget, least, 2 * bound.max_budget if bound is not None else 0)
                proto = protos[key] = make(min(top, T.MAX_BUDGET))
    return proto

_scratch = threading.local()


def scratch_rows(k: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """This thread's scratch for one kernel call of a position (``Prepared._run_into``):
    (int64[k, 3] query rows, int32[3, k * n] end columns) for ``k`` queries on a board
    of ``n`` cells, reused by every position this thread asks (positions keep no
    scratch of their own, so threads may share a position and a copy costs no buffer).
    Valid until the thread's next call: copy out what is kept."""
    try:
        return _scratch.rows[k, n]
    except (AttributeError, KeyError):
        pass
    rows = getattr(_scratch, "rows", None)
    if rows is None or len(rows) > 32:
        rows = _scratch.rows = {}
    got = rows[k, n] = (np.zeros((k, 3), np.int64), np.empty((3, k * n), np.int32))
    return got


def cell_index(board, at, what: str, place: str = "on the board") -> int:
    """A cell given as an index or a coordinate, checked: :class:`QueryError` naming
    ``what`` and the value otherwise (``place`` words where it is missing)."""
    if isinstance(at, (int, np.integer)) and not isinstance(at, bool):
        if not 0 <= at < board.n_cells:
            raise QueryError(f"{what}: {at} is not a cell index in [0, {board.n_cells})")
        return int(at)
    from .scenario import as_coord
    c = board.find(as_coord(at, what))
    if c < 0:
        raise QueryError(f"{what}: {list(at)} is not {place}")
    return c


#: The offsets to the cells at grid distance 1 (see :func:`grid_distance`).
_STEPS = {"hex": ((1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1)),
          "square4": ((1, 0), (-1, 0), (0, 1), (0, -1)),
          "square8": tuple((dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)
                           if dx or dy)}


def _cells(where) -> list:
    """A ``where`` (one coordinate, or a list of them) as a list of coordinates."""
    return [where] if isinstance(where, tuple) else list(where)


def grid_distance(kind: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Grid distance between coordinate rows ``a[..., 2]`` and ``b[..., 2]`` (broadcast):
    hex (axial), square4 (Manhattan) or square8 (Chebyshev)."""
    dq = a[..., 0] - b[..., 0]
    dr = a[..., 1] - b[..., 1]
    if kind == "hex":
        return (np.abs(dq) + np.abs(dr) + np.abs(dq + dr)) // 2
    if kind == "square4":
        return np.abs(dq) + np.abs(dr)
    return np.maximum(np.abs(dq), np.abs(dr))
