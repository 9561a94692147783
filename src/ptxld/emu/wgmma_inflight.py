"""The wgmma.mma_async operations in flight, per thread, and the watch on their registers.

The ISA leaves undefined any access to the accumulator registers, or to the A-fragment
registers, of a `wgmma.mma_async` before the `wgmma.wait_group` that covers it. `InFlight`
remembers, per thread of a batch, how many operations it issued, the issue count at each
commit, and for every watched register the issue that last used it; `wgmma.wait_group`
retires them (sem_wgmma). Every other instruction of a function that names one of those
registers is wrapped, once the function is compiled, with a check that no operation is in flight
on it for the threads that run it.
"""
from __future__ import annotations

import numpy as np

from ..ptx.nodes import Name
from . import errors
from .handlers import CompileError, after_function_compiled
from .liveness import operand_names


RING = 64     # commit points remembered per thread: wgmma.wait_group N needs N < 64


class InFlight:
    """Operations in flight, per thread of a batch: how many mma_async each thread issued, the
    issue count at its last commits (a ring), and for every watched register slot the issue that
    last wrote it (0: none in flight) and the bits it left there."""

    def __init__(self, n: int):
        self.issued = np.zeros(n, np.int64)
        self.ring = np.zeros((n, RING), np.int64)
        self.ncommit = np.zeros(n, np.int64)
        self.watch: dict[int, list] = {}        # slot -> [issue (n,), bits (n,), op, name]

    def note(self, slot: int, t, bits, op, name: str) -> None:
        w = self.watch.get(slot)
        if w is None:
            w = self.watch[slot] = [np.zeros(len(self.issued), np.int64),
                                    np.zeros(len(self.issued), bits.dtype), op, name]
        w[0][t] = self.issued[t]
        w[1][t] = bits
        w[2], w[3] = op, name


def inflight(b) -> InFlight:
    st = b.__dict__.get("wgmma_inflight")
    if st is None:
        st = b.__dict__["wgmma_inflight"] = InFlight(b.N)
    return st


# ---- accesses to the registers of an operation in flight ----------------------------------------

def _register_slots(prog, op) -> set[int]:
    """The register slots an instruction names anywhere (operands and guard)."""
    ins = op.ins
    nodes = list(ins.operands) + ([ins.guard.name] if ins.guard is not None else [])
    out = set()
    for node in nodes:
        for name in operand_names(node):
            if not isinstance(name, Name):
                continue
            try:
                out.update(s for s, _ in prog.vector_regs(name, ins))
            except CompileError:            # a label, a variable, a parameter: no register
                pass
    return out


@after_function_compiled
def _watch_operand_registers(prog, fn) -> None:
    """Every instruction of a function with wgmma.mma_async that names one of its D or A
    registers (other than the wgmma instructions themselves: chained operations on the same
    accumulators are the ISA's intended use) checks, before it runs, that no operation is in
    flight on them for its threads. Only those instructions pay for the check."""
    code = prog.code[fn.entry_pc:fn.end_pc]
    watched = set()
    for op in code:
        watched |= op.info.get("wgmma_registers", frozenset())
    if not watched:
        return
    for op in code:
        if op.ins is None or op.ins.decoded.mnemonic == "wgmma":
            continue
        slots = _register_slots(prog, op) & watched
        if slots:
            op.run = _guarded(op, tuple(sorted(slots)), op.run)


def _guarded(op, slots: tuple, run):
    def guarded(b, *rest):              # SIMPLE ops get (act), CONTROL ops (idx, act)
        st = b.__dict__.get("wgmma_inflight")
        if st is not None:
            t = b.threads(rest[-1])
            for slot in slots:
                w = st.watch.get(slot)
                if w is not None:
                    live = w[0][t] > 0
                    if live.any():
                        _access_error(b, op, t[live], w)
        return run(b, *rest)
    return guarded


def _access_error(b, op, threads, watch) -> None:
    _, _, issuer, name = watch
    raise b.error(errors.AsyncRegisterError, op, int(threads[0]),
                  f"register `{name}` is an operand of the wgmma.mma_async at line {issuer.line}, "
                  "still in flight: accessed before the `wgmma.wait_group` that waits for it",
                  "no access to an operand register of a wgmma.mma_async until a "
                  "wgmma.wait_group covers it (the PTX ISA leaves the result undefined)",
                  others=len(threads) - 1)
