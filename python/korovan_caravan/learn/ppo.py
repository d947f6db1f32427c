"""PPO against built-in seats on PyTorch, the games in Rust.

Korovan's network (an :class:`~.nets.MlpNet` over the network's input,
read from a ``LearnerVectorEnv`` with ``inputs="network"`` — for Korovan the
observation tensor —, the policy over the flat action ids, the value
softmax over the seats) learns by proximal policy optimisation from games against ``--opponents``
(default ``heuristic``) at every other seat: an update plays ``--envs``
games side by side in a :class:`korovan_caravan.learner.LearnerVectorEnv`
(the opponents and chance in Rust, the learner's seat drawn per game) for
``--steps`` learner decisions each, then trains ``--epochs`` passes of
clipped PPO over them. The reward is the learner's share of the win at the
end (1 a sole win, ``1/k`` a ``k``-way draw); the value of a position is
the network's own value head, read at the learner's slot (the softmax over
the seats, relative to the observer, as the search reads it). With
``--critic all-seats`` the advantages come instead from a separate critic
that reads every seat's tensor (``inputs="all-seats"``: the hidden state,
which a critic may see in training and a policy may not); the network's
own value head still learns the same returns, and the exported file is the
network alone, over the seat's own tensor.

::

    python -m korovan_caravan.learn.ppo --out runs/korovan-ppo \\
        --init crates/korovan-core/weights/korovan.bgnn --updates 200 --seed 0

Seeded and, on CPU, reproducible: update ``u`` plays the games of seed
``seed + u · 2^20`` onwards and samples its moves from a generator seeded by
``(seed, u)``, so the same command gives the same weights, and ``--resume``
continues from ``OUT/checkpoint.pt`` (written after every update, through a
temporary file and a rename) to the same weights as a run never stopped.
Each update also writes ``OUT/latest.bgnn`` (what ``learned`` plays, loaded
by the kit; every ``--keep-every`` updates also ``OUT/update-NNNNN.bgnn``,
``NNNNN`` the updates done) and prints one JSON line. ``--init`` starts from a weights file
whose program is an MLP (a shipped network) or from a trainer's
``checkpoint.pt``.

``--game caravan`` trains Caravan's residual tower (:class:`~.nets.TowerNet`)
the same way, over the network's input (the board planes, the slot planes
and the planner's move) and the compact action ids, from the shipped tower
(``--init crates/caravan-core/weights/caravan.bgnn``, read back by
:func:`~.export.tower_from_bytes`), an expert-iteration or PPO
``checkpoint.pt``, or a fresh tower of ``--channels``, ``--blocks`` and
``--hidden``. Its batch norms keep their statistics (eval mode) while PPO
trains: the network read from a file has them folded into its
convolutions. ``--temperature T`` plays and trains the softmax of the
logits divided by ``T`` (below 1: closer to the greedy policy that
``learned`` plays); the exported logits are not scaled, and the greedy move
does not depend on ``T``. The committed network is two such runs
(:mod:`.recipe`, docs/learning.md)::

    python -m korovan_caravan.learn.ppo --game caravan --out runs/caravan-ppo \
        --init crates/caravan-core/weights/caravan.bgnn --temperature 0.5 --lr 5e-5 \
        --updates 400 --envs 32 --steps 256 --seed 0
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

from torch.optim.lr_scheduler import LambdaLR

from . import runs
from .export import mlp_from_bytes, to_bytes, tower_from_bytes
from .nets import CARAVAN_POLICY, CARAVAN_VALUE, KOROVAN_INPUTS, KOROVAN_POLICY, KOROVAN_VALUE, MlpNet, heads, input_len, make_net
from .rollout import Rollout
from .runs import UsageError, check_files, optimizer_step, save_checkpoint, write_whole

#: Games of one update are seeded from ``seed + update · SEED_STRIDE``.
SEED_STRIDE = 1 << 20
MAX_ENVS = 4096
MAX_STEPS = 1 << 16
MAX_THREADS = 256
#: The largest --init accepted (a weights file or a checkpoint).
MAX_INIT_BYTES = 1 << 30
#: The critic's hidden width unless ``--critic-hidden`` says otherwise.
CRITIC_HIDDEN = 256


class Critic(torch.nn.Module):
    """The privileged critic of ``--critic all-seats``: an MLP over every
    seat's observation tensor (the learner's first), its output the softmax
    over the seats read at the learner's slot, as the network's own value
    head is read. It only trains: the exported network is the policy's."""

    def __init__(self, inputs: int, hidden: int, players: int):
        super().__init__()
        self.body = torch.nn.Sequential(
            torch.nn.Linear(inputs, hidden),
            torch.nn.ReLU(),
            torch.nn.Linear(hidden, hidden),
            torch.nn.ReLU(),
            torch.nn.Linear(hidden, players),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(self.body(x), dim=1)[:, 0]


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m korovan_caravan.learn.ppo", description=__doc__.split("\n\n")[0])
    p.add_argument("--game", choices=["korovan", "caravan"], default="korovan")
    p.add_argument("--players", type=int, default=None, help="players (default: 5 for Korovan, 2 for Caravan)")
    p.add_argument("--out", required=True, help="directory for weights, checkpoint and log")
    p.add_argument("--opponents", default="heuristic", help="the agent at every other seat")
    p.add_argument("--updates", type=int, default=200)
    p.add_argument("--envs", type=int, default=128, help="games played side by side")
    p.add_argument("--steps", type=int, default=64, help="learner decisions per game slot and update")
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--minibatches", type=int, default=4)
    p.add_argument("--lr", type=float, default=1e-4)
    p.add_argument(
        "--lr-decay-from",
        type=int,
        default=None,
        help="from this update on, the learning rate falls linearly from --lr to 0 at --updates (default: constant)",
    )
    p.add_argument("--gae-lambda", type=float, default=0.95)
    p.add_argument("--clip", type=float, default=0.1)
    p.add_argument("--ent-coef", type=float, default=0.003)
    p.add_argument("--vf-coef", type=float, default=0.5)
    p.add_argument(
        "--hidden", type=int, default=128, help="width of the two hidden layers; Caravan: of the tower's dense layer (without --init)"
    )
    p.add_argument("--channels", type=int, default=16, help="Caravan: the tower's channels (without --init)")
    p.add_argument("--blocks", type=int, default=2, help="Caravan: the tower's residual blocks (without --init)")
    p.add_argument(
        "--temperature",
        type=float,
        default=1.0,
        help="the policy played and trained is the softmax of the logits divided by this (the exported logits are unscaled)",
    )
    p.add_argument(
        "--critic",
        choices=["all-seats"],
        default=None,
        help="advantages from a separate critic that reads every seat's tensor (the hidden state; "
        "training only) instead of the network's own value head (default)",
    )
    p.add_argument("--critic-hidden", type=int, default=None, help="width of the critic's two hidden layers (default 256)")
    p.add_argument("--keep-every", type=int, default=50, help="also keep OUT/update-NNNNN.bgnn every this many updates (0: never)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--torch-threads", type=int, default=1)
    p.add_argument("--init", default=None, help="an MLP weights file or a checkpoint.pt to start from")
    p.add_argument("--resume", action="store_true", help="continue from OUT/checkpoint.pt")
    p.add_argument("--quick", action="store_true", help="CI's quick mode: a tiny run")
    return p


def check(a: argparse.Namespace) -> None:
    """Every setting checked before any work."""
    if a.players is None:
        a.players = 2 if a.game == "caravan" else 5
    if a.quick:
        a.updates, a.envs, a.steps, a.epochs, a.minibatches = min(a.updates, 2), 4, 8, 1, 2
        a.hidden, a.channels, a.blocks = min(a.hidden, 16), min(a.channels, 4), min(a.blocks, 1)
    for name, v in [("--lr", a.lr), ("--clip", a.clip), ("--temperature", a.temperature)]:
        if not (math.isfinite(v) and v > 0):
            raise UsageError(f"{name} must be finite and positive, got {v}")
    for name, v in [("--ent-coef", a.ent_coef), ("--vf-coef", a.vf_coef)]:
        if not (math.isfinite(v) and v >= 0):
            raise UsageError(f"{name} must be finite and non-negative, got {v}")
    if not (math.isfinite(a.gae_lambda) and 0 <= a.gae_lambda <= 1):
        raise UsageError(f"--gae-lambda must be in [0, 1], got {a.gae_lambda}")
    for name, v, lo, hi in [
        ("--players", a.players, *((2, 4) if a.game == "caravan" else (3, 9))),
        ("--updates", a.updates, 1, 1_000_000),
        ("--envs", a.envs, 1, MAX_ENVS),
        ("--steps", a.steps, 1, MAX_STEPS),
        ("--epochs", a.epochs, 1, 10_000),
        ("--minibatches", a.minibatches, 1, 1 << 20),
        ("--hidden", a.hidden, 1, 4096),
        ("--channels", a.channels, 1, 256),
        ("--blocks", a.blocks, 0, 32),
        ("--critic-hidden", CRITIC_HIDDEN if a.critic_hidden is None else a.critic_hidden, 1, 4096),
        ("--torch-threads", a.torch_threads, 1, MAX_THREADS),
        ("--keep-every", a.keep_every, 0, 1_000_000),
        ("--seed", a.seed, 0, (1 << 62) - 1),
    ]:
        if not lo <= v <= hi:
            raise UsageError(f"{name} must be in {lo}..={hi}, got {v}")
    if a.critic is not None and a.game != "korovan":
        raise UsageError("--critic is Korovan's: Caravan has no hidden state for a critic to see (C-8)")
    if a.critic_hidden is not None and a.critic is None:
        raise UsageError("--critic-hidden needs --critic")
    if a.lr_decay_from is not None and not 0 <= a.lr_decay_from < a.updates:
        raise UsageError(f"--lr-decay-from must be in 0..{a.updates} (below --updates), got {a.lr_decay_from}")
    if a.minibatches > a.envs * a.steps:
        raise UsageError(f"--minibatches {a.minibatches} is more than the {a.envs * a.steps} samples of an update")
    from ..learner import LearnerVectorEnv

    try:
        LearnerVectorEnv(a.game, num_envs=1, players=a.players, opponents=a.opponents, seed=0).close()
    except ValueError as e:
        raise UsageError(f"--opponents: {e}") from None
    check_files(a.init, a.out, a.resume, MAX_INIT_BYTES)


def mlp_of_state(state: dict) -> MlpNet:
    """The :class:`MlpNet` of a state dict (its hidden widths read off the
    layers' shapes)."""
    layers = sorted((int(k.split(".")[1]), w) for k, w in state.items() if k.startswith("layers.") and k.endswith(".weight"))
    net = MlpNet(KOROVAN_INPUTS, [w.shape[1] for _, w in layers][1:], KOROVAN_POLICY, KOROVAN_VALUE)
    net.load_state_dict(state)
    return net


def tower_of_state(state: dict) -> torch.nn.Module:
    """The Caravan :class:`TowerNet` of a state dict (an expert-iteration or
    PPO checkpoint's; its width, depth and hidden size read off the
    shapes)."""
    blocks = len({k.split(".")[1] for k in state if k.startswith("blocks.")})
    net = make_net("caravan", channels=state["stem.0.weight"].shape[0], blocks=blocks, hidden=state["features.weight"].shape[0])
    net.load_state_dict(state)
    return net


def net_of_state(game: str, state: dict) -> torch.nn.Module:
    """The network of ``game`` (an MLP for Korovan, a tower for Caravan) of a
    checkpoint's state dict."""
    return tower_of_state(state) if game == "caravan" else mlp_of_state(state)


def initial_net(a: argparse.Namespace) -> torch.nn.Module:
    """The network to start from: ``--init``'s, or a fresh one."""
    kind = "a Caravan tower" if a.game == "caravan" else "an MLP"
    if a.init is None:
        if a.game == "caravan":
            return make_net("caravan", channels=a.channels, blocks=a.blocks, hidden=a.hidden)
        return MlpNet(KOROVAN_INPUTS, [a.hidden, a.hidden], KOROVAN_POLICY, KOROVAN_VALUE)
    with open(a.init, "rb") as f:
        data = f.read()
    if data[:4] == b"BGNN":
        try:
            net, _ = tower_from_bytes(data) if a.game == "caravan" else mlp_from_bytes(data)
        except ValueError as e:
            raise UsageError(f"--init {a.init}: {e}") from None
    else:
        try:
            net = net_of_state(a.game, torch.load(a.init, map_location="cpu", weights_only=False)["net"])
        except Exception as e:  # a foreign or broken checkpoint
            raise UsageError(f"--init {a.init} is neither {kind} weights file nor a {a.game.capitalize()} checkpoint: {e}") from None
    want = (CARAVAN_POLICY, CARAVAN_VALUE) if a.game == "caravan" else (KOROVAN_POLICY, KOROVAN_VALUE)
    if heads(net) != want or (a.game == "korovan" and net.inputs != KOROVAN_INPUTS):
        raise UsageError(f"--init {a.init} is not a {a.game.capitalize()} network")
    return net


def set_training(net: torch.nn.Module, on: bool) -> None:
    """Train or eval mode, batch norms always in eval mode: their statistics
    stay what the network came with (folded into a file's convolutions), so
    the policy that played is the policy that trains."""
    net.train(on)
    for m in net.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.eval()


def lr_factor(a: argparse.Namespace, update: int) -> float:
    """The multiple of ``--lr`` that ``update`` trains at (the ``LambdaLR``
    schedule): 1, falling linearly from ``--lr-decay-from`` to 0 after the
    last update."""
    if a.lr_decay_from is None or update < a.lr_decay_from:
        return 1.0
    return (a.updates - update) / (a.updates - a.lr_decay_from)


def learning_rate(a: argparse.Namespace, update: int) -> float:
    """The learning rate of ``update``: ``--lr · lr_factor``."""
    return a.lr * lr_factor(a, update)


def evaluate(net: torch.nn.Module, obs: torch.Tensor, mask: torch.Tensor, players: int, temperature: float = 1.0) -> tuple:
    """Masked policy logits (divided by ``temperature``, over the mask's
    width: the policy head's first ids, which are those of ``players``
    seats) and the value (the learner's expected share)."""
    out = net(obs[:, : input_len(net)])
    policy_len = heads(net)[0]
    logits = (out[:, : mask.shape[1]] / temperature).masked_fill(~mask, -1e9)
    value = torch.softmax(out[:, policy_len : policy_len + players], dim=1)[:, 0]
    return logits, value


def run(argv=None) -> dict:
    """Runs the trainer; torch's global settings (deterministic algorithms,
    threads) are restored on return."""
    return runs.run(parser, check, _run, argv)


def _run(a: argparse.Namespace) -> dict:
    from ..learner import LearnerVectorEnv

    torch.manual_seed(a.seed)
    torch.set_num_threads(a.torch_threads)
    torch.use_deterministic_algorithms(True)
    ckpt_path = os.path.join(a.out, "checkpoint.pt")
    start, log = 0, []
    if a.resume:
        ck = torch.load(ckpt_path, map_location="cpu", weights_only=False)
        net = net_of_state(a.game, ck["net"])
        start, log = ck["update"] + 1, ck["log"]
    else:
        net = initial_net(a)
    opt = torch.optim.Adam(net.parameters(), lr=a.lr, eps=1e-5)
    critic = copt = None
    if a.critic is not None:
        hidden = CRITIC_HIDDEN if a.critic_hidden is None else a.critic_hidden
        critic = Critic(a.players * KOROVAN_INPUTS, hidden, a.players)
        copt = torch.optim.Adam(critic.parameters(), lr=a.lr, eps=1e-5)
    if a.resume:
        if ("critic" in ck) != (critic is not None):
            raise UsageError(f"--resume: {ckpt_path} was written {'with' if 'critic' in ck else 'without'} a critic; give the same --critic")
        opt.load_state_dict(ck["opt"])
        if critic is not None:
            critic.load_state_dict(ck["critic"])
            copt.load_state_dict(ck["critic_opt"])
    # The learning rate of update u is --lr · lr_factor(u), for the critic too.
    schedulers = []
    for o in (opt, copt):
        if o is not None:
            for group in o.param_groups:
                group["initial_lr"] = a.lr
            schedulers.append(LambdaLR(o, lambda u: lr_factor(a, u), last_epoch=start - 1))
    t0 = time.monotonic() - (log[-1]["seconds"] if log else 0.0)
    for update in range(start, a.updates):
        env = LearnerVectorEnv(
            a.game,
            num_envs=a.envs,
            players=a.players,
            opponents=a.opponents,
            seat=None,
            reward="shares",
            illegal="raise",
            inputs="network" if critic is None else "all-seats",
            seed=a.seed + update * SEED_STRIDE,
            **({"actions": "compact"} if a.game == "caravan" else {}),
        )
        gen = torch.Generator().manual_seed(a.seed * 1_000_003 + update)
        obs, info = env.reset()
        mask = info["action_mask"]
        buf = Rollout(a.steps, a.envs, obs.shape[1], mask.shape[1])
        finished, shares = 0, 0.0
        set_training(net, False)
        with torch.no_grad():
            for t in range(a.steps):
                buf.obs[t], buf.mask[t] = obs, mask
                logits, value = evaluate(net, torch.from_numpy(obs), torch.from_numpy(mask), a.players, a.temperature)
                if critic is not None:
                    value = critic(torch.from_numpy(obs))
                # sampled with the update's own generator (Categorical.sample takes none)
                action = torch.multinomial(torch.softmax(logits, dim=1), 1, generator=gen).squeeze(1)
                buf.act[t] = action.numpy()
                buf.logp[t] = torch.log_softmax(logits, dim=1).gather(1, action[:, None]).squeeze(1).numpy()
                buf.val[t] = value.numpy()
                obs, reward, terminated, truncated, info = env.step(buf.act[t])
                mask = info["action_mask"]
                done = np.logical_or(terminated, truncated)
                buf.rew[t], buf.done[t] = reward, done
                finished += int(done.sum())
                shares += float(np.asarray(reward, np.float64)[done].sum())
            _, last = evaluate(net, torch.from_numpy(obs), torch.from_numpy(mask), a.players, a.temperature)
            if critic is not None:
                last = critic(torch.from_numpy(obs))
        env.close()
        flat = buf.samples(last.numpy(), a.gae_lambda)
        n = a.steps * a.envs
        set_training(net, True)
        size = n // a.minibatches
        sums = {"policy": 0.0, "value": 0.0, "entropy": 0.0, **({"critic": 0.0} if critic is not None else {})}
        steps = 0
        for _ in range(a.epochs):
            perm = torch.randperm(n, generator=gen)
            for i in range(a.minibatches):
                idx = perm[i * size : (i + 1) * size]
                logits, value = evaluate(net, flat["obs"][idx], flat["mask"][idx], a.players, a.temperature)
                # log_softmax and the entropy by hand, not torch.distributions.Categorical:
                # Categorical normalises as logits - logsumexp(logits), which rounds
                # otherwise, and the runs reproduce their weights byte for byte
                logp_all = torch.log_softmax(logits, dim=1)
                logp = logp_all.gather(1, flat["act"][idx][:, None]).squeeze(1)
                ratio = torch.exp(logp - flat["logp"][idx])
                adv_b = flat["adv"][idx]
                adv_b = (adv_b - adv_b.mean()) / (adv_b.std() + 1e-8)
                policy = torch.max(-adv_b * ratio, -adv_b * ratio.clamp(1 - a.clip, 1 + a.clip)).mean()
                vloss = ((value - flat["ret"][idx]) ** 2).mean()
                probs = torch.softmax(logits, dim=1)
                entropy = -(probs * logp_all.masked_fill(probs == 0, 0.0)).sum(dim=1).mean()
                loss = policy + a.vf_coef * vloss - a.ent_coef * entropy
                optimizer_step(opt, net.parameters(), loss, 0.5, f"update {update}")
                if critic is not None:
                    # the critic learns the same returns from the whole table's view
                    closs = ((critic(flat["obs"][idx]) - flat["ret"][idx]) ** 2).mean()
                    optimizer_step(copt, critic.parameters(), closs, 0.5, f"update {update}", "the critic's loss")
                    sums["critic"] += closs.item()
                sums["policy"] += policy.item()
                sums["value"] += vloss.item()
                sums["entropy"] += entropy.item()
                steps += 1
        if not all(torch.isfinite(q).all() for q in [*net.parameters(), *(critic.parameters() if critic is not None else [])]):
            raise RuntimeError(f"update {update}: a parameter is not finite; nothing written")
        net.eval()
        settings = {k: v for k, v in sorted(vars(a).items()) if k not in ("out", "resume", "init") and v is not None}
        weights = to_bytes(net, a.game, f"ppo, update {update}: " + json.dumps(settings, sort_keys=True))
        entry = {
            "update": update,
            "games": finished,
            "share": round(shares / finished, 4) if finished else None,
            **{k: v / max(steps, 1) for k, v in sums.items()},
            "seconds": round(time.monotonic() - t0, 1),
        }
        log.append(entry)
        for scheduler in schedulers:
            scheduler.step()
        names = ["latest.bgnn"]
        if a.keep_every and (update + 1) % a.keep_every == 0:
            names.append(f"update-{update + 1:05d}.bgnn")
        write_whole(a.out, names, weights)
        ck = {"net": net.state_dict(), "opt": opt.state_dict(), "update": update, "log": log}
        if critic is not None:
            ck.update(critic=critic.state_dict(), critic_opt=copt.state_dict())
        save_checkpoint(ck, ckpt_path)
        print(json.dumps(entry), flush=True)
    return {"log": log, "weights": os.path.join(a.out, "latest.bgnn")}


def main(argv=None) -> int:
    """The command: 0 done, 2 a usage error, 1 an error of the run."""
    return runs.main(run, argv)


if __name__ == "__main__":
    sys.exit(main())
