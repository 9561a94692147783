"""Clusters and warp-group coordination of sm_90: barrier.cluster, elect.sync, griddepcontrol,
setmaxnreg, mapa, getctarank, and the fences asynchronous copies need (fence.proxy.async,
fence.mbarrier_init).

Forms follow the ISA's syntax lines, checked against ptxas 13.0 (tools/ptxas_oracle); elect.sync
and setmaxnreg list none yet (their operands are a `d|p` pair and a restricted immediate).
"""
from __future__ import annotations

from ..gates import Gate
from ..isa import Form, Group, InstructionSpec

_SM90 = Gate((7, 8), 90, "clusters", "cluster instructions: PTX ISA 7.8, sm_90.")
_SM90_80 = Gate((8, 0), 90, "asynchronous proxy", "PTX ISA 8.0, sm_90.")

RECORDS = (
    InstructionSpec("barrier.cluster", "PTX ISA 9.7.13.3 (barrier.cluster)", (
        Group("op", (".arrive", ".wait")), Group("sem", (".release", ".relaxed", ".acquire")),
        Group("aligned", (".aligned",))), forms=(
        Form(".arrive{.sem}{.aligned}", "", where={"sem": (".release", ".relaxed")}),
        Form(".wait{.sem}{.aligned}", "", where={"sem": (".acquire",)}),
    ), gate=_SM90, gates={".release": Gate((8, 0), 90, ".sem", ".sem: PTX ISA 8.0."),
                          ".acquire": Gate((8, 0), 90, ".sem", ".sem: PTX ISA 8.0."),
                          ".relaxed": Gate((8, 0), 90, ".relaxed", ".relaxed: PTX ISA 8.0.")}),
    InstructionSpec("elect.sync", "PTX ISA 9.7.13.10 (elect.sync)", ()),
    InstructionSpec("griddepcontrol", "PTX ISA 9.7.13.13 (griddepcontrol)", (
        Group("action", (".launch_dependents", ".wait")),), forms=(Form(".action", ""),), gate=_SM90),
    InstructionSpec("setmaxnreg", "PTX ISA 9.7.19.5 (setmaxnreg)", (
        Group("action", (".inc", ".dec")), Group("sync", (".sync",)),
        Group("aligned", (".aligned",)), Group("type", (".u32",)))),
    InstructionSpec("mapa", "PTX ISA 9.7.9.24 (mapa)", (
        Group("space", (".shared::cluster",)), Group("type", (".u32", ".u64"))), forms=(
        Form("{.space}.type", "d, a, rank"),
    # ptxas 13.0 takes an immediate address, and an integer register only as the rank
    ), operands={"d": "=reg:type", "a": "reg|imm:type", "rank": "reg|imm:int32"}, gate=_SM90),
    InstructionSpec("getctarank", "PTX ISA 9.7.9.23 (getctarank)", (
        Group("space", (".shared::cluster",)), Group("type", (".u32", ".u64"))), forms=(
        Form("{.space}.type", "d, a"),
    ), operands={"d": "=reg:int32", "a": "reg|imm:type"}, gate=_SM90),
    InstructionSpec("fence.proxy.async", "PTX ISA 9.7.13.4 (membar/fence: fence.proxy.async)", (
        Group("space", (".global", ".shared::cta", ".shared::cluster")),),
        forms=(Form("{.space}", ""),), gate=_SM90_80),
    InstructionSpec("fence.mbarrier_init", "PTX ISA 9.7.13.4 (membar/fence: fence.mbarrier_init)", (
        Group("sem", (".release",)), Group("scope", (".cluster",))),
        forms=(Form(".release.cluster", ""),), gate=_SM90_80),
)
