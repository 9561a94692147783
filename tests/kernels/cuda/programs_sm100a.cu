// Program kernel using the sm_100 256-bit loads: ld.global{.nc}.v8.{b32,f32} and .v4.{b64,f64}
// with .L2::evict_* / .L1::evict_* qualifiers and the sink symbol '_'. Built for sm_100a only.
#include <cstdint>

__global__ void load_256bit(const float* in, const unsigned long long* in64, float* out,
                            unsigned long long* out64, int n8)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n8) return;
  const float* p = in + i * 8;                 // 32-byte aligned
  const unsigned long long* q = in64 + i * 4;  // 32-byte aligned
  float f[8], g[8];
  asm volatile("ld.global.L2::evict_last.v8.f32 {%0, %1, %2, %3, %4, %5, %6, %7}, [%8];"
               : "=f"(f[0]), "=f"(f[1]), "=f"(f[2]), "=f"(f[3]), "=f"(f[4]), "=f"(f[5]), "=f"(f[6]), "=f"(f[7])
               : "l"(p) : "memory");
  // lanes 1 and 6 are not read (sink '_'): keep them from the first load
  g[1] = f[1];
  g[6] = f[6];
  asm volatile("ld.global.nc.L1::evict_first.L2::evict_first.v8.f32 {%0, _, %1, %2, %3, %4, _, %5}, [%6];"
               : "=f"(g[0]), "=f"(g[2]), "=f"(g[3]), "=f"(g[4]), "=f"(g[5]), "=f"(g[7]) : "l"(p) : "memory");
  unsigned long long a[4], b[4];
  asm volatile("ld.global.L2::evict_normal.v4.u64 {%0, %1, %2, %3}, [%4];"
               : "=l"(a[0]), "=l"(a[1]), "=l"(a[2]), "=l"(a[3]) : "l"(q) : "memory");
  asm volatile("ld.global.nc.L2::evict_last.v4.b64 {%0, %1, %2, _}, [%3];"
               : "=l"(b[0]), "=l"(b[1]), "=l"(b[2]) : "l"(q) : "memory");
  b[3] = 7;
  // out[j] = f[j] + g[7 - j]: exact in float32 for the small-integer test data
  for (int j = 0; j < 8; ++j) out[i * 8 + j] = f[j] + g[7 - j];
  for (int j = 0; j < 4; ++j) out64[i * 4 + j] = a[j] * 3 + b[3 - j];
}
