"""Tensor maps: the 128-byte opaque object a TMA copy reads its tensor's geometry from.

`TensorMap.tiled(array, box=...)` and `TensorMap.im2col(array, ...)` take the parameters of the
CUDA driver's cuTensorMapEncodeTiled / cuTensorMapEncodeIm2col, per-dimension tuples innermost
first as the driver takes them, and validate them as the driver does. The array is a NumPy view
of a buffer the kernel receives (the same memory): at launch the map's address is that buffer's
address in the emulated global memory, whether the map is passed by value (a `__grid_constant__`
`CUtensorMap` parameter), or its `bytes()` are copied into a global buffer, or it sits in a
`.const`/`.global` variable. A map whose array is not inside any argument is given its own
global buffer (written back after the launch).

The 128 bytes are this emulator's own encoding (CUDA's is opaque and undocumented); the
`tensormap.replace` instruction edits the same fields.
"""
from __future__ import annotations

import functools
import struct

import numpy as np

from ..spec import swizzle as swizzle_spec
from .errors import TensorMapError

MAGIC = b"PXTM"
SIZE = 128
#: magic, mode, rank, dtype, swizzle, interleave, l2 promotion, oob fill, flags, channels per
#: pixel, pixels per column, global address, 5 dims, 4 strides, 5 box extents, 5 element
#: strides, pad, 3 lower-corner and 3 upper-corner offsets, host pointer
_FORMAT = struct.Struct("<4sBBBBBBBBHHQ5I4Q5H5BB3h3hQ16x")
assert _FORMAT.size == SIZE
OFF_ADDRESS, OFF_DIMS, OFF_STRIDES, OFF_BOX, OFF_ESTRIDES, OFF_FLAGS = 16, 24, 44, 76, 86, 11
HOST_POINTER = 1          # flags bit: the address field is not set yet; translate the host pointer

#: CUtensorMapDataType codes and element sizes
DTYPES = {"uint8": (0, 1), "uint16": (1, 2), "uint32": (2, 4), "int32": (3, 4), "uint64": (4, 8),
          "int64": (5, 8), "float16": (6, 2), "float32": (7, 4), "float64": (8, 8),
          "bfloat16": (9, 2), "float32_ftz": (10, 4), "tfloat32": (11, 4), "tfloat32_ftz": (12, 4)}
DTYPE_NAMES = {code: name for name, (code, _) in DTYPES.items()}
_FROM_NUMPY = {"uint8": "uint8", "int8": "uint8", "uint16": "uint16", "int16": "uint16",
               "uint32": "uint32", "int32": "int32", "uint64": "uint64", "int64": "int64",
               "float16": "float16", "float32": "float32", "float64": "float64"}
_FLOATS = {"float16", "float32", "float64", "bfloat16", "float32_ftz", "tfloat32", "tfloat32_ftz"}
SWIZZLES = {"none": 0, "32B": 1, "64B": 2, "128B": 3}
INTERLEAVES = {"none": 0, "16B": 1, "32B": 2}
L2_PROMOTIONS = {"none": 0, "64B": 1, "128B": 2, "256B": 3}
OOB_FILLS = {"zero": 0, "nan": 1}
#: the canonical NaN a NaN-requesting map fills with, per element size
NAN_BITS = {2: 0x7FFF, 4: 0x7FFFFFFF, 8: 0x7FFFFFFFFFFFFFFF}


