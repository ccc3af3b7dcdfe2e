"""PettingZoo AEC and Gymnasium environments of the movement-only game (docs/rl.md).

The only movecore module that imports PettingZoo and Gymnasium (the ``rl`` extra).

>>> import movecore.rl as rl
>>> env = rl.env("grid_hex_skirmish")
>>> env.reset(seed=1)
>>> obs, reward, terminated, truncated, info = env.last()
>>> obs["observation"].shape == env.observation_space(env.agent_selection)["observation"].shape
True
>>> env.step(int(obs["action_mask"].nonzero()[0][0]))
"""
from __future__ import annotations

from typing import Callable

import gymnasium
import numpy as np
from gymnasium import spaces as gs
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ..errors import IllegalMoveError, QueryError, describe, seed_value
from .spaces import ActionLayout
from .turns import DEFAULT_TURNS
# the engine of the environments; _example, _setup, _scenario, removal_reward and
# _UNDO_RESET are read here by the tools, tests and docs
from ._core import (OPPONENTS, _UNDO_RESET, _Core, _action_cells, _check_common,  # noqa: F401
                    _example, _render, _scenario, _setup, removal_reward)


# --------------------------------------------------------------------------- PettingZoo
class MovecoreAEC(AECEnv):
    """The movement-only game as a PettingZoo AEC environment.

    Agents are the sides that move (``possible_agents``, in turn order, as strings);
    ``agent_selection`` stays on a side while its figures move, one figure per step, in
    play order (the acting figure is the ``acting`` plane of the observation). Actions:
    :class:`movecore.rl.spaces.ActionLayout` (``action_layout(agent)``); observations:
    ``{"observation": float32[C, H, W], "action_mask": int8[A]}`` (all zeros for an agent
    that is not to act).

    Keywords: ``max_turns`` (turns until truncation, default 40); ``reward_fn(position,
    side, figure, removed) -> {side: reward}`` called after every move (``removed``:
    ``[(figure, side)]`` taken off by its removal coin; default
    :func:`removal_reward`); ``terminal_fn(position) -> bool``: an extra end of the
    game, asked after every move (the game always ends when fewer than two sides have
    figures); either callback answering with a value of the wrong type raises
    :class:`movecore.QueryError` after the move (reset the episode then); ``town``
    (Descent: allow the glyph to town as a special action, True or False);
    ``render_mode`` "ansi" (text) or "svg".

    Bad input, as PettingZoo's classic environments wrap theirs (built in here: the
    wrappers' attribute forwarding would cost more than a step): an action outside the
    mask or the action space, with ``illegal="terminate"`` (the default, PettingZoo's
    ``TerminateIllegalWrapper``), ends the game for every agent, ``illegal_reward``
    (-1) to the agent that played it, 0 to the others, ``infos[agent]["illegal_action"]``
    True, and leaves the position unchanged; with ``illegal="raise"`` it raises
    :class:`movecore.IllegalMoveError` and changes nothing. ``step``/``observe``/
    ``last``/``render``/``position`` before ``reset`` raise
    :class:`movecore.QueryError` (PettingZoo's ``OrderEnforcingWrapper``); a step with
    an action other than None for an agent whose episode is over raises ``ValueError``
    (PettingZoo's ``_was_dead_step``);
    ``observe`` of an unknown agent raises :class:`movecore.QueryError`.
    """

    metadata = {"render_modes": ["ansi", "svg"], "name": "movecore_v0",
                "is_parallelizable": False}

    def __init__(self, name_or_scenario, render_mode=None, *, max_turns: int = DEFAULT_TURNS,
                 reward_fn: Callable | None = None, terminal_fn: Callable | None = None,
                 town: bool = False, illegal: str = "terminate",
                 illegal_reward: float = -1.0):
        super().__init__()
        turns, reward = _check_common(max_turns, render_mode, reward_fn, terminal_fn,
                                      town, illegal_reward)
        if illegal not in ("terminate", "raise"):
            raise QueryError(f"illegal must be 'terminate' or 'raise'; got {describe(illegal)}")
        self.illegal = illegal
        self.illegal_reward = reward
        self._has_reset = False
        self.scenario = _scenario(name_or_scenario)
        self._s = _setup(self.scenario, town)
        self.render_mode = render_mode
        self.possible_agents = list(self._s.agents)
        lay = self._s.layout
        self.observation_spaces = {a: gs.Dict({
            "observation": gs.Box(-1.0, 1.0, lay.shape, np.float32),
            "action_mask": gs.Box(0, 1, (al.n,), np.int8)})
            for a, al in self._s.actions.items()}
        self.action_spaces = {a: gs.Discrete(al.n) for a, al in self._s.actions.items()}
        self._core = _Core(self._s, turns, reward_fn, terminal_fn)
        self._core.eager = True      # last() observes every step: drawn with the step
        self._rng = None
        self._zeros = dict.fromkeys(self.possible_agents, 0.0)      # reset's copies
        self._falses = dict.fromkeys(self.possible_agents, False)

    # ---------------------------------------------------------------- spaces
    def observation_space(self, agent):
        return self.observation_spaces[self._agent(agent)]

    def action_space(self, agent):
        return self.action_spaces[self._agent(agent)]

    def action_layout(self, agent) -> ActionLayout:
        """The agent's fixed action space: slots, places per figure, extra ids."""
        return self._s.actions[self._agent(agent)]

    @property
    def plane_names(self) -> list:
        """The observation's planes, in order (docs/rl.md)."""
        return list(self._s.layout.names)

    def action_cells(self, agent) -> np.ndarray:
        """int64[A]: for every action id of ``agent``, the observation cell (a flat
        index into ``H * W``) where it puts the figure (the lead cell of a placement);
        -1 for actions that are no place (end turn, special actions)."""
        return _action_cells(self._s, self._agent(agent))

    @property
    def position(self):
        """The live position of the episode (read it; change it only through step). A
        reset may take it back to the start in place (a short episode is undone), so
        keep a ``copy()`` of a position you mean to keep."""
        if not self._has_reset:
            self._reset_first("position")
        return self._core.pos

    def _agent(self, agent):
        if not isinstance(agent, str) or agent not in self._s.actions:
            raise QueryError(f"unknown agent {describe(agent)}; agents: "
                             f"{self.possible_agents}")
        return agent

    # ---------------------------------------------------------------- episode
    def reset(self, seed=None, options=None):
        seed = seed_value(seed)
        if seed is not None or self._rng is None:
            self._rng = np.random.default_rng(seed)
        core = self._core
        core.reset(self._rng)
        agents = self.agents = list(self.possible_agents)
        zeros, falses = self._zeros, self._falses
        self.rewards = zeros.copy()
        self._cumulative_rewards = zeros.copy()
        self.terminations = falses.copy()
        self.truncations = falses.copy()
        self.infos = {a: {} for a in agents}
        self._skip_agent_selection = None
        self.agent_selection = self.agents[0]
        self._has_reset = True
        self._dirty = False
        self._finish()

    def _finish(self) -> None:
        """Ends, eliminated sides, and the next agent to select."""
        core = self._core
        if core.over:
            flag = self.truncations if core.over == "truncated" else self.terminations
            for a in self.agents:
                flag[a] = True
            if self.agent_selection not in self.agents:
                self.agent_selection = self.agents[0]
            return
        nxt = core._acting           # (the game is not over: the agent to act)
        dead = None
        if core.removed or self._skip_agent_selection is not None:
            # the sides with figures in play (the match keeps them: figures leave play
            # only by its removals; the position's ``sides`` would be made anew)
            alive = core.match._lineup
            dead = []
            for a in self.agents:
                if not self.terminations[a] and self._s.actions[a].side not in alive:
                    self.terminations[a] = True      # every figure of the side was removed
                if self.terminations[a] or self.truncations[a]:
                    dead.append(a)
        if dead:
            self._skip_agent_selection = nxt
            self.agent_selection = dead[0]
        else:
            self.agent_selection = nxt

    def _reset_first(self, what: str):
        raise QueryError(f"{what} before reset(): call env.reset() first")

    def step(self, action):
        if not self._has_reset:
            self._reset_first("step()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        try:
            if action is None:
                raise IllegalMoveError(f"agent {agent!r} is to act: action None is for "
                                       f"agents whose episode is over")
            got = self._core.act(agent, action)     # IllegalMoveError: nothing changed
        except IllegalMoveError:
            if self.illegal == "raise":
                raise
            self._illegal(agent)
            return
        self._cumulative_rewards[agent] = 0
        if got or self._dirty:
            rewards = self.rewards = dict.fromkeys(self.agents, 0.0)
            for side, r in got.items():
                a = self._s.agent_of.get(side)
                if a in rewards:
                    rewards[a] += float(r)
            self._dirty = bool(got)
            self._finish()
            self._accumulate_rewards()
        else:        # nothing rewarded now or last step: the zero rewards stand
            self._finish()

    def _illegal(self, agent) -> None:
        """End the game after an illegal action (TerminateIllegalWrapper's rule)."""
        self._cumulative_rewards[agent] = 0
        self.rewards = {a: (self.illegal_reward if a == agent else 0.0)
                        for a in self.agents}
        for a in self.agents:
            self.terminations[a] = True
        self.infos[agent] = {**self.infos[agent], "illegal_action": True}
        self._core.over = "illegal"
        self._core._refresh()        # no legal action left for anyone
        self._dirty = True
        self._accumulate_rewards()

    def last(self, observe: bool = True):
        if not self._has_reset:
            self._reset_first("last()")
        agent = self.agent_selection          # (always one of the agents)
        if observe:
            core = self._core
            obs = {"observation": core.observe(agent),
                   "action_mask": core.masks[agent].copy()}
        else:
            obs = None
        return (obs, self._cumulative_rewards[agent], self.terminations[agent],
                self.truncations[agent], self.infos[agent])

    def observe(self, agent):
        if not self._has_reset:
            self._reset_first("observe()")
        core = self._core
        mask = core.masks.get(agent) if isinstance(agent, str) else None
        if mask is None:
            self._agent(agent)           # QueryError naming it
        return {"observation": core.observe(agent), "action_mask": mask.copy()}

    def render(self):
        if self.render_mode is None:
            gymnasium.logger.warn("render() without render_mode: nothing to render")
            return None
        if not self._has_reset:
            self._reset_first("render()")
        return _render(self._core, self.render_mode)

    def close(self):
        pass


def aec_env(name_or_scenario, render_mode=None, **kwargs):
    """:class:`MovecoreAEC` with PettingZoo's classic rules for bad input built in
    (``illegal="terminate"``); ``wrappers=True`` wraps it (``illegal="raise"``) in
    PettingZoo's own ``TerminateIllegalWrapper`` (reward -1), ``AssertOutOfBoundsWrapper``
    and ``OrderEnforcingWrapper`` instead, slower per step. Those differ in two cases:
    an action outside the space fails an ``assert`` (``AssertionError``; unchecked under
    ``python -O``) instead of ending the game, and a step before ``reset`` raises the
    wrapper's ``AssertionError`` instead of :class:`movecore.QueryError`."""
    if kwargs.pop("wrappers", False):
        env = MovecoreAEC(name_or_scenario, render_mode=render_mode, illegal="raise",
                          **kwargs)
        env = wrappers.TerminateIllegalWrapper(env, illegal_reward=-1)
        env = wrappers.AssertOutOfBoundsWrapper(env)
        return wrappers.OrderEnforcingWrapper(env)
    return MovecoreAEC(name_or_scenario, render_mode=render_mode, **kwargs)


# --------------------------------------------------------------------------- Gymnasium
class MovecoreGym(gymnasium.Env):
    """One side of the movement-only game against a built-in opponent, as a Gymnasium
    environment.

    ``side``: the learner's side (default: the first to move); every other side is
    played by ``opponent``: "random" (a uniformly random legal move), "greedy" (an end
    nearest an enemy, ties at random) or "enemy_ai" (Dark Realms: the enemies' legal set
    already is the enemy AI's choice; a random one of its tied choices — elsewhere the
    same as "random"). Observation ``float32[C, H, W]``, action ``Discrete(A)`` (the
    side's :class:`~movecore.rl.spaces.ActionLayout`), ``action_masks()`` (bool[A],
    what MaskablePPO reads) and ``info["action_mask"]``. The reward of a step is the
    learner's reward over its move and the opponents' moves until it acts again.
    An action outside the mask (Gymnasium's checker samples any action of the space)
    ends the episode (``terminated``) with reward ``illegal_reward`` (default -1) and
    ``info["illegal_action"]`` True, the position unchanged, as PettingZoo's
    ``TerminateIllegalWrapper`` does; with ``illegal="raise"`` it raises
    :class:`movecore.IllegalMoveError` instead (position unchanged, the episode goes
    on). ``step`` after the end raises :class:`movecore.QueryError`.
    Other keywords as :class:`MovecoreAEC`.
    """

    metadata = {"render_modes": ["ansi", "svg"]}

    def __init__(self, name_or_scenario, side=None, opponent: str = "random",
                 render_mode=None, *, max_turns: int = DEFAULT_TURNS,
                 reward_fn: Callable | None = None, terminal_fn: Callable | None = None,
                 town: bool = False, illegal: str = "terminate", illegal_reward: float = -1.0):
        turns, reward = _check_common(max_turns, render_mode, reward_fn, terminal_fn,
                                      town, illegal_reward)
        if illegal not in ("terminate", "raise"):
            raise QueryError(f"illegal must be 'terminate' or 'raise'; got {describe(illegal)}")
        self.illegal = illegal
        self.illegal_reward = reward
        if opponent not in OPPONENTS:
            raise QueryError(f"opponent must be one of {list(OPPONENTS)}; got "
                             f"{describe(opponent)}")
        self.scenario = _scenario(name_or_scenario)
        self._s = s = _setup(self.scenario, town)
        agents = s.agents
        if side is None:
            side = agents[0]
        if str(side) not in agents:
            raise QueryError(f"side {describe(side)} does not move in this scenario; sides "
                             f"that move: {agents}")
        self.agent = str(side)
        self.opponent = opponent
        self.render_mode = render_mode
        al = s.actions[self.agent]
        self.observation_space = gs.Box(-1.0, 1.0, s.layout.shape, np.float32)
        self.action_space = gs.Discrete(al.n)
        self._core = _Core(s, turns, reward_fn, terminal_fn)
        self._done = True
        self._out = False

    @property
    def plane_names(self) -> list:
        return list(self._s.layout.names)

    def action_layout(self) -> ActionLayout:
        return self._s.actions[self.agent]

    def action_cells(self) -> np.ndarray:
        """int64[A]: the observation cell (flat ``H * W``) of every action id; -1 for
        actions that are no place (see :meth:`MovecoreAEC.action_cells`)."""
        return _action_cells(self._s, self.agent)

    @property
    def position(self):
        """As :attr:`MovecoreAEC.position`."""
        self._before_reset("position")
        return self._core.pos

    def _before_reset(self, what: str) -> None:
        if self._core.match is None:
            raise QueryError(f"{what} before reset(): call env.reset() first")

    def reset(self, *, seed=None, options=None):
        # (movecore's seed rule, as the vector env's: Gymnasium's own refuses NumPy
        # integers and takes True)
        super().reset(seed=seed_value(seed))
        # the game's dice and the opponent draw from the env's np_random (seeded above)
        core = self._core
        core.reset(self.np_random)
        self._done = self._out = False
        r = self._opponents()
        self._pending = r
        return core.observe(self.agent), self._info()

    def _info(self) -> dict:
        return {"action_mask": self._core.masks[self.agent].copy()}

    def action_masks(self) -> np.ndarray:
        """bool[A]: the legal actions now (all False once the episode is over)."""
        return self._core.masks[self.agent].astype(bool)

    def _opponents(self) -> float:
        """Play the other sides until the learner is to act or the game is over; returns
        the learner's reward meanwhile."""
        core, me = self._core, self.agent
        total = 0.0
        greedy = self.opponent == "greedy"
        s = self._s
        mine = s.actions[me].side
        while not core.over and core.agent != me:
            if core.removed and mine not in core.pos.sides:
                self._out = True         # every figure of the learner's side was removed
                break
            m = core.match
            agent = core.agent
            row = m.greedy_row() if greedy else m.random_row()
            al = s.actions[agent]
            # the env's id of that end (a turned Descent base: see _Setup.swap)
            a = s.slot_of[agent][m.figure] * al.P + int(core._acts[row])
            got = core.act(agent, a)
            total += float(got.get(s.actions[me].side, 0.0))
        return total

    def step(self, action):
        if self._done:
            self._before_reset("step()")
            raise QueryError("step() after the episode ended: call reset() first")
        core = self._core
        try:
            got = core.act(self.agent, action)     # IllegalMoveError: position unchanged
        except IllegalMoveError:
            if self.illegal == "raise":
                raise
            self._done = True
            core.over = "illegal"
            core._refresh()
            info = self._info()
            info["illegal_action"] = True
            return core.observe(self.agent), self.illegal_reward, True, False, info
        reward = self._pending + float(got.get(self._s.actions[self.agent].side, 0.0))
        self._pending = 0.0
        reward += self._opponents()
        terminated = core.over == "terminated" or self._out
        truncated = core.over == "truncated" and not terminated
        self._done = bool(core.over) or self._out
        return core.observe(self.agent), reward, terminated, truncated, self._info()

    def render(self):
        if self.render_mode is None:
            gymnasium.logger.warn("render() without render_mode: nothing to render")
            return None
        self._before_reset("render()")
        return _render(self._core, self.render_mode)
