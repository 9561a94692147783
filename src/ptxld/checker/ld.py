"""PTX02xx (ld qualifiers), PTX03xx (ld operands) and PTX04xx (ld.global.nc), one function each."""
from __future__ import annotations

from .. import patterns
from ..ptx.nodes import Address, Int, Name, Sink, Vector
from ..diagnostics import Label
from ..spec import ld as ld_spec
from ..spec.opcodes import is_predefined
from ..spec.types import kind_bits
from .context import Checker, reg_type
from .operands import check_address, destination_types, dest_compatible, type_name
from .registry import LD_SECTION, NC_SECTION, PTXAS_MEASURED, TABLE28_SECTION, Example, Rule, Trigger, rule

_ORDERS_WITH_SCOPE = (".relaxed", ".acquire")
_STRONG = (".volatile", ".relaxed", ".acquire")
_ALLOWED = ld_spec.ALLOWED_SPACES
_GROUP_WORD = {"space": "state spaces", "cop": "cache operators", "scope": "scopes", "vec": "vector sizes",
               "type": "types", "prefetch": "prefetch sizes", "l1_evict": "L1 eviction priorities",
               "l2_evict": "L2 eviction priorities", "cache_hint": "`.L2::cache_hint`", "nc": "`.nc`",
               "mmio": "`.mmio`"}


