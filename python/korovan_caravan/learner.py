"""Single-learner environments (needs ``gymnasium`` >= 1.1): one seat of every
game is the learner's, the other seats are built-in agents by name that play
in Rust between the learner's decisions, as chance does.

    import numpy as np
    from korovan_caravan.learner import LearnerEnv, LearnerVectorEnv

    env = LearnerEnv("korovan", players=5, opponents="random", seat=0, reward="zero_sum")
    obs, info = env.reset(seed=0)
    done = False
    while not done:
        action = int(np.flatnonzero(env.action_masks())[0])   # any legal action
        obs, reward, done, truncated, info = env.step(action)

    venv = LearnerVectorEnv("caravan", num_envs=256, players=2, opponents="heuristic", seed=0)
    obs, info = venv.reset()
    actions = venv.sample_legal(np.random.default_rng(0))      # info["action_mask"] is the mask

Two forms over one Rust core (``korovan_caravan._korovan_caravan._LearnerCore``):

* :class:`LearnerEnv`, a :class:`gymnasium.Env`: one game, a scalar reward,
  ``action_masks()`` (the sb3-contrib convention) and ``info["action_mask"]``;
  Gymnasium's ``check_env`` passes on it.
* :class:`LearnerVectorEnv`, a :class:`gymnasium.vector.VectorEnv`:
  ``num_envs`` games stepped per call in Rust, autoreset mode
  ``AutoresetMode.SAME_STEP`` (a game that ends is replaced by the slot's
  next game in the same step; ``info["final_obs"]`` and
  ``info["final_info"]`` carry the finished game's last observation and
  ``share``). :mod:`korovan_caravan.sb3` adapts it to Stable-Baselines3's
  ``VecEnv`` (``MaskablePPO`` trains on it).

Arguments of both:

``game``, ``players``, ``**config``
    As ``load_game``.
``opponents``
    An agent name for every other seat (``"random"``, ``"heuristic"``,
    ``"ismcts:200"``, ``"ismcts-h:100"``, ``"flatmc:50"``, time budgets like
    ``"ismcts:20ms"``), or a list of ``players - 1`` names, one per other seat
    in seat order (a mix).
``seat``
    The learner's seat, or ``None`` to draw it uniformly per episode.
``reward``
    ``"shares"``: the engine's returns at the end (1 for a sole win, ``1/k``
    for each of ``k`` seats sharing a draw, 0 otherwise). ``"zero_sum"``:
    ``(n·share − 1)/(n − 1)`` with ``n`` seats (+1 for a sole win, −1 for a
    loss in a two-seat game, ``−1/(n−1)`` with more seats; every seat's
    rewards sum to 0, and as an affine map of the shares it keeps the same
    best policies).
``shaping``
    A coefficient ``c`` (default 0): each learner step also pays
    ``c · (φ(after) − φ(before))``, where ``φ`` is the learner's score
    (``scores()``: Korovan's cows, Caravan's points) minus the mean score of
    the other seats. Potential-based: an episode's shaping sums to
    ``c · (φ(end) − φ(start))``.
``actions``
    ``"auto"`` (the default): ``"compact"`` where the engine has a compact
    action space (Caravan: 694 ids with two seats, 742 with three, 790 with
    four; ``docs/encoding-caravan.md``), else ``"flat"``. ``"flat"``: the
    engine's action ids (``Discrete(num_distinct_actions)``; chance ids are
    never legal for the learner; Caravan's 41,667+ ids make a slow policy
    head). ``"compact"``: the compact ids (a ``ValueError`` for an engine
    without them). ``env.actions`` names the space in use.
``illegal``
    What an action that is in the action space but not legal for the
    learner does. ``"noop"`` (the default): nothing is played in that game,
    its reward is 0, it does not end, and ``info["illegal"]`` is True there —
    so any action of ``action_space`` is accepted, as Gymnasium's
    ``check_env`` expects. ``"raise"``: the step raises
    :class:`korovan_caravan.InvalidActionError` (a ``ValueError``) naming the
    game, and no game has advanced. An action outside the action space
    (negative, too large) always raises ``InvalidActionError``; a
    non-integer raises ``TypeError``; a wrong shape ``ValueError``.
``inputs``
    ``"observation"`` (the default): each row is the learner's observation
    tensor, in a box with the engine's bounds. ``"network"``: each row is the
    input of the engine's network (``boardgame_kit::nn::NetGame::write_input``:
    the tensor followed by the engine's features of the seat's view — for
    Korovan the heuristic's move and the seats seen from the learner, for
    Caravan the slot planes and the planner's move; ``docs/encoding-*.md``),
    what ``learned`` reads, in an unbounded box. ``"all-seats"``: each row
    is every seat's observation tensor, flattened and joined, the learner's
    own first and then the others in seat order around the table — the
    hidden state as the table sees it, for a critic in training (the policy
    reads the first block, the learner's tensor); in an unbounded box.
    ``env.inputs`` names it.

Seeds: slot ``i`` of a batch seeded ``s`` plays the games of seeds ``s + i``,
``s + i + num_envs``, …; a game of seed ``g`` draws chance from
``Rng(g).child(CHANCE_STREAM)``, seat ``p``'s agent from
``Rng(g).child(AGENT_STREAM_BASE + p)`` (the Rust driver's streams) and a
drawn learner seat from ``Rng(g).child(SEAT_STREAM)``. So a run is
reproducible from the seed and the learner's actions.
"""

