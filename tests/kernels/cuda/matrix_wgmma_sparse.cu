// Sparse warpgroup products (wgmma.mma_async.sp, 2:4 structured sparsity in A), one warpgroup per
// 64x16 tile of D, operands placed in shared memory by the threads (no TMA). A arrives dense
// (64 x K, row-major) with at most two non-zeros in every group of four K elements; the kernel
// compresses it (the kept elements of a group in K order; a group with fewer than two non-zeros
// keeps the lowest free positions) and builds the metadata: per (row, group) a 4-bit field
// holding the two K indices within the group (low two bits: the first).
// Which thread holds which field (per warp w of the warpgroup, its rows 16w..16w+15; g = lane / 4,
// quad thread q = lane % 4, h = 1 for row g + 8):
//   16-bit types, K = 32, selector F: q = 2F for groups 0-3, 2F+1 for groups 4-7, field
//   (group % 4) + 4h;
//   8-bit types, K = 64, selector 0: q = h + 2 (group / 8), field group % 8
// (the mma.sp maps recorded on an H200, tools/hw/sparse_maps.cu, applied per warp).
//   .tf32, K = 16 (1:2: one non-zero in every pair of K elements), selector F: as the 16-bit
//   types, one field per pair: 0b0100 when element 0 of the pair is kept, 0b1110 for element 1.
// Compressed A is the dense wgmma A operand of half the K: in registers (f16 kernel) the
// m64nNk16 fragment, in shared memory (s8 and tf32 kernels) a K-major 128B-swizzled tile.
// B (given as Bt, 16 x K, row-major) is K-major with a 128-byte swizzle; each K step's 64 bytes
// of K sit in one 128-byte swizzle row. Built for sm_90a only.
// Cases: tests/kernels/cases_matrix.py (references: NumPy products of the dense A).
#include <cuda_fp16.h>
#include <cstdint>

__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ uint32_t swz128(uint32_t addr) { return addr ^ (((addr >> 7) & 7) << 4); }
__device__ __forceinline__ uint64_t desc_sw128(uint32_t addr) {     // LBO 16 (unused), SBO 1024
  return uint64_t((addr & 0x3FFFF) >> 4) | (uint64_t(1) << 16) | (uint64_t(1024 >> 4) << 32) | (uint64_t(1) << 62);
}

#define D8 "{%0, %1, %2, %3, %4, %5, %6, %7}"
#define OUT8F "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
#define OUT8R "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7])

// K indices (within the group) of the two kept elements of group [4g, 4g+4) of `row`.
template <typename T>
__device__ __forceinline__ void pick(const T* row, int g, int& i0, int& i1) {
  int kept[2], n = 0;
  for (int j = 0; j < 4 && n < 2; ++j)
    if (float(row[4 * g + j]) != 0.f) kept[n++] = j;
  for (int j = 0; j < 4 && n < 2; ++j)
    if (n == 0 || kept[0] != j) kept[n++] = j;
  i0 = kept[0] < kept[1] ? kept[0] : kept[1];
  i1 = kept[0] < kept[1] ? kept[1] : kept[0];
}

// Bt (16 x K bytes per row) into a K-major 128B-swizzled tile: row r at (r/8)*1024 + (r%8)*128.
template <typename T>
__device__ void stage_bt(const T* Bt, int K, unsigned char* sB) {
  const uint32_t b0 = smem_u32(sB);
  for (int i = threadIdx.x; i < 16 * K; i += 128) {
    int r = i / K, kb = (i % K) * sizeof(T);
    *reinterpret_cast<T*>(sB + (swz128(b0 + (r / 8) * 1024 + (r % 8) * 128 + kb) - b0)) = Bt[i];
  }
}

