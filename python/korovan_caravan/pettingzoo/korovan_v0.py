"""Korovan (3–9 players) as a PettingZoo AEC environment.

``env(players=5, render_mode=None, **config)``: ``config`` takes the fields
of the Rust ``KorovanConfig`` (``first_driver``, ``laps``, ``deck``,
``hand_size``). See :mod:`korovan_caravan.pettingzoo`.
"""

from korovan_caravan.pettingzoo import BoardGameEnv, make_env


def env(players=5, render_mode=None, **config):
    """The wrapped environment."""
    return make_env("korovan", "korovan_v0", players=players, render_mode=render_mode, **config)


def raw_env(players=5, render_mode=None, **config):
    """The environment without PettingZoo's wrappers."""
    e = BoardGameEnv("korovan", players=players, render_mode=render_mode, **config)
    e.metadata = dict(e.metadata, name="korovan_v0")
    return e
