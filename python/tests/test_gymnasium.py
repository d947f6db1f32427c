"""Gymnasium's registry (``gymnasium.make``, ``make_vec``) and the observation
spaces' bounds (the engines' ``observation_tensor_bounds``)."""

import warnings

import numpy as np
import pytest

import korovan_caravan

gymnasium = pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env  # noqa: E402

from korovan_caravan.learner import LearnerEnv, LearnerVectorEnv  # noqa: E402
from korovan_caravan.registration import ENV_IDS, register  # noqa: E402

GAMES = {"korovan_caravan/Korovan-v0": "korovan", "korovan_caravan/Caravan-v0": "caravan"}


def test_the_ids_are_registered_on_import():
    assert set(ENV_IDS) == set(GAMES)
    for env_id in ENV_IDS:
        assert env_id in gymnasium.registry
    register()  # again: nothing changes, nothing raises
    assert [e for e in gymnasium.registry if e.startswith("korovan_caravan/")] == list(ENV_IDS)


@pytest.mark.parametrize("env_id", list(GAMES))
def test_make_passes_the_players_opponents_and_reward(env_id):
    players = 4 if GAMES[env_id] == "korovan" else 2
    env = gymnasium.make(env_id, players=players, opponents="heuristic", reward="zero_sum", seed=3)
    inner = env.unwrapped
    assert isinstance(inner, LearnerEnv)
    assert inner.name == GAMES[env_id]
    assert inner.num_players == players
    assert inner.opponents == ["heuristic"] * (players - 1)
    assert inner._core.reward == "zero_sum"
    assert env.spec.id == env_id
    obs, info = env.reset(seed=3)
    assert env.observation_space.contains(obs)
    total, done = 0.0, False
    while not done:
        obs, reward, done, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        total += reward
    # a zero-sum reward: +1 for a sole win, else at most 0
    assert -1.0 <= total <= 1.0 and "share" in info


@pytest.mark.parametrize("env_id,players,actions", [
    ("korovan_caravan/Korovan-v0", 5, "flat"),
    ("korovan_caravan/Caravan-v0", 3, "compact"),
])
def test_make_defaults_are_the_documented_ones(env_id, players, actions):
    # the defaults docs/python.md and korovan_caravan.registration state
    inner = gymnasium.make(env_id).unwrapped
    assert inner.num_players == players
    assert inner._core.seat == 0
    assert inner.opponents == ["random"] * (players - 1)
    assert inner._core.reward == "shares"
    assert inner._core.shaping == 0.0
    assert inner.actions == actions
    assert inner.inputs == "observation"


@pytest.mark.parametrize("env_id", list(GAMES))
def test_check_env_passes_without_warnings(env_id):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env = gymnasium.make(env_id, opponents="random")
        check_env(env.unwrapped, skip_render_check=True)


def test_the_module_prefix_form_imports_the_package():
    env = gymnasium.make("korovan_caravan:korovan_caravan/Caravan-v0", players=3)
    assert env.unwrapped.num_players == 3


@pytest.mark.parametrize("env_id", list(GAMES))
def test_make_vec_steps_a_learner_vector_env(env_id):
    venv = gymnasium.make_vec(env_id, num_envs=5, opponents="random", reward="zero_sum", seed=1)
    assert isinstance(venv, LearnerVectorEnv)
    assert venv.num_envs == 5 and venv.reward == "zero_sum" and venv.name == GAMES[env_id]
    obs, info = venv.reset(seed=1)
    rng = np.random.default_rng(0)
    for _ in range(50):
        assert venv.observation_space.contains(obs)
        obs, rewards, terminations, truncations, info = venv.step(venv.sample_legal(rng))
        assert rewards.shape == (5,)


def test_make_vec_sync_mode_builds_gymnasiums_vector_env():
    venv = gymnasium.make_vec("korovan_caravan/Caravan-v0", num_envs=2, vectorization_mode="sync", players=2)
    assert isinstance(venv, gymnasium.vector.SyncVectorEnv)
    obs, info = venv.reset(seed=0)
    assert obs.shape == (2, 1938)


def test_make_refuses_bad_keyword_arguments():
    with pytest.raises(ValueError, match="reward"):
        gymnasium.make("korovan_caravan/Korovan-v0", reward="wins")
    with pytest.raises(ValueError, match="no_such_option"):
        gymnasium.make("korovan_caravan/Korovan-v0", no_such_option=1)


