"""MaskablePPO (sb3-contrib) learns Caravan with 2 seats on the compact
actions against a random seat (zero-sum reward plus the score
difference as shaping), on CPU, seeded; evaluated against
``random`` and ``heuristic``.

    python python/examples/train_caravan.py --out caravan.json   # the full run (docs/learning.md)
    python python/examples/train_caravan.py --quick              # CI: a few thousand steps
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import main  # noqa: E402

DEFAULTS = {
    "steps": 300_000,
    "quick_steps": 3_000,
    "envs": 32,
    # CI's quick mode plays shorter games (a turn cap of 40) so that some
    # finish within its few thousand steps
    "quick_envs": 8,
    "quick_config": {"max_turns": 40},
    "evals": 10,
    "eval_games": 200,
    "final_games": 1000,
    # the score difference as a potential-based shaping (docs/python.md):
    # a random seat scores 0-2 points a game, so the terminal reward alone
    # is rare and flat
    "shaping": 0.1,
    "ppo": {
        "n_steps": 64,
        "batch_size": 512,
        "n_epochs": 4,
        "learning_rate": 3e-4,
        "gamma": 0.995,
        "ent_coef": 0.01,
        "policy_kwargs": {"net_arch": [256, 256]},
    },
}

if __name__ == "__main__":
    main("caravan", 2, DEFAULTS)
