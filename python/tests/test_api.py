"""The OpenSpiel-shaped API of the native module (issue part 2)."""

import copy
import json
import pickle
import random

import numpy as np
import pytest
from conftest import PLAYER_COUNTS, SHORT, mid_game, play_to_end

import korovan_caravan


def test_registered_games():
    assert korovan_caravan.registered_games() == ("korovan", "caravan")


@pytest.mark.parametrize("name,players,actions,shape", [("korovan", 5, 103, [303]), ("caravan", 3, None, [1938])])
def test_game_facts(name, players, actions, shape):
    game = korovan_caravan.load_game(name, players=players)
    assert game.name == name
    assert game.num_players() == players
    if actions is not None:
        assert game.num_distinct_actions() == actions  # docs/encoding-korovan.md
    assert game.observation_tensor_shape() == shape
    assert game.observation_tensor_size() == int(np.prod(shape))
    assert game.max_game_length() > 0
    assert json.loads(game.config_json())["players"] == players


def test_config_keys_are_the_rust_fields():
    game = korovan_caravan.load_game("korovan", players=4, laps=2, first_driver=3, hand_size=2)
    config = json.loads(game.config_json())
    assert (config["laps"], config["first_driver"], config["hand_size"]) == (2, 3, 2)
    deck = dict(config["deck"], scout=9)
    assert json.loads(korovan_caravan.load_game("korovan", deck=deck).config_json())["deck"]["scout"] == 9
    caravan = korovan_caravan.load_game("caravan", players=2, max_turns=12, held_penalty=True, camels=6)
    assert json.loads(caravan.config_json())["max_turns"] == 12


@pytest.mark.parametrize(
    "args,kwargs,message",
    [
        (("korovan",), {"players": 2}, "players must be between 3 and 9, got 2"),
        (("korovan",), {"players": 10}, "players must be between 3 and 9, got 10"),
        (("caravan",), {"players": 5}, "players must be between 2 and 4, got 5"),
        (("korovan",), {"colour": "red"}, "korovan has no config field `colour`"),
        (("caravan",), {"camels": 4}, "got 4"),
        (("korovan",), {"laps": "two"}, "invalid korovan configuration"),
        (("korovan",), {"players": 300}, "invalid korovan configuration"),
        (("korovan",), {"players": -1}, "invalid korovan configuration"),
        (("chess",), {}, "unknown game `chess` (games: korovan, caravan)"),
    ],
)
def test_bad_config_raises_value_error_with_engine_message(args, kwargs, message):
    with pytest.raises(ValueError) as err:
        korovan_caravan.load_game(*args, **kwargs)
    assert message in str(err.value)


def test_bad_config_types_raise_type_error():
    with pytest.raises(TypeError):
        korovan_caravan.load_game("korovan", players="five")
    with pytest.raises(TypeError):
        korovan_caravan.load_game("korovan", laps=object())
    with pytest.raises(TypeError):
        korovan_caravan.load_game(5)


def test_initial_state_is_a_chance_node_with_exact_weights():
    state = korovan_caravan.load_game("korovan", players=5).new_initial_state()
    assert state.current_player() == korovan_caravan.CHANCE_PLAYER == -1
    assert state.is_chance_node() and not state.is_terminal()
    weights = state.chance_weights()
    # K-1.4: the default helper deck is 7 scout and 4 of each other kind.
    assert weights == [(0, 7), (1, 4), (2, 4), (3, 4), (4, 4), (5, 4)]
    outcomes = state.chance_outcomes()
    assert [i for i, _ in outcomes] == [i for i, _ in weights]
    assert outcomes[0][1] == pytest.approx(7 / 27)
    assert sum(p for _, p in outcomes) == pytest.approx(1.0)
    assert state.legal_actions() == [i for i, _ in weights]


