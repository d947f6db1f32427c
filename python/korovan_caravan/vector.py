"""Many games at once: ``VectorEnv``, a batch of ``num_envs`` games of one
engine stepped together by Rust (the kit's ``Batch``), with numpy arrays in
and out and a Gymnasium-style vector interface.

    import numpy as np
    import korovan_caravan

    env = korovan_caravan.VectorEnv("korovan", num_envs=1024, players=5, seed=0)
    obs, info = env.reset()
    rng = np.random.default_rng(0)
    for _ in range(100):
        actions = env.sample_legal(rng)        # a uniformly random legal id per game
        obs, rewards, terminations, truncations, info = env.step(actions)

Every game of the batch waits for a decision of one seat, the seat to move
(``info["current_player"]``); ``obs`` is that seat's observation and
``step`` takes one action id per game for that seat. Rewards are per seat
(shape ``(num_envs, players)``). A game that ends is restarted in the same
step (``terminations[i]`` is True, ``rewards[i]`` holds its final returns,
and row ``i`` already shows the next game's first decision). See
``docs/scale.md`` for the seeds and where this departs from Gymnasium's
single-agent ``VectorEnv``.
"""

from __future__ import annotations

import json
import threading
from typing import Any, Optional

import numpy as np

from ._korovan_caravan import InvalidActionError, _VectorCore

__all__ = ["VectorEnv", "InvalidActionError"]



def _observation_box(game, batch: Optional[int] = None):
    """The ``gymnasium.spaces.Box`` of ``game``'s observation tensor with
    every entry's bounds from the engine (``game.observation_tensor_bounds()``,
    the rules' bounds of each feature; ``docs/encoding-*.md``); with
    ``batch``, the box of ``batch`` stacked tensors. Every environment of the
    package declares its observations with it. An entry that the
    configuration holds constant (a seat slot past the players) gets
    ``[v, v + 1]`` rather than ``[v, v]``: Gymnasium warns about a box whose
    bounds are equal."""
    from gymnasium import spaces

    low, high = game.observation_tensor_bounds()
    high = np.where(high > low, high, low + 1).astype(np.float32)
    shape = tuple(game.observation_tensor_shape())
    low, high = low.reshape(shape), high.reshape(shape)
    if batch is not None:
        low = np.broadcast_to(low, (batch, *shape))
        high = np.broadcast_to(high, (batch, *shape))
    return spaces.Box(low=low, high=high, dtype=np.float32)


