"""Every bad input raises ValueError/TypeError with the engine's message and
leaves the state as it was (issue part 2); nothing panics."""

import json
import pickle

import numpy as np
import pytest
from conftest import mid_game

import korovan_caravan


@pytest.fixture(params=["korovan", "caravan"])
def state(request):
    return mid_game(request.param, 3, seed=21)


def unchanged(state, before):
    assert state == before and state.history() == before.history()


def illegal_ids(state):
    legal = set(state.legal_actions())
    return [a for a in range(state.num_distinct_actions()) if a not in legal]


def test_illegal_action_raises_value_error_with_the_engine_reason(state):
    before = state.clone()
    for action in illegal_ids(state):
        with pytest.raises(ValueError) as err:
            state.apply_action(action)
        assert str(err.value), action
        unchanged(state, before)


def test_korovan_illegal_message_names_the_action():
    state = mid_game("korovan", 5, seed=22, steps=0)
    with pytest.raises(ValueError, match="illegal action|not|cannot"):
        state.apply_action(state.string_to_action("reveal"))


@pytest.mark.parametrize("bad", [-1, -(2**40), 10**6, 2**31, 2**32, 2**63 - 1, 2**64, 10**30, -(10**30)])
def test_out_of_range_ids_raise_value_error(state, bad):
    before = state.clone()
    with pytest.raises(ValueError, match="action id|unknown|out of range"):
        state.apply_action(bad)
    unchanged(state, before)
    with pytest.raises(ValueError):
        state.action_to_string(bad)


@pytest.mark.parametrize("bad", ["3", 1.0, None, [1], b"1", object()])
def test_wrong_types_raise_type_error(state, bad):
    before = state.clone()
    with pytest.raises(TypeError):
        state.apply_action(bad)
    unchanged(state, before)
    with pytest.raises(TypeError):
        state.action_to_string(bad)
    with pytest.raises(TypeError):
        state.observation_tensor(bad)
    with pytest.raises(TypeError):
        state.observation_string(bad)
    with pytest.raises(TypeError):
        state.resample_from_infostate(bad, 1)


def test_numpy_integers_are_accepted(state):
    action = np.int64(state.legal_actions()[0])
    state.apply_action(action)
    assert state.history()[-1] == int(action)


@pytest.mark.parametrize("seat", [-1, 3, 9, 16, 2**40, 2**70])
def test_bad_seats_raise_value_error(state, seat):
    for call in (state.observation_tensor, state.observation_string):
        with pytest.raises(ValueError, match="seat|out of range"):
            call(seat)
    with pytest.raises(ValueError, match="seat|out of range"):
        state.resample_from_infostate(seat, 1)
    out = np.zeros(state.get_game().observation_tensor_size(), np.float32)
    with pytest.raises(ValueError):
        state.observation_tensor_into(seat, out)


def test_bad_tensor_buffers(state):
    size = state.get_game().observation_tensor_size()
    with pytest.raises(ValueError, match="buffer has length"):
        state.observation_tensor_into(0, np.zeros(size + 1, np.float32))
    with pytest.raises(ValueError, match="not contiguous"):
        state.observation_tensor_into(0, np.zeros(2 * size, np.float32)[::2])
    with pytest.raises(TypeError):
        state.observation_tensor_into(0, np.zeros(size, np.float64))
    with pytest.raises(TypeError):
        state.observation_tensor_into(0, [0.0] * size)


@pytest.mark.parametrize("text", ["", "fly away", "peek 9.9", "lay 7", "move zz9->a1", "\x00", "deal"])
def test_bad_notation_raises_value_error(state, text):
    before = state.clone()
    try:
        action = state.string_to_action(text)
    except ValueError as err:
        assert str(err)
    else:  # the text is an action of the other engine's syntax... then it must round-trip
        assert state.action_to_string(action) == text
    unchanged(state, before)
    with pytest.raises(TypeError):
        state.string_to_action(5)


def test_bad_seeds(state):
    for seed in (-1, 2**64):
        with pytest.raises(ValueError):
            state.playout(seed)
        with pytest.raises(ValueError):
            korovan_caravan.Rng(seed)
    with pytest.raises(TypeError):
        state.playout("7")


