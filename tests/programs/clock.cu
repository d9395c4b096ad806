// clock: each block times its own work with clock64() (the multiprocessor's cycle counter) while
// it finds the minimum of its slice with a shared-memory reduction. The minima are checked on the
// host, and the timings must be positive and bounded.
#include <algorithm>
#include <vector>
#include "check.h"

__global__ void timed_min(const float* in, float* out, long long* cycles, int per_block)
{
    extern __shared__ float s[];
    long long start = clock64();
    const float* mine = in + blockIdx.x * per_block;
    float m = mine[threadIdx.x];
    for (int i = threadIdx.x + blockDim.x; i < per_block; i += blockDim.x) m = fminf(m, mine[i]);
    s[threadIdx.x] = m;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) s[threadIdx.x] = fminf(s[threadIdx.x], s[threadIdx.x + stride]);
        __syncthreads();
    }
    long long stop = clock64();
    if (threadIdx.x == 0) {
        out[blockIdx.x] = s[0];
        cycles[blockIdx.x] = stop - start;
    }
}

int main()
{
    const int blocks = 64, threads = 256, per_block = 4096, n = blocks * per_block;
    std::vector<float> h(n);
    unsigned x = 12345;
    for (auto& v : h) { x = x * 1664525u + 1013904223u; v = (x >> 8) * (1.0f / (1 << 24)); }
    float *d_in, *d_out;
    long long* d_cycles;
    CHECK(cudaMalloc(&d_in, n * sizeof(float)));
    CHECK(cudaMalloc(&d_out, blocks * sizeof(float)));
    CHECK(cudaMalloc(&d_cycles, blocks * sizeof(long long)));
    CHECK(cudaMemcpy(d_in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    timed_min<<<blocks, threads, threads * sizeof(float)>>>(d_in, d_out, d_cycles, per_block);
    CHECK_LAUNCH();
    std::vector<float> mins(blocks);
    std::vector<long long> cycles(blocks);
    CHECK(cudaMemcpy(mins.data(), d_out, blocks * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(cycles.data(), d_cycles, blocks * sizeof(long long), cudaMemcpyDeviceToHost));

    long long total = 0, lo = cycles[0], hi = cycles[0];
    for (int b = 0; b < blocks; ++b) {
        float want = h[b * per_block];
        for (int i = 1; i < per_block; ++i) want = std::min(want, h[b * per_block + i]);
        EXPECT(mins[b] == want, "block %d min %g, expected %g", b, mins[b], want);
        // At least one cycle per element each thread read; far below a second at 1 GHz.
        EXPECT(cycles[b] >= per_block / threads && cycles[b] < 1000000000LL, "block %d: %lld cycles",
               b, cycles[b]);
        total += cycles[b];
        lo = std::min(lo, cycles[b]);
        hi = std::max(hi, cycles[b]);
    }
    std::printf("cycles per block: mean %lld, min %lld, max %lld\n", total / blocks, lo, hi);
    CHECK(cudaFree(d_in)); CHECK(cudaFree(d_out)); CHECK(cudaFree(d_cycles));
    std::printf("clock: %d blocks timed with clock64: PASS\n", blocks);
    return 0;
}
