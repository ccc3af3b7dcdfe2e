"""Descent on the batched arrays backend (:class:`movecore.batch.BatchedGames`).

In movement-only play a Descent move changes the mover's squares and opens the closed
doors on its path (the path :meth:`Position.apply_move` takes: the reported one of the
search tree); a removal frees a figure's squares. Nothing else changes: no door is
closed or revealed, no rune key gained, no figure added. So one game's state is

* ``sq`` uint8[B, NS + 1]: per square the sides standing there (1 hero, 2 monster; the
  last column, the town, always 0), from which every kind's occupant layer is read;
* ``doors`` int64[B]: the open doors (bit k: door k), with the figures' anchors and who
  is in play (``BatchedGames.cell`` / ``alive``);
* ``orient`` uint8[B, F]: each figure's orientation, 1 where a base that turns (option
  ``large_turns``) stands turned from the root's; its kind is then the turned base's
  (``(side, h, w, fly)``: :meth:`Position._turn`), whose node numbering, and so whose
  action ids (``NS + 1 + s``: the base turned again, at square ``s``), are that kind's.

A figure's move is the kernel query of its kind's placement graph (the same packed board
and mover as the position's prepared query) **under the game's door state**: one query
shape per kind of mover (side, footprint, flying, door-memory radius) and door vector,
for every door state a game can reach from the root (doors only open: ``2**c`` states
for ``c`` doors closed at the root). One compiled call (``legal_games``,
:func:`legal_kernel`) answers every game: it reads the mover's occupant layer from
``sq`` through the kind's node -> squares table (door-memory, air and opened-here nodes
read their square; a large monster's own squares lifted while its layer is read, as
``Position._reach_large``), runs the kernel (in tree mode where a closed door is on some
step), writes the ends' mask, least costs and stop codes (ice), and for every end the
doors its reported path opens (the door steps along the tree path), which a move then
opens in that game.

**Per-game layers** (the position's ``_KindState`` layers, made per game and move from
the figures in play; ``_KindGraph.adjacent_nodes`` tables per kind and enemy base, built
once): the nodes next to an enemy **grappler** stop a move (``CELL_STOP`` over the
shape's static flags; stop code 1, ice code otherwise) and a mover that starts on one
spends no MP (its start's stop code 3); a move that may count **wounds** (a pit the kind
can fall into under the game's door state: the shape's ``leave`` layer; an enemy
**aura** in play: the game's ``enter_pen`` layer, each aura's wounds on the nodes next
to it, summed) runs the packed penalty kernel
(:func:`movecore.reach.compiled.penalty_kernel`, called from the same compiled function)
with the wound cap the position would choose (``wound_cap`` of the MP and the layer's
largest value), each end's least wounds into ``legal_moves(penalty=)``, and the doors of
the **reported path** (the least-wound arrival's where it is among the cheapest, else
the cheapest: ``Position.apply_move``) read from its search tree. Wounds are an answer,
not a state: neither the position nor the arrays keep a figure's wounds (``apply_move``
counts none), so a move changes the same squares and doors as any other. Only a shape
the packed kernels cannot hold (millions of nodes) is still asked of a live position
made from the arrays (``BatchLayout.restore``; ``slow``), then moved there by
``apply_move``.

A move writes every square of the new base (:func:`move_games`; a turned end flips
the orientation), a removal frees every square (:func:`remove_games`), and
:meth:`_DescentBatch.spaces` gives the squares of a base in its game's orientation
(self-play's removals and greedy distances read them all).

Scenarios the arrays do not take (the positions backend, ``BatchedGames.why``): a figure
in town at the start, a dungeon whose graphs are door-scoped (many doors), or more than
``DOOR_STATES_MAX`` door states.

The batched answer equals :meth:`Position.legal_moves` and the state after a move
equals the position after :meth:`Position.apply_move` (``tests/test_batch.py``,
``tests/test_batch_descent.py``).
"""
from __future__ import annotations

from typing import Mapping

import numpy as np
from numba import njit

from ...errors import QueryError
from ...kernels import _types as T
from ...kernels._jit import once
from ...reach.compiled import (CTRL, fast_layout_size, is_plain, pen_layout_size,
                               penalty_kernel, reach1_general, reach1_plain)
from . import rules as D
from ._dungeon import STOP_GRAPPLE, STOP_GRAPPLED
from ._layers import wound_cap

#: Most door states (doors closed at the root: 2**c states) a batch packs query shapes for.
DOOR_STATES_MAX = 64
D_STOP_GRAPPLE, D_STOP_GRAPPLED = STOP_GRAPPLE, STOP_GRAPPLED
_CELL_STOP = T.CELL_STOP
_P_N_PEN = T.P_N_PEN
_CTRL = CTRL


