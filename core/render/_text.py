"""A :class:`Picture` drawn for a terminal: :func:`to_text`."""
from __future__ import annotations

from ._model import Picture, stop_reasons


def to_text(pic: Picture) -> str:
    """The picture for a terminal: one 3-character slot per cell.

    A figure shows as ``@ab`` (the moving one) or ``ab`` plus its team's first letter in
    capitals for others; a reachable end as its cost, then ``s`` if the move stops there,
    ``!`` if it is dangerous, ``*`` if it lies on the drawn path; other cells as their
    terrain character (``#`` obstacle) and level digit. Hex rows are offset by half a slot.
    """
    labels = pic.labels()
    on_path = {tuple(c) for step in (pic.path or []) for c in step}
    figs = {}
    for f in pic.figures:
        for c in f.cells:
            figs[tuple(c)] = ("@" if f.mover else f.team[:1].upper()) + f.id[:2]
    slots = {}
    for c in pic.cells:
        a = tuple(c.at)
        if a in figs:
            s = figs[a]
        elif a in labels:
            e = labels[a]
            mark = ("s" if e.stopped else "") + ("!" if e.danger else "") + \
                ("*" if a in on_path else "")
            s = (e.label or str(e.cost)) + mark
        else:
            s = c.char + ("" if c.level is None else str(c.level % 10))
            if "obstacle" in " ".join(c.marks):
                s = "##"
        slots[a] = s[:4]
    if pic.grid == "hex" and pic.orientation == "pointy":
        pos = {a: (2 * a[0] + a[1], a[1]) for a in slots}     # doubled columns
        width = 2
    elif pic.grid == "hex":
        pos = {a: (a[0], 2 * a[1] + a[0]) for a in slots}     # doubled rows
        width = 4
    else:
        pos = {a: (a[0], a[1]) for a in slots}
        width = 4
    xs = [p[0] for p in pos.values()]
    ys = [p[1] for p in pos.values()]
    x0, y0 = min(xs), min(ys)
    rows: dict = {}
    for a, (x, y) in pos.items():
        rows.setdefault(y - y0, {})[x - x0] = slots[a]
    lines = [pic.title]
    for y in range(max(ys) - y0 + 1):
        row = rows.get(y, {})
        if not row and pic.grid == "hex" and pic.orientation == "flat":
            continue
        line = ""
        for x in sorted(row):
            col = x * width
            line = line.ljust(col) + row[x].rjust(3) + " "
        lines.append(line.rstrip())
    n_end = len(labels)
    if pic.offboard:
        lines.append("also reachable: " + ", ".join(f"{p} (cost {c})" for p, c in pic.offboard))
    named = [r for r in stop_reasons(pic) if r != "stops"]
    stops = "s = stops there" + (f" ({', '.join(named)})" if named else "")
    lines.append(f"{n_end} end cells; @ = moving figure, {stops}, ! = danger, "
                 f"* = on the path" + (f"; path to {list(pic.target)}" if pic.target else ""))
    return "\n".join(lines) + "\n"
