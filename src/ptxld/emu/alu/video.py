"""Video instructions (PTX ISA 9.7.18), computed exactly: operands are widened to Python integers
(NumPy object arrays), so the ISA's 33-bit inputs, 34-bit intermediates and the 66-bit vmad
product need no overflow care. Every function takes and returns 32-bit raw words (uint32 arrays).

Selectors are plain values here (`"b1"`, `"h0"`, `"b3210"`, `"h32"`, None); the handler reads
them off the operands.
"""
from __future__ import annotations

import numpy as np

M32 = 0xFFFFFFFF


def _obj(bits) -> np.ndarray:
    return np.asarray(bits, np.uint32).astype(np.int64).astype(object)


def _sext(v: np.ndarray, bits: int, signed: bool) -> np.ndarray:
    v = v & ((1 << bits) - 1)
    if not signed:
        return v
    return np.where(v >= (1 << (bits - 1)), v - (1 << bits), v)


def _words(x: np.ndarray) -> np.ndarray:
    return (x & M32).astype(np.uint64).astype(np.uint32)


def _clamp(x, lo, hi):
    return np.minimum(np.maximum(x, lo), hi)


def _range(bits: int, signed: bool) -> tuple[int, int]:
    return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)


# ---- scalar ------------------------------------------------------------------------------

def part_select(a, sel: str | None, signed: bool) -> np.ndarray:
    """partSelectSignExtend: the selected byte/half-word/word, sign- or zero-extended."""
    v = _obj(a)
    if sel is None:
        return _sext(v, 32, signed)
    size = 8 if sel[0] == "b" else 16
    return _sext(v >> (size * int(sel[1])), size, signed)


def _sub_bits(dsel: str | None) -> int:
    return 32 if dsel is None else (8 if dsel[0] == "b" else 16)


def finish_scalar(tmp, c, *, dsigned: bool, sat: bool, secop: str | None, dsel: str | None):
    """Stages 3 and 4 of a scalar video instruction: optional clamp (to the sub-word of dsel
    when merging), then the secondary operation with c (signed per dtype) or the merge into c."""
    if sat:
        tmp = _clamp(tmp, *_range(_sub_bits(dsel), dsigned))
    if secop is not None:
        cv = _sext(_obj(c), 32, dsigned)
        tmp = {"add": lambda: tmp + cv, "min": lambda: np.minimum(tmp, cv),
               "max": lambda: np.maximum(tmp, cv)}[secop]()
    elif dsel is not None:
        size = _sub_bits(dsel)
        shift = size * int(dsel[1])
        field = ((1 << size) - 1) << shift
        tmp = ((tmp << shift) & field) | (_obj(c) & (M32 ^ field))
    return _words(tmp)


def scalar_op(op: str, ta, tb):
    if op == "vadd":
        return ta + tb
    if op == "vsub":
        return ta - tb
    if op == "vabsdiff":
        return abs(ta - tb)
    if op == "vmin":
        return np.minimum(ta, tb)
    if op == "vmax":
        return np.maximum(ta, tb)
    raise ValueError(op)


def shift(op: str, ta, tb, mode: str):
    """vshl/vshr: tb unsigned; .clamp caps it at 32, .wrap keeps its low five bits."""
    tb = np.minimum(tb, 32) if mode == "clamp" else tb & 0x1F
    return ta << tb if op == "vshl" else ta >> tb


def compare(cmp: str, ta, tb):
    return {"eq": ta == tb, "ne": ta != tb, "lt": ta < tb, "le": ta <= tb, "gt": ta > tb,
            "ge": ta >= tb}[cmp].astype(np.int64).astype(object)


def vmad(ta, tb, c, *, neg_ab: bool, neg_c: bool, po: bool, signed_final: bool, scale: int,
         sat: bool):
    """PTX ISA vmad: the product with negation done as one's complement plus the `lsb` carry,
    c extended per the final sign, scaled by a right shift, kept to 64 bits, then clamped."""
    tmp = (ta * tb) & ((1 << 128) - 1)
    cv = _obj(c)
    lsb = 0
    if po:
        lsb = 1
    elif neg_ab:
        tmp = tmp ^ ((1 << 128) - 1)
        lsb = 1
    elif neg_c:
        cv = cv ^ M32
        lsb = 1
    c128 = _sext(cv, 32, True) if signed_final else cv
    tmp = (tmp + (c128 & ((1 << 128) - 1)) + lsb) & ((1 << 128) - 1)
    result = (tmp >> scale) & ((1 << 64) - 1)
    if sat:
        value = _sext(result, 64, signed_final)
        result = _clamp(value, *_range(32, signed_final))
    return _words(result)


# ---- SIMD --------------------------------------------------------------------------------

def simd_lanes(a, b, sel: str, lanes: int, signed: bool) -> list[np.ndarray]:
    """extractAndSignExt_2/_4: lane i (0 = low) takes the element of {b, a} named by the
    selector digit for lane i (the selector's rightmost digit is lane 0)."""
    size = 32 // lanes
    pool = _obj(a) | (_obj(b) << 32)
    digits = [int(ch) for ch in reversed(sel[1:])]
    return [_sext(pool >> (size * k), size, signed) for k in digits]


def simd_op(op: str, va, vb):
    if op == "vavrg":
        s = va + vb
        return np.where(s >= 0, (s + 1) >> 1, s >> 1)
    return scalar_op(op, va, vb)


def finish_simd(t: list, c, *, lanes: int, dsigned: bool, sat: bool, add: bool, mask: str | None):
    """Clamp each lane to its size (per dtype), then accumulate the masked lanes into c (`.add`)
    or merge them over c's lanes."""
    size = 32 // lanes
    chosen = [int(ch) for ch in mask[1:]] if mask else list(range(lanes))
    if sat:
        t = [_clamp(x, *_range(size, dsigned)) for x in t]
    cv = _obj(c)
    if add:
        acc = cv
        for i in chosen:
            acc = acc + t[i]
        return _words(acc)
    field = (1 << size) - 1
    out = cv & 0
    for i in range(lanes):
        src = t[i] if i in chosen else (cv >> (size * i))
        out = out | ((src & field) << (size * i))
    return _words(out)
