"""Asynchronous copies (PTX ISA 9.7.9.25): cp.async with its commit/wait groups and
cp.async.mbarrier.arrive (sm_80), and the bulk copies of sm_90: cp.async.bulk,
cp.reduce.async.bulk, their bulk async-groups, cp.async.bulk.prefetch; the asynchronous
stores st.async and red.async (sm_90) and the bulk store st.bulk (sm_100).

Every copy is issued here and completed later by async_state, under the policy documented in
docs/async-copies.md: its destination changes no earlier than the wait that guarantees it.
"""
from __future__ import annotations

import numpy as np

from ..ptx.nodes import Address, Int, Name, Variable
from ..spec import ld as ld_spec
from . import ptxtypes
from . import async_state as copy_state
from . import errors
from .alu import atom_combine
from .alu.core import Unsupported
from .handlers import CompileError, handler, immediate_operand
from .memory import SHARED_CTA_SPAN, SHARED_RANK_SHIFT, Fault, gather
from .sem_mbarrier import barrier_refs
from .sem_mem import ATOM_OPS, AddressOperand, _elements, _policy_source
from .trace import BULK_SHARED, hints_of


def _is_pred(prog, ins, node) -> bool:
    if not isinstance(node, Name):
        return False
    v = prog.lookup(node.name, ins)
    return isinstance(v, Variable) and v.type == ".pred"


def _misaligned(addr, n, space, what):
    bad = (addr & np.uint64(n - 1)) != 0
    if bad.any():
        pos = int(np.flatnonzero(bad)[0])
        raise Fault(errors.MisalignedAddressError, pos, int(addr[pos]), space,
                    f"misaligned {what}: {space} address not a multiple of {n} bytes",
                    f"an address aligned to {n} bytes", int(bad.sum()))


# ------------------------------------------------------------------------------ cp.async (sm_80)

