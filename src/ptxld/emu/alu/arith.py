"""Builders for arithmetic opcodes, integer and floating point (PTX ISA §9.7.1, §9.7.3, §9.7.4)."""
from __future__ import annotations

import numpy as np

from ptxld.emu.alu import floating as float_ops
from ptxld.emu.alu import integer as int_ops
from ptxld.emu.alu.core import Op, Quals, Unsupported, builder
from ptxld.emu.alu.ptxtypes import TYPES

INT16_64 = (".u16", ".u32", ".u64", ".s16", ".s32", ".s64")
INT8_64 = (".u8", ".s8") + INT16_64
PACKED_INT = (".u16x2", ".s16x2")


def _rnd(q: Quals, default: str | None = "rn") -> str | None:
    r = q.one(*float_ops.ROUND_QUALS)
    return r[1:] if r else default


def _float_flags(q: Quals, t: str, sat_ok=True):
    ftz = q.flag(".ftz")
    sat = q.flag(".sat") if sat_ok else False
    if ftz and lane_fmt(t) in (float_ops.round_ops.F64, float_ops.round_ops.BF16):
        raise Unsupported(f"{q.opcode}: .ftz is not defined for {t}")
    return ftz, sat


def lane_fmt(t: str):
    return float_ops.FMT[float_ops.lane_type(t).name]


def _unary(q, dst, src, fn):
    return Op(q.opcode, (dst,), (src,), lambda a: (fn(a),))


def _binary(q, t, fn, srcs=None):
    return Op(q.opcode, (t,), srcs or (t, t), lambda a, b: (fn(a, b),))


def _float_arith(q: Quals, t: str, kind: str) -> Op:
    mode = _rnd(q)
    relu = q.flag(".relu") if kind == "fma" else False
    ftz, sat = _float_flags(q, t, sat_ok=not relu)
    fn = float_ops.over_lanes(t, float_ops.arith(kind, lane_fmt(t), mode, ftz=ftz, sat=sat, relu=relu))
    n = 3 if kind == "fma" else 2
    return Op(q.opcode, (t,), (t,) * n, lambda *s: (fn(*s),))


# -- add / sub -----------------------------------------------------------------------------

@builder("add", "sub")
def _add_sub(q: Quals) -> Op:
    t = q.type()
    if t in float_ops.FLOAT_TYPES:
        return _float_arith(q, t, q.base)
    pt = TYPES[q.type(INT8_64 + PACKED_INT)]
    sat = q.flag(".sat")
    if sat and t != ".s32":
        raise Unsupported(f"{q.opcode}: .sat applies to .s32 only")
    sub = q.base == "sub"

    def scalar(a, b):
        if sat:   # §9.7.1.1: clamp to MININT..MAXINT
            v = int_ops.to_int64(a, True) + (-1 if sub else 1) * int_ops.to_int64(b, True)
            return int_ops.saturate_i64(v, pt)
        return a - b if sub else a + b
    if pt.kind == "packed":
        fn, _ = int_ops.lanewise(scalar, pt)
        return _binary(q, t, fn)
    return _binary(q, t, scalar)


# -- mul / mad / fma -----------------------------------------------------------------------

@builder("mul", "mad")
def _mul_mad(q: Quals) -> Op:
    t = q.type()
    if t in float_ops.FLOAT_TYPES:
        return _float_arith(q, t, "mul" if q.base == "mul" else "fma")
    part = q.one(".lo", ".hi", ".wide", required=True)
    pt = TYPES[q.type(INT16_64)]
    sat = q.base == "mad" and q.flag(".sat")
    if sat and (t != ".s32" or part != ".hi"):
        raise Unsupported(f"{q.opcode}: .sat applies to mad.hi.s32 only")
    if part == ".wide" and pt.bits == 64:
        raise Unsupported(f"{q.opcode}: .wide needs a 16- or 32-bit type")
    wide_t = (".s" if pt.signed else ".u") + str(2 * pt.bits)
    dst = wide_t if part == ".wide" else t

    def product(a, b):
        if part == ".lo":
            return a * b
        if part == ".hi":
            return int_ops.mul_hi(a, b, pt)
        return int_ops.mul_wide(a, b, pt)

    if q.base == "mul":
        return _binary(q, dst, product, (t, t))

    def mad(a, b, c):
        if sat:   # mad.hi.sat.s32: saturate hi(a*b) + c
            v = int_ops.to_int64(int_ops.mul_hi(a, b, pt), True) + int_ops.to_int64(c, True)
            return (int_ops.saturate_i64(v, pt),)
        return (product(a, b) + c,)
    return Op(q.opcode, (dst,), (t, t, dst), mad)


@builder("fma")
def _fma(q: Quals) -> Op:
    return _float_arith(q, q.type(float_ops.FLOAT_TYPES), "fma")


