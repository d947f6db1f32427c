"""Simulations and rating ladders spread over a Ray cluster (the ``ray``
extra: ``pip install "./python[ray]"``).

    from korovan_caravan import distributed
    # a local Ray (address=None); on a cluster: address="auto"
    result = distributed.simulate("korovan", games=10_000, agents="heuristic,random",
                                  players=5, shards=4)
    ratings = distributed.ladder("caravan", agents="random,heuristic,ismcts",
                                 players=[2, 3], deals=200, shards=4)

``simulate`` cuts the seed range ``seed .. seed + games`` into ``shards``
shards — shard ``i`` is exactly ``boardgame simulate --shard i/shards`` —,
plays each as a Ray task that calls the Rust arena (the same library code as
the ``boardgame`` binary, the GIL released), and merges the shard results as
``boardgame merge`` does. Every statistic is an integer sum and every game is
played from its own seed, so the result is the dict that
``boardgame simulate GAME --json`` prints for the same arguments, bit for
bit, whatever the number of shards, nodes or threads.

``ladder`` does the same for ``boardgame ladder``: it cuts the deals
``seed .. seed + deals`` into shards (``boardgame ladder --shard i/shards``),
plays each as a Ray task and merges the tallies as ``boardgame ladder
--merge`` does, so the result is the dict of ``boardgame ladder GAME --json``
(the tallies per player count and the ratings they give).

``simulate_local`` and ``ladder_local`` play one run, or one shard of it, in
this process, without Ray; ``_korovan_caravan.merge_results`` merges the
JSON of shards of either kind.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Optional, Sequence

from . import _korovan_caravan

__all__ = ["ladder", "ladder_local", "simulate", "simulate_local"]


def _config_text(config: Optional[dict]) -> Optional[str]:
    return None if config is None else json.dumps(config)


def _counts(players: Any) -> Any:
    # A list (it pickles for Ray); anything but a sequence of counts is left
    # for the native check to refuse with its TypeError.
    return list(players) if isinstance(players, (list, tuple, range)) else players


def simulate_local(
    game: str,
    games: int,
    agents: str = "random",
    players: Optional[int] = None,
    config: Optional[dict] = None,
    seed: int = 0,
    shard: Optional[tuple] = None,
    threads: int = 1,
    fixed_seats: bool = False,
) -> dict:
    """One simulation (or one shard ``(i, k)`` of it) in this process:
    ``boardgame simulate GAME --json`` with these arguments, as a dict."""
    text = _korovan_caravan.simulate_json(
        game,
        games,
        agents=agents,
        players=players,
        config=_config_text(config),
        seed=seed,
        shard=None if shard is None else tuple(shard),
        threads=threads,
        fixed_seats=fixed_seats,
    )
    return json.loads(text)


def ladder_local(
    game: str,
    agents: str,
    players: Sequence[int],
    deals: int = 100,
    config: Optional[dict] = None,
    seed: int = 1_000_000,
    shard: Optional[tuple] = None,
    threads: int = 1,
) -> dict:
    """One rating ladder (or one shard ``(i, k)`` of its deals) in this
    process: ``boardgame ladder GAME --json`` with these arguments, as a
    dict. ``players`` is the list of player counts (``--players 2,3`` is
    ``[2, 3]``)."""
    text = _korovan_caravan.ladder_json(
        game,
        agents,
        _counts(players),
        deals=deals,
        config=_config_text(config),
        seed=seed,
        shard=None if shard is None else tuple(shard),
        threads=threads,
    )
    return json.loads(text)


def _shard_task(kwargs: dict) -> str:
    # Runs on a Ray worker: the package must be installed there.
    from korovan_caravan import _korovan_caravan as native

    return native.simulate_json(**kwargs)


def _ladder_task(kwargs: dict) -> str:
    # Runs on a Ray worker: the package must be installed there.
    from korovan_caravan import _korovan_caravan as native

    return native.ladder_json(**kwargs)


def _run_shards(
    task_fn: Callable[[dict], str],
    base: dict,
    empty: dict,
    shards: Optional[int],
    address: Optional[str],
    threads: int,
) -> dict:
    """Plays ``task_fn(base)`` as ``shards`` Ray tasks of ``threads``
    threads, task ``i`` the shard ``(i, shards)``, and returns the merge of
    their JSON. The arguments are checked first, in this process, by a run
    of ``task_fn`` with nothing to play (``base`` updated by ``empty``)."""
    import ray

    if not ray.is_initialized():
        ray.init(address=address)
    if shards is None:
        shards = max(1, int(ray.cluster_resources().get("CPU", 1)) // max(1, threads))
    shards = int(shards)
    if shards < 1:
        raise ValueError(f"shards must be at least 1, got {shards}")
    # Check the arguments here, before any task is submitted: an empty run
    # validates game, agents and configuration and raises ValueError.
    task_fn({**base, **empty})
    task = ray.remote(num_cpus=threads)(task_fn)
    refs = [task.remote({**base, "shard": (i, shards)}) for i in range(shards)]
    results = ray.get(refs)
    return json.loads(_korovan_caravan.merge_results(results))


def simulate(
    game: str,
    games: int,
    agents: str = "random",
    players: Optional[int] = None,
    config: Optional[dict] = None,
    seed: int = 0,
    shards: Optional[int] = None,
    address: Optional[str] = None,
    threads_per_shard: int = 1,
    fixed_seats: bool = False,
) -> dict:
    """``games`` games of ``game`` between ``agents`` (the binary's names:
    ``random``, ``heuristic``, ``ismcts:N``, …, comma-separated, the last one
    filling the seats left) from seeds ``seed .. seed + games``, run as
    ``shards`` Ray tasks (default: one per CPU of the cluster) of
    ``threads_per_shard`` threads each; returns the merged results (the dict
    of ``boardgame simulate --json``).

    ``address``: the Ray cluster to connect to (``"auto"``,
    ``"ray://head:10001"``, …) when Ray is not initialised yet; ``None``
    starts or reuses a local Ray. ``config`` is ``--config`` (a dict of
    configuration fields laid over the rules' defaults).
    """
    base: dict[str, Any] = dict(
        game=game,
        games=games,
        agents=agents,
        players=players,
        config=_config_text(config),
        seed=seed,
        threads=threads_per_shard,
        fixed_seats=fixed_seats,
    )
    return _run_shards(_shard_task, base, {"games": 0}, shards, address, threads_per_shard)


def ladder(
    game: str,
    agents: str,
    players: Sequence[int],
    deals: int = 100,
    config: Optional[dict] = None,
    seed: int = 1_000_000,
    shards: Optional[int] = None,
    address: Optional[str] = None,
    threads_per_shard: int = 1,
) -> dict:
    """A rating ladder of ``agents`` (at least two of the binary's names,
    comma-separated) at each player count of ``players`` (a list), every
    deal of seeds ``seed .. seed + deals`` played once by every lineup, run
    as ``shards`` Ray tasks (default: one per CPU of the cluster) of
    ``threads_per_shard`` threads each; returns the merged ladder (the dict
    of ``boardgame ladder --json``: per player count the tallies and the
    ratings they give).

    ``address`` and ``config`` as for ``simulate``.
    """
    base: dict[str, Any] = dict(
        game=game,
        agents=agents,
        players=_counts(players),
        deals=deals,
        config=_config_text(config),
        seed=seed,
        threads=threads_per_shard,
    )
    return _run_shards(_ladder_task, base, {"deals": 0}, shards, address, threads_per_shard)
