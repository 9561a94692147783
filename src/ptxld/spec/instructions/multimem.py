"""Operations on multimem addresses (PTX ISA 9.7.9.16: multimem.ld_reduce, multimem.st,
multimem.red) of sm_90 and later, measured against ptxas 13.0."""
from __future__ import annotations

from ..gates import Gate
from ..isa import Form, Group, InstructionSpec

_MULTIMEM = Gate((8, 1), 90, "multimem", "multimem.ld_reduce, multimem.st, multimem.red: PTX ISA 8.1, sm_90.")
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
                out.append(Form(f"{lead}{{.acc}}{vec}.type", vdata if vec else data, where={**where, "type": types}))
            continue
        for ops, types in _INT_OPS.items():
            out.append(Form(f"{lead}.op{acc}.type", data, where={**where, "op": ops, "type": types}))
        for vec, types in _FLOAT_VECTORS.items():
            d = vdata if vec else data
            out.append(Form(f"{lead}.add{acc}{vec}.type", d, where={**where, "type": types}))
            half = tuple(t for t in types if t in _HALVES)
            if half and vec and name == "multimem.red":      # `.min/.max` on vectors only here
                out.append(Form(f"{lead}.op{{.acc}}{vec}.type", d, where={**where, "op": (".min", ".max"),
                                                                         "type": half}))
            if half and name == "multimem.ld_reduce":
                out.append(Form(f"{lead}.op{vec}.type", d, where={**where, "op": (".min", ".max"), "type": half}))
                out.append(Form(f"{lead}.add.acc::f32{vec}.type", d, where={**where, "type": half}))
    return tuple(out)


RECORDS = (
    InstructionSpec("multimem.ld_reduce", "PTX ISA 9.7.9.16 (multimem.ld_reduce)",
                    _groups((".weak", ".relaxed", ".acquire")),
                    forms=_forms("multimem.ld_reduce", (".relaxed", ".acquire"), "d, a", "dv, a"),
                    operands={"d": "=reg:type", "dv": "=vec|reg:type*vec", "a": "addr"}, gate=_MULTIMEM),
    InstructionSpec("multimem.st", "PTX ISA 9.7.9.16 (multimem.st)", _groups((".weak", ".relaxed", ".release"), False),
                    forms=_forms("multimem.st", (".relaxed", ".release"), "a, b", "a, bv"),
                    operands={"a": "addr", "b": "reg|imm:type", "bv": "vec|reg:type*vec"}, gate=_MULTIMEM),
    InstructionSpec("multimem.red", "PTX ISA 9.7.9.16 (multimem.red)", _groups((".relaxed", ".release")),
                    forms=_forms("multimem.red", (".relaxed", ".release"), "a, b", "a, bv", weak=False),
                    operands={"a": "addr", "b": "reg|imm:type", "bv": "vec|reg:type*vec"}, gate=_MULTIMEM),
)
