"""Double-space figures' moves over a batch of Heroscape games, in one compiled call
(:func:`doubles_kernel`): per game the query :meth:`Position._double` runs, made from the
game's occupant row (see :mod:`._batch`) instead of the position's kept layers.

Per game ``b`` whose acting figure stands on placement ``s`` (spaces ``c0``, ``c1``):

1. the occupancy of every placement for the mover (``node_value`` of its two spaces: a
   walker of team ``t`` reads engaged figures as walls, a flyer or phantom walker passes
   every figure), with ``c0`` and ``c1`` free (the figure leaves them), and the kind's
   placement flags with the stops of its start and of its flip cleared (``free_nodes``);
2. a walker with leaving attacks (master game, no Disengage or Phantom Walk) and an enemy
   within its reach (``relevant``): the leave bits of the spaces (bit j on the spaces
   where the mover is next to enemy j, heights considered), of each
   placement the bits of its two spaces, and the packed penalty kernel of the kind
   (``max_penalty`` 15, or 63 when enemies x budget exceed 15: ``_max_penalty``), rows
   mode, run over the shape's table of steps (``penalty_steps_kernel``: the same rows
   in the same order; ``_batch._pen_shapes``); otherwise the kind's plain query
   (``reach1_ordered``, kernel order), or, for a mover that passes every figure, and
   for a walker with no figure but friends it passes (not engaged) on a space it may
   reach (:func:`walker_near`), its kept ends from ``s`` on the empty battlefield less
   the placements a figure stands on (:func:`static_ends`: the same ends with the same
   labels; no layers built: each end's occupancy from its two spaces, the listed
   placement of each pair marked in the kept ends); a walker with an enemy in reach
   takes its kept ends
   so too where no space next to an enemy is in its reach below the budget
   (:func:`walker_far`): no step it takes leaves an enemy, so every penalty of the
   search is 0 and the penalty search is the plain query, state for state;
   and without leaving attacks asked (self-play, the vector env), a walker's answer is
   its plain query's whoever stands in reach (its penalty search lists the same ends,
   costs, stops and placements: ``NO_PLAIN_UNASKED``), so its kept ends too where no
   figure but friends is in reach; a walker's plain query runs as bit-set layers where
   its kind's tables take it (:func:`._bits2.pair_bits`: the same answer, pairs' pass
   included), else by the kernel;
3. each pair of spaces once: its placement with the least ``rules.placement_key``
   (least cost, a free arrival before a stopped one, then the lower placement node;
   ``finish_double``'s rule, whatever order the search settled the two in; a penalty
   row's partner read from the search's own cell stamps,
   ``kernels.reach_pen.pen_row_of``), written densely into the game's row of mask,
   cost and stop (stop codes of placements: water, lava, glyph); with ``penalty``
   asked, its leaving attacks: the least of the pair's two placements.

With ``penalty`` asked, a single-space walker's game row gets its leaving attacks too
(its ends, costs and stops are the batched kernel's): the spaces' leave bits and the
penalty kernel of its kind on the game's row, as the position's penalty query.

The same searches as the position's, on the same layers: the same ends, costs, stops,
orientations and attacks (``tests/test_batch_heroscape.py``).
"""
from __future__ import annotations


import numpy as np
from numba import njit, types

from ...kernels import _types as T
from ...kernels._jit import once
from ...kernels._types import CACHE
from ...reach.compiled import pen_row_of, reach1_ordered
from . import rules as _rules
from . import _bits2
from ._bits2 import pair_bits
from ._jit import node_value, placement_key

EMPTY, WALL = T.OCC_EMPTY, T.OCC_WALL
NOT_STOP = np.uint8(0xFF ^ int(T.CELL_STOP))
PEN_TOP = T.MAX_PENALTY_LEVELS - 1
#: static_ends' packed row: placement (bits 0-15), cost (16-29), stopped (bit 30)
_STOP_BIT = 1 << 30

i64, i32 = types.int64, types.int32
I64_1, I64_2 = types.int64[::1], types.int64[:, ::1]
I32_1, I32_2 = types.int32[::1], types.int32[:, ::1]
B_1, B_2 = types.boolean[::1], types.boolean[:, ::1]
U8_1, U64_1, I8_2 = types.uint8[::1], types.uint64[::1], types.int8[:, ::1]
U8_2 = types.uint8[:, ::1]
U8_2A, I32_2A, I8_2A = types.uint8[:, :], types.int32[:, :], types.int8[:, :]

