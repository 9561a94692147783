"""PTX `ld` and `ld.global.nc` as data: the instruction record (qualifier groups in canonical
order), which state spaces a qualifier allows, the {PTX, sm} gates and what each qualifier means.

Sources: PTX ISA 9.7.9.8 (ld) and 9.7.9.9 (ld.global.nc), and where ptxas 13.0 departs from
them, its measured behaviour (noted beside the fact). Parser, checker, emulator, explain, SASS
lowering and the test generators all read these tables.
"""
from __future__ import annotations

from .gates import Gate
from .isa import Group, InstructionSpec
from .types import TYPES

SECTION_LD = "PTX ISA 9.7.9.8 (ld)"
SECTION_NC = "PTX ISA 9.7.9.9 (ld.global.nc)"

# Each group is one slot of the load model. The order of GROUPS is the canonical qualifier order of
# the ISA's syntax templates (`ld.mmio.relaxed.sys.global...`, `ld.global.cg.nc...`).
GROUPS: dict[str, tuple[str, ...]] = {
    "mmio": (".mmio",),
    "sem": (".weak", ".volatile", ".relaxed", ".acquire"),
    "scope": (".cta", ".cluster", ".gpu", ".sys"),
    "space": (".const", ".global", ".local", ".param", ".param::entry", ".param::func",
              ".shared", ".shared::cta", ".shared::cluster"),
    "cop": (".ca", ".cg", ".cs", ".lu", ".cv"),
    "nc": (".nc",),
    "l1_evict": (".L1::evict_normal", ".L1::evict_unchanged", ".L1::evict_first",
                 ".L1::evict_last", ".L1::no_allocate"),
    "l2_evict": (".L2::evict_normal", ".L2::evict_first", ".L2::evict_last"),
    "cache_hint": (".L2::cache_hint",),
    "prefetch": (".L2::64B", ".L2::128B", ".L2::256B"),
    "vec": (".v2", ".v4", ".v8"),
    "type": (".b8", ".b16", ".b32", ".b64", ".b128", ".u8", ".u16", ".u32", ".u64",
             ".s8", ".s16", ".s32", ".s64", ".f32", ".f64"),
}

# What each qualifier means, for `ptxld explain`.
DESCRIPTIONS: dict[str, str] = {
    "generic": "generic addressing (the address selects .global, .shared, .local, .const or .param)",
    ".global": "the .global state space", ".shared": "the .shared state space of this CTA (::cta)",
    ".shared::cta": "the .shared state space of this CTA",
    ".shared::cluster": "the .shared state space of any CTA in the cluster",
    ".local": "the thread's .local state space", ".const": "the .const state space",
    ".param": "the .param state space (::entry for kernel parameters, ::func otherwise)",
    ".param::entry": "kernel parameters (.param::entry)",
    ".param::func": "device-function parameters (.param::func)",
    ".ca": "cache at all levels (likely reused)", ".cg": "cache in L2 only, not L1",
    ".cs": "streaming: likely accessed once (evict first)", ".lu": "last use",
    ".cv": "volatile cache: fetch again, do not use cached lines",
    ".cta": "the CTA", ".cluster": "the cluster", ".gpu": "the GPU", ".sys": "the whole system",
}

LD = InstructionSpec("ld", SECTION_LD, tuple(
    Group(g, vs, {v: DESCRIPTIONS[v] for v in vs if v in DESCRIPTIONS}) for g, vs in GROUPS.items()))
RECORDS = (LD,)

# `.cop` values allowed with `.nc` (PTX ISA 9.7.9.9).
NC_COPS = (".ca", ".cg", ".cs")

VECTOR_LENGTH = {".v2": 2, ".v4": 4, ".v8": 8}


def type_bits(t: str) -> int:
    return TYPES[t].bits


# Variants of `.ss` that name the same state space.
SPACE_BASE = {
    ".const": ".const", ".global": ".global", ".local": ".local",
    ".param": ".param", ".param::entry": ".param", ".param::func": ".param",
    ".shared": ".shared", ".shared::cta": ".shared", ".shared::cluster": ".shared",
}

