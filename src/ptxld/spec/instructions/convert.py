"""Conversions (PTX ISA 9.7.9.21 cvt, 9.7.9.22 cvt.pack, 9.7.9.19 cvta, 9.7.9.18 isspacep) and
prmt (9.7.9.7).

`cvt` between the scalar types follows ptxas 13.0 as measured over every pair of types, with a
rule per class of pair (below) rather than the ISA's prose: a rounding modifier is required
exactly where the conversion can be inexact, `.sat` is refused where nothing can saturate
(`cvt.sat.u32.u16`: "Illegal modifier"), `.ftz` needs an `.f32` on one side, and `.bf16` takes no
`.sat` and no 8-bit integer partner. Operand registers may be wider than an integer or 16-bit
float type (PTX ISA 9.4.1, the relaxed rule for cvt): the `+` in `atype+` — except in the
conversions to and from `.bf16`, where ptxas wants registers of the type's size.
"""
from __future__ import annotations

from ..gates import Gate
from ..isa import Form, Group, InstructionSpec

_INTS = (".u8", ".u16", ".u32", ".u64", ".s8", ".s16", ".s32", ".s64")
_FLOATS = (".bf16", ".f16", ".f32", ".f64")
_IRND = (".rni", ".rzi", ".rmi", ".rpi")
_FRND = (".rn", ".rz", ".rm", ".rp")
_F8X2 = (".e4m3x2", ".e5m2x2")
_F6X2 = (".e2m3x2", ".e3m2x2")
_NARROW_FLOATS = _F6X2 + (".e2m1x2", ".ue8m0x2")
# 6- and 4-bit floats and the 8-bit exponent scale: PTX ISA 8.6, on the architecture- and
# family-specific targets of sm_100 and later (ptxas 13.0: "not supported on .target 'sm_100'")
_F6F4 = Gate((8, 6), 100, "cvt with .e2m3x2/.e3m2x2/.e2m1x2/.ue8m0x2",
             "cvt .e2m3x2/.e3m2x2/.e2m1x2/.ue8m0x2: PTX ISA 8.6, sm_100a/sm_100f and later specific targets.",
             only_targets=tuple(f"sm_{n}{k}" for n in (100, 101, 103, 110, 120, 121) for k in "af"))

_BF16_F32 = Gate((7, 0), 80, "cvt.bf16.f32", "cvt to .bf16 from .f32: PTX ISA 7.0, sm_80.")
_F32_BF16 = Gate((7, 8), 80, "cvt.f32.bf16", "cvt.f32.bf16: PTX ISA 7.8, sm_80 (ptxas 13.0).")
_F32_BF16_FTZ = Gate((7, 8), 90, "cvt.ftz.f32.bf16", "cvt.ftz.f32.bf16: sm_90 (ptxas 13.0).")
_BF16_OTHER = Gate((7, 8), 90, "cvt with .bf16", "Other .bf16 conversions: PTX ISA 7.8, sm_90.")
_PACKED = Gate((7, 0), 80, "cvt to .f16x2/.bf16x2/.tf32", "cvt .relu, .f16x2/.bf16x2 from two "
               ".f32, .tf32 with .rna: PTX ISA 7.0, sm_80.")
_SATFINITE = Gate((8, 1), None, "cvt .satfinite", ".satfinite on cvt to .f16/.bf16/.f16x2/.bf16x2/.tf32: "
                  "PTX ISA 8.1.")
_PACKED_SATFINITE = _PACKED.join(_SATFINITE)
_TF32_RN = Gate((7, 8), 90, "cvt.rn/.rz.tf32.f32", "cvt.tf32.f32 with .rn/.rz: PTX ISA 7.8, sm_90.")
_TF32_SATFINITE = Gate((8, 6), 100, "cvt.rn.satfinite.tf32.f32",
                       ".satfinite on cvt.rn/.rz.tf32.f32: PTX ISA 8.6, sm_100.")
_F8 = Gate((7, 8), 90, "cvt with .e4m3x2/.e5m2x2", ".e4m3x2/.e5m2x2 conversions: PTX ISA 7.8 (sm_90 "
           "under PTX ISA 7.8 in ptxas 13.0).")
