"""Tensor copies through tensor maps (PTX ISA 9.7.9.25.5): cp.async.bulk.tensor loads (tile and
im2col, multicast) and stores, cp.reduce.async.bulk.tensor, and the tensor-map instructions
tensormap.replace and tensormap.cp_fenceproxy.

The map is read from the generic address the instruction names (a `__grid_constant__`
parameter, a `.const`/`.global` variable, or global memory) when the copy is issued; its geometry
is tensormap.py's. A loaded box is written densely to shared memory in the map's swizzle;
elements outside the tensor read as zeros (or the canonical NaN the map requests); a stored box
skips elements outside the tensor.
"""
from __future__ import annotations

import numpy as np

from ..ptx.nodes import Address, Vector
from ..spec import swizzle as swizzle_spec
from ..spec import tensormap as map_spec
from . import errors
from . import tensormap as tensor_maps
from .handlers import CompileError, handler
from .memory import SHARED_CTA_SPAN, Fault, gather, scatter
from .sem_async import _combiner, barrier_place, cluster_targets, destinations, issue, span
from .sem_mem import AddressOperand
from .trace import BULK_SHARED, hints_of

_DIMS = {".1d": 1, ".2d": 2, ".3d": 3, ".4d": 4, ".5d": 5}


def read_map(b, addr: int, pos: int) -> dict:
    """The tensor map at a generic address, decoded, its global address resolved."""
    parts = b.sp.resolve("generic", np.array([addr], np.uint64), 1, np.zeros(1, np.intp), False)
    bk, i0, _ = parts[0]
    i0 = int(i0[0])
    raw = bytes(bk[i0:i0 + tensor_maps.SIZE])
    f = tensor_maps.decode(raw)
    if f is None:
        raise Fault(errors.AsyncCopyError, pos, addr, "generic",
                    "the tensor-map operand does not point to a tensor map (build one with "
                    "ptxld.TensorMap.tiled / .im2col and pass it as the kernel argument)",
                    "the address of a 128-byte tensor map")
    try:
        tensor_maps.check(f)
    except errors.TensorMapError as e:
        raise Fault(errors.AsyncCopyError, pos, addr, "generic", f"the tensor map is invalid: {e}",
                    "a tensor map cuTensorMapEncode would accept (after any tensormap.replace "
                    "edits)") from None
    unrun = _unexecuted(f)
    if unrun:
        raise Fault(errors.AsyncCopyError, pos, addr, "generic",
                    f"a tensor copy through a map with {unrun} is not executed by this emulator",
                    "a map with a byte-sized element type and a 32B/64B/128B swizzle")
    g = tensor_maps.translate(f, getattr(b.launch, "bound", ()))
    if g is None:
        raise Fault(errors.AsyncCopyError, pos, addr, "generic",
                    "the tensor map describes an array that is not inside any kernel argument",
                    "a tensor map over (a view of) an array passed to the kernel")
    f["global"] = g
    return f


def _unexecuted(f) -> str | None:
    """What of a valid map this emulator does not move data for, or None."""
    if f["esize"] is None:
        return f"the packed element type {map_spec.ELEMTYPES[f['dtype']].name}"
    if f["swizzle"] not in swizzle_spec.SPAN:
        return f"the {f['swizzle']} swizzle mode"
    return None


#: modes that read a tiled map; of them, the sm_100 ones that move four rows of a 2-D tensor
#: named by their row coordinates ({column, row0, row1, row2, row3}) into one box
_TILE_MODES = (None, ".tile", ".tile::gather4", ".tile::scatter4")
_FOUR_ROW_MODES = (".tile::gather4", ".tile::scatter4")
#: the wide im2col modes (sm_100): their pixel walk is not modelled
_UNEXECUTED_MODES = (".im2col::w", ".im2col::w::128")


def _coords_operand(prog, ins, node: Address):
    if not node.items or not isinstance(node.items[0], Vector):
        raise CompileError(f"`{ins.opcode}` needs [tensorMap, {{coordinates}}]")
    tmap = AddressOperand(prog, Address(node.base, node.offset, node.start, node.end), "generic", ins)
    coords = [prog.source(x, ".s32", ins) for x in node.items[0].items]
    return tmap, coords