def test_full_game_api(name):
    for players in PLAYER_COUNTS[name]:
        game = korovan_caravan.load_game(name, players=players, **SHORT[name])
        state = game.new_initial_state()
        rng = random.Random(players)
        steps = 0
        while not state.is_terminal():
            player = state.current_player()
            legal = state.legal_actions()
            assert legal == sorted(legal) and len(legal) == len(set(legal)) > 0
            mask = state.legal_actions_mask()
            assert mask.dtype == np.uint8 and mask.shape == (game.num_distinct_actions(),)
            assert list(np.flatnonzero(mask)) == legal
            if player == korovan_caravan.CHANCE_PLAYER:
                action = rng.choices(*zip(*state.chance_outcomes()))[0]
            else:
                assert 0 <= player < players
                assert state.chance_outcomes() == []
                action = rng.choice(legal)
            text = state.action_to_string(action)
            assert state.string_to_action(text) == action
            assert state.action_to_string(player, action) == text
            state.apply_action(action)
            steps += 1
        assert state.current_player() == korovan_caravan.TERMINAL_PLAYER == -4
        assert state.legal_actions() == []
        assert steps == len(state.history()) <= game.max_game_length()
        returns = state.returns()
        assert len(returns) == players and sum(returns) == pytest.approx(1.0)
        winners = state.winners()
        assert [r for r in returns if r > 0] == [1.0 / len(winners)] * len(winners)


def test_returns_are_zero_before_the_end(name):
    state = mid_game(name, 3, seed=1)
    assert not state.is_terminal()
    assert state.returns() == [0.0] * 3
    assert state.winners() is None


def test_observation_tensor_is_float32_filled_by_rust(name):
    state = mid_game(name, 3, seed=2)
    game = state.get_game()
    for seat in range(3):
        t = state.observation_tensor(seat)
        assert t.dtype == np.float32 and t.shape == (game.observation_tensor_size(),)
        assert np.isfinite(t).all() and t.any()
        out = np.full(game.observation_tensor_size(), 7.0, dtype=np.float32)
        state.observation_tensor_into(seat, out)
        np.testing.assert_array_equal(out, t)
        assert state.observation_string(seat)
    # The observer's seat is part of what it sees.
    assert not np.array_equal(state.observation_tensor(0), state.observation_tensor(1))


def test_korovan_observation_string_hides_other_hands():
    state = mid_game("korovan", 5, seed=3, steps=10)
    views = {state.observation_string(s) for s in range(5)}
    assert len(views) == 5
    assert "seen by seat 2" in state.observation_string(2)


def test_clone_is_independent(name):
    state = mid_game(name, 3, seed=4)
    for copy_ in (state.clone(), copy.copy(state), copy.deepcopy(state)):
        assert copy_ == state and copy_ is not state
        before = state.history()
        copy_.apply_action(copy_.legal_actions()[0])
        assert state.history() == before and copy_ != state


def test_pickle_round_trip(name):
    for steps in (0, 1, 7, None):
        state = mid_game(name, 3, seed=5, steps=steps)
        back = pickle.loads(pickle.dumps(state))
        assert back == state
        assert back.history() == state.history()
        assert str(back) == str(state)
    game = korovan_caravan.load_game(name, players=3, **SHORT[name])
    assert pickle.loads(pickle.dumps(game)) == game


def test_pickle_of_a_resampled_state(name):
    state = mid_game(name, 3, seed=6)
    seat = max(state.current_player(), 0)
    sample = state.resample_from_infostate(seat, 11)
    back = pickle.loads(pickle.dumps(sample))
    assert back == sample and not back.has_history()


def test_record_round_trip(name):
    state = play_to_end(korovan_caravan.load_game(name, players=3, **SHORT[name]).new_initial_state(), random.Random(8))
    record = state.to_record(seed=8)
    data = json.loads(record)
    assert data["engine"] == name and data["seed"] == 8 and data["actions"] == state.history()
    for back in (korovan_caravan.from_record(record), type(state).from_record(record)):
        assert back == state and back.returns() == state.returns()
    # A record of an unfinished game resumes where it stopped.
    part = mid_game(name, 3, seed=9)
    assert korovan_caravan.from_record(part.to_record()) == part


