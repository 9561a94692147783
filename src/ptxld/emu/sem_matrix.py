"""Warp-level matrix instructions: ldmatrix, stmatrix, movmatrix and mma.sync.

Each is executed by whole warps: like every `.sync.aligned` instruction it waits until all 32
lanes of the warp reach it, and a lane that has exited — or does not exist, in a CTA whose size
is not a multiple of 32 — is reported (`WarpSyncError`) instead of computing a partial result.
Fragment layouts and arithmetic come from `ptxld.wmma.matrix` / `ptxld.wmma.mma_math` (the data
of `ptxld.spec.mma`).

ldmatrix/stmatrix: lane R·j + r supplies the address of row r of matrix j, R the rows one matrix
spans in memory (8, or 16 for ldmatrix .m16n16; lanes past the matrices' rows supply nothing);
each row is 16 bytes and must be 16-byte aligned, in shared memory (the `.shared` space, or a
generic address in the shared window). The forms and their fragments are `spec.matrix_form`.
"""
from __future__ import annotations

import numpy as np

from ..ptx.nodes import Address, Int
from ..spec import mma as mma_spec
from ..wmma import matrix as matrix_layouts
from ..wmma import mma_math
from . import errors
from . import ptxtypes
from .handlers import CompileError, handler, stall_resolver
from .trace import NO_HINTS
from .memory import Fault, gather, scatter
from .sem_mem import AddressOperand
from .sem_warp import gated

_SHARED_WINDOW = 3          # memory.Spaces.window code of the shared window


def full_warp(b, act):
    return np.full(b.count(act), 0xFFFFFFFF, np.uint32)


def warp_collective(op, body):
    """Run `body(b, act)` once all 32 lanes of each warp have arrived (see module docstring)."""
    op.info["whole_warp"] = True
    gated(op, full_warp, body)


@stall_resolver(order=0)
def _partial_warp_on_stall(b) -> bool:
    """Lanes parked at a whole-warp matrix instruction while others of their warp have exited:
    the instruction was executed by a partial warp."""
    for pc, t in b.warp_wait.items():
        op = b.prog.code[pc]
        if not op.info.get("whole_warp"):
            continue
        warp = int(t[0]) >> 5
        lanes = np.arange(32) + warp * 32
        gone = np.flatnonzero(b.exited[lanes])
        if len(gone):
            raise b.error(errors.WarpSyncError, op, int(t[0]),
                          f"`{op.ins.mnemonic}` executed by a partial warp: lane(s) "
                          f"{', '.join(map(str, gone[:8]))}{' ...' if len(gone) > 8 else ''} of the "
                          "warp have exited (or do not exist: the CTA is not a whole number of "
                          "warps)", "all 32 lanes of the warp to execute it",
                          others=len(t) - 1)
    return False


def fragment_regs(prog, node, ins, count: int, what: str) -> list[int]:
    """Register slots of a brace-list (or vector register) operand of `count` registers."""
    regs = prog.vector_regs(node, ins)
    if len(regs) != count or any(r is None for r in regs):
        raise CompileError(f"{what} needs {count} register(s), found {len(regs)}")
    return [s for s, _ in regs]


def read_regs(b, slots, lanes) -> np.ndarray:
    """(len(lanes), len(slots)) raw register bits, as unsigned integers."""
    cols = [b.rd(s, lanes) for s in slots]
    out = np.stack(cols, axis=1)
    if out.dtype.kind != "u":
        out = out.view(np.dtype(f"u{out.dtype.itemsize}"))
    return out


def write_regs(b, slots, lanes, values: np.ndarray) -> None:
    """Write column k of `values` (raw bits) to register slots[k] of `lanes`."""
    for k, s in enumerate(slots):
        b.wr(s, lanes, values[:, k].astype(ptxtypes.UINT[b.slot_width[s]]))


def fault_error(b, op, f: Fault, threads):
    """A memory Fault raised for `threads` (positions into that array) as an EmulationError."""
    t = int(threads[min(f.pos, len(threads) - 1)])
    return b.error(f.cls, op, t, f.message, f.expected, space=f.space, address=f.address,
                   others=max(0, f.count - 1))


