"""Warpgroup-level matrix multiply-accumulate (sm_90a): wgmma.fence, wgmma.mma_async (dense and
sparse, `.sp`), wgmma.commit_group, wgmma.wait_group.

Execution policy (the ISA makes the result visible only after `wgmma.wait_group`, and leaves
undefined any access to the operand registers before then):

* `wgmma.mma_async` is computed when it issues: B (and A, when given by a descriptor) is read
  from shared memory at that moment, and D is written at once. A correct program — one that
  neither writes shared memory under an operation in flight nor touches its registers before the
  wait — cannot tell this from a later completion. Chained operations on the same accumulators
  (several mma_async before one wait, as every K loop does) see each other's results in order,
  as the ISA guarantees.
* The operand registers (D, and A when in registers) of every operation in flight are watched.
  Any other instruction that names one of them (reads or writes it) checks, before it runs,
  that no operation is in flight on it for its threads, and reports an `AsyncRegisterError`
  there (its file:line, the thread, the register, the mma_async's line) otherwise; the check
  is compiled only into the instructions that name such a register. `wgmma.wait_group N` also
  checks that each register of the groups it retires still holds what the operation left
  there (a write the static watch cannot see).
* A warpgroup is four consecutive warps of a CTA starting at a multiple of four; each warp
  computes its own 16 rows of D (rows 16w..16w+15 depend only on its A rows and on B), so the
  warps of a group need not arrive together. Every lane of each warp must execute the
  instruction (`.sync.aligned`), and the warpgroup must be complete.

Sparse A (`wgmma.mma_async.sp`): A arrives compressed (64 × K/2, in the dense instruction's
register fragment or shared-memory layout) and is expanded with the metadata operand
(`ptxld.spec.mma.WGMMA_SPARSE`, layout `ptxld.wmma.matrix.wgmma_sparse_metadata_layout`); a
metadata field the ISA calls invalid is reported instead of computing an undefined result.

Descriptors and the shared-memory layouts they describe: `ptxld.spec.mma.Descriptor` and
`operand_addresses` (swizzle from `ptxld.spec.swizzle`). Arithmetic: `ptxld.wmma.mma_math`.
"""
from __future__ import annotations

import numpy as np

from ..ptx.nodes import Int, Vector
from ..spec import mma as mma_spec
from ..spec.swizzle import SPAN as SWIZZLE_SPAN
from ..wmma import matrix as matrix_layouts
from ..wmma import mma_math
from . import errors
from .handlers import CompileError, handler, immediate_operand
from .wgmma_inflight import RING, inflight
from .wgmma_sparse import SparseA, immediate
from .memory import Fault, gather
from .sem_matrix import fragment_regs, read_regs, warp_collective, write_regs

_FLOAT16 = ("f16", "bf16")
_ELEM_BYTES = {"f16": 2, "bf16": 2, "tf32": 4, "e4m3": 1, "e5m2": 1, "s8": 1, "u8": 1, "b1": 1}


def _warp_in_group(b, op, t) -> np.ndarray:
    """Index in its warpgroup of each warp (one entry per warp of the sorted thread array t);
    every warpgroup must be complete in its CTA."""
    local = t[::32] % b.spc
    warp = local >> 5
    nthreads = int(np.prod(b.block))
    bad = (warp - warp % 4) * 32 + 128 > nthreads
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise b.error(errors.WarpSyncError, op, int(t[32 * k]),
                      f"`{op.ins.mnemonic}` by warp {int(warp[k])} of a CTA of {nthreads} threads: "
                      "its warpgroup (four consecutive warps from a multiple of four) is incomplete",
                      "a CTA whose threads fill every warpgroup that executes wgmma")
    return warp % 4


