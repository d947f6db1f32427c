"""Writes a network of :mod:`.nets` as a ``BGNN`` weights file of format
version 2 (``boardgame_kit::nn``: header, free text, the typed operations,
the parameters in order, an FNV-1a 64 checksum), refusing a non-finite
parameter."""

from __future__ import annotations

import struct

import numpy as np
import torch

from .nets import (
    ADD,
    CONCAT,
    CONCAT_INPUT,
    CONV,
    DENSE,
    GLOBAL_AVG_POOL,
    INPUT,
    LOAD,
    OUTPUT,
    RELU,
    STORE,
    TO_CHW,
    TO_HWC,
    MlpNet,
    heads,
    input_len,
    make_net,
)

MAGIC = b"BGNN"
VERSION = 2
#: The most parameters a file may hold (boardgame_kit::nn::MAX_PARAMETERS).
MAX_PARAMETERS = 1 << 24
#: The longest free text (boardgame_kit::nn::MAX_TEXT).
MAX_TEXT = 1 << 16


def fnv1a64(data: bytes) -> int:
    """The checksum of the weights file."""
    h = 0xCBF29CE484222325
    arr = np.frombuffer(data, dtype=np.uint8)
    # Sequential by nature; chunks keep Python's loop cheap enough for a few MB.
    for b in arr.tolist():
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def to_bytes(net: torch.nn.Module, game: str, text: str = "") -> bytes:
    """The weights file of ``net`` (a network of :mod:`.nets`) for ``game``.

    Raises ``ValueError`` for a non-finite parameter, too many parameters or
    a text too long."""
    was_training = net.training
    net.eval()
    try:
        ops = net.graph()
    finally:
        net.train(was_training)
    policy_len, value_len = heads(net)
    inputs = input_len(net)
    name = game.encode()
    body = text.encode()
    if len(name) > 255 or len(body) > MAX_TEXT:
        raise ValueError("the game's name or the text is too long")
    out = bytearray(MAGIC + struct.pack("<H", VERSION))
    out += bytes([len(name)]) + name
    out += struct.pack("<III", inputs, policy_len, value_len)
    out += struct.pack("<I", len(body)) + body
    out += struct.pack("<H", len(ops))
    for kind, fields, _ in ops:
        out += bytes([kind]) + struct.pack(f"<{len(fields)}I", *fields)
    count = 0
    for kind, _, tensors in ops:
        for t in tensors:
            a = t.detach().to(torch.float32).contiguous().cpu().numpy().astype("<f4", copy=False)
            if not np.isfinite(a).all():
                raise ValueError(f"a parameter of operation kind {kind} is not finite")
            count += a.size
            out += a.tobytes()
    if count > MAX_PARAMETERS:
        raise ValueError(f"{count} parameters (at most {MAX_PARAMETERS})")
    out += struct.pack("<Q", fnv1a64(bytes(out)))
    return bytes(out)


def write_file(path: str, data: bytes) -> None:
    """Writes ``data`` to ``path`` through a temporary file and a rename, so
    that a reader never sees half a file."""
    import os

    tmp = f"{path}.tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def save(net: torch.nn.Module, game: str, path: str, text: str = "") -> int:
    """Writes the weights file to ``path``, whole (:func:`write_file`);
    returns its size."""
    data = to_bytes(net, game, text)
    write_file(path, data)
    return len(data)


#: The number of ``u32`` fields of every operation kind of format version 2.
_FIELDS = {
    INPUT: 2,
    CONCAT_INPUT: 2,
    TO_HWC: 3,
    TO_CHW: 3,
    CONV: 5,
    DENSE: 2,
    RELU: 0,
    STORE: 1,
    LOAD: 1,
    ADD: 1,
    CONCAT: 1,
    GLOBAL_AVG_POOL: 2,
    OUTPUT: 1,
}


def _read(data: bytes, kinds: dict, what: str) -> tuple:
    """The header of a format-2 weights file: ``(game, inputs, policy_len,
    value_len, text, ops, at)``, ``ops`` its ``(kind, fields)`` and ``at``
    the offset of its first parameter. ``kinds`` are the operation kinds
    accepted (``what`` names the program in the error)."""
    if len(data) < 8 or data[:4] != MAGIC:
        raise ValueError("not a BGNN weights file")
    (version,) = struct.unpack_from("<H", data, 4)
    if version != VERSION:
        raise ValueError(f"format version {version}, expected {VERSION}")
    if len(data) < 16 or struct.unpack("<Q", data[-8:])[0] != fnv1a64(data[:-8]):
        raise ValueError("the checksum does not match: the file is corrupted or truncated")
    at = 6
    try:
        n = data[at]
        at += 1
        game = data[at : at + n].decode("utf-8", errors="replace")
        at += n
        inputs, policy_len, value_len = struct.unpack_from("<III", data, at)
        at += 12
        (tlen,) = struct.unpack_from("<I", data, at)
        at += 4
        text = data[at : at + tlen].decode("utf-8", errors="replace")
        at += tlen
        (nops,) = struct.unpack_from("<H", data, at)
        at += 2
        ops = []
        for _ in range(nops):
            kind = data[at]
            at += 1
            width = kinds.get(kind)
            if width is None:
                raise ValueError(f"operation kind {kind} is not part of {what}")
            fields = struct.unpack_from(f"<{width}I", data, at)
            at += 4 * width
            ops.append((kind, fields))
    except (IndexError, struct.error):
        raise ValueError("the file ends inside its header") from None
    return game, inputs, policy_len, value_len, text, ops, at


