"""Dark Realms on the batched arrays backend (:class:`movecore.batch.BatchedGames`).

A Dark Realms move changes nothing but the figure's space (and the occupancy layer):
the traps, obstacles and rifts stay, a trap a hero walks over is not taken away, and
only a Stamina-only move (``stamina_only``) also marks the hero, which batched games do
not take. So one game's state is its figures' spaces and who is in play, and

* a **card move** (``move`` N, or ``roll`` r [+ ``bonus``], [+ ``stamina``]: a hero's
  rolled die) is the prepared query of the figure's kind (team, flying), the same
  :class:`movecore.Prepared` the position answers with, over the game's occupant row:
  one query shape per kind, the **budget per game and move** (the card plus the Stamina,
  ``BatchLayout.query_budget``). On a board with traps a walker's move is a penalty query
  on the position (traps as a second objective: the fewest traps per end); traps never
  block, cost nothing and never stop a move, so its ends and their least costs -- the
  batched answer's mask and costs -- are those of the same query without the trap layer
  (the penalty kernel keeps every end the plain one reaches, at the same least cost);
  the trap counts per end are not in the batched answer (ask the game's position);
* an **enemy AI move** (``enemy=True``: a target tier, then per target a forward
  search, a reverse search and a lexicographic pick) is answered for every game that
  asks one in one compiled call over the arrays (:mod:`._batch_enemy`,
  ``BatchLayout.compiled``), within the live position's own fast path (melee, allies
  not passed, traps walked around by any detour, a Move within the shape's budget);
* **every other query** (such an enemy move outside that scope: an attack range above
  1, ``pass_allies``, a ``trap_detour_limit``; ``die``, ``teleport``, ``paths``, a card
  beyond the shape's budget) is answered by a live position made from the game's
  arrays (the per-position path inside the same API), exact because such a move, too,
  changes nothing but the figure's space; a ``stamina_only`` move is refused
  (QueryError).

The batched answer equals :meth:`Position.legal_moves` (``tests/test_batch.py``,
``tests/test_batch_dark_realms.py``).
"""
from __future__ import annotations

from typing import Mapping

import numpy as np

from ...errors import QueryError
from ...kernels import _types as T
from .rules import MAX_MOVE


