"""The single-learner environments (korovan_caravan.learner) and the reward
options of every environment (issue 20 parts 3 and 4)."""

import json

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")

import korovan_caravan  # noqa: E402
from korovan_caravan.learner import SEAT_STREAM, LearnerEnv, LearnerVectorEnv, zero_sum  # noqa: E402

GAMES = [("korovan", 5, {}), ("korovan", 3, {}), ("caravan", 2, {"max_turns": 40}), ("caravan", 3, {"max_turns": 30})]


def legal_first(mask):
    return int(np.flatnonzero(mask)[0])


# ------------------------------------------------------------ gymnasium.Env
@pytest.mark.parametrize("game,players,config", GAMES)
def test_check_env_passes(game, players, config):
    from gymnasium.utils.env_checker import check_env

    for seat in (0, None):
        env = LearnerEnv(game, players=players, opponents="random", seat=seat, seed=3, **config)
        check_env(env, skip_render_check=True)


@pytest.mark.parametrize("game,players,config", GAMES)
def test_episode_scalar_reward_mask_and_share(game, players, config):
    env = LearnerEnv(game, players=players, opponents="heuristic", seat=1, reward="zero_sum", seed=5, **config)
    obs, info = env.reset(seed=11)
    assert env.observation_space.contains(obs)
    assert info["seat"] == 1
    assert np.array_equal(info["action_mask"], env.action_masks())
    total, done, steps = 0.0, False, 0
    while not done:
        mask = env.action_masks()
        assert mask.dtype == np.bool_ and mask.any()
        obs, reward, done, truncated, info = env.step(legal_first(mask))
        assert isinstance(reward, float) and not truncated and not info["illegal"]
        total += reward
        steps += 1
    # the zero-sum reward is the share's image; a finished game's share is 1, 1/k or 0
    assert total == pytest.approx(float(zero_sum(info["share"], players)), abs=1e-6)
    assert info["share"] in (0.0, 1.0) or 0 < info["share"] < 1
    assert not info["action_mask"].any()
    # reset() without a seed starts the next seed's game
    seed_before = env.current_seed
    env.reset()
    assert env.current_seed == seed_before  # the core already moved to the next game after the end
    assert env.current_seed == 12


def test_reset_seed_reproduces_and_no_seed_moves_on():
    env = LearnerEnv("korovan", players=5, opponents="random", seat=None)
    a, _ = env.reset(seed=7)
    env.step(legal_first(env.action_masks()))
    b, _ = env.reset(seed=7)
    assert np.array_equal(a, b) and env.current_seed == 7
    env.step(legal_first(env.action_masks()))
    env.reset()  # mid-game: the next seed
    assert env.current_seed == 8


def test_drawn_seat_follows_the_seat_stream():
    env = LearnerVectorEnv("korovan", num_envs=64, players=5, seat=None, seed=100)
    _, info = env.reset(seed=100)
    for i in range(64):
        g = env.current_seed(i)
        expect = korovan_caravan.Rng(g).child(SEAT_STREAM).index(5)
        assert info["seat"][i] == expect
    assert len(set(info["seat"].tolist())) == 5


def test_illegal_action_is_a_documented_noop():
    env = LearnerEnv("caravan", players=2, opponents="random", seat=0, seed=1, max_turns=40)
    obs, info = env.reset(seed=1)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    obs2, reward, done, trunc, info2 = env.step(illegal)
    assert info2["illegal"] and reward == 0.0 and not done
    assert np.array_equal(obs, obs2) and np.array_equal(info["action_mask"], info2["action_mask"])
    strict = LearnerEnv("caravan", players=2, opponents="random", seat=0, illegal="raise", seed=1, max_turns=40)
    strict.reset(seed=1)
    with pytest.raises(korovan_caravan.InvalidActionError) as e:
        strict.step(illegal)
    assert e.value.game == 0 and isinstance(e.value, ValueError)
    # nothing moved: the same decision is still there
    assert np.array_equal(strict.action_masks(), info["action_mask"])


