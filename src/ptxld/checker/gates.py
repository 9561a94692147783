"""PTX06xx: every {min PTX, min sm} gate of a load, from spec/ld.py GATES and spec/wmma.py."""
from __future__ import annotations

from ..spec import ld as LD
from .context import Checker, fmt_version


def ld_features(m) -> list[tuple[str, tuple[int, int]]]:
    """(gate key, span) of every gated feature an `ld` uses (the mapping is spec.ld's)."""
    a = m.address
    ins = m.instruction
    return LD.features(m.quals, space_base=m.space_base, is_256_bit=m.is_256_bit,
                       unified_span=(a.end - 8, a.end) if a is not None and a.unified else None,
                       opcode_span=(ins.opcode_start, ins.opcode_start + len(ins.opcode)))


def check_ld_gates(c: Checker, m) -> None:
    for key, (s, e) in ld_features(m):
        gate = LD.GATES[key]
        extra = ["ld.global.nc: " + LD.GATES["nc.prefetch"].note] if key == ".L2::256B" and m.nc else []
        _gate(c, key, gate, s, e, gate.source, [gate.note] + extra if gate.note else extra)


def check_wmma_gates(c: Checker, spec, m, shared_cta_gate) -> None:
    """The fragment's gate, and `.shared::cta`'s (`shared_cta_gate`: the caller has spec.wmma)."""
    q = m.quals
    s, e = q["type"][1], q["type"][2]
    _gate(c, f"wmma.load .{spec.type}", spec.gate, s, e,
          "wmma.load: PTX/Target ISA notes (measured with ptxas 13.0)")
    sp = q.get("space")
    if sp and sp[0] == "shared::cta":
        _gate(c, "wmma.load .shared::cta", shared_cta_gate, sp[1], sp[2], "wmma.load `.shared::cta`: PTX ISA 7.8")


_WORDS = {"generic": "generic addressing (`ld` without a state space)", "256-bit": "a 256-bit load",
          "nc": "`ld.global.nc`", "ld.f64": "`ld.f64`", ".b128.sys": "`.b128` with `.sys`",
          ".volatile.local": "`.volatile` on `.local`", "mmio.acquire": "`ld.mmio.acquire`"}


def _gate(c: Checker, key, gate, s, e, source, more_notes=()) -> None:
    text = c.source.text[s:e]
    feature = _WORDS.get(key) or (f"`{text}`" if text.startswith(".") else f"`{key}`")
    notes = [source, *more_notes]
    ptx, sm = gate.min_ptx, gate.min_sm
    seed_version = not gate.ptxas_checks_ptx
    seed_target = not gate.ptxas_checks_sm
    if c.version is not None and ptx and c.version < tuple(ptx):
        need = f"PTX ISA {fmt_version(ptx)}"
        if seed_version:
            c.emit("PTX0603", s, e, f"the PTX ISA requires {need} for {feature}; ptxas 13.0 does not check it",
                   label=f"PTX ISA: {need}", notes=notes)
        else:
            c.emit("PTX0601", s, e, f"{feature} needs {need}; the module is {fmt_version(c.version)}",
                   label=f"{need} feature", notes=notes, help=f"raise `.version` to {fmt_version(ptx)} or later")
    if c.sm is not None and sm and c.sm < sm:
        if seed_target:
            c.emit("PTX0603", s, e, f"the PTX ISA requires sm_{sm} for {feature}; ptxas 13.0 does not check it",
                   label=f"PTX ISA: sm_{sm}", notes=notes)
        else:
            c.emit("PTX0602", s, e, f"{feature} needs sm_{sm}; the module targets {c.target.name}",
                   label=f"sm_{sm} feature", notes=notes, help=f"raise `.target` to sm_{sm} or later")
