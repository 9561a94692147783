"""Extended-precision integer arithmetic with the carry flag (PTX ISA 9.7.2): `addc`, `subc`,
`madc`. `add.cc` and `sub.cc` are forms of the add/sub records (`.cc`); `mad.cc` is written
`mad.lo.cc`/`mad.hi.cc` and read from the mad opcode's modifiers."""
from __future__ import annotations

from ..isa import Form, Group, InstructionSpec
from .common import D, SRC

_TYPES = (".u32", ".s32", ".u64", ".s64")


def _with_carry_in(name: str, section: str, part: bool) -> InstructionSpec:
    groups = (Group("hilo", (".lo", ".hi")),) if part else ()
    groups += (Group("cc", (".cc",), repeatable=True), Group("type", _TYPES))
    operands = "d, a, b, c" if part else "d, a, b"
    template = ".hilo{.cc}.type" if part else "{.cc}.type"
    return InstructionSpec(name, section, groups, forms=(Form(template, operands),),
                           operands={"d": D, "a": SRC, "b": SRC, "c": SRC})


RECORDS = (
    _with_carry_in("addc", "PTX ISA 9.7.2.2 (addc)", False),
    _with_carry_in("subc", "PTX ISA 9.7.2.4 (subc)", False),
    _with_carry_in("madc", "PTX ISA 9.7.2.6 (madc)", True),
)
