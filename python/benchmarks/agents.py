"""A built-in agent called from Python against the same agent in the Rust
arena, per move.

For each row, the same seeded games are played twice:

* **Rust**: ``korovan_caravan.evaluate(game, names, ...)`` with built-in names
  only, which runs the whole match in Rust on the kit's ``Arena`` (one
  thread);
* **Python**: the same match with ``native=False``: Python drives every game
  (``state.apply_action``, chance by ``state.sample_chance``) and asks a
  ``korovan_caravan.Agent`` for every decision, one ``step`` call each.

Both play exactly the same moves (the script checks that the two reports
are equal), so the ratio of their CPU times per decision is the cost of
calling the agent from Python.

For the cheap agents (``random``, ``heuristic``) a third column times the
batched call, ``Agent.step_many``, on the very states the arena decided:
the states at every decision of the same seeded games (built beforehand,
outside the timing) go to ``step_many`` about 4,096 at a time (several
games per call). Untimed, each game is checked as well: an agent
restarted with the game's seed and given that game's states returns
exactly the moves the Rust arena played there. The Rust side's time per
decision includes applying the moves and the chance nodes; the batched
call's only the decisions and their Python overhead (one list item and one
borrowed state each).

A last table gives the floor: per state of a list, a Python loop calling
``agent.step(state)``, the same loop calling a pyo3 method that does no work
(``state.is_terminal()``), and one ``step_many`` over the list.

A second table (with ``open_spiel`` installed) times one rollout of
OpenSpiel's ``RandomRolloutEvaluator`` (through the Python game API)
against ``korovan_caravan.bots.RolloutEvaluator`` (in Rust) from the same
positions: the cost of a leaf of OpenSpiel's MCTS. CPU time (``time.process_time``), not wall
time: on a loaded machine it is the steadier measure.

    python python/benchmarks/agents.py              # every row
    python python/benchmarks/agents.py --quick      # a smoke run (CI-sized)

Build the release wheel first (``pip install ./python``): a debug build
measures the wrong thing.
"""

from __future__ import annotations

import argparse
import os
import time

# numpy's OpenBLAS threads would spin on the other core and count in this
# process's CPU time; nothing here needs them
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from machine import describe, load_average  # noqa: E402

import korovan_caravan  # noqa: E402
from korovan_caravan.evaluation import play_game  # noqa: E402

# (engine, players, config, agent, games): every seat plays the agent.
# Iteration budgets only: a time budget costs its time per move by
# definition, and its moves differ from run to run.
ROWS = [
    ("korovan", 5, {}, "random", 4000),
    ("korovan", 5, {}, "heuristic", 2000),
    ("korovan", 5, {}, "ismcts:100", 20),
    ("korovan", 5, {}, "ismcts-h:100", 20),
    ("caravan", 2, {}, "random", 40),
    ("caravan", 2, {}, "heuristic", 40),
    ("caravan", 2, {"max_turns": 60}, "ismcts:100", 4),
    ("caravan", 2, {"max_turns": 60}, "ismcts-h:100", 4),
]


def decisions(game, names, seeds):
    """The number of decisions (actions that are not chance outcomes) of the
    games of ``seeds`` without seat rotation, counted on their records."""
    count = 0
    for s in seeds:
        state = game.new_initial_state()
        for a in play_game(game, names, s).history():
            count += not state.is_chance_node()
            state.apply_action(a)
    return count


CHEAP = ("random", "heuristic")


def batched(game, names, seeds, chunk=4096):
    """The CPU time of ``Agent.step_many`` over every decision state of the
    games of ``seeds``, about ``chunk`` states (several games) per call, one
    agent whose streams run on from call to call. Untimed, every game is
    checked too: an agent restarted with the game's seed and given that
    game's states returns exactly the moves the Rust driver played."""
    total = 0.0
    agent = korovan_caravan.Agent(game, names[0], seed=12345)
    check = korovan_caravan.Agent(game, names[0])
    pending = []

    def run():
        nonlocal total
        states = [st for _, sts, _ in pending for st in sts]
        start = time.process_time()
        agent.step_many(states)
        total += time.process_time() - start
        for s, sts, played in pending:
            check.restart(seed=s)
            assert np.array_equal(check.step_many(sts), played), f"step_many did not play the arena's moves in game {s}"
        pending.clear()

    count = 0
    for s in seeds:
        state = game.new_initial_state()
        states, played = [], []
        for a in play_game(game, names, s).history():
            if not state.is_chance_node():
                states.append(state.clone())
                played.append(a)
            state.apply_action(a)
        pending.append((s, states, played))
        count += len(states)
        if count >= chunk:
            run()
            count = 0
    if pending:
        run()
    return total