def batch_layout(pos, query):
    """(:class:`movecore.batch.BatchLayout`, None) for batched games of ``pos``, every
    figure slot asking ``query`` (a mapping) or ``query[slot]`` (a list, one per figure in
    play); or (None, why)."""
    from ...batch import BatchLayout
    fids = pos.figures
    queries = [dict(query)] * len(fids) if isinstance(query, Mapping) else \
        [dict(q) for q in query]
    if len(queries) != len(fids):
        return None, "one query per figure"
    st = pos.st
    slots = [pos.index[f] for f in fids]
    if st.scoped:
        return None, "the dungeon's graphs are door-scoped (many doors)"
    if any(pos.anchor[i] < 0 for i in slots):
        return None, "a figure stands in town at the start"
    closed = [k for k, o in enumerate(pos.door_open) if not o]
    if len(pos.door_open) > 62 or (1 << len(closed)) > DOOR_STATES_MAX:
        return None, f"more than {DOOR_STATES_MAX} door states (or 62 doors)"
    try:
        parsed = [pos._parse(i, q) for i, q in zip(slots, queries)]
    except QueryError as e:         # a bad query: the positions backend names it
        return None, str(e)
    if any(p for _, p, _ in parsed):
        return None, "paths are asked"
    try:
        game = _DescentBatch(pos, fids, slots, queries, parsed, closed)
    except _NotBatched as e:  # pragma: no cover (millions of nodes)
        return None, str(e)
    return BatchLayout(occ=game.sq0.astype(np.int32), cell=game.cell0, team=game.side,
                       shapes=game.root_prepared, shape_of=np.arange(len(fids)),
                       budget=game.budget.copy(), restore=None, game=game), None


