"""Arithmetic, logic and conversion through `ptxld.emu.alu`, plus `mov` (register moves, special
registers, addresses of variables and functions, vector pack/unpack)."""
from __future__ import annotations

import numpy as np

from ..ptx.nodes import Float, Int, PredPair, Sink, Vector
from ..spec.decode import decode
from . import ptxtypes
from .alu import lookup, why_not
from .handlers import CompileError, handler


_NATIVE = {("add", ".f32"): (np.add, np.float32, np.uint32, 0x7FFFFFFF),
           ("sub", ".f32"): (np.subtract, np.float32, np.uint32, 0x7FFFFFFF),
           ("mul", ".f32"): (np.multiply, np.float32, np.uint32, 0x7FFFFFFF),
           ("add", ".f64"): (np.add, np.float64, np.uint64, 0x7FFFFFFFFFFFFFFF),
           ("sub", ".f64"): (np.subtract, np.float64, np.uint64, 0x7FFFFFFFFFFFFFFF),
           ("mul", ".f64"): (np.multiply, np.float64, np.uint64, 0x7FFFFFFFFFFFFFFF)}


def native_float(opcode: str):
    """`add/sub/mul{.rn}.f32|.f64` without .ftz/.sat: IEEE round-to-nearest is exactly NumPy's
    arithmetic, with NaN results made canonical as the ALU library does (tests check the two
    agree bit for bit). Returns fn(a_bits, b_bits) -> bits, or None."""
    d = decode(opcode)
    rest = [m[0] for m in d.modifiers if m[0] not in d.types]
    if len(d.types) != 1 or rest not in ([], [".rn"]):
        return None
    spec = _NATIVE.get((d.mnemonic, d.types[0]))
    if spec is None:
        return None
    ufunc, ft, ut, nan = spec
    canon = ut(nan)

    def run(a, b):
        with np.errstate(all="ignore"):
            r = ufunc(np.asarray(a).view(ft), np.asarray(b).view(ft))
        bits = np.asarray(r).view(ut)
        isnan = r != r
        if isnan.any():
            bits = np.where(isnan, canon, bits)
        return (bits,)
    return run


def compile_alu(op, prog):
    ins = op.ins
    alu = lookup(ins.opcode)
    if alu is None:
        raise CompileError(why_not(ins.opcode) or f"`{ins.opcode}` is not a known instruction")
    ops = list(ins.operands)
    pair = bool(ops) and isinstance(ops[0], PredPair)
    dst_types = alu.dst_types_pair if pair and alu.dst_types_pair else alu.dst_types
    src_types = alu.src_types
    # the carry flag is an operand of the ALU op the instruction text does not write
    if alu.carry_out:
        dst_types = dst_types[:-1]
    if alu.carry_in:
        src_types = src_types[:-1]
    if pair:
        first = ops.pop(0)
        dnodes = [first.first, first.second]
    else:
        nd = len(dst_types)
        dnodes, ops = ops[:nd], ops[nd:]
    if len(ops) != len(src_types):
        raise CompileError(f"`{ins.opcode}` takes {len(src_types)} source operand(s), "
                           f"found {len(ops)}")
    # every operand, immediates included, arrives with one element per active thread
    srcs = [prog.source(n, t, ins) for n, t in zip(ops, src_types)]
    dsts = [prog.dest(n, t, ins) for n, t in zip(dnodes, dst_types)]
    if alu.carry_in:
        srcs.append(prog.carry_source())
    if alu.carry_out:
        dsts.append(prog.carry_dest())
    call = alu.pair if pair and alu.dst_types_pair else alu
    fast = native_float(ins.opcode)
    if fast is not None and not any(isinstance(n, (Int, Float)) for n in ops):
        call = fast

    def run(b, act):
        vals = [s(b, act) for s in srcs]
        outs = call(*vals)
        n = b.count(act)
        for d, o in zip(dsts, outs):
            if not isinstance(o, np.ndarray) or o.ndim == 0 or o.shape[0] != n:
                o = np.broadcast_to(o, (n,) + np.shape(o)[1:] if np.ndim(o) > 1 else (n,)).copy()
            elif o.base is not None or any(o is v for v in vals):
                o = o.copy()
            d(b, act, o)
    op.run = run


