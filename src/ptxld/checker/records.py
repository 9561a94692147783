"""PTX08xx: every instruction against its record (`ptxld.spec`): its modifiers, the form they
make, its operands (count, kind, type) and the gates of what it uses.

The load family keeps its deeper rules (PTX02xx-05xx); these run on every other instruction that
has a record. One rule set for the whole ISA: adding an instruction is adding its record.
"""
from __future__ import annotations

from .. import patterns
from ..ptx.nodes import Address, Expr, Float, Int, Name, ParenList, PredPair, Sink, Variable, Vector
from ..ptx.operands import FAST_ADDRESS, FAST_NUMBER
from ..spec.forms import matching_forms, nearest, spelled
from ..spec.gates import Gate
from ..spec.isa import OperandSpec
from ..spec import tensormap as tensormap_spec
from ..spec.instructions import suffixed
from ..spec.mma import WGMMA_SPARSE
from ..spec.opcodes import SUBNAMES, special_register
from ..spec.types import TYPES, kind_bits
from .context import Checker, fmt_version
from .registry import NAMES_CHECKED, Example, Rule, Trigger, rule

SECTION = "PTX ISA 9.7 (Instructions)"


# operands that are something other than a register, by their node
_CONSTANT_KINDS = {Int: "imm", Float: "imm"}
_WORDS = {"reg": "a register", "imm": "an immediate", "pred": "a predicate register",
          "npred": "a (possibly negated) predicate", "addr": "an address `[...]`",
          "vec": "a vector `{...}`", "label": "a label", "func": "a function name",
          "params": "a parameter list `(...)`", "sink": "the sink `_`", "pair": "a predicate pair `p|q`",
          "sreg": "a special register", "tex": "a texture address `[tex, ...]`",
          "surf": "a surface address `[surf, ...]`"}
# the variables that name a texture, sampler or surface, by role kind (or a .u64 handle register)
_HANDLES = {"tex": ".texref", "surf": ".surfref"}


@rule(Trigger.INSTRUCTION,
    Rule("PTX0801", "unknown-modifier", "error", "a modifier that the instruction does not have",
         SECTION, "Each instruction takes the modifiers its syntax lists, and no others.",
         Example(body="add.foo.u32 %r1, %r2, %r3;"), Example(body="add.u32 %r1, %r2, %r3;"),
         ptxas="error: Unknown modifier '.foo'"),
    Rule("PTX0802", "repeated-modifier", "error", "two values for one modifier slot",
         SECTION, "Each modifier slot of an instruction takes one value.",
         Example(body="add.u32.s32 %r1, %r2, %r3;"), Example(body="add.s32 %r1, %r2, %r3;"),
         ptxas="error: Multiple types specified"),
    Rule("PTX0803", "no-such-form", "error", "the modifiers make no form of the instruction",
         SECTION, "The modifiers written must together make one of the syntax forms the "
         "instruction's section lists.",
         Example(body="add.sat.u32 %r1, %r2, %r3;"), Example(body="add.sat.s32 %r1, %r2, %r3;"),
         ptxas="error: Modifier '.sat' cannot be combined with type '.u32'"),
    Rule("PTX0804", "instruction-operand-count", "error", "the wrong number of operands",
         SECTION, "Each form takes the operands its syntax lists.",
         Example(body="add.u32 %r1, %r2;"), Example(body="add.u32 %r1, %r2, %r3;"),
         ptxas="error: Arguments mismatch for instruction 'add'"),
    Rule("PTX0805", "operand-kind", "error", "an operand of a kind the instruction does not take there",
         SECTION, "An operand is a register, an immediate, an address, a vector, ... as the "
         "instruction's syntax says.",
         Example(body="add.u32 5, %r2, %r3;"), Example(body="add.u32 %r1, %r2, 5;"),
         ptxas="error: Arguments mismatch for instruction 'add'"),
    Rule("PTX0806", "operand-type", "error", "a register whose type does not fit the instruction's",
         "PTX ISA 9.4.1 (Operand type checking)",
         "A register operand must have the instruction's type, or a type of the same size that the "
         "relaxed type-checking rules allow (bit types match any type of their size; signed and "
         "unsigned integers of one size match).",
         Example(body="add.u32 %r1, %r2, %f1;"), Example(body="add.f32 %f1, %f2, %f3;"),
         ptxas="error: Arguments mismatch for instruction 'add'"),
    Rule("PTX0807", "special-register-field", "error",
         "a special register read with a component it does not have",
         "PTX ISA 10 (Special Registers)",
         "Only the vector special registers (%tid, %ntid, %ctaid, %nctaid and the cluster ones) "
         "have the components .x, .y, .z.",
         Example(body="mov.u32 %r1, %laneid.x;"), Example(body="mov.u32 %r1, %tid.x;"),
         ptxas="error: Unknown field"),
    Rule("PTX0604", "feature-removed", "error", "a feature removed on newer targets",
         "PTX ISA 9.7 (PTX ISA notes of each instruction)",
         "Some forms are not supported on newer targets from some PTX ISA version on (`vote` "
         "without `.sync` on sm_70 and later, from PTX ISA 6.4).",
         Example(body="vote.any.pred %p1, %p0;", version="6.4", target="sm_70"),
         Example(body="vote.sync.any.pred %p1, %p0, 0xffffffff;", version="6.4", target="sm_70"),
         ptxas="error: Instruction 'vote' without '.sync' is not supported on .target 'sm_70' and higher"),
    Rule("PTX0808", "special-register-write", "error", "a special register written",
         "PTX ISA 10 (Special Registers)", "Special registers are read-only.",
         Example(body="mov.u32 %tid.x, %r1;"), Example(body="mov.u32 %r1, %tid.x;"),
         ptxas="error: Arguments mismatch"),
    Rule("PTX0809", "vector-size", "error", "a vector size the instruction does not have",
         "PTX ISA 5.4.2 (Vectors)", "An instruction takes the vector sizes its syntax lists: most "
         "take `.v2` and `.v4`, and only up to 128 bits in all; `.v8` exists for a few loads and "
         "stores only.",
         Example(body="mov.v8.b16 {%h0, %h1, %h2, %h3, %h4, %h5, %h6, %h7}, {%h0, %h1, %h2, %h3, %h4, %h5, %h6, %h7};"),
         Example(body="mov.v4.b16 {%h0, %h1, %h2, %h3}, {%h4, %h5, %h6, %h7};"),
         ptxas="error: Illegal vector size: 8"),
    also=("PTX0601", "PTX0602"))