@pytest.mark.parametrize("bad", [-1, 10**6, 2**70])
def test_out_of_space_actions_raise(bad):
    env = LearnerEnv("korovan", players=3, seed=0)
    env.reset(seed=0)
    with pytest.raises(ValueError):
        env.step(bad)


def test_bad_arguments_raise():
    with pytest.raises(ValueError, match="unknown agent"):
        LearnerEnv("korovan", players=3, opponents="grandmaster")
    with pytest.raises(ValueError, match="budget must be a positive"):
        LearnerEnv("korovan", players=3, opponents=["random", "ismcts:0"])
    with pytest.raises(ValueError, match="one per other seat"):
        LearnerEnv("korovan", players=5, opponents=["random", "heuristic"])
    with pytest.raises(TypeError):
        LearnerEnv("korovan", players=3, opponents=3)
    with pytest.raises(ValueError, match="seat 5 is out of range"):
        LearnerEnv("korovan", players=5, seat=5)
    with pytest.raises(ValueError, match="out of range"):
        LearnerEnv("korovan", players=5, seat=-1)
    with pytest.raises(TypeError):
        LearnerEnv("korovan", players=5, seat="north")
    with pytest.raises(ValueError, match="unknown reward"):
        LearnerEnv("korovan", players=3, reward="points")
    with pytest.raises(TypeError):
        LearnerEnv("korovan", players=3, shaping="lots")
    with pytest.raises(ValueError, match="finite"):
        LearnerEnv("korovan", players=3, shaping=float("nan"))
    with pytest.raises(ValueError, match="no compact action space"):
        LearnerEnv("korovan", players=3, actions="compact")
    with pytest.raises(ValueError, match="unknown action space"):
        LearnerEnv("korovan", players=3, actions="pointer")
    with pytest.raises(ValueError, match="illegal-action mode"):
        LearnerEnv("korovan", players=3, illegal="ignore")
    with pytest.raises(ValueError, match="unknown game"):
        LearnerEnv("chess")
    with pytest.raises(ValueError, match="num_envs"):
        LearnerVectorEnv("korovan", num_envs=0, players=3)
    with pytest.raises(ValueError):
        LearnerEnv("korovan", players=2)  # Korovan needs 3 seats
    env = LearnerVectorEnv("korovan", num_envs=4, players=3, seed=0)
    env.reset()
    with pytest.raises(ValueError, match="shape"):
        env.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(ValueError, match="shape"):
        env.step(np.zeros((4, 1), dtype=np.int64))
    with pytest.raises(TypeError):
        env.step(np.array(["a", "b", "c", "d"]))
    with pytest.raises(TypeError):
        env.step(np.full(4, 0.5))
    with pytest.raises(korovan_caravan.InvalidActionError) as e:
        env.step(np.array([0, 0, -3, 0]))
    assert e.value.game == 2


def test_caravan_compact_is_the_default_and_flat_is_available():
    compact = LearnerVectorEnv("caravan", num_envs=2, players=2, seed=0, max_turns=40)
    assert compact.actions == "compact" and compact.single_action_space.n == 694
    flat = LearnerVectorEnv("caravan", num_envs=2, players=2, seed=0, actions="flat", max_turns=40)
    assert flat.actions == "flat" and flat.single_action_space.n == korovan_caravan.load_game("caravan", players=2).num_distinct_actions()
    # the same games, whatever the numbering: the number of legal actions agrees
    assert np.array_equal(compact.action_masks().sum(1), flat.action_masks().sum(1))
    assert LearnerVectorEnv("korovan", num_envs=1, players=3).actions == "flat"


