"""``movecore bench --batch``: batched self-play against the kernel, per game.

For each game's first bundled scenario with two sides: batched random self-play
(:class:`movecore.tools.selfplay_batch.BatchedPlay`) moves/s for B = 1, 64, 1,024 and 4,096 on
1 and 2 threads, beside ``reach_many`` (1 thread) queries/s on the same board from a
fixed sample of the figures' cells (the kernel alone: a plain prepared query whose budget
is the figure's: :func:`_reference`), and the per-position self-play loop (:func:`movecore.tools.selfplay.run_selfplay`,
one core). A batched move is one acting figure's legal ends, the policy's choice, the move
and its consequences; ``move / query`` is what it costs over one kernel query. Beside
them, the Gymnasium vector environment (:func:`movecore.rl.vector_env`, with the ``rl``
extra) on the same scenario: env steps/s (one learner move, its consequences, the
opponents' moves until the learner acts again, the observations and masks of every game)
for B = 64 and 1,024 on 1 and 2 threads, the step call alone (the actions are picked
outside the clock); and the target's move, "mask, choice, apply, observation": the figure
moves the vector env plays per second at B = 1,024 on 1 thread (the learners' and the
opponents'; every game's observation and mask drawn at every env step, ``copy=True``,
and again with the kept observations, ``copy=False``), over one kernel query. Then the
resident memory of B = 4,096 games of the game's largest
bundled scenario. The load average is printed with the table: the 2-thread figures mean
little on a loaded machine.

All numbers of one game come from one run, in rounds taken in turn (:data:`BENCH`: at
least 7 rounds of at least 30 ms each, a new seeded order every pass): the 1- and 2-thread
plays of one B and the reference query, so that a burst of load, or a spell of sharing a
core with another process, falls on all of them alike (measured one after the other, a
single 0.1 s burst on a sandboxed machine moved the 2-thread/1-thread ratio from 1.9x to
1.2-1.3x). Moves/s and queries/s are the **median** round's; ``move / query`` is the
median over **paired rounds** (a play's round over the reference round of the same pass,
as long as it) by wall clock and by process CPU time, with the quartiles. The reference
query's starts are a fixed sample, not the cells of whatever game the run stopped at.
The machine is shared: on a core shared with another process a round's wall time doubles
or triples while its CPU time does not (docs/performance_log.md, "The bench's two speeds");
the row prints the share of wall time the process ran.

Where the whole step is one compiled call of several steps (every game but Dark
Realms), the 2-thread figure is also taken for ``BatchedPlay.steps``: several steps a
call, one hand-off to the pool's threads for them all (what ``run`` and ``movecore
selfplay --batch`` play by, while enough games are left to finish).

**2 threads over 1** (``BatchedPlay`` at the largest B, the vector env at B = 1,024) is
taken in :data:`THREAD_WINDOWS` windows spread over the run: the game's own rounds, then
as many passes over every game once the last game's rounds are taken (the same plays and
envs, only their 1- and 2-thread rounds, in turn as above). Per window the median of its
paired rounds (a 2-thread round's units/s over the 1-thread round's of the same pass);
the figure is the median of the windows' (:func:`_over_windows`), printed with each
window's and the quartiles of all paired rounds. A spell of a second or two in which
the second core is taken (another process, likely) leaves the 1-thread rounds at full
speed and the 2-thread rounds at about one core's, for every round of a window: one
process read 1.10-1.18x in one game where the same game read 1.7x in its other runs
(docs/performance_log.md, "The bench's 2-thread figure"). So every round also records how
long the process's threads waited for a core they were ready to run on (run-queue waits
and the hypervisor's steal, :func:`_waited`), and a window whose threads waited more
than :data:`SPELL` of their time measured the machine, not the step: it is printed in
brackets, not counted, and retaken in up to :data:`RETAKES` further passes over the
games that have one. The choice reads only the machine's waits, never the ratios. The
env windows replay the same seeded games (``_env_steps_per_s`` resets them); the plays
go on with theirs. The rows are printed once every window is taken.
"""
from __future__ import annotations

import time
from typing import NamedTuple

import numpy as np


BATCHES = (1, 64, 1024, 4096)
ENV_BATCHES = (64, 1024)
#: the reference query's start sample: the figures' cells in REF_GAMES seeded games after
#: REF_STEPS steps (see _reference)
REF_GAMES, REF_STEPS, REF_QUERIES = 64, 16, 4096


