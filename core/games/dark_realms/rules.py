"""Dark Realms (darkrealms.se, seed 003): hero, summon and enemy movement, Stamina, die
planning, teleport, flying, traps, rifts, and the enemy AI's target and destination.

Scenario::

    {"game": "dark_realms",
     "board": {"grid": "hex" | "square4" | "square8",          (default "hex")
               "cells": [{"at": [q, r], "obstacle": false, "trap": false,
                          "rift": false}, ...]},
     "options": {"pass_allies": false, "die": "d6", "trap_detour_limit": null},
     "figures": [{"id": "ayla", "side": "hero" | "enemy" | "summon", "at": [q, r],
                  "speed": 0, "marked": false, "flying": false,
                  "stamina_moved": false}, ...],
     "query": ...}

Queries (``"paths": true`` adds paths to the ends of any of them)::

    {"figure": id, "move": N}                      card "Move N"
    {"figure": id, "roll": r, "bonus": k}          card "Move" / "Move +k", die shows r
      ... either of them with "stamina": s         (heroes only) s Stamina available
    {"figure": id, "stamina_only": true, "stamina": s}   the once-per-round Stamina move
    {"figure": id, "die": "d6", "bonus": k, "stamina": s} odds of every end before rolling
    {"figure": id, "teleport": N}                  any empty space within distance N
    {"enemy": id, "move": N, "attack_range": R}    enemy AI: target, destination, path
      ("roll"/"bonus" may replace "move"; "attack_range" defaults to 1, melee)

The rules, in the game's words (see docs/dark_realms.md for every decision and why):

* A move step goes to an adjacent *empty* space. Every figure blocks (``pass_allies``:
  figures of one's own side may be passed, never ended on). Obstacles block and cannot be
  ended on; a rift never blocks; a trap may be entered, and it triggers (reported as
  ``traps`` per end: the fewest traps a route within the move must cross).
* Flying: obstacles are flown over (never ended on) and traps do not affect the figure.
* A hero may extend a card's move with Stamina, one per extra space: every end reports
  ``stamina = max(0, cost - card move)``. Summons and enemies have no Stamina. The
  Stamina-only move may be made once per round (``stamina_moved`` marks it spent).
* The enemy picks its target: a marked character, else a summon, else a hero; among them
  the closest in steps, then the fastest (highest ``speed``); a tie that remains is
  reported (the game rolls a die). It then walks its best route towards a space within
  ``attack_range`` (grid distance) of the target and stops as soon as it can attack.
"""
from __future__ import annotations

import copy as _copy
import functools
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Mapping

import numpy as np

from ...board import GRID_KINDS, Board, Link
from ...errors import (BoardError, IllegalMoveError, LimitError, PlacementError, QueryError,
                      ScenarioError, describe)
from ...kernels import _types as T
from ...mover import Mover
from ...position import (BUILD_LOCK, CellActions, Moves, bind_occupant, cell_index,
                         figure_key, new_figure_id, register_position, scratch_rows)
from ...position import Position as _Position
from ...reach import Prepared, distance_field, prepare, reach
from ...scenario import (expect_keys, expect_object, get_bool, get_coord, get_id,
                        get_int, get_list, get_str, register_game)
from .._common import coord_list, end_order, find_figure, read_figures

SIDES = ("hero", "enemy", "summon")
DICE = {"d4": 4, "d6": 6, "d8": 8, "d10": 10, "d12": 12, "d20": 20}
TRAP_AVOIDANCE = ("detour", "shortest")
MAX_MOVE = 1 << 16
#: penalty levels tracked for traps: routes crossing more traps than this compare equal
MAX_TRAPS_TRACKED = 63
PLAYERS, ENEMIES = 0, 1  # the two teams: heroes and their summons, and the enemies


# ----------------------------------------------------------------------------- scene
@dataclass
class Figure:
    id: object
    side: str
    cell: int
    speed: int = 0
    marked: bool = False
    flying: bool = False
    stamina_moved: bool = False

    @property
    def team(self) -> int:
        return ENEMIES if self.side == "enemy" else PLAYERS


def _clone(f: Figure) -> Figure:
    """A copy of a figure (its fields are plain values): ``copy.copy`` without its
    generic protocol (a position copies every figure)."""
    new = object.__new__(Figure)
    new.__dict__.update(f.__dict__)
    return new


@dataclass
class Scene:
    """A validated Dark Realms scenario: board, terrain masks, figures and options."""

    board: Board
    obstacle: np.ndarray     # bool[N]
    trap: np.ndarray         # bool[N]
    rift: np.ndarray         # bool[N]
    figures: list[Figure]
    pass_allies: bool = False
    die: str = "d6"
    #: extra steps an enemy accepts to walk around traps; None = no limit
    trap_detour_limit: int | None = None
    _cache: dict = field(default_factory=dict, repr=False)

    @property
    def trap_avoidance(self) -> str:
        """The mode's shorthand: "detour" (no limit), "shortest" (0) or "limit"."""
        k = self.trap_detour_limit
        return "detour" if k is None else "shortest" if k == 0 else "limit"

    def figure(self, fid, where: str = "query.figure") -> Figure:
        return find_figure(self.figures, fid, where)

    def coord(self, cell: int) -> list[int]:
        return list(self.board.coord(int(cell)))

    # ---- what a moving figure sees
    def occupant(self, mover: Figure) -> np.ndarray:
        """Every other figure on the board, as its team (rifts never block)."""
        occ = np.full(self.board.n_cells, T.OCC_EMPTY, T.INDEX)
        for f in self.figures:
            if f is not mover:
                occ[f.cell] = f.team
        return occ

    def cell_flags(self, mover: Figure) -> np.ndarray:
        """Obstacles: walkers cannot enter them; flyers pass over them but never end there."""
        flags = np.zeros(self.board.n_cells, np.uint8)
        flags[self.obstacle] = T.CELL_NO_END if mover.flying else T.CELL_BLOCKED
        return flags

    def traps_for(self, mover: Figure) -> np.ndarray:
        """int32[N]: 1 on every trap that affects the mover (none for flyers)."""
        if mover.flying:
            return np.zeros(self.board.n_cells, T.INDEX)
        return self.trap.astype(T.INDEX)

    def mover(self, fig: Figure, terrain_cost=None) -> Mover:
        return Mover(terrain_cost=terrain_cost, team=fig.team,
                     allies="pass" if self.pass_allies else "block", enemies="block")

    def may_end(self, fig: Figure, cell: int, occ: np.ndarray) -> bool:
        return cell == fig.cell or (not self.obstacle[cell] and occ[cell] == T.OCC_EMPTY)

    def distance(self, a: int, b: int) -> int:
        """Grid distance in spaces, whatever lies between (hex: axial; square4:
        orthogonal steps; square8: king steps)."""
        return self.board.distance(self.board.coord(a), self.board.coord(b))

    def distances_from(self, cell: int) -> np.ndarray:
        """int64[N]: :meth:`distance` from ``cell`` to every space."""
        d = self.board.coords.astype(np.int64) - self.board.coords[cell]
        dx, dy = np.abs(d[:, 0]), np.abs(d[:, 1])
        if self.board.kind == "hex":
            return (dx + dy + np.abs(d[:, 0] + d[:, 1])) // 2
        return dx + dy if self.board.kind == "square4" else np.maximum(dx, dy)


