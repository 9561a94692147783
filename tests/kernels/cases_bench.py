"""The kernel shapes of the emulator benchmark suite (cuda/bench_shapes.cu), with NumPy
references: `CASES_BENCH` (small sizes, run by tests/emu/test_kernels.py) and `BENCH_SIZES`, the sizes
benchmarks/kernel_shapes.py times.

Plain data and NumPy only, like cases.py (whose Case and comparison modes apply). Matmul inputs
are small integers, so every float32 product and partial sum is exact and the reference is an
integer matrix product. The stencil and the reduction repeat the CUDA source's float32 operation
order in NumPy (each NumPy float32 operation is correctly rounded, as add/mul.rn.f32 are).
Softmax goes through ex2.approx, so it is compared with a tolerance against float64.
"""

from __future__ import annotations

import numpy as np

from dataclasses import replace

from cases import _GEMMS, EXACT, Case, _dim3, _gemm_args, _gemm_launch, _gemm_ref, close

PTX = ("ptx/sm_80/bench_shapes.ptx",)
SOURCE = "bench_shapes.cu"
SEED = 20261126

ENTRIES = {
    "matmul_tiled": "_Z12matmul_tiledPKfS0_Pfi",
    "stencil2d_shared": "_Z16stencil2d_sharedPKfPfii",
    "reduce_sum": "_Z10reduce_sumPKfPfi",
    "block_scan": "_Z20block_scan_inclusivePKiPii",
    "histogram_atomic": "_Z16histogram_atomicPKhPji",
    "softmax_warp": "_Z12softmax_warpPKfPfi",
}


def _rng():
    return np.random.default_rng(SEED)


def _case(name, grid, block, make_args, reference, outputs, compare, note=""):
    return Case(name=f"bench_{name}", source=SOURCE, ptx=PTX, entry=ENTRIES[name], grid=_dim3(grid),
                block=_dim3(block), make_args=make_args, reference=reference, outputs=tuple(outputs),
                compare=tuple(compare), note=note)


