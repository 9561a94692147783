"""PTX01xx: the module header (`.version`, `.target`, `.address_size`) and declaration types."""
from __future__ import annotations

import re

from .. import patterns
from ..ptx.nodes import Instruction
from ..spec import targets
from ..spec.ld import GATES
from ..spec.opcodes import DIRECTIVES, MNEMONICS
from ..spec.types import REGISTER_TYPE_GATES, REGISTER_TYPES
from .context import Checker, fmt_version
from .registry import PTXAS_MEASURED, Example, Rule, Trigger, reports, rule, whole_module

# Targets ptxas 13.0 accepts before the release table's version (measured): target -> first
# .version ptxas accepts. Below the table's version they are a warning (PTX0112): the PTX ISA's rule, not ptxas's.
PTXAS_EARLY_TARGETS = {"sm_88": (7, 3)}
# a `.reg` declaration whose type is not a plain register type (one without a gate)
_UNPLAIN_REG_DECL = patterns.compile(r"\.reg\s+(?:\.align\s+\w+\s+)?+(?:\.v\d\s+)?+(?!(?:%s)(?!\w))\.\w+" % "|".join(
    re.escape(t) for t in sorted(REGISTER_TYPES.difference(REGISTER_TYPE_GATES), key=len, reverse=True)))


@rule(Trigger.MODULE,
    Rule("PTX0101", "version-first", "error",
         "`.version` must be the first statement of the module, exactly once",
         "PTX ISA 11.1.1 (.version)",
         "The .version directive must be the first statement of every module; it may appear only once.",
         Example(module=whole_module(".target sm_90\n.version 9.0")),
         Example(module=whole_module(".version 9.0\n.target sm_90\n.address_size 64")),
         ptxas="fatal: Missing .version directive at start of file"),
    Rule("PTX0104", "target-after-version", "error",
         "`.target` must immediately follow `.version`",
         "PTX ISA 11.1.2 (.target)",
         "The .target directive must immediately follow the .version directive.",
         Example(module=whole_module(".version 9.0\n.address_size 64\n.target sm_90")),
         Example(module=whole_module(".version 9.0\n.target sm_90\n.address_size 64")),
         ptxas="fatal: Missing .target directive at start of file"),
    Rule("PTX0107", "address-size-placement", "error",
         "`.address_size` must immediately follow `.target`, once",
         "PTX ISA 11.1.3 (.address_size)",
         "If present, .address_size must immediately follow the .target directive and may not be "
         "redefined.",
         Example(module=whole_module(".version 9.0\n.target sm_90\n.address_size 64\n.address_size 64")),
         Example(module=whole_module(".version 9.0\n.target sm_90\n.address_size 64")),
         ptxas="fatal: Parsing error near '.address_size': syntax error"),
    Rule("PTX0108", "address-size-32", "error",
         "ptxas 13.0 no longer compiles 32-bit modules (`.address_size 32`)",
         PTXAS_MEASURED,
         "Measured: `.address_size 32` gives `32-Bit compilation is no longer supported` (below "
         "sm_90) or `32-Bit ABI ... not supported on sm_90 or higher architectures`.",
         Example(module=whole_module(".version 9.0\n.target sm_90\n.address_size 32")),
         Example(module=whole_module(".version 9.0\n.target sm_90\n.address_size 64")),
         ptxas="fatal: 32-Bit ABI (--machine 32 or 32-Bit addressing) is not supported on sm_90 or higher"),
    also=("PTX0102", "PTX0103", "PTX0105", "PTX0106", "PTX0110", "PTX0112", "PTX0113", "PTX0114", "PTX0115", "PTX0316", "PTX0601", "PTX0602"))
