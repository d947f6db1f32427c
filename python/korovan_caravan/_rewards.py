"""Shares turned into rewards, the one Python form of what the native
learner core does in Rust (``RewardMode::of_share``): needs numpy only, so
the OpenSpiel games and the Gymnasium environments both use it."""

from __future__ import annotations

import numpy as np


def zero_sum(shares, players: int):
    """The zero-sum form of shares (a number or an array) in a game of
    ``players`` seats: ``(players·share − 1)/(players − 1)``."""
    if players < 2:
        raise ValueError("zero-sum rewards need at least 2 seats")
    return (np.asarray(shares, dtype=np.float64) * players - 1.0) / (players - 1.0)
