"""Caravan's compact action space: a few hundred ids instead of the 41,667+
flat ids, for policy networks (layout and rationale in
``docs/encoding-caravan.md``).

A compact id names the source of an action by its *slot* among the mover's
own camels (the i-th square holding an unladen camel, the g-th distinct
laden camel) and the target absolutely, so in every position each compact
id names at most one legal flat action and every legal flat action has
exactly one compact id. The mask is a plain boolean array, what
sb3-contrib's ``MaskablePPO`` takes for a ``Discrete(num_actions(game))``
space::

    import korovan_caravan
    from korovan_caravan import compact

    game = korovan_caravan.load_game("caravan", players=2)
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    mask = compact.mask(state)               # bool, shape (694,)
    cid = int(mask.nonzero()[0][0])
    state.apply_action(compact.to_flat(state, cid))

The flat ids stay the ids of OpenSpiel, records and ``apply_action``;
``to_flat``/``to_compact`` map between the two for the state given.
"""

from __future__ import annotations

from ._korovan_caravan import (
    caravan_compact_legal_actions as legal_actions,
    caravan_compact_mask as mask,
    caravan_compact_num_actions as num_actions,
    caravan_compact_to_flat as to_flat,
    caravan_flat_to_compact as to_compact,
)

__all__ = ["legal_actions", "mask", "num_actions", "to_compact", "to_flat"]
