"""Floating-point instructions other than the arithmetic ones (PTX ISA 9.7.3, 9.7.4): testp,
copysign, fma, rcp, sqrt, rsqrt, sin, cos, lg2, ex2, tanh — with the half-precision forms of
PTX ISA 9.7.4 beside the single- and double-precision ones. Measured against ptxas 13.0: `.ftz`
is part of `rcp.approx.f64` (it exists only as `rcp.approx.ftz.f64`), `sqrt` has no `.approx`
form for `.f64`, `ex2` has none for `.f64`, and `.approx` is required wherever the ISA lists it.
"""
from __future__ import annotations

from ..gates import Gate
from ..isa import Form, Group, InstructionSpec
from .common import D, F16_GATE, F32X2_GATE, F64_GATE, ROUNDING, SRC

# ptxas takes `.approx`, `.sat` and `.relu` written twice, not `.ftz` ("Duplicate .ftz modifier")
_APPROX = Group("approx", (".approx",), repeatable=True)
_FTZ = Group("ftz", (".ftz",))
_BF16_SFU = Gate((7, 8), 90, "bf16 ex2/tanh", "ex2/tanh .bf16/.bf16x2: PTX ISA 7.8, sm_90.")
_SFU16 = Gate((7, 0), 75, "f16 ex2/tanh", "ex2/tanh .f16/.f16x2, tanh .f32: PTX ISA 7.0, sm_75.")
_RELU = Gate((7, 0), 80, "fma.relu", "fma .relu and .bf16/.bf16x2: PTX ISA 7.0, sm_80.")
_OOB = Gate((8, 1), 90, "fma.oob", "fma .oob: PTX ISA 8.1, sm_90.")
_MIXED = Gate((8, 6), 100, "fma.f32.f16", "fma .f32 with .f16/.bf16 sources: PTX ISA 8.6, sm_100.")
_RCP_F64_APPROX = Gate((2, 1), 20, "rcp.approx.ftz.f64", "rcp.approx.ftz.f64: PTX ISA 2.1, sm_20.")
_RSQRT_F64_FTZ = Gate((4, 0), 20, "rsqrt.approx.ftz.f64", "rsqrt.approx.ftz.f64: PTX ISA 4.0, sm_20.")
_ROUNDED_F32 = Gate((2, 0), 20, "rounded rcp/sqrt.f32", "rcp/sqrt .rnd .f32: sm_20.")
_TWO = {"d": D, "a": SRC}


def _one_source(name: str, section: str, *forms: Form, types=(".f32", ".f64")) -> InstructionSpec:
    # `.f64` is in every type group, forms or not: `ex2.approx.f64` is then "no form of ex2"
    # (ptxas: "Unexpected instruction types"), not an unknown modifier
    return InstructionSpec(name, section, (_APPROX, Group("rnd", ROUNDING), _FTZ, Group("type", types)),
                           forms=forms, operands=_TWO)


_F16S = (".f16", ".f16x2", ".bf16", ".bf16x2")

