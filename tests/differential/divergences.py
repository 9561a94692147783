"""Known, intended differences between ptxld's checker and ptxas 13.0 — the one table.

docs/divergences.md is the readable form of this list; keep the two in step. Each entry names the
cases it covers by a predicate over a comparison outcome (`tools/ptxas_oracle/compare.Outcome`:
`.case` the generated case, `.ptxas` the cached ptxas record, `.errors`/`.warnings` ptxld's
diagnostics) and says why the difference is right. A predicate is consulted only for cases whose
verdict or error line differs (and for every ptxas crash); whatever differs and matches no entry
is a checker bug. Entries must stay narrow: one cause each.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

LATEST_PTXAS_VERSION = (9, 0)


@dataclass(frozen=True)
class Divergence:
    id: str
    title: str
    reason: str
    evidence: str
    applies: Callable[[object], bool]

    def matches(self, outcome) -> bool:
        return bool(self.applies(outcome))


def _ptxas_says(o, *fragments: str) -> bool:
    return any(all(f in text for f in fragments) for _, text in o.ptxas["errors"])


DIVERGENCES: tuple[Divergence, ...] = (
    Divergence(
        "ptxas-crash",
        "ptxas crashes (SIGSEGV) instead of giving a verdict",
        "ptxas 13.0 segfaults on some inputs (three attempts each); there is no verdict to match. "
        "ptxld gives its own verdict: for the deterministic crashes (.v8 with 16-bit registers, "
        "a .param variable declared in a kernel body, an undefined symbol with .unified) it "
        "should say what is wrong or accept what the rules allow.",
        "shared/spec/ptxas-vs-seeds.md §5.1, §5.2",
        lambda o: o.ptxas_verdict == "crash",
    ),
    Divergence(
        "ptx-newer-than-ptxas",
        "PTX ISA versions after 9.0",
        "ptxas 13.0 stops at PTX 9.0 and rejects every newer `.version`; ptxld knows the PTX ISA "
        "up to 9.4 (e.g. `ld.volatile.local` from 9.1) and checks such modules by those rules.",
        "shared/spec/versions.md §1; ptxas-vs-seeds.md B4",
        lambda o: o.case.version > LATEST_PTXAS_VERSION and o.ptxas_verdict == "reject"
        and _ptxas_says(o, "version"),
    ),
    Divergence(
        "special-register-in-vector-destination",
        "a special register inside a vector destination",
        "ptxas rejects a special register as a scalar destination (\"Special register argument not "
        "allowed for instruction 'ld'\") and in most vectors, but accepts one inside a vector whose "
        "other elements share its class (`ld.global.ca.nc.v4.b32 {%clock, %b32_1, %b32_2, %b32_3}`). "
        "Special registers are read-only (PTX ISA §10); ptxld rejects every such destination.",
        "ld.operands/special_register_destination, checked by hand with ptxas 13.0.88",
        lambda o: o.ptxas_verdict == "accept" and bool(o.errors)
        and all("special register" in d.message for d in o.errors),
    ),
    Divergence(
        "mma-kind-vocabulary",
        "mma .kind:: forms (sm_120 block scaling) checked for vocabulary and target only",
        "The records know the qualifiers of the sm_120 `mma ... .kind::f8f6f4/.mxf4/...` forms and "
        "their target, not yet which type combinations each kind takes; ptxld accepts what ptxas "
        "refuses as \"Unexpected instruction types\" there.",
        "isa.mma.forms cases with .kind::, ptxas 13.0.88",
        lambda o: o.ptxas_verdict == "reject" and not o.errors and ".kind::" in o.case.focus
        and _ptxas_says(o, "Unexpected instruction types"),
    ),
    Divergence(
        "mma-int4-extra-qualifier",
        "a stray type or .xor on mma with .s4/.u4",
        "ptxas 13.0 ignores a fifth type or a `.xor` written on the 4-bit integer `mma.sync` forms "
        "(m8n8k32, m16n8k32, m16n8k64); the PTX ISA has no such form and ptxld reports it.",
        "isa.mma.mutations, ptxas 13.0.88",
        lambda o: o.ptxas_verdict == "accept" and bool(o.errors) and o.case.focus.startswith("mma")
        and (".s4." in o.case.focus or ".u4." in o.case.focus),
    ),
)
