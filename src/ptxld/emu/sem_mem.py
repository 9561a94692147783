"""Memory instructions: ld, ldu, ld.global.nc, st, atom, red, cvta, isspacep, mapa, getctarank.
Memory orders, scopes, cache operators, eviction priorities, prefetch sizes and cache policies
are accepted and do not change values (a sequential emulator is sequentially consistent); with a
memory report on, each access is told to the recorder (`trace.record`, emu/trace.py)."""
from __future__ import annotations

import numpy as np

from ..ptx.nodes import Address, Name, Sink, Variable, Vector
from ..spec import ld as ld_spec
from . import errors
from . import ptxtypes
from .memory import SHARED_CTA_SPAN, SHARED_RANK_SHIFT, Fault, gather, gather_one, scatter, stable_order
from .alu import atom_combine
from .handlers import CompileError, handler
from .liveness import only_written_here
from .trace import hints_of

def _access(ins) -> tuple[str, str, int, int, int]:
    """(state space or "generic", type, vector length, type width in bits, bytes moved) of an
    ld/ldu/st, from the decoded opcode: an `ld`'s load model, else the decoder's slots."""
    m = ins.load
    if m is not None:
        space, t, count = m.space, m.type, m.vector_length
        if m.unknown or m.repeated:
            # the checker reports these; running would guess what the opcode means
            bad = ", ".join([u[0] for u in m.unknown] + [r[1] for r in m.repeated])
            raise CompileError(f"`{ins.opcode}` is not a valid load ({bad}; see `ptxld check`)")
    else:
        d = ins.decoded
        if d.repeated:
            raise CompileError(f"`{ins.opcode}` names {d.repeated[0][0]} twice")
        space, t = d.get("space"), d.get("type")
        count = ld_spec.VECTOR_LENGTH.get(d.get("vec") or "", 1)
    if t is None:
        raise CompileError("no data type")
    width = ptxtypes.WIDTH[t]
    return space or "generic", t, count, width, width // 8 * count


def _elements(prog, ins, node, count: int, what: str) -> list:
    """The registers of a data operand, one per vector element: `{a, _, c}`, a scalar, or a
    `.v2/.v4` register variable used whole (its .x/.y/.z/.w)."""
    items = node.items if isinstance(node, Vector) else [node]
    if isinstance(node, Name):
        v = prog.lookup(node.name, ins)
        if isinstance(v, Variable) and v.vector and node.component is None:
            items = [Name(node.name, node.start, node.end, c) for c in "xyzw"[:int(v.vector[2:])]]
    if len(items) != count:
        raise CompileError(f"{count} {what} expected, found {len(items)}")
    return items


class AddressOperand:
    """A compiled `[a]` operand: per-thread addresses in the instruction's state space, or a
    per-thread `.param` variable (`pvar`, static offset) for device-function parameters."""

    def __init__(self, prog, addr: Address, space: str, ins):
        self.pvar = None
        self.uniform = None
        self.reg = None
        mask = (1 << prog.layout.bits) - 1
        self.mask = mask
        off = addr.offset
        if addr.base is None:
            self.uniform = off & mask
            return
        v = prog.lookup(addr.base.name, ins)
        if isinstance(v, Variable) and v.space == ".reg":
            s, rt = prog.reg(addr.base, ins)
            self.reg, self.rtype, self.off = s, rt, off
            if ptxtypes.WIDTH[rt] == 32:       # a 32-bit base register: reg+imm wraps at 32 bits
                self.mask = mask & 0xFFFFFFFF
            return
        if isinstance(v, Variable) and v.space == ".param":
            if id(v) in prog.param_offsets:
                base = prog.param_offsets[id(v)]
                self.uniform = (base + off + (prog.layout.param if space == "generic" else 0)) & mask
                return
            self.pvar, self.off = prog.pvar(v), off
            return
        if isinstance(v, Variable):
            self.uniform = (prog.var_address(v, generic=(space == "generic")) + off) & mask
            return
        raise CompileError(f"`{addr.base.name}` is not a register or an addressable variable")

    def addresses(self, b, act) -> np.ndarray:
        """Per-thread addresses for the trace (a per-thread .param variable: its offset)."""
        if self.pvar is not None:
            return np.full(b.count(act), self.off, np.uint64)
        return self.values(b, act)

    def values(self, b, act) -> np.ndarray:
        if self.uniform is not None:
            return np.full(b.count(act), self.uniform, np.uint64)
        r = b.rd(self.reg, act)
        if r.dtype == np.uint32 and self.mask == 0xFFFFFFFF:
            # a 32-bit address: add in 32 bits (wrapping is the mask), then widen once
            if self.off:
                r = np.add(r, np.uint32(self.off & 0xFFFFFFFF))
            return r.astype(np.uint64)
        if self.off:    # widened to 64 bits by the addition itself (one pass, no astype copy)
            r = np.add(r, np.uint64(self.off & 0xFFFFFFFFFFFFFFFF), dtype=np.uint64)
        elif r.dtype != np.uint64:
            r = r.astype(np.uint64)
        if self.mask != 0xFFFFFFFFFFFFFFFF:
            r = r & np.uint64(self.mask)
        return r


