"""Published Heroscape battlefields as bundled examples: the source data and its converter.

The three battlefields of the Heroscape: Age of Annihilation master set rulebook, "The
Shattered Table", "Heshva Basin" and "The Howling Pass", as transcribed piece by piece in
the open-source Heroscape map editor by Dissolutio (https://github.com/Dissolutio/
heroscape-map-editor, files ``public/json-maps/AoA_1_The_Shattered_Table.json`` at commit
33e6ea851aa499ce2a2c247d8f9250f58daeecb3, ``public/AoA_2_Heshva_Basin.json`` at
80ea649e64697b5b4ed920cb413740934a706550 and ``public/AoA_3_The_Howling_Pass.json`` at
2308d6c2030ba6eb184fbc40b6c13d815983fe21). The ``boardPieces`` of each file are copied
below unchanged: key ``altitude~q~r~rotation~piece``, pieces ``g``/``r``/``s`` + size
(grass, rock, sand land tiles of 1, 2, 3, 7 or 24 hexes), ``w1`` (a water tile) and
``lwp`` (a Laur wall pillar, an obstacle).

Conversion (the editor's own rules: ``src/data/tileTemplates.ts`` for the hexes of a
tile, ``src/data/rotationTransforms.ts`` / ``hexUtilsRotateAroundOrigin_000`` for its
rotation about the placed hex): a land tile placed at altitude ``a`` is a layer whose top
is level ``a + 1``; a water tile placed at ``a`` adds no height (level ``a``, docs/
heroscape.md); the space of a column is its top tile; a pillar makes the space it stands
on an obstacle. Two columns (one in The Howling Pass under an overhang, one bridged) have
a gap under their top tile: the top is the space (the water under the overhang is lost).
The source holds no glyphs nor start zones. The figures and queries are ours.

Run ``python tests/hs_battlefields.py`` to write the examples again;
tests/test_heroscape_battlefields.py checks that the bundled files are this output.
"""
from __future__ import annotations

import json
from pathlib import Path

