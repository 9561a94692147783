// TMA, mbarrier transactions, bulk reductions and clusters of sm_90 as real kernels use them:
// a swizzled tile transpose per swizzle mode (TMA load, the swizzle undone by hand as CUTLASS's
// Swizzle<B,4,3> does, TMA store), a 1-D convolution through im2col loads, a warp-specialised
// producer/consumer ring with transaction counts, a shared-memory histogram reduced into global
// memory with cp.reduce.async.bulk, tensor copies of rank 1 and 5, and a __cluster_dims__
// kernel launched without a cluster. Built for sm_90. Cases: tests/kernels/cases_async.py.
//
// PTX ISA 9.0 references: [#tensor-swizzling-modes], [#tensor-im2col-mode],
// [#data-movement-and-conversion-instructions-cp-async-bulk-tensor],
// [#data-movement-and-conversion-instructions-cp-reduce-async-bulk],
// [#parallel-synchronization-and-communication-instructions-mbarrier], [#cluster-dimension-directives].
#include "sm90_common.cuh"

// ---- async_tma_transpose<SPAN>: load, unswizzle by hand, store transposed -------------------------
// The input tile is 16 rows of SPAN bytes (u32); a TMA load writes it in the map's swizzle, each
// thread reads element (r, c) at the swizzled byte offset (16-byte chunk c/4 of row r moved to
// chunk (c/4) ^ (row-of-128-bytes mod SPAN/16)), writes it transposed into a plain buffer, and a
// TMA store with an unswizzled map puts the transposed tile into the output.
template <int SPAN>
__device__ __forceinline__ uint32_t swizzled(uint32_t byte_offset)
{
  if constexpr (SPAN == 0) {
    return byte_offset;
  } else {
    constexpr uint32_t mask = SPAN / 16 - 1;
    return byte_offset ^ (((byte_offset >> 7) & mask) << 4);
  }
}

template <int SPAN, int COLS>
__device__ __forceinline__ void transpose_tile(const CUtensorMap* in_map, const CUtensorMap* out_map)
{
  constexpr int ROWS = 16;
  __shared__ alignas(1024) uint32_t tile[ROWS * COLS];
  __shared__ alignas(128) uint32_t tposed[COLS * ROWS];
  __shared__ uint64_t bar;
  const int t = threadIdx.x;
  if (t == 0) {
    ptx::mbarrier_init(&bar, 1);
    ptx::fence_proxy_async(ptx::space_shared);
  }
  __syncthreads();
  if (t == 0) {
    const int32_t at[2] = {static_cast<int32_t>(blockIdx.x) * COLS, static_cast<int32_t>(blockIdx.y) * ROWS};
    (void)ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar, sizeof(tile));
    ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, tile, in_map, at, &bar);
  }
  mbar_wait(&bar, 0);
  const char* raw = reinterpret_cast<const char*>(tile);
  for (int i = t; i < ROWS * COLS; i += blockDim.x) {
    const int r = i / COLS, c = i % COLS;
    const uint32_t v = *reinterpret_cast<const uint32_t*>(raw + swizzled<SPAN>((r * COLS + c) * 4));
    tposed[c * ROWS + r] = v;
  }
  ptx::fence_proxy_async(ptx::space_shared);       // generic-proxy writes before the TMA store reads
  __syncthreads();
  if (t == 0) {
    const int32_t at[2] = {static_cast<int32_t>(blockIdx.y) * ROWS, static_cast<int32_t>(blockIdx.x) * COLS};
    ptx::cp_async_bulk_tensor(ptx::space_global, ptx::space_shared, out_map, at, tposed);
    ptx::cp_async_bulk_commit_group();
    ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>());
  }
}

__global__ void __launch_bounds__(128) async_tma_transpose_none(const __grid_constant__ CUtensorMap in_map,
    const __grid_constant__ CUtensorMap out_map, const uint32_t* in, uint32_t* out)
{
  transpose_tile<0, 16>(&in_map, &out_map);
}
__global__ void __launch_bounds__(128) async_tma_transpose_32b(const __grid_constant__ CUtensorMap in_map,
    const __grid_constant__ CUtensorMap out_map, const uint32_t* in, uint32_t* out)
{
  transpose_tile<32, 8>(&in_map, &out_map);
}
__global__ void __launch_bounds__(128) async_tma_transpose_64b(const __grid_constant__ CUtensorMap in_map,
    const __grid_constant__ CUtensorMap out_map, const uint32_t* in, uint32_t* out)
{
  transpose_tile<64, 16>(&in_map, &out_map);
}
__global__ void __launch_bounds__(128) async_tma_transpose_128b(const __grid_constant__ CUtensorMap in_map,
    const __grid_constant__ CUtensorMap out_map, const uint32_t* in, uint32_t* out)
{
  transpose_tile<128, 32>(&in_map, &out_map);
}

