"""Floating-point arithmetic (PTX ISA §9.7.3 f32/f64, §9.7.4 half precision, §9.7.5 mixed).

Inputs are decoded to float64 exactly; results are formed as exact values or exact ``hi+lo``
pairs (see ``rounding``) and rounded once to the destination format in the requested mode.
f64 results that need more than 2Sum (fma, directed mul/div/sqrt) use exact rationals per element.
NaN results are the canonical NaN of the format (f32 0x7fffffff, f16/bf16 0x7fff).
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from ptxld.emu.alu import fastround
from ptxld.emu.alu import rounding as round_ops
from ptxld.emu.alu.ptxtypes import TYPES, PtxType, join_lanes, split_lanes

FMT = {".f16": round_ops.F16, ".bf16": round_ops.BF16, ".f32": round_ops.F32, ".f64": round_ops.F64, ".tf32": round_ops.TF32,
       ".e4m3": round_ops.E4M3, ".e5m2": round_ops.E5M2}
ROUND_QUALS = (".rn", ".rz", ".rm", ".rp")
FLOAT_TYPES = (".f32", ".f64", ".f16", ".f16x2", ".bf16", ".bf16x2")


def lane_type(t: str) -> PtxType:
    pt = TYPES[t]
    return TYPES[pt.lane] if pt.kind == "packed" else pt


def over_lanes(t: str, fn):
    """Lift a function on scalar float bits over a packed .f16x2/.bf16x2 register (lane 0 low)."""
    pt = TYPES[t]
    if pt.kind != "packed":
        return fn

    def run(*srcs):
        parts = [split_lanes(s, pt.lanes, 16) if s.dtype == pt.dtype else [s] * pt.lanes
                 for s in srcs]
        outs = [fn(*(p[i] for p in parts)) for i in range(pt.lanes)]
        if isinstance(outs[0], tuple):
            return tuple(join_lanes([o[k] for o in outs], 16) for k in range(len(outs[0])))
        return join_lanes(outs, 16)
    return run


def load(bits: np.ndarray, fmt: round_ops.Format, ftz: bool) -> np.ndarray:
    v = round_ops.decode(bits, fmt)
    return round_ops.flush_subnormal(v, fmt) if ftz else v


def store(v: np.ndarray, fmt: round_ops.Format, *, ftz=False, sat=False, relu=False) -> np.ndarray:
    """Final touches on values already on the grid, then raw bits."""
    if ftz:
        v = round_ops.flush_subnormal(v, fmt)
    if sat:  # clamp to [0, 1], NaN -> +0 (§9.7.3 .sat)
        v = np.where(np.isnan(v), 0.0, np.clip(v, 0.0, 1.0))
        v = np.where(v == 0, 0.0, v)
    if relu:  # negative -> +0, NaN stays NaN (canonical) (§9.7.4 fma.relu)
        v = np.where(v < 0, 0.0, v)
    return round_ops.encode(v, fmt)


# -- exact f64 fallbacks -------------------------------------------------------------------

def _zero_sum_sign(p_neg: bool, c: float, mode: str) -> float:
    both_neg = p_neg and math.copysign(1.0, c) < 0
    both_pos = not p_neg and math.copysign(1.0, c) > 0
    if both_neg or (mode == "rm" and not both_pos):
        return -0.0
    return 0.0


def _fma_exact(mode):
    def f(a, b, c):
        if not (math.isfinite(a) and math.isfinite(b) and math.isfinite(c)):
            if math.isinf(c) and math.isfinite(a) and math.isfinite(b):
                return c
            return a * b + c           # inf/NaN propagation as IEEE
        r = Fraction(a) * Fraction(b) + Fraction(c)
        if r == 0:
            p_neg = (math.copysign(1.0, a) * math.copysign(1.0, b)) < 0
            if a * b == 0 or Fraction(a) * Fraction(b) == 0:
                return _zero_sum_sign(p_neg, c, mode)
            return -0.0 if mode == "rm" else 0.0
        return r
    return f


def _mul_exact(a, b):
    if a == 0 or b == 0 or not (math.isfinite(a) and math.isfinite(b)):
        return a * b
    return Fraction(a) * Fraction(b)


def _div_exact(a, b):
    if a == 0 or b == 0 or not (math.isfinite(a) and math.isfinite(b)):
        return a / b if b != 0 else (math.nan if (a == 0 or math.isnan(a)) else
                                     math.copysign(math.inf, a) * math.copysign(1.0, b))
    return Fraction(a) / Fraction(b)


def _sqrt_exact(a):
    if a <= 0 or not math.isfinite(a):
        return math.sqrt(a) if a >= 0 else (a if a == 0 else math.nan)
    fr = Fraction(a)
    k = 80 + max(0, fr.denominator.bit_length())     # scale so the root has >= 80 bits
    scaled = fr * (1 << (2 * k))
    n = scaled.numerator // scaled.denominator
    s = math.isqrt(n)
    exact = s * s == scaled
    return Fraction(2 * s + (0 if exact else 1), 1 << (k + 1))


def round_once(v: np.ndarray, fmt: round_ops.Format, mode: str) -> np.ndarray:
    """float64 values rounded once to ``fmt`` in ``mode`` (values on the grid, as float64): a
    cast and at most one grid step for f32/f16/bf16 (``fastround``), else ``round_to_grid``."""
    if fastround.supported(fmt) and mode != "rna":
        return round_ops.decode(fastround.round_bits(np.asarray(v, np.float64), fmt, mode), fmt)
    return round_ops.round_to_grid(v, None, fmt, mode)


# -- the arithmetic core -------------------------------------------------------------------

def arith(kind: str, fmt: round_ops.Format, mode: str = "rn", *, ftz=False, sat=False, relu=False):
    """add/sub/mul/fma on raw bits of ``fmt`` with exact rounding in ``mode``: f32, f16 and bf16
    through ``fastround`` (float64 with round-to-odd), others through ``arith_exact``."""
    if fastround.supported(fmt) and mode != "rna":
        return fastround.arith(kind, fmt, mode, load, store, ftz=ftz, sat=sat, relu=relu)
    return arith_exact(kind, fmt, mode, ftz=ftz, sat=sat, relu=relu)


def arith_exact(kind: str, fmt: round_ops.Format, mode: str = "rn", *, ftz=False, sat=False, relu=False):
    """The reference: exact values or ``hi+lo`` pairs rounded once by ``rounding.round_to_grid``
    (and exact rationals for f64 fma and directed f64 mul)."""
    def run(*bits):
        v = [load(b, fmt, ftz) for b in bits]
        if fmt is round_ops.F64:
            out = _arith_f64(kind, mode, *v)
        else:
            if kind == "mul":
                hi, lo = v[0] * v[1], None                    # exact: <= 48-bit product
                out = round_ops.round_to_grid(hi, lo, fmt, mode)
            else:
                if kind == "fma":
                    x, y = v[0] * v[1], v[2]                  # exact product
                else:
                    x, y = v[0], (v[1] if kind == "add" else -v[1])
                hi, lo = round_ops.two_sum(x, y)
                out = round_ops.round_to_grid(hi, lo, fmt, mode)
                out = _exact_zero_sign(out, hi, x, y, mode)
        return store(out, fmt, ftz=ftz, sat=sat, relu=relu)
    return run


def _exact_zero_sign(out, hi, x, y, mode):
    """IEEE 754 §6.3: an exact zero sum is +0 except in rm (-0); x + x keeps x's sign."""
    if mode != "rm":
        return out
    z = (hi == 0) & ~((x == 0) & (y == 0) & ~np.signbit(x) & ~np.signbit(y))
    return np.where(z, -0.0, out)