from __future__ import annotations

import json
from typing import Any, Optional, Sequence, Union

import numpy as np
import gymnasium
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from ._korovan_caravan import InvalidActionError, _LearnerCore, load_game
from ._rewards import zero_sum
from .vector import _observation_box

__all__ = ["LearnerEnv", "LearnerVectorEnv", "REWARDS", "SEAT_STREAM", "zero_sum"]

#: The reward modes every environment of the package takes.
REWARDS = ("shares", "zero_sum")

#: The stream label of a drawn learner seat: ``Rng(seed).child(SEAT_STREAM).index(players)``.
SEAT_STREAM = 2**32 - 1


def _check_reward(reward: str) -> str:
    if not isinstance(reward, str):
        raise TypeError(f"reward must be a str ({', '.join(REWARDS)}), not {type(reward).__name__}")
    return reward


def _shaping(shaping: Any) -> float:
    if isinstance(shaping, bool) or not isinstance(shaping, (int, float, np.integer, np.floating)):
        raise TypeError(f"shaping must be a number, not {type(shaping).__name__}")
    return float(shaping)


class _Core:
    """The Rust batch and the arrays it writes (shared by both forms)."""

    def __init__(self, game, num_envs, players, seed, opponents, seat, reward, shaping, actions, illegal, inputs, config):
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))):
            raise TypeError(f"seed must be an integer or None, not {type(seed).__name__}")
        if not isinstance(game, str):
            raise TypeError(f"game must be a str, not {type(game).__name__}")
        self.core = _LearnerCore(
            game,
            num_envs,
            players,
            0 if seed is None else int(seed),
            json.dumps(config),
            opponents,
            seat,
            _check_reward(reward),
            _shaping(shaping),
            actions,
            illegal,
            inputs,
        )
        self.n = self.core.num_envs
        self.obs_shape = tuple(self.core.observation_shape)
        self.num_actions = self.core.num_actions

    def game(self):
        """The game of every slot (``load_game``'s object)."""
        return load_game(self.core.name, **json.loads(self.core.config_json()))

    def space(self):
        """The space of one row: the observation box, or an unbounded box
        for the network's input and for every seat's tensors."""
        if self.core.inputs != "observation":
            return spaces.Box(-np.inf, np.inf, self.obs_shape, np.float32)
        return _observation_box(self.game())

    def buffers(self):
        n, a = self.n, self.num_actions
        return (
            np.empty((n, *self.obs_shape), dtype=np.float32),  # obs
            np.empty((n, a), dtype=np.uint8),  # mask
            np.empty(n, dtype=np.uint32),  # seat
            np.empty(n, dtype=np.float32),  # reward
            np.empty(n, dtype=np.uint8),  # done
            np.empty(n, dtype=np.uint8),  # illegal
            np.empty((n, *self.obs_shape), dtype=np.float32),  # final_obs
            np.empty(n, dtype=np.float32),  # share
        )


