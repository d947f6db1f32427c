"""The engines as OpenSpiel games (needs ``open_spiel``, an optional extra).

::

    import pyspiel
    import korovan_caravan.openspiel

    korovan_caravan.openspiel.register()
    game = pyspiel.load_game("korovan", {"players": 5})
    state = game.new_initial_state()

``register()`` registers every engine of :func:`korovan_caravan.registered_games`
as a pyspiel *Python game* under its own name (``korovan``, ``caravan``).
The OpenSpiel parameters are the scalar fields of the Rust configuration
(Korovan: ``players``, ``first_driver``, ``laps``; Caravan: ``players``,
``camels``, ``max_turns``, ``held_penalty``); nested fields keep their
defaults (use :func:`korovan_caravan.load_game` for them).

Every call goes to the Rust engine: legal actions, chance outcomes,
returns, observations (the default observer writes the Rust tensor into its
numpy buffer) and ``resample_from_infostate`` (the engine's
determinization, for ``open_spiel.python.algorithms.ismcts``).

Returns (the game parameter ``reward``, as every environment of the
package): ``"shares"`` (the default) is constant-sum (``utility_sum`` 1,
``Utility.CONSTANT_SUM``): 1 for a sole winner, ``1/k`` for each of ``k``
seats sharing a draw, 0 for the others. ``"zero_sum"`` is
``(n·share − 1)/(n − 1)`` with ``n`` seats, typed ``Utility.ZERO_SUM``
(+1 for a sole win, −1 for a loss with two seats, ``−1/(n−1)`` with more;
they sum to 0), for OpenSpiel code that requires zero-sum games:
``pyspiel.load_game("caravan", {"players": 2, "reward": "zero_sum"})``. The
rewards are terminal; the package's shaped reward (score difference) is
offered by the learner and PettingZoo environments only, since OpenSpiel's
algorithms read ``returns()`` as the game's utilities.
"""

from __future__ import annotations

import math

import numpy as np
import pyspiel

import korovan_caravan

from ._rewards import zero_sum

# What OpenSpiel needs to know of an engine beyond the Rust contract: its
# long name and whether it is a game of perfect information.
_ENGINE_FACTS = {
    "korovan": ("Korovan", pyspiel.GameType.Information.IMPERFECT_INFORMATION),
    "caravan": ("Caravan", pyspiel.GameType.Information.PERFECT_INFORMATION),
}

_registered = {}
_classes = []


def _player_range(name):
    """The player counts the engine accepts (asked of the engine itself)."""
    counts = []
    for n in range(1, 17):
        try:
            korovan_caravan.load_game(name, players=n)
        except ValueError:
            continue
        counts.append(n)
    return min(counts), max(counts)


def _scalar_defaults(name):
    import json

    config = json.loads(korovan_caravan.load_game(name).config_json())
    return {k: v for k, v in config.items() if isinstance(v, (bool, int, float, str))}


#: The reward modes of the OpenSpiel games (the parameter ``reward``).
REWARDS = ("shares", "zero_sum")


def _game_type(name, reward="shares"):
    long_name, information = _ENGINE_FACTS.get(
        name, (name.capitalize(), pyspiel.GameType.Information.IMPERFECT_INFORMATION)
    )
    lo, hi = _player_range(name)
    perfect = information == pyspiel.GameType.Information.PERFECT_INFORMATION
    return pyspiel.GameType(
        short_name=name,
        long_name=long_name,
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=information,
        utility=pyspiel.GameType.Utility.ZERO_SUM if reward == "zero_sum" else pyspiel.GameType.Utility.CONSTANT_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=hi,
        min_num_players=lo,
        # A perfect-information game's information state is its history
        # (OpenSpiel's IIGObserverForPublicInfoGame); an imperfect one's
        # observation is not perfect recall, so no information state.
        provides_information_state_string=perfect,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={**_scalar_defaults(name), "reward": "shares"},
    )


class BoardGame(pyspiel.Game):
    """An engine's configuration as a pyspiel game."""

    #: The engine's name; set on the per-engine subclass :func:`register` makes.
    short_name = ""

    def __init__(self, params=None):
        params = dict(params or {})
        short_name = self.short_name
        reward = params.pop("reward", "shares")
        if reward not in REWARDS:
            raise ValueError(f"unknown reward {reward!r} (known: {', '.join(REWARDS)})")
        self._reward = reward
        self._bg = korovan_caravan.load_game(short_name, **params)
        n = self._bg.num_distinct_actions()
        players = self._bg.num_players()
        zero_sum = reward == "zero_sum"
        info = pyspiel.GameInfo(
            num_distinct_actions=n,
            # Chance outcomes are actions of the same id space.
            max_chance_outcomes=n,
            num_players=players,
            min_utility=-1.0 / (players - 1) if zero_sum and players > 1 else 0.0,
            max_utility=1.0,
            utility_sum=0.0 if zero_sum else 1.0,
            max_game_length=self._bg.max_game_length(),
        )
        game_type = _game_type(short_name, reward) if zero_sum else _registered[short_name]
        if reward != "shares":
            params["reward"] = reward
        super().__init__(game_type, info, params)

    @property
    def reward(self):
        """The reward mode: ``"shares"`` or ``"zero_sum"``."""
        return self._reward

    @property
    def boardgame(self):
        """The :mod:`korovan_caravan` game (``KorovanGame``, ``CaravanGame``)."""
        return self._bg

    def new_initial_state(self, state=None):
        """A state at the start of a game (``state``: a :mod:`korovan_caravan`
        state of this game to wrap, if given)."""
        return BoardGameState(self, state)

    def max_chance_nodes_in_history(self):
        return self._bg.max_game_length()

    def make_py_observer(self, iig_obs_type=None, params=None):
        """The observer: the engine's observation of a seat (string and
        float32 tensor), or, for a perfect-information game asked for
        perfect recall, OpenSpiel's history-based observer."""
        if iig_obs_type is not None and iig_obs_type.perfect_recall:
            if self.get_type().information != pyspiel.GameType.Information.PERFECT_INFORMATION:
                raise ValueError(
                    f"{self._bg.name} observations are not perfect recall; "
                    "use the default observation (observation_string/observation_tensor)"
                )
            return _history_observer(self._bg.name, iig_obs_type, params)
        return BoardGameObserver(self._bg, params)


