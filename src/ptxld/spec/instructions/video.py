"""Video instructions (PTX ISA 9.7.18): scalar `vadd vsub vabsdiff vmin vmax vshl vshr vmad vset`
and SIMD `vadd2/4 vsub2/4 vavrg2/4 vabsdiff2/4 vmin2/4 vmax2/4 vset2/4`.

Byte and half-word selectors are written on the operands (`%r2.b0`, `%r3.h1`, `%r1.b3210`), not
in the opcode. Measured with ptxas 13.0: immediates are taken for scalar sources only (SIMD
sources "Incorrect video selector"); `.sat` with `.add` on SIMD forms is refused ("Illegal
combination of .sat and .add modifiers"); vset2/vset4 take `.add` but no `.min/.max`; vmad
negates either (a xor b) or c, not both ("Operand negation limited to ...").
"""
from __future__ import annotations

from ...slotted import Record
from ..gates import Gate
from ..isa import Form, Group, InstructionSpec

_T = (".u32", ".s32")
_SIMD = Gate((3, 0), 30, "SIMD video", "vadd2/vadd4 and the other SIMD video instructions: PTX ISA 3.0, sm_30.")
_SCALAR = Gate((2, 0), 20, "video", "Scalar video instructions: PTX ISA 2.0, sm_20.")
CMP = (".eq", ".ne", ".lt", ".le", ".gt", ".ge")

_TYPES = (Group("dtype", _T), Group("atype", _T), Group("btype", _T))
_SAT = Group("sat", (".sat",), repeatable=True)          # ptxas takes `.sat.sat`
# 32-bit integer registers, and .f16x2 ones (ptxas 13.0 reads them as 32 bits); no .f32 register.
# A comparison's result and its second operand: integer registers only.
_SCALAR_OPERANDS = {"d": "=reg:.u32", "a": "reg|imm:.u32", "b": "reg|imm:.u32", "c": "reg|imm:.u32"}
_SIMD_OPERANDS = {"d": "=reg:.u32", "a": "reg:.u32", "b": "reg:.u32", "c": "reg:.u32"}
_VSET_OPERANDS = {"d": "=reg:int32", "a": "reg|imm:.u32", "b": "reg|imm:.u32", "c": "reg|imm:int32"}
_VSET_SIMD_OPERANDS = {"d": "=reg:int32", "a": "reg:.u32", "b": "reg:.u32", "c": "reg:int32"}


def _scalar(name: str, mode: bool = False) -> InstructionSpec:
    groups = _TYPES + (_SAT, Group("secop", (".add", ".min", ".max")))
    if mode:
        groups += (Group("mode", (".clamp", ".wrap")),)
    m = ".mode" if mode else ""
    # the shift amount is unsigned (ptxas: "Operation requires .u32 type")
    where = {"btype": (".u32",)} if mode else None
    return InstructionSpec(name, f"PTX ISA 9.7.18.1 ({name})", groups, forms=(
        # c without a secondary operation: the merge form (`d.b1`); ptxas takes it unselected
        Form(f".dtype.atype.btype{{.sat}}{m}", "d, a, b{, c}", where=where),
        Form(f".dtype.atype.btype{{.sat}}{m}.secop", "d, a, b, c", where=where),
    ), operands=_SCALAR_OPERANDS, gate=_SCALAR)


def _simd(name: str) -> InstructionSpec:
    return InstructionSpec(name, f"PTX ISA 9.7.18.2 ({name})",
                           _TYPES + (_SAT, Group("add", (".add",))), forms=(
        Form(".dtype.atype.btype{.sat}", "d, a, b, c"),
        Form(".dtype.atype.btype.add", "d, a, b, c"),
    ), operands=_SIMD_OPERANDS, gate=_SIMD)


