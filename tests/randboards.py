"""Seeded random boards for differential tests: one description, turned both into an
oracle spec (plain lists) and into movecore objects (Board, Mover, layers)."""
from __future__ import annotations

import random

import numpy as np

import movecore as mc
from movecore.kernels import _types as T


def random_case(seed: int, *, kind: str | None = None, penalties: bool | None = None,
                size: int | None = None, plain: bool = False):
    """A seeded board, mover, layers, start and budget. ``plain``: nothing can stop a move
    and there are no per-query cell flags, zones of control, side edges, corner rule or links
    (blocked cells are board flags instead): the queries ``reach1_plain`` answers."""
    rng = random.Random(seed)
    if plain:
        penalties = False
    kind = kind or rng.choice(["hex", "square4", "square8"])
    w = size or rng.randint(2, 8)
    h = rng.randint(1, 7)
    all_cells = [(x, y) for x in range(w) for y in range(h)]
    keep = [c for c in all_cells if rng.random() < 0.85] or all_cells[:1]
    rng.shuffle(keep)  # cell order must not matter
    n = len(keep)
    n_terrain = rng.randint(1, 4)
    # costs include zero-cost and impassable terrain
    table = [rng.choice([0, 1, 1, 1, 2, 3, -1]) for _ in range(n_terrain)]
    table[0] = max(table[0], 1) if rng.random() < 0.7 else table[0]
    terrain = [rng.randrange(n_terrain) for _ in range(n)]
    flat = rng.random() < 0.4
    height = [0 if flat else rng.randint(0, 3) for _ in range(n)]
    stop = [rng.random() < 0.15 for _ in range(n)]
    blocked = [rng.random() < 0.05 for _ in range(n)]
    no_end = [rng.random() < 0.05 for _ in range(n)]
    stop_terrain = [t for t in range(n_terrain) if rng.random() < 0.2]
    team = rng.randint(0, 1)
    occupant = [None] * n
    for i in range(n):
        r = rng.random()
        if r < 0.12:
            occupant[i] = 0
        elif r < 0.2:
            occupant[i] = 1
        elif r < 0.22:
            occupant[i] = "wall"
    modes = ["pass", "block", "pass_end"]
    allies = rng.choice(modes) if rng.random() < 0.3 else "pass"
    enemies = rng.choice(modes) if rng.random() < 0.3 else "block"
    links = []
    for _ in range(rng.choice([0, 0, 1, 2, 3])):
        a, b = rng.randrange(n), rng.randrange(n)
        if a != b:
            links.append((a, b, rng.randint(0, 3), rng.randint(0, 2), rng.random() < 0.8))
    link_kinds = None if rng.random() < 0.7 else {0, 2}
    climb_per_level = rng.choice([0, 1, 1, 2])
    climb_flat = rng.choice([0, 0, 1])
    max_climb = rng.choice([None, None, 1, 2])
    descend = rng.choice([0, 0, 0, 1])
    corner = rng.random() < 0.6
    if plain:
        stop = [False] * n
        stop_terrain = []
        corner = True
        links = []
    zoc = leave = enter_pen = None
    index = {c: i for i, c in enumerate(keep)}
    board0 = (mc.Board.hex(keep) if kind == "hex" else
              mc.Board.square_cells(keep, neighbours=int(kind[-1])))
    if rng.random() < 0.35 and not plain:
        tokens = rng.sample(range(n), min(n, rng.randint(1, 3)))
        zoc = [0] * n
        for bit, t in enumerate(tokens):
            for v in board0.nbr[t]:
                if v >= 0:
                    zoc[v] |= 1 << bit
            blocked[t] = True
    if penalties is None:
        penalties = rng.random() < 0.35
    max_penalty = rng.choice([2, 3, 15])
    leave_weight = rng.choice([1, 1, 2])
    if penalties:
        if rng.random() < 0.7:
            leave = [0] * n
            for bit in range(rng.randint(1, 3)):
                src = rng.randrange(n)
                for v in board0.nbr[src]:
                    if v >= 0:
                        leave[v] |= 1 << bit
        if rng.random() < 0.6 or leave is None:
            enter_pen = [rng.choice([0, 0, 0, 1, 2]) for _ in range(n)]
    edges = {}
    edge_items = []
    for _ in range(0 if plain else rng.choice([0, 0, 2, 4])):
        a = rng.randrange(n)
        nb = [v for v in board0.nbr[a] if v >= 0]
        if not nb:
            continue
        b = int(rng.choice(nb))
        cost, eb, es = rng.randint(0, 2), rng.random() < 0.3, rng.random() < 0.3
        # edges accumulate: cost adds, flags OR
        for u, v in ((a, b), (b, a)):
            c0, b0, s0 = edges.get((u, v), (0, False, False))
            edges[(u, v)] = (c0 + cost, b0 or eb, s0 or es)
        edge_items.append({"between": (a, b), "cost": cost, "blocked": eb, "stop": es})
    spec = dict(kind=kind, coords=keep, cost=[table[t] for t in terrain], height=height,
                stop=[stop[i] or terrain[i] in stop_terrain for i in range(n)],
                blocked=blocked, no_end=no_end, occupant=occupant, links=links, edges=edges,
                team=team, allies=allies, enemies=enemies, climb_per_level=climb_per_level,
                climb_flat=climb_flat, max_climb=max_climb, descend_per_level=descend,
                link_kinds=link_kinds, corner_cutting=corner, zoc=zoc, leave=leave,
                enter_pen=enter_pen, leave_weight=leave_weight, max_penalty=max_penalty)
    flags = [(T.CELL_STOP if stop[i] else 0) | (T.CELL_NO_END if no_end[i] else 0)
             | (T.CELL_BLOCKED if plain and blocked[i] else 0) for i in range(n)]
    if kind == "hex":
        board = mc.Board.hex(keep, terrain=terrain, height=height, flags=flags)
    else:
        board = mc.Board.square_cells(keep, neighbours=int(kind[-1]), terrain=terrain,
                                      elevation=height, flags=flags)
    if edge_items:
        board = board.with_edges(edge_items)
    if links:
        board = board.with_links([mc.Link(a, b, c, k, tw) for a, b, c, k, tw in links])
    mover = mc.Mover(terrain_cost=table, stop_terrain=stop_terrain,
                     climb_per_level=climb_per_level, climb_flat=climb_flat,
                     max_climb=max_climb, descend_per_level=descend, team=team,
                     allies=allies, enemies=enemies, links=link_kinds,
                     corner_cutting=corner)
    occ = np.array([T.OCC_EMPTY if o is None else T.OCC_WALL if o == "wall" else o
                    for o in occupant], dtype=np.int32)
    layers = dict(
        occupant=occ,
        cell_flags=None if plain else
        np.array([T.CELL_BLOCKED if b else 0 for b in blocked], np.uint8),
        zoc=None if zoc is None else np.array(zoc, np.uint64),
        leave=None if leave is None else np.array(leave, np.uint64),
        enter_penalty=None if enter_pen is None else np.array(enter_pen, np.int32),
        leave_weight=leave_weight,
        max_penalty=max_penalty if penalties else None)
    if not penalties:
        spec["max_penalty"] = 0
    budget = rng.randint(0, 9)
    start = rng.randrange(n)
    return spec, board, mover, layers, start, budget, rng


def unit_cost_twin(mover: mc.Mover) -> mc.Mover:
    """The same figure with every enterable terrain costing 1 and only links of kind 1:
    the moves the unit-cost (BFS / FIFO) kernels answer."""
    return mc.Mover(terrain_cost=[1 if c >= 0 else -1 for c in mover.terrain_rule(1)[:, 0]],
                    stop_terrain=mover.stop_terrain, team=mover.team, allies=mover.allies,
                    enemies=mover.enemies, links=[1], corner_cutting=mover.corner_cutting,
                    max_climb=mover.max_climb)