@handler("mov")
def compile_mov(op, prog):
    ins = op.ins
    types = ins.decoded.types
    if len(types) != 1:
        raise CompileError("mov needs a type" if not types else f"mov takes one type, not {len(types)}")
    t = types[0]
    ops = ins.operands
    if len(ops) != 2:
        raise CompileError("mov takes two operands")
    # vector registers named whole become the brace lists of their elements
    d, a = (prog.whole_vector(x, ins) for x in ops)
    vec = ins.decoded.get("vec")
    if vec is not None:
        _compile_mov_vector(op, prog, t, int(vec[2:]), d, a)
        return
    w = ptxtypes.WIDTH[t]
    for x in (d, a):
        if isinstance(x, Vector) and (w % len(x.items) or w // len(x.items) not in (8, 16, 32, 64)):
            raise CompileError(f"a {len(x.items)}-element vector does not split a {t} value")
    if isinstance(a, Vector):                       # pack {a, b, ...} -> d
        parts = a.items
        ew = w // len(parts)
        et = ".b%d" % ew
        srcs = [prog.source(x, et, ins) for x in parts]
        dest = prog.dest(d, t, ins)

        def pack(b, act):
            vals = [s(b, act) for s in srcs]
            if w == 128:
                out = np.empty((b.count(act), 2), np.uint64)
                if ew == 64:
                    out[:, 0], out[:, 1] = vals
                else:
                    v = [x.astype(np.uint64) for x in vals]
                    out[:, 0] = v[0] | (v[1] << np.uint64(32))
                    out[:, 1] = v[2] | (v[3] << np.uint64(32))
            else:
                out = np.zeros(b.count(act), ptxtypes.UINT[w])
                for k, x in enumerate(vals):
                    out |= x.astype(ptxtypes.UINT[w]) << ptxtypes.UINT[w](k * ew)
            dest(b, act, out)
        op.run = pack
        return
    if isinstance(d, Vector):                       # unpack a -> {d0, d1, ...}
        parts = d.items
        ew = w // len(parts)
        et = ".b%d" % ew
        src = prog.source(a, t, ins)
        dests = [None if isinstance(x, Sink) else prog.dest(x, et, ins) for x in parts]

        def unpack(b, act):
            v = src(b, act)
            for k, dst in enumerate(dests):
                if dst is None:
                    continue
                if w == 128:
                    word = v[:, (k * ew) // 64]
                    piece = word if ew == 64 else (word >> np.uint64((k * ew) % 64)).astype(ptxtypes.UINT[ew])
                else:
                    piece = (v >> ptxtypes.UINT[w](k * ew)).astype(ptxtypes.UINT[ew])
                dst(b, act, np.ascontiguousarray(piece))
        op.run = unpack
        return
    src = prog.source(a, t, ins)
    dest = prog.dest(d, t, ins)

    def mov(b, act):
        v = src(b, act)
        if act is None:
            v = v.copy()
        dest(b, act, v)
    op.run = mov


def _compile_mov_vector(op, prog, t, n, d, a):
    """`mov.v2/.v4.type d, a`: element by element, each side a vector register or a brace list
    (an element of the source may be an immediate)."""
    ins = op.ins
    if not (isinstance(d, Vector) and isinstance(a, Vector)):
        raise CompileError(f"mov.v{n} moves a vector of {n} elements into another")
    if len(d.items) != n or len(a.items) != n:
        raise CompileError(f"mov.v{n} needs {n} elements on each side")
    srcs = [prog.source(x, t, ins) for x in a.items]
    dests = [None if isinstance(x, Sink) else prog.dest(x, t, ins) for x in d.items]

    def run(b, act):
        vals = [s(b, act).copy() for s in srcs]          # read every element before writing
        for dst, v in zip(dests, vals):
            if dst is not None:
                dst(b, act, v)
    op.run = run
