"""Warp-level matrix kernels (ldmatrix, stmatrix, movmatrix, mma.sync), with NumPy references:
`CASES_MATRIX`.

Plain data and NumPy only, like cases.py (whose Case, comparison modes and launch conventions
apply). Sources: tests/kernels/cuda/matrix_*.cu. GEMM references are plain matrix products of
the inputs; inputs are small integers (or bit patterns for b1), so every summation order gives
the same exact result. Fragment dumps (matrix_fragments.cu) are checked against the register
layouts as the PTX ISA states them, written out here element by element
([#warp-level-matrix-instructions-ldmatrix], [#warp-level-matrix-instructions-movmatrix]).
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

from cases import EXACT, PROGRAM_ARCHS, Case, _dim3, _rng

CASES_MATRIX: list[Case] = []


def add(archs=PROGRAM_ARCHS, **kw) -> None:
    kw["grid"] = _dim3(kw["grid"])
    kw["block"] = _dim3(kw["block"])
    stem = kw["source"].removesuffix(".cu")
    kw.setdefault("ptx", tuple(f"ptx/{arch}/{stem}.ptx" for arch in archs))
    kw["outputs"] = tuple(kw["outputs"])
    kw["compare"] = tuple(kw.get("compare", [EXACT] * len(kw["outputs"])))
    CASES_MATRIX.append(Case(**kw))


# ---- matrix_gemm.cu: one warp per 16x8 tile, operands as 32-bit words --------------------------
GM, GN = 32, 16            # C is GM x GN: grid (GN / 8, GM / 16), one warp per block


def _words(values: np.ndarray, bits: int) -> np.ndarray:
    """Pack rows of `bits`-bit elements (element 0 in the lowest bits) into uint32 words."""
    per = 32 // bits
    v = values.astype(np.int64) & ((1 << bits) - 1)
    rows, k = v.shape
    v = v.reshape(rows, k // per, per).astype(np.uint64)
    shifts = (np.arange(per) * bits).astype(np.uint64)
    return np.bitwise_or.reduce(v << shifts, axis=-1).astype(np.uint32)


def _operands(kind: str, k: int):
    """(A values, Bt values, A words, Bt words) for an M x k by k x N product."""
    r = _rng()
    lo, hi = {"f16": (-3, 4), "bf16": (-3, 4), "tf32": (-3, 4), "s8": (-128, 128), "u8": (0, 256),
              "s4": (-8, 8), "b1": (0, 2)}[kind]
    a = r.integers(lo, hi, (GM, k))
    bt = r.integers(-128 if kind == "u8" else lo, 128 if kind == "u8" else hi, (GN, k))
    if kind == "f16":
        return a, bt, *(x.astype(np.float16).view(np.uint16).astype(np.int64) for x in (a, bt))
    if kind == "bf16":
        return a, bt, *((x.astype(np.float32).view(np.uint32) >> 16).astype(np.int64) for x in (a, bt))
    if kind == "tf32":
        return a, bt, *(x.astype(np.float32).view(np.uint32).astype(np.int64) for x in (a, bt))
    return a, bt, a, bt


_BITS = {"f16": 16, "bf16": 16, "tf32": 32, "s8": 8, "u8": 8, "s4": 4, "b1": 1}


def _gemm_case(entry: str, kind: str, out: str, *, op: str = "", satfinite: bool = False,
               c_init: int = 0):
    k = 2 * (256 // _BITS[kind])             # two K steps of 8 words
    out_dtype = {"f32": np.float32, "s32": np.int32}[out]

    def make():
        a, bt, aw, btw = _operands(kind, k)
        c = np.full(GM * GN, c_init, out_dtype)
        return [_words(aw, _BITS[kind]).ravel(), _words(btw, _BITS[kind]).ravel(), c,
                np.int32(GN), np.int32(k * _BITS[kind] // 32)]

    def ref(args):
        a, bt, _, _ = _operands(kind, k)
        c = args[2].reshape(GM, GN).astype(np.int64 if out == "s32" else np.float64)
        d = c
        step = k // 2                          # the kernel issues one mma per K step, in order
        for k0 in (0, step):
            x, y = a[:, k0:k0 + step], bt[:, k0:k0 + step]
            if op == "xor":
                acc = (x[:, None, :] ^ y[None, :, :]).sum(axis=2)
            else:                              # products; AND of bits is their product
                acc = x.astype(np.int64) @ y.T.astype(np.int64)
            d = d + acc
            if out == "s32":                   # .satfinite clamps each mma's result
                d = np.clip(d, -2**31, 2**31 - 1) if satfinite else (d + 2**31) % 2**32 - 2**31
        return [d.astype(out_dtype).ravel()]

    add(name=entry, source="matrix_gemm.cu", entry=entry, grid=(GN // 8, GM // 16), block=32,
        make_args=make, reference=ref, outputs=[2])


_gemm_case("mma_f16_f32", "f16", "f32")
_gemm_case("mma_bf16_f32", "bf16", "f32")
_gemm_case("mma_tf32_f32", "tf32", "f32")
_gemm_case("mma_s8_s32", "s8", "s32", c_init=-7)
_gemm_case("mma_u8s8_satfinite", "u8", "s32", satfinite=True, c_init=2**31 - 40000)
_gemm_case("mma_s4_s32", "s4", "s32", c_init=3)
_gemm_case("mma_b1_xor", "b1", "s32", op="xor")
_gemm_case("mma_b1_and", "b1", "s32", op="and", c_init=1)


def _f16_f16_args():
    a, bt, aw, btw = _operands("f16", 32)
    return [_words(aw, 16).ravel(), _words(btw, 16).ravel(), np.zeros(GM * GN, np.float16),
            np.int32(GN), np.int32(16)]


def _f16_f16_ref(args):
    a, bt, _, _ = _operands("f16", 32)
    return [(a @ bt.T).astype(np.float16).ravel()]


add(name="mma_f16_f16", source="matrix_gemm.cu", entry="mma_f16_f16", grid=(GN // 8, GM // 16),
    block=32, make_args=_f16_f16_args, reference=_f16_f16_ref, outputs=[2])


def _trans_inputs():
    r = _rng()
    return r.integers(-3, 4, (GM, 32)), r.integers(-3, 4, (32, GN))


def _trans_args():
    a, b = _trans_inputs()
    return [a.T.astype(np.float16).ravel(), b.astype(np.float16).ravel(), np.zeros(GM * GN, np.float32),
            np.int32(GM), np.int32(GN), np.int32(32)]


add(name="mma_f16_trans", source="matrix_gemm.cu", entry="mma_f16_trans", grid=(GN // 8, GM // 16),
    block=32, make_args=_trans_args, outputs=[2],
    reference=lambda args: [(lambda a, b: (a @ b).astype(np.float32).ravel())(*_trans_inputs())])


def _f64_inputs():
    r = _rng()
    return r.integers(-50, 51, (16, 12)) / 4.0, r.integers(-50, 51, (16, 12)) / 8.0, r.integers(-9, 9, (16, 16)) / 2.0


def _f64_args():
    a, bt, c = _f64_inputs()
    return [a.ravel(), bt.ravel(), c.ravel().copy(), np.int32(16), np.int32(12)]


add(name="mma_f64", source="matrix_gemm.cu", entry="mma_f64", grid=(2, 2), block=32, make_args=_f64_args,
    outputs=[2], reference=lambda args: [(lambda a, bt, c: (a @ bt.T + c).ravel())(*_f64_inputs())])


def _qp_inputs():
    r = _rng()
    return r.integers(-4, 5, (4, 8, 4)), r.integers(-4, 5, (4, 8, 4))


add(name="mma_m8n8k4_f16", source="matrix_gemm.cu", entry="mma_m8n8k4_f16", grid=1, block=32,
    make_args=lambda: [x.astype(np.float16).ravel() for x in _qp_inputs()] + [np.zeros(256, np.float32)],
    outputs=[2], reference=lambda args: [
        (lambda a, bt: np.einsum("qik,qjk->qij", a, bt).astype(np.float32).ravel())(*_qp_inputs())])


# ---- matrix_fragments.cu: ldmatrix / movmatrix registers, element by element -------------------

def _dump_inputs():
    r = _rng()
    return r.integers(0, 1 << 16, (32, 8)).astype(np.uint16), r.permutation(32).astype(np.int32)


def ldmatrix_expected(src: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """out of ldmatrix_dump per the ISA: row r of matrix j is read from the address of lane
    8j + r; register j of lane l (g = l / 4, t = l % 4) holds elements (g, 2t) and (g, 2t + 1) of
    matrix j, low half first; with .trans, elements (2t, g) and (2t + 1, g). movmatrix.trans
    turns the .x1 fragment into the fragment of the transposed matrix."""
    out = np.zeros((7, 32, 4), np.uint32)
    for v, (count, trans) in enumerate([(1, False), (2, False), (4, False), (1, True), (2, True), (4, True),
                                        (1, True)]):
        for lane in range(32):
            g, t = lane // 4, lane % 4
            for j in range(count):
                mat = src[rows[8 * j:8 * j + 8]]
                lo, hi = (mat[2 * t, g], mat[2 * t + 1, g]) if trans else (mat[g, 2 * t], mat[g, 2 * t + 1])
                out[v, lane, j] = int(lo) | (int(hi) << 16)
    return out.ravel()


add(name="ldmatrix_dump", source="matrix_fragments.cu", entry="ldmatrix_dump", grid=1, block=32,
    make_args=lambda: [*_dump_inputs(), np.zeros(7 * 128, np.uint32), np.int32(0)], outputs=[2],
    reference=lambda args: [ldmatrix_expected(*_dump_inputs())])


def _st_inputs():
    r = _rng()
    return r.integers(0, 1 << 32, (4, 32), dtype=np.uint64).astype(np.uint32), r.permutation(32).astype(np.int32)


def stmatrix_expected(regs: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """out of stmatrix_dump per the ISA: the inverse of ldmatrix — register j of lane l puts its
    low and high halves at (g, 2t) and (g, 2t + 1) of matrix j (with .trans at (2t, g) and
    (2t + 1, g)), and row r of matrix j goes to the address of lane 8j + r."""
    out = np.zeros((4, 32, 8), np.uint16)
    for v, (count, trans) in enumerate([(1, False), (2, True), (4, False), (4, True)]):
        for lane in range(32):
            g, t = lane // 4, lane % 4
            for j in range(count):
                for half in range(2):
                    value = (int(regs[j, lane]) >> (16 * half)) & 0xFFFF
                    r, c = (2 * t + half, g) if trans else (g, 2 * t + half)
                    out[v, rows[8 * j + r], c] = value
    return out.ravel()


add(name="stmatrix_dump", source="matrix_sm90.cu", entry="stmatrix_dump", grid=1, block=32, archs=("sm_90",),
    make_args=lambda: [_st_inputs()[0].ravel(), _st_inputs()[1], np.zeros(4 * 256, np.uint16)], outputs=[2],
    reference=lambda args: [stmatrix_expected(*_st_inputs())])


# ---- matrix_sm90.cu: f64 m16n8k16 and e4m3 x e5m2 ----------------------------------------------

def _f64k16_inputs():
    r = _rng()
    return r.integers(-40, 41, (32, 32)) / 4.0, r.integers(-40, 41, (16, 32)) / 8.0


add(name="mma_f64_m16n8k16", source="matrix_sm90.cu", entry="mma_f64_m16n8k16", grid=(2, 2), block=32,
    archs=("sm_90",), outputs=[2],
    make_args=lambda: [*(x.ravel() for x in _f64k16_inputs()), np.zeros(32 * 16), np.int32(16), np.int32(32)],
    reference=lambda args: [(lambda a, bt: (a @ bt.T).ravel())(*_f64k16_inputs())])

_FP8_VALUES = np.array([-3, -2, -1.5, -1, -0.5, 0, 0.25, 0.5, 1, 1.5, 2, 3])


def _fp8_inputs():
    r = _rng()
    return r.choice(_FP8_VALUES, (GM, 64)), r.choice(_FP8_VALUES, (GN, 64))


def _fp8_args():
    a, bt = _fp8_inputs()
    aw = a.astype(ml_dtypes.float8_e4m3fn).view(np.uint8).astype(np.int64)
    bw = bt.astype(ml_dtypes.float8_e5m2).view(np.uint8).astype(np.int64)
    return [_words(aw, 8).ravel(), _words(bw, 8).ravel(), np.zeros(GM * GN, np.float32), np.int32(GN), np.int32(16)]


add(name="mma_e4m3_e5m2", source="matrix_sm90.cu", entry="mma_e4m3_e5m2", grid=(GN // 8, GM // 16), block=32,
    archs=("sm_90",), make_args=_fp8_args, outputs=[2],
    reference=lambda args: [(lambda a, bt: (a @ bt.T).astype(np.float32).ravel())(*_fp8_inputs())])


# ---- matrix_sparse.cu: mma.sp with 2:4-sparse A ------------------------------------------------

def _sparse_inputs(lo: int, hi: int):
    """A (GM x 32) with two non-zeros or fewer in every group of four K elements; Bt (GN x 32)."""
    r = _rng()
    a = r.integers(lo, hi, (GM, 32))
    for row in range(GM):
        for g in range(8):
            drop = r.choice(4, 2, replace=False)
            a[row, 4 * g + drop] = 0
    return a, r.integers(lo, hi, (GN, 32))


add(name="mma_sp_f16", source="matrix_sparse.cu", entry="mma_sp_f16", grid=(GN // 8, GM // 16), block=32,
    outputs=[2], make_args=lambda: [*(x.astype(np.float16).ravel() for x in _sparse_inputs(-3, 4)),
                                    np.zeros(GM * GN, np.float32), np.int32(GN)],
    reference=lambda args: [(lambda a, bt: (a @ bt.T).astype(np.float32).ravel())(*_sparse_inputs(-3, 4))])
add(name="mma_sp_s8", source="matrix_sparse.cu", entry="mma_sp_s8", grid=(GN // 8, GM // 16), block=32,
    outputs=[2], make_args=lambda: [*(x.astype(np.int8).ravel() for x in _sparse_inputs(-128, 128)),
                                    np.zeros(GM * GN, np.int32), np.int32(GN)],
    reference=lambda args: [(lambda a, bt: (a @ bt.T).astype(np.int32).ravel())(*_sparse_inputs(-128, 128))])

# ---- matrix_wgmma.cu (sm_90a): shared-memory layouts placed by the threads, no TMA --------------

def _wg_inputs(k: int, lo: int = -3, hi: int = 4):
    r = _rng()
    return r.integers(lo, hi, (64, k)), r.integers(lo, hi, (16, k))


def _wg_f16_case(entry: str):
    add(name=entry, source="matrix_wgmma.cu", entry=entry, grid=1, block=128, archs=("sm_90a",), outputs=[2],
        make_args=lambda: [*(x.astype(np.float16).ravel() for x in _wg_inputs(64)), np.zeros(64 * 16, np.float32),
                           np.uint32(0)],
        reference=lambda args: [(lambda a, bt: (a @ bt.T).astype(np.float32).ravel())(*_wg_inputs(64))])


for _entry in ("wgmma_kmajor_none", "wgmma_kmajor_sw32", "wgmma_kmajor_sw64", "wgmma_kmajor_sw128"):
    _wg_f16_case(_entry)


def _regs_a_inputs():
    r = _rng()
    return r.integers(-3, 4, (64, 32)), r.integers(-3, 4, (32, 16))


def _regs_a_ref(args):
    a, b = _regs_a_inputs()        # the second K step has imm-scale-a = -1
    return [(a[:, :16] @ b[:16] - a[:, 16:] @ b[16:]).astype(np.float32).ravel()]


add(name="wgmma_regs_a_trans_b", source="matrix_wgmma.cu", entry="wgmma_regs_a_trans_b", grid=1, block=128,
    archs=("sm_90a",), outputs=[2], reference=_regs_a_ref,
    make_args=lambda: [*(x.astype(np.float16).ravel() for x in _regs_a_inputs()), np.zeros(64 * 16, np.float32)])

add(name="wgmma_s8_sw128", source="matrix_wgmma.cu", entry="wgmma_s8_sw128", grid=1, block=128, archs=("sm_90a",),
    outputs=[2],
    make_args=lambda: [*(x.astype(np.int8).ravel() for x in _wg_inputs(128, -128, 128)), np.zeros(64 * 16, np.int32)],
    reference=lambda args: [(lambda a, bt: (a @ bt.T).astype(np.int32).ravel())(*_wg_inputs(128, -128, 128))])


def _e4m3_inputs():
    r = _rng()
    return r.choice(_FP8_VALUES, (64, 128)), r.choice(_FP8_VALUES, (16, 128))


add(name="wgmma_e4m3_sw128", source="matrix_wgmma.cu", entry="wgmma_e4m3_sw128", grid=1, block=128,
    archs=("sm_90a",), outputs=[2],
    make_args=lambda: [*(x.astype(ml_dtypes.float8_e4m3fn).view(np.uint8).ravel() for x in _e4m3_inputs()),
                       np.zeros(64 * 16, np.float32)],
    reference=lambda args: [(lambda a, bt: (a @ bt.T).astype(np.float32).ravel())(*_e4m3_inputs())])

add(name="wgmma_tf32_sw128", source="matrix_wgmma.cu", entry="wgmma_tf32_sw128", grid=1, block=128,
    archs=("sm_90a",), outputs=[2],
    make_args=lambda: [*(x.astype(np.float32).ravel() for x in _wg_inputs(32)), np.zeros(64 * 16, np.float32)],
    reference=lambda args: [(lambda a, bt: (a @ bt.T).astype(np.float32).ravel())(*_wg_inputs(32))])

# ---- matrix_wgmma_sparse.cu (sm_90a): wgmma.mma_async.sp, A dense 2:4 sparse, compressed by the kernel

def _wg_sparse_inputs(k: int, lo: int, hi: int):
    """A (64 x k) with two non-zeros or fewer in every group of four K elements; Bt (16 x k)."""
    r = _rng()
    a = r.integers(lo, hi, (64, k))
    for row in range(64):
        for g in range(k // 4):
            a[row, 4 * g + r.choice(4, 2, replace=False)] = 0
    return a, r.integers(lo, hi, (16, k))


add(name="wgmma_sp_f16_regs", source="matrix_wgmma_sparse.cu", entry="wgmma_sp_f16_regs", grid=1, block=128,
    archs=("sm_90a",), outputs=[2],
    make_args=lambda: [*(x.astype(np.float16).ravel() for x in _wg_sparse_inputs(64, -3, 4)),
                       np.zeros(64 * 16, np.float32)],
    reference=lambda args: [(lambda a, bt: (a @ bt.T).astype(np.float32).ravel())(*_wg_sparse_inputs(64, -3, 4))])
add(name="wgmma_sp_s8_desc", source="matrix_wgmma_sparse.cu", entry="wgmma_sp_s8_desc", grid=1, block=128,
    archs=("sm_90a",), outputs=[2],
    make_args=lambda: [*(x.astype(np.int8).ravel() for x in _wg_sparse_inputs(128, -128, 128)),
                       np.zeros(64 * 16, np.int32)],
    reference=lambda args: [(lambda a, bt: (a @ bt.T).astype(np.int32).ravel())(*_wg_sparse_inputs(128, -128, 128))])


def _wg_tf32_sparse_inputs():
    """A (64 x 32) with one non-zero or none in every pair of K elements; Bt (16 x 32)."""
    r = _rng()
    a = r.integers(-3, 4, (64, 32))
    a[np.arange(64)[:, None], 2 * np.arange(16)[None, :] + r.integers(0, 2, (64, 16))] = 0
    return a, r.integers(-3, 4, (16, 32))


add(name="wgmma_sp_tf32_desc", source="matrix_wgmma_sparse.cu", entry="wgmma_sp_tf32_desc", grid=1, block=128,
    archs=("sm_90a",), outputs=[2],
    make_args=lambda: [*(x.astype(np.float32).ravel() for x in _wg_tf32_sparse_inputs()),
                       np.zeros(64 * 16, np.float32)],
    reference=lambda args: [(lambda a, bt: (a @ bt.T).astype(np.float32).ravel())(*_wg_tf32_sparse_inputs())])


add(name="mma_m8n8k4_f16_colrow", source="matrix_gemm.cu", entry="mma_m8n8k4_f16_colrow", grid=1, block=32,
    make_args=lambda: [x.astype(np.float16).ravel() for x in _qp_inputs()] + [np.zeros(256, np.float16)],
    outputs=[2], reference=lambda args: [
        (lambda a, bt: np.einsum("qik,qjk->qij", a, bt).astype(np.float16).ravel())(*_qp_inputs())])

CASES_MATRIX_BY_NAME = {c.name: c for c in CASES_MATRIX}
