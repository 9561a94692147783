"""The modelled memory hierarchy: one L1 per CTA (the model puts every CTA on an SM of its own),
one L2 shared by the launch, DRAM behind it. `access` runs one warp's request for one 128-byte
line (a mask of its 32-byte sectors) through the plan of the instruction and counts, per sector,
L1 and L2 hits and misses and the sectors DRAM reads and writes."""
from __future__ import annotations

from .cache import FULL, SECTOR, SECTORS_PER_LINE, CacheConfig, SectorCache
from . import policy as cache_policy


_POPCOUNT = tuple(bin(m).count("1") for m in range(1 << SECTORS_PER_LINE))


def _bits(mask: int) -> int:
    return _POPCOUNT[mask]


class Counts:
    """Cache events of one source location."""
    __slots__ = ("l1_hits", "l1_misses", "l2_hits", "l2_misses", "dram_read", "dram_write")

    def __init__(self):
        self.l1_hits = self.l1_misses = self.l2_hits = self.l2_misses = 0
        self.dram_read = self.dram_write = 0


class MemorySystem:
    def __init__(self, config: CacheConfig):
        self.config = config
        self.l1: dict[int, SectorCache] = {}
        self.l2 = SectorCache(config.l2_size, config.l2_ways)

    def l1_of(self, cta: int) -> SectorCache:
        c = self.l1.get(cta)
        if c is None:
            c = self.l1[cta] = SectorCache(self.config.l1_size, self.config.l1_ways)
        return c

    def access(self, plan: cache_policy.Plan, cta: int, line: int, mask: int, l2_priority, n: Counts) -> None:
        if plan.l2 == cache_policy.L2_DISCARD:
            self.l2.invalidate(line)
            return
        if plan.l2 == cache_policy.L2_APPLY:
            self.l2.set_priority(line, plan.l2_priority)
            return
        need = mask                                  # sectors L1 does not supply
        l1 = plan.l1
        if l1 == cache_policy.L1_LOOKUP:
            c = self.l1.get(cta) or self.l1_of(cta)
            # the missing sectors are allocated now rather than after L2 answers: the two caches
            # are independent, so the order changes nothing
            hit, _ = c.access(line, mask, plan.l1_priority, plan.l1_allocate and not plan.last_use)
            n.l1_hits += _POPCOUNT[hit]
            need = mask & ~hit
            n.l1_misses += _POPCOUNT[need]
            if plan.last_use:
                c.invalidate(line, mask)
        elif l1 == cache_policy.L1_INVALIDATE:
            c = self.l1.get(cta)
            if c is not None:
                c.invalidate(line, mask)
            if not plan.write:
                n.l1_misses += _bits(mask)
        elif l1 == cache_policy.L1_FILL_LINE:
            c = self.l1_of(cta)
            hit = c.present(line)
            need = FULL & ~hit
            mask = FULL
        if need:
            self._l2(plan, line, need, l2_priority, n)
        if l1 == cache_policy.L1_WRITE:
            self.l1_of(cta).fill(line, mask, plan.l1_priority)
        elif l1 == cache_policy.L1_FILL_LINE and need:
            self.l1_of(cta).fill(line, FULL, plan.l1_priority)

    def _l2(self, plan, line, mask, priority, n: Counts) -> None:
        l2 = self.l2
        kind = plan.l2
        if kind == cache_policy.L2_READ and plan.fill <= SECTOR:          # the common case, in one lookup
            hit, written_back = l2.access(line, mask, priority, True)
            miss = mask & ~hit
            n.l2_hits += _POPCOUNT[hit]
            n.l2_misses += _POPCOUNT[miss]
            n.dram_read += _POPCOUNT[miss]
            n.dram_write += written_back
            return
        if kind == cache_policy.L2_WRITE:
            hit, written_back = l2.access(line, mask, priority, True, dirty=True)
            n.l2_hits += _bits(hit)
            n.l2_misses += _bits(mask & ~hit)
            n.dram_write += written_back
            if plan.write_through:
                n.dram_write += _bits(mask)
            return
        if kind == cache_policy.L2_REFETCH:
            l2.invalidate(line, mask)
        if kind == cache_policy.L2_FILL_LINE:
            mask = FULL
        hit = l2.present(line) & mask
        miss = mask & ~hit
        n.l2_hits += _bits(hit)
        n.l2_misses += _bits(miss)
        if hit:
            l2.touch(line, priority)
        if miss:
            self._fetch(line, miss, plan.fill, priority, n)
        if kind == cache_policy.L2_ATOMIC:
            l2.fill(line, mask, priority, dirty=True)

    def _fetch(self, line, miss, fill, priority, n: Counts) -> None:
        """Read missing sectors from DRAM; a prefetch size widens each to its aligned block."""
        if fill <= SECTOR:
            n.dram_write += self.l2.fill(line, miss, priority)
            n.dram_read += _bits(miss)
            return
        per_block = fill // SECTOR
        blocks = {}
        for k in range(SECTORS_PER_LINE):
            if miss >> k & 1:
                first = (line * SECTORS_PER_LINE + k) // per_block * per_block
                for s in range(first, first + per_block):
                    blocks.setdefault(s // SECTORS_PER_LINE, 0)
                    blocks[s // SECTORS_PER_LINE] |= 1 << (s % SECTORS_PER_LINE)
        for ln, m in blocks.items():
            new = m & ~self.l2.present(ln)
            if new:
                n.dram_read += _bits(new)
                n.dram_write += self.l2.fill(ln, new, priority if ln == line else None)

