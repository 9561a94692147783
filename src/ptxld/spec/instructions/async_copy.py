"""Asynchronous copies (PTX ISA 9.7.9.25: cp.async, cp.async.bulk, cp.reduce.async.bulk,
cp.async.bulk.tensor and their group, prefetch and tensor-map companions).

Every record gives the decoder its vocabulary (which slot each modifier fills). The group
instructions have their syntax forms (checked against ptxas 13.0 with tools/ptxas_oracle); the
copies themselves do not list forms yet, so the checker reports their unknown modifiers but does
not match them against forms.
"""
from __future__ import annotations

from ..gates import Gate
from ..isa import Form, Group, InstructionSpec

_SM80 = Gate((7, 0), 80, "cp.async", "cp.async and its groups: PTX ISA 7.0, sm_80.")
_SM90 = Gate((8, 0), 90, "cp.async.bulk", "bulk asynchronous copies and their groups: PTX ISA 8.0, sm_90.")
_N = {"n": "imm:.u32"}
_MULTICAST_GATE = Gate((8, 0), 90, ".multicast::cluster", ".multicast::cluster: sm_90a.",
                       only_targets=("sm_90a", "sm_100a", "sm_100f", "sm_101a", "sm_101f", "sm_103a",
                                     "sm_103f", "sm_110a", "sm_110f"))
#: redop -> types of cp.reduce.async.bulk, by destination (PTX ISA table; ptxas 13.0 agrees)
_REDUCE_CLUSTER = {(".and", ".or", ".xor"): (".b32",), (".inc", ".dec"): (".u32",),
                   (".min", ".max"): (".u32", ".s32"), (".add",): (".u32", ".s32", ".u64")}
_REDUCE_GLOBAL = {(".and", ".or", ".xor"): (".b32", ".b64"), (".inc", ".dec"): (".u32",),
                  (".min", ".max"): (".u32", ".s32", ".u64", ".s64", ".f16", ".bf16"),
                  (".add",): (".u32", ".s32", ".u64", ".f32", ".f64")}


def _reduce_forms() -> tuple:
    out = []
    for ops, types in _REDUCE_CLUSTER.items():
        out.append(Form(".shared::cluster.shared::cta.mbarrier::complete_tx::bytes.redop.type",
                        "dst, src, size, mbar", where={"redop": ops, "type": types}))
    for ops, types in _REDUCE_GLOBAL.items():
        out.append(Form(".global.shared::cta.bulk_group.redop.type", "dst, src, size",
                        where={"redop": ops, "type": types}))
        out.append(Form(".global.shared::cta.bulk_group.redop.type.cache_hint", "dst, src, size, policy",
                        where={"redop": ops, "type": types}))
    # half-precision adds into global memory: .noftz required (min/max take none)
    out.append(Form(".global.shared::cta.bulk_group.add.noftz.type", "dst, src, size",
                    where={"type": (".f16", ".bf16")}))
    out.append(Form(".global.shared::cta.bulk_group.add.noftz.type.cache_hint", "dst, src, size, policy",
                    where={"type": (".f16", ".bf16")}))
    return tuple(out)


# ptxas 13.0 takes integer registers only (no .f16x2, no floating-point register), an immediate
# cache policy, and an immediate size only as a multiple of 16 ("expected to be multiple of 16")
_BULK_OPERANDS = {"dst": "addr", "src": "addr", "size": "reg|imm%16:int32", "mbar": "addr",
                  "mask": "reg|imm:int16", "policy": "reg|imm:int64", "bytemask": "reg|imm:int16"}
_PTX86 = Gate((8, 6), 90, ".shared::cta destination", "cp.async.bulk into .shared::cta: PTX ISA 8.6.")
_CP_MASK = Gate((8, 6), 100, ".cp_mask", ".cp_mask: PTX ISA 8.6, sm_100.")

