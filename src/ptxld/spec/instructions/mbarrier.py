"""mbarrier: the shared-memory barrier object with phases and transaction counts (PTX ISA
9.7.13.15), and cp.async.mbarrier.arrive, the arrive-on triggered by completed cp.async
operations.

Forms follow the ISA's syntax lines; their gates are the ISA's PTX ISA notes and target notes
(checked against ptxas 13.0 with tools/ptxas_oracle).
"""
from __future__ import annotations

from ..gates import Gate
from ..isa import Form, Group, InstructionSpec

_SM80 = Gate((7, 0), 80, "mbarrier", "mbarrier: PTX ISA 7.0, sm_80.")
_SM90 = Gate((7, 8), 90, "mbarrier (sm_90 forms)", "try_wait and the count operand of arrive: PTX ISA 7.8, sm_90.")
_TX = Gate((8, 0), 90, "mbarrier transactions", "expect_tx, complete_tx and .expect_tx: PTX ISA 8.0, sm_90.")

_SPACE = Group("space", (".shared", ".shared::cta", ".shared::cluster"))
_TYPE = Group("type", (".b64",))
_SEM = Group("sem", (".release", ".acquire", ".relaxed"))
_SCOPE = Group("scope", (".cta", ".cluster"))
_GATES = {".shared::cta": Gate((7, 8), None, ".shared::cta", ".shared::cta: PTX ISA 7.8."),
          ".shared::cluster": Gate((8, 0), 90, ".shared::cluster", ".shared::cluster: PTX ISA 8.0, sm_90."),
          # ptxas 13.0 takes .release/.acquire with .cta on sm_80 too (the ISA text says sm_90)
          ".release": Gate((8, 0), 80, ".release", ".sem and .scope: PTX ISA 8.0."),
          ".acquire": Gate((8, 0), 80, ".acquire", ".sem and .scope: PTX ISA 8.0."),
          ".cta": Gate((8, 0), 80, ".cta", ".sem and .scope: PTX ISA 8.0."),
          ".cluster": Gate((8, 0), 90, ".cluster", ".sem and .scope: PTX ISA 8.0, sm_90."),
          ".relaxed": Gate((8, 6), 90, ".relaxed", ".relaxed: PTX ISA 8.6, sm_90."),
          ".parity": Gate((7, 1), None, ".parity", "mbarrier.test_wait.parity: PTX ISA 7.1.")}
_CTA = {"space": (".shared", ".shared::cta")}
# ptxas 13.0 takes integer registers only (no .f16x2, no floating-point register) and an
# immediate state
_OPS = {"addr": "addr", "count": "reg|imm:int32", "tx": "reg|imm:int32", "state": "=reg|sink:int64",
        "sink": "=sink", "stated": "reg|imm:int64", "waitComplete": "=pred",
        "parity": "reg|imm:int32", "hint": "reg|imm:int32", "pcount": "=reg:int32"}


def _record(name: str, section: str, extra: tuple, forms: tuple, gate: Gate,
            relaxed: Gate | None = None) -> InstructionSpec:
    gates = dict(_GATES)
    if relaxed is not None:
        gates[".relaxed"] = relaxed
    return InstructionSpec(name, f"PTX ISA 9.7.13.15.{section} ({name})",
                           (*extra, _SEM, _SCOPE, _SPACE, _TYPE), forms=forms, operands=_OPS,
                           gates=gates, gate=gate)


_EXPECT_TX = Group("expect_tx", (".expect_tx",))
_NO_COMPLETE = Group("no_complete", (".noComplete",))
_PARITY = Group("parity", (".parity",))
_ORDERED = Gate((8, 0), 80, ".sem.scope", ".sem and .scope: PTX ISA 8.0 (ptxas 13.0: sm_80 and later).")


def _ordered(head: str, tail: str, operands: str, sems: tuple, where=None, gate=None) -> tuple:
    """A form without a memory order, and with one: ptxas takes .sem and .scope together only
    ("Modifier '.release' requires scope"), and only the orders the instruction has."""
    where = dict(where or {})
    both = dict(where, sem=sems)
    return (Form(f"{head}{tail}", operands, where=where, gate=gate),
            Form(f"{head}.sem.scope{tail}", operands, where=both, gate=gate or _ORDERED))


def _arrive_forms() -> tuple:
    sems = (".release", ".relaxed")
    return (
        *_ordered("", "{.space}.b64", "state, addr", sems, where=_CTA),
        *_ordered("", "{.space}.b64", "state, addr, count", sems, where=_CTA, gate=_SM90),
        # a remote arrive returns no state: its destination is the sink `_`
        *_ordered("", ".shared::cluster.b64", "sink, addr{, count}", sems),
        *_ordered(".expect_tx", "{.space}.b64", "state, addr, tx", sems, where=_CTA, gate=_TX),
        *_ordered(".expect_tx", ".shared::cluster.b64", "sink, addr, tx", sems, gate=_TX),
        Form(".noComplete{.space}.b64", "state, addr, count", where=_CTA),
    )


def _wait_forms(operands: str) -> tuple:
    sems = (".acquire", ".relaxed")
    return (*_ordered("", "{.space}.b64", operands.replace("P", "stated"), sems, where=_CTA),
            *_ordered(".parity", "{.space}.b64", operands.replace("P", "parity"), sems, where=_CTA))


RECORDS = (
    _record("mbarrier.init", "9", (), (Form("{.space}.b64", "addr, count", where=_CTA),), _SM80),
    _record("mbarrier.inval", "10", (), (Form("{.space}.b64", "addr", where=_CTA),), _SM80),
    _record("mbarrier.expect_tx", "11", (), _ordered("", "{.space}.b64", "addr, tx", (".relaxed",)), _TX,
            relaxed=_TX),
    _record("mbarrier.complete_tx", "12", (), _ordered("", "{.space}.b64", "addr, tx", (".relaxed",)), _TX,
            relaxed=_TX),
    _record("mbarrier.arrive", "13", (_EXPECT_TX, _NO_COMPLETE), _arrive_forms(), _SM80),
    _record("mbarrier.arrive_drop", "14", (_EXPECT_TX, _NO_COMPLETE), _arrive_forms(), _SM80),
    _record("cp.async.mbarrier.arrive", "15", (Group("noinc", (".noinc",)),),
            (Form("{.noinc}{.space}.b64", "addr", where=_CTA),), _SM80),
    _record("mbarrier.test_wait", "16", (_PARITY,), _wait_forms("waitComplete, addr, P"), _SM80),
    _record("mbarrier.try_wait", "16", (_PARITY,), _wait_forms("waitComplete, addr, P{, hint}"), _SM90),
    _record("mbarrier.pending_count", "17", (), (Form(".b64", "pcount, stated"),), _SM80),
)
