// Shared helpers of the matrix_*.cu kernels: ldmatrix/mma.sync wrappers written as CUTLASS writes
// them (inline PTX on 32-bit registers, shared addresses from __cvta_generic_to_shared).
#pragma once
#include <cstdint>

__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void ldsm_x1(uint32_t (&r)[1], const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];\n" : "=r"(r[0]) : "r"(smem_u32(p)));
}
__device__ __forceinline__ void ldsm_x2(uint32_t (&r)[2], const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n"
               : "=r"(r[0]), "=r"(r[1]) : "r"(smem_u32(p)));
}
__device__ __forceinline__ void ldsm_x4(uint32_t (&r)[4], const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(smem_u32(p)));
}
__device__ __forceinline__ void ldsm_x1_t(uint32_t (&r)[1], const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];\n" : "=r"(r[0]) : "r"(smem_u32(p)));
}
__device__ __forceinline__ void ldsm_x2_t(uint32_t (&r)[2], const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\n"
               : "=r"(r[0]), "=r"(r[1]) : "r"(smem_u32(p)));
}
__device__ __forceinline__ void ldsm_x4_t(uint32_t (&r)[4], const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(smem_u32(p)));
}

// Copy a rows x cols tile of 32-bit words (row stride `ld` words) from global to shared, warp-wide.
__device__ __forceinline__ void tile_to_shared(uint32_t* dst, const uint32_t* src, int rows, int cols, int ld,
                                               int lane) {
  for (int i = lane; i < rows * cols; i += 32) dst[i] = src[(i / cols) * ld + i % cols];
}

// Store the m16n8 accumulator fragment (c0,c1: row g; c2,c3: row g + 8; columns 2t, 2t + 1).
template <typename T>
__device__ __forceinline__ void store_acc16x8(T* C, int ldc, int lane, const T (&acc)[4]) {
  int g = lane >> 2, t = lane & 3;
  C[g * ldc + 2 * t] = acc[0];
  C[g * ldc + 2 * t + 1] = acc[1];
  C[(g + 8) * ldc + 2 * t] = acc[2];
  C[(g + 8) * ldc + 2 * t + 1] = acc[3];
}