def _policy_source(prog, ins, hints):
    """The cache-policy operand (last) of an access with .L2::cache_hint, else None."""
    if not hints.cache_hint:
        return None
    return prog.source(ins.operands[-1], ".b64", ins)


def _uniform_space(space: str) -> bool:
    return space in (".global", ".const", ".param", ".param::entry")


def _pvar_check(b, p, off, nbytes, act, write):
    size = b.prog.pvar_size[p]
    if off < 0 or off + nbytes > size:
        raise Fault(errors.OutOfBoundsError, 0, off, ".param",
                    f"{'store to' if write else 'load from'} .param variable outside its "
                    f"{size} bytes ({nbytes}-byte access at offset {off})",
                    f"an offset + size within {size} bytes")


def read_memory(b, aop: AddressOperand, space, act, width, count, nbytes_total):
    """(n, count) raw bits (or (n, count, 2) for 128-bit) read for the active threads."""
    n = b.count(act)
    if aop.pvar is not None:
        _pvar_check(b, aop.pvar, aop.off, nbytes_total, act, False)
        data, init = b.param_store(aop.pvar)
        lo, hi = aop.off, aop.off + nbytes_total
        ok = init[:, lo:hi] if act is None else init[act, lo:hi]
        if not ok.all():
            pos = int(np.flatnonzero(~ok.all(axis=1))[0])
            raise Fault(errors.UninitializedParamError, pos, lo, ".param",
                        f"read of uninitialised .param bytes ({nbytes_total}-byte load at offset "
                        f"{lo} of a {b.prog.pvar_size[aop.pvar]}-byte parameter)",
                        "a st.param to these bytes (or a call argument) before the load",
                        int((~ok.all(axis=1)).sum()))
        raw = np.ascontiguousarray(data[:, lo:hi] if act is None else data[act, lo:hi])
        if width == 128:
            return raw.view(np.uint64).reshape(n, count, 2)
        return raw.view(ptxtypes.UINT[width]).reshape(n, count)
    if aop.uniform is not None and _uniform_space(space):
        addr = np.array([aop.uniform], np.uint64)
        parts = b.sp.resolve(space, addr, nbytes_total, np.zeros(1, np.intp), False)
        one = gather(parts, 1, width, count)
        return np.broadcast_to(one, (n,) + one.shape[1:])
    addr = aop.values(b, act)
    tids = b.threads(act)
    parts = b.sp.resolve(space, addr, nbytes_total, tids, False)
    return gather(parts, n, width, count)


