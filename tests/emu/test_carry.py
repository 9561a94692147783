"""The carry flag (PTX ISA 9.7.2): add.cc/addc, sub.cc/subc, mad.cc/madc chains against Python's
unbounded integers, per thread, 32- and 64-bit."""
from __future__ import annotations

import numpy as np
import pytest
from snippets import run

M64 = 2**64 - 1


def _rand(seed, n=64, cols=4):
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 2**64, size=(n, cols), dtype=np.uint64)
    # carries that ripple: all-ones and zero words
    x[: n // 4] = np.where(rng.random((n // 4, cols)) < 0.5, np.uint64(M64), np.uint64(0))
    return x


def _u128(lo, hi):
    return int(lo) | int(hi) << 64


def test_add_sub_128_bit_with_64_bit_words():
    x = _rand(1)
    out = run("""add.cc.u64 %out0, %in0, %in2;
                 addc.u64 %out1, %in1, %in3;
                 sub.cc.u64 %out2, %in0, %in2;
                 subc.u64 %out3, %in1, %in3;""", x)
    for row, o in zip(x, out):
        a, b = _u128(row[0], row[1]), _u128(row[2], row[3])
        assert _u128(o[0], o[1]) == (a + b) % 2**128
        assert _u128(o[2], o[3]) == (a - b) % 2**128


def test_chains_of_32_bit_words_with_carry_out_of_the_middle():
    """128-bit add as four 32-bit words (addc.cc in the middle), and the final carry."""
    x = _rand(2)
    body = """mov.b64 {%a0, %a1}, %in0; mov.b64 {%a2, %a3}, %in1;
              mov.b64 {%b0, %b1}, %in2; mov.b64 {%b2, %b3}, %in3;
              add.cc.u32 %c0, %a0, %b0;
              addc.cc.u32 %c1, %a1, %b1;
              addc.cc.u32 %c2, %a2, %b2;
              addc.cc.u32 %c3, %a3, %b3;
              addc.u32 %c4, 0, 0;
              mov.b64 %out0, {%c0, %c1}; mov.b64 %out1, {%c2, %c3}; cvt.u64.u32 %out2, %c4;
              sub.cc.s32 %c0, %a0, %b0;
              subc.cc.s32 %c1, %a1, %b1;
              subc.cc.s32 %c2, %a2, %b2;
              subc.cc.s32 %c3, %a3, %b3;
              subc.u32 %c4, 0, 0;
              mov.b64 %out3, {%c0, %c1}; mov.b64 %out4, {%c2, %c3}; cvt.u64.u32 %out5, %c4;"""
    decls = ".reg .b32 %a<4>, %b<4>, %c<5>;"
    out = run(body, x, decls)
    for row, o in zip(x, out):
        a, b = _u128(row[0], row[1]), _u128(row[2], row[3])
        assert _u128(o[0], o[1]) == (a + b) % 2**128 and int(o[2]) == (a + b) >> 128
        assert _u128(o[3], o[4]) == (a - b) % 2**128
        assert int(o[5]) == (0xFFFFFFFF if a < b else 0)          # 0 - borrow


def test_mad_chain_full_64x64_product():
    """The 128-bit product of two 64-bit numbers from 32-bit mad.lo/hi.cc and madc, the
    schoolbook sequence nvcc emits for unsigned __int128 multiplication."""
    x = _rand(3)
    body = """mov.b64 {%a0, %a1}, %in0; mov.b64 {%b0, %b1}, %in1;
              mul.lo.u32 %p0, %a0, %b0;
              mul.hi.u32 %p1, %a0, %b0;
              mad.lo.cc.u32 %p1, %a0, %b1, %p1;
              madc.hi.u32 %p2, %a0, %b1, 0;
              mad.lo.cc.u32 %p1, %a1, %b0, %p1;
              madc.hi.cc.u32 %p2, %a1, %b0, %p2;
              madc.hi.u32 %p3, %a1, %b1, 0;
              mad.lo.cc.u32 %p2, %a1, %b1, %p2;
              addc.u32 %p3, %p3, 0;
              mov.b64 %out0, {%p0, %p1}; mov.b64 %out1, {%p2, %p3};
              mad.lo.cc.u64 %out2, %in0, %in1, %in2;
              madc.hi.u64 %out3, %in0, %in1, %in3;"""
    out = run(body, x, ".reg .b32 %a<2>, %b<2>, %p<4>;")
    for row, o in zip(x, out):
        a, b = int(row[0]), int(row[1])
        assert _u128(o[0], o[1]) == a * b
        lo = (a * b) % 2**64 + int(row[2])
        assert int(o[2]) == lo % 2**64
        assert int(o[3]) == ((a * b) >> 64) + int(row[3]) + (lo >> 64) & M64


def test_carry_is_per_thread_under_divergence():
    """Threads that skip the carry producer keep their own flag."""
    x = _rand(4)
    x[:, 2] = np.arange(len(x)) % 2
    body = """setp.ne.u64 %q, %in2, 0;
              add.cc.u64 %out0, %in0, %in1;        // every thread: its own carry
              @%q add.cc.u64 %out1, 0, 0;           // odd threads clear it
              addc.u64 %out2, 0, 0;"""
    out = run(body, x, ".reg .pred %q;")
    for row, o in zip(x, out):
        carry = (int(row[0]) + int(row[1])) >> 64
        assert int(o[2]) == (0 if row[2] else carry)


@pytest.mark.parametrize("t", [".s32", ".u64"])
def test_signed_types_carry_like_unsigned(t):
    x = _rand(5)
    w = 32 if "32" in t else 64
    cvt = "cvt.u32.u64 %x, %in0; cvt.u32.u64 %y, %in1;" if w == 32 else "mov.b64 %x, %in0; mov.b64 %y, %in1;"
    body = f"""{cvt}
              add.cc{t} %z, %x, %y;
              addc{t} %w, 0, 0;
              cvt.u64.u{w} %out0, %w;"""
    out = run(body, x, f".reg .b{w} %x, %y, %z, %w;")
    m = 2**w - 1
    for row, o in zip(x, out):
        assert int(o[0]) == ((int(row[0]) & m) + (int(row[1]) & m)) >> w