def test_corrupt_records_raise_value_error(state):
    good = json.loads(state.to_record())
    cases = {
        "not json": "{",
        "not an object": "[1, 2]",
        "wrong engine": json.dumps(dict(good, engine="chess")),
        "other engine of the package": json.dumps(
            dict(good, engine="caravan" if good["engine"] == "korovan" else "korovan")
        ),
        "rules version": json.dumps(dict(good, rules_version=999)),
        "format version": json.dumps(dict(good, format_version=999)),
        "bad config": json.dumps(dict(good, config=dict(good["config"], players=99))),
        "unknown id": json.dumps(dict(good, actions=good["actions"] + [10**6])),
        "illegal action": json.dumps(dict(good, actions=good["actions"] + good["actions"][-1:] * 3)),
        "negative id": json.dumps(dict(good, actions=[-1])),
        "missing actions": json.dumps({k: v for k, v in good.items() if k != "actions"}),
    }
    for what, text in cases.items():
        with pytest.raises(ValueError) as err:
            type(state).from_record(text)
        assert str(err.value), what
        with pytest.raises(ValueError):
            korovan_caravan.from_record(text)
    with pytest.raises(TypeError):
        korovan_caravan.from_record(b"{}")
    with pytest.raises(TypeError):
        korovan_caravan.from_record(None)


def test_illegal_record_names_the_step(state):
    good = json.loads(state.to_record())
    after_one = state.get_game().new_initial_state()
    after_one.apply_action(good["actions"][0])
    bad = dict(good, actions=good["actions"][:1] + illegal_ids(after_one)[:1])
    with pytest.raises(ValueError, match="step 1"):
        korovan_caravan.from_record(json.dumps(bad))


def test_corrupt_pickles_raise_value_error(state):
    cls = type(state)
    payload = state.__reduce__()[1][0]
    data = json.loads(payload)
    cases = [
        "",
        "{}",
        "[]",
        json.dumps(dict(data, history=data["history"][:-1])),  # history does not lead to the position
        json.dumps(dict(data, state={"nonsense": 1})),
    ]
    for text in cases:
        with pytest.raises(ValueError):
            cls._from_pickle(text)
    good = pickle.dumps(state)
    assert pickle.loads(good) == state


def test_resampled_state_has_no_record(state):
    sample = state.resample_from_infostate(0, 1)
    with pytest.raises(ValueError, match="no history"):
        sample.to_record()


def test_actions_after_the_end_raise(name="korovan"):
    state = mid_game(name, 3, seed=23, steps=None)
    state.playout(1)
    assert state.is_terminal()
    before = state.clone()
    for action in range(state.num_distinct_actions()):
        with pytest.raises(ValueError):
            state.apply_action(action)
    unchanged(state, before)
    assert state.sample_chance(korovan_caravan.Rng(1)) is None
    assert state.playout(5) == 0


def test_read_only_buffer_raises_type_error(state):
    out = np.zeros(state.get_game().observation_tensor_size(), np.float32)
    out.setflags(write=False)
    with pytest.raises(TypeError, match="not writeable"):
        state.observation_tensor_into(0, out)
    assert not out.any()


def test_rng_bad_arguments():
    rng = korovan_caravan.Rng(1)
    for call, arg in [(rng.index, -1), (rng.child, -1), (rng.child, 2**32), (rng.weighted, [-1]), (rng.weighted, [2**32])]:
        with pytest.raises(ValueError, match="out of range"):
            call(arg)
    for call, arg in [(rng.index, "3"), (rng.child, 1.5), (rng.weighted, ["a"]), (rng.weighted, 5)]:
        with pytest.raises(TypeError):
            call(arg)
    assert rng.weighted([]) is None and rng.weighted([0, 0]) is None
    # issue 22 item 12: there is no index in 0..0
    with pytest.raises(ValueError, match="n >= 1"):
        rng.index(0)
    assert rng.index(1) == 0


def test_rng_matches_the_kits_golden_values():
    # The kit's pinned values for seed 42 (crates/boardgame-kit/src/rng.rs).
    rng = korovan_caravan.Rng(42)
    assert [rng.next_u64() for _ in range(2)] == [12578764544318200737, 17529487244874322312]
    assert korovan_caravan.Rng(42).child(3).next_u64() == 16096927781296477347
    rng = korovan_caravan.Rng(42)
    assert [rng.index(10) for _ in range(8)] == [2, 6, 1, 9, 7, 4, 3, 6]


def test_bad_playout_and_sample_arguments(state):
    before = state.clone()
    with pytest.raises(ValueError, match="max_steps"):
        state.playout(1, max_steps=-1)
    with pytest.raises(TypeError):
        state.playout(1, max_steps="3")
    with pytest.raises(TypeError):
        state.sample_chance(7)
    with pytest.raises(TypeError):
        state.resample_from_infostate(0, lambda: "x")
    unchanged(state, before)