def read_one(b, aop: AddressOperand, space, act, width, nbytes):
    """A scalar load (8..64 bits) of the active threads as a fresh 1-D array of raw bits."""
    if aop.pvar is not None or aop.uniform is not None or width == 128:
        return read_memory(b, aop, space, act, width, 1, nbytes)[:, 0].copy()
    addr = aop.values(b, act)
    parts = b.sp.resolve(space, addr, nbytes, b.threads(act), False)
    return gather_one(parts, len(addr), width)


def write_memory(b, aop, space, act, width, count, nbytes_total, vals, keep=None):
    if aop.pvar is not None:
        _pvar_check(b, aop.pvar, aop.off, nbytes_total, act, True)
        data, init = b.param_store(aop.pvar)
        lo, hi = aop.off, aop.off + nbytes_total
        raw = np.ascontiguousarray(vals).view(np.uint8).reshape(b.count(act), -1)
        if act is None:
            data[:, lo:hi] = raw
            init[:, lo:hi] = True
        else:
            data[act, lo:hi] = raw
            init[act, lo:hi] = True
        return
    addr = aop.values(b, act)
    parts = b.sp.resolve(space, addr, nbytes_total, b.threads(act), True)
    scatter(parts, vals, width, count, keep)


# generic-address window codes (memory.Spaces.window) of each state space; a kernel parameter's
# generic address counts as global, as ld.param::entry through a generic pointer does
_WINDOW_CODES = {".global": (0, 4), ".local": (1,), ".const": (2,), ".shared": (3,)}
_WINDOW_NAMES = {0: ".global", 1: ".local", 2: ".const", 3: ".shared", 4: ".param"}


def _require_window(b, aop, act, spaces, what):
    """Fault unless each generic address points into one of `spaces`."""
    if aop.pvar is not None:
        return
    addr = aop.values(b, act)
    code = b.sp.window(addr)
    ok = np.isin(code, [c for s in spaces for c in _WINDOW_CODES[s]])
    if not ok.all():
        pos = int(np.flatnonzero(~ok)[0])
        want = " or ".join(sorted(spaces))
        raise Fault(errors.GenericAddressError, pos, int(addr[pos]), "generic",
                    f"{what} needs a generic address in the {want} window; this one is in the "
                    f"{_WINDOW_NAMES.get(int(code[pos]), 'no')} window",
                    f"an address in {want}", int((~ok).sum()))


@handler("ld", "ldu")
def compile_ld(op, prog):
    ins = op.ins
    space, t, count, width, nbytes = _access(ins)
    ops = ins.operands
    if len(ops) < 2 or not isinstance(ops[1], Address):
        raise CompileError("ld needs a destination and an address `[a]`")
    items = _elements(prog, ins, ops[0], count, "destination register(s)")
    dests = [None if isinstance(x, Sink) else prog.dest(x, t, ins) for x in items]
    aop = AddressOperand(prog, ops[1], space, ins)
    model = ins.load  # None for ldu
    windows = None
    if space == "generic" and aop.pvar is None and aop.uniform is None and model is not None:
        a = model.address
        windows = ld_spec.generic_windows(model.quals, is_256_bit=model.is_256_bit,
                                     unified=a is not None and a.unified)
    hints = hints_of(ins.decoded)
    policy = _policy_source(prog, ins, hints)
    # one element into a register: read it as a fresh array the register keeps as it is
    scalar = count == 1 and width < 128 and dests[0] is not None

    def run(b, act):
        if windows is not None:
            _require_window(b, aop, act, windows, ins.opcode)
        tr = b.trace
        if tr is not None:
            tr.record(b, op, ins.decoded.mnemonic, space, act, aop.addresses(b, act), nbytes, hints,
                      policy(b, act) if policy else None)
        if scalar:
            dests[0](b, act, read_one(b, aop, space, act, width, nbytes))
            return
        vals = read_memory(b, aop, space, act, width, count, nbytes)
        for k, d in enumerate(dests):
            if d is not None:
                d(b, act, np.ascontiguousarray(vals[:, k]))
    op.run = run


