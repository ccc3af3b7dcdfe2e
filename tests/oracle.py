"""A deliberately simple pure-Python reference for movecore's reach kernels.

It shares no code with the package: neighbours come from coordinate arithmetic on a
dict, the queue is ``heapq``, and every rule is written out longhand. It enumerates
labels (cell, penalty, stopped) without any pruning, then summarises per cell.

A *spec* is a plain dict:
    kind            "hex" | "square4" | "square8"
    coords          list of (x, y)
    cost            per cell entry cost, -1 = cannot enter
    height          per cell
    stop            per cell bool (entering ends the move)
    blocked         per cell bool (cannot be entered)
    no_end          per cell bool (may pass, never end)
    occupant        per cell: None, a team int, or "wall"
    links           list of (a, b, cost, kind, two_way)
    edges           dict (a, b) -> (extra cost, blocked, stop), directed
    team, allies, enemies ("pass" | "block" | "pass_end")
    climb_per_level, climb_flat, max_climb (None = unlimited), descend_per_level
    link_kinds      None = all, else a set
    corner_cutting  bool
    zoc, leave      per cell int bit masks, or None
    enter_pen       per cell int, or None
    leave_weight, max_penalty
"""
from __future__ import annotations

import heapq

DIRS = {
    "hex": [(1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)],
    "square4": [(1, 0), (0, 1), (-1, 0), (0, -1)],
    "square8": [(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)],
}


def _can_stand(spec, v):
    return spec["cost"][v] >= 0 and not spec["blocked"][v]


def _occupancy(spec, v):
    """(may enter, may end) as far as the occupant goes."""
    occ = spec["occupant"][v]
    if occ is None:
        return True, True
    if occ == "wall":
        return False, False
    mode = spec["allies"] if occ == spec["team"] else spec["enemies"]
    return mode != "block", mode == "pass_end"


def _steps(spec, index, u):
    """Yield (v, step cost, edge_stops) for every move out of u."""
    x, y = spec["coords"][u]
    hu = spec["height"][u]
    for dx, dy in DIRS[spec["kind"]]:
        v = index.get((x + dx, y + dy))
        if v is None or not _can_stand(spec, v):
            continue
        extra, eblocked, estop = spec["edges"].get((u, v), (0, False, False))
        if eblocked:
            continue
        if spec["kind"] == "square8" and dx and dy and not spec["corner_cutting"]:
            a, b = index.get((x + dx, y)), index.get((x, y + dy))
            if a is None or b is None or not _can_stand(spec, a) or not _can_stand(spec, b):
                continue
        rise = spec["height"][v] - hu
        if spec["max_climb"] is not None and rise > spec["max_climb"]:
            continue
        step = spec["cost"][v] + extra
        if rise > 0:
            step += spec["climb_per_level"] * rise + spec["climb_flat"]
        if rise < 0:
            step += spec["descend_per_level"] * -rise
        yield v, step, estop
    for a, b, cost, kind, two_way in spec["links"]:
        if spec["link_kinds"] is not None and kind not in spec["link_kinds"]:
            continue
        for s, t in ((a, b), (b, a)) if two_way else ((a, b),):
            if s == u and _can_stand(spec, t):
                yield t, cost, False


def oracle_reach(spec, starts, budget):
    """{cell: dict(cost, stopped, free_cost, penalty, penalty_cost)} for every legal end."""
    index = {tuple(c): i for i, c in enumerate(spec["coords"])}
    n_pen = spec["max_penalty"] + 1
    penalties = spec["leave"] is not None or spec["enter_pen"] is not None
    best = {}  # (cell, pen, stopped) -> cost
    heap = []
    for s in starts:
        best[(s, 0, False)] = 0
        heapq.heappush(heap, (0, s, 0, False))
    while heap:
        c, u, p, stopped = heapq.heappop(heap)
        if best.get((u, p, stopped)) != c or stopped:
            continue
        for v, step, estop in _steps(spec, index, u):
            nc = c + step
            if nc > budget:
                continue
            may_enter, may_end = _occupancy(spec, v)
            if not may_enter:
                continue
            st = estop or spec["stop"][v]
            if spec["zoc"] is not None and spec["zoc"][u] & spec["zoc"][v]:
                st = True
            if st and (not may_end or spec["no_end"][v]):
                continue
            np_ = p
            if penalties:
                if spec["leave"] is not None:
                    left = spec["leave"][u] & ~spec["leave"][v]
                    np_ += bin(left).count("1") * spec["leave_weight"]
                if spec["enter_pen"] is not None:
                    np_ += spec["enter_pen"][v]
                np_ = min(np_, n_pen - 1)
            key = (v, np_, st)
            if nc < best.get(key, 1 << 60):
                best[key] = nc
                heapq.heappush(heap, (nc, v, np_, st))
    out = {}
    for (v, p, st), c in best.items():
        if v not in starts:
            if spec["no_end"][v] or not _occupancy(spec, v)[1]:
                continue
        e = out.setdefault(v, {"cost": 1 << 60, "free_cost": -1, "penalty": 1 << 60,
                               "penalty_cost": 1 << 60, "_stop_cost": 1 << 60})
        if st:
            e["_stop_cost"] = min(e["_stop_cost"], c)
        elif e["free_cost"] < 0 or c < e["free_cost"]:
            e["free_cost"] = c
        e["cost"] = min(e["cost"], c)
        if p < e["penalty"] or (p == e["penalty"] and c < e["penalty_cost"]):
            e["penalty"], e["penalty_cost"] = p, c
    for e in out.values():
        e["stopped"] = not (0 <= e["free_cost"] <= e["cost"])
        del e["_stop_cost"]
    return out