def check_instruction(c: Checker, ins) -> None:
    """Every PTX08xx rule on one instruction with a record (loads excepted). The rules that read
    only the opcode run once per opcode that passes them; plain operand lists are checked
    against a plan of the opcode (the fast path below), others once per operand signature (the
    kinds and declared types of the operands) that passes."""
    plans = c.fast_plans.get(ins.opcode)
    if plans is None and ins.opcode in c.clean_opcodes:
        # clean by an earlier run's verdict (opcache): its plans, without the opcode rules
        plans = c.fast_plans[ins.opcode] = _plan(ins.decoded) or ()
    if plans is not None:
        fit = _plain_operands_fit(c, ins, plans)
        if fit:
            return fit
    d = ins.decoded
    opcode = d.opcode
    if opcode not in c.clean_opcodes:
        if opcode in c.formless_opcodes:
            return
        before = len(c.diags)
        if not _opcode_rules(c, ins, d):
            if len(c.diags) == before:  # a record without forms, whose gates passed
                c.formless_opcodes.add(opcode)
            return
        if len(c.diags) == before:
            c.clean_opcodes.add(opcode)
            plans = c.fast_plans[opcode] = _plan(d) or ()
            fit = _plain_operands_fit(c, ins, plans)
            if fit:
                return fit
    sig = _signature(c, ins)
    if sig is not None and (opcode, sig) in c.clean_operands:
        return  # (before the forms are read: an earlier run's verdict needs no record)
    forms = matching_forms(d)
    if not forms:
        return
    ins.operands  # noqa: B018 - parsed now: a syntax error there is reported as such, not here
    if ins.operand_error is not None:
        return
    before = len(c.diags)
    _operands(c, ins, d, forms)
    if sig is not None and len(c.diags) == before:
        c.clean_operands.add((opcode, sig))


# ---------------------------------------------------------------- the fast path
# Most instructions are a list of plain operands whose rules a form decides: for such a form a
# plan says, per position, what may stand there (which register types, whether an immediate, a
# predicate, a negated predicate, a special register, an `[address]`, a label, a function). An
# operand list that fits the plan of one form without a gate passes, as `_operands` would let
# it; anything else takes the full path, which reports precisely.

_PLANS: dict = {}
_NO_PLAN = object()
_NOT_LOOKED_UP = object()
# what a plan can judge by itself; a role that may be more (a vector, a predicate pair, a
# parameter list) still gets a plan for the operands that are one of these
_PLANNED_KINDS = frozenset({"reg", "imm", "pred", "npred", "sreg", "addr", "label", "func"})
_PLAIN_NAME = patterns.compile(r"[A-Za-z_$][\w$]*")
_PRED = frozenset({".pred"})
_FLOAT_BITS = ("0f", "0F", "0d", "0D")
# a special register's field as the operand grammar reads it (`%tid.x`)
_FIELD = patterns.compile(r"(%[A-Za-z_$][\w$]*)\.([a-z])")


def _plan(d):
    """The operand plans of an opcode (None: it has none), from its matching forms."""
    got = _PLANS.get(d.opcode)
    if got is None:
        got = _make_plan(d, matching_forms(d))
        if len(_PLANS) >= 8192:
            _PLANS.clear()
        _PLANS[d.opcode] = got
    return None if got is _NO_PLAN else got


def plan_entry(opcode: str):
    """The plans worked out for an opcode as plain data: a tuple, 0 where it has none, None where
    it was not planned in this process (`opcache`)."""
    got = _PLANS.get(opcode)
    return 0 if got is _NO_PLAN else got


def remember_plan(opcode: str, entry) -> None:
    """Take the plans of an opcode from `plan_entry` of an earlier run (`opcache`)."""
    _PLANS[opcode] = _NO_PLAN if entry == 0 else entry


def _make_plan(d, forms):
    """One plan per form without a gate (of the same operands: one plan); _NO_PLAN if none."""
    plans = []
    for form in forms:
        if form.gate is not None:
            continue
        plan = _form_plan(d, form)
        if plan is not None and plan not in plans:
            plans.append(plan)
    return tuple(plans) if plans else _NO_PLAN


def _form_plan(d, form):
    roles = d.spec.operand_roles(form)
    if any(optional for _, _, optional in roles):
        return None
    plan = []
    for _, role, _ in roles:
        if role.count is not None or role.values or role.multiple or not role.kinds & _PLANNED_KINDS:
            return None
        if "addr" in role.kinds and role.type is not None:
            return None                     # an address of a typed register (tcgen05's [taddr])
        types = _role_types(role, d)
        regs = _registers_for(types, role.wide) if "reg" in role.kinds else frozenset()
        int_ok, float_ok = _literals(types)
        if "npred" in role.kinds and types is None:
            int_ok = True         # a constant predicate
        # a predicate register only where the role takes one of type .pred (`and.pred`, not `and.b32`)
        pred_ok = bool(role.kinds & {"pred", "npred"}) and (types is None or ".pred" in types)
        # the register types allowed, `.pred` among them only where a predicate is
        regs = regs | _PRED if pred_ok else regs - _PRED
        plan.append((regs, (bool(role.kinds & {"imm", "npred"}) and (int_ok or float_ok), "npred" in role.kinds,
                            "sreg" in role.kinds and not role.write, float_ok, int_ok, "addr" in role.kinds,
                            "label" in role.kinds, "func" in role.kinds)))
    return tuple(plan)


_REGISTERS_FOR: dict = {}


def _registers_for(types, wide: bool) -> frozenset:
    """The register types an operand of one of `types` (None: any) may have (the relaxed
    type-checking rules), per distinct type set: the records repeat a few sets everywhere."""
    key = (types if types is None else tuple(types), wide)
    got = _REGISTERS_FOR.get(key)
    if got is None:
        fits = compatible_wide if wide else compatible
        got = _REGISTERS_FOR[key] = frozenset(t for t in TYPES if types is None or any(fits(x, t) for x in types))
    return got


def _plain_operands_fit(c: Checker, ins, plans):
    """The operand list against each plan of its length: what `_fits` says, False if none fits."""
    text = ins.operand_text
    pieces = text.split(",") if text else []  # `ret;`: no operands, not one empty one
    for plan in plans:
        if len(pieces) == len(plan):
            fit = _fits(c, ins, pieces, plan)
            if fit:
                return fit
    return False


