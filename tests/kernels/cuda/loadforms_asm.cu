// Load forms nvcc does not produce on its own, written as inline PTX: 128-bit and 256-bit loads,
// eviction priorities, prefetch sizes, cache hints with createpolicy, relaxed/acquire at every
// scope, mmio, explicit shared::cta / shared::cluster / param::entry spaces, immediate local
// addresses. Features are guarded by __CUDA_ARCH__ so every target builds:
//   sm_75+  : everything below the sm_80 section
//   sm_80+  : .L2::256B, .L2::cache_hint + createpolicy
//   sm_90+  : .cluster scope, ld.shared::cluster (via mapa)
//   sm_100+ : .v8.{b32,u32,s32,f32} / .v4.{b64,u64,s64,f64} with .L2::evict_*, sink '_'
#include <cstdint>

#define ARCH_AT_LEAST(N) (!defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= (N))

// One 32-bit load written as `OPCODE %0, [%1];` from a global pointer.
#define LD32(OPCODE, PTR, OUT) asm volatile(OPCODE " %0, [%1];" : "=r"(OUT) : "l"(PTR) : "memory")

// ---- sm_75+: eviction priority, prefetch size, weak/volatile spelled out ---------------------------
extern "C" __global__ void asm_eviction_prefetch(const uint32_t* in, uint32_t* out)
{
  const uint32_t* p = in + threadIdx.x;
  uint32_t v[20];
  LD32("ld.global.L1::evict_normal.u32", p, v[0]);
  LD32("ld.global.L1::evict_unchanged.u32", p, v[1]);
  LD32("ld.global.L1::evict_first.u32", p, v[2]);
  LD32("ld.global.L1::evict_last.u32", p, v[3]);
  LD32("ld.global.L1::no_allocate.u32", p, v[4]);
  LD32("ld.global.nc.L1::evict_last.b32", p, v[5]);
  LD32("ld.global.nc.L1::no_allocate.s32", p, v[6]);
  LD32("ld.global.L2::64B.b32", p, v[7]);
  LD32("ld.global.L2::128B.b32", p, v[8]);
  LD32("ld.L2::128B.b32", p, v[9]);
  LD32("ld.global.nc.L2::64B.b32", p, v[10]);
  LD32("ld.global.nc.L2::128B.u32", p, v[11]);
  LD32("ld.global.L1::evict_last.L2::64B.u32", p, v[12]);
  LD32("ld.weak.global.u32", p, v[13]);
  LD32("ld.weak.global.ca.u32", p, v[14]);
  LD32("ld.global.ca.nc.u32", p, v[15]);
  LD32("ld.global.cg.nc.u32", p, v[16]);
  LD32("ld.global.cs.nc.L2::64B.u32", p, v[17]);
  LD32("ld.volatile.global.L2::128B.u32", p, v[18]);
  LD32("ld.global.cv.u32", p, v[19]);
  uint32_t acc = 0;
  for (int i = 0; i < 20; ++i) acc += v[i] << (i & 7);
  out[threadIdx.x] = acc;
}

