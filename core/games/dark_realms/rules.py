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

``solve()`` runs through the live :class:`~movecore.games.dark_realms.Position` (module
:mod:`.position`), which answers card moves and the enemy AI on prepared queries and
everything else by the functions of this module.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Mapping

import numpy as np

from ...board import GRID_KINDS, Board, Link
from ...errors import BoardError, LimitError, PlacementError, QueryError, ScenarioError
from ...kernels import _types as T
from ...mover import Mover
from ...scenario import (expect_keys, expect_object, get_bool, get_coord, get_id,
                        get_int, get_list, get_str)
from .._common import coord_list, end_order, find_figure, read_figures
# (the compiled pick of the live position's enemy AI, named here for the tests)
from ._enemy_pick import _pick  # noqa: F401

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


def _check_stamina(fig: Figure, stamina: int) -> None:
    if stamina and fig.side != "hero":
        raise QueryError(f"{fig.id!r} is a {fig.side}; only heroes can spend Stamina "
                         f"(got stamina {stamina})")


def move_ends(scene: Scene, fig: Figure, card_move: int, stamina: int = 0,
              paths: bool = False) -> list[dict]:
    """Every end of a move worth ``card_move`` spaces, extendable by ``stamina``.

    Each end: ``at``, ``cost`` (spaces moved), ``stamina`` (``max(0, cost - card_move)``),
    ``traps`` (the fewest traps a route to it within the budget crosses), ``traps_cost``
    (the cheapest such route), and with ``paths`` the cheapest route (``traps_path`` too
    when the fewest-trap route is dearer).

    >>> scene = read_scene({"board": {"cells": [{"at": [q, 0], "trap": q == 1}
    ...     for q in range(4)]}, "figures": [{"id": "a", "side": "hero", "at": [0, 0]}],
    ...     "query": {}})
    >>> [(e["at"], e["cost"], e["stamina"], e["traps"])
    ...  for e in move_ends(scene, scene.figure("a"), 1, stamina=1)]
    [([0, 0], 0, 0, 0), ([1, 0], 1, 0, 1), ([2, 0], 2, 1, 1)]
    """
    _check_stamina(fig, stamina)
    from ...reach import reach      # (the kernels load at the first move, not the reading)
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
    tier = _target_tier(scene)
    if len(tier) <= 1:
        return tier
    from ...reach import distance_field
    field_ = distance_field(scene.board, scene.mover(enemy), [enemy.cell],
                            occupant=scene.occupant(enemy),
                            cell_flags=scene.cell_flags(enemy))
    return _closest_fastest(scene, enemy, field_, tier)


def _target_tier(scene: Scene) -> list[Figure]:
    """The characters the enemy AI targets first: the marked ones, else the summons, else
    the heroes ([] when no character is on the board)."""
    players = [f for f in scene.figures if f.team == PLAYERS]
    return ([f for f in players if f.marked] or [f for f in players if f.side == "summon"]
            or players)


def _closest_fastest(scene: Scene, enemy: Figure, field_: np.ndarray,
                     tier: list[Figure]) -> list[Figure]:
    """Of ``tier``, the closest in steps (``field_``: the enemy's steps to each space, -1
    unreached), then the fastest."""
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
        from ...reach import reach
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


def _check_enemy(enemy: Figure) -> None:
    if enemy.side != "enemy":
        raise QueryError(f"query.enemy names {enemy.id!r}, a {enemy.side}; the enemy AI "
                         f"moves enemies only")


def enemy_turn(scene: Scene, enemy: Figure, move: int, attack_range: int = 1) -> dict:
    """Target choice and destination of one enemy move action."""
    _check_enemy(enemy)
    targets = choose_targets(scene, enemy)
    moves = [enemy_destination(scene, enemy, t, move, attack_range) for t in targets]
    return _enemy_turn_result(scene, enemy, move, attack_range, targets, moves)


def _enemy_turn_result(scene: Scene, enemy: Figure, move: int, attack_range: int,
                       targets: list[Figure], moves: list[dict]) -> dict:
    """:func:`enemy_turn`'s result from the targets chosen and the destination towards
    each (``moves``, as :func:`enemy_destination` gives them)."""
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


