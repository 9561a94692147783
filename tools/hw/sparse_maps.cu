// Sparse mma.sync (mma.sp::ordered_metadata) metadata and fragment maps, read off the hardware.
//
//   nvcc -std=c++17 -O2 -arch=sm_90a -o sparse_maps tools/hw/sparse_maps.cu && ./sparse_maps > sparse_maps.json
//
// m16n8k16 and m16n8k32 with .f16 A/B and .f32 C/D, m16n8k32 and m16n8k64 with .s8 and .s32, for
// each sparsity selector, with two metadata patterns (meta() below, also dumped: pattern 0 repeats
// nibble values at positions 0/6 and 1/7, pattern 1 at 0/7 and 1/6, so together they name every
// nibble position). Experiment
// e sets the single compressed A element e (lane e / per_lane, element e % per_lane, low half first)
// to 1, every other A element to 0, and B[k][n] = k + 1 (placed by the dense mma B layout); C = 0.
// D row r then holds (dense column of element e) + 1 in every column if element e belongs to row r,
// else 0: each lane writes its 4 D values.
#include <cstdint>
#include <cstdio>
#include <cuda_fp16.h>

__device__ __forceinline__ uint32_t meta(int lane, int pattern) {
  const uint32_t valid[6] = {0x4, 0x8, 0xC, 0x9, 0xD, 0xE};   // (i0, i1) = (0,1) (0,2) (0,3) (1,2) (1,3) (2,3)
  const int order[2][8] = {{0, 1, 2, 3, 4, 5, 0, 1}, {0, 1, 2, 3, 4, 5, 1, 0}};
  uint32_t m = 0;
  for (int n = 0; n < 8; ++n) m |= valid[(order[pattern][n] + lane) % 6] << (4 * n);
  return m;
}

__device__ __forceinline__ uint32_t pack2(float lo, float hi) {
  __half2 h = __floats2half2_rn(lo, hi);
  return *reinterpret_cast<uint32_t*>(&h);
}

template <int K, int SEL, int P>
__global__ void sparse(float* out, uint32_t* metas) {
  const int e = blockIdx.x, l = threadIdx.x, g = l >> 2, t = l & 3;
  constexpr int PER = K / 4;            // compressed A halves per lane: 4 (k16) or 8 (k32)
  uint32_t a[4] = {0, 0, 0, 0}, b[4];
  for (int r = 0; r < PER / 2; ++r)
    a[r] = pack2(l * PER + 2 * r == e ? 1.f : 0.f, l * PER + 2 * r + 1 == e ? 1.f : 0.f);
  // dense B fragment (m16n8k16: 2 regs; m16n8k32: 4 regs): element i at k = 2t + (i & 1) + 8 (i >> 1)
  for (int r = 0; r < K / 8; ++r)
    b[r] = pack2(2 * t + 8 * r + 1, 2 * t + 8 * r + 2);
  (void)g;
  const uint32_t m = meta(l, P);
  float d[4] = {0, 0, 0, 0};
  if constexpr (K == 16)
    asm volatile("mma.sp::ordered_metadata.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, "
                 "{%6,%7}, {%0,%1,%2,%3}, %8, %9;"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(b[1]), "r"(m), "n"(SEL));
  else
    asm volatile("mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, "
                 "{%4,%5,%6,%7}, {%8,%9,%10,%11}, {%0,%1,%2,%3}, %12, %13;"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(b[2]), "r"(b[3]),
                   "r"(m), "n"(SEL));
  for (int i = 0; i < 4; ++i) out[(e * 32 + l) * 4 + i] = d[i];
  if (e == 0) metas[l] = m;
}

// .s8: experiment e sets compressed element e (4 per register) to 1; B[k][n] = k + 1 (s8, dense
// layout: element i at k = 4t + (i & 3) + 16 (i >> 2)); D is s32.
template <int K, int SEL, int P>
__global__ void sparse_s8(float* out, uint32_t* metas) {
  const int e = blockIdx.x, l = threadIdx.x, t = l & 3;
  constexpr int PER = K / 4;            // compressed A bytes per lane: 8 (k32) or 16 (k64)
  uint32_t a[4] = {0, 0, 0, 0}, b[4] = {0, 0, 0, 0};
  for (int i = 0; i < PER; ++i)
    if (l * PER + i == e) a[i / 4] = 1u << (8 * (i % 4));
  for (int i = 0; i < K / 2; ++i)
    b[i / 4] |= uint32_t(4 * t + (i & 3) + 16 * (i >> 2) + 1) << (8 * (i % 4));
  const uint32_t m = meta(l, P);
  int d[4] = {0, 0, 0, 0};
  if constexpr (K == 32)
    asm volatile("mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5}, "
                 "{%6,%7}, {%0,%1,%2,%3}, %8, %9;"
                 : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(b[1]), "r"(m), "n"(SEL));
  else
    asm volatile("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, "
                 "{%4,%5,%6,%7}, {%8,%9,%10,%11}, {%0,%1,%2,%3}, %12, %13;"
                 : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(b[2]), "r"(b[3]),
                   "r"(m), "n"(SEL));
  for (int i = 0; i < 4; ++i) out[(e * 32 + l) * 4 + i] = (float)d[i];
  if (e == 0) metas[l] = m;
}

static void dump(const char* name, const float* host, int n) {
  printf("\"%s\": [", name);
  for (int i = 0; i < n; ++i) printf(i ? ",%g" : "%g", host[i]);
  printf("],\n");
}

template <int K, int SEL, int P, bool S8 = false>
static void run(float* dev, float* host) {
  uint32_t* dm;
  cudaMalloc(&dm, 32 * 4);
  const int experiments = 16 * K / 2;
  if (S8) sparse_s8<K, SEL, P><<<experiments, 32>>>(dev, dm);
  else sparse<K, SEL, P><<<experiments, 32>>>(dev, dm);
  cudaMemcpy(host, dev, experiments * 128 * 4, cudaMemcpyDeviceToHost);
  char name[64];
  snprintf(name, sizeof name, "m16n8k%d_%s_sel%d_p%d", K, S8 ? "s8" : "f16", SEL, P);
  dump(name, host, experiments * 128);
  uint32_t hm[32];
  cudaMemcpy(hm, dm, sizeof hm, cudaMemcpyDeviceToHost);
  printf("\"%s_meta\": [", name);
  for (int i = 0; i < 32; ++i) printf(i ? ",%u" : "%u", hm[i]);
  printf("],\n");
  cudaFree(dm);
}

int main() {
  float* dev;
  static float host[512 * 128];
  cudaMalloc(&dev, sizeof host);
  printf("{\n");
  // ptxas 13.0 takes only selector 0 for m16n8k16 .f16 in nvcc 13.0's PTX (ISA 9.0); an earlier
  // record (PTX 8.5 through the driver's JIT) showed selector F picking thread F of each quad.
  run<16, 0, 0>(dev, host);
  run<32, 0, 0>(dev, host); run<32, 1, 0>(dev, host);
  run<16, 0, 1>(dev, host);
  run<32, 0, 1>(dev, host); run<32, 1, 1>(dev, host);
  run<32, 0, 0, true>(dev, host); run<32, 1, 0, true>(dev, host); run<64, 0, 0, true>(dev, host);
  run<32, 0, 1, true>(dev, host); run<32, 1, 1, true>(dev, host); run<64, 0, 1, true>(dev, host);
  cudaError_t err = cudaDeviceSynchronize();
  printf("\"status\": \"%s\"\n}\n", cudaGetErrorString(err));
  return err != cudaSuccess;
}