def _arith_f64(kind, mode, *v):
    if kind == "fma":
        return round_ops.exact_f64(_fma_exact(mode), *v, mode=mode)
    if kind == "mul":
        return v[0] * v[1] if mode == "rn" else round_ops.exact_f64(_mul_exact, *v, mode=mode)
    x, y = v[0], (v[1] if kind == "add" else -v[1])
    hi, lo = round_ops.two_sum(x, y)
    ovf = np.isinf(hi) & np.isfinite(x) & np.isfinite(y)
    out = round_ops.round_pair_f64(hi, lo, mode, ovf)
    return _exact_zero_sign(out, hi, x, y, mode)


def divide(fmt: round_ops.Format, mode: str, *, ftz=False):
    """Correctly rounded division. For p <= 24 the float64 quotient q is within 2^-53 relative
    of a/b while a non-exact quotient is >= 2^-49 relative away from any grid point or midpoint,
    so rounding q alone is exact in every mode."""
    def run(a, b):
        x, y = load(a, fmt, ftz), load(b, fmt, ftz)
        if fmt is round_ops.F64:
            out = x / y if mode == "rn" else round_ops.exact_f64(_div_exact, x, y, mode=mode)
        else:
            out = round_once(x / y, fmt, mode)
        return store(out, fmt, ftz=ftz)
    return run


def sqrt(fmt: round_ops.Format, mode: str, *, ftz=False):
    """Correctly rounded sqrt; the f32 argument of ``divide`` holds with 2^-51 for roots."""
    def run(a):
        x = load(a, fmt, ftz)
        if fmt is round_ops.F64:
            out = np.sqrt(x) if mode == "rn" else round_ops.exact_f64(_sqrt_exact, x, mode=mode)
        else:
            out = round_once(np.sqrt(x), fmt, mode)
        return store(out, fmt, ftz=ftz)
    return run


