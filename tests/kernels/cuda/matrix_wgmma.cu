// wgmma.mma_async without TMA: operand tiles placed in shared memory by the threads themselves in
// each canonical layout of the wgmma matrix descriptor (K-major without swizzle and with 32B,
// 64B, 128B swizzle; B MN-major with imm-trans-b), A from shared memory or from registers,
// scale-d / imm-scale-a, f16, tf32, s8 and e4m3 operands. Built for sm_90a only.
// Cases: tests/kernels/cases_matrix.py (references: NumPy matrix products).
//
// PTX ISA [#asynchronous-warpgroup-level-matrix-shared-memory-layout]: memory is seen as 16-byte
// core-matrix rows. K-major, no swizzle: 8 rows x 16 bytes per core matrix, the next core matrix
// along K at the leading byte offset (LBO), along M/N at the stride byte offset (SBO). K-major
// with an S-byte swizzle: rows of S bytes, 8 rows per atom, the next 8 rows at SBO; the 16-byte
// chunk c of address a is stored at chunk c ^ ((a / 128) % (S / 16)). MN-major with a 128-byte
// swizzle: 128 bytes of N contiguous, 8 K rows 128 bytes apart, the next 8 K at SBO.
// Register fragment of D (thread t, warp w = t / 32, lane l): element i at row 16w + l/4 + 8((i/2)%2),
// column 8(i/4) + 2(l%4) + i%2. A in registers: element i (two per .f16x2 register) at row
// 16w + l/4 + 8((i/2)%2), column 2(l%4) + i%2 + 8(i/4).
#include <cuda_fp16.h>
#include <cstdint>

