"""What the training examples share: MaskablePPO (sb3-contrib) on
``korovan_caravan.learner.LearnerVectorEnv`` through the SB3 adapter, on
CPU, seeded; evaluation of the learned policy against ``random`` and
``heuristic`` seats (the learner's seat drawn per game), with 95% Wilson
intervals of the win share; a learning curve written as JSON.

Run ``train_korovan.py`` or ``train_caravan.py`` (``--help``); ``--quick``
is the CI mode (a few thousand steps: the pipeline trains and evaluates,
whatever the strength).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Optional

import numpy as np

from korovan_caravan.evaluation import wilson_interval


def evaluate(model, game: str, players: int, opponents: str, games: int, seed: int, **config) -> dict:
    """Plays ``games`` games (one per slot of a batch, the learner's seat
    drawn per game from its seed) of the deterministic policy against
    ``opponents`` in every other seat; returns the mean share, its 95%
    Wilson interval, wins and the fair share ``1/players``."""
    from korovan_caravan.learner import LearnerVectorEnv

    env = LearnerVectorEnv(game, num_envs=games, players=players, opponents=opponents, seat=None,
                           seed=seed, copy=False, **config)
    obs, info = env.reset(seed=seed)
    share = np.full(games, np.nan)
    while np.isnan(share).any():
        actions, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
        obs, _, done, _, info = env.step(actions)
        if done.any():
            fresh = done & np.isnan(share)
            share[fresh] = info["final_info"]["share"][fresh]
    mean = float(share.mean())
    lo, hi = wilson_interval(mean, games)
    return {"opponents": opponents, "games": games, "share": mean, "low": lo, "high": hi,
            "wins": int((share == 1.0).sum()), "fair": 1.0 / players}


def main(game: str, players: int, defaults: dict, config: Optional[dict] = None) -> dict:
    config = config or {}
    ap = argparse.ArgumentParser(description=f"MaskablePPO on {game} ({players} seats) against built-in seats")
    ap.add_argument("--steps", type=int, default=defaults["steps"], help="learner env steps to train")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--envs", type=int, default=defaults["envs"], help="games stepped together")
    ap.add_argument("--opponents", default="random", help="the training opponents (an agent name)")
    ap.add_argument("--evals", type=int, default=defaults["evals"], help="evaluation points on the curve")
    ap.add_argument("--eval-games", type=int, default=defaults["eval_games"])
    ap.add_argument("--final-games", type=int, default=defaults["final_games"])
    ap.add_argument("--out", default=None, help="write the curve and final figures as JSON here")
    ap.add_argument("--quick", action="store_true", help="CI mode: a few thousand steps, small evaluations")
    args = ap.parse_args()
    if args.quick:
        args.steps, args.evals, args.eval_games, args.final_games = defaults["quick_steps"], 2, 32, 64
        args.envs = defaults.get("quick_envs", args.envs)
        config = {**config, **defaults.get("quick_config", {})}

    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

    from korovan_caravan.learner import LearnerVectorEnv
    from korovan_caravan.sb3 import SB3VecEnv

    torch.set_num_threads(1)
    venv = SB3VecEnv(LearnerVectorEnv(game, num_envs=args.envs, players=players, opponents=args.opponents,
                                      seat=None, reward="zero_sum", shaping=defaults.get("shaping", 0.0),
                                      seed=args.seed, **config))
    model = MaskablePPO("MlpPolicy", venv, seed=args.seed, device="cpu", verbose=0, **defaults["ppo"])
    curve = []
    cpu = {"train": 0.0}
    every = max(1, args.steps // max(1, args.evals))

    def point(steps: int) -> None:
        row = {"steps": steps, "train_cpu_s": round(cpu["train"], 2)}
        for opp in ("random", "heuristic"):
            r = evaluate(model, game, players, opp, args.eval_games, seed=10_000_000 + steps, **config)
            row[opp] = {k: r[k] for k in ("share", "low", "high")}
        curve.append(row)
        print(f"steps {steps:>8}  cpu {cpu['train']:7.1f}s  vs random {row['random']['share']:.3f}"
              f"  vs heuristic {row['heuristic']['share']:.3f}", flush=True)

    class Curve(BaseCallback):
        def __init__(self):
            super().__init__()
            self.next = every
            self.t0 = time.process_time()

        def _on_step(self) -> bool:
            if self.num_timesteps >= self.next:
                cpu["train"] += time.process_time() - self.t0
                point(self.num_timesteps)
                self.next += every
                self.t0 = time.process_time()
            return True

        def _on_training_end(self) -> None:
            cpu["train"] += time.process_time() - self.t0
            self.t0 = time.process_time()

    start_params = [p.detach().clone() for p in model.policy.parameters()]
    point(0)
    model.learn(args.steps, callback=Curve())
    changed = any(not torch.equal(a, b) for a, b in zip(start_params, model.policy.parameters()))
    final = {opp: evaluate(model, game, players, opp, args.final_games, seed=999_000_000, **config)
             for opp in ("random", "heuristic")}
    result = {
        "game": game, "players": players, "config": config, "seed": args.seed, "steps": int(model.num_timesteps),
        "envs": args.envs, "opponents": args.opponents, "ppo": defaults["ppo"],
        "reward": "zero_sum", "shaping": defaults.get("shaping", 0.0),
        "train_cpu_s": round(cpu["train"], 2), "episodes": len(venv.shares),
        "train_share": float(np.mean(venv.shares[-200:])) if venv.shares else None,
        "curve": curve, "final": final, "cpus": os.cpu_count(), "load_at_end": os.getloadavg(),
    }
    for opp, r in final.items():
        print(f"final vs {opp}: share {r['share']:.3f} (95% {r['low']:.3f}-{r['high']:.3f}) over {r['games']} games,"
              f" fair share {r['fair']:.3f}")
    if args.out:
        with open(args.out, "w") as f:
            json.dump(result, f, indent=1)
    # the pipeline trained (parameters moved, games finished) and evaluated
    assert changed, "training did not change the policy"
    assert result["episodes"] > 0, "no training game finished"
    for r in final.values():
        assert 0.0 <= r["low"] <= r["share"] <= r["high"] <= 1.0
    if not args.quick and final["random"]["low"] <= final["random"]["fair"]:
        print("the learner does not beat the random seats (95% interval not above the fair share)", file=sys.stderr)
        sys.exit(1)
    return result