_RP = None   # the penalty kernel, linked in by doubles_kernel()
_RPS = None  # its rows mode over a table of steps, linked in by doubles_kernel()
NP = T.N_PARAMS
#: the bits of ``doubles``' last argument: the leaving attacks asked; (for the tests)
#: the walkers' kept ends never taken (the plain query instead), or taken whoever
#: stands within reach (the rule broken: the differential must fail)
PENALTY = 1
NO_KEPT_WALKERS = 2
BREAK_KEPT_WALKERS = 4
#: ... the walkers' kept ends with an enemy in reach for leaving attacks never taken
#: (its penalty search instead: the call before them, for A/B runs), or taken whether or
#: not a space next to an enemy is within reach (the rule broken)
NO_LEAVE_FAR = 8
BREAK_LEAVE_FAR = 16
#: ... and the walkers' kept ends barred by a figure at the budget's least cost too (the
#: rule before ``near_far`` bounded the figures as well, for A/B runs)
NO_FIGURES_FAR = 32
#: ... and (for A/B runs and the tests) the kept ends read from their four rows in the
#: kernel's order, not from their packed row (``static_ends``' row 4)
NO_PACKED_KEPT = 64
#: ... and without leaving attacks asked, a two-space walker with an enemy in reach still
#: runs its penalty search (the call before PLAIN_UNASKED, for A/B runs and the tests).
#: PLAIN_UNASKED (this bit off): a walker's ends, costs and stops are its plain
#: query's whatever its penalties -- the penalty search's states are (placement,
#: attacks, stopped), its steps the plain query's, each attack count only capped, never
#: refused, so a placement's least cost over its states and whether a free arrival
#: has it are the plain query's; the order its states settle in differs, and no
#: longer counts (each pair listed by placement_key). So it takes its kept ends where
#: no figure but friends stands in its reach, whether or not an enemy does.
NO_PLAIN_UNASKED = 128
#: ... and the walkers' plain query by the kernel (reach1_ordered), not as bit-set
#: layers (_bits2.pair_bits: the same answers), for A/B runs and the tests
NO_PAIR_BITS = 256
#: the largest placement graph (placements x spaces) whose walkers get kept ends (their
#: reach table, per kind and budget, is uint8[P, N]: 205 KiB on the Shattered Table)
NEAR_BYTES = 1 << 22


