"""Reinforcement-learning environments for every movecore game (the optional extra
``rl``: ``pip install 'movecore[rl]'``).

* :func:`env` — a PettingZoo AEC environment: the agents are the sides, the acting
  agent moves one figure per step.
* :func:`gym_env` — a Gymnasium environment: one side against a built-in opponent.
* :func:`vector_env` — ``num_envs`` of those as one Gymnasium ``VectorEnv``
  (Gymnasium's autoreset modes, next-step by default; ``info["action_mask"]`` [B, A]).
* :mod:`movecore.rl.turns` — the movement-only game both play (and ``movecore
  selfplay``): turn order, queries, end of game.
* :mod:`movecore.rl.spaces` — the fixed action space of a side and the observation
  tensors (pure numpy).

PettingZoo and Gymnasium are imported only when an environment is made; nothing else in
movecore imports them. See docs/rl.md.
"""
from __future__ import annotations

from .turns import DEFAULT_TURNS, GAMES, REMOVE_CHANCE, Match  # noqa: F401

__all__ = ["env", "gym_env", "raw_env", "vector_env", "examples", "Match", "GAMES", "DEFAULT_TURNS",
           "REMOVE_CHANCE"]


def examples(game: str | None = None) -> list[str]:
    """Names of the bundled example scenarios the environments can play (those of
    ``game``, or of every game): two sides or more, one of which moves; by name.

    >>> examples("mage_knight")
    ['mage_knight_first_turns', 'mage_knight_reveal_continue']
    """
    import json
    from importlib import resources

    from ..errors import MovecoreError, ScenarioError, describe
    from ..position import position
    from .turns import game_rules, turn_sides
    if game is not None and game not in GAMES:
        raise ScenarioError(f"examples: game must be one of {list(GAMES)}; got "
                            f"{describe(game)}")
    out = []
    root = resources.files("movecore") / "examples"
    for p in sorted(root.iterdir(), key=lambda q: q.name):
        if not p.name.endswith(".json"):
            continue
        g = next((g for g in GAMES if p.name.startswith(g + "_")), None)
        if g is None or (game is not None and g != game):
            continue
        s = json.loads(p.read_text(encoding="utf-8"))
        if s.get("game") != g:
            continue
        try:
            pos = position(s)
        except MovecoreError:
            continue
        if len(pos.sides) >= 2 and turn_sides(game_rules(g, pos), pos):
            out.append(p.name[:-5])
    return out


def _rl_extra() -> None:
    """A ``ModuleNotFoundError`` that names the ``rl`` extra where Gymnasium or PettingZoo
    is not installed (``pip install -e .`` alone), before ``movecore.rl.envs`` imports
    them."""
    from importlib.util import find_spec
    for name in ("gymnasium", "pettingzoo"):
        if find_spec(name) is None:
            raise ModuleNotFoundError(
                f"movecore.rl needs {name}, the rl extra: pip install 'movecore[rl]' (from "
                f"a clone: pip install -e '.[rl]')", name=name)


def env(name_or_scenario, render_mode=None, **kwargs):
    """The PettingZoo AEC environment of a bundled example (its file name, with or
    without ``.json``) or a scenario dict. Bad input is handled as PettingZoo's classic
    environments' wrappers do (an illegal action ends the game, -1 to its agent).
    Keywords: see :class:`movecore.rl.envs.MovecoreAEC`."""
    _rl_extra()
    from .envs import aec_env
    return aec_env(name_or_scenario, render_mode=render_mode, **kwargs)


def raw_env(name_or_scenario, render_mode=None, **kwargs):
    """:func:`env` that raises :class:`movecore.IllegalMoveError` on an illegal action
    (position unchanged) instead of ending the game."""
    _rl_extra()
    from .envs import MovecoreAEC
    kwargs.setdefault("illegal", "raise")
    return MovecoreAEC(name_or_scenario, render_mode=render_mode, **kwargs)


def gym_env(name_or_scenario, side=None, opponent="random", render_mode=None, **kwargs):
    """The Gymnasium environment: ``side`` (the first side to move by default) against
    a built-in ``opponent`` ("random", "greedy", "enemy_ai": in Dark Realms the enemy
    AI's choice, elsewhere as "random"). Keywords: ``max_turns``, ``reward_fn``,
    ``terminal_fn``, ``town``, ``illegal``, ``illegal_reward``. See
    :class:`movecore.rl.envs.MovecoreGym`."""
    _rl_extra()
    from .envs import MovecoreGym
    return MovecoreGym(name_or_scenario, side=side, opponent=opponent,
                       render_mode=render_mode, **kwargs)


def vector_env(name_or_scenario, num_envs: int = 8, **kwargs):
    """A Gymnasium vector environment of ``num_envs`` games (one side against a built-in
    opponent each): ``autoreset_mode`` Gymnasium's next-step (the default), same-step
    or disabled, partial resets by ``reset(options={"reset_mask": m})``,
    ``info["action_mask"]`` [B, A] and ``action_masks()``. Keywords: ``threads``,
    ``backend`` ("auto", "arrays", "positions"), ``copy``, ``autoreset_mode``, and
    those of :func:`gym_env` (``side``, ``opponent``, ``max_turns``, ...). See
    :class:`movecore.rl.vector.MovecoreVectorEnv`."""
    _rl_extra()
    from .vector import vector_env as make
    return make(name_or_scenario, num_envs, **kwargs)
