"""Hand-written sparse wgmma kernels for the tests, and their inputs built from the PTX ISA's
description alone (register fragments, metadata fields, canonical shared-memory layout), so that
the tests do not rely on ptxld's layout objects."""
from __future__ import annotations

import numpy as np

K_DENSE = {"f16": 16, "bf16": 16, "tf32": 8, "e4m3": 32, "e5m2": 32, "s8": 32, "u8": 32}
ELEM_BYTES = {"f16": 2, "bf16": 2, "tf32": 4, "e4m3": 1, "e5m2": 1, "s8": 1, "u8": 1}
NP_TYPE = {"f16": np.float16, "f32": np.float32, "s32": np.int32}
LBO = 128           # K-major, no swizzle: the next 16 bytes of K are 128 bytes on
B_AT = 2048         # shared-memory byte offset of B (A, when given by descriptor, is at 0)
IMAGE = B_AT + 256 * 64      # room for B of N = 256 (64 bytes of K per row)


def imm_list(atype: str, a_in_regs: bool, scale_a: int = 1) -> str:
    """The immediates after scale-d (PTX ISA operand lists of wgmma.mma_async.sp)."""
    if atype in ("s8", "u8"):
        return ""
    if atype in ("f16", "bf16"):
        return f", {scale_a}, 1, 0" if a_in_regs else f", {scale_a}, 1, 0, 0"
    return f", {scale_a}, 1"


def kernel_ptx(atype: str, btype: str, dtype: str, n: int, selector: int, *, a_in_regs: bool,
               scale_a: int = 1, touch: str = "") -> str:
    """Kernel `k(a, meta, bimg, d, a_desc_bits, b_desc_bits)`: copies the shared-memory image
    (A when given by descriptor at byte 0, B at byte 2048), loads the A fragment, metadata and
    C, runs one wgmma.mma_async.sp and stores D. `touch`: PTX put between mma_async and the wait."""
    k = 2 * K_DENSE[atype]
    nd = n // 2 if dtype != "f16" else n // 4
    dcls = {"f32": ".f32", "f16": ".b32", "s32": ".s32"}[dtype]
    dregs = ", ".join(f"%d{i}" for i in range(nd))
    loads = "\n".join(f"  ld.global.b32 %d{i}, [%rd20+{4 * i}];" for i in range(nd))
    stores = "\n".join(f"  st.global.b32 [%rd20+{4 * i}], %d{i};" for i in range(nd))
    a_op = "{%a0, %a1, %a2, %a3}" if a_in_regs else "%rd11"
    return f""".version 8.7
.target sm_90a
.address_size 64

.visible .entry k(.param .u64 pa, .param .u64 pm, .param .u64 pb, .param .u64 pd,
                  .param .u64 pad, .param .u64 pbd)
{{
  .reg .b32 %a<4>;
  .reg .b32 %m;
  .reg {dcls} %d<{nd}>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<24>;
  .reg .pred %p;
  .shared .align 1024 .b8 smem[{IMAGE}];

  ld.param.u64 %rd1, [pa];
  ld.param.u64 %rd2, [pm];
  ld.param.u64 %rd3, [pb];
  ld.param.u64 %rd4, [pd];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  cvta.to.global.u64 %rd3, %rd3;
  cvta.to.global.u64 %rd4, %rd4;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, smem;
  mov.u32 %r3, %r1;
COPY:
  mul.wide.u32 %rd5, %r3, 4;
  add.s64 %rd6, %rd3, %rd5;
  ld.global.b32 %r4, [%rd6];
  shl.b32 %r5, %r3, 2;
  add.s32 %r5, %r5, %r2;
  st.shared.b32 [%r5], %r4;
  add.s32 %r3, %r3, 128;
  setp.lt.u32 %p, %r3, {IMAGE // 4};
  @%p bra COPY;
  fence.proxy.async.shared::cta;
  bar.sync 0;

  mul.wide.u32 %rd7, %r1, 16;
  add.s64 %rd8, %rd1, %rd7;
  ld.global.v4.b32 {{%a0, %a1, %a2, %a3}}, [%rd8];
  mul.wide.u32 %rd9, %r1, 4;
  add.s64 %rd10, %rd2, %rd9;
  ld.global.b32 %m, [%rd10];
  mul.wide.u32 %rd19, %r1, {4 * nd};
  add.s64 %rd20, %rd4, %rd19;
{loads}
  cvt.u64.u32 %rd12, %r2;
  shr.u64 %rd12, %rd12, 4;
  ld.param.u64 %rd13, [pad];
  add.s64 %rd11, %rd12, %rd13;
  ld.param.u64 %rd14, [pbd];
  add.s64 %rd15, %rd12, %rd14;

  wgmma.fence.sync.aligned;
  wgmma.mma_async.sp.sync.aligned.m64n{n}k{k}.{dtype}.{atype}.{btype} {{{dregs}}}, {a_op}, %rd15, %m, {selector}, 1{imm_list(atype, a_in_regs, scale_a)};
  wgmma.commit_group.sync.aligned;
{touch}
  wgmma.wait_group.sync.aligned 0;
{stores}
  ret;
}}
"""