@handler("st")
def compile_st(op, prog):
    ins = op.ins
    space, t, count, width, nbytes = _access(ins)
    ops = ins.operands
    if len(ops) < 2 or not isinstance(ops[0], Address):
        raise CompileError("st needs an address `[a]` and a source")
    items = _elements(prog, ins, ops[1], count, "source value(s)")
    keep = [not isinstance(x, Sink) for x in items]
    srcs = [None if isinstance(x, Sink) else prog.source(x, t, ins) for x in items]
    aop = AddressOperand(prog, ops[0], space, ins)
    hints = hints_of(ins.decoded)
    policy = _policy_source(prog, ins, hints)

    def run(b, act):
        n = b.count(act)
        tr = b.trace
        if tr is not None:
            tr.record(b, op, "st", space, act, aop.addresses(b, act), nbytes, hints,
                      policy(b, act) if policy else None)
        if width == 128:
            vals = np.zeros((n, count, 2), np.uint64)
        else:
            vals = np.zeros((n, count), ptxtypes.UINT[width])
        for k, s in enumerate(srcs):
            if s is not None:
                vals[:, k] = s(b, act)
        write_memory(b, aop, space, act, width, count, nbytes, vals,
                     None if all(keep) else keep)
    op.run = run


# ---------------------------------------------------------------------------- atomics

ATOM_OPS = (".add", ".and", ".or", ".xor", ".exch", ".cas", ".min", ".max", ".inc", ".dec")
ATOM_TYPES = (".b16", ".b32", ".b64", ".b128", ".u32", ".u64", ".s32", ".s64", ".f32", ".f64",
              ".f16", ".f16x2", ".bf16", ".bf16x2")


