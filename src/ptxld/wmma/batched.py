"""wmma.load / wmma.store / wmma.mma for many warps at once (same results as ``ops``).

``ops`` works on one warp (fragment registers of shape (32, nregs)); an emulator running
thousands of warps through it pays its Python overhead per warp. These functions take a leading
warp axis — registers (nwarps, 32, nregs), one base address per warp — and do each step once
for all warps with the same layout tables and element codecs as ``ops``.

They return None where a warp breaks a rule ``ops`` reports (lanes disagreeing on p or stride,
a misaligned address or stride, replicated fragment copies that differ, f64 fragments whose
rounding ``ops`` works out per element): the caller then runs ``ops`` warp by warp, which
raises the same ``WmmaError`` it always did.
"""
from __future__ import annotations

import sys
from typing import Callable

import numpy as np

from ptxld.wmma import ops, storage, values
from ptxld.wmma.errors import WmmaError
from ptxld.wmma.layouts import fragment_layout
from ptxld.wmma.params import WmmaMmaParams, coerce

ReadFn = Callable[[np.ndarray, int], np.ndarray]
WriteFn = Callable[[np.ndarray, np.ndarray], None]


def uniform(per_lane: np.ndarray) -> np.ndarray | None:
    """One value per warp from per-lane values (nwarps * 32,), or None if a warp's lanes differ."""
    w = np.asarray(per_lane).reshape(-1, 32)
    return w[:, 0] if (w == w[:, :1]).all() else None


def _stride(fs, layout: str, strides) -> int | None:
    """The one stride (elements) all warps use, checked as ``ops`` does; None otherwise."""
    if strides is None:
        return storage.resolve_stride(fs, layout, None)
    s = np.unique(strides)
    if len(s) != 1:
        return None
    try:
        return storage.resolve_stride(fs, layout, int(s[0]))
    except WmmaError:
        return None


def _addresses(fs, layout: str, bases: np.ndarray, stride: int) -> np.ndarray | None:
    """(nwarps, nlines) line start addresses, or None if a base address is misaligned."""
    bases = bases.astype(np.int64)
    if (bases % fs.address_alignment).any():
        return None
    nlines, _ = storage.line_shape(fs, layout)
    step = stride * fs.element_bits // 8
    return bases[:, None] + np.arange(nlines, dtype=np.int64)[None, :] * step


def _gather(layout, matrix: np.ndarray) -> np.ndarray:
    """Fragment values (nwarps, 32, nregs, slots) taken from matrices (nwarps, rows, cols)."""
    nw = matrix.shape[0]
    flat = np.take(matrix.reshape(nw, -1), layout.flat.reshape(-1), axis=1)
    return flat.reshape((nw,) + layout.rows.shape)


def _scatter(layout, vals: np.ndarray) -> np.ndarray | None:
    """(nwarps, rows, cols) matrices held by fragment values (nwarps, 32, nregs, slots); None
    if replicated copies disagree in some warp."""
    lane, reg, slot = layout.owner
    nw = vals.shape[0]
    owner = ((lane * vals.shape[2] + reg) * vals.shape[3] + slot).reshape(-1)
    matrix = np.take(vals.reshape(nw, -1), owner, axis=1).reshape((nw,) + lane.shape)
    if layout.replication > 1 and (vals != _gather(layout, matrix)).any():
        return None
    return matrix


def _register_bits(regs: np.ndarray, fs) -> np.ndarray:
    a = np.asarray(regs)
    if a.dtype.kind in "fi":
        a = a.view(np.dtype(f"u{a.dtype.itemsize}"))
    return a.astype(np.uint64) & np.uint64((1 << fs.register_bits) - 1)


_WIDE = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}


