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
calling the agent from Python. CPU time (``time.process_time``), not wall
time: on a loaded machine it is the steadier measure.

    python python/benchmarks/agents.py              # every row
    python python/benchmarks/agents.py --quick      # a smoke run (CI-sized)

Build the release wheel first (``pip install ./python``): a debug build
measures the wrong thing.
"""

from __future__ import annotations

import argparse
import time

import korovan_caravan
from korovan_caravan.evaluation import play_game

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


def timed(f):
    start = time.process_time()
    out = f()
    return out, time.process_time() - start


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a few games per row (a smoke run)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per row; the fastest of each side is kept")
    args = parser.parse_args(argv)
    print(f"{'game':<12} {'agent':<14} {'games':>5} {'decisions':>9} {'Rust µs/move':>13} {'Python µs/move':>15} {'Python/Rust':>11}")
    for engine, players, config, agent, games in ROWS:
        if args.quick:
            games = max(1, games // 100)
        game = korovan_caravan.load_game(engine, players=players, **config)
        names = [agent] * players
        n = decisions(game, names, range(games))
        best_rust = best_py = float("inf")
        for _ in range(1 if args.quick else args.repeat):
            rust, t_rust = timed(lambda: korovan_caravan.evaluate(game, names, games=games, rotate_seats=False))
            py, t_py = timed(
                lambda: korovan_caravan.evaluate(game, names, games=games, rotate_seats=False, native=False)
            )
            assert rust.native and not py.native
            assert rust.agents == py.agents, "the two sides played different games"
            best_rust, best_py = min(best_rust, t_rust), min(best_py, t_py)
        label = str(n)
        print(
            f"{engine + ' ' + str(players) + 'p':<12} {agent:<14} {games:>5} {label:>9} "
            f"{best_rust / n * 1e6:>13.2f} {best_py / n * 1e6:>15.2f} {best_py / best_rust:>11.3f}"
        )


if __name__ == "__main__":
    main()
