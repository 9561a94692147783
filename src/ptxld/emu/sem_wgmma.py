"""Warpgroup-level matrix multiply-accumulate (sm_90a): wgmma.fence, wgmma.mma_async,
wgmma.commit_group, wgmma.wait_group.

Execution policy (the ISA makes the result visible only after `wgmma.wait_group`, and leaves
undefined any access to the operand registers before then):

* `wgmma.mma_async` is computed when it issues: B (and A, when given by a descriptor) is read
  from shared memory at that moment, and D is written at once. A correct program — one that
  neither writes shared memory under an operation in flight nor touches its registers before the
  wait — cannot tell this from a later completion. Chained operations on the same accumulators
  (several mma_async before one wait, as every K loop does) see each other's results in order,
  as the ISA guarantees.
* The operand registers (D, and A when in registers) of every operation in flight are watched:
  `wgmma.wait_group N` checks that each register of the groups it retires still holds what the
  operation left there, and reports an `AsyncRegisterError` naming the mma_async (file:line),
  the thread and the register otherwise. Reads before the wait are not detected (they see the
  result early).
* A warpgroup is four consecutive warps of a CTA starting at a multiple of four; each warp
  computes its own 16 rows of D (rows 16w..16w+15 depend only on its A rows and on B), so the
  warps of a group need not arrive together. Every lane of each warp must execute the
  instruction (`.sync.aligned`), and the warpgroup must be complete.

Descriptors and the shared-memory layouts they describe: `ptxld.spec.mma.Descriptor` and
`operand_addresses` (swizzle from `ptxld.spec.swizzle`). Arithmetic: `ptxld.wmma.mma_math`.
"""
from __future__ import annotations

import numpy as np

from ..ptx.nodes import Int, Vector
from ..spec import mma as S
from ..wmma import matrix as L
from ..wmma import mma_math
from . import errors as E
from .handlers import CompileError, handler
from .memory import Fault, gather
from .sem_matrix import fragment_regs, read_regs, warp_collective, write_regs

_FLOAT16 = ("f16", "bf16")
_ELEM_BYTES = {"f16": 2, "bf16": 2, "tf32": 4, "e4m3": 1, "e5m2": 1, "s8": 1, "u8": 1, "b1": 1}


class _WarpState:
    """Operations in flight for one warp: register slot -> (record id, expected bits), the ids
    not yet committed, and the committed groups (oldest first)."""
    __slots__ = ("watch", "uncommitted", "groups", "issued")

    def __init__(self):
        self.issued = 0
        self.watch: dict[int, tuple[int, np.ndarray, object, str]] = {}
        self.uncommitted: list[int] = []
        self.groups: list[list[int]] = []


def _state(b, lanes) -> _WarpState:
    table = b.__dict__.setdefault("wgmma_inflight", {})
    key = int(lanes[0]) >> 5
    st = table.get(key)
    if st is None:
        st = table[key] = _WarpState()
    return st


def _warp_in_group(b, op, lanes) -> int:
    """Index of this warp in its warpgroup; the warpgroup must be complete in the CTA."""
    local = int(lanes[0]) % b.spc
    warp = local >> 5
    nthreads = int(np.prod(b.block))
    if (warp - warp % 4) * 32 + 128 > nthreads:
        raise b.error(E.WarpSyncError, op, int(lanes[0]),
                      f"`{op.ins.mnemonic}` by warp {warp} of a CTA of {nthreads} threads: its "
                      "warpgroup (four consecutive warps from a multiple of four) is incomplete",
                      "a CTA whose threads fill every warpgroup that executes wgmma")
    return warp % 4


def _uniform(b, op, values, lanes, what: str) -> int:
    if (values != values[0]).any():
        k = int(np.flatnonzero(values != values[0])[0])
        raise b.error(E.WarpSyncError, op, int(lanes[k]),
                      f"`wgmma.mma_async`: lane {k} gives another {what} ({int(values[k]):#x}) "
                      f"than lane 0 ({int(values[0]):#x})", f"the same {what} in every lane")
    return int(values[0])


def _names(node, count: int) -> list[str]:
    items = node.items if isinstance(node, Vector) else [node] * count
    return [getattr(x, "name", "?") for x in items]


def _const(node, what: str) -> int:
    if not isinstance(node, Int):
        raise CompileError(f"wgmma.mma_async: {what} must be an immediate")
    return int(node.value)


@handler("wgmma.fence")
def compile_wgmma_fence(op, prog):
    # orders register accesses before the next mma_async; the emulator executes in order
    warp_collective(op, lambda b, act: None)


