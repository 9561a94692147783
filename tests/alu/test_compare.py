"""setp/set/selp/slct/testp/min/max against Python comparisons (PTX ISA §9.7.7, §9.7.3)."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from ptxld.emu.alu import lookup
from refmath import bits_array, float_bits, to_float

FLOAT_REF = {
    "eq": lambda a, b: a == b, "ne": lambda a, b: not _nan(a, b) and a != b,
    "lt": lambda a, b: a < b, "le": lambda a, b: a <= b, "gt": lambda a, b: a > b, "ge": lambda a, b: a >= b,
    "equ": lambda a, b: _nan(a, b) or a == b, "neu": lambda a, b: _nan(a, b) or a != b,
    "ltu": lambda a, b: _nan(a, b) or a < b, "leu": lambda a, b: _nan(a, b) or a <= b,
    "gtu": lambda a, b: _nan(a, b) or a > b, "geu": lambda a, b: _nan(a, b) or a >= b,
    "num": lambda a, b: not _nan(a, b), "nan": lambda a, b: _nan(a, b),
}


def _nan(a, b):
    return math.isnan(a) or math.isnan(b)


@pytest.mark.parametrize("ft", ["f32", "f64", "f16", "bf16"])
@settings(max_examples=5, deadline=None)
@given(data=st.data())
def test_setp_float_all_ops(ft, data):
    a = data.draw(st.lists(float_bits(ft), min_size=32, max_size=32))
    b = data.draw(st.lists(float_bits(ft), min_size=32, max_size=32))
    c = np.array(data.draw(st.lists(st.booleans(), min_size=32, max_size=32)))
    A, B = bits_array(a, ft), bits_array(b, ft)
    for cmp, f in FLOAT_REF.items():
        want = np.array([f(to_float(x, ft), to_float(y, ft)) for x, y in zip(a, b)])
        (p,) = lookup(f"setp.{cmp}.{ft}")(A, B)
        np.testing.assert_array_equal(p, want, err_msg=cmp)
        p, q = lookup(f"setp.{cmp}.and.{ft}").pair(A, B, c)
        np.testing.assert_array_equal(p, want & c)
        np.testing.assert_array_equal(q, ~want & c)


INT_REF = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}
UNSIGNED = {"lo": "<", "ls": "<=", "hi": ">", "hs": ">="}


@pytest.mark.parametrize("t", ["s16", "u16", "s32", "u32", "s64", "u64"])
@settings(max_examples=5, deadline=None)
@given(data=st.data())
def test_setp_int(t, data):
    w = int(t[1:])
    vals = st.one_of(st.sampled_from([0, 1, (1 << w) - 1, 1 << (w - 1)]), st.integers(0, (1 << w) - 1))
    a = data.draw(st.lists(vals, min_size=32, max_size=32))
    b = data.draw(st.lists(vals, min_size=32, max_size=32))
    sv = (lambda v: v - (1 << w) if v >> (w - 1) else v) if t[0] == "s" else (lambda v: v)
    A, B = np.array(a, dtype=f"u{w // 8}"), np.array(b, dtype=f"u{w // 8}")
    for cmp, o in {**INT_REF, **UNSIGNED}.items():
        conv = (lambda v: v) if cmp in UNSIGNED else sv
        want = [eval(f"{conv(x)} {o} {conv(y)}") for x, y in zip(a, b)]
        assert list(lookup(f"setp.{cmp}.{t}")(A, B)[0]) == want, cmp
        (d,) = lookup(f"set.{cmp}.u32.{t}")(A, B)
        assert list(d) == [0xFFFFFFFF if x else 0 for x in want]
        (d,) = lookup(f"set.{cmp}.f32.{t}")(A, B)
        assert list(d.view(np.float32)) == [1.0 if x else 0.0 for x in want]
    c = np.array([True, False] * 16)
    want = np.array([sv(x) < sv(y) for x, y in zip(a, b)])
    assert list(lookup(f"setp.lt.xor.{t}")(A, B, c)[0]) == list(want ^ c)
    assert list(lookup(f"set.lt.or.s32.{t}")(A, B, c)[0]) == [0xFFFFFFFF if x else 0 for x in want | c]


def test_setp_f16x2_gives_two_lane_predicates():
    a = np.array([0x3C00_4000], dtype=np.uint32)  # high 1.0, low 2.0
    b = np.array([0x4000_3C00], dtype=np.uint32)  # high 2.0, low 1.0
    op = lookup("setp.lt.f16x2")
    assert op.dst_types == (".pred", ".pred")
    p, q = op(a, b)
    assert (bool(p[0]), bool(q[0])) == (False, True)


def test_selp_slct():
    a, b = np.uint32([1, 2, 3]), np.uint32([10, 20, 30])
    assert list(lookup("selp.b32")(a, b, np.array([True, False, True]))[0]) == [1, 20, 3]
    c = np.array([0, -1, 5], dtype=np.int32).view(np.uint32)
    assert list(lookup("slct.u32.s32")(a, b, c)[0]) == [1, 20, 3]
    cf = np.array([-0.0, np.nan, -1e-45], dtype=np.float32).view(np.uint32)
    assert list(lookup("slct.u32.f32")(a, b, cf)[0]) == [1, 20, 30]
    assert list(lookup("slct.ftz.u32.f32")(a, b, cf)[0]) == [1, 20, 3]


def test_testp():
    v = np.array([1.0, 1e-45, np.inf, np.nan, 0.0, -2.0], dtype=np.float32).view(np.uint32)
    want = {"finite": [1, 1, 0, 0, 1, 1], "infinite": [0, 0, 1, 0, 0, 0], "number": [1, 1, 1, 0, 1, 1],
            "notanumber": [0, 0, 0, 1, 0, 0], "normal": [1, 0, 0, 0, 0, 1], "subnormal": [0, 1, 0, 0, 0, 0]}
    for k, w in want.items():
        assert list(lookup(f"testp.{k}.f32")(v)[0]) == [bool(x) for x in w], k


@pytest.mark.parametrize("ft", ["f32", "f16", "bf16", "f64"])
@settings(max_examples=8, deadline=None)
@given(data=st.data())
def test_min_max_nan_and_zero_rules(ft, data):
    a = data.draw(st.lists(float_bits(ft), min_size=32, max_size=32))
    b = data.draw(st.lists(float_bits(ft), min_size=32, max_size=32))
    A, B = bits_array(a, ft), bits_array(b, ft)
    for name in ("min", "max"):
        (d,) = lookup(f"{name}.{ft}")(A, B)
        (dn,) = lookup(f"{name}.NaN.{ft}")(A, B) if ft != "f64" else (d,)
        for x, y, g, gn in zip(a, b, d, dn):
            u, v = to_float(x, ft), to_float(y, ft)
            r = to_float(int(g), ft)
            if math.isnan(u) and math.isnan(v):
                assert math.isnan(r)
            elif math.isnan(u) or math.isnan(v):
                assert int(g) == (y if math.isnan(u) else x)
                if ft != "f64":
                    assert math.isnan(to_float(int(gn), ft))
            elif u == v == 0:   # -0 ordered below +0
                neg = math.copysign(1, u) < 0 or math.copysign(1, v) < 0
                pos = math.copysign(1, u) > 0 or math.copysign(1, v) > 0
                assert (math.copysign(1, r) < 0) == (neg if name == "min" else not pos)
            else:
                assert r == (min(u, v) if name == "min" else max(u, v))


def test_abs_neg_copysign_are_bit_ops():
    nan_payload = np.uint32([0x7FC00123, 0xFFC00001])
    assert list(lookup("abs.f32")(nan_payload)[0]) == [0x7FC00123, 0x7FC00001]
    assert list(lookup("neg.f32")(nan_payload)[0]) == [0xFFC00123, 0x7FC00001]
    sub = np.uint32([0x80000001])
    assert list(lookup("abs.ftz.f32")(sub)[0]) == [0]
    assert list(lookup("copysign.f32")(np.uint32([0x80000000]), np.uint32([0x3F800000]))[0]) == [0xBF800000]
