"""SASS text for LDG / LD: parse any accepted spelling, print exactly as nvdisasm 12.8 prints.

Accepted input (printing is always the canonical nvdisasm form):
  [maxas control] [@[!]Pg] LDG|LD[.E][.cop][.sz] [Ps,] Rd, [Ra+imm] [, Px] [annotations] [;]
* modifiers in any order; ``.32`` and ``.CA`` are the defaults; ``.CS``/``.LU`` alias ``.CA``/``.CG``;
* addresses ``[R4]``, ``[R4+0x10]``, ``[R4+-0x10]``, ``[R4-0x10]``, ``[R4 + 16]``, ``[0x10]``, ``[RZ]``;
* scheduling: ``&req={0,5} &rd=0x0 &wr=0x5 ?trans1`` / ``?WAIT1_END_GROUP`` after the operands, or
  maxas's ``wait:read:write:yield:stall`` (e.g. ``--:-:6:-:1``) before the instruction.
"""
from __future__ import annotations

import re

from ptxld.spec import ldg as spec
from ptxld.sass import control
from ptxld.sass.encoding import FORM_BY_NAME, LdgInstruction, imm_range, signed_hex
from ptxld.sass.errors import SassError

_MODIFIER_GROUPS = {
    "E": ("e", True),
    **{c: ("cop", c) for c in (*spec.COPS, *spec.COP_ALIASES)},
    **{s: ("size", s) for s in spec.SIZES},
}
_REG = re.compile(r"^R(Z|\d+)$", re.I)
_PRED = re.compile(r"^(!?)P(T|[0-6])$", re.I)
_ADDR = re.compile(r"^\[\s*(?:(R(?:Z|\d+))\s*)?(?:((?:\+|-)?\s*-?\s*(?:0x[0-9a-f]+|\d+)))?\s*\]$", re.I)


# ---------------------------------------------------------------------------------------------
# printing

def format_instruction(insn: LdgInstruction, slot: control.Slot | None = None) -> str:
    """The canonical text, as nvdisasm prints it (optionally followed by scheduling annotations)."""
    guard = ""
    if insn.pred != spec.PT or insn.pred_neg:
        guard = f"@{'!' if insn.pred_neg else ''}{_pred(insn.pred)} "
    mods = insn.mnemonic + (".E" if insn.e else "")
    cop = spec.COP_ALIASES.get(insn.cop, insn.cop)
    if cop != spec.DEFAULT_COP:
        mods += "." + cop
    if insn.size != spec.DEFAULT_SIZE:
        mods += "." + insn.size
    operands = []
    if insn.form == "ldg_sparse":
        operands.append(_pred(spec.PT if insn.ps is None else insn.ps))
    operands += [_reg(insn.rd), format_address(insn.ra, insn.imm)]
    if insn.form == "ld" and insn.p is not None and insn.p != spec.PT:
        operands.append(_pred(insn.p))
    text = f"{guard}{mods} {', '.join(operands)}"
    if slot is not None:
        text += " " + control.format_annotations(slot)
    return text


def format_address(ra: int, imm: int) -> str:
    if ra == spec.RZ:
        return f"[{imm:#x}]" if imm else "[RZ]"
    if imm == 0:
        return f"[{_reg(ra)}]"
    return f"[{_reg(ra)}+{signed_hex(imm)}]"


def _reg(r: int) -> str:
    return "RZ" if r == spec.RZ else f"R{r}"


def _pred(p: int) -> str:
    return "PT" if p == spec.PT else f"P{p}"


# ---------------------------------------------------------------------------------------------
# parsing

