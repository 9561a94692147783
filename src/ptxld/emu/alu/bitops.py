"""Logic and bit-manipulation instructions (PTX ISA §9.7.1 bfe/bfi/bfind/brev/clz/popc/prmt/dp4a,
§9.7.8 logic and shift: and/or/xor/not/cnot/lop3/shf/shl/shr)."""
from __future__ import annotations

import numpy as np

from ptxld.emu.alu import integer as int_ops
from ptxld.emu.alu.core import Op, Quals, builder
from ptxld.emu.alu.ptxtypes import TYPES

BITS = (".b16", ".b32", ".b64")
LOGIC_TYPES = (".pred",) + BITS


def _safe_shl(x: np.ndarray, n: np.ndarray, w: int) -> np.ndarray:
    n = n.astype(np.uint64)
    return np.where(n >= w, 0, x.astype(np.uint64) << np.minimum(n, w - 1)).astype(np.uint64)


def _safe_shr(x: np.ndarray, n: np.ndarray, w: int) -> np.ndarray:
    n = n.astype(np.uint64)
    return np.where(n >= w, 0, x.astype(np.uint64) >> np.minimum(n, w - 1)).astype(np.uint64)


def _low_mask(k: np.ndarray, w: int) -> np.ndarray:
    k = k.astype(np.uint64)
    ones = np.uint64((1 << w) - 1)
    return np.where(k >= w, ones, (np.uint64(1) << np.minimum(k, 63)) - np.uint64(1)) & ones


# -- logic ---------------------------------------------------------------------------------

@builder("and", "or", "xor")
def _logic(q: Quals) -> Op:
    t = q.type(LOGIC_TYPES)
    f = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[q.base]
    return Op(q.opcode, (t,), (t, t), lambda a, b: (f(a, b),))


@builder("not")
def _not(q: Quals) -> Op:
    t = q.type(LOGIC_TYPES)
    return Op(q.opcode, (t,), (t,), lambda a: (~a,))


@builder("cnot")
def _cnot(q: Quals) -> Op:
    t = q.type(BITS)
    return Op(q.opcode, (t,), (t,), lambda a: ((a == 0).astype(a.dtype),))


@builder("lop3")
def _lop3(q: Quals) -> Op:
    """lop3.b32 d, a, b, c, immLut (§9.7.8.6): LUT bit index = a·4 + b·2 + c per bit position."""
    t = q.type((".b32",))

    def run(a, b, c, lut):
        out = np.zeros_like(a)
        lut = lut.astype(np.uint32) & np.uint32(0xFF)
        for i in range(8):
            term = (a if i & 4 else ~a) & (b if i & 2 else ~b) & (c if i & 1 else ~c)
            out |= np.where((lut >> np.uint32(i)) & np.uint32(1), term, np.uint32(0)).astype(a.dtype)
        return (out,)
    return Op(q.opcode, (t,), (t, t, t, ".b32"), run)


# -- shifts --------------------------------------------------------------------------------

@builder("shl")
def _shl(q: Quals) -> Op:
    """§9.7.8.8: shift amounts greater than the width clamp (result 0)."""
    t = TYPES[q.type(BITS)]

    def run(a, n):
        # every amount below the width (the common case, an immediate included): shift in the
        # type itself, which truncates; otherwise the clamped 64-bit path
        if np.size(n) and int(n.max()) < t.bits:
            return (np.left_shift(a, n.astype(t.dtype, copy=False)),)
        return (_safe_shl(a, n, t.bits).astype(t.dtype),)
    return Op(q.opcode, (t.name,), (t.name, ".u32"), run)


@builder("shr")
def _shr(q: Quals) -> Op:
    """§9.7.8.9: .s fills with the sign bit (amounts >= width give 0 or -1), .b/.u with zeros."""
    t = TYPES[q.type((".b16", ".b32", ".b64", ".u16", ".u32", ".u64", ".s16", ".s32", ".s64"))]

    def run(a, n):
        if t.signed:
            s = int_ops._s(a)
            return (int_ops._u(s >> np.minimum(n, t.bits - 1).astype(s.dtype)),)
        if np.size(n) and int(n.max()) < t.bits:       # every amount below the width: logical
            return (np.right_shift(a, n.astype(t.dtype, copy=False)),)
        return (_safe_shr(a, n, t.bits).astype(t.dtype),)
    return Op(q.opcode, (t.name,), (t.name, ".u32"), run)


@builder("shf")
def _shf(q: Quals) -> Op:
    """shf.{l,r}.{wrap,clamp}.b32 d, a, b, c (§9.7.8.7): funnel shift of the 64-bit {b:a} (b high);
    .wrap uses c mod 32, .clamp min(c, 32); .l keeps the high word, .r the low word."""
    left = q.one(".l", ".r", required=True) == ".l"
    wrap = q.one(".wrap", ".clamp", required=True) == ".wrap"
    t = q.type((".b32",))

    def run(a, b, c):
        n = (c & np.uint32(31)) if wrap else np.minimum(c, np.uint32(32))
        v = (b.astype(np.uint64) << np.uint64(32)) | a.astype(np.uint64)
        n = n.astype(np.uint64)
        r = (v << n) >> np.uint64(32) if left else v >> n
        return ((r & int_ops.M32).astype(np.uint32),)
    return Op(q.opcode, (t,), (t, t, ".u32"), run)


