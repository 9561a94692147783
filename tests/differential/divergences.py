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
    Divergence(
        "st-async-vector-data-on-scalar-store",
        "a brace vector as the data of a scalar st.async",
        "ptxas 13.0 takes `st.async.mbarrier::complete_tx::bytes.s32 [a], {%r1, %r2}, [mbar]`: a "
        "vector where the opcode names no vector size. The PTX ISA gives a scalar store a scalar "
        "operand (a vector only with `.v2`/`.v4`); ptxld reports the vector.",
        "isa.st.async.mutations, ptxas 13.0.88",
        lambda o: o.ptxas_verdict == "accept" and bool(o.errors) and o.case.family == "isa.st.async.mutations"
        and "{" in o.case.focus and ".v2" not in o.case.focus and ".v4" not in o.case.focus,
    ),
    Divergence(
        "float-register-in-collective-operand",
        "a float register as an integer operand of a barrier, warp collective or address test",
        "ptxld applies the relaxed type rule of the PTX ISA (9.4.1) to every operand: a `.b32`/`.u32` "
        "operand takes any 32-bit register, and an `.f16x2` register reads as 32 bits. ptxas 13.0 "
        "follows that for arithmetic (`add.s32` takes an `.f16x2` register) but refuses `.f32` and "
        "`.f16x2` registers in the operands of bar/barrier, match, redux, vote, shfl, shf and "
        "isspacep (\"Arguments mismatch\"), and in every operand whose type is fixed rather than "
        "the instruction's own (popc/clz/bfind results, bfe/bfi bit positions, dp4a/dp2a results "
        "and addends, the brx.idx index, an indirect call's address).",
        "isa.*.operands cases, ptxas 13.0.88",
        lambda o: o.ptxas_verdict == "reject" and not o.errors and dict(o.case.tags).get("as") in (".f16x2", ".f32")
        and o.case.family.rsplit(".", 1)[0][4:] in (
            "bar", "barrier", "match", "redux", "vote", "shfl", "shf", "shl", "shr", "isspacep", "nanosleep",
            "popc", "clz", "bfind", "bfe", "bfi", "dp4a", "dp2a", "brx.idx", "call")
        and _ptxas_says(o, "Arguments mismatch"),
    ),
    Divergence(
        "bf16-set-result-in-integer-register",
        "a 16-bit integer register for the .bf16 result of set",
        "ptxas 13.0 takes a `.u16`/`.s16` register for `set`'s `.bf16` destination; ptxld wants a "
        "`.b16` register (`.bf16` is its own class under the PTX ISA's type rules, and ptxas refuses "
        "integer registers for `.bf16` everywhere else: cvt, fma, setp sources).",
        "isa.set.operands cases, ptxas 13.0.88",
        lambda o: o.ptxas_verdict == "accept" and o.case.family == "isa.set.operands"
        and dict(o.case.tags).get("as") in (".u16", ".s16") and all(d.code == "PTX0806" for d in o.errors),
    ),
    Divergence(
        "atom-fourth-operand-immediate",
        "an immediate fourth operand of a bitwise or exchange atom",
        "ptxas 13.0 takes a fourth `.b32` register on atom.and/or/xor/exch.b32 (no form of the PTX "
        "ISA) and asks for `.L2::cache_hint` when that operand is an immediate; ptxld reads an "
        "immediate there as its cache policy, which the form does not name.",
        "isa.atom.operands cases, ptxas 13.0.88",
        lambda o: o.ptxas_verdict == "reject" and not o.errors
        and _ptxas_says(o, ".L2::cache_hint modifier required", "atom"),
    ),
    Divergence(
        "special-register-narrower-than-cvt-source",
        "a 32-bit special register as a 64-bit cvt source",
        "ptxas 13.0 refuses `cvt.s16.s64 %rs, %tid.x` (the register is narrower than the source "
        "type); ptxld does not type special registers read by cvt.",
        "isa.cvt.operands cases, ptxas 13.0.88",
        lambda o: o.ptxas_verdict == "reject" and not o.errors and o.case.family == "isa.cvt.operands"
        and dict(o.case.tags).get("as") == "sreg",
    ),
    Divergence(
        "bf16-comparison-operand-quirks",
        "the boolean operand and sources of .bf16 comparisons",
        "ptxas 13.0 takes a constant for the boolean operand `c` of set/setp on every type but "
        "`.bf16`/`.bf16x2` (there: \"Arguments mismatch\"), and takes a predicate or `.f32` register "
        "as a `.bf16x2` source of set; ptxld applies one rule to every type (constants allowed for `c`, "
        "registers of the type's class for sources).",
        "isa.set.operands, isa.setp.operands cases, ptxas 13.0.88",
        lambda o: o.case.family in ("isa.set.operands", "isa.setp.operands") and ".bf16" in o.case.focus
        and dict(o.case.tags).get("as") in ("imm", ".pred", ".f32"),
    ),
)


