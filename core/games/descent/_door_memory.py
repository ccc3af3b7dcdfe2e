"""Door memory of Descent's placement graphs (private to :mod:`movecore.games.descent`).

A door opened during a move stays open for the rest of it: node ``mem(u, S)`` is node
``u`` having opened the doors ``S`` on this move (its steps price them open). It is
never an end; every link into it has a twin of the same price into ``u``. A door is
remembered as far as a move could still come back to it: within ``memory_radius(mp)``
links of the nodes next to it (a path that opens a door and comes back to it from r
links away spends at least 4 + 2r MP). Each kind has one graph per radius (powers of
two), built when a query first needs it (:class:`._kind_graph._KindGraph`).

A dungeon of many doors (more than ``_static.ALL_DOORS_MAX``) keeps, per query, the
memory of only the doors next to a node within ``mp + r + 1`` links of the mover (the
graph's ``scope``, :func:`_door_scope`): a move of ``mp`` MP reaches no node within r
links of any other door, so its graph is, wherever the move goes, the graph of every
door, links in the same order.
"""
from __future__ import annotations

import itertools
import math

import numpy as np

from ...errors import LimitError
from ._dungeon import OPEN

#: Most door-memory nodes one kind's graph may hold (see _KindGraph).
MEMORY_NODES_MAX = 250_000


def memory_radius(mp: int) -> int:
    """How far (in links) from a door its memory must reach for moves of ``mp`` MP.

    A path that opens door d (its step costs 1 + 2) and passes d again later, from a node
    r links away from every node whose steps involve d, walks at least r links out and
    r + 1 back (each link costs 1 MP or more): 4 + 2r <= mp. Rounded up to a power of
    two, so that a few graphs serve every MP (a larger radius is as exact)."""
    r = (mp - 4) // 2
    return 0 if r <= 0 else 1 << (r - 1).bit_length()


def _door_seeds(slots: list, involved: list, openers: dict) -> dict:
    """``{door: nodes}``: the nodes next to each door, the ends of the links that involve
    it and the placements that may open it without stepping (``openers``, node ->
    doors). ``slots`` / ``involved``: the graph's game-word links (no memory yet)."""
    seeds: dict = {}
    for u, ds in openers.items():
        for d in ds:
            seeds.setdefault(d, set()).add(u)
    for (_, u, v, _, _), inv in zip(slots, involved):
        for d in inv:
            seeds.setdefault(d, set()).update((u, v))
    return seeds


def _undirected(n: int, slots: list, vec) -> tuple:
    """(ptr int64[n + 1], nbr int64[2L]): the graph's ``n`` nodes and links (``vec``:
    (u, v) arrays of the array links, ``slots``: the game-word ones), taken both ways,
    as a CSR table."""
    su = np.array([s[1] for s in slots], np.int64)
    sv = np.array([s[2] for s in slots], np.int64)
    a = np.concatenate([vec[0], vec[1], su, sv])
    b = np.concatenate([vec[1], vec[0], sv, su])
    order = np.argsort(a, kind="stable")
    nbr = b[order]
    ptr = np.concatenate([[0], np.cumsum(np.bincount(a, minlength=n))])
    return ptr, nbr


def _ball_step(ptr, nbr, frontier):
    """The neighbours (with repeats) of the nodes ``frontier`` in the CSR table."""
    lo, hi = ptr[frontier], ptr[frontier + 1]
    cnt = hi - lo
    total = int(cnt.sum())
    if not total:
        return frontier[:0]
    idx = np.repeat(lo - np.concatenate([[0], np.cumsum(cnt)[:-1]]), cnt) + \
        np.arange(total)
    return nbr[idx]


def _memory_reach(n: int, seeds: dict, radius: int, csr) -> dict:
    """``{node: doors}``: the doors whose memory node ``node`` keeps, those within
    ``radius`` links of a node next to the door (``seeds``: door -> nodes, see
    :func:`_door_seeds`), links taken both ways (a lower bound of the distance either
    way; ``csr()``: the (ptr, nbr) table of :func:`_undirected`, asked only for a radius
    above 0). A breadth-first search per door: the cost is that of the nodes it
    reaches, not the board's."""
    if not seeds:
        return {}
    near: dict = {}
    if radius:
        ptr, nbr = csr()
        mark = np.full(n, -1, np.int64)
    for d, nodes in seeds.items():
        seen = np.fromiter(nodes, np.int64, len(nodes))
        if radius:
            mark[seen] = d
            frontier = seen
            parts = [seen]
            for _ in range(radius):
                nb = np.unique(_ball_step(ptr, nbr, frontier))
                nb = nb[mark[nb] != d]
                if not len(nb):
                    break
                mark[nb] = d
                parts.append(nb)
                frontier = nb
            seen = np.concatenate(parts)
        for u in seen.tolist():
            near.setdefault(u, set()).add(d)
    return {u: frozenset(ds) for u, ds in near.items()}


