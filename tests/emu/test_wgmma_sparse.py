"""wgmma.mma_async.sp executed against NumPy: inputs built from the PTX ISA's description of the
register fragments, the metadata and the canonical shared-memory layout (wgmma_sparse_ptx.py),
every A type, both accumulator kinds, A from registers and from a descriptor, every selector."""
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

FORMS = [  # atype, btype, dtype, n, selector, A in registers
    ("f16", "f16", "f32", 16, 0, True), ("f16", "f16", "f32", 16, 1, False),
    ("f16", "f16", "f16", 24, 1, True), ("bf16", "bf16", "f32", 8, 0, False),
    ("bf16", "bf16", "f32", 16, 1, True),
    ("tf32", "tf32", "f32", 16, 0, True), ("tf32", "tf32", "f32", 8, 1, False),
    ("e4m3", "e5m2", "f32", 16, 0, True), ("e5m2", "e4m3", "f16", 16, 0, False),
    ("e4m3", "e4m3", "f16", 8, 0, True),
    ("s8", "s8", "s32", 16, 0, True), ("u8", "s8", "s32", 24, 0, False), ("s8", "u8", "s32", 8, 0, True),
    # the widest N
    ("f16", "f16", "f16", 256, 0, False), ("tf32", "tf32", "f32", 256, 1, True), ("u8", "u8", "s32", 256, 0, True),
]


def _run(ptx: str, args):
    kernel = ptxld.RawModule(ptx).get_function("k")
    kernel((1, 1, 1), (128, 1, 1), args)
    return args[3]


@pytest.mark.parametrize("atype,btype,dtype,n,sel,regs", FORMS,
                         ids=[f"{a}.{b}.{d}.n{n}.sel{s}.{'regs' if r else 'desc'}" for a, b, d, n, s, r in FORMS])
def test_sparse_wgmma_matches_numpy(atype, btype, dtype, n, sel, regs):
    args, want = sp.inputs(atype, btype, dtype, n, sel, a_in_regs=regs, seed=n + sel)
    out = _run(sp.kernel_ptx(atype, btype, dtype, n, sel, a_in_regs=regs), args)
    got = sp.d_fragment_to_matrix(out.reshape(128, -1), n, dtype)
    np.testing.assert_array_equal(got, want)


def test_negated_a_scale():
    args, want = sp.inputs("f16", "f16", "f32", 16, 0, a_in_regs=True, seed=3)
    c = sp.d_fragment_to_matrix(args[3].reshape(128, -1).copy(), 16, "f32")
    out = _run(sp.kernel_ptx("f16", "f16", "f32", 16, 0, a_in_regs=True, scale_a=-1), args)
    got = sp.d_fragment_to_matrix(out.reshape(128, -1), 16, "f32")
    np.testing.assert_array_equal(got, 2 * c - want)        # -(A·B) + C


def test_invalid_metadata_field_is_reported():
    args, _ = sp.inputs("f16", "f16", "f32", 16, 0, a_in_regs=True)
    args[1][0] = np.uint32(0x0000_0005)        # thread 0, row 0 chunk 0: both indices 1 (0b0101)
    with pytest.raises(emu.WarpSyncError) as info:
        _run(sp.kernel_ptx("f16", "f16", "f32", 16, 0, a_in_regs=True), args)
    msg = str(info.value)
    assert "metadata of lane 0" in msg and "row 0 chunk 0" in msg and info.value.line is not None


def test_invalid_tf32_field_is_reported():
    args, _ = sp.inputs("tf32", "tf32", "f32", 8, 0, a_in_regs=True)
    args[1][32] = np.uint32(0x4444_4448)       # warp 1, row 16 chunk 0: 0b1000 is no tf32 field
    with pytest.raises(emu.WarpSyncError, match="row 16 chunk 0"):
        _run(sp.kernel_ptx("tf32", "tf32", "f32", 8, 0, a_in_regs=True), args)


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas not on PATH")
@pytest.mark.parametrize("atype,btype,dtype,n,sel,regs", FORMS[::3])
def test_the_test_kernels_are_accepted_by_ptxas(tmp_path, atype, btype, dtype, n, sel, regs):
    src = tmp_path / "k.ptx"
    src.write_text(sp.kernel_ptx(atype, btype, dtype, n, sel, a_in_regs=regs))
    done = subprocess.run(["ptxas", "-arch=sm_90a", str(src), "-o", str(tmp_path / "k.cubin")],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_kmajor_b_with_the_32_byte_swizzle_is_refused():
    # 64 bytes of K per row of B do not fit one 32-byte swizzle row
    args, _ = sp.inputs("f16", "f16", "f32", 8, 0, a_in_regs=True)
    args[5] = np.uint64(int(args[5]) | (3 << 62))
    with pytest.raises(emu.UnsupportedInstructionError, match="do not fit one 32-byte swizzle row"):
        _run(sp.kernel_ptx("f16", "f16", "f32", 8, 0, a_in_regs=True), args)


def test_a_selector_ptxas_refuses_is_refused():
    ptx = sp.kernel_ptx("s8", "s8", "s32", 8, 0, a_in_regs=True).replace("%m, 0, 1;", "%m, 1, 1;")
    args, _ = sp.inputs("s8", "s8", "s32", 8, 0, a_in_regs=True)
    with pytest.raises(emu.ModuleError, match=r"PTX0821.*sparsity selector 1: `.s8` A takes 0"):
        ptxld.RawModule(ptx)                   # the checker, as ptxas, refuses the module
    kernel = ptxld.RawModule(ptx, check=False).get_function("k")
    with pytest.raises(emu.UnsupportedInstructionError, match="sparsity selector 1 is not one of 0"):
        kernel((1, 1, 1), (128, 1, 1), args)    # and the emulator at the instruction
