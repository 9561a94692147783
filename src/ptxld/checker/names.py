"""PTX0109 (instruction names), PTX0111 (guards) and PTX0301 (declared names): on every instruction."""
from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate

from ..ptx.nodes import Address, Expr, Name, ParenList, PredPair, Vector, spelled_range
from ..ptx.operands import FAST_LISTS, NAME_USE, fast_list_names, operand_names
from ..spec.opcodes import MNEMONICS, is_predefined
from .context import Checker
from .registry import Example, Rule, Trigger, rule


@rule(Trigger.UNKNOWN_INSTRUCTION,
    Rule("PTX0109", "unknown-instruction", "error",
         "not the name of any PTX instruction",
         "PTX ISA 4.2 (Table 2, reserved instruction keywords)",
         "Instruction keywords are the reserved opcodes of Table 2; ptxas rejects any other name.",
         Example(body="lod.global.u32 %r1, [%rd0];"),
         Example(body="ld.global.u32 %r1, [%rd0];"),
         ptxas="error: Not a name of any known instruction: 'lod'"))
def check_mnemonic(c: Checker, ins) -> bool:
    """PTX0109: False when the mnemonic is unknown (nothing more is checked on that instruction)."""
    mn = ins.opcode.partition(".")[0]
    if mn in MNEMONICS:
        return True
    import difflib
    close = difflib.get_close_matches(mn, MNEMONICS, n=1, cutoff=0.6)
    s = ins.opcode_start
    c.emit("PTX0109", s, s + len(mn), f"`{mn}` is not a PTX instruction",
           label="unknown instruction",
           help=f"did you mean `{close[0]}`?" if close else "")
    return False


def _known(c: Checker, scope) -> set:
    """The names every instruction of `scope` may use: declared before its first instruction
    (registers repeat on almost every line, so each is resolved once)."""
    known = c.known.get(scope)
    if known is None:
        known = c.known[scope] = set()
    return known


@rule(Trigger.GUARD,
    Rule("PTX0111", "guard-not-predicate", "error",
         "a guard `@p` must be a `.pred` register",
         "PTX ISA 9.3 (predicated execution)",
         "Instructions may be guarded by a predicate register: @p or @!p, p a .pred register.",
         Example(body="@%r1 ld.global.u32 %r2, [%rd0];"),
         Example(body="setp.ne.u32 %p1, %r1, 0;\n@%p1 ld.global.u32 %r2, [%rd0];"),
         ptxas="error: Predicate expression expected"),
    also=("PTX0301",))
def check_guard(c: Checker, ins) -> None:
    """PTX0301/PTX0111 on the guard `@p`: a declared predicate register."""
    g = ins.guard
    var = c.lookup(ins, g.name.name)
    if var is not None and var.start > ins.start:  # declared further down: is there an earlier one?
        var = (ins.scope or ins.module.scope).lookup(g.name.name, before=ins.start)
    if var is None:
        _name(c, ins, g.name, _known(c, ins.scope or ins.module.scope))
    elif getattr(var, "kind", "") != "variable" or var.space != ".reg" or var.type != ".pred":
        c.emit("PTX0111", g.name.start, g.name.end, f"`{g.name.name}` is not a predicate register",
               label=f"{getattr(var, 'type', '') or 'not a register'}",
               help="compute a predicate with `setp` and guard with it")


@rule(Trigger.NAMES,
    Rule("PTX0301", "undeclared-name", "error",
         "the name is not declared",
         "PTX ISA 5.4 (Variables), 4.4 (Identifiers)",
         "Every register, variable, label and function must be declared before use "
         "(special registers such as %tid are predefined). ptxas 13.0 reads the module top to "
         "bottom: a name declared further down is unknown where it is used (\"Unknown symbol\", "
         "\"Label expected for forward reference\"); only labels may be used before they are "
         "defined.",
         Example(body="ld.global.u32 %r1, [%nosuch];"),
         Example(body="ld.global.u32 %r1, [%rd0];"),
         ptxas="error: Unknown symbol '%nosuch'"))
