// Load forms reached through the CUDA cache-operator intrinsics:
// __ldg (ld.global.nc), __ldca (.ca), __ldcg (.cg), __ldcs (.cs), __ldlu (.lu), __ldcv (.cv),
// one kernel per (intrinsic, type) pair for every type the headers of CUDA 13.0 overload.
// Plus plain (weak) C++ loads of 32-byte aligned vector types, which nvcc turns into 256-bit
// ld.global.v4.{f64,u64} / v8 forms on sm_100a and splits into two 128-bit loads elsewhere.
#include <cuda_fp16.h>
#include <cuda_bf16.h>

#define LOAD_KERNEL(INTR, T, TAG)                                                     \
  extern "C" __global__ void INTR##_##TAG(const T* __restrict__ in, T* __restrict__ out) \
  {                                                                                   \
    out[threadIdx.x] = INTR(in + threadIdx.x);                                        \
  }

#define FOR_EACH_TYPE(INTR)                       \
  LOAD_KERNEL(INTR, char, char)                   \
  LOAD_KERNEL(INTR, signed char, schar)           \
  LOAD_KERNEL(INTR, unsigned char, uchar)         \
  LOAD_KERNEL(INTR, short, short)                 \
  LOAD_KERNEL(INTR, unsigned short, ushort)       \
  LOAD_KERNEL(INTR, int, int)                     \
  LOAD_KERNEL(INTR, unsigned int, uint)           \
  LOAD_KERNEL(INTR, long, long)                   \
  LOAD_KERNEL(INTR, unsigned long, ulong)         \
  LOAD_KERNEL(INTR, long long, longlong)          \
  LOAD_KERNEL(INTR, unsigned long long, ulonglong) \
  LOAD_KERNEL(INTR, float, float)                 \
  LOAD_KERNEL(INTR, double, double)               \
  LOAD_KERNEL(INTR, char2, char2)                 \
  LOAD_KERNEL(INTR, char4, char4)                 \
  LOAD_KERNEL(INTR, uchar2, uchar2)               \
  LOAD_KERNEL(INTR, uchar4, uchar4)               \
  LOAD_KERNEL(INTR, short2, short2)               \
  LOAD_KERNEL(INTR, short4, short4)               \
  LOAD_KERNEL(INTR, ushort2, ushort2)             \
  LOAD_KERNEL(INTR, ushort4, ushort4)             \
  LOAD_KERNEL(INTR, int2, int2)                   \
  LOAD_KERNEL(INTR, int4, int4)                   \
  LOAD_KERNEL(INTR, uint2, uint2)                 \
  LOAD_KERNEL(INTR, uint4, uint4)                 \
  LOAD_KERNEL(INTR, longlong2, longlong2)         \
  LOAD_KERNEL(INTR, ulonglong2, ulonglong2)       \
  LOAD_KERNEL(INTR, float2, float2)               \
  LOAD_KERNEL(INTR, float4, float4)               \
  LOAD_KERNEL(INTR, double2, double2)             \
  LOAD_KERNEL(INTR, __half, half)                 \
  LOAD_KERNEL(INTR, __half2, half2)               \
  LOAD_KERNEL(INTR, __nv_bfloat16, bf16)          \
  LOAD_KERNEL(INTR, __nv_bfloat162, bf162)

FOR_EACH_TYPE(__ldg)
FOR_EACH_TYPE(__ldca)
FOR_EACH_TYPE(__ldcg)
FOR_EACH_TYPE(__ldcs)
FOR_EACH_TYPE(__ldlu)
FOR_EACH_TYPE(__ldcv)

// Plain loads of 32-byte aligned types (CUDA 13 vector types and an aligned struct of 8 floats).
struct alignas(32) float8_32a { float v[8]; };

#define PLAIN_KERNEL(T, TAG)                                                                \
  extern "C" __global__ void plain_##TAG(const T* __restrict__ in, T* __restrict__ out)       \
  {                                                                                         \
    out[threadIdx.x] = in[threadIdx.x];                                                     \
  }

PLAIN_KERNEL(double4_32a, double4_32a)
PLAIN_KERNEL(long4_32a, long4_32a)
PLAIN_KERNEL(ulonglong4_32a, ulonglong4_32a)
PLAIN_KERNEL(float8_32a, float8_32a)
PLAIN_KERNEL(int4, int4)
PLAIN_KERNEL(double2, double2)

// Without __restrict__ the compiler may not use the non-coherent path: plain ld.global forms.
#define PLAIN_ALIASED_KERNEL(T, TAG)                                         \
  extern "C" __global__ void plain_aliased_##TAG(const T* in, T* out)         \
  {                                                                         \
    out[threadIdx.x] = in[threadIdx.x];                                     \
  }

PLAIN_ALIASED_KERNEL(double4_32a, double4_32a)
PLAIN_ALIASED_KERNEL(long4_32a, long4_32a)
PLAIN_ALIASED_KERNEL(float8_32a, float8_32a)
PLAIN_ALIASED_KERNEL(float4, float4)
