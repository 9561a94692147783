"""Manifest of runnable kernels in the PTX corpus, with NumPy references.

Plain data and NumPy only: nothing here imports ptxld. A harness runs each case as

    mod = ptxld.RawModule(path=KERNELS_DIR / ptx_path)
    kernel = mod.get_function(case.entry)
    args = case.make_args()
    expected = case.reference(args)          # call before the launch: args are inputs
    kernel(case.grid, case.block, args, shared_mem=case.shared_mem)
    for index, want, mode in zip(case.outputs, expected, case.compare):
        assert_matches(mode, args[index], want)

Argument conventions (the RawModule contract): a NumPy array is a global buffer (flattened,
C order); a NumPy scalar is passed by value with the parameter's PTX type; a structured NumPy
scalar (np.void) fills a `.b8` array parameter (a struct by value). `make_args` builds fresh
arrays from a fixed seed every time it is called.

Comparison modes: EXACT is bitwise equality. `ulp(n)` allows n units in the last place against
a correctly rounded reference (for approximate hardware math). `close(rtol, atol)` is
np.allclose-style for sums whose order the PTX contract leaves open (wmma.mma).

Hopper cases (cases_sm90.py, `CASES_SM90`) add three things a harness must honour:
* `Case.cluster`: the launch's cluster shape (cudaLaunchAttributeClusterDimension), passed as
  `kernel(..., cluster=case.cluster)`. None means the launch gives none: either the module fixes
  it (`__cluster_dims__` -> `.reqnctapercluster` + `.explicitcluster`, honoured by a plain
  launch) or the kernel runs without clusters.
* `Case.needs`: the instruction families the kernel exercises (see `NEEDS`), so a harness can
  tell which cases an emulator without those families cannot run yet.
* `TensorMapArg` in the argument list where the kernel takes a `CUtensorMap` (a 128-byte `.b8`
  parameter, `.align 128` with CUDA 13.0's alignas(128)) or a pointer to one. It holds the
  cuTensorMapEncodeTiled / cuTensorMapEncodeIm2col parameters, not the 128 bytes: the map's
  format is opaque. A harness converts it with `ptxld.TensorMap.tiled(...)` /
  `ptxld.TensorMap.im2col(...)` on `arg.view(args)`, the NumPy view of the argument array the map
  describes (`array_index`), so the map and the buffer are the same memory; with `by_pointer`
  the kernel takes `const CUtensorMap*` and the harness passes the map's 128 bytes in a global
  buffer (a uint8 array) instead of by value.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable

import numpy as np

KERNELS_DIR = Path(__file__).resolve().parent
SEED = 20240917
PROGRAM_ARCHS = ("sm_80", "sm_90")

EXACT: dict = {"mode": "exact"}


def ulp(n: int) -> dict:
    return {"mode": "ulp", "max": n}


def close(rtol: float, atol: float) -> dict:
    return {"mode": "close", "rtol": rtol, "atol": atol}


@dataclass(frozen=True)
class Case:
    name: str
    source: str                      # CUDA file under cuda/
    ptx: tuple[str, ...]             # PTX paths relative to tests/kernels, one per target
    entry: str                       # mangled .entry name, as it appears in the PTX
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    make_args: Callable[[], list]
    reference: Callable[[list], list[np.ndarray]]
    outputs: tuple[int, ...]         # argument indices written by the kernel
    compare: tuple[dict, ...]        # one mode per output
    shared_mem: int = 0              # dynamic shared memory bytes
    note: str = ""
    cluster: tuple[int, int, int] | None = None   # explicit launch cluster; None: from the module
    needs: tuple[str, ...] = ()      # instruction families exercised (NEEDS), beyond sm_80 programs


# Instruction families a case can list in `needs`. Each is an opcode prefix (or, for
# "multicast::cluster", a qualifier anywhere in the opcode); ".reqnctapercluster" stands for the
# cluster shape a module fixes with __cluster_dims__, which a plain launch must honour.
NEEDS = (
    ".reqnctapercluster", "barrier.cluster", "mapa", "elect.sync", "griddepcontrol", "setmaxnreg",
    "ldmatrix", "stmatrix", "mbarrier", "fence.mbarrier_init", "fence.proxy.async",
    "cp.async.bulk", "cp.reduce.async.bulk", "cp.async.bulk.tensor", "cp.reduce.async.bulk.tensor",
    "cp.async.bulk.prefetch.tensor", "multicast::cluster", "prefetch.tensormap", "cvta.param",
    "tensormap.replace", "tensormap.cp_fenceproxy", "fence.proxy.tensormap", "wgmma",
)

# CUtensorMapDataType names (CU_TENSOR_MAP_DATA_TYPE_ without the prefix, lower case) and the
# NumPy dtype holding the elements' bits (bfloat16 as uint16; the TMA unit copies bits unchanged).
TMA_DTYPES = {
    "uint8": np.uint8, "uint16": np.uint16, "uint32": np.uint32, "int32": np.int32,
    "uint64": np.uint64, "int64": np.int64, "float16": np.float16, "float32": np.float32,
    "float64": np.float64, "bfloat16": np.uint16, "float32_ftz": np.float32,
    "tfloat32": np.float32, "tfloat32_ftz": np.float32,
}
SWIZZLE_BYTES = {"none": 0, "32B": 32, "64B": 64, "128B": 128}


@dataclass(frozen=True)
class TensorMapArg:
    """A CUtensorMap kernel argument, by the parameters of cuTensorMapEncodeTiled/Im2col.

    `shape` is the logical shape of the global tensor, outermost first (NumPy order), and
    `byte_strides` its NumPy strides (default: C-contiguous); the driver-order `dims`
    (globalDim) and `strides` (globalStrides) are derived from them. Every per-dimension tuple of
    the encode call (`box`, `element_strides`, `pixel_box_lower/upper`) is innermost first, as
    the driver API takes it. `swizzle` in {"none", "32B", "64B", "128B"}, `interleave` in
    {"none", "16B", "32B"}, `l2_promotion` in {"none", "64B", "128B", "256B"}, `oob_fill` in
    {"zero", "nan"} (CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE / _NAN_REQUEST_ZERO_FMA)."""

    array_index: int                 # the argument array holding the global tensor
    dtype: str                       # a TMA_DTYPES key
    shape: tuple[int, ...]
    box: tuple[int, ...] = ()        # boxDim (tiled mode)
    element_strides: tuple[int, ...] = ()   # traversal strides; () means all ones
    swizzle: str = "none"
    interleave: str = "none"
    l2_promotion: str = "none"
    oob_fill: str = "zero"
    byte_strides: tuple[int, ...] | None = None
    mode: str = "tiled"              # "tiled" | "im2col"
    pixel_box_lower: tuple[int, ...] = ()   # im2col: pixelBoxLowerCorner, W first
    pixel_box_upper: tuple[int, ...] = ()   # im2col: pixelBoxUpperCorner, W first
    channels_per_pixel: int = 0
    pixels_per_column: int = 0
    by_pointer: bool = False         # the kernel takes `const CUtensorMap*` (a global buffer)

    def __post_init__(self):
        def bad(why):
            raise ValueError(f"TensorMapArg({self.dtype}, {self.shape}): {why}")
        if self.dtype not in TMA_DTYPES:
            bad(f"unknown data type {self.dtype!r}")
        if self.swizzle not in SWIZZLE_BYTES or self.interleave not in ("none", "16B", "32B") \
                or self.l2_promotion not in ("none", "64B", "128B", "256B") \
                or self.oob_fill not in ("zero", "nan") or self.mode not in ("tiled", "im2col"):
            bad("swizzle / interleave / l2_promotion / oob_fill / mode out of range")
        if not 1 <= self.rank <= 5 or (self.mode == "im2col" and self.rank < 3):
            bad(f"rank {self.rank}")
        if self.byte_strides is not None and len(self.byte_strides) != self.rank:
            bad("byte_strides must give one stride per dimension")
        if any(s % 16 for s in self.strides):
            bad(f"globalStrides {self.strides} must be multiples of 16 bytes")
        if len(self.element_strides) not in (0, self.rank) or any(not 1 <= e <= 8 for e in self.element_strides):
            bad("element_strides: one per dimension, each in 1..8")
        if self.mode == "tiled":
            if len(self.box) != self.rank or any(not 1 <= b <= 256 for b in self.box):
                bad("box: one extent per dimension, each in 1..256")
            inner = self.box[0] * self.itemsize
            if inner % 16:
                bad(f"the box's inner extent ({inner} bytes) must be a multiple of 16 bytes")
        else:
            if len(self.pixel_box_lower) != self.rank - 2 or len(self.pixel_box_upper) != self.rank - 2:
                bad("pixel_box_lower/upper: one offset per spatial dimension")
            if not 1 <= self.channels_per_pixel <= 256 or not 1 <= self.pixels_per_column <= 1024:
                bad("channels_per_pixel / pixels_per_column out of range")
            inner = self.channels_per_pixel * self.itemsize
        if self.swizzle != "none" and inner > SWIZZLE_BYTES[self.swizzle]:
            bad(f"inner box extent {inner} bytes exceeds the {self.swizzle} swizzle span")

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def itemsize(self) -> int:
        return np.dtype(TMA_DTYPES[self.dtype]).itemsize

    @property
    def numpy_strides(self) -> tuple[int, ...]:
        if self.byte_strides is not None:
            return tuple(self.byte_strides)
        out, step = [], self.itemsize
        for extent in reversed(self.shape):
            out.append(step)
            step *= extent
        return tuple(reversed(out))

    @property
    def dims(self) -> tuple[int, ...]:
        """globalDim, innermost first."""
        return tuple(reversed(self.shape))

    @property
    def strides(self) -> tuple[int, ...]:
        """globalStrides in bytes, innermost first, for dimensions 1..rank-1."""
        return tuple(reversed(self.numpy_strides))[1:]

    @property
    def transfer_bytes(self) -> int:
        """Bytes one load of this map writes to shared memory (what the kernel's expect_tx holds)."""
        if self.mode == "im2col":
            return self.channels_per_pixel * self.pixels_per_column * self.itemsize
        es = self.element_strides or (1,) * self.rank
        return int(np.prod([-(-b // e) for b, e in zip(self.box, es)])) * self.itemsize

    def view(self, args: list) -> np.ndarray:
        """The global tensor as a NumPy view of argument `array_index` (shares its memory)."""
        base = args[self.array_index]
        flat = base.reshape(-1).view(TMA_DTYPES[self.dtype])
        span = sum((n - 1) * s for n, s in zip(self.shape, self.numpy_strides)) + self.itemsize
        if span > flat.nbytes:
            raise ValueError(f"tensor {self.shape} with strides {self.numpy_strides} overruns argument "
                             f"{self.array_index} ({flat.nbytes} bytes)")
        return np.lib.stride_tricks.as_strided(flat, shape=self.shape, strides=self.numpy_strides)


def _dim3(v) -> tuple[int, int, int]:
    t = (v,) if isinstance(v, int) else tuple(v)
    return tuple(t) + (1,) * (3 - len(t))


def _paths(source: str, archs=PROGRAM_ARCHS) -> tuple[str, ...]:
    return tuple(f"ptx/{arch}/{source}.ptx" for arch in archs)


def _rng() -> np.random.Generator:
    return np.random.default_rng(SEED)


def _blocks(n: int, block: int) -> int:
    return (n + block - 1) // block


# ---- comparison ------------------------------------------------------------------------------

def _ordered_ints(a: np.ndarray) -> np.ndarray:
    """Map floats to integers whose difference counts representable values between them."""
    bits = {2: np.int16, 4: np.int32, 8: np.int64}[a.dtype.itemsize]
    i = a.view(bits).astype(np.int64)
    return np.where(i < 0, np.iinfo(bits).min - i, i)


def assert_matches(mode: dict, got: np.ndarray, want: np.ndarray) -> None:
    """Raise AssertionError, naming the first mismatch, if `got` does not match `want`."""
    got = np.asarray(got).reshape(-1)
    want = np.asarray(want).reshape(-1)
    if got.dtype != want.dtype or got.shape != want.shape:
        raise AssertionError(f"got {got.dtype}{got.shape}, expected {want.dtype}{want.shape}")
    if mode["mode"] == "exact":
        if got.dtype.kind == "f":
            bad = got.view(f"u{got.itemsize}") != want.view(f"u{want.itemsize}")
        else:
            bad = got != want
    elif mode["mode"] == "ulp":
        bad = np.abs(_ordered_ints(got) - _ordered_ints(want)) > mode["max"]
    elif mode["mode"] == "close":
        bad = ~np.isclose(got, want, rtol=mode["rtol"], atol=mode["atol"])
    else:
        raise ValueError(f"unknown comparison mode {mode!r}")
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise AssertionError(
            f"{int(bad.sum())} of {bad.size} elements differ ({mode['mode']}); "
            f"first at [{i}]: got {got[i]!r}, expected {want[i]!r}")


# ---- exact arithmetic helpers ------------------------------------------------------------------

def fma_round(a, b, c, dtype=np.float32) -> np.ndarray:
    """a*b + c rounded once to `dtype` (float32 or float16), as fma.rn does.

    The product of two float32 (or float16) values is exact in float64; the float64 sum is
    made round-to-odd with the TwoSum error term, and round-to-odd at 53 bits followed by
    round-to-nearest at <= 24 bits equals a single correct rounding."""
    a, b, c = (np.asarray(v).astype(dtype).astype(np.float64) for v in (a, b, c))
    p = a * b
    s = p + c
    bb = s - p
    err = (p - (s - bb)) + (c - bb)
    even = (s.view(np.int64) & 1) == 0
    nudge = (err != 0) & even
    s = np.where(nudge, np.nextafter(s, np.where(err > 0, np.inf, -np.inf)), s)
    return s.astype(dtype)


def fma_f64(a, b, c) -> np.ndarray:
    """Correctly rounded double fma (exact rational arithmetic; int/int division rounds once)."""
    out = [float(Fraction(x) * Fraction(y) + Fraction(z)) for x, y, z in zip(a, b, c)]
    return np.array(out, dtype=np.float64)


def c_div(a, b) -> np.ndarray:
    """C integer division (truncates toward zero)."""
    a = np.asarray(a, np.int64)
    b = np.asarray(b, np.int64)
    q = np.abs(a) // np.abs(b)
    return np.where((a < 0) != (b < 0), -q, q)


def c_mod(a, b) -> np.ndarray:
    return np.asarray(a, np.int64) - c_div(a, b) * np.asarray(b, np.int64)


def wrap_i32(x) -> np.ndarray:
    return np.asarray(x, np.int64).astype(np.uint32).view(np.int32)


def popcount32(x) -> np.ndarray:
    x = np.asarray(x, np.uint32).astype(np.uint64)
    return np.array([bin(int(v)).count("1") for v in x], dtype=np.uint32)


def bf16_bits(x) -> np.ndarray:
    """float32 -> bfloat16 bit pattern, round to nearest even (finite inputs)."""
    u = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def _cuda_initializer(source: str, name: str, dtype) -> np.ndarray:
    """Read `__constant__ T name[N] = {...};` from a CUDA source (one source of truth)."""
    text = (KERNELS_DIR / "cuda" / source).read_text()
    m = re.search(r"__constant__\s+\w+\s+" + name + r"\[\d+\]\s*=\s*\{([^}]*)\}", text)
    if m is None:
        raise LookupError(f"cuda/{source}: no __constant__ initializer for {name}")
    items = [s.strip().rstrip("f") for s in m.group(1).split(",") if s.strip()]
    return np.array([float(s) for s in items]).astype(dtype)


CASES: list[Case] = []


def add(**kw) -> None:
    kw["grid"] = _dim3(kw["grid"])
    kw["block"] = _dim3(kw["block"])
    kw.setdefault("ptx", _paths(kw["source"].removesuffix(".cu")))
    kw["outputs"] = tuple(kw["outputs"])
    kw["compare"] = tuple(kw["compare"])
    CASES.append(Case(**kw))


# =============================================================================================
# programs_basic.cu
# =============================================================================================
N = 1000


def _vec_add_args():
    r = _rng()
    a = r.uniform(-10, 10, N).astype(np.float32)
    b = r.uniform(-10, 10, N).astype(np.float32)
    return [a, b, np.zeros(N, np.float32), np.int32(N)]


add(name="vec_add", source="programs_basic.cu", entry="_Z7vec_addPKfS0_Pfi",
    grid=_blocks(N, 128), block=128, make_args=_vec_add_args,
    reference=lambda a: [a[0] + a[1]], outputs=[2], compare=[EXACT])


def _saxpy_args():
    r = _rng()
    return [np.float32(1.7), r.uniform(-1, 1, N).astype(np.float32),
            r.uniform(-1, 1, N).astype(np.float32), np.int32(N)]


# nvcc contracts a*x+y into fma.rn.f32: the reference is the correctly rounded fma.
add(name="saxpy", source="programs_basic.cu", entry="_Z5saxpyfPKfPfi",
    grid=_blocks(N, 128), block=128, make_args=_saxpy_args,
    reference=lambda a: [fma_round(a[0], a[1], a[2])], outputs=[2], compare=[EXACT])


def _ints(lo, hi, n, dtype=np.int32):
    return _rng().integers(lo, hi, n).astype(dtype)


def _reduce_shared_ref(a):
    padded = np.zeros(1024, np.int64)
    padded[:N] = a[0]
    return [padded.reshape(4, 256).sum(axis=1).astype(np.int32)]


add(name="reduce_shared", source="programs_basic.cu", entry="_Z13reduce_sharedPKiPii",
    grid=4, block=256, make_args=lambda: [_ints(-1000, 1000, N), np.zeros(4, np.int32), np.int32(N)],
    reference=_reduce_shared_ref, outputs=[1], compare=[EXACT])

add(name="reduce_warp_shuffle", source="programs_basic.cu", entry="_Z19reduce_warp_shufflePKiPii",
    grid=4, block=256, make_args=lambda: [_ints(-1000, 1000, N), np.zeros(1, np.int32), np.int32(N)],
    reference=lambda a: [np.array([a[0].sum()], np.int32)], outputs=[1], compare=[EXACT])

ROWS, COLS = 40, 72


def _transpose_args():
    x = _rng().uniform(-1, 1, ROWS * COLS).astype(np.float32)
    return [x, np.zeros(ROWS * COLS, np.float32), np.int32(ROWS), np.int32(COLS)]


add(name="transpose_tiled", source="programs_basic.cu", entry="_Z15transpose_tiledPKfPfii",
    grid=(_blocks(COLS, 32), _blocks(ROWS, 32)), block=(32, 8), make_args=_transpose_args,
    reference=lambda a: [a[0].reshape(ROWS, COLS).T.ravel()], outputs=[1], compare=[EXACT])


def _histogram_args(n):
    return lambda: [_ints(0, 256, n, np.uint8), np.zeros(64, np.uint32), np.int32(n)]


def _histogram_ref(a):
    return [np.bincount(a[0] & 63, minlength=64).astype(np.uint32)]


add(name="histogram_global", source="programs_basic.cu", entry="_Z16histogram_globalPKhPji",
    grid=_blocks(2000, 128), block=128, make_args=_histogram_args(2000),
    reference=_histogram_ref, outputs=[1], compare=[EXACT])

# 4 blocks of 128 threads cover 5000 items with a grid-stride loop.
add(name="histogram_shared", source="programs_basic.cu", entry="_Z16histogram_sharedPKhPji",
    grid=4, block=128, make_args=_histogram_args(5000),
    reference=_histogram_ref, outputs=[1], compare=[EXACT])


def _stencil_1d_ref(a):
    x = a[0]
    padded = np.concatenate([np.zeros(3, np.float32), x, np.zeros(3, np.float32)])
    acc = np.zeros(N, np.float32)
    for o in range(-3, 4):  # same order as the kernel's loop
        acc = (acc + padded[3 + o:3 + o + N]).astype(np.float32)
    return [acc]


add(name="stencil_1d", source="programs_basic.cu", entry="_Z10stencil_1dPKfPfi",
    grid=_blocks(N, 128), block=128,  # the kernel's shared buffer assumes blockDim.x == 128
    make_args=lambda: [_rng().uniform(-1, 1, N).astype(np.float32), np.zeros(N, np.float32), np.int32(N)],
    reference=_stencil_1d_ref, outputs=[1], compare=[EXACT])

W2, H2 = 40, 24


def _stencil_2d_ref(a):
    x = a[0].reshape(H2, W2)
    out = x.copy()
    c, up, down = x[1:-1, 1:-1], x[:-2, 1:-1], x[2:, 1:-1]
    left, right = x[1:-1, :-2], x[1:-1, 2:]
    out[1:-1, 1:-1] = (((c + up) + down) + left) + right  # float32 throughout, kernel order
    return [out.ravel()]


add(name="stencil_2d", source="programs_basic.cu", entry="_Z10stencil_2dPKfPfii",
    grid=(_blocks(W2, 16), _blocks(H2, 16)), block=(16, 16),
    make_args=lambda: [_rng().uniform(-1, 1, W2 * H2).astype(np.float32),
                       np.zeros(W2 * H2, np.float32), np.int32(W2), np.int32(H2)],
    reference=_stencil_2d_ref, outputs=[1], compare=[EXACT])


def _block_scan_ref(a):
    padded = np.zeros(1024, np.int64)
    padded[:N] = a[0]
    return [np.cumsum(padded.reshape(4, 256), axis=1).ravel()[:N].astype(np.int32)]


add(name="block_scan", source="programs_basic.cu", entry="_Z10block_scanPKiPii",
    grid=4, block=256, make_args=lambda: [_ints(-100, 100, N), np.zeros(N, np.int32), np.int32(N)],
    reference=_block_scan_ref, outputs=[1], compare=[EXACT])

MM, MN, MK = 40, 24, 40


def _matmul_args():
    r = _rng()
    a = r.integers(-50, 50, MM * MK).astype(np.int32)
    b = r.integers(-50, 50, MK * MN).astype(np.int32)
    return [a, b, np.zeros(MM * MN, np.int32), np.int32(MM), np.int32(MN), np.int32(MK)]


add(name="matmul_tiled_int", source="programs_basic.cu", entry="_Z16matmul_tiled_intPKiS0_Piiii",
    grid=(_blocks(MN, 16), _blocks(MM, 16)), block=(16, 16), make_args=_matmul_args,
    reference=lambda a: [(a[0].reshape(MM, MK).astype(np.int64) @ a[1].reshape(MK, MN)).ravel().astype(np.int32)],
    outputs=[2], compare=[EXACT])


def _dyn_shared_args():
    x = _rng().uniform(-100, 100, 512).astype(np.float32)
    return [x, np.zeros(512, np.float32), np.zeros(4, np.int32), np.int32(512)]


def _dyn_shared_ref(a):
    blocks = a[0].reshape(4, 128)
    return [blocks[:, ::-1].ravel().copy(), np.trunc(blocks).astype(np.int32).max(axis=1)]


add(name="dyn_shared_reverse", source="programs_basic.cu", entry="_Z18dyn_shared_reversePKfPfPii",
    grid=4, block=128, shared_mem=128 * 4 + 128 * 4, make_args=_dyn_shared_args,
    reference=_dyn_shared_ref, outputs=[1, 2], compare=[EXACT, EXACT])

G3, B3 = (2, 3, 2), (4, 2, 3)


def _grid3d_ref(a):
    nx, ny, nz = (g * b for g, b in zip(G3, B3))
    z, y, x = np.meshgrid(np.arange(nz), np.arange(ny), np.arange(nx), indexing="ij")
    tid = ((z % B3[2]) * B3[1] + (y % B3[1])) * B3[0] + (x % B3[0])
    val = (x.astype(np.uint64) << 20) | (y.astype(np.uint64) << 10) | z.astype(np.uint64) | (tid.astype(np.uint64) << 26)
    return [(val & 0xFFFFFFFF).astype(np.uint32).ravel()]


add(name="grid3d_coords", source="programs_basic.cu", entry="_Z13grid3d_coordsPj",
    grid=G3, block=B3, make_args=lambda: [np.zeros(math.prod(G3) * math.prod(B3), np.uint32)],
    reference=_grid3d_ref, outputs=[0], compare=[EXACT])

add(name="grid_stride_map", source="programs_basic.cu", entry="_Z15grid_stride_mapPKiPii",
    grid=4, block=128, make_args=lambda: [_ints(-10000, 10000, 5000), np.zeros(5000, np.int32), np.int32(5000)],
    reference=lambda a: [(a[0] * 3 + (np.arange(5000) & 7)).astype(np.int32)], outputs=[1], compare=[EXACT])


def _collatz_ref(a):
    steps = []
    for x in a[0].tolist():
        s = 0
        while x != 1 and s < 1000:
            x = (3 * x + 1) & 0xFFFFFFFF if x & 1 else x >> 1
            s += 1
        steps.append(s)
    return [np.array(steps, np.uint32)]


add(name="divergent_collatz", source="programs_basic.cu", entry="_Z17divergent_collatzPKjPji",
    grid=_blocks(N, 128), block=128,
    make_args=lambda: [_ints(1, 10000, N, np.uint32), np.zeros(N, np.uint32), np.int32(N)],
    reference=_collatz_ref, outputs=[1], compare=[EXACT])


def _predicated_ref(a):
    v = a[0].astype(np.int64)
    sel = v & 3
    r = np.select([sel == 0, sel == 1, sel == 2],
                  [v * 2, np.where(v > 0, v - 7, v + 7), np.minimum(v, 100) + np.maximum(v, -100)],
                  np.abs(v) ^ 0x55)
    return [np.where(v < -900, -1, r).astype(np.int32)]


add(name="predicated_select", source="programs_basic.cu", entry="_Z17predicated_selectPKiPii",
    grid=_blocks(N, 128), block=128,
    make_args=lambda: [_ints(-1000, 1001, N), np.zeros(N, np.int32), np.int32(N)],
    reference=_predicated_ref, outputs=[1], compare=[EXACT])

I32_MIN, I32_MAX = np.iinfo(np.int32).min, np.iinfo(np.int32).max


def _atomics_args():
    res = np.array([0, I32_MIN, I32_MAX, -1, 0, 0, 0], np.int32)
    return [_ints(-5000, 5000, N), res, np.array([-np.inf], np.float32), np.int32(N)]


def _atomics_ref(a):
    v = a[0]
    res = np.array([
        v.astype(np.int64).sum(), max(I32_MIN, v.max()), min(I32_MAX, v.min()),
        np.bitwise_and.reduce(v | 0x10000) & -1, np.bitwise_or.reduce(v & 0xFF00),
        np.bitwise_xor.reduce(v), int(v.view(np.uint32).max())], np.int64)
    return [wrap_i32(res), np.array([(v.astype(np.float32) * np.float32(0.5)).max()], np.float32)]


add(name="atomics_commutative", source="programs_basic.cu", entry="_Z19atomics_commutativePKiPiPfi",
    grid=_blocks(N, 128), block=128, make_args=_atomics_args,
    reference=_atomics_ref, outputs=[1, 2], compare=[EXACT, EXACT])


def _lanes(nthreads):
    i = np.arange(nthreads)
    return i, i & 31, i & ~31


def _shuffle_ref(a):
    v = a[0]
    i, lane, base = _lanes(v.size)
    seg = i & ~15
    out = np.stack([
        v[base + 5],
        np.where(lane >= 3, v[i - 3], v),
        np.where(lane + 7 < 32, v[np.minimum(i + 7, v.size - 1)], v),
        v[base + (lane ^ 9)],
        v[seg + 2],
        np.where((i & 15) + 5 < 16, v[np.minimum(i + 5, v.size - 1)], v),
    ], axis=1)
    return [out.astype(np.int32).ravel()]


add(name="warp_shuffles", source="programs_basic.cu", entry="_Z13warp_shufflesPKiPi",
    grid=1, block=128, make_args=lambda: [_ints(-10**6, 10**6, 128), np.zeros(128 * 6, np.int32)],
    reference=_shuffle_ref, outputs=[1], compare=[EXACT])


def _votes_args():
    v = _ints(-1000, 1001, 128)
    v[40] = -995  # warp 1: __all_sync(v > -990) is false
    v[100] = 950  # warp 3: __any_sync(v > 900) is true
    v[0:32] = np.abs(v[0:32]) + 1  # warp 0: every ballot bit set
    return [v, np.zeros(128 * 5, np.uint32)]


def _votes_ref(a):
    v = a[0]
    _, lane, _ = _lanes(v.size)
    out = np.zeros((v.size, 5), np.uint64)
    for w in range(v.size // 32):
        s = slice(32 * w, 32 * w + 32)
        ballot = sum(1 << k for k in range(32) if v[s][k] > 0)
        low = (ballot & -ballot).bit_length()  # __ffs: 1-based lowest set bit, 0 if none
        out[s, 0] = ballot
        out[s, 1] = int((v[s] > 900).any())
        out[s, 2] = int((v[s] > -990).all())
        out[s, 3] = bin(ballot).count("1") + low
    # __activemask() in `if (lane % 3 == 0)`: the lanes that took the branch (the warp is
    # converged before the branch; PTX only guarantees a superset of the calling lane).
    taken = sum(1 << k for k in range(32) if k % 3 == 0)
    out[:, 4] = np.where(lane % 3 == 0, taken, 0)
    return [out.astype(np.uint32).ravel()]


add(name="warp_votes", source="programs_basic.cu", entry="_Z10warp_votesPKiPj",
    grid=1, block=128, make_args=_votes_args, reference=_votes_ref, outputs=[1], compare=[EXACT],
    note="__activemask() inside a divergent branch is expected to return the branch's lanes")


# =============================================================================================
# programs_math.cu
# =============================================================================================
NM = 512


def _divmod_args():
    r = _rng()
    a = r.integers(-10**6, 10**6, NM).astype(np.int32)
    b = r.integers(1, 1000, NM).astype(np.int32) * r.choice([-1, 1], NM).astype(np.int32)
    ua = r.integers(0, 2**32, NM, dtype=np.uint64).astype(np.uint32)
    ub = r.integers(1, 10**5, NM).astype(np.uint32)
    return [a, b, ua, ub, np.zeros(4 * NM, np.int32), np.zeros(4 * NM, np.uint32), np.int32(NM)]


def _divmod_ref(a):
    x, y, ux, uy = a[0], a[1], a[2].astype(np.uint64), a[3].astype(np.uint64)
    s = np.stack([c_div(x, y), c_mod(x, y), c_div(x, 7), c_mod(x, -12)], axis=1)
    u = np.stack([ux // uy, ux % uy, ux // 10, ux % 64], axis=1)
    return [s.astype(np.int32).ravel(), u.astype(np.uint32).ravel()]


add(name="int_divmod", source="programs_math.cu", entry="_Z10int_divmodPKiS0_PKjS2_PiPji",
    grid=_blocks(NM, 128), block=128, make_args=_divmod_args, reference=_divmod_ref,
    outputs=[4, 5], compare=[EXACT, EXACT])

M64 = (1 << 64) - 1


def _int64_args():
    r = _rng()
    a = r.integers(0, 2**64 - 1, 256, dtype=np.uint64, endpoint=True)
    b = r.integers(0, 2**64 - 1, 256, dtype=np.uint64, endpoint=True)
    return [a, b, np.zeros(256 * 6, np.uint64), np.int32(256)]


def _signed64(x: int) -> int:
    return x - (1 << 64) if x >> 63 else x


def _int64_ref(a):
    out = []
    for x, y in zip(a[0].tolist(), a[1].tolist()):
        s = y & 63
        sx, sy = _signed64(x), _signed64(y)
        out += [(x * y + (x >> 3)) & M64, (x * y) >> 64, x // (y | 1), x % (y | 1),
                ((x << s) | (x >> ((64 - s) & 63))) & M64,
                ((sx >> (s & 31)) ^ ((sx * sy) >> 64)) & M64]
    return [np.array(out, np.uint64)]


add(name="int64_math", source="programs_math.cu", entry="_Z10int64_mathPKyS0_Pyi",
    grid=2, block=128, make_args=_int64_args, reference=_int64_ref, outputs=[2], compare=[EXACT])


def _bit_ops_args():
    x = _rng().integers(0, 2**32, NM, dtype=np.uint64).astype(np.uint32)
    x[:3] = [0, 1, 0x80000000]
    x[3] = 0xF0  # small value: many leading zeros
    return [x, np.zeros(8 * NM, np.uint32), np.int32(NM)]


def _bit_ops_ref(a):
    out = []
    xs = a[0].tolist()
    n = len(xs)
    for i, x in enumerate(xs):
        y = xs[(i + 1) % n]
        pool = x | (y << 32)  # bytes 0-3 from x, 4-7 from y
        perm = 0
        for k, sel in enumerate((3, 7, 1, 5)):  # selector 0x5173, nibbles from the low end
            perm |= ((pool >> (8 * sel)) & 0xFF) << (8 * k)
        sh = i & 31
        signed = (x << 7) & 0xFFFFFFFF
        signed = signed - (1 << 32) if signed >> 31 else signed
        out += [bin(x).count("1"), 32 - x.bit_length(), int(f"{x:032b}"[::-1], 2), perm,
                (x & -x).bit_length(), ((pool << sh) >> 32) & 0xFFFFFFFF, (x >> 5) & 0x3FF,
                (signed >> 20) & 0xFFFFFFFF]
    return [np.array(out, np.uint64).astype(np.uint32)]


add(name="bit_ops", source="programs_math.cu", entry="_Z7bit_opsPKjPji",
    grid=_blocks(NM, 128), block=128, make_args=_bit_ops_args, reference=_bit_ops_ref,
    outputs=[1], compare=[EXACT])


def _float_math_args():
    r = _rng()
    x = r.uniform(0.01, 100, NM).astype(np.float32)
    y = (r.uniform(0.1, 8, NM) * r.choice([-1, 1], NM)).astype(np.float32)
    return [x, y, np.zeros(4 * NM, np.float32), np.zeros(4 * NM, np.float32),
            np.zeros(NM, np.float32), np.int32(NM)]


def _float_math_ref(a):
    x, y = a[0], a[1]
    x64, y64 = x.astype(np.float64), y.astype(np.float64)
    minmax = ((np.fmin(x, y) + np.fmax(-x, y)) + np.abs(y)) + np.copysign(np.float32(1), y)
    exact = np.concatenate([np.sqrt(x), x / y, fma_round(x, y, -x), minmax.astype(np.float32)])
    approx = np.concatenate([np.exp(y64), x64 / y64, 1 / np.sqrt(x64), np.sin(y64)]).astype(np.float32)
    return [exact, approx, np.exp(y64).astype(np.float32)]


# approx_out: expf, __fdividef, rsqrtf and sinf are within 2 ulp (CUDA C++ Programming Guide,
# "Mathematical Functions": single-precision table; __fdividef for 2^-126 <= |y| <= 2^126).
# fast_out: __expf error is 2 + floor(|1.173 * y|) ulp; |y| <= 8 gives at most 11.
add(name="float_math", source="programs_math.cu", entry="_Z10float_mathPKfS0_PfS1_S1_i",
    grid=_blocks(NM, 128), block=128, make_args=_float_math_args, reference=_float_math_ref,
    outputs=[2, 3, 4], compare=[EXACT, ulp(2), ulp(11)])


def _double_args():
    r = _rng()
    return [r.uniform(0.1, 1000, 256), r.uniform(1, 100, 256) * r.choice([-1, 1], 256),
            r.uniform(-1000, 1000, 256), np.zeros(5 * 256), np.int32(256)]


def _double_ref(a):
    x, y, z = a[0], a[1], a[2]
    return [np.concatenate([x + y, x * y, x / y, np.sqrt(x), fma_f64(x, y, z)])]


add(name="double_math", source="programs_math.cu", entry="_Z11double_mathPKdS0_S0_Pdi",
    grid=2, block=128, make_args=_double_args, reference=_double_ref, outputs=[3], compare=[EXACT])


def _conversions_args():
    r = _rng()
    f = r.uniform(-3e4, 3e4, NM).astype(np.float32)
    # ties for round-to-nearest-even, half overflow/underflow, negative zero
    f[:10] = [2.5, -2.5, 3.5, -0.5, 0.5, 1e-8, 65519.0, 65520.0, -0.0, 1.0 + 2**-11]
    s = r.integers(-2**31, 2**31, NM).astype(np.int32)
    d = r.uniform(-1e9, 1e9, NM)
    return [f, s, d, np.zeros(5 * NM, np.int32), np.zeros(NM, np.uint32), np.zeros(4 * NM, np.float32),
            np.zeros(2 * NM, np.uint16), np.zeros(2 * NM, np.float64), np.int32(NM)]


def _conversions_ref(a):
    with np.errstate(over="ignore"):  # 65520 overflows to half infinity, as cvt.rn.f16.f32 does
        return _conversions_values(a[0], a[1], a[2])


def _conversions_values(f, s, d):
    iout = np.stack([np.trunc(f), np.rint(f), np.floor(f), np.ceil(f), np.trunc(d)], axis=1).astype(np.int32)
    uout = np.trunc(np.abs(f)).astype(np.uint32)
    fout = np.stack([s.astype(np.float32), s.view(np.uint32).astype(np.float32), d.astype(np.float32),
                     f.astype(np.float16).astype(np.float32)], axis=1)
    hout = np.stack([f.astype(np.float16).view(np.uint16), bf16_bits(f)], axis=1)
    dout = np.stack([f.astype(np.float64), (s.astype(np.int64) * 1000003).astype(np.float64)], axis=1)
    return [iout.ravel(), uout, fout.ravel(), hout.ravel(), dout.ravel()]


add(name="conversions", source="programs_math.cu", entry="_Z11conversionsPKfPKiPKdPiPjPfPtPdi",
    grid=_blocks(NM, 128), block=128, make_args=_conversions_args, reference=_conversions_ref,
    outputs=[3, 4, 5, 6, 7], compare=[EXACT] * 5)


def _half_args():
    r = _rng()
    h = lambda: r.uniform(-4, 4, NM).astype(np.float16)
    return [h(), h(), h(), np.zeros(6 * NM, np.float16), np.int32(NM)]


def _half_ref(a):
    x, y, z = (v.astype(np.float32) for v in a[:3])
    # float32 intermediates are exact enough: 24 >= 2*11 + 2 makes double rounding harmless
    out = np.stack([x + y, x * y, fma_round(a[0], a[1], a[2], np.float16).astype(np.float32),
                    np.maximum(x, y), x - z, y - x], axis=1)
    return [out.astype(np.float16).ravel()]


add(name="half_arith", source="programs_math.cu", entry="_Z10half_arithPK6__halfS1_S1_PS_i",
    grid=_blocks(NM, 128), block=128, make_args=_half_args, reference=_half_ref,
    outputs=[3], compare=[EXACT])


def _narrow_args():
    r = _rng()
    return [r.integers(-128, 128, NM).astype(np.int8), r.integers(0, 256, NM).astype(np.uint8),
            r.integers(-2**15, 2**15, NM).astype(np.int16), r.integers(0, 2**16, NM).astype(np.uint16),
            np.zeros(3 * NM, np.int32), np.zeros(NM, np.uint32), np.int32(NM)]


def _narrow_ref(a):
    sc, uc, ss, us = (v.astype(np.int64) for v in a[:4])
    out = np.stack([sc * 3 + ss, uc - us,
                    (sc < 0) + (ss < 0) * 2 + (uc > 127) * 4 + (us > 32767) * 8], axis=1)
    return [out.astype(np.int32).ravel(), ((sc + ss) & 0xFFFFFFFF).astype(np.uint32)]


add(name="narrow_types", source="programs_math.cu", entry="_Z12narrow_typesPKaPKhPKsPKtPiPji",
    grid=_blocks(NM, 128), block=128, make_args=_narrow_args, reference=_narrow_ref,
    outputs=[4, 5], compare=[EXACT, EXACT])

# struct Transform { float scale; float bias; int offset; short step; signed char sign; double factor; }
TRANSFORM = np.dtype([("scale", "<f4"), ("bias", "<f4"), ("offset", "<i4"), ("step", "<i2"),
                      ("sign", "i1"), ("factor", "<f8")], align=True)


def _struct_args():
    t = np.zeros(1, dtype=TRANSFORM)  # zeroed first: the padding bytes are passed too
    t[0] = (1.5, -0.25, 7, -3, -1, 0.1)
    t = t[0]
    x = _rng().uniform(-10, 10, NM).astype(np.float32)
    return [t, x, np.zeros(NM, np.float32), np.zeros(NM, np.int32), np.zeros(NM, np.float64), np.int32(NM)]


def _struct_ref(a):
    t, x = a[0], a[1]
    i = np.arange(NM, dtype=np.int64)
    return [fma_round(x, t["scale"], t["bias"]),  # nvcc: fma.rn.f32
            wrap_i32(i * int(t["offset"]) + int(t["step"]) * int(t["sign"])),
            x.astype(np.float64) * t["factor"]]


add(name="struct_param", source="programs_math.cu", entry="_Z12struct_param9TransformPKfPfPiPdi",
    grid=_blocks(NM, 128), block=128, make_args=_struct_args, reference=_struct_ref,
    outputs=[2, 3, 4], compare=[EXACT] * 3,
    note="argument 0 is a structured NumPy scalar for `.param .align 8 .b8 ...[24]`")


def _const_args():
    r = _rng()
    return [r.integers(0, 4096, NM).astype(np.int32), r.uniform(-2, 2, NM).astype(np.float32),
            np.zeros(NM, np.int32), np.zeros(NM, np.float32), np.int32(NM)]


def _const_ref(a):
    lut = _cuda_initializer("programs_math.cu", "const_lut", np.int64)
    poly = _cuda_initializer("programs_math.cu", "const_poly", np.float32)
    k, v = a[0], a[1]
    h = fma_round(fma_round(fma_round(poly[3], v, poly[2]), v, poly[1]), v, poly[0])
    return [(lut[k & 63] + lut[(k >> 6) & 63] * 2).astype(np.int32), h]


add(name="const_lookup", source="programs_math.cu", entry="_Z12const_lookupPKiPKfPiPfi",
    grid=_blocks(NM, 128), block=128, make_args=_const_args, reference=_const_ref,
    outputs=[2, 3], compare=[EXACT, EXACT])


def _local_args():
    r = _rng()
    return [r.integers(-1000, 1000, NM).astype(np.int32), r.integers(0, 1024, NM).astype(np.int32),
            np.zeros(NM, np.int32), np.int32(NM)]


def _local_ref(a):
    x, k = a[0].astype(np.int64), a[1].astype(np.int64)
    i = np.arange(NM)[:, None]
    j = np.arange(32)[None, :]
    scratch = x[(i + j) % NM] ^ j
    rows = np.arange(NM)
    for t in range(4):
        scratch[rows, (k + 7 * t) & 31] += t + 1
    return [(scratch[rows, k & 31] - scratch[rows, (k >> 5) & 31]).astype(np.int32)]


add(name="local_array", source="programs_math.cu", entry="_Z11local_arrayPKiS0_Pii",
    grid=_blocks(NM, 128), block=128, make_args=_local_args, reference=_local_ref,
    outputs=[2], compare=[EXACT])


def _noinline_args():
    r = _rng()
    return [r.integers(1, 10**6, 256).astype(np.int32), r.integers(1, 10**4, 256).astype(np.int32),
            np.zeros(3 * 256, np.int64), np.int32(256)]


def _noinline_ref(a):
    out = []
    for x, y in zip(a[0].tolist(), a[1].tolist()):
        g = math.gcd(x, y)
        prod = x * y
        hi = int(wrap_i32(prod >> 7)) ^ g
        out += [g, prod * 31 + g + hi, sum(int(c) for c in str(x))]
    return [np.array(out, np.int64)]


add(name="noinline_calls", source="programs_math.cu", entry="_Z14noinline_callsPKiS0_Pxi",
    grid=2, block=128, make_args=_noinline_args, reference=_noinline_ref, outputs=[2], compare=[EXACT])

MV_ROWS, MV_COLS = 100, 48


def _matvec_args():
    r = _rng()
    return [r.uniform(-1, 1, MV_ROWS * MV_COLS).astype(np.float32), r.uniform(-1, 1, MV_COLS).astype(np.float32),
            np.zeros(MV_ROWS, np.float32), np.int32(MV_ROWS), np.int32(MV_COLS)]


def _matvec_ref(a):
    m = a[0].reshape(MV_ROWS, MV_COLS)
    acc = np.zeros(MV_ROWS, np.float32)
    for c in range(MV_COLS):  # acc += m*v is contracted to fma.rn.f32, in column order
        acc = fma_round(m[:, c], a[1][c], acc)
    return [acc]


add(name="matvec_f32", source="programs_math.cu", entry="_Z10matvec_f32PKfS0_Pfii",
    grid=_blocks(MV_ROWS, 64), block=64, make_args=_matvec_args, reference=_matvec_ref,
    outputs=[2], compare=[EXACT])


# =============================================================================================
# programs_loads.cu
# =============================================================================================
NL = 256


def _ldg_args():
    r = _rng()
    return [r.integers(-1000, 1000, NL).astype(np.int32),
            r.integers(-100, 100, (NL, 4)).astype(np.float32).ravel(),
            r.uniform(-1e6, 1e6, (NL, 2)).ravel(),
            r.integers(-2**15, 2**15, (NL, 2)).astype(np.int16).ravel(),
            r.integers(0, 256, NL).astype(np.uint8),
            r.integers(-2**62, 2**62, NL).astype(np.int64),
            r.uniform(-500, 500, NL).astype(np.float16),
            np.zeros(6 * NL, np.int64), np.zeros(4 * NL, np.float32), np.int32(NL)]


def _ldg_ref(a):
    si = a[0].astype(np.int64)
    f4, d2, s2 = a[1].reshape(NL, 4), a[2].reshape(NL, 2), a[3].reshape(NL, 2).astype(np.int64)
    uc, ll, h = a[4].astype(np.int64), a[5], a[6]
    i = np.arange(NL)
    out = np.stack([si + si[(i + 1) % NL], s2[:, 0] * 1000 + s2[:, 1] + uc, ll - ll[(i + 3) % NL],
                    np.trunc(d2[:, 0]).astype(np.int64) + np.trunc(d2[NL - 1 - i, 1]).astype(np.int64),
                    np.trunc(h.astype(np.float32)).astype(np.int64), si[(i // 2) * 2 + 1]], axis=1)
    b, c = f4[(i + 5) % NL], f4[(i + 7) % NL]
    fout = np.stack([f4[:, 0] + b[:, 1], f4[:, 1] + c[:, 2], b[:, 2] + c[:, 3], f4[:, 3]], axis=1)
    return [out.ravel(), fout.ravel()]


add(name="ldg_intrinsics", source="programs_loads.cu",
    entry="_Z14ldg_intrinsicsPKiPK6float4PK7double2PK6short2PKhPKxPK6__halfPxPS1_i",
    grid=2, block=128, make_args=_ldg_args, reference=_ldg_ref, outputs=[7, 8], compare=[EXACT, EXACT])


def _volatile_args():
    r = _rng()
    return [r.integers(-10**6, 10**6, NL).astype(np.int32), r.integers(-10**6, 10**6, NL).astype(np.int32),
            r.integers(0, 2**64 - 1, NL, dtype=np.uint64, endpoint=True), np.zeros(3 * NL, np.int32),
            np.int32(NL)]


def _volatile_ref(a):
    vin, data, wide = a[0].astype(np.int64), a[1].astype(np.int64), a[2]
    t = np.arange(NL)
    rev = vin[(t // 128) * 128 + 127 - t % 128]
    hi = (wide >> np.uint64(32)).astype(np.uint32).view(np.int32).astype(np.int64)
    lo = wide.astype(np.uint32).view(np.int32).astype(np.int64)
    out = np.stack([rev + data, data * 2 + hi, lo ^ (data + 10)], axis=1)
    return [wrap_i32(data + 10), wrap_i32(out).ravel()]


add(name="volatile_acquire", source="programs_loads.cu", entry="_Z16volatile_acquirePVKiPiPyS1_i",
    grid=2, block=128, make_args=_volatile_args, reference=_volatile_ref,
    outputs=[1, 3], compare=[EXACT, EXACT])


def _asm_loads_args():
    r = _rng()
    return [r.integers(0, 2**32, NL * 4, dtype=np.uint64).astype(np.uint32),
            r.integers(0, 2**32, NL + 4, dtype=np.uint64).astype(np.uint32),
            np.zeros(NL * 4, np.uint32), np.zeros(3 * NL, np.uint32), np.uint32(12345)]


def _asm_loads_ref(a):
    x = a[0].reshape(NL, 4).astype(np.uint64)
    y = x[np.arange(NL) ^ 1]
    w = a[1].astype(np.uint64)
    i = np.arange(NL)
    out = np.stack([x[:, 0] + y[:, 0], x[:, 3] ^ y[:, 2], x[:, 1] - y[:, 3], x[:, 2] + y[:, 1]], axis=1)
    tile = w[(i // 128) * 128 + ((i % 128) ^ 3)]
    wout = np.stack([w[i] + 3 * w[i + 1] + 5 * w[i + 2] + 7 * w[i + 3], w[i] ^ w[i + 1] ^ w[i + 2],
                     tile + int(a[4])], axis=1)
    m = np.uint64(0xFFFFFFFF)
    return [(out & m).astype(np.uint32).ravel(), (wout & m).astype(np.uint32).ravel()]


add(name="asm_loads", source="programs_loads.cu", entry="_Z9asm_loadsPK5uint4PKjPS_Pjj",
    grid=2, block=128, make_args=_asm_loads_args, reference=_asm_loads_ref,
    outputs=[2, 3], compare=[EXACT, EXACT],
    note="ld.global.b128, .L2::cache_hint/createpolicy, .L2::64B/128B/256B, .L1::evict_*, "
         "relaxed/acquire, mmio, shared::cta, param::entry; argument 0 needs 16-byte alignment")


# =============================================================================================
# programs_sm100a.cu (sm_100a only)
# =============================================================================================
N8 = 64


def _load256_args():
    r = _rng()
    return [r.integers(-1000, 1000, N8 * 8).astype(np.float32),
            r.integers(0, 2**64 - 1, N8 * 4, dtype=np.uint64, endpoint=True),
            np.zeros(N8 * 8, np.float32), np.zeros(N8 * 4, np.uint64), np.int32(N8)]


def _load256_ref(a):
    f = a[0].reshape(N8, 8)
    q = a[1].reshape(N8, 4)
    b = q.copy()
    b[:, 3] = 7  # the v4.b64 load sinks its last lane; the kernel puts 7 there
    with np.errstate(over="ignore"):
        out64 = q * np.uint64(3) + b[:, ::-1]
    return [(f + f[:, ::-1]).ravel(), out64.ravel()]


add(name="load_256bit", source="programs_sm100a.cu", ptx=_paths("programs_sm100a", ("sm_100a",)),
    entry="_Z11load_256bitPKfPKyPfPyi", grid=1, block=N8, make_args=_load256_args,
    reference=_load256_ref, outputs=[2, 3], compare=[EXACT, EXACT],
    note="ld.global{.nc}.v8.f32 / .v4.{u64,b64} with .L2::evict_*, sink '_'; 32-byte aligned buffers")


# =============================================================================================
# wmma_gemm.cu
# =============================================================================================
# Integer-valued inputs keep every product and partial sum exactly representable in the
# accumulator (|D| stays small), so the unspecified accumulation order and precision of
# wmma.mma cannot change the result: EXACT comparisons.

@dataclass(frozen=True)
class Gemm:
    kernel: str          # name in wmma_gemm.cu
    entry: str
    shape: tuple[int, int, int]
    a_row: bool
    b_row: bool
    kind: str            # f16 | bf16 | tf32 | s8 | u8 | f64 | s4 | u4 | b1xor | b1and
    acc: Any             # accumulator dtype
    d_col: bool
    size: tuple[int, int, int]   # m, n, k
    c_mode: int          # 0 zero, 1 row-major C, 2 col-major C


def _store(mat: np.ndarray, row_major: bool) -> np.ndarray:
    return np.ascontiguousarray(mat if row_major else mat.T).ravel()


def _pack(values: np.ndarray, bits: int) -> np.ndarray:
    """Pack rows of small integers into uint32 words, element 0 in the low bits."""
    v = (values.astype(np.int64) & ((1 << bits) - 1)).astype(np.uint64)
    per = 32 // bits
    v = v.reshape(v.shape[0], -1, per)
    shifts = (np.arange(per, dtype=np.uint64) * np.uint64(bits))
    return np.bitwise_or.reduce(v << shifts, axis=2).astype(np.uint32).ravel()


_ELEM_RANGE = {"f16": (-2, 3), "bf16": (-2, 3), "tf32": (-2, 3), "f64": (-3, 4),
               "s8": (-128, 128), "u8": (0, 256), "s4": (-8, 8), "u4": (0, 16),
               "b1xor": (0, 2), "b1and": (0, 2)}


def _gemm_inputs(g: Gemm):
    m, n, k = g.size
    r = _rng()
    lo, hi = _ELEM_RANGE[g.kind]
    a = r.integers(lo, hi, (m, k))
    b = r.integers(lo, hi, (k, n))
    c = r.integers(-8, 9, (m, n)) if g.acc != np.int32 else r.integers(-1000, 1000, (m, n))
    return a, b, c


def _gemm_args(g: Gemm):
    def make():
        m, n, k = g.size
        a, b, c = _gemm_inputs(g)
        if g.kind in ("s4", "u4"):
            av, bv = _pack(a, 4), _pack(b.T, 4)          # A row-major, B column-major
        elif g.kind.startswith("b1"):
            av, bv = _pack(a, 1), _pack(b.T, 1)
        else:
            store = {"f16": np.float16, "tf32": np.float32, "f64": np.float64, "s8": np.int8,
                     "u8": np.uint8}
            if g.kind == "bf16":  # bfloat16 bit patterns (exact for small integers)
                av = (_store(a, g.a_row).astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
                bv = (_store(b, g.b_row).astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
            else:
                av = _store(a, g.a_row).astype(store[g.kind])
                bv = _store(b, g.b_row).astype(store[g.kind])
        cv = _store(c, g.c_mode != 2).astype(g.acc)
        return [av, bv, cv, np.zeros(m * n, g.acc), np.int32(m), np.int32(n), np.int32(k), np.int32(g.c_mode)]
    return make


def _gemm_ref(g: Gemm):
    def ref(args):
        a, b, c = _gemm_inputs(g)
        a, b = a.astype(np.int64), b.astype(np.int64)
        if g.kind == "b1xor":
            d = (a[:, None, :] ^ b.T[None, :, :]).sum(axis=2)
        elif g.kind == "b1and":
            d = (a[:, None, :] & b.T[None, :, :]).sum(axis=2)
        else:
            d = a @ b
        if g.c_mode:
            d = d + c
        return [_store(d, not g.d_col).astype(g.acc)]
    return ref


def _gemm_launch(g: Gemm):
    m, n, _ = g.size
    warps = (m // g.shape[0]) * (n // g.shape[1])
    per_block = min(warps, 4)
    return _blocks(warps, per_block), 32 * per_block


_GEMMS = [
    Gemm("wmma_f16_f32_m16n16k16_rr", "_Z25wmma_f16_f32_m16n16k16_rrPK6__halfS1_PKfPfiiii", (16, 16, 16), True, True, "f16", np.float32, False, (32, 32, 32), 0),
    Gemm("wmma_f16_f32_m16n16k16_cc", "_Z25wmma_f16_f32_m16n16k16_ccPK6__halfS1_PKfPfiiii", (16, 16, 16), False, False, "f16", np.float32, False, (32, 32, 32), 1),
    Gemm("wmma_f16_f32_m32n8k16_rc", "_Z24wmma_f16_f32_m32n8k16_rcPK6__halfS1_PKfPfiiii", (32, 8, 16), True, False, "f16", np.float32, False, (64, 16, 32), 2),
    Gemm("wmma_f16_f32_m8n32k16_cr", "_Z24wmma_f16_f32_m8n32k16_crPK6__halfS1_PKfPfiiii", (8, 32, 16), False, True, "f16", np.float32, True, (8, 64, 32), 1),
    Gemm("wmma_f16_f16_m16n16k16_rc", "_Z25wmma_f16_f16_m16n16k16_rcPK6__halfS1_S1_PS_iiii", (16, 16, 16), True, False, "f16", np.float16, False, (32, 32, 32), 2),
    Gemm("wmma_f16_f16_m32n8k16_rr", "_Z24wmma_f16_f16_m32n8k16_rrPK6__halfS1_S1_PS_iiii", (32, 8, 16), True, True, "f16", np.float16, False, (64, 8, 32), 1),
    Gemm("wmma_f16_f16_m8n32k16_cc", "_Z24wmma_f16_f16_m8n32k16_ccPK6__halfS1_S1_PS_iiii", (8, 32, 16), False, False, "f16", np.float16, True, (8, 64, 32), 2),
    Gemm("wmma_bf16_f32_m16n16k16_rc", "_Z26wmma_bf16_f32_m16n16k16_rcPK13__nv_bfloat16S1_PKfPfiiii", (16, 16, 16), True, False, "bf16", np.float32, False, (32, 32, 32), 0),
    Gemm("wmma_bf16_f32_m32n8k16_cr", "_Z25wmma_bf16_f32_m32n8k16_crPK13__nv_bfloat16S1_PKfPfiiii", (32, 8, 16), False, True, "bf16", np.float32, False, (64, 16, 32), 1),
    Gemm("wmma_bf16_f32_m8n32k16_rr", "_Z25wmma_bf16_f32_m8n32k16_rrPK13__nv_bfloat16S1_PKfPfiiii", (8, 32, 16), True, True, "bf16", np.float32, False, (16, 64, 32), 2),
    Gemm("wmma_tf32_f32_m16n16k8_rc", "_Z25wmma_tf32_f32_m16n16k8_rcPKfS0_S0_Pfiiii", (16, 16, 8), True, False, "tf32", np.float32, False, (32, 32, 16), 1),
    Gemm("wmma_tf32_f32_m16n16k8_cr", "_Z25wmma_tf32_f32_m16n16k8_crPKfS0_S0_Pfiiii", (16, 16, 8), False, True, "tf32", np.float32, False, (32, 32, 16), 0),
    Gemm("wmma_s8_s32_m16n16k16_rr", "_Z24wmma_s8_s32_m16n16k16_rrPKaS0_PKiPiiiii", (16, 16, 16), True, True, "s8", np.int32, False, (32, 32, 32), 1),
    Gemm("wmma_s8_s32_m32n8k16_cc", "_Z23wmma_s8_s32_m32n8k16_ccPKaS0_PKiPiiiii", (32, 8, 16), False, False, "s8", np.int32, False, (64, 16, 32), 2),
    Gemm("wmma_u8_s32_m8n32k16_rc", "_Z23wmma_u8_s32_m8n32k16_rcPKhS0_PKiPiiiii", (8, 32, 16), True, False, "u8", np.int32, False, (16, 64, 32), 0),
    Gemm("wmma_u8_s32_m16n16k16_cr", "_Z24wmma_u8_s32_m16n16k16_crPKhS0_PKiPiiiii", (16, 16, 16), False, True, "u8", np.int32, False, (32, 32, 32), 1),
    Gemm("wmma_f64_m8n8k4_rr", "_Z18wmma_f64_m8n8k4_rrPKdS0_S0_Pdiiii", (8, 8, 4), True, True, "f64", np.float64, False, (16, 16, 16), 1),
    Gemm("wmma_f64_m8n8k4_cc", "_Z18wmma_f64_m8n8k4_ccPKdS0_S0_Pdiiii", (8, 8, 4), False, False, "f64", np.float64, True, (16, 16, 16), 2),
    Gemm("wmma_s4_s32_m8n8k32", "_Z19wmma_s4_s32_m8n8k32PKjS0_PKiPiiiii", (8, 8, 32), True, False, "s4", np.int32, False, (16, 16, 64), 1),
    Gemm("wmma_u4_s32_m8n8k32", "_Z19wmma_u4_s32_m8n8k32PKjS0_PKiPiiiii", (8, 8, 32), True, False, "u4", np.int32, False, (16, 16, 64), 0),
    Gemm("wmma_b1_xor_m8n8k128", "_Z20wmma_b1_xor_m8n8k128PKjS0_PKiPiiiii", (8, 8, 128), True, False, "b1xor", np.int32, False, (16, 16, 256), 1),
    Gemm("wmma_b1_and_m8n8k128", "_Z20wmma_b1_and_m8n8k128PKjS0_PKiPiiiii", (8, 8, 128), True, False, "b1and", np.int32, False, (16, 16, 256), 2),
]

# Strides equal to a dimension of 8 halves (16 bytes) are the PTX default strides for these
# shapes but are below the 32-byte fragment size of the f16 A/B rule in PTX §9.7.14.4.2;
# CUDA C++ only asks ldm to be a multiple of 8 halves, which they satisfy.
_DEFAULT_STRIDE_NOTE = {
    "wmma_f16_f32_m8n32k16_cr": "A col-major with lda = m = 8 halves",
    "wmma_f16_f16_m32n8k16_rr": "B row-major with ldb = n = 8 halves",
    "wmma_f16_f16_m8n32k16_cc": "A col-major with lda = m = 8 halves",
}

for _g in _GEMMS:
    _grid, _block = _gemm_launch(_g)
    add(name=_g.kernel, source="wmma_gemm.cu", entry=_g.entry, grid=_grid, block=_block,
        make_args=_gemm_args(_g), reference=_gemm_ref(_g), outputs=[3], compare=[EXACT],
        note=_DEFAULT_STRIDE_NOTE.get(_g.kernel, ""))

# The same f16 kernel with non-integer data: the sum order is unspecified, so compare with a
# tolerance. K = 32 products of magnitude <= 1 (exact in f32) plus C in [-1, 1]: a float32
# accumulation in any order is off by at most ~33 * 33 * 2^-24 < 1e-4 from the exact value.
_RANDOM_F16 = _GEMMS[1]


def _f16_random_args():
    r = _rng()
    m, n, k = _RANDOM_F16.size
    a = r.uniform(-1, 1, (m, k)).astype(np.float16)
    b = r.uniform(-1, 1, (k, n)).astype(np.float16)
    c = r.uniform(-1, 1, (m, n)).astype(np.float32)
    return [_store(a, False), _store(b, False), c.ravel(), np.zeros(m * n, np.float32),
            np.int32(m), np.int32(n), np.int32(k), np.int32(1)]


def _f16_random_ref(args):
    m, n, k = _RANDOM_F16.size
    a = args[0].reshape(k, m).T.astype(np.float64)
    b = args[1].reshape(n, k).T.astype(np.float64)
    return [(a @ b + args[2].reshape(m, n)).astype(np.float32).ravel()]


add(name="wmma_f16_f32_m16n16k16_cc_random", source="wmma_gemm.cu", entry=_RANDOM_F16.entry,
    grid=_gemm_launch(_RANDOM_F16)[0], block=_gemm_launch(_RANDOM_F16)[1],
    make_args=_f16_random_args, reference=_f16_random_ref, outputs=[3], compare=[close(0, 1e-4)])

SG_M, SG_N, SG_K = 64, 64, 32


def _staged_args():
    r = _rng()
    a = r.integers(-2, 3, (SG_M, SG_K)).astype(np.float16)
    b = r.integers(-2, 3, (SG_K, SG_N)).astype(np.float16)
    return [a.ravel(), b.ravel(), np.zeros(SG_M * SG_N, np.float32), np.int32(SG_M), np.int32(SG_N), np.int32(SG_K)]


add(name="wmma_f16_f32_shared_staged", source="wmma_gemm.cu", entry="_Z26wmma_f16_f32_shared_stagedPK6__halfS1_Pfiii",
    grid=(SG_N // 32, SG_M // 32), block=128, make_args=_staged_args,
    reference=lambda a: [(a[0].reshape(SG_M, SG_K).astype(np.float32) @ a[1].reshape(SG_K, SG_N).astype(np.float32)).ravel()],
    outputs=[2], compare=[EXACT])

CASES_BY_NAME = {c.name: c for c in CASES}