# ------------------------------------------------------- the batched form
def test_vector_env_is_a_gymnasium_vector_env():
    from gymnasium.vector import AutoresetMode, VectorEnv

    env = LearnerVectorEnv("korovan", num_envs=8, players=5, opponents="heuristic", seed=0)
    assert isinstance(env, VectorEnv)
    assert env.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    assert env.single_observation_space.shape == obs.shape[1:]
    assert env.action_space.shape == (8,)
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(200):
        actions = env.sample_legal(rng)
        assert env.action_space.contains(actions)
        assert info["action_mask"][np.arange(8), actions].all()
        obs, rewards, term, trunc, info = env.step(actions)
        assert rewards.shape == (8,) and term.dtype == np.bool_ and not trunc.any()
        if term.any():
            finished += int(term.sum())
            assert info["_final_obs"].tolist() == term.tolist()
            for i in np.flatnonzero(term):
                assert info["final_obs"][i].shape == env.single_observation_space.shape
            shares = info["final_info"]["share"][term]
            assert np.array_equal(rewards[term], shares)  # reward "shares"
    assert finished > 8


def test_vector_wrappers_work():
    from gymnasium.wrappers.vector import ClipReward, RecordEpisodeStatistics, TransformReward

    env = RecordEpisodeStatistics(LearnerVectorEnv("korovan", num_envs=8, players=3, seed=1, reward="zero_sum"))
    env = TransformReward(env, lambda r: 2.0 * r)
    env = ClipReward(env, min_reward=-1.0, max_reward=1.0)
    obs, info = env.reset(seed=1)
    inner = env.unwrapped
    rng = np.random.default_rng(1)
    episodes = []
    for _ in range(300):
        obs, r, term, trunc, info = env.step(inner.sample_legal(rng))
        if "episode" in info:
            episodes.extend(info["episode"]["r"][info["_episode"]].tolist())
    assert episodes
    # RecordEpisodeStatistics sees the zero-sum returns (before the doubling): +1 or -1/2 or a draw's value
    assert all(-0.5 - 1e-6 <= x <= 1 + 1e-6 for x in episodes)


def test_vector_env_is_reproducible_and_equals_single_envs():
    def run(env, steps, rng):
        trace = []
        for _ in range(steps):
            obs, r, term, _, info = env.step(env.sample_legal(rng))
            trace.append((obs.copy(), r.copy(), term.copy()))
        return trace

    a = LearnerVectorEnv("caravan", num_envs=4, players=2, opponents="random", seat=None, seed=9, max_turns=30)
    b = LearnerVectorEnv("caravan", num_envs=4, players=2, opponents="random", seat=None, seed=9, max_turns=30)
    ta, tb = run(a, 150, np.random.default_rng(2)), run(b, 150, np.random.default_rng(2))
    for (oa, ra, da), (ob, rb, db) in zip(ta, tb):
        assert np.array_equal(oa, ob) and np.array_equal(ra, rb) and np.array_equal(da, db)
    # slot i of a batch seeded s plays the game of seed s + i, as a one-game env seeded s + i does
    v = LearnerVectorEnv("korovan", num_envs=3, players=5, opponents="heuristic", seat=2, seed=40)
    obs, info = v.reset(seed=40)
    for i in range(3):
        e = LearnerEnv("korovan", players=5, opponents="heuristic", seat=2)
        o, inf = e.reset(seed=40 + i)
        assert np.array_equal(o, obs[i]) and np.array_equal(inf["action_mask"], info["action_mask"][i])


def test_opponents_mix_and_names():
    env = LearnerVectorEnv("korovan", num_envs=2, players=4, opponents=["random", "heuristic", "ismcts:8"], seat=None)
    assert env.opponents == ["random", "heuristic", "ismcts:8"]
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(30):
        env.step(env.sample_legal(rng))


# -------------------------------------------------------------- rewards
def test_zero_sum_formula():
    assert zero_sum(1.0, 2) == 1.0 and zero_sum(0.0, 2) == -1.0 and zero_sum(0.5, 2) == 0.0
    assert zero_sum(0.0, 5) == pytest.approx(-0.25)
    # every outcome of n seats sums to 0: a sole winner, a k-way draw
    for n in range(2, 8):
        for k in range(1, n + 1):
            shares = np.array([1 / k] * k + [0.0] * (n - k))
            assert zero_sum(shares, n).sum() == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("game,players,config", [("korovan", 5, {}), ("caravan", 2, {"max_turns": 40}), ("caravan", 3, {"max_turns": 30})])
