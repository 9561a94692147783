"""WMMA (``wmma.load`` / ``wmma.store`` / ``wmma.mma``) as data: the single source of truth.

Everything a parser, validator, emulator, test generator or documentation page needs to know
about which WMMA combinations exist is in the tables below; nothing else in ptxld repeats them.

Sources: the PTX ISA wmma sections (§9.7.14.4.x: fragments, storage, wmma.load/store/mma and
their PTX/Target ISA notes) and what ptxas 13.0 was measured to accept (fragment register
counts, register classes, layout rules, version/target gates, the ``.aligned`` rule, and the
``.c .f32`` loads for ``.m8n8k32``/``.m8n8k128`` that ptxas accepts although the manual's table
does not list them — marked ``source="ptxas extension"``).

Query API::

    fragment(shape, matrix, type) -> FragmentSpec        # raises KeyError if illegal
    is_legal(shape, matrix, type, layout=None) -> bool
    legal_combinations() -> tuple[FragmentSpec, ...]      # every (shape, matrix, type)
    mma(shape, atype, btype, ctype, dtype, op=None) -> MmaSpec
    mma_combinations() -> tuple[MmaSpec, ...]
    aligned_rule(ptx_version) -> "required" | "forbidden"

Conventions: ``matrix`` is ``"a" | "b" | "c" | "d"`` (``c`` is what ``wmma.load.c`` loads,
``d`` what ``wmma.store.d`` stores; their fragments are identical). PTX versions are
``(major, minor)`` tuples; targets are the ``sm_XX`` number (70 for ``sm_70``).
"""
from __future__ import annotations

from ..slotted import Record
from .gates import Gate
from .isa import Group, InstructionSpec

# --------------------------------------------------------------------------------------------
# Basic vocabulary

#: ``.mMnNkK`` → (M, N, K).  A is M×K, B is K×N, C and D are M×N.
SHAPES: dict[str, tuple[int, int, int]] = {
    "m16n16k16": (16, 16, 16),
    "m8n32k16": (8, 32, 16),
    "m32n8k16": (32, 8, 16),
    "m16n16k8": (16, 16, 8),
    "m8n8k4": (8, 8, 4),
    "m8n8k32": (8, 8, 32),
    "m8n8k128": (8, 8, 128),
}

#: Element width in bits (tf32 occupies a 32-bit container in memory and in registers).
ELEMENT_BITS: dict[str, int] = {
    "f16": 16, "bf16": 16, "tf32": 32, "f32": 32, "f64": 64,
    "s8": 8, "u8": 8, "s4": 4, "u4": 4, "b1": 1, "s32": 32,
}

MATRICES = ("a", "b", "c", "d")
LAYOUTS = ("row", "col")
#: State spaces wmma.load/store accept (none written = generic addressing). ``.shared::cluster``
#: is rejected by ptxas ("State space incorrect").
STATE_SPACES = ("global", "shared", "shared::cta")
#: Qualifiers ptxas accepts on wmma.load although the grammar lacks them; they change nothing.
ACCEPTED_EXTRA_QUALIFIERS = ("v8",)

# Register classes ptxas 13.0 accepts in the fragment brace list (measured).
_F16_REGS = ("b32", "f16x2")
_B32_ONLY = ("b32",)
_INT_REGS = ("b32", "s32", "u32")
_F32_REGS = ("b32", "f32")
_F64_REGS = ("f64", "b64")
_ANY_32 = ("b32", "s32", "u32", "f32", "f16x2")


#: ``.aligned``: forbidden before PTX 6.3 (implicit there), required from 6.3 (ptxas-measured).
ALIGNED_FROM_PTX = (6, 3)
#: ``.shared::cta`` spelling needs PTX 7.8 (any wmma-capable target).
SHARED_CTA_GATE = Gate((7, 8), 70)


def aligned_rule(ptx_version: tuple[int, int]) -> str:
    """``"required"`` from PTX 6.3 on, ``"forbidden"`` before (ptxas: "Feature '.aligned
    modifier for wmma' requires PTX ISA .version 6.3" / "'.aligned modifier required")."""
    return "required" if tuple(ptx_version) >= ALIGNED_FROM_PTX else "forbidden"


