// Cache operators and hints whose effect on the memory report's cache model is checked in
// tests/memreport/test_cache_model.py. One warp per launch (block 32) so the order of accesses
// is the program order. The qualifiers are written with inline PTX where CUDA has no intrinsic.
// Built for sm_80 (see build.sh).

#include <cstdint>

// ---------------------------------------------------------------- load flavours
#define LOAD_ASM(name, opcode)                                                   \
  __device__ __forceinline__ float name(const float* p) {                        \
    float v;                                                                     \
    asm volatile(opcode " %0, [%1];" : "=f"(v) : "l"(p) : "memory");             \
    return v;                                                                    \
  }

LOAD_ASM(ld_no_allocate, "ld.global.L1::no_allocate.f32")
LOAD_ASM(ld_ca, "ld.global.ca.f32")
LOAD_ASM(ld_cg, "ld.global.cg.f32")
LOAD_ASM(ld_cs, "ld.global.cs.f32")
LOAD_ASM(ld_cv, "ld.global.cv.f32")
LOAD_ASM(ld_prefetch64, "ld.global.L2::64B.f32")
LOAD_ASM(ld_prefetch256, "ld.global.L2::256B.f32")

// An L2 eviction priority on a scalar load is written as a cache policy (.L2::cache_hint):
// ptxas 13.0 takes .L2::evict_* on ld only for 256-bit vectors.
#define POLICY_ASM(name, priority)                                               \
  __device__ __forceinline__ uint64_t name() {                                   \
    uint64_t p;                                                                  \
    asm volatile("createpolicy.fractional." priority ".b64 %0;" : "=l"(p));      \
    return p;                                                                    \
  }

POLICY_ASM(policy_last, "L2::evict_last")
POLICY_ASM(policy_normal, "L2::evict_normal")
POLICY_ASM(policy_first, "L2::evict_first")

__device__ __forceinline__ float ld_hinted(const float* p, uint64_t policy) {
  float v;
  asm volatile("ld.global.L1::no_allocate.L2::cache_hint.f32 %0, [%1], %2;"
               : "=f"(v) : "l"(p), "l"(policy) : "memory");
  return v;
}

// ---------------------------------------------------------------- a tile, a stream, the tile again
// Phase 1 reads the tile under a cache policy of one priority, phase 2 streams through a larger array with another,
// phase 3 reads the tile again with ld.global.cg (L2 only): its L2 hits are the tile's sectors
// that survived the stream.
#define TILE_STREAM(kname, tile_policy, stream_load)                                       \
  extern "C" __global__ void kname(const float* __restrict__ tile, int tile_n,            \
                                   const float* __restrict__ stream, int stream_n,        \
                                   float* __restrict__ out) {                             \
    int t = threadIdx.x;                                                                  \
    float acc = 0.f;                                                                      \
    uint64_t policy = tile_policy();                                                      \
    _Pragma("unroll 1") for (int i = t; i < tile_n; i += 32) acc += ld_hinted(tile + i, policy);              \
    _Pragma("unroll 1") for (int i = t; i < stream_n; i += 32) acc += stream_load(stream + i);                \
    _Pragma("unroll 1") for (int i = t; i < tile_n; i += 32) acc += ld_cg(tile + i);                          \
    out[t] = acc;                                                                         \
  }

TILE_STREAM(tile_last_stream_cs, policy_last, ld_cs)
TILE_STREAM(tile_first_stream_cs, policy_first, ld_cs)
TILE_STREAM(tile_last_stream_cg, policy_last, ld_cg)
TILE_STREAM(tile_normal_stream_cg, policy_normal, ld_cg)

// the tile read under a createpolicy policy: evict_last for the given fraction, evict_first
// for the rest
extern "C" __global__ void tile_fraction_stream_cg(const float* __restrict__ tile, int tile_n,
                                                   const float* __restrict__ stream, int stream_n,
                                                   float* __restrict__ out) {
  int t = threadIdx.x;
  uint64_t policy;
  asm volatile("createpolicy.fractional.L2::evict_last.L2::evict_first.b64 %0, 0.5;" : "=l"(policy));
  float acc = 0.f;
  _Pragma("unroll 1") for (int i = t; i < tile_n; i += 32) acc += ld_hinted(tile + i, policy);
  _Pragma("unroll 1") for (int i = t; i < stream_n; i += 32) acc += ld_cg(stream + i);
  _Pragma("unroll 1") for (int i = t; i < tile_n; i += 32) acc += ld_cg(tile + i);
  out[t] = acc;
}

