"""MaskablePPO (sb3-contrib) learns Korovan with 5 seats against random
seats, on CPU, seeded; evaluated against ``random`` and ``heuristic``.

    python python/examples/train_korovan.py --out korovan.json   # the full run (docs/learning.md)
    python python/examples/train_korovan.py --quick              # CI: a few thousand steps
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import main  # noqa: E402

DEFAULTS = {
    "steps": 300_000,
    "quick_steps": 3_000,
    "envs": 32,
    "evals": 10,
    "eval_games": 400,
    "final_games": 2000,
    "ppo": {
        "n_steps": 64,
        "batch_size": 512,
        "n_epochs": 4,
        "learning_rate": 3e-4,
        "gamma": 0.995,
        "ent_coef": 0.01,
        "policy_kwargs": {"net_arch": [128, 128]},
    },
}

if __name__ == "__main__":
    main("korovan", 5, DEFAULTS)
