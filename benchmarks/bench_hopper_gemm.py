"""Emulator throughput on the warp-specialised Hopper GEMM: TMA tiles with 128B swizzle into a
four-stage mbarrier ring, wgmma.mma_async m64n128k16 consumers (tests/kernels/cuda/sm90a_wgmma.cu,
`wgmma_gemm_ws`, sm_90a PTX).

    python benchmarks/bench_hopper_gemm.py [--size 512] [--reps 1]

A warm-up launch at the test size (128 x 128 x 384) compiles the module first; the figure is the
fastest of --reps launches at size^3, each output checked against NumPy (float64 product of the
same half-precision inputs, exact for the small integers the inputs hold).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

import ptxld

KERNELS = Path(__file__).resolve().parents[1] / "tests" / "kernels"
sys.path.insert(0, str(KERNELS))
import cases_sm90 as s90  # noqa: E402
from cases import TensorMapArg  # noqa: E402

CASE = next(c for c in s90.CASES_SM90 if c.name == "wgmma_gemm_ws")


def _launch_args(args):
    return [ptxld.TensorMap.tiled(a.view(args), box=a.box, swizzle=a.swizzle) if isinstance(a, TensorMapArg) else a
            for a in args]


def run(kernel, m, n, k):
    args = s90.gemm_ws_args(m, n, k)
    want = s90.gemm_ws_reference(args)[0]
    grid, block = s90.gemm_ws_launch(m, n)
    t = time.perf_counter()
    stats = kernel(grid, block, _launch_args(args), shared_mem=CASE.shared_mem)
    dt = time.perf_counter() - t
    if not np.array_equal(args[4], want):
        raise SystemExit(f"{m}x{n}x{k}: the product differs from NumPy's")
    return stats, dt, int(np.prod(grid)) * int(np.prod(block))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=512)
    ap.add_argument("--reps", type=int, default=1)
    opts = ap.parse_args()
    kernel = ptxld.RawModule(path=KERNELS / CASE.ptx[0]).get_function(CASE.entry)
    run(kernel, 128, 128, 384)                                   # warm-up: compile, first launch
    best = None
    for _ in range(opts.reps):
        stats, dt, threads = run(kernel, opts.size, opts.size, opts.size)
        best = dt if best is None else min(best, dt)
    s = opts.size
    print(f"| wgmma_gemm_ws {s}x{s}x{s} (TMA 128B swizzle, 4-stage mbarrier ring, wgmma m64n128k16) | "
          f"{threads:,} | {stats.thread_instructions:,} | {best:.2f} | "
          f"**{stats.thread_instructions / best / 1e6:.1f}** |")


if __name__ == "__main__":
    main()
