"""`ptxld explain "INSTRUCTION"`: a load described in words, with its minimum PTX ISA and target.

The instruction is checked first, in a kernel of the requested target whose registers follow
nvcc's naming (`%r` 32-bit, `%rd` 64-bit, `%f` .f32, ...): an illegal load is reported with its
diagnostics, never described as if it were valid. Everything said about the load comes from the
one load model and the spec's tables.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .. import lazy
from ..diagnostics import Diagnostic
from ..ptx.loads import LoadModel, WmmaLoadModel
from ..ptx.nodes import Name, Sink, Vector
from ..spec import ld as ld_spec
from ..spec.decode import decode
from ..spec.targets import DEFAULT_TARGET
from ..wmma.errors import WmmaError
from ..wmma.matrix_render import EXPLAINED as MATRIX_EXPLAINED
from ..wmma.matrix_render import describe as describe_matrix
from ..spec.types import kind_bits
from .gates import ld_features
from .snippet import SnippetError, check_loads

# diagnostics that do not stop the description: the load is valid PTX, for another target
_GATE_CODES = ("PTX0601", "PTX0602", "PTX0603")


class ExplainError(ValueError):
    pass


@dataclass
class Explanation:
    """What `explain` found: the diagnostics of the instruction (errors first in the output),
    and its description (empty when the instruction is not a valid load)."""
    diagnostics: list[Diagnostic] = field(default_factory=list)
    text: str = ""
    source: str = ""          # the kernel the instruction was checked in (for rendering)
    model: object = None      # the LoadModel / WmmaLoadModel

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "error"]




def explain_instruction(text: str, *, target: str | None = None) -> Explanation:
    """Check one load for `target` (default: DEFAULT_TARGET) and describe it."""
    if "\n" in text.strip():
        raise ExplainError("explain takes one instruction")
    words = text.strip().split()
    if words and decode(words[0]).name in MATRIX_EXPLAINED:
        return _explain_matrix(words[0], target)
    try:
        checked = check_loads(text, target=target or DEFAULT_TARGET, filename="<explain>")
    except SnippetError as e:
        raise ExplainError(str(e)) from None
    if len(checked.loads) != 1:
        raise ExplainError("explain takes one instruction")
    ins, diags = checked.loads[0]
    out = Explanation(diags, "", checked.source, ins.load)
    if any(d.code not in _GATE_CODES for d in out.errors) or ins.load is None:
        return out
    m = ins.load
    if isinstance(m, WmmaLoadModel):
        out.text = lazy.load("ptxld.wmma.render").describe_wmma_load(ins.opcode, target or DEFAULT_TARGET)
    else:
        out.text = _describe_ld(ins, m)
    return out


def _explain_matrix(opcode: str, target: str | None) -> Explanation:
    """mma.sync, ldmatrix, stmatrix, movmatrix, wgmma.mma_async: the operation and its fragment
    tables (the model is the {name: layout} the pictures draw)."""
    try:
        text, layouts = describe_matrix(opcode, target or DEFAULT_TARGET)
    except WmmaError as e:
        raise ExplainError(str(e)) from None
    return Explanation([], text if text.endswith("\n") else text + "\n", "", layouts)


def _describe_ld(ins, m: LoadModel) -> str:
    operands = ins.operand_text.strip().rstrip(";")
    out = [m.canonical_opcode() + (f" {operands}" if operands else ""), ""]
    form = "ld.global.nc (non-coherent, read-only data path)" if m.nc else "ld"
    space = m.space or "generic"
    out.append(f"Instruction: {form}, reading {ld_spec.DESCRIPTIONS.get(space, space)}.")
    sem = m.sem
    if m.mmio:
        out.append("Ordering: .mmio — a memory-mapped I/O access at .sys scope: performed exactly once, "
                   "not cached, in program order with other mmio operations.")
    elif sem in (".relaxed", ".acquire"):
        what = ("relaxed (strong, no ordering of other accesses)" if sem == ".relaxed" else
                "acquire (strong; later accesses of this thread cannot move before it)")
        out.append(f"Ordering: {what}, synchronizing with {ld_spec.DESCRIPTIONS[m.scope]}.")
    elif sem == ".volatile":
        out.append("Ordering: .volatile — like .relaxed.sys for memory order; not cached or merged.")
    elif m.nc:
        out.append("Ordering: none — ld.global.nc is outside the memory consistency model; the data must "
                   "be read-only for the kernel's lifetime.")
    else:
        out.append("Ordering: weak (the default, as .weak): no synchronization.")
    hints = []
    if m.get("cop"):
        hints.append(f"{m.get('cop')}: {ld_spec.DESCRIPTIONS[m.get('cop')]}")
    for g in ("l1_evict", "l2_evict"):
        if m.get(g):
            hints.append(f"{m.get(g)}: eviction priority hint")
    if m.get("prefetch"):
        hints.append(f"{m.get('prefetch')}: also prefetch {m.get('prefetch')[5:]} into L2")
    if m.get("cache_hint"):
        hints.append(".L2::cache_hint: the 64-bit cache-policy operand guides L2 eviction")
    out.append("Caching: " + ("; ".join(hints) if hints else "default (no hints)") + ".")
    kind, bits = kind_bits(m.type)
    n = m.vector_length
    size = bits * n // 8
    ext = {"s": "sign-extended", "u": "zero-extended", "b": "zero-extended"}.get(kind, "not extended (exact size)")
    out.append(f"Width: {n} × {m.type} = {size} byte(s) ({bits * n} bits); must be {size}-byte aligned.")
    out.append(f"Into a wider register the value is {ext} (Table 28).")
    names = _dest_names(m)
    step = bits // 8
    for i in range(n):
        dest = names[i] if i < len(names) else f"element {i}"
        where = "not read (sink)" if dest == "_" else f"→ {dest}"
        out.append(f"  bytes {i * step}..{(i + 1) * step - 1} {where}")
    ptx, sm, why = _minimum(m)
    out.append(f"Canonical order: {m.canonical_opcode()}")
    out.append(f"Requires: PTX ISA {ptx[0]}.{ptx[1]} and {'sm_' + str(sm) if sm else 'any target'}"
               + (f" (for {', '.join(why)})" if why else "") + ".")
    return "\n".join(out) + "\n"


def _dest_names(m) -> list[str]:
    d = m.dest_operand
    items = d.items if isinstance(d, Vector) else ([d] if d is not None else [])
    return ["_" if isinstance(x, Sink) else (x.text if isinstance(x, Name) else "?") for x in items]


def _minimum(m):
    """The least PTX version and target of every gate the load passes through (the gates that
    ptxas does not enforce included: this says what the ISA requires)."""
    ptx, sm, why = (1, 0), 0, []
    for key, _ in ld_features(m):
        g = ld_spec.GATES[key]
        gsm = g.min_sm or 0
        if g.min_ptx > ptx or gsm > sm:
            why.append(key)
        ptx, sm = max(ptx, g.min_ptx), max(sm, gsm)
    return ptx, sm, why