def _fits(c: Checker, ins, pieces, plan):
    """Whether the operand pieces fit the plan: False, True, or NAMES_CHECKED where besides every
    piece is a register declared before the first instruction of the scope, or a number as the
    fast operand grammar writes it (PTX0301 has nothing left to check of them)."""
    scope = ins.scope or ins.module.scope
    memo = c.lookups_of(scope)
    first = c.first.get(scope, -1)
    named = True
    for piece, (regs, flags) in zip(pieces, plan):
        p = piece.strip()
        lead = p[:1]
        if lead == "%":
            if "." not in p:
                # a declared register, the commonest operand by far: one memo look-up and its type
                var = memo.get(p, _NOT_LOOKED_UP)
                if var is _NOT_LOOKED_UP:
                    var = c.lookup_in(scope, p)
                if var is not None:
                    if var.space != ".reg" or var.vector or var.type not in regs:
                        return False
                    if var.start >= first:
                        named = False  # declared further down: PTX0301 reads it
                    continue
        elif lead == "[":
            # the next commonest, an address of the fast grammar: what `_piece_fits` and
            # `_names_read` say of it, with one match
            m = FAST_ADDRESS.fullmatch(p)
            if m is not None:
                if not flags[5]:  # no address here
                    return False
                if named:
                    var = memo.get(m.group(1), _NOT_LOOKED_UP)
                    if var is _NOT_LOOKED_UP:
                        var = c.lookup_in(scope, m.group(1))
                    if var is None or var.start >= first:
                        named = False
                continue
        elif (lead.isdigit() or lead == "-") and FAST_NUMBER.fullmatch(p) is not None:
            # a number of the fast grammar (never with a `.`: a float only as `0f`/`0d` bits)
            if not flags[0] or not (flags[3] if p[:2] in _FLOAT_BITS else flags[4]):
                return False
            continue
        if not _piece_fits(c, ins, scope, memo, p, regs, flags):
            return False
        if named and not _names_read(c, ins, scope, memo, first, p):
            named = False
    return NAMES_CHECKED if named else True


def _names_read(c: Checker, ins, scope, memo, first: int, p: str) -> bool:
    """Whether PTX0301 has nothing left to check in an operand `_piece_fits` accepted, other than
    the fast-grammar addresses and numbers `_fits` reads itself: a special register
    (`_piece_fits` takes a `%` name it finds undeclared only as one: predefined), a label of the
    function (labels may be used before they are defined), or a variable's address."""
    if p[0] == "%":
        return "." not in p or _FIELD.fullmatch(p) is not None
    if _PLAIN_NAME.fullmatch(p) is None:
        return False
    var = memo.get(p)
    if var is None:
        return p in c.labels_of(ins.function)
    return isinstance(var, Variable) and var.start < first  # a variable's address


def _piece_fits(c: Checker, ins, scope, memo, p: str, regs, flags) -> bool:  # noqa: C901 - one branch per operand shape
    """One operand other than a declared register against its plan position."""
    imm, npred, sreg, float_ok, int_ok, addr, label, func = flags
    if not p:
        return False
    first = p[0]
    negated = first == "!"
    if negated:
        if not npred:
            return False
        p = p[1:].strip()
        first = p[:1]
    if first == "%":
        field = None
        if "." in p:
            m = _FIELD.fullmatch(p)
            if m is None:
                return False                 # a vector element, or more than a field
            p, field = m.groups()
        var = memo.get(p, _NOT_LOOKED_UP)
        if var is _NOT_LOOKED_UP:
            var = c.lookup_in(scope, p)
        if var is None:
            # a special register (read-only: `sreg` is only set where the operand is read)
            if not sreg or negated:
                return False
            sr = special_register(p)
            return sr is not None and (field is None or bool(sr.components and field in sr.components + "rgba"))
        if field is not None or var.space != ".reg" or var.vector:
            return False
        return var.type in regs
    if first.isdigit() or first == "-":
        is_float = "." in p or p[:2] in ("0f", "0F", "0d", "0D")
        return bool(imm) and (float_ok or not is_float) and (int_ok or is_float)
    if negated:
        return False
    if first == "[":
        return bool(addr) and FAST_ADDRESS.fullmatch(p) is not None
    if (label or func or imm) and _PLAIN_NAME.fullmatch(p) is not None and p != "WARP_SZ":
        var = memo.get(p, _NOT_LOOKED_UP)
        if var is _NOT_LOOKED_UP:
            var = c.lookup_in(scope, p)
        if var is not None:
            # a variable's address is a constant where the operand may be an immediate (as
            # `_kind_of` reads it: `mov.u64 %rd1, smem;`)
            return bool(imm) and isinstance(var, Variable) and var.space != ".reg"
        if not (label or func) or special_register(p) is not None:
            return False
        if p in c.labels_of(ins.function):
            return bool(label)
        return bool(func) and p in c.module.functions
    return False


def _opcode_rules(c: Checker, ins, d) -> bool:
    """Modifiers, form and gates of the opcode; False when no form can match (operands are
    then not checked)."""
    spec = d.spec
    base = ins.opcode_start
    for text, s, e in d.others:
        c.emit("PTX0801", base + s, base + e, f"`{text}` is not a modifier of `{spec.name}`",
               label="unknown modifier", help="remove it, or correct its spelling")
    for group, text, s, e in d.repeated:
        first = d.slots[group]
        c.emit("PTX0802", base + s, base + e, f"`{first[0]}` and `{text}`: one {group} only",
               label="second value", secondary=[(base + first[1], base + first[2], "first here")],
               help="keep one of them")
    if d.others or d.repeated:
        return False
    if spec.gate is not None:
        _gate(c, ins, spec.gate, base, base + len(d.name), f"`{spec.name}`")
    if not spec.forms:
        return False
    forms = matching_forms(d)
    if not forms and _vector_size(c, ins, d):
        return False
    if not forms:
        m = nearest(d)
        parts = ([f"needs `.{g}`" for g in m.missing] + [f"`{v}` is not in this form" for _, v in m.extra]
                 + [f"`{v}` is not allowed for .{g} here" for g, v in m.wrong])
        c.emit("PTX0803", base, base + len(ins.opcode),
               f"`{ins.opcode}` is no form of `{spec.name}`: " + "; ".join(parts),
               label="no such form", help=f"the nearest form is `{spelled(spec, m.form)}`")
        return False
    for value_text, s, e, _ in d.modifiers:
        g = spec.gates.get(value_text)
        if g is not None:
            _gate(c, ins, g, base + s, base + e, f"`{value_text}` on `{spec.name}`")
    return True


