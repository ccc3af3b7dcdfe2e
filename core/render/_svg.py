"""A :class:`Picture` drawn as SVG: :func:`to_svg` (hexes pointy or flat, squares), and
its legend (:func:`legend_items`)."""
from __future__ import annotations

import math
from xml.sax.saxutils import escape

from ..errors import ScenarioError
from ._model import OBSTACLE, PALETTE, RIFT, TEAM_COLOURS, TRAP, Picture, stop_reasons


# ----------------------------------------------------------------------- geometry
S = 26.0      # hex circumradius / half a square side, in px
SQ3 = math.sqrt(3.0)


def _centre(pic: Picture, c) -> tuple:
    q, r = c
    if pic.grid == "hex":
        if pic.orientation == "pointy":
            return (S * SQ3 * (q + r / 2.0), S * 1.5 * r)
        return (S * 1.5 * q, S * SQ3 * (r + q / 2.0))
    return (2 * S * q, 2 * S * r)


def _corners(pic: Picture, c, scale: float = 1.0) -> list:
    x, y = _centre(pic, c)
    r = S * scale
    if pic.grid == "hex":
        start = 30 if pic.orientation == "pointy" else 0
        return [(x + r * math.cos(math.radians(start + 60 * k)),
                 y + r * math.sin(math.radians(start + 60 * k))) for k in range(6)]
    return [(x - r, y - r), (x + r, y - r), (x + r, y + r), (x - r, y + r)]


def _f(v: float) -> str:
    s = f"{v:.1f}"
    return "0.0" if s == "-0.0" else s


def _pts(points) -> str:
    return " ".join(f"{_f(x)},{_f(y)}" for x, y in points)


def _side_segment(a, b) -> tuple:
    """The unit edge between two orthogonally adjacent squares."""
    (ax, ay), (bx, by) = a, b
    cx, cy = (ax + bx) * S, (ay + by) * S   # midpoint of the two centres
    if ax != bx:   # vertical edge
        return (cx, cy - S), (cx, cy + S)
    return (cx - S, cy), (cx + S, cy)


def _hex_side(pic: Picture, a, b) -> tuple:
    """The side two adjacent hexes share (half a side either way of the midpoint of
    their centres, across the line between them)."""
    (ax, ay), (bx, by) = _centre(pic, a), _centre(pic, b)
    dx, dy = bx - ax, by - ay
    k = S / 2.0 / math.hypot(dx, dy)
    mx, my = (ax + bx) / 2.0, (ay + by) / 2.0
    return (mx - dy * k, my + dx * k), (mx + dy * k, my - dx * k)


def _team_colour(pic: Picture) -> dict:
    out, k = {}, 0
    for f in pic.figures:
        if f.team in out:
            continue
        if f.team.lower() in TEAM_COLOURS:
            out[f.team] = TEAM_COLOURS[f.team.lower()]
        else:
            used = set(out.values())
            free = [p for p in PALETTE if p not in used] or list(PALETTE)
            out[f.team] = free[k % len(free)]
            k += 1
    return out


# ---------------------------------------------------------------------------- SVG
REACH_RIM, STOP_RIM, DANGER_RIM, STAMINA_RIM = "#f9a825", "#ef6c00", "#d32f2f", "#5e35b1"
PATH_COLOUR, LINK_COLOUR = "#0d47a1", "#6a1b9a"
_MARK_LEGEND = {   # mark kind -> (swatch, colour, words)
    "obstacle": ("fill", OBSTACLE, "obstacle"), "trap": ("rim", TRAP, "trap"),
    "rift": ("rim", RIFT, "rift"), "glyph": ("fill", "#ffeb3b", "glyph"),
    "stairs": ("fill", "#4e342e", "stairs"), "portal": ("rim", "#4527a0", "portal"),
    "stop": ("rim", "#b71c1c", "stop cell"), "rampaging": ("fill", "#4e342e", "rampaging"),
}