# -- counting ------------------------------------------------------------------------------

@builder("popc", "clz")
def _count(q: Quals) -> Op:
    t = q.type((".b32", ".b64"))
    f = int_ops.popc if q.base == "popc" else int_ops.clz
    return Op(q.opcode, (".u32",), (t,), lambda a: (f(a),))


@builder("brev")
def _brev(q: Quals) -> Op:
    t = q.type((".b32", ".b64"))
    return Op(q.opcode, (t,), (t,), lambda a: (int_ops.brev(a),))


@builder("bfind")
def _bfind(q: Quals) -> Op:
    shiftamt = q.flag(".shiftamt")
    t = TYPES[q.type((".u32", ".s32", ".u64", ".s64"))]
    return Op(q.opcode, (".u32",), (t.name,), lambda a: (int_ops.bfind(a, t, shiftamt),))


# -- bit fields ----------------------------------------------------------------------------

@builder("bfe")
def _bfe(q: Quals) -> Op:
    """bfe.type d, a, b, c (§9.7.1.17): pos = b[7:0], len = c[7:0];
    d[i] = (i < len && pos+i <= msb) ? a[pos+i] : sbit, sbit = signed && len>0 ? a[min(pos+len-1,msb)] : 0."""
    t = TYPES[q.type((".u32", ".s32", ".u64", ".s64"))]
    w = t.bits

    def run(a, b, c):
        pos = (b & np.uint32(0xFF)).astype(np.uint64)
        ln = (c & np.uint32(0xFF)).astype(np.uint64)
        k = np.where(pos >= w, np.uint64(0), np.minimum(ln, np.uint64(w) - np.minimum(pos, w)))
        field = _safe_shr(a, pos, w) & _low_mask(k, w)
        if t.signed:
            top = np.minimum(pos + ln - np.uint64(1), np.uint64(w - 1))
            sbit = ((a.astype(np.uint64) >> np.where(ln == 0, 0, top)) & np.uint64(1)).astype(bool) & (ln > 0)
            field = np.where(sbit, field | (~_low_mask(k, w) & np.uint64((1 << w) - 1)), field)
        return (field.astype(t.dtype),)
    return Op(q.opcode, (t.name,), (t.name, ".u32", ".u32"), run)


@builder("bfi")
def _bfi(q: Quals) -> Op:
    """bfi.type f, a, b, c, d (§9.7.1.18): insert a[len-1:0] into b at pos = c[7:0], len = d[7:0]."""
    t = TYPES[q.type((".b32", ".b64"))]
    w = t.bits

    def run(a, b, c, d):
        pos = (c & np.uint32(0xFF)).astype(np.uint64)
        ln = (d & np.uint32(0xFF)).astype(np.uint64)
        k = np.where(pos >= w, np.uint64(0), np.minimum(ln, np.uint64(w) - np.minimum(pos, w)))
        mask = _safe_shl(_low_mask(k, w), pos, w)
        out = (b.astype(np.uint64) & ~mask) | (_safe_shl(a, pos, w) & mask)
        return (out.astype(t.dtype),)
    return Op(q.opcode, (t.name,), (t.name, t.name, ".u32", ".u32"), run)


# -- byte permute --------------------------------------------------------------------------

# prmt modes (§9.7.8.x prmt table): byte index of the 8-byte {b,a} source chosen for d.b0..d.b3,
# as a function of n = c[1:0].
_PRMT_MODES = {
    ".f4e": lambda n: [n, n + 1, n + 2, n + 3],
    ".b4e": lambda n: [n, n - 1, n - 2, n - 3],
    ".rc8": lambda n: [n, n, n, n],
    ".ecl": lambda n: [np.maximum(n, 0), np.maximum(n, 1), np.maximum(n, 2), np.maximum(n, 3)],
    ".ecr": lambda n: [np.minimum(n, 0), np.minimum(n, 1), np.minimum(n, 2), n],
    ".rc16": lambda n: [2 * (n & 1), 2 * (n & 1) + 1, 2 * (n & 1), 2 * (n & 1) + 1],
}


@builder("prmt")
def _prmt(q: Quals) -> Op:
    """prmt.b32{.mode} d, a, b, c: bytes 0-3 from a, 4-7 from b. Default mode: selector nibble
    c[4i+3:4i] picks byte c[4i+2:4i]; its bit 3 replicates that byte's sign bit instead."""
    mode = q.one(*_PRMT_MODES)
    t = q.type((".b32",))

    def run(a, b, c):
        src = (b.astype(np.uint64) << np.uint64(32)) | a.astype(np.uint64)
        c = c.astype(np.int64)

        def byte(i):
            return ((src >> (np.asarray(i, dtype=np.int64) & 7).astype(np.uint64) * np.uint64(8))
                    & np.uint64(0xFF))
        out = np.zeros(a.shape, dtype=np.uint64)
        if mode is None:
            for k in range(4):
                sel = (c >> (4 * k)) & 0xF
                v = byte(sel & 7)
                v = np.where(sel & 8, np.where(v & np.uint64(0x80), np.uint64(0xFF), np.uint64(0)), v)
                out |= v << np.uint64(8 * k)
        else:
            for k, idx in enumerate(_PRMT_MODES[mode](c & 3)):
                out |= byte(idx) << np.uint64(8 * k)
        return (out.astype(np.uint32),)
    return Op(q.opcode, (t,), (t, t, t), run)