__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ uint32_t swz(uint32_t addr, int span) {   // span: 0, 32, 64, 128
  return span ? addr ^ (((addr >> 7) & (span / 16 - 1)) << 4) : addr;
}
__device__ __forceinline__ uint64_t make_desc(uint32_t addr, uint32_t lbo, uint32_t sbo, int span) {
  uint64_t mode = span == 128 ? 1 : span == 64 ? 2 : span == 32 ? 3 : 0;
  return uint64_t((addr & 0x3FFFF) >> 4) | (uint64_t((lbo >> 4) & 0x3FFF) << 16) |
         (uint64_t((sbo >> 4) & 0x3FFF) << 32) | (mode << 62);
}
__device__ __forceinline__ void fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wait0() { asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory"); }

#define D8 "{%0, %1, %2, %3, %4, %5, %6, %7}"
#define OUT8F "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
#define OUT8R "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7])

// byte offset of K-major element (r, kb) (kb: byte along K) for a tile with S-byte rows (0: core matrices
// of 16-byte rows, `kcores` of them along K at LBO = 128, 8-row groups at SBO = 128 * kcores)
__device__ __forceinline__ uint32_t kmajor_offset(int r, int kb, int span, int kcores) {
  if (span == 0) return (r / 8) * 128 * kcores + (kb / 16) * 128 + (r % 8) * 16 + kb % 16;
  return (r / 8) * 8 * span + (r % 8) * span + kb;
}

// Store D (64 x 16 per warpgroup, f32) from the register fragment.
__device__ __forceinline__ void store_d16(float* D, const float (&d)[8]) {
  int t = threadIdx.x, w = t / 32, l = t % 32;
  for (int i = 0; i < 8; ++i) D[(16 * w + l / 4 + 8 * ((i / 2) % 2)) * 16 + 8 * (i / 4) + 2 * (l % 4) + i % 2] = d[i];
}

// D (64x16 f32) = A (64 x K f16, row-major) * Bt^T (Bt: 16 x K, row-major), K = 64; both operands
// K-major in shared memory with a `span`-byte swizzle (0: none); K steps of 16. `skew` moves the
// B descriptor's start (a test of descriptors outside shared memory passes a huge one).
template <int SPAN>
__device__ void wgmma_f16_kmajor(const __half* A, const __half* Bt, float* D, uint32_t skew) {
  constexpr int K = 64, KB = K * 2;
  constexpr int KCHUNK = SPAN ? SPAN : KB;           // K bytes one atom column holds
  constexpr int KCORES = KB / 16;
  __shared__ alignas(1024) unsigned char sA[64 * KB];
  __shared__ alignas(1024) unsigned char sB[16 * KB];
  const uint32_t a0 = smem_u32(sA), b0 = smem_u32(sB);
  // tiles of KCHUNK bytes along K, each a full 64-row (16-row) canonical block
  for (int i = threadIdx.x; i < 64 * K; i += 128) {
    int r = i / K, kb = (i % K) * 2, tile = kb / KCHUNK;
    uint32_t off = tile * 64 * KCHUNK + kmajor_offset(r, kb % KCHUNK, SPAN, KCORES);
    *reinterpret_cast<__half*>(sA + (swz(a0 + off, SPAN) - a0)) = A[i];
  }
  for (int i = threadIdx.x; i < 16 * K; i += 128) {
    int r = i / K, kb = (i % K) * 2, tile = kb / KCHUNK;
    uint32_t off = tile * 16 * KCHUNK + kmajor_offset(r, kb % KCHUNK, SPAN, KCORES);
    *reinterpret_cast<__half*>(sB + (swz(b0 + off, SPAN) - b0)) = Bt[i];
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  float d[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  fence();
  for (int ks = 0; ks < K / 16; ++ks) {
    int kb = ks * 32, tile = kb / KCHUNK, within = kb % KCHUNK;
    uint32_t a_off = tile * 64 * KCHUNK + (SPAN ? within : (within / 16) * 128);
    uint32_t b_off = tile * 16 * KCHUNK + (SPAN ? within : (within / 16) * 128);
    uint32_t lbo = SPAN ? 16 : 128, sbo = SPAN ? 8 * SPAN : 128 * KCORES;
    uint64_t da = make_desc(a0 + a_off, lbo, sbo, SPAN);
    uint64_t db = make_desc(b0 + b_off + skew, lbo, SPAN ? 8 * SPAN : 128 * KCORES, SPAN);
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %10, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 " D8 ", %8, %9, p, 1, 1, 0, 0;\n}"
                 : OUT8F : "l"(da), "l"(db), "r"(ks));
  }
  commit();
  wait0();
  store_d16(D, d);
}

extern "C" __global__ void wgmma_kmajor_none(const __half* A, const __half* Bt, float* D, uint32_t skew) {
  wgmma_f16_kmajor<0>(A, Bt, D, skew);
}
extern "C" __global__ void wgmma_kmajor_sw32(const __half* A, const __half* Bt, float* D, uint32_t skew) {
  wgmma_f16_kmajor<32>(A, Bt, D, skew);
}
extern "C" __global__ void wgmma_kmajor_sw64(const __half* A, const __half* Bt, float* D, uint32_t skew) {
  wgmma_f16_kmajor<64>(A, Bt, D, skew);
}
extern "C" __global__ void wgmma_kmajor_sw128(const __half* A, const __half* Bt, float* D, uint32_t skew) {
  wgmma_f16_kmajor<128>(A, Bt, D, skew);
}

// A from registers (per the register fragment), B given row-major (K x N, N = 16 contiguous:
// MN-major) in a 32-byte swizzled MN-major layout read with imm-trans-b = 1; imm-scale-a = -1 on
// the second K step, so D = A0 * B0 - A1 * B1. K = 32.
extern "C" __global__ void wgmma_regs_a_trans_b(const __half* A, const __half* B, float* D) {
  constexpr int K = 32, N = 16, SPAN = 32;
  __shared__ alignas(1024) unsigned char sB[K * N * 2];
  const uint32_t b0 = smem_u32(sB);
  for (int i = threadIdx.x; i < K * N; i += 128) {
    int k = i / N, n = i % N;
    // MN-major, S-byte swizzle: N bytes (2n) within an S-byte row, K rows S bytes apart, next 8 K at SBO
    uint32_t off = (k / 8) * (8 * SPAN) + (k % 8) * SPAN + 2 * n;
    *reinterpret_cast<__half*>(sB + (swz(b0 + off, SPAN) - b0)) = B[i];
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  int t = threadIdx.x, w = t / 32, l = t % 32;
  float d[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  fence();
  for (int ks = 0; ks < K / 16; ++ks) {
    uint32_t a[4];
    for (int j = 0; j < 4; ++j) {
      __half lo, hi;
      int row = 16 * w + l / 4 + 8 * (j % 2), col = ks * 16 + 2 * (l % 4) + 8 * (j / 2);
      lo = A[row * K + col];
      hi = A[row * K + col + 1];
      __half2 h = __halves2half2(lo, hi);
      a[j] = *reinterpret_cast<uint32_t*>(&h);
    }
    uint64_t db = make_desc(b0 + ks * 2 * 8 * SPAN, 1024, 8 * SPAN, SPAN);
    if (ks == 0)
      asm volatile("wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 " D8 ", {%8, %9, %10, %11}, %12, 0, 1, 1, 1;"
                   : OUT8F : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db));
    else
      asm volatile("wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 " D8 ", {%8, %9, %10, %11}, %12, 1, -1, 1, 1;"
                   : OUT8F : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db));
  }
  commit();
  wait0();
  store_d16(D, d);
}

// K-major 128B swizzle for 8-bit and tf32 operands: one 128-byte row of K per tile row
// (128 s8/e4m3 or 32 tf32), K steps of 32 bytes. D is s32 or f32.
template <typename T, int KSTEP>
__device__ void stage_sw128(const T* A, const T* Bt, unsigned char* sA, unsigned char* sB) {
  constexpr int K = 128 / sizeof(T);
  const uint32_t a0 = smem_u32(sA), b0 = smem_u32(sB);
  for (int i = threadIdx.x; i < 64 * K; i += 128) {
    int r = i / K, kb = (i % K) * sizeof(T);
    *reinterpret_cast<T*>(sA + (swz(a0 + (r / 8) * 1024 + (r % 8) * 128 + kb, 128) - a0)) = A[i];
  }
  for (int i = threadIdx.x; i < 16 * K; i += 128) {
    int r = i / K, kb = (i % K) * sizeof(T);
    *reinterpret_cast<T*>(sB + (swz(b0 + (r / 8) * 1024 + (r % 8) * 128 + kb, 128) - b0)) = Bt[i];
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
}

extern "C" __global__ void wgmma_s8_sw128(const int8_t* A, const int8_t* Bt, int* D) {
  __shared__ alignas(1024) unsigned char sA[64 * 128], sB[16 * 128];
  stage_sw128<int8_t, 32>(A, Bt, sA, sB);
  int d[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  fence();
  for (int ks = 0; ks < 4; ++ks) {
    uint64_t da = make_desc(smem_u32(sA) + 32 * ks, 16, 1024, 128), db = make_desc(smem_u32(sB) + 32 * ks, 16, 1024, 128);
    asm volatile("wgmma.mma_async.sync.aligned.m64n16k32.s32.s8.s8 " D8 ", %8, %9, 1;" : OUT8R : "l"(da), "l"(db));
  }
  commit();
  wait0();
  int t = threadIdx.x, w = t / 32, l = t % 32;
  for (int i = 0; i < 8; ++i) D[(16 * w + l / 4 + 8 * ((i / 2) % 2)) * 16 + 8 * (i / 4) + 2 * (l % 4) + i % 2] = d[i];
}

extern "C" __global__ void wgmma_e4m3_sw128(const uint8_t* A, const uint8_t* Bt, float* D) {
  __shared__ alignas(1024) unsigned char sA[64 * 128], sB[16 * 128];
  stage_sw128<uint8_t, 32>(A, Bt, sA, sB);
  float d[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  fence();
  for (int ks = 0; ks < 4; ++ks) {
    uint64_t da = make_desc(smem_u32(sA) + 32 * ks, 16, 1024, 128), db = make_desc(smem_u32(sB) + 32 * ks, 16, 1024, 128);
    asm volatile("wgmma.mma_async.sync.aligned.m64n16k32.f32.e4m3.e4m3 " D8 ", %8, %9, 1, 1, 1;" : OUT8F : "l"(da), "l"(db));
  }
  commit();
  wait0();
  store_d16(D, d);
}

extern "C" __global__ void wgmma_tf32_sw128(const float* A, const float* Bt, float* D) {
  __shared__ alignas(1024) unsigned char sA[64 * 128], sB[16 * 128];
  stage_sw128<float, 32>(A, Bt, sA, sB);
  float d[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  fence();
  for (int ks = 0; ks < 4; ++ks) {
    uint64_t da = make_desc(smem_u32(sA) + 32 * ks, 16, 1024, 128), db = make_desc(smem_u32(sB) + 32 * ks, 16, 1024, 128);
    asm volatile("wgmma.mma_async.sync.aligned.m64n16k8.f32.tf32.tf32 " D8 ", %8, %9, 1, 1, 1;" : OUT8F : "l"(da), "l"(db));
  }
  commit();
  wait0();
  store_d16(D, d);
}

// Undefined: the accumulator is overwritten between wgmma.mma_async and wgmma.wait_group.
extern "C" __global__ void wgmma_touch_before_wait(const __half* A, const __half* Bt, float* D) {
  __shared__ alignas(1024) unsigned char sA[64 * 32], sB[16 * 32];
  for (int i = threadIdx.x; i < 64 * 32; i += 128) sA[i] = 0;
  for (int i = threadIdx.x; i < 16 * 32; i += 128) sB[i] = 0;
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  float d[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  uint64_t da = make_desc(smem_u32(sA), 128, 256, 0), db = make_desc(smem_u32(sB), 128, 256, 0);
  fence();
  asm volatile("wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 " D8 ", %8, %9, 0, 1, 1, 0, 0;\n"
               "mov.f32 %3, 0f3F800000;\n"
               "wgmma.commit_group.sync.aligned;\n"
               "wgmma.wait_group.sync.aligned 0;"
               : OUT8F : "l"(da), "l"(db));
  store_d16(D, d);
}
