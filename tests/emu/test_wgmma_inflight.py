"""Accesses to the operand registers of a wgmma.mma_async still in flight (the PTX ISA leaves any
access before the covering wgmma.wait_group undefined): reported at the accessing instruction,
with the register and the mma_async's line; correct programs (chained operations, accesses after
the wait, `wait_group 1` retiring only the older group) run. Kernels hand-written, checked by
ptxas where it is on PATH."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import wgmma_sparse_ptx as sp  # noqa: E402

import ptxld  # noqa: E402
from ptxld import emu  # noqa: E402

# two m64n8k16 .f32.f16.f16 operations (A from registers %a*, B zero in shared memory) on the
# accumulators %x* and %y*, each its own group; {between} sits after the second commit, {after}
# after `wait_group 1`, which retires the first group only
TWO_GROUPS = """.version 8.7
.target sm_90a
.address_size 64

.visible .entry two(.param .u64 pout)
{{
  .reg .b32 %a<4>;
  .reg .f32 %x<4>;
  .reg .f32 %y<4>;
  .reg .f32 %s;
  .reg .b32 %r<4>;
  .reg .b16 %h;
  .reg .b64 %rd<8>;
  .shared .align 1024 .b8 smem[256];

  ld.param.u64 %rd1, [pout];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 32;
  add.s64 %rd3, %rd1, %rd2;
  mov.u32 %r2, smem;
  shl.b32 %r3, %r1, 1;
  add.s32 %r3, %r3, %r2;
  mov.b16 %h, 0;
  st.shared.b16 [%r3], %h;
  fence.proxy.async.shared::cta;
  bar.sync 0;
  cvt.u64.u32 %rd4, %r2;
  shr.u64 %rd4, %rd4, 4;
  or.b64 %rd4, %rd4, 68720001024;     // LBO 128, SBO 256 (K-major, no swizzle)
  mov.b32 %a0, 1006648320;
  mov.b32 %a1, %a0;
  mov.b32 %a2, %a0;
  mov.b32 %a3, %a0;
  mov.f32 %x0, 0f3F800000;
  mov.f32 %x1, %x0;
  mov.f32 %x2, %x0;
  mov.f32 %x3, %x0;
  mov.f32 %y0, 0f40000000;
  mov.f32 %y1, %y0;
  mov.f32 %y2, %y0;
  mov.f32 %y3, %y0;
  wgmma.fence.sync.aligned;
  wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {{%x0, %x1, %x2, %x3}}, {{%a0, %a1, %a2, %a3}}, %rd4, 1, 1, 1, 0;
  wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {{%x0, %x1, %x2, %x3}}, {{%a0, %a1, %a2, %a3}}, %rd4, 1, 1, 1, 0;
  wgmma.commit_group.sync.aligned;
  wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {{%y0, %y1, %y2, %y3}}, {{%a0, %a1, %a2, %a3}}, %rd4, 1, 1, 1, 0;
  wgmma.commit_group.sync.aligned;
{between}
  wgmma.wait_group.sync.aligned 1;
{after}
  st.global.v4.f32 [%rd3], {{%x0, %x1, %x2, %x3}};
  wgmma.wait_group.sync.aligned 0;
  st.global.v4.f32 [%rd3+16], {{%y0, %y1, %y2, %y3}};
  ret;
}}
"""

SECOND_MMA = 47        # line of the mma_async on %y*


def _two(between: str = "", after: str = "") -> str:
    return TWO_GROUPS.format(between=between, after=after)


def _run_two(ptx: str) -> np.ndarray:
    out = np.zeros(128 * 8, np.float32)
    ptxld.RawModule(ptx).get_function("two")((1, 1, 1), (128, 1, 1), [out])
    return out.reshape(128, 8)


def test_the_mma_line_constant_matches_the_kernel():
    assert "{%y0, %y1, %y2, %y3}, {%a0" in _two().splitlines()[SECOND_MMA - 1]


def test_correct_program_runs_chained_operations_and_partial_wait():
    out = _run_two(_two(after="  add.f32 %s, %x0, %x1;"))    # the first group is complete here
    np.testing.assert_array_equal(out[:, :4], 1.0)      # B is zero: D = C
    np.testing.assert_array_equal(out[:, 4:], 2.0)


@pytest.mark.parametrize("between,reg", [
    ("  add.f32 %s, %x0, %x1;", "%x0"),                  # the first group is not waited for yet
    ("  mov.b32 %r3, %a2;", "%a2"),                      # A registers too
])
def test_read_before_any_wait_is_reported(between, reg):
    with pytest.raises(emu.AsyncRegisterError) as info:
        _run_two(_two(between=between))
    err = info.value
    lines = _two(between=between).splitlines()
    assert lines[err.line - 1].strip() == between.strip() and err.line == SECOND_MMA + 2
    assert f"`{reg}`" in str(err) and "wait_group" in str(err) and err.thread == (0, 0, 0)
    assert err.others == 127


def test_read_of_the_group_wait_group_1_keeps_in_flight_is_reported():
    ptx = _two(after="  add.f32 %s, %y3, %x0;")
    with pytest.raises(emu.AsyncRegisterError) as info:
        _run_two(ptx)
    err = info.value
    assert err.line == SECOND_MMA + 4 and "`%y3`" in str(err)
    assert f"wgmma.mma_async at line {SECOND_MMA}" in str(err)


def test_guarded_read_by_some_threads_names_the_first_of_them():
    between = "  setp.eq.u32 %p, %r1, 77;\n  @%p add.f32 %s, %y0, %y0;"
    ptx = _two(between=between).replace("  .reg .f32 %s;", "  .reg .f32 %s;\n  .reg .pred %p;")
    with pytest.raises(emu.AsyncRegisterError) as info:
        _run_two(ptx)
    assert info.value.thread == (77, 0, 0) and info.value.others == 0


def test_sparse_operation_read_before_wait_is_reported():
    ptx = sp.kernel_ptx("f16", "f16", "f32", 16, 0, a_in_regs=True,
                        touch="  st.global.f32 [%rd20], %d5;")
    args, _ = sp.inputs("f16", "f16", "f32", 16, 0, a_in_regs=True)
    with pytest.raises(emu.AsyncRegisterError) as info:
        ptxld.RawModule(ptx).get_function("k")((1, 1, 1), (128, 1, 1), args)
    lines = ptx.splitlines()
    assert lines[info.value.line - 1].strip() == "st.global.f32 [%rd20], %d5;"
    mma = next(i for i, x in enumerate(lines, 1) if "wgmma.mma_async.sp" in x)
    assert "`%d5`" in str(info.value) and f"line {mma}" in str(info.value)


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas not on PATH")
@pytest.mark.parametrize("ptx", [
    _two(), _two(between="  add.f32 %s, %x0, %x1;"), _two(after="  add.f32 %s, %y3, %x0;"),
    sp.kernel_ptx("f16", "f16", "f32", 16, 0, a_in_regs=True, touch="  st.global.f32 [%rd20], %d5;"),
], ids=["correct", "read-before-wait", "read-after-partial-wait", "sparse-read"])
def test_kernels_are_accepted_by_ptxas(tmp_path, ptx):
    src = tmp_path / "k.ptx"
    src.write_text(ptx)
    done = subprocess.run(["ptxas", "-arch=sm_90a", str(src), "-o", str(tmp_path / "k.cubin")],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