@handler("wgmma.commit_group")
def compile_wgmma_commit(op, prog):
    def body(b, act):
        t = b.threads(act)
        for w0 in range(0, len(t), 32):
            st = _state(b, t[w0:w0 + 32])
            st.groups.append(st.uncommitted)
            st.uncommitted = []
    warp_collective(op, body)


@handler("wgmma.wait_group")
def compile_wgmma_wait(op, prog):
    ops = list(op.ins.operands)
    keep = _const(ops[0], "the group count N") if ops else 0

    def body(b, act):
        t = b.threads(act)
        for w0 in range(0, len(t), 32):
            lanes = t[w0:w0 + 32]
            st = _state(b, lanes)
            while len(st.groups) > keep:
                retired = set(st.groups.pop(0))
                for slot in [s for s, v in st.watch.items() if v[0] in retired]:
                    _, expected, issue, name = st.watch.pop(slot)
                    now = read_regs(b, [slot], lanes)[:, 0]
                    bad = now != expected
                    if bad.any():
                        k = int(np.flatnonzero(bad)[0])
                        raise b.error(E.AsyncRegisterError, issue, int(lanes[k]),
                                      f"register `{name}` of this wgmma.mma_async was written "
                                      f"before the `wgmma.wait_group` at line {op.line} that "
                                      "waits for it", "no access to the operation's registers "
                                      "until wgmma.wait_group", others=int(bad.sum()) - 1)
    warp_collective(op, body)


class _Operand:
    """How one instruction reads A or B from shared memory."""

    def __init__(self, name: str, rows: int, k: int, atype: str, k_major: bool):
        self.name, self.rows, self.k, self.type, self.k_major = name, rows, k, atype, k_major
        e = _ELEM_BYTES[atype]
        self.kbytes = k // 8 if atype == "b1" else k * e
        self.elem_bytes = e

    def read(self, b, op, desc: S.Descriptor, first_row: int, nrows: int, lane0: int) -> np.ndarray:
        """Element bits (nrows, k) of rows first_row.. of the operand."""
        mn = np.arange(first_row, first_row + nrows, dtype=np.int64)[:, None]
        kb = np.arange(self.kbytes, dtype=np.int64)[None, :]
        addrs = S.operand_addresses(desc, mn, kb, k_major=self.k_major, elem_bytes=self.elem_bytes)
        flat = np.asarray(addrs, np.int64).reshape(-1)
        tids = np.full(flat.shape, lane0, np.intp)
        try:
            if (flat < 0).any():
                raise Fault(E.OutOfBoundsError, int(np.flatnonzero(flat < 0)[0]), 0, ".shared",
                            "negative shared address", "")
            parts = b.sp.resolve(".shared", flat.astype(np.uint64), 1, tids, False)
        except Fault as f:
            raise b.error(E.OutOfBoundsError, op, lane0,
                          f"`wgmma.mma_async` matrix {self.name} ({desc}) reaches shared address "
                          f"{int(flat[min(f.pos, len(flat) - 1)]):#x}: {f.message}",
                          "a descriptor whose matrix lies in the CTA's shared memory",
                          space=".shared", address=int(flat[min(f.pos, len(flat) - 1)])) from None
        raw = gather(parts, len(flat), 8, 1).reshape(nrows, self.kbytes)
        if self.type == "b1":
            return np.unpackbits(raw, axis=1, bitorder="little").astype(np.uint64)
        width = {1: np.uint8, 2: np.uint16, 4: np.uint32}[self.elem_bytes]
        return np.ascontiguousarray(raw).view(width).astype(np.uint64)


