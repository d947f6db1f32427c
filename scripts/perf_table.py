#!/usr/bin/env python3
"""Prints the Markdown performance table from criterion's saved estimates.

Run `cargo bench --bench engines` first; then `python3 scripts/perf_table.py`
(or `python3 scripts/perf_table.py NAME` for a baseline saved with
`cargo bench --bench engines -- --save-baseline NAME`).
"""
import json
import pathlib
import sys

root = pathlib.Path(__file__).resolve().parent.parent / "target" / "criterion"
groups = ["korovan_3", "korovan_5", "korovan_9", "caravan_2", "caravan_3", "caravan_4"]
# positions of heuristic-driven Caravan games: per-position benches, no playouts
position_groups = groups + ["caravan-heuristic_2", "caravan-heuristic_3", "caravan-heuristic_4"]
positions = ["opening", "middle", "late"]
ops = ["legal_actions", "clone", "apply_checked", "apply_unchecked", "observation_tensor"]
baseline = sys.argv[1] if len(sys.argv) > 1 else "new"


def estimate(path):
    f = path / baseline / "estimates.json"
    if not f.exists():
        return None
    return json.loads(f.read_text())["mean"]["point_estimate"]


def elements(path):
    f = path / baseline / "benchmark.json"
    if not f.exists():
        return None
    t = json.loads(f.read_text()).get("throughput") or {}
    return t.get("Elements")


out = sys.stdout
out.write("| engine/players | random playout (actions/s) | games/s | mean actions/game |\n|---|---|---|---|\n")
for g in groups:
    # random_playout/G: one iteration plays the seeded games 0..G, whose
    # exact total of actions is the throughput
    sets = sorted((root / g / "random_playout").glob("[0-9]*"))
    for p in sets:
        ns, el = estimate(p), elements(p)
        if ns is None:
            continue
        games = int(p.name)
        out.write(f"| {g.replace('_', '/')} | {el / ns * 1e3:.1f} M | {games * 1e9 / ns:,.0f} | {el / games:.2f} |\n")
out.write("\nPer-operation times in ns (opening / middle / late):\n\n")
out.write("| engine/players | " + " | ".join(ops) + " |\n" + "|---" * (len(ops) + 1) + "|\n")
for g in position_groups:
    cells = []
    for op in ops:
        vals = [estimate(root / g / op / pos) for pos in positions]
        cells.append(" / ".join("–" if v is None else f"{v:.1f}" for v in vals))
    out.write(f"| {g.replace('_', '/')} | " + " | ".join(cells) + " |\n")
out.write("\nPerft (nodes/s, opening / middle / late):\n\n| engine/players | depth | nodes/s |\n|---|---|---|\n")
for g in position_groups:
    for d in range(1, 5):
        vals = []
        for pos in positions:
            p = root / g / f"perft{d}" / pos
            ns, el = estimate(p), elements(p)
            vals.append(None if ns is None else el / ns * 1e3)
        if any(v is not None for v in vals):
            out.write(f"| {g.replace('_', '/')} | {d} | " + " / ".join("–" if v is None else f"{v:.1f} M" for v in vals) + " |\n")
