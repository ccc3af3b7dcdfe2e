"""Heroscape: the slow, longhand reference ``moves()``, the tests' oracle.

:func:`moves` answers one query with :func:`movecore.reach` over the battlefield and army
as read (one search per fall limit, per placement graph for a double-space figure, per
choice of flying or walking), in game words. It is obviously correct and slow: the tests
hold the live :class:`~.position.Position` (what ``solve()`` and every query use) to it
over seeded random battlefields. No other module of movecore calls it (an import-linter
contract checks it); the package re-exports it as the documented ``heroscape.moves``.
The rules it applies, and their words, are in :mod:`.rules`.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from ...board import Board
from ...errors import QueryError, describe
from ...kernels import _types as T
from ...mover import Mover
from ...reach import reach
from .rules import (CLIMB_LIMITS, FALLS, MODES, STOPPING, TERRAINS, Battlefield, HSFigure,
                    Rules, _fall_limited, _max_penalty, adjacency_layer, engaged_with, fall_of,
                    levels_allow_adjacency, placement_graph, placement_key)

def _occupants(field_: Battlefield, army: list[HSFigure], mover: HSFigure,
               rules: Rules, team_id: dict) -> np.ndarray:
    """int32[N]: team id per space; an engaged friend (master) blocks like a wall; for a
    flyer or a phantom walker every other figure may be passed."""
    occ = np.full(field_.board.n_cells, T.OCC_EMPTY, dtype=T.INDEX)
    passes_all = mover.flying or mover.passes_figures
    for f in army:
        if f is mover:
            continue
        if passes_all:
            occ[f.cells] = team_id[mover.team]      # pass, never end
        elif f.team == mover.team and rules.mode == "master" and \
                engaged_with(field_, f, [g for g in army if g is not mover]):
            occ[f.cells] = T.OCC_WALL
        else:
            occ[f.cells] = team_id[f.team]
    return occ


def _relevant_enemies(field_: Battlefield, army, mover: HSFigure, budget: int) -> list:
    """Enemies that a walking move of ``budget`` could come next to (one bit each)."""
    board = field_.board
    reach_ = budget + 2 + (1 if mover.double else 0)
    return [e for e in army if e is not mover and e.team != mover.team and
            any(board.distance(board.coord(a), board.coord(b)) <= reach_
                for a in mover.cells for b in e.cells)]


class _Who:
    """Who, not only how many: the enemies (ids, in army order) a mover is engaged with
    at an end, and those that attack it when it leaves them on the reported
    least-attack path (or at a flyer's take-off: ``takeoff``)."""

    def __init__(self, field_: Battlefield, mover: HSFigure, near: list):
        self.near = near
        self.takeoff: list = []
        board, lv = field_.board, field_.level
        self.spaces = []     # per enemy: the spaces where the mover would be adjacent
        for e in near:
            sp = set()
            for ce in e.cells:
                for c in board.nbr[ce].tolist():
                    if c >= 0 and levels_allow_adjacency(int(lv[c]), mover.height,
                                                         int(lv[ce]), e.height):
                        sp.add(c)
            self.spaces.append(sp)

    def engaged(self, cells) -> list:
        return [e.id for e, sp in zip(self.near, self.spaces)
                if any(c in sp for c in cells)]

    def left(self, path, moved: bool) -> list:
        """Enemies left along ``path`` (a list of the spaces taken after each step), or
        the take-off attackers (``path`` None) when the figure ``moved``."""
        if path is None:
            return list(self.takeoff) if moved else []
        out = []
        for e, sp in zip(self.near, self.spaces):
            if any(any(c in sp for c in u) and not any(c in sp for c in v)
                   for u, v in zip(path, path[1:])):
                out.append(e.id)
        return out


def moves(field_: Battlefield, army: list[HSFigure], figure_id, *, rules: Rules = Rules(),
          move: int | None = None, paths: bool = False,
          never_attacked_leaving: bool = False) -> list[dict]:
    """Every legal end of a move of ``figure_id``, in game words (see :mod:`.rules`).
    ``never_attacked_leaving``: this move draws no leaving-engagement attack (an effect
    from outside the figure's card, as its own Disengage does).

    The slow, longhand reference implementation: the tests' oracle for the live
    :class:`Position` (which ``solve()`` and every query use); a move that would draw
    attacks from more than 64 enemies within reach is a :class:`LimitError` here (the
    live position answers it)."""
    if not isinstance(rules, Rules) or rules.mode not in MODES or \
            rules.climb_limit not in CLIMB_LIMITS:
        raise QueryError(f"rules must be a heroscape.Rules with mode in {MODES} and "
                         f"climb_limit in {CLIMB_LIMITS}; got {describe(rules)}")
    mover = next((f for f in army if f.id == figure_id), None)
    if mover is None:
        raise QueryError(f"query.figure names figure {figure_id!r}, which is not in the "
                         f"scenario; known figures: {[f.id for f in army]}")
    budget = mover.move if move is None else move
    if isinstance(budget, bool) or not isinstance(budget, (int, np.integer)) or \
            not 0 <= budget <= T.MAX_BUDGET:
        raise QueryError(f"move must be an integer in [0, {T.MAX_BUDGET}]; got "
                         f"{describe(budget)}")
    budget = int(budget)
    if not isinstance(never_attacked_leaving, bool):
        raise QueryError(f"never_attacked_leaving must be true or false; got "
                         f"{describe(never_attacked_leaving)}")
    calm = never_attacked_leaving or mover.never_attacked_leaving
    ends = _moves_as(field_, army, mover, rules, budget, paths, calm)
    if mover.flying and rules.mode == "master" and not calm and \
            not mover.stealth_flying and engaged_with(field_, mover, army):
        # Flying is a choice made before moving: an engaged flyer that takes off takes
        # every leaving attack at once, one that walks takes those of the walk. The
        # flight is never dearer nor stopped sooner, and never falls: it gives each
        # end's cost, stop and falls; the least attacks are the least of both.
        walker = replace(mover, flying=False, stealth_flying=False)
        walks = _moves_as(field_, [walker if f is mover else f for f in army], walker,
                          rules, budget, paths, calm)
        ends = _choose(ends, walks)
    return ends


def _choose(flights: list[dict], walks: list[dict]) -> list[dict]:
    """Each end of a flyer's move, the least over flying and walking: the flight's cost,
    stop and falls (every walk's end is a flight's, at no less cost); the walk's least
    attacks where they are fewer (or as many at less cost), with their cost, attackers,
    path, and ``leaving_attacks_flies`` false."""
    walk_of = {_key(e["at"]): e for e in walks}
    out = []
    for e in flights:
        w = walk_of.get(_key(e["at"]))
        if w is not None and (w["leaving_attacks"], w["leaving_attacks_cost"]) < \
                (e["leaving_attacks"], e["leaving_attacks_cost"]):
            e = dict(e, leaving_attacks=w["leaving_attacks"],
                     leaving_attacks_cost=w["leaving_attacks_cost"],
                     leaving_attackers=w["leaving_attackers"], leaving_attacks_flies=False)
            if "leaving_attacks_path" in w:
                e["leaving_attacks_path"] = w["leaving_attacks_path"]
        out.append(e)
    return out


def _key(at) -> Any:
    """An end's spaces as a key: ``(q, r)``, or a frozenset of two for a double-space
    figure (either orientation)."""
    return tuple(at) if isinstance(at[0], int) else frozenset(tuple(c) for c in at)


def _moves_as(field_: Battlefield, army: list[HSFigure], mover: HSFigure, rules: Rules,
              budget: int, paths: bool, calm: bool) -> list[dict]:
    """The ends of ``mover``'s move as it is: flying if it flies (take-off attacks from
    every enemy engaged at the start), else walking."""
    team_id: dict = {}
    for f in army:
        team_id.setdefault(f.team, len(team_id))
    master = rules.mode == "master"
    flyer = mover.flying
    occ = _occupants(field_, army, mover, rules, team_id)
    stop_wet = not flyer or rules.flyers_stop_in_water
    stop_glyph = not flyer or rules.flyers_stop_on_glyphs
    # Leaving engagement: walkers pay per enemy left along the path; a flyer pays once
    # for every enemy engaged where it takes off (none with Stealth Flying).
    leave = None
    max_pen = None
    takeoff_attacks = 0
    near = _relevant_enemies(field_, army, mover, budget) if master else []
    who = _Who(field_, mover, near)
    if calm:
        pass
    elif master and not flyer:
        if near:
            leave = adjacency_layer(field_, mover.height, near)
            max_pen = _max_penalty(len(near), budget)
    elif master and not mover.stealth_flying:
        who.takeoff = [e.id for e in engaged_with(field_, mover, army)]
        takeoff_attacks = len(who.takeoff)
    max_climb = None if flyer else (mover.height - 1 if rules.climb_limit == "below_height"
                                    else mover.height)
    if mover.double:
        return _double_moves(field_, mover, occ, team_id[mover.team], leave, max_pen,
                             max_climb, stop_wet, stop_glyph, budget, takeoff_attacks,
                             master, paths, who)
    board = field_.board
    n = board.n_cells
    wet_ids = [TERRAINS.index(t) for t in STOPPING]
    walker = Mover(terrain_cost=[1] * len(TERRAINS),
                   stop_terrain=wet_ids if stop_wet else (),
                   climb_per_level=0 if flyer else 1, max_climb=max_climb,
                   team=team_id[mover.team], allies="pass", enemies="pass" if (
                       flyer or mover.passes_figures) else "block")
    qflags = np.zeros(n, np.uint8)
    qflags[field_.blocked] |= T.CELL_NO_END if flyer else T.CELL_BLOCKED
    if stop_glyph:
        qflags[field_.glyphs] |= T.CELL_STOP
    r = reach(board, walker, mover.cells[0], budget, occupant=occ, cell_flags=qflags,
              leave=leave, max_penalty=max_pen)
    falls = master and not flyer and field_.deepest_drop >= mover.height
    limited = _least_falls(board, field_.level, field_.wet, mover.height, lambda b: reach(
        b, walker, mover.cells[0], budget, occupant=occ, cell_flags=qflags)) if falls \
        else []
    rows_of = [{int(c): k for k, c in enumerate(x.cells.tolist())} for x in limited]
    ends = []
    for row in range(len(r)):
        cell = int(r.cells[row])
        cost = int(r.costs[row])
        path = r.path(cell).tolist() if (falls or paths) else None
        e: dict = {"at": list(board.coord(cell)), "cost": cost,
                   "stop": _stop_reason(field_, [cell], stop_glyph) if r.stopped[row]
                   else None}
        if flyer:
            e["leaving_attacks"] = takeoff_attacks if cell != mover.cells[0] else 0
            e["leaving_attacks_cost"] = cost
        else:
            e["leaving_attacks"] = int(r.penalties[row]) if leave is not None else 0
            e["leaving_attacks_cost"] = int(r.penalty_costs[row]) if leave is not None \
                else cost
        e["leaving_attackers"] = who.left(
            [[c] for c in r.path(cell, least_penalty=True).tolist()] if leave is not None
            else None, cell != mover.cells[0])
        e["engaged_with"] = who.engaged([cell])
        e["flies"] = e["leaving_attacks_flies"] = flyer and cell != mover.cells[0]
        e["fall"] = _worst_fall(field_, path, mover.height) if falls else "none"
        least = next((k for k, x in enumerate(rows_of) if cell in x), len(rows_of))
        e["least_fall"] = FALLS[least] if falls else "none"
        e["least_fall_cost"] = int(limited[least].costs[rows_of[least][cell]]) \
            if least < len(limited) else cost
        if paths:
            e["path"] = [list(board.coord(c)) for c in path]
            e["least_fall_path"] = [list(board.coord(c)) for c in (
                limited[least].path(cell) if least < len(limited) else path)]
            if leave is not None:
                e["leaving_attacks_path"] = [list(board.coord(c)) for c in
                                             r.path(cell, least_penalty=True)]
            else:
                e["leaving_attacks_path"] = e["path"]
        ends.append(e)
    return _ordered(ends)

def _least_falls(board: Board, level, wet, height: int, search) -> list:
    """The searches (``search(board)``, a Reach) on ``board`` limited to no fall and to
    at most a minor fall: an end's least fall is the first of them that reaches it
    (else major), its cost that search's cost."""
    return [search(_fall_limited(board, level, wet, d)) for d in (height, height + 10)]


def _stop_reason(field_: Battlefield, cells: list[int], stop_glyph: bool) -> str:
    """Why an arrival had to stop: the leading space's glyph, else water / molten lava."""
    if stop_glyph and field_.glyph[cells[0]] is not None:
        return "glyph"
    if all(field_.terrain[c] == "lava" for c in cells):
        return "lava"
    return "water"


def _worst_fall(field_: Battlefield, path: list[int], height: int) -> str:
    """Worst fall along a path of spaces (of the leading end)."""
    worst = 0
    lv = field_.level
    for u, v in zip(path, path[1:]):
        if field_.wet[v]:
            continue  # no falling damage into water
        worst = max(worst, FALLS.index(fall_of(int(lv[u] - lv[v]), height)))
    return FALLS[worst]


def _ordered(ends: list[dict]) -> list[dict]:
    """Cheapest first, then by the spaces taken (a stable, documented order)."""
    def key(e):
        at = e["at"]
        return (e["cost"], [tuple(at)] if isinstance(at[0], int) else
                sorted(tuple(c) for c in at))
    return sorted(ends, key=key)


def _double_moves(field_, mover, occ, team, leave, max_pen, max_climb, stop_wet,
                  stop_glyph, budget, takeoff_attacks, master, paths, who) -> list[dict]:
    pl = placement_graph(field_)
    lead, trail = pl.lead, pl.trail
    P = len(lead)
    flyer = mover.flying
    # occupancy of a placement from both its spaces: a wall or an enemy on either blocks,
    # else a friend on either may be passed but not ended on
    a, b = occ[lead], occ[trail]
    node_occ = np.full(P, T.OCC_EMPTY, dtype=T.INDEX)
    node_occ[(a == team) | (b == team)] = team
    enemy_b = (b >= 0) & (b != team)
    node_occ[enemy_b] = b[enemy_b]
    enemy_a = (a >= 0) & (a != team)
    node_occ[enemy_a] = a[enemy_a]
    node_occ[(a == T.OCC_WALL) | (b == T.OCC_WALL)] = T.OCC_WALL
    qflags = np.zeros(P, np.uint8)
    if flyer:
        qflags[pl.board.terrain == 1] |= T.CELL_NO_END
    if stop_wet:
        qflags[field_.wet[lead] & field_.wet[trail]] |= T.CELL_STOP
    if stop_glyph:
        qflags[field_.glyphs[lead]] |= T.CELL_STOP
    start = pl.node(mover.cells[0], mover.cells[1])
    # Stops are caused by steps; a flip moves nothing onto anything. Only a start can be
    # a free arrival at a stopping placement or its flip, so clearing the flag on both
    # orientations of the start is exact: a later step into them is dominated by the
    # start itself (cost 0, no attacks).
    qflags[[start, int(pl.flip[start])]] &= np.uint8(~T.CELL_STOP & 0xFF)
    node_leave = None if leave is None else leave[lead] | leave[trail]
    walker = Mover(terrain_cost=[1, 1] if flyer else [1, -1],
                   climb_per_level=0 if flyer else 1, max_climb=max_climb, team=team,
                   allies="pass", enemies="pass" if (flyer or mover.passes_figures)
                   else "block")
    r = reach(pl.board, walker, start, budget, occupant=node_occ, cell_flags=qflags,
              leave=node_leave, max_penalty=max_pen)
    board = field_.board
    start_pair = frozenset(mover.cells)
    found: dict = {}       # each pair's placements that are ends, with their labels
    for row in range(len(r)):
        node = int(r.cells[row])
        pair = frozenset((int(lead[node]), int(trail[node])))
        cost, stopped = int(r.costs[row]), bool(r.stopped[row])
        if node_leave is not None:
            pen, pen_cost = int(r.penalties[row]), int(r.penalty_costs[row])
        else:
            pen = takeoff_attacks if pair != start_pair else 0
            pen_cost = cost
        found.setdefault(pair, []).append(dict(node=node, cost=cost, stopped=stopped,
                                               pen=pen, pen_cost=pen_cost))
    # the pair listed as its placement with the least placement_key (decision: not
    # the search's order); its least attacks those of either placement, and their
    # path the listed one's where it draws as few for as little
    best: dict = {}
    for pair, xs in found.items():
        v = min(xs, key=lambda x: placement_key(x["cost"], x["stopped"], x["node"]))
        w = min(xs, key=lambda x: (x["pen"], x["pen_cost"], x["node"] != v["node"]))
        best[pair] = dict(v, pen=w["pen"], pen_cost=w["pen_cost"], pen_node=w["node"])

    falls = master and not flyer and field_.deepest_drop >= mover.height
    # least fall per pair: the first fall-limited search reaching either orientation
    # (its path the listed placement's where that costs as little)
    limited = _least_falls(pl.board, field_.level[lead], field_.wet[lead], mover.height,
                           lambda b: reach(b, walker, start, budget, occupant=node_occ,
                                           cell_flags=qflags)) if falls else []
    least_of: list = []
    for x in limited:
        got: dict = {}
        for node, c in zip(x.cells.tolist(), x.costs.tolist()):
            pair = frozenset((int(lead[node]), int(trail[node])))
            if pair not in got or (c, node != best[pair]["node"]) < \
                    (got[pair][0], got[pair][1] != best[pair]["node"]):
                got[pair] = (c, node, x)
        least_of.append(got)

    def placements(nodes):
        return [[list(board.coord(int(lead[p]))), list(board.coord(int(trail[p])))]
                for p in nodes]

    ends = []
    for pair, v in best.items():
        node = v["node"]
        path = r.path(node).tolist() if (falls or paths) else None
        e: dict = {"at": placements([node])[0], "cost": v["cost"],
                   "stop": _stop_reason(field_, [int(lead[node]), int(trail[node])],
                                        stop_glyph) if v["stopped"] else None,
                   "leaving_attacks": v["pen"], "leaving_attacks_cost": v["pen_cost"],
                   "leaving_attackers": who.left(
                       [[int(lead[p]), int(trail[p])] for p in
                        r.path(v["pen_node"], least_penalty=True).tolist()]
                       if node_leave is not None else None, pair != start_pair),
                   "engaged_with": who.engaged([int(lead[node]), int(trail[node])]),
                   "flies": flyer and pair != start_pair,
                   "leaving_attacks_flies": flyer and pair != start_pair}
        if falls:
            # the lead's drops along the path; a flip is no drop
            worst = 0
            lv = field_.level
            prev_lead = int(lead[path[0]])
            for p, q in zip(path, path[1:]):
                if pl.flip[p] == q:
                    prev_lead = int(lead[q])
                    continue
                nl = int(lead[q])
                if not field_.wet[nl]:
                    worst = max(worst, FALLS.index(fall_of(int(lv[prev_lead] - lv[nl]),
                                                           mover.height)))
                prev_lead = nl
            e["fall"] = FALLS[worst]
        else:
            e["fall"] = "none"
        least = next((k for k, x in enumerate(least_of) if pair in x), len(least_of))
        e["least_fall"] = FALLS[least] if falls else "none"
        lf = least_of[least][pair] if least < len(least_of) else None
        e["least_fall_cost"] = lf[0] if lf else v["cost"]
        if paths:
            e["path"] = placements(path)
            e["least_fall_path"] = placements(lf[2].path(lf[1]).tolist()) if lf \
                else e["path"]
            e["leaving_attacks_path"] = placements(
                r.path(v["pen_node"], least_penalty=True).tolist()) \
                if node_leave is not None else e["path"]
        ends.append(e)
    return _ordered(ends)
