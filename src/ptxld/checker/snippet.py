"""Loads written on their own (`ptxld explain`, SASS lowering) checked as ptxas would check them.

The instructions are placed in a kernel of the requested target, with declarations for the names
they use: registers by nvcc's naming where a name follows it (`%r1` 32-bit, `%rd1` 64-bit,
`%f1` .f32, ...), else as wide as the data they receive; an address's variable in the load's
state space. Each load gets the diagnostics of its own line.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..diagnostics import Diagnostic
from ..ptx.loads import LoadModel, WmmaLoadModel
from ..ptx.nodes import Instruction, Name
from ..ptx.parser import parse
from ..spec.targets import LATEST_PTAS_VERSION, parse_target, target_min_version
from . import check_module

#: nvcc's register names -> the type they are declared with.
REGISTER_CONVENTION = (("%rd", ".b64"), ("%fd", ".f64"), ("%rs", ".b16"), ("%rq", ".b128"),
                       ("%hh", ".b32"), ("%r", ".b32"), ("%f", ".f32"), ("%h", ".b16"),
                       ("%p", ".pred"))


class SnippetError(ValueError):
    """The text is not a list of loads."""


@dataclass
class CheckedLoads:
    source: str                                   # the kernel they were checked in
    loads: list[tuple[Instruction, list[Diagnostic]]]


def _register_type(name: str, otherwise: str) -> str:
    stem = name.rstrip("0123456789")
    if stem == name:  # `%f`, `%a`: a placeholder, not nvcc's numbered register
        return otherwise
    for prefix, t in REGISTER_CONVENTION:
        if stem == prefix:
            return t
    return otherwise


def _declarations(m, seen: set) -> list[str]:
    """Declarations for the names a load uses: registers by nvcc's naming where the name follows
    it, else as wide as the data they receive; an address's variable in the load's space."""
    if isinstance(m, WmmaLoadModel):
        data = ".b64" if m.element_type == "f64" else ".b32"
        extra, space = ".b32", m.space
    else:
        bits = m.type_bits or 32
        data = f".b{bits}" if bits >= 16 else ".b16"
        extra, space = ".b64", m.space
    out = []

    def declare(node, t):
        if isinstance(node, Name) and node.name not in seen:
            seen.add(node.name)
            out.append(f".reg {_register_type(node.name, t)} {node.name};")
    for d in m.dests:
        declare(d, data)
    a = m.address
    if a is not None and a.base is not None and a.base.name.startswith("%"):
        declare(a.base, ".b64")
    for x in m.extra_operands + ([m.cache_policy] if isinstance(m, LoadModel) else [m.stride]):
        declare(x, extra)
    guard = m.instruction.guard
    if guard is not None:
        declare(guard.name, ".pred")
    for x in m.instruction.operands:  # what is left: an address written without brackets
        declare(x, ".b64")
    a = m.address
    if a is not None and a.base is not None and a.base.name not in seen:
        seen.add(a.base.name)
        if a.base.name.startswith("%"):
            out.append(f".reg {_register_type(a.base.name, '.b64')} {a.base.name};")
        else:
            where = (space or ".global").split("::")[0]
            where = where if where in (".global", ".shared", ".const", ".local") else ".global"
            out.append(f"{where} .align 32 .b8 {a.base.name}[4096];")
    return out


def _header(target: str, address_size: int) -> str:
    t = parse_target(target)
    if t is None:
        raise SnippetError(f"unknown target {target!r} (e.g. sm_80, sm_90a)")
    version = LATEST_PTAS_VERSION
    need = target_min_version(t.name)
    if need is not None and need > version:
        version = need
    return f".version {version[0]}.{version[1]}\n.target {t.name}\n.address_size {address_size}\n"


def check_loads(text: str, *, target: str, address_size: int = 64,
                filename: str = "<snippet>") -> CheckedLoads:
    """Check each load of `text` (statements ending in `;` or newlines) for `target`."""
    lines = [x.strip().rstrip(";").strip() for x in text.replace("\n", ";").split(";")]
    lines = [x + ";" for x in lines if x and not x.startswith("//")]
    if not lines:
        raise SnippetError(f"not an instruction: {text!r}")
    head = _header(target, address_size)
    body = "\n".join(lines)
    probe = parse(f"{head}.entry k()\n{{\n{body}\n}}\n", filename=filename)
    if len(probe.instructions) != len(lines):
        bad = next((d.message for d in probe.diagnostics if d.severity == "error"), "")
        raise SnippetError(f"not a PTX instruction: {text.strip()!r}" + (f" ({bad})" if bad else ""))
    seen: set = set()
    decls: list[str] = []
    for ins in probe.instructions:
        if ins.load is None:
            raise SnippetError(f"`{ins.text.strip()}` is not a PTX load "
                               "(expected ld, ld.global.nc or wmma.load)")
        decls += _declarations(ins.load, seen)
    variables = "\n".join(x for x in decls if not x.startswith(".reg"))
    registers = "\n".join(x for x in decls if x.startswith(".reg"))
    source = f"{head}{variables}\n.visible .entry snippet_kernel()\n{{\n{registers}\n{body}\nret;\n}}\n"
    module = parse(source, filename=filename)
    diags = check_module(module)
    out = []
    for ins in module.instructions[:len(lines)]:
        out.append((ins, [d for d in diags if d.line == ins.line]))
    return CheckedLoads(source, out)
