// Tensor memory access (TMA) on sm_90: cp.async.bulk.tensor loads in tile and im2col mode, stores
// and reductions, tensor prefetch, and tensor maps passed as a __grid_constant__ parameter or
// through global memory. The host encodes each CUtensorMap with cuTensorMapEncodeTiled /
// cuTensorMapEncodeIm2col; the manifest (cases_sm90.py) lists the encode parameters of every map.
// Built for sm_90.
//
// PTX ISA 9.0 references: tensors, bounding boxes, traversal strides, out-of-bound fill, im2col
// and swizzling [#tensors, #tensor-tiled-mode, #tensor-im2col-mode, #tensor-swizzling-modes];
// the instructions [#data-movement-and-conversion-instructions-cp-async-bulk-tensor,
// #data-movement-and-conversion-instructions-cp-reduce-async-bulk-tensor,
// #data-movement-and-conversion-instructions-cp-async-bulk-prefetch-tensor,
// #data-movement-and-conversion-instructions-prefetch-prefetchu].
//
// Each kernel also takes a plain pointer to every tensor its maps describe (`tensor`, `out`, ...):
// the TMA unit reaches the data through the address encoded in the map, the pointer only keeps the
// buffer in the argument list, as CUTLASS and FlashAttention-3 parameter blocks do.
//
// Every load kernel copies the shared-memory bytes the TMA unit wrote to global memory unchanged:
// the reference in cases_sm90.py applies the ISA's swizzle pattern to the expected tile, so a
// swizzled load is checked byte for byte against the ISA tables rather than un-swizzled here.
#include "sm90_common.cuh"

// Load one box of 32-bit elements into a 1024-byte aligned tile (the 128-byte swizzle pattern
// repeats every 1024 bytes; the base offset is then 0) and write the raw tile out.
template <int BOX_X, int BOX_Y>
__device__ __forceinline__ void load_tile_raw(const CUtensorMap* map, uint32_t* out)
{
  __shared__ alignas(1024) uint32_t tile[BOX_Y * BOX_X];
  __shared__ uint64_t bar;
  const int t = threadIdx.x;
  const int cta = blockIdx.y * gridDim.x + blockIdx.x;
  if (t == 0) {
    ptx::mbarrier_init(&bar, 1);
    ptx::fence_proxy_async(ptx::space_shared);
  }
  __syncthreads();
  if (t == 0) {
    const int32_t coords[2] = {static_cast<int32_t>(blockIdx.x) * BOX_X, static_cast<int32_t>(blockIdx.y) * BOX_Y};
    (void)ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar, sizeof(tile));
    ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, tile, map, coords, &bar);
  }
  mbar_wait(&bar, 0);
  for (int i = t; i < BOX_Y * BOX_X; i += blockDim.x)
    out[cta * BOX_Y * BOX_X + i] = tile[i];
}

// ---- tma_tile_* -------------------------------------------------------------------------------------
// One kernel per swizzle mode; the mode itself is a property of the tensor map. The inner box
// extent equals the swizzle span (32, 64, 128 bytes); the unswizzled one uses a 48-byte box over a
// tensor whose rows are padded (row pitch > row length), so one box runs past the last column.
__global__ void __launch_bounds__(128) tma_tile_noswizzle(const __grid_constant__ CUtensorMap map,
                                                        const uint32_t* tensor, uint32_t* out)
{
  load_tile_raw<12, 16>(&map, out);
}
__global__ void __launch_bounds__(128) tma_tile_swizzle32(const __grid_constant__ CUtensorMap map,
                                                        const uint32_t* tensor, uint32_t* out)
{
  load_tile_raw<8, 16>(&map, out);
}
__global__ void __launch_bounds__(128) tma_tile_swizzle64(const __grid_constant__ CUtensorMap map,
                                                        const uint32_t* tensor, uint32_t* out)
{
  load_tile_raw<16, 16>(&map, out);
}
__global__ void __launch_bounds__(128) tma_tile_swizzle128(const __grid_constant__ CUtensorMap map,
                                                        const uint32_t* tensor, uint32_t* out)
{
  load_tile_raw<32, 16>(&map, out);
}

// ---- tma_load_3d_strided ---------------------------------------------------------------------------
// A 3-D box (8 x 4 x 2 elements, traversal stride 2 in dimension 1, so 8 x 2 x 2 are loaded) at
// per-CTA coordinates that lie partly or wholly outside the tensor, negative ones included: the
// elements outside are zero-filled (CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE).
constexpr int S3_ELEMS = 8 * 2 * 2;

__global__ void __launch_bounds__(32) tma_load_3d_strided(const __grid_constant__ CUtensorMap map, const float* tensor,
                                                         const int32_t* __restrict__ coords, float* __restrict__ out)
{
  __shared__ alignas(128) float box[S3_ELEMS];
  __shared__ uint64_t bar;
  const int t = threadIdx.x;
  if (t == 0) {
    ptx::mbarrier_init(&bar, 1);
    ptx::fence_proxy_async(ptx::space_shared);
  }
  __syncthreads();
  if (t == 0) {
    const int32_t c[3] = {coords[3 * blockIdx.x], coords[3 * blockIdx.x + 1], coords[3 * blockIdx.x + 2]};
    (void)ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar, sizeof(box));
    ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, box, &map, c, &bar);
  }
  mbar_wait(&bar, 0);
  for (int i = t; i < S3_ELEMS; i += blockDim.x)
    out[blockIdx.x * S3_ELEMS + i] = box[i];
}