def _vector_size(c: Checker, ins, d) -> bool:
    """PTX0809 when the vector size written is in no form of the record."""
    vec = d.slots.get("vec")
    if vec is None:
        return False
    spec = d.spec
    sizes = set()
    for f in spec.forms:
        for slot in spec.slots(f):
            if slot.group == "vec":
                sizes |= slot.values
    if vec[0] in sizes:
        return False
    base = ins.opcode_start
    c.emit("PTX0809", base + vec[1], base + vec[2], f"`{spec.name}` has no `{vec[0]}` vectors"
           + (f" (only {', '.join(f'`{v}`' for v in sorted(sizes))})" if sizes else ""),
           label="illegal vector size")
    return True


def _operands(c: Checker, ins, d, forms) -> None:
    """The operands against the first form they fit; that form's gate."""
    spec = d.spec
    base = ins.opcode_start
    errors = None
    fitting = None
    for form in forms:
        found = _operand_problems(c, ins, spec, form)
        if not found:
            # of the forms the operands fit, one whose gate the module meets (a feature can open
            # at two corners: `cvt...e4m3x2` on sm_90 from PTX ISA 7.8, on sm_89 from 8.1)
            if form.gate is None or not _gate_fails(c, form.gate):
                return
            fitting = fitting or form
            continue
        errors = errors or found
    if fitting is not None:
        _gate(c, ins, fitting.gate, base, base + len(ins.opcode), f"`{spelled(spec, fitting)}`")
        return
    for code, start, end, message, label in errors:
        c.emit(code, start, end, message, label=label)


# the tokens of an operand list, for its signature: names (with a component), numbers, and
# everything else one character at a time
_TOKEN = patterns.compile(r"(%?[A-Za-z_$][\w$]*(?:\.[A-Za-z]+)?)|(0[fFdD][0-9a-fA-F]+|[-+]?(?:0[xXbB][0-9a-fA-F]+|"
                          r"\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)[uU]?)|(\S)")


def _signature(c: Checker, ins) -> tuple | None:
    """What the operand rules read of an operand list: per comma-separated piece, the
    declaration class of each name in it (register type, variable space, special register and
    component, label or function), `#` for a number, punctuation as written; memoised per scope
    and piece. None when a piece is out of the tokenizer's reach (then the operands are checked
    in full)."""
    scope = ins.scope or ins.module.scope
    memo = c.name_classes.get(scope)
    if memo is None:
        memo = c.name_classes[scope] = {}
    out = []
    for piece in ins.operand_text.split(","):
        cls = memo.get(piece)
        if cls is None:
            cls = memo[piece] = _piece_class(c, ins, piece)
        if cls is False:
            return None
        out.append(cls)
    return tuple(out)


def _piece_class(c: Checker, ins, piece: str):
    out = []
    for name, number, other in _TOKEN.findall(piece):
        if name:
            out.append(_name_class(c, ins, name))
        elif number:
            out.append("#f" if number[:2] in ("0f", "0F", "0d", "0D") or "." in number or (
                "e" in number.lower() and not number.lower().startswith("0x")) else "#")
        elif other in "[]{}()!|+-_;":
            out.append(other)
        else:
            return False
    return tuple(out)


def _name_class(c: Checker, ins, name: str):
    var = c.lookup(ins, name.split(".")[0] if "." in name else name)
    if isinstance(var, Variable):
        return (var.space, var.type, var.vector, "." in name)
    if special_register(name.split(".")[0]) is not None:
        return name
    if name in c.labels_of(ins.function):
        return "?label"
    return "?func" if name in c.module.functions else "?name"


def _gate_fails(c: Checker, gate: Gate) -> bool:
    """Whether `_gate` would report anything for this module."""
    if c.version is not None and c.version < gate.min_ptx:
        return True
    t = c.target
    if t is None:
        return False
    if gate.only_targets and t.name not in gate.only_targets:
        return True
    if gate.min_sm and t.number < gate.min_sm:
        return True
    return bool(gate.below_sm and t.number >= gate.below_sm and (
        gate.below_sm_from_ptx is None or (c.version is not None and c.version >= gate.below_sm_from_ptx)))


def _gate(c: Checker, ins, gate: Gate, start: int, end: int, what: str) -> None:
    if c.version is not None and c.version < gate.min_ptx:
        need = f"PTX ISA {fmt_version(gate.min_ptx)}"
        c.emit("PTX0601", start, end, f"{what} needs {need}; the module is {fmt_version(c.version)}",
               label=f"{need} feature", notes=[gate.source] if gate.source else [],
               help=f"raise `.version` to {fmt_version(gate.min_ptx)} or later")
    if c.target is None:
        return
    t = c.target
    if gate.only_targets and t.name not in gate.only_targets:
        c.emit("PTX0602", start, end, f"{what} needs {' or '.join(gate.only_targets)}; the module targets "
               f"{t.name}", label="target-specific feature", notes=[gate.source] if gate.source else [])
    elif gate.min_sm and t.number < gate.min_sm:
        c.emit("PTX0602", start, end, f"{what} needs sm_{gate.min_sm}; the module targets {t.name}",
               label=f"sm_{gate.min_sm} feature", notes=[gate.source] if gate.source else [],
               help=f"raise `.target` to sm_{gate.min_sm} or later")
    if gate.below_sm and t.number >= gate.below_sm and (
            gate.below_sm_from_ptx is None or (c.version is not None and c.version >= gate.below_sm_from_ptx)):
        c.emit("PTX0604", start, end, f"{what} is not supported on sm_{gate.below_sm} and later"
               + (f" from PTX ISA {fmt_version(gate.below_sm_from_ptx)} on" if gate.below_sm_from_ptx else ""),
               label="removed", notes=[gate.source] if gate.source else [],
               help=gate.note or "")


def _whole_vector_fits(role: OperandSpec, d, decl: Variable) -> bool:
    """A whole vector register as a vector operand: its element count is the role's."""
    count = role.count
    want = int(count) if count.isdigit() else (d.get(count) or "")[2:]
    return not str(want).isdigit() or int(want) == int(decl.vector[2:])


def _kind_of(c: Checker, ins, op) -> tuple[str, object]:
    """(kind, declaration) of one operand as written."""
    if isinstance(op, Name):
        if op.name == "_":
            return "sink", None
        var = c.lookup(ins, op.name)
        if isinstance(var, Variable):
            if var.space == ".reg":
                return ("pred" if var.type == ".pred" else "reg"), var
            return "imm", var          # a variable's address, as a constant
        if op.name == "WARP_SZ":       # the warp size: a constant, not a register (PTX ISA 10)
            return "imm", None
        if special_register(op.name) is not None:
            return "sreg", special_register(op.name)
        if c.labels_of(ins.function) and op.name in c.labels_of(ins.function):
            return "label", None
        if op.name in c.module.functions:
            return "func", None
        return "reg", None             # undeclared: PTX0301 reports it
    if isinstance(op, (Int, Float)):
        return "imm", None
    if isinstance(op, Expr):
        return ("npred", None) if op.op == "!" else ("imm", None)
    if isinstance(op, Sink):
        return "sink", None
    if isinstance(op, Vector):
        return "vec", None
    if isinstance(op, Address):
        return "addr", None
    if isinstance(op, ParenList):
        return "params", None
    if isinstance(op, PredPair):
        return "pair", None
    return "?", None


