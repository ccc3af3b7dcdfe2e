"""``movecore bench --rl``: environment steps/s beside the raw position loop, per game.

For every game, on each bundled example that self-play plays, in one run:

* a random legal play of ``steps`` env steps is recorded first (untimed), then replayed:
* **raw**: the same moves on positions, the loop an RL user would write by hand:
  ``legal_moves(figure, **query)`` of the figure to move (at every step: a policy needs
  the figure's legal ends to choose, end turn included), the choice (the recorded end's
  row), ``apply_row`` of it (and ``remove_figure`` for the removals), a ``copy()`` of
  the root per episode;
* **env**: :func:`movecore.rl.env` replaying the recorded actions, reading ``last()``
  (observation and mask) before every step, ``reset(seed)`` per episode;
* **+wrappers**: the same env in PettingZoo's own classic wrappers
  (``env(..., wrappers=True)``), for comparison.

Both loops take the same number of steps; the figure is the best of ``rounds`` runs,
interleaved piece by piece (about 200 steps, cut where an episode starts: a burst of
load on the shared machine hits the loops alike), timed in this thread's CPU time (``time.thread_time``: both loops run in
this one thread, kernels included, and on a shared machine the time other jobs hold the
core is not counted; on a quiet machine it equals the wall time).
``env/raw`` is the cost of one env step
over one raw step (target: at most 2).
"""
from __future__ import annotations

import time

import numpy as np

from .turns import GAMES

#: what the loops are timed with: this thread's CPU time (see the module docstring)
_clock = time.thread_time


def _record(env, steps: int, seed: int) -> list:
    """A random legal play of ``steps`` env steps (reset when an episode ends), as
    events: ``("reset", seed)`` or ``(action, figure, query, end, removed ids)``: the
    figure to move and its query (None when nobody was to move), the end it took as the
    position numbers it (None for end turn: its legal ends were asked all the same)."""
    rng = np.random.default_rng(seed)
    core = env._core
    events = [("reset", seed)]
    env.reset(seed=seed)
    k = 0
    while k < steps:
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            events.append(("reset", None))
            env.reset()
            continue
        legal = np.flatnonzero(obs["action_mask"])
        a = int(legal[int(rng.random() * len(legal))])
        m = core.match
        agent = env.agent_selection
        al = env.action_layout(agent)
        fid, q, row = m.figure, m.query, None
        if a < al.end_turn:
            # the end as the position numbers it (a turned Descent base: see _Setup.swap)
            row = int(m.moves.actions[core.rowof[agent][a % al.P]])
        env.step(a)
        events.append((a, fid, q, row, [f for f, _ in core.removed] if row is not None
                       else []))
        k += 1
    return events


def _raw_loop(root, events, last: list | None = None) -> float:
    """The recorded steps on positions: ``legal_moves`` of the figure to move, then
    ``apply_row`` of the recorded end (none for end turn) and ``remove_figure`` for the
    removals; a fresh ``copy()`` of the root per episode. ``last``: a list that gets
    the final position (untimed)."""
    t0 = _clock()
    pos = root
    for ev in events:
        if ev[0] == "reset":
            pos = root.copy()
            continue
        _, fid, q, end, removed = ev
        if fid is None:
            continue
        m = pos.legal_moves(fid, **q)
        if end is None:           # end turn
            continue
        pos.apply_row(m, int(np.flatnonzero(m.actions == end)[0]))
        for f in removed:
            pos.remove_figure(f)
    took = _clock() - t0
    if last is not None:
        last.append(pos)
    return took


def _env_loop(env, events) -> float:
    """The recorded actions on the env, reading ``last()`` (observation and mask) before
    every step as a policy would."""
    t0 = _clock()
    last, step = env.last, env.step
    for ev in events:
        if ev[0] == "reset":
            env.reset(seed=ev[1])
            continue
        last()
        step(ev[0])
    return _clock() - t0


def _pieces(events, size: int = 200) -> list:
    """``events`` cut where an episode starts into pieces of about ``size`` steps (each
    begins with its reset; replayed in order, they are the whole play)."""
    out, cur, n = [], [], 0
    for ev in events:
        if ev[0] == "reset" and n >= size:
            out.append(cur)
            cur, n = [], 0
        cur.append(ev)
        n += ev[0] != "reset"
    if cur:
        out.append(cur)
    return out


def rl_report(games=None, steps: int = 2000, rounds: int = 3, out=print) -> list[dict]:
    """Measure and print the table; returns its rows."""
    from . import env as make_env
    from . import examples
    from .envs import _example, _setup
    rows = []
    out(f"movecore bench --rl: {steps} steps per loop, best of {rounds} rounds "
        f"(us of CPU time per step; observation and mask read every step)")
    out(f"{'game':18} {'scenario':38} {'raw us':>8} {'env us':>8} {'+wrappers':>9} "
        f"{'env/raw':>8} {'env steps/s':>12}")
    for game in games or GAMES:
        for name in examples(game):
            scen = _example(name)
            name += ".json"
            root = _setup(scen, False).root
            e, r = make_env(scen), make_env(scen, wrappers=True)
            events = _record(e, steps, 1)
            _raw_loop(root, events[:50])
            _env_loop(e, events[:50])
            _env_loop(r, events[:50])
            best = [np.inf, np.inf, np.inf]
            pieces = _pieces(events)
            for k in range(rounds):
                took = [0.0, 0.0, 0.0]
                for piece in pieces:
                    took[0] += _raw_loop(root, piece)
                    took[1] += _env_loop(e, piece)
                    took[2] += _env_loop(r, piece)
                best = [min(b, x) for b, x in zip(best, took)]
            raw, env, renv = (b / steps * 1e6 for b in best)
            row = {"game": game, "scenario": name, "raw_us": raw, "env_us": env,
                   "wrapped_env_us": renv, "ratio": env / raw, "env_steps_per_s": 1e6 / env}
            rows.append(row)
            out(f"{game:18} {name:38} {raw:8.1f} {env:8.1f} {renv:9.1f} "
                f"{env / raw:8.2f} {1e6 / env:12,.0f}")
    return rows