// Relaxed / acquire at cta, gpu and sys scope on global, shared and generic addresses; mmio.
extern "C" __global__ void asm_relaxed_acquire(const uint32_t* in, uint64_t* in64, uint32_t* out)
{
  __shared__ uint32_t tile[128];
  tile[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  const uint32_t* g = in + threadIdx.x;
  uint32_t s = (uint32_t)__cvta_generic_to_shared(tile + (127 - threadIdx.x));
  uint32_t v[12];
  LD32("ld.relaxed.cta.global.u32", g, v[0]);
  LD32("ld.relaxed.gpu.global.u32", g, v[1]);
  LD32("ld.relaxed.sys.global.u32", g, v[2]);
  LD32("ld.acquire.cta.global.u32", g, v[3]);
  LD32("ld.acquire.gpu.global.u32", g, v[4]);
  LD32("ld.acquire.sys.u32", g, v[5]);
  LD32("ld.global.mmio.relaxed.sys.u32", g, v[6]);
  LD32("ld.mmio.relaxed.sys.global.s32", g, v[7]);
  asm volatile("ld.relaxed.cta.shared.u32 %0, [%1];" : "=r"(v[8]) : "r"(s) : "memory");
  asm volatile("ld.acquire.gpu.shared::cta.b32 %0, [%1];" : "=r"(v[9]) : "r"(s) : "memory");
  asm volatile("ld.shared::cta.acquire.sys.b32 %0, [%1];" : "=r"(v[10]) : "r"(s) : "memory");
  asm volatile("ld.volatile.shared::cta.u32 %0, [%1];" : "=r"(v[11]) : "r"(s) : "memory");
  uint64_t w;
  asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(w) : "l"(in64 + threadIdx.x) : "memory");
  uint32_t acc = (uint32_t)w;
  for (int i = 0; i < 12; ++i) acc ^= v[i] + i;
  out[threadIdx.x] = acc;
}

// 128-bit loads: weak/nc/volatile/relaxed/acquire, global/shared/generic, then split with mov.b128.
#define LD128(OPCODE, ADDR_CONSTRAINT, ADDR, LO, HI)                                      \
  asm volatile("{\n\t.reg .b128 wide;\n\t" OPCODE " wide, [%2];\n\tmov.b128 {%0, %1}, wide;\n\t}" \
               : "=l"(LO), "=l"(HI) : ADDR_CONSTRAINT(ADDR) : "memory")

