"""cvt between integer and floating-point types, and mov (PTX ISA §9.7.9.21 cvt, §9.7.9.4 mov).

Every source value is exact in float64 (or an exact hi+lo pair for 64-bit integers), so each
conversion is one exact rounding step (see ``rounding``).
"""
from __future__ import annotations

import numpy as np

from ptxld.emu.alu import floating as float_ops
from ptxld.emu.alu import integer as int_ops
from ptxld.emu.alu import rounding as round_ops
from ptxld.emu.alu.core import Op, Quals, Unsupported, builder
from ptxld.emu.alu.ptxtypes import TYPES, PtxType, join_lanes, split_lanes

INTS = tuple(f".{k}{w}" for k in "us" for w in (8, 16, 32, 64))
FLOATS = (".f16", ".bf16", ".tf32", ".f32", ".f64", ".e4m3", ".e5m2")
IRND = {".rni": np.rint, ".rzi": np.trunc, ".rmi": np.floor, ".rpi": np.ceil}
FRND = (".rn", ".rna", ".rz", ".rm", ".rp")


def int_value(bits: np.ndarray, t: PtxType) -> tuple[np.ndarray, np.ndarray]:
    """Integer bits -> exact (hi, lo) float64 pair (lo = 0 below 54 bits)."""
    if t.bits <= 32:
        return int_ops.to_int64(bits, t.signed).astype(np.float64), np.zeros(bits.shape)
    u = bits.astype(np.uint64)
    neg = (u.view(np.int64) < 0) if t.signed else np.zeros(u.shape, dtype=bool)
    mag = np.where(neg, -u, u)
    hi, lo = round_ops.two_sum((mag >> np.uint64(32)).astype(np.float64) * 2.0 ** 32,
                       (mag & int_ops.M32).astype(np.float64))
    return np.where(neg, -hi, hi), np.where(neg, -lo, lo)


def float_to_int(v: np.ndarray, irnd: str, t: PtxType) -> np.ndarray:
    """Round to integral, then saturate to the destination range; NaN -> 0 (§9.7.9.21)."""
    r = IRND[irnd](v)
    lo, hi = int_ops.limits(t)
    nan = np.isnan(r)
    r = np.where(nan, 0.0, r)
    low, high = r <= lo, r >= float(hi) + 1 if t.bits == 64 else r >= hi
    safe = np.where(low | high, 0.0, r)
    out = (safe.astype(np.uint64) if not t.signed else safe.astype(np.int64).view(np.uint64))
    out = np.where(low, np.uint64(lo & 0xFFFFFFFFFFFFFFFF), out)
    out = np.where(high, np.uint64(hi), out)
    return out.astype(t.dtype)


def _int_to_int(a: np.ndarray, st: PtxType, dt: PtxType, sat: bool) -> np.ndarray:
    """Sign/zero extension by the source type, truncation to the destination; .sat clamps."""
    if sat:
        if st.bits == 64 and not st.signed:
            v = a.astype(np.uint64)
            lo, hi = int_ops.limits(dt)
            return np.minimum(v, np.uint64(hi)).astype(dt.dtype)
        v = int_ops._s(a).astype(np.int64) if st.signed else a.astype(np.int64)
        return int_ops.saturate_i64(v, dt)
    v = int_ops._s(a).astype(np.int64).view(np.uint64) if st.signed else a.astype(np.uint64)
    return v.astype(dt.dtype)


def _finish(v, fmt, *, ftz, sat, relu):
    return float_ops.store(v, fmt, ftz=ftz, sat=sat, relu=relu)


