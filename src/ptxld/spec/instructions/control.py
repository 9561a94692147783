"""Control flow (PTX ISA 9.7.12: bra, brx.idx, call, ret, exit), measured against ptxas 13.0.

What ptxas 13.0 showed beyond the ISA text: `.uni` may be written twice (`bra.uni.uni`,
`call.uni.uni`); `exit` takes no `.uni`; a call's arguments and return value may be registers
or immediates as well as `.param` variables; the index of `brx.idx` is a 32-bit integer
register or an immediate. A label operand's type names what the label must be declared as
(`.branchtargets`, `.callprototype`/`.calltargets`): the checker reads it as a label, the
differential generator declares one of that kind.
"""
from __future__ import annotations

from ..gates import Gate
from ..isa import Form, Group, InstructionSpec

_UNI = Group("uni", (".uni",), repeatable=True)
_CALL_OPERANDS = {
    "ret": "params", "f": "func", "args": "params|imm",
    # an indirect call: a function address and the list of its possible targets or its prototype
    "fp": "reg:.u32|.u64", "targets": "label:.callprototype",
}

RECORDS = (
    InstructionSpec("bra", "PTX ISA 9.7.12.2 (bra)", (_UNI,), forms=(Form("{.uni}", "tgt"),),
                    operands={"tgt": "label"}),
    InstructionSpec("brx.idx", "PTX ISA 9.7.12.3 (brx.idx)", (_UNI,),
                    forms=(Form("{.uni}", "index, tlist"),),
                    operands={"index": "reg|imm:.u32", "tlist": "label:.branchtargets"},
                    gate=Gate((6, 0), 30, "brx.idx", "brx.idx: PTX ISA 6.0, sm_30.")),
    InstructionSpec("call", "PTX ISA 9.7.12.4 (call)", (_UNI,), forms=(
        Form("{.uni}", "f"),
        Form("{.uni}", "f, args"),
        Form("{.uni}", "ret, f, args"),
        Form("{.uni}", "fp, targets"),
        Form("{.uni}", "fp, args, targets"),
        Form("{.uni}", "ret, fp, args, targets"),
    ), operands=_CALL_OPERANDS),
    InstructionSpec("ret", "PTX ISA 9.7.12.5 (ret)", (_UNI,), forms=(Form("{.uni}"),)),
    InstructionSpec("exit", "PTX ISA 9.7.12.6 (exit)", (), forms=(Form(""),)),
)
