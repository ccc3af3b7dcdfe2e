"""The engine of the RL environments (:mod:`movecore.rl.envs`): the scenario's set-up
shared by every environment of it (:class:`_Setup`: action and board layouts, the turn
rules, the constant planes), one episode's state (:class:`_Core`: the position, the match,
the masks and the observation kept up to date step by step), the game planes, the
default reward and the renders. No PettingZoo or Gymnasium type here: ``envs`` wraps it.
"""
from __future__ import annotations

import json
from typing import Mapping

import numpy as np

from ..errors import IllegalMoveError, QueryError, ScenarioError, describe
from ..scenario import ScenarioCache
from ._encode import encode_common_fast as encode_common
from ._encode import fill_and_encode_fast as fill_and_encode
from ._encode import fill_mask_fast as fill_mask
from .spaces import ActionLayout, BoardLayout
from .turns import GAMES, Match, game_rules, roster_of, turn_sides, turns_value

OPPONENTS = ("random", "greedy", "enemy_ai")


# --------------------------------------------------------------------------- scenarios
_EXAMPLES: dict = {}


def _example(name: str) -> dict:
    """A bundled example scenario by file name (``.json`` optional), read once per
    process (the same dict every call, so environments of it share one setup: do not
    change it)."""
    from importlib import resources
    base = name if name.endswith(".json") else name + ".json"
    hit = _EXAMPLES.get(base)
    if hit is not None:
        return hit
    root = resources.files("movecore") / "examples"
    p = root / base
    if not p.is_file():
        names = sorted(q.name[:-5] for q in root.iterdir() if q.name.endswith(".json"))
        raise ScenarioError(f"no bundled example {describe(name)}; expected one of {names}")
    out = _EXAMPLES[base] = json.loads(p.read_text(encoding="utf-8"))
    return out


#: each scenario's set-up (:func:`_setup`), by the dict and ``town``
_SETUPS = ScenarioCache(64)


def removal_reward(pos, side, figure, removed) -> dict:
    """The default reward: +1 to the side whose move removed an enemy figure, -1 to the
    side that lost it (zero-sum; nothing else is rewarded)."""
    out: dict = {}
    for _, lost in removed:
        out[side] = out.get(side, 0.0) + 1.0
        out[lost] = out.get(lost, 0.0) - 1.0
    return out