@builder("cvt")
def _cvt(q: Quals) -> Op:
    types = [t for t in q.types]
    if len(types) != 2:
        raise Unsupported(f"{q.opcode}: needs .dtype.atype")
    q.types = []
    dname, sname = types
    irnd = q.one(*IRND)
    frnd = q.one(*FRND)
    ftz, sat = q.flag(".ftz"), q.flag(".sat")
    relu, satfinite = q.flag(".relu"), q.flag(".satfinite")
    if irnd and frnd:
        raise Unsupported(f"{q.opcode}: two rounding modifiers")

    # packed destinations from two f32 sources: d = {cvt(a) high, cvt(b) low}
    if dname in (".f16x2", ".bf16x2", ".e4m3x2", ".e5m2x2") and sname == ".f32":
        lane = TYPES[dname].lane
        fmt = float_ops.FMT[lane]
        if fmt in (round_ops.E4M3, round_ops.E5M2) and not satfinite:
            raise Unsupported(f"{q.opcode}: f8 conversions require .satfinite")
        mode = (frnd or ".rn")[1:]
        bits = fmt.bits

        def pack(a, b):
            halves = []
            for x in (b, a):
                v = round_ops.decode(x, round_ops.F32)
                halves.append(_finish(round_ops.round_to_grid(v, None, fmt, mode, satfinite=satfinite),
                                      fmt, ftz=False, sat=False, relu=relu))
            return (join_lanes(halves, bits),)
        return Op(q.opcode, (dname,), (".f32", ".f32"), pack)
    # packed f8 -> f16x2 (exact widening)
    if dname == ".f16x2" and sname in (".e4m3x2", ".e5m2x2"):
        sf = float_ops.FMT[TYPES[sname].lane]

        def unpack(a):
            parts = [round_ops.encode(round_ops.decode(x, sf), round_ops.F16) for x in split_lanes(a, 2, 8)]
            return (join_lanes(parts, 16),)
        return Op(q.opcode, (dname,), (sname,), unpack)

    if dname not in INTS + FLOATS or sname not in INTS + FLOATS:
        raise Unsupported(f"{q.opcode}: no conversion .{dname[1:]} <- .{sname[1:]}")
    dt, st = TYPES[dname], TYPES[sname]

    if dname in INTS and sname in INTS:
        if irnd or frnd or relu or satfinite:
            raise Unsupported(f"{q.opcode}: rounding has no meaning between integers")
        return Op(q.opcode, (dname,), (sname,), lambda a: (_int_to_int(a, st, dt, sat),))

    if dname in INTS:                        # float -> integer (always saturating)
        if frnd:
            raise Unsupported(f"{q.opcode}: float-to-integer needs .rni/.rzi/.rmi/.rpi")
        sfmt = float_ops.FMT[sname]
        ir = irnd or ".rzi"
        return Op(q.opcode, (dname,), (sname,),
                  lambda a: (float_to_int(float_ops.load(a, sfmt, ftz), ir, dt),))

    dfmt = float_ops.FMT[dname]
    if dfmt in (round_ops.E4M3, round_ops.E5M2) and not satfinite:
        raise Unsupported(f"{q.opcode}: f8 conversions require .satfinite")
    if sname in INTS:                        # integer -> float
        if irnd:
            raise Unsupported(f"{q.opcode}: integer-to-float takes .rn/.rz/.rm/.rp")
        mode = (frnd or ".rn")[1:]

        def i2f(a):
            hi, lo = int_value(a, st)
            if dfmt is round_ops.F64:
                v = round_ops.round_pair_f64(hi, lo, mode)
            else:
                v = round_ops.round_to_grid(hi, lo, dfmt, mode, satfinite=satfinite)
            return (_finish(v, dfmt, ftz=ftz, sat=sat, relu=relu),)
        return Op(q.opcode, (dname,), (sname,), i2f)

    sfmt = float_ops.FMT[sname]                      # float -> float
    if irnd:
        if dname != sname:
            raise Unsupported(f"{q.opcode}: integral rounding needs equal types")
        f = IRND[irnd]
        return Op(q.opcode, (dname,), (sname,),
                  lambda a: (_finish(f(float_ops.load(a, sfmt, ftz)), dfmt, ftz=ftz, sat=sat, relu=relu),))
    mode = (frnd or ".rn")[1:]
    if dfmt.p < sfmt.p or dfmt.emax < sfmt.emax:
        if frnd is None and dfmt is not round_ops.TF32:
            raise Unsupported(f"{q.opcode}: narrowing float conversion needs a rounding modifier")
    elif frnd is not None and dname != sname:
        raise Unsupported(f"{q.opcode}: widening conversion takes no rounding modifier")

    def f2f(a):
        v = float_ops.load(a, sfmt, ftz)
        v = round_ops.round_to_grid(v, None, dfmt, mode, satfinite=satfinite)
        return (_finish(v, dfmt, ftz=ftz, sat=sat, relu=relu),)
    return Op(q.opcode, (dname,), (sname,), f2f)


@builder("mov")
def _mov(q: Quals) -> Op:
    """Register-to-register copy of one typed value (vector pack/unpack is the machine's)."""
    t = q.type()
    return Op(q.opcode, (t,), (t,), lambda a: (a.copy(),))
