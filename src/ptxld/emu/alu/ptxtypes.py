"""PTX types as the ALU sees them: width, kind, raw-bit NumPy dtype (PTX ISA §5.2.1, §5.2.3, §5.2.5).

Every value crossing the ALU boundary is raw bits: ``np.uint8/16/32/64`` by width, ``np.bool_`` for
``.pred``, shape ``(n, 2)`` uint64 for ``.b128`` (element 0 = low 64 bits).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class PtxType:
    name: str        # ".s32"
    bits: int        # container width
    kind: str        # "b" bits, "u", "s", "f" float, "pred", "packed" (lanes of ``lane``)
    lane: str = ""   # element type of a packed type, e.g. ".f16" for ".f16x2"
    lanes: int = 1

    @property
    def dtype(self) -> np.dtype:
        if self.kind == "pred":
            return np.dtype(np.bool_)
        return np.dtype(f"u{min(self.bits, 64) // 8}")

    @property
    def signed(self) -> bool:
        return self.kind == "s"


def _table() -> dict[str, PtxType]:
    t: dict[str, PtxType] = {".pred": PtxType(".pred", 1, "pred")}
    for w in (8, 16, 32, 64):
        for k in "bus":
            t[f".{k}{w}"] = PtxType(f".{k}{w}", w, k)
    t[".b128"] = PtxType(".b128", 128, "b")
    for name, w in ((".f16", 16), (".bf16", 16), (".tf32", 32), (".f32", 32), (".f64", 64),
                    (".e4m3", 8), (".e5m2", 8)):
        t[name] = PtxType(name, w, "f")
    for name, lane, n in ((".f16x2", ".f16", 2), (".bf16x2", ".bf16", 2), (".u16x2", ".u16", 2),
                          (".s16x2", ".s16", 2), (".u8x4", ".u8", 4), (".s8x4", ".s8", 4),
                          (".e4m3x2", ".e4m3", 2), (".e5m2x2", ".e5m2", 2)):
        t[name] = PtxType(name, 16 * n if "16" in lane else 8 * n, "packed", lane, n)
    return t


TYPES: dict[str, PtxType] = _table()


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
