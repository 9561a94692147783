"""Barrier completion on the paths the scheduler takes for speed: a constant barrier id, a
barrier id in a register, divergence reported for the CTA that diverges (not another), and
non-aligned `barrier.sync` allowed at two instructions (PTX ISA: only .aligned barriers must be
the same instruction for every thread of the CTA)."""
from __future__ import annotations

import numpy as np
import pytest

import ptxld
from ptxld import emu

HEAD = """.version 8.3
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p)
{
.reg .pred %p<4>;
.reg .b32 %r<16>;
.reg .b64 %rd<16>;
.shared .align 4 .b8 s[1024];
ld.param.u64 %rd1, [p];
mov.u32 %r1, %tid.x;
mov.u32 %r2, %ctaid.x;
"""


def run(body: str, grid=2, block=64):
    k = ptxld.RawModule(code=HEAD + body + "\nret;\n}\n").get_function("k")
    out = np.zeros(grid * block, np.int32)
    k(grid, block, [out])
    return out


# each thread stores its tid to shared memory, waits, reads its neighbour's entry
EXCHANGE = """shl.b32 %r3, %r1, 2;
mov.u32 %r4, s;
add.u32 %r5, %r4, %r3;
st.shared.u32 [%r5], %r1;
{bar}
xor.b32 %r6, %r1, 1;
shl.b32 %r6, %r6, 2;
add.u32 %r6, %r4, %r6;
ld.shared.u32 %r7, [%r6];
mad.lo.u32 %r8, %r2, 64, %r1;
mul.wide.u32 %rd2, %r8, 4;
add.s64 %rd3, %rd1, %rd2;
st.global.u32 [%rd3], %r7;"""


@pytest.mark.parametrize("bar", ["bar.sync 0;", "barrier.sync 3;", "mov.u32 %r9, 5;\nbar.sync %r9;"])
def test_barrier_orders_shared_memory(bar):
    out = run(EXCHANGE.format(bar=bar))
    assert np.array_equal(out, np.tile(np.arange(64) ^ 1, 2))


def test_divergence_names_the_diverging_cta():
    body = """setp.eq.u32 %p2, %r2, 1;
setp.lt.u32 %p1, %r1, 32;
and.pred %p1, %p1, %p2;
@%p1 bra L1;
bar.sync 0;
bra L2;
L1:
bar.sync 0;
L2:"""
    with pytest.raises(emu.BarrierError) as e:
        run(body)
    assert "divergence" in str(e.value) and "CTA (1,0,0)" in str(e.value)


def test_non_aligned_barrier_may_be_two_instructions():
    body = """setp.lt.u32 %p1, %r1, 32;
@%p1 bra L1;
barrier.sync 0;
bra L2;
L1:
barrier.sync 0;
L2:
mad.lo.u32 %r8, %r2, 64, %r1;
mul.wide.u32 %rd2, %r8, 4;
add.s64 %rd3, %rd1, %rd2;
st.global.u32 [%rd3], %r1;"""
    out = run(body)
    assert np.array_equal(out, np.tile(np.arange(64), 2))
