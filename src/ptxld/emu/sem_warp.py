"""Warp-level instructions: shfl.sync, vote.sync, match.sync, redux.sync, activemask,
bar.warp.sync and wmma.load/store/mma (through `ptxld.wmma`).

A `*.sync` instruction waits until every lane named in its member mask has reached it (lanes
that arrive early are parked), as on sm_70+ with independent thread scheduling; a member lane
that has exited takes no part (PTX ISA: exited threads do not participate)."""
from __future__ import annotations

import numpy as np

from .. import wmma
from ..wmma import batched as wmma_batched
from ..ptx.nodes import Address, Expr, PredPair, Vector
from . import errors
from . import ptxtypes
from .memory import Fault
from .trace import NO_HINTS
from .handlers import CONTROL, CompileError, handler, stall_resolver
from .sem_mem import AddressOperand
from .threadset import merge

FULL = np.uint64(0xFFFFFFFF)


def _warp_info(t):
    """Sorted threads -> (warp per thread, unique warps, start index per warp, lane bits)."""
    warp = t >> 5
    uw, starts = np.unique(warp, return_index=True)
    bits = np.left_shift(np.uint64(1), (t & 31).astype(np.uint64))
    return warp, uw, starts, bits


_LANE_BITS = np.left_shift(np.uint64(1), np.arange(32, dtype=np.uint64))


def _exited_lanes(b, warps) -> np.ndarray:
    """Per warp (indices into the batch), the mask of its lanes that have exited."""
    lanes = warps[:, None] * 32 + np.arange(32)
    return np.bitwise_or.reduce(np.where(b.exited[lanes], _LANE_BITS, np.uint64(0)), axis=1)


def gated(op, mask_src, body):
    """Wrap a warp-synchronous body(b, ready_threads) into a CONTROL run function."""
    pc = op.pc

    def run(b, idx, act):
        parked = b.warp_wait.pop(pc, None)
        if parked is not None:
            idx = merge(parked, b.threads(idx), b.N) if idx is not None else idx
            act = idx
            if op.guard is not None:
                p = b.rd(op.guard, idx)
                if op.gneg:
                    p = ~p
                act = b.threads(idx)[p]
        t_all = b.threads(idx)
        part = b.threads(act)
        if len(part) == 0:
            return pc + 1, idx
        masks = mask_src(b, part if len(part) != b.N else None).astype(np.uint64) & FULL
        warp, uw, starts, bits = _warp_info(part)
        if not (masks & bits).all():
            pos = int(np.flatnonzero((masks & bits) == 0)[0])
            raise Fault(errors.WarpSyncError, pos, None, None,
                        f"lane {int(part[pos] & 31)} executes `{op.ins.mnemonic}` with a member "
                        f"mask {int(masks[pos]):#010x} that does not include itself",
                        "a member mask that includes the executing lane")
        present = np.bitwise_or.reduceat(bits, starts)
        # lanes of the member mask that have exited take no part (they can never arrive)
        required = np.bitwise_or.reduceat(masks, starts) & ~_exited_lanes(b, uw)
        missing = required & ~present
        ready_w = missing == 0
        if not ready_w.all():
            wait_sel = ~ready_w[np.searchsorted(uw, warp)]
            waiting = part[wait_sel]
            b.warp_wait[pc] = waiting if pc not in b.warp_wait else merge(b.warp_wait[pc], waiting, b.N)
            part = part[~wait_sel]
            t_all = np.setdiff1d(t_all, waiting, assume_unique=True)
        if len(part):
            body(b, part if len(part) != b.N else None)
        if len(t_all) == 0:
            return None
        return pc + 1, (t_all if len(t_all) != b.N else None)
    op.kind, op.run = CONTROL, run


@stall_resolver(order=1)
def _warps_on_stall(b) -> bool:
    """Nothing can run: lanes parked at a warp-synchronous instruction are retried once after
    more threads have exited (the lanes they waited for may be among them), else deadlock."""
    if not b.warp_wait:
        return False
    exited = int(b.exited.sum())
    if getattr(b, "warp_retry_exited", None) == exited:
        raise warp_deadlock(b)
    b.warp_retry_exited = exited
    parked, b.warp_wait = b.warp_wait, {}
    for pc, t in parked.items():
        b.schedule(pc, t)
    return True