def check_header(c: Checker) -> None:
    m = c.module
    items = [it for it in m.items]
    header = []  # leading .version/.target/.address_size directives in order
    for it in items:
        if getattr(it, "kind", None) == "directive" and it.name in (".version", ".target", ".address_size"):
            header.append(it)
        else:
            break
    first = items[0] if items else None
    versions = [it for it in items if _is(it, ".version")]
    if not versions or first is None or not (_is(first, ".version")):
        at = first.start if first is not None else 0
        secondary = []
        if _is(first, ".target") and len(items) > 1:
            # ptxas reads the statement after a leading `.target` before it complains
            secondary = [(first.start, first.start + len(".target"), "`.target` before `.version`")]
            at = items[1].start
        c.emit("PTX0101", at, at + 1, "the module does not start with `.version`",
               label="`.version` expected first" if first is not None else "", secondary=secondary,
               help="start the module with `.version 9.0` (or the version it is written for)")
    for extra in versions[1:]:
        c.emit("PTX0101", extra.start, extra.start + len(".version"), "`.version` is given twice",
               label="second `.version`", secondary=[(versions[0].start, versions[0].start + 8, "first here")])
    if versions and m.version is not None:
        _check_version(c, versions[0])
    # .target right after .version
    if versions and first is versions[0]:
        second = items[1] if len(items) > 1 else None
        if second is None or not (_is(second, ".target")):
            at = second.start if second is not None else versions[0].end
            c.emit("PTX0104", at, at + 1, "`.target` must come right after `.version`",
                   label="found this instead" if second is not None else "",
                   help="add `.target sm_XX` on the line after `.version`")
    leading = True  # `.version` followed by one or more `.target`s
    for i, it in enumerate(items):
        if _is(it, ".target"):
            if i > 0 and not leading:  # ptxas: "Parsing error near '.target'"
                c.emit("PTX0104", it.start, it.start + len(".target"),
                       "`.target` can only follow `.version` (or another `.target`)",
                       label="misplaced `.target`", help="remove it, or move it right after `.version`")
            _check_target(c, it)
        elif i > 0:
            leading = False
    _check_directive_names(c)
    sizes = [it for it in items if _is(it, ".address_size")]
    for i, it in enumerate(sizes):
        idx = items.index(it)
        prev = items[idx - 1] if idx > 0 else None
        if i > 0:
            # the span is the whole directive, so that the fix removes all of it
            c.emit("PTX0107", it.start, it.end, "`.address_size` is given twice",
                   label="redefined here", secondary=[(sizes[0].start, sizes[0].start + 13, "first here")],
                   help="remove this line", fix="")
        elif (prev is None or not (_is(prev, ".target"))) and not any(
                d.code == "PTX0104" for d in c.diags):
            c.emit("PTX0107", it.start, it.start + len(".address_size"),
                   "`.address_size` must come right after `.target`", label="not right after `.target`")
        if m.version is not None and m.version < (2, 3):
            c.emit("PTX0601", it.start, it.start + len(".address_size"),
                   f"`.address_size` needs PTX ISA 2.3; the module is {fmt_version(m.version)}",
                   notes=["PTX ISA 11.1.3: .address_size introduced in PTX ISA version 2.3"])
        if it.args == ["32"] and i == 0:
            c.emit("PTX0108", it.start, it.end, "ptxas 13.0 does not compile 32-bit modules",
                   label="32-bit addressing", help="use `.address_size 64`",
                   notes=["`.address_size 32` is valid PTX, but CUDA 13 removed 32-bit compilation"])
    _check_declarations(c)
    if ".unified" in c.source.text:
        _check_unified_declarations(c)


def _is(item, name: str) -> bool:
    return getattr(item, "kind", None) == "directive" and item.name == name


@reports(
    Rule("PTX0102", "version-unknown", "error",
         "`.version` names no PTX ISA version",
         "PTX ISA 11.1.1 (.version), 13 (release notes)",
         "The PTX ISA versions are those of the release notes (1.0 ... 9.4).",
         Example(module=whole_module(".version 5.5\n.target sm_60\n.address_size 64")),
         Example(module=whole_module(".version 5.0\n.target sm_60\n.address_size 64")),
         ptxas="fatal: Unsupported .version 5.5; current version is '9.0'"),
    Rule("PTX0103", "version-newer-than-ptxas", "warning",
         "PTX ISA 9.1 and later are checked from the spec tables; ptxas 13.0 stops at 9.0",
         "PTX ISA 13 (release notes)",
         "ptxas 13.0 (CUDA 13.0) supports PTX ISA up to 9.0; PTX 9.1 and later need a newer ptxas.",
         Example(module=whole_module(".version 9.1\n.target sm_90\n.address_size 64")),
         Example(module=whole_module(".version 9.0\n.target sm_90\n.address_size 64")),
         ptxas="fatal: Unsupported .version 9.1; current version is '9.0'",
         explanation="The module is checked against the PTX ISA tables for its version, so later "
                     "features (e.g. `ld.volatile.local`, PTX 9.1) are accepted; the warning says that "
                     "the ptxas of CUDA 13.0 cannot assemble it."))
