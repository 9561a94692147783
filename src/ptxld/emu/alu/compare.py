"""Comparison and selection: setp, set, selp, slct (PTX ISA §9.7.7)."""
from __future__ import annotations

import numpy as np

from ptxld.emu.alu import floating as float_ops
from ptxld.emu.alu import rounding as round_ops
from ptxld.emu.alu.core import Op, Quals, Unsupported, builder
from ptxld.emu.alu.ptxtypes import TYPES, signed_view, split_lanes, join_lanes

INT_CMP = (".eq", ".ne", ".lt", ".le", ".gt", ".ge", ".lo", ".ls", ".hi", ".hs")
FLOAT_CMP = (".eq", ".ne", ".lt", ".le", ".gt", ".ge", ".equ", ".neu", ".ltu", ".leu", ".gtu",
             ".geu", ".num", ".nan")
BOOL_OPS = {".and": np.logical_and, ".or": np.logical_or, ".xor": np.logical_xor}
CMP_TYPES = (".b16", ".b32", ".b64", ".u16", ".u32", ".u64", ".s16", ".s32", ".s64") + float_ops.FLOAT_TYPES

_ORDERED = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
            "gt": np.greater, "ge": np.greater_equal}
_UNSIGNED_ALIAS = {"lo": "lt", "ls": "le", "hi": "gt", "hs": "ge"}


def compare(cmp: str, t: str, ftz: bool):
    """Bits of two operands of type t (scalar lane type) -> bool array (Table 'comparison ops')."""
    pt = TYPES[t]
    c = cmp[1:]
    if pt.kind == "f":
        fmt = float_ops.FMT[t]

        def run(a, b):
            x, y = float_ops.load(a, fmt, ftz), float_ops.load(b, fmt, ftz)
            unordered = np.isnan(x) | np.isnan(y)
            if c == "num":
                return ~unordered
            if c == "nan":
                return unordered
            if c.endswith("u"):
                return unordered | _ORDERED[c[:-1]](x, y)
            return ~unordered & _ORDERED[c](x, y)
        return run
    if pt.kind == "b" and c not in ("eq", "ne"):
        raise Unsupported(f"setp/set on {t}: only .eq/.ne compare bit types")
    if c in _UNSIGNED_ALIAS:
        return lambda a, b: _ORDERED[_UNSIGNED_ALIAS[c]](a, b)
    if pt.signed:
        return lambda a, b: _ORDERED[c](signed_view(a), signed_view(b))
    return lambda a, b: _ORDERED[c](a, b)


def _cmp_quals(q: Quals, t: str):
    pt = TYPES[t]
    cmp = q.one(*(FLOAT_CMP if pt.kind in ("f", "packed") else INT_CMP), required=True)
    boolop = q.one(*BOOL_OPS)
    ftz = q.flag(".ftz")
    if ftz and t not in (".f32", ".f16", ".f16x2"):
        raise Unsupported(f"{q.opcode}: .ftz is not defined for {t}")
    return cmp, boolop, ftz


@builder("setp")
def _setp(q: Quals) -> Op:
    """setp.CmpOp{.BoolOp}{.ftz}.type p[|q], a, b{, c}: p = t BoolOp c, q = !t BoolOp c.
    For .f16x2/.bf16x2 the two destinations are the two lane results (low lane -> p)."""
    t = q.type(CMP_TYPES)
    cmp, boolop, ftz = _cmp_quals(q, t)
    pt = TYPES[t]
    comb = BOOL_OPS[boolop] if boolop else None
    srcs = (t, t, ".pred") if boolop else (t, t)

    if pt.kind == "packed":
        test = compare(cmp, pt.lane, ftz)

        def lanes(a, b, *c):
            (a0, a1), (b0, b1) = split_lanes(a, 2, 16), split_lanes(b, 2, 16)
            r = [test(a0, b0), test(a1, b1)]
            return tuple(comb(x, c[0]) for x in r) if comb else tuple(r)
        return Op(q.opcode, (".pred", ".pred"), srcs, lanes)

    test = compare(cmp, t, ftz)

    def both(a, b, *c):
        r = test(a, b)
        return (comb(r, c[0]), comb(~r, c[0])) if comb else (r, ~r)
    return Op(q.opcode, (".pred",), srcs, lambda *s: both(*s)[:1], both, (".pred", ".pred"))