SHATTERED_TABLE = {
    "0~-2~14~4~g24": "g24", "0~6~1~1~g24": "g24", "0~-5~12~4~r24": "r24",
    "0~-1~11~0~w1": "w1", "0~-2~12~0~w1": "w1", "0~-3~12~0~w1": "w1", "0~7~1~0~w1": "w1",
    "0~8~0~0~w1": "w1", "0~6~3~0~w1": "w1", "0~7~3~0~w1": "w1", "0~5~4~0~w1": "w1",
    "0~9~3~1~g24": "g24", "0~4~12~4~g24": "g24", "0~10~6~0~w1": "w1", "0~14~1~0~w1": "w1",
    "0~15~0~0~w1": "w1", "0~10~8~4~r24": "r24", "0~10~9~0~g2": "g2", "0~12~8~1~g2": "g2",
    "0~14~7~2~r2": "r2", "0~11~5~3~g24": "g24", "0~8~1~1~g3": "g3", "0~-3~8~2~r2": "r2",
    "0~-4~13~0~s2": "s2", "0~2~13~0~g2": "g2", "1~5~1~0~g3": "g3", "1~9~0~0~r3": "r3",
    "1~12~0~2~r2": "r2", "1~12~3~0~w1": "w1", "1~12~2~0~s2": "s2", "1~13~3~2~s2": "s2",
    "1~11~3~1~s2": "s2", "1~10~3~1~s2": "s2", "1~8~6~2~s2": "s2", "1~9~6~0~g1": "g1",
    "1~8~8~0~g7": "g7", "1~5~10~2~r2": "r2", "1~9~3~1~g24": "g24", "1~1~10~0~g7": "g7",
    "1~1~7~0~g1": "g1", "1~2~7~0~g1": "g1", "1~2~6~0~g1": "g1", "1~3~3~2~g2": "g2",
    "1~-2~13~0~g1": "g1", "2~7~4~0~g7": "g7", "2~5~7~0~g7": "g7", "2~5~6~0~r1": "r1",
    "2~7~7~0~r1": "r1", "2~8~3~0~g1": "g1", "2~9~1~0~s1": "s1", "2~6~1~0~r1": "r1",
    "2~4~5~0~g1": "g1", "2~4~10~0~s3": "s3", "2~1~10~2~g2": "g2", "2~2~6~1~r2": "r2",
    "3~7~4~0~s7": "s7", "3~5~7~0~s7": "s7", "3~4~11~0~g1": "g1", "3~9~1~0~s1": "s1",
    "3~4~5~0~g1": "g1", "4~7~4~0~r7": "r7", "4~5~7~0~r7": "r7", "4~9~1~0~r1": "r1",
    "4~4~5~0~r1": "r1", "2~6~4~0~lwp": "lwp", "1~6~9~0~lwp": "lwp", "1~3~9~0~lwp": "lwp",
    "2~9~4~0~lwp": "lwp",
}
HESHVA_BASIN = {
    "0~5~3~2~g24": "g24", "0~-2~6~0~g24": "g24", "0~0~6~1~s2": "s2", "0~1~7~1~s2": "s2",
    "0~2~5~1~s2": "s2", "0~1~5~0~w1": "w1", "0~1~6~0~w1": "w1", "0~0~8~0~w1": "w1",
    "0~2~7~0~w1": "w1", "0~2~8~0~w1": "w1", "0~1~9~0~w1": "w1", "0~3~6~0~w1": "w1",
    "0~3~5~0~w1": "w1", "0~3~8~0~w1": "w1", "0~4~7~0~w1": "w1", "0~4~8~0~w1": "w1",
    "0~3~7~0~s1": "s1", "0~5~6~1~s2": "s2", "0~4~5~1~s2": "s2", "0~5~4~0~w1": "w1",
    "0~5~5~0~w1": "w1", "0~6~5~0~s1": "s1", "0~5~8~0~r1": "r1", "0~6~6~0~w1": "w1",
    "0~6~7~0~w1": "w1", "0~8~7~3~r24": "r24", "0~1~10~5~r24": "r24", "1~2~6~0~r1": "r1",
    "1~3~7~0~r1": "r1", "1~5~3~2~g24": "g24", "1~-2~6~0~g24": "g24", "1~8~7~3~g24": "g24",
    "1~1~10~5~g24": "g24", "2~2~1~0~r7": "r7", "2~4~10~0~r7": "r7", "2~4~1~0~r1": "r1",
    "2~-1~10~1~g3": "g3", "2~2~12~0~g1": "g1", "2~2~10~0~g1": "g1", "2~-4~10~0~g1": "g1",
    "2~-2~8~0~g1": "g1", "2~7~3~0~g1": "g1", "2~10~3~0~g1": "g1", "2~9~6~0~s1": "s1",
    "2~7~7~0~g2": "g2", "2~7~9~2~g2": "g2", "2~5~2~2~g2": "g2", "2~0~3~2~g2": "g2",
    "2~-2~6~0~g2": "g2", "3~2~1~0~s7": "s7", "3~4~10~0~s7": "s7", "3~7~3~0~g1": "g1",
    "3~9~6~0~g1": "g1", "3~-2~6~0~g1": "g1", "3~-4~10~0~g1": "g1", "4~2~1~0~g7": "g7",
    "4~4~10~0~g7": "g7", "5~2~1~0~g7": "g7", "5~4~10~0~g7": "g7", "6~2~2~1~r3": "r3",
    "6~4~10~0~s3": "s3", "7~1~3~0~r2": "r2", "7~4~10~0~g2": "g2", "8~1~3~0~r2": "r2",
    "8~4~10~0~r2": "r2", "9~1~3~0~r2": "r2", "9~4~10~0~r2": "r2", "3~4~3~1~lwp": "lwp",
    "2~7~8~0~lwp": "lwp",
}
HOWLING_PASS = {
    "0~2~5~3~g24": "g24", "0~-2~8~0~g24": "g24", "0~0~5~0~w1": "w1", "0~-1~6~0~w1": "w1",
    "0~0~6~0~w1": "w1", "0~-1~7~0~w1": "w1", "0~1~6~0~w1": "w1", "0~2~6~0~w1": "w1",
    "0~3~6~0~w1": "w1", "0~4~6~0~w1": "w1", "0~5~6~0~w1": "w1", "0~6~6~0~w1": "w1",
    "0~7~6~0~w1": "w1", "0~8~6~0~w1": "w1", "0~9~5~0~w1": "w1", "0~10~4~0~w1": "w1",
    "0~11~3~0~w1": "w1", "0~6~0~0~g24": "g24", "0~13~5~3~g24": "g24", "0~9~1~0~s1": "s1",
    "0~8~2~0~g2": "g2", "0~9~0~2~g2": "g2", "0~10~0~1~g2": "g2", "0~10~2~0~g1": "g1",
    "0~9~3~0~g1": "g1", "0~9~4~0~g1": "g1", "0~10~3~0~w1": "w1", "0~11~4~0~w1": "w1",
    "0~11~5~0~w1": "w1", "0~11~6~0~w1": "w1", "0~12~6~0~w1": "w1", "0~11~7~0~s3": "s3",
    "0~5~12~4~g24": "g24", "0~2~12~3~g24": "g24", "0~0~10~0~r1": "r1", "0~4~10~0~r3": "r3",
    "0~7~7~1~s2": "s2", "0~6~7~2~s2": "s2", "0~5~9~0~s2": "s2", "1~10~0~0~s7": "s7",
    "1~4~3~0~s7": "s7", "1~6~4~0~g1": "g1", "1~5~5~0~g1": "g1", "1~6~5~0~g1": "g1",
    "1~8~3~0~g7": "g7", "1~11~2~0~s2": "s2", "1~12~3~1~r2": "r2", "1~12~5~0~r1": "r1",
    "1~1~5~0~r1": "r1", "1~-1~8~0~r1": "r1", "1~2~7~0~g7": "g7", "1~4~7~0~s1": "s1",
    "1~5~7~2~s2": "s2", "1~6~7~0~r7": "r7", "1~5~12~4~r24": "r24", "2~4~4~1~g3": "g3",
    "2~6~4~1~g3": "g3", "2~8~3~0~g7": "g7", "2~10~0~0~s7": "s7", "2~2~7~0~g7": "g7",
    "2~6~7~0~r7": "r7", "2~4~7~0~r2": "r2", "3~4~5~0~g2": "g2", "3~3~7~0~g2": "g2",
    "3~6~5~0~r2": "r2", "3~5~7~0~r2": "r2", "4~5~5~0~g1": "g1", "4~6~5~0~g1": "g1",
    "4~5~6~2~r2": "r2", "4~5~7~0~g1": "g1", "5~6~5~2~g2": "g2", "5~4~7~0~g1": "g1",
    "2~7~9~0~lwp": "lwp", "2~8~9~0~lwp": "lwp", "1~2~1~1~lwp": "lwp", "1~2~2~1~lwp": "lwp",
    "2~10~5~1~lwp": "lwp",
}

