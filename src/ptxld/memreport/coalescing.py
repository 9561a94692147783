"""How one warp-level memory instruction is served: requests, sectors, shared-memory wavefronts.

Every function takes the accesses of one instruction execution for many warps at once: `warp`
(a warp id per executing thread), `lane` (0..31), `addr` (uint64 byte address per thread) and
`size` (bytes per thread, a scalar or an array), and returns totals over the warps.

Definitions (the names of the Nsight Compute metrics they correspond to are in
docs/memory-report.md):

* request: one per warp instruction on sm_70 and later; on sm_5x/sm_6x the warp is served in
  groups of 8, 4 or 2 consecutive lanes for accesses of up to 4, 8 or 16 bytes per thread, one
  request per group with an active thread.
* sectors: the distinct 32-byte aligned sectors that hold a byte some active thread accesses.
* ideal sectors: ceil(distinct bytes the warp accesses / 32), the fewest sectors those bytes fit.
* wavefronts (shared memory): the warp is split into phases of 128 bytes of request (1, 2 or 4
  phases for 4-, 8- or 16-byte accesses); in each phase every one of the 32 banks (4-byte words,
  bank = word mod 32) serves its distinct words one per wavefront, so a phase takes as many
  wavefronts as its busiest bank has distinct words. Lanes reading the same word share it
  (broadcast). Ideal wavefronts: ceil(distinct words of the phase / 32) per phase.
"""
from __future__ import annotations

import numpy as np

SECTOR = 32
LINE = 128
BANKS = 32
WORD = 4


def group_starts(keys: np.ndarray) -> np.ndarray:
    """Boolean: where a sorted key array starts a new value."""
    first = np.ones(len(keys), bool)
    first[1:] = keys[1:] != keys[:-1]
    return first


def distinct_pairs(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct (a, b) pairs, sorted by a then b (a: small non-negative ids)."""
    if len(a) == 0:
        return a, b
    a = a.astype(np.int64, copy=False)
    b0 = b.min()
    span = int(b.max() - b0) + 1
    if span * (int(a.max()) + 1) < (1 << 62):
        # one int64 key per pair: a single sort instead of a two-key lexsort
        key = a * span + (b - b0).astype(np.int64)
        if not (key[1:] >= key[:-1]).all():        # thread order is often address order already
            key.sort()
        key = key[group_starts(key)]               # (np.unique hashes first: slower here)
        return key // span, (key % span).astype(b.dtype) + b0
    order = np.lexsort((b, a))
    a, b = a[order], b[order]
    first = np.ones(len(a), bool)
    first[1:] = (a[1:] != a[:-1]) | (b[1:] != b[:-1])
    return a[first], b[first]


def run_lengths(sorted_ids: np.ndarray) -> np.ndarray:
    """How many times each value occurs in a sorted array, in order."""
    if len(sorted_ids) == 0:
        return np.zeros(0, np.int64)
    starts = np.flatnonzero(group_starts(sorted_ids))
    return np.diff(np.r_[starts, len(sorted_ids)])


def expand(addr: np.ndarray, size, unit: int, *others):
    """Each thread's [addr, addr + size) as the `unit`-byte blocks it touches: (block index per
    block, then each of `others` repeated alongside)."""
    first = addr // np.uint64(unit)
    last = (addr + np.asarray(size, np.uint64) - np.uint64(1)) // np.uint64(unit)
    n = (last - first + np.uint64(1)).astype(np.intp)
    if (n == 1).all():
        return (first, *others)
    rep = np.repeat(np.arange(len(addr)), n)
    offs = np.arange(len(rep)) - np.repeat(np.cumsum(n) - n, n)
    return (first[rep] + offs.astype(np.uint64), *[o[rep] for o in others])


def distinct_count(ids: np.ndarray) -> int:
    """Distinct values of an id array (thread-ordered arrays are sorted: no sort needed)."""
    if len(ids) < 2:
        return len(ids)
    d = np.diff(ids)
    if (d >= 0).all():
        return int(np.count_nonzero(d)) + 1
    ids = np.sort(ids)
    return int(np.count_nonzero(ids[1:] != ids[:-1])) + 1


def requests(warp: np.ndarray, lane: np.ndarray, size, sm: int) -> int:
    if sm >= 70:
        return distinct_count(warp)
    s = int(np.max(size))
    group = 8 if s <= 4 else 4 if s <= 8 else 2
    w, g = distinct_pairs(warp, lane // group)
    return len(w)


def sectors(warp: np.ndarray, addr: np.ndarray, size) -> tuple[int, int, int]:
    """(sectors, ideal sectors, distinct bytes) summed over the warps."""
    blocks, w = expand(addr, size, SECTOR, warp)
    ws, _ = distinct_pairs(w, blocks)
    n_sectors = len(ws)
    if np.isscalar(size) or np.ndim(size) == 0 or (np.asarray(size) == np.asarray(size).flat[0]).all():
        # naturally aligned accesses of one size either coincide or are disjoint
        s = int(np.asarray(size).flat[0])
        wa, _ = distinct_pairs(warp, addr)
        per_warp = run_lengths(wa) * s
    else:
        byte, w = expand(addr, size, 1, warp)
        wb, _ = distinct_pairs(w, byte)
        per_warp = run_lengths(wb)
    ideal = int(((per_warp + SECTOR - 1) // SECTOR).sum())
    return n_sectors, ideal, int(per_warp.sum())


def wavefronts(warp: np.ndarray, lane: np.ndarray, addr: np.ndarray, size) -> tuple[int, int]:
    """(wavefronts, ideal wavefronts) of shared-memory accesses, summed over the warps."""
    s = max(int(np.max(size)), WORD)
    lanes_per_phase = max(1, min(32, LINE // s))
    phase_id = warp.astype(np.int64) * 32 + (lane // lanes_per_phase).astype(np.int64)
    words, ph = expand(addr, size, WORD, phase_id)
    ph, words = distinct_pairs(ph, words)
    if len(ph) == 0:
        return 0, 0
    bank = (words % np.uint64(BANKS)).astype(np.int64)
    key = np.sort(ph * BANKS + bank)             # one key per (phase, bank) word; phases adjacent
    starts = np.flatnonzero(group_starts(key))
    per_bank = np.diff(np.r_[starts, len(key)])  # distinct words in one bank of one phase
    bank_phase = key[starts] // BANKS
    pstarts = np.flatnonzero(group_starts(bank_phase))
    wave = np.maximum.reduceat(per_bank, pstarts)
    per_phase_words = run_lengths(ph)
    ideal = (per_phase_words + BANKS - 1) // BANKS
    return int(wave.sum()), int(ideal.sum())