def _unpack(regs: np.ndarray, fs) -> np.ndarray:
    """values.unpack for whole-byte elements: the registers' bytes viewed as elements (slot 0
    is the low-order part: little-endian memory order), no shifts."""
    w = fs.element_bits
    if sys.byteorder != "little" or w not in _WIDE:
        return values.unpack(regs, fs)
    r = np.ascontiguousarray(regs.astype(_WIDE[fs.register_bits], copy=False))
    return r.view(_WIDE[w]).reshape(r.shape + (fs.elements_per_register,)).astype(np.uint64)


def _pack(vals: np.ndarray, fs) -> np.ndarray:
    """values.pack for whole-byte elements (see ``_unpack``)."""
    w = fs.element_bits
    if sys.byteorder != "little" or w not in _WIDE:
        return values.pack(vals, fs)
    e = np.ascontiguousarray(vals.astype(_WIDE[w]))
    return e.view(values.register_dtype(fs)).reshape(vals.shape[:-1])


def load(params, read: ReadFn, bases: np.ndarray, strides, target) -> np.ndarray | None:
    """wmma.load for every warp: (nwarps, 32, nregs) registers, or None (see module doc)."""
    p = ops._mem_params(params, "load")
    fs = p.fragment
    layout = fragment_layout(target, p.shape, p.matrix, p.type, p.layout)
    stride = _stride(fs, p.layout, strides)
    addrs = None if stride is None else _addresses(fs, p.layout, bases, stride)
    if addrs is None:
        return None
    nw, nlines = addrs.shape
    _, line_len = storage.line_shape(fs, p.layout)
    raw = np.asarray(read(addrs.reshape(-1), storage.line_bytes(fs, p.layout)))
    lines = storage.decode_lines(raw, fs.element_bits, line_len).reshape(nw, nlines, line_len)
    matrix = lines if p.layout == "row" else lines.transpose(0, 2, 1)
    return _pack(_gather(layout, matrix), fs)


def store(params, write: WriteFn, bases: np.ndarray, strides, regs: np.ndarray,
          target) -> bool:
    """wmma.store.d for every warp; False (nothing written) where ``ops`` must decide."""
    p = ops._mem_params(params, "store")
    fs = p.fragment
    layout = fragment_layout(target, p.shape, p.matrix, p.type, p.layout)
    stride = _stride(fs, p.layout, strides)
    addrs = None if stride is None else _addresses(fs, p.layout, bases, stride)
    if addrs is None:
        return False
    matrix = _scatter(layout, _unpack(_register_bits(regs, fs), fs))
    if matrix is None:
        return False
    lines = matrix if p.layout == "row" else matrix.transpose(0, 2, 1)
    lines = np.ascontiguousarray(lines).reshape(-1, lines.shape[2])
    write(addrs.reshape(-1), storage.encode_lines(lines, fs.element_bits))
    return True


def mma(params, a_regs, b_regs, c_regs, target="sm_80") -> np.ndarray | None:
    """wmma.mma for every warp: D registers (nwarps, 32, nregs), or None (see module doc)."""
    p = coerce(params, "mma")
    if not isinstance(p, WmmaMmaParams) or p.atype == "f64" or p.op == "xor.popc":
        return None
    la = fragment_layout(target, p.shape, "a", p.atype, p.alayout)
    lb = fragment_layout(target, p.shape, "b", p.btype, p.blayout)
    lc = fragment_layout(target, p.shape, "c", p.ctype, "row")
    ld = fragment_layout(target, p.shape, "d", p.dtype, "row")
    mats = []
    for lay, regs in ((la, a_regs), (lb, b_regs), (lc, c_regs)):
        m = _scatter(lay, _unpack(_register_bits(regs, lay.spec), lay.spec))
        if m is None:
            return None
        mats.append(np.ascontiguousarray(m))
    a, b, c = mats
    if p.atype in ("f16", "bf16", "tf32"):
        d = ops._float_mma(p, a, b, c)
    else:
        d = ops._int_mma(p, a, b, c)
    return _pack(_gather(ld, d), ld.spec)
