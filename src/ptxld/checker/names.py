"""PTX0109 (instruction names) and PTX0301 (declared names): checked on every instruction."""
from __future__ import annotations

import difflib

from ..ptx.nodes import Address, Expr, Name, ParenList, PredPair, Vector
from ..ptx.operands import name_span, operand_names
from ..spec.opcodes import MNEMONICS, is_predefined
from .context import Checker


def check_instruction_names(c: Checker, ins, mn: str) -> bool:
    """False when the mnemonic is unknown (nothing more is checked on that instruction)."""
    if mn not in MNEMONICS:
        close = difflib.get_close_matches(mn, MNEMONICS, n=1, cutoff=0.6)
        s = ins.opcode_start
        c.emit("PTX0109", s, s + len(mn), f"`{mn}` is not a PTX instruction",
               label="unknown instruction",
               help=f"did you mean `{close[0]}`?" if close else "",
               fix=close[0] if close else None)
        return False
    # Names already resolved in this scope (registers repeat on almost every line).
    scope = ins.scope or ins.module.scope
    known = c.known.get(scope)
    if known is None:
        known = c.known[scope] = set()
    g = ins.guard
    if g is not None:
        var = c.lookup(ins, g.name.name)
        if var is None:
            _name(c, ins, g.name, known)
        elif getattr(var, "kind", "") != "variable" or var.space != ".reg" or var.type != ".pred":
            c.emit("PTX0111", g.name.start, g.name.end, f"`{g.name.name}` is not a predicate register",
                   label=f"{getattr(var, 'type', '') or 'not a register'}",
                   help="compute a predicate with `setp` and guard with it")
    if ins._operands is None and mn != "ld" and mn != "wmma":
        names = operand_names(ins)
        if names is not None:
            for name in names:
                if name not in known and name != "_":
                    _name(c, ins, name, known)
            return True
    for op in ins.operands:
        cls = op.__class__
        if cls is Name:
            if op.name not in known:
                _name(c, ins, op, known)
        elif cls is Address and not op.items:
            b = op.base
            if b is not None and b.name not in known:
                _name(c, ins, b, known)
        else:
            _operand(c, ins, op, known)
    return True


def _operand(c: Checker, ins, op, known) -> None:
    cls = op.__class__
    if cls is Name:
        if op.name not in known:
            _name(c, ins, op, known)
    elif cls is Address:
        if op.base is not None:
            _operand(c, ins, op.base, known)
        for x in op.items:
            _operand(c, ins, x, known)
    elif cls is Vector or cls is ParenList:
        for x in op.items:
            _operand(c, ins, x, known)
    elif cls is Expr:
        for x in op.args:
            _operand(c, ins, x, known)
    elif cls is PredPair:
        _operand(c, ins, op.first, known)
        _operand(c, ins, op.second, known)


def _name(c: Checker, ins, n: Name | str, known: set) -> None:
    """Mark a used name known, or report it undeclared (`n` is a Name, or a bare name found by
    `operand_names`, whose span is looked up only to report it)."""
    name = n if isinstance(n, str) else n.name
    scope = ins.scope or ins.module.scope
    # a name declared for an enclosing block is declared here too
    s = scope.parent
    while s is not None:
        outer = c.known.get(s)
        if outer is not None and name in outer:
            known.add(name)
            return
        s = s.parent
    found = scope.find(name)
    if found is not None:
        # known from here up to the declaring block, so sibling blocks find it on the way up
        s = scope
        while s is not None:
            c.known.setdefault(s, set()).add(name)
            if s is found[0]:
                break
            s = s.parent
        return
    if is_predefined(name) or name in c.labels_of(ins.function):
        known.add(name)
        return
    start, end = name_span(ins, name) if isinstance(n, str) else (n.start, n.end)
    c.emit("PTX0301", start, end, f"`{name}` is not declared", label="undeclared",
           help="declare it (e.g. `.reg .b32 %r<N>;`) before use" if name.startswith("%") else "")
