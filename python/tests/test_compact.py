"""Caravan's compact action space (issue 20 part 5): the compact ids
round-trip exactly with the flat ids, the mask is the image of the legal
actions, buffers and bad input are handled as documented."""

import random

import numpy as np
import pytest

import korovan_caravan
from korovan_caravan import compact

SIZES = {2: 694, 3: 742, 4: 790}


def is_camel_move(state, flat):
    return state.action_to_string(flat).startswith("move ")


def walk(players, seed, camels=5, steps=400):
    """The decision states of a game played by a driver that prefers what
    is rare under uniform play (moves of goods, pick-ups, steals), so that
    every part of the compact layout occurs."""
    game = korovan_caravan.load_game("caravan", players=players, camels=camels, max_turns=120)
    state = game.new_initial_state()
    rng = random.Random(seed)
    for _ in range(steps):
        if state.is_terminal():
            break
        if state.is_chance_node():
            ids, probs = zip(*state.chance_outcomes())
            state.apply_action(rng.choices(ids, probs)[0])
            continue
        yield state
        legal = state.legal_actions()
        rare = [a for a in legal if not is_camel_move(state, a) and a != 8]
        pool = rare if rare and rng.random() < 0.6 else legal
        state.apply_action(rng.choice(pool))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_sizes(players):
    game = korovan_caravan.load_game("caravan", players=players)
    assert compact.num_actions(game) == SIZES[players]
    assert compact.num_actions(game.new_initial_state()) == SIZES[players]
    assert compact.mask(game.new_initial_state()).shape == (SIZES[players],)


@pytest.mark.parametrize("players,camels,seed", [(2, 5, 1), (3, 6, 2), (4, 5, 3), (2, 6, 4)])
def test_round_trip_with_the_flat_ids(players, camels, seed):
    kinds = set()
    n = SIZES[players]
    buf = np.zeros(n, dtype=bool)
    for state in walk(players, seed, camels):
        mask = compact.mask(state)
        assert mask.dtype == np.bool_ and mask.shape == (n,)
        legal = state.legal_actions()
        image = {}
        for flat in legal:
            cid = compact.to_compact(state, flat)
            assert 0 <= cid < n and mask[cid]
            assert compact.to_flat(state, cid) == flat
            assert cid not in image, "two legal actions share a compact id"
            image[cid] = flat
            kinds.add(state.action_to_string(flat).split()[0])
        assert int(mask.sum()) == len(legal) == len(image)
        assert compact.legal_actions(state) == sorted(image)
        assert compact.mask(state, out=buf) is buf
        assert np.array_equal(buf, mask)
        # an id outside the mask names no legal action
        off = np.flatnonzero(~mask)
        for cid in off[:: max(1, len(off) // 7)]:
            with pytest.raises(ValueError):
                compact.to_flat(state, int(cid))
    assert {"move", "pick", "good", "end"} <= kinds


def test_uint8_buffer_and_no_decision():
    game = korovan_caravan.load_game("caravan", players=2)
    state = game.new_initial_state()
    assert state.is_chance_node()
    out = np.full(694, 9, dtype=np.uint8)
    assert compact.mask(state, out) is out
    assert not out.any()
    assert compact.legal_actions(state) == []
    with pytest.raises(ValueError, match="chance node"):
        compact.to_flat(state, 0)
    with pytest.raises(ValueError, match="chance node"):
        compact.to_compact(state, 0)
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    compact.mask(state, out)
    assert out.dtype == np.uint8 and set(np.unique(out)) == {0, 1}
    assert int(out.sum()) == len(state.legal_actions()) == 50
    # playing the compact choice is playing its flat id
    cid = int(np.flatnonzero(out)[-1])
    flat = compact.to_flat(state, cid)
    assert state.action_to_string(flat) == "move supply->g7"
    state.apply_action(flat)


def test_bad_input():
    game = korovan_caravan.load_game("caravan", players=3)
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    with pytest.raises(ValueError, match="outside the space 0..742"):
        compact.to_flat(state, 742)
    with pytest.raises(ValueError, match="outside the space"):
        compact.to_flat(state, -1)
    with pytest.raises(ValueError, match="out of range"):
        compact.to_flat(state, 2**70)
    with pytest.raises(TypeError, match="integer"):
        compact.to_flat(state, "end")
    with pytest.raises(ValueError, match="slot"):
        compact.to_flat(state, 9 + 49 + 3)  # no camel on the board yet
    with pytest.raises(ValueError, match="not legal"):
        compact.to_compact(state, state.string_to_action("pick 1"))
    with pytest.raises(ValueError, match="outside the space"):
        compact.to_compact(state, 10**6)
    with pytest.raises(ValueError, match="742 entries"):
        compact.mask(state, np.zeros(741, dtype=bool))
    with pytest.raises(TypeError, match="bool or uint8"):
        compact.mask(state, np.zeros(742, dtype=np.float64))
    with pytest.raises(TypeError, match="bool or uint8"):
        compact.mask(state, [False] * 742)
    with pytest.raises(ValueError, match="contiguous"):
        compact.mask(state, np.zeros(2 * 742, dtype=bool)[::2])
    readonly = np.zeros(742, dtype=bool)
    readonly.setflags(write=False)
    with pytest.raises(ValueError, match="writeable"):
        compact.mask(state, readonly)
    korovan = korovan_caravan.load_game("korovan", players=3)
    with pytest.raises(TypeError, match="CaravanState"):
        compact.mask(korovan.new_initial_state())
    with pytest.raises(TypeError, match="CaravanGame or a CaravanState"):
        compact.num_actions(korovan)
    with pytest.raises(TypeError):
        compact.num_actions(3)
