"""The PyTorch networks of the learned agents, and their ``BGNN`` graphs.

Every network maps the Rust network input of the seat to move (a flat
``float32`` vector: ``NetGame::write_input``) to ``policy_len`` policy
logits followed by ``value_len`` value logits (a softmax over the seats
relative to the observer). :meth:`graph` lists the network as the typed
operations of the weights file's format version 2 (``boardgame_kit::nn``),
with its parameters in the kit's layouts; :mod:`.export` writes them.

* :class:`TowerNet` — the residual tower of ``boardgame_kit::nn::Tower``:
  the board planes through a 3×3 convolution and residual blocks; the
  policy's board part a 1×1 convolution of the trunk (Caravan's camel and
  good moves are ``source × target square``: a convolution reads them off
  the board), the rest and the value from the pooled trunk with the global
  features.
* :class:`MlpNet` — dense layers with ReLU (Korovan: no board).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch
from torch import nn

# Operation kinds of the BGNN version-2 format (boardgame_kit::nn::Op).
INPUT, CONCAT_INPUT, TO_HWC, TO_CHW, CONV, DENSE, RELU = 1, 2, 3, 4, 5, 6, 7
STORE, LOAD, ADD, CONCAT, GLOBAL_AVG_POOL, OUTPUT = 8, 9, 10, 11, 12, 13


from .._korovan_caravan import net_layout

_KOROVAN, _CARAVAN = net_layout("korovan"), net_layout("caravan")

#: Korovan's network input (the observation tensor) and heads, as the
#: engine defines them (``net_layout``; docs/encoding-korovan.md).
KOROVAN_INPUTS, KOROVAN_POLICY, KOROVAN_VALUE = _KOROVAN["inputs"], _KOROVAN["policy_len"], _KOROVAN["value_len"]
#: Caravan's heads.
CARAVAN_POLICY, CARAVAN_VALUE = _CARAVAN["policy_len"], _CARAVAN["value_len"]


@dataclass
class TowerSpec:
    """The shape of a :class:`TowerNet` (``boardgame_kit::nn::Tower``)."""

    inputs: int
    planes: list  # (start, channels) ranges of CHW planes in the input
    globals_: list  # (start, length) ranges of global features
    height: int
    width: int
    policy_before: int
    policy_planes: int
    policy_after: int
    value_len: int
    channels: int = 32
    blocks: int = 2
    hidden: int = 64
    #: Start of a policy-shaped input range (the engine's planner move as a
    #: one-hot over the policy), joined to every policy head: its board
    #: planes to the trunk before the policy convolution, its other parts
    #: to the features before their dense heads. ``None``: no such range.
    plan: int | None = None

    @property
    def policy_len(self) -> int:
        return self.policy_before + self.policy_planes * self.height * self.width + self.policy_after


def caravan_spec(channels: int = 32, blocks: int = 2, hidden: int = 64) -> TowerSpec:
    """Caravan's tower over the board layout its engine defines
    (``net_layout("caravan")["board"]``; docs/encoding-caravan.md): the
    observation's board planes, the slot planes and the board part of the
    planner's move (a one-hot over the compact ids) feed the trunk; the
    scalars and the planner's other entries the features; the policy over
    the compact ids is its entries before the board (end, pick) from the
    features, planes over the board (camel and good moves to each square)
    from the trunk, and the rest (steals) from the features. The planner's
    move joins every policy head (``TowerSpec.plan``)."""
    board = _CARAVAN["board"]
    return TowerSpec(
        inputs=_CARAVAN["inputs"],
        planes=[tuple(p) for p in board["planes"]],
        globals_=[tuple(g) for g in board["globals"]],
        plan=board["plan"],
        height=board["height"],
        width=board["width"],
        policy_before=board["policy_before"],
        policy_planes=board["policy_planes"],
        policy_after=board["policy_after"],
        value_len=_CARAVAN["value_len"],
        channels=channels,
        blocks=blocks,
        hidden=hidden,
    )


def _conv_bn(cin: int, cout: int) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout))


def _fold(seq: nn.Sequential) -> tuple:
    """A conv + batch norm as one convolution's (weight, bias), eval statistics.

    Not ``torch.nn.utils.fusion.fuse_conv_bn_weights``: it multiplies by
    ``rsqrt`` and orders the bias's terms otherwise, which rounds about a
    quarter of the weights differently, and the exported files (the
    committed network from its recipe, a tower read back) are reproduced
    byte for byte by this formula."""
    conv, bn = seq[0], seq[1]
    scale = bn.weight / torch.sqrt(bn.running_var + bn.eps)
    w = conv.weight * scale[:, None, None, None]
    b = bn.bias - bn.running_mean * scale
    if conv.bias is not None:
        b = b + conv.bias * scale
    return w, b


def _conv_op(w: torch.Tensor, b: torch.Tensor, height: int, width: int) -> tuple:
    cout, cin, k, _ = w.shape
    # PyTorch [o][i][ky][kx] -> the kit's [ky][kx][i][o]
    return (CONV, [k, cin, cout, height, width], [w.permute(2, 3, 1, 0), b])


def _dense_op(lin: nn.Linear) -> tuple:
    # PyTorch [out][in] -> the kit's input-major [in][out]
    return (DENSE, [lin.in_features, lin.out_features], [lin.weight.t(), lin.bias])


class TowerNet(nn.Module):
    """The residual tower of ``boardgame_kit::nn::Tower`` (see the module)."""

    def __init__(self, spec: TowerSpec):
        super().__init__()
        self.spec = spec
        s = spec
        cin = sum(c for _, c in s.planes)
        nglob = sum(n for _, n in s.globals_)
        self.stem = _conv_bn(cin, s.channels)
        self.blocks = nn.ModuleList(
            nn.ModuleList([_conv_bn(s.channels, s.channels), _conv_bn(s.channels, s.channels)])
            for _ in range(s.blocks)
        )
        skip = s.plan is not None
        self.policy_conv = nn.Conv2d(s.channels + s.policy_planes * skip, s.policy_planes, 1) if s.policy_planes else None
        self.features = nn.Linear(s.channels + nglob, s.hidden)
        self.before = nn.Linear(s.hidden + s.policy_before * skip, s.policy_before) if s.policy_before else None
        self.after = nn.Linear(s.hidden + s.policy_after * skip, s.policy_after) if s.policy_after else None
        self.value = nn.Linear(s.hidden, s.value_len)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        s = self.spec
        hw = s.height * s.width
        planes = torch.cat([x[:, a : a + c * hw] for a, c in s.planes], dim=1)
        t = planes.view(-1, sum(c for _, c in s.planes), s.height, s.width)
        t = torch.relu(self.stem(t))
        for a, b in self.blocks:
            t = torch.relu(b(torch.relu(a(t))) + t)
        parts = []
        feats = t.mean(dim=(2, 3))
        if s.globals_:
            feats = torch.cat([feats] + [x[:, a : a + n] for a, n in s.globals_], dim=1)
        h = torch.relu(self.features(feats))
        board = s.policy_planes * hw
        if self.before is not None:
            parts.append(self.before(self._join(h, x, 0, s.policy_before)))
        if self.policy_conv is not None:
            if s.plan is not None:
                plan = x[:, s.plan + s.policy_before : s.plan + s.policy_before + board]
                t = torch.cat([t, plan.view(-1, s.policy_planes, s.height, s.width)], dim=1)
            parts.append(self.policy_conv(t).flatten(1))
        if self.after is not None:
            parts.append(self.after(self._join(h, x, s.policy_before + board, s.policy_after)))
        parts.append(self.value(h))
        return torch.cat(parts, dim=1)

    def _join(self, h: torch.Tensor, x: torch.Tensor, offset: int, n: int) -> torch.Tensor:
        """The features, and with a plan its entries ``offset..offset + n``."""
        if self.spec.plan is None:
            return h
        return torch.cat([h, x[:, self.spec.plan + offset : self.spec.plan + offset + n]], dim=1)

    @torch.no_grad()
    def graph(self) -> list:
        """The operations of the BGNN version-2 graph (eval-mode batch norms
        folded), as ``(kind, fields, [tensors])``."""
        s = self.spec
        hw = s.height * s.width
        ops: list = []
        for k, (a, n) in enumerate(s.globals_):
            ops.append((INPUT if k == 0 else CONCAT_INPUT, [a, n], []))
        if s.globals_:
            ops.append((STORE, [1], []))
        for k, (a, c) in enumerate(s.planes):
            ops.append((INPUT if k == 0 else CONCAT_INPUT, [a, c * hw], []))
        ops.append((TO_HWC, [sum(c for _, c in s.planes), s.height, s.width], []))
        ops.append(_conv_op(*_fold(self.stem), s.height, s.width))
        ops.append((RELU, [], []))
        for a, b in self.blocks:
            ops.append((STORE, [0], []))
            ops.append(_conv_op(*_fold(a), s.height, s.width))
            ops.append((RELU, [], []))
            ops.append(_conv_op(*_fold(b), s.height, s.width))
            ops.append((ADD, [0], []))
            ops.append((RELU, [], []))
        ops.append((STORE, [2], []))
        board = s.policy_planes * hw
        if self.policy_conv is not None:
            if s.plan is not None:
                ops.append((TO_CHW, [s.channels, s.height, s.width], []))
                ops.append((CONCAT_INPUT, [s.plan + s.policy_before, board], []))
                ops.append((TO_HWC, [s.channels + s.policy_planes, s.height, s.width], []))
            ops.append(_conv_op(self.policy_conv.weight, self.policy_conv.bias, s.height, s.width))
            ops.append((TO_CHW, [s.policy_planes, s.height, s.width], []))
            ops.append((OUTPUT, [s.policy_before], []))
            ops.append((LOAD, [2], []))
        ops.append((GLOBAL_AVG_POOL, [s.channels, hw], []))
        if s.globals_:
            ops.append((CONCAT, [1], []))
        ops.append(_dense_op(self.features))
        ops.append((RELU, [], []))
        ops.append((STORE, [3], []))
        first = True
        heads_ = [
            (self.before, 0, 0, s.policy_before),
            (self.after, s.policy_len - s.policy_after, s.policy_before + board, s.policy_after),
            (self.value, s.policy_len, 0, 0),
        ]
        for lin, offset, plan_offset, plan_len in heads_:
            if lin is None:
                continue
            if not first:
                ops.append((LOAD, [3], []))
            first = False
            if s.plan is not None and plan_len:
                ops.append((CONCAT_INPUT, [s.plan + plan_offset, plan_len], []))
            ops.append(_dense_op(lin))
            ops.append((OUTPUT, [offset], []))
        return ops


class MlpNet(nn.Module):
    """Dense layers with ReLU between them: read back by the kit as an ``Mlp``."""

    def __init__(self, inputs: int, hidden: list, policy_len: int, value_len: int):
        super().__init__()
        self.inputs, self.policy_len, self.value_len = inputs, policy_len, value_len
        widths = [inputs, *hidden, policy_len + value_len]
        self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(widths, widths[1:]))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for k, lin in enumerate(self.layers):
            if k > 0:
                x = torch.relu(x)
            x = lin(x)
        return x

    @torch.no_grad()
    def graph(self) -> list:
        ops: list = [(INPUT, [0, self.inputs], [])]
        for k, lin in enumerate(self.layers):
            if k > 0:
                ops.append((RELU, [], []))
            ops.append(_dense_op(lin))
        ops.append((OUTPUT, [0], []))
        return ops


def make_net(game: str, **kw) -> nn.Module:
    """The default network of ``game`` (``caravan``: a :class:`TowerNet`;
    ``korovan``: a 128-128 :class:`MlpNet`)."""
    if game == "caravan":
        return TowerNet(caravan_spec(**kw))
    if game == "korovan":
        hidden = kw.get("hidden", [128, 128])
        return MlpNet(KOROVAN_INPUTS, hidden, KOROVAN_POLICY, KOROVAN_VALUE)
    raise ValueError(f"unknown game {game!r} (caravan, korovan)")


def heads(net: nn.Module) -> tuple:
    """``(policy_len, value_len)`` of a network of this module."""
    if isinstance(net, TowerNet):
        return net.spec.policy_len, net.spec.value_len
    return net.policy_len, net.value_len


def input_len(net: nn.Module) -> int:
    """How many leading entries of the network input a network of this
    module reads."""
    return net.spec.inputs if isinstance(net, TowerNet) else net.inputs
