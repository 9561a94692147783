"""Arithmetic semantics of PTX ALU instructions for ptxld's CPU emulator.

    op = lookup("setp.lt.and.s32")   # full dotted opcode; qualifiers in any order; None if unsupported
    op.dst_types, op.src_types       # PTX type names per operand
    (p,) = op(a, b, c)               # raw-bit NumPy arrays in, tuple of raw-bit arrays out
    p, q = op.pair(a, b, c)          # setp's two-destination p|q form (op.dst_types_pair)

Raw bits: np.uint8/16/32/64 by width, np.bool_ for .pred, (n, 2) uint64 for .b128. Packed
.f16x2/.bf16x2/.u16x2/.s16x2 are single 32-bit registers, lane 0 in the low bits.
``setp.*.f16x2``/``.bf16x2`` have two destinations natively (low lane -> first).
``why_not(opcode)`` explains a None from ``lookup``; ``atom_combine`` serves atom/red.
"""
from __future__ import annotations

from functools import lru_cache

from ptxld.emu.alu import arith, bitops, compare, convert  # noqa: F401  (register builders)
from ptxld.emu.alu import carry, fields  # noqa: F401,I001  (after arith, convert: they wrap add/sub/mad/cvt)
from ptxld.emu.alu.atom import atom_combine
from ptxld.emu.alu.core import BUILDERS, Op, Unsupported, build

__all__ = ["lookup", "why_not", "atom_combine", "SUPPORTED", "Op", "Unsupported"]

SUPPORTED: list[str] = sorted(BUILDERS)


@lru_cache(maxsize=4096)
def _resolve(opcode: str) -> Op | str:
    try:
        return build(opcode)
    except Unsupported as e:
        return str(e)


def lookup(opcode: str) -> Op | None:
    """The Op for a full dotted opcode (e.g. ``"cvt.rzi.s32.f32"``), or None if not supported."""
    r = _resolve(opcode.strip())
    return r if isinstance(r, Op) else None


def why_not(opcode: str) -> str | None:
    """Why ``lookup(opcode)`` is None (a message naming the opcode and the cause), else None."""
    r = _resolve(opcode.strip())
    return None if isinstance(r, Op) else r
