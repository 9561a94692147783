"""Integer and floating-point add and sub (PTX ISA 9.7.1.1-2, 9.7.3.1-2, 9.7.4.1-2), the model
record of the ISA tables: the groups in the ISA's order, one Form per syntax line, gates beside
the forms they belong to (measured against ptxas 13.0 where the text leaves a doubt)."""
from __future__ import annotations

from ..isa import Form, Group, InstructionSpec
from .common import (BF16_ARITH_GATE, D, F16_GATE, F32X2_GATE, F64_GATE, INT16_64, PACKED16_GATE,
                     ROUNDING, SRC)

_GROUPS = (
    Group("rnd", ROUNDING), Group("ftz", (".ftz",)), Group("sat", (".sat",), repeatable=True),
    Group("cc", (".cc",), repeatable=True),
    Group("type", INT16_64 + (".u16x2", ".s16x2", ".f32", ".f32x2", ".f64", ".f16", ".f16x2",
                              ".bf16", ".bf16x2")),
)
_OPERANDS = {"d": D, "a": SRC, "b": SRC}


def _add_sub(name: str, section: str) -> InstructionSpec:
    # packed 16-bit integers: add only (ptxas 13.0: "Unexpected instruction types" for sub)
    packed = (Form(".type", "d, a, b", where={"type": (".u16x2", ".s16x2")}, gate=PACKED16_GATE),) \
        if name == "add" else ()
    return InstructionSpec(name, section, _GROUPS, forms=(
        Form(".type", "d, a, b", where={"type": INT16_64}),
        *packed,
        Form(".sat.s32", "d, a, b"),
        # extended-precision arithmetic: the carry flag (PTX ISA 9.7.2)
        Form(".cc.type", "d, a, b", where={"type": (".u32", ".s32", ".u64", ".s64")}),
        Form("{.rnd}{.ftz}{.sat}.f32", "d, a, b"),
        Form("{.rnd}{.ftz}.f32x2", "d, a, b", gate=F32X2_GATE),
        Form("{.rnd}.f64", "d, a, b", gate=F64_GATE),
        Form("{.rnd}{.ftz}{.sat}.type", "d, a, b", where={"rnd": (".rn",), "type": (".f16", ".f16x2")},
             gate=F16_GATE),
        Form("{.rnd}.type", "d, a, b", where={"rnd": (".rn",), "type": (".bf16", ".bf16x2")},
             gate=BF16_ARITH_GATE),
    ), operands=_OPERANDS)


RECORDS = (
    _add_sub("add", "PTX ISA 9.7.1.1 (add)"),
    _add_sub("sub", "PTX ISA 9.7.1.2 (sub)"),
)
