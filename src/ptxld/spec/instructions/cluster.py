"""Clusters and warp-group coordination of sm_90: barrier.cluster, elect.sync, griddepcontrol,
setmaxnreg, mapa, getctarank, and the fences asynchronous copies need (fence.proxy.async,
fence.mbarrier_init).

The records give the decoder its vocabulary; the syntax forms are not listed yet.
"""
from __future__ import annotations

from ..isa import Group, InstructionSpec

RECORDS = (
    InstructionSpec("barrier.cluster", "PTX ISA 9.7.13.3 (barrier.cluster)", (
        Group("op", (".arrive", ".wait")), Group("sem", (".release", ".relaxed", ".acquire")),
        Group("aligned", (".aligned",)))),
    InstructionSpec("elect.sync", "PTX ISA 9.7.13.10 (elect.sync)", ()),
    InstructionSpec("griddepcontrol", "PTX ISA 9.7.13.13 (griddepcontrol)", (
        Group("action", (".launch_dependents", ".wait")),)),
    InstructionSpec("setmaxnreg", "PTX ISA 9.7.19.5 (setmaxnreg)", (
        Group("action", (".inc", ".dec")), Group("sync", (".sync",)),
        Group("aligned", (".aligned",)), Group("type", (".u32",)))),
    InstructionSpec("mapa", "PTX ISA 9.7.9.24 (mapa)", (
        Group("space", (".shared::cluster",)), Group("type", (".u32", ".u64")))),
    InstructionSpec("getctarank", "PTX ISA 9.7.9.23 (getctarank)", (
        Group("space", (".shared::cluster",)), Group("type", (".u32", ".u64")))),
    InstructionSpec("fence.proxy.async", "PTX ISA 9.7.13.4 (membar/fence: fence.proxy.async)", (
        Group("space", (".global", ".shared::cta", ".shared::cluster")),)),
    InstructionSpec("fence.mbarrier_init", "PTX ISA 9.7.13.4 (membar/fence: fence.mbarrier_init)", (
        Group("sem", (".release",)), Group("scope", (".cluster",)))),
)