def batch_layout(pos, query: Mapping):
    """(:class:`movecore.batch.BatchLayout`, None) for batched games of ``pos``; every
    figure slot asks ``query`` unless ``legal_moves(queries=)`` gives each game its own."""
    from ...batch import BatchLayout
    figs = list(pos.scene.figures)
    faces = pos._faces
    # one shape per kind of mover; its ``max_budget`` covers a die roll plus a bonus and
    # Stamina of a few spaces (a dearer card is answered on a position)
    top = min(max(2 * faces + 8, 16), T.MAX_BUDGET)
    keys = list(dict.fromkeys((f.team, f.flying) for f in figs))
    shapes = [pos._query_for(k, next(f for f in figs if (f.team, f.flying) == k), top,
                             False) for k in keys]
    if not all(p.fast for p in shapes):  # pragma: no cover (millions of spaces)
        return None, "the board is too large for the packed kernel"
    # a walker's move over traps: the position's penalty query (traps as a second
    # objective), for the trap counts per end (``legal_moves(penalty=)``)
    pens = [pos._query_for((t, "traps"), next(f for f in figs if (f.team, f.flying) ==
                                              (t, fl)), p.max_budget, True)
            if pos._n_traps and not fl else None for (t, fl), p in zip(keys, shapes)]
    if not all(p is None or p._q.pblob is not None for p in pens):  # pragma: no cover
        return None, "the board is too large for the packed penalty kernel"
    tops = np.array([p.max_budget for p in shapes], np.int64)
    shape_of = np.array([keys.index((f.team, f.flying)) for f in figs], np.int64)

    def query_budget(slot: int, q: Mapping) -> int:
        """The budget of slot ``slot``'s shape that answers ``q`` exactly, or -1 (a
        live position answers it)."""
        f = figs[slot]
        card = pos._fast_card(f, q)
        if card >= 0:
            b = card + q.get("stamina", 0)
            return b if b <= tops[shape_of[slot]] else -1
        if q.get("stamina_only"):
            raise QueryError("a Stamina-only move also marks the hero: batched games do "
                             "not take it (ask the game's position)")
        return -1

    hero = np.array([f.side == "hero" for f in figs], bool)
    faces = pos._faces

    def query_columns(slots: np.ndarray, cols: dict):
        """:func:`query_budget` and the enemy AI's Move (``BatchEnemyAI.move_of``) of
        every game's query at once, from the queries' arrays (``QueryColumns``: -1 /
        False = keyword left out): the same answers as those functions give for each
        game's query dict (``tests/test_batch_dark_realms.py`` compares them)."""
        for k in ("move", "roll", "bonus", "stamina", "attack_range"):
            if k in cols and cols[k].dtype.kind == "b":
                raise QueryError(f"queries[{k!r}] must be integers; got booleans")
        if "enemy" in cols and cols["enemy"].dtype.kind != "b":
            raise QueryError("queries['enemy'] must be booleans (True: the enemy AI's "
                             f"move); got {cols['enemy'].dtype}")
        if set(cols) - {"move", "roll", "bonus", "stamina", "enemy", "attack_range"}:
            # another keyword (die, teleport, paths, ...): each game's dict, in turn
            qc = [{k: True if a.dtype.kind == "b" else int(a[b]) for k, a in cols.items()
                   if (a[b] if a.dtype.kind == "b" else a[b] != -1)}
                  for b in range(len(slots))]
            return np.array([query_budget(s, q) if s >= 0 else -1
                             for s, q in zip(slots.tolist(), qc)], np.int64), None
        B = len(slots)
        none = np.full(B, -1, np.int64)
        s = np.maximum(slots, 0)

        def col(k):
            return cols[k] if k in cols else none
        mv, rl, bo, st, ar = (col(k) for k in ("move", "roll", "bonus", "stamina",
                                               "attack_range"))
        has_m, has_r, has_b, has_s, has_a = mv >= 0, rl >= 0, bo >= 0, st >= 0, ar >= 0
        en = cols["enemy"] if "enemy" in cols else np.zeros(B, bool)
        roll_ok = (rl >= 1) & (rl <= faces)
        small = lambda a: a <= MAX_MOVE     # noqa: E731 (values are >= -1 already)
        # a card move (Position._fast_card, then the shape's budget)
        card = np.where(has_m, mv, rl + np.maximum(bo, 0))
        b = card + np.maximum(st, 0)
        ok = ~en & ~has_a & (has_m != has_r) & ~(has_b & has_m) & small(mv) & \
            small(rl) & small(bo) & small(st) & (~has_r | roll_ok) & \
            ~(has_s & (st != 0) & ~hero[s]) & (b <= tops[shape_of[s]])
        budget = np.where(ok & (slots >= 0), b, -1)
        # an enemy AI move (BatchEnemyAI.move_of: attack range 1, move N or roll r
        # [+ bonus], nothing else)
        if ai.slot_ok.any():
            e = en & ai.slot_ok[s] & (~has_a | (ar == 1)) & ~has_s
            by_move = e & has_m & ~has_r & ~has_b & (mv <= MAX_MOVE)
            by_roll = e & ~has_m & has_r & roll_ok & small(bo)
            m = np.where(by_move, mv, rl + np.maximum(bo, 0))
            pre = np.where((by_move | by_roll) & (m <= ai.top) & (slots >= 0), m, -1)
        else:
            pre = None
        return budget, pre

    try:
        budget = np.array([query_budget(i, query) for i in range(len(figs))], np.int64)
    except QueryError as e:
        return None, str(e)
    slots = {f.id: i for i, f in enumerate(figs)}

    def restore(p, occ, cell, alive):
        """Make ``p`` (a copy of ``pos``, or a position this made from one and that
        has not changed since) hold one batched game's figures: every figure's space,
        the figures out of play (gone for good: a reset makes a new copy), the
        occupancy layer; nothing else differs from the root in movement-only play."""
        p._own_figures()
        keep = []
        for f in p.scene.figures:
            i = slots[f.id]
            if alive[i]:
                f.cell = int(cell[i])
                keep.append(f)
            else:
                del p.index[f.id]
        p.scene.figures = keep
        p.occ[:] = occ          # in place: the prepared queries read this layer
        p._touch()

    # the enemy AI's moves: one compiled call over the batch where its rules allow
    from ._batch_enemy import BatchEnemyAI
    ai = BatchEnemyAI(pos, top)
    return BatchLayout(occ=pos.occ.copy(),
                       cell=np.array([f.cell for f in figs], np.int32),
                       team=np.array([f.team for f in figs], np.int32),
                       shapes=shapes, shape_of=shape_of,
                       budget=budget, restore=restore, query_budget=query_budget,
                       query_columns=query_columns,
                       penalty=pens,
                       compiled=ai if ai.slot_ok.any() else None), None