def _vset(name: str) -> InstructionSpec:
    simd = name != "vset"
    groups = (Group("atype", _T), Group("btype", _T), Group("cmp", CMP),
              Group("secop", (".add",) if simd else (".add", ".min", ".max")))
    forms = (Form(".atype.btype.cmp", "d, a, b, c"), Form(".atype.btype.cmp.secop", "d, a, b, c"))
    if not simd:
        forms = (Form(".atype.btype.cmp", "d, a, b{, c}"), Form(".atype.btype.cmp.secop", "d, a, b, c"))
    return InstructionSpec(name, f"PTX ISA 9.7.18.{2 if simd else 1} ({name})", groups, forms=forms,
                           operands=_VSET_SIMD_OPERANDS if simd else _VSET_OPERANDS,
                           gate=_SIMD if simd else _SCALAR)


_VMAD = InstructionSpec("vmad", "PTX ISA 9.7.18.1 (vmad)", _TYPES + (
    Group("po", (".po",)), _SAT, Group("scale", (".shr7", ".shr15"))), forms=(
    Form(".dtype.atype.btype{.sat}{.scale}", "d, a, b, c"),
    Form(".dtype.atype.btype.po{.sat}{.scale}", "d, a, b, c"),
), operands=_SCALAR_OPERANDS, gate=_SCALAR)

SCALAR_OPS = ("vadd", "vsub", "vabsdiff", "vmin", "vmax")
SIMD_OPS = ("vadd", "vsub", "vavrg", "vabsdiff", "vmin", "vmax")

RECORDS = (
    *(_scalar(n) for n in SCALAR_OPS),
    _scalar("vshl", mode=True), _scalar("vshr", mode=True),
    _VMAD, _vset("vset"),
    *(_simd(n + k) for n in SIMD_OPS for k in "24"),
    _vset("vset2"), _vset("vset4"),
)

NAMES = tuple(r.name for r in RECORDS)
#: SIMD instruction name -> (its operation, lanes per 32-bit word)
SIMD = {f"{op}{k}": (op, int(k)) for op in SIMD_OPS + ("vset",) for k in "24"}


class ScalarLowering(Record):
    """What a GPU computes for a scalar video instruction where it departs from the PTX ISA's
    pseudocode. Since sm_50 there is no video unit: ptxas lowers each scalar video instruction to
    a sequence of integer instructions on a 64-bit intermediate, and these are the rules of that
    lowering, measured on an NVIDIA H200 (sm_90) for every operation, type mix, selector, merge,
    `.sat` and secondary operation.

    - `secop_on_word`: the secondary operation (`.add/.min/.max`) sees the 32-bit result
      sign-extended (vadd, vsub), not the exact intermediate. After `.sat` every operation
      passes the saturated 32-bit word, sign-extended.
    - `sat_bits`: the width of the intermediate `.sat` clamps (vshl: 34 bits, sign-extended, so
      a shifted-out bit 33 makes it negative); 64 is exact for the others.
    - `merge_clamps_subword`: with `.sat` and a destination selector, the value is clamped to the
      sub-word as an unsigned number after any intermediate outside 32 bits became 0xFFFFFFFF
      (so a negative result saturates to the sub-word's maximum); without it (vshl, vshr) the
      32-bit clamp alone applies and the low bits are merged.
    - `unsigned_sat_caps`: `.sat` to .u32 clamps at 0xFFFFFFFF; without it only negative
      results become 0 and larger ones keep their low 32 bits.
    """
    __slots__ = FIELDS = ("secop_on_word", "sat_bits", "merge_clamps_subword", "unsigned_sat_caps")
    DEFAULTS = {"secop_on_word": False, "sat_bits": 64, "merge_clamps_subword": True, "unsigned_sat_caps": False}


SCALAR_LOWERING = {
    "vadd": ScalarLowering(secop_on_word=True),
    "vsub": ScalarLowering(secop_on_word=True),
    "vabsdiff": ScalarLowering(),
    "vmin": ScalarLowering(),
    "vmax": ScalarLowering(),
    "vshl": ScalarLowering(sat_bits=34, merge_clamps_subword=False, unsigned_sat_caps=True),
    "vshr": ScalarLowering(merge_clamps_subword=False, unsigned_sat_caps=True),
    "vset": ScalarLowering(),
}