// ---- async_im2col_conv1d: a 3-tap 1-D convolution over NWC images through im2col loads ----------
// The map's bounding box is [-1, W-2] in W (lower corner -1, upper corner -1): the filter-base
// positions of a padded 3-tap convolution. Each CTA computes 8 consecutive output pixels (they
// run from one image into the next) for 4 output channels: for each tap, an im2col load with W
// offset = tap fetches the 8 input pixels x 16 channels the tap reads, zeros in the padding.
constexpr int CV_PIXELS = 8, CV_CIN = 16, CV_COUT = 4, CV_TAPS = 3;

__global__ void __launch_bounds__(32) async_im2col_conv1d(const __grid_constant__ CUtensorMap map,
    const float* image, const float* __restrict__ weight, float* __restrict__ out, int width)
{
  __shared__ alignas(128) float cols[CV_PIXELS * CV_CIN];
  __shared__ uint64_t bar;
  const int t = threadIdx.x;
  const int first = blockIdx.x * CV_PIXELS;        // first output pixel (n * width + w)
  if (t == 0) {
    ptx::mbarrier_init(&bar, 1);
    ptx::fence_proxy_async(ptx::space_shared);
  }
  __syncthreads();
  const int p = t / CV_COUT, oc = t % CV_COUT;      // 32 threads: 8 pixels x 4 output channels
  float acc = 0.0f;
  for (int tap = 0; tap < CV_TAPS; ++tap) {
    if (t == 0) {
      const int n = first / width, w = first % width - 1;   // filter base in the bounding box
      const uint16_t off = static_cast<uint16_t>(tap);
      (void)ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar, sizeof(cols));
      asm volatile(
          "cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes"
          " [%0], [%1, {%2, %3, %4}], [%5], {%6};"
          :: "r"(smem_addr(cols)), "l"(&map), "r"(0), "r"(w), "r"(n), "r"(smem_addr(&bar)), "h"(off)
          : "memory");
    }
    mbar_wait(&bar, tap & 1);
    for (int c = 0; c < CV_CIN; ++c)
      acc += cols[p * CV_CIN + c] * weight[(tap * CV_CIN + c) * CV_COUT + oc];
    __syncthreads();                                  // all reads of cols before the next load
  }
  out[(first + p) * CV_COUT + oc] = acc;
}

// ---- async_ws_ring: a warp-specialised producer/consumer ring with transaction counts -----------
// Warp 0 is the producer: one elected lane streams TILES tiles (8 rows x 32 floats) of a matrix
// through a STAGES-deep ring with TMA loads, each completing on the stage's `full` barrier
// (expect_tx of the tile's bytes). Warps 1-4 consume: every thread accumulates two elements of
// each tile, weighted by the tile number, then its lane 0 arrives on the stage's `empty` barrier
// (4 arrivals) so the producer may refill it.
constexpr int WS_STAGES = 3, WS_TILES = 12, WS_ROWS = 8, WS_COLS = 32;

__global__ void __launch_bounds__(160) async_ws_ring(const __grid_constant__ CUtensorMap map, const float* matrix,
                                                    float* __restrict__ out)
{
  __shared__ alignas(128) float ring[WS_STAGES][WS_ROWS * WS_COLS];
  __shared__ uint64_t full[WS_STAGES], empty[WS_STAGES];
  const int t = threadIdx.x, warp = t / 32;
  if (t == 0) {
    for (int s = 0; s < WS_STAGES; ++s) {
      ptx::mbarrier_init(&full[s], 1);
      ptx::mbarrier_init(&empty[s], 4);
    }
    ptx::fence_proxy_async(ptx::space_shared);
  }
  __syncthreads();
  if (warp == 0) {
    if (elect_one()) {
      for (int k = 0; k < WS_TILES; ++k) {
        const int s = k % WS_STAGES, round = k / WS_STAGES;
        if (round > 0)
          mbar_wait(&empty[s], (round - 1) & 1);       // consumers released this stage
        const int32_t at[2] = {0, (static_cast<int32_t>(blockIdx.x) * WS_TILES + k) * WS_ROWS};
        (void)ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &full[s],
                                             sizeof(ring[s]));
        ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, ring[s], &map, at, &full[s]);
      }
    }
    __syncwarp();
    return;
  }
  const int c = t - 32;                               // 0..127
  float acc = 0.0f;
  for (int k = 0; k < WS_TILES; ++k) {
    const int s = k % WS_STAGES;
    mbar_wait(&full[s], (k / WS_STAGES) & 1);
    acc += (ring[s][c] + 2.0f * ring[s][c + 128]) * static_cast<float>(k + 1);
    __syncwarp();
    if ((t & 31) == 0)
      (void)ptx::mbarrier_arrive(&empty[s]);
  }
  out[blockIdx.x * 128 + c] = acc;
}

