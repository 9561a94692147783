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
from ..spec import tensormap as map_spec
from .errors import TensorMapError

MAGIC = b"PXTM"
SIZE = 128
#: magic, mode, rank, element type, swizzle mode, interleave, l2 promotion, oob fill, flags,
#: channels per pixel, pixels per column, global address, 5 dims, 4 strides, 5 box extents,
#: 5 element strides, swizzle atomicity, 3 lower-corner and 3 upper-corner offsets, host pointer.
#: The enumerated fields hold the codes `tensormap.replace` writes (ptxld.spec.tensormap).
_FORMAT = struct.Struct("<4sBBBBBBBBHHQ5I4Q5H5BB3h3hQ16x")
assert _FORMAT.size == SIZE
OFF_MODE, OFF_RANK, OFF_DTYPE, OFF_SWIZZLE, OFF_INTERLEAVE, OFF_OOB, OFF_FLAGS = 4, 5, 6, 7, 8, 10, 11
OFF_ADDRESS, OFF_DIMS, OFF_STRIDES, OFF_BOX, OFF_ESTRIDES, OFF_ATOMICITY = 16, 24, 44, 76, 86, 91
HOST_POINTER = 1          # flags bit: the address field is not set yet; translate the host pointer

#: CUtensorMapDataType names -> the ISA's element-type code (the stored one)
DTYPES = {"uint8": 0, "uint16": 1, "uint32": 2, "int32": 3, "uint64": 4, "int64": 5, "float16": 6,
          "float32": 7, "float32_ftz": 8, "float64": 9, "bfloat16": 10, "tfloat32": 11,
          "tfloat32_ftz": 12, "16U4_align8B": 13, "16U4_align16B": 14, "16U6_align16B": 15}
DTYPE_NAMES = {code: name for name, code in DTYPES.items()}
_FROM_NUMPY = {"uint8": "uint8", "int8": "uint8", "uint16": "uint16", "int16": "uint16",
               "uint32": "uint32", "int32": "int32", "uint64": "uint64", "int64": "int64",
               "float16": "float16", "float32": "float32", "float64": "float64"}
#: cuTensorMapEncode's swizzle names -> (swizzle mode, swizzle atomicity); the atomicity
#: variants are sm_100's
SWIZZLES = {"none": ("none", "16B"), "32B": ("32B", "16B"), "64B": ("64B", "16B"),
            "128B": ("128B", "16B"), "128B_atom_32B": ("128B", "32B"),
            "128B_atom_32B_flip_8B": ("128B", "32B_flip_8B"), "128B_atom_64B": ("128B", "64B")}
INTERLEAVES = {name: code for code, name in enumerate(map_spec.INTERLEAVE_LAYOUTS)}
L2_PROMOTIONS = {"none": 0, "64B": 1, "128B": 2, "256B": 3}
_L2_NAMES = {code: name for name, code in L2_PROMOTIONS.items()}
OOB_FILLS = {name: code for code, name in enumerate(map_spec.FILL_MODES)}
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
        f.update(mode="tiled", box=box)
        check(f)
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
        f.update(mode="im2col", box=(channels_per_pixel,) + (1,) * (rank - 1), lower=lower,
                 upper=upper, channels=channels_per_pixel, pixels=pixels_per_column)
        check(f)
        return cls(f, array)


def _tuple(v, what) -> tuple:
    try:
        return tuple(int(x) for x in v)
    except TypeError:
        raise TensorMapError(f"{what} must be a sequence of integers") from None


