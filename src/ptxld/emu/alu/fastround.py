"""add/sub/mul/fma of f32, f16 and bf16 in every rounding mode, exact, at NumPy speed.

Operands are decoded to float64 exactly. A product of two values of at most 24 significant bits
is exact in float64. A sum s = RN64(x + y) is exact except for a 53-bit rounding; it is turned
into the round-to-odd value (RO53: the odd neighbour when inexact, which 2Sum's error term
identifies), and rounding RO53 once more to p <= 51 bits in any mode equals rounding the exact
value once (Boldo & Melquiond, "When double rounding is odd", 2005). The repair is needed only
where s lies on the target grid or one of its midpoints (there RN64's rounding can move the
value across a decision point; elsewhere both roundings agree with the exact value's). The test
is one mask on the float64 significand: the target's subnormal grid points and midpoints are
multiples of a larger power of two and pass it too. Only those elements go through 2Sum.

Round-to-nearest onto f32 and f16 is NumPy's cast (IEEE conversion of float64); onto bf16 it is
a round to odd at f32 followed by the usual integer rounding of the f32 bits. Directed modes
step the nearest result one grid point toward the exact value where it lies on the wrong side.

``rounding.round_to_grid`` (the slow exact path) stays the reference: tests/alu prove the two
equal bit for bit.
"""
from __future__ import annotations

import numpy as np

from ptxld.emu.alu import rounding

# bits of a float64 significand below the target's precision, per format: s is on the target's
# grid or a midpoint iff all but the top one of them are zero (for normal target values)
_LOW = {rounding.F32: (1 << (52 - 24)) - 1, rounding.F16: (1 << (52 - 11)) - 1, rounding.BF16: (1 << (52 - 8)) - 1}
_NAN = {rounding.F32: np.uint32(0x7FFFFFFF), rounding.F16: np.uint16(0x7FFF), rounding.BF16: np.uint16(0x7FFF)}
_ABS = 0x7FFFFFFFFFFFFFFF
_FLOAT = {rounding.F32: np.float32, rounding.F16: np.float16}
# float64 bits of the target's smallest normal value: below it, grid spacing is the subnormal one
_NORMAL = {f: (1023 + f.emin) << 52 for f in _LOW}


def supported(fmt: rounding.Format) -> bool:
    return fmt in _LOW


def _two_sum_error(x, y, s):
    bb = s - x
    e = (x - (s - bb)) + (y - bb)
    return np.where(np.isfinite(s), e, 0.0)


def round_to_odd_sum(x: np.ndarray, y: np.ndarray, fmt: rounding.Format, mode: str) -> np.ndarray:
    """RN64(x + y), made round-to-odd where a second rounding to ``fmt`` in ``mode`` could tell
    the difference (see the module doc). Nearest rounding can only go wrong where s is a
    midpoint: on a grid point, the exact value is within half a float64 ulp of it and rounds to
    it as well; in the target's subnormal range midpoints sit elsewhere, so all of it is checked."""
    s = np.asarray(np.add(x, y, dtype=np.float64))
    sb = s.view(np.int64)
    low = _LOW[fmt]
    if mode == "rn":
        suspect = (sb & (2 * low + 1)) == low + 1
        # 0 < |s| < the target's smallest normal (an exact zero sum needs no repair; zeros are
        # common, in sums of small integers)
        magnitude = s.view(np.uint64) & np.uint64(_ABS)
        magnitude -= np.uint64(1)
        suspect |= magnitude < np.uint64(_NORMAL[fmt] - 1)
    else:
        suspect = (sb & low) == 0
    idx = np.flatnonzero(suspect)
    if len(idx):
        # an immediate operand arrives as a 0-d array
        xs, ys, ss = np.broadcast_to(x, s.shape)[idx], np.broadcast_to(y, s.shape)[idx], s[idx]
        e = _two_sum_error(xs, ys, ss)
        fix = (e != 0) & ((sb[idx] & 1) == 0)
        if fix.any():
            # the odd neighbour toward the exact value: one step up in magnitude when the error
            # has the sum's sign, one step down otherwise (s != 0 when e != 0)
            step = np.where(np.signbit(e) == np.signbit(ss), 1, -1)
            sb[idx[fix]] += step[fix]
    return s


def _rn_f32_to_odd(s: np.ndarray) -> np.ndarray:
    """float64 -> float32 bits rounded to odd (the input to bf16's final rounding)."""
    r = s.astype(np.float32)
    rb = r.view(np.uint32)
    back = r.astype(np.float64)
    fix = (back != s) & ((rb & 1) == 0) & ~np.isnan(s)
    if fix.any():
        toward_bigger = np.abs(s[fix]) > np.abs(back[fix])
        rb[fix] = np.where(toward_bigger, rb[fix] + np.uint32(1), rb[fix] - np.uint32(1))
    return rb