@rule(Trigger.LD,
    Rule("PTX0302", "operand-count", "error",
         "wrong number or kind of operands",
         LD_SECTION + ", Syntax",
         "ld ... d, [a]{, cache-policy}; wmma.load ... r, [p]{, stride};",
         Example(body="ld.global.u32 %r1, %rd0;"),
         Example(body="ld.global.u32 %r1, [%rd0];"),
         ptxas="error: Arguments mismatch for instruction 'ld'"),
    Rule("PTX0303", "destination-not-register", "error",
         "the destination must be a register in the `.reg` state space",
         LD_SECTION + ", Notes",
         "Destination d must be in the .reg state space.",
         Example(body="ld.global.u32 gbuf, [%rd0];"),
         Example(body="ld.global.u32 %r1, [%rd0];"),
         ptxas="error: Argument 0 of instruction 'ld': must be register"),
    Rule("PTX0304", "destination-type", "error",
         "the destination register cannot hold this load type (relaxed type-checking rules)",
         TABLE28_SECTION,
         "A destination register wider than the specified type may be used ... (Table 28). "
         "As ptxas 13.0 applies it: .bN loads go to any register of at least N bits; .uN/.sN to "
         ".b/.u/.s (and .f16x2) registers of at least N bits; .f32/.f64 to a float register of the "
         "same size or a .b register at least as wide (in a vector destination also to .u/.s "
         "registers of the same size); .b128 only to .b128; never to .pred.",
         Example(body="ld.global.u32 %f1, [%rd0];"),
         Example(body="ld.global.f32 %f1, [%rd0];"),
         ptxas="error: Arguments mismatch for instruction 'ld'"),
    Rule("PTX0305", "vector-arity", "error",
         "the destination's element count does not match the vector qualifier",
         LD_SECTION + ", Syntax",
         "With .vec = .v2/.v4/.v8 the destination is a brace list of 2/4/8 registers; without it, "
         "a single register.",
         Example(body="ld.global.v4.u32 {%r1, %r2}, [%rd0];"),
         Example(body="ld.global.v2.u32 {%r1, %r2}, [%rd0];"),
         ptxas="error: Argument vector size mismatch for instruction 'ld'"),
    Rule("PTX0306", "vector-elements-mixed", "error",
         "the registers of a vector destination have different sizes or incompatible types",
         "PTX ISA 6.4.3 (vector operands)",
         "A brace-enclosed vector operand is a list of scalar registers of the same type. As "
         "ptxas 13.0 applies it: all elements have one size (a .pred register counts as 32 bits), "
         "and each element's type goes with its left neighbour's (a .b type goes with any, .u with "
         ".s); a vector of mixed types is typed as the .b type of that size.",
         Example(body="ld.global.v2.u32 {%r1, %rd1}, [%rd0];"),
         Example(body="ld.global.v2.u32 {%r1, %r2}, [%rd0];"),
         ptxas="error: Incompatible elements of vector expression (mixed types: Vector with "
               "elements of different types are not allowed in ld instruction)"),
    Rule("PTX0313", "duplicate-vector-destination", "warning",
         "a register appears twice in a vector destination",
         "PTX ISA 6.4.3 (vector operands)",
         "Destination vector elements must all be distinct registers, otherwise behaviour is undefined.",
         Example(body="ld.global.v2.u32 {%r1, %r1}, [%rd0];"),
         Example(body="ld.global.v2.u32 {%r1, %r2}, [%rd0];"),
         ptxas="accepted"),
    Rule("PTX0314", "sink-destination", "error",
         "the sink `_` cannot be the whole destination",
         LD_SECTION + ", Description",
         "The sink symbol may be used inside a vector expression d; ptxas rejects a scalar `_` and a "
         "vector of sinks only.",
         Example(body="ld.global.u32 _, [%rd0];"),
         Example(body="ld.global.u32 %r1, [%rd0];"),
         ptxas="fatal: Result discard mode is not allowed for instruction 'ld'"),
    Rule("PTX0217", "sink-outside-256-bit", "warning",
         "the sink `_` is specified only in 256-bit vector destinations",
         LD_SECTION + ", Description",
         "Optionally, sink symbol '_' can be used in vector expression d when .vec is .v8 and .type is "
         ".b32/.s32/.u32/.f32 OR .vec is .v4 and .type is .b64/.s64/.u64/.f64; ptxas accepts a sink "
         "in any vector.",
         Example(body="ld.global.v2.u32 {%r1, _}, [%rd0];"),
         Example(body="ld.global.v2.u32 {%r1, %r2}, [%rd0];"),
         ptxas="accepted", isa_only=True),
    Rule("PTX0218", "cache-hint-operand", "error",
         "`.L2::cache_hint` and the cache-policy operand go together",
         LD_SECTION + ", Description",
         "When the optional argument cache-policy is specified, the qualifier .level::cache_hint is "
         "required; ptxas also requires the operand when the qualifier is written .",
         Example(body="ld.global.L2::cache_hint.u32 %r1, [%rd0];"),
         Example(body="ld.global.L2::cache_hint.u32 %r1, [%rd0], %rd1;"),
         ptxas="error: Arguments mismatch for instruction 'ld'"),
    Rule("PTX0219", "unified-on-plain-variable", "error",
         "`[var].unified` needs a variable declared with `.attribute(.unified)`",
         LD_SECTION + ", Description",
         "The optional qualifier .unified must be specified on operand a if a is the address of a "
         "variable declared with .unified attribute; ptxas rejects it on any other variable .",
         Example(body="ld.global.u32 %r1, [gbuf].unified;"),
         Example(body="ld.global.u32 %r1, [%rd0].unified;"),
         ptxas="error: Illegal use of attribute '.unified' for instruction 'ld'"),
    Rule("PTX0220", "unified-missing", "warning",
         "a `.unified` variable must be read with `[a].unified`",
         LD_SECTION + ", Description",
         "The optional qualifier .unified must be specified on operand a if a is the address of a "
         "variable declared with .unified attribute (ptxas -c accepts it without).",
         Example(body="ld.global.u32 %r1, [uvar];",
           decls=".global .attribute(.unified(1, 2)) .u32 uvar;"),
         Example(body="ld.global.u32 %r1, [uvar].unified;",
           decls=".global .attribute(.unified(1, 2)) .u32 uvar;"),
         ptxas="accepted with --compile-only", isa_only=True),
    Rule("PTX0221", "unified-outside-isa-forms", "warning",
         "`.unified` appears only in the weak `ld` forms",
         LD_SECTION + ", Syntax",
         "Only the ld{.weak}... forms carry [a]{.unified}; .relaxed, .acquire, .volatile, .mmio, "
         "ld.global.nc and wmma.load do not (ptxas accepts them).",
         Example(body="ld.relaxed.gpu.global.u32 %r1, [%rd0].unified;"),
         Example(body="ld.relaxed.gpu.global.u32 %r1, [%rd0];"),
         ptxas="accepted", isa_only=True),
    Rule("PTX0222", "param-return-predicated", "error",
         "an `ld.param` that reads a call's return value cannot be predicated",
         LD_SECTION + ", Description",
         "Instruction ld.param{::func} used for reading value returned from device function call "
         "cannot be predicated.",
         Example(module=".version 9.0\n.target sm_90\n.address_size 64\n\n.func (.param .b32 rv) f()\n{\n"
                  "    st.param.b32 [rv], 1;\n    ret;\n}\n\n.visible .entry kernel()\n{\n"
                  "    .reg .b32 %r<2>;\n    .reg .pred %p;\n    setp.eq.u32 %p, %r0, 0;\n    {\n"
                  "        .param .b32 rv0;\n        call (rv0), f, ();\n"
                  "        @%p ld.param.b32 %r1, [rv0];\n    }\n    ret;\n}\n"),
         Example(module=".version 9.0\n.target sm_90\n.address_size 64\n\n.func (.param .b32 rv) f()\n{\n"
                  "    st.param.b32 [rv], 1;\n    ret;\n}\n\n.visible .entry kernel()\n{\n"
                  "    .reg .b32 %r<2>;\n    .reg .pred %p;\n    setp.eq.u32 %p, %r0, 0;\n    {\n"
                  "        .param .b32 rv0;\n        call (rv0), f, ();\n"
                  "        ld.param.b32 %r1, [rv0];\n    }\n    ret;\n}\n"),
         ptxas="error: Illegal to predicate instruction 'ld.param' with operand 'rv0'"),
    Rule("PTX0223", "param-read-own-return", "error",
         "a device function cannot read its own return parameter",
         "PTX ISA 5.1.6.4 (device function parameters)",
         "Function inputs are read-only and return parameters write-only inside the callee.",
         Example(module=".version 9.0\n.target sm_90\n.address_size 64\n\n.func (.param .b32 rv) f()\n{\n"
                  "    .reg .b32 %r1;\n    ld.param.b32 %r1, [rv];\n    st.param.b32 [rv], %r1;\n"
                  "    ret;\n}\n"),
         Example(module=".version 9.0\n.target sm_90\n.address_size 64\n\n.func (.param .b32 rv) f(.param .b32 a)\n{\n"
                  "    .reg .b32 %r1;\n    ld.param.b32 %r1, [a];\n    st.param.b32 [rv], %r1;\n"
                  "    ret;\n}\n"),
         ptxas="error: Illegal to read function return parameter 'rv'"),
    Rule("PTX0226", "param-subqualifier-mismatch", "warning",
         "`ld.param::entry` must read a kernel parameter, `ld.param::func` a device-function parameter",
         LD_SECTION + ", Description",
         "For ld.param::entry instruction, operand a must be a kernel parameter address, otherwise "
         "behavior is undefined. For ld.param::func instruction, operand a must be a device function "
         "parameter address, otherwise behavior is undefined.",
         Example(body="ld.param::func.u64 %rd1, [param_ptr];"),
         Example(body="ld.param::entry.u64 %rd1, [param_ptr];"),
         ptxas="accepted (undefined behaviour)", isa_only=True),
    Rule("PTX0311", "cache-policy-operand", "error",
         "the cache-policy operand must be a 64-bit integer register or an immediate",
         LD_SECTION + ", Description",
         "The 64-bit operand cache-policy specifies the cache eviction policy (ptxas also accepts an "
         "immediate).",
         Example(body="ld.global.L2::cache_hint.u32 %r1, [%rd0], %r2;"),
         Example(body="ld.global.L2::cache_hint.u32 %r1, [%rd0], %rd1;"),
         ptxas="error: Arguments mismatch for instruction 'ld'"),
    Rule("PTX0701", "ptxas-crash", "warning",
         "ptxas 13.0 crashes (segmentation fault) on this input",
         PTXAS_MEASURED,
         "Measured: .v8 with an 8- or 16-bit type into registers of that size; ld.param of a .param variable "
         "declared inside a kernel; an undeclared name with .unified (deterministic); .v8 32-bit into "
         "64-bit registers, .v8 of 8/16-bit types outside .global (some runs).",
         Example(body="{\n.param .b32 arg0;\nst.param.b32 [arg0], %r1;\nld.param.b32 %r2, [arg0];\n}"),
         Example(body="{\n.param .b32 arg0;\nst.param.b32 [arg0], %r1;\nmov.b32 %r2, %r1;\n}"),
         ptxas="Segmentation fault (exit 139), no diagnostic",
         explanation="The instruction itself may be valid PTX (then this is the only diagnostic): "
                     "the warning says that the CUDA 13.0 ptxas cannot assemble it."),
    also=("PTX0307", "PTX0308", "PTX0309", "PTX0310", "PTX0312", "PTX0315"))
def check_ld_operands(c: Checker, ins, m) -> None:
    """The rules on an `ld`'s operands (its qualifiers are checked once per opcode, below)."""
    ops = ins.operands
    if not _operand_shape(c, ins, m, ops):
        return
    _destination(c, ins, m)
    if m.address is not None:
        check_address(c, ins, m.address, m.space_base, m.space, ld=True, nc=m.nc)
        _param_rules(c, ins, m)
        _unified(c, ins, m)
    _cache_policy(c, ins, m)


# The commonest loads by far, `ld.global.f32 %f1, [%rd4+16];` and `ld.param.u64 %rd1,
# [k_param_0];`: a scalar register and a register or parameter address with an optional offset
# that fits 32 bits. The operand parser reports nothing on such a text, so whatever the ld rules
# say about it follows from the opcode, the destination's type and what the address names (the
# module's address size is fixed).
_PLAIN_LD = patterns.compile(r"\s*(%[A-Za-z_$][\w$]*)\s*,\s*\[\s*(%?[A-Za-z_$][\w$]*)\s*"
                             r"(?:\+\s*-?\s*(?:0[xX][0-9a-fA-F]{1,8}|[1-9]\d{0,8}|0))?\s*\]\s*")