def _common(array, element_strides, swizzle, interleave, l2_promotion, oob_fill, dtype) -> dict:
    """The fields every encode call shares, from its arguments (their names and the array's
    layout); the rules between fields are check()'s."""
    if not isinstance(array, np.ndarray):
        raise TensorMapError("a tensor map describes a NumPy array (a view of a kernel argument)")
    rank = array.ndim
    if not 1 <= rank <= map_spec.MAX_RANK:
        raise TensorMapError(f"tensor rank {rank}: the rank must be 1 to 5")
    name = dtype or _FROM_NUMPY.get(array.dtype.name)
    if name not in DTYPES:
        raise TensorMapError(f"data type {dtype or array.dtype} has no CUtensorMapDataType")
    code = DTYPES[name]
    esize = map_spec.ELEMTYPES[code].size
    if esize is None:
        raise TensorMapError(f"data type {name}: packed sub-byte tensors are not modelled "
                             f"(their copies are not executed)")
    if esize != array.dtype.itemsize:
        raise TensorMapError(f"data type {name} has {esize}-byte elements; the array has "
                             f"{array.dtype.itemsize}-byte ones")
    for what, value, table in (("swizzle", swizzle, SWIZZLES), ("interleave", interleave, INTERLEAVES),
                               ("l2_promotion", l2_promotion, L2_PROMOTIONS), ("oob_fill", oob_fill, OOB_FILLS)):
        if value not in table:
            raise TensorMapError(f"{what} {value!r}: expected one of {', '.join(table)}")
    mode, atomicity = SWIZZLES[swizzle]
    dims = tuple(reversed(array.shape))
    npstr = tuple(reversed(array.strides))
    if npstr[0] != esize and dims[0] > 1:
        raise TensorMapError("the innermost dimension must be contiguous (stride = element size)")
    es = _tuple(element_strides, "element_strides") if element_strides is not None else (1,) * rank
    if len(es) != rank:
        raise TensorMapError("element_strides: one traversal stride per dimension, each in 1..8")
    return dict(rank=rank, dtype=code, esize=esize, swizzle=mode, atomicity=atomicity,
                interleave=interleave, l2=l2_promotion, oob=oob_fill, dims=dims,
                strides=npstr[1:], estrides=es, host=array.__array_interface__["data"][0],
                address=0, flags=HOST_POINTER, lower=(), upper=(), channels=0, pixels=0)


# ------------------------------------------------------------------------------ validity

def check(f: dict) -> None:
    """Raise TensorMapError naming the first rule of cuTensorMapEncode (and of the PTX ISA's
    tensor maps) the fields break. The encode calls check what they build; a tensor copy checks
    the map it reads, so a map edited by tensormap.replace is held to the same rules once the
    edits are done (a sequence of replacements may pass through invalid maps)."""
    rank, esize, inter = f["rank"], f["esize"], f["interleave"]
    if not 1 <= rank <= map_spec.MAX_RANK:
        raise TensorMapError(f"tensor rank {rank}: the rank must be 1 to 5")
    if inter != "none" and rank < 3:
        raise TensorMapError("an interleaved layout needs rank 3 or more")
    if inter == "32B" and (f["swizzle"], f["atomicity"]) != ("32B", "16B"):
        raise TensorMapError("interleave 32B requires the 32B swizzle")
    if f["oob"] == "nan" and not map_spec.ELEMTYPES[f["dtype"]].floating:
        raise TensorMapError("oob_fill 'nan' needs a floating-point data type")
    if f["atomicity"] != "16B" and f["swizzle"] != "128B":
        raise TensorMapError(f"swizzle atomicity {f['atomicity']} needs the 128B swizzle mode "
                             f"(the map has {f['swizzle']})")
    align = 32 if inter == "32B" else 16
    if f["flags"] & HOST_POINTER:
        if f["host"] % align:
            raise TensorMapError(f"globalAddress must be aligned to {align} bytes (the array "
                                 f"starts at host address {f['host']:#x})")
    elif f["address"] % align:
        raise TensorMapError(f"globalAddress {f['address']:#x} must be aligned to {align} bytes")
    for i, n in enumerate(f["dims"]):
        if not 1 <= n <= 1 << 32:
            raise TensorMapError(f"globalDim[{i}] = {n} must be in 1..2^32")
    for i, s in enumerate(f["strides"]):
        if s <= 0 or s % align or s >= 1 << 40:
            raise TensorMapError(f"globalStrides[{i}] = {s} bytes must be a positive multiple of "
                                 f"{align} bytes below 2^40")
    if any(not 1 <= e <= 8 for e in f["estrides"]):
        raise TensorMapError(f"element_strides {tuple(f['estrides'])}: one traversal stride per "
                             f"dimension, each in 1..8")
    for i, n in enumerate(f["box"]):
        if not 1 <= n <= 256:
            raise TensorMapError(f"boxDim[{i}] = {n}: each box extent must be in 1..256")
    if esize is None:
        return                    # packed sub-byte types: their byte rules are not modelled
    inner = f["box"][0] * esize
    what = "channelsPerPixel" if f["mode"] == "im2col" else "boxDim[0]"
    if inter == "none" and inner % 16:
        raise TensorMapError(f"{what} * element size = {inner} bytes must be a multiple of 16 bytes")
    span = swizzle_spec.SPAN.get(f["swizzle"], 96)
    if inter == "none" and span and inner > span:
        raise TensorMapError(f"the box's inner extent ({inner} bytes) exceeds the {f['swizzle']} "
                             f"swizzle span")


# ------------------------------------------------------------------------------ encoding