# ---------------------------------------------------------------- ldmatrix / stmatrix

class _RowAccess:
    """The row addresses of ldmatrix/stmatrix: compiled address operand, space, checks."""

    def __init__(self, op, prog, addr_node, d, rows_per_matrix: int = 8):
        if not isinstance(addr_node, Address):
            raise CompileError(f"`{op.ins.mnemonic}` needs an address operand `[p]`")
        self.op = op
        self.rows_per_matrix = rows_per_matrix
        self.space = d.get("ss") or "generic"
        self.aop = AddressOperand(prog, addr_node, self.space, op.ins)

    def rows(self, b, act, t, nrows: int):
        """(addresses, threads) of the rows every warp names (lanes 0..nrows-1 of each warp, warp
        after warp); checks alignment and the space."""
        addrs = self.aop.values(b, act).reshape(-1, 32)[:, :nrows].reshape(-1)
        threads = t.reshape(-1, 32)[:, :nrows].reshape(-1)
        bad = (addrs & np.uint64(mma_spec.ROW_BYTES - 1)) != 0
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            lane = int(threads[k]) & 31
            raise b.error(errors.MisalignedAddressError, self.op, int(threads[k]),
                          f"`{self.op.ins.mnemonic}` row address of lane {lane} (row "
                          f"{lane % self.rows_per_matrix} of matrix {lane // self.rows_per_matrix}) "
                          "is not 16-byte aligned",
                          "a 16-byte aligned address for each 16-byte matrix row",
                          space=self.space, address=int(addrs[k]), others=int(bad.sum()) - 1)
        if self.space == "generic":
            win = b.sp.window(addrs)
            if (win != _SHARED_WINDOW).any():
                k = int(np.flatnonzero(win != _SHARED_WINDOW)[0])
                raise b.error(errors.GenericAddressError, self.op, int(threads[k]),
                              f"`{self.op.ins.mnemonic}` row address of lane {int(threads[k]) & 31} "
                              "is not in the shared window", "a generic address of shared memory",
                              space="generic", address=int(addrs[k]))
        return addrs, threads

    def resolve(self, b, addrs, threads, write: bool):
        try:
            return b.sp.resolve(self.space, addrs, mma_spec.ROW_BYTES, threads, write)
        except Fault as f:
            raise fault_error(b, self.op, f, threads) from None


def _matrix_form(d, name):
    """(form, layout) of the ldmatrix/stmatrix qualifiers decoded in `d` (spec.matrix_form)."""
    def q(group):
        v = d.get(group)
        return v[1:] if v else None
    try:
        return matrix_layouts.matrix_form_layout(name, q("shape"), mma_spec.COUNTS[d.get("num")],
                                                 d.get("trans") is not None, q("type"), q("src_fmt"))
    except KeyError as e:
        raise CompileError(str(e.args[0])) from None


def _unpack_rows(rows: np.ndarray, bits: int) -> np.ndarray:
    """(n, 16) row bytes -> (n, 16) elements of `bits` each packed from bit 0 up (the padding
    above them dropped), in their 8-bit containers (spec.PACKED_CONTAINER_SHIFT)."""
    flat = np.unpackbits(rows.astype(np.uint8), axis=1, bitorder="little")[:, :16 * bits]
    weights = (1 << np.arange(bits)).astype(np.uint64)
    values = flat.reshape(len(rows), 16, bits).astype(np.uint64) @ weights
    return values << np.uint64(mma_spec.PACKED_CONTAINER_SHIFT)