_PREDICATE_ROLE_FAMILIES = ("isa.vote.operands", "isa.bar.operands", "isa.barrier.operands")


def _swapped_in(o, families, as_class) -> bool:
    return o.case.family in families and dict(o.case.tags).get("as") == as_class


DIVERGENCES += (
    Divergence(
        "f16x2-register-as-predicate",
        "an .f16x2 register where a predicate belongs",
        "ptxas 13.0 takes an `.f16x2` register as the predicate destination and source of "
        "`vote.{all,any,uni}.pred` and as the predicate destination of `bar.red.{and,or}.pred` / "
        "`barrier.red.{and,or}.pred` (no other register class: `.b32`, `.f32`, `.b16` are \"Arguments "
        "mismatch\"). A predicate is one bit; the PTX ISA names a predicate there, and ptxld refuses "
        "every non-predicate register (PTX0805), reading ptxas's acceptance as a missing check.",
        "isa.vote.operands, isa.bar.operands, isa.barrier.operands cases, ptxas 13.0.88",
        lambda o: o.ptxas_verdict == "accept" and bool(o.errors)
        and _swapped_in(o, _PREDICATE_ROLE_FAMILIES, ".f16x2"),
    ),
    Divergence(
        "movmatrix-predicate-register",
        "a predicate register as movmatrix's matrix operand",
        "ptxas 13.0 takes a `.pred` register as the destination or source of "
        "`movmatrix.sync.aligned.m8n8.trans.b16` (whose operands hold two 16-bit elements of a "
        "matrix row: a 32-bit register in the PTX ISA); ptxld refuses it (PTX0805).",
        "isa.movmatrix.operands cases, ptxas 13.0.88",
        lambda o: o.ptxas_verdict == "accept" and bool(o.errors)
        and _swapped_in(o, ("isa.movmatrix.operands",), ".pred"),
    ),
    Divergence(
        "predicate-register-as-32-bit-data",
        "a predicate register as a 32-bit .bf16x2 datum or sparse wgmma metadata",
        "ptxas 13.0 takes a `.pred` register as the destination of scalar "
        "`multimem.ld_reduce.{add,min,max}.bf16x2` and as every element of its `.v2/.v4/.v8` "
        "destination (not of `.f16x2`, nor as the datum of "
        "`multimem.st .bf16x2`: \"Arguments mismatch\"), as the source of "
        "`cvt.{rz,rp}.ue8m0x2.bf16x2` and as the metadata operand of `wgmma.mma_async.sp`. Each "
        "holds 32 bits (two .bf16 values; the sparsity metadata) and the PTX ISA names a 32-bit "
        "register there; ptxld refuses the predicate (PTX0805).",
        "isa.multimem.ld_reduce.operands, isa.wgmma.mma_async.sp.operands, isa.cvt.operands cases, "
        "ptxas 13.0.88",
        lambda o: o.ptxas_verdict == "accept" and bool(o.errors) and (
            _swapped_in(o, ("isa.multimem.ld_reduce.operands", "isa.wgmma.mma_async.sp.operands"), ".pred")
            or (o.case.family == "isa.multimem.ld_reduce.operands" and dict(o.case.tags).get("elements") == ".pred"
                and ".bf16x2" in o.case.focus)
            or (_swapped_in(o, ("isa.cvt.operands",), ".pred") and ".ue8m0x2.bf16x2" in o.case.focus)),
    ),
    Divergence(
        "function-address-as-vector-mov-source",
        "a function name as the source of a vector mov",
        "ptxas 13.0 takes a function name as the source of `mov.v2.b32`/`mov.v2.u32`/`mov.v2.b64` "
        "(and of `.v2.b16`, `.v4.b16`, `.v2.f32` with a warning \"Unexpected instruction types "
        "specified for 'mov instruction with function address operand'\"), splitting the address "
        "over the elements. The PTX ISA gives a vector mov a vector source; a function's address "
        "is taken by the scalar `mov.u64`/`mov.b64` (which ptxld accepts), and ptxld refuses the "
        "name as a vector source (PTX0805).",
        "isa.mov.mutations cases, ptxas 13.0.88",
        lambda o: o.ptxas_verdict == "accept" and bool(o.errors) and o.case.family == "isa.mov.mutations"
        and o.case.focus.startswith("mov.v") and all("not a function name" in d.message for d in o.errors),
    ),
    Divergence(
        "istypep-constant-handle",
        "a constant as the handle istypep tests",
        "ptxas 13.0 takes an integer constant as the operand of `istypep.texref`/`.samplerref`/"
        "`.surfref` (`istypep.texref %p, 1`), though it refuses the `.texref` variable itself. The "
        "operand is an opaque handle, held in a .u64 register; ptxld refuses the constant (PTX0805).",
        "isa.istypep.operands cases, ptxas 13.0.88",
        lambda o: o.ptxas_verdict == "accept" and bool(o.errors) and o.case.focus.startswith("istypep.")
        and o.case.tag("as") == "imm" and all(d.code == "PTX0805" for d in o.errors),
    ),
    Divergence(
        "surface-data-vector-size-unchecked",
        "sust data (or suld results) whose vector size is not the opcode's",
        "ptxas 13.0 takes a brace vector as the data of a scalar `sust` (`sust.b.1d.b32.trap [s, {%r1}], "
        "{%r2, %r3}`) and a scalar register as the data of `sust ... .v2` (and the same of suld's "
        "result). The PTX ISA gives the data the vector size of `.vec`; ptxld refuses the "
        "mismatch (PTX0805).",
        "isa.sust.mutations cases, checked by hand with ptxas 13.0.88",
        lambda o: o.ptxas_verdict == "accept" and bool(o.errors) and o.case.focus.startswith(("sust.", "suld."))
        and all(d.code == "PTX0805" and ("not a vector" in d.message or "must be a vector" in d.message)
                for d in o.errors),
    ),
    Divergence(
        "texture-lod-vector",
        "a vector as the lod of tex.level",
        "ptxas 13.0 takes a brace vector where `tex.level` has its scalar level of detail "
        "(`tex.level.2d.v4.f32.f32 d, [t, {%f1, %f2}], {%f3, %f4}, {%f5, %f6}`, and `{%r1, %r2}, %f3` "
        "there, an offset and a depth-compare value with no lod). The PTX ISA makes the lod a "
        "scalar; ptxld refuses the vector (PTX0805).",
        "isa.tex.mutations cases (`.level` on a `.grad` spelling), ptxas 13.0.88",
        lambda o: o.ptxas_verdict == "accept" and bool(o.errors) and o.case.focus.startswith("tex.level.")
        and "], {" in o.case.focus and all(d.code in ("PTX0804", "PTX0805") for d in o.errors),
    ),
    Divergence(
        "texture-3d-scalar-offset",
        "a lone .b32 register after the coordinates of tex.3d",
        "After the coordinates ptxas 13.0 reads a lone `.b32` register as the depth-compare value "
        "and refuses it on `.3d` (\"Illegal modifier '.3d'\"), though the same register is a scalar "
        "offset everywhere else (and a `.u32`/`.s32` one passes on `.3d`). ptxld takes it as the "
        "offset, by the register's type, as ptxas does on the other geometries.",
        "isa.tex.mutations, isa.tex.operands cases, ptxas 13.0.88",
        lambda o: o.ptxas_verdict == "reject" and not o.errors and ".3d." in o.case.focus
        and _ptxas_says(o, "Illegal modifier '.3d'"),
    ),
    Divergence(
        "texture-grad-scalar-offset-and-depth",
        "tex.grad with a scalar offset and an .f32 depth-compare register",
        "ptxas 13.0 refuses `tex.grad ... , %r_offset, %f_depth` with a message about another "
        "instruction (\"Arguments mismatch for instruction 'st'\") and takes the same operands with "
        "a `.b32` depth-compare register, and on every other tex form; ptxld accepts both.",
        "isa.tex.forms cases, ptxas 13.0.88",
        lambda o: o.ptxas_verdict == "reject" and not o.errors and o.case.focus.startswith("tex.grad.")
        and _ptxas_says(o, "Arguments mismatch for instruction 'st'"),
    ),
)


# ---- open checker gaps ---------------------------------------------------------------------------
# Not intended differences: what the whole-ISA generator (operand swaps, target sweeps) found in the
# records of the sm_80/sm_90 instruction families when they were first compared together, and the
# checker does not model yet. Listed so that a new difference anywhere else still fails the
# comparison; each entry is work to do (docs/divergences.md, "Open checker gaps"), and the lists
# may only shrink.

OPEN_GAPS: tuple[Divergence, ...] = ()