@handler("atom", "red")
def compile_atom(op, prog):
    ins = op.ins
    d = ins.decoded
    name = d.pick(*ATOM_OPS)
    if name is None:
        raise CompileError("no atomic operation")
    name = name[1:]
    if d.get("vec"):
        raise CompileError("vector atomics are not supported")
    t = d.get("type")
    if t not in ATOM_TYPES:
        raise CompileError("no data type" if t is None else f"`{t}` is not an atomic type")
    space = d.get("space") or "generic"
    try:
        combine = atom_combine(name, t, ftz=(t == ".f32" and space != ".shared"))
    except Exception as e:  # Unsupported
        raise CompileError(str(e))
    width = ptxtypes.WIDTH[t]
    ops = list(ins.operands)
    has_d = d.mnemonic == "atom"
    dnode = ops.pop(0) if has_d else None
    dest = prog.dest(dnode, t, ins) if has_d else None
    aop = AddressOperand(prog, ops.pop(0), space, ins)
    if aop.pvar is not None:
        raise CompileError("atomics on .param variables")
    nsrc = 2 if name == "cas" else 1
    srcs = [prog.source(x, t, ins) for x in ops[:nsrc]]
    int_add = name == "add" and t[1] in "us"
    # integer adds whose old values nobody reads (the destination register is named nowhere
    # else, or red): the sum per address is the same in any order, so a scatter-add does
    summed = int_add and width != 128 and (not has_d or only_written_here(prog, op.fn, dnode))
    if summed:
        dest = None
    hints = hints_of(d)
    policy = _policy_source(prog, ins, hints)

    def run(b, act):
        n = b.count(act)
        addr = aop.values(b, act)
        tr = b.trace
        if tr is not None:
            tr.record(b, op, d.mnemonic, space, act, addr, width // 8, hints,
                      policy(b, act) if policy else None)
        parts = b.sp.resolve(space, addr, width // 8, b.threads(act), True)
        bv = [s(b, act) for s in srcs]
        if summed:
            dt = ptxtypes.UINT[width]
            for backing, idx, pos in parts:
                vals = np.broadcast_to(bv[0], (n,)) if pos is None else bv[0][pos]
                np.add.at(backing.view(dt), idx // (width // 8), vals.astype(dt, copy=False))
            return
        old_all = np.zeros(n, ptxtypes.UINT[width]) if width != 128 else np.zeros((n, 2), np.uint64)
        for backing, idx, pos in parts:
            sub = [x if pos is None else x[pos] for x in bv]
            old = _serialised(backing, idx, width, combine, sub, int_add)
            if pos is None:
                old_all = old
            else:
                old_all[pos] = old
        if dest is not None:
            dest(b, act, old_all)
    op.run = run


def _serialised(backing, idx, width, combine, srcs, int_add):
    """Apply combine(old, *srcs) per thread, in thread order for threads sharing an address;
    returns each thread's old value."""
    view = backing.view(ptxtypes.UINT[width])
    wb = width // 8
    el = idx // wb
    n = len(el)
    order = stable_order(el)
    se = el[order]
    first = np.ones(n, bool)
    first[1:] = se[1:] != se[:-1]
    starts = np.flatnonzero(first)
    if len(starts) == n:                             # all distinct: one round
        old = view[el]
        view[el] = combine(old, *srcs)
        return old
    old = np.empty(n, ptxtypes.UINT[width])
    if int_add:
        vals = srcs[0][order].astype(ptxtypes.UINT[width])
        cs = np.cumsum(vals, dtype=ptxtypes.UINT[width])
        excl = cs - vals
        seg = np.cumsum(first) - 1
        prefix = excl - excl[starts][seg]
        base = view[se]
        old[order] = base + prefix
        last = np.r_[starts[1:] - 1, n - 1]
        view[se[last]] = base[last] + prefix[last] + vals[last]
        return old
    rank = np.arange(n) - starts[np.cumsum(first) - 1]
    for r in range(int(rank.max()) + 1):
        sel = order[rank == r]
        e = el[sel]
        o = view[e]
        view[e] = combine(o, *[s[sel] for s in srcs])
        old[sel] = o
    return old


# ---------------------------------------------------------------------------- address spaces

_WINDOW = {".global": 0, ".local": 1, ".const": 2, ".shared": 3, ".shared::cta": 3,
           ".shared::cluster": 3, ".param": 4, ".param::entry": 4}


def _window_base(L, space):
    return {".global": 0, ".local": L.local, ".const": L.const, ".shared": L.shared,
            ".shared::cta": L.shared, ".shared::cluster": L.shared, ".param": L.param,
            ".param::entry": L.param}[space]


@handler("cvta")
def compile_cvta(op, prog):
    ins = op.ins
    d = ins.decoded
    to = d.has(".to")
    space = d.get("space")
    t = d.pick(".u32", ".u64")
    if space not in _WINDOW or t is None:
        raise CompileError("cvta needs a state space and .u32/.u64")
    d, a = ins.operands
    src = prog.source(a, t, ins)
    dest = prog.dest(d, t, ins)
    L = prog.layout
    base = _window_base(L, space)
    dt = ptxtypes.UINT[ptxtypes.WIDTH[t]]

    def run(b, act):
        v = src(b, act)
        if not to:
            dest(b, act, (v + dt(base)) if base else v.copy())
            return
        u = v.astype(np.uint64)
        code = b.sp.window(u)
        want = _WINDOW[space]
        ok = (code == want) | ((want == 0) & (code == 4)) if want != 4 else (code == 4)
        if not ok.all():
            pos = int(np.flatnonzero(~ok)[0])
            raise Fault(errors.GenericAddressError, pos, int(u[pos]), "generic",
                        f"cvta.to{space} of a generic address outside the {space} window",
                        f"a generic address in the {space} window (check it with isspacep{space})",
                        int((~ok).sum()))
        # a bare `.shared` keeps another cluster CTA's rank (nvcc converts mapa results so, and
        # the hardware gives the shared::cluster address); `.shared::cta` must stay in the CTA
        if space == ".shared::cta":
            rank = ((u - np.uint64(base)) >> np.uint64(SHARED_RANK_SHIFT)).astype(np.int64)
            own = b.sp.rank_of[b.cta_of[b.threads(act)]] + 1
            bad = (rank != 0) & (rank != own)
            if bad.any():
                pos = int(np.flatnonzero(bad)[0])
                raise Fault(errors.GenericAddressError, pos, int(u[pos]), "generic",
                            "cvta.to.shared::cta of another CTA's shared memory",
                            "an address of the executing CTA (use .shared::cluster)")
        dest(b, act, (v - dt(base)) if base else v.copy())
    op.run = run


@handler("isspacep")
def compile_isspacep(op, prog):
    ins = op.ins
    space = ins.decoded.get("space")
    if space not in _WINDOW:
        raise CompileError("isspacep needs a state space")
    d, a = ins.operands
    src = prog.source(a, prog.addr_type, ins)
    dest = prog.dest(d, ".pred", ins)
    L = prog.layout

    def run(b, act):
        u = src(b, act).astype(np.uint64)
        code = b.sp.window(u)
        want = _WINDOW[space]
        if want == 0:
            p = (code == 0) | (code == 4)
        elif want == 3:
            rank = ((u - np.uint64(L.shared)) >> np.uint64(SHARED_RANK_SHIFT)).astype(np.int64)
            p = code == 3
            if space == ".shared::cluster":
                p &= rank <= b.sp.cluster_size
            else:
                own = b.sp.rank_of[b.cta_of[b.threads(act)]] + 1
                p &= (rank == 0) | (rank == own)
        else:
            p = code == want
        dest(b, act, p)
    op.run = run


@handler("mapa")
def compile_mapa(op, prog):
    ins = op.ins
    d = ins.decoded
    generic = d.get("space") != ".shared::cluster"
    t = d.pick(".u32", ".u64")
    if t is None:
        raise CompileError("mapa needs .u32 or .u64")
    d, a, r = ins.operands
    src = prog.source(a, t, ins)
    rsrc = prog.source(r, ".u32", ins)
    dest = prog.dest(d, t, ins)
    L = prog.layout
    dt = ptxtypes.UINT[ptxtypes.WIDTH[t]]

    def run(b, act):
        u = src(b, act).astype(np.uint64)
        rank = rsrc(b, act).astype(np.uint64)
        bad = rank >= np.uint64(b.sp.cluster_size)
        if bad.any():
            pos = int(np.flatnonzero(bad)[0])
            raise Fault(errors.OutOfBoundsError, pos, int(u[pos]), ".shared::cluster",
                        f"mapa to CTA rank {int(rank[pos])} in a cluster of {b.sp.cluster_size}",
                        f"a rank below {b.sp.cluster_size}")
        off = (u - np.uint64(L.shared)) if generic else u
        if generic:
            code = b.sp.window(u)
            if (code != 3).any():
                pos = int(np.flatnonzero(code != 3)[0])
                raise Fault(errors.GenericAddressError, pos, int(u[pos]), "generic",
                            "mapa of a generic address outside the shared window",
                            "a generic address of a shared variable")
        off = off & np.uint64(SHARED_CTA_SPAN - 1)
        out = ((rank + np.uint64(1)) << np.uint64(SHARED_RANK_SHIFT)) | off
        if generic:
            out = out + np.uint64(L.shared)
        dest(b, act, out.astype(dt))
    op.run = run


@handler("getctarank")
def compile_getctarank(op, prog):
    ins = op.ins
    d = ins.decoded
    generic = d.get("space") != ".shared::cluster"
    t = d.pick(".u32", ".u64") or ".u32"
    d, a = ins.operands
    src = prog.source(a, t, ins)
    dest = prog.dest(d, ".u32", ins)
    L = prog.layout

    def run(b, act):
        u = src(b, act).astype(np.uint64)
        off = (u - np.uint64(L.shared)) if generic else u
        rank = (off >> np.uint64(SHARED_RANK_SHIFT)).astype(np.int64)
        own = b.sp.rank_of[b.cta_of[b.threads(act)]]
        dest(b, act, np.where(rank == 0, own, rank - 1).astype(np.uint32))
    op.run = run