def _check_version(c: Checker, d) -> None:
    v = c.module.version
    span = (d.start, d.end)
    if v not in targets.PTX_VERSIONS:
        known = ", ".join(fmt_version(x) for x in targets.PTX_VERSIONS[-6:])
        c.emit("PTX0102", *span, f"PTX ISA {fmt_version(v)} does not exist", label="unknown version",
               notes=[f"the latest versions are {known}"])
    elif v > targets.LATEST_PTAS_VERSION:
        c.emit("PTX0103", *span,
               f"PTX ISA {fmt_version(v)} is newer than ptxas 13.0 supports "
               f"({fmt_version(targets.LATEST_PTAS_VERSION)})",
               label="checked from the PTX ISA tables",
               help=f"use `.version {fmt_version(targets.LATEST_PTAS_VERSION)}` to assemble with CUDA 13.0")


@reports(
    Rule("PTX0105", "target-unknown", "error",
         "`.target` names an unknown architecture or platform option",
         "PTX ISA 11.1.2 (.target)",
         "The .target values are the sm_xx/compute_xx architectures of the release notes and the "
         "options texmode_unified, texmode_independent, debug and map_f64_to_f32.",
         Example(module=whole_module(".version 9.0\n.target sm_99\n.address_size 64")),
         Example(module=whole_module(".version 9.0\n.target sm_90\n.address_size 64")),
         ptxas="fatal: Unsupported .target 'sm_99'"),
    Rule("PTX0106", "target-not-in-version", "error",
         "the `.version` of the module does not admit this target",
         "PTX ISA 11.1.2 (.target), 13 (release notes)",
         "A .target value is valid only if the module's .version is at least the version that "
         "introduced it (sm_101* were renamed sm_110* in PTX ISA 9.0).",
         Example(module=whole_module(".version 7.0\n.target sm_90\n.address_size 64")),
         Example(module=whole_module(".version 7.8\n.target sm_90\n.address_size 64")),
         ptxas="error: PTX .version 7.0 does not support .target sm_90"),
    Rule("PTX0110", "target-renamed", "warning",
         "`sm_101`, `sm_101f` and `sm_101a` are called `sm_110`, `sm_110f`, `sm_110a` from PTX ISA 9.0",
         "PTX ISA 13 (release notes, PTX ISA 9.0)",
         "sm_101* were renamed sm_110* from PTX ISA 9.0 and dropped from its target list; ptxas 13.0 "
         "still accepts the old name.",
         Example(module=whole_module(".version 9.0\n.target sm_101a\n.address_size 64")),
         Example(module=whole_module(".version 9.0\n.target sm_110a\n.address_size 64")),
         ptxas="accepted (with -arch=sm_110a)", isa_only=True),
    Rule("PTX0112", "target-before-release-table", "warning",
         "the release table admits this target only from a later PTX ISA version; ptxas 13.0 "
         "accepts it already",
         "PTX ISA 11.1.2 (.target), 13 (release notes); ptxas 13.0",
         "The release notes add sm_88 in PTX ISA 9.0; ptxas 13.0 accepts `.target sm_88` from "
         "`.version 7.3` on (measured at every version).",
         Example(module=whole_module(".version 8.8\n.target sm_88\n.address_size 64")),
         Example(module=whole_module(".version 9.0\n.target sm_88\n.address_size 64")),
         ptxas="accepted", isa_only=True),
    Rule("PTX0114", "target-list-syntax", "error",
         "`.target` takes the architecture first, then options, separated by single commas",
         "PTX ISA 11.1.2 (.target)",
         ".target stringlist — a comma-separated list of one architecture and platform options; "
         "ptxas 13.0 rejects a missing comma, an empty entry and an option before the architecture.",
         Example(module=whole_module(".version 9.0\n.target sm_90 texmode_unified\n.address_size 64")),
         Example(module=whole_module(".version 9.0\n.target sm_90, texmode_unified\n.address_size 64")),
         ptxas="fatal: Parsing error near 'texmode_unified': syntax error (option first: Target "
               "architecture not defined at start of file)"),
    Rule("PTX0115", "target-option-unsupported", "error",
         "a `.target` option ptxas 13.0 cannot honour for this module",
         "PTX ISA 11.1.2 (.target); ptxas 13.0",
         "map_f64_to_f32 applies to targets below sm_13 only; `debug` needs the module's DWARF "
         "sections (measured: any `.section` satisfies ptxas, none is an error).",
         Example(module=whole_module(".version 9.0\n.target sm_90, debug\n.address_size 64")),
         Example(module=whole_module(".version 9.0\n.target sm_90\n.address_size 64")),
         ptxas="error: Debug information not found in presence of .target debug"))
