"""Integer arithmetic (PTX ISA §9.7.1 integer arithmetic instructions, §9.7.2 extended precision).

All operations run on unsigned containers, which wrap modulo 2^w as PTX requires; signed
semantics come from reinterpreting the same bits (two's complement).
"""
from __future__ import annotations

import numpy as np

from ptxld.emu.alu.ptxtypes import TYPES, PtxType, join_lanes, signed_dtype, split_lanes, unsigned_dtype

M32 = np.uint64(0xFFFFFFFF)


def _s(x: np.ndarray) -> np.ndarray:
    return x.view(signed_dtype(x.dtype.itemsize * 8))


def _u(x: np.ndarray) -> np.ndarray:
    return x.view(unsigned_dtype(x.dtype.itemsize * 8))


def limits(t: PtxType) -> tuple[int, int]:
    w = t.bits
    return (-(1 << (w - 1)), (1 << (w - 1)) - 1) if t.signed else (0, (1 << w) - 1)


def to_int64(x: np.ndarray, signed: bool) -> np.ndarray:
    """Widen a ≤32-bit container to int64 (exact)."""
    return (_s(x) if signed else x).astype(np.int64)


def saturate_i64(v: np.ndarray, t: PtxType) -> np.ndarray:
    lo, hi = limits(t)
    return np.clip(v, lo, hi).astype(np.int64).view(np.uint64).astype(t.dtype)


# -- 64x64 -> 128 products -----------------------------------------------------------------

def mul_hi_u64(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a0, a1 = a & M32, a >> np.uint64(32)
    b0, b1 = b & M32, b >> np.uint64(32)
    p00, p01, p10, p11 = a0 * b0, a0 * b1, a1 * b0, a1 * b1
    mid = (p00 >> np.uint64(32)) + (p01 & M32) + (p10 & M32)
    return p11 + (p01 >> np.uint64(32)) + (p10 >> np.uint64(32)) + (mid >> np.uint64(32))


def mul_hi_s64(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    hi = mul_hi_u64(a, b)
    hi = hi - np.where(_s(a) < 0, b, np.uint64(0))
    return hi - np.where(_s(b) < 0, a, np.uint64(0))


def mul_hi(a: np.ndarray, b: np.ndarray, t: PtxType) -> np.ndarray:
    if t.bits == 64:
        return mul_hi_s64(a, b) if t.signed else mul_hi_u64(a, b)
    p = to_int64(a, t.signed) * to_int64(b, t.signed)
    return (p >> t.bits).view(np.uint64).astype(t.dtype)


def mul_wide(a: np.ndarray, b: np.ndarray, t: PtxType) -> np.ndarray:
    p = to_int64(a, t.signed) * to_int64(b, t.signed)
    return p.view(np.uint64).astype(unsigned_dtype(2 * t.bits))


# -- division ------------------------------------------------------------------------------

def divide(a: np.ndarray, b: np.ndarray, t: PtxType, want_rem: bool) -> np.ndarray:
    """div/rem (§9.7.1.8/9): truncating; x/0 and x%0 give all ones (value of nvcc's sm_70+
    sequence, whose tail is ``@!P LOP3.LUT Rd, RZ, Rb, RZ, 0x33`` = ~b); MIN/-1 wraps to MIN."""
    zero = b == 0
    bs = np.where(zero, b.dtype.type(1), b)
    if t.signed:
        sa, sb = _s(a), _s(bs)
        ua = _u(np.where(sa < 0, -sa, sa))           # |MIN| wraps to 2^(w-1) as unsigned: exact
        ub = _u(np.where(sb < 0, -sb, sb))
        if want_rem:
            r = ua % ub
            r = np.where(sa < 0, -_s(r), _s(r))
            out = _u(r)
        else:
            q = ua // ub
            out = _u(np.where((sa < 0) != (sb < 0), -_s(q), _s(q)))
    else:
        out = a % bs if want_rem else a // bs
    return np.where(zero, ~b.dtype.type(0), out).astype(t.dtype)


# -- packed 16x2 helpers -------------------------------------------------------------------

def lanewise(fn, t: PtxType):
    """Lift a scalar-lane function over the lanes of a packed integer type (lane 0 = low bits)."""
    lane_t = TYPES[t.lane]

    def run(*srcs):
        parts = [split_lanes(s, t.lanes, lane_t.bits) for s in srcs]
        out = [fn(*(p[i] for p in parts)) for i in range(t.lanes)]
        return join_lanes(out, lane_t.bits)
    return run, lane_t


# -- bit counting --------------------------------------------------------------------------

def clz(x: np.ndarray) -> np.ndarray:
    """Leading zeros by binary search over halves (x == 0 gives the width)."""
    w = x.dtype.itemsize * 8
    v = x.astype(np.uint64)
    n = np.zeros(x.shape, dtype=np.uint32)
    s = w // 2
    while s:
        empty = v < np.uint64(1 << (w - s))         # top s bits are zero
        n += np.where(empty, np.uint32(s), np.uint32(0))
        v = np.where(empty, v << np.uint64(s), v)
        s //= 2
    return np.where(x == 0, np.uint32(w), n).astype(np.uint32)


def popc(x: np.ndarray) -> np.ndarray:
    return np.bitwise_count(x).astype(np.uint32)


_BYTE_REV = np.array([int(f"{i:08b}"[::-1], 2) for i in range(256)], dtype=np.uint8)


def brev(x: np.ndarray) -> np.ndarray:
    by = x.astype(x.dtype.newbyteorder("<")).view(np.uint8).reshape(x.shape + (x.dtype.itemsize,))
    return _BYTE_REV[by][..., ::-1].copy().view(f"<u{x.dtype.itemsize}").reshape(x.shape).astype(x.dtype)


def bfind(x: np.ndarray, t: PtxType, shiftamt: bool) -> np.ndarray:
    """§9.7.1.16: position of the most significant non-sign bit; 0xffffffff when there is none."""
    v = np.where(_s(x) < 0, ~x, x) if t.signed else x
    lz = clz(v)
    pos = np.uint32(t.bits - 1) - lz
    out = lz if shiftamt else pos
    return np.where(v == 0, np.uint32(0xFFFFFFFF), out).astype(np.uint32)