_NOT_LOOKED_UP = object()


def plain_ld(c: Checker, ins, first: int) -> tuple | None:
    """What the ld rules read of a plain load (see `_PLAIN_LD`), with whether its names need no
    more checking: (key, named) or None for any other load. The key: the opcode, the declared type
    of a scalar `.reg` destination, and the address's scalar `.reg` register or a parameter of
    the instruction's own function (its type, whether the function is a kernel, whether the load
    is guarded); the checker skips a load whose key passed every ld rule before. `named`: both
    names are declared before offset `first` (the scope's first instruction), all that PTX0301
    checks of them."""
    m = _PLAIN_LD.fullmatch(ins.operand_text)
    if m is None:
        return None
    scope = ins.scope or ins.module.scope
    memo = c.lookups_of(scope)  # `lookup_in`'s memo: most names are in it already
    dest, base = m.group(1, 2)
    d = memo.get(dest, _NOT_LOOKED_UP)
    if d is _NOT_LOOKED_UP:
        d = c.lookup_in(scope, dest)
    a = memo.get(base, _NOT_LOOKED_UP)
    if a is _NOT_LOOKED_UP:
        a = c.lookup_in(scope, base)
    if (d is None or a is None or getattr(d, "kind", "") != "variable" or getattr(a, "kind", "") != "variable"
            or d.space != ".reg" or d.vector or a.vector or a.attributes):
        return None
    named = d.start < first and a.start < first
    if a.space == ".reg":
        return (ins.opcode, d.type, a.type), named
    func = ins.function
    if a.space != ".param" or func is None or a.function is not func or not any(p is a for p in func.params):
        return None
    return (ins.opcode, d.type, ".param", a.type, func.is_entry, ins.guard is None), named


# ------------------------------------------------------------------ qualifiers
@rule(Trigger.LD_OPCODE,
    Rule("PTX0201", "unknown-qualifier", "error",
         "a qualifier that `ld` does not have",
         LD_SECTION + ", Syntax",
         "The qualifiers of ld are those of its syntax: .weak .volatile .relaxed .acquire .mmio, "
         ".scope, .ss, .cop, eviction priorities, .L2::cache_hint, prefetch sizes, .vec, .type.",
         Example(body="ld.global.wb.u32 %r1, [%rd0];"),
         Example(body="ld.global.cg.u32 %r1, [%rd0];"),
         ptxas="error: Illegal modifier '.wb' for instruction 'ld' (or: Unknown modifier)"),
    Rule("PTX0202", "repeated-qualifier", "error",
         "two qualifiers of one kind (two state spaces, two cache operators, two types, ...)",
         LD_SECTION + ", Syntax",
         "Each qualifier slot of the syntax ({.ss}, {.cop}, {.vec}, .type, ...) holds at most one value.",
         Example(body="ld.global.ca.cg.u32 %r1, [%rd0];"),
         Example(body="ld.global.cg.u32 %r1, [%rd0];"),
         ptxas="error: Multiple cache operation modifiers specified"),
    Rule("PTX0204", "memory-orders-exclusive", "error",
         "`.weak`, `.volatile`, `.relaxed` and `.acquire` are mutually exclusive",
         LD_SECTION + ", Description",
         "The .weak, .volatile, .relaxed and .acquire qualifiers are mutually exclusive.",
         Example(body="ld.weak.volatile.global.u32 %r1, [%rd0];"),
         Example(body="ld.volatile.global.u32 %r1, [%rd0];"),
         ptxas="error: Duplicate .volatile modifier"),
    Rule("PTX0224", "type-missing", "error",
         "`ld` needs a `.type`",
         LD_SECTION + ", Syntax",
         "Every form of ld ends in .type.",
         Example(body="ld.global %r1, [%rd0];"),
         Example(body="ld.global.u32 %r1, [%rd0];"),
         ptxas="error: Unexpected instruction types specified for 'ld'"),
    Rule("PTX0225", "vector-not-before-type", "warning",
         "the vector qualifier is not written right before the type",
         LD_SECTION + ", Syntax",
         "The syntax puts {.vec} right before .type; ptxas 13.0 accepts `.v2`/`.v4` in any other "
         "place (after the type, or with other qualifiers between) with a warning, and `.v8` "
         "anywhere without one.",
         Example(body="ld.global.u32.v2 {%r1, %r2}, [%rd0];"),
         Example(body="ld.global.v2.u32 {%r1, %r2}, [%rd0];"),
         ptxas="warning: Vector Type not specified properly"))
def _qualifier_set(c: Checker, ins, m) -> None:
    for text, s, e in m.unknown:
        hint = ""
        if text in (".wb", ".wt"):
            hint = "`.wb`/`.wt` are store cache operators; loads use `.ca .cg .cs .lu .cv`"
        elif text == ".L2::evict_unchanged":
            hint = "`.L2::evict_unchanged` exists for `createpolicy`; `ld` has `.L2::evict_normal/first/last`"
        elif text in (".ci", ".E"):
            hint = f"`{text}` is SASS (LDG) syntax, not PTX"
        c.emit("PTX0201", s, e, f"`{text}` is not a qualifier of `ld`", label="unknown qualifier",
               help=hint or "remove it, or correct its spelling")
    for group, text, s, e in m.repeated:
        first = m.quals[group]
        if group == "sem":
            c.emit("PTX0204", s, e, f"`{first[0]}` and `{text}` are mutually exclusive",
                   label="second memory-order qualifier",
                   secondary=[(first[1], first[2], "first one here")],
                   help="keep one of `.weak`, `.volatile`, `.relaxed`, `.acquire`")
        elif text == first[0]:
            c.emit("PTX0202", s, e, f"`{text}` is written twice", label="repeated",
                   secondary=[(first[1], first[2], "first here")], help="remove the repetition", fix="")
        else:
            c.emit("PTX0202", s, e, f"two {_GROUP_WORD.get(group, group)}: `{first[0]}` and `{text}`",
                   label="conflicting qualifier", secondary=[(first[1], first[2], "first one here")],
                   help="keep one of them")
    if "type" not in m.quals:
        s = ins.opcode_start
        c.emit("PTX0224", s, s + len(ins.opcode), "`ld` needs a type such as `.u32` or `.b64`",
               label="no `.type`", help="append the type of the loaded data, e.g. `.b32`")
    elif m.vec in (".v2", ".v4") and m.quals["vec"][2] != m.quals["type"][1]:
        # ptxas 13.0 warns whenever `.v2`/`.v4` is not directly followed by the type (and is
        # silent about `.v8` anywhere)
        _, s, e = m.quals["vec"]
        after = s > m.quals["type"][1]
        what = "vector after type" if after else "not right before the type"
        fix_text = m.canonical_opcode() if not m.unknown and not m.repeated else None
        c.emit("PTX0225", s, e, f"`{m.vec}` is written after the type `{m.type}`" if after else
               f"`{m.vec}` is not written right before the type `{m.type}`",
               label=what, help="write the vector qualifier right before the type", fix=None)
        if fix_text:
            d = c.diags[-1]
            d.start, d.end = ins.opcode_start, ins.opcode_start + len(ins.opcode)
            d.line, d.column = c.source.position(d.start)
            d.end_line, d.end_column = c.source.position(d.end)
            d.secondary.append(_label(s, e, what))
            d.label = f"canonical: `{fix_text}`"
            d.fix = fix_text
            d.help = f"write `{fix_text}`"


