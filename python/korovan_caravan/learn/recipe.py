"""A committed network from nothing, as one resumable command.

::

    python -m korovan_caravan.learn.recipe --game caravan --out runs/caravan-recipe

Caravan's committed network (``crates/caravan-core/weights/caravan.bgnn``)
comes from three trainer runs, each started from the one before
(docs/learning.md, "Caravan: PPO against the heuristic from the distilled
tower"):

1. ``distil``: :mod:`.expert_iteration`, two rounds distilling
   ``ismcts-h:400``'s chosen moves into a 16-channel, 2-block tower (41
   minutes on the 2-core machine of the docs);
2. ``ppo1``: :mod:`.ppo` against ``heuristic`` from that tower's
   ``round-001.bgnn``, 400 updates at temperature 0.5 and a small rate
   (22 minutes);
3. ``ppo2``: :mod:`.ppo` from ``ppo1``'s checkpoint, 400 updates of twice
   the games at three times the rate (45 minutes).

Each step runs in its own directory under ``--out`` with the trainer's
checkpoints. A step whose trainer finished leaves a file ``done`` there and
is skipped; a step that was stopped is resumed with the trainer's
``--resume``, so a stopped recipe loses at most the trainer's last update
or round. The network is ``OUT/ppo2/latest.bgnn``; the command prints its
path and whether it is byte for byte the committed file.

``--quick`` passes the trainers' quick mode to every step (CI: the recipe's
wiring in a few seconds, not its network). Exit codes are the trainers':
0 done, 2 a usage error (nothing started), 1 an error of a run.
"""

from __future__ import annotations

import argparse
import os
import sys

from . import expert_iteration, ppo

#: Where the committed Caravan network lives, relative to the repository.
COMMITTED = os.path.join("crates", "caravan-core", "weights", "caravan.bgnn")


def steps(out: str, threads: int) -> list:
    """``(name, trainer module, arguments)`` of Caravan's recipe, in order."""
    distil, ppo1, ppo2 = (os.path.join(out, n) for n in ("distil", "ppo1", "ppo2"))
    t = str(threads)
    return [
        (
            "distil",
            expert_iteration,
            ["--game", "caravan", "--out", distil, "--teacher", "ismcts-h:400", "--sharp", "--rounds", "2"]
            + ["--teacher-rounds", "2", "--games", "160", "--epochs", "3", "--batch", "256", "--lr", "2e-3"]
            + ["--channels", "16", "--blocks", "2", "--threads", t, "--torch-threads", t, "--seed", "0"],
        ),
        (
            "ppo1",
            ppo,
            ["--game", "caravan", "--out", ppo1, "--init", os.path.join(distil, "round-001.bgnn")]
            + ["--temperature", "0.5", "--lr", "5e-5", "--updates", "400", "--envs", "32", "--steps", "256"]
            + ["--keep-every", "25", "--torch-threads", t, "--seed", "0"],
        ),
        (
            "ppo2",
            ppo,
            ["--game", "caravan", "--out", ppo2, "--init", os.path.join(ppo1, "checkpoint.pt")]
            + ["--temperature", "0.5", "--lr", "1.5e-4", "--updates", "400", "--envs", "64", "--steps", "256"]
            + ["--keep-every", "25", "--torch-threads", t, "--seed", "1"],
        ),
    ]


def main(argv=None) -> int:
    """The command (exit codes: the module's)."""
    p = argparse.ArgumentParser(prog="python -m korovan_caravan.learn.recipe", description=__doc__.split("\n\n")[0])
    p.add_argument("--game", choices=["caravan"], required=True, help="the game whose committed network to train")
    p.add_argument("--out", required=True, help="a directory for the steps' runs (created)")
    p.add_argument("--threads", type=int, default=2, help="game and torch threads of every step (the docs' figures: 2)")
    p.add_argument("--quick", action="store_true", help="the trainers' quick mode (CI)")
    a = p.parse_args(argv)
    if not 1 <= a.threads <= 256:
        print(f"usage error: --threads must be in 1..=256, got {a.threads}", file=sys.stderr)
        return 2
    try:
        os.makedirs(a.out, exist_ok=True)
    except OSError as e:
        print(f"usage error: --out {a.out}: {e}", file=sys.stderr)
        return 2
    plan = steps(a.out, a.threads)
    for name, module, args in plan:
        run = os.path.join(a.out, name)
        if os.path.isfile(os.path.join(run, "done")):
            print(f"== {name}: done before, skipped", flush=True)
            continue
        os.makedirs(run, exist_ok=True)
        resume = os.path.isfile(os.path.join(run, "checkpoint.pt"))
        print(f"== {name}: {'resumed' if resume else 'started'}", flush=True)
        code = module.main(args + ["--resume"] * resume + ["--quick"] * a.quick)
        if code != 0:
            print(f"== {name} stopped with exit code {code}; run the same command again to resume", file=sys.stderr)
            return code
        with open(os.path.join(run, "done"), "w") as f:
            f.write(" ".join(args) + "\n")
    network = os.path.join(a.out, plan[-1][0], "latest.bgnn")
    with open(network, "rb") as f:
        data = f.read()
    committed = None
    if os.path.isfile(COMMITTED):
        with open(COMMITTED, "rb") as f:
            committed = f.read() == data
    same = {None: "(no committed file here to compare)", True: "the committed file, byte for byte", False: "not the committed file"}
    print(f"network: {network} — {same[committed]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
