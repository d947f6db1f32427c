"""Speed of the single-learner environments (``korovan_caravan.learner``):

1. learner steps per CPU-second of ``LearnerVectorEnv.step`` (masks
   included; the opponents' moves and chance played in Rust inside the
   step) for Korovan 5p and Caravan 2p (compact actions), with random and
   with heuristic opponents. The learner's actions are uniformly random
   legal ones drawn with numpy (``sample_legal``), outside the timed call;
   the "with policy" column includes that draw.
2. MaskablePPO (sb3-contrib, MlpPolicy, CPU, one torch thread) on Caravan
   2p: env steps per CPU-second of ``model.learn`` (the env's steps, the
   rollouts' inference and the training) with the compact head and with the
   flat head (41,667 ids), identical settings, side by side in one run, and
   their ratio. The defaults are a practitioner's: 256 games (SB3's
   per-step Python cost spread over many games), 32 steps each per rollout
   (8,192), minibatches of 2,048, 4 epochs, MlpPolicy 64-64, torch's
   distribution argument checks off (``--validate-args`` turns them on)
   for both heads. The flat head learns one rollout by default (minutes).

    python python/benchmarks/learner.py                   # both parts
    python python/benchmarks/learner.py --part env --seconds 3
    python python/benchmarks/learner.py --part ppo        # the side-by-side run
    python python/benchmarks/learner.py --part ppo --ppo-envs 32 --n-steps 64 --batch 1024

CPU time is ``time.process_time`` (this process, all threads): on a
shared machine it is the better estimate of what one core does. Build the
wheel in release mode (``pip install ./python``) for meaningful figures.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from korovan_caravan.learner import LearnerVectorEnv
from machine import describe, load_average


def env_rate(game, players, opponents, num_envs, seconds, **config):
    env = LearnerVectorEnv(game, num_envs=num_envs, players=players, opponents=opponents, seat=None, seed=0,
                           copy=False, **config)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(3):
        env.step(env.sample_legal(rng))
    step_cpu = 0.0
    steps = 0
    length = np.zeros(num_envs, dtype=np.int64)
    lengths = []
    cpu0 = time.process_time()
    while time.process_time() - cpu0 < seconds:
        actions = env.sample_legal(rng)
        t = time.process_time()
        _, _, done, _, _ = env.step(actions)
        step_cpu += time.process_time() - t
        steps += num_envs
        length += 1
        lengths.extend(length[done].tolist())
        length[done] = 0
    total_cpu = time.process_time() - cpu0
    return {"steps": steps, "step_rate": steps / step_cpu, "policy_rate": steps / total_cpu,
            "steps_per_episode": float(np.mean(lengths)) if lengths else float("nan"), "actions": env.actions,
            "num_actions": env.single_action_space.n}


def ppo_rate(actions, steps, num_envs, validate_args=False, **ppo):
    import torch
    from sb3_contrib import MaskablePPO

    from korovan_caravan.sb3 import SB3VecEnv

    torch.set_num_threads(1)
    torch.distributions.Distribution.set_default_validate_args(validate_args)
    venv = SB3VecEnv(LearnerVectorEnv("caravan", num_envs=num_envs, players=2, opponents="random", seat=None,
                                      reward="zero_sum", actions=actions, seed=0))
    model = MaskablePPO("MlpPolicy", venv, seed=0, device="cpu", verbose=0, **ppo)
    cpu0, wall0 = time.process_time(), time.perf_counter()
    model.learn(steps)
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    return {"steps": int(model.num_timesteps), "cpu": cpu, "wall": wall, "rate": model.num_timesteps / cpu,
            "num_actions": venv.action_space.n}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", choices=["env", "ppo", "both"], default="both")
    ap.add_argument("--seconds", type=float, default=3.0, help="CPU seconds per env row")
    ap.add_argument("--num-envs", type=int, default=1024)
    ap.add_argument("--ppo-steps", type=int, default=65536, help="MaskablePPO steps with the compact head")
    ap.add_argument("--flat-steps", type=int, default=None,
                    help="MaskablePPO steps with the flat head (default: one rollout, ppo-envs x n-steps)")
    ap.add_argument("--ppo-envs", type=int, default=256, help="games of the MaskablePPO env (both heads)")
    ap.add_argument("--n-steps", type=int, default=32, help="MaskablePPO n_steps (both heads)")
    ap.add_argument("--net", default="64,64", help="MlpPolicy hidden layers (both heads)")
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--batch", type=int, default=2048)
    ap.add_argument("--validate-args", action="store_true",
                    help="keep torch.distributions' argument checks on (torch's default; both heads)")
    ap.add_argument("--heads", default="compact,flat", help="the heads to run, in order")
    args = ap.parse_args()
    print(f"machine: {describe()}")
    print(f"load average before: {load_average()}\n")
    if args.part in ("env", "both"):
        print("| game | opponents | actions | learner steps/CPU-s (step) | with policy | learner steps/game |")
        print("|---|---|---|---:|---:|---:|")
        for game, players, config in (("korovan", 5, {}), ("caravan", 2, {})):
            for opp in ("random", "heuristic"):
                r = env_rate(game, players, opp, args.num_envs, args.seconds, **config)
                print(f"| {game.capitalize()} {players}p | {opp} | {r['actions']} ({r['num_actions']}) | "
                      f"{r['step_rate']:,.0f} | {r['policy_rate']:,.0f} | {r['steps_per_episode']:.1f} |", flush=True)
        print()
    if args.part in ("ppo", "both"):
        net = [int(x) for x in args.net.split(",")]
        ppo = {"n_steps": args.n_steps, "batch_size": args.batch, "n_epochs": args.epochs,
               "policy_kwargs": {"net_arch": net}}
        flat_steps = args.flat_steps or args.ppo_envs * args.n_steps
        print(f"MaskablePPO on Caravan 2p against a random seat, {args.ppo_envs} games, {ppo}, "
              f"validate_args={args.validate_args}, torch threads 1")
        print("| head | actions | env steps | CPU s | wall s | env steps/CPU-s | load before → after |")
        print("|---|---:|---:|---:|---:|---:|---|")
        rows = {}
        for actions in args.heads.split(","):
            steps = args.ppo_steps if actions == "compact" else flat_steps
            before = load_average()
            r = ppo_rate(actions, steps, args.ppo_envs, validate_args=args.validate_args, **ppo)
            rows[actions] = r
            print(f"| {actions} | {r['num_actions']:,} | {r['steps']:,} | {r['cpu']:.1f} | {r['wall']:.1f} | "
                  f"{r['rate']:,.0f} | {before} → {load_average()} |", flush=True)
        if "compact" in rows and "flat" in rows:
            print(f"\ncompact / flat: {rows['compact']['rate'] / rows['flat']['rate']:.0f}x")
    print(f"\nload average after: {load_average()}")


if __name__ == "__main__":
    main()
