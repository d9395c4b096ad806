// Lesson 12 — occupancy: registers, shared memory and the block size (reference solution).
//
// y[j][i] = sum over k of x[k][i] * w[k][j] for n samples (IN = 256 features, OUT = 48 outputs),
// one thread per sample, w staged in shared memory, 48 sums per thread in registers.
//
// On sm_90 an SM holds at most 64 warps, 32 blocks, 65536 registers and 228 KB of shared memory.
// As shipped (blocks of 128 threads, 72 registers, 48 KB of shared memory) the shared memory runs
// out first: 48 KB + 1 KB reserved per block, 4 blocks, 16 warps, 25%.
//
// Here: blocks of 256 threads, so the same 4 blocks bring 32 warps. On their own, 72 registers
// per thread would allow only 3 such blocks (72 x 32 = 2304 registers per warp, 7 warps per
// 16384-register sub-partition, 28 warps per SM); __launch_bounds__(256, 4) tells ptxas to fit 4
// blocks of 256 threads, at most 65536 / 1024 = 64 registers per thread, and it manages without
// spilling. 4 blocks x 8 warps = 32 of 64 warps: 50%, limited by registers and shared memory alike.

#define IN 256     // features per sample
#define OUT 48     // outputs per sample: 48 sums per thread, kept in registers
#define CHUNK 256  // rows of w staged in shared memory at a time (must divide IN)

// 8 warps per block: 4 blocks per SM make 32 warps. Must not exceed __launch_bounds__ below.
__device__ int block_size = 256;

__global__ void __launch_bounds__(256, 4) layer(const float* x, const float* w, float* y, int n)
{
    __shared__ float ws[CHUNK * OUT];  // 48 KB: 4 blocks per SM (4 x 49 KB of 228 KB)

    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float acc[OUT];
    for (int j = 0; j < OUT; ++j) acc[j] = 0.0f;

    for (int k0 = 0; k0 < IN; k0 += CHUNK) {
        __syncthreads();  // the previous chunk is no longer being read
        for (int e = threadIdx.x; e < CHUNK * OUT; e += blockDim.x) ws[e] = w[k0 * OUT + e];
        __syncthreads();  // the chunk is complete

        if (i < n) {
            for (int k = 0; k < CHUNK; ++k) {
                // One coalesced load per warp; the 48 weights are the same word for all lanes
                // (a broadcast) and the 48 sums stay in registers.
                float v = x[(k0 + k) * n + i];
#pragma unroll
                for (int j = 0; j < OUT; ++j) acc[j] += v * ws[k * OUT + j];
            }
        }
    }
    if (i < n) {
        for (int j = 0; j < OUT; ++j) y[j * n + i] = acc[j];
    }
}