def _label(s, e, msg):
    return Label(s, e, msg)


@rule(Trigger.LD_OPCODE,
    Rule("PTX0203", "cache-operator-with-memory-order", "error",
         "cache operators are not allowed with `.volatile`, `.relaxed` or `.acquire`",
         LD_SECTION + ", Description",
         "The qualifiers .volatile, .relaxed and .acquire ... Cache operations are not permitted "
         "with these qualifiers.",
         Example(body="ld.volatile.global.ca.u32 %r1, [%rd0];"),
         Example(body="ld.volatile.global.u32 %r1, [%rd0];"),
         ptxas="error: Modifier '.volatile' cannot be combined with modifier '.ca'"),
    Rule("PTX0205", "scope-required", "error",
         "`.relaxed` and `.acquire` need a scope",
         LD_SECTION + ", Syntax",
         "ld.relaxed.scope / ld.acquire.scope: the .scope qualifier is part of both forms.",
         Example(body="ld.relaxed.global.u32 %r1, [%rd0];"),
         Example(body="ld.relaxed.gpu.global.u32 %r1, [%rd0];"),
         ptxas="error: Modifier '.relaxed' requires scope with 'ld' instruction"),
    Rule("PTX0206", "scope-without-order", "error",
         "a scope is only allowed with `.relaxed`, `.acquire` or `.mmio`",
         LD_SECTION + ", Syntax",
         "The .scope qualifier indicates the set of threads with which an ld.relaxed or ld.acquire "
         "instruction can directly synchronize.",
         Example(body="ld.gpu.global.u32 %r1, [%rd0];"),
         Example(body="ld.relaxed.gpu.global.u32 %r1, [%rd0];"),
         ptxas="error: Modifier '.gpu' requires memory order with 'ld' instruction"))
def _memory_order(c: Checker, ins, m) -> None:
    sem = m.quals.get("sem")
    scope = m.quals.get("scope")
    if m.mmio:
        return  # _mmio reports the whole `.mmio.relaxed.sys` form
    if sem and sem[0] in _ORDERS_WITH_SCOPE and scope is None:
        c.emit("PTX0205", sem[1], sem[2], f"`ld{sem[0]}` needs a scope", label="no scope given",
               help=f"add one of `.cta`, `.cluster`, `.gpu`, `.sys`, e.g. `ld{sem[0]}.gpu`")
    if scope and not (sem and sem[0] in _ORDERS_WITH_SCOPE):
        if sem:
            c.emit("PTX0206", scope[1], scope[2], f"a scope cannot be combined with `{sem[0]}`",
                   label="scope not allowed", secondary=[(sem[1], sem[2], f"`{sem[0]}` takes no scope")],
                   help=f"remove `{scope[0]}`, or use `.relaxed{scope[0]}`")
        else:
            c.emit("PTX0206", scope[1], scope[2], f"the scope `{scope[0]}` needs `.relaxed` or `.acquire`",
                   label="scope without memory order",
                   help=f"write `ld.relaxed{scope[0]}` or `ld.acquire{scope[0]}`, or remove `{scope[0]}`")
    cop = m.quals.get("cop")
    if cop and sem and sem[0] in _STRONG:
        c.emit("PTX0203", cop[1], cop[2], f"`{sem[0]}` cannot be combined with cache operator `{cop[0]}`",
               label="cache operator not allowed here",
               secondary=[(sem[1], sem[2], f"`{sem[0]}` selects a form without `.cop`")],
               help="remove the cache operator", fix="")


@rule(Trigger.LD_OPCODE,
    Rule("PTX0207", "mmio-relaxed-sys", "error",
         "`.mmio` must be written with `.relaxed` and the `.sys` scope",
         LD_SECTION + ", Description",
         "Only .sys thread scope is valid for ld.mmio operation. The qualifiers .mmio and .relaxed "
         "must be specified together.",
         Example(body="ld.mmio.relaxed.gpu.global.u32 %r1, [%rd0];"),
         Example(body="ld.mmio.relaxed.sys.global.u32 %r1, [%rd0];"),
         ptxas="error: Modifier '.mmio' cannot be combined with modifier '.gpu'"),
    Rule("PTX0208", "mmio-extra-qualifier", "error",
         "`ld.mmio` takes no vector, cache operator, eviction priority, cache hint or prefetch size",
         LD_SECTION + ", Syntax",
         "ld.mmio.relaxed.sys{.global}.type d, [a]; — the form has no other qualifiers.",
         Example(body="ld.mmio.relaxed.sys.global.v2.u32 {%r1, %r2}, [%rd0];"),
         Example(body="ld.mmio.relaxed.sys.global.u32 %r1, [%rd0];"),
         ptxas="error: Modifier '.mmio' cannot be combined with modifier '.v2'"))
def _mmio(c: Checker, ins, m) -> None:
    if not m.mmio:
        return
    mm = m.quals["mmio"]
    sem = m.quals.get("sem")
    scope = m.quals.get("scope")
    acquire_ok = c.version is not None and c.version >= (9, 3)
    if sem is None or sem[0] not in ((".relaxed", ".acquire") if acquire_ok else (".relaxed",)):
        at = sem or mm
        c.emit("PTX0207", at[1], at[2], "`.mmio` must be written `.mmio.relaxed.sys`",
               label="needs `.relaxed`" if sem is None else f"`{sem[0]}` not allowed with `.mmio`",
               help="write `ld.mmio.relaxed.sys.global.<type>`")
    elif scope is None or scope[0] != ".sys":
        at = scope or mm
        c.emit("PTX0207", at[1], at[2], "only the `.sys` scope is valid for `ld.mmio`",
               label="needs `.sys`" if scope is None else "not `.sys`",
               help="use `.sys`", fix=".sys" if scope is not None else None)
    for g in ("vec", "cop", "l1_evict", "l2_evict", "prefetch", "cache_hint"):
        q = m.quals.get(g)
        if q:
            c.emit("PTX0208", q[1], q[2], f"`ld.mmio` cannot take `{q[0]}`", label="not allowed with `.mmio`",
                   secondary=[(mm[1], mm[2], "the `.mmio` form has no other qualifiers")],
                   help=f"remove `{q[0]}`", fix="")


