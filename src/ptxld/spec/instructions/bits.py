"""Bit-field instructions of sm_70 and later: `bmsk` (PTX ISA 9.7.1.22), `szext` (9.7.1.21), and
`fns` (9.7.1.17). Checked against ptxas 13.0: each takes immediates in every source position."""
from __future__ import annotations

from ..gates import Gate
from ..isa import Form, Group, InstructionSpec

_MODE = Group("mode", (".clamp", ".wrap"))
_SM70 = Gate((7, 6), 70, "bmsk/szext", "bmsk, szext: PTX ISA 7.6, sm_70.")
_FNS = Gate((6, 0), 30, "fns", "fns: PTX ISA 6.0, sm_30.")

RECORDS = (
    InstructionSpec("bmsk", "PTX ISA 9.7.1.22 (bmsk)", (_MODE, Group("type", (".b32",))), forms=(
        Form(".mode.b32", "d, a, b"),
    # ptxas 13.0: integer registers only (no .f16x2, no floating-point register)
    ), operands={"d": "=reg:int32", "a": "reg|imm:int32", "b": "reg|imm:int32"}, gate=_SM70),
    InstructionSpec("szext", "PTX ISA 9.7.1.21 (szext)", (_MODE, Group("type", (".u32", ".s32"))), forms=(
        Form(".mode.type", "d, a, b"),
    ), operands={"d": "=reg:type", "a": "reg|imm:type", "b": "reg|imm:int32"}, gate=_SM70),
    InstructionSpec("fns", "PTX ISA 9.7.1.17 (fns)", (Group("type", (".b32",)),), forms=(
        Form(".b32", "d, mask, base, offset"),
    ), operands={"d": "=reg:.b32", "mask": "reg|imm:b32", "base": "reg|imm:b32",
                 "offset": "reg|imm:b32"}, gate=_FNS),
)