@builder("mul24", "mad24")
def _mul24(q: Quals) -> Op:
    """§9.7.1.6/7: 24-bit operands (low 24 bits, sign-extended for .s32) give a 48-bit product;
    .lo keeps bits [31:0], .hi bits [47:16]. mad24.hi.sat.s32 saturates the 32-bit sum."""
    part = q.one(".lo", ".hi", required=True)
    t = q.type((".u32", ".s32"))
    pt = TYPES[t]
    sat = q.base == "mad24" and q.flag(".sat")
    if sat and (t != ".s32" or part != ".hi"):
        raise Unsupported(f"{q.opcode}: .sat applies to mad24.hi.s32 only")

    def p48(a, b):
        x = (a & np.uint32(0xFFFFFF)).astype(np.int64)
        y = (b & np.uint32(0xFFFFFF)).astype(np.int64)
        if pt.signed:
            x = np.where(x >= 1 << 23, x - (1 << 24), x)
            y = np.where(y >= 1 << 23, y - (1 << 24), y)
        p = x * y
        return (p if part == ".lo" else p >> 16) & 0xFFFFFFFF

    if q.base == "mul24":
        return _binary(q, t, lambda a, b: p48(a, b).astype(np.uint32))

    def mad(a, b, c):
        v = p48(a, b)
        if sat:
            v = np.where(v >= 1 << 31, v - (1 << 32), v) + int_ops.to_int64(c, True)
            return (int_ops.saturate_i64(v, pt),)
        return ((v + c.astype(np.int64)) & 0xFFFFFFFF).astype(np.uint32),
    return Op(q.opcode, (t,), (t, t, t), mad)


# -- div / rem / rcp / sqrt ----------------------------------------------------------------

@builder("div")
def _div(q: Quals) -> Op:
    t = q.type()
    if t in (".f32", ".f64"):
        fmt = float_ops.FMT[t]
        kind = q.one(".approx", ".full")
        mode = _rnd(q, None)
        ftz, _ = _float_flags(q, t, sat_ok=False)
        if kind == ".approx" and t == ".f32" and mode is None:
            fn = float_ops.div_approx_f32(ftz)
        elif kind == ".full" and t == ".f32" and mode is None:
            fn = float_ops.divide(fmt, "rn", ftz=ftz)        # 2-ulp bound; correctly rounded here
        elif kind is None and mode is not None:
            fn = float_ops.divide(fmt, mode, ftz=ftz)
        else:
            raise Unsupported(f"{q.opcode}: needs one of .approx/.full (f32) or .rn/.rz/.rm/.rp")
        return _binary(q, t, fn)
    pt = TYPES[q.type(INT16_64)]
    return _binary(q, t, lambda a, b: int_ops.divide(a, b, pt, want_rem=False))


@builder("rem")
def _rem(q: Quals) -> Op:
    pt = TYPES[q.type(INT16_64)]
    return _binary(q, pt.name, lambda a, b: int_ops.divide(a, b, pt, want_rem=True))


@builder("rcp", "sqrt")
def _rcp_sqrt(q: Quals) -> Op:
    t = q.type((".f32", ".f64"))
    fmt = float_ops.FMT[t]
    approx = q.flag(".approx")
    mode = _rnd(q, None)
    ftz = q.flag(".ftz")
    if ftz and t == ".f64" and not approx:
        raise Unsupported(f"{q.opcode}: .ftz is not defined for {t}")
    if approx == (mode is not None):
        raise Unsupported(f"{q.opcode}: needs exactly one of .approx or .rn/.rz/.rm/.rp")
    if approx:
        fn = float_ops.approx(q.base, fmt, ftz=ftz)
    elif q.base == "sqrt":
        fn = float_ops.sqrt(fmt, mode, ftz=ftz)
    else:
        div = float_ops.divide(fmt, mode, ftz=ftz)
        one = fmt.bits == 32 and np.uint32(0x3F800000) or np.uint64(0x3FF0000000000000)
        fn = lambda a: div(np.full(a.shape, one, dtype=a.dtype), a)  # noqa: E731
    return _unary(q, t, t, fn)


@builder("rsqrt", "ex2", "lg2", "sin", "cos", "tanh")
def _approx(q: Quals) -> Op:
    q.one(".approx", required=True)
    t = q.type(float_ops.FLOAT_TYPES)
    ftz = q.flag(".ftz")
    allowed = {"rsqrt": (".f32", ".f64"), "ex2": float_ops.FLOAT_TYPES[:1] + float_ops.FLOAT_TYPES[2:],
               "tanh": float_ops.FLOAT_TYPES[:1] + float_ops.FLOAT_TYPES[2:]}.get(q.base, (".f32",))
    if t not in allowed:
        raise Unsupported(f"{q.opcode}: {q.base}.approx is not defined for {t}")
    fn = float_ops.over_lanes(t, float_ops.approx(q.base, lane_fmt(t), ftz=ftz))
    return _unary(q, t, t, fn)


# -- abs / neg / min / max / copysign / testp ----------------------------------------------

