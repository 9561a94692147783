"""Warp-level votes (PTX ISA 9.7.13.8 vote)."""
from __future__ import annotations

from ..gates import Gate
from ..isa import Form, Group, InstructionSpec

_NO_SYNC = Gate(source="vote without .sync: not supported on sm_70 and later from PTX ISA 6.4",
                below_sm=70, below_sm_from_ptx=(6, 4), note="use `vote.sync` with a member mask")
_SYNC = Gate((6, 0), 30, "vote.sync", "vote.sync: PTX ISA 6.0, sm_30.")

RECORDS = (
    InstructionSpec("vote", "PTX ISA 9.7.13.8 (vote)", (
        Group("sync", (".sync",), repeatable=True), Group("mode", (".all", ".any", ".uni", ".ballot")),
        Group("type", (".pred", ".b32")),
    ), forms=(
        Form(".mode.pred", "d, a", where={"mode": (".all", ".any", ".uni")}, gate=_NO_SYNC),
        Form(".ballot.b32", "dr, a", gate=_NO_SYNC),
        Form(".sync.mode.pred", "d, a, membermask", where={"mode": (".all", ".any", ".uni")},
             gate=_SYNC),
        Form(".sync.ballot.b32", "dr, a, membermask", gate=_SYNC),
    ), operands={
        "d": "=pred", "dr": "=reg:.b32", "a": "npred", "membermask": "reg|imm:int32",
    }),
)
