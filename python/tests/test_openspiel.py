"""OpenSpiel interop (issue part 3): both engines as pyspiel Python games,
OpenSpiel's own API test, its ISMCTS bot on Korovan and MCTS on Caravan."""

import pickle

import numpy as np
import pytest
from conftest import PLAYER_COUNTS

import korovan_caravan

pyspiel = pytest.importorskip("pyspiel")
import korovan_caravan.openspiel as bo  # noqa: E402
from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402

# Caravan games under random play run to C-7.2's guard (400 turns by
# default); the search tests use a guard of 12 turns so that a complete game
# with a search bot in every seat takes seconds. random_sim_test uses 60.
CARAVAN_SEARCH_TURNS = 12
CARAVAN_SIM_TURNS = 60


@pytest.fixture(scope="module", autouse=True)
def registered():
    return bo.register()


def test_register_is_idempotent():
    assert bo.register() == ("korovan", "caravan")
    assert bo.register() == ("korovan", "caravan")
    names = pyspiel.registered_names()
    assert "korovan" in names and "caravan" in names


def test_game_type_and_info():
    game = pyspiel.load_game("korovan", {"players": 6})
    gt = game.get_type()
    assert gt.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert gt.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert (gt.min_num_players, gt.max_num_players) == (3, 9)
    assert game.num_players() == 6
    assert game.num_distinct_actions() == 103
    assert game.observation_tensor_shape() == [303]
    assert game.utility_sum() == 1.0
    caravan = pyspiel.load_game("caravan", {"players": 2})
    ct = caravan.get_type()
    assert ct.information == pyspiel.GameType.Information.PERFECT_INFORMATION
    assert (ct.min_num_players, ct.max_num_players) == (2, 4)
    assert set(ct.parameter_specification) == {"players", "camels", "max_turns", "held_penalty", "reward"}
    assert ct.parameter_specification["reward"] == "shares"


def _params(name, players):
    return {"players": players, **({"max_turns": CARAVAN_SIM_TURNS} if name == "caravan" else {})}


@pytest.mark.parametrize(
    "name,players", [(n, p) for n in sorted(PLAYER_COUNTS) for p in PLAYER_COUNTS[n]], ids=lambda x: str(x)
)
def test_random_sim_test(name, players):
    game = pyspiel.load_game(name, _params(name, players))
    # OpenSpiel's API conformance: clone, serialize, observations, masks,
    # chance outcomes, sorted and unique actions, returns within bounds.
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def test_states_agree_with_the_korovan_caravan_state():
    game = pyspiel.load_game("korovan", {"players": 4})
    state = game.new_initial_state()
    rng = np.random.RandomState(3)
    while not state.is_terminal():
        assert state.legal_actions() == state.inner.legal_actions()
        for p in range(4):
            np.testing.assert_array_equal(np.asarray(state.observation_tensor(p)), state.inner.observation_tensor(p))
            assert state.observation_string(p) == state.inner.observation_string(p)
        if state.is_chance_node():
            ids, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(ids, p=probs)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    assert state.history() == state.inner.history()
    assert state.returns() == state.inner.returns()
    # pyspiel's serialization and Python pickling keep the engine state.
    back = game.deserialize_state(state.serialize())
    assert back.inner == state.inner
    assert pickle.loads(pickle.dumps(state.inner)) == state.inner


def test_illegal_actions_raise_through_pyspiel():
    game = pyspiel.load_game("korovan", {"players": 3})
    state = game.new_initial_state()
    with pytest.raises(Exception, match="unknown action id|illegal"):
        state.apply_action(102)  # `pay` at the deal
    assert state.history() == [] and state.is_chance_node()


def _play(game, bots, seed):
    """Plays one complete game: chance by its probabilities, each seat by its
    bot. Returns the final pyspiel state."""
    rng = np.random.RandomState(seed)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            ids, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(ids, p=probs)))
        else:
            action = int(bots[state.current_player()].step(state))
            assert action in state.legal_actions()
            state.apply_action(action)
    return state


