"""The warp-level matrix kernels (cases_matrix.py): the faults they report. Their results against
the NumPy references are checked with the rest of the corpus in test_kernels.py."""
from __future__ import annotations

import sys
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest

KERNELS = Path(__file__).resolve().parents[1] / "kernels"
sys.path.insert(0, str(KERNELS))
from cases import KERNELS_DIR  # noqa: E402

import ptxld  # noqa: E402
from ptxld import emu  # noqa: E402


@lru_cache(maxsize=None)
def _module(ptx: str):
    return ptxld.RawModule(path=KERNELS_DIR / ptx)


# ---- faults -----------------------------------------------------------------------------------

def _dump_args(skew: int):
    from cases_matrix import _dump_inputs
    return [*_dump_inputs(), np.zeros(7 * 128, np.uint32), np.int32(skew)]


def test_misaligned_ldmatrix_row_names_line_thread_and_address():
    kernel = _module("ptx/sm_80/matrix_fragments.ptx").get_function("ldmatrix_dump")
    with pytest.raises(emu.MisalignedAddressError) as info:
        kernel((1, 1, 1), (32, 1, 1), _dump_args(1))
    err = info.value
    # the first ldmatrix is the .x1 form: lane 0 names row rows[0] of the shared buffer, plus the
    # 2-byte skew (the buffer sits at shared offset 0 in this kernel)
    rows = _dump_args(0)[1]
    assert err.address == int(rows[0]) * 16 + 2 and err.line is not None and err.thread == (0, 0, 0)
    assert "ldmatrix" in err.instruction and "16-byte aligned" in str(err)


def test_ldmatrix_by_a_partial_warp_is_reported():
    kernel = _module("ptx/sm_80/matrix_fragments.ptx").get_function("ldmatrix_partial_warp")
    with pytest.raises(emu.WarpSyncError, match="partial warp: lane.s. 16, 17"):
        kernel((1, 1, 1), (32, 1, 1), [np.arange(64, dtype=np.uint16), np.zeros(32, np.uint32)])


def _wgmma_f16_args(skew: int = 0):
    r = np.random.default_rng(7)
    return [r.integers(-3, 4, 64 * 64).astype(np.float16), r.integers(-3, 4, 16 * 64).astype(np.float16),
            np.zeros(64 * 16, np.float32), np.uint32(skew)]


def test_wgmma_descriptor_outside_shared_memory():
    kernel = _module("ptx/sm_90a/matrix_wgmma.ptx").get_function("wgmma_kmajor_sw128")
    with pytest.raises(emu.OutOfBoundsError) as info:
        kernel((1, 1, 1), (128, 1, 1), _wgmma_f16_args(skew=0x20000))
    err = info.value
    assert "wgmma.mma_async" in err.instruction and "matrix B" in str(err)
    assert err.space == ".shared" and err.address >= 0x20000 and err.line is not None


def test_wgmma_accumulator_written_before_the_wait():
    kernel = _module("ptx/sm_90a/matrix_wgmma.ptx").get_function("wgmma_touch_before_wait")
    args = [np.zeros(64 * 16, np.float16), np.zeros(16 * 16, np.float16), np.zeros(64 * 16, np.float32)]
    with pytest.raises(emu.AsyncRegisterError) as info:
        kernel((1, 1, 1), (128, 1, 1), args)
    err = info.value
    # the fourth accumulator register (%3 in the asm) is overwritten by a mov before wait_group:
    # reported at the mov, naming the register and the mma_async's line
    lines = (KERNELS_DIR / "ptx/sm_90a/matrix_wgmma.ptx").read_text().splitlines()
    mov = next(i for i, x in enumerate(lines, 1) if x.startswith("mov.f32 %f4, 0f3F800000"))
    assert err.line == mov and err.instruction.startswith("mov.f32 %f4")
    assert "wgmma.mma_async" in lines[mov - 2] and f"wgmma.mma_async at line {mov - 1}" in str(err)
    assert "`%f4`" in str(err) and "wait_group" in str(err) and err.thread == (0, 0, 0)
    assert err.others == 127


def test_wgmma_needs_a_complete_warpgroup():
    kernel = _module("ptx/sm_90a/matrix_wgmma.ptx").get_function("wgmma_kmajor_sw128")
    with pytest.raises(emu.WarpSyncError, match="warpgroup"):
        kernel((1, 1, 1), (96, 1, 1), _wgmma_f16_args())