def legend_items(pic: Picture) -> list:
    """(swatch, colour, words) for everything the picture draws: terrain, marks, links,
    doors, teams, the path and the reach's rims."""
    items = [("fill", c, w) for c, w in pic.legend]
    words = {w for _, _, w in items}
    kinds = []
    for c in pic.cells:
        for m in c.marks:
            k = m.partition(":")[0]
            if k in _MARK_LEGEND and k not in kinds:
                kinds.append(k)
    for k in kinds:
        if _MARK_LEGEND[k][2] not in words and not (k == "obstacle" and "impassable" in words):
            items.append(_MARK_LEGEND[k])
    for kind in dict.fromkeys(k for _, _, k in pic.links):
        items.append(("dash", LINK_COLOUR, "stairs link" if kind == "stairs" else kind))
    for (colour, is_open), label in {(d[3], d[2]): d[0] for d in pic.doors}.items():
        items.append(("door" if not is_open else "dash", colour,
                      f"{label} (open)" if is_open else label))
    for team, colour in _team_colour(pic).items():
        items.append(("dot", colour, f"team {team}"))
    if pic.path:
        items.append(("line", PATH_COLOUR, "path"))
    ends = pic.labels().values()
    items.append(("rim", REACH_RIM, "reach: cost (others dimmed)" if len(ends) > 1 else
                  "end: cost"))
    reasons = stop_reasons(pic)
    if reasons:
        named = [r for r in reasons if r != "stops"]
        items.append(("rim", STOP_RIM, "move stops" + (f": {', '.join(named)}" if named
                                                       else "")))
    if any(e.danger for e in ends):
        items.append(("rim", DANGER_RIM, "danger"))
    if any(e.stamina for e in ends):
        items.append(("rim", STAMINA_RIM, "needs Stamina (st n)"))
    return items


def _swatch(kind: str, colour: str, x: float, y: float) -> str:
    if kind == "fill":
        return (f'<rect x="{_f(x)}" y="{_f(y)}" width="12" height="12" fill="{colour}" '
                f'stroke="#555" stroke-width="0.5"/>')
    if kind == "rim":
        return (f'<rect x="{_f(x + 1)}" y="{_f(y + 1)}" width="10" height="10" fill="none" '
                f'stroke="{colour}" stroke-width="2.5"/>')
    if kind == "dot":
        return (f'<circle cx="{_f(x + 6)}" cy="{_f(y + 6)}" r="6" fill="{colour}" '
                f'stroke="#fff" stroke-width="1"/>')
    dash = ' stroke-dasharray="3,2"' if kind == "dash" else ""
    width = 5 if kind == "door" else 3
    return (f'<line x1="{_f(x)}" y1="{_f(y + 6)}" x2="{_f(x + 12)}" y2="{_f(y + 6)}" '
            f'stroke="{colour}" stroke-width="{width}"{dash}/>')


def _halo_text(x: float, y: float, text: str, size: int, colour: str, cls: str = "",
               extra: str = "") -> str:
    """Text over a white halo (drawn twice: no reliance on paint-order)."""
    common = f'x="{_f(x)}" y="{_f(y)}" font-size="{size}" text-anchor="middle" {extra}'
    c = f' class="{cls}"' if cls else ""
    return (f'<text {common} fill="#fff" stroke="#fff" stroke-width="3">{escape(text)}'
            f'</text><text{c} {common} fill="{colour}">{escape(text)}</text>')


