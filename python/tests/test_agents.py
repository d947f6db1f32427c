"""The built-in agents one move at a time (issue 20 part 1):
`korovan_caravan.Agent` for every name the binary takes, the same moves as
the Rust driver and arena for the same seeds, policies, restarts, the GIL
released during a search, and bad input refused with ValueError/TypeError."""

import threading
from typing import Callable

import numpy as np
import pytest
from conftest import SHORT

import korovan_caravan
from korovan_caravan.evaluation import play_game

# Small budgets: the suite also runs on debug builds (BOARDGAMES_PROFILE=dev).
NAMES = ["random", "heuristic", "ismcts:12", "ismcts-h:8", "flatmc:10", "learned", "learned:0.5", "learned-ismcts:6"]


def game_of(name, players):
    return korovan_caravan.load_game(name, players=players, **SHORT[name])


def python_game(game, agents, seed):
    """A game driven from Python, one Agent per seat seeded with the game's
    seed, chance from the driver's chance stream."""
    chance = korovan_caravan.Rng(seed).child(korovan_caravan.CHANCE_STREAM)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(state.sample_chance(chance))
        else:
            state.apply_action(agents[state.current_player()].step(state))
    return state


def decision(game, seed=0, skip=0):
    """A state where a seat is to move: after the deal, then `skip` random
    decisions."""
    state = game.new_initial_state()
    rng = korovan_caravan.Rng(seed)
    while state.is_chance_node() or skip > 0:
        if not state.is_chance_node():
            skip -= 1
            legal = state.legal_actions()
            state.apply_action(legal[rng.index(len(legal))])
        else:
            state.apply_action(state.sample_chance(rng))
    return state


@pytest.mark.parametrize(
    "engine,players,names",
    [
        ("caravan", 2, ["heuristic", "ismcts-h:8"]),
        ("caravan", 3, ["ismcts:12", "random", "flatmc:10"]),
        ("korovan", 3, ["heuristic", "ismcts:12", "ismcts-h:8"]),
        ("korovan", 4, ["random", "flatmc:10", "heuristic", "random"]),
    ],
)
@pytest.mark.parametrize("seed", [0, 7])
def test_agents_play_the_rust_drivers_moves(engine, players, names, seed):
    game = game_of(engine, players)
    agents = [korovan_caravan.Agent(game, n, seed=seed) for n in names]
    state = python_game(game, agents, seed)
    rust = play_game(game, names, seed)
    assert state.history() == rust.history(), (engine, names, seed)
    assert state.returns() == rust.returns()


def test_one_agent_in_every_seat_plays_the_drivers_game(name):
    game = game_of(name, 3)
    for spec in ["random", "ismcts:10"]:
        agent = korovan_caravan.Agent(game, spec, seed=11)
        assert python_game(game, [agent] * 3, 11).history() == play_game(game, [spec] * 3, 11).history()


def test_every_name_of_the_binary_is_an_agent(name):
    game = game_of(name, 3)
    state = decision(game)
    legal = set(state.legal_actions())
    for spec in NAMES + ["ismcts", "ismcts-h:3", "flatmc:2ms", "ismcts:2ms", "ismcts-h:500us"]:
        agent = korovan_caravan.Agent(game, spec, seed=1)
        assert agent.engine == name
        assert agent.step(state) in legal, spec
        assert agent(state) in legal, spec
    assert korovan_caravan.Agent(game, "ismcts").name == "ismcts:1000"
    # an agent answers to the name it was built by, not to the search it is made of
    for spec in ("ismcts-h:3", "flatmc-h:2", "ismcts-h:500us"):
        assert korovan_caravan.Agent(game, spec).name == spec
    # a name is read exactly: surrounding whitespace is refused (issue 30 item 14), not trimmed
    with pytest.raises(ValueError, match="unknown agent ` ismcts-h:20 `"):
        korovan_caravan.Agent(game, " ismcts-h:20 ")
    assert repr(korovan_caravan.Agent(game, "heuristic", seed=4)) == f'Agent("{name}", "heuristic", seed=4)'


def test_the_same_seed_gives_the_same_move_and_restart_replays(name):
    game = game_of(name, 3)
    state = decision(game, seed=3)
    a = korovan_caravan.Agent(game, "ismcts:30", seed=5)
    b = korovan_caravan.Agent(game, "ismcts:30", seed=5)
    first = [a.step(state) for _ in range(4)]
    assert first == [b.step(state) for _ in range(4)]
    a.restart(seed=5)
    assert [a.step(state) for _ in range(4)] == first
    assert a.seed == 5
    a.restart()  # memory only: the streams go on
    game_a = python_game(game, [korovan_caravan.Agent(game, "random", seed=9)] * 3, 9)
    agent = korovan_caravan.Agent(game, "random", seed=1)
    python_game(game, [agent] * 3, 1)
    agent.restart(seed=9)
    assert python_game(game, [agent] * 3, 9).history() == game_a.history()