def _read_rows(parts, n: int, form) -> np.ndarray:
    """(n, elements per row) of the rows read: b16 or b8 elements, or unpacked `.b8x16`."""
    ebits = form.frag.element_bits
    if form.packed_bits == ebits:
        return gather(parts, n, ebits, mma_spec.ROW_BYTES * 8 // ebits).astype(np.uint64)
    return _unpack_rows(gather(parts, n, 8, mma_spec.ROW_BYTES), form.packed_bits)


@handler("ldmatrix")
def compile_ldmatrix(op, prog):
    ins, d = op.ins, op.ins.decoded
    form, lay = _matrix_form(d, "ldmatrix")
    ops = list(ins.operands)
    dest = fragment_regs(prog, ops[0], ins, lay.nregs, "ldmatrix")
    rows = _RowAccess(op, prog, ops[1], d, form.rows_per_matrix)
    nrows = form.nrows

    def body(b, act):
        t = b.threads(act)
        addrs, threads = rows.rows(b, act, t, nrows)
        if b.trace is not None:
            # each lane that names a row reads its 16 bytes (the memory report's shared phases)
            b.trace.record(b, op, "ldmatrix", rows.space, threads, addrs, mma_spec.ROW_BYTES, NO_HINTS, None)
        parts = rows.resolve(b, addrs, threads, False)
        matrix = _read_rows(parts, len(addrs), form).reshape(-1, nrows, lay.dims[1])   # per warp
        vals = lay.gather(matrix).reshape((len(t),) + lay.rows.shape[1:])
        write_regs(b, dest, t, matrix_layouts.pack(vals, lay.frag))
    warp_collective(op, body)


@handler("stmatrix")
def compile_stmatrix(op, prog):
    ins, d = op.ins, op.ins.decoded
    form, lay = _matrix_form(d, "stmatrix")
    ops = list(ins.operands)
    rows = _RowAccess(op, prog, ops[0], d, form.rows_per_matrix)
    src = fragment_regs(prog, ops[1], ins, lay.nregs, "stmatrix")
    nrows = form.nrows
    ebits = lay.frag.element_bits
    per_row = mma_spec.ROW_BYTES * 8 // ebits

    def body(b, act):
        t = b.threads(act)
        addrs, threads = rows.rows(b, act, t, nrows)
        if b.trace is not None:
            b.trace.record(b, op, "stmatrix", rows.space, threads, addrs, mma_spec.ROW_BYTES, NO_HINTS, None)
        vals = matrix_layouts.unpack(read_regs(b, src, t), lay.frag).reshape((-1, 32) + lay.rows.shape[1:])
        matrix = lay.scatter(vals).astype(ptxtypes.UINT[ebits]).reshape(-1, per_row)
        parts = rows.resolve(b, addrs, threads, True)
        scatter(parts, matrix, ebits, per_row)
    warp_collective(op, body)


@handler("movmatrix")
def compile_movmatrix(op, prog):
    ins, d = op.ins, op.ins.decoded
    if d.get("trans") is None or d.get("shape") != ".m8n8":
        raise CompileError("movmatrix is executed in its one form, .m8n8.trans.b16")
    ops = list(ins.operands)
    dst = fragment_regs(prog, ops[0], ins, 1, "movmatrix")
    src = fragment_regs(prog, ops[1], ins, 1, "movmatrix")
    plain, moved = matrix_layouts.ldmatrix_layout(1, False), matrix_layouts.ldmatrix_layout(1, True)

    def body(b, act):
        t = b.threads(act)
        vals = matrix_layouts.unpack(read_regs(b, src, t), plain.frag).reshape(-1, 32, 1, 2)
        moved_vals = moved.gather(plain.scatter(vals)).reshape(len(t), 1, 2)
        write_regs(b, dst, t, matrix_layouts.pack(moved_vals, moved.frag))
    warp_collective(op, body)


# ---------------------------------------------------------------- mma.sync

def _t(d, group):
    v = d.get(group)
    return v[1:] if v else None


@handler("mma")
def compile_mma(op, prog):
    ins, d = op.ins, op.ins.decoded
    if d.name != "mma" or d.get("kind") or d.get("block_scale") or d.others:
        raise CompileError(f"`{ins.opcode}` is not executed (only the sm_80/sm_89/sm_90 "
                           "mma.sync forms are)")
    shape = _t(d, "shape")
    types = [_t(d, g) for g in ("atype", "btype", "ctype", "dtype")]
    try:
        lays = matrix_layouts.mma_layouts(shape, *types, _t(d, "alayout") or "row", _t(d, "blayout") or "col")
    except KeyError as e:
        raise CompileError(str(e.args[0])) from None
    atype, btype, ctype, dtype = types
    bitop = _t(d, "bitop")
    opts = dict(atype=atype, btype=btype, ctype=ctype, dtype=dtype,
                op=f"{bitop}.popc" if bitop else None, satfinite=d.get("satfinite") is not None,
                rounding=_t(d, "rnd"))
    ops = list(ins.operands)
    if len(ops) != 4:
        raise CompileError("mma.sync takes d, a, b, c")
    regs = {m: fragment_regs(prog, node, ins, lays[m].nregs, f"mma operand {m}")
            for m, node in zip("dabc", ops)}

    def body(b, act):
        t = b.threads(act)
        mats = []
        for m in "abc":          # one matrix per warp (per warp and quadpair for m8n8k4 .f16)
            lay = lays[m]
            vals = matrix_layouts.unpack(read_regs(b, regs[m], t), lay.frag)
            mats.append(lay.scatter(vals.reshape((-1, 32) + vals.shape[1:])))
        out = mma_math.product(*mats, **opts)
        d = lays["d"].gather(out)
        write_regs(b, regs["d"], t, matrix_layouts.pack(d.reshape((len(t),) + d.shape[2:]), lays["d"].frag))
    warp_collective(op, body)


# ---------------------------------------------------------------- mma.sp (2:4 sparse A)

def _to_units(values: np.ndarray, atype: str) -> np.ndarray:
    """Raw element bits along the last axis -> the metadata's units (spec.SparseKind): a .tf32
    element is two 16-bit units (low half first), two 4-bit elements are one 8-bit unit."""
    bits = mma_spec.ELEMENT_BITS[atype]
    v = values.astype(np.uint64)
    if bits == 32:
        return np.stack([v & np.uint64(0xFFFF), v >> np.uint64(16)], axis=-1).reshape(v.shape[:-1] + (-1,))
    if bits == 4:
        return (v[..., 0::2] & np.uint64(0xF)) | ((v[..., 1::2] & np.uint64(0xF)) << np.uint64(4))
    return v


def _from_units(units: np.ndarray, atype: str) -> np.ndarray:
    """The inverse of `_to_units`."""
    bits = mma_spec.ELEMENT_BITS[atype]
    if bits == 32:
        return units[..., 0::2] | (units[..., 1::2] << np.uint64(16))
    if bits == 4:
        return np.stack([units & np.uint64(0xF), units >> np.uint64(4)], axis=-1).reshape(units.shape[:-1] + (-1,))
    return units


@handler("mma.sp", "mma.sp::ordered_metadata")
def compile_mma_sp(op, prog):
    """A is given compressed (its non-zeros, K/2 per row); the metadata operand says where each
    lies in its group of four K elements (spec.sparse_metadata_position)."""
    ins, d = op.ins, op.ins.decoded
    if d.get("kind") or d.get("block_scale") or d.others:
        raise CompileError(f"`{ins.opcode}` is not executed (the .kind and .block_scale mma.sp "
                           "forms are not)")
    shape = _t(d, "shape")
    types = [_t(d, g) for g in ("atype", "btype", "ctype", "dtype")]
    kind = mma_spec.sparse_kind(shape, *types) if shape else None
    if kind is None:
        raise CompileError(f"`{ins.opcode}`: the PTX ISA has no such mma.sp form (executed: "
                           "f16/bf16 m16n8k16/k32, tf32 m16n8k8/k16, s8/u8 m16n8k32/k64, "
                           "s4/u4 m16n8k64/k128, e4m3/e5m2 m16n8k64)")
    atype, btype, ctype, dtype = types
    m, n, k = mma_spec.shape_mnk(shape)
    _, _, kc = mma_spec.shape_mnk(kind.compressed)
    lays = {"a": matrix_layouts.layout_of("mma.sp compressed A", mma_spec.operand_a(m, kc, atype)),
            "b": matrix_layouts.layout_of("mma.sp B", mma_spec.operand_b(k, n, btype)),
            "c": matrix_layouts.layout_of("mma.sp C", mma_spec.accumulator(m, n, ctype)),
            "d": matrix_layouts.layout_of("mma.sp D", mma_spec.accumulator(m, n, dtype))}
    ops = list(ins.operands)
    if len(ops) != 6 or not isinstance(ops[5], Int):
        raise CompileError("mma.sp takes d, a, b, c, the metadata register and an immediate "
                           "sparsity selector")
    selector = int(ops[5].value)
    if selector not in kind.selectors:
        raise CompileError(f"mma.sp .{shape} .{atype}: sparsity selector {selector} is not one of "
                           f"{', '.join(map(str, kind.selectors))}")
    regs = {name: fragment_regs(prog, node, ins, lays[name].nregs, f"mma.sp operand {name}")
            for name, node in zip("dabc", ops)}
    meta_src = prog.source(ops[4], ".b32", ins)
    unit_bits = kind.unit_bits(atype)
    k_units = kind.k_units(atype)
    groups = k_units // 4
    per_group = 4 * unit_bits // mma_spec.ELEMENT_BITS[atype]     # K elements per metadata group
    row = np.arange(m)[:, None]
    grp = np.arange(groups)[None, :]
    thread, nibble = mma_spec.sparse_metadata_position(kind, atype, selector, row, grp)
    lane_of = np.broadcast_to(4 * (row % 8) + thread, (m, groups))   # lane in the warp
    shift = (4 * np.broadcast_to(nibble, lane_of.shape)).astype(np.uint64)
    opts = dict(atype=atype, btype=btype, ctype=ctype, dtype=dtype,
                satfinite=d.get("satfinite") is not None)

    def body(b, act):
        t = b.threads(act)
        nw = len(t) // 32
        meta = meta_src(b, act).astype(np.uint64).reshape(nw, 32)
        nib = (meta[:, lane_of] >> shift) & np.uint64(0xF)   # (warps, rows, groups)
        first, second = (nib & np.uint64(3)).astype(np.int64), (nib >> np.uint64(2)).astype(np.int64)
        bad = first == second
        if bad.any():
            w, r, g = (int(x) for x in np.argwhere(bad)[0])
            lane = int(lane_of[r, g])
            raise b.error(errors.WarpSyncError, op, int(t[32 * w + lane]),
                          f"mma.sp metadata of lane {lane} gives both non-zeros of row {r}, K "
                          f"{per_group * g}-{per_group * (g + 1) - 1} the same index {int(first[w, r, g])} "
                          f"(metadata {int(meta[w, lane]):#010x})",
                          "two different indices per group (the ISA leaves the result undefined)")
        mats = {}
        for name in "abc":
            lay = lays[name]
            vals = matrix_layouts.unpack(read_regs(b, regs[name], t), lay.frag)
            mats[name] = lay.scatter(vals.reshape((-1, 32) + vals.shape[1:]))
        if unit_bits == 16 and mma_spec.ELEMENT_BITS[atype] == 32:
            whole = ((first == 0) & (second == 1)) | ((first == 2) & (second == 3))
            if not whole.all():
                w, r, g = (int(x) for x in np.argwhere(~whole)[0])
                lane = int(lane_of[r, g])
                raise b.error(errors.WarpSyncError, op, int(t[32 * w + lane]),
                              f"mma.sp .tf32 metadata of lane {lane} for row {r}, K {per_group * g}-"
                              f"{per_group * g + 1} is {int(nib[w, r, g]):#06b}",
                              "0b0100 or 0b1110 (the ISA leaves other values undefined)")
        units = _to_units(mats["a"], atype)                # (warps, rows, units/2)
        dense_units = np.zeros((nw, m, k_units), units.dtype)
        w_ix = np.arange(nw)[:, None, None]
        r_ix = np.arange(m)[None, :, None]
        base = 4 * np.arange(groups)[None, None, :]
        dense_units[w_ix, r_ix, base + first] = units[:, :, 0::2]
        dense_units[w_ix, r_ix, base + second] = units[:, :, 1::2]
        dense = _from_units(dense_units, atype).astype(mats["a"].dtype)
        out = mma_math.product(dense, mats["b"], mats["c"], **opts)
        dd = lays["d"].gather(out)
        write_regs(b, regs["d"], t, matrix_layouts.pack(dd.reshape((len(t),) + dd.shape[2:]), lays["d"].frag))
    warp_collective(op, body)
