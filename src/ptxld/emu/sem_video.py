"""Video instructions (PTX ISA 9.7.18), scalar and SIMD, through `alu.video`.

The selectors are written on the operands (`%r2.b1`, `%r3.h0`, `%r1.b3210`, `%d.h10`): this
module reads each operand's selector off its name and fetches the plain register. Everything
about the opcode comes from its record (`ptxld.spec.instructions.video`)."""
from __future__ import annotations

import re

from ..ptx.nodes import Expr, Name
from ..spec.instructions.video import SCALAR_LOWERING, SIMD
from .alu import video as video_alu
from .handlers import CompileError, handler

_SCALAR_SEL = re.compile(r"^(b[0-3]|h[01])$")
_SIMD_SEL = {2: re.compile(r"^h[0-3]{2}$"), 4: re.compile(r"^b[0-7]{4}$")}
_SIMD_MASK = {2: re.compile(r"^h(0|1|10)$"), 4: re.compile(r"^b(3?2?1?0?)$")}
_DEFAULT_SEL = {2: ("h10", "h32"), 4: ("b3210", "b7654")}


def _split(node, negatable: bool = False):
    """(plain operand, selector or None, negated)."""
    neg = False
    if negatable and isinstance(node, Expr) and node.op == "u-" and len(node.args) == 1:
        node, neg = node.args[0], True
    if isinstance(node, Name) and node.component is not None:
        return Name(node.name, node.start, node.end), node.component, neg
    return node, None, neg


def _signed(t: str | None) -> bool:
    return t == ".s32"


def _operands(op, n: int):
    ops = op.ins.operands
    if len(ops) != n:
        raise CompileError(f"`{op.ins.opcode}` takes {n} operands, found {len(ops)}")
    return ops


def _sel_check(sel, pattern, what, ins):
    if sel is not None and not pattern.match(sel):
        raise CompileError(f"`.{sel}` is not a {what} selector of `{ins.opcode}`")


def _scalar(op, prog, compute):
    """Compile a scalar video instruction: `compute(ta_src, tb_src) -> fn(b, idx) -> s34 values`
    is built by the caller from the selected sources."""
    ins, d = op.ins, op.ins.decoded
    has_c = len(ins.operands) == 4
    ops = _operands(op, 4 if has_c else 3)
    dnode, dsel, _ = _split(ops[0])
    _sel_check(dsel, _SCALAR_SEL, "destination", ins)
    secop = d.get("secop")
    if dsel is not None and secop is not None:
        raise CompileError("a destination selector (merge) and a secondary operation exclude each other")
    if (dsel is not None or secop is not None) and not has_c:
        raise CompileError(f"`{ins.opcode}` needs the operand c")
    c = prog.source(ops[3], ".u32", ins) if has_c else None
    dest = prog.dest(dnode, ".u32", ins)
    tmp_of = compute(ops[1], ops[2])
    # vset has no destination type: its secondary operation compares as atype (measured)
    dsigned = _signed(d.get("dtype") or d.get("atype"))
    lowering = SCALAR_LOWERING[d.name]
    sat = d.get("sat") is not None
    sec = secop[1:] if secop else None
    ds = dsel

    def run(b, act):
        tmp = tmp_of(b, act)
        cv = c(b, act) if c is not None else tmp * 0
        dest(b, act, video_alu.finish_scalar(tmp, cv, dsigned=dsigned, sat=sat, secop=sec, dsel=ds,
                                                    lowering=lowering))
    op.run = run


def _selected(prog, node, signed, ins):
    plain, sel, _ = _split(node)
    _sel_check(sel, _SCALAR_SEL, "source", ins)
    src = prog.source(plain, ".u32", ins)
    return lambda b, idx: video_alu.part_select(src(b, idx), sel, signed)


@handler("vadd", "vsub", "vabsdiff", "vmin", "vmax")
def compile_video_scalar(op, prog):
    d = op.ins.decoded
    name = d.name

    def compute(a, b_):
        ta = _selected(prog, a, _signed(d.get("atype")), op.ins)
        tb = _selected(prog, b_, _signed(d.get("btype")), op.ins)
        return lambda b, idx: video_alu.scalar_op(name, ta(b, idx), tb(b, idx))
    _scalar(op, prog, compute)


@handler("vshl", "vshr")
def compile_video_shift(op, prog):
    d = op.ins.decoded
    mode = d.get("mode")
    if mode is None:
        raise CompileError(f"`{op.ins.opcode}` needs .clamp or .wrap")
    name = d.name

    def compute(a, b_):
        ta = _selected(prog, a, _signed(d.get("atype")), op.ins)
        tb = _selected(prog, b_, False, op.ins)           # the shift amount is unsigned
        return lambda b, idx: video_alu.shift(name, ta(b, idx), tb(b, idx), mode[1:])
    _scalar(op, prog, compute)


