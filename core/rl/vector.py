"""The Gymnasium vector environment: ``num_envs`` games of one scenario stepped together.

:func:`movecore.rl.vector_env` returns a :class:`MovecoreVectorEnv`: a Gymnasium
``VectorEnv`` of ``num_envs`` games, each exactly a
:class:`~movecore.rl.envs.MovecoreGym` (one side against a built-in opponent), with
Gymnasium's autoreset modes (``autoreset_mode``: next-step by default, same-step, or
none) and partial resets (``reset(options={"reset_mask": m})``), seeding
(``reset(seed=s)`` seeds game ``i`` with
``s + i``, as ``SyncVectorEnv``), batched observations ``float32[B, C, H, W]``
(:meth:`MovecoreVectorEnv.observe`), ``info["action_mask"]`` ``int8[B, A]`` and
``action_masks()`` (``bool[B, A]``, what MaskablePPO reads).

Two backends, one API (``envs.backend``; ``envs.why`` says why a game is not on arrays):

* ``"arrays"`` (grid, Tiny Epic Tactics, Mage Knight; the default reward and end): the
  games live in the arrays of a :class:`movecore.batch.BatchedGames`; a step (the
  learner's move, the removal coin, the opponents' moves until the learner is to act
  again, the autoresets, the rewards and ends, the observations and masks and their
  copies) is one compiled call over the batch (``copy=False``: each step rewrites only
  what changed in a kept buffer, from the occupancy, the figures' cells and the acting
  figure's answer; ``copy=True``: each game's observation drawn whole into the new
  array). ``threads=`` splits the batch over threads, one
  call per thread for the whole step; 1 and ``threads`` threads play the same games.
  Descent (large monsters included), Dark Realms and Heroscape are on arrays too, driven
  from numpy (:mod:`movecore.rl._vecnp`): the same ``BatchedGames`` arrays, one batched
  ``legal_moves`` per sub-step, the turn rule and the opponent as array operations over
  the batch (compiled loops over the games of each sub-step), each game's draws from its
  own stream in its single env's order, the observations kept as above
  (``_vecnp.draw_obs``); a Dark Realms enemy AI's ties (whose row order the batched
  answer does not keep) are asked of the game's position. Heroscape's step, where its
  answers are compiled (``_vechs``: every bundled scenario), is one compiled call per
  thread as the grid game's (``_vechsenv``); so is Descent's where every move is
  answered on arrays (``_vecdescent_env``: each thread's chunk of games); Dark Realms',
  in the compiled scope of ``_vecdr``, each thread's chunk of games played whole in
  compiled calls, observations and masks included (``_vecdr_env``).
* ``"positions"`` (Descent's ``town=True`` or a dungeon its batch does not take; or a
  custom ``reward_fn``/``terminal_fn``/``render_mode``): one live
  :class:`~movecore.rl.envs.MovecoreGym` per game, stepped in turn.

``copy=True`` (the default, as Gymnasium's ``SyncVectorEnv``): ``step`` and ``reset``
return a copy of the observations, yours to keep. ``copy=False`` (arrays backend): the
kept buffer itself, as a read-only view that the next ``step`` or ``reset`` overwrites
(copy what you keep). ``observe()`` always draws a new array from scratch.

Both give, game by game, exactly what ``num_envs`` single environments seeded ``s + i``
give for the same actions (``tests/test_rl_vector.py``).

>>> import numpy as np
>>> import movecore.rl as rl
>>> envs = rl.vector_env("grid_hex_skirmish", num_envs=4)
>>> obs, info = envs.reset(seed=0)
>>> obs.shape[0], info["action_mask"].shape[0], envs.backend
(4, 4, 'arrays')
>>> masks = envs.action_masks()
>>> actions = np.array([np.flatnonzero(m)[0] for m in masks])
>>> obs, reward, terminated, truncated, info = envs.step(actions)
>>> reward.shape, terminated.dtype
((4,), dtype('bool'))
"""
from __future__ import annotations

from time import perf_counter

import numpy as np
from gymnasium.spaces import Box, MultiDiscrete
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv

from ..batch import (NotPickled, ThreadChoice, _cut_chunks, _moved_head, entry_call, on_cut,
                     summed)
from ..errors import IllegalMoveError, QueryError, describe, is_sequence, seed_value
from ..kernels._stream import scratch_row

_KIND = {"hex": 0, "square4": 1, "square8": 2}
#: the largest observation (floats per game) that ``copy=False`` draws whole in its kept
#: buffer at each step rather than updating it where it changed
_WHOLE = 1024
#: the share of the games the calling thread's chunk of a vector env step takes beyond
#: its even share (``_env_chunks``): 0.02 (1024 games on 2 threads: 532 / 492) ran
#: grid's and Mage Knight's 2-thread step 1.03-1.04x faster than even chunks (0.01 and
#: 0.03-0.04 less), Tiny Epic Tactics' (a 4x longer step) the same
_HEAD = 0.02
#: after each multi-thread call of the step, the calling thread's chunk is set ahead by
#: what a pool thread's wake is worth at the rate it just played (``batch.
#: _head_start``, as ``BatchedPlay``'s compiled step does); False: ``_HEAD`` stays
_HEAD_BY_RATE = True
#: the vector env step hints that the next game's occupancy row and answers will be read
#: (``_vecgame._fetch_game``) where a game's answers are large (``_vecgame.
#: _fetches_ahead``: Tiny Epic Tactics); False: never (the tests compare the two;
#: docs/performance_log.md, "The vector env's move by part ...")
_FETCH_GAME = True
#: the kernel's ends kept per (figure, shape, start) on the board with no figure on it
#: (``_vecgame.kept_ends``; read where no other figure stands in their search's
#: reach, or cannot change it: Mage Knight always, grid ~78%, Tiny Epic Tactics ~70%)
#: when the table takes at most this many bytes; False: never (the tests compare the two)
_KEPT_BYTES = 16 << 20