def test_vector_env_zero_sum_returns_sum_to_zero(game, players, config):
    shares = korovan_caravan.VectorEnv(game, num_envs=16, players=players, seed=3, **config)
    zs = korovan_caravan.VectorEnv(game, num_envs=16, players=players, seed=3, reward="zero_sum", **config)
    shares.reset()
    zs.reset()
    rng_a, rng_b = np.random.default_rng(4), np.random.default_rng(4)
    ended = 0
    for _ in range(400):
        _, ra, ta, _, _ = shares.step(shares.sample_legal(rng_a))
        _, rb, tb, _, _ = zs.step(zs.sample_legal(rng_b))
        assert np.array_equal(ta, tb)
        if tb.any():
            ended += int(tb.sum())
            assert np.allclose(rb[tb].sum(axis=1), 0.0, atol=1e-6)
            assert np.allclose(rb[tb], zero_sum(ra[tb], players), atol=1e-6)
        assert not rb[~tb].any()
    assert ended > 0
    with pytest.raises(ValueError, match="unknown reward"):
        korovan_caravan.VectorEnv(game, num_envs=2, players=players, reward="winner", **config)


@pytest.mark.parametrize("game,players,config", [("korovan", 5, {}), ("caravan", 2, {"max_turns": 30})])
def test_learner_rewards_shares_zero_sum_and_shaping(game, players, config):
    """The same games (same seeds, same learner actions) under every reward
    option: zero-sum is the shares' image, and the shaping adds the
    potential's change, summing over an episode to c·(φ(end) − φ(start))."""
    kw = dict(num_envs=8, players=players, opponents="heuristic", seat=None, seed=21, copy=False, **config)
    envs = {
        "shares": LearnerVectorEnv(reward="shares", **{"game": game, **kw}),
        "zero_sum": LearnerVectorEnv(reward="zero_sum", **{"game": game, **kw}),
        "shaped": LearnerVectorEnv(reward="zero_sum", shaping=0.1, **{"game": game, **kw}),
    }
    for e in envs.values():
        e.reset(seed=21)
    rng = np.random.default_rng(0)
    shaped_total = np.zeros(8)
    shaped_parts = []
    for _ in range(300):
        actions = envs["shares"].sample_legal(rng)
        out = {k: e.step(actions) for k, e in envs.items()}
        term = out["shares"][2]
        for k in envs:
            assert np.array_equal(out[k][2], term)
        rs, rz, rh = out["shares"][1], out["zero_sum"][1], out["shaped"][1]
        assert np.allclose(rz[term], zero_sum(rs[term], players), atol=1e-6)
        assert not rs[~term].any() and not rz[~term].any()
        shaped_total += rh - rz  # the shaping part alone
        if term.any():
            shaped_parts.extend(shaped_total[term].tolist())
            shaped_total[term] = 0.0
    assert shaped_parts and any(abs(x) > 1e-9 for x in shaped_parts)


def potential(scores, seat):
    scores = np.asarray(scores, dtype=np.float64)
    return scores[seat] - (scores.sum() - scores[seat]) / (len(scores) - 1)


@pytest.mark.parametrize("game,players,seat,config", [("caravan", 2, 1, {"max_turns": 24}), ("korovan", 3, 0, {})])
def test_episode_is_the_drivers_game_and_shaping_telescopes(game, players, seat, config):
    """An episode replayed through the single-state API with the Rust
    driver's streams (chance from CHANCE_STREAM, the random opponents from
    AGENT_STREAM_BASE + seat): the same observations and masks at every
    learner decision, the same end; and the shaping sums to c·(φ(end) − φ(start))."""
    c, seed = 0.25, 77
    env = LearnerEnv(game, players=players, opponents="random", seat=seat, reward="zero_sum", shaping=c,
                     actions="flat", seed=seed, **config)
    obs, info = env.reset(seed=seed)
    state = korovan_caravan.load_game(game, players=players, **config).new_initial_state()
    root = korovan_caravan.Rng(seed)
    chance = root.child(korovan_caravan.CHANCE_STREAM)
    streams = {p: root.child(korovan_caravan.AGENT_STREAM_BASE + p) for p in range(players)}

    def advance():
        while not state.is_terminal() and state.current_player() != seat:
            if state.is_chance_node():
                state.apply_action(state.sample_chance(chance))
            else:
                p = state.current_player()
                ids = state.legal_actions_engine_order()
                state.apply_action(ids[streams[p].index(len(ids))])

    advance()
    start = potential(state.scores(), seat)
    rng = np.random.default_rng(1)
    total, done = 0.0, False
    while not done:
        assert np.array_equal(obs, state.observation_tensor(seat))
        assert np.array_equal(info["action_mask"], state.legal_actions_mask().astype(bool))
        a = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, r, done, _, info = env.step(a)
        state.apply_action(a)
        advance()
        total += r
    assert state.is_terminal()
    assert info["share"] == pytest.approx(state.returns()[seat])
    assert np.array_equal(obs, state.observation_tensor(seat))
    expected = float(zero_sum(state.returns()[seat], players)) + c * (potential(state.scores(), seat) - start)
    assert total == pytest.approx(expected, abs=1e-4)