_F8_89 = Gate((8, 1), 89, "cvt with .e4m3x2/.e5m2x2 on sm_89", ".e4m3x2/.e5m2x2 conversions on sm_89: "
              "PTX ISA 8.1 (ptxas 13.0).")


def _range(t: str) -> tuple[int, int]:
    n = int(t[2:])
    return (0, 2 ** n - 1) if t[1] == "u" else (-2 ** (n - 1), 2 ** (n - 1) - 1)


def _pair(d: str, a: str):
    """(rounding values, rounding required, .ftz, .sat, gate) of `cvt.dtype.atype`, or None when
    ptxas has no such conversion."""
    bf = ".bf16" in (d, a)
    if bf and (d in (".u8", ".s8") or a in (".u8", ".s8")):
        return None
    ftz = ".f32" in (d, a)
    gate = None
    if bf:
        gate = _BF16_F32 if (d, a) == (".bf16", ".f32") else _F32_BF16 if (d, a) == (".f32", ".bf16") \
            else _BF16_OTHER
    if d in _INTS and a in _INTS:
        (dl, dh), (al, ah) = _range(d), _range(a)
        return (), False, False, al < dl or ah > dh, None
    if d in _INTS:                            # float to integer: round to an integer
        return _IRND, True, ftz, not bf, gate
    if a in _INTS:                            # integer to float
        return _FRND, True, ftz, not bf, gate
    if d == a:                                # float to float of one type: optional integer rounding
        return _IRND, False, ftz, not bf, gate
    if ".bf16" in (d, a) and (d, a) not in ((".bf16", ".f32"), (".bf16", ".f64")):
        return _FRND, False, ftz, False, gate  # to or from .bf16, not narrowing: optional rounding
    if _FLOATS.index(d) < _FLOATS.index(a):  # narrowing
        return _FRND, True, ftz, not bf, gate
    return (), False, ftz, True, gate        # widening: exact


def _scalar_forms():
    # one form per destination type and class of source types with the same rules
    by_rule: dict = {}
    for d in _INTS + _FLOATS:
        for a in _INTS + _FLOATS:
            rule = _pair(d, a)
            if rule is not None:
                by_rule.setdefault((d, rule), []).append(a)
    out = []
    for (d, (rnd, required, ftz, sat, gate)), atypes in by_rule.items():
        r = (".rnd" if required else "{.rnd}") if rnd else ""
        t = f"{r}{'{.ftz}' if ftz else ''}{'{.sat}' if sat else ''}.dtype.atype"
        where = {"dtype": (d,), "atype": tuple(atypes)}
        # .bf16: registers of the type's size; between integers a special register may be read
        ops = "dn, an" if gate is not None else "d, ai" if d in _INTS and atypes[0] in _INTS else "d, a"
        if rnd:
            where["rnd"] = rnd
        if gate is _F32_BF16 and ftz:         # cvt.ftz.f32.bf16 needs sm_90
            out.append(Form(t.replace("{.ftz}", ""), ops, gate=gate, where=where))
            out.append(Form(t.replace("{.ftz}", ".ftz"), ops, gate=_F32_BF16_FTZ, where=where))
            continue
        out.append(Form(t, ops, gate=gate, where=where))
    return tuple(out)


