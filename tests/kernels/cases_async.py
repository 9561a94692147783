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
    return [r.integers(0, 1 << 32, 64 * 16, dtype=np.uint64).astype(np.uint32), np.zeros(64 * 11, np.uint32)]


def _forms_ref(args):
    g = args[0].reshape(64, 16)
    out = np.zeros((64, 11), np.uint32)
    out[:, 0] = np.where(np.arange(64) % 2 == 1, 0, g[:, 0])      # ignore-src on odd lanes
    out[:, 1:3] = g[:, 2:4]                                        # 8-byte .ca
    out[:, 3:6] = g[:, 4:7]                                        # 16-byte .cg, src-size 12
    out[:, 7:11] = g[:, 8:12]                                      # 16-byte .cg with a cache policy
    return [out.ravel()]


add(name="async_forms", source="async_sm80.cu", entry="_Z11async_formsPKjPj",
    grid=1, block=64, make_args=_forms_args, reference=_forms_ref, outputs=[1],
    note="cp-size 4 with ignore-src, 8 with L2::64B, 16 with src-size 12 and L2::128B, 16 with a cache policy")

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
