"""Warp- and warpgroup-level matrix instructions: ldmatrix, stmatrix, movmatrix, mma (mma.sync),
mma.sp and wgmma.* (PTX ISA 9.7.14.5 and 9.7.15). Forms measured with ptxas 13.0.

Which shape goes with which types (`mma.sync`, `wgmma.mma_async`) is data of `ptxld.spec.mma`
(`MMA_KINDS`, `WGMMA_K`, `wgmma_n_values`), together with the fragment layouts; the `mma` and
`wgmma.mma_async` records below give the vocabulary of the opcode (every qualifier ptxas takes)
and leave those combinations to that table.
"""
from __future__ import annotations

from .. import mma as mma_spec
from ..gates import Gate
from ..isa import Form, Group, InstructionSpec

# ptxas 13.0 takes .sync (and .satfinite) written twice, not .aligned
_SYNC = (Group("sync", (".sync",), repeatable=True), Group("aligned", (".aligned",)))
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
_WGMMA = Gate((8, 0), 90, "wgmma", "wgmma: PTX ISA 8.0, sm_90a.", only_targets=("sm_90a",))
_WGMMA_MIXED_INT = Gate((8, 4), 90, "wgmma with mixed integer types",
                        "wgmma .s8 with .u8 (either order): PTX ISA 8.4, sm_90a.", only_targets=("sm_90a",))
# ptxas 13.0 names three features (floating point, FP8, integer types), all PTX ISA 8.2
_WGMMA_SP = Gate((8, 2), 90, "sparse wgmma", "wgmma.mma_async.sp: PTX ISA 8.2, sm_90a.",
                 only_targets=("sm_90a",))

_MMA_SHAPES = tuple(sorted({"." + k.shape for k in mma_spec.MMA_KINDS}))
_MMA_TYPES = (".f16", ".f32", ".bf16", ".tf32", ".f64", ".s8", ".u8", ".s4", ".u4", ".b1",
              ".s32", ".e4m3", ".e5m2", ".e3m2", ".e2m3", ".e2m1", ".ue8m0", ".ue4m3")


# register classes ptxas 13.0 takes for fragment elements (measured): 32-bit integer registers for
# packed and integer values (not .f32), any 32-bit register for .f32 values, .f64/.b64 for .f64
_CLASS = {"int": ".b32|.u32|.s32", "f32": "b32", "f64": ".f64|.b64"}
_ROLES: dict[str, str] = {}


def _role(name: str, count: int, cls: str, write: bool = False) -> str:
    """A vector operand role of `count` registers of a class (`_CLASS`), defined on first use."""
    key = f"{name} ({count} {'' if cls == 'f32' else cls + ' '}register{'s' if count > 1 else ''})"
    _ROLES[key] = f"{'=' if write else ''}vec:{_CLASS[cls]}*{count}"
    return key


def _cls(type_: str) -> str:
    return "f64" if type_ == "f64" else "f32" if type_ in ("f32", "tf32") else "int"


