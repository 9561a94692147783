"""Instruction parameters of wmma.load / wmma.store / wmma.mma, parsed from dotted modifiers.

ptxas accepts the qualifiers of a wmma instruction in any order, so parsing is by value set,
not by position — except where position carries meaning: the two layouts of ``wmma.mma``
(first is A's) and its type suffixes (``.dtype.ctype`` for f16, else ``.dtype.atype.btype.ctype``).
"""
from __future__ import annotations

from dataclasses import dataclass

from ptxld.spec import wmma as spec
from ptxld.wmma.errors import WmmaError

_ROUNDINGS = ("rn", "rz", "rm", "rp")


@dataclass(frozen=True)
class Requirements:
    """What a written instruction needs: minimum PTX version and target, and the PTX version
    it must stay *below* (``.aligned`` absent ⇒ PTX < 6.3; FP ``.satfinite`` ⇒ PTX ≤ 6.4)."""

    gate: spec.Gate
    ptx_below: tuple[int, int] | None = None
    notes: tuple[str, ...] = ()

    def violations(self, ptx: tuple[int, int], sm: int) -> list[str]:
        out = []
        if tuple(ptx) < self.gate.ptx:
            out.append(f"needs PTX ISA {self.gate.ptx[0]}.{self.gate.ptx[1]} or later")
        if sm < self.gate.sm:
            out.append(f"needs sm_{self.gate.sm} or later")
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
        if self.fragment.source != "seed":
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


def _split(opcode_or_modifiers: str | list[str] | tuple[str, ...]) -> list[str]:
    if isinstance(opcode_or_modifiers, str):
        parts = opcode_or_modifiers.strip().split(".")
    else:
        parts = [m.lstrip(".") for m in opcode_or_modifiers]
    return [p for p in parts if p]  # ("shared::cta" has no dot, so it stays one part)


def _one(found: list[str], what: str, text: str) -> str:
    if len(found) != 1:
        got = ", ".join("." + f for f in found) or "none"
        raise WmmaError(f"{text}: expected exactly one {what}, got {got}")
    return found[0]


def parse(opcode_or_modifiers: str | list[str] | tuple[str, ...],
          *, kind: str | None = None) -> WmmaMemParams | WmmaMmaParams:
    """Parse ``"wmma.load.a.sync.aligned.row.m16n16k16.f16"`` or its modifier list
    (``["a", "sync", "aligned", "row", "m16n16k16", "f16"]``; then ``kind`` says
    ``"load"``/``"store"``/``"mma"``, default ``"load"``). Raises ``WmmaError``."""
    parts = _split(opcode_or_modifiers)
    if parts[:1] == ["wmma"]:
        parts = parts[1:]
        if not parts or parts[0] not in ("load", "store", "mma"):
            raise WmmaError(f"unknown wmma instruction {'.'.join(['wmma'] + parts)!r}")
        kind, parts = parts[0], parts[1:]
    kind = kind or "load"
    text = ".".join(["wmma", kind] + parts)
    if "sync" not in parts:
        raise WmmaError(f"{text}: .sync is mandatory")
    rest = [p for p in parts if p not in ("sync", "aligned")]
    aligned = "aligned" in parts
    if kind == "mma":
        return _parse_mma(rest, aligned, text)
    return _parse_mem(kind, rest, aligned, text)


def _parse_mem(kind: str, rest: list[str], aligned: bool, text: str) -> WmmaMemParams:
    matrices = ("a", "b", "c") if kind == "load" else ("d",)
    matrix = _one([p for p in rest if p in spec.MATRICES], "matrix selector "
                  + "/".join("." + m for m in matrices), text)
    if matrix not in matrices:
        raise WmmaError(f"{text}: wmma.{kind} takes .{'/.'.join(matrices)}, not .{matrix}")
    layout = _one([p for p in rest if p in spec.LAYOUTS], "layout (.row/.col)", text)
    shape = _one([p for p in rest if p in spec.SHAPES], "shape", text)
    spaces = [p for p in rest if p.startswith(("global", "shared", "local", "const", "param"))]
    if len(spaces) > 1:
        raise WmmaError(f"{text}: more than one state space")
    space = spaces[0] if spaces else None
    if space is not None and space not in spec.STATE_SPACES:
        raise WmmaError(f"{text}: state space .{space} is not allowed for wmma "
                        f"(use .global, .shared, .shared::cta or generic addressing)")
    type_ = _one([p for p in rest if p in spec.ELEMENT_BITS], "element type", text)
    known = {matrix, layout, shape, type_, space, *spec.ACCEPTED_EXTRA_QUALIFIERS}
    unknown = [p for p in rest if p not in known]
    if unknown:
        raise WmmaError(f"{text}: unknown qualifier(s) {', '.join('.' + u for u in unknown)}")
    if not spec.is_legal(shape, matrix, type_):
        raise WmmaError(f"{text}: no .{matrix} fragment of type .{type_} for .{shape}")
    allowed = spec.fragment(shape, matrix, type_).layouts
    if layout not in allowed:
        raise WmmaError(f"{text}: .{type_} matrix {matrix.upper()} must be .{allowed[0]}")
    return WmmaMemParams(kind, matrix, shape, type_, layout, space, aligned)


def _parse_mma(rest: list[str], aligned: bool, text: str) -> WmmaMmaParams:
    layouts = [p for p in rest if p in spec.LAYOUTS]
    if len(layouts) != 2:
        raise WmmaError(f"{text}: expected two layouts (.alayout.blayout)")
    shape = _one([p for p in rest if p in spec.SHAPES], "shape", text)
    types = [p for p in rest if p in spec.ELEMENT_BITS]
    satfinite = "satfinite" in rest
    roundings = [p for p in rest if p in _ROUNDINGS]
    rounding = roundings[0] if roundings else None
    op = None
    if "popc" in rest:
        op = _one([p for p in rest if p in ("xor", "and")], "b1 operation (.xor/.and)", text)
        op += ".popc"
    known = set(layouts) | {shape, "satfinite", "popc", "xor", "and", *types, *roundings}
    unknown = [p for p in rest if p not in known]
    if unknown or len(roundings) > 1:
        raise WmmaError(f"{text}: unknown or repeated qualifier(s) "
                        f"{', '.join('.' + u for u in unknown or roundings)}")
    if len(types) == 2:
        d, c = types
        a = b = "f16"
    elif len(types) == 4:
        d, a, b, c = types
    else:
        raise WmmaError(f"{text}: expected .dtype.ctype (f16) or .dtype.atype.btype.ctype")
    params = WmmaMmaParams(shape, layouts[0], layouts[1], a, b, c, d, satfinite, rounding, op,
                           aligned)
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