@rule(Trigger.LD_OPCODE,
    Rule("PTX0210", "l1-eviction-with-cache-operator", "error",
         "an `.L1::` eviction priority cannot be combined with a cache operator",
         LD_SECTION + ", Syntax",
         "ld{.weak}{.ss}{.cop}... and ld{.weak}{.ss}{.level1::eviction_priority}... are different forms.",
         Example(body="ld.global.cg.L1::evict_last.u32 %r1, [%rd0];"),
         Example(body="ld.global.L1::evict_last.u32 %r1, [%rd0];"),
         ptxas="error: Modifier '.evict_last' cannot be combined with modifier '.cg'"),
    Rule("PTX0211", "l2-eviction-outside-isa-forms", "warning",
         "`.L2::evict_*` together with a cache operator or `.volatile` is in no syntax form of the PTX ISA",
         LD_SECTION + ", Syntax",
         "The .level2::eviction_priority qualifier appears only in the forms without .cop and "
         "without .volatile; ptxas 13.0 accepts both combinations.",
         Example(body="ld.global.cg.L2::evict_last.v8.u32 {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, [%rd0];",
           version="8.8", target="sm_100"),
         Example(body="ld.global.L2::evict_last.v8.u32 {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, [%rd0];",
           version="8.8", target="sm_100"),
         ptxas="accepted", isa_only=True),
    Rule("PTX0212", "volatile-eviction", "error",
         "`.volatile` takes no `.L1::` eviction priority and no `.L2::cache_hint`",
         LD_SECTION + ", Syntax",
         "ld.volatile{.ss}{.level::prefetch_size}{.vec}.type d, [a];",
         Example(body="ld.volatile.global.L1::evict_last.u32 %r1, [%rd0];"),
         Example(body="ld.volatile.global.u32 %r1, [%rd0];"),
         ptxas="error: Modifier '.evict_last' cannot be combined with modifier '.volatile'"),
    Rule("PTX0213", "l2-eviction-needs-256-bit", "error",
         "`.L2::evict_*` is only supported on 256-bit loads (`.v8` 32-bit or `.v4` 64-bit)",
         LD_SECTION + ", Description",
         "Qualifier .level2::eviction_priority is supported if .vec is .v8 and .type is .b32 or .s32 "
         "or .u32 or .f32 ... OR .vec is .v4 and .type is .b64 or .s64 or .u64 or .f64.",
         Example(body="ld.global.L2::evict_last.v4.u32 {%r0, %r1, %r2, %r3}, [%rd0];", version="8.8",
           target="sm_100"),
         Example(body="ld.global.L2::evict_last.v4.u64 {%rd1, %rd2, %rd3, %rd4}, [%rd0];", version="8.8",
           target="sm_100"),
         ptxas="error: Instruction 'ld' requires '.v8.b32/.v4.b64' type with '.L2::evict_last' modifier."),
    Rule("PTX0214", "l2-eviction-widened-destination", "warning",
         "with `.L2::evict_*` the destination registers must have exactly the `.type` width",
         LD_SECTION + ", Description",
         "... AND Operand d is vector of 8 registers with type specified with .type (resp. 4).",
         Example(body=".reg .b128 %q<4>;\nld.global.L2::evict_last.v4.u64 {%q0, %q1, %q2, %q3}, [%rd0];",
           version="8.8", target="sm_100"),
         Example(body="ld.global.L2::evict_last.v8.u32 {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, [%rd0];",
           version="8.8", target="sm_100"),
         ptxas="accepted (and ptxas 13.0 sometimes crashes on it, see PTX0701)", isa_only=True))
def _cache_and_eviction(c: Checker, ins, m) -> None:
    cop, l1, l2 = m.quals.get("cop"), m.quals.get("l1_evict"), m.quals.get("l2_evict")
    sem = m.quals.get("sem")
    if m.mmio:
        return
    if l1 and cop:
        c.emit("PTX0210", l1[1], l1[2], f"`{l1[0]}` cannot be combined with cache operator `{cop[0]}`",
               label="eviction priority", secondary=[(cop[1], cop[2], "cache operator")],
               help="keep either the cache operator or the L1 eviction priority")
    volatile = sem if sem and sem[0] == ".volatile" else None
    if volatile:
        for q in (l1, m.quals.get("cache_hint")):
            if q:
                c.emit("PTX0212", q[1], q[2], f"`.volatile` cannot be combined with `{q[0]}`",
                       label="not in the `ld.volatile` form",
                       secondary=[(volatile[1], volatile[2], "`ld.volatile{.ss}{.level::prefetch_size}{.vec}.type`")],
                       help=f"remove `{q[0]}`", fix="")
    if l2:
        if not m.is_256_bit:
            c.emit("PTX0213", l2[1], l2[2],
                   f"`{l2[0]}` needs a 256-bit load (`.v8` of a 32-bit type or `.v4` of a 64-bit type)",
                   label=f"on a {m.access_bits or '?'}-bit load" if m.access_bits else "not a 256-bit load",
                   help="use `.v8.b32` or `.v4.b64`, or remove the L2 eviction priority")
        for other, why in ((cop, "a cache operator"), (volatile, "`.volatile`")):
            if other:
                c.emit("PTX0211", l2[1], l2[2], f"the PTX ISA has no `ld` form with `{l2[0]}` and {why}",
                       label="L2 eviction priority", secondary=[(other[1], other[2], "outside that form")],
                       help=f"remove `{l2[0]}` or `{other[0]}` for portable PTX")
        if m.is_256_bit:
            for d in m.dests:
                rt = destination_types(c, m.instruction, d)
                if rt and rt[1] != m.type_bits:
                    c.emit("PTX0214", d.start, d.end,
                           f"with `{l2[0]}`, every destination must be a {m.type_bits}-bit register",
                           label=f"{rt[1]}-bit register", secondary=[(l2[1], l2[2], "L2 eviction priority")],
                           help=f"use `{type_name(('b', m.type_bits))}` registers")
                    break


@rule(Trigger.LD_OPCODE,
    Rule("PTX0215", "v8-narrow-type", "warning",
         "`.v8` is specified only for 32-bit types",
         LD_SECTION + ", Description",
         "The .v8 (.vec) qualifier is supported if .type is .b32 or .s32 or .u32 or .f32 AND state "
         "space is .global or generic; ptxas 13.0 accepts .v8 with 8- and 16-bit types anywhere.",
         Example(body="ld.global.v8.u8 {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, [%rd0];"),
         Example(body="ld.global.v4.u8 {%r0, %r1, %r2, %r3}, [%rd0];"),
         ptxas="accepted", isa_only=True),
    Rule("PTX0216", "vector-too-wide", "error",
         "vectors wider than 128 bits exist only as `.v8` of 32-bit and `.v4` of 64-bit types",
         LD_SECTION + ", Description",
         "Only .v8 with a 32-bit type and .v4 with a 64-bit type are 256-bit loads; ptxas rejects every "
         "other vector over 128 bits (`.v2.b128`, `.v8.b64`).",
         Example(body="ld.global.v8.b64 {%rd1, %rd2, %rd3, %rd4, %rd5, %rd6, %rd7, %rd0}, [%rd0];",
           version="8.8", target="sm_100"),
         Example(body="ld.global.v4.b64 {%rd1, %rd2, %rd3, %rd4}, [%rd0];", version="8.8", target="sm_100"),
         ptxas="error: Vector type too large, exceeds 128 bit limit"),
    also=("PTX0701",))