def check_names_together(c: Checker, scope, group: list) -> None:
    """PTX0301 for the instructions of one scope (in text order) at once: one syntax match and
    one name search over their operand texts joined by `;` (which no operand text contains).
    An instruction outside the fast operand grammar, or using a name that is not declared, or
    declared only further down, is checked on its own."""
    texts = [ins.operand_text for ins in group]
    joined = ";".join(texts) + ";"
    pos, n = 0, len(joined)
    ends = None
    while True:
        end = FAST_LISTS.match(joined, pos).end()
        if end == n:
            break
        if ends is None:
            ends = list(accumulate(len(t) + 1 for t in texts))  # offset after each `;`
        k = bisect_right(ends, end)  # the first instruction the fast grammar does not take
        check_operand_names(c, group[k])
        texts[k] = ""
        pos = ends[k]
    if ends is not None:
        joined = ";".join(texts)
    known = _known(c, scope)
    used = fast_list_names(joined) - known
    used.discard("_")
    left, late = _undeclared(scope, used, group[0].start)
    known |= used - left - late
    bad = {name for name in left if not _resolve(c, scope, group[0].function, name, known, group[0].start)}
    bad |= late
    if bad:
        for ins, text in zip(group, texts):
            if text and not bad.isdisjoint(NAME_USE.findall(text)):
                check_operand_names(c, ins)


def check_operand_names(c: Checker, ins) -> None:
    """PTX0301 on every name one instruction's operands use."""
    known = _known(c, ins.scope or ins.module.scope)
    if ins._operands is None:
        names = operand_names(ins)
        if names is not None:
            for n in names:
                if n.name not in known and n.name != "_":
                    _name(c, ins, n, known)
            return
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


def _undeclared(scope, names: set, first: int) -> tuple[set, set]:
    """(names not declared for `scope`, names declared only after offset `first`), set-wise: a
    `%r<N>` range is spelled out (`%r0` ... `%rN-1`, as `Scope.find` reads it) unless it is much
    larger than the set (those names are left to `_resolve`)."""
    left, late = set(names), set()
    s = scope
    while left and s is not None:
        declared = s.names
        if len(declared) < len(left):
            here = {name for name in declared if name in left}
        else:
            here = {name for name in left if name in declared}
        if here:
            left -= here
            late.update(name for name in here if s.declared_at(name, declared[name]) > first)
        for stem, var in s.ranges.items():
            if var.range_count <= 4 * len(left) + 64:
                spelled = spelled_range(var, stem)
                if var.start > first:
                    late.update(left.intersection(spelled))
                left.difference_update(spelled)
        s = s.parent
    return left, late


def _resolve(c: Checker, scope, function, name: str, known: set, at: int) -> bool:
    """Is `name` declared for `scope` before offset `at` (or predefined, or a label of
    `function`: labels may be used before they are defined)? `known` caches the names declared
    before the scope's first instruction, which every instruction of the scope may use."""
    # a name known in an enclosing block is declared here too, once that block's first
    # instruction is behind
    s = scope.parent
    while s is not None:
        outer = c.known.get(s)
        if outer is not None and name in outer and c.first.get(s, at) <= at:
            return True
        s = s.parent
    found = c.find(scope, name, at)
    if found is not None:
        if found[0].declared_at(name, found[1]) < c.first.get(scope, at):
            known.add(name)
        return True
    if is_predefined(name) or name in c.labels_of(function):
        known.add(name)
        return True
    return False


def _name(c: Checker, ins, n: Name, known: set) -> None:
    """Mark a used name known, or report it where it stands: undeclared, or declared further down."""
    name = n.name
    scope = ins.scope or ins.module.scope
    if _resolve(c, scope, ins.function, name, known, ins.start):
        return
    start, end = n.start, n.end
    later = scope.lookup(name)
    if later is not None:
        c.emit("PTX0301", start, end, f"`{name}` is used before its declaration", label="not declared yet",
               secondary=[(later.start, later.end, "declared here")],
               help="PTX names are declared before they are used (only labels may come later)")
        return
    c.emit("PTX0301", start, end, f"`{name}` is not declared", label="undeclared",
           help="declare it (e.g. `.reg .b32 %r<N>;`) before use" if name.startswith("%") else "")
