"""Measures a weights file against a built-in agent, in Rust.

::

    python -m korovan_caravan.learn.evaluate --game caravan --weights runs/caravan/latest.bgnn \\
        --against heuristic --games 400 --seed 1000000 --threads 2
    python -m korovan_caravan.learn.evaluate --game caravan --weights W --search-ms 20 --against ismcts-h:20ms --games 300

The network (greedy, the ``learned`` agent; or with ``--search`` /
``--search-ms`` the engine's ``learned-ismcts`` with it) sits at one seat,
rotating with the game, the ``--against`` agent at every other; game ``g``
is seeded ``seed + g``. Prints one JSON line: the network's mean share and
its 95% Wilson interval (shares of draws counted as fractions of a win).
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from ..evaluation import wilson_interval
from . import nn_match


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m korovan_caravan.learn.evaluate", description=__doc__.split("\n\n")[0])
    p.add_argument("--game", choices=["caravan", "korovan"], required=True)
    p.add_argument("--players", type=int, default=None)
    p.add_argument("--weights", required=True)
    p.add_argument("--against", default="heuristic")
    p.add_argument("--games", type=int, default=400)
    p.add_argument("--seed", type=int, default=1_000_000)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--search", type=int, default=None, help="learned-ismcts iterations per decision")
    p.add_argument("--search-ms", type=int, default=None, help="learned-ismcts milliseconds per decision")
    a = p.parse_args(argv)
    if not os.path.isfile(a.weights) or os.path.getsize(a.weights) > 80 << 20:
        print(f"usage error: --weights {a.weights} is not a regular file of at most 80 MB", file=sys.stderr)
        return 2
    import korovan_caravan

    players = a.players or (2 if a.game == "caravan" else 5)
    try:
        game = korovan_caravan.load_game(a.game, players=players)
        with open(a.weights, "rb") as f:
            weights = f.read()
        shares, n = nn_match(game, weights, a.against, a.games, a.seed, a.threads, a.search, a.search_ms)
    except ValueError as e:
        print(f"usage error: {e}", file=sys.stderr)
        return 2
    mean = float(shares.mean())
    lo, hi = wilson_interval(mean, len(shares))
    agent = "learned" if a.search is None and a.search_ms is None else f"learned-ismcts:{a.search or str(a.search_ms) + 'ms'}"
    print(json.dumps({"game": a.game, "players": n, "agent": agent, "against": a.against, "games": len(shares),
                      "seeds": [a.seed, a.seed + a.games], "share": mean, "interval": [lo, hi], "fair": 1 / n}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