def _mma_operands(kind, d: str, a: str, b: str, c: str) -> str:
    lays = mma_spec.mma_fragments(kind.shape, a, b, c, d)
    return ", ".join(_role(n, lays[n].nregs, _cls(t), n == "d")
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


def _wgmma_forms(sparse: bool = False) -> tuple[Form, ...]:
    """wgmma.mma_async (or, `sparse`, wgmma.mma_async.sp) per operand type: the .m64nNkK shapes
    of `mma_spec.wgmma_n_values`, the accumulators of `mma_spec.WGMMA_ACC`, and the operand list
    (16-bit types take imm-trans for A and B, or for B alone when A is in registers; tf32 and FP8
    only imm-scale-a/b; integers and b1 only scale-d); the sparse forms (twice the K, no b1) take
    the metadata register and the sparsity selector after the descriptors — measured with ptxas
    13.0."""
    out = []
    meta = ", meta, sel" if sparse else ""
    for atype, k in mma_spec.WGMMA_K.items():
        if sparse:
            if atype not in mma_spec.WGMMA_SPARSE:
                continue
            k = mma_spec.WGMMA_SPARSE[atype].k
        family = {"e4m3": ("e4m3", "e5m2"), "e5m2": ("e4m3", "e5m2"), "s8": ("s8", "u8"),
                  "u8": ("s8", "u8")}.get(atype, (atype,))
        av = _role("av", mma_spec.wgmma_fragments(8, atype, mma_spec.WGMMA_ACC[atype][0])["a"].nregs, _cls(atype))
        for btype in family:
            for dtype in mma_spec.WGMMA_ACC[atype]:
                types = f".{dtype}.{atype}.{btype}"
                for n in mma_spec.wgmma_n_values(atype):
                    shape = {"shape": (f".m64n{n}k{k}",)}
                    d = _role("d", mma_spec.wgmma_d_registers(n, dtype), _cls(dtype), True)
                    if atype in ("f16", "bf16"):
                        out.append(Form(".sync{.aligned}.shape" + types,
                                        f"{d}, a, b{meta}, scale_d, imm_a, imm_b, trans_a, trans_b", where=shape))
                        out.append(Form(".sync{.aligned}.shape" + types,
                                        f"{d}, {av}, b{meta}, scale_d, imm_a, imm_b, trans_b", where=shape))
                    else:
                        template, rest = {
                            "b1": (".sync{.aligned}.shape" + types + ".and.popc", ", b, scale_d"),
                            "s8": (".sync{.aligned}.shape{.satfinite}" + types, f", b{meta}, scale_d"),
                            "u8": (".sync{.aligned}.shape{.satfinite}" + types, f", b{meta}, scale_d"),
                        }.get(atype, (".sync{.aligned}.shape" + types, f", b{meta}, scale_d, imm_a, imm_b"))
                        gate = _WGMMA_MIXED_INT if {atype, btype} == {"s8", "u8"} else None
                        out.append(Form(template, f"{d}, a{rest}", where=shape, gate=gate))
                        out.append(Form(template, f"{d}, {av}{rest}", where=shape, gate=gate))
    return tuple(out)


def _wgmma_shapes(k_factor: int = 1) -> tuple[str, ...]:
    """Every .m64nNkK (the sparse forms, k_factor 2, have twice the K of the dense ones)."""
    out = set()
    for t, k in mma_spec.WGMMA_K.items():
        if k_factor == 1 or t != "b1":
            out.update(f".m64n{n}k{k * k_factor}" for n in mma_spec.wgmma_n_values(t))
    return tuple(sorted(out))


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
_WGMMA_FORMS = _wgmma_forms()
_WGMMA_SP_FORMS = _wgmma_forms(sparse=True)


def _aligned_or_not(operands: str) -> tuple[Form, Form]:
    """`.sync.aligned`, as the ISA writes it, and `.sync` alone, which ptxas 13.0 also takes."""
    return (Form(".sync.aligned", operands),
            Form(".sync", operands, beyond_isa="the PTX ISA writes `.sync.aligned`"))

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

    # wgmma: ptxas 13.0 takes the wgmma instructions without `.aligned` (the ISA writes it)
    InstructionSpec("wgmma.fence", "PTX ISA 9.7.15.5.1 (wgmma.fence)", _SYNC,
                    forms=_aligned_or_not(""), gate=_WGMMA),
    InstructionSpec("wgmma.commit_group", "PTX ISA 9.7.15.5.3 (wgmma.commit_group)", _SYNC,
                    forms=_aligned_or_not(""), gate=_WGMMA),
    InstructionSpec("wgmma.wait_group", "PTX ISA 9.7.15.5.4 (wgmma.wait_group)", _SYNC,
                    forms=_aligned_or_not("n"), operands={"n": "imm:.u32"}, gate=_WGMMA),
    InstructionSpec("wgmma.mma_async", "PTX ISA 9.7.15.5.2 (wgmma.mma_async)", _SYNC + (
        Group("shape", _wgmma_shapes()),
        Group("dtype", (".f16", ".f32", ".s32")),
        Group("atype", (".f16", ".bf16", ".tf32", ".e4m3", ".e5m2", ".s8", ".u8", ".b1")),
        Group("btype", (".f16", ".bf16", ".tf32", ".e4m3", ".e5m2", ".s8", ".u8", ".b1")),
        Group("satfinite", (".satfinite",), repeatable=True), Group("bitop", (".and",)), Group("popc", (".popc",)),
    ), forms=_WGMMA_FORMS, operands={
        # descriptors: 64-bit integer registers or immediates (ptxas 13.0 refuses .f64)
        "a": "reg|imm:int64", "b": "reg|imm:int64", "scale_d": "npred|imm",
        "imm_a": "imm", "imm_b": "imm", "trans_a": "imm", "trans_b": "imm", **_ROLES,
    }, gate=_WGMMA),
    InstructionSpec("wgmma.mma_async.sp", "PTX ISA 9.7.15.6 (wgmma.mma_async.sp)", _SYNC + (
        Group("shape", _wgmma_shapes(2)),
        Group("dtype", (".f16", ".f32", ".s32")),
        Group("atype", (".f16", ".bf16", ".tf32", ".e4m3", ".e5m2", ".s8", ".u8")),
        Group("btype", (".f16", ".bf16", ".tf32", ".e4m3", ".e5m2", ".s8", ".u8")),
        Group("satfinite", (".satfinite",), repeatable=True),
    ), forms=_WGMMA_SP_FORMS, operands={
        # descriptors as for the dense form: 64-bit integer registers or immediates
        "a": "reg|imm:int64", "b": "reg|imm:int64", "meta": "reg:b32", "sel": "imm", "scale_d": "npred|imm",
        "imm_a": "imm", "imm_b": "imm", "trans_a": "imm", "trans_b": "imm", **_ROLES,
    }, gate=_WGMMA_SP),
)