def _door_scope(g, start: int, depth: int) -> frozenset:
    """The doors with a node next to them (:func:`_door_seeds`) within ``depth`` links
    of node ``start`` of the plain graph ``g`` (links taken both ways): a move of
    ``mp`` MP from ``start`` reaches no node whose door memory (radius r) holds another
    door when ``depth >= mp + r``. Breadth-first over the nodes within ``depth`` only."""
    ptr, nbr = g.undirected()
    is_seed = g.seed_nodes()[0]
    seen = np.zeros(len(ptr) - 1, np.bool_)
    frontier = np.array([start], np.int64)
    seen[start] = True
    hits = [frontier[is_seed[frontier]]]
    for _ in range(depth):
        nb = _ball_step(ptr, nbr, frontier)
        nb = nb[~seen[nb]]
        if not len(nb):
            break
        nb = np.unique(nb)
        seen[nb] = True
        hits.append(nb[is_seed[nb]])
        frontier = nb
    doors_of = g.seed_nodes()[1]
    out: set = set()
    for u in np.concatenate(hits).tolist():
        out.update(doors_of[u])
    return frozenset(out)


def _subsets(doors: frozenset, most: int = 1 << 30) -> list:
    """The non-empty subsets of ``doors`` of at most ``most`` doors (frozensets,
    smallest first)."""
    ds = sorted(doors)
    return [frozenset(c) for r in range(1, min(len(ds), most) + 1)
            for c in itertools.combinations(ds, r)]


