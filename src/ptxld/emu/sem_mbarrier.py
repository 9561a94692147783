"""mbarrier (PTX ISA 9.7.13.15): init, inval, arrive, arrive_drop (with .expect_tx and
.noComplete), expect_tx, complete_tx, test_wait, try_wait (with .parity), pending_count.

A phase completes when its pending arrival count and its transaction count both reach zero; the
phase parity flips, pending arrivals reload from the expected count. `state` tokens are the
barrier word before the arrive (async_state's encoding). The waits park their threads until the
phase they wait for completes (a thread that polls test_wait in a loop sees the same result a
little later); asynchronous operations signalling the barrier complete when a wait needs them.
Scopes and memory orders (.release/.acquire/.relaxed, .cta/.cluster) do not change values in a
sequentially consistent emulator and are accepted.
"""
from __future__ import annotations

import numpy as np

from ..ptx.nodes import Address, Sink
from . import errors
from .async_state import (M20, Bars, apply, check_initialised, pack, park,
                          settle_barrier)
from .handlers import CONTROL, CompileError, handler
from .memory import Fault
from .sem_mem import AddressOperand


def barrier_refs(b, aop, space, act) -> Bars:
    """The barrier each active thread names (8-byte aligned shared memory)."""
    addr = aop.values(b, act)
    tids = b.threads(act)
    if space == "generic":
        code = b.sp.window(addr)
        if (code != 3).any():
            pos = int(np.flatnonzero(code != 3)[0])
            raise Fault(errors.GenericAddressError, pos, int(addr[pos]), "generic",
                        "an mbarrier must be in shared memory; this generic address is not in the "
                        "shared window", "a generic address of a .shared variable")
    parts = b.sp.resolve(space, addr, 8, tids, True)
    backing = parts[0][0]
    if len(parts) == 1 and parts[0][2] is None:
        return Bars(backing, parts[0][1], addr)
    idx = np.empty(len(tids), np.intp)
    for bk, i, pos in parts:
        if bk is not backing:
            raise Fault(errors.GenericAddressError, 0, int(addr[0]), space,
                        "mbarrier addresses of one instruction in different memories",
                        "shared-memory mbarriers")
        idx[slice(None) if pos is None else pos] = i
    return Bars(backing, idx, addr)


def _space(d) -> str:
    sp = d.get("space")
    return ".shared" if sp in (".shared", ".shared::cta") else (sp or "generic")


def _address(prog, ins, node, space):
    if not isinstance(node, Address):
        raise CompileError(f"`{ins.opcode}` needs an address operand [addr]")
    return AddressOperand(prog, node, space, ins)


@handler("mbarrier.init")
def compile_init(op, prog):
    ins = op.ins
    space = _space(ins.decoded)
    if len(ins.operands) != 2:
        raise CompileError("mbarrier.init takes [addr], count")
    aop = _address(prog, ins, ins.operands[0], space)
    count = prog.source(ins.operands[1], ".u32", ins)

    def run(b, act):
        n = count(b, act).astype(np.int64)
        t = b.threads(act)
        bars = barrier_refs(b, aop, space, act)
        bad = (n < 1) | (n > M20)
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            raise b.error(errors.MbarrierError, op, int(t[k]),
                          f"mbarrier.init count {int(n[k])} is outside 1..{M20}",
                          "an expected arrival count in 1..2^20-1", space=".shared",
                          address=int(bars.addr[k]))
        words = np.array([pack(0, int(c), int(c), 0) for c in n], np.uint64) if len(np.unique(n)) > 1 \
            else np.full(len(n), pack(0, int(n[0]), int(n[0]), 0), np.uint64)
        bars.backing.view(np.uint64)[bars.idx >> 3] = words
    op.run = run


@handler("mbarrier.inval")
def compile_inval(op, prog):
    ins = op.ins
    space = _space(ins.decoded)
    aop = _address(prog, ins, ins.operands[0], space)

    def run(b, act):
        bars = barrier_refs(b, aop, space, act)
        bars.backing.view(np.uint64)[bars.idx >> 3] = 0
    op.run = run