# State spaces each qualifier allows (None = generic addressing); PTX ISA 9.7.9.8, Description.
ALLOWED_SPACES: dict[str, frozenset] = {
    ".relaxed": frozenset({".global", ".shared", None}),
    ".acquire": frozenset({".global", ".shared", None}),
    # PTX ISA 9.1 adds .local; earlier versions and ptxas 13.0 allow only .global/.shared.
    ".volatile": frozenset({".global", ".shared", ".local", None}),
    ".mmio": frozenset({".global", None}),
    "prefetch": frozenset({".global", None}),
    "cache_hint": frozenset({".global", None}),
    ".unified": frozenset({".global", None}),
    ".v8/.v4.64": frozenset({".global", None}),
    # not in the ISA text: ptxas 13.0 rejects `.L1::evict_*` outside .global/generic
    "l1_evict": frozenset({".global", None}),
}
#: Entries of ALLOWED_SPACES that are ptxas's rules about the written state space only: the ISA
#: says nothing of where a generic address of such a load may point.
STATIC_ONLY = frozenset({"l1_evict"})


def generic_windows(quals: dict, *, is_256_bit: bool, unified: bool) -> frozenset | None:
    """The state spaces a generic address of this `ld` may point into (the ISA leaves any other
    undefined), or None when every window is allowed. `quals`: group -> (value, ...)."""
    keys = [v[0] for v in quals.values()] + list(quals)
    if is_256_bit:
        keys.append(".v8/.v4.64")
    if unified:
        keys.append(".unified")
    allowed = None
    for k in keys:
        spaces = ALLOWED_SPACES.get(k)
        if spaces is not None and k not in STATIC_ONLY:
            spaces = spaces - {None}
            allowed = spaces if allowed is None else allowed & spaces
    return allowed


# The {min PTX, min sm} gate of every load-family feature (the PTX ISA and Target ISA notes of
# ld and ld.global.nc, with the departures ptxas 13.0 shows noted).
GATES: dict[str, Gate] = {g.feature: g for g in (
    Gate((1, 0), None, "ld", "ld introduced in PTX ISA version 1.0."),
    Gate((1, 0), 13, "ld.f64", "`ld.f64` requires `sm_13` or higher."),
    Gate((1, 1), None, ".volatile", "`ld.volatile` introduced in PTX ISA version 1.1."),
    Gate((2, 0), 20, "generic", "Generic addressing requires `sm_20` or higher."),
    Gate((2, 0), 20, ".cop", "Cache operations require `sm_20` or higher."),
    Gate((6, 0), 70, "memory-order",
         "Support for scope qualifier, `.relaxed`, `.acquire`, `.weak` qualifiers require `sm_70` or higher."),
    Gate((7, 4), 70, "l1_evict",
         "Support for `.level::eviction_priority` qualifier requires `sm_70` or higher."),
    Gate((7, 4), 75, "prefetch",
         "Support for `.level::prefetch_size` qualifier requires `sm_75` or higher."),
    Gate((7, 4), 80, ".L2::256B",
         "Support for `.L2::256B` and `.L2::cache_hint` qualifiers requires `sm_80` or higher."),
    Gate((7, 4), 80, "cache_hint",
         "Support for `.L2::256B` and `.L2::cache_hint` qualifiers requires `sm_80` or higher."),
    Gate((7, 8), 90, ".cluster", "Support for `.cluster` scope qualifier requires `sm_90` or higher."),
    Gate((7, 8), 30, "::cta", "Sub-qualifier `::cta` requires `sm_30` or higher.",
         note="ptxas 13.0 accepts ::cta on sm_20", ptxas_checks_sm=False),
    Gate((7, 8), 90, "::cluster", "Sub-qualifier `::cluster` requires `sm_90` or higher."),
    Gate((8, 0), 90, ".unified", "Support for `.unified` qualifier requires `sm_90` or higher.",
         note="ptxas 13.0 checks neither on a register address", ptxas_checks_ptx=False,
         ptxas_checks_sm=False),
    Gate((8, 2), 70, ".mmio", "Support for `.mmio` qualifier requires `sm_70` or higher."),
    Gate((8, 3), None, "::entry/::func",
         "Support for `::entry` and `::func` sub-qualifiers on `.param` space introduced in PTX ISA version 8.3."),
    Gate((8, 3), 70, ".b128", "Support for `.b128` type requires `sm_70` or higher."),
    Gate((8, 4), 70, ".b128.sys", "Support for `.sys` scope with `.b128` type introduced in PTX ISA version 8.4."),
    Gate((8, 8), 100, "256-bit",
         "Support for `.level2::eviction_priority` qualifier and `.v8.b32`/`.v4.b64` require `sm_100` or higher."),
    Gate((9, 1), None, ".volatile.local",
         "Support for `.volatile` qualifier with `.local` state space introduced in PTX ISA version 9.1."),
    Gate((3, 1), 32, "nc", "ld.global.nc: Introduced in PTX ISA version 3.1. Requires `sm_32` or higher."),
    Gate((7, 4), 75, "nc.prefetch",
         "ld.global.nc: Support for `.level::prefetch_size` qualifier requires `sm_75` or higher.",
         note="ptxas 13.0 requires sm_80 for .L2::256B on ld.global.nc too"),
    # in the PTX ISA 9.4 text only
    Gate((9, 3), 75, "mmio.acquire", "ld.mmio.acquire.sys: PTX ISA 9.3, sm_75."),
)}


