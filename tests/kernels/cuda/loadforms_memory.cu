// Load forms reached through ordinary C++: volatile loads from global, shared and local memory,
// plain loads from every state space (global, shared, local, const, param, generic), and
// cuda::atomic_ref loads for every memory order and thread scope.
#include <cuda/atomic>

// ---- volatile loads -------------------------------------------------------------------------
#define VOLATILE_GLOBAL(T, TAG)                                                      \
  extern "C" __global__ void volatile_global_##TAG(const volatile T* in, T* out)      \
  {                                                                                \
    out[threadIdx.x] = in[threadIdx.x];                                            \
  }

#define VOLATILE_SHARED(T, TAG)                                                      \
  extern "C" __global__ void volatile_shared_##TAG(const T* in, T* out)               \
  {                                                                                \
    volatile __shared__ T tile[256];                                               \
    tile[threadIdx.x] = in[threadIdx.x];                                           \
    __syncthreads();                                                               \
    out[threadIdx.x] = tile[255 - threadIdx.x];                                    \
  }

// The array is indexed with a run-time value, so it has to live in local memory.
#define VOLATILE_LOCAL(T, TAG)                                                       \
  extern "C" __global__ void volatile_local_##TAG(const T* in, T* out, int k)         \
  {                                                                                \
    volatile T scratch[16];                                                        \
    for (int i = 0; i < 16; ++i) scratch[i] = in[threadIdx.x * 16 + i];            \
    out[threadIdx.x] = scratch[(threadIdx.x + k) & 15];                            \
  }

#define VOLATILE_ALL(T, TAG) VOLATILE_GLOBAL(T, TAG) VOLATILE_SHARED(T, TAG) VOLATILE_LOCAL(T, TAG)

VOLATILE_ALL(signed char, s8)
VOLATILE_ALL(unsigned char, u8)
VOLATILE_ALL(short, s16)
VOLATILE_ALL(unsigned short, u16)
VOLATILE_ALL(int, s32)
VOLATILE_ALL(unsigned int, u32)
VOLATILE_ALL(long long, s64)
VOLATILE_ALL(unsigned long long, u64)
VOLATILE_ALL(float, f32)
VOLATILE_ALL(double, f64)

// Generic-pointer volatile load: the state space is only known at run time.
extern "C" __global__ void volatile_generic(const int* g, int* out, int pick)
{
  __shared__ int s[128];
  int l[8];
  s[threadIdx.x] = g[threadIdx.x];
  for (int i = 0; i < 8; ++i) l[i] = g[i] * 3;
  __syncthreads();
  const volatile int* p = pick == 0 ? g : pick == 1 ? s : l + (threadIdx.x & 7);
  out[threadIdx.x] = p[pick == 2 ? 0 : threadIdx.x];
}

// ---- plain loads from each state space --------------------------------------------------------
__constant__ int const_table[64] = {
  3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3, 2, 3, 8, 4, 6, 2, 6, 4, 3, 3, 8, 3, 2, 7, 9, 5,
  0, 2, 8, 8, 4, 1, 9, 7, 1, 6, 9, 3, 9, 9, 3, 7, 5, 1, 0, 5, 8, 2, 0, 9, 7, 4, 9, 4, 4, 5, 9, 2};
__constant__ double const_scale[2] = {0.5, 2.0};
__device__ int global_var[32];
__device__ float global_scalar = 1.5f;

struct Params { int a; float b; double c; short d; char e; long long f[3]; };

extern "C" __global__ void plain_spaces(const int* in, double* out, Params p, int k)
{
  __shared__ long long tile[128];
  long long scratch[12];
  tile[threadIdx.x] = in[threadIdx.x];
  for (int i = 0; i < 12; ++i) scratch[i] = in[(threadIdx.x + i) & 127] + i;
  __syncthreads();
  double acc = const_table[(threadIdx.x + k) & 63] * const_scale[k & 1];
  acc += tile[(threadIdx.x + 1) & 127] + scratch[(threadIdx.x + k) % 12];
  acc += p.a + p.b + p.c + p.d + p.e + p.f[k % 3];
  acc += global_var[threadIdx.x & 31] + global_scalar;
  out[threadIdx.x] = acc;
}

// Vector loads from shared and local memory.
extern "C" __global__ void plain_vectors(const float4* in, float4* out, int k)
{
  __shared__ float4 tile[64];
  __shared__ double2 dtile[64];
  float4 scratch[4];
  tile[threadIdx.x] = in[threadIdx.x];
  dtile[threadIdx.x] = make_double2(in[threadIdx.x].x, in[threadIdx.x].y);
  for (int i = 0; i < 4; ++i) scratch[i] = in[(threadIdx.x + i) & 63];
  __syncthreads();
  float4 a = tile[(threadIdx.x + 1) & 63];
  float4 b = scratch[(threadIdx.x + k) & 3];
  double2 d = dtile[(threadIdx.x + 2) & 63];
  out[threadIdx.x] = make_float4(a.x + b.x, a.y + b.y, a.z + (float)d.x, a.w + (float)d.y);
}

// ---- cuda::atomic_ref loads: every memory order x every scope x several types -----------------
#define ATOMIC_LOAD(T, TAG, SCOPE, ORDER)                                                         \
  extern "C" __global__ void atomic_load_##TAG##_##SCOPE##_##ORDER(T* data, T* out)              \
  {                                                                                             \
    cuda::atomic_ref<T, cuda::thread_scope_##SCOPE> ref(data[threadIdx.x]);                     \
    out[threadIdx.x] = ref.load(cuda::memory_order_##ORDER);                                    \
  }

#define ATOMIC_ORDERS(T, TAG, SCOPE)                                                     \
  ATOMIC_LOAD(T, TAG, SCOPE, relaxed) ATOMIC_LOAD(T, TAG, SCOPE, consume)                \
  ATOMIC_LOAD(T, TAG, SCOPE, acquire) ATOMIC_LOAD(T, TAG, SCOPE, seq_cst)

#define ATOMIC_SCOPES(T, TAG)                                                             \
  ATOMIC_ORDERS(T, TAG, thread) ATOMIC_ORDERS(T, TAG, block) ATOMIC_ORDERS(T, TAG, device) \
  ATOMIC_ORDERS(T, TAG, system)

ATOMIC_SCOPES(int, s32)
ATOMIC_SCOPES(unsigned long long, u64)
ATOMIC_SCOPES(float, f32)
ATOMIC_SCOPES(double, f64)
ATOMIC_SCOPES(signed char, s8)
ATOMIC_SCOPES(short, s16)

// atomic_ref on shared memory (generic address that points to shared).
extern "C" __global__ void atomic_load_shared(const int* in, int* out)
{
  __shared__ int tile[128];
  tile[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  cuda::atomic_ref<int, cuda::thread_scope_block> ref(tile[127 - threadIdx.x]);
  out[threadIdx.x] = ref.load(cuda::memory_order_acquire) + ref.load(cuda::memory_order_relaxed);
}

// Classic atomics reading memory (atomicAdd with 0 is a read-modify-write load idiom).
extern "C" __global__ void atomic_read_idioms(int* data, int* out)
{
  out[threadIdx.x] = atomicAdd(data + threadIdx.x, 0) + atomicOr(data + threadIdx.x, 0);
}
