"""What each cache operator, eviction priority and cache-management instruction does in the
cache model: one `Plan` per instruction, and the priority a cache policy gives an address.

Each rule below restates, in this project's words, what the PTX ISA says about the qualifier
(sections 9.7.9.1 cache operators, 9.7.9.2 eviction priorities, 9.7.9.8 ld, 9.7.9.9 ld.global.nc,
9.7.9.10 st, 9.7.9.15-18 prefetch/applypriority/discard/createpolicy), then the model's reading
where the ISA leaves room ("model:").
"""
from __future__ import annotations

import numpy as np

from .cache import EVICT_FIRST, EVICT_LAST, EVICT_NORMAL, SECTOR

# L1 treatment
L1_NONE, L1_LOOKUP, L1_BYPASS, L1_INVALIDATE, L1_WRITE, L1_FILL_LINE = range(6)
# L2 treatment
L2_NONE, L2_READ, L2_REFETCH, L2_WRITE, L2_ATOMIC, L2_FILL_LINE, L2_DISCARD, L2_APPLY = range(8)

PRIORITY = {".L1::evict_first": EVICT_FIRST, ".L1::evict_normal": EVICT_NORMAL,
            ".L1::evict_last": EVICT_LAST, ".L1::evict_unchanged": None,
            ".L2::evict_first": EVICT_FIRST, ".L2::evict_normal": EVICT_NORMAL,
            ".L2::evict_last": EVICT_LAST, ".L2::evict_unchanged": None}

STORE_KINDS = frozenset({"st", "wmma.store", "stmatrix", "cp.async.dst", "st.async"})
ATOMIC_KINDS = frozenset({"atom", "red", "red.async"})
CACHE_KINDS = frozenset({"prefetch", "prefetchu", "discard", "applypriority"})
BULK_KINDS = ("cp.async.bulk", "cp.reduce.async.bulk")
#: spaces the L1/L2 model serves (shared memory has its own banks; .const and .param reads go
#: through the constant cache, which the model leaves out)
CACHED_SPACES = frozenset({".global", ".local"})


def is_store(kind: str) -> bool:
    return kind in STORE_KINDS or kind.endswith((".dst", ".write", ".store"))


class Plan:
    """How one instruction meets L1 and L2."""
    __slots__ = ("l1", "l1_allocate", "l1_priority", "last_use", "l2", "l2_priority", "fill",
                 "write_through", "moves_data", "write")

    def __init__(self, l1=L1_NONE, l2=L2_NONE, *, l1_allocate=True, l1_priority=None,
                 last_use=False, l2_priority=None, fill=SECTOR, write_through=False,
                 moves_data=True, write=False):
        self.l1, self.l2 = l1, l2
        self.l1_allocate, self.l1_priority, self.last_use = l1_allocate, l1_priority, last_use
        self.l2_priority, self.fill, self.write_through = l2_priority, fill, write_through
        self.moves_data = moves_data
        self.write = write                  # a store or an atomic (not an L1 read)


NO_CACHE = Plan(moves_data=True)