def _actions_array(actions, n: int, num_actions: int) -> np.ndarray:
    a = np.asarray(actions)
    if a.dtype.kind not in "iu":
        if a.dtype == np.bool_ or a.dtype.kind not in "f" or a.size == 0:
            raise TypeError(f"actions must be integer ids, not {a.dtype}")
        # float ids are accepted only when integral (as Gymnasium's samples may be)
        if not np.all(np.isfinite(a)) or not np.all(a == np.round(a)):
            raise TypeError("actions must be integer ids")
    if a.shape != (n,):
        raise ValueError(f"actions must be one learner action per game: shape ({n},), got {a.shape}")
    if a.dtype.kind == "u" and a.size and int(a.max()) > np.iinfo(np.int64).max:
        game = int(np.argmax(a > np.iinfo(np.int64).max))
        err = InvalidActionError(f"game {game}: learner action {int(a[game])} is out of range (actions are 0..{num_actions})")
        err.game, err.action = game, int(a[game])
        raise err
    return np.ascontiguousarray(a, dtype=np.int64)


class _Facts:
    """The facts both forms read off their native core (``self._core``)."""

    _core: Any

    @property
    def name(self) -> str:
        """The engine's name."""
        return self._core.name

    @property
    def num_players(self) -> int:
        """Seats per game."""
        return self._core.num_players

    @property
    def opponents(self) -> list:
        """The opponents' agent names, one per other seat in seat order."""
        return list(self._core.opponents)

    @property
    def actions(self) -> str:
        """The learner's action space: ``"flat"`` or ``"compact"``."""
        return self._core.actions

    @property
    def inputs(self) -> str:
        """What each row holds: ``"observation"``, ``"network"`` or ``"all-seats"``."""
        return self._core.inputs


