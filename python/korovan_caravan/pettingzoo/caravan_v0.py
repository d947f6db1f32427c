"""Caravan (2–4 players) as a PettingZoo AEC environment.

``env(players=3, render_mode=None, action_space="flat", **config)``:
``action_space="compact"`` gives the compact factored actions (694 / 742 /
790 ids instead of 41,667+, with masks over them); ``config`` takes the
fields of the Rust ``CaravanConfig`` (``camels``, ``max_turns``,
``held_penalty``, ``board``). See :mod:`korovan_caravan.pettingzoo`.
"""

from korovan_caravan.pettingzoo import BoardGameEnv, make_env


def env(players=3, render_mode=None, action_space="flat", **config):
    """The wrapped environment."""
    return make_env(
        "caravan", "caravan_v0", players=players, render_mode=render_mode, action_space=action_space, **config
    )


def raw_env(players=3, render_mode=None, action_space="flat", **config):
    """The environment without PettingZoo's wrappers."""
    e = BoardGameEnv("caravan", players=players, render_mode=render_mode, action_space=action_space, **config)
    e.metadata = dict(e.metadata, name="caravan_v0")
    return e