// a range policy over the tile: evict_last for its first half, evict_first for the second
extern "C" __global__ void tile_range_stream_cg(const float* __restrict__ tile, int tile_n,
                                                const float* __restrict__ stream, int stream_n,
                                                float* __restrict__ out) {
  int t = threadIdx.x;
  uint64_t policy;
  uint32_t total = tile_n * 4, half = tile_n * 2;
  asm volatile("createpolicy.range.global.L2::evict_last.L2::evict_first.b64 %0, [%1], %2, %3;"
               : "=l"(policy) : "l"(tile), "r"(half), "r"(total));
  float acc = 0.f;
  _Pragma("unroll 1") for (int i = t; i < tile_n; i += 32) acc += ld_hinted(tile + i, policy);
  _Pragma("unroll 1") for (int i = t; i < stream_n; i += 32) acc += ld_cg(stream + i);
  _Pragma("unroll 1") for (int i = t; i < tile_n; i += 32) acc += ld_cg(tile + i);
  out[t] = acc;
}

// evict_last tile, then applypriority.L2::evict_normal on each of its lines: the stream evicts it
extern "C" __global__ void tile_applypriority_stream_cg(const float* __restrict__ tile, int tile_n,
                                                        const float* __restrict__ stream, int stream_n,
                                                        float* __restrict__ out) {
  int t = threadIdx.x;
  float acc = 0.f;
  uint64_t policy = policy_last();
  _Pragma("unroll 1") for (int i = t; i < tile_n; i += 32) acc += ld_hinted(tile + i, policy);
  _Pragma("unroll 1") for (int i = 32 * t; i < tile_n; i += 32 * 32)
    asm volatile("applypriority.global.L2::evict_normal [%0], 128;" :: "l"(tile + i) : "memory");
  _Pragma("unroll 1") for (int i = t; i < stream_n; i += 32) acc += ld_cg(stream + i);
  _Pragma("unroll 1") for (int i = t; i < tile_n; i += 32) acc += ld_cg(tile + i);
  out[t] = acc;
}

// prefetch.global.L2::evict_last brings the tile in without a load; the stream passes; the tile
// is read (the prefetch itself moves no data to the SM)
extern "C" __global__ void prefetch_last_stream_cg(const float* __restrict__ tile, int tile_n,
                                                   const float* __restrict__ stream, int stream_n,
                                                   float* __restrict__ out) {
  int t = threadIdx.x;
  _Pragma("unroll 1") for (int i = 32 * t; i < tile_n; i += 32 * 32)
    asm volatile("prefetch.global.L2::evict_last [%0];" :: "l"(tile + i) : "memory");
  float acc = 0.f;
  _Pragma("unroll 1") for (int i = t; i < stream_n; i += 32) acc += ld_cg(stream + i);
  _Pragma("unroll 1") for (int i = t; i < tile_n; i += 32) acc += ld_cg(tile + i);
  out[t] = acc;
}

// ---------------------------------------------------------------- the same data read twice
#define READ_TWICE(kname, load)                                                        \
  extern "C" __global__ void kname(const float* __restrict__ in, int n,               \
                                   float* __restrict__ out) {                         \
    int t = threadIdx.x;                                                              \
    float acc = 0.f;                                                                  \
    _Pragma("unroll 1") for (int i = t; i < n; i += 32) acc += load(in + i);                              \
    _Pragma("unroll 1") for (int i = t; i < n; i += 32) acc += load(in + i);                              \
    out[t] = acc;                                                                     \
  }

READ_TWICE(twice_ca, ld_ca)
READ_TWICE(twice_cg, ld_cg)
READ_TWICE(twice_cv, ld_cv)
READ_TWICE(twice_no_allocate, ld_no_allocate)

// ---------------------------------------------------------------- prefetch sizes
// each lane reads one 4-byte word at the start of its own 256-byte block with a prefetch-size
// hint, then the word 64 bytes further on with ld.global.cg
#define PREFETCH_SIZE(kname, load)                                                     \
  extern "C" __global__ void kname(const float* __restrict__ in, float* __restrict__ out) { \
    int t = threadIdx.x;                                                              \
    float a = load(in + 64 * t);                                                      \
    float b = ld_cg(in + 64 * t + 16);                                                \
    out[t] = a + b;                                                                   \
  }

PREFETCH_SIZE(prefetch_64b, ld_prefetch64)
PREFETCH_SIZE(prefetch_256b, ld_prefetch256)

// ---------------------------------------------------------------- discard
// the warp writes a buffer (dirty in L2), discards its lines, then reads it back through L2
extern "C" __global__ void write_discard_read(float* __restrict__ buf, int n, float* __restrict__ out) {
  int t = threadIdx.x;
  _Pragma("unroll 1") for (int i = t; i < n; i += 32) buf[i] = float(i);
  _Pragma("unroll 1") for (int i = 32 * t; i < n; i += 32 * 32)
    asm volatile("discard.global.L2 [%0], 128;" :: "l"(buf + i) : "memory");
  float acc = 0.f;
  _Pragma("unroll 1") for (int i = t; i < n; i += 32) acc += ld_cg(buf + i);
  out[t] = acc;
}
