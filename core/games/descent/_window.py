"""The part of a big Descent dungeon one move can reach (private to
:mod:`movecore.games.descent`): ``solve()`` of a board much larger than the move builds
its position on the box round the mover that the move cannot leave (:func:`_reach_window`),
so that a one-off query costs what the figure can reach, not the whole board.

Why the box holds every answer: each link of a kind's graph costs 1 MP or more and moves
the base's anchor at most one square (a step; a pit jump moves k + 1 squares for 3k MP),
or, for a base that turns, at most ``|w - h| + 1`` squares (:func:`rules.turn_offsets`).
So a move of ``mp`` MP keeps its anchor within ``r = mp * that`` squares of the start and
its base within the anchors' box widened by the base. Whatever decides a step of such a
base (walls and doors on its edges and round the corner of a diagonal, a door it may open
from where it stands, an enemy next to it, a pit it jumps) lies within one square of
the squares it may cover; the box keeps three more, and every figure with a square in
it. Stairs (1 MP to a square anywhere) and a hero's glyphs (the town) leave the box: a
dungeon with them is answered whole, as is a board too small to gain by it. A figure
with an aura outside the box comes with the squares round it (a patch out of the move's
reach), so that the box counts wounds, and sizes its penalty kernel, as the whole does.

The box answers with the whole dungeon's paths too: where every step of a graph costs 1
MP the kernel searches breadth-first, and settles ties between paths of equal cost in
another order than its cost buckets do. Whether a kind's graph may do so is decided on
the whole dungeon (``_kind_graph._breadth_first``): the box keeps, as ``beyond``, the
whole dungeon's terrain names and the sides that may open a door outside it.
"""
from __future__ import annotations

import itertools

import numpy as np

from ...errors import MovecoreError
from ...position import figure_key
from . import rules as D
from ._dungeon import _PAD, GRID_MAX, OPENABLE, door_states

#: Boards of fewer squares than this are answered whole (the box would save little).
WINDOW_MIN_SQUARES = 16_384
#: ... and so are boards of fewer than this many times the box's squares.
WINDOW_RATIO = 4
_MARGIN = 3


def _reach_window(dungeon: D.Dungeon, figures: list, query, large_turns: str,
                  rune_keys=frozenset()):
    """(dungeon, figures) of the box a move of ``query`` cannot leave, or None to answer
    on the whole dungeon (stairs, a hero with glyphs, a mover in town, a small board,
    a query the position will refuse: its error comes from the whole position). The
    box's ``beyond`` holds what of the whole dungeon decides the search order (and so
    which of the paths of equal cost each end reports): its terrain names and the sides
    that may open a door outside the box (``rune_keys``: the party's)."""
    terrain = dungeon.terrain
    if len(terrain) < WINDOW_MIN_SQUARES or dungeon.stairs or not isinstance(query, dict):
        return None
    try:
        key = figure_key(query.get("figure"))
        mover = next((f for f in figures if figure_key(f.id) == key), None)
        if mover is None or mover.anchor is None or (mover.side == "hero" and
                                                     dungeon.glyphs):
            return None
        ask = {k: v for k, v in query.items() if k != "figure"}
        mp = D.movement_points(D.Hero(mover.id, mover.side, None, mover.speed, (1, 1)), ask)
    except (MovecoreError, TypeError, ValueError):
        return None
    w, h = mover.size
    reach = mp * (abs(w - h) + 1 if D.turns_allowed((w, h), large_turns) else 1)
    ax, ay = mover.anchor
    x0, y0 = ax - reach - _MARGIN, ay - reach - _MARGIN
    x1, y1 = ax + reach + max(w, h) - 1 + _MARGIN, ay + reach + max(w, h) - 1 + _MARGIN
    if WINDOW_RATIO * (x1 - x0 + 1) * (y1 - y0 + 1) > len(terrain):
        return None
    keys = list(terrain)
    xy = np.fromiter(itertools.chain.from_iterable(keys), np.int64,
                     2 * len(keys)).reshape(-1, 2)
    lo, hi = xy.min(axis=0), xy.max(axis=0)
    if int(np.prod(hi - lo + 1 + 2 * _PAD)) > GRID_MAX:
        return None          # the whole position names the board's box (LimitError)
    inside = (xy[:, 0] >= x0) & (xy[:, 0] <= x1) & (xy[:, 1] >= y0) & (xy[:, 1] <= y1)
    squares = {keys[i]: terrain[keys[i]] for i in np.flatnonzero(inside).tolist()}
    # a figure with an aura outside the box comes with the squares round it (a patch the
    # move never reaches): the box's kinds then count wounds as the whole dungeon's do,
    # and whether a query counts them (and up to how many) decides its search order
    pad = max(w, h) + _MARGIN
    for f in figures:
        cells = f.cells
        if not f.aura or not cells or all(x0 <= x <= x1 and y0 <= y <= y1
                                          for x, y in cells):
            continue
        fx0, fy0 = min(x for x, _ in cells) - pad, min(y for _, y in cells) - pad
        fx1, fy1 = max(x for x, _ in cells) + pad, max(y for _, y in cells) + pad
        for c in itertools.product(range(fx0, fx1 + 1), range(fy0, fy1 + 1)):
            name = terrain.get(c)
            if name is not None:
                squares[c] = name

    def held(side):
        return side[0] in squares and side[1] in squares

    box = D.Dungeon(squares, {s for s in dungeon.walls if held(s)})
    openers = set()
    for door in dungeon.doors:
        sides = frozenset(s for s in door.sides if held(s))
        if sides:
            for s in sides:
                box.door_of[s] = len(box.doors)
            box.doors.append(D.Door(door.id, sides, door.open, door.rune,
                                    door.leads_to_unrevealed))
        else:
            states = door_states(door, door.open, door.leads_to_unrevealed, rune_keys)
            openers.update(side for side, state in zip(("hero", "monster"), states)
                           if state == OPENABLE)
    box.beyond = (frozenset(terrain.values()), frozenset(openers))
    box.glyphs = [c for c in dungeon.glyphs if c in squares]
    # every figure with a square in the box, whole (a figure a square of which lies
    # outside it has none within one square of the move's bases); heroes in town
    near = [f for f in figures if f.anchor is None or all(c in squares for c in f.cells)]
    return box, near
