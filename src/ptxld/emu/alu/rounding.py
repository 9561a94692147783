"""Exact IEEE rounding onto binary formats, vectorised.

Values are carried as float64. A result that float64 cannot hold exactly is carried as an
unevaluated pair ``hi + lo`` with ``hi = RN64(x)`` and ``lo = x - hi`` exact (from the 2Sum
error-free transform). Rounding such a pair to a narrower grid is exact in every mode: grid
points of a format with p <= 53 bits are float64 numbers, so ``x`` lies strictly inside the grid
interval that contains ``hi`` unless ``hi`` is itself a grid point or midpoint, where the sign
of ``lo`` settles the direction (IEEE 754-2019 §4.3; PTX ISA §9.7.3 rounding modifiers).

Modes: "rn" nearest-even, "rna" nearest ties-away (cvt.rna.tf32), "rz", "rm", "rp".
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import ml_dtypes
import numpy as np

MODES = ("rn", "rna", "rz", "rm", "rp")


@dataclass(frozen=True)
class Format:
    name: str
    p: int          # significand bits including the hidden bit
    emin: int       # exponent of the smallest normal
    emax: int
    bits: int
    has_inf: bool = True
    canonical_nan: int = 0

    @property
    def max_finite(self) -> float:
        return math.ldexp(2.0 - math.ldexp(1.0, 1 - self.p), self.emax) if self.has_inf else \
            _FN_MAX[self.name]

    @property
    def min_normal(self) -> float:
        return math.ldexp(1.0, self.emin)


_FN_MAX = {"e4m3": 448.0}

F16 = Format("f16", 11, -14, 15, 16, canonical_nan=0x7FFF)
BF16 = Format("bf16", 8, -126, 127, 16, canonical_nan=0x7FFF)
TF32 = Format("tf32", 11, -126, 127, 32, canonical_nan=0x7FFFE000)   # 19 bits in a 32-bit container
F32 = Format("f32", 24, -126, 127, 32, canonical_nan=0x7FFFFFFF)
F64 = Format("f64", 53, -1022, 1023, 64, canonical_nan=0x7FFFFFFFFFFFFFFF)
E4M3 = Format("e4m3", 4, -6, 8, 8, has_inf=False, canonical_nan=0x7F)
E5M2 = Format("e5m2", 3, -14, 15, 8, canonical_nan=0x7F)

FORMATS = {f.name: f for f in (F16, BF16, TF32, F32, F64, E4M3, E5M2)}


def decode(bits: np.ndarray, fmt: Format) -> np.ndarray:
    """Raw bits → float64 values (exact)."""
    if fmt is F16:
        return bits.astype(np.uint16, copy=False).view(np.float16).astype(np.float64)
    if fmt is BF16:
        return (bits.astype(np.uint32) << np.uint32(16)).view(np.float32).astype(np.float64)
    if fmt is F32 or fmt is TF32:
        return bits.astype(np.uint32, copy=False).view(np.float32).astype(np.float64)
    if fmt is F64:
        return bits.astype(np.uint64, copy=False).view(np.float64).copy()
    if fmt is E4M3:
        return bits.astype(np.uint8, copy=False).view(ml_dtypes.float8_e4m3fn).astype(np.float64)
    if fmt is E5M2:
        return bits.astype(np.uint8, copy=False).view(ml_dtypes.float8_e5m2).astype(np.float64)
    raise ValueError(fmt.name)


def encode(values: np.ndarray, fmt: Format) -> np.ndarray:
    """float64 values already on ``fmt``'s grid → raw bits; NaN becomes the canonical NaN."""
    v = np.asarray(values, dtype=np.float64)
    nan = np.isnan(v)
    with np.errstate(over="ignore", invalid="ignore"):
        if fmt is F16:
            out = v.astype(np.float16).view(np.uint16)
        elif fmt is BF16:
            out = (v.astype(np.float32).view(np.uint32) >> np.uint32(16)).astype(np.uint16)
        elif fmt is F32 or fmt is TF32:
            out = v.astype(np.float32).view(np.uint32)
        elif fmt is F64:
            out = v.view(np.uint64).copy()
        elif fmt is E4M3:
            out = v.astype(ml_dtypes.float8_e4m3fn).view(np.uint8)
        elif fmt is E5M2:
            out = v.astype(ml_dtypes.float8_e5m2).view(np.uint8)
        else:
            raise ValueError(fmt.name)
    if nan.any():
        out = out.copy()
        out[nan] = fmt.canonical_nan
    return out


def two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Knuth's 2Sum: s = RN(a+b), e = (a+b) - s exactly (finite, non-overflowing inputs)."""
    with np.errstate(invalid="ignore", over="ignore"):
        s = a + b
        bb = s - a
        e = (a - (s - bb)) + (b - bb)
    e = np.where(np.isfinite(s), e, 0.0)
    return s, e


def flush_subnormal(v: np.ndarray, fmt: Format) -> np.ndarray:
    """.ftz: subnormal values become sign-preserving zero (PTX ISA §9.7.3)."""
    tiny = (np.abs(v) < fmt.min_normal) & (v != 0)
    if tiny.any():
        v = np.where(tiny, np.copysign(0.0, v), v)
    return v


