"""Simulations spread over a Ray cluster (the ``ray`` extra:
``pip install "./python[ray]"``).

    from korovan_caravan import distributed
    # a local Ray (address=None); on a cluster: address="auto"
    result = distributed.simulate("korovan", games=10_000, agents="heuristic,random",
                                  players=5, shards=4)

``simulate`` cuts the seed range ``seed .. seed + games`` into ``shards``
shards — shard ``i`` is exactly ``boardgame simulate --shard i/shards`` —,
plays each as a Ray task that calls the Rust arena (the same library code as
the ``boardgame`` binary, the GIL released), and merges the shard results as
``boardgame merge`` does. Every statistic is an integer sum and every game is
played from its own seed, so the result is the dict that
``boardgame simulate GAME --json`` prints for the same arguments, bit for
bit, whatever the number of shards, nodes or threads.
"""

from __future__ import annotations

import json
from typing import Any, Optional

from . import _korovan_caravan

__all__ = ["simulate", "simulate_local"]


def _config_text(config: Optional[dict]) -> Optional[str]:
    return None if config is None else json.dumps(config)


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


def _shard_task(kwargs: dict) -> str:
    # Runs on a Ray worker: the package must be installed there.
    from korovan_caravan import _korovan_caravan as native

    return native.simulate_json(**kwargs)


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
    import ray

    if not ray.is_initialized():
        ray.init(address=address)
    if shards is None:
        shards = max(1, int(ray.cluster_resources().get("CPU", 1)) // max(1, threads_per_shard))
    shards = int(shards)
    if shards < 1:
        raise ValueError(f"shards must be at least 1, got {shards}")
    # Check the arguments here, before any task is submitted: an empty run
    # validates game, agents and configuration and raises ValueError.
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
    _korovan_caravan.simulate_json(**{**base, "games": 0})
    task = ray.remote(num_cpus=threads_per_shard)(_shard_task)
    refs = [task.remote({**base, "shard": (i, shards)}) for i in range(shards)]
    results = ray.get(refs)
    return json.loads(_korovan_caravan.merge_results(results))
