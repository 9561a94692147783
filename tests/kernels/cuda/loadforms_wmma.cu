// wmma.load forms reached through nvcuda::wmma::load_matrix_sync: every fragment type, shape and
// layout, from global memory (one kernel each) and from shared memory (one kernel each).
// Each kernel loads one fragment and writes its elements out so the load is kept.
// sm_75 has f16, s8/u8, s4/u4 and b1; bf16, tf32 and f64 need sm_80.
#include <mma.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

using namespace nvcuda;
namespace wexp = nvcuda::wmma::experimental;

// Storage element type of a fragment's memory: what load_matrix_sync takes a pointer to.
template <typename T> struct Storage { using type = T; };
template <> struct Storage<wexp::precision::s4> { using type = void; };
template <> struct Storage<wexp::precision::u4> { using type = void; };
template <> struct Storage<wexp::precision::b1> { using type = void; };

template <typename Frag, typename Elem>
__device__ void write_fragment(const Frag& f, Elem* out)
{
  for (int i = 0; i < f.num_elements; ++i) out[threadIdx.x * f.num_elements + i] = f.x[i];
}

// Matrix A / B fragment, global memory.
#define AB_GLOBAL(NAME, USE, M, N, K, T, LAYOUT)                                                   \
  extern "C" __global__ void NAME(const Storage<T>::type* src, unsigned ld,                       \
                                  wmma::fragment<USE, M, N, K, T, LAYOUT>::storage_element_type* out) \
  {                                                                                               \
    wmma::fragment<USE, M, N, K, T, LAYOUT> f;                                                    \
    wmma::load_matrix_sync(f, src, ld);                                                           \
    write_fragment(f, out);                                                                       \
  }

// Same from shared memory: the tile is first copied into a static shared buffer.
#define AB_SHARED(NAME, USE, M, N, K, T, LAYOUT, BYTES)                                            \
  extern "C" __global__ void NAME(const int4* src, unsigned ld,                                   \
                                  wmma::fragment<USE, M, N, K, T, LAYOUT>::storage_element_type* out) \
  {                                                                                               \
    __shared__ int4 tile[(BYTES + 15) / 16];                                                      \
    for (unsigned i = threadIdx.x; i < (BYTES + 15) / 16; i += 32) tile[i] = src[i];              \
    __syncwarp();                                                                                 \
    wmma::fragment<USE, M, N, K, T, LAYOUT> f;                                                    \
    wmma::load_matrix_sync(f, reinterpret_cast<const Storage<T>::type*>(tile), ld);               \
    write_fragment(f, out);                                                                       \
  }

// Accumulator fragment, layout chosen at run time by the caller (wmma::layout_t).
#define ACC_GLOBAL(NAME, M, N, K, T)                                                                \
  extern "C" __global__ void NAME(const T* src, unsigned ld, int col_major, T* out)                \
  {                                                                                                \
    wmma::fragment<wmma::accumulator, M, N, K, T> f;                                               \
    wmma::load_matrix_sync(f, src, ld, col_major ? wmma::mem_col_major : wmma::mem_row_major);     \
    write_fragment(f, out);                                                                        \
  }
#define ACC_SHARED(NAME, M, N, K, T)                                                                \
  extern "C" __global__ void NAME(const T* src, unsigned ld, int col_major, T* out)                \
  {                                                                                                \
    __shared__ T tile[M * N];                                                                      \
    for (unsigned i = threadIdx.x; i < M * N; i += 32) tile[i] = src[i];                           \
    __syncwarp();                                                                                  \
    wmma::fragment<wmma::accumulator, M, N, K, T> f;                                               \
    wmma::load_matrix_sync(f, tile, ld, col_major ? wmma::mem_col_major : wmma::mem_row_major);    \
    write_fragment(f, out);                                                                        \
  }

