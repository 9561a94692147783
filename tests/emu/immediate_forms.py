"""Instruction forms with an immediate in one operand position, for the immediate property test.

Every instruction the emulator executes is listed here (an ALU opcode, a hand-written template
for the other handlers), or in `NO_IMMEDIATE` with the reason none of its operands can be an
immediate. `cases()` yields, for each form and each source position that may hold an immediate,
a kernel pair: the instruction with the immediate, and the same instruction with the value in a
register (the reference). Both run under a random per-thread guard.
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from ptxld.emu.alu import lookup

INVENTORY = Path(__file__).resolve().parents[1] / "kernels" / "ptx" / "INVENTORY.txt"

# One or more forms per ALU builder mnemonic, beside the ALU opcodes of the kernel corpus.
ALU_SAMPLES = [
    "abs.s32", "abs.f64", "add.u32", "add.sat.s32", "add.rz.f64", "and.b32", "bfe.u32", "bfe.s64",
    "bfi.b32", "bfind.u64", "brev.b64", "clz.b64", "cnot.b32", "copysign.f64", "cos.approx.f32",
    "cvt.rn.f32.f64", "cvt.u32.s16", "div.rn.f64", "div.full.f32", "div.s64", "dp2a.lo.u32.s32",
    "dp2a.hi.s32.u32", "dp4a.u32.u32", "dp4a.s32.s32", "ex2.approx.f32", "fma.rn.f64",
    "fma.rz.ftz.sat.f32", "lg2.approx.f32", "lop3.b32", "mad.hi.u64", "mad.lo.u16", "mad.rn.f64",
    "mad24.lo.u32", "mad24.hi.s32", "max.u64", "max.f64", "min.s16", "min.NaN.f32", "mov.u64",
    "mov.f64", "mul.lo.u64", "mul.wide.s32", "mul.rp.f64", "mul24.lo.s32", "mul24.hi.u32",
    "neg.s64", "neg.f64", "not.b64", "or.b16", "popc.b64", "prmt.b32", "prmt.b32.f4e", "prmt.b32.rc16",
    "rcp.rn.f64", "rcp.approx.ftz.f64", "rem.u64", "rsqrt.approx.f64", "sad.u32", "sad.s64", "selp.u64",
    "selp.f64", "set.lt.u32.f32", "set.eq.s32.s32", "setp.lt.f64", "setp.hi.u64", "setp.lt.and.s32",
    "shf.r.clamp.b32", "shf.l.wrap.b32", "shl.b64", "shr.s16", "sin.approx.f32", "slct.s32.f32",
    "slct.b32.s32", "sqrt.rn.f64", "sqrt.approx.f32", "sub.sat.s32", "sub.u64", "tanh.approx.f32",
    "testp.finite.f32", "testp.notanumber.f64", "xor.b16",
    # extended-precision arithmetic (the carry flag: set by the first, consumed by the second)
    "add.cc.u32", "addc.u32", "addc.cc.u64", "sub.cc.u64", "subc.cc.u32", "subc.s64",
    "mad.lo.cc.u32", "madc.lo.u32", "madc.hi.cc.u64",
    # bit fields, packing, the n-th set bit
    "bmsk.clamp.b32", "bmsk.wrap.b32", "szext.clamp.s32", "szext.wrap.u32", "cvt.pack.sat.u8.s32.b32",
    "cvt.pack.sat.s16.s32", "cvt.pack.sat.s4.s32.b32", "fns.b32",
]

# The carry-flag consumers need a producer first (the flag is undefined before any write); the
# test runs `add.cc.u32 %c, %c, %c` with the thread's own values in front of them.
CARRY_IN = {"addc", "subc", "madc"}

MASK = ".b32 member mask"

# Templates for instructions with a handler of their own: `{d}` a destination register, `{a}` a
# global address register, and `{s0}`, `{s1}` ... the sources (type per source, "" = immediate not
# allowed there, which the test still fills with a register).
HANDLER_FORMS = [
    # (template, dst types, source types)
    ("st.global.b32 [{a}], {s0};", (), (".b32",)),
    ("st.global.b64 [{a}], {s0};", (), (".b64",)),
    ("st.global.v2.b32 [{a}], {{{s0}, {s1}}};", (), (".b32", ".b32")),
    ("atom.global.add.u32 {d0}, [{a}], {s0};", (".u32",), (".u32",)),
    ("atom.global.cas.b64 {d0}, [{a}], {s0}, {s1};", (".b64",), (".b64", ".b64")),
    ("red.global.max.s32 [{a}], {s0};", (), (".s32",)),
    # MASK: the member mask, the ballot of the guard (the warp's active lanes)
    ("shfl.sync.idx.b32 {d0}, {s0}, {s1}, {s2}, {s3};", (".b32",), (".b32", ".b32", ".b32", MASK)),
    ("shfl.sync.bfly.b32 {d0}, {s0}, {s1}, {s2}, {s3};", (".b32",), (".b32", ".b32", ".b32", MASK)),
    ("vote.sync.ballot.b32 {d0}, {s0}, {s1};", (".b32",), (".pred", MASK)),
    ("vote.sync.any.pred {d0}, {s0}, {s1};", (".pred",), (".pred", MASK)),
    ("match.any.sync.b32 {d0}, {s0}, {s1};", (".b32",), (".b32", MASK)),
    ("redux.sync.add.u32 {d0}, {s0}, {s1};", (".u32",), (".u32", MASK)),
    ("mov.b32 {d0}, {s0};", (".b32",), (".b32",)),
    # scalar video instructions take immediates in a, b and c (SIMD ones in none: ptxas
    # "Incorrect video selector"); selectors stay on the register operands
    ("vadd.s32.u32.s32.sat {d0}, {s0}, {s1};", (".b32",), (".b32", ".b32")),
    ("vsub.u32.s32.u32.add {d0}, {s0}, {s1}, {s2};", (".b32",), (".b32", ".b32", ".b32")),
    ("vabsdiff.s32.s32.s32.max {d0}, {s0}, {s1}, {s2};", (".b32",), (".b32", ".b32", ".b32")),
    ("vmin.u32.u32.s32 {d0}, {s0}, {s1};", (".b32",), (".b32", ".b32")),
    ("vmax.s32.s32.u32.sat.min {d0}, {s0}, {s1}, {s2};", (".b32",), (".b32", ".b32", ".b32")),
    ("vshl.u32.u32.u32.clamp.add {d0}, {s0}, {s1}, {s2};", (".b32",), (".b32", ".b32", ".b32")),
    ("vshr.s32.s32.u32.wrap {d0}, {s0}, {s1};", (".b32",), (".b32", ".b32")),
    ("vmad.s32.s32.u32.sat.shr7 {d0}, {s0}, {s1}, {s2};", (".b32",), (".b32", ".b32", ".b32")),
    ("vset.s32.u32.lt.add {d0}, {s0}, {s1}, {s2};", (".b32",), (".b32", ".b32", ".b32")),
    ("cvta.to.global.u64 {d0}, {s0};", (".u64",), (".u64",)),
    ("isspacep.global {d0}, {s0};", (".pred",), (".u64",)),
]

# Instructions the emulator executes whose operands can never be an immediate, or whose only
# immediate operands are compile-time constants (a barrier number, a cache policy) the test's
# register form could not express.
NO_IMMEDIATE = {
    "activemask": "a destination only",
    "applypriority": "an address and a priority qualifier",
    "bar": "barrier number and count are tested by the barrier tests",
    "barrier": "barrier number and count are tested by the barrier tests",
    "bra": "a label", "call": "a function and parameters",
    "brx": "control flow: brx.idx with an immediate index is tested by test_operands_and_calls.py",
    "brkpt": "no operands", "exit": "no operands", "ret": "no operands", "trap": "no operands",
    "createpolicy": "a fraction qualifier and a destination", "discard": "an address",
    "fence": "no operands", "membar": "no operands", "griddepcontrol": "no operands",
    "getctarank": "an address", "mapa": "an address and a CTA rank (tested by the cluster kernels)",
    "ld": "an address", "ldu": "an address", "prefetch": "an address", "prefetchu": "an address",
    "nanosleep": "no value is observable", "pmevent": "no value is observable",
    "cp.async.bulk.prefetch": "an L2 prefetch hint: its size (register or immediate) changes no value",
    "setmaxnreg": "a count no thread can observe", "wmma": "fragments of registers",
    "alloca": "its result is a stack address, different for every call (tested by test_stack.py)",
    "stacksave": "a destination only", "stackrestore": "a register only (ptxas)",
    **{f"{op}{n}": "SIMD video sources take no immediate (ptxas: \"Incorrect video selector\")"
       for op in ("vadd", "vsub", "vavrg", "vabsdiff", "vmin", "vmax", "vset") for n in "24"},
    # the matrix and asynchronous instructions: fragments of registers and addresses, and
    # operands that are immediates in every form (cp-size, wait_group N, wgmma's scale and
    # transpose immediates, the sparsity selectors; ptxas refuses an immediate metadata operand
    # of wgmma.mma_async.sp): no position where an immediate stands for a register
    **{name: "register fragments and addresses only" for name in (
        "ldmatrix", "stmatrix", "movmatrix", "mma", "mma.sp", "mma.sp::ordered_metadata",
        "wgmma", "wgmma.fence", "wgmma.commit_group", "wgmma.wait_group", "wgmma.mma_async",
        "wgmma.mma_async.sp")},
    **{name: "no operand but addresses, or immediates in every form" for name in (
        "cp.async.commit_group", "cp.async.wait_group", "cp.async.wait_all", "cp.async.bulk.commit_group",
        "cp.async.bulk.wait_group", "cp.async.bulk.prefetch.tensor",
        "cp.async.bulk.tensor", "cp.reduce.async.bulk.tensor", "cp.async.mbarrier.arrive",
        "mbarrier.inval", "mbarrier.pending_count", "barrier.cluster", "tensormap.cp_fenceproxy")},
}

def _corpus_alu_opcodes() -> list[str]:
    text = INVENTORY.read_text()
    section = text.split("## opcodes, all PTX")[1].split("\n## ")[0]
    return [o for o in re.findall(r"^\s+\d+\s+(\S+)$", section, re.M) if lookup(o) is not None]


def alu_opcodes() -> list[str]:
    seen, out = set(), []
    for o in ALU_SAMPLES + _corpus_alu_opcodes():
        if o not in seen:
            seen.add(o)
            out.append(o)
    return out


_WIDTH = {"8": 8, "16": 16, "32": 32, "64": 64}


def width(t: str) -> int:
    if t == MASK:
        return 32
    if t == ".pred":
        return 1
    m = re.search(r"(\d+)", t)
    return int(m.group(1)) if m else 0


def immediate_allowed(t: str) -> bool:
    """Types ptxas takes an immediate for (measured: `.f16`, `.bf16` and the packed half types
    take none; 8- and 128-bit operands are left to their own tests)."""
    if t == ".pred":
        return True
    if t.startswith((".f16", ".bf16", ".e", ".tf32")) or t.endswith(("x2", "x4")):
        return False
    return width(t) in (16, 32, 64)


def immediate_text(t: str, bits: int) -> str:
    """The PTX literal for raw bits of type t."""
    w = width(t)
    if t == ".pred":
        return str(bits & 1)
    if t == ".f32":
        return "0f%08X" % (bits & 0xFFFFFFFF)
    if t == ".f64":
        return "0d%016X" % (bits & (2**64 - 1))
    return "0x%X" % (bits & ((1 << w) - 1))


def reg_type(t: str) -> str:
    w = width(t)
    return ".pred" if w == 1 else ".b%d" % w


def kernel_text(line: str, dst_types, src_types, target: str = "sm_80", name: str = "k",
                header: bool = True) -> str:
    """A kernel: thread t loads source i from in[t*8+i] (8-byte slots, low bits), dst j is
    preset to a sentinel, `@%m line` runs under the mask byte msk[t], dst j goes to out[t*8+j]."""
    regs = []
    body = ["mov.u32 %t, %tid.x;", "cvt.u64.u32 %ta, %t;", "shl.b64 %ta, %ta, 6;",
            "ld.param.u64 %pin, [pin];", "ld.param.u64 %pout, [pout];", "ld.param.u64 %pm, [pmsk];",
            "cvta.to.global.u64 %pin, %pin;", "cvta.to.global.u64 %pout, %pout;",
            "cvta.to.global.u64 %pm, %pm;", "add.s64 %pin, %pin, %ta;", "add.s64 %pout, %pout, %ta;",
            "cvt.u64.u32 %tm, %t;", "add.s64 %pm, %pm, %tm;", "ld.global.u8 %mk, [%pm];",
            "setp.ne.u16 %m, %mk, 0;", "ld.param.u64 %scratch, [pscr];",
            "cvta.to.global.u64 %scratch, %scratch;", "shl.b64 %tm, %tm, 3;",
            "add.s64 %scratch, %scratch, %tm;"]
    for i, t in enumerate(src_types):
        rt = reg_type(t)
        regs.append(f".reg {rt} %s{i};")
        if rt == ".pred":
            body += [f"ld.global.u8 %mk, [%pin+{8 * i}];", f"setp.ne.u16 %s{i}, %mk, 0;"]
        else:
            body.append(f"ld.global{rt} %s{i}, [%pin+{8 * i}];")
    for j, t in enumerate(dst_types):
        rt = reg_type(t)
        regs.append(f".reg {rt} %d{j};")
        if rt == ".pred":
            body.append(f"setp.ne.u32 %d{j}, %t, 5;")
        else:
            body.append(f"mov{rt} %d{j}, {immediate_text(rt, 0xA5A5A5A5A5A5A5A5)};")
    body.append(f"@%m {line}")
    for j, t in enumerate(dst_types):
        rt = reg_type(t)
        if rt == ".pred":
            body += [f"selp.u16 %mk, 1, 0, %d{j};", f"st.global.u8 [%pout+{8 * j}], %mk;"]
        else:
            body.append(f"st.global{rt} [%pout+{8 * j}], %d{j};")
    decl = [".reg .b32 %t;", ".reg .b64 %ta, %tm, %pin, %pout, %pm, %scratch;", ".reg .b16 %mk;",
            ".reg .pred %m;", ".reg .b32 %cc<2>;", ".reg .b64 %ccd<2>;"] + regs
    head = [".version 8.0", f".target {target}", ".address_size 64"] if header else []
    return ("\n".join(head + [f".visible .entry {name}(.param .u64 pin, .param .u64 pout, "
                               ".param .u64 pmsk, .param .u64 pscr) {"] + decl + body + ["ret;", "}"]) + "\n")


# Source positions that must always be an immediate (lop3's truth table).
FIXED_IMMEDIATE = {"lop3": (3,)}


def alu_line(opcode: str, dst_types, src_types, imms: dict) -> str:
    """The instruction with the sources in `imms` (position -> raw bits) as immediates."""
    srcs = [immediate_text(t, imms[k]) if k in imms else f"%s{k}" for k, t in enumerate(src_types)]
    dsts = [f"%d{j}" for j in range(len(dst_types))]
    line = f"{opcode} {', '.join(dsts + srcs)};"
    if opcode.split(".")[0] in CARRY_IN:       # set the flag from the thread's own values first
        ct = ".u64" if "64" in opcode else ".u32"
        pre = "%ccd0" if ct == ".u64" else "%cc0"
        line = (f"mov.b{ct[2:]} {pre}, %s{0 if src_types[0] != '.pred' else 1};\n"
                f"@%m add.cc{ct} {pre}, {pre}, {pre};\n@%m " + line)
    return line


def handler_line(template: str, dst_types, src_types, imms: dict) -> str:
    fill = {f"d{j}": f"%d{j}" for j in range(len(dst_types))}
    for k, t in enumerate(src_types):
        fill[f"s{k}"] = immediate_text(t, imms[k]) if k in imms else f"%s{k}"
    fill["a"] = "%scratch"
    return template.format(**fill)


def random_inputs(rng, n: int) -> tuple[np.ndarray, np.ndarray]:
    values = rng.integers(0, 2**64, size=(n, 8), dtype=np.uint64)
    # small values in some slots so shifts, bit positions, lane indices and counts are interesting
    small = rng.integers(0, 40, size=(n, 8), dtype=np.uint64)
    values = np.where(rng.random((n, 8)) < 0.3, small, values)
    mask = (rng.random(n) < 0.6).astype(np.uint8)
    return values, mask
