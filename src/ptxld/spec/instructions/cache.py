"""Cache-management instructions (PTX ISA 9.7.9.15 prefetch/prefetchu, 9.7.9.16 applypriority,
9.7.9.17 discard, 9.7.9.18 createpolicy) and the cache facts memory instructions share: store
cache operators, prefetch sizes in bytes, cache levels, eviction priorities."""
from __future__ import annotations

from ..gates import Gate
from ..isa import Form, Group, InstructionSpec

#: Store cache operators (PTX ISA 9.7.9.8 st: `.cop = { .wb, .cg, .cs, .wt }`).
STORE_COPS = (".wb", ".cg", ".cs", ".wt")
#: `.level::prefetch_size` of ld/cp.async, in bytes fetched into L2.
PREFETCH_BYTES = {".L2::64B": 64, ".L2::128B": 128, ".L2::256B": 256}
#: The cache levels prefetch and discard name.
LEVELS = (".L1", ".L2")
#: createpolicy's priorities: any of four as primary, only two as secondary.
PRIMARY_PRIORITIES = (".L2::evict_last", ".L2::evict_normal", ".L2::evict_first",
                      ".L2::evict_unchanged")
SECONDARY_PRIORITIES = (".L2::evict_first", ".L2::evict_unchanged")
#: The one size discard and applypriority take: one 128-byte line.
LINE_OPERAND_SIZE = 128

_SM80 = Gate((7, 4), 80, "cache eviction priority", "PTX ISA 7.4, sm_80.")
_SM20 = Gate((2, 0), 20, "prefetch", "PTX ISA 2.0, sm_20.")
_TENSORMAP = Gate((8, 0), 90, "prefetch.tensormap", "PTX ISA 8.0, sm_90.")

RECORDS = (
    InstructionSpec("prefetch", "PTX ISA 9.7.9.15 (prefetch, prefetchu)", (
        Group("space", (".global", ".local", ".const", ".param")),
        Group("level", LEVELS),
        Group("evict", (".L2::evict_last", ".L2::evict_normal")),
        Group("tensormap", (".tensormap",)),
    ), forms=(
        Form("{.space}.level", "a", where={"space": (".global", ".local")}, gate=_SM20),
        Form(".space.evict", "a", where={"space": (".global",)}, gate=_SM80),
        # ptxas 13.0 also takes the generic form
        Form(".evict", "a", gate=_SM80, beyond_isa="the PTX ISA writes `.global` here"),
        Form("{.space}.tensormap", "a", where={"space": (".const", ".param")}, gate=_TENSORMAP),
    ), operands={"a": "addr"}),
    InstructionSpec("prefetchu", "PTX ISA 9.7.9.15 (prefetch, prefetchu)", (
        Group("level", (".L1",)),
    ), forms=(Form(".level", "a", gate=_SM20),), operands={"a": "addr"}),
    InstructionSpec("applypriority", "PTX ISA 9.7.9.16 (applypriority)", (
        Group("space", (".global",)), Group("evict", (".L2::evict_normal",)),
    ), forms=(Form("{.space}.evict", "a, size", gate=_SM80),), operands={"a": "addr", "size": "imm=128"}),
    InstructionSpec("discard", "PTX ISA 9.7.9.17 (discard)", (
        Group("space", (".global",)), Group("level", (".L2",)),
    ), forms=(Form("{.space}.level", "a, size", gate=_SM80),), operands={"a": "addr", "size": "imm=128"}),
    InstructionSpec("createpolicy", "PTX ISA 9.7.9.18 (createpolicy)", (
        Group("kind", (".range", ".fractional", ".cvt")),
        Group("space", (".global",)),
        # the primary priority is written first, the secondary (when written) second
        Group("primary", PRIMARY_PRIORITIES),
        Group("secondary", SECONDARY_PRIORITIES),
        Group("level", (".L2",)),
        Group("type", (".b64",)),
    ), forms=(
        Form(".range{.space}.primary{.secondary}.b64", "d, a, primary_size, total_size", gate=_SM80),
        # ptxas 13.0 also takes the fraction in a 32-bit register (the ISA shows an immediate)
        Form(".fractional.primary{.secondary}.b64", "d{, fraction}", gate=_SM80),
        Form(".cvt.level.b64", "d, property", gate=_SM80),
    # ptxas 13.0: integer registers only (no floating-point register), an immediate property
    ), operands={"d": "=reg:int64", "a": "addr", "primary_size": "reg|imm:int32",
                 "total_size": "reg|imm:int32", "fraction": "reg|imm:b32", "property": "reg|imm:int64"}),
)