# ------------------------------------------------------------------ bounds

CONFIGS = [
    ("korovan", {"players": 3}),
    ("korovan", {"players": 5, "laps": 2}),
    ("korovan", {"players": 9}),
    ("caravan", {"players": 2}),
    ("caravan", {"players": 4, "camels": 6, "held_penalty": True}),
]


@pytest.mark.parametrize("name,config", CONFIGS)
def test_bounds_are_the_features_ranges(name, config):
    game = korovan_caravan.load_game(name, **config)
    low, high = game.observation_tensor_bounds()
    size = game.observation_tensor_size()
    assert low.dtype == np.float32 and high.dtype == np.float32
    assert low.shape == high.shape == (size,)
    assert np.all(low <= high)
    # raw counts of a board game, not the float32 range: normalisation sees real scales
    assert 1 <= high.max() <= 1000 and low.min() >= -100
    if name == "caravan":
        # the turn's fraction of max_turns and the 0/1 planes
        assert high[1914 + 9] == 1.0 and high[37 * 49] == 1.0
        assert low.min() < 0 if config.get("held_penalty") else low.min() == 0


@pytest.mark.parametrize("name,config", CONFIGS)
def test_every_observation_of_random_games_lies_within_the_bounds(name, config):
    game = korovan_caravan.load_game(name, **config)
    low, high = game.observation_tensor_bounds()
    box = LearnerEnv(name, **config).observation_space
    seen_max = np.full_like(high, -np.inf)
    for seed in range(6):
        rng = np.random.default_rng(seed)
        state = game.new_initial_state()
        chance = korovan_caravan.Rng(seed).child(korovan_caravan.CHANCE_STREAM)
        while True:
            for seat in range(game.num_players()):
                x = state.observation_tensor(seat)
                bad = np.flatnonzero((x < low) | (x > high))
                assert bad.size == 0, f"seed {seed}: entries {bad[:5]} = {x[bad[:5]]} outside {low[bad[:5]]}..{high[bad[:5]]}"
                assert box.contains(x)
                seen_max = np.maximum(seen_max, x)
            if state.is_terminal():
                break
            if state.is_chance_node():
                state.apply_action(state.sample_chance(chance))
            else:
                legal = state.legal_actions()
                state.apply_action(legal[rng.integers(len(legal))])
    assert np.all(seen_max <= high)


@pytest.mark.parametrize("name", ["korovan", "caravan"])
def test_every_environment_declares_the_bounds(name):
    from korovan_caravan.pettingzoo import BoardGameEnv

    game = korovan_caravan.load_game(name)
    low, high = game.observation_tensor_bounds()
    spaces_ = [
        LearnerEnv(name).observation_space,
        LearnerVectorEnv(name, num_envs=2).single_observation_space,
        korovan_caravan.VectorEnv(name, num_envs=2).single_observation_space,
        BoardGameEnv(name).observation_space("player_0")["observation"],
    ]
    for space in spaces_:
        assert np.array_equal(space.low, low)
        # constant entries (an absent seat's slot) are widened to [v, v + 1]
        assert np.array_equal(space.high, np.where(high > low, high, low + 1))
    batch = korovan_caravan.VectorEnv(name, num_envs=3).observation_space
    assert batch.shape == (3, low.size) and np.array_equal(batch.low[2], low)


def test_normalize_observation_works_on_the_single_env_and_is_refused_by_the_vector_env():
    from gymnasium.wrappers import NormalizeObservation
    from gymnasium.wrappers.vector import NormalizeObservation as VectorNormalizeObservation

    env = NormalizeObservation(gymnasium.make("korovan_caravan/Caravan-v0", players=2))
    obs, info = env.reset(seed=0)
    for _ in range(20):
        obs, reward, done, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        if done:
            obs, info = env.reset()
    assert np.all(np.isfinite(obs)) and np.abs(obs).max() < 100
    # same-step autoreset: Gymnasium's vector observation wrappers refuse it by design
    with pytest.raises(ValueError, match="autoreset"):
        VectorNormalizeObservation(LearnerVectorEnv("caravan", num_envs=2, players=2))
