"""Value sets and operand roles many instruction records share (PTX ISA 9.7)."""
from __future__ import annotations

from ..gates import Gate

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
