"""Stable-Baselines3's ``VecEnv`` over :class:`korovan_caravan.learner.LearnerVectorEnv`
(needs ``stable-baselines3``; ``MaskablePPO`` needs ``sb3-contrib``).

    from sb3_contrib import MaskablePPO
    from korovan_caravan.learner import LearnerVectorEnv
    from korovan_caravan.sb3 import SB3VecEnv

    venv = SB3VecEnv(LearnerVectorEnv("korovan", num_envs=16, players=5, opponents="random", seed=0))
    model = MaskablePPO("MlpPolicy", venv, n_steps=128, seed=0)
    model.learn(10_000)

The games step in Rust, opponents included; the adapter only reshapes the
results into SB3's form: ``step_wait`` returns ``(obs, rewards, dones,
infos)`` with one info dict per game, ``infos[i]["terminal_observation"]``
(the finished game's last learner view) and ``infos[i]["episode"]``
(``{"r": return, "l": length}``, which SB3's logger reads) and
``infos[i]["share"]`` (the learner's share of the game) where game ``i``
ended. sb3-contrib reads the masks through ``env_method("action_masks")``
(one bool row per game) or :meth:`SB3VecEnv.action_masks`.

``SB3VecEnv.shares`` lists the learner's share (1 for a sole win, ``1/k``
for a ``k``-way draw, 0 for a loss) of every game finished so far, in the
order they ended: the training's running win share, whatever the reward
mode (SB3 logs the rewards). To measure a trained model against the
built-in agents with a confidence interval, use
:func:`korovan_caravan.evaluation.evaluate_policy` with
:func:`korovan_caravan.evaluation.sb3_policy` (SB3's own
``evaluate_policy`` reports the mean reward, not the share of wins)::

    from korovan_caravan.evaluation import evaluate_policy, sb3_policy
    print(evaluate_policy(sb3_policy(model), "korovan", players=5, opponents="heuristic", games=200))
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence

import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from .learner import LearnerVectorEnv

__all__ = ["SB3VecEnv"]


class SB3VecEnv(VecEnv):
    """A :class:`LearnerVectorEnv` as an SB3 ``VecEnv`` (see the module documentation)."""

    def __init__(self, env: LearnerVectorEnv) -> None:
        if not isinstance(env, LearnerVectorEnv):
            raise TypeError(f"SB3VecEnv wraps a LearnerVectorEnv, not {type(env).__name__}")
        self.env = env
        super().__init__(env.num_envs, env.single_observation_space, env.single_action_space)
        self._actions: Optional[np.ndarray] = None
        self._returns = np.zeros(env.num_envs, dtype=np.float64)
        self._lengths = np.zeros(env.num_envs, dtype=np.int64)
        #: The learner's share of every finished game (1 sole win, ``1/k`` a
        #: ``k``-way draw, 0 a loss), in the order the games ended.
        self.shares: List[float] = []

    def reset(self):
        seed = self._seeds[0] if self._seeds and self._seeds[0] is not None else None
        obs, _ = self.env.reset(seed=seed)
        self._reset_seeds()
        self._returns[:] = 0.0
        self._lengths[:] = 0
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self):
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async()")
        obs, rewards, terminations, truncations, info = self.env.step(self._actions.reshape(self.num_envs))
        self._actions = None
        dones = terminations | truncations
        self._returns += rewards
        self._lengths += 1
        infos: List[dict] = [{} for _ in range(self.num_envs)]
        if dones.any():
            final_obs = info["final_obs"]
            shares = info["final_info"]["share"]
            for i in np.flatnonzero(dones):
                infos[i]["terminal_observation"] = final_obs[i].copy()
                infos[i]["episode"] = {"r": float(self._returns[i]), "l": int(self._lengths[i])}
                infos[i]["share"] = float(shares[i])
                self.shares.append(float(shares[i]))
            self._returns[dones] = 0.0
            self._lengths[dones] = 0
        return obs, rewards.astype(np.float32), dones, infos

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions now: bool ``(num_envs, num_actions)``."""
        return self.env.action_masks().copy()

    def close(self) -> None:
        self.env.close()

    def _indices(self, indices) -> Sequence[int]:
        if indices is None:
            return range(self.num_envs)
        if isinstance(indices, int):
            return [indices]
        return list(indices)

    def get_attr(self, attr_name: str, indices=None) -> List[Any]:
        idx = self._indices(indices)
        if attr_name == "action_masks":
            return [self.action_masks] * len(idx)
        value = getattr(self.env, attr_name)
        return [value] * len(idx)

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        setattr(self.env, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> List[Any]:
        idx = self._indices(indices)
        if method_name == "action_masks":
            # rows of the env's mask (views, no copy): sb3-contrib stacks them
            masks = self.env.action_masks()
            return list(masks) if indices is None else [masks[i] for i in idx]
        result = getattr(self.env, method_name)(*method_args, **method_kwargs)
        return [result] * len(idx)

    def env_is_wrapped(self, wrapper_class, indices=None) -> List[bool]:
        return [False] * len(self._indices(indices))

    def get_images(self):
        return [None] * self.num_envs