class VectorEnv:
    """``num_envs`` games of ``game`` (``"korovan"``, ``"caravan"``), with
    ``players`` seats and the configuration fields ``**config`` (as
    ``load_game`` takes them). Slot ``i`` plays its games from the seeds
    ``seed + i``, ``seed + i + num_envs``, ``seed + i + 2·num_envs``, … so a
    run is reproducible from ``(seed, num_envs, actions)`` and does not
    depend on ``threads`` (the number of threads Rust steps the games on).

    ``reward``: ``"shares"`` (the default: a finished game's row holds 1 for
    a sole winner, ``1/k`` for each of ``k`` seats sharing a draw, 0
    otherwise) or ``"zero_sum"`` (``(n·share − 1)/(n − 1)`` with ``n``
    seats: +1 for a sole win, −1 for a loss with two seats, ``−1/(n−1)``
    with more; each finished row sums to 0). Rewards are terminal only
    here: the shaped reward (score difference) is offered by
    :mod:`korovan_caravan.learner` and the PettingZoo environments.

    ``copy=True`` (the default, as Gymnasium's): every call returns new
    arrays, which Rust fills directly (nothing is copied). ``copy=False``:
    every call returns the same arrays, overwritten by the next call — the
    fastest, for a loop that consumes the arrays before stepping again.

    Threads may share one ``VectorEnv``: each call (``reset``, ``step``,
    ``sample_legal``, the buffer properties, ``threads = …``) holds the
    env's lock, so numpy never reads the arrays while Rust writes them and
    no call sees half of another's step. The calls of several threads still
    interleave: an action drawn by ``sample_legal`` in one thread may be
    refused by ``step`` (``InvalidActionError``) if another thread stepped
    in between — draw and step under one lock of your own (or use one env
    per thread) when that matters. With ``copy=False`` the arrays a call
    returned are overwritten by the next call of any thread.
    """

    def __init__(
        self,
        game: str,
        num_envs: int = 1024,
        players: Optional[int] = None,
        seed: int = 0,
        threads: int = 1,
        copy: bool = True,
        reward: str = "shares",
        **config: Any,
    ) -> None:
        self._lock = threading.RLock()
        if reward not in ("shares", "zero_sum"):
            raise ValueError(f"unknown reward {reward!r} (known: shares, zero_sum)")
        self._core = _VectorCore(game, num_envs, players, seed, threads, json.dumps(config))
        #: The reward mode: ``"shares"`` or ``"zero_sum"``.
        self.reward: str = reward
        self.num_envs: int = self._core.num_envs
        self.num_players: int = self._core.num_players
        self.num_actions: int = self._core.num_actions
        self.max_legal: int = self._core.max_legal
        self.observation_shape: tuple = tuple(self._core.observation_shape)
        #: ``"mask"`` (Korovan: ``info["legal_mask"]``) or ``"ids"`` (Caravan:
        #: ``info["legal_ids"]`` + ``info["legal_count"]``).
        self.legal_format: str = self._core.legal_format
        self.copy = bool(copy)
        self._spaces = None
        n = self.num_envs
        self._rows = np.arange(n, dtype=np.int64)
        self._row_starts = self._rows * self.num_actions  # flat index of each mask row
        self._truncations = np.zeros(n, dtype=np.bool_)
        self._truncations.flags.writeable = False
        self._out = self._new_buffers()
        self._core.observe_into(self._out)

    # ----------------------------------------------------------------- info
    @property
    def name(self) -> str:
        """The engine's name."""
        return self._core.name

    @property
    def game(self):
        """The game of every slot (``load_game``'s object)."""
        from ._korovan_caravan import load_game

        return load_game(self._core.name, **json.loads(self._core.config_json()))

    @property
    def threads(self) -> int:
        """The number of threads a step uses (results do not depend on it)."""
        return self._core.threads

    @threads.setter
    def threads(self, threads: int) -> None:
        with self._lock:
            self._core.threads = threads

    @property
    def seed(self) -> int:
        """The batch seed (of the constructor or of the last ``reset``)."""
        return self._core.seed

    def current_seed(self, game: int) -> int:
        """The seed of the game slot ``game`` plays now."""
        with self._lock:
            return self._core.current_seed(game)

    def finished(self, game: int) -> int:
        """How many games slot ``game`` has finished."""
        with self._lock:
            return self._core.finished(game)

    # ---------------------------------------------------------- Gymnasium
    def _make_spaces(self):
        if self._spaces is None:
            try:
                from gymnasium import spaces
            except ImportError as e:  # pragma: no cover - depends on the environment
                raise ImportError(
                    "observation_space/action_space need gymnasium (pip install 'korovan_caravan[pettingzoo]')"
                ) from e
            n, shape = self.num_envs, self.observation_shape
            game = self.game
            single_obs = _observation_box(game)
            obs = _observation_box(game, n)
            single_action = spaces.Discrete(self.num_actions)
            action = spaces.MultiDiscrete(np.full(n, self.num_actions, dtype=np.int64))
            self._spaces = (single_obs, obs, single_action, action)
        return self._spaces

    @property
    def single_observation_space(self):
        """One game's observation: a float32 ``Box`` of the tensor's shape."""
        return self._make_spaces()[0]

    @property
    def observation_space(self):
        """The batch's observations: ``Box`` of shape ``(num_envs, *shape)``."""
        return self._make_spaces()[1]

    @property
    def single_action_space(self):
        """One game's action: ``Discrete(num_actions)`` (legal ones in ``info``)."""
        return self._make_spaces()[2]

    @property
    def action_space(self):
        """The batch's actions: ``MultiDiscrete`` of ``num_envs`` ids."""
        return self._make_spaces()[3]

    @property
    def metadata(self) -> dict:
        """Gymnasium's metadata: games restart in the step that ends them
        (Gymnasium's "same-step" autoreset, without ``final_obs``)."""
        try:
            from gymnasium.vector import AutoresetMode

            mode: Any = AutoresetMode.SAME_STEP
        except ImportError:
            mode = "SameStep"
        return {"autoreset_mode": mode}

    # ------------------------------------------------------------ buffers
    def _new_buffers(self):
        n = self.num_envs
        mask = self.legal_format == "mask"
        return (
            np.empty(n, dtype=np.uint32),  # player
            np.empty((n, *self.observation_shape), dtype=np.float32),  # obs
            np.empty(n, dtype=np.uint32),  # legal_count
            np.empty((n, self.num_actions) if mask else 0, dtype=np.uint8),  # legal_mask
            np.empty(0 if mask else (n, self.max_legal), dtype=np.uint32),  # legal_ids
            np.empty((n, self.num_players), dtype=np.float32),  # rewards
            np.empty(n, dtype=np.uint8),  # done
        )

    def _info(self) -> dict:
        player, _, count, mask, ids, _, _ = self._out
        info = {
            "current_player": player.view(np.int32),
            "legal_count": count.view(np.int32),
        }
        if self.legal_format == "mask":
            info["legal_mask"] = mask
        else:
            info["legal_ids"] = ids.view(np.int32)
        return info

    @property
    def current_player(self) -> np.ndarray:
        """The seat to move in each game (int32, shape ``(num_envs,)``)."""
        with self._lock:
            return self._out[0].view(np.int32)

    @property
    def legal_count(self) -> np.ndarray:
        """The number of legal actions of each game (int32)."""
        with self._lock:
            return self._out[2].view(np.int32)

    @property
    def legal_mask(self) -> Optional[np.ndarray]:
        """uint8 ``(num_envs, num_actions)``, 1 at legal ids (``None`` for an
        engine whose legal format is ``"ids"``)."""
        with self._lock:
            return self._out[3] if self.legal_format == "mask" else None

    @property
    def legal_ids(self) -> Optional[np.ndarray]:
        """int32 ``(num_envs, max_legal)``: legal ids in the engine's order,
        then ``-1`` (``None`` for an engine whose legal format is ``"mask"``)."""
        with self._lock:
            return self._out[4].view(np.int32) if self.legal_format == "ids" else None

    # ------------------------------------------------------------ stepping
    def reset(self, seed: Optional[int] = None, options: Optional[dict] = None):
        """Restarts every game: slot ``i`` from seed ``seed + i`` (``seed``
        defaults to the batch seed, so ``reset()`` replays the same games).
        Returns ``(obs, info)``."""
        with self._lock:
            self._core.reset(self._core.seed if seed is None else seed)
            out = self._new_buffers() if self.copy else self._out
            self._core.observe_into(out)
            self._out = out
            return out[1], self._info()

    def step(self, actions):
        """Plays ``actions[i]`` (an action id for the seat to move) in game
        ``i``; returns ``(obs, rewards, terminations, truncations, info)``.
        Every id is checked first: an unknown or illegal id raises
        ``InvalidActionError`` (a ``ValueError``) naming the game
        (``e.game``), and then no game has advanced."""
        a = np.asarray(actions)
        if a.dtype.kind not in "iu":
            raise TypeError(f"actions must be integer ids, not {a.dtype}")
        if a.dtype != np.int64:
            if a.dtype == np.uint64 and a.size and int(a.max()) > np.iinfo(np.int64).max:
                game = int(np.argmax(a > np.iinfo(np.int64).max))
                err = InvalidActionError(f"game {game}: action id {int(a[game])} is out of range")
                err.game, err.action = game, int(a[game])
                raise err
            a = a.astype(np.int64)
        a = np.ascontiguousarray(a)
        with self._lock:
            out = self._new_buffers() if self.copy else self._out
            self._core.step_into(a, out)
            self._out = out
            player, obs, _, _, _, rewards, done = out
            terminations = done.view(np.bool_)
            if self.reward == "zero_sum" and terminations.any():
                n = self.num_players
                rewards[terminations] = (rewards[terminations] * n - 1.0) / (n - 1.0)
            truncations = self._truncations.copy() if self.copy else self._truncations
            return obs, rewards, terminations, truncations, self._info()

    def sample_legal(self, rng: Optional[np.random.Generator] = None) -> np.ndarray:
        """A uniformly random legal action id for every game (int64), drawn
        with numpy (vectorised: no Python loop over games)."""
        rng = np.random.default_rng() if rng is None else rng
        n = self.num_envs
        with self._lock:
            count = self._out[2].astype(np.int64)
            k = (rng.random(n) * count).astype(np.int64)
            if self.legal_format == "mask":
                # every legal entry's flat position, row after row (a bool
                # view: numpy scans it ~8x faster than uint8); row i's first
                # one is at the sum of the counts before it
                legal = np.flatnonzero(self._out[3].view(np.bool_))
                at = np.cumsum(count)
                at -= count
                at += k
                picked = legal[at]
                picked -= self._row_starts
                return picked
            return self._out[4][self._rows, k].astype(np.int64)

    def close(self) -> None:
        """Nothing to release (Gymnasium's interface)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __repr__(self) -> str:
        return (
            f"VectorEnv({self.name!r}, num_envs={self.num_envs}, players={self.num_players}, "
            f"seed={self.seed}, threads={self.threads})"
        )