def _env_chunks(B: int, n_chunks: int, first: int | None = None) -> list:
    """The ``(lo, hi)`` games of each thread's chunk of a vector env step: contiguous,
    every one non-empty (``n_chunks <= B``), the calling thread's (chunk 0) larger by
    :data:`_HEAD` of the games (or ``first`` games: after a step, the head start its
    rate gives, ``batch._head_start``; the cut: ``batch._cut_chunks``). The calling thread starts its chunk before a pool thread
    does (~30 µs of a ~770 µs grid step: the hand-off), so with even chunks it idled
    at the end while the pool thread finished (docs/performance_log.md, "The vector env's
    step in blocks of games ..."; the head start measured in "The batch after the second
    afternoon ...").

    >>> _env_chunks(1024, 2), _env_chunks(3, 3), _env_chunks(100, 1)
    ([(0, 532), (532, 1024)], [(0, 1), (1, 2), (2, 3)], [(0, 100)])
    """
    if first is None:
        first = round(B / n_chunks + B * _HEAD)
    return _cut_chunks(B, n_chunks, first)


class MovecoreVectorEnv(NotPickled, VectorEnv):
    """``num_envs`` movement games of one scenario (see the module docstring).

    Keywords: those of :class:`~movecore.rl.envs.MovecoreGym` (``side``, ``opponent``,
    ``max_turns``, ``reward_fn``, ``terminal_fn``, ``town``, ``illegal``,
    ``illegal_reward``), plus ``threads`` (threads of a batched step, arrays backend),
    ``backend`` ("auto", "arrays" or "positions"), ``copy`` (False: ``step`` and
    ``reset`` return the kept observations, read-only, overwritten by the next step;
    see the module docstring) and ``autoreset_mode`` (Gymnasium's ``AutoresetMode``, or
    its value or name: ``NEXT_STEP`` by default; see :meth:`step`).

    An illegal action (outside the game's mask) ends that game as the single
    environment does (``illegal="terminate"``: ``terminated``, ``illegal_reward``,
    ``info["illegal_action"][i]``); with ``illegal="raise"`` the step raises
    :class:`movecore.IllegalMoveError` naming the game, and no game changes."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}
    _INSTEAD = ("pickle envs.scenario and the keywords and make it again, or "
                "copy.deepcopy it in this process")

    def __init__(self, name_or_scenario, num_envs: int, *, threads: int = 1,
                 backend: str = "auto", copy: bool = True,
                 autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP, **kwargs):
        autoreset_mode = _autoreset_mode(autoreset_mode)
        if type(num_envs) is not int or num_envs < 1:
            raise QueryError(f"num_envs must be a positive integer; got {describe(num_envs)}")
        if type(threads) is not int or threads < 1:
            raise QueryError(f"threads must be a positive integer; got {describe(threads)}")
        if not isinstance(copy, bool):
            raise QueryError(f"copy must be True or False; got {describe(copy)}")
        if backend not in ("auto", "arrays", "positions"):
            raise QueryError(f"backend must be 'auto', 'arrays' or 'positions'; got "
                             f"{describe(backend)}")
        from .envs import MovecoreGym, _scenario
        scenario = _scenario(name_or_scenario)
        one = MovecoreGym(scenario, **kwargs)     # bad keywords fail here, once, typed
        from .spaces import check_observations
        check_observations(one.observation_space.shape, num_envs)   # (before any [B, ...])
        self.scenario = scenario
        self.num_envs = B = num_envs
        self.threads = threads
        self.copy = copy
        #: Gymnasium's ``AutoresetMode`` of this env (also ``metadata["autoreset_mode"]``,
        #: what Gymnasium's vector wrappers read)
        self.autoreset_mode = autoreset_mode
        self.metadata = {**type(self).metadata, "autoreset_mode": autoreset_mode}
        #: figure moves played (the learners' and the opponents') and move generations
        #: answered since construction (arrays backend; the positions backend: None)
        self.counts = {"moves": 0, "generations": 0}
        self.single_observation_space = one.observation_space
        self.single_action_space = one.action_space
        self.observation_space = Box(-1.0, 1.0, (B, *one.observation_space.shape),
                                     np.float32)
        self.action_space = MultiDiscrete(np.full(B, one.action_space.n, np.int64))
        self.agent = one.agent
        #: the games' render mode (``render_mode=``: each game's live position drawn,
        #: the positions backend); ``render()`` returns one picture per game
        self.render_mode = one.render_mode
        if one.render_mode is not None:
            self.metadata["render_modes"] = list(one.metadata["render_modes"])
        self.illegal = one.illegal
        self.illegal_reward = one.illegal_reward
        self._kwargs = kwargs
        self._one = one
        self._streams = np.zeros(B, bool)       # the games with a random stream
        self._done = np.zeros(B, bool)
        self._state_mode = np.zeros(B, np.int64)      # what step does with each game
        self._has_reset = False
        self._entries = {}    # compiled calls' entry points (``batch.entry_call``)
        self._heads = {}      # the step's leading arguments, by kept draw (``_step_arrays``)
        self._ones = np.ones(B, bool)       # (info's ``_action_mask``, copied)
        from ._vecgame import step_modes
        self._step_modes = step_modes
        # (the games the arrays backend would play, where telling built them)
        why, games = _why_not_arrays(one, kwargs, 1 if backend == "positions" else B,
                                     threads)
        if backend == "arrays" and why:
            raise QueryError(f"no array backend for this environment: {why}")
        if backend == "positions":
            why = why or "asked for"
        elif backend == "auto" and why is None and s_game(one) not in _COMPILED:
            from ._vecnp import slower
            why = slower(one)
        self.backend = "positions" if why else "arrays"
        self.why = why
        self._np = None      # the arrays backend driven from numpy (Descent)
        #: Heroscape's numpy-driven step as one compiled call per thread
        #: (``_vechsenv``; None: the sub-steps from Python)
        self._hsf = None
        #: Descent's, where every move is answered on arrays (``_vecdescent_env``;
        #: None: the sub-steps from Python)
        self._dsf = None
        if self.backend == "arrays" and s_game(one) not in _COMPILED:
            from ._vecnp import BatchedSteps
            self._np = BatchedSteps(self, one, games)
            self.games = self._np.G
            if self._np._hs is not None:    # (Heroscape: the step in one call per thread)
                from ._vechsenv import HeroscapeEnvStep
                self._hsf = HeroscapeEnvStep(self._np, copy)
            from ._vecdescent_env import DescentEnvStep, takes
            if takes(self._np):             # (Descent: the same, per thread chunk)
                self._dsf = DescentEnvStep(self._np, copy)
            self._state = {"rng": self._np.rng}
        elif self.backend == "arrays":
            self._init_arrays(one)
        else:
            from ._core import _SETUPS
            with _SETUPS.held(scenario):        # (its set-up checked once, not B times)
                self.envs = [MovecoreGym(scenario, **kwargs) for _ in range(B)]
        A = one.action_space.n
        self._obs = np.zeros((B, *one.observation_space.shape), np.float32)
        self._mask = np.zeros((B, A), np.int8)
        if self.backend == "positions":
            self.counts = {"moves": None, "generations": None}
        else:       # the kept observations (``copy=False`` hands out a read-only view)
            self._obs_ro = self._obs.view()
            self._obs_ro.flags.writeable = False

    # ------------------------------------------------------------------ arrays backend
    def _init_arrays(self, one) -> None:
        from ..batch import BatchedGames, per_thread
        from ._vecgame import _fetches_ahead, env_chunk, kept_ends
        from .spaces import COMMON_DYNAMIC
        s = one._s
        root, rules = s.root, s.rules
        B, F = self.num_envs, len(s.figs)
        self._env_chunk = env_chunk
        q = dict(rules.query(root, s.figs[0], np.random.default_rng(0)))
        self.games = G = BatchedGames(root, B, query=q, threads=self.threads,
                                      backend="arrays")
        if G.ids != s.figs:  # pragma: no cover (both are the root's figures in order)
            raise QueryError("batched figure slots differ from the environment's")
        al = s.actions[self.agent]
        self._P, self._end_turn = al.P, al.end_turn
        self._slot_of = np.full(F, -1, np.int64)
        for k, f in enumerate(al.slots):
            self._slot_of[s.row[f]] = k
        N = G.occ.shape[1]
        self._N = N
        self._learner = s.side_index[al.side]
        self._side_of = np.ascontiguousarray(s.fig_side, np.int64)
        self._turn_sides = np.array([s.side_index[t] for t in s.turn_sides], np.int64)
        self._n_all = len(s.sides)
        self._max_turns = one._core.max_turns
        self._batch = bool(rules.batch)
        Fs = F if self._batch else 1
        lead = np.full((F, max(al.P, N)), -1, np.int64)
        for i in range(F):
            lead[i, :len(s.lead[i])] = s.lead[i]
        self._lead = lead
        lay = s.layout
        names = list(one.plane_names)
        C = len(names)
        HW = lay.H * lay.W
        # the planes that do not change: the static ones, and the game's own planes of
        # the array games (the grid game's provoke tokens), as the env observes them
        self._d = names.index("acting")          # the first plane after the sides'
        first_game = self._d + len(COMMON_DYNAMIC)
        o, _ = one.reset(seed=0)
        base = np.zeros((C, HW), np.float32)
        base[:lay.static.shape[0]] = lay.static
        base[first_game:] = o.reshape(C, HW)[first_game:]
        self._base = base.reshape(-1)
        # the kept observations' bookkeeping (``_vecgame.observe``): the places each
        # game's observation holds off ``base``, and the turn its turn plane shows
        self._drawn = np.zeros((B, 2 * F + 1 + 3 * N), np.int32)
        self._n_drawn = np.zeros(B, np.int64)
        self._oturn = np.full(B, -1, np.int64)
        # (drawn from scratch: no bookkeeping, no row to stream from: in place)
        self._scratch = (np.zeros((0, 0), np.int32), np.zeros(0, np.int64),
                         np.zeros(0, np.int64), np.zeros(0, np.float32))
        self._valid = np.ascontiguousarray(lay.static[names.index("valid")], np.float32)
        # Tiny Epic Tactics' Move-action bookkeeping at the root
        if self._batch:
            self._mtaken0 = np.asarray(root.moves_taken, np.int8).copy()
            self._tstart0 = np.asarray(root.turn_start, np.int32).copy()
            self._tteam0 = int(root._turn_team)
        else:
            self._mtaken0 = np.zeros(F, np.int8)
            self._tstart0 = np.full(F, -1, np.int32)
            self._tteam0 = -1
        i64 = np.int64
        self._state = dict(
            turn=np.zeros(B, i64), side=np.full(B, -1, i64), nxt=np.full(B, F, i64),
            actor=np.full(B, -1, i64), over=np.zeros(B, np.int8),
            moved=np.zeros((B, F), bool), member=np.zeros((B, F), bool),
            rows=np.zeros((B, N), i64), n_rows=np.zeros(B, i64),
            taken=np.zeros((B, max(F, 1)), np.int32), n_tk=np.zeros(B, i64),
            mtaken=np.repeat(self._mtaken0[None], B, 0),
            tstart=np.repeat(self._tstart0[None], B, 0), tteam=np.full(B, self._tteam0, i64),
            ans_cell=np.zeros((B, Fs, N), np.int32), ans_cost=np.zeros((B, Fs, N), np.int32),
            ans_stop=np.zeros((B, Fs, N), np.int8), ans_n=np.zeros((B, Fs), i64),
            out=np.zeros(B, bool), removed=np.zeros(B, bool), pending=np.zeros(B),
            rng=np.zeros((B, 4), np.uint64))
        st = self._state
        self._G = (G.occ, G.cell, G.alive, G.team, self._side_of, self._turn_sides,
                   self._n_all, self._max_turns, self._batch, st["turn"], st["side"],
                   st["nxt"], st["actor"], st["over"], st["moved"], st["member"], st["rows"],
                   st["n_rows"], st["taken"], st["n_tk"], st["mtaken"], st["tstart"],
                   st["tteam"])
        # the positions' row order of equal costs: by x, then y (as solve() lists ends)
        xy = np.asarray(root.board.coords, np.int64)
        rank = np.empty(N, np.int64)
        rank[np.lexsort((xy[:, 1], xy[:, 0]))] = np.arange(N)
        n_chunks = len(G._bufs)
        unrank = np.argsort(rank).astype(np.int64)        # the cell of each rank
        # each thread's scratch on cache lines of its own (no false sharing)
        queries = per_thread(n_chunks, (1, 3), np.int64)
        keys = per_thread(n_chunks, (N,), np.int64)
        near = per_thread(n_chunks, (N,), np.int64)
        self._counts = per_thread(n_chunks, (4,), np.int64)   # moves, move generations,
        # those answered from the kept ends, those of them with other figures' cells
        # dropped (``_vecgame._answer``; for the tests and benches)
        self._n_kept = np.zeros(2, np.int64)
        # the layout's end rules (Mage Knight), as BatchedGames applies them: the
        # no-end spaces, one row per thread (``_answer`` counts the other figures'
        # one-figure spaces into it during a query, and takes them out after)
        no_end = per_thread(n_chunks, (N,), np.int32)
        for x in no_end:
            x[G._no_end] = 1
        stop_code = np.zeros((0, N), np.int8) if G._stop_code is None else \
            np.ascontiguousarray(G._stop_code, np.int8)
        kept, kept_n, kept_in = kept_ends(G, N, F, _KEPT_BYTES)
        self._S = [(G._blobs, G._blob_at, G._qflags, G._qflags_at, G._zoc, G._zoc_at,
                    G._params, G._shape_of, G._shape_cell, G._budget, rank, G.occ,
                    G._bufs[c], G._ends[c], queries[c], st["ans_cell"],
                    st["ans_cost"], st["ans_stop"], st["ans_n"], keys[c], unrank, near[c],
                    bool(G._end_rules), G._one_figure, no_end[c], stop_code, self._counts[c],
                    _FETCH_GAME and bool(_fetches_ahead.py_func(st["ans_cell"])), kept,
                    kept_n, kept_in)
                   for c in range(n_chunks)]
        nbr = np.ascontiguousarray(root.board.nbr, np.int64)
        self._R = (st["rng"], nbr, self._learner, st["removed"])
        # the root a game of mode 2 restarts from inside the step call (_reset_arrays)
        self._Z = (G._occ0, G._cell0, self._mtaken0, self._tstart0, self._tteam0)
        coords = np.ascontiguousarray(root.board.coords, np.int64)
        self._O = (one.opponent == "greedy", coords, _KIND.get(rules.kind, 0))
        self._ans = (st["ans_cell"], st["ans_cost"], st["ans_stop"])
        self._set_chunks(_env_chunks(B, n_chunks))
        self._choice = ThreadChoice()   # (the chunks on the threads, or whole: ``_run``)
        # the observation's view of the arrays (``_vecgame.observe``), and its kept part
        self._V = (self._base, *self._ans, lead, self._side_of, self._n_all,
                   self._learner, self._d, self._max_turns, self._valid, self._P,
                   self._end_turn, self._slot_of)
        # A small observation (at most _WHOLE floats: grid, Mage Knight) is drawn whole
        # in the kept buffer too: copying its static planes (one page or less, from the
        # cache) costs less than clearing and listing the places drawn last time; a
        # larger one (Tiny Epic Tactics: 18 x 140 floats) is updated where it changed
        self._K = self._scratch if C * HW <= _WHOLE else \
            (self._drawn, self._n_drawn, self._oturn, self._scratch[3])

    def _seed_stream(self, b, seed) -> None:
        """Game ``b``'s random stream: a new ``np_random`` (``gymnasium.utils.seeding``,
        numpy's PCG64), whose state the compiled step then steps (``_vecgame._draw``)."""
        st = seeding.np_random(seed)[0].bit_generator.state["state"]
        m = (1 << 64) - 1
        self._state["rng"][b] = (st["state"] >> 64, st["state"] & m, st["inc"] >> 64,
                                 st["inc"] & m)
        self._streams[b] = True

    def _run(self, kernel, heads, tail, key=None, retime: bool = True) -> None:
        """``kernel(*heads[c], *tail, lo, hi)`` over the batch's chunks ``c`` (threads
        when more than one: ``batch.on_cut``; or every game on the calling thread where
        that measured faster, ``batch.ThreadChoice``); ``retime``: a whole step's call,
        timed for that choice, and the chunks cut again by the rate it played at (not a
        call on a few games, nor an observation: those follow the step's choice).

        ``key``: the call's types are fixed by ``key`` (a hashable the caller picks; the
        arrays the call is handed are this env's own, or made by the caller with a
        fixed dtype, layout and flags): after its first call through the dispatcher,
        the compiled overload's entry point is called directly (``batch.entry_call``).
        The dispatcher types every argument at every call (the step's nested tuples:
        ~4 of its ~5 µs per call, the calling thread's time and, on a pool thread, time
        it holds the GIL before its chunk starts); the entry point only unboxes them
        (docs/performance_log.md, "The vector env's step in blocks of games, its chunk
        called at its entry point")."""
        cut = self._cut
        choice = self._choice
        # (whole: every game on the calling thread, where the threads measured slower,
        # ``batch.ThreadChoice``; a whole step's call is timed, the others follow it)
        split = len(cut) == 2 or (choice.use_split() if retime else choice.split)
        if key is None:
            def run(c, lo, hi):
                return kernel(*heads[c], *tail, lo, hi)
        elif len(cut) == 2 or not split:    # (one chunk: no closure, no pool)
            t0 = perf_counter()
            entry_call(self._entries, key, kernel, (*heads[0], *tail, cut[0], cut[-1]))
            if retime and len(cut) > 2:
                choice.took(False, perf_counter() - t0)
            return
        else:
            entries = self._entries

            def run(c, lo, hi):
                return entry_call(entries, key, kernel, (*heads[c], *tail, lo, hi))
        t0 = perf_counter()
        took = on_cut(cut if split else [cut[0], cut[-1]], run)[1]
        if retime and len(cut) > 2:
            choice.took(split, perf_counter() - t0)
        if retime and split and _HEAD_BY_RATE and len(cut) > 2:
            # the calling thread ahead by what a pool thread's wake is worth
            first = _moved_head(self.num_envs, len(cut) - 1, cut[1], took)
            if first is not None:
                self._set_chunks(_env_chunks(self.num_envs, len(cut) - 1, first))

    def _set_chunks(self, chunks) -> None:
        """The threads' chunks of the next steps: ``(lo, hi)`` pairs (``_chunks``) and
        their bounds (``_cut``, what ``batch.on_cut`` takes)."""
        self._chunks = chunks
        self._cut = [lo for lo, _ in chunks] + [chunks[-1][1]]

    def _step_arrays(self, mode, actions, illegal, results, obs_out, mask_out) -> None:
        """One env step of every game, in one compiled call per thread
        (``_vecgame.env_chunk``: the moves and their random numbers, the rewards and
        ends into ``results``, the masks and their copies into ``mask_out``, and the
        observations: drawn whole into ``obs_out``, a new array (``copy=True``), or,
        where ``obs_out`` is None, updated in the kept buffer); the calling thread only
        hands off. ``actions``: int64[B], C order, aligned, writeable (``step``'s copy:
        the type the step's entry point was found for)."""
        kept = obs_out is None
        heads = self._step_heads(kept)
        obs = (self._obs if kept else obs_out).reshape(self.num_envs, -1)
        self._run(self._env_chunk, heads, (mode, actions, illegal, *self._tail, results,
                                           obs, self._mask, mask_out), key=("step", kept))
        self._count_arrays()

    def _step_heads(self, kept: bool) -> list:
        """Each chunk's leading arguments of ``_vecgame.env_chunk`` (``kept``: the
        observations updated in the kept buffer, else drawn whole into a new array)."""
        heads = self._heads.get(kept)
        if heads is None:
            # each chunk's leading arguments, the env's own (made once: its arrays are
            # never replaced); copy=True draws each game's observation whole into the
            # new array (the static planes copied, the dynamic places written): cheaper
            # than updating the kept buffer where it changed and copying it
            # (docs/performance_log.md)
            # (drawn whole: each thread's row to stream each game's from, where the
            # array is large: ``kernels._stream.scratch_row``)
            st = self._state
            B, n = self._obs.shape[0], self._base.shape[0]
            heads = self._heads[kept] = [
                (S, self._G, self._R, self._O, self._Z, self._V,
                 self._K if kept else (*self._scratch[:3], scratch_row(B, n)))
                for S in self._S]
            self._tail = (st["out"], st["pending"])
        return heads

    def _count_arrays(self) -> None:
        """The compiled steps' counters (moves, move generations, kept-end answers) added
        to ``counts`` and cleared."""
        got = summed(self._counts)
        for k in self._counts:
            k.fill(0)
        c = self.counts
        c["moves"] += got[0]
        c["generations"] += got[1]
        n = self._n_kept
        n[0] += got[2]
        n[1] += got[3]

    def _reset_arrays(self, rows) -> None:
        G, st = self.games, self._state
        G.reset(rows)
        F = G.F
        st["turn"][rows] = 0
        st["side"][rows] = -1
        st["nxt"][rows] = F
        st["actor"][rows] = -1
        st["over"][rows] = 0
        st["moved"][rows] = False
        st["n_tk"][rows] = 0
        st["mtaken"][rows] = self._mtaken0
        st["tstart"][rows] = self._tstart0
        st["tteam"][rows] = self._tteam0
        st["out"][rows] = False
        st["removed"][rows] = False
        st["pending"][rows] = 0.0

    def _restart_rows(self, rows, obs, mask_out, seeds=None) -> None:
        """Games ``rows`` (int64[K], distinct) back at the root now, as a next-step
        autoreset restarts them (their streams go on; the opponents move until the
        learner is to act), the other games untouched: for the same-step autoreset and
        ``reset(options={"reset_mask": ...})``. Each restarted game's observation is
        written into ``obs`` (float32[B, ...]: the kept buffer ``_obs``, or a new array
        of the step's), its mask into ``_mask`` and ``mask_out`` (int8[B, A], or None).
        ``seeds``: the positions backend's seed of each game (or None); the arrays
        backend's streams are the caller's to seed.

        The grid game, Tiny Epic Tactics and Mage Knight restart them in one call of the
        step's compiled chunks (mode 2, the others ``_vecgame.LEFT``); Heroscape,
        Descent and Dark Realms in one call of their compiled whole step likewise; on
        their sub-step path, by its restart, then one kept draw of every game's
        observation and mask."""
        if not len(rows):
            return
        from ._vecgame import LEFT
        B = self.num_envs
        if self.backend == "positions":
            for b in rows.tolist():
                e = self.envs[b]
                o, _ = e.reset(seed=None if seeds is None else seeds[b])
                self._obs[b] = o
                obs[b] = o
                self._mask[b] = e._core.masks[e.agent]
        elif self._np is not None:
            n = self._np
            kept = obs is self._obs
            out = np.empty_like(self._mask) if mask_out is None else mask_out
            mode = self._state_mode
            dr, one_call = n._dr, self._one_call()
            if dr is not None and dr.whole:
                mode.fill(LEFT)
                mode[rows] = 2
                self._dr_whole(dr).step(mode, np.zeros(B, np.int64), 0.0,
                                        None if kept else obs, self._obs, self._mask, out,
                                        timed=False)
            elif one_call is not None:
                one_call.restart_rows(rows, mode, self._obs, self._mask, out,
                                      None if kept else obs)
            else:       # (the sub-step path: its restart, then one kept draw of all)
                n.restart(rows)     # (BatchedGames.reset: Dark Realms' positions too)
                n.mask(self._mask)
                n.observe(self._obs, kept=True)
                if not kept:
                    obs[rows] = self._obs[rows]
            c = self.counts
            c["moves"], c["generations"] = n.counts
        else:
            # one call of the step's chunks, the other games left as they are
            kept = obs is self._obs
            mode = self._state_mode
            mode.fill(LEFT)
            mode[rows] = 2
            no = np.zeros(B, bool)
            results = (0.0, np.zeros(B), no.copy(), no.copy(), no.copy())
            out = np.empty_like(self._mask) if mask_out is None else mask_out
            self._run(self._env_chunk, self._step_heads(kept),
                      (mode, np.zeros(B, np.int64), no, *self._tail, results,
                       obs.reshape(B, -1), self._mask, out), key=("step", kept),
                      retime=False)
            self._count_arrays()
        if mask_out is not None:
            mask_out[rows] = self._mask[rows]

    # ------------------------------------------------------------------ observations
    def observe(self, out: np.ndarray | None = None) -> np.ndarray:
        """float32[B, C, H, W]: every game's observation now (the learner's; what
        ``MovecoreGym`` returns for each game's state), in one compiled call on the
        arrays backend (one ``observe`` per game on the positions backend). ``out``:
        an array of that shape and dtype to write into."""
        if not self._has_reset:
            raise QueryError("observe() before reset(): call envs.reset() first")
        B = self.num_envs
        shape = (B, *self.single_observation_space.shape)
        if out is None:
            out = np.empty(shape, np.float32)
        elif not isinstance(out, np.ndarray) or out.shape != shape or \
                out.dtype != np.float32 or not out.flags.c_contiguous:
            raise QueryError(f"out must be a C-contiguous float32 array of shape {shape}; "
                             f"got {describe(out)}")
        if self.backend == "positions":
            for b, e in enumerate(self.envs):
                e._core.observe(e.agent, out=out[b])
            return out
        if self._np is not None:
            self._np.observe(out)
            return out
        self._observe_arrays(out, self._mask, self._scratch)
        return out

    def _observe_arrays(self, obs, mask, kept) -> None:
        """Every game's observation into ``obs`` and mask into ``mask``: from scratch
        (``kept = self._scratch``) or in the kept buffer ``self._obs``, where only
        what changed is written (``kept = (self._drawn, self._n_drawn,
        self._oturn)``: ``_vecgame.observe``)."""
        from ._vecgame import observe
        o = obs.reshape(obs.shape[0], -1)
        self._run(observe, [()] * (len(self._cut) - 1),
                  (o, mask, mask[:0], self._G, self._V, kept), retime=False)

    def _kept_step(self, mode, actions, illegal, results):
        """``_step_arrays``; returns what ``step`` and ``reset`` return (a new array,
        drawn in the threads' chunks, or with ``copy=False`` the kept observations
        brought up to date, as a read-only view) and the masks' copy (``info``)."""
        obs_out = np.empty_like(self._obs) if self.copy else None
        mask_out = np.empty_like(self._mask)
        self._step_arrays(mode, actions, illegal, results, obs_out, mask_out)
        return (obs_out if self.copy else self._obs_ro), mask_out

    def _np_result(self):
        """The numpy-driven backend's observations and masks after a step or reset,
        kept in ``_obs`` / ``_mask``; returns what ``step`` and ``reset`` hand out."""
        self._np.mask(self._mask)
        # (copy=True: the kept buffer's copy written as it is drawn, on the threads
        # that draw it)
        obs = np.empty_like(self._obs) if self.copy else None
        self._np.observe(self._obs, kept=True, dst=obs)
        c = self.counts
        c["moves"], c["generations"] = self._np.counts
        return (obs if self.copy else self._obs_ro), self._mask.copy()

    def action_masks(self) -> np.ndarray:
        """bool[B, A]: each game's legal actions now (a game that ended on the last step
        is reset by the next one: its mask is all False until then)."""
        return self._mask.astype(bool)

    # ------------------------------------------------------------------ the Gymnasium API
    def _seed_games(self, seed) -> list:
        """One seed per game (None: unseeded) from ``seed``: None, a non-negative
        integer (game b gets ``seed + b``) or a sequence of B such seeds (or None)."""
        B = self.num_envs

        if seed is None:
            return [None] * B
        if isinstance(seed, (int, np.integer, bool, np.bool_, float)) or \
                not is_sequence(seed):
            s = seed_value(seed)
            return [s + i for i in range(B)]
        seeds = list(seed)
        if len(seeds) != B:
            raise QueryError(f"seed: an integer or one per game (B={B}); got "
                             f"{describe(seed)}")
        return [seed_value(s, f"seed[{b}]") for b, s in enumerate(seeds)]

    def reset(self, *, seed=None, options=None):
        """Every game back at the root (Gymnasium's ``VectorEnv.reset``): ``seed`` None
        (the games' streams go on, or are seeded from the OS on the first reset), an
        integer (game ``b`` seeded ``seed + b``) or one seed (or None) per game.
        ``options={"reset_mask": m}`` (``m`` bool[B], at least one True): only the games
        of ``m`` (each with its own seed, if given), the others left as they are; the
        info then holds the reset games' rows (``info["_action_mask"]`` is ``m``), as
        Gymnasium's ``SyncVectorEnv`` gives it. Returns the observations and the info."""
        seeds = self._seed_games(seed)          # validated before anything changes
        mask = self._reset_mask(options)
        if mask is not None:
            return self._reset_some(np.flatnonzero(mask), seeds)
        super().reset(seed=seeds[0] if isinstance(seed, (int, np.integer)) else None)
        B = self.num_envs
        if self.backend == "positions":
            for b, e in enumerate(self.envs):
                o, _ = e.reset(seed=seeds[b])
                self._obs[b] = o
                self._mask[b] = e._core.masks[e.agent]
        else:
            for b, sd in enumerate(seeds):      # (unseeded: the stream goes on)
                if sd is not None or not self._streams[b]:
                    self._seed_stream(b, sd)
        if self._np is not None:
            self._np.reset()
            obs, mask = self._np_result()
        elif self.backend == "arrays":
            rows = np.arange(B)
            self._reset_arrays(rows)
            self._obs.reshape(B, -1)[:] = self._base      # the kept buffer anew
            self._n_drawn[:] = 0
            self._oturn[:] = -1
            no = np.zeros(B, bool)
            obs, mask = self._kept_step(np.full(B, 2, np.int64), np.zeros(B, np.int64), no,
                                        (0.0, np.zeros(B), no.copy(), no.copy(),
                                         no.copy()))
        self._done[:] = False
        self._has_reset = True
        if self.backend == "positions":
            return self._obs.copy(), self._info(None)
        return obs, self._info(None, mask)

    def _reset_mask(self, options):
        """``options``' ``reset_mask`` (bool[B], checked as ``SyncVectorEnv`` checks it,
        with typed errors), or None; any other key is refused (a mistyped key would
        otherwise reset every game)."""
        if options is None:
            return None
        if not isinstance(options, dict):
            raise QueryError(f"options must be a dict or None; got {describe(options)}")
        other = sorted(map(str, set(options) - {"reset_mask"}))
        if other:
            raise QueryError(f"options: unknown key(s) {other}; the vector env reads "
                             f"'reset_mask' (bool[B], the games to reset)")
        if "reset_mask" not in options:
            return None
        m = options["reset_mask"]
        B = self.num_envs
        if not isinstance(m, np.ndarray) or m.dtype != np.bool_ or m.shape != (B,):
            raise QueryError(f"options['reset_mask'] must be a numpy bool array of shape "
                             f"({B},); got {describe(m)}")
        if not m.any():
            raise QueryError("options['reset_mask'] must hold at least one True (a game "
                             "to reset)")
        return m

    def _reset_some(self, rows, seeds):
        """``reset(options={"reset_mask": ...})``: games ``rows`` back at the root (their
        streams seeded where ``seeds`` says), the others as they are."""
        if not self._has_reset:
            raise QueryError("reset(options={'reset_mask': ...}) before a first reset(): "
                             "reset every game first")
        if self.backend != "positions":
            for b in rows.tolist():             # (unseeded: the stream goes on)
                sd = seeds[b]
                if sd is not None or not self._streams[b]:
                    self._seed_stream(b, sd)
        mask_out = np.zeros_like(self._mask)
        # copy=False: the restarts into the kept buffer, which step hands out; else
        # into a scratch array, then every game's observation drawn anew (on the
        # arrays backend with copy=True the kept buffer need not be up to date)
        positions = self.backend == "positions"
        kept = positions or not self.copy
        self._restart_rows(rows, self._obs if kept else np.empty_like(self._obs),
                           mask_out, seeds)
        self._done[rows] = False
        if positions:
            obs = self._obs.copy()
        else:
            obs = self.observe() if self.copy else self._obs_ro
        m = np.zeros(self.num_envs, bool)
        m[rows] = True
        return obs, {"action_mask": mask_out, "_action_mask": m}

    def _info(self, illegal, mask=None, bad=None) -> dict:
        """The step's info: ``mask``, the masks' copy (None: made here); ``bad``: the
        illegal actions' count (None: counted here)."""
        info = {"action_mask": self._mask.copy() if mask is None else mask,
                "_action_mask": self._ones.copy()}
        if illegal is not None and (illegal.any() if bad is None else bad):
            info["illegal_action"] = illegal.copy()
            info["_illegal_action"] = illegal.copy()
        return info

    def step(self, actions):
        """One move of the learner in every game (``actions`` int[B]: an action of each
        game's ``info["action_mask"]``), then the opponents' until the learner is to act
        again (Gymnasium's ``VectorEnv.step``); returns the observations, rewards,
        terminated, truncated and the info. A game that ends is reset by the autoreset
        mode: ``NEXT_STEP`` (the default) on the next step, whose action for it is not
        played (reward 0, not ended); ``SAME_STEP`` now, its last observation and info in
        ``info["final_obs"]`` / ``info["final_info"]`` (rows where
        ``info["_final_obs"]``), the reset's in the observations and masks; ``DISABLED``
        never: reset it with ``reset(options={"reset_mask": m})`` before the next step."""
        if not self._has_reset:
            raise QueryError("step() before reset(): call envs.reset() first")
        B = self.num_envs
        a = np.asarray(actions)
        if a.shape != (B,) or a.dtype.kind not in "iu":
            raise IllegalMoveError(f"actions must be B={B} integers (one per game); got "
                                   f"{describe(actions)}")
        if self.autoreset_mode is AutoresetMode.DISABLED and self._done.any():
            ended = np.flatnonzero(self._done)
            raise QueryError(f"games {ended[:8].tolist()}{' ...' if len(ended) > 8 else ''}"
                             f" ended on an earlier step and autoreset_mode is DISABLED: "
                             f"reset them first, envs.reset(options={{'reset_mask': "
                             f"envs.ended}})")
        out = self._step(a)
        if self.autoreset_mode is AutoresetMode.SAME_STEP and self._done.any():
            return self._same_step(*out)
        return out

    @property
    def ended(self) -> np.ndarray:
        """bool[B]: the games that ended on the last step and are not reset yet (with
        ``autoreset_mode`` ``NEXT_STEP`` the next step resets them; ``DISABLED``: yours
        to reset, ``reset(options={"reset_mask": envs.ended})``; ``SAME_STEP``: none)."""
        return self._done.copy()

    def _same_step(self, obs, reward, term, trunc, info):
        """The same-step autoreset of the games that ended on this step: their last
        observations and infos into ``info["final_obs"]`` (object[B]: float32[C, H, W]
        where the game ended, None elsewhere) and ``info["final_info"]`` (its arrays'
        other rows zero; ``info["_final_obs"]`` / ``["_final_info"]``: the games),
        then each restarted, its observation and mask written over its row (as
        ``SyncVectorEnv(autoreset_mode=SAME_STEP)`` of single envs gives them)."""
        done = self._done.copy()
        rows = np.flatnonzero(done)
        # (one array per ended game, None elsewhere: Gymnasium's own form, "easier for
        # users to access ... in the unbatched array")
        final_obs = np.full(self.num_envs, None, object)
        for b, o in zip(rows.tolist(), obs[rows]):     # (one copy; each row a view)
            final_obs[b] = o
        mask = info["action_mask"]
        final_mask = np.zeros_like(mask)
        final_mask[rows] = mask[rows]
        final_info = {"action_mask": final_mask, "_action_mask": done.copy()}
        illegal = info.pop("illegal_action", None)
        info.pop("_illegal_action", None)
        if illegal is not None:     # (an illegal action ends its game: all rows done)
            final_info["illegal_action"] = illegal
            final_info["_illegal_action"] = illegal.copy()
        if self.backend != "positions" and not self.copy:
            self._restart_rows(rows, self._obs, mask)
            obs = self._obs_ro
        else:
            self._restart_rows(rows, obs, mask)
        self._done[:] = False
        info["final_obs"] = final_obs
        info["_final_obs"] = done
        info["final_info"] = final_info
        info["_final_info"] = done.copy()
        return obs, reward, term, trunc, info

    def _step(self, a):
        """``step`` of validated actions ``a`` (the next-step autoreset of the games that
        ended on the last step)."""
        B = self.num_envs
        # (a copy: C order, aligned, writeable, the type the compiled steps' entry
        # points were found for)
        a = np.array(a, np.int64)
        auto = self._done                     # next-step autoreset: these games restart
        mode, illegal = self._state_mode, np.empty(B, bool)
        bad = entry_call(self._entries, "modes", self._step_modes,
                         (a, self._mask, auto, mode, illegal))
        if bad and self.illegal == "raise":
            b = int(np.flatnonzero(illegal)[0])
            raise IllegalMoveError(f"game {b}: action {int(a[b])} is not legal now "
                                   f"(agent {self.agent!r})")
        if self.backend == "positions":
            reward = np.zeros(B)
            term = np.zeros(B, bool)
            trunc = np.zeros(B, bool)
            for b, e in enumerate(self.envs):
                if mode[b] == 2:
                    o, _ = e.reset()
                else:
                    o, r, t, tr, _ = e.step(int(a[b]))
                    reward[b], term[b], trunc[b] = r, t, tr
                self._obs[b] = o
                self._mask[b] = e._core.masks[e.agent]
            self._done = term | trunc
            return self._obs.copy(), reward, term, trunc, self._info(illegal)
        dr = None if self._np is None else self._np._dr
        if dr is not None and dr.whole:    # (Dark Realms: one call per thread chunk)
            return self._dr_step(dr, mode, a, illegal, bad)
        one_call = self._one_call()
        if one_call is not None:    # (Heroscape, Descent: one compiled call per thread)
            reward, term, trunc, done, obs, mask = one_call.step(
                mode, a, self.illegal_reward, self._obs, self._mask)
            self._done = done
            c = self.counts
            c["moves"], c["generations"] = self._np.counts
            return (obs if self.copy else self._obs_ro), reward, term, trunc, \
                self._info(illegal, mask, bad)
        if self._np is not None:
            reward, term, trunc, done = self._np.step(mode, a, self.illegal_reward)
            self._done = done
            obs, mask = self._np_result()
            return obs, reward, term, trunc, self._info(illegal, mask)
        if self.games._live:   # (positions kept per game: none in the array games)
            self._reset_arrays(np.flatnonzero(mode == 2))  # pragma: no cover
        # (games of mode 2 restart in the step call; an illegal one ends there)
        reward, term, trunc = np.empty(B), np.empty(B, bool), np.empty(B, bool)
        done = np.empty(B, bool)
        obs, mask = self._kept_step(mode, a, illegal, (float(self.illegal_reward), reward,
                                                       term, trunc, done))
        self._done = done
        return obs, reward, term, trunc, self._info(illegal, mask, bad)

    def _one_call(self):
        """Heroscape's or Descent's step in one compiled call per thread (None: not
        this env's)."""
        if self._hsf is not None and self._np._hs is not None:
            return self._hsf
        return self._dsf

    def _dr_whole(self, dr):
        """Dark Realms' compiled whole steps (``_vecdr_env.WholeSteps``), made once."""
        if dr.whole_steps is None:
            from ._vecdr_env import WholeSteps
            dr.whole_steps = WholeSteps(self._np)
        return dr.whole_steps

    def _dr_step(self, dr, mode, a, illegal, bad):
        """Dark Realms' step in the compiled scope of ``_vecdr``: each thread's chunk
        of games played whole, observations and masks included, in one compiled call
        (``_vecdr_env``)."""
        obs = np.empty_like(self._obs) if self.copy else None
        mask = np.empty_like(self._mask)
        reward, term, trunc, done = self._dr_whole(dr).step(
            mode, a, self.illegal_reward, obs, self._obs, self._mask, mask)
        self._done = done
        c = self.counts
        c["moves"], c["generations"] = self._np.counts
        return (obs if self.copy else self._obs_ro), reward, term, trunc, \
            self._info(illegal, mask, bad)

    @property
    def positions(self) -> list:
        """Each game's live position (read it). On the arrays backend a copy made from
        the arrays (Tiny Epic Tactics: as at the start of a turn, its Move-action
        bookkeeping not kept)."""
        if self.backend == "positions":
            return [e.position for e in self.envs]
        return [self.games.position(b) for b in range(self.num_envs)]

    def render(self):
        """One picture per game (a tuple of B, as ``SyncVectorEnv.render``), each its
        ``gym_env``'s ``render()``: needs ``vector_env(..., render_mode="ansi" or
        "svg")``, which plays the games on the positions backend."""
        if self.render_mode is None:
            raise QueryError("render() needs vector_env(..., render_mode='ansi' or 'svg')")
        if not self._has_reset:
            raise QueryError("render() before reset(): call envs.reset() first")
        return tuple(e.render() for e in self.envs)

    def close_extras(self, **kwargs) -> None:
        pass


