"""Where a kind of Descent figure may stand and step (private to
:mod:`movecore.games.descent`): the placements of a base on the dungeon and the links
between them, built with numpy over the whole dungeon (:func:`_build_placements`); the
doors a placement may open without stepping (:func:`_openers`).

Pit jumps run through air nodes: ``air(s, d)`` is "in the air over placement ``s`` (a
one-square walker's square, or with option ``large_jumps`` a large base wholly on
jumpable squares), jumping along ``d``". A jump across k of them costs
1 + 3 (k - 1) + 2 = 3k; air nodes are never ends, and an enemy standing on ``s``
occupies ``air(s, d)`` and so blocks the jump (the rule "no jumping over an enemy")
through the occupancy layer.
"""
from __future__ import annotations

import numpy as np

from . import rules as D
from ._dungeon import (_IS_JUMPABLE, _IS_ICE, _IS_OBSTACLE, _IS_PIT, _IS_TREE, _ON_BOARD,
                       _WALKABLE, JUMP_LAND, JUMP_OVER, JUMP_TAKE_OFF, _cross, _Facts,
                       _sides_examined, _Sparse)


def _openers(g) -> dict:
    """``{node: doors}``: the doors each placement may open without stepping:
    those next to a square of its base ("located in a space adjacent to a door's
    closed position (including diagonals)", doors.php): within one square of both
    squares of one of the door's cell edges."""
    st = g.st
    index = st.index
    w, h = g.size
    openers: dict = {}
    for k, door in enumerate(st.dungeon.doors):
        near_door = {(x, y) for a, b in door.sides
                     for x in range(max(a[0], b[0]) - 1, min(a[0], b[0]) + 2)
                     for y in range(max(a[1], b[1]) - 1, min(a[1], b[1]) + 2)}
        for base, (bw, bh) in ((0, (w, h)), (g.turn_off, (h, w)))[:1 + g.turns]:
            for cx, cy in near_door:
                for i in range(bw):
                    for j in range(bh):
                        a = index.get((cx - i, cy - j))
                        if a is not None and g.fitp[base + a]:
                            openers.setdefault(base + a, set()).add(k)
    return {u: frozenset(ds) for u, ds in openers.items()}


