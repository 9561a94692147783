// Cluster multicast of a tensor copy as a kernel uses it to share an operand: y = A x, where
// every CTA of a 4-CTA cluster needs the whole vector x. Each CTA loads a quarter of x with a
// tensor copy multicast to the four CTAs (.multicast::cluster, ctaMask 0xF) and its own 16 rows
// of A with a plain tensor copy; both complete on the CTA's mbarrier, which expects the bytes of
// all of x plus its rows. Built for sm_90a (multicast). Cases: tests/kernels/cases_async.py.
//
// PTX ISA 9.0 references: [#data-movement-and-conversion-instructions-cp-async-bulk-tensor],
// [#parallel-synchronization-and-communication-instructions-mbarrier].
#include "sm90_common.cuh"

constexpr int MV_CLUSTER = 4, MV_K = 128, MV_ROWS = 16;

__global__ void __launch_bounds__(64) async_multicast_gemv(const __grid_constant__ CUtensorMap a_map,
    const __grid_constant__ CUtensorMap x_map, const float* a, const float* x, float* __restrict__ y)
{
  __shared__ alignas(128) float xs[MV_K];
  __shared__ alignas(128) float as[MV_ROWS * MV_K];
  __shared__ uint64_t bar;
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank();
  const int t = threadIdx.x;
  if (t == 0) {
    ptx::mbarrier_init(&bar, 1);
    ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
  }
  cluster.sync();                                   // every barrier exists before a multicast lands
  if (t == 0) {
    constexpr int slice = MV_K / MV_CLUSTER;
    (void)ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar,
                                         sizeof(xs) + sizeof(as));
    const int32_t xc[1] = {static_cast<int32_t>(rank) * slice};
    ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, &xs[rank * slice], &x_map, xc, &bar,
                              static_cast<uint16_t>((1u << MV_CLUSTER) - 1));
    const int32_t ac[2] = {0, static_cast<int32_t>(blockIdx.x) * MV_ROWS};
    ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, as, &a_map, ac, &bar);
  }
  mbar_wait_cluster(&bar, 0);
  if (t < MV_ROWS) {
    float acc = 0.0f;
    for (int k = 0; k < MV_K; ++k)
      acc += as[t * MV_K + k] * xs[k];
    y[blockIdx.x * MV_ROWS + t] = acc;
  }
  cluster.sync();                                   // no CTA leaves while peers may still write to it
}
