"""Op objects, the qualifier bag builders read, and the registry of instruction builders."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ptxld.emu.alu.ptxtypes import TYPES, coerce
from ptxld.spec.decode import Decoded, decode


class Unsupported(Exception):
    """The opcode is not an ALU instruction this library implements (message says why)."""


@dataclass(frozen=True)
class Op:
    """One resolved ALU opcode. ``op(*srcs)`` takes raw-bit arrays and returns a tuple of them.

    ``dst_types_pair``/``pair`` exist for instructions with an optional second predicate
    destination (``setp ... p|q``): ``op.pair(*srcs)`` returns ``(p, q)``.
    """
    opcode: str
    dst_types: tuple[str, ...]
    src_types: tuple[str, ...]
    fn: Callable[..., tuple]
    pair_fn: Callable[..., tuple] | None = field(default=None, repr=False)
    dst_types_pair: tuple[str, ...] | None = None
    # extended precision (PTX ISA 9.7.2): the carry flag CC.CF is the last source (`addc`) and/or
    # the last destination (`.cc`), as a .pred; the instruction text never writes it
    carry_in: bool = False
    carry_out: bool = False

    def _args(self, srcs):
        if len(srcs) != len(self.src_types):
            raise TypeError(f"{self.opcode}: expected {len(self.src_types)} source operands "
                            f"{self.src_types}, got {len(srcs)}")
        return [coerce(s, TYPES[t]) for s, t in zip(srcs, self.src_types)]

    def __call__(self, *srcs) -> tuple[np.ndarray, ...]:
        with np.errstate(all="ignore"):
            return tuple(self.fn(*self._args(srcs)))

    def pair(self, *srcs) -> tuple[np.ndarray, ...]:
        if self.pair_fn is None:
            raise TypeError(f"{self.opcode}: has no two-destination (p|q) form")
        with np.errstate(all="ignore"):
            return tuple(self.pair_fn(*self._args(srcs)))


class Quals:
    """The qualifiers of one decoded opcode (`ptxld.spec.decode`) as a bag: builders take what
    they understand, leftovers are an error."""

    def __init__(self, decoded: Decoded):
        self.opcode = decoded.opcode
        self.name = decoded.name          # the record's name: `cvt.pack` beside `cvt`
        self.base = decoded.mnemonic
        self.types = decoded.types
        self.rest = [m[0] for m in decoded.modifiers if m[0] not in TYPES]

    def one(self, *choices: str, default: str | None = None, required: bool = False) -> str | None:
        found = [q for q in self.rest if q in choices]
        if len(set(found)) > 1:
            raise Unsupported(f"{self.opcode}: conflicting qualifiers {found}")
        if not found:
            if required:
                raise Unsupported(f"{self.opcode}: needs one of {choices}")
            return default
        for q in found:            # ptxas takes a repeated qualifier (`add.sat.s32.sat`) as one
            self.rest.remove(q)
        return found[0]

    def flag(self, q: str) -> bool:
        return self.one(q) is not None

    def type(self, allowed: tuple[str, ...] | None = None) -> str:
        if len(self.types) != 1:
            raise Unsupported(f"{self.opcode}: expected one type, got {self.types}")
        t = self.types[0]
        if allowed is not None and t not in allowed:
            raise Unsupported(f"{self.opcode}: type {t} not in {allowed}")
        return t

    def done(self):
        if self.rest:
            raise Unsupported(f"{self.opcode}: unsupported qualifier(s) {self.rest}")


BUILDERS: dict[str, Callable[[Quals], Op]] = {}


def builder(*bases: str):
    def deco(fn):
        for b in bases:
            BUILDERS[b] = fn
        return fn
    return deco


def build(opcode: str) -> Op:
    q = Quals(decode(opcode))
    if q.base not in BUILDERS:
        raise Unsupported(f"{opcode}: '{q.base}' is not an ALU instruction of this library")
    try:
        op = BUILDERS[q.base](q)
        q.done()
    except Unsupported as e:
        if opcode not in str(e):
            raise Unsupported(f"{opcode}: {e}") from None
        raise
    return op
