"""Warpgroup-level matrix instructions: wgmma.fence, wgmma.commit_group, wgmma.wait_group,
wgmma.mma_async and wgmma.mma_async.sp (PTX ISA 9.7.15). Forms measured with ptxas 13.0.

Which shape goes with which types is data of `ptxld.spec.mma` (`WGMMA_K`, `WGMMA_ACC`,
`wgmma_n_values`), together with the fragment layouts. A module of its own: the ~2,500 forms (one
per N of every type combination) are built only by a check that meets a wgmma instruction.
"""
from __future__ import annotations

from .. import mma as mma_spec
from ..gates import Gate
from ..isa import Form, Group, InstructionSpec
from .common import SYNC_ALIGNED as _SYNC, fragment_class, fragment_role

_WGMMA = Gate((8, 0), 90, "wgmma", "wgmma: PTX ISA 8.0, sm_90a.", only_targets=("sm_90a",))
_WGMMA_MIXED_INT = Gate((8, 4), 90, "wgmma with mixed integer types",
                        "wgmma .s8 with .u8 (either order): PTX ISA 8.4, sm_90a.", only_targets=("sm_90a",))
# ptxas 13.0 names three features (floating point, FP8, integer types), all PTX ISA 8.2
_WGMMA_SP = Gate((8, 2), 90, "sparse wgmma", "wgmma.mma_async.sp: PTX ISA 8.2, sm_90a.",
                 only_targets=("sm_90a",))


_ROLES: dict[str, str] = {}


def _role(name: str, count: int, cls: str, write: bool = False) -> str:
    return fragment_role(_ROLES, name, count, cls, write)


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
        av = _role("av", mma_spec.wgmma_fragments(8, atype, mma_spec.WGMMA_ACC[atype][0])["a"].nregs, fragment_class(atype))
        for btype in family:
            for dtype in mma_spec.WGMMA_ACC[atype]:
                types = f".{dtype}.{atype}.{btype}"
                for n in mma_spec.wgmma_n_values(atype):
                    shape = {"shape": (f".m64n{n}k{k}",)}
                    d = _role("d", mma_spec.wgmma_d_registers(n, dtype), fragment_class(dtype), True)
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


def _aligned_or_not(operands: str) -> tuple[Form, Form]:
    """`.sync.aligned`, as the ISA writes it, and `.sync` alone, which ptxas 13.0 also takes."""
    return (Form(".sync.aligned", operands),
            Form(".sync", operands, beyond_isa="the PTX ISA writes `.sync.aligned`"))


_WGMMA_FORMS = _wgmma_forms()
_WGMMA_SP_FORMS = _wgmma_forms(sparse=True)

RECORDS = (
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