def parse_instruction(text: str) -> tuple[LdgInstruction, control.Slot | None]:
    """Parse one LDG/LD line; returns the instruction and its scheduling slot (None if absent)."""
    src = text
    s = text.strip()
    s = re.sub(r"//.*$|/\*.*?\*/", "", s).strip()
    s = s.lstrip("{").strip()          # nvdisasm's dual-issue braces
    for _ in range(2):
        s = s.rstrip(";").strip()
        if s.endswith("}") and s.count("}") > s.count("{"):
            s = s[:-1].strip()
    if not s:
        raise SassError(f"empty instruction: {src!r}")
    slot = None
    m = re.match(r"^(\S+:\S+:\S+:\S+:\S+)\s+", s)
    if m:
        slot = control.parse_maxas(m.group(1))
        s = s[m.end():]
    # scheduling annotations (&req=..., &rd=..., &wr=..., ?sched) follow the operands
    ann = re.search(r"\s(&|\?)", " " + s)
    if ann:
        cut = ann.start() - 1 if ann.start() > 0 else 0
        ann_text, s = s[cut:].strip(), s[:cut].strip()
        slot = control.parse_annotations(ann_text, base=slot)
    m = re.match(r"^@(!?)(\S+)\s+", s)
    pred, pred_neg = spec.PT, False
    if m:
        pred, pred_neg = _parse_pred(m.group(2), src, "guard predicate"), bool(m.group(1))
        s = s[m.end():]
    m = re.match(r"^([A-Za-z]+)((?:\.[A-Za-z0-9]+)*)\s*(.*)$", s)
    if not m:
        raise SassError(f"cannot read an instruction in {src!r}")
    mnemonic = m.group(1).upper()
    if mnemonic not in ("LDG", "LD"):
        raise SassError(f"{src!r}: only LDG and LD are supported, not {m.group(1)!r}")
    fields: dict = {}
    mods = [x for x in m.group(2).split(".") if x]
    i = 0
    while i < len(mods):
        mod = mods[i].upper()
        if mod == "U" and i + 1 < len(mods) and mods[i + 1] == "128":
            mod, i = "U.128", i + 1
        if mod not in _MODIFIER_GROUPS:
            raise SassError(f"{src!r}: unknown modifier .{mods[i]} (known: .E, "
                            f".{', .'.join(spec.COPS + tuple(spec.COP_ALIASES))}, "
                            f".{', .'.join(spec.SIZES)})")
        key, value = _MODIFIER_GROUPS[mod]
        if key in fields:
            raise SassError(f"{src!r}: more than one {'cache operator' if key == 'cop' else key} "
                            f"modifier")
        fields[key] = value
        i += 1
    operands = _split_operands(m.group(3), src)
    form = "ld" if mnemonic == "LD" else "ldg"
    ps = p = None
    if form == "ldg" and operands and _PRED.match(operands[0]):
        form, ps = "ldg_sparse", _parse_pred(operands.pop(0), src, "sparse predicate Ps")
    if form == "ld" and operands and _PRED.match(operands[-1]):
        p = _parse_pred(operands.pop(), src, "predicate operand")
    if len(operands) != 2:
        raise SassError(f"{src!r}: expected operands Rd, [Ra+imm]"
                        f"{' with an optional Ps before them' if form != 'ld' else ''}")
    rd = _parse_reg(operands[0], src)
    ra, imm = _parse_address(operands[1], src, FORM_BY_NAME[form])
    insn = LdgInstruction(form=form, rd=rd, ra=ra, imm=imm, pred=pred, pred_neg=pred_neg,
                       ps=ps, p=p, **fields)
    return insn, slot


def _split_operands(s: str, src: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if depth:
        raise SassError(f"{src!r}: unbalanced brackets in the address")
    if cur.strip():
        out.append(cur.strip())
    return out


def _parse_reg(tok: str, src: str) -> int:
    m = _REG.match(tok.strip())
    if not m:
        raise SassError(f"{src!r}: {tok!r} is not a register (R0..R254 or RZ)")
    if m.group(1).upper() == "Z":
        return spec.RZ
    r = int(m.group(1))
    if r >= spec.RZ:
        raise SassError(f"{src!r}: register R{r} does not exist (R0..R254, RZ)")
    return r


def _parse_pred(tok: str, src: str, what: str) -> int:
    m = _PRED.match(tok.strip())
    if not m or m.group(1):
        raise SassError(f"{src!r}: {what} {tok!r} must be P0..P6 or PT")
    return spec.PT if m.group(2).upper() == "T" else int(m.group(2))


def _parse_address(tok: str, src: str, form) -> tuple[int, int]:
    m = _ADDR.match(tok.strip())
    if not m:
        raise SassError(f"{src!r}: address {tok!r} must look like [Ra], [Ra+imm], [Ra-imm] "
                        f"or [imm]")
    ra = _parse_reg(m.group(1), src) if m.group(1) else spec.RZ
    imm = 0
    if m.group(1) and m.group(2) and m.group(2).lstrip()[0] not in "+-":
        raise SassError(f"{src!r}: address {tok!r} needs + or - between register and offset")
    if m.group(2):
        t = re.sub(r"\s+", "", m.group(2))
        neg = t.count("-") % 2 == 1
        t = t.replace("+", "").replace("-", "")
        if ra == spec.RZ and m.group(1) is None and neg:
            raise SassError(f"{src!r}: an absolute address [{m.group(2)}] cannot be negative")
        imm = int(t, 0) * (-1 if neg else 1)
    lo, hi = imm_range(form, ra == spec.RZ)
    if not lo <= imm <= hi:
        kind = "absolute address (ImmU" if ra == spec.RZ else "offset (ImmS"
        raise SassError(f"{src!r}: {kind}{form.imm_bits}) {signed_hex(imm)} is outside "
                        f"[{signed_hex(lo)}, {signed_hex(hi)}]")
    return ra, imm
