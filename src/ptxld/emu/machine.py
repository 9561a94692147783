"""SIMT execution of one batch of CTAs.

Registers are NumPy arrays over every thread slot of the batch (CTAs padded to whole warps;
padding lanes start exited). Threads at the same program counter form a group and execute an
instruction together; the scheduler runs the group with the smallest program counter
(min-PC scheduling), so diverged threads reconverge where their paths meet, and per-warp active
masks are the warp's lanes in the running group. A group that keeps branching back while others
wait yields to them every few iterations, so spin locks and flags set by other threads (of its
warp, of other CTAs) make progress (docs/scheduling.md). Barriers and warp-synchronous instructions park
threads until their partners arrive."""
from __future__ import annotations

import time

import numpy as np

from . import errors
from . import ptxtypes
from .allocator import keep_heap
from .memory import Fault
from .handlers import SIMPLE, resolve_stall
from .threadset import merge

EMPTY = np.empty(0, np.intp)


# the deepest call chain a thread may build (`max_call_depth` of a launch)
DEFAULT_MAX_CALL_DEPTH = 1024


class Batch:
    max_call_depth = DEFAULT_MAX_CALL_DEPTH
    def __init__(self, launch, prog, spaces, *, cta_coords, n_slots_per_cta, block, grid,
                 cluster, dyn_smem, live_per_cta, tid_xyz, max_steps, progress=None):
        keep_heap()
        self.launch = launch
        self.prog = prog
        self.sp = spaces
        self.N = N = len(tid_xyz[0])
        self.regs = [None] * len(prog.slot_width)
        self.slot_width = prog.slot_width
        self.slot_type = prog.slot_type
        self.pv = [None] * len(prog.pvar_size)
        self.pv_init = [None] * len(prog.pvar_size)
        self.cta_coords = cta_coords                    # (n_ctas, 3) grid coordinates
        self.spc = n_slots_per_cta
        self.block, self.grid, self.cluster = block, grid, cluster
        self.dyn_smem = dyn_smem
        self.tid = tid_xyz                              # 3 arrays uint32 (N)
        self.cta_of = spaces.cta_of
        self.exited = np.ones(N, bool)
        self.live_per_cta = live_per_cta.copy()         # non-exited threads per CTA
        self.depth = np.zeros(N, np.int32)
        self.stack: list[np.ndarray] = []              # per call depth: record id per thread
        self.records: dict[int, object] = {}
        self.next_record = 1
        self.groups: dict[int, np.ndarray | None] = {}
        self.warp_wait: dict[int, np.ndarray] = {}      # pc -> threads parked at a *.sync op
        self.bar_wait: dict[int, list] = {}             # barrier id -> [(pc, idx)]
        self.bar_count: dict[int, np.ndarray] = {}      # barrier id -> arrivals per CTA
        self.bar_expect: dict[int, np.ndarray] = {}
        self.bar_red: dict[int, dict] = {}
        self.steps = 0
        self.thread_instructions = 0
        self.max_steps = max_steps
        self.progress = progress
        self.clock0 = time.perf_counter_ns()
        self.trace = getattr(launch, "trace", None)      # memory-access recorder (emu/trace.py)

    # ------------------------------------------------------------------ registers
    def count(self, idx) -> int:
        return self.N if idx is None else len(idx)

    def rd(self, s, idx):
        r = self.regs[s]
        if r is None:
            r = self.regs[s] = ptxtypes.zeros(self.slot_width[s], self.N)
        return r if idx is None else r[idx]

    def wr(self, s, idx, val):
        if idx is None:
            if not isinstance(val, np.ndarray) or val.shape[:1] != (self.N,):
                val = np.broadcast_to(val, (self.N,) + np.shape(val)[1:]).copy()
            elif val.base is not None or not val.flags.writeable:   # a view, or a shared immediate
                val = val.copy()
            w = self.slot_width[s]
            if w == 1 and val.dtype != np.bool_:
                val = val != 0
            self.regs[s] = val
        else:
            r = self.regs[s]
            if r is None:
                r = self.regs[s] = ptxtypes.zeros(self.slot_width[s], self.N)
            r[idx] = val

    def threads(self, idx) -> np.ndarray:
        """Thread indices of a thread set; every thread's is one shared read-only array."""
        return self.sp.all_threads if idx is None else idx

    # per-thread .param variables (device-function parameters, call arguments, return values)
    def param_store(self, p):
        if self.pv[p] is None:
            size = self.prog.pvar_size[p]
            self.pv[p] = np.zeros((self.N, size), np.uint8)
            self.pv_init[p] = np.zeros((self.N, size), bool)
        return self.pv[p], self.pv_init[p]

    # ------------------------------------------------------------------ fault context
    def coords(self, t: int):
        t = int(t)
        thread = tuple(int(a[t]) for a in self.tid)
        cta = tuple(int(v) for v in self.cta_coords[self.cta_of[t]])
        return thread, cta

    def fault(self, op, act, f: Fault):
        threads = self.threads(act)
        t = threads[min(f.pos, len(threads) - 1)] if len(threads) else 0
        thread, cta = self.coords(t)
        return f.cls(f.message, filename=self.prog.filename, line=op.line, instruction=op.text,
                     thread=thread, cta=cta, space=f.space, address=f.address,
                     expected=f.expected, others=max(0, f.count - 1))

    def error(self, cls, op, t, message, expected="", space=None, address=None, others=0):
        thread, cta = self.coords(t)
        return cls(message, filename=self.prog.filename, line=op.line if op else None,
                   instruction=op.text if op else None, thread=thread, cta=cta, space=space,
                   address=address, expected=expected, others=others)

    # ------------------------------------------------------------------ scheduling
    def schedule(self, pc, idx):
        if idx is not None:
            if len(idx) == 0:
                return
            if len(idx) == self.N:
                idx = None
        other = self.groups.get(pc)
        self.groups[pc] = idx if other is None else merge(other, idx, self.N)

    def run(self):
        groups, code, N = self.groups, self.prog.code, self.N
        max_steps = self.max_steps
        while True:
            if not groups:
                if self._release_stalled():
                    continue
                break
            pc = self._next_pc()
            idx = groups.pop(pc)
            while True:
                op = code[pc]
                self.steps += 1
                n = N if idx is None else len(idx)
                self.thread_instructions += n
                if self.steps > max_steps:
                    self._step_budget(op, idx)
                if self.progress is not None and (self.steps & 1023) == 0:
                    self.progress(self)
                act = idx
                if op.guard is not None:
                    p = self.rd(op.guard, idx)
                    if op.gneg:
                        p = ~p
                    if not p.all():
                        act = np.flatnonzero(p) if idx is None else idx[p]
                if op.kind == SIMPLE:
                    if act is None or len(act):
                        try:
                            op.run(self, act)
                        except Fault as f:
                            raise self.fault(op, act, f) from None
                    pc += 1
                    other = groups.pop(pc, None)
                    if other is not None:
                        idx = merge(idx, other, N)
                    continue
                try:
                    nxt = op.run(self, idx, act)
                except Fault as f:
                    raise self.fault(op, act, f) from None
                if nxt is None:
                    break
                back = nxt[0] <= pc
                if back:
                    self.loop = (nxt[0], pc)        # the latest loop, for a livelock report
                pc, idx = nxt
                if idx is not None and len(idx) == 0:
                    break
                other = groups.pop(pc, None)
                if other is not None:
                    idx = merge(idx, other, N)
                if groups and (min(groups) < pc or (back and self._yield_loop(op, pc))):
                    groups[pc] = idx
                    break

    # ---- fairness: a loop that keeps branching back while other threads wait at later
    # instructions hands them the CTA's turn every FAIR_SLICE iterations (see docs/scheduling.md)
    FAIR_SLICE = 8

    def _next_pc(self) -> int:
        """The smallest waiting PC, or after a yield the smallest one past the yielding loop's."""
        after, self.resume_after = getattr(self, "resume_after", None), None
        if after is not None:
            later = [p for p in self.groups if p > after]
            if later:
                return min(later)
        return min(self.groups)

    def _yield_loop(self, op, head: int) -> bool:
        """Called on a backward branch to `head` while other groups wait: yield every
        FAIR_SLICE-th time."""
        self.back_jumps = getattr(self, "back_jumps", 0) + 1
        if self.back_jumps < self.FAIR_SLICE:
            return False
        self.back_jumps = 0
        self.resume_after = head
        return True

    def _step_budget(self, op, idx):
        t = self.threads(idx)[0]
        spin = getattr(self, "loop", None)
        where = ""
        if spin is not None:
            code = self.prog.code
            head, tail = code[spin[0]], code[spin[1]]
            where = (f"; threads keep looping between line {head.line} (`{head.text}`) and line "
                     f"{tail.line} while the others cannot release them (a livelock: a lock or "
                     f"flag nobody sets?)")
        raise self.error(errors.StepBudgetError, op, t,
                         f"step budget exhausted: {self.max_steps} instruction steps executed "
                         f"(an endless loop?){where}",
                         expected="the kernel to finish within max_steps (raise it with "
                                  "kernel(..., max_steps=N) or --max-steps)")

    # ------------------------------------------------------------------ barriers
    def _release_stalled(self) -> bool:
        """Nothing runnable: complete barriers whose missing threads have exited, else report
        the deadlock."""
        return resolve_stall(self)