@builder("abs", "neg")
def _abs_neg(q: Quals) -> Op:
    t = q.type()
    if t in float_ops.FLOAT_TYPES:
        ftz, _ = _float_flags(q, t, sat_ok=False)
        return _unary(q, t, t, float_ops.abs_neg(t, q.base == "abs", ftz))
    pt = TYPES[q.type((".s8", ".s16", ".s32", ".s64"))]

    def run(a):
        s = int_ops._s(a)
        return int_ops._u(np.where(s < 0, -s, s) if q.base == "abs" else -s)
    return _unary(q, t, t, run)


@builder("min", "max")
def _min_max(q: Quals) -> Op:
    t = q.type()
    is_max = q.base == "max"
    if t in float_ops.FLOAT_TYPES:
        ftz, _ = _float_flags(q, t, sat_ok=False)
        nan = q.flag(".NaN")
        xs = q.flag(".xorsign")
        if xs != q.flag(".abs"):
            raise Unsupported(f"{q.opcode}: .xorsign and .abs come together")
        relu = q.flag(".relu")
        fn = float_ops.over_lanes(t, float_ops.minmax(lane_fmt(t), is_max, ftz=ftz, nan=nan, xorsign_abs=xs,
                                      relu=relu))
        return _binary(q, t, fn)
    pt = TYPES[q.type(INT8_64 + PACKED_INT)]
    relu = q.flag(".relu")
    if relu and t not in (".s32", ".s16x2"):
        raise Unsupported(f"{q.opcode}: .relu applies to .s32 and .s16x2 only")

    def scalar(a, b, signed=pt.signed or t == ".s16x2"):
        x, y = (int_ops._s(a), int_ops._s(b)) if signed else (a, b)
        r = np.maximum(x, y) if is_max else np.minimum(x, y)
        if relu:
            r = np.maximum(r, 0)
        return int_ops._u(r) if signed else r
    if pt.kind == "packed":
        fn, _ = int_ops.lanewise(scalar, pt)
        return _binary(q, t, fn)
    return _binary(q, t, scalar)


@builder("copysign")
def _copysign(q: Quals) -> Op:
    pt = TYPES[q.type((".f32", ".f64"))]
    return _binary(q, pt.name, float_ops.copysign(pt))


@builder("testp")
def _testp(q: Quals) -> Op:
    kind = q.one(".finite", ".infinite", ".number", ".notanumber", ".normal", ".subnormal",
                 required=True)
    t = q.type((".f32", ".f64"))
    return _unary(q, ".pred", t, float_ops.testp(kind, float_ops.FMT[t]))


# -- sad / dp4a / dp2a ---------------------------------------------------------------------

@builder("sad")
def _sad(q: Quals) -> Op:
    """sad.type d, a, b, c: d = c + |a - b| (§9.7.1.12)."""
    pt = TYPES[q.type(INT16_64)]

    def run(a, b, c):
        if pt.signed:
            x, y = int_ops._s(a), int_ops._s(b)
            big = np.maximum(x, y)
            small = np.minimum(x, y)
            diff = int_ops._u(big) - int_ops._u(small)
        else:
            diff = np.maximum(a, b) - np.minimum(a, b)
        return (c + diff,)
    return Op(q.opcode, (pt.name,), (pt.name,) * 3, run)


def _bytes(x: np.ndarray, signed: bool, width: int, count: int) -> list[np.ndarray]:
    out = []
    for i in range(count):
        v = ((x.astype(np.int64) >> (width * i)) & ((1 << width) - 1))
        if signed:
            v = np.where(v >= 1 << (width - 1), v - (1 << width), v)
        out.append(v)
    return out


@builder("dp4a", "dp2a")
def _dp(q: Quals) -> Op:
    """dp4a.atype.btype d, a, b, c: d = c + Σ a.byte[i]·b.byte[i]; dp2a.{lo,hi}: 16-bit halves of a
    times bytes {0,1} (.lo) or {2,3} (.hi) of b (§9.7.1.23/24). c and d are .s32 when either
    input is signed, else .u32; the sum wraps modulo 2^32."""
    half = q.one(".lo", ".hi", required=q.base == "dp2a")
    if len(q.types) != 2 or any(t not in (".u32", ".s32") for t in q.types):
        raise Unsupported(f"{q.opcode}: needs .atype.btype from .u32/.s32")
    at, bt = q.types
    q.types = []
    ct = ".s32" if ".s32" in (at, bt) else ".u32"

    def run(a, b, c):
        if q.base == "dp4a":
            xa, xb = _bytes(a, at == ".s32", 8, 4), _bytes(b, bt == ".s32", 8, 4)
            pairs = zip(xa, xb)
        else:
            xa = _bytes(a, at == ".s32", 16, 2)
            xb = _bytes(b, bt == ".s32", 8, 4)
            k = 0 if half == ".lo" else 2
            pairs = zip(xa, xb[k:k + 2])
        acc = c.astype(np.int64) & 0xFFFFFFFF
        for x, y in pairs:
            acc = acc + x * y
        return ((acc & 0xFFFFFFFF).astype(np.uint32),)
    return Op(q.opcode, (ct,), (at, bt, ct), run)
