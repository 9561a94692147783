"""PTX05xx: `wmma.load`, against the tables of spec/wmma.py (not repeated here)."""
from __future__ import annotations

from ..ptx.nodes import Int, Name, Sink, Vector
from .context import Checker, reg_type
from .gates import check_wmma_gates
from .operands import check_address
from .registry import WMMA_SECTION, Example, Rule, Trigger, rule

_REQUIRED = (("matrix", "a matrix `.a`, `.b` or `.c`"), ("sync", "`.sync`"), ("layout", "a layout `.row`/`.col`"),
             ("shape", "a shape such as `.m16n16k16`"), ("type", "an element type such as `.f16`"))
# Combinations outside the table on which ptxas 13.0 fails inside its builtin library (measured).
_PTXAS_INTERNAL = {("m16n16k8", "c", "f16"), ("m8n8k32", "c", "f16"), ("m8n8k128", "c", "f16")} | {
    (s, x, "f64") for s in ("m16n16k16", "m8n32k16", "m32n8k16") for x in ("a", "b")}


_WMMA = None


def _spec():
    """The wmma tables (spec/wmma.py), loaded on the first `wmma.load` checked."""
    global _WMMA
    if _WMMA is None:
        # start-up time: most modules have no wmma.load, and the tables take milliseconds to build
        from ..spec import wmma
        _WMMA = wmma
    return _WMMA


