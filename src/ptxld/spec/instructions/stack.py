"""Stack manipulation (PTX ISA 9.7.17): `alloca`, `stacksave`, `stackrestore`. Measured with
ptxas 13.0: alloca's size may be an immediate; stackrestore's operand must be a register
("Result register required"); a non-power-of-two alignment is refused."""
from __future__ import annotations

from ..gates import Gate
from ..isa import Form, Group, InstructionSpec

_GATE = Gate((7, 3), 52, "stack manipulation", "alloca, stacksave, stackrestore: PTX ISA 7.3, sm_52.")
_TYPE = Group("type", (".u32", ".u64"))

RECORDS = (
    InstructionSpec("alloca", "PTX ISA 9.7.17.3 (alloca)", (_TYPE,), forms=(
        Form(".type", "ptr, size{, align}"),
    ), operands={"ptr": "=reg:type", "size": "reg|imm:type", "align": "imm:.u32"}, gate=_GATE),
    InstructionSpec("stacksave", "PTX ISA 9.7.17.1 (stacksave)", (_TYPE,), forms=(
        Form(".type", "d"),
    ), operands={"d": "=reg:type"}, gate=_GATE),
    InstructionSpec("stackrestore", "PTX ISA 9.7.17.2 (stackrestore)", (_TYPE,), forms=(
        Form(".type", "a"),
    ), operands={"a": "reg:type"}, gate=_GATE),
)
