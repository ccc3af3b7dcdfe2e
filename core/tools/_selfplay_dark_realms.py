"""The compiled self-play step of Dark Realms' batched arrays backend (issue 29).

:class:`movecore.tools.selfplay_batch.BatchedPlay` runs this step on Dark Realms' arrays
(every layout of :mod:`movecore.games.dark_realms._batch`): per step, the acting
figures' rolled queries are drawn for every game at once in array form
(``DarkRealmsGame.query_columns``: the same draws as the array path), their legal ends
come from one batched ``legal_moves`` over the arrays (heroes' card moves in the
batched kernel call, enemies' AI moves in the compiled enemy AI over the batch, any
other query on a restored position), and the rest of the step -- the policy's choice,
the move, the removal coin, the next actor and the restart of finished games -- is one
compiled call over the batch (:func:`dark_realms_chunk`), no longer numpy passes and
Python loops per step. Where every moving figure's rolled query stays in the compiled
scope (the bundled examples), the whole step runs instead per thread on its own chunk
of games (:func:`chunked_plan`, "the chunked step" below): no batched ``legal_moves``,
no numpy pass over the batch but the rolls' draw. Either way it makes exactly the
choices of ``BatchedPlay.step``'s array path for the same random numbers (the k-th
legal end in cell order, the k-th nearest-to-an-enemy end, the k-th adjacent enemy in
slot order; ``tests/test_batch_dark_realms.py``), with the self-play rules of
:func:`movecore.rl._vecgame.selfplay_step`.
"""
from __future__ import annotations

from time import perf_counter

import numpy as np
from numba import njit

from ..batch import ThreadChoice, entry_call, on_chunks, per_thread, summed
from ..games.dark_realms._batch_enemy import bits_of, grid_bits
from ..games.dark_realms._hero_bits import hero_bfs, hero_layer, hero_start, word_steps
from ..kernels._jit import NO_NRT
from ..rl._vecgame import (_play_move, _policy_pick, _selfplay_next_actor,
                           _selfplay_restart, _uniform)


# ------------------------------------------------------------------ the chunked step
# Where every moving figure's rolled query stays in the compiled scope (a hero's card
# move of its roll, an enemy's AI move on the compiled enemy AI), the whole step runs
# per thread on its own chunk of games (``lo <= b < hi``), three compiled calls in
# turn: the queries (:func:`dark_realms_queries`: the roll, a hero's ends by a
# breadth-first search, the enemies' games listed), the enemies' moves
# (``_batch_enemy.kernel()``, the enemy AI over the batch) and the rest of the step
# (:func:`dark_realms_chunk`). Python keeps only the roll's draw (numpy's generator:
# the same draws as the array path) and the hand-off. Nothing of the step is serial
# but that draw, and no [B, ...] numpy pass is made.


@njit(nogil=True)
def _grow_bits(b, f, start, fly, roll, cell, alive, bpos, shifts, pass_bits, reach,
               grow):
    """``reach[0]``: the spaces within ``roll`` steps of ``start`` through free ones
    (see :func:`dark_realms_queries`); ``reach[1]`` holds the free spaces."""
    r = reach[0]
    free = reach[1]
    hero_start(b, f, start, fly, cell, alive, bpos, pass_bits, r, free)
    small, sp, sn = word_steps(shifts)
    for _ in range(roll):
        if not hero_layer(r, free, grow[0], small, sp, sn, shifts):
            break


