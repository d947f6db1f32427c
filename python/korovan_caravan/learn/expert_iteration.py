"""Expert iteration on PyTorch, self-play in Rust (issue 31).

One round: the native ``self_play`` plays ``--games`` games in Rust threads
(the GIL released) — the first ``--teacher-rounds`` rounds (default 1; none
with ``--init``) with the ``--teacher`` agent at every seat (distillation:
its policy, or with ``--sharp`` its move, as targets),
the next ones with the kit's ``learned-ismcts`` search running the current
network as prior and leaf value, ``--iterations`` per decision (targets: the
root's visit shares), or with ``--dagger`` the network itself playing while
``--labeller`` (default ``--teacher``) labels the positions it reaches — and
returns the network inputs, legal masks, policy targets and final shares.
The network is trained on the last ``--window`` rounds' samples (masked
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
from .export import MAX_PARAMETERS, to_bytes
from .nets import caravan_spec, heads, make_net
from .runs import UsageError, check_files, save_checkpoint, write_whole

MAX_GAMES = 1 << 20
MAX_THREADS = 256
MAX_ITERATIONS = 1 << 20
#: The largest checkpoint --init accepts: a network of MAX_PARAMETERS with
#: Adam's moments, and a window of samples (stored sparse), 4 GiB in all.
MAX_INIT_BYTES = 4 << 30


#: The advantage loss's floor, in the target's units (flatmc-h: score
#: points): how far below the best move a move's value still counts.
ADVANTAGE_FLOOR = 10.0

#: The arrays of a round's samples, as ``self_play`` returns them.
SAMPLE_KEYS = ("inputs", "masks", "policy", "value")

#: The sample arrays kept as their rows' non-zero entries: the network
#: inputs (a Caravan decision is 3,316 floats, about 73 of them non-zero,
#: 2.2 %) and the policy targets (one entry for a sharp target, a few visit
#: shares for a search's). The legal masks stay dense booleans, the values
#: dense.
SPARSE_KEYS = ("inputs", "policy")


class Rows:
    """A 2-d array of samples kept as each row's non-zero entries (CSR):
    ``take`` gives back any rows exactly, dense. A Caravan decision's
    inputs are 13 KB dense and about 600 bytes this way; with the dense
    masks and values a decision takes 1.4 KB of the window, not 17 KB."""

    def __init__(self, shape: tuple, dtype: np.dtype, indptr: np.ndarray, cols: np.ndarray, vals: np.ndarray):
        self.shape, self.dtype = (int(shape[0]), int(shape[1])), np.dtype(dtype)
        self.indptr, self.cols, self.vals = indptr, cols, vals

    @classmethod
    def of(cls, a: np.ndarray) -> "Rows":
        rows, cols = np.nonzero(a)
        indptr = np.zeros(a.shape[0] + 1, dtype=np.int64)
        np.cumsum(np.bincount(rows, minlength=a.shape[0]), out=indptr[1:])
        return cls(a.shape, a.dtype, indptr, cols.astype(np.int32), a[rows, cols])

    @classmethod
    def concat(cls, parts: list) -> "Rows":
        shifts = np.cumsum([0] + [p.indptr[-1] for p in parts[:-1]])
        indptr = np.concatenate([parts[0].indptr[:1]] + [p.indptr[1:] + s for p, s in zip(parts, shifts)])
        shape = (sum(p.shape[0] for p in parts), parts[0].shape[1])
        return cls(shape, parts[0].dtype, indptr, np.concatenate([p.cols for p in parts]), np.concatenate([p.vals for p in parts]))

    def take(self, rows: np.ndarray) -> np.ndarray:
        """The dense rows ``rows`` (in that order)."""
        starts, counts = self.indptr[rows], self.indptr[rows + 1] - self.indptr[rows]
        at = np.repeat(starts - np.cumsum(counts) + counts, counts) + np.arange(counts.sum())
        out = np.zeros((len(rows), self.shape[1]), dtype=self.dtype)
        out[np.repeat(np.arange(len(rows)), counts), self.cols[at]] = self.vals[at]
        return out

    def nbytes(self) -> int:
        return self.indptr.nbytes + self.cols.nbytes + self.vals.nbytes


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


def plan_margin(policy: np.ndarray, inputs: np.ndarray, plan: int, margin: float) -> np.ndarray:
    """Each row's target at the planner's move (the one-hot at ``plan`` in
    the network input, over the same ids as the policy) multiplied by
    ``exp(margin)`` and the row renormalised: for a softmax target of the
    moves' values (``flatmc-h``: one unit per score point) the plan's value
    raised by ``margin``, so another move stays the target only where it is
    better than the plan by more than that. Rows without a planner's move,
    or where the target gives it nothing, are left as they are."""
    if margin == 0.0:
        return policy
    width = policy.shape[1]
    onehot = inputs[:, plan : plan + width] > 0.5
    rows, cols = np.nonzero(onehot)
    out = policy.copy()
    hit = out[rows, cols] > 0
    rows, cols = rows[hit], cols[hit]
    scale = out.dtype.type(math.exp(margin))
    out[rows, cols] *= scale
    total = out[rows].sum(axis=1)
    out[rows] /= total[:, None]
    return out


def compact(sample: dict) -> dict:
    """A round's samples (the dense arrays of ``self_play``) as kept in the
    window: ``SPARSE_KEYS`` as ``Rows``, the rest as they are."""
    return {k: Rows.of(a) if k in SPARSE_KEYS else a for k, a in sample.items()}


class Window:
    """The samples of the last rounds, trained on: ``take`` gives a batch's
    rows as dense arrays, the same values the dense window held."""

    def __init__(self, rounds: list):
        self.arrays = {
            k: Rows.concat([r[k] for r in rounds]) if k in SPARSE_KEYS else np.concatenate([r[k] for r in rounds])
            for k in rounds[0]
        }

    def __len__(self) -> int:
        return self.arrays["inputs"].shape[0]

    def take(self, rows: np.ndarray) -> dict:
        return {k: a.take(rows) if isinstance(a, Rows) else a[rows] for k, a in self.arrays.items()}

    def nbytes(self) -> int:
        return sum(a.nbytes() if isinstance(a, Rows) else a.nbytes for a in self.arrays.values())


def pack(round_: dict) -> dict:
    """A round's window entry (``compact``) for the checkpoint: ``Rows`` as
    their arrays, the masks as bits."""
    out = {}
    for k, a in round_.items():
        if isinstance(a, Rows):
            out[k] = ("rows", a.shape, a.dtype.str, a.indptr, a.cols, a.vals)
        elif a.dtype == np.bool_:
            out[k] = ("bits", a.shape, np.packbits(a.ravel()))
        else:
            out[k] = ("dense", a)
    return out


def unpack(packed: dict) -> dict:
    """``pack``'s inverse; it also reads the checkpoints of earlier versions
    (every float array as its flat non-zero entries, ``sparse``)."""
    out = {}
    for k, v in packed.items():
        if v[0] == "bits":
            shape = v[1]
            out[k] = np.unpackbits(v[2], count=int(np.prod(shape))).astype(np.bool_).reshape(shape)
        elif v[0] == "rows":
            out[k] = Rows(v[1], np.dtype(v[2]), v[3], v[4], v[5])
        elif v[0] == "dense":
            out[k] = v[1]
        else:
            _, shape, dtype, idx, val = v
            a = np.zeros(int(np.prod(shape)), dtype=np.dtype(dtype))
            a[idx] = val
            out[k] = Rows.of(a.reshape(shape)) if k in SPARSE_KEYS else a.reshape(shape)
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
        "--dagger",
        action="store_true",
        help="after the teacher rounds, the network plays and --teacher labels its positions (instead of search self-play)",
    )
    p.add_argument(
        "--labeller",
        default=None,
        help="the agent that labels the network's positions in --dagger rounds (default: --teacher)",
    )
    p.add_argument(
        "--plan-margin",
        type=float,
        default=0.0,
        help="Caravan: raise the planner's move in each target by this many units of its log (flatmc-h: score points) before --target-power",
    )
    p.add_argument(
        "--policy-loss",
        choices=["cross-entropy", "likelihood", "advantage"],
        default="cross-entropy",
        help="fit the target distribution, or the probability of playing a move the target plays",
    )
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
    if not (math.isfinite(a.plan_margin) and 0 <= a.plan_margin <= 50):
        raise UsageError(f"--plan-margin must be in 0..=50, got {a.plan_margin}")
    if a.plan_margin != 0.0 and a.game != "caravan":
        raise UsageError("--plan-margin is Caravan's (its network input holds the planner's move)")
    if a.labeller is not None and not a.dagger:
        raise UsageError("--labeller labels --dagger rounds; give --dagger too")
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
    for flag, name in (("--teacher", a.teacher), ("--labeller", a.labeller)):
        if name is not None:
            try:
                korovan_caravan.Agent(table, name)
            except ValueError as e:
                raise UsageError(f"{flag}: {e}") from None
    check_files(a.init, a.out, a.resume, MAX_INIT_BYTES)


def losses(net, x, mask, target, value, players, policy_loss="cross-entropy"):
    """The policy and value losses of a batch. ``cross-entropy`` fits the
    network's policy to the target distribution; ``likelihood`` maximises
    the probability that the network's move is one the target would play,
    ``log sum_a target(a) policy(a)`` (the same for a one-hot target; for a
    target spread over equally good moves it lets the network pick any of
    them rather than spread itself over all)."""
    out = net(x)
    plen, vlen = heads(net)
    logits = out[:, :plen].masked_fill(~mask, -1e9)
    logp = torch.log_softmax(logits, dim=1)

    def log_target():
        """log target(a), finite where the target is 0."""
        return torch.log(target.clamp_min(torch.finfo(target.dtype).tiny))

    if policy_loss == "advantage":
        # The target is a softmax of the moves' values (flatmc-h: at one score
        # point), so log target(a) is a's value up to a constant per row; the
        # policy logits regress onto those values (centred over the legal
        # moves, a move more than ADVANTAGE_FLOOR below the best counted at
        # the floor) with a Huber loss.
        v = log_target()
        v = v - v.masked_fill(~mask, -1e9).max(dim=1, keepdim=True).values
        v = v.clamp_min(-ADVANTAGE_FLOOR)
        diff = (out[:, :plen] - v).masked_fill(~mask, 0.0)
        k = mask.sum(dim=1, keepdim=True).clamp_min(1)
        diff = (diff - diff.sum(dim=1, keepdim=True) / k).masked_fill(~mask, 0.0)
        err = torch.nn.functional.huber_loss(diff, torch.zeros_like(diff), reduction="none", delta=1.0)
        policy = (err.sum(dim=1) / k.squeeze(1)).mean()
    elif policy_loss == "likelihood":
        weights = torch.where(target > 0, log_target(), torch.full_like(target, -1e9))
        policy = -torch.logsumexp(logp + weights, dim=1).mean()
    else:
        policy = -(target * logp).sum(dim=1).mean()
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
            if a.dagger:
                # the network plays; the teacher labels the positions it reaches
                labeller = a.labeller or a.teacher
                data = self_play(game, a.games, seed, teacher=labeller, sharp=a.sharp, threads=a.threads, actor=weights)
            else:
                data = self_play(game, a.games, seed, weights=weights, iterations=a.iterations, threads=a.threads)
        else:
            data = self_play(game, a.games, seed, teacher=a.teacher, sharp=a.sharp, threads=a.threads)
        if a.plan_margin != 0.0:
            data["policy"] = plan_margin(data["policy"], data["inputs"], caravan_spec().plan, a.plan_margin)
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
                lp, lv = losses(net, x, m, p, v, players, a.policy_loss)
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
