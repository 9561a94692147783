// Tensor-core GEMMs with ldmatrix + mma.sync, one warp per 16x8 tile of C, the way CUTLASS's
// SM80 warp-level MMAs feed the tensor cores: operand tiles staged in shared memory, ldmatrix.x4
// for A, ldmatrix.x2 (or .trans) for B, inline PTX for mma.sync. Built for sm_80 and sm_90.
// Cases: tests/kernels/cases_matrix.py (references are plain matrix products in NumPy).
//
// Operands are passed as 32-bit words: A is M x Kw words (row-major), Bt is N x Kw words (B
// column-major, i.e. B transposed, row-major), so every m16n8kK shape below reads 8 words (32
// bytes) of K per row and step: k16 for f16/bf16, k8 for tf32, k32 for s8, k64 for s4, k256 for b1.
#include <cuda_fp16.h>
#include <cstdint>
#include "matrix_common.cuh"

#define MMA_F32(SHAPE_TYPES)                                                                          \
  asm volatile("mma.sync.aligned." SHAPE_TYPES " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n" \
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])                                         \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]))
#define MMA_S32(SHAPE_TYPES)                                                                          \
  asm volatile("mma.sync.aligned." SHAPE_TYPES " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n" \
               : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])                                         \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]))

struct F16F32 { using Acc = float;
  __device__ static void run(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
    MMA_F32("m16n8k16.row.col.f32.f16.f16.f32"); } };
struct Bf16F32 { using Acc = float;
  __device__ static void run(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
    MMA_F32("m16n8k16.row.col.f32.bf16.bf16.f32"); } };
struct Tf32F32 { using Acc = float;
  __device__ static void run(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
    MMA_F32("m16n8k8.row.col.f32.tf32.tf32.f32"); } };