// D (64 x 16 f32) = A (64 x 64 f16, 2:4 sparse) * Bt^T; A compressed into registers, selector 1,
// two K steps of 32.
extern "C" __global__ void wgmma_sp_f16_regs(const __half* A, const __half* Bt, float* D) {
  constexpr int K = 64;
  __shared__ alignas(1024) unsigned char sB[16 * 128];
  stage_bt(Bt, K, sB);
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  const int t = threadIdx.x, w = t / 32, l = t % 32, g = l / 4, q = l % 4;
  const __half* rows[2] = {A + (16 * w + g) * K, A + (16 * w + g + 8) * K};
  // both K steps' fragments first: the A registers of an operation in flight must not be
  // touched before the wait, so each step has its own
  uint32_t a[2][4], meta[2] = {0, 0};
#pragma unroll
  for (int ks = 0; ks < 2; ++ks) {
    const int k0 = 32 * ks;
    for (int j = 0; j < 4; ++j) {        // register j: row g (+8 if j odd), group q + 4 (j / 2)
      const __half* row = rows[j % 2] + k0;
      int grp = q + 4 * (j / 2), i0, i1;
      pick(row, grp, i0, i1);
      __half2 h = __halves2half2(row[4 * grp + i0], row[4 * grp + i1]);
      a[ks][j] = *reinterpret_cast<uint32_t*>(&h);
    }
    if (q >= 2) {                        // selector 1: q = 2 groups 0-3, q = 3 groups 4-7
      for (int h = 0; h < 2; ++h)
        for (int c = 0; c < 4; ++c) {
          int i0, i1;
          pick(rows[h] + k0, c + 4 * (q - 2), i0, i1);
          meta[ks] |= uint32_t(i0 | (i1 << 2)) << (4 * (c + 4 * h));
        }
    }
  }
  float d[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
  for (int ks = 0; ks < 2; ++ks) {
    uint64_t db = desc_sw128(smem_u32(sB) + 64 * ks);
    asm volatile("wgmma.mma_async.sp.sync.aligned.m64n16k32.f32.f16.f16 " D8
                 ", {%8, %9, %10, %11}, %12, %13, 1, 1, 1, 1, 0;"
                 : OUT8F : "r"(a[ks][0]), "r"(a[ks][1]), "r"(a[ks][2]), "r"(a[ks][3]), "l"(db), "r"(meta[ks]));
  }
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  for (int i = 0; i < 8; ++i) D[(16 * w + g + 8 * ((i / 2) % 2)) * 16 + 8 * (i / 4) + 2 * q + i % 2] = d[i];
}

// D (64 x 16 s32) = A (64 x 128 s8, 2:4 sparse) * Bt^T; A compressed into shared memory (K-major,
// 128B swizzle, 64 bytes per row), selector 0, two K steps of 64.
extern "C" __global__ void wgmma_sp_s8_desc(const int8_t* A, const int8_t* Bt, int* D) {
  constexpr int K = 128;
  __shared__ alignas(1024) unsigned char sA[64 * 128], sB[16 * 128];
  stage_bt(Bt, K, sB);
  const uint32_t a0 = smem_u32(sA);
  for (int i = threadIdx.x; i < 64 * (K / 4); i += 128) {     // one group per iteration
    int r = i / (K / 4), grp = i % (K / 4), i0, i1;
    const int8_t* row = A + r * K;
    pick(row, grp, i0, i1);
    uint32_t off = (r / 8) * 1024 + (r % 8) * 128 + 2 * grp;  // compressed bytes 2 grp, 2 grp + 1
    sA[swz128(a0 + off) - a0] = row[4 * grp + i0];
    sA[swz128(a0 + off + 1) - a0] = row[4 * grp + i1];
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  const int t = threadIdx.x, w = t / 32, l = t % 32, g = l / 4, q = l % 4;
  const int8_t* row = A + (16 * w + g + 8 * (q & 1)) * K;      // q = h + 2 (group / 8)
  uint32_t meta[2] = {0, 0};
#pragma unroll
  for (int ks = 0; ks < 2; ++ks)
    for (int c = 0; c < 8; ++c) {
      int i0, i1;
      pick(row + 64 * ks, c + 8 * (q >> 1), i0, i1);
      meta[ks] |= uint32_t(i0 | (i1 << 2)) << (4 * c);
    }
  int d[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
  for (int ks = 0; ks < 2; ++ks) {
    uint64_t da = desc_sw128(a0 + 32 * ks), db = desc_sw128(smem_u32(sB) + 64 * ks);
    asm volatile("wgmma.mma_async.sp.sync.aligned.m64n16k64.s32.s8.s8 " D8 ", %8, %9, %10, 0, 1;"
                 : OUT8R : "l"(da), "l"(db), "r"(meta[ks]));
  }
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  for (int i = 0; i < 8; ++i) D[(16 * w + g + 8 * ((i / 2) % 2)) * 16 + 8 * (i / 4) + 2 * q + i % 2] = d[i];
}

// D (64 x 16 f32) = A (64 x 32 tf32, 1:2 sparse) * Bt^T; A compressed into shared memory (K-major,
// 128B swizzle, 64 bytes per row), selector 1, two K steps of 16.
extern "C" __global__ void wgmma_sp_tf32_desc(const float* A, const float* Bt, float* D) {
  constexpr int K = 32;
  __shared__ alignas(1024) unsigned char sA[64 * 128], sB[16 * 128];
  stage_bt(Bt, K, sB);
  const uint32_t a0 = smem_u32(sA);
  for (int i = threadIdx.x; i < 64 * (K / 2); i += 128) {     // one pair per iteration
    int r = i / (K / 2), pair = i % (K / 2);
    const float* row = A + r * K;
    int kept = row[2 * pair] != 0.f ? 0 : (row[2 * pair + 1] != 0.f ? 1 : 0);
    *reinterpret_cast<float*>(sA + (swz128(a0 + (r / 8) * 1024 + (r % 8) * 128 + 4 * pair) - a0)) =
        row[2 * pair + kept];
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  const int t = threadIdx.x, w = t / 32, l = t % 32, g = l / 4, q = l % 4;
  uint32_t meta[2] = {0, 0};
  if (q >= 2) {                          // selector 1: q = 2 pairs 0-3, q = 3 pairs 4-7 of a step
#pragma unroll
    for (int ks = 0; ks < 2; ++ks)
      for (int h = 0; h < 2; ++h)
        for (int c = 0; c < 4; ++c) {
          const float* row = A + (16 * w + g + 8 * h) * K + 16 * ks;
          int pair = c + 4 * (q - 2);
          uint32_t field = row[2 * pair] != 0.f ? 0x4u : (row[2 * pair + 1] != 0.f ? 0xEu : 0x4u);
          meta[ks] |= field << (4 * (c + 4 * h));
        }
  }
  float d[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
  for (int ks = 0; ks < 2; ++ks) {
    uint64_t da = desc_sw128(a0 + 32 * ks), db = desc_sw128(smem_u32(sB) + 64 * ks);
    asm volatile("wgmma.mma_async.sp.sync.aligned.m64n16k16.f32.tf32.tf32 " D8 ", %8, %9, %10, 1, 1, 1, 1;"
                 : OUT8F : "l"(da), "l"(db), "r"(meta[ks]));
  }
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  for (int i = 0; i < 8; ++i) D[(16 * w + g + 8 * ((i / 2) % 2)) * 16 + 8 * (i / 4) + 2 * q + i % 2] = d[i];
}
