"""add/sub/mul/fma/div/sqrt in every rounding mode against exact rational arithmetic."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from ptxld.emu.alu import lookup
from refmath import FMTS, bits_array, float_bits, is_nan_bits, ref_round, sign_bit, to_float

CANONICAL_NAN = {"f32": 0x7FFFFFFF, "f16": 0x7FFF, "bf16": 0x7FFF}


def _in(bits: int, fmt: str, ftz: bool) -> float:
    v = to_float(bits, fmt)
    if ftz and v != 0 and math.isfinite(v) and (bits & ~sign_bit(fmt)) < FMTS[fmt].min_normal_bits:
        return math.copysign(0.0, v)
    return v


def _neg0(v: float) -> bool:
    return math.copysign(1.0, v) < 0


def reference(kind: str, vals: list[float], fmt: str, mode: str, ftz: bool) -> int:
    """Expected bits, or -1 for 'any NaN'."""
    if not all(math.isfinite(v) for v in vals):
        if kind == "div" and vals[1] == 0:
            if vals[0] == 0 or math.isnan(vals[0]):
                return -1
            return ref_round(math.copysign(math.inf, vals[0]) * math.copysign(1, vals[1]), fmt, mode)
        if kind == "sqrt":
            x = vals[0]
            return -1 if (math.isnan(x) or x < 0) else ref_round(x, fmt, mode)
        if kind == "fma" and math.isfinite(vals[0]) and math.isfinite(vals[1]):
            # fused: the product of finite a, b is exact and finite, whatever its size; only c
            # is not finite (a*b in floats could overflow to inf and make inf - inf = NaN)
            return -1 if math.isnan(vals[2]) else ref_round(vals[2], fmt, mode)
        f = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
             "fma": lambda a, b, c: a * b + c, "div": lambda a, b: a / b}[kind]
        return ref_round(f(*vals), fmt, mode)
    q = [Fraction(v) for v in vals]
    if kind in ("add", "sub", "fma"):
        if kind == "fma":
            x, sx = q[0] * q[1], _neg0(vals[0]) != _neg0(vals[1])
            y, sy = q[2], _neg0(vals[2])
        else:
            x, sx = q[0], _neg0(vals[0])
            y, sy = (q[1], _neg0(vals[1])) if kind == "add" else (-q[1], not _neg0(vals[1]))
        exact = x + y
        if x == 0 and y == 0:
            zs = (sx and sy) or (mode == "rm" and (sx or sy))
        else:
            zs = mode == "rm"
    elif kind == "mul":
        exact, zs = q[0] * q[1], _neg0(vals[0]) != _neg0(vals[1])
    elif kind == "div":
        if q[1] == 0:
            if q[0] == 0:
                return -1
            return ref_round(math.copysign(math.inf, vals[0]) * math.copysign(1, vals[1]), fmt, mode)
        exact, zs = q[0] / q[1], _neg0(vals[0]) != _neg0(vals[1])
    elif kind == "sqrt":
        if vals[0] < 0:
            return -1
        if vals[0] == 0:
            return sign_bit(fmt) if _neg0(vals[0]) else 0
        return _ref_sqrt(q[0], fmt, mode)
    return ref_round(exact, fmt, mode, ftz=ftz, zero_sign=zs)


def _ref_sqrt(x: Fraction, fmt: str, mode: str) -> int:
    # floor(sqrt(x) * 2^k) with k large, plus a sticky half when inexact
    k = 1200
    n = x.numerator * (1 << (2 * k)) // x.denominator
    r = math.isqrt(n)
    exact = r * r * x.denominator == x.numerator * (1 << (2 * k))
    return ref_round(Fraction(2 * r + (0 if exact else 1), 1 << (k + 1)), fmt, mode)


def check(opcode: str, kind: str, fmt: str, cols: list[list[int]], mode: str, ftz: bool):
    op = lookup(opcode)
    assert op is not None, opcode
    (out,) = op(*[bits_array(c, fmt) for c in cols])
    for i, ins in enumerate(zip(*cols)):
        vals = [_in(b, fmt, ftz) for b in ins]
        want = reference(kind, vals, fmt, mode, ftz)
        got = int(out[i])
        if want == -1:
            assert is_nan_bits(got, fmt), (opcode, [hex(b) for b in ins], hex(got))
            if fmt in CANONICAL_NAN:
                assert got == CANONICAL_NAN[fmt]
        else:
            assert got == want, (opcode, [hex(b) for b in ins], hex(got), hex(want))


ARITY = {"add": 2, "sub": 2, "mul": 2, "fma": 3, "div": 2, "sqrt": 1}
MODES = ["rn", "rz", "rm", "rp"]


def _cols(fmt, n, size=24):
    return st.lists(st.lists(float_bits(fmt), min_size=size, max_size=size), min_size=n, max_size=n)


@pytest.mark.parametrize("kind", ["add", "sub", "mul", "fma", "div", "sqrt"])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("ftz", [False, True])
@settings(max_examples=12, deadline=None)
@given(data=st.data())
def test_f32_exact_rounding(kind, mode, ftz, data):
    cols = data.draw(_cols("f32", ARITY[kind]))
    opcode = f"{kind}.{mode}{'.ftz' if ftz else ''}.f32"
    check(opcode, kind, "f32", cols, mode, ftz)


@pytest.mark.parametrize("kind", ["add", "sub", "mul", "fma", "div", "sqrt"])
@pytest.mark.parametrize("mode", MODES)
@settings(max_examples=6, deadline=None)
@given(data=st.data())
def test_f64_exact_rounding(kind, mode, data):
    cols = data.draw(_cols("f64", ARITY[kind], size=16))
    check(f"{kind}.{mode}.f64", kind, "f64", cols, mode, False)


@pytest.mark.parametrize("fmt", ["f16", "bf16"])
@pytest.mark.parametrize("kind", ["add", "sub", "mul", "fma"])
@pytest.mark.parametrize("mode", MODES)
@settings(max_examples=6, deadline=None)
@given(data=st.data())
def test_half_exact_rounding(fmt, kind, mode, data):
    cols = data.draw(_cols(fmt, ARITY[kind]))
    check(f"{kind}.{mode}.{fmt}", kind, fmt, cols, mode, False)


@settings(max_examples=10, deadline=None)
@given(data=st.data())
def test_f16_ftz_fma(data):
    cols = data.draw(_cols("f16", 3))
    check("fma.rn.ftz.f16", "fma", "f16", cols, "rn", True)


@pytest.mark.parametrize("fmt", ["f16", "bf16"])
@settings(max_examples=10, deadline=None)
@given(data=st.data())
def test_packed_lanes_match_scalar(fmt, data):
    a = data.draw(st.lists(st.integers(0, 2**32 - 1), min_size=16, max_size=16))
    b = data.draw(st.lists(st.integers(0, 2**32 - 1), min_size=16, max_size=16))
    c = data.draw(st.lists(st.integers(0, 2**32 - 1), min_size=16, max_size=16))
    A, B, C = (np.array(x, dtype=np.uint32) for x in (a, b, c))
    (packed,) = lookup(f"fma.rn.{fmt}x2")(A, B, C)
    scalar = lookup(f"fma.rn.{fmt}")
    for shift in (0, 16):
        lane = lambda x: ((x >> shift) & 0xFFFF).astype(np.uint16)  # noqa: E731
        (want,) = scalar(lane(A), lane(B), lane(C))
        np.testing.assert_array_equal(lane(packed), want)


def f32(vals):
    return np.array(vals, dtype=np.float32).view(np.uint32)


def test_sat_clamps_and_nan_to_zero():
    (out,) = lookup("add.sat.f32")(f32([0.75, -3.0, np.nan, np.inf, -0.0]), f32([0.5, 1.0, 1.0, 0, -0.0]))
    np.testing.assert_array_equal(out.view(np.float32), [1.0, 0.0, 0.0, 1.0, 0.0])
    assert not np.signbit(out.view(np.float32)).any()


def test_mad_f32_is_fused():
    # (1 + 2^-23)^2 - 1 = 2^-22 + 2^-46 exactly; an unfused mul would lose 2^-46
    a = f32([1 + 2**-23])
    (out,) = lookup("mad.rn.f32")(a, a, f32([-1.0]))
    assert out.view(np.float32)[0] == np.float32(2**-22 + 2**-46)
