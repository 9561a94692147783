"""PTX types as data: one record per type (PTX ISA 5.2 "Types").

Every part of ptxld that needs a type's width, kind, register class or NumPy storage reads it
here: the parser and checker (declarations, Table 28 type checking), the emulator (raw-bit
storage of registers, ALU lanes), explain and SASS lowering.
"""
from __future__ import annotations



class PtxType:
    """One PTX type.

    ``kind`` is how arithmetic sees it: ``b`` untyped bits, ``u``/``s`` integers, ``f`` floating
    point of any format, ``pred``, or ``packed`` (``lanes`` elements of type ``lane`` in one
    register, element 0 in the low-order bits, PTX ISA 5.2.5). ``cls`` is the class that
    operand type checking compares (PTX ISA 9.4.1, Table 28): ``b``, ``u``, ``s``, ``f`` for the
    IEEE formats f16/f32/f64, and a class of its own for every other format (``bf``, ``tf``,
    ``e4m3``, …) and every packed type (``f16x2``, …).
    """
    # a plain class, not a dataclass: the checker's start-up reads this table
    __slots__ = ("name", "bits", "kind", "cls", "lane", "lanes", "register")

    def __init__(self, name: str, bits: int, kind: str, cls: str, lane: str = "", lanes: int = 1, *,
                 register: bool = False):
        # register: may be declared as a `.reg` (PTX ISA 5.2.1 and ptxas 13.0)
        self.name, self.bits, self.kind, self.cls = name, bits, kind, cls
        self.lane, self.lanes, self.register = lane, lanes, register

    def __repr__(self) -> str:
        return f"PtxType({self.name!r}, {self.bits}, {self.kind!r})"

    @property
    def storage(self) -> str:
        """NumPy dtype name of a value's raw bits: bool for `.pred`, uint8..uint64 by width (a
        `.b128` value is two uint64 words, low word first; 4-bit types sit in a uint8). A name,
        not a dtype: the checker never imports NumPy."""
        if self.kind == "pred":
            return "bool"
        return f"uint{max(8, min(self.bits, 64))}"

    @property
    def dtype(self):
        """`storage` as a NumPy dtype."""
        # NumPy is imported here, not at module level: the checker reads this table and never
        # needs NumPy, whose import would double its start-up time.
        import numpy
        return numpy.dtype(self.storage)

    @property
    def signed(self) -> bool:
        return self.kind == "s"

    @property
    def is_float(self) -> bool:
        return self.kind == "f" or (self.kind == "packed" and TYPES[self.lane].kind == "f")

    @property
    def kind_bits(self) -> tuple[str, int]:
        """(class, width): what Table 28 type checking compares."""
        return self.cls, self.bits


def _table() -> dict[str, PtxType]:
    t: dict[str, PtxType] = {".pred": PtxType(".pred", 1, "pred", "pred", register=True)}
    for w in (8, 16, 32, 64):
        for k in "bus":
            t[f".{k}{w}"] = PtxType(f".{k}{w}", w, k, k, register=True)
    t[".b128"] = PtxType(".b128", 128, "b", "b", register=True)
    for name, w, cls, reg in ((".f16", 16, "f", True), (".f32", 32, "f", True), (".f64", 64, "f", True),
                              (".bf16", 16, "bf", False), (".tf32", 32, "tf", False),
                              (".e4m3", 8, "e4m3", False), (".e5m2", 8, "e5m2", False),
                              (".e2m3", 8, "e2m3", False), (".e3m2", 8, "e3m2", False),
                              (".e2m1", 4, "e2m1", False), (".ue8m0", 8, "ue8m0", False)):
        t[name] = PtxType(name, w, "f", cls, register=reg)
    for name, lane, n in ((".f16x2", ".f16", 2), (".bf16x2", ".bf16", 2), (".u16x2", ".u16", 2),
                          (".s16x2", ".s16", 2), (".u8x4", ".u8", 4), (".s8x4", ".s8", 4),
                          (".e4m3x2", ".e4m3", 2), (".e5m2x2", ".e5m2", 2), (".e2m3x2", ".e2m3", 2),
                          (".e3m2x2", ".e3m2", 2), (".e2m1x2", ".e2m1", 2), (".ue8m0x2", ".ue8m0", 2),
                          (".f32x2", ".f32", 2)):
        bits = t[lane].bits * n
        t[name] = PtxType(name, bits, "packed", name[1:], lane, n, register=name == ".f16x2")
    return t


TYPES: dict[str, PtxType] = _table()

#: Register types whose declaration is gated (PTX ISA 5.2; measured with ptxas 13.0):
#: type -> (min PTX version or None, min sm).
REGISTER_TYPE_GATES: dict[str, tuple[tuple[int, int] | None, int]] = {
    ".b128": ((8, 3), 70), ".f16x2": (None, 53)}
#: Types a `.reg` may be declared with.
REGISTER_TYPES: frozenset[str] = frozenset(n for n, t in TYPES.items() if t.register)


def bits(name: str) -> int:
    return TYPES[name].bits


# (class, width) of a type for Table 28 checks, or None for a name that is not a type: a dict's
# own `get`, since the checker asks for every register it looks at
_KIND_BITS: dict[str, tuple[str, int]] = {name: t.kind_bits for name, t in TYPES.items()}
kind_bits = _KIND_BITS.get