def round_to_grid(hi, lo, fmt: Format, mode: str, *, satfinite: bool = False) -> np.ndarray:
    """Round the exact value hi+lo (see module doc) to ``fmt`` in ``mode``; returns float64 on the grid.

    Overflow follows IEEE per mode (nearest → inf, toward zero → max finite, ...); ``satfinite``
    clamps to ±max finite instead (formats without inf give NaN on overflow unless satfinite).
    """
    hi = np.asarray(hi, dtype=np.float64)
    out = hi.copy()
    m = np.isfinite(hi) & (hi != 0)
    if not m.any():
        return out
    h = hi[m]
    l = np.zeros_like(h) if lo is None else np.asarray(lo, dtype=np.float64)[m]
    neg = h < 0
    a = np.abs(h)
    la = np.where(neg, -l, l)                      # work on magnitudes
    f, e = np.frexp(a)                             # a = f * 2^e, f in [0.5, 1)
    e = e - 1 - ((f == 0.5) & (la < 0))            # binade of the exact value
    qexp = np.maximum(e, fmt.emin) - (fmt.p - 1)
    y = np.ldexp(a, -qexp)                         # exact scaling
    t = np.floor(y)
    frac = y - t
    below = (frac == 0) & (la < 0)                 # exact value just under the integer t
    fl = np.where(below, t - 1, t)                 # floor of the exact scaled magnitude
    inexact = (frac != 0) | (la != 0)
    d = np.where(below, 1.0, frac)                 # fraction above fl (1.0 stands for 1-tiny)
    tie = (frac == 0.5) & (la == 0)
    over_half = (d > 0.5) | ((frac == 0.5) & (la > 0))
    if mode == "rn":
        up = over_half | (tie & (np.fmod(fl, 2) == 1))
    elif mode == "rna":
        up = over_half | tie
    elif mode == "rz":
        up = np.zeros_like(inexact)
    elif mode == "rm":
        up = inexact & neg
    elif mode == "rp":
        up = inexact & ~neg
    else:
        raise ValueError(mode)
    mag = np.ldexp(fl + up, qexp)
    # overflow: beyond max finite after rounding
    big = mag > fmt.max_finite
    if big.any():
        toward_inf = {"rn": True, "rna": True, "rz": False}.get(mode)
        inf_dir = np.full(mag.shape, toward_inf) if toward_inf is not None else \
            (neg if mode == "rm" else ~neg)
        if satfinite:
            ovf = np.full(mag.shape, fmt.max_finite)
        elif fmt.has_inf:
            ovf = np.where(inf_dir, np.inf, fmt.max_finite)
        else:
            ovf = np.where(inf_dir, np.nan, fmt.max_finite)
        mag = np.where(big, ovf, mag)
    out[m] = np.where(neg, -mag, mag)
    if satfinite:
        out = np.where(np.isinf(out), np.copysign(fmt.max_finite, out), out)
    return out


def round_pair_f64(hi: np.ndarray, lo: np.ndarray, mode: str, exact_overflow=None) -> np.ndarray:
    """Round hi+lo to float64 in ``mode`` given hi = RN64(hi+lo) and exact lo.

    ``exact_overflow`` marks elements whose exact value is finite but overflowed to ±inf in RN64.
    """
    out = hi.copy()
    if mode == "rm":
        out = np.where(lo < 0, np.nextafter(hi, -np.inf), out)
    elif mode == "rp":
        out = np.where(lo > 0, np.nextafter(hi, np.inf), out)
    elif mode == "rz":
        out = np.where((lo != 0) & ((lo < 0) != (hi < 0)), np.nextafter(hi, 0.0), out)
    if exact_overflow is not None and mode != "rn" and exact_overflow.any():
        mx = np.finfo(np.float64).max
        pos = hi > 0
        keep_inf = {"rz": np.zeros_like(pos), "rm": ~pos, "rp": pos}[mode]
        out = np.where(exact_overflow & ~keep_inf, np.where(pos, mx, -mx), out)
    return out


# -- exact rational fallback (per element; used for f64 results float64 cannot pair up) ------

def round_fraction(x: Fraction, fmt: Format, mode: str) -> float:
    """Round an exact rational to ``fmt`` (as a Python float). Zero results are +0.0."""
    if x == 0:
        return 0.0
    neg = x < 0
    n, d = abs(x.numerator), x.denominator
    e = n.bit_length() - d.bit_length()
    if (n << max(0, -e)) < (d << max(0, e)):
        e -= 1                                       # 2^e <= |x| < 2^(e+1)
    qexp = max(e, fmt.emin) - (fmt.p - 1)
    num, den = (n, d << qexp) if qexp >= 0 else (n << -qexp, d)
    t, r = divmod(num, den)
    if r:
        if mode == "rn":
            t += (2 * r > den) or (2 * r == den and t & 1)
        elif mode == "rna":
            t += 2 * r >= den
        elif mode == "rm":
            t += neg
        elif mode == "rp":
            t += not neg
    if t and t.bit_length() - 1 + qexp > fmt.emax:
        mag = math.inf
    else:
        mag = math.ldexp(t, qexp)
    if mag > fmt.max_finite:
        toward_inf = {"rn": True, "rna": True, "rz": False, "rm": neg, "rp": not neg}[mode]
        mag = (math.inf if fmt.has_inf else math.nan) if toward_inf else fmt.max_finite
    return -mag if neg else mag


def exact_f64(fn, *cols: np.ndarray, fmt: Format = F64, mode: str = "rn") -> np.ndarray:
    """Apply ``fn`` (Fractions -> Fraction, or a float for special cases) element-wise and round."""
    out = np.empty(cols[0].shape, dtype=np.float64)
    for i, vals in enumerate(zip(*(c.tolist() for c in cols))):
        r = fn(*vals)
        out[i] = round_fraction(r, fmt, mode) if isinstance(r, Fraction) else r
    return out