# --------------------------------------------------------------------------------------------
# Fragments


class FragmentSpec(Record):
    """One legal (shape, matrix, type) of wmma.load (a/b/c) or wmma.store (d): `nregs` registers
    in the brace list, of `register_bits` (32, or 64 for f64 fragments), the memory `layouts`
    allowed for this matrix, `source` "isa" (the PTX ISA table) or "ptxas extension"."""

    __slots__ = FIELDS = ("shape", "matrix", "type", "nregs", "register_bits", "register_classes", "layouts",
                          "gate", "source", "note")
    DEFAULTS = {"source": "isa", "note": ""}

    # -- derived facts -------------------------------------------------------------------
    @property
    def dims(self) -> tuple[int, int]:
        """(rows, cols) of the matrix this fragment holds."""
        m, n, k = SHAPES[self.shape]
        return {"a": (m, k), "b": (k, n)}.get(self.matrix, (m, n))

    @property
    def element_bits(self) -> int:
        return ELEMENT_BITS[self.type]

    @property
    def elements_per_register(self) -> int:
        return max(1, self.register_bits // self.element_bits)

    @property
    def fragment_bytes(self) -> int:
        """F: bytes of the per-lane register footprint; every row/column start aligns to it."""
        return self.nregs * self.register_bits // 8

    @property
    def unique_per_lane(self) -> int:
        rows, cols = self.dims
        return rows * cols // 32

    @property
    def replication(self) -> int:
        """How many lanes/registers hold a copy of each element (f16 A/B of some shapes)."""
        return self.nregs * self.elements_per_register // self.unique_per_lane

    def default_stride(self, layout: str) -> int:
        """Leading-dimension length in elements: row-major → columns, col-major → rows."""
        rows, cols = self.dims
        return cols if layout == "row" else rows

    @property
    def address_alignment(self) -> int:
        """Required alignment of ``p`` in bytes."""
        return self.fragment_bytes

    def stride_alignment(self, layout: str) -> int:
        """Bytes that ``stride × element size`` must be a multiple of.

        The PTX rule is "every row (column) start aligned to F". For the replicated f16 A of
        ``.m8n32k16`` stored ``.col`` (and B of ``.m32n8k16`` stored ``.row``) the lines are only
        16 bytes long, so the default stride itself would break a 32-byte rule; there the
        requirement is capped at the default line size (16 bytes, which is also what CUDA's
        ``load_matrix_sync`` asks of ``ldm`` for ``__half``)."""
        line_bytes = self.default_stride(layout) * self.element_bits // 8
        return min(self.fragment_bytes, line_bytes)

    def stride_ok(self, stride: int, layout: str) -> bool:
        """Whether ``stride`` (elements) keeps every row/column start aligned."""
        return (stride * self.element_bits) % (8 * self.stride_alignment(layout)) == 0

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.shape, self.matrix, self.type)


_BOTH = ("row", "col")
_F16_SHAPES = ("m16n16k16", "m8n32k16", "m32n8k16")
#: f16 family gates: m16n16k16 from PTX 6.0, the two others from 6.1 (all sm_70).
_F16_GATE = {"m16n16k16": Gate((6, 0), 70), "m8n32k16": Gate((6, 1), 70), "m32n8k16": Gate((6, 1), 70)}
_INT8_GATE = Gate((6, 3), 72)
_SUBBYTE_GATE = Gate((6, 3), 75)
_SM80_GATE = Gate((7, 0), 80)

# Per-shape register counts for the exactly-sized 8/16-bit A and B fragments (shape order as
# in _F16_SHAPES).
_S8_A, _S8_B = (2, 1, 4), (2, 4, 1)
_BF16_A, _BF16_B = (4, 2, 8), (4, 8, 2)


