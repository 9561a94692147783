"""PTX06xx: every {min PTX, min sm} gate of a load, from spec/ld.py GATES and spec/wmma.py."""
from __future__ import annotations

from ..spec import ld as LD
from .context import Checker, fmt_version

# `ld.mmio.acquire.sys` (PTX ISA 9.4 manual only: PTX 9.3, sm_75).
MMIO_ACQUIRE = LD.Gate("mmio.acquire", (9, 3), 75, "ld.mmio.acquire.sys: PTX ISA 9.3, sm_75 (9.4 manual).")


def ld_features(m) -> list[tuple[str, tuple[int, int]]]:
    """(gate key, span) of every gated feature an `ld` uses."""
    q = m.quals
    out = []
    t = q.get("type")
    if t:
        if t[0] == ".f64":
            out.append(("ld.f64", t[1:]))
        if t[0] == ".b128":
            out.append((".b128", t[1:]))
            sys_ = q.get("scope") if m.scope == ".sys" else q.get("mmio")
            if sys_:
                out.append((".b128.sys", sys_[1:]))
    sem = q.get("sem")
    if sem:
        if sem[0] == ".volatile":
            out.append((".volatile", sem[1:]))
            if m.space_base == ".local":
                out.append((".volatile.local", sem[1:]))
        else:
            out.append(("memory-order", sem[1:]))
    sc = q.get("scope")
    if sc:
        out.append(("memory-order", sc[1:]))
        if sc[0] == ".cluster":
            out.append((".cluster", sc[1:]))
    sp = q.get("space")
    if sp is None:
        s = m.instruction.opcode_start
        out.append(("generic", (s, s + 2)))
    elif sp[0] == ".shared::cta":
        out.append(("::cta", sp[1:]))
    elif sp[0] == ".shared::cluster":
        out.append(("::cluster", sp[1:]))
    elif sp[0] in (".param::entry", ".param::func"):
        out.append(("::entry/::func", sp[1:]))
    if "cop" in q:
        out.append((".cop", q["cop"][1:]))
    if "l1_evict" in q:
        out.append(("l1_evict", q["l1_evict"][1:]))
    p = q.get("prefetch")
    if p:
        out.append((".L2::256B" if p[0] == ".L2::256B" else "prefetch", p[1:]))
    if "cache_hint" in q:
        out.append(("cache_hint", q["cache_hint"][1:]))
    if m.mmio:
        out.append((".mmio", q["mmio"][1:]))
        if m.sem == ".acquire":
            out.append(("mmio.acquire", q["mmio"][1:]))
    if m.is_256_bit:
        out.append(("256-bit", (q["vec"][1], q["type"][2])))
    if m.nc:
        out.append(("nc", q["nc"][1:]))
    if m.address is not None and m.address.unified:
        out.append((".unified", (m.address.end - 8, m.address.end)))
    return out


def check_ld_gates(c: Checker, m) -> None:
    for key, (s, e) in ld_features(m):
        gate = MMIO_ACQUIRE if key == "mmio.acquire" else LD.GATES[key]
        _gate(c, key, gate.min_ptx, gate.min_sm, s, e, gate.source,
              note=(gate.note or "") + (" (ld.global.nc: ptxas 13.0 requires sm_80 for .L2::256B, B7)"
                                        if key == ".L2::256B" and m.nc else ""))


def check_wmma_gates(c: Checker, spec, m) -> None:
    q = m.quals
    s, e = q["type"][1], q["type"][2]
    _gate(c, f"wmma.load .{spec.type}", spec.gate.ptx, spec.gate.sm, s, e,
          "wmma.load: PTX/Target ISA notes (measured with ptxas 13.0)")
    sp = q.get("space")
    if sp and sp[0] == "shared::cta":
        from ..spec.wmma import SHARED_CTA_GATE as g
        _gate(c, "wmma.load .shared::cta", g.ptx, g.sm, sp[1], sp[2], "wmma.load `.shared::cta`: PTX ISA 7.8")


_WORDS = {"generic": "generic addressing (`ld` without a state space)", "256-bit": "a 256-bit load",
          "nc": "`ld.global.nc`", "ld.f64": "`ld.f64`", ".b128.sys": "`.b128` with `.sys`",
          ".volatile.local": "`.volatile` on `.local`", "mmio.acquire": "`ld.mmio.acquire`"}


def _gate(c: Checker, key, ptx, sm, s, e, source, note="") -> None:
    text = c.source.text[s:e]
    feature = _WORDS.get(key) or (f"`{text}`" if text.startswith(".") else f"`{key}`")
    notes = [source] + ([note] if note else [])
    seed_version = key == ".unified"           # ptxas checks neither (A3) ...
    seed_target = key in (".unified", "::cta")  # ... nor ::cta's sm_30 (A10)
    if c.version is not None and ptx and c.version < tuple(ptx):
        need = f"PTX ISA {fmt_version(ptx)}"
        if seed_version:
            c.emit("PTX0603", s, e, f"the seed requires {need} for {feature}; ptxas 13.0 does not check it",
                   label=f"seed: {need}", notes=notes)
        else:
            c.emit("PTX0601", s, e, f"{feature} needs {need}; the module is {fmt_version(c.version)}",
                   label=f"{need} feature", notes=notes, help=f"raise `.version` to {fmt_version(ptx)} or later")
    if c.sm is not None and sm and c.sm < sm:
        if seed_target:
            c.emit("PTX0603", s, e, f"the seed requires sm_{sm} for {feature}; ptxas 13.0 does not check it",
                   label=f"seed: sm_{sm}", notes=notes)
        else:
            c.emit("PTX0602", s, e, f"{feature} needs sm_{sm}; the module targets {c.target.name}",
                   label=f"sm_{sm} feature", notes=notes, help=f"raise `.target` to sm_{sm} or later")
