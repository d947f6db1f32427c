"""PettingZoo AEC environments of the engines (needs ``pettingzoo``, an
optional extra): :mod:`korovan_caravan.pettingzoo.korovan_v0` and
:mod:`korovan_caravan.pettingzoo.caravan_v0`.

::

    from korovan_caravan.pettingzoo import korovan_v0

    env = korovan_v0.env(players=5, render_mode="ansi")
    env.reset(seed=42)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        if termination or truncation:
            action = None
        else:
            action = env.action_space(agent).sample(observation["action_mask"])
        env.step(action)
    env.close()

Agents are ``player_0`` .. ``player_{n-1}`` (seat order). An observation is
``{"observation": float32 tensor of the seat's view, "action_mask": int8
mask over the action space}`` (the mask is all zero for an agent not to
move). Chance nodes never reach the agents: the environment resolves them
exactly by their weights from the seeded stream of the Rust driver
(``Rng(seed).child(CHANCE_STREAM)``), so ``reset(seed=s)`` followed by the
same actions gives the same game.

Actions (``action_space=``): ``"flat"`` (the default) is the engine's ids,
``Discrete(num_distinct_actions)`` — Caravan's 41,667+ ids make large
masks and a slow policy head; ``"compact"`` (Caravan only) is the compact
action space of :mod:`korovan_caravan.compact` (694 / 742 / 790 ids with 2
/ 3 / 4 players, ``docs/encoding-caravan.md``): ``step`` takes a compact id
and ``action_mask`` is over the compact ids. The environment's history and
records keep the flat ids.

Rewards (``reward=``, as every environment of the package): ``"shares"``
(the default) pays at the end 1 for a sole winner, ``1/k`` for each of ``k``
seats sharing a draw, 0 otherwise; ``"zero_sum"`` pays ``(n·share − 1)/(n −
1)`` with ``n`` seats (+1 for a sole win, −1 for a loss with two seats,
``−1/(n−1)`` with more; the seats sum to 0). ``shaping=c`` (default 0) adds
to every agent's reward, after every action, ``c`` times the change of its
potential ``φ`` = its score minus the mean score of the other seats
(potential-based; the seats' shaping sums to 0 at every step).
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

import korovan_caravan
from korovan_caravan import compact
from korovan_caravan.vector import _observation_box



class BoardGameEnv(AECEnv, EzPickle):
    """An AEC environment over one engine's configuration."""

    metadata = {"render_modes": ["ansi", "human"], "name": "boardgame_v0", "is_parallelizable": False}

    def __init__(self, game_name, render_mode=None, reward="shares", shaping=0.0, action_space="flat", **config):
        EzPickle.__init__(self, game_name, render_mode, reward, shaping, action_space, **config)
        super().__init__()
        if not isinstance(action_space, str) or action_space not in ("flat", "compact"):
            raise ValueError(f"action_space must be 'flat' or 'compact', got {action_space!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}")
        if reward not in ("shares", "zero_sum"):
            raise ValueError(f"unknown reward {reward!r} (known: shares, zero_sum)")
        if isinstance(shaping, bool) or not isinstance(shaping, (int, float)) or not np.isfinite(shaping):
            raise TypeError(f"shaping must be a finite number, not {shaping!r}")
        self.reward_mode = reward
        self.shaping = float(shaping)
        self.game = korovan_caravan.load_game(game_name, **config)
        self.render_mode = render_mode
        n = self.game.num_players()
        if action_space == "compact" and game_name != "caravan":
            raise ValueError(f"action_space='compact': {game_name} has no compact action space (Caravan has)")
        #: ``"flat"`` (the engine's ids) or ``"compact"`` (Caravan's compact ids).
        self.action_space_name = action_space
        self._compact = action_space == "compact"
        num_actions = compact.num_actions(self.game) if self._compact else self.game.num_distinct_actions()
        self._num_actions = num_actions
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        self.action_spaces = {a: spaces.Discrete(num_actions) for a in self.possible_agents}
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": _observation_box(self.game),
                    "action_mask": spaces.Box(low=0, high=1, shape=(num_actions,), dtype=np.int8),
                }
            )
            for a in self.possible_agents
        }
        self.state = None
        self._chance = None

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed=None, options=None):
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1, np.uint64)[0])
        self.seed_value = int(seed)
        self._chance = korovan_caravan.Rng(self.seed_value).child(korovan_caravan.CHANCE_STREAM)
        self.state = self.game.new_initial_state()
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._resolve_chance()
        self._potentials = self._potential()
        self._after_move()

    def _resolve_chance(self):
        while self.state.is_chance_node():
            self.state.apply_action(self.state.sample_chance(self._chance))

    def _potential(self):
        """Each seat's score minus the mean score of the other seats."""
        if self.shaping == 0.0:
            return None
        scores = np.asarray(self.state.scores(), dtype=np.float64)
        n = len(scores)
        return scores - (scores.sum() - scores) / (n - 1)

    def _after_move(self):
        if self.shaping != 0.0:
            now = self._potential()
            for a in self.agents:
                seat = self.agent_name_mapping[a]
                self.rewards[a] = self.shaping * float(now[seat] - self._potentials[seat])
            self._potentials = now
        if self.state.is_terminal():
            returns = self.state.returns()
            n = len(returns)
            for a in self.agents:
                share = float(returns[self.agent_name_mapping[a]])
                final = share if self.reward_mode == "shares" else (n * share - 1.0) / (n - 1.0)
                self.rewards[a] = self.rewards[a] + final if self.shaping != 0.0 else final
                self.terminations[a] = True
            # Every agent sees its final observation once, in seat order.
            self.agent_selection = self.agents[0]
        else:
            self.agent_selection = self.possible_agents[self.state.current_player()]

    def observe(self, agent):
        seat = self.agent_name_mapping[agent]
        mask = np.zeros(self._num_actions, dtype=np.int8)
        if self.state.current_player() == seat:
            mask[:] = compact.mask(self.state) if self._compact else self.state.legal_actions_mask()
        return {"observation": self.state.observation_tensor(seat), "action_mask": mask}

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        if self._compact:
            action = compact.to_flat(self.state, action)
        self.state.apply_action(action)
        self._resolve_chance()
        self._after_move()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self):
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        text = str(self.state)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self):
        pass


def make_env(game_name, name, **kwargs):
    """The environment wrapped as PettingZoo's classic environments are
    (illegal moves raise, out-of-order calls are caught)."""
    env = BoardGameEnv(game_name, **kwargs)
    env.metadata = dict(env.metadata, name=name)
    env = wrappers.AssertOutOfBoundsWrapper(env)
    env = wrappers.OrderEnforcingWrapper(env)
    return env