class _DescentBatch:
    """The Descent side of a batch (see the module docstring): per-kind and per-shape
    tables, built once, and the per-game state (``sq``, ``doors``), made for B games
    by :meth:`bind`."""

    def __init__(self, pos, fids, slots, queries, parsed, closed):
        st = pos.st
        self.root = pos
        self.fids, self.slots, self.queries = fids, slots, queries
        ns = self.ns = st.ns
        F = len(fids)
        self.side = np.array([pos.side[i] for i in slots], np.int32)
        self.budget = np.array([mp for mp, _, _ in parsed], np.int64)
        self.cell0 = np.array([pos.anchor[i] for i in slots], np.int32)
        self.sq0 = pos.square_bits[:ns + 1].copy()
        #: each slot's base at the root (w, h): orientation 0; a base that turns
        #: (``rules.turns_allowed``) has orientation 1 too, its base turned (h, w)
        self.size0 = [tuple(pos.size[i]) for i in slots]
        self.large = any(sz != (1, 1) for sz in self.size0)
        self.doors0 = sum(1 << k for k, o in enumerate(pos.door_open) if o)
        self.closed = np.array(closed, np.int64)
        n_states = self.n_states = 1 << len(closed)
        # per game, over the nodes next to an enemy in play: a grappler's stop layer
        # (grip), an aura's wounds (the penalty kernel's enter layer)
        aura = np.zeros((F, F), np.int64)
        grip = np.zeros((F, F), np.bool_)
        for a, i in enumerate(slots):
            for c, j in enumerate(slots):
                enemy = pos.side[j] != pos.side[i]
                aura[a, c] = int(pos.aura[j]) if enemy else 0
                grip[a, c] = enemy and bool(pos.grapple[j])
        #: int64[F, F]: the wounds an enemy's aura deals on each node next to it
        #: (aura[f, j]: slot j's aura, for a move of slot f; 0: none, or a friend)
        self.aura = aura
        #: bool[F, F]: slot j is an enemy grappler of slot f
        self.grip = grip
        # kinds of mover (kind key with its door-memory radius), in slot order; a base
        # that turns has the kind of its turned base too (side, h, w, fly, radius),
        # whose node numbering (and so action ids) is its own (see _kind_graph)
        turns = [D.turns_allowed(sz, st.large_turns) for sz in self.size0]
        keys = []
        for i, (_, _, r), t in zip(slots, parsed, turns):
            side, w, h, fly = pos.fkey[i]
            keys.append((pos.fkey[i] + (r,), (side, h, w, fly, r) if t else None))
        kinds = list(dict.fromkeys(k for pair in keys for k in pair if k is not None))
        #: int64[F, 2]: each slot's kind per orientation (-1: its base does not turn)
        self.slot_kind = np.array([[kinds.index(k0), -1 if k1 is None else
                                    kinds.index(k1)] for k0, k1 in keys], np.int64)
        graphs = [st.kind(k) for k in kinds]
        #: per kind: its action ids (NS + 1, or 2 NS + 1 for a base that turns)
        self.kind_nact = np.array([g.n_actions for g in graphs], np.int64)
        # per kind: node -> squares (foot), the occupant value of the sides' bits, ice
        self.kind_n = np.array([g.n for g in graphs], np.int64)
        self.kind_k = np.array([g.k for g in graphs], np.int64)
        self.foot_at = np.cumsum([0] + [g.n * g.k for g in graphs]).astype(np.int64)
        self.foot = np.concatenate([g.foot.ravel() for g in graphs]).astype(np.int64)
        self.lut = np.stack([g.occ_lut for g in graphs]).astype(np.int32)
        self.ice_at = np.cumsum([0] + [g.n for g in graphs]).astype(np.int64)
        self.ice = np.concatenate([g.ice_code for g in graphs]).astype(np.int8)
        # per (kind, door state): the packed query shape without penalties (none where
        # a pit may be fallen into: ``has_leave``), and the penalty kernel's shape
        # where wounds may be counted (a pit, or an enemy aura in play: the game's aura
        # layer then decides); the door steps of both
        aura_kind = [bool(any(aura[f, j] for f in range(F) for j in range(F)
                              if self.side[f] == g.team)) for g in graphs]
        self.aura_kind = np.array(aura_kind, np.bool_)
        blobs, qflags, params, plain, dptr, dv_, dbits = [], [], [], [], [], [], []
        pblobs, pparams, leaves = [], [], []
        shape_ok = np.zeros(len(kinds) * n_states, np.bool_)
        pen_ok = np.zeros(len(kinds) * n_states, np.bool_)
        has_leave = np.zeros(len(kinds) * n_states, np.bool_)
        for kk, g in enumerate(graphs):
            for s in range(n_states):
                k = kk * n_states + s
                opened = self._doors_of_state(s)
                dv = _door_vector(pos, g.team, opened)
                links = g.links(dv)
                n = g.n
                has_leave[k] = links.has_leave
                qf = np.ascontiguousarray(g.flags_static, np.uint8)
                qflags.append(qf)
                occ0 = np.full(n, T.OCC_EMPTY, T.INDEX)
                if links.has_leave:
                    blobs.append(np.zeros(0, np.int32))
                    params.append(np.zeros(T.N_PARAMS, np.int64))
                    plain.append(False)
                else:
                    t = g.template(links, False, occ0, g.flags_static.copy(),
                                   np.zeros(n, T.INDEX))
                    q = t._q
                    if q.blob is None:  # pragma: no cover (millions of nodes)
                        raise _NotBatched("the dungeon is too large for the packed kernel")
                    p = q.params.astype(np.int64).copy()
                    p[T.P_HAS_OCC] = 1
                    blobs.append(np.asarray(q.blob, np.int32))
                    params.append(p)
                    plain.append(bool(is_plain(np.asarray(q.blob, np.int32), qf,
                                               np.zeros(0, np.uint64), p)))
                    shape_ok[k] = True
                pq = None
                if links.has_leave or aura_kind[kk]:
                    # (the position's penalty query: the same template, its wound cap
                    # set per game, P_N_PEN = cap + 1: the packing is the same)
                    pq = g.template(links, True, occ0, g.flags_static.copy(),
                                    np.zeros(n, T.INDEX), D.MAX_WOUNDS)._q
                    if pq.pblob is None or len(pq.zoc):  # pragma: no cover (huge)
                        pq = None
                if pq is not None:
                    p = pq.params.astype(np.int64).copy()
                    p[T.P_HAS_OCC] = 1
                    pblobs.append(np.asarray(pq.pblob, np.int32))
                    pparams.append(p)
                    leaves.append(np.zeros(0, np.uint64) if pq.leave is None else
                                  np.ascontiguousarray(pq.leave, np.uint64))
                    pen_ok[k] = True
                else:
                    pblobs.append(np.zeros(0, np.int32))
                    pparams.append(np.zeros(T.N_PARAMS, np.int64))
                    leaves.append(np.zeros(0, np.uint64))
                # the door steps, per node: (next node, doors the step opens)
                ptr = np.zeros(n + 1, np.int64)
                steps = sorted(links.door_steps.items())
                for (u, _), _ in steps:
                    ptr[u + 1] += 1
                dptr.append(np.cumsum(ptr))
                for (_, v), ds in steps:
                    dv_.append(v)
                    dbits.append(sum(1 << d for d in ds))
        self.shape_ok = shape_ok
        self.pen_ok = pen_ok
        self.has_leave = has_leave
        self.blob_at = np.cumsum([0] + [len(b) for b in blobs]).astype(np.int64)
        self.blobs = np.concatenate(blobs).astype(np.int32)
        self.qflags_at = np.cumsum([0] + [len(f) for f in qflags]).astype(np.int64)
        self.qflags = np.concatenate(qflags).astype(np.uint8)
        self.params = np.stack(params).astype(np.int64)
        self.plain = np.array(plain, np.bool_)
        self.pblob_at = np.cumsum([0] + [len(b) for b in pblobs]).astype(np.int64)
        self.pblobs = np.concatenate(pblobs).astype(np.int32)
        self.pparams = np.stack(pparams).astype(np.int64)
        self.leave_at = np.cumsum([0] + [len(x) for x in leaves]).astype(np.int64)
        self.leaves = np.concatenate(leaves).astype(np.uint64)
        self.dptr_at = np.cumsum([0] + [len(p) for p in dptr]).astype(np.int64)
        # (each shape's ptr counts from its own first entry: dstep_at is its offset)
        self.dstep_at = np.cumsum([0] + [int(p[-1]) for p in dptr]).astype(np.int64)
        self.dptr = np.concatenate(dptr).astype(np.int64)
        self.dstep_v = np.array(dv_, np.int64)
        self.dstep_bits = np.array(dbits, np.int64)
        # the penalty kernel's workspace: penalty levels for the largest wound cap a
        # move may ask (every enemy aura on one node), buckets for every shape
        aura_sum = max([int(aura[f].sum()) for f in range(F)] or [0])
        self.pen_levels = wound_cap(int(self.budget.max(initial=0)), aura_sum) + 1
        self.pnb = max(int(self.pparams[:, T.P_N_BUCKETS].max()), 8)
        self.n_max = int(self.kind_n.max())
        # per kind, node -> its squares padded to the widest base (-1: none): the
        # spaces of a place (self-play's removals and greedy distances)
        K = self.k_max = int(self.kind_k.max())
        pads = []
        for g in graphs:
            t = np.full((g.n, K), -1, np.int64)
            t[:, :g.k] = np.where(g.foot < ns, g.foot, -1)
            pads.append(t)
        self.space_at = np.cumsum([0] + [g.n for g in graphs]).astype(np.int64)
        self.space = np.concatenate(pads)
        self.nb = max(int(self.params[:, T.P_N_BUCKETS].max()), 8)
        # the nodes of kind kk next to a base of figure slot j in orientation o at
        # square a (``_KindGraph.adjacent_nodes``, as the position's grip and aura
        # layers count them): table adj_id[kk, j, o] (-1: none asked), a CSR over the
        # squares
        # (adj_ptr[adj_at[t] + a] .. adj_ptr[adj_at[t] + a + 1] into adj_nodes)
        self.adj_id = np.full((len(kinds), F, 2), -1, np.int64)
        tables: dict = {}
        ptrs, nodes, at, n_nodes = [], [], [0], 0
        for j in range(F):
            if not (grip[:, j].any() or aura[:, j].any()):
                continue
            w, h = self.size0[j]
            for o, size in enumerate([(w, h)] + ([(h, w)] if turns[j] else [])):
                for kk, g in enumerate(graphs):
                    if g.team == self.side[j]:
                        continue
                    t = tables.get((kk, size))
                    if t is None:
                        lists = [g.adjacent_nodes(size, a) for a in range(ns)]
                        ptr = np.cumsum([0] + [len(x) for x in lists]) + n_nodes
                        ptrs.append(ptr)
                        nodes.extend(lists)
                        n_nodes = int(ptr[-1])
                        at.append(at[-1] + len(ptr))
                        t = tables[(kk, size)] = len(tables)
                    self.adj_id[kk, j, o] = t
        self.adj_at = np.array(at, np.int64)
        self.adj_ptr = np.concatenate(ptrs).astype(np.int64) if ptrs else \
            np.zeros(1, np.int64)
        self.adj_nodes = np.concatenate(nodes).astype(np.int64) if nodes else \
            np.zeros(0, np.int64)
        # the kernel query of each slot at the root (the bench's "query" column)
        self.root_prepared = []
        for i, (mp, _, r) in zip(slots, parsed):
            ks = pos._kind_state(i, r, mp)
            if ks.stale:
                ks = pos._sync(ks)
            self.root_prepared.append(ks.prepared(mp)[0])

    def _doors_of_state(self, s: int) -> int:
        """The open-door bits of door state ``s`` (bit j of s: root-closed door j)."""
        out = self.doors0
        for j, k in enumerate(self.closed.tolist()):
            if s >> j & 1:
                out |= 1 << k
        return out

    # ------------------------------------------------------------------ per batch
    def bind(self, G) -> None:
        """Per-game state and per-thread scratch for the B games of ``G``."""
        from ...batch import per_thread, threads_or
        B = G.B
        self.sq = np.repeat(self.sq0[None], B, axis=0)
        self.doors = np.full(B, self.doors0, np.int64)
        #: uint8[B, F]: each figure's orientation (1: its base turned from the root's)
        self.orient = np.zeros((B, len(self.fids)), np.uint8)
        self.opened = np.zeros((B, G.n_places), np.int64)
        self.slow = np.zeros(B, np.bool_)
        self.last_fig = np.full(B, -1, np.int64)
        #: int64[B]: every game, the rows ``legal_games`` answers a chunk of
        self.all_rows = np.arange(B, dtype=np.int64)
        n_chunks = threads_or(G.threads, B)
        n = self.n_max
        # one kernel workspace per kind (its stamps are laid out by its node count: a
        # workspace shared by graphs of other sizes would read another's stale words)
        self.bufs = per_thread(n_chunks, (len(self.kind_n), fast_layout_size(n, self.nb)),
                               T.INDEX)
        for buf in self.bufs:
            buf[:, 2] = self.nb
        self.ends_s = per_thread(n_chunks, (len(self.kind_n), 3, n), T.INDEX)
        self.occ_s = per_thread(n_chunks, (n,), T.INDEX)
        any_pen = bool(self.pen_ok.any())
        Pa = self.pen_levels
        # (a penalty search's tree holds up to one row per state: 2 n Pa)
        self.tbits = per_thread(n_chunks, (2 * n * (Pa if any_pen else 1) + 8,), np.int64)
        #: per thread: the mover's cell flags with the grip layer (row 0) and the nodes
        #: next to an enemy grappler (row 1, zero between games)
        self.lay = per_thread(n_chunks, (2, n), np.uint8)
        #: per thread: one penalty-kernel workspace per kind (none without penalty
        #: shapes), the aura layer (int32[n], zero between games), the query's params
        pwords = pen_layout_size(n, Pa, self.pnb) if any_pen else 4
        self.pscr = []
        for c in range(n_chunks):
            pb = per_thread(1, (len(self.kind_n), pwords), T.INDEX)[0]
            pb[:, 2] = self.pnb
            pb[:, 3] = Pa
            self.pscr.append((pb, per_thread(1, (n,), T.INDEX)[0],
                              per_thread(1, (T.N_PARAMS,), np.int64)[0]))
        #: what :func:`legal_games` reads: the shapes and kinds, then the game's state
        self.tables = (self.blobs, self.blob_at, self.qflags, self.qflags_at, self.params,
                       self.plain, self.shape_ok, self.dptr, self.dptr_at, self.dstep_v,
                       self.dstep_bits, self.dstep_at, self.kind_n, self.kind_k,
                       self.foot, self.foot_at, self.lut, self.ice, self.ice_at,
                       self.slot_kind, self.budget, self.side, self.n_states, self.closed,
                       self.aura, np.zeros(0, np.uint64),
                       np.zeros((3, 0), np.int32),    # (tree mode: the tree is read)
                       np.zeros((0, 3), np.int64), self.sq, self.doors,
                       self.kind_nact, self.orient, self.grip, self.adj_id, self.adj_at,
                       self.adj_ptr, self.adj_nodes, self.pblobs, self.pblob_at,
                       self.pparams, self.leaves, self.leave_at, self.pen_ok,
                       self.has_leave, np.zeros((8, 0), np.int32))
        #: whether every move is answered on arrays (every shape a move may ask is
        #: packed): the compiled self-play step may play the games
        need_pen = self.has_leave | np.repeat(self.aura_kind, self.n_states)
        self.all_arrays = bool(((self.shape_ok | self.has_leave) &
                                (self.pen_ok | ~need_pen)).all())
        self.no_pen = np.zeros((0, 0), np.int32)

    def legal(self, G, figs, mask, cost, stop, penalty=None) -> np.ndarray:
        """Every game's answer for figure slot ``figs[b]`` (:func:`legal_games`, one
        compiled call per thread), each end's wounds into ``penalty`` (int32[B, >= P],
        zeros; None: not asked); returns the games a live position must answer (their
        rows cleared)."""
        B = G.B
        self.last_fig[:] = figs
        args = (self.tables, G.cell, G.alive, figs)
        outs = (mask, cost, stop, self.no_pen if penalty is None else penalty,
                self.opened, self.slow)
        n_chunks = len(self.bufs)
        kernel = legal_kernel()
        if n_chunks == 1:
            kernel(*args, self.all_rows, 0, B, self.bufs[0], self.ends_s[0], self.occ_s[0],
                   self.tbits[0], self.lay[0], self.pscr[0], *outs)
        else:
            from ...reach.compiled import hand_pool as _hand_pool

            def run(c):
                kernel(*args, self.all_rows, (B * c) // n_chunks, (B * (c + 1)) // n_chunks,
                       self.bufs[c], self.ends_s[c], self.occ_s[c], self.tbits[c],
                       self.lay[c], self.pscr[c], *outs)

            pool = _hand_pool(n_chunks - 1)
            futures = [pool.submit(run, c) for c in range(1, n_chunks)]
            run(0)
            for fu in futures:
                fu.result()
        return np.flatnonzero(self.slow)

    def move(self, G, rows, figs, to) -> None:
        """Games ``rows`` move ``figs`` to ``to`` (legal ends of the last
        :meth:`legal` answer): the squares of the base, the anchor (a turned base's
        too: its orientation flips), the doors the path opens."""
        if not np.array_equal(self.last_fig[rows], figs):  # pragma: no cover
            raise RuntimeError("movecore: a Descent batch moves the figures of its last "
                               "answer")
        slow = self.slow[rows]
        for b, f, a in zip(rows[slow].tolist(), figs[slow].tolist(), to[slow].tolist()):
            pos = G._live[b]          # (restored and asked by this answer)
            pos.apply_move(self.fids[f], a, **self.queries[f])
            self.opened[b, a] = sum(1 << k for k, o in enumerate(pos.door_open) if o)
        if not self.large:
            old = G.cell[rows, figs]
            self.sq[rows, old] = 0
            self.sq[rows, to] = (1 << self.side[figs]).astype(np.uint8)
            self.doors[rows] |= self.opened[rows, to]
            G.cell[rows, figs] = to
            return
        move_games(self.tables, G.cell, np.ascontiguousarray(rows, np.int64),
                   np.ascontiguousarray(figs, np.int64), np.ascontiguousarray(to, np.int64),
                   self.opened)

    def remove(self, G, games, figs) -> None:
        if not self.large:
            self.sq[games, G.cell[games, figs]] = 0
            return
        remove_games(self.tables, G.cell, np.ascontiguousarray(games, np.int64),
                     np.ascontiguousarray(figs, np.int64))

    def reset(self, G, sel) -> None:
        self.sq[sel] = self.sq0
        self.doors[sel] = self.doors0
        self.orient[sel] = 0

    def spaces(self, G, rows, slots=None, places=None) -> np.ndarray:
        """int64[..., K]: the squares (-1: none) of the bases at places of games
        ``rows`` (``BatchedGames.spaces``, validated there): the figures' own places
        (``[R, F, K]``), or ``places`` (int64[R, P], -1 none) as places of slots
        ``slots`` in their orientation in each game. K: the widest base's squares."""
        if places is None:
            F = len(self.fids)
            o = self.orient[rows]                                    # [R, F]
            kind = self.slot_kind[np.arange(F)[None], o]             # [R, F]
            p = G.cell[rows].astype(np.int64)
        else:
            o = self.orient[rows, slots]                             # [R]
            kind = np.broadcast_to(self.slot_kind[slots, o][:, None], places.shape)
            p = places
        ok = (p >= 0) & (p < self.kind_n[kind])
        out = self.space[self.space_at[kind] + np.where(ok, p, 0)]
        out[~ok] = -1
        return out

    def restore(self, pos, b: int, cell, alive) -> None:
        """Make ``pos`` (a copy of the root, or a position this made from one) equal to
        game ``b``: the doors, the figures' anchors and orientations, who is in
        play."""
        bits = int(self.doors[b])
        changed = False
        for k in range(len(pos.door_open)):
            o = bool(bits >> k & 1)
            if pos.door_open[k] != o:
                pos.door_open[k] = o
                changed = True
        if changed:
            pos._doors_changed()
        # every figure that moved, turned or left is lifted first, then the movers
        # placed (a figure may now stand where another one stood)
        moved = []
        orient = self.orient[b]
        for f, i in enumerate(self.slots):
            gone = not alive[f]
            w, h = self.size0[f]
            size = (h, w) if orient[f] else (w, h)
            if (gone and pos.alive[i]) or (not gone and (
                    pos.anchor[i] != int(cell[f]) or pos.size[i] != size)):
                old = pos.anchor[i]
                pos._update_kinds(i, pos._lift(i), old, -1)
                pos.anchor[i] = -1
                if gone:
                    pos.alive[i] = False
                else:
                    moved.append((i, int(cell[f]), size))
        for i, a, size in moved:
            if pos.size[i] != size:         # (a base turned: its kind is the other one)
                pos._own_figures()
                key = pos.fkey[i]
                pos.size[i] = size
                pos.fkey[i] = (key[0], size[0], size[1], key[3])
            pos._place(i, a)
        pos._last = None
        pos._touch()
        pos._undo_log = None       # (a view of one game: nothing to take back)


