// WMMA GEMM kernels: D = A * B (+ C), one warp per M x N output tile, looping over K.
// Matrix storage (lda etc. in elements):
//   A (m x k): row-major lda = k, col-major lda = m;  B (k x n): row-major ldb = n, col-major ldb = k
//   C (m x n): c_mode 0 = no C (zero), 1 = row-major ldc = n, 2 = col-major ldc = m
//   D (m x n): row-major ldd = n unless the kernel name ends in _dcol (col-major, ldd = m)
// Sub-byte types (s4/u4/b1) are packed, element 0 in the least significant bits; A is row-major
// and B col-major (the only layouts the hardware has), so k runs along memory for both.
#include <mma.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

using namespace nvcuda;
namespace wexp = nvcuda::wmma::experimental;

template <typename T> struct Bits { static constexpr int value = 8 * sizeof(T); };
template <> struct Bits<wmma::precision::tf32> { static constexpr int value = 32; };
template <> struct Bits<wexp::precision::s4> { static constexpr int value = 4; };
template <> struct Bits<wexp::precision::u4> { static constexpr int value = 4; };
template <> struct Bits<wexp::precision::b1> { static constexpr int value = 1; };

template <typename T> struct IsRow;
template <> struct IsRow<wmma::row_major> { static constexpr bool value = true; };
template <> struct IsRow<wmma::col_major> { static constexpr bool value = false; };

// Address of element `off` of a matrix of fragment type T (byte arithmetic covers sub-byte types).
template <typename T, typename S>
__device__ const S* elem_ptr(const S* base, long off)
{
  return reinterpret_cast<const S*>(reinterpret_cast<const char*>(base) + off * Bits<T>::value / 8);
}

template <typename FA, typename FB>
__device__ void to_tf32(FA& a, FB& b)
{
  for (int t = 0; t < a.num_elements; ++t) a.x[t] = wmma::__float_to_tf32(a.x[t]);
  for (int t = 0; t < b.num_elements; ++t) b.x[t] = wmma::__float_to_tf32(b.x[t]);
}

enum class Op { Mma, Tf32, BitXor, BitAnd };

template <int M, int N, int K, typename T, typename LA, typename LB, typename Acc, Op OP, bool DCOL,
          typename S>
__device__ void gemm(const S* A, const S* B, const Acc* C, Acc* D, int m, int n, int k, int c_mode)
{
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  int tiles_n = n / N;
  int tm = warp / tiles_n, tn = warp % tiles_n;
  if (tm >= m / M) return;  // warp-uniform
  int row0 = tm * M, col0 = tn * N;

  wmma::fragment<wmma::accumulator, M, N, K, Acc> acc;
  if (c_mode == 1)
    wmma::load_matrix_sync(acc, C + row0 * n + col0, n, wmma::mem_row_major);
  else if (c_mode == 2)
    wmma::load_matrix_sync(acc, C + col0 * m + row0, m, wmma::mem_col_major);
  else
    wmma::fill_fragment(acc, Acc(0));

  for (int kk = 0; kk < k; kk += K) {
    wmma::fragment<wmma::matrix_a, M, N, K, T, LA> a;
    wmma::fragment<wmma::matrix_b, M, N, K, T, LB> b;
    if (IsRow<LA>::value) wmma::load_matrix_sync(a, elem_ptr<T>(A, (long)row0 * k + kk), k);
    else wmma::load_matrix_sync(a, elem_ptr<T>(A, (long)kk * m + row0), m);
    if (IsRow<LB>::value) wmma::load_matrix_sync(b, elem_ptr<T>(B, (long)kk * n + col0), n);
    else wmma::load_matrix_sync(b, elem_ptr<T>(B, (long)col0 * k + kk), k);
    if constexpr (OP == Op::Tf32) to_tf32(a, b);
    if constexpr (OP == Op::BitXor) wmma::bmma_sync(acc, a, b, acc, wexp::bmmaBitOpXOR);
    else if constexpr (OP == Op::BitAnd) wmma::bmma_sync(acc, a, b, acc, wexp::bmmaBitOpAND);
    else wmma::mma_sync(acc, a, b, acc);
  }
  if (DCOL) wmma::store_matrix_sync(D + col0 * m + row0, acc, m, wmma::mem_col_major);
  else wmma::store_matrix_sync(D + row0 * n + col0, acc, n, wmma::mem_row_major);
}

#define ROW wmma::row_major
#define COL wmma::col_major

// NAME, shape, fragment type, A/B layouts, storage type of A/B, accumulator type, op, D col-major?
#define GEMM(NAME, M, N, K, T, LA, LB, S, ACC, OP, DCOL)                                            \
  __global__ void NAME(const S* A, const S* B, const ACC* C, ACC* D, int m, int n, int k, int c_mode) \
  {                                                                                                \
    gemm<M, N, K, T, LA, LB, ACC, Op::OP, DCOL>(A, B, C, D, m, n, k, c_mode);                      \
  }