def oracle_field(spec, sources, budget):
    """{cell: least cost of any arrival} from the nearest source."""
    index = {tuple(c): i for i, c in enumerate(spec["coords"])}
    best = {}
    heap = []
    for s in sources:
        best[(s, False)] = 0
        heapq.heappush(heap, (0, s, False))
    while heap:
        c, u, stopped = heapq.heappop(heap)
        if best.get((u, stopped)) != c or stopped:
            continue
        for v, step, estop in _steps(spec, index, u):
            nc = c + step
            if nc > budget:
                continue
            may_enter, may_end = _occupancy(spec, v)
            if not may_enter:
                continue
            st = estop or spec["stop"][v] or (
                spec["zoc"] is not None and bool(spec["zoc"][u] & spec["zoc"][v]))
            if st and (not may_end or spec["no_end"][v]):
                continue
            if nc < best.get((v, st), 1 << 60):
                best[(v, st)] = nc
                heapq.heappush(heap, (nc, v, st))
    out = {}
    for (v, _), c in best.items():
        out[v] = min(out.get(v, 1 << 60), c)
    return out


def path_is_valid(spec, path, cost, budget):
    """Does ``path`` (cell list) follow legal steps, never continue after a stop, and
    cost exactly ``cost``?"""
    index = {tuple(c): i for i, c in enumerate(spec["coords"])}
    total = 0
    for i in range(len(path) - 1):
        u, v = path[i], path[i + 1]
        options = [(step, estop) for w, step, estop in _steps(spec, index, u) if w == v]
        if not options:
            return False
        if not _occupancy(spec, v)[0]:
            return False
        step = min(s for s, _ in options)
        total += step
        stops = spec["stop"][v] or any(e for s, e in options if s == step) or (
            spec["zoc"] is not None and bool(spec["zoc"][u] & spec["zoc"][v]))
        if stops and i + 1 != len(path) - 1:
            return False
    return total == cost and total <= budget


def path_totals(spec, path, free_end=False):
    """(the costs a legal walk along ``path`` may total, its penalty): every step one of
    the moves u -> v (several may join two cells: a side and a link), only the last one
    allowed to stop (none with ``free_end``); the penalty summed along the path and capped
    at ``max_penalty``. No legal walk: an empty set."""
    index = {tuple(c): i for i, c in enumerate(spec["coords"])}
    totals = {0}
    pen = 0
    last = len(path) - 1
    for i in range(last):
        u, v = path[i], path[i + 1]
        may_enter, may_end = _occupancy(spec, v)
        nxt = set()
        for w, step, estop in _steps(spec, index, u):
            if w != v or not may_enter:
                continue
            st = estop or spec["stop"][v] or (
                spec["zoc"] is not None and bool(spec["zoc"][u] & spec["zoc"][v]))
            if st and (i + 1 != last or free_end or not may_end or spec["no_end"][v]):
                continue
            nxt |= {t + step for t in totals}
        totals = nxt
        if spec["leave"] is not None:
            pen += bin(spec["leave"][u] & ~spec["leave"][v]).count("1") * spec["leave_weight"]
        if spec["enter_pen"] is not None:
            pen += spec["enter_pen"][v]
    return totals, min(pen, spec["max_penalty"])
