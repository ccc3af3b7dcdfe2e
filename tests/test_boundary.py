"""Silent defaults at the public boundary: a value that would read as something else (a
boolean as a cell index, a truthy string as a flag, a misspelt key) is a typed error
naming it, never a different answer."""
from __future__ import annotations

import pytest

import movecore as mc

B = mc.Board.hex([(0, 0), (1, 0), (2, 0)])


@pytest.mark.parametrize("build", [
    lambda: mc.Board.hex([(0, 0), (True, 0)]),
    lambda: mc.Board.square_cells([(0, 0), (0, True)]),
    lambda: B.extend([(True, 1)]),
])
def test_boolean_coordinates_are_refused(build):
    with pytest.raises(mc.BoardError, match="not booleans"):
        build()


def test_integer_coordinates_still_build():
    assert mc.Board.hex([(0, 0), (1, 0)]).n_cells == 2
    import numpy as np
    assert mc.Board.hex(np.array([[0, 0], [1, 0]])).n_cells == 2


@pytest.mark.parametrize("edge,word", [
    ({"between": [0, 1], "cots": 2}, "cots"),          # a typo left the side as it was
    ({"between": [0, 1], "blocked": "no"}, "blocked"),  # "no" read as blocked
    ({"between": [0, 1], "stop": 1}, "stop"),
])
def test_edge_keys_and_flags_are_checked(edge, word):
    with pytest.raises(mc.BoardError, match=word):
        B.with_edges([edge])


def test_a_blocked_edge_still_blocks():
    walled = B.with_edges([{"between": [0, 1], "blocked": True}])
    assert mc.reach(walled, mc.Mover(), (0, 0), 3).cells.tolist() == [0]


@pytest.mark.parametrize("link,err", [
    (mc.Link(0, 2, True), mc.LimitError),        # cost True read as 1
    (mc.Link(True, 2, 1), mc.BoardError),        # cell True read as cell 1
    (mc.Link(0, 2, 1, two_way="no"), mc.BoardError),   # "no" read as two-way
])
def test_link_fields_are_checked(link, err):
    with pytest.raises(err):
        B.with_links([link])


def test_one_way_link_stays_one_way():
    b = mc.Board.hex([(0, 0), (5, 0)]).with_links([mc.Link(0, 1, 1, two_way=False)])
    assert mc.reach(b, mc.Mover(), 0, 2).cells.tolist() == [0, 1]
    assert mc.reach(b, mc.Mover(), 1, 2).cells.tolist() == [1]
