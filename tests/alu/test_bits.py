"""Bit manipulation against bit-by-bit transcriptions of the PTX ISA pseudo-code and tables."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from ptxld.emu.alu import lookup

u32s = st.one_of(st.sampled_from([0, 1, 0x80000000, 0xFFFFFFFF, 0x7FFFFFFF]), st.integers(0, 2**32 - 1))
u64s = st.one_of(st.sampled_from([0, 1, 1 << 63, 2**64 - 1]), st.integers(0, 2**64 - 1))
small = st.one_of(st.integers(0, 70), st.integers(0, 2**32 - 1))


def run(opcode, *cols):
    op = lookup(opcode)
    assert op is not None, opcode
    arrays = [np.array(c, dtype=TYPES_DT[t]) for c, t in zip(cols, op.src_types)]
    return [int(v) for v in op(*arrays)[0]]


TYPES_DT = {".b32": np.uint32, ".u32": np.uint32, ".s32": np.uint32, ".b64": np.uint64,
            ".u64": np.uint64, ".s64": np.uint64, ".b16": np.uint16, ".u16": np.uint16, ".s16": np.uint16}


def bit(x, i):
    return (x >> i) & 1


# -- prmt: the ISA's mode table (d.b3 d.b2 d.b1 d.b0 per selector value) ----------------------
PRMT_TABLE = {
    "f4e": ["3210", "4321", "5432", "6543"],
    "b4e": ["5670", "6701", "7012", "0123"],
    "rc8": ["0000", "1111", "2222", "3333"],
    "ecl": ["3210", "3211", "3222", "3333"],
    "ecr": ["0000", "1110", "2210", "3210"],
    "rc16": ["1010", "3232", "1010", "3232"],
}


@pytest.mark.parametrize("mode", sorted(PRMT_TABLE))
def test_prmt_modes_match_isa_table(mode):
    a, b = 0x33221100, 0x77665544          # byte k of {b,a} holds 0xkk
    for sel, row in enumerate(PRMT_TABLE[mode]):
        want = int("".join(f"{int(ch) * 0x11:02x}" for ch in row), 16)
        assert run(f"prmt.b32.{mode}", [a], [b], [sel | 0xFFFC])[0] == want, (mode, sel)


def test_prmt_default_mode_examples():
    a, b = 0x33221100, 0xF7665544
    # selector 0x5140: d.b0 = byte 0, d.b1 = byte 4, d.b2 = byte 1, d.b3 = byte 5
    assert run("prmt.b32", [a], [b], [0x5140]) == [0x55114400]
    # msb of a selector nibble replicates the sign of the chosen byte: byte 7 = 0xF7 -> 0xFF
    # nibbles 7,0,F,8 -> bytes 0xF7, 0x00, sign(0xF7)=0xFF, sign(0x00)=0x00
    assert run("prmt.b32", [a], [b], [0x8F07]) == [0x00FF00F7]


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(u32s, u32s, u32s), min_size=8, max_size=8))
def test_prmt_default_mode_bytewise(rows):
    a, b, c = map(list, zip(*rows))
    got = run("prmt.b32", a, b, c)
    for x, y, s, g in zip(a, b, c, got):
        src = x | y << 32
        want = 0
        for k in range(4):
            n = (s >> 4 * k) & 0xF
            byte = (src >> 8 * (n & 7)) & 0xFF
            if n & 8:
                byte = 0xFF if byte & 0x80 else 0
            want |= byte << 8 * k
        assert g == want


# -- bfe / bfi (ISA pseudo-code) ----------------------------------------------------------

def bfe_ref(a, pos, ln, w, signed):
    msb = w - 1
    pos, ln = pos & 0xFF, ln & 0xFF
    sbit = bit(a, min(pos + ln - 1, msb)) if signed and ln != 0 else 0
    d = 0
    for i in range(w):
        d |= (bit(a, pos + i) if (i < ln and pos + i <= msb) else sbit) << i
    return d


def bfi_ref(a, b, pos, ln, w):
    pos, ln = pos & 0xFF, ln & 0xFF
    f = b
    for i in range(ln):
        if pos + i > w - 1:
            break
        f = (f & ~(1 << (pos + i))) | (bit(a, i) << (pos + i))
    return f


@pytest.mark.parametrize("t", ["u32", "s32", "u64", "s64"])
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_bfe(t, data):
    w = int(t[1:])
    vals = u64s if w == 64 else u32s
    rows = data.draw(st.lists(st.tuples(vals, small, small), min_size=16, max_size=16))
    a, p, n = map(list, zip(*rows))
    assert run(f"bfe.{t}", a, p, n) == [bfe_ref(x, y, z, w, t[0] == "s") for x, y, z in rows]


@pytest.mark.parametrize("t", ["b32", "b64"])
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_bfi(t, data):
    w = int(t[1:])
    vals = u64s if w == 64 else u32s
    rows = data.draw(st.lists(st.tuples(vals, vals, small, small), min_size=16, max_size=16))
    a, b, p, n = map(list, zip(*rows))
    assert run(f"bfi.{t}", a, b, p, n) == [bfi_ref(*r, w) for r in rows]


def test_bfe_bfi_examples():
    assert run("bfe.u32", [0x12345678], [8], [8]) == [0x56]
    assert run("bfe.s32", [0x0000F000], [12], [4]) == [0xFFFFFFFF]
    assert run("bfe.s32", [0x0000F000], [12], [0]) == [0]
    assert run("bfi.b32", [0xAB], [0x12345678], [8], [8]) == [0x1234AB78]


# -- shifts and funnel shifts ----------------------------------------------------------------

@settings(max_examples=20, deadline=None)
@given(st.lists(st.tuples(u32s, u32s, small), min_size=16, max_size=16))
def test_shf(rows):
    a, b, c = map(list, zip(*rows))
    for mode in ("wrap", "clamp"):
        n = [(z & 31) if mode == "wrap" else min(z, 32) for z in c]
        assert run(f"shf.l.{mode}.b32", a, b, c) == [((y << 32 | x) << k >> 32) & 0xFFFFFFFF
                                                     for x, y, k in zip(a, b, n)]
        assert run(f"shf.r.{mode}.b32", a, b, c) == [((y << 32 | x) >> k) & 0xFFFFFFFF
                                                     for x, y, k in zip(a, b, n)]


@pytest.mark.parametrize("w", [16, 32, 64])
@settings(max_examples=10, deadline=None)
@given(data=st.data())
def test_shl_shr_clamp(w, data):
    rows = data.draw(st.lists(st.tuples(st.integers(0, 2**w - 1), small), min_size=16, max_size=16))
    a, n = map(list, zip(*rows))
    m = (1 << w) - 1
    s = lambda v: v - (1 << w) if v >> (w - 1) else v  # noqa: E731
    assert run(f"shl.b{w}", a, n) == [(x << k) & m for x, k in rows]
    assert run(f"shr.u{w}", a, n) == [x >> k for x, k in rows]
    assert run(f"shr.b{w}", a, n) == [x >> k for x, k in rows]
    assert run(f"shr.s{w}", a, n) == [(s(x) >> k) & m for x, k in rows]


# -- counting and reversal -------------------------------------------------------------------

@pytest.mark.parametrize("w", [32, 64])
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_counts(w, data):
    a = data.draw(st.lists(u64s if w == 64 else u32s, min_size=16, max_size=16))
    s = lambda v: v - (1 << w) if v >> (w - 1) else v  # noqa: E731
    assert run(f"popc.b{w}", a) == [bin(x).count("1") for x in a]
    assert run(f"clz.b{w}", a) == [w - x.bit_length() for x in a]
    assert run(f"brev.b{w}", a) == [int(f"{x:0{w}b}"[::-1], 2) for x in a]
    none = 0xFFFFFFFF
    assert run(f"bfind.u{w}", a) == [x.bit_length() - 1 if x else none for x in a]
    sb = [(~s(x) if s(x) < 0 else s(x)) for x in a]
    assert run(f"bfind.s{w}", a) == [v.bit_length() - 1 if v else none for v in sb]
    assert run(f"bfind.shiftamt.u{w}", a) == [w - x.bit_length() if x else none for x in a]


# -- logic ---------------------------------------------------------------------------------

LUT_FUNCS = {0x96: lambda a, b, c: a ^ b ^ c, 0xE8: lambda a, b, c: (a & b) | (b & c) | (a & c),
             0xF0: lambda a, b, c: a, 0x80: lambda a, b, c: a & b & c, 0x01: lambda a, b, c: ~(a | b | c),
             0xCA: lambda a, b, c: (a & b) | (~a & c)}


@settings(max_examples=15, deadline=None)
@given(st.lists(st.tuples(u32s, u32s, u32s), min_size=8, max_size=8))
def test_lop3_and_logic(rows):
    a, b, c = map(list, zip(*rows))
    for lut, f in LUT_FUNCS.items():
        assert run("lop3.b32", a, b, c, [lut] * len(a)) == [f(x, y, z) & 0xFFFFFFFF for x, y, z in rows]
    assert run("and.b32", a, b) == [x & y for x, y in zip(a, b)]
    assert run("or.b32", a, b) == [x | y for x, y in zip(a, b)]
    assert run("xor.b32", a, b) == [x ^ y for x, y in zip(a, b)]
    assert run("not.b32", a) == [~x & 0xFFFFFFFF for x in a]
    assert run("cnot.b32", a) == [int(x == 0) for x in a]


def test_predicate_logic():
    p = np.array([True, True, False, False])
    q = np.array([True, False, True, False])
    assert list(lookup("and.pred")(p, q)[0]) == [True, False, False, False]
    assert list(lookup("or.pred")(p, q)[0]) == [True, True, True, False]
    assert list(lookup("xor.pred")(p, q)[0]) == [False, True, True, False]
    assert list(lookup("not.pred")(p)[0]) == [False, False, True, True]
