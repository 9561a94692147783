// Thread-block clusters on sm_90: distributed shared memory, the cluster barrier, the cluster
// special registers, elect.sync and programmatic dependent launch (griddepcontrol).
// Built for sm_90. Cases: tests/kernels/cases_sm90.py.
#include "sm90_common.cuh"

// ---- cluster_dsmem_sum ------------------------------------------------------------------------
// A compile-time cluster of 4 CTAs (`__cluster_dims__`: the PTX entry carries .explicitcluster and
// .reqnctapercluster 4, 1, 1, so a plain <<<grid, block>>> launch forms clusters of 4). Every CTA
// stages its 128 inputs in shared memory; after the cluster barrier each thread adds the element
// at its index from all CTAs of the cluster through distributed shared memory
// (cluster.map_shared_rank -> mapa, generic loads), and reads its right-hand neighbour's element in
// the next CTA with an explicit mapa.shared::cluster + ld.shared::cluster.
constexpr int DSUM_THREADS = 128;

__device__ __forceinline__ int load_remote(const int* local, unsigned rank)
{
  uint32_t remote;
  int v;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(smem_addr(local)), "r"(rank));
  asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(remote) : "memory");
  return v;
}

__global__ void __cluster_dims__(4, 1, 1) __launch_bounds__(DSUM_THREADS)
cluster_dsmem_sum(const int* __restrict__ in, int* __restrict__ sums, int* __restrict__ rotated,
                  unsigned* __restrict__ ids)
{
  __shared__ int tile[DSUM_THREADS];
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank();     // %cluster_ctarank
  const unsigned ranks = cluster.num_blocks();    // %cluster_nctarank
  const unsigned t = threadIdx.x;
  const unsigned g = blockIdx.x * DSUM_THREADS + t;
  tile[t] = in[g];

  // Split cluster barrier: arrive (release) publishes tile[], independent work runs before the
  // wait (acquire) [#parallel-synchronization-and-communication-instructions-barrier-cluster].
  ptx::barrier_cluster_arrive();
  if (t == 0) {
    ids[blockIdx.x * 4 + 0] = ptx::get_sreg_clusterid_x();
    ids[blockIdx.x * 4 + 1] = ptx::get_sreg_nclusterid_x();
    ids[blockIdx.x * 4 + 2] = rank;
    ids[blockIdx.x * 4 + 3] = ranks;
  }
  ptx::barrier_cluster_wait();

  int sum = 0;
  for (unsigned r = 0; r < ranks; ++r)
    sum += cluster.map_shared_rank(tile, r)[t];
  sums[g] = sum;
  rotated[g] = load_remote(&tile[(t + 1) % DSUM_THREADS], (rank + 1) % ranks);

  // No CTA may leave while another can still read its shared memory.
  cluster.sync();
}

// ---- cluster_ids_2d ---------------------------------------------------------------------------
// No cluster shape in the module: the launch supplies a 2x2 cluster (cudaLaunchKernelEx with
// cudaLaunchAttributeClusterDimension). Thread 0 of each CTA records the cluster special registers
// [#special-registers-clusterid ... -cluster-nctarank, -is-explicit-cluster]; every thread swaps
// its value with the CTA diagonally across the cluster (rank ^ 3) through DSMEM.
constexpr int IDS_THREADS = 32;
constexpr int IDS_FIELDS = 13;

__global__ void __launch_bounds__(IDS_THREADS) cluster_ids_2d(const int* __restrict__ in, int* __restrict__ swapped,
                                                              unsigned* __restrict__ ids)
{
  __shared__ int mine[IDS_THREADS];
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned t = threadIdx.y * blockDim.x + threadIdx.x;
  const unsigned cta = blockIdx.y * gridDim.x + blockIdx.x;
  mine[t] = in[cta * IDS_THREADS + t];
  if (t == 0) {
    unsigned* o = ids + cta * IDS_FIELDS;
    o[0] = ptx::get_sreg_clusterid_x();
    o[1] = ptx::get_sreg_clusterid_y();
    o[2] = ptx::get_sreg_nclusterid_x();
    o[3] = ptx::get_sreg_nclusterid_y();
    o[4] = ptx::get_sreg_cluster_ctaid_x();
    o[5] = ptx::get_sreg_cluster_ctaid_y();
    o[6] = ptx::get_sreg_cluster_nctaid_x();
    o[7] = ptx::get_sreg_cluster_nctaid_y();
    o[8] = ptx::get_sreg_cluster_ctarank();
    o[9] = ptx::get_sreg_cluster_nctarank();
    o[10] = ptx::get_sreg_is_explicit_cluster() ? 1u : 0u;
    o[11] = cluster.block_index().x + 10 * cluster.block_index().y;   // the same ids through cg
    o[12] = cluster.dim_blocks().x * cluster.dim_blocks().y;
  }
  cluster.sync();
  const unsigned peer = cluster.block_rank() ^ 3u;
  swapped[cta * IDS_THREADS + t] = cluster.map_shared_rank(mine, peer)[t];
  cluster.sync();
}
