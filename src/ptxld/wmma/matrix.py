"""Named layout objects for the mma.sync, ldmatrix/stmatrix/movmatrix and wgmma fragments.

The facts are the data of :mod:`ptxld.spec.mma` (subtile origins per register, orientation,
quadpair rules for m8n8k4 .f16); this module only turns them into index arrays, the same
interface as the wmma layouts: ``rows[thread, reg, slot]`` / ``cols[...]`` give the matrix
element a (lane, register, slot) holds, ``gather`` builds register values from a matrix and
``scatter`` the matrix from register values. Unlike the wmma fragments (whose lane mapping the
PTX ISA leaves to the architecture), every mapping here is the one the PTX ISA specifies.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from ptxld.spec import mma as spec
from ptxld.wmma.element_arrays import ElementArrays


class MatrixLayout(ElementArrays):
    """One fragment: ``name``, the ``spec.Fragment`` it comes from, and (threads, nregs,
    slots) arrays ``rows``/``cols`` (for a quadpair fragment also ``group``: which of the four
    products of the warp the element belongs to)."""

    def __init__(self, name: str, frag: spec.Fragment, rows, cols, group=None):
        self.name, self.frag = name, frag
        self.rows, self.cols = rows, cols
        self.group = group
        for a in (rows, cols) + ((group,) if group is not None else ()):
            a.setflags(write=False)

    @property
    def dims(self) -> tuple[int, int]:
        return self.frag.rows, self.frag.cols

    def gather(self, matrix: np.ndarray) -> np.ndarray:
        """Values (..., threads, nregs, slots) taken from a (..., rows, cols) matrix — or, for a
        quadpair fragment, from a (..., 4, rows, cols) stack of the four products' matrices.
        Leading dimensions (one matrix per warp) are kept."""
        if self.group is not None:
            return matrix[..., self.group, self.rows, self.cols]
        return matrix[..., self.rows, self.cols]

    def scatter(self, values: np.ndarray) -> np.ndarray:
        """The matrix (..., rows, cols) — or the (..., 4, rows, cols) stack — the values
        (..., threads, nregs, slots) hold. Every element is held exactly once."""
        lead = values.shape[:-3]
        if self.group is not None:
            out = np.zeros(lead + (4,) + self.dims, values.dtype)
            out[..., self.group, self.rows, self.cols] = values
            return out
        out = np.zeros(lead + self.dims, values.dtype)
        out[..., self.rows, self.cols] = values
        return out

    def owner(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(thread, reg, slot) arrays of shape dims: who holds each element (product 0 for a
        quadpair fragment)."""
        lane, reg, slot = np.indices(self.rows.shape)
        sel = slice(None) if self.group is None else self.group == 0
        out = [np.zeros(self.dims, np.int64) for _ in range(3)]
        for arr, src in zip(out, (lane, reg, slot)):
            arr[self.rows[sel], self.cols[sel]] = src[sel]
        return tuple(out)

    def __repr__(self) -> str:
        return f"MatrixLayout({self.name!r})"


# ---------------------------------------------------------------- builders

def _subtile(frag: spec.Fragment):
    threads = frag.threads
    lane = np.arange(threads).reshape(-1, 1, 1)
    g, t = (lane & 31) >> 2, lane & 3
    slot = np.arange(frag.per_register).reshape(1, 1, -1)
    r0 = np.array([o[0] for o in frag.origins]).reshape(1, -1, 1)
    c0 = np.array([o[1] for o in frag.origins]).reshape(1, -1, 1)
    if frag.slot_origins:
        size = frag.per_register // len(frag.slot_origins)
        group = slot // size
        r0 = r0 + np.array([o[0] for o in frag.slot_origins])[group]
        c0 = c0 + np.array([o[1] for o in frag.slot_origins])[group]
        slot = slot % size
    along = frag.step * t + slot
    if frag.orient == "row":
        rows, cols = r0 + g, c0 + along
    else:
        rows, cols = r0 + along, c0 + g
    if frag.warp_rows:
        rows = rows + frag.warp_rows * (lane >> 5)
    shape = (threads, frag.nregs, frag.per_register)
    return (np.broadcast_to(rows, shape).astype(np.int16),
            np.broadcast_to(cols, shape).astype(np.int16), None)