@rule(Trigger.WMMA_LOAD,
    Rule("PTX0501", "wmma-qualifier", "error",
         "a qualifier that `wmma.load` does not have, or one given twice",
         WMMA_SECTION + ", Syntax",
         "wmma.load.{a,b,c}.sync.aligned.layout.shape{.ss}.type r, [p]{, stride};",
         Example(body="wmma.load.a.sync.aligned.row.row.m16n16k16.f16 {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, [%rd0];"),
         Example(body="wmma.load.a.sync.aligned.row.m16n16k16.f16 {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, [%rd0];"),
         ptxas="error: layout modifier required for instruction 'wmma.load.a'"),
    Rule("PTX0502", "wmma-qualifier-missing", "error",
         "`wmma.load` needs a matrix, `.sync`, a layout, a shape and a type",
         WMMA_SECTION + ", Syntax",
         "The mutually exclusive qualifiers .a, .b and .c ...; the mandatory .sync qualifier ...; "
         ".layout; .shape; .type.",
         Example(body="wmma.load.a.sync.aligned.m16n16k16.f16 {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, [%rd0];"),
         Example(body="wmma.load.a.sync.aligned.row.m16n16k16.f16 {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, [%rd0];"),
         ptxas="error: layout modifier required for instruction 'wmma.load.a'"),
    Rule("PTX0503", "wmma-aligned", "error",
         "`.aligned` is required from PTX ISA 6.3 on and not allowed before it",
         WMMA_SECTION + "; ptxas 13.0 (measured)",
         "The mandatory .aligned qualifier indicates that all threads in the warp must execute the "
         "same wmma.load instruction (mandatory from PTX 6.3; ptxas rejects it before 6.3).",
         Example(body="wmma.load.a.sync.row.m16n16k16.f16 {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, [%rd0];"),
         Example(body="wmma.load.a.sync.aligned.row.m16n16k16.f16 {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, [%rd0];"),
         ptxas="error: .aligned modifier required for instruction 'wmma.load.a'"),
    Rule("PTX0504", "wmma-fragment-unknown", "error",
         "no such (shape, matrix, type) combination",
         WMMA_SECTION + ", Syntax",
         "The .atype/.btype/.ctype sets of each shape (f16, bf16, tf32, f64, sub-byte, single-bit loads).",
         Example(body="wmma.load.a.sync.aligned.row.m16n16k16.f32 {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, [%rd0];"),
         Example(body="wmma.load.c.sync.aligned.row.m16n16k16.f32 {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}, [%rd0];"),
         ptxas="error: Illegal type for wmma.load.a"),
    Rule("PTX0505", "wmma-layout", "error",
         "sub-byte and single-bit A must be `.row`, B must be `.col`",
         WMMA_SECTION + ", Syntax (sub-byte and single-bit loads)",
         "wmma.load.a.sync.aligned.row.shape... / wmma.load.b.sync.aligned.col.shape... for .s4/.u4/.b1.",
         Example(body="wmma.load.a.sync.aligned.col.m8n8k32.s4 {%r0}, [%rd0];"),
         Example(body="wmma.load.a.sync.aligned.row.m8n8k32.s4 {%r0}, [%rd0];"),
         ptxas="error: Illegal alayout '.col' for instruction 'wmma.load.a'"),
    Rule("PTX0506", "wmma-state-space", "error",
         "`wmma.load` reads only `.global` or `.shared{::cta}` (or generic addresses)",
         WMMA_SECTION + ", Description",
         "wmma.load operation may be used only with .global and .shared spaces and with generic "
         "addressing; .ss = {.global, .shared{::cta}}.",
         Example(body="wmma.load.a.sync.aligned.row.m16n16k16.const.f16 {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, [cbuf];"),
         Example(body="wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, [gbuf];"),
         ptxas="error: State space incorrect for instruction 'wmma.load.a'"),
    Rule("PTX0507", "wmma-fragment-size", "error",
         "the fragment has the wrong number of registers",
         "PTX ISA 9.7.14.4.1 (Matrix Fragments for WMMA)",
         "The destination operand r is a brace-enclosed vector expression that can hold the fragment; "
         "ptxas 13.0 also takes a `.v2/.v4/.v8` qualifier only when it equals the fragment's register "
         "count (measured on every fragment).",
         Example(body="wmma.load.a.sync.aligned.row.m16n16k16.f16 {%r0, %r1, %r2, %r3}, [%rd0];"),
         Example(body="wmma.load.a.sync.aligned.row.m16n16k16.f16 {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, [%rd0];"),
         ptxas="error: Argument vector size mismatch for instruction 'wmma.load.a'"),
    Rule("PTX0508", "wmma-register-class", "error",
         "fragment registers of a type the fragment cannot use",
         "PTX ISA 9.7.14.4.1 (Matrix Fragments for WMMA); ptxas 13.0 (measured)",
         "Measured classes: f16 .b32/.f16x2; bf16, tf32 .b32; s8/u8, s32 .b32/.s32/.u32; f32 .b32/.f32; "
         "f64 .f64/.b64; s4/u4/b1 any 32-bit class.",
         Example(body="wmma.load.a.sync.aligned.row.m16n16k16.f16 {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}, [%rd0];"),
         Example(body="wmma.load.a.sync.aligned.row.m16n16k16.f16 {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, [%rd0];"),
         ptxas="error: Arguments mismatch for instruction 'wmma.load.a'"),
    Rule("PTX0509", "wmma-stride-operand", "error",
         "the stride must be a 32-bit integer register or an immediate",
         WMMA_SECTION + ", Description",
         "stride is an optional 32-bit integer operand.",
         Example(body="wmma.load.c.sync.aligned.row.m16n16k16.f32 {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}, [%rd0], %rd1;"),
         Example(body="wmma.load.c.sync.aligned.row.m16n16k16.f32 {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}, [%rd0], %r1;"),
         ptxas="error: Arguments mismatch for instruction 'wmma.load.c'"),
    Rule("PTX0510", "wmma-outside-isa-syntax", "warning",
         "accepted by ptxas but not part of the PTX ISA's `wmma.load`",
         WMMA_SECTION + "; ptxas 13.0 (measured)",
         "The PTX ISA's grammar has no .v2/.v4/.v8, no sink in the fragment, a 32-bit stride, and .ctype "
         ".s32 only for .m8n8k32/.m8n8k128; ptxas 13.0 accepts all of these (.vN when N is the "
         "fragment's register count and N elements fit in 128 bits).",
         Example(body="wmma.load.c.sync.aligned.row.m8n8k32.f32 {%f0, %f1}, [%rd0];"),
         Example(body="wmma.load.c.sync.aligned.row.m8n8k32.s32 {%r0, %r1}, [%rd0];"),
         ptxas="accepted", isa_only=True),
    Rule("PTX0511", "wmma-stride-too-small", "warning",
         "an immediate stride below the matrix's leading dimension",
         "PTX ISA 9.7.14.4.2 (Matrix Storage for WMMA)",
         "Specifying a value lower than the default value results in undefined behavior.",
         Example(body="wmma.load.a.sync.aligned.row.m16n16k16.f16 {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, [%rd0], 8;"),
         Example(body="wmma.load.a.sync.aligned.row.m16n16k16.f16 {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, [%rd0], 32;"),
         ptxas="accepted (undefined behaviour)", isa_only=True),
    Rule("PTX0512", "wmma-stride-alignment", "warning",
         "an immediate stride that misaligns the start of rows (columns)",
         "PTX ISA 9.7.14.4.2 (Matrix Storage for WMMA)",
         "The start address of every row (column) must be aligned to the fragment size in bytes; "
         "misalignment is undefined behaviour.",
         Example(body="wmma.load.a.sync.aligned.row.m16n16k16.f16 {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, [%rd0], 20;"),
         Example(body="wmma.load.a.sync.aligned.row.m16n16k16.f16 {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, [%rd0], 32;"),
         ptxas="accepted (undefined behaviour)", isa_only=True),
    also=("PTX0209", "PTX0216", "PTX0221", "PTX0302", "PTX0303", "PTX0305", "PTX0314", "PTX0307", "PTX0308", "PTX0309", "PTX0310", "PTX0312", "PTX0315", "PTX0601", "PTX0602"))