def read_scene(scenario: dict) -> Scene:
    """Validate the board, options and figures of a Dark Realms scenario."""
    expect_keys(scenario, "scenario", ("game", "board", "options", "figures", "query"),
                required=("board", "figures", "query"))
    spec = expect_object(scenario["board"], "board")
    expect_keys(spec, "board", ("grid", "cells"), required=("cells",))
    opts = expect_object(scenario.get("options", {}), "options")
    expect_keys(opts, "options", ("grid", "pass_allies", "die", "trap_avoidance",
                                  "trap_detour_limit"))
    grid = get_str(spec, "grid", "board", GRID_KINDS, default=None) if "grid" in spec else None
    ogrid = get_str(opts, "grid", "options", GRID_KINDS) if "grid" in opts else None
    if grid and ogrid and grid != ogrid:
        raise ScenarioError(f"board.grid is {grid!r} but options.grid is {ogrid!r}; give "
                            f"the grid once")
    grid = grid or ogrid or "hex"
    cells = get_list(spec, "cells", "board")
    if not cells:
        raise BoardError("board.cells is empty; a board needs at least one cell")
    coords, obstacle, trap, rift = [], [], [], []
    for i, c in enumerate(cells):
        w = f"board.cells[{i}]"
        c = expect_object(c, w)
        expect_keys(c, w, ("at", "obstacle", "trap", "rift"), required=("at",))
        coords.append(get_coord(c, "at", w))
        o, t, r = (get_bool(c, k, w, False) for k in ("obstacle", "trap", "rift"))
        if o and (t or r):
            raise BoardError(f"{w} at {list(coords[-1])} is an obstacle and a "
                             f"{'trap' if t else 'rift'}; an obstacle fills its space")
        obstacle.append(o)
        trap.append(t)
        rift.append(r)
    if grid == "hex":
        board = Board.hex(coords)
    else:
        board = Board.square_cells(coords, neighbours=int(grid[-1]))
    scene = Scene(board, np.array(obstacle, bool), np.array(trap, bool),
                  np.array(rift, bool), [],
                  pass_allies=get_bool(opts, "pass_allies", "options", False),
                  die=get_str(opts, "die", "options", DICE, default="d6"),
                  trap_detour_limit=read_trap_detour_limit(opts))
    keys = ("id", "side", "at", "speed", "marked", "flying", "stamina_moved")
    raw_figs = read_figures(board, scenario["figures"], team_key="side", allowed_keys=keys)
    for i, rf in enumerate(raw_figs):
        w = f"figures[{i}]"
        raw = rf.raw
        side = get_str(raw, "side", w, SIDES)
        fig = Figure(rf.id, side, rf.cell,
                     speed=get_int(raw, "speed", w, 0, lo=0, hi=MAX_MOVE),
                     marked=get_bool(raw, "marked", w, False),
                     flying=get_bool(raw, "flying", w, False),
                     stamina_moved=get_bool(raw, "stamina_moved", w, False))
        if fig.marked and side == "enemy":
            raise ScenarioError(f"{w} ({fig.id!r}) is an enemy marked as a target; only "
                                f"heroes and summons carry a Mark")
        if fig.stamina_moved and side != "hero":
            raise ScenarioError(f"{w} ({fig.id!r}) is a {side}: only heroes have Stamina, "
                                f"so only they can have made a Stamina-only move")
        if scene.obstacle[fig.cell]:
            raise PlacementError(f"figure {fig.id!r} stands on an obstacle at "
                                 f"{scene.coord(fig.cell)}")
        scene.figures.append(fig)
    return scene


def read_trap_detour_limit(opts: Mapping) -> int | None:
    """options.trap_detour_limit (extra steps, null = no limit), or its shorthand
    options.trap_avoidance ("detour" = no limit, "shortest" = 0); both must agree."""
    short = None
    if "trap_avoidance" in opts:
        mode = get_str(opts, "trap_avoidance", "options", TRAP_AVOIDANCE)
        short = None if mode == "detour" else 0
    if "trap_detour_limit" not in opts:
        return short
    k = get_int(opts, "trap_detour_limit", "options", lo=0, allow_none=True)
    if "trap_avoidance" in opts and k != short:
        words = {None: "null (no limit)"}
        raise ScenarioError(f"options.trap_detour_limit is {words.get(k, k)} but "
                            f"options.trap_avoidance {opts['trap_avoidance']!r} means "
                            f"{words.get(short, short)}; give one of them")
    return k


# ----------------------------------------------------------------------------- hero moves
def _trap_layer(scene: Scene, fig: Figure):
    """(enter_penalty, max_penalty) for reach: traps as a second objective, or None."""
    traps = scene.traps_for(fig)
    n = int(traps.sum())
    if n == 0:
        return None, None
    return traps, min(n, MAX_TRAPS_TRACKED)


def move_ends(scene: Scene, fig: Figure, card_move: int, stamina: int = 0,
              paths: bool = False) -> list[dict]:
    """Every end of a move worth ``card_move`` spaces, extendable by ``stamina``.

    Each end: ``at``, ``cost`` (spaces moved), ``stamina`` (``max(0, cost - card_move)``),
    ``traps`` (the fewest traps a route to it within the budget crosses), ``traps_cost``
    (the cheapest such route), and with ``paths`` the cheapest route (``traps_path`` too
    when the fewest-trap route is dearer)."""
    if stamina and fig.side != "hero":
        raise QueryError(f"{fig.id!r} is a {fig.side}; only heroes can spend Stamina "
                         f"(got stamina {stamina})")
    pen, max_pen = _trap_layer(scene, fig)
    r = reach(scene.board, scene.mover(fig), fig.cell, card_move + stamina,
              occupant=scene.occupant(fig), cell_flags=scene.cell_flags(fig),
              enter_penalty=pen, max_penalty=max_pen)
    ends = []
    for row in end_order(scene.board, r.cells, r.costs):
        cell, cost = int(r.cells[row]), int(r.costs[row])
        traps = int(r.penalties[row]) if pen is not None else 0
        tcost = int(r.penalty_costs[row]) if pen is not None else cost
        e = {"at": scene.coord(cell), "cost": cost, "stamina": max(0, cost - card_move),
             "traps": traps, "traps_cost": tcost}
        if paths:
            e["path"] = coord_list(scene.board, r.path(cell, least_penalty=(
                pen is not None and tcost == cost)))
            if tcost != cost:
                e["traps_path"] = coord_list(scene.board, r.path(cell, least_penalty=True))
        ends.append(e)
    return ends


def die_odds(scene: Scene, fig: Figure, die: str, bonus: int = 0, stamina: int = 0,
             paths: bool = False) -> list[dict]:
    """Before rolling a card "Move +bonus": for every space the best roll could reach,
    the least roll that reaches it (spending up to ``stamina``) and its probability."""
    faces = DICE[die]
    ends = []
    for e in move_ends(scene, fig, faces + bonus, stamina, paths):
        min_roll = max(1, e["cost"] - bonus - stamina)
        p = Fraction(faces - min_roll + 1, faces)
        out = {"at": e["at"], "cost": e["cost"], "min_roll": min_roll,
               "probability": float(p)}
        if paths:
            out["path"] = e["path"]
        ends.append(out)
    return ends


def teleport_ends(scene: Scene, fig: Figure, distance: int) -> list[dict]:
    """Teleport N: every empty space within grid distance N (the figure's own space at
    0), whatever lies between. ``traps`` is 1 where the figure lands on a trap that
    affects it."""
    occ = scene.occupant(fig)
    traps = scene.traps_for(fig)
    ends = []
    dist = scene.distances_from(fig.cell)
    for cell in np.flatnonzero(dist <= distance).tolist():
        if scene.may_end(fig, cell, occ):
            ends.append((int(dist[cell]), cell))
    cells = np.array([c for _, c in ends], T.INDEX)
    costs = np.array([d for d, _ in ends], T.INDEX)
    return [{"at": scene.coord(cells[i]), "cost": int(costs[i]),
             "traps": int(traps[cells[i]])}
            for i in end_order(scene.board, cells, costs)]


# ----------------------------------------------------------------------------- enemy AI
def _steps_to(scene: Scene, enemy: Figure, field_: np.ndarray, target: Figure):
    """Steps the enemy needs to reach the target's space (its last step entering it):
    (0, steps) along a path, or (1, grid distance) when no path exists."""
    best = None
    for v in scene.board.nbr[target.cell]:
        if v >= 0 and field_[v] >= 0:
            best = field_[v] + 1 if best is None else min(best, field_[v] + 1)
    if best is None:
        return (1, scene.distance(enemy.cell, target.cell))
    return (0, int(best))


def choose_targets(scene: Scene, enemy: Figure) -> list[Figure]:
    """The enemy's target(s): marked characters first, else summons, else heroes; among
    those the closest in steps, then the fastest. More than one = a tie the die breaks."""
    players = [f for f in scene.figures if f.team == PLAYERS]
    if not players:
        return []
    tier = ([f for f in players if f.marked] or [f for f in players if f.side == "summon"]
            or players)
    if len(tier) == 1:
        return tier
    field_ = distance_field(scene.board, scene.mover(enemy), [enemy.cell],
                            occupant=scene.occupant(enemy),
                            cell_flags=scene.cell_flags(enemy))
    steps = {id(f): _steps_to(scene, enemy, field_, f) for f in tier}
    closest = min(steps.values())
    tier = [f for f in tier if steps[id(f)] == closest]
    fastest = max(f.speed for f in tier)
    return [f for f in tier if f.speed == fastest]


def _virtual_source_board(scene: Scene) -> Board:
    """The board plus one cell ``V`` (index N) with no neighbours, for reverse searches
    from a set of cells: links V -> a are added per query."""
    b = scene._cache.get("vboard")
    if b is None:
        board = scene.board
        far = board.coords.max(axis=0) + 2
        nbr = np.vstack([board.nbr, np.full((1, board.nbr.shape[1]), -1, T.INDEX)])
        b = Board.graph(nbr, coords=np.vstack([board.coords, far[None, :]]))
        scene._cache["vboard"] = b
    return b


