"""PTX0810: a direct call against the callee's declaration (PTX ISA 9.7.12.4).

The record of `call` (spec/instructions/control.py) says which operand shapes a call has; how
many arguments and return values a direct call passes is read from the callee's own
declaration in the module, as ptxas 13.0 does ("Call has wrong number of parameters")."""
from __future__ import annotations

from ..ptx.nodes import Name, ParenList, Variable
from .context import Checker
from .registry import Example, Rule, Trigger, rule

_CALLEE = ".func f(.param .b32 a)\n{\n    ret;\n}\n"


@rule(Trigger.INSTRUCTION,
    Rule("PTX0810", "call-arity", "error",
         "a direct call with more or fewer arguments or return values than the callee declares",
         "PTX ISA 9.7.12.4 (call)",
         "A direct call passes one argument per parameter of the callee and receives one value per "
         "return parameter it declares.",
         Example(decls=_CALLEE, body="call f;"), Example(decls=_CALLEE, body="call f, (%r1);"),
         ptxas="error: Call has wrong number of parameters"),
    on=("call",))
def check_call_arity(c: Checker, ins) -> None:
    ops = ins.operands
    if ins.operand_error is not None:
        return
    callee_at = 1 if ops and isinstance(ops[0], ParenList) else 0
    if callee_at >= len(ops) or not isinstance(ops[callee_at], Name):
        return
    callee = c.module.functions.get(ops[callee_at].name)
    if callee is None or isinstance(c.lookup(ins, ops[callee_at].name), Variable):
        return                         # an indirect call through a register: its prototype decides
    returns = len(ops[0].items) if callee_at else 0
    rest = ops[callee_at + 1:]
    args = len(rest[0].items) if rest and isinstance(rest[0], ParenList) else (1 if rest else 0)
    want_args, want_returns = len(callee.params), len(callee.returns)
    if (args, returns) == (want_args, want_returns):
        return
    c.emit("PTX0810", ins.operand_start, max(ins.end - 1, ins.operand_start + 1),
           f"`{callee.name}` takes {want_args} argument(s) and returns {want_returns} value(s); "
           f"this call passes {args} and receives {returns}",
           label="wrong number of parameters",
           help=f"match the declaration of `{callee.name}`")
