"""One Heroscape figure's move: the facts its queries read (:class:`._shared._Info`, made
here), the kernels run on the position's layers and the ends finished into
:class:`~movecore.position.Moves` columns (single-space figures, double-space ones on the
placement graph, a side's figures of one kind in one call), an engaged flyer's walk
against its flight, and the ends as dicts (:class:`_FigureMoves`, a part of
:class:`~movecore.games.heroscape.Position`; not used on its own).
"""
from __future__ import annotations

import numpy as np

from ...kernels import _types as T
from ...position import Moves, locked
from . import rules as hs
from ._entry import _jit
from ._layers import _NO_I64, query_scratch, thread_buf
from ._shared import _Info, _Kind, _falls

_NO_ORDER = np.zeros(0, np.int64)
_NO_ROWS = np.zeros((0, 8), T.INDEX)
_NO_FLIGHT = np.zeros(0, np.bool_)  # read-only zeros: the flight columns of non-flyers


def _no_flight(size: int) -> np.ndarray:
    """:data:`_NO_FLIGHT` grown to at least ``size`` (made whole, then published)."""
    global _NO_FLIGHT
    z = np.zeros(max(size, 4096), np.bool_)
    z.flags.writeable = False
    _NO_FLIGHT = z
    return z


class _FigureMoves:
    """The methods of :class:`~movecore.games.heroscape.Position` that answer one
    figure's move from the kernels (``legal_moves`` picks among them)."""

    def _figure_info(self, i: int) -> "_Info":
        """What a query of figure i needs that changes only with the figure itself."""
        st = self._st
        flyer = bool(self.flying[i])
        h = int(self.height[i])
        mc = None if flyer else (h - 1 if self.rules.climb_limit == "below_height" else h)
        double = bool(self.double[i])
        # Ghost Walk (or Phantom Walk) passes all figures; Disengage (or Phantom Walk) is
        # never attacked when leaving an engagement
        passes = bool(self.phantom[i] or self.ghost[i])
        calm = bool(self.phantom[i] or self.disengage[i])
        info = _Info(
            double=double, flyer=flyer, phantom=passes,
            team=int(self.team[i]), hclass=self._hclass(h), move=int(self.move[i]),
            falls=st.master and not flyer and st.field.deepest_drop >= h,
            leaves=st.master and not flyer and not calm,
            takeoff=st.master and flyer and not self.stealth[i] and not calm,
            kind=st.kind(double, flyer, passes, int(self.team[i]), mc),
            stop_glyph=not flyer or self.rules.flyers_stop_on_glyphs)
        self._info[i] = info
        return info

    def _walk_info(self, i: int, info: "_Info") -> "_Info":
        """The _Info of flyer i walking (walking rules: climb limit, water and glyph
        stops, enemies block, leaving attacks per step; its falls never matter, the
        flight never falls)."""
        w = info.walk
        if w is None:
            h = int(self.height[i])
            mc = h - 1 if self.rules.climb_limit == "below_height" else h
            w = _Info(double=info.double, flyer=False, phantom=info.phantom,
                      team=info.team, hclass=info.hclass, move=info.move, falls=False,
                      leaves=True, takeoff=False, kind=self._st.kind(
                          info.double, False, info.phantom, info.team, mc),
                      stop_glyph=True)
            info.walk = w
        return w

    def _takeoff(self, i: int, info: "_Info | None" = None) -> int:
        """Leaving attacks of a flyer's take-off (master game, no Stealth Flying)."""
        info = info or self._info[i] or self._figure_info(i)
        return self._adjacent_enemies(i) if info.takeoff else 0

    def _relevant(self, i: int, budget: int) -> int:
        """Enemies that a walking move of ``budget`` could come next to (as
        :func:`.reference._relevant_enemies`)."""
        reach_ = budget + 2 + (1 if self.double[i] else 0)
        return _jit().relevant(self.cells, self._st.coords, self.team, self.alive, i,
                               reach_)

    @staticmethod
    def _buf(name: str, shape, dtype) -> np.ndarray:
        """This thread's scratch (:func:`._layers.thread_buf`): no buffer per copy."""
        return thread_buf(name, shape, dtype)

    def _single(self, i: int, info: "_Info", figure, budget: int, q: dict) -> Moves:
        st = self._st
        J = _jit()
        kind = info.kind
        flyer = info.flyer
        start = int(self.cells[i, 0])
        occ = self.occ_any if (flyer or info.phantom or not st.master) else self.occ_walk
        leave, mp = self._leave_query(i, budget, info) if info.leaves else (None, 0)
        code = st.stop_code[info.stop_glyph]
        s = query_scratch(st.n)      # (this thread's, fetched once: _QueryScratch)
        if leave is None:
            # (the figure's own space stays occupied: a start is never entered again)
            queries = s.q1
            queries[0, 0] = start
            queries[0, 1] = budget
            ends = s.ends1
            total = kind.run_fast(occ, kind.qflags, queries, ends, st.rank)
            out = np.empty((6, total), T.INDEX)
            takeoff = self._takeoff(i, info) if flyer else 0
            if st.master:   # the ends and the who columns in one compiled call
                who = np.empty((2, total), np.uint64)
                J.finish_fast_who(ends, 0, total, code, start, takeoff, out,
                                  self._who_layer(i, info), 2 if info.takeoff else 0,
                                  s.whopos_n, who)
                cols = {"engaged_with": who[0], "leaving_attackers": who[1]}
            else:
                J.finish_fast(ends, 0, total, code, start, takeoff, out)
                cols = self._who(i, info, out[0])
        else:
            # the query frees the figure's own space for a moment: in this position's
            # own arrays, never in those a copy shares (copy on write, see copy())
            self._own_moves()
            occ = self.occ_any if (flyer or info.phantom or not st.master) else \
                self.occ_walk
            saved = int(occ[start])
            occ[start] = T.OCC_EMPTY
            try:
                rows, tree = kind.run_general(kind.pen_query(mp), occ, kind.qflags, leave,
                                              start, budget, s.src)
                n = rows.shape[0]
                out = np.empty((6, n), T.INDEX)
                who = np.empty((2, n), np.uint64)   # (leave: the who columns' layer)
                J.finish_pen_who(rows, st.rank, code, out, tree, leave, s.whopos_n, who)
                cols = {"engaged_with": who[0], "leaving_attackers": who[1]}
            finally:
                occ[start] = saved
        cols["leaving_attacks_cost"] = out[4]
        if not info.falls:
            cols["fall"] = cols["least_fall"] = out[5]  # (no fall possible: 0, cost)
            cols["least_fall_cost"] = out[1]
        if info.falls or q:
            cols = _falls().fill(self, i, info, kind, occ, kind.qflags, start, budget,
                                 out[0], out[1], cols, q,
                                 *((rows, tree) if leave is not None else ()))
        self._flies(info, cols, out[0], start)
        return Moves(self, figure, out[0], out[1], out[2], out[3], cols, query=q)

    def _double(self, i: int, info: "_Info", figure, budget: int, q: dict) -> Moves:
        st = self._st
        J = _jit()
        kind = info.kind
        flyer = info.flyer
        t = info.team
        # the query frees the figure's spaces for a moment (free_nodes, restore): in
        # this position's own arrays, never in those a copy shares (see copy())
        self._own_moves()
        c0, c1 = int(self.cells[i, 0]), int(self.cells[i, 1])
        passes_all = flyer or info.phantom
        if passes_all:
            node_occ, occ, any_mode = self._node_layer(0, 1), self.occ_any, 1
        else:
            node_occ, occ, any_mode = self._node_layer(t, 0), self.occ_walk, 0
        s = query_scratch(st.n, st.P)    # (this thread's, fetched once: _QueryScratch)
        leave, mp = self._leave_query(i, budget, info, s) if info.leaves else (None, 0)
        code = st.node_stop_code[info.stop_glyph]
        flags = s.flags(kind.qflags)   # (its start is marked, then put back)
        # the figure's own spaces are free while it moves: the placements touching them
        # are made again without it, and put back after the query; a start (either
        # orientation) never stops (see reference._double_moves)
        saved_at = s.saved_at
        k = J.free_nodes(node_occ, occ, st.lead, st.trail, st.touch, st.flip, flags, c0,
                         c1, t, any_mode, s.saved, saved_at)
        start, fstart, k = k >> 5 & 0x1FFFFFFF, k >> 34, k & 31
        rowpos = s.rowpos
        try:
            if leave is None:
                queries = s.q1
                queries[0, 0] = start
                queries[0, 1] = budget
                rows = s.endsP
                n = kind.run_fast(node_occ, flags, queries, rows, _NO_ORDER)
                pen_rows = 0
            else:
                rows, tree = kind.run_general(kind.pen_query(mp), node_occ, flags, leave,
                                              start, budget, s.src)
                n = rows.shape[0]
                pen_rows = 1
            out = np.empty((6, n), T.INDEX)
            takeoff = self._takeoff(i, info) if flyer else 0
            if st.master:   # the ends and the who columns in one compiled call
                who = np.empty((2, n), np.uint64)
                m = J.finish_double_who(
                    rows, n, pen_rows, st.flip, st.pair_rank, code, rowpos, start, fstart,
                    takeoff, out, tree if pen_rows else _NO_ROWS,
                    leave if pen_rows else self._who_layer(i, info, s),  # (leave: the same)
                    1 if pen_rows else 2 if info.takeoff else 0, s.whopos_P, who)
                cols = {"engaged_with": who[0, :m], "leaving_attackers": who[1, :m]}
            else:
                m = J.finish_double(rows, n, pen_rows, st.flip, st.pair_rank, code, rowpos,
                                    start, fstart, takeoff, out)
                cols = self._who(i, info, out[0, :m])
            if info.falls or q:
                cols = _falls().fill(self, i, info, kind, node_occ, flags, start, budget,
                                     out[0, :m], out[1, :m], cols, q,
                                     *((rows, tree) if pen_rows else ()))
        finally:
            J.restore(node_occ, flags, saved_at, s.saved, k)
        cols["leaving_attacks_cost"] = out[4, :m]
        if not info.falls:
            cols["fall"] = cols["least_fall"] = out[5, :m]  # (no fall possible: 0, cost)
            cols["least_fall_cost"] = out[1, :m]
        self._flies(info, cols, out[0, :m], start, fstart)
        return Moves(self, figure, out[0, :m], out[1, :m], out[2, :m], out[3, :m], cols,
                     query=q)

    def _batch(self, kind: _Kind, idx: list, q: dict) -> dict:
        """Moves of single-space figures ``idx`` of one kind, without leaving attacks,
        from one kernel call (each figure's own space stays occupied for the others' and
        its own query: a start is never entered again, so that changes nothing)."""
        st = self._st
        k = len(idx)
        queries = self._buf(f"q{k}", (k, 3), np.int64)
        for r, i in enumerate(idx):
            queries[r, 0] = self.cells[i, 0]
            queries[r, 1] = self._budget(i, q)
        ends = thread_buf("endsB", (3, k * st.n), T.INDEX)
        i0 = idx[0]
        flyer = bool(self.flying[i0])
        occ = self.occ_any if (flyer or self.phantom[i0] or self.ghost[i0] or
                               not st.master) else \
            self.occ_walk
        kind.run_fast(occ, kind.qflags, queries, ends, st.rank)
        code = st.stop_code[not flyer or self.rules.flyers_stop_on_glyphs]
        J = _jit()
        out = {}
        lo = 0
        for r, i in enumerate(idx):
            hi = lo + int(queries[r, 2])
            o = np.empty((6, hi - lo), T.INDEX)
            J.finish_fast(ends, lo, hi, code, int(self.cells[i, 0]),
                          self._takeoff(i) if flyer else 0, o)
            info = self._info[i] or self._figure_info(i)
            cols = self._who(i, info, o[0])
            cols["leaving_attacks_cost"] = o[4]
            cols["fall"] = cols["least_fall"] = o[5]
            cols["least_fall_cost"] = o[1]
            self._flies(info, cols, o[0], int(self.cells[i, 0]))
            out[self.ids[i]] = Moves(self, self.ids[i], o[0], o[1], o[2], o[3], cols,
                                     query=q)
            lo = hi
        return out

    @locked
    def _who(self, i: int, info: "_Info", actions: np.ndarray, rows=None,
             tree=None) -> dict:
        """The columns ``engaged_with`` and ``leaving_attackers`` (uint64[E], bit j =
        figure j: :meth:`ids_of`) of ends ``actions``: the enemies the figure is adjacent
        to there, and those it leaves on the least-attack path of the penalty kernel's
        ``rows`` and ``tree`` (a flyer: those engaged at take-off, on every end but its
        start). One compiled call."""
        st = self._st
        E = actions.shape[0]
        out = np.empty((2, E), np.uint64)
        if not st.master:
            out[:] = 0
            return {"engaged_with": out[0], "leaving_attackers": out[1]}
        layer = self._who_layer(i, info)
        start = fstart = -1
        if rows is not None:
            mode = 1
        elif info.takeoff:
            mode = 2
            start = int(self.cells[i, 0])
            if info.double:
                start = self._node(start, int(self.cells[i, 1]))
                fstart = int(st.flip[start])
        else:
            mode = 0
        pos = self._who_scratch(st.P if info.double else st.n)
        _jit().who_bits(rows if rows is not None else _NO_ROWS, 0 if rows is None else
                        rows.shape[0], tree if tree is not None else _NO_ROWS, layer,
                        actions, st.flip if info.double else _NO_I64, int(info.double),
                        mode, start, fstart, pos, out)
        return {"engaged_with": out[0], "leaving_attackers": out[1]}

    def _choose(self, i: int, flight: Moves, walk: Moves) -> Moves:
        """``flight`` with, per end, the walk's least attacks where they are fewer (or as
        many at less cost): their cost, attackers, path and ``leaving_attacks_flies``
        false (see :func:`.reference._choose`: a walk's end is always a flight's)."""
        st = self._st
        double = bool(self.double[i])
        A, B = flight.actions, walk.actions
        at = np.full(st.P if double else st.n, -1, np.int64)
        at[A] = np.arange(A.shape[0])
        r = at[B]
        if double:
            r = np.where(r >= 0, r, at[st.flip[B]])
        fc, wc = flight.columns, walk.columns
        wp, wpc = walk.penalty, wc["leaving_attacks_cost"]
        fp, fpc = flight.penalty[r], fc["leaving_attacks_cost"][r]
        better = (wp < fp) | ((wp == fp) & (wpc < fpc))
        rows, k = r[better], np.flatnonzero(better)
        flight.penalty[rows] = wp[k]
        fc["leaving_attacks_cost"][rows] = wpc[k]
        fc["leaving_attacks_flies"][rows] = False
        if "leaving_attackers" in fc:
            fc["leaving_attackers"][rows] = wc["leaving_attackers"][k]
        if flight._extra is not None:
            fe, we = flight._extra, walk.to_dicts()
            for a, b in zip(rows.tolist(), k.tolist()):
                e, w = fe[a], we[b]
                for key in ("leaving_attacks", "leaving_attacks_cost", "leaving_attackers",
                            "leaving_attacks_path"):
                    if key in w:
                        e[key] = w[key]
                e["leaving_attacks_flies"] = False
        return flight

    @staticmethod
    def _flies(info: "_Info", cols, actions: np.ndarray, start: int,
               fstart: int = -1) -> None:
        """The columns ``flies`` and ``leaving_attacks_flies`` of one mode's ends: a
        flyer flies to every end but its start (a flip in place is no flight); a figure
        that does not fly gets one read-only view of zeros for both (nothing made)."""
        E = actions.shape[0]
        if not info.flyer:
            z = _NO_FLIGHT
            if z.shape[0] < E:
                z = _no_flight(E)
            cols["flies"] = cols["leaving_attacks_flies"] = z[:E]
            return
        f = actions != start
        if fstart >= 0:
            f &= actions != fstart
        cols["flies"] = f
        cols["leaving_attacks_flies"] = f.copy()   # (its own: _choose writes it)

    @locked
    def _end_dicts(self, moves: Moves) -> list[dict]:
        if moves._extra is not None:   # made with the query (paths, a crowd's who)
            return moves._extra
        i = self.index[moves.figure]
        xy = self.board.coords          # (int32[N, 2]: each end's pair by one gather)
        if self.double[i]:
            st = self._st
            ats = [list(ab) for ab in zip(xy[st.lead[moves.actions]].tolist(),
                                          xy[st.trail[moves.actions]].tolist())]
        else:
            ats = xy[moves.actions].tolist()
        reasons = self.STOP_REASONS
        falls = hs.FALLS
        ids_of = self.ids_of
        cols = moves.columns
        return [{"at": at, "cost": c, "stop": reasons[s], "leaving_attacks": p,
                 "leaving_attacks_cost": pc, "leaving_attackers": ids_of(lft),
                 "engaged_with": ids_of(eng), "flies": fl, "leaving_attacks_flies": lfl,
                 "fall": falls[f], "least_fall": falls[lf], "least_fall_cost": lfc}
                for at, c, s, p, pc, lft, eng, fl, lfl, f, lf, lfc in zip(
                    ats, moves.costs.tolist(), moves.stop.tolist(), moves.penalty.tolist(),
                    cols["leaving_attacks_cost"].tolist(),
                    cols["leaving_attackers"].tolist(), cols["engaged_with"].tolist(),
                    cols["flies"].tolist(), cols["leaving_attacks_flies"].tolist(),
                    cols["fall"].tolist(), cols["least_fall"].tolist(),
                    cols["least_fall_cost"].tolist())]
