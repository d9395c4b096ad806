// Lesson 12, a known-wrong variant for the course linter (tests/course_linter_test.cpp): occupancy
// bought with spills. __launch_bounds__(256, 6) asks ptxas to fit 6 blocks of 256 threads, at most
// 65536 / 1536 = 42 registers per thread (40 after rounding), too few for 48 sums and their
// operands: ptxas keeps some in local memory. Correct, and its theoretical occupancy passes (shared
// memory still limits it to 4 blocks, 50%), but the "register spills (bytes)" check must fail.

#define IN 256
#define OUT 48
#define CHUNK 256

__device__ int block_size = 256;

__global__ void __launch_bounds__(256, 6) layer(const float* x, const float* w, float* y, int n)
{
    __shared__ float ws[CHUNK * OUT];

    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float acc[OUT];
    for (int j = 0; j < OUT; ++j) acc[j] = 0.0f;

    for (int k0 = 0; k0 < IN; k0 += CHUNK) {
        __syncthreads();
        for (int e = threadIdx.x; e < CHUNK * OUT; e += blockDim.x) ws[e] = w[k0 * OUT + e];
        __syncthreads();

        if (i < n) {
            for (int k = 0; k < CHUNK; ++k) {
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
