"""The movement-only game that self-play and the RL environments play: who moves, in
what order, which query each figure asks, which ends are moves, and when a game ends.

One place for the turn rule (``movecore selfplay`` and :mod:`movecore.rl` both play
through :class:`Match`):

* The sides (a figure's ``team``; ``side`` in Descent and Dark Realms; every Mage Knight
  hero is its own side) that have a figure that moves take turns in order of first
  appearance; one side's turn is one turn.
* On its side's turn every figure of the side that may move (:meth:`Game.moves`) moves
  once, one after another in play order, each asking its legal ends (:meth:`Game.query`)
  in the position its allies' moves left. Ends that are no movement (Descent's glyph to
  town, Mage Knight ends where a hero may not stay) are not moves (:meth:`Game.usable`);
  a figure with no move left is skipped.
* A figure that ends next to an enemy removes one adjacent enemy (chosen at random) with
  probability :data:`REMOVE_CHANCE` (a seeded coin).
* The game is over as soon as fewer than two sides have figures in play; it stops
  (truncated) when ``max_turns`` turns have been played.

Pure numpy: no PettingZoo or Gymnasium here.

>>> import numpy as np, movecore as mc
>>> from movecore.rl.turns import Match
>>> pos = mc.position({"game": "grid", "board": {"grid": "square4", "cells": [
...     {"at": [x, 0]} for x in range(4)]}, "figures": [
...     {"id": "a", "team": "red", "at": [0, 0]}, {"id": "b", "team": "blue", "at": [3, 0]}],
...     "query": {"budget": 1}})
>>> m = Match("grid", pos, np.random.default_rng(0))
>>> m.side, m.figure, m.moves.actions.tolist()
('red', 'a', [0, 1])
>>> removed = m.play(1)           # the row of the end (1, 0)
>>> m.side, m.figure, m.turn
('blue', 'b', 2)
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import QueryError, describe
from ..position import grid_distance

GAMES = ("grid", "heroscape", "mage_knight", "descent", "tiny_epic_tactics", "dark_realms")
#: chance that a figure ending next to an enemy removes one adjacent enemy
REMOVE_CHANCE = 0.5
#: turns a game lasts at most unless told otherwise
DEFAULT_TURNS = 40
#: the most turns a game may last (``max_turns``, ``--turns``; a QueryError past it):
#: the compiled steps take the limit as a 64-bit integer
MAX_TURNS = 2**31 - 1


def turns_value(value, what: str = "max_turns") -> int:
    """A turn limit read at the boundary: an integer (Python's or NumPy's; not a bool)
    from 1 to :data:`MAX_TURNS`, as a Python ``int``; :class:`QueryError` naming ``what``
    and the value otherwise. The one rule of the environments' ``max_turns``, self-play's
    and ``BatchedPlay``'s.

    >>> turns_value(np.int64(12))
    12
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) \
            or not 1 <= value <= MAX_TURNS:
        raise QueryError(f"{what} must be a positive integer up to {MAX_TURNS}; got "
                         f"{describe(value)}")
    return int(value)


class Game:
    """One game's choices for the movement-only game, in the game's words: who moves,
    and which query each figure asks (``legal_moves`` keywords)."""

    name = ""
    kind = "hex"          # geometry of removal adjacency and greedy distance
    #: True: a side's figures are answered by one ``legal_moves_side`` per turn (the
    #: position accepts an end of that answer while only allies moved since)
    batch = False

    def __init__(self, pos):
        self.budget = 4

    def moves(self, pos, fid) -> bool:
        return True

    def query(self, pos, fid, rng) -> dict:
        return {}

    def queries(self, pos, figures, rng) -> list:
        """:meth:`query` of each of ``figures`` in turn (one per game of a batched
        step)."""
        return [self.query(pos, f, rng) for f in figures]

    def usable(self, pos, fid, moves) -> np.ndarray | None:
        """Rows of ``moves`` a movement-only game may take (None: all of them)."""
        return None

    #: the side that may take each special action (absent: every side)
    special_for: dict = {}

    def special(self, pos, fid) -> dict:
        """``{name: action id}``: the figure's actions that are no move to a place on the
        board (Descent's glyph to town); never listed as a place. The position's own
        ``non_move_actions(figure)`` where it has one."""
        nm = getattr(pos, "non_move_actions", None)
        return dict(nm(fid)) if nm is not None else {}

    def scenario_query(self, fid, q: dict) -> dict:
        """The scenario ``query`` object of ``legal_moves(fid, **q)``."""
        return {"figure": fid, **q}