@njit(cache=True, nogil=True, **NO_NRT)
def dark_realms_queries(lo, hi, rolls, done, actor, hero, flying, cell, occ, nbr, passable,
                        may_end, mask, seen, queue, eg, es, em, use_bits, bpos, shifts,
                        pass_bits, end_bits, alive, reach, grow):
    """The acting figures' rolled queries of games ``lo <= b < hi`` (game ``b`` acts
    when not ``done`` with ``actor[b] >= 0``): the roll ``int(rolls[b] * 6) + 1`` (as
    ``DarkRealmsGame.query_columns``); a hero's (``hero[f]``) card move of that many
    steps is answered here into ``mask[b]`` (uint8[B, N], the row cleared first);
    every other figure's game is listed for the enemy AI: ``eg[:n]`` games, ``es[:n]``
    slots, ``em[:n]`` Moves. Returns n.

    A hero's card move in the compiled scope (allies not passed: every figure blocks;
    every step costs 1) is a breadth-first search from its space of ``roll`` steps
    through spaces with no figure that ``passable[fly]`` (uint8[2, N]: a walker never
    enters an obstacle, a flyer flies over one); its ends are the spaces reached that
    ``may_end[fly]`` (a flyer never ends on an obstacle), its own space among them: the
    batched kernel's mask for the figure's query shape (``tests/test_batch_dark_realms.py``
    compares them). ``nbr``: int32[N, K] (-1 = none); ``seen`` int32[N] (-1 between
    calls), ``queue`` int32[N]: workspace.

    With ``use_bits`` (:func:`grid_bits`: the board's neighbours are its grid's, so a
    step is a shift of a bit set over the padded grid), the search is a bit set grown
    a layer per step: the reach, shifted by every direction's ``shifts[d]`` (int64[D]:
    bit offsets), within the spaces free this move (``pass_bits[fly]``, uint64[2, W],
    less the other figures' spaces: every space a figure holds is one of the game's
    figures', ``alive``), until the roll or no growth; the ends are its bits in
    ``end_bits[fly]`` (uint64[2, W]: no obstacle) and the start. ``bpos``: int64[N],
    each space's bit; ``reach``, ``grow``: uint64[2, W] workspace."""
    N = occ.shape[1]
    n_e = 0
    for b in range(lo, hi):
        if done[b] or actor[b] < 0:
            continue
        f = actor[b]
        roll = np.int64(rolls[b] * 6.0) + 1
        for c in range(N):
            mask[b, c] = 0
        if not hero[f]:
            eg[n_e] = b
            es[n_e] = f
            em[n_e] = roll
            n_e += 1
            continue
        fly = np.int64(flying[f])
        start = cell[b, f]
        if use_bits:
            _grow_bits(b, f, start, fly, roll, cell, alive, bpos, shifts, pass_bits,
                       reach, grow)
            r = reach[0]
            e = reach[1]
            for w in range(r.shape[0]):
                e[w] = r[w] & end_bits[fly, w]
            ps = bpos[start]
            e[ps >> 6] |= np.uint64(1) << np.uint64(ps & 63)
            for c in range(N):
                p = bpos[c]
                mask[b, c] = np.uint8((e[p >> 6] >> np.uint64(p & 63)) & np.uint64(1))
            continue
        tail = hero_bfs(b, start, fly, roll, occ, nbr, passable, seen, queue)
        for i in range(tail):
            c = queue[i]
            seen[c] = -1
            if may_end[fly, c] or c == start:
                mask[b, c] = 1
    return n_e


@njit(cache=True, nogil=True, **NO_NRT)
def dark_realms_chunk(lo, hi, mask, occ, occ0, team, cell, alive, side_of, turn_sides,
                      movers, turn, actor, done, nbr, coords, kind, greedy, key, tick,
                      max_turns, cell0, dist, restarted, counts):
    """One move in every unfinished game ``lo <= b < hi`` from its legal ends
    ``mask[b]`` (see the module docstring), the step's random numbers drawn here
    (``_vecgame._uniform(key, (tick * B + b) * 3 + j)``: what ``BatchedPlay._uniforms``
    gives), then the games that finished restart at once (``restarted[b]`` True).
    ``counts``: move generations, moves, turns begun, games finished (added to)."""
    N = occ.shape[1]
    F = cell.shape[1]
    B = occ.shape[0]
    # (an int64 from the start: with the literal 0 Numba compiled the helpers
    # it is passed to a second time, for Literal[int](0))
    n_all_sides = np.int64(0)
    for f in range(F):
        n_all_sides = max(n_all_sides, side_of[f] + 1)
    for b in range(lo, hi):
        if done[b] or actor[b] < 0:
            continue
        f = actor[b]
        counts[0] += 1                      # a move generation
        row = mask[b]
        n = 0
        for c in range(N):
            n += row[c]
        i0 = (tick * B + b) * 3
        pick = _policy_pick(row, n, greedy, _uniform(key, i0), dist, coords, cell, alive,
                            side_of, kind, b, side_of[f])
        # the move and the removal coin (fewer than two sides left: the game is over)
        if pick >= 0 and _play_move(occ, cell, alive, team, nbr, side_of, n_all_sides,
                                    key, i0, b, f, pick, counts):
            done[b] = True
            continue
        _selfplay_next_actor(cell, alive, side_of, turn_sides, movers, turn, actor, done,
                             max_turns, n_all_sides, b, False, counts)
    for b in range(lo, hi):
        restarted[b] = done[b]
        if not done[b]:
            continue
        _selfplay_restart(occ, occ0, cell, cell0, alive, side_of, turn_sides, movers, turn,
                          actor, done, max_turns, n_all_sides, b, counts)
    return 0


