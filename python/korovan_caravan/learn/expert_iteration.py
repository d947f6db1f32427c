"""Expert iteration on PyTorch, self-play in Rust.

One round: the native ``self_play`` plays ``--games`` games in Rust threads
(the GIL released) — the first ``--teacher-rounds`` rounds (default 1; none
with ``--init``) with the ``--teacher`` agent at every seat (distillation:
its policy, or with ``--sharp`` its move, as targets; ``--target-power``
sharpens a softmax target), the next ones with the kit's ``learned-ismcts``
search running the current network as prior and leaf value,
``--iterations`` per decision (targets: the root's visit shares) — and
returns the network inputs, legal masks, policy targets and final shares.
The samples of the last ``--window`` rounds are kept in a
:class:`~.buffer.Window`. The network is trained on them (masked
cross-entropy to the policy target, cross-entropy of the value softmax over
the seats to the shares), exported as a ``BGNN`` version-2 file, and the
next round plays with it.

::

    python -m korovan_caravan.learn.expert_iteration --game caravan --out runs/caravan \\
        --rounds 20 --games 64 --iterations 64 --threads 2 --seed 1000000

Seeded and, on CPU, reproducible: the same command gives the same weights
(``torch.use_deterministic_algorithms``, ``--torch-threads`` fixed, the
self-play seeded per round and game whatever ``--threads``). A checkpoint is
written after every round (``checkpoint.pt``: network, optimizer, round,
samples) and ``--resume`` continues from it. A GPU is used when present
(``--device auto``); CPU is enough.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time

import numpy as np
import torch

from . import runs, self_play
from .buffer import SAMPLE_KEYS, Window, compact, pack, unpack
from .export import MAX_PARAMETERS, to_bytes
from .nets import heads, make_net
from .runs import UsageError, check_files, save_checkpoint, write_whole

MAX_GAMES = 1 << 20
MAX_THREADS = 256
MAX_ITERATIONS = 1 << 20
#: The largest checkpoint --init accepts: a network of MAX_PARAMETERS with
#: Adam's moments, and a window of samples (stored sparse), 4 GiB in all.
MAX_INIT_BYTES = 4 << 30


def sharpen(policy: np.ndarray, power: float) -> np.ndarray:
    """Each row of policy targets raised to ``power`` and renormalised: the
    softmax of the same values at ``1/power`` of the temperature (a
    ``flatmc-h`` target is a softmax of the actions' values). Computed
    relative to each row's largest entry, so nothing underflows to an
    all-zero row; a row of zeros stays zero."""
    if power == 1.0:
        return policy
    top = policy.max(axis=1, keepdims=True)
    out = np.zeros_like(policy)
    np.divide(policy, top, out=out, where=top > 0)
    out **= power
    total = out.sum(axis=1, keepdims=True)
    np.divide(out, total, out=out, where=total > 0)
    return out


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m korovan_caravan.learn.expert_iteration", description=__doc__.split("\n\n")[0])
    p.add_argument("--game", choices=["caravan", "korovan"], required=True)
    p.add_argument("--players", type=int, default=None, help="seats (default: caravan 2, korovan 5)")
    p.add_argument("--max-turns", type=int, default=None, help="Caravan's turn limit (default: the game's)")
    p.add_argument("--out", required=True, help="directory for weights, checkpoint and log")
    p.add_argument("--rounds", type=int, default=None, help="rounds in all (default 10; --quick 2)")
    p.add_argument("--games", type=int, default=32, help="self-play games per round")
    p.add_argument("--iterations", type=int, default=64, help="search iterations per decision")
    p.add_argument("--teacher", default="heuristic", help="agent of the first rounds (distillation)")
    p.add_argument("--teacher-rounds", type=int, default=1, help="rounds played by --teacher (without --init)")
    p.add_argument("--sharp", action="store_true", help="the teacher's move as the whole target")
    p.add_argument(
        "--target-power",
        type=float,
        default=1.0,
        help="raise each policy target to this power and renormalise (a softmax target at 1/K of its temperature)",
    )
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--weight-decay", type=float, default=1e-4)
    p.add_argument("--window", type=int, default=4, help="rounds of samples trained on")
    p.add_argument("--channels", type=int, default=32)
    p.add_argument("--blocks", type=int, default=2)
    p.add_argument("--seed", type=int, default=1_000_000)
    p.add_argument("--threads", type=int, default=1, help="self-play threads")
    p.add_argument("--torch-threads", type=int, default=1)
    p.add_argument("--device", default="auto", help="auto, cpu, cuda")
    p.add_argument("--init", default=None, help="a checkpoint.pt to start from")
    p.add_argument("--resume", action="store_true", help="continue from OUT/checkpoint.pt")
    p.add_argument("--quick", action="store_true", help="CI's quick mode: a tiny run")
    return p


def check(a: argparse.Namespace) -> None:
    """Every setting checked before any work."""
    if a.quick:
        a.rounds = 2 if a.rounds is None else min(a.rounds, 4)
        a.games, a.iterations, a.epochs, a.batch = min(a.games, 2), min(a.iterations, 4), 1, 64
        a.channels, a.blocks = min(a.channels, 8), min(a.blocks, 1)
        if a.game == "caravan":
            a.max_turns = min(a.max_turns or 12, 12)
    if a.rounds is None:
        a.rounds = 10
    if not (math.isfinite(a.lr) and a.lr > 0):
        raise UsageError(f"--lr must be finite and positive, got {a.lr}")
    if not (math.isfinite(a.target_power) and 0 < a.target_power <= 1000):
        raise UsageError(f"--target-power must be above 0 and at most 1000, got {a.target_power}")
    if not (math.isfinite(a.weight_decay) and a.weight_decay >= 0):
        raise UsageError(f"--weight-decay must be finite and non-negative, got {a.weight_decay}")
    for name, v, lo, hi in [
        ("--rounds", a.rounds, 1, 1_000_000),
        ("--teacher-rounds", a.teacher_rounds, 0, 1_000_000),
        ("--games", a.games, 1, MAX_GAMES),
        ("--iterations", a.iterations, 1, MAX_ITERATIONS),
        ("--threads", a.threads, 1, MAX_THREADS),
        ("--torch-threads", a.torch_threads, 1, MAX_THREADS),
        ("--epochs", a.epochs, 1, 10_000),
        ("--batch", a.batch, 1, 1 << 20),
        ("--window", a.window, 1, 1_000_000),
        ("--channels", a.channels, 1, 512),
        ("--blocks", a.blocks, 0, 64),
        ("--seed", a.seed, 0, (1 << 63) - 1),
    ]:
        if not lo <= v <= hi:
            raise UsageError(f"{name} must be in {lo}..={hi}, got {v}")
    if a.players is not None and not (2 <= a.players <= (4 if a.game == "caravan" else 9)):
        raise UsageError(f"--players {a.players} is not a {a.game} table")
    if a.max_turns is not None and (a.game != "caravan" or not 1 <= a.max_turns <= 1000):
        raise UsageError("--max-turns is Caravan's, in 1..=1000")
    if a.device not in ("auto", "cpu", "cuda"):
        raise UsageError(f"--device must be auto, cpu or cuda, got {a.device}")
    if a.device == "cuda" and not torch.cuda.is_available():
        raise UsageError("--device cuda but no GPU is available")
    import korovan_caravan

    table = korovan_caravan.load_game(a.game, players=a.players or (2 if a.game == "caravan" else 5))
    try:
        korovan_caravan.Agent(table, a.teacher)
    except ValueError as e:
        raise UsageError(f"--teacher: {e}") from None
    check_files(a.init, a.out, a.resume, MAX_INIT_BYTES)


def losses(net, x, mask, target, value, players):
    """The policy and value losses of a batch: the masked cross-entropy of
    the network's policy to the target distribution, and the cross-entropy
    of the value softmax over the seats to the final shares."""
    out = net(x)
    plen, vlen = heads(net)
    logits = out[:, :plen].masked_fill(~mask, -1e9)
    policy = -(target * torch.log_softmax(logits, dim=1)).sum(dim=1).mean()
    vlog = out[:, plen : plen + vlen]
    vmask = torch.arange(vlen, device=x.device)[None, :] < players
    vlog = vlog.masked_fill(~vmask, -1e9)
    v = -(value * torch.log_softmax(vlog, dim=1)).sum(dim=1).mean()
    return policy, v


def run(argv=None) -> dict:
    """Runs the trainer; torch's global settings (deterministic algorithms,
    threads) are restored on return."""
    return runs.run(parser, check, _run, argv)


def _run(a: argparse.Namespace) -> dict:
    import korovan_caravan

    players = a.players or (2 if a.game == "caravan" else 5)
    config = {"max_turns": a.max_turns} if a.max_turns is not None else {}
    game = korovan_caravan.load_game(a.game, players=players, **config)
    device = torch.device("cuda" if a.device == "cuda" or (a.device == "auto" and torch.cuda.is_available()) else "cpu")
    torch.manual_seed(a.seed)
    torch.set_num_threads(a.torch_threads)
    torch.use_deterministic_algorithms(True)
    kw = {"channels": a.channels, "blocks": a.blocks} if a.game == "caravan" else {}
    net = make_net(a.game, **kw).to(device)
    opt = torch.optim.AdamW(net.parameters(), lr=a.lr, weight_decay=a.weight_decay)
    ckpt_path = os.path.join(a.out, "checkpoint.pt")
    start, buffer, log = 0, [], []
    source = ckpt_path if a.resume else a.init
    if source is not None:
        ck = torch.load(source, map_location=device, weights_only=False)
        net.load_state_dict(ck["net"])
        if a.resume:
            opt.load_state_dict(ck["opt"])
            start, buffer, log = ck["round"] + 1, [unpack(b) for b in ck["buffer"]], ck["log"]
    # Seconds of training so far, across resumes (a learning curve's time axis).
    t0 = time.monotonic() - (log[-1]["seconds"] if log else 0.0)
    for rnd in range(start, a.rounds):
        seed = a.seed + rnd * MAX_GAMES
        if a.init is not None or rnd >= a.teacher_rounds:
            weights = to_bytes(net.cpu(), a.game)
            net.to(device)
            data = self_play(game, a.games, seed, weights=weights, iterations=a.iterations, threads=a.threads)
        else:
            data = self_play(game, a.games, seed, teacher=a.teacher, sharp=a.sharp, threads=a.threads)
        data["policy"] = sharpen(data["policy"], a.target_power)
        buffer.append(compact({k: data[k] for k in SAMPLE_KEYS}))
        buffer = buffer[-a.window :]
        window = Window(buffer)
        n = len(window)
        gen = torch.Generator().manual_seed(a.seed * 7919 + rnd)
        net.train()
        sums, steps = [0.0, 0.0], 0
        for _ in range(a.epochs):
            perm = torch.randperm(n, generator=gen)
            for i in range(0, n, a.batch):
                batch = window.take(perm[i : i + a.batch].numpy())
                x, m, p, v = (torch.from_numpy(batch[k]).to(device) for k in SAMPLE_KEYS)
                lp, lv = losses(net, x, m, p, v, players)
                loss = lp + lv
                runs.optimizer_step(opt, net.parameters(), loss, 5.0, f"round {rnd}")
                sums[0] += lp.item()
                sums[1] += lv.item()
                steps += 1
        if not all(torch.isfinite(q).all() for q in net.parameters()):
            raise RuntimeError(f"round {rnd}: a parameter is not finite; nothing written")
        net.eval()
        settings = {k: v for k, v in sorted(vars(a).items()) if k not in ("out", "resume", "init", "threads")}
        text = f"expert iteration, round {rnd}: " + json.dumps(settings, sort_keys=True)
        weights = to_bytes(net.cpu(), a.game, text)
        net.to(device)
        entry = {
            "round": rnd,
            "games": a.games,
            "samples": int(data["inputs"].shape[0]),
            "trained_on": n,
            "policy_loss": sums[0] / max(steps, 1),
            "value_loss": sums[1] / max(steps, 1),
            "seconds": round(time.monotonic() - t0, 1),
        }
        log.append(entry)
        write_whole(a.out, ("latest.bgnn", f"round-{rnd:03d}.bgnn"), weights)
        state = {"net": net.state_dict(), "opt": opt.state_dict(), "round": rnd, "log": log}
        save_checkpoint({**state, "buffer": [pack(b) for b in buffer]}, ckpt_path)
        print(json.dumps(entry), flush=True)
    return {"log": log, "weights": os.path.join(a.out, "latest.bgnn")}


def main(argv=None) -> int:
    """The command: 0 done, 2 a usage error, 1 an error of the run."""
    return runs.main(run, argv)


if __name__ == "__main__":
    sys.exit(main())
