"""The memory-access trace hook: what a memory instruction tells an observer, when one listens.

A launch with a recorder (`Kernel.__call__(..., memory_report=True)`) sets `Batch.trace`; every
memory instruction's semantics then calls

    trace.record(b, op, kind, space, act, addr, size, hints, policy)

once per execution, before touching memory:

* `kind`: "ld", "st", "atom", "red", "prefetch", "prefetchu", "discard", "applypriority",
  "wmma.load", "wmma.store", ...; a copy tells its read as "<name>.src" and its write as
  "<name>.dst" (the write adds traffic, not another execution), or its write alone as
  "<name>.write" (`cp.async.src`/`.dst`, `cp.async.bulk.src`, `cp.reduce.async.bulk.write`);
  a bulk or tensor copy tells its shared-memory side as "<name>.smem" (BULK_SHARED: bytes the
  bulk-copy unit moves, no lanes; per destination CTA of a multicast) after its global side;
* `space`: the instruction's state space, or "generic" (the recorder resolves the window);
* `act`: the executing thread indices of the batch (None: all), `addr`: one uint64 address per
  executing thread (in `space`), `size`: bytes each thread moves (a scalar, or one per thread);
* `hints`: the instruction's decoded cache qualifiers (`AccessHints`), `policy`: one 64-bit cache
  policy per thread (`.L2::cache_hint`) or None.

Without a recorder (`b.trace is None`) the only cost is that None check. The recorder itself
lives above the emulator (`ptxld.memreport`) and registers its builder here with
`register_report`.
"""
from __future__ import annotations

from ..spec import ld as ld_spec
from ..spec.instructions import cache as cache_records


#: the kind suffix of a bulk copy's shared-memory side
BULK_SHARED = ".smem"


class AccessHints:
    """The cache qualifiers of one memory instruction, decoded once at compile time."""
    __slots__ = ("cop", "nc", "l1", "l2", "cache_hint", "prefetch", "level")

    def __init__(self, cop=None, nc=False, l1=None, l2=None, cache_hint=False, prefetch=0,
                 level=None):
        self.cop = cop                  # ".ca" ".cg" ".cs" ".lu" ".cv" (loads), ".wb" ".wt" (stores)
        self.nc = nc                    # ld.global.nc
        self.l1 = l1                    # ".L1::evict_*" / ".L1::no_allocate"
        self.l2 = l2                    # ".L2::evict_*"
        self.cache_hint = cache_hint    # .L2::cache_hint: a cache-policy operand follows
        self.prefetch = prefetch        # .L2::64B/128B/256B as bytes, 0 when absent
        self.level = level              # prefetch/discard/applypriority: ".L1" or ".L2"

    def describe(self) -> str:
        """The qualifiers as written (`.cs .L2::evict_last .L2::cache_hint .L2::256B`)."""
        parts = [self.cop, ".nc" if self.nc else None, self.l1, self.l2,
                 ".L2::cache_hint" if self.cache_hint else None,
                 f".L2::{self.prefetch}B" if self.prefetch else None, self.level]
        return " ".join(p for p in parts if p)

    def __repr__(self) -> str:
        parts = [f"{k}={getattr(self, k)!r}" for k in self.__slots__ if getattr(self, k)]
        return f"AccessHints({', '.join(parts)})"


NO_HINTS = AccessHints()


_HINTS: dict[str, AccessHints] = {}


def hints_of(decoded) -> AccessHints:
    """The cache qualifiers an opcode writes, whatever its instruction (ld, st, atom, cp.async,
    prefetch...): read by value with `Decoded.pick`, so instructions without a record of their
    own are read the same way. Kept per opcode: real code repeats a few opcodes many times."""
    h = _HINTS.get(decoded.opcode)
    if h is None:
        if len(_HINTS) > 4096:                   # bounded, like the decoder's own cache
            _HINTS.clear()
        h = _HINTS[decoded.opcode] = _read_hints(decoded)
    return h


def _read_hints(decoded) -> AccessHints:
    pick = decoded.pick
    cop = pick(*ld_spec.GROUPS["cop"]) or pick(*cache_records.STORE_COPS)
    l2 = pick(*ld_spec.GROUPS["l2_evict"])
    size = pick(*ld_spec.GROUPS["prefetch"])
    h = AccessHints(cop=cop, nc=pick(".nc") is not None, l1=pick(*ld_spec.GROUPS["l1_evict"]), l2=l2,
                    cache_hint=pick(*ld_spec.GROUPS["cache_hint"]) is not None,
                    prefetch=cache_records.PREFETCH_BYTES.get(size, 0), level=pick(*cache_records.LEVELS))
    if not (h.cop or h.nc or h.l1 or h.l2 or h.cache_hint or h.prefetch or h.level):
        return NO_HINTS
    return h


# ------------------------------------------------------------------ the report builder
_BUILDER: list = []


def register_report(builder) -> None:
    """`builder(kernel, options) -> recorder`; the recorder has `record(...)` (above) and
    `finish(stats) -> report`. Registered by `ptxld.memreport` when it is imported."""
    _BUILDER[:] = [builder]


def new_recorder(kernel, options):
    if not _BUILDER:
        raise RuntimeError("memory reports are built by ptxld.memreport: import it (or use "
                           "`import ptxld`'s RawModule, which loads it) before asking for one")
    return _BUILDER[0](kernel, options)