def _accepts(role: OperandSpec, kind: str) -> bool:
    kinds = role.kinds
    if kind in kinds:
        return True
    # a predicate operand may be a constant (ptxas 13.0 takes `selp.b32 %r1, %r2, %r3, 1`)
    return (kind == "pred" and "npred" in kinds) or (kind == "imm" and "npred" in kinds)


def _role_types(role: OperandSpec, d) -> list[str] | None:
    """The types an operand may have: a slot's value, literal types, or a width class."""
    t = role.type
    if t is None:
        return None
    out = []
    for part in t.split("|"):
        if part.startswith("."):
            out.append(part)
        elif part[0] == "b" and part[1:].isdigit():
            out.append("." + part)       # a width class: `.b32` matches every 32-bit type
        elif part.startswith("raw") and part[3:].isdigit():
            out.append("#b" + part[3:])  # a bit-type register of that size
        elif part.startswith("int") and part[3:].isdigit():
            out.append("#i" + part[3:])  # an integer or bit-type register of that size
        else:
            v = d.get(part)
            if v is None:
                return None
            out.append(v)
    return out


def _shown(types) -> str:
    """The types an operand may have, in words (`#i32`: the 32-bit integer and bit types)."""
    words = []
    for t in types:
        if t[:2] == "#i":
            words.append(f".b{t[2:]}, .u{t[2:]} or .s{t[2:]} register")
        elif t[0] == "#":
            words.append(f".{t[1:]} register")
        else:
            words.append(t)
    return " or ".join(words)


def _literals(types) -> tuple[bool, bool]:  # noqa: C901 - one branch per kind
    """(integer literals allowed, floating-point literals allowed) for an operand of these types:
    ptxas 13.0 takes integers for integer types, `0f...`/decimals for floating-point types, both
    for bit types, and no immediate for packed types (`add.s16x2 %r1, 1, %r2`)."""
    if types is None:
        return True, True
    int_ok = float_ok = False
    for t in types:
        if t[:2] == "#i":                       # integers only (ptxas: "Arguments mismatch")
            int_ok = True
            continue
        info = TYPES.get("." + t[1:] if t[0] == "#" else t)
        if info is None:
            return True, True
        if info.kind == "b":
            int_ok = float_ok = True
        elif info.kind in ("u", "s", "pred"):   # `and.pred %p, 1, %q` (ptxas takes 0 and 1)
            int_ok = True
        elif info.kind == "f":
            float_ok = True
    return int_ok, float_ok


def compatible(inst_type: str, reg_type: str) -> bool:
    """Relaxed type checking (PTX ISA 9.4.1): same size, and the same kind, or a bit type on
    either side, or integers of either signedness. ptxas 13.0 reads an `.f16x2` register as 32
    untyped bits where an integer or bit type is expected (`add.s32 %r1, %h2x, %r3` passes)."""
    if inst_type[:2] == "#i":        # a width class: `.bN`, `.uN`, `.sN` registers (ptxas 13.0)
        return reg_type in (".b" + inst_type[2:], ".u" + inst_type[2:], ".s" + inst_type[2:])
    if inst_type[0] == "#":          # a width class: `.bN` registers only (ptxas 13.0)
        return reg_type == "." + inst_type[1:]
    reg_type = _as_bits(inst_type, reg_type)
    a, b = kind_bits(inst_type), kind_bits(reg_type)
    if a is None or b is None:
        return True
    (ka, na), (kb, nb) = a, b
    if ka == "pred" or kb == "pred":
        return ka == kb
    if na != nb:
        return False
    return ka == kb or ka == "b" or kb == "b" or (ka in "us" and kb in "us")


def _as_bits(inst_type: str, reg_type: str) -> str:
    if reg_type == ".f16x2" and (inst_type in (".u16x2", ".s16x2") or (
            inst_type in TYPES and TYPES[inst_type].kind in ("b", "u", "s"))):
        return ".b32"
    return reg_type


def compatible_wide(inst_type: str, reg_type: str) -> bool:
    """`compatible`, or a wider register (PTX ISA 9.4.1: the relaxed rule of ld, st and cvt):
    ptxas 13.0 takes a wider bit-type register for any type (`cvt.rmi.u8.f32 %r1, %rd1`), a
    wider integer register for an integer type, and refuses a narrower one."""
    if compatible(inst_type, reg_type):
        return True
    if inst_type[:2] == "#i":
        return False
    if inst_type[0] == "#":
        return reg_type[:2] == ".b" and reg_type in TYPES and TYPES[reg_type].bits > int(inst_type[2:])
    a, b = kind_bits(inst_type), kind_bits(_as_bits(inst_type, reg_type))
    if a is None or b is None:
        return False
    (ka, na), (kb, nb) = a, b
    if nb <= na:
        return False
    # a bit type takes any wider register (`st.b16 [a], %f1`), others a wider bit or integer one
    return kb == "b" or (kb in ("u", "s") and ka in ("b", "u", "s")) or (ka == "b" and kb != "pred")


def _packed_bits(c: Checker, ins, vec) -> int | None:
    total = 0
    for item in vec.items:
        var = c.lookup(ins, item.name) if isinstance(item, Name) else None
        if not isinstance(var, Variable) or var.type not in TYPES:
            return None
        total += TYPES[var.type].bits
    return total


def _address_register(c: Checker, ins, op, name: str, role: OperandSpec, d):
    """An address operand whose role names a register type (`addr:.u32`, a tensor memory
    address): `[reg]` or `[reg+imm]` of a register of that type; ptxas 13.0 refuses a variable
    or a register of another size there, and crashes on an immediate address."""
    base = op.base
    var = c.lookup(ins, base.name) if base is not None else None
    types = _role_types(role, d) or []
    if not isinstance(var, Variable) or var.space != ".reg" or var.vector:
        return ("PTX0805", op.start, op.end, f"operand `{name}` of `{ins.opcode}` must be an address "
                f"in a register ({_shown(types)}): `[reg]` or `[reg+imm]`", "register address expected")
    if var.type not in TYPES or not any(compatible(t, var.type) for t in types):
        return ("PTX0806", base.start, base.end, f"`{base.name}` ({var.type}) cannot hold the address of "
                f"operand `{name}` of `{ins.opcode}` ({_shown(types)})", "register type")
    return None


