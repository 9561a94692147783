"""Warp- and warpgroup-level matrix fragments as data: `mma.sync`, `ldmatrix`, `stmatrix`,
`movmatrix` and the `wgmma.mma_async` register fragments (PTX ISA "Warp-level matrix multiply-
accumulate instructions" and "Asynchronous warpgroup level matrix multiply-accumulate").

Every one of these fragments except `mma.m8n8k4` with `.f16` is built from 8-row subtiles: a
register of lane L (g = L >> 2, t = L & 3) holds, in its slot s (the element in bits
[s·w, (s+1)·w) of the register), the element of the subtile at

    orientation "row":  (origin_row + g,             origin_col + step·t + s)
    orientation "col":  (origin_row + step·t + s,    origin_col + g)

where each register names the origin of its subtile (and, where the slots of one register
lie in two subtiles — stmatrix `.m16n8 .b8` — `slot_origins` offsets each group of slots). A `Fragment` is exactly that: the matrix
size, the element type, the orientation and step, and one origin per register, in register
order. (`step` is the number of elements a lane holds in one subtile line: 32/w for A and B,
2 for accumulators, which spread a pair of 32-bit values over two registers.) For a warpgroup
(`wgmma`), warp w of the group holds rows 16·w onwards; `warp_rows` says so.

`mma.m8n8k4` with `.f16` is executed per quadpair (lanes 4q..4q+3 and 4q+16..4q+19 compute one
8×8×4 product each); its fragments name the rule `quadpair` and are described in
`QUADPAIR_RULES` (builders in `ptxld.wmma.matrix`).

Nothing else in ptxld repeats these facts: `ptxld.wmma.matrix` turns them into (lane, register,
slot) → (row, col) arrays for the emulator and the pictures.
"""
from __future__ import annotations

from .swizzle import DESCRIPTOR_CODE, SPAN as SWIZZLE_SPAN, swizzle

# element width in bits of each operand type
ELEMENT_BITS = {"f16": 16, "bf16": 16, "tf32": 32, "f32": 32, "f64": 64, "s32": 32,
                "s8": 8, "u8": 8, "s4": 4, "u4": 4, "b1": 1, "e4m3": 8, "e5m2": 8, "b16": 16,
                "b8": 8}


class Fragment:
    """The registers of one operand of one instruction (see the module docstring)."""
    __slots__ = ("rows", "cols", "type", "orient", "step", "origins", "reg_bits", "warp_rows",
                 "rule", "what", "slot_origins")

    def __init__(self, rows: int, cols: int, type: str, orient: str, step: int,
                 origins: tuple, *, reg_bits: int = 32, warp_rows: int = 0,
                 rule: str = "subtile", what: str = "", slot_origins: tuple = ()):
        self.rows, self.cols, self.type = rows, cols, type
        self.orient, self.step, self.origins = orient, step, tuple(origins)
        self.reg_bits, self.warp_rows, self.rule, self.what = reg_bits, warp_rows, rule, what
        # split the slots of a register into len(slot_origins) equal groups, group q offset by
        # slot_origins[q] and counting its slots from 0 (stmatrix .m16n8: bytes 0-1 and 2-3
        # of a register lie in different subtiles)
        self.slot_origins = tuple(slot_origins)

    @property
    def element_bits(self) -> int:
        return ELEMENT_BITS[self.type]

    @property
    def per_register(self) -> int:
        return self.reg_bits // self.element_bits

    @property
    def nregs(self) -> int:
        return len(self.origins)

    @property
    def threads(self) -> int:
        return 128 if self.warp_rows else 32

    def __repr__(self) -> str:
        return f"Fragment({self.what!r}, {self.rows}x{self.cols} .{self.type}, {self.nregs} regs)"


def _reg_bits(type_: str) -> int:
    return 64 if type_ == "f64" else 32


