// Control flow: divergence and nested reconvergence, loops with break and continue, an early
// return before __syncthreads, __syncthreads_count/_and/_or (bar.red), a switch, recursion
// through a __noinline__ function, a non-inlined function taking and returning a struct, and calls
// through function pointers (a __device__ table of them), different ones in one warp.

extern "C" __global__ void divergence(const unsigned* in, unsigned* out) {
    const int g = blockIdx.x * blockDim.x + threadIdx.x;
    const int lane = threadIdx.x & 31;
    unsigned acc = 0;
    for (int i = 0; i < 12; ++i) {
        if ((in[g] >> i) & 1) continue;        // early continue, per lane
        if (lane & 1) {                         // lane parity
            if (i % 3 == 0) acc += 7u * unsigned(i);
            else acc ^= unsigned(i) << 4;
        } else {
            acc += 3u;
            if (lane < 8 + i) {
                acc *= 5u;
                if (acc & 16) break;            // break out of the loop
            }
        }
        acc += 1u;
    }
    unsigned* o = out + g * 4;
    o[0] = acc;
    unsigned r = in[g];
    switch (r % 6u) {
    case 0: r = r * 3u; break;
    case 1: r = r + 11u; break;
    case 2: r ^= 0xdeadu; break;
    case 3: r = r >> 3; break;
    case 4: r = ~r; break;
    default: r = 0; break;
    }
    o[1] = r;
    int n = 0;
    while (r > 0 && n < 40) { r >>= (lane & 3) + 1; ++n; }  // trip count per lane
    o[2] = unsigned(n);
    o[3] = __activemask();
}

// Threads of the last warps return before the barrier: the barrier must still complete.
extern "C" __global__ void early_return(const unsigned* in, unsigned* out) {
    __shared__ unsigned tile[256];
    const int t = threadIdx.x;
    if (t >= 200) return;
    tile[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    out[blockIdx.x * blockDim.x + t] = tile[199 - t] + 1u;
}

extern "C" __global__ void barrier_reductions(const unsigned* in, unsigned* out) {
    const int g = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned v = in[g];
    const int count = __syncthreads_count(v & 1);
    const int all = __syncthreads_and(v != 0);
    const int any = __syncthreads_or((v & 0xfff) == 0);
    const int none = __syncthreads_or(0);
    out[g * 4 + 0] = unsigned(count);
    out[g * 4 + 1] = unsigned(all);
    out[g * 4 + 2] = unsigned(any);
    out[g * 4 + 3] = unsigned(none);
}

__device__ __noinline__ unsigned fib(unsigned n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

__device__ __noinline__ unsigned long long factorial(unsigned n) { return n <= 1 ? 1ull : n * factorial(n - 1); }

struct Stats {
    float mean;
    unsigned count;
    double spread;
};

__device__ __noinline__ Stats summarize(const unsigned* p, int n, Stats prior) {
    Stats s = prior;
    for (int i = 0; i < n; ++i) {
        s.mean += float(p[i] & 0xff);
        s.spread += double(p[i] >> 24);
    }
    s.count += unsigned(n);
    s.mean /= float(s.count);
    return s;
}

// A local array in a non-inlined function: its own stack frame (__local_depot of the .func).
__device__ __noinline__ unsigned local_table(unsigned seed, unsigned depth) {
    unsigned table[16];
    for (int i = 0; i < 16; ++i) table[i] = seed * unsigned(i + 1) ^ (seed >> i);
    const unsigned here = table[seed % 16u];
    return depth == 0 ? here : here + local_table(seed * 2654435761u, depth - 1);  // frames stack up
}

extern "C" __global__ void calls(const unsigned* in, unsigned* out) {
    const int g = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned n = in[g] % 16u;  // different depths per lane
    unsigned* o = out + g * 7;
    o[0] = fib(n);
    const unsigned long long f = factorial(n + 4u);
    o[1] = unsigned(f);
    o[2] = unsigned(f >> 32);
    Stats prior = {1.0f, 1u, 0.5};
    Stats s = summarize(in + (g & ~7), 1 + int(n & 7), prior);
    o[3] = __float_as_uint(s.mean);
    o[4] = s.count;
    o[5] = unsigned(s.spread * 4.0);
    o[6] = local_table(in[g], n % 4u);
}

__device__ __noinline__ unsigned op_add(unsigned a, unsigned b) { return a + b; }
__device__ __noinline__ unsigned op_xor(unsigned a, unsigned b) { return a ^ b; }
__device__ __noinline__ unsigned op_mul(unsigned a, unsigned b) { return a * b; }
typedef unsigned (*binary_op)(unsigned, unsigned);
__device__ binary_op operations[3] = {op_add, op_xor, op_mul};

extern "C" __global__ void function_pointers(const unsigned* in, unsigned* out) {
    const unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
    const binary_op op = operations[in[g] % 3u];  // lanes of one warp call different functions
    out[2 * g] = op(in[g], g + 1u);
    const binary_op same = operations[1];
    out[2 * g + 1] = same(in[g], 0xffu);
}
