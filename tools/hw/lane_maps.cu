// Fragment lane maps of ldmatrix and mma.sync, read off the hardware.
//
//   nvcc -O2 -arch=sm_90a -o lane_maps tools/hw/lane_maps.cu && ./lane_maps > lane_maps.json
//
// ldmatrix: shared memory holds four 8x8 b16 matrices whose elements are their own index
// (m * 64 + row * 8 + col); lane l gives the address of row l % 8 of matrix l / 8; each lane writes
// the registers it receives. The output is, per variant, out[lane][reg] as two 16-bit halves.
//
// mma.sync: one warp per experiment. Experiment e < |A| sets the single A fragment element e
// (lane e / per_lane, element e % per_lane, elements counted low half first) to 1 and every B
// element to its own code (its index + 1); experiment |A| + e sets the single B element e to 1
// and every A element to its code. C is zero. Each lane writes its D fragment. A model of the
// layouts predicts every D value: D = A * B with A, B and D placed by the model's fragments.
#include <cstdint>
#include <cstdio>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

__global__ void ldmatrix_maps(uint32_t* out) {
  __shared__ alignas(16) uint16_t mat[4 * 64];
  for (int i = threadIdx.x; i < 256; i += 32) mat[i] = (uint16_t)i;
  __syncwarp();
  const int l = threadIdx.x;
  uint32_t addr = (uint32_t)__cvta_generic_to_shared(&mat[(l / 8) * 64 + (l % 8) * 8]);
  uint32_t r[4];
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r[0]) : "r"(addr));
  out[0 * 128 + l * 4] = r[0];
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];" : "=r"(r[0]), "=r"(r[1]) : "r"(addr));
  out[1 * 128 + l * 4] = r[0]; out[1 * 128 + l * 4 + 1] = r[1];
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
  for (int i = 0; i < 4; ++i) out[2 * 128 + l * 4 + i] = r[i];
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
  for (int i = 0; i < 4; ++i) out[3 * 128 + l * 4 + i] = r[i];
}

// f16 m16n8k16: A 8 halves/lane (256), B 4 halves/lane (128), D 4 f32/lane.
template <typename T, bool BF16>
__global__ void mma_m16n8k16(float* out) {
  const int e = blockIdx.x, l = threadIdx.x;
  const bool a_hot = e < 256;
  const int hot = a_hot ? e : e - 256;
  T a[8], b[4];
  for (int i = 0; i < 8; ++i) {
    const int idx = l * 8 + i;
    a[i] = (T)(a_hot ? (idx == hot ? 1.0f : 0.0f) : (float)(idx + 1));
  }
  for (int i = 0; i < 4; ++i) {
    const int idx = l * 4 + i;
    b[i] = (T)(a_hot ? (float)(idx + 1) : (idx == hot ? 1.0f : 0.0f));
  }
  const uint32_t* ar = reinterpret_cast<const uint32_t*>(a);
  const uint32_t* br = reinterpret_cast<const uint32_t*>(b);
  float d[4] = {0, 0, 0, 0};
  if (BF16)
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(ar[0]), "r"(ar[1]), "r"(ar[2]), "r"(ar[3]), "r"(br[0]), "r"(br[1]));
  else
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(ar[0]), "r"(ar[1]), "r"(ar[2]), "r"(ar[3]), "r"(br[0]), "r"(br[1]));
  for (int i = 0; i < 4; ++i) out[(e * 32 + l) * 4 + i] = d[i];
}

// tf32 m16n8k8: A 4 elements/lane (128), B 2/lane (64), D 4 f32/lane.
__global__ void mma_tf32_m16n8k8(float* out) {
  const int e = blockIdx.x, l = threadIdx.x;
  const bool a_hot = e < 128;
  const int hot = a_hot ? e : e - 128;
  float a[4], b[2];
  for (int i = 0; i < 4; ++i) { const int idx = l * 4 + i; a[i] = a_hot ? (idx == hot ? 1.f : 0.f) : (float)(idx + 1); }
  for (int i = 0; i < 2; ++i) { const int idx = l * 2 + i; b[i] = a_hot ? (float)(idx + 1) : (idx == hot ? 1.f : 0.f); }
  float d[4] = {0, 0, 0, 0};
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(__float_as_uint(a[0])), "r"(__float_as_uint(a[1])), "r"(__float_as_uint(a[2])),
                 "r"(__float_as_uint(a[3])), "r"(__float_as_uint(b[0])), "r"(__float_as_uint(b[1])));
  for (int i = 0; i < 4; ++i) out[(e * 32 + l) * 4 + i] = d[i];
}

// f64 m8n8k4: A 1/lane (32), B 1/lane (32), D 2 f64/lane.
__global__ void mma_f64_m8n8k4(double* out) {
  const int e = blockIdx.x, l = threadIdx.x;
  const bool a_hot = e < 32;
  const int hot = a_hot ? e : e - 32;
  const double a = a_hot ? (l == hot ? 1.0 : 0.0) : (double)(l + 1);
  const double b = a_hot ? (double)(l + 1) : (l == hot ? 1.0 : 0.0);
  double d0 = 0, d1 = 0;
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};"
               : "+d"(d0), "+d"(d1) : "d"(a), "d"(b));
  out[(e * 32 + l) * 2] = d0;
  out[(e * 32 + l) * 2 + 1] = d1;
}

template <typename T>
static void dump(const char* name, const T* host, int n, bool last) {
  printf("\"%s\": [", name);
  for (int i = 0; i < n; ++i) printf(i ? ",%.17g" : "%.17g", (double)host[i]);
  printf("]%s\n", last ? "" : ",");
}

int main() {
  uint32_t *lm; float* f; double* g;
  cudaMalloc(&lm, 4 * 128 * 4);
  cudaMalloc(&f, 384 * 128 * 4);
  cudaMalloc(&g, 64 * 64 * 8);
  static uint32_t hl[512]; static float hf[384 * 128]; static double hg[64 * 64];
  printf("{\n");
  ldmatrix_maps<<<1, 32>>>(lm);
  cudaMemcpy(hl, lm, sizeof hl, cudaMemcpyDeviceToHost);
  dump("ldmatrix_x1_x2_x4_x4trans", hl, 512, false);
  mma_m16n8k16<__half, false><<<384, 32>>>(f);
  cudaMemcpy(hf, f, 384 * 128 * 4, cudaMemcpyDeviceToHost);
  dump("mma_m16n8k16_f32_f16", hf, 384 * 128, false);
  mma_m16n8k16<__nv_bfloat16, true><<<384, 32>>>(f);
  cudaMemcpy(hf, f, 384 * 128 * 4, cudaMemcpyDeviceToHost);
  dump("mma_m16n8k16_f32_bf16", hf, 384 * 128, false);
  mma_tf32_m16n8k8<<<192, 32>>>(f);
  cudaMemcpy(hf, f, 192 * 128 * 4, cudaMemcpyDeviceToHost);
  dump("mma_m16n8k8_f32_tf32", hf, 192 * 128, false);
  mma_f64_m8n8k4<<<64, 32>>>(g);
  cudaMemcpy(hg, g, 64 * 64 * 8, cudaMemcpyDeviceToHost);
  dump("mma_m8n8k4_f64", hg, 64 * 64, false);
  cudaError_t err = cudaDeviceSynchronize();
  printf("\"status\": \"%s\"\n}\n", cudaGetErrorString(err));
  return err != cudaSuccess;
}
