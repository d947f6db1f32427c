"""PettingZoo AEC environments (issue part 4)."""

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
from pettingzoo.test import api_test, seed_test  # noqa: E402

import korovan_caravan  # noqa: E402
from korovan_caravan.pettingzoo import caravan_v0, korovan_v0  # noqa: E402

ENVS = {
    "korovan": lambda **kw: korovan_v0.env(**kw),
    # C-7.2's guard at 40 turns keeps a Caravan episode short.
    "caravan": lambda **kw: caravan_v0.env(max_turns=40, **kw),
}


@pytest.mark.parametrize("players", [3, 5, 9])
def test_api_test_korovan(players):
    api_test(korovan_v0.env(players=players), num_cycles=1000)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_api_test_caravan(players):
    api_test(caravan_v0.env(players=players, max_turns=40), num_cycles=1000)


@pytest.mark.parametrize("name", sorted(ENVS))
def test_seed_test(name):
    seed_test(lambda: ENVS[name](players=3), num_cycles=200)


def run_episode(env, seed, policy_seed):
    """One episode with a seeded random policy; returns the agents' moves,
    the final rewards and the engine's history."""
    env.reset(seed=seed)
    rng = np.random.default_rng(policy_seed)
    moves, rewards = [], {}
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        rewards[agent] = reward
        if term or trunc:
            env.step(None)
            continue
        mask = obs["action_mask"]
        assert obs["observation"].dtype == np.float32 and mask.dtype == np.int8
        assert env.observation_space(agent).contains(obs)
        action = int(rng.choice(np.flatnonzero(mask)))
        moves.append((agent, action))
        env.step(action)
    return moves, rewards, env.unwrapped.state.history()


@pytest.mark.parametrize("name", sorted(ENVS))
def test_seeded_reset_is_reproducible(name):
    env = ENVS[name](players=3)
    a = run_episode(env, seed=7, policy_seed=1)
    b = run_episode(env, seed=7, policy_seed=1)
    assert a == b
    c = run_episode(env, seed=8, policy_seed=1)
    assert c[2] != a[2]


@pytest.mark.parametrize("name", sorted(ENVS))
def test_chance_comes_from_the_drivers_chance_stream(name):
    """The environment resolves chance as the Rust driver does: from
    Rng(seed).child(CHANCE_STREAM), exactly by the weights."""
    env = ENVS[name](players=3)
    moves, rewards, history = run_episode(env, seed=11, policy_seed=2)
    game = env.unwrapped.game
    chance = korovan_caravan.Rng(11).child(korovan_caravan.CHANCE_STREAM)
    state = game.new_initial_state()
    decisions = iter(a for _, a in moves)
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(state.sample_chance(chance))
        else:
            state.apply_action(next(decisions))
    assert state.history() == history
    returns = state.returns()
    assert rewards == {f"player_{i}": r for i, r in enumerate(returns)}
    assert sum(rewards.values()) == pytest.approx(1.0)


def test_observations_and_masks():
    env = korovan_v0.env(players=4)
    env.reset(seed=3)
    agent = env.agent_selection
    seat = int(agent.split("_")[1])
    state = env.unwrapped.state
    assert state.current_player() == seat
    obs = env.observe(agent)
    np.testing.assert_array_equal(obs["observation"], state.observation_tensor(seat))
    assert list(np.flatnonzero(obs["action_mask"])) == state.legal_actions()
    other = next(a for a in env.agents if a != agent)
    assert not env.observe(other)["action_mask"].any()


def test_render_ansi():
    env = caravan_v0.env(players=2, render_mode="ansi", max_turns=5)
    env.reset(seed=1)
    text = env.render()
    assert isinstance(text, str) and text == str(env.unwrapped.state)
    with pytest.raises(ValueError):
        caravan_v0.env(render_mode="rgb_array")


def test_illegal_action_raises_and_keeps_the_state():
    env = korovan_v0.env(players=3)
    env.reset(seed=5)
    before = env.unwrapped.state.clone()
    mask = env.observe(env.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(ValueError):
        env.step(illegal)
    assert env.unwrapped.state == before


# ------------------------------------------------- Caravan's compact actions


@pytest.mark.parametrize("players,ids", [(2, 694), (3, 742), (4, 790)])
def test_api_test_caravan_compact(players, ids):
    env = caravan_v0.env(players=players, max_turns=40, action_space="compact")
    assert env.action_space("player_0").n == ids
    assert env.observation_space("player_0")["action_mask"].shape == (ids,)
    api_test(env, num_cycles=1000)


def test_seed_test_caravan_compact():
    seed_test(lambda: caravan_v0.env(players=3, max_turns=40, action_space="compact"), num_cycles=200)


def test_compact_masks_name_the_legal_actions_and_steps_play_them():
    from korovan_caravan import compact

    env = caravan_v0.env(players=2, max_turns=30, action_space="compact")
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    state = env.unwrapped.state
    steps = 0
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        mask = obs["action_mask"]
        assert mask.dtype == np.int8 and mask.shape == (694,)
        # one compact id per legal flat action
        assert int(mask.sum()) == len(state.legal_actions())
        assert sorted(compact.to_flat(state, int(c)) for c in np.flatnonzero(mask)) == sorted(state.legal_actions())
        cid = int(rng.choice(np.flatnonzero(mask)))
        flat = compact.to_flat(state, cid)
        before = len(state.history())
        env.step(cid)
        assert state.history()[before] == flat  # the history keeps the flat ids
        steps += 1
    assert steps > 20 and state.is_terminal()


def test_compact_refuses_an_illegal_id_and_other_games():
    env = caravan_v0.env(players=2, action_space="compact")
    env.reset(seed=0)
    obs, *_ = env.last()
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.raises(ValueError):
        env.step(illegal)
    with pytest.raises(ValueError, match="action_space"):
        caravan_v0.env(action_space="factored")
    from korovan_caravan.pettingzoo import BoardGameEnv

    with pytest.raises(ValueError, match="korovan has no compact action space"):
        BoardGameEnv("korovan", action_space="compact")
