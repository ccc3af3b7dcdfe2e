"""Mage Knight on the batched arrays backend (:class:`movecore.batch.BatchedGames`).

A Mage Knight move in movement-only play changes nothing but the hero's space: heroes
never block a move (they are passed freely), and the map, the time of day, the effects,
the keeps and the rampaging enemies stay as they are (no tile is revealed, no site
conquered, no enemy defeated: those are :meth:`Position.reveal_tile`, ``conquer``,
``defeat_enemy``, which batched games do not take). So one game's state is its heroes'
spaces and who is in play, and a hero's move is

* the kernel's ends of the prepared query of its cost table and player (a player owning
  a keep has its own assault spaces): one query shape per player key, the same
  :class:`movecore.Prepared` the position answers with;
* less the ends where the hero may not stay (``columns["can_stay"]`` 0): a space that
  holds one hero while another hero stands on it (an attack, or a space no one shares),
  and a lake or mountain entered by an effect (a forced withdrawal);
* with the stop codes of the position: 1 on an assault space, 2 elsewhere (a move that
  provoked a rampaging enemy).

These are the end rules of :class:`movecore.batch.BatchLayout`, as data: the batched
answer equals :meth:`Position.legal_moves` (``tests/test_batch.py``).
"""
from __future__ import annotations

from typing import Mapping

import numpy as np

from ...kernels import _types as T
from ._layers import _TABLE_ARRAYS


def batch_layout(pos, query: Mapping):
    """(:class:`movecore.batch.BatchLayout`, None) for batched games of ``pos`` asking a
    normal move (``budget`` alone, or the scenario's default budget), or (None, why)."""
    from ...batch import BatchLayout
    b = query.get("budget") if set(query) == {"budget"} else \
        pos.default_query.get("budget") if not query else None
    if type(b) is not int or not 0 <= b <= T.MAX_BUDGET:
        return None, "only a normal move (budget alone) is batched"
    L = pos._L
    slots = np.flatnonzero(pos.alive)
    table = pos._table_key[pos.time]
    # one shape per player key (a hero owning a keep assaults other spaces)
    pkeys = [pos.ids[i] if pos.ids[i] in L.keeps_of else None for i in slots.tolist()]
    keys = list(dict.fromkeys(pkeys))
    shapes = [pos._prepared((table, k, True), b) for k in keys]
    if not all(p.fast for p in shapes):  # pragma: no cover (millions of spaces)
        return None, "the map is too large for the packed kernel"
    n = L.n
    # a stopped end: 1 on the player's assault spaces, else 2 (provoked)
    stop_code = np.stack([np.where(pos._player(k)[1], 1, 2) for k in keys]).astype(np.int8)
    holds_many = L.holds_many.copy()
    # spaces a hero may not stay on that a move can enter (a lake or mountain an effect
    # lets it enter; rampaging enemies' spaces are never entered)
    enterable = np.asarray(_TABLE_ARRAYS[table])[pos.board.terrain] >= 0
    no_end = ~L.accessible & ~L.rampaging & enterable
    team_list = np.asarray(pos.team_list, np.int32)

    def restore(p, occ, cell, alive):
        """Make ``p`` (a copy of ``pos``) hold one batched game's heroes."""
        p.alive[slots] = alive
        p.cell[slots] = np.where(alive, cell, p.cell[slots])
        p.team_at[:] = -1
        on = np.flatnonzero(p.alive)
        c = p.cell[on]
        one = ~holds_many[c]
        p.team_at[c[one]] = team_list[on[one]]
        p._touch()

    return BatchLayout(occ=np.full(n, T.OCC_EMPTY, np.int32),
                       cell=pos.cell[slots].copy(),
                       team=np.full(len(slots), T.OCC_EMPTY, np.int32),  # never block
                       shapes=shapes,
                       shape_of=np.array([keys.index(k) for k in pkeys], np.int64),
                       budget=np.full(len(slots), b, np.int64), restore=restore,
                       one_figure=~holds_many, no_end=no_end,
                       stop_code=stop_code), None
