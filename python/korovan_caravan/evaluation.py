"""One-call evaluation: :func:`evaluate` plays agents against each other
over seeded games and reports wins, draws, losses and win shares per agent
with 95% intervals.

::

    import korovan_caravan

    game = korovan_caravan.load_game("caravan", players=2)
    result = korovan_caravan.evaluate(game, ["ismcts-h:100", "heuristic"], games=200, seed=0)
    print(result)                      # a table
    result.agents[0].share_interval    # (low, high)

An agent is a built-in name (anything :class:`korovan_caravan.Agent`
takes), a :class:`korovan_caravan.Agent`, a ``pyspiel.Bot``, or any callable
``f(state) -> action id`` (given a copy of the :mod:`korovan_caravan` state
of the seat to move). When every agent is a name, the whole match runs in
Rust on the kit's ``Arena`` (``threads`` threads, the GIL released): the
same games, and the same report, as ``boardgame simulate`` for the same
seeds. Otherwise Python drives the games with the same streams, so a
match of names played this way (``native=False``) reports exactly what the
arena reports.

The games are those of seeds ``seed .. seed + games``. With
``rotate_seats`` (the default) agent ``e`` sits at seat ``(e + s) mod n`` in
the game of seed ``s``, so every agent plays every seat equally often over
``n`` consecutive seeds; without it agent ``e`` always plays seat ``e``.
Chance draws from ``Rng(s).child(CHANCE_STREAM)``; a built-in name plays as
``Agent(game, name, seed=s)``, and a :class:`korovan_caravan.Agent` given as
an object is restarted with ``restart(seed=s)`` before each game, so it
plays as its name would. A ``pyspiel.Bot`` is restarted with
``restart_at`` and informed of every action as OpenSpiel's
``evaluate_bots`` does (it gets OpenSpiel states of the game); other
callables are called as they are.

:func:`evaluate_policy` plays a trained policy (Stable-Baselines3, PyTorch,
anything callable on a batch of observations and masks) against the
built-in agents and reports its share of wins with a 95% Wilson interval::

    from korovan_caravan.evaluation import evaluate_policy, sb3_policy

    result = evaluate_policy(sb3_policy(model), "caravan", players=2, opponents="heuristic", games=200)
    print(result)            # caravan, 2 players, policy vs heuristic: share 0.430 [0.363, 0.500] ...
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Callable, Optional, Sequence, Tuple, Union

import numpy as np

from ._korovan_caravan import CHANCE_PLAYER, CHANCE_STREAM, Agent, Rng, _arena, _play_game, _Tally, from_record

__all__ = [
    "AgentResult",
    "EvaluationResult",
    "PolicyResult",
    "evaluate",
    "evaluate_policy",
    "play_game",
    "random_policy",
    "sb3_policy",
    "wilson_interval",
]


@dataclasses.dataclass(frozen=True)
class AgentResult:
    """The results of one agent (entrant) of a match."""

    #: The agent's name (a built-in's name, else the callable's).
    name: str
    #: Games played.
    games: int
    #: Games won alone.
    wins: int
    #: Games drawn (sharing the best result).
    draws: int
    #: Games lost.
    losses: int
    #: The mean win share: 1 for a sole win, ``1/k`` for a ``k``-way draw,
    #: 0 for a loss. The fair share of an ``n``-player game is ``1/n``.
    share: float
    #: A 95% interval of the share (Wilson, at the share's largest variance:
    #: exact without draws, conservative with them).
    share_interval: Tuple[float, float]
    #: Share of games won alone.
    win_rate: float
    #: The 95% Wilson interval of the win rate.
    win_interval: Tuple[float, float]
    #: The mean final score.
    mean_score: float


@dataclasses.dataclass(frozen=True)
class EvaluationResult:
    """What :func:`evaluate` returns."""

    #: The engine's name.
    game: str
    #: Seats per game.
    players: int
    #: The seeds played.
    seeds: range
    #: Whether the agents rotated through the seats.
    rotate_seats: bool
    #: Whether the match ran entirely in Rust (the kit's ``Arena``).
    native: bool
    #: Games played.
    games: int
    #: The mean game length in actions, chance included.
    mean_length: float
    #: Per agent, in the order given.
    agents: Tuple[AgentResult, ...]

    def __str__(self):
        lines = [
            f"{self.game}, {self.players} players, {self.games} games (seeds {self.seeds.start}..{self.seeds.stop}), "
            f"{'seats rotated' if self.rotate_seats else 'fixed seats'}, {'in Rust' if self.native else 'driven from Python'}",
            f"{'agent':<24} {'wins':>6} {'draws':>6} {'losses':>6} {'share':>7}  95% interval",
        ]
        for a in self.agents:
            lo, hi = a.share_interval
            lines.append(f"{a.name:<24} {a.wins:>6} {a.draws:>6} {a.losses:>6} {a.share:>7.3f}  [{lo:.3f}, {hi:.3f}]")
        return "\n".join(lines)


def _native_game(game):
    """The :mod:`korovan_caravan` game of ``game`` (itself, or an OpenSpiel
    wrapper's ``boardgame``)."""
    inner = getattr(game, "boardgame", game)
    if not (hasattr(inner, "new_initial_state") and hasattr(inner, "config_json")):
        raise TypeError(f"expected a game of korovan_caravan (load_game) or its OpenSpiel wrapper, got {type(game).__name__}")
    return inner


def _is_bot(agent):
    try:
        import pyspiel
    except ImportError:
        return False
    return isinstance(agent, pyspiel.Bot)


def _name_of(agent):
    if isinstance(agent, str):
        return agent
    name = getattr(agent, "name", None)
    if isinstance(name, str):
        return name
    return getattr(agent, "__name__", type(agent).__name__)


def _int_arg(value, what, minimum):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} must be an int, not {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"{what} must be at least {minimum}, got {value}")
    return value