def _box(b, f, mode, dims, coords, offsets, pos, addr):
    if f["rank"] != dims:
        raise Fault(errors.AsyncCopyError, pos, addr, "generic",
                    f"a .{dims}d tensor copy through a tensor map of rank {f['rank']}",
                    "the copy's dimension to match the tensor map's rank")
    want = "tiled" if mode in _TILE_MODES else "im2col"
    if mode is not None and want != f["mode"]:
        raise Fault(errors.AsyncCopyError, pos, addr, "generic",
                    f"a {mode[1:]} copy through a {f['mode']} tensor map",
                    f"a tensor map encoded for {want} mode")
    if f["mode"] == "im2col":
        if offsets is None or len(offsets) != f["rank"] - 2:
            raise Fault(errors.AsyncCopyError, pos, addr, "generic",
                        f"an im2col copy of a rank-{f['rank']} tensor needs {f['rank'] - 2} "
                        f"im2col offsets", "one 16-bit offset per spatial dimension")
        return tensor_maps.im2col_elements(f, coords, offsets)
    if mode in _FOUR_ROW_MODES:
        return tensor_maps.four_row_elements(f, coords)
    return tensor_maps.tile_elements(f, coords)


def _global_addresses(f, idx):
    return np.uint64(f["global"]) + tensor_maps.element_offsets(f, idx).astype(np.uint64)


def load_box(b, f, idx, ok, tid) -> np.ndarray:
    """The box's bytes (elements in shared-memory order), OOB elements filled."""
    es = f["esize"]
    w = es * 8
    dt = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[es]
    vals = np.full(len(idx), tensor_maps.oob_bits(f), dt)
    rows = np.flatnonzero(ok)
    if len(rows):
        addr = _global_addresses(f, idx[rows])
        parts = b.sp.resolve(".global", addr, es, np.full(len(rows), tid, np.intp), False)
        vals[rows] = gather(parts, len(rows), w, 1)[:, 0]
    return vals.view(np.uint8)


