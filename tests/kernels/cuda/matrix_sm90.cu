// Warp-level matrix instructions of sm_89/sm_90: stmatrix (all .num, with and without .trans),
// mma.sync with f64 m16n8k16 (sm_90) and with e4m3/e5m2 m16n8k32 (sm_89). Built for sm_90.
// Cases: tests/kernels/cases_matrix.py.
#include <cstdint>
#include "matrix_common.cuh"

__device__ __forceinline__ void stsm_x1(void* p, uint32_t r0) {
  asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};\n" :: "r"(smem_u32(p)), "r"(r0));
}
__device__ __forceinline__ void stsm_x2_t(void* p, uint32_t r0, uint32_t r1) {
  asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %2};\n"
               :: "r"(smem_u32(p)), "r"(r0), "r"(r1));
}
__device__ __forceinline__ void stsm_x4(void* p, const uint32_t (&r)[4]) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};\n"
               :: "r"(smem_u32(p)), "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]));
}
__device__ __forceinline__ void stsm_x4_t(void* p, const uint32_t (&r)[4]) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};\n"
               :: "r"(smem_u32(p)), "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]));
}

// Register j of lane l is in[(j · 32 + l)]; lane l names row rows[l] of a 32 x 8 b16 buffer.
// out[v · 256 + ...] is that buffer (zeroed first) after variant v:
//   v = 0: stmatrix .x1; 1: .x2 .trans; 2: .x4; 3: .x4 .trans.
extern "C" __global__ void stmatrix_dump(const uint32_t* in, const int* rows, uint16_t* out) {
  __shared__ alignas(16) uint16_t s[32 * 8];
  int lane = threadIdx.x;
  uint32_t r[4] = {in[lane], in[32 + lane], in[64 + lane], in[96 + lane]};
  uint16_t* p = s + rows[lane] * 8;
  for (int v = 0; v < 4; ++v) {
    for (int i = lane; i < 256; i += 32) s[i] = 0;
    __syncwarp();
    if (v == 0) stsm_x1(p, r[0]);
    if (v == 1) stsm_x2_t(p, r[0], r[1]);
    if (v == 2) stsm_x4(p, r);
    if (v == 3) stsm_x4_t(p, r);
    __syncwarp();
    for (int i = lane; i < 256; i += 32) out[v * 256 + i] = s[i];
    __syncwarp();
  }
}

// f64 m16n8k16: one warp per 16x8 tile of C = A · B (A row-major M x K, Bt N x K), operands
// loaded from global per the ISA's layout (A: row g + 8 (i % 2), column t + 4 (i / 2);
// B: row t + 4 i, column g; C: row g + 8 (i / 2), column 2t + i % 2).
extern "C" __global__ void mma_f64_m16n8k16(const double* A, const double* Bt, double* C, int N, int K) {
  int lane = threadIdx.x, m0 = blockIdx.y * 16, n0 = blockIdx.x * 8;
  int g = lane >> 2, t = lane & 3;
  double d[4] = {0, 0, 0, 0};
  for (int k0 = 0; k0 < K; k0 += 16) {
    double a[8], b[4];
    for (int i = 0; i < 8; ++i) a[i] = A[(m0 + g + 8 * (i % 2)) * K + k0 + t + 4 * (i / 2)];
    for (int i = 0; i < 4; ++i) b[i] = Bt[(n0 + g) * K + k0 + t + 4 * i];
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7,%8,%9,%10,%11}, "
                 "{%12,%13,%14,%15}, {%0,%1,%2,%3};\n"
                 : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
                 : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]),
                   "d"(b[0]), "d"(b[1]), "d"(b[2]), "d"(b[3]));
  }
  for (int i = 0; i < 4; ++i) C[(m0 + g + 8 * (i / 2)) * N + n0 + 2 * t + i % 2] = d[i];
}

// e4m3 x e5m2 -> f32, m16n8k32, ldmatrix-fed like the 8-bit integer GEMM: A M x Kw words,
// Bt N x Kw words (4 fp8 values per word, element 0 in the low byte).
extern "C" __global__ void mma_e4m3_e5m2(const uint32_t* A, const uint32_t* Bt, float* C, int N, int Kw) {
  __shared__ alignas(16) uint32_t sA[16 * 8];
  __shared__ alignas(16) uint32_t sB[8 * 8];
  int lane = threadIdx.x, m0 = blockIdx.y * 16, n0 = blockIdx.x * 8;
  float d[4] = {0.f, 0.f, 0.f, 0.f};
  for (int k0 = 0; k0 < Kw; k0 += 8) {
    tile_to_shared(sA, A + m0 * Kw + k0, 16, 8, Kw, lane);
    tile_to_shared(sB, Bt + n0 * Kw + k0, 8, 8, Kw, lane);
    __syncwarp();
    uint32_t a[4], b[2];
    ldsm_x4(a, sA + (lane % 16) * 8 + (lane / 16) * 4);
    ldsm_x2(b, sB + (lane % 8) * 8 + ((lane / 8) % 2) * 4);
    asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    __syncwarp();
  }
  store_acc16x8(C + m0 * N + n0, N, lane, d);
}