def _restart_bot(bot, state):
    """``bot.restart_at(state)``, as OpenSpiel's ``evaluate_bots`` calls it;
    a bot that does not implement it (OpenSpiel's Python ``ISMCTSBot``, which
    keeps nothing between moves) is used as it is."""
    import pyspiel

    if type(bot).restart_at is not pyspiel.Bot.restart_at:
        bot.restart_at(state)


def _spiel_game(game, bg):
    """The OpenSpiel game of ``bg`` (``game`` itself when it is one)."""
    if hasattr(game, "boardgame"):
        return game
    from . import openspiel

    return openspiel.from_korovan_caravan(bg.new_initial_state()).get_game()


def _python_match(game, bg, agents, seeds, rotate_seats):
    """Drives every game of ``seeds`` from Python, with the arena's seats and
    the driver's streams; returns the report."""
    n = bg.num_players()
    names = [_name_of(a) for a in agents]
    tally = _Tally(bg, names)
    bots = [_is_bot(a) for a in agents]
    builtin = [isinstance(a, (str, Agent)) for a in agents]
    spiel = _spiel_game(game, bg) if any(bots) else None
    for s in seeds:
        seat_of = [(e + s % n) % n if rotate_seats else e for e in range(n)]
        at_seat = [0] * n
        for e, seat in enumerate(seat_of):
            at_seat[seat] = e
        players = []
        for a in agents:
            if isinstance(a, str):
                players.append(Agent(bg, a, seed=s))
            else:
                if isinstance(a, Agent):
                    a.restart(seed=s)
                players.append(a)
        state = spiel.new_initial_state() if spiel is not None else bg.new_initial_state()
        inner = state.inner if spiel is not None else state
        for e, a in enumerate(players):
            if bots[e]:
                _restart_bot(a, state)
        chance = Rng(s).child(CHANCE_STREAM)
        length = 0
        while not inner.is_terminal():
            player = inner.current_player()
            if player == CHANCE_PLAYER:
                action = inner.sample_chance(chance)
                acting = None
            else:
                acting = at_seat[player]
                a = players[acting]
                if builtin[acting]:
                    action = a.step(inner)  # an int, and legal
                else:
                    action = a.step(state) if bots[acting] else a(inner.clone())
                    if isinstance(action, bool) or not hasattr(action, "__index__"):
                        raise TypeError(
                            f"agent {acting} ({names[acting]}) returned {type(action).__name__} {action!r}, "
                            "not an action id"
                        )
                    action = int(action)
                if spiel is not None and action not in inner.legal_actions():
                    raise ValueError(
                        f"agent {acting} ({names[acting]}) chose action {action}, "
                        f"which is not legal at step {length} (seed {s})"
                    )
            if spiel is not None:
                for e, a in enumerate(players):
                    if bots[e] and e != acting:
                        a.inform_action(state, player, action)
            try:
                state.apply_action(action)
            except ValueError as err:
                raise ValueError(f"agent {acting} ({names[acting]}) at step {length} (seed {s}): {err}") from None
            length += 1
        tally.add(inner, seat_of, length)
    return tally.report()