def _widths(c: Checker, ins, m) -> None:
    vec = m.quals.get("vec")
    if not vec or m.type_bits is None:
        return
    bits = m.access_bits
    if bits > 128 and not m.is_256_bit:
        c.emit("PTX0216", vec[1], m.quals["type"][2], f"`{vec[0]}{m.type}` is {bits} bits wide",
               label="wider than 128 bits",
               help="256-bit loads are `.v8` of 32-bit types and `.v4` of 64-bit types")
    if vec[0] == ".v8" and m.type_bits < 32:
        c.emit("PTX0215", vec[1], vec[2], f"the PTX ISA specifies `.v8` only for 32-bit types, not `{m.type}`",
               label=".v8 with a narrow type", help="use `.v4`/`.v2` or a 32-bit type")
    if vec[0] == ".v8":
        _v8_crashes(c, m)


def _v8_crashes(c: Checker, m) -> None:
    """`.v8` forms on which ptxas 13.0 segfaults (measured)."""
    types = [t for t in (destination_types(c, m.instruction, d) for d in m.dests) if t]
    widths = {t[1] for t in types}
    vec = m.quals["vec"]
    why = None
    # 8- and 16-bit types into registers of their own size: a segfault every run (when the
    # registers pass the type check; otherwise ptxas reports the mismatch first).
    if m.type_bits in (8, 16) and widths == {m.type_bits} and all(
            dest_compatible(m.type, t, vector=True) for t in types):
        why, always = f"`.v8` of a {m.type_bits}-bit type into {m.type_bits}-bit registers", True
    elif m.type_bits == 32 and 64 in widths:
        why, always = "`.v8` of a 32-bit type into 64-bit registers", False
    elif m.type_bits < 32 and m.space_base not in (None, ".global"):
        why, always = f"`.v8` of a {m.type_bits}-bit type from `{m.space_base}`", False
    if why:
        c.emit("PTX0701", vec[1], m.quals["type"][2],
               f"ptxas 13.0 {'crashes' if always else 'sometimes crashes'} on {why}",
               label="segmentation fault in ptxas" + ("" if always else " (nondeterministic)"),
               notes=["measured with ptxas 13.0.88; the instruction is "
                      "otherwise judged by the other diagnostics"],
               help="load with `.v4` twice, or into 32-bit registers" if m.type_bits == 16 else "")


@rule(Trigger.LD_OPCODE,
    Rule("PTX0209", "qualifier-state-space", "error",
         "the qualifier is not allowed with this state space",
         LD_SECTION + ", Description",
         ".relaxed/.acquire: .global, .shared or generic; .volatile: also .local (PTX 9.1); .mmio, "
         ".level::prefetch_size, .level::cache_hint, .unified, .v8 and .v4 with 64-bit types: "
         ".global or generic; ptxas also limits .level1::eviction_priority to .global or generic.",
         Example(body="ld.relaxed.gpu.const.u32 %r1, [cbuf];"),
         Example(body="ld.relaxed.gpu.global.u32 %r1, [gbuf];"),
         ptxas="error: Modifier '.relaxed' cannot be applied to '.const' space"))
def _spaces(c: Checker, ins, m) -> None:
    space = m.space_base
    checks = []
    sem = m.quals.get("sem")
    if sem and sem[0] in _ALLOWED:
        checks.append((sem, _ALLOWED[sem[0]]))
    if m.mmio:
        checks.append((m.quals["mmio"], _ALLOWED[".mmio"]))
    for g in ("prefetch", "cache_hint", "l1_evict"):
        q = m.quals.get(g)
        if q:
            checks.append((q, _ALLOWED[g]))
    if m.is_256_bit:
        q = m.quals["vec"]
        checks.append(((f"{m.vec}{m.type}", q[1], m.quals["type"][2]), _ALLOWED[".v8/.v4.64"]))
    if m.address is not None and m.address.unified:
        a = m.address
        checks.append(((".unified", a.end - len(".unified"), a.end), _ALLOWED[".unified"]))
    for (text, s, e), allowed in checks:
        if space in allowed:
            continue
        if text == ".volatile" and space == ".local":
            continue  # allowed from PTX 9.1: a version gate (PTX0601)
        sp = m.quals.get("space")
        names = ", ".join(x for x in ("`.global`", "`.shared`", "`.local`") if x.strip("`") in allowed)
        where = f"`{space}`" if space else "generic addressing"
        c.emit("PTX0209", s, e, f"`{text}` cannot be used with {where}", label=f"not allowed with {where}",
               secondary=[(sp[1], sp[2], "state space")] if sp else [],
               help=f"`{text}` allows {names}" + (" or generic addressing" if None in allowed else ""))


@rule(Trigger.LD_OPCODE,
    Rule("PTX0401", "nc-needs-global", "error",
         "`.nc` loads only from the `.global` state space",
         NC_SECTION + ", Syntax",
         "ld.global{.cop}.nc... — the address operand a shall contain a global address.",
         Example(body="ld.nc.u32 %r1, [%rd0];"),
         Example(body="ld.global.nc.u32 %r1, [%rd0];"),
         ptxas="error: Modifier '.nc' requires .global space"),
    Rule("PTX0402", "nc-cache-operator", "error",
         "`ld.global.nc` allows only the cache operators `.ca`, `.cg`, `.cs`",
         NC_SECTION + ", Syntax",
         ".cop = { .ca, .cg, .cs };",
         Example(body="ld.global.nc.cv.u32 %r1, [%rd0];"),
         Example(body="ld.global.nc.cg.u32 %r1, [%rd0];"),
         ptxas="error: Illegal cache operation for instruction 'ld.nc'"),
    Rule("PTX0403", "nc-memory-order", "error",
         "`ld.global.nc` takes no `.weak`, `.volatile`, `.relaxed`, `.acquire` or `.mmio`",
         NC_SECTION + ", Syntax",
         "No form of ld.global.nc has a memory-order qualifier (the memory model does not apply to it).",
         Example(body="ld.global.nc.weak.u32 %r1, [%rd0];"),
         Example(body="ld.global.nc.u32 %r1, [%rd0];"),
         ptxas="error: Modifier '.weak' cannot be combined with modifier '.nc'"))
def _nc(c: Checker, ins, m) -> None:
    if not m.nc:
        return
    nc = m.quals["nc"]
    if m.space_base != ".global":
        sp = m.quals.get("space")
        c.emit("PTX0401", nc[1], nc[2], "`.nc` needs the `.global` state space",
               label="non-coherent load", secondary=[(sp[1], sp[2], "not `.global`")] if sp else [],
               help="write `ld.global.nc`", fix=None)
    cop = m.quals.get("cop")
    if cop and cop[0] not in ld_spec.NC_COPS:
        c.emit("PTX0402", cop[1], cop[2], f"`ld.global.nc` cannot take the cache operator `{cop[0]}`",
               label="not one of `.ca .cg .cs`", help="use `.ca`, `.cg` or `.cs`, or none")
    for g in ("sem", "mmio"):
        q = m.quals.get(g)
        if q:
            c.emit("PTX0403", q[1], q[2], f"`{q[0]}` cannot be combined with `.nc`",
                   label="memory order on a non-coherent load", secondary=[(nc[1], nc[2], "`.nc`")],
                   help=f"remove `{q[0]}`" + (" and its scope" if m.scope else ""))
            break