def _fragment_rows() -> list[FragmentSpec]:
    rows: list[FragmentSpec] = []
    F = FragmentSpec
    for i, shape in enumerate(_F16_SHAPES):
        g = _F16_GATE[shape]
        rows += [
            F(shape, "a", "f16", 8, 32, _F16_REGS, _BOTH, g),
            F(shape, "b", "f16", 8, 32, _F16_REGS, _BOTH, g),
            F(shape, "c", "f16", 4, 32, _F16_REGS, _BOTH, g),
            F(shape, "c", "f32", 8, 32, _F32_REGS, _BOTH, g),
            F(shape, "d", "f16", 4, 32, _F16_REGS, _BOTH, g),
            F(shape, "d", "f32", 8, 32, _F32_REGS, _BOTH, g),
        ]
        for t in ("s8", "u8"):
            rows += [
                F(shape, "a", t, _S8_A[i], 32, _INT_REGS, _BOTH, g.join(_INT8_GATE)),
                F(shape, "b", t, _S8_B[i], 32, _INT_REGS, _BOTH, g.join(_INT8_GATE)),
            ]
        rows += [
            F(shape, "c", "s32", 8, 32, _INT_REGS, _BOTH, g.join(_INT8_GATE)),
            F(shape, "d", "s32", 8, 32, _INT_REGS, _BOTH, g.join(_INT8_GATE)),
            F(shape, "a", "bf16", _BF16_A[i], 32, _B32_ONLY, _BOTH, _SM80_GATE),
            F(shape, "b", "bf16", _BF16_B[i], 32, _B32_ONLY, _BOTH, _SM80_GATE),
        ]
    rows += [
        F("m16n16k8", "a", "tf32", 4, 32, _B32_ONLY, _BOTH, _SM80_GATE),
        F("m16n16k8", "b", "tf32", 4, 32, _B32_ONLY, _BOTH, _SM80_GATE),
        F("m16n16k8", "c", "f32", 8, 32, _F32_REGS, _BOTH, _SM80_GATE),
        F("m16n16k8", "d", "f32", 8, 32, _F32_REGS, _BOTH, _SM80_GATE),
        F("m8n8k4", "a", "f64", 1, 64, _F64_REGS, _BOTH, _SM80_GATE),
        F("m8n8k4", "b", "f64", 1, 64, _F64_REGS, _BOTH, _SM80_GATE),
        F("m8n8k4", "c", "f64", 2, 64, _F64_REGS, _BOTH, _SM80_GATE,
          note="the manual's fragment table says 1 register; ptxas and the examples use 2"),
        F("m8n8k4", "d", "f64", 2, 64, _F64_REGS, _BOTH, _SM80_GATE),
    ]
    for shape, types in (("m8n8k32", ("s4", "u4")), ("m8n8k128", ("b1",))):
        for t in types:
            rows += [
                F(shape, "a", t, 1, 32, _ANY_32, ("row",), _SUBBYTE_GATE),
                F(shape, "b", t, 1, 32, _ANY_32, ("col",), _SUBBYTE_GATE),
            ]
        rows += [
            F(shape, "c", "s32", 2, 32, _INT_REGS, _BOTH, _SUBBYTE_GATE),
            F(shape, "d", "s32", 2, 32, _INT_REGS, _BOTH, _SUBBYTE_GATE),
            F(shape, "c", "f32", 2, 32, _F32_REGS, _BOTH, _SUBBYTE_GATE, source="ptxas extension",
              note="accepted by ptxas 13.0 (sm_75/PTX 6.3 and later) though absent from the "
                   "PTX ISA table; no wmma.mma consumes it; register classes not measured"),
        ]
    return rows


_FRAGMENTS: dict[tuple[str, str, str], FragmentSpec] = {f.key: f for f in _fragment_rows()}


def fragment(shape: str, matrix: str, type: str) -> FragmentSpec:
    """The spec of a legal (shape, matrix, type); ``KeyError`` with a clear message if illegal."""
    try:
        return _FRAGMENTS[(shape, matrix, type)]
    except KeyError:
        raise KeyError(f"no wmma fragment .{matrix} .{shape} .{type}") from None


def is_legal(shape: str, matrix: str, type: str, layout: str | None = None) -> bool:
    spec = _FRAGMENTS.get((shape, matrix, type))
    return spec is not None and (layout is None or layout in spec.layouts)


def legal_combinations(*, include_extensions: bool = True) -> tuple[FragmentSpec, ...]:
    """Every legal (shape, matrix, type), optionally without the ptxas-only extensions."""
    return tuple(f for f in _FRAGMENTS.values()
                 if include_extensions or f.source == "isa")


