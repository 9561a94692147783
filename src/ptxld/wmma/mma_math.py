"""The arithmetic of mma.sync and wgmma.mma_async on whole matrices.

Numerics (ptxld's definition; the PTX ISA leaves the order and internal precision of the sum
open, and tensor cores accumulate with limited internal precision):

* f16, bf16, tf32, e4m3, e5m2 inputs: every product is exact (in float64), the K products are
  summed in float64 and C added, then the result is rounded once to nearest even into the
  D type. tf32 operands use only their 19 tf32 bits (the low 13 mantissa bits of the 32-bit
  container are ignored). Whenever the exact result is representable in the D type — e.g.
  small integer inputs — this equals what any summation order gives, hardware included.
* f64: each element is the exact A·B + C rounded once (.rn, or the .rz/.rm/.rp written).
* s8/u8/s4/u4: exact integer products and sum plus C; the s32 result wraps modulo 2^32, or with
  `.satfinite` clamps to [-2^31, 2^31-1].
* b1: popc(A row XOR B column) (`.xor.popc`) or popc(A AND B) (`.and.popc`) plus C, modulo 2^32.
"""
from __future__ import annotations

import ml_dtypes
import numpy as np

from ptxld.wmma import ops as wmma_ops
from ptxld.wmma import values

_FP8 = {"e4m3": ml_dtypes.float8_e4m3fn, "e5m2": ml_dtypes.float8_e5m2}
_S32_MIN = -(2 ** 31)


def to_float64(bits: np.ndarray, type_: str) -> np.ndarray:
    """Element bits of a floating type -> float64 (exact)."""
    if type_ in _FP8:
        return bits.astype(np.uint8).view(_FP8[type_]).astype(np.float64)
    return values.to_float64(bits, type_)


def product(a: np.ndarray, b: np.ndarray, c: np.ndarray, *, atype: str, btype: str, ctype: str,
            dtype: str, op: str | None = None, satfinite: bool = False,
            rounding: str | None = None, negate_a: bool = False,
            negate_b: bool = False) -> np.ndarray:
    """D bits (..., m, n) = A (..., m, k) · B (..., k, n) + C (..., m, n), all given as element
    bits, with any leading (batch) dimensions; `negate_a` / `negate_b` (wgmma's imm-scale-a/b =
    -1, floating types only) negate an operand."""
    if atype == "f64":
        if a.ndim > 2:               # exact rounding works on one product at a time
            return np.stack([product(x, y, z, atype=atype, btype=btype, ctype=ctype, dtype=dtype,
                                     rounding=rounding) for x, y, z in zip(a, b, c)])
        return wmma_ops._f64_mma(a, b, c, rounding or "rn")
    if atype in ("s8", "u8", "s4", "u4", "b1"):
        ai, bi = values.to_int64(a, atype), values.to_int64(b, btype)
        if op == "xor.popc":
            acc = ai.sum(axis=-1)[..., :, None] + bi.sum(axis=-2)[..., None, :] - 2 * (ai @ bi)
        else:                    # integer products; .and.popc is the product of bits
            acc = ai @ bi
        d = acc + values.to_int64(c, "s32")
        if satfinite:
            d = np.clip(d, _S32_MIN, -_S32_MIN - 1)
        else:
            d = (d - _S32_MIN) % (2 ** 32) + _S32_MIN
        return values.from_int64(d)
    af, bf = to_float64(a, atype), to_float64(b, btype)
    if negate_a:
        af = -af
    if negate_b:
        bf = -bf
    with np.errstate(all="ignore"):
        d = af @ bf + to_float64(c, ctype)
    return values.from_float64(d, dtype)