def test_step_with_policy(name):
    game = game_of(name, 3)
    state = decision(game, seed=2, skip=1)
    legal = set(state.legal_actions())
    for spec in ["ismcts:40", "ismcts-h:20"]:
        policy, action = korovan_caravan.Agent(game, spec, seed=8).step_with_policy(state)
        assert action == korovan_caravan.Agent(game, spec, seed=8).step(state)
        ids = [a for a, _ in policy]
        assert ids == sorted(set(ids)) and set(ids) <= legal
        assert abs(sum(p for _, p in policy) - 1.0) < 1e-9
        assert all(p > 0 for _, p in policy)
        assert dict(policy)[action] == max(p for _, p in policy), "the move is the most visited"
    policy, action = korovan_caravan.Agent(game, "random", seed=8).step_with_policy(state)
    assert [a for a, _ in policy] == sorted(legal)
    assert all(abs(p - 1 / len(legal)) < 1e-12 for _, p in policy)
    policy, action = korovan_caravan.Agent(game, "heuristic", seed=8).step_with_policy(state)
    assert policy == [(action, 1.0)]


def test_a_forced_move_has_all_its_policy_on_it():
    # Korovan has decisions with a single legal action (random play meets
    # some in the first games): the search is skipped, the policy is the move.
    game = game_of("korovan", 3)
    rng = korovan_caravan.Rng(0)
    state = game.new_initial_state()
    forced = 0
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(state.sample_chance(rng))
            continue
        legal = state.legal_actions()
        if len(legal) == 1:
            policy, action = korovan_caravan.Agent(game, "ismcts:20").step_with_policy(state)
            assert policy == [(legal[0], 1.0)] and action == legal[0]
            forced += 1
        state.apply_action(legal[rng.index(len(legal))])
        if state.is_terminal() and forced == 0:
            state = game.new_initial_state()
    assert forced > 0


def test_agents_take_openspiel_states_too():
    pytest.importorskip("pyspiel")
    import korovan_caravan.openspiel as ko

    state = decision(game_of("korovan", 3), seed=4)
    wrapped = ko.from_korovan_caravan(state)
    spiel_game = wrapped.get_game()
    agent = korovan_caravan.Agent(spiel_game, "ismcts:15", seed=2)
    assert agent.step(wrapped) == korovan_caravan.Agent(state.get_game(), "ismcts:15", seed=2).step(state)


def steps_of_another_thread_during(call: Callable[[], object]) -> int:
    """How many times another Python thread ran its loop while `call()` ran:
    more than 0 when the call released the GIL."""
    count = [0]
    stop = threading.Event()

    def counter():
        while not stop.is_set():
            count[0] += 1

    t = threading.Thread(target=counter)
    t.start()
    try:
        before = count[0]
        call()
        return count[0] - before
    finally:
        stop.set()
        t.join()


def test_the_search_releases_the_gil():
    game = game_of("caravan", 2)
    state = decision(game)
    agent = korovan_caravan.Agent(game, "ismcts:300ms")
    during = steps_of_another_thread_during(lambda: agent.step(state))
    assert during > 0, "another Python thread ran while the agent searched"


def test_bad_input_is_refused():
    game = game_of("caravan", 2)
    korovan = game_of("korovan", 3)
    with pytest.raises(ValueError, match="unknown agent `chess`"):
        korovan_caravan.Agent(game, "chess")
    for bad in ["", "random:3", "ismcts:0", "ismcts:x", "ismcts:5h", "flatmc:-1", "heuristic:9"]:
        with pytest.raises(ValueError, match="agent"):
            korovan_caravan.Agent(game, bad)
    with pytest.raises(TypeError, match="agent name must be a str"):
        korovan_caravan.Agent(game, 3)
    with pytest.raises(TypeError, match="expected a game"):
        korovan_caravan.Agent("caravan", "random")
    with pytest.raises(TypeError, match="expected a game"):
        korovan_caravan.Agent(game.new_initial_state(), "random")
    with pytest.raises(ValueError, match="seed"):
        korovan_caravan.Agent(game, "random", seed=-1)
    with pytest.raises(TypeError, match="seed"):
        korovan_caravan.Agent(game, "random", seed="1")
    agent = korovan_caravan.Agent(game, "heuristic")
    with pytest.raises(TypeError, match="expected a caravan state"):
        agent.step(korovan.new_initial_state())
    with pytest.raises(TypeError, match="expected a caravan state"):
        agent.step(None)
    with pytest.raises(ValueError, match="no seat is to move"):
        agent.step(game.new_initial_state())  # the deal: a chance node
    finished = korovan_caravan.random_game(game, 1)
    with pytest.raises(ValueError, match="no seat is to move"):
        agent.step_with_policy(finished)
    with pytest.raises(ValueError, match="seed"):
        agent.restart(seed=2**64)


