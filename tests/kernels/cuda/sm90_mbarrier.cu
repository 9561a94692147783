// mbarrier objects on sm_90: phases and parity, arrival counts, arrive_drop, transaction counts
// (expect_tx / complete_tx / bulk copies), and remote arrivals from another CTA of the cluster.
// Built for sm_90. Cases: tests/kernels/cases_sm90.py.
//
// PTX ISA 9.0 [#parallel-synchronization-and-communication-instructions-mbarrier]: a phase
// completes when its pending arrival count reaches zero and its tx-count is zero; the next phase
// then starts with the expected arrival count, which arrive_drop lowers for the phases to come.
#include "sm90_common.cuh"

// ---- mbarrier_ring ------------------------------------------------------------------------------
// A two-slot ring between one producer warp and three consumer warps, with a `full` and an `empty`
// barrier per slot (the CUTLASS pipeline shape, with plain loads instead of TMA). Warp 3 stops
// after chunk 3: its last use of each slot is an arrive_drop, so the later phases of `empty`
// expect 64 arrivals instead of 96 and the producer keeps going.
constexpr int RING_CHUNKS = 6;
constexpr int RING_SLOT = 96;      // one element per consumer thread

__global__ void __launch_bounds__(128) mbarrier_ring(const int* __restrict__ in, int* __restrict__ out)
{
  __shared__ int slot[2][RING_SLOT];
  __shared__ uint64_t full[2], empty[2];
  const int t = threadIdx.x;
  if (t == 0) {
    for (int s = 0; s < 2; ++s) {
      ptx::mbarrier_init(&full[s], 32);           // the producer warp's lanes
      ptx::mbarrier_init(&empty[s], RING_SLOT);   // the consumer threads
    }
  }
  __syncthreads();

  if (t < 32) {                                   // producer warp
    for (int c = 0; c < RING_CHUNKS; ++c) {
      const int s = c % 2;
      const uint32_t use = c / 2;
      mbar_wait(&empty[s], (use & 1) ^ 1);        // a fresh barrier reads as "previous phase done"
      for (int i = 0; i < 3; ++i)
        slot[s][t * 3 + i] = in[c * RING_SLOT + t * 3 + i];
      (void)ptx::mbarrier_arrive(&full[s]);       // release.cta: the slot is published
    }
  } else {                                        // consumers: warps 1..3
    const int j = t - 32;
    const bool leaves_early = t >= 96;            // warp 3
    const int last = leaves_early ? 3 : RING_CHUNKS - 1;
    for (int c = 0; c <= last; ++c) {
      const int s = c % 2;
      const uint32_t use = c / 2;
      mbar_wait(&full[s], use & 1);
      out[c * RING_SLOT + j] = slot[s][RING_SLOT - 1 - j] * (c + 1) + j;
      if (leaves_early && c >= last - 1) {
        asm volatile("mbarrier.arrive_drop.shared::cta.b64 _, [%0];" :: "r"(smem_addr(&empty[s])) : "memory");
      } else {
        (void)ptx::mbarrier_arrive(&empty[s]);
      }
    }
  }
}

// ---- mbarrier_tx_bulk ---------------------------------------------------------------------------
// Transaction counts. Phase 0: thread 0 raises the tx-count with mbarrier.expect_tx by the bytes of
// two bulk copies plus 128 bytes that warp 1 retires by hand with mbarrier.complete_tx (4 bytes per
// lane); the copies retire theirs through .mbarrier::complete_tx::bytes. Thread 0 waits with the
// state token its arrive returned (mbarrier.try_wait), the others by parity. Phase 1 reuses the
// barrier with a combined mbarrier.arrive.expect_tx. The barrier is invalidated at the end.
constexpr int TX_A = 128;          // ints per copy of `a` (512 bytes)
constexpr int TX_B = 16;           // ints of `b` (64 bytes)

