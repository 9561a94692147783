"""Barriers, memory ordering and warp-level data exchange (PTX ISA 9.7.13: bar, barrier,
bar.warp.sync, membar, fence, shfl, match, redux, activemask), measured against ptxas 13.0:
`bar.arrive` needs its thread count, `.aligned` belongs to `barrier` only, `fence.sc/.acq_rel`
need a scope, `shfl` moves `.b32` only, `match.any` has no predicate result, `redux` takes
`.b32` for bitwise and `.u32/.s32` for arithmetic operations. `barrier.cluster` and the proxy
fences have records of their own."""
from __future__ import annotations

from ..gates import Gate
from ..isa import Form, Group, InstructionSpec

# barrier ids, thread counts, member masks, sleep times: integer registers only (ptxas 13.0
# refuses .f16x2 and .f32 registers there, which it reads as 32 bits in arithmetic)
_BAR_ID = "reg|imm:int32"
# a thread count is a multiple of the warp size (ptxas 13.0 checks immediates: "Number of threads
# participating in barrier must be in multiple of warp size")
_COUNT = "reg|imm%32:int32"
_BAR_OPS = {"a": _BAR_ID, "b": _COUNT, "dr": "=reg:.u32", "dp": "=pred", "c": "npred"}
_CTA = Gate((7, 8), None, "bar/barrier .cta", "`.cta` on bar/barrier: PTX ISA 7.8 (ptxas 13.0: any target).")
_RED = Gate((2, 0), 20, "bar.red", "bar.red: PTX ISA 2.0, sm_20.")
_NO_SYNC = Gate(source="shfl without .sync: not supported on sm_70 and later from PTX ISA 6.4",
                below_sm=70, below_sm_from_ptx=(6, 4), note="use `shfl.sync` with a member mask")
_WARP_SYNC = Gate((6, 0), 30, "warp .sync", "shfl.sync/bar.warp.sync: PTX ISA 6.0, sm_30.")


def _barrier(name: str, section: str, aligned: bool) -> InstructionSpec:
    al = "{.aligned}" if aligned else ""
    return InstructionSpec(name, section, (
        # ptxas takes `.sync` written twice (`barrier.sync.sync`), not `.arrive` or `.red`
        Group("cta", (".cta",)), Group("sync", (".sync",), repeatable=True), Group("mode", (".arrive", ".red")),
        *((Group("aligned", (".aligned",)),) if aligned else ()),
        Group("op", (".popc", ".and", ".or")), Group("type", (".u32", ".pred")),
    ), forms=(
        Form(f"{{.cta}}.sync{al}", "a{, b}"),
        Form(f"{{.cta}}.arrive{al}", "a, b"),
        Form(f"{{.cta}}.red.popc{al}.u32", "dr, a, c", gate=_RED),
        Form(f"{{.cta}}.red.popc{al}.u32", "dr, a, b, c", gate=_RED),
        Form(f"{{.cta}}.red.op{al}.pred", "dp, a, c", where={"op": (".and", ".or")}, gate=_RED),
        Form(f"{{.cta}}.red.op{al}.pred", "dp, a, b, c", where={"op": (".and", ".or")}, gate=_RED),
    ), operands=_BAR_OPS, gates={".cta": _CTA})


