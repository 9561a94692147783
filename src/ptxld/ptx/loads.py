"""Typed models of the load family: `ld`, `ld.global.nc` and `wmma.load`.

Both are built from the one opcode decoder (`ptxld.spec.decode`) over the instruction records in
`ptxld.spec.ld` / `ptxld.spec.wmma`; qualifiers may appear in any order (ptxas accepts that).
Anything outside the record's vocabulary is kept in `unknown`, and a group given twice in
`repeated`, for the checker to report.
"""
from __future__ import annotations

from ..slotted import Node
from ..spec import ld as ld_spec
from ..spec.decode import Decoded
from .terms import Address, Name, Sink, Vector

Span = tuple[int, int]


class _Load(Node):
    """What every load-family model has: its qualifier slots and its operands."""
    __slots__ = FIELDS = ("instruction", "quals", "unknown", "repeated", "dests", "dest_operand", "address",
                          "extra_operands")

    def __init__(self, instruction: Instruction, quals: dict[str, tuple[str, int, int]],
                 unknown: list | None = None, repeated: list | None = None):
        self.instruction = instruction
        self.quals = quals                    # group -> (qualifier, start, end)
        self.unknown: list[tuple[str, int, int]] = [] if unknown is None else unknown
        self.repeated: list[tuple[str, str, int, int]] = [] if repeated is None else repeated
        self.dests: list = []                 # Name | Sink, one per vector element
        self.dest_operand = None              # the operand as written (Name or Vector)
        self.address: Address | None = None
        self.extra_operands: list = []

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.instruction.opcode!r} at {self.instruction.start})"

    def get(self, group: str) -> str | None:
        q = self.quals.get(group)
        return q[0] if q else None

    @property
    def type(self) -> str | None:
        return self.get("type")


class LdFacts:
    """What an `ld` opcode says, worked out once per distinct opcode string (real code repeats a
    handful of opcodes thousands of times): the facts the rules and the emulator ask for."""
    __slots__ = ("decoded", "space_base", "vec", "vector_length", "type", "type_bits", "access_bits",
                 "is_256_bit")

    def __init__(self, decoded: Decoded):
        self.decoded = decoded
        space = decoded.get("space")
        self.space_base = ld_spec.SPACE_BASE[space] if space else None
        self.vec = decoded.get("vec")
        self.vector_length = ld_spec.VECTOR_LENGTH.get(self.vec or "", 1)
        self.type = decoded.get("type")
        self.type_bits = ld_spec.type_bits(self.type) if self.type else None
        self.access_bits = self.type_bits * self.vector_length if self.type_bits else None
        self.is_256_bit = self.access_bits == 256 and self.vec in (".v8", ".v4")


_LD_FACTS: dict[str, LdFacts] = {}


def ld_facts(decoded: Decoded) -> LdFacts:
    got = _LD_FACTS.get(decoded.opcode)
    if got is None:
        if len(_LD_FACTS) >= 4096:  # garbage input can spell endless opcodes
            _LD_FACTS.clear()
        got = _LD_FACTS[decoded.opcode] = LdFacts(decoded)
    return got


class LoadModel(_Load):
    """One `ld` / `ld.global.nc` instruction, slot by slot (slot names = `spec.ld.GROUPS`)."""
    __slots__ = ("cache_policy", "facts")
    FIELDS = _Load.FIELDS + __slots__

    def __init__(self, instruction: Instruction, quals: dict, unknown: list | None = None,
                 repeated: list | None = None, facts: LdFacts | None = None):
        _Load.__init__(self, instruction, quals, unknown, repeated)
        self.cache_policy = None
        self.facts = facts               # shared by every instruction with this opcode

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
        return self.facts.space_base

    @property
    def vec(self) -> str | None:
        return self.facts.vec

    @property
    def type(self) -> str | None:
        return self.facts.type

    @property
    def vector_length(self) -> int:
        return self.facts.vector_length

    @property
    def type_bits(self) -> int | None:
        return self.facts.type_bits

    @property
    def access_bits(self) -> int | None:
        """Bits moved by the whole access (vector length x type width)."""
        return self.facts.access_bits

    @property
    def is_256_bit(self) -> bool:
        return self.facts.is_256_bit

    def canonical_opcode(self) -> str:
        """The mnemonic with its qualifiers in the ISA's template order."""
        parts = ["ld"]
        for g in ld_spec.GROUPS:
            q = self.quals.get(g)
            if q:
                parts.append(q[0][1:])
        return ".".join(parts)


class WmmaLoadModel(_Load):
    """One `wmma.load.{a,b,c}` instruction (groups: matrix, sync, aligned, layout, shape, space,
    type, vec)."""
    __slots__ = ("stride",)
    FIELDS = _Load.FIELDS + __slots__

    def __init__(self, instruction: Instruction, quals: dict, unknown: list | None = None,
                 repeated: list | None = None):
        _Load.__init__(self, instruction, quals, unknown, repeated)
        self.stride = None

    form = "wmma.load"

    @property
    def matrix(self) -> str | None:
        return self.get("matrix")

    @property
    def type(self) -> str | None:
        """The element type spelt as in `ld` models (`.f16`)."""
        t = self.get("type")
        return "." + t.lstrip(".") if t else None

    @property
    def element_type(self) -> str | None:
        """The element type as the wmma tables name it (`f16`)."""
        t = self.get("type")
        return t.lstrip(".") if t else None

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


def model_of(ins: Instruction):
    """The load model of an instruction, or None if it is not in the load family."""
    d = ins.decoded
    if d.name == "ld":
        return _ld_model(ins, d)
    if d.name == "wmma.load":
        return _wmma_model(ins, d)
    return None


def _absolute(d: Decoded, base: int):
    quals = {g: (t, s + base, e + base) for g, (t, s, e) in d.slots.items()}
    unknown = [(t, s + base, e + base) for t, s, e in d.others] if d.others else []
    repeated = [(g, t, s + base, e + base) for g, t, s, e in d.repeated] if d.repeated else []
    return quals, unknown, repeated


def _ld_model(ins: Instruction, d: Decoded) -> LoadModel:
    model = LoadModel(ins, *_absolute(d, ins.opcode_start), facts=ld_facts(d))
    model.cache_policy = _fill_operands(model, ins)
    return model


def _wmma_model(ins: Instruction, d: Decoded) -> WmmaLoadModel:
    quals, unknown, repeated = _absolute(d, ins.opcode_start)
    # the wmma tables (spec.wmma) name qualifiers without their dot
    model = WmmaLoadModel(ins, {g: (t[1:], s, e) for g, (t, s, e) in quals.items()}, unknown, repeated)
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
        for g in ld_spec.GROUPS:
            out[g] = model.get(g) if g not in ("nc", "mmio", "cache_hint") else g in model.quals
        out["space"] = model.space or "generic"
        out["cache_policy"] = describe_operand(model.cache_policy) if model.cache_policy else None
    else:
        for g in ("matrix", "sync", "aligned", "layout", "shape"):
            out[g] = model.get(g)
        out["space"] = model.space or "generic"   # spelt as for `ld`: `.global`, `.f16`
        out["type"] = model.type
        out["stride"] = describe_operand(model.stride) if model.stride is not None else None
    out["guard"] = ({"negated": ins.guard.negated, "predicate": ins.guard.name.text}
                    if ins.guard else None)
    out["destinations"] = [describe_operand(d) for d in model.dests]
    out["address"] = describe_operand(model.address) if model.address else None
    out["unknown_qualifiers"] = [u[0] for u in model.unknown]
    return out