def test_pettingzoo_reward_options():
    pytest.importorskip("pettingzoo")
    from korovan_caravan.pettingzoo import caravan_v0, korovan_v0

    for make, players, config in ((korovan_v0.env, 5, {}), (caravan_v0.env, 2, {"max_turns": 30})):
        for reward in ("shares", "zero_sum"):
            env = make(players=players, reward=reward, shaping=0.05, **config)
            env.reset(seed=2)
            totals = {a: 0.0 for a in env.possible_agents}
            rng = np.random.default_rng(2)
            for agent in env.agent_iter():
                obs, r, term, trunc, _ = env.last()
                totals[agent] += r
                if term or trunc:
                    action = None
                else:
                    action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
                env.step(action)
            s = sum(totals.values())
            # shaping sums to 0 over the seats at every step; the terminal part sums to 1 or 0
            assert s == pytest.approx(1.0 if reward == "shares" else 0.0, abs=1e-6)
        with pytest.raises(ValueError, match="unknown reward"):
            make(players=players, reward="elo", **config)


def test_openspiel_zero_sum_game():
    pyspiel = pytest.importorskip("pyspiel")
    import korovan_caravan.openspiel as kos

    kos.register()
    for name, params in (("korovan", {"players": 4}), ("caravan", {"players": 2, "max_turns": 30})):
        game = pyspiel.load_game(name, {**params, "reward": "zero_sum"})
        assert game.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
        assert game.utility_sum() == 0.0 and game.max_utility() == 1.0
        assert pyspiel.load_game(name, params).get_type().utility == pyspiel.GameType.Utility.CONSTANT_SUM
        pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)
        rng = np.random.default_rng(0)
        for _ in range(3):
            s = game.new_initial_state()
            while not s.is_terminal():
                if s.is_chance_node():
                    outcomes, probs = zip(*s.chance_outcomes())
                    s.apply_action(int(rng.choice(outcomes, p=probs)))
                else:
                    s.apply_action(int(rng.choice(s.legal_actions())))
            assert sum(s.returns()) == pytest.approx(0.0, abs=1e-9)
            assert s.returns() == pytest.approx(list(zero_sum(s.inner.returns(), s.num_players())))
        with pytest.raises(Exception):
            pyspiel.load_game(name, {**params, "reward": "elo"})