def _true_bits(dt: str) -> tuple[int, int]:
    """set's result encoding per destination lane type: (true, false)."""
    if dt in (".f32", ".f16", ".bf16"):
        return {".f32": 0x3F800000, ".f16": 0x3C00, ".bf16": 0x3F80}[dt], 0
    return (1 << TYPES[dt].bits) - 1, 0


@builder("set")
def _set(q: Quals) -> Op:
    """set.CmpOp{.BoolOp}{.ftz}.dtype.stype d, a, b{, c}: d = all ones (integer dtype) or 1.0
    (float dtype) when (a CmpOp b) BoolOp c holds, else 0 (§9.7.7.1, half forms §9.7.4.x)."""
    if len(q.types) != 2:
        raise Unsupported(f"{q.opcode}: needs .dtype.stype")
    dt, st = q.types
    q.types = [st]
    cmp, boolop, ftz = _cmp_quals(q, st)
    spt, dpt = TYPES[st], TYPES[dt]
    comb = BOOL_OPS[boolop] if boolop else None
    srcs = (st, st, ".pred") if boolop else (st, st)
    if spt.kind == "packed":
        lane_dt = {".f16x2": ".f16", ".bf16x2": ".bf16"}.get(dt, ".u16" if dt in (".u32", ".s32") else None)
        if lane_dt is None:
            raise Unsupported(f"{q.opcode}: destination {dt} with {st}")
        test = compare(cmp, spt.lane, ftz)
        tb, fb = _true_bits(lane_dt)

        def lanes(a, b, *c):
            parts = []
            for x, y in zip(split_lanes(a, 2, 16), split_lanes(b, 2, 16)):
                r = test(x, y)
                r = comb(r, c[0]) if comb else r
                parts.append(np.where(r, tb, fb).astype(np.uint16))
            return (join_lanes(parts, 16),)
        return Op(q.opcode, (dt,), srcs, lanes)
    if dt not in (".u32", ".s32", ".f32", ".f16", ".bf16"):
        raise Unsupported(f"{q.opcode}: destination type {dt}")
    test = compare(cmp, st, ftz)
    tb, fb = _true_bits(dt)

    def run(a, b, *c):
        r = test(a, b)
        r = comb(r, c[0]) if comb else r
        return (np.where(r, tb, fb).astype(dpt.dtype),)
    return Op(q.opcode, (dt,), srcs, run)


SEL_TYPES = (".b16", ".b32", ".b64", ".u16", ".u32", ".u64", ".s16", ".s32", ".s64", ".f32", ".f64")


@builder("selp")
def _selp(q: Quals) -> Op:
    t = q.type(SEL_TYPES)
    return Op(q.opcode, (t,), (t, t, ".pred"), lambda a, b, c: (np.where(c, a, b),))


@builder("slct")
def _slct(q: Quals) -> Op:
    """slct.dtype.{s32,f32} d, a, b, c: d = (c >= 0) ? a : b; .ftz flushes a subnormal f32 c
    (then -0 >= 0 holds); NaN c selects b."""
    if len(q.types) != 2:
        raise Unsupported(f"{q.opcode}: needs .dtype.ctype")
    dt, ct = q.types
    q.types = [ct]
    q.type((".s32", ".f32"))
    if dt not in SEL_TYPES:
        raise Unsupported(f"{q.opcode}: destination type {dt}")
    ftz = q.flag(".ftz")

    def run(a, b, c):
        if ct == ".s32":
            ok = signed_view(c) >= 0
        else:
            ok = float_ops.load(c, round_ops.F32, ftz) >= 0
        return (np.where(ok, a, b),)
    return Op(q.opcode, (dt,), (dt, dt, ct), run)
