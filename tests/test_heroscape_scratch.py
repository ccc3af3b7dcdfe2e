"""A Heroscape query's thread scratch (``_layers.query_scratch``: fetched once per query):
what the kernels mark in it is put back (the placement flags a thread keeps per kind, the
row positions), so the next query of any figure, position or copy answers as a fresh
process does; each thread has its own."""
from __future__ import annotations

import threading

import numpy as np

from movecore import examples
from movecore.games.heroscape._layers import query_scratch
from movecore.position import position

NAMES = [n for n in examples.names() if n.startswith("heroscape")]


def _stops() -> dict:
    """Two-space figures whose start placements stop a move (a glyph under the lead,
    water under both spaces: a query marks them never to stop, then puts that back), a
    walker and a flyer, among others on a small hex field."""
    cells = []
    for q in range(-4, 5):
        for r in range(-4, 5):
            if abs(q + r) <= 4:
                c = {"at": [q, r], "level": 1 if q < 0 else 0}
                if [q, r] == [0, 0]:
                    c["glyph"] = "astrid"
                if [q, r] in ([2, 0], [3, 0]):
                    c["terrain"] = "water"
                cells.append(c)
    return {"game": "heroscape", "options": {"mode": "master"}, "board": {"cells": cells},
            "figures": [
                {"id": "wyrm", "team": "a", "at": [[0, 0], [1, 0]], "move": 4, "height": 6},
                {"id": "drake", "team": "a", "at": [[2, 0], [3, 0]], "move": 5, "height": 6,
                 "flying": True},
                {"id": "orc", "team": "b", "at": [0, 2], "move": 5, "height": 5},
                {"id": "elf", "team": "b", "at": [-2, 1], "move": 5, "height": 5}]}


def _doubles(pos) -> list:
    return [f for f in pos.figures if pos.double[pos.index[f]]]


def _asks(pos, f) -> list:
    return [pos.legal_moves(f, **q).to_dicts() for q in (
        {}, {"paths": True}, {"move": 2}, {"never_attacked_leaving": True})]


def test_scratch_is_left_as_found_and_answers_repeat():
    seen = 0
    for name in NAMES + ["stops"]:
        pos = position(_stops() if name == "stops" else examples.load(name))
        firsts = {f: _asks(pos, f) for f in _doubles(pos)}
        if not firsts:
            continue
        st = pos._st
        s = query_scratch(st.n, st.P)
        for kind in st.kinds.values():
            if kind.qflags.shape[0] != st.P:
                continue
            assert np.array_equal(s.flags(kind.qflags), kind.qflags), name
            seen += 1
        assert (s.rowpos == -1).all() and (s.whopos_P == -1).all(), name
        # a copy, and the position again, after the others' queries: the same answers
        twin = pos.copy()
        for f, want in firsts.items():
            assert _asks(twin, f) == want, (name, f)
            assert _asks(pos, f) == want, (name, f)
    assert seen, "some two-space figure was asked"


def test_each_thread_has_its_own_scratch():
    pos = position(examples.load("heroscape_river_crossing"))
    st = pos._st
    f = _doubles(pos)[0]
    mine = query_scratch(st.n, st.P)
    got = {}

    def other():
        got["answer"] = pos.copy().legal_moves(f).to_dicts()
        got["scratch"] = query_scratch(st.n, st.P)

    t = threading.Thread(target=other)
    t.start()
    t.join()
    assert got["scratch"] is not mine and got["scratch"].endsP is not mine.endsP
    assert query_scratch(st.n, st.P) is mine        # one lookup answers the same object
    assert got["answer"] == pos.legal_moves(f).to_dicts()