class _Setup:
    """What a scenario's episodes share: the root position (queries warmed), the rules,
    the agents, the board layout, each figure's places, each side's action layout."""

    def __init__(self, scenario: Mapping, town: bool):
        from ..position import position
        game = scenario.get("game") if isinstance(scenario, Mapping) else None
        if game not in GAMES:
            raise ScenarioError(f"movecore.rl: 'game' must be one of {list(GAMES)}; got "
                                f"{describe(game)}")
        pos = position(scenario)
        self.game = game
        self.rules = rules = game_rules(game, pos)
        rng = np.random.default_rng(0)
        for f in pos.figures:
            if rules.moves(pos, f):
                pos.legal_moves(f, **rules.query(pos, f, rng))
        self.root = pos
        self.root_depth = pos.undo_depth     # (an episode's changes: the depth above it)
        self.sides = list(pos.sides)                 # every side in play at the start
        self.turn_sides = turn_sides(rules, pos)
        self.roster = roster_of(pos)                 # each side's figures at the start
        if len(self.turn_sides) < 1 or len(self.sides) < 2:
            raise ScenarioError(f"movecore.rl: a scenario needs two sides or more and one "
                                f"that moves; got sides {self.sides}")
        self.agents = [str(s) for s in self.turn_sides]
        if len(set(self.agents)) != len(self.agents):
            raise ScenarioError(f"movecore.rl: side names must differ as strings; got "
                                f"{self.turn_sides}")
        self.agent_of = dict(zip(self.turn_sides, self.agents))
        self.figs = list(pos.figures)
        self.row = {f: i for i, f in enumerate(self.figs)}
        self.side_index = {s: k for k, s in enumerate(self.sides)}
        self.fig_side = np.array([self.side_index[pos.side_of(f)] for f in self.figs],
                                 np.int64)
        self.layout = lay = BoardLayout.of(game, pos, len(self.sides))
        # each figure's places: flat H*W cells of every action id ([n_actions, k]),
        # -1 where an id is no place (Descent's town)
        specials = {}
        self.places = []
        for f in self.figs:
            n = pos.n_actions(f)
            sp = rules.special(pos, f)
            specials.update(dict.fromkeys(sp))
            ids = np.arange(n)
            nonplace = set(sp.values()) | ({pos.st.ns} if game == "descent" else set())
            keep = ~np.isin(ids, sorted(nonplace))
            xy = np.full((n, 1, 2), -1, np.int64)
            got = np.asarray(pos.action_coords(f, ids[keep]), np.int64)
            got = got.reshape(len(got), -1, 2)
            if xy.shape[1] < got.shape[1]:
                xy = np.full((n, got.shape[1], 2), -1, np.int64)
            xy[keep] = got
            hw = lay.coords_hw(xy)
            hw[~keep] = -1
            self.places.append(hw)
        # Descent: a base that turns (a dragon, a hell hound) numbers its placements in
        # its current orientation (ids < NS: as it stands now at square s; NS + 1 + s:
        # turned); the env's places keep the orientation at the start, so a turned
        # figure's ids swap halves (``swap[i]``) on the way in and out
        self.swap = [None] * len(self.figs)
        self.size0 = {}
        if game == "descent":
            ns = pos.st.ns
            for i, f in enumerate(self.figs):
                n = pos.n_actions(f)
                if n == 2 * ns + 1:
                    sw = np.arange(n)
                    sw[:ns], sw[ns + 1:] = np.arange(ns + 1, n), np.arange(ns)
                    self.swap[i] = sw
                    self.size0[i] = pos.size[pos.index[f]]
        self.K = max(p.shape[1] for p in self.places)
        self.places = [np.pad(p, ((0, 0), (0, self.K - p.shape[1])), constant_values=-1)
                       for p in self.places]
        self.lead = [p[:, 0].copy() for p in self.places]
        self.specials = tuple(specials)
        self.actions = {}
        for side, agent in zip(self.turn_sides, self.agents):
            slots = [f for f in pos.team_figures(side) if rules.moves(pos, f)]
            P = max(pos.n_actions(f) for f in slots)
            mine = tuple(n for n in self.specials if rules.special_for.get(n, side) == side)
            self.actions[agent] = ActionLayout(side, slots, P, mine)
        self.slot_of = {a: {f: k for k, f in enumerate(al.slots)}
                        for a, al in self.actions.items()}
        self.observer = {a: self.side_index[al.side] for a, al in self.actions.items()}
        fig_hw = np.full((len(self.figs), self.K), -1, np.int64)
        for i, f in enumerate(self.figs):
            w = pos.where(f)     # a word (Descent's town) is no place on the board
            if not isinstance(w, str):
                # the place it stands on, as its action id (a large monster's whole base)
                fig_hw[i] = self.places[i][pos.action_of(f, w)]
        self.fig_hw = fig_hw
        self.n_sides = len(self.sides)
        self.valid = lay.static[0].copy()
        self.dyn0 = lay.static.shape[0] + len(self.sides)
        # game state
        self.pos_rows = None
        if game == "heroscape":
            self.pos_rows = np.array([pos.index[f] for f in self.figs], np.int64)
        self.town = town and "town" in self.specials


def _setup(scenario: Mapping, town: bool) -> _Setup:
    """The scenario's set-up, made once per scenario dict while it is not changed (an
    edited dict, or an equal one at another address, is set up anew)."""
    return _SETUPS.get(scenario, town, lambda: _Setup(scenario, town))


def _scenario(name_or_scenario) -> Mapping:
    if isinstance(name_or_scenario, str):
        return _example(name_or_scenario)
    if isinstance(name_or_scenario, Mapping):
        return name_or_scenario
    raise ScenarioError(f"movecore.rl: expected a bundled example's name or a scenario "
                        f"dict; got {describe(name_or_scenario)}")


# --------------------------------------------------------------------------- the core
class _AgentState:
    """One agent's action space as a step reads it (plain attributes, made once per
    environment): its mask (int8[A], reused by every episode: observe hands out
    copies), the row of each place in the acting figure's answer, and the figure block
    of the mask set last (``lo:hi``; 0:0 when none is)."""

    __slots__ = ("name", "layout", "P", "end_turn", "n", "slot", "observer", "mask",
                 "rowof", "lo", "hi", "extra")

    def __init__(self, setup: _Setup, agent):
        al = self.layout = setup.actions[agent]
        self.name = agent
        self.P, self.end_turn, self.n = al.P, al.end_turn, al.n
        self.slot = setup.slot_of[agent]
        self.observer = setup.observer[agent]
        self.mask = np.zeros(al.n, np.int8)
        self.rowof = np.zeros(al.P, np.int64)
        self.lo = self.hi = 0
        self.extra = np.array([al.end_turn], np.int64)    # always legal: end turn

    def clear(self) -> None:
        """Zero what is set (the figure block and end turn / the special actions)."""
        if self.n <= 4096:          # (one memset: cheaper than two slices when small)
            self.mask.fill(0)
        else:
            self.mask[self.lo:self.hi] = 0
            self.mask[self.end_turn:] = 0
        self.lo = self.hi = 0