class LearnerVectorEnv(_Facts, gymnasium.vector.VectorEnv):
    """``num_envs`` single-learner games stepped together in Rust (see the
    module documentation for the arguments). A real
    :class:`gymnasium.vector.VectorEnv` with ``metadata["autoreset_mode"] =
    AutoresetMode.SAME_STEP``.

    ``step`` returns ``(obs, rewards, terminations, truncations, info)``:
    ``obs`` float32 ``(num_envs, *shape)`` (the learner's view), rewards
    float32 ``(num_envs,)``, terminations where a game ended (the row
    already shows the slot's next game), truncations all False (every game
    ends by its rules). ``info``: ``"action_mask"`` bool ``(num_envs,
    num_actions)``, ``"seat"`` the learner's seat of each game,
    ``"illegal"`` where the action was ignored (``illegal="noop"``), and, when
    a game ended, ``"final_obs"``/``"_final_obs"`` and
    ``"final_info"``/``"_final_info"`` (``{"share": …}``: the learner's
    share of the finished game, whatever the reward mode), as Gymnasium's
    same-step autoreset gives them — ``final_obs`` as one float32 array
    ``(num_envs, *shape)`` whose rows are valid where ``_final_obs`` is True
    (Gymnasium's own vector envs give an object array; indexing
    ``final_obs[i]`` reads the same), and ``share`` 0 on other rows.

    ``copy=True`` (the default): every call returns new arrays. ``copy=False``:
    the same arrays every call, overwritten by the next one (the fastest).
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(
        self,
        game: str,
        num_envs: int = 64,
        players: Optional[int] = None,
        opponents: Union[str, Sequence[str]] = "random",
        seat: Optional[int] = 0,
        reward: str = "shares",
        shaping: float = 0.0,
        actions: str = "auto",
        illegal: str = "noop",
        seed: Optional[int] = None,
        copy: bool = True,
        inputs: str = "observation",
        **config: Any,
    ) -> None:
        self._c = _Core(game, num_envs, players, seed, opponents, seat, reward, shaping, actions, illegal, inputs, config)
        self._core = self._c.core
        self.num_envs = self._c.n
        self.copy = bool(copy)
        self.render_mode = None
        self.single_observation_space = self._c.space()
        self.single_action_space = spaces.Discrete(self._c.num_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._out = self._c.buffers()
        self._views = None
        self._core.observe_into(self._out)
        self._truncations = np.zeros(self.num_envs, dtype=np.bool_)
        self._seeded = seed is not None

    # ----------------------------------------------------------- facts
    @property
    def reward(self) -> str:
        """The reward mode (``"shares"`` or ``"zero_sum"``)."""
        return self._core.reward

    @property
    def shaping(self) -> float:
        """The shaping coefficient."""
        return self._core.shaping

    @property
    def seed(self) -> int:
        """The batch seed."""
        return self._core.seed

    def current_seed(self, game: int) -> int:
        """The seed of the game slot ``game`` plays now."""
        return self._core.current_seed(game)

    def finished(self, game: int) -> int:
        """How many games slot ``game`` has finished."""
        return self._core.finished(game)

    @property
    def action_mask(self) -> np.ndarray:
        """The learner's legal actions now: bool ``(num_envs, num_actions)``."""
        return self._out[1].view(np.bool_)

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions now (sb3-contrib's method name)."""
        return self._out[1].view(np.bool_)

    @property
    def learner_seat(self) -> np.ndarray:
        """The learner's seat in each game now (int32)."""
        return self._out[2].view(np.int32)

    # ---------------------------------------------------------- stepping
    def _info(self, out) -> dict:
        if self._views is None or self._views[0] is not out:
            _, mask, seat, _, done, illegal, final_obs, share = out
            self._views = (out, mask.view(np.bool_), seat.view(np.int32), illegal.view(np.bool_),
                           done.view(np.bool_), final_obs, share)
        _, mask, seat, illegal, ended, final_obs, share = self._views
        info: dict = {"action_mask": mask, "seat": seat, "illegal": illegal}
        if ended.any():
            # the finished games' last views: a float32 array (rows valid where
            # "_final_obs" is True) rather than an object array, so that no
            # Python loop runs over the games
            info["final_obs"] = final_obs
            info["_final_obs"] = ended
            info["final_info"] = {"share": share, "_share": ended}
            info["_final_info"] = ended
        return info

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None):
        """Restarts every game: slot ``i`` from seed ``seed + i``. Without a
        seed: the constructor's seed on the first call, then the seeds after
        every game played so far (a new set of games). Returns ``(obs, info)``."""
        if seed is not None:
            if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
                raise TypeError(f"seed must be an integer or None, not {type(seed).__name__}")
            base = int(seed)
        elif self._seeded:
            base = self._core.seed
        else:
            base = self._next_fresh_seed()
        self._seeded = False
        self._core.reset(base)
        out = self._c.buffers() if self.copy else self._out
        self._core.observe_into(out)
        self._out = out
        return out[0], self._info(out)

    def _next_fresh_seed(self) -> int:
        # past every seed the batch may have used: seeds s .. s + (e+1)·N
        e = max(self._core.finished(i) for i in range(self.num_envs)) + 1
        return (self._core.seed + e * self.num_envs) % 2**64

    def step(self, actions):
        """Plays one learner action per game; see the class documentation."""
        a = _actions_array(actions, self.num_envs, self._c.num_actions)
        out = self._c.buffers() if self.copy else self._out
        self._core.step_into(a, out)
        self._out = out
        info = self._info(out)
        truncations = self._truncations.copy() if self.copy else self._truncations
        return out[0], out[3], self._views[4], truncations, info

    def sample_legal(self, rng: Optional[np.random.Generator] = None) -> np.ndarray:
        """A uniformly random legal learner action per game (int64, numpy-drawn)."""
        rng = np.random.default_rng() if rng is None else rng
        mask = self._out[1].view(np.bool_)
        count = mask.sum(axis=1)
        k = (rng.random(self.num_envs) * count).astype(np.int64)
        at = np.cumsum(count) - count + k
        return np.flatnonzero(mask)[at] - np.arange(self.num_envs) * self._c.num_actions

    def close(self, **kwargs) -> None:
        """Nothing to release."""
        self.closed = True

    def __repr__(self) -> str:
        return (
            f"LearnerVectorEnv({self.name!r}, num_envs={self.num_envs}, players={self.num_players}, "
            f"opponents={self.opponents}, seat={self._core.seat}, reward={self.reward!r})"
        )