def chunked_plan(play):
    """The chunked step's inputs for ``play`` (see above), or None where a moving
    figure's rolled query leaves the compiled scope: an enemy the compiled enemy AI
    does not answer, or a roll (1-6) above its Move or the die (the array path then
    answers those on live positions)."""
    G = play.games
    ai = G._compiled
    root = G.root
    if ai is None:
        return None
    scene = root.scene
    hero = np.array([root.side_of(f) == "hero" for f in G.ids], bool)
    moving = play.movers
    if ((moving & ~hero) & ~ai.slot_ok).any() or ai.top < 6 or root._faces < 6 or \
            scene.pass_allies or not moving.any():
        return None
    n = G.occ.shape[1]
    n_chunks = len(G._bufs)
    B = play.B
    obstacle = np.asarray(scene.obstacle, bool)
    passable = np.stack([~obstacle, np.ones(n, bool)]).astype(np.uint8)
    may_end = passable[[0, 0]].copy()         # neither ends on an obstacle
    flying = np.array([bool(G.root._fig(f).flying) for f in G.ids], bool)
    nbr = np.ascontiguousarray(root.board.nbr, np.int32)
    seen = [np.full(n, -1, np.int32) for _ in range(n_chunks)]
    queue = [np.zeros(n, np.int32) for _ in range(n_chunks)]
    lists = [(np.zeros(B, np.int64), np.zeros(B, np.int64), np.zeros(B, np.int64))
             for _ in range(n_chunks)]
    counts = per_thread(n_chunks, (4,), np.int64)
    dists = per_thread(n_chunks, (n,), np.int64)
    for c in range(1, n_chunks):
        ai._thread_args(c)          # (each thread's enemy AI scratch, made here)
    plan = dict(hero=hero, flying=flying, passable=passable, may_end=may_end, nbr=nbr,
                seen=seen, queue=queue, lists=lists, counts=counts, dists=dists,
                n_chunks=n_chunks, rolls=np.full(B, np.nan), acting=np.zeros(B, bool),
                restarted=np.zeros(B, bool),
                grid=grid_bits(root.board, G._occ0, G._cell0))
    plan.update(plan_bits(plan))
    return plan


def _bits(rows, bpos, W) -> np.ndarray:
    """uint64[len(rows), W]: each row's spaces (nonzero entries) as bits."""
    return bits_of(rows, bpos, W)


def plan_bits(plan) -> dict:
    """The bit sets of the plan's ``passable`` and ``may_end`` rows over its grid (none
    without one: the breadth-first search over the neighbour table)."""
    n_chunks = plan["n_chunks"]
    if plan["grid"] is None:
        z = np.zeros((2, 1), np.uint64)
        return dict(use_bits=False, bpos=np.zeros(1, np.int64),
                    shifts=np.zeros(0, np.int64), pass_bits=z, end_bits=z,
                    reach=[z.copy() for _ in range(n_chunks)],
                    grow=[z.copy() for _ in range(n_chunks)])
    bpos, shifts, W = plan["grid"]
    return dict(use_bits=True, bpos=bpos, shifts=shifts,
                pass_bits=_bits(plan["passable"], bpos, W),
                end_bits=_bits(plan["may_end"], bpos, W),
                reach=[np.zeros((2, W), np.uint64) for _ in range(n_chunks)],
                grow=[np.zeros((2, W), np.uint64) for _ in range(n_chunks)])


_ZERO = np.zeros((), np.int64)


def draw_rolls(play, plan) -> np.ndarray:
    """float64[B]: this step's roll draw of every acting game (NaN elsewhere), one draw
    of ``play.rng`` per acting game in game order: ``query_columns``' draws."""
    act = plan["acting"]
    # (into a kept row, against a 0-d zero: a Python 0 converted at every call and a
    # new array per operation were half of this draw's ~2 us at B = 1)
    np.greater_equal(play.actor, _ZERO, act)
    np.greater(act, play.done, act)           # (and not done)
    rolls = plan["rolls"]
    n = int(np.count_nonzero(act))
    if n == len(rolls):     # (every game acts, as most steps: no scatter)
        play.rng.random(out=rolls)
    else:
        rolls[act] = play.rng.random(n)
    return rolls