def _quadpair(frag: spec.Fragment):
    """spec.QUADPAIR_RULES, as formulas."""
    key = tuple(frag.rule.split(":")[1].split("/"))
    lane = np.arange(32).reshape(-1, 1, 1)
    reg = np.arange(frag.nregs).reshape(1, -1, 1)
    slot = np.arange(frag.per_register).reshape(1, 1, -1)
    x = reg * frag.per_register + slot
    i, h = lane & 3, (lane >> 4) & 1
    rows, cols = {
        ("a", "row"): (i + 4 * h, x), ("a", "col"): (x + 4 * h, i),
        ("b", "row"): (i, x + 4 * h), ("b", "col"): (x, i + 4 * h),
        ("c", "f16"): (i + 4 * h, x),
        ("c", "f32"): ((lane & 1) + (x & 2) + 4 * h, (x & 4) + (lane & 2) + (x & 1)),
    }[key]
    shape = (32, frag.nregs, frag.per_register)
    group = np.broadcast_to((lane >> 2) & 3, shape).astype(np.int16)
    return (np.broadcast_to(rows, shape).astype(np.int16),
            np.broadcast_to(cols, shape).astype(np.int16), group)


def layout_of(name: str, frag: spec.Fragment) -> MatrixLayout:
    build = _quadpair if frag.rule.startswith("quadpair") else _subtile
    rows, cols, group = build(frag)
    lay = MatrixLayout(name, frag, rows, cols, group)
    _validate(lay)
    return lay


def _validate(lay: MatrixLayout) -> None:
    """Every element held exactly once (per product for quadpair fragments)."""
    r, c = lay.dims
    flat = lay.rows.astype(np.int64) * c + lay.cols
    if lay.group is not None:
        flat = flat + lay.group.astype(np.int64) * (r * c)
        total = 4 * r * c
    else:
        total = r * c
    counts = np.bincount(flat.ravel(), minlength=total)
    if counts.shape[0] != total or not (counts == 1).all():
        raise RuntimeError(f"layout {lay.name} does not hold every element exactly once")


@lru_cache(maxsize=None)
def mma_layouts(shape: str, atype: str, btype: str, ctype: str, dtype: str,
                alayout: str = "row", blayout: str = "col") -> dict[str, MatrixLayout]:
    """{"a","b","c","d"} layouts of an mma.sync form (KeyError if the ISA has no such form)."""
    frags = spec.mma_fragments(shape, atype, btype, ctype, dtype, alayout, blayout)
    types = {"a": atype, "b": btype, "c": ctype, "d": dtype}
    return {m: layout_of(f"mma.{shape} .{m} .{types[m]}", f) for m, f in frags.items()}


@lru_cache(maxsize=None)
def ldmatrix_layout(count: int, trans: bool) -> MatrixLayout:
    """ldmatrix/stmatrix .m8n8 .x{count} [.trans] .b16 (movmatrix is count 1)."""
    frag = spec.matrix_8x8(count, trans)
    return layout_of(frag.what, frag)


@lru_cache(maxsize=None)
def matrix_form_layout(name: str, shape: str, count: int, trans: bool, type_: str,
                       src_fmt: str | None = None) -> tuple[spec.MatrixForm, MatrixLayout]:
    """(form, layout) of any ldmatrix/stmatrix form (`spec.matrix_form`; KeyError if the PTX
    ISA has no such form). The layout's rows are the row addresses in lane order."""
    form = spec.matrix_form(name, shape, count, trans, type_, src_fmt)
    return form, layout_of(form.frag.what, form.frag)


@lru_cache(maxsize=None)
def wgmma_layouts(n: int, atype: str, dtype: str) -> dict[str, MatrixLayout]:
    """{"a","d"} register fragments of wgmma.mma_async .m64n{n}k* (128 threads)."""
    k = spec.WGMMA_K[atype]
    return {m: layout_of(f"wgmma.m64n{n}k{k} .{m} .{atype if m == 'a' else dtype}", f)
            for m, f in spec.wgmma_fragments(n, atype, dtype).items()}


