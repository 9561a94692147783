"""Read-modify-write combiners for atom/red (PTX ISA §9.7.13.5 atom, §9.7.13.6 red).

``atom_combine(op, type)`` returns f(old, b[, c]) -> new, element-wise; the caller serialises
threads that hit the same address and keeps ``old`` as atom's result.
"""
from __future__ import annotations

import numpy as np

from ptxld.emu.alu import floating as float_ops
from ptxld.emu.alu import integer as int_ops
from ptxld.emu.alu.core import Unsupported
from ptxld.emu.alu.ptxtypes import TYPES, coerce

_BIT_OPS = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}
_FLOAT_ADD = (".f32", ".f64", ".f16", ".f16x2", ".bf16", ".bf16x2")
_ALLOWED = {
    "add": (".u32", ".s32", ".u64", ".s64") + _FLOAT_ADD,
    "min": (".u32", ".s32", ".u64", ".s64") + _FLOAT_ADD,
    "max": (".u32", ".s32", ".u64", ".s64") + _FLOAT_ADD,
    "inc": (".u32",), "dec": (".u32",),
    "and": (".b32", ".b64"), "or": (".b32", ".b64"), "xor": (".b32", ".b64"),
    "exch": (".b16", ".b32", ".b64", ".b128"), "cas": (".b16", ".b32", ".b64", ".b128"),
}


def atom_combine(op: str, type: str, *, ftz: bool = False):
    """Combiner for ``atom.op.type``. ``ftz=True`` gives the global-memory ``atom.add.f32``
    behaviour (subnormal inputs and result flushed); f16/bf16 adds never flush (.noftz)."""
    op = op.lstrip(".")
    t = type if type.startswith(".") else "." + type
    if op not in _ALLOWED:
        raise Unsupported(f"atom.{op}{t}: unknown atomic operation '{op}'")
    if t not in _ALLOWED[op]:
        if op in _BIT_OPS and t in (".u32", ".s32", ".u64", ".s64"):
            t = ".b" + t[2:]
        else:
            raise Unsupported(f"atom.{op}{t}: type {t} not defined for {op}")
    pt = TYPES[t]

    if op in ("add", "min", "max") and t in _FLOAT_ADD:
        fmt = float_ops.FMT[float_ops.lane_type(t).name]
        if op == "add":
            fn = float_ops.over_lanes(t, float_ops.arith("add", fmt, "rn", ftz=ftz and t == ".f32"))
        else:
            fn = float_ops.over_lanes(t, float_ops.minmax(fmt, op == "max"))

        def run(old, b):
            with np.errstate(all="ignore"):
                return fn(coerce(old, pt), coerce(b, pt))
        return run

    def run(old, b, c=None):
        old, b = coerce(old, pt), coerce(b, pt)
        if op == "add":
            return old + b
        if op in ("min", "max"):
            x, y = (int_ops._s(old), int_ops._s(b)) if pt.signed else (old, b)
            r = np.minimum(x, y) if op == "min" else np.maximum(x, y)
            return int_ops._u(r) if pt.signed else r
        if op == "inc":     # (old >= b) ? 0 : old + 1
            return np.where(old >= b, old.dtype.type(0), old + old.dtype.type(1))
        if op == "dec":     # (old == 0 || old > b) ? b : old - 1
            return np.where((old == 0) | (old > b), b, old - old.dtype.type(1))
        if op in _BIT_OPS:
            return _BIT_OPS[op](old, b)
        if op == "exch":
            return b.copy()
        if c is None:
            raise TypeError(f"atom.cas{t}: needs the swap value c")
        c = coerce(c, pt)
        if pt.bits == 128:
            return np.where(np.all(old == b, axis=-1, keepdims=True), c, old)
        return np.where(old == b, c, old)
    return run
