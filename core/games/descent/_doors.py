"""Door states and rune keys of a live Descent position (private to
:mod:`movecore.games.descent`): :class:`_DoorStates`, the part of
:class:`~movecore.games.descent.Position` that opens, closes and reveals doors and
gives the party rune keys; each change re-links every kind's graph to the new door
vector (:meth:`._kind_graph._KindGraph.links`).
"""
from __future__ import annotations

from ...errors import IllegalMoveError, QueryError, describe
from . import rules as D
from ._dungeon import door_states


class _DoorStates:
    """Doors and rune keys (a part of :class:`~movecore.games.descent.Position`: it
    reads and writes the position's ``door_open``, ``door_unrevealed``, ``rune_keys``
    and ``kstate``)."""

    def _door_vectors(self) -> tuple:
        """Per side (0 hero, 1 monster): the door vector, per door OPEN, OPENABLE or
        SHUT for that side."""
        states = [door_states(door, self.door_open[k], self.door_unrevealed[k],
                              self.rune_keys)
                  for k, door in enumerate(self.st.dungeon.doors)]
        return (tuple(h for h, _ in states), tuple(m for _, m in states))

    def _doors_changed(self) -> None:
        self._relink()
        self._last = None
        self._touch()

    def _relink(self) -> None:
        """Every kind's links after door states changed."""
        self._dv = self._door_vectors()
        self._own_kinds()
        for ks in self.kstate.values():
            dv = self._dv[ks.g.team]
            if dv != ks.dv:
                ks.set_links(dv, ks.g.links(dv))

    def _door(self, name) -> int:
        try:
            k = self.st.door_index.get(name, -1)
        except TypeError:
            k = -1
        if k < 0:
            raise QueryError(f"unknown door {describe(name)}; doors: "
                             f"{list(self.st.door_index)}")
        return k

    def door_is_open(self, name) -> bool:
        return self.door_open[self._door(name)]

    @property
    def doors(self) -> dict:
        """``{door id: "open" | "closed"}``."""
        return {door.id: "open" if self.door_open[k] else "closed"
                for k, door in enumerate(self.st.dungeon.doors)}

    def open_door(self, name) -> None:
        """Open a closed door (whoever opens it: the position does not charge the 2 MP;
        :meth:`apply_move` opens the doors its path crosses). An open door costs nothing
        to cross, for every figure, rune or not. :class:`IllegalMoveError` if it is
        already open."""
        k = self._door(name)
        if self.door_open[k]:
            raise IllegalMoveError(f"door {name!r} is already open")
        self._record_snapshot()
        self.door_open[k] = True
        self._doors_changed()

    def close_door(self, name) -> None:
        """Close an open door (rulebook: open or close for 2 MP from an adjacent square;
        the position does not charge it). :class:`IllegalMoveError` if it is already
        closed or a figure's base straddles it."""
        k = self._door(name)
        if not self.door_open[k]:
            raise IllegalMoveError(f"door {name!r} is already closed")
        sides = self.st.dungeon.doors[k].sides
        for i, alive in enumerate(self.alive):
            if alive and self.anchor[i] >= 0 and self.size[i] != (1, 1):
                cells = D.footprint_cells(self.st.squares[self.anchor[i]], self.size[i])
                if any(D._side(a, b) in sides for a, b in D._internal_sides(cells)):
                    raise IllegalMoveError(f"door {name!r} cannot close: "
                                           f"{self.ids[i]!r} stands across it")
        self._record_snapshot()
        self.door_open[k] = False
        self._doors_changed()

    def reveal(self, name) -> None:
        """The area behind door ``name`` is revealed: monsters may open it from now on
        (``leads_to_unrevealed`` becomes false). :class:`IllegalMoveError` if it was
        not marked as leading to an unrevealed area."""
        k = self._door(name)
        if not self.door_unrevealed[k]:
            raise IllegalMoveError(f"door {name!r} does not lead to an unrevealed area")
        self._record_snapshot()
        self.door_unrevealed[k] = False
        self._doors_changed()

    def add_rune_key(self, rune: str) -> None:
        """The party gains the rune key ``rune``: its heroes may open doors of that rune.
        :class:`IllegalMoveError` if the party holds it already."""
        if not isinstance(rune, str):
            raise QueryError(f"a rune key is a name (string); got {describe(rune)}")
        if rune in self.rune_keys:
            raise IllegalMoveError(f"the party already holds the {rune!r} rune key")
        self._record_snapshot()
        self.rune_keys = self.rune_keys | {rune}
        self._doors_changed()