# ------------------------------------------------------------------ operands
def _operand_shape(c: Checker, ins, m, ops) -> bool:
    """Two or three operands `d, [a]{, cache-policy}`; False when nothing more can be checked."""
    if not ops:
        return False
    end = ins.end
    if len(ops) < 2 or not isinstance(ops[1], Address):
        at = ops[1] if len(ops) > 1 else ops[0]
        c.emit("PTX0302", at.start, at.end if len(ops) > 1 else end - 1,
               "`ld` needs a destination and an address in brackets: `d, [a]`",
               label="expected `[address]`" if len(ops) > 1 else "missing the address",
               help=f"write `[{getattr(at, 'name', 'a')}]`" if len(ops) > 1 else "")
        return False
    if len(ops) > 3:
        extra = ops[3]
        c.emit("PTX0302", extra.start, ops[-1].end, "too many operands for `ld`",
               label="unexpected operand", help="`ld` takes `d, [a]` and an optional cache-policy")
    return True


def _destination(c: Checker, ins, m) -> None:
    d = m.dest_operand
    vec = m.quals.get("vec")
    n = m.vector_length
    if isinstance(d, Sink):
        c.emit("PTX0314", d.start, d.end, "the destination of `ld` cannot be the sink `_`",
               label="sink", help="load into a register")
        return
    if isinstance(d, Vector) and len(d.items) == 1 and not vec:
        d = d.items[0]  # `{%r}` is a scalar to ptxas
    if isinstance(d, Vector):
        if not vec:
            c.emit("PTX0305", d.start, d.end, f"a vector destination needs `.v{len(d.items)}`",
                   label=f"{len(d.items)} registers", help=f"write `ld...v{len(d.items)}{m.type or ''}`")
            return
        if len(d.items) != n:
            c.emit("PTX0305", d.start, d.end, f"`{vec[0]}` loads {n} elements into {len(d.items)} registers",
                   label=f"{len(d.items)} registers", secondary=[(vec[1], vec[2], f"{n} elements")])
            return
        items = d.items
        if all(isinstance(x, Sink) for x in items):
            c.emit("PTX0314", d.start, d.end, "a destination made only of sinks loads nothing",
                   label="only `_`", help="name at least one register")
            return
        if any(isinstance(x, Sink) for x in items) and not m.is_256_bit:
            s = next(x for x in items if isinstance(x, Sink))
            c.emit("PTX0217", s.start, s.end,
                   "the PTX ISA allows `_` only in `.v8` 32-bit and `.v4` 64-bit destinations",
                   label="sink", help="load into a register you do not use")
        _vector_types(c, ins, m, items)
        seen = {}
        for x in items:
            if isinstance(x, Name):
                if x.text in seen:
                    c.emit("PTX0313", x.start, x.end, f"`{x.text}` is written twice in the destination",
                           label="duplicate", secondary=[(seen[x.text].start, seen[x.text].end, "first")],
                           notes=["PTX ISA 6.4.3: destination vector elements must be distinct, "
                                  "otherwise behaviour is undefined"])
                    break
                seen[x.text] = x
        return
    if vec and isinstance(d, Name) and d.component is None:
        var = c.lookup(ins, d.name)
        whole = getattr(var, "vector", None) if getattr(var, "space", None) == ".reg" else None
        if whole == vec[0]:
            # a vector register used whole (`.reg .v4 .u32 v;` ... `ld.v4.u32 v, [a]`; PTX 8.0)
            t = reg_type(var)
            if t and m.type and not dest_compatible(m.type, t):
                _type_error(c, m, d, t)
            return
        if whole:
            c.emit("PTX0305", d.start, d.end, f"`{vec[0]}` loads {n} elements into the `{whole}` "
                   f"register `{d.text}`", label=f"a {whole} register",
                   secondary=[(vec[1], vec[2], f"{n} elements")])
            return
    if vec:
        c.emit("PTX0305", d.start, d.end, f"`{vec[0]}` needs a vector destination `{{...}}` of {n} registers",
               label="a single operand", secondary=[(vec[1], vec[2], f"{n} elements")])
        return
    if isinstance(d, Name):
        t = _register_or_report(c, ins, d)
        if t and m.type and not dest_compatible(m.type, t):
            _type_error(c, m, d, t)
        return
    c.emit("PTX0303", d.start, d.end, "the destination of `ld` must be a register",
           label="not a register")


def _register_or_report(c: Checker, ins, d: Name):
    """The register's (kind, bits), or None after reporting a non-register destination."""
    var = c.lookup(ins, d.name)
    if var is None:
        if is_predefined(d.name):
            c.emit("PTX0303", d.start, d.end, f"the special register `{d.name}` cannot be written",
                   label="read-only special register")
        return None  # undeclared: PTX0301
    if getattr(var, "kind", "") != "variable" or var.space != ".reg":
        where = getattr(var, "space", None) or "a function"
        c.emit("PTX0303", d.start, d.end, f"`{d.name}` is not a register (it is in `{where}`)",
               label="must be a `.reg` register",
               help="load into a register, then `st` it if the value must go to memory")
        return None
    t = reg_type(var)
    if var.vector:
        return None  # a vector register variable: its components are checked by ptxas alike
    return t


def _type_error(c: Checker, m, d, t) -> None:
    q = m.quals["type"]
    kind, bits = kind_bits(m.type)
    if t[0] == "pred":
        why = "a predicate cannot be loaded"
    elif t[1] < bits:
        why = f"a {t[1]}-bit register is narrower than the {bits}-bit type"
    elif m.type == ".b128":
        why = "a `.b128` load needs a `.b128` register"
    elif kind == "f":
        why = (f"a `{m.type}` load needs a `{m.type}` register or a bit-size register of at least "
               f"{bits} bits")
    else:
        why = f"`{m.type}` data cannot go to a `{type_name(t)}` register (Table 28)"
    fix_type = {"f": f".b{bits}"}.get(t[0]) if kind in "us" and t[0] == "f" and t[1] == bits else None
    c.emit("PTX0304", d.start, d.end, f"`{m.type}` cannot be loaded into `{d.text}` ({type_name(t)})",
           label=why, secondary=[(q[1], q[2], "load type")],
           help=f"load with `{fix_type}`, which any {bits}-bit register accepts" if fix_type else "")


