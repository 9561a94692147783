"""Sparse A of `wgmma.mma_async.sp`: the metadata operand, the sparsity selector, and the
expansion of the compressed 64 × K/2 A into the dense 64 × K one (facts: spec.mma.WGMMA_SPARSE;
map: wmma.matrix.wgmma_sparse_metadata_layout)."""
from __future__ import annotations

import numpy as np

from ..ptx.nodes import Int
from ..spec import mma as mma_spec
from ..wmma import matrix as matrix_layouts
from . import errors
from .handlers import CompileError


def immediate(node, what: str) -> int:
    if not isinstance(node, Int):
        raise CompileError(f"wgmma.mma_async: {what} must be an immediate")
    return int(node.value)


class SparseA:
    """Sparse A (`wgmma.mma_async.sp`): the metadata operand and the sparsity selector, and how
    the compressed 64 × K/2 A becomes the dense 64 × K one (spec.WGMMA_SPARSE)."""

    def __init__(self, op, prog, form: mma_spec.WgmmaSparse, meta_node, selector_node):
        ins = op.ins
        self.op, self.form = op, form
        self.selector = immediate(selector_node, "the sparsity selector")
        if self.selector not in form.selectors:
            raise CompileError(f"wgmma.mma_async.sp .{form.atype}: sparsity selector {self.selector} "
                               f"is not one of {', '.join(map(str, form.selectors))}")
        self.meta = prog.source(meta_node, ".b32", ins)
        lay = matrix_layouts.wgmma_sparse_metadata_layout(form.atype, self.selector)
        # per warp: its 16 rows are rows 0..15 of the warpgroup's layout shifted by 16w lanes
        self.lane = lay.thread[:16].astype(np.int64)             # (16, chunks): lane in the warp
        self.shift = (4 * lay.nibble[:16]).astype(np.uint64)

    def expand(self, b, act, t, wig, comp: np.ndarray) -> np.ndarray:
        """Dense A rows (warps, 16, K) from the compressed rows (warps, 16, K/2) of each warp."""
        f = self.form
        nw = comp.shape[0]
        meta = self.meta(b, act).astype(np.uint64).reshape(nw, 32)
        nib = (meta[:, self.lane] >> self.shift) & np.uint64(0xF)      # (warps, 16, chunks)
        lo, hi = (nib & np.uint64(3)).astype(np.int64), (nib >> np.uint64(2)).astype(np.int64)
        bad = (lo % 2 != 0) | (hi != lo + 1) if f.half_indices else lo == hi
        if bad.any():
            w, r, c = (int(x) for x in np.argwhere(bad)[0])
            lane = int(self.lane[r, c])
            want = ("0b0100 or 0b1110 (the element of its pair)" if f.half_indices
                    else "two different indices")
            raise b.error(errors.WarpSyncError, self.op, int(t[32 * w + lane]),
                          f"wgmma.mma_async.sp metadata of lane {lane} gives row {16 * int(wig[w]) + r} "
                          f"chunk {c} (K {f.chunk * c}-{f.chunk * c + f.chunk - 1}) the field "
                          f"{int(nib[w, r, c]):#06b} (metadata {int(meta[w, lane]):#010x})",
                          f"{want} per chunk (the PTX ISA leaves the result undefined)")
        dense = np.zeros(comp.shape[:2] + (f.k,), comp.dtype)
        w_ix = np.arange(nw)[:, None, None]
        r_ix = np.arange(16)[None, :, None]
        base = f.chunk * np.arange(f.chunks)[None, None, :]
        if f.half_indices:
            dense[w_ix, r_ix, base + lo // 2] = comp
        else:
            dense[w_ix, r_ix, base + lo] = comp[:, :, 0::2]
            dense[w_ix, r_ix, base + hi] = comp[:, :, 1::2]
        return dense