@once
def doubles_kernel():
    """The compiled batch of double-space moves (compiled, or loaded from Numba's cache,
    on first use; the packed penalty kernel linked in as
    :func:`movecore.kernels.batch.reach_games_pen` links it).

    ``doubles(occ, cell, alive, rows, figs, budgets, team, height, kind, passes,
    leaves, lead, trail, flip, coords, level, nbr, n_teams, master, blobs, blob_at,
    qflags, qflags_at, params, codes, pblobs, pblob_at, pparams, node_occ, flags, rowpos,
    lv, nlv, fbuf, ends, query, pbuf, blay, bat, btab, out_at, sqflags, sqflags_at,
    n_dk, sout_at, touch, tab_at, tab_bud, tab_ptr, tab, near_at, near, near_far, mask,
    cost, stop, penalty, want_pen)``: games
    ``rows[i]``, figure slot ``figs[i]`` with budget ``budgets[i]``; per slot its team,
    height, kind of mover (``k >= 0``: a double-space kind, the index into the packed
    plain shapes ``blobs``, ...,
    ``params`` and stop codes ``codes[k]``, its penalty shapes ``2k`` (15 levels) and
    ``2k + 1`` (63) of ``pblobs``, ``pparams`` (int64[S, N_PARAMS + 2]: columns
    ``N_PARAMS`` and ``+ 1`` bound the shape's table of steps in ``pblobs``, which the
    search runs over; with N_PARAMS columns, the penalty kernel on the blob: the same
    rows); ``-1 - s``: single-space kind ``s``,
    its flags ``sqflags`` and penalty shapes ``2 (n_dk + s)`` and ``+ 1``), passes every
    figure, draws leaving attacks; then the placement graph, the battlefield, per-call
    scratch, ``touch`` (the placements touching each space, -1 padded), the kept ends
    of the movers that pass every figure (slot ``f``'s from start ``s`` at
    ``tab[:, tab_ptr[tab_at[f] + s]:tab_ptr[tab_at[f] + s + 1]]`` (int32[5, M] or [4, M]:
    :func:`static_ends`) for budget
    ``tab_bud[f]``; ``tab_at[f]`` -1: none; :func:`static_ends`), and of the walkers
    too, with their reach (``near[near_at[f] + s]``: :func:`walker_near`) and the least
    cost ``near_far[f]`` below which a figure's space or a space next to an enemy bars
    them (:func:`walker_far`), the walkers' bit-set tables ``bat``, ``btab`` and scratch
    ``blay`` (:func:`._bits2.pair_bit_tables`: their plain query as layers), the dense
    outs and, with ``want_pen & PENALTY``, ``penalty`` (each end's leaving attacks: a
    single-space slot's game row gets those alone; the other bits of ``want_pen`` are
    for A/B runs and the tests: ``NO_KEPT_WALKERS``, ``BREAK_KEPT_WALKERS``,
    ``NO_LEAVE_FAR``, ``BREAK_LEAVE_FAR``, ``NO_FIGURES_FAR``, ``NO_PACKED_KEPT``,
    ``NO_PLAIN_UNASKED``, ``NO_PAIR_BITS``).
    Returns 0 or a kernel status < 0."""
    from ...reach.compiled import penalty_kernel, penalty_steps_kernel
    global _RP, _RPS
    _RP = penalty_kernel()
    _RPS = penalty_steps_kernel()[1]

    @njit(i64(I32_2, I32_2, B_2, I64_1, I64_1, I64_1, I64_1, I64_1, I64_1, B_1,
              B_1, I64_1, I64_1, I64_1, I64_2, I64_1, I64_2, i64, i64, I32_1, I64_1,
              U8_1, I64_1, I64_2, I8_2, I32_1, I64_1, I64_2, I32_1, U8_1, I64_1, U64_1,
              U64_1, I32_1, I32_2, I64_2, I32_1, U64_1, I64_1, U64_1, i64, U8_1, I64_1, i64,
              i64, I64_2,
              I64_1, I64_1, I64_1, I32_2, I64_1, U8_2, I64_1, U8_2A, I32_2A, I8_2A,
              I32_2A, i64), cache=CACHE, nogil=True)
    def doubles(occ, cell, alive, rows, figs, budgets, team, height, kind, passes,
                leaves, lead, trail, flip, coords, level, nbr, n_teams, master, blobs,
                blob_at, qflags, qflags_at, params, codes, pblobs, pblob_at, pparams,
                node_occ, flags, rowpos, lv, nlv, fbuf, ends, query, pbuf, blay, bat,
                btab, out_at, sqflags, sqflags_at, n_dk, sout_at, touch, tab_at, tab_bud,
                tab_ptr, tab, near_at, near, near_far, mask, cost, stop, penalty,
                want_pen):
        want = (want_pen & PENALTY) != 0
        walkers_kept = (want_pen & NO_KEPT_WALKERS) == 0
        whoever = (want_pen & BREAK_KEPT_WALKERS) != 0
        leave_far = (want_pen & NO_LEAVE_FAR) == 0
        any_leave = (want_pen & BREAK_LEAVE_FAR) != 0
        far_edge = (want_pen & NO_FIGURES_FAR) != 0
        packed = tab.shape[0] > 4 and (want_pen & NO_PACKED_KEPT) == 0
        # without leaving attacks asked, a walker's penalty search answers its plain
        # query's ends, costs and stops (see PLAIN_UNASKED): the plain query, or its
        # kept ends where no figure but friends stands in its reach
        plain_unasked = not want and (want_pen & NO_PLAIN_UNASKED) == 0
        pair_bits_on = bat[0] > 0 and (want_pen & NO_PAIR_BITS) == 0
        P = lead.shape[0]
        N = level.shape[0]
        F = cell.shape[1]
        rows_mode = np.empty((8, 0), np.int32)
        no_queries = np.empty((0, 3), np.int64)
        no_order = np.empty(0, np.int64)
        no_zoc = np.empty(0, np.uint64)
        no_enter = np.empty(0, np.int32)
        for i in range(rows.shape[0]):
            b = rows[i]
            f = figs[i]
            bud = budgets[i]
            k = kind[f]
            start = np.int64(cell[b, f])
            if k < 0:
                # a single-space figure: its leaving attacks alone (its ends, costs
                # and stops are the batched kernel's, in the game's row already)
                if want and leaves[f]:
                    n = _single_attacks(occ, cell, alive, b, f, bud, start, team,
                                        height, kind, lead, trail, coords, level, nbr,
                                        sqflags, sqflags_at, pblobs, pblob_at, pparams,
                                        n_dk, lv, pbuf, sout_at, rows_mode,
                                        no_queries, no_zoc, no_enter, penalty)
                    if n < 0:
                        return n
                continue
            c0 = lead[start]
            c1 = trail[start]
            fstart = flip[start]
            any_mode = passes[f]
            t = 0 if any_mode else team[f]
            n_rel = _relevant(cell, alive, b, f, c0, c1, bud + 3, team, kind, lead,
                              trail, coords) if leaves[f] and not plain_unasked else 0
            kept = tab_at[f] >= 0 and bud == tab_bud[f] and (
                n_rel == 0 or (leave_far and not any_mode and near_at[f] >= 0))
            ra = near_at[f] + start
            have_lv = False
            if kept and n_rel > 0 and not any_leave:
                # a walker with an enemy in reach for leaving attacks (its penalty
                # search) but no space next to an enemy (a leave bit) at a least cost
                # below near_far (the budget where only flips cost 0): every state it
                # expands by a step that moves has a least cost below the budget, so
                # none leaves an enemy; every penalty stays 0, and the penalty search
                # is its plain query, state for state: its kept ends where no figure
                # stands in reach either (below). (The leave bits: the search's own,
                # which it reads where the kept ends are not taken.)
                _leave_bits(cell, alive, b, f, team, height, kind, lead, trail, level,
                            nbr, lv)
                have_lv = True
                far = near_far[f]
                for c in range(N):
                    if lv[c] != 0 and near[ra, c] < far:
                        kept = False
                        break
            if kept and not any_mode:
                # a walker (no enemy in reach for leaving attacks: its plain query;
                # or none it can leave, above): its kept ends too where no figure but
                # friends it passes (their code its team's: not engaged) has a space
                # at a least cost below near_far (near: what the search may read; a
                # space at the budget is reached, if at all, at the budget, where only
                # a flip goes on, onto the same spaces: whoever stands there takes the
                # placements on it from the ends and nothing else, as below), as a
                # flyer's
                kept = walkers_kept
                far = bud + 1 if far_edge else near_far[f]
                for j in range(F):
                    if not kept or whoever:
                        break
                    if j == f or not alive[b, j]:
                        continue
                    x0, x1 = _other_spaces(cell, kind, lead, trail, b, j)
                    if (near[ra, x0] < far and occ[b, x0] != t) or \
                            (x1 >= 0 and near[ra, x1] < far and occ[b, x1] != t):
                        kept = False
            if kept:
                # a mover that passes every figure (or a walker with no one but
                # friends in reach, above): its kept ends from this start on the empty
                # battlefield, less the placements it may not end on here (see
                # static_ends; its start, whose spaces are its own, is empty), each
                # pair once (a placement and its flip are occupied alike: a pair kept
                # is listed as here)
                at = tab_at[f] + start
                if packed:
                    # the listed one of each pair alone, by placement, one word each
                    # (row 4; -1 after the last): a fifth of the bytes the four rows' loop
                    # reads, and the row's writes in place order -- the four rows are
                    # ~5.7 MiB on the bench's battlefield, their reads missed
                    for e in range(tab_ptr[at], tab_ptr[at + 1]):
                        w = np.int64(tab[4, e])
                        if w < 0:
                            break
                        node = w & 0xFFFF
                        mask[b, node] = 1
                        cost[b, node] = (w >> 16) & 0x3FFF
                        stop[b, node] = codes[k, node] if w >= _STOP_BIT else 0
                else:
                    for e in range(tab_ptr[at], tab_ptr[at + 1]):
                        if tab[3, e] != 0:
                            continue              # its flip is listed
                        node = tab[0, e]
                        mask[b, node] = 1
                        cost[b, node] = tab[1, e]
                        stop[b, node] = codes[k, node] if tab[2, e] != 0 else 0
                # then the placements touching another figure's space put back as
                # the row arrived (cleared): the occupant row holds a code only where
                # a figure stands (_batch), so these are the placements whose
                # occupancy is not empty -- a few figures' dozen placements each,
                # not an occupancy test per end
                for j in range(F):
                    if j == f or not alive[b, j]:
                        continue
                    x0, x1 = _other_spaces(cell, kind, lead, trail, b, j)
                    for e in range(2):
                        x = x0 if e == 0 else x1
                        if x < 0:
                            continue
                        for m in range(touch.shape[1]):
                            p = touch[x, m]
                            if p >= 0:
                                mask[b, p] = 0
                                cost[b, p] = -1
                                stop[b, p] = 0
                continue
            if n_rel == 0 and pair_bits_on and bat[_bits2._HEAD + k] != 0:
                # (a walker's plain query as bit-set layers: the same ends, costs,
                # stops and listed placements; _bits2)
                pair_bits(bat, btab, blay, k, occ, b, c0, c1, t, start, bud, flip,
                          codes[k], mask, cost, stop, ends[0])
                continue
            # 1. the placements' occupancy without the mover, the kind's flags: a
            # placement both of whose spaces are empty (or the mover's) is empty, so
            # only the placements touching an occupied space are worked out
            qa = qflags_at[k]
            for p in range(P):
                flags[p] = qflags[qa + p]
            for p in range(P):
                node_occ[p] = EMPTY
            for c in range(N):
                if occ[b, c] == EMPTY or c == c0 or c == c1:
                    continue
                for m in range(touch.shape[1]):
                    p = touch[c, m]
                    if p >= 0:
                        node_occ[p] = _node_value(occ, b, lead[p], trail[p], c0, c1,
                                                  t, any_mode)
            flags[start] &= NOT_STOP
            flags[fstart] &= NOT_STOP
            # 2. leaving attacks: enemies within reach (budget + 3 of either space,
            # n_rel above)
            if n_rel > 0:
                if not have_lv:
                    _leave_bits(cell, alive, b, f, team, height, kind, lead, trail,
                                level, nbr, lv)
                # (as above: only the placements touching a space with leave bits)
                for p in range(P):
                    nlv[p] = 0
                for c in range(N):
                    if lv[c] == 0:
                        continue
                    for m in range(touch.shape[1]):
                        p = touch[c, m]
                        if p >= 0:
                            nlv[p] = lv[lead[p]] | lv[trail[p]]
                ps = 2 * k + (1 if n_rel * bud > 15 else 0)
                n = _pen_rows(pblobs, pblob_at, pparams, ps, node_occ, flags, no_zoc,
                              nlv, no_enter, pbuf, rows_mode, no_queries, start, bud)
                if n < 0:
                    return n
                # the rows, row-major, in the workspace's rows block (eight fields a
                # row, just below the out block: reach_pen's layout)
                nq = np.int64(pblobs[pblob_at[ps]])     # (its cells: the placements)
                o_cell = out_at - 8 * nq
                o_cost, o_stop, o_pen, wr = o_cell + 1, o_cell + 2, o_cell + 4, 8
                src = pbuf
            else:
                query[0, 0] = start
                query[0, 1] = bud
                n = reach1_ordered(blobs[blob_at[k]:blob_at[k + 1]], node_occ, flags,
                                   no_zoc, params[k], fbuf, ends, query, no_order)
                if n < 0:
                    return n
                src = ends.reshape(3 * ends.shape[1])
                o_cell, o_cost, o_stop = 0, ends.shape[1], 2 * ends.shape[1]
                o_pen, wr = -1, 1
                nq = np.int64(P)
            # 3. each pair of spaces once, as its placement with the least
            # placement_key (whatever the order of the rows; the game's row arrives
            # cleared: BatchLayout.answer), with the least attacks of both
            # (row r's field at o_field + wr * r: the plain query's ends column-major,
            # wr 1; the penalty rows row-major, wr 8)
            # (a penalty row's partner from the search's own cell stamps: pen_row_of;
            # the plain query's through rowpos, set here and cleared below)
            if o_pen < 0:
                for r in range(n):
                    rowpos[src[o_cell + wr * r]] = r
            for r in range(n):
                node = src[o_cell + wr * r]
                f = flip[node]
                partner = rowpos[f] if o_pen < 0 else pen_row_of(pbuf, nq, f)
                c = src[o_cost + wr * r]
                st = src[o_stop + wr * r]
                if partner >= 0:
                    # (branched on the nodes first, known early: the two placements
                    # of a pair mostly tie, so the test of their labels after it is
                    # rarely the other way, and a mispredicted branch never waits for
                    # the partner's label -- one test of the keys read 1.03-1.05x
                    # slower a call)
                    pc, ps = src[o_cost + wr * partner], src[o_stop + wr * partner]
                    if f < node:
                        if not placement_key(c, st, node) < placement_key(pc, ps, f):
                            continue
                    elif placement_key(pc, ps, f) < placement_key(c, st, node):
                        continue
                mask[b, node] = 1
                cost[b, node] = c
                stop[b, node] = codes[k, node] if st != 0 else 0
                if want and o_pen >= 0:  # the least attacks of both
                    p = src[o_pen + wr * r]
                    if partner >= 0:
                        p = min(p, src[o_pen + wr * partner])
                    penalty[b, node] = p
            if o_pen < 0:
                for r in range(n):
                    rowpos[src[o_cell + wr * r]] = -1
        return 0

    return doubles


