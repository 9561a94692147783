"""Scalar video instructions against the rules a GPU follows (PTX ISA 9.7.18.1 as lowered by
ptxas; measured on an NVIDIA H200, tests/emu/data/hw_results.npz), written here element by
element with Python integers, apart from the emulator: random forms of every operation on
random and edge inputs. The rules themselves were derived from, and are checked against, the
recorded hardware results (`test_reference_matches_recorded_hardware`); test_hardware.py runs
the emulator on the same records. (SIMD forms are checked against hardware there only.)"""
from __future__ import annotations

import random
import re
from pathlib import Path

import numpy as np
import pytest
from snippets import run

M32 = 0xFFFFFFFF
SEL = (None, "b0", "b1", "b2", "b3", "h0", "h1")
CMP = {"eq": int.__eq__, "ne": int.__ne__, "lt": int.__lt__, "le": int.__le__, "gt": int.__gt__,
       "ge": int.__ge__}
FORM = re.compile(r"^(v[a-z]+)\.(\S+) %d(?:\.(\w+))?, (-?)%a(?:\.(\w+))?, (-?)%b(?:\.(\w+))?"
                  r"(?:, (-?)%c)?;$")


def sext(v: int, bits: int) -> int:
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


def part(x: int, sel: str | None, signed: bool) -> int:
    if sel is None:
        return sext(x, 32) if signed else x
    bits = 8 if sel[0] == "b" else 16
    v = (x >> (bits * int(sel[1]))) & ((1 << bits) - 1)
    return sext(v, bits) if signed else v


def vmad(q: list[str], na, asel, nb, bsel, nc, a: int, b: int, c: int) -> int:
    """Signed 32x32 multiply (a whole .u32 word counts as signed), c sign-extended, 64-bit
    wrap; the shift and .sat follow the final sign (a signed source or a negation)."""
    _, at, bt = (t == "s32" for t in q if t in ("u32", "s32"))   # the destination type: no part
    p = part(a, asel, at or asel is None) * part(b, bsel, bt or bsel is None)
    cc, lsb = sext(c, 32), 0
    if "po" in q:
        lsb = 1
    elif bool(na) != bool(nb):
        p, lsb = ~p, 1
    elif nc:
        cc, lsb = ~cc, 1
    signed = at or bt or bool(na) != bool(nb) or bool(nc)
    v = (p + cc + lsb) & ((1 << 64) - 1)
    v = (sext(v, 64) if signed else v) >> (7 if "shr7" in q else 15 if "shr15" in q else 0)
    if "sat" in q:
        v = sext(v, 64)
        v = max(min(v, 2**31 - 1), -2**31) if signed else max(min(v, M32), 0)
    return v & M32


def reference(form: str, a: int, b: int, c: int) -> int:
    op, quals, dsel, na, asel, nb, bsel, nc = FORM.match(form).groups()
    q = quals.split(".")
    if op == "vmad":
        return vmad(q, na, asel, nb, bsel, nc, a, b, c)
    types = [t == "s32" for t in q if t in ("u32", "s32")]
    sat = "sat" in q
    secop = next((t for t in q if t in ("add", "min", "max")), None)
    if op == "vset":
        at, bt = types
        dsigned = at                                # vset's secondary op compares as atype
    else:
        dsigned, at, bt = types
    ta = part(a, asel, at)
    if op in ("vshl", "vshr"):
        n = part(b, bsel, False)
        n = min(n, 32) if "clamp" in q else n & 31
        exact = ta << n if op == "vshl" else ta >> n
        v = sext(exact, 34) if op == "vshl" else exact      # .sat sees vshl's 34 bits
    else:
        tb = part(b, bsel, bt)
        if op == "vset":
            exact = int(CMP[next(t for t in q if t in CMP)](ta, tb))
        else:
            exact = {"vadd": ta + tb, "vsub": ta - tb, "vabsdiff": abs(ta - tb),
                     "vmin": min(ta, tb), "vmax": max(ta, tb)}[op]
        v = exact
    lo, hi = v & M32, v >> 32
    word = exact & M32
    bits = 32 if dsel is None else 8 if dsel[0] == "b" else 16
    if sat:
        if bits < 32 and op not in ("vshl", "vshr"):
            word = min(M32 if hi else lo, (1 << (bits - 1)) - 1 if dsigned else (1 << bits) - 1)
        elif dsigned:
            word = max(min(v, 2**31 - 1), -2**31) & M32
        elif op in ("vshl", "vshr"):
            word = 0 if v < 0 else min(v, M32)
        else:
            word = 0 if v < 0 else lo                # no cap: larger results wrap
    if secop == "add":
        return (word + c) & M32
    if secop:
        t = sext(word, 32) if sat or op in ("vadd", "vsub") else exact
        cc = sext(c, 32) if dsigned else c
        if not dsigned:                               # unsigned 64-bit comparison
            t, cc = t % 2**64, cc % 2**64
        return (min if secop == "min" else max)(t, cc) & M32
    if dsel is None:
        return word
    if dsel == "h1":                                  # the word's upper half, not its low half
        return (c & 0xFFFF) | (word & 0xFFFF0000)
    shift = bits * int(dsel[1])
    field = ((1 << bits) - 1) << shift
    return ((word << shift) & field) | (c & ~field & M32)