def positions(game, names, seed):
    """The states at every decision of the Rust driver's game of `seed`
    with `names`, and the action played at each."""
    state = game.new_initial_state()
    states, played = [], []
    for a in play_game(game, names, seed).history():
        if not state.is_chance_node():
            states.append(state.clone())
            played.append(a)
        state.apply_action(a)
    return states, played


@pytest.mark.parametrize("spec", NAMES)
def test_step_many_gives_what_as_many_steps_give(name, spec):
    game = game_of(name, 3)
    # decisions of several games, every seat, in an order no game has
    states = []
    for seed in range(3):
        states += positions(game, ["random"] * 3, seed)[0][::7]
    states = states[1::2] + states[::2]
    one, many = korovan_caravan.Agent(game, spec, seed=5), korovan_caravan.Agent(game, spec, seed=5)
    singles = [one.step(s) for s in states]
    ids = many.step_many(states)
    assert ids.dtype == np.int64 and ids.shape == (len(states),)
    assert ids.tolist() == singles
    # the streams have advanced alike: the next calls agree too
    assert many.step_many(tuple(states[:5])).tolist() == [one.step(s) for s in states[:5]]
    assert many.step_many(s for s in states[5:9]).tolist() == [one.step(s) for s in states[5:9]]
    assert many.step(states[0]) == one.step(states[0])


@pytest.mark.parametrize("engine,players", [("korovan", 5), ("caravan", 2)])
@pytest.mark.parametrize("spec", ["random", "heuristic"])
def test_step_many_plays_the_arenas_moves(engine, players, spec):
    game = game_of(engine, players)
    agent = korovan_caravan.Agent(game, spec)
    for seed in range(4):
        states, played = positions(game, [spec] * players, seed)
        agent.restart(seed=seed)
        assert agent.step_many(states).tolist() == played, (engine, spec, seed)


def test_step_many_takes_openspiel_states_too():
    pytest.importorskip("pyspiel")
    import korovan_caravan.openspiel as ko

    game = game_of("korovan", 3)
    states = [decision(game, seed=4, skip=k) for k in range(3)]
    wrapped = [ko.from_korovan_caravan(s) for s in states]
    agent = korovan_caravan.Agent(wrapped[0].get_game(), "heuristic", seed=2)
    mixed = [wrapped[0], states[1], wrapped[2]]
    expected = korovan_caravan.Agent(game, "heuristic", seed=2).step_many(states)
    assert agent.step_many(mixed).tolist() == expected.tolist()


def test_step_many_releases_the_gil_for_searches():
    game = game_of("caravan", 2)
    states = [decision(game, skip=k) for k in range(2)]
    agent = korovan_caravan.Agent(game, "ismcts:150ms")
    during = steps_of_another_thread_during(lambda: agent.step_many(states))
    assert during > 0, "another Python thread ran while the agent searched"


def test_step_many_refuses_bad_input_and_decides_nothing_then():
    game = game_of("caravan", 2)
    korovan = game_of("korovan", 3)
    states = [decision(game, seed=1, skip=k) for k in range(4)]
    agent = korovan_caravan.Agent(game, "random", seed=9)
    for bad in [None, 3, 2.5, "abc", states[0], object()]:
        with pytest.raises(TypeError, match="step_many takes a sequence of caravan states"):
            agent.step_many(bad)
    with pytest.raises(TypeError, match=r"states\[0\]: expected a caravan state"):
        agent.step_many(b"ab")
    with pytest.raises(TypeError, match=r"states\[2\]: expected a caravan state"):
        agent.step_many(states[:2] + [korovan.new_initial_state()])
    with pytest.raises(TypeError, match=r"states\[0\]: expected a caravan state"):
        agent.step_many([None])
    with pytest.raises(TypeError, match=r"states\[1\]: expected a caravan state"):
        agent.step_many([states[0], 7])
    with pytest.raises(TypeError, match=r"states\[0\]: expected a caravan state"):
        agent.step_many([states])  # nested
    with pytest.raises(ValueError, match=r"no seat is to move in states\[1\]"):
        agent.step_many([states[0], game.new_initial_state()])  # the deal: a chance node
    finished = korovan_caravan.random_game(game, 1)
    with pytest.raises(ValueError, match=r"no seat is to move in states\[3\]"):
        agent.step_many(states[:3] + [finished])
    with pytest.raises(ValueError, match="at least one state"):
        agent.step_many([])
    with pytest.raises(ValueError, match="at least one state"):
        agent.step_many(())

    def broken():
        yield states[0]
        raise RuntimeError("the iterator broke")

    with pytest.raises(RuntimeError, match="the iterator broke"):
        agent.step_many(broken())
    # none of the refused calls drew from the streams
    fresh = korovan_caravan.Agent(game, "random", seed=9)
    assert agent.step_many(states).tolist() == fresh.step_many(states).tolist()