class TensorMap:
    """A tensor map over a NumPy array; `bytes(tmap)` is its 128-byte encoding."""

    def __init__(self, fields: dict, array: np.ndarray):
        self.fields = fields
        self.array = array            # keeps the memory alive; the launch binds it

    def __bytes__(self) -> bytes:
        return encode(self.fields)

    def __repr__(self) -> str:
        f = self.fields
        return (f"<TensorMap {f['mode']} {DTYPE_NAMES[f['dtype']]} dims {f['dims']} "
                f"box {f['box']} swizzle {f['swizzle']}>")

    @property
    def host_pointer(self) -> int:
        return self.fields["host"]

    # ---------------------------------------------------------------- the two encode calls
    @classmethod
    def tiled(cls, array, *, box, element_strides=None, swizzle="none", interleave="none",
              l2_promotion="none", oob_fill="zero", dtype=None) -> "TensorMap":
        """cuTensorMapEncodeTiled over `array` (outermost dimension first, NumPy order);
        `box` and `element_strides` innermost first, as the driver takes them."""
        f = _common(array, element_strides, swizzle, interleave, l2_promotion, oob_fill, dtype)
        box = _tuple(box, "box")
        if len(box) != f["rank"]:
            raise TensorMapError(f"box has {len(box)} extents; the tensor has rank {f['rank']}")
        for i, n in enumerate(box):
            if not 1 <= n <= 256:
                raise TensorMapError(f"boxDim[{i}] = {n}: each box extent must be in 1..256")
        inner = box[0] * f["esize"]
        if f["interleave"] == "none" and inner % 16:
            raise TensorMapError(f"boxDim[0] * element size = {inner} bytes must be a multiple "
                                 f"of 16 bytes")
        _check_swizzle(f, inner)
        f.update(mode="tiled", box=box)
        return cls(f, array)

    @classmethod
    def im2col(cls, array, *, pixel_box_lower, pixel_box_upper, channels_per_pixel,
               pixels_per_column, element_strides=None, swizzle="none", interleave="none",
               l2_promotion="none", oob_fill="zero", dtype=None) -> "TensorMap":
        """cuTensorMapEncodeIm2col over a channels-last tensor (N, [D, H,] W, C); the pixel box
        corners are given per spatial dimension, W first."""
        f = _common(array, element_strides, swizzle, interleave, l2_promotion, oob_fill, dtype)
        rank = f["rank"]
        if rank < 3:
            raise TensorMapError(f"im2col needs a tensor of rank 3 to 5, got rank {rank}")
        lower, upper = _tuple(pixel_box_lower, "pixel_box_lower"), _tuple(pixel_box_upper, "pixel_box_upper")
        if len(lower) != rank - 2 or len(upper) != rank - 2:
            raise TensorMapError(f"pixel box corners need {rank - 2} offsets (one per spatial "
                                 f"dimension)")
        lim = {3: 1 << 15, 4: 1 << 7, 5: 1 << 4}[rank]
        for v in lower + upper:
            if not -lim <= v < lim:
                raise TensorMapError(f"pixel box corner offset {v} is outside [{-lim}, {lim - 1}] "
                                     f"for a rank-{rank} tensor")
        if not 1 <= channels_per_pixel <= 256:
            raise TensorMapError("channelsPerPixel must be in 1..256")
        if not 1 <= pixels_per_column <= 1024:
            raise TensorMapError("pixelsPerColumn must be in 1..1024")
        inner = channels_per_pixel * f["esize"]
        if f["interleave"] == "none" and inner % 16:
            raise TensorMapError(f"channelsPerPixel * element size = {inner} bytes must be a "
                                 f"multiple of 16 bytes")
        _check_swizzle(f, inner)
        f.update(mode="im2col", box=(channels_per_pixel,) + (1,) * (rank - 1), lower=lower,
                 upper=upper, channels=channels_per_pixel, pixels=pixels_per_column)
        return cls(f, array)


def _tuple(v, what) -> tuple:
    try:
        return tuple(int(x) for x in v)
    except TypeError:
        raise TensorMapError(f"{what} must be a sequence of integers") from None


def _common(array, element_strides, swizzle, interleave, l2_promotion, oob_fill, dtype) -> dict:
    if not isinstance(array, np.ndarray):
        raise TensorMapError("a tensor map describes a NumPy array (a view of a kernel argument)")
    rank = array.ndim
    if not 1 <= rank <= 5:
        raise TensorMapError(f"tensor rank {rank}: the rank must be 1 to 5")
    name = dtype or _FROM_NUMPY.get(array.dtype.name)
    if name not in DTYPES:
        raise TensorMapError(f"data type {dtype or array.dtype} has no CUtensorMapDataType")
    code, esize = DTYPES[name]
    if esize != array.dtype.itemsize:
        raise TensorMapError(f"data type {name} has {esize}-byte elements; the array has "
                             f"{array.dtype.itemsize}-byte ones")
    for what, value, table in (("swizzle", swizzle, SWIZZLES), ("interleave", interleave, INTERLEAVES),
                               ("l2_promotion", l2_promotion, L2_PROMOTIONS), ("oob_fill", oob_fill, OOB_FILLS)):
        if value not in table:
            raise TensorMapError(f"{what} {value!r}: expected one of {', '.join(table)}")
    if interleave != "none" and rank < 3:
        raise TensorMapError("an interleaved layout needs rank 3 or more")
    if interleave == "32B" and swizzle != "32B":
        raise TensorMapError("interleave 32B requires the 32B swizzle")
    if oob_fill == "nan" and name not in _FLOATS:
        raise TensorMapError("oob_fill 'nan' needs a floating-point data type")
    host = array.__array_interface__["data"][0]
    if host % (32 if interleave == "32B" else 16):
        raise TensorMapError(f"globalAddress must be aligned to {32 if interleave == '32B' else 16} "
                             f"bytes (the array starts at host address {host:#x})")
    dims = tuple(reversed(array.shape))
    for i, n in enumerate(dims):
        if not 1 <= n <= 1 << 32:
            raise TensorMapError(f"globalDim[{i}] = {n} must be in 1..2^32")
    npstr = tuple(reversed(array.strides))
    if npstr[0] != esize and dims[0] > 1:
        raise TensorMapError("the innermost dimension must be contiguous (stride = element size)")
    strides = npstr[1:]
    for i, s in enumerate(strides):
        if s <= 0 or s % (32 if interleave == "32B" else 16) or s >= 1 << 40:
            raise TensorMapError(f"globalStrides[{i}] = {s} bytes must be a positive multiple of "
                                 f"16 bytes below 2^40")
    es = _tuple(element_strides, "element_strides") if element_strides is not None else (1,) * rank
    if len(es) != rank or any(not 1 <= e <= 8 for e in es):
        raise TensorMapError("element_strides: one traversal stride per dimension, each in 1..8")
    return dict(rank=rank, dtype=code, esize=esize, swizzle=swizzle, interleave=interleave,
                l2=l2_promotion, oob=oob_fill, dims=dims, strides=strides, estrides=es,
                host=host, address=0, flags=HOST_POINTER, lower=(), upper=(), channels=0, pixels=0)