def features(quals: dict, *, space_base: str | None, is_256_bit: bool, unified_span=None,
             opcode_span: tuple[int, int]) -> list[tuple[str, tuple[int, int]]]:
    """(gate key, span) of every gated feature of one `ld`, from its decoded slots `quals`
    (group -> (value, start, end)); `unified_span` is the `.unified` suffix of its address."""
    out = []

    def at(group):
        return quals[group][1:]
    t = quals.get("type")
    if t:
        if t[0] == ".f64":
            out.append(("ld.f64", at("type")))
        if t[0] == ".b128":
            out.append((".b128", at("type")))
            scope, mmio = quals.get("scope"), quals.get("mmio")
            if scope and scope[0] == ".sys":
                out.append((".b128.sys", at("scope")))
            elif mmio:
                out.append((".b128.sys", at("mmio")))
    sem = quals.get("sem")
    if sem:
        if sem[0] == ".volatile":
            out.append((".volatile", at("sem")))
            if space_base == ".local":
                out.append((".volatile.local", at("sem")))
        else:
            out.append(("memory-order", at("sem")))
    sc = quals.get("scope")
    if sc:
        out.append(("memory-order", at("scope")))
        if sc[0] == ".cluster":
            out.append((".cluster", at("scope")))
    sp = quals.get("space")
    if sp is None:
        out.append(("generic", (opcode_span[0], opcode_span[0] + 2)))
    elif sp[0] == ".shared::cta":
        out.append(("::cta", at("space")))
    elif sp[0] == ".shared::cluster":
        out.append(("::cluster", at("space")))
    elif sp[0] in (".param::entry", ".param::func"):
        out.append(("::entry/::func", at("space")))
    if "cop" in quals:
        out.append((".cop", at("cop")))
    if "l1_evict" in quals:
        out.append(("l1_evict", at("l1_evict")))
    p = quals.get("prefetch")
    if p:
        out.append((".L2::256B" if p[0] == ".L2::256B" else "prefetch", at("prefetch")))
    if "cache_hint" in quals:
        out.append(("cache_hint", at("cache_hint")))
    if "mmio" in quals:
        out.append((".mmio", at("mmio")))
        if sem and sem[0] == ".acquire":
            out.append(("mmio.acquire", at("mmio")))
    if is_256_bit:
        out.append(("256-bit", (quals["vec"][1], quals["type"][2])))
    if "nc" in quals:
        out.append(("nc", at("nc")))
    if unified_span is not None:
        out.append((".unified", unified_span))
    return out
