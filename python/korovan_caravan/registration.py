"""The games in Gymnasium's registry: ``korovan_caravan/Korovan-v0`` and
``korovan_caravan/Caravan-v0``, the single-learner environments of
:mod:`korovan_caravan.learner` (needs ``gymnasium``)::

    import gymnasium
    import korovan_caravan  # registers the ids when gymnasium is installed

    env = gymnasium.make("korovan_caravan/Korovan-v0", players=5, opponents="heuristic", reward="zero_sum")
    venv = gymnasium.make_vec("korovan_caravan/Caravan-v0", num_envs=64, players=2, opponents="random")

``gymnasium.make("korovan_caravan:korovan_caravan/Caravan-v0")`` imports the
package itself first (Gymnasium's ``module:id`` form). The keyword
arguments are those of :class:`~korovan_caravan.learner.LearnerEnv`
(``players``, ``opponents``, ``seat``, ``reward``, ``shaping``,
``actions``, ``illegal``, ``seed`` and the configuration fields).
``make`` gives a ``LearnerEnv`` (inside Gymnasium's usual wrappers).

Defaults: with no keyword arguments ``make`` builds ``LearnerEnv``'s own
defaults — the game's default number of players (5 for Korovan, 3 for
Caravan), the learner at seat 0 (``seat=0``), ``"random"`` in every other
seat, ``reward="shares"``, no shaping, ``actions="auto"`` (Caravan's compact
ids, Korovan's flat ids) and ``illegal="noop"``. The
training examples of docs/learning.md pass their own set-up instead:
``players=2`` for Caravan, ``seat=None`` (the learner's seat drawn per game,
so one policy learns every seat), ``reward="zero_sum"`` and, for Caravan,
``shaping=0.1``. The defaults stay those of ``LearnerEnv`` so that ``make``
and the class build the same environment; pass the training set-up to train
as the examples do::

    env = gymnasium.make("korovan_caravan/Caravan-v0", players=2, seat=None, reward="zero_sum", shaping=0.1)

``make_vec`` gives a :class:`~korovan_caravan.learner.LearnerVectorEnv`
(its ``vector_entry_point``: the games are stepped together in Rust;
``vectorization_mode="sync"`` or ``"async"`` builds Gymnasium's own vector
env of ``LearnerEnv`` copies instead).

Gymnasium 1.x does not read plugins' entry points any more, so
``import korovan_caravan`` calls :func:`register` (when ``gymnasium`` can be
imported); calling it again does nothing.
"""

from __future__ import annotations

from typing import Tuple

__all__ = ["ENV_IDS", "register"]

#: The registered ids.
ENV_IDS: Tuple[str, ...] = ("korovan_caravan/Korovan-v0", "korovan_caravan/Caravan-v0")


def register() -> None:
    """Registers :data:`ENV_IDS` in Gymnasium's registry (idempotent)."""
    import gymnasium

    for env_id, game in zip(ENV_IDS, ("korovan", "caravan")):
        if env_id in gymnasium.registry:
            continue
        gymnasium.register(
            id=env_id,
            entry_point="korovan_caravan.learner:LearnerEnv",
            vector_entry_point="korovan_caravan.learner:LearnerVectorEnv",
            kwargs={"game": game},
        )