class _NotBatched(Exception):
    pass


def _door_vector(pos, team: int, opened: int) -> tuple:
    """The door vector of side ``team`` with the doors ``opened`` (bits) open (as
    :meth:`._doors._DoorStates._door_vectors`, the rune keys and unrevealed doors the
    root's: batched games change neither)."""
    from ._dungeon import OPEN, OPENABLE, SHUT
    out = []
    for k, door in enumerate(pos.st.dungeon.doors):
        if opened >> k & 1:
            out.append(OPEN)
        elif team == 0:
            out.append(OPENABLE if door.rune is None or door.rune in pos.rune_keys
                       else SHUT)
        else:
            out.append(OPENABLE if door.rune is None and not pos.door_unrevealed[k]
                       else SHUT)
    return tuple(out)


_RP = None          # the penalty kernel, bound by legal_kernel()
_MAX_WOUNDS = D.MAX_WOUNDS


@njit(inline="always")
def _wound_cap(mp, pen_max):
    """:func:`._layers.wound_cap`, compiled."""
    bound = mp * (1 + pen_max)
    cap = 1
    while cap < bound and cap < _MAX_WOUNDS:
        cap = 2 * cap + 1
    return min(cap, _MAX_WOUNDS)


@once
def legal_kernel():
    """:func:`legal_games` (its docstring below), compiled (or loaded from Numba's
    cache) on first use, with the penalty kernel it calls (:mod:`movecore.reach.compiled`;
    an edit of the kernels' files recompiles this one: movecore's cache stamp,
    ``movecore._dependency_files``)."""
    global _RP
    _RP = penalty_kernel()

    @njit(cache=T.CACHE, nogil=True)
    def legal_games(tables, cell, alive, figs, rows, lo, hi, bufs, ends_s, occ, tbits, lay,
                    pscr, mask, cost, stop, pen_out, opened, slow):
        (blobs, blob_at, qflags, qflags_at, params, plain, shape_ok, dptr, dptr_at,
         dstep_v, dstep_bits, dstep_at, kind_n, kind_k, foot, foot_at, lut, ice, ice_at,
         slot_kind, budget, side, n_states, closed, aura, no_zoc, tree_ends, no_queries,
         sq, doors, kind_nact, orient, grip, adj_id, adj_at, adj_ptr, adj_nodes, pblobs,
         pblob_at, pparams, leaves, leave_at, pen_ok, has_leave, rows_ends) = tables
        pbufs, penl, pp = pscr
        A = mask.shape[1]
        want_pen = pen_out.shape[0] > 0
        ns = sq.shape[1] - 1
        flags = lay[0]
        gripped = lay[1]
        for i in range(lo, hi):
            b = rows[i]
            for a in range(A):
                mask[b, a] = 0
                cost[b, a] = -1
                stop[b, a] = 0
            slow[b] = False
            f = figs[b]
            if f < 0:
                continue
            kk = slot_kind[f, orient[b, f]]
            s = 0
            for j in range(closed.shape[0]):
                if (doors[b] >> closed[j]) & 1:
                    s |= 1 << j
            k = kk * n_states + s
            n = kind_n[kk]
            # the grip layer (the nodes next to an enemy grappler in play; a node that
            # is ice too says grapple, as the position's stop codes) and the aura layer
            # (each enemy aura's wounds on the nodes next to it, summed)
            n_grip = 0
            n_aura = 0
            for j in range(grip.shape[1]):
                if not alive[b, j] or not (grip[f, j] or aura[f, j] > 0):
                    continue
                t = adj_id[kk, j, orient[b, j]]
                p = adj_at[t] + cell[b, j]
                if grip[f, j]:
                    for e in range(adj_ptr[p], adj_ptr[p + 1]):
                        gripped[adj_nodes[e]] = 1
                    n_grip += 1
                if aura[f, j] > 0:
                    w = aura[f, j]
                    for e in range(adj_ptr[p], adj_ptr[p + 1]):
                        penl[adj_nodes[e]] += w
                    n_aura += 1
            pen_max = 0
            if n_aura:
                for u in range(n):
                    pen_max = max(pen_max, penl[u])
            penalties = has_leave[k] or pen_max > 0
            if (penalties and not pen_ok[k]) or (not penalties and not shape_ok[k]):
                slow[b] = True          # (not packed: a position answers)
            else:
                # the mover's occupant layer over its kind's nodes, from the squares
                kf = kind_k[kk]
                f0 = foot_at[kk]
                start = cell[b, f]
                if kf > 1:
                    # a large base's own squares are free for its own move (as
                    # Position._reach_large): lifted while its layer is read
                    for j in range(kf):
                        sq[b, foot[f0 + start * kf + j]] = 0
                for u in range(n):
                    bits = 0
                    for j in range(kf):
                        bits |= sq[b, foot[f0 + u * kf + j]]
                    occ[u] = lut[kk, bits]
                if kf > 1:
                    for j in range(kf):
                        sq[b, foot[f0 + start * kf + j]] = 1 << side[f]
                    sq[b, ns] = 0           # (the pad column: always empty)
                nact = min(kind_nact[kk], A)  # the kind's action ids (turned bases too)
                qf = qflags[qflags_at[k]:qflags_at[k + 1]]
                plain_q = plain[k] and not penalties
                bud = budget[f]
                grappled = False
                if n_grip:
                    for u in range(qf.shape[0]):
                        flags[u] = qf[u] | (_CELL_STOP if gripped[u] else 0)
                    qf = flags[:qf.shape[0]]
                    plain_q = False
                    grappled = gripped[start] != 0
                    if grappled:
                        bud = 0             # (started next to a grappler: no MP spent)
                p0 = dptr_at[k]
                s0 = dstep_at[k]
                i0 = ice_at[kk]
                doors_on_way = dstep_at[k + 1] != s0
                if penalties:
                    # wounds are counted: the penalty kernel, its cap as the position's
                    # for this move (wound_cap of the MP and the game's aura layer)
                    for x in range(pp.shape[0]):
                        pp[x] = pparams[k, x]
                    pp[_P_N_PEN] = _wound_cap(budget[f], pen_max) + 1
                    buf = pbufs[kk]
                    nk = _RP(pblobs[pblob_at[k]:pblob_at[k + 1]], occ[:n], qf, no_zoc,
                             leaves[leave_at[k]:leave_at[k + 1]], penl[:n], pp, buf,
                             tree_ends if doors_on_way else rows_ends, no_queries, start,
                             bud)
                    ne = nk & 0xFFFFFFFF
                    nt = nk >> 32
                    N = np.int64(pblobs[pblob_at[k]])
                    SF = N * buf[3]
                    o_out = np.int64(_CTRL + 6 * SF + 2 * N + buf[2] * 2 * SF +
                                     buf[2] * 2 + 8 * N)
                else:
                    buf = bufs[kk]
                    blob = blobs[blob_at[k]:blob_at[k + 1]]
                    if not doors_on_way:
                        ends = ends_s[kk]
                    else:
                        ends = tree_ends
                    if plain_q:
                        nk = reach1_plain(blob, occ, qf, no_zoc, params[k], buf, ends,
                                          no_queries, start, bud)
                    else:
                        nk = reach1_general(blob, occ, qf, no_zoc, params[k], buf, ends,
                                            no_queries, start, bud)
                    ne = nk & 0xFFFFFFFF
                    nt = nk >> 32
                    N = np.int64(blob[0])
                    o_out = np.int64(_CTRL + 2 * N * 4 + N * 2 + buf[2] * 2 * N +
                                     buf[2] * 2)
                if nk < 0:                  # (cannot happen) a position answers
                    slow[b] = True
                elif not penalties and not doors_on_way:
                    # the ends alone (ends mode), no door opens
                    ends = ends_s[kk]
                    for i in range(ne):
                        c = ends[0, i]
                        if c == ns or c >= nact:  # the town (no move); no other node
                            continue
                        mask[b, c] = 1
                        cost[b, c] = ends[1, i]
                        stop[b, c] = 0 if plain_q or ends[2, i] == 0 else \
                            D_STOP_GRAPPLE if gripped[c] else ice[i0 + c]
                        opened[b, c] = 0
                else:
                    # the eight end fields (after the tree, or the rows mode's at the
                    # out block); with doors on the way, the doors opened along each
                    # tree row's path (parents come first)
                    base = o_out + 4 * nt if doors_on_way else o_out
                    for r in range(nt):
                        par = buf[o_out + 4 * r + 3]
                        if par < 0:
                            tbits[r] = 0
                            continue
                        u = buf[o_out + 4 * par]
                        v = buf[o_out + 4 * r]
                        got = tbits[par]
                        for e in range(dptr[p0 + u], dptr[p0 + u + 1]):
                            if dstep_v[s0 + e] == v:
                                got |= dstep_bits[s0 + e]
                        tbits[r] = got
                    for i in range(ne):
                        c = buf[base + i]
                        if c == ns or c >= nact:  # the town (no move); no other node
                            continue
                        mask[b, c] = 1
                        cost[b, c] = buf[base + ne + i]
                        stop[b, c] = 0 if buf[base + 2 * ne + i] == 0 else \
                            D_STOP_GRAPPLE if gripped[c] else ice[i0 + c]
                        if not penalties:
                            opened[b, c] = tbits[buf[base + 6 * ne + i]] if \
                                doors_on_way else 0
                            continue
                        if want_pen:
                            pen_out[b, c] = buf[base + 4 * ne + i]
                        # the reported path (Position.apply_move): the least-wound
                        # arrival's where it is among the cheapest, else the cheapest
                        if doors_on_way:
                            least = buf[base + 5 * ne + i] == buf[base + ne + i]
                            opened[b, c] = tbits[buf[base + (6 if least else 3) * ne + i]]
                        else:
                            opened[b, c] = 0
                if grappled:
                    stop[b, start] = D_STOP_GRAPPLED
            if n_grip:
                for u in range(n):
                    gripped[u] = 0
            if n_aura:
                for u in range(n):
                    penl[u] = 0
            if slow[b]:
                for a in range(A):
                    mask[b, a] = 0
                    cost[b, a] = -1
                    stop[b, a] = 0
                    if want_pen:
                        pen_out[b, a] = 0
        return 0

    return legal_games