def _rn_bits(s: np.ndarray, fmt: rounding.Format) -> np.ndarray:
    """Round-to-nearest-even bits of float64 values ``s`` (exact or RO53) in ``fmt``."""
    # cast into a fresh integer array (it owns its memory: callers need not copy it)
    if fmt is rounding.F32:
        out = np.empty(s.shape, np.uint32)
        out.view(np.float32)[...] = s
        return out
    if fmt is rounding.F16:
        out = np.empty(s.shape, np.uint16)
        out.view(np.float16)[...] = s
        return out
    u = _rn_f32_to_odd(s).astype(np.uint64)
    out = ((u + np.uint64(0x7FFF) + ((u >> np.uint64(16)) & np.uint64(1))) >> np.uint64(16)).astype(np.uint16)
    nan = np.isnan(s)                  # the rounding carry would turn some NaN payloads into 0
    if nan.any():
        out[nan] = _NAN[rounding.BF16]
    return out


def _step(bits: np.ndarray, up: bool, fmt: rounding.Format) -> np.ndarray:
    """The next grid value of ``fmt`` above (``up``) or below each raw value (not NaN)."""
    sign = {rounding.F32: np.uint32(0x80000000)}.get(fmt, np.uint16(0x8000))
    one = bits.dtype.type(1)
    neg = (bits & sign) != 0
    mag = bits & ~sign
    zero = mag == 0
    grow = neg != up                                # magnitude grows going away from zero
    out = np.where(grow, bits + one, bits - one).astype(bits.dtype)
    # from either zero: up -> smallest positive subnormal, down -> smallest negative one
    return np.where(zero, sign * bits.dtype.type(not up) | one, out).astype(bits.dtype)


def round_bits(s: np.ndarray, fmt: rounding.Format, mode: str) -> np.ndarray:
    """Raw bits of float64 values ``s`` (exact or RO53) rounded to ``fmt`` in ``mode``; NaN
    results are not made canonical here."""
    rb = _rn_bits(s, fmt)
    if mode == "rn":
        return rb
    r = rounding.decode(rb, fmt)
    if mode == "rz":
        down = (r > s) & (s > 0)
        up = (r < s) & (s < 0)
    elif mode == "rm":
        down, up = r > s, np.zeros(s.shape, bool)
    elif mode == "rp":
        down, up = np.zeros(s.shape, bool), r < s
    else:
        raise ValueError(mode)
    if down.any():
        rb[down] = _step(rb[down], False, fmt)
    if up.any():
        rb[up] = _step(rb[up], True, fmt)
    return rb


def arith(kind: str, fmt: rounding.Format, mode: str, load, store, *, ftz=False, sat=False, relu=False):
    """add/sub/mul/fma on raw bits of ``fmt`` (f32, f16, bf16); ``load``/``store`` are
    floating.py's (input flushing; .ftz/.sat/.relu on the rounded value and the NaN encoding)."""
    plain = not (ftz or sat or relu)
    canon = _NAN[fmt]

    native = _FLOAT.get(fmt) if not ftz else None

    def run(*bits):
        if native is not None:
            # the raw bits viewed as NumPy floats; the ufuncs below widen them to float64 as
            # they go (exactly), with no float64 copies of the operands
            v = [np.asarray(b).view(native) for b in bits]
        else:
            v = [load(b, fmt, ftz) for b in bits]
        # (floating-point warnings are silenced by the caller, alu.core.Op, once per instruction)
        if kind == "mul":
            s = np.multiply(v[0], v[1], dtype=np.float64)       # exact: <= 48 significant bits
            x = y = None
        else:
            x = np.multiply(v[0], v[1], dtype=np.float64) if kind == "fma" else v[0]
            y = v[2] if kind == "fma" else (v[1] if kind == "add" else -v[1])
            s = round_to_odd_sum(x, y, fmt, mode)
        out = round_bits(s, fmt, mode)
        if mode == "rm" and x is not None:
            # IEEE 754 §6.3: an exact zero sum is -0 in rm, unless both addends are +0
            z = (s == 0) & ~((x == 0) & (y == 0) & ~np.signbit(x) & ~np.signbit(y))
            if z.any():
                out[z] = fmt_neg_zero(fmt)
        nan = np.isnan(s)
        if plain:
            if nan.any():
                out[nan] = canon
            return out
        vals = rounding.decode(out, fmt)
        vals[nan] = np.nan
        return store(vals, fmt, ftz=ftz, sat=sat, relu=relu)
    return run


def fmt_neg_zero(fmt: rounding.Format):
    return np.uint32(0x80000000) if fmt is rounding.F32 else np.uint16(0x8000)
