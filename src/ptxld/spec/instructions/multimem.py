"""Operations on multimem addresses (PTX ISA 9.7.9.16: multimem.ld_reduce, multimem.st,
multimem.red) of sm_90 and later, measured against ptxas 13.0."""
from __future__ import annotations

from ..gates import Gate
from ..isa import Form, Group, InstructionSpec

_MULTIMEM = Gate((8, 1), 90, "multimem", "multimem.ld_reduce, multimem.st, multimem.red: PTX ISA 8.1, sm_90.")
# ptxas 13.0 takes `.acc::f32` on multimem.st and multimem.red from PTX ISA 8.1, on ld_reduce from 8.2
_LD_REDUCE_ACC = Gate((8, 2), None, ".acc::f32", "multimem.ld_reduce .acc::f32: PTX ISA 8.2.")
_INT_OPS = {(".add",): (".u32", ".s32", ".u64"), (".min", ".max"): (".u32", ".s32", ".u64", ".s64"),
            (".and", ".or", ".xor"): (".b32", ".b64")}
_INTS = (".b32", ".b64", ".u32", ".u64", ".s32", ".s64")
# floating-point types by the vector sizes that make 32, 64 or 128 bits (`.f64` never a vector)
_FLOAT_VECTORS = {"": (".f16x2", ".bf16x2", ".f32", ".f64"), ".v2": (".f16", ".bf16", ".f16x2", ".bf16x2", ".f32"),
                  ".v4": (".f16", ".bf16", ".f16x2", ".bf16x2", ".f32"), ".v8": (".f16", ".bf16")}
_FLOATS = (".f16", ".f16x2", ".bf16", ".bf16x2", ".f32", ".f64")
_SCOPE = Group("scope", (".cta", ".cluster", ".gpu", ".sys"))
_SPACE = Group("space", (".global",))
_VEC = Group("vec", (".v2", ".v4", ".v8"))


def _groups(sems, ops=True):
    return (Group("sem", sems), _SCOPE, _SPACE, *((Group("op", (".min", ".max", ".add", ".and", ".or", ".xor")),)
                                                     if ops else ()),
            Group("acc", (".acc::f32",)), _VEC, Group("type", _INTS + _FLOATS))


def _leads(sems, weak: bool):
    """The memory order: `.sem` and `.scope` together or neither (ptxas 13.0: "requires scope",
    "requires order"), or `.weak` without a scope."""
    return ((".sem.scope{.space}", {"sem": sems}), ("{.space}", {})) + (
        ((".sem{.space}", {"sem": (".weak",)}),) if weak else ())


_HALVES = (".f16", ".f16x2", ".bf16", ".bf16x2")


# ptxas 13.0 takes any 32-bit register as the scalar .bf16x2 datum of ld_reduce and st (.u32,
# .s32, .f32, .f16x2: not so for .f16x2, nor for multimem.red), and an integer immediate on st
_BF16X2_DATA = {"multimem.ld_reduce": ("dw, a",), "multimem.st": ("a, bw", "a, bi")}
# ptxas 13.0 is laxer with the elements of a vector than with a scalar datum: any register of the
# size for .f16 (and .bf16, but on multimem.red only a .b16), any 32-bit register for .bf16x2
# (not on multimem.red), an integer or bit register of 32 bits for .f32 (not .f16x2); the
# element class per instruction and type, and the operand role it gets
_ELEMENTS = {"multimem.ld_reduce": {".f16": "b16", ".bf16": "b16", ".bf16x2": "b32", ".f32": ".f32|int32"},
             "multimem.st": {".f16": "b16", ".bf16": "b16", ".bf16x2": "b32", ".f32": ".f32|int32"},
             "multimem.red": {".f16": "b16", ".f32": ".f32|int32"}}
_ELEMENT_ROLES = {"b16": "16", "b32": "32", ".f32|int32": "f32"}


def _vector_roles(write: bool) -> dict[str, str]:
    """The vector operand roles of `_ELEMENTS` (`dv16`: a destination vector of any 16-bit
    registers)."""
    name, eq = ("dv", "=") if write else ("bv", "")
    return {f"{name}{suffix}": f"{eq}vec|reg:{cls}*vec" for cls, suffix in _ELEMENT_ROLES.items()}