def op_text(op) -> str:
    return "{" + ", ".join(getattr(x, "text", "?") for x in op.items) + "}"


def _operand_problems(c: Checker, ins, spec, form) -> list:
    roles = spec.operand_roles(form)
    ops = ins.operands
    required = sum(1 for _, _, optional in roles if not optional)
    if not required <= len(ops) <= len(roles):
        want = f"{required}" if required == len(roles) else f"{required} to {len(roles)}"
        s, e = ins.operand_start, ins.end - 1
        return [("PTX0804", s, max(e, s + 1),
                 f"`{ins.opcode}` takes {want} operand(s) ({form.operands}), found {len(ops)}",
                 "operands")]
    d = ins.decoded
    out = []
    for op, (name, role, _) in zip(ops, roles):
        if role.kinds & _HANDLE_ROLES:
            out += _handle_address(c, ins, op, name, role, d)
            continue
        if op.__class__ is PredPair and op.first.__class__ is Vector and "pair" in role.kinds:
            # a texture result with its predicate, `{r, g, b, a}|p`: the vector is checked below
            if _kind_of(c, ins, op.second)[0] != "pred":
                out.append(("PTX0805", op.second.start, op.second.end, f"`{op.second.text}` after `|` "
                            "must be a predicate register", "wrong kind of operand"))
                continue
            op = op.first
        if role.write and isinstance(op, Name) and special_register(op.name) is not None \
                and c.lookup(ins, op.name) is None:
            out.append(("PTX0808", op.start, op.end, f"`{op.text}` is a special register: read-only",
                        "written"))
            continue
        kind, decl = _kind_of(c, ins, op)
        if kind == "reg" and "vec" in role.kinds and isinstance(decl, Variable) and decl.vector \
                and op.text == decl.name:
            kind = "vec"    # a `.v2`/`.v4` register used whole, as ptxas takes it for a vector
            if role.count is not None and len(ops) and not _whole_vector_fits(role, d, decl):
                out.append(("PTX0805", op.start, op.end, f"`{op.text}` ({decl.vector} {decl.type}) does "
                            f"not fit operand `{name}` of `{ins.opcode}`", "vector size"))
            continue
        if not _accepts(role, kind):
            want = " or ".join(_WORDS.get(k, k) for k in sorted(role.kinds))
            out.append(("PTX0805", op.start, op.end,
                        f"operand `{name}` of `{ins.opcode}` must be {want}, not {_WORDS.get(kind, kind)}",
                        "wrong kind of operand"))
            continue
        if kind == "addr" and role.type is not None:
            problem = _address_register(c, ins, op, name, role, d)
            if problem is not None:
                out.append(problem)
            continue
        if kind == "imm" and role.values and isinstance(op, Int) and op.value not in role.values:
            allowed = " or ".join(str(v) for v in role.values)
            out.append(("PTX0805", op.start, op.end,
                        f"operand `{name}` of `{ins.opcode}` must be {allowed}, not {op.value}",
                        "value not allowed"))
            continue
        if kind == "imm" and role.multiple and isinstance(op, Int) and op.value % role.multiple:
            out.append(("PTX0805", op.start, op.end, f"operand `{name}` of `{ins.opcode}` must be a "
                        f"multiple of {role.multiple}, not {op.value}", "value not allowed"))
            continue
        if kind == "sreg":
            sr = decl
            comp = getattr(op, "component", None)
            if comp and not sr.components:
                out.append(("PTX0807", op.start, op.end, f"`{sr.name}` has no fields: `.{comp}` is "
                            "not one", "unknown field"))
            elif comp and comp not in sr.components + "rgba":
                out.append(("PTX0807", op.start, op.end, f"`.{comp}` is not a component of `{sr.name}` "
                            "(.x .y .z .w, or .r .g .b .a)", "unknown vector selector"))
            continue
        sizes = spec.vector_sizes(role.count, d) if role.count is not None and (
            role.count.isdigit() or role.count in spec.sizes) else None
        if kind == "reg" and role.count is not None and isinstance(decl, Variable) and not decl.vector \
                and not (sizes and 1 in sizes and role.count in spec.sizes):
            out.append(("PTX0805", op.start, op.end, f"operand `{name}` of `{ins.opcode}` must be a "
                        "vector: a brace list or a `.v2`/`.v4` register", "vector expected"))
            continue
        if kind == "vec" and sizes is not None and len(op.items) not in sizes:
            out.append(("PTX0805", op.start, op.end, f"operand `{name}` of `{ins.opcode}` takes "
                        f"{_counted(sizes)} register(s), not {len(op.items)}", "vector size"))
            continue
        if kind == "vec" and role.type is None and role.count is None:
            # pack/unpack: the elements' sizes add up to the instruction's type
            size = _packed_bits(c, ins, op)
            t = d.get("type")
            if size is not None and t in TYPES and size != TYPES[t].bits:
                out.append(("PTX0805", op.start, op.end, f"the elements of `{op_text(op)}` hold {size} "
                            f"bits; `{t}` has {TYPES[t].bits}", "vector size"))
            continue
        types = _role_types(role, d)
        if types is None:
            continue
        if kind == "imm" and isinstance(op, (Int, Float)):
            int_ok, float_ok = _literals(types)
            is_float = isinstance(op, Float) or op.text[:2] in ("0f", "0F", "0d", "0D")
            if not (float_ok if is_float else int_ok):
                what = "a floating-point" if is_float else "an integer"
                out.append(("PTX0806", op.start, op.end, f"{what} immediate cannot be operand `{name}` of "
                            f"`{ins.opcode}` ({_shown(types)})", "immediate type"))
            continue
        if kind in ("reg", "pred") and isinstance(decl, Variable):
            fits = compatible_wide if role.wide else compatible
            reg_type = decl.type
            if decl.vector and decl.type in TYPES and role.count is None and op.text == decl.name:
                # a vector register used whole is one value of all its bits (`mov.b32 %r, v` with
                # `.reg .v2 .u16 v`, which ptxas accepts)
                reg_type = f".b{TYPES[decl.type].bits * int(decl.vector[2:])}"
            if reg_type not in TYPES or not any(fits(t, reg_type) for t in types):
                out.append(("PTX0806", op.start, op.end,
                            f"`{op.text}` ({decl.type}) cannot be operand `{name}` of `{ins.opcode}` "
                            f"({_shown(types)})", "register type"))
        elif kind == "vec" and role.count is not None:   # a vector of elements of the type
            fits = compatible_wide if role.wide else compatible
            for item in op.items:
                var = c.lookup(ins, item.name) if isinstance(item, Name) else None
                if isinstance(var, Variable) and not any(fits(t, var.type) for t in types):
                    out.append(("PTX0806", item.start, item.end,
                                f"`{item.name}` ({var.type}) cannot be an element of operand `{name}` "
                                f"of `{ins.opcode}` ({_shown(types)})", "register type"))
    return out


