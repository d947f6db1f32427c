"""The learning curve of a training run: every kept network measured
against fixed opponents, as data (JSON) and as a chart (SVG).

::

    python -m korovan_caravan.learn.curve --game caravan --run runs/caravan \\
        --against random,heuristic,ismcts-h:100 --games 100 --seed 1000000 --threads 2

For each ``OUT/round-NNN.bgnn`` of an expert-iteration run, or each
``OUT/update-NNNNN.bgnn`` of a PPO run (``NNNNN`` updates done; its point's
``round`` is that number and ``games`` the games trained on so far), with
the training seconds from the run's ``checkpoint.pt`` log, the greedy network
(``learned``) plays ``--games`` games against each opponent in Rust
(:func:`korovan_caravan.learn.nn_match`: the network at one seat, rotating,
the opponent at every other, game ``g`` seeded ``seed + g``). Writes
``RUN/curve.json`` (one point per round: its round, seconds, samples, and per
opponent the network's mean share with its 95% Wilson interval) and, when
matplotlib is installed, ``RUN/curve.svg``. Rounds already in an existing
``curve.json`` with the same settings are kept, so a longer run is measured
incrementally.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys

from . import nn_match
from ..evaluation import wilson_interval

MAX_GAMES = 1 << 20
MAX_THREADS = 256


def rounds_of(run: str) -> list:
    """``(round, path)`` of every ``round-NNN.bgnn`` (expert iteration) or,
    if there is none, every ``update-NNNNN.bgnn`` (PPO) in ``run``, in
    order."""
    for pattern in (r"round-(\d{3,})\.bgnn", r"update-(\d{5,})\.bgnn"):
        out = []
        for name in os.listdir(run):
            m = re.fullmatch(pattern, name)
            if m:
                out.append((int(m.group(1)), os.path.join(run, name)))
        if out:
            return sorted(out)
    return []


def log_of(run: str) -> dict:
    """The trainer's log entries (from ``checkpoint.pt``) by round, or for
    PPO by updates done, each with ``games``: the games trained on so far."""
    path = os.path.join(run, "checkpoint.pt")
    if not os.path.isfile(path):
        return {}
    import torch

    ck = torch.load(path, map_location="cpu", weights_only=False)
    entries = ck.get("log", [])
    if entries and "round" in entries[0]:
        return {e["round"]: e for e in entries}
    out, games = {}, 0
    for e in entries:
        games += e.get("games", 0)
        out[e["update"] + 1] = {**e, "games": games}
    return out


def chart(curve: dict, path: str) -> bool:
    """Writes the curve as an SVG chart; ``False`` without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    points = curve["points"]
    fig, ax = plt.subplots(figsize=(7, 4))
    xs = [p["seconds"] / 60 for p in points]
    for name in curve["against"]:
        ys = [100 * p["against"][name]["share"] for p in points]
        lo = [100 * p["against"][name]["interval"][0] for p in points]
        hi = [100 * p["against"][name]["interval"][1] for p in points]
        (line,) = ax.plot(xs, ys, marker="o", label=f"against {name}")
        ax.fill_between(xs, lo, hi, color=line.get_color(), alpha=0.15)
    ax.axhline(100 * curve["fair"], color="grey", linestyle=":", label="fair share")
    ax.set_xlabel("training time (minutes, this machine)")
    ax.set_ylabel("learned's share of the wins (%)")
    ax.set_ylim(0, 100)
    ax.set_title(f"{curve['game']} {curve['players']}p: learned (greedy), {curve['games']} games a point")
    ax.legend(loc="best", fontsize="small")
    fig.tight_layout()
    tmp = path + ".tmp"
    fig.savefig(tmp, format="svg", metadata={"Date": None})
    plt.close(fig)
    os.replace(tmp, path)
    return True


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m korovan_caravan.learn.curve", description=__doc__.split("\n\n")[0])
    p.add_argument("--game", choices=["caravan", "korovan"], required=True)
    p.add_argument("--players", type=int, default=None)
    p.add_argument("--run", required=True, help="the trainer's --out directory")
    p.add_argument("--against", default="random,heuristic,ismcts-h:100", help="opponents, comma-separated")
    p.add_argument("--games", type=int, default=100)
    p.add_argument("--seed", type=int, default=1_000_000)
    p.add_argument("--threads", type=int, default=1)
    a = p.parse_args(argv)
    against = [x for x in a.against.split(",") if x]
    if not os.path.isdir(a.run):
        print(f"usage error: --run {a.run} is not a directory", file=sys.stderr)
        return 2
    if not against or not 1 <= a.games <= MAX_GAMES or not 1 <= a.threads <= MAX_THREADS or a.seed < 0:
        print(f"usage error: --against must name an opponent, --games be in 1..={MAX_GAMES}, "
              f"--threads in 1..={MAX_THREADS}, --seed non-negative", file=sys.stderr)
        return 2
    rounds = rounds_of(a.run)
    if not rounds:
        print(f"usage error: {a.run} holds no round-NNN.bgnn or update-NNNNN.bgnn", file=sys.stderr)
        return 2
    import korovan_caravan

    players = a.players or (2 if a.game == "caravan" else 5)
    settings = {"game": a.game, "players": players, "against": against, "games": a.games, "seed": a.seed}
    out = os.path.join(a.run, "curve.json")
    known = {}
    if os.path.isfile(out):
        with open(out) as f:
            old = json.load(f)
        if {k: old.get(k) for k in settings} == settings:
            known = {q["round"]: q for q in old["points"]}
    log = log_of(a.run)
    try:
        game = korovan_caravan.load_game(a.game, players=players)
        points = []
        for rnd, path in rounds:
            if rnd in known:
                points.append(known[rnd])
                continue
            with open(path, "rb") as f:
                weights = f.read()
            entry = log.get(rnd, {})
            point = {"round": rnd, "seconds": entry.get("seconds", 0.0), "samples": entry.get("trained_on"), "against": {}}
            if "update" in entry:
                point["games"] = entry["games"]
            for name in against:
                shares, _ = nn_match(game, weights, name, a.games, a.seed, a.threads, None, None)
                mean = float(shares.mean())
                point["against"][name] = {"share": mean, "interval": list(wilson_interval(mean, len(shares))), "games": len(shares)}
            points.append(point)
            print(json.dumps(point), flush=True)
    except ValueError as e:
        print(f"usage error: {e}", file=sys.stderr)
        return 2
    curve = {**settings, "fair": 1 / players, "points": points}
    with open(out + ".tmp", "w") as f:
        json.dump(curve, f, indent=1)
    os.replace(out + ".tmp", out)
    drawn = chart(curve, os.path.join(a.run, "curve.svg"))
    print(f"wrote {out}" + (" and curve.svg" if drawn else " (no chart: matplotlib is not installed)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
