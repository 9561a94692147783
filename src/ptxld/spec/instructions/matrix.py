"""Warp-level matrix instructions: ldmatrix, stmatrix, movmatrix, mma (mma.sync) and mma.sp
(PTX ISA 9.7.14.5). Forms measured with ptxas 13.0; the warpgroup ones (wgmma.*) are in `wgmma`.

Which shape goes with which types (`mma.sync`) is data of `ptxld.spec.mma` (`MMA_KINDS`),
together with the fragment layouts; the `mma` record below gives the vocabulary of the opcode
(every qualifier ptxas takes) and leaves those combinations to that table.
"""
from __future__ import annotations

from .. import mma as mma_spec
from ..gates import Gate
from ..isa import Form, Group, InstructionSpec
from .common import SYNC_ALIGNED as _SYNC, fragment_class, fragment_role

_SPACE = Group("ss", (".shared", ".shared::cta"))

_LDMATRIX = Gate((6, 5), 75, "ldmatrix", "ldmatrix: PTX ISA 6.5, sm_75.")
_STMATRIX = Gate((7, 8), 90, "stmatrix", "stmatrix: PTX ISA 7.8, sm_90.")
_MOVMATRIX = Gate((7, 8), 75, "movmatrix", "movmatrix: PTX ISA 7.8, sm_75.")
B8_FORMS = Gate((8, 6), 100, "8-bit matrix shapes",
                 "ldmatrix .m16n16/.m8n16, stmatrix .m16n8: PTX ISA 8.6, the architecture- and "
                 "family-specific targets of sm_100 and later (ptxas 13.0 refuses plain sm_100, "
                 "sm_120 and sm_90a)",
                 only_targets=("sm_100a", "sm_100f", "sm_101a", "sm_101f", "sm_103a", "sm_103f",
                               "sm_110a", "sm_110f", "sm_120a", "sm_120f", "sm_121a", "sm_121f"))
_SHARED_CTA = {".shared::cta": Gate((7, 8), None, ".shared::cta", ".shared::cta: PTX ISA 7.8.")}
_MMA_SHAPES = tuple(sorted({"." + k.shape for k in mma_spec.MMA_KINDS}))
_MMA_TYPES = (".f16", ".f32", ".bf16", ".tf32", ".f64", ".s8", ".u8", ".s4", ".u4", ".b1",
              ".s32", ".e4m3", ".e5m2", ".e3m2", ".e2m3", ".e2m1", ".ue8m0", ".ue4m3")


_ROLES: dict[str, str] = {}


def _role(name: str, count: int, cls: str, write: bool = False) -> str:
    return fragment_role(_ROLES, name, count, cls, write)


def _mma_operands(kind, d: str, a: str, b: str, c: str) -> str:
    lays = mma_spec.mma_fragments(kind.shape, a, b, c, d)
    return ", ".join(_role(n, lays[n].nregs, fragment_class(t), n == "d")
                     for n, t in (("d", d), ("a", a), ("b", b), ("c", c)))


def _mma_forms() -> tuple[Form, ...]:
    """One form per (shape, dtype, atype, btype, ctype) of `mma_spec.MMA_KINDS`, with its gate; layouts
    .row.col except m8n8k4 .f16 (any), .satfinite for the integer types, .rnd for .f64, the
    required .xor/.and + .popc for .b1 (`.and` from sm_80, PTX ISA 7.1); FP8 with .f16
    accumulators from PTX ISA 8.7 (all measured with ptxas 13.0)."""
    out = []
    for kind in mma_spec.MMA_KINDS:
        layouts = ".alayout.blayout" if kind.shape == "m8n8k4" and kind.ab == ("f16",) else ".row.col"
        for d, a, b, c in mma_spec.mma_type_combinations(kind):
            gate = Gate(kind.min_ptx, kind.min_sm, f"mma .{kind.shape} .{a}",
                        f"mma.sync .{kind.shape} with .{a}: PTX ISA {kind.min_ptx[0]}.{kind.min_ptx[1]}, "
                        f"sm_{kind.min_sm}.")
            if a in ("e4m3", "e5m2") and d == "f16":
                gate = Gate((8, 7), 89, "mma FP8 with .f16 accumulators",
                            "mma.sync FP8 with .f16 accumulators: PTX ISA 8.7, sm_89.")
            types = f".{d}.{a}.{b}.{c}"
            base = f".sync.aligned.{kind.shape}{layouts}"
            ops = _mma_operands(kind, d, a, b, c)
            if a in ("s8", "u8", "s4", "u4"):
                out.append(Form(base + "{.satfinite}" + types, ops, gate=gate))
            elif a == "f64":
                out.append(Form(base + "{.rnd}" + types, ops, gate=gate))
            elif a == "b1":
                out.append(Form(base + types + ".xor.popc", ops, gate=gate))
                out.append(Form(base + types + ".and.popc", ops,
                                gate=gate.join(Gate((7, 1), 80, "mma .and.popc"))))
            else:
                out.append(Form(base + types, ops, gate=gate))
    # sm_120 `.kind::` forms (block scaling, new types): vocabulary only, operands not checked
    out.append(Form(".sync.aligned.shape.row.col.kind{.block_scale}{.scale_vec}.dtype.atype.btype.ctype{.stype}",
                    "dk, ak, bk, ck{, x1, x2, x3, x4}", gate=Gate((8, 7), 120, "mma .kind",
                                                              "mma .kind::*: PTX ISA 8.7, sm_120a.")))
    return tuple(out)


