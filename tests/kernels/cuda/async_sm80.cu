// Asynchronous copies of sm_80 as real code writes them: cp.async through the pipeline
// primitives (__pipeline_memcpy_async / __pipeline_commit / __pipeline_wait_prior), cp.async
// forms written as inline PTX (cp-size 4/8/16, src-size zero fill, the ignore-src predicate, L2
// prefetch sizes and cache hints), and cuda::memcpy_async completing on a cuda::barrier (an
// mbarrier fed by cp.async.mbarrier.arrive). Built for sm_80 and sm_90.
//
// PTX ISA 9.0 references: [#data-movement-and-conversion-instructions-cp-async],
// [#data-movement-and-conversion-instructions-cp-async-commit-group],
// [#data-movement-and-conversion-instructions-cp-async-wait-group],
// [#parallel-synchronization-and-communication-instructions-cp-async-mbarrier-arrive],
// [#parallel-synchronization-and-communication-instructions-mbarrier].
//
// Two kernels here break the rules on purpose, to pin the emulator's documented policy for
// asynchronous copies (docs/async-copies.md): async_wait_too_few reads the newest stage after
// cp.async.wait_group 1 (only the older stage is guaranteed), async_no_wait never waits at all.
// On hardware their results are races; the emulator's answers are deterministic.
#include <cstdint>
#include <cuda_pipeline_primitives.h>
#include <cuda/barrier>
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

// ---- async_gemm: C = A * B, 16x16 tiles, double-buffered cp.async -----------------------------
// Each K step prefetches the next pair of tiles while multiplying the current one:
// __pipeline_wait_prior(1) lets the newest group stay in flight. Inputs are small integers, so
// every summation order gives the same float.
constexpr int TILE = 16;

__global__ void __launch_bounds__(256) async_gemm(const float* __restrict__ A, const float* __restrict__ B,
                                                 float* __restrict__ C, int n, int k)
{
  __shared__ alignas(16) float As[2][TILE][TILE];
  __shared__ alignas(16) float Bs[2][TILE][TILE];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int tid = ty * TILE + tx;
  auto load = [&](int stage, int k0) {
    // 64 threads copy A's tile, 64 B's: 16 bytes (4 floats) each
    if (tid < 64) {
      const int r = tid / 4, c = (tid % 4) * 4;
      __pipeline_memcpy_async(&As[stage][r][c], &A[(blockIdx.y * TILE + r) * k + k0 + c], 16);
    } else if (tid < 128) {
      const int r = (tid - 64) / 4, c = ((tid - 64) % 4) * 4;
      __pipeline_memcpy_async(&Bs[stage][r][c], &B[(k0 + r) * n + blockIdx.x * TILE + c], 16);
    }
    __pipeline_commit();
  };
  float acc = 0.0f;
  const int steps = k / TILE;
  load(0, 0);
  for (int s = 0; s < steps; ++s) {
    if (s + 1 < steps) {
      load((s + 1) & 1, (s + 1) * TILE);
      __pipeline_wait_prior(1);
    } else {
      __pipeline_wait_prior(0);
    }
    __syncthreads();
    const int st = s & 1;
#pragma unroll
    for (int i = 0; i < TILE; ++i)
      acc += As[st][ty][i] * Bs[st][i][tx];
    __syncthreads();
  }
  C[(blockIdx.y * TILE + ty) * n + blockIdx.x * TILE + tx] = acc;
}

// ---- async_zfill: ragged rows, cp.async with src-size --------------------------------------------
// Row r of `src` has lens[r] valid ints out of 8; each half row is one 16-byte cp.async whose
// src-size is the valid bytes in it, so shared memory holds zeros past the end. Threads then
// read their neighbour's row.
__global__ void __launch_bounds__(32) async_zfill(const int* __restrict__ src, const int* __restrict__ lens,
                                                 int* __restrict__ out)
{
  __shared__ alignas(16) int rows[32][8];
  const int r = threadIdx.x;
  const int len = lens[r];
  for (int h = 0; h < 2; ++h) {
    const int valid = max(0, min(4, len - 4 * h)) * 4;
    __pipeline_memcpy_async(&rows[r][4 * h], &src[r * 8 + 4 * h], 16, 16 - valid);
  }
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();
  const int peer = (r + 1) % 32;
  for (int c = 0; c < 8; ++c)
    out[r * 8 + c] = rows[peer][c];
}