class LearnerEnv(_Facts, gymnasium.Env):
    """One single-learner game (see the module documentation for the
    arguments): a :class:`gymnasium.Env` with a scalar float reward,
    ``action_masks()`` and ``info["action_mask"]`` (bool over the action
    space), ``info["seat"]`` (the learner's seat), ``info["illegal"]``, and
    at the end ``info["share"]`` (the learner's share of the game, whatever
    the reward mode). ``terminated`` at the end of the game; ``truncated``
    never (every game ends by its rules).

    ``reset(seed=s)`` plays the games of seeds ``s, s+1, …`` (one per
    episode); ``reset()`` without a seed starts the next of them (the
    first ``reset()`` without any seed starts at the constructor's seed,
    else at a seed drawn from ``np_random``).
    """

    metadata = {"render_modes": []}

    def __init__(
        self,
        game: str,
        players: Optional[int] = None,
        opponents: Union[str, Sequence[str]] = "random",
        seat: Optional[int] = 0,
        reward: str = "shares",
        shaping: float = 0.0,
        actions: str = "auto",
        illegal: str = "noop",
        seed: Optional[int] = None,
        inputs: str = "observation",
        **config: Any,
    ) -> None:
        self._c = _Core(game, 1, players, seed, opponents, seat, reward, shaping, actions, illegal, inputs, config)
        self._core = self._c.core
        self.render_mode = None
        self.observation_space = self._c.space()
        self.action_space = spaces.Discrete(self._c.num_actions)
        self._out = self._c.buffers()
        self._seed = seed
        self._started = False
        self._at_start = False

    @property
    def current_seed(self) -> int:
        """The seed of the game played now."""
        return self._core.current_seed(0)

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions now: bool ``(num_actions,)``."""
        return self._out[1][0].view(np.bool_).copy()

    def _info(self) -> dict:
        return {
            "action_mask": self._out[1][0].view(np.bool_).copy(),
            "seat": int(self._out[2][0]),
            "illegal": bool(self._out[5][0]),
        }

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None):
        super().reset(seed=seed)
        if seed is not None:
            self._core.reset(int(seed))
        elif not self._started:
            first = self._seed if self._seed is not None else int(self.np_random.integers(0, 2**63))
            self._core.reset(first)
        elif not self._at_start:
            self._core.reset((self._core.current_seed(0) + 1) % 2**64)
        self._started = True
        self._at_start = True
        self._core.observe_into(self._out)
        return self._out[0][0].copy(), self._info()

    def step(self, action):
        if not self._started:
            raise RuntimeError("call reset() before step()")
        if isinstance(action, bool):
            raise TypeError("an action must be an integer id, not bool")
        if isinstance(action, int) and not 0 <= action < self._c.num_actions:
            err = InvalidActionError(f"learner action {action} is out of range (actions are 0..{self._c.num_actions})")
            err.game, err.action = 0, action
            raise err
        a = np.asarray(action)
        if a.shape != ():
            if a.shape == (1,):
                a = a.reshape(())
            else:
                raise ValueError(f"a LearnerEnv takes one action, got shape {a.shape}")
        ids = _actions_array(a.reshape(1), 1, self._c.num_actions)
        self._core.step_into(ids, self._out)
        obs, _, _, reward, done, _, final_obs, share = self._out
        info = self._info()
        terminated = bool(done[0])
        self._at_start = terminated
        if terminated:
            info["share"] = float(share[0])
            info["action_mask"] = np.zeros(self._c.num_actions, dtype=np.bool_)  # nothing is legal at the end
            # the core restarted the slot; the episode's last view is final_obs
            return final_obs[0].copy(), float(reward[0]), True, False, info
        self._at_start = False
        return obs[0].copy(), float(reward[0]), False, False, info

    def __repr__(self) -> str:
        return f"LearnerEnv({self.name!r}, players={self.num_players}, opponents={self.opponents})"