class Schedule(NamedTuple):
    """How :func:`_interleaved` takes its rounds. ``min_rounds``: rounds each contestant
    gets at least (medians and quartiles need a few). ``round_seconds``: a play's or
    env's round goes on (whole steps) until it has lasted that long, besides its ~4,096
    moves. ``shuffle``: each pass takes the contestants in a new order (seeded). On a
    core shared with another busy process the scheduler runs this one in slices of a few
    ms: rounds much shorter than a slice, always taken in one order, lock onto the slices
    (the first of a pass runs at full speed, the last waits), and their wall-clock ratios
    read 3x off; long rounds in shuffled order see the same share of the core."""
    min_rounds: int = 1
    round_seconds: float = 0.0
    shuffle: bool = False


#: ``movecore bench --batch``'s schedule
BENCH = Schedule(min_rounds=7, round_seconds=0.03, shuffle=True)

#: windows of the 2-thread / 1-thread figures: the game's own rounds, then one pass over
#: every game per further window (see the module docstring); an odd count, so that the
#: median is a window's figure
THREAD_WINDOWS = 3
#: the further windows' schedule: :data:`BENCH`'s with 5 rounds (the 1- and 2-thread
#: plays or envs alone; the window's figure is the median of its paired rounds)
WINDOW = BENCH._replace(min_rounds=5)
#: a window whose threads waited for a core more than this share of their time (run-queue
#: waits and the hypervisor's steal, :func:`_waited`) measured the machine, not the
#: step: it is printed but not counted, and a further window is taken in its place
SPELL = 0.10
#: at most this many further passes retake such windows (where every window of a figure
#: waited, the figure is the median of them all, and the row says so)
RETAKES = 3


class Figures(NamedTuple):
    """One contestant's figures from :func:`_interleaved`: ``best`` the best round's
    units/s (wall clock); ``cpu`` and ``busiest`` the process's and its busiest thread's
    CPU seconds per unit in the median round (a round that compiled a kernel on its first
    use, or met a burst, moves a median little and a total much); ``rounds`` one
    ``(units, wall, cpu, main)`` per round, round k of every contestant from the same
    pass."""
    best: float
    cpu: float
    busiest: float
    rounds: list

    @property
    def median(self) -> float:
        """The median round's units/s (wall clock)."""
        return float(np.median([u / w for u, w, *_ in self.rounds if u]))

    @property
    def share(self) -> float:
        """This thread's CPU seconds over the wall seconds of all rounds: ~1 where it ran
        alone on a core; ~0.5 where it shared one with another busy process (a 1-thread
        contestant's wall figures are then halved, its CPU figures not)."""
        return sum(r[3] for r in self.rounds) / max(sum(r[1] for r in self.rounds), 1e-12)


