"""Control flow: bra, call/ret (direct and indirect, recursion), exit, trap, barriers, fences."""
from __future__ import annotations

import numpy as np

from ..ptx.nodes import Int, Name, ParenList, Variable
from . import errors
from . import ptxtypes
from .memory import Fault
from .handlers import CONTROL, EXIT_HOOKS, CompileError, handler, stall_resolver
from .sem_warp import compile_bar_warp


def _split(b, op, idx, act):
    """(taken, not taken) threads of a guarded control instruction."""
    if act is idx:
        return idx, None
    p = b.rd(op.guard, idx)
    if op.gneg:
        p = ~p
    rest = np.flatnonzero(~p) if idx is None else idx[~p]
    return act, rest


@handler("bra", "brx")
def compile_bra(op, prog):
    ins = op.ins
    if ins.decoded.mnemonic == "brx":
        compile_brx(op, prog)
        return
    target = ins.operands[0]
    if not isinstance(target, Name) or target.name not in op.fn.labels:
        raise CompileError(f"unknown branch target `{getattr(target, 'text', target)}`")
    tpc = op.fn.labels[target.name]
    nxt = op.pc + 1

    def run(b, idx, act):
        taken, rest = _split(b, op, idx, act)
        if rest is not None:
            b.schedule(nxt, rest)
        return tpc, taken
    op.kind, op.run = CONTROL, run


def compile_brx(op, prog):
    """`brx.idx index, tlist`: jump to entry `index` of the `.branchtargets` list `tlist`; an
    index past the end is undefined in the ISA and reported."""
    ins = op.ins
    if len(ins.operands) != 2 or not isinstance(ins.operands[1], Name):
        raise CompileError("brx.idx takes an index and a `.branchtargets` label")
    table = op.fn.branch_tables.get(ins.operands[1].name)
    if table is None:
        raise CompileError(f"`{ins.operands[1].name}` does not label a .branchtargets list")
    missing = [t for t in table if t not in op.fn.labels]
    if missing:
        raise CompileError(f"branch target `{missing[0]}` is not a label of this function")
    pcs = np.array([op.fn.labels[t] for t in table], np.int64)
    index = prog.source(ins.operands[0], ".u32", ins)
    nxt = op.pc + 1

    def run(b, idx, act):
        taken, rest = _split(b, op, idx, act)
        if rest is not None:
            b.schedule(nxt, rest)
        t = b.threads(taken)
        if len(t) == 0:
            return None
        k = index(b, taken).astype(np.int64)
        bad = k >= len(pcs)
        if bad.any():
            pos = int(np.flatnonzero(bad)[0])
            raise Fault(errors.EmulationError, pos, None, None,
                        f"brx.idx index {int(k[pos])} is past the end of its {len(pcs)}-entry "
                        f"target list `{ins.operands[1].name}`", "an index below the list's length")
        dest = pcs[k]
        for pc in np.unique(dest)[1:]:
            b.schedule(int(pc), t[dest == pc])
        first = int(dest.min())
        sel = t[dest == first]
        return first, (None if len(sel) == b.N else sel)
    op.kind, op.run = CONTROL, run


@handler("exit")
def compile_exit(op, prog):
    def run(b, idx, act):
        taken, rest = _split(b, op, idx, act)
        exit_threads(b, taken)
        if rest is not None and len(rest):
            return op.pc + 1, rest
        return None
    op.kind, op.run = CONTROL, run


def exit_threads(b, idx):
    t = b.threads(idx)
    if len(t) == 0:
        return
    for hook in EXIT_HOOKS:
        hook(b, t)
    b.exited[t] = True
    b.live_per_cta -= np.bincount(b.cta_of[t], minlength=len(b.live_per_cta))


@handler("trap")
def compile_trap(op, prog):
    def run(b, act):
        t = b.threads(act)[0]
        raise b.error(errors.EmulationError, op, t, "trap executed: the kernel aborted",
                      expected="no `trap` on the executed path", others=b.count(act) - 1)
    op.run = run


@handler("membar", "fence", "nanosleep", "pmevent", "brkpt", "griddepcontrol")
def compile_noop(op, prog):
    # A sequential emulator is sequentially consistent: fences are no-ops (cache hints: sem_cache).
    op.run = lambda b, act: None


# ---------------------------------------------------------------------------- call / ret