extern "C" __global__ void asm_b128(const ulonglong2* in, ulonglong2* out)
{
  __shared__ ulonglong2 tile[64];
  tile[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  const ulonglong2* g = in + threadIdx.x;
  uint32_t s = (uint32_t)__cvta_generic_to_shared(tile + (63 - threadIdx.x));
  uint64_t lo[9], hi[9];
  LD128("ld.global.b128", "l", g, lo[0], hi[0]);
  LD128("ld.global.nc.b128", "l", g, lo[1], hi[1]);
  LD128("ld.b128", "l", g, lo[2], hi[2]);
  LD128("ld.shared.b128", "r", s, lo[3], hi[3]);
  LD128("ld.volatile.global.b128", "l", g, lo[4], hi[4]);
  LD128("ld.relaxed.gpu.global.b128", "l", g, lo[5], hi[5]);
  LD128("ld.acquire.sys.global.b128", "l", g, lo[6], hi[6]);
  LD128("ld.global.L1::evict_last.L2::128B.b128", "l", g, lo[7], hi[7]);
  LD128("ld.global.cg.b128", "l", g, lo[8], hi[8]);
  ulonglong2 r = make_ulonglong2(0, 0);
  for (int i = 0; i < 9; ++i) { r.x += lo[i] * (i + 1); r.y ^= hi[i]; }
  out[threadIdx.x] = r;
}

// Explicit param::entry, a kernel parameter read by name.
extern "C" __global__ void asm_param_entry(uint32_t a, uint64_t b, uint32_t* out)
{
  uint32_t ra;
  uint64_t rb;
  asm volatile("ld.param::entry.u32 %0, [asm_param_entry_param_0];" : "=r"(ra));
  asm volatile("ld.param::entry.b64 %0, [asm_param_entry_param_1];" : "=l"(rb));
  out[threadIdx.x] = ra + (uint32_t)rb + threadIdx.x;
}

// Immediate and variable-plus-offset addresses in .local and .const space (a corpus form, not a
// program: the immediate local address is whatever the frame holds there).
__constant__ uint32_t asm_const_table[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
extern "C" __global__ void asm_immediate_addresses(uint32_t* out)
{
  uint32_t a, b, c, d;
  uint64_t wide;
  asm volatile("{\n\t.local .align 8 .b8 frame[16];\n\t"
               "st.local.u32 [frame], %5;\n\t"
               "st.local.u32 [frame+4], %5;\n\t"
               "ld.local.u32 %0, [frame+4];\n\t"
               "ld.local.u32 %1, [0];\n\t"
               "ld.local.v2.u32 {%2, %3}, [8];\n\t"
               "ld.local.b64 %4, [240];\n\t}"
               : "=r"(a), "=r"(b), "=r"(c), "=r"(d), "=l"(wide) : "r"(threadIdx.x) : "memory");
  uint32_t e;
  asm volatile("ld.const.u32 %0, [asm_const_table+8];" : "=r"(e));
  out[threadIdx.x] = a + b + c + d + e + (uint32_t)wide;
}

// ---- sm_80+: .L2::256B prefetch and .L2::cache_hint with createpolicy --------------------------------
#if ARCH_AT_LEAST(800)
extern "C" __global__ void asm_cache_hint(const uint32_t* in, const double* din, uint32_t* out)
{
  const uint32_t* p = in + threadIdx.x;
  uint64_t frac_last, frac_pair, frac_half, range;
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0;" : "=l"(frac_last));
  asm volatile("createpolicy.fractional.L2::evict_last.L2::evict_unchanged.b64 %0, 1.0;" : "=l"(frac_pair));
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 0.5;" : "=l"(frac_half));
  asm volatile("createpolicy.range.L2::evict_last.L2::evict_first.b64 %0, [%1], 256, 1024;"
               : "=l"(range) : "l"(in));
  uint32_t v[8];
  asm volatile("ld.global.L2::cache_hint.u32 %0, [%1], %2;" : "=r"(v[0]) : "l"(p), "l"(frac_last));
  asm volatile("ld.global.nc.L2::cache_hint.b32 %0, [%1], %2;" : "=r"(v[1]) : "l"(p), "l"(frac_pair));
  asm volatile("ld.global.L1::evict_last.L2::cache_hint.L2::256B.u32 %0, [%1], %2;"
               : "=r"(v[2]) : "l"(p), "l"(frac_half));
  asm volatile("ld.L2::cache_hint.u32 %0, [%1], %2;" : "=r"(v[3]) : "l"(p), "l"(range));
  asm volatile("ld.relaxed.gpu.global.L2::cache_hint.u32 %0, [%1], %2;" : "=r"(v[4]) : "l"(p), "l"(range));
  LD32("ld.global.L2::256B.b32", p, v[5]);
  LD32("ld.global.nc.L2::256B.u32", p, v[6]);
  LD32("ld.global.nc.L1::evict_first.L2::256B.u32", p, v[7]);
  double d;
  asm volatile("ld.global.L2::256B.f64 %0, [%1];" : "=d"(d) : "l"(din + threadIdx.x));
  uint32_t acc = (uint32_t)d;
  for (int i = 0; i < 8; ++i) acc += v[i] * (i + 1);
  out[threadIdx.x] = acc;
}
#endif

// ---- sm_90+: cluster scope and distributed shared memory -------------------------------------------
#if ARCH_AT_LEAST(900)
extern "C" __global__ void __cluster_dims__(2, 1, 1) asm_cluster(const uint32_t* in, uint32_t* out)
{
  __shared__ uint32_t tile[128];
  tile[threadIdx.x] = in[blockIdx.x * 128 + threadIdx.x];
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
  uint32_t local = (uint32_t)__cvta_generic_to_shared(tile + threadIdx.x);
  uint32_t rank, peer_addr, v[6];
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(peer_addr) : "r"(local), "r"(rank ^ 1));
  asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v[0]) : "r"(peer_addr) : "memory");
  asm volatile("ld.relaxed.cluster.shared::cluster.u32 %0, [%1];" : "=r"(v[1]) : "r"(peer_addr) : "memory");
  asm volatile("ld.acquire.cluster.shared::cluster.b32 %0, [%1];" : "=r"(v[2]) : "r"(peer_addr) : "memory");
  asm volatile("ld.shared::cta.relaxed.cluster.u32 %0, [%1];" : "=r"(v[3]) : "r"(local) : "memory");
  LD32("ld.relaxed.cluster.global.u32", in + threadIdx.x, v[4]);
  LD32("ld.acquire.cluster.u32", in + threadIdx.x, v[5]);
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
  out[blockIdx.x * 128 + threadIdx.x] = v[0] + v[1] + v[2] + v[3] + v[4] + v[5];
}
#endif