#: the games whose whole step is one compiled call (``_vecgame.env_chunk``)
_COMPILED = ("grid", "tiny_epic_tactics", "mage_knight")


def _autoreset_mode(value) -> AutoresetMode:
    """``autoreset_mode`` as Gymnasium's ``AutoresetMode``: the enum, or its value or
    name as a string (``"NextStep"`` / ``"next_step"``, ``"SameStep"``, ``"Disabled"``).

    >>> _autoreset_mode("same_step"), _autoreset_mode(AutoresetMode.DISABLED)
    (<AutoresetMode.SAME_STEP: 'SameStep'>, <AutoresetMode.DISABLED: 'Disabled'>)
    """
    if isinstance(value, AutoresetMode):
        return value
    if isinstance(value, str):
        for m in AutoresetMode:
            if value in (m.value, m.name) or value.upper() == m.name:
                return m
    raise QueryError(f"autoreset_mode must be a gymnasium.vector.AutoresetMode or one of "
                     f"{[m.value for m in AutoresetMode]}; got {describe(value)}")


def s_game(one) -> str:
    return one._s.game


def _why_not_arrays(one, kwargs, num_envs: int = 1, threads: int = 1) -> tuple:
    """``(why, games)``: why an environment's games are not played on arrays (None:
    they are), and the numpy-driven backend's games (``BatchedGames`` of ``num_envs``
    games on ``threads``) where telling built them (``_vecnp.why_not``), else None."""
    s = one._s
    if kwargs.get("reward_fn") is not None or kwargs.get("terminal_fn") is not None:
        return "a reward_fn or terminal_fn is called on each game's live position", None
    if kwargs.get("render_mode") is not None:
        return "render_mode draws each game's live position", None
    if s.game not in _COMPILED:
        from ._vecnp import why_not
        return why_not(one, kwargs, num_envs, threads)
    hook = getattr(s.root, "_batch_layout", None)
    q = dict(s.rules.query(s.root, s.figs[0], np.random.default_rng(0)))
    layout, why = hook(q) if hook is not None else (None, "no batched layout")
    if layout is None:
        return why, None
    if len(layout.cell) != len(s.figs):
        return "figures out of play at the start", None
    return None, None


def vector_env(name_or_scenario, num_envs: int = 8, **kwargs) -> MovecoreVectorEnv:
    """A :class:`MovecoreVectorEnv` of a bundled example (file name, ``.json``
    optional) or a scenario dict."""
    return MovecoreVectorEnv(name_or_scenario, num_envs, **kwargs)
