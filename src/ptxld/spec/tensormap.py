"""The tensor-map fields `tensormap.replace` names and the values each takes (PTX ISA,
"tensormap.replace" and its table of valid new values), as data: the emulator's tensor maps,
the instruction's semantics and the tests read them from here.

`new_val` is an integer whose meaning depends on the field. `.rank` takes the rank minus one;
the per-dimension fields (`.box_dim`, `.global_dim`, `.global_stride`, `.element_stride`) take an
ordinal naming the dimension (0 = innermost) and the value itself; the five enumerated fields
take an immediate code from the tables below, which ptxas 13.0 range-checks (the table order is
the ISA's, which for element types is not the CUDA driver's `CUtensorMapDataType` order).
"""
from __future__ import annotations

from ..slotted import Record


class ElemType(Record):
    """One `.elemtype` code: the ISA's `name`, the bytes one element occupies (`size`; None for
    the packed sub-byte types, whose unit is a group of 16 values) and whether it is a
    `floating`-point type (which an out-of-bounds NaN fill needs)."""
    __slots__ = FIELDS = ("name", "size", "floating")
    DEFAULTS = {"floating": False}


#: `.elemtype` new values, by code (PTX ISA table order; codes 13..15 since PTX ISA 8.7)
ELEMTYPES: tuple[ElemType, ...] = (
    ElemType(".u8", 1), ElemType(".u16", 2), ElemType(".u32", 4), ElemType(".s32", 4),
    ElemType(".u64", 8), ElemType(".s64", 8), ElemType(".f16", 2, True), ElemType(".f32", 4, True),
    ElemType(".f32.ftz", 4, True), ElemType(".f64", 8, True), ElemType(".bf16", 2, True),
    ElemType(".tf32", 4, True), ElemType(".tf32.ftz", 4, True),
    ElemType(".b4x16", None), ElemType(".b4x16_p64", None), ElemType(".b6x16_p32", None),
)

#: `.interleave_layout` codes: none, 16-byte (NC/8DHWC8) and 32-byte (NC/16DHWC16) interleave
INTERLEAVE_LAYOUTS: tuple[str, ...] = ("none", "16B", "32B")

#: `.swizzle_mode` codes (code 4, the 96-byte swizzle, since PTX ISA 8.8)
SWIZZLE_MODES: tuple[str, ...] = ("none", "32B", "64B", "128B", "96B")

#: `.swizzle_atomicity` codes (PTX ISA 8.6, sm_100a): the unit the swizzle permutes — 16-byte
#: chunks, 32-byte chunks, 32-byte chunks with the two 8-byte halves of every 16 bytes swapped on
#: odd rows, 64-byte chunks
SWIZZLE_ATOMICITIES: tuple[str, ...] = ("16B", "32B", "32B_flip_8B", "64B")

#: `.fill_mode` codes: what a load reads outside the tensor
FILL_MODES: tuple[str, ...] = ("zero", "nan")

MAX_RANK = 5


class Field(Record):
    """One `tensormap.replace` field: whether it takes an ordinal (a dimension), the largest
    ordinal, the range of valid new values (the tensor-map rules of the ISA and of
    cuTensorMapEncode: box extents 1..256, traversal strides 1..8, byte strides multiples of 16
    below 2^40; None: any value of the operand's width) and whether the new value must be an
    immediate (ptxas 13.0 refuses a register there)."""
    __slots__ = FIELDS = ("name", "ordinal", "max_ordinal", "min_value", "max_value", "multiple", "immediate")
    DEFAULTS = {"ordinal": False, "max_ordinal": MAX_RANK - 1, "min_value": 0, "max_value": None,
                "multiple": 1, "immediate": False}


FIELDS: dict[str, Field] = {f.name: f for f in (
    Field(".global_address"),
    Field(".rank", max_value=MAX_RANK - 1),
    Field(".box_dim", ordinal=True, min_value=1, max_value=256),
    Field(".global_dim", ordinal=True, min_value=1),
    Field(".global_stride", ordinal=True, max_ordinal=MAX_RANK - 2, min_value=16,
          max_value=(1 << 40) - 1, multiple=16),
    Field(".element_stride", ordinal=True, min_value=1, max_value=8),
    Field(".elemtype", max_value=len(ELEMTYPES) - 1, immediate=True),
    Field(".interleave_layout", max_value=len(INTERLEAVE_LAYOUTS) - 1, immediate=True),
    Field(".swizzle_mode", max_value=len(SWIZZLE_MODES) - 1, immediate=True),
    Field(".swizzle_atomicity", max_value=len(SWIZZLE_ATOMICITIES) - 1, immediate=True),
    Field(".fill_mode", max_value=len(FILL_MODES) - 1, immediate=True),
)}