// ---- sm_100+: 256-bit loads ---------------------------------------------------------------------------
#if ARCH_AT_LEAST(1000)
#define V8_OUT(R) "=r"(R[0]), "=r"(R[1]), "=r"(R[2]), "=r"(R[3]), "=r"(R[4]), "=r"(R[5]), "=r"(R[6]), "=r"(R[7])
#define V8_REGS "{%0, %1, %2, %3, %4, %5, %6, %7}"
#define LD_V8(OPCODE, PTR, R) asm volatile(OPCODE " " V8_REGS ", [%8];" : V8_OUT(R) : "l"(PTR) : "memory")
#define V4_OUT(R) "=l"(R[0]), "=l"(R[1]), "=l"(R[2]), "=l"(R[3])
#define LD_V4_64(OPCODE, PTR, R) \
  asm volatile(OPCODE " {%0, %1, %2, %3}, [%4];" : V4_OUT(R) : "l"(PTR) : "memory")

extern "C" __global__ void asm_256bit(const uint4* in, uint64_t* out)
{
  const uint4* p = in + 2 * threadIdx.x;  // 32-byte aligned
  uint32_t r[8];
  uint64_t q[4];
  uint64_t acc = 0;
#define ACC8 for (int i = 0; i < 8; ++i) acc = acc * 3 + r[i]
#define ACC4 for (int i = 0; i < 4; ++i) acc = acc * 5 + q[i]
  LD_V8("ld.global.v8.b32", p, r); ACC8;
  LD_V8("ld.global.L2::evict_first.v8.u32", p, r); ACC8;
  LD_V8("ld.global.L2::evict_last.v8.s32", p, r); ACC8;
  LD_V8("ld.global.L2::evict_normal.L1::evict_last.v8.b32", p, r); ACC8;
  LD_V8("ld.global.nc.v8.u32", p, r); ACC8;
  LD_V8("ld.global.nc.L2::evict_last.v8.b32", p, r); ACC8;
  LD_V8("ld.global.L1::evict_first.L2::evict_first.v8.b32", p, r); ACC8;
  LD_V4_64("ld.global.v4.b64", p, q); ACC4;
  LD_V4_64("ld.global.L2::evict_last.L1::evict_last.v4.u64", p, q); ACC4;
  LD_V4_64("ld.global.nc.L2::evict_first.v4.s64", p, q); ACC4;
  LD_V4_64("ld.global.L2::evict_normal.v4.b64", p, q); ACC4;
  LD_V4_64("ld.v4.u64", p, q); ACC4;
  float f[8];
  asm volatile("ld.global.L2::evict_last.v8.f32 {%0, _, %1, %2, %3, %4, %5, %6}, [%7];"
               : "=f"(f[0]), "=f"(f[2]), "=f"(f[3]), "=f"(f[4]), "=f"(f[5]), "=f"(f[6]), "=f"(f[7])
               : "l"(p) : "memory");
  double d[4];
  asm volatile("ld.global.nc.L2::evict_first.v4.f64 {%0, %1, _, %2}, [%3];"
               : "=d"(d[0]), "=d"(d[1]), "=d"(d[3]) : "l"(p) : "memory");
  uint64_t policy;
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
  asm volatile("ld.global.L2::evict_last.L2::cache_hint.v4.u64 {%0, %1, %2, %3}, [%4], %5;"
               : V4_OUT(q) : "l"(p), "l"(policy) : "memory");
  ACC4;
  acc += (uint64_t)(f[0] + f[7]) + (uint64_t)(d[0] + d[3]);
  out[threadIdx.x] = acc;
}
#endif