legal_kernel.__doc__ += """
    ``legal_games(tables, cell, alive, figs, rows, lo, hi, bufs, ends_s, occ, tbits, lay,
    pscr, mask, cost, stop, pen_out, opened, slow)``: games ``b = rows[i]`` for ``lo <= i
    < hi`` (``rows`` int64: :attr:`_DescentBatch.all_rows` for a chunk of the batch, or
    the vector env's list of the games asking, ``_vecdescent_env``), figure slot
    ``figs[b]`` (-1: none): its ends in its kind for its orientation in that game (see
    the module docstring) into row ``b`` of ``mask``/``cost``/``stop`` (every column
    written), each end's wounds into ``pen_out[b]`` (int32[B, >= P], zeros; shape
    (0, 0): not asked) and, per end, the doors its reported path opens into
    ``opened[b]``; ``slow[b]`` = 1 (row cleared) where a live position must answer (a
    shape not packed). The nodes next to an enemy grappler in play stop a move
    (CELL_STOP; stop code 1) and a mover that starts on one spends no MP (its start's
    stop code 3); a move that may count wounds (a pit its kind can fall into under the
    game's door state, an enemy aura in play) runs the penalty kernel with the game's
    aura layer and the position's wound cap, its reported path the least-wound
    arrival's where that one is among the cheapest, as ``Position.legal_moves`` and
    ``apply_move``. ``tables``: :attr:`_DescentBatch.tables` (the game's ``sq`` and
    ``doors`` at 28, 29); ``bufs`` (one kernel workspace per kind), ``ends_s`` (one
    end block per kind), ``occ``, ``tbits``, ``lay`` (uint8[2, >= nodes], row 1 zero),
    ``pscr`` (``_DescentBatch.pscr``): one thread's scratch. (One loop over the games:
    the tables are unpacked once, not per game.)"""