def static_ends(blob, qflags, params, flip, budget, fbuf):
    """(ptr int64[P + 1], ends int32[5, M]): for each start placement ``s`` of a kind
    that passes every figure (a flyer, a phantom walker), the ends of its plain query
    (budget ``budget``, the kind's flags with the stops of ``s`` and its flip cleared) on
    the empty battlefield, in the kernel's order, at ``ends[:, ptr[s]:ptr[s + 1]]``:
    rows placement, cost, stopped, and 1 where the placement's flip is an end listed
    in its place (the pair's least ``placement_key``; a placement and its flip lie on
    the same two spaces, so a figure on them takes both or neither: the placement of
    a pair that a game keeps is the one listed here); row 4 (where they pack: else
    four rows) the listed ones again, by placement, one word each
    (:func:`_packed_row`).

    Such a mover passes every placement a figure stands on and only may not end there,
    and whether a placement may be an end never changes the search (a stopped arrival
    where it may not end is never pushed, and a stopped state is never expanded): so
    its ends on a game's battlefield are these, less the placements where a figure
    stands, with the same labels -- what :func:`doubles_kernel`
    reads instead of searching."""
    P = qflags.shape[0]
    flip = np.asarray(flip)
    fl = np.array(qflags, np.uint8, copy=True)
    # the starts whose stops and their flip's are none: one call for many (_by_start)
    plain = ((fl | fl[flip]) & T.CELL_STOP) == 0
    got = dict(_by_start(blob, fl, params, budget, fbuf, np.flatnonzero(plain)))
    for s in np.flatnonzero(~plain).tolist():
        f0, f1 = fl[s], fl[flip[s]]         # (their stops cleared for this start)
        fl[s] &= NOT_STOP
        fl[flip[s]] &= NOT_STOP
        got[s] = _by_start(blob, fl, params, budget, fbuf, [s])[0][1]
        fl[flip[s]] = f1
        fl[s] = f0
    n = np.array([got[s].shape[1] for s in range(P)], np.int64)
    ptr = np.zeros(P + 1, np.int64)
    ptr[1:] = np.cumsum(n)
    out = np.zeros((4, int(ptr[-1])), T.INDEX)
    out[:3] = np.concatenate([got[s] for s in range(P)], axis=1)
    # each end's column, and its flip's (-1: not an end from that start): 1 where the
    # flip is the pair's listed placement (the lesser placement_key)
    st = np.repeat(np.arange(P), n)
    col = np.full(P * P, -1, np.int64)
    col[st * P + out[0]] = np.arange(len(st))
    other = col[st * P + flip[out[0]]]
    o = np.maximum(other, 0)
    key = _rules.placement_key
    out[3] = (other >= 0) & (key(out[1, o], out[2, o], out[0, o]) <
                             key(out[1], out[2], out[0]))
    return ptr, np.ascontiguousarray(_packed_row(out, ptr, st, P), T.INDEX)


