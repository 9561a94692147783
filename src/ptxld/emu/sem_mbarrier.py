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
from . import errors as E
from .async_state import M20, PHASE, Place, barrier_word, pack, park, settle_barrier, update
from .handlers import CONTROL, CompileError, handler
from .memory import Fault
from .sem_mem import AddressOperand


def barrier_places(b, aop, space, act) -> list[Place]:
    """The barrier each active thread names (8-byte aligned shared memory)."""
    addr = aop.values(b, act)
    tids = b.threads(act)
    if space == "generic":
        code = b.sp.window(addr)
        if (code != 3).any():
            pos = int(np.flatnonzero(code != 3)[0])
            raise Fault(E.GenericAddressError, pos, int(addr[pos]), "generic",
                        "an mbarrier must be in shared memory; this generic address is not in the "
                        "shared window", "a generic address of a .shared variable")
    parts = b.sp.resolve(space, addr, 8, tids, True)
    out: list = [None] * len(tids)
    for backing, idx, pos in parts:
        rows = range(len(tids)) if pos is None else pos
        for k, r in enumerate(rows):
            out[int(r)] = Place(backing, int(idx[k]), int(addr[int(r)]))
    return out


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
        for k, p in enumerate(barrier_places(b, aop, space, act)):
            c = int(n[k])
            if not 1 <= c <= M20:
                raise b.error(E.MbarrierError, op, int(t[k]),
                              f"mbarrier.init count {c} is outside 1..{M20}",
                              "an expected arrival count in 1..2^20-1", space=".shared",
                              address=p.address)
            p.write(pack(0, c, c, 0))
    op.run = run


@handler("mbarrier.inval")
def compile_inval(op, prog):
    ins = op.ins
    space = _space(ins.decoded)
    aop = _address(prog, ins, ins.operands[0], space)

    def run(b, act):
        for p in barrier_places(b, aop, space, act):
            p.write(0)
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
        tokens = np.zeros(len(t), np.uint64)
        for k, p in enumerate(barrier_places(b, aop, space, act)):
            tx = int(n[k]) if expect_tx else 0
            arrivals = 1 if (expect_tx or n is None) else int(n[k])
            if no_complete:
                _, pending, *_ = barrier_word(b, op, int(t[k]), p)
                if arrivals >= pending:
                    raise b.error(E.MbarrierError, op, int(t[k]),
                                  "mbarrier.arrive.noComplete would complete the current phase",
                                  "fewer arrivals than are pending", space=".shared",
                                  address=p.address)
            tokens[k] = update(b, op, int(t[k]), p, arrivals=arrivals, tx=tx,
                               drop=arrivals if drop else 0)
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
        n = count(b, act).astype(np.int64)
        for k, p in enumerate(barrier_places(b, aop, space, act)):
            update(b, op, int(t[k]), p, tx=sign * int(n[k]))
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

    def done(b, t, places, want):
        out = np.zeros(len(places), bool)
        for k, p in enumerate(places):
            phase = barrier_word(b, op, int(t[k]), p)[0]
            out[k] = phase != int(want[k])
        return out

    def run(b, idx, act):
        t_all = b.threads(idx)
        t = b.threads(act)
        if len(t) == 0:
            return op.pc + 1, idx
        v = arg(b, act).astype(np.uint64)
        # the phase a thread waits for: the parity written, or the one its state token saw
        want = (v & np.uint64(1)) if parity else (v >> np.uint64(63))
        places = barrier_places(b, aop, space, act)
        ok = done(b, t, places, want)
        if not ok.all():
            for key in {places[k].key for k in np.flatnonzero(~ok)}:
                settle_barrier(b, key)
            ok = done(b, t, places, want)
        if ok.any():
            ready = t[ok]
            dest(b, ready if len(ready) != b.N else None, np.ones(len(ready), bool))
        if not ok.all():
            waiting = t[~ok]
            by_key: dict = {}
            for k in np.flatnonzero(~ok):
                by_key.setdefault(places[k].key, (places[k], []))[1].append(int(t[k]))
            for place, ts in by_key.values():
                park(b, op, np.array(ts, np.intp), place, dest)
            t_all = np.setdiff1d(t_all, waiting, assume_unique=True)
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


__all__ = ["barrier_places", "PHASE"]
