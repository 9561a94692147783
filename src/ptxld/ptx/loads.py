"""Typed models of the load family: `ld`, `ld.global.nc` and `wmma.load`.

The qualifier vocabulary comes from `ptxld.spec.ld` / `ptxld.spec.wmma`; qualifiers may appear in
any order (ptxas accepts that). Anything not in the vocabulary is kept in `unknown`, and a group
given twice in `repeated`, for the checker to report.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..spec import ld as LD
from ..spec import wmma as W
from .nodes import Address, Instruction, Name, Sink, Vector

Span = tuple[int, int]


@dataclass(slots=True, eq=False)
class _Load:
    """What every load-family model has: its qualifier slots and its operands."""
    instruction: Instruction
    quals: dict[str, tuple[str, int, int]]           # group -> (qualifier, start, end)
    unknown: list[tuple[str, int, int]] = field(default_factory=list)
    repeated: list[tuple[str, str, int, int]] = field(default_factory=list)
    dests: list = field(default_factory=list)        # Name | Sink, one per vector element
    dest_operand: object = None                      # the operand as written (Name or Vector)
    address: Address | None = None
    extra_operands: list = field(default_factory=list)

    def get(self, group: str) -> str | None:
        q = self.quals.get(group)
        return q[0] if q else None

    @property
    def type(self) -> str | None:
        return self.get("type")


@dataclass(slots=True, eq=False)
class LoadModel(_Load):
    """One `ld` / `ld.global.nc` instruction, slot by slot (slot names = `spec.ld.GROUPS`)."""
    cache_policy: object = None

    form = "ld"

    @property
    def nc(self) -> bool:
        return "nc" in self.quals

    @property
    def mmio(self) -> bool:
        return "mmio" in self.quals

    @property
    def sem(self) -> str | None:
        return self.get("sem")

    @property
    def scope(self) -> str | None:
        return self.get("scope")

    @property
    def space(self) -> str | None:
        """The state space as written (`.shared::cta`), None for generic addressing."""
        return self.get("space")

    @property
    def space_base(self) -> str | None:
        s = self.get("space")
        return LD.SPACE_BASE[s] if s else None

    @property
    def vec(self) -> str | None:
        return self.get("vec")

    @property
    def vector_length(self) -> int:
        return LD.VECTOR_LENGTH.get(self.get("vec") or "", 1)

    @property
    def type_bits(self) -> int | None:
        t = self.type
        return LD.type_bits(t) if t else None

    @property
    def access_bits(self) -> int | None:
        """Bits moved by the whole access (vector length x type width)."""
        tb = self.type_bits
        return tb * self.vector_length if tb else None

    @property
    def is_256_bit(self) -> bool:
        return self.access_bits == 256 and self.vec in (".v8", ".v4")

    def canonical_opcode(self) -> str:
        """The mnemonic with its qualifiers in the seeds' template order."""
        parts = ["ld"]
        for g in LD.GROUPS:
            q = self.quals.get(g)
            if q:
                parts.append(q[0][1:])
        return ".".join(parts)


@dataclass(slots=True, eq=False)
class WmmaLoadModel(_Load):
    """One `wmma.load.{a,b,c}` instruction (groups: matrix, sync, aligned, layout, shape, space,
    type, vec)."""
    stride: object = None

    form = "wmma.load"

    @property
    def matrix(self) -> str | None:
        return self.get("matrix")

    @property
    def layout(self) -> str | None:
        return self.get("layout")

    @property
    def shape(self) -> str | None:
        return self.get("shape")

    @property
    def space(self) -> str | None:
        s = self.get("space")
        return "." + s if s else None

    @property
    def space_base(self) -> str | None:
        s = self.get("space")
        return "." + s.split("::")[0] if s else None


# wmma modifier -> group
_WMMA_GROUP: dict[str, str] = {}
for _m in ("a", "b", "c"):
    _WMMA_GROUP[_m] = "matrix"
_WMMA_GROUP.update({"sync": "sync", "aligned": "aligned"})
for _l in W.LAYOUTS:
    _WMMA_GROUP[_l] = "layout"
