"""PTX fundamental types as raw bits: widths, NumPy storage, Table 28 extension, immediates.

Every register holds raw bits: uint8/16/32/64 by its declared width, bool for `.pred`, and a
(n, 2) uint64 array (low word first) for `.b128`."""
from __future__ import annotations

import struct

import numpy as np

from ..ptx.nodes import Float, Int
from ..spec.types import TYPES

WIDTH = {name: t.bits for name, t in TYPES.items()}

UINT = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}
SINT = {8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64}
FLOAT = {16: np.float16, 32: np.float32, 64: np.float64}


def width(t: str) -> int:
    return WIDTH[t]


def is_signed(t: str) -> bool:
    return t[1] == "s" and t[2:].isdigit()


def is_float(t: str) -> bool:
    return t.startswith((".f", ".bf", ".tf", ".e"))


def storage(t: str):
    """NumPy dtype of raw bits for a type (None for 128 bits)."""
    w = WIDTH[t]
    if w == 1:
        return np.bool_
    return UINT.get(w)


def zeros(t_or_width, n: int) -> np.ndarray:
    w = t_or_width if isinstance(t_or_width, int) else WIDTH[t_or_width]
    if w == 1:
        return np.zeros(n, np.bool_)
    if w == 128:
        return np.zeros((n, 2), np.uint64)
    return np.zeros(n, UINT[w])


def convert_width(bits: np.ndarray, from_type: str, to_width: int) -> np.ndarray:
    """Resize raw bits of `from_type` to a register of `to_width` bits: sign-extend for signed
    integer types, zero-extend otherwise (PTX Table 28), truncate when narrower (Table 27)."""
    fw = WIDTH[from_type]
    if fw == to_width:
        return bits
    if to_width == 1 or fw == 1:
        return bits != 0 if to_width == 1 else bits.astype(UINT[to_width])
    if to_width == 128:
        lo = bits.astype(np.uint64) if not is_signed(from_type) else \
            bits.view(SINT[fw]).astype(np.int64).view(np.uint64)
        out = np.empty((bits.shape[0], 2), np.uint64)
        out[:, 0] = lo
        out[:, 1] = np.where(lo.view(np.int64) < 0, np.uint64(~0 & (2**64 - 1)), np.uint64(0)) \
            if is_signed(from_type) else 0
        return out
    if fw == 128:
        return bits[:, 0].astype(UINT[to_width])
    if to_width > fw and is_signed(from_type):
        return bits.view(SINT[fw]).astype(SINT[to_width]).view(UINT[to_width])
    return bits.astype(UINT[to_width])


def int_bits(value: int, w: int) -> int:
    return value & ((1 << w) - 1)


def immediate_bits(op, t: str):
    """Raw bits (Python int, or bool for .pred) of an Int/Float literal used as type `t`."""
    w = WIDTH[t]
    if w == 1:
        return bool(op.value)
    if isinstance(op, Float):
        if op.bits is not None and (op.width == w or not is_float(t)):
            return int_bits(op.bits, w) if op.width >= w else op.bits
        if is_float(t):
            return float_bits(float(op.value), t)
        return int_bits(int(op.value), w)
    if isinstance(op, Int):
        if is_float(t):
            return float_bits(float(op.value), t)
        return int_bits(int(op.value), w)
    raise TypeError(f"not a literal: {op!r}")


def float_bits(x: float, t: str) -> int:
    w = WIDTH[t]
    if t in (".f64",):
        return struct.unpack("<Q", struct.pack("<d", x))[0]
    if t in (".f32", ".tf32"):
        return int(np.array(x, np.float64).astype(np.float32).view(np.uint32))
    if t == ".f16":
        return int(np.array(x, np.float64).astype(np.float16).view(np.uint16))
    if t == ".bf16":
        import ml_dtypes
        return int(np.array(x, np.float32).astype(ml_dtypes.bfloat16).view(np.uint16))
    if t in (".f16x2",):
        h = int(np.array(x, np.float64).astype(np.float16).view(np.uint16))
        return h | (h << 16)
    return int_bits(int(x), w)


def full(value, t_or_width, n: int) -> np.ndarray:
    """A register-shaped array holding the same raw bits in every thread."""
    w = t_or_width if isinstance(t_or_width, int) else WIDTH[t_or_width]
    if w == 1:
        return np.full(n, bool(value))
    if w == 128:
        out = np.empty((n, 2), np.uint64)
        out[:, 0] = value & (2**64 - 1)
        out[:, 1] = value >> 64
        return out
    return np.full(n, value, UINT[w])