def _packed_row(out, ptr, st, P):
    """``out`` (int32[4, M]: :func:`static_ends`' rows; ``st`` each column's start) with
    a fifth row where it packs (``P`` <= 2**16 placements, costs below 2**14; else
    ``out`` as it is): each start's ends that a game keeps (row 3 is 0: the listed
    placement of each pair) by placement, one word each -- placement (bits 0-15), cost
    (16-29), stopped (bit 30) -- in the first of the start's own columns, -1 in the
    column after the last where they are fewer. ``doubles`` reads that row instead of
    the four: a fifth of the bytes (the four: each end's flag, each kept end's three
    words; ~5.7 MiB on the bench's battlefield, whose reads missed the caches), and its
    writes into a game's row in place order."""
    if P > 1 << 16 or out.shape[1] and int(out[1].max()) >= 1 << 14:
        return out
    full = np.full((5, out.shape[1]), -1, np.int64)
    full[:4] = out
    sel = np.flatnonzero(out[3] == 0)
    sel = sel[np.lexsort((out[0, sel], st[sel]))]        # by start, then placement
    word = out[0, sel].astype(np.int64) | (out[1, sel].astype(np.int64) << 16) | \
        (out[2, sel] != 0).astype(np.int64) << 30
    n_kept = np.bincount(st[sel], minlength=P)
    first = np.cumsum(n_kept) - n_kept                   # (each start's first in sel)
    full[4, ptr[st[sel]] + np.arange(len(sel)) - first[st[sel]]] = word
    return full


