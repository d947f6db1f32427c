"""The built-in agents one move at a time.

::

    import korovan_caravan

    game = korovan_caravan.load_game("caravan", players=2)
    agent = korovan_caravan.Agent(game, "ismcts-h:200", seed=7)
    state = game.new_initial_state()
    ...
    action = agent.step(state)                   # an action id
    policy, action = agent.step_with_policy(state)

``Agent(game, name, seed=0)`` takes every name the ``boardgame`` binary
takes (``random``, ``heuristic``, ``ismcts:N``, ``ismcts-h:N``, ``flatmc:N``, ``flatmc-h:N``,
``N`` iterations or a time per decision such as ``10ms`` or ``2s``); the
names are read by the Rust kit (``AgentSpec``), so an unknown one raises
``ValueError`` with the kit's message (a name is read exactly: ``"random "``
and ``learned:100.0000001`` are refused, not read as ``random`` and
``learned:100``; a seed is an integer in ``0..2**64``, not a bool).
``game`` is a game of this package or
its OpenSpiel wrapper (:mod:`korovan_caravan.openspiel`), and ``step``
takes a state of either. The search runs in Rust with the GIL released, so
other Python threads run meanwhile. An agent may be shared between threads:
the calls take turns (one waits, with the GIL released, for the running
one); their draws then depend on the order of the calls, so give each
thread its own agent for reproducible games.

Seeds follow the Rust driver: an agent seeded with ``seed`` draws, for the
seat to move, from ``Rng(seed).child(AGENT_STREAM_BASE + seat)`` — the
stream that seat gets in the game of seed ``seed`` from ``boardgame
simulate``, ``boardgame play`` and the kit's ``Arena``. An agent seeded with
a game's seed therefore plays that game's moves exactly;
``agent.restart(seed)`` starts the streams again for another game. A time
budget (``ismcts:10ms``) depends on the machine's speed, an iteration budget
does not.

:class:`korovan_caravan.bots.Bot` is the same agent as a ``pyspiel.Bot``
(needs ``open_spiel``).
"""

from __future__ import annotations

from ._korovan_caravan import Agent

__all__ = ["Agent"]