# ------------------------------------------------------------------------------ converter
_O, _E, _SE, _SW = (0, 0), (1, 0), (0, 1), (-1, 1)
_B7 = [_O, _E, _SE, _SW, (1, 1), (-1, 2), (0, 2)]
_B24 = _B7 + [(1, 2), (-2, 3), (-1, 3), (0, 3), (1, 3), (2, 3), (-2, 4), (-1, 4), (0, 4),
              (1, 4), (2, 4), (-3, 5), (-2, 5), (-1, 5), (0, 5), (1, 5), (2, 5)]
#: the hexes of a land or water tile of each size (the editor's tileTemplates)
TEMPLATES = {1: [_O], 2: [_O, _E], 3: [_O, _E, _SE], 7: _B7, 24: _B24}
TERRAIN = {"g": "grass", "r": "rock", "s": "sand", "w": "water"}


def rotate(q: int, r: int, k: int) -> tuple[int, int]:
    """Axial (q, r) turned k sixths about the origin (the editor's
    hexUtilsRotateVector)."""
    s = -q - r
    return [(q, r), (-r, -s), (s, q), (-q, -r), (r, s), (-s, -q)][k % 6]


def columns(pieces: dict) -> tuple[dict, dict]:
    """({(q, r): {altitude: terrain}}, {(q, r): altitude of a pillar})."""
    stack: dict = {}
    pillars: dict = {}
    for key, piece in pieces.items():
        a, q, r, k, name = key.split("~")
        if name != piece:
            raise ValueError(f"{key}: names {name}, holds {piece}")
        a, q, r, k = int(a), int(q), int(r), int(k)
        if piece == "lwp":
            pillars[(q, r)] = a
            continue
        terrain, size = TERRAIN[piece[0]], int(piece[1:])
        for dq, dr in TEMPLATES[size]:
            x, y = rotate(dq, dr, k)
            col = stack.setdefault((q + x, r + y), {})
            if a in col:
                raise ValueError(f"{key}: two tiles at altitude {a} on {(q + x, r + y)}")
            col[a] = terrain
    return stack, pillars


