"""PTX types as the ALU sees them (records from `ptxld.spec.types`) and raw-bit helpers.

Every value crossing the ALU boundary is raw bits: ``np.uint8/16/32/64`` by width, ``np.bool_`` for
``.pred``, shape ``(n, 2)`` uint64 for ``.b128`` (element 0 = low 64 bits).
"""
from __future__ import annotations

import numpy as np

from ptxld.spec.types import TYPES, PtxType

__all__ = ["TYPES", "PtxType", "ptype", "coerce", "signed_view", "unsigned_dtype", "signed_dtype",
           "split_lanes", "join_lanes"]


def ptype(name: str) -> PtxType:
    return TYPES[name if name.startswith(".") else "." + name]


def coerce(x, t: PtxType) -> np.ndarray:
    """Raw bits of any integer/bool array → the canonical dtype of ``t`` (wider integers are chopped)."""
    a = np.atleast_1d(np.asarray(x))
    if t.kind == "pred":
        return a.astype(np.bool_, copy=False)
    if t.bits == 128:
        return a.astype(np.uint64, copy=False).reshape(-1, 2)
    if a.dtype.kind == "f":
        a = a.view(f"u{a.dtype.itemsize}")
    elif a.dtype.kind == "b":
        a = a.astype(np.uint8)
    return a.astype(t.dtype, copy=False)


def signed_view(bits: np.ndarray) -> np.ndarray:
    return bits.view(f"i{bits.dtype.itemsize}")


def unsigned_dtype(width: int) -> np.dtype:
    return np.dtype(f"u{width // 8}")


def signed_dtype(width: int) -> np.dtype:
    return np.dtype(f"i{width // 8}")


def split_lanes(bits: np.ndarray, lanes: int, lane_bits: int) -> list[np.ndarray]:
    """Packed register → list of lane bit arrays, lane 0 from the low-order bits (§5.2.5)."""
    wide = bits.astype(np.uint64)
    mask = np.uint64((1 << lane_bits) - 1)
    dt = unsigned_dtype(lane_bits)
    return [((wide >> np.uint64(i * lane_bits)) & mask).astype(dt) for i in range(lanes)]


def join_lanes(parts: list[np.ndarray], lane_bits: int) -> np.ndarray:
    acc = np.zeros(parts[0].shape, dtype=np.uint64)
    mask = np.uint64((1 << lane_bits) - 1)
    for i, p in enumerate(parts):
        acc |= (p.astype(np.uint64) & mask) << np.uint64(i * lane_bits)
    return acc.astype(unsigned_dtype(lane_bits * len(parts)))