def _check_swizzle(f, inner: int) -> None:
    span = swizzle_spec.SPAN[f["swizzle"]]
    if f["interleave"] == "none" and span and inner > span:
        raise TensorMapError(f"the box's inner extent ({inner} bytes) exceeds the {f['swizzle']} "
                             f"swizzle span")


# ------------------------------------------------------------------------------ encoding

def encode(f: dict) -> bytes:
    pad = lambda t, n, v=0: tuple(t) + (v,) * (n - len(t))  # noqa: E731
    return _FORMAT.pack(
        MAGIC, 1 if f["mode"] == "im2col" else 0, f["rank"], f["dtype"], SWIZZLES[f["swizzle"]],
        INTERLEAVES[f["interleave"]], L2_PROMOTIONS[f["l2"]], OOB_FILLS[f["oob"]], f["flags"],
        f["channels"], f["pixels"], f["address"], *pad(f["dims"], 5, 1), *pad(f["strides"], 4),
        *pad(f["box"], 5, 1), *pad(f["estrides"], 5, 1), 0, *pad(f["lower"], 3), *pad(f["upper"], 3),
        f["host"])


def decode(raw: bytes) -> dict | None:
    """The fields of 128 bytes, or None if they are not a tensor map of this emulator."""
    if len(raw) != SIZE or raw[:4] != MAGIC:
        return None
    v = _FORMAT.unpack(raw)
    (_, mode, rank, dtype, swz, inter, l2, oob, flags, channels, pixels, address) = v[:12]
    dims, strides, box, es = v[12:17], v[17:21], v[21:26], v[26:31]
    lower, upper, host = v[32:35], v[35:38], v[38]
    if not 1 <= rank <= 5 or dtype not in DTYPE_NAMES:
        return None
    return dict(mode="im2col" if mode else "tiled", rank=rank, dtype=dtype,
                esize=DTYPES[DTYPE_NAMES[dtype]][1], swizzle={v: k for k, v in SWIZZLES.items()}.get(swz, "none"),
                interleave={v: k for k, v in INTERLEAVES.items()}.get(inter, "none"),
                l2={v: k for k, v in L2_PROMOTIONS.items()}.get(l2, "none"), oob="nan" if oob else "zero", flags=flags, channels=channels, pixels=pixels,
                address=address, dims=dims[:rank], strides=strides[:rank - 1], box=box[:rank],
                estrides=es[:rank], lower=lower[:rank - 2], upper=upper[:rank - 2], host=host)


def host_pointer_of_bytes(raw: bytes) -> int | None:
    f = decode(raw)
    return None if f is None else f["host"]


# ------------------------------------------------------------------------------ geometry

def tile_elements(f: dict, coords) -> tuple[np.ndarray, np.ndarray]:
    """(element indices per dimension as an (n, rank) array in shared-memory order, in-bounds
    mask) of a tiled box at `coords` (innermost first): ceil(box / stride) elements per
    dimension, `stride` apart."""
    idx = _box_steps(tuple(f["box"]), tuple(f["estrides"])) + np.asarray(coords, np.int64)
    dims = np.array(f["dims"], np.int64)
    ok = ((idx >= 0) & (idx < dims)).all(axis=1)
    return idx, ok