def battlefield(pieces: dict) -> list[dict]:
    """The board cells of a battlefield, ordered by r then q."""
    stack, pillars = columns(pieces)
    cells = {}
    for (q, r), col in stack.items():
        top = max(col)
        terrain = col[top]
        cell = {"at": [q, r], "level": top if terrain == "water" else top + 1}
        if terrain != "grass":
            cell["terrain"] = terrain
        cells[(q, r)] = cell
    for at, a in pillars.items():
        if at not in cells or cells[at]["level"] != a:
            raise ValueError(f"pillar at {at} altitude {a} stands on no tile top")
        cells[at]["obstacle"] = "pillar"
    return [cells[k] for k in sorted(cells, key=lambda k: (k[1], k[0]))]


# ------------------------------------------------------------------------------ examples
def _fig(fid, team, at, move, height, **kw):
    return {"id": fid, "team": team, "at": at, "move": move, "height": height, **kw}


#: example file name -> (source pieces, figures, query)
EXAMPLES = {
    "heroscape_map_aoa_shattered_table.json": (SHATTERED_TABLE, [
        _fig("sgt_drake", "jandar", [3, 5], 6, 5),
        _fig("syvarris", "jandar", [9, 6], 5, 5),
        _fig("raelin", "jandar", [1, 8], 6, 6, flying=True),
        _fig("marro", "utgar", [3, 6], 6, 5),
        _fig("grimnak", "utgar", [[10, 7], [11, 7]], 5, 6),
        _fig("mimring", "utgar", [[13, 5], [14, 5]], 6, 9, flying=True),
    ], {"figure": "sgt_drake", "move": 6}),
    "heroscape_map_aoa_heshva_basin.json": (HESHVA_BASIN, [
        _fig("agent_carr", "jandar", [0, 9], 5, 5),
        _fig("finn", "jandar", [-2, 7], 5, 5),
        _fig("raelin", "jandar", [2, 9], 6, 6, flying=True),
        _fig("tarn", "utgar", [7, 4], 4, 5),
        _fig("grimnak", "utgar", [[8, 5], [9, 5]], 5, 6),
    ], {"figure": "agent_carr", "move": 5}),
    "heroscape_map_aoa_howling_pass.json": (HOWLING_PASS, [
        _fig("syvarris", "jandar", [1, 1], 5, 5),
        _fig("ullar", "jandar", [3, 0], 5, 5),
        _fig("grimnak", "utgar", [[1, 10], [2, 10]], 5, 6),
        _fig("mimring", "utgar", [[-1, 11], [0, 11]], 6, 9, flying=True),
        _fig("marro", "utgar", [6, 5], 6, 5),
    ], {"figure": "grimnak", "move": 5}),
}


def scenario(name: str) -> dict:
    pieces, figures, query = EXAMPLES[name]
    return {"game": "heroscape", "board": {"cells": battlefield(pieces)},
            "figures": figures, "query": query}


def to_text(s: dict) -> str:
    """The scenario as the bundled file: one cell and one figure per line."""
    cells = ",\n".join("      " + json.dumps(c) for c in s["board"]["cells"])
    figs = ",\n".join("    " + json.dumps(f) for f in s["figures"])
    return (f'{{\n  "game": "heroscape",\n  "board": {{"cells": [\n{cells}\n  ]}},\n'
            f'  "figures": [\n{figs}\n  ],\n  "query": {json.dumps(s["query"])}\n}}\n')


EXAMPLE_DIR = Path(__file__).resolve().parent.parent / "core" / "examples"

if __name__ == "__main__":
    for name in EXAMPLES:
        (EXAMPLE_DIR / name).write_text(to_text(scenario(name)), encoding="utf-8")
        print("wrote", EXAMPLE_DIR / name)