def _by_start(blob, qflags, params, budget, fbuf, starts) -> list:
    """``[(s, ends int32[3, n])]``: the plain query (kernel order, empty battlefield) of
    the kind from each of ``starts`` with flags ``qflags``, many starts to a call."""
    P = qflags.shape[0]
    occ = np.full(P, EMPTY, T.INDEX)
    no_zoc, no_order = np.zeros(0, np.uint64), np.zeros(0, np.int64)
    starts = np.asarray(starts, np.int64)
    out = []
    per = max(1, min(64, len(starts)))
    ends = np.zeros((3, per * P), T.INDEX)      # (one column per placement a query)
    for lo in range(0, len(starts), per):
        chunk = starts[lo:lo + per]
        query = np.zeros((len(chunk), 3), np.int64)
        query[:, 0], query[:, 1] = chunk, budget
        n = reach1_ordered(blob, occ, qflags, no_zoc, params, fbuf, ends, query, no_order)
        if n < 0:  # pragma: no cover (ends hold one column per placement a query)
            raise RuntimeError(f"movecore: kernel status {n}")
        at = 0
        for i, s in enumerate(chunk.tolist()):
            m = int(query[i, 2])
            out.append((s, ends[:, at:at + m].copy()))
            at += m
    return out


def _unstopped(blob, qflags):
    """Copies of a packed query's ``blob`` and ``qflags`` with nothing that stops a move
    or forbids an end (``CELL_STOP``, ``CELL_NO_END``, ``EDGE_STOP`` cleared): its
    search from a start reaches every cell that some path within the budget reaches,
    at that path's least cost."""
    blob = np.array(blob, copy=True)
    N, K, E = int(blob[0]), int(blob[1]), int(blob[4])
    o_edge, o_cell = int(blob[9]), int(blob[12])
    off = np.uint8(~(T.CELL_STOP | T.CELL_NO_END) & 0xFF)
    flags = blob[o_cell + 1:o_cell + 4 * N:4]
    blob[o_cell + 1:o_cell + 4 * N:4] = flags & np.int32(off)
    if E > 0:
        ef = blob[o_edge + 1:o_edge + 2 * N * K:2]
        blob[o_edge + 1:o_edge + 2 * N * K:2] = ef & np.int32(~int(T.EDGE_STOP))
    return blob, (np.asarray(qflags, np.uint8) & off).astype(np.uint8)


