"""Instruction parameters of wmma.load / wmma.store / wmma.mma, from the decoded opcode.

The decoder (`ptxld.spec.decode`) places qualifiers by value, in any order ptxas accepts; where
position carries meaning — ``wmma.mma``'s two layouts (A's first) and its type suffixes
(``.dtype.ctype`` for f16, else ``.dtype.atype.btype.ctype``) — the slots keep the written order.
"""
from __future__ import annotations

from dataclasses import dataclass

from ptxld.spec import wmma as spec
from ptxld.spec.decode import Decoded, decode
from ptxld.wmma.errors import WmmaError


@dataclass(frozen=True)
class Requirements:
    """What a written instruction needs: minimum PTX version and target, and the PTX version
    it must stay *below* (``.aligned`` absent ⇒ PTX < 6.3; FP ``.satfinite`` ⇒ PTX ≤ 6.4)."""

    gate: spec.Gate
    ptx_below: tuple[int, int] | None = None
    notes: tuple[str, ...] = ()

    def violations(self, ptx: tuple[int, int], sm: int) -> list[str]:
        out = self.gate.violations(ptx, sm)
        if self.ptx_below and tuple(ptx) >= self.ptx_below:
            out.append(f"needs PTX ISA below {self.ptx_below[0]}.{self.ptx_below[1]}")
        return out


@dataclass(frozen=True)
class WmmaMemParams:
    """wmma.load.{a,b,c} or wmma.store.d."""

    op: str  # "load" | "store"
    matrix: str
    shape: str
    type: str
    layout: str
    space: str | None = None  # None = generic addressing
    aligned: bool = True

    @property
    def fragment(self) -> spec.FragmentSpec:
        return spec.fragment(self.shape, self.matrix, self.type)

    @property
    def opcode(self) -> str:
        parts = ["wmma", self.op, self.matrix, "sync"] + (["aligned"] if self.aligned else [])
        parts += [self.layout, self.shape] + ([self.space] if self.space else []) + [self.type]
        return ".".join(parts)

    def requirements(self) -> Requirements:
        gate, notes = self.fragment.gate, []
        if self.space == "shared::cta":
            gate = gate.join(spec.SHARED_CTA_GATE)
        below = None
        if self.aligned:
            gate = gate.join(spec.Gate(spec.ALIGNED_FROM_PTX, 0))
        else:
            below = spec.ALIGNED_FROM_PTX
            notes.append(".aligned is required from PTX ISA 6.3 on")
        if self.fragment.source != "isa":
            notes.append(f"{self.fragment.source}: {self.fragment.note}")
        return Requirements(gate, below, tuple(notes))


@dataclass(frozen=True)
class WmmaMmaParams:
    """wmma.mma.sync{.aligned}.alayout.blayout.shape... D = A·B + C."""

    shape: str
    alayout: str
    blayout: str
    atype: str
    btype: str
    ctype: str
    dtype: str
    satfinite: bool = False
    rounding: str | None = None  # f64 only; None = default .rn
    op: str | None = None  # "xor.popc" | "and.popc"
    aligned: bool = True

    @property
    def spec(self) -> spec.MmaSpec:
        return spec.mma(self.shape, self.atype, self.btype, self.ctype, self.dtype, self.op)

    def requirements(self) -> Requirements:
        s = self.spec
        gate, below, notes = s.gate, None, []
        if self.aligned:
            gate = gate.join(spec.Gate(spec.ALIGNED_FROM_PTX, 0))
        else:
            below = spec.ALIGNED_FROM_PTX
        if self.satfinite and s.satfinite_last_ptx:
            last = s.satfinite_last_ptx
            below = min(below or (99, 0), (last[0], last[1] + 1))
            notes.append(".satfinite on floating-point wmma.mma was removed in PTX ISA 6.5")
        return Requirements(gate, below, tuple(notes))


def _decoded(opcode_or_modifiers: str | list[str] | tuple[str, ...], kind: str | None) -> Decoded:
    """The opcode, read by the one decoder; a modifier list is spelled out first."""
    if isinstance(opcode_or_modifiers, str):
        text = opcode_or_modifiers.strip()
        if not text.startswith("wmma."):
            text = f"wmma.{kind or 'load'}." + text.lstrip(".")
    else:
        mods = [m.lstrip(".") for m in opcode_or_modifiers if m.strip(".")]
        if mods[:1] == ["wmma"]:
            mods = mods[1:]
        if mods[:1] not in (["load"], ["store"], ["mma"]):
            mods = [kind or "load"] + mods
        text = ".".join(["wmma"] + mods)
    return decode(text)


def _bare(q: tuple[str, int, int] | None) -> str | None:
    """A slot's value without its dot (the wmma tables name them so)."""
    return q[0][1:] if q else None


