"""Stores and reductions of sm_90 and later that complete asynchronously or in bulk, and the
uniform load: st.async, red.async (PTX ISA 9.7.9.12, 9.7.13.7), st.bulk (9.7.9.13), ldu
(9.7.9.11). Measured against ptxas 13.0."""
from __future__ import annotations

from ..gates import Gate
from ..isa import Form, Group, InstructionSpec

_ASYNC = Gate((8, 1), 90, "st.async/red.async", "st.async, red.async: PTX ISA 8.1, sm_90.")
_COMPLETE = Group("completion", (".mbarrier::complete_tx::bytes",))
_LDU_TYPES = (".b8", ".b16", ".b32", ".b64", ".b128", ".u8", ".u16", ".u32", ".u64", ".s8", ".s16",
              ".s32", ".s64", ".f32", ".f64")
_ASYNC_TYPES = (".b32", ".b64", ".u32", ".u64", ".s32", ".s64", ".f32", ".f64")
_NARROW = (".b8", ".b16", ".u8", ".u16", ".s8", ".s16")
# the release forms to global memory (no mbarrier): PTX ISA 8.7, sm_100 (ptxas 13.0 names the
# `.global` space, `.release` and `.mmio` features separately, with the same gate)
_RELEASE = Gate((8, 7), 100, "st.async/red.async .release .global",
                "st.async/red.async with .release, .mmio or .global: PTX ISA 8.7, sm_100.")
_RELEASE_GATES = dict.fromkeys((".release", ".mmio", ".global"), _RELEASE)
_MMIO = Group("mmio", (".mmio",))
_NEEDS_COMPLETION = ("the PTX ISA writes `.mbarrier::complete_tx::bytes` (with an mbarrier operand) or "
                     "`.release` with `.gpu`/`.sys`")

RECORDS = (
    InstructionSpec("ldu", "PTX ISA 9.7.9.11 (ldu)", (
        Group("space", (".global",)), Group("vec", (".v2", ".v4")), Group("type", _LDU_TYPES),
    ), forms=(
        Form("{.space}.type", "d, a"),
        Form("{.space}.v2.type", "dv, a", where={"type": tuple(t for t in _LDU_TYPES if t != ".b128")}),
        Form("{.space}.v4.type", "dv, a", where={"type": tuple(t for t in _LDU_TYPES if int(t[2:]) <= 32)}),
    ), operands={"d": "=reg:type+", "dv": "=vec|reg:type+*vec", "a": "addr"},
        gates={".b128": Gate((8, 3), 70, ".b128", "`.b128`: PTX ISA 8.3, sm_70.")},
        gate=Gate((2, 0), 20, "ldu", "ldu: PTX ISA 2.0, sm_20.")),
    InstructionSpec("st.async", "PTX ISA 9.7.9.12 (st.async)", (
        _MMIO, Group("sem", (".weak", ".release")), Group("scope", (".cluster", ".gpu", ".sys")),
        Group("space", (".shared::cluster", ".global")), _COMPLETE, Group("vec", (".v2", ".v4")),
        Group("type", _ASYNC_TYPES + _NARROW),
    ), forms=(
        # ptxas 13.0: `.weak` and `.cluster` each alone, not together
        *(form for lead in ("{.sem}{.space}", "{.scope}{.space}") for form in (
            Form(f"{lead}.mbarrier::complete_tx::bytes.type", "a, b{, mbar}",
                 where={"sem": (".weak",), "scope": (".cluster",), "space": (".shared::cluster",),
                        "type": _ASYNC_TYPES}),
            # ...but a vector store only with it ("Vector qualifier is not allowed")
            Form(f"{lead}.mbarrier::complete_tx::bytes.v2.type", "a, bv, mbar",
                 where={"sem": (".weak",), "scope": (".cluster",), "space": (".shared::cluster",),
                        "type": _ASYNC_TYPES}),
            Form(f"{lead}.mbarrier::complete_tx::bytes.v4.type", "a, bv, mbar",
                 where={"sem": (".weak",), "scope": (".cluster",), "space": (".shared::cluster",),
                        "type": (".b32", ".u32", ".s32", ".f32")}))),
        # ptxas 13.0 takes a scalar store without its mbarrier, and without the completion
        # mechanism where neither a state space nor `.cluster` is written (`.gpu`/`.sys` alone too)
        Form("{.sem}.type", "a, b{, mbar}", where={"sem": (".weak",), "type": _ASYNC_TYPES},
             beyond_isa=_NEEDS_COMPLETION),
        Form(".scope.type", "a, b{, mbar}", where={"scope": (".gpu", ".sys"), "type": _ASYNC_TYPES},
             beyond_isa=_NEEDS_COMPLETION),
        Form("{.mmio}.release.scope{.space}.type", "a, b", where={"scope": (".gpu", ".sys"), "space": (".global",)}),
    ), operands={"a": "addr", "b": "reg|imm:type", "bv": "vec|reg:type*vec", "mbar": "addr"}, gate=_ASYNC,
        gates=_RELEASE_GATES),
    InstructionSpec("red.async", "PTX ISA 9.7.13.7 (red.async)", (
        _MMIO, Group("sem", (".relaxed", ".release")), Group("scope", (".cluster", ".gpu", ".sys")),
        Group("space", (".shared::cluster", ".global")), _COMPLETE, Group("op", (".inc", ".dec", ".min", ".max", ".and", ".or", ".xor", ".add")),
        Group("type", (".u32", ".s32", ".b32", ".u64")),
    ), forms=tuple(
        # ptxas 13.0 takes the instruction without its mbarrier operand
        Form(".relaxed.cluster{.space}.mbarrier::complete_tx::bytes.op.type", "a, b{, mbar}",
             where={"op": ops, "type": types, "space": (".shared::cluster",)})
        for ops, types in (((".inc", ".dec"), (".u32",)), ((".min", ".max"), (".u32", ".s32")),
                           ((".and", ".or", ".xor"), (".b32",)), ((".add",), (".u32", ".s32", ".u64")))
    # ptxas 13.0 also takes `.relaxed` (on sm_90 already, without `.global`), not with `.mmio`
    ) + (Form("{.mmio}.release.scope{.space}.add.type", "a, b",
              where={"scope": (".gpu", ".sys"), "space": (".global",), "type": (".u32", ".s32", ".u64")}),
         Form(".relaxed.scope{.space}.add.type", "a, b",
              where={"scope": (".gpu", ".sys"), "space": (".global",), "type": (".u32", ".s32", ".u64")},
              beyond_isa="the PTX ISA writes `.release` for a reduction without an mbarrier"),
         ), operands={"a": "addr", "b": "reg|imm:type", "mbar": "addr"}, gate=_ASYNC, gates=_RELEASE_GATES),
    InstructionSpec("st.bulk", "PTX ISA 9.7.9.13 (st.bulk)", (
        Group("sem", (".weak",)), Group("space", (".shared::cta",)),
    ), forms=(Form("{.sem}{.space}", "a, size, initval"),),
        operands={"a": "addr", "size": "reg|imm:.u64", "initval": "imm=0"},
        gate=Gate((8, 6), 100, "st.bulk", "st.bulk: PTX ISA 8.6, sm_100.")),
)