_HANDLE_ROLES = frozenset(_HANDLES)


def _counted(sizes) -> str:
    return " or ".join(map(str, sizes)) if sizes else "no"


def _handle_address(c: Checker, ins, op, name: str, role: OperandSpec, d) -> list:
    """A texture or surface address (role kinds `tex`, `surf`): `[handle]` where the role has no
    coordinates (txq, suq), else `[handle{, sampler}, coordinates]`. Handles are `.texref`
    (`.samplerref`, `.surfref`) variables or .u64 registers; a texture read names its sampler
    too under `texmode_independent`; the coordinates are a vector of the size the geometry
    allows (`spec.sizes`), of the role's type (a bare register where one element will do)."""
    kind = "tex" if "tex" in role.kinds else "surf"
    if op.__class__ is not Address or op.base is None or op.offset_expr is not None:
        return [("PTX0805", op.start, op.end, f"operand `{name}` of `{ins.opcode}` must be {_WORDS[kind]}",
                 "wrong kind of operand")]
    items = list(op.items)
    coords = items.pop() if role.count is not None and items else None
    handles = [(op.base, _HANDLES[kind])] + [(x, ".samplerref") for x in items]
    most = 2 if kind == "tex" and role.count is not None else 1
    if role.count is not None and coords is None:
        return [("PTX0805", op.start, op.end, f"`{ins.opcode}` reads at coordinates: "
                 f"`[{op.base.text}, {{...}}]`", "coordinates missing")]
    if len(handles) > most:
        x = handles[most][0]
        return [("PTX0805", x.start, op.end - 1, f"`{ins.opcode}` takes "
                 + ("a texture, an optional sampler and coordinates" if most == 2 else
                    "a handle and coordinates" if role.count is not None else "one handle")
                 + " in its address", "too many parts")]
    if kind == "tex" and role.count is not None and len(handles) == 1 and "texmode_independent" in c.module.targets:
        return [("PTX0805", op.start, op.end, f"under `texmode_independent` `{ins.opcode}` names its "
                 "sampler: `[tex, sampler, {...}]`", "sampler missing")]
    out = []
    for x, ref in handles:
        if role.count is None and role.type:     # txq of a sampler: the handle's types
            ref = tuple(role.type.split("|"))
            if len(ref) > 1 and "texmode_independent" not in c.module.targets:
                ref = ref[:1]                    # unified mode: a texture's own sampler
        refs = (ref,) if isinstance(ref, str) else ref
        wanted = "a " + " or ".join(f"`{r}`" for r in refs) + " variable or a .u64 register"
        var = c.lookup(ins, x.name) if x.__class__ is Name else None
        if not isinstance(var, Variable):
            if x.__class__ is not Name or var is not None or special_register(x.name) is not None:
                out.append(("PTX0805", x.start, x.end, f"`{getattr(x, 'text', '?')}` in the address of "
                            f"`{ins.opcode}` must be {wanted}", "handle expected"))
        elif var.space == ".reg":
            if var.vector or not compatible(".u64", var.type):
                out.append(("PTX0806", x.start, x.end, f"`{x.text}` ({var.type}) cannot be the "
                            f"handle of `{ins.opcode}`: {wanted}", "register type"))
        elif var.type not in refs and not (var.space == ".tex" and ".texref" in refs):
            # (a variable of the deprecated `.tex` state space is a `.texref`: PTX ISA 5.1.7)
            out.append(("PTX0805", x.start, x.end, f"`{x.text}` ({var.type}) in the address of "
                        f"`{ins.opcode}` must be {wanted}", "handle expected"))
    if coords is not None:
        out += _coordinates(c, ins, coords, role, d)
    return out


def _coordinates(c: Checker, ins, coords, role: OperandSpec, d) -> list:
    sizes = d.spec.vector_sizes(role.count, d) or ()
    table = d.spec.sizes.get(role.count, ())
    geom = d.get(table[0]) if table else None
    # the first coordinate may have a type of its own (an array index)
    first = table[2].get(geom) if len(table) > 2 else None
    if coords.__class__ is Vector:
        items = coords.items
        if len(items) not in sizes:
            return [("PTX0805", coords.start, coords.end, f"the coordinates of `{ins.opcode}` take "
                     f"{_counted(sizes)} element(s) for `{geom}`, not {len(items)}", "vector size")]
    elif 1 in sizes:
        items = [coords]
    else:
        return [("PTX0805", coords.start, coords.end, f"the coordinates of `{ins.opcode}` are a vector "
                 f"`{{...}}` of {_counted(sizes)} element(s) for `{geom}`", "vector expected")]
    out = []
    for i, item in enumerate(items):
        types = _role_types(OperandSpec(role.kinds, first) if i == 0 and first else role, d)
        k, var = _kind_of(c, ins, item)
        if k == "imm" and item.__class__ in (Int, Float) and types:
            int_ok, float_ok = _literals(types)
            is_float = item.__class__ is Float or item.text[:2] in ("0f", "0F", "0d", "0D")
            if not (float_ok if is_float else int_ok):
                out.append(("PTX0806", item.start, item.end, f"{'a floating-point' if is_float else 'an integer'} "
                            f"immediate cannot be a coordinate of `{ins.opcode}` ({_shown(types)})",
                            "immediate type"))
        elif k == "reg" and isinstance(var, Variable) and types and not any(compatible(t, var.type) for t in types):
            what = "the array index" if i == 0 and first else "a coordinate"
            out.append(("PTX0806", item.start, item.end, f"`{item.text}` ({var.type}) cannot be {what} "
                        f"of `{ins.opcode}` ({_shown(types)})", "register type"))
        elif k not in ("reg", "imm"):
            out.append(("PTX0805", item.start, item.end, f"a coordinate of `{ins.opcode}` must be a register "
                        f"or an immediate, not {_WORDS.get(k, k)}", "wrong kind of operand"))
    return out