def _sparse_mma(name: str) -> InstructionSpec:
    """mma.sp and mma.sp::ordered_metadata (the decoder reads the `::` spelling as one name)."""
    return InstructionSpec(name, "PTX ISA 9.7.14.6 (mma.sp)", _SYNC + (
        Group("shape", _MMA_SHAPES + (".m16n8k64", ".m16n8k128")),
        Group("alayout", (".row", ".col")), Group("blayout", (".row", ".col")),
        Group("satfinite", (".satfinite",), repeatable=True),
        Group("kind", (".kind::f8f6f4", ".kind::mxf8f6f4", ".kind::mxf4", ".kind::mxf4nvf4",
                       ".kind::f16", ".kind::tf32", ".kind::i8")),
        Group("block_scale", (".block_scale",)),
        Group("scale_vec", (".scale_vec::1X", ".scale_vec::2X", ".scale_vec::4X")),
        Group("dtype", _MMA_TYPES), Group("atype", _MMA_TYPES), Group("btype", _MMA_TYPES),
        Group("ctype", _MMA_TYPES), Group("stype", _MMA_TYPES),
    ))


def _per_num(template: str, regs: dict, gate: Gate, dest: bool) -> tuple[Form, ...]:
    """One form per .num of an ldmatrix/stmatrix template: `regs` maps .x1/.x2/.x4 to the
    number of registers (ptxas: "Vector of size N is expected")."""
    out = []
    for num, n in regs.items():
        r = _role("d" if dest else "r", n, "f32", dest)
        out.append(Form(template, f"{r}, a" if dest else f"a, {r}", gate=gate, where={"num": (num,)}))
    return tuple(out)


_X = {".x1": 1, ".x2": 2, ".x4": 4}
_LDMATRIX_FORMS = (
    _per_num(".sync.aligned.m8n8.num{.trans}{.ss}.b16", _X, _LDMATRIX, True)
    + _per_num(".sync.aligned.m16n16.num.trans{.ss}.b8", {".x1": 2, ".x2": 4}, B8_FORMS, True)
    + _per_num(".sync.aligned.m16n16.num.trans{.ss}.b8x16.src_fmt", {".x1": 2, ".x2": 4}, B8_FORMS, True)
    + _per_num(".sync.aligned.m8n16.num{.ss}.b8x16.src_fmt", _X, B8_FORMS, True))
_STMATRIX_FORMS = (
    _per_num(".sync.aligned.m8n8.num{.trans}{.ss}.b16", _X, _STMATRIX, False)
    + _per_num(".sync.aligned.m16n8.num.trans{.ss}.b8", _X, B8_FORMS, False))
_MMA_FORMS = _mma_forms()

RECORDS = (
    InstructionSpec("ldmatrix", "PTX ISA 9.7.14.5.15 (ldmatrix)", _SYNC + (
        Group("shape", (".m8n8", ".m16n16", ".m8n16")), Group("num", tuple(mma_spec.COUNTS)),
        Group("trans", (".trans",)), _SPACE,
        Group("type", (".b16", ".b8", ".b8x16")), Group("src_fmt", (".b6x16_p32", ".b4x16_p64")),
    ), forms=_LDMATRIX_FORMS, operands={"a": "addr", **_ROLES}, gates=_SHARED_CTA),

    InstructionSpec("stmatrix", "PTX ISA 9.7.14.5.16 (stmatrix)", _SYNC + (
        Group("shape", (".m8n8", ".m16n8")), Group("num", tuple(mma_spec.COUNTS)),
        Group("trans", (".trans",)), _SPACE, Group("type", (".b16", ".b8")),
    ), forms=_STMATRIX_FORMS, operands={"a": "addr", **_ROLES}),

    InstructionSpec("movmatrix", "PTX ISA 9.7.14.5.17 (movmatrix)", _SYNC + (
        Group("shape", (".m8n8",)), Group("trans", (".trans",)), Group("type", (".b16",)),
    ), forms=(
        Form(".sync.aligned.m8n8.trans.b16", "dm, am", gate=_MOVMATRIX),
    ), operands={"dm": "=reg:b32", "am": "reg:b32"}),

    # mma: every qualifier ptxas takes on mma.sync; the shape/type table is mma_spec.MMA_KINDS
    InstructionSpec("mma", "PTX ISA 9.7.14.5.14 (mma)", _SYNC + (
        Group("shape", _MMA_SHAPES + (".m16n8k64", ".m16n8k128")),
        Group("alayout", (".row", ".col")), Group("blayout", (".row", ".col")),
        Group("rnd", (".rn", ".rz", ".rm", ".rp")), Group("satfinite", (".satfinite",), repeatable=True),
        Group("kind", (".kind::f8f6f4", ".kind::mxf8f6f4", ".kind::mxf4", ".kind::mxf4nvf4",
                       ".kind::f16", ".kind::tf32", ".kind::i8")),
        Group("block_scale", (".block_scale",)),
        Group("scale_vec", (".scale_vec::1X", ".scale_vec::2X", ".scale_vec::4X")),
        Group("dtype", _MMA_TYPES), Group("atype", _MMA_TYPES), Group("btype", _MMA_TYPES),
        Group("ctype", _MMA_TYPES), Group("stype", _MMA_TYPES),
        Group("bitop", (".xor", ".and")), Group("popc", (".popc",)),
    ), forms=_MMA_FORMS, operands={
        "dk": "=vec", "ak": "vec", "bk": "vec", "ck": "vec",
        "x1": "reg|vec|imm", "x2": "reg|vec|imm", "x3": "reg|vec|imm", "x4": "reg|vec|imm", **_ROLES,
    }),
    _sparse_mma("mma.sp"),
    _sparse_mma("mma.sp::ordered_metadata"),
)
