"""Emulator throughput on asynchronous-copy kernels: thread-instructions per second.

    python benchmarks/bench_async.py [--reps N]

1. async_gemm (tests/kernels/cuda/async_sm80.cu, sm_80 PTX): a double-buffered cp.async GEMM,
   1024 x 1024 x 32 (2^20 threads);
2. async_barrier_sum: cuda::memcpy_async on a cuda::barrier (cp.async.mbarrier.arrive,
   mbarrier test_wait), 512 CTAs x 128 threads, 4 tiles each;
3. async_ws_ring (async_sm90.cu): a warp-specialised TMA ring with full/empty mbarriers,
   256 CTAs x 160 threads, 12 tiles each.
A warm-up launch compiles the module first; each figure is the fastest of --reps runs; every run
checks its output against NumPy.
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

import ptxld

KERNELS = Path(__file__).resolve().parents[1] / "tests" / "kernels" / "ptx"


def _best(reps, launch):
    best, stats = None, None
    for _ in range(reps):
        t = time.perf_counter()
        stats = launch()
        dt = time.perf_counter() - t
        best = dt if best is None else min(best, dt)
    return stats, best


def gemm(reps, n=1024, k=32):
    f = ptxld.RawModule(path=KERNELS / "sm_80/async_sm80.ptx").get_function("_Z10async_gemmPKfS0_Pfii")
    r = np.random.default_rng(0)
    a = r.integers(-8, 8, (n, k)).astype(np.float32)
    b = r.integers(-8, 8, (k, n)).astype(np.float32)
    c = np.zeros(n * n, np.float32)
    args = [a.ravel(), b.ravel(), c, np.int32(n), np.int32(k)]
    f((2, 2), (16, 16), args)
    st, dt = _best(reps, lambda: f((n // 16, n // 16), (16, 16), args))
    assert (c.reshape(n, n) == a.astype(np.int64) @ b.astype(np.int64)).all()
    return f"cp.async double-buffered GEMM {n}x{n}x{k}", st, dt


def barrier_sum(reps, blocks=512, tiles=4):
    f = ptxld.RawModule(path=KERNELS / "sm_80/async_sm80.ptx").get_function("_Z17async_barrier_sumPKiPii")
    x = (np.arange(blocks * tiles * 256) % 1000).astype(np.int32)
    out = np.zeros(blocks * 128, np.int32)
    f(2, 128, [x, out, np.int32(tiles)])
    st, dt = _best(reps, lambda: f(blocks, 128, [x, out, np.int32(tiles)]))
    xs = x.reshape(blocks, tiles, 256).astype(np.int64)
    t = np.arange(128)
    want = sum(xs[:, j, (t * 7 + j) % 256] * (j + 1) for j in range(tiles))
    assert (out.reshape(blocks, 128) == want).all()
    return f"cuda::memcpy_async + cuda::barrier, {blocks} CTAs x {tiles} tiles", st, dt


def ws_ring(reps, blocks=256):
    f = ptxld.RawModule(path=KERNELS / "sm_90/async_sm90.ptx").get_function("_Z13async_ws_ring14CUtensorMap_stPKfPf")
    m = np.random.default_rng(0).integers(-8, 9, (blocks * 12 * 8, 32)).astype(np.float32)
    out = np.zeros(blocks * 128, np.float32)
    tm = ptxld.TensorMap.tiled(m, box=(32, 8))
    f(2, 160, [tm, m, out])
    st, dt = _best(reps, lambda: f(blocks, 160, [tm, m, out]))
    tiles = m.reshape(blocks, 12, 256).astype(np.int64)
    want = ((tiles[:, :, :128] + 2 * tiles[:, :, 128:]) * np.arange(1, 13)[None, :, None]).sum(axis=1)
    assert (out.reshape(blocks, 128) == want).all()
    return f"TMA warp-specialised ring, {blocks} CTAs x 160 threads", st, dt


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=3)
    opts = ap.parse_args()
    print("| benchmark | threads | thread-instructions | seconds | M thread-instructions/s |")
    print("|---|---:|---:|---:|---:|")
    for bench in (gemm, barrier_sum, ws_ring):
        name, st, dt = bench(opts.reps)
        print(f"| {name} | {st.threads:,} | {st.thread_instructions:,} | {dt:.2f} | "
              f"{st.thread_instructions / dt / 1e6:.1f} |", flush=True)


if __name__ == "__main__":
    main()
