"""Value sets and operand roles many instruction records share (PTX ISA 9.7)."""
from __future__ import annotations

from ..gates import Gate
from ..isa import Group

ROUNDING = (".rn", ".rz", ".rm", ".rp")                 # floating-point rounding
INT_ROUNDING = (".rni", ".rzi", ".rmi", ".rpi")         # rounding to an integer
INT16_64 = (".u16", ".u32", ".u64", ".s16", ".s32", ".s64")
INT32_64 = (".u32", ".u64", ".s32", ".s64")
BITS16_64 = (".b16", ".b32", ".b64")

# operand roles: `=` marks a destination (see `ptxld.spec.isa.OperandSpec`)
D = "=reg:type"                 # a register of the instruction's type
SRC = "reg|imm:type"            # a register or an immediate of the instruction's type

F16_GATE = Gate((4, 2), 53, "f16 arithmetic", "Requires `sm_53` or higher.")
BF16_ARITH_GATE = Gate((7, 8), 90, "bf16 arithmetic", "add/sub/mul .bf16: PTX ISA 7.8, sm_90.")
PACKED16_GATE = Gate((8, 0), 90, "u16x2/s16x2", "Integer .u16x2/.s16x2: PTX ISA 8.0, sm_90.")
F32X2_GATE = Gate((8, 6), 100, "f32x2", ".f32x2: PTX ISA 8.6, sm_100.")
F64_GATE = Gate((1, 0), 13, "f64", "`.f64` requires `sm_13` or higher.")


# ptxas 13.0 takes .sync (and .satfinite) written twice, not .aligned
SYNC_ALIGNED = (Group("sync", (".sync",), repeatable=True), Group("aligned", (".aligned",)))

# register classes ptxas 13.0 takes for matrix fragment elements (measured): 32-bit integer
# registers for packed and integer values (not .f32), any 32-bit register for .f32 values,
# .f64/.b64 for .f64
FRAGMENT_CLASS = {"int": ".b32|.u32|.s32", "f32": "b32", "f64": ".f64|.b64"}


def fragment_role(roles: dict[str, str], name: str, count: int, cls: str, write: bool = False) -> str:
    """A vector operand role of `count` registers of a class (`FRAGMENT_CLASS`), defined in
    `roles` (a record module's operand roles) on first use; its name says the count."""
    key = f"{name} ({count} {'' if cls == 'f32' else cls + ' '}register{'s' if count > 1 else ''})"
    roles[key] = f"{'=' if write else ''}vec:{FRAGMENT_CLASS[cls]}*{count}"
    return key


def fragment_class(type_: str) -> str:
    """The register class (`FRAGMENT_CLASS`) of a fragment of elements of `type_`."""
    return "f64" if type_ == "f64" else "f32" if type_ in ("f32", "tf32") else "int"