// ---- async_histogram: shared-memory histograms reduced into global memory -----------------------
// Every CTA counts its slice of `values` into 256 shared bins and keeps each bin's largest value,
// then one thread adds the counts into `hist` (cp.reduce.async.bulk ... .add.u32) and folds the
// maxima into `top` (.max.u32) with bulk reductions; all CTAs reduce into the same buffers.
constexpr int HIST_BINS = 256;

__global__ void __launch_bounds__(256) async_histogram(const uint32_t* __restrict__ values, int per_cta,
                                                      uint32_t* hist, uint32_t* top)
{
  __shared__ alignas(128) uint32_t bins[HIST_BINS];
  __shared__ alignas(128) uint32_t high[HIST_BINS];
  const int t = threadIdx.x;
  bins[t] = 0;
  high[t] = 0;
  __syncthreads();
  for (int i = t; i < per_cta; i += blockDim.x) {
    const uint32_t v = values[blockIdx.x * per_cta + i];
    atomicAdd(&bins[v & 255], 1u);
    atomicMax(&high[v & 255], v);
  }
  ptx::fence_proxy_async(ptx::space_shared);
  __syncthreads();
  if (t == 0) {
    ptx::cp_reduce_async_bulk(ptx::space_global, ptx::space_shared, ptx::op_add, hist, bins, sizeof(bins));
    ptx::cp_reduce_async_bulk(ptx::space_global, ptx::space_shared, ptx::op_max, top, high, sizeof(high));
    ptx::cp_async_bulk_commit_group();
    ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>());
  }
}

// ---- async_tma_rank15: tensor copies of rank 1 and rank 5 ---------------------------------------
// A 1-D box of 32 floats and a 5-D box (2 x 2 x 2 x 2 x 4 floats) at coordinates from `at`,
// some running past the tensor (zeros), written out.
__global__ void __launch_bounds__(32) async_tma_rank15(const __grid_constant__ CUtensorMap map1,
    const __grid_constant__ CUtensorMap map5, const float* t1, const float* t5, const int32_t* __restrict__ at,
    float* __restrict__ out)
{
  __shared__ alignas(128) float box1[32];
  __shared__ alignas(128) float box5[64];
  __shared__ uint64_t bar;
  const int t = threadIdx.x;
  const int32_t* c = at + blockIdx.x * 6;
  if (t == 0) {
    ptx::mbarrier_init(&bar, 1);
    ptx::fence_proxy_async(ptx::space_shared);
    (void)ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar,
                                         sizeof(box1) + sizeof(box5));
    const int32_t c1[1] = {c[0]};
    const int32_t c5[5] = {c[1], c[2], c[3], c[4], c[5]};
    ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, box1, &map1, c1, &bar);
    ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, box5, &map5, c5, &bar);
  }
  __syncthreads();
  mbar_wait(&bar, 0);
  out[blockIdx.x * 96 + t] = box1[t];
  out[blockIdx.x * 96 + 32 + t] = box5[t];
  out[blockIdx.x * 96 + 64 + t] = box5[32 + t];
}

// ---- async_cluster_dims: __cluster_dims__ honoured by a launch that gives no cluster ----------
// 2x2 CTAs per cluster: every CTA sums its 64 inputs into shared memory; after cluster.sync()
// rank 0 reads the four partial sums through distributed shared memory and writes the cluster's
// total; each CTA also records its rank and cluster size.
__global__ void __cluster_dims__(2, 2, 1) __launch_bounds__(64) async_cluster_dims(const int* __restrict__ in,
                                                                                  int* __restrict__ totals,
                                                                                  uint32_t* __restrict__ ids)
{
  __shared__ int partial;
  cg::cluster_group cluster = cg::this_cluster();
  const int t = threadIdx.x;
  const int cta = blockIdx.y * gridDim.x + blockIdx.x;
  if (t == 0) partial = 0;
  __syncthreads();
  atomicAdd(&partial, in[cta * 64 + t]);
  cluster.sync();
  const unsigned rank = cluster.block_rank();
  if (t == 0) {
    ids[cta * 2] = rank;
    ids[cta * 2 + 1] = cluster.num_blocks();
    if (rank == 0) {
      int sum = 0;
      for (unsigned r = 0; r < cluster.num_blocks(); ++r)
        sum += *cluster.map_shared_rank(&partial, r);
      const unsigned cx = blockIdx.x / 2, cy = blockIdx.y / 2;
      totals[cy * (gridDim.x / 2) + cx] = sum;
    }
  }
  cluster.sync();                                      // peers keep their shared memory until read
}
