"""Speed from Python: random games played by a Python loop of
``legal_actions`` + ``apply_action`` on our engines and on OpenSpiel's C++
games, and the native ``state.playout(seed)`` that runs the whole game in
Rust. Prints a Markdown table (actions per second; chance outcomes count as
actions).

    python python/benchmarks/bench.py               # about 2 s per row
    python python/benchmarks/bench.py --seconds 5 --no-openspiel

Every loop is the same code: at a chance node it draws an outcome by its
probabilities (one uniform float and a cumulative scan), at a decision it
draws a uniform legal action.
"""

from __future__ import annotations

import argparse
import random
import time

import korovan_caravan
from machine import describe, load_average


def python_loop(new_state, seconds, seed):
    """Plays random games for about ``seconds``; returns (actions, games, elapsed)."""
    rng = random.Random(seed)
    actions = games = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        state = new_state()
        while not state.is_terminal():
            if state.is_chance_node():
                r = rng.random()
                outcomes = state.chance_outcomes()
                action = outcomes[-1][0]
                for a, p in outcomes:
                    r -= p
                    if r < 0:
                        action = a
                        break
            else:
                legal = state.legal_actions()
                action = legal[int(rng.random() * len(legal))]
            state.apply_action(action)
            actions += 1
        games += 1
        now = time.perf_counter()
        if now >= deadline:
            return actions, games, now - start


def native_loop(game, seconds, seed):
    """``state.playout(seed)`` (the whole game in Rust) for about ``seconds``."""
    actions = games = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        state = game.new_initial_state()
        actions += state.playout(seed + games)
        games += 1
        now = time.perf_counter()
        if now >= deadline:
            return actions, games, now - start


def machine():
    return f"{describe()}, load average {load_average()}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per row (default 2)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-openspiel", action="store_true", help="skip OpenSpiel's games")
    args = parser.parse_args()

    rows = []

    def row(label, kind, result):
        actions, games, elapsed = result
        rows.append((label, kind, actions / elapsed, games / elapsed, actions / games))
        print(f"  {label:<28} {kind:<26} {actions / elapsed:>12,.0f} actions/s", flush=True)

    print(f"machine: {machine()}", flush=True)
    ours = [("korovan", {"players": 5}), ("korovan", {"players": 3}), ("caravan", {"players": 3})]
    for name, config in ours:
        game = korovan_caravan.load_game(name, **config)
        label = f"{name} {config['players']}p (korovan_caravan)"
        row(label, "Python loop", python_loop(game.new_initial_state, args.seconds, args.seed))
        row(label, "native state.playout(seed)", native_loop(game, args.seconds, args.seed))

    if not args.no_openspiel:
        import pyspiel

        from korovan_caravan import openspiel as bg_openspiel

        bg_openspiel.register()
        spiel = [
            ("kuhn_poker", {}),
            ("liars_dice", {}),
            ("hearts", {}),
            ("breakthrough", {}),
        ]
        for name, params in spiel:
            game = pyspiel.load_game(name, params)
            row(f"{name} (OpenSpiel C++)", "Python loop", python_loop(game.new_initial_state, args.seconds, args.seed))
        game = pyspiel.load_game("korovan", {"players": 5})
        row("korovan 5p (as pyspiel game)", "Python loop", python_loop(game.new_initial_state, args.seconds, args.seed))

    print()
    print(f"Machine: {machine()}")
    print()
    print("| game | loop | actions/s | games/s | actions/game |")
    print("|---|---|---:|---:|---:|")
    for label, kind, aps, gps, apg in rows:
        print(f"| {label} | {kind} | {aps:,.0f} | {gps:,.1f} | {apg:,.1f} |")


if __name__ == "__main__":
    main()
