"""Warp and warp-group coordination of sm_90: elect.sync and setmaxnreg.

(barrier.cluster lives with the other barriers in sem_control; mapa and getctarank with the
memory instructions.)"""
from __future__ import annotations

import numpy as np

from ..ptx.nodes import Int, PredPair, Sink
from .handlers import CompileError, handler
from .sem_warp import FULL, gated


@handler("elect.sync", "elect")
def compile_elect(op, prog):
    """elect.sync d|p, membermask: one leader among the member lanes (PTX ISA: chosen
    deterministically; this emulator, like the hardware, picks the lowest member lane); `d` is
    the leader's lane id in every member lane, `p` is true in the leader only."""
    ins = op.ins
    ops = list(ins.operands)
    if len(ops) != 2 or not isinstance(ops[0], PredPair):
        raise CompileError("elect.sync takes `d|p, membermask`")
    dnode, pnode = ops[0].first, ops[0].second
    dest = None if isinstance(dnode, Sink) else prog.dest(dnode, ".u32", ins)
    pdest = prog.dest(pnode, ".pred", ins)
    m_src = prog.source(ops[1], ".u32", ins)

    def body(b, act):
        t = b.threads(act)
        masks = m_src(b, act).astype(np.uint64) & FULL
        lane = (t & 31).astype(np.uint64)
        # the lowest set bit of the member mask: every member lane of the warp has arrived
        low = masks & (~masks + np.uint64(1))
        leader = np.log2(low.astype(np.float64)).astype(np.uint32)
        if dest is not None:
            dest(b, act, leader)
        pdest(b, act, lane == leader)
    gated(op, m_src, body)


@handler("setmaxnreg")
def compile_setmaxnreg(op, prog):
    """setmaxnreg.{inc,dec}.sync.aligned.u32 imm: a register-allocation hint with no effect on
    values here; its operand rules (PTX ISA: an immediate count in 24..256, a multiple of 8;
    .sync.aligned) are checked when the module loads."""
    ins = op.ins
    d = ins.decoded
    if d.get("action") is None or not d.has(".sync") or not d.has(".aligned"):
        raise CompileError("setmaxnreg needs .inc or .dec and .sync.aligned")
    if len(ins.operands) != 1 or not isinstance(ins.operands[0], Int):
        raise CompileError("setmaxnreg takes one immediate register count")
    n = ins.operands[0].value
    if not (24 <= n <= 256 and n % 8 == 0):
        raise CompileError(f"setmaxnreg register count {n} must be a multiple of 8 in 24..256")

    # executed by a whole warp group on the hardware; here values are unaffected, and threads
    # of one warp group may reach it in different scheduling steps, so nothing is waited for
    op.run = lambda b, act: None
