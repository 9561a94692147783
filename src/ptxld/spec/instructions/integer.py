"""Integer instructions of PTX ISA 9.7.1 that are integer-only: mul24, mad24, sad, rem, popc,
clz, bfind, brev, bfe, bfi, dp4a, dp2a (mul, mad, div, abs, neg, min and max, which have
floating-point forms too, are in `mixed.py`). Measured against ptxas 13.0."""
from __future__ import annotations

from ..gates import Gate
from ..isa import Form, Group, InstructionSpec
from .common import D, INT16_64, SRC

_HILO = Group("mode", (".hi", ".lo"))
_U32S32 = (".u32", ".s32")
_BITS = (".b32", ".b64")
_DP = Gate((5, 0), 61, "dp4a/dp2a", "dp4a, dp2a: PTX ISA 5.0, sm_61.")
_U32 = "reg|imm:.u32"


def _dot(name: str, section: str, halves: bool) -> InstructionSpec:
    # the result and the addend are .u32 when both sources are unsigned, else .s32
    groups = ((Group("mode", (".lo", ".hi")),) if halves else ()) + (
        Group("atype", _U32S32), Group("btype", _U32S32))
    mode = ".mode" if halves else ""
    return InstructionSpec(name, section, groups, forms=(
        Form(f"{mode}.u32.u32", "du, a, b, cu"),
        Form(f"{mode}.atype.btype", "ds, a, b, cs", where={"atype": (".s32",)}),
        Form(f"{mode}.u32.s32", "ds, a, b, cs"),
    ), operands={"du": "=reg:.u32", "ds": "=reg:.s32", "a": "reg|imm:atype", "b": "reg|imm:btype",
                 "cu": _U32, "cs": "reg|imm:.s32"}, gate=_DP)


RECORDS = (
    InstructionSpec("mul24", "PTX ISA 9.7.1.5 (mul24)", (_HILO, Group("type", _U32S32)), forms=(
        Form(".mode.type", "d, a, b"),
    ), operands={"d": D, "a": SRC, "b": SRC}),
    InstructionSpec("mad24", "PTX ISA 9.7.1.6 (mad24)", (
        _HILO, Group("sat", (".sat",), repeatable=True), Group("type", _U32S32),
    ), forms=(
        Form(".mode.type", "d, a, b, c"),
        Form(".hi.sat.s32", "d, a, b, c"),
    ), operands={"d": D, "a": SRC, "b": SRC, "c": SRC}),
    InstructionSpec("sad", "PTX ISA 9.7.1.7 (sad)", (Group("type", INT16_64),), forms=(
        Form(".type", "d, a, b, c"),
    ), operands={"d": D, "a": SRC, "b": SRC, "c": SRC}),
    InstructionSpec("rem", "PTX ISA 9.7.1.9 (rem)", (Group("type", INT16_64),), forms=(
        Form(".type", "d, a, b"),
    ), operands={"d": D, "a": SRC, "b": SRC}),
    InstructionSpec("popc", "PTX ISA 9.7.1.14 (popc)", (Group("type", _BITS),), forms=(
        Form(".type", "d, a"),
    ), operands={"d": "=reg:.u32", "a": SRC}, gate=Gate((2, 0), 20, "popc", "popc: PTX ISA 2.0, sm_20.")),
    InstructionSpec("clz", "PTX ISA 9.7.1.15 (clz)", (Group("type", _BITS),), forms=(
        Form(".type", "d, a"),
    ), operands={"d": "=reg:.u32", "a": SRC}, gate=Gate((2, 0), 20, "clz", "clz: PTX ISA 2.0, sm_20.")),
    InstructionSpec("bfind", "PTX ISA 9.7.1.16 (bfind)", (
        Group("shiftamt", (".shiftamt",), repeatable=True), Group("type", (".u32", ".u64", ".s32", ".s64")),
    ), forms=(Form("{.shiftamt}.type", "d, a"),),
        operands={"d": "=reg:.u32", "a": SRC}, gate=Gate((2, 0), 20, "bfind", "bfind: PTX ISA 2.0, sm_20.")),
    InstructionSpec("brev", "PTX ISA 9.7.1.18 (brev)", (Group("type", _BITS),), forms=(
        Form(".type", "d, a"),
    ), operands={"d": D, "a": SRC}, gate=Gate((2, 0), 20, "brev", "brev: PTX ISA 2.0, sm_20.")),
    InstructionSpec("bfe", "PTX ISA 9.7.1.19 (bfe)", (Group("type", (".u32", ".u64", ".s32", ".s64")),),
                    forms=(Form(".type", "d, a, b, c"),),
                    operands={"d": D, "a": SRC, "b": _U32, "c": _U32},
                    gate=Gate((2, 0), 20, "bfe", "bfe: PTX ISA 2.0, sm_20.")),
    InstructionSpec("bfi", "PTX ISA 9.7.1.20 (bfi)", (Group("type", _BITS),), forms=(
        Form(".type", "f, a, b, c, d"),
    ), operands={"f": D, "a": SRC, "b": SRC, "c": _U32, "d": _U32},
        gate=Gate((2, 0), 20, "bfi", "bfi: PTX ISA 2.0, sm_20.")),
    _dot("dp4a", "PTX ISA 9.7.1.23 (dp4a)", False),
    _dot("dp2a", "PTX ISA 9.7.1.24 (dp2a)", True),
)