def evaluate(
    game: Any,
    agents: Sequence[Any],
    games: int = 100,
    seed: int = 0,
    *,
    rotate_seats: bool = True,
    threads: int = 1,
    native: bool | None = None,
) -> EvaluationResult:
    """Plays ``agents`` (one per seat: built-in names, :class:`Agent`\\ s,
    ``pyspiel.Bot``\\ s or callables ``f(state) -> action id``) against each
    other in the games of seeds ``seed .. seed + games`` of ``game`` (a game
    of this package or its OpenSpiel wrapper) and returns the results per
    agent (see the module's documentation).

    ``native``: ``None`` (the default) runs the match in Rust when every
    agent is a name, ``False`` drives it from Python anyway (the same games
    and report, slower), ``True`` insists on Rust. ``threads`` is the number
    of threads of a match in Rust (results do not depend on it).

    Raises ``TypeError`` for an argument of the wrong type or an agent that
    is none of the above, ``ValueError`` for an unknown agent name, a number
    of agents other than the number of seats, seeds past ``2**64``, or an
    illegal action chosen by an agent (naming the agent, the step and the
    seed).
    """
    bg = _native_game(game)
    if isinstance(agents, str) or not isinstance(agents, Sequence):
        raise TypeError(f"agents must be a list (one agent per seat), not {type(agents).__name__}")
    agents = list(agents)
    n = bg.num_players()
    if len(agents) != n:
        raise ValueError(f"the game has {n} seats but {len(agents)} agents were given (one per seat)")
    for e, a in enumerate(agents):
        if not isinstance(a, str) and not _is_bot(a) and not callable(a):
            raise TypeError(
                f"agent {e} must be an agent name, a korovan_caravan.Agent, a pyspiel.Bot or a callable, "
                f"not {type(a).__name__}"
            )
    games = _int_arg(games, "games", 0)
    seed = _int_arg(seed, "seed", 0)
    threads = _int_arg(threads, "threads", 1)
    if seed + games > 2**64:
        raise ValueError(f"seeds {seed}..{seed + games} pass 2**64: choose a smaller seed or fewer games")
    all_names = all(isinstance(a, str) for a in agents)
    if native and not all_names:
        raise ValueError("native=True needs every agent to be a built-in name")
    run_native = all_names and native is not False
    if run_native:
        report = _arena(bg, agents, games, seed, threads, rotate_seats)
    else:
        for a in agents:
            if isinstance(a, str):
                Agent(bg, a)  # an unknown name fails before any game is played
        report = _python_match(game, bg, agents, range(seed, seed + games), rotate_seats)
    return EvaluationResult(
        game=bg.name,
        players=n,
        seeds=range(seed, seed + games),
        rotate_seats=bool(rotate_seats),
        native=run_native,
        games=report["games"],
        mean_length=report["mean_length"],
        agents=tuple(AgentResult(**{f.name: e[f.name] for f in dataclasses.fields(AgentResult)}) for e in report["entrants"]),
    )


def play_game(game: Any, agents: Sequence[str], seed: int = 0):
    """Plays one game of ``game`` from ``seed`` entirely in Rust, with the
    kit's driver and the built-in ``agents`` (one name per seat, in seat
    order): the game ``boardgame simulate --fixed-seats`` plays for that
    seed. Returns the final state (``history()``, ``to_record()``); the
    record names the agents."""
    bg = _native_game(game)
    if isinstance(agents, str) or not isinstance(agents, Sequence):
        raise TypeError(f"agents must be a list of agent names (one per seat), not {type(agents).__name__}")
    return from_record(_play_game(bg, list(agents), seed))


# ------------------------------------------------------------ trained policies


def wilson_interval(share: float, games: int, z: float = 1.959963984540054) -> Tuple[float, float]:
    """The Wilson score interval (95% with the default ``z``) of a share
    observed over ``games`` games, the share taken as the proportion (the
    kit's ``wilson_interval``; exact without draws, conservative with them)."""
    if games == 0:
        return (0.0, 1.0)
    d = 1 + z * z / games
    c = (share + z * z / (2 * games)) / d
    h = z * math.sqrt(max(share * (1 - share), 0.0) / games + z * z / (4 * games * games)) / d
    lo = 0.0 if share <= 0.0 else max(0.0, c - h)
    hi = 1.0 if share >= 1.0 else min(1.0, c + h)
    return (lo, hi)


@dataclasses.dataclass(frozen=True)
class PolicyResult:
    """What :func:`evaluate_policy` returns."""

    #: The engine's name.
    game: str
    #: Seats per game.
    players: int
    #: The built-in agents of the other seats, in seat order.
    opponents: Tuple[str, ...]
    #: The seeds played (one game each).
    seeds: range
    #: Games played.
    games: int
    #: Games the policy won alone.
    wins: int
    #: Games it shared the best result in.
    draws: int
    #: Games it lost.
    losses: int
    #: Its mean share: 1 for a sole win, ``1/k`` for a ``k``-way draw, 0 for a loss.
    share: float
    #: The 95% Wilson interval of the share (:func:`wilson_interval`).
    share_interval: Tuple[float, float]
    #: The share of a policy as strong as its opponents: ``1/players``.
    fair_share: float
    #: The policy's share of every game, in the order of the seeds.
    shares: np.ndarray = dataclasses.field(repr=False, compare=False)

    def __str__(self):
        lo, hi = self.share_interval
        return (
            f"{self.game}, {self.players} players, policy vs {', '.join(self.opponents)}: "
            f"share {self.share:.3f} [{lo:.3f}, {hi:.3f}] over {self.games} games "
            f"(fair {self.fair_share:.3f}; {self.wins} wins, {self.draws} draws, {self.losses} losses)"
        )