def operand_a(m: int, k: int, type_: str, *, warp_rows: int = 0) -> Fragment:
    """A (m×k, row-oriented): subtiles of 8 rows × 4·e columns (e elements per register),
    visited down the rows first."""
    rb = _reg_bits(type_)
    e = rb // ELEMENT_BITS[type_]
    width = 4 * e
    rows = warp_rows or m
    row_tiles, col_tiles = rows // 8, k // width
    origins = tuple((8 * (i % row_tiles), width * (i // row_tiles))
                    for i in range(row_tiles * col_tiles))
    return Fragment(m, k, type_, "row", e, origins, reg_bits=rb, warp_rows=warp_rows,
                    what=f"A {m}x{k} .{type_}")


def operand_b(k: int, n: int, type_: str) -> Fragment:
    """B (k×n, column-oriented): subtiles of 4·e k-values × 8 columns, down k first."""
    rb = _reg_bits(type_)
    e = rb // ELEMENT_BITS[type_]
    width = 4 * e
    k_tiles, n_tiles = k // width, n // 8
    origins = tuple((width * (i % k_tiles), 8 * (i // k_tiles)) for i in range(k_tiles * n_tiles))
    return Fragment(k, n, type_, "col", e, origins, reg_bits=rb, what=f"B {k}x{n} .{type_}")


def accumulator(m: int, n: int, type_: str, *, warp_rows: int = 0) -> Fragment:
    """C/D (m×n): 8×8 subtiles, a lane holding (g, 2t) and (g, 2t+1) of each, down the rows
    first; a 16-bit type packs the pair in one register, a 32/64-bit type uses two."""
    rb = _reg_bits(type_)
    e = rb // ELEMENT_BITS[type_]
    rows = warp_rows or m
    row_tiles = rows // 8
    origins = []
    for r in range(accumulator_registers(m, n, type_, warp_rows=warp_rows)):
        first = r * e                                  # the register's first element index x
        tile, pair = first >> 1, first & 1
        origins.append((8 * (tile % row_tiles), 8 * (tile // row_tiles) + pair))
    return Fragment(m, n, type_, "row", 2, origins, reg_bits=rb, warp_rows=warp_rows,
                    what=f"C/D {m}x{n} .{type_}")


def accumulator_registers(m: int, n: int, type_: str, *, warp_rows: int = 0) -> int:
    """How many registers a thread holds of `accumulator(m, n, type_)`: its share of the
    elements (a warp's 32 lanes split them evenly), packed per register. The instruction records
    read this alone (a wgmma record has hundreds of shapes; building each layout is slower)."""
    e = _reg_bits(type_) // ELEMENT_BITS[type_]
    return -(-((warp_rows or m) * n // 32) // e)


# ---------------------------------------------------------------- mma.sync shapes and types

class MmaKind:
    """One family of `mma.sync` forms: a shape, the A/B types it takes, the C/D types, the
    minimum target and PTX ISA version (measured with ptxas 13.0 where the ISA is terse)."""
    __slots__ = ("shape", "ab", "cd", "min_sm", "min_ptx", "note")

    def __init__(self, shape, ab, cd, min_sm, min_ptx, note=""):
        self.shape, self.ab, self.cd = shape, tuple(ab), tuple(cd)
        self.min_sm, self.min_ptx, self.note = min_sm, min_ptx, note

    @property
    def mnk(self) -> tuple[int, int, int]:
        return shape_mnk(self.shape)


_F16 = ("f16",)
_INT8, _INT4, _FP8 = ("s8", "u8"), ("s4", "u4"), ("e4m3", "e5m2")

MMA_KINDS = (
    MmaKind("m8n8k4", _F16, ("f16", "f32"), 70, (6, 4), "computed per quadpair (4 products)"),
    MmaKind("m8n8k4", ("f64",), ("f64",), 80, (7, 0)),
    MmaKind("m16n8k8", _F16, ("f16", "f32"), 75, (6, 5)),
    MmaKind("m16n8k16", _F16, ("f16", "f32"), 80, (7, 0)),
    MmaKind("m16n8k8", ("bf16",), ("f32",), 80, (7, 0)),
    MmaKind("m16n8k16", ("bf16",), ("f32",), 80, (7, 0)),
    MmaKind("m16n8k4", ("tf32",), ("f32",), 80, (7, 0)),
    MmaKind("m16n8k8", ("tf32",), ("f32",), 80, (7, 0)),
    MmaKind("m8n8k16", _INT8, ("s32",), 75, (6, 5)),
    MmaKind("m16n8k16", _INT8, ("s32",), 80, (7, 0)),
    MmaKind("m16n8k32", _INT8, ("s32",), 80, (7, 0)),
    MmaKind("m8n8k32", _INT4, ("s32",), 75, (6, 5)),
    MmaKind("m16n8k32", _INT4, ("s32",), 80, (7, 0)),
    MmaKind("m16n8k64", _INT4, ("s32",), 80, (7, 0)),
    MmaKind("m8n8k128", ("b1",), ("s32",), 75, (7, 0), "ptxas 13.0 wants PTX ISA 7.0"),
    MmaKind("m16n8k128", ("b1",), ("s32",), 80, (7, 0)),
    MmaKind("m16n8k256", ("b1",), ("s32",), 80, (7, 0)),
    MmaKind("m16n8k16", _FP8, ("f16", "f32"), 89, (8, 7)),
    MmaKind("m16n8k32", _FP8, ("f16", "f32"), 89, (8, 4)),
    MmaKind("m16n8k4", ("f64",), ("f64",), 90, (7, 8)),
    MmaKind("m16n8k8", ("f64",), ("f64",), 90, (7, 8)),
    MmaKind("m16n8k16", ("f64",), ("f64",), 90, (7, 8)),
)


def shape_mnk(shape: str) -> tuple[int, int, int]:
    """`"m16n8k16"` -> (16, 8, 16)."""
    m, rest = shape[1:].split("n")
    n, k = rest.split("k")
    return int(m), int(n), int(k)


def mma_kind(shape: str, atype: str, btype: str, ctype: str, dtype: str) -> MmaKind | None:
    """The family an `mma.sync` form belongs to, or None when the ISA has no such form. A and B
    must be of one family (s8 with u8, s4 with u4, e4m3 with e5m2 mix; nothing else does)."""
    for kind in MMA_KINDS:
        if kind.shape == shape and atype in kind.ab and btype in kind.ab \
                and ctype in kind.cd and dtype in kind.cd:
            if ctype != dtype and not (kind.shape == "m8n8k4" and kind.ab == _F16
                                       and (dtype, ctype) == ("f32", "f16")):
                continue                 # only m8n8k4 .f16 mixes: .f32 D from .f16 C
            return kind
    return None


#: m8n8k4 .f16 (per quadpair q: lanes 4q..4q+3 and 4q+16..4q+19; i = lane & 3,
#: h = (lane >> 4) & 1, x = element index within the lane, register-major then slot):
QUADPAIR_RULES = {
    ("a", "row"): "row = i + 4h, col = x",
    ("a", "col"): "row = x + 4h, col = i",
    ("b", "row"): "row = i, col = x + 4h",
    ("b", "col"): "row = x, col = i + 4h",
    ("c", "f16"): "row = i + 4h, col = x",
    ("c", "f32"): "row = (lane & 1) + (x & 2) + 4h, col = (x & 4) + (lane & 2) + (x & 1)",
}


def mma_type_combinations(kind: MmaKind) -> list[tuple[str, str, str, str]]:
    """Every (dtype, atype, btype, ctype) ptxas 13.0 takes for a kind."""
    return [(d, a, b, c) for a in kind.ab for b in kind.ab for c in kind.cd for d in kind.cd
            if mma_kind(kind.shape, a, b, c, d) is kind]


def mma_fragments(shape: str, atype: str, btype: str, ctype: str, dtype: str,
                  alayout: str = "row", blayout: str = "col") -> dict[str, Fragment]:
    """The fragments {"a", "b", "c", "d"} of one `mma.sync` form (KeyError: no such form)."""
    if mma_kind(shape, atype, btype, ctype, dtype) is None:
        raise KeyError(f"mma.sync has no form .{shape} .{dtype}.{atype}.{btype}.{ctype}")
    m, n, k = shape_mnk(shape)
    if shape == "m8n8k4" and atype == "f16":
        def qp(rows, cols, type_, nregs, key, what):
            return Fragment(rows, cols, type_, "", 0, ((0, 0),) * nregs, rule="quadpair:" +
                            "/".join(key), what=what)
        acc = {"f16": 4, "f32": 8}
        return {"a": qp(8, 4, "f16", 2, ("a", alayout), f"A 8x4 .f16 .{alayout} per quadpair"),
                "b": qp(4, 8, "f16", 2, ("b", blayout), f"B 4x8 .f16 .{blayout} per quadpair"),
                "c": qp(8, 8, ctype, acc[ctype], ("c", ctype), f"C 8x8 .{ctype} per quadpair"),
                "d": qp(8, 8, dtype, acc[dtype], ("c", dtype), f"D 8x8 .{dtype} per quadpair")}
    return {"a": operand_a(m, k, atype), "b": operand_b(k, n, btype),
            "c": accumulator(m, n, ctype), "d": accumulator(m, n, dtype)}


# ---------------------------------------------------------------- ldmatrix / stmatrix / movmatrix

def matrix_8x8(count: int, trans: bool) -> Fragment:
    """ldmatrix/stmatrix `.m8n8 .x{count} .b16`: register j holds 8×8 matrix j (stacked as rows
    8j..8j+7 of a (8·count)×8 matrix), lane L holding row g, columns 2t and 2t+1 — or, with
    `.trans`, the transposed element: row 2t+s, column g. Row r of matrix j is read from (or
    written to) the address that lane 8j + r supplies: 16 bytes, 16-byte aligned."""
    origins = tuple((8 * j, 0) for j in range(count))
    return Fragment(8 * count, 8, "b16", "col" if trans else "row", 2, origins,
                    what=f"ldmatrix .m8n8 .x{count}{' .trans' if trans else ''} .b16")


#: bytes of one matrix row that one lane's address names (every ldmatrix/stmatrix shape)
ROW_BYTES = 16
#: ldmatrix/stmatrix .num -> number of matrices
COUNTS = {".x1": 1, ".x2": 2, ".x4": 4}

#: ldmatrix `.b8x16` source formats -> bits of each of the 16 unsigned elements packed into a
#: 16-byte row (element c in bits [w·c, w·(c+1)) of the little-endian row; the 32 or 64 bits
#: above them are padding)
PACKED_BITS = {"b6x16_p32": 6, "b4x16_p64": 4}
#: where a packed element lands in its 8-bit container: the PTX ISA says only that the container
#: has 2 (6-bit) or 4 (4-bit) bits of padding, not on which side; ptxld puts the value in the low
#: bits and zeroes the padding above it
PACKED_CONTAINER_SHIFT = 0


class MatrixForm:
    """One ldmatrix/stmatrix form: the fragment (in memory coordinates: row r of the fragment is
    the r-th row address, supplied by lane r), the rows one matrix spans in memory, and the
    bits of one element in memory (`packed_bits`: a `.b8x16` source format, else the element
    width)."""
    __slots__ = ("frag", "rows_per_matrix", "packed_bits")

    def __init__(self, frag: Fragment, rows_per_matrix: int, packed_bits: int):
        self.frag, self.rows_per_matrix, self.packed_bits = frag, rows_per_matrix, packed_bits

    @property
    def nrows(self) -> int:
        """Row addresses the warp supplies (lanes 0..nrows-1)."""
        return self.frag.rows


def matrix_form(name: str, shape: str, count: int, trans: bool, type_: str,
                src_fmt: str | None = None) -> MatrixForm:
    """The ldmatrix/stmatrix form (`name` without dot, qualifiers without dots); KeyError names
    a combination the PTX ISA does not have.

    * `.m8n8 .b16` — `matrix_8x8`.
    * ldmatrix `.m16n16 .trans .b8` (and `.b8x16` with a source format): matrix j is rows
      16j..16j+15 of memory, column-major (`.trans` is mandatory), and takes registers 2j and
      2j+1. Register 2j+k of lane L holds, in byte s, memory row 4·(L%4)+s, byte 8k + L/4 —
      i.e. matrix element (row L/4 + 8k, column 4·(L%4)+s): four consecutive columns across
      two rows, a row per group of four lanes.
    * ldmatrix `.m8n16 .b8x16` (no `.trans`): matrix j is rows 8j..8j+7, register j; lane L
      holds row L/4, containers 4·(L%4)..4·(L%4)+3.
    * stmatrix `.m16n8 .trans .b8`: matrix j (16×8) is written column-major to rows 8j..8j+7;
      register j of lane L holds, in byte s, matrix element (row L/4 + 8·(s>>1), column
      2·(L%4) + (s&1)) — memory row 8j + 2·(L%4) + (s&1), byte L/4 + 8·(s>>1).
    """
    packed = PACKED_BITS[src_fmt] if src_fmt else None
    key = (name, shape, type_, trans, packed is not None)
    if key in (("ldmatrix", "m8n8", "b16", trans, False), ("stmatrix", "m8n8", "b16", trans, False)):
        return MatrixForm(matrix_8x8(count, trans), 8, 16)
    what = f"{name} .{shape} .x{count}{' .trans' if trans else ''} .{type_}{'.' + src_fmt if src_fmt else ''}"
    if name == "ldmatrix" and shape == "m16n16" and trans and count in (1, 2) and \
            (type_ == "b8" and packed is None or type_ == "b8x16" and packed):
        origins = tuple((16 * j, 8 * k) for j in range(count) for k in (0, 1))
        return MatrixForm(Fragment(16 * count, 16, "b8", "col", 4, origins, what=what), 16, packed or 8)
    if name == "ldmatrix" and shape == "m8n16" and not trans and type_ == "b8x16" and packed:
        origins = tuple((8 * j, 0) for j in range(count))
        return MatrixForm(Fragment(8 * count, 16, "b8", "row", 4, origins, what=what), 8, packed)
    if name == "stmatrix" and shape == "m16n8" and trans and type_ == "b8" and packed is None:
        origins = tuple((8 * j, 0) for j in range(count))
        return MatrixForm(Fragment(8 * count, 16, "b8", "col", 2, origins, what=what,
                                   slot_origins=((0, 0), (0, 8))), 8, 8)
    raise KeyError(f"{what}: the PTX ISA has no such {name} form")


# ---------------------------------------------------------------- wgmma register fragments

#: wgmma K per operand type (dense): 256 bits of K per row
WGMMA_K = {"f16": 16, "bf16": 16, "tf32": 8, "e4m3": 32, "e5m2": 32, "s8": 32, "u8": 32,
           "b1": 256}
WGMMA_ACC = {"f16": ("f16", "f32"), "bf16": ("f32",), "tf32": ("f32",), "e4m3": ("f16", "f32"),
             "e5m2": ("f16", "f32"), "s8": ("s32",), "u8": ("s32",), "b1": ("s32",)}


def wgmma_n_values(atype: str) -> tuple[int, ...]:
    """The N of `wgmma.mma_async .m64nNk*` per type: multiples of 8 up to 256 for the floating
    types; for the integer types 8, 16, 24, 32, 48, ... 256 (multiples of 16 above 32);
    b1 likewise."""
    if atype in ("s8", "u8", "b1"):
        return (8, 16, 24) + tuple(range(32, 257, 16))
    return tuple(range(8, 257, 8))


def wgmma_d_registers(n: int, dtype: str) -> int:
    """The D registers per thread of `wgmma.mma_async .m64n{n}` (`wgmma_fragments`' "d")."""
    return accumulator_registers(64, n, dtype, warp_rows=16)


def wgmma_fragments(n: int, atype: str, dtype: str) -> dict[str, Fragment]:
    """The register fragments of `wgmma.mma_async .m64n{n}k{K}`: A (when taken from registers)
    and D, per warpgroup thread (warp w of the group holds rows 16w..16w+15)."""
    k = WGMMA_K[atype]
    return {"a": operand_a(64, k, atype, warp_rows=16),
            "d": accumulator(64, n, dtype, warp_rows=16)}


#: wgmma matrix-descriptor fields: name -> (first bit, width, scale); byte values are stored >> 4
DESCRIPTOR_FIELDS = {
    "start_address": (0, 14, 16),
    "leading_byte_offset": (16, 14, 16),
    "stride_byte_offset": (32, 14, 16),
    "base_offset": (49, 3, 1),
    "swizzle": (62, 2, 1),
}


class Descriptor:
    """A decoded wgmma matrix descriptor (byte values; `swizzle` is a mode of spec.swizzle)."""
    __slots__ = ("start", "lbo", "sbo", "base_offset", "swizzle", "raw")

    def __init__(self, raw: int):
        raw = int(raw) & (2 ** 64 - 1)
        f = {name: ((raw >> lo) & ((1 << width) - 1)) * scale
             for name, (lo, width, scale) in DESCRIPTOR_FIELDS.items()}
        self.raw = raw
        self.start, self.lbo, self.sbo = f["start_address"], f["leading_byte_offset"], f["stride_byte_offset"]
        self.base_offset = f["base_offset"]
        self.swizzle = DESCRIPTOR_CODE[f["swizzle"]]

    def __repr__(self) -> str:
        return (f"Descriptor(start={self.start:#x}, lbo={self.lbo}, sbo={self.sbo}, "
                f"base_offset={self.base_offset}, swizzle={self.swizzle})")


def operand_addresses(desc: Descriptor, mn, kbyte, *, k_major: bool, elem_bytes: int = 2):
    """Shared-memory byte address of byte `kbyte` along K (K-major) of row `mn`, or of element
    (mn, k = kbyte // elem_bytes) stored MN-major — the canonical layouts of the wgmma matrix
    descriptor (PTX ISA "Shared Memory Matrix Layout"), in units of 16-byte core-matrix rows:

    K-major, no swizzle: 8×16-byte core matrices; rows 16 bytes apart, the next 8 rows (M/N) at
    the stride byte offset, the next 16 bytes of K at the leading byte offset.
    K-major, swizzle of S bytes: 8 rows of S bytes (K contiguous); the next 8 rows at the stride
    byte offset (the leading byte offset is not used: one instruction's K fits in S bytes).
    MN-major, no swizzle: 16 bytes of M/N contiguous, the next 16 bytes at the stride byte
    offset; K rows 16 bytes apart, the next 8 K at the leading byte offset.
    MN-major, swizzle of S bytes: S bytes of M/N contiguous (the next S bytes at the leading byte
    offset); 8 K rows S bytes apart, the next 8 K at the stride byte offset.

    The swizzle (spec.swizzle) permutes 16-byte chunks by address bits [7, 10); the base offset
    says which row of the pattern the start address is: the pattern is applied to the offset from
    the start's 128-byte row plus 128 × base offset, i.e. to the absolute address when the base
    offset is ((start >> 7) & 7), as the ISA asks for a start address off the pattern boundary.
    `mn` and `kbyte` may be NumPy arrays (broadcast)."""
    span = SWIZZLE_SPAN[desc.swizzle]
    if k_major:
        if span == 0:
            off = (mn // 8) * desc.sbo + (mn % 8) * 16 + (kbyte // 16) * desc.lbo + kbyte % 16
        else:
            off = (mn // 8) * desc.sbo + (mn % 8) * span + kbyte
    else:
        k, within = kbyte // elem_bytes, kbyte % elem_bytes
        mnb = mn * elem_bytes + within
        if span == 0:
            off = (mnb // 16) * desc.sbo + mnb % 16 + (k % 8) * 16 + (k // 8) * desc.lbo
        else:
            off = (mnb // span) * desc.lbo + mnb % span + (k % 8) * span + (k // 8) * desc.sbo
    if span == 0:
        return desc.start + off
    return _swizzled(desc, off)


def _swizzled(desc: Descriptor, off):
    """start + off, with the swizzle pattern's phase taken from the base offset (see above)."""
    phase = desc.base_offset - ((desc.start >> 7) & 7)  # 0 when the base offset matches the start
    addr = desc.start + off
    shifted = addr + 128 * phase
    return swizzle(shifted, desc.swizzle) - 128 * phase if phase else swizzle(addr, desc.swizzle)


# ---------------------------------------------------------------- sparse mma (mma.sp)

class SparseKind:
    """One family of `mma.sp` forms: A is structured-sparse, given compressed (`rows × K/2`) in
    the dense fragment of shape `compressed` (m16n8k8 for m16n8k16, ...); B, C, D are the dense
    fragments. The metadata counts in units of `unit_bits` (16 for .f16/.bf16/.tf32, 8 for the
    8- and 4-bit types): each group of four units of a row of A keeps two, and the metadata of the
    selected thread(s) of each quad holds, per (row, group), a nibble: bits [1:0] the unit index
    of the first kept unit, bits [3:2] that of the second. So 16- and 8-bit types are 2:4 sparse;
    .tf32 is 1:2 (a kept element is a pair of units: nibble 0b0100 or 0b1110, nothing else is
    valid), 4-bit types 4:8 in pairs of elements. `selectors`: the sparsity selectors allowed
    (ptxas 13.0: "value out of range")."""
    __slots__ = ("shape", "ab", "cd", "compressed", "selectors", "min_sm", "min_ptx")

    def __init__(self, shape, ab, cd, compressed, selectors, min_sm=80, min_ptx=(7, 1)):
        self.shape, self.ab, self.cd, self.compressed = shape, tuple(ab), tuple(cd), compressed
        self.selectors, self.min_sm, self.min_ptx = tuple(selectors), min_sm, min_ptx

    def unit_bits(self, atype: str) -> int:
        return 16 if ELEMENT_BITS[atype] >= 16 else 8

    def k_units(self, atype: str) -> int:
        """K of the dense A in metadata units (16 for m16n8k16 .f16 and m16n8k8 .tf32, ...)."""
        return shape_mnk(self.shape)[2] * ELEMENT_BITS[atype] // self.unit_bits(atype)


SPARSE_KINDS = (
    SparseKind("m16n8k16", ("f16", "bf16"), ("f16", "f32"), "m16n8k8", range(4)),
    SparseKind("m16n8k32", ("f16", "bf16"), ("f16", "f32"), "m16n8k16", range(2)),
    SparseKind("m16n8k8", ("tf32",), ("f32",), "m16n8k4", range(4)),
    SparseKind("m16n8k16", ("tf32",), ("f32",), "m16n8k8", range(2)),
    SparseKind("m16n8k32", _INT8, ("s32",), "m16n8k16", range(2)),
    SparseKind("m16n8k64", _INT8, ("s32",), "m16n8k32", range(1)),
    SparseKind("m16n8k64", _INT4, ("s32",), "m16n8k32", range(2)),
    SparseKind("m16n8k128", _INT4, ("s32",), "m16n8k64", range(1)),
    # ptxas 13.0: .f16 accumulators with FP8 need PTX ISA 8.7 and a newer target than sm_89
    SparseKind("m16n8k64", _FP8, ("f32",), "m16n8k32", range(1), min_sm=89, min_ptx=(8, 4)),
)


def sparse_kind(shape: str, atype: str, btype: str, ctype: str, dtype: str) -> SparseKind | None:
    for kind in SPARSE_KINDS:
        if kind.shape == shape and atype in kind.ab and btype in kind.ab \
                and ctype in kind.cd and dtype in kind.cd:
            if atype in ("f16", "bf16") and (atype != btype or (atype == "bf16" and ctype != "f32")):
                continue
            return kind
    return None


def sparse_metadata_position(kind: SparseKind, atype: str, selector: int, row, group):
    """(thread within the quad of row % 8, nibble) whose metadata describes `group` (units
    4·group..4·group+3, see SparseKind) of `row` — as an H200 shows for .f16/.bf16/.s8
    (tests/kernels/data/sparse_maps_h200*.json; the PTX ISA gives these maps as figures), and
    by the same unit counts for .tf32 (16-bit units) and the 4-bit and FP8 types (8-bit units):
    16-bit units: one thread (selector F) for 16 units, nibble group + 4·(row ≥ 8); for 32
    units the pair 2F, 2F+1, the second for groups 4-7, nibble group % 4 + 4·(row ≥ 8).
    8-bit units: thread 2F + (row ≥ 8) + 2·(group // 8), nibble group % 8."""
    low = row // 8          # 0 for rows 0-7, 1 for rows 8-15
    if kind.unit_bits(atype) == 16:
        if kind.k_units(atype) == 16:
            return selector + 0 * row, group + 4 * low
        return 2 * selector + group // 4, group % 4 + 4 * low
    return 2 * selector + low + 2 * (group // 8), group % 8


# ---------------------------------------------------------------- sparse wgmma (wgmma.mma_async.sp)

class WgmmaSparse:
    """The sparse form of `wgmma.mma_async` for one A type (PTX ISA "wgmma.mma_async.sp"): K is
    twice the dense K; A is given compressed, 64 × K/2, in the register fragment (or the shared-
    memory layout) of the dense instruction with that K. Each row of A is cut into chunks of
    `chunk` elements holding `nonzeros` non-zeros, and every chunk has a 4-bit metadata field:
    two 2-bit indices, counted in 16-bit halves for .tf32 (so 0b0100 names element 0 of its pair
    and 0b1110 element 1: the only meaningful values) and in elements otherwise (2:4).
    `selectors`: the sparsity selectors ptxas 13.0 takes. `metadata_like`: the mma.sp form whose
    per-warp metadata map (thread of the quad, nibble) each warp of the warpgroup uses for its 16
    rows — the one with as many metadata bits per row."""
    __slots__ = ("atype", "k", "chunk", "nonzeros", "selectors", "metadata_like")

    def __init__(self, atype, k, chunk, nonzeros, selectors, metadata_like):
        self.atype, self.k, self.chunk, self.nonzeros = atype, k, chunk, nonzeros
        self.selectors, self.metadata_like = tuple(selectors), metadata_like

    @property
    def chunks(self) -> int:
        """Metadata fields per row of A."""
        return self.k // self.chunk

    @property
    def half_indices(self) -> bool:
        """Indices count 16-bit halves (.tf32: one 32-bit element is two halves)."""
        return self.nonzeros == 1


def _wgmma_sparse(atype: str) -> WgmmaSparse:
    k = 2 * WGMMA_K[atype]
    if atype == "tf32":               # 1:2: a pair of elements, 8 metadata fields per row
        return WgmmaSparse(atype, k, 2, 1, (0, 1), ("m16n8k32", "f16"))
    if ELEMENT_BITS[atype] == 16:     # 2:4, 8 fields per row
        return WgmmaSparse(atype, k, 4, 2, (0, 1), ("m16n8k32", "f16"))
    return WgmmaSparse(atype, k, 4, 2, (0,), ("m16n8k64", "s8"))     # 8-bit: 2:4, 16 fields


#: sparse wgmma per A type (b1 has no sparse form)
WGMMA_SPARSE = {t: _wgmma_sparse(t) for t in WGMMA_K if t != "b1"}


def wgmma_sparse_metadata_position(form: WgmmaSparse, selector: int, row, chunk):
    """(thread within the quad of row % 8, nibble) whose metadata describes `chunk` of `row`
    (0..63) of A: row 16w + r of warp w is described as row r of the mma.sp form `metadata_like`
    (`sparse_metadata_position`), within that warp."""
    shape, atype = form.metadata_like
    kind = sparse_kind(shape, atype, atype, "f32" if atype == "f16" else "s32",
                       "f32" if atype == "f16" else "s32")
    return sparse_metadata_position(kind, atype, selector, row % 16, chunk)


def wgmma_sparse_fragments(n: int, atype: str, dtype: str) -> dict[str, Fragment]:
    """Register fragments of `wgmma.mma_async.sp .m64n{n}k{2K}`: A is the compressed 64 × K
    matrix in the dense fragment of K, D as for the dense form."""
    return wgmma_fragments(n, atype, dtype)
