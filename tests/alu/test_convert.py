"""cvt against exact rational references (PTX ISA §9.7.9.21)."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from ptxld.emu.alu import lookup
from refmath import bits_array, float_bits, is_nan_bits, ref_round, to_float

INTS = [f"{k}{w}" for k in "us" for w in (8, 16, 32, 64)]


def ival(u, t):
    w = int(t[1:])
    return u - (1 << w) if t[0] == "s" and u >> (w - 1) else u


def irange(t):
    w = int(t[1:])
    return (-(1 << (w - 1)), (1 << (w - 1)) - 1) if t[0] == "s" else (0, (1 << w) - 1)


def call(opcode, col, dtype):
    op = lookup(opcode)
    assert op is not None, opcode
    return [int(v) for v in op(np.array(col, dtype=dtype))[0]]


@pytest.mark.parametrize("dt", INTS)
@pytest.mark.parametrize("st_", INTS)
def test_int_to_int(dt, st_):
    w = int(st_[1:])
    vals = sorted({0, 1, (1 << w) - 1, 1 << (w - 1), (1 << (w - 1)) - 1, 0x5A5A5A5A5A5A5A5A & ((1 << w) - 1),
                   0x80 & ((1 << w) - 1), 0x7F})
    dw = int(dt[1:])
    got = call(f"cvt.{dt}.{st_}", vals, f"u{w // 8}")
    assert got == [ival(v, st_) & ((1 << dw) - 1) for v in vals]
    lo, hi = irange(dt)
    got = call(f"cvt.sat.{dt}.{st_}", vals, f"u{w // 8}")
    assert got == [max(lo, min(hi, ival(v, st_))) & ((1 << dw) - 1) for v in vals]


ROUND_INT = {"rni": lambda x: round(x), "rzi": math.trunc, "rmi": math.floor, "rpi": math.ceil}


@pytest.mark.parametrize("src", ["f16", "bf16", "f32", "f64"])
@pytest.mark.parametrize("dt", ["u8", "s8", "u16", "s16", "u32", "s32", "u64", "s64"])
@settings(max_examples=4, deadline=None)
@given(data=st.data())
def test_float_to_int_saturates(src, dt, data):
    bits = data.draw(st.lists(float_bits(src), min_size=32, max_size=32))
    lo, hi = irange(dt)
    w = int(dt[1:])
    for rnd, f in ROUND_INT.items():
        got = call(f"cvt.{rnd}.{dt}.{src}", bits, bits_array([], src).dtype)
        for b, g in zip(bits, got):
            v = to_float(b, src)
            if math.isnan(v):
                want = 0
            elif math.isinf(v):
                want = hi if v > 0 else lo
            else:
                want = max(lo, min(hi, f(Fraction(v))))      # round() on Fraction: half-even
            assert g == want & ((1 << w) - 1), (rnd, dt, src, hex(b))


@pytest.mark.parametrize("it", ["s32", "u32", "s64", "u64", "s16"])
@pytest.mark.parametrize("ft", ["f16", "bf16", "f32", "f64"])
@pytest.mark.parametrize("mode", ["rn", "rz", "rm", "rp"])
@settings(max_examples=4, deadline=None)
@given(data=st.data())
def test_int_to_float_exact_rounding(it, ft, mode, data):
    w = int(it[1:])
    edge = [0, 1, (1 << w) - 1, 1 << (w - 1), (1 << (w - 1)) - 1, (1 << (w - 1)) + 1, 2**24 + 1 & ((1 << w) - 1)]
    vals = data.draw(st.lists(st.one_of(st.sampled_from(edge), st.integers(0, (1 << w) - 1)),
                              min_size=24, max_size=24))
    got = call(f"cvt.{mode}.{ft}.{it}", vals, f"u{w // 8}")
    for v, g in zip(vals, got):
        assert g == ref_round(Fraction(ival(v, it)), ft, mode), (it, ft, mode, v, hex(g))


NARROW = [("f32", "f64"), ("f16", "f32"), ("bf16", "f32"), ("f16", "f64"), ("bf16", "f64"), ("bf16", "f16")]


@pytest.mark.parametrize("dt,src", NARROW)
@pytest.mark.parametrize("mode", ["rn", "rz", "rm", "rp"])
@settings(max_examples=5, deadline=None)
@given(data=st.data())
def test_float_narrowing(dt, src, mode, data):
    bits = data.draw(st.lists(float_bits(src), min_size=32, max_size=32))
    got = call(f"cvt.{mode}.{dt}.{src}", bits, bits_array([], src).dtype)
    for b, g in zip(bits, got):
        v = to_float(b, src)
        want = ref_round(v if not math.isfinite(v) or v == 0 else Fraction(v), dt, mode)
        if want == -1:
            assert is_nan_bits(g, dt)
        else:
            assert g == want, (dt, src, mode, hex(b), hex(g), hex(want))


@pytest.mark.parametrize("dt,src", [("f32", "f16"), ("f32", "bf16"), ("f64", "f32"), ("f64", "f16")])
@settings(max_examples=5, deadline=None)
@given(data=st.data())
def test_float_widening_exact(dt, src, data):
    bits = data.draw(st.lists(float_bits(src), min_size=32, max_size=32))
    got = call(f"cvt.{dt}.{src}", bits, bits_array([], src).dtype)
    for b, g in zip(bits, got):
        v = to_float(b, src)
        assert (math.isnan(v) and is_nan_bits(g, dt)) or to_float(g, dt) == v and \
            math.copysign(1, to_float(g, dt)) == math.copysign(1, v)


@settings(max_examples=20, deadline=None)
@given(st.lists(float_bits("f32"), min_size=32, max_size=32))
def test_tf32_rna(bits):
    got = call("cvt.rna.tf32.f32", bits, np.uint32)
    for b, g in zip(bits, got):
        v = to_float(b, "f32")
        assert g & 0x1FFF == 0
        want = ref_round(v if not math.isfinite(v) or v == 0 else Fraction(v), "tf32", "rna")
        assert (want == -1 and is_nan_bits(g, "f32")) or g == want, (hex(b), hex(g), hex(want))


def test_tf32_rna_ties_away_examples():
    # 1 + 2^-11 is halfway between tf32 neighbours 1 and 1 + 2^-10: ties away -> up
    f = np.array([1 + 2**-11, -(1 + 2**-11), 1 + 3 * 2**-11], dtype=np.float32).view(np.uint32)
    got = lookup("cvt.rna.tf32.f32")(f)[0].view(np.float32)
    assert list(got) == [1 + 2**-10, -(1 + 2**-10), 1 + 2 * 2**-10]


def test_float_integral_rounding_and_sat():
    f = np.array([2.5, -2.5, 1.5, -0.3, np.nan, 3.7], dtype=np.float32).view(np.uint32)
    for q, ref in (("rni", [2, -2, 2, -0.0, np.nan, 4]), ("rzi", [2, -2, 1, -0.0, np.nan, 3]),
                   ("rmi", [2, -3, 1, -1, np.nan, 3]), ("rpi", [3, -2, 2, -0.0, np.nan, 4])):
        got = lookup(f"cvt.{q}.f32.f32")(f)[0].view(np.float32)
        np.testing.assert_array_equal(got, np.array(ref, dtype=np.float32))
    got = lookup("cvt.sat.f32.f32")(f)[0].view(np.float32)
    np.testing.assert_array_equal(got, [1.0, 0.0, 1.0, 0.0, 0.0, 1.0])


def test_packed_f16x2_from_two_f32():
    a = np.array([1.0, 65520.0], dtype=np.float32).view(np.uint32)
    b = np.array([-2.0, np.nan], dtype=np.float32).view(np.uint32)
    (d,) = lookup("cvt.rn.f16x2.f32")(a, b)
    assert [hex(int(x)) for x in d] == ["0x3c00c000", "0x7c007fff"]       # a -> high half, b -> low
    (d,) = lookup("cvt.rn.satfinite.f16x2.f32")(a, b)
    assert int(d[1]) >> 16 == 0x7BFF
    (d,) = lookup("cvt.rn.bf16x2.f32")(a, b)
    assert int(d[0]) == 0x3F80C000


def test_u16_from_tid_truncates():
    assert call("cvt.u16.u32", [0x12345, 7], np.uint32) == [0x2345, 7]
    assert call("cvt.u32.u16", [0xFFFF], np.uint16) == [0xFFFF]
    assert call("cvt.s32.s16", [0xFFFF], np.uint16) == [0xFFFFFFFF]
