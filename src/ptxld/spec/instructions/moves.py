"""mov (PTX ISA 9.7.9.1 and 9.7.9.2): registers, immediates, special registers, addresses of
variables and functions, and the pack/unpack forms with a brace vector."""
from __future__ import annotations

from ..gates import Gate
from ..isa import Form, Group, InstructionSpec

_B128 = Gate((8, 3), 70, ".b128", "Type .b128: PTX ISA 8.3, sm_70.")
_TYPES = (".pred", ".b16", ".b32", ".b64", ".b128", ".u16", ".u32", ".u64", ".s16", ".s32", ".s64",
          ".f32", ".f64")

RECORDS = (
    InstructionSpec("mov", "PTX ISA 9.7.9.1 (mov)", (
        # `.v8` is a vector size of the ISA, in no form of mov ("Illegal vector size: 8")
        Group("vec", (".v2", ".v4", ".v8")), Group("type", _TYPES),
    ), forms=(
        Form(".type", "d, a", where={"type": tuple(t for t in _TYPES if t != ".b128")}),
        Form(".b128", "d, a128", gate=_B128),
        # pack and unpack: bit types only, the elements' sizes adding up to the type's
        Form(".type", "d, pack", where={"type": (".b16", ".b32", ".b64")}),
        Form(".type", "unpack, a", where={"type": (".b16", ".b32", ".b64")}),
        Form(".b128", "d, pack", gate=_B128),
        Form(".b128", "unpack, a", gate=_B128),
        # vectors: ptxas caps them at 128 bits
        Form(".v2.type", "vd, va", where={"type": tuple(t for t in _TYPES if t not in (".pred", ".b128"))}),
        Form(".v4.type", "vd, va", where={"type": (".b16", ".b32", ".u16", ".u32", ".s16", ".s32", ".f32")}),
    ), operands={
        "d": "=reg|pred:type",
        # `mov.u64 %rd1, f;` takes a function's address, as it takes a variable's
        "a": "reg|pred|imm|sreg|func:type",
        "a128": "reg|pred|imm|func:type",       # ptxas 13.0 refuses a special register here
        "pack": "vec",
        "unpack": "=vec",
        # a vector register (`.reg .v2 .u32 v`) or a brace list, element by element
        "vd": "=vec|reg:type*vec",
        "va": "vec|reg:type*vec",
    }),
)