def _compile_tensor(op, prog, reduce: bool):
    ins = op.ins
    d = ins.decoded
    dims = _DIMS.get(d.get("dim") or "")
    dst_sp, src_sp = d.get("dst"), d.get("src")
    mode = d.get("load_mode")
    if dims is None or dst_sp is None or src_sp is None:
        raise CompileError(f"`{ins.opcode}` needs .Nd and .dst.src state spaces")
    if mode in _UNEXECUTED_MODES:
        raise CompileError(f"`{ins.opcode}`: the {mode} mode (sm_100) is not executed")
    if mode in _FOUR_ROW_MODES and dims != 2:
        raise CompileError(f"`{ins.opcode}`: the {mode} mode copies rows of a 2-D tensor (.2d)")
    ops = list(ins.operands)
    store = dst_sp == ".global"
    redop = d.get("redop") if reduce else None
    if reduce and redop is None:
        raise CompileError(f"`{ins.opcode}` needs a reduction operation")
    if store:
        if len(ops) < 2 or not isinstance(ops[0], Address) or not isinstance(ops[1], Address):
            raise CompileError(f"`{ins.opcode}` takes [tensorMap, {{coords}}], [srcMem]")
        tmap, coords = _coords_operand(prog, ins, ops[0])
        smem = AddressOperand(prog, ops[1], ".shared", ins)
        mbar = None
        rest = ops[2:]
    else:
        if len(ops) < 3 or not all(isinstance(x, Address) for x in ops[:3]):
            raise CompileError(f"`{ins.opcode}` takes [dstMem], [tensorMap, {{coords}}], [mbar], ...")
        smem = AddressOperand(prog, ops[0], ".shared::cluster", ins)
        tmap, coords = _coords_operand(prog, ins, ops[1])
        mbar = AddressOperand(prog, ops[2], ".shared::cluster", ins)
        rest = ops[3:]
    want = 5 if mode in _FOUR_ROW_MODES else dims
    if len(coords) != want:
        raise CompileError(f"`{ins.opcode}` takes {want} coordinates, got {len(coords)}")
    offsets = None
    if mode == ".im2col" and not store:
        if not rest or not isinstance(rest[0], Vector):
            raise CompileError(f"`{ins.opcode}` needs the im2col offsets {{...}}")
        offsets = [prog.source(x, ".u16", ins) for x in rest[0].items]
        rest = rest[1:]
    mask_src = None
    if d.get("multicast") is not None:
        if not rest:
            raise CompileError("a .multicast::cluster copy needs a ctaMask operand")
        mask_src = prog.source(rest[0], ".u16", ins)

    hints = hints_of(d)
    kind = d.name + (".write" if store else ".src")

    def run(b, act):
        tids = b.threads(act)
        traced = [] if b.trace is not None else None
        maps = tmap.values(b, act)
        cs = np.stack([c(b, act).astype(np.int32).astype(np.int64) for c in coords], axis=1)
        offs = (np.stack([o(b, act).astype(np.uint16).view(np.int16).astype(np.int64) for o in offsets], axis=1)
                if offsets is not None else None)
        sa = smem.values(b, act)
        masks = mask_src(b, act).astype(np.int64) if mask_src is not None else None
        bars = mbar.values(b, act) if mbar is not None else None
        for k, t in enumerate(tids):
            t = int(t)
            f = read_map(b, int(maps[k]), k)
            idx, ok = _box(b, f, mode, dims, cs[k], None if offs is None else offs[k], k, int(maps[k]))
            nbytes = len(idx) * f["esize"]
            if int(sa[k]) % 128:
                raise Fault(errors.MisalignedAddressError, k, int(sa[k]), ".shared",
                            f"tensor copy: shared address {int(sa[k]):#x} is not 128-byte aligned",
                            "a shared-memory box aligned to 128 bytes")
            if traced is not None:
                copies = 1 if masks is None else destinations(int(masks[k]))
                traced.append((t, _global_runs(f, idx[ok]), (int(sa[k]), nbytes * copies)))
            if store:
                try:
                    combine = _combiner(redop, _reduce_type(f["dtype"])) if redop else None
                except CompileError as e:
                    raise Fault(errors.AsyncCopyError, k, int(maps[k]), "generic", str(e),
                                "a reduction the PTX ISA defines for the tensor map's data type") from None
                _issue_store(b, op, t, f, idx, ok, int(sa[k]), nbytes, combine, k)
            else:
                _issue_load(b, op, t, f, idx, ok, int(sa[k]), nbytes, int(bars[k]),
                            None if masks is None else int(masks[k]), k)
        if traced:
            # the global side of the box, as contiguous runs of the issuing thread
            who = np.concatenate([np.full(len(r[0]), t, np.intp) for t, r, _ in traced])
            addr = np.concatenate([r[0] for _, r, _ in traced])
            size = np.concatenate([r[1] for _, r, _ in traced])
            b.trace.record(b, op, kind, ".global", who, addr, size, hints, None)
            # then the shared side: the whole box (zero-filled elements included) in every
            # destination CTA, moved by the bulk-copy unit
            b.trace.record(b, op, d.name + BULK_SHARED, ".shared", np.array([t for t, _, _ in traced], np.intp),
                           np.array([s[0] for _, _, s in traced], np.uint64),
                           np.array([s[1] for _, _, s in traced], np.int64), hints, None)
    op.run = run


def _global_runs(f, idx):
    """(start address, bytes) of each run of consecutive elements of a box in global memory."""
    es = f["esize"]
    addr = _global_addresses(f, idx)
    if len(addr) == 0:
        return addr, np.zeros(0, np.int64)
    brk = np.flatnonzero(np.diff(addr.astype(np.int64)) != es) + 1
    starts = np.r_[0, brk]
    lengths = np.diff(np.r_[starts, len(addr)])
    return addr[starts], lengths.astype(np.int64) * es


