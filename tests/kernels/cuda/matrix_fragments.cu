// ldmatrix and movmatrix fragments dumped to global memory, so the register layouts the PTX ISA
// defines can be compared element by element. Built for sm_80 and sm_90.
// Cases: tests/kernels/cases_matrix.py.
//
// src holds 32 rows of 8 b16 values (row r at src + 8 r). Lane l names row rows[l] (+ `skew`
// elements, 0 in the cases; a non-zero skew misaligns the row addresses, which must fault).
// out[(v · 32 + lane) · 4 + j] is register j of variant v:
//   v = 0..2: ldmatrix .x1, .x2, .x4; v = 3..5: the same with .trans;
//   v = 6: movmatrix.trans of the .x1 fragment (register 0).
#include <cstdint>
#include "matrix_common.cuh"

extern "C" __global__ void ldmatrix_dump(const uint16_t* src, const int* rows, uint32_t* out, int skew) {
  __shared__ alignas(16) uint16_t s[32 * 8 + 8];
  int lane = threadIdx.x;
  for (int i = lane; i < 32 * 8; i += 32) s[i] = src[i];
  __syncwarp();
  const uint16_t* p = s + rows[lane] * 8 + skew;
  uint32_t* o = out + lane * 4;
  uint32_t r1[1], r2[2], r4[4];
  ldsm_x1(r1, p);
  o[0 * 128] = r1[0];
  ldsm_x2(r2, p);
  o[1 * 128] = r2[0];
  o[1 * 128 + 1] = r2[1];
  ldsm_x4(r4, p);
  for (int j = 0; j < 4; ++j) o[2 * 128 + j] = r4[j];
  ldsm_x1_t(r1, p);
  o[3 * 128] = r1[0];
  ldsm_x2_t(r2, p);
  o[4 * 128] = r2[0];
  o[4 * 128 + 1] = r2[1];
  ldsm_x4_t(r4, p);
  for (int j = 0; j < 4; ++j) o[5 * 128 + j] = r4[j];
  ldsm_x1(r1, p);
  uint32_t moved;
  asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;\n" : "=r"(moved) : "r"(r1[0]));
  o[6 * 128] = moved;
}

// A warp whose lanes 16..31 have returned executes ldmatrix: undefined in the ISA (every lane of
// the warp must execute .sync.aligned), reported by the emulator.
extern "C" __global__ void ldmatrix_partial_warp(const uint16_t* src, uint32_t* out) {
  __shared__ alignas(16) uint16_t s[64];
  int lane = threadIdx.x;
  s[lane] = src[lane];
  s[lane + 32] = src[lane + 32];
  __syncwarp();
  if (lane >= 16) return;
  uint32_t r[1];
  ldsm_x1(r, s + (lane % 8) * 8);
  out[lane] = r[0];
}
