"""Issue 22 item 12 through the OpenSpiel wrapper: a sampler returning
anything but a float in [0, 1) is refused with a clear error there too
(it turned 2.0 into a seed, and NaN into int()'s error)."""

import math

import pytest

pyspiel = pytest.importorskip("pyspiel")
import korovan_caravan.openspiel as bo  # noqa: E402


@pytest.fixture(scope="module", autouse=True)
def registered():
    return bo.register()


@pytest.mark.parametrize("name", ["korovan", "caravan"])
def test_the_wrappers_sampler_must_be_in_zero_one(name):
    state = pyspiel.load_game(name, {"players": 3}).new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.legal_actions()[0])
    player = state.current_player()
    for value in [2.0, 1.0, -1.0, math.nan, math.inf, True, "x", None]:
        with pytest.raises(ValueError, match=r"\[0, 1\)"):
            state.resample_from_infostate(player, lambda value=value: value)
    sample = state.resample_from_infostate(player, lambda: 0.25)
    assert sample.observation_string(player) == state.observation_string(player)