def _build_placements(g, st, rules, key):
    """Build the graph but its door memory, with numpy over the whole dungeon: the
    placements (``fitp``, per-node facts as arrays, ``straddle``), the links that
    involve no door as arrays ``vec = (u, v, cost)`` (their price never changes),
    and the links priced in game words as the step table ``slots`` with the doors
    each involves (those next to doors, stairs, glyphs). Returns (placements,
    slots, involved, turned count). Every memory radius of a kind shares it."""
    side, w, h, fly = key[:4]
    d = st.dungeon
    ns = st.ns
    grid = st.grid()
    W = grid.W
    walker = not fly
    walkable = _ON_BOARD if fly else _WALKABLE
    g.turns = D.turns_allowed((w, h), st.large_turns)
    g.turn_off = ns + 1
    n_turn = ns if g.turns else 0
    npl = ns + 1 + n_turn                      # squares, town, turned placements
    sizes = [(w, h), (h, w)][:1 + g.turns]
    g.dirs = {s: D.step_directions(s, st.hound_slides) for s in {(w, h), (h, w)}}
    fitp = np.zeros(npl, np.bool_)
    in_pit = np.zeros(npl, np.bool_)
    on_ice = np.zeros(npl, np.bool_)
    may_end = np.zeros(npl, np.bool_)
    jump = np.zeros(npl, np.bool_)
    has_door = np.zeros(npl, np.bool_)
    k = w * h
    pfoot = np.full((npl, k), ns, np.int64)
    cellpos: list = []                         # per orientation: int64[NS, k]
    trees: list = []                           # per orientation: bool[NS, k]
    straddle = _Sparse(frozenset())
    P0 = grid.pos
    for o, (bw, bh) in enumerate(sizes):
        base = o * g.turn_off
        offs = np.array([j * W + i for j in range(bh) for i in range(bw)], np.int64)
        cp = P0[:, None] + offs[None, :]
        code = grid.code[cp]
        fit = walkable[code].all(axis=1)
        inside = [P0 + j * W + i for j in range(bh) for i in range(bw - 1)]
        inside_d = [P0 + j * W + i for j in range(bh - 1) for i in range(bw)]
        for p in inside:
            fit &= ~grid.wr[p]
        for p in inside_d:
            fit &= ~grid.wd[p]
        doors = [grid.dr[p] for p in inside] + [grid.dd[p] for p in inside_d]
        if doors:
            dk = np.stack(doors, axis=1)
            hd = fit & (dk >= 0).any(axis=1)
            has_door[base:base + ns] = hd
            for s in np.flatnonzero(hd).tolist():
                straddle[base + s] = frozenset(x for x in dk[s].tolist() if x >= 0)
        sl = slice(base, base + ns)
        fitp[sl] = fit
        pfoot[sl] = np.where(fit[:, None], grid.node[cp], ns)
        in_pit[sl] = walker & _IS_PIT[code].all(axis=1) & fit
        on_ice[sl] = walker & _IS_ICE[code].all(axis=1) & fit
        may_end[sl] = ~_IS_OBSTACLE[code].any(axis=1) & fit
        jump[sl] = _IS_JUMPABLE[code].all(axis=1) & fit
        cellpos.append(cp)
        trees.append(_IS_TREE[code] & walker)
    g.fitp, g.p_in_pit, g.p_on_ice, g.p_may_end = fitp, in_pit, on_ice, \
        may_end
    g.pfoot = pfoot
    g.facts = _Facts(g)
    g.straddle = straddle
    slots: list = []
    involved: list = []
    vec: list = []                             # (u, v, cost) arrays

    def emit(kind, u, v, dd, sq, inv, legal, cost):
        """Links u -> v: those that involve a door as slots, the rest as arrays."""
        for j in np.flatnonzero(inv).tolist():
            slots.append((kind, int(u[j]), int(v[j]), dd,
                          sq if not isinstance(sq, np.ndarray) else int(sq[j])))
            involved.append(None)              # filled below
        ok = ~inv & legal
        vec.append((u[ok], v[ok], np.broadcast_to(cost, u.shape)[ok]))

    def price(u, v, new_tree):
        """Steps and turns (D.Rules._price with no door): 1, a new tree square 2,
        climbing out of a pit 2 (3 into a tree)."""
        climb = in_pit[u] & ~in_pit[v]
        return np.where(climb, D.CLIMB_OUT_COST + new_tree, 1 + new_tree)

    nodes = np.arange(ns, dtype=np.int64)
    for o, (bw, bh) in enumerate(sizes):
        base = o * g.turn_off
        fit = fitp[base:base + ns]
        cp = cellpos[o]
        tr = trees[o]
        for dd in g.dirs[(bw, bh)]:
            dx, dy = dd
            vs = grid.node[P0 + dy * W + dx]
            u = nodes[fit & (vs >= 0)]
            v = vs[u]
            keep = fit[v]
            u, v = u[keep], v[keep]
            legal, doors = _cross(grid, cp[u], dx, dy, walkable, st.corner)
            new = np.array([not (0 <= i + dx < bw and 0 <= j + dy < bh)
                            for j in range(bh) for i in range(bw)])
            cost = price(base + u, base + v, tr[v][:, new].any(axis=1))
            inv = doors.any(axis=1) | has_door[base + u] | has_door[base + v]
            emit("step", base + u, base + v, dd, None, inv, legal.all(axis=1), cost)
    if g.turns:
        # a quarter turn into a turned placement within one square of the base that
        # overlaps it (D.turn_offsets; D.Rules.turn prices it)
        for o, (bw, bh) in enumerate(sizes):
            base, other = o * g.turn_off, (1 - o) * g.turn_off
            fit = fitp[base:base + ns]
            ofit = fitp[other:other + ns]
            for ox, oy in D.turn_offsets((bw, bh)):
                old = D.footprint_cells((0, 0), (bw, bh))
                newc = D.footprint_cells((ox, oy), (bh, bw))
                vs = grid.node[P0 + oy * W + ox]
                u = nodes[fit & (vs >= 0)]
                v = vs[u]
                keep = ofit[v]
                u, v = u[keep], v[keep]
                fresh = np.array([c not in old for c in newc])
                cost = price(base + u, other + v, trees[1 - o][v][:, fresh].any(axis=1))
                inv = has_door[base + u] | has_door[other + v]
                if D.swept_sides(old, newc):    # (never: see D.swept_sides)
                    inv = np.ones_like(inv)
                emit("turn", base + u, other + v, None, "turn", inv,
                     np.ones(len(u), np.bool_), cost)
    # jumps across pits (and ice): air(p, d) over each placement p wholly on
    # jumpable squares that lies on a run from a take-off to a landing along d
    air_foot: list = []
    g.air_off = air_off = npl
    one = (w, h) == (1, 1)
    if walker and (one or st.large_jumps):
        for o, (bw, bh) in enumerate(sizes):
            base = o * g.turn_off
            fit = fitp[base:base + ns]
            J = jump[base:base + ns]
            cp = cellpos[o]
            for dd in g.dirs[(bw, bh)]:
                dx, dy = dd
                sh = dy * W + dx
                fwd = grid.node[P0 + sh]
                bwd = grid.node[P0 - sh]
                land = _first_off(fwd, fit, J)
                start = _first_off(bwd, fit, J)
                air = np.flatnonzero(J & (land >= 0) & (start >= 0))
                if not len(air):
                    continue
                ids = np.full(ns, -1, np.int64)
                ids[air] = air_off + len(air_foot) + np.arange(len(air))
                air_foot.extend((base + air).tolist())
                # take-off: from the placement before the run's first square
                prev = bwd[air]
                first = (prev >= 0)
                first[first] = ~J[prev[first]]
                p = air[first]
                u = prev[first]
                _jump_links(emit, grid, walkable, st, cp, has_door, "take_off",
                            base + u, ids[p], dd, u, base, base + p,
                            JUMP_TAKE_OFF)
                # over: air to air while the run goes on; land: on the first
                # placement off the jumpable squares
                nxt = fwd[air]
                on = J[nxt]
                _jump_links(emit, grid, walkable, st, cp, has_door, "over",
                            ids[air[on]], ids[nxt[on]], dd, air[on], base,
                            base + nxt[on], JUMP_OVER)
                _jump_links(emit, grid, walkable, st, cp, has_door, "land",
                            ids[air[~on]], base + nxt[~on], dd, air[~on], base,
                            base + nxt[~on], JUMP_LAND)
    index = st.index
    if one:
        for a, b in d.stairs:
            ia, ib = index[a], index[b]
            if fitp[ia] and fitp[ib]:
                slots += [("fixed", ia, ib, None, D.STAIRS_COST),
                          ("fixed", ib, ia, None, D.STAIRS_COST)]
                involved += [frozenset(), frozenset()]
    if side == "hero":
        for glyph in d.glyphs:
            ig = index[glyph]
            if fitp[ig]:
                slots += [("fixed", ig, ns, None, D.TOWN_COST),
                          ("fixed", ns, ig, None, D.TOWN_COST)]
                involved += [frozenset(), frozenset()]
    g.air_foot = np.array(air_foot, np.int64)
    g.n_air = len(air_foot)
    g.vec = tuple(np.concatenate([x[i] for x in vec]).astype(np.int32)
                  if vec else np.zeros(0, np.int32) for i in range(3))
    # doors each game-word slot involves
    for i, (kind, u, v, dd, sq) in enumerate(slots):
        if involved[i] is not None:
            continue
        if kind in ("step", "turn"):
            doors = set(straddle[u]) | straddle[v]
            if kind == "turn":
                doors.update(_swept_doors(g, u, v))
            for c in g.facts[u]["cells"] if kind == "step" else ():
                for a, b in _sides_examined(c, dd):
                    k2 = d.door_of.get(D._side(a, b))
                    if k2 is not None:
                        doors.add(k2)
        else:          # a jump link: the sides the base crosses leaving placement
            into = int(g.air_foot[v - air_off]) if kind != "land" else v
            doors = set(straddle[sq]) | straddle[into]
            for c in g.facts[sq]["cells"]:
                doors.update(k2 for k2 in (d.door_of.get(D._side(a, b)) for a, b in
                                           _sides_examined(c, dd)) if k2 is not None)
        involved[i] = frozenset(doors)
    place_nodes = np.flatnonzero(fitp)
    return place_nodes, slots, involved, n_turn


