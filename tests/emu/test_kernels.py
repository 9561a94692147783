"""Every runnable case of the kernel corpus, emulated, against its NumPy reference.

The Hopper cases (cases_sm90.py) list the instruction families they exercise (`Case.needs`). A
case needing a family this emulator does not run yet is collected as a strict expected failure
naming what is missing, so the moment the emulator learns the family the case reports XPASS and
the family must be added to `EMULATED`.
"""
from __future__ import annotations

import sys
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest

KERNELS = Path(__file__).resolve().parents[1] / "kernels"
sys.path.insert(0, str(KERNELS))
from all_cases import by_module  # noqa: E402
from cases import KERNELS_DIR, NEEDS, TensorMapArg, assert_matches  # noqa: E402

import ptxld  # noqa: E402

# Instruction families of cases.NEEDS that the emulator runs today (the fences and the tensor-map
# prefetch as the ordering no-ops they are for a sequentially consistent emulator).
EMULATED = {"barrier.cluster", "mapa", "cvta.param", "fence.proxy.async", "fence.mbarrier_init",
            "fence.proxy.tensormap", "prefetch.tensormap",
            # clusters from the module, warp-group coordination (sem_cluster)
            ".reqnctapercluster", "elect.sync", "griddepcontrol", "setmaxnreg",
            # mbarrier, bulk copies and TMA (sem_mbarrier, sem_async, sem_tensor)
            "mbarrier", "cp.async.bulk", "cp.reduce.async.bulk", "cp.async.bulk.tensor",
            "cp.reduce.async.bulk.tensor", "cp.async.bulk.prefetch.tensor", "multicast::cluster",
            "tensormap.replace", "tensormap.cp_fenceproxy",
            # matrix instructions (sem_matrix, sem_wgmma)
            "ldmatrix", "stmatrix", "wgmma"}
assert EMULATED <= set(NEEDS)


@lru_cache(maxsize=None)
def _module(ptx: str):
    return ptxld.RawModule(path=KERNELS_DIR / ptx)


def _missing(case) -> list[str]:
    missing = [need for need in case.needs if need not in EMULATED]
    if not hasattr(ptxld, "TensorMap") and any(isinstance(a, TensorMapArg) for a in case.make_args()):
        missing.append("ptxld.TensorMap")
    return missing


def _param(case, ptx):
    ident = f"{case.name}-{ptx.split('/')[1]}"
    missing = _missing(case)
    if missing:
        return pytest.param(case, ptx, id=ident, marks=pytest.mark.xfail(
            strict=True, reason="emulator lacks: " + ", ".join(missing)))
    return pytest.param(case, ptx, id=ident)


CORPUS = by_module()
PARAMS = [_param(case, ptx) for cases in CORPUS.values() for case in cases for ptx in case.ptx]


def _tensor_map(arg: TensorMapArg, args: list):
    """The kernel argument for a TensorMapArg: a ptxld.TensorMap over the NumPy view of the
    tensor's argument array (the same memory), or its 128 bytes in a global buffer."""
    options = dict(element_strides=arg.element_strides or None, swizzle=arg.swizzle, interleave=arg.interleave,
                   l2_promotion=arg.l2_promotion, oob_fill=arg.oob_fill)
    if arg.mode == "tiled":
        tmap = ptxld.TensorMap.tiled(arg.view(args), box=arg.box, **options)
    else:
        tmap = ptxld.TensorMap.im2col(arg.view(args), pixel_box_lower=arg.pixel_box_lower,
                                      pixel_box_upper=arg.pixel_box_upper, channels_per_pixel=arg.channels_per_pixel,
                                      pixels_per_column=arg.pixels_per_column, **options)
    return np.frombuffer(bytes(tmap), np.uint8).copy() if arg.by_pointer else tmap


def _launch_args(args: list) -> list:
    return [_tensor_map(a, args) if isinstance(a, TensorMapArg) else a for a in args]


@pytest.mark.parametrize("case,ptx", PARAMS)
def test_case_matches_reference(case, ptx):
    kernel = _module(ptx).get_function(case.entry)
    args = case.make_args()
    expected = case.reference(args)
    launch = {"shared_mem": case.shared_mem}
    if case.cluster is not None:
        launch["cluster"] = case.cluster
    stats = kernel(case.grid, case.block, _launch_args(args), **launch)
    for index, want, mode in zip(case.outputs, expected, case.compare):
        assert_matches(mode, args[index], want)
    assert stats.thread_instructions > 0


def test_every_case_has_a_test():
    """No module of the corpus lost cases unnoticed (the counts grow with the corpus)."""
    counts = {stem: len(cases) for stem, cases in CORPUS.items()}
    assert counts["cases"] == 60 and counts["cases_sm90"] == 34 and counts["cases_bench"] == 6
    assert counts["cases_arith"] == 13 and counts["cases_matrix"] >= 27 and counts["cases_async"] >= 15
    assert len(PARAMS) == sum(len(c.ptx) for cases in CORPUS.values() for c in cases)
