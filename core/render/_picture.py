"""A scenario and its :func:`solve` result as a :class:`Picture`: :func:`picture` (the
board, the figures, one end per reachable cell with its cost, stop and danger, the path
to a chosen end) and :func:`choose_end`."""
from __future__ import annotations

from ..errors import QueryError, ScenarioError
from ._boards import _BOARDS, _explore
from ._model import PEnd, PFigure, Picture, _footprint, _num, _xy


# ------------------------------------------------------------------------ figures
def _figures(scenario: dict, result: dict, game: str) -> list:
    figs = scenario.get("figures") or []
    query = scenario.get("query") if isinstance(scenario.get("query"), dict) else {}
    mover = (result.get("figure") or result.get("enemy") or query.get("figure")
             or query.get("enemy"))
    for key in ("knock_back", "solo"):
        if isinstance(result.get(key), dict):
            mover = result[key].get("target") if key == "knock_back" else \
                result[key].get("figure")
    out = []
    sizes = {}
    if game == "descent":
        from ..games.descent import read_board, read_figures
        for h in read_figures(figs, read_board(scenario["board"])):
            sizes[h.id] = h.size
    for f in figs:
        if not isinstance(f, dict):
            continue
        fid = f.get("id")
        team = f.get("team", f.get("side", fid if game == "mage_knight" else "?"))
        at = f.get("at")
        cells = _footprint(at)
        if fid in sizes and cells:
            from ..games.descent import footprint_cells
            cells = footprint_cells(cells[0], sizes[fid])
        if not cells:
            continue   # e.g. a Descent hero in town
        note = "fly" if f.get("flying") or "fly" in (f.get("abilities") or []) else ""
        out.append(PFigure(str(fid), str(team), cells, fid == mover, note))
    return out


# --------------------------------------------------------------------------- ends
def _danger(game: str, e: dict) -> str:
    parts = []
    n = e.get("leaving_attacks") or 0
    if n:
        parts.append(f"{n} leaving attack{'s' * (n != 1)}")
    if e.get("fall") not in (None, "none"):
        parts.append(f"{e['fall']} fall")
    n = e.get("wounds") or 0
    if n:
        parts.append(f"{n} wound{'s' * (n != 1)}")
    n = e.get("traps") or 0
    if n:
        parts.append(f"{n} trap{'s' * (n != 1)}")
    if e.get("safe") is False:
        parts.append("unsafe")
    return ", ".join(parts)


#: Mage Knight flags that end the move (``pvp``, an attack on a hero one passes freely,
#: and ``safe`` are not stops)
MAGE_KNIGHT_STOPS = ("assault", "provoked")


def _stop_reason(e: dict) -> str:
    """Why the move must stop at this end, exactly as the result says it ("" = it need
    not): a ``stop`` reason (Heroscape, Descent), Mage Knight's ``assault`` /
    ``provoked`` flags, ``stopped_by`` (Tiny Epic Tactics' knock back), ``stopped``
    (grid: a stop cell or a provoke token). A pit or a Stamina cost is a note, not a
    stop."""
    stop = e.get("stop")
    if isinstance(stop, str) and stop:
        return stop
    flags = e.get("flags")
    if isinstance(flags, list):
        hit = [f for f in MAGE_KNIGHT_STOPS if f in flags]
        if hit:
            return ", ".join(hit)
    if e.get("stopped_by") is not None:
        return f"stopped by {e['stopped_by']}"
    if stop not in (None, False) or e.get("stopped"):
        return "stops"
    return ""


def _stopped(e: dict) -> bool:
    """Whether the result says the move stops at this end (see :func:`_stop_reason`)."""
    return bool(_stop_reason(e))


def _note(e: dict) -> str:
    """Small words under an end's cost, from the result's own fields."""
    parts = []
    if e.get("in_pit"):
        parts.append("pit")
    flags = e.get("flags")
    if isinstance(flags, list):
        parts += [str(f) for f in flags]
    if isinstance(e.get("stamina"), int) and e["stamina"] > 0:
        parts.append(f"st {e['stamina']}")
    return " ".join(parts)


