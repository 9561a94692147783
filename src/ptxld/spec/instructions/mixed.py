"""Instructions with integer and floating-point forms (PTX ISA 9.7.1, 9.7.3, 9.7.4): mul, mad,
div, abs, neg, min, max. Measured against ptxas 13.0."""
from __future__ import annotations

from ..gates import Gate
from ..isa import Form, Group, InstructionSpec
from .common import (BF16_ARITH_GATE, D, F16_GATE, F32X2_GATE, F64_GATE, INT16_64, ROUNDING, SRC)

_FTZ = Group("ftz", (".ftz",))
_SAT = Group("sat", (".sat",), repeatable=True)
_F16 = (".f16", ".f16x2")
_BF16 = (".bf16", ".bf16x2")
_FLOATS = (".f32", ".f32x2", ".f64") + _F16 + _BF16
_BF16_ABS = Gate((7, 0), 80, "bf16 abs/neg/min/max", "abs, neg, min, max .bf16/.bf16x2: PTX ISA 7.0, sm_80.")
_F16_ABS = Gate((6, 5), 53, "f16 abs/neg", "abs, neg .f16/.f16x2: PTX ISA 6.5, sm_53.")
_F16_MINMAX = Gate((7, 0), 80, "f16 min/max", "min, max .f16/.f16x2 and .NaN: PTX ISA 7.0, sm_80.")
_XORSIGN = Gate((7, 2), 86, "min/max .xorsign.abs", "min, max .xorsign.abs: PTX ISA 7.2, sm_86.")
_THREE = Gate((8, 8), 100, "three-input min/max", "min, max with three .f32 inputs: PTX ISA 8.8, sm_100.")
_PACKED = Gate((8, 0), 90, "min/max .u16x2/.s16x2, .relu", "min, max .u16x2/.s16x2 and .relu: PTX ISA 8.0, sm_90.")
_MAD_UNROUNDED = Gate(source="mad.f32 without a rounding modifier: sm_1x only (sm_20 and later need one)",
                      below_sm=20, below_sm_from_ptx=(3, 2), note="write `mad.rn.f32` (or `fma.rn.f32`)")
_THREE_OPS = {"d": D, "a": SRC, "b": SRC}


def _mul_mad(name: str, section: str, mad: bool) -> InstructionSpec:
    ops = "d, a, b, c" if mad else "d, a, b"
    # `.wide`: the result (and mad's addend) has twice the width of the sources
    wide16, wide32 = ("d32, a, b, c32", "d64, a, b, c64") if mad else ("d32, a, b", "d64, a, b")
    groups = (Group("mode", (".hi", ".lo", ".wide")), Group("rnd", ROUNDING), _FTZ, _SAT,
              *((Group("cc", (".cc",), repeatable=True),) if mad else ()), Group("type", INT16_64 + _FLOATS))
    f32 = ".rnd{.ftz}{.sat}.f32" if mad else "{.rnd}{.ftz}{.sat}.f32"
    f64 = ".rnd.f64" if mad else "{.rnd}.f64"
    forms = [
        Form(".mode.type", ops, where={"mode": (".hi", ".lo"), "type": INT16_64}),
        Form(".wide.type", wide16, where={"type": (".u16", ".s16")}),
        Form(".wide.type", wide32, where={"type": (".u32", ".s32")}),
        Form(f32, ops),
        Form(f64, ops, gate=F64_GATE),
    ]
    if mad:
        forms += [Form(".hi.sat.s32", ops),
                  # without a rounding: sm_1x only, from PTX ISA 3.2 on (ptxas 13.0: accepted on
                  # sm_20 and later up to PTX ISA 3.1, with a warning at 3.1)
                  Form("{.ftz}{.sat}.f32", ops, gate=_MAD_UNROUNDED),
                  # extended precision: the carry out (PTX ISA 9.7.2.5)
                  Form(".mode.cc.type", ops, where={"mode": (".hi", ".lo"), "type": (".u32", ".s32", ".u64", ".s64")})]
    else:
        forms += [Form("{.rnd}{.ftz}.f32x2", ops, gate=F32X2_GATE),
                  Form("{.rnd}{.ftz}{.sat}.type", ops, where={"rnd": (".rn",), "type": _F16}, gate=F16_GATE),
                  Form("{.rnd}.type", ops, where={"rnd": (".rn",), "type": _BF16}, gate=BF16_ARITH_GATE)]
    operands = {"d": D, "a": SRC, "b": SRC, "c": SRC, "d32": "=reg:.u32", "d64": "=reg:.u64",
                "c32": "reg|imm:.u32", "c64": "reg|imm:.u64"}
    return InstructionSpec(name, section, groups, forms=tuple(forms), operands=operands)


