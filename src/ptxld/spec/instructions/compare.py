"""Comparison and selection (PTX ISA 9.7.5: set, setp, selp, slct; 9.7.4.6-7: their half-precision
forms). Which comparisons a type takes, measured against ptxas 13.0 ("Mismatch between instruction
type and comparison qualifier"): bit types `.eq .ne`; signed integers the ordered six; unsigned
integers those and `.lo .ls .hi .hs`; floating point the ordered six, the unordered six and
`.num .nan`. `.ftz` exists for `.f32`, `.f16` and `.f16x2` sources only.
"""
from __future__ import annotations

from ..gates import Gate
from ..isa import Form, Group, InstructionSpec
from .common import F16_GATE

_ORDERED = (".eq", ".ne", ".lt", ".le", ".gt", ".ge")
_UNSIGNED = (".lo", ".ls", ".hi", ".hs")
_UNORDERED = (".equ", ".neu", ".ltu", ".leu", ".gtu", ".geu", ".num", ".nan")
_BOOL = (".and", ".or", ".xor")
_BF16_CMP = Gate((7, 8), 90, "bf16 set/setp", "set/setp .bf16/.bf16x2: PTX ISA 7.8, sm_90.")

# source type classes: (types, comparisons, `.ftz` allowed, gate)
_CLASSES = (
    ((".b16", ".b32", ".b64"), (".eq", ".ne"), False, None),
    ((".s16", ".s32", ".s64"), _ORDERED, False, None),
    ((".u16", ".u32", ".u64"), _ORDERED + _UNSIGNED, False, None),
    ((".f32",), _ORDERED + _UNORDERED, True, None),
    ((".f64",), _ORDERED + _UNORDERED, False, None),
    ((".f16", ".f16x2"), _ORDERED + _UNORDERED, True, F16_GATE),
    ((".bf16", ".bf16x2"), _ORDERED + _UNORDERED, False, _BF16_CMP),
)
_STANDARD = (".b16", ".b32", ".b64", ".s16", ".s32", ".s64", ".u16", ".u32", ".u64", ".f32", ".f64")
_HALF = (".f16", ".f16x2", ".bf16", ".bf16x2")


def _cmp_forms(type_slot: str, operands: str, dtypes=None):
    """One form per source class, without and with a boolean operation (and its `c`). `dtypes`:
    for `set`, source types -> [(destination types, gate, source types)]."""
    out = []
    for types, cmps, ftz, gate in _CLASSES:
        for dtype_list, dgate, stypes in (dtypes(types) if dtypes else [((), None, types)]):
            ftz_t = "{.ftz}" if ftz and ".bf16" not in dtype_list else ""   # a .bf16 result: no .ftz
            g = gate.join(dgate) if gate is not None and dgate is not None else (dgate or gate)
            where = {"cmp": cmps, type_slot: stypes}
            if dtype_list:
                where["dtype"] = dtype_list
            d = ".dtype" if dtype_list else ""
            out.append(Form(f".cmp{ftz_t}{d}.{type_slot}", operands, where=dict(where), gate=g))
            out.append(Form(f".cmp.bool{ftz_t}{d}.{type_slot}", operands + ", c", where=dict(where), gate=g))
    return tuple(out)


_INT_RESULT = Gate((6, 5), 53, "set with a half-precision source and an integer result",
                   "set with .f16/.f16x2 sources and an integer result: PTX ISA 6.5 (ptxas 13.0).")


def _set_dtypes(stypes):
    """Destination types `set` takes for a class of source types (measured against ptxas 13.0):
    (destination types, gate, the source types they pair with)."""
    if stypes[0] in _STANDARD:
        return [((".u32", ".s32", ".f32"), None, stypes), ((".f16",), F16_GATE, stypes),
                ((".bf16",), _BF16_CMP, stypes)]
    if stypes == (".f16", ".f16x2"):
        return [((".f16",), None, (".f16",)), ((".u16", ".s16", ".u32", ".s32"), _INT_RESULT, (".f16",)),
                ((".f16x2",), None, (".f16x2",)), ((".u32", ".s32"), _INT_RESULT, (".f16x2",))]
    return [((".bf16", ".u16", ".s16", ".u32", ".s32"), None, (".bf16",)),
            ((".bf16x2", ".u32", ".s32"), None, (".bf16x2",))]


_ALL = _STANDARD + _HALF
_CMP_GROUP = Group("cmp", _ORDERED + _UNSIGNED + _UNORDERED)
_BOOL_GROUP = Group("bool", _BOOL)
_FTZ = Group("ftz", (".ftz",))

RECORDS = (
    InstructionSpec("setp", "PTX ISA 9.7.5.2 (setp), 9.7.4.7 (half-precision setp)", (
        _CMP_GROUP, _BOOL_GROUP, _FTZ, Group("type", _ALL),
    ), forms=_cmp_forms("type", "p, a, b"),
        operands={"p": "=pred|pair", "a": "reg|imm:type", "b": "reg|imm:type", "c": "npred"}),
    InstructionSpec("set", "PTX ISA 9.7.5.1 (set), 9.7.4.6 (half-precision set)", (
        _CMP_GROUP, _BOOL_GROUP, _FTZ,
        Group("dtype", (".u32", ".s32", ".f32", ".u16", ".s16") + _HALF), Group("stype", _ALL),
    ), forms=_cmp_forms("stype", "d, a, b", _set_dtypes),
        operands={"d": "=reg:dtype", "a": "reg|imm:stype", "b": "reg|imm:stype", "c": "npred"}),
    InstructionSpec("selp", "PTX ISA 9.7.5.3 (selp)", (Group("type", _STANDARD),),
                    forms=(Form(".type", "d, a, b, c"),),
                    operands={"d": "=reg:type", "a": "reg|imm:type", "b": "reg|imm:type", "c": "npred"}),
    InstructionSpec("slct", "PTX ISA 9.7.5.4 (slct)", (
        _FTZ, Group("dtype", _STANDARD), Group("stype", (".s32", ".f32")),
    ), forms=(
        Form(".dtype.s32", "d, a, b, c"),
        Form("{.ftz}.dtype.f32", "d, a, b, c"),
    ), operands={"d": "=reg:dtype", "a": "reg|imm:dtype", "b": "reg|imm:dtype", "c": "reg|imm:stype"}),
)
