"""The turn in progress of a Tiny Epic Tactics position: the Move actions each unit took,
the space its turn began on (the ballista rule), the villages it used (each heals once
per turn), and who may still move (:class:`_Turn`, a part of
:class:`~movecore.games.tiny_epic_tactics.Position`; not used on its own). The
scenario's turn keys (``moved``, ``turn_start``, ``villages_used``) are read by the
rules (:func:`~movecore.games.tiny_epic_tactics.rules.read_turn`).
"""
from __future__ import annotations

import numpy as np

from ...errors import QueryError
from ...kernels import _types as T
from ...reach import prepare
from .rules import MAX_ACTIONS, mover_for, villages_on

_NOT_STARTED = -1   # turn_start of a unit that took no Move action this turn


class _Turn:
    """The turn methods of :class:`~movecore.games.tiny_epic_tactics.Position`."""

    def new_turn(self) -> None:
        """Start a new turn: every unit may take its Move action again, no village is
        used and the ballista rule looks at where each unit stands now. (A Move action
        of a unit of another team than the units that moved this turn starts a new turn
        by itself.)"""
        self._record_turn(-1, -1)
        self._new_turn()

    def _new_turn(self) -> None:
        empty = frozenset()
        for i in self._movers:
            self.moves_taken[i] = 0
            self.turn_start[i] = _NOT_STARTED
            self._used[i] = empty
            self._pending[i] = ()
        self._movers = []
        self._turn_team = -1
        # (a plain move's ends do not change: a unit that moved has no Moves to keep,
        # and a unit that starts its turn on a ballista ends where it would anyway)
        self._touch()

    def moved(self, figure) -> int:
        """Move actions the unit took this turn (0, 1, or up to 3 for a last unit)."""
        return int(self.moves_taken[self._fig(figure)])

    def turn_start_of(self, figure) -> tuple[int, int]:
        """Where the unit's turn began (its space now if it took no Move action)."""
        i = self._fig(figure)
        return self.board.coord(int(self._began(i)))

    def villages_used(self, figure) -> list[tuple[int, int]]:
        """Villages the unit benefited from this turn (each heals once per turn), as
        ``(x, y)`` sorted."""
        i = self._fig(figure)
        return sorted(self.board.coord(c) for c in self._used_cells(i))

    def _began(self, i: int) -> int:
        return int(self.turn_start[i]) if self.moves_taken[i] else int(self.cell[i])

    def _used_cells(self, i: int) -> frozenset:
        """Village cells unit ``i`` used this turn (moves not yet looked at resolved
        now: the path of a move in the occupancy it was made in)."""
        if self._pending[i]:
            used = set(self._used[i])
            for start, end, budget, began, occ in self._pending[i]:
                used.update(self._path_villages(i, start, end, budget, began, occ))
            self._used[i] = frozenset(used)
            self._pending[i] = ()
        return self._used[i]

    def _path_villages(self, i, start, end, budget, began, occ) -> list[int]:
        occ = occ.copy()
        occ[start] = T.OCC_EMPTY
        flags = None
        if self._ballista[began]:
            flags = np.zeros(self.board.n_cells, np.uint8)
            flags[began] = T.CELL_BLOCKED
        r = prepare(self.board, mover_for(int(self.team[i])), budget, occupant=occ,
                    cell_flags=flags).reach(start, budget)
        return villages_on(self.realm, r.path(end).tolist(), {began})

    def _actions_left(self, i: int) -> int:
        """Move actions unit ``i`` may still take this turn (3 for the last unit)."""
        t = self.team[i]
        last = int(np.count_nonzero((self.team == t) & self.alive)) == 1
        if last:
            return MAX_ACTIONS - int(self.moves_taken[i])
        return 0 if self.moves_taken[i] else 1

    def _check_may_move(self, i: int, actions: int, asked: bool) -> None:
        left = self._actions_left(i)
        if actions <= left:
            return
        fid = self.ids[i]
        if left == 0 and self.moves_taken[i]:
            raise QueryError(f"unit {fid!r} took its Move action this turn (a single unit "
                             f"may not take the same action twice in one turn unless it "
                             f"is the only unit left); start a new turn with new_turn()")
        if asked and not self.moves_taken[i]:
            own = int(np.count_nonzero((self.team == self.team[i]) & self.alive))
            raise QueryError(f"query.actions is {actions}, but unit {fid!r} has "
                             f"{own - 1} other unit(s) on its team: a single unit may "
                             f"not take the same action twice in one turn unless it is "
                             f"the only unit left")
        raise QueryError(f"query.actions is {actions}, but unit {fid!r} took "
                         f"{int(self.moves_taken[i])} of its {MAX_ACTIONS} Move actions this "
                         f"turn: at most {left} more")