def matmul(n: int) -> Case:
    """n x n (n a multiple of 16): n*n threads."""
    def args():
        r = _rng()
        a = r.integers(-8, 9, n * n).astype(np.float32)
        b = r.integers(-8, 9, n * n).astype(np.float32)
        return [a, b, np.zeros(n * n, np.float32), np.int32(n)]

    def ref(args):
        a, b = args[0].astype(np.int64).reshape(n, n), args[1].astype(np.int64).reshape(n, n)
        return [(a @ b).astype(np.float32).reshape(-1)]
    return _case("matmul_tiled", (n // 16, n // 16), (16, 16), args, ref, [2], [EXACT],
                 "16x16 shared tiles, bar.sync in the k-loop, fma.rn.f32")


def stencil(w: int, h: int) -> Case:
    def args():
        return [_rng().uniform(-1, 1, h * w).astype(np.float32), np.zeros(h * w, np.float32),
                np.int32(w), np.int32(h)]

    def ref(args):
        x = args[0].reshape(h, w)
        out = x.copy()
        c = x[1:-1, 1:-1]
        s = c + x[1:-1, :-2]
        s = s + x[1:-1, 2:]
        s = s + x[:-2, 1:-1]
        s = s + x[2:, 1:-1]
        out[1:-1, 1:-1] = np.float32(0.2) * s
        return [out.reshape(-1)]
    return _case("stencil2d_shared", ((w + 15) // 16, (h + 15) // 16), (16, 16), args, ref, [1],
                 [EXACT], "shared tile with a one-cell halo, border threads load the halo")


def reduce_sum(n: int) -> Case:
    """n a multiple of 512: n/2 threads."""
    def args():
        return [_rng().uniform(-1, 1, n).astype(np.float32), np.zeros(n // 512, np.float32),
                np.int32(n)]

    def ref(args):
        x = args[0].reshape(-1, 512)
        s = x[:, :256] + x[:, 256:]
        stride = 128
        while stride:
            s[:, :stride] = s[:, :stride] + s[:, stride:2 * stride]
            stride //= 2
        return [s[:, 0].copy()]
    return _case("reduce_sum", n // 512, 256, args, ref, [1], [EXACT],
                 "two loads per thread, shared-memory tree with bar.sync")


def block_scan(n: int) -> Case:
    """n a multiple of 256."""
    def args():
        return [_rng().integers(-1000, 1000, n).astype(np.int32), np.zeros(n, np.int32), np.int32(n)]

    def ref(args):
        return [np.cumsum(args[0].reshape(-1, 256), axis=1).astype(np.int32).reshape(-1)]
    return _case("block_scan", n // 256, 256, args, ref, [1], [EXACT],
                 "Hillis-Steele inclusive scan, double-buffered shared memory")


def histogram(n: int, blocks: int) -> Case:
    def args():
        # a skewed distribution: many threads of a warp hit the same shared bin
        d = np.minimum(_rng().geometric(0.02, n) - 1, 255).astype(np.uint8)
        return [d, np.zeros(256, np.uint32), np.int32(n)]

    def ref(args):
        return [np.bincount(args[0], minlength=256).astype(np.uint32)]
    return _case("histogram_atomic", blocks, 256, args, ref, [1], [EXACT],
                 "atom.shared.add per element, atom.global.add per bin and block")


def softmax(rows: int) -> Case:
    """rows a multiple of 8: 32 * rows threads."""
    def args():
        return [_rng().normal(0, 3, rows * 128).astype(np.float32),
                np.zeros(rows * 128, np.float32), np.int32(rows)]

    def ref(args):
        x = args[0].astype(np.float64).reshape(rows, 128)
        e = np.exp(x - x.max(axis=1, keepdims=True))
        return [(e / e.sum(axis=1, keepdims=True)).astype(np.float32).reshape(-1)]
    return _case("softmax_warp", rows // 8, (32, 8), args, ref, [1], [close(2e-6, 1e-9)],
                 "one warp per row, shfl.sync.bfly for max and sum, ex2.approx")


def wmma_gemm(m: int, n: int, k: int) -> Case:
    """The corpus's tensor-core GEMM (wmma_gemm.cu, f16 in, f32 accumulate, m16n16k16, A and B
    row-major, C zero; cases.py's reference) at another size: one warp per 16x16 tile of D."""
    g = replace(_GEMMS[0], size=(m, n, k), c_mode=0)
    grid, block = _gemm_launch(g)
    return Case(name="bench_wmma_gemm", source="wmma_gemm.cu", ptx=("ptx/sm_80/wmma_gemm.ptx",),
                entry=g.entry, grid=_dim3(grid), block=_dim3(block), make_args=_gemm_args(g),
                reference=_gemm_ref(g), outputs=(3,), compare=(EXACT,),
                note="wmma.load/mma/store per warp")


def async_gemm(n: int, k: int) -> Case:
    """The corpus's cp.async GEMM (async_sm80.cu: 16x16 tiles double-buffered with
    __pipeline_memcpy_async, wait_prior(1)) at another size; small-integer inputs, exact."""
    def args():
        r = _rng()
        a = r.integers(-8, 8, n * k).astype(np.float32)
        b = r.integers(-8, 8, k * n).astype(np.float32)
        return [a, b, np.zeros(n * n, np.float32), np.int32(n), np.int32(k)]

    def ref(args):
        a = args[0].reshape(n, k).astype(np.int64)
        b = args[1].reshape(k, n).astype(np.int64)
        return [(a @ b).astype(np.float32).reshape(-1)]
    return Case(name="bench_async_gemm", source="async_sm80.cu", ptx=("ptx/sm_80/async_sm80.ptx",),
                entry="_Z10async_gemmPKfS0_Pfii", grid=_dim3((n // 16, n // 16)), block=_dim3((16, 16)),
                make_args=args, reference=ref, outputs=(2,), compare=(EXACT,),
                note="cp.async double buffering")


# the benchmark's sizes: 65,536 threads and more for every shape
BENCH_SIZES = {
    "matmul_tiled": lambda: matmul(256),
    "stencil2d_shared": lambda: stencil(512, 512),
    "reduce_sum": lambda: reduce_sum(1 << 18),
    "block_scan": lambda: block_scan(1 << 17),
    "histogram_atomic": lambda: histogram(1 << 20, 256),
    "softmax_warp": lambda: softmax(1 << 11),
    "wmma_gemm": lambda: wmma_gemm(1024, 512, 64),
    "async_gemm": lambda: async_gemm(256, 256),
}

CASES_BENCH: list[Case] = [matmul(32), stencil(40, 24), reduce_sum(2048), block_scan(768),
                           histogram(5000, 4), softmax(16)]
# the benchmark's warm-up launches: the cases above, and the GEMM at the size cases.py tests
WARMUP = {c.name: c for c in CASES_BENCH} | {"bench_wmma_gemm": wmma_gemm(32, 32, 32),
                                              "bench_async_gemm": async_gemm(48, 64)}