def check_wmma_load(c: Checker, ins, m) -> None:
    q = m.quals
    for text, s, e in m.unknown:
        c.emit("PTX0501", s, e, f"`{text}` is not a qualifier of `wmma.load`", label="unknown qualifier",
               help="remove it", fix="")
    for group, text, s, e in m.repeated:
        first = q[group]
        c.emit("PTX0501", s, e, f"two {group} qualifiers: `.{first[0]}` and `{text}`", label="repeated",
               secondary=[(first[1], first[2], "first here")], help="keep one", fix="" if text[1:] == first[0] else None)
    op_end = ins.opcode_start + len(ins.opcode)
    missing = [what for g, what in _REQUIRED if g not in q]
    for what in missing:
        c.emit("PTX0502", ins.opcode_start, op_end, f"`wmma.load` needs {what}", label=f"missing {what}")
    if c.version is not None:
        rule = _spec().aligned_rule(c.version)
        if rule == "required" and "aligned" not in q:
            sync = q.get("sync")
            at = (sync[1], sync[2]) if sync else (ins.opcode_start, op_end)
            c.emit("PTX0503", *at, "`.aligned` is required from PTX ISA 6.3 on", label="needs `.aligned` after it",
                   help="write `.sync.aligned`", fix=".sync.aligned" if sync else None)
        elif rule == "forbidden" and "aligned" in q:
            a = q["aligned"]
            c.emit("PTX0503", a[1], a[2], "`.aligned` on wmma needs PTX ISA 6.3",
                   label=f"not allowed at PTX ISA {c.version[0]}.{c.version[1]}", help="remove `.aligned`", fix="")
    sp = q.get("space")
    if sp and sp[0] not in _spec().STATE_SPACES:
        c.emit("PTX0506", sp[1], sp[2], f"`wmma.load` cannot read `.{sp[0]}`", label="state space not allowed",
               help="use `.global`, `.shared` (`::cta`) or a generic address")
    spec = None
    if not missing:
        key = (m.shape, m.matrix, m.element_type)
        spec = _spec().fragment(*key) if _spec().is_legal(*key) else None
        if spec is None:
            legal = sorted({f.type for f in _spec().legal_combinations() if f.shape == m.shape and f.matrix == m.matrix})
            t = q["type"]
            c.emit("PTX0504", t[1], t[2], f"`.{m.element_type}` is not a type of matrix {m.matrix.upper()} for `.{m.shape}`",
                   label="not in the wmma.load table",
                   help=("types for this shape and matrix: " + ", ".join("." + x for x in legal)) if legal else "",
                   notes=["ptxas 13.0 reports this combination with an internal builtin-library error"]
                   if key in _PTXAS_INTERNAL else [])
        else:
            if spec.source != "isa":
                t = q["type"]
                c.emit("PTX0510", t[1], t[2],
                       f"the PTX ISA's table has no `.{m.matrix}` `.{m.element_type}` for `.{m.shape}` (ptxas accepts it)",
                       label="outside the PTX ISA's table", notes=[spec.note] if spec.note else [])
            if m.layout not in spec.layouts:
                lay = q["layout"]
                c.emit("PTX0505", lay[1], lay[2],
                       f"matrix {m.matrix.upper()} of `.{m.element_type}` must be `.{spec.layouts[0]}`",
                       label="layout not allowed", help=f"write `.{spec.layouts[0]}`", fix="." + spec.layouts[0])
            check_wmma_gates(c, spec, m, _spec().SHARED_CTA_GATE)
    _vector_qualifier(c, m, spec)
    ops = ins.operands
    if not ops:
        return
    if len(ops) < 2 or ops[1].__class__.__name__ != "Address":
        at = ops[1] if len(ops) > 1 else ops[0]
        c.emit("PTX0302", at.start, at.end, "`wmma.load` needs a fragment and an address: `r, [p]`",
               label="expected `[address]`")
        return
    if len(ops) > 3:
        c.emit("PTX0302", ops[3].start, ops[-1].end, "too many operands for `wmma.load`",
               label="unexpected operand", help="`wmma.load` takes `r, [p]` and an optional stride")
    _fragment(c, ins, m, spec)
    a = m.address
    if sp is None or sp[0] in _spec().STATE_SPACES:  # a bad state space is reported once (PTX0506)
        check_address(c, ins, a, m.space_base, m.space, ld=False)
    if a.unified and sp is not None and sp[0] != "global":
        c.emit("PTX0209", a.end - 8, a.end, f"`.unified` cannot be used with `.{sp[0]}`",
               label="only `.global` or generic", secondary=[(sp[1], sp[2], "state space")])
    elif a.unified:
        c.emit("PTX0221", a.end - 8, a.end, "the PTX ISA's `wmma.load` has no `.unified` operand",
               label="`.unified`", help="remove it", fix="")
    _stride(c, ins, m, spec)