class GridGame(Game):
    name = "grid"

    def __init__(self, pos):
        self.kind = pos.board.kind
        self.budget = pos.default_query.get("budget", 4)
        self._q = {"budget": self.budget}

    def query(self, pos, fid, rng):
        return self._q


class TinyEpicTacticsGame(Game):
    name = "tiny_epic_tactics"
    kind = "square4"
    # One batch per side per turn: the position validates a batch answer's end while
    # only allies have moved since (an end an ally took since is skipped here).
    batch = True

    def __init__(self, pos):
        self.budget = pos.default_query.get("budget", 4)
        self._q = {"budget": self.budget}

    def query(self, pos, fid, rng):
        return self._q


class HeroscapeGame(Game):
    name = "heroscape"


class MageKnightGame(Game):
    name = "mage_knight"
    # every hero is its own side; ends that are attacks (another hero), shared one-hero
    # spaces or need a forced withdrawal (can_stay 0) are no plain moves

    def __init__(self, pos):
        self.budget = pos.default_query.get("budget", 4)
        self._q = {"budget": self.budget}

    def query(self, pos, fid, rng):
        return self._q

    def usable(self, pos, fid, moves):
        return np.asarray(moves.columns["can_stay"]).nonzero()[0]


class DescentGame(Game):
    name = "descent"
    kind = "square8"
    # heroes advance (move and attack: their speed in MP), monsters move their speed;
    # a move may open doors on its path (the position keeps them open)
    _HERO = {"action": "advance"}
    _MONSTER: dict = {}
    special_for = {"town": "hero"}      # only heroes go to town

    def __init__(self, pos):
        self._town = None

    def query(self, pos, fid, rng):
        return self._HERO if pos.side_of(fid) == "hero" else self._MONSTER

    def moves(self, pos, fid) -> bool:
        return pos.where(fid) != "town"

    def usable(self, pos, fid, moves):
        # the glyph to town is no board move (a non-move action: its own id)
        if not moves.non_moves:
            return None
        return np.flatnonzero(moves.actions != moves.non_moves["town"])



class DarkRealmsGame(Game):
    name = "dark_realms"
    # heroes roll a d6 for a card "Move"; enemies run the enemy AI with a rolled Move
    # and attack range 1 (its tied choices are the legal set); summons stay put

    def __init__(self, pos):
        self.kind = pos.board.kind

    def moves(self, pos, fid) -> bool:
        return pos.side_of(fid) in ("hero", "enemy")

    def query(self, pos, fid, rng):
        roll = int(rng.random() * 6) + 1
        if pos.side_of(fid) == "hero":
            return {"roll": roll}
        return {"enemy": True, "move": roll, "attack_range": 1}

    def queries(self, pos, figures, rng) -> list:
        """:meth:`query` of each of ``figures`` in turn, from one draw of ``rng``: the
        same queries, and the same generator state after, as one call per figure
        (batched self-play asks it for every game of a step)."""
        hero = {f: pos.side_of(f) == "hero" for f in set(figures)}
        rolls = (rng.random(len(figures)) * 6).astype(np.int64) + 1
        return [{"roll": r} if hero[f] else {"enemy": True, "move": r, "attack_range": 1}
                for f, r in zip(figures, rolls.tolist())]

    def query_columns(self, hero, rng, active=None) -> dict:
        """:meth:`queries` in array form (:class:`movecore.batch.QueryColumns`), one
        entry per game: ``hero`` bool[B] (the acting figure is a hero), ``active``
        bool[B] (the game asks a query; default all). The same draws of ``rng`` as
        :meth:`queries` of the active games' figures in turn, so the same queries:
        ``{"roll": r}`` for a hero, ``{"enemy": True, "move": r, "attack_range": 1}``
        otherwise (-1 / False where a game's query leaves the keyword out)."""
        hero = np.asarray(hero, bool)
        rows = np.arange(len(hero)) if active is None else np.flatnonzero(active)
        r = np.full(len(hero), -1, np.int64)
        r[rows] = (rng.random(len(rows)) * 6).astype(np.int64) + 1
        enemy = (r >= 0) & ~hero
        return {"roll": np.where(hero, r, -1), "enemy": enemy,
                "move": np.where(enemy, r, -1), "attack_range": np.where(enemy, 1, -1)}

    def scenario_query(self, fid, q):
        if q.get("enemy") is True:
            return {**q, "enemy": fid}
        return {"figure": fid, **q}


GAME_CLASSES: dict[str, type[Game]] = {c.name: c for c in (
    GridGame, HeroscapeGame, MageKnightGame, DescentGame, TinyEpicTacticsGame,
    DarkRealmsGame)}