@functools.lru_cache(maxsize=256)
def _box_steps(box: tuple, estrides: tuple) -> np.ndarray:
    """The element offsets of a box from its first element, (n, rank), innermost fastest: one
    array per box shape (a kernel loads the same box shape many times)."""
    axes = [e * np.arange(-(-n // e), dtype=np.int64) for n, e in zip(box, estrides)]
    grids = np.meshgrid(*reversed(axes), indexing="ij")           # outermost first
    steps = np.stack([g.reshape(-1) for g in reversed(grids)], axis=1)   # innermost first
    steps.setflags(write=False)
    return steps


def im2col_elements(f: dict, coords, offsets) -> tuple[np.ndarray, np.ndarray]:
    """(n, rank) element indices and in-bounds mask of an im2col load: `pixels` pixels visited
    W fastest, then H, D, N, inside the bounding box [lower, dim - 1 + upper] of each spatial
    dimension, starting at the coordinates' pixel; each pixel reads `channels` channels from
    its position moved by the im2col offsets."""
    rank = f["rank"]
    dims = f["dims"]
    spatial = rank - 2
    lo = [int(f["lower"][i]) for i in range(spatial)]
    hi = [dims[1 + i] - 1 + int(f["upper"][i]) for i in range(spatial)]
    st = f["estrides"]
    pos = [int(coords[1 + i]) for i in range(spatial)]
    n = int(coords[rank - 1])
    pixels = []
    for _ in range(f["pixels"]):
        pixels.append((*pos, n))
        k = 0
        while True:
            if k == spatial:
                n += 1
                break
            pos[k] += st[1 + k]
            if pos[k] <= hi[k]:
                break
            pos[k] = lo[k]
            k += 1
    c0 = int(coords[0])
    ch = c0 + np.arange(f["channels"], dtype=np.int64)
    rows = []
    for px in pixels:
        moved = [px[i] + int(offsets[i]) for i in range(spatial)]
        rows.append(np.stack([ch] + [np.full_like(ch, m) for m in moved] + [np.full_like(ch, px[-1])], axis=1))
    idx = np.concatenate(rows) if rows else np.zeros((0, rank), np.int64)
    ok = ((idx >= 0) & (idx < np.array(dims, np.int64))).all(axis=1)
    return idx, ok


def element_offsets(f: dict, idx: np.ndarray) -> np.ndarray:
    """Byte offsets from the global address of (n, rank) element indices."""
    return idx @ np.array((f["esize"], *f["strides"]), np.int64)


def shared_offsets(f: dict, base: int, n_elements: int) -> np.ndarray:
    """Shared-memory byte address of every byte of a box laid out densely from `base`, with
    the map's swizzle applied (PTX ISA tensor swizzling modes). The patterns repeat every
    1024 bytes at most, so one table per (mode, base mod 1024, size) serves every box."""
    low = base % 1024
    return _swizzled_run(f["swizzle"], low, n_elements * f["esize"]) + (base - low)


@functools.lru_cache(maxsize=256)
def _swizzled_run(mode: str, low: int, nbytes: int) -> np.ndarray:
    out = swizzle_spec.swizzle(low + np.arange(nbytes, dtype=np.int64), mode)
    out.setflags(write=False)
    return out


def oob_bits(f: dict) -> int:
    return NAN_BITS[f["esize"]] if f["oob"] == "nan" else 0


def translate(f: dict, bound) -> int | None:
    """The emulated global address of a map: its address field, or, while it still names host
    memory, the argument buffer that holds it (`bound`: the launch's (argument index, array,
    bytes, segment) tuples)."""
    if not f["flags"] & HOST_POINTER:
        return f["address"]
    host = f["host"]
    for _, arr, _, seg in bound:
        start = arr.__array_interface__["data"][0]
        if start <= host < start + arr.nbytes and arr.flags.c_contiguous:
            return seg.base + (host - start)
    return None


def bind_tensor_maps(args, segs, gmem) -> list:
    """Global buffers for the arrays of tensor-map arguments that no array argument holds:
    (None, array, bytes, segment) tuples like the array arguments' (no argument index: the
    array is no argument of its own), written back after the launch like them."""
    out = []
    for k, a in enumerate(args):
        if not isinstance(a, TensorMap) or translate(a.fields, segs + out) is not None:
            continue
        root = a.array
        while isinstance(root.base, np.ndarray):
            root = root.base
        if not root.flags.c_contiguous:
            raise TensorMapError(f"argument {k}: the tensor map's array is not inside a contiguous "
                                 f"buffer; pass that buffer as an argument too")
        raw = root.reshape(-1).view(np.uint8)
        out.append((None, root, raw, gmem.alloc(raw.size, f"tensor of argument {k} ({root.dtype}[{root.size}])",
                                                align=256, data=raw)))
    return out
