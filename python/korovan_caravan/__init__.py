"""The Korovan and Caravan engines (Rust) from Python.

The API has the names OpenSpiel users know::

    import random
    import korovan_caravan
    game = korovan_caravan.load_game("korovan", players=5)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            ids, probs = zip(*state.chance_outcomes())
            state.apply_action(random.choices(ids, probs)[0])
        else:
            state.apply_action(random.choice(state.legal_actions()))
    print(state.returns())

Every rule lives in Rust; the classes of this module are generated from the
engines' common contract (``boardgame_kit::Game``), one pair per engine:
``KorovanGame``/``KorovanState`` and ``CaravanGame``/``CaravanState``.
``VectorEnv`` steps many games at once (``korovan_caravan.vector``);
``Agent`` is a built-in agent asked for one move at a time
(``korovan_caravan.agents``; as a ``pyspiel.Bot`` in ``korovan_caravan.bots``);
``evaluate`` plays agents against each other (``korovan_caravan.evaluation``);
``korovan_caravan.distributed`` spreads simulations over a Ray cluster.
With Gymnasium installed, importing the package registers
``korovan_caravan/Korovan-v0`` and ``korovan_caravan/Caravan-v0`` for
``gymnasium.make`` and ``gymnasium.make_vec``
(``korovan_caravan.registration``).
"""

from __future__ import annotations

from ._korovan_caravan import (
    AGENT_STREAM_BASE,
    CHANCE_PLAYER,
    CHANCE_STREAM,
    TERMINAL_PLAYER,
    CaravanGame,
    CaravanState,
    InvalidActionError,
    KorovanGame,
    KorovanState,
    Rng,
    from_record,
    load_game,
    registered_games,
)
from .agents import Agent
from .evaluation import evaluate
from .vector import VectorEnv

__all__ = [
    "AGENT_STREAM_BASE",
    "Agent",
    "CHANCE_PLAYER",
    "CHANCE_STREAM",
    "TERMINAL_PLAYER",
    "CaravanGame",
    "CaravanState",
    "InvalidActionError",
    "KorovanGame",
    "KorovanState",
    "Rng",
    "from_record",
    "load_game",
    "registered_games",
    "random_game",
    "VectorEnv",
    "evaluate",
]

__version__ = "0.1.0"


def _register_gymnasium():
    try:
        import gymnasium  # noqa: F401
    except ImportError:
        return
    from .registration import register

    register()


_register_gymnasium()


def random_game(game, seed):
    """Plays one game of ``game`` in Python with uniformly random agents,
    following the Rust driver's convention for random streams: chance from
    ``Rng(seed).child(CHANCE_STREAM)``, seat ``s`` from
    ``Rng(seed).child(AGENT_STREAM_BASE + s)``, each seat drawing an index
    into its legal actions in the engine's order. Returns the terminal state;
    it is the same game (same actions, same returns) as the Rust driver
    plays with a ``RandomAgent`` in every seat from the same seed
    (``game.play_random(seed)``, or ``boardgame play --agents random,...``).
    """
    root = Rng(seed)
    chance = root.child(CHANCE_STREAM)
    seats = [root.child(AGENT_STREAM_BASE + s) for s in range(game.num_players())]
    state = game.new_initial_state()
    while not state.is_terminal():
        player = state.current_player()
        if player == CHANCE_PLAYER:
            state.apply_action(state.sample_chance(chance))
        else:
            legal = state.legal_actions_engine_order()
            state.apply_action(legal[seats[player].index(len(legal))])
    return state
