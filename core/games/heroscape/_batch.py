"""Heroscape on the batched arrays backend (:class:`movecore.batch.BatchedGames`).

A Heroscape move changes nothing but the figure's spaces and, through them, who is
engaged with whom: the battlefield, the rules and the figures' cards stay. So one game's
state is its figures' places (a space for a single-space figure, a placement node of
:func:`~movecore.games.heroscape.placement_graph` for a double-space one) and who is in
play, and its occupant row ``occ`` (int32[N] per game) holds what a mover reads there:

* ``OCC_EMPTY``, or the team of the figure on the space;
* in the master game, the team **plus the number of teams** for an *engaged* figure (one
  adjacent to an enemy, heights considered): a walker passes its own team only, so an
  engaged friend blocks it as an enemy does -- exactly the position's ``occ_walk``
  (engaged figures as walls) -- while a flyer or a phantom walker passes every code, as
  it passes every figure on the position's ``occ_any``. One row per game serves both.

A move (:func:`move`, compiled) frees the figure's spaces, takes its new ones and makes
the codes of the figures next to either place again (their engagement may change): the
position's ``relocate``, on the game's row.

What one query answers:

* a **single-space figure's** ends, least costs and stop codes (water, lava, glyph) are
  one query of its kind of mover (team, flying, phantom walk, climb limit: the same
  :class:`movecore.Prepared` the position runs), over the game's row, in the batched
  kernel call; the stop codes per kind are ``BatchLayout.stop_code``. Leaving attacks
  never change which ends a move has nor their least costs (the penalty kernel the
  position runs for an engaged walker keeps every end the plain query reaches, at the
  same least cost; a flyer's take-off, an engaged flyer's walk and falls only add
  columns), so this is exact for every single-space figure;
* a **double-space figure's** move is the layout's own compiled call over the batch
  (``BatchLayout.own``, ``answer``: :mod:`._batch_doubles`): per game the placement
  graph's query as the position runs it -- its own placements freed, the stops of its
  start and of its flip cleared, the plain query, or the penalty kernel on the
  placements' leave bits for a walker with an enemy in reach (run over a table of the
  kind's steps made once: :func:`_pen_shapes`) -- each pair of spaces once, as its
  placement with the least ``rules.placement_key`` (the position's rule); a
  flyer's or phantom walker's plain query is read from its kind's kept ends on the
  empty battlefield, less the occupied placements (:func:`._batch_doubles.static_ends`);
* the **leaving attacks** (``legal_moves(penalty=)``) come from the same call (each
  walker's leave bits per game from the enemies' places; the penalty kernel with 15 or
  63 levels, as the position picks); a flyer's take-off (or an engaged flyer's walk
  instead) is asked on a live position made equal to the game's arrays (:func:`restore`,
  ``BatchLayout.penalty_on_position``);
* ``paths`` and ``never_attacked_leaving`` change no end, least cost or stop: batched.

Positions that hold more than 64 figures (no leave bit per enemy) are not batched.
The batched answer equals :meth:`Position.legal_moves` (``tests/test_batch.py``,
``tests/test_batch_heroscape.py``).
"""
from __future__ import annotations

from typing import Mapping

import numpy as np
from numba import njit, types

from ...kernels import _types as T
from ...kernels._jit import NO_NRT
from ...kernels._types import CACHE
from ._layers import _MAX_BITS

EMPTY = T.OCC_EMPTY