RECORDS = (
    _barrier("bar", "PTX ISA 9.7.13.1 (bar)", False),
    _barrier("barrier", "PTX ISA 9.7.13.1 (barrier)", True),
    InstructionSpec("bar.warp.sync", "PTX ISA 9.7.13.2 (bar.warp.sync)", (), forms=(Form("", "m"),),
                    operands={"m": "reg|imm:int32"}, gate=_WARP_SYNC),
    InstructionSpec("membar", "PTX ISA 9.7.13.4 (membar)", (Group("level", (".cta", ".gl", ".sys")),),
                    forms=(Form(".level"),)),
    InstructionSpec("fence", "PTX ISA 9.7.13.4 (fence)", (
        Group("init", (".mbarrier_init",)), Group("sem", (".sc", ".acq_rel", ".release", ".acquire")),
        Group("scope", (".cta", ".cluster", ".gpu", ".sys")),
    ), forms=(
        # ptxas 13.0 takes a scope alone and `.release`/`.acquire` with any scope
        Form("{.sem}.scope", where={"sem": (".sc", ".acq_rel", ".release", ".acquire")}),
        Form(".mbarrier_init.release.cluster",
             gate=Gate((8, 0), 90, "fence.mbarrier_init", "fence.mbarrier_init: PTX ISA 8.0, sm_90.")),
    ), gate=Gate((6, 0), 70, "fence", "fence: PTX ISA 6.0, sm_70."),
        gates={".cluster": Gate((7, 8), 90, ".cluster scope", "`.cluster` scope: PTX ISA 7.8, sm_90.")}),
    InstructionSpec("shfl", "PTX ISA 9.7.9.6 (shfl.sync)", (
        Group("sync", (".sync",), repeatable=True), Group("mode", (".up", ".down", ".bfly", ".idx")),
        Group("type", (".b32",)),
    ), forms=(
        Form(".sync.mode.b32", "d, a, b, c, m", gate=_WARP_SYNC),
        Form(".mode.b32", "d, a, b, c", gate=_NO_SYNC),
    ), operands={"d": "=reg|pair:.b32", "a": "reg|imm:.b32", "b": "reg|imm:.b32", "c": "reg|imm:.b32",
                 "m": "reg|imm:int32"}),
    InstructionSpec("match", "PTX ISA 9.7.13.9 (match.sync)", (
        Group("mode", (".any", ".all")), Group("sync", (".sync",)), Group("type", (".b32", ".b64")),
    ), forms=(
        Form(".any.sync.type", "d, a, m"),
        Form(".all.sync.type", "dp, a, m"),
    ), operands={"d": "=reg:int32", "dp": "=reg|pair:int32", "a": "reg|imm:type", "m": "reg|imm:int32"},
        gate=Gate((6, 0), 70, "match", "match.sync: PTX ISA 6.0, sm_70.")),
    InstructionSpec("redux", "PTX ISA 9.7.13.10 (redux.sync)", (
        Group("sync", (".sync",), repeatable=True), Group("op", (".add", ".min", ".max", ".and", ".or", ".xor")),
        Group("abs", (".abs",)), Group("nan", (".NaN",)), Group("type", (".b32", ".u32", ".s32", ".f32")),
    ), forms=(
        Form(".sync.op.b32", "di, ai, m", where={"op": (".and", ".or", ".xor")}),
        Form(".sync.op.type", "di, ai, m", where={"op": (".add", ".min", ".max"), "type": (".u32", ".s32")}),
        Form(".sync.op{.abs}{.NaN}.f32", "d, a, m", where={"op": (".min", ".max")},
             gate=Gate((8, 6), 100, "redux.f32", "redux.sync .f32: PTX ISA 8.6, sm_100a/sm_100f.",
                       only_targets=("sm_100a", "sm_101a", "sm_103a", "sm_100f", "sm_101f", "sm_103f"))),
    ), operands={"d": "=reg:type", "a": "reg|imm:type", "di": "=reg:int32", "ai": "reg|imm:int32",
                 "m": "reg|imm:int32"},
        gate=Gate((7, 0), 80, "redux.sync", "redux.sync: PTX ISA 7.0, sm_80.")),
    InstructionSpec("activemask", "PTX ISA 9.7.13.11 (activemask)", (Group("type", (".b32",)),),
                    forms=(Form(".b32", "d"),), operands={"d": "=reg:.b32"},
                    gate=Gate((6, 2), 30, "activemask", "activemask: PTX ISA 6.2, sm_30.")),
    InstructionSpec("nanosleep", "PTX ISA 9.7.19.5 (nanosleep)", (Group("type", (".u32",)),),
                    forms=(Form(".u32", "t"),), operands={"t": "reg|imm:int32"},
                    gate=Gate((6, 3), 70, "nanosleep", "nanosleep: PTX ISA 6.3, sm_70.")),
    InstructionSpec("trap", "PTX ISA 9.7.19.4 (trap)", (), forms=(Form(""),)),
    InstructionSpec("brkpt", "PTX ISA 9.7.19.1 (brkpt)", (), forms=(Form(""),),
                    gate=Gate((1, 0), 11, "brkpt", "brkpt: sm_11.")),
    InstructionSpec("pmevent", "PTX ISA 9.7.19.3 (pmevent)", (Group("mask", (".mask",)),),
                    forms=(Form("", "e"), Form(".mask", "e")), operands={"e": "imm"}),
)