// ---- tma_load_im2col -------------------------------------------------------------------------------
// im2col mode on an NHWC tensor: each CTA loads Pixels-per-Column = 16 pixels x Channels-per-Pixel
// = 8 channels. The tensor coordinates {c, w, h, n} place the first filter-base pixel inside the
// bounding box (lower corner -1, upper corner -1 in W and H: the output positions of a padded 3x3
// convolution); the 16-bit im2col offsets {w, h} select the filter tap. Pixels are taken in W, then
// H, then N order within the bounding box, so a column can run on into the next image.
constexpr int I2C_PIXELS = 16;
constexpr int I2C_CHANNELS = 8;

__global__ void __launch_bounds__(64) tma_load_im2col(const __grid_constant__ CUtensorMap map, const float* tensor,
                                                     const int32_t* __restrict__ params, float* __restrict__ out)
{
  __shared__ alignas(128) float cols[I2C_PIXELS * I2C_CHANNELS];
  __shared__ uint64_t bar;
  const int t = threadIdx.x;
  if (t == 0) {
    ptx::mbarrier_init(&bar, 1);
    ptx::fence_proxy_async(ptx::space_shared);
  }
  __syncthreads();
  if (t == 0) {
    const int32_t* p = params + 6 * blockIdx.x;   // c, w, h, n, offset w, offset h
    const uint16_t off_w = static_cast<uint16_t>(p[4]);
    const uint16_t off_h = static_cast<uint16_t>(p[5]);
    (void)ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar, sizeof(cols));
    asm volatile(
        "cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes"
        " [%0], [%1, {%2, %3, %4, %5}], [%6], {%7, %8};"
        :: "r"(smem_addr(cols)), "l"(&map), "r"(p[0]), "r"(p[1]), "r"(p[2]), "r"(p[3]), "r"(smem_addr(&bar)),
           "h"(off_w), "h"(off_h)
        : "memory");
  }
  mbar_wait(&bar, 0);
  for (int i = t; i < I2C_PIXELS * I2C_CHANNELS; i += blockDim.x)
    out[blockIdx.x * I2C_PIXELS * I2C_CHANNELS + i] = cols[i];
}

// ---- tma_store_reduce ------------------------------------------------------------------------------
// Each CTA builds a 16x16 int32 tile in shared memory, stores it with a TMA store at its own
// position in `out` (the tiles on the right and bottom edges run past the tensor; the part outside
// is not written) and adds it into the same 16x16 window of `acc` with a TMA reduction, so `acc`
// receives the sum of all four tiles.
constexpr int SR_TILE = 16;

__global__ void __launch_bounds__(128) tma_store_reduce(const __grid_constant__ CUtensorMap out_map,
                                                       const __grid_constant__ CUtensorMap acc_map, int32_t* out,
                                                       int32_t* acc)
{
  __shared__ alignas(128) int32_t tile[SR_TILE * SR_TILE];
  const int t = threadIdx.x;
  const int cta = blockIdx.y * gridDim.x + blockIdx.x;
  for (int i = t; i < SR_TILE * SR_TILE; i += blockDim.x)
    tile[i] = (cta + 1) * 1000 + i;
  ptx::fence_proxy_async(ptx::space_shared);
  __syncthreads();
  if (t == 0) {
    const int32_t at[2] = {static_cast<int32_t>(blockIdx.x) * SR_TILE, static_cast<int32_t>(blockIdx.y) * SR_TILE};
    const int32_t origin[2] = {0, 0};
    ptx::cp_async_bulk_tensor(ptx::space_global, ptx::space_shared, &out_map, at, tile);
    ptx::cp_reduce_async_bulk_tensor(ptx::space_global, ptx::space_shared, ptx::op_add, &acc_map, origin, tile);
    ptx::cp_async_bulk_commit_group();
    ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>());
  }
}

// ---- tma_global_map_prefetch -----------------------------------------------------------------------
// The tensor map lives in global memory (copied there by the host before the launch) and is passed
// by pointer. prefetch.tensormap brings the map closer, cp.async.bulk.prefetch.tensor warms L2 with
// the box, then the box (16-bit elements, 32 x 8) is loaded and written out.
constexpr int GP_X = 32, GP_Y = 8;

__global__ void __launch_bounds__(64) tma_global_map_prefetch(const CUtensorMap* map, const uint16_t* tensor,
                                                             uint16_t* __restrict__ out)
{
  __shared__ alignas(128) uint16_t tile[GP_Y * GP_X];
  __shared__ uint64_t bar;
  const int t = threadIdx.x;
  const int cta = blockIdx.y * gridDim.x + blockIdx.x;
  const int32_t x = blockIdx.x * GP_X, y = blockIdx.y * GP_Y;
  if (t == 0) {
    asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
    asm volatile("cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%0, {%1, %2}];" :: "l"(map), "r"(x), "r"(y)
                 : "memory");
    ptx::mbarrier_init(&bar, 1);
    ptx::fence_proxy_async(ptx::space_shared);
  }
  __syncthreads();
  if (t == 0) {
    const int32_t coords[2] = {x, y};
    (void)ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar, sizeof(tile));
    ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, tile, map, coords, &bar);
  }
  mbar_wait(&bar, 0);
  for (int i = t; i < GP_Y * GP_X; i += blockDim.x)
    out[cta * GP_Y * GP_X + i] = tile[i];
}
