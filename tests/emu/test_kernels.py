"""Every runnable case of the kernel corpus, emulated, against its NumPy reference."""
from __future__ import annotations

import sys
from functools import lru_cache
from pathlib import Path

import pytest

KERNELS = Path(__file__).resolve().parents[1] / "kernels"
sys.path.insert(0, str(KERNELS))
from cases import CASES, KERNELS_DIR, assert_matches  # noqa: E402

import ptxld  # noqa: E402


@lru_cache(maxsize=None)
def _module(ptx: str):
    return ptxld.RawModule(path=KERNELS_DIR / ptx)


PARAMS = [pytest.param(case, ptx, id=f"{case.name}-{ptx.split('/')[1]}") for case in CASES for ptx in case.ptx]


@pytest.mark.parametrize("case,ptx", PARAMS)
def test_case_matches_reference(case, ptx):
    kernel = _module(ptx).get_function(case.entry)
    args = case.make_args()
    expected = case.reference(args)
    stats = kernel(case.grid, case.block, args, shared_mem=case.shared_mem)
    for index, want, mode in zip(case.outputs, expected, case.compare):
        assert_matches(mode, args[index], want)
    assert stats.thread_instructions > 0


def test_every_case_has_a_test():
    assert len(CASES) == 60 and len(PARAMS) == 119