#: state spaces an asynchronous copy names, destination first (the ISA writes `.dst.src`)
_SPACES = (".shared", ".shared::cta", ".shared::cluster", ".global")
#: cache-eviction hint operand (`.L2::cache_hint` adds a 64-bit cache-policy operand)
_HINT = Group("cache_hint", (".L2::cache_hint",))
#: prefetch of the surrounding L2 sector group (sm_80 cp.async, ld)
_PREFETCH = Group("prefetch_size", (".L2::64B", ".L2::128B", ".L2::256B"))
#: how an asynchronous bulk operation signals completion
_COMPLETION = Group("completion", (".mbarrier::complete_tx::bytes", ".bulk_group"))
_MULTICAST = Group("multicast", (".multicast::cluster",))
_REDOP = Group("redop", (".add", ".min", ".max", ".inc", ".dec", ".and", ".or", ".xor"))
_RTYPE = Group("type", (".b32", ".u32", ".s32", ".b64", ".u64", ".s64", ".f32", ".f64", ".f16",
                        ".bf16", ".f16x2", ".bf16x2"))
_DIM = Group("dim", (".1d", ".2d", ".3d", ".4d", ".5d"))
#: tensor copy modes: tiles of the tensor or im2col columns of an image (sm_90); the gather/
#: scatter and wide im2col modes are sm_100 and listed so the decoder names them
_LOAD_MODE = Group("load_mode", (".tile", ".im2col", ".im2col_no_offs", ".tile::gather4",
                                 ".tile::scatter4", ".im2col::w", ".im2col::w::128"))
_CTA_GROUP = Group("cta_group", (".cta_group::1", ".cta_group::2"))
#: tensormap.replace: PTX ISA 8.3, the architecture- and family-specific targets from sm_90a on
#: (ptxas 13.0 refuses it on sm_90, sm_100, sm_103 and sm_120)
_TENSORMAP_REPLACE = Gate((8, 3), 90, "tensormap.replace", "tensormap.replace: PTX ISA 8.3, sm_90a.",
                          only_targets=("sm_90a", "sm_100a", "sm_100f", "sm_101a", "sm_101f", "sm_103a",
                                        "sm_103f", "sm_110a", "sm_110f", "sm_120a", "sm_120f",
                                        "sm_121a", "sm_121f"))

