"""PTX06xx: every {min PTX, min sm} gate of a load, from spec/ld.py GATES and spec/wmma.py."""
from __future__ import annotations

from ..spec import ld as ld_spec
from .context import Checker, fmt_version
from .registry import Example, Rule, Trigger, rule


def ld_features(m) -> list[tuple[str, tuple[int, int]]]:
    """(gate key, span) of every gated feature an `ld` uses (the mapping is spec.ld's)."""
    a = m.address
    ins = m.instruction
    return ld_spec.features(m.quals, space_base=m.space_base, is_256_bit=m.is_256_bit,
                       unified_span=(a.end - 8, a.end) if a is not None and a.unified else None,
                       opcode_span=(ins.opcode_start, ins.opcode_start + len(ins.opcode)))


@rule(Trigger.LD_OPCODE,
    Rule("PTX0601", "needs-newer-ptx", "error",
         "the feature needs a newer PTX ISA version than the module's `.version`",
         "PTX ISA Notes of ld, ld.global.nc, wmma.load",
         "Each feature's PTX ISA note (e.g. Support for .level::cache_hint ... introduced in PTX ISA "
         "version 7.4).",
         Example(body="ld.global.L2::cache_hint.u32 %r1, [%rd0], %rd1;", version="7.0", target="sm_80"),
         Example(body="ld.global.L2::cache_hint.u32 %r1, [%rd0], %rd1;", version="7.4", target="sm_80"),
         ptxas="error: Feature ... requires PTX ISA .version 7.4 or later"),
    Rule("PTX0602", "needs-newer-target", "error",
         "the feature needs a newer target than the module's `.target`",
         "Target ISA Notes of ld, ld.global.nc, wmma.load",
         "Each feature's target note (e.g. Support for .L2::256B and .L2::cache_hint qualifiers "
         "requires sm_80 or higher).",
         Example(body="ld.global.L2::cache_hint.u32 %r1, [%rd0], %rd1;", version="7.4", target="sm_75"),
         Example(body="ld.global.L2::cache_hint.u32 %r1, [%rd0], %rd1;", version="7.4", target="sm_80"),
         ptxas="error: Modifier '.L2::cache_hint' requires .target sm_80 or higher"),
    Rule("PTX0603", "isa-gate-not-enforced", "warning",
         "the PTX ISA states a version/target requirement that ptxas 13.0 does not enforce",
         "PTX/Target ISA Notes of ld; ptxas 13.0 (measured)",
         "Sub-qualifier ::cta requires sm_30 or higher; Support for .unified qualifier requires sm_90 "
         "(and PTX 8.0) — ptxas accepts ::cta on sm_20 and a register .unified address anywhere.",
         Example(body="ld.global.u32 %r1, [%rd0].unified;", version="7.0", target="sm_80"),
         Example(body="ld.global.u32 %r1, [%rd0];", version="7.0", target="sm_80"),
         ptxas="accepted", isa_only=True))
def check_ld_gates(c: Checker, ins, m) -> None:
    for key, (s, e) in ld_features(m):
        gate = ld_spec.GATES[key]
        extra = ["ld.global.nc: " + ld_spec.GATES["nc.prefetch"].note] if key == ".L2::256B" and m.nc else []
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
    unchecked_version = not gate.ptxas_checks_ptx
    unchecked_target = not gate.ptxas_checks_sm
    if c.version is not None and ptx and c.version < tuple(ptx):
        need = f"PTX ISA {fmt_version(ptx)}"
        if unchecked_version:
            c.emit("PTX0603", s, e, f"the PTX ISA requires {need} for {feature}; ptxas 13.0 does not check it",
                   label=f"PTX ISA: {need}", notes=notes)
        else:
            c.emit("PTX0601", s, e, f"{feature} needs {need}; the module is {fmt_version(c.version)}",
                   label=f"{need} feature", notes=notes, help=f"raise `.version` to {fmt_version(ptx)} or later")
    if c.sm is not None and sm and c.sm < sm:
        if unchecked_target:
            c.emit("PTX0603", s, e, f"the PTX ISA requires sm_{sm} for {feature}; ptxas 13.0 does not check it",
                   label=f"PTX ISA: sm_{sm}", notes=notes)
        else:
            c.emit("PTX0602", s, e, f"{feature} needs sm_{sm}; the module targets {c.target.name}",
                   label=f"sm_{sm} feature", notes=notes, help=f"raise `.target` to sm_{sm} or later")
