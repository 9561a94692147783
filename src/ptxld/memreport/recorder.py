"""The recorder the emulator calls for every memory instruction of a launch with a memory report
(see ptxld.emu.trace): it resolves generic addresses to their state space, counts requests,
sectors and wavefronts per instruction, and runs the cache model."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..emu.sem_cache import lookup_policy
from ..emu.trace import BULK_SHARED
from . import coalescing
from . import policy as cache_policy
from .cache import SECTORS_PER_LINE, CacheConfig, PRESETS, preset_for
from .hierarchy import Counts, MemorySystem
from .report import Report

# generic window codes (ptxld.emu.memory.Spaces.window) -> state space, and the window base's
# attribute on the layout
_WINDOWS = {0: (".global", None), 1: (".local", "local"), 2: (".const", "const"),
            3: (".shared", "shared"), 4: (".param", None)}
_SPACE = {".shared::cta": ".shared", ".shared::cluster": ".shared", ".param::entry": ".param",
          ".param::func": ".param"}
LOCAL_REGION = np.uint64(1 << 62)        # where the model lays out interleaved local memory


@dataclass
class ReportOptions:
    """`cache`: a CacheConfig or a preset name ("sm_80", "sm_90"); None: the preset of the
    module's target. `sm`: the architecture whose request rule applies (None: the target's)."""
    cache: CacheConfig | str | None = None
    sm: int | None = None


def _target_sm(target: str) -> int:
    digits = "".join(ch for ch in target.removeprefix("sm_") if ch.isdigit())
    return int(digits) if digits else 80


class PcStats:
    """Figures of one PTX instruction."""

    def __init__(self, op, kind, hints: str):
        self.pc, self.line, self.text, self.kind, self.hints = op.pc, op.line, op.text, kind, hints
        self.spaces: set[str] = set()
        self.executions = self.threads = self.requests = 0
        self.sectors = self.sectors_ideal = self.bytes_requested = 0
        self.wavefronts = self.wavefronts_ideal = 0
        self.shared_bytes = 0            # bytes the bulk-copy unit moved in shared memory
        self.cache = Counts()
        self.sample = None               # one warp's access: (lanes, addresses, sizes, space)


def _ordered(w: np.ndarray, sectors: np.ndarray) -> bool:
    """Whether (warp, sector) pairs are already sorted (unit-stride accesses usually are)."""
    if len(w) < 2:
        return True
    dw = np.diff(w)
    if (dw < 0).any():
        return False
    same = dw == 0
    return bool((sectors[1:][same] >= sectors[:-1][same]).all())


class Recorder:
    def __init__(self, kernel, options=None):
        if isinstance(options, dict):
            options = ReportOptions(**options)
        if options is None:
            options = ReportOptions()
        if not isinstance(options, ReportOptions):
            raise TypeError(f"memory_report takes True, a dict or ReportOptions, not "
                            f"{type(options).__name__}")
        prog = kernel.mod.program
        cfg = options.cache
        if isinstance(cfg, str):
            if cfg not in PRESETS:
                raise ValueError(f"no cache preset {cfg!r}; presets: {', '.join(PRESETS)}")
            cfg = PRESETS[cfg]
        self.config = cfg or preset_for(prog.target)
        self.sm = options.sm or _target_sm(prog.target)
        self.kernel = kernel
        self.prog = prog
        self.memory = MemorySystem(self.config)
        self.pcs: dict[int, PcStats] = {}
        self.plans: dict[tuple, cache_policy.Plan] = {}

    # ------------------------------------------------------------------ the hook
    def record(self, b, op, kind, space, act, addr, size, hints, policy):
        tids = b.threads(act)
        if len(tids) == 0:
            return
        st = self.pcs.get(op.pc)
        if st is None:
            st = self.pcs[op.pc] = PcStats(op, kind, hints.describe())
        addr = np.asarray(addr, np.uint64)
        size = np.asarray(size, np.int64)
        if not kind.endswith((".dst", BULK_SHARED)):
            # a copy tells its read ("<name>.src") and its write ("<name>.dst"), a bulk copy
            # its shared side too ("<name>.smem"): one execution
            st.executions += coalescing.distinct_count(tids // 32)
            # distinct: a thread may tell several pieces (a tensor copy's runs, wmma rows)
            st.threads += coalescing.distinct_count(tids)
        if size.ndim and not size.all():
            # threads that move no bytes (cp.async with src-size 0): executed, nothing accessed
            moved = size > 0
            if not moved.any():
                return
            tids, addr, size = tids[moved], addr[moved], size[moved]
            policy = None if policy is None else np.asarray(policy)[moved]
        space = _SPACE.get(space, space)
        if space != "generic":
            self._account(st, b, kind, space, tids, addr, size, hints, policy)
            return
        code = b.sp.window(addr)
        layout = b.sp.layout
        for c in np.unique(code):
            sel = np.flatnonzero(code == c)
            name, base = _WINDOWS[int(c)]
            a = addr[sel] - np.uint64(getattr(layout, base)) if base else addr[sel]
            self._account(st, b, kind, name, tids[sel], a, size if size.ndim == 0 else size[sel],
                          hints, None if policy is None else policy[sel])

    def _account(self, st, b, kind, space, tids, addr, size, hints, policy):
        st.spaces.add(space)
        if kind.endswith(BULK_SHARED):
            # the bulk-copy unit, not the warp's lanes, moves these bytes: no wavefronts, no
            # requests, no cache
            st.shared_bytes += int(np.broadcast_to(size, addr.shape).sum())
            return
        warp = (tids // 32).astype(np.int64)
        lane = (tids % 32).astype(np.int64)
        if space == ".local":
            addr = self._interleave(b, tids, addr, size)
        if st.sample is None:
            first = warp == warp[0]
            st.sample = (lane[first], addr[first], np.broadcast_to(size, addr.shape)[first].copy(),
                         space)
        plan_key = (kind, space, hints)
        plan = self.plans.get(plan_key)
        if plan is None:
            plan = self.plans[plan_key] = cache_policy.plan_for(kind, space, hints)
        if plan.moves_data:
            st.requests += coalescing.requests(warp, lane, size, self.sm)
            st.bytes_requested += int(np.broadcast_to(size, addr.shape).sum())
            if space == ".shared":
                w, ideal = coalescing.wavefronts(warp, lane, addr, size)
                st.wavefronts += w
                st.wavefronts_ideal += ideal
            else:
                n, ideal, _ = coalescing.sectors(warp, addr, size)
                st.sectors += n
                st.sectors_ideal += ideal
        if plan.l1 == cache_policy.L1_NONE and plan.l2 == cache_policy.L2_NONE:
            return
        self._cache(st, b, plan, tids, warp, addr, size, policy)

    def _interleave(self, b, tids, addr, size):
        """Local memory as the hardware lays it out (model): element k of every lane of a warp
        side by side, so a warp reading one local variable reads one contiguous block."""
        s = np.uint64(max(int(np.max(size)), 1))
        gwarp = (np.uint64(self.kernel._batch_first * b.spc) + tids.astype(np.uint64)) // np.uint64(32)
        lane = tids.astype(np.uint64) % np.uint64(32)
        return (LOCAL_REGION + gwarp * np.uint64(1 << 32) + addr // s * s * np.uint64(32)
                + lane * s + addr % s)

    def _cache(self, st, b, plan, tids, warp, addr, size, policy):
        sectors, w, idx = coalescing.expand(addr, size, 32, warp, np.arange(len(addr)))
        order = np.lexsort((sectors, w)) if not _ordered(w, sectors) else None
        if order is not None:
            sectors, w, idx = sectors[order], w[order], idx[order]
        keep = np.ones(len(w), bool)
        keep[1:] = (w[1:] != w[:-1]) | (sectors[1:] != sectors[:-1])
        sectors, w, idx = sectors[keep], w[keep], idx[keep]
        lines = (sectors // np.uint64(SECTORS_PER_LINE)).astype(np.int64)
        bits = np.left_shift(1, (sectors % np.uint64(SECTORS_PER_LINE)).astype(np.int64))
        cta = (self.kernel._batch_first + b.cta_of[tids[idx]]).astype(np.int64)
        mem, counts = self.memory, st.cache
        i, n = 0, len(lines)
        lines_l, bits_l, w_l, cta_l, idx_l = lines.tolist(), bits.tolist(), w.tolist(), cta.tolist(), idx.tolist()
        while i < n:
            line, warp_id, mask, j = lines_l[i], w_l[i], bits_l[i], i + 1
            while j < n and w_l[j] == warp_id and lines_l[j] == line:
                mask |= bits_l[j]
                j += 1
            priority = plan.l2_priority
            if policy is not None:
                priority = cache_policy.policy_priority(lookup_policy(self.prog, int(policy[idx_l[i]])), line,
                                             priority)
            mem.access(plan, cta_l[i], line, mask, priority, counts)
            i = j

    def finish(self, stats):
        return Report.build(self, stats)