_CVT = InstructionSpec("cvt", "PTX ISA 9.7.9.21 (cvt)", (
    # ptxas takes `.sat` written twice (not `.ftz`)
    Group("rnd", _IRND + _FRND + (".rna",)), Group("ftz", (".ftz",)), Group("sat", (".sat",), repeatable=True),
    Group("relu", (".relu",), repeatable=True), Group("satfinite", (".satfinite",), repeatable=True),
    Group("dtype", _INTS + _FLOATS + (".f16x2", ".bf16x2", ".tf32") + _F8X2 + _NARROW_FLOATS),
    Group("atype", _INTS + _FLOATS + (".f16x2", ".bf16x2") + _F8X2 + _NARROW_FLOATS),
), forms=_scalar_forms() + (
    # two .f32 into a packed pair
    # (the .f16 family takes wider registers, the .bf16 family registers of the type's size)
    Form(".rnd{.relu}.f16x2.f32", "d2w, a, bw", where={"rnd": (".rn", ".rz")}, gate=_PACKED),
    Form(".rnd{.relu}.satfinite.f16x2.f32", "d2w, a, bw", where={"rnd": (".rn", ".rz")},
         gate=_PACKED_SATFINITE),
    Form(".rnd{.relu}.bf16x2.f32", "d2, af, b", where={"rnd": (".rn", ".rz")}, gate=_PACKED),
    Form(".rnd{.relu}.satfinite.bf16x2.f32", "d2, af, b", where={"rnd": (".rn", ".rz")},
         gate=_PACKED_SATFINITE),
    Form(".rnd.relu.f16.f32", "d, a", where={"rnd": (".rn", ".rz")}, gate=_PACKED),
    Form(".rnd.relu.satfinite.f16.f32", "d, a", where={"rnd": (".rn", ".rz")}, gate=_PACKED_SATFINITE),
    Form(".rnd.relu.bf16.f32", "dn, an", where={"rnd": (".rn", ".rz")}, gate=_PACKED),
    Form(".rnd.relu.satfinite.bf16.f32", "dn, an", where={"rnd": (".rn", ".rz")}, gate=_PACKED_SATFINITE),
    Form(".rnd.satfinite.f16.f32", "d, a", where={"rnd": (".rn", ".rz")}, gate=_SATFINITE),
    Form(".rnd.satfinite.bf16.f32", "dn, an", where={"rnd": (".rn", ".rz")}, gate=_PACKED_SATFINITE),
    Form(".rna.tf32.f32", "dt, af", gate=_PACKED),
    Form(".rna.satfinite.tf32.f32", "dt, af", gate=_PACKED_SATFINITE),
    Form(".rnd{.relu}.tf32.f32", "dt, af", where={"rnd": (".rn", ".rz")}, gate=_TF32_RN),
    Form(".rnd{.relu}.satfinite.tf32.f32", "dt, af", where={"rnd": (".rn", ".rz")}, gate=_TF32_SATFINITE),
    # 8-bit floats, two at a time
    *(f for g in (_F8, _F8_89) for f in (
        Form(".rn.satfinite{.relu}.dtype.f32", "d8, af, b", where={"dtype": _F8X2}, gate=g),
        Form(".rn.satfinite{.relu}.dtype.f16x2", "d8, ah", where={"dtype": _F8X2}, gate=g),
        Form(".rn{.relu}.f16x2.atype", "d2h, a8", where={"atype": _F8X2}, gate=g))),
    # 6-bit floats two at a time in 16 bits, 4-bit floats two at a time in 8 bits, and the
    # unsigned 8-bit exponent (block scale factors)
    Form(".rn.satfinite{.relu}.dtype.f32", "d8, af, b", where={"dtype": _F6X2}, gate=_F6F4),
    # ptxas 13.0 refuses `.satfinite` on the conversions to .f16x2 ("Unexpected instruction types")
    Form(".rn{.relu}.f16x2.atype", "d2h, a8", where={"atype": _F6X2}, gate=_F6F4),
    Form(".rn.satfinite{.relu}.e2m1x2.f32", "d4, af, b", gate=_F6F4),
    Form(".rn{.relu}.f16x2.e2m1x2", "d2h, a4", gate=_F6F4),
    Form(".rnd{.satfinite}.ue8m0x2.f32", "d8, af, b", where={"rnd": (".rz", ".rp")}, gate=_F6F4),
    Form(".rnd{.satfinite}.ue8m0x2.bf16x2", "d8, abf", where={"rnd": (".rz", ".rp")}, gate=_F6F4),
    Form(".rn.bf16x2.ue8m0x2", "d2, a8", gate=_F6F4),
), operands={
    "d": "=reg:dtype+", "a": "reg|imm:atype+", "dn": "=reg:dtype", "an": "reg|imm:atype",
    "ai": "reg|imm|sreg:atype+",
    "b": "reg|imm:.f32", "bw": "reg|imm:.f32+", "af": "reg|imm:.f32",
    "d2": "=reg:.bf16x2", "d2w": "=reg:.f16x2+", "dt": "=reg:raw32", "d8": "=reg:raw16", "ah": "reg:.f16x2",
    "d4": "=reg:raw8", "a4": "reg:raw8",
    # ptxas 13.0 takes any 32-bit register as the .bf16x2 source of cvt .ue8m0x2
    "abf": "reg:b32", "d2h": "=reg:.f16x2", "a8": "reg:raw16",
})

