"""One-call evaluation (issue 20 part 6): `korovan_caravan.evaluate` with
built-in names (in Rust, on the kit's Arena: the binary's `simulate` for the
same seeds), the same match driven from Python, Python callables and Agent
objects, seat rotation, intervals, and bad input."""

import importlib.util
import json

import numpy as np
import pytest
from conftest import SHORT

import korovan_caravan
from korovan_caravan._korovan_caravan import simulate_json
from korovan_caravan.evaluation import AgentResult, EvaluationResult, play_game

MATCHES = [
    ("caravan", 2, ["heuristic", "ismcts:10"]),
    ("caravan", 3, ["random", "heuristic", "flatmc:6"]),
    ("korovan", 3, ["heuristic", "random", "ismcts-h:6"]),
    ("korovan", 5, ["random", "heuristic", "random", "ismcts:6", "random"]),
]


def game_of(name, players):
    return korovan_caravan.load_game(name, players=players, **SHORT[name])


def first_legal(state):
    return state.legal_actions()[0]


@pytest.mark.parametrize("engine,players,names", MATCHES)
@pytest.mark.parametrize("rotate", [True, False])
def test_a_match_of_names_is_the_binarys_simulation(engine, players, names, rotate):
    game = game_of(engine, players)
    result = korovan_caravan.evaluate(game, names, games=12, seed=40, rotate_seats=rotate)
    assert isinstance(result, EvaluationResult) and result.native
    assert (result.game, result.players, result.games, result.seeds) == (engine, players, 12, range(40, 52))
    sim = json.loads(
        simulate_json(
            engine, 12, ",".join(names), config=game.config_json(), seed=40, fixed_seats=not rotate, threads=2
        )
    )
    assert sim["games"] == 12 and sim["agents"] == [korovan_caravan.Agent(game, n).name for n in names]
    for mine, theirs in zip(result.agents, sim["by_agent"]):
        assert (mine.games, mine.wins, mine.draws) == (theirs["games"], theirs["wins"], theirs["draws"])
        assert mine.mean_score == theirs["score_sum"] / 12
        assert mine.share == theirs["share_units"] / (12 * 720720)
    assert result.mean_length == sim["length_sum"] / 12
    # The same match driven from Python: the same games, the same report.
    driven = korovan_caravan.evaluate(game, names, games=12, seed=40, rotate_seats=rotate, native=False)
    assert not driven.native
    assert driven.agents == result.agents and driven.mean_length == result.mean_length
    # And with Agent objects in place of the names (restarted with each seed).
    objects = [korovan_caravan.Agent(game, n, seed=999) for n in names]
    assert korovan_caravan.evaluate(game, objects, games=12, seed=40, rotate_seats=rotate).agents == result.agents


def test_threads_do_not_change_the_result():
    game = game_of("korovan", 4)
    names = ["heuristic", "random", "random", "ismcts:5"]
    one = korovan_caravan.evaluate(game, names, games=16, seed=3)
    two = korovan_caravan.evaluate(game, names, games=16, seed=3, threads=2)
    assert one == two


def test_the_results_add_up_and_intervals_hold_the_share(name):
    players = 3
    game = game_of(name, players)
    result = korovan_caravan.evaluate(game, ["heuristic", first_legal, "random"], games=15, seed=1)
    assert not result.native
    assert [a.name for a in result.agents] == ["heuristic", "first_legal", "random"]
    for a in result.agents:
        assert isinstance(a, AgentResult)
        assert a.games == 15 and a.wins + a.draws + a.losses == 15
        lo, hi = a.share_interval
        assert 0.0 <= lo <= a.share <= hi <= 1.0
        lo, hi = a.win_interval
        assert 0.0 <= lo <= a.win_rate <= hi <= 1.0
        assert a.win_rate == a.wins / 15
    # The shares of a game sum to 1: over the match, to the number of games.
    assert sum(a.share for a in result.agents) * 15 == pytest.approx(15)
    assert "heuristic" in str(result) and "95% interval" in str(result)


def test_seats_rotate_and_callables_see_their_seat():
    game = game_of("caravan", 3)
    seats = {0: set(), 1: set(), 2: set()}

    def spy(entrant):
        def act(state):
            seats[entrant].add(state.current_player())
            return first_legal(state)

        return act

    korovan_caravan.evaluate(game, [spy(0), spy(1), spy(2)], games=3, seed=0)
    assert all(s == {0, 1, 2} for s in seats.values()), seats
    seats = {0: set(), 1: set(), 2: set()}
    korovan_caravan.evaluate(game, [spy(0), spy(1), spy(2)], games=3, seed=0, rotate_seats=False)
    assert seats == {0: {0}, 1: {1}, 2: {2}}