def walker_near(blob, qflags, params, lead, trail, N, budget, fbuf):
    """uint8[P, N]: from each start placement ``s`` of a two-space walker's kind, the
    least cost of a placement on each space ``x`` (either of its two) on the empty
    battlefield with nothing that stops a move (:func:`_unstopped`), 255 where none is
    within ``budget``: a bound below the cost of every arrival its query from ``s``
    (the kind's flags, any occupants) tries within the budget, so a figure on a space
    farther than ``budget`` is never read by it (nor, but for the placements on its
    space, one at ``budget``: :func:`walker_far`). ``doubles`` takes the walker's kept
    ends (:func:`static_ends`) where no figure but friends it passes (not engaged)
    stands on a space nearer than :func:`walker_far`."""
    P = qflags.shape[0]
    ublob, uqf = _unstopped(blob, qflags)
    lead, trail = np.asarray(lead), np.asarray(trail)
    near = np.full((P, N), 255, np.uint8)
    got = _by_start(ublob, uqf, params, budget, fbuf, range(P))
    e = np.concatenate([x for _, x in got], axis=1)
    st = np.repeat(np.array([s for s, _ in got], np.int64), [x.shape[1] for _, x in got])
    # each (start, space)'s least over the placements on the space: the costs written
    # dearest first, one cost at a time (a write of one value to a repeated index)
    at = np.concatenate((st * N + lead[e[0]], st * N + trail[e[0]]))
    c = np.minimum(np.tile(e[1], 2), 254)
    flat = near.reshape(-1)
    for v in np.unique(c)[::-1].tolist():
        flat[at[c == v]] = v
    return near


def walker_far(near, lead, trail, budget) -> int:
    """The least cost below which a space of :func:`walker_near`'s table ``near`` (a kind
    and ``budget``) may be reached by a state the walker's search expands with a step
    that moves it: ``budget`` where only a flip costs 0 (no space but a start's own at
    least cost 0 from it), else ``budget + 1`` (a state settled at the budget goes on
    by its steps of cost 0). ``doubles`` takes a walker's kept ends where no figure but
    friends it passes stands on a space nearer than this (one on a space at least this
    far is met, if at all, at the budget by the placements on its space, and takes
    them from the ends, which the kept ends leave out where a figure stands, and
    nothing else: only flips go on from the budget, onto the same spaces), and with an
    enemy in reach for leaving attacks, where no space next to an enemy is nearer
    either."""
    P = near.shape[0]
    zero = near == 0
    own = np.arange(P)
    zero[own, np.asarray(lead)[:P]] = False
    zero[own, np.asarray(trail)[:P]] = False
    return budget + 1 if zero.any() else budget


@njit(inline="always")
def _pen_rows(pblobs, pblob_at, pparams, ps, occupant, qflags, zoc, leave, enter_pen,
              pbuf, rows_mode, no_queries, start, bud):
    """Penalty shape ``ps``'s query in rows mode (its n rows in ``pbuf``; returns n or a
    status < 0): over its table of steps where ``pparams`` has one (columns
    ``N_PARAMS``, ``+ 1``: its bounds in ``pblobs``, see ``_batch._pen_shapes``), else
    the penalty kernel on its blob; the same rows in the same order."""
    blob = pblobs[pblob_at[ps]:pblob_at[ps + 1]]
    if pparams.shape[1] > NP + 1:
        return _RPS(blob, pblobs[pparams[ps, NP]:pparams[ps, NP + 1]], occupant, qflags,
                    zoc, leave, enter_pen, pparams[ps], pbuf, start, bud)
    return _RP(blob, occupant, qflags, zoc, leave, enter_pen, pparams[ps], pbuf,
               rows_mode, no_queries, start, bud)