RECORDS = (
    InstructionSpec("testp", "PTX ISA 9.7.3.1 (testp)", (
        Group("op", (".finite", ".infinite", ".number", ".notanumber", ".normal", ".subnormal")),
        Group("type", (".f32", ".f64")),
    ), forms=(Form(".op.type", "p, a"),
              # ptxas 13.0 takes `testp.f32` without a test
              Form(".type", "p, a", beyond_isa="the PTX ISA requires a test (`.finite`, `.infinite`, "
                   "`.number`, `.notanumber`, `.normal` or `.subnormal`)")),
        operands={"p": "=pred", "a": SRC}, gate=Gate((2, 0), 20, "testp", "testp: PTX ISA 2.0, sm_20.")),
    InstructionSpec("copysign", "PTX ISA 9.7.3.2 (copysign)", (Group("type", (".f32", ".f64")),),
                    forms=(Form(".type", "d, a, b"),), operands={"d": D, "a": SRC, "b": SRC},
                    gate=Gate((2, 0), 20, "copysign", "copysign: PTX ISA 2.0, sm_20.")),
    InstructionSpec("fma", "PTX ISA 9.7.3.6 (fma), 9.7.4.4 (half-precision fma)", (
        Group("rnd", ROUNDING), _FTZ, Group("sat", (".sat",), repeatable=True), Group("oob", (".oob",)),
        Group("relu", (".relu",), repeatable=True),
        Group("type", (".f32", ".f32x2", ".f64") + _F16S), Group("atype", (".f16", ".bf16")),
    ), forms=(
        Form(".rnd{.ftz}{.sat}.f32", "d, a, b, c"),
        Form(".rnd{.ftz}.f32x2", "d, a, b, c", gate=F32X2_GATE),
        Form(".rnd.f64", "d, a, b, c", gate=F64_GATE),
        Form(".rnd{.ftz}{.sat}.type", "d, a, b, c", where={"rnd": (".rn",), "type": (".f16", ".f16x2")},
             gate=F16_GATE),
        Form(".rnd{.ftz}.relu.type", "d, a, b, c", where={"rnd": (".rn",), "type": (".f16", ".f16x2")},
             gate=_RELU),
        Form(".rnd{.relu}.type", "d, a, b, c", where={"rnd": (".rn",), "type": (".bf16", ".bf16x2")},
             gate=_RELU),
        # ptxas 13.0 takes every rounding for .bf16/.bf16x2
        Form(".rnd{.relu}.type", "d, a, b, c", where={"rnd": (".rz", ".rm", ".rp"), "type": (".bf16", ".bf16x2")},
             gate=_RELU, beyond_isa="the PTX ISA lists only `.rn` for `.bf16`/`.bf16x2`"),
        # ptxas 13.0 also takes .oob with .sat (not with .ftz) for .f16/.f16x2
        Form(".rnd.oob{.relu}.type", "d, a, b, c", where={"rnd": (".rn",), "type": (".f16", ".f16x2")},
             gate=_OOB),
        Form(".rnd.sat.oob.type", "d, a, b, c", where={"rnd": (".rn",), "type": (".f16", ".f16x2")},
             gate=_OOB),
        Form(".rnd.oob{.relu}.type", "d, a, b, c", where={"type": (".bf16", ".bf16x2")}, gate=_OOB),
        Form(".rnd{.sat}.f32.atype", "d, ah, bh, c", gate=_MIXED, where={"atype": (".f16",)}),
        # ptxas 13.0 takes 16-bit integer and bit-type registers (not .f16) and integer
        # immediates as the .bf16 sources here
        Form(".rnd{.sat}.f32.atype", "d, ahb, bhb, c", gate=_MIXED, where={"atype": (".bf16",)}),
    ), operands={"d": D, "a": SRC, "b": SRC, "c": SRC, "ah": "reg|imm:atype", "bh": "reg|imm:atype",
                 "ahb": "reg|imm:int16", "bhb": "reg|imm:int16"}),
    _one_source("rcp", "PTX ISA 9.7.3.8 (rcp), 9.7.3.9 (rcp.approx.ftz.f64)",
                Form(".approx{.ftz}.f32", "d, a"),
                Form(".rnd{.ftz}.f32", "d, a", gate=_ROUNDED_F32),
                # ptxas 13.0 takes (and ignores) `.ftz` on rcp.rnd.f64
                Form(".rnd{.ftz}.f64", "d, a", gate=F64_GATE),
                Form(".approx.ftz.f64", "d, a", gate=_RCP_F64_APPROX)),
    _one_source("sqrt", "PTX ISA 9.7.3.10 (sqrt)",
                Form(".approx{.ftz}.f32", "d, a"),
                Form(".rnd{.ftz}.f32", "d, a", gate=_ROUNDED_F32),
                Form(".rnd.f64", "d, a", gate=F64_GATE)),
    _one_source("rsqrt", "PTX ISA 9.7.3.11 (rsqrt), 9.7.3.12 (rsqrt.approx.ftz.f64)",
                Form(".approx{.ftz}.f32", "d, a"),
                Form(".approx.f64", "d, a", gate=F64_GATE),
                Form(".approx.ftz.f64", "d, a", gate=_RSQRT_F64_FTZ)),
    *(_one_source(name, f"PTX ISA {sec} ({name})", Form(".approx{.ftz}.f32", "d, a"), types=(".f32", ".f64"))
      for name, sec in (("sin", "9.7.3.13"), ("cos", "9.7.3.14"), ("lg2", "9.7.3.15"))),
    _one_source("ex2", "PTX ISA 9.7.3.16 (ex2), 9.7.4.9 (half-precision ex2)",
                Form(".approx{.ftz}.f32", "d, a"),
                Form(".approx.type", "d, a", where={"type": (".f16", ".f16x2")}, gate=_SFU16),
                Form(".approx.ftz.type", "d, a", where={"type": (".bf16", ".bf16x2")}, gate=_BF16_SFU),
                types=(".f32", ".f64") + _F16S),
    _one_source("tanh", "PTX ISA 9.7.3.17 (tanh), 9.7.4.8 (half-precision tanh)",
                Form(".approx.type", "d, a", where={"type": (".f32", ".f16", ".f16x2")}, gate=_SFU16),
                Form(".approx.type", "d, a", where={"type": (".bf16", ".bf16x2")}, gate=_BF16_SFU),
                types=(".f32", ".f64") + _F16S),
)