// ---- async_forms: the cp.async forms as inline PTX ----------------------------------------------
// Per thread: a 4-byte .ca copy skipped by ignore-src on odd lanes (zeros), an 8-byte .ca with a
// 64-byte L2 prefetch, and a 16-byte .cg with a 128-byte prefetch and src-size 12;
// cp.async.wait_all completes them.
__global__ void __launch_bounds__(64) async_forms(const uint32_t* __restrict__ src, uint32_t* __restrict__ out)
{
  __shared__ alignas(16) uint32_t s4[64];
  __shared__ alignas(16) uint32_t s8[64][2];
  __shared__ alignas(16) uint32_t s16[64][4];
  const int t = threadIdx.x;
  const uint32_t* g = src + t * 16;
  const uint32_t d4 = static_cast<uint32_t>(__cvta_generic_to_shared(&s4[t]));
  const uint32_t d8 = static_cast<uint32_t>(__cvta_generic_to_shared(&s8[t][0]));
  const uint32_t d16 = static_cast<uint32_t>(__cvta_generic_to_shared(&s16[t][0]));
  const int skip = t & 1;
  asm volatile(
      "{\n\t.reg .pred p;\n\t"
      "setp.ne.b32 p, %2, 0;\n\t"
      "cp.async.ca.shared.global [%0], [%1], 4, p;\n\t}"
      :: "r"(d4), "l"(g), "r"(skip) : "memory");
  asm volatile("cp.async.ca.shared.global.L2::64B [%0], [%1], 8;" :: "r"(d8), "l"(g + 2) : "memory");
  asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16, 12;" :: "r"(d16), "l"(g + 4) : "memory");
  asm volatile("cp.async.wait_all;" ::: "memory");
  uint32_t* o = out + t * 7;
  o[0] = s4[t];
  o[1] = s8[t][0];
  o[2] = s8[t][1];
  for (int i = 0; i < 4; ++i)
    o[3 + i] = s16[t][i];
}

// ---- async_cache_hint: cp.async with an L2 cache-eviction policy -----------------------------------
// A 16-byte .cg copy whose policy comes from createpolicy (evict_first for the whole access).
// Kept apart from async_forms: on an H200 (driver 580.159) the kernel that also held the other
// forms stopped with CUDA_ERROR_ILLEGAL_INSTRUCTION, while each form ran alone.
__global__ void __launch_bounds__(64) async_cache_hint(const uint32_t* __restrict__ src, uint32_t* __restrict__ out)
{
  __shared__ alignas(16) uint32_t s16[64][4];
  const int t = threadIdx.x;
  const uint32_t d = static_cast<uint32_t>(__cvta_generic_to_shared(&s16[t][0]));
  asm volatile(
      "{\n\t.reg .b64 policy;\n\t"
      "createpolicy.fractional.L2::evict_first.b64 policy, 1.0;\n\t"
      "cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, policy;\n\t}"
      :: "r"(d), "l"(src + t * 4 + 256) : "memory");
  asm volatile("cp.async.wait_all;" ::: "memory");
  for (int i = 0; i < 4; ++i)
    out[t * 4 + i] = s16[(t + 1) % 64][i];
}

// ---- async_barrier_sum: cuda::memcpy_async onto a cuda::barrier ---------------------------------
// The block streams `tiles` tiles of 256 ints through two shared buffers; each copy completes on
// the buffer's barrier (cp.async + cp.async.mbarrier.arrive), and each thread sums a permuted
// element of every tile.
__global__ void __launch_bounds__(128) async_barrier_sum(const int* __restrict__ in, int* __restrict__ out, int tiles)
{
  __shared__ alignas(16) int buf[2][256];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::barrier<cuda::thread_scope_block> bar[2];
  auto block = cg::this_thread_block();
  if (block.thread_rank() == 0) {
    init(&bar[0], block.size());
    init(&bar[1], block.size());
  }
  block.sync();
  const int* src = in + blockIdx.x * tiles * 256;
  cuda::memcpy_async(block, buf[0], src, sizeof(int) * 256, bar[0]);
  int sum = 0;
  for (int t = 0; t < tiles; ++t) {
    if (t + 1 < tiles)
      cuda::memcpy_async(block, buf[(t + 1) & 1], src + (t + 1) * 256, sizeof(int) * 256, bar[(t + 1) & 1]);
    bar[t & 1].arrive_and_wait();
    sum += buf[t & 1][(threadIdx.x * 7 + t) % 256] * (t + 1);
    block.sync();                       // every read of this buffer before it is refilled
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

// ---- async_wait_too_few: a pipeline bug, waiting for one group too few --------------------------
// Two groups are committed; cp.async.wait_group 1 only guarantees the first, yet the kernel
// reads both.
__global__ void __launch_bounds__(32) async_wait_too_few(const int4* __restrict__ src, int4* __restrict__ out)
{
  __shared__ int4 stage[2][32];
  const int t = threadIdx.x;
  stage[0][t] = make_int4(-1, -1, -1, -1);
  stage[1][t] = make_int4(-2, -2, -2, -2);
  __syncwarp();
  __pipeline_memcpy_async(&stage[0][t], &src[t], 16);
  __pipeline_commit();
  __pipeline_memcpy_async(&stage[1][t], &src[32 + t], 16);
  __pipeline_commit();
  __pipeline_wait_prior(1);
  __syncwarp();
  out[t] = stage[0][t];
  out[32 + t] = stage[1][t];
  __pipeline_wait_prior(0);
}

// ---- async_no_wait: a kernel that never waits for its copy --------------------------------------
__global__ void __launch_bounds__(32) async_no_wait(const int4* __restrict__ src, int4* __restrict__ out)
{
  __shared__ int4 stage[32];
  const int t = threadIdx.x;
  stage[t] = make_int4(7, 7, 7, 7);
  __syncwarp();
  __pipeline_memcpy_async(&stage[t], &src[t], 16);
  __pipeline_commit();
  __syncwarp();
  out[t] = stage[(t + 1) % 32];
}
