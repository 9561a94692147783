// Warp-level sm_90 instructions: elect.sync, stmatrix (round-tripped through ldmatrix) and
// programmatic dependent launch (griddepcontrol). Built for sm_90. Cases: tests/kernels/cases_sm90.py.
#include "sm90_common.cuh"

// ---- elect_griddep ----------------------------------------------------------------------------
// elect.sync over a partial member mask (the lanes with lane % 3 != 0 of a divergent branch) and
// over the full warp, with griddepcontrol.wait at the start and griddepcontrol.launch_dependents at
// the end (programmatic dependent launch; on an ordinary launch both complete at once
// [#parallel-synchronization-and-communication-instructions-griddepcontrol]).
// The ISA does not say which lane elect.sync picks, so the outputs only check its contract:
// exactly one leader, every member gets the leader's lane id, and the leader is a member.
constexpr unsigned ELECT_MASK = 0xb6db6db6u;   // lanes l with l % 3 != 0

__global__ void elect_griddep(const int* __restrict__ in, int* __restrict__ warp_sums, int* __restrict__ leaders,
                              int* __restrict__ lane_ok)
{
  cudaGridDependencySynchronize();
  const unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned lane = threadIdx.x % 32;
  const unsigned warp = g / 32;
  const unsigned nwarps = gridDim.x * blockDim.x / 32;
  const int v = in[g];

  if (elect_one())
    atomicAdd(&leaders[nwarps + warp], 1);

  if (lane % 3 != 0) {
    uint32_t leader, is_leader;
    asm volatile(
        "{\n\t.reg .pred p;\n\t"
        "elect.sync %0|p, %2;\n\t"
        "selp.u32 %1, 1, 0, p;\n\t}"
        : "=r"(leader), "=r"(is_leader)
        : "r"(ELECT_MASK));
    const int sum = __reduce_add_sync(ELECT_MASK, v);
    if (is_leader) {
      atomicAdd(&leaders[warp], 1);
      warp_sums[warp] = sum;
    }
    const uint32_t seen_by_lane1 = __shfl_sync(ELECT_MASK, leader, 1);
    lane_ok[g] = (leader == seen_by_lane1) && ((ELECT_MASK >> leader) & 1u) && ((leader == lane) == (is_leader != 0));
  } else {
    lane_ok[g] = 2;
  }
  cudaTriggerProgrammaticLaunchCompletion();
}

// ---- stmatrix_roundtrip -------------------------------------------------------------------------
// One warp moves four 8x8 matrices of 16-bit values between shared memory and registers
// [#warp-level-matrix-instructions-stmatrix, #warp-level-matrix-instructions-ldmatrix]. For .x4,
// lane l gives the address of row l % 8 of matrix l / 8; register j of lane l holds row l / 4,
// columns 2 * (l % 4) and 2 * (l % 4) + 1 of matrix j (low half first); .trans swaps row and
// column. Outputs: `same` (ldmatrix then stmatrix: the input again), `transposed` (ldmatrix then
// stmatrix.trans), `from_regs` (registers set from the lane id, then stmatrix) and `ld_trans`
// (ldmatrix.trans then stmatrix).
__device__ __forceinline__ void ldsm_x4(uint32_t (&r)[4], uint32_t addr, bool trans)
{
  if (trans)
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr) : "memory");
  else
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr) : "memory");
}

__device__ __forceinline__ void stsm_x4(uint32_t addr, const uint32_t (&r)[4], bool trans)
{
  if (trans)
    asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};"
                 :: "r"(addr), "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]) : "memory");
  else
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};"
                 :: "r"(addr), "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]) : "memory");
}

__global__ void __launch_bounds__(32) stmatrix_roundtrip(const uint16_t* __restrict__ in, uint16_t* __restrict__ same,
                                                        uint16_t* __restrict__ transposed,
                                                        uint16_t* __restrict__ from_regs,
                                                        uint16_t* __restrict__ ld_trans)
{
  constexpr int N = 4 * 8 * 8;
  __shared__ alignas(16) uint16_t src[4][8][8];
  __shared__ alignas(16) uint16_t dst[4][4][8][8];
  const unsigned lane = threadIdx.x;
  for (int i = lane; i < N; i += 32)
    (&src[0][0][0])[i] = in[i];
  __syncwarp();

  const unsigned m = lane / 8, row = lane % 8;
  uint32_t frag[4], frag_t[4], made[4];
  ldsm_x4(frag, smem_addr(&src[m][row][0]), false);
  ldsm_x4(frag_t, smem_addr(&src[m][row][0]), true);
  for (int j = 0; j < 4; ++j) {
    const uint32_t lo = 64 * j + 2 * lane;          // fragment element (lane, j, 0)
    made[j] = lo | ((lo + 1) << 16);                // fragment element (lane, j, 1)
  }
  stsm_x4(smem_addr(&dst[0][m][row][0]), frag, false);
  stsm_x4(smem_addr(&dst[1][m][row][0]), frag, true);
  stsm_x4(smem_addr(&dst[2][m][row][0]), made, false);
  stsm_x4(smem_addr(&dst[3][m][row][0]), frag_t, false);
  __syncwarp();

  for (int i = lane; i < N; i += 32) {
    same[i] = (&dst[0][0][0][0])[i];
    transposed[i] = (&dst[1][0][0][0])[i];
    from_regs[i] = (&dst[2][0][0][0])[i];
    ld_trans[i] = (&dst[3][0][0][0])[i];
  }
}
