// Access patterns whose memory-report figures are computed by hand in
// tests/memreport/test_access_patterns.py: unit-stride loads of 1/2/4/8/16 bytes, strided loads,
// a broadcast, a misaligned base, a gather, a 32x32 tile transpose with and without padding,
// float4 against four scalar loads, and shared-memory loads of 1/4/8/16 bytes.
// Built for sm_80 (see build.sh). Every kernel is launched with one CTA.

#include <cstdint>

// out[t] = in[offset + t * stride]: unit stride (stride 1), stride 2 and 32, a misaligned base
// (offset 1), a broadcast (stride 0)
extern "C" __global__ void load_f32_strided(const float* __restrict__ in, float* __restrict__ out,
                                            int offset, int stride) {
  int t = threadIdx.x;
  out[t] = in[offset + t * stride];
}

extern "C" __global__ void load_u8(const uint8_t* __restrict__ in, uint32_t* __restrict__ out) {
  int t = threadIdx.x;
  out[t] = in[t];
}

extern "C" __global__ void load_u16(const uint16_t* __restrict__ in, uint32_t* __restrict__ out) {
  int t = threadIdx.x;
  out[t] = in[t];
}

extern "C" __global__ void load_u64(const unsigned long long* __restrict__ in,
                                    unsigned long long* __restrict__ out) {
  int t = threadIdx.x;
  out[t] = in[t];
}

extern "C" __global__ void load_f32x4(const float4* __restrict__ in, float4* __restrict__ out) {
  int t = threadIdx.x;
  out[t] = in[t];
}

// the same 16 bytes per thread as load_f32x4, read as four scalar loads (a float pointer is not
// known to be 16-byte aligned, so nvcc cannot merge them into one ld.v4)
extern "C" __global__ void load_f32_four_scalars(const float* __restrict__ in, float* __restrict__ out) {
  int t = threadIdx.x;
  float a = in[4 * t + 0];
  float b = in[4 * t + 1];
  float c = in[4 * t + 2];
  float d = in[4 * t + 3];
  out[t] = a + b + c + d;
}

extern "C" __global__ void gather_f32(const float* __restrict__ in, const int* __restrict__ idx,
                                      float* __restrict__ out) {
  int t = threadIdx.x;
  out[t] = in[idx[t]];
}

// 32x32 tile transpose through shared memory, block (32, 32): PAD 0 reads a shared column (one
// bank for the whole warp), PAD 1 shifts each row by one bank
template <int PAD>
__device__ void transpose_tile(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ float tile[32][32 + PAD];
  int x = threadIdx.x, y = threadIdx.y;
  tile[y][x] = in[y * 32 + x];
  __syncthreads();
  out[y * 32 + x] = tile[x][y];
}

extern "C" __global__ void transpose_unpadded(const float* __restrict__ in, float* __restrict__ out) {
  transpose_tile<0>(in, out);
}

extern "C" __global__ void transpose_padded(const float* __restrict__ in, float* __restrict__ out) {
  transpose_tile<1>(in, out);
}

// shared-memory loads of 1, 4, 8 and 16 bytes per thread at unit stride, and a shared broadcast
extern "C" __global__ void shared_widths(const uint4* __restrict__ in, uint32_t* __restrict__ out) {
  __shared__ uint4 buf[32];
  int t = threadIdx.x;
  buf[t] = in[t];
  __syncthreads();
  const uint8_t* b8 = reinterpret_cast<const uint8_t*>(buf);
  const uint32_t* b32 = reinterpret_cast<const uint32_t*>(buf);
  const uint2* b64 = reinterpret_cast<const uint2*>(buf);
  uint32_t s = b8[t];
  s += b32[t];
  uint2 v2 = b64[t];
  uint4 v4 = buf[t];
  s += v2.x + v2.y + v4.x + v4.w;
  s += b32[0];
  out[t] = s;
}
