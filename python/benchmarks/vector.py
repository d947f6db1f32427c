"""Env-steps per second of ``korovan_caravan.VectorEnv`` with a uniformly random
masked policy sampled in numpy, and of a Python loop over single states of
the same engine doing the same work. Prints a Markdown table.

    python python/benchmarks/vector.py                 # about 2.7 s per row
    python python/benchmarks/vector.py --seconds 5

One env-step = one game taking one decision: the action applied, chance
resolved, a finished game restarted, then the observation tensor of the
player to move and the legal actions written out (Korovan: a dense mask;
Caravan: padded legal ids + counts). The policy is vectorised numpy, inside
the timing (``VectorEnv.sample_legal``): every game draws ``k < count``;
Korovan takes the k-th set entry of its mask row, Caravan
``legal_ids[i, k]``. The "step only" column counts the CPU time of ``env.step`` alone
(without the policy), in a separate, shorter run timed call by call. The
ratios compare rates per CPU-second with the Python loop doing the same
work (observation + legal mask + random legal action + apply + chance) and
with a bare loop (legal ids + apply + chance only).

Both wall-clock rates (``time.perf_counter``) and rates per CPU-second of
this process (``time.process_time``, all threads) are printed: on a shared
machine the second is the better estimate of what one core does. Build the
wheel in release mode for meaningful figures
(``BOARDGAMES_PROFILE=release scripts/test-python.sh`` or
``pip install ./python``).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import korovan_caravan
from korovan_caravan import CHANCE_PLAYER, VectorEnv
from machine import describe, load_average


def masked_policy(env, rng):
    """A uniformly random legal id per game, vectorised numpy: every game
    draws ``k < count``; Korovan takes the k-th set entry of its mask row
    (``flatnonzero`` over the whole mask, offset by the running sum of the
    counts), Caravan ``legal_ids[i, k]`` (``VectorEnv.sample_legal``)."""
    return env.sample_legal(rng)


def vector_rate(name, players, num_envs, threads, seconds, copy=False, **config):
    """(steps, wall, cpu) of policy + step in a tight loop, then (steps,
    wall, cpu) of ``env.step`` alone, timed call by call (a shorter run:
    the timers themselves would weigh on the first figure)."""
    env = VectorEnv(name, num_envs=num_envs, players=players, seed=0, threads=threads, copy=copy, **config)
    env.reset()
    rng = np.random.default_rng(0)
    for _ in range(5):  # warm up
        env.step(masked_policy(env, rng))
    steps = 0
    wall0, cpu0 = time.perf_counter(), time.process_time()
    deadline = wall0 + seconds
    while True:
        for _ in range(16):
            env.step(masked_policy(env, rng))
        steps += 16 * num_envs
        if time.perf_counter() >= deadline:
            break
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    only_steps, only_wall, only_cpu = 0, 0.0, 0.0
    deadline = time.perf_counter() + seconds / 3
    while True:
        actions = masked_policy(env, rng)
        t, c = time.perf_counter(), time.process_time()
        env.step(actions)
        now = time.perf_counter()
        only_cpu += time.process_time() - c
        only_wall += now - t
        only_steps += num_envs
        if now >= deadline:
            break
    return steps, wall, cpu, only_steps, only_wall, only_cpu


def loop_rate(name, players, seconds, observe=True, **config):
    """The same work through the single-state API, one game at a time in
    Python: observation tensor (into a buffer) and legal mask of the player
    to move, a random legal action, apply, chance, restart at the end.
    ``observe=False``: the bare loop (legal ids and apply only, no
    observation, no mask), the strictest baseline."""
    game = korovan_caravan.load_game(name, players=players, **config)
    obs = np.empty(game.observation_tensor_size(), dtype=np.float32)
    rng = np.random.default_rng(0)
    seed = 0

    def start():
        nonlocal seed
        state = game.new_initial_state()
        chance = korovan_caravan.Rng(seed).child(korovan_caravan.CHANCE_STREAM)
        seed += 1
        while state.current_player() == CHANCE_PLAYER:
            state.apply_action(state.sample_chance(chance))
        return state, chance

    state, chance = start()
    steps = 0
    wall0, cpu0 = time.perf_counter(), time.process_time()
    deadline = wall0 + seconds
    while True:
        if observe:
            state.observation_tensor_into(state.current_player(), obs)
            if name == "korovan":
                legal = np.flatnonzero(state.legal_actions_mask())
            else:
                legal = state.legal_actions_engine_order()
            state.apply_action(int(legal[int(rng.random() * len(legal))]))
        else:
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.random() * len(legal))])
        while state.current_player() == CHANCE_PLAYER:
            state.apply_action(state.sample_chance(chance))
        if state.is_terminal():
            state, chance = start()
        steps += 1
        if steps % 256 == 0 and time.perf_counter() >= deadline:
            break
    return steps, time.perf_counter() - wall0, time.process_time() - cpu0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per row (default 2)")
    args = parser.parse_args()
    cases = [("korovan", 5, 1024, {}), ("caravan", 3, 256, {})]
    print(f"machine: {describe()}", flush=True)
    print(f"load average at start (1, 5, 15 min): {load_average()}", flush=True)
    rows = []
    for name, players, n, config in cases:
        bsteps, bwall, bcpu = loop_rate(name, players, args.seconds, observe=False, **config)
        bare_wall, bare_cpu = bsteps / bwall, bsteps / max(bcpu, 1e-9)
        rows.append((f"{name} {players}p", "bare Python loop (no obs, no mask)", "-", bare_wall, bare_cpu, None, None, None))
        print(f"  {rows[-1][0]} bare loop: {bare_wall:,.0f}/s wall, {bare_cpu:,.0f}/CPU-s", flush=True)
        lsteps, lwall, lcpu = loop_rate(name, players, args.seconds, **config)
        loop_wall, loop_cpu = lsteps / lwall, lsteps / max(lcpu, 1e-9)
        rows.append((f"{name} {players}p", "Python loop, single states", "-", loop_wall, loop_cpu, None, None, None))
        print(f"  {rows[-1][0]} loop: {loop_wall:,.0f}/s wall, {loop_cpu:,.0f}/CPU-s", flush=True)
        for threads in (1, 2):
            for copy in (False, True):
                steps, wall, cpu, only_steps, in_step, in_step_cpu = vector_rate(
                    name, players, n, threads, args.seconds, copy=copy, **config
                )
                label = f"VectorEnv({n}), copy={copy}"
                rate_wall, rate_cpu = steps / wall, steps / max(cpu, 1e-9)
                only_cpu = only_steps / max(in_step_cpu, 1e-9)
                rows.append(
                    (f"{name} {players}p", label, threads, rate_wall, rate_cpu, only_cpu,
                     rate_cpu / loop_cpu, rate_cpu / bare_cpu)
                )
                print(
                    f"  {name} {players}p {label} threads={threads}: {rate_wall:,.0f}/s wall, "
                    f"{rate_cpu:,.0f}/CPU-s, step only {only_steps / in_step:,.0f}/s wall, {only_cpu:,.0f}/CPU-s",
                    flush=True,
                )
    print(f"load average at end (1, 5, 15 min): {load_average()}")
    print()
    print("| engine | how | threads | steps/s (wall) | steps per CPU-second | `step` only, per CPU-second | × loop (CPU) | × bare loop (CPU) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for engine, how, threads, wall, cpu, only, xw, xc in rows:
        f = lambda x, fmt: "—" if x is None else format(x, fmt)  # noqa: E731
        print(f"| {engine} | {how} | {threads} | {wall:,.0f} | {cpu:,.0f} | {f(only, ',.0f')} | {f(xw, '.1f')} | {f(xc, '.1f')} |")


if __name__ == "__main__":
    main()
