"""Acceptance: a full random game played through Python is the same game
(same action sequence, same returns) as the same seeded game played by the
Rust driver; records written in Python are read by the `boardgame` binary."""

import json
import re
import subprocess

import pytest
from conftest import PLAYER_COUNTS

import korovan_caravan


def python_random_game(game, seed):
    """A random game driven from Python, call by call, with the driver's
    streams: chance from child(CHANCE_STREAM), seat s from
    child(AGENT_STREAM_BASE + s), each seat drawing an index into its legal
    actions in the engine's order (what the kit's RandomAgent does)."""
    root = korovan_caravan.Rng(seed)
    chance = root.child(korovan_caravan.CHANCE_STREAM)
    seats = [root.child(korovan_caravan.AGENT_STREAM_BASE + s) for s in range(game.num_players())]
    state = game.new_initial_state()
    while not state.is_terminal():
        player = state.current_player()
        if player == korovan_caravan.CHANCE_PLAYER:
            # The exact weights, drawn as the kit's sample_chance draws them.
            state.apply_action(state.sample_chance(chance))
        else:
            legal = state.legal_actions_engine_order()
            assert sorted(legal) == state.legal_actions()
            state.apply_action(legal[seats[player].index(len(legal))])
    return state


@pytest.mark.parametrize("seed", [0, 1, 2, 2026])
def test_python_game_equals_rust_driver_game(name, seed):
    for players in PLAYER_COUNTS[name]:
        game = korovan_caravan.load_game(name, players=players)
        state = python_random_game(game, seed)
        rust_record = game.play_random(seed)
        record = json.loads(rust_record)
        assert record["seed"] == seed and record["engine"] == name
        assert record["agents"] == ["random"] * players
        assert state.history() == record["actions"], (name, players, seed)
        rust_final = korovan_caravan.from_record(rust_record)
        assert state.returns() == rust_final.returns()
        assert state.scores() == rust_final.scores()
        assert state == rust_final
        # The package's helper plays the same game.
        assert korovan_caravan.random_game(game, seed).history() == record["actions"]


def test_different_seeds_give_different_games(name):
    game = korovan_caravan.load_game(name)
    assert len({tuple(python_random_game(game, s).history()) for s in range(4)}) == 4


@pytest.mark.parametrize("players", [3, 4])
def test_binary_replays_python_records(name, players, binary, tmp_path):
    game = korovan_caravan.load_game(name, players=players)
    state = python_random_game(game, 77)
    path = tmp_path / "game.json"
    path.write_text(state.to_record(seed=77))
    out = subprocess.run([binary, "replay", str(path)], capture_output=True, text=True, check=True).stdout
    scores = re.search(r"Scores: (.*)", out).group(1)
    assert scores == ", ".join(f"seat {s}: {v}" for s, v in enumerate(state.scores()))
    winners = re.search(r"Winner\(s\): (.*)", out).group(1)
    assert winners == "seat " + ", ".join(str(s) for s in state.winners())


def test_binary_refuses_a_corrupted_python_record(binary, tmp_path):
    game = korovan_caravan.load_game("korovan", players=3)
    state = python_random_game(game, 5)
    data = json.loads(state.to_record())
    data["actions"][3] = 10**6
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    run = subprocess.run([binary, "replay", str(path)], capture_output=True, text=True)
    assert run.returncode != 0 and "step 3" in run.stderr
    with pytest.raises(ValueError, match="step 3"):
        korovan_caravan.from_record(json.dumps(data))
