"""Scalar video instructions against the PTX ISA pseudocode (9.7.18.1), written here element by
element with Python integers: partSelectSignExtend, the operation, optSaturate (to the merge's
sub-word), optSecOp with c, optMerge, low 32 bits. (SIMD forms are checked against hardware
results in test_hardware.py.)"""
from __future__ import annotations

import random

import numpy as np
import pytest
from snippets import run

SEL = (None, "b0", "b1", "b2", "b3", "h0", "h1")


def part(x, sel, signed):
    if sel is None:
        v, bits = x, 32
    else:
        bits = 8 if sel[0] == "b" else 16
        v = (x >> (bits * int(sel[1]))) & ((1 << bits) - 1)
    return v - (1 << bits) if signed and v >> (bits - 1) else v


def reference(op, dt, at, bt, sat, secop, dsel, asel, bsel, a, b, c):
    ta, tb = part(a, asel, at), part(b, bsel, bt)
    tmp = {"vadd": ta + tb, "vsub": ta - tb, "vabsdiff": abs(ta - tb), "vmin": min(ta, tb),
           "vmax": max(ta, tb)}[op]
    if sat:
        bits = 32 if dsel is None else (8 if dsel[0] == "b" else 16)
        lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if dt else (0, (1 << bits) - 1)
        tmp = min(max(tmp, lo), hi)
    if secop:
        cv = part(c, None, dt)
        tmp = {"add": tmp + cv, "min": min(tmp, cv), "max": max(tmp, cv)}[secop]
    elif dsel:
        bits = 8 if dsel[0] == "b" else 16
        shift = bits * int(dsel[1])
        field = ((1 << bits) - 1) << shift
        tmp = ((tmp << shift) & field) | (c & ~field & 0xFFFFFFFF)
    return tmp & 0xFFFFFFFF



@pytest.mark.parametrize("seed", range(12))
def test_scalar_video_matches_isa_pseudocode(seed):
    rng = random.Random(seed)
    op = rng.choice(("vadd", "vsub", "vabsdiff", "vmin", "vmax"))
    dt, at, bt = (rng.random() < 0.5 for _ in range(3))
    sat = rng.random() < 0.5
    tail = rng.choice((None, "secop", "merge"))
    asel, bsel = rng.choice(SEL), rng.choice(SEL)
    secop = rng.choice(("add", "min", "max")) if tail == "secop" else None
    dsel = rng.choice(SEL[1:]) if tail == "merge" else None
    ty = lambda s: ".s32" if s else ".u32"  # noqa: E731
    opcode = f"{op}{ty(dt)}{ty(at)}{ty(bt)}" + (".sat" if sat else "") + (f".{secop}" if secop else "")
    a = "%a" + (f".{asel}" if asel else "")
    b = "%b" + (f".{bsel}" if bsel else "")
    d = "%d" + (f".{dsel}" if dsel else "")
    line = f"{opcode} {d}, {a}, {b}" + (", %c;" if tail else ";")
    nrng = np.random.default_rng(seed)
    x = nrng.integers(0, 2**32, (64, 3), dtype=np.uint64)
    x[:16] = nrng.choice(np.array([0, 1, 0x7F, 0x80, 0xFF, 0x7FFF, 0x8000, 0xFFFF, 0x7FFFFFFF,
                                   0x80000000, 0xFFFFFFFF], np.uint64), (16, 3))
    body = f"""cvt.u32.u64 %a, %in0; cvt.u32.u64 %b, %in1; cvt.u32.u64 %c, %in2; mov.b32 %d, %c;
               {line} cvt.u64.u32 %out0, %d;"""
    out = run(body, x, ".reg .b32 %a, %b, %c, %d;")
    for row, o in zip(x, out):
        want = reference(op, dt, at, bt, sat, secop, dsel, asel, bsel, int(row[0]), int(row[1]), int(row[2]))
        assert int(o[0]) == want, (line, [hex(int(v)) for v in row])