def _add_door_memory(g, n: int, slots: list, involved: list) -> list:
    """Add the door memory of graph ``g`` (radius ``g.mem_radius``) to its ``n`` plain
    nodes: the memory and opened-here nodes, and their links appended to ``slots`` /
    ``involved``. Sets ``g.vec`` (the array links left), ``g.near``, ``g.n_opn``,
    ``g.n_mem`` and ``g.mem_of``; returns ``mem_base``, the plain node of each memory
    node (in node order from ``n``)."""
    vu, vv, vc = g.vec0
    # Door memory: a door opened during a move stays open for the rest of it. Node
    # mem(u, S) is "at node u having opened the doors S on this move" (S: doors
    # ``near`` u, see _memory_reach). It is never an end: every link into it has a
    # twin of the same price into the plain node u (directly, or through the twin
    # of an earlier link), so the plain nodes keep the least costs and the memory
    # only makes later steps through S free.
    #
    # Opening a door without stepping ("figures may expend movement points to open
    # or close doors, but only if their figure is located in a space adjacent to a
    # door's closed position", 2 MP): node opn(u, S) is "at u, having just opened a
    # door here, with the doors S opened on this move". Its links are those of
    # mem(u, S); it is never an end and no space is entered on the way in (no aura,
    # no grapple stop). Only a jump gains by it (a step that crosses a closed door
    # opens it for the same 2 MP), so the memory radius stays that of stepping
    # through a door: opening in place (2), r links away and back to the door
    # (2r) and a jump (3 or more) is 5 + 2r MP.
    scope = g.scope
    openers, seeds = g.openers, g.seeds
    if scope is not None:        # only the doors a move of this graph's queries reaches
        openers = {u: ds & scope for u, ds in openers.items() if ds & scope}
        seeds = {d: seeds[d] for d in sorted(scope) if d in seeds}
    near = _memory_reach(n, seeds, g.mem_radius, g.undirected)
    if near:
        # the array links out of nodes that keep a memory become slots (their memory
        # twins need one each); their price never changes
        out = np.zeros(n, np.bool_)
        out[np.fromiter(near, np.int64, len(near))] = True
        moved = out[vu]
        for u, v, c in zip(vu[moved].tolist(), vv[moved].tolist(),
                           vc[moved].tolist()):
            slots.append(("fixed", u, v, None, c))
            involved.append(frozenset())
        vu, vv, vc = vu[~moved], vv[~moved], vc[~moved]
    g.vec = (vu, vv, vc)
    # a move of the MP this radius serves (mp <= 2 radius + 5) opens at most
    # radius + 2 doors: each costs 2 MP
    most = g.mem_radius + 2

    def n_subsets(ds, hold=frozenset()):
        """Subsets of ``ds`` of 1..most doors (meeting ``hold`` if given)."""
        k = len(ds)
        total = sum(math.comb(k, r) for r in range(1, min(k, most) + 1))
        if hold:
            j = k - len(ds & hold)
            total -= sum(math.comb(j, r) for r in range(1, min(j, most) + 1))
        return total
    count = sum(n_subsets(ds) for ds in near.values()) + \
        sum(n_subsets(near[u], ds) for u, ds in openers.items())
    if count > MEMORY_NODES_MAX:
        raise LimitError(
            f"a move of this many MP keeps the memory of up to {most} opened doors "
            f"over {count} graph nodes (limit {MEMORY_NODES_MAX}): too many doors "
            f"within {g.mem_radius} steps of each other; ask with fewer MP")
    mem: dict = {}                   # (node, doors) -> memory node
    mem_base: list = []
    sets_of: dict = {}               # node u -> [(memory node of u, its doors)]
    for u in sorted(near):
        for S in _subsets(near[u], most):
            mem[(u, S)] = n + len(mem_base)
            mem_base.append(u)
            sets_of.setdefault(u, []).append((mem[(u, S)], S))
    opn: dict = {}                   # (node, doors) -> opened-here node
    for u in sorted(openers):
        for S in _subsets(near[u], most):
            if S & openers[u]:
                opn[(u, S)] = n + len(mem_base)
                mem_base.append(u)
                sets_of[u].append((opn[(u, S)], S))
    g.n_opn = len(opn)
    g.near = near
    no_doors = frozenset()
    for i in range(len(slots)):
        kind, u, v, dd, sq = slots[i]
        inv = involved[i]
        if u not in sets_of and (not inv or v not in near):
            continue                 # no memory out of u, none kept at v: no twin
        near_v = near.get(v, no_doors)
        if inv:                      # doors this step opens that v stays near
            for X in _subsets(inv & near_v, most):
                slots.append(("mem", u, mem[(v, X)], dd, (i, no_doors, X)))
                involved.append(inv)
        for src, S in sets_of.get(u, ()):
            free = inv - S           # S is open for this move: only these can change
            if inv:                  # twin: the memory of S dropped at v
                slots.append(("mem", src, v, dd, (i, S, None)))
                involved.append(free)
            keep = S & near_v
            for X in [no_doors] + _subsets(free & near_v, most - len(keep)):
                if keep | X:
                    slots.append(("mem", src, mem[(v, keep | X)], dd, (i, S, keep | X)))
                    involved.append(free)
    for u in sorted(openers):        # open a door here: 2 MP (the door must be closed)
        for d_ in sorted(openers[u]):
            one = frozenset((d_,))
            for src, S in [(u, no_doors)] + sets_of[u]:
                if d_ not in S and len(S) < most:
                    slots.append(("open", src, opn[(u, S | one)], None, d_))
                    involved.append(one)
    g.n_mem = len(mem_base)
    g.n = n + g.n_mem
    g.mem_of = {}                    # node -> its memory nodes
    for (u, _), m in mem.items():
        g.mem_of.setdefault(u, []).append(m)
    return mem_base


def _memory_link_result(g, sq, rules, dv, results=None):
    """A link of door memory: slot ``i``'s step from its source having opened the
    doors S on this move (S open for it), into its target keeping the doors S2
    (None: the plain target). ``results``: the slots' results under ``dv`` so far
    (a step that involves no door prices as the plain one)."""
    i, S, S2 = sq
    if results is not None and not g.involved[i]:
        return results[i]            # no door on the way: S stays as it was
    if S:                            # (S is a few doors: no pass over all of them)
        saved = rules.door_state
        words, opened = list(saved), list(dv)
        for k in S:
            words[k], opened[k] = "open", OPEN
        rules.door_state, dv = words, tuple(opened)
    res = g._slot_result(i, rules, dv)
    if S:
        rules.door_state = saved
    if res is None or S2 is None:
        return res
    return res if (S | res[1]) & g.near[g.slots[i][2]] == S2 else None
