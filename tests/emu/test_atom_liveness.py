"""Integer atom.add whose old value is never read is summed per address in any order (the
result in memory is the same as in thread order; PTX ISA: atomics of one instruction are
performed in some order); the old values, where any instruction names the destination register,
still come in thread order."""
from __future__ import annotations

import numpy as np
import pytest

import ptxld
from ptxld.emu.liveness import only_written_here

HEAD = """.version 8.3
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p, .param .u64 q)
{
.reg .pred %p<4>;
.reg .b32 %r<16>;
.reg .b64 %rd<16>;
.shared .align 4 .b8 s[64];
ld.param.u64 %rd1, [p];
ld.param.u64 %rd2, [q];
mov.u32 %r1, %tid.x;
mov.u32 %r4, s;
st.shared.u32 [%r4], 0;
st.shared.u32 [%r4+4], 0;
bar.sync 0;
and.b32 %r5, %r1, 1;
shl.b32 %r5, %r5, 2;
add.u32 %r6, %r4, %r5;
rem.u32 %r7, %r1, 7;
{atom}
bar.sync 0;
setp.lt.u32 %p1, %r1, 2;
@!%p1 bra DONE;
ld.shared.u32 %r9, [%r6];
mul.wide.u32 %rd3, %r1, 4;
add.s64 %rd4, %rd1, %rd3;
st.global.u32 [%rd4], %r9;
DONE:
{after}
ret;
}}
"""
OLD_OUT = """mul.wide.u32 %rd5, %r1, 4;
add.s64 %rd6, %rd2, %rd5;
st.global.u32 [%rd6], %r8;"""


def build(atom: str, after: str = ""):
    mod = ptxld.RawModule(code=HEAD.replace("{atom}", atom).replace("{after}", after)
                          .replace("}}", "}"))
    return mod, mod.get_function("k")


def sums(n):
    t = np.arange(n)
    return np.array([(t[t % 2 == c] % 7).sum() for c in (0, 1)])


@pytest.mark.parametrize("atom,after", [
    ("atom.shared.add.u32 %r8, [%r6], %r7;", ""),             # old value never read
    ("red.shared.add.u32 [%r6], %r7;", ""),
    ("atom.shared.add.u32 %r8, [%r6], %r7;", OLD_OUT),        # old values stored
])
def test_sums_are_the_same_either_way(atom, after):
    _, k = build(atom, after)
    out, old = np.zeros(2, np.uint32), np.zeros(128, np.uint32)
    k(1, 128, [out, old])
    assert np.array_equal(out, sums(128))
    if after:
        t = np.arange(128)
        want = np.zeros(128, np.int64)
        for c in (0, 1):
            sel = t[t % 2 == c]
            want[sel] = np.cumsum(sel % 7) - sel % 7
        assert np.array_equal(old, want)


@pytest.mark.parametrize("after,dead", [
    ("", True),
    (OLD_OUT, False),                                          # read by st.global
    ("setp.eq.u32 %p2, %r8, 0;", False),                       # read by setp
    ("@%p1 mov.u32 %r8, 5;", False),     # named again (only written): kept, conservatively
])
def test_only_written_here(after, dead):
    mod, _ = build("atom.shared.add.u32 %r8, [%r6], %r7;", after)
    prog = mod.program
    op = next(o for o in prog.code if o.ins is not None and o.ins.opcode.startswith("atom"))
    assert only_written_here(prog, op.fn, op.ins.operands[0]) == dead
