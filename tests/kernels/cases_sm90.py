"""Hopper (sm_90 / sm_90a) kernels of the corpus, with NumPy references: `CASES_SM90`.

Plain data and NumPy only, like cases.py (whose Case, TensorMapArg, comparison modes and launch
conventions apply; read its docstring first). The sources are tests/kernels/cuda/sm90_*.cu
(built for sm_90) and sm90a_*.cu (sm_90a only: wgmma, multicast, setmaxnreg, tensormap.replace).

Every reference is the mathematical result the CUDA source asks for (a sum across a cluster, a
matrix product, a tile of a tensor), computed from the inputs with NumPy. Two references also
apply an ISA data layout that is part of the kernel's contract rather than of its arithmetic:
the TMA swizzle patterns (a swizzled tile is written out byte for byte; `swizzle_tile` follows
the tables of PTX ISA 9.0 "Tensors > Swizzling Modes", [#tensor-swizzling-modes]) and the
stmatrix register fragment (`stmatrix_roundtrip`, [#warp-level-matrix-instructions-stmatrix]).
Float GEMM inputs are small integers (or, for e4m3, exactly representable multiples of 0.5), so
every accumulation order gives the same, exact result.
"""

from __future__ import annotations

import math

import numpy as np

from cases import EXACT, Case, TensorMapArg, _dim3, _rng

CASES_SM90: list[Case] = []


def _ptx(source: str) -> tuple[str, ...]:
    arch = "sm_90a" if source.startswith("sm90a_") else "sm_90"
    return (f"ptx/{arch}/{source.removesuffix('.cu')}.ptx",)


def add(**kw) -> None:
    kw["grid"] = _dim3(kw["grid"])
    kw["block"] = _dim3(kw["block"])
    kw.setdefault("ptx", _ptx(kw["source"]))
    kw["outputs"] = tuple(kw["outputs"])
    kw["compare"] = tuple(kw.get("compare", [EXACT] * len(kw["outputs"])))
    kw["needs"] = tuple(kw.get("needs", ()))
    if kw.get("cluster") is not None:
        kw["cluster"] = _dim3(kw["cluster"])
    CASES_SM90.append(Case(**kw))


# ---- layouts the ISA defines --------------------------------------------------------------------