def _per_warp(b, op, t, values, what: str) -> np.ndarray:
    """One value per warp; every lane of a warp must give the same."""
    v = np.asarray(values).reshape(-1, 32)
    bad = (v != v[:, :1]).any(axis=1)
    if bad.any():
        w = int(np.flatnonzero(bad)[0])
        k = int(np.flatnonzero(v[w] != v[w, 0])[0])
        raise b.error(errors.WarpSyncError, op, int(t[32 * w + k]),
                      f"`wgmma.mma_async`: lane {k} gives another {what} ({int(v[w, k]):#x}) "
                      f"than lane 0 ({int(v[w, 0]):#x})", f"the same {what} in every lane")
    return v[:, 0]


def _names(node, count: int) -> list[str]:
    items = node.items if isinstance(node, Vector) else [node] * count
    return [getattr(x, "name", "?") for x in items]


@handler("wgmma.fence")
def compile_wgmma_fence(op, prog):
    # orders register accesses before the next mma_async; the emulator executes in order
    warp_collective(op, lambda b, act: None)


@handler("wgmma.commit_group")
def compile_wgmma_commit(op, prog):
    def body(b, act):
        t = b.threads(act)
        st = inflight(b)
        st.ring[t, st.ncommit[t] % RING] = st.issued[t]
        st.ncommit[t] += 1
    warp_collective(op, body)


@handler("wgmma.wait_group")
def compile_wgmma_wait(op, prog):
    keep = immediate_operand(op.ins, "n")
    if not 0 <= keep < RING:
        raise CompileError(f"wgmma.wait_group {keep}: ptxld follows at most {RING - 1} pending groups")

    def body(b, act):
        t = b.threads(act)
        st = inflight(b)
        newest = st.ncommit[t] - 1 - keep              # the newest group that must be complete
        done = np.where(newest >= 0, st.ring[t, newest % RING], 0)
        for slot, (issue, bits, issuer, name) in st.watch.items():
            retire = (issue[t] > 0) & (issue[t] <= done)
            if not retire.any():
                continue
            tt = t[retire]
            now = read_regs(b, [slot], tt)[:, 0].astype(bits.dtype)
            bad = now != bits[tt]
            if bad.any():
                k = int(np.flatnonzero(bad)[0])
                raise b.error(errors.AsyncRegisterError, issuer, int(tt[k]),
                              f"register `{name}` of this wgmma.mma_async was written before the "
                              f"`wgmma.wait_group` at line {op.line} that waits for it",
                              "no access to the operation's registers until wgmma.wait_group",
                              others=int(bad.sum()) - 1)
            issue[tt] = 0
    warp_collective(op, body)


class _Operand:
    """How one instruction reads A or B from shared memory."""

    def __init__(self, name: str, rows: int, k: int, atype: str, k_major: bool):
        self.name, self.rows, self.k, self.type, self.k_major = name, rows, k, atype, k_major
        e = _ELEM_BYTES[atype]
        self.kbytes = k // 8 if atype == "b1" else k * e
        self.elem_bytes = e

    def read(self, b, op, raw_desc: np.ndarray, mn: np.ndarray, lane0: np.ndarray) -> np.ndarray:
        """Element bits (warps, rows, k): per warp its descriptor, its rows `mn` (warps, rows)
        and a thread of its CTA (lane0)."""
        out = np.empty(mn.shape + (self.kbytes,), np.uint8)
        kb = np.arange(self.kbytes, dtype=np.int64)
        for raw in np.unique(raw_desc):
            sel = np.flatnonzero(raw_desc == raw)
            desc = mma_spec.Descriptor(int(raw))
            span = SWIZZLE_SPAN[desc.swizzle]
            if self.k_major and span and self.kbytes > span:
                # only sparse B (64 bytes of K) can exceed a 32-byte swizzle atom; where its
                # second atom lies is not specified by the descriptor fields ptxld knows
                raise b.error(errors.UnsupportedInstructionError, op, int(lane0[sel[0]]),
                              f"`{op.ins.mnemonic}` matrix {self.name} ({desc}): {self.kbytes} bytes "
                              f"of K per row do not fit one {span}-byte swizzle row (K-major)",
                              "a wider swizzle, no swizzle, or an MN-major matrix")
            addrs = mma_spec.operand_addresses(desc, mn[sel][..., None], kb, k_major=self.k_major,
                                        elem_bytes=self.elem_bytes)
            flat = np.asarray(addrs, np.int64).reshape(-1)
            tids = np.repeat(lane0[sel], addrs.shape[1] * self.kbytes)
            try:
                if (flat < 0).any():
                    raise Fault(errors.OutOfBoundsError, int(np.flatnonzero(flat < 0)[0]), 0, ".shared",
                                "a negative shared address", "")
                parts = b.sp.resolve(".shared", flat.astype(np.uint64), 1, tids, False)
            except Fault as f:
                pos = min(f.pos, len(flat) - 1)
                raise b.error(errors.OutOfBoundsError, op, int(tids[pos]),
                              f"`wgmma.mma_async` matrix {self.name} ({desc}) reaches shared address "
                              f"{int(flat[pos]):#x}: {f.message}",
                              "a descriptor whose matrix lies in the CTA's shared memory",
                              space=".shared", address=int(flat[pos])) from None
            out[sel] = gather(parts, len(flat), 8, 1).reshape(len(sel), mn.shape[1], self.kbytes)
        if self.type == "b1":
            return np.unpackbits(out, axis=-1, bitorder="little").astype(np.uint64)
        width = {1: np.uint8, 2: np.uint16, 4: np.uint32}[self.elem_bytes]
        return np.ascontiguousarray(out).view(width).astype(np.uint64)