def _typed(name: str, template: str, data: str, where: dict) -> tuple[Form, ...]:
    """The forms of one template over `where["type"]`: a scalar .bf16x2 of ld_reduce or st, and
    the vector types of `_ELEMENTS`, get operand lists of their own."""
    types = where["type"]
    if ".v" in template:
        special = {t: c for t, c in _ELEMENTS[name].items() if t in types}
        lists = {t: (data.replace("dv", "dv" + _ELEMENT_ROLES[c]).replace("bv", "bv" + _ELEMENT_ROLES[c]),)
                 for t, c in special.items()}
    else:
        special = {".bf16x2": None} if ".bf16x2" in types and name in _BF16X2_DATA else {}
        lists = {".bf16x2": _BF16X2_DATA.get(name, ())}
    rest = tuple(t for t in types if t not in special)
    out = (Form(template, data, where={**where, "type": rest}),) if rest else ()
    for t in special:
        out += tuple(Form(template, ops, where={**where, "type": (t,)}) for ops in lists[t])
    return out


def _forms(name: str, sems, data: str, vdata: str, weak: bool = True):
    out = []
    # ptxas 13.0: ld_reduce takes `.min/.max` on 16-bit floats only and `.acc::f32` with `.add`
    # of 16-bit floats only; multimem.red takes `.acc::f32` on any operation, and
    # `.min/.max` of 16-bit floats as vectors only
    acc = {"multimem.ld_reduce": "", "multimem.red": "{.acc}"}.get(name, "")
    for lead, where in _leads(sems, weak):
        if name == "multimem.st":        # ptxas 13.0 takes (and ignores) `.acc::f32` on a store
            out.append(Form(f"{lead}{{.acc}}.type", data, where={**where, "type": _INTS}))
            for vec, types in _FLOAT_VECTORS.items():
                out.extend(_typed(name, f"{lead}{{.acc}}{vec}.type", vdata if vec else data,
                                  {**where, "type": types}))
            continue
        for ops, types in _INT_OPS.items():
            out.append(Form(f"{lead}.op{acc}.type", data, where={**where, "op": ops, "type": types}))
        for vec, types in _FLOAT_VECTORS.items():
            d = vdata if vec else data
            out.extend(_typed(name, f"{lead}.add{acc}{vec}.type", d, {**where, "type": types}))
            half = tuple(t for t in types if t in _HALVES)
            if half and vec and name == "multimem.red":      # `.min/.max` on vectors only here
                out.extend(_typed(name, f"{lead}.op{{.acc}}{vec}.type", d, {**where, "op": (".min", ".max"),
                                                                              "type": half}))
            if half and name == "multimem.ld_reduce":
                out.extend(_typed(name, f"{lead}.op{vec}.type", d, {**where, "op": (".min", ".max"), "type": half}))
                out.extend(_typed(name, f"{lead}.add.acc::f32{vec}.type", d, {**where, "type": half}))
    return tuple(out)


RECORDS = (
    InstructionSpec("multimem.ld_reduce", "PTX ISA 9.7.9.16 (multimem.ld_reduce)",
                    _groups((".weak", ".relaxed", ".acquire")),
                    forms=_forms("multimem.ld_reduce", (".relaxed", ".acquire"), "d, a", "dv, a"),
                    operands={"d": "=reg:type", "dv": "=vec|reg:type*vec", "a": "addr", "dw": "=reg:b32",
                              **_vector_roles(True)},
                    gate=_MULTIMEM, gates={".acc::f32": _LD_REDUCE_ACC}),
    InstructionSpec("multimem.st", "PTX ISA 9.7.9.16 (multimem.st)", _groups((".weak", ".relaxed", ".release"), False),
                    forms=_forms("multimem.st", (".relaxed", ".release"), "a, b", "a, bv"),
                    operands={"a": "addr", "b": "reg|imm:type", "bv": "vec|reg:type*vec", "bw": "reg:b32",
                              "bi": "imm:int32", **_vector_roles(False)}, gate=_MULTIMEM),
    InstructionSpec("multimem.red", "PTX ISA 9.7.9.16 (multimem.red)", _groups((".relaxed", ".release")),
                    forms=_forms("multimem.red", (".relaxed", ".release"), "a, b", "a, bv", weak=False),
                    operands={"a": "addr", "b": "reg|imm:type", "bv": "vec|reg:type*vec", **_vector_roles(False)},
                    gate=_MULTIMEM),
)
