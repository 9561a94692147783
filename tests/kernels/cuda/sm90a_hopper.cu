// Architecture-specific sm_90a features outside wgmma: cluster multicast of bulk and tensor copies,
// tensormap.replace on a tensor map copied to shared memory, and setmaxnreg in a warp-specialised
// producer/consumer kernel. Built for sm_90a only. Kernels taking a tensor map also take a plain
// pointer to the tensor it describes (see sm90_tma.cu). Cases: tests/kernels/cases_sm90.py.
#include "sm90_common.cuh"

// ---- bulk_multicast -------------------------------------------------------------------------------
// Four CTAs per cluster each fetch a quarter of a 1 KiB block and multicast it to all four
// (.multicast::cluster, ctaMask 0xF): the data lands at the same shared-memory offset in every CTA
// of the mask and each destination's mbarrier at the same offset receives the complete_tx bytes
// [#data-movement-and-conversion-instructions-cp-async-bulk]. Every CTA thus expects 1 KiB.
constexpr int MC_CLUSTER = 4;
constexpr int MC_SLICE = 64;       // ints per CTA (256 bytes)

__global__ void __cluster_dims__(MC_CLUSTER, 1, 1) __launch_bounds__(64)
bulk_multicast(const int* __restrict__ in, int* __restrict__ out)
{
  __shared__ alignas(128) int all[MC_CLUSTER * MC_SLICE];
  __shared__ uint64_t bar;
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank();
  const unsigned cid = blockIdx.x / MC_CLUSTER;
  const int t = threadIdx.x;
  if (t == 0) {
    ptx::mbarrier_init(&bar, 1);
    ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
  }
  ptx::barrier_cluster_arrive(ptx::sem_relaxed);  // every barrier of the cluster is initialised
  ptx::barrier_cluster_wait();                    // before any multicast can signal it
  if (t == 0) {
    (void)ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar, sizeof(all));
    ptx::cp_async_bulk(ptx::space_cluster, ptx::space_global, &all[rank * MC_SLICE],
                       in + (cid * MC_CLUSTER + rank) * MC_SLICE, MC_SLICE * sizeof(int), &bar,
                       static_cast<uint16_t>((1u << MC_CLUSTER) - 1));
  }
  mbar_wait(&bar, 0);
  for (int i = t; i < MC_CLUSTER * MC_SLICE; i += blockDim.x)
    out[blockIdx.x * MC_CLUSTER * MC_SLICE + i] = all[i] + static_cast<int>(rank);
  cluster.sync();
}

// ---- tma_multicast --------------------------------------------------------------------------------
// No cluster shape in the module: launched with a 2x1x1 cluster. Each CTA loads half of a 16x32
// float tile (8 rows) with a tensor copy multicast to both CTAs (ctaMask 0b11), so both receive the
// whole tile and expect its 2 KiB on their own barrier.
constexpr int TM_ROWS = 16, TM_COLS = 32;

__global__ void __launch_bounds__(64) tma_multicast(const __grid_constant__ CUtensorMap map, const float* tensor,
                                                   float* __restrict__ out)
{
  __shared__ alignas(1024) float tile[TM_ROWS * TM_COLS];
  __shared__ uint64_t bar;
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank();
  const unsigned ncta = cluster.num_blocks();
  const unsigned cid = ptx::get_sreg_clusterid_x();
  const int t = threadIdx.x;
  if (t == 0) {
    asm volatile("prefetch.tensormap [%0];" :: "l"(&map) : "memory");
    ptx::mbarrier_init(&bar, 1);
    ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
  }
  cluster.sync();
  if (t == 0) {
    const int rows = TM_ROWS / ncta;
    const int32_t coords[2] = {static_cast<int32_t>(cid) * TM_COLS, static_cast<int32_t>(rank) * rows};
    (void)ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar, sizeof(tile));
    ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, &tile[rank * rows * TM_COLS], &map, coords, &bar,
                              static_cast<uint16_t>((1u << ncta) - 1));
  }
  mbar_wait(&bar, 0);
  for (int i = t; i < TM_ROWS * TM_COLS; i += blockDim.x)
    out[blockIdx.x * TM_ROWS * TM_COLS + i] = tile[i] + static_cast<float>(rank);
  cluster.sync();
}