def _reduce_type(code: int) -> str:
    """A tensor reduction combines elements of the map's data type; the flush-to-zero and
    tf32 variants are 32-bit floats in memory."""
    name = map_spec.ELEMTYPES[code].name
    return {".f32.ftz": ".f32", ".tf32": ".f32", ".tf32.ftz": ".f32"}.get(name, name)


def _issue_load(b, op, t, f, idx, ok, dst, nbytes, bar, mask, pos):
    writes = []
    for a in cluster_targets(b, t, dst, mask, pos):
        # the box in shared memory, byte by byte through the swizzle of the CTA-relative offset
        bk, i0 = span(b, ".shared::cluster", a, nbytes, t, True, pos)
        rel = a & (SHARED_CTA_SPAN - 1)
        where = tensor_maps.shared_offsets(f, rel, len(idx)) - rel + i0
        writes.append(lambda data, bk=bk, where=where: bk.__setitem__(where, data))
    barriers = [(barrier_place(b, a, t), nbytes) for a in cluster_targets(b, t, bar, mask, pos)]
    issue(b, op, t, lambda: load_box(b, f, idx, ok, t), writes, barriers, bulk_group=False)


def _issue_store(b, op, t, f, idx, ok, src, nbytes, combine, pos):
    bk, i0 = span(b, ".shared", src, nbytes, t, False, pos)
    where = tensor_maps.shared_offsets(f, src, len(idx)) - src + i0

    def read():
        return bk[where].copy()

    es = f["esize"]
    rows = np.flatnonzero(ok)
    addr = _global_addresses(f, idx[rows])

    def write(data):
        if not len(rows):
            return
        parts = b.sp.resolve(".global", addr, es, np.full(len(rows), t, np.intp), True)
        vals = data.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[es])[rows]
        if combine is not None:
            old = gather(parts, len(rows), es * 8, 1)[:, 0]
            vals = combine(np.ascontiguousarray(old).view(np.uint8),
                           np.ascontiguousarray(vals).view(np.uint8)).view(vals.dtype)
        scatter(parts, vals[:, None], es * 8, 1)
    issue(b, op, t, read, [write], [], bulk_group=True)


@handler("cp.async.bulk.tensor")
def compile_tensor_copy(op, prog):
    _compile_tensor(op, prog, reduce=False)


@handler("cp.reduce.async.bulk.tensor")
def compile_tensor_reduce(op, prog):
    _compile_tensor(op, prog, reduce=True)


# ------------------------------------------------------------------------------ map instructions

#: tensormap.replace field -> (byte offset in tensormap.py's encoding, bytes, ordinal stride);
#: the enumerated fields store the ISA's code, .rank the rank (new_val + 1)
_FIELD_BYTES = {".global_address": (tensor_maps.OFF_ADDRESS, 8, 0), ".rank": (tensor_maps.OFF_RANK, 1, 0),
                ".global_dim": (tensor_maps.OFF_DIMS, 4, 4), ".global_stride": (tensor_maps.OFF_STRIDES, 8, 8),
                ".box_dim": (tensor_maps.OFF_BOX, 2, 2), ".element_stride": (tensor_maps.OFF_ESTRIDES, 1, 1),
                ".elemtype": (tensor_maps.OFF_DTYPE, 1, 0), ".interleave_layout": (tensor_maps.OFF_INTERLEAVE, 1, 0),
                ".swizzle_mode": (tensor_maps.OFF_SWIZZLE, 1, 0), ".fill_mode": (tensor_maps.OFF_OOB, 1, 0),
                ".swizzle_atomicity": (tensor_maps.OFF_ATOMICITY, 1, 0)}
assert set(_FIELD_BYTES) == set(map_spec.FIELDS)


