"""Cluster launch control (PTX ISA 9.7.13.16: clusterlaunchcontrol.try_cancel and
clusterlaunchcontrol.query_cancel) of sm_100 and later, measured against ptxas 13.0."""
from __future__ import annotations

from ..gates import Gate
from ..isa import Form, Group, InstructionSpec

_CLC = Gate((8, 6), 100, "clusterlaunchcontrol", "clusterlaunchcontrol: PTX ISA 8.6, sm_100.")
# the opaque 16-byte response try_cancel wrote (ptxas 13.0 also takes an immediate)
_RESPONSE = "reg|imm:.b128"
# `.multicast::cluster::all`: ptxas 13.0 takes it on the architecture- and family-specific
# targets of sm_100 and later only
_MULTICAST = Gate((8, 6), 100, ".multicast::cluster::all", "clusterlaunchcontrol.try_cancel "
                  ".multicast::cluster::all: sm_100a/sm_100f and later specific targets (ptxas 13.0).",
                  only_targets=tuple(f"sm_{n}{k}" for n in (100, 101, 103, 110, 120, 121) for k in "af"))

RECORDS = (
    InstructionSpec("clusterlaunchcontrol.try_cancel", "PTX ISA 9.7.13.16.1 (clusterlaunchcontrol.try_cancel)", (
        Group("async", (".async",)), Group("space", (".shared::cta",)),
        Group("completion", (".mbarrier::complete_tx::bytes",)), Group("multicast", (".multicast::cluster::all",)),
        Group("type", (".b128",)),
    ), forms=(Form(".async{.space}.mbarrier::complete_tx::bytes{.multicast}.b128", "addr, mbar"),),
        operands={"addr": "addr", "mbar": "addr"}, gate=_CLC, gates={".multicast::cluster::all": _MULTICAST}),
    InstructionSpec("clusterlaunchcontrol.query_cancel",
                    "PTX ISA 9.7.13.16.2 (clusterlaunchcontrol.query_cancel)", (
        Group("query", (".is_canceled", ".get_first_ctaid", ".get_first_ctaid::x", ".get_first_ctaid::y",
                        ".get_first_ctaid::z")),
        Group("vec", (".v4",)), Group("type", (".pred", ".b32")), Group("rtype", (".b128",)),
    ), forms=(
        Form(".is_canceled.pred.b128", "p, response"),
        Form(".get_first_ctaid.v4.b32.b128", "dims, response"),
        Form(".query.b32.b128", "d, response",
             where={"query": (".get_first_ctaid::x", ".get_first_ctaid::y", ".get_first_ctaid::z")}),
    ), operands={"p": "=pred", "dims": "=vec:.b32*4", "d": "=reg:.b32", "response": _RESPONSE}, gate=_CLC),
)