class MetadataLayout:
    """Where the sparsity metadata of a sparse A lives: for each (row, chunk) of A, the thread
    (``thread``, 0..127 in the warpgroup) whose metadata register holds its 4-bit field and
    which field (``nibble``: bits 4·nibble .. 4·nibble+3). `form` is the spec.WgmmaSparse. The
    pictures draw it like a fragment: one register (the metadata operand) of 8 slots."""
    group = None
    nregs, slots, threads = 1, 8, 128

    def __init__(self, name: str, form: spec.WgmmaSparse, selector: int, thread, nibble):
        self.name, self.form, self.selector = name, form, selector
        self.thread, self.nibble = thread, nibble
        for a in (thread, nibble):
            a.setflags(write=False)

    @property
    def dims(self) -> tuple[int, int]:
        return self.thread.shape

    def field(self, row: int, chunk: int) -> tuple[int, int]:
        """(thread, nibble) of one chunk of one row."""
        return int(self.thread[row, chunk]), int(self.nibble[row, chunk])

    def owner(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(thread, register 0, nibble) per (row, chunk), as `MatrixLayout.owner`."""
        return self.thread, np.zeros_like(self.thread), self.nibble

    def __repr__(self) -> str:
        return f"MetadataLayout({self.name!r})"


@lru_cache(maxsize=None)
def wgmma_sparse_metadata_layout(atype: str, selector: int) -> MetadataLayout:
    """The metadata of wgmma.mma_async.sp with A of `atype` and a sparsity selector (KeyError /
    ValueError: no such form)."""
    form = spec.WGMMA_SPARSE[atype]
    if selector not in form.selectors:
        raise ValueError(f"wgmma.mma_async.sp .{atype} takes sparsity selector "
                         f"{' or '.join(map(str, form.selectors))}, not {selector}")
    row = np.arange(64)[:, None]
    chunk = np.arange(form.chunks)[None, :]
    quad_thread, nibble = spec.wgmma_sparse_metadata_position(form, selector, row, chunk)
    thread = 32 * (row // 16) + 4 * (row % 8) + quad_thread
    shape = (64, form.chunks)
    return MetadataLayout(f"wgmma.m64nNk{form.k} .sp .{atype} metadata, selector {selector}", form,
                          selector, np.broadcast_to(thread, shape).astype(np.int16),
                          np.broadcast_to(nibble, shape).astype(np.int16))


@lru_cache(maxsize=None)
def wgmma_sparse_layouts(n: int, atype: str, dtype: str) -> dict[str, MatrixLayout]:
    """{"a","d"} register fragments of wgmma.mma_async.sp .m64n{n}k{2K}: "a" holds the
    compressed 64 × K matrix (the dense fragment of K), "d" the accumulator."""
    k = spec.WGMMA_SPARSE[atype].k
    frags = spec.wgmma_sparse_fragments(n, atype, dtype)
    return {m: layout_of(f"wgmma.m64n{n}k{k} .sp .{m} .{atype + ' (compressed)' if m == 'a' else dtype}", f)
            for m, f in frags.items()}


# ---------------------------------------------------------------- register bits <-> elements

def unpack(regs: np.ndarray, frag: spec.Fragment) -> np.ndarray:
    """(threads, nregs) register bits -> (threads, nregs, slots) element bits (uint64)."""
    w = frag.element_bits
    shifts = np.arange(frag.per_register, dtype=np.uint64) * np.uint64(w)
    mask = np.uint64((1 << w) - 1)
    return (np.asarray(regs).astype(np.uint64)[..., None] >> shifts) & mask


def pack(values: np.ndarray, frag: spec.Fragment) -> np.ndarray:
    """(threads, nregs, slots) element bits -> (threads, nregs) register bits."""
    w = frag.element_bits
    dt = np.uint64 if frag.reg_bits == 64 else np.uint32
    mask = dt((1 << w) - 1) if w < frag.reg_bits else None
    regs = values[..., 0].astype(dt)
    if mask is not None:
        regs &= mask
    for slot in range(1, frag.per_register):      # a loop over slots beats a reduction here
        regs |= (values[..., slot].astype(dt) & mask) << dt(slot * w)
    return regs