def swizzle_tile(tile: np.ndarray, span: int) -> np.ndarray:
    """The bytes of `tile` (C order) as a TMA load with a `span`-byte swizzle (0: none) leaves them
    in a shared buffer that starts on the pattern's boundary (256, 512, 1024 bytes for 32B, 64B,
    128B). PTX ISA [#tensor-swizzling-modes]: memory is seen as 128-byte lines of eight 16-byte
    chunks; in line L, chunk c is stored at chunk c ^ (L mod (span / 16)), so the pattern repeats
    every span / 16 lines (2 lines for 32B, 4 for 64B, 8 for 128B)."""
    raw = np.ascontiguousarray(tile).reshape(-1).view(np.uint8)
    if span == 0:
        return raw.view(tile.dtype).copy()
    offset = np.arange(raw.size)
    line = offset >> 7
    dest = offset ^ ((line & (span // 16 - 1)) << 4)
    out = np.empty_like(raw)
    out[dest] = raw
    return out.view(tile.dtype)


def e4m3_bits(values: np.ndarray) -> np.ndarray:
    """Encode values that e4m3 represents exactly (1 sign, 4 exponent bits with bias 7, 3
    mantissa bits; PTX ISA "Alternate Floating-Point Data Formats") as uint8."""
    out = np.zeros(values.shape, np.uint8)
    for idx, v in np.ndenumerate(values):
        v = float(v)
        if v == 0.0:
            continue
        mant, exp = math.frexp(abs(v))          # abs(v) = mant * 2**exp, mant in [0.5, 1)
        biased = exp - 1 + 7
        frac = mant * 2 - 1                      # in [0, 1)
        m3 = frac * 8
        if not (1 <= biased <= 15 and m3 == int(m3)):
            raise ValueError(f"{v} is not an exact normal e4m3 value")
        out[idx] = (0x80 if v < 0 else 0) | (biased << 3) | int(m3)
    return out


# =================================================================================================
# sm90_cluster.cu
# =================================================================================================

def _dsum_args():
    r = _rng()
    return [r.integers(-1000, 1000, 8 * 128).astype(np.int32), np.zeros(8 * 128, np.int32),
            np.zeros(8 * 128, np.int32), np.zeros(8 * 4, np.uint32)]


def _dsum_ref(args):
    x = args[0].reshape(2, 4, 128)
    sums = np.broadcast_to(x.sum(axis=1, keepdims=True), x.shape)
    rotated = np.roll(np.roll(x, -1, axis=1), -1, axis=2)   # [c, r, t] = x[c, (r+1)%4, (t+1)%128]
    b = np.arange(8)
    ids = np.stack([b // 4, np.full(8, 2), b % 4, np.full(8, 4)], axis=1)
    return [sums.astype(np.int32).ravel(), rotated.astype(np.int32).ravel(), ids.astype(np.uint32).ravel()]


add(name="cluster_dsmem_sum", source="sm90_cluster.cu", entry="_Z17cluster_dsmem_sumPKiPiS1_Pj",
    grid=8, block=128, make_args=_dsum_args, reference=_dsum_ref, outputs=[1, 2, 3],
    needs=[".reqnctapercluster", "barrier.cluster", "mapa"],
    note="__cluster_dims__(4,1,1): a plain launch of 8 CTAs forms two clusters of four")

IDS_GRID, IDS_CLUSTER = (4, 4), (2, 2)


def _ids_args():
    r = _rng()
    return [r.integers(-10**6, 10**6, 16 * 32).astype(np.int32), np.zeros(16 * 32, np.int32),
            np.zeros(16 * 13, np.uint32)]


def _ids_ref(args):
    gx, gy = IDS_GRID
    cx, cy = IDS_CLUSTER
    x = args[0].reshape(gy, gx, 32)
    swapped = np.empty_like(x)
    ids = np.zeros((gy, gx, 13), np.uint32)
    for by in range(gy):
        for bx in range(gx):
            rx, ry = bx % cx, by % cy
            px, py = (bx // cx) * cx + (rx ^ 1), (by // cy) * cy + (ry ^ 1)   # rank ^ 3 in a 2x2 cluster
            swapped[by, bx] = x[py, px]
            ids[by, bx] = [bx // cx, by // cy, gx // cx, gy // cy, rx, ry, cx, cy, rx + cx * ry,
                           cx * cy, 1, rx + 10 * ry, cx * cy]
    return [swapped.ravel(), ids.ravel()]


add(name="cluster_ids_2d", source="sm90_cluster.cu", entry="_Z14cluster_ids_2dPKiPiPj",
    grid=IDS_GRID, block=(16, 2), cluster=(*IDS_CLUSTER, 1), make_args=_ids_args, reference=_ids_ref,
    outputs=[1, 2], needs=["barrier.cluster", "mapa"],
    note="explicit 2x2 launch cluster; %is_explicit_cluster is expected true")

# =================================================================================================
# sm90_warp.cu
# =================================================================================================


def _elect_args():
    r = _rng()
    return [r.integers(-10**5, 10**5, 256).astype(np.int32), np.zeros(8, np.int32), np.zeros(16, np.int32),
            np.zeros(256, np.int32)]


def _elect_ref(args):
    x = args[0].reshape(8, 32)
    members = np.arange(32) % 3 != 0
    sums = (x * members).sum(axis=1).astype(np.int32)
    lane_ok = np.where(members, 1, 2).astype(np.int32)
    return [sums, np.ones(16, np.int32), np.tile(lane_ok, 8)]


add(name="elect_griddep", source="sm90_warp.cu", entry="_Z13elect_griddepPKiPiS1_S1_",
    grid=2, block=128, make_args=_elect_args, reference=_elect_ref, outputs=[1, 2, 3],
    needs=["elect.sync", "griddepcontrol"],
    note="checks only elect.sync's contract (one leader, shared leader id), not which lane wins")


def _stmatrix_args():
    r = _rng()
    return [r.integers(0, 1 << 16, 256).astype(np.uint16)] + [np.zeros(256, np.uint16) for _ in range(4)]


def _stmatrix_ref(args):
    m = args[0].reshape(4, 8, 8)
    # register j of lane l holds row l // 4, columns 2 (l % 4) and 2 (l % 4) + 1 of matrix j
    made = np.zeros((4, 8, 8), np.uint16)
    for j in range(4):
        for lane in range(32):
            for half in range(2):
                made[j, lane // 4, 2 * (lane % 4) + half] = 64 * j + 2 * lane + half
    t = m.transpose(0, 2, 1)
    return [m.ravel(), t.ravel(), made.ravel(), t.ravel()]


add(name="stmatrix_roundtrip", source="sm90_warp.cu", entry="_Z18stmatrix_roundtripPKtPtS1_S1_S1_",
    grid=1, block=32, make_args=_stmatrix_args, reference=_stmatrix_ref, outputs=[1, 2, 3, 4],
    needs=["ldmatrix", "stmatrix"])

# =================================================================================================
# sm90_mbarrier.cu
# =================================================================================================

RING_CHUNKS, RING_SLOT = 6, 96


def _ring_args():
    r = _rng()
    return [r.integers(-1000, 1000, RING_CHUNKS * RING_SLOT).astype(np.int32),
            np.full(RING_CHUNKS * RING_SLOT, -1, np.int32)]


def _ring_ref(args):
    x = args[0].reshape(RING_CHUNKS, RING_SLOT)
    out = np.full((RING_CHUNKS, RING_SLOT), -1, np.int64)
    for c in range(RING_CHUNKS):
        for j in range(RING_SLOT):
            if j >= 64 and c > 3:          # warp 3 (consumer threads 64..95) leaves after chunk 3
                continue
            out[c, j] = x[c, RING_SLOT - 1 - j] * (c + 1) + j
    return [out.astype(np.int32).ravel()]


add(name="mbarrier_ring", source="sm90_mbarrier.cu", entry="_Z13mbarrier_ringPKiPi",
    grid=1, block=128, make_args=_ring_args, reference=_ring_ref, outputs=[1], needs=["mbarrier"])

TX_A, TX_B, TX_CTAS = 128, 16, 4


def _tx_args():
    r = _rng()
    return [r.integers(-1000, 1000, 2 * TX_CTAS * TX_A).astype(np.int32),
            r.integers(-500, 500, TX_CTAS * TX_B).astype(np.int32),
            np.zeros(TX_CTAS * TX_A, np.int32), np.zeros(TX_CTAS * TX_A, np.int32)]


def _tx_ref(args):
    a = args[0].reshape(2 * TX_CTAS, TX_A)
    b = args[1].reshape(TX_CTAS, TX_B)
    t = np.arange(TX_A)
    out0 = a[:TX_CTAS] * 1000 + b[:, t % TX_B]
    out1 = a[TX_CTAS:, ::-1]
    return [out0.astype(np.int32).ravel(), out1.astype(np.int32).ravel()]


add(name="mbarrier_tx_bulk", source="sm90_mbarrier.cu", entry="_Z16mbarrier_tx_bulkPKiS0_PiS1_",
    grid=TX_CTAS, block=128, make_args=_tx_args, reference=_tx_ref, outputs=[2, 3],
    needs=["mbarrier", "fence.proxy.async", "cp.async.bulk"])


def _xch_args():
    r = _rng()
    return [r.integers(-10**6, 10**6, 4 * 64).astype(np.int32), np.zeros(4 * 64, np.int32)]


def _xch_ref(args):
    x = args[0].reshape(4, 64)
    b = np.arange(4)
    peer = b ^ 1
    out = x[peer] * 2 + (peer % 2)[:, None] + 1000 * (b % 2)[:, None]
    return [out.astype(np.int32).ravel()]


add(name="mbarrier_cluster_exchange", source="sm90_mbarrier.cu", entry="_Z25mbarrier_cluster_exchangePKiPi",
    grid=4, block=64, make_args=_xch_args, reference=_xch_ref, outputs=[1],
    needs=[".reqnctapercluster", "barrier.cluster", "mapa", "mbarrier", "fence.mbarrier_init"])

# =================================================================================================
# sm90_bulk.cu
# =================================================================================================


def _rt_args():
    r = _rng()
    return [r.integers(-50, 51, 4 * 256).astype(np.float32), np.zeros(4 * 256, np.float32)]


add(name="bulk_roundtrip", source="sm90_bulk.cu", entry="_Z14bulk_roundtripPKfPf",
    grid=4, block=128, make_args=_rt_args,
    reference=lambda a: [(a[0].reshape(4, 256) * 2 + np.arange(256, dtype=np.float32)).ravel()],
    outputs=[1], needs=["mbarrier", "fence.proxy.async", "cp.async.bulk"])


def _xb_args():
    r = _rng()
    return [r.integers(-10**6, 10**6, 4 * 64).astype(np.int32), np.zeros(4 * 64, np.int32)]


def _xb_ref(args):
    x = args[0].reshape(4, 64)
    peer = np.arange(4) ^ 1
    return [(x[peer] * 3 + (peer % 2)[:, None]).astype(np.int32).ravel()]


add(name="bulk_dsmem_exchange", source="sm90_bulk.cu", entry="_Z19bulk_dsmem_exchangePKiPi",
    grid=4, block=64, make_args=_xb_args, reference=_xb_ref, outputs=[1],
    needs=[".reqnctapercluster", "barrier.cluster", "mapa", "mbarrier", "fence.mbarrier_init",
           "fence.proxy.async", "cp.async.bulk"])

RG_CTAS, RG_N32, RG_N64 = 8, 64, 32


def _rg_args():
    r = _rng()
    sparse = r.integers(0, 1 << 31, (3, RG_CTAS * RG_N32), dtype=np.int64)
    in32 = (0x7FFFFFFF & ~(sparse[0] & sparse[1] & sparse[2])).astype(np.uint32)   # < 2^31, mostly ones
    in64 = r.integers(0, 1 << 63, RG_CTAS * RG_N64, dtype=np.int64).astype(np.uint64) * np.uint64(2) + np.uint64(1)
    inf = r.integers(-100, 101, RG_CTAS * RG_N32).astype(np.float32)
    bound = r.integers(3, 21, RG_N32).astype(np.uint32)
    return [in32, in64, inf, bound,
            r.integers(0, 1 << 32, RG_N32, dtype=np.int64).astype(np.uint32),          # add_u32
            r.integers(-(1 << 31), 1 << 31, RG_N32, dtype=np.int64).astype(np.int32),  # min_s32
            r.integers(0, 1 << 32, RG_N32, dtype=np.int64).astype(np.uint32),          # max_u32
            (r.integers(0, 1 << 16, RG_N32) % (bound.astype(np.int64) + 1)).astype(np.uint32),  # inc_u32
            (r.integers(0, 1 << 16, RG_N32) % (bound.astype(np.int64) + 5)).astype(np.uint32),  # dec_u32
            r.integers(0, 1 << 32, RG_N32, dtype=np.int64).astype(np.uint32),          # and_b32
            r.integers(0, 1 << 63, RG_N64, dtype=np.int64).astype(np.uint64),          # or_b64
            r.integers(0, 1 << 63, RG_N64, dtype=np.int64).astype(np.uint64),          # xor_b64
            r.integers(-1000, 1001, RG_N32).astype(np.float32),                        # add_f32
            r.integers(0, 1 << 63, RG_N64, dtype=np.int64).astype(np.uint64)]          # add_u64


def _rg_ref(args):
    in32 = args[0].reshape(RG_CTAS, RG_N32).astype(np.int64)
    in64 = [[int(v) for v in row] for row in args[1].reshape(RG_CTAS, RG_N64)]
    inf = args[2].reshape(RG_CTAS, RG_N32).astype(np.float64)
    bound = args[3].astype(np.int64)
    add_u32 = (args[4].astype(np.int64) + in32.sum(axis=0)) % (1 << 32)
    min_s32 = np.minimum(args[5].astype(np.int64), (in32 - (1 << 30)).min(axis=0))
    max_u32 = np.maximum(args[6].astype(np.int64), in32.max(axis=0))
    inc, dec = args[7].astype(np.int64), args[8].astype(np.int64)
    for _ in range(RG_CTAS):               # PTX ISA: .inc/.dec results stay in [0, operand]
        inc = np.where(inc >= bound, 0, inc + 1)
        dec = np.where((dec == 0) | (dec > bound), bound, dec - 1)
    and_b32 = np.bitwise_and.reduce(in32, axis=0) & args[9].astype(np.int64)
    or_b64, xor_b64, add_u64 = [], [], []
    for j in range(RG_N64):
        o, x, s = int(args[10][j]), int(args[11][j]), int(args[13][j])
        for row in in64:
            o |= row[j]
            x ^= row[j]
            s = (s + row[j]) % (1 << 64)
        or_b64.append(o)
        xor_b64.append(x)
        add_u64.append(s)
    add_f32 = args[12].astype(np.float64) + inf.sum(axis=0)
    return [add_u32.astype(np.uint32), min_s32.astype(np.int32), max_u32.astype(np.uint32), inc.astype(np.uint32),
            dec.astype(np.uint32), and_b32.astype(np.uint32), np.array(or_b64, np.uint64),
            np.array(xor_b64, np.uint64), add_f32.astype(np.float32), np.array(add_u64, np.uint64)]


add(name="bulk_reduce_global", source="sm90_bulk.cu",
    entry="_Z18bulk_reduce_globalPKjPKmPKfS0_PjPiS5_S5_S5_S5_PmS7_PfS7_",
    grid=RG_CTAS, block=RG_N32, make_args=_rg_args, reference=_rg_ref, outputs=range(4, 14),
    needs=["fence.proxy.async", "cp.reduce.async.bulk", "cp.async.bulk"],
    note="eight CTAs reduce into the same accumulators; every result is independent of their order")


def _rd_args():
    r = _rng()
    return [r.integers(0, 1 << 20, 8 * 64).astype(np.uint32), r.integers(0, 1 << 20, 2 * 64).astype(np.uint32),
            np.zeros(2 * 64, np.uint32), np.zeros(2 * 64, np.int32)]


def _rd_ref(args):
    x = args[0].reshape(2, 4, 64).astype(np.int64)
    sums = args[1].reshape(2, 64).astype(np.int64) + x.sum(axis=1)
    mins = np.minimum(1 << 20, (x % 2000 - 1000).min(axis=1))
    return [sums.astype(np.uint32).ravel(), mins.astype(np.int32).ravel()]


add(name="bulk_reduce_dsmem", source="sm90_bulk.cu", entry="_Z17bulk_reduce_dsmemPKjS0_PjPi",
    grid=8, block=64, make_args=_rd_args, reference=_rd_ref, outputs=[2, 3],
    needs=[".reqnctapercluster", "barrier.cluster", "mapa", "mbarrier", "fence.mbarrier_init",
           "fence.proxy.async", "cp.reduce.async.bulk"])

# =================================================================================================
# sm90_tma.cu
# =================================================================================================

TMA_LOAD_NEEDS = ["mbarrier", "fence.proxy.async", "cp.async.bulk.tensor", "cvta.param"]


def _tile_case(name: str, entry: str, box_x: int, swizzle: str, padded: bool):
    rows = 32
    cols = 20 if padded else 2 * box_x          # logical columns of the tensor
    pitch = 32 if padded else cols              # elements per row in memory

    def make():
        g = (np.arange(rows * pitch, dtype=np.uint32) + 1)
        tmap = TensorMapArg(array_index=1, dtype="uint32", shape=(rows, cols), box=(box_x, 16), swizzle=swizzle,
                            byte_strides=(pitch * 4, 4))
        return [tmap, g, np.zeros(4 * 16 * box_x, np.uint32)]

    def ref(args):
        g = args[1].reshape(rows, pitch)[:, :cols]
        tiles = []
        for by in range(2):
            for bx in range(2):
                box = np.zeros((16, box_x), np.uint32)
                part = g[by * 16:by * 16 + 16, bx * box_x:bx * box_x + box_x]
                box[:part.shape[0], :part.shape[1]] = part          # outside the tensor: zero fill
                tiles.append(swizzle_tile(box, {"none": 0, "32B": 32, "64B": 64, "128B": 128}[swizzle]))
        return [np.concatenate(tiles)]

    add(name=name, source="sm90_tma.cu", entry=entry, grid=(2, 2), block=128, make_args=make, reference=ref,
        outputs=[2], needs=TMA_LOAD_NEEDS,
        note="raw shared-memory bytes of the box; the reference applies the ISA swizzle pattern")


_tile_case("tma_tile_noswizzle", "_Z18tma_tile_noswizzle14CUtensorMap_stPKjPj", 12, "none", padded=True)
_tile_case("tma_tile_swizzle32", "_Z18tma_tile_swizzle3214CUtensorMap_stPKjPj", 8, "32B", padded=False)
_tile_case("tma_tile_swizzle64", "_Z18tma_tile_swizzle6414CUtensorMap_stPKjPj", 16, "64B", padded=False)
_tile_case("tma_tile_swizzle128", "_Z19tma_tile_swizzle12814CUtensorMap_stPKjPj", 32, "128B", padded=False)

S3_SHAPE = (3, 10, 20)                          # D, H, W
S3_COORDS = [(-3, -2, -1), (16, 8, 2), (4, 3, 0), (-8, 9, 2)]   # (x, y, z) per CTA


def _s3_args():
    g = (np.arange(np.prod(S3_SHAPE)) % 997 + 1).astype(np.float32)
    tmap = TensorMapArg(array_index=1, dtype="float32", shape=S3_SHAPE, box=(8, 4, 2), element_strides=(1, 2, 1))
    return [tmap, g, np.array(S3_COORDS, np.int32).ravel(), np.zeros(len(S3_COORDS) * 32, np.float32)]


def _s3_ref(args):
    g = args[1].reshape(S3_SHAPE)
    out = np.zeros((len(S3_COORDS), 2, 2, 8), np.float32)
    for n, (x, y, z) in enumerate(S3_COORDS):
        for j in range(2):                      # box extent 2 in D, stride 1
            for i in range(2):                  # box extent 4 in H, stride 2: rows y, y + 2
                for k in range(8):
                    d, h, w = z + j, y + 2 * i, x + k
                    if 0 <= d < S3_SHAPE[0] and 0 <= h < S3_SHAPE[1] and 0 <= w < S3_SHAPE[2]:
                        out[n, j, i, k] = g[d, h, w]
    return [out.ravel()]


add(name="tma_load_3d_strided", source="sm90_tma.cu", entry="_Z19tma_load_3d_strided14CUtensorMap_stPKfPKiPf",
    grid=len(S3_COORDS), block=32, make_args=_s3_args, reference=_s3_ref, outputs=[3], needs=TMA_LOAD_NEEDS,
    note="traversal stride 2 in dimension 1 loads ceil(4 / 2) = 2 rows (cuTensorMapEncodeTiled)")

I2C_SHAPE = (2, 5, 6, 16)                       # N, H, W, C
I2C_LOWER, I2C_UPPER = (-1, -1), (-1, -1)       # W, H
I2C_PARAMS = [(0, -1, -1, 0, 0, 0), (0, -1, -1, 0, 1, 1), (0, 3, 2, 0, 2, 0), (8, 0, 1, 1, 1, 2)]  # c w h n off_w off_h


def _i2c_args():
    g = (np.arange(np.prod(I2C_SHAPE)) + 1).astype(np.float32)
    tmap = TensorMapArg(array_index=1, dtype="float32", shape=I2C_SHAPE, mode="im2col", pixel_box_lower=I2C_LOWER,
                        pixel_box_upper=I2C_UPPER, channels_per_pixel=8, pixels_per_column=16,
                        element_strides=(1, 1, 1, 1))
    return [tmap, g, np.array(I2C_PARAMS, np.int32).ravel(), np.zeros(len(I2C_PARAMS) * 16 * 8, np.float32)]


def _i2c_ref(args):
    """PTX ISA [#tensor-im2col-mode]: the bounding box spans W in [lower_w, W - 1 + upper_w] and H
    likewise; pixels are visited W fastest, then H, then N, starting at the coordinates' pixel;
    each visited pixel reads channels [c, c + 8) at (h + off_h, w + off_w), zero outside."""
    n_, h_, w_, _ = I2C_SHAPE
    g = args[1].reshape(I2C_SHAPE)
    ws = range(I2C_LOWER[0], w_ - 1 + I2C_UPPER[0] + 1)
    hs = range(I2C_LOWER[1], h_ - 1 + I2C_UPPER[1] + 1)
    order = [(n, h, w) for n in range(n_) for h in hs for w in ws]
    out = np.zeros((len(I2C_PARAMS), 16, 8), np.float32)
    for k, (c, w0, h0, n0, ow, oh) in enumerate(I2C_PARAMS):
        start = order.index((n0, h0, w0))
        for p, (n, h, w) in enumerate(order[start:start + 16]):
            hh, ww = h + oh, w + ow
            if 0 <= hh < h_ and 0 <= ww < w_:
                out[k, p] = g[n, hh, ww, c:c + 8]
    return [out.ravel()]


add(name="tma_load_im2col", source="sm90_tma.cu", entry="_Z15tma_load_im2col14CUtensorMap_stPKfPKiPf",
    grid=len(I2C_PARAMS), block=64, make_args=_i2c_args, reference=_i2c_ref, outputs=[3], needs=TMA_LOAD_NEEDS,
    note="CTA 2's column runs from image 0 into image 1; CTA 3 starts at channel 8")

SR_OUT = (20, 24)


def _sr_args():
    r = _rng()
    out = np.full(np.prod(SR_OUT), -1, np.int32)
    acc = r.integers(-10**6, 10**6, 256).astype(np.int32)
    return [TensorMapArg(array_index=2, dtype="int32", shape=SR_OUT, box=(16, 16)),
            TensorMapArg(array_index=3, dtype="int32", shape=(16, 16), box=(16, 16)), out, acc]


def _sr_ref(args):
    out = np.full(SR_OUT, -1, np.int64)
    acc = args[3].astype(np.int64).reshape(16, 16)
    for by in range(2):
        for bx in range(2):
            cta = by * 2 + bx
            tile = (cta + 1) * 1000 + np.arange(256).reshape(16, 16)
            dst = out[by * 16:by * 16 + 16, bx * 16:bx * 16 + 16]   # clipped at the tensor's edge
            dst[...] = tile[:dst.shape[0], :dst.shape[1]]
            acc = acc + tile
    return [out.astype(np.int32).ravel(), acc.astype(np.int32).ravel()]


add(name="tma_store_reduce", source="sm90_tma.cu", entry="_Z16tma_store_reduce14CUtensorMap_stS_PiS0_",
    grid=(2, 2), block=128, make_args=_sr_args, reference=_sr_ref, outputs=[2, 3],
    needs=["fence.proxy.async", "cp.async.bulk", "cp.async.bulk.tensor", "cp.reduce.async.bulk.tensor",
           "cvta.param"])

GP_SHAPE = (16, 64)


def _gp_args():
    r = _rng()
    g = r.integers(0, 1 << 16, np.prod(GP_SHAPE)).astype(np.uint16)
    return [TensorMapArg(array_index=1, dtype="uint16", shape=GP_SHAPE, box=(32, 8), by_pointer=True), g,
            np.zeros(4 * 256, np.uint16)]


def _gp_ref(args):
    g = args[1].reshape(GP_SHAPE)
    return [np.concatenate([g[by * 8:by * 8 + 8, bx * 32:bx * 32 + 32].ravel() for by in range(2) for bx in range(2)])]


add(name="tma_global_map_prefetch", source="sm90_tma.cu", entry="_Z23tma_global_map_prefetchPK14CUtensorMap_stPKtPt",
    grid=(2, 2), block=64, make_args=_gp_args, reference=_gp_ref, outputs=[2],
    needs=["mbarrier", "fence.proxy.async", "cp.async.bulk.tensor", "cp.async.bulk.prefetch.tensor",
           "prefetch.tensormap"],
    note="the tensor map is passed by pointer to a 128-byte global buffer written before the launch")

# =================================================================================================
# sm90a_hopper.cu
# =================================================================================================


def _mc_args():
    r = _rng()
    return [r.integers(-10**6, 10**6, 2 * 256).astype(np.int32), np.zeros(8 * 256, np.int32)]


def _mc_ref(args):
    x = args[0].reshape(2, 256)
    b = np.arange(8)
    return [(x[b // 4] + (b % 4)[:, None]).astype(np.int32).ravel()]


add(name="bulk_multicast", source="sm90a_hopper.cu", entry="_Z14bulk_multicastPKiPi",
    grid=8, block=64, make_args=_mc_args, reference=_mc_ref, outputs=[1],
    needs=[".reqnctapercluster", "barrier.cluster", "mbarrier", "fence.mbarrier_init", "cp.async.bulk",
           "multicast::cluster"])

TM_SHAPE = (16, 64)


def _tm_args():
    g = (np.arange(np.prod(TM_SHAPE)) % 1000 + 1).astype(np.float32)
    return [TensorMapArg(array_index=1, dtype="float32", shape=TM_SHAPE, box=(32, 8)), g, np.zeros(4 * 512, np.float32)]


def _tm_ref(args):
    g = args[1].reshape(TM_SHAPE)
    b = np.arange(4)
    tiles = np.stack([g[:, (k // 2) * 32:(k // 2) * 32 + 32] for k in b])
    return [(tiles + (b % 2)[:, None, None]).astype(np.float32).ravel()]


add(name="tma_multicast", source="sm90a_hopper.cu", entry="_Z13tma_multicast14CUtensorMap_stPKfPf",
    grid=4, block=64, cluster=(2, 1, 1), make_args=_tm_args, reference=_tm_ref, outputs=[2],
    needs=["barrier.cluster", "mbarrier", "fence.mbarrier_init", "cp.async.bulk.tensor", "multicast::cluster",
           "prefetch.tensormap", "cvta.param"])

TR_SHAPE = (16, 32)


def _tr_args():
    r = _rng()
    decoy = np.full(np.prod(TR_SHAPE), -7.0, np.float32)
    real = r.integers(-1000, 1000, np.prod(TR_SHAPE)).astype(np.float32)
    return [TensorMapArg(array_index=1, dtype="float32", shape=TR_SHAPE, box=(32, 8)), decoy, real,
            np.zeros(2 * 128, np.uint8), np.zeros(2 * 256, np.float32)]


add(name="tma_replace_address", source="sm90a_hopper.cu", entry="_Z19tma_replace_address14CUtensorMap_stPKfS1_PS_Pf",
    grid=2, block=32, make_args=_tr_args, reference=lambda a: [a[2].copy()], outputs=[4],
    needs=["mbarrier", "fence.proxy.async", "cp.async.bulk.tensor", "tensormap.replace", "tensormap.cp_fenceproxy",
           "fence.proxy.tensormap"],
    note="the template map points at `decoy`; the kernel swaps in `real`'s address (argument 3 is scratch)")

SP_CHUNKS, SP_SLOT = 5, 128


def _sp_args():
    r = _rng()
    n = 2 * SP_CHUNKS * SP_SLOT
    return [r.integers(-1000, 1000, n).astype(np.int32), np.zeros(n, np.int32), np.zeros(2 * SP_SLOT, np.int32)]


def _sp_ref(args):
    x = args[0].reshape(2, SP_CHUNKS, SP_SLOT).astype(np.int64)
    v = x[:, :, ::-1]
    c = np.arange(SP_CHUNKS)[None, :, None]
    return [(v + c).astype(np.int32).ravel(), (v * (c + 1)).sum(axis=1).astype(np.int32).ravel()]


add(name="setmaxnreg_pipeline", source="sm90a_hopper.cu", entry="_Z19setmaxnreg_pipelinePKiPiS1_",
    grid=2, block=256, make_args=_sp_args, reference=_sp_ref, outputs=[1, 2], needs=["setmaxnreg", "mbarrier"])

# =================================================================================================
# sm90a_wgmma.cu
# =================================================================================================

WGMMA_NEEDS = ["elect.sync", "mbarrier", "fence.proxy.async", "cp.async.bulk.tensor", "cvta.param", "wgmma"]

# operand type -> (K elements in one 128-byte row, TMA data type, operand value generator)
_HALF_VALUES = np.array([-2, -1, 0, 1, 2], np.float64)
_E4M3_VALUES = np.array([-2, -1.5, -1, -0.5, 0, 0.5, 1, 1.5, 2])


def _operand(kind: str, r, rows: int, k: int):
    """(values as float64 for the reference, array as the kernel reads it)."""
    if kind in ("f16", "bf16"):
        v = r.choice(_HALF_VALUES, (rows, k))
        if kind == "f16":
            return v, v.astype(np.float16).ravel()
        return v, (v.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16).ravel()   # exact bf16
    if kind == "tf32":
        v = r.integers(-3, 4, (rows, k)).astype(np.float64)
        return v, v.astype(np.float32).ravel()
    if kind == "e4m3":
        v = r.choice(_E4M3_VALUES, (rows, k))
        return v, e4m3_bits(v).ravel()
    if kind == "s8":
        v = r.integers(-128, 128, (rows, k))
        return v.astype(np.float64), v.astype(np.int8).ravel()
    raise ValueError(kind)


_K_PER_ROW = {"f16": 64, "bf16": 64, "tf32": 32, "e4m3": 128, "s8": 128}
_TMA_TYPE = {"f16": "float16", "bf16": "bfloat16", "tf32": "float32", "e4m3": "uint8", "s8": "uint8"}
_OUT_TYPE = {"f32": np.float32, "f16": np.float16, "s32": np.int32}


def _wgmma_case(name: str, entry: str, kind: str, n: int, out: str, a_in_registers: bool = False):
    k = _K_PER_ROW[kind]

    def inputs():
        r = _rng()
        a, a_arr = _operand(kind, r, 64, k)
        bt, bt_arr = _operand(kind, r, n, k)
        return a, a_arr, bt, bt_arr

    def make():
        _, a_arr, _, bt_arr = inputs()
        d = np.zeros(64 * n, _OUT_TYPE[out])
        if a_in_registers:      # (a, map_b, bt, d)
            return [a_arr, TensorMapArg(array_index=2, dtype=_TMA_TYPE[kind], shape=(n, k), box=(k, n),
                                        swizzle="128B"), bt_arr, d]
        return [TensorMapArg(array_index=2, dtype=_TMA_TYPE[kind], shape=(64, k), box=(k, 64), swizzle="128B"),
                TensorMapArg(array_index=3, dtype=_TMA_TYPE[kind], shape=(n, k), box=(k, n), swizzle="128B"),
                a_arr, bt_arr, d]

    def ref(args):
        a, _, bt, _ = inputs()
        return [(a @ bt.T).astype(_OUT_TYPE[out]).ravel()]

    add(name=name, source="sm90a_wgmma.cu", entry=entry, grid=1, block=128, make_args=make, reference=ref,
        outputs=[3 if a_in_registers else 4], needs=WGMMA_NEEDS)


_wgmma_case("wgmma_f16_f32_n8", "_Z16wgmma_f16_f32_n814CUtensorMap_stS_PKvS1_Pf", "f16", 8, "f32")
_wgmma_case("wgmma_f16_f32_n64", "_Z17wgmma_f16_f32_n6414CUtensorMap_stS_PKvS1_Pf", "f16", 64, "f32")
_wgmma_case("wgmma_f16_f32_n128", "_Z18wgmma_f16_f32_n12814CUtensorMap_stS_PKvS1_Pf", "f16", 128, "f32")
_wgmma_case("wgmma_f16_f32_n256", "_Z18wgmma_f16_f32_n25614CUtensorMap_stS_PKvS1_Pf", "f16", 256, "f32")
_wgmma_case("wgmma_bf16_f32_n128", "_Z19wgmma_bf16_f32_n12814CUtensorMap_stS_PKvS1_Pf", "bf16", 128, "f32")
_wgmma_case("wgmma_f16_f16_n64", "_Z17wgmma_f16_f16_n6414CUtensorMap_stS_PKvS1_P6__half", "f16", 64, "f16")
_wgmma_case("wgmma_tf32_f32_n64", "_Z18wgmma_tf32_f32_n6414CUtensorMap_stS_PKvS1_Pf", "tf32", 64, "f32")
_wgmma_case("wgmma_e4m3_f32_n64", "_Z18wgmma_e4m3_f32_n6414CUtensorMap_stS_PKvS1_Pf", "e4m3", 64, "f32")
_wgmma_case("wgmma_s8_s32_n64", "_Z16wgmma_s8_s32_n6414CUtensorMap_stS_PKvS1_Pi", "s8", 64, "s32")
_wgmma_case("wgmma_f16_f32_rs_n64", "_Z20wgmma_f16_f32_rs_n64PK6__half14CUtensorMap_stS1_Pf", "f16", 64, "f32",
            a_in_registers=True)

# ---- the warp-specialised GEMM -----------------------------------------------------------------------
GEMM_TILE, GEMM_THREADS, GEMM_SMEM = 128, 384, 4 * (128 * 64 + 128 * 64) * 2


def gemm_ws_args(m: int = 128, n: int = 128, k: int = 384) -> list:
    """Arguments of wgmma_gemm_ws for an m x n x k problem (multiples of 128, 128, 64). The test
    uses 128 x 128 x 384 (six K tiles: the four-stage ring wraps); benchmarks take 512^3 and up."""
    if m % GEMM_TILE or n % GEMM_TILE or k % 64:
        raise ValueError(f"wgmma_gemm_ws needs m, n multiples of 128 and k a multiple of 64, got {m}x{n}x{k}")
    r = np.random.default_rng([m, n, k])
    a = r.choice(_HALF_VALUES, (m, k)).astype(np.float16)
    bt = r.choice(_HALF_VALUES, (n, k)).astype(np.float16)
    return [TensorMapArg(array_index=2, dtype="float16", shape=(m, k), box=(64, 128), swizzle="128B"),
            TensorMapArg(array_index=3, dtype="float16", shape=(n, k), box=(64, 128), swizzle="128B"),
            a.ravel(), bt.ravel(), np.zeros(m * n, np.float32), np.int32(m), np.int32(n), np.int32(k)]


def gemm_ws_launch(m: int = 128, n: int = 128) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """(grid, block) of wgmma_gemm_ws for an m x n problem."""
    return (n // GEMM_TILE, m // GEMM_TILE, 1), (GEMM_THREADS, 1, 1)


def gemm_ws_reference(args) -> list[np.ndarray]:
    m, n, k = (int(x) for x in args[5:8])
    a = args[2].reshape(m, k).astype(np.float64)
    bt = args[3].reshape(n, k).astype(np.float64)
    return [(a @ bt.T).astype(np.float32).ravel()]


add(name="wgmma_gemm_ws", source="sm90a_wgmma.cu", entry="_Z13wgmma_gemm_ws14CUtensorMap_stS_PK6__halfS2_Pfiii",
    grid=gemm_ws_launch()[0], block=gemm_ws_launch()[1], make_args=gemm_ws_args, reference=gemm_ws_reference,
    outputs=[4], shared_mem=GEMM_SMEM,
    needs=["elect.sync", "setmaxnreg", "mbarrier", "fence.proxy.async", "cp.async.bulk.tensor", "prefetch.tensormap",
           "cvta.param", "wgmma"],
    note="128 KiB of dynamic shared memory: a CUDA host raises cudaFuncAttributeMaxDynamicSharedMemorySize")

CASES_SM90_BY_NAME = {c.name: c for c in CASES_SM90}
