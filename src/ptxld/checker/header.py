"""PTX01xx: the module header (`.version`, `.target`, `.address_size`) and declaration types."""
from __future__ import annotations

import re

from ..spec import targets as T
from ..spec.ld import GATES
from ..spec.opcodes import DIRECTIVES, MNEMONICS
from .context import Checker, fmt_version

# Register types that are gated (PTX ISA 5.2; measured with ptxas 13.0): type -> (min PTX, min sm).
REGISTER_TYPE_GATES = {".b128": ((8, 3), 70), ".f16x2": (None, 53)}
# Fundamental types a register may be declared with (PTX ISA 5.2.1) and ptxas's opaque types.
REGISTER_TYPES = frozenset({".b8", ".b16", ".b32", ".b64", ".b128", ".u8", ".u16", ".u32", ".u64",
                            ".s8", ".s16", ".s32", ".s64", ".f16", ".f16x2", ".f32", ".f64", ".pred"})
# Targets ptxas 13.0 accepts before the release table's version (measured): target -> first
# .version ptxas accepts. Below the table's version they are a seed-only warning (PTX0112).
PTXAS_EARLY_TARGETS = {"sm_88": (7, 3)}
_REG_DECL = re.compile(r"\.reg\s+(?:\.align\s+\w+\s+)?(?:\.v\d\s+)?(\.\w+)")


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


def _check_version(c: Checker, d) -> None:
    v = c.module.version
    span = (d.start, d.end)
    if v not in T.PTX_VERSIONS:
        known = ", ".join(fmt_version(x) for x in T.PTX_VERSIONS[-6:])
        c.emit("PTX0102", *span, f"PTX ISA {fmt_version(v)} does not exist", label="unknown version",
               notes=[f"the latest versions are {known}"])
    elif v > T.LATEST_PTAS_VERSION:
        c.emit("PTX0103", *span,
               f"PTX ISA {fmt_version(v)} is newer than ptxas 13.0 supports "
               f"({fmt_version(T.LATEST_PTAS_VERSION)})",
               label="checked from the PTX ISA tables",
               help=f"use `.version {fmt_version(T.LATEST_PTAS_VERSION)}` to assemble with CUDA 13.0")


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
        if T.parse_target(arg) is not None:
            arch = T.parse_target(arg)
        elif arg in T.PLATFORM_OPTIONS and i == 0:
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
        if arg in T.PLATFORM_OPTIONS:
            need = T.PLATFORM_OPTIONS[arg]
            if v is not None and v < need:
                c.emit("PTX0106", s, e, f"`{arg}` needs PTX ISA {fmt_version(need)}",
                       label=f"introduced in PTX ISA {fmt_version(need)}")
            continue
        tgt = T.parse_target(arg)
        name = tgt.name if tgt else arg
        intro = T.target_min_version(name)
        if tgt is None or intro is None:
            c.emit("PTX0105", s, e, f"unknown target `{arg}`", label="not an architecture or option",
                   help="targets look like `sm_90`, `sm_90a`, `sm_100f`")
            continue
        if v is None:
            continue
        if name in T.RENAMED_FROM_9_0 and v >= (9, 0):
            new = T.RENAMED_FROM_9_0[name]
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


def _check_directive_names(c: Checker) -> None:
    """A statement that starts with an unknown `.name` (e.g. `.ld.global.u32`): ptxas's syntax error."""
    stack = list(c.module.items)  # a walk of the statements: ~30 ms for a 4 MB module
    while stack:
        it = stack.pop()
        k = getattr(it, "kind", None)
        if k == "directive" and it.name not in DIRECTIVES:
            name = it.name
            ins = MNEMONICS.__contains__(name[1:].split(".")[0])
            c.emit("PTX0113", it.start, it.start + len(name), f"`{name}` is not a PTX directive",
                   label="unknown directive",
                   help=f"instructions are written without a leading dot: `{name[1:]}`" if ins else "",
                   fix=name[1:] if ins else None)
        elif k == "function" and it.body is not None:
            stack.extend(it.body.items)
        elif k == "block":
            stack.extend(it.items)


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
    if all(m.group(1) in plain for m in _REG_DECL.finditer(c.source.text)):
        return
    seen = set()
    for v in _all_variables(c.module):
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


def _all_variables(module):
    stack = list(module.items)
    while stack:
        it = stack.pop()
        k = getattr(it, "kind", None)
        if k == "variable":
            yield it
        elif k == "function":
            yield from it.params
            yield from it.returns
            if it.body is not None:
                stack.extend(it.body.items)
        elif k == "block":
            stack.extend(it.items)
