"""The Gymnasium vector environment: ``num_envs`` games of one scenario stepped together.

:func:`movecore.rl.vector_env` returns a :class:`MovecoreVectorEnv`: a Gymnasium
``VectorEnv`` of ``num_envs`` :class:`~movecore.rl.envs.MovecoreGym` environments (one
side against a built-in opponent), with Gymnasium's next-step autoreset, seeding
(``reset(seed=s)`` seeds game ``i`` with ``s + i``), batched observations
``float32[B, C, H, W]``, ``info["action_mask"]`` ``int8[B, A]`` and ``action_masks()``
(``bool[B, A]``, what MaskablePPO reads).

The games are stepped one after another in this process (Gymnasium's ``SyncVectorEnv``
semantics, one live position per game); the compiled batch of the movement game itself
(every game's legal ends in one call) is :class:`movecore.batch.BatchedGames` and
``movecore selfplay --batch`` (docs/selfplay.md). Stepping this environment's games
on that batch is not done yet (docs/rl.md says what is missing).

>>> import numpy as np
>>> import movecore.rl as rl
>>> envs = rl.vector_env("grid_hex_skirmish", num_envs=4)
>>> obs, info = envs.reset(seed=0)
>>> obs.shape[0], info["action_mask"].shape[0]
(4, 4)
>>> masks = envs.action_masks()
>>> actions = np.array([np.flatnonzero(m)[0] for m in masks])
>>> obs, reward, terminated, truncated, info = envs.step(actions)
>>> reward.shape, terminated.dtype
((4,), dtype('bool'))
"""
from __future__ import annotations

import numpy as np
from gymnasium.vector import AutoresetMode, SyncVectorEnv

from ..errors import QueryError, describe


class MovecoreVectorEnv(SyncVectorEnv):
    """``num_envs`` movement games of one scenario (see the module docstring).

    Keywords: those of :class:`~movecore.rl.envs.MovecoreGym` (``side``, ``opponent``,
    ``max_turns``, ``reward_fn``, ``terminal_fn``, ``town``, ``illegal``...)."""

    def __init__(self, name_or_scenario, num_envs: int, **kwargs):
        if type(num_envs) is not int or num_envs < 1:
            raise QueryError(f"num_envs must be a positive integer; got {describe(num_envs)}")
        from .envs import MovecoreGym, _scenario
        scenario = _scenario(name_or_scenario)
        MovecoreGym(scenario, **kwargs)     # bad keywords fail here, once, typed

        def make():
            return MovecoreGym(scenario, **kwargs)

        super().__init__([make] * num_envs, copy=True,
                         autoreset_mode=AutoresetMode.NEXT_STEP)
        self.scenario = scenario

    def action_masks(self) -> np.ndarray:
        """bool[B, A]: each game's legal actions now (a game that ended on the last step
        is reset by the next one: its mask is its last one, all False)."""
        return np.stack([e.action_masks() for e in self.envs])

    @property
    def positions(self) -> list:
        """Each game's live position (read it; do not change it)."""
        return [e.position for e in self.envs]


def vector_env(name_or_scenario, num_envs: int = 8, **kwargs) -> MovecoreVectorEnv:
    """A :class:`MovecoreVectorEnv` of a bundled example (file name, ``.json``
    optional) or a scenario dict."""
    return MovecoreVectorEnv(name_or_scenario, num_envs, **kwargs)