def _assert_rust_outcome(state):
    """The returns OpenSpiel reports are the Rust engine's for the same
    action sequence (replayed from a record)."""
    rust = korovan_caravan.from_record(state.inner.to_record())
    assert rust.history() == state.history()
    assert state.returns() == rust.returns()
    winners = rust.winners()
    assert [s for s, r in enumerate(state.returns()) if r > 0] == winners
    assert sum(state.returns()) == pytest.approx(1.0)


@pytest.mark.parametrize("players,seed", [(3, 1), (5, 2)])
def test_ismcts_plays_complete_korovan_games(players, seed):
    game = pyspiel.load_game("korovan", {"players": players})
    evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(seed))
    samples = []
    bots = []
    for p in range(players):
        bot = ismcts.ISMCTSBot(
            game,
            evaluator,
            uct_c=2.0,
            max_simulations=8,
            random_state=np.random.RandomState(seed * 10 + p),
            # Korovan's observation is not perfect recall; the bot keys its
            # nodes by the observation string (what the seat sees now).
            use_observation_string=True,
        )
        # The bot's own resampling path (state.resample_from_infostate with a
        # pyspiel sampler), wrapped to count the determinizations.
        bot.set_resampler(
            lambda s, pl: samples.append(pl)
            or s.resample_from_infostate(pl, pyspiel.UniformProbabilitySampler(0.0, 1.0))
        )
        bots.append(bot)
    state = _play(game, bots, seed)
    assert len(samples) > 0
    _assert_rust_outcome(state)


def test_ismcts_resample_keeps_the_observation():
    game = pyspiel.load_game("korovan", {"players": 5})
    state = game.new_initial_state()
    rng = np.random.RandomState(0)
    for _ in range(20):
        if state.is_chance_node():
            ids, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(ids, p=probs)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    player = state.current_player()
    assert player >= 0
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    seen = set()
    for _ in range(10):
        sample = state.resample_from_infostate(player, sampler)
        assert isinstance(sample, bo.BoardGameState)
        assert sample.observation_string(player) == state.observation_string(player)
        assert sample.legal_actions() == state.legal_actions()
        seen.add(str(sample))
    assert len(seen) > 1


@pytest.mark.parametrize("players,seed", [(2, 1), (3, 2)])
def test_mcts_plays_complete_caravan_games(players, seed):
    game = pyspiel.load_game("caravan", {"players": players, "max_turns": CARAVAN_SEARCH_TURNS})
    evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(seed))
    bots = [
        mcts.MCTSBot(game, uct_c=2.0, max_simulations=12, evaluator=evaluator,
                     random_state=np.random.RandomState(seed * 10 + p))
        for p in range(players)
    ]
    state = _play(game, bots, seed)
    _assert_rust_outcome(state)


def test_from_korovan_caravan_wraps_a_state():
    bg = korovan_caravan.load_game("caravan", players=2, max_turns=9).new_initial_state()
    bg.playout(4, max_steps=10)
    state = bo.from_korovan_caravan(bg)
    assert state.get_game().get_parameters()["max_turns"] == 9
    assert state.inner == bg and str(state) == str(bg)
    assert state.history() == bg.history()
    sample = bo.from_korovan_caravan(bg.resample_from_infostate(0, 1))
    assert sample.history() == [] and str(sample) == str(bg)


def test_game_strings_and_bad_parameters():
    game = pyspiel.load_game("korovan(players=7,laps=2)")
    assert game.num_players() == 7
    assert game.boardgame.max_game_length() == game.max_game_length()
    with pytest.raises(ValueError, match="players must be between 3 and 9, got 2"):
        pyspiel.load_game("korovan", {"players": 2})
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter 'colour'"):
        pyspiel.load_game("korovan", {"colour": 2})