@njit(inline="always")
def _move_one(tables, cell, b, f, a, opened):
    """Game ``b`` moves figure slot ``f`` to action ``a`` of its kind (a legal end):
    its base's squares leave ``sq`` and the new base's are written, the doors of
    ``opened[b, a]`` open, the anchor is written to ``cell`` and a turned base
    (``a > NS``) flips the figure's orientation. ``tables``:
    :attr:`_DescentBatch.tables`."""
    foot, foot_at, kind_k, slot_kind, side = tables[14], tables[15], tables[13], \
        tables[19], tables[21]
    sq, doors, orient = tables[28], tables[29], tables[31]
    ns = sq.shape[1] - 1
    kk = slot_kind[f, orient[b, f]]
    kf = kind_k[kk]
    f0 = foot_at[kk]
    c = cell[b, f]
    for j in range(kf):
        sq[b, foot[f0 + c * kf + j]] = 0
    for j in range(kf):
        sq[b, foot[f0 + a * kf + j]] = 1 << side[f]
    sq[b, ns] = 0                       # (the pad column: always empty)
    doors[b] |= opened[b, a]
    if a > ns:                          # the base turned (Position._turn)
        cell[b, f] = a - ns - 1
        orient[b, f] ^= 1
    else:
        cell[b, f] = a


