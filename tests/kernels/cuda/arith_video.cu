// SIMD and scalar video instructions, dot products and packing, as CUDA code writes them:
// the __v*2/__v*4 intrinsics, __dp4a/__dp2a, and inline PTX for the forms CUDA has no intrinsic
// for (vadd4 with saturation and a merge mask, vabsdiff4 accumulate, scalar vadd with byte
// selectors, cvt.pack.sat, bmsk, szext).
#include <cstdint>

// one output row of 8 words per element: the SIMD intrinsics on a[i], b[i]
extern "C" __global__ void arith_simd_intrinsics(const unsigned* a, const unsigned* b, unsigned* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = a[i], y = b[i];
    unsigned* o = out + 8 * i;
    o[0] = __vadd4(x, y);
    o[1] = __vabsdiffu4(x, y);
    o[2] = __vmaxu2(x, y);
    o[3] = __vsub2(x, y);
    o[4] = __vavgu4(x, y);
    o[5] = __vcmpgtu4(x, y);
    o[6] = __vminu4(x, y);
    o[7] = __vsadu4(x, y);
}

// the same data through the video instructions themselves
extern "C" __global__ void arith_video_asm(const unsigned* a, const unsigned* b, const unsigned* c,
                                          unsigned* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = a[i], y = b[i], z = c[i], r;
    unsigned* o = out + 8 * i;
    asm("vadd4.u32.u32.u32.sat %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(z)); o[0] = r;
    asm("vabsdiff4.u32.u32.u32.add %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(z)); o[1] = r;
    asm("vmax2.s32.s32.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(z)); o[2] = r;
    asm("vsub4.s32.s32.s32.sat %0.b20, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(z)); o[3] = r;
    asm("vadd.u32.u32.u32 %0, %1.b1, %2.h0;" : "=r"(r) : "r"(x), "r"(y)); o[4] = r;
    asm("vset4.u32.u32.gt.add %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(z)); o[5] = r;
    asm("vavrg2.u32.u32.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(z)); o[6] = r;
    asm("vmin.s32.s32.s32.max %0, %1.b0, %2.b2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(z)); o[7] = r;
}

// int8 dot products: dp4a of the bytes, dp2a of halves with bytes (low and high pairs)
extern "C" __global__ void arith_dot(const int* a, const int* b, const int* c, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[4 * i] = __dp4a(a[i], b[i], c[i]);
    out[4 * i + 1] = (int)__dp4a((unsigned)a[i], (unsigned)b[i], (unsigned)c[i]);
    out[4 * i + 2] = __dp2a_lo(a[i], b[i], c[i]);
    out[4 * i + 3] = __dp2a_hi(a[i], b[i], c[i]);
}

// quantize four int32 to saturated u8 lanes with cvt.pack, then bit-field masks and sign
// extension at a bit position
extern "C" __global__ void arith_pack_bits(const int* v, const unsigned* pos, unsigned* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned lo, packed, mask, ext, ext_u, s16;
    asm("cvt.pack.sat.u8.s32.b32 %0, %1, %2, 0;" : "=r"(lo) : "r"(v[4 * i + 1]), "r"(v[4 * i]));
    asm("cvt.pack.sat.u8.s32.b32 %0, %1, %2, %3;" : "=r"(packed) : "r"(v[4 * i + 3]), "r"(v[4 * i + 2]), "r"(lo));
    asm("cvt.pack.sat.s16.s32 %0, %1, %2;" : "=r"(s16) : "r"(v[4 * i + 1]), "r"(v[4 * i]));
    unsigned p = pos[2 * i], w = pos[2 * i + 1];
    asm("bmsk.clamp.b32 %0, %1, %2;" : "=r"(mask) : "r"(p), "r"(w));
    asm("szext.clamp.s32 %0, %1, %2;" : "=r"(ext) : "r"(v[4 * i]), "r"(w));
    asm("szext.wrap.u32 %0, %1, %2;" : "=r"(ext_u) : "r"(v[4 * i]), "r"(w));
    out[6 * i] = packed; out[6 * i + 1] = s16; out[6 * i + 2] = mask; out[6 * i + 3] = ext;
    out[6 * i + 4] = ext_u; out[6 * i + 5] = lo;
}