# ---- inputs, from the ISA's description -----------------------------------------------------

def sparse_a(rng, atype: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(dense 64 × K values, compressed 64 × K/2 values, positions 64 × K/2 of each kept value
    in its row): 2:4 (two of every four), or 1:2 for .tf32."""
    k = 2 * K_DENSE[atype]
    chunk, keep = (2, 1) if atype == "tf32" else (4, 2)
    pos = np.empty((64, k // 2), np.int64)
    for r in range(64):
        for c in range(k // chunk):
            pos[r, keep * c:keep * (c + 1)] = chunk * c + np.sort(rng.choice(chunk, keep, replace=False))
    lo, hi = (0, 4) if atype == "u8" else (-3, 4)
    comp = rng.integers(lo, hi, (64, k // 2)).astype(np.float64)
    comp[comp == 0] = 1
    dense = np.zeros((64, k))
    np.put_along_axis(dense, pos, comp, axis=1)
    return dense, comp, pos


def metadata(atype: str, selector: int, pos: np.ndarray, rng) -> np.ndarray:
    """Per warpgroup thread its metadata register: 4-bit fields, each two 2-bit indices (16-bit
    halves for .tf32); threads the selector does not name hold noise (ignored)."""
    meta = rng.integers(0, 2 ** 32, 128, dtype=np.uint64)
    k = pos.shape[1] * 2
    chunk = 2 if atype == "tf32" else 4
    named = np.zeros(128, bool)
    fields = {}
    for row in range(64):
        w, local = divmod(row, 16)
        g, low = local % 8, local // 8
        for c in range(k // chunk):
            if atype == "tf32":
                e = pos[row, c] - 2 * c
                value = 0b0100 if e == 0 else 0b1110
            else:
                first, second = pos[row, 2 * c] - 4 * c, pos[row, 2 * c + 1] - 4 * c
                value = first | (second << 2)
            if ELEM_BYTES[atype] == 1:
                quad, nibble = low + 2 * (c // 8), c % 8
            else:
                quad, nibble = 2 * selector + c // 4, c % 4 + 4 * low
            t = 32 * w + 4 * g + quad
            if not named[t]:
                named[t], meta[t] = True, 0
            fields[(t, nibble)] = value
    for (t, nibble), value in fields.items():
        meta[t] |= np.uint64(value << (4 * nibble))
    return meta.astype(np.uint32)


def a_fragment(atype: str, comp: np.ndarray) -> np.ndarray:
    """(128, 4) registers holding the compressed A (64 × K/2) as the dense wgmma A fragment."""
    bits = element_bits(comp, atype)
    eb = ELEM_BYTES[atype]
    per = 4 // eb
    regs = np.zeros((128, 4), np.uint64)
    for t in range(128):
        w, lane = divmod(t, 32)
        g, q = lane // 4, lane % 4
        for i in range(4 * per):
            if eb == 2:
                row, col = 16 * w + g + 8 * ((i // 2) % 2), 2 * q + i % 2 + 8 * (i // 4)
            elif eb == 4:
                row, col = 16 * w + g + 8 * (i % 2), q + 4 * (i // 2)
            else:
                row, col = 16 * w + g + 8 * ((i // 4) % 2), 4 * q + i % 4 + 16 * (i // 8)
            regs[t, i // per] |= np.uint64(int(bits[row, col]) << (8 * eb * (i % per)))
    return regs.astype(np.uint32)


def element_bits(values: np.ndarray, type_: str) -> np.ndarray:
    """Element bit patterns of exactly representable small values."""
    import ml_dtypes
    if type_ == "f16":
        return values.astype(np.float16).view(np.uint16)
    if type_ == "bf16":
        return values.astype(ml_dtypes.bfloat16).view(np.uint16)
    if type_ == "tf32":
        return values.astype(np.float32).view(np.uint32)
    if type_ in ("e4m3", "e5m2"):
        t = ml_dtypes.float8_e4m3fn if type_ == "e4m3" else ml_dtypes.float8_e5m2
        return values.astype(t).view(np.uint8)
    return values.astype(np.int64).astype(np.uint8)


def kmajor_image(rows_bytes: np.ndarray) -> np.ndarray:
    """K-major, no swizzle (PTX ISA shared-memory matrix layout): 8 rows × 16 bytes per core
    matrix, the next 16 bytes of K at LBO, the next 8 rows at SBO = LBO × (row bytes / 16)."""
    nrows, kb = rows_bytes.shape
    sbo = LBO * (kb // 16)
    out = np.zeros(nrows // 8 * sbo, np.uint8)
    for r in range(nrows):
        for b in range(kb):
            out[(r // 8) * sbo + (r % 8) * 16 + (b // 16) * LBO + b % 16] = rows_bytes[r, b]
    return out


def desc_bits(lbo: int, sbo: int, start_offset: int = 0) -> int:
    """Descriptor fields other than the start address (added by the kernel), plus a start offset."""
    return (start_offset >> 4) | ((lbo >> 4) << 16) | ((sbo >> 4) << 32)


def d_fragment_to_matrix(regs: np.ndarray, n: int, dtype: str) -> np.ndarray:
    """The 64 × N D matrix from the (128, regs) D fragment (PTX ISA wgmma accumulator layout)."""
    if dtype == "f16":
        vals = regs.astype(np.uint32).view(np.float16).reshape(128, -1).astype(np.float64)
    elif dtype == "f32":
        vals = regs.astype(np.uint32).view(np.float32).reshape(128, -1).astype(np.float64)
    else:
        vals = regs.astype(np.uint32).view(np.int32).reshape(128, -1).astype(np.float64)
    out = np.full((64, n), np.nan)
    for t in range(128):
        w, lane = divmod(t, 32)
        for i in range(n // 2):
            out[16 * w + lane // 4 + 8 * ((i // 2) % 2), 8 * (i // 4) + 2 * (lane % 4) + i % 2] = vals[t, i]
    return out


def c_fragment(c: np.ndarray, dtype: str) -> np.ndarray:
    """(128, regs) accumulator registers holding the 64 × N matrix C (inverse of the above)."""
    n = c.shape[1]
    vals = np.zeros((128, n // 2))
    for t in range(128):
        w, lane = divmod(t, 32)
        for i in range(n // 2):
            vals[t, i] = c[16 * w + lane // 4 + 8 * ((i // 2) % 2), 8 * (i // 4) + 2 * (lane % 4) + i % 2]
    if dtype == "f16":
        return vals.astype(np.float16).view(np.uint32)
    if dtype == "f32":
        return vals.astype(np.float32).view(np.uint32)
    return vals.astype(np.int32).view(np.uint32)


def inputs(atype: str, btype: str, dtype: str, n: int, selector: int, *, a_in_regs: bool, seed=0):
    """(kernel arguments, expected D matrix)."""
    rng = np.random.default_rng(seed)
    dense, comp, pos = sparse_a(rng, atype)
    k = dense.shape[1]
    lo, hi = (0, 4) if btype == "u8" else (-3, 4)
    bmat = rng.integers(lo, hi, (k, n)).astype(np.float64)
    c = rng.integers(-4, 5, (64, n)).astype(np.float64)
    image = np.zeros(IMAGE, np.uint8)
    a_sbo = LBO * (comp.shape[1] * ELEM_BYTES[atype] // 16)
    if not a_in_regs:
        a_img = kmajor_image(element_bits(comp, atype).view(np.uint8).reshape(64, -1))
        image[:len(a_img)] = a_img
    b_rows = element_bits(bmat.T.copy(), btype).view(np.uint8).reshape(n, -1)   # K-major: rows of N
    b_img = kmajor_image(b_rows)
    image[B_AT:B_AT + len(b_img)] = b_img
    b_sbo = LBO * (b_rows.shape[1] // 16)
    args = [a_fragment(atype, comp).reshape(-1), metadata(atype, selector, pos, rng),
            image.view(np.uint32).copy(), c_fragment(c, dtype).reshape(-1),
            np.uint64(desc_bits(LBO, a_sbo)), np.uint64(desc_bits(LBO, b_sbo, B_AT))]
    return args, dense @ bmat + c