class _Routes:
    """Route keys of one enemy: ``fwd[e]`` = best (traps, steps) to reach end e this turn
    and ``rem[e]`` = best (traps, steps) from e to a space in ``goal``, both in the
    avoidance order of the scene; ``order(traps, steps)`` is that order's key."""

    def __init__(self, scene: Scene, enemy: Figure, budget: int, goal: list[int]):
        self.scene, self.enemy = scene, enemy
        occ = scene.occupant(enemy)
        flags = scene.cell_flags(enemy)
        traps = scene.traps_for(enemy)
        n_traps = int(traps.sum())
        detour = scene.trap_avoidance == "detour"
        self.order = (lambda t, s: (t, s)) if detour else (lambda t, s: (s, t))
        board = scene.board
        vboard = _virtual_source_board(scene)
        vocc = np.append(occ, T.INDEX(T.OCC_EMPTY)).astype(T.INDEX)
        vflags = np.append(flags, np.uint8(0))
        vtraps = np.append(traps, T.INDEX(0)).astype(T.INDEX)
        V = board.n_cells
        if n_traps == 0 or detour:
            # fewest traps first (penalty objective), then fewest steps
            pen = traps if n_traps else None
            vpen = vtraps if n_traps else None
            max_pen = min(n_traps, MAX_TRAPS_TRACKED) if n_traps else None
            m = scene.mover(enemy)
            self.fwd_reach = r = reach(board, m, enemy.cell, budget, occupant=occ,
                                       cell_flags=flags, enter_penalty=pen,
                                       max_penalty=max_pen)
            self.fwd = {}
            for i, c in enumerate(r.cells.tolist()):
                if n_traps:
                    self.fwd[c] = (int(r.penalties[i]), int(r.penalty_costs[i]))
                else:
                    self.fwd[c] = (0, int(r.costs[i]))
            self.least_penalty = bool(n_traps)
            # reverse search from the goal: V -> a costs 0 and enters a (its trap counts);
            # the route e -> a then has the traps of V -> ... -> e minus e's own trap
            g = vboard.with_links([Link(V, a, 0, two_way=False) for a in goal])
            rv = reach(g, m, V, T.MAX_BUDGET, occupant=vocc, cell_flags=vflags,
                       enter_penalty=vpen, max_penalty=max_pen)
            self.rem = {}
            for i, c in enumerate(rv.cells.tolist()):
                if c in self.fwd:
                    if n_traps:
                        self.rem[c] = (int(rv.penalties[i]) - int(traps[c]),
                                       int(rv.penalty_costs[i]))
                    else:
                        self.rem[c] = (0, int(rv.costs[i]))
        else:
            # fewest steps first, then fewest traps: one scalar cost W per space, W + 1 per
            # trap, W > any trap count, so cost = steps * W + traps
            W = n_traps + 1
            if (budget + 1) * W > T.MAX_BUDGET:
                raise LimitError(f"move {budget} with {n_traps} traps is too large for "
                                 f"trap_avoidance 'shortest'")
            tb = board.with_layers(terrain=traps)
            m = scene.mover(enemy, terrain_cost=[W, W + 1])
            self.fwd_reach = r = reach(tb, m, enemy.cell, budget * W + W - 1, occupant=occ,
                                       cell_flags=flags)
            self.fwd = {c: (int(k) % W, int(k) // W)
                        for c, k in zip(r.cells.tolist(), r.costs.tolist())}
            self.least_penalty = False
            g = vboard.with_layers(terrain=vtraps).with_links(
                [Link(V, a, int(traps[a]), two_way=False) for a in goal])
            rv = reach(g, m, V, T.MAX_BUDGET, occupant=vocc, cell_flags=vflags)
            self.rem = {}
            for c, k in zip(rv.cells.tolist(), rv.costs.tolist()):
                if c in self.fwd:
                    k -= int(traps[c])
                    self.rem[c] = (k % W, k // W)

    def plan(self, e: int):
        """The best whole route through e (this turn's part plus the rest), ordered."""
        (t1, s1), (t2, s2) = self.fwd[e], self.rem[e]
        return self.order(t1 + t2, s1 + s2)

    def path(self, e: int) -> list[int]:
        return self.fwd_reach.path(e, least_penalty=self.least_penalty).tolist()

    def planned(self) -> list[int]:
        return [e for e in self.fwd if e in self.rem]

    def route_key(self, e: int, to_target: np.ndarray) -> tuple:
        """(best whole route through e, steps left, farther from the target, traps now)"""
        t_now = self.fwd[e][0]
        s_rem = self.rem[e][1]
        far = -int(to_target[e]) if s_rem == 0 else 0
        return (self.plan(e), s_rem, far, t_now)

    def fallback_key(self, e: int) -> tuple:
        return self.order(*self.fwd[e])


_INF = np.iinfo(np.int64).max // 4


class _LimitedRoutes:
    """Route keys of one enemy that accepts at most ``limit`` extra steps to avoid traps:
    only routes of at most ``L + limit`` steps count (``L`` = the shortest route to a
    goal space), ranked by (traps, steps). Layered by steps: ``F[s, c]`` = the fewest
    traps of a walk from the enemy to c in at most s steps, ``R[s, c]`` = from c into the
    goal. Same interface as :class:`_Routes`."""

    def __init__(self, scene: Scene, enemy: Figure, budget: int, goal: list[int],
                 limit: int):
        board = scene.board
        n = board.n_cells
        occ = scene.occupant(enemy)
        self.trap = trap = scene.traps_for(enemy).astype(np.int64)
        enter = ~scene.obstacle if not enemy.flying else np.ones(n, bool)
        ok_occ = occ == T.OCC_EMPTY
        if scene.pass_allies:
            ok_occ |= occ == enemy.team
        self.enter = enter = enter & ok_occ
        enter[enemy.cell] = True
        self.nbr = nbr = board.nbr
        self.start = enemy.cell
        valid = nbr >= 0
        safe = np.where(valid, nbr, 0)

        zero = np.zeros(n, np.int64)

        def step(prev, add_from, add_to):
            """One more step allowed: min(prev, min over neighbours v of prev[v] +
            add_from[v], + add_to) on the spaces the enemy may enter."""
            via = np.where(valid, (prev + add_from)[safe], _INF).min(axis=1) + add_to
            return np.minimum(prev, np.where(enter, np.minimum(via, _INF), _INF))

        f0 = np.full(n, _INF, np.int64)
        f0[enemy.cell] = 0
        S = min(budget, n - 1)
        F = [f0]
        for _ in range(S):
            F.append(step(F[-1], zero, trap))
        self.F = F = np.array(F)
        # the rest of a route into the goal (traps of the spaces entered after c)
        r0 = np.full(n, _INF, np.int64)
        r0[goal] = 0
        R = [r0]
        while R[-1][enemy.cell] >= _INF and len(R) < n:
            R.append(step(R[-1], trap, zero))
        ends = [int(c) for c in np.flatnonzero(F[S] < _INF) if scene.may_end(enemy, int(c),
                                                                             occ)]
        first = np.argmax(F < _INF, axis=0)          # d(c): fewest steps to c
        self.fwd = {e: None for e in ends}
        self.choice = {}                              # end -> (steps, traps) of its path
        self.keys = {}
        if R[-1][enemy.cell] < _INF:
            top = min(len(R) - 1 + limit, n - 1)
            while len(R) <= top:
                R.append(step(R[-1], trap, zero))
            R = np.array(R)
            for e in ends:
                best = None
                for s1 in range(int(first[e]), min(S, top) + 1):
                    t1 = int(F[s1, e])
                    if s1 > first[e] and t1 == F[s1 - 1, e]:
                        continue                      # a shorter walk has as few traps
                    col = R[: top - s1 + 1, e]
                    t2 = int(col[-1])
                    if t2 >= _INF:
                        continue
                    s2 = int(np.argmax(col == t2))
                    k = ((t1 + t2, s1 + s2), s2, t1, s1)
                    if best is None or k < best:
                        best = k
                if best is not None:
                    self.keys[e] = best
                    self.choice[e] = (best[3], best[2])
        if not self.keys:
            for e in ends:
                s = min(S, int(first[e]) + limit)
                t = int(F[s, e])
                s = int(np.argmax(F[:, e] == t))
                self.fwd[e] = (t, s)
                self.choice[e] = (s, t)

    def planned(self) -> list[int]:
        return list(self.keys)

    def route_key(self, e: int, to_target: np.ndarray) -> tuple:
        plan, s_rem, t_now, _ = self.keys[e]
        far = -int(to_target[e]) if s_rem == 0 else 0
        return (plan, s_rem, far, t_now)

    def fallback_key(self, e: int) -> tuple:
        return self.fwd[e]

    def path(self, e: int) -> list[int]:
        """A walk to e of the chosen steps and traps, back through the layers."""
        s, t = self.choice[e]
        F, path, c = self.F, [e], e
        while c != self.start:
            if F[s - 1, c] == t:
                s -= 1
                continue
            t -= int(self.trap[c])
            s -= 1
            c = next(int(u) for u in self.nbr[c] if u >= 0 and F[s, u] == t)
            path.append(c)
        return path[::-1]


def _routes(scene: Scene, enemy: Figure, budget: int, goal: list[int]):
    k = scene.trap_detour_limit
    if k is None or k == 0 or k >= scene.board.n_cells - 1 or not scene.traps_for(enemy).any():
        return _Routes(scene, enemy, budget, goal)
    return _LimitedRoutes(scene, enemy, budget, goal, k)


def enemy_destination(scene: Scene, enemy: Figure, target: Figure, move: int,
                      attack_range: int) -> dict:
    """Where the enemy ends when it moves towards ``target`` (see docs/dark_realms.md,
    "Enemy destination", for the rule and its tie-breaks)."""
    board = scene.board
    occ = scene.occupant(enemy)
    xy = board.coords

    to_target = scene.distances_from(target.cell)

    def in_range(c):
        return to_target[c] <= attack_range

    goal = [int(c) for c in np.flatnonzero(to_target <= attack_range)
            if scene.may_end(enemy, int(c), occ)]
    if in_range(enemy.cell):
        dest, path, how = enemy.cell, [enemy.cell], "in_range"
    else:
        routes = _routes(scene, enemy, move, goal)
        planned = routes.planned()
        if planned:
            def key(e):
                return routes.route_key(e, to_target) + (int(xy[e, 0]), int(xy[e, 1]))
            how = "route"
        else:
            def key(e):
                return ((int(to_target[e]),) + routes.fallback_key(e) +
                        (int(xy[e, 0]), int(xy[e, 1])))
            how = "no_route"
            planned = routes.fwd
        dest = min(planned, key=key)
        path = routes.path(dest)
    traps = scene.traps_for(enemy)
    return {"target": target.id, "at": scene.coord(dest), "steps": len(path) - 1,
            "path": coord_list(board, path), "traps": int(sum(traps[c] for c in path[1:])),
            "in_range": bool(in_range(dest)), "reason": how}


def enemy_turn(scene: Scene, enemy: Figure, move: int, attack_range: int = 1) -> dict:
    """Target choice and destination of one enemy move action."""
    if enemy.side != "enemy":
        raise QueryError(f"query.enemy names {enemy.id!r}, a {enemy.side}; the enemy AI "
                         f"moves enemies only")
    targets = choose_targets(scene, enemy)
    moves = [enemy_destination(scene, enemy, t, move, attack_range) for t in targets]
    out = {"enemy": enemy.id, "kind": "enemy", "move": move, "attack_range": attack_range,
           "target": targets[0].id if len(targets) == 1 else None,
           "targets": [t.id for t in targets]}
    if len(moves) == 1:
        out.update({k: v for k, v in moves[0].items() if k != "target"})
    elif not moves:
        out.update({"at": scene.coord(enemy.cell), "steps": 0,
                    "path": [scene.coord(enemy.cell)], "traps": 0, "in_range": False,
                    "reason": "no_target"})
    out["moves"] = moves
    return out


# ----------------------------------------------------------------------------- solve()
_QUERY_KEYS = ("figure", "enemy", "move", "roll", "bonus", "stamina", "stamina_only", "die",
               "teleport", "attack_range", "paths")


def _only(query: dict, kind: str, allowed) -> None:
    extra = sorted(k for k in query if k not in set(allowed) | {"paths"})
    if extra:
        raise ScenarioError(f"query key(s) {extra} do not apply to a {kind} query; it takes "
                            f"{sorted(allowed)}")


def _card_move(scene: Scene, query: dict) -> int:
    """The card's move: "Move N", or a die roll plus a bonus ("Move" / "Move +k")."""
    if "move" in query and "roll" in query:
        raise ScenarioError("query gives both 'move' (a fixed Move N) and 'roll' (a rolled "
                            "Move); give one")
    if "move" in query:
        if "bonus" in query:
            raise ScenarioError("query.bonus goes with 'roll' (card 'Move +k'), not with "
                                "'move'")
        return get_int(query, "move", "query", lo=0, hi=MAX_MOVE)
    faces = DICE[scene.die]
    roll = get_int(query, "roll", "query")
    if not 1 <= roll <= faces:
        raise QueryError(f"query.roll is {roll}, which a {scene.die} cannot show; expected "
                         f"1..{faces}")
    return roll + get_int(query, "bonus", "query", 0, lo=0, hi=MAX_MOVE)


@register_game("dark_realms")
def solve_dark_realms(scenario: dict) -> dict:
    scene = read_scene(scenario)
    return Position(scene, scenario).solve(scenario["query"])


def _solve_scene(scene: Scene, query: dict, enemy_ai=None) -> dict:
    """solve() of a query on a scene; ``enemy_ai(scene, enemy, move, attack_range)``
    answers enemy queries (default :func:`enemy_turn`)."""
    paths = get_bool(query, "paths", "query", False)
    if "enemy" in query:
        _only(query, "enemy", ("enemy", "move", "roll", "bonus", "attack_range"))
        enemy = scene.figure(get_id(query, "enemy", "query"), "query.enemy")
        if "move" not in query and "roll" not in query:
            raise ScenarioError("an enemy query needs 'move' (Move N) or 'roll'")
        move = _card_move(scene, query)
        rng = get_int(query, "attack_range", "query", 1, lo=1, hi=MAX_MOVE)
        return (enemy_ai or enemy_turn)(scene, enemy, move, rng)
    if "figure" not in query:
        raise ScenarioError("query needs 'figure' (a figure's id) or 'enemy' (enemy AI)")
    fig = scene.figure(get_id(query, "figure", "query"))
    head = {"figure": fig.id}
    if "teleport" in query:
        _only(query, "teleport", ("figure", "teleport"))
        n = get_int(query, "teleport", "query", lo=0, hi=MAX_MOVE)
        return {**head, "kind": "teleport", "teleport": n,
                "ends": teleport_ends(scene, fig, n)}
    if "die" in query:
        _only(query, "die", ("figure", "die", "bonus", "stamina"))
        die = get_str(query, "die", "query", DICE)
        bonus = get_int(query, "bonus", "query", 0, lo=0, hi=MAX_MOVE)
        stamina = get_int(query, "stamina", "query", 0, lo=0, hi=MAX_MOVE)
        return {**head, "kind": "die", "die": die, "bonus": bonus, "stamina": stamina,
                "ends": die_odds(scene, fig, die, bonus, stamina, paths)}
    if get_bool(query, "stamina_only", "query", False):
        _only(query, "stamina_only", ("figure", "stamina_only", "stamina"))
        if fig.side != "hero":
            raise QueryError(f"{fig.id!r} is a {fig.side}; only heroes can make a "
                             f"Stamina-only move")
        if fig.stamina_moved:
            raise QueryError(f"hero {fig.id!r} has already made its Stamina-only move this "
                             f"round (stamina_moved); one such move per round")
        stamina = get_int(query, "stamina", "query", lo=0, hi=MAX_MOVE)
        return {**head, "kind": "stamina_only", "card_move": 0, "stamina": stamina,
                "ends": move_ends(scene, fig, 0, stamina, paths)}
    _only(query, "move", ("figure", "move", "roll", "bonus", "stamina", "stamina_only"))
    if "move" not in query and "roll" not in query:
        raise ScenarioError("query needs one of 'move', 'roll', 'stamina_only', 'die', "
                            "'teleport' (or 'enemy' for the enemy AI)")
    card = _card_move(scene, query)
    stamina = get_int(query, "stamina", "query", 0, lo=0, hi=MAX_MOVE)
    return {**head, "kind": "move", "card_move": card, "stamina": stamina,
            "ends": move_ends(scene, fig, card, stamina, paths)}


# ----------------------------------------------------------------------------- position
#: Moves.columns of hero queries: stamina (Stamina spent), traps_cost; of die queries:
#: min_roll; of enemy queries: in_range (0/1), target (index into the result's targets)
ENEMY_REASONS = ("in_range", "route", "no_route", "no_target")


@register_position("dark_realms")
class Position(CellActions, _Position):
    """A live Dark Realms position: the scene (board, terrain masks, options) read once,
    the figures, one occupancy layer (int32[N], the team of the figure on each space, -1
    empty) kept in step with one prepared query per (team, flying) kind of mover.

    Query keys (those of the scenario ``query`` without ``figure``): ``move`` | ``roll``
    [+ ``bonus``] [+ ``stamina``], ``stamina_only`` + ``stamina``, ``die`` [+ ``bonus``,
    ``stamina``], ``teleport``, ``paths``; for the enemy AI ``enemy=True`` (or the enemy's
    id) with ``move`` | ``roll`` and ``attack_range``.

    Moves of a hero query: ``actions`` = spaces, ``costs`` = spaces moved (teleport: grid
    distance), ``penalty`` = traps triggered, ``columns``: ``stamina``, ``traps_cost``
    (card/Stamina moves), ``min_roll`` (die). Of an enemy query: one row per target the
    AI may pick (ties: several), ``actions`` = its destination, ``costs`` = steps,
    ``penalty`` = traps on the path, ``columns``: ``in_range`` (0/1), ``reason`` (index
    into ``ENEMY_REASONS``). No stop codes (Dark Realms moves never stop early).

    >>> import movecore as mc
    >>> pos = mc.position({"game": "dark_realms", "board": {"cells": [
    ...     {"at": [q, 0]} for q in range(5)]}, "figures": [
    ...     {"id": "ayla", "side": "hero", "at": [0, 0]},
    ...     {"id": "orc", "side": "enemy", "at": [4, 0]}], "query": {"figure": "ayla",
    ...     "move": 2}})
    >>> pos.legal_moves("ayla", move=2).coords.tolist()
    [[0, 0], [1, 0], [2, 0]]
    >>> pos.apply_move("ayla", (2, 0), move=2)
    >>> m = pos.legal_moves("orc", enemy=True, move=3)
    >>> m.coords.tolist(), m.to_dicts()[0]["target"]
    ([[3, 0]], 'ayla')
    """

    STOP_REASONS = (None,)

    def __init__(self, scene: Scene, scenario: Mapping | None = None):
        self.scene = scene
        self.board = scene.board
        self._scenario = scenario
        n = scene.board.n_cells
        self.occ = np.full(n, T.OCC_EMPTY, T.INDEX)
        for f in scene.figures:
            self.occ[f.cell] = f.team
        self.index = {f.id: f for f in scene.figures}
        self._rank = np.empty(n, np.int64)
        xy = scene.board.coords
        self._rank[np.lexsort((xy[:, 1], xy[:, 0]))] = np.arange(n)
        # Per-position state: ``scene.figures`` (Figure objects), ``scene.trap``,
        # ``occ`` and ``_trap_pen`` (the trap layer as the penalty kernels read it),
        # ``_n_traps``, ``version``. The rest is shared with copies (board-only, never
        # written once published) or a cache of this position.
        self._trap_pen = scene.trap.astype(T.INDEX)
        self._figs_owned = True   # scene.figures and index are this position's alone
        self._flags = {}       # flying -> uint8[N] cell flags (board-only, shared)
        # prepared queries: key ((team, flying), (team, "traps"), ...) -> Prepared
        # reading this position's ``occ`` (and ``_trap_pen``): its own. ``_proto``: key
        # (with its trap levels) -> the prepared query made by this position or a
        # relative (copies share it; entries are published whole and never written),
        # only ever rebound to a position's own layers (``bind_occupant``). ``_rev``:
        # the enemies' reverse query's prototype (its terrain is the trap layout: this
        # position's and its copies' until a trap changes).
        self._queries = {}
        self._proto = {}
        self._rev = None
        self._levels = {}      # query key -> trap levels its penalty layer tracks
        self._zeros = np.zeros(n, T.INDEX)   # read-only zero column (never written)
        self._zeros.flags.writeable = False
        self._no_traps = np.zeros(n, T.INDEX)  # the enemy AI's (writeable: one signature)
        self._faces = DICE[scene.die]
        self._n_traps = int(scene.trap.sum())
        self._last = None
        self.version = 0

    @classmethod
    def from_scenario(cls, scenario: Mapping) -> "Position":
        scenario = expect_object(scenario, "scenario")
        s = dict(scenario)
        s.setdefault("query", {})
        return cls(read_scene(s), scenario)

    def copy(self) -> "Position":
        """An independent position: figures and occupancy copied, board shared."""
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        sc = self.scene
        # the figure objects (and ``index``) are shared until either position changes
        # one (copy on write: see _own_figures)
        new.scene = Scene(sc.board, sc.obstacle, sc.trap.copy(), sc.rift, sc.figures,
                          sc.pass_allies, sc.die, sc.trap_detour_limit, sc._cache)
        self._figs_owned = new._figs_owned = False
        new.occ = self.occ.copy()
        new._trap_pen = self._trap_pen.copy()
        new._queries = {}     # rebound to the copy's layers when first asked
        new._last = None
        return new

    def __getstate__(self) -> dict:
        """Pickled without prepared queries (compiled kernels): made again when asked."""
        state = dict(self.__dict__)
        state.update(_queries={}, _proto={}, _rev=None, _levels={}, _last=None)
        return state

    def _own_figures(self) -> None:
        """Before a change to a figure: the figure objects (shared with copies until
        then) made this position's own."""
        if not self._figs_owned:
            figs = [_clone(f) for f in self.scene.figures]
            self.scene.figures = figs
            self.index = {f.id: f for f in figs}
            self._figs_owned = True

    def _mine(self, f: Figure) -> Figure:
        """Figure ``f`` of this position, made its own (see :meth:`_own_figures`)."""
        if not self._figs_owned:
            self._own_figures()
            return self.index[f.id]
        return f

    # ---------------------------------------------------------------- figures
    @property
    def figures(self) -> list:
        return [f.id for f in self.scene.figures]

    @property
    def sides(self) -> list[str]:
        return list(dict.fromkeys(f.side for f in self.scene.figures))

    def team_figures(self, side: str) -> list:
        return [f.id for f in self.scene.figures if f.side == side]

    def touching(self, figure) -> list:
        """Ids of the figures on a space at grid distance 1 of ``figure``'s, in play
        order."""
        f = self._fig(figure)
        near = self._distances(f.cell)
        return [g.id for g in self.scene.figures if g is not f and near[g.cell] == 1]

    def _fig(self, figure) -> Figure:
        f = self.index.get(figure_key(figure))
        if f is None:
            raise self._figure_error(figure)
        return f

    def side_of(self, figure) -> str:
        """``"hero"``, ``"enemy"`` or ``"summon"``."""
        return self._fig(figure).side

    def where(self, figure) -> tuple:
        return self.board.coord(self._fig(figure).cell)

    def _cell(self, at, what: str) -> int:
        return cell_index(self.board, at, what)

    def _set_occ(self, cell: int, value: int) -> None:
        self.occ[cell] = value    # the layer every prepared query reads

    def remove_figure(self, figure) -> None:
        """Take a figure off the board (defeated, dismissed summon)."""
        f = self._fig(figure)
        self._record(_unremove, _copy.copy(f), self.scene.figures.index(f))
        self._own_figures()
        f = self.index[f.id]
        self.scene.figures = [g for g in self.scene.figures if g is not f]
        del self.index[f.id]
        self._set_occ(f.cell, T.OCC_EMPTY)
        self._touch()

    def add_figure(self, figure, side, at, *, speed: int = 0, marked: bool = False,
                   flying: bool = False) -> None:
        """Put a new figure (a summon, a spawned enemy) on the empty space ``at``.

        >>> pos = Position.from_scenario({"board": {"cells": [{"at": [0, 0]},
        ...     {"at": [1, 0]}]}, "figures": []})
        >>> pos.add_figure("wolf", "summon", (1, 0)); pos.figures
        ['wolf']
        """
        figure = new_figure_id(figure)
        if figure in self.index:
            raise PlacementError(f"add_figure: figure {figure!r} is already in play")
        if side not in SIDES:
            raise QueryError(f"add_figure: side {describe(side)} is not one of {SIDES}")
        if marked and side == "enemy":
            raise QueryError("add_figure: only heroes and summons carry a Mark")
        cell = self._cell(at, "add_figure: at")
        if self.occ[cell] != T.OCC_EMPTY or self.scene.obstacle[cell]:
            raise PlacementError(f"add_figure: {list(self.board.coord(cell))} is not an "
                                 f"empty space")
        f = Figure(figure, side, cell, speed=int(speed), marked=bool(marked),
                   flying=bool(flying))
        self._record(_unadd, figure)
        self._own_figures()
        self.scene.figures = self.scene.figures + [f]
        self.index[figure] = f
        self._set_occ(cell, f.team)
        self._touch()

    def set_stamina_moved(self, figure, spent: bool = True) -> None:
        """Mark a hero's once-per-round Stamina-only move as made (or, at a new round,
        as available again)."""
        f = self._fig(figure)
        if f.side != "hero" and spent:
            raise QueryError(f"{figure!r} is a {f.side}; only heroes have Stamina")
        self._record(_unset, f.id, "stamina_moved", f.stamina_moved)
        self._mine(f).stamina_moved = bool(spent)
        self._touch()

    def set_marked(self, figure, marked: bool = True) -> None:
        """Give or take a hero's or summon's Mark (the enemy AI targets it first)."""
        f = self._fig(figure)
        if f.side == "enemy" and marked:
            raise QueryError(f"{figure!r} is an enemy; only heroes and summons carry a "
                             f"Mark")
        self._record(_unset, f.id, "marked", f.marked)
        self._mine(f).marked = bool(marked)
        self._touch()

    def set_trap(self, at, present: bool = True) -> None:
        """Place a trap on a space, or take one away (a triggered, one-shot trap)."""
        cell = self._cell(at, "set_trap: at")
        if present and self.scene.obstacle[cell]:
            raise PlacementError(f"set_trap: {list(self.board.coord(cell))} is an "
                                 f"obstacle")
        self._record_snapshot()
        if self.scene.trap[cell] != present:
            self.scene.trap[cell] = present
            self._trap_pen[cell] = int(present)   # the layer trap queries read
            self._n_traps += 1 if present else -1
            self._rev = None                   # its terrain is the trap mask
            self._queries.pop((ENEMIES, "rev"), None)
        self._touch()

    # ---------------------------------------------------------------- moves
    def _flags_for(self, flying: bool) -> np.ndarray:
        fl = self._flags.get(flying)
        if fl is None:
            fl = self._flags[flying] = self.scene.cell_flags(
                Figure(None, "hero", 0, flying=flying))
        return fl

    def _prepared(self, f: Figure, budget: int) -> Prepared:
        return self._query_for((f.team, f.flying), f, budget, False)

    def _plain(self, f: Figure, budget: int):
        """(cells, costs) of a move without trap penalty, in solve()'s order."""
        q = self._prepared(f, budget)
        if q.fast:
            row, ends = scratch_rows(1, self.board.n_cells)   # this thread's (threads
            #                                                   may share a position)
            row[0, 0] = f.cell
            row[0, 1] = budget
            total = q._run_into(row, ends, self._rank)
            blk = ends[:2, :total].copy()
            return blk[0], blk[1]
        r = q.reach(f.cell, budget)
        order = np.argsort(r.costs.astype(np.int64) * self.board.n_cells +
                           self._rank[r.cells], kind="stable")
        return r.cells[order], r.costs[order]

    def _trapped(self, f: Figure, budget: int):
        """(cells, costs, traps, traps_cost) of a walker's move with traps as a second
        objective (one prepared penalty query per team; trap changes via set_layer)."""
        q = self._query_for((f.team, "traps"), f, budget, True)
        got = q._pen_sorted(f.cell, budget, self._rank)
        if got is not None:
            return got
        r = q.reach(f.cell, budget, paths=False)  # (no path is asked of it)
        cells = r.cells
        order = np.argsort(r.costs.astype(np.int64) * self.board.n_cells +
                           self._rank[cells], kind="stable")
        return cells[order], r.costs[order], r.penalties[order], r.penalty_costs[order]

    def _query_for(self, key, f: Figure, budget: int, traps: bool) -> Prepared:
        """The prepared query ``key`` (kept in step with occupancy and traps)."""
        q = self._queries.get(key)
        levels = min(self._n_traps, MAX_TRAPS_TRACKED) if traps else 0
        if q is None or q.max_budget < budget or self._levels.get(key, 0) < levels:
            levels = max(levels, self._levels.get(key, 0))
            pkey = (key, levels)
            proto = self._proto.get(pkey)
            if proto is None or proto.max_budget < budget:
                with BUILD_LOCK:      # (copies share it: built once, then published)
                    proto = self._proto.get(pkey)
                    if proto is None or proto.max_budget < budget:
                        top = max(budget, 8, 2 * q.max_budget if q is not None else 0)
                        extra = dict(enter_penalty=self._trap_pen,
                                     max_penalty=levels) if traps else {}
                        proto = self._proto[pkey] = prepare(
                            self.board, self.scene.mover(f), min(top, T.MAX_BUDGET),
                            occupant=self.occ, cell_flags=self._flags_for(f.flying),
                            **extra)
            layers = {"enter_pen": self._trap_pen} if traps else {}
            q = self._queries[key] = bind_occupant(proto, self.occ, **layers)
            self._levels = {**self._levels, key: levels}
        return q

    def _distances(self, cell: int) -> np.ndarray:
        """int64[N] grid distances from ``cell`` (rows of a board-only N x N table made
        once, shared by copies, for boards up to 2,048 spaces)."""
        table = self.scene._cache.get("distances")
        if table is None:
            if self.board.n_cells > 2048:
                return self.scene.distances_from(cell)
            n = self.board.n_cells
            table = np.stack([self.scene.distances_from(c) for c in range(n)])
            self.scene._cache["distances"] = table
        return table[cell]

    def _reverse_query(self, enemy: Figure):
        """(prepared query, W) of the enemies' reverse searches: one scalar cost per
        route, ``steps + W * traps`` (entering a trap costs ``W + 1``, another space 1;
        W = N + 1 > any least route's steps), so (traps, steps) in lexicographic order
        run on the packed kernel. Made again after a trap changes."""
        W = self.board.n_cells + 1
        hit = self._queries.get((ENEMIES, "rev"))
        if hit is None:
            proto = self._rev
            if proto is None:
                board = self.board.with_layers(terrain=self.scene.trap.astype(T.INDEX))
                proto = self._rev = prepare(
                    board, Mover(terrain_cost=[1, W + 1], team=ENEMIES, allies="block",
                                 enemies="block"),
                    (self._n_traps + 1) * W, occupant=self.occ,
                    cell_flags=self._flags_for(False))
            hit = self._queries[(ENEMIES, "rev")] = bind_occupant(proto, self.occ)
        return hit, W

    def _enemy_turn(self, scene: Scene, enemy: Figure, move: int, attack_range: int,
                    dest_cells: list | None = None):
        """enemy_turn() on the position's prepared queries where the rules allow (allies
        not passed, melee, traps avoided first or none): for a walker the reverse
        search from the goal is a search from the target's space, whose first step
        enters exactly the goal spaces (costs ``steps + W * traps``); for a flyer (no
        traps) one batch from the goal spaces. Else the reference enemy_turn().
        ``dest_cells`` (a list) receives the cell of every move on the fast path."""
        n = self.board.n_cells
        walker_traps = self._n_traps and not enemy.flying
        if (enemy.side != "enemy" or scene.pass_allies or attack_range != 1
                or (walker_traps and scene.trap_avoidance != "detour")
                or (self._n_traps + 1) * (n + 1) > T.MAX_BUDGET
                or (enemy.flying and not self._query_for((ENEMIES, "far", True), enemy, n,
                                                         False).fast)):
            return enemy_turn(scene, enemy, move, attack_range)
        players = [f for f in scene.figures if f.team == PLAYERS]
        tier = ([f for f in players if f.marked] or
                [f for f in players if f.side == "summon"] or players)
        n = self.board.n_cells
        if len(tier) > 1:
            # the distance field: every arrival of an unbounded move; a flyer's counts the
            # obstacles it flies over, so its query lets it end anywhere (same routes)
            key = (ENEMIES, "field", enemy.flying)
            fq = self._queries.get(key)
            if fq is None:
                with BUILD_LOCK:
                    proto = self._proto.get(key)
                    if proto is None:
                        proto = self._proto[key] = prepare(
                            self.board, scene.mover(enemy), n, occupant=self.occ,
                            cell_flags=np.zeros(n, np.uint8) if enemy.flying else
                            self._flags_for(False))
                fq = self._queries[key] = bind_occupant(proto, self.occ)
            r = fq.reach(enemy.cell, n)
            field_ = np.full(n, -1, np.int64)
            field_[r.cells] = r.costs
            steps = {id(f): _steps_to(scene, enemy, field_, f) for f in tier}
            closest = min(steps.values())
            tier = [f for f in tier if steps[id(f)] == closest]
            fastest = max(f.speed for f in tier)
            tier = [f for f in tier if f.speed == fastest]
        moves = [self._enemy_dest(enemy, t, move, dest_cells) for t in tier]
        out = {"enemy": enemy.id, "kind": "enemy", "move": move,
               "attack_range": attack_range,
               "target": tier[0].id if len(tier) == 1 else None,
               "targets": [t.id for t in tier]}
        if len(moves) == 1:
            out.update({k: v for k, v in moves[0].items() if k != "target"})
        elif not moves:
            out.update({"at": scene.coord(enemy.cell), "steps": 0,
                        "path": [scene.coord(enemy.cell)], "traps": 0, "in_range": False,
                        "reason": "no_target"})
        out["moves"] = moves
        return out

    def _enemy_dest(self, enemy: Figure, target: Figure, move: int,
                    dest_cells: list | None = None) -> dict:
        """enemy_destination() with attack_range 1 (see :meth:`_enemy_turn`); the cell
        of the destination is appended to ``dest_cells`` when given."""
        board, scene = self.board, self.scene
        xy = board.coords
        tgt = target.cell

        dist = self._distances(tgt)

        traps = scene.trap
        if dist[enemy.cell] <= 1:
            if dest_cells is not None:
                dest_cells.append(enemy.cell)
            return {"target": target.id, "at": scene.coord(enemy.cell), "steps": 0,
                    "path": [scene.coord(enemy.cell)], "traps": 0, "in_range": True,
                    "reason": "in_range"}
        flying = enemy.flying
        has_traps = self._n_traps > 0 and not flying
        if has_traps:
            fq = self._query_for((ENEMIES, "traps"), enemy, move, True)
            fr = fq.reach(enemy.cell, move)
            cells = fr.cells
            t_now = fr.penalties
            s_now = fr.penalty_costs
        else:
            fr = self._query_for((ENEMIES, flying), enemy, move, False).reach(enemy.cell,
                                                                              move)
            cells = fr.cells
            t_now = self._no_traps[:cells.shape[0]]
            s_now = fr.costs
        n = board.n_cells
        rem = np.full(n, -1, np.int64)     # (this call's: threads may share the position)
        W = 1
        occ = self.occ.copy()              # the mover's own space empty, for this call
        occ[enemy.cell] = T.OCC_EMPTY
        if flying:
            # a flyer passes over obstacles next to the target, which are no goal: one
            # search from every goal space (one batch), the least steps over them
            goal = [a for a in board.nbr[tgt].tolist() if a >= 0 and
                    not scene.obstacle[a] and self.occ[a] == T.OCC_EMPTY]
            if goal:
                rq = bind_occupant(self._query_for((ENEMIES, "far", True), enemy, n,
                                                   False), occ)
                rows = np.empty((len(goal), 3), np.int64)
                rows[:, 0] = goal
                rows[:, 1] = n
                many = np.empty((3, len(goal) * n), T.INDEX)
                total = rq._run_into(rows, many)
                big = np.int64(1) << 40
                rem.fill(big)
                np.minimum.at(rem, many[0, :total], many[1, :total].astype(np.int64))
                rem[rem == big] = -1
        else:
            # the reverse search: from the target's space, the mover's own space empty;
            # an arrival's cost k = steps + W * traps (the target's space is no plan)
            rq, W = self._reverse_query(enemy)
            rr = bind_occupant(rq, occ).reach(tgt)
            rem[rr.cells] = rr.costs
            rem[tgt] = -1
        best, routed = _pick()(cells, t_now, s_now, rem, flying, W, traps, dist,
                                   self._rank)
        best = int(best)
        how = "route" if routed else "no_route"
        dest = int(cells[best])
        path = fr.path_nodes(best, has_traps)   # fr.path(dest, least_penalty=has_traps)
        if dest_cells is not None:
            dest_cells.append(dest)
        return {"target": target.id, "at": scene.coord(dest), "steps": len(path) - 1,
                "path": xy[path].tolist(),
                "traps": int(traps[path[1:]].sum()) if has_traps else 0,  # (none: no trap)
                "in_range": bool(dist[dest] <= 1), "reason": how}

    def legal_moves(self, figure, **query) -> Moves:
        """Every legal end of ``figure`` for ``query`` (the scenario query's keys without
        ``figure``; ``enemy=True`` asks the enemy AI), in ``solve()``'s order.

        >>> pos = Position.from_scenario({"board": {"cells": [{"at": [q, 0]}
        ...     for q in range(4)]}, "figures": [{"id": "a", "side": "hero", "at": [0, 0]}]})
        >>> m = pos.legal_moves("a", move=1, stamina=1)
        >>> m.actions.tolist(), m.columns["stamina"].tolist()
        ([0, 1, 2], [0, 0, 1])
        """
        f = self._fig(figure)
        card = self._fast_card(f, query)
        if card >= 0:
            stamina = query.get("stamina", 0)
            if f.flying or self._n_traps == 0:
                cells, costs = self._plain(f, card + stamina)
                traps = self._zeros[:cells.shape[0]]
                tcost = costs
            else:
                cells, costs, traps, tcost = self._trapped(f, card + stamina)
            spent = np.maximum(costs - card, 0) if stamina else self._zeros[:cells.shape[0]]
            m = Moves(self, figure, cells, costs, penalty=traps,
                      columns={"stamina": spent, "traps_cost": tcost}, query=query,
                      extra=("move", card))
            self._last = m
            return m
        if "enemy" in query and f.side == "enemy" and query["enemy"] is True:
            move = query.get("move")
            rng = query.get("attack_range", 1)
            if len(query) <= 3 and type(move) is int and type(rng) is int and \
                    0 <= move <= MAX_MOVE and 1 <= rng <= MAX_MOVE and \
                    (len(query) == 2 + ("attack_range" in query)):
                cells: list = []
                res = self._enemy_turn(self.scene, f, move, rng, cells)
                m = self._moves_of(res, query, cells if cells or not res["moves"] else None)
                self._last = m
                return m
        if "enemy" in query:
            ask = query["enemy"]
            if type(ask) is not bool:
                raise QueryError(f"enemy must be True (the enemy AI's move) or False; got "
                                 f"{describe(ask)}")
            q = {k: v for k, v in query.items() if k != "enemy"}
            if ask:
                q["enemy"] = f.id
            else:
                q["figure"] = f.id
        else:
            q = {**query, "figure": f.id}
        res = self.solve(q, _moves=True)
        res.query = query
        self._last = res
        return res

    def _fast_card(self, f: Figure, query: Mapping) -> int:
        """The card move of a plain card query ("move" N, or "roll" r [+ "bonus"], with
        "stamina" for heroes, no paths) that no trap affects; -1 if it is not one (the
        general path then answers and validates)."""
        card = -1
        n = 0
        for k, v in query.items():
            if type(v) is not int or v < 0 or v > MAX_MOVE:
                return -1
            if k == "move":
                card = v
            elif k == "roll":
                if not 1 <= v <= self._faces:
                    return -1
                card = v + query.get("bonus", 0) if type(query.get("bonus", 0)) is int \
                    else -1
            elif k == "stamina":
                if v and f.side != "hero":
                    return -1
            elif k != "bonus":
                return -1
            n += 1
        if ("move" in query) == ("roll" in query) or ("bonus" in query and "move" in query):
            return -1
        return card

    def legal_moves_side(self, side, **query) -> dict:
        return {fid: self.legal_moves(fid, **query) for fid in self.team_figures(side)}

    def apply_move(self, figure, to, **query) -> None:
        """Move ``figure`` to the legal end ``to`` (cell index or coordinate) of ``query``;
        :class:`IllegalMoveError` (position unchanged) if it is not one. A Stamina-only
        move marks the hero's ``stamina_moved``."""
        f = self._fig(figure)
        m = self._last
        if m is None or m.version != self.version or m.figure != figure or m.query != query:
            m = self.legal_moves(figure, **query)
        cell = to if type(to) is int and 0 <= to < self.board.n_cells else \
            self._cell(to, "to")
        acts = m.actions   # (a list's `in` beats numpy's == and any() on few ends)
        if not (cell in acts.tolist() if len(acts) < 128 else (acts == cell).any()):
            raise IllegalMoveError(f"{describe(to)} is not a legal end of figure "
                                   f"{figure!r} in this position")
        self._move(f, cell, bool(query.get("stamina_only")))

    def apply_row(self, moves: Moves, row: int) -> None:
        """The end at ``row`` of ``moves``: taken as it is while the position has not
        changed since ``moves`` were answered, else validated as :meth:`apply_move`."""
        row = self._row(moves, row)
        f = self.index.get(moves.figure) if moves.version == self.version else None
        if f is None:
            return self.apply_move(moves.figure, int(moves.actions[row]), **moves.query)
        self._move(f, int(moves.actions[row]), bool(moves.query.get("stamina_only")))

    def _move(self, f: Figure, cell: int, stamina: bool = False) -> None:
        self._record(_unmove, f.id, f.cell, f.stamina_moved)
        if stamina:
            f = self._mine(f)
            f.stamina_moved = True
        if cell != f.cell:
            f = self._mine(f)
            self._set_occ(f.cell, T.OCC_EMPTY)
            f.cell = cell
            self._set_occ(cell, f.team)
        self._touch()

    def _key_parts(self) -> tuple:
        return ([(f.id, f.side, f.cell, f.speed, f.marked, f.flying, f.stamina_moved)
                 for f in self.scene.figures], self._rare_part())

    def _end_dicts(self, moves: Moves) -> list[dict]:
        kind = moves._extra[0]
        if kind == "move":
            card = moves._extra[1]
            return [{"at": list(self.board.coord(c)), "cost": k, "stamina": max(0, k - card),
                     "traps": t, "traps_cost": tk}
                    for c, k, t, tk in zip(moves.actions.tolist(), moves.costs.tolist(),
                                           moves.penalty.tolist(),
                                           moves.columns["traps_cost"].tolist())]
        if kind == "result":
            r = moves._extra[1]
            return r["moves"] if "enemy" in r else r["ends"]
        raise AssertionError(kind)  # pragma: no cover

    # ---------------------------------------------------------------- scenario form
    def to_scenario(self, query: Mapping | None = None) -> dict:
        """The scenario of this position (``solve()`` of it answers as this position)."""
        base = self._scenario or {}
        s = {k: _copy.deepcopy(v) for k, v in base.items() if k not in ("figures", "query")}
        s.setdefault("game", "dark_realms")
        board = self.board
        grid = board.kind if board.kind == "hex" else f"square{board.nbr.shape[1]}"
        sc = self.scene
        cells = []
        for c in range(board.n_cells):
            e = {"at": list(board.coord(c))}
            if sc.obstacle[c]:
                e["obstacle"] = True
            if sc.trap[c]:
                e["trap"] = True
            if sc.rift[c]:
                e["rift"] = True
            cells.append(e)
        s["board"] = {"grid": grid, "cells": cells}
        opts = dict(s.get("options", {}))
        opts.pop("grid", None)
        s["options"] = opts
        s["figures"] = [{"id": f.id, "side": f.side, "at": list(board.coord(f.cell)),
                         "speed": f.speed, "marked": f.marked, "flying": f.flying,
                         "stamina_moved": f.stamina_moved} for f in sc.figures]
        s["query"] = dict(query) if query is not None else {}
        return s

    def solve(self, query: Mapping, _moves: bool = False):
        """``solve()``'s result for a scenario ``query`` object."""
        scene = self.scene
        query = expect_object(query, "query")
        expect_keys(query, "query", _QUERY_KEYS)
        res = _solve_scene(scene, query, self._enemy_turn)
        return self._moves_of(res, query) if _moves else res

    def _moves_of(self, res: dict, query: Mapping, cells: list | None = None) -> Moves:
        """The Moves of a solve() result (rows: its ends, or the enemy AI's moves, whose
        cells ``cells`` gives when known)."""
        if "enemy" in res and res.get("kind") == "enemy":
            rows = res["moves"]
            if cells is None:
                cells = [_board_find(self.board, r["at"]) for r in rows]
            tids = res["targets"]
            # one table, a row per column: cells, steps, traps, in range, reason, target
            t = np.array([cells, [r["steps"] for r in rows], [r["traps"] for r in rows],
                          [r["in_range"] for r in rows],
                          [ENEMY_REASONS.index(r["reason"]) for r in rows],
                          [tids.index(r["target"]) for r in rows]], T.INDEX)
            m = Moves(self, res["enemy"], t[0], t[1], penalty=t[2],
                      columns={"in_range": t[3], "reason": t[4], "target": t[5]},
                      query=dict(query), extra=("result", res))
            return m
        ends = res["ends"]
        cells = np.array([_board_find(self.board, e["at"]) for e in ends], T.INDEX)
        cols = {}
        if res["kind"] == "die":
            cols["min_roll"] = np.array([e["min_roll"] for e in ends], T.INDEX)
        elif res["kind"] != "teleport":
            cols["stamina"] = np.array([e["stamina"] for e in ends], T.INDEX)
            cols["traps_cost"] = np.array([e["traps_cost"] for e in ends], T.INDEX)
        pen = np.array([e.get("traps", 0) for e in ends], T.INDEX)
        return Moves(self, res["figure"], cells, np.array([e["cost"] for e in ends], T.INDEX),
                     penalty=pen, columns=cols, query=dict(query), extra=("result", res))


def _enemy_pick(cells, t_now, s_now, rem, flying, w, trap, dist, rank):
    """The enemy AI's choice among the forward ends ``cells`` (traps ``t_now`` and steps
    ``s_now`` to get there): (row, 1) of the least (traps in all, steps in all, steps
    left, farthest from the target when adjacent to it, traps now, x, y) among the ends
    with a route on (``rem[cell]``: a walker's reverse cost ``steps + w * traps``, the
    target's space -1; a flyer's steps left; -1 none), else (row, 0) of the least
    (distance to the target, traps, steps, x, y). ``rank`` orders (x, y)."""
    best = -1
    k0 = k1 = k2 = k3 = k4 = k5 = 0
    for j in range(cells.shape[0]):
        c = cells[j]
        k = rem[c]
        if k < 0:
            continue
        if flying:
            tr, sr = 0, k
        else:
            tr, sr = k // w - trap[c], k % w - 1
            if sr < 0:
                continue
        tn = np.int64(t_now[j])
        a0, a1, a2 = tn + tr, np.int64(s_now[j]) + sr, sr
        a3 = -dist[c] if sr == 0 else 0
        a4, a5 = tn, rank[c]
        if best < 0 or (a0, a1, a2, a3, a4, a5) < (k0, k1, k2, k3, k4, k5):
            best = j
            k0, k1, k2, k3, k4, k5 = a0, a1, a2, a3, a4, a5
    if best >= 0:
        return best, 1
    for j in range(cells.shape[0]):
        c = cells[j]
        a0, a1, a2, a3 = dist[c], np.int64(t_now[j]), np.int64(s_now[j]), rank[c]
        if best < 0 or (a0, a1, a2, a3) < (k0, k1, k2, k3):
            best = j
            k0, k1, k2, k3 = a0, a1, a2, a3
    return best, 0


@functools.lru_cache(maxsize=None)
def _pick():
    """:func:`_enemy_pick` compiled (Numba's cache, or once), on the first enemy AI
    query: numba is imported the package's way by then (the kernels ran before)."""
    from ... import _import_numba
    return _import_numba().njit(cache=T.CACHE, nogil=True)(_enemy_pick)


def board_degree(board: Board) -> int:
    """Most neighbours a space has (columns of ``board.nbr``)."""
    return int(board.nbr.shape[1])


def _board_find(board: Board, at) -> int:
    return board.find(tuple(at))


# ------------------------------------------------------------------ undo entries
def _unmove(pos: Position, fid, cell: int, stamina_moved: bool) -> None:
    pos._own_figures()        # (copies share figures until one changes: copy on write)
    f = pos.index[fid]
    f.stamina_moved = stamina_moved
    if cell != f.cell:
        pos._set_occ(f.cell, T.OCC_EMPTY)
        f.cell = cell
        pos._set_occ(cell, f.team)


def _unremove(pos: Position, f: Figure, at: int) -> None:
    f = _copy.copy(f)      # (the entry's own stays unshared: copies share the log)
    pos._own_figures()
    figs = list(pos.scene.figures)
    figs.insert(at, f)
    pos.scene.figures = figs
    pos.index[f.id] = f
    pos._set_occ(f.cell, f.team)


def _unadd(pos: Position, fid) -> None:
    pos._own_figures()
    f = pos.index.pop(fid)
    pos.scene.figures = [g for g in pos.scene.figures if g is not f]
    pos._set_occ(f.cell, T.OCC_EMPTY)


def _unset(pos: Position, fid, name: str, value) -> None:
    pos._own_figures()
    setattr(pos.index[fid], name, value)
