// Warpgroup matrix multiply-accumulate (wgmma) on sm_90a, fed by TMA: single-tile kernels for each
// operand type (f16, bf16, tf32, e4m3, s8; f32, f16 and s32 accumulators), N = 8, 64, 128 and 256,
// A from shared memory or from registers, and a warp-specialised producer/consumer GEMM with a
// four-stage TMA ring guarded by full/empty mbarriers. Built for sm_90a only.
// Cases: tests/kernels/cases_sm90.py (references are plain matrix products in NumPy).
//
// PTX ISA 9.0 [#asynchronous-warpgroup-level-matrix-instructions]:
//  * operands: A is M x K and B is K x N; with imm-trans-a = imm-trans-b = 0 both are K-major in
//    shared memory, i.e. A stored row by row (M x K) and B stored as its transpose (N x K, "B^T").
//    The kernels below keep that layout, so D = A @ Bt^T.
//  * shared-memory layout [#asynchronous-warpgroup-level-matrix-shared-memory-layout]: every operand
//    tile here has rows of exactly 128 bytes (64 f16/bf16, 32 tf32, 128 e4m3/s8) and is written by a
//    TMA load with CU_TENSOR_MAP_SWIZZLE_128B into a 1024-byte aligned buffer. That is the K-major
//    128-byte swizzle atom (8 rows x 128 bytes, 16-byte chunks XOR-ed with row % 8), repeated down
//    the rows every 1024 bytes.
//  * matrix descriptor [#asynchronous-warpgroup-level-matrix-shared-memory-layout-matrix-descriptor]:
//    bits 0-13 start address >> 4, bits 16-29 leading-dimension byte offset >> 4 (not used by
//    swizzled K-major layouts; set to 1), bits 32-45 stride-dimension byte offset >> 4 (1024: from
//    one 8-row group to the next), bits 49-51 base offset (0: buffers start on a 1024-byte
//    boundary), bits 62-63 swizzle mode (1 = 128B). The k-th K step inside the 128-byte row starts
//    32 * k bytes further (k16 for 16-bit types, k8 for tf32, k32 for 8-bit types), i.e. the start
//    address field grows by 2 per step.
//  * register fragments [#asynchronous-warpgroup-level-matrix-register-fragment]: thread t of the
//    warpgroup (warp w = t / 32, lane l = t % 32) holds accumulator element i (i < N/2) at
//    row 16 w + l / 4 + 8 ((i / 2) % 2), column 8 (i / 4) + 2 (l % 4) + (i % 2); an f16 accumulator
//    packs elements 2j and 2j+1 in register j (low half first). A in registers (m64nNk16) uses the
//    same map for its 8 elements over the 64 x 16 slice, two per .f16x2 register.
//  * each kernel also takes plain pointers to the tensors its maps describe (see sm90_tma.cu).
//  * wgmma.fence before the first wgmma that reads registers written otherwise, commit_group after
//    issuing, wait_group 0 before the accumulators are read.
#include <cuda_fp16.h>
#include "sm90_common.cuh"

// ---- descriptors, fences ---------------------------------------------------------------------------
__device__ __forceinline__ uint64_t desc_sw128(const void* tile)
{
  const uint64_t addr = smem_addr(tile);
  return ((addr & 0x3FFFF) >> 4)                  // start address
         | (uint64_t(1) << 16)                    // leading byte offset (unused, 1)
         | (uint64_t(1024 >> 4) << 32)            // stride byte offset: 8 rows x 128 bytes
         | (uint64_t(1) << 62);                   // 128-byte swizzle
}

