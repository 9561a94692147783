"""Logic and shift instructions (PTX ISA 9.7.8): and, or, xor, not, cnot, lop3, shl, shr, shf.
Bit types only for the logic operations (`.pred` too, not for cnot), every integer type for shr,
and a 32-bit unsigned shift amount — as ptxas 13.0 checks them."""
from __future__ import annotations

from ..gates import Gate
from ..isa import Form, Group, InstructionSpec
from .common import BITS16_64, INT16_64

_LOGIC = {"d": "=reg|pred:type", "a": "reg|npred|imm:type", "b": "reg|npred|imm:type"}
# the shift amount: an integer register (ptxas 13.0 refuses .f16x2 and .f32 registers)
_SHIFT = {"d": "=reg:type", "a": "reg|imm:type", "b": "reg|imm:int32"}
_LOP3_PRED = Gate((8, 2), 70, "lop3 with a predicate", "lop3.BoolOp: PTX ISA 8.2, sm_70.")


def _binary(name: str, section: str) -> InstructionSpec:
    return InstructionSpec(name, section, (Group("type", (".pred",) + BITS16_64),),
                           forms=(Form(".type", "d, a, b"),), operands=_LOGIC)


RECORDS = (
    _binary("and", "PTX ISA 9.7.8.1 (and)"),
    _binary("or", "PTX ISA 9.7.8.2 (or)"),
    _binary("xor", "PTX ISA 9.7.8.3 (xor)"),
    InstructionSpec("not", "PTX ISA 9.7.8.4 (not)", (Group("type", (".pred",) + BITS16_64),),
                    forms=(Form(".type", "d, a"),), operands=_LOGIC),
    InstructionSpec("cnot", "PTX ISA 9.7.8.5 (cnot)", (Group("type", BITS16_64),),
                    forms=(Form(".type", "d, a"),), operands={"d": "=reg:type", "a": "reg|imm:type"}),
    InstructionSpec("lop3", "PTX ISA 9.7.8.6 (lop3)", (
        Group("bool", (".and", ".or")), Group("type", (".b32",)),
    ), forms=(
        Form(".b32", "d, a, b, c, lut"),
        Form(".bool.b32", "dp, a, b, c, lut, q", gate=_LOP3_PRED),
    ), operands={"d": "=reg:.b32", "dp": "=pair", "a": "reg|imm:.b32", "b": "reg|imm:.b32",
                 "c": "reg|imm:.b32", "lut": "imm", "q": "npred"},
        gate=Gate((4, 3), 50, "lop3", "lop3: PTX ISA 4.3, sm_50.")),
    InstructionSpec("shf", "PTX ISA 9.7.8.7 (shf)", (
        Group("dir", (".l", ".r")), Group("mode", (".clamp", ".wrap")), Group("type", (".b32",)),
    ), forms=(Form(".dir.mode.b32", "d, a, b, c"),),
        operands={"d": "=reg:.b32", "a": "reg|imm:.b32", "b": "reg|imm:.b32", "c": "reg|imm:int32"},
        gate=Gate((3, 1), 32, "shf", "shf: PTX ISA 3.1, sm_32.")),
    InstructionSpec("shl", "PTX ISA 9.7.8.8 (shl)", (Group("type", BITS16_64),),
                    forms=(Form(".type", "d, a, b"),), operands=_SHIFT),
    InstructionSpec("shr", "PTX ISA 9.7.8.9 (shr)", (Group("type", BITS16_64 + INT16_64),),
                    forms=(Form(".type", "d, a, b"),), operands=_SHIFT),
)