struct S8S32 { using Acc = int;
  __device__ static void run(int (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
    MMA_S32("m16n8k32.row.col.s32.s8.s8.s32"); } };
struct U8S8Sat { using Acc = int;
  __device__ static void run(int (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
    MMA_S32("m16n8k32.row.col.satfinite.s32.u8.s8.s32"); } };
struct S4S32 { using Acc = int;
  __device__ static void run(int (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
    MMA_S32("m16n8k64.row.col.s32.s4.s4.s32"); } };
struct B1Xor { using Acc = int;
  __device__ static void run(int (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
    MMA_S32("m16n8k256.row.col.s32.b1.b1.s32.xor.popc"); } };
struct B1And { using Acc = int;
  __device__ static void run(int (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
    MMA_S32("m16n8k256.row.col.s32.b1.b1.s32.and.popc"); } };

// C (M x N, row-major) = A · B + C, C read first (the accumulator starts from C).
template <class Op>
__device__ __forceinline__ void gemm_words(const uint32_t* A, const uint32_t* Bt, typename Op::Acc* C,
                                           int N, int Kw) {
  __shared__ alignas(16) uint32_t sA[16 * 8];
  __shared__ alignas(16) uint32_t sB[8 * 8];
  int lane = threadIdx.x, m0 = blockIdx.y * 16, n0 = blockIdx.x * 8;
  int g = lane >> 2, t = lane & 3;
  typename Op::Acc* Ct = C + m0 * N + n0;
  typename Op::Acc acc[4] = {Ct[g * N + 2 * t], Ct[g * N + 2 * t + 1], Ct[(g + 8) * N + 2 * t],
                             Ct[(g + 8) * N + 2 * t + 1]};
  for (int k0 = 0; k0 < Kw; k0 += 8) {
    tile_to_shared(sA, A + m0 * Kw + k0, 16, 8, Kw, lane);
    tile_to_shared(sB, Bt + n0 * Kw + k0, 8, 8, Kw, lane);
    __syncwarp();
    uint32_t a[4], b[2];
    ldsm_x4(a, sA + (lane % 16) * 8 + (lane / 16) * 4);     // rows 0-15, words 0-3 then 4-7
    ldsm_x2(b, sB + (lane % 8) * 8 + ((lane / 8) % 2) * 4); // columns 0-7, words 0-3 then 4-7
    Op::run(acc, a, b);
    __syncwarp();
  }
  store_acc16x8(Ct, N, lane, acc);
}

extern "C" __global__ void mma_f16_f32(const uint32_t* A, const uint32_t* Bt, float* C, int N, int Kw) {
  gemm_words<F16F32>(A, Bt, C, N, Kw);
}
extern "C" __global__ void mma_bf16_f32(const uint32_t* A, const uint32_t* Bt, float* C, int N, int Kw) {
  gemm_words<Bf16F32>(A, Bt, C, N, Kw);
}
extern "C" __global__ void mma_tf32_f32(const uint32_t* A, const uint32_t* Bt, float* C, int N, int Kw) {
  gemm_words<Tf32F32>(A, Bt, C, N, Kw);
}
extern "C" __global__ void mma_s8_s32(const uint32_t* A, const uint32_t* Bt, int* C, int N, int Kw) {
  gemm_words<S8S32>(A, Bt, C, N, Kw);
}
extern "C" __global__ void mma_u8s8_satfinite(const uint32_t* A, const uint32_t* Bt, int* C, int N, int Kw) {
  gemm_words<U8S8Sat>(A, Bt, C, N, Kw);
}
extern "C" __global__ void mma_s4_s32(const uint32_t* A, const uint32_t* Bt, int* C, int N, int Kw) {
  gemm_words<S4S32>(A, Bt, C, N, Kw);
}
extern "C" __global__ void mma_b1_xor(const uint32_t* A, const uint32_t* Bt, int* C, int N, int Kw) {
  gemm_words<B1Xor>(A, Bt, C, N, Kw);
}
extern "C" __global__ void mma_b1_and(const uint32_t* A, const uint32_t* Bt, int* C, int N, int Kw) {
  gemm_words<B1And>(A, Bt, C, N, Kw);
}

// f16 accumulators: D is two f16x2 registers (row g, then row g + 8), C starts at zero.
extern "C" __global__ void mma_f16_f16(const uint32_t* A, const uint32_t* Bt, __half* C, int N, int Kw) {
  __shared__ alignas(16) uint32_t sA[16 * 8];
  __shared__ alignas(16) uint32_t sB[8 * 8];
  int lane = threadIdx.x, m0 = blockIdx.y * 16, n0 = blockIdx.x * 8;
  uint32_t d[2] = {0, 0};
  for (int k0 = 0; k0 < Kw; k0 += 8) {
    tile_to_shared(sA, A + m0 * Kw + k0, 16, 8, Kw, lane);
    tile_to_shared(sB, Bt + n0 * Kw + k0, 8, 8, Kw, lane);
    __syncwarp();
    uint32_t a[4], b[2];
    ldsm_x4(a, sA + (lane % 16) * 8 + (lane / 16) * 4);
    ldsm_x2(b, sB + (lane % 8) * 8 + ((lane / 8) % 2) * 4);
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%0,%1};\n"
                 : "+r"(d[0]), "+r"(d[1]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    __syncwarp();
  }
  int g = lane >> 2, t = lane & 3;
  uint32_t* out0 = reinterpret_cast<uint32_t*>(C + (m0 + g) * N + n0 + 2 * t);
  uint32_t* out1 = reinterpret_cast<uint32_t*>(C + (m0 + g + 8) * N + n0 + 2 * t);
  *out0 = d[0];
  *out1 = d[1];
}

// f16 with both operands transposed in memory: A column-major (At: K x M halves) and B
// row-major (K x N halves), fed by ldmatrix .trans. M = 16 · gridDim.y, N = 8 · gridDim.x.
extern "C" __global__ void mma_f16_trans(const __half* At, const __half* B, float* C, int M, int N, int K) {
  __shared__ alignas(16) __half sA[16 * 16];   // [k][m]
  __shared__ alignas(16) __half sB[16 * 8];    // [k][n]
  int lane = threadIdx.x, m0 = blockIdx.y * 16, n0 = blockIdx.x * 8;
  float d[4] = {0.f, 0.f, 0.f, 0.f};
  for (int k0 = 0; k0 < K; k0 += 16) {
    for (int i = lane; i < 256; i += 32) sA[i] = At[(k0 + i / 16) * M + m0 + i % 16];
    for (int i = lane; i < 128; i += 32) sB[i] = B[(k0 + i / 8) * N + n0 + i % 8];
    __syncwarp();
    uint32_t a[4], b[2];
    // A matrices: (m 0-7, k 0-7), (m 8-15, k 0-7), (m 0-7, k 8-15), (m 8-15, k 8-15), stored [k][m]
    ldsm_x4_t(a, sA + ((lane % 8) + 8 * (lane / 16)) * 16 + 8 * ((lane / 8) % 2));
    ldsm_x2_t(b, sB + (lane % 16) * 8);        // B rows k 0-7, then k 8-15
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    __syncwarp();
  }
  store_acc16x8(C + m0 * N + n0, N, lane, d);
}

// f64: m8n8k4, one warp per 8x8 tile; A row-major M x K, Bt N x K, loaded straight from global
// (a lane holds A[g][t] and B[t][g]; D holds row g, columns 2t and 2t + 1).
extern "C" __global__ void mma_f64(const double* A, const double* Bt, double* C, int N, int K) {
  int lane = threadIdx.x, m0 = blockIdx.y * 8, n0 = blockIdx.x * 8;
  int g = lane >> 2, t = lane & 3;
  double d0 = C[(m0 + g) * N + n0 + 2 * t], d1 = C[(m0 + g) * N + n0 + 2 * t + 1];
  for (int k0 = 0; k0 < K; k0 += 4) {
    double a = A[(m0 + g) * K + k0 + t], b = Bt[(n0 + g) * K + k0 + t];
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
                 : "+d"(d0), "+d"(d1) : "d"(a), "d"(b));
  }
  C[(m0 + g) * N + n0 + 2 * t] = d0;
  C[(m0 + g) * N + n0 + 2 * t + 1] = d1;
}

// m8n8k4 .f16 (the Volta shape): each quadpair (lanes 4q..4q+3 and 4q+16..4q+19) multiplies its
// own 8x4 A by its own 4x8 B; A .row (lane holds row i + 4h, k 0-3), B .col (lane holds column
// i + 4h, k 0-3), f32 C/D per the ISA's table (row (lane & 1) + (x & 2) + 4h, column
// (x & 4) + (lane & 2) + (x & 1)), with i = lane % 4, h = lane / 16. A: 4 x 8 x 4, Bt: 4 x 8 x 4,
// D: 4 x 8 x 8 (product q at index q).
extern "C" __global__ void mma_m8n8k4_f16(const __half* A, const __half* Bt, float* D) {
  int lane = threadIdx.x, q = (lane >> 2) & 3, i = lane & 3, h = lane >> 4;
  const __half* Aq = A + q * 32;
  const __half* Bq = Bt + q * 32;
  __half2 a01 = __halves2half2(Aq[(i + 4 * h) * 4 + 0], Aq[(i + 4 * h) * 4 + 1]);
  __half2 a23 = __halves2half2(Aq[(i + 4 * h) * 4 + 2], Aq[(i + 4 * h) * 4 + 3]);
  __half2 b01 = __halves2half2(Bq[(i + 4 * h) * 4 + 0], Bq[(i + 4 * h) * 4 + 1]);
  __half2 b23 = __halves2half2(Bq[(i + 4 * h) * 4 + 2], Bq[(i + 4 * h) * 4 + 3]);
  uint32_t a[2] = {*reinterpret_cast<uint32_t*>(&a01), *reinterpret_cast<uint32_t*>(&a23)};
  uint32_t b[2] = {*reinterpret_cast<uint32_t*>(&b01), *reinterpret_cast<uint32_t*>(&b23)};
  float d[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32 {%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9}, {%10,%11}, "
               "{%0,%1,%2,%3,%4,%5,%6,%7};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
               : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(b[1]));
  for (int x = 0; x < 8; ++x) {
    int row = (lane & 1) + (x & 2) + 4 * h, col = (x & 4) + (lane & 2) + (x & 1);
    D[q * 64 + row * 8 + col] = d[x];
  }
}

// m8n8k4 .f16 with A .col, B .row and .f16 accumulators: lane (i = lane % 4, h = lane / 16) of
// quadpair q holds A column i (rows 4h..4h+3), B row i (columns 4h..4h+3), and D row i + 4h
// (columns 0-7, four .f16x2 registers). A: 4 x 8 x 4 (row-major per product), Bt: 4 x 8 x 4
// (B transposed), D: 4 x 8 x 8 halves.
extern "C" __global__ void mma_m8n8k4_f16_colrow(const __half* A, const __half* Bt, __half* D) {
  int lane = threadIdx.x, q = (lane >> 2) & 3, i = lane & 3, h = lane >> 4;
  const __half* Aq = A + q * 32;          // A[m][k] at m * 4 + k
  const __half* Bq = Bt + q * 32;         // B[k][n] = Bt[n][k] at n * 4 + k
  __half2 a01 = __halves2half2(Aq[(4 * h + 0) * 4 + i], Aq[(4 * h + 1) * 4 + i]);
  __half2 a23 = __halves2half2(Aq[(4 * h + 2) * 4 + i], Aq[(4 * h + 3) * 4 + i]);
  __half2 b01 = __halves2half2(Bq[(4 * h + 0) * 4 + i], Bq[(4 * h + 1) * 4 + i]);
  __half2 b23 = __halves2half2(Bq[(4 * h + 2) * 4 + i], Bq[(4 * h + 3) * 4 + i]);
  uint32_t a[2] = {*reinterpret_cast<uint32_t*>(&a01), *reinterpret_cast<uint32_t*>(&a23)};
  uint32_t b[2] = {*reinterpret_cast<uint32_t*>(&b01), *reinterpret_cast<uint32_t*>(&b23)};
  uint32_t d[4] = {0, 0, 0, 0};
  asm volatile("mma.sync.aligned.m8n8k4.col.row.f16.f16.f16.f16 {%0,%1,%2,%3}, {%4,%5}, {%6,%7}, {%0,%1,%2,%3};\n"
               : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]) : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(b[1]));
  uint32_t* row = reinterpret_cast<uint32_t*>(D + q * 64 + (i + 4 * h) * 8);
  for (int x = 0; x < 4; ++x) row[x] = d[x];
}