// f16 inputs, f32 accumulate: every shape, every A/B layout pair across the set.
GEMM(wmma_f16_f32_m16n16k16_rr, 16, 16, 16, __half, ROW, ROW, __half, float, Mma, false)
GEMM(wmma_f16_f32_m16n16k16_cc, 16, 16, 16, __half, COL, COL, __half, float, Mma, false)
GEMM(wmma_f16_f32_m32n8k16_rc, 32, 8, 16, __half, ROW, COL, __half, float, Mma, false)
GEMM(wmma_f16_f32_m8n32k16_cr, 8, 32, 16, __half, COL, ROW, __half, float, Mma, true)
// f16 inputs, f16 accumulate: every shape.
GEMM(wmma_f16_f16_m16n16k16_rc, 16, 16, 16, __half, ROW, COL, __half, __half, Mma, false)
GEMM(wmma_f16_f16_m32n8k16_rr, 32, 8, 16, __half, ROW, ROW, __half, __half, Mma, false)
GEMM(wmma_f16_f16_m8n32k16_cc, 8, 32, 16, __half, COL, COL, __half, __half, Mma, true)
// bf16 inputs, f32 accumulate: every shape.
GEMM(wmma_bf16_f32_m16n16k16_rc, 16, 16, 16, __nv_bfloat16, ROW, COL, __nv_bfloat16, float, Mma, false)
GEMM(wmma_bf16_f32_m32n8k16_cr, 32, 8, 16, __nv_bfloat16, COL, ROW, __nv_bfloat16, float, Mma, false)
GEMM(wmma_bf16_f32_m8n32k16_rr, 8, 32, 16, __nv_bfloat16, ROW, ROW, __nv_bfloat16, float, Mma, false)
// tf32 inputs (float storage, converted with __float_to_tf32), f32 accumulate.
GEMM(wmma_tf32_f32_m16n16k8_rc, 16, 16, 8, wmma::precision::tf32, ROW, COL, float, float, Tf32, false)
GEMM(wmma_tf32_f32_m16n16k8_cr, 16, 16, 8, wmma::precision::tf32, COL, ROW, float, float, Tf32, false)
// 8-bit integers, s32 accumulate.
GEMM(wmma_s8_s32_m16n16k16_rr, 16, 16, 16, signed char, ROW, ROW, signed char, int, Mma, false)
GEMM(wmma_s8_s32_m32n8k16_cc, 32, 8, 16, signed char, COL, COL, signed char, int, Mma, false)
GEMM(wmma_u8_s32_m8n32k16_rc, 8, 32, 16, unsigned char, ROW, COL, unsigned char, int, Mma, false)
GEMM(wmma_u8_s32_m16n16k16_cr, 16, 16, 16, unsigned char, COL, ROW, unsigned char, int, Mma, false)
// f64.
GEMM(wmma_f64_m8n8k4_rr, 8, 8, 4, double, ROW, ROW, double, double, Mma, false)
GEMM(wmma_f64_m8n8k4_cc, 8, 8, 4, double, COL, COL, double, double, Mma, true)
// Sub-byte integers and single bits (experimental namespace), packed in 32-bit words.
GEMM(wmma_s4_s32_m8n8k32, 8, 8, 32, wexp::precision::s4, ROW, COL, unsigned, int, Mma, false)
GEMM(wmma_u4_s32_m8n8k32, 8, 8, 32, wexp::precision::u4, ROW, COL, unsigned, int, Mma, false)
GEMM(wmma_b1_xor_m8n8k128, 8, 8, 128, wexp::precision::b1, ROW, COL, unsigned, int, BitXor, false)
GEMM(wmma_b1_and_m8n8k128, 8, 8, 128, wexp::precision::b1, ROW, COL, unsigned, int, BitAnd, false)

// Shared-memory staged f16 GEMM: a block of 4 warps computes a 32x32 tile of D (2x2 warp tiles of
// 16x16); each k-step of 16 copies A (32x16, row-major) and B (16x32, row-major) into shared
// memory and the warps load their fragments from there. m, n multiples of 32; k of 16.
__global__ void wmma_f16_f32_shared_staged(const __half* A, const __half* B, float* D, int m, int n, int k)
{
  __shared__ __align__(32) __half sa[32 * 16];
  __shared__ __align__(32) __half sb[16 * 32];
  int warp = threadIdx.x / 32;
  int wr = warp / 2, wc = warp % 2;
  int row0 = blockIdx.y * 32, col0 = blockIdx.x * 32;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  for (int kk = 0; kk < k; kk += 16) {
    for (int t = threadIdx.x; t < 32 * 16; t += blockDim.x) {
      sa[t] = A[(row0 + t / 16) * k + kk + t % 16];
      sb[t] = B[(kk + t / 32) * n + col0 + t % 32];
    }
    __syncthreads();
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
    wmma::load_matrix_sync(a, sa + wr * 16 * 16, 16);
    wmma::load_matrix_sync(b, sb + wc * 16, 32);
    wmma::mma_sync(acc, a, b, acc);
    __syncthreads();
  }
  wmma::store_matrix_sync(D + (row0 + wr * 16) * n + col0 + wc * 16, acc, n, wmma::mem_row_major);
}