def warp_deadlock(b):
    pc, t = next(iter(b.warp_wait.items()))
    op = b.prog.code[pc]
    return b.error(errors.WarpSyncError, op, t[0],
                   f"`{op.ins.mnemonic}` can never complete: member lanes of the warp are blocked "
                   f"elsewhere (at a barrier or another warp-synchronous instruction)",
                   "every lane of the member mask to reach this instruction", others=len(t) - 1)


def _ops_with_pred_pair(ops):
    d = ops[0]
    if isinstance(d, PredPair):
        return d.first, d.second, ops[1:]
    return d, None, ops[1:]


@handler("shfl")
def compile_shfl(op, prog):
    ins = op.ins
    d = ins.decoded
    mode = d.pick(".up", ".down", ".bfly", ".idx")
    mode = mode and mode[1:]
    if mode is None or not d.has(".sync"):
        raise CompileError("only shfl.sync.{up,down,bfly,idx}.b32 is supported")
    dnode, pnode, rest = _ops_with_pred_pair(list(ins.operands))
    if len(rest) != 4:
        raise CompileError("shfl.sync takes a, b, c and a member mask")
    a_src = prog.source(rest[0], ".b32", ins)
    b_src = prog.source(rest[1], ".u32", ins)
    c_src = prog.source(rest[2], ".u32", ins)
    m_src = prog.source(rest[3], ".u32", ins)
    dest = prog.dest(dnode, ".b32", ins)
    pdest = prog.dest(pnode, ".pred", ins) if pnode is not None else None

    def body(b, act):
        t = b.threads(act)
        lane = (t & 31).astype(np.int64)
        bval = (b_src(b, act) & 0x1F).astype(np.int64)
        c = c_src(b, act).astype(np.int64)
        clamp, seg = c & 0x1F, (c >> 8) & 0x1F
        max_lane = (lane & seg) | (clamp & ~seg)
        min_lane = lane & seg
        if mode == "up":
            j = lane - bval
            ok = j >= max_lane
        elif mode == "down":
            j = lane + bval
            ok = j <= max_lane
        elif mode == "bfly":
            j = lane ^ bval
            ok = j <= max_lane
        else:
            j = min_lane | (bval & ~seg)
            ok = j <= max_lane
        j = np.where(ok, j, lane)
        src = (t & ~31) + j
        dest(b, act, a_src(b, src))
        if pdest is not None:
            pdest(b, act, ok)
    gated(op, m_src, body)


@handler("vote")
def compile_vote(op, prog):
    ins = op.ins
    d = ins.decoded
    mode = d.pick(".all", ".any", ".uni", ".ballot")
    mode = mode and mode[1:]
    if mode is None:
        raise CompileError("vote needs .all/.any/.uni/.ballot")
    ops = list(ins.operands)
    dnode, pnode = ops[0], ops[1]
    neg = isinstance(pnode, Expr) and pnode.op == "!"
    p_src = prog.source(pnode.args[0] if neg else pnode, ".pred", ins)
    sync = d.has(".sync")
    m_src = prog.source(ops[2], ".u32", ins) if sync and len(ops) > 2 else \
        (lambda b, idx: np.full(b.count(idx), 0xFFFFFFFF, np.uint32))
    dest = prog.dest(dnode, ".b32" if mode == "ballot" else ".pred", ins)

    def body(b, act):
        t = b.threads(act)
        p = p_src(b, act)
        if neg:
            p = ~p
        warp, uw, starts, bits = _warp_info(t)
        m = m_src(b, act).astype(np.uint64) & FULL
        w = np.searchsorted(uw, warp)
        present = np.bitwise_or.reduceat(bits, starts)[w] & m
        ballot = np.bitwise_or.reduceat(np.where(p, bits, np.uint64(0)), starts)[w] & m
        if mode == "ballot":
            dest(b, act, ballot.astype(np.uint32))
        elif mode == "all":
            dest(b, act, ballot == present)
        elif mode == "any":
            dest(b, act, ballot != 0)
        else:
            dest(b, act, (ballot == present) | (ballot == 0))
    if sync:
        gated(op, m_src, body)
    else:
        op.run = body


