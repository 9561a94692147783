"""A sector cache MODEL (not a simulation of any real GPU's cache): 128-byte lines of four
32-byte sectors, set-associative, least-recently-used replacement within eviction-priority
classes.

Each resident line has a priority class: evict_first (0), evict_normal (1), evict_last (2). The
victim in a full set is the least recently used line of the lowest class present, so an
evict_last line leaves only when its whole set is evict_last, and an evict_first line is the
first to go. A sector is valid or not; a line is allocated when a first sector is filled.

NVIDIA publishes cache sizes but not set counts, associativity, hashing or replacement; the
presets below take the published sizes and the model's own choices for the rest (see
docs/memory-report.md).
"""
from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

LINE = 128
SECTOR = 32
SECTORS_PER_LINE = LINE // SECTOR
FULL = (1 << SECTORS_PER_LINE) - 1

EVICT_FIRST, EVICT_NORMAL, EVICT_LAST = 0, 1, 2


@dataclass(frozen=True)
class CacheConfig:
    """Sizes of the modelled caches. `l1_size`/`l2_size` in bytes, `*_ways` the associativity."""
    name: str = "custom"
    l1_size: int = 128 * 1024
    l1_ways: int = 4
    l2_size: int = 40 * 1024 * 1024
    l2_ways: int = 16
    source: str = ""

    def __post_init__(self):
        for what, size, ways in (("L1", self.l1_size, self.l1_ways), ("L2", self.l2_size, self.l2_ways)):
            if ways < 1 or size < LINE * ways or size % (LINE * ways):
                raise ValueError(f"{what}: {size} bytes is not a whole number of {ways}-way sets "
                                 f"of {LINE}-byte lines")


#: Presets: sizes from NVIDIA's architecture whitepapers; the L1 share of the unified
#: L1/shared-memory array and all associativities are the model's choices.
PRESETS = {
    "sm_80": CacheConfig(
        "sm_80", l1_size=128 * 1024, l1_ways=4, l2_size=40 * 1024 * 1024, l2_ways=16,
        source="NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020): 192 KB combined L1 "
               "data cache and shared memory per SM, 40 MB L2 (A100 40GB). Model: 128 KB of the "
               "192 KB as L1 (64 KB left to shared memory), 4-way L1, 16-way L2."),
    "sm_90": CacheConfig(
        "sm_90", l1_size=192 * 1024, l1_ways=4, l2_size=50 * 1024 * 1024, l2_ways=16,
        source="NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022): 256 KB combined L1 "
               "data cache and shared memory per SM, 50 MB L2 (H100 SXM5). Model: 192 KB of the "
               "256 KB as L1 (64 KB left to shared memory), 4-way L1, 16-way L2."),
}


def preset_for(target: str) -> CacheConfig:
    """The preset of a `.target` (sm_90a, sm_100 ... use the sm_90 sizes; older use sm_80's)."""
    digits = "".join(ch for ch in target.removeprefix("sm_") if ch.isdigit())
    return PRESETS["sm_90"] if digits and int(digits) >= 90 else PRESETS["sm_80"]


class Line:
    __slots__ = ("valid", "dirty", "priority")

    def __init__(self, priority):
        self.valid = 0
        self.dirty = 0
        self.priority = priority


class SectorCache:
    def __init__(self, size: int, ways: int):
        self.ways = ways
        self.n_sets = size // (LINE * ways)
        self.sets: dict[int, OrderedDict] = {}

    def _set(self, line: int) -> OrderedDict:
        s = self.sets.get(line % self.n_sets)
        if s is None:
            s = self.sets[line % self.n_sets] = OrderedDict()
        return s

    def access(self, line: int, mask: int, priority, allocate: bool, dirty: bool = False):
        """A lookup of the sectors of `mask`: -> (hit mask, dirty sectors written back). Hit or
        not, the line becomes most recently used and takes `priority` (None: unchanged); with
        `allocate` the missing sectors are filled (evicting a victim for a new line). The same
        as present + touch + fill, with one set lookup (this is the model's inner loop)."""
        key = line % self.n_sets
        s = self.sets.get(key)
        if s is None:
            s = self.sets[key] = OrderedDict()
        entry = s.get(line)
        if entry is not None:
            hit = entry.valid & mask
            if hit or allocate:
                s.move_to_end(line)
                if priority is not None:
                    entry.priority = priority
            if allocate:
                entry.valid |= mask
                if dirty:
                    entry.dirty |= mask
            return hit, 0
        if not allocate:
            return 0, 0
        written_back = self._evict(s) if len(s) >= self.ways else 0
        entry = s[line] = Line(EVICT_NORMAL if priority is None else priority)
        entry.valid = mask
        if dirty:
            entry.dirty = mask
        return 0, written_back

    def present(self, line: int) -> int:
        """The valid-sector mask of a line (0 when absent); no LRU update."""
        entry = self._set(line).get(line)
        return entry.valid if entry is not None else 0

    def touch(self, line: int, priority) -> None:
        """A hit: most recently used; the priority changes unless it is None (unchanged)."""
        s = self._set(line)
        entry = s.get(line)
        if entry is not None:
            s.move_to_end(line)
            if priority is not None:
                entry.priority = priority

    def fill(self, line: int, mask: int, priority, dirty: bool = False) -> int:
        """Make the sectors of `mask` valid, allocating the line if needed (evicting a victim).
        Returns the number of dirty sectors written back by the eviction."""
        s = self._set(line)
        entry = s.get(line)
        written_back = 0
        if entry is None:
            if len(s) >= self.ways:
                written_back = self._evict(s)
            entry = s[line] = Line(EVICT_NORMAL if priority is None else priority)
        else:
            s.move_to_end(line)
            if priority is not None:
                entry.priority = priority
        entry.valid |= mask
        if dirty:
            entry.dirty |= mask
        return written_back

    def _evict(self, s: OrderedDict) -> int:
        lowest = min(e.priority for e in s.values())
        for tag, e in s.items():                     # least recently used first
            if e.priority == lowest:
                del s[tag]
                return bin(e.dirty).count("1")
        return 0

    def invalidate(self, line: int, mask: int = FULL) -> int:
        """Drop sectors (dirty data is discarded, not written back); returns the sectors dropped."""
        s = self._set(line)
        entry = s.get(line)
        if entry is None:
            return 0
        dropped = bin(entry.valid & mask).count("1")
        entry.valid &= ~mask
        entry.dirty &= ~mask
        if not entry.valid:
            del s[line]
        return dropped

    def set_priority(self, line: int, priority: int) -> bool:
        entry = self._set(line).get(line)
        if entry is None:
            return False
        entry.priority = priority
        return True
