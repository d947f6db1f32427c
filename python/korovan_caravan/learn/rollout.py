"""The rollout buffer of :mod:`.ppo`: one update's ``steps × envs``
learner decisions (inputs, legal masks, actions, their log-probabilities,
values, rewards, game ends), their generalised advantage estimates, and the
flat samples the update's minibatches draw from.
"""

from __future__ import annotations

import numpy as np
import torch


class Rollout:
    """The decisions of one update, by step and game slot."""

    def __init__(self, steps: int, envs: int, inputs: int, actions: int):
        shape = (steps, envs)
        self.steps, self.envs = steps, envs
        self.obs = np.zeros((*shape, inputs), np.float32)
        self.mask = np.zeros((*shape, actions), np.bool_)
        self.act = np.zeros(shape, np.int64)
        self.logp, self.val, self.rew, self.done = (np.zeros(shape, np.float32) for _ in range(4))

    def samples(self, last: np.ndarray, lam: float) -> dict:
        """The flat samples of the update (``steps · envs`` rows): inputs,
        masks, actions, log-probabilities, advantages (:func:`advantages`,
        bootstrapped from ``last``, the value after the last step) and
        returns (advantage plus value)."""
        adv = advantages(self.rew, self.done, self.val, last, lam)
        ret = adv + self.val
        n = self.steps * self.envs
        return {
            "obs": torch.from_numpy(self.obs.reshape(n, -1)),
            "mask": torch.from_numpy(self.mask.reshape(n, -1)),
            "act": torch.from_numpy(self.act.reshape(n)),
            "logp": torch.from_numpy(self.logp.reshape(n)),
            "adv": torch.from_numpy(adv.reshape(n)),
            "ret": torch.from_numpy(ret.reshape(n)),
        }


def advantages(rewards: np.ndarray, dones: np.ndarray, values: np.ndarray, last: np.ndarray, lam: float) -> np.ndarray:
    """Generalised advantage estimates (no discount: a game's reward is its
    end), over ``[steps, envs]`` arrays; ``last`` is the value after the last
    step, and a finished game bootstraps from nothing."""
    steps = rewards.shape[0]
    adv = np.zeros_like(rewards)
    running = np.zeros_like(last)
    for t in reversed(range(steps)):
        nxt = last if t == steps - 1 else values[t + 1]
        live = 1.0 - dones[t]
        delta = rewards[t] + live * nxt - values[t]
        running = delta + lam * live * running
        adv[t] = running
    return adv