def read_source(b, src: np.ndarray, tids: np.ndarray, srcsize: np.ndarray, size: int) -> np.ndarray:
    """(n, size) bytes: the first src-size bytes from global memory, zeros after (zero-fill)."""
    n = len(src)
    if (srcsize == size).all():
        parts = b.sp.resolve(".global", src, size, tids, False)
        # sources are cp-size aligned (checked at issue): read whole words, then their bytes
        width = 8 * min(size, 8)
        words = gather(parts, n, width, size * 8 // width)
        return np.ascontiguousarray(words).view(np.uint8).reshape(n, size)
    out = np.zeros((n, size), np.uint8)
    for k in range(size):
        rows = np.flatnonzero(srcsize > k)
        if len(rows):
            parts = b.sp.resolve(".global", src[rows] + np.uint64(k), 1, tids[rows], False)
            out[rows, k] = gather(parts, len(rows), 8, 1)[:, 0]
    return out


def _late_read(b, rec, rows):
    return read_source(b, rec.src[rows], rec.tids[rows], rec.srcsize[rows], rec.size)


copy_state.READ_SOURCE = _late_read


@handler("cp.async")
def compile_cp_async(op, prog):
    """cp.async.{ca,cg}.shared{::cta}.global [dst], [src], cp-size{, src-size | ignore-src}
    {, cache-policy}: cp-size 4, 8 or 16 (16 only for .cg); bytes past src-size are zeros; a
    true ignore-src predicate copies zeros only."""
    ins = op.ins
    d = ins.decoded
    ops = list(ins.operands)
    if len(ops) < 3 or not isinstance(ops[0], Address) or not isinstance(ops[1], Address):
        raise CompileError("cp.async takes [dst], [src], cp-size{, src-size}{, cache-policy}")
    if not isinstance(ops[2], Int) or ops[2].value not in (4, 8, 16):
        raise CompileError("cp.async cp-size must be the immediate 4, 8 or 16")
    size = ops[2].value
    if d.get("cache") == ".cg" and size != 16:
        raise CompileError("cp.async.cg copies 16 bytes only")
    if d.get("cache") is None:
        raise CompileError("cp.async needs .ca or .cg")
    rest = ops[3:]
    if d.get("cache_hint") is not None:
        if not rest:
            raise CompileError("cp.async.L2::cache_hint needs a cache-policy operand")
        rest = rest[:-1]
    srcsize = ignore = None
    if len(rest) == 1:
        if _is_pred(prog, ins, rest[0]):
            ignore = prog.source(rest[0], ".pred", ins)
        else:
            srcsize = prog.source(rest[0], ".u32", ins)
    elif rest:
        raise CompileError("cp.async has too many operands")
    dst = AddressOperand(prog, ops[0], ".shared", ins)
    src = AddressOperand(prog, ops[1], ".global", ins)
    hints = hints_of(d)
    policy = _policy_source(prog, ins, hints)

    def run(b, act):
        st = copy_state.state(b)
        tids = b.threads(act)
        n = len(tids)
        da, sa = dst.values(b, act), src.values(b, act)
        _misaligned(da, size, ".shared", "cp.async destination")
        _misaligned(sa, size, ".global", "cp.async source")
        if srcsize is not None:
            ss = srcsize(b, act).astype(np.int64)
            if (ss > size).any():
                pos = int(np.flatnonzero(ss > size)[0])
                raise Fault(errors.AsyncCopyError, pos, int(sa[pos]), ".global",
                            f"cp.async src-size {int(ss[pos])} exceeds cp-size {size}",
                            "a src-size no larger than cp-size")
        else:
            ss = np.full(n, size, np.int64)
        if ignore is not None:
            ss = np.where(ignore(b, act), 0, ss)
        tr = b.trace
        if tr is not None:
            # the global read (src-size bytes per thread, none with ignore-src), the shared write
            tr.record(b, op, "cp.async.src", ".global", act, sa, ss, hints,
                      policy(b, act) if policy else None)
            tr.record(b, op, "cp.async.dst", ".shared", act, da, size, hints, None)
        (backing, idx, _), = b.sp.resolve(".shared", da, size, tids, True)
        rec = copy_state.CpRecord()
        rec.seq, rec.op, rec.tids, rec.size = st.next_seq(), op, tids.copy(), size
        rec.group = st.cp_committed[tids]           # a fancy index: already a copy
        rec.backing, rec.dst, rec.dst_addr = backing, idx.astype(np.intp, copy=False), da
        rec.alive = np.ones(n, bool)
        if st.late:
            rec.data, rec.src, rec.srcsize = None, sa, ss
        else:
            rec.data, rec.src, rec.srcsize = read_source(b, sa, tids, ss, size), None, None
        st.copies.append(rec)
    op.run = run


@handler("cp.async.commit_group")
def compile_commit(op, prog):
    def run(b, act):
        copy_state.state(b).cp_committed[b.threads(act)] += 1
    op.run = run


@handler("cp.async.wait_group")
def compile_wait_group(op, prog):
    newest = immediate_operand(op.ins, "n")

    def run(b, act):
        st = copy_state.peek(b)
        if st is None or not st.copies:
            return
        t = b.threads(act)
        # the wait guarantees every committed group but the newest N; the default policy lands
        # all committed groups here, the late one only those
        keep = newest if st.late else 0
        copy_state.complete_copies(b, t, group_below=st.cp_committed - keep)
    op.run = run


@handler("cp.async.wait_all")
def compile_wait_all(op, prog):
    def run(b, act):
        st = copy_state.peek(b)
        if st is None:
            return
        t = b.threads(act)
        st.cp_committed[t] += 1
        copy_state.complete_copies(b, t, group_below=st.cp_committed)
    op.run = run


@handler("cp.async.mbarrier.arrive")
def compile_cp_async_arrive(op, prog):
    """An arrive-on the mbarrier once every cp.async the thread issued before completes; without
    .noinc the pending count is first raised by one, so the arrive-on nets out."""
    ins = op.ins
    d = ins.decoded
    sp = d.get("space")
    space = ".shared" if sp in (".shared", ".shared::cta") else "generic"
    aop = AddressOperand(prog, ins.operands[0], space, ins)
    noinc = d.get("noinc") is not None

    def run(b, act):
        st = copy_state.state(b)
        t = b.threads(act)
        bars = barrier_refs(b, aop, space, act)
        if not noinc:
            copy_state.apply(b, op, t, bars, -1, 0)
        st.arrives.append((st.next_seq(), t.copy(), bars, op))
        for k in np.unique(bars.idx, return_index=True)[1]:
            p = bars.place(int(k))
            st.place_of[p.key] = p
    op.run = run


# ------------------------------------------------------------------------------ bulk (sm_90)

def span(b, space: str, addr: int, size: int, tid: int, write: bool, pos: int):
    """(backing, first byte index) of `size` contiguous bytes at `addr`, checked in bounds."""
    t = np.array([tid], np.intp)
    try:
        (bk, i0, _), = b.sp.resolve(space, np.array([addr], np.uint64), 1, t, write)
        (bk2, i1, _), = b.sp.resolve(space, np.array([addr + size - 1], np.uint64), 1, t, write)
    except Fault as f:
        f.pos = pos
        raise
    if bk2 is not bk or int(i1[0]) - int(i0[0]) != size - 1:
        raise Fault(errors.OutOfBoundsError, pos, addr, space,
                    f"bulk copy of {size} bytes at {addr:#x} runs past the end of its {space} "
                    f"allocation", "a copy inside one allocation")
    return bk, int(i0[0])


def barrier_place(b, addr: int, tid: int) -> copy_state.Place:
    """The mbarrier at shared::cluster address `addr` that an operation of thread `tid` signals."""
    (bk, i0, _), = b.sp.resolve(".shared::cluster", np.array([addr], np.uint64), 8,
                                np.array([tid], np.intp), True)
    return copy_state.Place(bk, int(i0[0]), addr)


def _check_bulk(addrs, size, pos, what):
    if size <= 0 or size % 16:
        raise Fault(errors.AsyncCopyError, pos, None, None,
                    f"{what}: size {size} is not a positive multiple of 16 bytes",
                    "a size that is a multiple of 16")
    for space, a in addrs:
        if a % 16:
            raise Fault(errors.MisalignedAddressError, pos, a, space,
                        f"{what}: {space} address {a:#x} is not 16-byte aligned",
                        "an address aligned to 16 bytes")


def destinations(mask: int) -> int:
    """How many CTAs a multicast copy with this 16-bit ctaMask writes."""
    return bin(mask & 0xFFFF).count("1")


def cluster_targets(b, tid: int, addr: int, mask: int | None, pos: int = 0) -> list[int]:
    """The shared::cluster addresses a (multicast) copy writes: `addr` itself, or the same
    CTA-relative offset in every CTA whose rank is set in the 16-bit ctaMask."""
    if mask is None:
        return [addr]
    off = addr & (SHARED_CTA_SPAN - 1)
    n = b.sp.cluster_size
    if mask >> n:
        r = (mask >> n).bit_length() + n - 1
        raise Fault(errors.AsyncCopyError, pos, addr, ".shared::cluster",
                    f"multicast ctaMask {mask:#06x} names CTA rank {r}, outside the cluster of {n} CTAs",
                    f"a ctaMask with bits only below the cluster size {n}")
    return [((r + 1) << SHARED_RANK_SHIFT) | off for r in range(n) if (mask >> r) & 1]


_HALF = {".f16": "f16", ".bf16": "bf16"}


def _half_values(bits: np.ndarray, t: str) -> np.ndarray:
    if t == ".f16":
        return bits.view(np.float16).astype(np.float32)
    return (bits.astype(np.uint32) << np.uint32(16)).view(np.float32)


def _half_minmax(t: str, take_max: bool):
    """min/max of f16/bf16 elements: the smaller (larger) value; -0 below +0; a NaN operand
    yields the other operand, two NaNs the canonical NaN (PTX ISA min/max)."""
    def run(old: np.ndarray, new: np.ndarray) -> np.ndarray:
        a, b = _half_values(old, t), _half_values(new, t)
        with np.errstate(invalid="ignore"):
            pick_b = (b > a) if take_max else (b < a)
            tie = (a == b) & (np.signbit(b) != np.signbit(a))
            pick_b |= tie & (np.signbit(a) if take_max else np.signbit(b))
        out = np.where(pick_b, new, old)
        out = np.where(np.isnan(a) & ~np.isnan(b), new, out)
        out = np.where(np.isnan(b) & ~np.isnan(a), old, out)
        return np.where(np.isnan(a) & np.isnan(b), np.uint16(0x7FFF), out).astype(np.uint16)
    return run


def _combiner(redop: str | None, rtype: str | None):
    """The element combiner of a bulk reduction (raw bytes in, raw bytes out), or None for a
    plain copy. Raises CompileError for a combination the emulator does not reduce."""
    if redop is None:
        return None
    op = redop[1:]
    t = rtype
    if op in ("and", "or", "xor") and t and t[1] in "us":
        t = ".b" + t[2:]
    if op in ("inc", "dec") and t in (".s32", ".b32"):
        t = ".u32"                                     # the same bits, counted unsigned
    width = 16 if t in _HALF else int(t[2:]) if t and t[2:].isdigit() else 0
    dt = {16: np.uint16, 32: np.uint32, 64: np.uint64}.get(width)
    try:
        if dt is None:
            raise Unsupported(f"{t} elements")
        fn = _half_minmax(t, op == "max") if (t in _HALF and op in ("min", "max")) else \
            atom_combine(op, t, ftz=(t == ".f32"))
    except Unsupported as e:
        raise CompileError(f"a .{op} reduction of {t} elements is not one the PTX ISA defines ({e})") from None

    def combine(old: np.ndarray, new: np.ndarray) -> np.ndarray:
        o, n = old.view(dt), new.view(dt)
        res = np.asarray(fn(o, n))
        if res.dtype != dt:
            res = res.view(dt) if res.dtype.itemsize == dt().itemsize else res.astype(dt)
        return res.view(np.uint8)
    return combine


def writer(backing, start: int, size: int, combine):
    def write(data):
        if combine is None:
            backing[start:start + size] = data
        else:
            backing[start:start + size] = combine(backing[start:start + size].copy(), data)
    return write


def issue(b, op, tid: int, read, writes, barriers, bulk_group: bool):
    """Queue one bulk operation of thread `tid`: `writes` callables, `barriers` (Place, bytes)
    to signal with complete-tx, or its thread's current bulk async-group."""
    st = copy_state.state(b)
    bop = copy_state.BulkOp()
    bop.seq, bop.op, bop.thread = st.next_seq(), op, tid
    bop.read = read
    bop.data = None if st.late else read()
    bop.write = lambda data: [w(data) for w in writes]
    bop.barriers = barriers
    bop.group = int(st.bulk_committed[tid]) if bulk_group else None
    for p, _ in barriers:
        st.place_of[p.key] = p
    copy_state.add_bulk(st, bop)


def _space(v):
    return ".shared" if v in (".shared", ".shared::cta") else v


def _compile_bulk(op, prog, reduce: bool):
    ins = op.ins
    d = ins.decoded
    dst_sp, src_sp = _space(d.get("dst")), _space(d.get("src"))
    completion = d.get("completion")
    if dst_sp is None or src_sp is None or completion is None:
        raise CompileError(f"`{ins.opcode}` needs .dst.src state spaces and a completion mechanism")
    ops = list(ins.operands)
    if len(ops) < 3 or not isinstance(ops[0], Address) or not isinstance(ops[1], Address):
        raise CompileError(f"`{ins.opcode}` takes [dstMem], [srcMem], size, ...")
    dst = AddressOperand(prog, ops[0], dst_sp, ins)
    src = AddressOperand(prog, ops[1], src_sp, ins)
    size_src = prog.source(ops[2], ".u32", ins)
    rest = ops[3:]
    mbar = None
    if completion == ".mbarrier::complete_tx::bytes":
        if not rest or not isinstance(rest[0], Address):
            raise CompileError(f"`{ins.opcode}` needs an mbarrier operand [mbar]")
        mbar = AddressOperand(prog, rest[0], ".shared::cluster", ins)
        rest = rest[1:]
    mask_src = None
    if d.get("multicast") is not None:
        if not rest:
            raise CompileError("a .multicast::cluster copy needs a ctaMask operand")
        mask_src = prog.source(rest[0], ".u16", ins)
    combine = _combiner(d.get("redop"), d.get("type")) if reduce else None
    if reduce and combine is None:
        raise CompileError(f"`{ins.opcode}` needs a reduction operation and type")
    what = ins.decoded.name
    hints = hints_of(d)
    policy = _policy_source(prog, ins, hints)

    def run(b, act):
        tids = b.threads(act)
        da, sa = dst.values(b, act), src.values(b, act)
        sizes = size_src(b, act).astype(np.int64)
        tr = b.trace
        if tr is not None:
            # the bulk-copy unit, not the warp's lanes, moves shared memory: only the global
            # side is told (read from global, or written/reduced into it)
            pol = policy(b, act) if policy else None
            if src_sp == ".global":
                tr.record(b, op, what + ".src", ".global", act, sa, sizes, hints, pol)
            if dst_sp == ".global":
                # the write is the only side told: ".write" (counts the execution), not ".dst"
                tr.record(b, op, what + (".dst" if src_sp == ".global" else ".write"), ".global",
                          act, da, sizes, hints, pol)
            if ".global" in (src_sp, dst_sp):
                # the shared side, moved by the bulk-copy unit (every destination of a multicast)
                smem = da if src_sp == ".global" else sa
                copies = 1 if mask_src is None else np.array(
                    [destinations(int(m)) for m in mask_src(b, act)], np.int64)
                tr.record(b, op, what + BULK_SHARED, ".shared", act, smem, sizes * copies, hints, None)
        masks = mask_src(b, act).astype(np.int64) if mask_src is not None else None
        bars = mbar.values(b, act) if mbar is not None else None
        for k, t in enumerate(tids):
            t, size = int(t), int(sizes[k])
            _check_bulk([(dst_sp, int(da[k])), (src_sp, int(sa[k]))], size, k, what)
            sbk, s0 = span(b, src_sp, int(sa[k]), size, t, False, k)
            read = (lambda bk=sbk, i=s0, n=size: bk[i:i + n].copy())
            targets = cluster_targets(b, t, int(da[k]), None if masks is None else int(masks[k]), k)
            writes = []
            for a in targets:
                bk, i0 = span(b, dst_sp, a, size, t, True, k)
                writes.append(writer(bk, i0, size, combine))
            barriers = []
            if bars is not None:
                for a in cluster_targets(b, t, int(bars[k]), None if masks is None else int(masks[k]), k):
                    barriers.append((barrier_place(b, a, t), size))
            issue(b, op, t, read, writes, barriers, bulk_group=completion == ".bulk_group")
    op.run = run


@handler("cp.async.bulk")
def compile_bulk_copy(op, prog):
    _compile_bulk(op, prog, reduce=False)


@handler("cp.reduce.async.bulk")
def compile_bulk_reduce(op, prog):
    _compile_bulk(op, prog, reduce=True)


@handler("cp.async.bulk.prefetch", "cp.async.bulk.prefetch.tensor")
def compile_bulk_prefetch(op, prog):
    # a hint to bring data into L2: no values change. The memory report is told of the plain
    # form's range ([a], size); a tensor prefetch names a tensor-map box, which it is not told.
    ins = op.ins
    ops = ins.operands
    if ins.decoded.name != "cp.async.bulk.prefetch" or len(ops) < 2 or not isinstance(ops[0], Address):
        op.run = lambda b, act: None
        return
    aop = AddressOperand(prog, ops[0], ".global", ins)
    size_src = prog.source(ops[1], ".u32", ins)
    hints = hints_of(ins.decoded)

    def run(b, act):
        tr = b.trace
        if tr is not None:
            tr.record(b, op, "prefetch", ".global", act, aop.values(b, act),
                      size_src(b, act).astype(np.int64), hints, None)
    op.run = run


@handler("cp.async.bulk.commit_group")
def compile_bulk_commit(op, prog):
    def run(b, act):
        copy_state.state(b).bulk_committed[b.threads(act)] += 1
    op.run = run


@handler("cp.async.bulk.wait_group")
def compile_bulk_wait(op, prog):
    newest = immediate_operand(op.ins, "n")

    def run(b, act):
        st = copy_state.peek(b)
        if st is None or not st.bulk:
            return
        for t in b.threads(act):
            keep = newest if st.late else 0
            copy_state.complete_bulk(b, thread=int(t), group_below=int(st.bulk_committed[t]) - keep)
    op.run = run


# ------------------------------------------------------------------------------ st.async, st.bulk

@handler("st.async", "red.async")
def compile_async_store(op, prog):
    """st.async / red.async [addr], value, [mbar] (sm_90): a store (or a reduction) into shared
    memory of a CTA in the cluster that, once performed, signals complete-tx of its bytes on the
    mbarrier (in the same CTA as the destination). Like the bulk copies it lands when a wait on
    that barrier needs it."""
    ins = op.ins
    d = ins.decoded
    ops = list(ins.operands)
    if len(ops) != 3 or not isinstance(ops[0], Address) or not isinstance(ops[2], Address):
        raise CompileError(f"`{ins.opcode}` takes [addr], value, [mbar]")
    t = d.get("type")
    if t is None:
        raise CompileError("no data type")
    count = ld_spec.VECTOR_LENGTH.get(d.get("vec") or "", 1)
    width = ptxtypes.WIDTH[t]
    nbytes = width // 8 * count
    combine = _combiner(d.pick(*ATOM_OPS), t) if d.mnemonic == "red" else None
    if d.mnemonic == "red" and combine is None:
        raise CompileError(f"`{ins.opcode}` needs a reduction operation")
    srcs = [prog.source(x, t, ins) for x in _elements(prog, ins, ops[1], count, "source value(s)")]
    dst = AddressOperand(prog, ops[0], ".shared::cluster", ins)
    mbar = AddressOperand(prog, ops[2], ".shared::cluster", ins)
    what = d.name

    def run(b, act):
        tids = b.threads(act)
        n = len(tids)
        da, ma = dst.values(b, act), mbar.values(b, act)
        _misaligned(da, nbytes, ".shared::cluster", what + " destination")
        vals = np.empty((n, count), ptxtypes.UINT[width])
        for k, s in enumerate(srcs):
            vals[:, k] = s(b, act)
        data = vals.view(np.uint8).reshape(n, nbytes)
        for k, tid in enumerate(tids):
            tid = int(tid)
            bk, i0 = span(b, ".shared::cluster", int(da[k]), nbytes, tid, True, k)
            row = data[k].copy()
            issue(b, op, tid, lambda r=row: r, [writer(bk, i0, nbytes, combine)],
                  [(barrier_place(b, int(ma[k]), tid), nbytes)], bulk_group=False)
    op.run = run


@handler("st.bulk")
def compile_bulk_store(op, prog):
    """st.bulk{.weak}{.shared::cta} [a], size, initval (sm_100): sets `size` bytes from `a` to
    the initial value, which the PTX ISA allows to be 0 only; a and size are multiples of 8."""
    ins = op.ins
    ops = list(ins.operands)
    if len(ops) != 3 or not isinstance(ops[0], Address):
        raise CompileError("st.bulk takes [a], size, initval")
    if not isinstance(ops[2], Int) or ops[2].value != 0:
        raise CompileError("st.bulk initval must be the immediate 0")
    space = _space(ins.decoded.get("space")) or "generic"
    aop = AddressOperand(prog, ops[0], space, ins)
    size_src = prog.source(ops[1], ".u64", ins)

    def run(b, act):
        tids = b.threads(act)
        addrs = aop.values(b, act)
        sizes = size_src(b, act).astype(np.uint64)
        _misaligned(addrs, 8, space, "st.bulk address")
        for k, tid in enumerate(tids):
            size = int(sizes[k])
            if size % 8:
                raise Fault(errors.AsyncCopyError, k, int(addrs[k]), space,
                            f"st.bulk size {size} is not a multiple of 8 bytes", "a size that is a multiple of 8")
            if size:
                bk, i0 = span(b, space, int(addrs[k]), size, int(tid), True, k)
                bk[i0:i0 + size] = 0
    op.run = run