@handler("activemask")
def compile_activemask(op, prog):
    dest = prog.dest(op.ins.operands[0], ".b32", op.ins)

    def run(b, act):
        t = b.threads(act)
        warp, uw, starts, bits = _warp_info(t)
        present = np.bitwise_or.reduceat(bits, starts)
        dest(b, act, present[np.searchsorted(uw, warp)].astype(np.uint32))
    op.run = run


@handler("match")
def compile_match(op, prog):
    ins = op.ins
    d = ins.decoded
    mode = "all" if d.has(".all") else "any"
    t = ".b64" if d.get("type") == ".b64" else ".b32"
    dnode, pnode, rest = _ops_with_pred_pair(list(ins.operands))
    a_src = prog.source(rest[0], t, ins)
    m_src = prog.source(rest[1], ".u32", ins)
    dest = prog.dest(dnode, ".b32", ins)
    pdest = prog.dest(pnode, ".pred", ins) if pnode is not None else None

    def body(b, act):
        th = b.threads(act)
        a = a_src(b, act)
        m = m_src(b, act).astype(np.uint64) & FULL
        out = np.zeros(len(th), np.uint64)
        pred = np.zeros(len(th), bool)
        warp = th >> 5
        for w in np.unique(warp):
            sel = np.flatnonzero(warp == w)
            lanes = (th[sel] & 31).astype(np.uint64)
            for k in sel:
                members = sel[((m[k] >> lanes) & np.uint64(1)) == 1]
                same = members[a[members] == a[k]]
                mask = np.bitwise_or.reduce(np.left_shift(np.uint64(1), (th[same] & 31).astype(np.uint64)))
                allm = np.bitwise_or.reduce(np.left_shift(np.uint64(1), (th[members] & 31).astype(np.uint64)))
                if mode == "any":
                    out[k] = mask
                else:
                    pred[k] = mask == allm
                    out[k] = allm if pred[k] else 0
        dest(b, act, out.astype(np.uint32))
        if pdest is not None:
            pdest(b, act, pred)
    gated(op, m_src, body)


@handler("redux")
def compile_redux(op, prog):
    ins = op.ins
    d = ins.decoded
    rop = d.pick(".add", ".min", ".max", ".and", ".or", ".xor")
    rop = rop and rop[1:]
    t = d.pick(".u32", ".s32", ".b32")
    if rop is None or t is None:
        raise CompileError("only integer redux.sync is supported")
    d, a, m = ins.operands
    a_src = prog.source(a, t, ins)
    m_src = prog.source(m, ".u32", ins)
    dest = prog.dest(d, t, ins)
    signed = t == ".s32"

    def body(b, act):
        th = b.threads(act)
        a = a_src(b, act)
        v = a.view(np.int32).astype(np.int64) if signed else a.astype(np.int64)
        warp = th >> 5
        out = np.empty(len(th), np.int64)
        for w in np.unique(warp):
            sel = warp == w
            x = v[sel]
            r = {"add": x.sum(), "min": x.min(), "max": x.max(),
                 "and": np.bitwise_and.reduce(x), "or": np.bitwise_or.reduce(x),
                 "xor": np.bitwise_xor.reduce(x)}[rop]
            out[sel] = r
        dest(b, act, (out & 0xFFFFFFFF).astype(np.uint32))
    gated(op, m_src, body)


def compile_bar_warp(op, prog):
    m_src = prog.source(op.ins.operands[0], ".u32", op.ins)
    gated(op, m_src, lambda b, act: None)


# ---------------------------------------------------------------------------- wmma

def _regs(prog, node, ins):
    if not isinstance(node, Vector):
        raise CompileError("wmma fragments are brace lists of registers")
    out = []
    for x in node.items:
        s, t = prog.reg(x, ins)
        out.append((s, ptxtypes.WIDTH[t]))
    return out