def to_svg(pic: Picture) -> str:
    """The picture as a standalone SVG document (a string).

    Every mark comes from the result's own fields: an end's rim is dashed orange exactly
    when its JSON entry has a stop (``stopped`` / ``stop``), red when it carries a danger,
    purple when it needs Stamina; reached cells keep their terrain colour (the cells no
    end reaches are dimmed instead); labels (sites, doors, costs) are drawn last, over
    figures and lines."""
    if not pic.cells:
        raise ScenarioError("nothing to draw: the board has no cells")
    pts = [p for c in pic.cells for p in _corners(pic, c.at)]
    for cells, _ in pic.regions:
        pts += [p for c in cells for p in _corners(pic, c)]
    pad = 10.0
    x0 = min(p[0] for p in pts) - pad
    y0 = min(p[1] for p in pts) - pad - 26
    x1 = max(p[0] for p in pts) + pad
    y1 = max(p[1] for p in pts) + pad
    w = max(x1 - x0, 6.2 * len(pic.title) + 4 * pad, 300.0)
    items = legend_items(pic)
    rows, row, used = [], [], 0.0
    for item in items:
        iw = 22 + 6.2 * len(item[2])
        if row and used + iw > w - 2 * pad:
            rows.append(row)
            row, used = [], 0.0
        row.append(item)
        used += iw
    rows.append(row)
    h = y1 - y0 + 20.0 * len(rows) + 10
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{_f(w)}" height="{_f(h)}" '
           f'viewBox="{_f(x0)} {_f(y0)} {_f(w)} {_f(h)}" font-family="DejaVu Sans, '
           f'Arial, sans-serif">',
           f'<rect x="{_f(x0)}" y="{_f(y0)}" width="{_f(w)}" height="{_f(h)}" '
           f'fill="#fbfaf7"/>',
           f'<text x="{_f(x0 + pad)}" y="{_f(y0 + 18)}" font-size="15" '
           f'font-weight="bold" fill="#222">{escape(pic.title)}</text>']
    # cells
    out.append('<g class="board">')
    for c in pic.cells:
        out.append(f'<polygon class="cell" points="{_pts(_corners(pic, c.at))}" '
                   f'fill="{c.fill}" stroke="#555" stroke-width="0.8">'
                   f'<title>{escape(str(list(c.at)))} {escape(c.terrain)}'
                   f'{"" if c.level is None else f" level {c.level}"}</title></polygon>')
    out.append('</g>')
    # the cells no end reaches are dimmed: reached cells keep their terrain colour
    labels = pic.labels()
    if len(labels) > 1:
        out.append('<g class="unreached">')
        for c in pic.cells:
            if tuple(c.at) not in labels:
                out.append(f'<polygon points="{_pts(_corners(pic, c.at))}" fill="#fbfaf7" '
                           f'fill-opacity="0.5"/>')
        out.append('</g>')
    # regions (unexplored tiles, provoke tokens)
    for cells, label in pic.regions:
        for c in cells:
            out.append(f'<polygon class="region" points="{_pts(_corners(pic, c))}" '
                       f'fill="none" stroke="#888" stroke-width="0.8" '
                       f'stroke-dasharray="3,3"/>')
        cx = sum(_centre(pic, c)[0] for c in cells) / len(cells)
        cy = sum(_centre(pic, c)[1] for c in cells) / len(cells)
        out.append(f'<text x="{_f(cx)}" y="{_f(cy + 4)}" font-size="12" fill="#555" '
                   f'text-anchor="middle" font-style="italic">{escape(label)}</text>')
    # marks (site names are labels: drawn last)
    for c in pic.cells:
        x, y = _centre(pic, c.at)
        for m in c.marks:
            if not m.startswith("site:"):
                out.append(_mark_svg(pic, m, x, y))
    # reach: every end gets a rim (dashed orange: the result says it stops there; red:
    # a danger; purple: it needs Stamina)
    out.append('<g class="reach">')
    for a, e in sorted(labels.items()):
        rim = DANGER_RIM if e.danger else STOP_RIM if e.stopped else \
            STAMINA_RIM if e.stamina else REACH_RIM
        out.append(f'<polygon class="end" data-at="{a[0]},{a[1]}" data-cost="{escape(str(e.cost))}"'
                   f' data-stop="{str(e.stopped).lower()}"'
                   + (f' data-stop-reason="{escape(e.stop)}"' if e.stopped and e.stop else "")
                   + f' data-stamina="{e.stamina}" '
                   f'points="{_pts(_corners(pic, a, 0.86))}" fill="none" stroke="{rim}" '
                   f'stroke-width="{3 if (e.danger or e.stopped or e.stamina) else 2.5}"'
                   f'{_DASH53 if e.stopped else ""}/>')
    out.append('</g>')
    # level numbers
    for c in pic.cells:
        if c.level is not None:
            x, y = _centre(pic, c.at)
            out.append(f'<text class="level" x="{_f(x)}" y="{_f(y - S * 0.55)}" '
                       f'font-size="8" fill="#222" fill-opacity="0.75" text-anchor="middle">'
                       f'L{c.level}</text>')
    # walls and doors (door names are labels: drawn last)
    for a, b in pic.walls:
        p, q = _hex_side(pic, a, b) if pic.grid == "hex" else _side_segment(a, b)
        out.append(f'<line class="wall" x1="{_f(p[0])}" y1="{_f(p[1])}" x2="{_f(q[0])}" '
                   f'y2="{_f(q[1])}" stroke="#111" stroke-width="5" '
                   f'stroke-linecap="square"/>')
    door_labels = []
    for label, sides, is_open, colour in pic.doors:
        segs = [_side_segment(a, b) for a, b in sides]
        for p, q in segs:
            out.append(f'<line class="door" x1="{_f(p[0])}" y1="{_f(p[1])}" '
                       f'x2="{_f(q[0])}" y2="{_f(q[1])}" stroke="{colour}" stroke-width="7"'
                       f'{_DASH44 if is_open else ""}/>')
        mx = sum(p[0] + q[0] for p, q in segs) / (2 * len(segs))
        my = sum(p[1] + q[1] for p, q in segs) / (2 * len(segs))
        door_labels.append(_halo_text(mx, my - 6, label, 9, colour, "door-label",
                                      'font-weight="bold"'))
    for a, b, kind in pic.links:
        (ax, ay), (bx, by) = _centre(pic, a), _centre(pic, b)
        out.append(f'<line class="link" x1="{_f(ax)}" y1="{_f(ay)}" x2="{_f(bx)}" '
                   f'y2="{_f(by)}" stroke="{LINK_COLOUR}" stroke-width="1.5" '
                   f'stroke-dasharray="6,4" opacity="{0.35 if kind == "stairs" else 0.7}"><title>{escape(kind)}</title>'
                   f'</line>')
    # path
    if pic.path:
        pts = []
        for step in pic.path:
            if step:
                xs = [_centre(pic, c) for c in step]
                pts.append((sum(p[0] for p in xs) / len(xs), sum(p[1] for p in xs) / len(xs)))
        out.append(f'<polyline class="path" points="{_pts(pts)}" fill="none" '
                   f'stroke="{PATH_COLOUR}" stroke-width="4" stroke-linejoin="round" '
                   f'stroke-linecap="round" opacity="0.8"/>')
        if pts:
            x, y = pts[-1]
            out.append(f'<circle class="target" cx="{_f(x)}" cy="{_f(y)}" r="6" '
                       f'fill="{PATH_COLOUR}"/>')
    # figures
    colours = _team_colour(pic)
    occupied = set()
    for f in pic.figures:
        col = colours.get(f.team, "#555")
        cs = [_centre(pic, c) for c in f.cells]
        occupied.update(map(tuple, f.cells))
        out.append(f'<g class="figure"><title>{escape(f.id)} ({escape(f.team)})</title>')
        ring = "#ffd600" if f.mover else "#fff"
        ring_w = 3 if f.mover else 1.5
        if len(cs) > 1 and pic.grid == "square":
            xs = [c[0] for c in f.cells]
            ys = [c[1] for c in f.cells]
            (ax, ay), (bx, by) = _centre(pic, (min(xs), min(ys))), \
                _centre(pic, (max(xs), max(ys)))
            m = S * 0.55
            out.append(f'<rect x="{_f(ax - m)}" y="{_f(ay - m)}" width="{_f(bx - ax + 2 * m)}"'
                       f' height="{_f(by - ay + 2 * m)}" rx="{_f(m)}" fill="{col}" '
                       f'stroke="{ring}" stroke-width="{ring_w}"/>')
        elif len(cs) > 1:
            out.append(f'<polyline points="{_pts(cs)}" fill="none" stroke="{ring}" '
                       f'stroke-width="{_f(S * 1.1 + 2 * ring_w)}" stroke-linecap="round" '
                       f'stroke-linejoin="round"/>')
            out.append(f'<polyline points="{_pts(cs)}" fill="none" stroke="{col}" '
                       f'stroke-width="{_f(S * 1.1)}" stroke-linecap="round" '
                       f'stroke-linejoin="round"/>')
        else:
            x, y = cs[0]
            out.append(f'<circle cx="{_f(x)}" cy="{_f(y)}" r="{_f(S * 0.55)}" '
                       f'fill="{col}" stroke="{ring}" stroke-width="{ring_w}"/>')
        x = sum(p[0] for p in cs) / len(cs)
        y = sum(p[1] for p in cs) / len(cs)
        name = f.id[:3]
        out.append(f'<text x="{_f(x)}" y="{_f(y + 1)}" font-size="10" fill="#fff" '
                   f'text-anchor="middle" font-weight="bold">{escape(name)}</text>')
        out.append('</g>')
    # labels, on top of lines and figures: door names, site names, then the reach's costs
    # (a cost under the figure standing there), notes and danger badges
    out += door_labels
    for c in pic.cells:
        x, y = _centre(pic, c.at)
        for m in c.marks:
            if m.startswith("site:"):
                out.append(_mark_svg(pic, m, x, y))
    for a, e in sorted(labels.items()):
        x, y = _centre(pic, a)
        if a in occupied:
            y += S * 0.62
        text = escape(e.label or str(e.cost))
        tip = f"{list(a)} cost {e.cost}" + (f" stops ({e.stop})" if e.stopped and e.stop
                                             not in ("", "stops") else
                                             " stops" if e.stopped else "") + \
            (f" ({e.danger})" if e.danger else "") + (f" [{e.note}]" if e.note else "")
        common = (f'x="{_f(x)}" y="{_f(y + 5)}" font-size="14" font-weight="bold" '
                  f'text-anchor="middle"')
        out.append(f'<text {common} fill="#fff" stroke="#fff" stroke-width="3">{text}'
                   f'</text>')
        out.append(f'<text class="cost" {common} fill="#111"><title>{escape(tip)}</title>'
                   f'{text}</text>')
        if e.note and a not in occupied:
            out.append(_halo_text(x, y + S * 0.62, e.note, 8,
                                  STAMINA_RIM if e.stamina else "#333", "note"))
        if e.danger:
            bx, by = _centre(pic, a)
            bx, by = bx + S * 0.6, by + S * 0.42
            out.append(f'<circle class="danger" cx="{_f(bx)}" cy="{_f(by)}" r="6" '
                       f'fill="{DANGER_RIM}"><title>{escape(e.danger)}</title></circle>'
                       f'<text x="{_f(bx)}" y="{_f(by + 3.5)}" font-size="9" '
                       f'font-weight="bold" fill="#fff" text-anchor="middle">'
                       f'{_badge(e.danger)}</text>')
    # legend, wrapped into rows
    ly = y1 + 4
    for row in rows:
        lx = x0 + pad
        for kind, colour, words in row:
            out.append(f'<g class="legend">{_swatch(kind, colour, lx, ly)}'
                       f'<text x="{_f(lx + 15)}" y="{_f(ly + 10)}" font-size="10" '
                       f'fill="#333">{escape(words)}</text></g>')
            lx += 22 + 6.2 * len(words)
        ly += 20
    if pic.offboard:
        words = "also reachable: " + ", ".join(f"{p} (cost {c})" for p, c in pic.offboard)
        out.append(f'<text class="offboard" x="{_f(x0 + w - pad)}" y="{_f(y0 + 18)}" '
                   f'font-size="12" text-anchor="end" fill="#333">{escape(words)}</text>')
    out.append('</svg>')
    return "\n".join(out) + "\n"


