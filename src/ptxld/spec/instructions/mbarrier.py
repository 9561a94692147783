"""mbarrier: the shared-memory barrier object with phases and transaction counts (PTX ISA
9.7.13.15), and cp.async.mbarrier.arrive, the arrive-on triggered by completed cp.async
operations.

The records give the decoder its vocabulary; the syntax forms are not listed yet.
"""
from __future__ import annotations

from ..isa import Group, InstructionSpec

_SPACE = Group("space", (".shared", ".shared::cta", ".shared::cluster"))
_TYPE = Group("type", (".b64",))
_SEM = Group("sem", (".release", ".acquire", ".relaxed"))
_SCOPE = Group("scope", (".cta", ".cluster"))


def _record(name: str, section: str, *extra: Group) -> InstructionSpec:
    return InstructionSpec(name, f"PTX ISA 9.7.13.15.{section} ({name})",
                           (*extra, _SEM, _SCOPE, _SPACE, _TYPE))


RECORDS = (
    _record("mbarrier.init", "9"),
    _record("mbarrier.inval", "10"),
    _record("mbarrier.expect_tx", "11"),
    _record("mbarrier.complete_tx", "12"),
    _record("mbarrier.arrive", "13", Group("expect_tx", (".expect_tx",)),
            Group("no_complete", (".noComplete",))),
    _record("mbarrier.arrive_drop", "14", Group("expect_tx", (".expect_tx",)),
            Group("no_complete", (".noComplete",))),
    _record("cp.async.mbarrier.arrive", "15", Group("noinc", (".noinc",))),
    _record("mbarrier.test_wait", "16", Group("parity", (".parity",))),
    _record("mbarrier.try_wait", "16", Group("parity", (".parity",))),
    _record("mbarrier.pending_count", "17"),
)