__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wgmma_wait0() { asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory"); }

// Keep the compiler from moving accumulator accesses across wgmma.fence / wait_group (the registers
// are written asynchronously), as CUTLASS's warpgroup_fence_operand does.
template <int R>
__device__ __forceinline__ void fence_operand(float (&r)[R])
{
#pragma unroll
  for (int i = 0; i < R; ++i)
    asm volatile("" : "+f"(r[i]) :: "memory");
}
template <typename T, int R>
__device__ __forceinline__ void fence_operand(T (&r)[R])
{
#pragma unroll
  for (int i = 0; i < R; ++i)
    asm volatile("" : "+r"(r[i]) :: "memory");
}

// ---- wgmma.mma_async wrappers ----------------------------------------------------------------------
// Operand lists written out in full (as in CUTLASS's mma_sm90_gmma.hpp). scale-d is a predicate:
// false computes D = A * B, true D = A * B + D. imm-scale-a/b = 1 (no negation), imm-trans = 0.
__device__ __forceinline__ void wgmma_m64n8k16_f32_f16(float (&d)[4], uint64_t desc_a, uint64_t desc_b, bool accumulate)
{
  asm volatile(
      "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %6, 0;\n\t"
      "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {"
      "%0, %1, %2, %3"
      "}, %4, %5, p, 1, 1, 0, 0;\n\t}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "l"(desc_a), "l"(desc_b), "r"(int(accumulate)));
}

__device__ __forceinline__ void wgmma_m64n64k16_f32_f16(float (&d)[32], uint64_t desc_a, uint64_t desc_b, bool accumulate)
{
  asm volatile(
      "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %34, 0;\n\t"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
      "}, %32, %33, p, 1, 1, 0, 0;\n\t}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(desc_a), "l"(desc_b), "r"(int(accumulate)));
}

__device__ __forceinline__ void wgmma_m64n128k16_f32_f16(float (&d)[64], uint64_t desc_a, uint64_t desc_b, bool accumulate)
{
  asm volatile(
      "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %66, 0;\n\t"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
      "}, %64, %65, p, 1, 1, 0, 0;\n\t}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "l"(desc_a), "l"(desc_b), "r"(int(accumulate)));
}

__device__ __forceinline__ void wgmma_m64n256k16_f32_f16(float (&d)[128], uint64_t desc_a, uint64_t desc_b, bool accumulate)
{
  asm volatile(
      "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %130, 0;\n\t"
      "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
      "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
      "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
      "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "
      "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
      "}, %128, %129, p, 1, 1, 0, 0;\n\t}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
        "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
        "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
        "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
        "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
        "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
        "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
        "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
        "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
      : "l"(desc_a), "l"(desc_b), "r"(int(accumulate)));
}

__device__ __forceinline__ void wgmma_m64n64k16_f32_f16_rs(float (&d)[32], const uint32_t (&a)[4], uint64_t desc_b, bool accumulate)
{
  asm volatile(
      "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %37, 0;\n\t"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
      "}, {%32, %33, %34, %35}, %36, p, 1, 1, 0;\n\t}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(int(accumulate)));
}

__device__ __forceinline__ void wgmma_m64n128k16_f32_bf16(float (&d)[64], uint64_t desc_a, uint64_t desc_b, bool accumulate)
{
  asm volatile(
      "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %66, 0;\n\t"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
      "}, %64, %65, p, 1, 1, 0, 0;\n\t}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "l"(desc_a), "l"(desc_b), "r"(int(accumulate)));
}

__device__ __forceinline__ void wgmma_m64n64k16_f16_f16(uint32_t (&d)[16], uint64_t desc_a, uint64_t desc_b, bool accumulate)
{
  asm volatile(
      "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %18, 0;\n\t"
      "wgmma.mma_async.sync.aligned.m64n64k16.f16.f16.f16 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15"
      "}, %16, %17, p, 1, 1, 0, 0;\n\t}"
      : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]),
        "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15])
      : "l"(desc_a), "l"(desc_b), "r"(int(accumulate)));
}

__device__ __forceinline__ void wgmma_m64n64k8_f32_tf32(float (&d)[32], uint64_t desc_a, uint64_t desc_b, bool accumulate)
{
  asm volatile(
      "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %34, 0;\n\t"
      "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
      "}, %32, %33, p, 1, 1;\n\t}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(desc_a), "l"(desc_b), "r"(int(accumulate)));
}

__device__ __forceinline__ void wgmma_m64n64k32_f32_e4m3(float (&d)[32], uint64_t desc_a, uint64_t desc_b, bool accumulate)
{
  asm volatile(
      "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %34, 0;\n\t"
      "wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
      "}, %32, %33, p, 1, 1;\n\t}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(desc_a), "l"(desc_b), "r"(int(accumulate)));
}

__device__ __forceinline__ void wgmma_m64n64k32_s32_s8(int32_t (&d)[32], uint64_t desc_a, uint64_t desc_b, bool accumulate)
{
  asm volatile(
      "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %34, 0;\n\t"
      "wgmma.mma_async.sync.aligned.m64n64k32.s32.s8.s8 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
      "}, %32, %33, p;\n\t}"
      : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]),
        "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]),
        "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]),
        "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31])
      : "l"(desc_a), "l"(desc_b), "r"(int(accumulate)));
}

// ---- single-tile kernels -----------------------------------------------------------------------------
// One warpgroup computes a 64 x N tile over K = one 128-byte row (four K steps). A (64 rows) and
// Bt (N rows) arrive by TMA at coordinates (0, 0); D is written row-major (64 x N).
constexpr int ROW_BYTES = 128;

// Store a 64 x N accumulator fragment row-major (f32 / s32: one element per register).
template <int N, typename T>
__device__ __forceinline__ void store_fragment(const T (&acc)[N / 2], T* d)
{
  const int w = threadIdx.x / 32, l = threadIdx.x % 32;
#pragma unroll
  for (int i = 0; i < N / 2; ++i) {
    const int row = 16 * w + l / 4 + 8 * ((i / 2) % 2);
    const int col = 8 * (i / 4) + 2 * (l % 4) + (i % 2);
    d[row * N + col] = acc[i];
  }
}

// Store a 64 x N f16 accumulator: register j holds elements 2j (low) and 2j + 1 (high).
template <int N>
__device__ __forceinline__ void store_fragment_f16(const uint32_t (&acc)[N / 4], __half* d)
{
  const int w = threadIdx.x / 32, l = threadIdx.x % 32;
#pragma unroll
  for (int j = 0; j < N / 4; ++j) {
    const int i = 2 * j;
    const int row = 16 * w + l / 4 + 8 * ((i / 2) % 2);
    const int col = 8 * (i / 4) + 2 * (l % 4);
    *reinterpret_cast<uint32_t*>(d + row * N + col) = acc[j];
  }
}

// TMA both operand tiles into 1024-byte aligned buffers and wait for them (thread 0 of warp 0 is
// elected to issue, as in CUTLASS; every thread then waits on the barrier).
template <int A_BYTES, int B_BYTES>
__device__ __forceinline__ void load_operands(const CUtensorMap* map_a, const CUtensorMap* map_b, void* a, void* b,
                                              uint64_t* bar)
{
  if (threadIdx.x == 0) {
    ptx::mbarrier_init(bar, 1);
    ptx::fence_proxy_async(ptx::space_shared);
  }
  __syncthreads();
  if (threadIdx.x / 32 == 0 && elect_one()) {
    const int32_t origin[2] = {0, 0};
    (void)ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, bar, A_BYTES + B_BYTES);
    if (map_a != nullptr)
      ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, a, map_a, origin, bar);
    ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, b, map_b, origin, bar);
  }
  mbar_wait(bar, 0);
}

// The accumulators start with a value the first wgmma (scale-d false) must ignore.
#define WGMMA_TILE_SS(NAME, N, REG, NREG, MMA, OUT_T, POISON, STORE)                                         \
  __global__ void __launch_bounds__(128) NAME(const __grid_constant__ CUtensorMap map_a,                       \
                                              const __grid_constant__ CUtensorMap map_b, const void* a_tensor, \
                                              const void* bt_tensor, OUT_T* d)                                  \
  {                                                                                                         \
    __shared__ alignas(1024) uint8_t a[64 * ROW_BYTES];                                                     \
    __shared__ alignas(1024) uint8_t b[(N) * ROW_BYTES];                                                    \
    __shared__ uint64_t bar;                                                                                \
    load_operands<sizeof(a), sizeof(b)>(&map_a, &map_b, a, b, &bar);                                        \
    REG acc[NREG];                                                                                          \
    for (int i = 0; i < NREG; ++i)                                                                          \
      acc[i] = POISON;                                                                                      \
    const uint64_t da = desc_sw128(a), db = desc_sw128(b);                                                  \
    wgmma_fence();                                                                                          \
    fence_operand(acc);                                                                                     \
    for (int k = 0; k < 4; ++k)                                                                             \
      MMA(acc, da + 2 * k, db + 2 * k, k != 0);                                                             \
    wgmma_commit();                                                                                         \
    wgmma_wait0();                                                                                          \
    fence_operand(acc);                                                                                     \
    STORE;                                                                                                  \
  }

WGMMA_TILE_SS(wgmma_f16_f32_n8, 8, float, 4, wgmma_m64n8k16_f32_f16, float, 12345.0f, (store_fragment<8>(acc, d)))
WGMMA_TILE_SS(wgmma_f16_f32_n64, 64, float, 32, wgmma_m64n64k16_f32_f16, float, 12345.0f, (store_fragment<64>(acc, d)))
WGMMA_TILE_SS(wgmma_f16_f32_n128, 128, float, 64, wgmma_m64n128k16_f32_f16, float, 12345.0f,
              (store_fragment<128>(acc, d)))
WGMMA_TILE_SS(wgmma_f16_f32_n256, 256, float, 128, wgmma_m64n256k16_f32_f16, float, 12345.0f,
              (store_fragment<256>(acc, d)))
WGMMA_TILE_SS(wgmma_bf16_f32_n128, 128, float, 64, wgmma_m64n128k16_f32_bf16, float, 12345.0f,
              (store_fragment<128>(acc, d)))
WGMMA_TILE_SS(wgmma_f16_f16_n64, 64, uint32_t, 16, wgmma_m64n64k16_f16_f16, __half, 0x4B004B00u,
              (store_fragment_f16<64>(acc, d)))
WGMMA_TILE_SS(wgmma_tf32_f32_n64, 64, float, 32, wgmma_m64n64k8_f32_tf32, float, 12345.0f, (store_fragment<64>(acc, d)))
WGMMA_TILE_SS(wgmma_e4m3_f32_n64, 64, float, 32, wgmma_m64n64k32_f32_e4m3, float, 12345.0f, (store_fragment<64>(acc, d)))
WGMMA_TILE_SS(wgmma_s8_s32_n64, 64, int32_t, 32, wgmma_m64n64k32_s32_s8, int32_t, 777, (store_fragment<64>(acc, d)))

// ---- wgmma_f16_f32_rs_n64: A from registers ---------------------------------------------------------
// A (64 x 64 f16, row-major in global memory) is loaded straight into the m64nNk16 A fragments:
// for K step s, register r of thread (w, l) holds the pair at row 16 w + l / 4 + 8 (r % 2),
// columns 16 s + 2 (l % 4) + 8 (r / 2) and one more. Bt arrives by TMA as above.
__global__ void __launch_bounds__(128) wgmma_f16_f32_rs_n64(const __half* __restrict__ a_global,
                                                           const __grid_constant__ CUtensorMap map_b,
                                                           const __half* bt_tensor, float* d)
{
  __shared__ alignas(1024) uint8_t b[64 * ROW_BYTES];
  __shared__ uint64_t bar;
  const int w = threadIdx.x / 32, l = threadIdx.x % 32;
  uint32_t frag[4][4];
  for (int s = 0; s < 4; ++s)
    for (int r = 0; r < 4; ++r) {
      const int row = 16 * w + l / 4 + 8 * (r % 2);
      const int col = 16 * s + 2 * (l % 4) + 8 * (r / 2);
      frag[s][r] = *reinterpret_cast<const uint32_t*>(a_global + row * 64 + col);
    }
  load_operands<0, sizeof(b)>(nullptr, &map_b, nullptr, b, &bar);
  float acc[32];
  for (int i = 0; i < 32; ++i)
    acc[i] = 12345.0f;
  const uint64_t db = desc_sw128(b);
  wgmma_fence();
  fence_operand(acc);
  for (int s = 0; s < 4; ++s)
    wgmma_m64n64k16_f32_f16_rs(acc, frag[s], db + 2 * s, s != 0);
  wgmma_commit();
  wgmma_wait0();
  fence_operand(acc);
  store_fragment<64>(acc, d);
}

// ---- wgmma_gemm_ws: warp-specialised GEMM -----------------------------------------------------------
// D (M x N, f32, row-major) = A (M x K, f16, row-major) @ Bt^T (Bt: N x K, f16, row-major), in
// 128 x 128 CTA tiles over 64-wide K tiles. Warpgroup 0 is the producer: it gives up registers
// (setmaxnreg.dec), and one elected thread streams A and Bt tiles by TMA into a STAGES-deep ring,
// waiting on `empty[s]` before refilling slot s and arming `full[s]` with the tile bytes.
// Warpgroups 1 and 2 are consumers (setmaxnreg.inc): each owns 64 rows of the CTA tile, waits on
// `full[s]`, issues four m64n128k16 wgmmas and, once they have completed, arrives on `empty[s]`.
// The ring phase for K tile kt is (kt / STAGES) & 1; the producer waits on the opposite parity,
// which a freshly initialised barrier already satisfies. Shared memory is dynamic
// (STAGES * 32 KiB = 128 KiB: above the 48 KiB default, so a CUDA host must raise
// cudaFuncAttributeMaxDynamicSharedMemorySize first).
constexpr int GM_BM = 128, GM_BN = 128, GM_BK = 64, GM_STAGES = 4, GM_CONSUMERS = 2;
constexpr int GM_A_TILE = GM_BM * GM_BK;          // halves per A stage
constexpr int GM_B_TILE = GM_BN * GM_BK;          // halves per B stage
constexpr int GM_SMEM = GM_STAGES * (GM_A_TILE + GM_B_TILE) * 2;   // dynamic bytes per CTA
static_assert(GM_SMEM <= 227 * 1024, "the ring fits the 227 KiB an sm_90 CTA may use");

__global__ void __launch_bounds__(128 * (1 + GM_CONSUMERS), 1)
wgmma_gemm_ws(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b, const __half* a,
              const __half* bt, float* d, int M, int N, int K)
{
  extern __shared__ __align__(1024) uint8_t smem[];
  __half* sa = reinterpret_cast<__half*>(smem);
  __half* sb = sa + GM_STAGES * GM_A_TILE;
  __shared__ uint64_t full[GM_STAGES], empty[GM_STAGES];
  const int warpgroup = __shfl_sync(0xffffffffu, threadIdx.x / 128, 0);
  const int ktiles = K / GM_BK;
  const int m0 = blockIdx.y * GM_BM, n0 = blockIdx.x * GM_BN;
  (void)M;

  if (threadIdx.x == 0) {
    asm volatile("prefetch.tensormap [%0];" :: "l"(&map_a) : "memory");
    asm volatile("prefetch.tensormap [%0];" :: "l"(&map_b) : "memory");
    for (int s = 0; s < GM_STAGES; ++s) {
      ptx::mbarrier_init(&full[s], 1);
      ptx::mbarrier_init(&empty[s], GM_CONSUMERS * 128);
    }
    ptx::fence_proxy_async(ptx::space_shared);
  }
  __syncthreads();

  if (warpgroup == 0) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
    if (threadIdx.x / 32 == 0 && elect_one()) {
      for (int kt = 0; kt < ktiles; ++kt) {
        const int s = kt % GM_STAGES;
        mbar_wait(&empty[s], ((kt / GM_STAGES) & 1) ^ 1);
        (void)ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &full[s],
                                             (GM_A_TILE + GM_B_TILE) * 2);
        const int32_t ca[2] = {kt * GM_BK, m0};
        const int32_t cb[2] = {kt * GM_BK, n0};
        ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, sa + s * GM_A_TILE, &map_a, ca, &full[s]);
        ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, sb + s * GM_B_TILE, &map_b, cb, &full[s]);
      }
    }
  } else {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
    const int c = warpgroup - 1;                  // rows 64 c .. 64 c + 63 of the CTA tile
    float acc[GM_BN / 2];
    for (int i = 0; i < GM_BN / 2; ++i)
      acc[i] = 0.0f;
    for (int kt = 0; kt < ktiles; ++kt) {
      const int s = kt % GM_STAGES;
      mbar_wait(&full[s], (kt / GM_STAGES) & 1);
      const uint64_t da = desc_sw128(sa + s * GM_A_TILE + c * 64 * GM_BK);
      const uint64_t db = desc_sw128(sb + s * GM_B_TILE);
      wgmma_fence();
      fence_operand(acc);
      for (int k = 0; k < GM_BK / 16; ++k)
        wgmma_m64n128k16_f32_f16(acc, da + 2 * k, db + 2 * k, kt != 0 || k != 0);
      wgmma_commit();
      wgmma_wait0();
      fence_operand(acc);
      (void)ptx::mbarrier_arrive(&empty[s]);
    }
    const int w = (threadIdx.x % 128) / 32, l = threadIdx.x % 32;
    for (int i = 0; i < GM_BN / 2; ++i) {
      const int row = m0 + 64 * c + 16 * w + l / 4 + 8 * ((i / 2) % 2);
      const int col = n0 + 8 * (i / 4) + 2 * (l % 4) + (i % 2);
      d[static_cast<size_t>(row) * N + col] = acc[i];
    }
  }
}