def _vector_types(c: Checker, ins, m, items) -> None:
    types = []
    for x in items:
        if isinstance(x, Name):
            t = _register_or_report(c, ins, x)
            if t is not None:
                types.append((x, t))
        elif not isinstance(x, Sink):
            c.emit("PTX0303", x.start, x.end, "vector elements must be registers", label="not a register")
            return
    if not types:
        return
    if all(t[0] == "pred" for _, t in types):
        if m.type:  # without a type, PTX0224 has said what is wrong
            x, t = types[0]
            _type_error(c, m, x, t)
        return
    # ptxas 13.0, measured over pairs and 4-tuples of register classes: elements must have one
    # size (a predicate counts as 32 bits: "Incompatible elements of vector expression"); each
    # element's type must go with its left neighbour's, where a `.b` type goes with any type and
    # `.u` with `.s` ("Vector with elements of different types are not allowed in ld
    # instruction"). A vector of mixed types is then typed as the bit-size type of that size.
    x0, t0 = next((x, t) for x, t in types if t[0] != "pred")
    for x, t in types:
        if _element_bits(t) != _element_bits(t0):
            c.emit("PTX0306", x.start, x.end, "the vector mixes registers of different sizes",
                   label=_element_label(t), secondary=[(x0.start, x0.end, _element_label(t0))])
            return
    for (xa, ta), (x, t) in zip(types, types[1:]):
        a, b = ta[0], t[0]
        if a != b and "b" not in (a, b) and {a, b} != {"u", "s"}:
            c.emit("PTX0306", x.start, x.end, "the vector mixes registers of different types",
                   label=type_name(t), secondary=[(xa.start, xa.end, type_name(ta))],
                   help="use registers of one type, or bit-size (`.b`) registers")
            return
    vt = t0 if len({t[0] for _, t in types}) == 1 else ("b", t0[1])
    if m.type and not dest_compatible(m.type, vt, vector=True):
        _type_error(c, m, x0, vt)


def _element_bits(t) -> int:
    return 32 if t[0] == "pred" else t[1]


def _element_label(t) -> str:
    return "predicate (32-bit to ptxas)" if t[0] == "pred" else f"{t[1]}-bit"


def _cache_policy(c: Checker, ins, m) -> None:
    hint = m.quals.get("cache_hint")
    pol = m.cache_policy
    if hint and pol is None:
        c.emit("PTX0218", hint[1], hint[2], "`.L2::cache_hint` needs a cache-policy operand",
               label="no cache-policy operand", help="add the 64-bit policy: `d, [a], %policy`")
    elif pol is not None and not hint:
        c.emit("PTX0218", pol.start, pol.end, "a cache-policy operand needs `.L2::cache_hint`",
               label="cache-policy operand", help="add `.L2::cache_hint` before the type")
    if pol is None:
        return
    if isinstance(pol, Int):
        return
    if isinstance(pol, Name):
        var = c.lookup(ins, pol.name)
        if var is None:
            return  # PTX0301
        t = reg_type(var)
        if t is not None and t[1] == 64 and t[0] in "bus":
            return
        what = type_name(t) if t else f"`{getattr(var, 'space', 'function')}` variable"
        c.emit("PTX0311", pol.start, pol.end, f"the cache-policy operand must be a 64-bit integer register, not {what}",
               label=what, help="use a `.b64` register set by `createpolicy`")
        return
    c.emit("PTX0311", pol.start, pol.end, "the cache-policy operand must be a 64-bit register or an integer",
           label="not a cache policy")


def _param_rules(c: Checker, ins, m) -> None:
    if m.space_base != ".param" or m.address.base is None:
        return
    var = c.lookup(ins, m.address.base.name)
    if var is None or getattr(var, "kind", "") != "variable" or var.space != ".param":
        return
    a = m.address.base
    func = ins.function
    owner = var.function
    # (declarations compare by identity)
    is_param = owner is not None and var in owner.params
    is_return = owner is not None and var in owner.returns
    if is_return and owner is func:
        c.emit("PTX0223", a.start, a.end, f"`{a.name}` is this function's return parameter: it can only be written",
               label="return parameter", help="keep the value in a register and `st.param` it at the end")
        return
    local = owner is not None and not is_param and not is_return
    if local and ins.guard is not None and a.name in c.call_returns_of(func):
        g = ins.guard
        c.emit("PTX0222", g.start, g.end, "reading a call's return value with `ld.param` cannot be predicated",
               label="predicate", secondary=[(a.start, a.end, "return value of a call")],
               help="load unconditionally, then select with `selp` or a predicated `mov`")
    if local and func is not None and func.is_entry and a.name not in c.call_returns_of(func):
        c.emit("PTX0701", a.start, a.end, f"ptxas 13.0 crashes on `ld.param` of `{a.name}`, a `.param` declared in a kernel",
               label="call-argument `.param` read back",
               notes=["measured with ptxas 13.0.88: segmentation fault, no diagnostic"],
               help="keep the value in a register instead of reading the argument back")
    sub = m.space
    if sub in (".param::entry", ".param::func") and owner is not None and (is_param or is_return):
        kernel_param = is_param and owner.is_entry
        if (sub == ".param::entry") != kernel_param:
            want = "a kernel parameter" if sub == ".param::entry" else "a device-function parameter"
            got = "a kernel parameter" if kernel_param else "a device-function parameter"
            q = m.quals["space"]
            c.emit("PTX0226", a.start, a.end, f"`ld{sub}` reads {want}, but `{a.name}` is {got}",
                   label=got, secondary=[(q[1], q[2], f"expects {want}")],
                   help="use `ld.param` without a sub-qualifier", fix=None)


def _unified(c: Checker, ins, m) -> None:
    a = m.address
    base = a.base
    var = c.lookup(ins, base.name) if base is not None else None
    if not a.unified and (var is None or not getattr(var, "attributes", None)):
        return  # neither `.unified` written nor a variable declared `.unified`
    is_var = var is not None and getattr(var, "kind", "") == "variable" and var.space != ".reg"
    unified_var = is_var and any(x.startswith(".unified") for x in var.attributes)
    if a.unified:
        us = a.end - len(".unified")
        if base is not None and var is None and not base.name.startswith("%"):
            c.emit("PTX0701", us, a.end, "ptxas 13.0 crashes on `.unified` with an undeclared name",
                   label="after `Illegal operand type`, ptxas segfaults",
                   notes=["measured with ptxas 13.0.88: deterministic segmentation fault"])
        if is_var and not unified_var:
            c.emit("PTX0219", us, a.end, f"`{base.name}` is not declared with `.attribute(.unified)`",
                   label="`.unified` on an ordinary variable", secondary=[(var.start, var.end, "declared here")],
                   help="remove `.unified`", fix="")
        form = m.quals.get("sem") if m.sem in _STRONG else (m.quals.get("mmio") or m.quals.get("nc"))
        if form:
            c.emit("PTX0221", us, a.end, f"the PTX ISA's `ld{form[0]}` form has no `.unified` operand",
                   label="`.unified`", secondary=[(form[1], form[2], "form without `.unified`")])
    elif unified_var:
        c.emit("PTX0220", a.start, a.end, f"`{base.name}` is a `.unified` variable: read it as `[{base.name}].unified`",
               label="missing `.unified`", secondary=[(var.start, var.end, "declared `.unified` here")],
               fix=c.source.text[a.start:a.end] + ".unified")
