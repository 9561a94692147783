"""Surface instructions (PTX ISA 9.7.11: suld, sust, sured, suq), measured against ptxas 13.0.

A surface is addressed as `[surf, {c1, ...}]`: a `.surfref` variable or a `.u64` handle and
`.s32` coordinates, as many as the geometry has (ptxas 13.0 takes more, 1, 2 or 4 in all, and
never 3; the one-dimensional geometry also a bare register). `.b` addresses bytes, `.p`
(sust and sured only: "Not a name of any known instruction: 'suld.p'") samples; the clamp mode
`.trap`, `.clamp` or `.zero` is required.
"""
from __future__ import annotations

from ..gates import Gate
from ..isa import Form, Group, InstructionSpec

_GEOMETRIES = (".1d", ".2d", ".3d", ".a1d", ".a2d")
_COORDINATES = {".1d": (1, 2, 4), ".2d": (2, 4), ".3d": (4,), ".a1d": (2, 4), ".a2d": (4,)}
_SIZES = {"coords": ("geom", _COORDINATES)}
_CLAMP = Group("clamp", (".trap", ".clamp", ".zero"))
_BITS = (".b8", ".b16", ".b32", ".b64")
_SURF = "surf:.s32*coords"
# ptxas 13.0: "Feature 'surface instruction with .3d geometry' (with array geometry) requires PTX
# ISA .version 3.0 or later"
_GEOMETRY_GATES = {
    ".3d": Gate((3, 0), None, "surface .3d", "Surface instructions with .3d: PTX ISA 3.0."),
    ".a1d": Gate((3, 0), None, "surface arrays", "Surface instructions with array geometries: PTX ISA 3.0."),
    ".a2d": Gate((3, 0), None, "surface arrays", "Surface instructions with array geometries: PTX ISA 3.0."),
}


def _vectors(template: str, operands: tuple[str, str], where: dict) -> tuple[Form, ...]:
    """A scalar form and its `.v2`/`.v4` forms (128 bits at most: "Vector type too large")."""
    scalar, vector = operands
    types = where.get("type", _BITS)
    return (Form(template.replace("{vec}", ""), scalar, where=where),
            Form(template.replace("{vec}", ".v2"), vector, where=where),
            Form(template.replace("{vec}", ".v4"), vector,
                 where={**where, "type": tuple(t for t in types if t != ".b64")}))


_SULD = InstructionSpec("suld", "PTX ISA 9.7.11.1 (suld)", (
    Group("mode", (".b",)), Group("geom", _GEOMETRIES), Group("cop", (".ca", ".cg", ".cs", ".cv")),
    Group("vec", (".v2", ".v4")), Group("type", _BITS), _CLAMP,
), forms=_vectors(".b.geom{.cop}{vec}.type.clamp", ("d, a", "dv, a"), {}),
    operands={"d": "=reg:type+", "dv": "=vec:type+*vec", "a": _SURF}, sizes=_SIZES, gates=_GEOMETRY_GATES)

_P_ISA = "the PTX ISA lists `sust.p` on the .1d, .2d and .3d geometries without a cache operator"
_SUST = InstructionSpec("sust", "PTX ISA 9.7.11.2 (sust)", (
    Group("mode", (".b", ".p")), Group("geom", _GEOMETRIES), Group("cop", (".wb", ".cg", ".cs", ".wt")),
    Group("vec", (".v2", ".v4")), Group("type", _BITS), _CLAMP,
), forms=(
    *_vectors(".b.geom{.cop}{vec}.type.clamp", ("a, c", "a, cv"), {}),
    *_vectors(".p.geom{vec}.b32.clamp", ("a, c", "a, cv"), {"geom": (".1d", ".2d", ".3d")}),
    # ptxas 13.0 also takes the array geometries and a cache operator on sust.p
    *(Form(f.template, f.operands, where=f.where, beyond_isa=_P_ISA) for f in _vectors(
        ".p.geom.cop{vec}.b32.clamp", ("a, c", "a, cv"), {})),
    *(Form(f.template, f.operands, where=f.where, beyond_isa=_P_ISA) for f in _vectors(
        ".p.geom{vec}.b32.clamp", ("a, c", "a, cv"), {"geom": (".a1d", ".a2d")})),
), operands={"a": _SURF, "c": "reg|imm:type+", "cv": "vec:type+*vec"}, sizes=_SIZES, gates=_GEOMETRY_GATES)

# sured: the operations and the types ptxas 13.0 takes for each
_SURED_B = {(".add",): (".u32", ".s32", ".u64"), (".min", ".max"): (".u32", ".s32", ".u64", ".s64"),
            (".and", ".or"): (".b32",)}
_SURED_P = {(".add",): (".b32",), (".min", ".max"): (".b32", ".b64"), (".and", ".or"): (".b32",)}
# ptxas 13.0: "Feature '64-bit min/max operation on sured.b' requires PTX ISA .version 8.1 or
# later", "Feature '.b64 on sured.p' requires ..."
_SURED_64 = Gate((8, 1), 50, "64-bit sured", "sured.b .min/.max on .u64/.s64 and sured.p .b64: PTX ISA 8.1, sm_50.")
_SURED = InstructionSpec("sured", "PTX ISA 9.7.11.3 (sured)", (
    Group("mode", (".b", ".p")), Group("op", (".add", ".min", ".max", ".and", ".or")),
    Group("geom", (".1d", ".2d", ".3d")), Group("type", (".u32", ".u64", ".s32", ".s64", ".b32", ".b64")),
    _CLAMP,
), forms=tuple(
    Form(f"{mode}.op.geom.type.clamp", "a, c", where={"op": ops, "type": (t,)},
         gate=_SURED_64 if ops == (".min", ".max") and t in (".u64", ".s64", ".b64") else None)
    for mode, table in ((".b", _SURED_B), (".p", _SURED_P)) for ops, types in table.items() for t in types
), operands={"a": _SURF, "c": "reg|imm:type+"}, sizes=_SIZES, gates=_GEOMETRY_GATES)

_SUQ = InstructionSpec("suq", "PTX ISA 9.7.11.4 (suq)", (
    Group("query", (".width", ".height", ".depth", ".channel_data_type", ".channel_order",
                    ".array_size", ".memory_layout")), Group("type", (".b32",)),
), forms=(Form(".query.b32", "d, a"),), operands={"d": "=reg:.b32", "a": "surf"}, gates={
    ".memory_layout": Gate((4, 2), None, "memory_layout", "suq.memory_layout: PTX ISA 4.2."),
    ".array_size": Gate((4, 1), None, "array_size", "suq.array_size: PTX ISA 4.1.")})

RECORDS = (_SULD, _SUST, _SURED, _SUQ)
