"""Bit-field masks, sign/zero extension at a bit position, packing conversions and the n-th set
bit: `bmsk` (PTX ISA 9.7.1.22), `szext` (9.7.1.21), `cvt.pack` (9.7.9.22), `fns` (9.7.1.17)."""
from __future__ import annotations

import numpy as np

from ptxld.emu.alu.core import BUILDERS, Op, Quals, Unsupported, builder

U32 = np.uint32
ONES = U32(0xFFFFFFFF)


def _shl(x, n):
    """x << n for n in 0..63 (NumPy leaves shifts >= the width undefined): 0 beyond 31."""
    n = np.asarray(n, np.uint32)
    return np.where(n >= 32, U32(0), np.asarray(x, U32) << np.minimum(n, 31).astype(U32))


@builder("bmsk")
def _bmsk(q: Quals) -> Op:
    mode = q.one(".clamp", ".wrap", required=True)
    q.type((".b32",))

    def fn(a, b):
        a1, b1 = a & U32(31), b & U32(31)
        mask0 = _shl(ONES, a1)
        total = a1 + b1
        overflow = total >= 32
        if mode == ".clamp":
            mask0 = np.where(a >= 32, U32(0), mask0)
            overflow = overflow | (a >= 32) | (b >= 32)
        mask1 = np.where(overflow, U32(0), np.where(b1 == 0, ONES, _shl(ONES, total)))
        return (mask0 & ~mask1,)
    return Op(q.opcode, (".b32",), (".b32", ".b32"), fn)


@builder("szext")
def _szext(q: Quals) -> Op:
    mode = q.one(".clamp", ".wrap", required=True)
    t = q.type((".u32", ".s32"))

    def fn(a, b):
        b1 = b & U32(31)
        too_large = (b >= 32) if mode == ".clamp" else np.zeros(b.shape, bool)
        mask = np.where(too_large, U32(0), _shl(ONES, b1))
        sign_pos = (b1 - U32(1)) & U32(31)
        sign = (a >> sign_pos) & U32(1)
        keep_sign = (t == ".s32") & (b1 != 0) & ~too_large & (sign == 1)
        return ((a & ~mask) | np.where(keep_sign, mask, U32(0)),)
    return Op(q.opcode, (t,), (t, ".u32"), fn)


_PACK_SIZES = {".u16": 16, ".s16": 16, ".u8": 8, ".s8": 8, ".u4": 4, ".s4": 4, ".u2": 2, ".s2": 2}
_plain_cvt = BUILDERS["cvt"]


@builder("cvt")
def _cvt_or_pack(q: Quals) -> Op:
    if q.name != "cvt.pack":
        return _plain_cvt(q)
    if not q.flag(".sat"):
        raise Unsupported(f"{q.opcode}: cvt.pack needs .sat")
    types = list(q.types)
    # convertType may be a sub-byte type the type table lacks (.u4, .s2): read it from the rest
    sub = [m for m in q.rest if m in _PACK_SIZES]
    for m in sub:
        q.rest.remove(m)
    conv = sub[0] if sub else (types.pop(0) if types and types[0] in _PACK_SIZES else None)
    if conv is None or types[:1] != [".s32"]:
        raise Unsupported(f"{q.opcode}: cvt.pack needs .convertType.s32")
    size = _PACK_SIZES[conv]
    with_c = size < 16
    if with_c != (types[1:] == [".b32"]):
        raise Unsupported(f"{q.opcode}: the .b32 operand c goes with 8-, 4- and 2-bit types only")
    lo, hi = (-(1 << (size - 1)), (1 << (size - 1)) - 1) if conv[1] == "s" else (0, (1 << size) - 1)
    field = (1 << size) - 1

    def sat(x):
        return (np.clip(x.view(np.int32).astype(np.int64), lo, hi) & field).astype(U32)

    def fn(a, b, c=None):
        d = sat(b) | (sat(a) << U32(size))
        if c is not None:
            d = d | (c << U32(2 * size))
        return (d,)
    srcs = (".s32", ".s32", ".b32") if with_c else (".s32", ".s32")
    return Op(q.opcode, (".u32",), srcs, fn)


@builder("fns")
def _fns(q: Quals) -> Op:
    q.type((".b32",))
    positions = np.arange(32, dtype=np.int64)

    def fn(mask, base, offset):
        bits = ((mask.astype(np.int64)[:, None] >> positions) & 1).astype(bool)
        base = base.astype(np.int64)
        off = offset.view(np.int32).astype(np.int64)
        up = (positions[None, :] >= base[:, None]) & bits        # offset > 0: from base upwards
        down = (positions[None, :] <= base[:, None]) & bits      # offset < 0: from base downwards
        rank_up = np.cumsum(up, axis=1)
        rank_down = np.cumsum(down[:, ::-1], axis=1)[:, ::-1]
        n = np.abs(off)[:, None]
        hit = np.where(off[:, None] > 0, up & (rank_up == n), down & (rank_down == n))
        found = hit.any(axis=1)
        pos = np.where(off[:, None] > 0, hit.argmax(axis=1)[:, None],
                       31 - hit[:, ::-1].argmax(axis=1)[:, None])[:, 0]
        d = np.where(found, pos, -1)
        at_base = (base < 32) & ((mask.astype(np.int64) >> np.minimum(base, 31)) & 1 == 1)
        d = np.where(off == 0, np.where(at_base, base, -1), d)
        return (d.astype(np.int64).astype(np.uint32),)
    return Op(q.opcode, (".b32",), (".b32", ".u32", ".s32"), fn)
