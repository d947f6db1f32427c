"""Writes a network of :mod:`.nets` as a ``BGNN`` weights file of format
version 2 (``boardgame_kit::nn``: header, free text, the typed operations,
the parameters in order, an FNV-1a 64 checksum), refusing a non-finite
parameter."""

from __future__ import annotations

import struct

import numpy as np
import torch

from .nets import DENSE, INPUT, OUTPUT, RELU, MlpNet, heads

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
    inputs = net.spec.inputs if hasattr(net, "spec") else net.inputs
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


def mlp_from_bytes(data: bytes) -> tuple:
    """The :class:`MlpNet` and the free text of a weights file of format
    version 2 whose program is an MLP (``Input``, then ``Dense`` layers with
    ``Relu`` between them, then ``Output``): the inverse of :func:`to_bytes`
    for such a network, so that a trainer can start from a shipped MLP.

    Raises ``ValueError`` naming what is wrong: another magic, version or
    checksum, a truncated file, or a program that is not such an MLP."""
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
            width = {INPUT: 2, DENSE: 2, RELU: 0, OUTPUT: 1}.get(kind)
            if width is None:
                raise ValueError(f"operation kind {kind} is not part of an MLP")
            fields = struct.unpack_from(f"<{width}I", data, at)
            at += 4 * width
            ops.append((kind, fields))
    except (IndexError, struct.error):
        raise ValueError("the file ends inside its header") from None
    dense = [f for k, f in ops if k == DENSE]
    shape = [k for k, _ in ops]
    want = [INPUT] + [DENSE, RELU] * (len(dense) - 1) + [DENSE, OUTPUT]
    if not dense or shape != want or ops[0][1] != (0, inputs) or dense[-1][1] != policy_len + value_len:
        raise ValueError("the program is not an MLP of Input, Dense and Relu layers")
    widths = [inputs] + [f[1] for f in dense]
    if any(f[0] != w for f, w in zip(dense, widths)):
        raise ValueError("the dense layers' widths do not chain")
    net = MlpNet(inputs, widths[1:-1], policy_len, value_len)
    end = len(data) - 8
    with torch.no_grad():
        for lin, (fin, fout) in zip(net.layers, dense):
            count = fin * fout + fout
            if at + 4 * count > end:
                raise ValueError("the file ends inside its parameters")
            a = np.frombuffer(data, dtype="<f4", count=count, offset=at).astype(np.float32)
            at += 4 * count
            lin.weight.copy_(torch.from_numpy(a[: fin * fout].reshape(fin, fout).T.copy()))
            lin.bias.copy_(torch.from_numpy(a[fin * fout :].copy()))
    if at != end:
        raise ValueError("the file holds more parameters than its program uses")
    return net, text