_PACK = Gate((6, 5), 72, "cvt.pack", "cvt.pack: PTX ISA 6.5, sm_72.")

_CTA_SPACE = Gate((7, 8), None, "::cta", "`.shared::cta`: PTX ISA 7.8 (ptxas 13.0: any target).")
_CLUSTER_SPACE = Gate((7, 8), 90, "::cluster", "`.shared::cluster`: PTX ISA 7.8, sm_90.")
_PARAM_SPACE = Gate((7, 7), 70, ".param", "cvta/isspacep `.param`: PTX ISA 7.7, sm_70.")
_ENTRY_SPACE = Gate((8, 3), 70, "::entry", "`.param::entry`: PTX ISA 8.3, sm_70.")

RECORDS = (
    _CVT,
    InstructionSpec("cvt.pack", "PTX ISA 9.7.9.22 (cvt.pack)", (
        Group("sat", (".sat",), repeatable=True),
        Group("ctype", (".u16", ".s16", ".u2", ".s2", ".u4", ".s4", ".u8", ".s8")),
        Group("abtype", (".s32",)), Group("cbtype", (".b32",)),
    ), forms=(
        Form(".sat.ctype.s32", "d, a, b", where={"ctype": (".u16", ".s16")}),
        Form(".sat.ctype.s32.b32", "d, a, b, c", where={"ctype": (".u2", ".s2", ".u4", ".s4", ".u8", ".s8")}),
    ), operands={"d": "=reg:.u32+", "a": "reg|imm:.s32+", "b": "reg|imm:.s32+", "c": "reg|imm:.b32+"},
        gate=_PACK),
    InstructionSpec("cvta", "PTX ISA 9.7.9.19 (cvta)", (
        Group("to", (".to",)),
        Group("space", (".const", ".global", ".local", ".shared", ".shared::cta", ".shared::cluster",
                        ".param", ".param::entry")),
        Group("size", (".u32", ".u64")),
    ), forms=(
        # `.u32`: a 32-bit address, which ptxas 13.0 refuses on every target ("32-Bit compilation is
        # no longer supported")
        Form("{.to}.space.u64", "p, a", where={"space": (".const", ".global", ".local", ".shared")}),
        Form("{.to}.space.u64", "p, a", where={"space": (".shared::cta",)}, gate=_CTA_SPACE),
        Form("{.to}.space.u64", "p, a", where={"space": (".shared::cluster",)}, gate=_CLUSTER_SPACE),
        Form("{.to}.param.u64", "p, a", gate=_PARAM_SPACE),
        Form("{.to}.param::entry.u64", "p, a", gate=_ENTRY_SPACE),
    ), operands={"p": "=reg:size", "a": "reg|imm:size"}),
    InstructionSpec("isspacep", "PTX ISA 9.7.9.18 (isspacep)", (
        Group("space", (".const", ".global", ".local", ".shared", ".shared::cta", ".shared::cluster",
                        ".param", ".param::entry")),
    ), forms=(
        Form(".space", "p, a", where={"space": (".const", ".global", ".local", ".shared")}),
        Form(".space", "p, a", where={"space": (".shared::cta",)}, gate=_CTA_SPACE),
        Form(".space", "p, a", where={"space": (".shared::cluster",)}, gate=_CLUSTER_SPACE),
        Form(".param", "p, a", gate=_PARAM_SPACE),
        Form(".param::entry", "p, a", gate=_ENTRY_SPACE),
    # an address: an integer register of 32 or 64 bits (ptxas 13.0 refuses .f16x2/.f32/.f64)
    ), operands={"p": "=pred", "a": "reg|imm:int32|int64"}),
    InstructionSpec("prmt", "PTX ISA 9.7.9.7 (prmt)", (
        Group("type", (".b32",)), Group("mode", (".f4e", ".b4e", ".rc8", ".ecl", ".ecr", ".rc16")),
    ), forms=(Form(".b32{.mode}", "d, a, b, c"),),
        operands={"d": "=reg:.b32", "a": "reg|imm:.b32", "b": "reg|imm:.b32", "c": "reg|imm:.b32"}),
)