def _vector_qualifier(c: Checker, m, spec) -> None:
    """`.v2/.v4/.v8`, outside the PTX ISA's grammar: ptxas 13.0 takes `.vN` exactly when N is the
    fragment's register count and N elements of the type fit in 128 bits (measured on every
    fragment); otherwise "Argument vector size mismatch" / "Vector type too large"."""
    vec = m.quals.get("vec")
    if not vec:
        return
    n = int(vec[0][1:])
    bits = n * _spec().ELEMENT_BITS.get(m.element_type, 0)
    if bits > 128:
        c.emit("PTX0216", vec[1], vec[2], f"`.{vec[0]}` of `.{m.element_type}` is {bits} bits wide",
               label="wider than 128 bits", help="remove it", fix="")
    elif spec is not None and n != spec.nregs:
        c.emit("PTX0507", vec[1], vec[2],
               f"`.{vec[0]}` does not match the {spec.nregs} register(s) of a `.{m.matrix}` `.{m.element_type}` "
               f"fragment of `.{m.shape}`", label=f"{spec.nregs} registers expected",
               help="remove it" + (f", or write `.v{spec.nregs}`" if spec.nregs > 1 else ""), fix="")
    else:
        c.emit("PTX0510", vec[1], vec[2], f"`.{vec[0]}` is not in the PTX ISA's `wmma.load` syntax",
               label="ignored by ptxas", help="remove it", fix="")


