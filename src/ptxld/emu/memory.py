"""Emulated memory: state spaces, the generic address space and its windows.

Global memory (launch buffers, module `.global` variables, the kernel-parameter buffer) is a
sorted list of segments in a 64-bit (or 32-bit) address space; `.const` is one bank; `.shared`
is one byte array per CTA, `.local` one per thread. Every space is reached through a flat byte
array plus a byte index per thread, so a naturally aligned access is a gather through a typed
view.

Shared state-space addresses: the CTA's own window is [0, 2^24); `.shared::cluster` addresses of
the CTA with cluster rank r are ((r + 1) << 24) | offset (what `mapa` returns). Generic windows
(PTX ISA 6.4.1.1; the bases are this emulator's choice) are given by `Layout`.
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass

import numpy as np

from . import errors
from .ptxtypes import UINT

SHARED_RANK_SHIFT = 24
SHARED_CTA_SPAN = 1 << SHARED_RANK_SHIFT       # own CTA's shared window
LOCAL_SPAN = 1 << 24
CONST_SPAN = 1 << 24
PARAM_SPAN = 1 << 24
SHARED_SPAN = 1 << 29                          # own window + up to 31 cluster ranks
PAD = 32                                       # backing arrays are padded for typed views


@dataclass(frozen=True)
class Layout:
    bits: int
    local: int
    const: int
    param: int
    shared: int
    global_base: int
    code: int                                   # function "addresses" for indirect calls

    def window_of(self, a: int) -> str:
        if self.local <= a < self.local + LOCAL_SPAN:
            return ".local"
        if self.const <= a < self.const + CONST_SPAN:
            return ".const"
        if self.shared <= a < self.shared + SHARED_SPAN:
            return ".shared"
        if self.param <= a < self.param + PARAM_SPAN:
            return ".param"
        return ".global"


LAYOUT64 = Layout(64, local=0x7FF1_0000_0000, const=0x7FF2_0000_0000, param=0x7FF3_0000_0000,
                  shared=0x7FF8_0000_0000, global_base=0x7F00_0000_0000, code=0x7FF4_0000_0000)
LAYOUT32 = Layout(32, local=0x0100_0000, const=0x0200_0000, param=0x0300_0000,
                  shared=0x2000_0000, global_base=0x4000_0000, code=0x0400_0000)


class Fault(Exception):
    """Raised by memory with the position (index into the access arrays) of the first bad
    access; the executor turns it into an EmulationError with thread and source context."""

    def __init__(self, cls, pos: int, address: int, space: str, message: str, expected: str = "",
                 count: int = 1):
        super().__init__(message)
        self.cls, self.pos, self.address, self.space = cls, pos, address, space
        self.message, self.expected, self.count = message, expected, count


@dataclass(eq=False)
class Segment:
    base: int
    size: int
    data: np.ndarray           # uint8, len >= size, multiple of PAD
    name: str
    readonly: bool = False

    @property
    def end(self) -> int:
        return self.base + self.size


def _padded(size: int) -> int:
    return max(PAD, (size + PAD - 1) // PAD * PAD)


class GlobalMemory:
    """Segments of the global window (the kernel-parameter buffer is one, read-only)."""

    def __init__(self, layout: Layout, budget: int):
        self.layout = layout
        self.segments: list[Segment] = []
        self.bases: list[int] = []
        self.next = layout.global_base
        self.budget = budget
        self.used = 0

    def charge(self, nbytes: int, what: str) -> None:
        self.used += nbytes
        if self.used > self.budget:
            raise errors.MemoryBudgetError(
                f"memory budget exceeded allocating {what} ({nbytes} bytes; {self.used} bytes in "
                f"use, budget {self.budget})", expected="a smaller launch, or a larger memory_budget")

    def add(self, seg: Segment) -> Segment:
        i = bisect.bisect(self.bases, seg.base)
        self.segments.insert(i, seg)
        self.bases.insert(i, seg.base)
        return seg

    def alloc(self, size: int, name: str, *, align: int = 256, data: np.ndarray | None = None,
              readonly: bool = False) -> Segment:
        self.charge(size, name)
        base = (self.next + align - 1) // align * align
        self.next = base + max(size, 1) + 256          # a gap so overruns fault
        buf = np.zeros(_padded(size), np.uint8)
        if data is not None:
            buf[:size] = data
        return self.add(Segment(base, size, buf, name, readonly))

    def find(self, a: int) -> Segment | None:
        i = bisect.bisect(self.bases, a) - 1
        if i >= 0 and a < self.segments[i].end:
            return self.segments[i]
        return None

    def nearest(self, a: int) -> Segment | None:
        if not self.segments:
            return None
        i = bisect.bisect(self.bases, a)
        cands = self.segments[max(0, i - 1):i + 1]
        return min(cands, key=lambda s: 0 if s.base <= a < s.end else min(abs(a - s.base), abs(a - s.end)))


def _first(bad: np.ndarray) -> int:
    return int(np.flatnonzero(bad)[0])


# an address below this is a null pointer plus an offset, not a stray address near a buffer
NEAR_NULL = 1 << 16


def _null(a: int) -> str:
    return "through a null pointer" if a == 0 else f"near null (address {a:#x}: a null pointer plus an offset)"


def describe_segment(seg: Segment, a: int) -> str:
    where = (f"{a - seg.end} bytes after" if a >= seg.end else
             f"{seg.base - a} bytes before" if a < seg.base else "inside")
    return f"{where} the allocation '{seg.name}' [{seg.base:#x}, {seg.end:#x}) of {seg.size} bytes"


class Spaces:
    """All memory one batch of CTAs can reach."""

    def __init__(self, gmem: GlobalMemory, const: Segment, params: Segment, *, n_threads: int,
                 cta_of: np.ndarray, shared_size: int, n_ctas: int, local_size: int,
                 cluster_first: np.ndarray, cluster_size: int, rank_of: np.ndarray):
        self.g = gmem
        self.layout = gmem.layout
        self.const = const
        self.params = params
        self.cta_of = cta_of                     # thread -> CTA index in batch
        self.n_threads = n_threads
        self._shared_base = None                 # thread -> byte offset of its CTA's shared memory
        self._all_threads = None
        self.shared_size = shared_size
        self.shared_stride = _padded(shared_size)
        self.local_size = local_size
        # no .local variables: every local access faults, so no per-thread bytes are needed
        # (zeroing 32 bytes per thread was a fifth of a short kernel's launch)
        self.local_stride = _padded(local_size) if local_size else 0
        gmem.charge(self.shared_stride * n_ctas + self.local_stride * n_threads, "shared and local memory")
        self.shared = np.zeros(self.shared_stride * n_ctas, np.uint8)
        self.local = np.zeros(max(self.local_stride * n_threads, PAD), np.uint8)
        self.cluster_first = cluster_first       # CTA -> first CTA of its cluster (batch index)
        self.cluster_size = cluster_size
        self.rank_of = rank_of                   # CTA -> rank in cluster

    def release(self) -> None:
        self.g.used -= self.shared.nbytes + self.local.nbytes

    # ------------------------------------------------------------------ per-space resolution
    def resolve(self, space: str, addr: np.ndarray, nbytes: int, tids, write: bool):
        """-> list of (backing uint8 array, byte index intp array, positions or None)."""
        bits = int(np.bitwise_or.reduce(addr)) if nbytes > 1 and len(addr) else None
        if bits is not None and bits & (nbytes - 1):
            pos = _first((addr & np.uint64(nbytes - 1)) != 0)
            raise Fault(errors.MisalignedAddressError, pos, int(addr[pos]), space,
                        f"misaligned {'store to' if write else 'load from'} {space} space: "
                        f"{nbytes}-byte access",
                        f"an address that is a multiple of the access size ({nbytes} bytes)",
                        int(((addr & np.uint64(nbytes - 1)) != 0).sum()))
        if space == ".global":
            return self._global(addr, nbytes, write, ".global")
        if space == ".local":
            return [self._local(addr, nbytes, tids, ".local", write)]
        if space in (".shared", ".shared::cta"):
            return [self._shared(addr, nbytes, tids, write, cluster=False, bits=bits)]
        if space == ".shared::cluster":
            return [self._shared(addr, nbytes, tids, write, cluster=True)]
        if space == ".const":
            return [self._bank(self.const, addr, nbytes, write, ".const")]
        if space in (".param", ".param::entry"):
            return [self._bank(self.params, addr, nbytes, write, ".param")]
        if space == "generic":
            return self._generic(addr, nbytes, tids, write)
        raise ValueError(space)

    def _global(self, addr, nbytes, write, space, offset_pos=None):
        lo, hi = int(addr.min()), int(addr.max())
        seg = self.g.find(lo)
        if seg is not None and hi + nbytes <= seg.end:
            if write and seg.readonly:
                raise Fault(errors.ReadOnlyMemoryError, 0, lo, space,
                            f"store to read-only memory ('{seg.name}')", "a writable global address")
            return [(seg.data, (addr - np.uint64(seg.base)).view(np.intp), offset_pos)]
        bases = np.array(self.g.bases, np.uint64)
        ends = np.array([s.end for s in self.g.segments], np.uint64)
        k = np.searchsorted(bases, addr, side="right").astype(np.intp) - 1
        ok = k >= 0
        kk = np.where(ok, k, 0)
        ok &= (addr + np.uint64(nbytes)) <= ends[kk] if len(ends) else False
        if not np.all(ok):
            pos = _first(~ok)
            a = int(addr[pos])
            near = self.g.nearest(a)
            why = (_null(a) if a < NEAR_NULL else
                   describe_segment(near, a) if near is not None else "no allocation exists")
            raise Fault(errors.OutOfBoundsError, pos if offset_pos is None else int(offset_pos[pos]), a, space,
                        f"out-of-bounds {'store to' if write else 'load from'} {space} space: "
                        f"{nbytes}-byte access {why}",
                        "an address inside a global allocation (launch buffer or .global variable)",
                        int((~ok).sum()))
        out = []
        for s in np.unique(kk):
            seg = self.g.segments[int(s)]
            sel = np.flatnonzero(kk == s)
            if write and seg.readonly:
                raise Fault(errors.ReadOnlyMemoryError, int(sel[0]), int(addr[sel[0]]), space,
                            f"store to read-only memory ('{seg.name}')", "a writable global address")
            pos = sel if offset_pos is None else offset_pos[sel]
            out.append((seg.data, (addr[sel] - np.uint64(seg.base)).astype(np.intp), pos))
        return out

    def _bank(self, seg: Segment, addr, nbytes, write, space):
        bad = addr + np.uint64(nbytes) > np.uint64(seg.size)
        if bad.any():
            pos = _first(bad)
            raise Fault(errors.OutOfBoundsError, pos, int(addr[pos]), space,
                        f"out-of-bounds {'store to' if write else 'load from'} {space} space: "
                        f"{nbytes}-byte access past the end of the {space} bank ({seg.size} bytes)",
                        f"an offset below {seg.size}", int(bad.sum()))
        if write and seg.readonly:
            raise Fault(errors.ReadOnlyMemoryError, 0, int(addr[0]), space, f"store to read-only {space} space",
                        "a writable state space")
        return (seg.data, addr.astype(np.intp), None)

    def _local(self, addr, nbytes, tids, space, write):
        bad = addr + np.uint64(nbytes) > np.uint64(self.local_size)
        if bad.any():
            pos = _first(bad)
            raise Fault(errors.OutOfBoundsError, pos, int(addr[pos]), ".local",
                        f"out-of-bounds {'store to' if write else 'load from'} .local space: "
                        f"{nbytes}-byte access", f"a local address below {self.local_size} "
                        f"(the kernel's .local variables)", int(bad.sum()))
        return (self.local, tids.astype(np.intp) * self.local_stride + addr.astype(np.intp), None)

    @property
    def all_threads(self) -> np.ndarray:
        """0 .. n_threads-1, one shared read-only array (the thread list of every-thread sets)."""
        if self._all_threads is None:
            self._all_threads = np.arange(self.n_threads)
            self._all_threads.flags.writeable = False
        return self._all_threads

    def shared_base(self, tids) -> np.ndarray:
        """Byte offset of each thread's own CTA shared memory in the batch's shared array."""
        base = self._shared_base
        if base is None:
            base = self._shared_base = self.cta_of.astype(np.intp) * self.shared_stride
        return base if tids is self._all_threads else base[tids]

    def _shared(self, addr, nbytes, tids, write, cluster: bool, bits: int | None = None):
        # `bits`, the OR of all addresses, bounds their maximum: when it is in the window the
        # maximum is too, and no second pass is needed
        if len(addr) and ((bits is not None and bits + nbytes <= self.shared_size)
                          or int(addr.max()) + nbytes <= self.shared_size):
            # every address in the executing CTA's own window (no rank bits) and in bounds
            return (self.shared, self.shared_base(tids) + addr.view(np.intp), None)
        own = self.cta_of[tids]
        rank = (addr >> np.uint64(SHARED_RANK_SHIFT)).astype(np.int64)
        off = (addr & np.uint64(SHARED_CTA_SPAN - 1)).astype(np.intp)
        if rank.any():
            r = rank - 1
            bad = (r >= self.cluster_size) | (rank < 0)
            if not cluster:
                bad |= (rank > 0) & (r != self.rank_of[own])
            if bad.any():
                pos = _first(bad)
                raise Fault(errors.OutOfBoundsError, pos, int(addr[pos]), ".shared::cluster" if cluster else ".shared",
                            f"shared address names CTA rank {int(r[pos])}, outside "
                            f"{'the cluster' if cluster else 'the executing CTA'}",
                            f"a rank below the cluster size {self.cluster_size}" if cluster else
                            "an address in the executing CTA's shared memory (use .shared::cluster "
                            "for other CTAs)", int(bad.sum()))
            cta = np.where(rank > 0, self.cluster_first[own] + r, own)
        else:
            cta = own
        bad = off + nbytes > self.shared_size
        if bad.any():
            pos = _first(bad)
            raise Fault(errors.OutOfBoundsError, pos, int(addr[pos]), ".shared",
                        f"out-of-bounds {'store to' if write else 'load from'} .shared space: "
                        f"{nbytes}-byte access at offset {int(off[pos])}",
                        f"an offset below the CTA's shared memory size ({self.shared_size} bytes: "
                        f"static variables plus dynamic shared memory)", int(bad.sum()))
        return (self.shared, cta.astype(np.intp) * self.shared_stride + off, None)

    def window(self, addr: np.ndarray) -> np.ndarray:
        """Window code per generic address: 0 global, 1 local, 2 const, 3 shared, 4 param."""
        L = self.layout
        code = np.zeros(addr.shape, np.int8)
        for c, base, span in ((1, L.local, LOCAL_SPAN), (2, L.const, CONST_SPAN),
                              (3, L.shared, SHARED_SPAN), (4, L.param, PARAM_SPAN)):
            code[(addr >= np.uint64(base)) & (addr < np.uint64(base + span))] = c
        return code

    def _window_part(self, window, addr, nbytes, tids, write):
        L = self.layout
        if window == ".local":
            return self._local(addr - np.uint64(L.local), nbytes, tids, "generic", write)
        if window == ".const":
            return self._bank(self.const, addr - np.uint64(L.const), nbytes, write, ".const")
        return self._shared(addr - np.uint64(L.shared), nbytes, tids, write, cluster=True)

    def _generic(self, addr, nbytes, tids, write):
        L = self.layout
        lo, hi = int(addr.min()), int(addr.max())
        wl, wh = L.window_of(lo), L.window_of(hi)
        if wl == wh and wl in (".global", ".param"):
            return self._global(addr, nbytes, write, "generic")
        if wl == wh:
            # one window for every address (windows are single ranges): no per-address codes
            try:
                return [self._window_part(wl, addr, nbytes, tids, write)]
            except Fault as f:
                f.address = int(addr[f.pos])
                raise
        code = self.window(addr)
        out = []
        for c in np.unique(code):
            sel = np.flatnonzero(code == c)
            a, t = addr[sel], tids[sel]
            try:
                if c in (0, 4):
                    out += self._global(a, nbytes, write, "generic", offset_pos=sel)
                    continue
                if c == 1:
                    r = self._local(a - np.uint64(L.local), nbytes, t, "generic", write)
                elif c == 2:
                    r = self._bank(self.const, a - np.uint64(L.const), nbytes, write, ".const")
                else:
                    r = self._shared(a - np.uint64(L.shared), nbytes, t, write, cluster=True)
            except Fault as f:
                f.pos = int(sel[f.pos])
                f.address = int(addr[f.pos])
                raise
            out.append((r[0], r[1], sel))
        return out


def stable_order(keys: np.ndarray) -> np.ndarray:
    """np.argsort(keys, kind="stable") for non-negative integer keys (element indices of an
    access), by one or two 16-bit radix passes when the keys span less than 2^32 (NumPy's
    stable sort of 16-bit keys is a radix sort; of wider ones a timsort, several times slower)."""
    if len(keys) == 0:
        return np.zeros(0, np.intp)
    lo = int(keys.min())
    span = int(keys.max()) - lo
    if span >= 1 << 32:
        return np.argsort(keys, kind="stable")
    k = keys - lo
    order = np.argsort(k.astype(np.uint16), kind="stable")
    if span >= 1 << 16:
        high = (k >> 16).astype(np.uint16)[order]
        order = order[np.argsort(high, kind="stable")]
    return order


def _vector_rows(v: np.ndarray, el: np.ndarray, count: int):
    """A vector access of `count` consecutive elements at element indices `el`, as whole rows
    of `v` viewed (rows, count): (rows view, row index), or None unless every access starts at
    a multiple of `count` (the ISA's alignment of vector accesses) and `v` divides into rows."""
    if count & (count - 1) or len(v) % count or not len(el):
        return None
    if int(np.bitwise_or.reduce(el)) & (count - 1):
        return None
    return v.reshape(-1, count), el >> (count.bit_length() - 1)


def gather(parts, n: int, width: int, count: int, stride_bytes: int | None = None) -> np.ndarray:
    """Read `count` consecutive elements of `width` bits at each resolved address -> (n, count)
    raw bits (uint8..uint64; for 128 bits (n, count, 2) uint64)."""
    wb = width // 8
    step = stride_bytes or wb
    if width == 128:
        out = np.empty((n, count, 2), np.uint64)
        for backing, idx, pos in parts:
            v = backing.view(np.uint64)
            for k in range(count):
                j = (idx + k * step) >> 3
                sl = slice(None) if pos is None else pos
                out[sl, k, 0] = v[j]
                out[sl, k, 1] = v[j + 1]
        return out
    dt = UINT[width]
    if len(parts) == 1 and parts[0][2] is None:
        backing, idx, _ = parts[0]
        v = backing.view(dt)
        base = idx >> (wb.bit_length() - 1) if wb > 1 else idx
        if count == 1:
            return np.take(v, base)[:, None]         # np.take: faster than v[base] for 1-D
        rows = _vector_rows(v, base, count) if step == wb else None
        if rows is not None:                         # one row per thread: no (n, count) index
            return np.take(rows[0], rows[1], axis=0)
        return v[base[:, None] + np.arange(count) * (step // wb)]
    out = np.empty((n, count), dt)
    for backing, idx, pos in parts:
        v = backing.view(dt)
        base = idx >> (wb.bit_length() - 1) if wb > 1 else idx
        out[pos] = v[base[:, None] + np.arange(count) * (step // wb)]
    return out


def gather_one(parts, n: int, width: int) -> np.ndarray:
    """One element of `width` bits (8..64) at each resolved address -> a fresh 1-D array (a
    register can take it as it is: no view to copy)."""
    if len(parts) == 1 and parts[0][2] is None:
        backing, idx, _ = parts[0]
        wb = width // 8
        return np.take(backing.view(UINT[width]), idx >> (wb.bit_length() - 1) if wb > 1 else idx)
    return gather(parts, n, width, 1)[:, 0].copy()


def scatter(parts, values: np.ndarray, width: int, count: int, keep=None) -> None:
    """Write (n, count) raw bits; later threads win where addresses coincide (thread order).
    `keep` (count bools) skips elements (sink `_`)."""
    wb = width // 8
    for backing, idx, pos in parts:
        vals = values if pos is None else values[pos]
        if width == 128:
            v = backing.view(np.uint64)
            for k in range(count):
                j = (idx + k * 16) >> 3
                v[j] = vals[:, k, 0]
                v[j + 1] = vals[:, k, 1]
            continue
        v = backing.view(UINT[width])
        base = idx >> (wb.bit_length() - 1) if wb > 1 else idx
        rows = _vector_rows(v, base, count) if count > 1 and keep is None else None
        if rows is not None:
            rows[0][rows[1]] = vals
            continue
        for k in range(count):
            if keep is None or keep[k]:
                v[base if k == 0 else base + k] = vals[:, k]
