"""The built-in agents and Rust rollouts for OpenSpiel (needs ``open_spiel``).

* :class:`Bot` — a built-in agent (any name :class:`korovan_caravan.Agent`
  takes) as a ``pyspiel.Bot``, for ``evaluate_bots`` and OpenSpiel's tools::

      import numpy as np
      import pyspiel
      from open_spiel.python.algorithms import evaluate_bots, mcts
      import korovan_caravan.openspiel
      from korovan_caravan.bots import Bot, RolloutEvaluator

      korovan_caravan.openspiel.register()
      game = pyspiel.load_game("caravan", {"players": 2})
      mcts_bot = mcts.MCTSBot(game, 2.0, 100, RolloutEvaluator(game, seed=1),
                              random_state=np.random.RandomState(1))
      returns = evaluate_bots.evaluate_bots(
          game.new_initial_state(), [mcts_bot, Bot(game, "heuristic")], np.random.RandomState(2))

* :class:`RolloutEvaluator` — an ``open_spiel.python.algorithms.mcts.Evaluator``
  whose rollouts run in Rust: for ``mcts.MCTSBot`` and ``ismcts.ISMCTSBot``
  (the latter on Korovan, the imperfect-information game).
"""

from __future__ import annotations

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts

from ._korovan_caravan import Agent, CaravanState, KorovanState, _RolloutCore

#: The most rollouts one evaluation may ask for: ten million games already
#: take hours; more is refused rather than run for days.
MAX_ROLLOUTS = 10_000_000

__all__ = ["Bot", "MAX_ROLLOUTS", "RolloutEvaluator"]


class Bot(pyspiel.Bot):
    """A built-in agent as a ``pyspiel.Bot``: ``Bot(game, name, seed=0)``
    with ``game`` a game of this package or its OpenSpiel wrapper.

    ``step`` and ``step_with_policy`` are :class:`korovan_caravan.Agent`'s
    (the policy: a search's root visit shares, uniform for ``random``, all
    on the action for ``heuristic`` and ``flatmc``); the agents keep no
    history, so ``inform_action`` only checks its arguments (``player_id``
    the player to move in ``state``, ``action`` legal there: else
    ``ValueError``), and ``restart_at`` (given a state of the bot's game,
    else ``TypeError``) resets the agent's memory (its streams go on: seed
    the bot to make a series of games reproducible, or call
    ``restart(seed)`` for each game).

    Like :class:`korovan_caravan.Agent`, a bot may be shared between
    threads: the calls take turns (each waits, with the GIL released, for
    the running one), and the draws of interleaved games then depend on
    the order of the calls — give each thread its own bot for
    reproducible games.
    """

    def __init__(self, game, name, seed=0):
        pyspiel.Bot.__init__(self)
        #: The :class:`korovan_caravan.Agent` that chooses.
        self.agent = Agent(game, name, seed=seed)

    @property
    def name(self):
        """The agent's name (``ismcts:1000``, ``heuristic``)."""
        return self.agent.name

    def step(self, state):
        return self.agent.step(state)

    def step_with_policy(self, state):
        return self.agent.step_with_policy(state)

    def provides_policy(self):
        return True

    def get_policy(self, state):
        return self.agent.step_with_policy(state)[0]

    def _state(self, state, what):
        """The :mod:`korovan_caravan` state of ``state`` (itself or an
        OpenSpiel wrapper's ``inner``), checked to be of the bot's game."""
        inner = getattr(state, "inner", state)
        if not isinstance(inner, (KorovanState, CaravanState)):
            raise TypeError(f"{what}: state must be a state of the game, not {type(state).__name__}")
        engine = "korovan" if isinstance(inner, KorovanState) else "caravan"
        if engine != self.agent.engine:
            raise ValueError(f"{what}: state is a {engine} state, the bot plays {self.agent.engine}")
        return inner

    def inform_action(self, state, player_id, action):
        """Checks that ``player_id`` (the player to move in ``state``, or
        chance) plays ``action``, a legal action of ``state``; the agent
        keeps no history, so nothing else happens."""
        inner = self._state(state, "inform_action")
        for name, value in (("player_id", player_id), ("action", action)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                raise TypeError(f"inform_action: {name} must be an int, not {type(value).__name__}")
        if inner.is_terminal():
            raise ValueError("inform_action: state is terminal, no player acts")
        if int(player_id) != inner.current_player():
            raise ValueError(f"inform_action: player_id {player_id} is not the player to move ({inner.current_player()})")
        if int(action) not in inner.legal_actions():
            raise ValueError(f"inform_action: action {action} is not legal in state")

    def inform_actions(self, state, actions):
        pass

    def restart_at(self, state):
        """Resets the agent's memory before the game of ``state``."""
        self._state(state, "restart_at")
        self.agent.restart()

    def restart(self, seed=None):
        """Resets the agent; with ``seed``, restarts its streams too."""
        self.agent.restart(seed)

    def is_clonable(self):
        return False

    def __repr__(self):
        return f"Bot({self.agent!r})"


class RolloutEvaluator(mcts.Evaluator):
    """Rollouts in Rust for OpenSpiel's MCTS and ISMCTS.

    ``evaluate(state)`` plays ``n_rollouts`` games on from ``state`` in Rust
    (the GIL released) and returns their mean per-seat values, in the
    games' returns convention (the shares: 1 for a sole winner, ``1/k`` for
    each of ``k`` seats sharing a draw, 0 for the others):

    * ``policy``: the agent that plays every seat in the rollouts, any name
      :class:`korovan_caravan.Agent` takes (``random``, the default, uses the
      kit's allocation-free draws; ``heuristic`` the engine's planner);
      chance is drawn by its exact weights;
    * ``depth``: stop after this many actions (chance included) instead of
      at the end of the game, and score the state reached by ``cut_value``:
      ``"leader"`` gives 1 shared among the seats with the best score (the
      result if the game ended there), ``"margin"`` gives each seat
      ``0.5 + 0.5·tanh(margin / margin_scale)`` of its score margin over the
      best other seat (a signal before the lead changes hands); a rollout
      that ends the game gets its real returns;
    * ``seed``: every draw of the rollouts comes from one stream of the
      kit's generator seeded with it, so a search with a seeded bot and a
      seeded evaluator is reproducible.

    ``prior(state)`` is uniform over the legal actions (the chance
    probabilities at a chance node), as OpenSpiel's
    ``RandomRolloutEvaluator``'s.
    """

    def __init__(self, game, n_rollouts=1, policy="random", depth=None, cut_value="leader", margin_scale=30.0, seed=0):
        if isinstance(n_rollouts, bool) or not isinstance(n_rollouts, int):
            raise TypeError(f"n_rollouts must be an int, not {type(n_rollouts).__name__}")
        if n_rollouts < 1:
            raise ValueError(f"n_rollouts must be at least 1, got {n_rollouts}")
        if n_rollouts > MAX_ROLLOUTS:
            raise ValueError(f"n_rollouts must be at most {MAX_ROLLOUTS:,} (ten million games take hours), got {n_rollouts}")
        self.n_rollouts = n_rollouts
        self._core = _RolloutCore(game, policy, depth, cut_value, margin_scale, seed)

    def evaluate(self, state):
        """The mean per-seat values of ``n_rollouts`` rollouts from ``state``."""
        return np.asarray(self._core.evaluate(state, self.n_rollouts))

    def prior(self, state):
        """Uniform over the legal actions; the chance outcomes' probabilities
        at a chance node."""
        if state.is_chance_node():
            return state.chance_outcomes()
        legal = state.legal_actions()
        return [(a, 1.0 / len(legal)) for a in legal]