def test_resample_from_infostate_keeps_what_the_seat_knows():
    state = mid_game("korovan", 5, seed=10)
    seat = state.current_player()
    assert seat >= 0
    samples = [state.resample_from_infostate(seat, s) for s in range(20)]
    for sample in samples:
        assert sample.observation_string(seat) == state.observation_string(seat)
        np.testing.assert_array_equal(sample.observation_tensor(seat), state.observation_tensor(seat))
        assert sample.current_player() == seat
        assert sample.legal_actions() == state.legal_actions()
        assert not sample.has_history() and sample.history() == []
    # The hidden part differs between draws (K-8: other rows' cards are hidden).
    assert len({str(s) for s in samples}) > 1
    # Same seed, same draw.
    assert state.resample_from_infostate(seat, 3) == state.resample_from_infostate(seat, 3)


def test_caravan_resample_is_the_state_itself():
    state = mid_game("caravan", 3, seed=11)
    sample = state.resample_from_infostate(1, 5)
    # C-8.2: perfect information, so the only consistent position is this one.
    position = lambda s: json.loads(s.__reduce__()[1][0])["state"]  # noqa: E731
    assert position(sample) == position(state)
    assert str(sample) == str(state) and sample.legal_actions() == state.legal_actions()


def test_resample_accepts_a_sampler_callable():
    state = mid_game("korovan", 4, seed=12)
    draws = iter([0.25, 0.25, 0.75])
    a = state.resample_from_infostate(0, lambda: next(draws))
    b = state.resample_from_infostate(0, lambda: next(draws))
    assert a == b


def test_native_playout(name):
    game = korovan_caravan.load_game(name, players=3, **SHORT[name])
    a = game.new_initial_state()
    b = game.new_initial_state()
    n = a.playout(123)
    assert a.is_terminal() and n == len(a.history())
    b.playout(123)
    assert a == b
    c = game.new_initial_state()
    assert c.playout(123, max_steps=5) == 5 and c.history() == a.history()[:5]


def test_native_calls_run_in_threads(name):
    from concurrent.futures import ThreadPoolExecutor

    game = korovan_caravan.load_game(name, players=3, **SHORT[name])

    def play(seed):
        state = game.new_initial_state()
        state.playout(seed)
        return state.history(), game.play_random(seed)

    sequential = [play(s) for s in range(8)]
    with ThreadPoolExecutor(4) as pool:
        assert list(pool.map(play, range(8))) == sequential


def test_net_layout_is_the_engines_and_fits_the_shipped_networks():
    """``net_layout`` gives what a trainer builds its networks from, as the
    engines define it: the shipped weights have its input and head widths,
    and Caravan's board ranges lie in the input and add up to the policy."""
    from pathlib import Path

    from korovan_caravan._korovan_caravan import net_layout, nn_info

    repo = Path(__file__).resolve().parents[2]
    for name in ["korovan", "caravan"]:
        layout = net_layout(name)
        info = nn_info((repo / f"crates/{name}-core/weights/{name}.bgnn").read_bytes())
        assert layout["game"] == name
        assert (layout["inputs"], layout["policy_len"], layout["value_len"]) == (
            info["inputs"], info["policy_len"], info["value_len"])
        assert layout["num_actions"] == korovan_caravan.load_game(name).num_distinct_actions()
    assert net_layout("korovan")["board"] is None
    caravan = net_layout("caravan")
    board = caravan["board"]
    squares = board["height"] * board["width"]
    assert board["policy_before"] + board["policy_planes"] * squares + board["policy_after"] == caravan["policy_len"]
    assert board["plan"] + caravan["policy_len"] == caravan["inputs"]
    for start, channels in board["planes"]:
        assert 0 <= start and start + channels * squares <= caravan["inputs"]
    for start, length in board["globals"]:
        assert 0 <= start and start + length <= caravan["inputs"]
    with pytest.raises(ValueError, match="unknown game"):
        net_layout("chess")
