// Program kernels, part 3: the load forms themselves, in kernels with checkable results —
// every __ld* intrinsic, volatile and acquire/relaxed loads, and inline-PTX loads legal on
// sm_80 and sm_90 (.b128, .L2::cache_hint with createpolicy, .L2::64B/128B/256B, .L1::evict_*,
// relaxed/acquire scopes, mmio, shared::cta, param::entry).
#include <cuda/atomic>
#include <cuda_fp16.h>
#include <cstdint>

// Every cache-operator intrinsic on scalar and vector types; results combined exactly.
__global__ void ldg_intrinsics(const int* si, const float4* f4, const double2* d2, const short2* s2,
                               const unsigned char* uc, const long long* ll, const __half* h,
                               long long* out, float4* fout, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  long long* o = out + i * 6;
  o[0] = __ldg(si + i) + __ldca(si + (i + 1) % n);
  short2 s = __ldcs(s2 + i);
  o[1] = (long long)s.x * 1000 + s.y + __ldlu(uc + i);
  o[2] = __ldcv(ll + i) - __ldcg(ll + (i + 3) % n);
  double2 d = __ldg(d2 + i);
  double2 e = __ldcg(d2 + (n - 1 - i));
  o[3] = (long long)d.x + (long long)e.y;
  o[4] = (long long)__half2float(__ldg(h + i));
  o[5] = __ldg(reinterpret_cast<const int2*>(si) + i / 2).y;
  float4 a = __ldg(f4 + i), b = __ldcs(f4 + (i + 5) % n), c = __ldlu(f4 + (i + 7) % n);
  fout[i] = make_float4(a.x + b.y, a.y + c.z, b.z + c.w, __ldca(f4 + i).w);
}

// Volatile reads, cuda::atomic_ref loads at several orders/scopes, and atomic adds.
__global__ void volatile_acquire(const volatile int* vin, int* data, unsigned long long* wide,
                                 int* out, int n)
{
  __shared__ volatile int svals[128];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  svals[threadIdx.x] = vin[i];
  __syncthreads();
  int a = svals[blockDim.x - 1 - threadIdx.x];
  cuda::atomic_ref<int, cuda::thread_scope_device> dev(data[i]);
  cuda::atomic_ref<int, cuda::thread_scope_block> blk(data[i]);
  cuda::atomic_ref<unsigned long long, cuda::thread_scope_system> sys(wide[i]);
  int b = dev.load(cuda::memory_order_acquire);
  int c = blk.load(cuda::memory_order_relaxed);
  unsigned long long d = sys.load(cuda::memory_order_seq_cst);
  dev.fetch_add(10, cuda::memory_order_acq_rel);
  out[i * 3 + 0] = a + b;
  out[i * 3 + 1] = c * 2 + (int)(d >> 32);
  out[i * 3 + 2] = (int)d ^ dev.load(cuda::memory_order_acquire);
}

// Inline PTX loads legal on sm_80 and sm_90. Each lane combines them into a result that only
// depends on the values loaded.
__global__ void asm_loads(const uint4* in, const uint32_t* words, uint4* out, uint32_t* wout,
                          uint32_t bias)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  __shared__ uint32_t tile[128];
  tile[threadIdx.x] = words[i];
  __syncthreads();

  // 128-bit loads split into two 64-bit halves with mov.b128
  uint64_t lo0, hi0, lo1, hi1;
  asm volatile("{\n\t.reg .b128 v;\n\tld.global.b128 v, [%2];\n\tmov.b128 {%0, %1}, v;\n\t}"
               : "=l"(lo0), "=l"(hi0) : "l"(in + i) : "memory");
  asm volatile("{\n\t.reg .b128 v;\n\tld.global.nc.L1::evict_last.b128 v, [%2];\n\tmov.b128 {%0, %1}, v;\n\t}"
               : "=l"(lo1), "=l"(hi1) : "l"(in + (i ^ 1)) : "memory");

  // cache hints, prefetch sizes and eviction priorities on 32-bit loads
  uint64_t policy;
  asm volatile("createpolicy.fractional.L2::evict_last.L2::evict_unchanged.b64 %0, 0.75;" : "=l"(policy));
  const uint32_t* w = words + i;
  uint32_t v0, v1, v2, v3, v4, v5, v6, v7, v8;
  asm volatile("ld.global.L2::cache_hint.u32 %0, [%1], %2;" : "=r"(v0) : "l"(w), "l"(policy) : "memory");
  asm volatile("ld.global.nc.L2::256B.u32 %0, [%1];" : "=r"(v1) : "l"(w + 1) : "memory");
  asm volatile("ld.global.L1::evict_first.L2::64B.u32 %0, [%1];" : "=r"(v2) : "l"(w + 2) : "memory");
  asm volatile("ld.global.L2::128B.u32 %0, [%1];" : "=r"(v3) : "l"(w + 3) : "memory");
  asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v4) : "l"(w) : "memory");
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v5) : "l"(w + 1) : "memory");
  asm volatile("ld.global.mmio.relaxed.sys.u32 %0, [%1];" : "=r"(v6) : "l"(w + 2) : "memory");
  uint32_t s = (uint32_t)__cvta_generic_to_shared(tile + (threadIdx.x ^ 3));
  asm volatile("ld.shared::cta.u32 %0, [%1];" : "=r"(v7) : "r"(s) : "memory");
  asm volatile("ld.param::entry.u32 %0, [_Z9asm_loadsPK5uint4PKjPS_Pjj_param_4];" : "=r"(v8));

  out[i] = make_uint4((uint32_t)lo0 + (uint32_t)lo1, (uint32_t)(hi0 >> 32) ^ (uint32_t)hi1,
                      (uint32_t)(lo0 >> 32) - (uint32_t)(hi1 >> 32), (uint32_t)hi0 + (uint32_t)(lo1 >> 32));
  wout[i * 3 + 0] = v0 + v1 * 3 + v2 * 5 + v3 * 7;
  wout[i * 3 + 1] = v4 ^ v5 ^ v6;
  wout[i * 3 + 2] = v7 + v8;
}