def plan_for(kind: str, space: str, hints) -> Plan:
    """The plan of an instruction of `kind` on `space` (already resolved from generic)."""
    if kind in CACHE_KINDS:
        if space not in CACHED_SPACES:
            return Plan(moves_data=False)        # a cache hint on memory the model does not cache
        return _cache_instruction(kind, space, hints)
    if space not in CACHED_SPACES:
        return NO_CACHE
    cop = hints.cop
    # .cs "cache streaming": the data is likely read once, so it is allocated with evict-first
    # priority in L1 and L2. .lu "last use" on a global address behaves as .cs (the ISA says so).
    streaming = cop == ".cs" or (cop == ".lu" and space == ".global")
    # model: an access without an eviction qualifier (priority None) leaves a resident line's
    # class alone and allocates new lines as evict_normal, so a plain load does not demote a line
    # an earlier evict_last access (or policy) protected
    l2_priority = EVICT_FIRST if streaming else None
    if hints.l2 is not None:
        # .L2::evict_first/normal/last: the priority the line gets in L2
        l2_priority = PRIORITY[hints.l2]
    # .L2::64B/128B/256B: a hint to bring that much (aligned) data into L2 with the access
    fill = max(SECTOR, hints.prefetch or 0)
    if kind.startswith(BULK_KINDS):
        # the bulk-copy (TMA) unit moves data between L2 and shared memory, past L1 (model); a
        # bulk reduction into global memory is performed at L2 like an atomic
        if not is_store(kind):
            return Plan(L1_BYPASS, L2_READ, l2_priority=l2_priority, fill=fill)
        return Plan(L1_INVALIDATE, L2_ATOMIC if kind.startswith("cp.reduce") else L2_WRITE,
                    l2_priority=l2_priority, write=True)
    if kind in ATOMIC_KINDS:
        # atomics are performed at L2 (model): the L1 copy of the line is dropped, L2 does a
        # read-modify-write, fetching a missing sector from DRAM
        return Plan(L1_INVALIDATE if space == ".global" else L1_BYPASS, L2_ATOMIC,
                    l2_priority=l2_priority, write=True)
    if is_store(kind):
        # .wb (default) writes back at every coherent level; .cg caches the store in L2 only;
        # .cs stores with evict-first priority; .wt writes through to system memory.
        # model: global stores do not allocate in L1 (L1 is write-through for global data) and
        # drop the L1 copy; local stores allocate in L1; L2 allocates written sectors without
        # fetching them; .wt also counts the sectors as DRAM writes at once.
        l1 = L1_WRITE if space == ".local" and cop != ".cg" else L1_INVALIDATE
        return Plan(l1, L2_WRITE, l1_priority=EVICT_FIRST if streaming else None,
                    l2_priority=l2_priority, write_through=cop == ".wt", write=True)
    if cop == ".cg":
        # .cg "cache global": cached in L2 and below, not in L1. model: the L1 is not looked up.
        return Plan(L1_BYPASS, L2_READ, l2_priority=l2_priority, fill=fill)
    if cop == ".cv":
        # .cv "don't cache, fetch again": cached lines are stale; the ISA says a global
        # system-memory line in L2 is invalidated and fetched again on every load. model: every
        # .cv load drops the L1 and L2 copies of its sectors and fetches them from DRAM (all
        # emulated memory is treated as such), allocating them in L2 only.
        return Plan(L1_INVALIDATE, L2_REFETCH, l2_priority=l2_priority, fill=fill)
    # .ca (the default) caches at all levels; .nc (the non-coherent read-only path) shares the L1
    # with ordinary loads on sm_70 and later, so the model treats it as .ca.
    l1_priority = EVICT_FIRST if streaming else None
    if hints.l1 is not None and hints.l1 != ".L1::no_allocate":
        # .L1::evict_first/normal/last set the L1 priority; .L1::evict_unchanged keeps a resident
        # line's priority (a newly allocated one gets normal)
        l1_priority = PRIORITY[hints.l1]
    return Plan(L1_LOOKUP, L2_READ,
                # .L1::no_allocate: do not allocate the data in L1 (a hit is still a hit)
                l1_allocate=hints.l1 != ".L1::no_allocate", l1_priority=l1_priority,
                # .lu on a local address: the line will not be used again; model: the L1 copy
                # of the accessed sectors is dropped after the load
                last_use=cop == ".lu" and space == ".local",
                l2_priority=l2_priority, fill=fill)


def _cache_instruction(kind, space, hints) -> Plan:
    if kind == "prefetchu":
        # prefetchu.L1 fills the uniform cache, which the model does not have
        return Plan(moves_data=False)
    if kind == "discard":
        # discard.L2: the line's data may be dropped from L2 without writing it back
        return Plan(l2=L2_DISCARD, moves_data=False)
    if kind == "applypriority":
        # applypriority.L2::evict_normal: the line's L2 priority becomes evict_normal
        return Plan(l2=L2_APPLY, l2_priority=EVICT_NORMAL, moves_data=False)
    # prefetch{.space}.level: bring the line holding the address into that level;
    # prefetch.global.L2::evict_last/normal: into L2 with that priority. model: the line (all
    # four sectors) is filled; an L1 prefetch also fills L2 on the way.
    priority = PRIORITY[hints.l2] if hints.l2 is not None else None
    if hints.level == ".L1":
        return Plan(L1_FILL_LINE, L2_FILL_LINE, l2_priority=priority, moves_data=False)
    return Plan(l2=L2_FILL_LINE, l2_priority=priority, moves_data=False)


def fraction_hash(line: np.ndarray) -> np.ndarray:
    """The model's deterministic stand-in for "this fraction of accesses": a 128-byte line is
    in the primary fraction f when fraction_hash(line) < f (a Fibonacci hash of the line index
    mapped to [0, 1)), so a line keeps its class on every access."""
    h = (np.asarray(line, np.uint64) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(11)
    return h.astype(np.float64) / float(1 << 53)


def policy_priority(pol, line: int, own):
    """The L2 priority a createpolicy policy gives an access to 128-byte `line` (own: the
    access's priority without the policy).

    * fractional: primary priority for the given fraction of accesses, secondary for the rest
      (secondary defaults to evict_unchanged). model: which accesses is decided per line
      (`fraction_hash`).
    * range: primary priority in [base, base + primary size), secondary in
      [base + primary size, base + total size). model: outside the range the policy does not
      apply and the access keeps its own priority.
    evict_unchanged leaves a resident line's priority alone (a new line: normal).
    """
    if pol is None:
        return own
    if pol.kind == ".fractional":
        primary = float(fraction_hash(np.array([line]))[0]) < pol.fraction
    else:
        a = line * 128                       # a line that overlaps the range is in it
        if not (a + 128 > pol.base and a < pol.base + pol.total_size):
            return own
        primary = a < pol.base + pol.primary_size
    return PRIORITY[pol.primary if primary else pol.secondary]
