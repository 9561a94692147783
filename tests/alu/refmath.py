"""Independent reference arithmetic for the ALU tests: formats decoded with ``struct``/shifts,
exact values as ``Fraction``, rounding by walking neighbouring bit patterns (no code shared with
``ptxld.emu.alu``)."""
from __future__ import annotations

import math
import struct
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from hypothesis import strategies as st


@dataclass(frozen=True)
class Fmt:
    name: str
    bits: int
    step: int          # one ulp in the bit pattern (tf32 lives in the top 19 bits of 32)
    max_bits: int      # largest finite magnitude pattern
    inf_bits: int
    min_normal_bits: int


FMTS = {
    "f16": Fmt("f16", 16, 1, 0x7BFF, 0x7C00, 0x0400),
    "bf16": Fmt("bf16", 16, 1, 0x7F7F, 0x7F80, 0x0080),
    "f32": Fmt("f32", 32, 1, 0x7F7FFFFF, 0x7F800000, 0x00800000),
    "tf32": Fmt("tf32", 32, 1 << 13, 0x7F7FE000, 0x7F800000, 0x00800000),
    "f64": Fmt("f64", 64, 1, 0x7FEFFFFFFFFFFFFF, 0x7FF0000000000000, 0x0010000000000000),
}


def to_float(bits: int, fmt: str) -> float:
    """Raw bits -> Python float (exact)."""
    if fmt == "f16":
        return struct.unpack("<e", struct.pack("<H", bits))[0]
    if fmt == "bf16":
        return struct.unpack("<f", struct.pack("<I", bits << 16))[0]
    if fmt in ("f32", "tf32"):
        return struct.unpack("<f", struct.pack("<I", bits))[0]
    return struct.unpack("<d", struct.pack("<Q", bits))[0]


def sign_bit(fmt: str) -> int:
    return 1 << (FMTS[fmt].bits - 1)


def is_nan_bits(bits: int, fmt: str) -> bool:
    return math.isnan(to_float(bits, fmt))


def ref_round(x, fmt: str, mode: str, *, ftz: bool = False, zero_sign: int = 0) -> int:
    """Bits of the exact value ``x`` (Fraction, or float inf/nan) rounded to ``fmt``.
    ``zero_sign`` gives the sign bit for an exactly-zero x."""
    F = FMTS[fmt]
    sb = sign_bit(fmt)
    if isinstance(x, float):
        if math.isnan(x):
            return -1                                        # "some NaN"
        if math.isinf(x):
            return F.inf_bits | (sb if x < 0 else 0)
        if x == 0:
            return sb if math.copysign(1.0, x) < 0 else 0
        x = Fraction(x)
    if x == 0:
        return zero_sign and sb
    neg = x < 0
    a = -x if neg else x
    val = lambda k: Fraction(to_float(k, fmt))               # noqa: E731
    # floor on magnitude by walking patterns from a nearby start
    try:
        k = min(_start(float(a), fmt), F.max_bits)
    except OverflowError:                                     # beyond float64: clamp
        k = F.max_bits
    while k > 0 and val(k) > a:
        k -= F.step
    while k + F.step <= F.max_bits and val(k + F.step) <= a:
        k += F.step
    lo_k = k
    if val(lo_k) == a:
        res = lo_k
    else:
        lo_v = val(lo_k)
        if lo_k == F.max_bits:
            e = math.frexp(to_float(F.max_bits, fmt))[1]
            hi_v, hi_k = Fraction(2) ** e, F.inf_bits         # virtual next value past max
        else:
            hi_k = lo_k + F.step
            hi_v = val(hi_k)
        up_dir = {"rz": False, "rm": neg, "rp": not neg}.get(mode)
        if up_dir is None:
            d_lo, d_hi = a - lo_v, hi_v - a
            if d_lo != d_hi:
                up_dir = d_hi < d_lo
            elif mode == "rna":
                up_dir = True
            else:
                up_dir = ((lo_k // F.step) & 1) == 1
        res = hi_k if up_dir else lo_k
    if ftz and 0 < res < F.min_normal_bits:
        res = 0
    return res | (sb if neg else 0)


def _start(a: float, fmt: str) -> int:
    """A bit pattern within a few ulps of a >= 0 (clamped by the caller)."""
    with np.errstate(over="ignore"):
        if fmt == "f64":
            return struct.unpack("<Q", struct.pack("<d", a))[0]
        if fmt == "f16":
            return int(np.array(a).astype(np.float16).view(np.uint16))
        k32 = int(np.array(a).astype(np.float32).view(np.uint32))
    if fmt == "bf16":
        return k32 >> 16
    if fmt == "tf32":
        return k32 & ~((1 << 13) - 1)
    return k32


# -- Hypothesis strategies over raw bits -----------------------------------------------------

def special_bits(fmt: str) -> list[int]:
    F = FMTS[fmt]
    sb = sign_bit(fmt)
    one = {"f16": 0x3C00, "bf16": 0x3F80, "f32": 0x3F800000, "tf32": 0x3F800000,
           "f64": 0x3FF0000000000000}[fmt]
    base = [0, F.step, F.min_normal_bits - F.step, F.min_normal_bits, F.max_bits, F.inf_bits,
            F.inf_bits | (F.inf_bits >> 1), one, one + F.step, one - F.step]
    return base + [b | sb for b in base]


def float_bits(fmt: str):
    bits = FMTS[fmt].bits
    return st.one_of(st.sampled_from(special_bits(fmt)), st.integers(0, (1 << bits) - 1))


def bits_array(values, fmt: str) -> np.ndarray:
    return np.array(values, dtype=f"u{FMTS[fmt].bits // 8}")