def game_rules(game: str, pos) -> Game:
    """The movement-only rules of ``game`` for a position of it."""
    try:
        cls = GAME_CLASSES[game]
    except KeyError:
        from ..errors import UnknownGameError
        raise UnknownGameError(f"no movement-only game for {describe(game)}; expected one "
                               f"of {list(GAMES)}") from None
    return cls(pos)


def turn_sides(rules: Game, pos) -> list:
    """The sides that take turns: those with a figure that moves, in order of first
    appearance."""
    return [s for s in pos.sides if any(rules.moves(pos, f) for f in pos.team_figures(s))]


def roster_of(pos) -> tuple:
    """``(lineup, side_of)``: each side's figures in play in play order (``{side:
    [figure]}``, the sides in order of first appearance) and every figure's side."""
    lineup = {s: pos.team_figures(s) for s in pos.sides}
    return lineup, {f: s for s, figs in lineup.items() for f in figs}


def _cells(where) -> np.ndarray:
    """int[k, 2] cells of a position's ``where`` (one coordinate or a list of them)."""
    return np.array([where] if isinstance(where, tuple) else where, np.int64).reshape(-1, 2)


class Match:
    """One movement-only game in progress on ``pos`` (played in place: pass a copy),
    driven one figure move at a time.

    After construction and after every :meth:`play` / :meth:`end_turn`, either the game
    is :attr:`over` or a figure has to choose: :attr:`side` (whose turn), :attr:`figure`
    (who moves now), :attr:`moves` (its ``legal_moves`` answer), :attr:`rows` (the rows
    of ``moves`` that are moves of this game: int array, or None for all of them) and
    :attr:`query` (the keywords it was asked with). ``rng`` (a numpy Generator) rolls the
    game's dice (Dark Realms' Move) and the removal coin: the same seed, the same game
    for the same choices.

    ``turn`` counts the turns started; ``over`` is "terminated" (fewer than two sides
    left), "truncated" (``max_turns`` turns played) or None.

    ``roster``: :func:`roster_of` ``pos`` when the caller has it already (an environment
    makes it once per scenario); figures leave play only through the match (its
    removals), so the match keeps each side's figures itself from then on.
    """

    def __init__(self, game: str, pos, rng, *, max_turns: int = DEFAULT_TURNS,
                 rules: Game | None = None, sides: list | None = None,
                 roster: tuple | None = None):
        if isinstance(max_turns, bool) or not isinstance(max_turns, (int, np.integer)) \
                or max_turns < 1:
            raise QueryError(f"max_turns must be a positive integer; got "
                             f"{describe(max_turns)}")
        self.game = game
        self.max_turns = int(max_turns)
        self.rules = rules if rules is not None else game_rules(game, pos)
        self.sides = list(sides) if sides is not None else turn_sides(self.rules, pos)
        self._usable = None if type(self.rules).usable is Game.usable else self.rules.usable
        self._may_move = None if type(self.rules).moves is Game.moves else self.rules.moves
        self._query, self._batch = self.rules.query, self.rules.batch
        self.restart(pos, rng, roster)

    def restart(self, pos, rng, roster: tuple | None = None) -> None:
        """A new game on ``pos`` (another position of the same scenario, played in
        place) with the same rules, sides and turn limit, ``rng`` rolling its dice: what
        an environment's ``reset`` does, without validating and setting up again."""
        self.pos = pos
        self.rng = rng
        lineup, self._side_of = roster if roster is not None else roster_of(pos)
        # each side's figures in play, in play order (as ``pos.team_figures``); the
        # lists are the roster's, never changed: a removal replaces its side's list
        self._lineup = dict(lineup)
        self.n_sides = len(self._lineup)    # sides with figures in play
        self.turn = 0
        self.moves_played = 0
        self.generations = 0
        self.over: str | None = None
        self.side: Any = None
        self.figure: Any = None
        self.moves = None
        self.rows: np.ndarray | None = None
        self.query: dict = {}
        self.moved: list = []        # figures of the side to move that moved this turn
        self._queue: list = []
        self._answers: dict | None = None
        self._taken: list = []
        self._advance()

    # ---------------------------------------------------------------- flow
    def _start_turn(self) -> bool:
        """Start the next side's turn; False (and ``over`` set) if the game is over."""
        sides = self.sides
        if self.n_sides < 2 or not sides:
            self.over = "terminated"
            return False
        turn = self.turn
        if turn >= self.max_turns:
            self.over = "truncated"
            return False
        side = self.side = sides[turn % len(sides)]
        self.turn = turn + 1
        self.moved = []
        figs = self._lineup.get(side)
        self._queue = figs[::-1] if figs else []       # popped from the end: play order
        if self._batch:
            q = self._query(self.pos, None, self.rng)
            self._answers = self.pos.legal_moves_side(side, **q)
            self.generations += len(self._answers)
            self._taken = []
        return True

    def _advance(self) -> None:
        """Move on to the next figure that has a move (starting turns as needed)."""
        pos = self.pos
        may_move, usable = self._may_move, self._usable
        while True:
            queue = self._queue
            if not queue:
                self.figure = self.moves = self.rows = None
                if not self._start_turn():
                    return
                continue
            fid = queue.pop()
            if may_move is not None and not may_move(pos, fid):
                continue
            answers = self._answers
            if answers is not None:
                m = answers.get(fid)
                if m is None:
                    continue
                q = m.query
                rows = None if usable is None else usable(pos, fid, m)
                taken = self._taken
                if taken:
                    # an end an ally took since the batch (the only ends it made
                    # illegal: allies do not leave play on their own turn); looked up
                    # in a list first (a few ends: cheaper than an array test)
                    acts = m.actions
                    ends = acts.tolist()
                    hit = [c for c in taken if c in ends]
                    if hit:
                        free = acts != hit[0]
                        for c in hit[1:]:
                            free &= acts != c
                        rows = np.flatnonzero(free) if rows is None else rows[free[rows]]
            else:
                q = self._query(pos, fid, self.rng)
                m = pos.legal_moves(fid, **q)
                self.generations += 1
                rows = None if usable is None else usable(pos, fid, m)
            if (len(m.actions) if rows is None else len(rows)) == 0:
                continue
            self.figure, self.moves, self.rows, self.query = fid, m, rows, q
            return

    def play(self, row: int) -> list:
        """The current figure takes the end at ``row`` of :attr:`moves` (one of
        :attr:`rows`: not checked here, the caller picked it from them), then the
        removal coin; returns the figures removed ``[(id, side)]``; the match moves on to
        the next figure (or is over)."""
        pos, m = self.pos, self.moves
        if self._answers is not None:
            self._taken.append(int(m.actions[row]))
        pos.apply_row(m, row)
        return self._moved()

    def play_action(self, action: int) -> list:
        """The current figure takes ``action`` (a position action id: a special action
        such as Descent's town, validated by ``apply_move``), then as :meth:`play`."""
        self.pos.apply_move(self.figure, int(action), **self.query)
        return self._moved()

    def _moved(self) -> list:
        pos, fid, side = self.pos, self.figure, self.side
        self.moves_played += 1
        self.moved.append(fid)
        removed = []
        rng = self.rng
        if rng.random() < REMOVE_CHANCE:
            side_of = self._side_of
            near = [f for f in pos.touching(fid) if side_of[f] != side]
            if near:
                gone = near[int(rng.random() * len(near))]
                lost = side_of[gone]
                removed.append((gone, lost))
                pos.remove_figure(gone)
                figs = [f for f in self._lineup[lost] if f != gone]
                self._lineup[lost] = figs
                if not figs:
                    del self._lineup[lost]
                    self.n_sides = len(self._lineup)
                if self.n_sides < 2:
                    self.over = "terminated"
                    self.figure = self.moves = self.rows = None
                    return removed
        self._advance()
        return removed

    def end_turn(self) -> None:
        """The side to move passes with its remaining figures (they stay put)."""
        if self.over:
            return
        self._queue = []
        self._advance()

    # ---------------------------------------------------------------- helpers
    def n_rows(self) -> int:
        return len(self.moves.actions) if self.rows is None else len(self.rows)

    def random_row(self) -> int:
        """A uniformly random usable row (one draw of ``rng``)."""
        pick = int(self.rng.random() * self.n_rows())
        return pick if self.rows is None else int(self.rows[pick])

    def greedy_row(self, rng=None) -> int:
        """A usable row at the least grid distance to an enemy figure, ties broken at
        random (one draw of ``rng``, the match's by default); random if no enemy stands
        on the board."""
        rng = self.rng if rng is None else rng
        pos, side, m, rows = self.pos, self.side, self.moves, self.rows
        enemies = [pos.where(f) for f in pos.figures if pos.side_of(f) != side]
        enemies = [w for w in enemies if not isinstance(w, str)]
        n = self.n_rows()
        if enemies:
            targets = np.concatenate([_cells(w) for w in enemies])
            ends = m.coords if rows is None else m.coords[rows]
            ends = ends.reshape(len(ends), -1, 1, 2)
            d = grid_distance(self.rules.kind, ends, targets[None, None]).min(axis=(1, 2))
            best = np.flatnonzero(d == d.min())
            pick = int(best[int(rng.random() * len(best))])
        else:
            pick = int(rng.random() * n)
        return pick if rows is None else int(rows[pick])
