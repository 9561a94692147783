// Program kernels, part 2: arithmetic — integer division, 64-bit math, bit operations, float and
// double math, conversions, half precision, narrow integer types, struct and constant parameters,
// local arrays and __noinline__ device functions.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cstdint>

// Signed/unsigned division and modulo by run-time and compile-time divisors (C truncation).
__global__ void int_divmod(const int* a, const int* b, const unsigned int* ua, const unsigned int* ub,
                           int* out, unsigned int* uout, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i * 4 + 0] = a[i] / b[i];
  out[i * 4 + 1] = a[i] % b[i];
  out[i * 4 + 2] = a[i] / 7;
  out[i * 4 + 3] = a[i] % -12;
  uout[i * 4 + 0] = ua[i] / ub[i];
  uout[i * 4 + 1] = ua[i] % ub[i];
  uout[i * 4 + 2] = ua[i] / 10u;
  uout[i * 4 + 3] = ua[i] % 64u;
}

// 64-bit integer math: wrapping multiply, high half, division, rotation, arithmetic shift.
__global__ void int64_math(const unsigned long long* a, const unsigned long long* b,
                           unsigned long long* out, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned long long x = a[i], y = b[i];
  unsigned s = (unsigned)(y & 63);
  unsigned long long* o = out + i * 6;
  o[0] = x * y + (x >> 3);
  o[1] = __umul64hi(x, y);
  o[2] = x / (y | 1);
  o[3] = x % (y | 1);
  o[4] = (x << s) | (x >> ((64 - s) & 63));
  o[5] = (unsigned long long)((long long)x >> (s & 31)) ^ (unsigned long long)__mul64hi((long long)x, (long long)y);
}

// Bit operations: popc, clz, brev, byte_perm, ffs, funnel shift, bitfield extracts by shifts.
__global__ void bit_ops(const unsigned int* in, unsigned int* out, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned x = in[i], y = in[(i + 1) % n];
  unsigned* o = out + i * 8;
  o[0] = __popc(x);
  o[1] = __clz(x);
  o[2] = __brev(x);
  o[3] = __byte_perm(x, y, 0x5173);
  o[4] = __ffs(x);
  o[5] = __funnelshift_l(x, y, i & 31);
  o[6] = (x >> 5) & 0x3ffu;                      // unsigned bitfield extract
  o[7] = (unsigned)(((int)(x << 7)) >> 20);      // signed bitfield extract
}

// Single-precision math, in three outputs by accuracy class:
//   exact_out  : sqrtf and '/' (IEEE with nvcc's default -prec-sqrt/-prec-div), fmaf (one
//                rounding), fminf/fmaxf/fabsf/copysignf sums
//   approx_out : expf, __fdividef, rsqrtf, sinf (CUDA Programming Guide: max 2 ulp each)
//   fast_out   : __expf (max 2 + floor(|1.173 * x|) ulp)
__global__ void float_math(const float* a, const float* b, float* exact_out, float* approx_out,
                           float* fast_out, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = a[i], y = b[i];
  exact_out[0 * n + i] = sqrtf(x);
  exact_out[1 * n + i] = x / y;
  exact_out[2 * n + i] = fmaf(x, y, -x);
  exact_out[3 * n + i] = fminf(x, y) + fmaxf(-x, y) + fabsf(y) + copysignf(1.0f, y);
  approx_out[0 * n + i] = expf(y);
  approx_out[1 * n + i] = __fdividef(x, y);
  approx_out[2 * n + i] = rsqrtf(x);
  approx_out[3 * n + i] = sinf(y);
  fast_out[i] = __expf(y);
}

// Double precision: every operation is correctly rounded.
__global__ void double_math(const double* a, const double* b, const double* c, double* out, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double x = a[i], y = b[i], z = c[i];
  out[0 * n + i] = x + y;
  out[1 * n + i] = x * y;
  out[2 * n + i] = x / y;
  out[3 * n + i] = sqrt(x);
  out[4 * n + i] = fma(x, y, z);
}

// Conversions between float, int, unsigned, half, bfloat16 and double.
__global__ void conversions(const float* f, const int* s, const double* d, int* iout,
                            unsigned int* uout, float* fout, unsigned short* hout, double* dout, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = f[i];
  iout[i * 5 + 0] = (int)x;                 // cvt.rzi.s32.f32
  iout[i * 5 + 1] = __float2int_rn(x);
  iout[i * 5 + 2] = __float2int_rd(x);
  iout[i * 5 + 3] = __float2int_ru(x);
  iout[i * 5 + 4] = (int)d[i];
  uout[i] = (unsigned)fabsf(x);
  fout[i * 4 + 0] = (float)s[i];            // int -> float, round to nearest
  fout[i * 4 + 1] = (float)(unsigned)s[i];
  fout[i * 4 + 2] = (float)d[i];
  fout[i * 4 + 3] = __half2float(__float2half(x));
  hout[i * 2 + 0] = __half_as_ushort(__float2half_rn(x));
  hout[i * 2 + 1] = __bfloat16_as_ushort(__float2bfloat16_rn(x));
  dout[i * 2 + 0] = (double)x;
  dout[i * 2 + 1] = (double)((long long)s[i] * 1000003LL);
}

