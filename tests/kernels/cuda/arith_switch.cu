// A dense switch. Built with --jump-table-density=0 (nvcc's default, 101, never makes jump
// tables), nvcc emits `brx.idx` over a `.branchtargets` list, as code generators that lower
// switches to jump tables do.
extern "C" __global__ void arith_switch(const int* op, const int* x, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = x[i], r;
    switch (op[i]) {
        case 0: r = v + 1; break;
        case 1: r = v * 3; break;
        case 2: r = v ^ 0x5a5a; break;
        case 3: r = v >> 2; break;
        case 4: r = v - 7; break;
        case 5: r = v * v; break;
        case 6: r = ~v; break;
        case 7: r = v << 3; break;
        case 8: r = v / 5; break;
        case 9: r = v % 11; break;
        case 10: r = v & 0xff; break;
        case 11: r = v | 0x100; break;
        default: r = -1;
    }
    out[i] = r;
}