def _full32(b, act):
    return np.full(b.count(act), 0xFFFFFFFF, np.uint32)


@handler("wmma")
def compile_wmma(op, prog):
    ins = op.ins
    try:
        params = wmma.parse(ins.opcode)
    except wmma.WmmaError as e:
        raise CompileError(str(e))
    ops = list(ins.operands)
    target = prog.target
    kind = ins.decoded.name.split(".")[1]
    if kind in ("load", "store"):
        space = getattr(params, "space", None)
        space = "." + space if space else "generic"
        if kind == "load":
            frag, addr, rest = ops[0], ops[1], ops[2:]
        else:
            addr, frag, rest = ops[0], ops[1], ops[2:]
        if not isinstance(addr, Address):
            raise CompileError("wmma needs an address operand `[p]`")
        aop = AddressOperand(prog, addr, space, ins)
        regs = _regs(prog, frag, ins)
        stride_src = prog.source(rest[0], ".u32", ins) if rest else None

        def body(b, act):
            t = b.threads(act)
            addrs = aop.values(b, act)
            strides = stride_src(b, act) if stride_src else None
            # the batched path moves every warp at once: only when no memory report records them
            if len(t) > 32 and b.trace is None and _wmma_mem_batched(b, act, t, kind, params, space, addrs, strides,
                                                  regs, target):
                return
            for w0 in range(0, len(t), 32):
                lanes = t[w0:w0 + 32]
                try:
                    p, stride = wmma.check_uniform(addrs[w0:w0 + 32],
                                                None if strides is None else strides[w0:w0 + 32])
                except wmma.WmmaError as e:
                    raise Fault(errors.WmmaFault, w0, int(addrs[w0]), space, str(e),
                                "the same address and stride in all 32 lanes")
                lane0 = np.array([lanes[0]])
                tr = b.trace
                try:
                    if kind == "load":
                        read = _reader(b, space, lane0, w0)
                        if tr is not None:
                            read = _traced(read, tr, b, op, "wmma.load", space, lanes)
                        vals = wmma.load(params, read, p, stride, target)
                        for k, (s, width) in enumerate(regs):
                            col = vals[:, k].astype(ptxtypes.UINT[width])
                            b.wr(s, lanes, col)
                    else:
                        data = np.stack([b.rd(s, lanes).astype(np.uint64) for s, _ in regs], axis=1)
                        data = data.astype(np.uint64 if regs[0][1] == 64 else np.uint32)
                        write = _writer(b, space, lane0, w0)
                        if tr is not None:
                            write = _traced(write, tr, b, op, "wmma.store", space, lanes)
                        wmma.store(params, write, p, stride, data, target)
                except wmma.WmmaError as e:
                    raise Fault(errors.WmmaFault, w0, p, space, str(e), "a legal wmma access")
        gated(op, _full32, body)
        return
    if kind == "mma":
        d, a, bb, c = (_regs(prog, x, ins) for x in ops[:4])

        def body(b, act):
            t = b.threads(act)
            if len(t) > 32:
                # every warp at once; None leaves errors to the per-warp path below
                frags = [np.stack([b.rd(s, act) for s, _ in r], axis=1).reshape(-1, 32, len(r))
                         for r in (a, bb, c)]
                out = wmma_batched.mma(params, *frags, target=target)
                if out is not None:
                    for k, (s, width) in enumerate(d):
                        b.wr(s, act, out[:, :, k].reshape(-1).astype(ptxtypes.UINT[width]))
                    return
            for w0 in range(0, len(t), 32):
                lanes = t[w0:w0 + 32]
                frag = [np.stack([b.rd(s, lanes) for s, _ in r], axis=1) for r in (a, bb, c)]
                try:
                    out = wmma.mma(params, *frag, target=target)
                except wmma.WmmaError as e:
                    raise Fault(errors.WmmaFault, w0, None, None, str(e), "consistent fragments")
                for k, (s, width) in enumerate(d):
                    b.wr(s, lanes, out[:, k].astype(ptxtypes.UINT[width]))
        gated(op, _full32, body)
        return
    raise CompileError(f"wmma.{kind} is not supported")