@handler("wgmma.mma_async", "wgmma.mma_async.sp")
def compile_wgmma_mma(op, prog):
    ins, d = op.ins, op.ins.decoded
    sparse = d.name == "wgmma.mma_async.sp"
    if d.name not in ("wgmma.mma_async", "wgmma.mma_async.sp") or d.others:
        raise CompileError(f"`{ins.opcode}` is not executed")
    shape, atype, btype, dtype = (d.get(g)[1:] if d.get(g) else None
                                  for g in ("shape", "atype", "btype", "dtype"))
    m, n, k = mma_spec.shape_mnk(shape)
    form = mma_spec.WGMMA_SPARSE.get(atype) if sparse else None
    k_dense = mma_spec.WGMMA_K.get(atype)
    if (sparse and (form is None or form.k != k)) or (not sparse and k_dense != k) \
            or dtype not in mma_spec.WGMMA_ACC.get(atype, ()) or n not in mma_spec.wgmma_n_values(atype):
        raise CompileError(f"`{ins.opcode}`: no such {d.name} form")
    lays = (matrix_layouts.wgmma_sparse_layouts if sparse else matrix_layouts.wgmma_layouts)(n, atype, dtype)
    ops = list(ins.operands)
    a_in_regs = isinstance(ops[1], Vector)
    dslots = fragment_regs(prog, ops[0], ins, lays["d"].nregs, f"{d.name} D")
    dnames = _names(ops[0], len(dslots))
    aslots = fragment_regs(prog, ops[1], ins, lays["a"].nregs, f"{d.name} A") if a_in_regs else None
    anames = _names(ops[1], len(aslots)) if a_in_regs else []
    a_desc = None if a_in_regs else prog.source(ops[1], ".b64", ins)
    b_desc = prog.source(ops[2], ".b64", ins)
    op.info["wgmma_registers"] = frozenset(dslots + (aslots or []))     # watched while in flight
    rest = ops[3:]
    sparsity = None
    if sparse:
        if len(rest) < 2:
            raise CompileError("wgmma.mma_async.sp takes the metadata and the sparsity selector "
                               "after the descriptors")
        sparsity = SparseA(op, prog, form, rest[0], rest[1])
        rest = rest[2:]
    integer = atype in ("s8", "u8", "b1")
    n_imm = 0 if integer else (2 if atype not in _FLOAT16 else (3 if a_in_regs else 4))
    if len(rest) != 1 + n_imm:
        raise CompileError(f"{d.name} .{atype} with A in {'registers' if a_in_regs else 'shared memory'} "
                           f"takes scale-d and {n_imm} immediate(s) after the "
                           f"{'sparsity selector' if sparse else 'descriptors'}")
    scale_d = (lambda b, act, v=immediate(rest[0], "scale-d"): np.full(b.count(act), bool(v))) \
        if isinstance(rest[0], Int) else prog.source(rest[0], ".pred", ins)
    imms = [immediate(x, "imm-scale/imm-trans") for x in rest[1:]]
    neg_a = imms[0] == -1 if imms else False
    neg_b = imms[1] == -1 if len(imms) > 1 else False
    trans_a = bool(imms[3]) if len(imms) == 4 else False
    trans_b = bool(imms[-1]) if atype in _FLOAT16 else False
    if any(v not in (1, -1) for v in imms[:2]) or any(v not in (0, 1) for v in imms[2:]):
        raise CompileError("wgmma.mma_async: imm-scale must be 1 or -1, imm-trans 0 or 1")
    a_op = _Operand("A", 64, k_dense, atype, not trans_a)        # compressed A: the dense K
    b_op = _Operand("B", n, k, btype, not trans_b)
    dl, al = lays["d"], lays["a"]
    opts = dict(atype=atype, btype=btype, ctype=dtype, dtype=dtype,
                op="and.popc" if atype == "b1" else None, satfinite=d.get("satfinite") is not None)

    def body(b, act):
        t = b.threads(act)
        nw = len(t) // 32
        wig = _warp_in_group(b, op, t)
        lane0 = t[::32]
        thread_in_group = (32 * wig)[:, None] + np.arange(32)          # (warps, 32)
        my_rows = (16 * wig)[:, None] + np.arange(16)                   # (warps, 16)
        warp_ix = np.arange(nw)[:, None]
        bmat = b_op.read(b, op, _per_warp(b, op, t, b_desc(b, act), "B descriptor"),
                         np.broadcast_to(np.arange(n), (nw, n)), lane0)
        if a_desc is not None:
            amat = a_op.read(b, op, _per_warp(b, op, t, a_desc(b, act), "A descriptor"), my_rows, lane0)
        else:
            full = np.zeros((nw, 64, k_dense), np.uint64)
            vals = matrix_layouts.unpack(read_regs(b, aslots, t), al.frag).reshape((nw, 32) + al.rows.shape[1:])
            full[warp_ix[..., None, None], al.rows[thread_in_group], al.cols[thread_in_group]] = vals
            amat = full[warp_ix, my_rows]
        if sparsity is not None:
            amat = sparsity.expand(b, act, t, wig, amat)
        accumulate = _per_warp(b, op, t, scale_d(b, act).astype(np.int64), "scale-d").astype(bool)
        drows, dcols = dl.rows[thread_in_group], dl.cols[thread_in_group]   # (warps, 32, regs, slots)
        cfull = np.zeros((nw, 64, n), np.uint64)
        if accumulate.any():
            vals = matrix_layouts.unpack(read_regs(b, dslots, t), dl.frag).reshape((nw, 32) + dl.rows.shape[1:])
            cfull[warp_ix[..., None, None], drows, dcols] = vals
            cfull[~accumulate] = 0
        c = cfull[warp_ix, my_rows]
        out = mma_math.product(amat, np.swapaxes(bmat, -1, -2), c, negate_a=neg_a, negate_b=neg_b, **opts)
        dfull = np.zeros((nw, 64, n), np.uint64)
        dfull[warp_ix, my_rows] = out
        dvals = dfull[warp_ix[..., None, None], drows, dcols].reshape((len(t),) + dl.rows.shape[1:])
        regs = matrix_layouts.pack(dvals, dl.frag)
        write_regs(b, dslots, t, regs)
        st = inflight(b)
        st.issued[t] += 1
        for j, slot in enumerate(dslots):
            st.note(slot, t, regs[:, j], op, dnames[j])
        if aslots is not None:
            now_a = read_regs(b, aslots, t)
            for j, slot in enumerate(aslots):
                if slot not in dslots:
                    st.note(slot, t, now_a[:, j], op, anames[j])
    warp_collective(op, body)
