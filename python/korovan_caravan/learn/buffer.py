"""The replay buffer of :mod:`.expert_iteration`: the samples of the last
rounds, kept compact, and their form in a checkpoint.

A round's samples are the arrays ``self_play`` returns (``SAMPLE_KEYS``).
The network inputs and policy targets are mostly zeros, so they are kept as
each row's non-zero entries (:class:`Rows`); :class:`Window` joins the last
rounds and gives any batch back dense, exactly; :func:`pack` and
:func:`unpack` write a round into a checkpoint and read it back.
"""

from __future__ import annotations

import numpy as np

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
    """``pack``'s inverse."""
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
            raise ValueError(f"a checkpoint's round holds {k} in an unknown form {v[0]!r}")
    return out