@pytest.mark.parametrize("game,players,extra", [("korovan", 5, 0), ("caravan", 2, 12 * 49 + 790)])
def test_network_inputs_are_the_tensor_then_the_engines_features(game, players, extra):
    """``inputs="network"``: what ``learned`` reads. Caravan's network
    input is the observation tensor, the 12 slot planes and the planner's
    move over the 790 compact ids; Korovan's is the tensor alone."""
    kw = dict(num_envs=4, players=players, opponents="heuristic", seat=None, seed=17)
    plain = LearnerVectorEnv(game, **kw)
    net = LearnerVectorEnv(game, inputs="network", **kw)
    assert (plain.inputs, net.inputs) == ("observation", "network")
    width = plain.single_observation_space.shape[0]
    (length,) = net.single_observation_space.shape
    assert length == width + extra and net.observation_space.shape == (4, length)
    rng_a, rng_b = np.random.default_rng(3), np.random.default_rng(3)
    (oa, ia), (ob, ib) = plain.reset(), net.reset()
    for _ in range(40):
        assert ob.shape == (4, length) and ob.dtype == np.float32
        assert np.array_equal(ob[:, :width], oa), "the observation tensor comes first, unchanged"
        assert np.array_equal(ia["action_mask"], ib["action_mask"])
        if game == "caravan":
            # the planner's move: one legal compact action (the mask's space), a one-hot
            plan = ob[:, -790:]
            assert np.array_equal(plan.sum(axis=1), np.ones(4)) and set(np.unique(plan)) == {0.0, 1.0}
            mask = ia["action_mask"]  # two seats: the first 694 compact ids
            assert not plan[:, mask.shape[1] :].any() and mask[plan[:, : mask.shape[1]].astype(bool)].all()
        a = plain.sample_legal(rng_a)
        assert np.array_equal(a, net.sample_legal(rng_b))
        (oa, _, _, _, ia), (ob, _, _, _, ib) = plain.step(a), net.step(a)
    with pytest.raises(ValueError, match="unknown inputs"):
        LearnerVectorEnv(game, inputs="pixels", **kw)
    single = LearnerEnv(game, players=players, opponents="heuristic", inputs="network")
    o, _ = single.reset(seed=5)
    assert o.shape == (length,) and single.observation_space.contains(o)


@pytest.mark.parametrize("game,players", [("korovan", 5), ("caravan", 3)])
def test_all_seats_inputs_are_every_seats_tensor_the_learners_first(game, players):
    """``inputs="all-seats"`` (a privileged critic's input): the tensors of
    the learner's seat and then of the seats after it around the table,
    joined. The learner's block is its observation, unchanged."""
    kw = dict(num_envs=6, players=players, opponents="heuristic", seat=None, seed=29)
    plain = LearnerVectorEnv(game, **kw)
    table = LearnerVectorEnv(game, inputs="all-seats", **kw)
    assert table.inputs == "all-seats"
    width = plain.single_observation_space.shape[0]
    assert table.single_observation_space.shape == (players * width,)
    rng_a, rng_b = np.random.default_rng(4), np.random.default_rng(4)
    (oa, ia), (ob, ib) = plain.reset(), table.reset()
    journeys = hidden = 0
    for _ in range(60):
        assert np.array_equal(ob[:, :width], oa), "the learner's own tensor comes first"
        blocks = ob.reshape(6, players, width)
        if game == "korovan":
            seats = ib["seat"]
            for k in range(players):
                # offset 0: the observer's seat, one-hot (docs/encoding-korovan.md)
                assert np.array_equal(blocks[:, k, :9].argmax(axis=1), (np.asarray(seats) + k) % players)
                # what every seat sees alike (players, driver, seat to act, phase, cows, round)
                assert np.array_equal(blocks[:, k, 9:56], blocks[:, 0, 9:56])
            # in the journey every laid card is known to someone: its owner (K-8.2)
            laid = blocks[:, 0, 64:88] > 0
            known = (blocks[:, :, 112:136] + blocks[:, :, 136:160]).max(axis=1) > 0
            journey = blocks[:, 0, 41:44].max(axis=1) > 0  # phases place, decide, defend
            assert np.array_equal(known[journey], laid[journey])
            own_known = (blocks[:, 0, 112:136] + blocks[:, 0, 136:160]) > 0
            journeys += int(journey.sum())
            # rows where the table knows a card the learner does not
            hidden += int((known & ~own_known)[journey].any(axis=1).sum())
        a = plain.sample_legal(rng_a)
        assert np.array_equal(a, table.sample_legal(rng_b))
        (oa, _, _, _, ia), (ob, _, _, _, ib) = plain.step(a), table.step(a)
    if game == "korovan":
        assert journeys > 0 and hidden > 0, "the journeys show the table more than the learner"