def test_a_callable_gets_a_copy_of_the_state():
    game = game_of("caravan", 2)

    def vandal(state):
        action = first_legal(state)
        state.apply_action(action)  # must not touch the real game
        return action

    result = korovan_caravan.evaluate(game, [vandal, "random"], games=2, seed=5)
    assert result.games == 2


def test_the_heuristic_beats_random_play():
    game = korovan_caravan.load_game("caravan", players=2)
    result = korovan_caravan.evaluate(game, ["heuristic", "random"], games=40, seed=0)
    assert result.agents[0].share_interval[0] > 0.5
    assert result.agents[0].share + result.agents[1].share == pytest.approx(1.0)


def test_play_game_is_the_drivers_game(name):
    game = game_of(name, 3)
    state = play_game(game, ["heuristic", "random", "ismcts:5"], seed=4)
    assert state.is_terminal()
    record = json.loads(state.to_record())
    assert record["actions"] == state.history()
    # The arena without rotation plays the same game for that seed.
    fixed = korovan_caravan.evaluate(game, ["heuristic", "random", "ismcts:5"], games=1, seed=4, rotate_seats=False)
    for seat, a in enumerate(fixed.agents):
        assert a.mean_score == state.scores()[seat]
        assert a.wins == (state.winners() == [seat])


def test_bad_input_is_refused():
    game = game_of("caravan", 2)
    with pytest.raises(ValueError, match="2 seats but 3 agents"):
        korovan_caravan.evaluate(game, ["random"] * 3, games=1)
    with pytest.raises(ValueError, match="2 seats but 1 agents"):
        korovan_caravan.evaluate(game, [first_legal], games=1)
    with pytest.raises(ValueError, match="unknown agent `chess`"):
        korovan_caravan.evaluate(game, ["random", "chess"], games=1)
    with pytest.raises(ValueError, match="unknown agent `chess`"):
        korovan_caravan.evaluate(game, [first_legal, "chess"], games=1)
    with pytest.raises(TypeError, match="agents must be a list"):
        korovan_caravan.evaluate(game, "random", games=1)
    with pytest.raises(TypeError, match="agent 1 must be"):
        korovan_caravan.evaluate(game, ["random", 3], games=1)
    with pytest.raises(TypeError, match="expected a game"):
        korovan_caravan.evaluate("caravan", ["random", "random"], games=1)
    with pytest.raises(TypeError, match="games must be an int"):
        korovan_caravan.evaluate(game, ["random", "random"], games=2.0)
    with pytest.raises(ValueError, match="games must be at least 0"):
        korovan_caravan.evaluate(game, ["random", "random"], games=-1)
    with pytest.raises(ValueError, match="seed must be at least 0"):
        korovan_caravan.evaluate(game, ["random", "random"], seed=-1)
    with pytest.raises(ValueError, match="2\\*\\*64"):
        korovan_caravan.evaluate(game, ["random", "random"], games=2, seed=2**64 - 1)
    with pytest.raises(ValueError, match="threads must be at least 1"):
        korovan_caravan.evaluate(game, ["random", "random"], threads=0)
    with pytest.raises(ValueError, match="native=True"):
        korovan_caravan.evaluate(game, [first_legal, "random"], native=True)
    with pytest.raises(ValueError, match=r"agent 0 \(cheat\) at step \d+ \(seed 0\)"):

        def cheat(state):
            return 10**6

        korovan_caravan.evaluate(game, [cheat, "random"], games=1)
    with pytest.raises(TypeError, match=r"agent 1 \(<lambda>\) returned str"):
        korovan_caravan.evaluate(game, ["random", lambda s: "e"], games=1)
    with pytest.raises(TypeError, match="agent names"):
        play_game(game, "random")
    with pytest.raises(ValueError, match="2 seats but 1 agents"):
        play_game(game, ["random"])
    # No games: an empty report, intervals (0, 1).
    empty = korovan_caravan.evaluate(game, ["random", "random"], games=0)
    assert empty.games == 0 and empty.agents[0].share_interval == (0.0, 1.0)


def test_openspiel_games_are_evaluated_natively_too():
    pytest.importorskip("pyspiel")
    import korovan_caravan.openspiel as ko

    spiel = ko.from_korovan_caravan(game_of("caravan", 2).new_initial_state()).get_game()
    assert spiel.boardgame == game_of("caravan", 2)
    native = korovan_caravan.evaluate(spiel, ["heuristic", "random"], games=4, seed=2)
    assert native.native
    assert native == korovan_caravan.evaluate(game_of("caravan", 2), ["heuristic", "random"], games=4, seed=2)