class _Core:
    """One episode's state, shared by the AEC and Gymnasium environments (no PettingZoo
    or Gymnasium here): the position, the match, each figure's cells, the action mask.

    Paid once per environment, not per step: every agent's mask (only the block of the
    figure set last is cleared), the rows of the figures that moved this turn (appended
    as they move), the game's planes that no move changes (grid's provoke tokens, Mage
    Knight's night: drawn once per episode), and those that change rarely (Descent's
    doors, Dark Realms' allowance: drawn once per change)."""

    def __init__(self, setup: _Setup, max_turns: int, reward_fn, terminal_fn):
        s = self.s = setup
        self.max_turns = max_turns
        self.reward_fn = reward_fn if reward_fn is not None else removal_reward
        self.terminal_fn = terminal_fn
        self.match: Match | None = None
        self._agents = {a: _AgentState(s, a) for a in s.actions}
        # each figure that may act: its row, its agent, its block's first id, its places'
        # lead cells (what a step reads of the acting figure, in one lookup)
        self._figure = {f: (s.row[f], st, k * st.P, s.lead[s.row[f]])
                        for st in self._agents.values() for f, k in st.slot.items()}
        self.masks = {a: st.mask for a, st in self._agents.items()}
        self.rowof = {a: st.rowof for a, st in self._agents.items()}
        self._moved_rows = np.zeros(max(len(s.figs), 1), np.int64)
        self._moved_views = [self._moved_rows[:k] for k in range(len(s.figs) + 1)]
        self._views: dict = {}       # n -> _ARANGE[:n], -1 - n -> _ZEROS32[:n]
        self._shape = s.layout.shape
        self._plane_k = s.dyn0 + 6                    # the game's first own plane
        self._episode_plane, self._step_plane = _GAME_PLANES.get(s.game, (None, None))
        self._cache_key = self._cache_val = None     # a game plane's inputs and drawing
        self._plane = self._plane_of = None          # the episode's plane, and of what
        self._held: _AgentState | None = None        # the agent whose mask is set
        self._acting = None
        # eager (the AEC env: every step is observed, by last()): the acting agent's
        # observation is drawn with its mask, in one call per step, into ``_obs``
        # (observe hands out copies); ``_drawn`` is the agent it was drawn for
        self.eager = False
        self._obs = np.zeros(self._shape, np.float32)
        self._obs2 = self._obs.reshape(self._shape[0], -1)
        self._drawn = None

    def reset(self, rng) -> None:
        s = self.s
        pos = self.pos if self.match is not None else None
        changes = -1 if pos is None else pos.undo_depth - s.root_depth
        if 0 <= changes <= _UNDO_RESET:
            # a short episode: its few changes taken back, the position is the root's
            # again (``undo``: the same legal moves and key), with its prepared queries
            # still bound (a copy binds them again at its first query)
            for _ in range(changes):
                pos.undo()
        else:
            self.pos = s.root.copy()
        self.fig_hw = s.fig_hw.copy()
        # rows of Descent bases standing turned (no base turns elsewhere)
        self.turned = set() if s.size0 else _NONE_TURNED
        if self.match is None:
            self.match = Match(s.game, self.pos, rng, max_turns=self.max_turns,
                               rules=s.rules, sides=s.turn_sides, roster=s.roster)
        else:
            self.match.restart(self.pos, rng, s.roster)
        # the mask set last (every other one is zeros) is cleared by _refresh below
        self._acting = None
        self._moved_of = None        # the match's ``moved`` list last read, and its length
        self._n_moved = 0
        if self._episode_plane is not None and self._plane_of is not s.root:
            # (every episode starts as a copy of the root, and no move changes it)
            self._plane, self._plane_of = self._episode_plane(self), s.root
        self.over = None
        self.removed: list = []
        self._refresh()

    @property
    def agent(self):
        """The agent to act (None when over)."""
        m = self.match
        return None if self.over else self.s.agent_of[m.side]

    def _refresh(self) -> None:
        """After a change: the end of the game, the acting agent's mask, and what its
        observation draws of the acting figure."""
        m = self.match
        if m.over and not self.over:
            self.over = m.over
        held = self._held
        self._drawn = None
        if self.over:
            if held is not None:         # the last agent's mask: zeros
                held.clear()
            self._held = self._acting = None
            return
        fid = m.figure
        i, st, base, lead = self._figure[fid]
        last = None                  # the mask the agent that acted last had set
        if held is not st and held is not None:
            last = held
        s = self.s
        mv = m.moves
        acts = mv.actions
        n_ends = len(acts)
        rows = m.rows
        views = self._views          # (views made once per length: no slice per step)
        if rows is None:
            rows = views.get(n_ends)
            if rows is None:
                rows = views[n_ends] = _view(_ARANGE, n_ends)
        if self.turned and i in self.turned:
            acts = s.swap[i][acts]       # as the env numbers them (see _Setup.swap)
        acts = self._acts = np.ascontiguousarray(acts, np.int32)
        extra = st.extra
        if s.town and st.layout.specials:
            town = s.rules.special(self.pos, fid).get("town", -1)
            if (m.rows is not None and (mv.actions == town).any()) or \
                    town in (getattr(mv, "non_moves", None) or {}).values():
                extra = np.array([st.end_turn, st.layout.special(0, base // st.P)],
                                 np.int64)
        lo, hi = st.lo, st.hi
        st.lo = base
        st.hi = base + st.P
        self._held = st
        agent = self._acting = st.name
        # the rows of the side's figures that moved this turn (the match appends them)
        moved = m.moved
        n = self._n_moved
        if moved is not self._moved_of:
            self._moved_of, n = moved, 0
        if n != len(moved):
            buf, row = self._moved_rows, s.row
            if n > len(moved):
                n = 0
            while n < len(moved):
                buf[n] = row[moved[n]]
                n += 1
        self._n_moved = n
        stop = mv._stop         # (None: no end must stop; Moves.stop would allocate)
        if stop is None:
            stop = views.get(-1 - n_ends)
            if stop is None:
                stop = views[-1 - n_ends] = _view(_ZEROS32, n_ends)
        costs = np.ascontiguousarray(mv.costs, np.int32)
        stop = np.ascontiguousarray(stop, np.int32)
        if self.eager:
            o = self._obs2
            if last is None:
                last_mask, last_lo, last_hi, last_tail = _NO_MASK, 0, 0, 0
            else:                    # zeroed by the writer below
                last_mask, last_lo, last_hi, last_tail = last.mask, last.lo, last.hi, \
                    last.end_turn
                last.lo = last.hi = 0
            fill_and_encode(last_mask, last_lo, last_hi, last_tail, st.mask, st.rowof, lo,
                            hi, st.end_turn, base, acts, rows, extra, o, s.layout.static,
                            self.fig_hw, s.fig_side, s.n_sides, st.observer, i,
                            self._moved_views[n], lead, costs, stop,
                            m.turn / self.max_turns, s.valid)
            self._game_planes(o)
            self._drawn = agent
        else:
            if last is not None:
                last.clear()
            fill_mask(st.mask, st.rowof, lo, hi, st.end_turn, base, acts, rows, extra)
            self._enc = (i, self._moved_views[n], lead, acts, rows, costs, stop)

    def act(self, agent, action) -> dict:
        """Play ``action`` for ``agent`` (checked against the mask first: on error the
        position is unchanged); returns the rewards ``{side: r}``."""
        if self.over == "broken":
            raise QueryError("a reward_fn or terminal_fn answered with a value of the "
                             "wrong type: call reset()")
        st = self._agents[agent]
        if type(action) is not int:
            if isinstance(action, np.ndarray) and action.shape == ():
                action = action.item()
            if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
                raise IllegalMoveError(f"action must be an integer in [0, {st.n}); got "
                                       f"{describe(action)}")
            action = int(action)
        if not 0 <= action < st.n:
            raise IllegalMoveError(f"action must be an integer in [0, {st.n}); got "
                                   f"{describe(action)}")
        if not st.mask[action]:
            raise IllegalMoveError(f"action {action} ({st.layout.names()[action]}) is not "
                                   f"legal now (agent {agent!r}, acting figure "
                                   f"{self.match.figure!r})")
        s, m = self.s, self.match
        fid, side = m.figure, m.side
        if action < st.end_turn:
            place = action % st.P
            removed = m.play(int(st.rowof[place]))
            i, _, _, lead = self._figure[fid]
            if s.K == 1:
                self.fig_hw[i, 0] = lead[place]
            else:
                self.fig_hw[i] = s.places[i][place]
            if s.swap[i] is not None:
                if self.pos.size[self.pos.index[fid]] != s.size0[i]:
                    self.turned.add(i)
                else:
                    self.turned.discard(i)
        elif action == st.end_turn:
            m.end_turn()
            removed = []
        else:   # a special action (Descent's glyph to town)
            removed = m.play_action(s.rules.special(self.pos, fid)["town"])
            self.fig_hw[s.row[fid]] = -1
        for f, _ in removed:
            self.fig_hw[s.row[f]] = -1
        self.removed = removed
        if self.terminal_fn is not None and not m.over:
            end = self.terminal_fn(self.pos)
            if not isinstance(end, (bool, np.bool_)):
                self._broken("terminal_fn must return True or False", end)
            if end:
                self.over = "terminated"
        if self.reward_fn is removal_reward:
            rewards = removal_reward(self.pos, side, fid, removed) if removed else {}
        else:
            rewards = self.reward_fn(self.pos, side, fid, removed)
            if not isinstance(rewards, Mapping) or not all(
                    isinstance(r, (int, float, np.integer, np.floating))
                    for r in rewards.values()):
                self._broken("reward_fn must return a dict {side: number}", rewards)
        self._refresh()
        return rewards

    def _broken(self, what: str, got) -> None:
        """A callback answered a move with a value of the wrong type, after the move
        was made: the episode is over (every step raises until the next reset)."""
        self.over = "broken"
        self._refresh()
        raise QueryError(f"{what}; got {describe(got)} (the move was made: call reset())")

    # ---------------------------------------------------------------- observation
    def observe(self, agent, out=None) -> np.ndarray:
        """float32[C, H, W]: ``agent``'s observation (into ``out`` when given)."""
        if agent == self._drawn:         # drawn with the step (eager)
            if out is None:
                return self._obs.copy()
            out.reshape(self._shape)[...] = self._obs
            return out
        s = self.s
        if out is None:
            out = np.empty(self._shape, np.float32)
        o = out.reshape(out.shape[0], -1)
        frac = self.match.turn / self.max_turns        # (made float32 by the writer)
        if self._acting == agent:
            encode_common(o, s.layout.static, self.fig_hw, s.fig_side, s.n_sides,
                          s.observer[agent], *self._enc, frac, s.valid)
        else:
            encode_common(o, s.layout.static, self.fig_hw, s.fig_side, s.n_sides,
                          s.observer[agent], -1, _NO_ROWS, _NO_ROWS, _NO_ACTS, _NO_ROWS,
                          _NO_ACTS, _NO_ACTS, frac, s.valid)
        self._game_planes(o)
        return out

    def _game_planes(self, o) -> None:
        """Draw the game's own planes into ``o`` (float32[C, H*W], zeroed there)."""
        if self._plane is not None:
            o[self._plane_k] = self._plane
        elif self._step_plane is not None:
            self._step_plane(self, o, self._plane_k)


# The game's own planes (docs/rl.md), drawn after encode_common zeroed them. Those no
# move changes are made once per episode (``episode(core)`` -> float32[H*W] or None);
# the others are drawn per observation (``step(core, o, k)``), from a drawing made once
# per change of what they show where that changes rarely (``_Core._cache_key``).
def _provoke_plane(core):
    """Grid: the provoke tokens' cells (moves never change the tokens)."""
    tokens = core.pos.provoke
    if not tokens:
        return None
    if tokens != core._cache_key:       # (every episode starts with the same tokens)
        hw = core.s.layout.coords_hw(np.array(tokens, np.int64))
        hw = hw[hw >= 0]                # a token off the board's rectangle: none
        plane = None
        if len(hw):
            plane = np.zeros(core.s.valid.shape, np.float32)
            plane[hw] = 1
        core._cache_key, core._cache_val = tokens, plane
    return core._cache_val


def _night_plane(core):
    """Mage Knight: every valid cell at night (moves never change the time of day)."""
    return core.s.valid if core.pos.time == "night" else None


def _engaged_plane(core, o, k) -> None:
    """Heroscape: the cells of the engaged figures."""
    eng = core.pos.engaged[core.s.pos_rows]
    if eng.any():
        c = core.fig_hw[eng].ravel()
        o[k, c[c >= 0]] = 1


def _door_planes(core, o, k) -> None:
    """Descent: the squares on either side of each closed door, then of each open one."""
    doors = core.pos.door_open
    if doors != core._cache_key:
        block = np.zeros((2, o.shape[1]), np.float32)
        for d, cells in zip(doors, core.s.layout.extra["doors"]):
            block[1 if d else 0, cells] = 1
        core._cache_key, core._cache_val = list(doors), block
    o[k:k + 2] = core._cache_val


def _allowance_plane(core, o, k) -> None:
    """Dark Realms: the acting figure's rolled Move / 12 on every valid cell."""
    if not core.over:
        q = core.match.query
        if q:
            v = q.get("roll", q.get("move", 0))
            if v != core._cache_key:
                core._cache_key, core._cache_val = v, core.s.valid * np.float32(v / 12)
            o[k] = core._cache_val


_GAME_PLANES = {"grid": (_provoke_plane, None), "mage_knight": (_night_plane, None),
                "heroscape": (None, _engaged_plane), "descent": (None, _door_planes),
                "dark_realms": (None, _allowance_plane)}


#: an episode that changed its position at most this many times is taken back by
#: ``undo`` at the next reset (cheaper than a copy and the binding of its prepared
#: queries again, about 5-10 undos); a longer one starts from a fresh copy of the root
_UNDO_RESET = 4

_NO_ROWS = np.zeros(0, np.int64)
_NO_ACTS = np.zeros(0, np.int32)
_NO_MASK = np.zeros(0, np.int8)
_NONE_TURNED: frozenset = frozenset()
_ARANGE = np.arange(1 << 16, dtype=np.int64)
_ZEROS32 = np.zeros(1 << 16, np.int32)


def _view(base: np.ndarray, n: int) -> np.ndarray:
    """``base[:n]``, or a new array like it where ``base`` is too short (the writers
    only read it)."""
    if n <= base.shape[0]:
        return base[:n]
    return np.arange(n) if base is _ARANGE else np.zeros(n, base.dtype)


def _action_cells(s: _Setup, agent) -> np.ndarray:
    al = s.actions[agent]
    out = np.full(al.n, -1, np.int64)
    for k, f in enumerate(al.slots):
        lead = s.lead[s.row[f]]
        out[k * al.P:k * al.P + len(lead)] = lead
    return out


def _render(core: _Core, mode: str):
    """The position as the text picture or the SVG picture of movecore's render module
    (the acting figure's reach drawn)."""
    import importlib
    render = importlib.import_module("movecore.render")   # a tool: loaded on demand
    pos, m = core.pos, core.match
    fid = m.figure if not core.over else None
    if fid is None:
        fid = next(iter(pos.figures))
        q = core.s.rules.query(pos, fid, np.random.default_rng(0))
    else:
        q = m.query
    sq = core.s.rules.scenario_query(fid, dict(q))
    scenario = pos.to_scenario(sq)
    result = pos.solve(sq)
    if mode == "svg":
        return render.render_svg(scenario, result)
    return render.render_text(scenario, result)


def _check_common(max_turns, render_mode, reward_fn, terminal_fn, town=False,
                  illegal_reward=-1.0) -> tuple[int, float]:
    """Check the keywords every environment takes; returns ``max_turns`` as an int
    (:func:`.turns.turns_value`) and ``illegal_reward`` as a float."""
    turns = turns_value(max_turns)
    if not isinstance(town, bool):
        raise QueryError(f"town must be True or False; got {describe(town)}")
    if isinstance(illegal_reward, (bool, np.bool_)) or \
            not isinstance(illegal_reward, (int, float, np.integer, np.floating)) or \
            not np.isfinite(illegal_reward):
        raise QueryError(f"illegal_reward must be a finite number; got "
                         f"{describe(illegal_reward)}")
    if render_mode not in (None, "ansi", "svg"):
        raise QueryError(f"render_mode must be None, 'ansi' or 'svg'; got "
                         f"{describe(render_mode)}")
    for name, fn in (("reward_fn", reward_fn), ("terminal_fn", terminal_fn)):
        if fn is not None and not callable(fn):
            raise QueryError(f"{name} must be callable; got {describe(fn)}")
    return turns, float(illegal_reward)
