"""PTX0811: what ptxas 13.0 accepts beyond the PTX ISA text, read from the instruction records.

Where ptxas and the ISA text differ, a record follows ptxas (its verdict is what the checker
must match) and marks the difference: a form the text does not list (`Form(beyond_isa=...)`,
`testp.f32` without a test) or a modifier ptxas takes written twice (`Group(repeatable=True)`:
`add.sat.s32.sat`). Both are warnings, errors under --strict."""
from __future__ import annotations

from ..spec.forms import matching_forms
from .context import Checker
from .registry import Example, Rule, Trigger, rule

# opcode -> (message, start, end) of each finding within the opcode (a few opcodes repeat often)
_FOUND: dict[str, tuple] = {}


def _findings(d) -> tuple:
    got = _FOUND.get(d.opcode)
    if got is None:
        out = []
        forms = matching_forms(d) if d.spec is not None and not d.others and not d.repeated else ()
        if forms and all(f.beyond_isa for f in forms):
            out.append((f"`{d.opcode}`: {forms[0].beyond_isa}; ptxas 13.0 accepts it", 0, len(d.opcode)))
        seen: dict[str, str] = {}
        for text, s, e, group in d.modifiers:
            if group is not None and seen.get(group) == text:
                out.append((f"`{text}` written twice: the PTX ISA writes each modifier once (ptxas 13.0 "
                            "takes it)", s, e))
            elif group is not None:
                seen[group] = text
        if len(_FOUND) >= 8192:
            _FOUND.clear()
        got = _FOUND[d.opcode] = tuple(out)
    return got


@rule(Trigger.INSTRUCTION,
    Rule("PTX0811", "beyond-isa-text", "warning",
         "an instruction ptxas 13.0 accepts in a form the PTX ISA text does not list",
         "PTX ISA 9.7 (the syntax of each instruction); ptxas 13.0 (measured)",
         "Each instruction's section lists its syntax forms, each modifier written once. ptxas 13.0 "
         "also takes a few forms outside them (`testp` without a test, `.bf16` `fma` with any "
         "rounding, `wgmma.fence.sync` without `.aligned`, a modifier written twice).",
         Example(body="testp.f32 %p1, %f1;", version="9.0", target="sm_90"),
         Example(body="testp.finite.f32 %p1, %f1;", version="9.0", target="sm_90"),
         ptxas="accepted", isa_only=True),
    opcode_only=True)
def check_isa_text(c: Checker, ins) -> None:
    d = ins.decoded
    base = ins.opcode_start
    for message, s, e in _findings(d):
        c.emit("PTX0811", base + s, base + e, message, label="beyond the PTX ISA text",
               help="write the form the PTX ISA lists; `ptxld check --strict` makes this an error")