def _bad_new_value(field: map_spec.Field, ordinal: int | None, value: int) -> str | None:
    """Why a new value (or ordinal) is outside what the ISA defines for the field, or None."""
    if ordinal is not None and not 0 <= ordinal <= field.max_ordinal:
        return f"ordinal {ordinal} is outside 0..{field.max_ordinal}"
    hi = field.max_value
    if value < field.min_value or (hi is not None and value > hi) or value % field.multiple:
        rng = f"{field.min_value}..{hi}" if hi is not None else f"at least {field.min_value}"
        mult = f", a multiple of {field.multiple}" if field.multiple > 1 else ""
        return f"new value {value} is outside the valid values ({rng}{mult})"
    return None


@handler("tensormap.replace")
def compile_tensormap_replace(op, prog):
    """tensormap.replace.tile.field.space.b1024.type [addr], {ord,} new_val: rewrite one field of
    a tensor map in memory. A new value outside the ISA's valid values for its field faults
    here; whether the map as a whole is valid is checked when a copy uses it."""
    ins = op.ins
    d = ins.decoded
    field = map_spec.FIELDS.get(d.get("field"))
    if field is None:
        raise CompileError(f"`{ins.opcode}` names no tensor-map field")
    space = d.get("space") or "generic"
    space = ".shared" if space == ".shared::cta" else space
    ops = list(ins.operands)
    if len(ops) != (3 if field.ordinal else 2):
        raise CompileError(f"`{ins.opcode}` takes [addr], {'ord, ' if field.ordinal else ''}new_val")
    aop = AddressOperand(prog, ops[0], space, ins)
    off, width, step = _FIELD_BYTES[field.name]
    ordinal = prog.source(ops[1], ".u32", ins) if field.ordinal else None
    value = prog.source(ops[-1], d.get("type") or ".b32", ins)

    def run(b, act):
        tids = b.threads(act)
        addrs = aop.values(b, act)
        vals = value(b, act).astype(np.uint64)
        ords = ordinal(b, act).astype(np.int64) if ordinal is not None else None
        for k, t in enumerate(tids):
            parts = b.sp.resolve(space, np.array([addrs[k]], np.uint64), tensor_maps.SIZE,
                                 np.array([t], np.intp), True)
            bk, i0, _ = parts[0]
            i0 = int(i0[0])
            if bytes(bk[i0:i0 + 4]) != tensor_maps.MAGIC:
                raise Fault(errors.AsyncCopyError, k, int(addrs[k]), space,
                            "tensormap.replace on memory that holds no tensor map",
                            "the address of a 128-byte tensor map (a copy of one made by "
                            "ptxld.TensorMap)")
            v = int(vals[k])
            o = None if ords is None else int(ords[k])
            why = _bad_new_value(field, o, v)
            if why:
                raise Fault(errors.AsyncCopyError, k, int(addrs[k]), space,
                            f"tensormap{field.name}: {why}",
                            f"a valid new value for {field.name} (PTX ISA tensormap.replace)")
            if field.name == ".rank":
                v += 1
            at = i0 + off + (o or 0) * step
            bk[at:at + width] = np.frombuffer(v.to_bytes(8, "little")[:width], np.uint8)
            if field.name == ".global_address":
                bk[i0 + tensor_maps.OFF_FLAGS] &= np.uint8(~tensor_maps.HOST_POINTER & 0xFF)
    op.run = run


@handler("tensormap.cp_fenceproxy")
def compile_tensormap_copy(op, prog):
    """tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.sem.scope.sync.aligned
    [dst], [src], 128: copy a tensor map from shared to global memory (the fence is a no-op)."""
    ins = op.ins
    ops = list(ins.operands)
    dst = AddressOperand(prog, ops[0], ".global", ins)
    src = AddressOperand(prog, ops[1], ".shared", ins)
    size = prog.source(ops[2], ".u32", ins)

    def run(b, act):
        tids = b.threads(act)
        da, sa, n = dst.values(b, act), src.values(b, act), size(b, act)
        for k, t in enumerate(tids):
            sbk, s0 = span(b, ".shared", int(sa[k]), int(n[k]), int(t), False, k)
            dbk, d0 = span(b, ".global", int(da[k]), int(n[k]), int(t), True, k)
            dbk[d0:d0 + int(n[k])] = sbk[s0:s0 + int(n[k])]
    op.run = run
