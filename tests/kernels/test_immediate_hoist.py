"""Immediates against registers in real kernels: every immediate operand of the corpus PTX that
ptxas lets stand in a register is moved into one, and every register only a `mov` of a literal
sets is replaced by the literal where ptxas takes one (immediate_hoist.py); each case must give
the same bytes as the committed PTX and match its NumPy reference.

The emulator reads an immediate and a register through different paths; a position where it
reads one wrongly (the width, the sign, a vector element of `st`, an instruction under a guard
that is false in some threads) shows up as a difference here, in the shapes nvcc emits, where
tests/emu/test_immediates.py tries one instruction at a time.
"""
from __future__ import annotations

import shutil
import sys
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest

KERNELS = Path(__file__).resolve().parent
sys.path.insert(0, str(KERNELS))
sys.path.insert(0, str(KERNELS.parent / "emu"))
import immediate_hoist  # noqa: E402
from all_cases import all_cases  # noqa: E402
from cases import KERNELS_DIR, assert_matches  # noqa: E402
from test_kernels import _launch_args  # noqa: E402  (the emulator harness's tensor-map conversion)

import ptxld  # noqa: E402

pytestmark = [pytest.mark.ptxas,
              pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas decides which positions take a register")]

CASES = all_cases()
# the default run: the first case of these sources (wide and narrow integer arithmetic, video
# instructions, vector stores, cp.async, mbarrier and bulk copies, matrix fragments); `-m slow`
# runs every case
SAMPLE_SOURCES = ("programs_math.cu", "arith_int128.cu", "arith_video.cu", "async_sm80.cu",
                  "sm90_bulk.cu", "sm90_tma.cu", "matrix_gemm.cu")
SAMPLE = {next(c.name for c in CASES if c.source == s) for s in SAMPLE_SOURCES}
PARAMS = [pytest.param(c, id=c.name, marks=() if c.name in SAMPLE else pytest.mark.slow) for c in CASES]


@lru_cache(maxsize=None)
def _hoisted(ptx: str) -> tuple[str, int]:
    arch = ptx.split("/")[1]
    return immediate_hoist.hoist((KERNELS_DIR / ptx).read_text(), arch)


@lru_cache(maxsize=None)
def _folded(ptx: str) -> tuple[str, int]:
    return immediate_hoist.fold((KERNELS_DIR / ptx).read_text(), ptx.split("/")[1])


def _run(text: str, case) -> list:
    args = case.make_args()
    launch = {"shared_mem": case.shared_mem}
    if case.cluster is not None:
        launch["cluster"] = case.cluster
    ptxld.RawModule(code=text).get_function(case.entry)(case.grid, case.block, _launch_args(args), **launch)
    return args


def _check(case, text):
    ptx = case.ptx[0]
    expected = case.reference(case.make_args())
    original = _run((KERNELS_DIR / ptx).read_text(), case)
    mutated = _run(text, case)
    for index, want, mode in zip(case.outputs, expected, case.compare):
        np.testing.assert_array_equal(np.asarray(mutated[index]).view(np.uint8),
                                      np.asarray(original[index]).view(np.uint8))
        assert_matches(mode, mutated[index], want)


@pytest.mark.parametrize("case", PARAMS)
def test_hoisted_immediates_change_nothing(case):
    _check(case, _hoisted(case.ptx[0])[0])


# the cases whose PTX has a register to fold (nvcc folds most constants itself): few, all run
FOLD_SOURCES = ("programs_math.cu", "bench_shapes.cu", "matrix_sm90.cu", "sm90_bulk.cu", "sm90_mbarrier.cu",
                "sm90_warp.cu", "async_sm90a.cu", "sm90a_wgmma.cu")


@pytest.mark.parametrize("case", [pytest.param(c, id=c.name, marks=() if c.name in SAMPLE else pytest.mark.slow)
                                  for c in CASES if c.source in FOLD_SOURCES])
def test_folded_constants_change_nothing(case):
    text, n = _folded(case.ptx[0])
    if n == 0:
        pytest.skip(f"{case.ptx[0]}: no register to fold")
    _check(case, text)


def test_hoisting_is_not_vacuous():
    """The mutation moves many immediates in the sampled files (each has dozens at least)."""
    for c in CASES:
        if c.name in SAMPLE:
            assert _hoisted(c.ptx[0])[1] >= 20, c.ptx[0]
    assert _folded("ptx/sm_80/programs_math.ptx")[1] >= 3


def test_literals_found_only_where_an_operand_is_one():
    found = [t for _, _, t in immediate_hoist.literals(
        " %r1, [%rd2+16], {%r3, 0, -1}, 0f3F800000, %r4_7, 0x10, (param0, 5)")]
    assert found == ["0", "-1", "0f3F800000", "0x10"]