def _badge(danger: str) -> str:
    """The number of the first danger ("2 leaving attacks" -> "2"), or "!"."""
    head = danger.split(" ", 1)[0]
    return head if head.isdigit() and len(head) <= 2 else "!"


_DASH44 = ' stroke-dasharray="4,4"'
_DASH53 = ' stroke-dasharray="5,3"'


def _mark_svg(pic: Picture, mark: str, x: float, y: float) -> str:
    kind, _, word = mark.partition(":")
    r = S * 0.55
    if kind == "obstacle":
        t = f'<title>{escape(word)}</title>' if word else ""
        return (f'<g class="mark obstacle">{t}<line x1="{_f(x - r)}" y1="{_f(y - r)}" '
                f'x2="{_f(x + r)}" y2="{_f(y + r)}" stroke="#eee" stroke-width="2"/>'
                f'<line x1="{_f(x - r)}" y1="{_f(y + r)}" x2="{_f(x + r)}" '
                f'y2="{_f(y - r)}" stroke="#eee" stroke-width="2"/>'
                f'{_small(word, x, y + r + 2, "#eee") if word else ""}</g>')
    if kind == "trap":
        return (f'<polygon class="mark trap" points="{_pts([(x, y - r), (x + r, y + r * 0.7), (x - r, y + r * 0.7)])}" '
                f'fill="none" stroke="{TRAP}" stroke-width="2.5"/>')
    if kind == "rift":
        return (f'<circle class="mark rift" cx="{_f(x)}" cy="{_f(y)}" r="{_f(r)}" '
                f'fill="none" stroke="{RIFT}" stroke-width="3" stroke-dasharray="4,2"/>')
    if kind == "stop":
        return (f'<polygon class="mark stop" points="{_pts(_octagon(x, y, r * 0.9))}" '
                f'fill="none" stroke="#b71c1c" stroke-width="2"/>')
    if kind == "glyph":
        return (f'<polygon class="mark glyph" points="{_pts(_star(x, y, r))}" '
                f'fill="#ffeb3b" stroke="#8d6e00" stroke-width="1"><title>glyph '
                f'{escape(word)}</title></polygon>'
                f'{_small(word, x, y + r + 4, "#3e2723") if word else ""}')
    if kind == "stairs":
        lines = "".join(f'<line x1="{_f(x - r)}" y1="{_f(y - r + k * r / 2)}" '
                        f'x2="{_f(x + r)}" y2="{_f(y - r + k * r / 2)}" stroke="#4e342e" '
                        f'stroke-width="2"/>' for k in range(5))
        return f'<g class="mark stairs"><title>stairs</title>{lines}</g>'
    if kind == "portal":
        # a ring around the cell: it shows around a figure standing on the portal
        arrow = {"N": (0, -1), "E": (1, 0), "S": (0, 1), "W": (-1, 0)}.get(word)
        s = (f'<circle class="mark portal" cx="{_f(x)}" cy="{_f(y)}" r="{_f(S * 0.8)}" '
             f'fill="none" stroke="#4527a0" stroke-width="2.5" stroke-dasharray="5,2">'
             f'<title>portal {escape(word)}</title></circle>')
        if arrow:
            s += (f'<line x1="{_f(x + arrow[0] * S * 0.8)}" y1="{_f(y + arrow[1] * S * 0.8)}" '
                  f'x2="{_f(x + arrow[0] * S)}" y2="{_f(y + arrow[1] * S)}" '
                  f'stroke="#4527a0" stroke-width="4"/>')
        return s
    if kind == "site":
        return _halo_text(x, y - S * 0.58, word, 9, "#3e2723", "mark site",
                          'font-weight="bold"')
    if kind == "rampaging":
        return (f'<g class="mark rampaging"><circle cx="{_f(x)}" cy="{_f(y)}" '
                f'r="{_f(r)}" fill="#4e342e" stroke="#b71c1c" stroke-width="2"/>'
                f'{_small(word, x, y + 3, "#fff")}</g>')
    return _small(mark, x, y, "#333")


def _small(word: str, x: float, y: float, colour: str) -> str:
    return (f'<text x="{_f(x)}" y="{_f(y)}" font-size="8" text-anchor="middle" '
            f'fill="{colour}">{escape(word)}</text>')


def _octagon(x, y, r):
    return [(x + r * math.cos(math.radians(22.5 + 45 * k)),
             y + r * math.sin(math.radians(22.5 + 45 * k))) for k in range(8)]


def _star(x, y, r):
    return [(x + (r if k % 2 == 0 else r * 0.45) * math.cos(math.radians(-90 + 36 * k)),
             y + (r if k % 2 == 0 else r * 0.45) * math.sin(math.radians(-90 + 36 * k)))
            for k in range(10)]