def _query_args(play, plan, c: int, rolls, lo: int, hi: int) -> tuple:
    """The arguments of :func:`dark_realms_queries` for chunk ``c``'s games ``lo <= b <
    hi`` on thread ``c``'s scratch."""
    G = play.games
    return (lo, hi, rolls, play.done, play.actor, plan["hero"], plan["flying"], G.cell,
            G.occ, plan["nbr"], plan["passable"], plan["may_end"], play._out[0],
            plan["seen"][c], plan["queue"][c], *plan["lists"][c], plan["use_bits"],
            plan["bpos"], plan["shifts"], plan["pass_bits"], plan["end_bits"], G.alive,
            plan["reach"][c], plan["grow"][c])


def _enemy_tail(play, c: int) -> tuple:
    """The compiled enemy AI's arguments after its games, slots and Moves, on thread
    ``c``'s scratch: the mask alone asked (no costs, stops or leaving attacks; the rows,
    no kept answer's lists: ``NO_LIST``)."""
    from ..games.dark_realms._batch_enemy import _NO_PEN, NO_COST, NO_LIST, NO_STOP
    G = play.games
    return (G.occ, G.cell, G.alive, *G._compiled._thread_args(c).values(), play._out[0],
            NO_COST, NO_STOP, _NO_PEN, False, *NO_LIST)


def _chunk_args(play, plan, c: int, kind: int, lo: int, hi: int) -> tuple:
    """:func:`dark_realms_chunk`'s arguments for chunk ``c``'s games ``lo <= b < hi``:
    those before the step's tick, and those after it."""
    G = play.games
    return ((lo, hi, play._out[0], G.occ, G._occ0, G.team, G.cell, G.alive, play.side_of,
             play.turn_sides, play.movers, play.turn, play.actor, play.done, play.nbr,
             play.coords, kind, play.policy == "greedy", play._key),
            (play.max_turns, G._cell0, plan["dists"][c], plan["restarted"],
             plan["counts"][c]))


def _answer(plan, c: int, qargs, enemy, etail, entries) -> int:
    """Chunk ``c``'s legal ends: :func:`dark_realms_queries` on ``qargs``, then the
    enemies it listed by ``enemy`` (the compiled enemy AI) on ``etail``
    (:func:`_enemy_tail`), each at its entry point after its first call
    (:func:`movecore.batch.entry_call`, kept in ``entries`` by (call, chunk)). Returns
    the enemy moves."""
    ne = entry_call(entries, (0, c), dark_realms_queries, qargs)
    if ne or qargs[0] == qargs[1]:   # (lo == hi: the load before the threads' first)
        eg, es, em = plan["lists"][c]
        st = entry_call(entries, (1, c), enemy, (eg[:ne], es[:ne], em[:ne], *etail))
        if st < 0:  # pragma: no cover (ends hold one column per cell)
            raise RuntimeError(f"movecore: batched enemy AI kernel status {st}")
    return ne


def answer_chunk(play, plan, c: int, rolls, lo=None, hi=None) -> int:
    """The legal ends of chunk ``c``'s acting figures for ``rolls`` (:func:`draw_rolls`)
    into ``play._out``'s mask (the mask alone: no costs or stops, the heroes' as the
    enemies'): the heroes' by :func:`dark_realms_queries`, the enemies' by the compiled
    enemy AI on thread ``c``'s scratch. Returns the enemy moves."""
    B, n_chunks = play.B, plan["n_chunks"]
    if lo is None:
        lo, hi = (B * c) // n_chunks, (B * (c + 1)) // n_chunks
    return _answer(plan, c, _query_args(play, plan, c, rolls, lo, hi),
                   play.games._compiled.ready(), _enemy_tail(play, c), {})


