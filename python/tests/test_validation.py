"""Values out of their domain are refused, naming the argument, and an
Agent or Bot shared between threads is safe."""

import threading

import numpy as np
import pytest

import korovan_caravan
from korovan_caravan import Agent, Rng


def korovan():
    return korovan_caravan.load_game("korovan", players=3)


def decision(game, seed=0):
    """A state where a seat is to move."""
    state = game.new_initial_state()
    chance = Rng(seed).child(korovan_caravan.CHANCE_STREAM)
    while state.is_chance_node():
        state.apply_action(state.sample_chance(chance))
    return state


@pytest.mark.parametrize(
    "name,match",
    [
        ("learned:100.0000001", "temperature"),
        ("learned:1e-60", "temperature"),
        ("random ", "unknown agent `random `"),
        (" heuristic", "unknown agent ` heuristic`"),
        ("ismcts: 100", "ismcts: 100"),
        ("ismcts:100 ", "ismcts:100 "),
        ("learned:0.5\n", "temperature"),
    ],
)
def test_agent_names_are_read_exactly(name, match):
    with pytest.raises(ValueError, match=match):
        Agent(korovan(), name)
    with pytest.raises(ValueError, match=match):
        korovan_caravan.evaluate(korovan(), [name, "random", "random"], games=1)


def test_a_name_at_the_edge_still_reads():
    assert Agent(korovan(), "ismcts:100").name == "ismcts:100"
    assert Agent(korovan(), "random").name == "random"


@pytest.mark.parametrize("seed", [True, False, np.bool_(True)])
def test_a_bool_is_not_a_seed(seed):
    game = korovan()
    with pytest.raises(TypeError, match="seed"):
        Agent(game, "random", seed=seed)
    with pytest.raises(TypeError, match="seed"):
        Rng(seed)
    agent = Agent(game, "random", seed=3)
    with pytest.raises(TypeError, match="seed"):
        agent.restart(seed=seed)
    assert agent.seed == 3


def test_seeds_still_take_integers():
    assert Agent(korovan(), "random", seed=np.uint64(2**64 - 1)).seed == 2**64 - 1
    with pytest.raises(ValueError, match="seed"):
        Agent(korovan(), "random", seed=2**64)


pyspiel = pytest.importorskip("pyspiel")


def test_rollout_evaluator_refuses_absurd_rollout_counts():
    from korovan_caravan.bots import MAX_ROLLOUTS, RolloutEvaluator

    game = korovan()
    for n in (2**64, MAX_ROLLOUTS + 1):
        with pytest.raises(ValueError, match="n_rollouts must be at most"):
            RolloutEvaluator(game, n_rollouts=n)
    assert RolloutEvaluator(game, n_rollouts=MAX_ROLLOUTS).n_rollouts == MAX_ROLLOUTS
    with pytest.raises(TypeError, match="seed"):
        RolloutEvaluator(game, seed=True)


def test_bot_seed_true_is_refused():
    from korovan_caravan.bots import Bot

    with pytest.raises(TypeError, match="seed"):
        Bot(korovan(), "random", seed=True)


def test_inform_action_checks_the_player_and_the_action():
    from korovan_caravan.bots import Bot

    game = korovan()
    bot = Bot(game, "random")
    state = decision(game)
    mover = state.current_player()
    legal = state.legal_actions()
    bot.inform_action(state, mover, legal[0])  # what evaluate_bots passes
    with pytest.raises(ValueError, match="player_id 99"):
        bot.inform_action(state, 99, legal[0])
    with pytest.raises(ValueError, match="player_id"):
        bot.inform_action(state, (mover + 1) % 3, legal[0])
    with pytest.raises(ValueError, match="action -1"):
        bot.inform_action(state, mover, -1)
    with pytest.raises(ValueError, match="action"):
        bot.inform_action(state, mover, max(legal) + 1 if max(legal) + 1 not in legal else -5)
    with pytest.raises(TypeError, match="player_id"):
        bot.inform_action(state, True, legal[0])
    with pytest.raises(TypeError, match="action"):
        bot.inform_action(state, mover, "x")
    with pytest.raises(TypeError, match="state"):
        bot.inform_action(None, mover, legal[0])
    # chance, as evaluate_bots informs it
    fresh = game.new_initial_state()
    bot.inform_action(fresh, korovan_caravan.CHANCE_PLAYER, fresh.legal_actions()[0])


def test_restart_at_needs_a_state_of_the_game():
    from korovan_caravan.bots import Bot

    game = korovan()
    bot = Bot(game, "random")
    bot.restart_at(game.new_initial_state())
    with pytest.raises(TypeError, match="restart_at: state"):
        bot.restart_at(None)
    with pytest.raises(ValueError, match="caravan state"):
        bot.restart_at(korovan_caravan.load_game("caravan", players=2).new_initial_state())


def play_on(agent_step, game, seeds, errors, moves):
    try:
        for seed in seeds:
            state = game.new_initial_state()
            chance = Rng(seed).child(korovan_caravan.CHANCE_STREAM)
            while not state.is_terminal():
                if state.is_chance_node():
                    state.apply_action(state.sample_chance(chance))
                else:
                    action = agent_step(state)
                    assert action in state.legal_actions()
                    state.apply_action(action)
                    moves.append(action)
    except BaseException as e:  # noqa: BLE001 - reported by the test
        errors.append(e)


@pytest.mark.parametrize("kind", ["Agent", "Bot"])
def test_an_agent_shared_between_threads_takes_turns(kind):
    game = korovan()
    if kind == "Agent":
        shared = Agent(game, "ismcts:60", seed=1)
        step = shared.step
    else:
        from korovan_caravan.bots import Bot

        shared = Bot(game, "ismcts:60", seed=1)
        step = shared.step
    errors, moves = [], []
    threads = [
        threading.Thread(target=play_on, args=(step, game, range(t * 10, t * 10 + 4), errors, moves))
        for t in range(3)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(moves) > 12 * 5
    # the agent still answers from this thread afterwards
    assert step(decision(game)) in decision(game).legal_actions()
