"""Maxwell/Pascal (sm_50..sm_61) LDG, sparse LDG and generic LD: bit fields and value tables.

This table is the single source of truth for the SASS encoder and decoder (``ptxld.sass``).
Bit positions were checked against nvdisasm 12.8 on real ptxas output and on made-up words
(see ``tests/sass/data``).  Bits that no field names are ignored by nvdisasm and assembled as 0.
"""
from __future__ import annotations

from dataclasses import dataclass

#: Architectures whose LDG/LD encoding this table describes.
ARCHES = ("sm_50", "sm_52", "sm_53", "sm_60", "sm_61")

#: Size codes (bits 50..48 of LDG, 55..53 of LD).  ``"32"`` is the default and is never printed.
SIZES = ("U8", "S8", "U16", "S16", "32", "64", "128", "U.128")
DEFAULT_SIZE = "32"
#: Bytes in memory for each size code.
SIZE_BYTES = {"U8": 1, "S8": 1, "U16": 2, "S16": 2, "32": 4, "64": 8, "128": 16, "U.128": 16}

#: Cache-operator codes; ``"CA"`` is the default and is never printed.
COPS = ("CA", "CG", "CI", "CV")
DEFAULT_COP = "CA"
#: Cache operators the ISA lists that have no encoding of their own (ptxas and the ISA agree).
COP_ALIASES = {"CS": "CA", "LU": "CG"}

#: Register 255 reads as zero; as an address register it selects the absolute form.
RZ = 255
#: Predicate 7 is the constant-true predicate.
PT = 7


@dataclass(frozen=True)
class Field:
    name: str
    lo: int
    width: int
    #: Stored value = (logical value XOR invert); the sparse Ps field is stored bit-inverted.
    invert: int = 0

    @property
    def mask(self) -> int:
        return ((1 << self.width) - 1) << self.lo


@dataclass(frozen=True)
class Form:
    """One instruction encoding: fixed opcode bits plus named fields."""

    name: str
    mnemonic: str
    opcode_mask: int
    opcode_value: int
    fields: tuple[Field, ...]
    #: Width of the address immediate (it is always the field named ``imm``).
    imm_bits: int
    #: Architectures that decode this form (nvdisasm rejects it elsewhere).
    arches: tuple[str, ...] = ARCHES

    def field(self, name: str) -> Field:
        for f in self.fields:
            if f.name == name:
                return f
        raise KeyError(name)

    @property
    def unused_mask(self) -> int:
        used = self.opcode_mask
        for f in self.fields:
            used |= f.mask
        return ~used & (2**64 - 1)


_COMMON = (
    Field("pred", 16, 3),
    Field("pred_neg", 19, 1),
    Field("ra", 8, 8),
    Field("rd", 0, 8),
)

LDG = Form(
    name="ldg",
    mnemonic="LDG",
    opcode_mask=0xFFF8_0000_0000_0000,
    opcode_value=0xEED0_0000_0000_0000,
    fields=(
        Field("size", 48, 3),
        Field("cop", 46, 2),
        Field("e", 45, 1),
        Field("imm", 20, 24),
        *_COMMON,
    ),
    imm_bits=24,
)

#: Tiled-resources form with a sparse-status predicate Ps; sm_50 has no such instruction.
LDG_SPARSE = Form(
    name="ldg_sparse",
    mnemonic="LDG",
    opcode_mask=0xFFF8_0000_0000_0000,
    opcode_value=0xEEC8_0000_0000_0000,
    fields=(
        Field("size", 48, 3),
        Field("cop", 46, 2),
        Field("e", 45, 1),
        Field("ps", 41, 3, invert=0b111),
        Field("imm", 20, 20),
        *_COMMON,
    ),
    imm_bits=20,
    arches=("sm_52", "sm_53", "sm_60", "sm_61"),
)

#: Generic load (what PTX ``ld`` without a state space becomes); trailing predicate at 60..58.
LD = Form(
    name="ld",
    mnemonic="LD",
    opcode_mask=0xE000_0000_0000_0000,
    opcode_value=0x8000_0000_0000_0000,
    fields=(
        Field("p", 58, 3),
        Field("cop", 56, 2),
        Field("size", 53, 3),
        Field("e", 52, 1),
        Field("imm", 20, 32),
        *_COMMON,
    ),
    imm_bits=32,
)

FORMS = (LDG, LDG_SPARSE, LD)


# ---------------------------------------------------------------------------------------------
# Scheduling control word: one 64-bit word precedes every group of three instructions.
# Slot k (0, 1, 2) holds bits [21k, 21k + 20]; bit 63 is unused.
CONTROL_SLOT_BITS = 21
CONTROL_SLOTS = 3
CONTROL_FIELDS = (
    Field("stall", 0, 4),       # cycles to wait before issuing the next instruction
    Field("yield_", 4, 1),      # 0 = yield the warp scheduler after this instruction
    Field("wr", 5, 3),          # scoreboard set when the destination is written; 7 = none
    Field("rd", 8, 3),          # scoreboard released once sources are read; 7 = none
    Field("wait", 11, 6),       # mask of scoreboards 0..5 to wait on
    Field("reuse", 17, 4),      # operand reuse cache: bit0 = operand A (Ra), bit1 = B, bit2 = C
)
NO_BARRIER = 7