def _step_chunked(play, kind: int, plan) -> int:
    G = play.games
    B = play.B
    n_chunks = plan["n_chunks"]
    rolls = draw_rolls(play, plan)
    tick = int(play._tick[0])
    answered = [0] * n_chunks
    calls = plan.get("calls")
    if calls is None:
        # every chunk's arguments, built once (its arrays are the play's, the plan's
        # and the enemy AI's, never replaced): the step's tick alone changes
        G._compiled.ready()     # (the enemy AI's kept answers made: its args final)
        cuts = [((B * c) // n_chunks, (B * (c + 1)) // n_chunks) for c in range(n_chunks)]
        calls = plan["calls"] = [
            (_query_args(play, plan, c, rolls, lo, hi), _enemy_tail(play, c),
             *_chunk_args(play, plan, c, kind, lo, hi)) for c, (lo, hi) in enumerate(cuts)]
        # (and every game in chunk 0's calls, on the calling thread: where the threads
        # measure slower, ``batch.ThreadChoice``)
        plan["whole"] = (_query_args(play, plan, 0, rolls, 0, B), _enemy_tail(play, 0),
                         *_chunk_args(play, plan, 0, kind, 0, B))
        plan["choice"] = ThreadChoice()
    # after the first step, each chunk's three compiled calls at their entry points
    # (movecore.batch.entry_call: the dispatcher typed their ~25-60 arguments at every
    # call, ~3 us of a step), kept by (call, chunk)
    entries = plan.setdefault("entries", {})
    ai = G._compiled.ready()

    def run(c, call=None):
        qargs, etail, head, tail = calls[c] if call is None else call
        answered[c] = _answer(plan, c, qargs, ai, etail, entries)
        tail[-1].fill(0)      # (the chunk's counters)
        entry_call(entries, (2, c), dark_realms_chunk, (*head, tick, *tail))

    if n_chunks > 1 and not plan.get("loaded"):
        # the compiled calls made (or loaded from the cache) once on this thread, on
        # no game, before the threads call them at once: two threads' first calls
        # would each load them, and the code one of them loads is thrown away
        answer_chunk(play, plan, 0, rolls, 0, 0)
        head, tail = _chunk_args(play, plan, 0, kind, 0, 0)
        dark_realms_chunk(*head, tick, *tail)
        plan["loaded"] = True
    counts = plan["counts"]
    if n_chunks == 1:
        run(0)
    else:
        choice = plan["choice"]
        split = choice.use_split()
        t0 = perf_counter()
        if split:
            on_chunks(B, n_chunks, lambda c, lo, hi: run(c))   # (its bounds: calls[c])
        else:
            run(0, plan["whole"])
            counts = counts[:1]     # (a whole call writes chunk 0's counters alone)
        choice.took(split, perf_counter() - t0)
    play._tick[0] += 1
    G._compiled.answered += sum(answered)
    gens, moves, turns, games = summed(counts)
    if games and G._live:   # (live positions a caller's own queries made: a restarted
        for b in np.flatnonzero(plan["restarted"]).tolist():   # game's figures come
            G._live.pop(b, None)                               # back, as ``G.reset``
    return play._tally(gens, moves, turns, games)


def step(play, kind: int) -> int:
    """``BatchedPlay``'s step on Dark Realms' arrays (``play.fused``): in chunks of
    games per thread where the moving figures' queries stay in the compiled scope (see
    "the chunked step" above); else the rolled queries in array form and one batched
    ``legal_moves``, then the rest of the step in one compiled call over the batch
    (:func:`dark_realms_chunk`). ``kind``: the grid distance code of
    ``selfplay_step``."""
    plan = getattr(play, "_drplan", False)
    if plan is False:
        plan = play._drplan = chunked_plan(play) if play.chunked else None
    if plan is not None:
        return _step_chunked(play, kind, plan)
    G = play.games
    fz = getattr(play, "_fz", None)
    if fz is None:
        fz = play._fz = (np.zeros(4, np.int64), np.zeros(play.B, bool),
                         np.zeros(len(play.coords), np.int64))
    counts, restarted, dist = fz
    act = np.where(play.done, -1, play.actor)
    mask = G.legal_moves(act, queries=play._rolled_queries(act), out=play._out)[0]
    counts[:] = 0
    dark_realms_chunk(0, play.B, mask, G.occ, G._occ0, G.team, G.cell, G.alive,
                      play.side_of, play.turn_sides, play.movers, play.turn, play.actor,
                      play.done, play.nbr, play.coords, kind, play.policy == "greedy",
                      play._key, int(play._tick[0]), play.max_turns, G._cell0, dist,
                      restarted, counts)
    play._tick[0] += 1      # (the step's numbers: ``BatchedPlay._uniforms``')
    if G._live:       # (a restarted game's figures come back: as ``G.reset``)
        for b in np.flatnonzero(restarted).tolist():
            G._live.pop(b, None)
    gens, moves, turns, games = counts.tolist()
    return play._tally(gens, moves, turns, games)
