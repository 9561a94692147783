"""Integer arithmetic against Python integer arithmetic (PTX ISA §9.7.1)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from ptxld.emu.alu import lookup

WIDTHS = (16, 32, 64)


def sval(u: int, w: int) -> int:
    return u - (1 << w) if u >> (w - 1) else u


def edge_ints(w: int):
    edges = [0, 1, 2, (1 << w) - 1, (1 << w) - 2, 1 << (w - 1), (1 << (w - 1)) - 1, (1 << (w - 1)) + 1]
    return st.one_of(st.sampled_from(edges), st.integers(0, (1 << w) - 1))


def arr(vals, w):
    return np.array(vals, dtype=f"u{w // 8}")


def run(opcode, *cols, w):
    op = lookup(opcode)
    assert op is not None, opcode
    return [int(v) for v in op(*[arr(c, wi) for c, wi in zip(cols, w)])[0]]


def _cols(w, n, size=32):
    return st.lists(st.lists(edge_ints(w), min_size=size, max_size=size), min_size=n, max_size=n)


def trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


REF = {
    "add": lambda a, b, w: a + b,
    "sub": lambda a, b, w: a - b,
    "mul.lo": lambda a, b, w: a * b,
    "mul.hi": lambda a, b, w: (a * b) >> w,
    "min": lambda a, b, w: min(a, b),
    "max": lambda a, b, w: max(a, b),
    "div": lambda a, b, w: -1 if b == 0 else trunc_div(a, b),
    "rem": lambda a, b, w: -1 if b == 0 else a - trunc_div(a, b) * b,
}


@pytest.mark.parametrize("w", WIDTHS)
@pytest.mark.parametrize("signed", [False, True])
@pytest.mark.parametrize("name", sorted(REF))
@settings(max_examples=8, deadline=None)
@given(data=st.data())
def test_binary_ops(w, signed, name, data):
    a, b = data.draw(_cols(w, 2))
    t = f"{'s' if signed else 'u'}{w}"
    got = run(f"{name}.{t}", a, b, w=(w, w))
    conv = (lambda v: sval(v, w)) if signed else (lambda v: v)
    mask = (1 << w) - 1
    for x, y, g in zip(a, b, got):
        assert g == REF[name](conv(x), conv(y), w) & mask, (name, t, x, y)


@pytest.mark.parametrize("w", (16, 32))
@pytest.mark.parametrize("signed", [False, True])
@settings(max_examples=10, deadline=None)
@given(data=st.data())
def test_mul_wide_and_mad(w, signed, data):
    a, b = data.draw(_cols(w, 2))
    (c,) = data.draw(_cols(2 * w, 1))
    t = f"{'s' if signed else 'u'}{w}"
    conv = (lambda v: sval(v, w)) if signed else (lambda v: v)
    mask = (1 << 2 * w) - 1
    wide = run(f"mul.wide.{t}", a, b, w=(w, w))
    mad = run(f"mad.wide.{t}", a, b, c, w=(w, w, 2 * w))
    for x, y, z, g, h in zip(a, b, c, wide, mad):
        assert g == (conv(x) * conv(y)) & mask
        assert h == (conv(x) * conv(y) + z) & mask


@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_saturating_s32(data):
    a, b, c = data.draw(_cols(32, 3))
    clamp = lambda v: max(-2**31, min(2**31 - 1, v)) & 0xFFFFFFFF  # noqa: E731
    s = lambda v: sval(v, 32)  # noqa: E731
    for got, ref in ((run("add.sat.s32", a, b, w=(32, 32)), [clamp(s(x) + s(y)) for x, y in zip(a, b)]),
                     (run("sub.sat.s32", a, b, w=(32, 32)), [clamp(s(x) - s(y)) for x, y in zip(a, b)]),
                     (run("mad.hi.sat.s32", a, b, c, w=(32,) * 3),
                      [clamp(((s(x) * s(y)) >> 32) + s(z)) for x, y, z in zip(a, b, c)])):
        assert got == ref


@pytest.mark.parametrize("signed", [False, True])
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_mul24_mad24(signed, data):
    a, b, c = data.draw(_cols(32, 3))
    t = "s32" if signed else "u32"

    def v24(x):
        x &= 0xFFFFFF
        return x - (1 << 24) if signed and x >> 23 else x
    lo = run(f"mul24.lo.{t}", a, b, w=(32, 32))
    hi = run(f"mul24.hi.{t}", a, b, w=(32, 32))
    mad = run(f"mad24.lo.{t}", a, b, c, w=(32,) * 3)
    for x, y, z, l, h, m in zip(a, b, c, lo, hi, mad):
        p = v24(x) * v24(y)
        assert l == p & 0xFFFFFFFF
        assert h == (p >> 16) & 0xFFFFFFFF
        assert m == (p + z) & 0xFFFFFFFF


@pytest.mark.parametrize("w", WIDTHS)
@settings(max_examples=8, deadline=None)
@given(data=st.data())
def test_abs_neg_sad(w, data):
    a, b, c = data.draw(_cols(w, 3))
    m = (1 << w) - 1
    s = lambda v: sval(v, w)  # noqa: E731
    assert run(f"abs.s{w}", a, w=(w,)) == [abs(s(x)) & m for x in a]
    assert run(f"neg.s{w}", a, w=(w,)) == [-s(x) & m for x in a]
    assert run(f"sad.u{w}", a, b, c, w=(w,) * 3) == [(z + abs(x - y)) & m for x, y, z in zip(a, b, c)]
    assert run(f"sad.s{w}", a, b, c, w=(w,) * 3) == [(z + abs(s(x) - s(y))) & m for x, y, z in zip(a, b, c)]


@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_packed_16x2_and_relu(data):
    a, b = data.draw(_cols(32, 2))
    lanes = lambda v: [(v >> 16 * i) & 0xFFFF for i in (0, 1)]  # noqa: E731
    pack = lambda ls: ls[0] | ls[1] << 16  # noqa: E731
    s16 = lambda v: sval(v, 16)  # noqa: E731
    assert run("add.u16x2", a, b, w=(32, 32)) == [
        pack([(x + y) & 0xFFFF for x, y in zip(lanes(p), lanes(q))]) for p, q in zip(a, b)]
    assert run("max.relu.s16x2", a, b, w=(32, 32)) == [
        pack([max(s16(x), s16(y), 0) for x, y in zip(lanes(p), lanes(q))]) for p, q in zip(a, b)]
    assert run("min.relu.s32", a, b, w=(32, 32)) == [max(min(sval(x, 32), sval(y, 32)), 0) for x, y in zip(a, b)]


def _bytes(v, signed, width=8, n=4):
    out = []
    for i in range(n):
        x = (v >> (width * i)) & ((1 << width) - 1)
        out.append(x - (1 << width) if signed and x >> (width - 1) else x)
    return out


@pytest.mark.parametrize("at,bt", [("u32", "u32"), ("s32", "u32"), ("u32", "s32"), ("s32", "s32")])
@settings(max_examples=10, deadline=None)
@given(data=st.data())
def test_dp4a_dp2a(at, bt, data):
    a, b, c = data.draw(_cols(32, 3))
    sa, sb = at == "s32", bt == "s32"
    got = run(f"dp4a.{at}.{bt}", a, b, c, w=(32,) * 3)
    for x, y, z, g in zip(a, b, c, got):
        assert g == (z + sum(p * q for p, q in zip(_bytes(x, sa), _bytes(y, sb)))) & 0xFFFFFFFF
    for half, k in (("lo", 0), ("hi", 2)):
        got = run(f"dp2a.{half}.{at}.{bt}", a, b, c, w=(32,) * 3)
        for x, y, z, g in zip(a, b, c, got):
            ha, bb = _bytes(x, sa, 16, 2), _bytes(y, sb)
            assert g == (z + ha[0] * bb[k] + ha[1] * bb[k + 1]) & 0xFFFFFFFF


def test_division_by_zero_and_overflow_cases():
    # x/0 and x%0 give all ones (nvcc sm_70+ sequence); MIN / -1 wraps to MIN with remainder 0
    assert run("div.u32", [5, 0], [0, 0], w=(32, 32)) == [0xFFFFFFFF] * 2
    assert run("rem.u32", [5], [0], w=(32, 32)) == [0xFFFFFFFF]
    assert run("div.s32", [0x80000000, 7], [0xFFFFFFFF, 0], w=(32, 32)) == [0x80000000, 0xFFFFFFFF]
    assert run("rem.s32", [0x80000000, 0xFFFFFFF9], [0xFFFFFFFF, 2], w=(32, 32)) == [0, 0xFFFFFFFF]
