"""korovan_caravan.VectorEnv: many games stepped together by the kit's Batch."""

import sys
import threading
import time

import numpy as np
import pytest

import korovan_caravan
from korovan_caravan import CHANCE_STREAM, InvalidActionError, Rng, VectorEnv

# Korovan 5p (a dense mask), Caravan 3p with a short guard (padded ids).
CASES = {
    "korovan": dict(players=5),
    "caravan": dict(players=3, max_turns=30),
}


@pytest.fixture(params=sorted(CASES))
def case(request):
    return request.param, CASES[request.param]


def run(env, steps, policy_seed):
    """Steps ``env`` with a seeded random legal policy; returns every output."""
    rng = np.random.default_rng(policy_seed)
    obs, info = env.reset()
    trace = [(obs.copy(), {k: v.copy() for k, v in info.items()})]
    for _ in range(steps):
        actions = env.sample_legal(rng)
        obs, rewards, term, trunc, info = env.step(actions)
        trace.append((actions, obs.copy(), rewards.copy(), term.copy(), trunc.copy(), {k: v.copy() for k, v in info.items()}))
    return trace


def assert_traces_equal(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert len(x) == len(y)
        for u, v in zip(x, y):
            if isinstance(u, dict):
                assert u.keys() == v.keys()
                for k in u:
                    np.testing.assert_array_equal(u[k], v[k], err_msg=k)
            else:
                np.testing.assert_array_equal(u, v)


def test_shapes_and_dtypes(case):
    name, config = case
    n = 6
    env = VectorEnv(name, num_envs=n, seed=3, **config)
    game = korovan_caravan.load_game(name, **config)
    shape = tuple(game.observation_tensor_shape())
    assert env.num_envs == n and env.num_players == config["players"]
    assert env.num_actions == game.num_distinct_actions()
    obs, info = env.reset()
    assert obs.shape == (n, *shape) and obs.dtype == np.float32
    assert info["current_player"].shape == (n,) and info["current_player"].dtype == np.int32
    assert info["legal_count"].dtype == np.int32
    assert ((info["current_player"] >= 0) & (info["current_player"] < env.num_players)).all()
    assert (info["legal_count"] > 0).all()
    if name == "korovan":
        assert env.legal_format == "mask" and env.legal_ids is None
        assert info["legal_mask"].shape == (n, env.num_actions) and info["legal_mask"].dtype == np.uint8
        np.testing.assert_array_equal(info["legal_mask"].sum(axis=1), info["legal_count"])
    else:
        assert env.legal_format == "ids" and env.legal_mask is None
        ids = info["legal_ids"]
        assert ids.shape == (n, env.max_legal) and ids.dtype == np.int32
        for i in range(n):
            c = info["legal_count"][i]
            assert (ids[i, :c] >= 0).all() and (ids[i, c:] == -1).all()
    obs, rewards, term, trunc, info = env.step(env.sample_legal(np.random.default_rng(0)))
    assert obs.shape == (n, *shape) and obs.dtype == np.float32
    assert rewards.shape == (n, env.num_players) and rewards.dtype == np.float32
    assert term.shape == (n,) and term.dtype == np.bool_
    assert trunc.shape == (n,) and trunc.dtype == np.bool_ and not trunc.any()
    # Gymnasium spaces
    assert env.single_observation_space.shape == shape
    assert env.observation_space.shape == (n, *shape)
    assert env.single_action_space.n == env.num_actions
    assert env.action_space.shape == (n,)
    assert env.observation_space.contains(obs)


def test_sampled_actions_are_legal(case):
    name, config = case
    env = VectorEnv(name, num_envs=16, seed=1, **config)
    rng = np.random.default_rng(5)
    env.reset()
    for _ in range(30):
        actions = env.sample_legal(rng)
        for i, a in enumerate(actions):
            if env.legal_format == "mask":
                assert env.legal_mask[i, a] == 1
            else:
                assert a in env.legal_ids[i, : env.legal_count[i]]
        env.step(actions)


def test_reproducible_across_runs_and_threads(case):
    name, config = case
    n, steps = 24, 60
    base = run(VectorEnv(name, num_envs=n, seed=11, threads=1, **config), steps, 2)
    assert_traces_equal(base, run(VectorEnv(name, num_envs=n, seed=11, threads=1, **config), steps, 2))
    for threads in (2, 3):
        assert_traces_equal(base, run(VectorEnv(name, num_envs=n, seed=11, threads=threads, **config), steps, 2))
    # copy=False returns the same arrays each time, with the same contents
    assert_traces_equal(base, run(VectorEnv(name, num_envs=n, seed=11, copy=False, **config), steps, 2))
    # another seed plays other games
    other = run(VectorEnv(name, num_envs=n, seed=1000, **config), steps, 2)
    assert any(not np.array_equal(x[1], y[1]) for x, y in zip(base[1:], other[1:]))


def test_reset_replays_and_reseeds(case):
    name, config = case
    env = VectorEnv(name, num_envs=5, seed=4, **config)
    first = run(env, 10, 0)
    assert_traces_equal(first, run(env, 10, 0))  # reset() goes back to seed 4
    obs, _ = env.reset(seed=9)
    assert env.seed == 9
    fresh, _ = VectorEnv(name, num_envs=5, seed=9, **config).reset()
    np.testing.assert_array_equal(obs, fresh)


def solo_start(game, seed):
    """A game of ``seed`` alone: chance from Rng(seed).child(CHANCE_STREAM)."""
    state = game.new_initial_state()
    chance = Rng(seed).child(CHANCE_STREAM)
    resolve(state, chance)
    return state, chance


def resolve(state, chance):
    while state.is_chance_node():
        state.apply_action(state.sample_chance(chance))


def test_batch_games_equal_games_played_alone(case):
    """Every game of a batch, auto-resets included, is the game the
    single-state API plays from its seed (seed + i + e·N) with the kit's
    stream convention and the same decisions."""
    name, config = case
    n, seed = 4, 100
    env = VectorEnv(name, num_envs=n, seed=seed, threads=2, **config)
    game = korovan_caravan.load_game(name, **config)
    obs, info = env.reset()
    solo = [solo_start(game, seed + i) for i in range(n)]
    episode = [0] * n
    rng = np.random.default_rng(8)
    finished = 0
    for _ in range(4000):
        for i, (state, _) in enumerate(solo):
            p = state.current_player()
            assert info["current_player"][i] == p
            assert env.current_seed(i) == seed + i + episode[i] * n
            np.testing.assert_array_equal(obs[i], state.observation_tensor(p))
            legal = state.legal_actions_engine_order()
            assert info["legal_count"][i] == len(legal)
            if env.legal_format == "mask":
                np.testing.assert_array_equal(np.flatnonzero(info["legal_mask"][i]), sorted(legal))
            else:
                np.testing.assert_array_equal(info["legal_ids"][i, : len(legal)], legal)
        actions = env.sample_legal(rng)
        obs, rewards, term, _, info = env.step(actions)
        for i in range(n):
            state, chance = solo[i]
            state.apply_action(int(actions[i]))
            resolve(state, chance)
            assert term[i] == state.is_terminal()
            if state.is_terminal():
                np.testing.assert_allclose(rewards[i], state.returns(), rtol=0, atol=1e-7)
                episode[i] += 1
                finished += 1
                assert env.finished(i) == episode[i]
                solo[i] = solo_start(game, seed + i + episode[i] * n)
            else:
                assert not rewards[i].any()
        if min(episode) >= 2:
            break
    assert min(episode) >= 2, "every slot should have finished two games"


def test_auto_reset(case):
    name, config = case
    n = 8
    env = VectorEnv(name, num_envs=n, seed=0, **config)
    env.reset()
    rng = np.random.default_rng(1)
    ends = 0
    for _ in range(3000):
        before = [env.current_seed(i) for i in range(n)]
        _, rewards, term, _, info = env.step(env.sample_legal(rng))
        for i in np.flatnonzero(term):
            ends += 1
            # the final returns: 1 for a sole winner, 1/k each for a k-way draw
            assert rewards[i].sum() == pytest.approx(1.0)
            # the row already shows the slot's next game
            assert env.current_seed(i) == before[i] + n
            assert info["legal_count"][i] > 0 and info["current_player"][i] >= 0
        assert not rewards[~term].any()
        if ends >= 2 * n:
            break
    assert ends >= 2 * n


@pytest.mark.parametrize("bad", ["illegal", "unknown", "negative", "huge"])
def test_bad_action_ids_name_the_game_and_advance_nothing(case, bad):
    name, config = case
    n, culprit = 6, 3
    env = VectorEnv(name, num_envs=n, seed=2, **config)
    twin = VectorEnv(name, num_envs=n, seed=2, **config)
    rng = np.random.default_rng(0)
    for _ in range(3):
        a = env.sample_legal(rng)
        env.step(a)
        twin.step(a)
    obs_before = env._out[1].copy()
    actions = env.sample_legal(rng)
    legal = set(np.flatnonzero(env.legal_mask[culprit])) if env.legal_format == "mask" else set(
        env.legal_ids[culprit, : env.legal_count[culprit]].tolist()
    )
    wrong = {
        "illegal": next(x for x in range(env.num_actions) if x not in legal),
        "unknown": env.num_actions,
        "negative": -1,
        "huge": 2**40,
    }[bad]
    broken = actions.copy()
    broken[culprit] = wrong
    with pytest.raises(InvalidActionError) as e:
        env.step(broken)
    assert isinstance(e.value, ValueError)
    assert e.value.game == culprit and e.value.action == wrong
    assert f"game {culprit}" in str(e.value)
    # nothing advanced: outputs untouched, and the batch goes on as its twin
    np.testing.assert_array_equal(env._out[1], obs_before)
    assert [env.current_seed(i) for i in range(n)] == [twin.current_seed(i) for i in range(n)]
    got = env.step(actions)
    want = twin.step(actions)
    for u, v in zip(got[:4], want[:4]):
        np.testing.assert_array_equal(u, v)


def test_bad_arguments():
    env = VectorEnv("korovan", num_envs=4, players=3)
    with pytest.raises(ValueError, match="one id per game"):
        env.step([0, 0])
    with pytest.raises(TypeError):
        env.step(np.zeros(4, dtype=np.float64))
    with pytest.raises(ValueError, match="unknown game"):
        VectorEnv("chess", num_envs=4)
    with pytest.raises(ValueError, match="players must be between 3 and 9"):
        VectorEnv("korovan", num_envs=4, players=12)
    with pytest.raises(ValueError, match="no config field"):
        VectorEnv("caravan", num_envs=4, max_turn=3)
    with pytest.raises(ValueError, match="at least one game"):
        VectorEnv("korovan", num_envs=0)
    with pytest.raises(ValueError, match="threads"):
        VectorEnv("korovan", num_envs=4, threads=0)
    # the configuration reaches the games
    assert VectorEnv("caravan", num_envs=1, players=2, max_turns=40).game == korovan_caravan.load_game(
        "caravan", players=2, max_turns=40
    )


def test_step_releases_the_gil():
    """A Python thread runs while Rust steps a large batch. The switch
    interval is made huge, so a thread only gets the GIL when its holder
    releases it: the spinning thread can count only if the step released
    it (and the spinning thread hands it back at once, ``sleep(0)``)."""
    env = VectorEnv("korovan", num_envs=4096, players=5, seed=0, copy=False)
    env.reset()
    rng = np.random.default_rng(0)
    counter = [0]
    inside = [False]
    stop = threading.Event()

    def spin():
        while not stop.is_set():
            if inside[0]:
                counter[0] += 1
            time.sleep(0)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1000.0)
    t = threading.Thread(target=spin)
    t.start()
    try:
        for _ in range(20):
            a = env.sample_legal(rng)
            inside[0] = True
            env.step(a)
            inside[0] = False
            if counter[0] > 0:
                break
    finally:
        stop.set()
        t.join()
        sys.setswitchinterval(interval)
    assert counter[0] > 0


def test_envs_step_from_several_threads():
    """Two batches stepped from two Python threads give what they give alone."""

    def trace(seed):
        return run(VectorEnv("korovan", num_envs=64, players=4, seed=seed), 40, seed)

    alone = [trace(s) for s in (0, 1)]
    results = [None, None]

    def work(k):
        results[k] = trace(k)

    threads = [threading.Thread(target=work, args=(k,)) for k in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k in (0, 1):
        assert_traces_equal(alone[k], results[k])
