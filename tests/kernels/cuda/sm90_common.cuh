// Helpers shared by the Hopper kernels (sm90_*.cu, sm90a_*.cu): the CCCL `cuda::ptx` wrappers
// shipped with CUDA 13.0, the driver's CUtensorMap type, and the few idioms every Hopper kernel
// repeats (waiting on an mbarrier phase, electing one thread, taking a shared-window address).
//
// Section names refer to the PTX ISA 9.0 ("Parallel Thread Execution ISA"), whose anchors are
// given in brackets so they survive renumbering between versions.
#pragma once
#include <cstdint>
#include <cuda.h>                // CUtensorMap (128 bytes, alignas(128) in CUDA 13.0)
#include <cuda/ptx>
#include <cooperative_groups.h>

namespace ptx = cuda::ptx;
namespace cg = cooperative_groups;

// Address of a variable in the executing CTA's shared-memory window (.shared::cta), as the
// 32-bit operand the cp.async.bulk / mbarrier / wgmma descriptor forms take.
__device__ __forceinline__ uint32_t smem_addr(const void* p)
{
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// Block until the phase of `bar` with parity `parity` has completed: mbarrier.try_wait.parity
// returns true once the current phase parity differs from `parity` [#parallel-synchronization-
// and-communication-instructions-mbarrier-test-wait-try-wait]. try_wait may also return false
// after a time-out, hence the loop.
__device__ __forceinline__ void mbar_wait(uint64_t* bar, uint32_t parity)
{
  while (!ptx::mbarrier_try_wait_parity(bar, parity)) {
  }
}

// Same, with acquire semantics at cluster scope: for phases completed by arrivals from other
// CTAs of the cluster (remote mbarrier.arrive.release.cluster or multicast complete_tx).
__device__ __forceinline__ void mbar_wait_cluster(uint64_t* bar, uint32_t parity)
{
  while (!ptx::mbarrier_try_wait_parity(ptx::sem_acquire, ptx::scope_cluster, bar, parity)) {
  }
}

// elect.sync over the full warp: true in exactly one lane [#parallel-synchronization-and-
// communication-instructions-elect-sync]. The ISA only promises that the choice is
// deterministic for a given member mask, not which lane wins. The leader's lane id goes to a
// scratch register, as in CUTLASS's elect_one_sync.
__device__ __forceinline__ bool elect_one()
{
  uint32_t pred = 0;
  asm volatile(
      "{\n\t.reg .b32 leader;\n\t.reg .pred p;\n\t"
      "elect.sync leader|p, 0xffffffff;\n\t"
      "selp.u32 %0, 1, 0, p;\n\t}"
      : "=r"(pred));
  return pred != 0;
}