def _wmma_mem_batched(b, act, t, kind, params, space, addrs, strides, regs, target) -> bool:
    """wmma.load/store of every warp at once (ptxld.wmma.batched); False, with nothing done,
    where a warp needs the per-warp path (which reports faults and errors warp by warp)."""
    bases = wmma_batched.uniform(addrs)
    per_warp_stride = None if strides is None else wmma_batched.uniform(strides)
    if bases is None or (strides is not None and per_warp_stride is None):
        return False
    first = t[::32]
    try:
        if kind == "load":
            vals = wmma_batched.load(params, _reader_many(b, space, first), bases, per_warp_stride, target)
            if vals is None:
                return False
            for k, (s, width) in enumerate(regs):
                b.wr(s, act, vals[:, :, k].reshape(-1).astype(ptxtypes.UINT[width]))
            return True
        data = np.stack([b.rd(s, act) for s, _ in regs], axis=1).reshape(len(first), 32, len(regs))
        return wmma_batched.store(params, _writer_many(b, space, first), bases, per_warp_stride, data, target)
    except Fault:
        return False


def _reader_many(b, space, first):
    """read(addrs, nbytes) over the lines of every warp (each warp's lines consecutive)."""
    def read(addrs, nbytes):
        tids = np.repeat(first, len(addrs) // len(first))
        first_parts, _ = _bytes_at(b, space, addrs, nbytes, tids, False, per_line=True)
        out = np.empty((len(addrs), nbytes), np.uint8)
        for backing, idx, pos in first_parts:
            out[slice(None) if pos is None else pos] = backing[idx[:, None] + np.arange(nbytes)]
        return out
    return read


def _writer_many(b, space, first):
    def write(addrs, data):
        nbytes = data.shape[1]
        tids = np.repeat(first, len(addrs) // len(first))
        first_parts, _ = _bytes_at(b, space, addrs, nbytes, tids, True, per_line=True)
        for backing, idx, pos in first_parts:
            backing[idx[:, None] + np.arange(nbytes)] = data if pos is None else data[pos]
    return write


def _traced(access, tr, b, op, kind, space, lanes):
    """A wmma row reader/writer that first tells the recorder which rows the warp moves. The PTX
    ISA leaves the lane that holds each element unspecified, so rows are dealt to lanes in order."""
    def call(addrs, arg):
        a = np.asarray(addrs, np.uint64)
        nbytes = arg if isinstance(arg, (int, np.integer)) else arg.shape[1]
        tr.record(b, op, kind, space, lanes[np.arange(len(a)) % len(lanes)], a, int(nbytes),
                  NO_HINTS, None)
        return access(addrs, arg)
    return call


def _bytes_at(b, space, addrs, nbytes, lane0, write, per_line=False):
    """Resolve rows of `nbytes` (alignment is checked by ptxld.wmma) -> (backing, index rows)."""
    a = np.asarray(addrs, np.uint64)
    tids = lane0 if per_line else np.repeat(lane0, len(a))
    first = b.sp.resolve(space, a, 1, tids, write)
    last = b.sp.resolve(space, a + np.uint64(nbytes - 1), 1, tids, write)
    return first, last


def _reader(b, space, lane0, w0):
    def read(addrs, nbytes):
        try:
            first, _ = _bytes_at(b, space, addrs, nbytes, lane0, False)
        except Fault as f:
            f.pos = w0
            raise
        out = np.empty((len(addrs), nbytes), np.uint8)
        for backing, idx, pos in first:
            rows = backing[idx[:, None] + np.arange(nbytes)]
            out[slice(None) if pos is None else pos] = rows
        return out
    return read


def _writer(b, space, lane0, w0):
    def write(addrs, data):
        nbytes = data.shape[1]
        try:
            first, _ = _bytes_at(b, space, addrs, nbytes, lane0, True)
        except Fault as f:
            f.pos = w0
            raise
        for backing, idx, pos in first:
            rows = data if pos is None else data[pos]
            backing[idx[:, None] + np.arange(nbytes)] = rows
    return write