@njit(inline="always")
def _node_value(occ, b, lp, tp, c0, c1, t, any_mode):
    """Placement (``lp``, ``tp``)'s occupant for the mover on ``c0``, ``c1`` (its own
    spaces free) of team ``t``: ``any_mode`` (a flyer or phantom walker) reads any
    figure as occupied (0), a walker an engaged figure (team + n_teams) as a wall-like
    enemy, as the position's ``node_value``."""
    x = EMPTY if (lp == c0 or lp == c1) else occ[b, lp]
    y = EMPTY if (tp == c0 or tp == c1) else occ[b, tp]
    return node_value(np.int32(x), np.int32(y), np.int64(t), np.int64(any_mode))


@njit(inline="always")
def _other_spaces(cell, kind, lead, trail, b, j):
    """The spaces of figure slot ``j`` of game ``b`` (a placement's two, or a space)."""
    sj = np.int64(cell[b, j])
    if kind[j] >= 0:
        return lead[sj], trail[sj]
    return sj, np.int64(-1)


@njit(inline="always")
def _relevant(cell, alive, b, f, c0, c1, reach_, team, kind, lead, trail, coords):
    """Enemies of slot ``f`` (on ``c0``, ``c1``) with a space within ``reach_`` of one
    of its spaces (the position's ``relevant``)."""
    n_rel = 0
    for j in range(cell.shape[1]):
        if not alive[b, j] or team[j] == team[f]:
            continue
        x0, x1 = _other_spaces(cell, kind, lead, trail, b, j)
        hit = False
        for a in range(2):
            ca = c0 if a == 0 else c1
            if ca < 0:
                continue
            for e in range(2):
                cb = x0 if e == 0 else x1
                if cb < 0:
                    continue
                dq = coords[cb, 0] - coords[ca, 0]
                dr = coords[cb, 1] - coords[ca, 1]
                if (abs(dq) + abs(dr) + abs(dq + dr)) // 2 <= reach_:
                    hit = True
        if hit:
            n_rel += 1
    return n_rel


@njit(inline="always")
def _leave_bits(cell, alive, b, f, team, height, kind, lead, trail, level, nbr, lv):
    """``lv`` (uint64[N]): bit j on the spaces where slot ``f`` stands next to enemy
    slot j, heights considered (the position's leave layer of its team and height)."""
    h = height[f]       # (the position's height class gives the same bits)
    for c in range(lv.shape[0]):
        lv[c] = 0
    for j in range(cell.shape[1]):
        if not alive[b, j] or team[j] == team[f]:
            continue
        bit = np.uint64(1) << np.uint64(j)
        x0, x1 = _other_spaces(cell, kind, lead, trail, b, j)
        for e in range(2):
            ce = x0 if e == 0 else x1
            if ce < 0:
                continue
            le = level[ce]
            for d in range(nbr.shape[1]):
                c = nbr[ce, d]
                if c >= 0 and level[c] - le < height[j] and le - level[c] < h:
                    lv[c] |= bit


@njit(inline="always")
def _single_attacks(occ, cell, alive, b, f, bud, start, team, height, kind, lead, trail,
                    coords, level, nbr, sqflags, sqflags_at, pblobs, pblob_at, pparams,
                    n_dk, lv, pbuf, out_at, rows_mode, no_queries, no_zoc,
                    no_enter, penalty):
    """A single-space walker's leaving attacks per end (the position's penalty query:
    the leave layer of its team and height, ``max_penalty`` 15 or 63), into
    ``penalty[b]``. Returns the kernel's ends, or its status < 0. (The position frees the
    start for the query; here it keeps the mover's code, a wall to it when engaged: a
    path back through the start is never cheaper nor less attacked than the part of it
    from there, so no end's least attacks change.)"""
    n_rel = _relevant(cell, alive, b, f, start, np.int64(-1), bud + 2, team, kind, lead,
                      trail, coords)
    if n_rel == 0:
        return 0
    _leave_bits(cell, alive, b, f, team, height, kind, lead, trail, level, nbr, lv)
    s = -1 - kind[f]
    ps = 2 * (n_dk + s) + (1 if n_rel * bud > 15 else 0)
    n = _pen_rows(pblobs, pblob_at, pparams, ps, occ[b],
                  sqflags[sqflags_at[s]:sqflags_at[s + 1]], no_zoc, lv, no_enter, pbuf,
                  rows_mode, no_queries, start, bud)
    rows = out_at - 8 * np.int64(pblobs[pblob_at[ps]])   # (row-major, as in doubles)
    for r in range(n):
        penalty[b, pbuf[rows + 8 * r]] = pbuf[rows + 8 * r + 4]
    return n
