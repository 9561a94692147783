"""`ptxld explain "INSTRUCTION"`: a load described in words, with its minimum PTX ISA and target."""
from __future__ import annotations

from ..ptx.loads import LoadModel, WmmaLoadModel
from ..ptx.nodes import Name, Sink, Vector
from ..ptx.parser import parse
from ..spec import ld as LD
from .gates import MMIO_ACQUIRE, ld_features

_SPACE = {None: "generic addressing (the address selects .global, .shared, .local, .const or .param)",
          ".global": "the .global state space", ".shared": "the .shared state space of this CTA (::cta)",
          ".shared::cta": "the .shared state space of this CTA",
          ".shared::cluster": "the .shared state space of any CTA in the cluster",
          ".local": "the thread's .local state space", ".const": "the .const state space",
          ".param": "the .param state space (::entry for kernel parameters, ::func otherwise)",
          ".param::entry": "kernel parameters (.param::entry)",
          ".param::func": "device-function parameters (.param::func)"}
_COP = {".ca": "cache at all levels (likely reused)", ".cg": "cache in L2 only, not L1",
        ".cs": "streaming: likely accessed once (evict first)", ".lu": "last use",
        ".cv": "volatile cache: fetch again, do not use cached lines"}
_SCOPE = {".cta": "the CTA", ".cluster": "the cluster", ".gpu": "the GPU", ".sys": "the whole system"}


class ExplainError(ValueError):
    pass


def explain_instruction(text: str, *, target: str = "sm_90") -> str:
    line = text.strip().rstrip(";") + ";"
    module = parse(f".version 9.0\n.target sm_90\n.address_size 64\n.entry explain_k()\n{{\n{line}\n}}\n",
                   filename="<explain>")
    if not module.instructions:
        raise ExplainError(f"not an instruction: {text!r}")
    ins = module.instructions[0]
    m = ins.load
    if isinstance(m, WmmaLoadModel):
        from ..wmma.render import describe_wmma_load
        try:
            return describe_wmma_load([x[0] for x in ins.modifiers], target)
        except Exception as e:  # WmmaError: an illegal combination
            raise ExplainError(str(e)) from None
    if not isinstance(m, LoadModel):
        raise ExplainError(f"`{ins.opcode}` is not a load; explain knows ld, ld.global.nc and wmma.load")
    return _describe_ld(ins, m)


def _describe_ld(ins, m: LoadModel) -> str:
    out = [m.canonical_opcode() + (f" {ins.operand_text.strip().rstrip(';')}" if ins.operand_text.strip() else ""), ""]
    problems = [q[0] for q in m.unknown] + [r[1] for r in m.repeated]
    if problems:
        out.append("Not a valid load: " + ", ".join(f"`{p}`" for p in problems)
                   + " (run `ptxld check` for details).")
    form = "ld.global.nc (non-coherent, read-only data path)" if m.nc else "ld"
    out.append(f"Instruction: {form}, reading {_SPACE.get(m.space, m.space)}.")
    sem = m.sem
    if m.mmio:
        out.append("Ordering: .mmio — a memory-mapped I/O access at .sys scope: performed exactly once, "
                   "not cached, in program order with other mmio operations.")
    elif sem in (".relaxed", ".acquire"):
        what = ("relaxed (strong, no ordering of other accesses)" if sem == ".relaxed" else
                "acquire (strong; later accesses of this thread cannot move before it)")
        out.append(f"Ordering: {what}, synchronizing with {_SCOPE.get(m.scope, 'a scope (missing)')}.")
    elif sem == ".volatile":
        out.append("Ordering: .volatile — like .relaxed.sys for memory order; not cached or merged.")
    elif m.nc:
        out.append("Ordering: none — ld.global.nc is outside the memory consistency model; the data must "
                   "be read-only for the kernel's lifetime.")
    else:
        out.append("Ordering: weak (the default, as .weak): no synchronization.")
    hints = []
    if m.get("cop"):
        hints.append(f"{m.get('cop')}: {_COP[m.get('cop')]}")
    for g in ("l1_evict", "l2_evict"):
        if m.get(g):
            hints.append(f"{m.get(g)}: eviction priority hint")
    if m.get("prefetch"):
        hints.append(f"{m.get('prefetch')}: also prefetch {m.get('prefetch')[5:]} into L2")
    if m.get("cache_hint"):
        hints.append(".L2::cache_hint: the 64-bit cache-policy operand guides L2 eviction")
    out.append("Caching: " + ("; ".join(hints) if hints else "default (no hints)") + ".")
    if m.type:
        kind, bits = LD.TYPES[m.type]
        n = m.vector_length
        size = bits * n // 8
        ext = {"s": "sign-extended", "u": "zero-extended", "b": "zero-extended", "f": "not extended (exact size)"}[kind]
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
    ptx, sm, why = (1, 0), 0, []
    for key, _ in ld_features(m):
        g = MMIO_ACQUIRE if key == "mmio.acquire" else LD.GATES[key]
        gsm = 30 if key == "::cta" else (g.min_sm or 0)
        if g.min_ptx > ptx or gsm > sm:
            why.append(key)
        ptx, sm = max(ptx, g.min_ptx), max(sm, gsm)
    return ptx, sm, why
