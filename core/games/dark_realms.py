"""Dark Realms (darkrealms.se, seed 003): hero, summon and enemy movement, Stamina, die
planning, teleport, flying, traps, rifts, and the enemy AI's target and destination.

Scenario::

    {"game": "dark_realms",
     "board": {"grid": "hex" | "square4" | "square8",          (default "hex")
               "cells": [{"at": [q, r], "obstacle": false, "trap": false,
                          "rift": false}, ...]},
     "options": {"pass_allies": false, "die": "d6", "trap_avoidance": "detour"},
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

from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from ..board import GRID_KINDS, Board, Link
from ..errors import BoardError, LimitError, PlacementError, QueryError, ScenarioError
from ..kernels import _types as T
from ..mover import Mover
from ..reach import distance_field, reach
from ..scenario import (expect_keys, expect_object, get_bool, get_coord, get_id, get_int,
                        get_list, get_str, register_game)
from ._common import coord_list, end_order, find_figure, read_figures

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
    trap_avoidance: str = "detour"
    _cache: dict = field(default_factory=dict, repr=False)

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
    expect_keys(opts, "options", ("grid", "pass_allies", "die", "trap_avoidance"))
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
                  trap_avoidance=get_str(opts, "trap_avoidance", "options", TRAP_AVOIDANCE,
                                         default="detour"))
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
        routes = _Routes(scene, enemy, move, goal)
        planned = [e for e in routes.fwd if e in routes.rem]
        if planned:
            def key(e):
                t_now, s_now = routes.fwd[e]
                t_rem, s_rem = routes.rem[e]
                far = -int(to_target[e]) if s_rem == 0 else 0
                return (routes.plan(e), s_rem, far, t_now, int(xy[e, 0]), int(xy[e, 1]))
            how = "route"
        else:
            def key(e):
                t_now, s_now = routes.fwd[e]
                return (int(to_target[e]), routes.order(t_now, s_now),
                        int(xy[e, 0]), int(xy[e, 1]))
            how = "no_route"
        dest = min(routes.fwd, key=key)
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
    query = expect_object(scenario["query"], "query")
    expect_keys(query, "query", _QUERY_KEYS)
    paths = get_bool(query, "paths", "query", False)
    if "enemy" in query:
        _only(query, "enemy", ("enemy", "move", "roll", "bonus", "attack_range"))
        enemy = scene.figure(get_id(query, "enemy", "query"), "query.enemy")
        if "move" not in query and "roll" not in query:
            raise ScenarioError("an enemy query needs 'move' (Move N) or 'roll'")
        move = _card_move(scene, query)
        rng = get_int(query, "attack_range", "query", 1, lo=1, hi=MAX_MOVE)
        return enemy_turn(scene, enemy, move, rng)
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
