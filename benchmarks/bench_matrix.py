"""Emulator throughput of the tensor-core kernels: thread-instructions per second.

    python benchmarks/bench_matrix.py [--quick]

1. mma_f16_f32 (tests/kernels/cuda/matrix_gemm.cu, nvcc 13.0 PTX for sm_90): ldmatrix.x4/.x2 +
   mma.sync m16n8k16, one warp per 16x8 tile of C, 2^20 threads (C 2048 x 2048, K 32);
2. wgmma_kmajor_sw128 (matrix_wgmma.cu, sm_90a): 128B-swizzled operands placed by the threads,
   four chained wgmma.mma_async m64n16k16, over 2^13 CTAs of 128 threads (2^20 threads).
Each figure is the fastest of three runs after one warm-up launch; results are checked against
NumPy.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

import ptxld

ROOT = Path(__file__).resolve().parents[1]
KERNELS = ROOT / "tests" / "kernels"


def gemm(n_side: int):
    mod = ptxld.RawModule(path=KERNELS / "ptx/sm_90/matrix_gemm.ptx")
    k = mod.get_function("mma_f16_f32")
    r = np.random.default_rng(3)
    kdim = 32
    a = r.integers(-3, 4, (n_side, kdim)).astype(np.float16)
    bt = r.integers(-3, 4, (n_side, kdim)).astype(np.float16)
    want = (a.astype(np.float64) @ bt.T.astype(np.float64)).astype(np.float32)

    def launch():
        c = np.zeros(n_side * n_side, np.float32)
        t = time.perf_counter()
        st = k((n_side // 8, n_side // 16), 32, [a.view(np.uint32).ravel(), bt.view(np.uint32).ravel(), c,
                                                  np.int32(n_side), np.int32(kdim // 2)])
        dt = time.perf_counter() - t
        assert np.array_equal(c.reshape(n_side, n_side), want)
        return st, dt
    return launch


def wgmma(ctas: int):
    mod = ptxld.RawModule(path=KERNELS / "ptx/sm_90a/matrix_wgmma.ptx")
    k = mod.get_function("wgmma_kmajor_sw128")
    r = np.random.default_rng(4)
    a = r.integers(-3, 4, (64, 64)).astype(np.float16)
    bt = r.integers(-3, 4, (16, 64)).astype(np.float16)
    want = (a.astype(np.float64) @ bt.T.astype(np.float64)).astype(np.float32)

    def launch():
        d = np.zeros(64 * 16, np.float32)
        t = time.perf_counter()
        st = k(ctas, 128, [a.ravel(), bt.ravel(), d, np.uint32(0)])
        dt = time.perf_counter() - t
        assert np.array_equal(d.reshape(64, 16), want)
        return st, dt
    return launch


def best(launch, repeat: int):
    launch()                                   # warm-up: compilation, caches
    runs = [launch() for _ in range(repeat)]
    st, dt = min(runs, key=lambda r: r[1])
    return st.thread_instructions, st.threads, dt


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="smaller sizes, one run")
    opts = ap.parse_args()
    repeat = 1 if opts.quick else 3
    rows = [("mma_f16_f32 (ldmatrix + mma.sync)", gemm(512 if opts.quick else 2048)),
            ("wgmma_kmajor_sw128 (wgmma.mma_async)", wgmma(256 if opts.quick else 8192))]
    print("| kernel | threads | thread-instructions | time | thread-instructions/s |")
    print("|---|---:|---:|---:|---:|")
    for name, launch in rows:
        ti, threads, dt = best(launch, repeat)
        print(f"| {name} | {threads:,} | {ti:,} | {dt:.2f} s | {ti / dt / 1e6:.1f} M/s |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