// ---- tma_replace_address --------------------------------------------------------------------------
// The CUDA programming guide's pattern for changing a tensor map on the device: copy the
// __grid_constant__ template into shared memory, tensormap.replace its global address, copy it to
// global memory with tensormap.cp_fenceproxy (release, a warp-wide .sync.aligned operation), acquire
// it with fence.proxy.tensormap::generic and only then use it for a TMA load
// [#data-movement-and-conversion-instructions-tensormap-replace,
// #data-movement-and-conversion-instructions-tensormap-cp-fenceproxy, #parallel-synchronization-
// and-communication-instructions-membar]. The template points at `decoy`; the tile must come from
// `real`. `scratch` holds one 128-byte map per CTA.
constexpr int TR_X = 32, TR_Y = 8;

__global__ void __launch_bounds__(32) tma_replace_address(const __grid_constant__ CUtensorMap tmpl,
                                                         const float* __restrict__ decoy, const float* real,
                                                         CUtensorMap* scratch, float* __restrict__ out)
{
  __shared__ alignas(128) CUtensorMap smap;
  __shared__ alignas(128) float tile[TR_Y * TR_X];
  __shared__ uint64_t bar;
  (void)decoy;                                    // reached only through the template's address
  const int lane = threadIdx.x;
  CUtensorMap* gmap = scratch + blockIdx.x;
  if (lane == 0) {
    smap = tmpl;
    ptx::tensormap_replace_global_address(ptx::space_shared, &smap, real);
    ptx::mbarrier_init(&bar, 1);
    ptx::fence_proxy_async(ptx::space_shared);
  }
  __syncwarp();
  ptx::tensormap_cp_fenceproxy(ptx::sem_release, ptx::scope_gpu, gmap, &smap, ptx::n32_t<128>());
  if (lane == 0) {
    ptx::fence_proxy_tensormap_generic(ptx::sem_acquire, ptx::scope_gpu, gmap, ptx::n32_t<128>());
    const int32_t coords[2] = {0, static_cast<int32_t>(blockIdx.x) * TR_Y};
    (void)ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar, sizeof(tile));
    ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, tile, gmap, coords, &bar);
  }
  mbar_wait(&bar, 0);
  for (int i = lane; i < TR_Y * TR_X; i += 32)
    out[blockIdx.x * TR_Y * TR_X + i] = tile[i];
}

// ---- setmaxnreg_pipeline --------------------------------------------------------------------------
// Two warpgroups: the producer gives registers back (setmaxnreg.dec to 40) and streams chunks into
// a two-slot ring, the consumer takes more (setmaxnreg.inc to 232) and accumulates
// [#miscellaneous-instructions-setmaxnreg]. Both forms are .sync.aligned over a warpgroup, so the
// role is taken from the warp-uniform warpgroup index, as CUTLASS does.
constexpr int SP_CHUNKS = 5;
constexpr int SP_SLOT = 128;

__global__ void __launch_bounds__(256, 1) setmaxnreg_pipeline(const int* __restrict__ in, int* __restrict__ out,
                                                             int* __restrict__ totals)
{
  __shared__ int ring[2][SP_SLOT];
  __shared__ uint64_t full[2], empty[2];
  const int t = threadIdx.x;
  const int warpgroup = __shfl_sync(0xffffffffu, t / 128, 0);
  if (t == 0) {
    for (int s = 0; s < 2; ++s) {
      ptx::mbarrier_init(&full[s], SP_SLOT);
      ptx::mbarrier_init(&empty[s], SP_SLOT);
    }
  }
  __syncthreads();
  const int base = blockIdx.x * SP_CHUNKS * SP_SLOT;

  if (warpgroup == 0) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
    for (int c = 0; c < SP_CHUNKS; ++c) {
      const int s = c % 2;
      mbar_wait(&empty[s], ((c / 2) & 1) ^ 1);
      ring[s][t] = in[base + c * SP_SLOT + t];
      (void)ptx::mbarrier_arrive(&full[s]);
    }
  } else {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
    const int j = t - 128;
    int total = 0;
    for (int c = 0; c < SP_CHUNKS; ++c) {
      const int s = c % 2;
      mbar_wait(&full[s], (c / 2) & 1);
      const int v = ring[s][SP_SLOT - 1 - j];
      total += v * (c + 1);
      out[base + c * SP_SLOT + j] = v + c;
      (void)ptx::mbarrier_arrive(&empty[s]);
    }
    totals[blockIdx.x * SP_SLOT + j] = total;
  }
}
