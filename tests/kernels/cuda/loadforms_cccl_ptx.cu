// Load forms reached through the cuda::ptx ld wrappers of the CCCL headers shipped with
// CUDA 13.0 (<cuda/ptx>, cuda/__ptx/instructions/generated/ld.h). Each wrapper exists for
// .b8/.b16/.b32/.b64/.b128; one kernel per wrapper loads all five widths.
// Wrappers needing sm_80 (.L2::256B, .L2::cache_hint) are left out of lower targets.
#include <cuda/ptx>
#include <cstdint>

namespace ptx = cuda::ptx;

#define PLAIN(FN, P) ptx::FN(ptx::space_global, P)
#define HINT(FN, P) ptx::FN(ptx::space_global, P, policy)

#define DEFINE_PLAIN(FN)                                                                \
  extern "C" __global__ void cccl_##FN(const uint8_t* p8, const uint16_t* p16,               \
                                       const uint32_t* p32, const uint64_t* p64,             \
                                       const longlong2* p128, uint64_t* out)                 \
  {                                                                                          \
    const unsigned t = threadIdx.x;                                                          \
    uint64_t acc = (uint64_t)PLAIN(FN, p8 + t) + (uint64_t)PLAIN(FN, p16 + t)                \
                   + (uint64_t)PLAIN(FN, p32 + t) + PLAIN(FN, p64 + t);                      \
    longlong2 wide = PLAIN(FN, p128 + t);                                                    \
    out[t] = acc + (uint64_t)wide.x + (uint64_t)wide.y;                                      \
  }
#define DEFINE_HINT(FN)                                                                      \
  extern "C" __global__ void cccl_##FN(const uint8_t* p8, const uint16_t* p16,               \
                                       const uint32_t* p32, const uint64_t* p64,             \
                                       const longlong2* p128, uint64_t* out, uint64_t policy) \
  {                                                                                          \
    const unsigned t = threadIdx.x;                                                          \
    uint64_t acc = (uint64_t)HINT(FN, p8 + t) + (uint64_t)HINT(FN, p16 + t)                  \
                   + (uint64_t)HINT(FN, p32 + t) + HINT(FN, p64 + t);                        \
    longlong2 wide = HINT(FN, p128 + t);                                                     \
    out[t] = acc + (uint64_t)wide.x + (uint64_t)wide.y;                                      \
  }

// Every wrapper name for one prefix ("ld" or "ld_nc"), split by the target they need.
#define SM75_FORMS(P, D)                                                                     \
  D(P) D(P##_L2_64B) D(P##_L2_128B)                                                          \
  D(P##_L1_evict_normal) D(P##_L1_evict_normal_L2_64B) D(P##_L1_evict_normal_L2_128B)        \
  D(P##_L1_evict_unchanged) D(P##_L1_evict_unchanged_L2_64B) D(P##_L1_evict_unchanged_L2_128B) \
  D(P##_L1_evict_first) D(P##_L1_evict_first_L2_64B) D(P##_L1_evict_first_L2_128B)           \
  D(P##_L1_evict_last) D(P##_L1_evict_last_L2_64B) D(P##_L1_evict_last_L2_128B)              \
  D(P##_L1_no_allocate) D(P##_L1_no_allocate_L2_64B) D(P##_L1_no_allocate_L2_128B)

#define SM80_PLAIN_FORMS(P, D)                                                               \
  D(P##_L2_256B) D(P##_L1_evict_normal_L2_256B) D(P##_L1_evict_unchanged_L2_256B)            \
  D(P##_L1_evict_first_L2_256B) D(P##_L1_evict_last_L2_256B) D(P##_L1_no_allocate_L2_256B)

#define SM80_HINT_FORMS_ONE(P, D)                                                            \
  D(P##_L2_cache_hint) D(P##_L2_cache_hint_L2_64B) D(P##_L2_cache_hint_L2_128B)              \
  D(P##_L2_cache_hint_L2_256B)
#define SM80_HINT_FORMS(P, D)                                                                \
  SM80_HINT_FORMS_ONE(P, D) SM80_HINT_FORMS_ONE(P##_L1_evict_normal, D)                      \
  SM80_HINT_FORMS_ONE(P##_L1_evict_unchanged, D) SM80_HINT_FORMS_ONE(P##_L1_evict_first, D)  \
  SM80_HINT_FORMS_ONE(P##_L1_evict_last, D) SM80_HINT_FORMS_ONE(P##_L1_no_allocate, D)

SM75_FORMS(ld, DEFINE_PLAIN)
SM75_FORMS(ld_nc, DEFINE_PLAIN)

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
SM80_PLAIN_FORMS(ld, DEFINE_PLAIN)
SM80_PLAIN_FORMS(ld_nc, DEFINE_PLAIN)
SM80_HINT_FORMS(ld, DEFINE_HINT)
SM80_HINT_FORMS(ld_nc, DEFINE_HINT)
#endif