__global__ void __launch_bounds__(128) mbarrier_tx_bulk(const int* __restrict__ a, const int* __restrict__ b,
                                                       int* __restrict__ out0, int* __restrict__ out1)
{
  __shared__ alignas(128) int buf_a[TX_A];
  __shared__ alignas(128) int buf_b[TX_B];
  __shared__ uint64_t bar;
  const int t = threadIdx.x;
  const int cta = blockIdx.x;
  if (t == 0) {
    ptx::mbarrier_init(&bar, 1);
    ptx::fence_proxy_async(ptx::space_shared);    // the async proxy must see the initialised barrier
  }
  __syncthreads();

  // phase 0
  if (t == 0) {
    ptx::mbarrier_expect_tx(ptx::sem_relaxed, ptx::scope_cta, ptx::space_shared, &bar,
                            sizeof(buf_a) + sizeof(buf_b) + 128);
    ptx::cp_async_bulk(ptx::space_cluster, ptx::space_global, buf_a, a + cta * TX_A, sizeof(buf_a), &bar);
    ptx::cp_async_bulk(ptx::space_cluster, ptx::space_global, buf_b, b + cta * TX_B, sizeof(buf_b), &bar);
    const uint64_t token = ptx::mbarrier_arrive(&bar);
    while (!ptx::mbarrier_try_wait(&bar, token)) {
    }
  } else {
    if (t / 32 == 1)
      asm volatile("mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%0], 4;" :: "r"(smem_addr(&bar)) : "memory");
    mbar_wait(&bar, 0);
  }
  out0[cta * TX_A + t] = buf_a[t] * 1000 + buf_b[t % TX_B];
  __syncthreads();                                // every read of buf_a precedes the next copy into it

  // phase 1
  if (t == 0) {
    (void)ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar, sizeof(buf_a));
    ptx::cp_async_bulk(ptx::space_cluster, ptx::space_global, buf_a, a + (gridDim.x + cta) * TX_A, sizeof(buf_a), &bar);
  }
  mbar_wait(&bar, 1);
  out1[cta * TX_A + t] = buf_a[TX_A - 1 - t];
  __syncthreads();
  if (t == 0)
    asm volatile("mbarrier.inval.shared::cta.b64 [%0];" :: "r"(smem_addr(&bar)) : "memory");
}

// ---- mbarrier_cluster_exchange ----------------------------------------------------------------
// Two CTAs per cluster push data into each other's shared memory (DSMEM stores) and signal with a
// remote mbarrier.arrive.release.cluster.shared::cluster on the peer's barrier; each barrier
// expects two arrivals (the peer's remote one and a local one). The set-up is the CUTLASS one:
// mbarrier.init, fence.mbarrier_init.release.cluster, barrier.cluster.arrive.relaxed + wait.
constexpr int XCH_THREADS = 64;

__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(XCH_THREADS)
mbarrier_cluster_exchange(const int* __restrict__ in, int* __restrict__ out)
{
  __shared__ int inbox[XCH_THREADS];
  __shared__ uint64_t bar;
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank();
  const unsigned peer = rank ^ 1u;
  const int t = threadIdx.x;
  const int g = blockIdx.x * XCH_THREADS + t;
  if (t == 0) {
    ptx::mbarrier_init(&bar, 2);
    ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
  }
  ptx::barrier_cluster_arrive(ptx::sem_relaxed);
  ptx::barrier_cluster_wait();

  cluster.map_shared_rank(inbox, peer)[t] = in[g] * 2 + static_cast<int>(rank);
  __syncthreads();
  if (t == 0) {
    ptx::mbarrier_arrive(ptx::sem_release, ptx::scope_cluster, ptx::space_cluster, cluster.map_shared_rank(&bar, peer));
    (void)ptx::mbarrier_arrive(ptx::sem_release, ptx::scope_cluster, ptx::space_shared, &bar);
  }
  mbar_wait_cluster(&bar, 0);
  out[g] = inbox[t] + 1000 * static_cast<int>(rank);
  cluster.sync();
}
