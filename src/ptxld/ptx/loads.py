"""Typed models of the load family: `ld`, `ld.global.nc` and `wmma.load`.

The qualifier vocabulary comes from `ptxld.spec.ld` / `ptxld.spec.wmma`; qualifiers may appear in
any order (ptxas accepts that). Anything not in the vocabulary is kept in `unknown`, and a group
given twice in `repeated`, for the checker to report.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..spec import ld as LD
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


class LdOpcode:
    """What an `ld` opcode string says, worked out once per distinct string (real code repeats a
    handful of opcodes thousands of times): its qualifier slots, with offsets from the opcode's
    start, and the facts the rules ask for."""
    __slots__ = ("quals", "unknown", "repeated", "space_base", "vec", "vector_length", "type",
                 "type_bits", "access_bits", "is_256_bit")

    def __init__(self, opcode: str):
        quals: dict[str, tuple[str, int, int]] = {}
        self.unknown: list[tuple[str, int, int]] = []
        self.repeated: list[tuple[str, str, int, int]] = []
        parts = opcode.split(".")
        pos = len(parts[0])
        for p in parts[1:]:
            text, s, e = "." + p, pos, pos + 1 + len(p)
            pos = e
            g = LD.GROUP_OF.get(text)
            if g is None:
                self.unknown.append((text, s, e))
            elif g in quals:
                self.repeated.append((g, text, s, e))
            else:
                quals[g] = (text, s, e)
        self.quals = quals
        space = quals.get("space")
        self.space_base = LD.SPACE_BASE[space[0]] if space else None
        vec = quals.get("vec")
        self.vec = vec[0] if vec else None
        self.vector_length = LD.VECTOR_LENGTH.get(self.vec or "", 1)
        t = quals.get("type")
        self.type = t[0] if t else None
        self.type_bits = LD.type_bits(self.type) if self.type else None
        self.access_bits = self.type_bits * self.vector_length if self.type_bits else None
        self.is_256_bit = self.access_bits == 256 and self.vec in (".v8", ".v4")


_LD_OPCODES: dict[str, LdOpcode] = {}


def ld_opcode(opcode: str) -> LdOpcode:
    got = _LD_OPCODES.get(opcode)
    if got is None:
        if len(_LD_OPCODES) >= 4096:  # garbage input can spell endless opcodes
            _LD_OPCODES.clear()
        got = _LD_OPCODES[opcode] = LdOpcode(opcode)
    return got


@dataclass(slots=True, eq=False)
class LoadModel(_Load):
    """One `ld` / `ld.global.nc` instruction, slot by slot (slot names = `spec.ld.GROUPS`)."""
    cache_policy: object = None
    opcode: LdOpcode | None = None   # the facts shared by every instruction with this opcode

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
        return self.opcode.space_base

    @property
    def vec(self) -> str | None:
        return self.opcode.vec

    @property
    def type(self) -> str | None:
        return self.opcode.type

    @property
    def vector_length(self) -> int:
        return self.opcode.vector_length

    @property
    def type_bits(self) -> int | None:
        return self.opcode.type_bits

    @property
    def access_bits(self) -> int | None:
        """Bits moved by the whole access (vector length x type width)."""
        return self.opcode.access_bits

    @property
    def is_256_bit(self) -> bool:
        return self.opcode.is_256_bit

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


_WMMA_GROUP: dict[str, str] = {}


def _wmma_groups() -> dict[str, str]:
    """wmma modifier -> group (built on first use: most modules have no wmma)."""
    if not _WMMA_GROUP:
        from ..spec import wmma as W
        groups = {m: "matrix" for m in ("a", "b", "c")}
        groups.update({"sync": "sync", "aligned": "aligned"})
        groups.update({x: "layout" for x in W.LAYOUTS})
        groups.update({x: "shape" for x in W.SHAPES})
        groups.update({x: "space" for x in W.STATE_SPACES + ("shared::cluster", "const", "local", "param")})
        groups.update({x: "type" for x in W.ELEMENT_BITS})
        groups.update({x: "vec" for x in ("v2", "v4", "v8")})
        _WMMA_GROUP.update(groups)
    return _WMMA_GROUP


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
    op = ld_opcode(ins.opcode)
    b = ins.opcode_start
    model = LoadModel(ins, {g: (t, s + b, e + b) for g, (t, s, e) in op.quals.items()},
                      [(t, s + b, e + b) for t, s, e in op.unknown],
                      [(g, t, s + b, e + b) for g, t, s, e in op.repeated], opcode=op)
    model.cache_policy = _fill_operands(model, ins)
    return model


def _wmma_model(ins: Instruction) -> WmmaLoadModel:
    model = WmmaLoadModel(ins, {})
    mods = ins.modifiers
    group_of = _wmma_groups()
    # mods[0] is `.load`
    for text, s, e in mods[1:]:
        g = group_of.get(text[1:])
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