def _ends(game: str, scenario: dict, result: dict, figures: list) -> list:
    mover = next((f for f in figures if f.mover), None)

    def foot(v) -> list:
        cells = _footprint(v)
        # Descent ends and paths name the anchor of a large monster: grow the footprint
        if game == "descent" and mover is not None and len(cells) == 1 and \
                len(mover.cells) > 1:
            ax, ay = mover.cells[0]
            return [(cells[0][0] + x - ax, cells[0][1] + y - ay) for x, y in mover.cells]
        return cells

    out, offboard = [], []
    raw_ends = result.get("ends") if isinstance(result.get("ends"), list) else []
    kind = result.get("kind")
    for e in raw_ends:
        if not isinstance(e, dict):
            continue
        cells = _footprint(e.get("cells")) or foot(e.get("at"))
        if not cells:
            if isinstance(e.get("at"), str):   # an end off the board, e.g. Descent's town
                offboard.append((e["at"], e.get("cost")))
            continue
        label = ""
        if kind == "die" and "min_roll" in e:
            label = f"{e['min_roll']}+"
        path = e.get("path")
        path = [foot(s) for s in path] if isinstance(path, list) else None
        stamina = e.get("stamina") if isinstance(e.get("stamina"), int) else 0
        out.append(PEnd(cells, e.get("cost"), _stopped(e), _danger(game, e), label, path, e,
                        _note(e), stamina, _stop_reason(e)))
    # one-destination answers: a Dark Realms enemy move, a knock back, a solo move
    single = None
    if kind == "enemy" and result.get("at") is not None:
        single = dict(result, cost=result.get("steps"))
    for key in ("knock_back", "solo"):
        if isinstance(result.get(key), dict):
            single = dict(result[key])
            single.setdefault("cost", single.get("moved"))
            single["stopped"] = single.get("stopped_by") is not None
    if single is not None and _footprint(single.get("at")):
        path = single.get("path")
        path = [foot(s) for s in path] if isinstance(path, list) else None
        danger = _danger(game, single)
        if single.get("health_lost"):
            danger = (danger + ", " if danger else "") + f"{single['health_lost']} health"
        reason = _stop_reason(single) if single.get("stopped") else ""
        out.append(PEnd(foot(single["at"]), single.get("cost"), bool(single.get("stopped")),
                        danger, "", path, single, stop=reason))
    return out, offboard


def choose_end(pic: Picture, to) -> PEnd:
    """The end whose anchor (or any footprint cell) is ``to``, the cheapest first."""
    to = _xy(to)
    hits = [e for e in pic.ends if tuple(e.cells[0]) == to] or \
        [e for e in pic.ends if to in map(tuple, e.cells)]
    if not hits:
        raise QueryError(f"--to {list(to)}: no end of this move is there; ends are at "
                         f"{sorted({tuple(e.cells[0]) for e in pic.ends})[:20]}")
    return min(hits, key=lambda e: (_num(e.cost), bool(e.danger)))


def picture(scenario: dict, result: dict, to=None, *, orientation: str = "pointy",
            title: str | None = None) -> Picture:
    """The :class:`Picture` of a scenario and its :func:`solve` result.

    ``to``: an end's cell; the path to it is drawn (the result must hold paths: solve
    with ``query.paths`` true). Without ``to``, a result with a single destination (an
    enemy move, a knock back, a solo move) draws its path.
    """
    if not isinstance(scenario, dict) or not isinstance(result, dict):
        raise ScenarioError("picture() needs the scenario dict and the result dict of "
                            "solve()")
    if orientation not in ("pointy", "flat"):
        raise ScenarioError(f"orientation is {orientation!r}; expected 'pointy' or 'flat'")
    game = scenario.get("game", "grid")
    if game not in _BOARDS:
        raise ScenarioError(f"no picture for game {game!r}; known: {sorted(_BOARDS)}")
    pic = Picture(game, "hex", orientation=orientation)
    pic.title = title if title is not None else _title(game, scenario, result)
    try:
        _BOARDS[game](scenario, pic)
    except (KeyError, TypeError, IndexError, AttributeError) as exc:
        raise ScenarioError(f"cannot draw this {game} board: {exc!r}") from exc
    pic.figures = _figures(scenario, result, game)
    pic.ends, pic.offboard = _ends(game, scenario, result, pic.figures)
    _explore(result, pic)
    chosen = None
    if to is not None:
        chosen = choose_end(pic, to)
        if chosen.path is None:
            raise QueryError(f"the result has no path to {list(_xy(to))}: solve with "
                             f"query.paths true")
    elif len(pic.ends) == 1 and pic.ends[0].path:
        chosen = pic.ends[0]
    if chosen is not None:
        pic.path = chosen.path
        pic.target = tuple(chosen.cells[0])
    return pic


def _title(game: str, scenario: dict, result: dict) -> str:
    who = result.get("figure") or result.get("enemy")
    for key in ("knock_back", "solo"):
        if isinstance(result.get(key), dict):
            who = f"{key.replace('_', ' ')} of {result[key].get('target') if key == 'knock_back' else result[key].get('figure')}"
    budget = (result.get("mp") or result.get("move") or result.get("card_move")
              or (scenario.get("query") or {}).get("budget"))
    t = f"{game.replace('_', ' ').title()}: {who}"
    if budget is not None and not isinstance(budget, bool):
        t += f", move {budget}"
    return t
