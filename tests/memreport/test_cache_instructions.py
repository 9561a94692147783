"""The emulator runs createpolicy, prefetch, discard and applypriority: operands checked as the
PTX ISA requires (128-byte alignment, size 128, a fraction in (0, 1], primary size <= total
size), policies kept as values that survive registers and memory, no value of the kernel changed."""
from __future__ import annotations

import numpy as np
import pytest

import ptxld
from ptxld.emu import EmulationError, MisalignedAddressError
from ptxld.emu.sem_cache import lookup_policy

HEAD = """.version 8.0
.target sm_80
.address_size 64
"""

POLICIES = HEAD + """
.visible .entry k(.param .u64 pout, .param .u32 fbits, .param .u32 psize)
{
.reg .b64 %rd<10>; .reg .b32 %r<4>;
ld.param.u64 %rd1, [pout];
ld.param.u32 %r1, [fbits];
ld.param.u32 %r2, [psize];
createpolicy.fractional.L2::evict_last.b64 %rd2, 0.25;
createpolicy.fractional.L2::evict_last.b64 %rd3, 0.25;
createpolicy.fractional.L2::evict_last.L2::evict_first.b64 %rd4, %r1;
createpolicy.range.global.L2::evict_last.L2::evict_first.b64 %rd5, [%rd1], %r2, 256;
st.global.u64 [%rd1], %rd2;
st.global.u64 [%rd1+8], %rd3;
st.global.u64 [%rd1+16], %rd4;
st.global.u64 [%rd1+24], %rd5;
ret;
}
"""


def run_policies(fraction: float, psize: int):
    mod = ptxld.RawModule(code=POLICIES)
    out = np.zeros(4, np.uint64)
    fbits = np.float32(fraction).view(np.uint32)
    mod.get_function("k")(1, 1, [out, fbits, np.uint32(psize)])
    return mod, out


def test_policies_are_values_naming_what_createpolicy_made():
    mod, out = run_policies(0.5, 64)
    prog = mod.program
    a, b, c, d = (lookup_policy(prog, int(v)) for v in out)
    assert out[0] == out[1]                     # the same policy twice: the same value
    assert (a.kind, a.primary, a.secondary, a.fraction) == (
        ".fractional", ".L2::evict_last", ".L2::evict_unchanged", 0.25)
    assert (c.fraction, c.secondary) == (0.5, ".L2::evict_first")      # fraction from a register
    assert (d.kind, d.primary_size, d.total_size) == (".range", 64, 256)
    assert lookup_policy(prog, 12345) is None


@pytest.mark.parametrize("fraction", [0.0, 1.5])
def test_a_register_fraction_outside_the_interval_faults(fraction):
    with pytest.raises(EmulationError, match="fraction"):
        run_policies(fraction, 64)


def test_range_primary_above_total_faults():
    with pytest.raises(EmulationError, match="primary-size 512 above total-size 256"):
        run_policies(0.5, 512)


DISCARD = HEAD + """
.visible .entry k(.param .u64 p, .param .u32 off)
{
.reg .b64 %rd<6>; .reg .b32 %r<3>;
ld.param.u64 %rd1, [p];
ld.param.u32 %r1, [off];
cvt.u64.u32 %rd2, %r1;
add.s64 %rd3, %rd1, %rd2;
prefetch.global.L2::evict_last [%rd3];
discard.global.L2 [%rd3], 128;
applypriority.global.L2::evict_normal [%rd3], 128;
ld.global.u32 %r2, [%rd3];
st.global.u32 [%rd1+4], %r2;
ret;
}
"""


def test_discard_needs_a_128_byte_aligned_address():
    mod = ptxld.RawModule(code=DISCARD)
    with pytest.raises(MisalignedAddressError, match="discard"):
        mod.get_function("k")(1, 1, [np.zeros(128, np.uint32), np.uint32(64)])


def test_cache_instructions_leave_values_alone():
    mod = ptxld.RawModule(code=DISCARD)
    buf = np.arange(128, dtype=np.uint32)
    rep = mod.get_function("k")(1, 1, [buf, np.uint32(128)], memory_report=True)
    assert buf[1] == 32                          # the word at byte 128, read after the discard
    kinds = {r["instruction"].split()[0]: r for r in rep.lines}
    assert kinds["prefetch.global.L2::evict_last"]["executions"] == 1
    # the prefetch filled the line (4 sectors) into L2; the discard dropped it; the load misses
    assert kinds["prefetch.global.L2::evict_last"]["l2_misses"] == 4
    assert kinds["ld.global.u32"]["l2_misses"] == 1 and kinds["ld.global.u32"]["l2_hits"] == 0
    # none of the cache instructions moves data to the SM: no requests, no sectors
    assert all(kinds[k]["sectors"] == 0 for k in ("prefetch.global.L2::evict_last",
                                                  "discard.global.L2", "applypriority.global.L2::evict_normal"))