def _env_steps_per_s(envs, min_time: float, extra=(), schedule: Schedule = Schedule(),
                     pace=None) -> list:
    """Env steps/s of ``envs.step`` (B per call) for each vector env of ``envs`` (the same
    scenario on 1 and 2 threads, or kept observations), the step alone: each step's
    actions (a random legal action per game) are picked before its clock starts; rounds
    of about 4,096 env steps (and at least ``schedule.round_seconds`` of steps), the
    envs' rounds and ``extra``'s taken in turn (:func:`_interleaved`) over at least
    ``min_time`` seconds per env. ``extra``: ``one_round(seconds)`` callables, one
    contestant each (:func:`_query_round`'s), the k-th asked for a round as long as env
    ``pace[k]``'s latest one (default the first env's). One ``(Figures, moves)`` per
    env: ``moves`` the figure moves played in each round (the learners' and the
    opponents': ``envs.counts["moves"]``; None on the positions backend); then one
    :class:`Figures` per ``extra``."""
    rngs = [np.random.default_rng(1) for _ in envs]
    for e, rng in zip(envs, rngs):
        e.reset(seed=1)
        for _ in range(2):
            e.step(_random_actions(e, rng))
    moves = [[] for _ in envs]
    last = [0.0] * len(envs)    # the wall seconds of each env's latest round
    pace = pace or [0] * len(extra)

    def one_round(i):
        if i >= len(envs):
            return extra[i - len(envs)](last[pace[i - len(envs)]])
        e = envs[i]
        dt = cpu = main = 0.0
        steps = 0
        m0 = e.counts["moves"]
        lost0 = _waited()
        while steps < max(1, 4096 // e.num_envs) or dt < schedule.round_seconds:
            a = _random_actions(e, rngs[i])
            c0, t1 = time.process_time(), time.thread_time()
            t0 = time.perf_counter()
            e.step(a)
            dt += time.perf_counter() - t0
            cpu += time.process_time() - c0
            main += time.thread_time() - t1
            steps += 1
        moves[i].append(None if m0 is None else e.counts["moves"] - m0)
        last[i] = dt
        # (the wait counts the picks of actions between steps too: they run on this
        # thread alone and take a small share of the round)
        return steps * e.num_envs, dt, cpu, main, _waited() - lost0

    got = _interleaved(len(envs) + len(extra), one_round, min_time, schedule,
                       seconds=len(envs) * min_time)
    return [(f, None if None in m else m) for f, m in zip(got, moves)] + got[len(envs):]


def _random_actions(envs, rng):
    m = envs._mask
    return (rng.random(m.shape, np.float32) * m).argmax(1)


def _interleaved(n: int, one_round, min_time: float, schedule: Schedule = Schedule(),
                 seconds: float | None = None) -> list:
    """Rounds of ``n`` contestants taken in turn (``one_round(i)`` -> units, wall
    seconds, process CPU seconds, this thread's CPU seconds): passes of one round each,
    in order or (``schedule.shuffle``) in a seeded random order per pass, until
    ``seconds`` (default ``n * min_time``) have passed and every contestant has
    ``schedule.min_rounds`` rounds and a figure. A burst of load on a shared machine then
    falls on every contestant alike, and the ratio of their figures holds far better
    than that of figures measured one after the other. One :class:`Figures` per
    contestant (the best round's units/s, the median round's CPU seconds per unit of the
    process and of its busiest thread: this one, or the others together; every round)."""
    rounds = [[] for _ in range(n)]
    order = np.arange(n)
    rng = np.random.default_rng(0)
    t_end = time.perf_counter() + (n * min_time if seconds is None else seconds)
    while True:
        if schedule.shuffle:
            rng.shuffle(order)
        for i in order.tolist():
            rounds[i].append(tuple(one_round(i)))
        if time.perf_counter() >= t_end and len(rounds[0]) >= schedule.min_rounds and \
                all(any(r[0] for r in rs) for rs in rounds):
            out = []
            for rs in rounds:
                best = max(u / w for u, w, *_ in rs if u)
                cpu = np.median([c / u for u, _, c, *_ in rs if u])
                busiest = np.median([max(m, c - m) / u for u, _, c, m, *_ in rs if u])
                out.append(Figures(best, float(cpu), float(busiest), rs))
            return out


def _paired(figs: Figures, ref: Figures, moves=None) -> dict:
    """``figs``' cost per unit over the reference's per query, round by round (round k
    of each comes from the same pass of :func:`_interleaved`): per round, seconds per
    move over seconds per query, by wall clock and by process CPU time. ``moves``: the
    units to count instead of ``figs``' own (the vector env's figure moves per round).
    ``{"wall": (median, lower quartile, upper quartile), "cpu": (...), "n": rounds}``;
    rounds with no units are left out."""
    moves = [r[0] for r in figs.rounds] if moves is None else moves
    wall, cpu = [], []
    for (u, w, c, *_), m, (q, qw, qc, *_) in zip(figs.rounds, moves, ref.rounds):
        if m and q:
            wall.append((w / m) / (qw / q))
            cpu.append((c / m) / (qc / q))
    return {"wall": _quartiles(wall), "cpu": _quartiles(cpu), "n": len(wall)}


def _quartiles(xs) -> tuple:
    """(median, lower quartile, upper quartile) of ``xs``; NaNs where it is empty."""
    if not len(xs):
        return (float("nan"),) * 3
    q1, med, q3 = np.percentile(xs, (25, 50, 75))
    return float(med), float(q1), float(q3)


def _waited() -> float:
    """Seconds this process's threads have waited so far for a core they were ready to
    run on: their run-queue waits (Linux, ``/proc/self/task/*/schedstat``) and the
    hypervisor's steal time on the cores this process may use (``/proc/stat``; the
    vCPU taken from under whatever ran on it). A difference of two calls is a round's
    wait: near 0 on a free machine, about half a 2-thread round's thread time where
    another process holds one of two cores. 0.0 where neither can be read."""
    import os
    ns = 0
    try:
        for task in os.listdir("/proc/self/task"):
            try:
                with open(f"/proc/self/task/{task}/schedstat") as f:
                    ns += int(f.read().split()[1])
            except (OSError, IndexError, ValueError):     # (a thread that just ended)
                pass
    except OSError:
        pass
    steal = 0
    try:
        cpus = {f"cpu{c}" for c in os.sched_getaffinity(0)}
        with open("/proc/stat") as f:
            for line in f:
                field = line.split()
                if field and field[0] in cpus and len(field) > 8:
                    steal += int(field[8])
        steal /= os.sysconf("SC_CLK_TCK")
    except (OSError, AttributeError, ValueError):
        steal = 0
    return ns * 1e-9 + steal


def _thread_ratio(one: Figures, two: Figures) -> dict:
    """2 threads over 1, round by round (round k of each from the same pass of
    :func:`_interleaved`): by wall, the 2-thread round's units/s over the 1-thread
    round's; by CPU, the 1-thread round's process CPU seconds per unit over the 2-thread
    round's busiest thread's (what two free cores would give: CPU time does not count
    the waits of a thread that shares a core). ``{"wall": (median, lower quartile, upper
    quartile), "cpu": (...), "n": rounds, "rounds": [wall ratio per round], "waited":
    share}``, ``share`` the larger of the 1-thread rounds' and the 2-thread rounds'
    waits for a core (:func:`_waited`, the rounds' 5th field; 0 where they have none)
    over their thread time (one thread's wall, or two threads'); rounds where either
    has no units are left out."""
    wall, cpu = [], []
    for (u1, w1, c1, *_), (u2, w2, c2, m2, *_) in zip(one.rounds, two.rounds):
        if u1 and u2:
            wall.append((u2 / w2) / (u1 / w1))
            cpu.append((c1 / u1) / (max(m2, c2 - m2) / u2))
    waits = lambda rounds, threads: (  # noqa: E731
        sum(r[4] for r in rounds if len(r) > 4) /
        max(threads * sum(r[1] for r in rounds), 1e-12))
    return {"wall": _quartiles(wall), "cpu": _quartiles(cpu), "n": len(wall),
            "rounds": wall, "waited": max(waits(one.rounds, 1), waits(two.rounds, 2))}


def _over_windows(windows) -> dict:
    """The 2-thread figure over :func:`_thread_ratio`'s ``windows`` (one per window, in
    the order taken): ``"wall"`` and ``"cpu"`` the median of the counted windows'
    medians: those whose threads waited for a core at most :data:`SPELL` of their time
    (every window where none did so little; with three, a window that met a spell
    nothing measured still moves the figure to the nearer of the other two, not below
    them). ``"windows"`` each window's wall median, ``"waited"`` each one's share of
    waits, ``"counted"`` whether it counts, ``"rounds"`` the (median, lower, upper
    quartile) of every paired round of the counted windows, ``"n"`` their count."""
    counted = [w.get("waited", 0.0) <= SPELL for w in windows]
    if not any(counted):
        counted = [True] * len(windows)
    use = [w for w, c in zip(windows, counted) if c]
    rounds = [r for w in use for r in w["rounds"]]
    return {"wall": float(np.median([w["wall"][0] for w in use])),
            "cpu": float(np.median([w["cpu"][0] for w in use])),
            "windows": [w["wall"][0] for w in windows],
            "waited": [w.get("waited", 0.0) for w in windows], "counted": counted,
            "rounds": _quartiles(rounds), "n": len(rounds)}


def _windows_short(windows) -> int:
    """How many more windows :func:`_over_windows` needs for :data:`THREAD_WINDOWS`
    counted ones (windows that waited for a core at most :data:`SPELL`)."""
    return max(0, THREAD_WINDOWS - sum(w.get("waited", 0.0) <= SPELL for w in windows))


def _vector_env(scenario, B: int, threads: int, copy: bool = True):
    try:
        import movecore.rl as rl
        return rl.vector_env(scenario, num_envs=B, threads=threads, copy=copy)
    except ImportError:       # no rl extra: no vector environment column
        return None


def _moves_per_s(plays, min_time: float, extra=(), schedule: Schedule = Schedule(),
                 per_call: int = 1) -> list:
    """Moves/s of ``play.step()`` (``per_call`` > 1: ``play.steps(per_call)``, that many
    steps a call) for each of ``plays`` (the same games on 1 and 2
    threads): rounds of about 4,096 moves (and at least ``schedule.round_seconds`` of
    steps), the plays' rounds and ``extra``'s (as in :func:`_env_steps_per_s`, asked for
    rounds as long as the first play's latest one) taken in turn (:func:`_interleaved`)
    over at least ``min_time`` seconds per play, after a warm-up. One :class:`Figures`
    per play, then per ``extra``: the process's CPU seconds per move, and its busiest
    thread's (the calling thread, or the others together: with 2 threads, the pool's
    one), which a loaded machine inflates far less than wall time. The warm-up takes
    a play's calls past their first try of the other thread way (``ThreadChoice``:
    after its first calls, a few calls of the other way; a try a few thousand calls
    apart after that)."""
    from ..batch import ThreadChoice
    for play in plays:
        for _ in range(ThreadChoice.WARM + ThreadChoice.PROBE + 1):
            play.step() if per_call == 1 else play.steps(per_call)
    last = [0.0]                # the wall seconds of the first play's latest round

    def one_round(i):
        if i >= len(plays):
            return extra[i - len(plays)](last[0])
        play = plays[i]
        n = steps = 0
        lost0 = _waited()
        c0, m0 = time.process_time(), time.thread_time()
        t0 = time.perf_counter()
        while True:
            n += play.step() if per_call == 1 else play.steps(per_call)
            steps += per_call
            dt = time.perf_counter() - t0
            if steps >= max(1, 4096 // play.B) and dt >= schedule.round_seconds:
                break
        if i == 0:
            last[0] = dt
        return (n, dt, time.process_time() - c0, time.thread_time() - m0,
                _waited() - lost0)

    return _interleaved(len(plays) + len(extra), one_round, min_time, schedule,
                        seconds=len(plays) * min_time)


def _reference(game: str, scenario, play):
    """The reference query of ``game``'s row: ``(prepared query, starts, budget)``, for
    ``prepared.reach_many(starts, budget, threads=1)`` (the kernel alone, an empty
    board: the plain prepared query of the board and budget the batch asks). The starts
    are int64[REF_QUERIES] cells, the same in every run: the cells of every live figure
    of REF_GAMES seeded games (seed 1, one thread) after REF_STEPS steps, repeated; not
    the cells of whatever game a timed run stopped at (a handful of cells: their reach,
    and with it the query's cost, moved by up to 1.65x with the stopping point). Where
    the batch's budget is rolled (Dark Realms) or figures take two spaces (Heroscape):
    a plain prepared query on the root position's board from its figures' cells, with
    its first mover's largest legal cost as the budget. ``play``: a
    :class:`~movecore.tools.selfplay_batch.BatchedPlay` of ``scenario`` (which backend)."""
    from . import selfplay as sp
    from .selfplay_batch import BatchedPlay
    G = play.games
    if G.backend == "arrays" and G._budget[0] >= 0 and not G.multi_space:
        sample = BatchedPlay(game, scenario, REF_GAMES, seed=1, threads=1)
        for _ in range(REF_STEPS):
            sample.step()
        S = sample.games
        prep = S._layout.shapes[0]
        budget = int(S._budget[0])
        starts = S.cell[S.alive]
    else:
        from .bench_games import _plain_board
        from ..mover import Mover
        from ..reach import prepare
        pos = G.root
        f = G.ids[int(np.flatnonzero(play.movers)[0])]
        q = play.queries[G.ids.index(f)] if play.queries is not None else \
            play.g.query(pos, f, np.random.default_rng(0))
        m = pos.legal_moves(f, **q)
        board = _plain_board(pos, f, play.kind)
        budget = max(int(m.costs.max()), 1)
        prep = prepare(board, Mover(), budget)
        cells = [board.find(tuple(sp._cells(pos.where(g))[0].tolist()))
                 for g in pos.figures if not isinstance(pos.where(g), str)]
        starts = np.array([c for c in cells if c >= 0], np.int64)
    starts = np.resize(np.asarray(starts, np.int64), REF_QUERIES)
    prep.reach_many(starts, budget, threads=1)       # (its workspace, before the clock)
    return prep, starts, budget


def _query_round(ref):
    """Rounds of the reference query (``_reference``'s triple): ``one_round(seconds)``
    calls ``reach_many`` over its starts until ``seconds`` of wall time have passed (at
    least once) and reports the round as :func:`_interleaved`'s ``one_round`` does.
    The callers ask for as long as the round it pairs with took: on a core shared with
    another process a round of 1 ms mostly runs inside one time slice, at full speed,
    while a round of 80 ms runs at the share the scheduler gives (half, a third), so
    rounds of unequal length would see different machines."""
    prep, starts, budget = ref

    def one_round(seconds: float = 0.0):
        n = 0
        lost0 = _waited()
        c0, m0 = time.process_time(), time.thread_time()
        t0 = time.perf_counter()
        while True:
            prep.reach_many(starts, budget, threads=1)
            n += len(starts)
            dt = time.perf_counter() - t0
            if dt >= seconds:
                return (n, dt, time.process_time() - c0, time.thread_time() - m0,
                        _waited() - lost0)
    return one_round


def batch_report(games=None, min_time: float = 0.3, selfplay_games: int = 200,
                 batches=BATCHES, log=print) -> dict:
    """Print and return the batched self-play table (see the module docstring)."""
    from .selfplay import GAMES, example_scenarios, run_selfplay
    from .selfplay_batch import BatchedPlay
    out = {}
    import os
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    log(f"[batch] load average {'/'.join(f'{x:.2f}' for x in load) if load else '?'} "
        f"({os.cpu_count()} cores)", flush=True)
    out["load"] = load
    try:
        from ..rl import _rl_extra
        _rl_extra()
    except ModuleNotFoundError as x:     # (said once; the rows are left out below)
        log(f"[batch] the vector env rows are left out: {x}", flush=True)
    Bl, Be = batches[-1], ENV_BATCHES[-1]
    # per game, the 1- and 2-thread plays at B = Bl and envs at B = Be, kept for the
    # further windows of their 2-thread figure, beside their windows' _thread_ratio's
    kept = {}
    for game in games or GAMES:
        scen = example_scenarios(game)
        name, scenario = scen[0]
        log(f"[batch] {game} ({name}), with window 1 of its 2 threads / 1 ...", flush=True)
        row = {"scenario": name}
        play = BatchedPlay(game, scenario, 1, seed=1, threads=1)
        row["backend"] = play.games.backend
        row["why"] = play.games.why
        # the reference query: a contestant of every group of rounds below, so that each
        # play's (and env's) rounds pair with reference rounds taken beside them
        ref_round = _query_round(_reference(game, scenario, play))
        refs = []
        for B in batches:       # 1 and 2 threads and the reference, their rounds in turn
            plays = [BatchedPlay(game, scenario, B, seed=1, threads=t) for t in (1, 2)]
            *got, ref = _moves_per_s(plays, min_time, [ref_round], BENCH)
            for threads, f in zip((1, 2), got):
                row[(B, threads)] = f.median
                row[("best", B, threads)] = f.best
                row[("cpu", B, threads)] = (f.cpu, f.busiest)
            row[("ratio", B)] = _paired(got[0], ref)
            refs.append(ref)
            if B == Bl:
                kept[game] = {"play": (plays, [_thread_ratio(*got)])}
                k = plays[0].steps_per_call
                if k > 1:       # several steps a call (BatchedPlay.steps): its own figure
                    kept[game]["bulk"] = (plays, [_thread_ratio(*_moves_per_s(
                        plays, min_time, (), WINDOW, k))])
            del plays, got
        for B in ENV_BATCHES:
            # 1 and 2 threads; at the largest B also the kept observations (copy=False)
            envs = [_vector_env(scenario, B, t) for t in (1, 2)]
            if B == Be:
                envs.append(_vector_env(scenario, B, 1, copy=False))
            if any(e is None for e in envs):     # (no rl extra)
                continue
            # a reference contestant for each 1-thread env, its rounds as long as that
            # env's (the kept observations' rounds are shorter)
            one = [i for i, t in enumerate((1, 2, "kept")[:len(envs)]) if t != 2]
            got = _env_steps_per_s(envs, min_time, [ref_round] * len(one), BENCH, one)
            got, ref = got[:len(envs)], dict(zip(one, got[len(envs):]))
            refs.extend(ref.values())
            for i, (key, (f, moves)) in enumerate(zip((1, 2, "kept"), got)):
                row[("env", B, key)] = f.median
                row[("cpu", "env", B, key)] = (f.cpu, f.busiest)
                if moves is None:                # (the positions backend counts none)
                    continue
                row[("env moves", B, key)] = float(np.median(
                    [m / r[1] for m, r in zip(moves, f.rounds) if m]))
                # CPU seconds per move played (its share of the env step's CPU)
                row[("cpu", "env move", B, key)] = float(np.median(
                    [r[2] / m for m, r in zip(moves, f.rounds) if m]))
                if i in ref:
                    row[("env ratio", B, key)] = _paired(f, ref[i], moves)
            row["env_backend"] = envs[0].backend
            if B == Be:
                kept[game]["env"] = (envs[:2], [_thread_ratio(got[0][0], got[1][0])])
            del envs, got
        # the reference over every group's rounds
        rounds = [r for f in refs for r in f.rounds]
        row["kernel"] = float(np.median([r[0] / r[1] for r in rounds]))
        row[("kernel", "quartiles")] = _quartiles([r[0] / r[1] for r in rounds])
        row[("cpu", "kernel")] = float(np.median([r[2] / r[0] for r in rounds]))
        # the share of wall time this process ran, over the reference's rounds (1 thread)
        row["share"] = sum(r[3] for r in rounds) / sum(r[1] for r in rounds)
        # the B whose move costs fewest queries (by CPU: what load inflates least)
        best = min(batches, key=lambda B: row[("ratio", B)]["cpu"][0])
        row["move/query"] = (best, row[("ratio", best)])
        rep = run_selfplay(game, selfplay_games, 1, scenarios=[(name, scenario)])
        row["position"] = rep["moves_per_s"]
        out[game] = row
    # the 2-thread figures' further windows: a pass over every game each, so that a
    # game's windows lie the other games' rounds apart
    for w in range(2, THREAD_WINDOWS + 1):
        log(f"[batch] 2 threads / 1: window {w} of {THREAD_WINDOWS}, every game ...",
            flush=True)
        for k in kept.values():
            _window(k, [key for key in ("play", "bulk", "env") if key in k], min_time)
    # windows that waited for a core (SPELL) measured the machine: retake them, in
    # further passes over the games that have some, at most RETAKES passes
    for r in range(1, RETAKES + 1):
        short = {game: [key for key in ("play", "bulk", "env")
                        if key in k and _windows_short(k[key][1])]
                 for game, k in kept.items()}
        short = {game: keys for game, keys in short.items() if keys}
        if not short:
            break
        log(f"[batch] 2 threads / 1: retake {r} of at most {RETAKES}, for windows that "
            f"waited for a core over {SPELL:.0%} of their time: "
            f"{', '.join(f'{g} ' + '+'.join(keys) for g, keys in short.items())} ...",
            flush=True)
        for game, keys in short.items():
            _window(kept[game], keys, min_time)
    log(LEGEND)
    for game, k in kept.items():
        out[game][("threads", Bl)] = _over_windows(k["play"][1])
        if "bulk" in k:
            out[game][("threads", "bulk", Bl)] = _over_windows(k["bulk"][1])
            out[game]["steps_per_call"] = k["bulk"][0][0].steps_per_call
        if "env" in k:
            out[game][("threads", "env", Be)] = _over_windows(k["env"][1])
        _print_row(game, out[game], batches, log)
    del kept
    log("[batch] memory: 4,096 games of each game's largest bundled scenario ...",
        flush=True)
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    log(f"[batch] load average at the end "
        f"{'/'.join(f'{x:.2f}' for x in load) if load else '?'}", flush=True)
    for game in games or GAMES:
        out[game]["memory_mib"] = memory_4096(game)
        log(f"  {game}: {out[game]['memory_mib']:.1f} MiB")
    return out


#: Printed once above the rows: why a row's moves/s and its "2 threads / 1" may seem to
#: disagree on a busy machine.
LEGEND = (
    "[batch] reading a row: \"moves/s, median round (1 / 2 threads)\" is each thread "
    "count's own median, its rounds taken at other moments than the other's; \"2 threads"
    " / 1\" pairs 1- and 2-thread rounds taken back to back, over windows apart in time, "
    "and leaves out a window whose threads waited for a core (shown in brackets). On a "
    "busy machine the two can disagree: the paired figure is the one to read, and the "
    "per-CPU-second figures are what a shared core inflates least.")


def _window(k: dict, keys, min_time: float) -> None:
    """One further window of a game's 2-thread figures: for each of ``keys`` ("play",
    "bulk": the plays' several steps a call, "env") of ``k`` (the game's kept 1- and
    2-thread plays or envs and their windows so
    far), their rounds in turn (:data:`WINDOW`) and the window's :func:`_thread_ratio`
    appended to the windows."""
    if "play" in keys:
        plays, ws = k["play"]
        ws.append(_thread_ratio(*_moves_per_s(plays, min_time, (), WINDOW)))
    if "bulk" in keys:
        plays, ws = k["bulk"]
        ws.append(_thread_ratio(*_moves_per_s(plays, min_time, (), WINDOW,
                                               plays[0].steps_per_call)))
    if "env" in keys:
        envs, ws = k["env"]
        ws.append(_thread_ratio(*(f for f, _ in _env_steps_per_s(
            envs, min_time, (), WINDOW))))


def _print_row(game, row, batches, log) -> None:
    k, (_, k1, k3) = row["kernel"], row[("kernel", "quartiles")]
    cells = "  ".join(f"B={B:,}: {row[(B, 1)]:,.0f} / {row[(B, 2)]:,.0f}" for B in batches)
    by_cpu = "  ".join(f"B={B:,}: {1 / row[('cpu', B, 1)][0]:,.0f}" for B in batches)
    ratio = lambda r, how: f"{r[how][0]:.2f} ({r[how][1]:.2f}-{r[how][2]:.2f})"  # noqa
    wall = "  ".join(f"B={B:,}: {ratio(row[('ratio', B)], 'wall')}" for B in batches)
    cpu = "  ".join(f"B={B:,}: {ratio(row[('ratio', B)], 'cpu')}" for B in batches)
    Bl = batches[-1]
    share = row["share"]
    log(f"  {game} [{row['backend']} backend"
        f"{'' if row['why'] is None else ': ' + row['why']}]\n"
        f"    moves/s, median round (1 / 2 threads): {cells}\n"
        f"    moves per CPU second, 1 thread (what a shared core inflates least): {by_cpu}\n"
        f"    reach_many 1 thread (fixed starts; rounds in turn with the plays'): "
        f"{k:,.0f} queries/s median round ({k1:,.0f}-{k3:,.0f}), "
        f"{1 / row[('cpu', 'kernel')]:,.0f} per CPU second; per-position self-play "
        f"{row['position']:,.0f} moves/s\n"
        f"    move / query, 1 thread, median of paired rounds (quartiles): by wall {wall}\n"
        f"      by CPU {cpu}\n"
        f"    2 threads / 1 at B={Bl:,}: {_threads(row[('threads', Bl)])} (CPU time: "
        f"{row[('threads', Bl)]['cpu']:.2f}x, one thread's CPU per move over the "
        f"busiest thread's with two; 2 threads use {_cpu_total(row, Bl):.2f}x "
        f"the CPU of 1); this process ran {share:.0%} of the wall time"
        f"{'' if share > 0.9 else ' (it shared a core: read the CPU figures)'}")
    if ("threads", "bulk", Bl) in row:
        t = row[("threads", "bulk", Bl)]
        log(f"    2 threads / 1 at B={Bl:,}, {row['steps_per_call']} steps a call "
            f"(BatchedPlay.steps, one hand-off for them): {_threads(t)} (CPU time: "
            f"{t['cpu']:.2f}x)")
    if row.get(("env", ENV_BATCHES[0], 1)) is not None:
        env = "  ".join(f"B={B:,}: {row[('env', B, 1)]:,.0f} / {row[('env', B, 2)]:,.0f}"
                        for B in ENV_BATCHES)
        B = ENV_BATCHES[-1]
        t = row[("threads", "env", B)]
        log(f"    vector env [{row['env_backend']}] env steps/s, median round (1 / 2 "
            f"threads): {env}; 2 threads / 1 at B={B:,}: {_threads(t)} (CPU time: "
            f"{t['cpu']:.2f}x)")
        if row.get(("env moves", B, 1)):
            mv, kept = row[("env moves", B, 1)], row[("env moves", B, "kept")]
            r, rk = row[("env ratio", B, 1)], row[("env ratio", B, "kept")]
            log(f"    vector env move with its observation, B={B:,}, 1 thread: "
                f"{mv:,.0f} moves/s ({mv / row[('env', B, 1)]:.2f} moves per env step) = "
                f"{ratio(r, 'wall')} kernel queries (paired rounds, wall), "
                f"{ratio(r, 'cpu')} by CPU; kept observations (copy=False): {kept:,.0f} "
                f"moves/s = {ratio(rk, 'wall')}, by CPU {ratio(rk, 'cpu')}")


def _threads(t) -> str:
    """:func:`_over_windows`' figure as the row prints it."""
    _, q1, q3 = t["rounds"]
    counted = t.get("counted", [True] * len(t["windows"]))
    waited = t.get("waited", [0.0] * len(t["windows"]))
    shown = " ".join(f"{w:.2f}" if c else f"[{w:.2f}: waited {x:.0%}]"
                     for w, c, x in zip(t["windows"], counted, waited))
    # (every window counted though one waited: none waited little enough)
    note = (f"; every window waited for a core, {min(waited):.0%}-{max(waited):.0%} of "
            f"its threads' time: a busy machine's figure"
            if all(counted) and any(x > SPELL for x in waited) else "")
    n = sum(counted)
    return (f"{t['wall']:.2f}x (median of {n} window{'s' * (n != 1)}: {shown}; paired "
            f"rounds {q1:.2f}-{q3:.2f}{note})")


def _cpu_total(row, B) -> float:
    return row[("cpu", B, 2)][0] / row[("cpu", B, 1)][0]


def memory_4096(game: str) -> float:
    """MiB that B = 4,096 games of ``game``'s largest bundled scenario (most places) hold
    after one step: the bytes allocated and still held, as ``tracemalloc`` counts them
    (numpy's arrays included). The resident set size would read 0 here: the allocator
    reuses the pages that the earlier runs of this process freed."""
    import gc
    import tracemalloc

    from ..position import position
    from .selfplay import example_scenarios
    from .selfplay_batch import BatchedPlay
    scen = example_scenarios(game)
    size = lambda s: max(position(s).n_actions(f) for f in position(s).figures)  # noqa
    name, scenario = max(scen, key=lambda ns: size(ns[1]))
    gc.collect()
    tracemalloc.start()
    try:
        play = BatchedPlay(game, scenario, 4096, seed=0)
        play.step()
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    del play
    gc.collect()
    return held / 2**20