class Record:
    __slots__ = ("idx", "fn", "ret_pc", "regs", "pvars", "local", "rets", "remaining")


@handler("call")
def compile_call(op, prog):
    ins = op.ins
    ops = list(ins.operands)
    rets = []
    if ops and isinstance(ops[0], ParenList):
        rets = ops.pop(0).items
    if not ops:
        raise CompileError("call without a target")
    callee = ops.pop(0)
    args = ops.pop(0).items if ops and isinstance(ops[0], ParenList) else []
    ret_targets = [_param_target(prog, r, ins) for r in rets]
    arg_sources = [_param_target(prog, a, ins) for a in args]
    direct = None
    if isinstance(callee, Name) and callee.name in prog.funcs:
        direct = prog.funcs[callee.name]
    elif isinstance(callee, Name) and prog.lookup(callee.name, ins) is None and callee.name not in prog.funcs:
        raise CompileError(f"call to `{callee.name}`, which has no definition in this module")
    else:
        target_src = prog.source(callee, prog.addr_type, ins)
    for f in ([direct] if direct else prog.funcs.values()):
        if f.node.is_entry:
            continue
        if direct and (len(f.formals) != len(args) or len(f.returns) != len(rets)):
            raise CompileError(f"call passes {len(args)} argument(s) and {len(rets)} return "
                               f"value(s); `{f.name}` declares {len(f.formals)} and {len(f.returns)}")

    def run(b, idx, act):
        taken, rest = _split(b, op, idx, act)
        if rest is not None and len(rest):
            b.schedule(op.pc + 1, rest)
        if direct is not None:
            return enter(b, op, direct, taken, ret_targets, arg_sources)
        addr = target_src(b, taken)
        t = b.threads(taken)
        for a in np.unique(addr):
            name = prog.func_by_addr.get(int(a))
            sel = t[addr == a]
            if name is None or prog.funcs[name].node.is_entry:
                raise Fault(errors.GenericAddressError, int(np.flatnonzero(addr == a)[0]), int(a), "code",
                            "indirect call to an address that is not a device function",
                            "the address of a .func taken with mov")
            f = prog.funcs[name]
            if len(f.formals) != len(args) or len(f.returns) != len(rets):
                raise Fault(errors.EmulationError, int(np.flatnonzero(addr == a)[0]), int(a), "code",
                            f"indirect call passes {len(args)} argument(s); `{name}` takes {len(f.formals)}",
                            "a callee matching the call's prototype")
            nxt = enter(b, op, f, sel, ret_targets, arg_sources)
            b.schedule(*nxt)
        return None
    op.kind, op.run = CONTROL, run


def _param_target(prog, node, ins):
    """A call argument or return target: ('p', pvar) for a .param variable, ('r', slot, type)
    for a register, ('i', node) for an immediate."""
    if isinstance(node, Name):
        v = prog.lookup(node.name, ins)
        if isinstance(v, Variable) and v.space == ".param":
            return ("p", prog.pvar(v))
        if isinstance(v, Variable) and v.space == ".reg" and v.vector and node.component is None:
            return ("v", prog.vector_regs(node, ins))      # a vector register, element by element
        if isinstance(v, Variable) and v.space == ".reg":
            s, t = prog.reg(node, ins)
            return ("r", s, t)
    if isinstance(node, Int):
        return ("i", node)
    raise CompileError(f"unsupported call operand `{getattr(node, 'text', node)}`")


def _bits_to_bytes(bits: np.ndarray, nbytes: int) -> np.ndarray:
    b = np.ascontiguousarray(bits)
    raw = b.view(np.uint8).reshape(len(b), -1)
    out = np.zeros((len(b), nbytes), np.uint8)
    k = min(nbytes, raw.shape[1])
    out[:, :k] = raw[:, :k]
    return out


