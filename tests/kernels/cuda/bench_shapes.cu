// Kernel shapes of the emulator benchmark suite (benchmarks/kernel_shapes.py): the way people
// write these kernels in CUDA, one per common shape. Built for sm_80.
// Cases (small sizes, NumPy references): tests/kernels/cases_bench.py.

#define TILE 16

// C = A * B for n x n float matrices, n a multiple of 16; block (16, 16), grid (n/16, n/16).
// Each k-step of the inner loop is one fmaf (nvcc emits fma.rn.f32).
__global__ void matmul_tiled(const float* A, const float* B, float* C, int n)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int t = 0; t < n; t += TILE) {
        As[ty][tx] = A[row * n + t + tx];
        Bs[ty][tx] = B[(t + ty) * n + col];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k)
            acc = fmaf(As[ty][k], Bs[k][tx], acc);
        __syncthreads();
    }
    C[row * n + col] = acc;
}

// 5-point Jacobi step on a w x h grid with a shared tile and a one-cell halo; block (16, 16).
// Border cells copy their input.
__global__ void stencil2d_shared(const float* in, float* out, int w, int h)
{
    __shared__ float tile[TILE + 2][TILE + 2];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    int lx = threadIdx.x + 1, ly = threadIdx.y + 1;
    bool inside = x < w && y < h;
    tile[ly][lx] = inside ? in[y * w + x] : 0.0f;
    if (threadIdx.x == 0 && x > 0 && y < h) tile[ly][0] = in[y * w + x - 1];
    if (threadIdx.x == TILE - 1 && x + 1 < w && y < h) tile[ly][TILE + 1] = in[y * w + x + 1];
    if (threadIdx.y == 0 && y > 0 && x < w) tile[0][lx] = in[(y - 1) * w + x];
    if (threadIdx.y == TILE - 1 && y + 1 < h && x < w) tile[TILE + 1][lx] = in[(y + 1) * w + x];
    __syncthreads();
    if (!inside) return;
    if (x == 0 || y == 0 || x == w - 1 || y == h - 1) {
        out[y * w + x] = tile[ly][lx];
        return;
    }
    out[y * w + x] = 0.2f * (tile[ly][lx] + tile[ly][lx - 1] + tile[ly][lx + 1]
                             + tile[ly - 1][lx] + tile[ly + 1][lx]);
}

// Sum of n floats per 256-thread block: each thread adds two elements, then a shared-memory tree.
__global__ void reduce_sum(const float* in, float* block_sums, int n)
{
    __shared__ float s[256];
    int tid = threadIdx.x;
    int i = blockIdx.x * 512 + tid;
    float v = 0.0f;
    if (i < n) v = in[i];
    if (i + 256 < n) v += in[i + 256];
    s[tid] = v;
    __syncthreads();
    for (int stride = 128; stride > 0; stride >>= 1) {
        if (tid < stride) s[tid] += s[tid + stride];
        __syncthreads();
    }
    if (tid == 0) block_sums[blockIdx.x] = s[0];
}

// Inclusive prefix sum of each 256-element block (Hillis-Steele, double-buffered shared memory).
__global__ void block_scan_inclusive(const int* in, int* out, int n)
{
    __shared__ int buf[2][256];
    int tid = threadIdx.x;
    int i = blockIdx.x * 256 + tid;
    int cur = 0;
    buf[0][tid] = i < n ? in[i] : 0;
    __syncthreads();
    for (int d = 1; d < 256; d <<= 1) {
        int v = buf[cur][tid];
        if (tid >= d) v += buf[cur][tid - d];
        buf[cur ^ 1][tid] = v;
        cur ^= 1;
        __syncthreads();
    }
    if (i < n) out[i] = buf[cur][tid];
}

// 256-bin histogram of bytes: per-block bins in shared memory (atomicAdd), then merged into the
// global bins with one atomicAdd per bin and block. Grid-stride loop over the input.
__global__ void histogram_atomic(const unsigned char* data, unsigned int* bins, int n)
{
    __shared__ unsigned int local[256];
    local[threadIdx.x] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();
    atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}

// Row-wise softmax of a rows x 128 matrix: one warp per row, four values per lane, the row's
// maximum and sum by butterfly shuffles. Block (32, 8): eight rows per block.
__global__ void softmax_warp(const float* in, float* out, int rows)
{
    int row = blockIdx.x * blockDim.y + threadIdx.y;
    if (row >= rows) return;
    const float* x = in + row * 128;
    float v[4];
    float m = -INFINITY;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
        v[j] = x[threadIdx.x + 32 * j];
        m = fmaxf(m, v[j]);
    }
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
    float s = 0.0f;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
        v[j] = __expf(v[j] - m);
        s += v[j];
    }
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        s += __shfl_xor_sync(0xffffffffu, s, o);
    float inv = 1.0f / s;
#pragma unroll
    for (int j = 0; j < 4; ++j)
        out[row * 128 + threadIdx.x + 32 * j] = v[j] * inv;
}