def _fragment(c: Checker, ins, m, spec) -> None:
    d = m.dest_operand
    if not isinstance(d, Vector):
        c.emit("PTX0305", d.start, d.end, "the fragment must be a brace list of registers `{...}`",
               label="not a vector", help=f"write `{{{d.text if isinstance(d, Name) else 'r0'}, ...}}`"
               if spec is None else f"write {spec.nregs} registers in braces")
        return
    items = d.items
    if all(isinstance(x, Sink) for x in items):
        c.emit("PTX0314", d.start, d.end, "a fragment made only of sinks loads nothing", label="only `_`",
               help="name the fragment registers")
        return
    if spec is not None and len(items) != spec.nregs:
        c.emit("PTX0507", d.start, d.end,
               f"a `.{m.matrix}` `.{m.element_type}` fragment of `.{m.shape}` has {spec.nregs} register(s), not {len(items)}",
               label=f"{len(items)} registers", help=f"use {spec.nregs} registers")
        return
    for x in items:
        if isinstance(x, Sink):
            c.emit("PTX0510", x.start, x.end, "the PTX ISA has no sink `_` in wmma fragments",
                   label="sink", help="name a register")
            continue
        if not isinstance(x, Name):
            c.emit("PTX0303", x.start, x.end, "fragment elements must be registers", label="not a register")
            continue
        var = c.lookup(ins, x.name)
        if var is None:
            continue
        if getattr(var, "kind", "") != "variable" or var.space != ".reg":
            c.emit("PTX0303", x.start, x.end, f"`{x.name}` is not a register", label="must be a `.reg` register")
            continue
        if spec is not None and var.type.lstrip(".") not in spec.register_classes:
            c.emit("PTX0508", x.start, x.end,
                   f"`{x.name}` ({var.type}) cannot hold a `.{m.element_type}` fragment element",
                   label=f"{var.type} register",
                   help="use " + " or ".join(f"`.{r}`" for r in spec.register_classes) + " registers")
            return


def _stride(c: Checker, ins, m, spec) -> None:
    st = m.stride
    if st is None:
        return
    if isinstance(st, Int):
        v = st.value
        if not 0 <= v < 2 ** 32:
            c.emit("PTX0510", st.start, st.end, f"the stride {v} is not a 32-bit unsigned value (ptxas accepts it)",
                   label="outside 32 bits")
            return
        if spec is not None and m.layout in spec.layouts:
            default = spec.default_stride(m.layout)
            if v < default:
                c.emit("PTX0511", st.start, st.end,
                       f"stride {v} is below the default {default} of this matrix (undefined behaviour)",
                       label=f"smaller than {default}", help=f"use a stride of at least {default}")
            elif not spec.stride_ok(v, m.layout):
                need = spec.stride_alignment(m.layout)
                c.emit("PTX0512", st.start, st.end,
                       f"stride {v} × {spec.element_bits / 8:g} bytes is not a multiple of {need} bytes",
                       label="misaligned rows" if m.layout == "row" else "misaligned columns",
                       help=f"use a stride whose byte size is a multiple of {need}")
        return
    if isinstance(st, Name):
        var = c.lookup(ins, st.name)
        if var is None:
            return
        t = reg_type(var)
        if t is not None and t[1] == 32 and t[0] in ("b", "u", "s"):
            return
        c.emit("PTX0509", st.start, st.end, f"the stride must be a 32-bit integer register, not `{var.type}`",
               label=f"{var.type}", help="use a `.u32`/`.b32` register or an immediate")
        return
    c.emit("PTX0509", st.start, st.end, "the stride must be a 32-bit integer register or an immediate",
           label="not a stride")