def _bytes_to_bits(raw: np.ndarray, width: int) -> np.ndarray:
    nb = max(1, width // 8)
    buf = np.zeros((raw.shape[0], 16 if width == 128 else nb), np.uint8)
    k = min(buf.shape[1], raw.shape[1])
    buf[:, :k] = raw[:, :k]
    if width == 1:
        return buf[:, 0] != 0
    if width == 128:
        return buf.view(np.uint64).reshape(-1, 2)
    return buf.view(ptxtypes.UINT[width]).reshape(-1)


def _regs_to_bytes(b, regs, act, size: int) -> np.ndarray:
    """Registers [(slot, type)] read for `act`, laid end to end as the bytes of one parameter."""
    parts = [_bits_to_bytes(b.rd(s, act), max(1, ptxtypes.WIDTH[t] // 8)) for s, t in regs]
    raw = np.concatenate(parts, axis=1) if len(parts) > 1 else parts[0]
    out = np.zeros((raw.shape[0], size), np.uint8)
    k = min(size, raw.shape[1])
    out[:, :k] = raw[:, :k]
    return out


def _bytes_to_regs(b, regs, raw: np.ndarray, idx) -> None:
    """The bytes of one parameter written into its registers [(slot, type)], element by element."""
    off = 0
    for s, t in regs:
        w = ptxtypes.WIDTH[t]
        n = max(1, w // 8)
        b.wr(s, idx, _bytes_to_bits(np.ascontiguousarray(raw[:, off:off + n]), w))
        off += n


def enter(b, op, f, act, ret_targets, arg_sources):
    t = b.threads(act)
    rec = Record()
    rec.idx, rec.fn, rec.ret_pc, rec.rets = t, f, op.pc + 1, ret_targets
    rec.remaining = len(t)
    # arguments
    vals = []
    for src, p in zip(arg_sources, f.formals):
        size = b.prog.pvar_size[p]
        if src[0] == "p":
            data, init = b.param_store(src[1])
            vals.append((data[t][:, :size], init[t][:, :size]))
        elif src[0] in ("r", "v"):
            raw = _regs_to_bytes(b, [src[1:]] if src[0] == "r" else src[1], act, size)
            vals.append((raw, np.ones_like(raw, bool)))
        else:
            raw = _bits_to_bytes(np.full(len(t), src[1].value & (2**64 - 1), np.uint64), size)
            vals.append((raw, np.ones_like(raw, bool)))
    rec.regs = {s: b.regs[s][t].copy() for s in f.slots if b.regs[s] is not None}
    rec.pvars = {}
    for p in f.pvars:
        if b.pv[p] is not None:
            rec.pvars[p] = (b.pv[p][t].copy(), b.pv_init[p][t].copy())
            b.pv_init[p][t] = False
    rec.local = None
    if f.local_hi > f.local_lo:
        loc = b.sp.local.reshape(b.N, -1)
        rec.local = loc[t, f.local_lo:f.local_hi].copy()
    for (raw, init), p, regs in zip(vals, f.formals, f.formal_regs):
        data, pinit = b.param_store(p)
        k = raw.shape[1]
        data[t, :k] = raw
        pinit[t, :k] = init
        if regs:
            _bytes_to_regs(b, regs, raw, None if len(t) == b.N else t)
    rid = b.next_record
    b.next_record += 1
    b.records[rid] = rec
    d = b.depth[t]
    for level in np.unique(d):
        while len(b.stack) <= level:
            b.stack.append(np.zeros(b.N, np.int32))
        b.stack[level][t[d == level]] = rid
    b.depth[t] += 1
    if b.depth[t].max() > b.max_call_depth:
        raise Fault(errors.StepBudgetError, 0, None, None,
                    f"call depth above {b.max_call_depth} (runaway recursion?)",
                    "recursion that terminates, or a larger max_call_depth")
    return f.entry_pc, (None if len(t) == b.N else t)


def leave(b, op, act):
    """`ret`: return to the caller, or exit when returning from the kernel."""
    t = b.threads(act)
    d = b.depth[t]
    top = d == 0
    if top.any():
        exit_threads(b, t[top])
        t, d = t[~top], d[~top]
    if len(t) == 0:
        return
    rids = np.empty(len(t), np.int32)
    for level in np.unique(d):
        sel = d == level
        rids[sel] = b.stack[level - 1][t[sel]]
    for rid in np.unique(rids):
        rec = b.records[int(rid)]
        S = t[rids == rid]
        pos = np.searchsorted(rec.idx, S)
        f = rec.fn
        outs = []
        sel = S if len(S) != b.N else None
        for p, regs in zip(f.returns, f.return_regs):
            if regs:                                  # a `.reg` return value: its registers
                raw = _regs_to_bytes(b, regs, sel, b.prog.pvar_size[p])
                outs.append((raw, np.ones_like(raw, bool)))
                continue
            data, init = b.param_store(p)
            outs.append((data[S].copy(), init[S].copy()))
        for s, saved in rec.regs.items():
            b.regs[s][S] = saved[pos]
        for p, (data, init) in rec.pvars.items():
            b.pv[p][S] = data[pos]
            b.pv_init[p][S] = init[pos]
        if rec.local is not None:
            b.sp.local.reshape(b.N, -1)[S, f.local_lo:f.local_hi] = rec.local[pos]
        for tgt, (raw, init) in zip(rec.rets, outs):
            if tgt[0] == "p":
                data, pinit = b.param_store(tgt[1])
                k = min(raw.shape[1], data.shape[1])
                data[S, :k] = raw[:, :k]
                pinit[S, :k] = init[:, :k]
            elif tgt[0] == "r":
                w = ptxtypes.WIDTH[tgt[2]]
                b.wr(tgt[1], S if len(S) != b.N else None, _bytes_to_bits(raw, w))
            elif tgt[0] == "v":
                _bytes_to_regs(b, tgt[1], raw, S if len(S) != b.N else None)
        b.depth[S] -= 1
        rec.remaining -= len(S)
        if rec.remaining <= 0:
            del b.records[int(rid)]
        b.schedule(rec.ret_pc, None if len(S) == b.N else S)


@handler("ret")
def compile_ret(op, prog):
    def run(b, idx, act):
        taken, rest = _split(b, op, idx, act)
        leave(b, op, taken)
        if rest is not None and len(rest):
            return op.pc + 1, rest
        return None
    op.kind, op.run = CONTROL, run


def compile_fallthrough_end(op, prog):
    def run(b, idx, act):
        leave(b, op, idx)
        return None
    op.kind, op.run = CONTROL, run
    op.text = f"end of {op.fn.name}"
    body_end = op.fn.node.end
    op.line = prog.module.source.position(max(0, body_end - 1))[0]


# ---------------------------------------------------------------------------- barriers

@handler("bar", "barrier")
def compile_bar(op, prog):
    ins = op.ins
    d = ins.decoded
    # `bar.warp.sync` and `barrier.cluster` are instructions of their own (their decoded name)
    if d.name == "bar.warp.sync" or d.has(".warp"):
        return compile_bar_warp(op, prog)
    if d.name == "barrier.cluster" or d.has(".cluster"):
        return _compile_cluster_barrier(op, prog, d)
    kind = "sync"
    for k in ("arrive", "red", "sync"):
        if d.has("." + k):
            kind = k
            break
    aligned = d.mnemonic == "bar" or d.has(".aligned")
    ops = list(ins.operands)
    dest = None
    redop = None
    if kind == "red":
        redop = d.pick(".popc", ".and", ".or")
        redop = redop and redop[1:]
        rtype = ".u32" if redop == "popc" else ".pred"
        dest = prog.dest(ops.pop(0), rtype, ins)
        pred_node = ops.pop()
        negate = False
        if isinstance(pred_node, __import__("ptxld.ptx.nodes", fromlist=["Expr"]).Expr) and pred_node.op == "!":
            negate, pred_node = True, pred_node.args[0]
        pred = prog.source(pred_node, ".pred", ins)
    if not ops:
        ops = [Int(0, "0", 0, 0)]
    bid_src = prog.source(ops[0], ".u32", ins)
    # `bar.sync 0`: one barrier for every thread, known before running (no per-thread sort)
    bid_const = ops[0].value if isinstance(ops[0], Int) else None
    cnt_src = prog.source(ops[1], ".u32", ins) if len(ops) > 1 else None
    op.info.update(aligned=aligned, kind=kind, dest=dest, redop=redop)

    def run(b, idx, act):
        taken, rest = _split(b, op, idx, act)
        if rest is not None and len(rest):
            b.schedule(op.pc + 1, rest)
        if taken is not None and len(taken) == 0:
            return None
        bids = bid_src(b, taken)
        cnts = cnt_src(b, taken) if cnt_src is not None else None
        pv = None
        if kind == "red":
            pv = pred(b, taken)
            if negate:
                pv = ~pv
        t = b.threads(taken)
        if bid_const is not None:
            arrive(b, op, bid_const, t, cnts, wait=(kind != "arrive"), pv=pv)
            return None
        for bid in np.unique(bids):
            sel = bids == bid
            arrive(b, op, int(bid), t[sel], None if cnts is None else cnts[sel],
                   wait=(kind != "arrive"), pv=None if pv is None else pv[sel])
        return None
    op.kind, op.run = CONTROL, run


def arrive(b, op, bid, t, cnts, wait, pv):
    nct = len(b.live_per_cta)
    if bid > 15:
        raise Fault(errors.BarrierError, 0, None, None, f"barrier id {bid} out of range", "0..15")
    count = b.bar_count.setdefault(bid, np.zeros(nct, np.int64))
    expect = b.bar_expect.setdefault(bid, np.full(nct, -1, np.int64))
    ctas = b.cta_of[t]
    count += np.bincount(ctas, minlength=nct)
    if cnts is not None:
        for c in np.unique(ctas):
            e = np.unique(cnts[ctas == c])
            if len(e) != 1 or (expect[c] >= 0 and expect[c] != e[0]):
                raise b.error(errors.BarrierError, op, t[ctas == c][0],
                              f"barrier {bid}: threads give different thread counts",
                              "the same thread count in every bar instruction of one barrier phase")
            expect[c] = int(e[0])
    if pv is not None:
        red = b.bar_red.setdefault(bid, {"true": np.zeros(nct, np.int64), "n": np.zeros(nct, np.int64)})
        red["true"] += np.bincount(ctas, weights=pv.astype(np.int64), minlength=nct).astype(np.int64)
        red["n"] += np.bincount(ctas, minlength=nct)
    if wait:
        # Lanes of one warp may reach an aligned barrier at different times (a lane spinning on
        # a flag while the others wait, as nvcc compiles `if (tid == 0) while (!flag); __syncthreads();`):
        # hardware with independent thread scheduling runs that (measured on an H200 with
        # tests/kernels/cuda/arith_sync.cu), so only two barrier instructions are divergence.
        b.bar_wait.setdefault(bid, []).append((op.pc, t))
    complete_barrier(b, bid)


def complete_barrier(b, bid) -> bool:
    count, expect = b.bar_count[bid], b.bar_expect[bid]
    target = np.where(expect >= 0, expect, b.live_per_cta)
    done = (count >= target) & (count > 0)
    if not done.any():
        return False
    waiting = b.bar_wait.get(bid, [])
    keep = []
    released = []
    if done.all():
        released = list(waiting)
    else:
        for pc, t in waiting:
            sel = done[b.cta_of[t]]
            if sel.any():
                released.append((pc, t[sel]))
            if not sel.all():
                keep.append((pc, t[~sel]))
    code = b.prog.code
    pcs = sorted({pc for pc, _ in released})
    if len(pcs) > 1 and any(code[p].info.get("aligned") for p in pcs):
        _check_aligned(b, bid, pcs, released, len(count))
    red = b.bar_red.get(bid)
    for pc, t in released:
        op = code[pc]
        if op.info.get("kind") == "red" and red is not None:
            c = b.cta_of[t]
            trues, n = red["true"][c], red["n"][c]
            r = op.info["redop"]
            val = trues.astype(np.uint32) if r == "popc" else (trues == n) if r == "and" else (trues > 0)
            op.info["dest"](b, t if len(t) != b.N else None, val)
        b.schedule(pc + 1, t if len(t) != b.N else None)
    count[done] = 0
    expect[done] = -1
    if red is not None:
        red["true"][done] = 0
        red["n"][done] = 0
    b.bar_wait[bid] = keep
    return bool(released)


def _check_aligned(b, bid, pcs, released, nct):
    """Divergence: an aligned barrier must be the same instruction for all threads of a CTA.
    Fault at the first CTA (in pc order) whose threads wait at two of `pcs`."""
    first = np.full(nct, -1, np.int64)          # per CTA: the first pc its threads wait at
    any_aligned = np.zeros(nct, bool)           # per CTA: an aligned barrier among its pcs
    for pc, t in sorted(released, key=lambda r: r[0]):
        ctas = b.cta_of[t]
        aligned = bool(b.prog.code[pc].info.get("aligned"))
        clash = (first[ctas] >= 0) & (first[ctas] != pc) & (any_aligned[ctas] | aligned)
        any_aligned[ctas] |= aligned
        if clash.any():
            k = int(np.flatnonzero(clash)[0])
            p1, p2 = int(first[ctas[k]]), pc
            raise b.error(errors.BarrierError, b.prog.code[p2], t[k],
                          f"barrier divergence: threads of one CTA wait on barrier {bid} at two "
                          f"different instructions (line {b.prog.code[p1].line} and line "
                          f"{b.prog.code[p2].line})",
                          "all threads of the CTA to execute the same aligned barrier instruction "
                          "(bar.sync / barrier.sync.aligned)")
        first[ctas] = np.where(first[ctas] >= 0, first[ctas], pc)


def try_complete_barriers(b) -> bool:
    progressed = False
    for bid in list(b.bar_wait):
        if b.bar_wait[bid]:
            progressed |= complete_barrier(b, bid)
    if getattr(b, "cluster_wait", None):
        progressed |= _complete_cluster(b)
    return progressed


@stall_resolver(order=0)
def _barriers_on_stall(b) -> bool:
    """Barriers first: a barrier whose missing threads exited completes; one that never can is
    the deadlock to report."""
    if try_complete_barriers(b):
        return True
    if b.bar_wait and any(b.bar_wait.values()):
        raise barrier_deadlock(b)
    return False


def barrier_deadlock(b):
    for bid, waiting in b.bar_wait.items():
        if not waiting:
            continue
        pc, t = waiting[0]
        c = b.cta_of[t[0]]
        arrived = int(b.bar_count[bid][c])
        exp = int(b.bar_expect[bid][c]) if b.bar_expect[bid][c] >= 0 else int(b.live_per_cta[c])
        waiting_here = np.concatenate([w for _, w in waiting])
        in_cta = np.flatnonzero((b.cta_of == c) & ~b.exited)
        missing = np.setdiff1d(in_cta, waiting_here)
        where = ""
        if len(missing):
            m = int(missing[0])
            th, _ = b.coords(m)
            place = "waiting at a different barrier or warp-synchronous instruction"
            for obid, ow in b.bar_wait.items():
                for opc, ot in ow:
                    if m in ot and obid != bid:
                        place = f"waiting at barrier {obid} on line {b.prog.code[opc].line}"
            where = f"; thread {th} never arrives ({place})"
        return b.error(errors.BarrierError, b.prog.code[pc], t[0],
                       f"barrier deadlock: {arrived} of {exp} threads of the CTA arrived at barrier "
                       f"{bid}{where}",
                       "every non-exited thread of the CTA (or the bar instruction's thread count) "
                       "to reach the barrier", others=len(t) - 1)
    return errors.BarrierError("barrier deadlock")


# ---------------------------------------------------------------------------- cluster barrier

@handler("barrier.cluster")
def compile_cluster_barrier(op, prog):
    d = op.ins.decoded
    return _compile_cluster_barrier(op, prog, d)


def _compile_cluster_barrier(op, prog, d):
    is_wait = d.get("op") == ".wait" if d.name == "barrier.cluster" else d.has(".wait")

    def run(b, idx, act):
        t = b.threads(act)
        ncl = b.cta_of.max() + 1
        cl = b.sp.cluster_first[b.cta_of[t]]
        if not hasattr(b, "cluster_count"):
            b.cluster_count = np.zeros(ncl, np.int64)
            b.cluster_wait = []
        if not is_wait:
            b.cluster_count += np.bincount(cl, minlength=ncl)
            return op.pc + 1, act
        b.cluster_wait.append((op.pc, t))
        _complete_cluster(b)
        return None
    op.kind, op.run = CONTROL, run


def _complete_cluster(b) -> bool:
    live_cl = np.bincount(b.sp.cluster_first[b.cta_of[~b.exited]], minlength=len(b.cluster_count))
    done = (b.cluster_count >= live_cl) & (b.cluster_count > 0)
    if not done.any():
        return False
    keep, moved = [], False
    for pc, t in b.cluster_wait:
        sel = done[b.sp.cluster_first[b.cta_of[t]]]
        if sel.any():
            b.schedule(pc + 1, t[sel])
            moved = True
        if not sel.all():
            keep.append((pc, t[~sel]))
    b.cluster_wait = keep
    if moved:
        b.cluster_count[done] = 0
    return moved
