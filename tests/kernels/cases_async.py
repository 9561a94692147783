"""Kernels of asynchronous copies, mbarriers, clusters and TMA, with NumPy references:
`CASES_ASYNC` (runnable, bit-exact) and `POLICY_CASES_ASYNC` (kernels that break the rules on
purpose, whose outcome the emulator's documented policy fixes: docs/async-copies.md).

Plain data and NumPy only, like cases.py and cases_sm90.py (whose Case, TensorMapArg and launch
conventions apply). Sources: tests/kernels/cuda/async_sm80.cu (built for sm_80 and sm_90),
async_sm90.cu (sm_90) and async_sm90a.cu (sm_90a: multicast). Every reference computes what the
CUDA source asks for (a product, a sum, a convolution, a tile) from the inputs, independently of
how the kernel moves the data; inputs are small integers wherever floats are summed, so every
order of summation gives the same result.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cases import EXACT, Case, TensorMapArg, _dim3, _rng

CASES_ASYNC: list[Case] = []


def _ptx(source: str) -> tuple[str, ...]:
    stem = source.removesuffix(".cu")
    if stem.endswith("sm80"):
        return (f"ptx/sm_80/{stem}.ptx", f"ptx/sm_90/{stem}.ptx")
    return (f"ptx/{'sm_90a' if stem.endswith('sm90a') else 'sm_90'}/{stem}.ptx",)


def add(**kw) -> None:
    kw["grid"] = _dim3(kw["grid"])
    kw["block"] = _dim3(kw["block"])
    kw.setdefault("ptx", _ptx(kw["source"]))
    kw["outputs"] = tuple(kw["outputs"])
    kw["compare"] = tuple(kw.get("compare", [EXACT] * len(kw["outputs"])))
    kw["needs"] = tuple(kw.get("needs", ()))
    if kw.get("cluster") is not None:
        kw["cluster"] = _dim3(kw["cluster"])
    CASES_ASYNC.append(Case(**kw))


# =================================================================================================
# async_sm80.cu
# =================================================================================================

GEMM_N, GEMM_K = 48, 64          # C is 48 x 48, K = 64 (four double-buffered steps)


def _gemm_args():
    r = _rng()
    a = r.integers(-8, 8, (GEMM_N, GEMM_K)).astype(np.float32)
    b = r.integers(-8, 8, (GEMM_K, GEMM_N)).astype(np.float32)
    return [a.ravel(), b.ravel(), np.zeros(GEMM_N * GEMM_N, np.float32), np.int32(GEMM_N), np.int32(GEMM_K)]


def _gemm_ref(args):
    a = args[0].reshape(GEMM_N, GEMM_K).astype(np.int64)
    b = args[1].reshape(GEMM_K, GEMM_N).astype(np.int64)
    return [(a @ b).astype(np.float32).ravel()]


add(name="async_gemm", source="async_sm80.cu", entry="_Z10async_gemmPKfS0_Pfii",
    grid=(GEMM_N // 16, GEMM_N // 16), block=(16, 16), make_args=_gemm_args, reference=_gemm_ref, outputs=[2],
    note="double-buffered __pipeline_memcpy_async GEMM: wait_prior(1) keeps the next tiles in flight")


def _zfill_args():
    r = _rng()
    src = r.integers(1, 1 << 30, 32 * 8).astype(np.int32)
    lens = r.integers(0, 9, 32).astype(np.int32)
    lens[:3] = [0, 8, 4]
    return [src, lens, np.full(32 * 8, -1, np.int32)]


def _zfill_ref(args):
    src = args[0].reshape(32, 8)
    lens = args[1]
    rows = np.where(np.arange(8)[None, :] < lens[:, None], src, 0)
    return [np.roll(rows, -1, axis=0).astype(np.int32).ravel()]


add(name="async_zfill", source="async_sm80.cu", entry="_Z11async_zfillPKiS0_Pi",
    grid=1, block=32, make_args=_zfill_args, reference=_zfill_ref, outputs=[2],
    note="cp.async src-size: bytes past each row's length are zeros")


def _forms_args():
    r = _rng()
    return [r.integers(0, 1 << 32, 64 * 16, dtype=np.uint64).astype(np.uint32), np.zeros(64 * 7, np.uint32)]


def _forms_ref(args):
    g = args[0].reshape(64, 16)
    out = np.zeros((64, 7), np.uint32)
    out[:, 0] = np.where(np.arange(64) % 2 == 1, 0, g[:, 0])      # ignore-src on odd lanes
    out[:, 1:3] = g[:, 2:4]                                        # 8-byte .ca
    out[:, 3:6] = g[:, 4:7]                                        # 16-byte .cg, src-size 12
    return [out.ravel()]


add(name="async_forms", source="async_sm80.cu", entry="_Z11async_formsPKjPj",
    grid=1, block=64, make_args=_forms_args, reference=_forms_ref, outputs=[1],
    note="cp-size 4 with ignore-src, 8 with L2::64B, 16 with src-size 12 and L2::128B")


def _hint_args():
    r = _rng()
    return [r.integers(0, 1 << 32, 512, dtype=np.uint64).astype(np.uint32), np.zeros(64 * 4, np.uint32)]


def _hint_ref(args):
    rows = args[0][256:].reshape(64, 4)
    return [np.roll(rows, -1, axis=0).ravel()]


add(name="async_cache_hint", source="async_sm80.cu", entry="_Z16async_cache_hintPKjPj",
    grid=1, block=64, make_args=_hint_args, reference=_hint_ref, outputs=[1],
    note="cp.async.cg with .L2::cache_hint and a createpolicy.fractional policy")

BS_TILES, BS_BLOCKS = 5, 2


def _bsum_args():
    r = _rng()
    return [r.integers(-1000, 1000, BS_BLOCKS * BS_TILES * 256).astype(np.int32),
            np.zeros(BS_BLOCKS * 128, np.int32), np.int32(BS_TILES)]


def _bsum_ref(args):
    x = args[0].reshape(BS_BLOCKS, BS_TILES, 256).astype(np.int64)
    t = np.arange(128)
    out = np.zeros((BS_BLOCKS, 128), np.int64)
    for k in range(BS_TILES):
        out += x[:, k, (t * 7 + k) % 256] * (k + 1)
    return [out.astype(np.int32).ravel()]


add(name="async_barrier_sum", source="async_sm80.cu", entry="_Z17async_barrier_sumPKiPii",
    grid=BS_BLOCKS, block=128, make_args=_bsum_args, reference=_bsum_ref, outputs=[1],
    note="cuda::memcpy_async on a cuda::barrier: cp.async + cp.async.mbarrier.arrive, mbarrier.test_wait")


# ---- kernels that break the rules: the outcome is the emulator's documented policy -------------

@dataclass(frozen=True)
class PolicyCase:
    """A kernel whose result on hardware is a race. `expected` maps an `async_copies` mode to
    the reference of what the emulator must give in that mode, or to the error class name it
    must raise (with the PTX line of the culprit instruction)."""
    case: Case
    expected: dict


def _wtf_args():
    r = _rng()
    return [r.integers(0, 1 << 30, 64 * 4).astype(np.int32), np.zeros(64 * 4, np.int32)]


def _wtf_landed(args):
    return [args[0].copy()]


def _wtf_stale(args):
    out = args[0].reshape(64, 4).copy()
    out[32:] = -2                                   # the newest group has not landed
    return [out.ravel()]


def _nowait_args():
    r = _rng()
    return [r.integers(0, 1 << 30, 32 * 4).astype(np.int32), np.zeros(32 * 4, np.int32)]


POLICY_CASES_ASYNC = [
    PolicyCase(Case(name="async_wait_too_few", source="async_sm80.cu", ptx=_ptx("async_sm80.cu"),
                    entry="_Z18async_wait_too_fewPK4int4PS_", grid=(1, 1, 1), block=(32, 1, 1),
                    make_args=_wtf_args, reference=_wtf_landed, outputs=(1,), compare=(EXACT,),
                    note="reads the newest stage after cp.async.wait_group 1"),
               {"wait": _wtf_landed, "late": _wtf_stale}),
    PolicyCase(Case(name="async_no_wait", source="async_sm80.cu", ptx=_ptx("async_sm80.cu"),
                    entry="_Z13async_no_waitPK4int4PS_", grid=(1, 1, 1), block=(32, 1, 1),
                    make_args=_nowait_args, reference=lambda args: [], outputs=(), compare=(),
                    note="commits a cp.async group and exits without waiting"),
               {"wait": "AsyncCopyError", "late": "AsyncCopyError"}),
]


# =================================================================================================
# async_sm90.cu
# =================================================================================================

TMA_NEEDS = ["mbarrier", "fence.proxy.async", "cp.async.bulk.tensor", "cvta.param"]
TP_COLS = {"none": 16, "32B": 8, "64B": 16, "128B": 32}      # inner box = the swizzle span


def _tp_case(swizzle: str, entry: str):
    cols = TP_COLS[swizzle]
    shape_in = (2 * 16, 2 * cols)

    def make():
        r = _rng()
        x = r.integers(0, 1 << 32, np.prod(shape_in), dtype=np.uint64).astype(np.uint32)
        out = np.zeros(np.prod(shape_in), np.uint32)
        return [TensorMapArg(array_index=2, dtype="uint32", shape=shape_in, box=(cols, 16), swizzle=swizzle),
                TensorMapArg(array_index=3, dtype="uint32", shape=shape_in[::-1], box=(16, cols)), x, out]

    def ref(args):
        return [args[2].reshape(shape_in).T.copy().ravel()]

    add(name=f"async_tma_transpose_{swizzle.lower()}", source="async_sm90.cu", entry=entry, grid=(2, 2), block=128,
        make_args=make, reference=ref, outputs=[3], needs=TMA_NEEDS + ["cp.async.bulk"],
        note=f"TMA load with the {swizzle} swizzle undone by hand in the kernel, TMA store of the transpose")


_tp_case("none", "_Z24async_tma_transpose_none14CUtensorMap_stS_PKjPj")
_tp_case("32B", "_Z23async_tma_transpose_32b14CUtensorMap_stS_PKjPj")
_tp_case("64B", "_Z23async_tma_transpose_64b14CUtensorMap_stS_PKjPj")
_tp_case("128B", "_Z24async_tma_transpose_128b14CUtensorMap_stS_PKjPj")

CV_N, CV_W, CV_CIN, CV_COUT, CV_TAPS = 2, 20, 16, 4, 3


def _conv_args():
    r = _rng()
    img = r.integers(-4, 5, (CV_N, CV_W, CV_CIN)).astype(np.float32)
    wt = r.integers(-3, 4, (CV_TAPS, CV_CIN, CV_COUT)).astype(np.float32)
    return [TensorMapArg(array_index=1, dtype="float32", shape=img.shape, mode="im2col", pixel_box_lower=(-1,),
                         pixel_box_upper=(-1,), channels_per_pixel=CV_CIN, pixels_per_column=8),
            img.ravel(), wt.ravel(), np.zeros(CV_N * CV_W * CV_COUT, np.float32), np.int32(CV_W)]


def _conv_ref(args):
    img = args[1].reshape(CV_N, CV_W, CV_CIN).astype(np.int64)
    wt = args[2].reshape(CV_TAPS, CV_CIN, CV_COUT).astype(np.int64)
    padded = np.pad(img, ((0, 0), (1, 1), (0, 0)))
    out = sum(padded[:, tap:tap + CV_W, :] @ wt[tap] for tap in range(CV_TAPS))
    return [out.astype(np.float32).ravel()]


add(name="async_im2col_conv1d", source="async_sm90.cu", entry="_Z19async_im2col_conv1d14CUtensorMap_stPKfS1_Pfi",
    grid=CV_N * CV_W // 8, block=32, make_args=_conv_args, reference=_conv_ref, outputs=[3], needs=TMA_NEEDS,
    note="3-tap padded 1-D convolution, NWC; one im2col load per tap; columns cross into the next image")

WS_STAGES, WS_TILES, WS_BLOCKS = 3, 12, 2


def _ws_args():
    r = _rng()
    m = r.integers(-8, 9, (WS_BLOCKS * WS_TILES * 8, 32)).astype(np.float32)
    return [TensorMapArg(array_index=1, dtype="float32", shape=m.shape, box=(32, 8)), m.ravel(),
            np.zeros(WS_BLOCKS * 128, np.float32)]


def _ws_ref(args):
    tiles = args[1].reshape(WS_BLOCKS, WS_TILES, 256).astype(np.int64)
    w = np.arange(1, WS_TILES + 1)[None, :, None]
    acc = ((tiles[:, :, :128] + 2 * tiles[:, :, 128:]) * w).sum(axis=1)
    return [acc.astype(np.float32).ravel()]


add(name="async_ws_ring", source="async_sm90.cu", entry="_Z13async_ws_ring14CUtensorMap_stPKfPf",
    grid=WS_BLOCKS, block=160, make_args=_ws_args, reference=_ws_ref, outputs=[2],
    needs=TMA_NEEDS + ["elect.sync"],
    note="producer warp (elected lane) and four consumer warps; 3-stage ring of full/empty mbarriers, 12 tiles")

HIST_CTAS, HIST_PER = 4, 1000


def _hist_args():
    r = _rng()
    v = r.integers(0, 1 << 20, HIST_CTAS * HIST_PER).astype(np.uint32)
    top = np.zeros(256, np.uint32)
    top[:8] = 1 << 21                                    # bins already holding a larger maximum
    return [v, np.int32(HIST_PER), r.integers(0, 100, 256).astype(np.uint32), top]


def _hist_ref(args):
    v = args[0]
    hist = args[2].astype(np.int64) + np.bincount(v & 255, minlength=256)
    top = args[3].copy()
    np.maximum.at(top, v & 255, v)
    return [hist.astype(np.uint32), top]


add(name="async_histogram", source="async_sm90.cu", entry="_Z15async_histogramPKjiPjS1_",
    grid=HIST_CTAS, block=256, make_args=_hist_args, reference=_hist_ref, outputs=[2, 3],
    needs=["fence.proxy.async", "cp.reduce.async.bulk", "cp.async.bulk"],
    note="four CTAs add into one global histogram (.add.u32) and fold per-bin maxima (.max.u32)")

R1_LEN, R5_SHAPE = 100, (3, 3, 3, 3, 8)               # NumPy order: dim 4 outermost, dim 0 innermost
# An H200 (driver 580.159) stops this kernel with CUDA_ERROR_ILLEGAL_INSTRUCTION, with these
# coordinates and with every box inside the tensor alike (tests/kernels/data/hardware_h200_async.jsonl);
# which of its two copies it refuses is not established. No box starts below zero in every
# dimension (refused on rank 3: tests/kernels/data/tma_probe_h200.jsonl).
R15_AT = [(0, 0, 0, 0, 0, 0), (80, 6, 1, 2, 1, 2), (90, -2, -1, 0, 2, -1)]


def _r15_args():
    r = _rng()
    t1 = r.integers(-1000, 1000, R1_LEN).astype(np.float32)
    t5 = r.integers(-1000, 1000, R5_SHAPE).astype(np.float32)
    return [TensorMapArg(array_index=2, dtype="float32", shape=(R1_LEN,), box=(32,)),
            TensorMapArg(array_index=3, dtype="float32", shape=R5_SHAPE, box=(4, 2, 2, 2, 2)),
            t1, t5.ravel(), np.array(R15_AT, np.int32).ravel(), np.zeros(len(R15_AT) * 96, np.float32)]


def _window(t: np.ndarray, start, size) -> np.ndarray:
    """t[start : start + size] per dimension, zeros outside the tensor (NumPy order)."""
    out = np.zeros(size, t.dtype)
    src, dst = [], []
    for s, n, d in zip(start, size, t.shape):
        lo, hi = max(s, 0), min(s + n, d)
        src.append(slice(lo, max(lo, hi)))
        dst.append(slice(lo - s, lo - s + max(0, hi - lo)))
    out[tuple(dst)] = t[tuple(src)]
    return out


def _r15_ref(args):
    t1 = args[2]
    t5 = args[3].reshape(R5_SHAPE)
    out = []
    for c in R15_AT:
        out.append(_window(t1, (c[0],), (32,)))
        out.append(_window(t5, tuple(reversed(c[1:])), (2, 2, 2, 2, 4)).ravel())
    return [np.concatenate(out)]


add(name="async_tma_rank15", source="async_sm90.cu", entry="_Z16async_tma_rank1514CUtensorMap_stS_PKfS1_PKiPf",
    grid=len(R15_AT), block=32, make_args=_r15_args, reference=_r15_ref, outputs=[5], needs=TMA_NEEDS,
    note="a 1-D and a 5-D box per CTA, two loads on one barrier; boxes past either end read zeros")

CD_GRID = (4, 4)


def _cd_args():
    r = _rng()
    return [r.integers(-10**6, 10**6, 16 * 64).astype(np.int32), np.zeros(4, np.int32), np.zeros(32, np.uint32)]


def _cd_ref(args):
    x = args[0].reshape(4, 4, 64).astype(np.int64)          # [by, bx, t]
    per_cta = x.sum(axis=2)
    totals = per_cta.reshape(2, 2, 2, 2).sum(axis=(1, 3))   # [cy, ry, cx, rx] -> [cy, cx]
    by, bx = np.meshgrid(np.arange(4), np.arange(4), indexing="ij")
    ids = np.stack([(bx % 2) + 2 * (by % 2), np.full((4, 4), 4)], axis=-1)
    return [totals.astype(np.int32).ravel(), ids.astype(np.uint32).ravel()]


add(name="async_cluster_dims", source="async_sm90.cu", entry="_Z18async_cluster_dimsPKiPiPj",
    grid=CD_GRID, block=64, make_args=_cd_args, reference=_cd_ref, outputs=[1, 2],
    needs=[".reqnctapercluster", "barrier.cluster", "mapa"],
    note="__cluster_dims__(2,2,1), launched without a cluster: clusters of 2x2 from the module")


# =================================================================================================
# async_sm90a.cu
# =================================================================================================

MV_CTAS, MV_K, MV_ROWS = 8, 128, 16


def _mv_args():
    r = _rng()
    a = r.integers(-8, 9, (MV_CTAS * MV_ROWS, MV_K)).astype(np.float32)
    x = r.integers(-8, 9, MV_K).astype(np.float32)
    return [TensorMapArg(array_index=2, dtype="float32", shape=a.shape, box=(MV_K, MV_ROWS)),
            TensorMapArg(array_index=3, dtype="float32", shape=(MV_K,), box=(MV_K // 4,)),
            a.ravel(), x, np.zeros(MV_CTAS * MV_ROWS, np.float32)]


def _mv_ref(args):
    a = args[2].reshape(MV_CTAS * MV_ROWS, MV_K).astype(np.int64)
    return [(a @ args[3].astype(np.int64)).astype(np.float32)]


add(name="async_multicast_gemv", source="async_sm90a.cu",
    entry="_Z20async_multicast_gemv14CUtensorMap_stS_PKfS1_Pf",
    grid=MV_CTAS, block=64, cluster=(4, 1, 1), make_args=_mv_args, reference=_mv_ref, outputs=[4],
    needs=["barrier.cluster", "mbarrier", "fence.mbarrier_init", "cp.async.bulk.tensor", "multicast::cluster",
           "cvta.param"],
    note="x is shared: each CTA of a 4-CTA cluster loads a quarter and multicasts it to all four")
