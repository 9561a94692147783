// Non-tensor bulk copies on sm_90 (cp.async.bulk, cp.reduce.async.bulk, cp.async.bulk.prefetch):
// global -> shared with mbarrier completion, shared -> global with bulk-group completion,
// shared::cta -> shared::cluster between the CTAs of a cluster, and element-wise reductions into
// global memory and into another CTA's shared memory.
// Built for sm_90. Cases: tests/kernels/cases_sm90.py.
//
// PTX ISA 9.0 [#data-movement-and-conversion-instructions-cp-async-bulk,
// #data-movement-and-conversion-instructions-cp-reduce-async-bulk]: sizes and addresses are
// multiples of 16 bytes; each element of a bulk reduction is an individual .relaxed.gpu operation.
// Shared memory written by ordinary stores is handed to the async proxy with
// fence.proxy.async.shared::cta before a bulk copy reads it [#memory-consistency-model-proxies].
#include "sm90_common.cuh"

// ---- bulk_roundtrip -------------------------------------------------------------------------------
// Prefetch a 1 KiB chunk to L2, copy it to shared memory (complete_tx on an mbarrier), transform it
// in place with ordinary loads and stores, and copy it back out with a bulk-group store.
constexpr int RT_ELEMS = 256;

__global__ void __launch_bounds__(128) bulk_roundtrip(const float* __restrict__ in, float* __restrict__ out)
{
  __shared__ alignas(128) float buf[RT_ELEMS];
  __shared__ uint64_t bar;
  const int t = threadIdx.x;
  const float* src = in + blockIdx.x * RT_ELEMS;
  if (t == 0) {
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" :: "l"(src), "r"(uint32_t(sizeof(buf))) : "memory");
    ptx::mbarrier_init(&bar, 1);
    ptx::fence_proxy_async(ptx::space_shared);
  }
  __syncthreads();
  if (t == 0) {
    (void)ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar, sizeof(buf));
    ptx::cp_async_bulk(ptx::space_cluster, ptx::space_global, buf, src, sizeof(buf), &bar);
  }
  mbar_wait(&bar, 0);
  for (int i = t; i < RT_ELEMS; i += blockDim.x)
    buf[i] = buf[i] * 2.0f + static_cast<float>(i);
  ptx::fence_proxy_async(ptx::space_shared);      // each writer hands its stores to the async proxy
  __syncthreads();
  if (t == 0) {
    ptx::cp_async_bulk(ptx::space_global, ptx::space_shared, out + blockIdx.x * RT_ELEMS, buf, sizeof(buf));
    ptx::cp_async_bulk_commit_group();
    ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>());   // buf may be released once read
  }
}

// ---- bulk_dsmem_exchange --------------------------------------------------------------------------
// Two CTAs per cluster (__cluster_dims__(2,1,1)) swap 256-byte buffers with
// cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes: the destination buffer and
// the mbarrier that counts the bytes both live in the peer CTA.
constexpr int XB_THREADS = 64;

__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(XB_THREADS)
bulk_dsmem_exchange(const int* __restrict__ in, int* __restrict__ out)
{
  __shared__ alignas(16) int send[XB_THREADS];
  __shared__ alignas(16) int recv[XB_THREADS];
  __shared__ uint64_t bar;
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank();
  const unsigned peer = rank ^ 1u;
  const int t = threadIdx.x;
  const int g = blockIdx.x * XB_THREADS + t;
  if (t == 0) {
    ptx::mbarrier_init(&bar, 1);
    ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
  }
  cluster.sync();                                 // both barriers exist before any copy targets them

  if (t == 0)
    (void)ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar, sizeof(recv));
  send[t] = in[g] * 3 + static_cast<int>(rank);
  ptx::fence_proxy_async(ptx::space_shared);
  __syncthreads();
  if (t == 0)
    ptx::cp_async_bulk(ptx::space_cluster, ptx::space_shared, cluster.map_shared_rank(recv, peer), send,
                       sizeof(send), cluster.map_shared_rank(&bar, peer));
  mbar_wait_cluster(&bar, 0);
  out[g] = recv[t];
  cluster.sync();                                 // our `send` stays alive until the peer has it
}

// ---- bulk_reduce_global ---------------------------------------------------------------------------
// Every CTA reduces its own 256-byte vectors into the same global accumulators with
// cp.reduce.async.bulk.global.shared::cta.bulk_group: add/min/max/inc/dec on 32-bit integers,
// and.b32, or/xor.b64, add.f32 and add.u64. All the results are independent of the order in which
// the CTAs' reductions land (inc and dec use the same bound in every CTA).
constexpr int RG_N32 = 64;         // 32-bit elements per vector
constexpr int RG_N64 = 32;         // 64-bit elements per vector