RECORDS = (
    InstructionSpec("cp.async", "PTX ISA 9.7.9.25.3.1 (cp.async)", (
        Group("cache", (".ca", ".cg")), Group("dst", (".shared", ".shared::cta")),
        Group("src", (".global",)), _HINT, _PREFETCH)),
    InstructionSpec("cp.async.commit_group", "PTX ISA 9.7.9.25.3.2 (cp.async.commit_group)", (),
                    forms=(Form("", ""),), gate=_SM80),
    InstructionSpec("cp.async.wait_group", "PTX ISA 9.7.9.25.3.3 (cp.async.wait_group)", (),
                    forms=(Form("", "n"),), operands=_N, gate=_SM80),
    InstructionSpec("cp.async.wait_all", "PTX ISA 9.7.9.25.3.3 (cp.async.wait_all)", (),
                    forms=(Form("", ""),), gate=_SM80),
    InstructionSpec("cp.async.bulk", "PTX ISA 9.7.9.25.4.1 (cp.async.bulk)", (
        Group("dst", _SPACES), Group("src", _SPACES), _COMPLETION, _MULTICAST, _HINT,
        Group("cp_mask", (".cp_mask",))), forms=(
        Form(".shared::cluster.global.mbarrier::complete_tx::bytes", "dst, src, size, mbar"),
        Form(".shared::cluster.global.mbarrier::complete_tx::bytes.cache_hint", "dst, src, size, mbar, policy"),
        Form(".shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster", "dst, src, size, mbar, mask",
             gate=_MULTICAST_GATE),
        Form(".shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster.cache_hint",
             "dst, src, size, mbar, mask, policy", gate=_MULTICAST_GATE),
        Form(".shared::cluster.shared::cta.mbarrier::complete_tx::bytes", "dst, src, size, mbar"),
        Form(".global.shared::cta.bulk_group", "dst, src, size"),
        Form(".global.shared::cta.bulk_group.cache_hint", "dst, src, size, policy"),
        # into the executing CTA's own shared memory (PTX ISA 8.6)
        Form(".shared::cta.global.mbarrier::complete_tx::bytes", "dst, src, size, mbar", gate=_PTX86),
        Form(".shared::cta.global.mbarrier::complete_tx::bytes.cache_hint", "dst, src, size, mbar, policy",
             gate=_PTX86),
        # a byte mask on stores to global memory (PTX ISA 8.6, sm_100)
        Form(".global.shared::cta.bulk_group.cp_mask", "dst, src, size, bytemask", gate=_CP_MASK),
        Form(".global.shared::cta.bulk_group.cache_hint.cp_mask", "dst, src, size, policy, bytemask",
             gate=_CP_MASK),
    ), operands=_BULK_OPERANDS, gate=_SM90),
    InstructionSpec("cp.reduce.async.bulk", "PTX ISA 9.7.9.25.4.2 (cp.reduce.async.bulk)", (
        Group("dst", _SPACES), Group("src", _SPACES), _COMPLETION, _REDOP, _RTYPE,
        Group("noftz", (".noftz",)), _HINT), forms=(
        *_reduce_forms(),
    ), operands=_BULK_OPERANDS, gate=_SM90),
    InstructionSpec("cp.async.bulk.prefetch", "PTX ISA 9.7.9.25.4.3 (cp.async.bulk.prefetch)", (
        Group("level", (".L2",)), Group("src", (".global",)), _HINT), forms=(
        Form(".L2.global", "src, size"), Form(".L2.global.cache_hint", "src, size, policy"),
    ), operands=_BULK_OPERANDS, gate=_SM90),
    InstructionSpec("cp.async.bulk.tensor", "PTX ISA 9.7.9.25.5.1 (cp.async.bulk.tensor)", (
        _DIM, Group("dst", _SPACES), Group("src", _SPACES), _LOAD_MODE, _COMPLETION, _MULTICAST,
        _CTA_GROUP, _HINT)),
    InstructionSpec("cp.reduce.async.bulk.tensor", "PTX ISA 9.7.9.25.5.2 (cp.reduce.async.bulk.tensor)", (
        _DIM, Group("dst", _SPACES), Group("src", _SPACES), _REDOP, _LOAD_MODE, _COMPLETION,
        _RTYPE, _HINT)),
    InstructionSpec("cp.async.bulk.prefetch.tensor", "PTX ISA 9.7.9.25.5.3 (cp.async.bulk.prefetch.tensor)", (
        _DIM, Group("level", (".L2",)), Group("src", (".global",)), _LOAD_MODE, _HINT)),
    InstructionSpec("cp.async.bulk.commit_group", "PTX ISA 9.7.9.25.6.1 (cp.async.bulk.commit_group)", (),
                    forms=(Form("", ""),), gate=_SM90),
    InstructionSpec("cp.async.bulk.wait_group", "PTX ISA 9.7.9.25.6.2 (cp.async.bulk.wait_group)", (
        Group("read", (".read",)),), forms=(Form("{.read}", "n"),), operands=_N, gate=_SM90),
    InstructionSpec("tensormap.replace", "PTX ISA 9.7.9.26 (tensormap.replace)", (
        Group("mode", (".tile",)),
        Group("field", (".global_address", ".rank", ".box_dim", ".global_dim", ".global_stride",
                        ".element_stride", ".elemtype", ".interleave_layout", ".swizzle_mode",
                        ".swizzle_atomicity", ".fill_mode")),
        Group("space", (".global", ".shared::cta")), Group("size", (".b1024",)),
        Group("type", (".b32", ".b64"))), gate=_TENSORMAP_REPLACE),
    InstructionSpec("tensormap.cp_fenceproxy", "PTX ISA 9.7.13.4 (tensormap.cp_fenceproxy)", (
        Group("dst", (".global",)), Group("src", (".shared::cta",)),
        Group("proxy", (".tensormap::generic",)), Group("sem", (".release",)),
        Group("scope", (".cta", ".cluster", ".gpu", ".sys")), Group("sync", (".sync",)),
        Group("aligned", (".aligned",)))),
)