@handler("vset")
def compile_video_set(op, prog):
    d = op.ins.decoded
    cmp = d.get("cmp")
    if cmp is None:
        raise CompileError(f"`{op.ins.opcode}` needs a comparison")

    def compute(a, b_):
        ta = _selected(prog, a, _signed(d.get("atype")), op.ins)
        tb = _selected(prog, b_, _signed(d.get("btype")), op.ins)
        return lambda b, idx: video_alu.compare(cmp[1:], ta(b, idx), tb(b, idx))
    _scalar(op, prog, compute)


@handler("vmad")
def compile_video_mad(op, prog):
    ins, d = op.ins, op.ins.decoded
    ops = _operands(op, 4)
    dnode, dsel, _ = _split(ops[0])
    if dsel is not None:
        raise CompileError("vmad takes no destination selector")
    (pa, sa, na), (pb, sb, nb), (pc, sc, nc) = (_split(x, negatable=True) for x in ops[1:])
    po = d.get("po") is not None
    if po and (na or nb or nc):
        raise CompileError("vmad.po negates no operand")
    if (na ^ nb) and nc:
        raise CompileError("vmad negates either a or b, or c, not both")
    if sc is not None:
        raise CompileError("vmad's c takes no selector")
    for s in (sa, sb):
        _sel_check(s, _SCALAR_SEL, "source", ins)
    asg, bsg = _signed(d.get("atype")), _signed(d.get("btype"))
    src_a, src_b = prog.source(pa, ".u32", ins), prog.source(pb, ".u32", ins)
    src_c = prog.source(pc, ".u32", ins)
    dest = prog.dest(dnode, ".u32", ins)
    scale = {".shr7": 7, ".shr15": 15}.get(d.get("scale"), 0)
    sat = d.get("sat") is not None
    signed_final = asg or bsg or (na ^ nb) or nc

    def run(b, act):
        # an unselected word enters the multiply as a signed word whatever its type (measured)
        ta = video_alu.part_select(src_a(b, act), sa, asg or sa is None)
        tb = video_alu.part_select(src_b(b, act), sb, bsg or sb is None)
        dest(b, act, video_alu.vmad(ta, tb, src_c(b, act), neg_ab=na ^ nb, neg_c=nc, po=po,
                            signed_final=signed_final, scale=scale, sat=sat))
    op.run = run


@handler(*SIMD)
def compile_video_simd(op, prog):
    ins, d = op.ins, op.ins.decoded
    base, lanes = SIMD[d.name]
    ops = _operands(op, 4)
    dnode, mask, _ = _split(ops[0])
    (pa, sa, _), (pb, sb, _) = _split(ops[1]), _split(ops[2])
    _sel_check(mask, _SIMD_MASK[lanes], "mask", ins)
    for s in (sa, sb):
        _sel_check(s, _SIMD_SEL[lanes], "source", ins)
    sa = sa or _DEFAULT_SEL[lanes][0]
    sb = sb or _DEFAULT_SEL[lanes][1]
    add = (d.get("add") or d.get("secop")) == ".add"
    sat = d.get("sat") is not None
    if add and sat:
        raise CompileError(".sat and .add exclude each other")
    src_a, src_b = prog.source(pa, ".u32", ins), prog.source(pb, ".u32", ins)
    src_c = prog.source(ops[3], ".u32", ins)
    dest = prog.dest(dnode, ".u32", ins)
    if base == "vset":
        cmp = d.get("cmp")
        asg, bsg, dsigned = _signed(d.get("atype")), _signed(d.get("btype")), False

        def lanes_of(va, vb):
            return [video_alu.compare(cmp[1:], x, y) for x, y in zip(va, vb)]
    else:
        asg, bsg, dsigned = _signed(d.get("atype")), _signed(d.get("btype")), _signed(d.get("dtype"))

        def lanes_of(va, vb):
            return [video_alu.simd_op(base, x, y) for x, y in zip(va, vb)]

    def run(b, act):
        a, bb = src_a(b, act), src_b(b, act)
        va = video_alu.simd_lanes(a, bb, sa, lanes, asg)
        vb = video_alu.simd_lanes(a, bb, sb, lanes, bsg)
        dest(b, act, video_alu.finish_simd(lanes_of(va, vb), src_c(b, act), lanes=lanes, dsigned=dsigned,
                                   sat=sat, add=add, mask=mask))
    op.run = run
