"""Mutated pickles and records: every one is refused with ValueError or
gives a valid state whose whole API then works; nothing panics (a Rust
panic would surface as pyo3's PanicException, a BaseException that
`pytest.raises(ValueError)` does not catch)."""

import json
import random

import numpy as np
import pytest
from conftest import mid_game

import korovan_caravan


def mutate(value, rng):
    """`value` with one number, bool or list entry somewhere inside changed."""
    if isinstance(value, dict) and value:
        key = rng.choice(sorted(value))
        return dict(value, **{key: mutate(value[key], rng)})
    if isinstance(value, list) and value:
        i = rng.randrange(len(value))
        if rng.random() < 0.2:
            return value[:i] + value[i + 1 :]
        return value[:i] + [mutate(value[i], rng)] + value[i + 1 :]
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return rng.choice([value + 1, value - 1, 0, -1, 255, 2**16, value * 7])
    if value is None:
        return rng.choice([0, 1, []])
    return value


def exercise(state):
    """Calls every read method and plays to the end."""
    n = state.num_players()
    state.legal_actions()
    state.legal_actions_mask()
    state.chance_outcomes()
    str(state)
    for p in range(n):
        assert np.isfinite(state.observation_tensor(p)).all()
        state.observation_string(p)
    if state.current_player() >= 0:
        state.resample_from_infostate(state.current_player(), 1)
    state.playout(1, max_steps=5000)
    state.returns()


@pytest.mark.parametrize("name", ["korovan", "caravan"])
def test_mutated_pickles(name):
    rng = random.Random(name)
    base = mid_game(name, 3, seed=31)
    payload = json.loads(base.__reduce__()[1][0])
    cls = type(base)
    accepted = 0
    for _ in range(300):
        data = dict(payload, state=mutate(payload["state"], rng), history=None)
        try:
            state = cls._from_pickle(json.dumps(data))
        except ValueError:
            continue
        accepted += 1
        exercise(state)
    assert accepted < 300  # most mutations break a rule the engine checks


@pytest.mark.parametrize("name", ["korovan", "caravan"])
def test_mutated_records(name):
    rng = random.Random(name + "r")
    base = mid_game(name, 3, seed=32)
    record = json.loads(base.to_record())
    for _ in range(200):
        data = mutate(record, rng)
        try:
            state = korovan_caravan.from_record(json.dumps(data))
        except ValueError:
            continue
        exercise(state)