def _swept_doors(g, u, v):
    d = g.st.dungeon
    return [d.door_of[D._side(a, b)] for a, b in D.swept_sides(
        g.facts[u]["cells"], g.facts[v]["cells"]) if D._side(a, b) in d.door_of]


def _first_off(nxt, fit, J):
    """int64[NS]: for each square, following ``nxt`` (the next square along a
    direction, -1 off the board) over placements wholly on jumpable squares
    (``J``), the first placement that fits and is not jumpable, or -1 (a square
    that does not fit, or the board's edge, ends the run). Pointer jumping: log of
    the longest run numpy passes."""
    p = nxt.copy()
    ok = p >= 0
    ok[ok] = fit[p[ok]]
    p[~ok] = -1
    while True:
        go = p >= 0
        go[go] = J[p[go]]
        if not go.any():
            return p
        p[go] = p[p[go]]


def _jump_links(emit, grid, walkable, st, cp, has_door, kind, u, v, dd, sq, base,
                into, cost):
    """Jump links u -> v of ``kind`` (cost ``cost``): the base leaves placement
    ``base + sq`` (sq: square indices) along dd into placement ``into`` through no
    wall; a door on the way or under either base makes it a game-word slot (priced
    per door state)."""
    legal, doors = _cross(grid, cp[sq], dd[0], dd[1], walkable, st.corner)
    inv = doors.any(axis=1) | has_door[base + sq] | has_door[into]
    emit(kind, u, v, dd, base + sq, inv, legal.all(axis=1), cost)