def random_policy(seed: int = 0) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """A policy for :func:`evaluate_policy` that plays a uniformly random
    legal action (numpy-drawn from ``seed``): the baseline of a fair share."""
    rng = np.random.default_rng(seed)

    def policy(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        u = rng.random(mask.shape) * mask
        return np.argmax(u, axis=1)

    policy.__name__ = f"random_policy({seed})"
    return policy


def sb3_policy(model: Any, deterministic: bool = True) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """A Stable-Baselines3 model as a policy for :func:`evaluate_policy`:
    ``model.predict(obs, action_masks=mask, deterministic=deterministic)``
    (sb3-contrib's ``MaskablePPO`` honours the masks)."""
    if not callable(getattr(model, "predict", None)):
        raise TypeError(f"model must have a predict method (a Stable-Baselines3 model), not {type(model).__name__}")

    def policy(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        actions, _ = model.predict(obs, action_masks=mask, deterministic=deterministic)
        return actions

    policy.__name__ = f"sb3_policy({type(model).__name__})"
    return policy


def evaluate_policy(
    policy: Callable[[np.ndarray, np.ndarray], Any],
    game: str,
    opponents: Union[str, Sequence[str]] = "random",
    games: int = 100,
    seed: int = 0,
    *,
    players: Optional[int] = None,
    seat: Optional[int] = None,
    actions: str = "auto",
    batch: int = 256,
    **config: Any,
) -> PolicyResult:
    """Plays ``policy`` against the built-in ``opponents`` (an agent name
    for every other seat, or a list of ``players - 1`` names) in the games of
    seeds ``seed .. seed + games`` of ``game`` (``"korovan"``,
    ``"caravan"``; ``players`` and ``**config`` as ``load_game``), and
    reports its share of wins with the 95% Wilson interval (needs
    ``gymnasium``).

    ``policy(obs, mask) -> actions`` is called on a batch: ``obs`` float32
    ``(n, *shape)`` (the policy's seat's observations, as
    :class:`~korovan_caravan.learner.LearnerVectorEnv` gives them), ``mask``
    bool ``(n, num_actions)`` (the legal actions); it returns ``n`` action
    ids of the learner's action space (``actions``: ``"auto"`` is Caravan's
    compact space, as for training). :func:`sb3_policy` adapts an SB3 model;
    a PyTorch network is wrapped in a function. The games run in Rust,
    opponents included, ``batch`` games at a time; the policy's seat is
    drawn per game from its seed (``seat=None``, so it plays every seat) or
    fixed. An illegal action raises :class:`korovan_caravan.InvalidActionError`
    naming the game.
    """
    from .learner import LearnerVectorEnv

    if not callable(policy):
        raise TypeError(f"policy must be a callable policy(obs, mask) -> actions, not {type(policy).__name__}")
    games = _int_arg(games, "games", 1)
    seed = _int_arg(seed, "seed", 0)
    batch = _int_arg(batch, "batch", 1)
    if seed + games > 2**64:
        raise ValueError(f"seeds {seed}..{seed + games} pass 2**64: choose a smaller seed or fewer games")
    shares = np.empty(games, dtype=np.float64)
    env = None
    for start in range(0, games, batch):
        n = min(batch, games - start)
        env = LearnerVectorEnv(game, num_envs=n, players=players, opponents=opponents, seat=seat,
                               actions=actions, illegal="raise", seed=seed + start, copy=False, **config)
        obs, info = env.reset(seed=seed + start)
        done_once = np.zeros(n, dtype=bool)
        while not done_once.all():
            chosen = np.asarray(policy(obs, info["action_mask"]))
            if chosen.size == n:
                chosen = chosen.reshape(n)  # (n, 1) as some policies give it
            obs, _, done, _, info = env.step(chosen)
            fresh = done & ~done_once
            if fresh.any():
                shares[start:start + n][fresh] = info["final_info"]["share"][fresh]
                done_once |= fresh
    n_players = env.num_players
    wins = int((shares == 1.0).sum())
    losses = int((shares == 0.0).sum())
    share = float(shares.mean())
    return PolicyResult(
        game=env.name,
        players=n_players,
        opponents=tuple(env.opponents),
        seeds=range(seed, seed + games),
        games=games,
        wins=wins,
        draws=games - wins - losses,
        losses=losses,
        share=share,
        share_interval=wilson_interval(share, games),
        fair_share=1.0 / n_players,
        shares=shares,
    )