def call_floor(quick):
    """Per state of a list of decision states: a Python loop calling
    ``agent.step(state)``; the same loop calling a pyo3 method that does no
    work (``state.is_terminal()``: CPython's loop and call, pyo3's argument
    and return handling, no agent); and one ``step_many`` over the list."""
    print()
    print(f"{'game':<12} {'agent':<10} {'states':>6} {'loop of step µs':>16} {'loop of is_terminal µs':>23} "
          f"{'step_many µs':>13}")
    for engine, players in (("korovan", 5), ("caravan", 2)):
        game = korovan_caravan.load_game(engine, players=players)
        for name in CHEAP:
            states = []
            for s in range(2 if quick else 40):
                state = game.new_initial_state()
                for a in play_game(game, [name] * players, s).history():
                    if not state.is_chance_node():
                        states.append(state.clone())
                    state.apply_action(a)
            states = states[: 200 if quick else 20000]
            agent = korovan_caravan.Agent(game, name, seed=1)
            best = [float("inf")] * 3
            for _ in range(1 if quick else 5):
                t = time.process_time()
                for st in states:
                    agent.step(st)
                t1 = time.process_time()
                for st in states:
                    st.is_terminal()
                t2 = time.process_time()
                agent.step_many(states)
                t3 = time.process_time()
                best = [min(b, x) for b, x in zip(best, (t1 - t, t2 - t1, t3 - t2))]
            n = len(states)
            print(f"{engine + ' ' + str(players) + 'p':<12} {name:<10} {n:>6} {best[0] / n * 1e6:>16.3f} "
                  f"{best[1] / n * 1e6:>23.3f} {best[2] / n * 1e6:>13.3f}", flush=True)


def timed(f):
    start = time.process_time()
    out = f()
    return out, time.process_time() - start


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a few games per row (a smoke run)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per row; the fastest of each side is kept")
    parser.add_argument("--agents", help="only the rows of these agents (comma-separated names, e.g. random,heuristic)")
    parser.add_argument("--no-rollouts", action="store_true", help="skip the rollout table")
    args = parser.parse_args(argv)
    only = set(args.agents.split(",")) if args.agents else None
    print(f"machine: {describe()}, load average {load_average()}", flush=True)
    print(
        f"{'game':<12} {'agent':<14} {'games':>5} {'decisions':>9} {'Rust µs/move':>13} {'Python µs/move':>15} "
        f"{'Python/Rust':>11} {'step_many µs/move':>18} {'step_many/Rust':>14}"
    )
    for engine, players, config, agent, games in ROWS:
        if only is not None and agent not in only:
            continue
        if args.quick:
            games = max(1, games // 100)
        game = korovan_caravan.load_game(engine, players=players, **config)
        names = [agent] * players
        n = decisions(game, names, range(games))
        best_rust = best_py = best_many = float("inf")
        for _ in range(1 if args.quick else args.repeat):
            rust, t_rust = timed(lambda: korovan_caravan.evaluate(game, names, games=games, rotate_seats=False))
            py, t_py = timed(
                lambda: korovan_caravan.evaluate(game, names, games=games, rotate_seats=False, native=False)
            )
            assert rust.native and not py.native
            assert rust.agents == py.agents, "the two sides played different games"
            best_rust, best_py = min(best_rust, t_rust), min(best_py, t_py)
            if agent in CHEAP:
                best_many = min(best_many, batched(game, names, range(games)))
        many = ""
        if agent in CHEAP:
            many = f" {best_many / n * 1e6:>18.3f} {best_many / best_rust:>14.3f}"
        label = str(n)
        print(
            f"{engine + ' ' + str(players) + 'p':<12} {agent:<14} {games:>5} {label:>9} "
            f"{best_rust / n * 1e6:>13.3f} {best_py / n * 1e6:>15.3f} {best_py / best_rust:>11.3f}{many}",
            flush=True,
        )
    call_floor(args.quick)
    if not args.no_rollouts:
        rollouts(args.quick)
    print(f"load average at the end: {load_average()}")


def rollouts(quick):
    try:
        import numpy as np
        import pyspiel
        from open_spiel.python.algorithms import mcts

        import korovan_caravan.openspiel
        from korovan_caravan.bots import RolloutEvaluator
    except ImportError:
        print("(open_spiel is not installed: no rollout table)")
        return
    korovan_caravan.openspiel.register()
    print()
    print(f"{'game':<12} {'rollouts':>8} {'OpenSpiel Python µs':>20} {'Rust µs':>10} {'ratio':>8}")
    for name, players in [("caravan", 2), ("korovan", 5)]:
        game = pyspiel.load_game(name, {"players": players})
        state = game.new_initial_state()
        rng = np.random.RandomState(0)
        while state.is_chance_node() or len(state.history()) < 40:
            if state.is_chance_node():
                ids, probs = zip(*state.chance_outcomes())
                state.apply_action(rng.choice(ids, p=probs))
            else:
                state.apply_action(rng.choice(state.legal_actions()))
        n_py = 2 if quick else (10 if name == "caravan" else 300)
        n_rust = 20 if quick else 2000
        python = mcts.RandomRolloutEvaluator(1, np.random.RandomState(1))
        rust = RolloutEvaluator(game, seed=1)
        _, t_py = timed(lambda: [python.evaluate(state) for _ in range(n_py)])
        _, t_rust = timed(lambda: [rust.evaluate(state) for _ in range(n_rust)])
        per_py, per_rust = t_py / n_py * 1e6, t_rust / n_rust * 1e6
        print(f"{name + ' ' + str(players) + 'p':<12} {n_py:>4}/{n_rust:<4} {per_py:>19.0f} {per_rust:>10.1f} {per_py / per_rust:>8.0f}")


if __name__ == "__main__":
    main()