def _check_target(c: Checker, d) -> None:
    text = c.source.text
    v = c.module.version
    pos = d.start + len(".target")
    arch = None
    for i, arg in enumerate(d.args):
        s = text.find(arg, pos, d.end)
        if s < 0:
            s = d.start
        e = s + len(arg)
        if not _target_separator(c, d, i, text[pos:s], s, e):
            return
        pos = e
        if targets.parse_target(arg) is not None:
            arch = targets.parse_target(arg)
        elif arg in targets.PLATFORM_OPTIONS and i == 0:
            c.emit("PTX0114", s, e, f"the `.target` list must start with the architecture, not `{arg}`",
                   label="option first", help="write `.target sm_XX, " + arg + "`")
            return
        if arg == "map_f64_to_f32" and arch is not None and arch.number >= 13:
            c.emit("PTX0115", s, e, f"`map_f64_to_f32` is not supported on `{arch.name}`",
                   label="only for targets below sm_13", help="remove it", fix="")
            continue
        if arg == "debug" and not any(_is(it, ".section") for it in c.module.items):
            c.emit("PTX0115", s, e, "`.target debug` needs DWARF sections (`.section .debug_info` ...)",
                   label="no `.section` in the module",
                   help="remove `debug`, or let the compiler emit the debug sections (`-G`)",
                   notes=["ptxas 13.0: Debug information not found in presence of .target debug"])
            continue
        if arg in targets.PLATFORM_OPTIONS:
            need = targets.PLATFORM_OPTIONS[arg]
            if v is not None and v < need:
                c.emit("PTX0106", s, e, f"`{arg}` needs PTX ISA {fmt_version(need)}",
                       label=f"introduced in PTX ISA {fmt_version(need)}")
            continue
        tgt = targets.parse_target(arg)
        name = tgt.name if tgt else arg
        intro = targets.target_min_version(name)
        if tgt is None or intro is None:
            c.emit("PTX0105", s, e, f"unknown target `{arg}`", label="not an architecture or option",
                   help="targets look like `sm_90`, `sm_90a`, `sm_100f`")
            continue
        if v is None:
            continue
        if name in targets.RENAMED_FROM_9_0 and v >= (9, 0):
            new = targets.RENAMED_FROM_9_0[name]
            c.emit("PTX0110", s, e, f"`{name}` was renamed `{new}` in PTX ISA 9.0",
                   label="old name", help=f"write `{new}`", fix=new if arg == name else None)
        elif v < intro and v >= PTXAS_EARLY_TARGETS.get(name, intro):
            c.emit("PTX0112", s, e,
                   f"the release table introduces `.target {arg}` in PTX ISA {fmt_version(intro)}; "
                   f"the module is {fmt_version(v)}",
                   label=f"ptxas 13.0 accepts it from PTX ISA {fmt_version(PTXAS_EARLY_TARGETS[name])}",
                   help=f"use `.version {fmt_version(intro)}` or later for portable PTX")
        elif v < intro:
            c.emit("PTX0106", s, e,
                   f"PTX ISA {fmt_version(v)} does not support `.target {arg}`",
                   label=f"introduced in PTX ISA {fmt_version(intro)}",
                   help=f"use `.version {fmt_version(intro)}` or later")


def _target_separator(c: Checker, d, i: int, between: str, s: int, e: int) -> bool:
    """`.target` entries are separated by exactly one comma; False after reporting."""
    commas = between.count(",")
    if i == 0 or commas == 1:
        return True
    if commas == 0:
        c.emit("PTX0114", s, e, "`.target` entries are separated by commas", label="comma missing before this",
               help=f"write `, {c.source.text[s:e]}`")
    else:
        c.emit("PTX0114", s, e, "an empty entry in the `.target` list", label="after an extra comma",
               help="remove the extra comma")
    return False


@reports(
    Rule("PTX0113", "unknown-directive", "error",
         "a statement starts with a `.name` that is no PTX directive (an instruction written with a dot)",
         "PTX ISA 4.3 (Table 3, PTX directives)",
         "Directive keywords begin with a dot; instruction keywords do not. ptxas rejects any other "
         "`.name` at the start of a statement as a syntax error.",
         Example(body=".ld.global.u32 %r1, [%rd0];"),
         Example(body="ld.global.u32 %r1, [%rd0];"),
         ptxas="fatal: Parsing error near '.ld': syntax error"))