def read_query(scene: Scene, query) -> tuple:
    """``(kind, figure, values)`` of a scenario's ``query`` on ``scene``, checked as
    :func:`movecore.solve` checks it: ``kind`` is ``"enemy"`` (values: move, attack
    range), ``"teleport"`` (distance), ``"die"`` (die, bonus, stamina, paths),
    ``"stamina_only"`` (stamina, paths) or ``"move"`` (card move, stamina, paths)."""
    query = expect_object(query, "query")
    expect_keys(query, "query", _QUERY_KEYS)
    paths = get_bool(query, "paths", "query", False)
    if "enemy" in query:
        _only(query, "enemy", ("enemy", "move", "roll", "bonus", "attack_range"))
        enemy = scene.figure(get_id(query, "enemy", "query"), "query.enemy")
        if "move" not in query and "roll" not in query:
            raise ScenarioError("an enemy query needs 'move' (Move N) or 'roll'")
        move = _card_move(scene, query)
        rng = get_int(query, "attack_range", "query", 1, lo=1, hi=MAX_MOVE)
        _check_enemy(enemy)
        return "enemy", enemy, (move, rng)
    if "figure" not in query:
        raise ScenarioError("query needs 'figure' (a figure's id) or 'enemy' (enemy AI)")
    fig = scene.figure(get_id(query, "figure", "query"))
    if "teleport" in query:
        _only(query, "teleport", ("figure", "teleport"))
        return "teleport", fig, (get_int(query, "teleport", "query", lo=0, hi=MAX_MOVE),)
    if "die" in query:
        _only(query, "die", ("figure", "die", "bonus", "stamina"))
        die = get_str(query, "die", "query", DICE)
        bonus = get_int(query, "bonus", "query", 0, lo=0, hi=MAX_MOVE)
        stamina = get_int(query, "stamina", "query", 0, lo=0, hi=MAX_MOVE)
        _check_stamina(fig, stamina)
        return "die", fig, (die, bonus, stamina, paths)
    if get_bool(query, "stamina_only", "query", False):
        _only(query, "stamina_only", ("figure", "stamina_only", "stamina"))
        if fig.side != "hero":
            raise QueryError(f"{fig.id!r} is a {fig.side}; only heroes can make a "
                             f"Stamina-only move")
        if fig.stamina_moved:
            raise QueryError(f"hero {fig.id!r} has already made its Stamina-only move this "
                             f"round (stamina_moved); one such move per round")
        stamina = get_int(query, "stamina", "query", lo=0, hi=MAX_MOVE)
        return "stamina_only", fig, (stamina, paths)
    _only(query, "move", ("figure", "move", "roll", "bonus", "stamina", "stamina_only"))
    if "move" not in query and "roll" not in query:
        raise ScenarioError("query needs one of 'move', 'roll', 'stamina_only', 'die', "
                            "'teleport' (or 'enemy' for the enemy AI)")
    card = _card_move(scene, query)
    stamina = get_int(query, "stamina", "query", 0, lo=0, hi=MAX_MOVE)
    _check_stamina(fig, stamina)
    return "move", fig, (card, stamina, paths)


def _solve_scene(scene: Scene, query: dict, enemy_ai=None) -> dict:
    """solve() of a query on a scene; ``enemy_ai(scene, enemy, move, attack_range)``
    answers enemy queries (default :func:`enemy_turn`)."""
    kind, fig, values = read_query(scene, query)
    if kind == "enemy":
        return (enemy_ai or enemy_turn)(scene, fig, *values)
    head = {"figure": fig.id}
    if kind == "teleport":
        n, = values
        return {**head, "kind": "teleport", "teleport": n,
                "ends": teleport_ends(scene, fig, n)}
    if kind == "die":
        die, bonus, stamina, paths = values
        return {**head, "kind": "die", "die": die, "bonus": bonus, "stamina": stamina,
                "ends": die_odds(scene, fig, die, bonus, stamina, paths)}
    if kind == "stamina_only":
        stamina, paths = values
        return {**head, "kind": "stamina_only", "card_move": 0, "stamina": stamina,
                "ends": move_ends(scene, fig, 0, stamina, paths)}
    card, stamina, paths = values
    return {**head, "kind": "move", "card_move": card, "stamina": stamina,
            "ends": move_ends(scene, fig, card, stamina, paths)}


def read_scenario(scenario, query: bool = True) -> Scene:
    """Read and validate a Dark Realms scenario: its scene (:func:`read_scene`) and,
    when given, its query (:func:`read_query`), raising the typed errors
    :func:`movecore.solve` raises (``query=False``: the query is not read, as
    ``Position.from_scenario`` does). Pure reading: it loads no kernel."""
    scenario = expect_object(scenario, "scenario")
    s = dict(scenario)
    query = query and "query" in s
    s.setdefault("query", {})
    scene = read_scene(s)
    if query:
        read_query(scene, s["query"])
    return scene


def board_degree(board: Board) -> int:
    """Most neighbours a space has (columns of ``board.nbr``)."""
    return int(board.nbr.shape[1])