class BoardGameState(pyspiel.State):
    """A pyspiel state holding a :mod:`korovan_caravan` state (``self.inner``)."""

    def __init__(self, game, state=None):
        super().__init__(game)
        self.inner = state if state is not None else game.boardgame.new_initial_state()

    def current_player(self):
        return self.inner.current_player()

    def _legal_actions(self, player):
        return self.inner.legal_actions()

    def chance_outcomes(self):
        return self.inner.chance_outcomes()

    def _apply_action(self, action):
        self.inner.apply_action(action)

    def _action_to_string(self, player, action):
        return self.inner.action_to_string(action)

    def is_terminal(self):
        return self.inner.is_terminal()

    def returns(self):
        shares = self.inner.returns()
        if self.get_game().reward == "zero_sum" and self.inner.is_terminal():
            return zero_sum(shares, len(shares)).tolist()
        return shares

    def __str__(self):
        return str(self.inner)

    def resample_from_infostate(self, player_id, probability_sampler):
        """A state drawn from what ``player_id`` knows (the engine's
        determinization). ``probability_sampler`` is a pyspiel sampler (a
        callable giving floats in [0, 1)) or an integer seed. The new state
        has no history of its own (the hidden part of it never happened)."""
        if callable(probability_sampler):
            u = probability_sampler()
            if not isinstance(u, (int, float)) or isinstance(u, bool) or not 0.0 <= u < 1.0:
                # NaN fails the comparison too
                raise ValueError(f"the sampler returned {u!r}, not a float in [0, 1)")
            seed = int(u * 2.0**53)
        else:
            seed = int(probability_sampler)
        return BoardGameState(self.get_game(), self.inner.resample_from_infostate(player_id, seed))


def _history_observer(name, iig_obs_type, params):
    """OpenSpiel's history-based observer of a perfect-information game
    (``information_state_string`` is the history), refusing tensors: the
    game type says ``provides_information_state_tensor=False``, and
    ``information_state_tensor()`` raises ``ValueError`` saying so, as
    ``rl_environment`` refuses such a game's information-state tensor,
    instead of returning an empty list."""
    from open_spiel.python.observation import IIGObserverForPublicInfoGame

    class HistoryObserver(IIGObserverForPublicInfoGame):
        def set_from(self, state, player):
            raise ValueError(
                f"information_state_tensor not supported by {name} (its game type says "
                "provides_information_state_tensor=False): use observation_tensor, "
                "which rl_environment picks for such a game"
            )

    return HistoryObserver(iig_obs_type, params)


class BoardGameObserver:
    """OpenSpiel's PyObserver protocol over the engine's observation."""

    def __init__(self, bg_game, params):
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        shape = bg_game.observation_tensor_shape()
        self.tensor = np.zeros(math.prod(shape), np.float32)
        self.dict = {"observation": self.tensor.reshape(shape)}

    def set_from(self, state, player):
        state.inner.observation_tensor_into(player, self.tensor)

    def string_from(self, state, player):
        return state.inner.observation_string(player)


def register():
    """Registers every engine as a pyspiel game (idempotent). Returns the
    registered names."""
    for name in korovan_caravan.registered_games():
        if name in _registered:
            continue
        game_type = _game_type(name)
        _registered[name] = game_type
        # A class per engine as the creator (as OpenSpiel's own Python games
        # do): a class outlives the interpreter's shutdown, a closure would be
        # freed by OpenSpiel's registry after it, without the GIL.
        creator = type(f"{_ENGINE_FACTS.get(name, (name.capitalize(),))[0]}Game", (BoardGame,), {"short_name": name})
        _classes.append(creator)
        pyspiel.register_game(game_type, creator)
    return tuple(_registered)


def from_korovan_caravan(state):
    """A pyspiel state of the :mod:`korovan_caravan` ``state`` (its game must
    differ from the defaults in scalar fields only). A state with a history
    is replayed through pyspiel, so that ``history()`` agrees; a resampled
    state (no history) is wrapped as it is."""
    register()
    import json

    config = json.loads(state.get_game().config_json())
    name = state.get_game().name
    params = {k: v for k, v in config.items() if k in _registered[name].parameter_specification}
    game = pyspiel.load_game(name, params)
    if not state.has_history():
        return game.new_initial_state(state.clone())
    out = game.new_initial_state()
    for action in state.history():
        out.apply_action(action)
    return out
