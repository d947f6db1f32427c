"""What the trainers (:mod:`.expert_iteration`, :mod:`.ppo`) share about a
run: their usage error, the checks of ``--init``, ``--resume`` and
``--out``, an optimiser step that refuses a non-finite loss, files written
whole (a temporary file and a rename, so that a reader never sees half of
one) and the command line's exit codes."""

from __future__ import annotations

import os
import sys

import torch

from .export import write_file


class UsageError(Exception):
    """A bad setting, reported before any work starts."""


def check_files(init, out: str, resume: bool, max_init_bytes: int) -> None:
    """``--init`` a regular file of at most ``max_init_bytes``, ``--resume``
    with a checkpoint in ``out``, and ``out`` a writable directory (created
    when missing: the last check, so nothing is created for a bad setting)."""
    if init is not None:
        if not os.path.isfile(init):
            raise UsageError(f"--init {init} is not a regular file")
        if os.path.getsize(init) > max_init_bytes:
            raise UsageError(f"--init {init} is larger than {max_init_bytes} bytes")
    if resume and not os.path.isfile(os.path.join(out, "checkpoint.pt")):
        raise UsageError(f"--resume but {out}/checkpoint.pt does not exist")
    if os.path.exists(out) and not os.path.isdir(out):
        raise UsageError(f"--out {out} is not a directory")
    os.makedirs(out, exist_ok=True)
    if not os.path.isdir(out) or not os.access(out, os.W_OK):
        raise UsageError(f"--out {out} is not a writable directory")


def write_whole(directory: str, names, data: bytes) -> None:
    """``data`` written to each of ``names`` in ``directory``, each whole
    (:func:`.export.write_file`)."""
    for name in names:
        write_file(os.path.join(directory, name), data)


def optimizer_step(opt, params, loss: torch.Tensor, max_norm: float, where: str, what: str = "the loss") -> None:
    """One step of ``opt`` on ``loss``, the gradients of ``params`` clipped
    to the norm ``max_norm``. A loss that is not finite stops the run
    before anything changes: a ``RuntimeError`` saying ``where`` and
    ``what`` (nothing non-finite is ever written)."""
    if not torch.isfinite(loss):
        raise RuntimeError(f"{where}: {what} is not finite ({loss.item()}); nothing written")
    opt.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(params, max_norm)
    opt.step()


def save_checkpoint(state: dict, path: str) -> None:
    """``torch.save(state)`` to ``path``, whole."""
    torch.save(state, path + ".tmp")
    os.replace(path + ".tmp", path)


def run(parser, check, body, argv=None):
    """Parses ``argv`` with ``parser()``, checks the settings with
    ``check`` before any work, and returns ``body(settings)``; torch's
    global settings (deterministic algorithms, threads), which a run sets,
    are restored on return."""
    a = parser().parse_args(argv)
    check(a)
    deterministic, threads = torch.are_deterministic_algorithms_enabled(), torch.get_num_threads()
    try:
        return body(a)
    finally:
        torch.use_deterministic_algorithms(deterministic)
        torch.set_num_threads(threads)


def main(run, argv=None) -> int:
    """Runs ``run(argv)`` as a command: 0 done, 2 a usage error, 1 an error
    of the run (each said on standard error in one line)."""
    try:
        run(argv)
    except UsageError as e:
        print(f"usage error: {e}", file=sys.stderr)
        return 2
    except RuntimeError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0