def _abs_neg(name: str, section: str) -> InstructionSpec:
    return InstructionSpec(name, section, (_FTZ, Group("type", (".s16", ".s32", ".s64") + _FLOATS)), forms=(
        Form(".type", "d, a", where={"type": (".s16", ".s32", ".s64")}),
        Form("{.ftz}.f32", "d, a"),
        Form(".f64", "d, a", gate=F64_GATE),
        Form("{.ftz}.type", "d, a", where={"type": _F16}, gate=_F16_ABS),
        Form(".type", "d, a", where={"type": _BF16}, gate=_BF16_ABS),
    ), operands={"d": D, "a": SRC})


def _min_max(name: str, section: str) -> InstructionSpec:
    ints = INT16_64
    return InstructionSpec(name, section, (
        # ptxas 13.0 takes `.relu` and `.NaN` written twice
        Group("relu", (".relu",), repeatable=True), _FTZ, Group("nan", (".NaN",), repeatable=True),
        Group("xorsign", (".xorsign",)),
        Group("abs", (".abs",)), Group("type", ints + (".u16x2", ".s16x2") + _FLOATS),
    ), forms=(
        Form(".type", "d, a, b", where={"type": ints}),
        Form(".type", "d, a, b", where={"type": (".u16x2", ".s16x2")}, gate=_PACKED),
        Form(".relu.type", "d, a, b", where={"type": (".s16x2", ".s32")}, gate=_PACKED),
        Form("{.ftz}.f32", "d, a, b"),
        Form("{.ftz}.NaN.f32", "d, a, b", gate=_F16_MINMAX),
        Form("{.ftz}{.NaN}.xorsign.abs.f32", "d, a, b", gate=_XORSIGN),
        Form("{.ftz}{.NaN}{.abs}.f32", "d, a, b, c", gate=_THREE),
        Form(".f64", "d, a, b", gate=F64_GATE),
        Form("{.ftz}{.NaN}.type", "d, a, b", where={"type": _F16}, gate=_F16_MINMAX),
        Form("{.ftz}{.NaN}.xorsign.abs.type", "d, a, b", where={"type": _F16}, gate=_XORSIGN),
        Form("{.NaN}.type", "d, a, b", where={"type": _BF16}, gate=_BF16_ABS),
        Form("{.NaN}.xorsign.abs.type", "d, a, b", where={"type": _BF16}, gate=_XORSIGN),
    ), operands={"d": D, "a": SRC, "b": SRC, "c": SRC})


RECORDS = (
    _mul_mad("mul", "PTX ISA 9.7.1.3 (mul), 9.7.3.5 (mul), 9.7.4.3 (half-precision mul)", False),
    _mul_mad("mad", "PTX ISA 9.7.1.4 (mad), 9.7.2.5 (mad.cc), 9.7.3.6 (mad)", True),
    InstructionSpec("div", "PTX ISA 9.7.1.8 (div), 9.7.3.7 (div)", (
        # ptxas 13.0 takes `.approx` written twice, not `.full`
        Group("approx", (".approx",), repeatable=True), Group("full", (".full",)), Group("rnd", ROUNDING), _FTZ,
        Group("type", INT16_64 + (".f32", ".f64")),
    ), forms=(
        Form(".type", "d, a, b", where={"type": INT16_64}),
        Form(".approx{.ftz}.f32", "d, a, b"),
        Form(".full{.ftz}.f32", "d, a, b"),
        Form(".rnd{.ftz}.f32", "d, a, b", gate=Gate((1, 4), 20, "div.rnd.f32", "div .rnd .f32: sm_20.")),
        Form(".rnd.f64", "d, a, b", gate=F64_GATE),
    ), operands=_THREE_OPS),
    _abs_neg("abs", "PTX ISA 9.7.1.10 (abs), 9.7.3.8 (abs), 9.7.4.6 (half-precision abs)"),
    _abs_neg("neg", "PTX ISA 9.7.1.11 (neg), 9.7.3.9 (neg), 9.7.4.5 (half-precision neg)"),
    _min_max("min", "PTX ISA 9.7.1.12 (min), 9.7.3.11 (min), 9.7.4.10 (half-precision min)"),
    _min_max("max", "PTX ISA 9.7.1.13 (max), 9.7.3.12 (max), 9.7.4.11 (half-precision max)"),
)
