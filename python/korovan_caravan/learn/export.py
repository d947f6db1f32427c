"""Writes a network of :mod:`.nets` as a ``BGNN`` weights file of format
version 2 (``boardgame_kit::nn``: header, free text, the typed operations,
the parameters in order, an FNV-1a 64 checksum), refusing a non-finite
parameter."""

from __future__ import annotations

import struct

import numpy as np
import torch

from .nets import heads

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


def save(net: torch.nn.Module, game: str, path: str, text: str = "") -> int:
    """Writes the weights file to ``path`` (through a temporary file and a
    rename, so that a reader never sees half a file); returns its size."""
    import os

    data = to_bytes(net, game, text)
    tmp = f"{path}.tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)
    return len(data)