__global__ void __launch_bounds__(RG_N32) bulk_reduce_global(
    const uint32_t* __restrict__ in32, const uint64_t* __restrict__ in64, const float* __restrict__ inf,
    const uint32_t* __restrict__ bound, uint32_t* add_u32, int32_t* min_s32, uint32_t* max_u32, uint32_t* inc_u32,
    uint32_t* dec_u32, uint32_t* and_b32, uint64_t* or_b64, uint64_t* xor_b64, float* add_f32,
    uint64_t* add_u64)
{
  __shared__ alignas(16) uint32_t v32[RG_N32];
  __shared__ alignas(16) int32_t s32[RG_N32];
  __shared__ alignas(16) uint32_t lim[RG_N32];
  __shared__ alignas(16) float f32[RG_N32];
  __shared__ alignas(16) uint64_t v64[RG_N64];
  const int t = threadIdx.x;
  const int cta = blockIdx.x;
  v32[t] = in32[cta * RG_N32 + t];
  s32[t] = static_cast<int32_t>(in32[cta * RG_N32 + t]) - (1 << 30);
  lim[t] = bound[t];
  f32[t] = inf[cta * RG_N32 + t];
  if (t < RG_N64)
    v64[t] = in64[cta * RG_N64 + t];
  ptx::fence_proxy_async(ptx::space_shared);
  __syncthreads();
  if (t == 0) {
    using namespace ptx;
    cp_reduce_async_bulk(space_global, space_shared, op_add, add_u32, v32, sizeof(v32));
    cp_reduce_async_bulk(space_global, space_shared, op_min, min_s32, s32, sizeof(s32));
    cp_reduce_async_bulk(space_global, space_shared, op_max, max_u32, v32, sizeof(v32));
    cp_reduce_async_bulk(space_global, space_shared, op_inc, inc_u32, lim, sizeof(lim));
    cp_reduce_async_bulk(space_global, space_shared, op_dec, dec_u32, lim, sizeof(lim));
    cp_reduce_async_bulk(space_global, space_shared, op_and_op, and_b32, v32, sizeof(v32));
    cp_reduce_async_bulk(space_global, space_shared, op_or_op, or_b64, v64, sizeof(v64));
    cp_reduce_async_bulk(space_global, space_shared, op_xor_op, xor_b64, v64, sizeof(v64));
    cp_reduce_async_bulk(space_global, space_shared, op_add, add_f32, f32, sizeof(f32));
    cp_reduce_async_bulk(space_global, space_shared, op_add, add_u64, v64, sizeof(v64));
    cp_async_bulk_commit_group();
    cp_async_bulk_wait_group_read(n32_t<0>());
  }
}

// ---- bulk_reduce_dsmem ----------------------------------------------------------------------------
// Four CTAs per cluster reduce into rank 0's shared memory with
// cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes (add.u32 and
// min.s32); rank 0's barrier expects the bytes of all eight reductions, its own included.
constexpr int RD_THREADS = 64;
constexpr int RD_CLUSTER = 4;

__global__ void __cluster_dims__(RD_CLUSTER, 1, 1) __launch_bounds__(RD_THREADS)
bulk_reduce_dsmem(const uint32_t* __restrict__ in, const uint32_t* __restrict__ bias, uint32_t* __restrict__ sums,
                  int32_t* __restrict__ mins)
{
  __shared__ alignas(16) uint32_t part[RD_THREADS];
  __shared__ alignas(16) int32_t part_s[RD_THREADS];
  __shared__ alignas(16) uint32_t acc[RD_THREADS];
  __shared__ alignas(16) int32_t acc_min[RD_THREADS];
  __shared__ uint64_t bar;
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank();
  const unsigned cid = blockIdx.x / RD_CLUSTER;
  const int t = threadIdx.x;
  const int g = blockIdx.x * RD_THREADS + t;
  if (rank == 0) {
    acc[t] = bias[cid * RD_THREADS + t];
    acc_min[t] = 1 << 20;
    if (t == 0) {
      ptx::mbarrier_init(&bar, 1);
      ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
    }
  }
  part[t] = in[g];
  part_s[t] = static_cast<int32_t>(in[g] % 2000u) - 1000;
  ptx::fence_proxy_async(ptx::space_shared);      // acc, part, part_s are read by the async proxy
  cluster.sync();

  if (t == 0) {
    using namespace ptx;
    if (rank == 0)
      (void)mbarrier_arrive_expect_tx(sem_release, scope_cluster, space_shared, &bar, 2 * RD_CLUSTER * sizeof(part));
    uint64_t* remote_bar = cluster.map_shared_rank(&bar, 0);
    cp_reduce_async_bulk(space_cluster, space_shared, op_add, cluster.map_shared_rank(acc, 0), part, sizeof(part),
                         remote_bar);
    cp_reduce_async_bulk(space_cluster, space_shared, op_min, cluster.map_shared_rank(acc_min, 0), part_s,
                         sizeof(part_s), remote_bar);
  }
  if (rank == 0) {
    mbar_wait_cluster(&bar, 0);
    sums[cid * RD_THREADS + t] = acc[t];
    mins[cid * RD_THREADS + t] = acc_min[t];
  }
  cluster.sync();                                 // sources stay alive until rank 0 has everything
}