def encode(f: dict) -> bytes:
    pad = lambda t, n, v=0: tuple(t) + (v,) * (n - len(t))  # noqa: E731
    return _FORMAT.pack(
        MAGIC, 1 if f["mode"] == "im2col" else 0, f["rank"], f["dtype"],
        map_spec.SWIZZLE_MODES.index(f["swizzle"]), INTERLEAVES[f["interleave"]],
        L2_PROMOTIONS[f["l2"]], OOB_FILLS[f["oob"]], f["flags"], f["channels"], f["pixels"],
        f["address"], *pad(f["dims"], 5, 1), *pad(f["strides"], 4), *pad(f["box"], 5, 1),
        *pad(f["estrides"], 5, 1), map_spec.SWIZZLE_ATOMICITIES.index(f["atomicity"]),
        *pad(f["lower"], 3), *pad(f["upper"], 3), f["host"])


def decode(raw: bytes) -> dict | None:
    """The fields of 128 bytes, or None if they are not a tensor map of this emulator."""
    if len(raw) != SIZE or raw[:4] != MAGIC:
        return None
    v = _FORMAT.unpack(raw)
    (_, mode, rank, dtype, swz, inter, l2, oob, flags, channels, pixels, address) = v[:12]
    dims, strides, box, es, atom = v[12:17], v[17:21], v[21:26], v[26:31], v[31]
    lower, upper, host = v[32:35], v[35:38], v[38]
    if (not 1 <= rank <= map_spec.MAX_RANK or dtype >= len(map_spec.ELEMTYPES)
            or swz >= len(map_spec.SWIZZLE_MODES) or inter >= len(map_spec.INTERLEAVE_LAYOUTS)
            or oob >= len(map_spec.FILL_MODES) or atom >= len(map_spec.SWIZZLE_ATOMICITIES)):
        return None
    return dict(mode="im2col" if mode else "tiled", rank=rank, dtype=dtype,
                esize=map_spec.ELEMTYPES[dtype].size, swizzle=map_spec.SWIZZLE_MODES[swz],
                atomicity=map_spec.SWIZZLE_ATOMICITIES[atom],
                interleave=map_spec.INTERLEAVE_LAYOUTS[inter], l2=_L2_NAMES.get(l2, "none"),
                oob=map_spec.FILL_MODES[oob], flags=flags, channels=channels, pixels=pixels,
                address=address, dims=dims[:rank], strides=strides[:rank - 1], box=box[:rank],
                estrides=es[:rank], lower=lower[:rank - 2], upper=upper[:rank - 2], host=host)


def host_pointer_of_bytes(raw: bytes) -> int | None:
    f = decode(raw)
    return None if f is None else f["host"]


# ------------------------------------------------------------------------------ geometry

def traversal_strides(f: dict) -> tuple:
    """The element strides a tiled box walks with: cuTensorMapEncodeTiled ignores the first one
    unless the layout is interleaved (the TMA unit has no stride in dimension 0 otherwise)."""
    es = tuple(f["estrides"])
    return es if f["interleave"] != "none" else (1,) + es[1:]


def tile_elements(f: dict, coords) -> tuple[np.ndarray, np.ndarray]:
    """(element indices per dimension as an (n, rank) array in shared-memory order, in-bounds
    mask) of a tiled box at `coords` (innermost first): ceil(box / stride) elements per
    dimension, `stride` apart."""
    idx = _box_steps(tuple(f["box"]), traversal_strides(f)) + np.asarray(coords, np.int64)
    dims = np.array(f["dims"], np.int64)
    ok = ((idx >= 0) & (idx < dims)).all(axis=1)
    return idx, ok


def four_row_elements(f: dict, coords) -> tuple[np.ndarray, np.ndarray]:
    """(element indices, in-bounds mask) of the sm_100 `.tile::gather4` / `.tile::scatter4`
    modes on a 2-D map: coordinates {column, row0, row1, row2, row3}; each row contributes the
    box's dimension-0 extent (ceil(box / traversal stride) elements) from the column on, the four
    rows one after another in shared memory."""
    cols = int(coords[0]) + _box_steps((f["box"][0],), traversal_strides(f)[:1])[:, 0]
    rows = np.repeat(np.asarray(coords[1:5], np.int64), len(cols))
    idx = np.stack([np.tile(cols, 4), rows], axis=1)
    dims = np.array(f["dims"], np.int64)
    return idx, ((idx >= 0) & (idx < dims)).all(axis=1)


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
    return _swizzled_run((f["swizzle"], f["atomicity"]), low, n_elements * f["esize"]) + (base - low)


@functools.lru_cache(maxsize=256)
def _swizzled_run(mode: tuple, low: int, nbytes: int) -> np.ndarray:
    out = swizzle_spec.swizzle(low + np.arange(nbytes, dtype=np.int64), *mode)
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
