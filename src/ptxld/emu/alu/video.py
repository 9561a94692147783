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


def _saturate_word(v, dsigned: bool, lowering) -> np.ndarray:
    """`.sat` to a 32-bit destination: signed clamps exactly; unsigned floors negatives at 0 and
    caps at 0xFFFFFFFF only where the lowering does (else it keeps the low 32 bits)."""
    if dsigned:
        return _clamp(v, *_range(32, True))
    if lowering.unsigned_sat_caps:
        return _clamp(v, *_range(32, False))
    return np.where(v < 0, 0, v & M32)


def _saturate_merge(v, dsigned: bool, bits: int) -> np.ndarray:
    """`.sat` before a sub-word merge, as lowered: any intermediate outside 32 unsigned bits
    (negative ones included) becomes 0xFFFFFFFF, then an unsigned minimum with the sub-word's
    maximum: a negative result saturates high, never to the sub-word's minimum."""
    word = np.where((v >> 32) != 0, M32, v & M32)
    return np.minimum(word, _range(bits, dsigned)[1])


def finish_scalar(tmp, c, *, dsigned: bool, sat: bool, secop: str | None, dsel: str | None,
                  lowering):
    """Stages 3 and 4 of a scalar video instruction as GPUs compute them (see
    `ScalarLowering`): `.sat` (to 32 bits, or the merge's sub-word where the lowering clamps
    it), then the secondary operation with c or the merge into c.

    The secondary operation compares 64-bit values: the intermediate (or its 32-bit word,
    sign-extended) against c extended per the destination's signedness, signed or unsigned per
    the same; so an unsigned `.min` sees a negative intermediate as a huge number. A `.h1` merge
    keeps c's low half and takes the result word's upper half (not its low half shifted up)."""
    bits = _sub_bits(dsel)
    word_only = sat or lowering.secop_on_word
    if sat:
        v = tmp
        if lowering.sat_bits < 64:
            v = _sext(v, lowering.sat_bits, True)
        if bits < 32 and lowering.merge_clamps_subword:
            tmp = _saturate_merge(v, dsigned, bits)
        else:
            tmp = _saturate_word(v, dsigned, lowering)
    if secop is not None:
        if secop == "add":
            return _words(tmp + _obj(c))
        t = _sext(tmp, 32, True) if word_only else tmp
        cv = _sext(_obj(c), 32, dsigned)
        if not dsigned:                        # an unsigned 64-bit comparison
            t, cv = t & ((1 << 64) - 1), cv & ((1 << 64) - 1)
        return _words(np.minimum(t, cv) if secop == "min" else np.maximum(t, cv))
    if dsel is None:
        return _words(tmp)
    if dsel == "h1":
        return _words((_obj(c) & 0xFFFF) | (tmp & 0xFFFF0000))
    shift = bits * int(dsel[1])
    field = ((1 << bits) - 1) << shift
    return _words(((tmp << shift) & field) | (_obj(c) & (M32 ^ field)))


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
    """vshl/vshr: tb unsigned; .clamp caps it at 32, .wrap keeps its low five bits. The exact
    shifted value (vshr arithmetic for a signed a); `.sat` sees vshl's as 34 bits."""
    tb = np.minimum(tb, 32) if mode == "clamp" else tb & 0x1F
    return ta << tb if op == "vshl" else ta >> tb


def compare(cmp: str, ta, tb):
    return {"eq": ta == tb, "ne": ta != tb, "lt": ta < tb, "le": ta <= tb, "gt": ta > tb,
            "ge": ta >= tb}[cmp].astype(np.int64).astype(object)


def vmad(ta, tb, c, *, neg_ab: bool, neg_c: bool, po: bool, signed_final: bool, scale: int,
         sat: bool):
    """vmad as GPUs compute it: a signed 32x32 -> 64-bit multiply (an unselected .u32 word is
    multiplied as a signed word), negation as one's complement plus the `lsb` carry, c always
    sign-extended, everything modulo 2^64; the scale shift is arithmetic and `.sat` clamps to
    .s32 when the final result is signed (a signed source or a negation), else logical and .u32:
    the destination type plays no part. The caller passes ta/tb already selected."""
    tmp = ta * tb
    cv = _sext(_obj(c), 32, True)
    lsb = 0
    if po:
        lsb = 1
    elif neg_ab:
        tmp = ~tmp
        lsb = 1
    elif neg_c:
        cv = ~cv
        lsb = 1
    result = (tmp + cv + lsb) & ((1 << 64) - 1)
    if signed_final:
        result = _sext(result, 64, True)
    result = result >> scale
    if sat:
        result = _clamp(_sext(result, 64, True), *_range(32, signed_final))
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