for _s in W.SHAPES:
    _WMMA_GROUP[_s] = "shape"
for _s in W.STATE_SPACES + ("shared::cluster", "const", "local", "param"):
    _WMMA_GROUP[_s] = "space"
for _t in W.ELEMENT_BITS:
    _WMMA_GROUP[_t] = "type"
for _v in ("v2", "v4", "v8"):
    _WMMA_GROUP[_v] = "vec"


def is_load(ins: Instruction) -> bool:
    op = ins.opcode
    return op == "ld" or op.startswith("ld.") or op.startswith("wmma.load")


def model_of(ins: Instruction):
    op = ins.opcode
    if op == "ld" or op.startswith("ld."):
        return _ld_model(ins)
    if op.startswith("wmma.load"):
        return _wmma_model(ins)
    return None


def _ld_model(ins: Instruction) -> LoadModel:
    model = LoadModel(ins, {})
    for text, s, e in ins.modifiers:
        g = LD.GROUP_OF.get(text)
        if g is None:
            model.unknown.append((text, s, e))
        elif g in model.quals:
            model.repeated.append((g, text, s, e))
        else:
            model.quals[g] = (text, s, e)
    model.cache_policy = _fill_operands(model, ins)
    return model


def _wmma_model(ins: Instruction) -> WmmaLoadModel:
    model = WmmaLoadModel(ins, {})
    mods = ins.modifiers
    # mods[0] is `.load`
    for text, s, e in mods[1:]:
        g = _WMMA_GROUP.get(text[1:])
        if g is None:
            model.unknown.append((text, s, e))
        elif g in model.quals:
            model.repeated.append((g, text, s, e))
        else:
            model.quals[g] = (text[1:], s, e)
    model.stride = _fill_operands(model, ins)
    return model


def _fill_operands(model: _Load, ins: Instruction):
    """`d, [a] {, third}`: set the destinations and address; return the third operand (the
    cache policy of ld, the stride of wmma.load) or None."""
    ops = ins.operands
    if ops:
        d = ops[0]
        model.dest_operand = d
        model.dests = list(d.items) if isinstance(d, Vector) else [d]
    if len(ops) > 1 and isinstance(ops[1], Address):
        model.address = ops[1]
    model.extra_operands = ops[3:]
    return ops[2] if len(ops) > 2 else None


def describe_operand(op) -> dict:
    """A JSON-friendly view of an operand (used by `ptxld parse --json`)."""
    if isinstance(op, Name):
        return {"kind": "name", "name": op.text}
    if isinstance(op, Sink):
        return {"kind": "sink"}
    if isinstance(op, Address):
        return {"kind": "address", "mode": op.mode, "base": op.base.text if op.base else None,
                "offset": op.offset, "unified": op.unified}
    if isinstance(op, Vector):
        return {"kind": "vector", "items": [describe_operand(x) for x in op.items]}
    v = getattr(op, "value", None)
    if v is not None:
        return {"kind": type(op).__name__.lower(), "value": v}
    return {"kind": type(op).__name__.lower()}


def to_json(model) -> dict:
    ins = model.instruction
    out = {"opcode": ins.opcode, "line": ins.line, "column": ins.column, "form": model.form}
    if isinstance(model, LoadModel):
        out["form"] = "ld.global.nc" if model.nc else "ld"
        for g in LD.GROUPS:
            out[g] = model.get(g) if g not in ("nc", "mmio", "cache_hint") else g in model.quals
        out["space"] = model.space or "generic"
        out["cache_policy"] = describe_operand(model.cache_policy) if model.cache_policy else None
    else:
        for g in ("matrix", "sync", "aligned", "layout", "shape", "space", "type"):
            out[g] = model.get(g)
        out["stride"] = describe_operand(model.stride) if model.stride is not None else None
    out["guard"] = ({"negated": ins.guard.negated, "predicate": ins.guard.name.text}
                    if ins.guard else None)
    out["destinations"] = [describe_operand(d) for d in model.dests]
    out["address"] = describe_operand(model.address) if model.address else None
    out["unknown_qualifiers"] = [u[0] for u in model.unknown]
    return out