def _arrive_like(op, prog, *, drop: bool):
    ins = op.ins
    d = ins.decoded
    space = _space(d)
    ops = list(ins.operands)
    expect_tx = d.get("expect_tx") is not None
    if len(ops) not in (2, 3) or not isinstance(ops[1], Address):
        raise CompileError(f"`{ins.opcode}` takes state, [addr]{{, count}}")
    dest = None if isinstance(ops[0], Sink) else prog.dest(ops[0], ".b64", ins)
    aop = _address(prog, ins, ops[1], space)
    extra = prog.source(ops[2], ".u32", ins) if len(ops) == 3 else None
    no_complete = d.get("no_complete") is not None

    def run(b, act):
        t = b.threads(act)
        n = extra(b, act).astype(np.int64) if extra is not None else None
        bars = barrier_refs(b, aop, space, act)
        tx = n if expect_tx else 0
        arrivals = 1 if (expect_tx or n is None) else n
        if no_complete:
            words = check_initialised(b, op, t, bars)
            pending = (words & np.uint64(M20)).astype(np.int64)
            bad = np.broadcast_to(arrivals, pending.shape) >= pending
            if bad.any():
                k = int(np.flatnonzero(bad)[0])
                raise b.error(errors.MbarrierError, op, int(t[k]),
                              "mbarrier.arrive.noComplete would complete the current phase",
                              "fewer arrivals than are pending", space=".shared",
                              address=int(bars.addr[k]))
        tokens = apply(b, op, t, bars, arrivals, tx, drop=drop)
        if dest is not None:
            dest(b, act, tokens)
    op.run = run


@handler("mbarrier.arrive")
def compile_arrive(op, prog):
    _arrive_like(op, prog, drop=False)


@handler("mbarrier.arrive_drop")
def compile_arrive_drop(op, prog):
    _arrive_like(op, prog, drop=True)


def _tx_op(op, prog, sign: int):
    ins = op.ins
    space = _space(ins.decoded)
    if len(ins.operands) != 2:
        raise CompileError(f"`{ins.opcode}` takes [addr], txCount")
    aop = _address(prog, ins, ins.operands[0], space)
    count = prog.source(ins.operands[1], ".u32", ins)

    def run(b, act):
        t = b.threads(act)
        apply(b, op, t, barrier_refs(b, aop, space, act), 0, sign * count(b, act).astype(np.int64))
    op.run = run


@handler("mbarrier.expect_tx")
def compile_expect_tx(op, prog):
    _tx_op(op, prog, +1)


@handler("mbarrier.complete_tx")
def compile_complete_tx(op, prog):
    _tx_op(op, prog, -1)


def _compile_wait(op, prog):
    ins = op.ins
    d = ins.decoded
    space = _space(d)
    ops = list(ins.operands)
    if len(ops) not in (3, 4) or not isinstance(ops[1], Address):
        raise CompileError(f"`{ins.opcode}` takes waitComplete, [addr], state|phaseParity"
                           f"{{, suspendTimeHint}}")
    dest = prog.dest(ops[0], ".pred", ins)
    aop = _address(prog, ins, ops[1], space)
    parity = d.get("parity") is not None
    arg = prog.source(ops[2], ".u32" if parity else ".b64", ins)

    def done(b, t, bars, want):
        words = check_initialised(b, op, t, bars)
        return (words >> np.uint64(63)) != want

    def run(b, idx, act):
        t_all = b.threads(idx)
        t = b.threads(act)
        if len(t) == 0:
            return op.pc + 1, idx
        v = arg(b, act).astype(np.uint64)
        # the phase a thread waits for: the parity written, or the one its state token saw
        want = (v & np.uint64(1)) if parity else (v >> np.uint64(63))
        bars = barrier_refs(b, aop, space, act)
        ok = done(b, t, bars, want)
        if not ok.all():
            key0 = id(bars.backing)
            for i in np.unique(bars.idx[~ok]):
                settle_barrier(b, (key0, int(i)))
            ok = done(b, t, bars, want)
        if ok.any():
            ready = t[ok]
            dest(b, ready if len(ready) != b.N else None, np.ones(len(ready), bool))
        if not ok.all():
            waiting = np.flatnonzero(~ok)
            for i in np.unique(bars.idx[waiting]):
                rows = waiting[bars.idx[waiting] == i]
                park(b, op, t[rows], bars.place(int(rows[0])), dest)
            t_all = np.setdiff1d(t_all, t[waiting], assume_unique=True)
        if len(t_all) == 0:
            return None
        return op.pc + 1, (t_all if len(t_all) != b.N else None)
    op.kind, op.run = CONTROL, run


@handler("mbarrier.test_wait")
def compile_test_wait(op, prog):
    _compile_wait(op, prog)


@handler("mbarrier.try_wait")
def compile_try_wait(op, prog):
    _compile_wait(op, prog)


@handler("mbarrier.pending_count")
def compile_pending_count(op, prog):
    ins = op.ins
    if len(ins.operands) != 2:
        raise CompileError("mbarrier.pending_count takes count, state")
    dest = prog.dest(ins.operands[0], ".u32", ins)
    state = prog.source(ins.operands[1], ".b64", ins)

    def run(b, act):
        dest(b, act, (state(b, act).astype(np.uint64) & np.uint64(M20)).astype(np.uint32))
    op.run = run

