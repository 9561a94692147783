"""Matrix storage (PTX ISA "Matrix Storage for WMMA"): strides, alignment, byte ⇄ element codecs.

A stored matrix is a sequence of *lines* — rows for ``.row``, columns for ``.col`` — each line
contiguous, line i starting ``i · stride`` elements after ``p``. Sub-byte elements are packed
low-first inside each byte (element 0 in the least significant nibble/bit); the WMMA sections do
not state this order, it is the PTX convention for packed data elsewhere (UNCONFIRMED).
"""
from __future__ import annotations

import numpy as np

from ptxld.spec.wmma import FragmentSpec
from ptxld.wmma.errors import WmmaError


def line_shape(fs: FragmentSpec, layout: str) -> tuple[int, int]:
    """(number of lines, elements per line) of the stored matrix."""
    rows, cols = fs.dims
    return (rows, cols) if layout == "row" else (cols, rows)


def line_bytes(fs: FragmentSpec, layout: str) -> int:
    return line_shape(fs, layout)[1] * fs.element_bits // 8


def resolve_stride(fs: FragmentSpec, layout: str, stride: int | None) -> int:
    """The stride in elements: the default when omitted; ``WmmaError`` when below the default
    (undefined behaviour per the PTX ISA) or when it breaks the alignment rule."""
    default = fs.default_stride(layout)
    if stride is None:
        return default
    stride = int(stride)
    what = f".{fs.matrix} .{layout} .{fs.shape} .{fs.type}"
    if stride < default:
        raise WmmaError(f"stride {stride} is below the default {default} for {what} "
                        f"(behaviour undefined)")
    if not fs.stride_ok(stride, layout):
        need = fs.stride_alignment(layout)
        raise WmmaError(f"stride {stride} elements ({stride * fs.element_bits / 8:g} bytes) is not "
                        f"a multiple of {need} bytes, required for {what}")
    return stride


def check_address(fs: FragmentSpec, base_addr: int) -> None:
    align = fs.address_alignment
    if int(base_addr) % align:
        raise WmmaError(f"address {int(base_addr):#x} is not {align}-byte aligned, required for "
                        f".{fs.matrix} .{fs.shape} .{fs.type} (fragment size {align} bytes)")


def line_addresses(fs: FragmentSpec, layout: str, base_addr: int, stride: int) -> np.ndarray:
    nlines, _ = line_shape(fs, layout)
    return int(base_addr) + np.arange(nlines, dtype=np.int64) * (stride * fs.element_bits // 8)


_UINT = {8: np.dtype("<u1"), 16: np.dtype("<u2"), 32: np.dtype("<u4"), 64: np.dtype("<u8")}


def decode_lines(raw: np.ndarray, bits: int, line_len: int) -> np.ndarray:
    """(lines, bytes) uint8 → (lines, line_len) raw element bit patterns (uint64)."""
    raw = np.ascontiguousarray(raw, dtype=np.uint8)
    if bits >= 8:
        values = raw.view(_UINT[bits])
    elif bits == 4:
        values = np.stack([raw & 0xF, raw >> 4], axis=-1).reshape(raw.shape[0], -1)
    else:
        values = np.unpackbits(raw, axis=1, bitorder="little")
    return values[:, :line_len].astype(np.uint64)


def encode_lines(values: np.ndarray, bits: int) -> np.ndarray:
    """Inverse of ``decode_lines``: (lines, line_len) bit patterns → (lines, bytes) uint8."""
    values = np.asarray(values, dtype=np.uint64)
    if bits >= 8:
        return np.ascontiguousarray(values.astype(_UINT[bits])).view(np.uint8)
    if bits == 4:
        pairs = values.astype(np.uint8).reshape(values.shape[0], -1, 2)
        return pairs[..., 0] | (pairs[..., 1] << 4)
    return np.packbits(values.astype(np.uint8), axis=1, bitorder="little")