// A and B in both layouts, plus both accumulator types where the family has them.
#define AB_BOTH_LAYOUTS(TAG, M, N, K, T, ABYTES, BBYTES)                                           \
  AB_GLOBAL(wmma_a_row_##TAG, wmma::matrix_a, M, N, K, T, wmma::row_major)                         \
  AB_GLOBAL(wmma_a_col_##TAG, wmma::matrix_a, M, N, K, T, wmma::col_major)                         \
  AB_GLOBAL(wmma_b_row_##TAG, wmma::matrix_b, M, N, K, T, wmma::row_major)                         \
  AB_GLOBAL(wmma_b_col_##TAG, wmma::matrix_b, M, N, K, T, wmma::col_major)                         \
  AB_SHARED(wmma_shared_a_row_##TAG, wmma::matrix_a, M, N, K, T, wmma::row_major, ABYTES)          \
  AB_SHARED(wmma_shared_a_col_##TAG, wmma::matrix_a, M, N, K, T, wmma::col_major, ABYTES)          \
  AB_SHARED(wmma_shared_b_row_##TAG, wmma::matrix_b, M, N, K, T, wmma::row_major, BBYTES)          \
  AB_SHARED(wmma_shared_b_col_##TAG, wmma::matrix_b, M, N, K, T, wmma::col_major, BBYTES)

// ---- sm_70+ families (built for sm_75 and up) --------------------------------------------------
#define F16_SHAPE(TAG, M, N, K)                                                                    \
  AB_BOTH_LAYOUTS(f16_##TAG, M, N, K, __half, M * K * 2, K * N * 2)                               \
  ACC_GLOBAL(wmma_c_f32_##TAG, M, N, K, float)                                                     \
  ACC_GLOBAL(wmma_c_f16_##TAG, M, N, K, __half)                                                    \
  ACC_SHARED(wmma_shared_c_f32_##TAG, M, N, K, float)                                              \
  ACC_SHARED(wmma_shared_c_f16_##TAG, M, N, K, __half)

F16_SHAPE(m16n16k16, 16, 16, 16)
F16_SHAPE(m32n8k16, 32, 8, 16)
F16_SHAPE(m8n32k16, 8, 32, 16)

#define INT8_SHAPE(TAG, M, N, K)                                                                   \
  AB_BOTH_LAYOUTS(s8_##TAG, M, N, K, signed char, M * K, K * N)                                    \
  AB_BOTH_LAYOUTS(u8_##TAG, M, N, K, unsigned char, M * K, K * N)                                  \
  ACC_GLOBAL(wmma_c_s32_##TAG, M, N, K, int)                                                       \
  ACC_SHARED(wmma_shared_c_s32_##TAG, M, N, K, int)

INT8_SHAPE(m16n16k16, 16, 16, 16)
INT8_SHAPE(m32n8k16, 32, 8, 16)
INT8_SHAPE(m8n32k16, 8, 32, 16)

// Sub-byte and single-bit: A is row-major only, B column-major only.
#define SUBBYTE(TAG, K, T, BYTES)                                                                  \
  AB_GLOBAL(wmma_a_row_##TAG, wmma::matrix_a, 8, 8, K, T, wmma::row_major)                         \
  AB_GLOBAL(wmma_b_col_##TAG, wmma::matrix_b, 8, 8, K, T, wmma::col_major)                         \
  AB_SHARED(wmma_shared_a_row_##TAG, wmma::matrix_a, 8, 8, K, T, wmma::row_major, BYTES)           \
  AB_SHARED(wmma_shared_b_col_##TAG, wmma::matrix_b, 8, 8, K, T, wmma::col_major, BYTES)

SUBBYTE(s4_m8n8k32, 32, wexp::precision::s4, 8 * 32 / 2)
SUBBYTE(u4_m8n8k32, 32, wexp::precision::u4, 8 * 32 / 2)
SUBBYTE(b1_m8n8k128, 128, wexp::precision::b1, 8 * 128 / 8)
ACC_GLOBAL(wmma_c_s32_m8n8k32, 8, 8, 32, int)
ACC_GLOBAL(wmma_c_s32_m8n8k128, 8, 8, 128, int)
ACC_SHARED(wmma_shared_c_s32_m8n8k32, 8, 8, 32, int)
ACC_SHARED(wmma_shared_c_s32_m8n8k128, 8, 8, 128, int)

// ---- sm_80+ families -----------------------------------------------------------------------------
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
template <> struct Storage<wmma::precision::tf32> { using type = float; };

#define BF16_SHAPE(TAG, M, N, K)                                                                   \
  AB_BOTH_LAYOUTS(bf16_##TAG, M, N, K, __nv_bfloat16, M * K * 2, K * N * 2)

BF16_SHAPE(m16n16k16, 16, 16, 16)
BF16_SHAPE(m32n8k16, 32, 8, 16)
BF16_SHAPE(m8n32k16, 8, 32, 16)

AB_BOTH_LAYOUTS(tf32_m16n16k8, 16, 16, 8, wmma::precision::tf32, 16 * 8 * 4, 8 * 16 * 4)
ACC_GLOBAL(wmma_c_f32_m16n16k8, 16, 16, 8, float)
ACC_SHARED(wmma_shared_c_f32_m16n16k8, 16, 16, 8, float)

AB_BOTH_LAYOUTS(f64_m8n8k4, 8, 8, 4, double, 8 * 4 * 8, 4 * 8 * 8)
ACC_GLOBAL(wmma_c_f64_m8n8k4, 8, 8, 4, double)
ACC_SHARED(wmma_shared_c_f64_m8n8k4, 8, 8, 4, double)
#endif