def test_the_tally_refuses_wrong_seats():
    from korovan_caravan._korovan_caravan import _Tally

    game = game_of("caravan", 2)
    done = korovan_caravan.random_game(game, 1)
    tally = _Tally(game, ["a", "b"])
    for bad in ([0, 0], [0], [0, 2], [1, 0, 2]):
        with pytest.raises(ValueError, match="seat_of"):
            tally.add(done, bad, 10)
    with pytest.raises(ValueError, match="not over"):
        tally.add(game.new_initial_state(), [0, 1], 0)
    with pytest.raises(TypeError, match="expected a caravan state"):
        tally.add(game_of("korovan", 3).new_initial_state(), [0, 1], 0)
    with pytest.raises(ValueError, match="2 seats but 3 agents"):
        _Tally(game, ["a", "b", "c"])
    tally.add(done, [1, 0], 10)
    report = tally.report()
    winner = done.winners()
    assert report["games"] == 1 and report["length_sum"] == 10
    a, b = report["entrants"]
    assert (a["wins"], b["wins"]) == ((1, 0) if winner == [1] else (0, 1) if winner == [0] else (0, 0))
    assert a["score_sum"] == done.scores()[1] and b["score_sum"] == done.scores()[0]


# ------------------------------------------------------------ evaluate_policy

needs_gymnasium = pytest.mark.skipif(importlib.util.find_spec("gymnasium") is None, reason="needs gymnasium")


@needs_gymnasium
def test_a_random_policy_against_random_agents_gets_a_fair_share():
    from korovan_caravan.evaluation import evaluate_policy, random_policy

    r = evaluate_policy(random_policy(1), "korovan", players=3, opponents="random", games=240, seed=0)
    assert r.games == 240 and r.players == 3 and r.opponents == ("random", "random")
    assert r.fair_share == pytest.approx(1 / 3)
    lo, hi = r.share_interval
    assert lo < r.fair_share < hi
    assert hi - lo < 0.15
    assert r.wins + r.draws + r.losses == 240
    assert r.share == pytest.approx(r.shares.mean())
    assert "share" in str(r) and "korovan" in str(r)


class FirstLegal:
    """A trivial policy object: the first legal action of every game."""

    def __init__(self):
        self.calls = 0

    def __call__(self, obs, mask):
        self.calls += 1
        assert obs.dtype == np.float32 and mask.dtype == np.bool_ and len(obs) == len(mask)
        return np.argmax(mask, axis=1)


@needs_gymnasium
def test_a_policy_object_and_reproducibility_over_batches():
    from korovan_caravan.evaluation import evaluate_policy

    p = FirstLegal()
    a = evaluate_policy(p, "caravan", players=2, opponents="heuristic", games=12, seed=5, max_turns=40)
    assert p.calls > 0 and a.opponents == ("heuristic",) and a.seeds == range(5, 17)
    assert np.all((a.shares >= 0) & (a.shares <= 1))
    # the games are those of the seeds, whatever the batch
    b = evaluate_policy(FirstLegal(), "caravan", players=2, opponents="heuristic", games=12, seed=5, batch=5,
                        max_turns=40)
    assert np.array_equal(a.shares, b.shares)
    # against the heuristic the first legal action loses nearly every game
    assert a.share < 0.5


@needs_gymnasium
def test_the_sb3_adapter_passes_the_masks():
    from korovan_caravan.evaluation import evaluate_policy, sb3_policy

    class Model:
        def predict(self, obs, action_masks=None, deterministic=False):
            assert deterministic and action_masks is not None
            return np.argmax(action_masks, axis=1), None

    r = evaluate_policy(sb3_policy(Model()), "korovan", players=3, games=6)
    assert r.games == 6
    with pytest.raises(TypeError, match="predict"):
        sb3_policy(object())


@needs_gymnasium
def test_evaluate_policy_refuses_bad_input():
    from korovan_caravan import InvalidActionError
    from korovan_caravan.evaluation import evaluate_policy, random_policy

    with pytest.raises(TypeError, match="policy"):
        evaluate_policy("random", "korovan")
    with pytest.raises(ValueError, match="games"):
        evaluate_policy(random_policy(), "korovan", games=0)
    with pytest.raises(TypeError, match="seed"):
        evaluate_policy(random_policy(), "korovan", seed=True)
    with pytest.raises(InvalidActionError):
        evaluate_policy(lambda obs, mask: np.argmin(mask, axis=1), "korovan", players=3, games=2)
    with pytest.raises(ValueError, match="shape"):
        evaluate_policy(lambda obs, mask: np.zeros(7, dtype=np.int64), "korovan", players=3, games=2)
    with pytest.raises(ValueError):
        evaluate_policy(random_policy(), "korovan", opponents="nobody")
