"""The learning curves of docs/learning.md: win share against random and
against heuristic seats, over env steps and over training CPU time, from
the JSON files the training examples write (``--out``).

    python python/examples/plot_curves.py korovan.json caravan.json --png docs/learning.png
"""

import argparse
import json

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="+", help="JSON files written by train_*.py --out")
    ap.add_argument("--png", required=True)
    args = ap.parse_args()
    runs = [json.load(open(p)) for p in args.runs]
    fig, axes = plt.subplots(len(runs), 2, figsize=(9, 3.1 * len(runs)), squeeze=False, dpi=80)
    for row, run in zip(axes, runs):
        title = f"{run['game'].capitalize()} {run['players']}p"
        for ax, key, label in ((row[0], "steps", "learner env steps"), (row[1], "train_cpu_s", "training CPU seconds")):
            xs = [p[key] for p in run["curve"]]
            for opp, color in (("random", "tab:blue"), ("heuristic", "tab:red")):
                ys = [p[opp]["share"] for p in run["curve"]]
                lo = [p[opp]["low"] for p in run["curve"]]
                hi = [p[opp]["high"] for p in run["curve"]]
                ax.plot(xs, ys, color=color, marker="o", ms=3, label=f"vs {opp}")
                ax.fill_between(xs, lo, hi, color=color, alpha=0.15)
            ax.axhline(1.0 / run["players"], color="gray", ls="--", lw=1, label="fair share")
            ax.set_xlabel(label)
            ax.set_ylabel("learner's win share")
            ax.set_title(title)
            ax.set_ylim(0, 1)
            ax.grid(alpha=0.3)
        row[0].legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    fig.savefig(args.png)


if __name__ == "__main__":
    main()