# --------------------------------------------------------------------------------------------
# wmma.mma


class MmaSpec(Record):
    """One legal wmma.mma combination: D (dtype) = A (atype) · B (btype) + C (ctype). `satfinite`:
    .satfinite accepted, up to PTX version `satfinite_last_ptx` (floating point); `roundings`:
    the rounding modifiers (f64), the first the default; `op`: "xor.popc" / "and.popc" for b1."""

    __slots__ = FIELDS = ("shape", "atype", "btype", "ctype", "dtype", "gate", "alayouts", "blayouts",
                          "satfinite", "satfinite_last_ptx", "roundings", "op")
    DEFAULTS = {"alayouts": _BOTH, "blayouts": _BOTH, "satfinite": False, "satfinite_last_ptx": None,
                "roundings": (), "op": None}

    @property
    def key(self) -> tuple:
        return (self.shape, self.atype, self.btype, self.ctype, self.dtype, self.op)

    @property
    def suffix_types(self) -> tuple[str, ...]:
        """Types in the order the mnemonic spells them (f16: ``.dtype.ctype``)."""
        if self.atype == "f16":
            return (self.dtype, self.ctype)
        return (self.dtype, self.atype, self.btype, self.ctype)


def _mma_rows() -> list[MmaSpec]:
    rows: list[MmaSpec] = []
    for shape in _F16_SHAPES:
        g = _F16_GATE[shape]
        for d in ("f16", "f32"):
            for c in ("f16", "f32"):
                # .satfinite on FP wmma.mma: deprecated in PTX 6.4, removed in 6.5.
                rows.append(MmaSpec(shape, "f16", "f16", c, d, g, satfinite=True,
                                    satfinite_last_ptx=(6, 4)))
        for t in ("s8", "u8"):  # A and B types must match
            rows.append(MmaSpec(shape, t, t, "s32", "s32", g.join(_INT8_GATE), satfinite=True))
        rows.append(MmaSpec(shape, "bf16", "bf16", "f32", "f32", _SM80_GATE))
    rows.append(MmaSpec("m16n16k8", "tf32", "tf32", "f32", "f32", _SM80_GATE))
    rows.append(MmaSpec("m8n8k4", "f64", "f64", "f64", "f64", _SM80_GATE,
                        roundings=("rn", "rz", "rm", "rp")))
    for t in ("s4", "u4"):
        rows.append(MmaSpec("m8n8k32", t, t, "s32", "s32", _SUBBYTE_GATE, ("row",), ("col",),
                            satfinite=True))
    rows.append(MmaSpec("m8n8k128", "b1", "b1", "s32", "s32", _SUBBYTE_GATE, ("row",), ("col",),
                        op="xor.popc"))
    rows.append(MmaSpec("m8n8k128", "b1", "b1", "s32", "s32", Gate((7, 1), 80), ("row",),
                        ("col",), op="and.popc"))
    return rows


_MMAS: dict[tuple, MmaSpec] = {m.key: m for m in _mma_rows()}


def mma(shape: str, atype: str, btype: str, ctype: str, dtype: str,
        op: str | None = None) -> MmaSpec:
    try:
        return _MMAS[(shape, atype, btype, ctype, dtype, op)]
    except KeyError:
        opname = f".{op}" if op else ""
        raise KeyError(f"no wmma.mma{opname} .{shape} with D .{dtype}, A .{atype}, B .{btype}, "
                       f"C .{ctype}") from None


def mma_combinations() -> tuple[MmaSpec, ...]:
    return tuple(_MMAS.values())


# --------------------------------------------------------------------------------------------
# Self-check: the tables must be internally consistent (the wmma table tests run it; not at
# import, which every check of a wmma kernel would pay).


