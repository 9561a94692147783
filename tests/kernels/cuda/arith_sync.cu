// Synchronisation that needs a fair scheduler or the ISA's rules for exited lanes: a spin lock
// and a ticket lock across CTAs, a producer/consumer flag, and warp votes and shuffles after
// some lanes have exited.
#include <cstdint>

// one thread per CTA takes a global spin lock, updates a plain counter and a log, releases it
extern "C" __global__ void arith_spin_lock(int* lock, int* counter, int* log) {
    if (threadIdx.x == 0) {
        while (atomicCAS(lock, 0, 1) != 0) { }
        __threadfence();
        volatile int* c = counter;
        int seen = *c;
        *c = seen + 1;
        log[blockIdx.x] = seen;           // the order the CTAs got the lock in
        __threadfence();
        atomicExch(lock, 0);
    }
}

// every thread takes a ticket and waits for its turn; in turn order each adds its ticket to a
// running sum and records the sum under its ticket
extern "C" __global__ void arith_ticket(unsigned* next, volatile unsigned* turn, unsigned* sum,
                                       unsigned* by_ticket) {
    unsigned t = atomicAdd(next, 1u);
    while (*turn != t) { }
    unsigned s = *(volatile unsigned*)sum + t;
    *(volatile unsigned*)sum = s;
    by_ticket[t] = s;
    __threadfence();
    atomicAdd((unsigned*)turn, 1u);
}

// CTA 0 produces data and raises a flag; the other CTAs wait for the flag and consume the data
extern "C" __global__ void arith_flag(int* data, volatile int* flag, int* out, int n) {
    if (blockIdx.x == 0) {
        for (int i = threadIdx.x; i < n; i += blockDim.x) data[i] = 3 * i + 1;
        __syncthreads();
        __threadfence();
        if (threadIdx.x == 0) *flag = 1;
    } else {
        if (threadIdx.x == 0) { while (*flag == 0) { } }
        __syncthreads();
        __threadfence();
        int i = (blockIdx.x - 1) * blockDim.x + threadIdx.x;
        if (i < n) out[i] = ((volatile int*)data)[i] * 2;
    }
}

// lanes at or above `live` return at once; the others vote and shuffle with a full member mask
// (exited lanes take no part: PTX ISA vote.sync / shfl.sync)
extern "C" __global__ void arith_warp_exited(const int* x, int live, unsigned* out) {
    int lane = threadIdx.x & 31;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (lane >= live) return;
    int v = x[i];
    unsigned ballot = __ballot_sync(0xffffffffu, v & 1);
    int from3 = __shfl_sync(0xffffffffu, v, 3);
    int up = __shfl_down_sync(0xffffffffu, v, 1);
    if (lane + 1 >= live) up = -1;        // read from an exited lane: undefined, not recorded
    unsigned any = __any_sync(0xffffffffu, v > 1000);
    unsigned same = __match_any_sync(0xffffffffu, v & 3);
    unsigned total = __reduce_add_sync(0xffffffffu, (unsigned)v);
    unsigned* o = out + 6 * i;
    o[0] = ballot; o[1] = from3; o[2] = up; o[3] = any; o[4] = same; o[5] = total;
}
