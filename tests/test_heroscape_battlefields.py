"""The bundled published battlefields (tests/hs_battlefields.py): the files are the
converter's output, the converter agrees with the source editor's own build of The
Shattered Table, and every battlefield solves and plays (the example tests of
test_heroscape.py and test_position_heroscape.py run on them too)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import movecore as mc
import hs_battlefields as hb

EXAMPLE_DIR = Path(mc.__file__).parent / "examples"


@pytest.mark.parametrize("name", sorted(hb.EXAMPLES))
def test_bundled_battlefield_is_the_conversion(name):
    assert (EXAMPLE_DIR / name).read_text(encoding="utf-8") == \
        hb.to_text(hb.scenario(name)), "run python tests/hs_battlefields.py"


def test_rotation_and_templates():
    for q, r in [(1, 0), (2, 3), (-1, 2)]:
        assert hb.rotate(q, r, 6) == (q, r)
        turned = {hb.rotate(q, r, k) for k in range(6)}
        assert len(turned) == 6
        assert all(abs(a) + abs(b) + abs(a + b) == abs(q) + abs(r) + abs(q + r)
                   for a, b in turned)          # turning keeps the distance
    for size, hexes in hb.TEMPLATES.items():
        assert len(set(hexes)) == size


def test_conversion_matches_the_editors_build_of_the_shattered_table():
    """src/data/shatteredTableBoardHexes.ts of the same editor (commit 80ea649) places
    the top of tile 4~5~7~0~r7 at altitude 5 on (5,7) (4,8) (5,8) (6,8) (4,9) (5,9),
    the 1-hex rocks 4~9~1 and 4~4~5 at altitude 5, and the Laur pillars on the tiles at
    (6,4) and (9,4) (altitude 2) and (6,9), (3,9) (altitude 1)."""
    cells = {tuple(c["at"]): c for c in hb.battlefield(hb.SHATTERED_TABLE)}
    for at in [(5, 7), (4, 8), (5, 8), (6, 8), (4, 9), (5, 9), (9, 1), (4, 5)]:
        assert cells[at]["level"] == 5 and cells[at]["terrain"] == "rock", at
    for at, level in [((6, 4), 2), ((9, 4), 2), ((6, 9), 1), ((3, 9), 1)]:
        assert cells[at]["obstacle"] == "pillar" and cells[at]["level"] == level


def test_conversion_rules():
    # a 24-hex grass tile turned once, a 1-hex rock on its origin, a pillar on the hex
    # east of the origin turned, a water tile off the tile: levels, terrain, obstacle
    tile = {hb.rotate(q, r, 1) for q, r in hb.TEMPLATES[24]}
    east = hb.rotate(1, 0, 1)
    water = next((q, 0) for q in range(9) if (q, 0) not in tile)
    cells = hb.battlefield({"0~0~0~1~g24": "g24", "1~0~0~0~r1": "r1",
                            f"0~{water[0]}~0~0~w1": "w1",
                            f"1~{east[0]}~{east[1]}~0~lwp": "lwp"})
    by = {tuple(c["at"]): c for c in cells}
    assert set(by) == tile | {water}
    assert by[(0, 0)] == {"at": [0, 0], "level": 2, "terrain": "rock"}
    assert by[water] == {"at": list(water), "level": 0, "terrain": "water"}
    assert by[east] == {"at": list(east), "level": 1, "obstacle": "pillar"}
    assert all(c == {"at": list(at), "level": 1} for at, c in by.items()
               if at not in {(0, 0), water, east})
    with pytest.raises(ValueError, match="two tiles"):
        hb.battlefield({"0~0~0~0~g2": "g2", "0~1~0~0~g1": "g1"})
    with pytest.raises(ValueError, match="pillar"):
        hb.battlefield({"0~0~0~0~g1": "g1", "3~0~0~0~lwp": "lwp"})


@pytest.mark.parametrize("name", sorted(hb.EXAMPLES))
def test_battlefield_solves_and_plays(name):
    s = json.loads((EXAMPLE_DIR / name).read_text(encoding="utf-8"))
    r = mc.solve(s)
    assert r["ends"][0]["cost"] == 0 and len(r["ends"]) > 20
    pos = mc.position(s)
    two_space = [f for f in pos.figures
                 if isinstance(s["figures"][pos.figures.index(f)]["at"][0], list)]
    assert two_space                                 # the benches see placements
    for f in pos.figures:
        assert len(pos.legal_moves(f)) > 0
