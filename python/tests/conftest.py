"""Shared fixtures: the engines and their player counts, the `boardgame`
binary."""

import os
import pathlib
import shutil

import pytest

import korovan_caravan

# Every engine with every player count it accepts (K-1.1: 3..9, C-1.1: 2..4).
PLAYER_COUNTS = {"korovan": range(3, 10), "caravan": range(2, 5)}
# A short Caravan (C-7.2's guard at 30 turns) keeps search tests fast.
SHORT = {"korovan": {}, "caravan": {"max_turns": 30}}


@pytest.fixture(params=sorted(PLAYER_COUNTS))
def name(request):
    return request.param


def play_to_end(state, rng):
    """Plays uniformly random actions (chance by its probabilities) with a
    Python ``random.Random``; returns the state."""
    while not state.is_terminal():
        if state.is_chance_node():
            ids, probs = zip(*state.chance_outcomes())
            state.apply_action(rng.choices(ids, probs)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state


def mid_game(name, players, seed, steps=None):
    """A state some way into a random game (half of it by default)."""
    import random

    game = korovan_caravan.load_game(name, players=players, **SHORT[name])
    full = play_to_end(game.new_initial_state(), random.Random(seed))
    history = full.history()
    state = game.new_initial_state()
    for a in history[: (len(history) // 2 if steps is None else steps)]:
        state.apply_action(a)
    return state


def _boardgame_binary():
    env = os.environ.get("BOARDGAME_BIN")
    if env:
        return env
    root = pathlib.Path(__file__).resolve().parents[2]
    # cargo's target directory: CARGO_TARGET_DIR (relative to the
    # repository, as cargo reads it from there) or ./target.
    target = root / os.environ.get("CARGO_TARGET_DIR", "target")
    for profile in ("release", "debug"):
        path = target / profile / "boardgame"
        if path.exists():
            return str(path)
    return shutil.which("boardgame")


@pytest.fixture(scope="module")
def binary():
    path = _boardgame_binary()
    if path is None:
        if os.environ.get("BOARDGAMES_REQUIRE_BINARY"):
            pytest.fail("the `boardgame` binary was not found (set BOARDGAME_BIN)")
        pytest.skip("the `boardgame` binary is not built (cargo build -p boardgame-cli)")
    return path