@njit(inline="always")
def _remove_one(tables, cell, b, f):
    """Figure slot ``f`` leaves play in game ``b``: its base's squares are freed
    (``cell`` and ``alive`` are the caller's)."""
    foot, foot_at, kind_k, slot_kind = tables[14], tables[15], tables[13], tables[19]
    sq, orient = tables[28], tables[31]
    kk = slot_kind[f, orient[b, f]]
    kf = kind_k[kk]
    f0 = foot_at[kk]
    c = cell[b, f]
    for j in range(kf):
        sq[b, foot[f0 + c * kf + j]] = 0
    sq[b, sq.shape[1] - 1] = 0


@njit(cache=T.CACHE, nogil=True)
def move_games(tables, cell, rows, figs, to, opened):
    """Games ``rows[i]`` move figure slot ``figs[i]`` to action ``to[i]`` of its kind
    (:func:`_move_one`)."""
    for i in range(rows.shape[0]):
        _move_one(tables, cell, rows[i], figs[i], to[i], opened)
    return 0


@njit(cache=T.CACHE, nogil=True)
def remove_games(tables, cell, games, figs):
    """Figure slot ``figs[i]`` leaves play in game ``games[i]`` (:func:`_remove_one`)."""
    for i in range(games.shape[0]):
        _remove_one(tables, cell, games[i], figs[i])
    return 0
