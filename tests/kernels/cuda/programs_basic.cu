// Program kernels, part 1: classic data-parallel patterns. Each is run by the CPU emulator and
// compared with the NumPy reference in tests/kernels/cases.py (same kernel name).
#include <cuda_runtime.h>

__global__ void vec_add(const float* a, const float* b, float* c, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

// y = a*x + y; nvcc contracts this into fma.rn.f32.
__global__ void saxpy(float a, const float* x, float* y, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

// Per-block tree reduction in static shared memory (blockDim.x == 256).
__global__ void reduce_shared(const int* in, int* block_sums, int n)
{
  __shared__ int partial[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  partial[threadIdx.x] = i < n ? in[i] : 0;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) block_sums[blockIdx.x] = partial[0];
}

// Warp-shuffle reduction, one global atomicAdd per warp.
__global__ void reduce_warp_shuffle(const int* in, int* total, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
  if ((threadIdx.x & 31) == 0) atomicAdd(total, v);
}

// 32x32 tiles through padded shared memory; block (32, 8), 2-D grid.
__global__ void transpose_tiled(const float* in, float* out, int rows, int cols)
{
  __shared__ float tile[32][33];
  int x = blockIdx.x * 32 + threadIdx.x;
  int y = blockIdx.y * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8)
    if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
  __syncthreads();
  x = blockIdx.y * 32 + threadIdx.x;
  y = blockIdx.x * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8)
    if (x < rows && y + j < cols) out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}

// 64-bin histogram with global atomics.
__global__ void histogram_global(const unsigned char* data, unsigned int* bins, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins[data[i] & 63], 1u);
}

// 64-bin histogram: shared-memory atomics per block, then merged with global atomics.
// Grid-stride loop so a small grid covers all of n.
__global__ void histogram_shared(const unsigned char* data, unsigned int* bins, int n)
{
  __shared__ unsigned int local_bins[64];
  for (int b = threadIdx.x; b < 64; b += blockDim.x) local_bins[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&local_bins[data[i] & 63], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < 64; b += blockDim.x)
    if (local_bins[b]) atomicAdd(&bins[b], local_bins[b]);
}

// 1-D stencil, radius 3, halo staged in shared memory; out-of-range neighbours count as 0.
// The sum runs from offset -3 to +3 in that order.
#define RADIUS 3
__global__ void stencil_1d(const float* in, float* out, int n)
{
  __shared__ float buf[128 + 2 * RADIUS];
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  int l = threadIdx.x + RADIUS;
  buf[l] = g < n ? in[g] : 0.0f;
  if (threadIdx.x < RADIUS) {
    int left = g - RADIUS, right = g + blockDim.x;
    buf[l - RADIUS] = left >= 0 && left < n ? in[left] : 0.0f;
    buf[l + blockDim.x] = right < n ? in[right] : 0.0f;
  }
  __syncthreads();
  if (g < n) {
    float acc = 0.0f;
    for (int o = -RADIUS; o <= RADIUS; ++o) acc += buf[l + o];
    out[g] = acc;
  }
}

// 2-D five-point stencil (c + n + s + w + e, in that order) on the interior; borders copied.
__global__ void stencil_2d(const float* in, float* out, int w, int h)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  int i = y * w + x;
  if (x == 0 || y == 0 || x == w - 1 || y == h - 1) {
    out[i] = in[i];
    return;
  }
  out[i] = in[i] + in[i - w] + in[i + w] + in[i - 1] + in[i + 1];
}