@handler("wgmma.mma_async")
def compile_wgmma_mma(op, prog):
    ins, d = op.ins, op.ins.decoded
    if d.name != "wgmma.mma_async" or d.others:
        raise CompileError(f"`{ins.opcode}` is not executed (sparse wgmma is not supported yet)")
    shape, atype, btype, dtype = (d.get(g)[1:] if d.get(g) else None
                                  for g in ("shape", "atype", "btype", "dtype"))
    m, n, k = S.shape_mnk(shape)
    if S.WGMMA_K.get(atype) != k or dtype not in S.WGMMA_ACC.get(atype, ()) \
            or n not in S.wgmma_n_values(atype):
        raise CompileError(f"`{ins.opcode}`: no such wgmma.mma_async form")
    lays = L.wgmma_layouts(n, atype, dtype)
    ops = list(ins.operands)
    a_in_regs = isinstance(ops[1], Vector)
    dslots = fragment_regs(prog, ops[0], ins, lays["d"].nregs, "wgmma.mma_async D")
    dnames = _names(ops[0], len(dslots))
    aslots = fragment_regs(prog, ops[1], ins, lays["a"].nregs, "wgmma.mma_async A") if a_in_regs else None
    anames = _names(ops[1], len(aslots)) if a_in_regs else []
    a_desc = None if a_in_regs else prog.source(ops[1], ".b64", ins)
    b_desc = prog.source(ops[2], ".b64", ins)
    rest = ops[3:]
    integer = atype in ("s8", "u8", "b1")
    n_imm = 0 if integer else (2 if atype not in _FLOAT16 else (3 if a_in_regs else 4))
    if len(rest) != 1 + n_imm:
        raise CompileError(f"wgmma.mma_async .{atype} with A in {'registers' if a_in_regs else 'shared memory'} "
                           f"takes scale-d and {n_imm} immediate(s) after the descriptors")
    scale_d = (lambda b, act, v=_const(rest[0], "scale-d"): np.full(b.count(act), bool(v))) \
        if isinstance(rest[0], Int) else prog.source(rest[0], ".pred", ins)
    imms = [_const(x, "imm-scale/imm-trans") for x in rest[1:]]
    neg_a = imms[0] == -1 if imms else False
    neg_b = imms[1] == -1 if len(imms) > 1 else False
    trans_a = bool(imms[3]) if len(imms) == 4 else False
    trans_b = bool(imms[-1]) if atype in _FLOAT16 else False
    if any(v not in (1, -1) for v in imms[:2]) or any(v not in (0, 1) for v in imms[2:]):
        raise CompileError("wgmma.mma_async: imm-scale must be 1 or -1, imm-trans 0 or 1")
    a_op = _Operand("A", 64, k, atype, not trans_a)
    b_op = _Operand("B", n, k, btype, not trans_b)
    dl, al = lays["d"], lays["a"]
    opts = dict(atype=atype, btype=btype, ctype=dtype, dtype=dtype,
                op="and.popc" if atype == "b1" else None, satfinite=d.get("satfinite") is not None)

    def body(b, act):
        t = b.threads(act)
        descs_b = b_desc(b, act)
        descs_a = a_desc(b, act) if a_desc is not None else None
        accumulate = scale_d(b, act)
        for w0 in range(0, len(t), 32):
            lanes = t[w0:w0 + 32]
            w = _warp_in_group(b, op, lanes)
            lane0 = int(lanes[0])
            rows = slice(32 * w, 32 * w + 32)
            bmat = b_op.read(b, op, S.Descriptor(_uniform(b, op, descs_b[w0:w0 + 32], lanes, "B descriptor")),
                             0, n, lane0)
            if descs_a is not None:
                desc = S.Descriptor(_uniform(b, op, descs_a[w0:w0 + 32], lanes, "A descriptor"))
                amat = a_op.read(b, op, desc, 16 * w, 16, lane0)
            else:
                full = np.zeros((64, k), np.uint64)
                vals = L.unpack(read_regs(b, aslots, lanes), al.frag)
                full[al.rows[rows], al.cols[rows]] = vals
                amat = full[16 * w:16 * w + 16]
            if _uniform(b, op, accumulate[w0:w0 + 32].astype(np.int64), lanes, "scale-d"):
                cfull = np.zeros((64, n), np.uint64)
                cfull[dl.rows[rows], dl.cols[rows]] = L.unpack(read_regs(b, dslots, lanes), dl.frag)
                c = cfull[16 * w:16 * w + 16]
            else:
                c = np.zeros((16, n), np.uint64)
            out = mma_math.product(amat, bmat.T, c, negate_a=neg_a, negate_b=neg_b, **opts)
            dfull = np.zeros((64, n), np.uint64)
            dfull[16 * w:16 * w + 16] = out
            regs = L.pack(dfull[dl.rows[rows], dl.cols[rows]], dl.frag)
            write_regs(b, dslots, lanes, regs)
            st = _state(b, lanes)
            st.issued += 1
            rid = st.issued
            st.uncommitted.append(rid)
            now_d = read_regs(b, dslots, lanes)
            for j, s in enumerate(dslots):
                st.watch[s] = (rid, now_d[:, j].copy(), op, dnames[j])
            if aslots is not None:
                now_a = read_regs(b, aslots, lanes)
                for j, s in enumerate(aslots):
                    if s not in st.watch or st.watch[s][0] != rid:
                        st.watch[s] = (rid, now_a[:, j].copy(), op, anames[j])
    warp_collective(op, body)