def _check_directive_names(c: Checker) -> None:
    """A statement that starts with an unknown `.name` (e.g. `.ld.global.u32`): ptxas's syntax error."""
    for it in _statements(c.module):
        if getattr(it, "kind", None) == "directive" and it.name not in DIRECTIVES:
            name = it.name
            ins = MNEMONICS.__contains__(name[1:].split(".")[0])
            c.emit("PTX0113", it.start, it.start + len(name), f"`{name}` is not a PTX directive",
                   label="unknown directive",
                   help=f"instructions are written without a leading dot: `{name[1:]}`" if ins else "",
                   fix=name[1:] if ins else None)


@reports(
    Rule("PTX0316", "register-type-invalid", "error",
         "not a type a register can be declared with",
         "PTX ISA 5.2.1, 5.2.3 (fundamental and alternate types)",
         "Registers have a fundamental type; .bf16, .tf32 and the fp8/fp6/fp4 formats are instruction "
         "types only and live in .b registers.",
         Example(body=".reg .bf16 %x;\nld.global.b16 %x, [%rd0];"),
         Example(body=".reg .b16 %x;\nld.global.b16 %x, [%rd0];"),
         ptxas="fatal: Parsing error near '.bf16': syntax error"))
def _check_declarations(c: Checker) -> None:
    """Register types: fundamental types only; `.b128`/`.f16x2` registers are gated."""
    def visit(var):
        if var.space != ".reg":
            return
        t = var.type
        if t not in REGISTER_TYPES:
            if t.startswith("."):
                s = c.source.text.find(t, var.start, var.end)
                s = var.start if s < 0 else s
                c.emit("PTX0316", s, s + len(t), f"`{t}` is not a register type",
                       label="not a fundamental type",
                       help="declare the register `.b16`/`.b32` (alternate formats live in bit-size registers)"
                       if t in (".bf16", ".bf16x2", ".tf32") else "")
            return
        gate = REGISTER_TYPE_GATES.get(t)
        if gate:
            ptx, sm = gate
            s = c.source.text.find(t, var.start, var.end)
            s = var.start if s < 0 else s
            if ptx and c.version is not None and c.version < ptx:
                c.emit("PTX0601", s, s + len(t),
                       f"`{t}` registers need PTX ISA {fmt_version(ptx)}; the module is {fmt_version(c.version)}",
                       label=f"PTX ISA {fmt_version(ptx)} feature")
            if sm and c.sm is not None and c.sm < sm:
                c.emit("PTX0602", s, s + len(t),
                       f"`{t}` registers need sm_{sm}; the module targets {c.target.name}",
                       label=f"sm_{sm} feature")
    plain = REGISTER_TYPES.difference(REGISTER_TYPE_GATES)
    # A C-speed scan of the text first: most modules declare only plain register types.
    if _UNPLAIN_REG_DECL.search(c.source.text) is None:
        return
    seen = set()
    for it in _statements(c.module):
        kind = getattr(it, "kind", None)
        if kind == "function":
            declared = it.params + it.returns
        elif kind == "variable":
            declared = (it,)
        else:
            continue
        for v in declared:
            if v.space == ".reg" and v.type not in plain and id(v) not in seen:
                seen.add(id(v))
                visit(v)


def _check_unified_declarations(c: Checker) -> None:
    """`.attribute(.unified)` variables: PTX ISA 8.0 and sm_90 (ptxas checks these, A3)."""
    g = GATES[".unified"]
    for v in c.module.items:
        if getattr(v, "kind", None) != "variable" or not any(a.startswith(".unified") for a in v.attributes):
            continue
        s = c.source.text.find(".unified", v.start, v.end)
        s = v.start if s < 0 else s
        if c.version is not None and c.version < g.min_ptx:
            c.emit("PTX0601", s, s + 8, f"`.unified` variables need PTX ISA {fmt_version(g.min_ptx)}; "
                   f"the module is {fmt_version(c.version)}", label="PTX ISA 8.0 feature", notes=[g.source])
        if c.sm is not None and c.sm < g.min_sm:
            c.emit("PTX0602", s, s + 8, f"`.unified` variables need sm_{g.min_sm}; the module targets "
                   f"{c.target.name}", label=f"sm_{g.min_sm} feature", notes=[g.source])


def _statements(module) -> list:
    """Every statement of the module and of its function bodies and blocks, but the instructions
    (most of a module's statements, and no rule here reads them)."""
    out = []
    stack = [module.items]
    while stack:
        for it in stack.pop():
            if it.__class__ is Instruction:
                continue
            out.append(it)
            kind = getattr(it, "kind", None)
            if kind == "function":
                if it.body is not None:
                    stack.append(it.body.items)
            elif kind == "block":
                stack.append(it.items)
    return out