// Inclusive Hillis-Steele scan within each block of 256 (double-buffered shared memory).
__global__ void block_scan(const int* in, int* out, int n)
{
  __shared__ int buf[2][256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int cur = 0;
  buf[cur][threadIdx.x] = i < n ? in[i] : 0;
  __syncthreads();
  for (int offset = 1; offset < blockDim.x; offset <<= 1) {
    int v = buf[cur][threadIdx.x];
    if (threadIdx.x >= offset) v += buf[cur][threadIdx.x - offset];
    buf[cur ^ 1][threadIdx.x] = v;
    cur ^= 1;
    __syncthreads();
  }
  if (i < n) out[i] = buf[cur][threadIdx.x];
}

// Shared-memory tiled integer matrix multiply, 16x16 tiles, C (m x n) = A (m x k) * B (k x n).
__global__ void matmul_tiled_int(const int* a, const int* b, int* c, int m, int n, int k)
{
  __shared__ int ta[16][16], tb[16][16];
  int row = blockIdx.y * 16 + threadIdx.y, col = blockIdx.x * 16 + threadIdx.x;
  int acc = 0;
  for (int t = 0; t < k; t += 16) {
    ta[threadIdx.y][threadIdx.x] = row < m && t + threadIdx.x < k ? a[row * k + t + threadIdx.x] : 0;
    tb[threadIdx.y][threadIdx.x] = col < n && t + threadIdx.y < k ? b[(t + threadIdx.y) * n + col] : 0;
    __syncthreads();
    for (int j = 0; j < 16; ++j) acc += ta[threadIdx.y][j] * tb[j][threadIdx.x];
    __syncthreads();
  }
  if (row < m && col < n) c[row * n + col] = acc;
}

// Dynamic shared memory: reverse each block's chunk; ints carved after the floats.
__global__ void dyn_shared_reverse(const float* in, float* out, int* block_max, int n)
{
  extern __shared__ unsigned char smem[];
  float* vals = reinterpret_cast<float*>(smem);
  int* keys = reinterpret_cast<int*>(smem + blockDim.x * sizeof(float));
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  vals[threadIdx.x] = in[i];
  keys[threadIdx.x] = (int)in[i];
  __syncthreads();
  out[i] = vals[blockDim.x - 1 - threadIdx.x];
  if (threadIdx.x == 0) {
    int m = keys[0];
    for (int j = 1; j < blockDim.x; ++j) m = max(m, keys[j]);
    block_max[blockIdx.x] = m;
  }
}

// 3-D grid and 3-D block: every thread writes its coordinates, packed, at its linear index.
__global__ void grid3d_coords(unsigned int* out)
{
  unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
  unsigned z = blockIdx.z * blockDim.z + threadIdx.z;
  unsigned nx = gridDim.x * blockDim.x, ny = gridDim.y * blockDim.y;
  unsigned lin = (z * ny + y) * nx + x;
  unsigned tid = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  out[lin] = (x << 20) | (y << 10) | z | (tid << 26);
}

// Grid-stride loop: the grid is much smaller than n.
__global__ void grid_stride_map(const int* in, int* out, int n)
{
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    out[i] = in[i] * 3 + (i & 7);
}

// Data-dependent trip counts (Collatz steps, capped) -> heavily divergent warps.
__global__ void divergent_collatz(const unsigned int* in, unsigned int* steps, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned x = in[i], s = 0;
  while (x != 1 && s < 1000) {
    x = (x & 1) ? 3 * x + 1 : x >> 1;
    ++s;
  }
  steps[i] = s;
}

// Switch, early exit and predicated selects.
__global__ void predicated_select(const int* in, int* out, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = in[i];
  if (v < -900) { out[i] = -1; return; }
  int r;
  switch (v & 3) {
    case 0: r = v * 2; break;
    case 1: r = v > 0 ? v - 7 : v + 7; break;
    case 2: r = min(v, 100) + max(v, -100); break;
    default: r = abs(v) ^ 0x55; break;
  }
  out[i] = r;
}

// Commutative atomics: the final values do not depend on thread order.
__global__ void atomics_commutative(const int* in, int* res, float* fmax_out, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = in[i];
  atomicAdd(&res[0], v);
  atomicMax(&res[1], v);
  atomicMin(&res[2], v);
  atomicAnd(&res[3], v | 0x10000);
  atomicOr(&res[4], v & 0xff00);
  atomicXor(&res[5], v);
  atomicMax(reinterpret_cast<unsigned int*>(&res[6]), (unsigned int)v);
  // float max through a compare-and-swap loop
  float f = (float)v * 0.5f;
  int* addr = reinterpret_cast<int*>(fmax_out);
  int old = *addr, assumed;
  do {
    assumed = old;
    if (__int_as_float(assumed) >= f) break;
    old = atomicCAS(addr, assumed, __float_as_int(f));
  } while (old != assumed);
}

// Warp shuffles: broadcast, up, down, xor, and the width-16 sub-warp forms.
__global__ void warp_shuffles(const int* in, int* out)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  const unsigned full = 0xffffffffu;
  int* o = out + i * 6;
  o[0] = __shfl_sync(full, v, 5);
  o[1] = __shfl_up_sync(full, v, 3);
  o[2] = __shfl_down_sync(full, v, 7);
  o[3] = __shfl_xor_sync(full, v, 9);
  o[4] = __shfl_sync(full, v, 2, 16);
  o[5] = __shfl_down_sync(full, v, 5, 16);
}

// Warp votes, with one __activemask inside a divergent branch.
__global__ void warp_votes(const int* in, unsigned int* out)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  int v = in[i];
  const unsigned full = 0xffffffffu;
  unsigned* o = out + i * 5;
  unsigned ballot = __ballot_sync(full, v > 0);
  o[0] = ballot;
  o[1] = __any_sync(full, v > 900);
  o[2] = __all_sync(full, v > -990);
  o[3] = __popc(ballot) + __ffs(ballot);
  unsigned am = 0;
  if (lane % 3 == 0) am = __activemask();
  o[4] = am;
}