def div_approx_f32(ftz: bool):
    """div.approx.f32 = a * (1/b) (§9.7.3.8): 2 ulp for |b| in [2^-126, 2^126]; for
    2^126 < |b| < 2^128 the result is 0 for finite a and NaN for infinite a. Values here are
    a correctly rounded quotient, well inside the bound, with the stated out-of-range rule."""
    def run(a, b):
        x, y = load(a, round_ops.F32, ftz), load(b, round_ops.F32, ftz)
        q = round_once(x / y, round_ops.F32, "rn")
        big = (np.abs(y) > 2.0 ** 126) & np.isfinite(y)
        q = np.where(big, np.where(np.isinf(x), np.nan, np.copysign(0.0, x) * np.copysign(1.0, y)), q)
        return store(q, round_ops.F32, ftz=ftz)
    return run


# -- approximate transcendental functions --------------------------------------------------

def _rsqrt(x):
    return 1.0 / np.sqrt(x)


APPROX = {  # name -> float64 function; the float64 result is rounded once to the destination
    "ex2": np.exp2, "lg2": np.log2, "sin": np.sin, "cos": np.cos, "tanh": np.tanh,
    "rsqrt": _rsqrt, "rcp": lambda x: 1.0 / x, "sqrt": np.sqrt,
}

# Maximum errors the PTX ISA states for the .approx forms (§9.7.3.x); the values produced here
# are float64 results rounded to nearest, i.e. <= 0.5 ulp + 2^-52 relative, inside every bound.
APPROX_BOUNDS = {
    "ex2.f32": "max relative error 2^-22.5 (|x| where result is normal)",
    "lg2.f32": "max absolute error 2^-22.6 for mantissa in [0.5, 2]",
    "sin.f32": "max absolute error 2^-20.5 in [-100pi, 100pi]",
    "cos.f32": "max absolute error 2^-20.5 in [-100pi, 100pi]",
    "tanh.f32": "max relative error 2^-11",
    "rsqrt.f32": "max relative error 2^-22.9",
    "rcp.f32": "max 1 ulp",
    "sqrt.f32": "max relative error 2^-23",
    "ex2.f16": "max relative error 2^-9.9",
    "tanh.f16": "max relative error 2^-10.987",
}


def approx(name: str, fmt: round_ops.Format, *, ftz=False):
    f = APPROX[name]

    def run(a):
        x = load(a, fmt, ftz)
        return store(round_once(f(x), fmt, "rn"), fmt, ftz=ftz)
    return run


# -- min / max -----------------------------------------------------------------------------

def minmax(fmt: round_ops.Format, is_max: bool, *, ftz=False, nan=False, xorsign_abs=False, relu=False):
    """§9.7.3.10/11: one NaN operand -> the other; both NaN -> canonical NaN; .NaN: any NaN -> NaN;
    -0.0 is ordered below +0.0; .xorsign.abs: compare |a|,|b|, sign = sign(a) xor sign(b)."""
    def run(a, b):
        x, y = load(a, fmt, ftz), load(b, fmt, ftz)
        sign = np.signbit(x) ^ np.signbit(y)
        if xorsign_abs:
            x, y = np.abs(x), np.abs(y)
        r = np.fmax(x, y) if is_max else np.fmin(x, y)
        zeros = (x == 0) & (y == 0)
        pick_neg = np.signbit(x) if not is_max else ~np.signbit(x)
        r = np.where(zeros, np.where(pick_neg, x, y), r)
        if nan:
            r = np.where(np.isnan(x) | np.isnan(y), np.nan, r)
        if xorsign_abs:
            r = np.where(sign, -np.abs(r), np.abs(r))
        return store(r, fmt, ftz=ftz, relu=relu)
    return run


# -- bit-level float ops -------------------------------------------------------------------

def sign_mask(t: PtxType):
    return t.dtype.type(1 << (t.bits - 1))


def abs_neg(t: str, is_abs: bool, ftz: bool):
    """abs/neg act on the sign bit alone (NaN payload kept); .ftz flushes subnormals first."""
    lt = lane_type(t)
    fmt = FMT[lt.name]
    m = sign_mask(lt)

    def run(a):
        if ftz:
            v = round_ops.decode(a, fmt)
            tiny = (v != 0) & (np.abs(v) < fmt.min_normal)
            a = np.where(tiny, a & m, a).astype(a.dtype)
        return (a & ~m) if is_abs else (a ^ m)
    return over_lanes(t, run)


def copysign(t: PtxType):
    """copysign.type d, a, b (§9.7.3.2): b's magnitude with a's sign."""
    m = sign_mask(t)
    return lambda a, b: (b & ~m) | (a & m)


TESTP = {
    ".finite": np.isfinite, ".infinite": np.isinf, ".number": lambda v: ~np.isnan(v),
    ".notanumber": np.isnan,
}


def testp(kind: str, fmt: round_ops.Format):
    def run(a):
        v = round_ops.decode(a, fmt)
        if kind in TESTP:
            return TESTP[kind](v)
        normal = np.isfinite(v) & (np.abs(v) >= fmt.min_normal)
        if kind == ".normal":
            return normal
        return np.isfinite(v) & (v != 0) & ~normal          # .subnormal
    return run