// Half-precision arithmetic on scalars and half2 pairs.
__global__ void half_arith(const __half* a, const __half* b, const __half* c, __half* out, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __half x = a[i], y = b[i], z = c[i];
  out[i * 6 + 0] = __hadd(x, y);
  out[i * 6 + 1] = __hmul(x, y);
  out[i * 6 + 2] = __hfma(x, y, z);
  out[i * 6 + 3] = __hmax(x, y);
  __half2 p = __halves2half2(x, y), q = __halves2half2(z, x);
  __half2 r = __hsub2(p, q);
  out[i * 6 + 4] = __low2half(r);
  out[i * 6 + 5] = __high2half(r);
}

// Narrow integer loads: signed types sign-extend, unsigned types zero-extend.
__global__ void narrow_types(const signed char* sc, const unsigned char* uc, const short* ss,
                             const unsigned short* us, int* out, unsigned int* uout, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i * 3 + 0] = sc[i] * 3 + ss[i];
  out[i * 3 + 1] = uc[i] - us[i];
  out[i * 3 + 2] = (sc[i] < 0) + (ss[i] < 0) * 2 + (uc[i] > 127) * 4 + (us[i] > 32767) * 8;
  uout[i] = (unsigned)sc[i] + (unsigned)ss[i];
}

// A struct passed by value (.param .b8 array) mixing every field width.
struct Transform {
  float scale;
  float bias;
  int offset;
  short step;
  signed char sign;
  double factor;
};

__global__ void struct_param(Transform t, const float* in, float* out, int* iout, double* dout, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = in[i] * t.scale + t.bias;
  iout[i] = i * t.offset + t.step * t.sign;
  dout[i] = in[i] * t.factor;
}

// __constant__ tables with initializers.
__constant__ int const_lut[64] = {
  17, -3, 42, 8, 0, 99, -64, 5, 23, 71, -8, 14, 3, 2, 1, 1000, 7, -7, 77, -77, 12, 34, 56, 78,
  90, -12, -34, -56, 11, 22, 33, 44, 55, 66, 88, 111, 222, 333, 444, 555, -1, -2, -4, -8, -16,
  -32, 6, 28, 496, 8128, 13, 21, 34, 55, 89, 144, 233, 377, 610, 987, 1597, 2584, 4181, 6765};
__constant__ float const_poly[4] = {0.5f, -1.25f, 2.0f, 0.125f};

__global__ void const_lookup(const int* idx, const float* x, int* out, float* fout, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int k = idx[i];
  out[i] = const_lut[k & 63] + const_lut[(k >> 6) & 63] * 2;
  float v = x[i];
  fout[i] = fmaf(fmaf(fmaf(const_poly[3], v, const_poly[2]), v, const_poly[1]), v, const_poly[0]);
}

// A dynamically indexed local array stays in local memory (.local, ld.local/st.local).
__global__ void local_array(const int* in, const int* idx, int* out, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int scratch[32];
  for (int j = 0; j < 32; ++j) scratch[j] = in[(i + j) % n] ^ j;
  int k = idx[i];
  for (int t = 0; t < 4; ++t) scratch[(k + 7 * t) & 31] += t + 1;
  out[i] = scratch[k & 31] - scratch[(k >> 5) & 31];
}

// Device functions that stay calls (call.uni, .func, .param passing), one of them recursive.
__device__ __noinline__ int gcd(int a, int b)
{
  while (b != 0) {
    int t = a % b;
    a = b;
    b = t;
  }
  return a;
}

struct Pair { long long lo; int hi; };

__device__ __noinline__ Pair mix(long long x, int y)
{
  Pair p;
  p.lo = x * 31 + y;
  p.hi = (int)(x >> 7) ^ y;
  return p;
}

__device__ __noinline__ int digit_sum(unsigned int v)
{
  return v < 10 ? (int)v : (int)(v % 10) + digit_sum(v / 10);
}

__global__ void noinline_calls(const int* a, const int* b, long long* out, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int g = gcd(a[i], b[i]);
  Pair p = mix((long long)a[i] * b[i], g);
  out[i * 3 + 0] = g;
  out[i * 3 + 1] = p.lo + p.hi;
  out[i * 3 + 2] = digit_sum((unsigned)a[i]);
}

// Sequential float dot products (one row per thread), contracted to fma.rn.f32 by nvcc.
__global__ void matvec_f32(const float* m, const float* v, float* out, int rows, int cols)
{
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float acc = 0.0f;
  for (int c = 0; c < cols; ++c) acc += m[r * cols + c] * v[c];
  out[r] = acc;
}
