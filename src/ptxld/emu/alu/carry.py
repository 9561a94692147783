"""Extended-precision integer arithmetic (PTX ISA 9.7.2): `add.cc`, `addc{.cc}`, `sub.cc`,
`subc{.cc}`, `mad{.lo,.hi}.cc`, `madc{.lo,.hi}{.cc}` on .u32/.s32/.u64/.s64.

The condition code's carry flag CC.CF is one bit per thread. An op reads it as its last source
(`carry_in`) and writes it as its last destination (`carry_out`); the program keeps it in a
register of its own. `sub` and `subc` use CF as a borrow: `subc` computes a - (b + CF), and the
flag written is the borrow out (1 when the exact difference is negative).
"""
from __future__ import annotations

from ptxld.emu.alu import integer as int_ops
from ptxld.emu.alu.core import BUILDERS, Op, Quals, Unsupported, builder
from ptxld.emu.alu.ptxtypes import TYPES

CARRY_TYPES = (".u32", ".s32", ".u64", ".s64")
CF = ".pred"

_plain = {name: BUILDERS[name] for name in ("add", "sub", "mad")}


def _add(a, b, cin):
    """a + b + cin and its carry out (unsigned wrap-around)."""
    s = a + b
    carry = s < a
    if cin is None:
        return s, carry
    d = s + cin.astype(s.dtype)
    return d, carry | (d < s)


def _sub(a, b, bin_):
    """a - (b + bin) and its borrow out."""
    if bin_ is None:
        return a - b, a < b
    return a - b - bin_.astype(a.dtype), (a < b) | ((a == b) & bin_)


def _op(q: Quals, srcs: int, fn, cin: bool, cout: bool) -> Op:
    t = q.type(CARRY_TYPES)
    src_types = (t,) * srcs + ((CF,) if cin else ())
    dst_types = (t,) + ((CF,) if cout else ())

    def run(*args):
        vals = args[:srcs]
        d, flag = fn(*vals, args[srcs] if cin else None)
        return (d, flag) if cout else (d,)
    return Op(q.opcode, dst_types, src_types, run, carry_in=cin, carry_out=cout)


def _addsub(q: Quals, carry_in: bool) -> Op:
    cout = q.flag(".cc")
    sub = q.base.startswith("sub")
    return _op(q, 2, _sub if sub else _add, carry_in, cout)


def _mad(q: Quals, carry_in: bool) -> Op:
    part = q.one(".lo", ".hi", required=True)
    cout = q.flag(".cc")
    pt = TYPES[q.type(CARRY_TYPES)]

    def fn(a, b, c, cin):
        p = a * b if part == ".lo" else int_ops.mul_hi(a, b, pt)
        return _add(p, c, cin)
    return _op(q, 3, fn, carry_in, cout)


@builder("add", "sub")
def _add_sub_or_carry(q: Quals) -> Op:
    if ".cc" in q.rest:
        return _addsub(q, carry_in=False)
    return _plain[q.base](q)


@builder("mad")
def _mad_or_carry(q: Quals) -> Op:
    if ".cc" in q.rest:
        return _mad(q, carry_in=False)
    return _plain["mad"](q)


@builder("addc", "subc")
def _with_carry_in(q: Quals) -> Op:
    return _addsub(q, carry_in=True)


@builder("madc")
def _madc(q: Quals) -> Op:
    return _mad(q, carry_in=True)


__all__ = ["CARRY_TYPES", "Unsupported"]
