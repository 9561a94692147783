"""PTX `ld` and `ld.global.nc` as data: qualifier groups, types, operand rules, feature gates.

Sources: seed 002 (ld, PTX ISA 9.1 §9.7.9.8), seed 003 (ld.global.nc §9.7.9.9), seed 000 (older ld
text), and the measured behaviour of ptxas 13.0 (shared/spec/ptxas-vs-seeds.md). Parser, checker,
emulator, docs and test generators all read these tables; a qualifier is written down only here.
"""
from __future__ import annotations

from dataclasses import dataclass

SECTION_LD = "PTX ISA 9.7.9.8 (ld)"
SECTION_NC = "PTX ISA 9.7.9.9 (ld.global.nc)"

# Each group is one slot of the load model. The order of GROUPS is the canonical qualifier order of
# the seeds' syntax templates (`ld.mmio.relaxed.sys.global...`, `ld.global.cg.nc...`).
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

# modifier text -> group name
GROUP_OF: dict[str, str] = {q: g for g, qs in GROUPS.items() for q in qs}

# `.cop` values allowed with `.nc` (seed 003: { .ca, .cg, .cs }).
NC_COPS = (".ca", ".cg", ".cs")

VECTOR_LENGTH = {".v2": 2, ".v4": 4, ".v8": 8}

# Fundamental types: name -> (kind, bits). kind: b (bits), u, s, f, pred.
TYPES: dict[str, tuple[str, int]] = {
    ".b8": ("b", 8), ".b16": ("b", 16), ".b32": ("b", 32), ".b64": ("b", 64), ".b128": ("b", 128),
    ".u8": ("u", 8), ".u16": ("u", 16), ".u32": ("u", 32), ".u64": ("u", 64),
    ".s8": ("s", 8), ".s16": ("s", 16), ".s32": ("s", 32), ".s64": ("s", 64),
    ".f16": ("f", 16), ".f16x2": ("f16x2", 32), ".f32": ("f", 32), ".f64": ("f", 64),
    ".bf16": ("bf", 16), ".bf16x2": ("bf16x2", 32), ".tf32": ("tf", 32),
    ".pred": ("pred", 1),
}


def type_bits(t: str) -> int:
    return TYPES[t][1]


# Variants of `.ss` that name the same state space.
SPACE_BASE = {
    ".const": ".const", ".global": ".global", ".local": ".local",
    ".param": ".param", ".param::entry": ".param", ".param::func": ".param",
    ".shared": ".shared", ".shared::cta": ".shared", ".shared::cluster": ".shared",
}

# State spaces each qualifier allows (None = generic addressing). Seed 002 Description.
ALLOWED_SPACES: dict[str, frozenset] = {
    ".relaxed": frozenset({".global", ".shared", None}),
    ".acquire": frozenset({".global", ".shared", None}),
    # seed 002 (PTX 9.1) adds .local; seed 000 and ptxas 13.0 allow only .global/.shared.
    ".volatile": frozenset({".global", ".shared", ".local", None}),
    ".mmio": frozenset({".global", None}),
    "prefetch": frozenset({".global", None}),
    "cache_hint": frozenset({".global", None}),
    ".unified": frozenset({".global", None}),
    ".v8/.v4.64": frozenset({".global", None}),
    # not in the seeds: ptxas 13.0 rejects `.L1::evict_*` outside .global/generic (ptxas-vs-seeds B3)
    "l1_evict": frozenset({".global", None}),
}


@dataclass(frozen=True)
class Gate:
    """A feature's minimum PTX ISA version and target, with the sentence that states it."""
    feature: str
    min_ptx: tuple[int, int]
    min_sm: int | None
    source: str
    note: str = ""


# The {min PTX, min sm} gate of every load-family feature (seed PTX/Target ISA notes, with the
# departures ptxas 13.0 shows noted; shared/spec/versions.md §5, ptxas-vs-seeds.md §C).
GATES: dict[str, Gate] = {g.feature: g for g in (
    Gate("ld", (1, 0), None, "ld introduced in PTX ISA version 1.0."),
    Gate("ld.f64", (1, 0), 13, "`ld.f64` requires `sm_13` or higher."),
    Gate(".volatile", (1, 1), None, "`ld.volatile` introduced in PTX ISA version 1.1."),
    Gate("generic", (2, 0), 20, "Generic addressing requires `sm_20` or higher."),
    Gate(".cop", (2, 0), 20, "Cache operations require `sm_20` or higher."),
    Gate("memory-order", (6, 0), 70,
         "Support for scope qualifier, `.relaxed`, `.acquire`, `.weak` qualifiers require `sm_70` or higher."),
    Gate("l1_evict", (7, 4), 70,
         "Support for `.level::eviction_priority` qualifier requires `sm_70` or higher."),
    Gate("prefetch", (7, 4), 75,
         "Support for `.level::prefetch_size` qualifier requires `sm_75` or higher."),
    Gate(".L2::256B", (7, 4), 80,
         "Support for `.L2::256B` and `.L2::cache_hint` qualifiers requires `sm_80` or higher."),
    Gate("cache_hint", (7, 4), 80,
         "Support for `.L2::256B` and `.L2::cache_hint` qualifiers requires `sm_80` or higher."),
    Gate(".cluster", (7, 8), 90, "Support for `.cluster` scope qualifier requires `sm_90` or higher."),
    Gate("::cta", (7, 8), 30, "Sub-qualifier `::cta` requires `sm_30` or higher.",
         note="ptxas 13.0 accepts ::cta on sm_20 (ptxas-vs-seeds A10)"),
    Gate("::cluster", (7, 8), 90, "Sub-qualifier `::cluster` requires `sm_90` or higher."),
    Gate(".unified", (8, 0), 90, "Support for `.unified` qualifier requires `sm_90` or higher."),
    Gate(".mmio", (8, 2), 70, "Support for `.mmio` qualifier requires `sm_70` or higher."),
    Gate("::entry/::func", (8, 3), None,
         "Support for `::entry` and `::func` sub-qualifiers on `.param` space introduced in PTX ISA version 8.3."),
    Gate(".b128", (8, 3), 70, "Support for `.b128` type requires `sm_70` or higher."),
    Gate(".b128.sys", (8, 4), 70, "Support for `.sys` scope with `.b128` type introduced in PTX ISA version 8.4."),
    Gate("256-bit", (8, 8), 100,
         "Support for `.level2::eviction_priority` qualifier and `.v8.b32`/`.v4.b64` require `sm_100` or higher."),
    Gate(".volatile.local", (9, 1), None,
         "Support for `.volatile` qualifier with `.local` state space introduced in PTX ISA version 9.1."),
    Gate("nc", (3, 1), 32, "ld.global.nc: Introduced in PTX ISA version 3.1. Requires `sm_32` or higher."),
    Gate("nc.prefetch", (7, 4), 75,
         "ld.global.nc: Support for `.level::prefetch_size` qualifier requires `sm_75` or higher.",
         note="ptxas 13.0 requires sm_80 for .L2::256B on ld.global.nc too (ptxas-vs-seeds B7)"),
)}
