// Extended-precision integer arithmetic as nvcc emits it for unsigned __int128: add.cc/addc,
// sub.cc/subc, mul.lo/mul.hi with mad.lo.cc/madc chains. Each 128-bit value is two uint64
// words, low word first.
#include <cstdint>

typedef unsigned __int128 u128;

__device__ u128 load128(const uint64_t* p, int i) {
    return (u128)p[2 * i] | ((u128)p[2 * i + 1] << 64);
}

__device__ void store128(uint64_t* p, int i, u128 v) {
    p[2 * i] = (uint64_t)v;
    p[2 * i + 1] = (uint64_t)(v >> 64);
}

// c = a + b (mod 2^128)
extern "C" __global__ void arith_u128_add(const uint64_t* a, const uint64_t* b, uint64_t* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) store128(c, i, load128(a, i) + load128(b, i));
}

// c = a * b (mod 2^128)
extern "C" __global__ void arith_u128_mul(const uint64_t* a, const uint64_t* b, uint64_t* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) store128(c, i, load128(a, i) * load128(b, i));
}

// d = a * b - c (mod 2^128), and the borrow of a - c as a 0/1 flag
extern "C" __global__ void arith_u128_mad_sub(const uint64_t* a, const uint64_t* b, const uint64_t* c,
                                             uint64_t* d, unsigned* borrow, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        u128 x = load128(a, i), z = load128(c, i);
        store128(d, i, x * load128(b, i) - z);
        borrow[i] = x < z;
    }
}

// a running 128-bit sum over k steps: s += a * k  (a loop-carried carry chain)
extern "C" __global__ void arith_u128_series(const uint64_t* a, uint64_t* s, int n, int steps) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        u128 x = load128(a, i), acc = 0;
        for (int k = 1; k <= steps; ++k) acc += x * (u128)(unsigned)k;
        store128(s, i, acc);
    }
}