@rule(Trigger.INSTRUCTION,
    Rule("PTX0821", "sparsity-selector", "error", "a sparsity selector the sparse wgmma form does not take",
         "PTX ISA 9.7.15.6 (wgmma.mma_async.sp)",
         "The sparsity selector, an immediate, says which threads of each group of four hold the "
         "metadata: 0 or 1 for .f16, .bf16 and .tf32 A, only 0 for the 8-bit types (.e4m3, .e5m2, "
         ".s8, .u8), whose metadata fills all four.",
         Example(body="wgmma.mma_async.sp.sync.aligned.m64n8k64.f32.e4m3.e4m3 {%f1, %f2, %f3, %f4}, "
                      "%rd1, %rd2, %r1, 1, 1, 1, 1;", target="sm_90a"),
         Example(body="wgmma.mma_async.sp.sync.aligned.m64n8k64.f32.e4m3.e4m3 {%f1, %f2, %f3, %f4}, "
                      "%rd1, %rd2, %r1, 0, 1, 1, 1;", target="sm_90a"),
         ptxas="error: Argument 4 of instruction 'Sparse wgmma.mma_async with FP8 types': unexpected "
               "value '1', expected to be 0"),
    on=("wgmma.mma_async.sp",))
def check_sparsity_selector(c: Checker, ins) -> None:
    """The selector operand (`sel` of the record's forms) of wgmma.mma_async.sp against the
    selectors of its A type (spec.mma.WGMMA_SPARSE)."""
    d = ins.decoded
    atype = d.get("atype")
    sparse = WGMMA_SPARSE.get(atype[1:]) if atype else None
    forms = matching_forms(d)
    if sparse is None or not forms or ins.operand_error is not None:
        return
    names = [name for name, _, _ in d.spec.operand_roles(forms[0])]
    ops = ins.operands
    at = names.index("sel")
    if len(ops) != len(names) or not isinstance(ops[at], Int) or int(ops[at].value) in sparse.selectors:
        return
    allowed = " or ".join(map(str, sparse.selectors))
    c.emit("PTX0821", ops[at].start, ops[at].end,
           f"sparsity selector {int(ops[at].value)}: `{atype}` A takes {allowed}",
           label=f"{allowed} here")


@rule(Trigger.FAMILY, also=("PTX0801",))
def check_family(c: Checker, ins, d) -> None:
    """PTX0801 on a family mnemonic (`wmma`, `cp`, `mbarrier`, ...) whose sub-name is none of the
    ISA's: `wmma.lod.a...` (ptxas: "Unknown modifier '.lod'")."""
    subs = SUBNAMES[d.mnemonic]
    parts = ins.opcode.split(".")
    base = ins.opcode_start
    s = len(parts[0])
    if len(parts) < 2:
        c.emit("PTX0801", base, base + s, f"`{d.mnemonic}` needs one of "
               + ", ".join(f"`.{x}`" for x in sorted(subs)), label="incomplete instruction name")
        return
    if parts[1] in subs:
        # an instruction always written with a `::` suffix, written without it (`tcgen05.wait`)
        variants = suffixed(f"{d.mnemonic}.{parts[1]}")
        if variants:
            e = s + 1 + len(parts[1])
            c.emit("PTX0801", base, base + e, f"`{d.mnemonic}.{parts[1]}` needs its `::` suffix: "
                   + " or ".join(f"`{v}`" for v in variants), label="incomplete instruction name")
        return
    if parts[1] not in subs:
        e = s + 1 + len(parts[1])
        close = sorted(subs, key=lambda x: _edit_distance(x, parts[1]))[0]
        c.emit("PTX0801", base + s, base + e, f"`.{parts[1]}` is not a modifier of `{d.mnemonic}`: "
               f"the {d.mnemonic} instructions are " + ", ".join(f"`{d.mnemonic}.{x}`" for x in sorted(subs)),
               label="unknown modifier", help=f"did you mean `{d.mnemonic}.{close}`?")


def _edit_distance(a: str, b: str) -> int:
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        cur = [i]
        for j, y in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y)))
        prev = cur
    return prev[-1]


def has_record_rules(d) -> bool:
    """Whether an instruction is checked here (a record, and not a load with rules of its own)."""
    return d.spec is not None and d.name not in ("ld", "wmma.load")


__all__ = ["check_instruction", "check_family", "has_record_rules", "compatible", "TYPES"]


@rule(Trigger.INSTRUCTION,
    Rule("PTX0820", "tensormap-replace-value", "error",
         "a tensormap.replace ordinal or enumerated value that is not a constant in its range",
         "PTX ISA 9.7.9.26 (tensormap.replace)",
         "The ordinal names one of the tensor map's five dimensions (0..4), and the new value of "
         "`.elemtype`, `.interleave_layout`, `.swizzle_mode`, `.swizzle_atomicity` and "
         "`.fill_mode` is a code from the field's table of valid values; ptxas 13.0 takes both as "
         "integer constants only.",
         Example(body="tensormap.replace.tile.fill_mode.global.b1024.b32 [%rd1], 2;", version="8.3",
                 target="sm_90a"),
         Example(body="tensormap.replace.tile.fill_mode.global.b1024.b32 [%rd1], 1;", version="8.3",
                 target="sm_90a"),
         ptxas="error: Argument 1 of instruction 'tensormap.replace': value '2' expected to be in "
               "range [0..1] when .fill_mode modifier is used."),
    on=("tensormap.replace",))
def check_tensormap_replace(c: Checker, ins) -> None:
    """The constants of tensormap.replace against the field tables (ptxld.spec.tensormap). The
    narrower ranges of some targets (element types 13..15 from PTX ISA 8.7 on the sm_100
    generation, the 96B swizzle on sm_103a) are not checked here."""
    field = tensormap_spec.FIELDS.get(ins.decoded.get("field"))
    ops = ins.operands
    if field is None or ins.operand_error is not None or len(ops) != (3 if field.ordinal else 2):
        return                           # the record's rules report those
    checks = []
    if field.ordinal:
        checks.append((ops[1], "ordinal", tensormap_spec.MAX_RANK - 1))
    if field.immediate:
        checks.append((ops[-1], f"`{field.name}` value", field.max_value))
    for op, what, hi in checks:
        if _kind_of(c, ins, op)[0] != "imm":
            c.emit("PTX0820", op.start, op.end, f"the {what} of `tensormap.replace` must be an "
                   f"integer constant", label=f"a constant in 0..{hi}")
        elif isinstance(op, Int) and not 0 <= op.value <= hi:
            c.emit("PTX0820", op.start, op.end, f"{what} {op.value} is outside 0..{hi}",
                   label=f"a constant in 0..{hi}")