def parse(opcode_or_modifiers: str | list[str] | tuple[str, ...],
          *, kind: str | None = None) -> WmmaMemParams | WmmaMmaParams:
    """Parse ``"wmma.load.a.sync.aligned.row.m16n16k16.f16"`` or its modifier list
    (``["a", "sync", "aligned", "row", "m16n16k16", "f16"]``; then ``kind`` says
    ``"load"``/``"store"``/``"mma"``, default ``"load"``). Raises ``WmmaError``."""
    d = _decoded(opcode_or_modifiers, kind)
    text = d.opcode
    if d.name not in ("wmma.load", "wmma.store", "wmma.mma"):
        raise WmmaError(f"unknown wmma instruction {text!r}")
    if "sync" not in d.slots:
        raise WmmaError(f"{text}: .sync is mandatory")
    if d.name == "wmma.mma":
        return _parse_mma(d, text)
    return _parse_mem(d, text)


def _one(d: Decoded, group: str, what: str, text: str) -> str:
    value = _bare(d.slots.get(group))
    twice = [t for g, t, _, _ in d.repeated if g == group]
    if value is None or twice:
        got = ", ".join(([d.slots[group][0]] if value else []) + twice) or "none"
        raise WmmaError(f"{text}: expected exactly one {what}, got {got}")
    return value


def _parse_mem(d: Decoded, text: str) -> WmmaMemParams:
    kind = d.name.split(".")[1]
    matrices = ("a", "b", "c") if kind == "load" else ("d",)
    strays = [t[1:] for t, _, _ in d.others]
    wrong_matrix = [m for m in strays if m in spec.MATRICES]
    if wrong_matrix:
        raise WmmaError(f"{text}: wmma.{kind} takes .{'/.'.join(matrices)}, not .{wrong_matrix[0]}")
    matrix = _one(d, "matrix", "matrix selector " + "/".join("." + m for m in matrices), text)
    layout = _one(d, "layout", "layout (.row/.col)", text)
    shape = _one(d, "shape", "shape", text)
    if any(g == "space" for g, _, _, _ in d.repeated):
        raise WmmaError(f"{text}: more than one state space")
    space = _bare(d.slots.get("space"))
    if space is not None and space not in spec.STATE_SPACES:
        raise WmmaError(f"{text}: state space .{space} is not allowed for wmma "
                        f"(use .global, .shared, .shared::cta or generic addressing)")
    type_ = _one(d, "type", "element type", text)
    extras = [_bare(d.slots.get("vec"))] if "vec" in d.slots else []
    unknown = strays + [x for x in extras if x not in spec.ACCEPTED_EXTRA_QUALIFIERS]
    if unknown:
        raise WmmaError(f"{text}: unknown qualifier(s) {', '.join('.' + u for u in unknown)}")
    if not spec.is_legal(shape, matrix, type_):
        raise WmmaError(f"{text}: no .{matrix} fragment of type .{type_} for .{shape}")
    allowed = spec.fragment(shape, matrix, type_).layouts
    if layout not in allowed:
        raise WmmaError(f"{text}: .{type_} matrix {matrix.upper()} must be .{allowed[0]}")
    return WmmaMemParams(kind, matrix, shape, type_, layout, space, "aligned" in d.slots)


def _parse_mma(d: Decoded, text: str) -> WmmaMmaParams:
    if "alayout" not in d.slots or "blayout" not in d.slots or any(
            g == "alayout" for g, _, _, _ in d.repeated):
        raise WmmaError(f"{text}: expected two layouts (.alayout.blayout)")
    shape = _one(d, "shape", "shape", text)
    types = [_bare(d.slots[g]) for g in ("type1", "type2", "type3", "type4") if g in d.slots]
    satfinite = "satfinite" in d.slots
    rounding = _bare(d.slots.get("rnd"))
    op = None
    if "popc" in d.slots:
        op = _one(d, "op", "b1 operation (.xor/.and)", text) + ".popc"
    unknown = [t[1:] for t, _, _ in d.others] + [t[1:] for g, t, _, _ in d.repeated
                                                 if g in ("rnd", "satfinite", "popc", "op", "type1")]
    if unknown:
        raise WmmaError(f"{text}: unknown or repeated qualifier(s) "
                        f"{', '.join('.' + u for u in unknown)}")
    if len(types) == 2:
        dt, c = types
        a = b = "f16"
    elif len(types) == 4:
        dt, a, b, c = types
    else:
        raise WmmaError(f"{text}: expected .dtype.ctype (f16) or .dtype.atype.btype.ctype")
    params = WmmaMmaParams(shape, _bare(d.slots["alayout"]), _bare(d.slots["blayout"]), a, b, c, dt,
                           satfinite, rounding, op, "aligned" in d.slots)
    try:
        s = params.spec
    except KeyError as e:
        raise WmmaError(f"{text}: {e.args[0]}") from None
    if params.alayout not in s.alayouts or params.blayout not in s.blayouts:
        raise WmmaError(f"{text}: .{shape} .{a} needs .{s.alayouts[0]}.{s.blayouts[0]} layouts")
    if satfinite and not s.satfinite:
        raise WmmaError(f"{text}: .satfinite is not allowed here")
    if rounding and rounding not in s.roundings:
        raise WmmaError(f"{text}: rounding .{rounding} is allowed only on .f64 wmma.mma")
    return params


def coerce(params, kind: str = "load") -> WmmaMemParams | WmmaMmaParams:
    """Accept a params object, an opcode string or a modifier list."""
    if isinstance(params, (WmmaMemParams, WmmaMmaParams)):
        return params
    return parse(params, kind=kind)