def _take(data: bytes, at: int, count: int) -> tuple:
    """``count`` little-endian ``f32`` from ``at`` (before the checksum), and
    the offset after them."""
    if at + 4 * count > len(data) - 8:
        raise ValueError("the file ends inside its parameters")
    return np.frombuffer(data, dtype="<f4", count=count, offset=at).astype(np.float32), at + 4 * count


def _fill_linear(lin: torch.nn.Linear, data: bytes, at: int) -> int:
    """Reads a ``Dense`` operation's parameters (the kit's input-major
    weights, then the bias) from ``at`` into ``lin``; the offset after them."""
    fin, fout = lin.in_features, lin.out_features
    a, at = _take(data, at, fin * fout + fout)
    lin.weight.copy_(torch.from_numpy(a[: fin * fout].reshape(fin, fout).T.copy()))
    lin.bias.copy_(torch.from_numpy(a[fin * fout :].copy()))
    return at


def mlp_from_bytes(data: bytes) -> tuple:
    """The :class:`MlpNet` and the free text of a weights file of format
    version 2 whose program is an MLP (``Input``, then ``Dense`` layers with
    ``Relu`` between them, then ``Output``): the inverse of :func:`to_bytes`
    for such a network, so that a trainer can start from a shipped MLP.

    Raises ``ValueError`` naming what is wrong: another magic, version or
    checksum, a truncated file, or a program that is not such an MLP."""
    mlp_kinds = {k: _FIELDS[k] for k in (INPUT, DENSE, RELU, OUTPUT)}
    _, inputs, policy_len, value_len, text, ops, at = _read(data, mlp_kinds, "an MLP")
    dense = [f for k, f in ops if k == DENSE]
    shape = [k for k, _ in ops]
    want = [INPUT] + [DENSE, RELU] * (len(dense) - 1) + [DENSE, OUTPUT]
    if not dense or shape != want or ops[0][1] != (0, inputs) or dense[-1][1] != policy_len + value_len:
        raise ValueError("the program is not an MLP of Input, Dense and Relu layers")
    widths = [inputs] + [f[1] for f in dense]
    if any(f[0] != w for f, w in zip(dense, widths)):
        raise ValueError("the dense layers' widths do not chain")
    net = MlpNet(inputs, widths[1:-1], policy_len, value_len)
    with torch.no_grad():
        for lin in net.layers:
            at = _fill_linear(lin, data, at)
    if at != len(data) - 8:
        raise ValueError("the file holds more parameters than its program uses")
    return net, text


def tower_from_bytes(data: bytes) -> tuple:
    """The Caravan :class:`TowerNet` and the free text of a weights file of
    format version 2 written by :func:`to_bytes` from one: the inverse of
    the export, so that a trainer can start from the shipped tower.

    The file holds each convolution with its batch norm folded in, so every
    batch norm of the network read back is the identity with the folded
    bias as its shift: in eval mode (statistics frozen, which is how the
    trainers that start from a file use it) it computes what the file does.
    The program must be exactly the graph of a Caravan tower of some
    width, depth and hidden size (those are read off the file).

    Raises ``ValueError`` naming what is wrong: another magic, version or
    checksum, a truncated file, another game, or another program."""
    game, inputs, policy_len, value_len, text, ops, at = _read(data, _FIELDS, "a tower")
    convs = [f for k, f in ops if k == CONV]
    dense = [f for k, f in ops if k == DENSE]
    if game != "caravan" or len(convs) < 2 or (len(convs) - 2) % 2 or not dense:
        raise ValueError("the program is not a Caravan tower")
    net = make_net("caravan", channels=convs[0][2], blocks=(len(convs) - 2) // 2, hidden=dense[0][1])
    if [(k, tuple(f)) for k, f, _ in net.graph()] != ops or (inputs, policy_len, value_len) != (
        net.spec.inputs,
        *heads(net),
    ):
        raise ValueError("the program is not a Caravan tower")
    # the parameters come in the graph's order: the stem and the blocks'
    # convolutions, the policy convolution, then the dense layers
    folded = [net.stem, *(c for block in net.blocks for c in block)]
    linears = [m for m in (net.features, net.before, net.after, net.value) if m is not None]
    with torch.no_grad():
        for kind, fields in ops:
            if kind == CONV:
                k, cin, cout = fields[0], fields[1], fields[2]
                w, at = _take(data, at, k * k * cin * cout)
                b, at = _take(data, at, cout)
                # the kit's [ky][kx][i][o] -> PyTorch [o][i][ky][kx]
                weight = torch.from_numpy(w.reshape(k, k, cin, cout).copy()).permute(3, 2, 0, 1)
                if folded:
                    conv, bn = folded.pop(0)
                    conv.weight.copy_(weight)
                    bn.running_mean.zero_()
                    bn.running_var.fill_(1.0)
                    bn.weight.fill_(float(np.sqrt(np.float32(1.0) + np.float32(bn.eps))))
                    bn.bias.copy_(torch.from_numpy(b.copy()))
                else:
                    net.policy_conv.weight.copy_(weight)
                    net.policy_conv.bias.copy_(torch.from_numpy(b.copy()))
            elif kind == DENSE:
                at = _fill_linear(linears.pop(0), data, at)
    if at != len(data) - 8:
        raise ValueError("the file holds more parameters than its program uses")
    net.eval()
    return net, text
