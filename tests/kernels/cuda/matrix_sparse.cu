// Sparse tensor-core products (mma.sp::ordered_metadata, 2:4 structured sparsity in A), one warp
// per 16x8 tile. A arrives dense (M x K, row-major) with at most two non-zeros in every group of
// four K elements; each lane compresses its part (the non-zeros of a group, in K order, padded
// with zeros at unused positions) and the quad's selected thread(s) build the metadata: per
// (row, group) a nibble holding the two K indices (low two bits: the first). Which thread holds
// which nibble: 16-bit types, m16n8k32, selector F: thread 2F for groups 0-3 and 2F+1 for groups
// 4-7, nibble (group % 4) + 4 (row >= 8); 8-bit types, m16n8k32: thread 2F + (row >= 8), nibble
// = group (as recorded on an H200, tools/hw/sparse_maps.cu). Built for sm_80 and sm_90.
// Cases: tests/kernels/cases_matrix.py (references: NumPy products of the dense A).
#include <cuda_fp16.h>
#include <cstdint>

// K indices of the two kept elements of group [4g, 4g+4) of `row` (zeros are dropped; a group
// with fewer than two non-zeros keeps the lowest free positions).
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

// f16, m16n8k32, selector 1. A: M x 32 halves, Bt: N x 32 halves, D: M x N floats.
extern "C" __global__ void mma_sp_f16(const __half* A, const __half* Bt, float* D, int N) {
  const int lane = threadIdx.x, g = lane >> 2, t = lane & 3, m0 = blockIdx.y * 16, n0 = blockIdx.x * 8;
  const __half* Ar[2] = {A + (m0 + g) * 32, A + (m0 + g + 8) * 32};
  // compressed A = the dense m16n8k16 A fragment of the 16 x 16 compressed matrix:
  // register r holds compressed columns 2t, 2t+1 (+8 for r >= 2) of row g (+8 for odd r)
  uint32_t a[4];
  for (int r = 0; r < 4; ++r) {
    const __half* row = Ar[r % 2];
    int cc = 2 * t + 8 * (r / 2), grp = cc / 2, i0, i1;   // compressed columns cc, cc+1 = one group
    pick(row, grp, i0, i1);
    __half2 h = __halves2half2(row[4 * grp + i0], row[4 * grp + i1]);
    a[r] = *reinterpret_cast<uint32_t*>(&h);
  }
  uint32_t b[4];
  for (int r = 0; r < 4; ++r) {          // dense B: element i at k = 2t + (i & 1) + 8 (i >> 1)
    const __half* col = Bt + (n0 + g) * 32;
    __half2 h = __halves2half2(col[2 * t + 8 * r], col[2 * t + 8 * r + 1]);
    b[r] = *reinterpret_cast<uint32_t*>(&h);
  }
  uint32_t meta = 0;
  if (t == 2 || t == 3) {                // selector 1: threads 2 (groups 0-3) and 3 (groups 4-7)
    for (int half = 0; half < 2; ++half)
      for (int q = 0; q < 4; ++q) {
        int i0, i1;
        pick(Ar[half], q + 4 * (t - 2), i0, i1);
        meta |= uint32_t(i0 | (i1 << 2)) << (4 * (q + 4 * half));
      }
  }
  float d[4] = {0, 0, 0, 0};
  asm volatile("mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, "
               "{%4,%5,%6,%7}, {%8,%9,%10,%11}, {%0,%1,%2,%3}, %12, 0x1;"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(b[2]), "r"(b[3]),
                 "r"(meta));
  for (int i = 0; i < 4; ++i) D[(m0 + g + 8 * (i / 2)) * N + n0 + 2 * t + i % 2] = d[i];
}

// s8, m16n8k32, selector 0. A: M x 32 s8, Bt: N x 32 s8, D: M x N s32.
extern "C" __global__ void mma_sp_s8(const int8_t* A, const int8_t* Bt, int* D, int N) {
  const int lane = threadIdx.x, g = lane >> 2, t = lane & 3, m0 = blockIdx.y * 16, n0 = blockIdx.x * 8;
  const int8_t* Ar[2] = {A + (m0 + g) * 32, A + (m0 + g + 8) * 32};
  // compressed A = dense m16n8k16 s8 A fragment: register r holds compressed columns 4t..4t+3 of
  // row g + 8r, i.e. groups 2t and 2t+1
  uint32_t a[2];
  for (int r = 0; r < 2; ++r) {
    uint32_t v = 0;
    for (int q = 0; q < 2; ++q) {
      int grp = 2 * t + q, i0, i1;
      pick(Ar[r], grp, i0, i1);
      v |= (uint32_t(uint8_t(Ar[r][4 * grp + i0])) | (uint32_t(uint8_t(Ar[r][4 * grp + i1])) << 8)) << (16 * q);
    }
    a[r] = v;
  }
  uint32_t b[2];
  for (int r = 0; r < 2; ++r) {          // dense B: element i at k = 4t + (i & 3) + 16 (i >> 2)
    const int8_t* col = Bt + (n0 + g) * 32 + 4 * t + 16 * r;
    b[r] = uint32_t(uint8_t(col[0])) | (uint32_t(uint8_t(col[1])) << 8) | (uint32_t(uint8_t(col[2])) << 16) |
           (uint32_t(uint8_t(col[3])) << 24);
  }
  uint32_t meta = 0;
  if (t < 2) {                           // selector 0: thread 0 (row g) and thread 1 (row g + 8)
    for (int q = 0; q < 8; ++q) {
      int i0, i1;
      pick(Ar[t], q, i0, i1);
      meta |= uint32_t(i0 | (i1 << 2)) << (4 * q);
    }
  }
  int d[4] = {0, 0, 0, 0};
  asm volatile("mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5}, "
               "{%6,%7}, {%0,%1,%2,%3}, %8, 0x0;"
               : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(b[1]), "r"(meta));
  for (int i = 0; i < 4; ++i) D[(m0 + g + 8 * (i / 2)) * N + n0 + 2 * t + i % 2] = d[i];
}