def batch_layout(pos, query: Mapping):
    """(:class:`movecore.batch.BatchLayout`, None) for batched games of ``pos`` asking
    ``query`` (``move`` alone, or nothing: each figure's Move), or (None, why)."""
    from ...batch import BatchLayout
    query = pos._query(query)         # (a QueryError names an unknown key)
    if len(pos.ids) > _MAX_BITS:
        return None, f"more than {_MAX_BITS} figures (no leave bit per enemy)"
    st = pos._st
    ids = pos.figures
    idx = np.array([pos.index[f] for f in ids], np.int64)
    infos = [pos._info[i] or pos._figure_info(i) for i in idx.tolist()]
    double = np.array([inf.double for inf in infos], bool)
    # one shape per kind of mover of the single-space figures
    kinds = list(dict.fromkeys(inf.kind for inf in infos if not inf.double))
    if not all(k.fast._q.blob is not None for k in kinds):  # pragma: no cover
        return None, "the battlefield is too large for the packed kernel"
    shapes = [k.fast for k in kinds] or [pos._st.kind(False, True, False, 0, None).fast]
    stop_code = np.stack([st.stop_code[next(inf.stop_glyph for inf in infos
                                            if not inf.double and inf.kind is k)]
                          for k in kinds] or [st.stop_code[True]]).astype(np.int8)
    shape_of = np.array([0 if inf.double else kinds.index(inf.kind) for inf in infos],
                        np.int64)

    def query_budget(slot: int, q: Mapping) -> int:
        """The budget of slot ``slot``'s query ``q`` (its ends, costs and stops
        depend on nothing else: ``paths`` and ``never_attacked_leaving`` change other
        columns; leaving attacks are asked on a position)."""
        return pos._budget(int(idx[slot]), pos._query(q))

    budget = np.array([query_budget(s, query) for s in range(len(ids))], np.int64)
    n_teams = max(len(pos.teams), 1)
    lead = np.ascontiguousarray(st.lead, np.int64) if double.any() else \
        np.zeros(0, np.int64)
    trail = np.ascontiguousarray(st.trail, np.int64) if double.any() else \
        np.zeros(0, np.int64)
    team = pos.team[idx].astype(np.int64)
    height = pos.height[idx].astype(np.int64)
    master = 1 if st.master else 0
    cell = np.array([pos._node(*pos.cells[i].tolist()) if d else pos.cells[i, 0]
                     for i, d in zip(idx.tolist(), double.tolist())], np.int32)
    occ = np.full(st.n, EMPTY, np.int32)
    alive = np.ones(len(ids), bool)
    consts = (double, lead, trail, team, height, st.level64, adjacency_bits(st.nbr64),
              n_teams, master)
    _codes(occ[None], cell[None], alive[None], np.arange(len(ids), dtype=np.int64),
           *consts)

    def move(occ_, cell_, alive_, rows, figs, to) -> None:
        """Games ``rows`` move figure slots ``figs`` to places ``to`` (-1: out of
        play): the spaces, and the codes of every figure whose engagement changes."""
        _move(occ_, cell_, alive_, np.ascontiguousarray(rows, np.int64),
              np.ascontiguousarray(figs, np.int64), np.ascontiguousarray(to, np.int64),
              *consts)

    def restore(p, occ_, cell_, alive_) -> None:
        """Make ``p`` (a copy of ``pos``, or a position this restored before) hold one
        batched game's figures: every figure that stands elsewhere (or left play, or
        came back) is taken off first, then put on its place, with the position's own
        incremental update (engagement, occupancy, leave and placement layers)."""
        want = [(-1, -1) if not alive_[s] else
                (int(st.lead[cell_[s]]), int(st.trail[cell_[s]])) if double[s] else
                (int(cell_[s]), -1) for s in range(len(ids))]
        moved = []
        for s, i in enumerate(idx.tolist()):
            have = tuple(p.cells[i].tolist()) if p.alive[i] else (-1, -1)
            if have != want[s]:
                moved.append((s, i))
                if p.alive[i]:
                    p._relocate(i, -1)
        for s, i in moved:
            fid = ids[s]
            if want[s][0] < 0:
                if p.alive[i]:
                    p._own_moves()
                    p.alive[i] = False
                    p._live.pop(fid, None)
                continue
            if not p.alive[i]:
                p._own_moves()
                p.alive[i] = True
                p._live[fid] = i
            p._relocate(i, *want[s])
        if moved:
            p._touch()

    answered = _answer(pos, infos, kinds, team, height, n_teams, master, budget)
    answer, arguments = (None, None) if answered is None else answered
    return BatchLayout(occ=occ, cell=cell, team=team.astype(np.int32), shapes=shapes,
                       shape_of=shape_of, budget=budget, restore=restore,
                       stop_code=stop_code, query_budget=query_budget, move=move,
                       penalty_on_position=np.array([inf.takeoff for inf in infos],
                                                    bool) if answer is not None else True,
                       place_spaces=[np.stack([np.arange(st.n), np.full(st.n, -1)], 1),
                                     np.stack([lead, trail], 1) if double.any() else
                                     np.zeros((0, 2), np.int64)],
                       place_kind=double.astype(np.int64),
                       own=double if answer is not None else None, answer=answer,
                       selfplay=None if answer is None else
                       {"consts": consts, "doubles": arguments}), None