def test_reference_matches_recorded_hardware():
    """The rules above reproduce all 200 recorded scalar forms bit for bit, 128 inputs each."""
    data = np.load(Path(__file__).resolve().parent / "data" / "hw_results.npz")
    checked = 0
    for name in sorted({k.rsplit(".", 1)[0] for k in data.files if k.startswith("j")}):
        lines = str(data[f"{name}.ptx"]).splitlines()
        forms = [lines[i + 1] for i, ln in enumerate(lines) if ln == "mov.b32 %d, %c;"]
        rows, want = data[f"{name}.in"], data[f"{name}.out"]
        for j, form in enumerate(forms):
            if not FORM.match(form):
                continue
            checked += 1
            for row, w in zip(rows, want[:, j]):
                a, b, c = (int(x) & M32 for x in row[:3])
                assert reference(form, a, b, c) == int(w), (form, hex(a), hex(b), hex(c))
    assert checked == 200


def _random_form(rng: random.Random) -> str:
    ty = lambda: rng.choice((".u32", ".s32"))  # noqa: E731
    op = rng.choice(("vadd", "vsub", "vabsdiff", "vmin", "vmax", "vshl", "vshr", "vset", "vmad"))
    asel, bsel = rng.choice(SEL), rng.choice(SEL)
    a, b = "%a" + (f".{asel}" if asel else ""), "%b" + (f".{bsel}" if bsel else "")
    if op == "vmad":
        opcode = f"vmad{ty()}{ty()}{ty()}" + rng.choice(("", ".po")) + rng.choice(("", ".sat"))
        opcode += rng.choice(("", ".shr7", ".shr15"))
        neg = "none" if ".po" in opcode else rng.choice(("none", "a", "b", "ab", "c"))
        a, b = ("-" + a if "a" in neg else a), ("-" + b if "b" in neg else b)
        return f"{opcode} %d, {a}, {b}, {'-' if neg == 'c' else ''}%c;"
    if op == "vset":
        opcode = f"vset{ty()}{ty()}.{rng.choice(tuple(CMP))}"
    elif op in ("vshl", "vshr"):
        opcode = f"{op}{ty()}{ty()}.u32" + rng.choice(("", ".sat")) + rng.choice((".clamp", ".wrap"))
    else:
        opcode = f"{op}{ty()}{ty()}{ty()}" + rng.choice(("", ".sat"))
    tail = rng.choice((None, "secop", "merge"))
    if tail == "secop":
        return f"{opcode}.{rng.choice(('add', 'min', 'max'))} %d, {a}, {b}, %c;"
    if tail == "merge":
        return f"{opcode} %d.{rng.choice(SEL[1:])}, {a}, {b}, %c;"
    return f"{opcode} %d, {a}, {b};"


@pytest.mark.parametrize("seed", range(12))
def test_scalar_video_follows_the_measured_rules(seed):
    rng = random.Random(seed)
    lines = [_random_form(rng) for _ in range(8)]
    nrng = np.random.default_rng(seed)
    x = nrng.integers(0, 2**32, (64, 3), dtype=np.uint64)
    x[:16] = nrng.choice(np.array([0, 1, 31, 32, 0x7F, 0x80, 0xFF, 0x7FFF, 0x8000, 0xFFFF,
                                   0x7FFFFFFF, 0x80000000, 0xFFFFFFFF], np.uint64), (16, 3))
    x[16:32] = nrng.integers(0, 40, (16, 3), dtype=np.uint64)
    body = "cvt.u32.u64 %a, %in0; cvt.u32.u64 %b, %in1; cvt.u32.u64 %c, %in2;\n"
    body += "\n".join(f"mov.b32 %d, %c; {line} cvt.u64.u32 %out{j}, %d;" for j, line in enumerate(lines))
    out = run(body, x, ".reg .b32 %a, %b, %c, %d;")
    for row, o in zip(x, out):
        a, b, c = (int(v) for v in row)
        for j, line in enumerate(lines):
            assert int(o[j]) == reference(line, a, b, c), (line, hex(a), hex(b), hex(c))