def self_check() -> None:
    problems: list[str] = []
    for f in _FRAGMENTS.values():
        rows, cols = f.dims
        bits_held = f.nregs * f.register_bits
        if (rows * cols * f.element_bits) % 32:
            problems.append(f"{f.key}: matrix does not split over 32 lanes")
        if bits_held * 32 < rows * cols * f.element_bits or bits_held % f.element_bits:
            problems.append(f"{f.key}: {f.nregs} registers cannot hold the fragment")
        if f.replication not in (1, 2, 4):
            problems.append(f"{f.key}: replication {f.replication}")
        if f.nregs not in (1, 2, 4, 8):
            problems.append(f"{f.key}: ptxas accepts only 1/2/4/8 registers")
        if f.element_bits < 8 and f.matrix in "ab" and f.layouts != (("row",) if f.matrix == "a" else ("col",)):
            problems.append(f"{f.key}: sub-byte A must be row, B col")
        for lay in f.layouts:  # the default stride itself must satisfy the alignment rule
            if not f.stride_ok(f.default_stride(lay), lay):
                problems.append(f"{f.key}: default {lay} stride violates alignment")
        if f.matrix in "cd":
            twin = _FRAGMENTS.get((f.shape, "d" if f.matrix == "c" else "c", f.type))
            if twin is None and f.source == "isa":
                problems.append(f"{f.key}: no matching {'d' if f.matrix == 'c' else 'c'}")
    for m in _MMAS.values():
        for matrix, t in (("a", m.atype), ("b", m.btype), ("c", m.ctype), ("d", m.dtype)):
            if (m.shape, matrix, t) not in _FRAGMENTS:
                problems.append(f"mma {m.key}: fragment {matrix} .{t} missing")
    if problems:
        raise RuntimeError("ptxld.spec.wmma tables are inconsistent:\n  " + "\n  ".join(problems))


# --------------------------------------------------------------------------------------------
# Instruction records (PTX ISA 9.7.14.4.3-5): the qualifier vocabulary the decoder reads.
# Values are written with their dot, as in the opcode; the tables above name them without it.

def _dotted(names) -> tuple[str, ...]:
    return tuple("." + n for n in names)


_SHAPE_VALUES = _dotted(SHAPES)
_TYPE_VALUES = _dotted(ELEMENT_BITS)
_LAYOUT_VALUES = _dotted(LAYOUTS)
# every state space, also those wmma does not allow: the checker reports them by name
_SPACE_VALUES = (".global", ".shared", ".shared::cta", ".shared::cluster", ".const", ".local",
                 ".param")
SECTION_LOAD = "PTX ISA 9.7.14.4.3 (wmma.load)"
SECTION_STORE = "PTX ISA 9.7.14.4.4 (wmma.store)"
SECTION_MMA = "PTX ISA 9.7.14.4.5 (wmma.mma)"


def _memory_record(name: str, section: str, matrices: tuple[str, ...]) -> InstructionSpec:
    return InstructionSpec(name, section, (
        Group("matrix", _dotted(matrices)), Group("sync", (".sync",)), Group("aligned", (".aligned",)),
        Group("layout", _LAYOUT_VALUES), Group("shape", _SHAPE_VALUES), Group("space", _SPACE_VALUES),
        Group("type", _TYPE_VALUES), Group("vec", (".v2", ".v4", ".v8"))))


WMMA_LOAD = _memory_record("wmma.load", SECTION_LOAD, ("a", "b", "c"))
WMMA_STORE = _memory_record("wmma.store", SECTION_STORE, ("d",))
# wmma.mma writes its layouts (A's first) and types positionally: `.dtype.ctype` for f16,
# `.dtype.atype.btype.ctype` otherwise; `wmma.params` reads them by count.
WMMA_MMA = InstructionSpec("wmma.mma", SECTION_MMA, (
    Group("sync", (".sync",)), Group("aligned", (".aligned",)),
    Group("alayout", _LAYOUT_VALUES), Group("blayout", _LAYOUT_VALUES), Group("shape", _SHAPE_VALUES),
    Group("rnd", (".rn", ".rz", ".rm", ".rp")), Group("satfinite", (".satfinite",)),
    Group("type1", _TYPE_VALUES), Group("type2", _TYPE_VALUES), Group("type3", _TYPE_VALUES),
    Group("type4", _TYPE_VALUES), Group("op", (".xor", ".and")), Group("popc", (".popc",))))
RECORDS = (WMMA_LOAD, WMMA_STORE, WMMA_MMA)