def adjacency_bits(nbr) -> np.ndarray:
    """uint64[N, W] (W = ceil(N / 64), at least 1) of the neighbour table ``nbr``
    (int[N, K], -1: none): row c has bit ``x % 64`` of word ``x // 64`` set where space
    x is a neighbour of c. The move's test of a space next to another (:func:`_near`):
    one load and a shift, where a scan of the row read up to K entries."""
    nbr = np.asarray(nbr, np.int64)
    N = nbr.shape[0]
    out = np.zeros((N, max(1, (N + 63) // 64)), np.uint64)
    c, d = np.nonzero(nbr >= 0)
    x = nbr[c, d]
    np.bitwise_or.at(out, (c, x >> 6), np.left_shift(np.uint64(1), (x & 63).astype(np.uint64)))
    return out


def _answer(pos, infos, skinds, team, height, n_teams, master, budget):
    """(``BatchLayout.answer``, ``arguments``): the double-space figures' moves, and
    every figure's leaving attacks but a flyer's take-off, from their kinds' packed
    queries (the placement graph's, plain; with leaving penalties at 15 and 63 levels,
    per kind of double- and single-space mover), per-call scratch, and
    :func:`._batch_doubles.doubles_kernel` over them; ``arguments()`` gives the
    kernel's arguments between ``budgets`` and ``mask`` with scratch of their own (for a
    compiled caller: the self-play step, one set per thread). None where a query does
    not pack."""
    from ...reach.compiled import fast_layout_size, pen_layout_size, pen_out_offset
    from ._batch_doubles import (NEAR_BYTES, doubles_kernel, static_ends, walker_far,
                                 walker_near)
    from ._bits2 import pair_bit_tables, scratch_words as pair_scratch_words
    st = pos._st
    N = st.n
    dk = list(dict.fromkeys(inf.kind for inf in infos if inf.double))
    P = st.P if dk else 1
    kind = np.array([dk.index(inf.kind) if inf.double else -1 - skinds.index(inf.kind)
                     for inf in infos], np.int64)
    if not dk and not skinds:
        return None
    fast = [k.fast._q for k in dk] or [skinds[0].fast._q]    # (no double: never read)
    pens = [k.pen_query(m)._q for k in dk + skinds
            for m in (15, T.MAX_PENALTY_LEVELS - 1)]
    if any(q.blob is None or len(q.zoc) for q in fast) or \
            any(q.pblob is None or len(q.zoc) or len(q.enter_pen) for q in pens):
        return None      # pragma: no cover (queries too large to pack)
    codes = np.stack([st.node_stop_code[next(inf.stop_glyph for inf in infos
                                             if inf.double and inf.kind is k)]
                      for k in dk] or [np.zeros(P, np.int8)]).astype(np.int8)
    at = lambda xs: np.cumsum([0] + [len(x) for x in xs]).astype(np.int64)  # noqa
    blobs = np.concatenate([q.blob for q in fast]).astype(T.INDEX)
    qflags = np.concatenate([q.qflags for q in fast]).astype(np.uint8)
    params = np.stack([q.params for q in fast]).astype(np.int64)
    params[:, T.P_HAS_OCC] = 1
    pblobs, pparams = _pen_shapes(pens, [k.fast._q.qflags for k in dk] +
                                  [k.qflags for k in skinds])
    passes = np.array([inf.flyer or inf.phantom for inf in infos], bool)
    leaves = np.array([inf.leaves for inf in infos], bool)
    nb = max(int(params[:, T.P_N_BUCKETS].max()), 8)
    fbuf = np.zeros(fast_layout_size(P, nb), T.INDEX)
    fbuf[2] = nb
    n_pen = int(pparams[:, T.P_N_PEN].max())
    pnb = max(max(int(q.nb) for q in pens), 8)
    pbuf = np.zeros(pen_layout_size(max(P, N), n_pen, pnb), T.INDEX)
    pbuf[2], pbuf[3] = pnb, n_pen
    # the double-space movers that pass every figure (flyers, phantom walkers) and the
    # walkers (where no figure but friends they pass is in reach, and no enemy for
    # leaving attacks): their plain query's ends from every start, kept once per kind
    # and budget (static_ends); a walker's with its reach (walker_near)
    tab_at = np.full(len(infos), -1, np.int64)
    tab_bud = np.full(len(infos), -1, np.int64)
    near_at = np.full(len(infos), -1, np.int64)
    near_far = np.full(len(infos), -1, np.int64)
    blob_at_, qflags_at_ = at([q.blob for q in fast]), at([q.qflags for q in fast])
    kept, ptrs, tabs, n_ptr, n_tab, nears, n_near = {}, [], [], 0, 0, {}, 0
    for g, inf in enumerate(infos):
        if not inf.double:
            continue
        k, bud = int(kind[g]), int(budget[g])
        kb = (blobs[blob_at_[k]:blob_at_[k + 1]], qflags[qflags_at_[k]:qflags_at_[k + 1]],
              params[k])
        if not passes[g]:
            # (a walker passes its friends and may not end on them, and no more: the
            # kept ends' rule; and one reach table of P x N bytes per kind and budget)
            if kb[2][T.P_ALLY] != T.PASS_NO_END or kb[2][T.P_ENEMY] != T.BLOCK or \
                    P * N > NEAR_BYTES:
                continue
            if (k, bud) not in nears:
                nr = walker_near(*kb, st.lead, st.trail, N, bud, fbuf)
                nears[k, bud] = (n_near, nr, walker_far(nr, st.lead, st.trail, bud))
                n_near += P
            near_at[g], _, near_far[g] = nears[k, bud]
        if (k, bud) not in kept:
            ptr, tab = static_ends(*kb, st.flip, bud, fbuf)
            kept[k, bud] = n_ptr
            ptrs.append(ptr + n_tab)
            tabs.append(tab)
            n_ptr += len(ptr)
            n_tab += tab.shape[1]
        tab_at[g], tab_bud[g] = kept[k, bud], bud
    tab_ptr = np.concatenate(ptrs) if ptrs else np.zeros(1, np.int64)
    tab = np.concatenate(tabs, axis=1) if tabs else np.zeros((3, 0), T.INDEX)
    near = np.ascontiguousarray(np.concatenate([x for _, x, _ in nears.values()])) \
        if nears else np.zeros((0, N), np.uint8)
    # the walkers' plain query as bit-set layers (_bits2; bat[0] 0: none answered so)
    bat, btab = pair_bit_tables(blobs, blob_at_, qflags, qflags_at_, params, st.lead,
                                st.trail, st.flip, st.pl.node_of, st.coords,
                                st.nbr64) if dk else (np.zeros(12, np.int64),
                                                      np.zeros(1, np.uint64))
    n_blay = pair_scratch_words(bat)

    def scratch(fb, pb) -> tuple:
        """The call's scratch (``node_occ`` ... ``pbuf``, ``blay``; workspaces ``fb``,
        ``pb``): one set per thread that calls the kernel at the same time."""
        return (np.empty(P, T.INDEX), np.empty(P, np.uint8), np.full(P, -1, np.int64),
                np.zeros(N, np.uint64), np.zeros(P, np.uint64), fb,
                np.zeros((3, P), T.INDEX), np.zeros((1, 3), np.int64), pb,
                np.zeros(n_blay, np.uint64))

    head = (team, height, kind, passes, leaves,
            *((np.ascontiguousarray(x, np.int64) for x in (st.lead, st.trail, st.flip))
              if dk else (np.zeros(1, np.int64),) * 3), st.coords, st.level64, st.nbr64,
            n_teams, master, blobs, blob_at_, qflags, qflags_at_, params, codes, pblobs,
            at([q.pblob for q in pens]), pparams)
    tail = (bat, btab, pen_out_offset(max(P, N), n_pen, pnb),
            np.concatenate([k.qflags for k in skinds] or [np.zeros(0)]).astype(np.uint8),
            at([k.qflags for k in skinds]), len(dk),
            pen_out_offset(N, n_pen, pnb),
            np.ascontiguousarray(st.touch, np.int64) if dk else
            np.full((1, 1), -1, np.int64),
            tab_at, tab_bud, tab_ptr, np.ascontiguousarray(tab, T.INDEX), near_at, near,
            near_far)
    mine = scratch(fbuf, pbuf)
    rest = head + mine + tail
    no_pen = np.zeros((0, 0), np.int32)

    def answer(occ, cell, alive, rows, figs, budgets, mask, cost, stop,
               penalty=None) -> None:
        """Games ``rows``: the moves of double-space figure slots ``figs``, and with
        ``penalty`` the leaving attacks of every slot's ends."""
        st_ = doubles_kernel()(occ, cell, alive, np.ascontiguousarray(rows, np.int64),
                               np.ascontiguousarray(figs, np.int64),
                               np.ascontiguousarray(budgets, np.int64), *rest, mask,
                               cost, stop, no_pen if penalty is None else penalty,
                               0 if penalty is None else 1)
        if st_ < 0:  # pragma: no cover (ends hold one column per placement)
            raise RuntimeError(f"movecore: batched double-space kernel status {st_}")

    def arguments(own: bool = True) -> tuple:
        """The arguments of :func:`._batch_doubles.doubles_kernel` between ``budgets``
        and ``mask`` for a compiled caller: with scratch of their own (one set per
        thread; the penalty workspace is the largest, 8 MiB for 1,056 placements at 64
        levels), or (``own`` False) ``answer``'s, for a caller never running beside it
        (the first thread of the self-play step: ``legal_moves`` is not called during a
        step)."""
        return head + (scratch(fbuf.copy(), pbuf.copy()) if own else mine) + tail
    return answer, arguments


def _pen_shapes(pens, flags):
    """(pblobs int32[...], pparams int64[S, N_PARAMS + 2]) of the S penalty shapes
    ``pens`` (two per kind of mover, ``flags[s // 2]`` the cell flags its queries
    share the blocked cells of): their blobs one after another (shape s's from
    ``pblob_at[s]``, the lengths' running sum), then each shape's table of steps
    (:func:`movecore.reach.compiled.penalty_steps_kernel`) at ``pblobs[pparams[s,
    N_PARAMS]:pparams[s, N_PARAMS + 1]]``: what ``doubles`` searches (the same rows as
    the penalty kernel on the blob, in the same order)."""
    from ...reach.compiled import penalty_steps_kernel
    pen_steps = penalty_steps_kernel()[0]
    params = np.stack([q.params for q in pens]).astype(np.int64)
    params[:, T.P_HAS_OCC] = 1
    parts = [np.asarray(q.pblob, T.INDEX) for q in pens]
    at = sum(len(x) for x in parts)
    cols = np.zeros((len(pens), 2), np.int64)
    for s, q in enumerate(pens):
        table = pen_steps(parts[s], np.ascontiguousarray(flags[s // 2], np.uint8),
                          params[s])
        cols[s] = at, at + len(table)
        parts.append(table)
        at += len(table)
    return np.concatenate(parts).astype(T.INDEX), \
        np.ascontiguousarray(np.concatenate([params, cols], axis=1))


i64 = types.int64
I64_1, I64_2 = types.int64[::1], types.int64[:, ::1]
I32_1, I32_2, B_1, B_2 = types.int32[::1], types.int32[:, ::1], types.boolean[::1], \
    types.boolean[:, ::1]


@njit(inline="always")
def _spaces(cell, double, lead, trail, b, g):
    """The spaces (a, c) of figure slot ``g`` in game ``b`` (-1: none)."""
    x = cell[b, g]
    if x < 0:
        return -1, -1
    if double[g]:
        return lead[x], trail[x]
    return x, -1


@njit(inline="always")
def _near(adj, c, x):
    """Space ``x`` next to space ``c`` (both >= 0): bit x of ``adj``'s row c
    (:func:`adjacency_bits`)."""
    return (adj[c, x >> 6] >> np.uint64(x & 63)) & np.uint64(1) != 0


@njit(inline="always")
def _engaged(cell, alive, double, lead, trail, team, height, level, adj, b, i):
    """Figure ``i`` of game ``b`` adjacent to an enemy (the height exception applied),
    as the position's ``adjacent``; ``adj``: the layout's :func:`adjacency_bits`."""
    F = cell.shape[1]
    a0, a1 = _spaces(cell, double, lead, trail, b, i)
    for a in range(2):
        c = a0 if a == 0 else a1
        if c < 0:
            continue
        for j in range(F):
            if j == i or not alive[b, j] or team[j] == team[i]:
                continue
            x0, x1 = _spaces(cell, double, lead, trail, b, j)
            for e in range(2):
                x = x0 if e == 0 else x1
                if x >= 0 and _near(adj, c, x) and level[c] - level[x] < height[j] and \
                        level[x] - level[c] < height[i]:
                    return True
    return False


@njit(inline="always")
def _write(occ, cell, alive, double, lead, trail, team, height, level, adj, n_teams,
           master, b, g):
    """The code of figure ``g`` of game ``b`` on its spaces: its team, plus
    ``n_teams`` when engaged (master game)."""
    code = team[g]
    if master and _engaged(cell, alive, double, lead, trail, team, height, level, adj,
                           b, g):
        code += n_teams
    a0, a1 = _spaces(cell, double, lead, trail, b, g)
    occ[b, a0] = code
    if a1 >= 0:
        occ[b, a1] = code


U64_2 = types.uint64[:, ::1]
_SIG = (I32_2, I32_2, B_2, I64_1, B_1, I64_1, I64_1, I64_1, I64_1, I64_1, U64_2, i64,
        i64)


@njit(types.void(*_SIG), cache=CACHE, nogil=True)
def _codes(occ, cell, alive, figs, double, lead, trail, team, height, level, adj,
           n_teams, master):
    """Every figure of ``figs`` of game 0 (one game's rows) written on its spaces."""
    for g in figs:
        if alive[0, g]:
            _write(occ, cell, alive, double, lead, trail, team, height, level, adj,
                   n_teams, master, 0, g)


@njit(cache=CACHE, nogil=True, **NO_NRT)
def _move_one(occ, cell, alive, b, f, to, near, rewrite, double, lead, trail, team,
              height, level, adj, n_teams, master):
    """Game ``b``: figure slot ``f`` to place ``to`` (-1: out of play), and (``rewrite``)
    the codes of the figures next to its old and new spaces written again (their
    engagement may change), neighbours by the layout's :func:`adjacency_bits` ``adj``.
    ``near``: bool[F] scratch. (``rewrite`` False is a rule
    turned off, for the tests of the compiled self-play step.) A function of its own,
    cached, not inlined: :func:`_move` and the self-play step
    (:mod:`movecore.tools._selfplay_heroscape`) call one compiled copy (inlined, it cost
    each of them seconds of compile time). Compiled without Numba's reference counts
    (it allocates nothing; its callers keep the arrays alive): an atomic increment and
    decrement of each of its eleven arrays at every move and removal; with the vector
    env's ``hs_queries`` and ``hs_play`` compiled likewise, that env's sub-step path
    ran 1.12x faster (docs/performance_log.md)."""
    F = cell.shape[1]
    for g in range(F):
        near[g] = False
    for phase in range(2):
        if phase == 1:
            a0, a1 = _spaces(cell, double, lead, trail, b, f)
            if a0 >= 0:
                occ[b, a0] = EMPTY
            if a1 >= 0:
                occ[b, a1] = EMPTY
            cell[b, f] = to
            alive[b, f] = to >= 0
        a0, a1 = _spaces(cell, double, lead, trail, b, f)
        for a in range(2):
            c = a0 if a == 0 else a1
            if c < 0:
                continue
            for g in range(F):
                if g == f or not alive[b, g]:
                    continue
                x0, x1 = _spaces(cell, double, lead, trail, b, g)
                if _near(adj, c, x0) or (x1 >= 0 and _near(adj, c, x1)):
                    near[g] = True
    if to >= 0:
        _write(occ, cell, alive, double, lead, trail, team, height, level, adj,
               n_teams, master, b, f)
    if rewrite:
        for g in range(F):
            if near[g]:
                _write(occ, cell, alive, double, lead, trail, team, height, level, adj,
                       n_teams, master, b, g)


@njit(types.void(*_SIG[:3], I64_1, I64_1, *_SIG[3:]), cache=CACHE, nogil=True)
def _move(occ, cell, alive, rows, figs, to, double, lead, trail, team, height, level,
          adj, n_teams, master):
    """Games ``rows[k]``: figure ``figs[k]`` to place ``to[k]`` (-1: out of play), and
    the codes of the figures next to its old and new spaces written again
    (:func:`_move_one`)."""
    near = np.empty(cell.shape[1], np.bool_)
    rewrite = rows.shape[0] >= 0    # (True, typed as a bool: the step's signature)
    for k in range(rows.shape[0]):
        _move_one(occ, cell, alive, rows[k], figs[k], to[k], near, rewrite, double, lead,
                  trail, team, height, level, adj, n_teams, master)
