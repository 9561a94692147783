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


def _cmp_forms(type_slot: str, prefix: str, operands: str, dtypes=None):
    """One form per source class, without and with a boolean operation (and its `c`). `dtypes`:
    for `set`, source types -> [(destination types, gate)]."""
    out = []
    for types, cmps, ftz, gate in _CLASSES:
        for dtype_list, dgate in (dtypes(types) if dtypes else [((), None)]):
            ftz_t = "{.ftz}" if ftz else ""
            g = dgate or gate
            if g is not None and gate is not None and g is not gate:
                g = g.join(gate)
            where = {"cmp": cmps, type_slot: types}
            if dtype_list:
                where["dtype"] = dtype_list
            d = ".dtype" if dtype_list else ""
            if ".bf16" in dtype_list:     # a .bf16 result takes no .ftz, whatever the sources
                ftz_t = ""
            out.append(Form(f".cmp{ftz_t}{d}.{type_slot}", operands, where=dict(where), gate=g))
            out.append(Form(f".cmp.bool{ftz_t}{d}.{type_slot}", operands + ", c", where=dict(where), gate=g))
    return tuple(out)


def _set_dtypes(stypes):
    """Destination types `set` takes for a class of source types (measured against ptxas 13.0)."""
    if stypes[0] in _STANDARD:
        return [((".u32", ".s32", ".f32"), None), ((".f16",), F16_GATE), ((".bf16",), _BF16_CMP)]
    if stypes == (".f16", ".f16x2"):
        return [((".f16", ".u16", ".s16", ".u32", ".s32"), None), ((".f16x2", ".u32", ".s32"), None)]
    return [((".bf16", ".u16", ".s16", ".u32", ".s32"), None), ((".bf16x2", ".u32", ".s32"), None)]


def _set_forms():
    out = []
    for f in _cmp_forms("stype", "", "d, a, b", _set_dtypes):
        st = f.where["stype"]
        # the x2 destinations pair with their own source type only
        if st[0] in _HALF:
            wide = ".f16x2" if st[0] == ".f16" else ".bf16x2"
            if wide in f.where["dtype"]:
                f.where["stype"] = (wide,)
            else:
                f.where["stype"] = (st[0],)
        out.append(f)
    return tuple(out)


_ALL = _STANDARD + _HALF
_CMP_GROUP = Group("cmp", _ORDERED + _UNSIGNED + _UNORDERED)
_BOOL_GROUP = Group("bool", _BOOL)
_FTZ = Group("ftz", (".ftz",))

RECORDS = (
    InstructionSpec("setp", "PTX ISA 9.7.5.2 (setp), 9.7.4.7 (half-precision setp)", (
        _CMP_GROUP, _BOOL_GROUP, _FTZ, Group("type", _ALL),
    ), forms=_cmp_forms("type", "", "p, a, b"),
        operands={"p": "=pred|pair", "a": "reg|imm:type", "b": "reg|imm:type", "c": "npred"}),
    InstructionSpec("set", "PTX ISA 9.7.5.1 (set), 9.7.4.6 (half-precision set)", (
        _CMP_GROUP, _BOOL_GROUP, _FTZ,
        Group("dtype", (".u32", ".s32", ".f32", ".u16", ".s16") + _HALF), Group("stype", _ALL),
    ), forms=_set_forms(),
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
